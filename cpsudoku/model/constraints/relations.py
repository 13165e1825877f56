"""Rules over pairs of cells: whole-grid relations (anti-knight...) and dots on edges.

Every rule here compiles to :class:`~cpsudoku.model.primitives.Relation`: which cells
are related (:attr:`PairRule.pairs`) and which two values they may not hold
(:meth:`PairRule.clash`). Whole-grid relations: anti-knight, anti-king,
non-consecutive and its diagonal twin, knightmare, chess moves of any offset, taxicab
distances and self-taxicab; marks: kropki dots, X, V and sum dots of any value with
their negative rules; clones; minimum and maximum cells.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    as_list,
    cell_index,
    cell_name,
    cells_of,
    kind,
    numbers,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.drawing import FILLS, PALETTE, Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Primitive, Relation, relation_table

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules


class PairRule(Constraint):
    """Base of the rules over pairs of cells (anti-knight, dots, lines...).

    A subclass sets :attr:`kind`, :attr:`meaning`, :attr:`pairs` (which cells are
    related, in the order :meth:`clash` reads them) and :meth:`clash` (which two values
    the related cells may not hold), and :meth:`table_key` when the clash depends on
    more than the grid's side.
    """

    size: int
    cells: tuple[int, ...]
    family: ClassVar[str] = "relations"

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The related cells."""
        raise NotImplementedError

    def clash(self, a: int, b: int) -> bool:
        """True when related cells (first, second) may not hold ``a`` and ``b``."""
        raise NotImplementedError

    def table_key(self) -> Hashable:
        """What the clash depends on beside the grid's side (its table is shared)."""
        return ()

    def clashes(self, n: int) -> list[tuple[int, int]]:
        """Every pair of values ``(a, b)`` two related cells may not hold."""
        return [(a, b) for a in range(1, n + 1) for b in range(1, n + 1) if self.clash(a, b)]

    def table(self, n: int) -> tuple[int, ...]:
        """The allowed-pairs table (see :class:`~cpsudoku.model.primitives.Relation`)."""
        key = (type(self), n, self.table_key())
        found = _TABLES.get(key)
        if found is None:
            found = _TABLES[key] = relation_table.__wrapped__(n, self._allows)
        return found

    def _allows(self, a: int, b: int) -> bool:
        return not self.clash(a, b)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """One relation over every related pair."""
        pairs = tuple(self.pairs)
        return (Relation(pairs, self.table(n)),) if pairs else ()

    def possible(self, values: Sequence[int], n: int) -> bool:
        """No two filled related cells clash."""
        return all(
            not (values[i] and values[j] and self.clash(values[i], values[j]))
            for i, j in self.pairs
        )

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first related pair whose values clash."""
        for i, j in self.pairs:
            if self.clash(values[i], values[j]):
                return (
                    f"{cell_name(i, n)} and {cell_name(j, n)} hold {values[i]} and "
                    f"{values[j]}: {self.kind}"
                )
        return None


#: Relation tables, per rule class, side and :meth:`PairRule.table_key`.
_TABLES: dict[tuple[Any, ...], tuple[int, ...]] = {}


@lru_cache(maxsize=256)
def moves(n: int, steps: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The pairs of cells one of ``steps`` apart (both directions counted once)."""
    out = set()
    for r in range(n):
        for c in range(n):
            for dr, dc in steps:
                for sr, sc in ((dr, dc), (dr, -dc), (-dr, dc), (-dr, -dc)):
                    rr, cc = r + sr, c + sc
                    if 0 <= rr < n and 0 <= cc < n:
                        a, b = r * n + c, rr * n + cc
                        if a != b:
                            out.add((min(a, b), max(a, b)))
    return sorted(out)


#: Orthogonal neighbours, knight's moves, king's moves (diagonal neighbours too).
ORTHOGONAL = ((0, 1), (1, 0))
DIAGONAL = ((1, 1),)
KNIGHT = ((1, 2), (2, 1))
KING = ((0, 1), (1, 0), (1, 1))


