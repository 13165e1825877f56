"""Cages: groups of different digits whose set is constrained (killer cages and kin).

A killer cage (with one sum, or several of which the digits make one), a
digital-root cage, a rellik cage and an equality cage all say "different digits,
forming a set of some kind": each compiles to one
:class:`~cpsudoku.model.primitives.DigitSets`, the sets worked out once per grid side
and rule (cached).
"""

from __future__ import annotations

import re
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
    numbers,
    only_keys,
    whole,
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

    ``total`` None is a cage without a sum (its digits still differ). A multi-sum
    cage (``sums``, two or more numbers, ``total`` None) adds up to one of them.
    JSON: ``{"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}``, or ``"sums":
    [3, 10]`` in place of ``"sum"``.
    """

    kind: ClassVar[str] = "cage"
    meaning: ClassVar[str] = (
        'killer: different digits adding up to the cage\'s sum (with "sums": to one of them)'
    )
    example: ClassVar[dict[str, Any]] = {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}
    fpuzzles_key: ClassVar[str] = "killercage"
    family: ClassVar[str] = "cages"
    cells: tuple[int, ...]
    total: int | None = None
    #: The sums of a multi-sum cage, ascending, two or more (empty otherwise).
    sums: tuple[int, ...] = ()

    def spec(self) -> dict[str, Any]:
        """The cage as ``{"kind": "cage", "cells": [...], "sum": ...}`` (cells as indices)."""
        out: dict[str, Any] = {"kind": self.kind, "cells": list(self.cells)}
        if self.total is not None:
            out["sum"] = self.total
        if self.sums:
            out["sums"] = list(self.sums)
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Cage:
        """A cage from its spec; its cells and its sum (or sums) are checked against the grid.

        Raises:
            RulesError: no cells, a cell off the grid or listed twice, more cells than
                digits, a sum no set of that many different digits makes, or both
                ``sum`` and ``sums``.
        """
        only_keys(spec, cls.kind, "cells", "sum", "sums")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), "a cage's cells"))
        total = spec.get("sum")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
            raise RulesError(f"a cage's sum must be a whole number, not {total!r}")
        if "sums" not in spec:
            return cls.checked(cells, total, size)
        if total is not None:
            raise RulesError('a cage takes a "sum" or "sums", not both')
        return cls.checked(cells, None, size, numbers(spec["sums"], "a cage's sums"))

    @classmethod
    def checked(
        cls, cells: Sequence[int], total: int | None, size: int, sums: Sequence[int] = ()
    ) -> Cage:
        """A cage on a grid of side ``size``, checked (see :meth:`from_spec`).

        ``sums`` makes a multi-sum cage (``total`` None); one sum is a plain cage's.
        """
        cells = tuple(cells)
        check_cage_cells(cells, size, "cage")
        wanted = sorted(set(sums))
        if len(wanted) == 1:
            total, wanted = wanted[0], []
        k = len(cells)
        low, high = sum_bounds(k, size)
        for s in [total] if total is not None else wanted:
            if not low <= s <= high:
                raise RulesError(
                    f"the cage at {cell_name(cells[0], size)}: {k} different digits "
                    f"cannot add up to {s} (only {low} to {high})"
                )
        return cls(cells, total, tuple(wanted))

    @property
    def targets(self) -> tuple[int, ...]:
        """The sums the cage may add up to (none: any)."""
        return self.sums or (() if self.total is None else (self.total,))

    def combinations(self, n: int) -> list[tuple[int, ...]]:
        """The sets of digits the cage can hold (ascending), for digits 1..n."""
        if not self.sums:
            return digit_sets(n, len(self.cells), self.total)
        return [s for total in self.sums for s in digit_sets(n, len(self.cells), total)]

    @property
    def restricts(self) -> bool:
        """True when not every set of different digits will do (a sum, a renban)."""
        return self.total is not None or bool(self.sums)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Repeated digits, or the wrong sum, in the cage."""
        digits = [values[i] for i in self.cells]
        total = sum(digits)
        if len(set(digits)) == len(digits) and (
            total == self.total if self.total is not None else not self.sums or total in self.sums
        ):
            return None  # the common case (every solution checked): no message to build
        where = self.where(n)
        if len(set(digits)) != len(digits):
            return f"{where} repeats a digit"
        if self.total is not None:
            return f"{where} adds up to {total}, not {self.total}"
        listed = ", ".join(map(str, self.sums))
        return f"{where} adds up to {total}, not one of {listed}"

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Placed digits differ, and the open cells can still make up a sum."""
        placed = [values[i] for i in self.cells if values[i]]
        if len(set(placed)) != len(placed):
            return False
        if not self.targets:
            return True
        free = sorted(set(range(1, n + 1)) - set(placed))
        left = len(self.cells) - len(placed)
        low, high = sum(free[:left]), sum(free[len(free) - left :])
        return any(low <= total - sum(placed) <= high for total in self.targets)

    def draw(self, drawing: Drawing) -> None:
        """A dashed cage, its sum in the corner of its first cell (a multi-sum's: 3/10)."""
        label = "/".join(map(str, self.targets)) or None
        drawing.cage(self.cells, self.kind, label)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Different digits (:class:`Distinct`), or one of the sets making the sum."""
        if not self.restricts:
            return (Distinct(self.cells),)
        return (DigitSets(self.cells, set_masks(tuple(self.combinations(n)))),)


def sum_bounds(k: int, n: int) -> tuple[int, int]:
    """The least and greatest sums of ``k`` different digits of 1..n: 1..k and n-k+1..n."""
    return k * (k + 1) // 2, k * (2 * n - k + 1) // 2


def check_cage_cells(cells: tuple[int, ...], size: int, what: str) -> None:
    """Raise RulesError unless ``cells`` can hold different digits on the grid."""
    if not cells:
        raise RulesError(f"a {what} has no cells")
    last = size * size
    if (  # the common case: no message to build
        all(type(i) is int and 0 <= i < last for i in cells)
        and len(set(cells)) == len(cells)
        and len(cells) <= size
    ):
        return
    where = f"the {what} at {cell_name(cells[0], size)}"
    for i in cells:
        check_cell(i, size, where)
    if len(set(cells)) != len(cells):
        raise RulesError(f"{where} lists a cell twice")
    if len(cells) > size:
        raise RulesError(f"{where} has {len(cells)} cells; its digits cannot all differ")


class DigitSetCage(Constraint):
    """Base of the cages of different digits whose set has some property.

    A subclass gives :meth:`fits` (the rule's own check of a set of different
    digits, from its statement: what :meth:`problem` calls) and :meth:`sets` (every
    set of as many digits as it has cells that fits, what :meth:`compile` makes a
    :class:`~cpsudoku.model.primitives.DigitSets` of; cached per side and parameter).
    """

    family: ClassVar[str] = "cages"
    cells: tuple[int, ...]

    def fits(self, digits: Sequence[int], n: int) -> str | None:
        """What is wrong with the cage's different ``digits`` on a grid of side n, or None."""
        raise NotImplementedError

    def sets(self, n: int) -> tuple[tuple[int, ...], ...]:
        """Every ascending set of ``len(cells)`` digits of 1..n that fits the rule."""
        raise NotImplementedError

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Repeated digits, or a set of digits the rule does not allow."""
        digits = [values[i] for i in self.cells]
        if len(set(digits)) != len(digits):
            return f"{self.where(n)} repeats a digit"
        wrong = self.fits(digits, n)
        return None if wrong is None else f"{self.where(n)} {wrong}"

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Different digits forming one of :meth:`sets`."""
        return (DigitSets(self.cells, set_masks(self.sets(n))),)

    @classmethod
    def checked_cells(cls, spec: Mapping[str, Any], size: int) -> tuple[int, ...]:
        """The spec's cells, on the grid, distinct, at most n of them."""
        what = f"a {cls.kind}'s cells"
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), what))
        check_cage_cells(cells, size, cls.kind)
        return cells

    def settled(self, size: int) -> DigitSetCage:
        """This cage, refused when no set of its digits fits (it could never hold)."""
        if not self.sets(size):
            raise RulesError(
                f"{self.where(size)}: no {len(self.cells)} different digits of 1..{size} "
                f"keep it ({self.meaning})"
            )
        return self


