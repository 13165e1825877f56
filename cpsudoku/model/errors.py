"""One exception family for everything cpsudoku raises on purpose.

Every class derives from :class:`CpSudokuError` and, where it fits, from the builtin a
caller would naturally catch (``ValueError`` for bad input, ``TimeoutError`` for a count
that ran out of time). Solver *outcomes* (unsolvable, multiple, timeout) are never
exceptions: they are :class:`~cpsudoku.model.result.Status` values.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


class CpSudokuError(Exception):
    """Root of every error cpsudoku raises."""


class PuzzleError(CpSudokuError, ValueError):
    """The input is not a well-formed, consistent puzzle.

    Attributes:
        row: 1-based row of the offending cell, when one cell is to blame.
        col: 1-based column of that cell.
        symbol: the offending symbol or value, as written in the input.
    """

    def __init__(
        self,
        message: str,
        *,
        row: int | None = None,
        col: int | None = None,
        symbol: str | None = None,
    ) -> None:
        super().__init__(message)
        self.row = row
        self.col = col
        self.symbol = symbol


class WrongLengthError(PuzzleError):
    """The number of cells is not N*N for any (or for the requested) box shape."""


class UnknownSymbolError(PuzzleError):
    """A character that is neither a cell symbol nor layout."""


class ValueOutOfRangeError(PuzzleError):
    """A symbol or integer outside 1..N (0 and '.' mean empty)."""


class ConflictingGivensError(PuzzleError):
    """Two givens with the same value share a row, column or box."""


class BoxShapeError(PuzzleError):
    """A box shape that is malformed or does not fit the grid."""


class RulesError(PuzzleError):
    """Rules that do not hold together.

    A malformed spec, regions that do not tile the grid, a constraint whose cells are
    off the grid or whose sum is impossible.
    """


class DatasetError(CpSudokuError, ValueError):
    """A dataset file that cannot be read as one: no puzzle column, a zip of several files."""


class UnknownBackendError(CpSudokuError, ValueError):
    """A backend name that is not in the registry (the message lists the valid ones)."""


class UnsupportedRulesError(CpSudokuError, ValueError):
    """An engine was asked to solve a puzzle whose rules it cannot take.

    The message names the engine and the constraint kinds it lacks (and, where the
    registry is at hand, the engines that take them): a rule is never dropped, so the
    puzzle is refused instead. Not bad input: :func:`cpsudoku.solve` and batch rows
    report it as status ``refused``, the command line with exit code 6.
    """


class BackendUnavailableError(CpSudokuError, ModuleNotFoundError):
    """A registered backend whose solver library is not installed."""


class SolveTimeoutError(CpSudokuError, TimeoutError):
    """A count that ran out of time before it was complete."""


class SolverError(CpSudokuError, RuntimeError):
    """An engine misbehaved: an invalid model, or a solution the verifier rejected.

    This is always a bug in cpsudoku or in an engine, never a property of the puzzle.
    """


@contextmanager
def file_named(path: str | os.PathLike[str]) -> Iterator[None]:
    """Give an OSError raised inside the name ``path`` when it names no file itself.

    A write that fails on a full disk, or a read that fails on a bad device, raises an
    OSError without a file name; a command must then still say which file could not
    be written or read, and never blame another one.
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, os.fspath(path)) from None
