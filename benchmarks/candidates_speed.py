"""Speed of true candidates on published variant puzzles, one process.

The published 9x9 variant puzzles of ``tests/data/published/fpuzzles.jsonl`` (those
the f-puzzles reader takes; the others are skipped and counted), each asked:

- ``cap 1``: a fresh :func:`~cpsudoku.evidence.candidates.true_candidates` (a new
  cache per puzzle), what f-puzzles' "True Candid." toggle asks on every edit;
- ``cached``: the same puzzle again through a :class:`CandidateCache` that has it;
- ``cap 8``: a fresh answer with counts up to 8 (``--cap``): the published puzzles
  are unique, so this is the cost of asking each true candidate once more, and of
  the clauses excluding each solution found (``--drop`` gives them several);
- ``edit``: the puzzle with one more given (its published solution's value in the
  first empty cell) through the cache holding the puzzle: the reuse of an inherited
  answer, as when a setter adds a digit.

``--drop K`` takes out K givens of every puzzle that has that many first (so that
puzzles have several solutions and the counts matter). Median, 90th percentile and
max milliseconds of each, wall time and the process's CPU time (which a busy
machine does not inflate). Targets (one core, ``taskset -c 0``): cap 1 median under
100 ms, a cached repeat under 5 ms, cap 8 under 1 s.

Examples::

    taskset -c 0 python benchmarks/candidates_speed.py
    taskset -c 0 python benchmarks/candidates_speed.py --drop 3 --cap 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from cpsudoku.evidence.candidates import CandidateCache, TrueCandidates, true_candidates
from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.puzzle import Puzzle

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "published" / "fpuzzles.jsonl"


def _load(drop: int) -> tuple[list[tuple[Puzzle, tuple[int, ...]]], int]:
    """The 9x9 puzzles the reader takes, with their published solutions; and the skipped."""
    symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = []
    skipped = 0
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                puzzle = read_fpuzzles(row["fpuzzles"]).puzzle
        except Exception:  # a puzzle the reader refuses is skipped
            skipped += 1
            continue
        if puzzle.n != 9:
            skipped += 1
            continue
        solution = tuple(symbols.index(ch) + 1 for ch in str(row["solution"]))
        if drop:
            cells = list(puzzle.cells)
            givens = [i for i, v in enumerate(cells) if v]
            for i in givens[:drop]:
                cells[i] = 0
            puzzle = Puzzle(puzzle.rules, tuple(cells))
        out.append((puzzle, solution))
    return out, skipped


def _ms(xs: list[float]) -> str:
    xs = sorted(x * 1000 for x in xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {statistics.median(xs):8.2f} ms  p90 {p90:8.2f}  max {xs[-1]:8.2f}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one line per measure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=8, help="the larger cap measured (default 8)")
    ap.add_argument("--drop", type=int, default=0, help="givens taken out of each puzzle")
    ap.add_argument("--limit", type=int, default=None, help="at most this many puzzles")
    args = ap.parse_args(argv)
    puzzles, skipped = _load(args.drop)
    puzzles = puzzles[: args.limit]
    times: dict[str, list[float]] = {"cap 1": [], "cached": [], f"cap {args.cap}": [], "edit": []}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    calls: dict[str, list[int]] = {k: [] for k in times}

    def timed(name: str, run: Callable[[], TrueCandidates]) -> TrueCandidates:
        t, c = time.perf_counter(), time.process_time()
        found = run()
        times[name].append(time.perf_counter() - t)
        cpu[name].append(time.process_time() - c)
        calls[name].append(found.calls)
        return found

    for puzzle, solution in puzzles:
        cache = CandidateCache()
        first = timed("cap 1", lambda: cache.get(puzzle))  # noqa: B023 - called at once
        again = timed("cached", lambda: cache.get(puzzle))  # noqa: B023
        assert again.cached
        assert again.masks == first.masks
        timed(f"cap {args.cap}", lambda: true_candidates(puzzle, cap=args.cap))  # noqa: B023
        cells = list(puzzle.cells)
        if 0 in cells:
            i = cells.index(0)
            cells[i] = solution[i]
            edited = Puzzle(puzzle.rules, tuple(cells))
            timed("edit", lambda: cache.get(edited))  # noqa: B023
    print(
        f"{len(puzzles)} published 9x9 variant puzzles ({skipped} skipped)"
        + (f", {args.drop} givens dropped from each" if args.drop else "")
    )
    for name, xs in times.items():
        if xs:
            made = statistics.median(calls[name]) if calls[name] else 0
            print(f"{name:>8}: wall {_ms(xs)}  (median {made:g} calls)")
            print(f"{'':>8}  cpu  {_ms(cpu[name])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
