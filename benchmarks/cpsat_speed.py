"""Throughput of the CP-SAT backend variants (and the portfolio) on bundled samples.

Three measurements, each printed as a table:

- default: puzzles/s of backend specs on sample files, and the ratio to a baseline
  spec (``cpsat:sample``, the OR-Tools sample approach) measured in the same run;
- ``--ablate``: the default ``cpsat`` backend with each tuned CP-SAT parameter put back
  to CP-SAT's own default, one at a time, and with all of them put back;
- ``--reuse``: ways to prepare each puzzle's model (rebuild it, ``CpModel.clone()``,
  ``copy_from`` of the rules' proto, or narrowing the givens' domains in place on one
  shared proto), all solved the same way.

Each row is measured ``--repeat`` times, the rows interleaved so that a burst of load
hits all alike, and the best run is kept: the machine may be shared, so the load
average is printed too. Only solving is timed (parsing is done before), wall clock;
the CPU column is this process's CPU time (worker processes of the portfolio and
CP-SAT threads beyond one are not comparable with it).

Examples::

    python benchmarks/cpsat_speed.py                      # 9x9 samples, cpsat vs sample
    python benchmarks/cpsat_speed.py --files clue17_royle.txt,forum_hardest_1905_11plus.txt \\
        --specs cpsat,cpsat:integer,cpsat:exclude,cpsat:sample
    python benchmarks/cpsat_speed.py --ablate --files clue17_royle.txt
    python benchmarks/cpsat_speed.py --reuse --files clue17_royle.txt
    python benchmarks/cpsat_speed.py --files 25x25_frisch.txt --specs cpsat,portfolio \\
        --per-puzzle --repeat 1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ortools.sat.python import cp_model
from ortools.sat.python import cp_model_helper as cmh

from cpsudoku.backends import create_backend
from cpsudoku.backends.base import Backend
from cpsudoku.backends.cpsat import COMMON, TUNED, CpSatBackend
from cpsudoku.encode.cpsat import (
    KINDS,
    ModelKind,
    build_model,
    free_domains,
    given_domains,
    rules_model,
    set_domains,
)
from cpsudoku.formats import parse
from cpsudoku.grid import Puzzle

DATA = Path(__file__).parent / "data"
NINE = [
    "easy_kaggle1m.txt",
    "easy_kaggle9m.txt",
    "clue17_royle.txt",
    "top1465.txt",
    "forum_hardest_1106.txt",
    "forum_hardest_1905_11plus.txt",
]


@dataclass
class Run:
    """One measured pass over a file."""

    wall: float = 0.0
    cpu: float = 0.0
    statuses: Counter[str] = field(default_factory=Counter)
    each: list[tuple[float, str, str]] = field(default_factory=list)


def read_puzzles(name: str, limit: int | None) -> list[Puzzle]:
    path = Path(name) if Path(name).exists() else DATA / name
    lines = [
        line.strip()
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [parse(line) for line in lines[:limit]]


def run_backend(
    make: Callable[[], Backend], puzzles: list[Puzzle], unique: bool, time_limit: float | None
) -> Run:
    """Solve every puzzle with a fresh backend from ``make``."""
    run = Run()
    with make() as backend:
        for puzzle in puzzles:
            w0, c0 = time.perf_counter(), time.process_time()
            result = backend.solve(puzzle, unique=unique, time_limit=time_limit)
            w = time.perf_counter() - w0
            run.wall += w
            run.cpu += time.process_time() - c0
            run.statuses[str(result.status)] += 1
            won = [k.removeprefix("won_by_") for k in result.stats if k.startswith("won_by_")]
            run.each.append((w, str(result.status), ",".join(won)))
    return run


class _Counter(cp_model.CpSolverSolutionCallback):
    """Stops the search at the second solution (enough to decide uniqueness)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = 0

    def on_solution_callback(self) -> None:
        self.found += 1
        if self.found >= 2:
            self.stop_search()


