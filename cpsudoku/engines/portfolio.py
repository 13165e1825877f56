"""Portfolio backend (``portfolio``): race two engines on one puzzle, first answer wins.

Aimed at single hard, big grids, where the engines' times vary from puzzle to puzzle
and no one can tell in advance which will be faster. It pays when each engine gets a
core of its own: on the 2-core machine of docs/design.md, shared with other work, it
solved the sixteen 25x25 puzzles of ``benchmarks/data/25x25_frisch.txt`` in 126 s,
against 209 s for ``cpsat`` and 91 s for ``sat`` alone (which won 15 of the races).
Each engine lives in its own worker process (multiprocessing, ``spawn`` context),
created once per backend instance and kept between puzzles, so the cost of starting
Python and loading a solver is paid once, not per puzzle. Scripts that use it
must guard their entry point with ``if __name__ == "__main__":`` (``spawn`` imports the
main module in each worker).

Per puzzle every engine gets the same job; the first *definitive* answer (one that is
not a timeout) wins, at once. The loser cannot be interrupted inside its solver. If it
has been searching for more than :data:`RESTART_AFTER` seconds (a long race, typically
a big grid), its process is terminated and joined right away and a fresh worker is
started in the background. After a short race (a near tie, common on easy puzzles) it
is left to finish instead: the next job waits in its pipe, its stale answer is
skipped, and if the stale search goes on past :data:`RESTART_AFTER` seconds it is
replaced then, and the fresh worker gets the current job. An engine that already owes
:data:`MAX_OWED` jobs sits the next race out, so it can fall behind by at most that
much and no pipe can fill up. A worker still starting up
(importing its solver takes a second or more on a loaded machine) is never counted as
slow, so restarts cannot cascade. On easy puzzles the portfolio therefore runs at
about the faster engine's speed, nearly every race has every engine in it, and a hard race
leaves nothing running behind it.
Every busy worker is stopped the same way when anything goes wrong in the parent (an
exception, Ctrl-C), and none is restarted then: no process is left behind.

The workers live as long as their owner says. :meth:`PortfolioBackend.close` stops
and reaps them all (the ``with`` block does it); a closed portfolio starts new ones if
used again. The process-wide portfolio of the module-level API (``cpsudoku.solve``,
``count``, ``rate``, one ``solve_many`` or batch run, one command) is released when
that call returns (:func:`cpsudoku.engines.call_scope`): its processes end with the
call, and each such call pays the start-up again (a few seconds, docs/design.md). For
many calls, hold a portfolio of your own (``with create_backend("portfolio") as
engine``). A process forked from the owner (a batch worker) starts workers of its own.

Variant words name the engines to race: ``portfolio`` is ``sat`` against ``cpsat``;
``portfolio:cpsat:backtrack`` races those two instead.

Stats: the winner's counters prefixed with its name (``cpsat.branches``), and
``won_by_<name>: 1`` saying which engine answered.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, cast

from cpsudoku.engines import REGISTRY, available_engines, backend_class, create_backend
from cpsudoku.engines.base import Backend, Search
from cpsudoku.engines.processes import (
    ctrl_c_held,
    die_with_parent,
    ignore_ctrl_c,
    parent_identity,
)
from cpsudoku.model.errors import SolverError, UnknownBackendError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules


def default_engines() -> tuple[str, ...]:
    """The engines raced when no variant word names them: those that declare ``races``."""
    return tuple(cls.name for cls in available_engines() if cls.races)


#: Seconds the parent waits beyond the time limit for the engines' own timeout answers.
GRACE = 1.0

#: Seconds a loser may stay busy with a lost race before it is replaced by a fresh
#: worker (a restart costs a process start and a solver import, about a second).
RESTART_AFTER = 1.0

#: Jobs a worker may owe at once, the one it is searching included. An engine that far
#: behind sits the next race out. The bound keeps both directions of every pipe nearly
#: empty: with no bound, a loser that falls a little further behind on every easy
#: puzzle fills its pipe with stale answers the parent does not read, blocks on the
#: next one, stops reading jobs, and the parent then blocks sending it one: deadlock.
MAX_OWED = 2

#: Seconds a worker gets to exit after ``terminate`` (SIGTERM) before ``kill``.
STOP_WAIT = 2.0

#: The job number of a worker's first message, which says that its engine is ready.
READY = 0

#: Job: (job number, rules, cells, limit, time limit). The rules travel whole, as
#: the value itself: every region and constraint reaches the engine's process.
_Job = tuple[int, Rules, tuple[int, ...], int, float | None]


def _refusal_of(engines: Sequence[str], rules: Rules) -> str | None:
    """The first refusal of ``rules`` among ``engines``, naming the engine, or None."""
    for name in engines:
        if why := backend_class(name).refusal(rules):
            return f"the portfolio races {name}: {why}"
    return None


def _serve(spec: str, conn: Connection, parent: tuple[int, bool]) -> None:
    """Worker process: create the engine once, then answer jobs until told to stop.

    Ctrl-C is ignored here: the parent owns the interrupt and stops the workers.
    Messages: first ``(READY, "ready")`` once the engine exists (or ``(READY, "error",
    message)`` if it cannot be created), then one reply per job:
    ``(job, "ok", solutions, count, exhausted, timed_out, stats)`` or
    ``(job, "error", message)``.
    """
    ignore_ctrl_c()
    die_with_parent(*parent)  # never search on for a parent that is gone
    try:
        engine = create_backend(spec)
    except Exception as exc:  # reported at once, then the worker ends
        conn.send((READY, "error", f"{spec}: {type(exc).__name__}: {exc}"))
        return
    conn.send((READY, "ready"))
    with engine:
        _answer_jobs(spec, engine, conn)
    # Skip the interpreter's teardown (a second or more with the solver libraries
    # loaded); the engine is closed and there is nothing left to write.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _answer_jobs(spec: str, engine: Backend, conn: Connection) -> None:
    """The worker's loop: one reply per job, until ``None`` or a closed pipe."""
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the parent is gone
            return
        if job is None:
            return
        number, rules, cells, limit, time_limit = job
        try:
            found = engine.search(Puzzle(rules, cells), limit, time_limit)
        except Exception as exc:
            conn.send((number, "error", f"{spec}: {type(exc).__name__}: {exc}"))
            continue
        conn.send(
            (
                number,
                "ok",
                found.solutions[:2],
                found.count,
                found.exhausted,
                found.timed_out,
                found.stats,
            )
        )


