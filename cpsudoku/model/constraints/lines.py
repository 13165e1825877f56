"""Lines drawn through cells: thermometers, whispers, palindromes, renban lines."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    as_list,
    cell_index,
    kind,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.cages import Cage, check_cage_cells, set_masks
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.constraints.relations import MarkRule
from cpsudoku.model.primitives import DigitSets, Primitive


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
    "whisper", "cells": [...]}``, with ``"value": 4`` for another gap.
    """

    kind: ClassVar[str] = "whisper"
    meaning: ClassVar[str] = "neighbours on the line differ by at least its value (ceil(n/2))"
    example: ClassVar[dict[str, Any]] = {"kind": "whisper", "cells": ["r1c1", "r1c2"], "value": 5}
    fpuzzles_key: ClassVar[str] = "whispers"
    family: ClassVar[str] = "lines"
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
