"""f-puzzles import: the JSON of the f-puzzles.com editor, plain or as a share link.

A share link carries the JSON compressed with lz-string, base64-encoded, in its
``load=`` parameter; the ``lzstring`` package decompresses it. Every key of the rules
cpsudoku knows is mapped (:data:`RULE_KEYS`); the keys that only draw or describe the
puzzle are read past (:data:`IGNORED_KEYS`); any other key (a rule cpsudoku lacks, or
a cosmetic shape whose meaning lives in the rules text) refuses the puzzle by name, so
a rule is never dropped.

Cells are written ``R3C5`` (1-based); little killer and sandwich clues sit outside
the grid (row or column 0, or n + 1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from cpsudoku.model.constraints import (
    AntiKing,
    AntiKnight,
    Arrow,
    Cage,
    Candidates,
    Constraint,
    Even,
    KropkiBlack,
    KropkiWhite,
    LittleKiller,
    Negative,
    Odd,
    Palindrome,
    Renban,
    Sandwich,
    Thermometer,
    VMark,
    Whisper,
    XMark,
)
from cpsudoku.model.errors import PuzzleError, RulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import (
    Region,
    Rules,
    anti_diagonal,
    diagonal,
    disjoint_groups,
)

_CELL = re.compile(r"^R(\d+)C(\d+)$", re.IGNORECASE)

#: Keys that describe or draw the puzzle and say nothing of its rules.
IGNORED_KEYS = frozenset(
    {
        "size",
        "grid",
        "title",
        "author",
        "ruleset",
        "solution",
        "disabledlogic",
        "truecandidatesoptions",
        "fogofwar",
        "activeConstraints",
    }
)
#: Keys of a grid cell that are the solver's notes or colours, not rules.
IGNORED_CELL_KEYS = frozenset(
    {"c", "cArray", "highlight", "centerPencilMarks", "cornerPencilMarks", "candidates"}
)
#: Keys of a grid cell that are read: the given, its region, given candidates.
READ_CELL_KEYS = frozenset({"value", "given", "region", "givenPencilMarks"})
#: The f-puzzles keys of the rules cpsudoku reads (each mapped below).
RULE_KEYS = (
    "killercage", "littlekillersum", "sandwichsum", "arrow", "thermometer", "whispers",
    "renban", "palindrome", "difference", "ratio", "xv", "negative", "even", "odd",
    "extraregion", "diagonal+", "diagonal-", "antiknight", "antiking", "nonconsecutive",
    "disjointgroups",
)  # fmt: skip


def is_fpuzzles(obj: object) -> bool:
    """True for an f-puzzles object: a ``size`` and a ``grid`` of rows of cell objects."""
    if not isinstance(obj, Mapping) or "size" not in obj:
        return False
    grid = obj.get("grid")
    return (
        isinstance(grid, list)
        and bool(grid)
        and isinstance(grid[0], list)
        and all(isinstance(cell, Mapping) for cell in grid[0])
    )


def share_text(text: str) -> str | None:
    """The f-puzzles JSON text of a share link or its ``load=`` value, else None.

    Accepts ``https://f-puzzles.com/?load=N4Ig...`` (any host, for the mirrors) and the
    bare compressed string.

    Raises:
        PuzzleError: the ``lzstring`` package is missing, or the string does not
            decompress to JSON.
    """
    stripped = text.strip()
    if "load=" in stripped:
        query = parse_qs(urlparse(stripped).query)
        values = query.get("load") or [stripped.split("load=", 1)[1].split("&")[0]]
        payload = unquote(values[0]).replace(" ", "+")
    elif stripped.startswith("N4Ig") and " " not in stripped:
        payload = stripped
    else:
        return None
    try:
        import lzstring
    except ImportError:  # pragma: no cover - a dependency of the package
        raise PuzzleError("reading f-puzzles links needs the lzstring package") from None
    try:
        decoded = lzstring.LZString().decompressFromBase64(payload)
    except Exception:  # the decompressor raises bare errors on garbage
        decoded = None
    if not decoded or not decoded.lstrip().startswith("{"):
        raise PuzzleError(
            "the f-puzzles link does not decompress to a puzzle: it may be cut short or "
            "garbled; copy the whole link"
        )
    return str(decoded)


def from_fpuzzles(obj: Mapping[str, Any]) -> Puzzle:
    """The puzzle of an f-puzzles object: its givens and every rule it sets.

    Raises:
        RulesError: a key of a rule cpsudoku does not take (named), or a malformed one.
        PuzzleError: a malformed grid.
    """
    size = obj.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise PuzzleError(f"an f-puzzles size is a positive whole number, not {size!r}")
    n = size
    unknown = [k for k in obj if k not in IGNORED_KEYS and k not in RULE_KEYS and obj[k]]
    if unknown:
        raise RulesError(
            f"f-puzzles key {unknown[0]!r} is a rule cpsudoku does not take (it reads: "
            f"{', '.join(RULE_KEYS)})"
        )
    grid = obj["grid"]
    if len(grid) != n or any(not isinstance(row, list) or len(row) != n for row in grid):
        raise PuzzleError(f"an f-puzzles grid of size {n} has {n} rows of {n} cells")
    base = Rules.for_size(n)
    values = [0] * (n * n)
    regions: dict[int, list[int]] = {}
    custom_regions = False
    constraints: list[Constraint] = []
    candidate_cells: list[int] = []
    candidate_masks: list[str] = []
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            i = r * n + c
            where = f"f-puzzles cell R{r + 1}C{c + 1}"
            if not isinstance(cell, Mapping):
                raise PuzzleError(f"{where} is not an object")
            unread = sorted(set(cell) - IGNORED_CELL_KEYS - READ_CELL_KEYS)
            if unread:
                raise RulesError(f"{where}: key {unread[0]!r} is not one cpsudoku reads")
            if cell.get("given") and cell.get("value") is not None:
                values[i] = _number(cell["value"], where, 1, n)
            region = cell.get("region")
            if region is None:
                region = base.box_of(r, c)
            else:
                custom_regions = True
                region = _number(region, f"{where}'s region", 0, n - 1)
            regions.setdefault(region, []).append(i)
            marks = cell.get("givenPencilMarks")
            if marks:
                digits = [_number(m, f"{where}'s pencil marks", 1, n) for m in marks]
                candidate_cells.append(i)
                candidate_masks.append("".join(base.symbol(d) for d in sorted(set(digits))))
    rules = base
    if custom_regions:
        parts = [tuple(regions[k]) for k in sorted(regions)]
        boxes = sorted(tuple(u.cells) for u in base.units[2 * n : 3 * n])  # rows, cols, boxes
        if sorted(parts) != boxes:
            rules = Rules.jigsaw(parts)
    extra: list[Region] = []
    if obj.get("diagonal-"):
        extra.append(diagonal(n))
    if obj.get("diagonal+"):
        extra.append(anti_diagonal(n))
    if obj.get("disjointgroups"):
        extra.extend(disjoint_groups(rules))
    for k, item in enumerate(_items(obj, "extraregion")):
        extra.append(Region("region", tuple(_cells(item.get("cells"), n, f"extraregion {k}"))))
    for key, rule in (("antiknight", AntiKnight), ("antiking", AntiKing)):
        if obj.get(key):
            constraints.append(rule.of(n))
    constraints.extend(_mapped(obj, n))
    if candidate_cells:
        constraints.append(
            Candidates.from_spec(
                {"kind": "candidates", "cells": candidate_cells, "values": candidate_masks}, n
            )
        )
    if extra:
        rules = rules.with_extra(*extra)
    if constraints:
        rules = rules.with_constraints(*constraints)
    return Puzzle(rules, tuple(values))


def _mapped(obj: Mapping[str, Any], n: int) -> list[Constraint]:
    """The constraints of the list-valued rule keys."""
    out: list[Constraint] = []
    for k, item in enumerate(_items(obj, "killercage")):
        cells = _cells(item.get("cells"), n, f"killercage {k}")
        total = _optional_number(item.get("value"), f"killercage {k}'s sum")
        out.append(Cage.checked(cells, total, n))
    for k, item in enumerate(_items(obj, "littlekillersum")):
        total = _optional_number(item.get("value"), f"littlekillersum {k}")
        if total is None:
            continue  # an arrow drawn without its sum says nothing
        cells = _little_killer_cells(item, n, k)
        out.append(
            LittleKiller.from_spec({"kind": "little-killer", "cells": cells, "sum": total}, n)
        )
    for k, item in enumerate(_items(obj, "sandwichsum")):
        total = _optional_number(item.get("value"), f"sandwichsum {k}")
        if total is None:
            continue
        r, c = _position(item.get("cell"), n, f"sandwichsum {k}", outside=True)
        if r in (0, n + 1) and 1 <= c <= n:
            spec = {"kind": "sandwich", "column": c, "sum": total}
        elif c in (0, n + 1) and 1 <= r <= n:
            spec = {"kind": "sandwich", "row": r, "sum": total}
        else:
            raise RulesError(f"sandwichsum {k} is not beside a row or a column")
        out.append(Sandwich.from_spec(spec, n))
    for k, item in enumerate(_items(obj, "arrow")):
        circle = _cells(item.get("cells"), n, f"arrow {k}'s circle")
        for line in _lines(item, n, f"arrow {k}"):
            shaft = [i for i in line if i not in circle]
            if shaft:
                out.append(Arrow.from_spec({"kind": "arrow", "circle": circle, "cells": shaft}, n))
    lines: tuple[tuple[str, Callable[[Mapping[str, Any], int], Constraint]], ...] = (
        ("thermometer", Thermometer.from_spec),
        ("whispers", Whisper.from_spec),
        ("palindrome", Palindrome.from_spec),
        ("renban", Renban.from_spec),
    )
    for key, make in lines:
        kind = {"whispers": "whisper"}.get(key, key)
        for k, item in enumerate(_items(obj, key)):
            for line in _lines(item, n, f"{key} {k}"):
                if len(line) > 1 or kind == "renban":
                    out.append(make({"kind": kind, "cells": line}, n))
    dots: tuple[tuple[str, str, Callable[[str | None], str | None]], ...] = (
        ("difference", "kropki-white", lambda v: None if v in (None, "", "1") else v),
        ("ratio", "kropki-black", lambda v: None if v in (None, "", "2") else v),
    )
    for key, kind, odd_value in dots:
        for k, item in enumerate(_items(obj, key)):
            value = item.get("value")
            if odd_value(None if value is None else str(value)) is not None:
                raise RulesError(
                    f"f-puzzles {key} {k} with value {value!r} is not a rule cpsudoku takes"
                )
            cells = _cells(item.get("cells"), n, f"{key} {k}")
            out.append(
                (KropkiWhite if kind == "kropki-white" else KropkiBlack).from_spec(
                    {"kind": kind, "cells": cells}, n
                )
            )
    for k, item in enumerate(_items(obj, "xv")):
        value = str(item.get("value", "")).upper()
        if value not in ("X", "V"):
            raise RulesError(f"f-puzzles xv {k} has value {item.get('value')!r}, not X or V")
        rule = XMark if value == "X" else VMark
        out.append(
            rule.from_spec({"kind": rule.kind, "cells": _cells(item.get("cells"), n, f"xv {k}")}, n)
        )
    for kind, parity in (("even", Even), ("odd", Odd)):
        cells = [
            _cell(item.get("cell"), n, f"{kind} {k}") for k, item in enumerate(_items(obj, kind))
        ]
        if cells:
            out.append(parity.from_spec({"kind": kind, "cells": cells}, n))
    out.extend(_negatives(obj, n))
    return out


#: The dots and marks that exempt a pair from each f-puzzles negative rule: a white or
#: a black dot from both kropki negatives (f-puzzles and the solvers setters use with
#: it read them so), an X or a V from both XV negatives.
_KROPKI = ["kropki-white", "kropki-black"]
_XV = ["x", "v"]


def _negatives(obj: Mapping[str, Any], n: int) -> list[Constraint]:
    """The negative rules: ``nonconsecutive`` and the names listed under ``negative``.

    ``nonconsecutive`` is the negative rule of the white dots (difference 1), not a
    grid-wide rule: a pair holding a white or a black dot is exempt. ``negative:
    ["ratio"]`` forbids, between orthogonal neighbours without a dot, every ratio the
    grid's black dots use (2 when there are none); ``["xv"]`` forbids sums of 5 and 10
    between neighbours without an X or a V (kropki dots exempt nothing there).
    """
    negatives = obj.get("negative") or []
    if not isinstance(negatives, list):
        raise RulesError("f-puzzles negative is a list of names")
    unknown = [name for name in negatives if name not in ("ratio", "xv")]
    if unknown:
        raise RulesError(f"f-puzzles negative {unknown[0]!r} is not a rule cpsudoku takes")
    specs: list[dict[str, Any]] = []
    if obj.get("nonconsecutive"):
        specs.append({"kind": "negative", "of": "kropki-white", "exempt": _KROPKI})
    if "ratio" in negatives:
        ratios = {
            _optional_number(item.get("value"), f"ratio {k}") or 2
            for k, item in enumerate(_items(obj, "ratio"))
        } or {2}
        specs.append(
            {"kind": "negative", "of": "kropki-black", "values": sorted(ratios), "exempt": _KROPKI}
        )
    if "xv" in negatives:
        specs.extend({"kind": "negative", "of": of, "exempt": _XV} for of in _XV)
    return [Negative.from_spec(spec, n) for spec in specs]


def _items(obj: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """The list of objects under ``key`` (none when absent)."""
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise RulesError(f"f-puzzles {key} is a list of objects")
    return value


def _lines(item: Mapping[str, Any], n: int, what: str) -> list[list[int]]:
    """The cells of each of an item's ``lines``."""
    lines = item.get("lines")
    if not isinstance(lines, list):
        raise RulesError(f"f-puzzles {what} has no lines")
    return [_cells(line, n, what) for line in lines]


