"""Worker processes that solve chunks of a stream and hand results back in input order.

At most a few chunks per worker are in flight, so memory stays flat whatever the
input size; chunks are sized from the measured time per record. Each worker keeps its
engine (and so its encoded solver) alive for the whole run.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.engines import get_backend
from cpsudoku.engines.processes import (
    ctrl_c_held,
    die_with_parent,
    ignore_ctrl_c,
    parent_identity,
    release_sigterm,
    sigterm_held,
)

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess


T = TypeVar("T")


R = TypeVar("R")


_worker_options: SolveOptions | None = None


#: Garbage-collector thresholds while records stream through: a batch makes millions
#: of short-lived tuples and strings with no reference cycles among them, and the
#: default (a young collection every 700 allocations) spent a fifth of a million-line
#: easy batch finding nothing to free (4.1-4.6 s against 3.4-3.6 s, --jobs 2).
GC_THRESHOLDS = (50_000, 20, 100)


@contextmanager
def few_collections() -> Iterator[None]:
    """Collect garbage less often for the duration (see :data:`GC_THRESHOLDS`)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _init_worker(options: SolveOptions, parent: tuple[int, bool]) -> None:
    global _worker_options
    _worker_options = options
    gc.set_threshold(*GC_THRESHOLDS)  # a worker lives for one run
    # Ctrl-C and SIGTERM are the parent's to handle: it stops dispatching, ends the
    # workers and closes the output. A worker whose parent died ends at once.
    ignore_ctrl_c()
    release_sigterm()  # held since the fork (see sigterm_held)
    die_with_parent(*parent)
    get_backend(options.backend)  # encode the rules once, before the first chunk
    if options.verify_with:
        get_backend(options.verify_with)


def _timed(fn: Callable[[Sequence[Any], SolveOptions], R], chunk: Sequence[Any]) -> tuple[R, float]:
    options = _worker_options or SolveOptions()  # always set by the initializer
    start = time.perf_counter()
    out = fn(chunk, options)
    return out, time.perf_counter() - start


class _Chunker:
    """Cuts a stream into chunks sized to take about ``target`` seconds each.

    Small chunks first (quick first results, good balance on hard puzzles), growing
    as the measured time per record shows the puzzles are easy, up to ``largest``.
    """

    def __init__(
        self, size: int | None, target: float = 0.25, smallest: int = 16, largest: int = 4096
    ) -> None:
        self.fixed = size
        self.size = size or smallest
        self.target, self.smallest, self.largest = target, smallest, largest
        self._per_record: float | None = None

    def observe(self, records: int, seconds: float) -> None:
        if self.fixed or records == 0:
            return
        sample = seconds / records
        self._per_record = (
            sample if self._per_record is None else (0.7 * self._per_record + 0.3 * sample)
        )
        want = int(self.target / max(self._per_record, 1e-7))
        self.size = max(self.smallest, min(self.largest, want))

    def chunks(self, items: Iterable[T]) -> Iterator[list[T]]:
        it = iter(items)
        while chunk := list(islice(it, self.size)):
            yield chunk


def default_jobs() -> int:
    """The cores this process may run on (the default number of workers)."""
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


def max_jobs() -> int:
    """The most worker processes a run may ask for: four per core available.

    Solving is CPU-bound, so more buys nothing, and the pool starts every worker at
    once: a mistyped count would fork the machine to a halt.
    """
    return 4 * default_jobs()


def run_chunks(
    items: Iterable[T],
    fn: Callable[[Sequence[T], SolveOptions], R],
    options: SolveOptions,
    jobs: int | None = None,
    chunk_size: int | None = None,
    pack: Callable[[list[T]], list[T]] | None = None,
) -> Iterator[tuple[list[T], R]]:
    """Apply ``fn`` to chunks of ``items`` in ``jobs`` processes; yield in input order.

    Yields ``(chunk, outputs)`` pairs. With one job everything runs in this process
    (no pickling, no start-up cost). At most ``3 * jobs`` chunks are in flight.
    ``pack`` wraps each chunk for its trip to a worker (e.g. as a
    :class:`~cpsudoku.datasets.records.RecordBlock`, which pickles as columns).
    """
    jobs = jobs or default_jobs()
    if jobs > max_jobs():
        raise ValueError(f"jobs must be at most {max_jobs()} (4 per core here), got {jobs}")
    with few_collections():
        yield from _run_chunks(items, fn, options, jobs, chunk_size, pack)


def _run_chunks(
    items: Iterable[T],
    fn: Callable[[Sequence[T], SolveOptions], R],
    options: SolveOptions,
    jobs: int,
    chunk_size: int | None,
    pack: Callable[[list[T]], list[T]] | None,
) -> Iterator[tuple[list[T], R]]:
    chunker = _Chunker(chunk_size)
    if jobs == 1:
        for chunk in chunker.chunks(items):
            start = time.perf_counter()
            out = fn(chunk, options)
            chunker.observe(len(chunk), time.perf_counter() - start)
            yield chunk, out
        return
    # The platform's default start method: fork on Linux, where a worker inherits the
    # imported modules and starts at once (spawn cost about 0.3 s of imports per worker,
    # a fifth of a two-worker run on a thousand hard puzzles); spawn elsewhere.
    context = multiprocessing.get_context()
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(options, parent_identity())
    )
    window: deque[tuple[list[T], Future[tuple[R, float]]]] = deque()
    try:
        for chunk in chunker.chunks(items):
            with ctrl_c_held(), sigterm_held():  # the first submit forks the workers
                future = pool.submit(_timed, fn, pack(chunk) if pack else chunk)
            window.append((chunk, future))
            while len(window) >= 3 * jobs or (window and window[0][1].done()):
                done_chunk, future = window.popleft()
                out, seconds = future.result()
                chunker.observe(len(done_chunk), seconds)
                yield done_chunk, out
        while window:
            done_chunk, future = window.popleft()
            out, _ = future.result()
            yield done_chunk, out
    finally:
        # Stop at once, also on Ctrl-C or an error: cancel what has not started and end
        # the workers (the executor has no public terminate; its process table does).
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        _end(processes)


#: Seconds a worker has to end after SIGTERM before it is killed (:func:`_end`).
STOP_GRACE = 5.0


def _end(processes: Sequence[BaseProcess]) -> None:
    """End ``processes``: SIGTERM, :data:`STOP_GRACE` seconds, then SIGKILL.

    A worker may live on after SIGTERM, waiting for a lock a terminated worker held, or
    deaf to it (a solver's own handler); a process whose children are still alive
    waits for them when it exits. Nothing can catch SIGKILL.
    """
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(STOP_GRACE)
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
