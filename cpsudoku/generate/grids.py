"""Complete grids, for any box shape: a randomized backtracking fill, then a random symmetry.

The fill is the classic one: naked singles are placed at once, then the open cell with
the fewest candidates (ties broken at random) gets its candidates in random order; a
fill that takes too many nodes restarts. The filled grid then goes through a uniformly
random validity-preserving symmetry: relabelling of the values, permutations of bands,
of rows within each band, of stacks and of columns within each stack, and a
transposition when the boxes are square. All randomness comes from one
``random.Random``, so a seed reproduces everything.

The randomized fill stalls on big grids (no 30x30 or 36x36 fill finished within its
node cap in measurements). Grids with a side above 25, and any grid whose fill hits
the node cap on 100 restarts in a row (practically never below 25x25), are instead
the pattern grid ``(bc*(r % br) + r//br + c) % n + 1`` put through the same random
symmetry, drawn from the same ``random.Random``. Those fallback grids are valid and
reproducible but far from uniform: they are the images of one grid only.

How uniform is that? Every valid grid can come out, and the final symmetry makes
grids that are images of each other under those operations exactly equally likely.
Across essentially different grids it is *not* proven uniform: a backtracking fill
reaches some grids by more paths than others. (Shuffling one fixed pattern grid, the
cheap alternative, is far worse: it only ever yields the images of that one grid.)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cpsudoku.model.candidates import layout, naked_singles, start
from cpsudoku.model.errors import BoxShapeError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules, as_rules

#: Search nodes of one randomized fill before it restarts (rarely reached below 25x25).
_FILL_NODES = 2_000


#: Largest grid side filled by randomized backtracking; bigger grids stall there
#: (30x30 and 36x36 fills measured 0 successes in 10) and use the pattern grid.
_FILL_MAX_SIDE = 25


#: Randomized fills tried before falling back to the pattern grid. A 25x25 fill
#: succeeds about one time in 3.5 (at most 18 restarts on 100 seeds), 24x24 shapes
#: one in 4, so the fallback is practically never reached up to 25x25; the cap only
#: bounds the time.
_FILL_ATTEMPTS = 100


def grid_shape(box: str | Rules) -> Rules:
    """The box shape to generate for; None is an error (there is no default here)."""
    rules = as_rules(box)
    if rules is None:
        raise BoxShapeError("generating needs a box shape, such as '3x3', not None")
    return rules


def random_source(seed: int | None, rng: random.Random | None) -> random.Random:
    """The one ``random.Random`` a generation draws from: ``rng``, or a new one seeded."""
    if rng is not None and seed is not None:
        raise ValueError("give seed or rng, not both")
    return rng if rng is not None else random.Random(seed)


def _choice(vals: list[int], cand: list[int], rng: random.Random) -> tuple[int, list[int]]:
    """A random open cell among those with the fewest candidates, values shuffled."""
    fewest = len(vals) + 1
    cells: list[int] = []
    for i, m in enumerate(cand):
        if not vals[i]:
            k = m.bit_count()
            if k < fewest:
                fewest, cells = k, [i]
            elif k == fewest:
                cells.append(i)
    cell = rng.choice(cells)
    m = cand[cell]
    values = [d for d in range(1, m.bit_length() + 1) if m >> (d - 1) & 1]
    rng.shuffle(values)
    return cell, values


def random_fill(g: Rules, rng: random.Random) -> list[int] | None:
    """One randomized backtracking fill of the empty grid; None after too many nodes.

    Candidates are kept per cell and updated on each placement; naked singles are
    placed at once; the search branches on a random cell among those with the fewest
    candidates, trying its values in random order.
    """
    lay = layout(g)
    vals, cand, used = start(lay, [0] * g.cells)
    stack = [(vals, cand, used, *_choice(vals, cand, rng))]
    nodes = 0
    while stack:
        vals, cand, used, cell, values = stack[-1]
        if not values:
            stack.pop()
            continue
        nodes += 1
        if nodes > _FILL_NODES:
            return None
        child = vals.copy(), cand.copy(), used.copy()
        if not naked_singles(lay, *child, cell, values.pop()):
            continue
        if 0 not in child[0]:
            return child[0]
        stack.append((*child, *_choice(child[0], child[1], rng)))
    return None


def _shuffle_symmetry(g: Rules, cells: Sequence[int], rng: random.Random) -> list[int]:
    """Apply a uniformly random validity-preserving transformation of the grid."""
    n, br, bc = g.n, g.box_rows, g.box_cols
    bands = rng.sample(range(n // br), n // br)
    rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(n // bc), n // bc)
    cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    labels = [0, *rng.sample(range(1, n + 1), n)]
    out = [labels[cells[r * n + c]] for r in rows for c in cols]
    if br == bc and rng.random() < 0.5:
        out = [out[c * n + r] for r in range(n) for c in range(n)]
    return out


def _pattern(g: Rules) -> list[int]:
    """The pattern grid ``(bc*(r % br) + r//br + c) % n + 1``, valid for any box shape.

    Each row is a cyclic shift; the shifts ``bc*(r % br) + r//br`` of the ``n`` rows are
    all different (so columns are valid), and within a band they step by ``bc``, so each
    box holds ``bc*a + d`` plus a constant for every ``a < br``, ``d < bc``: all values.
    """
    n, br, bc = g.n, g.box_rows, g.box_cols
    return [(bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n)]


def random_grid(g: Rules, rng: random.Random) -> Puzzle:
    """A random complete grid under the rules ``g``, drawn with ``rng``, in bounded time.

    Up to a side of 25, a randomized backtracking fill, restarted when it hits its node
    cap, at most ``_FILL_ATTEMPTS`` times (see the module for how uniform it is). For
    bigger grids, where that fill stalls, and when every restart failed, the pattern
    grid (:func:`_pattern`) under a random validity-preserving symmetry: valid and
    reproducible from ``rng``, but *not* uniformly random (only images of one grid).
    """
    if g.n <= _FILL_MAX_SIDE:
        for _ in range(_FILL_ATTEMPTS):
            cells = random_fill(g, rng)
            if cells is not None:
                return Puzzle(g, tuple(_shuffle_symmetry(g, cells, rng)))
    return Puzzle(g, tuple(_shuffle_symmetry(g, _pattern(g), rng)))


def generate_grid(
    box: str | Rules = "3x3", *, seed: int | None = None, rng: random.Random | None = None
) -> Puzzle:
    """A random complete, valid grid of the given box shape, in bounded time.

    Grids with a side above 25 (and, practically never, a smaller grid whose random
    fill keeps stalling) are a shuffled pattern grid: valid but not uniformly random
    (see :func:`random_grid`).

    Args:
        box: box shape, ``"3x3"`` (9x9), ``"2x3"`` (6x6), ``"4x4"`` (16x16), ...
        seed: makes the result reproducible.
        rng: draw from this generator instead (for a reproducible sequence).

    >>> str(generate_grid("2x2", seed=7)) == str(generate_grid("2x2", seed=7))
    True
    """
    return random_grid(grid_shape(box), random_source(seed, rng))
