"""How a rule is drawn: the shapes setters draw, recorded apart from any file format.

Each rule kind draws itself (:meth:`~cpsudoku.model.constraints.Constraint.draw`,
beside its model) by calling the methods of :class:`Drawing` in the setters' own terms:
a killer cage, a coloured line, a thermometer's bulb, a dot on an edge, a clue outside
the grid. The drawing records :class:`Shape` values; a renderer (SVG in
:mod:`cpsudoku.draw`) turns them into a picture. So no renderer knows a rule, and a
new rule is drawn by its own module.

Coordinates are cells (0-based indices) or, for clues outside the grid, a row and a
column from -1 to n (one step outside on each side).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The colours setters give their lines (as SudokuPad and f-puzzles draw them).
COLOURS = {
    "thermometer": "#b8b8b8",
    "whisper": "#5fcf64",
    "renban": "#d08cf0",
    "palindrome": "#a0a0a0",
    "region-sum": "#4a90e2",
    "between": "#a8d8f0",
    "entropic": "#f2a640",
    "modular": "#4fc3b8",
    "zipper": "#c7a4f5",
    "nabner": "#f0dc50",
    "lockout": "#f08a8a",
    "arrow": "#9a9a9a",
    "double-arrow": "#e0a0a0",
    "regex": "#e07070",
    "slow-thermometer": "#c8c8c8",
    "other": "#888888",
}

#: The fills of shaded cells (indexers as f-puzzles shades them, a chess rule's cells).
FILLS = {
    "row-indexer": "#f5b7b1",
    "column-indexer": "#aed6f1",
    "box-indexer": "#abebc6",
    "chess": "#f9e79f",
}

#: Pale colours for sets of cells that go together (clones: one colour per rule).
PALETTE = (
    "#f6c9a5",
    "#b9e3c6",
    "#c9c3f0",
    "#f3b6c9",
    "#bfe2f2",
    "#efe39a",
    "#d9c2a7",
    "#c5cbd3",
)


def colour_of(role: str) -> str:
    """The line colour of a rule kind: ``region-sum-line`` is a ``region-sum``'s."""
    return COLOURS.get(role) or COLOURS.get(role.removesuffix("-line")) or COLOURS["other"]


@dataclass(frozen=True)
class Shape:
    """One thing drawn: what it is, where, and how.

    Attributes:
        shape: cage, line, bulb, circle, pill, arrow, dot, edge-text, outside, shade,
            mark, text, corner, chevron.
        cells: the cells it covers, in order (a line's path).
        role: the rule's kind, for the renderer's classes and colours.
        attrs: the rest (a label, a colour, a fill, an edge's text, an outside
            position, an arrow's direction).
    """

    shape: str
    cells: tuple[int, ...]
    role: str
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Drawing:
    """The shapes of a puzzle's rules, as its rules add them."""

    n: int
    shapes: list[Shape] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def _add(self, shape: str, cells: tuple[int, ...] | list[int], role: str, **attrs: Any) -> None:
        self.shapes.append(Shape(shape, tuple(cells), role, attrs))

    def cage(self, cells: tuple[int, ...], role: str, label: str | None = None) -> None:
        """A dashed cage around the cells, its label (a sum) in its first cell's corner."""
        self._add("cage", cells, role, label=label)

    def line(
        self, cells: tuple[int, ...], role: str, colour: str | None = None, width: float = 0.18
    ) -> None:
        """A line through the cells' centres (``width`` in cells)."""
        self._add("line", cells, role, colour=colour or colour_of(role), width=width)

    def bulb(self, cell: int, role: str, colour: str | None = None) -> None:
        """A thermometer's bulb: a filled circle in the cell."""
        self._add("bulb", (cell,), role, colour=colour or colour_of(role))

    def circle(
        self,
        cells: tuple[int, ...],
        role: str,
        fill: str = "#ffffff",
        stroke: str = "#888888",
        form: str = "round",
    ) -> None:
        """An arrow's circle (one cell) or pill (several cells, one rounded shape).

        Drawn over lines, so a line ends at its edge (an arrow's circle, a between
        line's ends). ``form="diamond"``: a diamond in one cell (a lockout line's ends).
        """
        self._add(
            "circle" if len(cells) == 1 else "pill",
            cells,
            role,
            fill=fill,
            stroke=stroke,
            form=form,
        )

    def arrow(self, cells: tuple[int, ...], role: str, colour: str | None = None) -> None:
        """An arrow along the cells, its head at the last one."""
        self._add("arrow", cells, role, colour=colour or COLOURS.get(role, COLOURS["arrow"]))

    def dot(self, a: int, b: int, role: str, fill: str, label: str | None = None) -> None:
        """A kropki dot on the edge between two cells (filled black, or white)."""
        self._add("dot", (a, b), role, fill=fill, label=label)

    def edge_text(self, a: int, b: int, role: str, text: str) -> None:
        """Text on the edge between two cells (an X, a V, a sum)."""
        self._add("edge-text", (a, b), role, text=text)

    def outside(
        self,
        row: int,
        col: int,
        role: str,
        text: str,
        direction: tuple[int, int] | None = None,
        cells: tuple[int, ...] = (),
    ) -> None:
        """A clue outside the grid (row or column -1 or n), with an arrow along ``direction``.

        ``cells``: the cells the clue reads (tagged on the clue, for a page or a test).
        """
        self._add("outside", cells, role, row=row, col=col, text=text, direction=direction)

    def shade(
        self, cells: tuple[int, ...], role: str, colour: str = "#e6e6e6", opacity: float = 0.6
    ) -> None:
        """The cells shaded (an extra region, a clone...)."""
        self._add("shade", cells, role, colour=colour, opacity=opacity)

    def mark(self, cell: int, role: str, kind: str, fill: str = "#d8d8d8") -> None:
        """A shape behind a cell's digit: ``circle`` (odd), ``square`` (even), ``diamond``."""
        self._add("mark", (cell,), role, kind=kind, fill=fill)

    def text(self, cell: int, role: str, text: str, corner: str = "tl") -> None:
        """Small text in a cell's corner (``tl``, ``tr``, ``bl``, ``br``) or ``centre``."""
        self._add("text", (cell,), role, text=text, corner=corner)

    def corner(self, cells: tuple[int, ...], role: str, text: str) -> None:
        """A small circle on the corner the cells share (a quadruple's), ``text`` in it.

        The corner is the middle of the cells' bounding box: the shared corner of a
        2x2 area, the middle of an edge for two cells side by side.
        """
        self._add("corner", cells, role, text=text)

    def chevron(
        self, cell: int, role: str, towards: tuple[tuple[int, int], ...], outward: bool
    ) -> None:
        """Small arrowheads inside a cell by some of its edges, pointing out or in.

        ``towards``: a ``(row step, column step)`` per edge (``(0, 1)``: the right
        edge). A maximum cell's point out (it is above its neighbours), a minimum's in.
        """
        self._add("chevron", (cell,), role, towards=towards, outward=outward)

    def note(self, text: str) -> None:
        """A rule that has no shape (a whole-grid rule): listed beside the grid."""
        self.notes.append(text)