def _position(text: object, n: int, what: str, *, outside: bool = False) -> tuple[int, int]:
    """``R3C5`` as (3, 5); rows and columns 0 and n + 1 too when ``outside``."""
    match = _CELL.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise RulesError(f"f-puzzles {what}: {text!r} is no cell (R1C1)")
    r, c = int(match.group(1)), int(match.group(2))
    low, high = (0, n + 1) if outside else (1, n)
    if not (low <= r <= high and low <= c <= high):
        raise RulesError(f"f-puzzles {what}: {text} is off the grid")
    return r, c


def _cell(text: object, n: int, what: str) -> int:
    r, c = _position(text, n, what)
    return (r - 1) * n + c - 1


def _cells(value: object, n: int, what: str) -> list[int]:
    if not isinstance(value, list):
        raise RulesError(f"f-puzzles {what}: cells are a list")
    return [_cell(v, n, what) for v in value]


_STEPS = {"DR": (1, 1), "DL": (1, -1), "UR": (-1, 1), "UL": (-1, -1)}


def _little_killer_cells(item: Mapping[str, Any], n: int, k: int) -> list[int]:
    """The diagonal a little killer clue points along, worked out from its place."""
    r, c = _position(item.get("cell"), n, f"littlekillersum {k}", outside=True)
    step = _STEPS.get(str(item.get("direction", "")).upper())
    if step is None:
        raise RulesError(f"f-puzzles littlekillersum {k} has no direction (DR, DL, UR, UL)")
    cells = []
    r, c = r + step[0], c + step[1]
    while 1 <= r <= n and 1 <= c <= n:
        cells.append((r - 1) * n + c - 1)
        r, c = r + step[0], c + step[1]
    if not cells:
        raise RulesError(f"f-puzzles littlekillersum {k} points at no cell")
    return cells


def _number(value: object, what: str, low: int, high: int) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise RulesError(f"{what}: {value!r} is no number") from None
    if not low <= number <= high:
        raise RulesError(f"{what}: {number} is not one of {low}..{high}")
    return number


def _optional_number(value: object, what: str) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise RulesError(f"f-puzzles {what}: {value!r} is no number") from None


def parse_fpuzzles_text(text: str) -> Puzzle | None:
    """The puzzle of f-puzzles JSON text or a share link, or None for other text."""
    shared = share_text(text)
    if shared is not None:
        text = shared
    elif not text.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return from_fpuzzles(obj) if is_fpuzzles(obj) else None
