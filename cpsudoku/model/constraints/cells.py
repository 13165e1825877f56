"""Rules on cells and the digits they hold: parity, given candidates, counts of digits.

Parity and given candidates narrow cells one by one (:class:`CellValues`). The
others count digits among cells, compiled to
:class:`~cpsudoku.model.primitives.Count`: a quadruple's digits (at least so many
times), counting circles (a digit in a circle is in that many circles), the whole
grid's 2x2 areas (a digit of each band, or of each residue mod 3). Dutch flatmates
read each column in order (an :class:`~cpsudoku.model.primitives.Automaton`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    SYMBOLS,
    Constraint,
    as_list,
    cell_index,
    cell_name,
    cells_of,
    kind,
    mask_of,
    numbers,
    only_keys,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import (
    Allowed,
    Automaton,
    Count,
    Primitive,
    automaton,
    bit,
    per_length,
)


class CellValues(Constraint):
    """Base of the rules that narrow cells one by one: the values each may hold.

    A subclass gives :meth:`allowed`, the bit mask (bit ``d-1`` for ``d``) of a listed
    cell's values.
    """

    size: int
    cells: tuple[int, ...]
    family: ClassVar[str] = "cells"

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

    def draw(self, drawing: Drawing) -> None:
        """Even cells: grey squares; odd cells: grey circles; given candidates: noted."""
        if self.kind in ("even", "odd"):
            for i in self.cells:
                drawing.mark(i, self.kind, "square" if self.kind == "even" else "circle")
            return
        for i, mask in self.masks():
            values = "".join(SYMBOLS[d] for d in range(self.size) if mask >> d & 1)
            drawing.text(i, self.kind, values, corner="bl")

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The allowed values of each listed cell."""
        return (Allowed(self.cells, tuple(self.allowed(k) for k in range(len(self.cells)))),)


class _Parity(CellValues):
    """Even or odd cells: ``{"kind": "even", "cells": [...]}``."""

    remainder: ClassVar[int] = 0

    def allowed(self, k: int) -> int:
        """The even (or odd) values of 1..n."""
        return sum(1 << (d - 1) for d in range(1, self.size + 1) if d % 2 == self.remainder)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first listed cell holding a value of the other parity (or none)."""
        remainder = self.remainder
        for i in self.cells:
            if values[i] % 2 != remainder or not 1 <= values[i] <= n:
                return f"{cell_name(i, n)} holds {values[i]}: {self.kind} says otherwise"
        return None

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
    example: ClassVar[dict[str, Any]] = {"kind": "even", "cells": ["r1c1", "r5c5"]}
    fpuzzles_key: ClassVar[str] = "even"
    remainder: ClassVar[int] = 0
    size: int
    cells: tuple[int, ...]


@kind
@dataclass(frozen=True, slots=True)
class Odd(_Parity):
    """The listed cells hold odd values."""

    kind: ClassVar[str] = "odd"
    meaning: ClassVar[str] = "the cells hold odd values"
    example: ClassVar[dict[str, Any]] = {"kind": "odd", "cells": ["r1c1"]}
    fpuzzles_key: ClassVar[str] = "odd"
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
    example: ClassVar[dict[str, Any]] = {"kind": "candidates", "cells": ["r1c1"], "values": ["129"]}
    fpuzzles_key: ClassVar[str] = "givenPencilMarks"
    size: int
    cells: tuple[int, ...]
    values: tuple[int, ...]  # a bit mask per listed cell

    def allowed(self, k: int) -> int:
        """The given candidates of the ``k``-th listed cell."""
        return self.values[k]

    def spec(self) -> dict[str, Any]:
        """Cells and their candidate symbols."""
        return {
            "kind": self.kind,
            "cells": list(self.cells),
            "values": [
                "".join(SYMBOLS[d] for d in range(self.size) if m >> d & 1) for m in self.values
            ],
        }

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """Cells on the grid, none twice, each with at least one candidate of 1..n."""
        symbols = SYMBOLS[:size]
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


# --------------------------------------------------------------------- digit counts


@lru_cache(maxsize=64)
def _at_least(k: int, top: int) -> frozenset[int]:
    """The counts ``k`` to ``top``: a quadruple's digit listed ``k`` times."""
    return frozenset(range(k, top + 1))


