"""Grid geometry and the :class:`Puzzle` value type.

Glossary (used across the package):

- ``R x C``: box shape, R rows by C columns; ``n = R*C`` symbols, an ``n x n`` grid.
- cell: an index ``i = r*n + c`` into the row-major tuple of ``n*n`` cells (0-based
  ``r``, ``c``); messages and exports speak 1-based "row 3, column 5" / "r3c5".
- value / digit ``d``: 1..n; 0 means an empty cell.
- unit: a group of cells that must all differ (a row, a column, a box, and for other
  variants any other region). The list of units *is* the rule set: encoders, the
  oracle and the verifier iterate over it, so a new region shape is a new geometry,
  never a new encoder.
- peers of a cell: the other cells sharing a unit with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from operator import itemgetter

from cpsudoku.model.errors import BoxShapeError, ConflictingGivensError

#: Symbols for the values 1..35 in the one-line form; '.' is written for empty cells.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Largest side accepted (10,000 cells): bigger inputs are refused as too large
#: rather than handed to an engine that would take hours to encode them.
MAX_SIZE = 100


@dataclass(frozen=True, slots=True)
class Unit:
    """One group of cells that must hold different values.

    Attributes:
        kind: ``"row"``, ``"column"`` or ``"box"`` (other variants may add kinds).
        number: 1-based number of the unit within its kind (boxes row-major).
        cells: cell indices of the unit.
    """

    kind: str
    number: int
    cells: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.kind} {self.number}"


@dataclass(frozen=True)
class Geometry:
    """The shape of a grid: box rows x box columns, and the units derived from it.

    Create with :func:`geometry` (cached) rather than directly, so each shape's units
    and peers are computed once per process.
    """

    box_rows: int
    box_cols: int
    n: int = field(init=False)

    def __post_init__(self) -> None:
        if self.box_rows < 1 or self.box_cols < 1:
            raise BoxShapeError(f"box shape {self.box_rows}x{self.box_cols} is not positive")
        if self.box_rows * self.box_cols > MAX_SIZE:
            raise BoxShapeError(
                f"box shape {self.box_rows}x{self.box_cols} gives a "
                f"{self.box_rows * self.box_cols}x{self.box_rows * self.box_cols} grid; "
                f"the largest supported side is {MAX_SIZE}"
            )
        object.__setattr__(self, "n", self.box_rows * self.box_cols)

    def __str__(self) -> str:
        return f"{self.n}x{self.n} ({self.box_rows}x{self.box_cols} boxes)"

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        # Pickle as the shape only: the cached units and peers are rebuilt (once per
        # process, through the cache) instead of being shipped to every worker.
        return geometry, (self.box_rows, self.box_cols)

    @property
    def cells(self) -> int:
        """Number of cells, ``n*n``."""
        return self.n * self.n

    @property
    def box_shape(self) -> str:
        """The box shape as written on the command line, e.g. ``"2x3"``."""
        return f"{self.box_rows}x{self.box_cols}"

    def box_of(self, r: int, c: int) -> int:
        """0-based box number (row-major) of the cell at 0-based (r, c)."""
        boxes_per_row = self.n // self.box_cols
        return (r // self.box_rows) * boxes_per_row + c // self.box_cols

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        """Every unit: the n rows, then the n columns, then the n boxes."""
        n, br, bc = self.n, self.box_rows, self.box_cols
        rows = [Unit("row", r + 1, tuple(r * n + c for c in range(n))) for r in range(n)]
        cols = [Unit("column", c + 1, tuple(r * n + c for r in range(n))) for c in range(n)]
        boxes = []
        for b in range(n):
            r0, c0 = (b // (n // bc)) * br, (b % (n // bc)) * bc
            cells = tuple((r0 + dr) * n + c0 + dc for dr in range(br) for dc in range(bc))
            boxes.append(Unit("box", b + 1, cells))
        return tuple(rows + cols + boxes)

    @cached_property
    def unit_cells(self) -> tuple[tuple[int, ...], ...]:
        """The cells of each unit, in the order of :attr:`units` (the fast form)."""
        return tuple(u.cells for u in self.units)

    @cached_property
    def unit_getters(self) -> tuple[Callable[[Sequence[int]], tuple[int, ...]], ...]:
        """For each unit, a function taking a grid's cells to the unit's values.

        ``operator.itemgetter`` does the gathering in C: the verifier and the givens
        check run once per puzzle, so their cost is part of every solve.
        """
        return tuple(
            itemgetter(*cells) if len(cells) > 1 else _single(cells[0]) for cells in self.unit_cells
        )

    @cached_property
    def units_of(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices (into :attr:`units`) of the units holding it."""
        owners: list[list[int]] = [[] for _ in range(self.cells)]
        for k, cells in enumerate(self.unit_cells):
            for i in cells:
                owners[i].append(k)
        return tuple(tuple(o) for o in owners)

    @cached_property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the sorted other cells that share a unit with it."""
        result = []
        for i in range(self.cells):
            near = {j for k in self.units_of[i] for j in self.unit_cells[k]}
            near.discard(i)
            result.append(tuple(sorted(near)))
        return tuple(result)

    def position(self, i: int) -> str:
        """Human form of cell ``i``: ``"row 3, column 5"`` (1-based)."""
        return f"row {i // self.n + 1}, column {i % self.n + 1}"

    def symbol(self, value: int) -> str:
        """The one-line symbol of ``value`` (``.`` for 0); only for n <= 35."""
        return "." if value == 0 else SYMBOLS[value - 1]


def _empty_mark(symbols: str) -> str:
    """The character written for an empty cell: ``.``, or another when ``.`` is a symbol."""
    return next(c for c in "._-*0" if c not in symbols)


def _single(i: int) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """A one-cell unit's gatherer (``itemgetter`` of one index returns no tuple)."""
    return lambda cells: (cells[i],)


