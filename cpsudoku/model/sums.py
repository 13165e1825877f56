"""Sum rules whose cells may repeat digits: little killers, arrows, sandwiches.

Unlike a killer cage, these rules do not make their cells differ: a little killer's
diagonal crosses boxes, an arrow's shaft may bend back into a box it left. The sum
rules share one shape, :class:`LinearSum` (a weighted sum of cells equals a number),
which both encoders and the oracle read; a sandwich is its own kind, since which cells
it sums depends on where the 1 and the n stand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

from cpsudoku.model.constraints import (
    Constraint,
    as_list,
    cell_index,
    cell_name,
    kind,
    only_keys,
)
from cpsudoku.model.errors import RulesError


def _cells(value: object, size: int, what: str) -> tuple[int, ...]:
    """A list of distinct cells on the grid, or RulesError naming ``what``."""
    cells = tuple(cell_index(c, size) for c in as_list(value, what))
    if not cells:
        raise RulesError(f"{what}: no cells")
    if len(set(cells)) != len(cells):
        raise RulesError(f"{what} list a cell twice")
    return cells


def _whole(value: object, what: str) -> int:
    """``value`` as a whole number, or RulesError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number, not {value!r}")
    return value


class LinearSum(Constraint):
    """Base of the rules "a weighted sum of cells equals a number" (repeats allowed).

    A subclass gives :attr:`terms` (``(cell, weight)`` pairs, each cell once) and
    :attr:`target`. The oracle keeps the sum reachable from the cells' smallest and
    largest candidates (bounds reasoning); the encoders read the terms.
    """

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """``(cell, weight)`` for every cell of the sum."""
        raise NotImplementedError

    @property
    def target(self) -> int:
        """The number the weighted sum equals."""
        raise NotImplementedError

    def _where(self, n: int) -> str:
        return f"the {self.kind} at {cell_name(self.cells[0], n)}"

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The weighted sum, when it is not the target."""
        got = sum(w * values[i] for i, w in self.terms)
        if got != self.target:
            return f"{self._where(n)} makes {got}, not {self.target}"
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

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each open cell keeps the values the other cells' bounds still allow."""
        spans = []
        low = high = 0
        for i, w in self.terms:
            if values[i]:
                lo = hi = w * values[i]
            else:
                mask = cand[i]
                if not mask:
                    return -1
                small, large = (mask & -mask).bit_length(), mask.bit_length()
                lo, hi = (w * small, w * large) if w > 0 else (w * large, w * small)
            spans.append((lo, hi))
            low, high = low + lo, high + hi
        if not low <= self.target <= high:
            return -1
        changed = 0
        for (i, w), (lo, hi) in zip(self.terms, spans, strict=True):
            if values[i]:
                continue
            rest_low, rest_high = low - lo, high - hi
            keep = 0
            for d in range(1, n + 1):
                if cand[i] >> (d - 1) & 1 and rest_low <= self.target - w * d <= rest_high:
                    keep |= 1 << (d - 1)
            if keep != cand[i]:
                if not keep:
                    return -1
                cand[i] = keep
                changed = 1
        return changed


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
    cells: tuple[int, ...]
    total: int

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """Every cell with weight 1."""
        return tuple((i, 1) for i in self.cells)

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
        cells = _cells(spec.get("cells"), size, "a little killer's cells")
        total = _whole(spec.get("sum"), "a little killer's sum")
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

    def spec(self) -> dict[str, Any]:
        """``{"kind": "arrow", "circle": [...], "cells": [...]}`` (cells as indices)."""
        return {"kind": self.kind, "circle": list(self.circle), "cells": list(self.shaft)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Arrow:
        """A circle and a shaft: distinct cells on the grid, none in both."""
        only_keys(spec, cls.kind, "circle", "cells")
        circle = _cells(spec.get("circle"), size, "an arrow's circle")
        shaft = _cells(spec.get("cells"), size, "an arrow's shaft")
        if set(circle) & set(shaft):
            raise RulesError(f"the arrow at {cell_name(circle[0], size)}: a cell in both parts")
        return cls(circle, shaft)


@lru_cache(maxsize=4096)
def sandwich_sets(n: int, k: int, total: int) -> tuple[tuple[int, ...], ...]:
    """The sets of ``k`` different digits of 2..n-1 adding up to ``total``.

    Between the 1 and the n of a row stand ``k`` cells of that row: different digits,
    neither 1 nor n.
    """
    return tuple(c for c in combinations(range(2, n), k) if sum(c) == total)


@kind
@dataclass(frozen=True, slots=True)
class Sandwich(Constraint):
    """A sandwich clue: the digits between the 1 and the n of its line add up to ``total``.

    JSON: ``{"kind": "sandwich", "row": 3, "sum": 10}`` or ``{"kind": "sandwich",
    "column": 5, "sum": 0}`` (1-based; a sum of 0: the 1 and the n are neighbours).
    """

    kind: ClassVar[str] = "sandwich"
    meaning: ClassVar[str] = "the digits between the 1 and the n of a row or column add up"
    size: int
    line: str  # "row" or "column"
    index: int  # 0-based
    total: int

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The row's (or column's) cells, in order."""
        n = self.size
        if self.line == "row":
            return tuple(self.index * n + c for c in range(n))
        return tuple(r * n + self.index for r in range(n))

    def spec(self) -> dict[str, Any]:
        """``{"kind": "sandwich", "row" | "column": k (1-based), "sum": ...}``."""
        return {"kind": self.kind, self.line: self.index + 1, "sum": self.total}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Sandwich:
        """One of ``row`` or ``column`` (1..n) and a sum some digits between can make."""
        only_keys(spec, cls.kind, "row", "column", "sum")
        lines = [key for key in ("row", "column") if key in spec]
        if len(lines) != 1:
            raise RulesError('a sandwich names one "row" or one "column"')
        line = lines[0]
        number = _whole(spec[line], f"a sandwich's {line}")
        if not 1 <= number <= size:
            raise RulesError(f"a sandwich's {line} {number} is not one of 1..{size}")
        total = _whole(spec.get("sum"), "a sandwich's sum")
        if not any(sandwich_sets(size, k, total) for k in range(size - 1)):
            raise RulesError(
                f"sandwich in {line} {number}: no digits between 1 and {size} add up to {total}"
            )
        return cls(size, line, number - 1, total)

    def _ends(self, values: Sequence[int], n: int) -> tuple[int, int] | None:
        """The positions along the line of the 1 and the n, in order, when both are placed."""
        line = [values[i] for i in self.cells]
        if 1 not in line or n not in line:
            return None
        a, b = line.index(1), line.index(n)
        return (a, b) if a < b else (b, a)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The sum between the 1 and the n, when it is not the clue."""
        ends = self._ends(values, n)
        where = f"the sandwich of {self.line} {self.index + 1}"
        if ends is None:
            return f"{where}: no 1 and {n} in the {self.line}"
        got = sum(values[i] for i in self.cells[ends[0] + 1 : ends[1]])
        if got != self.total:
            return f"{where} holds {got} between 1 and {n}, not {self.total}"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Once the 1 and the n stand, the cells between can still make the sum."""
        ends = self._ends(values, n)
        if ends is None:
            return True
        between = [values[i] for i in self.cells[ends[0] + 1 : ends[1]]]
        placed = [v for v in between if v]
        free = sorted(set(range(2, n)) - set(placed))
        left = len(between) - len(placed)
        need = self.total - sum(placed)
        if left > len(free):
            return False
        return sum(free[:left]) <= need <= sum(free[len(free) - left :])

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Keep what some placement of the 1 and the n allows, cell by cell.

        A placement (the 1 at one position of the line, the n at another) is kept when
        the cells between can hold a set of digits making the sum (each cell meeting
        the set). Under a kept placement a cell between may hold that set's digits, a
        cell outside anything but 1 and n. Each cell keeps the union over the kept
        placements; none kept is a contradiction.
        """
        cells = self.cells
        masks = [1 << (values[i] - 1) if values[i] else cand[i] for i in cells]
        one, top = 1, 1 << (n - 1)
        union = [0] * n
        kept = False
        for p in range(n):
            for q in range(p + 1, n):
                sets = sandwich_sets(n, q - p - 1, self.total)
                if not sets:
                    continue
                for low, high in ((p, q), (q, p)):
                    if not (masks[low] & one and masks[high] & top):
                        continue
                    digits = 0
                    for combo in sets:
                        mask = sum(1 << (d - 1) for d in combo)
                        if all(masks[t] & mask for t in range(p + 1, q)):
                            digits |= mask
                    if sets[0] and not digits:
                        continue
                    kept = True
                    union[low] |= one
                    union[high] |= top
                    for t in range(n):
                        if t not in (low, high):
                            union[t] |= masks[t] & (digits if p < t < q else ~(one | top))
        if not kept:
            return -1
        changed = 0
        for t, i in enumerate(cells):
            keep = masks[t] & union[t]
            if keep != masks[t]:
                if not keep or values[i]:
                    return -1
                cand[i] = keep
                changed = 1
        return changed
