"""Parse every accepted text form into a :class:`~cpsudoku.model.rules.Puzzle`, and format back.

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
import json
import math
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Union

from cpsudoku.model.constraints import Candidates
from cpsudoku.model.errors import (
    BoxShapeError,
    PuzzleError,
    UnknownSymbolError,
    ValueOutOfRangeError,
    WrongLengthError,
)
from cpsudoku.model.exchange import from_exchange, is_exchange
from cpsudoku.model.fpuzzles import from_fpuzzles, is_fpuzzles, parse_fpuzzles_text
from cpsudoku.model.links import is_link, read_link
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import SYMBOLS, Rules, as_rules
from cpsudoku.model.text import decode_text

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
_SPLIT = re.compile(r"[\s,;]+")
_SEPARATORS = re.compile(r"[,;]")


class AmbiguousZeroWarning(UserWarning):
    """A 16x16 line writes 0 and no other empty marker: perhaps 0-F are its digits.

    Read so, 0 is an empty cell and a different puzzle is solved; ``symbols=`` (the
    ``--symbols`` option) says what the symbols are.
    """


def parse(
    data: PuzzleLike,
    box: str | Rules | None = None,
    *,
    check: bool = True,
    symbols: str | None = None,
) -> Puzzle:
    """Parse a puzzle from any accepted form.

    Args:
        data: puzzle text (``bytes`` are decoded: UTF-8, or UTF-16/32 by their
            byte-order mark), a list of rows, a flat list of ints, or a Puzzle.
        box: box shape (``"2x3"``) or Rules; inferred from the size when None.
        check: raise :class:`~cpsudoku.model.errors.ConflictingGivensError` when two givens
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
    geom = as_rules(box)
    if isinstance(data, Puzzle):  # its own rules: symbols need only be as many as its values
        if geom is not None and geom != data.rules:
            raise BoxShapeError(f"puzzle is {data.rules}, not {geom}")
        if symbols is not None:
            symbols_geometry(symbols, data.rules)
        return data.check() if check else data
    if symbols is not None:
        geom = symbols_geometry(symbols, geom)
    if isinstance(data, str):
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


def _geometry_for_length(length: int, geom: Rules | None, what: str) -> Rules:
    """The rules for ``length`` cells; ``what`` names the count in messages."""
    if geom is not None:
        if length != geom.cells:
            raise WrongLengthError(f"a {geom} grid has {geom.cells} cells, got {length} {what}")
        return geom
    n = math.isqrt(length)
    if length == 0:
        raise WrongLengthError("empty input: no cells found")
    if length == 1:
        # A 1x1 grid is no Sudoku a dataset holds: a lone character is a stray one.
        raise WrongLengthError(
            f"got 1 {what[:-1] if what.endswith('s') else what}: a 1x1 grid is no Sudoku "
            "(give the box shape 1x1 to solve one)"
        )
    if n * n != length:
        below, above = n * n, (n + 1) * (n + 1)
        nearest = f"{below} for {n}x{n}, " if n > 1 else ""
        raise WrongLengthError(
            f"got {length} {what}, which is not the cell count of a square grid "
            f"(nearest: {nearest}{above} for {n + 1}x{n + 1})"
        )
    return Rules.for_size(n)


def _parse_text(text: str, geom: Rules | None, symbols: str | None = None) -> Puzzle:
    if len(text) > MAX_TEXT:
        raise WrongLengthError(
            f"input of {len(text):,} characters is too large (at most {MAX_TEXT:,})"
        )
    stripped = text.strip()
    if len(stripped) == 729 and (sukaku := _sukaku(stripped, geom)) is not None:
        return sukaku
    if stripped.startswith("["):
        return _parse_sequence(_list_literal(stripped), geom, symbols)
    if stripped.startswith("{"):
        return _parse_text_object(stripped, geom, symbols)
    if is_link(stripped):
        return read_link(stripped)
    if stripped.startswith("N4Ig") and (shared := parse_fpuzzles_text(stripped)) is not None:
        return shared  # the compressed part of an f-puzzles share link, on its own
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


