"""Canonicalisation speed: the bulk path on 9x9 sets, single calls, and each grid size.

Five tables, one core:

1. bulk: puzzles per second of :func:`cpsudoku.canon.canonical_lines` (the path of
   ``dedupe`` and ``batch --canon``: one compiled call per chunk) over each set;
2. single: the median and 90th-percentile time of one ``cpsudoku.canonical(text)``
   call (parsing included) on the first puzzles of each set;
3. sizes: the same single call per box shape, 4x4 to 25x25. 9x9 takes puzzles of
   easy_kaggle1m, 16x16 and 25x25 the bundled sets; the other shapes have no bundled
   set, so their puzzles are generated grids with 45% of the cells kept (seeded);
4. solution grids: the same call on generated full grids of each shape, the harder
   case for minlex (every column order ties on a full first row);
5. regular puzzles: whole rows, bands, boxes of a grid and nothing else, the minlex
   search's worst cases (their automorphisms run into the hundreds of millions): the
   slower of a regular grid and a generated one, best of three calls each.

    python benchmarks/canon_speed.py
    python benchmarks/canon_speed.py --data DIR     # the whole published files
    python benchmarks/canon_speed.py --only regular # table 5 alone

``--data`` points at a folder holding the whole published files (see
benchmarks/data/README.md); nothing else running.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from cpsudoku import canonical
from cpsudoku.canon import canonical_lines, minlex_built
from cpsudoku.generate import generate_grid
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

HERE = Path(__file__).parent / "data"
SETS = ["clue17_royle", "easy_kaggle1m", "top1465", "forum_hardest_1106"]
#: Every box shape, tall ones too: the search starts from the rows, so 4x3 boxes (4-row
#: bands) cost more than 3x4 ones on the same grid.
SHAPES = ["2x2", "2x3", "3x2", "2x4", "4x2", "3x3", "3x4", "4x3", "4x4", "5x5"]
#: The minlex shapes of the regular puzzles' table.
REGULAR_SHAPES = ["2x3", "2x4", "4x2", "3x3", "3x4", "4x3"]
#: Regular puzzles: which cells of a grid they keep, keep(row, col, value, box rows, box
#: cols). Up to the first full row every column order ties, and so do the empty rows.
REGULAR = {
    "empty grid": lambda r, c, v, br, bc: False,
    "one row": lambda r, c, v, br, bc: r == 0,
    "one box": lambda r, c, v, br, bc: r < br and c < bc,
    "one band": lambda r, c, v, br, bc: r < br,
    "two rows": lambda r, c, v, br, bc: r < 2,
    "a row and a column": lambda r, c, v, br, bc: r == 0 or c == 0,
    "first row of each band": lambda r, c, v, br, bc: r % br == 0,
    "all but one band": lambda r, c, v, br, bc: r >= br,
    "one digit": lambda r, c, v, br, bc: v == 1,
    "every cell": lambda r, c, v, br, bc: True,
}


def read(path: Path) -> list[str]:
    text = path.read_text().splitlines()
    return [s.strip() for s in text if s.strip() and not s.startswith("#")]


def bulk(puzzles: list[str], min_seconds: float = 1.0) -> float:
    """Puzzles per second of canonical_lines over the whole list, repeated to 1 s."""
    done, start = 0, time.perf_counter()
    while True:
        for k in range(0, len(puzzles), 10_000):
            canonical_lines(puzzles[k : k + 10_000])
        done += len(puzzles)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return done / elapsed


def single(puzzles: list[str]) -> tuple[float, float]:
    """Median and 90th percentile of one canonical() call, in milliseconds."""
    times = []
    for text in puzzles:
        t0 = time.perf_counter()
        canonical(text)
        times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1e3, times[int(0.9 * (len(times) - 1))] * 1e3


def shape_puzzles(box: str, count: int) -> list[Puzzle | str]:
    if box == "3x3":
        return list(read(HERE / "easy_kaggle1m.txt")[:count])
    if box in ("4x4", "5x5"):
        name = "16x16_vukr.txt" if box == "4x4" else "25x25_misc.txt"
        return list(read(HERE / name)[:count])
    rng = random.Random(box)
    out: list[Puzzle | str] = []
    for k in range(count):
        grid = generate_grid(box, seed=k)
        cells = tuple(v if rng.random() < 0.45 else 0 for v in grid.cells)
        out.append(Puzzle(grid.rules, cells))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE, help="folder of the sets")
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--single", type=int, default=500, help="puzzles timed one by one")
    parser.add_argument("--only", choices=["regular"], help="print one table alone")
    args = parser.parse_args()
    print(f"compiled minlex search: {'built' if minlex_built() else 'MISSING'}\n")
    if args.only == "regular":
        regular_table()
        return
    print("| set | puzzles | bulk puzzles/s | single call median ms | p90 ms |")
    print("|---|---:|---:|---:|---:|")
    for name in args.sets:
        puzzles = read(args.data / f"{name}.txt")
        rate = bulk(puzzles)
        median, p90 = single(puzzles[: args.single])
        print(f"| {name} | {len(puzzles):,} | {rate:,.0f} | {median:.3f} | {p90:.3f} |")
    print("\n| grid | boxes | method | puzzles | median ms | p90 ms | mean ms |")
    print("|---|---|---|---:|---:|---:|---:|")
    for box in SHAPES:
        n = _side(box)
        print(_timed_row(box, shape_puzzles(box, 200 if n <= 9 else 50)))
    print("\nSolution grids (every cell given: more ties to search through than in puzzles):\n")
    print("| grid | boxes | method | grids | median ms | p90 ms | mean ms |")
    print("|---|---|---|---:|---:|---:|---:|")
    for box in SHAPES:
        n = _side(box)
        grids: list[Puzzle | str] = [generate_grid(box, seed=k) for k in range(20 if n <= 9 else 5)]
        print(_timed_row(box, grids))
    print()
    regular_table()


def pattern_grid(box: str) -> Puzzle:
    """The most regular valid grid of a box shape: each row a shift of the first."""
    br, bc = map(int, box.split("x"))
    n = br * bc
    cells = tuple((bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n))
    return Puzzle(Rules.classic(br, bc), cells)


def regular_table() -> None:
    """Table 5: ms per regular puzzle, the slower of two grids, best of three calls."""
    print("Regular puzzles (ms, one call; the slower of a regular and a generated grid):\n")
    heads = [f"{_side(box)}x{_side(box)} ({box})" for box in REGULAR_SHAPES]
    print("| puzzle | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(heads))
    for kind, keep in REGULAR.items():
        cells = []
        for box in REGULAR_SHAPES:
            br, bc = map(int, box.split("x"))
            n = br * bc
            worst = 0.0
            for grid in (pattern_grid(box), generate_grid(box, seed=1)):
                values = tuple(
                    v if keep(k // n, k % n, v, br, bc) else 0 for k, v in enumerate(grid.cells)
                )
                puzzle = Puzzle(grid.rules, values)
                times = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    canonical(puzzle)
                    times.append(time.perf_counter() - t0)
                worst = max(worst, min(times))
            cells.append(f"{worst * 1e3:.2f}")
        print(f"| {kind} | " + " | ".join(cells) + " |")


def _side(box: str) -> int:
    r, c = map(int, box.split("x"))
    return r * c


def _timed_row(box: str, puzzles: list[Puzzle | str]) -> str:
    """One table row: one canonical() call per puzzle, timed."""
    start = time.perf_counter()
    times = []
    method = ""
    for p in puzzles:
        t0 = time.perf_counter()
        method = canonical(p, box).method
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    times.sort()
    median = statistics.median(times) * 1e3
    p90 = times[int(0.9 * (len(times) - 1))] * 1e3
    n = _side(box)
    return (
        f"| {n}x{n} | {box} | {method} | {len(puzzles)} | {median:.3f} | {p90:.3f} | "
        f"{total / len(puzzles) * 1e3:.3f} |"
    )


if __name__ == "__main__":
    main()