class GridRule(PairRule):
    """A rule over every pair of cells some steps apart, on the whole grid.

    JSON ``{"kind": ...}`` with no parameters. A subclass sets :attr:`steps`.
    """

    steps: ClassVar[tuple[tuple[int, int], ...]] = ()

    @classmethod
    def of(cls, size: int) -> GridRule:
        """The rule on a grid of side ``size``."""
        return cls(size, tuple(range(size * size)))  # type: ignore[call-arg]

    def spec(self) -> dict[str, Any]:
        """``{"kind": ...}``: the rule has no parameters."""
        return {"kind": self.kind}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> GridRule:
        """The rule of ``spec`` (no other key) on a grid of side ``size``."""
        only_keys(spec, cls.kind)
        return cls.of(size)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The cells :attr:`steps` apart."""
        return moves(self.size, self.steps)

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the {self.kind} rule"


@kind
@dataclass(frozen=True, slots=True)
class AntiKnight(GridRule):
    """Cells a chess knight's move apart hold different values. ``{"kind": "anti-knight"}``."""

    kind: ClassVar[str] = "anti-knight"
    meaning: ClassVar[str] = "cells a knight's move apart differ"
    example: ClassVar[dict[str, Any]] = {"kind": "anti-knight"}
    fpuzzles_key: ClassVar[str] = "antiknight"
    steps: ClassVar[tuple[tuple[int, int], ...]] = KNIGHT
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Equal values."""
        return a == b


@kind
@dataclass(frozen=True, slots=True)
class AntiKing(GridRule):
    """Cells a chess king's move apart hold different values. ``{"kind": "anti-king"}``."""

    kind: ClassVar[str] = "anti-king"
    meaning: ClassVar[str] = "cells a king's move apart (diagonally too) differ"
    example: ClassVar[dict[str, Any]] = {"kind": "anti-king"}
    fpuzzles_key: ClassVar[str] = "antiking"
    steps: ClassVar[tuple[tuple[int, int], ...]] = KING
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Equal values."""
        return a == b


@kind
@dataclass(frozen=True, slots=True)
class NonConsecutive(GridRule):
    """Orthogonal neighbours differ by more than 1. ``{"kind": "non-consecutive"}``."""

    kind: ClassVar[str] = "non-consecutive"
    meaning: ClassVar[str] = "orthogonal neighbours are not consecutive"
    example: ClassVar[dict[str, Any]] = {"kind": "non-consecutive"}
    steps: ClassVar[tuple[tuple[int, int], ...]] = ORTHOGONAL
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Values one apart."""
        return abs(a - b) == 1


@lru_cache(maxsize=1024)
def pair_table(n: int, clash: Callable[..., bool], *params: Hashable) -> tuple[int, ...]:
    """The allowed-pairs table of ``not clash(a, b, *params)`` on a grid of side ``n``.

    For rules whose clash is not one per rule (self-taxicab's, one per distance):
    ``clash`` is a module-level function, so each table is worked out once.
    """
    return relation_table.__wrapped__(n, lambda a, b: not clash(a, b, *params))


def _both(a: int, b: int, d: int) -> bool:
    return a == b == d


@kind
@dataclass(frozen=True, slots=True)
class DiagonalNonConsecutive(GridRule):
    """Diagonal neighbours differ by more than 1. ``{"kind": "diagonal-non-consecutive"}``."""

    kind: ClassVar[str] = "diagonal-non-consecutive"
    meaning: ClassVar[str] = "diagonally touching cells are not consecutive"
    example: ClassVar[dict[str, Any]] = {"kind": "diagonal-non-consecutive"}
    steps: ClassVar[tuple[tuple[int, int], ...]] = DIAGONAL
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Values one apart."""
        return abs(a - b) == 1


#: The sums a knightmare forbids unless told others (SudokuSolver's default).
KNIGHTMARE_SUMS = (5, 15)


@kind
@dataclass(frozen=True, slots=True)
class Knightmare(GridRule):
    """Cells a knight's move apart do not add up to one of ``sums`` (5 or 15 by default).

    JSON: ``{"kind": "knightmare"}``, or ``{"kind": "knightmare", "sums": [10]}``.
    """

    kind: ClassVar[str] = "knightmare"
    meaning: ClassVar[str] = "cells a knight's move apart do not add up to a listed sum (5, 15)"
    example: ClassVar[dict[str, Any]] = {"kind": "knightmare", "sums": [5, 15]}
    steps: ClassVar[tuple[tuple[int, int], ...]] = KNIGHT
    size: int
    cells: tuple[int, ...]
    sums: tuple[int, ...] = KNIGHTMARE_SUMS

    def spec(self) -> dict[str, Any]:
        """``{"kind": "knightmare"}``, and ``"sums"`` unless the default."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.sums != KNIGHTMARE_SUMS:
            out["sums"] = list(self.sums)
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Knightmare:
        """Optionally ``sums``: whole numbers two digits can make (2..2n)."""
        only_keys(spec, cls.kind, "sums")
        sums: tuple[int, ...] = KNIGHTMARE_SUMS
        if "sums" in spec:
            sums = tuple(sorted(set(numbers(spec["sums"], "a knightmare's sums", 2, 2 * size))))
        return cls(size, tuple(range(size * size)), sums)

    def table_key(self) -> Hashable:
        """The sums."""
        return self.sums

    def clash(self, a: int, b: int) -> bool:
        """A forbidden sum."""
        return a + b in self.sums


def _normal_offset(value: object, size: int) -> tuple[int, int]:
    """A chess offset ``[a, b]`` as ``(min(|a|, |b|), max(|a|, |b|))``."""
    pair = as_list(value, "a chess offset")
    if len(pair) != 2:
        raise RulesError(f"a chess offset is two whole numbers [a, b], not {value!r}")
    a, b = (abs(whole(v, "a chess offset's step", -(size - 1), size - 1)) for v in pair)
    if a == b == 0:
        raise RulesError("a chess offset [0, 0] moves nowhere")
    return min(a, b), max(a, b)