def digital_root(total: int) -> int:
    """The digital root of a positive whole number: its digits added up until one is left."""
    while total > 9:
        total = sum(int(ch) for ch in str(total))
    return total


@lru_cache(maxsize=4096)
def _root_sets(n: int, k: int, root: int) -> tuple[tuple[int, ...], ...]:
    return tuple(c for c in digit_sets(n, k, None) if digital_root(sum(c)) == root)


@kind
@dataclass(frozen=True, slots=True)
class DigitalRootCage(DigitSetCage):
    """Different digits whose sum has digital root ``root`` (its sum is root, root + 9...).

    JSON: ``{"kind": "digital-root-cage", "cells": ["r1c1", "r1c2"], "root": 4}``.
    f-puzzles draws it as a cosmetic cage whose value reads ``DR4``.
    """

    kind: ClassVar[str] = "digital-root-cage"
    meaning: ClassVar[str] = "different digits whose sum has the cage's digital root"
    example: ClassVar[dict[str, Any]] = {
        "kind": "digital-root-cage",
        "cells": ["r1c1", "r1c2"],
        "root": 4,
    }
    fpuzzles_key: ClassVar[str] = "cage"
    cells: tuple[int, ...]
    root: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "digital-root-cage", "cells": [...], "root": r}``."""
        return {"kind": self.kind, "cells": list(self.cells), "root": self.root}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> DigitalRootCage:
        """Cells as a cage's, a root of 1..9 that some set of their digits has."""
        only_keys(spec, cls.kind, "cells", "root")
        cells = cls.checked_cells(spec, size)
        root = whole(spec.get("root"), "a digital-root cage's root", 1, 9)
        return cls(cells, root).settled(size)  # type: ignore[return-value]

    def fits(self, digits: Sequence[int], n: int) -> str | None:
        """The digits' sum and its digital root."""
        total = sum(digits)
        if digital_root(total) != self.root:
            return f"adds up to {total}, of digital root {digital_root(total)}, not {self.root}"
        return None

    def sets(self, n: int) -> tuple[tuple[int, ...], ...]:
        """The sets whose sum has the root."""
        return _root_sets(n, len(self.cells), self.root)

    def draw(self, drawing: Drawing) -> None:
        """A cage labelled ``DR4``, as f-puzzles writes it."""
        drawing.cage(self.cells, self.kind, f"DR{self.root}")


