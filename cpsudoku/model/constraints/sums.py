"""Sums whose digits may repeat: little killers, arrows (and pills), equal sums on lines.

Unlike a killer cage, these rules do not make their cells differ: a little killer's
diagonal crosses boxes, an arrow's shaft may bend back into a box it left. They share
one shape, :class:`LinearSum` (a weighted sum of cells equals a number), which
compiles to :class:`~cpsudoku.model.primitives.Sum`. Lines whose parts add up alike
(zipper lines, double arrows, region sum lines: :class:`EqualSums`) are sums too,
the first part weighed +1 against each other part weighed -1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    cell_name,
    cells_of,
    kind,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Primitive, Sum

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules


class LinearSum(Constraint):
    """Base of the rules "a weighted sum of cells equals a number" (repeats allowed).

    A subclass gives :attr:`terms` (``(cell, weight)`` pairs, each cell once) and
    :attr:`target`.
    """

    family: ClassVar[str] = "sums"

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """``(cell, weight)`` for every cell of the sum."""
        raise NotImplementedError

    @property
    def target(self) -> int:
        """The number the weighted sum equals."""
        raise NotImplementedError

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The weighted sum, when it is not the target."""
        got = sum(w * values[i] for i, w in self.terms)
        if got != self.target:
            return f"{self.where(n)} makes {got}, not {self.target}"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """The open cells can still bring the sum to the target."""
        low = high = 0
        for i, w in self.terms:
            v = values[i]
            if v:
                low, high = low + w * v, high + w * v
            else:
                low += w if w > 0 else w * n
                high += w * n if w > 0 else w
        return low <= self.target <= high

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The weighted sum."""
        return (Sum(self.terms, (self.target,)),)


@kind
@dataclass(frozen=True, slots=True)
class LittleKiller(LinearSum):
    """A little killer: the cells along a diagonal add up to ``total``; digits may repeat.

    JSON: ``{"kind": "little-killer", "cells": ["r1c3", "r2c2", "r3c1"], "sum": 12}``.
    The cells are listed, not derived from an arrow outside the grid, so any set of
    cells works; importers of setters' formats work the diagonal out.
    """

    kind: ClassVar[str] = "little-killer"
    meaning: ClassVar[str] = "the diagonal's cells add up to its sum (digits may repeat)"
    example: ClassVar[dict[str, Any]] = {
        "kind": "little-killer",
        "cells": ["r1c3", "r2c2", "r3c1"],
        "sum": 12,
    }
    fpuzzles_key: ClassVar[str] = "littlekillersum"
    cells: tuple[int, ...]
    total: int

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """Every cell with weight 1."""
        return tuple((i, 1) for i in self.cells)

    def draw(self, drawing: Drawing) -> None:
        """The sum outside the grid, an arrow pointing along the diagonal."""
        n = drawing.n
        r, c = divmod(self.cells[0], n)
        if len(self.cells) > 1:
            dr, dc = self.cells[1] // n - r, self.cells[1] % n - c
        else:  # one cell: a corner, pointed at from outside
            dr, dc = (1 if r == 0 else -1), (1 if c == 0 else -1)
        drawing.outside(r - dr, c - dc, self.kind, str(self.total), (dr, dc), self.cells)

    @property
    def target(self) -> int:
        """The sum."""
        return self.total

    def spec(self) -> dict[str, Any]:
        """``{"kind": "little-killer", "cells": [...], "sum": ...}``."""
        return {"kind": self.kind, "cells": list(self.cells), "sum": self.total}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> LittleKiller:
        """Distinct cells on the grid and a sum they can make (k to k*n for k cells)."""
        only_keys(spec, cls.kind, "cells", "sum")
        cells = cells_of(spec.get("cells"), size, "a little killer's cells")
        total = whole(spec.get("sum"), "a little killer's sum")
        if not len(cells) <= total <= len(cells) * size:
            raise RulesError(
                f"the little killer at {cell_name(cells[0], size)}: {len(cells)} cells "
                f"cannot add up to {total} (only {len(cells)} to {len(cells) * size})"
            )
        return cls(cells, total)


@kind
@dataclass(frozen=True, slots=True)
class Arrow(LinearSum):
    """An arrow: the shaft's cells add up to the number in the circle; digits may repeat.

    A circle of one cell holds the sum; a circle of several cells (a pill) reads as a
    decimal number, first cell first. JSON:
    ``{"kind": "arrow", "circle": ["r1c1"], "cells": ["r1c2", "r1c3"]}``.
    """

    kind: ClassVar[str] = "arrow"
    meaning: ClassVar[str] = "the shaft adds up to the number in the circle"
    example: ClassVar[dict[str, Any]] = {
        "kind": "arrow",
        "circle": ["r1c1"],
        "cells": ["r1c2", "r1c3"],
    }
    fpuzzles_key: ClassVar[str] = "arrow"
    circle: tuple[int, ...]
    shaft: tuple[int, ...]

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The circle's cells, then the shaft's."""
        return self.circle + self.shaft

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """Shaft cells weigh 1; circle cells their negated decimal place value."""
        places = len(self.circle)
        return tuple((i, 1) for i in self.shaft) + tuple(
            (i, -(10 ** (places - 1 - k))) for k, i in enumerate(self.circle)
        )

    @property
    def target(self) -> int:
        """Shaft less circle is 0."""
        return 0

    def draw(self, drawing: Drawing) -> None:
        """A circle (a pill for several cells) and an arrow from it along the shaft."""
        drawing.circle(self.circle, self.kind)
        drawing.arrow((self.circle[-1], *self.shaft), self.kind)

    def spec(self) -> dict[str, Any]:
        """``{"kind": "arrow", "circle": [...], "cells": [...]}`` (cells as indices)."""
        return {"kind": self.kind, "circle": list(self.circle), "cells": list(self.shaft)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Arrow:
        """A circle and a shaft: distinct cells on the grid, none in both."""
        only_keys(spec, cls.kind, "circle", "cells")
        circle = cells_of(spec.get("circle"), size, "an arrow's circle")
        shaft = cells_of(spec.get("cells"), size, "an arrow's shaft")
        if set(circle) & set(shaft):
            raise RulesError(f"the arrow at {cell_name(circle[0], size)}: a cell in both parts")
        return cls(circle, shaft)


# ------------------------------------------------------------------------- f-puzzles

_STEPS = {"DR": (1, 1), "DL": (1, -1), "UR": (-1, 1), "UL": (-1, -1)}


@reads("littlekillersum")
def _read_little_killers(reading: Reading, key: str) -> list[Constraint]:
    """Little killers: the diagonal from the clue, worked out from its place and direction.

    A clue with no value, 0 or no whole number says nothing (f-puzzles' solvers skip
    it); the ``cells`` f-puzzles stores beside it are not read.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        total = reading.clue(item.get("value"), f"littlekillersum {k}")
        if not total:
            continue
        r, c = reading.position(item.get("cell"), f"littlekillersum {k}", outside=True)
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
        out.append(
            LittleKiller.from_spec({"kind": "little-killer", "cells": cells, "sum": total}, n)
        )
    return out


@writes(LittleKiller)
def _write_little_killer(rule: LittleKiller, out: Writing) -> None:
    n = out.n
    first, second = rule.cells[0], rule.cells[1] if len(rule.cells) > 1 else None
    r, c = divmod(first, n)
    if second is None:  # one cell: a corner, pointing in from outside
        dr, dc = (1 if r == 0 else -1), (1 if c == 0 else -1)
    else:
        dr, dc = second // n - r, second % n - c
    direction = {(1, 1): "DR", (1, -1): "DL", (-1, 1): "UR", (-1, -1): "UL"}.get((dr, dc))
    if direction is None:
        raise RulesError("f-puzzles draws little killers along diagonals only")
    clue = f"R{r - dr + 1}C{c - dc + 1}"
    out.add("littlekillersum", {"cell": clue, "direction": direction, "value": str(rule.total)})


@reads("arrow")
def _read_arrows(reading: Reading, key: str) -> list[Constraint]:
    """Arrows: one sum per line, all sharing the circle.

    A pill of several cells reads as a number, in the order listed; each line's first
    cell is its origin, in the circle, and not part of the shaft.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        circle = reading.cells(item.get("cells"), f"arrow {k}'s circle")
        for line in reading.lines(item, f"arrow {k}"):
            shaft = [i for i in line if i not in circle]
            if shaft:
                spec = {"kind": "arrow", "circle": circle, "cells": shaft}
                out.append(Arrow.from_spec(spec, n))
    return out


@writes(Arrow)
def _write_arrow(rule: Arrow, out: Writing) -> None:
    line = [rule.circle[-1], *rule.shaft]
    out.add("arrow", {"cells": out.names(rule.circle), "lines": [out.names(line)]})


# ------------------------------------------------------------ equal sums along lines


class EqualSums(Constraint):
    """Base of the lines cut into groups of cells that all add up to the same total.

    A subclass gives its :attr:`groups`. Digits may repeat (within a group too, where
    no unit forbids it). It compiles to one :class:`~cpsudoku.model.primitives.Sum`
    per group after the first: the first group weighs +1, the other -1, target 0
    (each group held to the first: measured faster than a chain of neighbours).
    """

    family: ClassVar[str] = "sums"

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The groups of cells whose sums are equal, in order along the line."""
        raise NotImplementedError

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The groups' sums, when they are not all equal."""
        totals = [sum(values[i] for i in group) for group in self.groups]
        if len(set(totals)) > 1:
            shown = ", ".join(map(str, totals))
            return f"{self.where(n)} has {len(totals)} parts adding up to {shown}, not all equal"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The first group's sum less each other group's is 0."""
        first, *others = self.groups or ((),)
        lead = tuple((i, 1) for i in first)
        return tuple(Sum(lead + tuple((i, -1) for i in group), (0,)) for group in others)


@kind
@dataclass(frozen=True, slots=True)
class ZipperLine(EqualSums):
    """A zipper line: cells at the same distance from its middle add up to one total.

    Cell k plus cell L-1-k is the same for every k; on a line of odd length the
    middle cell holds that total. JSON: ``{"kind": "zipper-line", "cells": [...]}``,
    at least three cells (two say nothing).
    """

    kind: ClassVar[str] = "zipper-line"
    meaning: ClassVar[str] = (
        "cells equally far from the middle add up to one total (an odd line's middle cell)"
    )
    example: ClassVar[dict[str, Any]] = {
        "kind": "zipper-line",
        "cells": ["r1c1", "r1c2", "r1c3", "r2c3", "r2c2"],
    }
    fpuzzles_key: ClassVar[str] = "zipperline"
    cells: tuple[int, ...]

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> ZipperLine:
        """Three or more distinct cells on the grid."""
        only_keys(spec, cls.kind, "cells")
        return cls(cells_of(spec.get("cells"), size, "a zipper line's cells", least=3))

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The pairs of cells equally far from the middle, then the middle cell."""
        cells = self.cells
        pairs = tuple((cells[k], cells[-1 - k]) for k in range(len(cells) // 2))
        middle = ((cells[len(cells) // 2],),) if len(cells) % 2 else ()
        return pairs + middle

    def draw(self, drawing: Drawing) -> None:
        """A purple line."""
        drawing.line(self.cells, self.kind)


@kind
@dataclass(frozen=True, slots=True)
class DoubleArrow(EqualSums):
    """A double arrow: the two end cells (circles) add up to the sum of the cells between.

    JSON: ``{"kind": "double-arrow", "cells": [...]}``, ends first and last, at least
    three cells.
    """

    kind: ClassVar[str] = "double-arrow"
    meaning: ClassVar[str] = "the two end cells add up to the cells between them"
    example: ClassVar[dict[str, Any]] = {
        "kind": "double-arrow",
        "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
    }
    fpuzzles_key: ClassVar[str] = "doublearrow"
    cells: tuple[int, ...]

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> DoubleArrow:
        """Three or more distinct cells on the grid."""
        only_keys(spec, cls.kind, "cells")
        return cls(cells_of(spec.get("cells"), size, "a double arrow's cells", least=3))

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The two ends, then the cells between."""
        return (self.cells[0], self.cells[-1]), self.cells[1:-1]

    def draw(self, drawing: Drawing) -> None:
        """A line with a circle at each end (the two ends are the sum's one side)."""
        drawing.line(self.cells, self.kind)
        for end in (self.cells[0], self.cells[-1]):
            drawing.circle((end,), self.kind)


def region_runs(
    cells: Sequence[int], regions: Sequence[Sequence[int]]
) -> tuple[tuple[int, ...], ...]:
    """A line cut into runs: maximal stretches of consecutive cells in one region.

    A line that leaves a region and comes back starts a new run there. A cell in no
    region belongs to no run and leaves the run around it whole (the line's next cell
    in the same region continues it), as f-puzzles' solver reads such a line.
    """
    region_of = {i: k for k, region in enumerate(regions) for i in region}
    runs: list[list[int]] = []
    last: int | None = None
    for i in cells:
        k = region_of.get(i)
        if k is None:
            continue
        if k != last:
            runs.append([])
            last = k
        runs[-1].append(i)
    return tuple(tuple(run) for run in runs)


@kind
@dataclass(frozen=True, slots=True)
class RegionSumLine(EqualSums):
    """A region sum line: each run of the line inside one region adds up to one total.

    The line is cut where it crosses a region's border (a box, or a jigsaw region);
    re-entering a region starts a new run (:func:`region_runs`). The regions are the
    puzzle's own, taken when the rules are made (:meth:`bind`). JSON: ``{"kind":
    "region-sum-line", "cells": [...]}``.
    """

    kind: ClassVar[str] = "region-sum-line"
    meaning: ClassVar[str] = "every run of the line inside one box or region adds up to one total"
    example: ClassVar[dict[str, Any]] = {
        "kind": "region-sum-line",
        "cells": ["r1c2", "r1c3", "r1c4", "r1c5"],
    }
    fpuzzles_key: ClassVar[str] = "regionsumline"
    binds: ClassVar[bool] = True
    size: int
    cells: tuple[int, ...]
    #: The line's runs, worked out from the regions (:meth:`bind`).
    runs: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> RegionSumLine:
        """Two or more distinct cells on the grid (cut by the default boxes until bound)."""
        only_keys(spec, cls.kind, "cells")
        cells = cells_of(spec.get("cells"), size, "a region sum line's cells", least=2)
        from cpsudoku.model.rules import Rules

        return cls(size, cells).bind(Rules.for_size(size))

    def bind(self, rules: Rules) -> RegionSumLine:
        """This line cut by the rules' boxes or jigsaw regions."""
        n = rules.n
        regions = rules.regions if rules.box is None else rules.unit_cells[2 * n : 3 * n]
        runs = region_runs(self.cells, regions)
        if runs == self.runs:
            return self
        return RegionSumLine(self.size, self.cells, runs)

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The runs."""
        return self.runs

    def draw(self, drawing: Drawing) -> None:
        """A blue line."""
        drawing.line(self.cells, self.kind)


# ----------------------------------------------------------- f-puzzles, equal sums

#: The userscript's equal-sum line keys, each key's rule and the fewest cells a line
#: needs to say anything (shorter lines are skipped, as f-puzzles' solvers skip them).
_EQUAL_SUMS: dict[str, tuple[type[EqualSums], int]] = {
    "zipperline": (ZipperLine, 3),
    "doublearrow": (DoubleArrow, 3),
    "regionsumline": (RegionSumLine, 2),
}


@reads(*_EQUAL_SUMS)
def _read_equal_sums(reading: Reading, key: str) -> list[Constraint]:
    """One rule per line of each item; a line too short to say anything is skipped."""
    cls, least = _EQUAL_SUMS[key]
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        for line in reading.lines(item, f"{key} {k}"):
            if len(line) >= least:
                out.append(cls.from_spec({"kind": cls.kind, "cells": line}, reading.n))
    return out


@writes(ZipperLine, DoubleArrow, RegionSumLine)
def _write_equal_sums(rule: EqualSums, out: Writing) -> None:
    key = next(k for k, (cls, _) in _EQUAL_SUMS.items() if isinstance(rule, cls))
    out.add(key, {"lines": [out.names(rule.cells)]})
