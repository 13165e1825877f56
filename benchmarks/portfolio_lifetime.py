"""What it costs that the portfolio's worker processes end with each call.

``cpsudoku.solve(p, backend="portfolio")`` (and ``count``, ``rate``, one ``batch`` or
``solve_many`` run) uses the process-wide portfolio, whose engines' processes now end
when the call returns; the next call starts them again. A backend of the caller's own
(``with create_backend("portfolio") as engine``, what ``cpsudoku bench`` measures)
keeps them between puzzles. Three ways over the same puzzles, in turns:

- ``per call``: ``cpsudoku.solve`` on each puzzle (two processes started and stopped
  per puzzle);
- ``held``: one ``create_backend("portfolio")`` for every puzzle (started once);
- ``solve_many``: one ``cpsudoku.solve_many`` call over all of them (started once).

Wall clock per way, puzzles/s and the median puzzle (``held`` pays the start-up on its
first puzzle only); ``start-up per call`` is the difference between ``per call`` and
``held``, per puzzle. Each way runs ``--repeat``
times and its best run counts (the machine may be shared); the load average is printed.

Examples::

    python benchmarks/portfolio_lifetime.py                      # 50 clue17 puzzles
    python benchmarks/portfolio_lifetime.py --file 25x25_frisch.txt --limit 3 --repeat 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cpsudoku
from cpsudoku.engines import create_backend
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle

DATA = Path(__file__).parent / "data"

#: A way to solve the puzzles: returns the seconds of each puzzle, in order.
Way = Callable[[Sequence[Puzzle]], list[float]]


def per_call(puzzles: Sequence[Puzzle]) -> list[float]:
    """``cpsudoku.solve`` per puzzle: the portfolio's processes start and end each time."""
    out = []
    for p in puzzles:
        start = time.perf_counter()
        result = cpsudoku.solve(p, backend="portfolio")
        out.append(time.perf_counter() - start)
        assert result.status is cpsudoku.Status.UNIQUE, result
    return out


def held(puzzles: Sequence[Puzzle]) -> list[float]:
    """One backend of the caller's own for every puzzle (its start-up included)."""
    out = []
    with create_backend("portfolio") as engine:
        for p in puzzles:
            start = time.perf_counter()
            result = engine.solve(p)
            out.append(time.perf_counter() - start)
            assert result.status is cpsudoku.Status.UNIQUE, result
    return out


def many(puzzles: Sequence[Puzzle]) -> list[float]:
    """One ``solve_many`` call (the time of each result as it arrives)."""
    out = []
    start = time.perf_counter()
    for result in cpsudoku.solve_many(puzzles, "portfolio", presolve=False):
        now = time.perf_counter()
        out.append(now - start)
        start = now
        assert result.status is cpsudoku.Status.UNIQUE, result
    return out


WAYS: dict[str, Way] = {"per call": per_call, "held": held, "solve_many": many}


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", default="clue17_royle.txt", help="a file of benchmarks/data")
    parser.add_argument("--limit", type=int, default=50, help="puzzles from the file's start")
    parser.add_argument("--repeat", type=int, default=2, help="runs per way; the best counts")
    args = parser.parse_args()
    lines = [s for s in (DATA / args.file).read_text().splitlines() if s and s[0] != "#"]
    puzzles = [parse(line) for line in lines[: args.limit]]
    best: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for name, way in WAYS.items():
            times = way(puzzles)
            if name not in best or sum(times) < sum(best[name]):
                best[name] = times
    print(f"{len(puzzles)} puzzles of {args.file}; load average {os.getloadavg()[0]:.2f}")
    print("| way | wall s | puzzles/s | median puzzle s |")
    print("|---|---:|---:|---:|")
    for name, times in best.items():
        total = sum(times)
        # solve_many hands results back a chunk at a time: no time per puzzle.
        median = "-" if name == "solve_many" else f"{statistics.median(times):.3f}"
        print(f"| {name} | {total:.2f} | {len(times) / total:.2f} | {median} |")
    extra = (sum(best["per call"]) - sum(best["held"])) / len(puzzles)
    print(f"start-up per call: {extra:.2f} s")


if __name__ == "__main__":
    main()
