"""A puzzle drawn as SVG, as setters draw it: regions, rules, givens, solutions, marks.

Plain SVG text written here: the shapes are few (lines, circles, rectangles, text) and
a library would add a dependency for what a hundred lines do. Every element carries
its shape and its rule's kind as classes (``class="line whisper"``) and its cells as
``data-cells``, so a page can style and a test can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from cpsudoku.model.constraints.drawing import Drawing, Shape
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import SYMBOLS, Rules

#: Pixels per cell.
CELL = 48


@dataclass(frozen=True)
class Picture:
    """What to draw beside the rules.

    Attributes:
        puzzle: the puzzle (its givens are drawn bold).
        solution: digits to draw in the other cells, or None.
        candidates: a mask per cell of pencil marks to draw in open cells, or None.
        highlight: cells to highlight (where two witnesses differ, a conflict).
        title: a line above the grid.
    """

    puzzle: Puzzle
    solution: Sequence[int] | None = None
    candidates: Sequence[int] | None = None
    highlight: frozenset[int] = frozenset()
    title: str = ""


#: The shapes drawn before the grid's lines, in this order (later ones on top). Bulbs
#: come after circles: a thermometer may start in a between line's or an arrow's circle.
_UNDER_GRID = (
    "shade",
    "mark",
    "line",
    "arrow",
    "circle",
    "pill",
    "bulb",
    "chevron",
    "cage",
    "text",
)

#: The shapes drawn over the grid's lines: those on edges and corners, and outside.
_OVER_GRID = ("dot", "edge-text", "corner", "outside")


def drawing_of(rules: Rules) -> Drawing:
    """Every rule's shapes (each rule draws itself)."""
    drawing = Drawing(rules.n)
    for c in rules.constraints:
        c.draw(drawing)
    return drawing


def to_svg(picture: Picture) -> str:
    """The SVG text of a puzzle, its rules and what ``picture`` adds."""
    puzzle = picture.puzzle
    rules = puzzle.rules
    n = rules.n
    drawing = drawing_of(rules)
    for region in rules.extra:
        drawing.shade(region.cells, region.kind.replace(" ", "-"), colour="#dcebf7", opacity=0.5)
    out = _Svg(n)
    notes = drawing.notes
    top = CELL * (1 + (1 if picture.title else 0))
    wrapped = sum(len(_wrap(note, int((n + 1.5) * CELL / (CELL * 0.17)))) for note in notes)
    out.open(wrapped, bool(picture.title))
    if picture.title:
        out.text(CELL / 4, CELL * 0.7, picture.title, "title", size=CELL * 0.45, anchor="start")
    out.group_start(f"translate({CELL},{top})")
    out.rect(0, 0, n * CELL, n * CELL, "board", fill="#ffffff", stroke="none")
    for i in sorted(picture.highlight):
        r, c = divmod(i, n)
        out.rect(
            c * CELL, r * CELL, CELL, CELL, "highlight", fill="#fff1a8", stroke="none", cells=(i,)
        )
    by_kind: dict[str, list[Shape]] = {}
    for shape in drawing.shapes:
        by_kind.setdefault(shape.shape, []).append(shape)
    for kind in _UNDER_GRID:
        for shape in by_kind.get(kind, ()):
            _shape(out, shape, n)
    out.parts.extend(_grid_parts(rules))
    for kind in _OVER_GRID:  # on edges and corners: over the grid's lines
        for shape in by_kind.get(kind, ()):
            _shape(out, shape, n)
    _digits(out, picture)
    out.group_end()
    lines = [line for note in notes for line in _wrap(note, int((n + 1.5) * CELL / (CELL * 0.17)))]
    for k, line in enumerate(lines):
        y = top + (n + 1.6 + 0.55 * k) * CELL
        out.text(CELL / 4, y, line, "note", size=CELL * 0.3, anchor="start")
    out.close()
    return out.text_out()


