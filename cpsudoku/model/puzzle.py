"""The :class:`Puzzle` value: a grid of values under some rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cpsudoku.model.errors import ConflictingGivensError, ValueOutOfRangeError, WrongLengthError
from cpsudoku.model.rules import SYMBOLS, Rules, Unit


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A grid of one rules: a tuple of ``n*n`` values, 0 for an empty cell.

    Immutable and hashable. ``str(puzzle)`` is the one-line form (symbols, ``.`` for
    empty; space-separated integers when n > 35). A complete grid (a solution) is a
    Puzzle without empty cells.

    Construct through :func:`cpsudoku.parse` for text, or directly from values; the
    constructor checks the length and the value range, not the givens' consistency
    (see :meth:`check`).
    """

    rules: Rules
    cells: tuple[int, ...]

    def __post_init__(self) -> None:
        g = self.rules
        if len(self.cells) != g.cells:
            raise WrongLengthError(f"a {g} grid has {g.cells} cells, got {len(self.cells)}")
        n = g.n
        if self.cells and min(self.cells) >= 0 and max(self.cells) <= n:
            return
        for i, v in enumerate(self.cells):
            if not 0 <= v <= n:
                raise ValueOutOfRangeError(
                    f"value {v} at {g.position(i)} is outside 1..{n} (0 = empty) for a {g} grid",
                    row=i // n + 1,
                    col=i % n + 1,
                    symbol=str(v),
                )

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.rules.n

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
        """A readable grid with box lines (a jigsaw's region borders), e.g. for the CLI.

        ``symbols``: the symbols of the values, as in :meth:`line`.
        """
        g = self.rules
        n = g.n
        width = 1 if n <= len(SYMBOLS) or symbols is not None else len(str(n))

        def sym(v: int) -> str:
            if symbols is not None:
                return _empty_mark(symbols) if v == 0 else symbols[v - 1]
            if n <= len(SYMBOLS):
                return g.symbol(v)
            return ("." if v == 0 else str(v)).rjust(width)

        if g.box is None:
            return _jigsaw_drawing(self.cells, g, width, sym)
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
        for unit in self.rules.units:
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
        for gather in self.rules.unit_getters:
            values = gather(cells)
            distinct = set(values)
            distinct.discard(0)
            if len(distinct) != len(values) - values.count(0):
                unit, v, a, b = self.conflicts()[0]
                g = self.rules
                raise ConflictingGivensError(
                    f"value {self._sym(v)} appears twice in {unit}: "
                    f"{g.position(a)} and {g.position(b)}",
                    row=b // n + 1,
                    col=b % n + 1,
                    symbol=self._sym(v),
                )
        return self

    def _sym(self, v: int) -> str:
        return self.rules.symbol(v) if self.n <= len(SYMBOLS) else str(v)


def _jigsaw_drawing(
    cells: tuple[int, ...], rules: Rules, width: int, sym: Callable[[int], str]
) -> str:
    """A jigsaw's grid with its region borders drawn.

    A ``|`` between two cells of a row in different regions, ``-`` under a cell whose
    neighbour below is in another region, ``+`` where borders meet. Every gap is one
    character wide, so the columns line up in every row.
    """
    n = rules.n
    region = [owners[2] for owners in rules.units_of]  # rows, columns, then regions

    def apart(i: int, j: int) -> bool:
        return region[i] != region[j]

    lines = []
    for r in range(n):
        if r:  # the border between rows r-1 and r
            parts = []
            for c in range(n):
                if c:
                    marks = (
                        apart((r - 1) * n + c - 1, (r - 1) * n + c),  # a bar above
                        apart(r * n + c - 1, r * n + c),  # a bar below
                    )
                    sides = (
                        apart((r - 1) * n + c - 1, r * n + c - 1),
                        apart((r - 1) * n + c, r * n + c),
                    )
                    parts.append(_JUNCTIONS[any(marks), any(sides)])
                parts.append(("-" if apart((r - 1) * n + c, r * n + c) else " ") * width)
            lines.append("".join(parts).rstrip())
        parts = []
        for c in range(n):
            if c:
                parts.append("|" if apart(r * n + c - 1, r * n + c) else " ")
            parts.append(sym(cells[r * n + c]))
        lines.append("".join(parts))
    return "\n".join(lines)


#: The character where borders meet: (a bar above or below, a line left or right).
_JUNCTIONS = {(False, False): " ", (True, False): "|", (False, True): "-", (True, True): "+"}


def _empty_mark(symbols: str) -> str:
    """The character written for an empty cell: ``.``, or another when ``.`` is a symbol."""
    return next(c for c in "._-*0" if c not in symbols)
