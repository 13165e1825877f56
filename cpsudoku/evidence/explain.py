"""Why a puzzle fails: a minimal set of rules and givens that contradict each other.

An unsolvable puzzle gets a *minimal unsatisfiable subset* over groups: each rule
(constraint), each extra region, and each given is a group; the rows, columns and
boxes (or jigsaw regions) are the grid itself and always kept. The groups are
switched on by assumptions of one live SAT solver (each rule's clauses behind a
selector literal, each given an assumed literal), the solver's core of a failed call
is the first subset, and deletion shrinks it: a member whose removal leaves the rest
still contradictory goes, so removing any member of what is left makes the puzzle
solvable. When no given is needed, the rules alone contradict each other.

A puzzle with several solutions is explained by two of them and the cells where they
differ; a unique one by its solution (and, asked for, a certificate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cpsudoku.encode.cnf import constraint_clauses, rule_clauses
from cpsudoku.model.constraints import cell_name
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules

#: The python-sat solver used (assumptions and cores).
SOLVER = "glucose4"


@dataclass(frozen=True)
class Explanation:
    """What explains a puzzle's outcome.

    Attributes:
        puzzle: the puzzle.
        status: ``unsolvable``, ``multiple``, ``unique``, or ``timeout``.
        rules: with ``unsolvable``, the indices (into ``puzzle.rules.constraints``) of
            the rules in the minimal conflict.
        regions: with ``unsolvable``, the indices (into ``puzzle.rules.extra``) of the
            extra regions in it.
        givens: with ``unsolvable``, the cells of the givens in it.
        solutions: with ``multiple``, two solutions; with ``unique``, the one.
        differ: with ``multiple``, the cells where the two solutions differ.
        calls: SAT calls made.
        seconds: wall time.
    """

    puzzle: Puzzle
    status: Status
    rules: tuple[int, ...] = ()
    regions: tuple[int, ...] = ()
    givens: tuple[int, ...] = ()
    solutions: tuple[Puzzle, ...] = ()
    differ: tuple[int, ...] = ()
    calls: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())

    @property
    def rules_alone(self) -> bool:
        """True when the conflict needs no given: the rules contradict each other."""
        return self.status is Status.UNSOLVABLE and not self.givens

    @property
    def cells(self) -> frozenset[int]:
        """Every cell the explanation points at (to draw highlighted)."""
        p = self.puzzle
        out = set(self.givens) | set(self.differ)
        n = p.n
        for j in self.rules:
            c = p.rules.constraints[j]
            if len(c.cells) < n * n:
                out.update(c.cells)
        for k in self.regions:
            out.update(p.rules.extra[k].cells)
        return frozenset(out)

    def lines(self) -> list[str]:
        """The explanation in words, a line each."""
        p = self.puzzle
        n = p.n
        if self.status is Status.UNSOLVABLE:
            head = (
                "the rules contradict each other: no grid keeps them, whatever the givens"
                if self.rules_alone
                else "no solution: these rules and givens contradict each other (a minimal "
                "set: without any one of them the rest have a solution)"
            )
            out = [head]
            out += [f"rule: {p.rules.constraints[j].describe(n)}" for j in self.rules]
            for k in self.regions:
                region = p.rules.extra[k]
                out.append(
                    f"region: {region.kind} {'-'.join(cell_name(i, n) for i in region.cells)}"
                )
            out += [f"given: {cell_name(i, n)} = {p.rules.symbol(p.cells[i])}" for i in self.givens]
            return out
        if self.status is Status.MULTIPLE:
            where = ", ".join(cell_name(i, n) for i in self.differ)
            return [
                f"several solutions: two of them differ in {len(self.differ)} cells: {where}",
                f"first:  {self.solutions[0]}",
                f"second: {self.solutions[1]}",
            ]
        if self.status is Status.UNIQUE:
            return [f"unique: the only solution is {self.solutions[0]}"]
        return [f"{self.status}: no answer within the time limit"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        n = self.puzzle.n
        out: dict[str, Any] = {"status": str(self.status), "seconds": round(self.seconds, 6)}
        if self.status is Status.UNSOLVABLE:
            out["rules_alone"] = self.rules_alone
            out["rules"] = [self.puzzle.rules.constraints[j].spec() for j in self.rules]
            out["regions"] = [
                {"kind": r.kind, "cells": [cell_name(i, n) for i in r.cells]}
                for r in (self.puzzle.rules.extra[k] for k in self.regions)
            ]
            out["givens"] = [cell_name(i, n) for i in self.givens]
        if self.solutions:
            out["solutions"] = [str(s) for s in self.solutions]
        if self.differ:
            out["differ"] = [cell_name(i, n) for i in self.differ]
        return out


def explain(puzzle: PuzzleLike, *, time_limit: float | None = None) -> Explanation:
    """Why ``puzzle`` is unsolvable (a minimal conflict), not unique, or unique.

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash in a unit (the error
            names them: that is their explanation).
    """
    start = time.perf_counter()
    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    p.check()
    deadline = None if time_limit is None else start + time_limit

    def made(status: Status, **parts: Any) -> Explanation:
        return Explanation(
            p, status, calls=groups.calls, seconds=time.perf_counter() - start, **parts
        )

    with _Groups(p) as groups:
        found = groups.solutions(deadline)
        if found is None:
            return Explanation(
                p, Status.TIMEOUT, calls=groups.calls, seconds=time.perf_counter() - start
            )
        if len(found) >= 2:
            a, b = found[0], found[1]
            differ = tuple(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
            sols = (Puzzle(p.rules, a), Puzzle(p.rules, b))
            return Explanation(
                p,
                Status.MULTIPLE,
                solutions=sols,
                differ=differ,
                calls=groups.calls,
                seconds=time.perf_counter() - start,
            )
        if found:
            return Explanation(
                p,
                Status.UNIQUE,
                solutions=(Puzzle(p.rules, found[0]),),
                calls=groups.calls,
                seconds=time.perf_counter() - start,
            )
        core = groups.minimal(deadline)
        if core is None:
            return Explanation(
                p, Status.TIMEOUT, calls=groups.calls, seconds=time.perf_counter() - start
            )
        rules = tuple(sorted(j for kind, j in core if kind == "rule"))
        regions = tuple(sorted(k for kind, k in core if kind == "region"))
        givens = tuple(sorted(i for kind, i in core if kind == "given"))
        return Explanation(
            p,
            Status.UNSOLVABLE,
            rules,
            regions,
            givens,
            calls=groups.calls,
            seconds=time.perf_counter() - start,
        )


class _Groups:
    """One live solver of the grid, each rule, region and given behind a literal."""

    def __init__(self, p: Puzzle) -> None:
        from pysat.solvers import Solver

        from cpsudoku.engines.interrupts import SatInterrupts

        self.p = p
        rules = p.rules
        n = rules.n
        grid = Rules(rules.size, rules.box, rules.regions)
        base = rule_clauses(grid)
        clauses: list[tuple[int, ...]] = list(base.clauses)
        top = max(base.top, n * rules.cells)
        self.literal: dict[tuple[str, int], int] = {}
        for k, region in enumerate(rules.extra):
            top += 1
            self.literal["region", k] = top
            for d in range(1, n + 1):
                lits = [i * n + d for i in region.cells]
                clauses.extend((-top, -a, -b) for x, a in enumerate(lits) for b in lits[x + 1 :])
                if len(lits) == n:
                    clauses.append((-top, *lits))
        for j, c in enumerate(rules.constraints):
            top += 1
            guard = top
            self.literal["rule", j] = guard
            top = constraint_clauses([c], rules, top, clauses, guard=guard)
        for i, v in enumerate(p.cells):
            if v:
                self.literal["given", i] = i * n + v
        self.solver = Solver(name=SOLVER, bootstrap_with=clauses)
        self._interrupts = SatInterrupts(self.solver)
        self.calls = 0

    def __enter__(self) -> _Groups:
        self._interrupts.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._interrupts.__exit__(*exc)  # type: ignore[arg-type]
        self.solver.delete()

    def _solve(self, assumptions: list[int], deadline: float | None) -> bool | None:
        """One call: True, False, or None when the deadline passed."""
        self.calls += 1
        if deadline is None:
            return bool(self.solver.solve(assumptions=assumptions))
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        from cpsudoku.engines.interrupts import StopAt

        try:
            with StopAt(self.solver.interrupt, left):
                found = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            self.solver.clear_interrupt()
        return None if found is None else bool(found)

    def solutions(self, deadline: float | None) -> list[tuple[int, ...]] | None:
        """Up to two solutions with every group on (None: out of time)."""
        n = self.p.n
        cells = self.p.rules.cells
        assumptions = list(self.literal.values())
        found: list[tuple[int, ...]] = []
        block = 0
        while len(found) < 2:
            answer = self._solve(assumptions + ([block] if block else []), deadline)
            if answer is None:
                return None
            if not answer:
                break
            model = self.solver.get_model()
            grid = tuple(
                next(d for d in range(1, n + 1) if model[i * n + d - 1] > 0) for i in range(cells)
            )
            found.append(grid)
            top = self.solver.nof_vars() + 1
            block = top  # the second call, behind a fresh literal: any other grid
            self.solver.add_clause(
                [-block, *(-(i * n + v) for i, v in enumerate(grid) if not self.p.cells[i])]
            )
        if block:
            self.solver.add_clause([-block])  # retire it
        return found

    def minimal(self, deadline: float | None) -> list[tuple[str, int]] | None:
        """A minimal set of groups that contradict each other (None: out of time)."""
        by_literal = {lit: key for key, lit in self.literal.items()}
        core = [by_literal[x] for x in (self.solver.get_core() or []) if x in by_literal]
        # Rules first, then regions, then givens: what is kept the longest is tried last.
        order = {"rule": 0, "region": 1, "given": 2}
        core.sort(key=lambda key: (order[key[0]], key[1]))
        k = 0
        while k < len(core):
            trial = core[:k] + core[k + 1 :]
            answer = self._solve([self.literal[key] for key in trial], deadline)
            if answer is None:
                return None
            if answer:
                k += 1  # needed
                continue
            smaller = {by_literal[x] for x in (self.solver.get_core() or []) if x in by_literal}
            core = [key for key in trial if key in smaller]
        return core