@lru_cache(maxsize=256)
def _chess_pairs(
    n: int, offsets: tuple[tuple[int, int], ...], listed: tuple[int, ...] | None
) -> list[tuple[int, int]]:
    """The cells one of ``offsets`` apart (mirrored), with a listed cell among them."""
    steps = tuple(sorted({step for a, b in offsets for step in ((a, b), (b, a))}))
    pairs = moves(n, steps)
    if listed is None:
        return pairs
    keep = set(listed)
    return [p for p in pairs if p[0] in keep or p[1] in keep]


@kind
@dataclass(frozen=True, slots=True)
class Chess(PairRule):
    """Cells a chess move apart do not share a digit: anti-knight and anti-king generalised.

    JSON: ``{"kind": "chess", "offsets": [[1, 2]]}``: each offset ``[a, b]`` stands
    for every move (+-a, +-b) and (+-b, +-a). Optionally ``"values"``: only those
    digits may not repeat a move apart; ``"cells"``: only pairs with at least one of
    the listed cells are related (as the solver setters use reads a chess rule
    limited to cells).
    """

    kind: ClassVar[str] = "chess"
    meaning: ClassVar[str] = (
        "cells a listed (a, b) move apart do not share a digit (optionally only the "
        "listed digits, or only pairs touching the listed cells)"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "chess", "offsets": [[1, 3]], "values": [1, 9]}
    size: int
    cells: tuple[int, ...]  # the whole grid: a listed cell's partners may lie anywhere
    offsets: tuple[tuple[int, int], ...]
    #: The digits that may not repeat (empty: every digit).
    digits: tuple[int, ...] = ()
    #: The listed cells: only pairs with one of them are related (empty: every pair).
    listed: tuple[int, ...] = ()

    def spec(self) -> dict[str, Any]:
        """Offsets, and the values and cells when listed."""
        out: dict[str, Any] = {"kind": self.kind, "offsets": [list(o) for o in self.offsets]}
        if self.digits:
            out["values"] = list(self.digits)
        if self.listed:
            out["cells"] = list(self.listed)
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Chess:
        """Offsets (at least one, on the grid), optionally digits 1..n and cells."""
        only_keys(spec, cls.kind, "offsets", "values", "cells")
        items = as_list(spec.get("offsets"), "a chess rule's offsets")
        if not items:
            raise RulesError("a chess rule needs at least one offset [a, b]")
        offsets = tuple(sorted({_normal_offset(item, size) for item in items}))
        digits: tuple[int, ...] = ()
        if "values" in spec:
            digits = tuple(sorted(set(numbers(spec["values"], "a chess rule's values", 1, size))))
        listed: tuple[int, ...] = ()
        if "cells" in spec:
            listed = cells_of(spec["cells"], size, "a chess rule's cells")
        return cls(size, tuple(range(size * size)), offsets, digits, listed)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The cells an offset apart (with a listed cell, when cells are listed)."""
        return _chess_pairs(self.size, self.offsets, self.listed or None)

    def table_key(self) -> Hashable:
        """The digits."""
        return self.digits

    def clash(self, a: int, b: int) -> bool:
        """The same digit (one of the listed, when digits are listed)."""
        return a == b and (not self.digits or a in self.digits)

    def where(self, n: int) -> str:
        """The rule and its offsets."""
        moves_ = ", ".join(f"({a}, {b})" for a, b in self.offsets)
        return f"the chess rule of moves {moves_}"

    def draw(self, drawing: Drawing) -> None:
        """A note of the rule (it speaks of the whole grid); its listed cells shaded."""
        drawing.note(self.describe(drawing.n))
        if self.listed:
            drawing.shade(self.listed, self.kind, colour=FILLS["chess"])


@lru_cache(maxsize=256)
def taxicab_pairs(n: int, distance: int) -> list[tuple[int, int]]:
    """The pairs of cells at taxicab distance exactly ``distance`` (|dr| + |dc|)."""
    return moves(n, tuple((k, distance - k) for k in range(distance + 1)))


@kind
@dataclass(frozen=True, slots=True)
class Taxicab(PairRule):
    """Cells at taxicab distance exactly ``distance`` hold different digits.

    JSON: ``{"kind": "taxicab", "distance": 3}`` (|row difference| + |column
    difference| = 3).
    """

    kind: ClassVar[str] = "taxicab"
    meaning: ClassVar[str] = "cells exactly its distance apart (rows plus columns) differ"
    example: ClassVar[dict[str, Any]] = {"kind": "taxicab", "distance": 4}
    size: int
    cells: tuple[int, ...]
    distance: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "taxicab", "distance": k}``."""
        return {"kind": self.kind, "distance": self.distance}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Taxicab:
        """A distance of 1..2(n-1) (farther, no two cells are that far apart)."""
        only_keys(spec, cls.kind, "distance")
        distance = whole(spec.get("distance"), "a taxicab distance", 1, max(1, 2 * (size - 1)))
        return cls(size, tuple(range(size * size)), distance)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The cells exactly the distance apart."""
        return taxicab_pairs(self.size, self.distance)

    def clash(self, a: int, b: int) -> bool:
        """The same digit."""
        return a == b

    def where(self, n: int) -> str:
        """The rule and its distance."""
        return f"the taxicab rule of distance {self.distance}"


@kind
@dataclass(frozen=True, slots=True)
class SelfTaxicab(Constraint):
    """A digit d does not appear again at taxicab distance exactly d.

    JSON ``{"kind": "self-taxicab"}``. Its pairs' clash depends on their distance,
    so it is a relation per distance 1..n (two cells d apart may not both hold d).
    """

    kind: ClassVar[str] = "self-taxicab"
    meaning: ClassVar[str] = "a digit d does not appear again at taxicab distance exactly d"
    example: ClassVar[dict[str, Any]] = {"kind": "self-taxicab"}
    family: ClassVar[str] = "relations"
    size: int
    cells: tuple[int, ...]

    @classmethod
    def of(cls, size: int) -> SelfTaxicab:
        """The rule on a grid of side ``size``."""
        return cls(size, tuple(range(size * size)))

    def spec(self) -> dict[str, Any]:
        """``{"kind": "self-taxicab"}``: the rule has no parameters."""
        return {"kind": self.kind}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> SelfTaxicab:
        """The rule of ``spec`` (no other key) on a grid of side ``size``."""
        only_keys(spec, cls.kind)
        return cls.of(size)

    def rings(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """``(d, the pairs of cells d apart)`` for each digit d with such pairs."""
        n = self.size
        return [(d, taxicab_pairs(n, d)) for d in range(1, n + 1) if taxicab_pairs(n, d)]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Two cells d apart both holding d."""
        for d, pairs in self.rings():
            for i, j in pairs:
                if values[i] == values[j] == d:
                    return (
                        f"{cell_name(i, n)} and {cell_name(j, n)} both hold {d}, {d} apart: "
                        f"{self.kind}"
                    )
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """No two filled cells d apart both hold d."""
        return all(not (values[i] == values[j] == d) for d, pairs in self.rings() for i, j in pairs)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """One relation per distance d: its pairs may not both hold d."""
        return tuple(Relation(tuple(pairs), pair_table(n, _both, d)) for d, pairs in self.rings())

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the {self.kind} rule"


