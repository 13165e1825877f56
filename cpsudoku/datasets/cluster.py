"""``cpsudoku batch --scheduler``: the batch engine on a Dask distributed cluster.

The client streams the input, cuts it into partitions of records and keeps a bounded
window of them in flight on the cluster (``distributed.as_completed``); finished
partitions are written in input order as soon as the ones before them are, so the
client's memory stays flat whatever the dataset's size. Each partition runs
:func:`cpsudoku.batch.solve_records`, the local engine's own per-chunk function, in a
long-lived worker process, where :func:`~cpsudoku.engines.get_backend` keeps the
backend (and so its encoded rules and live solver) alive from one partition to the
next. Rows, statuses and order are those of the local ``--jobs N`` run.

Faults: Dask recomputes the partitions of a worker that dies on another worker, and
the client holds every partition's future until it is written, so each record comes
out exactly once. An interrupted client leaves complete rows (or complete Parquet
parts) behind, and ``--resume`` carries on after them.

Dask comes from the optional extra ``cpsudoku[dask]``; it is imported inside the
functions here, never at module level, so the core never needs it.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import logging
import os
import pickle
import socket
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from itertools import accumulate, islice, repeat
from typing import TYPE_CHECKING, Any

from cpsudoku.datasets.encoding import EncodedRows, encode_rows
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.output import Summary
from cpsudoku.datasets.pool import default_jobs
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import OutRow, Row
from cpsudoku.datasets.solving import canonical_column, solve_records
from cpsudoku.engines import get_backend
from cpsudoku.model.errors import CpSudokuError

if TYPE_CHECKING:
    from types import ModuleType

    from distributed import Client

#: The pip extra that brings Dask in.
EXTRA = "cpsudoku[dask]"

#: Seconds to wait for a scheduler to answer before giving up with a clear error.
CONNECT_TIMEOUT = 5.0

#: Seconds to wait for the first worker to join a scheduler that has none.
WORKER_TIMEOUT = 60.0

#: Bounds of the default (adaptive) partition size, in records.
SMALLEST_PARTITION = 4
LARGEST_PARTITION = 50_000

#: Shortest partition worth sending, in seconds of solving, whatever the overhead.
MIN_PARTITION_SECONDS = 0.25

#: Per-task overhead may cost at most this fraction of a partition's solving time.
OVERHEAD_SHARE = 0.02

#: The scheduler may spend at most this fraction of its time on our tasks.
SCHEDULER_SHARE = 0.25


class DaskUnavailableError(CpSudokuError, ModuleNotFoundError):
    """A cluster feature was asked for, but Dask distributed is not installed."""


class ClusterError(CpSudokuError, ConnectionError):
    """The cluster cannot do the run: no scheduler, no fit workers, or lost mid-run.

    Rows written before a failure mid-run stay; ``--resume`` carries on after them.
    """


def require_distributed() -> ModuleType:
    """Import ``distributed``, or say which extra to install.

    Raises:
        DaskUnavailableError: Dask distributed is missing.
    """
    try:
        import distributed
    except ImportError:
        raise DaskUnavailableError(
            f"running on a Dask cluster needs the optional extra: pip install '{EXTRA}'"
        ) from None
    return distributed


@dataclass(slots=True)
class ClusterSummary(Summary):
    """A batch summary plus what the cluster did.

    Attributes:
        partitions: partitions solved in this run.
        workers: worker processes (threads) the scheduler had when the run started.
        task_overhead: measured seconds per no-op task (None with a fixed size).
        target_seconds: solving time per partition the default size aims at.
        solving_seconds: the workers' time in ``solve_records``, summed over partitions.
        backends: worker process (``host:pid``) -> ids of the backend objects that
            solved its partitions; one id per process means the solver was reused.
        dashboard: the Dask dashboard's address, when one is running.
    """

    partitions: int = 0
    workers: int = 0
    task_overhead: float | None = None
    target_seconds: float | None = None
    solving_seconds: float = 0.0
    backends: dict[str, set[int]] = field(default_factory=dict)
    dashboard: str | None = None


# ---------------------------------------------------------------- worker side

#: One solve at a time per process: the cached backend (a live solver) is not
#: thread-safe, and workers started with several threads share it.
_SOLVE_LOCK = threading.Lock()


def solve_on_worker(records: Sequence[Record], options: SolveOptions) -> list[Row]:
    """:func:`~cpsudoku.datasets.solving.solve_records` inside a Dask worker process.

    One partition at a time per process (:data:`_SOLVE_LOCK`), with the allocator
    set as a worker needs it (:func:`_keep_freed_memory`). The batch engine's tasks
    and the DataFrame and Bag functions of :mod:`cpsudoku.datasets.dask` all solve
    through here.
    """
    _keep_freed_memory()  # a Dask nanny's malloc setting would double the logic pass's cost
    with _SOLVE_LOCK:
        return solve_records(records, options)


def _pack(texts: Sequence[str]) -> tuple[str, array[int]]:
    """Strings as one joined string and their lengths."""
    return "".join(texts), array("L", map(len, texts))


def _unpack(text: str, lengths: array[int]) -> Iterator[str]:
    """The strings :func:`_pack` joined, in order."""
    ends = list(accumulate(lengths))
    return map(text.__getitem__, map(slice, [0, *ends[:-1]], ends))


class _Partition:
    """The records of one work unit, packed once on the client.

    The scheduler passes a task's arguments through; packed into a few flat objects
    they cost it a copy instead of a walk over thousands of tuples. The usual cases,
    consecutive records without read errors, with or without an expected solution
    each, travel as the first index, the puzzles (and solutions) joined into one
    string and their lengths: many times cheaper for the client than pickling the
    records themselves, and the client is the one process that handles every record.
    Anything else travels as the pickled records.
    """

    __slots__ = ("count", "first", "payload", "puzzles", "solutions")

    def __init__(self, records: Sequence[Record]) -> None:
        self.count = len(records)
        self.first = records[0].index if records else 0
        self.payload: bytes | None = None
        self.puzzles: tuple[str, array[int]] | None = None
        self.solutions: tuple[str, array[int]] | None = None
        consecutive = all(
            r.error is None and r.index == i for i, r in enumerate(records, self.first)
        )
        expected = [r.solution for r in records]
        if consecutive and all(s is None for s in expected):
            self.puzzles = _pack([r.puzzle for r in records])
        elif consecutive and all(isinstance(s, str) for s in expected):
            self.puzzles = _pack([r.puzzle for r in records])
            self.solutions = _pack(expected)  # type: ignore[arg-type]
        else:
            self.payload = pickle.dumps(tuple(records), protocol=pickle.HIGHEST_PROTOCOL)

    def records(self) -> tuple[Record, ...]:
        """The records, unpacked (on the worker)."""
        if self.payload is not None:
            records: tuple[Record, ...] = pickle.loads(self.payload)
            return records
        indexes = range(self.first, self.first + self.count)
        puzzles = _unpack(*(self.puzzles or ("", array("L"))))
        solutions = repeat(None, self.count) if self.solutions is None else _unpack(*self.solutions)
        fields = zip(indexes, puzzles, solutions, repeat(None, self.count), strict=True)
        # tuple.__new__ skips the Python-level constructor: a third of the cost.
        return tuple(map(tuple.__new__, repeat(Record), fields))


#: glibc ``mallopt`` parameters and the values its own dynamic tuning tops out at
#: on 64-bit systems (mmap threshold 32 MiB, trim threshold twice that).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 << 20
_TRIM_THRESHOLD = 64 << 20
_malloc_checked = False


def _keep_freed_memory() -> None:
    """Undo, in this worker process, the nanny's 64 KiB malloc trim threshold.

    Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536`` so that freed
    memory goes back to the system at once. Setting it also freezes glibc's mmap
    threshold at 128 KiB, so every large array of the whole-array logic pass becomes
    a fresh ``mmap`` whose pages fault in one by one, zeroed. Measured on 300,000 easy
    puzzles: 1.3 s of system time in the worker instead of 0.15 s, and the whole batch
    about twice as slow as it needs to be. Raising both thresholds to where glibc's own
    tuning would take them lets freed blocks be reused; the price is that a worker may
    keep up to 64 MiB of freed memory. Done once per process, only on glibc systems
    and only when the variable is set (outside Dask nothing changes).
    """
    global _malloc_checked
    if _malloc_checked:
        return
    _malloc_checked = True
    if not sys.platform.startswith("linux") or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    except (OSError, AttributeError):  # not glibc (e.g. musl): leave the allocator alone
        return


def _solve_partition(
    work: _Partition, options: SolveOptions, kind: str
) -> tuple[EncodedRows, float, str, int]:
    """Solve one partition: (rows encoded as ``kind``, solving seconds, worker, backend id).

    ``worker`` names the worker process (host and pid), ``backend id`` the backend
    object that solved the partition: the same pair over many partitions shows that
    the process kept its encoded solver.

    The rows are encoded here, on the worker, so the client only writes bytes.
    """
    records = work.records()
    start = time.perf_counter()
    rows = solve_on_worker(records, options)
    seconds = time.perf_counter() - start
    backend = id(get_backend(options.backend))
    out: list[OutRow] = [
        (rec.index, rec.puzzle, *row) for rec, row in zip(records, rows, strict=True)
    ]
    if options.witnesses:  # the evidence columns (certificates: DIR must be shared storage)
        from cpsudoku.datasets.evidence import evidence_columns

        extra = evidence_columns(records, rows, options)
        out = [(*o, *e) for o, e in zip(out, extra, strict=True)]  # type: ignore[misc]
    block = encode_rows(out, kind, canonical_column(records, options))
    return block, seconds, f"{socket.gethostname()}:{os.getpid()}", backend


def _noop(x: int) -> int:
    return x


def _worker_probe() -> tuple[str, int]:
    """The cpsudoku version a worker runs, and its process id."""
    from cpsudoku.version import __version__

    return __version__, os.getpid()


def _scheduler_has_bokeh() -> bool:
    return importlib.util.find_spec("bokeh") is not None


# ---------------------------------------------------------------- client side


def _local_cluster(workers: int | None) -> Any:
    """A LocalCluster on this machine: one single-threaded process per core."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers or default_jobs(),
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.CRITICAL,  # shutdown races log errors that mean nothing
    )


