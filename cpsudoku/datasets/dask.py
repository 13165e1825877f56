"""Solve the puzzles of a Dask DataFrame or Dask Bag, partition by partition.

For Python users who already have their data in Dask: the functions here add the
batch columns lazily (``map_partitions`` with ``meta``), so they compose with the rest
of a Dask graph and run on whatever cluster the user's ``Client`` points at. Each
partition is solved by :func:`cpsudoku.batch.solve_records`, the batch engine's own
per-chunk function, inside the worker process, which keeps its backend (encoded rules,
live solver) alive from one partition to the next.

>>> import dask.dataframe as dd  # doctest: +SKIP
>>> df = dd.read_csv("sudoku.csv", dtype={"quizzes": str, "solutions": str})  # doctest: +SKIP
>>> solved = solve_dataframe(df, "quizzes", solution_column="solutions")  # doctest: +SKIP
>>> solved.status.value_counts().compute()  # doctest: +SKIP

Dask comes from the optional extra ``cpsudoku[dask]``; without it, the functions here
raise :class:`~cpsudoku.datasets.cluster.DaskUnavailableError`, which names the extra.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cpsudoku.datasets.cluster import require_distributed, solve_on_worker
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.engines import DEFAULT_BACKEND
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.rules import Rules

if TYPE_CHECKING:
    import dask.bag
    import dask.dataframe
    import pandas

#: Columns added to a DataFrame (and keys added to each Bag item), in order.
RESULT_COLUMNS = ("status", "solution", "backend", "seconds", "error")

#: ``solution_column`` default: the frame's ``solution`` or ``solutions`` column, if
#: any, as ``cpsudoku batch`` finds it in a CSV.
AUTO = "auto"

#: Rows per partition when a pandas DataFrame is handed over.
PANDAS_PARTITION = 10_000

_MISSING = "missing puzzle (empty value)"


def _record(i: int, value: object, solution: object = None) -> Record:
    """A batch record from one cell of a frame or one item of a bag."""
    expected = solution if isinstance(solution, str) and solution else None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Record(i, "", expected, _MISSING)
    if isinstance(value, bytes):  # text read in binary mode, as parse takes it
        try:
            return Record(i, value.decode("utf-8"), expected)
        except UnicodeDecodeError as exc:
            return Record(i, "", expected, f"undecodable bytes at byte {exc.start + 1}")
    return Record(i, value if isinstance(value, str) else str(value), expected)


def _solve_values(
    values: Sequence[object], solutions: Sequence[object] | None, options: SolveOptions
) -> list[tuple[str, str, str, float, str]]:
    """Rows for one partition's puzzles, solved one partition at a time per process."""
    records = [
        _record(i, v, None if solutions is None else solutions[i]) for i, v in enumerate(values)
    ]
    return solve_on_worker(records, options)


def solve_pandas(
    frame: pandas.DataFrame,
    column: str,
    options: SolveOptions,
    solution_column: str | None = None,
) -> pandas.DataFrame:
    """Solve one pandas partition: ``frame`` with the :data:`RESULT_COLUMNS` added.

    This is the function :func:`solve_dataframe` maps over the partitions; it is
    public so that plain pandas frames can be solved the same way. The frame's index
    and columns are kept; ``seconds`` is float64, the other new columns are strings
    (``solution`` and ``error`` empty when there is none, as in the batch output).
    """
    import pandas as pd

    def texts(name: str) -> list[object]:
        values = frame[name]
        return values.astype(object).where(values.notna(), None).tolist()

    solutions = None if solution_column is None else texts(solution_column)
    rows = _solve_values(texts(column), solutions, options)
    status, solution, backend, seconds, error = (
        list(col) for col in (zip(*rows, strict=True) if rows else [()] * 5)
    )
    return frame.assign(
        status=pd.Series(status, index=frame.index, dtype="string"),
        solution=pd.Series(solution, index=frame.index, dtype="string"),
        backend=pd.Series(backend, index=frame.index, dtype="string"),
        seconds=pd.Series(seconds, index=frame.index, dtype="float64"),
        error=pd.Series(error, index=frame.index, dtype="string"),
    )


