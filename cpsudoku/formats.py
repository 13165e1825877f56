"""Parse every accepted text form into a :class:`~cpsudoku.grid.Puzzle`, and format back.

Accepted forms (see :func:`parse`):

- one line of ``n*n`` symbols: ``1-9`` then ``A-Z`` for 10..35 (any case); ``.``,
  ``0``, ``_``, ``-``, ``*`` for an empty cell;
- a multi-line grid with layout characters: spaces, ``|``, ``+`` are ignored, and so
  are whole lines made only of ``-``, ``+``, ``=``, ``|`` and spaces;
- whitespace- or comma-separated integers, 0 = empty (the only form for n > 35);
- Python lists of lists (0 or None = empty), also as text (``"[[5, 3, 0, ...], ...]"``);
- LeetCode 37 style lists of ``"."``/digit characters.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
from typing import Union

from cpsudoku.errors import (
    BoxShapeError,
    PuzzleError,
    UnknownSymbolError,
    ValueOutOfRangeError,
    WrongLengthError,
)
from cpsudoku.grid import SYMBOLS, Geometry, Puzzle, geometry_for_size, parse_box

#: What :func:`parse` accepts.
PuzzleLike = Union[str, Puzzle, Sequence[Sequence[object]], Sequence[int]]  # noqa: UP007

#: Empty-cell characters of the one-line form.
EMPTY = "._-*0"

#: Longest text accepted (a 100x100 grid as integers fits easily); longer is refused
#: before any work is done on it.
MAX_TEXT = 100_000

_VALUE: dict[str, int] = {c: 0 for c in EMPTY}
_VALUE.update({s: v for v, s in enumerate(SYMBOLS, 1)})
_VALUE.update({s.lower(): v for v, s in enumerate(SYMBOLS, 1) if s.isalpha()})

_LAYOUT_LINE = re.compile(r"^[\s|+=-]*$")
_LAYOUT_CHARS = re.compile(r"[\s|+]")
_INT_TOKEN = re.compile(r"^\d+$")
_SPLIT = re.compile(r"[\s,;]+")


def parse(data: PuzzleLike, box: str | Geometry | None = None, *, check: bool = True) -> Puzzle:
    """Parse a puzzle from any accepted form.

    Args:
        data: puzzle text, a list of rows, a flat list of ints, or a Puzzle.
        box: box shape (``"2x3"`` or a Geometry); inferred from the size when None.
        check: raise :class:`~cpsudoku.errors.ConflictingGivensError` when two givens
            clash (the default). Pass False to parse a puzzle just to look at it.

    Raises:
        PuzzleError: a subclass naming what is wrong and where: wrong length, unknown
            symbol, value out of range, conflicting givens, bad box shape.

    >>> str(parse([[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]]))
    '1.343..2.3..2..3'
    """
    geom = parse_box(box) if isinstance(box, str) else box
    if isinstance(data, Puzzle):
        if geom is not None and geom != data.geometry:
            raise BoxShapeError(f"puzzle is {data.geometry}, not {geom}")
        puzzle = data
    elif isinstance(data, str):
        puzzle = _parse_text(data, geom)
    elif isinstance(data, Sequence):
        puzzle = _parse_sequence(data, geom)
    else:
        raise PuzzleError(f"cannot read a puzzle from a {type(data).__name__}")
    return puzzle.check() if check else puzzle


def _geometry_for_length(length: int, geom: Geometry | None, what: str) -> Geometry:
    """The geometry for ``length`` cells; ``what`` names the count in messages."""
    if geom is not None:
        if length != geom.cells:
            raise WrongLengthError(f"a {geom} grid has {geom.cells} cells, got {length} {what}")
        return geom
    n = math.isqrt(length)
    if length == 0:
        raise WrongLengthError("empty input: no cells found")
    if n * n != length:
        below, above = n * n, (n + 1) * (n + 1)
        raise WrongLengthError(
            f"got {length} {what}, which is not the cell count of a square grid "
            f"(nearest: {below} for {n}x{n}, {above} for {n + 1}x{n + 1})"
        )
    return geometry_for_size(n)


def _parse_text(text: str, geom: Geometry | None) -> Puzzle:
    if len(text) > MAX_TEXT:
        raise WrongLengthError(
            f"input of {len(text):,} characters is too large (at most {MAX_TEXT:,})"
        )
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError) as exc:
            raise PuzzleError(f"cannot read the list form: {exc}") from None
        if not isinstance(value, list | tuple):
            raise PuzzleError("the list form must be a list of rows or a flat list")
        return _parse_sequence(value, geom)
    tokens = [t for t in _SPLIT.split(stripped) if t]
    # Integer form: several integer tokens that are either multi-digit or square in
    # number. (A single token such as "530070000..." is the one-line symbol form.)
    if (
        len(tokens) > 1
        and all(_INT_TOKEN.match(t) for t in tokens)
        and (any(len(t) > 1 for t in tokens) or _is_square(len(tokens)))
    ):
        return _from_values([int(t) for t in tokens], geom, "numbers")
    return _parse_symbols(stripped, geom)


def _is_square(k: int) -> bool:
    return k > 0 and math.isqrt(k) ** 2 == k


def _parse_symbols(text: str, geom: Geometry | None) -> Puzzle:
    lines = text.splitlines()
    if len(lines) > 1:
        lines = [line for line in lines if not _LAYOUT_LINE.match(line)]
    # Keep (line, column) of every symbol so errors point into the input.
    symbols: list[str] = []
    where: list[tuple[int, int]] = []
    for ln, line in enumerate(lines, 1):
        for col, ch in enumerate(line, 1):
            if not _LAYOUT_CHARS.match(ch):
                symbols.append(ch)
                where.append((ln, col))
    g = _geometry_for_length(len(symbols), geom, "cells")
    n = g.n
    values = []
    for i, ch in enumerate(symbols):
        v = _VALUE.get(ch)
        if v is None:
            r, c = divmod(i, n)
            raise UnknownSymbolError(
                f"unknown symbol {ch!r} at row {r + 1}, column {c + 1}"
                + (f" (line {where[i][0]}, character {where[i][1]})" if len(lines) > 1 else "")
                + f"; use 1-9, A-Z for values and one of {EMPTY!r} for empty cells",
                row=r + 1,
                col=c + 1,
                symbol=ch,
            )
        if v > n:
            r, c = divmod(i, n)
            raise ValueOutOfRangeError(
                f"symbol {ch!r} (value {v}) at row {r + 1}, column {c + 1} is outside "
                f"1..{n} for a {g} grid",
                row=r + 1,
                col=c + 1,
                symbol=ch,
            )
        values.append(v)
    return Puzzle(g, tuple(values))


def _cell_value(item: object, i: int, n: int | None) -> int:
    """One cell of the list forms: int, None, or a one-symbol string."""
    if item is None:
        return 0
    if isinstance(item, bool):
        raise PuzzleError(f"cell {i + 1} is a boolean, not a value")
    if isinstance(item, int):
        return item
    if isinstance(item, str):
        s = item.strip()
        if s.isdigit():
            return int(s)
        if len(s) == 1 and s in _VALUE:
            return _VALUE[s]
        raise UnknownSymbolError(f"unknown symbol {item!r} in cell {i + 1}", symbol=item)
    raise PuzzleError(f"cell {i + 1} is a {type(item).__name__}, not a value")


def _parse_sequence(data: Sequence[object], geom: Geometry | None) -> Puzzle:
    if data and all(isinstance(row, list | tuple) for row in data):
        rows = [list(row) for row in data]  # type: ignore[call-overload]
        n = len(rows)
        for r, row in enumerate(rows, 1):
            if len(row) != n:
                raise WrongLengthError(
                    f"row {r} has {len(row)} cells; a {n}x{n} grid needs {n} per row",
                    row=r,
                )
        flat = [item for row in rows for item in row]
    else:
        flat = list(data)
    values = []
    for i, item in enumerate(flat):
        try:
            values.append(_cell_value(item, i, None))
        except PuzzleError as exc:
            side = math.isqrt(len(flat)) or 1
            r, c = divmod(i, side)
            raise type(exc)(
                f"{exc} (row {r + 1}, column {c + 1})", row=r + 1, col=c + 1, symbol=exc.symbol
            ) from None
    return _from_values(values, geom, "cells")


def _from_values(values: list[int], geom: Geometry | None, what: str) -> Puzzle:
    g = _geometry_for_length(len(values), geom, what)
    n = g.n
    for i, v in enumerate(values):
        if not 0 <= v <= n:
            raise ValueOutOfRangeError(
                f"value {v} at {g.position(i)} is outside 1..{n} (0 = empty) for a {g} grid",
                row=i // n + 1,
                col=i % n + 1,
                symbol=str(v),
            )
    return Puzzle(g, tuple(values))


def to_line(puzzle: Puzzle) -> str:
    """One-line form: symbols with ``.`` for empty (space-separated ints when n > 35)."""
    return str(puzzle)


def to_grid(puzzle: Puzzle) -> str:
    """Readable multi-line form with box lines (parses back with :func:`parse`)."""
    return puzzle.pretty()
