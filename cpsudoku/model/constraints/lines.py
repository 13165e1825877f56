"""Lines drawn through cells, each compiled to the primitives its meaning needs.

Thermometers (plain and slow), whispers, palindromes, nabner, entropic and modular
lines are relations between pairs of the line's cells; renban lines are digit sets;
between and lockout lines are tables of an inner cell and the two ends; a line
matching a regular expression is an automaton.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

from cpsudoku.model.constraints import regex
from cpsudoku.model.constraints.base import (
    SYMBOLS,
    Constraint,
    as_list,
    cell_index,
    cell_name,
    cells_of,
    kind,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.cages import Cage, check_cage_cells, set_masks
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.constraints.relations import MarkRule
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Automaton, DigitSets, Primitive, Relation, Table


@kind
@dataclass(frozen=True, slots=True)
class Thermometer(MarkRule):
    """Values strictly increase along the line, from its bulb (the first cell)."""

    kind: ClassVar[str] = "thermometer"
    meaning: ClassVar[str] = "values increase from the bulb"
    example: ClassVar[dict[str, Any]] = {"kind": "thermometer", "cells": ["r1c1", "r2c2", "r3c3"]}
    fpuzzles_key: ClassVar[str] = "thermometer"
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """Not increasing."""
        return a >= b

    def draw(self, drawing: Drawing) -> None:
        """A grey line with a bulb at its first cell."""
        drawing.bulb(self.cells[0], self.kind)
        drawing.line(self.cells, self.kind, width=0.3)


@kind
@dataclass(frozen=True, slots=True)
class Whisper(MarkRule):
    """Neighbours along the line differ by at least ``value``.

    By default half the grid's side, rounded up: 5 on 9x9 (German whispers), 2 on
    4x4, 3 on 6x6, 8 on 16x16; Dutch whispers are 4 on 9x9. JSON: ``{"kind":
    "whisper", "cells": [...]}``, with ``"value": 4`` for another gap. A loop ends
    where it starts: ``[a, b, c, a]``.
    """

    kind: ClassVar[str] = "whisper"
    meaning: ClassVar[str] = "neighbours on the line differ by at least its value (ceil(n/2))"
    example: ClassVar[dict[str, Any]] = {"kind": "whisper", "cells": ["r1c1", "r1c2"], "value": 5}
    fpuzzles_key: ClassVar[str] = "whispers"
    family: ClassVar[str] = "lines"
    loops: ClassVar[bool] = True
    size: int
    cells: tuple[int, ...]
    value: int = 0

    def __post_init__(self) -> None:
        if not self.value:
            object.__setattr__(self, "value", (self.size + 1) // 2)

    def spec(self) -> dict[str, Any]:
        """``{"kind": "whisper", "cells": [...]}`` and the value unless the default."""
        out: dict[str, Any] = {"kind": self.kind, "cells": list(self.cells)}
        if self.value != (self.size + 1) // 2:
            out["value"] = self.value
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Whisper:
        """Cells on the grid (at least two) and, optionally, a gap of 1..n-1."""
        only_keys(spec, cls.kind, "cells", "value")
        cells = cls.checked_cells(spec.get("cells"), size)
        value = whole(spec.get("value", (size + 1) // 2), "a whisper's value", 1, size - 1)
        return cls(size, cells, value)

    def table_key(self) -> Hashable:
        """The gap."""
        return self.value

    def clash(self, a: int, b: int) -> bool:
        """Closer than the gap."""
        return abs(a - b) < self.value

    def draw(self, drawing: Drawing) -> None:
        """A green line (its gap in the first cell when not the default)."""
        drawing.line(self.cells, self.kind)
        if self.value != (self.size + 1) // 2:
            drawing.text(self.cells[0], self.kind, str(self.value))


@kind
@dataclass(frozen=True, slots=True)
class Palindrome(MarkRule):
    """The line reads the same from both ends."""

    kind: ClassVar[str] = "palindrome"
    meaning: ClassVar[str] = "the line reads the same both ways"
    example: ClassVar[dict[str, Any]] = {"kind": "palindrome", "cells": ["r1c1", "r1c2", "r1c3"]}
    fpuzzles_key: ClassVar[str] = "palindrome"
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]

    @staticmethod
    def pairs_on(cells: tuple[int, ...]) -> list[tuple[int, int]]:
        """Cells at the same distance from either end."""
        return [(cells[k], cells[-1 - k]) for k in range(len(cells) // 2)]

    def clash(self, a: int, b: int) -> bool:
        """Different values."""
        return a != b

    def draw(self, drawing: Drawing) -> None:
        """A grey line."""
        drawing.line(self.cells, self.kind)


@kind
@dataclass(frozen=True, slots=True)
class Renban(Cage):
    """A renban line: its cells hold different digits that form a run (1-2-3, 5-6-7...).

    A cage whose digit sets are the runs of its length. JSON:
    ``{"kind": "renban", "cells": ["r1c1", "r1c2", "r1c3"]}``.
    """

    kind: ClassVar[str] = "renban"
    meaning: ClassVar[str] = "different digits forming a run, in any order"
    example: ClassVar[dict[str, Any]] = {"kind": "renban", "cells": ["r1c1", "r1c2", "r1c3"]}
    fpuzzles_key: ClassVar[str] = "renban"
    family: ClassVar[str] = "lines"

    def spec(self) -> dict[str, Any]:
        """``{"kind": "renban", "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Renban:
        """A renban line: cells on the grid, distinct, at most n of them."""
        only_keys(spec, cls.kind, "cells")
        cells = tuple(cell_index(c, size) for c in as_list(spec.get("cells"), "renban cells"))
        check_cage_cells(cells, size, "renban")
        return cls(cells)

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
        where = self.where(n)
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

    def draw(self, drawing: Drawing) -> None:
        """A purple line."""
        drawing.line(self.cells, self.kind)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The runs of its length, as digit sets."""
        return (DigitSets(self.cells, set_masks(tuple(self.combinations(n)))),)


# ------------------------------------------------------------------------- f-puzzles


@reads("thermometer", "palindrome", "renban", "whispers")
def _read_lines(reading: Reading, key: str) -> list[Constraint]:
    """One rule per line of each item (f-puzzles draws several lines as one item).

    A line of one cell says nothing (except a renban of one cell, a single digit);
    whispers may carry their gap as the item's ``value``.
    """
    n = reading.n
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        for line in reading.lines(item, f"{key} {k}"):
            if key == "renban":
                check_cage_cells(tuple(line), n, "renban")
                out.append(Renban(tuple(line)))
            elif len(line) < 2:
                continue
            elif key == "whispers":
                gap = reading.optional_number(item.get("value"), f"whispers {k}'s value")
                spec: dict[str, Any] = {"kind": "whisper", "cells": line}
                if gap is not None:
                    spec["value"] = gap
                out.append(Whisper.from_spec(spec, n))
            else:
                cls = Thermometer if key == "thermometer" else Palindrome
                out.append(cls.from_spec({"kind": cls.kind, "cells": line}, n))
    return out


@writes(Thermometer, Palindrome, Renban, Whisper)
def _write_line(rule: Any, out: Writing) -> None:
    key = {"thermometer": "thermometer", "palindrome": "palindrome", "renban": "renban"}.get(
        rule.kind, "whispers"
    )
    item: dict[str, Any] = {"lines": [out.names(rule.cells)]}
    if isinstance(rule, Whisper) and rule.value != (rule.size + 1) // 2:
        item["value"] = str(rule.value)
    out.add(key, item)


# ------------------------------------------------------------------ more line rules


@kind
@dataclass(frozen=True, slots=True)
class SlowThermometer(MarkRule):
    """Values never decrease along the line from its bulb; neighbours may be equal.

    Two equal neighbours that share a row, column or box are excluded by those units
    already, so the rule itself is only "not smaller than the cell before". JSON:
    ``{"kind": "slow-thermometer", "cells": [...]}``, bulb first.
    """

    kind: ClassVar[str] = "slow-thermometer"
    meaning: ClassVar[str] = "values never decrease from the bulb (neighbours may be equal)"
    example: ClassVar[dict[str, Any]] = {
        "kind": "slow-thermometer",
        "cells": ["r1c1", "r2c2", "r3c3"],
    }
    fpuzzles_key: ClassVar[str] = "slowthermometer"
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]

    def clash(self, a: int, b: int) -> bool:
        """A decrease."""
        return a > b

    def draw(self, drawing: Drawing) -> None:
        """A thermometer drawn hollow (a pale tube with a white core), its bulb first."""
        drawing.bulb(self.cells[0], self.kind)
        drawing.line(self.cells, self.kind, width=0.3)
        drawing.line(self.cells, self.kind, colour="#ffffff", width=0.1)


@kind
@dataclass(frozen=True, slots=True)
class Nabner(MarkRule):
    """No two cells of the line, neighbours or not, hold equal or consecutive digits.

    At most n cells. JSON: ``{"kind": "nabner", "cells": [...]}``.
    """

    kind: ClassVar[str] = "nabner"
    meaning: ClassVar[str] = "any two cells of the line differ by at least 2"
    example: ClassVar[dict[str, Any]] = {"kind": "nabner", "cells": ["r1c1", "r2c2", "r3c3"]}
    fpuzzles_key: ClassVar[str] = "nabner"
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Nabner:
        """Two to n distinct cells on the grid."""
        only_keys(spec, cls.kind, "cells")
        cells = cls.checked_cells(spec.get("cells"), size)
        if len(cells) > size:
            raise RulesError(f"a nabner takes at most {size} cells, not {len(cells)}")
        return cls(size, cells)

    @staticmethod
    def pairs_on(cells: tuple[int, ...]) -> list[tuple[int, int]]:
        """Every two cells of the line."""
        return list(combinations(cells, 2))

    def clash(self, a: int, b: int) -> bool:
        """Equal or consecutive."""
        return abs(a - b) < 2

    def draw(self, drawing: Drawing) -> None:
        """A yellow line."""
        drawing.line(self.cells, self.kind)


def entropy_band(v: int, n: int) -> int:
    """The band of value ``v`` on a grid of side n: 0 low, 1 middle, 2 high.

    The n values split into three runs: 1-3, 4-6, 7-9 on 9x9. When n is not a
    multiple of 3, the middle band is the odd one out: one larger when n mod 3 is 1
    (4x4: 1 | 2-3 | 4), one smaller when it is 2 (8x8: 1-3 | 4-5 | 6-8), as the solver
    setters use with f-puzzles splits them.
    """
    small, large = n // 3, (n + 2) // 3
    low, middle = (small, large) if n % 3 == 1 else (large, small)
    return 0 if v <= low else 1 if v <= low + middle else 2


def residue(v: int, n: int) -> int:
    """The class of value ``v`` on a modular line: ``v mod 3``."""
    return v % 3


class ClassLine(MarkRule):
    """Base of the lines whose digits fall into three classes (entropic, modular).

    Any three consecutive cells of the line hold one digit of each class: cells
    whose places on the line differ by a multiple of 3 are in the same class, all
    others in different classes. A subclass says what the classes are
    (:meth:`class_of`).

    It compiles to two relations: cells one or two apart along the line are in
    different classes, cells three apart in the same class. The other pairs follow:
    two cells 3k apart are linked by a chain of same-class pairs; two cells 3k + 1
    (3k + 2) apart, the later one is in the class of the cell one (two) after the
    earlier one, which differs from the earlier's.
    """

    family: ClassVar[str] = "lines"
    #: The function giving a value's class on a grid of side n.
    classes: ClassVar[str] = ""

    def class_of(self, v: int, n: int) -> int:
        """The class of value ``v`` on a grid of side ``n``."""
        return _CLASSES[self.classes](v, n)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Two cells whose classes do not fit their distance along the line.

        The line holds when cells one or two apart differ and cells three apart agree
        (the other pairs follow, see the class docstring): that is checked first, in
        one pass; only a line that breaks it is searched for the first pair to name.
        """
        cells = self.cells
        of = _CLASSES[self.classes]
        seen = [of(values[c], n) for c in cells]
        last = len(seen)
        if (
            all(seen[k] != seen[k + 1] for k in range(last - 1))
            and all(seen[k] != seen[k + 2] for k in range(last - 2))
            and all(seen[k] == seen[k + 3] for k in range(last - 3))
        ):
            return None
        for i, j in combinations(range(len(cells)), 2):
            a, b = values[cells[i]], values[cells[j]]
            same = self.class_of(a, n) == self.class_of(b, n)
            if same != ((j - i) % 3 == 0):
                kinship = "the same class" if same else "different classes"
                return (
                    f"{cell_name(cells[i], n)} and {cell_name(cells[j], n)} hold {a} and {b}, "
                    f"{kinship}, {j - i} apart on {self.where(n)}"
                )
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Through the relations (see :meth:`compile`)."""
        return all(p.possible(values, n) for p in self.compile(n))

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Cells one or two apart in different classes, three apart in the same."""
        differ_table, same_table = _class_tables(self.classes, n)
        cells = self.cells
        differ = [(cells[i], cells[i + d]) for d in (1, 2) for i in range(len(cells) - d)]
        same = [(cells[i], cells[i + 3]) for i in range(len(cells) - 3)]
        out: list[Primitive] = [Relation(tuple(differ), differ_table)]
        if same:
            out.append(Relation(tuple(same), same_table))
        return tuple(out)

    def clash(self, a: int, b: int) -> bool:
        """Neighbours in one class (a line's neighbours are one apart)."""
        return _CLASSES[self.classes](a, self.size) == _CLASSES[self.classes](b, self.size)

    def draw(self, drawing: Drawing) -> None:
        """A line in the kind's colour (orange entropic, teal modular)."""
        drawing.line(self.cells, self.kind)


_CLASSES = {"entropy": entropy_band, "residue": residue}


@lru_cache(maxsize=256)
def _class_tables(classes: str, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The relation tables "different classes" and "the same class" on side ``n``."""
    of = _CLASSES[classes]
    differ = [0] * (n + 1)
    same = [0] * (n + 1)
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            if of(a, n) == of(b, n):
                same[a] |= 1 << (b - 1)
            else:
                differ[a] |= 1 << (b - 1)
    return tuple(differ), tuple(same)


@kind
@dataclass(frozen=True, slots=True)
class EntropicLine(ClassLine):
    """Any three consecutive cells hold a low, a middle and a high digit.

    Bands 1-3, 4-6, 7-9 on 9x9 (:func:`entropy_band` for other sides); a line of two
    cells holds digits of different bands. JSON: ``{"kind": "entropic-line",
    "cells": [...]}``.
    """

    kind: ClassVar[str] = "entropic-line"
    meaning: ClassVar[str] = "any 3 consecutive cells hold a low, a middle and a high digit"
    example: ClassVar[dict[str, Any]] = {
        "kind": "entropic-line",
        "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
    }
    fpuzzles_key: ClassVar[str] = "entropicline"
    classes: ClassVar[str] = "entropy"
    size: int
    cells: tuple[int, ...]


@kind
@dataclass(frozen=True, slots=True)
class ModularLine(ClassLine):
    """Any three consecutive cells hold digits of different residues mod 3.

    1-4-7, 2-5-8, 3-6-9 on 9x9; a line of two cells holds digits of different
    residues. JSON: ``{"kind": "modular-line", "cells": [...]}``.
    """

    kind: ClassVar[str] = "modular-line"
    meaning: ClassVar[str] = "any 3 consecutive cells hold digits of each residue mod 3"
    example: ClassVar[dict[str, Any]] = {
        "kind": "modular-line",
        "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
    }
    fpuzzles_key: ClassVar[str] = "modularline"
    classes: ClassVar[str] = "residue"
    size: int
    cells: tuple[int, ...]


def _between(a: int, x: int, b: int) -> bool:
    """``x`` strictly between ``a`` and ``b``."""
    return min(a, b) < x < max(a, b)


@kind
@dataclass(frozen=True, slots=True)
class BetweenLine(Constraint):
    """The inner cells hold values strictly between those of the two end cells.

    The ends are the first and the last cell listed (the circles). JSON:
    ``{"kind": "between-line", "cells": [...]}``, at least three cells (a shorter
    line says nothing).
    """

    kind: ClassVar[str] = "between-line"
    meaning: ClassVar[str] = "inner cells lie strictly between the two end cells"
    example: ClassVar[dict[str, Any]] = {
        "kind": "between-line",
        "cells": ["r1c1", "r1c2", "r1c3"],
    }
    fpuzzles_key: ClassVar[str] = "betweenline"
    family: ClassVar[str] = "lines"
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """``{"kind": "between-line", "cells": [...]}``."""
        return {"kind": self.kind, "cells": list(self.cells)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> BetweenLine:
        """Three or more distinct cells on the grid."""
        only_keys(spec, cls.kind, "cells")
        return cls(cells_of(spec.get("cells"), size, "a between line's cells", least=3))

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """An inner cell not strictly between the ends."""
        a, b = values[self.cells[0]], values[self.cells[-1]]
        for i in self.cells[1:-1]:
            if not min(a, b) < values[i] < max(a, b):
                return (
                    f"{cell_name(i, n)} holds {values[i]}, not strictly between the ends' "
                    f"{a} and {b} on {self.where(n)}"
                )
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """A table of (end, inner cell, end) per inner cell."""
        first, last = self.cells[0], self.cells[-1]
        return tuple(Table.of((first, i, last), n, _between) for i in self.cells[1:-1])

    def draw(self, drawing: Drawing) -> None:
        """A pale blue line between two circles, its ends."""
        drawing.line(self.cells, self.kind)
        for end in (self.cells[0], self.cells[-1]):
            drawing.circle((end,), self.kind, stroke="#7a9fb5")


@lru_cache(maxsize=256)
def _lockout_tuples(n: int, gap: int) -> tuple[tuple[int, ...], ...]:
    """The (end, inner cell, end) triples a lockout line allows.

    The ends ``gap`` or more apart, the inner value outside them.
    """
    return tuple(
        (a, x, b)
        for a in range(1, n + 1)
        for x in range(1, n + 1)
        for b in range(1, n + 1)
        if abs(a - b) >= gap and not min(a, b) <= x <= max(a, b)
    )


@kind
@dataclass(frozen=True, slots=True)
class LockoutLine(Constraint):
    """A lockout line: its ends are far apart, and no inner cell lies between them.

    The ends (the diamonds, first and last cell listed) differ by at least
    ``value``, and no inner cell holds a value between them, the ends' own values
    included. By default ``value`` is half the grid's side rounded down (4 on 9x9), as f-puzzles'
    lockout lines have it. JSON: ``{"kind": "lockout-line", "cells": [...]}``, with
    ``"value": 3`` for another difference.
    """

    kind: ClassVar[str] = "lockout-line"
    meaning: ClassVar[str] = (
        "the ends differ by at least its value (n/2 rounded down); inner cells lie outside them"
    )
    example: ClassVar[dict[str, Any]] = {
        "kind": "lockout-line",
        "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
    }
    fpuzzles_key: ClassVar[str] = "lockout"
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]
    value: int = 0

    def __post_init__(self) -> None:
        if not self.value:
            object.__setattr__(self, "value", self.size // 2)

    def spec(self) -> dict[str, Any]:
        """``{"kind": "lockout-line", "cells": [...]}`` and the value unless the default."""
        out: dict[str, Any] = {"kind": self.kind, "cells": list(self.cells)}
        if self.value != self.size // 2:
            out["value"] = self.value
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> LockoutLine:
        """Two or more distinct cells and, optionally, a difference of 1..n-1."""
        only_keys(spec, cls.kind, "cells", "value")
        cells = cells_of(spec.get("cells"), size, "a lockout line's cells", least=2)
        value = whole(spec.get("value", size // 2), "a lockout line's value", 1, size - 1)
        return cls(size, cells, value)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """Ends too close, or an inner cell between them (or on one of them)."""
        a, b = values[self.cells[0]], values[self.cells[-1]]
        where = self.where(n)
        if abs(a - b) < self.value:
            return f"the ends of {where} hold {a} and {b}, less than {self.value} apart"
        for i in self.cells[1:-1]:
            if min(a, b) <= values[i] <= max(a, b):
                return f"{cell_name(i, n)} holds {values[i]}, between the ends' {a} and {b}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The ends' difference, and a table of (end, inner cell, end) per inner cell."""
        first, last = self.cells[0], self.cells[-1]
        ends = Relation(((first, last),), _gap_table(n, self.value))
        tuples = _lockout_tuples(n, self.value)
        return (ends, *(Table((first, i, last), tuples) for i in self.cells[1:-1]))

    def draw(self, drawing: Drawing) -> None:
        """A line between two diamonds, its ends (its value by the first when not n/2)."""
        drawing.line(self.cells, self.kind)
        for end in (self.cells[0], self.cells[-1]):
            drawing.circle((end,), self.kind, stroke="#c05050", form="diamond")
        if self.value != self.size // 2:
            drawing.text(self.cells[0], self.kind, str(self.value), corner="tr")


@lru_cache(maxsize=256)
def _gap_table(n: int, gap: int) -> tuple[int, ...]:
    """The relation "at least ``gap`` apart" on side ``n``."""
    return (
        0,
        *(sum(1 << (b - 1) for b in range(1, n + 1) if abs(a - b) >= gap) for a in range(1, n + 1)),
    )


@lru_cache(maxsize=256)
def _python_pattern(pattern: str) -> re.Pattern[str]:
    """The pattern for Python's :mod:`re` (accepted patterns mean the same there)."""
    return re.compile(regex.normalized(pattern))


@kind
@dataclass(frozen=True, slots=True)
class RegexLine(Constraint):
    """The line's digits, read in order as symbols (1-9, then A-Z), match a pattern.

    The whole line must match (see :mod:`~cpsudoku.model.constraints.regex` for the
    pattern language: symbols, ``.``, classes ``[...]``, groups, ``|``, ``*``, ``+``,
    ``?``, ``{m}``, ``{m,}``, ``{m,n}``). JSON: ``{"kind": "regex-line", "cells":
    [...], "pattern": "1?2?3?4?"}``. It compiles to the line's automaton.
    """

    kind: ClassVar[str] = "regex-line"
    meaning: ClassVar[str] = "the line's digits, read in order, match its regular expression"
    example: ClassVar[dict[str, Any]] = {
        "kind": "regex-line",
        "cells": ["r1c1", "r1c2", "r1c3"],
        "pattern": "[1-4]+9?",
    }
    family: ClassVar[str] = "lines"
    size: int
    cells: tuple[int, ...]
    pattern: str

    def spec(self) -> dict[str, Any]:
        """``{"kind": "regex-line", "cells": [...], "pattern": ...}``."""
        return {"kind": self.kind, "cells": list(self.cells), "pattern": self.pattern}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> RegexLine:
        """Distinct cells on the grid and a pattern some line of their length matches.

        The pattern's automaton over the line is built here, so a malformed pattern,
        one no line matches (as a sandwich no digits can make) or one needing too many
        states is refused when the rules are read.
        """
        only_keys(spec, cls.kind, "cells", "pattern")
        cells = cells_of(spec.get("cells"), size, "a regex line's cells")
        pattern = spec.get("pattern")
        if not isinstance(pattern, str):
            raise RulesError(f"a regex line's pattern is text, not {pattern!r}")
        rule = cls(size, cells, pattern)
        (line,) = rule.compile(size)  # a malformed pattern or too many states: refused now
        assert isinstance(line, Automaton)
        if line.layers([(1 << size) - 1] * len(cells)) is None:
            raise RulesError(
                f"{rule.where(size)}: no line of {len(cells)} digits of 1..{size} "
                f"matches {pattern!r}"
            )
        return rule

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The line's digits, when they do not match the pattern."""
        text = "".join(SYMBOLS[values[i] - 1] for i in self.cells)
        if _python_pattern(self.pattern).fullmatch(text) is None:
            return f"{self.where(n)} reads {text}, which does not match {self.pattern!r}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The automaton of the pattern over the line."""
        try:
            transitions, accepting = regex.line_automaton(self.pattern, n, len(self.cells))
        except RulesError as err:
            raise RulesError(f"{self.where(n)}: {err}") from None
        return (Automaton(self.cells, transitions, accepting),)

    def draw(self, drawing: Drawing) -> None:
        """A red line, its pattern by its first cell (a long one in the notes)."""
        drawing.line(self.cells, self.kind)
        if len(self.pattern) <= 6:
            drawing.text(self.cells[0], self.kind, self.pattern)
        else:
            drawing.text(self.cells[0], self.kind, "re")
            drawing.note(f"regex line at {cell_name(self.cells[0], drawing.n)}: {self.pattern}")


# ------------------------------------------------------------- f-puzzles, more lines

#: The userscripts' line keys read here: each key's rule and the fewest cells a line
#: needs to say anything (shorter lines are skipped, as f-puzzles' solvers skip them).
_MORE_LINES: dict[str, tuple[type[Constraint], int]] = {
    "slowthermometer": (SlowThermometer, 2),
    "nabner": (Nabner, 2),
    "entropicline": (EntropicLine, 2),
    "modularline": (ModularLine, 2),
    "betweenline": (BetweenLine, 3),
    "lockout": (LockoutLine, 2),
}


@reads(*_MORE_LINES)
def _read_more_lines(reading: Reading, key: str) -> list[Constraint]:
    """One rule per line of each item; a line too short to say anything is skipped.

    A lockout line's ends differ by half the grid's side rounded down (f-puzzles
    stores no value for it).
    """
    cls, least = _MORE_LINES[key]
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        for line in reading.lines(item, f"{key} {k}"):
            if len(line) >= least:
                out.append(cls.from_spec({"kind": cls.kind, "cells": line}, reading.n))
    return out


@writes(*(cls for cls, _ in _MORE_LINES.values()))
def _write_more_lines(rule: Any, out: Writing) -> None:
    key = next(k for k, (cls, _) in _MORE_LINES.items() if isinstance(rule, cls))
    if isinstance(rule, LockoutLine) and rule.value != rule.size // 2:
        raise RulesError(
            f"f-puzzles' lockout lines differ by {rule.size // 2}: {rule.where(out.n)} "
            f"differs by {rule.value}"
        )
    out.add(key, {"lines": [out.names(rule.cells)]})
