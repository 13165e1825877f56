"""Rules beyond the no-repeat units: the constraint kinds, and their specs.

A constraint is a frozen value of one kind (a killer cage, a thermometer, a kropki
dot...), part of a puzzle's :class:`~cpsudoku.model.rules.Rules`. Each kind has a name
(``kind``), a JSON spec, and a check of its cells against the grid. Engines declare
the kinds they take; one that lacks a kind refuses the puzzle by name, so a rule is
never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, pairwise
from typing import Any, ClassVar

from cpsudoku.model.errors import RulesError

#: A cell written as ``r3c5`` (1-based), as setters' tools write them.
_CELL_NAME = re.compile(r"^[rR](\d+)[cC](\d+)$")


class Constraint:
    """Base of the constraint kinds: frozen dataclasses, registered by :func:`kind`.

    A subclass sets :attr:`kind`, and writes :meth:`spec`, :meth:`from_spec`,
    :meth:`problem` (the verifier's check of a complete grid) and :meth:`possible`
    (the oracle's check of a partial one).
    """

    kind: ClassVar[str] = ""
    #: What the rule says, in a few words, for ``cpsudoku solve`` and messages.
    meaning: ClassVar[str] = ""
    #: The cells the constraint speaks of.
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """The constraint as a JSON-ready object, with its ``"kind"``."""
        raise NotImplementedError

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """The constraint of ``spec`` on a grid of side ``size``, checked.

        Raises:
            RulesError: a malformed spec, or cells off the grid.
        """
        raise NotImplementedError

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """What a complete grid (``values``, row-major) breaks of this rule, or None."""
        raise NotImplementedError

    def possible(self, values: Sequence[int], n: int) -> bool:
        """False when a partial grid (0 = empty) can no longer keep this rule."""
        raise NotImplementedError

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """The oracle's propagation: drop candidates this rule forbids, in place.

        ``cand[i]`` is the bit mask of cell ``i``'s possible values (bit ``d-1`` for
        ``d``). Returns -1 on a contradiction, 1 when a candidate went, else 0.
        """
        raise NotImplementedError


#: Every constraint kind, by name.
KINDS: dict[str, type[Constraint]] = {}


def kind(cls: type[Constraint]) -> type[Constraint]:
    """Class decorator: register a constraint kind under its ``kind`` name."""
    if not cls.kind or cls.kind in KINDS:
        raise ValueError(f"constraint kind {cls.kind!r} is empty or taken")
    KINDS[cls.kind] = cls
    return cls


def cell_name(i: int, n: int) -> str:
    """The ``r1c2`` name of cell ``i`` of an ``n x n`` grid."""
    return f"r{i // n + 1}c{i % n + 1}"


def check_cell(i: object, n: int, where: str) -> None:
    """Raise RulesError unless ``i`` is a cell index of an ``n x n`` grid."""
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n * n:
        raise RulesError(f"cell {i!r} of {where} is not a cell of a {n}x{n} grid")


def cell_index(value: object, n: int) -> int:
    """A cell given as a 0-based index or as an ``r1c2`` name.

    Raises:
        RulesError: neither, or off the grid.
    """
    if isinstance(value, str):
        match = _CELL_NAME.match(value.strip())
        if match is None:
            raise RulesError(f"{value!r} is no cell: write r1c2 (1-based) or an index")
        r, c = int(match.group(1)), int(match.group(2))
        if not (1 <= r <= n and 1 <= c <= n):
            raise RulesError(f"{value} is not a cell of a {n}x{n} grid")
        return (r - 1) * n + c - 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{value!r} is no cell: write r1c2 (1-based) or an index")
    check_cell(value, n, "the rules")
    return value


def only_keys(spec: Mapping[str, Any], kind: str, *keys: str) -> None:
    """Raise RulesError naming the first key of ``spec`` a ``kind`` rule does not take."""
    extra = sorted(set(spec) - {"kind", *keys})
    if extra:
        raise RulesError(f"a {kind} rule takes no {extra[0]!r}")


def as_list(value: object, what: str) -> list[Any]:
    """``value`` as a list, or RulesError naming ``what`` it should have been."""
    if not isinstance(value, list | tuple):
        raise RulesError(f"{what} must be a list, not {type(value).__name__}")
    return list(value)


@kind
@dataclass(frozen=True, slots=True)
class Cage(Constraint):
    """A killer cage: its cells hold different digits that add up to ``total``.

    ``total`` None is a cage without a sum (its digits still differ). JSON:
    ``{"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}``.
    """

    kind: ClassVar[str] = "cage"
    meaning: ClassVar[str] = "killer: different digits adding up to the cage's sum"
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
        where = f"the cage at {cell_name(cells[0], size)}" if cells else "a cage"
        if not cells:
            raise RulesError("a cage has no cells")
        for i in cells:
            check_cell(i, size, where)
        if len(set(cells)) != len(cells):
            raise RulesError(f"{where} lists a cell twice")
        if len(cells) > size:
            raise RulesError(f"{where} has {len(cells)} cells; its digits cannot all differ")
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
        return _digit_sets(n, len(self.cells), self.total)

    @property
    def restricts(self) -> bool:
        """True when not every set of different digits will do (a sum, a renban)."""
        return self.total is not None

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Repeated digits, or the wrong sum, in the cage."""
        digits = [values[i] for i in self.cells]
        where = f"the cage at {cell_name(self.cells[0], n)}"
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

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Open cells keep only digits of the digit sets that can still be completed.

        A set stays when it holds the placed digits, each of its missing digits is a
        candidate of some open cell, and each open cell has a candidate among them.
        Open cells keep the digits of the sets that stay; a digit every such set
        needs and only one open cell can take goes there.
        """
        placed = [values[i] for i in self.cells if values[i]]
        have = 0
        for d in placed:
            bit = 1 << (d - 1)
            if have & bit:
                return -1  # a digit twice
            have |= bit
        open_cells = [i for i in self.cells if not values[i]]
        reach = 0
        for i in open_cells:
            reach |= cand[i]
        allowed, needed = 0, -1
        for combo in self.combinations(n):
            mask = sum(1 << (d - 1) for d in combo)
            missing = mask & ~have
            if mask & have != have or missing & ~reach:
                continue
            if any(not cand[i] & missing for i in open_cells):
                continue
            allowed |= mask
            needed &= missing
        if not allowed:
            return -1
        keep = allowed & ~have
        changed = 0
        for i in open_cells:
            if cand[i] & ~keep:
                cand[i] &= keep
                if not cand[i]:
                    return -1
                changed = 1
        if needed > 0:  # digits every remaining set needs: one open cell left for one?
            m = needed
            while m:
                bit = m & -m
                m ^= bit
                takers = [i for i in open_cells if cand[i] & bit]
                if not takers:
                    return -1
                if len(takers) == 1 and cand[takers[0]] != bit:
                    cand[takers[0]] = bit
                    changed = 1
        return changed


@kind
@dataclass(frozen=True, slots=True)
class Renban(Cage):
    """A renban line: its cells hold different digits that form a run (1-2-3, 5-6-7...).

    A cage whose digit sets are the runs of its length. JSON:
    ``{"kind": "renban", "cells": ["r1c1", "r1c2", "r1c3"]}``.
    """

    kind: ClassVar[str] = "renban"
    meaning: ClassVar[str] = "different digits forming a run, in any order"

    def spec(self) -> dict[str, Any]:
        """``{"kind": "renban", "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Renban:
        """A renban line: cells on the grid, distinct, at most n of them."""
        only_keys(spec, cls.kind, "cells")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), "renban cells"))
        cage = Cage.checked(cells, None, size)
        return cls(cage.cells)

    def combinations(self, n: int) -> list[tuple[int, ...]]:
        """The runs of as many digits as the line has cells."""
        k = len(self.cells)
        return [tuple(range(start, start + k)) for start in range(1, n - k + 2)]

    @property
    def restricts(self) -> bool:
        """Always: only runs will do."""
        return True

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Repeated digits, or digits that are not a run."""
        digits = [values[i] for i in self.cells]
        where = f"the renban at {cell_name(self.cells[0], n)}"
        if len(set(digits)) != len(digits):
            return f"{where} repeats a digit"
        if max(digits) - min(digits) != len(digits) - 1:
            return f"{where} holds {sorted(digits)}, not a run"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Placed digits differ and still fit in a run of the line's length."""
        placed = [values[i] for i in self.cells if values[i]]
        if len(set(placed)) != len(placed):
            return False
        return not placed or max(placed) - min(placed) <= len(self.cells) - 1


