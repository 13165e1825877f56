"""Indexers: a cell's digit says where in its line its own position's digit stands.

A row indexer at row r, column c holding v says the cell of row v in that column holds
r; a column indexer at row r, column c holding v says the cell of row r, column v holds
c (the "1-5-9" puzzles: column indexers on columns 1, 5 and 9); a box indexer at
position p of its box (reading order) holding v says the box's position v holds p.
The line indexed (the column, the row, the box) is the indexer's own; the position of
a cell in it is its row, its column, its place in the box.

Each rule compiles to :class:`~cpsudoku.model.primitives.Relation`: for an indexer X
at position p and another cell Y of its line at position q, "X holds q exactly when
Y holds p". Since the line holds each digit once, these pairs say no more and no less
than the rule (X = v sends p to position v; and a p at position q can only have been
sent there by X = q). Pairs of the same two positions share one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    cell_name,
    cells_of,
    kind,
    only_keys,
)
from cpsudoku.model.constraints.drawing import FILLS, Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.primitives import Primitive, Relation, bit, full

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules


@lru_cache(maxsize=4096)
def index_table(n: int, q: int, p: int) -> tuple[int, ...]:
    """The table of "the first cell holds ``q`` exactly when the second holds ``p``"."""
    return (0, *((bit(p) if a == q else full(n) & ~bit(p)) for a in range(1, n + 1)))


class Indexer(Constraint):
    """Base of the indexers. JSON: ``{"kind": ..., "cells": ["r1c1", ...]}``.

    A subclass says which line each listed cell indexes and its position there
    (:meth:`line_of`).
    """

    family: ClassVar[str] = "indexers"
    size: int
    #: The indexer cells, as listed.
    listed: tuple[int, ...]

    def line_of(self, i: int) -> tuple[int, tuple[int, ...]] | None:
        """``(i's 1-based position, the line's cells by position)``, or None (no line)."""
        raise NotImplementedError

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The indexer cells, then the other cells of the lines they index."""
        lines = [found[1] for i in self.listed if (found := self.line_of(i)) is not None]
        return tuple(dict.fromkeys((*self.listed, *(j for line in lines for j in line))))

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "cells": [...]}`` (cells as indices)."""
        return {"kind": self.kind, "cells": list(self.listed)}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """Cells on the grid, none twice."""
        only_keys(spec, cls.kind, "cells")
        cells = cells_of(spec.get("cells"), size, f"a {cls.kind}'s cells")
        return cls(size, cells)  # type: ignore[call-arg]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """An indexer whose digit v sends its position elsewhere than to position v."""
        for i in self.listed:
            found = self.line_of(i)
            if found is None:
                continue
            p, line = found
            target = line[values[i] - 1]
            if values[target] != p:
                return (
                    f"{cell_name(i, n)} holds {values[i]}, so {cell_name(target, n)} should "
                    f"hold {p}, not {values[target]}: {self.kind}"
                )
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Per pair of positions (q, p), one relation over the pairs of cells it relates."""
        groups: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for x in self.listed:
            found = self.line_of(x)
            if found is None:
                continue
            p, line = found
            for q, y in enumerate(line, 1):
                if y == x:
                    continue
                # "x holds q exactly when y holds p", written with the lower cell first
                key, pair = ((q, p), (x, y)) if x < y else ((p, q), (y, x))
                groups.setdefault(key, set()).add(pair)
        return tuple(
            Relation(tuple(sorted(pairs)), index_table(n, *key))
            for key, pairs in sorted(groups.items())
        )

    def where(self, n: int) -> str:
        """``the row-indexer at r1c1``."""
        return f"the {self.kind} at {cell_name(self.listed[0], n)}"

    def draw(self, drawing: Drawing) -> None:
        """The indexer cells shaded, a colour per kind (as f-puzzles shades them)."""
        drawing.shade(self.listed, self.kind, colour=FILLS[self.kind], opacity=0.7)


@kind
@dataclass(frozen=True, slots=True)
class RowIndexer(Indexer):
    """Row indexers: a digit v at row r, column c says row v of that column holds r."""

    kind: ClassVar[str] = "row-indexer"
    meaning: ClassVar[str] = "a digit v in row r says the cell of row v in its column holds r"
    example: ClassVar[dict[str, Any]] = {"kind": "row-indexer", "cells": ["r1c1", "r1c5", "r1c9"]}
    fpuzzles_key: ClassVar[str] = "rowindexer"
    size: int
    listed: tuple[int, ...]

    def line_of(self, i: int) -> tuple[int, tuple[int, ...]] | None:
        """Its row in its column."""
        n = self.size
        r, c = divmod(i, n)
        return r + 1, tuple(k * n + c for k in range(n))


