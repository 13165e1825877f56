"""Throughput of the CP-SAT backend variants (and the portfolio) on bundled samples.

Three measurements, each printed as a table:

- default: puzzles/s of backend specs on sample files, and the ratio to a baseline
  spec (``cpsat:sample``, the OR-Tools sample approach) measured in the same run;
- ``--ablate``: the default ``cpsat`` backend with each tuned CP-SAT parameter put back
  to CP-SAT's own default, one at a time, and with all of them put back;
- ``--reuse``: ways to prepare each puzzle's model (rebuild it, ``CpModel.clone()``,
  ``copy_from`` of the rules' proto, narrowing the givens' domains in place on one
  shared proto, or, in the Boolean model, the givens as assumptions on it), all solved
  the same way.

The rows take turns chunk by chunk (``--chunk`` puzzles), each chunk is run
``--repeat`` times over the whole file, and each chunk's best run counts: the machine
may be shared, so a burst of load should hit every row alike and the best of the
repeats filters most of it out; the load average is printed too. One backend per row
lives for the whole file (its cached rules and worker processes included). Only
solving is timed (parsing is done before), wall clock; the CPU column is this
process's CPU time (the portfolio's worker processes are not in it).

Examples::

    python benchmarks/cpsat_speed.py                      # 9x9 samples, cpsat vs sample
    python benchmarks/cpsat_speed.py --files clue17_royle.txt,forum_hardest_1905_11plus.txt \\
        --specs cpsat,cpsat:integer,cpsat:exclude,cpsat:sample
    python benchmarks/cpsat_speed.py --ablate --files clue17_royle.txt
    python benchmarks/cpsat_speed.py --reuse --files clue17_royle.txt
    python benchmarks/cpsat_speed.py --files 25x25_frisch.txt --specs cpsat,portfolio \\
        --per-puzzle --repeat 1 --chunk 1
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

from cpsudoku.encode.cpsat import (
    KINDS,
    ModelKind,
    build_model,
    free_domains,
    given_domains,
    given_literals,
    rules_model,
    set_domains,
)
from cpsudoku.engines import create_backend
from cpsudoku.engines.base import Backend
from cpsudoku.engines.cpsat import COMMON, TUNED, CpSatBackend
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle

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
    backend: Backend, puzzles: list[Puzzle], unique: bool, time_limit: float | None
) -> Run:
    """Solve every puzzle with ``backend``."""
    run = Run()
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


class Pool:
    """One live backend per row label, created on first use, all closed by :meth:`close`."""

    def __init__(self, make: Callable[[str], Backend]) -> None:
        self.make = make
        self.live: dict[str, Backend] = {}

    def get(self, label: str) -> Backend:
        if label not in self.live:
            self.live[label] = self.make(label)
        return self.live[label]

    def close(self) -> None:
        for backend in self.live.values():
            backend.close()
        self.live.clear()


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
    rules = rules_model(puzzles[0].rules, kind)
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
        elif strategy == "assumptions":
            proto = rules.proto
            proto.assumptions.extend(given_literals(puzzle))
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
        elif strategy == "assumptions":
            proto.assumptions.clear()
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


def rows_for(args: argparse.Namespace, pool: Pool) -> tuple[list[str], str, Callable[..., Run]]:
    """The labelled rows of the chosen measurement, the baseline label, and the runner."""
    unique = not args.no_unique
    if args.reuse:
        strategies = ["rebuild", "clone", "copy_from", "in place"]
        labels = [f"{kind} {s}" for kind in KINDS for s in strategies]
        labels.append("boolean assumptions")  # assumptions are literals: Boolean model only

        def reuse(label: str, puzzles: list[Puzzle]) -> Run:
            kind, strategy = label.split(" ", 1)
            return run_reuse(strategy, kind, puzzles)  # type: ignore[arg-type]

        return labels, "integer rebuild", reuse
    if args.ablate:
        labels = ["cpsat (tuned)"] + [f"cpsat, {k} default" for k in TUNED["boolean"]]
        labels.append("cpsat, all default")

        def make(label: str) -> Backend:
            if label == "cpsat (tuned)":
                return CpSatBackend()
            if label == "cpsat, all default":
                return CpSatBackend(parameters=dict.fromkeys(TUNED["boolean"]))
            return CpSatBackend(parameters={label.split(", ")[1].removesuffix(" default"): None})

        pool.make = make
        baseline = "cpsat, all default"
    else:
        pool.make = create_backend
        labels, baseline = args.specs.split(","), args.baseline

    def run(label: str, puzzles: list[Puzzle]) -> Run:
        return run_backend(pool.get(label), puzzles, unique, args.time_limit)

    return labels, baseline, run


def measure(
    labels: list[str], runner: Callable[..., Run], puzzles: list[Puzzle], args: argparse.Namespace
) -> dict[str, Run]:
    """Per label, the sum over chunks of each chunk's best run of ``args.repeat``.

    The rows take turns chunk by chunk, and the repeats come one after the other over
    the whole file, so a burst of load on a shared machine hits every row alike and is
    mostly filtered out by the per-chunk best.
    """
    chunks = [puzzles[k : k + args.chunk] for k in range(0, len(puzzles), args.chunk)]
    best: dict[tuple[str, int], Run] = {}
    for _ in range(args.repeat):
        for c, chunk in enumerate(chunks):
            for label in labels:
                run = runner(label, chunk)
                if (label, c) not in best or run.wall < best[label, c].wall:
                    best[label, c] = run
    totals = {}
    for label in labels:
        total = Run()
        for c in range(len(chunks)):
            part = best[label, c]
            total.wall += part.wall
            total.cpu += part.cpu
            total.statuses.update(part.statuses)
            total.each.extend(part.each)
        totals[label] = total
    return totals


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=",".join(NINE), help="comma-separated sample files")
    ap.add_argument("--specs", default="cpsat,cpsat:sample", help="comma-separated backend specs")
    ap.add_argument("--baseline", default="cpsat:sample", help="spec the ratios refer to")
    ap.add_argument("--limit", type=int, default=500, help="puzzles per file (default 500)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per chunk; the best is kept")
    ap.add_argument("--chunk", type=int, default=25, help="puzzles per turn of a row")
    ap.add_argument("--no-unique", action="store_true", help="skip the uniqueness check")
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per puzzle")
    ap.add_argument("--per-puzzle", action="store_true", help="print every puzzle's time")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--ablate", action="store_true", help="tuned parameters one by one")
    mode.add_argument("--reuse", action="store_true", help="model preparation strategies")
    args = ap.parse_args(argv)

    pool = Pool(create_backend)
    labels, baseline, runner = rows_for(args, pool)
    print(
        f"# load average at start: {load()}; cpus: {os.cpu_count()}; "
        f"unique: {not args.no_unique}; best of {args.repeat} per chunk of {args.chunk}",
        flush=True,
    )
    header = (
        f"{'file':30s} {'variant':36s} {'n':>5s} {'wall s':>8s} {'cpu s':>8s} "
        f"{'puzzles/s':>10s} {'x base':>7s}  statuses"
    )
    print(header)
    print("-" * len(header))
    try:
        for name in args.files.split(","):
            puzzles = read_puzzles(name, args.limit)
            best = measure(labels, runner, puzzles, args)
            pool.close()  # fresh backends (and worker processes) for the next file
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
    finally:
        pool.close()
    print(f"# load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
