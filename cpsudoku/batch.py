"""Dataset solving: ``cpsudoku batch`` and :func:`solve_many`.

One engine serves both: records are cut into chunks, chunks go to worker processes
(each keeps its backend, and so its encoded solver, alive for the whole run), and
results come back in input order. At most a few chunks per worker are in flight, so
memory stays flat whatever the input size; rows are written as whole lines and
flushed chunk by chunk, which is what makes ``--resume`` exact after a crash.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field, replace
from functools import cache, partial
from itertools import islice
from typing import IO, Any, TypeVar

from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import COLUMNS, output_kind
from cpsudoku.engines import DEFAULT_BACKEND, get_backend
from cpsudoku.engines.base import check_time_limit
from cpsudoku.engines.processes import die_with_parent, parent_identity
from cpsudoku.model.errors import CpSudokuError, PuzzleError, file_named
from cpsudoku.model.forms import PuzzleLike, parse, symbols_geometry
from cpsudoku.model.grid import SYMBOLS, Geometry, Puzzle, as_geometry, geometry_for_size, parse_box
from cpsudoku.model.result import Result, Status
from cpsudoku.model.verify import is_solution

T = TypeVar("T")
R = TypeVar("R")

#: Backend name of the rows the whole-array logic pass decided.
LOGIC = "logic"

#: A batch row without its index and puzzle: status, solution, backend, seconds, error.
Row = tuple[str, str, str, float, str]


@dataclass(frozen=True, slots=True)
class SolveOptions:
    """Everything a worker needs to solve records; sent once per worker process."""

    backend: str = DEFAULT_BACKEND
    unique: bool = True
    time_limit: float | None = None
    box: str | None = None
    verify_with: str | None = None
    presolve: bool = True
    #: The symbols of the values 1..n, as :func:`cpsudoku.parse` takes them; solutions
    #: are written with them too.
    symbols: str | None = None


@dataclass(slots=True)
class Summary:
    """Counts of a batch run, for the progress bar, the closing line and the exit code.

    Attributes:
        statuses: rows written by this run, per status.
        mismatches: of those, rows that differ from the input's solution column.
        disagreements: of those, rows where the cross-checking backend disagreed.
        records: rows written by this run.
        resumed: rows kept from an earlier run (``--resume``), which this run did not
            solve again.
        kept: those kept rows per status, and ``kept_flags`` their mismatches and
            disagreements: the exit code speaks of the whole output.
        seconds: wall time of the run.
    """

    statuses: Counter[str] = field(default_factory=Counter)
    mismatches: int = 0
    disagreements: int = 0
    records: int = 0
    resumed: int = 0
    kept: Counter[str] = field(default_factory=Counter)
    kept_flags: int = 0
    seconds: float = 0.0

    def note_kept(self, status: str, error: str | None) -> None:
        """Count one row kept from an earlier run."""
        self.resumed += 1
        self.kept[status] += 1
        if error and ("input's solution column" in error or "disagreement:" in error):
            self.kept_flags += 1

    def total(self, status: str) -> int:
        """Rows of ``status`` in the whole output: written now or kept."""
        return self.statuses[status] + self.kept[status]

    @property
    def flagged(self) -> int:
        """Rows in the whole output that differ from the input or between backends."""
        return self.mismatches + self.disagreements + self.kept_flags

    def line(self) -> str:
        """The one-line summary printed at the end of a run."""
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        counts = ", ".join(f"{n:,} {s}" for s, n in sorted(self.statuses.items()))
        text = (
            f"{self.records:,} records in {self.seconds:.2f} s ({rate:,.0f} puzzles/s): "
            f"{counts or 'none'}"
        )
        if self.resumed:
            kept = ", ".join(f"{n:,} {s}" for s, n in sorted(self.kept.items()))
            text += f"; {self.resumed:,} kept from the previous run ({kept})"
        if self.mismatches:
            text += f"; {self.mismatches:,} differ from the input's solution column"
        if self.disagreements:
            text += f"; {self.disagreements:,} DISAGREEMENTS between backends"
        return text


# ---------------------------------------------------------------- worker side


def _solve_one(puzzle: PuzzleLike, options: SolveOptions, *, checked: bool = False) -> Result:
    """Solve one puzzle with the options' engine (``checked``: see :meth:`Backend.solve`)."""
    engine = get_backend(options.backend)
    try:
        parsed = parse(puzzle, options.box, check=False, symbols=options.symbols)
    except PuzzleError as exc:
        return Result(Status.INVALID, None, engine.spec, 0.0, str(exc))
    return engine.solve(
        parsed, unique=options.unique, time_limit=options.time_limit, checked=checked
    )