@kind
@dataclass(frozen=True, slots=True)
class Quadruple(Constraint):
    """A quadruple: each listed digit is among the cells at least as often as listed.

    Up to four cells (f-puzzles draws the clue on the corner of a 2x2 area); a digit
    listed twice must be there twice (the area's diagonal cells may repeat). JSON:
    ``{"kind": "quadruple", "cells": ["r1c1", "r1c2", "r2c1", "r2c2"], "values": [1,
    2]}``.
    """

    kind: ClassVar[str] = "quadruple"
    meaning: ClassVar[str] = "each listed digit is among the cells, as often as listed"
    example: ClassVar[dict[str, Any]] = {
        "kind": "quadruple",
        "cells": ["r1c1", "r1c2", "r2c1", "r2c2"],
        "values": [1, 2],
    }
    fpuzzles_key: ClassVar[str] = "quadruple"
    family: ClassVar[str] = "cells"
    cells: tuple[int, ...]
    values: tuple[int, ...]  # ascending, a digit repeated as often as it is listed

    def spec(self) -> dict[str, Any]:
        """``{"kind": "quadruple", "cells": [...], "values": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells), "values": list(self.values)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Quadruple:
        """One to four distinct cells, and no more digits of 1..n than cells."""
        only_keys(spec, cls.kind, "cells", "values")
        cells = cells_of(spec.get("cells"), size, "a quadruple's cells")
        values = sorted(numbers(spec.get("values"), "a quadruple's values", 1, size))
        where = f"the quadruple at {cell_name(cells[0], size)}"
        if len(cells) > 4:
            raise RulesError(f"{where} has {len(cells)} cells; a quadruple has at most 4")
        if len(values) > len(cells):
            raise RulesError(f"{where} lists {len(values)} digits for {len(cells)} cells")
        return cls(cells, tuple(values))

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """A listed digit the cells hold fewer times than listed.

        Every engine's every solution comes through here, twenty times a puzzle: both
        lists sorted, the listed digits are held as often as listed exactly when they
        are a subsequence of the held ones, one pass of ``in`` over an iterator.
        """
        held = iter(sorted([values[i] for i in self.cells]))
        for d in self.values:
            if d not in held:  # consumes the held digits up to d
                got, k = [values[i] for i in self.cells].count(d), self.values.count(d)
                return f"{self.where(n)} holds {d} {got} times, not {k}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Per listed digit, the cells holding it number at least as many as listed.

        (Read off the sorted values run by run: a puzzle holds twenty quadruples and
        more, and every engine compiles them once per puzzle.)
        """
        cells, values = self.cells, self.values
        top = len(cells)
        counts = []
        start = 0
        for end in range(1, len(values) + 1):
            if end == len(values) or values[end] != values[start]:
                counts.append(Count(cells, bit(values[start]), _at_least(end - start, top)))
                start = end
        if len(values) < top:
            return tuple(counts)
        # As many digits as cells: the cells hold those digits and no other.
        return (Allowed(cells, (mask_of(values),) * top), *counts)

    def draw(self, drawing: Drawing) -> None:
        """Its digits in a small circle on the corner the cells share."""
        sep = "" if self.values[-1] <= 9 else " "
        drawing.corner(self.cells, self.kind, sep.join(SYMBOLS[d - 1] for d in self.values))


@kind
@dataclass(frozen=True, slots=True)
class CountingCircles(Constraint):
    """Counting circles: a digit in a circle is in exactly that many of the circles.

    So each digit d is in 0 or d of them, and no digit above their number is. JSON:
    ``{"kind": "counting-circles", "cells": ["r1c1", "r2c5", ...]}``; each rule is
    one set of circles, independent of any other.
    """

    kind: ClassVar[str] = "counting-circles"
    meaning: ClassVar[str] = "a digit in a circle stands in that many of the circles"
    example: ClassVar[dict[str, Any]] = {
        "kind": "counting-circles",
        "cells": ["r1c1", "r2c4", "r3c7", "r5c5"],
    }
    family: ClassVar[str] = "cells"
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """``{"kind": "counting-circles", "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> CountingCircles:
        """Distinct cells on the grid."""
        only_keys(spec, cls.kind, "cells")
        return cls(cells_of(spec.get("cells"), size, "counting circles"))

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """A digit in a circle that stands in another number of circles."""
        held = Counter(values[i] for i in self.cells)
        for i in self.cells:
            d = values[i]
            if held[d] != d:
                return f"{d} in the circle at {cell_name(i, n)} stands in {held[d]} circles"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Digits above the number of circles go; each other digit d is in 0 or d."""
        top = min(n, len(self.cells))
        out: list[Primitive] = []
        if top < n:
            keep = mask_of(range(1, top + 1))
            out.append(Allowed(self.cells, (keep,) * len(self.cells)))
        out.extend(Count(self.cells, bit(d), frozenset({0, d})) for d in range(1, top + 1))
        return tuple(out)

    def draw(self, drawing: Drawing) -> None:
        """A circle in each cell."""
        for i in self.cells:
            drawing.circle((i,), self.kind, fill="none", stroke="#5a5a5a")