class PairRule(Constraint):
    """Base of the rules over pairs of cells across the whole grid (anti-knight...).

    A subclass sets :attr:`kind`, :attr:`meaning`, :meth:`pairs_of` (which cells are
    related) and :meth:`clash` (which two values the related cells may not hold).
    """

    size: int
    cells: tuple[int, ...]
    #: True when the related cells only have to differ (then each pair is a unit of two).
    differ: ClassVar[bool] = False

    @classmethod
    def of(cls, size: int) -> PairRule:
        """The rule on a grid of side ``size``."""
        return cls(size, tuple(range(size * size)))  # type: ignore[call-arg]

    def spec(self) -> dict[str, Any]:
        """``{"kind": ...}``: the rule has no parameters."""
        return {"kind": self.kind}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """The rule of ``spec`` (no other key) on a grid of side ``size``."""
        only_keys(spec, cls.kind)
        return cls.of(size)

    @staticmethod
    def pairs_of(n: int) -> list[tuple[int, int]]:
        """The related cells ``(i, j)``, ``i < j``, of an ``n x n`` grid."""
        raise NotImplementedError

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """True when related cells may not hold ``a`` and ``b``."""
        raise NotImplementedError

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The related cells of this grid."""
        return _pairs(self.pairs_of, self.size)

    def clashes(self, n: int) -> list[tuple[int, int]]:
        """Every pair of values ``(a, b)`` two related cells may not hold."""
        return [(a, b) for a in range(1, n + 1) for b in range(1, n + 1) if self.clash(a, b)]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first related pair whose values clash."""
        for i, j in self.pairs:
            if self.clash(values[i], values[j]):
                return (
                    f"{cell_name(i, n)} and {cell_name(j, n)} hold {values[i]} and "
                    f"{values[j]}: {self.kind}"
                )
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """No two filled related cells clash."""
        return all(
            not (values[i] and values[j] and self.clash(values[i], values[j]))
            for i, j in self.pairs
        )

    def supports(self, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """For each value, the values the other cell of a pair may hold beside it.

        ``(first, second)``: ``first[a]`` is the mask of ``b`` with ``clash(a, b)``
        false (cell ``i`` holding ``a``), ``second[b]`` the mask of such ``a``. Worked
        out once per kind, side and (for a negative rule) mark.
        """
        key = (type(self), n, getattr(self, "mark", None), getattr(self, "values", None))
        tables = _SUPPORTS.get(key)
        if tables is None:
            values = range(1, n + 1)
            first = tuple(
                sum(1 << (b - 1) for b in values if a and not self.clash(a, b))
                for a in range(n + 1)
            )
            second = tuple(
                sum(1 << (a - 1) for a in values if b and not self.clash(a, b))
                for b in range(n + 1)
            )
            tables = _SUPPORTS[key] = (first, second)
        return tables

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each cell of a related pair keeps the values some value of its partner allows.

        Arc consistency over the pairs, one pass (the oracle repeats it to a fixpoint).
        A filled cell with no allowed partner value is a contradiction.
        """
        first, second = self.supports(n)
        changed = 0
        for i, j in self.pairs:
            vi, vj = values[i], values[j]
            mi = 1 << (vi - 1) if vi else cand[i]
            mj = 1 << (vj - 1) if vj else cand[j]
            for cell, mine, theirs, table in ((i, mi, mj, first), (j, mj, mi, second)):
                keep, m = 0, mine
                while m:
                    bit = m & -m
                    m ^= bit
                    if table[bit.bit_length()] & theirs:
                        keep |= bit
                if keep != mine:
                    if not keep or values[cell]:
                        return -1
                    cand[cell] = keep
                    changed = 1
                    if cell == i:
                        mi = keep
        return changed


#: The support tables of the pair rules (see :meth:`PairRule.supports`).
_SUPPORTS: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}


@lru_cache(maxsize=64)
def _pairs(pairs_of: Callable[[int], list[tuple[int, int]]], n: int) -> list[tuple[int, int]]:
    """A rule's related cells on a grid of side ``n``, worked out once."""
    return pairs_of(n)


def _moves(n: int, steps: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pairs of cells one of ``steps`` apart (both directions counted once)."""
    out = set()
    for r in range(n):
        for c in range(n):
            for dr, dc in steps:
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n:
                    a, b = r * n + c, rr * n + cc
                    out.add((min(a, b), max(a, b)))
    return sorted(out)


@kind
@dataclass(frozen=True, slots=True)
class AntiKnight(PairRule):
    """Cells a chess knight's move apart hold different values. ``{"kind": "anti-knight"}``."""

    kind: ClassVar[str] = "anti-knight"
    meaning: ClassVar[str] = "cells a knight's move apart differ"
    differ: ClassVar[bool] = True
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def pairs_of(n: int) -> list[tuple[int, int]]:
        """Cells a knight's move apart."""
        return _moves(n, [(1, 2), (2, 1), (1, -2), (2, -1)])

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Equal values."""
        return a == b


@kind
@dataclass(frozen=True, slots=True)
class AntiKing(PairRule):
    """Cells a chess king's move apart hold different values. ``{"kind": "anti-king"}``."""

    kind: ClassVar[str] = "anti-king"
    meaning: ClassVar[str] = "cells a king's move apart (diagonally too) differ"
    differ: ClassVar[bool] = True
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def pairs_of(n: int) -> list[tuple[int, int]]:
        """Cells a king's move apart."""
        return _moves(n, [(0, 1), (1, 0), (1, 1), (1, -1)])

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Equal values."""
        return a == b


@kind
@dataclass(frozen=True, slots=True)
class NonConsecutive(PairRule):
    """Orthogonal neighbours differ by more than 1. ``{"kind": "non-consecutive"}``."""

    kind: ClassVar[str] = "non-consecutive"
    meaning: ClassVar[str] = "orthogonal neighbours are not consecutive"
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def pairs_of(n: int) -> list[tuple[int, int]]:
        """Orthogonal neighbours."""
        return _moves(n, [(0, 1), (1, 0)])

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Values one apart."""
        return abs(a - b) == 1


class MarkRule(PairRule):
    """Base of the rules drawn on given cells: lines (in order) and dots (two cells).

    JSON: ``{"kind": ..., "cells": ["r1c1", "r1c2", ...]}``. A subclass sets how its
    cells pair up (:meth:`pairs_on`), :meth:`clash` and how many cells it takes.
    """

    #: The fewest and the most cells the mark takes.
    least: ClassVar[int] = 2
    most: ClassVar[int | None] = None

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}`` (cells as indices)."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """The mark of ``spec``: cells on the grid, distinct, as many as it takes."""
        only_keys(spec, cls.kind, "cells")
        cells = tuple(
            cell_index(c, size) for c in as_list(spec.get("cells"), f"a {cls.kind}'s cells")
        )
        if len(cells) < cls.least or (cls.most is not None and len(cells) > cls.most):
            wanted = f"{cls.least}" if cls.most == cls.least else f"at least {cls.least}"
            raise RulesError(f"a {cls.kind} takes {wanted} cells, not {len(cells)}")
        if len(set(cells)) != len(cells):
            raise RulesError(f"a {cls.kind} lists a cell twice")
        return cls(size, cells)  # type: ignore[call-arg]

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Its pairs of cells, ordered as :meth:`clash` reads them."""
        return self.pairs_on(self.cells)

    @staticmethod
    def pairs_on(cells: tuple[int, ...]) -> list[tuple[int, int]]:
        """Neighbours along the line (a dot: its two cells)."""
        return list(pairwise(cells))


@kind
@dataclass(frozen=True, slots=True)
class Thermometer(MarkRule):
    """Values strictly increase along the line, from its bulb (the first cell)."""

    kind: ClassVar[str] = "thermometer"
    meaning: ClassVar[str] = "values increase from the bulb"
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Not increasing."""
        return a >= b


@kind
@dataclass(frozen=True, slots=True)
class Whisper(MarkRule):
    """Neighbours along the line differ by at least half the grid's side, rounded up.

    5 on 9x9 (German whispers), 2 on 4x4, 3 on 6x6, 8 on 16x16.
    """

    kind: ClassVar[str] = "whisper"
    meaning: ClassVar[str] = "neighbours on the line differ by at least ceil(n/2)"
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:  # type: ignore[override]
        """Closer than ceil(n/2)."""
        return abs(a - b) < (self.size + 1) // 2


@kind
@dataclass(frozen=True, slots=True)
class Palindrome(MarkRule):
    """The line reads the same from both ends."""

    kind: ClassVar[str] = "palindrome"
    meaning: ClassVar[str] = "the line reads the same both ways"
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def pairs_on(cells: tuple[int, ...]) -> list[tuple[int, int]]:
        """Cells at the same distance from either end."""
        return [(cells[k], cells[-1 - k]) for k in range(len(cells) // 2)]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Different values."""
        return a != b


@kind
@dataclass(frozen=True, slots=True)
class KropkiWhite(MarkRule):
    """A white dot: its two cells hold consecutive values."""

    kind: ClassVar[str] = "kropki-white"
    meaning: ClassVar[str] = "the two cells differ by 1"
    most: ClassVar[int | None] = 2
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Not consecutive."""
        return abs(a - b) != 1


@kind
@dataclass(frozen=True, slots=True)
class KropkiBlack(MarkRule):
    """A black dot: one of its two cells holds twice the other's value."""

    kind: ClassVar[str] = "kropki-black"
    meaning: ClassVar[str] = "one cell is twice the other"
    most: ClassVar[int | None] = 2
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Neither is twice the other."""
        return a != 2 * b and b != 2 * a


@kind
@dataclass(frozen=True, slots=True)
class XMark(MarkRule):
    """An X between two cells: their values add up to 10."""

    kind: ClassVar[str] = "x"
    meaning: ClassVar[str] = "the two cells add up to 10"
    most: ClassVar[int | None] = 2
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Another sum."""
        return a + b != 10


@kind
@dataclass(frozen=True, slots=True)
class VMark(MarkRule):
    """A V between two cells: their values add up to 5."""

    kind: ClassVar[str] = "v"
    meaning: ClassVar[str] = "the two cells add up to 5"
    most: ClassVar[int | None] = 2
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def clash(a: int, b: int) -> bool:
        """Another sum."""
        return a + b != 5


#: The dot and mark kinds a negative rule may speak of.
NEGATABLE = ("kropki-white", "kropki-black", "x", "v")

#: The value a dot or mark of each kind stands for: a white dot's difference, a black
#: dot's ratio, an X's or a V's sum. A negative rule forbids these unless told others.
MARK_VALUES = {"kropki-white": 1, "kropki-black": 2, "x": 10, "v": 5}


def mark_allows(mark: str, value: int, a: int, b: int) -> bool:
    """True when a mark of kind ``mark`` standing for ``value`` allows ``a`` and ``b``.

    A white dot of value k: the two values differ by k; a black dot: one is k times
    the other; an X or a V: they add up to its value.
    """
    if mark == "kropki-white":
        return abs(a - b) == value
    if mark == "kropki-black":
        return a == value * b or b == value * a
    return a + b == value


@kind
@dataclass(frozen=True, slots=True)
class Negative(PairRule):
    """The negative rule of a dot or mark kind: every such dot or mark is given.

    Orthogonal neighbours without an exempting mark may not hold values a mark of kind
    ``of`` allows (without a white dot, not consecutive; without an X, no sum of 10).
    JSON: ``{"kind": "negative", "of": "kropki-white"}``, with optionally

    - ``"values"``: the mark values it forbids (default the kind's own: a white dot's
      difference 1, a black dot's ratio 2, 10 for X, 5 for V); f-puzzles' negative
      ratio forbids every ratio used on the grid's black dots;
    - ``"exempt"``: the mark kinds whose marks exempt their pair (default the kind
      itself). f-puzzles and the solvers setters use with it exempt a pair holding a
      white or a black dot from both kropki negatives (``["kropki-white",
      "kropki-black"]``), and a pair holding an X or a V from both XV negatives.

    The exempt pairs come from the puzzle's own marks:
    :class:`~cpsudoku.model.rules.Rules` fills them in (:meth:`marking`), so a negative
    rule always matches the marks beside it.
    """

    kind: ClassVar[str] = "negative"
    meaning: ClassVar[str] = "every dot or mark of its kind is given"
    size: int
    cells: tuple[int, ...]
    mark: str
    marked: frozenset[tuple[int, int]] = frozenset()
    values: tuple[int, ...] = ()
    exempt: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.values:
            object.__setattr__(self, "values", (MARK_VALUES[self.mark],))
        if not self.exempt:
            object.__setattr__(self, "exempt", (self.mark,))

    def spec(self) -> dict[str, Any]:
        """``{"kind": "negative", "of": ...}`` (and values, exempt when not the default)."""
        out: dict[str, Any] = {"kind": self.kind, "of": self.mark}
        if self.values != (MARK_VALUES[self.mark],):
            out["values"] = list(self.values)
        if self.exempt != (self.mark,):
            out["exempt"] = list(self.exempt)
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """``of`` a dot or mark kind; ``values`` whole numbers; ``exempt`` mark kinds."""
        only_keys(spec, cls.kind, "of", "values", "exempt")
        of = spec.get("of")
        if of not in NEGATABLE:
            raise RulesError(f"a negative rule is of one of {', '.join(NEGATABLE)}, not {of!r}")
        values = spec.get("values", [MARK_VALUES[of]])
        if (
            not isinstance(values, list | tuple)
            or not values
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values)
        ):
            raise RulesError(f"a negative rule's values are positive whole numbers, not {values!r}")
        exempt = spec.get("exempt", [of])
        if not isinstance(exempt, list | tuple) or any(e not in NEGATABLE for e in exempt):
            raise RulesError(
                f"a negative rule exempts marks of {', '.join(NEGATABLE)}, not {exempt!r}"
            )
        return cls(
            size,
            tuple(range(size * size)),
            str(of),
            values=tuple(sorted(set(values))),
            exempt=tuple(sorted(set(exempt) | {of})),
        )

    def marking(self, constraints: Sequence[Constraint]) -> Negative:
        """This rule with its exempt pairs taken from ``constraints``' marks."""
        marked = frozenset(
            (min(c.cells), max(c.cells)) for c in constraints if c.kind in self.exempt
        )
        if marked == self.marked:
            return self
        return Negative(self.size, self.cells, self.mark, marked, self.values, self.exempt)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Orthogonal neighbours without an exempting mark."""
        return [p for p in _pairs(NonConsecutive.pairs_of, self.size) if p not in self.marked]

    def clash(self, a: int, b: int) -> bool:  # type: ignore[override]
        """The values a mark of the kind, of one of the rule's values, would allow."""
        return any(mark_allows(self.mark, v, a, b) for v in self.values)