def solve_dataframe(
    df: dask.dataframe.DataFrame | pandas.DataFrame,
    column: str = "quizzes",
    *,
    solution_column: str | None = AUTO,
    backend: str = DEFAULT_BACKEND,
    unique: bool = True,
    time_limit: float | None = None,
    box: str | Rules | None = None,
    presolve: bool = True,
) -> dask.dataframe.DataFrame:
    """``df`` with ``status``, ``solution``, ``backend``, ``seconds``, ``error`` added.

    Lazy, like any Dask DataFrame operation: nothing is solved until the result is
    computed (or written, e.g. with ``to_parquet``), on the cluster of the current
    ``Client``. Rows and statuses are those of ``cpsudoku batch``; a malformed or
    missing puzzle gives status ``invalid`` with the reason in ``error``.

    Args:
        df: a Dask DataFrame with the puzzles in ``column`` as text (read CSVs with
            ``dtype={column: str}`` so leading zeros stay); a pandas DataFrame is
            turned into a Dask one first (index and row order kept), and the result
            is a Dask DataFrame all the same.
        column: the puzzle column (Kaggle layout: ``quizzes``).
        solution_column: a column of expected solutions, checked as ``cpsudoku
            batch`` checks one (a unique result must equal it; any other answer is
            checked against it with the verifier) and disagreements noted in
            ``error``. By default the frame's ``solution`` or ``solutions`` column,
            as batch finds it; None checks nothing.
        backend: backend spec.
        unique: prove uniqueness (False: status ``solved`` at the first solution).
        time_limit: seconds per puzzle.
        box: box shape, when it cannot be inferred from the puzzle size.
        presolve: let the whole-array logic pass answer what singles and locked
            candidates can (backend ``logic``), as ``cpsudoku batch`` does; False sends
            every puzzle to the backend.

    Raises:
        KeyError: ``column`` or ``solution_column`` is not a column of ``df``.
        TypeError: ``df`` is no DataFrame, or ``column`` is numeric, so the puzzles'
            leading zeros are lost.
    """
    require_distributed()
    df = _dask_frame(df)
    if solution_column == AUTO:
        names = {str(name).lower(): name for name in df.columns}
        found = next((names[n] for n in ("solution", "solutions") if n in names), None)
        solution_column = None if found is None or found == column else str(found)
    for name in (column, solution_column):
        if name is not None and name not in df.columns:
            raise KeyError(f"no column {name!r} in the DataFrame (columns: {list(df.columns)})")
    kind = df[column].dtype.kind
    if kind in "iuf":
        raise TypeError(
            f"column {column!r} holds numbers ({df[column].dtype}), which lose the leading "
            f"zeros of puzzles; read it as text, e.g. dd.read_csv(..., dtype={{{column!r}: str}})"
        )
    options = SolveOptions.checked(
        backend, unique=unique, time_limit=time_limit, box=box, presolve=presolve
    )
    clash = [c for c in RESULT_COLUMNS if c in df.columns]
    if clash:
        raise CpSudokuError(f"the DataFrame already has result columns {clash}; drop them first")
    meta = solve_pandas(df._meta, column, options, solution_column)
    return df.map_partitions(solve_pandas, column, options, solution_column, meta=meta)


def _dask_frame(df: object) -> dask.dataframe.DataFrame:
    """``df`` as a Dask DataFrame: a pandas one is split into partitions, order kept."""
    import dask.dataframe as dd
    import pandas as pd

    if isinstance(df, dd.DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        partitions = max(1, math.ceil(len(df) / PANDAS_PARTITION))
        return dd.from_pandas(df, npartitions=partitions, sort=False)
    raise TypeError(
        f"solve_dataframe takes a Dask or pandas DataFrame, not a {type(df).__name__}; "
        "for a sequence of puzzles use solve_bag or cpsudoku.solve_many"
    )


def _solve_bag_partition(items: Iterable[object], options: SolveOptions) -> list[dict[str, Any]]:
    values = list(items)
    rows = _solve_values(values, None, options)
    return [
        {
            "puzzle": value,
            **dict(zip(RESULT_COLUMNS, row, strict=True)),
        }
        for value, row in zip(values, rows, strict=True)
    ]


def solve_bag(
    bag: dask.bag.Bag,
    *,
    backend: str = DEFAULT_BACKEND,
    unique: bool = True,
    time_limit: float | None = None,
    box: str | Rules | None = None,
    presolve: bool = True,
) -> dask.bag.Bag:
    """A Bag of result dicts, one per puzzle of ``bag``, in the same order.

    Each item becomes ``{"puzzle", "status", "solution", "backend", "seconds",
    "error"}`` (``puzzle`` as given). Lazy, like any Bag operation; the options are
    those of :func:`solve_dataframe`.

    >>> import dask.bag as db  # doctest: +SKIP
    >>> bag = db.from_sequence(["1.343..2.3..2..3"])  # doctest: +SKIP
    >>> solve_bag(bag).pluck("status").compute()  # doctest: +SKIP
    ['unique']
    """
    require_distributed()
    options = SolveOptions.checked(
        backend, unique=unique, time_limit=time_limit, box=box, presolve=presolve
    )
    return bag.map_partitions(_solve_bag_partition, options)


__all__ = ["RESULT_COLUMNS", "solve_bag", "solve_dataframe", "solve_pandas"]
