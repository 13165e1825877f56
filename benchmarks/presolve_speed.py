"""Speed of the whole-array logic pass (cpsudoku.datasets.bulk_logic) on puzzle files.

For each file: read the one-line puzzles, optionally grow the sample into a big block
by relabelling the symbols with random permutations (same logic, other digits; a
relabelled puzzle takes exactly the rounds its original takes, so the share decided
does not change), then time separately, best of ``--runs``:

- parse:   ``parse_block`` (strings -> values array)
- stage:   ``presolve`` (singles and locked candidates to a fixpoint, with its own check of the
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
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from cpsudoku.datasets.bulk_logic import (
    CONFLICT,
    UNDECIDED,
    UNIQUE,
    UNSOLVABLE,
    format_block,
    parse_block,
    presolve,
    verify_block,
)
from cpsudoku.model.rules import SYMBOLS, Rules, parse_box

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


def best_of(runs: int, fn: Callable[[], T]) -> tuple[float, float, T]:
    """Fastest wall and CPU times of ``runs`` calls of ``fn``, and the last result.

    CPU time (this process only) is shown beside wall time because the machines this
    runs on are often shared: other processes stretch wall time, not CPU time.
    """
    wall = cpu = math.inf
    result: T
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, result


def measure(path: Path, box: Rules | None, target: int, runs: int, seed: int) -> None:
    """Time parse, stage, verify and format on one file and print one report line."""
    records = read_puzzles(path)
    if not records:
        print(f"{path.name}: no puzzles")
        return
    g = box or Rules.for_size(math.isqrt(len(records[0])))
    block = relabelled(records, g.n, target, seed) if target > len(records) else records
    count = len(block)

    t_parse, c_parse, (values, ok) = best_of(runs, lambda: parse_block(block, g))
    values = values[ok]
    t_stage, c_stage, result = best_of(runs, lambda: presolve(values, g))
    status = result.status
    unique = status == UNIQUE
    t_verify, c_verify, passed = best_of(
        runs, lambda: verify_block(values[unique], result.solutions[unique], g)
    )
    if not passed.all():
        sys.exit(f"{path.name}: verify_block rejected a solution of the stage")
    t_format, c_format, _ = best_of(runs, lambda: format_block(result.solutions[unique], g))

    tally = np.bincount(status, minlength=4)
    decided = tally[UNIQUE] + tally[UNSOLVABLE]

    def line(name: str, wall: float, cpu: float, note: str = "") -> str:
        rates = "  ".join(
            f"{count / s:>11,.0f}/s" if s > 0 else f"{'inf':>13}" for s in (wall, cpu)
        )
        return f"  {name:<19} {wall:7.3f} s {cpu:7.3f} s  {rates}  {note}".rstrip()

    print(
        f"{path.name}: {count:,} puzzles ({len(records):,} distinct) {g}; "
        f"ok {int(ok.sum()):,}; decided {decided / max(1, len(values)):.1%} "
        f"(unique {tally[UNIQUE]:,}, unsolvable {tally[UNSOLVABLE]:,}, "
        f"conflict {tally[CONFLICT]:,}, undecided {tally[UNDECIDED]:,})"
    )
    print(f"  {'step':<19} {'wall':>9} {'cpu':>9}  {'per wall s':>13}  {'per cpu s':>13}")
    print(line("parse", t_parse, c_parse))
    print(line("stage", t_stage, c_stage, "(includes its own verify)"))
    print(line("verify", t_verify, c_verify, f"({int(unique.sum()):,} rows)"))
    print(line("format", t_format, c_format, f"({int(unique.sum()):,} rows)"))
    print(
        line(
            "parse+stage+format",
            t_parse + t_stage + t_format,
            c_parse + c_stage + c_format,
        )
    )


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
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}; load average {load}")
    for path in args.files:
        measure(path, box, args.repeat_to, max(1, args.runs), args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