class _Svg:
    """An SVG document being written."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.parts: list[str] = []

    def open(self, notes: int, titled: bool) -> None:
        width = (self.n + 2) * CELL
        height = (self.n + 2 + (1 if titled else 0)) * CELL
        if notes:  # the notes start 0.6 cells below the grid's outside margin
            height += math.ceil((0.8 + notes * 0.55) * CELL)
        self.parts.append(
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" class="cpsudoku-puzzle" '
            'font-family="Helvetica, Arial, sans-serif">'
        )
        self.parts.append(f'<rect width="{width}" height="{height}" fill="#ffffff"/>')

    def close(self) -> None:
        self.parts.append("</svg>")

    def text_out(self) -> str:
        return "\n".join(self.parts) + "\n"

    def group_start(self, transform: str) -> None:
        self.parts.append(f'<g transform="{transform}">')

    def group_end(self) -> None:
        self.parts.append("</g>")

    def element(
        self, tag: str, cls: str, cells: Sequence[int] = (), *, body: str = "", **attrs: Any
    ) -> None:
        text = " ".join(
            f'{k.rstrip("_").replace("_", "-")}="{escape(str(v))}"'
            for k, v in attrs.items()
            if v is not None
        )
        data = f' data-cells="{" ".join(map(str, cells))}"' if cells else ""
        if body:
            self.parts.append(f'<{tag} class="{cls}"{data} {text}>{body}</{tag}>')
        else:
            self.parts.append(f'<{tag} class="{cls}"{data} {text}/>')

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        cls: str,
        cells: Sequence[int] = (),
        **attrs: Any,
    ) -> None:
        self.element("rect", cls, cells, x=_f(x), y=_f(y), width=_f(w), height=_f(h), **attrs)

    def text(
        self,
        x: float,
        y: float,
        body: str,
        cls: str,
        *,
        size: float,
        anchor: str = "middle",
        cells: Sequence[int] = (),
        **attrs: Any,
    ) -> None:
        self.element(
            "text",
            cls,
            cells,
            body=escape(body),
            x=_f(x),
            y=_f(y),
            font_size=_f(size),
            text_anchor=anchor,
            dominant_baseline="central",
            **attrs,
        )


def _wrap(text: str, width: int) -> list[str]:
    """``text`` cut into lines of at most ``width`` characters, at spaces."""
    import textwrap

    return textwrap.wrap(text, max(width, 20)) or [""]


def _f(x: float) -> str:
    """A coordinate, short."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _centre(i: int, n: int) -> tuple[float, float]:
    r, c = divmod(i, n)
    return (c + 0.5) * CELL, (r + 0.5) * CELL


def _points(cells: Sequence[int], n: int) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in (_centre(i, n) for i in cells))


