"""The benchmark run: every engine over the same puzzles, and the check that they agree."""

from __future__ import annotations

import gc
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cpsudoku.bench.manifest import Dataset
from cpsudoku.bench.runners import ANSWERS, SKIPPED, Measurement, make_runner
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.result import Status
from cpsudoku.model.words import count_of


@dataclass(slots=True)
class BenchRun:
    """Everything one run measured."""

    datasets: list[Dataset]
    engines: list[str]
    time_limit: float
    measurements: list[Measurement] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_bench(
    datasets: Sequence[Dataset],
    engines: Sequence[str],
    *,
    limit: int | None,
    time_limit: float,
    give_up: int = 2,
    log: Callable[[str], None] = lambda _: None,
    on_puzzle: Callable[[str, str, int, int], None] | None = None,
) -> BenchRun:
    """Run every engine on every dataset; compare answers; return the measurements.

    An engine stops on a dataset after ``give_up`` timeouts (the rest of it is
    ``skipped``, counted as timeouts in PAR-2) and is not run on the later, harder
    datasets with grids at least as large. ``on_puzzle`` is called with (dataset,
    engine, puzzles done, puzzles in all) as each engine starts a dataset and after
    each puzzle, for a progress line.
    """
    runners = {spec: make_runner(spec, give_up) for spec in engines}
    run = BenchRun(list(datasets), list(engines), time_limit)
    gave_up: dict[str, int] = {}  # engine -> grid side from which it is skipped
    start = time.perf_counter()
    for ds in datasets:
        puzzles = ds.puzzles(limit)
        if not puzzles:
            log(f"{ds.name}: no puzzles, skipped")
            continue
        side = _side(puzzles[0])
        per_puzzle: dict[int, list[Measurement]] = defaultdict(list)
        for spec in engines:
            # The garbage of the runs before, collected now: a collection its own
            # allocations did not bring on would be charged to this run's first puzzles
            # (one of 250-330 us fell on the first of 20 classic puzzles, 30 us each).
            gc.collect()
            t0 = time.perf_counter()
            if spec in gave_up and side >= gave_up[spec]:
                rows = [
                    Measurement(ds.name, spec, i, p, SKIPPED, 0.0) for i, p in enumerate(puzzles)
                ]
            elif on_puzzle is None:
                rows = list(runners[spec](puzzles, time_limit, ds.name))
            else:
                on_puzzle(ds.name, spec, 0, len(puzzles))
                rows = []
                for m in runners[spec](puzzles, time_limit, ds.name):
                    rows.append(m)
                    on_puzzle(ds.name, spec, len(rows), len(puzzles))
            # Given up (timeouts, then the rest skipped), not refused (rules it lacks):
            # only giving up skips the engine on the later datasets.
            if sum(m.status == Status.TIMEOUT.value for m in rows) >= give_up and any(
                m.status == SKIPPED for m in rows
            ):
                gave_up[spec] = min(side, gave_up.get(spec, side))
            for m in rows:
                per_puzzle[m.index].append(m)
            run.measurements.extend(rows)
            done = sum(m.status != SKIPPED for m in rows)
            log(
                f"{ds.name:<26} {spec:<28} {done:>5}/{count_of(len(puzzles), 'puzzle')} "
                f"in {time.perf_counter() - t0:7.2f} s"
            )
        for index, group in per_puzzle.items():
            message = _disagreement(group)
            if message:
                for m in group:
                    m.agree = False
                run.disagreements.append(f"{ds.name} #{index}: {message}")
                log(f"DISAGREEMENT {ds.name} #{index}: {message}")
    run.seconds = time.perf_counter() - start
    return run


def _side(text: str) -> int:
    try:
        return parse(text, check=False).n
    except PuzzleError:
        return 0


def _disagreement(group: Sequence[Measurement]) -> str | None:
    """Describe how the definite answers of several engines on one puzzle differ."""
    answers = [m for m in group if m.status in ANSWERS and m.engine != "logic"]
    statuses = {m.status for m in answers}
    if len(statuses) > 1:
        return ", ".join(f"{m.engine} says {m.status}" for m in answers)
    uniques = {m.solution for m in answers if m.status == Status.UNIQUE.value}
    if len(uniques) > 1:
        return "engines give different solutions to a unique puzzle"
    return None


# ---------------------------------------------------------------- reports


def log_to_stderr(message: str) -> None:
    """Progress lines of a run."""
    print(message, file=sys.stderr, flush=True)