def _cross_check(
    puzzle: str, first: Result, other_backend: str, options: SolveOptions
) -> str | None:
    """Solve again with ``other_backend``; describe any disagreement."""
    other = _solve_one(puzzle, replace(options, backend=other_backend, verify_with=None))
    if Status.TIMEOUT in (first.status, other.status):
        return None  # a timeout is not an answer to disagree with
    if first.status != other.status:
        return (
            f"disagreement: {first.backend} says {first.status}, "
            f"{other.backend} says {other.status}"
        )
    if first.status is Status.UNIQUE and first.solution != other.solution:
        return f"disagreement: {first.backend} and {other.backend} give different solutions"
    return None


def _solution_mismatch(
    expected: str, record: Record, result: Result, options: SolveOptions
) -> str | None:
    """Compare a result with the input's solution column.

    A unique result must equal it. For the other answers the column is checked by the
    verifier: it must solve the puzzle (any one of a ``multiple`` or ``solved``
    puzzle's solutions will do), and if it does, the puzzle cannot be ``unsolvable``.
    """
    status = result.status
    if status is Status.UNIQUE and result.solution is not None:
        try:
            given = parse(expected, result.solution.geometry, check=False, symbols=options.symbols)
        except PuzzleError as exc:
            return f"the input's solution column is not a grid: {exc}"
        if given != result.solution:
            return "solution differs from the input's solution column"
        return None
    if status not in (Status.SOLVED, Status.MULTIPLE, Status.UNSOLVABLE):
        return None  # invalid or timed out: nothing to compare
    try:
        puzzle = parse(record.puzzle, options.box, check=False, symbols=options.symbols)
        given = parse(expected, puzzle.geometry, check=False, symbols=options.symbols)
    except PuzzleError as exc:
        return f"the input's solution column is not a grid: {exc}"
    if not is_solution(puzzle, given):
        return "the input's solution column does not solve the puzzle"
    if status is Status.UNSOLVABLE:
        return "the input's solution column solves the puzzle, found unsolvable"
    return None


def solve_records(records: Sequence[Record], options: SolveOptions) -> list[Row]:
    """Solve a chunk of dataset records into batch rows (runs inside a worker).

    With ``options.presolve`` the whole-array logic pass decides first every record it
    can (backend ``logic``); the engine gets only the rest, with the cells the pass
    forced already filled in.
    """
    rows: list[Row | None] = [None] * len(records)
    reduced: dict[int, Puzzle] = {}
    if options.presolve:
        _logic_rows(records, options, rows, reduced)
    out: list[Row] = []
    for k, (record, row) in enumerate(zip(records, rows, strict=True)):
        out.append(row if row is not None else _engine_row(record, options, reduced.get(k)))
    return out


def _engine_row(record: Record, options: SolveOptions, reduced: Puzzle | None) -> Row:
    """One record solved by the engine (``reduced``: the same puzzle after the logic pass)."""
    if record.error:
        spec = get_backend(options.backend).spec
        return (Status.INVALID.value, "", spec, 0.0, record.error)
    # A puzzle the logic pass left undecided has givens known not to clash.
    puzzle = record.puzzle if reduced is None else reduced
    result = _solve_one(puzzle, options, checked=reduced is not None)
    return _finish_row(record, result, options)


def _finish_row(record: Record, result: Result, options: SolveOptions) -> Row:
    """The row of a result, with the solution-column check and the cross-check."""
    notes = [result.error] if result.error else []
    if record.solution:
        mismatch = _solution_mismatch(record.solution, record, result, options)
        if mismatch:
            notes.append(mismatch)
    if options.verify_with and result.status is not Status.INVALID:
        disagreement = _cross_check(record.puzzle, result, options.verify_with, options)
        if disagreement:
            notes.append(disagreement)
    solution = "" if result.solution is None else result.solution.line(options.symbols)
    return (result.status.value, solution, result.backend, result.seconds, "; ".join(notes))