class MarkRule(PairRule):
    """Base of the rules drawn on given cells: lines (in order) and dots (two cells).

    JSON: ``{"kind": ..., "cells": ["r1c1", "r1c2", ...]}``. A subclass sets how its
    cells pair up (:meth:`pairs_on`), :meth:`clash` and how many cells it takes.
    """

    #: The fewest and the most cells the mark takes.
    least: ClassVar[int] = 2
    most: ClassVar[int | None] = None
    #: A line of the kind may end where it starts (a loop: its last cell pairs with its
    #: first), for the kinds whose rule reads only neighbours along the line.
    loops: ClassVar[bool] = False

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}`` (cells as indices)."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """The mark of ``spec``: cells on the grid, distinct, as many as it takes."""
        only_keys(spec, cls.kind, "cells")
        return cls(size, cls.checked_cells(spec.get("cells"), size))  # type: ignore[call-arg]

    @classmethod
    def checked_cells(cls, value: object, size: int) -> tuple[int, ...]:
        """The mark's cells: on the grid, distinct, as many as the kind takes.

        A kind that :attr:`loops` may repeat its first cell at the end, round at least
        three cells (``[a, b, c, a]``, as ISS and SudokuPad write a closed line).
        """
        cells = tuple(cell_index(c, size) for c in as_list(value, f"a {cls.kind}'s cells"))
        if len(cells) < cls.least or (cls.most is not None and len(cells) > cls.most):
            wanted = f"{cls.least}" if cls.most == cls.least else f"at least {cls.least}"
            raise RulesError(f"a {cls.kind} takes {wanted} cells, not {len(cells)}")
        loop = cls.loops and len(cells) >= 4 and cells[0] == cells[-1]
        if len(set(cells)) != len(cells) - loop:
            raise RulesError(f"a {cls.kind} lists a cell twice")
        return cells

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Its pairs of cells, ordered as :meth:`clash` reads them."""
        return self.pairs_on(self.cells)

    @staticmethod
    def pairs_on(cells: tuple[int, ...]) -> list[tuple[int, int]]:
        """Neighbours along the line (a dot: its two cells)."""
        return list(pairwise(cells))


class ValuedMark(MarkRule):
    """A dot or mark standing for a number: a difference, a ratio, a sum.

    JSON: ``{"kind": ..., "cells": [a, b]}``, with ``"value"`` when it is not the
    kind's default (:data:`MARK_VALUES`).
    """

    most: ClassVar[int | None] = 2
    value: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}``, and ``"value"`` unless the default."""
        out: dict[str, Any] = {"kind": self.kind, "cells": list(self.cells)}
        if self.value != MARK_VALUES[self.kind]:
            out["value"] = self.value
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """Two cells on the grid and, optionally, a positive whole ``value``."""
        only_keys(spec, cls.kind, "cells", "value")
        cells = cls.checked_cells(spec.get("cells"), size)
        value = spec.get("value", MARK_VALUES[cls.kind])
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RulesError(f"a {cls.kind}'s value is a positive whole number, not {value!r}")
        return cls(size, cells, value)  # type: ignore[call-arg]

    def table_key(self) -> Hashable:
        """The mark's value."""
        return self.value

    def clash(self, a: int, b: int) -> bool:
        """Not a pair the mark allows."""
        return not mark_allows(self.kind, self.value, a, b)

    def draw(self, drawing: Drawing) -> None:
        """A white or black dot on the edge (its value when not the default), or X/V."""
        a, b = self.cells
        if self.kind in ("x", "v"):
            drawing.edge_text(a, b, self.kind, self.kind.upper())
            return
        fill = "#ffffff" if self.kind == "kropki-white" else "#000000"
        label = None if self.value == MARK_VALUES[self.kind] else str(self.value)
        drawing.dot(a, b, self.kind, fill, label)


