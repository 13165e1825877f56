"""Parse every accepted text form into a :class:`~cpsudoku.grid.Puzzle`, and format back.

Accepted forms (see :func:`parse`):

- one line of ``n*n`` symbols: ``1-9`` then ``A-Z`` for 10..35 (any case); ``.``,
  ``0``, ``_``, ``-``, ``*`` for an empty cell;
- a multi-line grid with layout characters: spaces, ``|``, ``+`` are ignored, and so
  are whole lines made only of ``-``, ``+``, ``=``, ``|`` and spaces, except a line
  of ``-`` that is a row of empty cells (see :func:`_content_lines`);
- whitespace- or comma-separated integers, 0 = empty (the only form for n > 35),
  told from rows of digits such as ``003020600`` (see :func:`_parse_digit_tokens`);
- Python lists of lists (0 or None = empty), also as text (``"[[5, 3, 0, ...], ...]"``);
- LeetCode 37 style lists of ``"."``/digit characters.

In text of several lines, a line whose first non-blank character is ``#`` is a
comment, as in a ``.txt`` dataset.
"""

from __future__ import annotations

import ast
import codecs
import csv
import importlib
import io
import json
import math
import re
import sys
import warnings
import zipfile
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache, partial
from itertools import chain
from typing import BinaryIO, NamedTuple, Union

from cpsudoku.errors import (
    BoxShapeError,
    DatasetError,
    PuzzleError,
    UnknownSymbolError,
    ValueOutOfRangeError,
    WrongLengthError,
    file_named,
)
from cpsudoku.grid import SYMBOLS, Geometry, Puzzle, as_geometry, geometry, geometry_for_size

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

#: Keys of a JSON object that hold its puzzle: batch columns, and LeetCode's ``board``.
PUZZLE_KEYS = ("puzzle", "quizzes", "quiz", "board", "grid")

#: A line that heads one grid of a Project Euler 96 file (``Grid 01``).
GRID_HEADER = re.compile(r"^\s*grid\s*\d*\s*:?\s*$", re.IGNORECASE)

#: Characters a symbol alphabet may not use: layout, and what separates tokens.
_NOT_SYMBOLS = set(" \t\r\n|+,;#[]{}")

_LAYOUT_LINE = re.compile(r"^[\s|+=-]*$")
_LAYOUT_CHARS = re.compile(r"[\s|+]")
_DASH_ROW = re.compile(r"^[\s|]*-[\s|-]*$")
_INT_TOKEN = re.compile(r"^\d+$")
_NAME = re.compile(r"^[^\W\d][\w ]*$")
_SPLIT = re.compile(r"[\s,;]+")
_SEPARATORS = re.compile(r"[,;]")


class AmbiguousZeroWarning(UserWarning):
    """A 16x16 line writes 0 and no other empty marker: perhaps 0-F are its digits.

    Read so, 0 is an empty cell and a different puzzle is solved; ``symbols=`` (the
    ``--symbols`` option) says what the symbols are.
    """


def parse(
    data: PuzzleLike,
    box: str | Geometry | None = None,
    *,
    check: bool = True,
    symbols: str | None = None,
) -> Puzzle:
    """Parse a puzzle from any accepted form.

    Args:
        data: puzzle text (``bytes`` are decoded: UTF-8, or UTF-16/32 by their
            byte-order mark), a list of rows, a flat list of ints, or a Puzzle.
        box: box shape (``"2x3"`` or a Geometry); inferred from the size when None.
        check: raise :class:`~cpsudoku.errors.ConflictingGivensError` when two givens
            clash (the default). Pass False to parse a puzzle just to look at it.
        symbols: the symbols of the values 1..n, in order, e.g.
            ``"0123456789ABCDEF"`` for a 16x16 grid written in hex digits (its
            length is the grid's side). Every other character of ``._-*0`` is then an
            empty cell. Default: ``1-9`` then ``A-Z``, and ``0`` is empty too.

    Raises:
        PuzzleError: a subclass naming what is wrong and where: wrong length, unknown
            symbol, value out of range, conflicting givens, bad box shape.

    Warns:
        AmbiguousZeroWarning: a 16x16 line of symbols holds ``0`` and no other empty
            marker, and no ``symbols`` were given.

    >>> str(parse([[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]]))
    '1.343..2.3..2..3'
    >>> to_line(parse("0123" "2301" "...." "....", symbols="0123"), symbols="0123")
    '012323013012....'
    """
    geom = as_geometry(box)
    if symbols is not None:
        geom = symbols_geometry(symbols, geom)
    if isinstance(data, Puzzle):
        if geom is not None and geom != data.geometry:
            raise BoxShapeError(f"puzzle is {data.geometry}, not {geom}")
        puzzle = data
    elif isinstance(data, str):
        puzzle = _parse_text(data, geom, symbols)
    elif isinstance(data, bytes | bytearray | memoryview):
        # Text read in binary mode, not a list of ints (b"1.3" would be 49, 46, 51).
        text = decode_text(bytes(data), f"the puzzle {type(data).__name__}")
        puzzle = _parse_text(text, geom, symbols)
    elif isinstance(data, Sequence):
        puzzle = _parse_sequence(data, geom, symbols)
    else:
        hint = " (pass its .tolist())" if hasattr(data, "tolist") else ""  # numpy, pandas
        raise PuzzleError(f"cannot read a puzzle from a {type(data).__name__}{hint}")
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


