"""True candidates: for each cell, the values that occur in at least one solution.

Setters' tools show exactly this: the pencilmarks no deduction can remove, because a
solution holds each of them. A unique puzzle has one true candidate per cell; a puzzle
with several solutions shows where its ambiguity lies (the cells with two or more).

Found by incremental SAT under assumptions: one solver holds the puzzle with its givens
folded in (:func:`cpsudoku.encode.cnf.reduced`); every model found marks all its cell
values as true candidates, so a value is asked about (one call, assuming it) only when
no solution found so far holds it. A refuted value becomes a unit clause, which helps
the later calls.

Any other engine (``backend="cpsat"``, ``"native"``...) answers the same questions
one solve each: the puzzle with the value asked about placed as one more given,
each solution found marking all its values. Slower, and a cross-check of the SAT
answer. A time limit covers the whole; when it runs out the candidates found so
far are true ones, and :attr:`TrueCandidates.complete` says that some were not
asked about.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cpsudoku.encode.cnf import reduced
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle

#: The python-sat solver used: fast on many small calls under assumptions.
SOLVER = "minisat22"


@dataclass(frozen=True, slots=True)
class TrueCandidates:
    """The true candidates of a puzzle.

    Attributes:
        puzzle: the puzzle.
        masks: per cell, a bit mask of its true candidates (bit ``d-1`` for ``d``);
            a given's own value; all zero when the puzzle has no solution.
        calls: solver calls made (the first included).
        seconds: wall time.
        complete: False when the time limit ran out before every value was asked
            about: each mask then holds true candidates, not necessarily all.
        backend: the engine spec that answered.
    """

    puzzle: Puzzle
    masks: tuple[int, ...]
    calls: int
    seconds: float
    complete: bool = True
    backend: str = "sat"

    def values(self, cell: int) -> tuple[int, ...]:
        """The true candidates of ``cell`` (0-based, row-major), in increasing order."""
        m = self.masks[cell]
        return tuple(d for d in range(1, self.puzzle.n + 1) if m >> (d - 1) & 1)

    @property
    def solvable(self) -> bool:
        """True when the puzzle has a solution (found)."""
        return any(self.masks)

    @property
    def unique(self) -> bool:
        """True when every cell has exactly one true candidate: exactly one solution.

        Only said of a complete answer: with the time run out, other values may hold.
        """
        return self.complete and all(m and not m & (m - 1) for m in self.masks)

    @property
    def ambiguous(self) -> tuple[int, ...]:
        """The cells with two or more true candidates."""
        return tuple(i for i, m in enumerate(self.masks) if m & (m - 1))

    def pencilmarks(self) -> str:
        """A pencilmark grid: each cell's true candidates, columns aligned, boxes ruled."""
        p = self.puzzle
        n = p.n
        rules = p.rules

        def sym(v: int) -> str:
            return rules.symbol(v) if n <= 35 else f"{v},"

        texts = ["".join(sym(d) for d in self.values(i)) or "-" for i in range(rules.cells)]
        width = max(map(len, texts))
        bc = rules.box_cols if rules.has_boxes else n
        br = rules.box_rows if rules.has_boxes else n
        lines = []
        for r in range(n):
            if r and r % br == 0:
                lines.append("+".join("-" * ((width + 1) * bc + 1) for _ in range(n // bc)))
            cells = [texts[r * n + c].ljust(width) for c in range(n)]
            groups = [" " + " ".join(cells[c : c + bc]) + " " for c in range(0, n, bc)]
            lines.append("|".join(groups).rstrip())
        return "\n".join(lines)


def true_candidates(
    puzzle: PuzzleLike, *, backend: str = "sat", time_limit: float | None = None
) -> TrueCandidates:
    """The true candidates of ``puzzle``, by incremental SAT under assumptions.

    ``backend`` ``sat`` (or ``sat:SOLVER``, default :data:`SOLVER`) asks one live
    python-sat solver; any other engine spec answers by one solve per value asked
    about. ``time_limit`` (seconds) covers the whole; past it the answer has
    ``complete`` False.

    >>> tc = true_candidates("1..4.....3..2..3")
    >>> tc.unique, tc.values(1)
    (False, (2, 3))

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash.
        UnknownBackendError: an unknown engine spec.
        ValueError: a solver that cannot answer under assumptions, or an engine that
            refuses the puzzle's rules.
    """
    from cpsudoku.engines import check_spec

    start = time.perf_counter()
    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    p.check()
    check_spec(backend)
    deadline = None if time_limit is None else start + time_limit
    name, *variant = backend.split(":")
    if name == "sat":
        return _by_sat(p, _sat_solver(variant), backend, start, deadline)
    return _by_engine(p, backend, start, deadline)


def _sat_solver(variant: list[str]) -> str:
    """The python-sat solver named in a ``sat:...`` spec, or :data:`SOLVER`."""
    from cpsudoku.engines.sat import ONE_SHOT, canonical_solver

    named = [s for w in variant if (s := canonical_solver(w))]
    solver = named[-1] if named else SOLVER
    if solver in ONE_SHOT:
        raise ValueError(
            f"{solver} ignores assumptions, which true candidates ask under: "
            f"use sat, or sat:SOLVER with another solver"
        )
    return solver


def _by_sat(
    p: Puzzle, solver_name: str, spec: str, start: float, deadline: float | None
) -> TrueCandidates:
    """:func:`true_candidates` with one live python-sat solver."""
    from pysat.solvers import Solver

    from cpsudoku.engines.interrupts import SatInterrupts
    from cpsudoku.engines.sat import INTERRUPTIBLE

    n = p.n
    red = reduced(p)
    masks = [0 if v == 0 else 1 << (v - 1) for v in p.cells]
    calls = 0

    def answer(complete: bool = True, found: bool = True) -> TrueCandidates:
        out = tuple(masks) if found else (0,) * len(masks)
        return TrueCandidates(p, out, calls, time.perf_counter() - start, complete, spec)

    if any(not c for c in red.clauses):  # an open cell with no value left
        return answer(found=False)
    # Ctrl-C during a call: KeyboardInterrupt, and the solver is abandoned.
    with Solver(name=solver_name, bootstrap_with=red.clauses) as s, SatInterrupts(s):
        open_cells = [(i, lits) for i, lits in enumerate(red.candidates) if lits]

        def mark(model: list[int]) -> None:
            size = len(model)
            for i, lits in open_cells:
                for lit in lits:
                    if lit <= size and model[lit - 1] > 0:
                        masks[i] |= 1 << ((lit - 1) % n)
                        break

        def solve(assumptions: list[int]) -> bool | None:
            nonlocal calls
            calls += 1
            if deadline is None:
                return bool(s.solve(assumptions=assumptions))
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            if solver_name not in INTERRUPTIBLE:  # CaDiCaL: checked between calls
                return bool(s.solve(assumptions=assumptions))
            return _limited(s, assumptions, left)

        first = solve([])
        if first is None:
            return answer(complete=False, found=False)
        if not first:
            return answer(found=False)
        mark(s.get_model())
        for i, lits in open_cells:
            for lit in lits:
                if masks[i] >> ((lit - 1) % n) & 1:
                    continue
                found = solve([lit])
                if found is None:
                    return answer(complete=False)
                if found:
                    mark(s.get_model())
                else:
                    s.add_clause([-lit])
    return answer()


def _limited(solver: Any, assumptions: list[int], seconds: float) -> bool | None:
    """One solve stopped by ``interrupt()`` after ``seconds``; None when the time ran out.

    A Ctrl-C stops it at once and is raised when it returns.
    """
    from cpsudoku.engines.interrupts import StopAt

    try:
        with StopAt(solver.interrupt, seconds):
            found = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        solver.clear_interrupt()
    return None if found is None else bool(found)


def _by_engine(p: Puzzle, spec: str, start: float, deadline: float | None) -> TrueCandidates:
    """:func:`true_candidates` by any engine: one solve per value asked about."""
    from cpsudoku.engines import get_backend
    from cpsudoku.model.result import Status

    engine = get_backend(spec)
    rules = p.rules
    masks = [0 if v == 0 else 1 << (v - 1) for v in p.cells]
    calls = 0

    def answer(complete: bool = True) -> TrueCandidates:
        return TrueCandidates(p, tuple(masks), calls, time.perf_counter() - start, complete, spec)

    def solve(cells: tuple[int, ...]) -> Status | None:
        """The status of the puzzle ``cells``; each solution marks its values."""
        nonlocal calls
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return None
        calls += 1
        r = engine.solve(Puzzle(rules, cells), unique=False, time_limit=left)
        if r.status is Status.TIMEOUT:
            return None
        if r.status is Status.INVALID:
            raise ValueError(f"{spec} cannot answer: {r.error}")
        if r.solution is not None:
            for i, v in enumerate(r.solution.cells):
                masks[i] |= 1 << (v - 1)
        return r.status

    first = solve(p.cells)
    if first is None:
        masks = [0] * len(masks)
        return answer(complete=False)
    if first is Status.UNSOLVABLE:
        masks = [0] * len(masks)
        return answer()
    for i, v in enumerate(p.cells):
        if v:
            continue
        seen = 0  # values a given among the cell's peers already holds
        for j in rules.peers[i]:
            if p.cells[j]:
                seen |= 1 << (p.cells[j] - 1)
        for d in range(1, rules.n + 1):
            bit = 1 << (d - 1)
            if masks[i] & bit or seen & bit:
                continue
            cells = list(p.cells)
            cells[i] = d
            if solve(tuple(cells)) is None:
                return answer(complete=False)
    return answer()