#: The value a dot or mark of each kind stands for unless told another: a white dot's
#: difference, a black dot's ratio, an X's, a V's or a sum dot's sum.
MARK_VALUES = {"kropki-white": 1, "kropki-black": 2, "x": 10, "v": 5, "sum-dot": 5}

#: The dot and mark kinds a negative rule may speak of.
NEGATABLE = tuple(MARK_VALUES)


def mark_allows(mark: str, value: int, a: int, b: int) -> bool:
    """True when a mark of kind ``mark`` standing for ``value`` allows ``a`` and ``b``.

    A white dot of value k: the two values differ by k; a black dot: one is k times
    the other; an X, a V or a sum dot: they add up to its value.
    """
    if mark == "kropki-white":
        return abs(a - b) == value
    if mark == "kropki-black":
        return a == value * b or b == value * a
    return a + b == value


@kind
@dataclass(frozen=True, slots=True)
class KropkiWhite(ValuedMark):
    """A white dot: its two cells differ by 1 (or by its ``value``)."""

    kind: ClassVar[str] = "kropki-white"
    meaning: ClassVar[str] = "the two cells differ by the dot's value (1)"
    example: ClassVar[dict[str, Any]] = {"kind": "kropki-white", "cells": ["r1c1", "r1c2"]}
    fpuzzles_key: ClassVar[str] = "difference"
    size: int
    cells: tuple[int, ...]
    value: int = 1


@kind
@dataclass(frozen=True, slots=True)
class KropkiBlack(ValuedMark):
    """A black dot: one of its two cells is twice (or ``value`` times) the other."""

    kind: ClassVar[str] = "kropki-black"
    meaning: ClassVar[str] = "one cell is the dot's value (2) times the other"
    example: ClassVar[dict[str, Any]] = {
        "kind": "kropki-black",
        "cells": ["r1c1", "r1c2"],
        "value": 3,
    }
    fpuzzles_key: ClassVar[str] = "ratio"
    size: int
    cells: tuple[int, ...]
    value: int = 2


@kind
@dataclass(frozen=True, slots=True)
class XMark(ValuedMark):
    """An X between two cells: their values add up to 10."""

    kind: ClassVar[str] = "x"
    meaning: ClassVar[str] = "the two cells add up to 10"
    example: ClassVar[dict[str, Any]] = {"kind": "x", "cells": ["r1c1", "r1c2"]}
    fpuzzles_key: ClassVar[str] = "xv"
    size: int
    cells: tuple[int, ...]
    value: int = 10


@kind
@dataclass(frozen=True, slots=True)
class VMark(ValuedMark):
    """A V between two cells: their values add up to 5."""

    kind: ClassVar[str] = "v"
    meaning: ClassVar[str] = "the two cells add up to 5"
    example: ClassVar[dict[str, Any]] = {"kind": "v", "cells": ["r1c1", "r1c2"]}
    fpuzzles_key: ClassVar[str] = "xv"
    size: int
    cells: tuple[int, ...]
    value: int = 5


@kind
@dataclass(frozen=True, slots=True)
class SumDot(ValuedMark):
    """A sum between two cells (XV generalised): their values add up to its ``value``.

    JSON: ``{"kind": "sum-dot", "cells": [a, b], "value": 7}`` (5 when no value is
    given, as the solver setters use reads a sum with none).
    """

    kind: ClassVar[str] = "sum-dot"
    meaning: ClassVar[str] = "the two cells add up to the dot's value (5)"
    example: ClassVar[dict[str, Any]] = {
        "kind": "sum-dot",
        "cells": ["r1c1", "r1c2"],
        "value": 7,
    }
    size: int
    cells: tuple[int, ...]
    value: int = 5