@kind
@dataclass(frozen=True, slots=True)
class ColumnIndexer(Indexer):
    """Column indexers: a digit v at row r, column c says column v of that row holds c.

    The "1-5-9" rule: column indexers on every cell of columns 1, 5 and 9.
    """

    kind: ClassVar[str] = "column-indexer"
    meaning: ClassVar[str] = (
        "a digit v in column c says the cell of column v in its row holds c (1-5-9)"
    )
    example: ClassVar[dict[str, Any]] = {
        "kind": "column-indexer",
        "cells": ["r1c1", "r2c1", "r3c1"],
    }
    fpuzzles_key: ClassVar[str] = "columnindexer"
    size: int
    listed: tuple[int, ...]

    def line_of(self, i: int) -> tuple[int, tuple[int, ...]] | None:
        """Its column in its row."""
        n = self.size
        r, c = divmod(i, n)
        return c + 1, tuple(r * n + k for k in range(n))


def _regions_of(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """The grid's boxes, or its jigsaw regions, each in reading order."""
    if rules.box is None:
        return tuple(tuple(sorted(region)) for region in rules.regions)
    n, (rows, cols) = rules.n, rules.box
    return tuple(
        tuple((br + r) * n + bc + c for r in range(rows) for c in range(cols))
        for br in range(0, n, rows)
        for bc in range(0, n, cols)
    )


@lru_cache(maxsize=64)
def _default_regions(n: int) -> tuple[tuple[int, ...], ...]:
    """The boxes of a grid of side ``n`` with its default box shape."""
    from cpsudoku.model.rules import Rules

    return _regions_of(Rules.for_size(n))


@kind
@dataclass(frozen=True, slots=True)
class BoxIndexer(Indexer):
    """Box indexers: a digit v at position p of its box says position v of the box holds p.

    Positions count 1..n in reading order; the boxes are the puzzle's own (a jigsaw's
    regions too), taken from the rules (:meth:`bind`). A cell in no region indexes
    nothing.
    """

    kind: ClassVar[str] = "box-indexer"
    meaning: ClassVar[str] = (
        "a digit v at position p of its box (reading order) says position v of the box holds p"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "box-indexer", "cells": ["r1c1", "r5c5"]}
    fpuzzles_key: ClassVar[str] = "boxindexer"
    binds: ClassVar[bool] = True
    size: int
    listed: tuple[int, ...]
    #: The boxes (or jigsaw regions) in reading order; empty: the default boxes.
    regions: tuple[tuple[int, ...], ...] = ()

    def bind(self, rules: Rules) -> BoxIndexer:
        """This rule over the rules' own boxes or regions."""
        regions = _regions_of(rules)
        if regions == self.regions:
            return self
        return BoxIndexer(self.size, self.listed, regions)

    def line_of(self, i: int) -> tuple[int, tuple[int, ...]] | None:
        """Its place in its box (None when in no region)."""
        for region in self.regions or _default_regions(self.size):
            if i in region:
                return region.index(i) + 1, region
        return None


# ------------------------------------------------------------------------- f-puzzles

_INDEXERS: dict[str, type[Indexer]] = {
    "rowindexer": RowIndexer,
    "columnindexer": ColumnIndexer,
    "boxindexer": BoxIndexer,
}


@reads(*_INDEXERS)
def _read_indexers(reading: Reading, key: str) -> list[Constraint]:
    """One rule holding the cells of every item of the key (items: ``{"cells"}``).

    Indexer cells do not interact, so the items are one set, as f-puzzles' solvers
    read them; a cell listed twice counts once.
    """
    cells: list[int] = []
    for k, item in enumerate(reading.items(key)):
        cells.extend(reading.cells(item.get("cells"), f"{key} {k}"))
    if not cells:
        return []
    return [_INDEXERS[key](reading.n, tuple(dict.fromkeys(cells)))]  # type: ignore[call-arg]


@writes(RowIndexer, ColumnIndexer, BoxIndexer)
def _write_indexer(rule: Indexer, out: Writing) -> None:
    key = next(k for k, cls in _INDEXERS.items() if isinstance(rule, cls))
    out.add(key, {"cells": out.names(rule.listed)})