def entropy_bands(n: int) -> tuple[int, int, int]:
    """The low, middle and high digits of 1..n, as masks.

    As the solver setters use with f-puzzles bands entropic lines: three runs of
    ceil(n/3) or floor(n/3) digits, the middle one the longer when n mod 3 is 1
    (1 / 2-3 / 4 on 4x4), the outer ones otherwise (1-2 / 3-4 / 5-6 on 6x6, 1-3 / 4-5
    / 6-8 on 8x8, 1-3 / 4-6 / 7-9 on 9x9).
    """
    small, large = n // 3, (n + 2) // 3
    sizes = (small, large, small) if n % 3 == 1 else (large, small, large)
    out, first = [], 1
    for size in sizes:
        out.append(mask_of(range(first, first + size)))
        first += size
    return out[0], out[1], out[2]


def residues(n: int) -> tuple[int, int, int]:
    """The digits of 1..n by their remainder mod 3 (1 4 7 / 2 5 8 / 3 6 9), as masks."""
    r1, r2, r0 = (mask_of([d for d in range(1, n + 1) if d % 3 == r]) for r in (1, 2, 0))
    return r1, r2, r0


@lru_cache(maxsize=16)
def _class_bits(classes: Callable[[int], tuple[int, int, int]], n: int) -> tuple[int, ...]:
    """Value v -> bit 1, 2 or 4 of its class (the three masks ``classes(n)``); 0 -> 0."""
    masks = classes(n)
    return (
        0,
        *(next(1 << k for k, m in enumerate(masks) if m >> (v - 1) & 1) for v in range(1, n + 1)),
    )


@lru_cache(maxsize=16)
def areas(n: int) -> tuple[tuple[int, int, int, int], ...]:
    """Every 2x2 area of an n x n grid: its cells, top left first, row by row."""
    return tuple(
        (r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1)
        for r in range(n - 1)
        for c in range(n - 1)
    )