class CellValues(Constraint):
    """Base of the rules that narrow cells one by one: the values each may hold.

    A subclass gives :meth:`allowed`, the bit mask (bit ``d-1`` for ``d``) of a listed
    cell's values.
    """

    size: int
    cells: tuple[int, ...]

    def allowed(self, k: int) -> int:
        """The values the ``k``-th listed cell may hold, as a bit mask."""
        raise NotImplementedError

    def masks(self) -> list[tuple[int, int]]:
        """``(cell, mask)`` for every listed cell."""
        return [(i, self.allowed(k)) for k, i in enumerate(self.cells)]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first listed cell holding a value it may not."""
        for i, mask in self.masks():
            if not mask >> (values[i] - 1) & 1:
                return f"{cell_name(i, n)} holds {values[i]}: {self.kind} says otherwise"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """No filled listed cell holds a value it may not."""
        return all(not values[i] or mask >> (values[i] - 1) & 1 for i, mask in self.masks())

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each open listed cell keeps only its allowed values."""
        changed = 0
        for i, mask in self.masks():
            if values[i]:
                if not mask >> (values[i] - 1) & 1:
                    return -1
            elif cand[i] & ~mask:
                cand[i] &= mask
                if not cand[i]:
                    return -1
                changed = 1
        return changed