def _logic_rows(
    records: Sequence[Record],
    options: SolveOptions,
    rows: list[Row | None],
    reduced: dict[int, Puzzle],
) -> None:
    """Fill ``rows`` for the records the whole-array logic pass decides.

    Records are grouped by geometry (from ``--box`` or their length); undecided ones
    get their reduced puzzle in ``reduced``. Records the bulk parser cannot read
    (other text forms, bad input) are left to the per-record path, which parses them
    or says precisely what is wrong.
    """
    # Imported here, with numpy, so that a single solve or a batch without the pass
    # does not pay for numpy's import (a tenth of a second at every command).
    import numpy as np

    from cpsudoku import presolve as logic

    if options.symbols is not None and not options.symbols.isascii():
        return  # the pass reads bytes: such records take the per-record path
    groups: dict[Geometry, list[int]] = {}
    fixed = parse_box(options.box) if options.box else None
    if fixed is None and options.symbols is not None:
        fixed = geometry_for_size(len(options.symbols))
    for k, record in enumerate(records):
        if record.error:
            continue
        g = fixed or _geometry_of_length(len(record.puzzle))
        if g is not None:
            groups.setdefault(g, []).append(k)
    for g, members in groups.items():
        start = time.perf_counter()
        values, ok = logic.parse_block([records[k].puzzle for k in members], g, options.symbols)
        chosen = [k for k, good in zip(members, ok.tolist(), strict=True) if good]
        if not chosen:
            continue
        plan = logic.pass_plan(g)
        if plan is logic.PassPlan.OFF:
            continue
        block = values[ok]
        result = logic.presolve(block, g, locked=plan is logic.PassPlan.FULL)
        status = result.status
        unique_rows = np.flatnonzero(status == logic.UNIQUE)
        texts = logic.format_block(result.solutions[unique_rows], g, options.symbols)
        seconds = (time.perf_counter() - start) / len(chosen)
        solved = Status.UNIQUE if options.unique else Status.SOLVED
        for j, text in zip(unique_rows.tolist(), texts, strict=True):
            k = chosen[j]
            rows[k] = _logic_row(records[k], solved, text, g, seconds, options)
        for j in np.flatnonzero(status == logic.UNSOLVABLE).tolist():
            k = chosen[j]
            rows[k] = _logic_row(records[k], Status.UNSOLVABLE, "", g, seconds, options)
        open_rows = np.flatnonzero(status == logic.UNDECIDED)
        if open_rows.size:
            # For undecided rows the pass returns the grid with its placements made:
            # same solutions as the input, fewer open cells for the engine.
            forced = result.solutions[open_rows]
            for j, cells in zip(open_rows.tolist(), forced.tolist(), strict=True):
                reduced[chosen[j]] = Puzzle(g, tuple(cells))


def _logic_row(
    record: Record, status: Status, text: str, g: Geometry, seconds: float, options: SolveOptions
) -> Row:
    """The row of a record the logic pass decided; checks run only when asked for."""
    if not record.solution and not options.verify_with:
        return (status.value, text, LOGIC, seconds, "")
    solution = parse(text, g, check=False, symbols=options.symbols) if text else None
    return _finish_row(record, Result(status, solution, LOGIC, seconds), options)


@cache
def _geometry_of_length(length: int) -> Geometry | None:
    """The default geometry of a one-line puzzle of ``length`` symbols (n <= 35)."""
    n = math.isqrt(length)
    if n * n != length or not 1 <= n <= len(SYMBOLS):
        return None
    return geometry_for_size(n)