class _Worker:
    """One engine's process, the parent's end of its pipe, and the jobs it still owes.

    A worker answers its jobs in order. ``outstanding`` lists the job numbers sent and
    not yet answered; the first of them is the one it is searching (once it is ready),
    since ``since``.
    """

    def __init__(self, spec: str) -> None:
        self.spec = spec
        #: When the parent learnt that the engine exists (None: still starting up).
        self.ready_at: float | None = None
        self.outstanding: deque[int] = deque()
        self.since = 0.0
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve,
            args=(spec, child, parent_identity()),
            name=f"cpsudoku-portfolio-{spec}",
            daemon=True,
        )
        with ctrl_c_held():  # until the worker ignores it (see _serve)
            self.process.start()
        child.close()

    def send(self, job: _Job) -> None:
        """Queue ``job`` (the worker takes it up after the ones it still owes)."""
        self.conn.send(job)
        if not self.outstanding:
            self.since = time.perf_counter()
        self.outstanding.append(job[0])

    def drain(self) -> None:
        """Receive every message already waiting: stale answers, the ready message."""
        while self.conn.poll(0):
            self.receive()

    def searching(self, now: float) -> float:
        """Seconds spent on the job it is searching now (0 when idle or starting up)."""
        if self.ready_at is None or not self.outstanding:
            return 0.0
        return now - self.since

    def receive(self) -> tuple[Any, ...]:
        """The next message, with the bookkeeping it implies.

        Raises:
            SolverError: the worker died, or its engine could not be created.
        """
        try:
            message: tuple[Any, ...] = self.conn.recv()
        except (EOFError, OSError):
            raise SolverError(f"portfolio engine {self.spec!r} died") from None
        now = time.perf_counter()
        if message[0] == READY:
            if message[1] == "error":
                raise SolverError(f"portfolio engine failed to start: {message[2]}")
            self.ready_at = self.since = now
        elif self.outstanding and self.outstanding[0] == message[0]:
            self.outstanding.popleft()
            self.since = now  # the next job, if any, starts now
        return message

    def stop(self) -> None:
        """End the process (SIGTERM, then SIGKILL if it lingers) and reap it.

        An idle worker only waits on its pipe and a busy one is inside a solver that
        cannot be interrupted otherwise; neither holds anything that outlives it.
        """
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(STOP_WAIT)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()
        self.process.close()


