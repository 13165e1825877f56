"""Variant puzzles with exactly one solution: one family of rules at a time.

Two ways in. Region and whole-grid rules (jigsaw, Sudoku X, windoku, disjoint groups,
anti-knight, anti-king, non-consecutive) change which grids are valid: a grid is
filled under those rules, then clues are removed. Clue rules (killer cages, little
killers, sandwiches, arrows, thermometers, whispers, renban, kropki, XV, even/odd)
are read off a classic grid: cages of different digits with their sums, walks that
rise, and so on; then clues are removed while the puzzle stays unique. Either way the
result is minimal (no clue can go) and its uniqueness is proven by a solver.

These make the variant benchmark sets and the interop tests' puzzles; they are not
tuned to look like a setter's puzzles.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise

from cpsudoku.engines import create_backend
from cpsudoku.engines.base import Backend
from cpsudoku.generate.grids import random_fill, random_grid, random_source
from cpsudoku.generate.puzzles import GeneratedPuzzle, GenerationError
from cpsudoku.model.constraints import (
    AntiKing,
    AntiKnight,
    Arrow,
    Cage,
    Constraint,
    Even,
    KropkiBlack,
    KropkiWhite,
    LittleKiller,
    Negative,
    NonConsecutive,
    Odd,
    Renban,
    Sandwich,
    Thermometer,
    VMark,
    Whisper,
    XMark,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules, anti_diagonal, diagonal, disjoint_groups, windows
from cpsudoku.model.words import count_of

Grid = tuple[int, ...]

#: Families whose rules change the valid grids (filled under them).
GRID_FAMILIES = (
    "classic", "jigsaw", "x", "windoku", "disjoint", "anti-knight", "anti-king", "non-consecutive",
)  # fmt: skip
#: Families whose clues are read off a classic grid.
CLUE_FAMILIES = (
    "killer", "little-killer", "sandwich", "arrow", "thermometer", "whisper", "renban",
    "kropki", "xv", "even-odd",
)  # fmt: skip
FAMILIES = GRID_FAMILIES + CLUE_FAMILIES


def generate_variant(
    family: str,
    box: str = "3x3",
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    backend: str = "sat",
    max_attempts: int = 50,
    check_limit: float | None = 0.25,
) -> GeneratedPuzzle:
    """One minimal puzzle of a variant family with exactly one solution.

    Args:
        family: one of :data:`FAMILIES`.
        box: the box shape of the grid (jigsaw regions are grown from these boxes).
        seed: makes the result reproducible.
        rng: draw from this generator instead.
        backend: the uniqueness checker (an engine that takes the family's rules).
        max_attempts: grids to try before giving up (a jigsaw layout may have no grid).
        check_limit: seconds for one uniqueness check; a clue whose removal is not
            proven harmless in that time stays (so the puzzle is minimal up to checks
            that fit the limit: with few clues left, some rule sets get very hard).
            With a limit, which clues stay depends on the machine's speed and load;
            ``None`` runs every check to its end, so that the puzzle depends on the
            seed alone (``benchmarks/make_variants.py`` makes its sets so).

    Raises:
        ValueError: an unknown family.
        GenerationError: no puzzle in ``max_attempts`` tries.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown variant family {family!r}; choose from: {', '.join(FAMILIES)}")
    random_ = random_source(seed, rng)
    base = Rules.classic(*(int(x) for x in box.lower().split("x")))
    with create_backend(backend) as engine:
        for attempt in range(1, max_attempts + 1):
            made = (
                _grid_family(family, base, random_, engine)
                if family in GRID_FAMILIES
                else _clue_family(family, base, random_)
            )
            if made is None:
                continue
            rules, solution = made
            order = list(range(rules.cells))
            random_.shuffle(order)
            cells, checks = remove_clues(rules, solution, order, engine, check_limit)
            return GeneratedPuzzle(
                Puzzle(rules, tuple(cells)), Puzzle(rules, solution), None, attempt, checks
            )
    raise GenerationError(f"no {family} puzzle in {count_of(max_attempts, 'attempt')}")


def remove_clues(
    rules: Rules, solution: Grid, order: list[int], engine: Backend, time_limit: float | None
) -> tuple[list[int], int]:
    """Empty the cells of ``order`` one by one where the puzzle provably stays unique."""
    cells = list(solution)
    checks = 0
    for i in order:
        cells[i] = 0
        checks += 1
        found = engine.search(Puzzle(rules, tuple(cells)), 2, time_limit)
        if found.timed_out or not found.exhausted or found.count != 1:
            cells[i] = solution[i]
    return cells, checks


# ---------------------------------------------------------------------- grid families


def _grid_family(
    family: str, base: Rules, rng: random.Random, engine: Backend
) -> tuple[Rules, Grid] | None:
    """Rules of a grid family and a random grid under them, or None (try again)."""
    n = base.n
    if family == "classic":  # the same making, for comparisons with the variants
        rules = base
    elif family == "jigsaw":
        rules = Rules.jigsaw(_jigsaw_regions(base, rng))
    elif family == "x":
        rules = base.with_extra(diagonal(n), anti_diagonal(n))
    elif family == "windoku":
        rules = base.with_extra(*windows(n, base.box_rows, base.box_cols))
    elif family == "disjoint":
        rules = base.with_extra(*disjoint_groups(base))
    else:
        rule = {"anti-knight": AntiKnight, "anti-king": AntiKing}.get(family, NonConsecutive)
        rules = base.with_constraints(rule.of(n))
        return _solved_grid(rules, rng, engine)
    cells = random_fill(rules, rng)
    return None if cells is None else (rules, tuple(cells))


def _solved_grid(rules: Rules, rng: random.Random, engine: Backend) -> tuple[Rules, Grid] | None:
    """A grid under rules with constraints: a solver completes a random first row."""
    n = rules.n
    row = rng.sample(range(1, n + 1), n)
    puzzle = Puzzle(rules, tuple(row) + (0,) * (rules.cells - n))
    result = engine.solve(puzzle, unique=False)
    if result.solution is None:
        return None
    return rules, tuple(result.solution.cells)


def _jigsaw_regions(base: Rules, rng: random.Random, swaps: int = 60) -> list[list[int]]:
    """Irregular regions grown from the boxes by swapping neighbouring cells.

    A swap trades a cell of one region for a cell of a neighbouring region when both
    stay connected, so the regions keep ``n`` cells each.
    """
    n = base.n
    owner = [base.box_of(i // n, i % n) for i in range(base.cells)]

    def near(i: int) -> list[int]:
        r, c = divmod(i, n)
        return [
            (r + dr) * n + c + dc
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
            if 0 <= r + dr < n and 0 <= c + dc < n
        ]

    def connected(region: int) -> bool:
        cells = [i for i in range(base.cells) if owner[i] == region]
        seen, todo = {cells[0]}, [cells[0]]
        while todo:
            for j in near(todo.pop()):
                if owner[j] == region and j not in seen:
                    seen.add(j)
                    todo.append(j)
        return len(seen) == len(cells)

    done = 0
    for _ in range(swaps * 50):
        if done == swaps:
            break
        a = rng.randrange(base.cells)
        others = [j for j in near(a) if owner[j] != owner[a]]
        if not others:
            continue
        b = rng.choice(others)
        ra, rb = owner[a], owner[b]
        # a joins rb and some cell c of rb next to ra joins ra.
        options = [c for c in range(base.cells) if owner[c] == rb and c != b]
        rng.shuffle(options)
        for c in options:
            if not any(owner[j] == ra for j in near(c) if j != a):
                continue
            owner[a], owner[c] = rb, ra
            if connected(ra) and connected(rb):
                done += 1
                break
            owner[a], owner[c] = ra, rb
    return [[i for i in range(base.cells) if owner[i] == k] for k in range(n)]


# ---------------------------------------------------------------------- clue families


def _clue_family(family: str, base: Rules, rng: random.Random) -> tuple[Rules, Grid]:
    """Clues of a family read off a random classic grid, and that grid."""
    grid = random_grid(base, rng).cells
    make: Callable[[Grid, int, random.Random], list[Constraint]] = _CLUES[family]
    return base.with_constraints(*make(grid, base.n, rng)), grid


def _near8(i: int, n: int) -> list[int]:
    r, c = divmod(i, n)
    return [
        (r + dr) * n + c + dc
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n
    ]


def _walks(
    grid: Grid,
    n: int,
    rng: random.Random,
    ok: Callable[[list[int]], bool],
    count: int,
    length: tuple[int, int],
) -> list[list[int]]:
    """Up to ``count`` disjoint king-step walks whose values ``ok`` accepts."""
    used: set[int] = set()
    out: list[list[int]] = []
    for _ in range(count * 200):
        if len(out) == count:
            break
        start = rng.randrange(n * n)
        if start in used:
            continue
        walk = [start]
        target = rng.randint(*length)
        while len(walk) < target:
            steps = [
                j
                for j in _near8(walk[-1], n)
                if j not in used and j not in walk and ok([grid[k] for k in [*walk, j]])
            ]
            if not steps:
                break
            walk.append(rng.choice(steps))
        if len(walk) >= length[0] and ok([grid[k] for k in walk]):
            out.append(walk)
            used.update(walk)
    return out


def _killer(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
    """Cages covering the grid: random growth over cells of different digits."""
    free = set(range(n * n))
    out: list[Constraint] = []
    while free:
        cage = [rng.choice(sorted(free))]
        free.discard(cage[0])
        size = rng.randint(2, 5)
        while len(cage) < size:
            steps = [
                j
                for i in cage
                for j in _near8(i, n)
                if j in free
                and abs(j // n - i // n) + abs(j % n - i % n) == 1
                and grid[j] not in [grid[k] for k in cage]
            ]
            if not steps:
                break
            j = rng.choice(steps)
            cage.append(j)
            free.discard(j)
        out.append(Cage(tuple(cage), sum(grid[i] for i in cage)))
    return out


def _little_killer(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
    """Little killers on random diagonals from the top and left edges."""
    out: list[Constraint] = []
    starts = [(0, c, 1, d) for c in range(n) for d in (1, -1)] + [(r, 0, 1, 1) for r in range(1, n)]
    for r, c, dr, dc in rng.sample(starts, min(len(starts), 2 * n)):
        cells = []
        while 0 <= r < n and 0 <= c < n:
            cells.append(r * n + c)
            r, c = r + dr, c + dc
        if len(cells) >= 2:
            out.append(LittleKiller(tuple(cells), sum(grid[i] for i in cells)))
    return out


def _sandwich(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
    """Every row's and column's sandwich sum."""
    out: list[Constraint] = []
    for line in ("row", "column"):
        for k in range(n):
            rule = Sandwich(n, line, k, 0)
            values = [grid[i] for i in rule.cells]
            a, b = sorted((values.index(1), values.index(n)))
            out.append(Sandwich(n, line, k, sum(values[a + 1 : b])))
    return out


def _arrow(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
    """Arrows: a circle and a shaft walk from its neighbour adding up to its value."""
    out: list[Constraint] = []
    used: set[int] = set()
    for _ in range(400):
        if len(out) == 2 * n // 3 + 2:
            break
        circle = rng.randrange(n * n)
        if circle in used or grid[circle] < 3:
            continue
        walk = [circle]
        while sum(grid[k] for k in walk[1:]) < grid[circle]:
            steps = [j for j in _near8(walk[-1], n) if j not in used and j not in walk]
            if not steps:
                break
            walk.append(rng.choice(steps))
        if len(walk) >= 3 and sum(grid[k] for k in walk[1:]) == grid[circle]:
            out.append(Arrow((circle,), tuple(walk[1:])))
            used.update(walk)
    return out


def _lines(kind: str) -> Callable[[Grid, int, random.Random], list[Constraint]]:
    """Lines of one kind along walks whose values keep its rule."""

    def make(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
        gap = (n + 1) // 2
        if kind == "renban":
            return [Renban(tuple(w)) for w in _walks(grid, n, rng, _is_run, n, (3, 5))]

        def ok(v: list[int]) -> bool:
            if kind == "thermometer":
                return all(a < b for a, b in pairwise(v))
            return all(abs(a - b) >= gap for a, b in pairwise(v))

        cls: type = Thermometer if kind == "thermometer" else Whisper
        return [cls(n, tuple(w)) for w in _walks(grid, n, rng, ok, n, (3, 6))]

    return make


def _is_run(values: list[int]) -> bool:
    """Different values forming a run."""
    return len(set(values)) == len(values) and max(values) - min(values) == len(values) - 1


def _dots(kind: str) -> Callable[[Grid, int, random.Random], list[Constraint]]:
    """Every dot or mark of a kind the grid shows, and its negative rule(s)."""

    def make(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
        out: list[Constraint] = []
        pairs = [(a, a + 1) for a in range(n * n) if a % n < n - 1]
        pairs += [(a, a + n) for a in range(n * n - n)]
        for a, b in pairs:
            x, y = grid[a], grid[b]
            if kind == "kropki":
                # 1 and 2 get both dots: each negative rule speaks of its own colour.
                white, black = abs(x - y) == 1, x == 2 * y or y == 2 * x
                if white:
                    out.append(KropkiWhite(n, (a, b)))
                if black:
                    out.append(KropkiBlack(n, (a, b)))
            elif x + y == 10:
                out.append(XMark(n, (a, b)))
            elif x + y == 5:
                out.append(VMark(n, (a, b)))
        marks = ("kropki-white", "kropki-black") if kind == "kropki" else ("x", "v")
        out.extend(Negative(n, tuple(range(n * n)), m) for m in marks)
        return out

    return make


def _even_odd(grid: Grid, n: int, rng: random.Random) -> list[Constraint]:
    """A third of the cells marked even or odd, as the grid has them."""
    cells = rng.sample(range(n * n), n * n // 3)
    even = tuple(i for i in cells if grid[i] % 2 == 0)
    odd = tuple(i for i in cells if grid[i] % 2 == 1)
    return [Even(n, even), Odd(n, odd)]


_CLUES: dict[str, Callable[[Grid, int, random.Random], list[Constraint]]] = {
    "killer": _killer,
    "little-killer": _little_killer,
    "sandwich": _sandwich,
    "arrow": _arrow,
    "thermometer": _lines("thermometer"),
    "whisper": _lines("whisper"),
    "renban": _lines("renban"),
    "kropki": _dots("kropki"),
    "xv": _dots("xv"),
    "even-odd": _even_odd,
}