@kind
@dataclass(frozen=True, slots=True)
class Negative(PairRule):
    """The negative rule of a dot or mark kind: every such dot or mark is given.

    Orthogonal neighbours without an exempting mark may not hold values a mark of kind
    ``of`` allows (without a white dot, not consecutive; without an X, no sum of 10).
    JSON: ``{"kind": "negative", "of": "kropki-white"}``, with optionally

    - ``"values"``: the mark values it forbids (default the kind's own: a white dot's
      difference 1, a black dot's ratio 2, 10 for X, 5 for V and for a sum dot);
      f-puzzles' negative ratio forbids every ratio used on the grid's black dots;
      ``{"of": "sum-dot", "values": [7, 11]}``: neighbours without a sum dot add up
      to neither 7 nor 11;
    - ``"exempt"``: the mark kinds whose marks exempt their pair (default the kind
      itself). f-puzzles and the solvers setters use with it exempt a pair holding a
      white or a black dot from both kropki negatives (``["kropki-white",
      "kropki-black"]``), and a pair holding an X or a V from both XV negatives.

    The exempt pairs come from the puzzle's own marks (:meth:`bind`), so a negative
    rule always matches the marks beside it.
    """

    kind: ClassVar[str] = "negative"
    meaning: ClassVar[str] = "every dot or mark of its kind is given"
    example: ClassVar[dict[str, Any]] = {
        "kind": "negative",
        "of": "kropki-white",
        "exempt": ["kropki-white", "kropki-black"],
    }
    fpuzzles_key: ClassVar[str] = "nonconsecutive, negative"
    binds: ClassVar[bool] = True
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

    def bind(self, rules: Rules) -> Negative:
        """This rule with its exempt pairs taken from the rules' marks."""
        return self.marking(rules.constraints)

    def marking(self, constraints: Sequence[Constraint]) -> Negative:
        """This rule with its exempt pairs taken from ``constraints``' marks."""
        marked = frozenset(
            (min(c.cells), max(c.cells)) for c in constraints if c.kind in self.exempt
        )
        if marked == self.marked:
            return self
        return Negative(self.size, self.cells, self.mark, marked, self.values, self.exempt)

    def table_key(self) -> Hashable:
        """The mark kind and the values forbidden."""
        return (self.mark, self.values)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Orthogonal neighbours without an exempting mark."""
        return [p for p in moves(self.size, ORTHOGONAL) if p not in self.marked]

    def clash(self, a: int, b: int) -> bool:
        """The values a mark of the kind, of one of the rule's values, would allow."""
        return any(mark_allows(self.mark, v, a, b) for v in self.values)

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the negative rule of {self.mark}"

    def draw(self, drawing: Drawing) -> None:
        """A note: which neighbours may not hold what."""
        values = "/".join(map(str, self.values))
        what = {
            "kropki-white": f"differ by {values}",
            "kropki-black": f"be in ratio {values}",
        }.get(self.mark, f"add up to {values}")
        marks = " or ".join(
            m.replace("kropki-", "") + ("" if m in ("x", "v") else " dot") for m in self.exempt
        )
        drawing.note(f"all given: neighbours with no {marks} may not {what}")


@kind
@dataclass(frozen=True, slots=True)
class Clone(PairRule):
    """Clones: each listed cell holds the same value as its clone.

    JSON: ``{"kind": "clone", "cells": ["r1c1", "r1c2"], "clones": ["r5c5", "r5c6"]}``
    (``cells[i]`` equals ``clones[i]``; a cell may have several clones).
    """

    kind: ClassVar[str] = "clone"
    meaning: ClassVar[str] = "each cell holds the same value as its clone (cells[i] = clones[i])"
    example: ClassVar[dict[str, Any]] = {
        "kind": "clone",
        "cells": ["r1c1", "r1c2"],
        "clones": ["r5c5", "r5c6"],
    }
    fpuzzles_key: ClassVar[str] = "clone"
    size: int
    #: The cells cloned (``"cells"`` in JSON), in order.
    sources: tuple[int, ...]
    #: Their clones, ``clones[i]`` of ``sources[i]``.
    clones: tuple[int, ...]

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """Every cell of the rule: the cells cloned, then their clones."""
        return tuple(dict.fromkeys(self.sources + self.clones))

    def spec(self) -> dict[str, Any]:
        """The cells and their clones, as indices."""
        return {"kind": self.kind, "cells": list(self.sources), "clones": list(self.clones)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Clone:
        """As many clones as cells, on the grid, no cell its own clone."""
        only_keys(spec, cls.kind, "cells", "clones")
        cells = cells_of(spec.get("cells"), size, "a clone's cells", distinct=False)
        clones = cells_of(spec.get("clones"), size, "a clone's clones", distinct=False)
        if len(cells) != len(clones):
            raise RulesError(
                f"a clone lists {len(cells)} cells and {len(clones)} clones: one clone per cell"
            )
        for i, j in zip(cells, clones, strict=True):
            if i == j:
                raise RulesError(f"a clone pairs {cell_name(i, size)} with itself")
        return cls(size, cells, clones)

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Each cell with its clone."""
        return list(zip(self.sources, self.clones, strict=True))

    def draw(self, drawing: Drawing) -> None:
        """The cells and their clones shaded in one colour, each clone rule its own.

        The colour is the palette's next one after those of the clones drawn before.
        """
        before = {s.attrs["colour"] for s in drawing.shapes if s.role == self.kind}
        colour = PALETTE[len(before) % len(PALETTE)]
        drawing.shade(self.cells, self.kind, colour=colour, opacity=0.8)

    def clash(self, a: int, b: int) -> bool:
        """Different values."""
        return a != b


@lru_cache(maxsize=256)
def extremum_pairs(n: int, cells: tuple[int, ...]) -> list[tuple[int, int]]:
    """``(listed cell, orthogonal neighbour not listed)`` for every listed cell."""
    listed = set(cells)
    out = []
    for i in cells:
        r, c = divmod(i, n)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            j = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and j not in listed:
                out.append((i, j))
    return out


class Extremum(PairRule):
    """Base of minimum and maximum cells: each is below (above) its orthogonal neighbours.

    JSON: ``{"kind": "minimum", "cells": [...]}``. Neighbours listed in the same rule
    are not compared (f-puzzles and the solvers setters use with it read them so).
    """

    size: int
    #: The minimum (maximum) cells, as listed.
    listed: tuple[int, ...]

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The listed cells, then the neighbours they are compared with."""
        return tuple(dict.fromkeys((*self.listed, *(j for _, j in self.pairs))))

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.listed)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> PairRule:
        """Cells on the grid, none twice."""
        only_keys(spec, cls.kind, "cells")
        listed = cells_of(spec.get("cells"), size, f"a {cls.kind} rule's cells")
        return cls(size, listed)  # type: ignore[call-arg]

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Each listed cell with each orthogonal neighbour outside the list."""
        return extremum_pairs(self.size, self.listed)

    def where(self, n: int) -> str:
        """``the minimum at r2c2``."""
        return f"the {self.kind} at {cell_name(self.listed[0], n)}"

    def draw(self, drawing: Drawing) -> None:
        """Small arrowheads by the edges each cell is compared across.

        A maximum's point out of the cell (it is the greater), a minimum's in.
        """
        n = drawing.n
        towards: dict[int, list[tuple[int, int]]] = {i: [] for i in self.listed}
        for i, j in self.pairs:
            towards[i].append((j // n - i // n, j % n - i % n))
        for i in self.listed:
            drawing.chevron(i, self.kind, tuple(towards[i]), outward=self.kind == "maximum")


@kind
@dataclass(frozen=True, slots=True)
class Minimum(Extremum):
    """Minimum cells: each is less than every orthogonal neighbour not itself listed."""

    kind: ClassVar[str] = "minimum"
    meaning: ClassVar[str] = "each cell is less than its orthogonal neighbours outside the set"
    example: ClassVar[dict[str, Any]] = {"kind": "minimum", "cells": ["r2c2", "r8c8"]}
    fpuzzles_key: ClassVar[str] = "minimum"
    size: int
    listed: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Not below its neighbour."""
        return a >= b


