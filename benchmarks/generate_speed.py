"""How fast are grids and puzzles generated?

Measures, each from a fixed seed (so every run generates the same grids and puzzles):

- complete grids per second, 9x9 and 16x16;
- minimal 9x9 puzzles per second (no clue can be removed), also with rotational
  symmetry;
- 16x16 puzzles per second with a clue target, and minimal 16x16 puzzles per second;

with the uniqueness checks per puzzle, the checker and the mean clue count. Wall time
(``perf_counter``) and process CPU time (``process_time``, which includes the SAT
solver's native code) are both reported: on a shared machine the CPU rate is the
steadier figure.

    python benchmarks/generate_speed.py [--backend NAME] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpsudoku.engines import uniqueness_checker
from cpsudoku.generate import generate_grid, generate_puzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import parse_box


def timed(label: str, count: int, make: Callable[[], list[Puzzle]]) -> dict[str, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    items = make()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "case": label,
        "count": count,
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "per_second": round(count / wall, 2),
        "mean_clues": ""
        if items[0].is_complete
        else round(sum(p.givens for p in items) / len(items), 1),
    }


def grids(box: str, count: int) -> list[Puzzle]:
    rng = random.Random(2026)
    return [generate_grid(box, rng=rng) for _ in range(count)]


def puzzles(
    box: str, count: int, backend: str | None, clues: int | None = None, symmetry: str = "none"
) -> tuple[list[Puzzle], int]:
    items = list(
        generate_puzzles(count, box, clues=clues, symmetry=symmetry, seed=2026, backend=backend)
    )
    return [i.puzzle for i in items], sum(i.checks for i in items)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backend", help="uniqueness checker (default: the generator's choice per size)"
    )
    parser.add_argument("--quick", action="store_true", help="smaller counts")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    k = 5 if args.quick else 1
    results = [
        timed("grids 9x9", 1000 // k, lambda: grids("3x3", 1000 // k)),
        timed("grids 16x16", 100 // k, lambda: grids("4x4", 100 // k)),
    ]
    checks: dict[str, int] = {}

    def puzzle_case(label: str, box: str, count: int, **kw: object) -> None:
        def make() -> list[Puzzle]:
            made, checks[label] = puzzles(box, count, args.backend, **kw)  # type: ignore[arg-type]
            return made

        row = timed(label, count, make)
        row["checks_per_puzzle"] = round(checks[label] / count, 1)
        row["checker"] = args.backend or uniqueness_checker(parse_box(box))
        results.append(row)

    puzzle_case("minimal 9x9", "3x3", 200 // k)
    puzzle_case("minimal 9x9, rotational", "3x3", 200 // k, symmetry="rotational")
    puzzle_case("16x16, 120 clues", "4x4", 20 // k, clues=120)
    puzzle_case("minimal 16x16", "4x4", 10 // k)
    print(f"Python {platform.python_version()}")
    print(
        f"{'case':<26}{'count':>6}{'wall s':>9}{'cpu s':>9}{'per s':>9}{'per cpu s':>10}"
        f"{'clues':>7}{'checks':>8}  checker"
    )
    for r in results:
        per_cpu = round(r["count"] / r["cpu_seconds"], 2)  # type: ignore[operator]
        print(
            f"{r['case']:<26}{r['count']:>6}{r['seconds']:>9}{r['cpu_seconds']:>9}"
            f"{r['per_second']:>9}{per_cpu:>10}{r['mean_clues']:>7}"
            f"{r.get('checks_per_puzzle', ''):>8}  {r.get('checker', '')}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"results": results}, indent=2) + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
