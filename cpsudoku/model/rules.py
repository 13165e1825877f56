"""What a puzzle's rules are: one immutable value, shared by every engine.

Glossary (used across the package):

- ``R x C``: box shape, R rows by C columns; ``n = R*C`` symbols, an ``n x n`` grid.
- cell: an index ``i = r*n + c`` into the row-major tuple of ``n*n`` cells (0-based
  ``r``, ``c``); messages and exports speak 1-based "row 3, column 5" / "r3c5".
- value / digit ``d``: 1..n; 0 means an empty cell.
- unit: a group of cells that must all differ: a row, a column, a box (or, in a
  jigsaw, an irregular region), and any extra region (a diagonal, a window...). The
  list of units *is* the no-repeat part of the rules: encoders, the oracle and the
  verifier iterate over it, so a new region shape is new data, never a new encoder.
- constraint: any other rule (cages, lines, dots...), a value of its own kind
  (:mod:`cpsudoku.model.constraints`); an engine that cannot take a kind refuses the
  puzzle by name, so nothing is ever dropped.
- peers of a cell: the other cells sharing a unit with it.

A :class:`Rules` value is immutable and hashable, compares by what it says, pickles
whole (every region and constraint, to every worker, process and cluster task), and
has a stable JSON spec (:meth:`Rules.spec`, :meth:`Rules.from_spec`). Equal rules are
one object per process (they are interned when built by :meth:`Rules.classic` or
unpickled), so what an engine derives from them (units, encoded clauses, a model) is
built once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from operator import itemgetter
from typing import Any
from weakref import WeakValueDictionary

from cpsudoku.model.constraints import (
    Constraint,
    as_list,
    cell_index,
    check_cell,
    constraint_from_spec,
)
from cpsudoku.model.errors import BoxShapeError, RulesError
from cpsudoku.model.primitives import Primitive

#: Symbols for the values 1..35 in the one-line form; '.' is written for empty cells.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Largest side accepted (10,000 cells): bigger inputs are refused as too large
#: rather than handed to an engine that would take hours to encode them.
MAX_SIZE = 100


@dataclass(frozen=True, slots=True)
class Unit:
    """One group of cells that must hold different values.

    Attributes:
        kind: ``"row"``, ``"column"``, ``"box"``, ``"region"`` (a jigsaw's), or the
            kind of an extra region (``"diagonal"``, ``"window"``, ...).
        number: 1-based number of the unit within its kind (boxes row-major).
        cells: cell indices of the unit.
    """

    kind: str
    number: int
    cells: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.kind} {self.number}"


@dataclass(frozen=True, slots=True)
class Region:
    """An extra no-repeat region, beyond the rows, columns and boxes.

    Attributes:
        kind: what it is, for messages and specs: ``"diagonal"``, ``"anti-diagonal"``,
            ``"window"``, ``"disjoint group"``, or ``"region"`` for any listed one.
        cells: its cells, as indices.
    """

    kind: str
    cells: tuple[int, ...]


@dataclass(frozen=True)
class Rules:
    """The rules of a puzzle: its size, its no-repeat units, and its other constraints.

    Build the classic rules with :meth:`classic` (or :meth:`for_size`), others with
    :meth:`jigsaw`, :meth:`with_extra` and :meth:`with_constraints`, or from a spec
    (:meth:`from_spec`). The constructor checks everything: every cell in range, a
    jigsaw's regions a partition of the grid into ``n`` regions of ``n`` cells, an
    extra region of ``n`` distinct cells.

    Attributes:
        size: the side ``n`` of the grid.
        box: the box shape ``(rows, cols)``, or None when ``regions`` replace the boxes.
        regions: a jigsaw's ``n`` irregular regions (empty for boxes).
        extra: extra no-repeat regions (diagonals, windows, ...).
        constraints: the other rules, each a :class:`~cpsudoku.model.constraints.Constraint`.
    """

    size: int
    box: tuple[int, int] | None = None
    regions: tuple[tuple[int, ...], ...] = ()
    extra: tuple[Region, ...] = ()
    constraints: tuple[Constraint, ...] = ()

    def __post_init__(self) -> None:
        n = self.size
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise RulesError(f"a grid's side is a positive whole number, not {n!r}")
        if n > MAX_SIZE:
            raise BoxShapeError(
                f"a {n}x{n} grid is too large; the largest supported side is {MAX_SIZE}"
            )
        if self.box is not None:
            rows, cols = self.box
            if rows < 1 or cols < 1:
                raise BoxShapeError(f"box shape {rows}x{cols} is not positive")
            if rows * cols != n:
                raise BoxShapeError(f"{rows}x{cols} boxes do not tile a {n}x{n} grid")
            if self.regions:
                raise RulesError("a grid has boxes or jigsaw regions, not both")
        elif not self.regions:
            raise RulesError("a grid needs boxes or jigsaw regions")
        else:
            _check_partition(self.regions, n)
        for region in self.extra:
            _check_region(region, n)
        if any(c.binds for c in self.constraints):
            # A rule read among the others: a negative rule's exempt pairs are the
            # puzzle's own marks, say.
            bound = tuple(c.bind(self) if c.binds else c for c in self.constraints)
            object.__setattr__(self, "constraints", bound)

    # ------------------------------------------------------------------ building

    @classmethod
    def classic(cls, box_rows: int, box_cols: int) -> Rules:
        """The classic rules with boxes of ``box_rows x box_cols`` cells (one per shape).

        >>> Rules.classic(2, 3).n
        6
        """
        return _classic(box_rows, box_cols)

    @classmethod
    def for_size(cls, n: int) -> Rules:
        """The classic rules for a grid of side ``n``.

        Square boxes when n is a perfect square, otherwise the most square
        factorisation R x C with R <= C (6 -> 2x3, 12 -> 3x4). A prime n gives 1 x n
        boxes: a Latin square.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BoxShapeError(f"grid side {n} is not positive")
        r = math.isqrt(n)
        while n % r:
            r -= 1
        return _classic(r, n // r)

    @classmethod
    def jigsaw(cls, regions: Sequence[Iterable[int | str]], **more: Any) -> Rules:
        """Jigsaw rules: ``n`` irregular regions of ``n`` cells in place of the boxes.

        ``regions`` are lists of cells (indices, or ``"r1c2"`` names). Fewer than n
        regions leave the other cells in no region.
        """
        listed = [list(region) for region in regions]
        n = max(len(listed), len(listed[0]) if listed else 0)
        cells = tuple(tuple(cell_index(c, n) for c in region) for region in listed)
        return _intern(cls(n, None, cells, **more))

    def with_extra(self, *regions: Region) -> Rules:
        """These rules plus extra no-repeat regions (a diagonal, a window, any region)."""
        return _intern(
            Rules(self.size, self.box, self.regions, self.extra + regions, self.constraints)
        )

    def with_constraints(self, *constraints: Constraint) -> Rules:
        """These rules plus more constraints."""
        return _intern(
            Rules(self.size, self.box, self.regions, self.extra, self.constraints + constraints)
        )

    @cached_property
    def compiled(self) -> tuple[tuple[Constraint, tuple[Primitive, ...]], ...]:
        """Each constraint with its primitives, in order (compiled once per rules)."""
        n = self.size
        return tuple((c, c.compile(n)) for c in self.constraints)

    @cached_property
    def primitives(self) -> tuple[Primitive, ...]:
        """Every constraint's primitives, in order (what the engines read)."""
        return tuple(p for _, prims in self.compiled for p in prims)

    @cached_property
    def units_only(self) -> Rules:
        """These rules without their other constraints: the part engines encode once.

        A killer dataset has different cages in every puzzle but the same grid; the
        engines keep this part live and add each puzzle's constraints to it.
        """
        if not self.constraints:
            return self
        return _intern(Rules(self.size, self.box, self.regions, self.extra))

    def __hash__(self) -> int:
        # Worked out once: every cache an engine keeps is keyed on the rules, and a
        # jigsaw's regions or a killer's cages make the fields slow to hash each time.
        found: int | None = self.__dict__.get("_hash")
        if found is None:
            found = hash((self.size, self.box, self.regions, self.extra, self.constraints))
            self.__dict__["_hash"] = found
        return found

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled whole (every region and constraint), as its defining fields only:
        # the units and peers derived from them are rebuilt once per process on
        # arrival (interned), not shipped to every worker.
        return _unpickle, (self.size, self.box, self.regions, self.extra, self.constraints)

    # ------------------------------------------------------------------ the spec

    def spec(self) -> dict[str, Any]:
        """The rules as a JSON-ready object, stable across versions.

        ``{"size": 9, "box": "3x3"}`` for the classic rules; a jigsaw has
        ``"regions"`` (lists of 0-based cell indices) instead of ``"box"``; extra
        regions are ``"extra": [{"kind": ..., "cells": [...]}]``, constraints
        ``"constraints": [...]`` (each with its ``"kind"``).
        """
        out: dict[str, Any] = {"size": self.size}
        if self.box is not None:
            out["box"] = f"{self.box[0]}x{self.box[1]}"
        else:
            out["regions"] = [list(r) for r in self.regions]
        if self.extra:
            out["extra"] = [{"kind": r.kind, "cells": list(r.cells)} for r in self.extra]
        if self.constraints:
            out["constraints"] = [c.spec() for c in self.constraints]
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any] | str) -> Rules:
        """Rules from :meth:`spec`'s object (or its JSON text).

        Cells may be 0-based indices or ``"r1c2"`` names.

        Raises:
            RulesError: an unknown key, a malformed value, or rules that do not hold
                together (cells out of range, regions that overlap...).
        """
        if isinstance(spec, str):
            try:
                spec = json.loads(spec)
            except json.JSONDecodeError as exc:
                raise RulesError(f"rules spec is not JSON: {exc.msg}") from None
        if not isinstance(spec, Mapping):
            raise RulesError(f"a rules spec is a JSON object, not {type(spec).__name__}")
        unknown = set(spec) - {"size", "box", "regions", "extra", "constraints"}
        if unknown:
            raise RulesError(f"unknown key in a rules spec: {', '.join(sorted(unknown))}")
        box = _box_of_text(str(spec["box"])) if spec.get("box") is not None else None
        raw_regions = as_list(spec.get("regions", ()), "regions")
        size = spec.get("size", box[0] * box[1] if box else len(raw_regions))
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise RulesError(f"a rules spec needs its size (a whole number), got {size!r}")
        regions = tuple(_cells_of(as_list(r, "a region"), size) for r in raw_regions)
        extra = tuple(_region(item, size) for item in as_list(spec.get("extra", ()), "extra"))
        constraints = tuple(
            constraint_from_spec(item, size)
            for item in as_list(spec.get("constraints", ()), "constraints")
        )
        return _intern(cls(size, box, regions, extra, constraints))

    # ------------------------------------------------------------------ derived

    @property
    def n(self) -> int:
        """Side of the grid (the number of symbols)."""
        return self.size

    @property
    def cells(self) -> int:
        """Number of cells, ``n*n``."""
        return self.size * self.size

    @property
    def has_boxes(self) -> bool:
        """True when the third unit family is boxes (not a jigsaw's regions)."""
        return self.box is not None

    @property
    def is_classic(self) -> bool:
        """True for rows, columns and boxes alone: no jigsaw, no extra region, no constraint.

        The classic rules are what the shape-specific tools assume (symmetries of
        bands and stacks, box lines in a drawing, canonical forms).
        """
        return self.box is not None and not self.extra and not self.constraints

    @property
    def box_rows(self) -> int:
        """Rows per box (raises RulesError for a jigsaw, which has no boxes)."""
        return self._box()[0]

    @property
    def box_cols(self) -> int:
        """Columns per box (raises RulesError for a jigsaw, which has no boxes)."""
        return self._box()[1]

    def _box(self) -> tuple[int, int]:
        if self.box is None:
            raise RulesError(f"{self} has no boxes")
        return self.box

    @property
    def box_shape(self) -> str:
        """The box shape as written on the command line, e.g. ``"2x3"``."""
        return f"{self.box_rows}x{self.box_cols}"

    def box_of(self, r: int, c: int) -> int:
        """0-based box number (row-major) of the cell at 0-based (r, c)."""
        boxes_per_row = self.n // self.box_cols
        return (r // self.box_rows) * boxes_per_row + c // self.box_cols

    def __str__(self) -> str:
        n = self.n
        layout = f"{self.box[0]}x{self.box[1]} boxes" if self.box else "jigsaw regions"
        more = "".join(f" + {count} {_noun(kind, count)}" for kind, count in self._kinds().items())
        return f"{n}x{n} ({layout}{more})"

    def _kinds(self) -> dict[str, int]:
        """Extra regions and constraints counted by kind, in order of appearance."""
        kinds: dict[str, int] = {}
        for kind in [r.kind for r in self.extra] + [c.kind for c in self.constraints]:
            kinds[kind] = kinds.get(kind, 0) + 1
        return kinds

    def describe(self) -> list[str]:
        """The rules in words, one line per family, e.g. for ``cpsudoku solve``."""
        lines = [f"a {self.n}x{self.n} grid: every row and column holds each value once"]
        if self.box:
            lines.append(f"every {self.box[0]}x{self.box[1]} box holds each value once")
        else:
            lines.append(f"every one of the {self.n} jigsaw regions holds each value once")
        meanings = {c.kind: c.meaning for c in self.constraints}
        for kind, count in self._kinds().items():
            meaning = f" ({meanings[kind]})" if kind in meanings else ""
            lines.append(f"{count} {_noun(kind, count)}{meaning}")
        return lines

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        """Every unit: the n rows, the n columns, the n boxes (or regions), the extras."""
        if self.constraints:  # the same grid for every killer of a dataset: built once
            return self.units_only.units
        n = self.n
        rows, cols = _lines(n)  # the same for every grid of this side (a jigsaw dataset)
        kind = "box" if self.box is not None else "region"
        third = [Unit(kind, k + 1, cells) for k, cells in enumerate(self._third)]
        numbers: dict[str, int] = {}
        extra = []
        for region in self.extra:
            numbers[region.kind] = numbers.get(region.kind, 0) + 1
            extra.append(Unit(region.kind, numbers[region.kind], region.cells))
        return (*rows, *cols, *third, *extra)

    @property
    def _third(self) -> tuple[tuple[int, ...], ...]:
        """The cells of the boxes, or of the jigsaw's regions."""
        return _box_cells(self.n, *self.box) if self.box is not None else self.regions

    @cached_property
    def unit_cells(self) -> tuple[tuple[int, ...], ...]:
        """The cells of each unit, in the order of :attr:`units` (the fast form).

        Built without the :class:`Unit` objects: a jigsaw dataset has rules per puzzle,
        and an engine needs only the cells.
        """
        if self.constraints:
            return self.units_only.unit_cells
        rows, cols = _line_cells(self.n)
        return (*rows, *cols, *self._third, *(region.cells for region in self.extra))

    @cached_property
    def unit_getters(self) -> tuple[Callable[[Sequence[int]], tuple[int, ...]], ...]:
        """For each unit, a function taking a grid's cells to the unit's values.

        ``operator.itemgetter`` does the gathering in C: the verifier and the givens
        check run once per puzzle, so their cost is part of every solve.
        """
        if self.constraints:
            return self.units_only.unit_getters
        return tuple(
            itemgetter(*cells) if len(cells) > 1 else _single(cells[0]) for cells in self.unit_cells
        )

    @cached_property
    def units_of(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices (into :attr:`units`) of the units holding it."""
        if self.constraints:
            return self.units_only.units_of
        n = self.n
        third = [-1] * self.cells  # each cell's box or region, as a unit index
        for k, cells in enumerate(self._third, 2 * n):
            for i in cells:
                third[i] = k
        whole = len(self._third) == n
        if not self.extra and whole:  # rows, columns and a partition: three units a cell
            return tuple(zip(*_line_owners(n), third, strict=True))
        owners = [
            [r, c, k] if k >= 0 else [r, c] for r, c, k in zip(*_line_owners(n), third, strict=True)
        ]
        first = 2 * n + len(self._third)
        for k, cells in enumerate(self.unit_cells[first:], first):
            for i in cells:
                owners[i].append(k)
        return tuple(map(tuple, owners))

    @cached_property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the sorted other cells that share a unit with it."""
        if self.constraints:
            return self.units_only.peers
        result = []
        for i in range(self.cells):
            near = {j for k in self.units_of[i] for j in self.unit_cells[k]}
            near.discard(i)
            result.append(tuple(sorted(near)))
        return tuple(result)

    def position(self, i: int) -> str:
        """Human form of cell ``i``: ``"row 3, column 5"`` (1-based)."""
        return f"row {i // self.n + 1}, column {i % self.n + 1}"

    def symbol(self, value: int) -> str:
        """The one-line symbol of ``value`` (``.`` for 0); only for n <= 35."""
        return "." if value == 0 else SYMBOLS[value - 1]


def _single(i: int) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A one-cell unit's gatherer (``itemgetter`` of one index returns no tuple)."""
    return lambda cells: (cells[i],)


def _cells_of(items: list[Any], n: int) -> tuple[int, ...]:
    """Cells given as indices or ``r1c2`` names, as indices (a jigsaw's region, say).

    Plain indices are taken as they are (a jigsaw dataset reads a layout per record);
    the rules' own checks then find any off the grid.
    """
    if all(type(c) is int for c in items):
        return tuple(items)
    return tuple(cell_index(c, n) for c in items)


def _check_partition(regions: tuple[tuple[int, ...], ...], n: int) -> None:
    """Raise RulesError unless ``regions`` are up to n disjoint regions of n cells.

    n of them cover the grid (a jigsaw); fewer leave some cells in no region (setters'
    tools allow it: those cells only keep their row and column apart).
    """
    if not 1 <= len(regions) <= n:
        raise RulesError(f"a {n}x{n} jigsaw has 1 to {n} regions, got {len(regions)}")
    if all(len(region) == n for region in regions):
        flat = [i for region in regions for i in region]
        cells = set(flat)
        whole = len(cells) == n * n and all(type(i) is int for i in flat)
        if whole and min(cells) == 0 and max(cells) == n * n - 1:
            return  # n * n distinct cells of the grid: a partition (the common case)
    seen: dict[int, int] = {}
    for k, region in enumerate(regions, 1):
        if len(region) != n:
            raise RulesError(f"jigsaw region {k} has {len(region)} cells, not {n}")
        for i in region:
            check_cell(i, n, f"jigsaw region {k}")
            if i in seen:
                raise RulesError(
                    f"cell r{i // n + 1}c{i % n + 1} is in jigsaw regions {seen[i]} and {k}"
                )
            seen[i] = k


def _check_region(region: Region, n: int) -> None:
    """Raise RulesError unless ``region`` is 1 to ``n`` distinct cells of the grid."""
    if not 1 <= len(region.cells) <= n:
        raise RulesError(
            f"a {region.kind} region of a {n}x{n} grid has 1 to {n} cells, got {len(region.cells)}"
        )
    for i in region.cells:
        check_cell(i, n, f"a {region.kind} region")
    if len(set(region.cells)) != len(region.cells):
        raise RulesError(f"a {region.kind} region lists a cell twice")


def _region(item: object, n: int) -> Region:
    """An extra region from its spec, ``{"kind": ..., "cells": [...]}``."""
    if not isinstance(item, Mapping) or "cells" not in item:
        raise RulesError(f'an extra region is an object with "cells", not {item!r}')
    cells = tuple(cell_index(c, n) for c in as_list(item["cells"], "a region's cells"))
    return Region(str(item.get("kind", "region")), cells)


def _box_of_text(text: str) -> tuple[int, int]:
    """``"2x3"`` (also ``2X3``, ``2*3``) as (2, 3)."""
    parts = text.lower().replace("*", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise BoxShapeError(f"box shape {text!r} is not of the form RxC, e.g. 3x3 or 2x3")
    return int(parts[0]), int(parts[1])


#: How :meth:`Rules.describe` counts the kinds whose plural is not the kind plus "s".
_NOUNS = {
    "x": ("X mark", "X marks"),
    "v": ("V mark", "V marks"),
    "sandwich": ("sandwich", "sandwiches"),
    "negative": ("negative rule", "negative rules"),
    "even": ("set of even cells", "sets of even cells"),
    "odd": ("set of odd cells", "sets of odd cells"),
    "candidates": ("set of given candidates", "sets of given candidates"),
}


def _noun(kind: str, count: int) -> str:
    """How a count of a kind is written: "1 cage", "2 cages", "18 sandwiches"."""
    one, more = _NOUNS.get(kind, (kind, f"{kind}s"))
    return one if count == 1 else more


@lru_cache(maxsize=16)
def _lines(n: int) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """The rows and the columns of an n x n grid, as units."""
    rows, cols = _line_cells(n)
    return (
        tuple(Unit("row", r + 1, cells) for r, cells in enumerate(rows)),
        tuple(Unit("column", c + 1, cells) for c, cells in enumerate(cols)),
    )


@lru_cache(maxsize=16)
def _line_cells(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """The cells of the rows and of the columns of an n x n grid."""
    rows = tuple(tuple(r * n + c for c in range(n)) for r in range(n))
    cols = tuple(tuple(r * n + c for r in range(n)) for c in range(n))
    return rows, cols


@lru_cache(maxsize=16)
def _line_owners(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each cell's row and column, as unit indices (rows 0..n-1, then columns)."""
    cells = range(n * n)
    return tuple(i // n for i in cells), tuple(n + i % n for i in cells)


@lru_cache(maxsize=64)
def _box_cells(n: int, br: int, bc: int) -> tuple[tuple[int, ...], ...]:
    """The cells of the boxes of ``br x bc`` cells, row-major."""
    out = []
    for b in range(n):
        r0, c0 = (b // (n // bc)) * br, (b % (n // bc)) * bc
        out.append(tuple((r0 + dr) * n + c0 + dc for dr in range(br) for dc in range(bc)))
    return tuple(out)


#: Every Rules object alive, by its fields: interning hands out the live one.
_LIVE: WeakValueDictionary[tuple[object, ...], Rules] = WeakValueDictionary()


@lru_cache(maxsize=256)
def _recent(rules: Rules) -> Rules:
    """Keeps the last rules alive, so a dataset's rules rebuilt per record stay one object."""
    return rules


def _intern(rules: Rules) -> Rules:
    """The one object of this process equal to ``rules``: whichever is alive, else this one.

    Engines key what they derive from rules (encodings, layouts, models) on the object,
    so equal rules must be one object while any is in use; the most recent are kept
    alive too, so rules parsed anew for every record of a dataset are built once.
    """
    key = (rules.size, rules.box, rules.regions, rules.extra, rules.constraints)
    live = _LIVE.get(key)
    if live is None:
        _LIVE[key] = live = rules
    return _recent(live)


@lru_cache(maxsize=64)
def _classic(box_rows: int, box_cols: int) -> Rules:
    if isinstance(box_rows, bool) or not isinstance(box_rows, int) or not isinstance(box_cols, int):
        raise BoxShapeError(f"box shape {box_rows!r}x{box_cols!r} is not two whole numbers")
    if box_rows < 1 or box_cols < 1:
        raise BoxShapeError(f"box shape {box_rows}x{box_cols} is not positive")
    n = box_rows * box_cols
    if n > MAX_SIZE:
        raise BoxShapeError(
            f"box shape {box_rows}x{box_cols} gives a {n}x{n} grid; "
            f"the largest supported side is {MAX_SIZE}"
        )
    return _intern(Rules(n, (box_rows, box_cols)))


def _unpickle(
    size: int,
    box: tuple[int, int] | None,
    regions: tuple[tuple[int, ...], ...],
    extra: tuple[Region, ...],
    constraints: tuple[Constraint, ...],
) -> Rules:
    return _intern(Rules(size, box, regions, extra, constraints))


def parse_box(text: str) -> Rules:
    """The classic rules of a box shape such as ``"3x3"`` or ``"2x3"`` (``2X3``, ``2*3``)."""
    return _classic(*_box_of_text(text))


def as_rules(box: str | Rules | None) -> Rules | None:
    """A ``box`` argument as Rules: a box shape such as ``"2x3"`` parsed, None kept.

    Raises:
        BoxShapeError: text that is no box shape, or something that is neither.
    """
    if box is None or isinstance(box, Rules):
        return box
    if isinstance(box, str):
        return parse_box(box)
    raise BoxShapeError(
        f"a box shape is text such as '2x3' or Rules, not a {type(box).__name__} ({box!r})"
    )


def diagonal(n: int) -> Region:
    """The main diagonal of an ``n x n`` grid (top left to bottom right), as a region."""
    return Region("diagonal", tuple(i * n + i for i in range(n)))


def anti_diagonal(n: int) -> Region:
    """The other diagonal (bottom left to top right), as a region."""
    return Region("anti-diagonal", tuple(i * n + n - 1 - i for i in range(n)))


def windows(n: int, box_rows: int, box_cols: int) -> tuple[Region, ...]:
    """The hyper (windoku) windows: box-shaped regions one cell in from each box corner.

    On 9x9, the four 3x3 windows with top left cells r2c2, r2c6, r6c2 and r6c6.
    """
    out = []
    for r0 in range(1, n - box_rows, box_rows + 1):
        for c0 in range(1, n - box_cols, box_cols + 1):
            cells = tuple(
                (r0 + dr) * n + c0 + dc for dr in range(box_rows) for dc in range(box_cols)
            )
            out.append(Region("window", cells))
    return tuple(out)


def disjoint_groups(rules: Rules) -> tuple[Region, ...]:
    """The disjoint groups of a grid with boxes: the cells at the same place in every box.

    Raises:
        RulesError: the rules have jigsaw regions, not boxes.
    """
    if rules.box is None:
        raise RulesError("disjoint groups need boxes; these rules have jigsaw regions")
    n = rules.n
    boxes = [u.cells for u in rules.units[2 * n : 3 * n]]  # rows, columns, then boxes
    return tuple(Region("disjoint group", tuple(b[k] for b in boxes)) for k in range(n))
