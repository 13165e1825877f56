"""The cost of extra regions, on the same puzzles: each engine on a puzzle read with
and without the diagonals (or windows).

A grid is filled under Sudoku X (or windoku) rules, and clues are removed while the
puzzle stays unique under the *classic* rules. Such a puzzle has the same unique
solution under both rule sets (the extra regions only remove candidates, and the
solution keeps them), so the two timings differ only by what the extra regions cost
or save each engine: the comparison with "comparable classic puzzles" at its
fairest. Every answer is checked against the grid.

    python benchmarks/region_overhead.py -n 100 --family x
"""

from __future__ import annotations

import argparse
import random
import time

from cpsudoku.engines import create_backend
from cpsudoku.generate.grids import random_fill
from cpsudoku.generate.variants import remove_clues
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules, anti_diagonal, diagonal, windows


def puzzles(family: str, count: int, seed: int) -> list[tuple[Puzzle, Puzzle, tuple[int, ...]]]:
    """(classic puzzle, the same givens under the family's rules, the solution)."""
    rng = random.Random(seed)
    classic = Rules.classic(3, 3)
    extra = (diagonal(9), anti_diagonal(9)) if family == "x" else windows(9, 3, 3)
    rules = classic.with_extra(*extra)
    out = []
    with create_backend("sat") as engine:
        while len(out) < count:
            grid = random_fill(rules, rng)
            if grid is None:
                continue
            order = list(range(81))
            rng.shuffle(order)
            cells, _ = remove_clues(classic, tuple(grid), order, engine, 1.0)
            out.append((Puzzle(classic, tuple(cells)), Puzzle(rules, tuple(cells)), tuple(grid)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100)
    parser.add_argument("--family", choices=("x", "windoku"), default="x")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backends", nargs="+", default=["native", "sat", "cpsat", "backtrack"])
    args = parser.parse_args()
    made = puzzles(args.family, args.n, args.seed)
    print(f"{args.n} puzzles unique under classic and {args.family} rules alike")
    print(f"{'engine':10s} {'classic/s':>10s} {args.family + '/s':>10s} {'ratio':>6s}")
    for spec in args.backends:
        with create_backend(spec) as engine:
            rates = []
            for k in (0, 1):
                engine.solve(made[0][k])  # warm-up: the rules' encoding
                start = time.perf_counter()
                for item in made:
                    result = engine.solve(item[k])
                    assert result.status == "unique", (spec, result.status)
                    assert result.solution is not None
                    assert result.solution.cells == item[2]
                rates.append(len(made) / (time.perf_counter() - start))
        print(f"{spec:10s} {rates[0]:10,.0f} {rates[1]:10,.0f} {rates[0] / rates[1]:6.2f}")


if __name__ == "__main__":
    main()
