"""Speed of the whole-array logic pass (cpsudoku.presolve) on puzzle files.

For each file: read the one-line puzzles, optionally grow the sample into a big block
by relabelling the symbols with random permutations (same logic, other digits; a
relabelled puzzle takes exactly the rounds its original takes, so the share decided
does not change), then time separately, best of ``--runs``:

- parse:   ``parse_block`` (strings -> values array)
- stage:   ``presolve`` (singles to a fixpoint, including its own check of the
           solutions it reports)
- verify:  ``verify_block`` on the decided rows (already inside ``stage``; shown
           on its own so its share is visible)
- format:  ``format_block`` of the decided rows (values -> solution strings)

and print puzzles/s for each, and the share of puzzles decided (unique or unsolvable).
One process, one thread: numpy's element-wise operations do not use more cores.

Example::

    python benchmarks/presolve_speed.py benchmarks/data/easy_kaggle1m.txt --repeat-to 200000
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from cpsudoku.grid import SYMBOLS, Geometry, geometry_for_size, parse_box
from cpsudoku.presolve import (
    CONFLICT,
    UNDECIDED,
    UNIQUE,
    UNSOLVABLE,
    format_block,
    parse_block,
    presolve,
    verify_block,
)

T = TypeVar("T")


def read_puzzles(path: Path) -> list[str]:
    """One-line puzzles of a text file (blank lines and # comments skipped)."""
    with path.open(encoding="utf-8") as fh:
        return [s for s in (line.strip() for line in fh) if s and not s.startswith("#")]


def relabelled(records: list[str], n: int, target: int, seed: int) -> list[str]:
    """The records, then relabelled copies, until there are ``target`` (at least all)."""
    rng = random.Random(seed)
    symbols = SYMBOLS[:n]
    out = list(records)
    while len(out) < target:
        perm = "".join(rng.sample(symbols, n))
        table = str.maketrans(symbols + symbols.lower(), perm + perm.lower())
        out.extend(r.translate(table) for r in records[: target - len(out)])
    return out


def best_of(runs: int, fn: Callable[[], T]) -> tuple[float, T]:
    """Fastest wall time of ``runs`` calls of ``fn``, and the last call's result."""
    best = math.inf
    result: T
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(path: Path, box: Geometry | None, target: int, runs: int, seed: int) -> None:
    """Time parse, stage, verify and format on one file and print one report line."""
    records = read_puzzles(path)
    if not records:
        print(f"{path.name}: no puzzles")
        return
    g = box or geometry_for_size(math.isqrt(len(records[0])))
    block = relabelled(records, g.n, target, seed) if target > len(records) else records
    count = len(block)

    t_parse, (values, ok) = best_of(runs, lambda: parse_block(block, g))
    values = values[ok]
    t_stage, result = best_of(runs, lambda: presolve(values, g))
    status = result.status
    unique = status == UNIQUE
    t_verify, passed = best_of(
        runs, lambda: verify_block(values[unique], result.solutions[unique], g)
    )
    if not passed.all():
        sys.exit(f"{path.name}: verify_block rejected a solution of the stage")
    t_format, _ = best_of(runs, lambda: format_block(result.solutions[unique], g))

    tally = np.bincount(status, minlength=4)
    decided = tally[UNIQUE] + tally[UNSOLVABLE]
    total = t_parse + t_stage + t_format

    def rate(seconds: float) -> str:
        return f"{count / seconds:>11,.0f}/s" if seconds > 0 else "          inf"

    print(
        f"{path.name}: {count:,} puzzles ({len(records):,} distinct) {g}; "
        f"ok {int(ok.sum()):,}; decided {decided / max(1, len(values)):.1%} "
        f"(unique {tally[UNIQUE]:,}, unsolvable {tally[UNSOLVABLE]:,}, "
        f"conflict {tally[CONFLICT]:,}, undecided {tally[UNDECIDED]:,})"
    )
    print(f"  parse   {t_parse:8.3f} s {rate(t_parse)}")
    print(f"  stage   {t_stage:8.3f} s {rate(t_stage)}   (includes its own verify)")
    print(f"  verify  {t_verify:8.3f} s {rate(t_verify)}   ({int(unique.sum()):,} rows)")
    print(f"  format  {t_format:8.3f} s {rate(t_format)}   ({int(unique.sum()):,} rows)")
    print(f"  parse+stage+format {total:8.3f} s {rate(total)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="one-line puzzle files")
    parser.add_argument(
        "--repeat-to",
        type=int,
        default=0,
        metavar="N",
        help="grow each sample to N puzzles by relabelling symbols (default: as is)",
    )
    parser.add_argument("--runs", type=int, default=3, help="take the best of this many runs")
    parser.add_argument("--box", help="box shape RxC (default: from the puzzle length)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the relabelling")
    args = parser.parse_args(argv)
    box = parse_box(args.box) if args.box else None
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")
    for path in args.files:
        measure(path, box, args.repeat_to, max(1, args.runs), args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