def run_reuse(strategy: str, kind: ModelKind, puzzles: list[Puzzle]) -> Run:
    """Prepare each puzzle's model by ``strategy``, then solve it as the backend does."""
    params = cmh.SatParameters()
    for key, value in {**COMMON, **TUNED[kind]}.items():
        setattr(params, key, value)
    params.num_workers = 1
    params.enumerate_all_solutions = True
    rules = rules_model(puzzles[0].geometry, kind)
    run = Run()
    for puzzle in puzzles:
        w0, c0 = time.perf_counter(), time.process_time()
        if strategy == "rebuild":
            proto = build_model(puzzle, kind).proto
        elif strategy == "clone":
            proto = rules.clone().proto
            set_domains(proto, given_domains(puzzle, kind))
        elif strategy == "copy_from":
            proto = cmh.CpModelProto()
            proto.copy_from(rules.proto)
            set_domains(proto, given_domains(puzzle, kind))
        else:  # in place
            proto = rules.proto
            set_domains(proto, given_domains(puzzle, kind))
        wrapper = cmh.SolveWrapper()
        wrapper.set_parameters(params)
        counter = _Counter()
        wrapper.add_solution_callback(counter)
        response = wrapper.solve(proto)
        wrapper.clear_solution_callback(counter)
        if strategy == "in place":
            set_domains(proto, free_domains(puzzle, kind))
        run.wall += time.perf_counter() - w0
        run.cpu += time.process_time() - c0
        unique = response.status == cmh.CpSolverStatus.OPTIMAL and counter.found == 1
        run.statuses["unique" if unique else "other"] += 1
    return run


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def rows_for(args: argparse.Namespace) -> tuple[list[str], str, Callable[..., Run]]:
    """The labelled rows of the chosen measurement, the baseline label, and the runner."""
    unique = not args.no_unique
    if args.reuse:
        strategies = ["rebuild", "clone", "copy_from", "in place"]
        labels = [f"{kind} {s}" for kind in KINDS for s in strategies]

        def reuse(label: str, puzzles: list[Puzzle]) -> Run:
            kind, strategy = label.split(" ", 1)
            return run_reuse(strategy, kind, puzzles)  # type: ignore[arg-type]

        return labels, "integer rebuild", reuse
    if args.ablate:
        labels = ["cpsat (tuned)"] + [f"cpsat, {k} default" for k in TUNED["boolean"]]
        labels.append("cpsat, all default")

        def ablate(label: str, puzzles: list[Puzzle]) -> Run:
            if label == "cpsat (tuned)":
                overrides = {}
            elif label == "cpsat, all default":
                overrides = dict.fromkeys(TUNED["boolean"])
            else:
                overrides = {label.split(", ")[1].removesuffix(" default"): None}
            return run_backend(
                lambda: CpSatBackend(parameters=overrides), puzzles, unique, args.time_limit
            )

        return labels, "cpsat, all default", ablate

    def spec_run(label: str, puzzles: list[Puzzle]) -> Run:
        return run_backend(lambda: create_backend(label), puzzles, unique, args.time_limit)

    return args.specs.split(","), args.baseline, spec_run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=",".join(NINE), help="comma-separated sample files")
    ap.add_argument("--specs", default="cpsat,cpsat:sample", help="comma-separated backend specs")
    ap.add_argument("--baseline", default="cpsat:sample", help="spec the ratios refer to")
    ap.add_argument("--limit", type=int, default=500, help="puzzles per file (default 500)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per row; the best is kept")
    ap.add_argument("--no-unique", action="store_true", help="skip the uniqueness check")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per puzzle")
    ap.add_argument("--per-puzzle", action="store_true", help="print every puzzle's time")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--ablate", action="store_true", help="tuned parameters one by one")
    mode.add_argument("--reuse", action="store_true", help="model preparation strategies")
    args = ap.parse_args(argv)

    labels, baseline, runner = rows_for(args)
    print(
        f"# load average at start: {load()}; cpus: {os.cpu_count()}; "
        f"unique: {not args.no_unique}; best of {args.repeat}",
        flush=True,
    )
    header = (
        f"{'file':30s} {'variant':36s} {'n':>5s} {'wall s':>8s} {'cpu s':>8s} "
        f"{'puzzles/s':>10s} {'x base':>7s}  statuses"
    )
    print(header)
    print("-" * len(header))
    for name in args.files.split(","):
        puzzles = read_puzzles(name, args.limit)
        best: dict[str, Run] = {}
        for _ in range(args.repeat):
            for label in labels:
                run = runner(label, puzzles)
                if label not in best or run.wall < best[label].wall:
                    best[label] = run
        base = best.get(baseline)
        for label in labels:
            run = best[label]
            ratio = f"{base.wall / run.wall:7.2f}" if base else f"{'':>7s}"
            summary = " ".join(f"{k}={v}" for k, v in sorted(run.statuses.items()))
            print(
                f"{Path(name).name:30s} {label:36s} {len(puzzles):5d} {run.wall:8.2f} "
                f"{run.cpu:8.2f} {len(puzzles) / run.wall:10.1f} {ratio}  {summary}",
                flush=True,
            )
            if args.per_puzzle:
                for k, (seconds, status, won) in enumerate(run.each):
                    extra = f" (won by {won})" if won else ""
                    print(f"    #{k + 1:<3d} {seconds:8.2f} s  {status}{extra}")
    print(f"# load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
