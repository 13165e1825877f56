"""Per-dataset, per-engine statistics of a benchmark run (the cells of its tables)."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from cpsudoku.bench.harness import BenchRun
from cpsudoku.bench.runners import ANSWERS, SKIPPED, Measurement
from cpsudoku.model.result import Status


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass(slots=True)
class Cell:
    """Summary of one engine on one dataset."""

    dataset: str
    engine: str
    total: int
    run: int
    solved: int
    unique: int
    timeouts: int
    seconds: float
    median_ms: float
    p90_ms: float
    max_ms: float
    par2: float
    no_guess: float | None
    guesses: float | None

    @property
    def rate(self) -> float:
        """Puzzles per second over the puzzles run (nan when none ran)."""
        if not self.run:
            return math.nan
        return self.run / self.seconds if self.seconds > 0 else math.inf

    @property
    def micros(self) -> float:
        """Mean µs per puzzle run."""
        return 1e6 * self.seconds / self.run if self.run else math.nan


def summarize(run: BenchRun) -> list[Cell]:
    """One :class:`Cell` per dataset x engine, in run order."""
    groups: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for m in run.measurements:
        groups[m.dataset, m.engine].append(m)
    cells = []
    for (dataset, engine), rows in groups.items():
        ran = [m for m in rows if m.status != SKIPPED]
        times = [m.seconds for m in ran]
        finished = [m.seconds for m in ran if m.status != Status.TIMEOUT.value]
        failed = sum(m.status in (Status.TIMEOUT.value, SKIPPED) for m in rows)
        par2 = (sum(finished) + failed * 2 * run.time_limit) / len(rows)
        guessing = [m.stats["guesses"] for m in ran if "guesses" in m.stats]
        cells.append(
            Cell(
                dataset,
                engine,
                len(rows),
                len(ran),
                sum(Status(m.status).has_solution for m in ran if m.status in ANSWERS),
                sum(m.status == Status.UNIQUE.value for m in ran),
                sum(m.status == Status.TIMEOUT.value for m in ran),
                sum(times),
                1000 * statistics.median(times) if times else math.nan,
                1000 * _percentile(times, 0.9),
                1000 * max(times) if times else math.nan,
                par2,
                (sum(g == 0 for g in guessing) / len(guessing)) if guessing else None,
                (sum(guessing) / len(guessing)) if guessing else None,
            )
        )
    return cells
