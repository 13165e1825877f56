"""Every engine on the published variant puzzles of the test data, timed.

Each puzzle of ``tests/data/published/fpuzzles.jsonl`` whose rules its f-puzzles keys
hold is solved (uniqueness proved) on each engine with a time limit; every answer is
checked against the published solution. Prints, per engine, the median and slowest
seconds, the timeouts by name, and any wrong answer (there must be none):

    taskset -c 0 python benchmarks/published.py --engines native sat cpsat --time-limit 60
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from pathlib import Path

from cpsudoku import Status
from cpsudoku.engines import create_backend
from cpsudoku.model.fpuzzles import read_fpuzzles

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "published" / "fpuzzles.jsonl"
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", nargs="+", default=["native", "sat", "cpsat"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--only", nargs="*", default=[], help="puzzle ids to run")
    args = parser.parse_args()
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["keys_cover_rules"] and (not args.only or r["id"] in args.only)]
    puzzles = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in rows:
            solution = tuple(SYMBOLS.index(ch) + 1 for ch in r["solution"])
            puzzles.append((r["id"], read_fpuzzles(r["fpuzzles"]).puzzle, solution))
    print(f"{len(puzzles)} published puzzles, limit {args.time_limit:g} s")
    print("| engine | median ms | slowest | timeouts | wrong |")
    print("|---|---|---|---|---|")
    for spec in args.engines:
        seconds, timeouts, wrong = [], [], []
        slowest = ("", 0.0)
        with create_backend(spec) as engine:
            for name, puzzle, solution in puzzles:
                start = time.perf_counter()
                result = engine.solve(puzzle, time_limit=args.time_limit)
                took = time.perf_counter() - start
                if result.status is Status.TIMEOUT:
                    timeouts.append(name)
                    continue
                ok = result.status is Status.UNIQUE and result.solution is not None
                if not ok or result.solution.cells != solution:  # type: ignore[union-attr]
                    wrong.append(name)
                seconds.append(took)
                slowest = max(slowest, (name, took), key=lambda x: x[1])
        median = statistics.median(seconds) * 1000 if seconds else float("nan")
        print(
            f"| {spec} | {median:.1f} | {slowest[1]:.2f} s ({slowest[0]}) | "
            f"{len(timeouts)} {' '.join(timeouts)} | {len(wrong)} {' '.join(wrong)} |"
        )


if __name__ == "__main__":
    main()
