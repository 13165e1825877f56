"""Warm worker processes that run the server's jobs, and kill them to cancel one.

Every engine call of the server runs in a worker process
(:mod:`cpsudoku.serve.worker`), never in the event loop: the loop stays free to read
new messages, send progress and answer other clients. A job is cancelled (a newer
message from its client, a disconnect, a time limit) by killing its worker: that
stops any engine wherever it is, which no cooperative flag does for a SAT call, a
CP-SAT search or the native engine. A cancelled job gets a short grace first
(:data:`GRACE`): one that ends within it hands its worker back instead of costing a
new process. A killed worker is replaced at once, in the background; the pool
keeps :attr:`WorkerPool.size` of them, started before the first request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

#: Seconds a cancelled job may take to end on its own before its worker is killed.
GRACE = 0.25

#: Seconds past a job's own time limit before the pool kills it (the engines stop at
#: the limit themselves; this catches a job that does not).
OVERRUN = 2.0

#: The longest line a worker may send (an SVG drawing, a certificate's zip).
LINE_LIMIT = 1 << 28


class WorkerGoneError(RuntimeError):
    """The worker died mid-job (killed from outside, or crashed)."""


class _Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def readline(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise WorkerGoneError("the worker process ended")
        obj = json.loads(line)
        if not isinstance(obj, dict):
            raise WorkerGoneError("the worker sent something other than a JSON object")
        return obj

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()


class WorkerPool:
    """``size`` warm worker processes; :meth:`run` runs one job on a free one.

    Use it inside a running event loop: ``await pool.start()`` ... ``await pool.close()``.
    """

    def __init__(self, size: int = 2) -> None:
        self.size = max(1, size)
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False
        #: Workers killed (cancelled or overrun jobs) since the start: for tests and logs.
        self.killed = 0

    async def start(self) -> None:
        """Start the workers and wait until each has done its imports."""
        workers = await asyncio.gather(*(self._spawn() for _ in range(self.size)))
        for w in workers:
            self._idle.put_nowait(w)

    async def _spawn(self) -> _Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cpsudoku.serve.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
        )
        worker = _Worker(proc)
        self._all.add(worker)
        try:
            first = await worker.readline()
        except BaseException:
            self._discard(worker)
            raise
        if not first.get("ready"):
            self._discard(worker)
            raise WorkerGoneError(f"a worker started with {first!r} instead of ready")
        return worker

    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return sorted(w.pid for w in self._all)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        self._all.discard(worker)
        self._later(self._reap(worker))

    async def _reap(self, worker: _Worker) -> None:
        with contextlib.suppress(ProcessLookupError):
            await worker.proc.wait()

    def _later(self, coro: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _replace(self) -> None:
        worker = None
        for attempt in range(5):  # the pool must not shrink: a start that fails is retried
            if self._closed:
                return
            try:
                worker = await self._spawn()
                break
            except (OSError, WorkerGoneError):
                await asyncio.sleep(0.5 * (attempt + 1))
        if worker is None:
            print("cpsudoku serve: a worker process could not be started", file=sys.stderr)
            return
        if self._closed:
            self._discard(worker)
        else:
            self._idle.put_nowait(worker)

    def _kill(self, worker: _Worker) -> None:
        self.killed += 1
        self._discard(worker)
        self._later(self._replace())

    async def run(
        self,
        request: dict[str, Any],
        on_message: Callable[[dict[str, Any]], Awaitable[None]],
        time_limit: float,
    ) -> str:
        """Run ``request`` on a free worker, passing each message to ``on_message``.

        Returns ``"done"``, ``"timeout"`` (the worker overran ``time_limit`` +
        :data:`OVERRUN` and was killed) or ``"error: ..."`` (a bug in the job, or a
        worker that died). Cancelling the calling task cancels the job: the worker
        is killed unless the job ends within :data:`GRACE`.
        """
        worker = await self._idle.get()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + time_limit + OVERRUN
        started = False
        try:
            assert worker.proc.stdin is not None
            worker.proc.stdin.write((json.dumps(request) + "\n").encode())
            started = True
            await worker.proc.stdin.drain()
            outcome = "done"
            while True:
                left = deadline - loop.time()
                try:
                    obj = await asyncio.wait_for(worker.readline(), max(left, 0.001))
                except TimeoutError:
                    self._kill(worker)
                    return "timeout"
                if obj.get("end"):
                    self._idle.put_nowait(worker)
                    return outcome
                if "error" in obj:
                    outcome = f"error: {obj['error']}"
                    continue
                await on_message(obj["msg"])
        except asyncio.CancelledError:
            if started:
                self._later(self._drain_or_kill(worker))
            else:
                self._idle.put_nowait(worker)
            raise
        except (WorkerGoneError, OSError, ValueError) as exc:
            self._kill(worker)
            return f"error: {exc}"

    async def _drain_or_kill(self, worker: _Worker) -> None:
        """A cancelled job: keep its worker if the job ends within the grace, else kill."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRACE
        try:
            while True:
                obj = await asyncio.wait_for(worker.readline(), max(deadline - loop.time(), 0.001))
                if obj.get("end"):
                    if self._closed:
                        self._discard(worker)
                    else:
                        self._idle.put_nowait(worker)
                    return
        except (TimeoutError, WorkerGoneError, OSError, ValueError):
            self._kill(worker)

    async def close(self) -> None:
        """Kill every worker and wait for them: no process is left behind."""
        self._closed = True
        for worker in list(self._all):
            worker.kill()
        for task in list(self._background):
            task.cancel()
        for worker in list(self._all):
            with contextlib.suppress(ProcessLookupError):
                await worker.proc.wait()
        self._all.clear()