def _shape(out: _Svg, s: Shape, n: int) -> None:
    """One shape (see :class:`~cpsudoku.model.constraints.drawing.Drawing`)."""
    a = s.attrs
    cls = f"{s.shape} {s.role}"
    if s.shape == "shade":
        for i in s.cells:
            r, c = divmod(i, n)
            out.rect(
                c * CELL,
                r * CELL,
                CELL,
                CELL,
                cls,
                (i,),
                fill=a["colour"],
                fill_opacity=a["opacity"],
                stroke="none",
            )
    elif s.shape == "mark":
        x, y = _centre(s.cells[0], n)
        if a["kind"] == "circle":
            out.element(
                "circle", cls, s.cells, cx=_f(x), cy=_f(y), r=_f(CELL * 0.4), fill=a["fill"]
            )
        elif a["kind"] == "diamond":
            d = CELL * 0.42
            corners = (
                f"{_f(x)},{_f(y - d)} {_f(x + d)},{_f(y)} {_f(x)},{_f(y + d)} {_f(x - d)},{_f(y)}"
            )
            out.element("polygon", cls, s.cells, points=corners, fill=a["fill"])
        else:
            out.rect(
                x - CELL * 0.4, y - CELL * 0.4, CELL * 0.8, CELL * 0.8, cls, s.cells, fill=a["fill"]
            )
    elif s.shape == "line":
        out.element(
            "polyline",
            cls,
            s.cells,
            points=_points(s.cells, n),
            fill="none",
            stroke=a["colour"],
            stroke_width=_f(CELL * a["width"]),
            stroke_linecap="round",
            stroke_linejoin="round",
            stroke_opacity="0.85",
        )
    elif s.shape == "bulb":
        x, y = _centre(s.cells[0], n)
        out.element("circle", cls, s.cells, cx=_f(x), cy=_f(y), r=_f(CELL * 0.38), fill=a["colour"])
    elif s.shape == "arrow":
        pts = [_centre(i, n) for i in s.cells]
        out.element(
            "polyline",
            cls,
            s.cells,
            points=_points(s.cells, n),
            fill="none",
            stroke=a["colour"],
            stroke_width=_f(CELL * 0.05),
            stroke_linejoin="round",
        )
        if len(pts) >= 2:
            (x0, y0), (x1, y1) = pts[-2], pts[-1]
            angle = math.atan2(y1 - y0, x1 - x0)
            h = CELL * 0.22
            left = (x1 - h * math.cos(angle - 0.5), y1 - h * math.sin(angle - 0.5))
            right = (x1 - h * math.cos(angle + 0.5), y1 - h * math.sin(angle + 0.5))
            head = f"{_f(left[0])},{_f(left[1])} {_f(x1)},{_f(y1)} {_f(right[0])},{_f(right[1])}"
            out.element(
                "polyline",
                cls + " head",
                s.cells[-1:],
                points=head,
                fill="none",
                stroke=a["colour"],
                stroke_width=_f(CELL * 0.05),
            )
    elif s.shape == "circle" and a.get("form") == "diamond":
        x, y = _centre(s.cells[0], n)
        d = CELL * 0.42
        corners = f"{_f(x)},{_f(y - d)} {_f(x + d)},{_f(y)} {_f(x)},{_f(y + d)} {_f(x - d)},{_f(y)}"
        out.element(
            "polygon",
            cls + " diamond",
            s.cells,
            points=corners,
            fill=a["fill"],
            stroke=a["stroke"],
            stroke_width=_f(CELL * 0.05),
        )
    elif s.shape in ("circle", "pill"):
        centres = [_centre(i, n) for i in s.cells]
        x_min, x_max = min(x for x, _ in centres), max(x for x, _ in centres)
        y_min, y_max = min(y for _, y in centres), max(y for _, y in centres)
        pad = CELL * 0.42
        out.rect(
            x_min - pad,
            y_min - pad,
            x_max - x_min + 2 * pad,
            y_max - y_min + 2 * pad,
            cls,
            s.cells,
            rx=_f(pad),
            ry=_f(pad),
            fill=a["fill"],
            stroke=a["stroke"],
            stroke_width=_f(CELL * 0.05),
        )
    elif s.shape == "cage":
        _cage(out, s, n)
    elif s.shape in ("dot", "edge-text"):
        (xa, ya), (xb, yb) = _centre(s.cells[0], n), _centre(s.cells[1], n)
        x, y = (xa + xb) / 2, (ya + yb) / 2
        if s.shape == "dot":
            out.element(
                "circle",
                cls,
                s.cells,
                cx=_f(x),
                cy=_f(y),
                r=_f(CELL * 0.13),
                fill=a["fill"],
                stroke="#000000",
                stroke_width=_f(CELL * 0.03),
            )
            if a.get("label"):
                colour = "#ffffff" if a["fill"] != "#ffffff" else "#000000"
                out.text(
                    x,
                    y,
                    str(a["label"]),
                    cls + " label",
                    size=CELL * 0.17,
                    cells=s.cells,
                    fill=colour,
                )
        else:
            out.rect(
                x - CELL * 0.15,
                y - CELL * 0.15,
                CELL * 0.3,
                CELL * 0.3,
                cls + " back",
                s.cells,
                fill="#ffffff",
                stroke="none",
            )
            out.text(x, y, str(a["text"]), cls, size=CELL * 0.3, cells=s.cells, font_weight="bold")
    elif s.shape == "text":
        x, y = _centre(s.cells[0], n)
        dx = {"tl": -0.32, "tr": 0.32, "bl": -0.32, "br": 0.32}.get(a["corner"], 0.0)
        dy = {"tl": -0.32, "tr": -0.32, "bl": 0.32, "br": 0.32}.get(a["corner"], 0.0)
        out.text(x + dx * CELL, y + dy * CELL, str(a["text"]), cls, size=CELL * 0.22, cells=s.cells)
    elif s.shape == "corner":
        _corner(out, s, n)
    elif s.shape == "chevron":
        _chevron(out, s, n)
    elif s.shape == "outside":
        x, y = (a["col"] + 0.5) * CELL, (a["row"] + 0.5) * CELL
        text = str(a["text"])
        size = CELL * (0.4 if len(text) <= 2 else 0.8 / len(text))
        out.text(x, y, text, cls, size=size, cells=s.cells, font_weight="bold")
        if a.get("direction"):
            dr, dc = a["direction"]
            x2, y2 = x + dc * CELL * 0.42, y + dr * CELL * 0.42
            out.element(
                "line",
                cls + " pointer",
                (),
                x1=_f(x + dc * CELL * 0.22),
                y1=_f(y + dr * CELL * 0.22),
                x2=_f(x2),
                y2=_f(y2),
                stroke="#000000",
                stroke_width=_f(CELL * 0.03),
            )


