"""True candidates: for each cell, the values that occur in at least one solution.

Setters' tools show exactly this: the pencilmarks no deduction can remove, because a
solution holds each of them. A unique puzzle has one true candidate per cell; a puzzle
with several solutions shows where its ambiguity lies (the cells with two or more).

Found by incremental SAT under assumptions: one solver holds the puzzle with its givens
folded in (:func:`cpsudoku.encode.cnf.reduced`); every model found marks all its cell
values as true candidates, so a value is asked about (one call, assuming it) only when
no solution found so far holds it. A refuted value becomes a unit clause, which helps
the later calls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

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
    """

    puzzle: Puzzle
    masks: tuple[int, ...]
    calls: int
    seconds: float

    def values(self, cell: int) -> tuple[int, ...]:
        """The true candidates of ``cell`` (0-based, row-major), in increasing order."""
        m = self.masks[cell]
        return tuple(d for d in range(1, self.puzzle.n + 1) if m >> (d - 1) & 1)

    @property
    def solvable(self) -> bool:
        """True when the puzzle has a solution."""
        return any(self.masks)

    @property
    def unique(self) -> bool:
        """True when every cell has exactly one true candidate: exactly one solution."""
        return all(m and not m & (m - 1) for m in self.masks)

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


def true_candidates(puzzle: PuzzleLike) -> TrueCandidates:
    """The true candidates of ``puzzle``, by incremental SAT under assumptions.

    >>> tc = true_candidates("1..4.....3..2..3")
    >>> tc.unique, tc.values(1)
    (False, (2, 3))

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash.
    """
    from pysat.solvers import Solver

    from cpsudoku.engines.interrupts import SatInterrupts

    start = time.perf_counter()
    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    p.check()
    n = p.n
    red = reduced(p)
    masks = [0 if v == 0 else 1 << (v - 1) for v in p.cells]
    calls = 0
    if any(not c for c in red.clauses):  # an open cell with no value left
        return TrueCandidates(p, (0,) * len(masks), calls, time.perf_counter() - start)
    # Ctrl-C during a call: KeyboardInterrupt, and the solver is abandoned.
    with Solver(name=SOLVER, bootstrap_with=red.clauses) as s, SatInterrupts(s):
        open_cells = [(i, lits) for i, lits in enumerate(red.candidates) if lits]

        def mark(model: list[int]) -> None:
            size = len(model)
            for i, lits in open_cells:
                for lit in lits:
                    if lit <= size and model[lit - 1] > 0:
                        masks[i] |= 1 << ((lit - 1) % n)
                        break

        calls += 1
        if not s.solve():
            return TrueCandidates(p, (0,) * len(masks), calls, time.perf_counter() - start)
        mark(s.get_model())
        for i, lits in open_cells:
            for lit in lits:
                if masks[i] >> ((lit - 1) % n) & 1:
                    continue
                calls += 1
                if s.solve(assumptions=[lit]):
                    mark(s.get_model())
                else:
                    s.add_clause([-lit])
    return TrueCandidates(p, tuple(masks), calls, time.perf_counter() - start)
