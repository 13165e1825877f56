"""The compiled engine's speed, one call over a whole set, beside the sat engine.

For each set: puzzles per second of one ``native.solve_block`` call over the whole set
(uniqueness checked: counting to 2), its guesses per puzzle, and the same for the
``sat`` engine (one ``solve`` per puzzle, rules encoded once) and for the default
``solve_many`` pipeline (the compiled pass, then ``sat`` for what its node budget
leaves). Every answer of the compiled engine is verified and compared with sat's.

    python benchmarks/native_speed.py                       # the bundled samples
    python benchmarks/native_speed.py --data DIR --sets clue17_royle top1465
    python benchmarks/native_speed.py --sat-limit 200       # sat on the first 200 only
    python benchmarks/native_speed.py --path generic        # 9x9 without the band solver

``--data`` points at a folder holding the whole published files (see
benchmarks/data/README.md for where each comes from); one core, nothing else running.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from cpsudoku import solve_many
from cpsudoku.datasets import bulk_logic
from cpsudoku.engines import create_backend, native
from cpsudoku.model.forms import parse
from cpsudoku.model.rules import Rules

HERE = Path(__file__).parent
SETS = [
    "easy_kaggle1m",
    "clue17_royle",
    "top1465",
    "forum_hardest_1106",
    "16x16_janko",
    "16x16_misc",
    "16x16_vukr",
    "25x25_misc",
    "25x25_frisch",
]


def load(path: Path) -> list[str]:
    lines = [line.split(",")[0].strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def measure(
    name: str, lines: list[str], sat_limit: int, repeat: int, band: bool = True
) -> dict[str, object]:
    g = Rules.for_size(math.isqrt(len(lines[0])))
    values, ok = bulk_logic.parse_block(lines, g)
    assert ok.all(), f"{name}: unreadable lines"
    budget = 4_000_000 // g.cells  # as the batch pass gives it
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        found = native.solve_block(values, g, budget=budget, band=band)
        best = min(best, time.perf_counter() - start)
    answered = (found.status == native.DONE) | (found.status == native.LIMIT)
    solved = found.count > 0
    assert bulk_logic.verify_block(values[solved], found.solutions[solved], g).all()
    # sat, one puzzle at a time, on the first sat_limit puzzles
    sample = lines[:sat_limit]
    with create_backend("sat") as sat:
        sat.solve(parse(sample[0]))  # encode the rules, untimed
        start = time.perf_counter()
        theirs = [sat.solve(parse(line, check=False)) for line in sample]
        sat_seconds = time.perf_counter() - start
    for k, r in enumerate(theirs):
        if answered[k]:
            mine = ["unsolvable", "unique", "multiple"][int(found.count[k])]
            assert r.status.value == mine, f"{name} #{k}: native {mine}, sat {r.status.value}"
    start = time.perf_counter()
    piped = list(solve_many(sample, jobs=1))
    pipe_seconds = time.perf_counter() - start
    return {
        "set": name,
        "puzzles": len(lines),
        "native/s": len(lines) / best,
        "guesses": float(np.mean(found.guesses[answered])) if answered.any() else float("nan"),
        "budget spent": int((~answered).sum()),
        "sat/s": len(sample) / sat_seconds,
        "pipeline/s": len(sample) / pipe_seconds,
        "sat sample": len(sample),
        "pipeline backends": ",".join(sorted({r.backend for r in piped})),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data", help="folder of the sets")
    parser.add_argument("--sets", nargs="*", default=SETS)
    parser.add_argument("--sat-limit", type=int, default=500, help="puzzles sat solves per set")
    parser.add_argument("--repeat", type=int, default=3, help="native runs per set (best kept)")
    parser.add_argument(
        "--path",
        choices=["band", "generic"],
        default="band",
        help="classic 9x9 on the band solver (the default) or on the generic search",
    )
    args = parser.parse_args()
    print(
        "| set | puzzles | native/s | guesses/puzzle | native budget spent | sat/s | "
        "pipeline/s | pipeline vs sat | sat sample | pipeline answered by |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in args.sets:
        path = args.data / f"{name}.txt"
        if not path.exists():
            print(f"| {name} | (no {path}) |")
            continue
        m = measure(name, load(path), args.sat_limit, args.repeat, args.path == "band")
        print(
            f"| {m['set']} | {m['puzzles']:,} | {m['native/s']:,.0f} | {m['guesses']:.1f} | "
            f"{m['budget spent']} | {m['sat/s']:,.0f} | {m['pipeline/s']:,.1f} | "
            f"{m['pipeline/s'] / m['sat/s']:.1f}x | {m['sat sample']} | "  # type: ignore[operator]
            f"{m['pipeline backends']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
