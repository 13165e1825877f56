"""Throughput of the SAT backend, side by side with the textbook ``fresh`` baseline.

Every puzzle goes through ``Backend.solve`` with the uniqueness check (as the API and
the command line do): statuses are derived and every solution is verified. Puzzles are
parsed before the clock starts. Each repetition uses a new backend (so no run profits
from clauses learned on the same puzzles in an earlier one) whose rules are encoded
before the clock starts; the best repetition is reported, in wall time and in CPU time
of this process (the CPU figure is the one to trust on a busy machine), next to the
median repetition's CPU rate (how far a typical run falls short of the best on a host
whose speed wanders), with the load average at the start. The specs take turns, one
repetition each, so that a host whose speed drifts during the run (shared virtual
machines do) weighs on the engine and on its baseline alike, and their ratio stays fair.

Examples::

    python benchmarks/sat_speed.py                       # the 9x9 sets, sat vs sat:fresh
    python benchmarks/sat_speed.py --specs sat sat:glucose4 sat:minisat22 --no-fresh
    python benchmarks/sat_speed.py --big                 # 16x16 medians, 25x25 each
    python benchmarks/sat_speed.py --frisch --time-limit 600
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpsudoku.engines import create_backend
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle

DATA = Path(__file__).resolve().parent / "data"

NINE = ["clue17_royle.txt", "top1465.txt", "forum_hardest_1106.txt"]
SIXTEEN = ["16x16_janko.txt", "16x16_vukr.txt", "16x16_misc.txt"]
TWENTY_FIVE = ["25x25_misc.txt"]
FRISCH = ["25x25_frisch.txt"]

#: Goals of the issue, puzzles per second, single process, uniqueness checked.
GOALS = {"clue17_royle.txt": 4000, "top1465.txt": 1500, "forum_hardest_1106.txt": 400}


def load(name: str, limit: int | None) -> list[Puzzle]:
    """The puzzles of a file in benchmarks/data (or a path), parsed."""
    path = Path(name) if Path(name).exists() else DATA / name
    lines = [s for s in path.read_text().splitlines() if s.strip() and not s.startswith("#")]
    return [parse(s) for s in lines[:limit]]


def run_once(spec: str, puzzles: list[Puzzle]) -> tuple[float, float, Counter[str]]:
    """Wall and CPU seconds of one run on a new backend, and the statuses."""
    backend = create_backend(spec)
    backend.solve(Puzzle(puzzles[0].rules, (0,) * puzzles[0].rules.cells), unique=False)
    statuses: Counter[str] = Counter()
    wall, cpu = time.perf_counter(), time.process_time()
    for p in puzzles:
        statuses[str(backend.solve(p).status)] += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    backend.close()
    return wall, cpu, statuses


def table_nine(args: argparse.Namespace) -> None:
    specs = list(args.specs)
    if not args.no_fresh:
        specs.append("sat:fresh")
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    head = (
        f"{'dataset':26s} {'spec':28s} {'n':>5s} {'wall/s':>8s} {'cpu/s':>8s} {'median':>8s}"
        "  statuses"
    )
    print(head)
    print("-" * len(head))
    for name in args.datasets or NINE:
        puzzles = {
            spec: load(name, args.fresh_limit if spec.endswith("fresh") else args.limit)
            for spec in specs
        }
        walls: dict[str, list[float]] = {spec: [] for spec in specs}
        cpus: dict[str, list[float]] = {spec: [] for spec in specs}
        statuses: dict[str, Counter[str]] = {}
        for _ in range(args.repeat):
            for spec in specs:  # in turns: drift of the host's speed hits every spec
                wall, cpu, statuses[spec] = run_once(spec, puzzles[spec])
                walls[spec].append(wall)
                cpus[spec].append(cpu)
        rates: dict[str, tuple[float, float]] = {}
        for spec in specs:
            n = len(puzzles[spec])
            wall, cpu, median = min(walls[spec]), min(cpus[spec]), statistics.median(cpus[spec])
            rates[spec] = (n / wall, n / cpu)
            shown = ", ".join(f"{k} {v}" for k, v in sorted(statuses[spec].items()))
            print(
                f"{name:26s} {spec:28s} {n:5d} {n / wall:8.0f} {n / cpu:8.0f} {n / median:8.0f}"
                f"  {shown}"
            )
        if "sat:fresh" in rates and specs[0] != "sat:fresh":
            (w0, c0), (w1, c1) = rates[specs[0]], rates["sat:fresh"]
            print(f"{'':26s} {specs[0] + ' / fresh':28s} {'':5s} {w0 / w1:7.1f}x {c0 / c1:7.1f}x")
        goal = GOALS.get(Path(name).name)
        if goal:
            print(f"{'':26s} {'goal':28s} {'':5s} {goal:8d}")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def table_each(args: argparse.Namespace, names: list[str], every: bool) -> None:
    """Per-file median (and each puzzle's time when ``every``), one backend per file."""
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for spec in args.specs:
        for name in names:
            puzzles = load(name, args.limit)
            backend = create_backend(spec)
            times: list[float] = []
            statuses: Counter[str] = Counter()
            build = time.perf_counter()
            backend.solve(Puzzle(puzzles[0].rules, (0,) * puzzles[0].rules.cells), unique=False)
            build = time.perf_counter() - build
            for i, p in enumerate(puzzles):
                r = backend.solve(p, time_limit=args.time_limit)
                times.append(r.seconds)
                statuses[str(r.status)] += 1
                if every:
                    stats = " ".join(f"{k}={v}" for k, v in r.stats.items())
                    print(f"  {name} #{i + 1:<3d} {r.status!s:10s} {r.seconds:9.2f} s  {stats}")
                    sys.stdout.flush()
            backend.close()
            shown = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
            median = statistics.median(times) * 1e3
            print(
                f"{name:22s} {spec:24s} n={len(puzzles):<4d} median {median:8.1f} ms"
                f"  max {max(times) * 1e3:9.1f} ms  total {sum(times):8.2f} s"
                f"  (encode+first solve {build:.2f} s)  {shown}"
            )
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Puzzles per second of the SAT backend (uniqueness checked, one process), "
        "next to the 'sat:fresh' textbook baseline."
    )
    p.add_argument("--specs", nargs="+", default=["sat"], metavar="SPEC", help="backend specs")
    p.add_argument("--datasets", nargs="+", metavar="FILE", help="files (default: the 9x9 goals)")
    p.add_argument("--limit", type=int, metavar="N", help="first N puzzles of each file")
    p.add_argument(
        "--fresh-limit",
        type=int,
        default=300,
        metavar="N",
        help="first N puzzles for the slow fresh baseline (default 300)",
    )
    p.add_argument("--no-fresh", action="store_true", help="skip the fresh baseline")
    p.add_argument(
        "--repeat", type=int, default=2, metavar="K", help="runs; best and median shown (2)"
    )
    p.add_argument("--big", action="store_true", help="16x16 and 25x25_misc: median per file")
    p.add_argument("--frisch", action="store_true", help="25x25_frisch: every puzzle's time")
    p.add_argument("--time-limit", type=float, metavar="S", help="per puzzle, for --big/--frisch")
    args = p.parse_args(argv)
    if args.big:
        table_each(args, SIXTEEN + TWENTY_FIVE, every=False)
    elif args.frisch:
        table_each(args, FRISCH, every=True)
    else:
        table_nine(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