@kind
@dataclass(frozen=True, slots=True)
class Maximum(Extremum):
    """Maximum cells: each is greater than every orthogonal neighbour not itself listed."""

    kind: ClassVar[str] = "maximum"
    meaning: ClassVar[str] = "each cell is greater than its orthogonal neighbours outside the set"
    example: ClassVar[dict[str, Any]] = {"kind": "maximum", "cells": ["r5c5"]}
    fpuzzles_key: ClassVar[str] = "maximum"
    size: int
    listed: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Not above its neighbour."""
        return a <= b


# ------------------------------------------------------------------------- f-puzzles


@reads("antiknight", "antiking")
def _read_grid_rules(reading: Reading, key: str) -> list[Constraint]:
    """Whole-grid flags."""
    if not reading.obj.get(key):
        return []
    return [(AntiKnight if key == "antiknight" else AntiKing).of(reading.n)]


@writes(AntiKnight, AntiKing)
def _write_grid_rule(rule: GridRule, out: Writing) -> None:
    out.flag(rule.kind.replace("-", ""))


@reads("difference", "ratio", "xv")
def _read_dots(reading: Reading, key: str) -> list[Constraint]:
    """Kropki dots (a difference, 1 by default; a ratio, 2 by default) and X/V marks.

    An X/V with a blank value draws nothing and says nothing (skipped, as f-puzzles'
    solvers skip it); any other value than X or V refuses the puzzle.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        cells = reading.cells(item.get("cells"), f"{key} {k}")
        if key == "xv":
            value = str(item.get("value", "") or "").strip().upper()
            if not value:
                reading.note(f"xv {k} has no value (X or V), so it says nothing")
                continue
            if value not in ("X", "V"):
                raise RulesError(f"f-puzzles xv {k} has value {item.get('value')!r}, not X or V")
            cls: type[ValuedMark] = XMark if value == "X" else VMark
            out.append(cls.from_spec({"kind": cls.kind, "cells": cells}, n))
            continue
        cls = KropkiWhite if key == "difference" else KropkiBlack
        value_ = reading.optional_number(item.get("value"), f"{key} {k}'s value")
        spec: dict[str, Any] = {"kind": cls.kind, "cells": cells}
        if value_ is not None:
            spec["value"] = value_
        out.append(cls.from_spec(spec, n))
    return out


@writes(KropkiWhite, KropkiBlack, XMark, VMark)
def _write_dot(rule: ValuedMark, out: Writing) -> None:
    cells = out.names(rule.cells)
    if rule.kind in ("x", "v"):
        if rule.value != MARK_VALUES[rule.kind]:
            raise RulesError(f"f-puzzles has no {rule.kind} of value {rule.value}")
        out.add("xv", {"cells": cells, "value": rule.kind.upper()})
        return
    item: dict[str, Any] = {"cells": cells}
    if rule.value != MARK_VALUES[rule.kind]:
        item["value"] = str(rule.value)
    out.add("difference" if rule.kind == "kropki-white" else "ratio", item)


