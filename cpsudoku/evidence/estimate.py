"""Estimate a puzzle's number of solutions when there are too many to count.

Knuth's estimator (D. E. Knuth, "Estimating the efficiency of backtrack programs",
Mathematics of Computation 29, 1975) over the reference oracle's search tree: a probe
walks from the root to a leaf, each node propagated as the oracle propagates it
(naked and hidden singles, then each rule's narrowing, to a fixpoint: the oracle's
loop, written out here over the shared kernel of :mod:`cpsudoku.model.candidates`), branching on
the open cell with the fewest candidates and taking one of its ``k`` values at random.
The probe's value is the product of the ``k`` met on the way when the leaf is a
solution, and 0 when it is a contradiction. Every solution is exactly one leaf of
that tree, and the probe reaches a leaf with probability the inverse of that
product, so the probe's value is an unbiased estimate of the number of solutions.

The mean of ``N`` independent probes estimates it with variance ``s**2 / N`` (``s``
the probes' sample standard deviation): the estimate's standard error is
``s / sqrt(N)``, its 95% confidence interval ``mean +- 1.96 * stderr`` by the normal
approximation of the mean (valid for large ``N``; the probes' own distribution is
skewed, with rare large values, so an early interval can be too narrow), its lower
end never below 0. A puzzle without solutions gives 0 on every probe (stderr 0); a
puzzle the propagation solves gives 1 on every probe.

Before probing, :func:`estimates` tries an exact count with a small limit and a small
share of the time (``exact=True``, the default): a puzzle with few solutions (a unique
one, say) then gets its exact count, stderr 0, and no probe is made.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054

#: Seconds between two estimates yielded (besides the last).
EVERY = 0.1

#: The exact count tried first: up to this many solutions ...
EXACT_LIMIT = 1000
#: ... within this many seconds (at most a quarter of the time limit).
EXACT_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Estimate:
    """An estimate of the number of solutions.

    Attributes:
        estimate: the mean of the probes (the exact count when ``iterations`` is 0).
        stderr: its standard error (0 for an exact count, or fewer than two probes).
        iterations: the probes made (0: counted exactly).
        ci95_lower: the lower end of the 95% confidence interval (at least 0).
        ci95_upper: its upper end.
        rel_err_percent: ``stderr`` as a percentage of ``estimate`` (0 when it is 0).
    """

    estimate: float
    stderr: float
    iterations: int
    ci95_lower: float
    ci95_upper: float
    rel_err_percent: float

    @property
    def exact(self) -> bool:
        """True when the number was counted, not estimated."""
        return self.iterations == 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON fields of SudokuSolver's ``estimate`` reply."""
        return {
            "estimate": self.estimate,
            "stderr": self.stderr,
            "iterations": self.iterations,
            "ci95_lower": self.ci95_lower,
            "ci95_upper": self.ci95_upper,
            "relErrPercent": self.rel_err_percent,
        }


def _exact(count: int) -> Estimate:
    c = float(count)
    return Estimate(c, 0.0, 0, c, c, 0.0)


class _Running:
    """The mean and variance of the probes so far (Welford's update)."""

    __slots__ = ("m2", "mean", "n")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def estimate(self) -> Estimate:
        mean = self.mean
        stderr = math.sqrt(self.m2 / (self.n - 1) / self.n) if self.n > 1 else 0.0
        return Estimate(
            mean,
            stderr,
            self.n,
            max(0.0, mean - Z95 * stderr),
            mean + Z95 * stderr,
            100.0 * stderr / mean if mean > 0 else 0.0,
        )