class _Parity(CellValues):
    """Even or odd cells: ``{"kind": "even", "cells": [...]}``."""

    remainder: ClassVar[int] = 0

    def allowed(self, k: int) -> int:
        """The even (or odd) values of 1..n."""
        return sum(1 << (d - 1) for d in range(1, self.size + 1) if d % 2 == self.remainder)

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """Cells on the grid, none twice."""
        only_keys(spec, cls.kind, "cells")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), f"{cls.kind} cells"))
        if not cells or len(set(cells)) != len(cells):
            raise RulesError(f"{cls.kind} cells: none, or one listed twice")
        return cls(size, cells)  # type: ignore[call-arg]


@kind
@dataclass(frozen=True, slots=True)
class Even(_Parity):
    """The listed cells hold even values."""

    kind: ClassVar[str] = "even"
    meaning: ClassVar[str] = "the cells hold even values"
    remainder: ClassVar[int] = 0
    size: int
    cells: tuple[int, ...]


@kind
@dataclass(frozen=True, slots=True)
class Odd(_Parity):
    """The listed cells hold odd values."""

    kind: ClassVar[str] = "odd"
    meaning: ClassVar[str] = "the cells hold odd values"
    remainder: ClassVar[int] = 1
    size: int
    cells: tuple[int, ...]