def solve_puzzles(puzzles: Sequence[PuzzleLike], options: SolveOptions) -> list[Result]:
    """Solve a chunk of puzzles into Results (runs inside a worker).

    Text puzzles go through the whole-array logic pass first when
    ``options.presolve`` is set, exactly as in :func:`solve_records`.
    """
    rows: list[Row | None] = [None] * len(puzzles)
    reduced: dict[int, Puzzle] = {}
    if options.presolve:
        records = [
            Record(k, p.strip() if isinstance(p, str) else "") for k, p in enumerate(puzzles)
        ]
        _logic_rows(records, options, rows, reduced)
    results = []
    for k, (puzzle, row) in enumerate(zip(puzzles, rows, strict=True)):
        if row is None:
            # A puzzle the logic pass left undecided has givens known not to clash.
            results.append(_solve_one(reduced.get(k, puzzle), options, checked=k in reduced))
        else:
            status, text, backend, seconds, _error = row
            solution = (
                parse(text, options.box, check=False, symbols=options.symbols) if text else None
            )
            results.append(Result(Status(status), solution, backend, seconds))
    return results


_worker_options: SolveOptions | None = None


def _init_worker(options: SolveOptions, parent: tuple[int, bool]) -> None:
    global _worker_options
    _worker_options = options
    # Ctrl-C and SIGTERM are the parent's to handle: it stops dispatching, ends the
    # workers and closes the output. A worker whose parent died ends at once.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(*parent)
    get_backend(options.backend)  # encode the rules once, before the first chunk
    if options.verify_with:
        get_backend(options.verify_with)


def _timed(fn: Callable[[Sequence[Any], SolveOptions], R], chunk: Sequence[Any]) -> tuple[R, float]:
    options = _worker_options or SolveOptions()  # always set by the initializer
    start = time.perf_counter()
    out = fn(chunk, options)
    return out, time.perf_counter() - start


# ---------------------------------------------------------------- parent side


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


def _default_jobs() -> int:
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )


def max_jobs() -> int:
    """The most worker processes a run may ask for: four per core available.

    Solving is CPU-bound, so more buys nothing, and the pool starts every worker at
    once: a mistyped count would fork the machine to a halt.
    """
    return 4 * _default_jobs()


def run_chunks(
    items: Iterable[T],
    fn: Callable[[Sequence[T], SolveOptions], R],
    options: SolveOptions,
    jobs: int | None = None,
    chunk_size: int | None = None,
) -> Iterator[tuple[list[T], R]]:
    """Apply ``fn`` to chunks of ``items`` in ``jobs`` processes; yield in input order.

    Yields ``(chunk, outputs)`` pairs. With one job everything runs in this process
    (no pickling, no start-up cost). At most ``3 * jobs`` chunks are in flight.
    """
    jobs = jobs or _default_jobs()
    if jobs > max_jobs():
        raise ValueError(f"jobs must be at most {max_jobs()} (4 per core here), got {jobs}")
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
            window.append((chunk, pool.submit(_timed, fn, chunk)))
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
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)


def solve_many(
    puzzles: Iterable[PuzzleLike],
    backend: str = DEFAULT_BACKEND,
    *,
    jobs: int = 1,
    unique: bool = True,
    time_limit: float | None = None,
    box: str | Geometry | None = None,
    presolve: bool = True,
    symbols: str | None = None,
) -> Iterator[Result]:
    """Solve many puzzles, one Result per input, in input order.

    The same engine as ``cpsudoku batch``: with ``jobs > 1`` worker processes each keep
    their backend alive and take chunks of puzzles; results are re-ordered. Bad inputs
    give ``invalid`` results, never exceptions. The input is consumed lazily.

    Args:
        puzzles: any forms :func:`cpsudoku.parse` accepts.
        backend: backend spec.
        jobs: worker processes (1 = in this process; 0 or None = all cores).
        unique: prove uniqueness (False: stop at the first solution, status ``solved``).
        time_limit: seconds per puzzle (ValueError when NaN, before any work).
        box: box shape for all puzzles, when it cannot be inferred.
        presolve: run the whole-array logic pass on each chunk first; puzzles it
            decides get backend ``logic``. Statuses and solutions are the same either way.
        symbols: the symbols of the values 1..n of text puzzles, as
            :func:`cpsudoku.parse` takes them.

    >>> [r.status.value for r in solve_many(["1.343..2.3..2..3", "12"], "backtrack")]
    ['unique', 'invalid']
    """
    shape = as_geometry(box)  # a bad box fails here, not once per puzzle
    get_backend(backend)  # and so does an unknown backend
    if time_limit is not None:
        check_time_limit(time_limit)  # and a NaN time limit
        # A limit already spent leaves no time for the pass either: every status is
        # then ``timeout``, with the pass or without, as the engine alone would say.
        presolve = presolve and time_limit > 0
    box_text = shape.box_shape if shape else None
    if symbols is not None:
        symbols_geometry(symbols, shape)  # and symbols that are no alphabet
    options = SolveOptions(backend, unique, time_limit, box_text, None, presolve, symbols)
    for _chunk, results in run_chunks(puzzles, solve_puzzles, options, jobs):
        yield from results