class Prober:
    """Knuth's probes down the oracle's search tree of one puzzle.

    Made once per puzzle (its layout and rules read once); each :meth:`probe` is one
    random walk from the root.
    """

    def __init__(self, puzzle: Puzzle) -> None:
        from cpsudoku.model.candidates import layout, watchers

        self.puzzle = puzzle
        self._lay = layout(puzzle.rules)
        self._constraints = puzzle.rules.primitives
        self._watch = watchers(self._constraints, puzzle.rules.cells)

    def probe(self, rnd: random.Random) -> float:
        """One probe: the product of the branching factors to a solution, or 0."""
        from cpsudoku.model.candidates import fewest, fill, propagate, singles, start

        lay = self._lay
        constraints = self._constraints
        n = lay.n
        vals, cand, used = start(lay, self.puzzle.cells, exact=False)
        weight = 1
        known: Any = "none"
        since: list[int] | None = None  # the last fixpoint's candidates (none at the root)
        while True:
            if singles(lay, vals, cand, used, known=known)[1]:
                return 0.0
            if constraints and not propagate(
                constraints, lay, vals, cand, used, n, watch=self._watch, since=since
            ):
                return 0.0
            best, best_mask = fewest(cand)
            if best < 0:  # no open cell left: a solution
                return float(weight)
            best_size = best_mask.bit_count()
            weight *= best_size
            pick = rnd.randrange(best_size)
            m = best_mask
            for _ in range(pick):
                m &= m - 1
            since = cand.copy()
            fill(lay, vals, cand, used, best, (m & -m).bit_length())
            known = "units"


def estimates(
    puzzle: PuzzleLike,
    *,
    seed: int | None = None,
    time_limit: float | None = None,
    iterations: int | None = None,
    exact: bool = True,
    every: float = EVERY,
) -> Iterator[Estimate]:
    """Improving estimates of the number of solutions of ``puzzle``.

    Yields an :class:`Estimate` every ``every`` seconds of probing, and a last one
    when ``iterations`` probes are made or ``time_limit`` seconds have passed; with
    neither it goes on until the caller stops iterating (as SudokuSolver's estimate
    runs until cancelled). With ``exact`` an exact count is tried first (up to
    :data:`EXACT_LIMIT` solutions, within :data:`EXACT_SECONDS` or a quarter of the
    time limit); when it settles, that count is the one estimate yielded. ``seed``
    makes the probes repeatable.

    >>> [e.estimate for e in estimates("1234341221434321")]
    [1.0]

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash.
        ValueError: a negative time limit or iterations below 1.
    """
    from cpsudoku.engines import create_backend

    start = time.perf_counter()
    if time_limit is not None and not (time_limit >= 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a finite number of seconds, got {time_limit!r}")
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
    ):
        raise ValueError(f"iterations must be a whole number of at least 1, got {iterations!r}")
    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    p.check()
    deadline = None if time_limit is None else start + time_limit
    if exact:
        budget = EXACT_SECONDS if time_limit is None else min(EXACT_SECONDS, time_limit / 4)
        if budget > 0:
            counted = create_backend("backtrack").count(p, limit=EXACT_LIMIT, time_limit=budget)
            if counted.complete:
                yield _exact(counted.count)
                return
    rnd = random.Random(seed)
    prober = Prober(p)
    running = _Running()
    shown = time.perf_counter()
    while True:
        running.add(prober.probe(rnd))
        now = time.perf_counter()
        if (iterations is not None and running.n >= iterations) or (
            deadline is not None and now >= deadline
        ):
            yield running.estimate()
            return
        if now - shown >= every:
            shown = now
            yield running.estimate()


def estimate(
    puzzle: PuzzleLike,
    *,
    seed: int | None = None,
    time_limit: float | None = None,
    iterations: int | None = None,
    exact: bool = True,
) -> Estimate:
    """The last of :func:`estimates` (``time_limit`` or ``iterations`` required).

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash.
        ValueError: neither a time limit nor iterations, or a bad one.
    """
    if time_limit is None and iterations is None:
        raise ValueError("an estimate needs a time limit or a number of iterations")
    *_, last = estimates(
        puzzle, seed=seed, time_limit=time_limit, iterations=iterations, exact=exact
    )
    return last