def subset_sums(digits: Sequence[int]) -> set[int]:
    """Every sum of one or more of ``digits`` (each used at most once)."""
    out: set[int] = set()
    for size in range(1, len(digits) + 1):
        out.update(sum(part) for part in combinations(digits, size))
    return out


@lru_cache(maxsize=4096)
def _rellik_sets(n: int, k: int, value: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for combo in digit_sets(n, k, None):
        reach = 1  # bit s: some of the digits so far add up to s (bit 0: none of them)
        for d in combo:
            reach |= reach << d
        if not reach >> value & 1:
            out.append(combo)
    return tuple(out)


@kind
@dataclass(frozen=True, slots=True)
class RellikCage(DigitSetCage):
    """A rellik cage: different digits, no one or more of which add up to ``value``.

    ISS's reading ("any combination of one or more digits within the cage cannot
    sum to the given value"): subsets of every size, a single digit too. JSON:
    ``{"kind": "rellik-cage", "cells": ["r1c1", "r1c2"], "value": 5}``.
    """

    kind: ClassVar[str] = "rellik-cage"
    meaning: ClassVar[str] = "different digits, no one or more of which add up to its value"
    example: ClassVar[dict[str, Any]] = {
        "kind": "rellik-cage",
        "cells": ["r1c1", "r1c2", "r2c1"],
        "value": 5,
    }
    cells: tuple[int, ...]
    value: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "rellik-cage", "cells": [...], "value": v}``."""
        return {"kind": self.kind, "cells": list(self.cells), "value": self.value}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> RellikCage:
        """Cells as a cage's and a positive value some set of their digits avoids."""
        only_keys(spec, cls.kind, "cells", "value")
        cells = cls.checked_cells(spec, size)
        value = whole(spec.get("value"), "a rellik cage's value", 1)
        return cls(cells, value).settled(size)  # type: ignore[return-value]

    def fits(self, digits: Sequence[int], n: int) -> str | None:
        """Some of the digits adding up to the value."""
        if self.value in subset_sums(digits):
            return f"holds digits adding up to {self.value}"
        return None

    def sets(self, n: int) -> tuple[tuple[int, ...], ...]:
        """The sets none of whose subsets add up to the value."""
        return _rellik_sets(n, len(self.cells), self.value)

    def draw(self, drawing: Drawing) -> None:
        """A cage labelled with the value crossed out (``≠5``): no digits add up to it."""
        drawing.cage(self.cells, self.kind, f"\u2260{self.value}")