class PortfolioBackend(Backend):
    """Race engines in worker processes; the first definitive answer wins."""

    name = "portfolio"
    #: Any other registered engine may race.
    variants = tuple(name for name in REGISTRY if name != "portfolio")

    def __init__(
        self, variant: Sequence[str] = (), *, restart_after: float = RESTART_AFTER
    ) -> None:
        """Create the backend; no process starts before the first search.

        Args:
            variant: the engines to race (see the module docstring).
            restart_after: seconds of searching a lost race after which a worker is
                replaced (:data:`RESTART_AFTER`).

        Raises:
            UnknownBackendError: fewer than two engines, or one named twice.
        """
        super().__init__(variant)
        engines = tuple(self.variant) or default_engines()
        if len(engines) < 2 or len(set(engines)) != len(engines):
            raise UnknownBackendError(
                f"a portfolio races two or more different engines, got {':'.join(engines)}"
            )
        self.engines = engines
        self.restart_after = restart_after
        self._workers: list[_Worker | None] = [None] * len(engines)
        self._jobs = 0
        #: The process that owns the workers (see :meth:`_adopt`).
        self._pid = os.getpid()

    @classmethod
    def refusal(cls, rules: Rules) -> str | None:
        """Why the default race (:func:`default_engines`) cannot take ``rules``, or None."""
        return _refusal_of(default_engines(), rules)

    def refuses(self, rules: Rules) -> str | None:
        """Why one of the engines raced here cannot take ``rules``, or None.

        Every engine of the race must take the rules: a rule is never dropped, and an
        answer from an engine that lacks one would be no answer.
        """
        return _refusal_of(self.engines, rules)

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Run every engine on ``puzzle`` at once and return the first definitive answer."""
        self._adopt()
        self._jobs += 1
        job: _Job = (self._jobs, puzzle.rules, puzzle.cells, limit, time_limit)
        try:
            self._dispatch(job)
            found = self._race(job, time_limit)
        except BaseException:
            # An error or Ctrl-C: stop every engine that still owes an answer (this race's
            # and earlier ones'), and start nobody new.
            for k, worker in enumerate(self._workers):
                if worker is not None and worker.outstanding:
                    self._stop(k)
            raise
        # The losers still search this job. After a long search it may go on for
        # minutes: stop it now, and start a fresh worker for the next puzzle. A loser
        # of a short race (a near tie, or an engine still starting up) may finish.
        now = time.perf_counter()
        for k, worker in enumerate(self._workers):
            if worker is not None and worker.searching(now) > self.restart_after:
                self._stop(k)
                self._worker(k)
        return found

    def close(self) -> None:
        """Stop and reap every worker process (idempotent)."""
        self._adopt()
        for k in range(len(self._workers)):
            self._stop(k)

    def release(self) -> None:
        """Stop the workers at the end of a call of the module-level API (see :meth:`close`).

        The process-wide portfolio of :func:`cpsudoku.solve` and the batch commands ends
        its processes with the call that started them; the next call starts new ones.
        """
        self.close()

    def _adopt(self) -> None:
        """Forget workers inherited through ``fork``: they are the parent's to stop.

        A forked process (a batch worker of the ``fork`` start method) gets a copy of
        this object, workers included, but may not test, stop or reap processes it did
        not start (``AssertionError: can only test a child process``). It starts its
        own when it needs them.
        """
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._workers = [None] * len(self.engines)

    def _dispatch(self, job: _Job) -> None:
        """Send ``job`` to every engine that owes fewer than :data:`MAX_OWED` jobs.

        Stale answers are read first, so no pipe fills up. When every engine is that
        far behind (only after a race ended at its time limit), wait for one to catch
        up, replacing any that has searched a stale job for over ``restart_after``.
        """
        while True:
            sent = 0
            now = time.perf_counter()
            for k in range(len(self.engines)):
                worker = self._worker(k)
                try:
                    worker.drain()
                except SolverError:
                    if worker.ready_at is None:  # its engine could not be created
                        raise
                    self._stop(k)  # it died after it was ready: start a new one
                    worker = self._worker(k)
                if len(worker.outstanding) >= MAX_OWED and (
                    worker.searching(now) > self.restart_after
                ):
                    self._stop(k)
                    worker = self._worker(k)
                if len(worker.outstanding) < MAX_OWED:
                    worker.send(job)
                    sent += 1
            if sent:
                return
            wait([w.conn for w in self._workers if w is not None], self.restart_after)

    def _race(self, job: _Job, time_limit: float | None) -> Search:
        """Wait for the engines' answers to ``job`` until one is definitive.

        Answers to earlier jobs (a loser of a short race finishing) are skipped; an engine
        that has been searching such a stale job for longer than ``restart_after`` is
        replaced, and the fresh worker gets ``job``. Returns the definitive answer, or
        after the time limit (plus :data:`GRACE`) the best timeout answer.
        """
        number = job[0]
        deadline = None if time_limit is None else time.perf_counter() + time_limit + GRACE
        fallback: Search | None = None
        while True:
            now = time.perf_counter()
            waiting: dict[Connection, tuple[int, _Worker]] = {}
            next_check: float | None = deadline
            for k, worker in enumerate(self._workers):
                if worker is None or number not in worker.outstanding:
                    continue
                if worker.outstanding[0] != number:  # still on a stale job
                    spent = worker.searching(now)
                    if spent > self.restart_after:
                        self._stop(k)
                        worker = self._worker(k)
                        worker.send(job)
                    else:
                        check = now + self.restart_after - spent
                        next_check = check if next_check is None else min(next_check, check)
                waiting[worker.conn] = (k, worker)
            if not waiting:
                break  # every engine answered this job, none definitively
            if deadline is not None and now >= deadline:
                break  # the time limit (plus grace) is up
            timeout = None if next_check is None else max(0.0, next_check - now)
            for ready in wait(list(waiting), timeout):
                k, worker = waiting[cast(Connection, ready)]
                message = worker.receive()
                if message[0] != number:
                    continue  # ready now, or a stale answer
                reply = self._reply(k, message)
                if not reply.timed_out:
                    return reply
                if fallback is None or reply.count > fallback.count:
                    fallback = reply
        return fallback if fallback is not None else Search(timed_out=True)

    def _reply(self, k: int, message: tuple[Any, ...]) -> Search:
        """Engine ``k``'s answer to the current job as a Search.

        Raises:
            SolverError: the engine failed on the job.
        """
        spec = self.engines[k]
        if message[1] == "error":
            raise SolverError(f"portfolio engine failed: {message[2]}")
        _, _, solutions, count, exhausted, timed_out, stats = message
        prefixed = {f"{spec}.{key}": value for key, value in stats.items()}
        prefixed[f"won_by_{spec}"] = 1
        return Search(list(solutions), count, exhausted, timed_out, prefixed, answered_by=spec)

    def _worker(self, k: int) -> _Worker:
        """Engine ``k``'s worker, started (again) if there is none or it died."""
        worker = self._workers[k]
        if worker is None or not worker.process.is_alive():
            if worker is not None:
                worker.stop()
            worker = self._workers[k] = _Worker(self.engines[k])
        return worker

    def _stop(self, k: int) -> None:
        """Stop worker ``k`` (busy or dead) and reap it; :meth:`_worker` starts a new one."""
        worker = self._workers[k]
        if worker is not None:
            self._workers[k] = None
            worker.stop()
