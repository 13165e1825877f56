"""An exact canonical form for large grids, by graph canonical labelling (pynauty).

Minlex is affordable up to 12x12; a 16x16 or 25x25 grid has too many transformations
with equal prefixes. There the grid becomes a coloured graph whose automorphisms are
exactly its symmetries: a vertex per cell, row, column, band, stack and digit present; a
cell joins its row, its column and its digit; a row joins its band, a column its
stack. Rows and columns (bands and stacks) share a colour only when the boxes are
square, so transposition is a symmetry only then. nauty's canonical labelling orders
the vertices the same way for every isomorphic graph; reading bands, rows, stacks,
columns and digits in that order gives a transformation, and its image of the grid is
the canonical form. It is a canonical *key*: equal for equivalent grids, different
otherwise, but not the lexicographically smallest string.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from cpsudoku.canon.transform import Transformation
from cpsudoku.model.errors import BackendUnavailableError


def _pynauty() -> Any:
    try:
        import pynauty  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:  # pragma: no cover - a dependency
        raise BackendUnavailableError(
            "canonical forms of grids larger than 12x12 need pynauty: pip install pynauty"
        ) from exc
    return pynauty


def graph_canonical(
    cells: Sequence[int], box_rows: int, box_cols: int
) -> tuple[tuple[int, ...], Transformation, int]:
    """The graph canonical form of a grid: (cells, transformation to it, automorphisms).

    Automorphisms count the transformations mapping the grid onto itself up to a
    relabelling (as minlex counts them), from nauty's group order: exact up to 15
    significant digits (an empty 16x16 grid's 126,806,761,930,752 is), rounded above.
    """
    pynauty = _pynauty()
    n = box_rows * box_cols
    nbands, nstacks = n // box_rows, n // box_cols
    row0 = n * n
    col0 = row0 + n
    band0 = col0 + n
    stack0 = band0 + nbands
    digit0 = stack0 + nstacks
    # A vertex per digit present only: absent digits would add their permutations to
    # the group (and blur its order) without telling any two grids apart.
    present = sorted({v for v in cells if v})
    vertex = {d: digit0 + k for k, d in enumerate(present)}
    size = digit0 + len(present)
    adjacency: dict[int, list[int]] = {}
    for k, v in enumerate(cells):
        r, c = divmod(k, n)
        adjacency[k] = [row0 + r, col0 + c] + ([vertex[v]] if v else [])
    for r in range(n):
        adjacency[row0 + r] = [band0 + r // box_rows]
    for c in range(n):
        adjacency[col0 + c] = [stack0 + c // box_cols]
    rows, cols = set(range(row0, col0)), set(range(col0, band0))
    bands, stacks = set(range(band0, stack0)), set(range(stack0, digit0))
    coloring = [set(range(row0))]
    if box_rows == box_cols:
        coloring += [rows | cols, bands | stacks]
    else:
        coloring += [rows, cols, bands, stacks]
    coloring.append(set(range(digit0, size)))
    graph = pynauty.Graph(size, directed=False, adjacency_dict=adjacency, vertex_coloring=coloring)
    order = pynauty.canon_label(graph)
    pos = [0] * size
    for p, v in enumerate(order):
        pos[v] = p
    # For square boxes, the side holding the first line in canonical order is the rows.
    transpose = box_rows == box_cols and min(pos[v] for v in cols) < min(pos[v] for v in rows)
    if transpose:
        # The rows of the transposed grid are the columns: bands are the stacks.
        line_rows = _lines(pos, col0, stack0, n, box_cols)
        line_cols = _lines(pos, row0, band0, n, box_rows)
    else:
        line_rows = _lines(pos, row0, band0, n, box_rows)
        line_cols = _lines(pos, col0, stack0, n, box_cols)
    # Present digits in canonical order, then the absent ones in increasing order.
    by_rank = sorted(present, key=lambda d: pos[vertex[d]])
    by_rank += [d for d in range(1, n + 1) if d not in vertex]
    digits = [0] * n
    for new, d in enumerate(by_rank, 1):
        digits[d - 1] = new
    t = Transformation((box_rows, box_cols), transpose, line_rows, line_cols, tuple(digits))
    _, size1, size2, _, _ = pynauty.autgrp(graph)
    # nauty gives the order as size1 * 10**size2 with size1 a double: its shortest
    # decimal form, shifted, is exact while the order has at most 15 significant digits.
    group = round(Decimal(repr(size1)).scaleb(size2))
    return t.apply(cells), t, int(group)


def _lines(pos: list[int], line0: int, block0: int, n: int, size: int) -> tuple[int, ...]:
    """Lines in the canonical order: blocks (bands or stacks) by position, then lines."""
    blocks = sorted(range(n // size), key=lambda b: pos[block0 + b])
    return tuple(
        line
        for b in blocks
        for line in sorted(range(b * size, b * size + size), key=lambda x: pos[line0 + x])
    )
