"""Rules against brute force: what every rule family's tests share.

A rule's meaning is checked twice over, apart from each other: its own check of a
complete grid (:meth:`~cpsudoku.model.constraints.Constraint.problem`, what the
verifier runs) and its primitives (what every engine solves). Here the first counts
the grids by brute force, every 4x4 grid (288) or every completion of a 6x6 grid's
blanked cells, and each engine must count as many.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from conftest import GRIDS_4X4

from cpsudoku.engines import create_backend, native_built
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: The engines every rule must run on, with their model and encoding variants.
ENGINES = ("sat", "sat:reduced", "cpsat", "cpsat:integer", "backtrack")
NATIVE = ("native",) if native_built() else ()

#: The most solutions counted: 4x4 grids are 288, a 6x6 sample's completions fewer.
LIMIT = 300


def rules_of(size: int, box: str, constraints: Iterable[dict[str, Any]], **more: Any) -> Rules:
    """Rules from specs (``more``: ``extra`` regions, jigsaw ``regions``...)."""
    spec: dict[str, Any] = {"size": size, "constraints": list(constraints), **more}
    if "regions" not in more:
        spec["box"] = box
    return Rules.from_spec(spec)


def keeps(rules: Rules, grid: Sequence[int]) -> bool:
    """True when the complete ``grid`` keeps every rule, by each rule's own check."""
    n = rules.n
    return all(c.problem(grid, n) is None for c in rules.constraints)


def grids_4x4(rules: Rules) -> list[tuple[int, ...]]:
    """Every 4x4 grid of ``rules`` (boxes 2x2, or its own regions), by brute force."""
    from conftest import LATIN_4X4

    pool = GRIDS_4X4 if rules.box == (2, 2) else LATIN_4X4
    units = [u for u in rules.unit_cells]
    return [
        g for g in pool if all(len({g[i] for i in u}) == len(u) for u in units) and keeps(rules, g)
    ]


def completions(rules: Rules, cells: Sequence[int], limit: int = 10**6) -> list[tuple[int, ...]]:
    """Every completion of the partial grid ``cells`` keeping ``rules`` (units, then rules).

    A plain search over the open cells, values kept apart in every unit, each complete
    grid then checked by the rules' own checks: no propagation, no primitives.
    """
    n = rules.n
    grid = list(cells)
    units_of = rules.units_of
    unit_cells = rules.unit_cells
    open_cells = [i for i, v in enumerate(grid) if not v]
    out: list[tuple[int, ...]] = []

    def go(k: int) -> None:
        if len(out) >= limit:
            return
        if k == len(open_cells):
            if keeps(rules, grid):
                out.append(tuple(grid))
            return
        i = open_cells[k]
        seen = {grid[j] for u in units_of[i] for j in unit_cells[u]}
        for v in range(1, n + 1):
            if v not in seen:
                grid[i] = v
                go(k + 1)
        grid[i] = 0

    go(0)
    return out


def assert_engines_count(
    rules: Rules,
    cells: Sequence[int],
    expected: int,
    engines: Sequence[str] = ENGINES,
) -> None:
    """Every engine (and the compiled one, where it takes the rules) counts ``expected``."""
    puzzle = Puzzle(rules, tuple(cells))
    for spec in (*engines, *NATIVE):
        with create_backend(spec) as engine:
            if spec == "native" and type(engine).refusal(rules):
                continue
            found = engine.count(puzzle, limit=LIMIT, time_limit=120)
            assert not found.timed_out, spec
            assert found.count == min(expected, LIMIT), (spec, rules.spec(), cells)


def check_4x4(rules: Rules, givens: int = 0, seed: int = 0) -> int:
    """Count ``rules`` on 4x4 with ``givens`` clues from one of its grids; every engine agrees.

    Returns the brute-force count (0 when no grid keeps the rules).
    """
    keep = grids_4x4(rules)
    cells = [0] * 16
    if keep and givens:
        for i in random.Random(seed).sample(range(16), givens):
            cells[i] = keep[0][i]
        keep = [g for g in keep if all(not v or g[i] == v for i, v in enumerate(cells))]
    assert_engines_count(rules, cells, len(keep))
    return len(keep)


def check_6x6(rules: Rules, grid: Sequence[int], blanks: int, seed: int = 0) -> int:
    """Blank ``blanks`` cells of the 6x6 ``grid``, count completions by brute force and
    on every engine; returns the count."""
    rng = random.Random(seed)
    cells = list(grid)
    for i in rng.sample(range(36), blanks):
        cells[i] = 0
    expected = len(completions(rules, cells))
    assert_engines_count(rules, cells, expected)
    return expected


def random_grid_6x6(seed: int) -> tuple[int, ...]:
    """A valid 6x6 grid (2x3 boxes): the pattern solution shuffled by symmetries."""
    rng = random.Random(seed)

    def pattern(r: int, c: int) -> int:
        return (3 * (r % 2) + r // 2 + c) % 6

    bands = rng.sample(range(3), 3)
    rows = [b * 2 + r for b in bands for r in rng.sample(range(2), 2)]
    stacks = rng.sample(range(2), 2)
    cols = [s * 3 + c for s in stacks for c in rng.sample(range(3), 3)]
    symbols = rng.sample(range(1, 7), 6)
    return tuple(symbols[pattern(r, c)] for r in rows for c in cols)


def walk(rng: random.Random, n: int, length: int, diagonal: bool = True) -> list[int]:
    """A random line of up to ``length`` cells, each a king's (or rook's) step from the last."""
    steps = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    if diagonal:
        steps += [(1, 1), (-1, -1), (1, -1), (-1, 1)]
    cells = [rng.randrange(n * n)]
    while len(cells) < length:
        r, c = divmod(cells[-1], n)
        options = [
            (r + dr) * n + c + dc
            for dr, dc in steps
            if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr) * n + c + dc not in cells
        ]
        if not options:
            break
        cells.append(rng.choice(options))
    return cells


def neighbours(rng: random.Random, n: int) -> list[int]:
    """Two orthogonally adjacent cells, at random."""
    return walk(rng, n, 2, diagonal=False)


__all__ = [
    "ENGINES",
    "LIMIT",
    "NATIVE",
    "assert_engines_count",
    "check_4x4",
    "check_6x6",
    "completions",
    "grids_4x4",
    "keeps",
    "neighbours",
    "random_grid_6x6",
    "rules_of",
    "walk",
]
