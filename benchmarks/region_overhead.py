"""The cost of other regions, on the same puzzles: each engine on a classic puzzle and
on its twin under the family's rules.

Sudoku X and windoku: a grid is filled under the family's rules, and clues are
removed while the puzzle stays unique under the *classic* rules. Such a puzzle has
the same unique solution under both rule sets (the extra regions only remove
candidates, and the solution keeps them).

Jigsaw: a classic puzzle (minimal, unique) has its rows and its columns shuffled, each
by a random permutation of all n (not only within bands): rows stay rows, columns stay
columns, and the boxes become n irregular regions, a layout of its own for every
puzzle, as in a jigsaw dataset. The twin is the classic puzzle with its cells renamed,
so it needs the same reasoning; what differs is what a new layout per puzzle costs
each engine.

Either way the two timings differ only by what the family's regions cost or save each
engine: the comparison with "comparable classic puzzles" at its fairest. Every answer
is checked against its grid.

Jigsaw twins of a dataset's puzzles (its first ``-n`` unique ones) instead of
generated ones: ``--source``.

    python benchmarks/region_overhead.py -n 100 --family x
    python benchmarks/region_overhead.py -n 100 --family jigsaw
    python benchmarks/region_overhead.py -n 300 --family jigsaw \
        --source benchmarks/data/forum_hardest_1106.txt
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time

from cpsudoku.datasets.records import read_records
from cpsudoku.engines import create_backend
from cpsudoku.generate.grids import random_fill
from cpsudoku.generate.variants import remove_clues
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules, anti_diagonal, diagonal, windows

Case = tuple[Puzzle, tuple[int, ...]]  # a puzzle and its solution


def puzzles(
    family: str, count: int, seed: int, source: str | None = None
) -> list[tuple[Case, Case]]:
    """(the classic puzzle, its twin under the family's rules), each with its solution."""
    rng = random.Random(seed)
    classic = Rules.classic(3, 3)
    if family == "jigsaw":
        cases = minimal(classic, count, rng) if source is None else read(source, count)
        return [(case, jigsaw_twin(*case, rng)) for case in cases]
    extra = (diagonal(9), anti_diagonal(9)) if family == "x" else windows(9, 3, 3)
    rules = classic.with_extra(*extra)
    return [(case, (Puzzle(rules, case[0].cells), case[1])) for case in minimal(rules, count, rng)]


def minimal(fill: Rules, count: int, rng: random.Random) -> list[Case]:
    """Classic puzzles, minimal and unique, of grids filled under the rules ``fill``."""
    classic = Rules.classic(3, 3)
    out = []
    with create_backend("sat") as engine:
        while len(out) < count:
            grid = random_fill(fill, rng)
            if grid is None:
                continue
            order = list(range(81))
            rng.shuffle(order)
            cells, _ = remove_clues(classic, tuple(grid), order, engine, 1.0)
            out.append((Puzzle(classic, tuple(cells)), tuple(grid)))
    return out


def read(path: str, count: int) -> list[Case]:
    """The first ``count`` classic 9x9 puzzles of a dataset file that are unique."""
    out = []
    with create_backend("sat") as engine:
        for record in read_records(path):
            if len(out) == count:
                break
            try:
                puzzle = parse(record.puzzle)
            except PuzzleError:  # an unreadable record is no puzzle to twin
                continue
            if puzzle.rules != Rules.classic(3, 3):
                continue
            result = engine.solve(puzzle)
            if result.status == "unique" and result.solution is not None:
                out.append((puzzle, result.solution.cells))
    return out


def jigsaw_twin(
    puzzle: Puzzle, solution: tuple[int, ...], rng: random.Random
) -> tuple[Puzzle, tuple[int, ...]]:
    """The puzzle with rows and columns shuffled, its boxes become jigsaw regions."""
    n = puzzle.n
    rows, cols = list(range(n)), list(range(n))
    rng.shuffle(rows)
    rng.shuffle(cols)

    def moved(i: int) -> int:
        return rows[i // n] * n + cols[i % n]

    regions = [sorted(moved(i) for i in unit.cells) for unit in puzzle.rules.units[2 * n :]]
    rules = Rules.jigsaw(regions)
    cells, grid = [0] * (n * n), [0] * (n * n)
    for i in range(n * n):
        cells[moved(i)], grid[moved(i)] = puzzle.cells[i], solution[i]
    return Puzzle(rules, tuple(cells)), tuple(grid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100)
    parser.add_argument("--family", choices=("x", "windoku", "jigsaw"), default="x")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", help="jigsaw twins of this dataset's classic puzzles")
    parser.add_argument("--backends", nargs="+", default=["native", "sat", "cpsat", "backtrack"])
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.one:
        print(f"{args.n} puzzles unique under classic and {args.family} rules alike")
        print(f"{'engine':10s} {'classic/s':>10s} {args.family + '/s':>10s} {'ratio':>6s}")
        # Each engine in a process of its own: the rules objects of the puzzles keep
        # what an engine works out of them (units, peers), which a later engine in the
        # same process would find done.
        for spec in args.backends:
            run = [sys.executable, __file__, "--one", "-n", str(args.n), "--backends", spec]
            run += ["--family", args.family, "--seed", str(args.seed)]
            subprocess.run([*run, *(["--source", args.source] if args.source else [])], check=True)
        return
    if args.source and args.family != "jigsaw":
        parser.error("--source makes jigsaw twins only")
    made = puzzles(args.family, args.n, args.seed, args.source)
    (spec,) = args.backends
    with create_backend(spec) as engine:
        rates = []
        for k in (0, 1):
            engine.solve(made[0][k][0])  # warm-up: the rules' encoding
            start = time.perf_counter()
            for item in made:
                puzzle, solution = item[k]
                result = engine.solve(puzzle)
                assert result.status == "unique", (spec, result.status)
                assert result.solution is not None
                assert result.solution.cells == solution
            rates.append(len(made) / (time.perf_counter() - start))
    print(f"{spec:10s} {rates[0]:10,.0f} {rates[1]:10,.0f} {rates[0] / rates[1]:6.2f}", flush=True)


if __name__ == "__main__":
    main()
