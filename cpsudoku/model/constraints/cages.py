"""Cages: groups of different digits whose set is constrained (killer cages and kin)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    as_list,
    cell_index,
    cell_name,
    check_cell,
    kind,
    mask_of,
    only_keys,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import DigitSets, Distinct, Primitive


@lru_cache(maxsize=4096)
def digit_sets(n: int, k: int, total: int | None) -> list[tuple[int, ...]]:
    """The sets of ``k`` different digits of 1..n adding up to ``total`` (None: any)."""
    return [
        combo for combo in combinations(range(1, n + 1), k) if total is None or sum(combo) == total
    ]


@lru_cache(maxsize=4096)
def set_masks(sets: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The masks of some digit sets."""
    return tuple(mask_of(s) for s in sets)


@kind
@dataclass(frozen=True, slots=True)
class Cage(Constraint):
    """A killer cage: its cells hold different digits that add up to ``total``.

    ``total`` None is a cage without a sum (its digits still differ). JSON:
    ``{"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}``.
    """

    kind: ClassVar[str] = "cage"
    meaning: ClassVar[str] = "killer: different digits adding up to the cage's sum"
    example: ClassVar[dict[str, Any]] = {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}
    fpuzzles_key: ClassVar[str] = "killercage"
    family: ClassVar[str] = "cages"
    cells: tuple[int, ...]
    total: int | None = None

    def spec(self) -> dict[str, Any]:
        """The cage as ``{"kind": "cage", "cells": [...], "sum": ...}`` (cells as indices)."""
        out: dict[str, Any] = {"kind": self.kind, "cells": list(self.cells)}
        if self.total is not None:
            out["sum"] = self.total
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Cage:
        """A cage from its spec; its cells and its sum are checked against the grid.

        Raises:
            RulesError: no cells, a cell off the grid or listed twice, more cells than
                digits, or a sum no set of that many different digits makes.
        """
        only_keys(spec, cls.kind, "cells", "sum")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), "a cage's cells"))
        total = spec.get("sum")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
            raise RulesError(f"a cage's sum must be a whole number, not {total!r}")
        return cls.checked(cells, total, size)

    @classmethod
    def checked(cls, cells: Sequence[int], total: int | None, size: int) -> Cage:
        """A cage on a grid of side ``size``, checked (see :meth:`from_spec`)."""
        cells = tuple(cells)
        check_cage_cells(cells, size, "cage")
        where = f"the cage at {cell_name(cells[0], size)}"
        if total is not None:
            low, high = sum(range(1, len(cells) + 1)), sum(range(size - len(cells) + 1, size + 1))
            if not low <= total <= high:
                raise RulesError(
                    f"{where}: {len(cells)} different digits cannot add up to {total} "
                    f"(only {low} to {high})"
                )
        return cls(cells, total)

    def combinations(self, n: int) -> list[tuple[int, ...]]:
        """The sets of digits the cage can hold (ascending), for digits 1..n."""
        return digit_sets(n, len(self.cells), self.total)

    @property
    def restricts(self) -> bool:
        """True when not every set of different digits will do (a sum, a renban)."""
        return self.total is not None

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Repeated digits, or the wrong sum, in the cage."""
        digits = [values[i] for i in self.cells]
        where = self.where(n)
        if len(set(digits)) != len(digits):
            return f"{where} repeats a digit"
        if self.total is not None and sum(digits) != self.total:
            return f"{where} adds up to {sum(digits)}, not {self.total}"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Placed digits differ, and the open cells can still make up the sum."""
        placed = [values[i] for i in self.cells if values[i]]
        if len(set(placed)) != len(placed):
            return False
        if self.total is None:
            return True
        free = sorted(set(range(1, n + 1)) - set(placed))
        left = len(self.cells) - len(placed)
        need = self.total - sum(placed)
        return sum(free[:left]) <= need <= sum(free[len(free) - left :])

    def draw(self, drawing: Drawing) -> None:
        """A dashed cage, its sum in the corner of its first cell."""
        drawing.cage(self.cells, self.kind, None if self.total is None else str(self.total))

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Different digits (:class:`Distinct`), or one of the sets making the sum."""
        if not self.restricts:
            return (Distinct(self.cells),)
        return (DigitSets(self.cells, set_masks(tuple(self.combinations(n)))),)


def check_cage_cells(cells: tuple[int, ...], size: int, what: str) -> None:
    """Raise RulesError unless ``cells`` can hold different digits on the grid."""
    if not cells:
        raise RulesError(f"a {what} has no cells")
    where = f"the {what} at {cell_name(cells[0], size)}"
    for i in cells:
        check_cell(i, size, where)
    if len(set(cells)) != len(cells):
        raise RulesError(f"{where} lists a cell twice")
    if len(cells) > size:
        raise RulesError(f"{where} has {len(cells)} cells; its digits cannot all differ")


# ------------------------------------------------------------------------- f-puzzles


@reads("killercage")
def _read_cages(reading: Reading, key: str) -> list[Constraint]:
    """Killer cages: different digits, adding up to the value when there is one.

    As f-puzzles' solvers read them, a cage of exactly n cells ignores its sum (its
    digits are 1..n whatever the number says), and a value that is no whole number
    (a "?") refuses the puzzle.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        cells = reading.cells(item.get("cells"), f"killercage {k}")
        total = reading.optional_number(item.get("value"), f"killercage {k}'s sum")
        if len(cells) == n and total is not None:
            if total != n * (n + 1) // 2:
                reading.note(
                    f"killercage {k} has {n} cells, so its sum {total} is ignored "
                    "(as f-puzzles' solvers read it)"
                )
            total = None
        out.append(Cage.checked(cells, total, n))
    return out


@writes(Cage)
def _write_cage(rule: Cage, out: Writing) -> None:
    item: dict[str, Any] = {"cells": out.names(rule.cells)}
    if rule.total is not None:
        item["value"] = str(rule.total)
    out.add("killercage", item)