def _parse_text(text: str, geom: Geometry | None, symbols: str | None = None) -> Puzzle:
    if len(text) > MAX_TEXT:
        raise WrongLengthError(
            f"input of {len(text):,} characters is too large (at most {MAX_TEXT:,})"
        )
    stripped = text.strip()
    if stripped.startswith("["):
        return _parse_sequence(_list_literal(stripped), geom, symbols)
    if stripped.startswith("{"):
        return _parse_text_object(stripped, geom, symbols)
    tokens = [t for t in _SPLIT.split(stripped) if t]
    if len(tokens) > 1 and ("#" in stripped or "rid" in stripped):
        # Lines whose first non-blank character is "#" are comments, as in a .txt
        # dataset, and a "Grid 01" line heads a grid of a Project Euler 96 file.
        # (Looked for only past the one-line form: both need a line break, and the
        # one-line form must stay fast.)
        lines = stripped.splitlines()
        kept = [line for line in lines if not line.lstrip().startswith("#")]
        headers = sum(bool(GRID_HEADER.match(line)) for line in kept)
        if headers > 1:
            raise WrongLengthError(
                f"the text holds {headers} puzzles, each under a 'Grid' line; this reads "
                "one puzzle, and 'cpsudoku batch' reads a file of many"
            )
        kept = [line for line in kept if not GRID_HEADER.match(line)]
        if len(kept) < len(lines):
            return _parse_text("\n".join(kept), geom, symbols)
    if symbols is not None:
        return _parse_symbols(stripped, geom, symbols)
    # Several all-digit tokens: integers, or rows of digit symbols (a single token
    # such as "530070000..." is the one-line symbol form).
    if len(tokens) > 1 and all(_INT_TOKEN.match(t) for t in tokens):
        return _parse_digit_tokens(stripped, tokens, geom)
    if len(stripped) == 256 and zero_may_be_a_digit(stripped):
        warnings.warn(
            "this 16x16 puzzle writes 0 and no other empty cell; 0 is read as empty. If its "
            "digits are 0-F, say so: symbols='0123456789ABCDEF' (--symbols)",
            AmbiguousZeroWarning,
            stacklevel=3,
        )
    return _parse_symbols(stripped, geom)


def zero_may_be_a_digit(line: str) -> bool:
    """True for a 16x16 one-line puzzle with ``0`` and no other empty marker.

    Written so, its cells are most likely the hex digits ``0-F``, and reading ``0`` as
    empty (the default) solves another puzzle.
    """
    return len(line) == 256 and "0" in line and not any(c in line for c in "._-*")


def _parse_text_object(text: str, geom: Geometry | None, symbols: str | None) -> Puzzle:
    """A one-puzzle JSON object: its puzzle is under one of :data:`PUZZLE_KEYS`.

    ``{"board": [[...]]}`` (a LeetCode board) or ``{"puzzle": "..."}``, as a dataset's
    JSON lines hold them; the other keys are left alone.
    """
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleError(
            f"cannot read the JSON object: {exc.msg} at character {exc.pos + 1}"
        ) from None
    if not isinstance(obj, dict):
        raise PuzzleError("a JSON puzzle is an object with a puzzle key, a list or a string")
    key = next((k for k in PUZZLE_KEYS if k in obj), None)
    if key is None:
        raise PuzzleError(
            f"the JSON object has no puzzle: give it one of the keys {', '.join(PUZZLE_KEYS)}"
            + (f" (its keys: {', '.join(map(str, list(obj)[:8]))})" if obj else "")
        )
    value = obj[key]
    if isinstance(value, str):
        return _parse_text(value, geom, symbols)
    if isinstance(value, list):
        return _parse_sequence(value, geom, symbols)
    raise PuzzleError(f'the "{key}" field is {_json_kind(value)}, not a puzzle')


def _json_kind(value: object) -> str:
    """How a JSON value that is not a puzzle is named in messages."""
    return _JSON_KINDS.get(type(value), "a number")


@cache
def _lookup(symbols: str) -> dict[str, int]:
    """Symbol -> value of an alphabet: ``symbols[k]`` is k+1, the other empties are 0.

    Letters match either case unless that would make two symbols one.
    """
    table = {c: 0 for c in EMPTY if c not in symbols}
    table.update({c: v for v, c in enumerate(symbols, 1)})
    folded = {c.lower() for c in symbols} | {c.upper() for c in symbols}
    if len(folded) == 2 * sum(c.isalpha() for c in symbols) + sum(not c.isalpha() for c in symbols):
        for v, c in enumerate(symbols, 1):
            table.setdefault(c.lower(), v)
            table.setdefault(c.upper(), v)
    return table


