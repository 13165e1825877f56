"""Counting grids under clues read along a line on CP-SAT: grids found, callbacks, time.

A count by callback lists every solution of the model, auxiliary variables included;
when the cells fix every variable of an automaton's run, each grid is met once
(callbacks equal the count). Counts a blank 6x6 under two clues on row 1 and column 1
(skyscrapers 3 and 2, X-sums 10 and 9) up to a limit, on both CP-SAT models.

    python benchmarks/automaton_counts.py --limit 2000
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import cpsudoku.engines.cpsat as cpsat
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import constraint_from_spec
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

CASES: dict[str, list[dict[str, Any]]] = {
    "skyscraper": [
        {"kind": "skyscraper", "row": 1, "count": 3},
        {"kind": "skyscraper", "column": 1, "count": 2},
    ],
    "x-sum": [
        {"kind": "x-sum", "row": 1, "sum": 10},
        {"kind": "x-sum", "column": 1, "sum": 9},
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=2000, help="grids to count up to")
    parser.add_argument("--backends", nargs="+", default=["cpsat", "cpsat:boolean"])
    args = parser.parse_args()
    calls = [0]
    record = cpsat._Collector.on_solution_callback

    def counted(self: Any) -> None:
        calls[0] += 1
        record(self)

    cpsat._Collector.on_solution_callback = counted  # type: ignore[method-assign]
    base = Rules.for_size(6)
    for name, specs in CASES.items():
        rules = base.with_constraints(*(constraint_from_spec(s, 6) for s in specs))
        puzzle = Puzzle(rules, (0,) * 36)
        for spec in args.backends:
            with create_backend(spec) as engine:
                engine.count(puzzle, limit=10)  # the rules' model written once
                calls[0] = 0
                start = time.perf_counter()
                found = engine.count(puzzle, limit=args.limit)
                took = time.perf_counter() - start
            print(
                f"{name:11s} {spec:14s} grids {found.count:6d}  "
                f"callbacks {calls[0]:7d}  {took:6.2f} s"
            )


if __name__ == "__main__":
    main()
