"""Clues read along a line (X-sums, skyscrapers, hidden skyscrapers, numbered rooms,
lunchboxes): what each costs each engine, and the lunchbox's two forms side by side.

Puzzles are made here: a grid filled at random, every clue of the family read off it
(side clues: all 4n of them; lunchboxes: one random stretch of 3 to n-1 cells in each
row and each column), then givens removed one by one while ``sat`` proves the puzzle
still unique (0.5 s a check). Each engine then solves each puzzle (uniqueness), the
answer checked against the grid; per engine the median and the largest time, and the
size of the CNF the rules write (clauses, auxiliary variables).

The lunchbox compiles to one automaton whose states carry the extremes so far and two
sums (``lunchbox``); the alternative measured here (``lunchbox:choice``) is a choice
over the values of the smallest and the largest digit, each branch the cells' values
kept between them and a small automaton summing between the two.

    python benchmarks/outside_clues.py -n 10 --size 9
    python benchmarks/outside_clues.py -n 10 --size 9 --families lunchbox lunchbox:choice
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cpsudoku.encode.cnf import constraint_clauses
from cpsudoku.engines import create_backend
from cpsudoku.generate.grids import random_fill
from cpsudoku.generate.variants import remove_clues
from cpsudoku.model.constraints import Constraint, Lunchbox, constraint_from_spec
from cpsudoku.model.constraints.outside import line_cells
from cpsudoku.model.primitives import Allowed, Automaton, Choice, Distinct, Primitive, automaton
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

FAMILIES = (
    "x-sum",
    "skyscraper",
    "hidden-skyscraper",
    "numbered-room",
    "lunchbox",
    "lunchbox:choice",
)


@dataclass(frozen=True, slots=True)
class ChoiceLunchbox(Lunchbox):
    """The lunchbox as a choice over its smallest and largest digit (measured, not used)."""

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """Different digits; one branch per (smallest, largest) pair of values."""
        k = len(self.cells)
        branches = []
        for lo in range(1, n + 1):
            for hi in range(lo + k - 1, n + 1):
                ends = _ends(self.cells, n, lo, hi, self.total)
                if ends.accepting:  # else no line makes the sum between these two
                    mask = sum(1 << (d - 1) for d in range(lo, hi + 1))
                    branches.append((Allowed(self.cells, (mask,) * k), ends))
        return (Distinct(self.cells), Choice(tuple(branches)))


@lru_cache(maxsize=4096)
def _ends(cells: tuple[int, ...], n: int, lo: int, hi: int, total: int) -> Automaton:
    """A sandwich between ``lo`` and ``hi``: before, between (summing), after."""

    def step(state: Any, d: int) -> Hashable | None:
        if state[0] == "before":
            if d in (lo, hi):
                return ("between", 0, lo + hi - d)
            return state
        if state[0] == "between":
            if d == state[2]:
                return ("after",) if state[1] == total else None
            if d in (lo, hi) or state[1] + d > total:
                return None
            return ("between", state[1] + d, state[2])
        return None if d in (lo, hi) else state

    return automaton(cells, n, ("before",), step, lambda state: state[0] == "after")  # type: ignore[index,no-any-return]


def clues(family: str, grid: list[int], n: int, rng: random.Random) -> list[Constraint]:
    """Every clue of ``family`` read off ``grid``."""
    out: list[Constraint] = []
    kind = family.split(":")[0]
    for line in ("row", "column"):
        for index in range(n):
            cells = line_cells(n, line, index)
            if kind == "lunchbox":
                size = rng.randint(3, n - 1)
                start = rng.randint(0, n - size)
                part = list(cells[start : start + size])
                values = [grid[i] for i in part]
                a, b = sorted((values.index(min(values)), values.index(max(values))))
                spec = {"kind": "lunchbox", "cells": part, "sum": sum(values[a + 1 : b])}
                rule = constraint_from_spec(spec, n)
                if family == "lunchbox:choice":
                    rule = ChoiceLunchbox(rule.cells, rule.total)  # type: ignore[attr-defined]
                out.append(rule)
                continue
            for reverse in (False, True):
                values = [grid[i] for i in (cells[::-1] if reverse else cells)]
                spec = {"kind": kind, line: index + 1, "reverse": reverse}
                if kind == "x-sum":
                    spec["sum"] = sum(values[: values[0]])
                elif kind == "skyscraper":
                    spec["count"] = sum(
                        1 for k, v in enumerate(values) if all(v > u for u in values[:k])
                    )
                elif kind == "hidden-skyscraper":
                    hidden = [v for k, v in enumerate(values) if any(u > v for u in values[:k])]
                    if not hidden:
                        continue
                    spec["digit"] = hidden[0]
                else:
                    spec["digit"] = values[values[0] - 1]
                out.append(constraint_from_spec(spec, n))
    return out


def puzzles(family: str, n: int, count: int, seed: int) -> list[tuple[Puzzle, tuple[int, ...]]]:
    """``count`` puzzles of ``family`` on a side of ``n``, each unique, with its grid."""
    rng = random.Random(seed)
    base = Rules.for_size(n)
    out = []
    with create_backend("sat") as engine:
        while len(out) < count:
            grid = random_fill(base, rng)
            if grid is None:
                continue
            rules = base.with_constraints(*clues(family, grid, n, rng))
            order = list(range(n * n))
            rng.shuffle(order)
            cells, _ = remove_clues(rules, tuple(grid), order, engine, 0.5)
            out.append((Puzzle(rules, tuple(cells)), tuple(grid)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="puzzles per family")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument(
        "--backends", nargs="+", default=["sat", "cpsat", "cpsat:exclude", "backtrack"]
    )
    parser.add_argument("--time-limit", type=float, default=20.0)
    args = parser.parse_args()
    for family in args.families:
        made = time.perf_counter()
        cases = puzzles(family, args.size, args.n, args.seed)
        made = time.perf_counter() - made
        sizes = []
        for puzzle, _ in cases:
            out: list[tuple[int, ...]] = []
            top = constraint_clauses(puzzle.rules.constraints, puzzle.rules, args.size**3, out)
            sizes.append((len(out), top - args.size**3))
        givens = statistics.median(sum(1 for v in p.cells if v) for p, _ in cases)
        print(
            f"{family} {args.size}x{args.size}: {len(cases)} puzzles (made in {made:.1f} s), "
            f"median {givens:g} givens, clauses {statistics.median(s[0] for s in sizes):g}, "
            f"auxiliary variables {statistics.median(s[1] for s in sizes):g}"
        )
        for spec in args.backends:
            times, failed = [], 0
            with create_backend(spec) as engine:
                for puzzle, grid in cases:
                    start = time.perf_counter()
                    result = engine.solve(puzzle, time_limit=args.time_limit)
                    times.append(time.perf_counter() - start)
                    solved = result.solution is not None and result.solution.cells == grid
                    failed += not (solved and result.status == "unique")
            print(
                f"  {spec:14s} median {1000 * statistics.median(times):8.1f} ms, "
                f"max {1000 * max(times):8.1f} ms, not unique in time: {failed}"
            )


if __name__ == "__main__":
    main()