def symbols_geometry(symbols: str, geom: Geometry | None) -> Geometry:
    """The geometry a symbol alphabet implies (its length is the side), checked.

    ``geom``, when given, must have as many values as there are symbols.

    Raises:
        PuzzleError: symbols repeated, layout characters among them, or a length that
            does not fit ``geom``.
    """
    if not isinstance(symbols, str) or not symbols:
        raise PuzzleError(f"symbols must be a non-empty string, got {symbols!r}")
    bad = sorted(set(symbols) & _NOT_SYMBOLS)
    if bad:
        raise PuzzleError(f"symbols may not hold layout characters: {''.join(bad)!r}")
    twice = sorted({c for c in symbols if symbols.count(c) > 1})
    if twice:
        raise PuzzleError(f"symbols must differ, but {''.join(twice)!r} repeat")
    if geom is not None:
        if len(symbols) != geom.n:
            raise BoxShapeError(
                f"{len(symbols)} symbols do not fit a {geom} grid, which needs {geom.n}"
            )
        return geom
    return geometry_for_size(len(symbols))


def _parse_digit_tokens(text: str, tokens: list[str], geom: Geometry | None) -> Puzzle:
    """All-digit tokens: whitespace- or comma-separated integers, or rows of digits.

    ``10 11 0 ...`` is the integer form (one value per token); ``003020600`` on each
    line (the Project Euler layout, also written ``003 020 600``) is digit symbols,
    one cell per digit, 0 = empty. The rule:

    1. Integers when, so read, the tokens make a grid: their count is a square (or
       the ``box``'s cell count) and no value exceeds the side. Every integer-form
       puzzle that parsed before still parses, to the same grid, with one
       exception: 2.
    2. A token with more digits than the side needs (``000000003`` in a 3x3
       reading; zero-padded values such as ``01 16 00`` on 16x16 are not longer
       than the side) is a row of digits when the digits also make a grid and
       every non-blank line holds exactly one row of it. Only then can both
       readings be grids; it is the Project Euler layout of a puzzle whose rows,
       read as numbers, all stay within the side.
    3. Otherwise digit symbols, when the digits make a grid (with all digits
       within the side).
    4. Neither reading is a grid: the error comes from the integer reading, unless
       some token has more digits than the token count (no cell value can), as in
       a row of digits with one digit missing, which is reported in cells.

    When every token is one digit, both readings give the same puzzle.
    """
    count = len(tokens)
    digits = sum(map(len, tokens))
    if geom is not None:
        int_side, sym_side = geom.n, geom.n
        int_fits, sym_fits = count == geom.cells, digits == geom.cells
    else:
        int_side, sym_side = math.isqrt(count), math.isqrt(digits)
        int_fits, sym_fits = _is_square(count), _is_square(digits)
    values = [int(t) for t in tokens]
    int_ok = int_fits and max(values) <= int_side
    sym_ok = sym_fits and int(max(map(max, tokens))) <= sym_side
    width = len(str(int_side))
    if int_ok and sym_ok and any(len(t) > width for t in tokens):
        rows = [sum(map(len, _SPLIT.split(line.strip()))) for line in text.splitlines()]
        int_ok = any(r not in (0, sym_side) for r in rows)
    if int_ok or not (sym_ok or any(len(t) > len(str(count)) for t in tokens)):
        return _from_values(values, geom, "numbers")
    return _parse_symbols(_SEPARATORS.sub(" ", text), geom)


def _list_literal(text: str) -> list[object] | tuple[object, ...]:
    """The list form as text: JSON (``null`` = empty), else a Python literal.

    JSON comes first, so ``null`` reads as None and ``true``/``false`` as booleans
    (refused later, per cell); Python syntax (``None``, quotes of either kind,
    tuples) is the fallback. An item that is neither is named with its place:
    ``ast``'s own message would show a node's repr, memory address included.
    """
    try:
        try:
            value = json.loads(text)
        except ValueError:
            value = ast.literal_eval(text)
    except SyntaxError as exc:
        where = f"line {exc.lineno}, character {exc.offset}"
        raise PuzzleError(f"cannot read the list form: {exc.msg} ({where})") from None
    except ValueError:
        raise PuzzleError(f"cannot read the list form: {_not_literal(text)}") from None
    except RecursionError:
        raise PuzzleError("cannot read the list form: it is nested too deeply") from None
    if not isinstance(value, list | tuple):
        raise PuzzleError("the list form must be a list of rows or a flat list")
    return value


_LITERAL_NODES = (
    ast.Expression,
    ast.List,
    ast.Tuple,
    ast.Constant,
    ast.UnaryOp,
    ast.unaryop,
    ast.expr_context,
)


def _not_literal(text: str) -> str:
    """What in ``text`` (valid Python syntax) is not a literal, and where."""
    for node in ast.walk(ast.parse(text, mode="eval")):
        if not isinstance(node, _LITERAL_NODES):
            line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
            return (
                f"{ast.get_source_segment(text, node)!r} at line {line}, character {col} "
                "is not a value (use numbers, quoted symbols, and None or null for empty)"
            )
    return "it holds something that is not a value"


def _is_square(k: int) -> bool:
    return k > 0 and math.isqrt(k) ** 2 == k


