"""Portfolio backend (``portfolio``): race two engines on one puzzle, first answer wins.

Aimed at single hard, big grids, where neither engine is best on every puzzle (on the
25x25 puzzles of ``benchmarks/data/25x25_frisch.txt`` CP-SAT wins some by minutes and
SAT others). Each engine lives in its own long-lived worker process (multiprocessing,
``spawn`` context), created once per backend instance and kept between puzzles, so the
cost of starting Python and loading a solver is paid once, not per puzzle.

Per puzzle every free worker gets the same job; the first *definitive* answer (one
that is not a timeout) wins, at once. The loser cannot be interrupted inside its
solver, so it is left to finish: it is *pending*, sits out the next races until its
stale answer arrives, and is replaced by a fresh worker only if it is still busy
more than :data:`RESTART_AFTER` seconds after its race began (a long search on a big
grid). On easy puzzles the portfolio therefore runs at about the faster engine's
speed instead of waiting for the slower one each time.
Every busy worker is stopped the same way when anything goes wrong in the parent (an
exception, Ctrl-C), and none is restarted then: no process is left behind.
:meth:`PortfolioBackend.close` stops and reaps all workers (the ``with`` block does it).

Variant words name the engines to race: ``portfolio`` is ``sat`` against ``cpsat``;
``portfolio:cpsat:backtrack`` races those two instead.

Stats: the winner's counters prefixed with its name (``cpsat.branches``), and
``won_by_<name>: 1`` saying which engine answered.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from cpsudoku.backends import create_backend
from cpsudoku.backends.base import Backend, Search
from cpsudoku.errors import SolverError, UnknownBackendError
from cpsudoku.grid import Puzzle, geometry

#: The engines raced when no variant word names them.
DEFAULT_ENGINES = ("sat", "cpsat")

#: Seconds the parent waits beyond the time limit for the engines' own timeout answers.
GRACE = 1.0

#: Seconds a loser may stay busy with a lost race before it is replaced by a fresh
#: worker (a restart costs a process start and a solver import, about a second).
RESTART_AFTER = 1.0

#: Seconds a worker gets to exit after ``terminate`` (SIGTERM) before ``kill``.
STOP_WAIT = 2.0

#: Job: (job number, box rows, box cols, cells, limit, time limit).
_Job = tuple[int, int, int, tuple[int, ...], int, float | None]


def _serve(spec: str, conn: Connection) -> None:
    """Worker process: create the engine once, then answer jobs until told to stop.

    Ctrl-C is ignored here: the parent owns the interrupt and stops the workers.
    Replies: ``(job, "ok", solutions, count, exhausted, timed_out, stats)`` or
    ``(job, "error", message)``.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        engine = create_backend(spec)
    except Exception as exc:  # reported with the first job, then the worker ends
        message = f"{spec}: {type(exc).__name__}: {exc}"
        job = conn.recv()
        if job is not None:
            conn.send((job[0], "error", message))
        return
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
        number, rows, cols, cells, limit, time_limit = job
        try:
            found = engine.search(Puzzle(geometry(rows, cols), cells), limit, time_limit)
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
    """One engine's process and the parent's end of its pipe."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(spec, child), name=f"cpsudoku-portfolio-{spec}", daemon=True
        )
        self.process.start()
        child.close()

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
    variants = ("sat", "cpsat", "backtrack")

    def __init__(self, variant: Sequence[str] = ()) -> None:
        super().__init__(variant)
        engines = tuple(self.variant) or DEFAULT_ENGINES
        if len(engines) < 2 or len(set(engines)) != len(engines):
            raise UnknownBackendError(
                f"a portfolio races two or more different engines, got {':'.join(engines)}"
            )
        self.engines = engines
        self._workers: list[_Worker | None] = [None] * len(engines)
        #: Engines still busy with a lost race: engine index -> when that race began.
        self._pending: dict[int, float] = {}
        self._jobs = 0

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Run the free engines on ``puzzle`` at once and return the first definitive answer."""
        racers = self._free_workers()
        self._jobs += 1
        g = puzzle.geometry
        job: _Job = (self._jobs, g.box_rows, g.box_cols, puzzle.cells, limit, time_limit)
        busy: dict[Connection, int] = {}
        start = time.perf_counter()
        try:
            for k in racers:
                conn = self._worker(k).conn
                conn.send(job)
                busy[conn] = k
            found = self._race(busy, time_limit)
        except BaseException:
            # An error or Ctrl-C: stop whoever is still searching, the losers of earlier
            # races included, and start nobody new.
            for k in {*busy.values(), *self._pending}:
                self._stop(k)
            self._pending.clear()
            raise
        # Whoever is still searching lost the race: leave it to finish in peace.
        for k in busy.values():
            self._pending[k] = start
        return found

    def _free_workers(self) -> list[int]:
        """The engines ready for a new job.

        Pending engines whose stale answer arrived are free again; one stuck longer than
        :data:`RESTART_AFTER` is replaced by a fresh worker; when every engine is busy,
        the first to finish is waited for.
        """
        while True:
            free = []
            now = time.perf_counter()
            for k in range(len(self.engines)):
                worker = self._worker(k)
                began = self._pending.get(k)
                if began is not None:
                    while worker.conn.poll():  # drain the stale answer, if it came
                        try:
                            worker.conn.recv()
                        except (EOFError, OSError):
                            break
                        self._pending.pop(k, None)
                    if k in self._pending and now - began > RESTART_AFTER:
                        self._stop(k)
                        self._pending.pop(k, None)
                        worker = self._worker(k)
                if k not in self._pending:
                    free.append(k)
            if free:
                return free
            wait([self._worker(k).conn for k in self._pending], RESTART_AFTER)

    def close(self) -> None:
        """Stop and reap every worker process (idempotent)."""
        self._pending.clear()
        for k in range(len(self._workers)):
            self._stop(k)

    def _race(self, busy: dict[Connection, int], time_limit: float | None) -> Search:
        """Wait for answers until one is definitive, or until the time is up.

        Answered connections are removed from ``busy``; whatever is left in it when
        this returns or raises is still searching.
        """
        start = time.perf_counter()
        deadline = None if time_limit is None else start + time_limit + GRACE
        fallback: Search | None = None
        while busy:
            timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
            ready = wait(list(busy), timeout)
            if not ready:
                break  # the time limit (plus grace) is up
            for conn in ready:
                k = busy[conn]
                reply = self._receive(conn, k)
                if reply is None:
                    continue  # a stale reply to an earlier job: still busy with this one
                del busy[conn]
                if not reply.timed_out:
                    return reply
                if fallback is None or reply.count > fallback.count:
                    fallback = reply
        return fallback if fallback is not None else Search(timed_out=True)

    def _receive(self, conn: Connection, k: int) -> Search | None:
        """Read engine ``k``'s reply to the current job as a Search (None if stale)."""
        spec = self.engines[k]
        try:
            reply = conn.recv()
        except (EOFError, OSError):
            raise SolverError(f"portfolio engine {spec!r} died during the search") from None
        if reply[0] != self._jobs:
            return None
        if reply[1] == "error":
            raise SolverError(f"portfolio engine failed: {reply[2]}")
        _, _, solutions, count, exhausted, timed_out, stats = reply
        prefixed = {f"{spec}.{key}": value for key, value in stats.items()}
        prefixed[f"won_by_{spec}"] = 1
        return Search(list(solutions), count, exhausted, timed_out, prefixed)

    def _worker(self, k: int) -> _Worker:
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