#: The dots and marks that exempt a pair from each f-puzzles negative rule: a white or
#: a black dot from both kropki negatives (f-puzzles and the solvers setters use with
#: it read them so), an X or a V from both XV negatives.
_KROPKI = ["kropki-white", "kropki-black"]
_XV = ["x", "v"]


@reads("nonconsecutive", "negative")
def _read_negatives(reading: Reading, key: str) -> list[Constraint]:
    """The negative rules: ``nonconsecutive`` and the names listed under ``negative``.

    ``nonconsecutive`` is the negative rule of the white dots (difference 1), not a
    grid-wide rule: a pair holding a white or a black dot is exempt. ``negative:
    ["ratio"]`` forbids, between orthogonal neighbours without a dot, every ratio the
    grid's black dots use (2 when there are none); ``["xv"]`` forbids sums of 5 and 10
    between neighbours without an X or a V (kropki dots exempt nothing there).
    """
    n = reading.n
    specs: list[dict[str, Any]] = []
    if key == "nonconsecutive":
        if reading.obj.get(key):
            specs.append({"kind": "negative", "of": "kropki-white", "exempt": _KROPKI})
    else:
        names = reading.obj.get(key) or []
        if not isinstance(names, list):
            raise RulesError("f-puzzles negative is a list of names")
        unknown = [name for name in names if name not in ("ratio", "xv")]
        if unknown:
            raise RulesError(f"f-puzzles negative {unknown[0]!r} is not a rule cpsudoku takes")
        if "ratio" in names:
            ratios = {
                reading.optional_number(item.get("value"), f"ratio {k}") or 2
                for k, item in enumerate(reading.items("ratio"))
            } or {2}
            specs.append(
                {
                    "kind": "negative",
                    "of": "kropki-black",
                    "values": sorted(ratios),
                    "exempt": _KROPKI,
                }
            )
        if "xv" in names:
            specs.extend({"kind": "negative", "of": of, "exempt": _XV} for of in _XV)
    return [Negative.from_spec(spec, n) for spec in specs]


@writes(Negative)
def _write_negative(rule: Negative, out: Writing) -> None:
    exempt = set(rule.exempt)
    if rule.mark == "kropki-white" and rule.values == (1,) and exempt == set(_KROPKI):
        out.flag("nonconsecutive")
        return
    if rule.mark == "kropki-black" and exempt == set(_KROPKI):
        dots = {int(item.get("value", 2)) for item in out.obj.get("ratio", [])} or {2}
        if set(rule.values) == dots:
            names = out.obj.setdefault("negative", [])
            if "ratio" not in names:
                names.append("ratio")
            return
    if rule.mark in _XV and exempt == set(_XV) and rule.values == (MARK_VALUES[rule.mark],):
        names = out.obj.setdefault("negative", [])
        if "xv" not in names:
            names.append("xv")
        return
    raise RulesError(f"f-puzzles has no key for {rule.where(out.n)} as cpsudoku reads it")


@reads("clone")
def _read_clones(reading: Reading, key: str) -> list[Constraint]:
    """One clone rule per item: ``cells[i]`` equals ``cloneCells[i]``.

    A pair of a cell with itself says nothing and is skipped (as f-puzzles' solvers
    skip it); an item whose lists differ in length is refused.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        cells = reading.cells(item.get("cells"), f"clone {k}")
        clones = reading.cells(item.get("cloneCells"), f"clone {k}'s cloneCells")
        if len(cells) != len(clones):
            raise RulesError(
                f"f-puzzles clone {k} has {len(cells)} cells and {len(clones)} cloneCells"
            )
        pairs = [(i, j) for i, j in zip(cells, clones, strict=True) if i != j]
        if pairs:
            out.append(Clone(n, tuple(i for i, _ in pairs), tuple(j for _, j in pairs)))
    return out


@writes(Clone)
def _write_clone(rule: Clone, out: Writing) -> None:
    out.add("clone", {"cells": out.names(rule.sources), "cloneCells": out.names(rule.clones)})


@reads("minimum", "maximum")
def _read_extrema(reading: Reading, key: str) -> list[Constraint]:
    """Minimum (maximum) cells, one item per cell: one rule holding every cell of the key.

    The cells of one key are one set (a neighbour in the set is not compared), as
    f-puzzles' solvers read them.
    """
    cells = [
        reading.cell(item.get("cell"), f"{key} {k}") for k, item in enumerate(reading.items(key))
    ]
    if not cells:
        return []
    cls: type[Extremum] = Minimum if key == "minimum" else Maximum
    return [cls(reading.n, tuple(dict.fromkeys(cells)))]  # type: ignore[call-arg]


@writes(Minimum, Maximum)
def _write_extremum(rule: Extremum, out: Writing) -> None:
    if out.obj.get(rule.kind):
        # f-puzzles' cells of a key are one set: two sets would read back as one, and
        # neighbours across them would no longer be compared.
        raise RulesError(f"f-puzzles holds one set of {rule.kind} cells, not two")
    for i in rule.listed:
        out.add(rule.kind, {"cell": out.name(i)})