@contextlib.contextmanager
def connect(scheduler: str, workers: int | None = None) -> Iterator[Client]:
    """A Dask client for ``scheduler``; closed (with any cluster it started) on exit.

    Args:
        scheduler: ``"local"`` to start a LocalCluster here, else a scheduler address
            such as ``tcp://10.0.0.5:8786``.
        workers: worker processes of a local cluster (default: one per core).

    Raises:
        DaskUnavailableError: Dask is not installed.
        ClusterError: the scheduler does not answer within :data:`CONNECT_TIMEOUT`,
            no worker joins it, or its workers cannot run this cpsudoku.
    """
    distributed = require_distributed()
    cluster = None
    if scheduler == "local":
        cluster = _local_cluster(workers)
        client = distributed.Client(cluster, set_as_default=False)
    else:
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {scheduler} "
                f"(no answer within {CONNECT_TIMEOUT:g} s: {exc})"
            ) from None
    try:
        _check_workers(client, scheduler)
        yield client
    finally:
        with contextlib.suppress(OSError, TimeoutError):  # a scheduler that went away
            client.close()
        if cluster is not None:
            cluster.close()


def _check_workers(client: Client, scheduler: str) -> None:
    """Wait for a worker and make sure the workers run this version of cpsudoku."""
    from cpsudoku.version import __version__

    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except TimeoutError:
        raise ClusterError(
            f"the Dask scheduler at {scheduler} has no workers after {WORKER_TIMEOUT:g} s; "
            f"start some with: dask worker {scheduler} --nthreads 1"
        ) from None
    try:
        versions = client.run(_worker_probe)
    except Exception as exc:  # whatever a worker raised while unpickling or running it
        raise ClusterError(
            f"the workers of {scheduler} cannot run cpsudoku ({type(exc).__name__}: {exc}); "
            f"install the same cpsudoku on every worker"
        ) from None
    wrong = {addr: v for addr, (v, _pid) in versions.items() if v != __version__}
    if wrong:
        raise ClusterError(
            f"workers of {scheduler} run other cpsudoku versions than this {__version__}: "
            + ", ".join(f"{addr} has {v}" for addr, v in sorted(wrong.items()))
        )


