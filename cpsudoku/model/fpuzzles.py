"""f-puzzles import and export: the JSON of the f-puzzles.com editor, plain or as a link.

A share link carries the JSON compressed with lz-string, base64-encoded, in its
``load=`` parameter; the ``lzstring`` package (de)compresses it. Every rule key is read
by the rule family that registered it (:mod:`cpsudoku.model.constraints.fpuzzles_io`),
with the meaning f-puzzles and the solver setters use with it give it; this module
reads the grid (givens, regions, given candidates) and the keys that are no rules:

- keys that only describe the puzzle or steer a solver (``title``, ``solution``,
  ``disabledlogic``...) are read past; a stored ``solution`` is kept to be checked
  against the answer;
- keys that only draw (``text``, ``line``, ``rectangle``, ``circle``, a ``cage`` with
  no digital root, a cell's ``parity``...) are read past with one warning naming them,
  since the rules text may carry a rule cpsudoku cannot see in them; drawing copies the
  userscript tags ``fromConstraint`` are skipped without a word;
- any other key refuses the puzzle by name: a rule is never dropped.

Digits filled in but not ``given`` are a solver's entries, not givens, as f-puzzles'
solvers treat them for uniqueness; they are left out (and counted) unless asked for.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlparse

from cpsudoku.model.constraints import SYMBOLS, Candidates, Constraint
from cpsudoku.model.constraints.fpuzzles_io import READERS, WRITERS, Reading, Writing
from cpsudoku.model.errors import PuzzleError, RulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules, anti_diagonal, diagonal, disjoint_groups


class FpuzzlesWarning(UserWarning):
    """Something a setter should know about how an f-puzzles puzzle was read."""


#: Keys that describe the puzzle or steer a solver, and say nothing of its rules.
DESCRIBING_KEYS = frozenset(
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
        "foglight",
    }
)
#: Keys that only draw (their meaning, if any, lives in the rules text).
COSMETIC_KEYS = frozenset({"text", "line", "rectangle", "circle", "cage"})
#: The flags that are no-repeat regions, not constraints.
REGION_KEYS = ("diagonal+", "diagonal-", "disjointgroups", "extraregion")
#: Keys of a grid cell that are notes, colours or drawings, not rules.
IGNORED_CELL_KEYS = frozenset(
    {"c", "cArray", "highlight", "centerPencilMarks", "cornerPencilMarks", "candidates"}
)
#: Keys of a grid cell that are read: the digit, whether it is given, its region,
#: given candidates; and a drawing (parity) that is noted.
READ_CELL_KEYS = frozenset({"value", "given", "region", "givenPencilMarks", "parity"})


@dataclass(frozen=True)
class FpuzzlesPuzzle:
    """An f-puzzles puzzle as read.

    Attributes:
        puzzle: its givens and rules.
        notes: what a setter should know of the reading (drawings read past, clues
            f-puzzles' solvers skip, filled digits left out).
        filled: digits filled in but not given, left out of the givens (0 with
            ``include_filled``).
        solution: the stored solution (``solution`` key), row-major, or None.
        title: the puzzle's title, or "".
        author: its author, or "".
        ruleset: its rules text, or "".
    """

    puzzle: Puzzle
    notes: tuple[str, ...] = ()
    filled: int = 0
    solution: tuple[int, ...] | None = None
    title: str = ""
    author: str = ""
    ruleset: str = ""


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
    return decompress(payload, "the f-puzzles link")


def decompress(payload: str, what: str) -> str:
    """lz-string base64 ``payload`` decompressed to JSON text.

    Raises:
        PuzzleError: it does not decompress to a JSON object.
    """
    # SudokuPad's reader's own decompressor: the lzstring package's looks each
    # character up in its alphabet anew, which made it most of a link's reading time.
    from cpsudoku.model.lzstring import decompress as lz_decompress

    try:
        decoded = lz_decompress(payload)
    except Exception:  # garbage may break the decompressor anywhere
        decoded = None
    if not decoded or not decoded.lstrip().startswith("{"):
        raise PuzzleError(
            f"{what} does not decompress to a puzzle: it may be cut short or garbled; "
            "copy the whole link"
        )
    return str(decoded)


def read_fpuzzles(obj: Mapping[str, Any], *, include_filled: bool = False) -> FpuzzlesPuzzle:
    """An f-puzzles object's puzzle, read as f-puzzles' solvers read it.

    Args:
        obj: the f-puzzles JSON object.
        include_filled: keep digits filled in but not given as givens.

    Raises:
        RulesError: a key of a rule cpsudoku does not take (named), or a malformed one.
        PuzzleError: a malformed grid.
    """
    size = obj.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise PuzzleError(f"an f-puzzles size is a positive whole number, not {size!r}")
    n = size
    known = DESCRIBING_KEYS | COSMETIC_KEYS | set(REGION_KEYS) | set(READERS)
    unknown = [k for k in obj if k not in known and obj[k]]
    if unknown:
        raise RulesError(
            f"f-puzzles key {unknown[0]!r} is a rule cpsudoku does not take (it reads: "
            f"{', '.join(sorted(READERS))}, {', '.join(REGION_KEYS)})"
        )
    reading = Reading(obj, n)
    values, regions, masks, filled, parity = _grid(obj, n, include_filled)
    rules = _regions(regions, n)
    extra: list[Region] = []
    if obj.get("diagonal-"):
        extra.append(diagonal(n))
    if obj.get("diagonal+"):
        extra.append(anti_diagonal(n))
    if obj.get("disjointgroups"):
        extra.extend(_disjoint(rules))
    for k, item in enumerate(reading.items("extraregion")):
        extra.append(Region("region", tuple(reading.cells(item.get("cells"), f"extraregion {k}"))))
    constraints: list[Constraint] = []
    for key in obj:
        if key in READERS and obj[key]:
            constraints.extend(READERS[key](reading, key))
    if masks:
        constraints.append(
            Candidates.from_spec(
                {"kind": "candidates", "cells": list(masks), "values": list(masks.values())}, n
            )
        )
    cosmetic = sorted(k for k in COSMETIC_KEYS if _drawn(reading, k))
    if parity:
        cosmetic.append("a cell's parity")
    if cosmetic:
        reading.note(
            f"read past drawings that set no rule cpsudoku sees: {', '.join(cosmetic)}; "
            "check the rules text for a rule they carry"
        )
    if filled:
        reading.note(
            f"{filled} filled digit{'s' * (filled != 1)} not marked given left out, as "
            "f-puzzles' solvers leave them (keep them: --include-filled)"
        )
    if extra:
        rules = rules.with_extra(*extra)
    if constraints:
        rules = rules.with_constraints(*constraints)
    return FpuzzlesPuzzle(
        Puzzle(rules, tuple(values)),
        tuple(reading.notes),
        filled,
        _solution(obj.get("solution"), n),
        str(obj.get("title") or ""),
        str(obj.get("author") or ""),
        str(obj.get("ruleset") or ""),
    )


def from_fpuzzles(obj: Mapping[str, Any], *, include_filled: bool = False) -> Puzzle:
    """The puzzle of an f-puzzles object; what a setter should know comes as warnings.

    Raises:
        RulesError: a key of a rule cpsudoku does not take (named), or a malformed one.
        PuzzleError: a malformed grid.
    """
    read = read_fpuzzles(obj, include_filled=include_filled)
    for note in read.notes:
        warnings.warn(note, FpuzzlesWarning, stacklevel=2)
    return read.puzzle


def _grid(
    obj: Mapping[str, Any], n: int, include_filled: bool
) -> tuple[list[int], dict[int, int | None], dict[int, str], int, bool]:
    """The grid's keys: givens, regions, given candidates, filled digits, parity.

    Each cell's region is its number, None for no region, absent for its box.
    """
    grid = obj.get("grid")
    if not isinstance(grid, list) or len(grid) != n:
        raise PuzzleError(f"an f-puzzles grid of size {n} has {n} rows of {n} cells")
    values = [0] * (n * n)
    regions: dict[int, int | None] = {}
    masks: dict[int, str] = {}
    filled = 0
    parity = False
    for r, row in enumerate(grid):
        if not isinstance(row, list) or len(row) != n:
            raise PuzzleError(f"an f-puzzles grid of size {n} has {n} rows of {n} cells")
        for c, cell in enumerate(row):
            i = r * n + c
            where = f"f-puzzles cell R{r + 1}C{c + 1}"
            if not isinstance(cell, Mapping):
                raise PuzzleError(f"{where} is not an object")
            unread = sorted(set(cell) - IGNORED_CELL_KEYS - READ_CELL_KEYS)
            if unread:
                raise RulesError(f"{where}: key {unread[0]!r} is not one cpsudoku reads")
            value = cell.get("value")
            if value not in (None, 0, ""):
                digit = _number(value, where, 1, n)
                if cell.get("given") or include_filled:
                    values[i] = digit
                else:
                    filled += 1
            if "region" in cell:
                region = cell["region"]
                regions[i] = (
                    None if region is None else _number(region, f"{where}'s region", 0, n - 1)
                )
            parity = parity or bool(cell.get("parity"))
            marks = cell.get("givenPencilMarks")
            if marks:
                digits = sorted({_number(m, f"{where}'s given candidates", 1, n) for m in marks})
                masks[i] = "".join(SYMBOLS[d - 1] for d in digits)
    return values, regions, masks, filled, parity


def _regions(regions: dict[int, int | None], n: int) -> Rules:
    """The grid's rules: f-puzzles' default boxes, or the cells' own regions.

    A cell with no ``region`` key is in its default box; ``null`` puts it in no region.
    Every region used must have n cells (f-puzzles' solvers refuse the puzzle too).
    """
    base = Rules.for_size(n)
    if not regions:
        return base
    groups: dict[int, list[int]] = {}
    for i in range(n * n):
        region = regions.get(i, -1)
        if region == -1:
            region = base.box_of(i // n, i % n)
        if region is not None:
            groups.setdefault(region, []).append(i)
    parts = [tuple(groups[k]) for k in sorted(groups)]
    for k, part in zip(sorted(groups), parts, strict=True):
        if len(part) != n:
            raise RulesError(f"f-puzzles region {k + 1} has {len(part)} cells, not {n}")
    boxes = sorted(base.unit_cells[2 * n : 3 * n])
    if sorted(parts) == boxes:
        return base
    return Rules.jigsaw(parts)


def _disjoint(rules: Rules) -> tuple[Region, ...]:
    """Disjoint groups: the k-th cell, in reading order, of every box or region."""
    if rules.box is not None:
        return disjoint_groups(rules)
    n = rules.n
    regions = [sorted(r) for r in rules.regions]
    if len(regions) != n:
        raise RulesError("disjoint groups need every cell in a region")
    return tuple(Region("disjoint group", tuple(r[k] for r in regions)) for k in range(n))


def _drawn(reading: Reading, key: str) -> bool:
    """True when a cosmetic key draws something that is not a rule's own copy."""
    value = reading.obj.get(key)
    if not value:
        return False
    if key == "cage":  # a cage with a digital root is a rule (read by its family)
        return any(
            isinstance(item, Mapping)
            and not item.get("fromConstraint")
            and "DR" not in str(item.get("value", "")).upper()
            for item in value
        )
    if not isinstance(value, list):
        return True
    return any(not (isinstance(item, Mapping) and item.get("fromConstraint")) for item in value)


def _solution(value: object, n: int) -> tuple[int, ...] | None:
    """A stored solution (a list of n*n digits, or a digit string), or None."""
    if isinstance(value, str):
        value = [SYMBOLS.find(ch.upper()) + 1 for ch in value.strip()]
    if not isinstance(value, list) or len(value) != n * n:
        return None
    try:
        digits = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        return None
    return digits if all(1 <= d <= n for d in digits) else None


def _number(value: object, what: str, low: int, high: int) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise RulesError(f"{what}: {value!r} is no number") from None
    if not low <= number <= high:
        raise RulesError(f"{what}: {number} is not one of {low}..{high}")
    return number


def read_fpuzzles_text(text: str, *, include_filled: bool = False) -> FpuzzlesPuzzle | None:
    """An f-puzzles puzzle from its JSON text or a share link, or None for other text.

    Raises:
        RulesError, PuzzleError: it is f-puzzles data but cannot be read (named).
    """
    shared = share_text(text)
    if shared is not None:
        text = shared
    elif not text.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return read_fpuzzles(obj, include_filled=include_filled) if is_fpuzzles(obj) else None


def parse_fpuzzles_text(text: str, *, include_filled: bool = False) -> Puzzle | None:
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
    return from_fpuzzles(obj, include_filled=include_filled) if is_fpuzzles(obj) else None


# ---------------------------------------------------------------------------- export


def to_fpuzzles(
    puzzle: Puzzle,
    *,
    title: str = "",
    author: str = "",
    ruleset: str = "",
    solution: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The f-puzzles object of ``puzzle``: givens, regions, and every rule's key.

    Reading it back gives the same rules (tested for every kind with a key).

    Raises:
        RulesError: a rule f-puzzles has no key for (named).
    """
    rules = puzzle.rules
    n = rules.n
    grid: list[list[dict[str, Any]]] = [[{} for _ in range(n)] for _ in range(n)]
    for i, v in enumerate(puzzle.cells):
        if v:
            grid[i // n][i % n].update(value=v, given=True)
    if rules.box is None:
        covered = set()
        for k, region in enumerate(rules.regions):
            for i in region:
                grid[i // n][i % n]["region"] = k
                covered.add(i)
        for i in range(n * n):
            if i not in covered:
                grid[i // n][i % n]["region"] = None
    elif rules.box != Rules.for_size(n).box:
        for k, box in enumerate(rules.unit_cells[2 * n : 3 * n]):
            for i in box:
                grid[i // n][i % n]["region"] = k
    obj: dict[str, Any] = {"size": n, "grid": grid}
    for key, value in (("title", title), ("author", author), ("ruleset", ruleset)):
        if value:
            obj[key] = value
    if solution is not None:
        obj["solution"] = list(solution)
    out = Writing(n, obj)
    _write_regions(rules, out)
    for c in rules.constraints:
        if isinstance(c, Candidates):
            for i, mask in c.masks():
                grid[i // n][i % n]["givenPencilMarks"] = [
                    d for d in range(1, n + 1) if mask >> (d - 1) & 1
                ]
            continue
        writer = WRITERS.get(type(c))
        if writer is None:
            raise RulesError(f"f-puzzles has no key for {c.kind} rules")
        writer(c, out)
    return obj


def _write_regions(rules: Rules, out: Writing) -> None:
    """Extra regions: diagonals and disjoint groups as flags, the others as regions."""
    n = rules.n
    groups = [r for r in rules.extra if r.kind == "disjoint group"]
    if groups and tuple(groups) == _disjoint(rules):
        out.flag("disjointgroups")
    for region in rules.extra:
        if region.kind == "diagonal" and region == diagonal(n):
            out.flag("diagonal-")
        elif region.kind == "anti-diagonal" and region == anti_diagonal(n):
            out.flag("diagonal+")
        elif region.kind == "disjoint group" and out.obj.get("disjointgroups"):
            continue
        else:
            out.add("extraregion", {"cells": out.names(region.cells)})


def fpuzzles_link(obj: Mapping[str, Any]) -> str:
    """An f-puzzles share link of an f-puzzles object."""
    import lzstring

    payload = lzstring.LZString().compressToBase64(json.dumps(obj, separators=(",", ":")))
    return "https://www.f-puzzles.com/?load=" + quote(payload, safe="")