def _parse_symbols(text: str, geom: Geometry | None, symbols: str | None = None) -> Puzzle:
    lookup = _VALUE if symbols is None else _lookup(symbols)
    if text and not _LAYOUT_CHARS.search(text):
        # One line of symbols, the form of every dataset: a dict lookup per character.
        # Anything wrong falls through to the slow path, which says exactly what.
        values = [lookup.get(ch, -1) for ch in text]
        n = math.isqrt(len(values))
        if (n * n == len(values) and geom is None) or (
            geom is not None and len(values) == geom.cells
        ):
            g = geom or geometry_for_size(n)
            if min(values) >= 0 and max(values) <= g.n:
                return Puzzle(g, tuple(values))
    lines = text.splitlines()
    drawn = None
    if len(lines) > 1:
        drawn = _drawn_box(lines) if geom is None else None
        lines = _content_lines(lines, geom)
    # Keep (line, column) of every symbol so errors point into the input.
    chars: list[str] = []
    where: list[tuple[int, int]] = []
    for ln, line in enumerate(lines, 1):
        for col, ch in enumerate(line, 1):
            if not _LAYOUT_CHARS.match(ch):
                chars.append(ch)
                where.append((ln, col))
    g = _geometry_for_length(len(chars), geom, "cells")
    if drawn and drawn[0] * drawn[1] == g.n and drawn != (g.box_rows, g.box_cols):
        g = geometry(*drawn)  # the boxes the grid draws, e.g. 3x2 rather than 2x3
    n = g.n
    values = []
    for i, ch in enumerate(chars):
        v = lookup.get(ch)
        if v is None:
            r, c = divmod(i, n)
            alphabet = "1-9, A-Z" if symbols is None else repr(symbols)
            empties = "".join(k for k, val in lookup.items() if not val)
            raise UnknownSymbolError(
                f"unknown symbol {ch!r} at row {r + 1}, column {c + 1}"
                + (f" (line {where[i][0]}, character {where[i][1]})" if len(lines) > 1 else "")
                + f"; use {alphabet} for values and one of {empties!r} for empty cells",
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


def _drawn_box(lines: list[str]) -> tuple[int, int] | None:
    """The box shape a grid drawn with box lines shows, as :func:`to_grid` draws it.

    Box columns: the cells before the first ``|`` of the first row. Box rows: the rows
    above the first rule line, one with a ``+`` (or, in a grid without ``|``, one of
    dashes wider than a row: a line of as many dashes as a row has cells may be a row
    of empty cells). Either alone gives the other through the side, which the caller
    checks; None when the drawing shows neither.
    """
    rows = [line for line in lines if not _LAYOUT_LINE.match(line)]
    if not rows:
        return None
    side = _symbol_count(rows[0])
    cols = _symbol_count(rows[0].split("|")[0]) if "|" in rows[0] else 0

    def is_rule(line: str) -> bool:
        if not _LAYOUT_LINE.match(line):
            return False
        return "+" in line or (not cols and line.count("-") > side)

    rule = next((i for i, line in enumerate(lines) if is_rule(line)), -1)
    box_rows = sum(not _LAYOUT_LINE.match(line) for line in lines[:rule]) if rule > 0 else 0
    if cols and not box_rows and side % cols == 0:
        box_rows = side // cols
    if box_rows and not cols and side % box_rows == 0:
        cols = side // box_rows
    return (box_rows, cols) if box_rows and cols else None


def _content_lines(lines: list[str], geom: Geometry | None) -> list[str]:
    """The lines of a multi-line grid that hold cells: layout lines dropped.

    A line of only ``-`` (with spaces or ``|``) is ambiguous: ``-`` is an empty
    cell, so ``---------`` may be a row of nine empty cells or a separator. Such a
    line is a candidate row when the content lines all hold the same number m of
    symbols and it holds exactly m dashes. With c content lines and k candidates:

    - c + k = m (as many rows as columns): every candidate is a row;
    - c < m < c + k: m - c candidates are rows, and the others must be the
      separators between bands of boxes (after every R rows, at most one per band
      boundary); they are told apart by walking the lines, and if that does not
      end on exactly m rows, none is a row;
    - c + k > m otherwise (c >= m): none is a row; also when c + k < m, unless
      the dashes complete a grid that dropping them leaves without (a one-line
      puzzle folded at some other width, with a chunk of empty cells).

    With no content line at all (an empty grid), m is the dash count that enough
    lines (at least m) share.

    A separator in a grid written one row per line is never taken for a row: its m
    rows are all there, so c >= m. The separators :func:`to_grid` writes hold
    ``+``, or 2n-1 dashes against n symbols per row, so they always stay layout.
    """
    layout = [bool(_LAYOUT_LINE.match(line)) for line in lines]
    dashes = [i for i, line in enumerate(lines) if layout[i] and _DASH_ROW.match(line)]
    widths = {_symbol_count(line) for line, lay in zip(lines, layout, strict=True) if not lay}
    if dashes and not widths:  # all empty: the width that has enough lines for rows
        counts = Counter(_symbol_count(lines[i]) for i in dashes)
        widths = {width for width, k in counts.items() if k >= width}
    if dashes and len(widths) == 1:
        (width,) = widths
        candidates = [i for i in dashes if _symbol_count(lines[i]) == width]
        content = layout.count(False)

        def fits(cells: int) -> bool:
            return _is_square(cells) if geom is None else cells == geom.cells

        rows: list[int] = []
        if candidates and content < width < content + len(candidates) and fits(width * width):
            g = geom or geometry_for_size(width)
            rows = _rows_among_separators(lines, layout, candidates, width, g.box_rows)
        elif (
            candidates
            and fits((content + len(candidates)) * width)
            and (content + len(candidates) == width or not fits(content * width))
        ):
            rows = candidates
        for i in rows:
            layout[i] = False
    return [line for line, lay in zip(lines, layout, strict=True) if not lay]


def _rows_among_separators(
    lines: list[str], layout: list[bool], candidates: list[int], side: int, box_rows: int
) -> list[int]:
    """Which dash-only ``candidates`` are rows, the rest being box separators.

    Walks the lines counting rows: a candidate is a separator when it falls on a
    band boundary (after every ``box_rows`` rows) that has no separator yet and
    separators are still owed, else a row. As a separator and a row of empties look
    the same, the order among lines at one boundary does not matter. Returns no
    rows unless the walk ends on exactly ``side`` rows with every separator placed.
    """
    spare = len(candidates) - (side - layout.count(False))
    chosen = set(candidates)
    count, separated_at = 0, -1
    rows = []
    for i, line in enumerate(lines):
        if not layout[i]:
            count += 1
        elif i not in chosen:
            if line.strip():
                separated_at = count  # another separator, e.g. "---+---+---"
        elif spare and 0 < count < side and count % box_rows == 0 and separated_at != count:
            spare -= 1
            separated_at = count
        else:
            rows.append(i)
            count += 1
    return rows if count == side and not spare else []


def _symbol_count(line: str) -> int:
    """Cells on one line of a grid: its characters that are not layout."""
    return len(_LAYOUT_CHARS.sub("", line))


def _cell_value(item: object, i: int, symbols: str | None) -> int:
    """One cell of the list forms: int, None, or a one-symbol string.

    With ``symbols``, a string is a symbol of that alphabet (``"0"`` may be a value).
    """
    if item is None:
        return 0
    if isinstance(item, bool):
        raise PuzzleError(f"cell {i + 1} is a boolean, not a value")
    if isinstance(item, int):
        return item
    if isinstance(item, str):
        s = item.strip()
        if symbols is not None:
            value = _lookup(symbols).get(s)
            if value is None:
                raise UnknownSymbolError(
                    f"unknown symbol {item!r} in cell {i + 1}; the symbols are {symbols!r}",
                    symbol=item,
                )
            return value
        if s.isdigit():
            return int(s)
        if len(s) == 1 and s in _VALUE:
            return _VALUE[s]
        raise UnknownSymbolError(f"unknown symbol {item!r} in cell {i + 1}", symbol=item)
    raise PuzzleError(f"cell {i + 1} is a {type(item).__name__}, not a value")


def _parse_sequence(
    data: Sequence[object], geom: Geometry | None, symbols: str | None = None
) -> Puzzle:
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
            values.append(_cell_value(item, i, symbols))
        except PuzzleError as exc:
            side = math.isqrt(len(flat)) or 1
            r, c = divmod(i, side)
            raise type(exc)(
                f"{exc} (row {r + 1}, column {c + 1})", row=r + 1, col=c + 1, symbol=exc.symbol
            ) from None
    return _from_values(values, geom, "cells")


def _from_values(values: list[int], geom: Geometry | None, what: str) -> Puzzle:
    """A Puzzle from integer values; the Puzzle itself checks the range (0 = empty)."""
    return Puzzle(_geometry_for_length(len(values), geom, what), tuple(values))


def as_puzzle(data: PuzzleLike, box: str | Geometry | None = None) -> Puzzle:
    """``data`` itself when it is a Puzzle, else :func:`parse` of it (clashes allowed).

    For functions that look at a grid rather than solve it, so that they take every
    form :func:`parse` does.
    """
    return data if isinstance(data, Puzzle) else parse(data, box, check=False)


def to_line(puzzle: PuzzleLike, *, symbols: str | None = None) -> str:
    """One-line form: symbols with ``.`` for empty (space-separated ints when n > 35).

    ``symbols``: the symbols of the values 1..n, as :func:`parse` takes them.
    """
    return as_puzzle(puzzle).line(symbols)


def to_grid(puzzle: PuzzleLike, *, symbols: str | None = None) -> str:
    """Readable multi-line form with box lines (parses back with :func:`parse`)."""
    return as_puzzle(puzzle).pretty(symbols)


# --------------------------------------------------------------------------------------
# Datasets: streaming readers and row writers for `cpsudoku batch` / `solve_many`.
# --------------------------------------------------------------------------------------

#: Longest record accepted by the dataset readers, in bytes; longer lines become
#: ``invalid`` rows and are skipped without being held in memory.
MAX_RECORD = MAX_TEXT

#: Lines one quoted CSV field may span (a 49x49 grid drawn with box lines fits).
MAX_CSV_LINES = 100

#: Columns of batch output, in order.
COLUMNS = ("index", "puzzle", "status", "solution", "backend", "seconds", "error")

_PUZZLE_COLUMNS = PUZZLE_KEYS
_SOLUTION_COLUMNS = ("solution", "solutions")
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


class Record(NamedTuple):
    """One input record of a dataset.

    Attributes:
        index: 0-based record number (comments and blank lines are not records).
        puzzle: the puzzle text as read (undecodable bytes shown as U+FFFD).
        solution: the expected solution from the input's solution column, if any.
        error: why the record could not be read at all (over-long, undecodable,
            malformed JSON, a JSON puzzle field that is neither text nor a list);
            such a record becomes an ``invalid`` row.
    """

    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index on purpose
    puzzle: str
    solution: str | None = None
    error: str | None = None


def dataset_kind(name: str) -> str:
    """``"csv"``, ``"jsonl"`` or ``"txt"`` from a file name (compression suffix ignored)."""
    lower = name.lower()
    for suffix in (*_COMPRESSED, ".zip"):
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
            break
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "txt"


@contextmanager
def open_dataset(path: str) -> Iterator[tuple[BinaryIO, str]]:
    """Open a dataset for binary reading, decompressing as its suffix says.

    ``-`` is standard input (read as .txt). A ``.zip`` must hold exactly one data
    file, as Kaggle ships them. Yields ``(stream, kind)``.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: the file cannot be opened.
        ValueError: a zip with no or several data files, or a corrupt archive.
    """
    if path == "-":
        yield sys.stdin.buffer, "txt"
        return
    lower = path.lower()
    if lower.endswith(".zip"):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            raise DatasetError(f"{path}: not a readable zip archive ({exc})") from None
        with archive:
            members = [
                m
                for m in archive.namelist()
                if not m.endswith("/") and not m.startswith("__MACOSX/")
            ]
            if len(members) != 1:
                raise DatasetError(
                    f"{path}: a zip must hold exactly one data file, found {len(members)}"
                    + (f" ({', '.join(members[:5])})" if members else "")
                )
            try:
                inner = archive.open(members[0])
            except (RuntimeError, NotImplementedError) as exc:  # encrypted, unknown method
                raise DatasetError(f"{path}: cannot read {members[0]} ({exc})") from None
            with inner:
                yield inner, dataset_kind(members[0])  # type: ignore[misc]
        return
    for suffix, module in _COMPRESSED.items():
        if lower.endswith(suffix):
            opener = importlib.import_module(module).open
            with opener(path, "rb") as stream:
                yield stream, dataset_kind(path)
            return
    with open(path, "rb") as stream:
        yield stream, dataset_kind(path)


#: Bytes read at a time by the dataset readers.
_BLOCK = 1 << 16

#: Byte-order marks, longest first (the UTF-32 LE mark starts with the UTF-16 LE one).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_LINE_END = re.compile(rb"\r\n?|\n")


def _blocks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes in blocks, as UTF-8: a byte-order mark decides the encoding.

    A UTF-8 mark is dropped (spreadsheet exports write one); text marked as UTF-16 or
    UTF-32 (Windows editors save "Unicode" so) is decoded and re-encoded as UTF-8,
    undecodable units becoming U+FFFD; anything else passes through as it is.
    """
    head = b""
    while len(head) < 4 and (more := stream.read(_BLOCK)):
        head += more
    encoding = next((enc for bom, enc in _BOMS if head.startswith(bom)), None)
    if encoding is None or encoding == "utf-8":
        if encoding == "utf-8":
            head = head[len(codecs.BOM_UTF8) :]
        if head:
            yield head
        yield from iter(partial(stream.read, _BLOCK), b"")
        return
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    for block in chain((head,), iter(partial(stream.read, _BLOCK), b"")):
        yield decoder.decode(block).encode("utf-8", "surrogatepass")
    yield decoder.decode(b"", final=True).encode("utf-8", "surrogatepass")


def _lines(stream: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """Lines as ``(bytes, length)``; an over-long line yields ``(b"", length)``.

    Any line ending counts: LF, CR LF, and a lone CR (old Mac files), so a carriage
    return never hides inside a record. ``length`` counts the line's bytes, its
    ending excluded; a line longer than :data:`MAX_RECORD` is over-long. Blocks are
    read with a cap on what is held, so one giant line never sits in memory whole.
    """
    carry = b""
    skipped = -1  # bytes of an over-long line seen so far; -1 when not in one
    for block in _blocks(stream):
        data = carry + block if carry else block
        start = 0
        if skipped >= 0:
            end = _LINE_END.search(data)
            if end is None:
                skipped += len(data)
                carry = b""
                continue
            yield b"", skipped + end.start()
            skipped, start = -1, end.end()
        lines = data[start:].splitlines(keepends=True)
        carry = lines.pop() if lines else b""
        if carry.endswith(b"\n"):  # complete; a final CR may still meet its LF
            lines.append(carry)
            carry = b""
        for line in lines:
            text = line.rstrip(b"\r\n")
            yield (b"", len(text)) if len(text) > MAX_RECORD else (text, len(text))
        if len(carry) > MAX_RECORD + 1:
            skipped, carry = len(carry.rstrip(b"\r")), b""
    if skipped >= 0:
        yield b"", skipped
    elif carry:
        text = carry.rstrip(b"\r")
        yield (b"", len(text)) if len(text) > MAX_RECORD else (text, len(text))


def _decode(raw: bytes) -> tuple[str, str | None]:
    """Text of a line, and an error when it holds bytes that are not UTF-8."""
    try:
        return raw.decode("ascii"), None
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), f"undecodable bytes at byte {exc.start + 1}"


def decode_text(data: bytes, name: str = "the input") -> str:
    """Text of a whole puzzle file or argument, read as every command reads datasets.

    The encoding comes from a byte-order mark (UTF-8 without one); a comment line
    (``#`` first) may hold any bytes, as in a dataset, where such lines are skipped;
    bytes that are not text elsewhere are an error naming the line and byte.

    Raises:
        PuzzleError: undecodable bytes outside comment lines.
    """
    lines = []
    for number, (raw, _length) in enumerate(_lines(io.BytesIO(data)), 1):
        text, error = _decode(raw)
        if error and not text.lstrip().startswith("#"):
            where = f"line {number}, {error.removeprefix('undecodable bytes at ')}"
            raise PuzzleError(f"cannot read {name}: bytes that are not UTF-8 text at {where}")
        lines.append(text)
    return "\n".join(lines)


def read_records(path: str) -> Iterator[Record]:
    """Stream the records of a dataset (.txt, .csv, .jsonl; optionally compressed).

    - .txt: one puzzle per line; blank lines and lines starting with ``#`` skipped.
    - .csv: the column ``puzzle``, ``quizzes`` or ``quiz`` (else the first) holds the
      puzzle; ``solution``/``solutions``, when present, the expected solution. A first
      row that holds a puzzle-like field is data, not a header.
    - .jsonl: one JSON object per line with ``puzzle`` (or ``quizzes``/``quiz``), and
      optionally ``solution``; a bare JSON string is a puzzle too.

    Memory stays flat: one line at a time. Bad lines become records with ``error``
    set, never exceptions, so a batch never loses or reorders a record.
    """
    with file_named(path), open_dataset(path) as (stream, kind):
        reader = {"txt": _txt_records, "csv": _csv_records, "jsonl": _jsonl_records}[kind]
        yield from reader(stream)


def _texts(stream: BinaryIO) -> Iterator[tuple[str | None, str | None]]:
    """The non-blank lines of a stream, stripped, each with the reason it is unusable.

    An over-long line comes as ``(None, reason)``: it is never decoded or kept. A line
    with bytes that are not UTF-8 comes decoded with U+FFFD, and its reason.
    """
    for raw, length in _lines(stream):
        if not raw and length:
            yield None, f"record of {length:,} bytes is too long (at most {MAX_RECORD:,})"
            continue
        text, error = _decode(raw)
        text = text.strip()
        if text:
            yield text, error


def _txt_records(stream: BinaryIO) -> Iterator[Record]:
    """One puzzle per line; or, after a ``Grid 01`` line, the lines up to the next one.

    The second is the Project Euler 96 layout (a header line, then nine lines of nine
    digits): its header lines separate the records, and each grid is one record.
    """
    index = 0
    block: list[str] | None = None  # the lines of the grid under the last header
    problem: str | None = None
    for text, error in _texts(stream):
        if text is not None and text.startswith("#"):
            continue
        if text is not None and GRID_HEADER.match(text):
            if block is not None:
                yield Record(index, "\n".join(block), None, problem)
                index += 1
            block, problem = [], None
            continue
        if block is None:
            yield Record(index, text or "", None, error)
            index += 1
        elif len(block) >= MAX_CSV_LINES:
            problem = f"a grid of more than {MAX_CSV_LINES} lines"
        else:
            block.append(text or "")
            problem = problem or error
    if block is not None:
        yield Record(index, "\n".join(block), None, problem)


def _is_header(fields: Sequence[str]) -> bool:
    """Whether a CSV's first row names its columns rather than holding a record.

    It does when it names a known column, or when every field is a name (a letter or
    ``_`` first, then letters, digits, ``_`` and spaces) and none could be a puzzle.
    Anything else, a malformed or short puzzle among it, is data: taking a record for
    a header would drop it and shift every index after it.
    """
    names = [f.strip().lower() for f in fields]
    if any(name in _PUZZLE_COLUMNS or name in _SOLUTION_COLUMNS for name in names):
        return True
    return all(not name or _NAME.match(name) for name in names) and not any(
        len(name) >= 16 and all(ch in _VALUE for ch in name) for name in names
    )


def _csv_lines(stream: BinaryIO) -> Iterator[tuple[str | None, str | None]]:
    """The lines of :func:`_texts`, with the line breaks of a quoted CSV field joined.

    A line with an odd number of quotes opens a field that goes on in the lines after
    it, up to :data:`MAX_CSV_LINES` of them. A quote that does not close within them
    was a stray one: the lines it took are read again, each a record of its own.
    """
    source = _texts(stream)
    ahead: deque[tuple[str | None, str | None]] = deque()
    while item := ahead.popleft() if ahead else next(source, None):
        text, error = item
        if text is None or text.count('"') % 2 == 0:
            yield item
            continue
        taken = [(text, error)]
        quotes = text.count('"')
        stop = None
        while quotes % 2 and len(taken) <= MAX_CSV_LINES:
            more = ahead.popleft() if ahead else next(source, None)
            if more is None or more[0] is None:
                stop = more
                break
            taken.append((more[0], more[1]))
            quotes += more[0].count('"')
        if quotes % 2 == 0:
            yield "\n".join(t for t, _ in taken), next((e for _, e in taken if e), None)
            continue
        yield item
        ahead.extendleft(reversed([*taken[1:], *([stop] if stop else [])]))


def _csv_records(stream: BinaryIO) -> Iterator[Record]:
    index = 0
    puzzle_col, solution_col = 0, None
    first = True
    for text, error in _csv_lines(stream):
        if text is None:
            yield Record(index, "", None, error)
            index += 1
            continue
        fields = next(csv.reader([text])) if '"' in text else text.split(",")
        if first:
            first = False
            if _is_header(fields):
                names = [f.strip().lower() for f in fields]
                found = next((names.index(c) for c in _PUZZLE_COLUMNS if c in names), None)
                solution_col = next((names.index(c) for c in _SOLUTION_COLUMNS if c in names), None)
                if found is None and solution_col is not None:
                    # The first column would be taken for the puzzles: an id, say.
                    raise DatasetError(
                        f"the CSV has a {names[solution_col]} column but no puzzle column "
                        f"({', '.join(_PUZZLE_COLUMNS)}); its columns are: "
                        + ", ".join(f.strip() for f in fields)
                    )
                puzzle_col = found or 0
                continue
        if puzzle_col >= len(fields):
            yield Record(index, text, None, f"no column {puzzle_col + 1} in this row")
        else:
            solution = (
                fields[solution_col].strip()
                if solution_col is not None and solution_col < len(fields)
                else None
            )
            yield Record(index, fields[puzzle_col].strip(), solution or None, error)
        index += 1


def _jsonl_records(stream: BinaryIO) -> Iterator[Record]:
    for index, (text, error) in enumerate(_texts(stream)):
        if text is None or error:
            yield Record(index, text or "", None, error)
        else:
            yield _json_record(index, text)


#: How a JSON value that is not a puzzle is named in a record's error.
_JSON_KINDS: dict[type, str] = {type(None): "null", dict: "an object", bool: "a boolean"}


def _json_record(index: int, text: str) -> Record:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return Record(index, text, None, f"malformed JSON: {exc.msg} at character {exc.pos + 1}")
    if isinstance(obj, str):
        return Record(index, obj)
    if isinstance(obj, dict):
        for key in _PUZZLE_COLUMNS:
            if key in obj:
                value = obj[key]
                if not isinstance(value, str | list):
                    # Read as text, null would be four symbols and {"a": 1} seven cells.
                    kind = _json_kind(value)
                    return Record(index, text, None, f'the "{key}" field is {kind}, not a puzzle')
                puzzle = value if isinstance(value, str) else json.dumps(value)
                solution = obj.get("solution", obj.get("solutions"))
                return Record(index, puzzle, solution if isinstance(solution, str) else None)
        return Record(index, text, None, 'JSON object has no "puzzle" field')
    if isinstance(obj, list):
        return Record(index, json.dumps(obj))
    return Record(index, text, None, "JSON record is neither a puzzle string nor an object")


def output_kind(path: str) -> str:
    """``"csv"``, ``"jsonl"`` or ``"parquet"`` from an output name (``-`` is CSV)."""
    lower = path.lower().rstrip("/")
    if lower.endswith(".parquet"):
        return "parquet"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "csv"


#: What makes a CSV field need quotes: the delimiter, a quote, and every control
#: character (CR and LF above all: unquoted, a reader would split the row there), and
#: the line breaks some readers take from Unicode (NEL, LS, PS).
_NEEDS_QUOTES = re.compile('[",\x00-\x1f\x7f\x85\u2028\u2029]')


def _csv_field(text: str) -> str:
    """``text`` as one CSV field: quoted (quotes doubled) when it needs to be."""
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def format_rows(rows: Sequence[Sequence[object]], kind: str) -> str:
    """Rows (in :data:`COLUMNS` order) as whole lines of CSV or JSONL text.

    Every row is one physical line in JSONL (JSON escapes control characters). In
    CSV a field holding a delimiter, a quote or any control character is quoted, as
    RFC 4180 says, so csv readers, pandas and ``--resume`` read each row back whole
    and exactly; the standard ``csv.writer`` leaves a lone carriage return unquoted
    when lines end in LF, and a reader then splits the row there.
    """
    if kind == "jsonl":
        return "".join(json.dumps(dict(zip(COLUMNS, row, strict=True))) + "\n" for row in rows)
    field = _csv_field
    return "".join(
        f"{index},{field(str(puzzle))},{status},{field(str(solution))},{field(str(backend))},"
        f"{seconds},{field(str(error)) if error else ''}\n"
        for index, puzzle, status, solution, backend, seconds, error in rows
    )