def quiet_dask_logs() -> None:
    """Silence the Dask client's own error logs in this process (the command line's choice).

    When a scheduler goes away, the client logs its reconnection attempts with
    tracebacks, some from its event-loop thread after the run has already failed
    with one :class:`ClusterError` that says the same in a line; a command-line user
    wants only that line. Process-wide and not undone: for a process about to exit.
    """
    for name in ("distributed.client", "distributed.comm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def worker_threads(client: Client) -> int:
    """Worker threads the scheduler knows of (at least 1)."""
    return max(1, sum(client.nthreads().values()))


def dashboard_address(client: Client) -> str | None:
    """The dashboard's link when the scheduler serves one (it needs bokeh), else None."""
    if "dashboard" not in client.scheduler_info().get("services", {}):
        return None
    try:
        has_bokeh = client.run_on_scheduler(_scheduler_has_bokeh)
    except Exception:  # a scheduler that cannot import cpsudoku: just do not show it
        return None
    return str(client.dashboard_link) if has_bokeh else None


def measure_task_overhead(client: Client, tasks: int | None = None) -> float:
    """Seconds per task of the cluster, measured on no-op tasks.

    ``tasks`` no-op tasks (default: 2 per worker thread, at least 16) are submitted at
    once and gathered, after one warm-up task per thread; the wall time divided by
    their number is what one task costs the scheduler, the network and the workers
    beyond its own work. It takes a few hundredths of a second on a small cluster.
    """
    threads = worker_threads(client)
    n = tasks or max(16, 2 * threads)
    client.gather(client.map(_noop, range(threads), pure=False))  # open the connections
    start = time.perf_counter()
    client.gather(client.map(_noop, range(n), pure=False))
    return (time.perf_counter() - start) / n


class _Sizer:
    """Records per partition: fixed, or adapted to about ``target`` seconds of solving.

    The time per record is a decaying sum over the partitions seen (seconds over
    records), so large partitions weigh more than the small first ones, whose fixed
    per-call costs (a first solve, a whole-array pass over a few puzzles) would make the
    puzzles look slow. The size grows at most eightfold per observation.
    """

    def __init__(self, fixed: int | None, target: float) -> None:
        self.fixed = fixed
        self.target = target
        self.size = fixed or SMALLEST_PARTITION
        self._records = 0.0
        self._seconds = 0.0

    def observe(self, records: int, seconds: float) -> None:
        """Account for a partition of ``records`` that took ``seconds`` to solve."""
        if self.fixed or records == 0:
            return
        self._records = 0.5 * self._records + records
        self._seconds = 0.5 * self._seconds + seconds
        per_record = max(self._seconds / self._records, 1e-7)
        want = int(self.target / per_record)
        self.size = max(SMALLEST_PARTITION, min(LARGEST_PARTITION, want, 8 * self.size))

    def chunks(self, items: Iterable[Record]) -> Iterator[list[Record]]:
        """Cut ``items`` into lists of the current size (read as each one is cut)."""
        it = iter(items)
        while chunk := list(islice(it, self.size)):
            yield chunk


def partition_target(overhead: float, threads: int) -> float:
    """Seconds of solving per partition that keep the per-task overhead negligible.

    Long enough that the overhead is at most :data:`OVERHEAD_SHARE` of a partition,
    and that the scheduler, serving ``threads`` busy worker threads, spends at most
    :data:`SCHEDULER_SHARE` of its time on them; never below
    :data:`MIN_PARTITION_SECONDS`.
    """
    return max(
        MIN_PARTITION_SECONDS,
        overhead / OVERHEAD_SHARE,
        overhead * threads / SCHEDULER_SHARE,
    )


def solve_on_cluster(
    client: Client,
    records: Iterable[Record],
    options: SolveOptions,
    *,
    kind: str = "csv",
    partition_size: int | None = None,
    summary: ClusterSummary | None = None,
    window: int | None = None,
) -> Iterator[EncodedRows]:
    """Solve ``records`` on the cluster of ``client``; yield rows partition by partition.

    Each partition's rows come back encoded for an output of ``kind`` (CSV/JSONL
    lines or a Parquet file: see :class:`~cpsudoku.parquet.EncodedRows`), in input
    order. At most ``window`` partitions (default: two
    per worker thread plus two) are in flight or waiting to be yielded, so memory is
    bounded by the window, not by the input. Without ``partition_size`` the size
    adapts: small first partitions, then about :func:`partition_target` seconds of
    solving each, judged from the solving time the workers report.

    Args:
        client: a connected Dask client.
        records: the records to solve (consumed lazily).
        options: how to solve them.
        kind: ``"csv"``, ``"jsonl"`` or ``"parquet"``.
        partition_size: fixed records per partition (default: adaptive).
        summary: filled in with cluster facts (partitions, workers, overhead,
            backend reuse) as the run goes.
        window: partitions in flight at most.
    """
    distributed = require_distributed()
    summary = summary if summary is not None else ClusterSummary()
    threads = worker_threads(client)
    summary.workers = threads
    target = MIN_PARTITION_SECONDS
    if partition_size is None:
        summary.task_overhead = measure_task_overhead(client)
        target = partition_target(summary.task_overhead, threads)
    summary.target_seconds = target
    sizer = _Sizer(partition_size, target)
    limit = window or 2 * threads + 2
    parts = sizer.chunks(records)
    order: dict[Any, int] = {}  # future key -> partition number
    sizes: dict[int, int] = {}
    ready: dict[int, EncodedRows] = {}
    queue = distributed.as_completed(loop=client.loop)
    submitted = written = 0
    exhausted = False

    def fill() -> None:
        nonlocal submitted, exhausted
        while not exhausted and submitted - written < limit:
            chunk = next(parts, None)
            if chunk is None:
                exhausted = True
                return
            future = client.submit(_solve_partition, _Partition(chunk), options, kind, pure=False)
            order[future.key] = submitted
            sizes[submitted] = len(chunk)
            submitted += 1
            queue.add(future)

    try:
        fill()
        for future in queue:
            number = order.pop(future.key)
            block, seconds, worker, backend = _result(future, number, client)
            del future  # let the cluster forget the partition's result
            sizer.observe(sizes.pop(number), seconds)
            summary.solving_seconds += seconds
            summary.backends.setdefault(worker, set()).add(backend)
            ready[number] = block
            while written in ready:
                summary.partitions += 1
                yield ready.pop(written)
                written += 1
            fill()
    finally:
        pending = list(queue.futures)
        # Best effort: after a lost scheduler this fails too, and must not hide why.
        with contextlib.suppress(Exception):
            if pending:
                client.cancel(pending)
        queue.clear()


def _result(future: Any, number: int, client: Client) -> Any:
    """A partition's result; the cluster's own failures become one clear ClusterError.

    An exception raised by the solving code itself is re-raised unchanged (it is a bug
    worth its traceback); a cancelled partition (the scheduler went away), a partition
    that killed its workers again and again, or a lost connection is a ClusterError.
    Rows already written stay, so the run can go on with ``--resume``.
    """
    from distributed.scheduler import KilledWorker

    where = f"the Dask scheduler at {client.scheduler.address}"
    try:
        return future.result()
    except KilledWorker as exc:
        raise ClusterError(
            f"partition {number} ended every worker that ran it ({exc}); "
            f"the rows before it are written, so --resume carries on"
        ) from None
    except CancelledError:
        raise ClusterError(
            f"{where} dropped partition {number} (did the scheduler stop?); "
            f"the rows before it are written, so --resume carries on"
        ) from None
    except OSError as exc:  # CommClosedError and friends: the network, not the solver
        raise ClusterError(f"lost the connection to {where}: {exc}") from None


def run_cluster_batch(
    records: Iterable[Record],
    output: str,
    options: SolveOptions,
    *,
    scheduler: str,
    workers: int | None = None,
    partition_size: int | None = None,
    resume: bool = False,
    retry_timeouts: bool = False,
    progress: bool = False,
    total: int | None = None,
    log: Callable[[str], None] | None = None,
) -> ClusterSummary:
    """:func:`~cpsudoku.batch.run_batch` on a Dask cluster: same rows, same order.

    Args:
        records: the dataset's records (streamed; never held whole).
        output: CSV/JSONL file by suffix, ``-`` for stdout, or ``DIR.parquet``.
        options: how to solve.
        scheduler: ``"local"`` (a LocalCluster on this machine) or an address such as
            ``tcp://host:8786``.
        workers: worker processes of a local cluster (default: one per core).
        partition_size: records per partition (default: adaptive, from the measured
            per-task overhead).
        resume: keep the complete rows (or Parquet parts) of an earlier run.
        retry_timeouts: solve the kept ``timeout`` rows again, in place.
        progress: show the progress bar on stderr.
        total: records expected, for the progress bar.
        log: called with one-line notices (the dashboard's address).

    Raises:
        DaskUnavailableError: Dask is not installed.
        ClusterError: the scheduler cannot be reached or its workers cannot run.
    """
    from cpsudoku.datasets.output import BatchOutput
    from cpsudoku.datasets.parquet import require_pyarrow

    require_distributed()
    if options.canon and (resume or retry_timeouts):
        raise CpSudokuError(
            "the canonical column goes to a new output (not with --resume or --retry-timeouts)"
        )
    if output.lower().rstrip("/").endswith(".parquet"):
        require_pyarrow()
    summary = ClusterSummary()
    start = time.perf_counter()
    with connect(scheduler, workers) as client:
        summary.dashboard = dashboard_address(client)
        if log is not None and summary.dashboard:
            log(f"Dask dashboard at {summary.dashboard}")
        out = BatchOutput(
            output,
            summary,
            resume=resume,
            retry_timeouts=retry_timeouts,
            progress=progress,
            total=total,
            columns=options.columns,
        )
        try:
            for block in solve_on_cluster(
                client,
                out.rest(records),
                options,
                kind=out.encoding,
                partition_size=partition_size,
                summary=summary,
            ):
                out.write_encoded(block)
            out.finish()
        finally:
            out.close()
            summary.seconds = time.perf_counter() - start
    return summary


__all__ = [
    "CONNECT_TIMEOUT",
    "EXTRA",
    "ClusterError",
    "ClusterSummary",
    "DaskUnavailableError",
    "connect",
    "dashboard_address",
    "measure_task_overhead",
    "partition_target",
    "quiet_dask_logs",
    "require_distributed",
    "run_cluster_batch",
    "solve_on_cluster",
    "worker_threads",
]