@kind
@dataclass(frozen=True, slots=True)
class Candidates(CellValues):
    """Given candidates (pencilmarks, Sukaku): each listed cell holds one of its values.

    JSON: ``{"kind": "candidates", "cells": ["r1c1", ...], "values": ["129", ...]}``,
    each value string the cell's allowed symbols (1-9, then A-Z).
    """

    kind: ClassVar[str] = "candidates"
    meaning: ClassVar[str] = "each listed cell holds one of its given candidates"
    size: int
    cells: tuple[int, ...]
    values: tuple[int, ...]  # a bit mask per listed cell

    def allowed(self, k: int) -> int:
        """The given candidates of the ``k``-th listed cell."""
        return self.values[k]

    def spec(self) -> dict[str, Any]:
        """Cells and their candidate symbols."""
        symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        return {
            "kind": self.kind,
            "cells": list(self.cells),
            "values": [
                "".join(symbols[d] for d in range(self.size) if m >> d & 1) for m in self.values
            ],
        }

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """Cells on the grid, none twice, each with at least one candidate of 1..n."""
        symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:size]
        only_keys(spec, cls.kind, "cells", "values")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), "candidate cells"))
        texts = as_list(spec.get("values"), "candidate values")
        if len(texts) != len(cells) or len(set(cells)) != len(cells):
            raise RulesError("candidates: one value string per cell, no cell twice")
        masks = []
        for i, text in zip(cells, texts, strict=True):
            if (
                not isinstance(text, str)
                or not text
                or any(ch.upper() not in symbols for ch in text)
            ):
                raise RulesError(
                    f"candidates of {cell_name(i, size)}: {text!r} is no set of values 1..{size}"
                )
            masks.append(sum(1 << symbols.index(ch.upper()) for ch in set(text)))
        return cls(size, cells, tuple(masks))


@lru_cache(maxsize=4096)
def _digit_sets(n: int, k: int, total: int | None) -> list[tuple[int, ...]]:
    """The sets of ``k`` different digits of 1..n adding up to ``total`` (None: any)."""
    return [
        combo for combo in combinations(range(1, n + 1), k) if total is None or sum(combo) == total
    ]


def constraint_from_spec(spec: object, size: int) -> Constraint:
    """The constraint a spec describes (its ``"kind"`` picks the class).

    Raises:
        RulesError: no kind, an unknown kind (the message lists the known ones), or a
            malformed spec.
    """
    if not isinstance(spec, Mapping) or "kind" not in spec:
        raise RulesError(f'a constraint is an object with a "kind", not {spec!r}')
    cls = KINDS.get(str(spec["kind"]))
    if cls is None:
        known = ", ".join(sorted(KINDS)) or "none yet"
        raise RulesError(f"unknown constraint kind {spec['kind']!r}; known kinds: {known}")
    return cls.from_spec(spec, size)