def _corner(out: _Svg, s: Shape, n: int) -> None:
    """A small circle on the middle of the cells' bounding box, its text inside."""
    rows = [i // n for i in s.cells]
    cols = [i % n for i in s.cells]
    x = (min(cols) + max(cols) + 1) / 2 * CELL
    y = (min(rows) + max(rows) + 1) / 2 * CELL
    text = str(s.attrs["text"])
    radius = CELL * (0.22 if len(text) <= 2 else 0.3)
    out.element(
        "circle",
        f"corner {s.role}",
        s.cells,
        cx=_f(x),
        cy=_f(y),
        r=_f(radius),
        fill="#ffffff",
        stroke="#000000",
        stroke_width=_f(CELL * 0.025),
    )
    if len(text) <= 2:
        out.text(x, y, text, f"corner-text {s.role}", size=CELL * 0.2, cells=s.cells)
        return
    # more: two rows, as setters' tools stack a quadruple's digits
    half = (len(text) + 1) // 2
    stacked = (text[:half].strip(), text[half:].strip())
    size = CELL * min(0.19, 0.5 / max(len(stacked[0]), 1))
    for k, row in enumerate(stacked):
        dy = (k - 0.5) * size * 1.05
        out.text(x, y + dy, row, f"corner-text {s.role}", size=size, cells=s.cells)


def _chevron(out: _Svg, s: Shape, n: int) -> None:
    """Small arrowheads by a cell's edges, pointing out of the cell or into it."""
    x, y = _centre(s.cells[0], n)
    outward = s.attrs["outward"]
    heads = []
    for dr, dc in s.attrs["towards"]:
        tip, back, half = 0.44, 0.33, 0.09  # distances from the centre, in cells
        if not outward:
            tip, back = back, tip
        tx, ty = x + dc * tip * CELL, y + dr * tip * CELL
        bx, by = x + dc * back * CELL, y + dr * back * CELL
        px, py = -dr * half * CELL, dc * half * CELL  # across the edge
        heads.append(f"M{_f(bx + px)},{_f(by + py)}L{_f(tx)},{_f(ty)}L{_f(bx - px)},{_f(by - py)}")
    out.element(
        "path",
        f"chevron {s.role}",
        s.cells,
        d=" ".join(heads),
        fill="none",
        stroke="#555555",
        stroke_width=_f(CELL * 0.04),
        stroke_linejoin="round",
        stroke_linecap="round",
    )


def _cage(out: _Svg, s: Shape, n: int) -> None:
    """A killer cage: dashed edges just inside the cells' outline, its label in a corner."""
    cells = set(s.cells)
    inset = CELL * 0.08
    segments = []
    for i in s.cells:
        r, c = divmod(i, n)
        x0, y0, x1, y1 = (
            c * CELL + inset,
            r * CELL + inset,
            (c + 1) * CELL - inset,
            (r + 1) * CELL - inset,
        )
        up, down = (r - 1) * n + c, (r + 1) * n + c
        left, right = i - 1, i + 1
        if r == 0 or up not in cells:
            segments.append(
                (
                    x0 if c == 0 or left not in cells else c * CELL - inset,
                    y0,
                    x1 if c == n - 1 or right not in cells else (c + 1) * CELL + inset,
                    y0,
                )
            )
        if r == n - 1 or down not in cells:
            segments.append(
                (
                    x0 if c == 0 or left not in cells else c * CELL - inset,
                    y1,
                    x1 if c == n - 1 or right not in cells else (c + 1) * CELL + inset,
                    y1,
                )
            )
        if c == 0 or left not in cells:
            segments.append(
                (
                    x0,
                    y0 if r == 0 or up not in cells else r * CELL - inset,
                    x0,
                    y1 if r == n - 1 or down not in cells else (r + 1) * CELL + inset,
                )
            )
        if c == n - 1 or right not in cells:
            segments.append(
                (
                    x1,
                    y0 if r == 0 or up not in cells else r * CELL - inset,
                    x1,
                    y1 if r == n - 1 or down not in cells else (r + 1) * CELL + inset,
                )
            )
    path = " ".join(f"M{_f(a)},{_f(b)}L{_f(c)},{_f(d)}" for a, b, c, d in segments)
    out.element(
        "path",
        f"cage {s.role}",
        s.cells,
        d=path,
        fill="none",
        stroke="#000000",
        stroke_width=_f(CELL * 0.025),
        stroke_dasharray=f"{_f(CELL * 0.08)},{_f(CELL * 0.06)}",
    )
    label = s.attrs.get("label")
    if label:
        first = min(s.cells)
        r, c = divmod(first, n)
        x, y = c * CELL + inset * 1.2, r * CELL + inset * 1.2
        width = CELL * 0.12 * len(str(label)) + CELL * 0.06
        out.rect(
            x,
            y,
            width,
            CELL * 0.22,
            f"cage-label-back {s.role}",
            (first,),
            fill="#ffffff",
            stroke="none",
        )
        out.text(
            x + CELL * 0.03,
            y + CELL * 0.11,
            str(label),
            f"cage-label {s.role}",
            size=CELL * 0.2,
            anchor="start",
            cells=(first,),
        )


@lru_cache(maxsize=64)
def _grid_parts(rules: Rules) -> tuple[str, ...]:
    """The grid's lines as SVG text, kept per rules: a page redraws one grid often."""
    out = _Svg(rules.n)
    _grid(out, rules)
    return tuple(out.parts)


def _grid(out: _Svg, rules: Rules) -> None:
    """Thin lines between cells, thick ones between regions (boxes or jigsaw regions)."""
    n = rules.n
    third = {}
    for k, cells in enumerate(rules.unit_cells[2 * n : 2 * n + len(_thirds(rules))]):
        for i in cells:
            third[i] = k
    thin: list[tuple[int, int, int, int]] = []
    thick: list[tuple[int, int, int, int]] = []
    for r in range(n):
        for c in range(n):
            i = r * n + c
            if c + 1 < n:
                seg = (c + 1, r, c + 1, r + 1)
                (thick if third.get(i, -1) != third.get(i + 1, -2) else thin).append(seg)
            if r + 1 < n:
                seg = (c, r + 1, c + 1, r + 1)
                (thick if third.get(i, -1) != third.get(i + n, -2) else thin).append(seg)
    for cls, segs, width in (("cell-line", thin, 0.02), ("region-line", thick, 0.06)):
        path = " ".join(
            f"M{_f(a * CELL)},{_f(b * CELL)}L{_f(c * CELL)},{_f(d * CELL)}" for a, b, c, d in segs
        )
        if path:
            out.element(
                "path",
                cls,
                (),
                d=path,
                stroke="#000000",
                stroke_width=_f(CELL * width),
                stroke_linecap="square",
                fill="none",
            )
    out.rect(
        0,
        0,
        n * CELL,
        n * CELL,
        "border",
        fill="none",
        stroke="#000000",
        stroke_width=_f(CELL * 0.07),
    )


def _thirds(rules: Rules) -> tuple[tuple[int, ...], ...]:
    n = rules.n
    if rules.box is not None:
        return tuple(rules.unit_cells[2 * n : 3 * n])
    return rules.regions


def _digits(out: _Svg, picture: Picture) -> None:
    """Givens (bold), solved digits, and pencil marks in open cells."""
    puzzle = picture.puzzle
    n = puzzle.n
    rules = puzzle.rules
    for i, v in enumerate(puzzle.cells):
        x, y = _centre(i, n)
        if v:
            out.text(
                x,
                y,
                _symbol(rules, v),
                "given",
                size=CELL * 0.6,
                cells=(i,),
                font_weight="bold",
                fill="#000000",
            )
        elif picture.solution is not None and picture.solution[i]:
            out.text(
                x,
                y,
                _symbol(rules, picture.solution[i]),
                "solved",
                size=CELL * 0.6,
                cells=(i,),
                fill="#1c5fc9",
            )
        elif picture.candidates is not None and picture.candidates[i]:
            _marks(out, i, picture.candidates[i], rules)


def _marks(out: _Svg, i: int, mask: int, rules: Rules) -> None:
    """A cell's pencil marks: value d at its place in a k x k layout of the cell."""
    n = rules.n
    k = math.isqrt(n - 1) + 1
    r, c = divmod(i, n)
    for d in range(1, n + 1):
        if mask >> (d - 1) & 1:
            row, col = divmod(d - 1, k)
            x = (c + (col + 0.5) / k) * CELL
            y = (r + (row + 0.5) / k) * CELL
            out.text(
                x,
                y,
                _symbol(rules, d),
                "candidate",
                size=CELL * 0.8 / k,
                cells=(i,),
                fill="#3a3a3a",
                data_value=str(d),
            )


def _symbol(rules: Rules, v: int) -> str:
    return SYMBOLS[v - 1] if rules.n <= len(SYMBOLS) else str(v)