# ---------------------------------------------------------------- batch files


def resume_point(path: str, kind: str) -> int:
    """Keep the complete rows of an earlier run's output; return how many there are.

    Rows are checked one by one (whole, right field count, consecutive index); the
    file is truncated after the last good row, so a row cut by a crash is gone. CSV
    rows are parsed as CSV records (a quoted field may hold line breaks), JSONL rows
    are lines.

    Raises:
        CpSudokuError: the file does not start as a batch output does (the header for
            CSV, row 0 for JSONL, or the start of either cut short): it is some other
            file, and truncating it would destroy it.
    """
    with open(path, "r+b") as fh:
        rows = _csv_rows(fh) if kind == "csv" else _jsonl_rows(fh)
        kept = good_end = 0
        first = True
        for fields, end, complete in rows:
            if first:
                first = False
                if not _starts_output(fields, kind, complete):
                    raise CpSudokuError(
                        f"cannot resume into {path}: it does not start as a batch output of "
                        f"{kind.upper()} rows does, so it is left untouched; name a new output "
                        "or drop --resume"
                    )
                if kind == "csv":
                    if not complete:
                        break
                    good_end = end  # the header
                    continue
            if not complete or not _row_ok(fields, kind, kept):
                break
            kept += 1
            good_end = end
        fh.truncate(good_end)
    return kept


#: A parsed output row: its fields (a list for CSV, a dict for JSONL, None when it
#: does not parse), the byte offset where it ends, and whether it ends in a newline.
_Parsed = tuple[Any, int, bool]


def _csv_rows(fh: IO[bytes]) -> Iterator[_Parsed]:
    """The CSV records of ``fh``, each with the byte offset of its end."""
    consumed = 0
    whole = True

    def lines() -> Iterator[str]:
        nonlocal consumed, whole
        for raw in fh:
            consumed += len(raw)
            whole = raw.endswith(b"\n")
            yield raw.decode("utf-8", "replace")

    reader = csv.reader(lines(), strict=True)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error:  # a row cut short inside quotes, or not CSV at all
            yield None, consumed, False
            return
        yield fields, consumed, whole


def _jsonl_rows(fh: IO[bytes]) -> Iterator[_Parsed]:
    """The JSON lines of ``fh``, each with the byte offset of its end."""
    consumed = 0
    for raw in fh:
        consumed += len(raw)
        try:
            row = json.loads(raw)
        except ValueError:
            row = None
        yield row, consumed, raw.endswith(b"\n")


def _starts_output(first: Any, kind: str, complete: bool) -> bool:
    """Whether ``first``, the first row of a file, is how a batch output starts.

    That is the header for CSV (or its start, cut short by a crash), row 0 for JSONL
    (or a line cut short that a row 0 may have started).
    """
    if kind == "csv":
        if first is None:
            return False
        header = list(COLUMNS)
        if complete:
            return bool(first == header)
        return len(first) <= len(header) and header[: len(first)][:-1] == first[:-1]
    return _row_ok(first, kind, 0) or not complete


