"""``cpsudoku.solve_many`` over lines of text, end to end: puzzles/s, best of N.

The lines of a file (default: the first 2,000 of clue17_royle.txt), as strings,
go to ``cpsudoku.solve_many(lines, ENGINE, jobs=1)`` and the Results are consumed
into a list: reading the strings, the bulk pass (one call of the compiled engine per
block, its solutions verified), every Result built. Beside it: ``--against`` alone
(default ``sat``, ``presolve=False``: every line a Puzzle solved by that engine),
and the compiled engine's bare C call over the already parsed block, the floor of
what a bulk path can reach. Each run is a new process after an untimed warm-up (a
live SAT solver keeps what it learned from one run to the next); the modes are
interleaved, best of ``--repeat``. Run it on one core, beside ``uptime``:

    taskset -c 0 python benchmarks/solve_many_speed.py --repeat 5
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

DATA = Path(__file__).parent / "data"


def read_lines(path: Path, count: int | None) -> list[str]:
    """The puzzle lines of a file: blank lines and ``#`` comments skipped."""
    lines = [s.strip() for s in path.read_text().splitlines()]
    return [s for s in lines if s and not s.startswith("#")][:count]


def rate(lines: list[str], engine: str, presolve: bool) -> float:
    """Puzzles/s of one ``solve_many`` over ``lines``, in a new process, after a warm-up."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        return pool.submit(_warm_then_rate, lines, engine, presolve).result()


def _warm_then_rate(lines: list[str], engine: str, presolve: bool) -> float:
    import cpsudoku

    # The empty grid, solved the same way: the rules encoded, numpy imported, the
    # compiled engine's layout built. Costs paid once per process, not per puzzle.
    list(cpsudoku.solve_many(["." * len(lines[0])], engine, unique=False, presolve=presolve))
    start = time.perf_counter()
    results = list(cpsudoku.solve_many(lines, engine, jobs=1, presolve=presolve))
    seconds = time.perf_counter() - start
    assert len(results) == len(lines)
    assert all(r.status in ("unique", "multiple", "unsolvable") for r in results), {
        r.status for r in results
    }
    return len(lines) / seconds


def floor_rate(lines: list[str]) -> float:
    """Puzzles/s of the compiled engine's C call alone, over the parsed block."""
    from cpsudoku.datasets import bulk_logic
    from cpsudoku.datasets.solving import native_budget
    from cpsudoku.engines import native
    from cpsudoku.model.rules import Rules

    rules = Rules.for_size(round(len(lines[0]) ** 0.5))
    values, ok = bulk_logic.parse_block(lines, rules)
    block = values[ok]
    native.solve_block(block[:1], rules, budget=native_budget(rules))  # the layout, once
    start = time.perf_counter()
    native.solve_block(block, rules, limit=2, budget=native_budget(rules))
    return len(block) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", default=str(DATA / "clue17_royle.txt"))
    parser.add_argument("--count", type=int, default=2000, help="first lines (default 2000)")
    parser.add_argument("--engine", default="sat", help="solve_many's engine (default sat)")
    parser.add_argument(
        "--against", default="sat", help="the engine alone, without the bulk pass (sat)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs")
    args = parser.parse_args()
    lines = read_lines(Path(args.file), args.count)
    piped = alone = floor = 0.0
    for _ in range(args.repeat):
        piped = max(piped, rate(lines, args.engine, True))
        alone = max(alone, rate(lines, args.against, False))
        floor = max(floor, floor_rate(lines))
    name = Path(args.file).name
    print(f"{name}, {len(lines)} lines, jobs=1, best of {args.repeat}:")
    print(f"  solve_many(lines, {args.engine!r}): {piped:,.0f} puzzles/s")
    print(f"  solve_many(lines, {args.against!r}, presolve=False): {alone:,.0f} puzzles/s")
    print(f"  compiled engine's C call alone: {floor:,.0f} puzzles/s")
    ratio = piped / alone
    print(f"  end to end / {args.against} alone: {ratio:.1f}x; / C call: {piped / floor:.0%}")


if __name__ == "__main__":
    main()
