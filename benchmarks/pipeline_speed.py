"""Is the bulk pass worth it, per grid size? The pipeline against its engine.

For each set, one core: ``cpsudoku.solve_many(puzzles, ENGINE)`` with the bulk pass
(the default pipeline: the compiled engine over each block where it is built and the
engine is ``sat`` or ``native``, else the numpy logic pass by the plan of
``cpsudoku.datasets.bulk_logic.pass_plan``; the engine gets the rest) and with
``presolve=False`` (the engine alone), best of ``--repeat`` runs, uniqueness checked.
Every run is a new process: a live SAT solver keeps what it learned from one run to
the next, which would favour whichever mode runs second. Prints puzzles/s of both, the
ratio, and the share the pass decided. The 4x4, 6x6, 8x8 and 12x12 sets are generated
(minimal puzzles, fixed seeds); the others are the bundled published ones.

    python benchmarks/pipeline_speed.py --repeat 3
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cpsudoku

DATA = Path(__file__).parent / "data"


def bundled(name: str, limit: int | None = None) -> list[str]:
    lines = [s.strip() for s in (DATA / name).read_text().splitlines()]
    return [s for s in lines if s and not s.startswith("#")][:limit]


def generated(box: str, count: int, seed: int, clues: int | None = None) -> list[str]:
    items = cpsudoku.generate_puzzles(count, box, seed=seed, clues=clues)
    return [str(item.puzzle) for item in items]


#: name -> (box, puzzles): what is measured, small grids first.
SETS: dict[str, tuple[str | None, Callable[[], list[str]]]] = {
    "4x4 generated": ("2x2", lambda: generated("2x2", 2000, 1)),
    "6x6 generated": ("2x3", lambda: generated("2x3", 1000, 1)),
    "8x8 generated": ("2x4", lambda: generated("2x4", 300, 1)),
    "9x9 easy_kaggle1m": (None, lambda: bundled("easy_kaggle1m.txt", 2000)),
    "9x9 clue17": (None, lambda: bundled("clue17_royle.txt", 2000)),
    "9x9 top1465": (None, lambda: bundled("top1465.txt")),
    "9x9 forum_hardest_1106": (None, lambda: bundled("forum_hardest_1106.txt")),
    "12x12 generated": ("3x4", lambda: generated("3x4", 40, 1)),
    "16x16 janko": (None, lambda: bundled("16x16_janko.txt")),
    "16x16 vukr": (None, lambda: bundled("16x16_vukr.txt")),
    "16x16 misc": (None, lambda: bundled("16x16_misc.txt")),
    "25x25 misc": (None, lambda: bundled("25x25_misc.txt")),
    "36x36 generated": ("6x6", lambda: generated("6x6", 4, 1, clues=700)),
}


def rate(puzzles: list[str], engine: str, box: str | None, presolve: bool) -> tuple[float, int]:
    """Puzzles per second of one pass over ``puzzles``, and how many the pass decided."""
    start = time.perf_counter()
    results = list(cpsudoku.solve_many(puzzles, engine, box=box, presolve=presolve))
    seconds = time.perf_counter() - start
    assert all(r.status in ("unique", "multiple", "unsolvable") for r in results)
    return len(puzzles) / seconds, sum(r.backend in ("logic", "native") for r in results)


def fresh_rate(
    puzzles: list[str], engine: str, box: str | None, presolve: bool, plans: dict[int, str]
) -> tuple[float, int]:
    """:func:`rate` in a new process, after an untimed warm-up.

    The warm-up solves the empty grid the same way (no puzzle the pass decides), so
    the engine's rules are encoded and the pass's tables built (numpy imported):
    costs paid once per process, not per puzzle.
    """
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        return pool.submit(_warm_then_rate, puzzles, engine, box, presolve, plans).result()


def _warm_then_rate(
    puzzles: list[str], engine: str, box: str | None, presolve: bool, plans: dict[int, str]
) -> tuple[float, int]:
    from cpsudoku.datasets import bulk_logic as bulk

    bulk.PLANS.update({n: bulk.PassPlan(plan) for n, plan in plans.items()})
    blank = (
        "." * len(puzzles[0]) if " " not in puzzles[0] else " ".join("0" * len(puzzles[0].split()))
    )
    list(cpsudoku.solve_many([blank], engine, box=box, unique=False, presolve=presolve))
    return rate(puzzles, engine, box, presolve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="sat", help="engine spec (default sat)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--only", nargs="+", help="names of sets to measure (substrings)")
    parser.add_argument(
        "--plan",
        nargs="+",
        default=[],
        metavar="N=PLAN",
        help="try another pass plan for side N: full, singles or off (e.g. 16=singles)",
    )
    args = parser.parse_args()
    plans = {int(n): plan for n, plan in (item.split("=") for item in args.plan)}
    print(f"| set | {args.engine} alone | pipeline | pipeline / alone | decided by the pass |")
    print("|---|---:|---:|---:|---:|")
    for name, (box, make) in SETS.items():
        if args.only and not any(word in name for word in args.only):
            continue
        puzzles = make()
        alone = piped = 0.0
        decided = 0
        for _ in range(args.repeat):
            alone = max(alone, fresh_rate(puzzles, args.engine, box, False, plans)[0])
            speed, decided = fresh_rate(puzzles, args.engine, box, True, plans)
            piped = max(piped, speed)
        print(
            f"| {name} ({len(puzzles)}) | {alone:,.0f} | {piped:,.0f} | {piped / alone:.2f} | "
            f"{decided / len(puzzles):.0%} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