def kept_rows(path: str, kind: str, kept: int) -> Iterator[tuple[str, str, str | None]]:
    """Puzzle, status and error of the first ``kept`` rows of a CSV or JSONL output."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        if kind == "csv":
            rows = csv.reader(fh)
            next(rows, None)  # the header
            for row in islice(rows, kept):
                yield row[1], row[2], row[6] or None
        else:
            for line in islice(fh, kept):
                row = json.loads(line)
                yield row["puzzle"], row["status"], row["error"]


def old_rows(path: str, kind: str, kept: int) -> Iterator[bytes]:
    """The first ``kept`` rows of a CSV or JSONL output as their bytes, header skipped."""
    with open(path, "rb") as parsed, open(path, "rb") as raw:
        rows = _csv_rows(parsed) if kind == "csv" else _jsonl_rows(parsed)
        done = 0
        if kind == "csv":
            _fields, done, _complete = next(rows)
            raw.seek(done)
        for _fields, end, _complete in islice(rows, kept):
            yield raw.read(end - done)
            done = end


def _row_ok(fields: Any, kind: str, index: int) -> bool:
    """Whether a parsed row is the output row numbered ``index``."""
    if kind == "jsonl":
        return (
            isinstance(fields, dict)
            and fields.get("index") == index
            and set(fields) == set(COLUMNS)
        )
    return isinstance(fields, list) and len(fields) == len(COLUMNS) and fields[0] == str(index)


class _RowWriter:
    """Writes rows to CSV/JSONL as whole lines, flushed after every chunk.

    A failed write (a full disk, a closed pipe) raises an OSError that names the
    output, so it is never taken for a problem with the input.
    """

    def __init__(self, path: str, append: bool, kind: str | None = None) -> None:
        self.kind = kind or output_kind(path)
        self.name = "standard output" if path == "-" else path
        self.stream: IO[str]
        if path == "-":
            self.stream, self._own = sys.stdout, False
        else:
            # Held open across chunks and closed by close(): not a with-block.
            self.stream = open(path, "a" if append else "w", encoding="utf-8", newline="")  # noqa: SIM115
            self._own = True
        if self.kind == "csv" and not append:
            self.put(",".join(COLUMNS) + "\n")

    def put(self, text: str) -> None:
        """Write ``text`` and flush it, naming the output in any error."""
        try:
            with file_named(self.name):
                self.stream.write(text)
                self.stream.flush()
        except OSError:
            if self._own:  # no later write can succeed: let go of the file now
                with suppress(OSError):
                    self.stream.close()
            raise

    def close(self) -> None:
        if self._own:
            with file_named(self.name):
                self.stream.close()


def _progress(total: int | None, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="puzzle", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


def count_records_fast(path: str) -> int | None:
    """Line count of a plain file, for the progress bar's ETA (None when unknown)."""
    if not os.path.isfile(path) or path.lower().endswith((".gz", ".bz2", ".xz", ".zip")):
        return None  # stdin, a pipe (counting would eat it) or compressed
    lines = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            lines += block.count(b"\n")
    return lines


def solve_and_encode(records: Sequence[Record], options: SolveOptions, kind: str) -> Any:
    """Solve a chunk and encode its rows for an output of ``kind`` (runs in a worker).

    Encoding in the worker keeps the parent's serial work to reading and writing:
    it receives one ready block of text (or one Parquet file) per chunk, with the
    counts for the summary.
    """
    from cpsudoku.parquet import encode_rows

    rows = solve_records(records, options)
    return encode_rows(
        [(record.index, record.puzzle, *row) for record, row in zip(records, rows, strict=True)],
        kind,
    )


def run_batch(
    records: Iterable[Record],
    output: str,
    options: SolveOptions,
    *,
    jobs: int | None = None,
    resume: bool = False,
    retry_timeouts: bool = False,
    progress: bool = False,
    total: int | None = None,
    chunk_size: int | None = None,
) -> Summary:
    """Solve ``records`` and write one row per record to ``output``, in input order.

    The output is CSV, JSONL or (for a name ending in ``.parquet``) a folder of Parquet
    files, one per chunk; see :class:`cpsudoku.parquet.BatchOutput`, which also says
    what ``resume`` and ``retry_timeouts`` keep and redo.
    """
    from cpsudoku.parquet import BatchOutput

    summary = Summary()
    start = time.perf_counter()
    out = BatchOutput(
        output,
        summary,
        resume=resume,
        retry_timeouts=retry_timeouts,
        progress=progress,
        total=total,
    )
    try:
        work = partial(solve_and_encode, kind=out.encoding)
        for _chunk, encoded in run_chunks(out.rest(records), work, options, jobs, chunk_size):
            out.write_encoded(encoded)
        out.finish()
    finally:
        out.close()
        summary.seconds = time.perf_counter() - start
    return summary


__all__ = [
    "Row",
    "SolveOptions",
    "Summary",
    "run_batch",
    "run_chunks",
    "solve_many",
    "solve_records",
]