def _sukaku(text: str, geom: Rules | None) -> Puzzle | None:
    """A 9x9 puzzle given as candidates (Sukaku): 729 characters, nine per cell.

    Cell after cell, each digit in its place (``1`` first) or ``.``/``0`` where it is
    not a candidate, as Sukaku files write them. None when the text is not that form
    (a 27x27 one-line puzzle has 729 symbols too, but not digits in their places).

    Raises:
        PuzzleError: a cell left without any candidate.
    """
    if geom is not None and geom.n != 9:
        return None
    if any(ch not in ".0" and ch != "123456789"[k % 9] for k, ch in enumerate(text)):
        return None
    masks = [sum(1 << d for d in range(9) if text[9 * i + d] not in ".0") for i in range(81)]
    if 0 in masks:
        i = masks.index(0)
        raise PuzzleError(f"r{i // 9 + 1}c{i % 9 + 1} has no candidate in the Sukaku form")
    narrowed = [i for i in range(81) if masks[i] != 0x1FF]
    rules = geom or Rules.for_size(9)
    if narrowed:
        rules = rules.with_constraints(
            Candidates(9, tuple(narrowed), tuple(masks[i] for i in narrowed))
        )
    return Puzzle(rules, (0,) * 81)


def _parse_text_object(text: str, geom: Rules | None, symbols: str | None) -> Puzzle:
    """A one-puzzle JSON object: its puzzle is under one of :data:`PUZZLE_KEYS`.

    ``{"board": [[...]]}`` (a LeetCode board) or ``{"puzzle": "..."}``, as a dataset's
    JSON lines hold them; with ``"rules"`` (a :meth:`Rules.spec` object: a jigsaw,
    extra regions, killer cages...) the puzzle is read under those rules, which take
    the place of ``geom``. The other keys are left alone. docs/puzzle.schema.json
    describes the form.
    """
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleError(
            f"cannot read the JSON object: {exc.msg} at character {exc.pos + 1}"
        ) from None
    if not isinstance(obj, dict):
        raise PuzzleError("a JSON puzzle is an object with a puzzle key, a list or a string")
    if is_fpuzzles(obj):  # the f-puzzles editor's JSON: its own rules
        return from_fpuzzles(obj)
    if is_exchange(obj):  # pencilmark's sudoku-puzzle exchange format
        return from_exchange(obj)
    key = next((k for k in PUZZLE_KEYS if k in obj), None)
    if key is None:
        raise PuzzleError(
            f"the JSON object has no puzzle: give it one of the keys {', '.join(PUZZLE_KEYS)}"
            + (f" (its keys: {', '.join(map(str, list(obj)[:8]))})" if obj else "")
        )
    value = obj[key]
    if "rules" in obj:
        geom = Rules.from_spec(obj["rules"])
    if isinstance(value, str):
        return _parse_text(value, geom, symbols)
    if isinstance(value, list):
        return _parse_sequence(value, geom, symbols)
    raise PuzzleError(f'the "{key}" field is {json_kind(value)}, not a puzzle')


#: How a JSON value that is not a puzzle is named in messages.
_JSON_KINDS: dict[type, str] = {type(None): "null", dict: "an object", bool: "a boolean"}


def json_kind(value: object) -> str:
    """How a JSON value that is not a puzzle is named in messages."""
    return _JSON_KINDS.get(type(value), "a number")


def is_symbol(ch: str) -> bool:
    """True for a character of the default one-line form: a value or an empty cell."""
    return ch in _VALUE


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


def symbols_geometry(symbols: str, geom: Rules | None) -> Rules:
    """The classic rules a symbol alphabet implies (its length is the side), checked.

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
    return Rules.for_size(len(symbols))


def _parse_digit_tokens(text: str, tokens: list[str], geom: Rules | None) -> Puzzle:
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


def _parse_symbols(text: str, geom: Rules | None, symbols: str | None = None) -> Puzzle:
    lookup = _VALUE if symbols is None else _lookup(symbols)
    if text and not _LAYOUT_CHARS.search(text):
        # One line of symbols, the form of every dataset: a dict lookup per character.
        # Anything wrong falls through to the slow path, which says exactly what.
        values = [lookup.get(ch, -1) for ch in text]
        n = math.isqrt(len(values))
        if (n * n == len(values) and n > 1 and geom is None) or (
            geom is not None and len(values) == geom.cells
        ):
            g = geom or Rules.for_size(n)
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
        g = Rules.classic(*drawn)  # the boxes the grid draws, e.g. 3x2 rather than 2x3
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


def _content_lines(lines: list[str], geom: Rules | None) -> list[str]:
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
            g = geom or Rules.for_size(width)
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
    data: Sequence[object], geom: Rules | None, symbols: str | None = None
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


def _from_values(values: list[int], geom: Rules | None, what: str) -> Puzzle:
    """A Puzzle from integer values; the Puzzle itself checks the range (0 = empty)."""
    return Puzzle(_geometry_for_length(len(values), geom, what), tuple(values))


def as_puzzle(data: PuzzleLike, box: str | Rules | None = None) -> Puzzle:
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
