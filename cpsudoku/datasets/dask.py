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
    if _is_number(solution):  # a solution has no empty cell, so no zero was lost
        solution = str(solution)
    expected = solution if isinstance(solution, str) and solution else None
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Record(i, "", expected, _MISSING)
    if isinstance(value, bytes):  # text read in binary mode, as parse takes it
        try:
            return Record(i, value.decode("utf-8"), expected)
        except UnicodeDecodeError as exc:
            return Record(i, "", expected, f"undecodable bytes at byte {exc.start + 1}")
    return Record(i, value if isinstance(value, str) else str(value), expected)


def _is_number(value: object) -> bool:
    """An integer value (Python or numpy), not a bool."""
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _restore_zeros(values: Sequence[object], column: str, rules: Rules | None) -> list[object]:
    """``values`` with the puzzles that came as integers written as text again.

    pandas reads a column of 81 digits as integers (Python ints in an object column,
    or int64 for short grids), which drops a puzzle's leading empty cells (``0``).
    With ``rules`` the width is known: each number is zero-padded to the grid's cell
    count. Without, it is not (a 9x9 whose first 17 cells are empty comes as 64
    digits, the count of an 8x8), so the column is refused rather than guessed.

    Raises:
        TypeError: a number among ``values`` and no ``rules`` to restore it by.
    """
    if not any(map(_is_number, values)):
        return list(values)
    if rules is None:
        number = next(v for v in values if _is_number(v))
        raise TypeError(
            f"column {column!r} holds numbers, not text (e.g. {number}: "
            f"{len(str(number))} digits): reading it as numbers dropped each puzzle's "
            "leading zeros (its first empty cells). Read it as text, e.g. "
            f"pd.read_csv(..., dtype={{{column!r}: str}}) or dtype=str, or give box= (e.g. "
            "box='3x3') so that each number is padded to the grid's cell count"
        )
    width = rules.cells
    return [str(v).zfill(width) if _is_number(v) else v for v in values]


def _solve_values(
    values: Sequence[object], solutions: Sequence[object] | None, options: SolveOptions
) -> list[tuple[str, str, str, float, str]]:
    """Rows for one partition's puzzles, solved one partition at a time per process."""
    records = [
        _record(i, v, None if solutions is None else solutions[i]) for i, v in enumerate(values)
    ]
    rows = solve_on_worker(records, options)
    for k, (record, row) in enumerate(zip(records, rows, strict=True)):
        if row[0] == "invalid" and _lost_zeros(record.puzzle, options.rules):
            rows[k] = (*row[:4], f"{row[4]}; {LOST_ZEROS}")
    return rows


#: Added to the error of a puzzle of digits too short for its grid.
LOST_ZEROS = (
    "all digits and short: read as a number (a CSV read without dtype=str), a puzzle "
    "loses its leading zeros; read the column as text"
)


def _lost_zeros(text: str, rules: Rules | None) -> bool:
    """Whether ``text`` looks like a puzzle that was a number: digits, short of a grid."""
    if not text.isdigit() or not text.isascii():
        return False
    if rules is not None:
        return len(text) < rules.cells
    return math.isqrt(len(text)) ** 2 != len(text)


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

    Raises:
        TypeError: the puzzles came as integers (read without ``dtype=str``), which
            lost their leading zeros, and ``options.rules`` gives no width to restore.
    """
    import pandas as pd

    def texts(name: str) -> list[object]:
        values = frame[name]
        return values.astype(object).where(values.notna(), None).tolist()

    solutions = None if solution_column is None else texts(solution_column)
    puzzles = _restore_zeros(texts(column), column, options.rules)
    rows = _solve_values(puzzles, solutions, options)
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
            ``dtype={column: str}`` so leading zeros stay; integers are refused, or
            zero-padded to the grid's cell count when ``box`` gives it); a pandas
            DataFrame is turned into a Dask one first (index and row order kept), and
            the result is a Dask DataFrame all the same.
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
        TypeError: ``df`` is no DataFrame, or ``column`` holds numbers (read without
            ``dtype=str``), which lost the puzzles' leading zeros, and no ``box`` says
            the width to restore (floats: always). Raised here for a numeric column or
            a pandas frame; for the object column of a Dask frame, when a partition
            holding a number is computed.
    """
    require_distributed()
    options = SolveOptions.checked(
        backend, unique=unique, time_limit=time_limit, box=box, presolve=presolve
    )
    df = _dask_frame(_with_text_puzzles(df, column, options.rules))
    if solution_column == AUTO:
        names = {str(name).lower(): name for name in df.columns}
        found = next((names[n] for n in ("solution", "solutions") if n in names), None)
        solution_column = None if found is None or found == column else str(found)
    for name in (column, solution_column):
        if name is not None and name not in df.columns:
            raise KeyError(f"no column {name!r} in the DataFrame (columns: {list(df.columns)})")
    kind = df[column].dtype.kind
    if kind == "f" or (kind in "iu" and options.rules is None):
        raise TypeError(
            f"column {column!r} holds numbers ({df[column].dtype}), which lose the leading "
            f"zeros of puzzles; read it as text, e.g. dd.read_csv(..., dtype={{{column!r}: str}})"
            + ("" if kind == "f" else ", or give box= to pad each to the grid's cell count")
        )
    clash = [c for c in RESULT_COLUMNS if c in df.columns]
    if clash:
        raise CpSudokuError(f"the DataFrame already has result columns {clash}; drop them first")
    meta = solve_pandas(df._meta, column, options, solution_column)
    return df.map_partitions(solve_pandas, column, options, solution_column, meta=meta)


def _with_text_puzzles(df: object, column: str, rules: Rules | None) -> object:
    """A pandas frame with its puzzles that came as integers restored as text.

    Done before the frame becomes a Dask one, which turns an object column into
    strings: a number's lost zeros could no longer be told from a short puzzle there.
    Anything else is returned as it is.

    Raises:
        TypeError: a puzzle came as a number and ``rules`` gives no width.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame) or column not in df.columns:
        return df
    if df[column].dtype.kind not in "iuO":
        return df
    values = df[column].tolist()
    restored = _restore_zeros(values, column, rules)
    if restored == values:
        return df
    return df.assign(**{column: pd.Series(restored, index=df.index, dtype=object)})


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
