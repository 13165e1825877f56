"""Canonical forms: one representative per class of equivalent puzzles.

Two puzzles are equivalent when a transformation (see
:class:`~cpsudoku.canon.transform.Transformation`) maps one onto the other. Up to
12x12 the canonical form is the minlex form (:mod:`cpsudoku.canon.minlex`: the
smallest string over every transformation, ``0`` for empty), computed by the compiled
search when it was built, else by the Python reference; larger grids use a graph
canonical labelling (:mod:`cpsudoku.canon.graph`), an exact key that is not minlex.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from cpsudoku.canon.graph import graph_canonical
from cpsudoku.canon.minlex import compiled, full_relabelling, minlex
from cpsudoku.canon.transform import Transformation, TransformationError, classic_box
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.forms import PuzzleLike, as_puzzle
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import SYMBOLS, Rules, as_rules

#: The largest side canonicalised by minlex; larger grids take the graph key.
MINLEX_MAX_SIDE = 12

Method = Literal["auto", "minlex", "graph"]


def minlex_built() -> bool:
    """True when the compiled minlex search was built."""
    return compiled() is not None


@dataclass(frozen=True, slots=True)
class Canonical:
    """A puzzle's canonical form.

    Attributes:
        form: the canonical puzzle (same rules as the input).
        transformation: one transformation mapping the input onto ``form``.
        automorphisms: how many transformations map the input onto ``form`` (its
            symmetries; 1 for most puzzles). Each counts once, with the relabelling
            it needs.
        method: ``"minlex"`` (the smallest string) or ``"graph"`` (a canonical key).
    """

    form: Puzzle
    transformation: Transformation
    automorphisms: int
    method: str

    @property
    def line(self) -> str:
        """The form as one line, ``0`` for empty (the minlex catalogues' convention)."""
        return canonical_text(self.form.cells, self.form.n)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form (``error`` is null: the keys of an invalid input's answer)."""
        return {
            "canonical": self.line,
            "method": self.method,
            "automorphisms": self.automorphisms,
            "transformation": self.transformation.to_dict(),
            "error": None,
        }


def canonical_text(cells: Sequence[int], n: int) -> str:
    """Cells as one line with ``0`` for empty; space-separated integers when n > 35."""
    if n > len(SYMBOLS):
        return " ".join(map(str, cells))
    table = "0" + SYMBOLS
    return "".join(table[v] for v in cells)


def _method(n: int, method: Method) -> str:
    if method not in ("auto", "minlex", "graph"):
        raise ValueError(f"unknown method {method!r}: auto, minlex or graph")
    if method == "auto":
        return "minlex" if n <= MINLEX_MAX_SIDE else "graph"
    return method


def canonical(
    puzzle: PuzzleLike, box: str | Rules | None = None, *, method: Method = "auto"
) -> Canonical:
    """The canonical form of a puzzle or grid of any box shape.

    ``method``: ``"minlex"`` up to 12x12 by default, ``"graph"`` above (either may be
    asked for; minlex of a large, nearly empty grid can take very long).

    Raises:
        PuzzleError: the input cannot be read.
        TransformationError: the rules are not rows, columns and boxes alone.
    """
    p = as_puzzle(puzzle, box)
    br, bc = classic_box(p.rules)
    how = _method(p.n, method)
    if how == "graph":
        cells, t, autos = graph_canonical(p.cells, br, bc)
        return Canonical(Puzzle(p.rules, cells), t, autos, how)
    fast = compiled()
    if fast is not None and p.n <= fast.MAX_SIDE:
        form, flip, rows, cols, labels, autos = fast.minlex(bytes(p.cells), br, bc)
        digits = full_relabelling(labels, p.n)
        t = Transformation((br, bc), bool(flip), tuple(rows), tuple(cols), digits)
        return Canonical(Puzzle(p.rules, tuple(form)), t, autos, how)
    result = minlex(p.cells, br, bc)
    form = Puzzle(p.rules, result.cells)
    return Canonical(form, result.transformation, result.automorphisms, how)


def equivalent(
    a: PuzzleLike, b: PuzzleLike, box: str | Rules | None = None
) -> Transformation | None:
    """A transformation mapping ``a`` onto ``b``, or None when they are not equivalent.

    Raises:
        TransformationError: the two have different rules, or rules other than classic boxes.
    """
    pa, pb = as_puzzle(a, box), as_puzzle(b, box)
    if pa.rules != pb.rules:
        raise TransformationError(f"a {pa.rules} grid and a {pb.rules} grid are never equivalent")
    ca, cb = canonical(pa), canonical(pb)
    if ca.form != cb.form:
        return None
    return ca.transformation.then(cb.transformation.inverse())


def transform(puzzle: PuzzleLike, transformation: Transformation) -> Puzzle:
    """The image of ``puzzle`` under ``transformation`` (a puzzle of the same rules).

    Raises:
        TransformationError: the puzzle's rules are not classic boxes of that shape.
    """
    p = as_puzzle(puzzle, _box_text(transformation))
    if not p.rules.is_classic or p.rules.box != transformation.box:
        # Band and stack moves keep rows, columns and boxes only: not diagonals, cages,
        # jigsaw regions, nor boxes of another shape.
        raise TransformationError(
            f"a transformation of {_box_text(transformation)} boxes does not apply to a "
            f"{p.rules} grid (rows, columns and {_box_text(transformation)} boxes alone)"
        )
    return Puzzle(p.rules, transformation.apply(p.cells))


def _box_text(t: Transformation) -> str:
    return f"{t.box[0]}x{t.box[1]}"


def canonical_lines(
    items: Sequence[str], box: str | Rules | None = None
) -> list[str | CpSudokuError]:
    """The canonical line of each puzzle text, or the error that it cannot be read.

    The bulk path of ``dedupe`` and ``batch --canon``: one-line 9x9 (and smaller)
    puzzles go to the compiled search in one call, without the GIL; anything else
    is parsed and canonicalised one by one.
    """
    rules = as_rules(box)
    out: list[str | CpSudokuError | None] = [None] * len(items)
    fast = compiled()
    if fast is not None:
        by_side: dict[int, list[int]] = {}
        for i, text in enumerate(items):
            side = _plain_side(text, rules)
            if side:
                by_side.setdefault(side, []).append(i)
        for side, where in by_side.items():
            shape = (rules or Rules.for_size(side)).box
            assert shape is not None
            lines = fast.minlex_lines([items[i] for i in where], *shape)
            for i, line in zip(where, lines, strict=True):
                out[i] = line
    for i, text in enumerate(items):
        if out[i] is None:
            try:
                out[i] = canonical(text, rules).line
            except CpSudokuError as exc:
                out[i] = exc
    return out  # type: ignore[return-value]


def _plain_side(text: str, rules: Rules | None) -> int:
    """The side of a one-line puzzle of up to 9x9 (the fast path's reach), else 0."""
    side = math.isqrt(len(text))
    if side * side != len(text) or not 1 < side <= 9:
        return 0
    if rules is not None and not (rules.is_classic and rules.n == side):
        return 0
    return side


__all__ = [
    "MINLEX_MAX_SIDE",
    "Canonical",
    "Transformation",
    "TransformationError",
    "canonical",
    "canonical_lines",
    "canonical_text",
    "equivalent",
    "minlex_built",
    "transform",
]