class GlobalClasses(Constraint):
    """Base of the rules "every 2x2 area holds a digit of each of three classes".

    A subclass gives :meth:`classes` (three masks of 1..n) and :attr:`class_names`.
    JSON ``{"kind": ...}`` with no parameters; the grid's side is at least 3.
    """

    family: ClassVar[str] = "cells"
    class_names: ClassVar[tuple[str, str, str]] = ("", "", "")
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def classes(n: int) -> tuple[int, int, int]:
        """The three classes of digits, as masks."""
        raise NotImplementedError

    def spec(self) -> dict[str, Any]:
        """``{"kind": ...}``: the rule has no parameters."""
        return {"kind": self.kind}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """The rule on a grid of side ``size`` (at least 3: three classes of digits)."""
        only_keys(spec, cls.kind)
        if size < 3:
            raise RulesError(f"the {cls.kind} rule needs three classes of digits: 3x3 or more")
        return cls(size, tuple(range(size * size)))  # type: ignore[call-arg]

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the {self.kind} rule"

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """A 2x2 area without a digit of some class.

        First in one pass over each cell's class as a bit (every solution of every
        engine comes through here); only a grid that breaks the rule is searched for
        the area and class to name.
        """
        of = _class_bits(self.classes, n)
        kin = [of[v] for v in values]
        if all(kin[a] | kin[b] | kin[c] | kin[d] == 7 for a, b, c, d in areas(n)):
            return None
        classes = self.classes(n)
        bits = [1 << (v - 1) for v in values]
        for a, b, c, d in areas(n):
            held = bits[a] | bits[b] | bits[c] | bits[d]
            for mask, name in zip(classes, self.class_names, strict=True):
                if not held & mask:
                    return f"the 2x2 area at {cell_name(a, n)} holds no {name} digit"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Per 2x2 area and class: one or two of its four cells hold a digit of it."""
        some = frozenset({1, 2})
        return tuple(Count(area, mask, some) for area in areas(n) for mask in self.classes(n))


@kind
@dataclass(frozen=True, slots=True)
class GlobalEntropy(GlobalClasses):
    """Every 2x2 area holds a low, a middle and a high digit (1-3, 4-6, 7-9 on 9x9).

    ISS's global entropy, which it takes on 9x9 only; on other sides the bands are
    those of entropic lines (:func:`entropy_bands`). ``{"kind": "global-entropy"}``.
    """

    kind: ClassVar[str] = "global-entropy"
    meaning: ClassVar[str] = "every 2x2 area holds a low, a middle and a high digit"
    example: ClassVar[dict[str, Any]] = {"kind": "global-entropy"}
    class_names: ClassVar[tuple[str, str, str]] = ("low", "middle", "high")
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def classes(n: int) -> tuple[int, int, int]:
        """The bands."""
        return entropy_bands(n)


@kind
@dataclass(frozen=True, slots=True)
class GlobalModular(GlobalClasses):
    """Every 2x2 area holds a digit of each residue mod 3 (1 4 7, 2 5 8, 3 6 9).

    ISS's global mod 3. ``{"kind": "global-modular"}``.
    """

    kind: ClassVar[str] = "global-modular"
    meaning: ClassVar[str] = "every 2x2 area holds a digit of each remainder mod 3"
    example: ClassVar[dict[str, Any]] = {"kind": "global-modular"}
    class_names: ClassVar[tuple[str, str, str]] = ("1 mod 3", "2 mod 3", "0 mod 3")
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def classes(n: int) -> tuple[int, int, int]:
        """The residues."""
        return residues(n)


@per_length
def _flatmates(cells: tuple[int, ...], n: int) -> Automaton:
    """A column read top down: a middle digit is under a 1 or over an n.

    States: ``"one"`` (the last digit was 1), ``"owed"`` (the last was the middle
    digit with no 1 above: an n must follow), ``"free"`` (anything else).
    """
    middle = (n + 1) // 2

    def step(state: Hashable, d: int) -> Hashable | None:
        if state == "owed" and d != n:
            return None
        if d == middle:
            return "free" if state == "one" else "owed"
        return "one" if d == 1 else "free"

    return automaton(cells, n, "free", step, lambda state: state != "owed")


@kind
@dataclass(frozen=True, slots=True)
class DutchFlatmates(Constraint):
    """Dutch flatmates: every middle digit has a 1 right above it or an n right below.

    The middle digit is ceil(n/2): 5 on 9x9 (with 1 above or 9 below, or both), 3 on
    6x6, 2 on 4x4 (ISS takes 1-9 only; its check reads ceil(n/2), 1 and n on any
    column). ``{"kind": "dutch-flatmates"}``.
    """

    kind: ClassVar[str] = "dutch-flatmates"
    meaning: ClassVar[str] = "each middle digit has a 1 right above it or an n right below"
    example: ClassVar[dict[str, Any]] = {"kind": "dutch-flatmates"}
    family: ClassVar[str] = "cells"
    size: int
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """``{"kind": "dutch-flatmates"}``: the rule has no parameters."""
        return {"kind": self.kind}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> DutchFlatmates:
        """The rule on a grid of side ``size`` (at least 3: the middle is neither 1 nor n)."""
        only_keys(spec, cls.kind)
        if size < 3:
            raise RulesError("the dutch-flatmates rule needs a middle digit other than 1 and n")
        return cls(size, tuple(range(size * size)))

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the {self.kind} rule"

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """A middle digit with no 1 above it and no n below it."""
        middle = (n + 1) // 2
        for i, v in enumerate(values[: n * n]):
            if v != middle:
                continue
            above = values[i - n] if i >= n else 0
            below = values[i + n] if i + n < n * n else 0
            if above != 1 and below != n:
                return f"the {middle} at {cell_name(i, n)} has no 1 above it and no {n} below it"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """One automaton per column, read top down."""
        return tuple(_flatmates(tuple(range(c, n * n, n)), n) for c in range(n))


# ------------------------------------------------------------------------- f-puzzles


@reads("odd", "even")
def _read_parity(reading: Reading, key: str) -> list[Constraint]:
    """Odd and even cells (circles and squares), one rule for all cells of a key."""
    cells = [
        reading.cell(item.get("cell"), f"{key} {k}") for k, item in enumerate(reading.items(key))
    ]
    if not cells:
        return []
    cls = Odd if key == "odd" else Even
    return [cls.from_spec({"kind": cls.kind, "cells": cells}, reading.n)]


@writes(Odd, Even)
def _write_parity(rule: Any, out: Writing) -> None:
    for i in rule.cells:
        out.add(rule.kind, {"cell": out.name(i)})


@reads("quadruple")
def _read_quadruples(reading: Reading, key: str) -> list[Constraint]:
    """Quadruples: the digits listed on a 2x2 corner (a digit listed twice, twice).

    A quadruple listing no digit says nothing; it is skipped with a note.
    """
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        what = f"quadruple {k}"
        cells = reading.cells(item.get("cells"), what)
        raw = item.get("values") or []
        if not isinstance(raw, list):
            raise RulesError(f"f-puzzles {what}: values are a list")
        if not raw:
            reading.note(f"{what} lists no digit, so it says nothing")
            continue
        values = [reading.number(v, f"{what}'s value", 1, reading.n) for v in raw]
        spec = {"kind": Quadruple.kind, "cells": cells, "values": values}
        out.append(Quadruple.from_spec(spec, reading.n))
    return out


@writes(Quadruple)
def _write_quadruple(rule: Quadruple, out: Writing) -> None:
    out.add("quadruple", {"cells": out.names(rule.cells), "values": list(rule.values)})