def halves(n: int) -> tuple[int, int]:
    """The low and high digits of 1..n as masks: the first and the last n // 2.

    On an odd side the middle digit is neither.
    """
    half = n // 2
    return mask_of(range(1, half + 1)), mask_of(range(n - half + 1, n + 1))


@lru_cache(maxsize=4096)
def _equality_sets(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    low, high = halves(n)
    out = []
    for combo in digit_sets(n, k, None):
        mask = mask_of(combo)
        even = sum(1 for d in combo if d % 2 == 0)
        lows, highs = (mask & low).bit_count(), (mask & high).bit_count()
        if 2 * even == k and lows == highs and lows + highs == k:
            out.append(combo)
    return tuple(out)


@kind
@dataclass(frozen=True, slots=True)
class EqualityCage(DigitSetCage):
    """An equality cage (ISS): different digits, as many even as odd, as many low as high.

    Low digits are the first n // 2 (1-4 on 9x9), high ones the last n // 2 (6-9); on
    an odd side the middle digit (5) is neither, so it may not stand in the cage.
    JSON: ``{"kind": "equality-cage", "cells": ["r1c1", "r1c2"]}``.
    """

    kind: ClassVar[str] = "equality-cage"
    meaning: ClassVar[str] = (
        "different digits, as many even as odd and as many low as high (no middle digit)"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "equality-cage", "cells": ["r1c1", "r1c2"]}
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """``{"kind": "equality-cage", "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> EqualityCage:
        """Cells as a cage's, some set of which can balance (an even number of them)."""
        only_keys(spec, cls.kind, "cells")
        return cls(cls.checked_cells(spec, size)).settled(size)  # type: ignore[return-value]

    def fits(self, digits: Sequence[int], n: int) -> str | None:
        """Unequal counts of even and odd, or of low and high digits; a middle digit."""
        half = n // 2
        even = sum(1 for d in digits if d % 2 == 0)
        low = sum(1 for d in digits if d <= half)
        high = sum(1 for d in digits if d > n - half)
        if 2 * even != len(digits):
            return f"holds {even} even and {len(digits) - even} odd digits"
        if low + high != len(digits):
            return f"holds the middle digit {(n + 1) // 2}"
        if low != high:
            return f"holds {low} low and {high} high digits"
        return None

    def sets(self, n: int) -> tuple[tuple[int, ...], ...]:
        """The balanced sets."""
        return _equality_sets(n, len(self.cells))

    def draw(self, drawing: Drawing) -> None:
        """A cage labelled ``=``."""
        drawing.cage(self.cells, self.kind, "=")


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
    if rule.sums:
        raise RulesError(
            f"f-puzzles has no multi-sum cage ({rule.where(out.n)} adds up to one of "
            f"{', '.join(map(str, rule.sums))})"
        )
    item: dict[str, Any] = {"cells": out.names(rule.cells)}
    if rule.total is not None:
        item["value"] = str(rule.total)
    out.add("killercage", item)


#: A digital root in a cosmetic cage's value: ``DR4`` (any case, spaces allowed).
_DIGITAL_ROOT = re.compile(r"DR\s*(\d+)", re.IGNORECASE)


@reads("cage")
def _read_digital_root_cages(reading: Reading, key: str) -> list[Constraint]:
    """Digital-root cages: the cosmetic cages whose value holds ``DR<n>``.

    Any other cosmetic cage is a drawing (the reader warns of those). One whose
    value holds "DR" with no root after it is a drawing too, said in a note of its
    own: the reader's warning about drawings passes over every value holding "DR".
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        value = str(item.get("value") or "")
        if "DR" not in value.upper():
            continue
        match = _DIGITAL_ROOT.search(value)
        if match is None:
            reading.note(f"cage {k}: {value!r} names no digital root, so it is read as a drawing")
            continue
        root = reading.number(match.group(1), f"cage {k}'s digital root", 1, 9)
        cells = reading.cells(item.get("cells"), f"cage {k}")
        spec = {"kind": DigitalRootCage.kind, "cells": cells, "root": root}
        out.append(DigitalRootCage.from_spec(spec, n))
    return out


@writes(DigitalRootCage)
def _write_digital_root_cage(rule: DigitalRootCage, out: Writing) -> None:
    item = {
        "cells": out.names(rule.cells),
        "value": f"DR{rule.root}",
        "outlineC": "#000000",
        "fontC": "#000000",
    }
    out.add("cage", item)
