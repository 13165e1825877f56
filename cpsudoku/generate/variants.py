"""Variant puzzles with exactly one solution: one family of rules at a time.

Two ways in. Region and whole-grid rules (jigsaw, Sudoku X, windoku, disjoint groups,
anti-knight, anti-king, non-consecutive) change which grids are valid: a grid is
filled under those rules, then clues are removed. Clue rules (killer cages, little
killers, sandwiches, arrows, thermometers, whispers, renban, kropki, XV, even/odd)
are read off a classic grid: cages of different digits with their sums, walks that
rise, and so on; then clues are removed while the puzzle stays unique. Either way the
result is minimal (no clue can go) and its uniqueness is proven by a solver.

The rules read from setters' tools have families of their own
(:data:`VOCABULARY_FAMILIES`): grid-wide rules (chess, taxicab, global entropy, Dutch
flatmates, clones, indexers...) are filled the same way, a solver completing a random
first row; clue rules (sum dots, slow thermometers, between and zipper lines, rellik
cages, X-sums, skyscrapers...) are read off a classic grid, each clue written as its
JSON spec and kept only when the rule's own check passes on the grid. Some families
are checked with CP-SAT (:data:`DEFAULT_ENGINE`), skyscrapers on 6x6
(:data:`DEFAULT_BOX`): on 9x9, with few givens left, a uniqueness check of theirs
takes longer than the generator's limit on either engine, so most givens stayed.

These make the variant benchmark sets and the interop tests' puzzles; they are not
tuned to look like a setter's puzzles.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from cpsudoku.engines import create_backend
from cpsudoku.engines.base import Backend
from cpsudoku.generate.grids import random_fill, random_grid, random_source
from cpsudoku.generate.puzzles import GeneratedPuzzle, GenerationError
from cpsudoku.model.constraints import (
    SYMBOLS,
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
    constraint_from_spec,
)
from cpsudoku.model.errors import RulesError
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
#: Families of the rules read from setters' tools (the rule vocabulary): grid-wide
#: rules (filled under them), then clues read off a classic grid.
VOCABULARY_GRID_FAMILIES = (
    "chess", "taxicab", "self-taxicab", "diagonal-non-consecutive", "knightmare",
    "global-entropy", "global-modular", "dutch-flatmates", "clone", "indexer",
)  # fmt: skip
VOCABULARY_CLUE_FAMILIES = (
    "sum-dot", "min-max", "slow-thermometer", "nabner", "entropic", "modular", "between",
    "lockout", "regex", "zipper", "double-arrow", "region-sum", "multi-sum", "digital-root",
    "rellik", "equality", "and-or", "quadruple", "counting-circles", "x-sum", "skyscraper",
    "hidden-skyscraper", "numbered-room", "lunchbox",
)  # fmt: skip
#: Grid-wide families added after the others (last, so the others keep their seeds).
VOCABULARY_LATER_FAMILIES = ("doppelganger",)
VOCABULARY_FAMILIES = (
    VOCABULARY_GRID_FAMILIES + VOCABULARY_CLUE_FAMILIES + VOCABULARY_LATER_FAMILIES
)
#: Every family, in a fixed order (the dataset maker seeds each by its place here).
ALL_FAMILIES = FAMILIES + VOCABULARY_FAMILIES
#: The box shape a family is made on when none is asked for: 9x9 unless a minimal
#: 9x9 puzzle takes too long to make (then 6x6).
#: A doppelganger's box is its own grid's (N x N, written on the grid one larger): 6x6,
#: where the written 10x10 of a 9x9 takes CP-SAT seconds a check.
DEFAULT_BOX: dict[str, str] = {"skyscraper": "2x3", "doppelganger": "2x3"}
#: The uniqueness checker a family is made with when none is asked for (else ``sat``):
#: ``cpsat`` where ``sat`` encodes the family's rules anew for every puzzle, in Python
#: (regular-language and count rules: a few hundred milliseconds a check on 9x9, past
#: the generator's limit, where CP-SAT's own automaton and counts answer in tens).
DEFAULT_ENGINE: dict[str, str] = {
    family: "cpsat"
    for family in (
        "global-entropy", "global-modular", "lockout", "quadruple", "counting-circles",
        "x-sum", "hidden-skyscraper", "numbered-room", "lunchbox", "doppelganger",
    )
}  # fmt: skip


def generate_variant(
    family: str,
    box: str | None = None,
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    backend: str | None = None,
    max_attempts: int = 50,
    check_limit: float | None = 0.25,
) -> GeneratedPuzzle:
    """One minimal puzzle of a variant family with exactly one solution.

    Args:
        family: one of :data:`ALL_FAMILIES`.
        box: the box shape of the grid (jigsaw regions are grown from these boxes);
            by default the family's own (:data:`DEFAULT_BOX`, else 3x3).
        seed: makes the result reproducible.
        rng: draw from this generator instead.
        backend: the uniqueness checker (an engine that takes the family's rules); by
            default the family's own (:data:`DEFAULT_ENGINE`, else ``sat``).
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
    if family not in ALL_FAMILIES:
        known = ", ".join(ALL_FAMILIES)
        raise ValueError(f"unknown variant family {family!r}; choose from: {known}")
    random_ = random_source(seed, rng)
    box = box or DEFAULT_BOX.get(family, "3x3")
    backend = backend or DEFAULT_ENGINE.get(family, "sat")
    base = Rules.classic(*(int(x) for x in box.lower().split("x")))
    if family == "doppelganger":  # written on the grid one larger, with no boxes of its own
        base = Rules.classic(1, base.n + 1)
    with create_backend(backend) as engine:
        for attempt in range(1, max_attempts + 1):
            if family in _GRID_RULES:
                specs = _GRID_RULES[family](base, random_)
                if family == "doppelganger":
                    specs = [{**specs[0], "box": box}]
                rules = base.with_constraints(*(_rule(spec, base) for spec in specs))
                made = _solved_grid(rules, random_, engine) or _two_givens_grid(
                    rules, random_, engine
                )
            elif family in _VOCABULARY_CLUES:
                grid = random_grid(base, random_).cells
                specs = _VOCABULARY_CLUES[family](grid, base, random_)
                made = (base.with_constraints(*(_rule(s, base) for s in specs)), grid)
            elif family in GRID_FAMILIES:
                made = _grid_family(family, base, random_, engine)
            else:
                made = _clue_family(family, base, random_)
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


def _two_givens_grid(
    rules: Rules, rng: random.Random, engine: Backend
) -> tuple[Rules, Grid] | None:
    """A grid under rules a random first row breaks (indexers): two cells of it given."""
    n = rules.n
    row = rng.sample(range(1, n + 1), n)
    keep = set(rng.sample(range(n), 2))
    cells = tuple(row[i] if i in keep else 0 for i in range(n)) + (0,) * (rules.cells - n)
    result = engine.solve(Puzzle(rules, cells), unique=False)
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


# ---------------------------------------------------------------- vocabulary families
#
# The rules read from setters' tools (f-puzzles keys, SudokuPad, the variant solvers'
# own rules), a few families each. They are written as JSON specs and read back
# through the rules' own parser, and every clue is checked against the grid by the
# rule's own check (:meth:`Constraint.problem`), so a family cannot make a clue the
# rule's statement would refuse.

Spec = dict[str, Any]


def _rule(spec: Spec, base: Rules) -> Constraint:
    """The constraint of ``spec`` on ``base``'s grid, as it reads among its rules."""
    return constraint_from_spec(spec, base.n).bind(base)


def _holds(spec: Spec, grid: Grid, base: Rules) -> bool:
    """True when ``spec`` is a valid rule that ``grid`` keeps."""
    try:
        return _rule(spec, base).problem(grid, base.n) is None
    except RulesError:
        return False


def _fit(
    spec: Spec, key: str, values: range, grid: Grid, base: Rules, rng: random.Random
) -> Spec | None:
    """``spec`` with a random one of ``values`` for ``key`` that the grid keeps, or None."""
    kept = [v for v in values if _holds({**spec, key: v}, grid, base)]
    return {**spec, key: rng.choice(kept)} if kept else None


def _line_walks(
    grid: Grid,
    base: Rules,
    rng: random.Random,
    spec: Spec,
    count: int,
    length: tuple[int, int],
    *,
    prefix: bool,
) -> list[Spec]:
    """Up to ``count`` disjoint lines of ``spec``'s kind along walks the grid keeps.

    ``prefix`` says the rule holds on every start of a line it holds on (a slow
    thermometer, a nabner line): the walk then grows only where it still holds; other
    rules (between lines, zippers) are tried on whole random walks.
    """
    n = base.n
    used: set[int] = set()
    out: list[Spec] = []
    for _ in range(count * 400):
        if len(out) == count:
            break
        start = rng.randrange(n * n)
        if start in used:
            continue
        walk = [start]
        target = rng.randint(*length)
        while len(walk) < target:
            options = [j for j in _near8(walk[-1], n) if j not in used and j not in walk]
            if prefix:
                options = [j for j in options if _holds({**spec, "cells": [*walk, j]}, grid, base)]
            if not options:
                break
            walk.append(rng.choice(options))
        line = {**spec, "cells": walk}
        if len(walk) >= length[0] and _holds(line, grid, base):
            out.append(line)
            used.update(walk)
    return out


def _near4(i: int, n: int) -> list[int]:
    """The orthogonal neighbours of cell ``i``."""
    return [j for j in _near8(i, n) if abs(j // n - i // n) + abs(j % n - i % n) == 1]


def _lines_family(
    kind: str, count: int, length: tuple[int, int], *, prefix: bool, **extra: Any
) -> Callable[[Grid, Rules, random.Random], list[Spec]]:
    """Lines of one kind along walks that keep it."""

    def make(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
        spec = {"kind": kind, **extra}
        return _line_walks(grid, base, rng, spec, count, length, prefix=prefix)

    return make


def _regex(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Lines matching patterns setters write: alternating parity, low then high."""
    n = base.n
    odd = "[" + "".join(SYMBOLS[d - 1] for d in range(1, n + 1, 2)) + "]"
    even = "[" + "".join(SYMBOLS[d - 1] for d in range(2, n + 1, 2)) + "]"
    low = f"[1-{SYMBOLS[n // 2 - 1]}]"
    high = f"[{SYMBOLS[(n + 1) // 2]}-{SYMBOLS[n - 1]}]"
    patterns = [
        f"{odd}?({even}{odd})*{even}?",  # parity alternates
        f"{low}+{high}+",  # low digits, then high ones
        f"({low}{high})+{low}?|({high}{low})+{high}?",  # low and high alternate
    ]
    out: list[Spec] = []
    for pattern in patterns:
        spec = {"kind": "regex-line", "pattern": pattern}
        out += _line_walks(grid, base, rng, spec, n // 3 + 1, (3, 6), prefix=True)
    return out


def _pairs(n: int) -> list[tuple[int, int]]:
    """The orthogonally adjacent pairs of cells."""
    return [(a, a + 1) for a in range(n * n) if a % n < n - 1] + [
        (a, a + n) for a in range(n * n - n)
    ]


def _sum_dot(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Dots with the sum of their two cells on a quarter of the neighbouring pairs."""
    pairs = _pairs(base.n)
    return [
        {"kind": "sum-dot", "cells": [a, b], "value": grid[a] + grid[b]}
        for a, b in rng.sample(pairs, len(pairs) // 4)
    ]


def _min_max(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Every cell lower (higher) than all its orthogonal neighbours, as one rule each way."""
    n = base.n
    low = [i for i in range(n * n) if all(grid[i] < grid[j] for j in _near4(i, n))]
    high = [i for i in range(n * n) if all(grid[i] > grid[j] for j in _near4(i, n))]
    out: list[Spec] = []
    if low:
        out.append({"kind": "minimum", "cells": low})
    if high:
        out.append({"kind": "maximum", "cells": high})
    return out


def _grow_cage(
    grid: Grid, n: int, rng: random.Random, free: set[int], size: int, *, repeat: bool = False
) -> list[int]:
    """A cage grown orthogonally over free cells (different digits unless ``repeat``)."""
    cage = [rng.choice(sorted(free))]
    free.discard(cage[0])
    while len(cage) < size:
        steps = [
            j
            for i in cage
            for j in _near4(i, n)
            if j in free and (repeat or grid[j] not in [grid[k] for k in cage])
        ]
        if not steps:
            break
        j = rng.choice(steps)
        cage.append(j)
        free.discard(j)
    return cage


def _cages(
    make: Callable[[list[int], Grid, Rules, random.Random], Spec | None], cover: float
) -> Callable[[Grid, Rules, random.Random], list[Spec]]:
    """Cages over about ``cover`` of the grid; ``make`` writes one's rule or skips it."""

    def family(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
        n = base.n
        free = set(range(n * n))
        out: list[Spec] = []
        for _ in range(20 * n * n):
            if len(free) <= n * n * (1 - cover):
                break
            cage = _grow_cage(grid, n, rng, free, rng.randint(2, 4))
            spec = make(cage, grid, base, rng) if len(cage) >= 2 else None
            if spec is not None and _holds(spec, grid, base):
                out.append(spec)
            else:  # its cells may make another cage
                free.update(cage)
        return out

    return family


def _multi_sum(cage: list[int], grid: Grid, base: Rules, rng: random.Random) -> Spec | None:
    """The cage's sum and one other it could have."""
    total = sum(grid[i] for i in cage)
    k, n = len(cage), base.n
    other = [s for s in range(k * (k + 1) // 2, k * (2 * n - k + 1) // 2 + 1) if s != total]
    if not other:  # a cage of every digit has one sum
        return None
    return {"kind": "cage", "cells": cage, "sums": sorted([total, rng.choice(other)])}


def _digital_root(cage: list[int], grid: Grid, base: Rules, rng: random.Random) -> Spec | None:
    return {
        "kind": "digital-root-cage",
        "cells": cage,
        "root": (sum(grid[i] for i in cage) - 1) % 9 + 1,
    }


def _rellik(cage: list[int], grid: Grid, base: Rules, rng: random.Random) -> Spec | None:
    return _fit(
        {"kind": "rellik-cage", "cells": cage}, "value", range(1, 3 * base.n), grid, base, rng
    )


def _equality(cage: list[int], grid: Grid, base: Rules, rng: random.Random) -> Spec | None:
    return {"kind": "equality-cage", "cells": cage}


def _or(cage: list[int], grid: Grid, base: Rules, rng: random.Random) -> Spec | None:
    """``and``: the cage's sum and its first cell's parity; ``or``: a wrong sum or that parity."""
    total = sum(grid[i] for i in cage)
    parity = {"kind": "even" if grid[cage[0]] % 2 == 0 else "odd", "cells": [cage[0]]}
    if rng.random() < 0.5:
        return {"kind": "and", "rules": [{"kind": "cage", "cells": cage, "sum": total}, parity]}
    wrong = {"kind": "cage", "cells": cage, "sum": total + 1}
    if not _valid(wrong, base):
        wrong["sum"] = total - 1
    return {"kind": "or", "rules": rng.sample([wrong, parity], 2)}


def _valid(spec: Spec, base: Rules) -> bool:
    try:
        _rule(spec, base)
    except RulesError:
        return False
    return True


def _quadruple(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Circles on a third of the 2x2 corners, listing 2 to 4 of the digits around them."""
    n = base.n
    corners = [(r, c) for r in range(n - 1) for c in range(n - 1)]
    out: list[Spec] = []
    for r, c in rng.sample(corners, len(corners) // 3):
        cells = [r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1]
        values = [grid[i] for i in cells]
        shown = sorted(rng.sample(values, rng.randint(2, 4)))
        out.append({"kind": "quadruple", "cells": cells, "values": shown})
    return out


def _counting_circles(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Circles on d cells of digit d, for a few digits d (every other cell of d left out)."""
    n = base.n
    out: list[int] = []
    for d in rng.sample(range(1, n + 1), n // 2):
        if len(out) + d <= 2 * n:
            out += rng.sample([i for i in range(n * n) if grid[i] == d], d)
    return [{"kind": "counting-circles", "cells": sorted(out)}]


def _outside(
    kind: str, key: str, values: Callable[[int], range], share: float
) -> Callable[[Grid, Rules, random.Random], list[Spec]]:
    """Clues of one outside kind on ``share`` of the 4n places round the grid."""

    def make(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
        n = base.n
        places = [
            {"kind": kind, line: k, "reverse": reverse}
            for line in ("row", "column")
            for k in range(1, n + 1)
            for reverse in (False, True)
        ]
        out: list[Spec] = []
        for place in rng.sample(places, round(len(places) * share)):
            spec = _fit(place, key, values(n), grid, base, rng)
            if spec is not None:
                out.append(spec)
        return out

    return make


def _lunchbox(grid: Grid, base: Rules, rng: random.Random) -> list[Spec]:
    """Every row's and column's lunchbox sum."""
    n = base.n
    out: list[Spec] = []
    for k in range(n):
        for cells in ([k * n + c for c in range(n)], [r * n + k for r in range(n)]):
            spec = _fit(
                {"kind": "lunchbox", "cells": cells}, "sum", range(0, n * n), grid, base, rng
            )
            if spec is not None:
                out.append(spec)
    return out


# Grid families: rules that change which grids are valid, grids solved under them.


def _clones(base: Rules, rng: random.Random) -> list[Spec]:
    """Two or three pairs of same-shaped areas (2 to 4 cells) that clone each other."""
    n = base.n
    out: list[Spec] = []
    used: set[int] = set()
    for _ in range(200):
        if len(out) == 3:
            break
        shape = [(0, 0)]
        while len(shape) < rng.randint(2, 4):
            r, c = rng.choice(shape)
            dr, dc = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
            if (r + dr, c + dc) not in shape:
                shape.append((r + dr, c + dc))
        r0, c0, r1, c1 = (rng.randrange(n) for _ in range(4))
        a = [(r0 + r, c0 + c) for r, c in shape]
        b = [(r1 + r, c1 + c) for r, c in shape]
        if not all(0 <= r < n and 0 <= c < n for r, c in a + b):
            continue
        cells, clones = [r * n + c for r, c in a], [r * n + c for r, c in b]
        if used & {*cells, *clones} or set(cells) & set(clones):
            continue
        if any(j in base.peers[i] for i, j in zip(cells, clones, strict=True)):
            continue  # a cell and its clone in one unit could never be equal
        out.append({"kind": "clone", "cells": cells, "clones": clones})
        used |= {*cells, *clones}
    return out


def _indexers(base: Rules, rng: random.Random) -> list[Spec]:
    """The 1-5-9 rule (columns 1, 5, 9 index their rows), or its row or box form."""
    n = base.n
    marks = [0, n // 2, n - 1]
    which = rng.choice(("column", "row", "box"))
    if which == "column":
        return [{"kind": "column-indexer", "cells": [r * n + c for r in range(n) for c in marks]}]
    if which == "row":
        return [{"kind": "row-indexer", "cells": [r * n + c for r in marks for c in range(n)]}]
    center = [
        (br * base.box_rows + base.box_rows // 2) * n + bc * base.box_cols + base.box_cols // 2
        for br in range(n // base.box_rows)
        for bc in range(n // base.box_cols)
    ]
    return [{"kind": "box-indexer", "cells": center}]


_GRID_RULES: dict[str, Callable[[Rules, random.Random], list[Spec]]] = {
    "chess": lambda base, rng: [{"kind": "chess", "offsets": [[1, 3]]}],
    "taxicab": lambda base, rng: [{"kind": "taxicab", "distance": base.n // 2}],
    "self-taxicab": lambda base, rng: [{"kind": "self-taxicab"}],
    "diagonal-non-consecutive": lambda base, rng: [{"kind": "diagonal-non-consecutive"}],
    "knightmare": lambda base, rng: [
        {"kind": "knightmare", "sums": [s for s in (5, 15) if s < 2 * base.n]}
    ],
    "global-entropy": lambda base, rng: [{"kind": "global-entropy"}],
    "global-modular": lambda base, rng: [{"kind": "global-modular"}],
    "dutch-flatmates": lambda base, rng: [{"kind": "dutch-flatmates"}],
    "doppelganger": lambda base, rng: [{"kind": "doppelganger"}],
    "clone": _clones,
    "indexer": _indexers,
}

_VOCABULARY_CLUES: dict[str, Callable[[Grid, Rules, random.Random], list[Spec]]] = {
    "sum-dot": _sum_dot,
    "min-max": _min_max,
    "slow-thermometer": _lines_family("slow-thermometer", 9, (3, 6), prefix=True),
    "nabner": _lines_family("nabner", 9, (3, 4), prefix=True),
    "entropic": _lines_family("entropic-line", 9, (3, 6), prefix=True),
    "modular": _lines_family("modular-line", 9, (3, 6), prefix=True),
    "between": _lines_family("between-line", 8, (3, 5), prefix=False),
    "lockout": _lines_family("lockout-line", 6, (3, 5), prefix=False),
    "regex": _regex,
    "zipper": _lines_family("zipper-line", 6, (3, 7), prefix=False),
    "double-arrow": _lines_family("double-arrow", 6, (3, 5), prefix=False),
    "region-sum": _lines_family("region-sum-line", 5, (4, 7), prefix=False),
    "multi-sum": _cages(_multi_sum, 0.6),
    "digital-root": _cages(_digital_root, 0.6),
    "rellik": _cages(_rellik, 0.6),
    "equality": _cages(_equality, 0.6),
    "and-or": _cages(_or, 0.6),
    "quadruple": _quadruple,
    "counting-circles": _counting_circles,
    "x-sum": _outside("x-sum", "sum", lambda n: range(1, n * (n + 1) // 2 + 1), 0.5),
    "skyscraper": _outside("skyscraper", "count", lambda n: range(1, n + 1), 0.5),
    "hidden-skyscraper": _outside("hidden-skyscraper", "digit", lambda n: range(1, n + 1), 0.5),
    "numbered-room": _outside("numbered-room", "digit", lambda n: range(1, n + 1), 0.5),
    "lunchbox": _lunchbox,
}