@cache
def geometry(box_rows: int, box_cols: int) -> Geometry:
    """The (cached) geometry with boxes of ``box_rows x box_cols`` cells.

    >>> geometry(2, 3).n
    6
    """
    return Geometry(box_rows, box_cols)


def geometry_for_size(n: int) -> Geometry:
    """The default geometry for a grid of side ``n``.

    Square boxes when n is a perfect square, otherwise the most square factorisation
    R x C with R <= C (6 -> 2x3, 12 -> 3x4). A prime n gives 1 x n boxes: a Latin square.
    """
    if n < 1:
        raise BoxShapeError(f"grid side {n} is not positive")
    r = math.isqrt(n)
    while n % r:
        r -= 1
    return geometry(r, n // r)


def parse_box(text: str) -> Geometry:
    """Parse a box shape such as ``"3x3"`` or ``"2x3"`` (also ``2X3``, ``2*3``)."""
    parts = text.lower().replace("*", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise BoxShapeError(f"box shape {text!r} is not of the form RxC, e.g. 3x3 or 2x3")
    return geometry(int(parts[0]), int(parts[1]))


def as_geometry(box: str | Geometry | None) -> Geometry | None:
    """A ``box`` argument as a Geometry: text such as ``"2x3"`` parsed, None kept.

    Raises:
        BoxShapeError: text that is no box shape, or something that is neither.
    """
    if box is None or isinstance(box, Geometry):
        return box
    if isinstance(box, str):
        return parse_box(box)
    raise BoxShapeError(
        f"a box shape is text such as '2x3' or a Geometry, not a {type(box).__name__} ({box!r})"
    )


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A grid of one geometry: a tuple of ``n*n`` values, 0 for an empty cell.

    Immutable and hashable. ``str(puzzle)`` is the one-line form (symbols, ``.`` for
    empty; space-separated integers when n > 35). A complete grid (a solution) is a
    Puzzle without empty cells.

    Construct through :func:`cpsudoku.parse` for text, or directly from values; the
    constructor checks the length and the value range, not the givens' consistency
    (see :meth:`check`).
    """

    geometry: Geometry
    cells: tuple[int, ...]

    def __post_init__(self) -> None:
        g = self.geometry
        if len(self.cells) != g.cells:
            from cpsudoku.model.errors import WrongLengthError

            raise WrongLengthError(f"a {g} grid has {g.cells} cells, got {len(self.cells)}")
        n = g.n
        if self.cells and min(self.cells) >= 0 and max(self.cells) <= n:
            return
        for i, v in enumerate(self.cells):
            if not 0 <= v <= n:
                from cpsudoku.model.errors import ValueOutOfRangeError

                raise ValueOutOfRangeError(
                    f"value {v} at {g.position(i)} is outside 1..{n} (0 = empty) for a {g} grid",
                    row=i // n + 1,
                    col=i % n + 1,
                    symbol=str(v),
                )

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.geometry.n

    @property
    def givens(self) -> int:
        """Number of filled cells."""
        return sum(1 for v in self.cells if v)

    @property
    def is_complete(self) -> bool:
        """True when no cell is empty."""
        return 0 not in self.cells

    def rows(self) -> list[list[int]]:
        """The grid as a list of rows of ints (0 for empty)."""
        n = self.n
        return [list(self.cells[r * n : (r + 1) * n]) for r in range(n)]

    def __str__(self) -> str:
        return self.line()

    def line(self, symbols: str | None = None) -> str:
        """The one-line form: a symbol per cell, ``.`` for an empty one.

        ``symbols`` are the symbols of the values 1..n (default: ``1-9`` then ``A-Z``;
        for n > 35 there are none, and the form is space-separated integers).
        """
        if symbols is None:
            if self.n > len(SYMBOLS):
                return " ".join(map(str, self.cells))
            symbols = SYMBOLS
        table = (_empty_mark(symbols), *symbols[: self.n])
        return "".join(map(table.__getitem__, self.cells))

    def pretty(self, symbols: str | None = None) -> str:
        """A readable grid with box lines, e.g. for the command line.

        ``symbols``: the symbols of the values, as in :meth:`line`.
        """
        g = self.geometry
        n = g.n
        width = 1 if n <= len(SYMBOLS) or symbols is not None else len(str(n))

        def sym(v: int) -> str:
            if symbols is not None:
                return _empty_mark(symbols) if v == 0 else symbols[v - 1]
            if n <= len(SYMBOLS):
                return g.symbol(v)
            return ("." if v == 0 else str(v)).rjust(width)

        groups = ["-" * ((width + 1) * g.box_cols + 1) for _ in range(n // g.box_cols)]
        rule = "+".join(groups)[1:-1]
        lines = []
        for r in range(n):
            if r and r % g.box_rows == 0:
                lines.append(rule)
            row = self.cells[r * n : (r + 1) * n]
            chunks = [
                " ".join(sym(v) for v in row[c : c + g.box_cols]) for c in range(0, n, g.box_cols)
            ]
            lines.append(" | ".join(chunks))
        return "\n".join(lines)

    def conflicts(self) -> list[tuple[Unit, int, int, int]]:
        """Every clash among the givens: ``(unit, value, first cell, second cell)``."""
        found = []
        cells = self.cells
        for unit in self.geometry.units:
            seen: dict[int, int] = {}
            for i in unit.cells:
                v = cells[i]
                if v:
                    if v in seen:
                        found.append((unit, v, seen[v], i))
                    else:
                        seen[v] = i
        return found

    def check(self) -> Puzzle:
        """Raise :class:`ConflictingGivensError` naming the first clash; return self.

        The message names the value, both cells and the unit they share, e.g.
        ``value 5 appears twice in row 1: row 1, column 2 and row 1, column 7``.
        """
        cells = self.cells
        n = self.n
        # Fast path: per unit, the distinct non-zero values must number as many as the
        # filled cells; the descriptive pass runs only when there is a clash to report.
        for gather in self.geometry.unit_getters:
            values = gather(cells)
            distinct = set(values)
            distinct.discard(0)
            if len(distinct) != len(values) - values.count(0):
                unit, v, a, b = self.conflicts()[0]
                g = self.geometry
                raise ConflictingGivensError(
                    f"value {self._sym(v)} appears twice in {unit}: "
                    f"{g.position(a)} and {g.position(b)}",
                    row=b // n + 1,
                    col=b % n + 1,
                    symbol=self._sym(v),
                )
        return self

    def _sym(self, v: int) -> str:
        return self.geometry.symbol(v) if self.n <= len(SYMBOLS) else str(v)
