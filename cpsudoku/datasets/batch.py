"""Dataset solving: ``cpsudoku batch`` and :func:`solve_many`.

One engine serves both: records are cut into chunks, chunks go to worker processes
(each keeps its backend, and so its encoded solver, alive for the whole run), and
results come back in input order. At most a few chunks per worker are in flight, so
memory stays flat whatever the input size; rows are written as whole lines and
flushed chunk by chunk, which is what makes ``--resume`` exact after a crash.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from functools import partial

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.output import Summary
from cpsudoku.datasets.pool import run_chunks
from cpsudoku.datasets.records import Record, RecordBlock
from cpsudoku.datasets.solving import solve_and_encode, solve_puzzles
from cpsudoku.engines import DEFAULT_BACKEND, one_call
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.forms import PuzzleLike
from cpsudoku.model.result import Result
from cpsudoku.model.rules import Rules

# ---------------------------------------------------------------- worker side


# ---------------------------------------------------------------- parent side


@one_call
def solve_many(
    puzzles: Iterable[PuzzleLike],
    backend: str = DEFAULT_BACKEND,
    *,
    jobs: int = 1,
    unique: bool = True,
    time_limit: float | None = None,
    box: str | Rules | None = None,
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
    options = SolveOptions.checked(
        backend,
        unique=unique,
        time_limit=time_limit,
        box=box,
        presolve=presolve,
        symbols=symbols,
    )
    for _chunk, results in run_chunks(puzzles, solve_puzzles, options, jobs):
        yield from results


# ---------------------------------------------------------------- batch files


@one_call
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
    what ``resume`` and ``retry_timeouts`` keep and redo. ``options.canon`` adds the
    ``canonical`` column (any output kind, without ``resume``).
    """
    if options.canon and (resume or retry_timeouts):
        raise CpSudokuError(
            "the canonical column goes to a new output (not with --resume or --retry-timeouts)"
        )
    from cpsudoku.datasets.output import BatchOutput

    summary = Summary()
    start = time.perf_counter()
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
        work = partial(solve_and_encode, kind=out.encoding)
        chunks = run_chunks(out.rest(records), work, options, jobs, chunk_size, RecordBlock)
        for _chunk, encoded in chunks:
            out.write_encoded(encoded)
        out.finish()
    finally:
        out.close()
        summary.seconds = time.perf_counter() - start
    return summary


__all__ = ["run_batch", "solve_many"]
