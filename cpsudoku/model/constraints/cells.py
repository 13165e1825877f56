"""Rules on cells one by one: parity, given candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    SYMBOLS,
    Constraint,
    as_list,
    cell_index,
    cell_name,
    kind,
    only_keys,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Allowed, Primitive


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
