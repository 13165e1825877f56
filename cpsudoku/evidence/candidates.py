"""True candidates: for each cell, the values that occur in at least one solution.

Setters' tools show exactly this: the pencilmarks no deduction can remove, because a
solution holds each of them. A unique puzzle has one true candidate per cell; a puzzle
with several solutions shows where its ambiguity lies (the cells with two or more).
With a cap above 1 each candidate also gets the number of solutions holding it, up to
the cap (as SudokuSolver's f-puzzles integration colours them: 1, 2..cap).

Found by incremental SAT under assumptions: one solver holds the puzzle with its givens
folded in (:func:`cpsudoku.encode.cnf.reduced`); every model found counts for all its
cell values. One call asks for a solution holding any of the values no solution found
so far holds (a clause over them, on an activation literal assumed for that call),
until none does: those values then become unit clauses. With a cap above 1 each
solution found is excluded at once by a clause (the negation of its cell values), so
every later model is a new solution, and the calls then ask for one holding any true
candidate counted fewer than ``cap`` times, until none does. A unique puzzle takes
two calls (three with a cap).

Any other engine (``backend="cpsat"``, ``"native"``...) answers the same questions
one solve each: the puzzle with the value asked about placed as one more given,
each solution found marking all its values (and with a cap above 1, one count up to
the cap per true candidate). Slower, and a cross-check of the SAT answer. A time
limit covers the whole; when it runs out the candidates found so far are true ones,
their counts lower bounds, and :attr:`TrueCandidates.complete` says that some were
not asked about.

:class:`CandidateCache` keeps answers by puzzle, so an unchanged puzzle is answered at
once, and a puzzle that only adds rules or givens to one it holds starts from that
answer's eliminations.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from cpsudoku.encode.cnf import reduced
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle

#: The python-sat solver used: fast on many small calls under assumptions.
SOLVER = "minisat22"


@dataclass(frozen=True, slots=True)
class TrueCandidates:
    """The true candidates of a puzzle, each with its number of solutions up to a cap.

    Attributes:
        puzzle: the puzzle.
        masks: per cell, a bit mask of its true candidates (bit ``d-1`` for ``d``);
            a given's own value; all zero when the puzzle has no solution.
        calls: solver calls made (the first included).
        seconds: wall time.
        complete: False when the time limit ran out before every value was asked
            about: each mask then holds true candidates, not necessarily all, and each
            count is a lower bound.
        backend: the engine spec that answered.
        cap: the most solutions counted per candidate (0: no cap).
        counts: per candidate, index ``cell * n + value - 1``, the number of solutions
            holding it, at most ``cap``; 0 exactly when it is not a true candidate
            (with cap 1, every true candidate counts 1). A given's value counts the
            solutions of the puzzle, up to the cap.
        cached: True when a :class:`CandidateCache` answered from an earlier answer of
            the same puzzle, without a solver call.
    """

    puzzle: Puzzle
    masks: tuple[int, ...]
    calls: int
    seconds: float
    complete: bool = True
    backend: str = "sat"
    cap: int = 1
    counts: tuple[int, ...] = ()
    cached: bool = False

    def __post_init__(self) -> None:
        if not self.counts:  # built from masks alone: each true candidate counts 1
            n = self.puzzle.n
            counts = tuple(m >> d & 1 for m in self.masks for d in range(n))
            object.__setattr__(self, "counts", counts)

    def values(self, cell: int) -> tuple[int, ...]:
        """The true candidates of ``cell`` (0-based, row-major), in increasing order."""
        m = self.masks[cell]
        return tuple(d for d in range(1, self.puzzle.n + 1) if m >> (d - 1) & 1)

    def count(self, cell: int, value: int) -> int:
        """The number of solutions (up to the cap) with ``value`` in ``cell`` (0-based)."""
        return self.counts[cell * self.puzzle.n + value - 1]

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

    def _grid(self, texts: list[str]) -> str:
        """``texts`` (one per cell) as a grid: columns aligned, boxes ruled."""
        p = self.puzzle
        n = p.n
        rules = p.rules
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

    def pencilmarks(self) -> str:
        """A pencilmark grid: each cell's true candidates, columns aligned, boxes ruled."""
        rules = self.puzzle.rules
        n = rules.n

        def sym(v: int) -> str:
            return rules.symbol(v) if n <= 35 else f"{v},"

        texts = ["".join(sym(d) for d in self.values(i)) or "-" for i in range(rules.cells)]
        return self._grid(texts)

    def count_grid(self) -> str:
        """Each cell's counts, one per true candidate in increasing value order.

        ``3/1`` is a cell whose first true candidate is held by 3 solutions and its
        second by 1 (up to the cap; ``8+`` is a count that reached a cap of 8).
        """
        n = self.puzzle.n
        cap = self.cap

        def text(c: int) -> str:
            return f"{c}+" if cap > 1 and c >= cap else str(c)

        texts = [
            "/".join(text(self.counts[i * n + d - 1]) for d in self.values(i)) or "-"
            for i in range(len(self.masks))
        ]
        return self._grid(texts)


def true_candidates(
    puzzle: PuzzleLike,
    *,
    backend: str = "sat",
    time_limit: float | None = None,
    cap: int = 1,
    possible: Sequence[int] | None = None,
) -> TrueCandidates:
    """The true candidates of ``puzzle`` with their solution counts up to ``cap``.

    ``backend`` ``sat`` (or ``sat:SOLVER``, default :data:`SOLVER`) asks one live
    python-sat solver; any other engine spec answers by one solve per value asked
    about. ``time_limit`` (seconds) covers the whole; past it the answer has
    ``complete`` False. ``cap`` is the most solutions counted per candidate (1: is it
    a true candidate at all; 0: no cap, every solution counted, for puzzles with
    few). ``possible``, per cell, a mask known to hold every true candidate (an
    earlier answer's masks, of a puzzle this one only adds rules or givens to): the
    values outside it are not asked about.

    >>> tc = true_candidates("1..4.....3..2..3")
    >>> tc.unique, tc.values(6)
    (False, (1, 2))
    >>> counted = true_candidates("1..4.....3..2..3", cap=4)
    >>> counted.count(6, 1), counted.count(0, 1)
    (1, 2)

    Raises:
        PuzzleError: a malformed puzzle, or givens that clash.
        UnknownBackendError: an unknown engine spec.
        ValueError: a cap below 0, a ``possible`` of the wrong length, a solver that
            cannot answer under assumptions, or an engine that refuses the puzzle's
            rules.
    """
    from cpsudoku.engines import check_spec

    start = time.perf_counter()
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ValueError(f"cap must be a whole number of at least 0 (0: no cap), got {cap!r}")
    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    p.check()
    check_spec(backend)
    if possible is not None and len(possible) != p.rules.cells:
        raise ValueError(f"possible has {len(possible)} masks for {p.rules.cells} cells")
    deadline = None if time_limit is None else start + time_limit
    name, *variant = backend.split(":")
    if name == "sat":
        return _by_sat(p, _sat_solver(variant), backend, start, deadline, cap, possible)
    return _by_engine(p, backend, start, deadline, cap, possible)


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
    p: Puzzle,
    solver_name: str,
    spec: str,
    start: float,
    deadline: float | None,
    cap: int,
    possible: Sequence[int] | None,
) -> TrueCandidates:
    """:func:`true_candidates` with one live python-sat solver.

    Counts (``counts[lit - 1]``: the reduced encoding numbers cell ``i``'s value ``d``
    ``i * n + d``, the candidate's index plus one) come from the solutions found, each
    counting for every value it holds; ``found`` is their number. A value is asked
    about while its count is below the cap; with a cap above 1 every solution found is
    excluded by a clause as soon as it is found, so the next model under the same
    assumption is a new solution, and an unsatisfiable call means that the solutions
    found are all that hold the value.
    """
    from pysat.solvers import Solver

    from cpsudoku.engines.interrupts import SatInterrupts
    from cpsudoku.engines.sat import INTERRUPTIBLE

    n = p.n
    red = reduced(p)
    counts = [0] * (p.rules.cells * n)
    limit = cap or math.inf  # no cap: never reached
    block = cap != 1  # with cap 1 no value is asked about once a solution holds it
    calls = found = 0

    def answer(complete: bool = True, solved: bool = True) -> TrueCandidates:
        if not solved:
            return TrueCandidates(
                p,
                (0,) * len(p.cells),
                calls,
                time.perf_counter() - start,
                complete,
                spec,
                cap,
                (0,) * len(counts),
            )
        for i, v in enumerate(p.cells):
            if v:
                counts[i * n + v - 1] = found
        out = tuple(min(c, cap) for c in counts) if cap else tuple(counts)
        masks = tuple(sum(1 << d for d in range(n) if out[i * n + d]) for i in range(len(p.cells)))
        return TrueCandidates(
            p, masks, calls, time.perf_counter() - start, complete, spec, cap, out
        )

    if any(not c for c in red.clauses):  # an open cell with no value left
        return answer(solved=False)
    # Ctrl-C during a call: KeyboardInterrupt, and the solver is abandoned.
    with Solver(name=solver_name, bootstrap_with=red.clauses) as s, SatInterrupts(s):
        open_cells = [lits for lits in red.candidates if lits]
        ruled_out = []
        if possible is not None:
            for lits in open_cells:
                for lit in lits:
                    i, d = divmod(lit - 1, n)
                    if not possible[i] >> d & 1:
                        ruled_out.append(lit)
                        s.add_clause([-lit])

        def mark(model: list[int]) -> None:
            """Count the solution ``model`` for each of its values (and exclude it)."""
            nonlocal found
            found += 1
            size = len(model)
            held = []
            for lits in open_cells:
                for lit in lits:
                    if lit <= size and model[lit - 1] > 0:
                        counts[lit - 1] += 1
                        held.append(-lit)
                        break
            if block:
                s.add_clause(held)

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
            return answer(complete=False, solved=False)
        if not first:
            return answer(solved=False)
        mark(s.get_model())
        refuted = set(ruled_out)

        def solve_any(lits: list[int]) -> bool | None:
            """Whether a solution not found before holds one of ``lits``.

            One clause on a fresh activation literal, assumed for one call, then retired.
            """
            if len(lits) == 1:
                return solve(lits)
            act = s.nof_vars() + 1
            s.add_clause([-act, *lits])
            try:
                return solve([act])
            finally:
                s.add_clause([-act])

        # The values no solution found so far holds: a solution holding one of them,
        # until none is left or no solution holds any (each then a unit clause).
        while asked := [
            lit for lits in open_cells for lit in lits if not counts[lit - 1] and lit not in refuted
        ]:
            more = solve_any(asked)
            if more is None:
                return answer(complete=False)
            if not more:
                for lit in asked:
                    s.add_clause([-lit])
                break
            mark(s.get_model())
        # The counts: a new solution holding a value counted fewer than cap times,
        # until every true candidate reaches the cap or no new solution holds any.
        while cap != 1 and (
            asked := [lit for lits in open_cells for lit in lits if 0 < counts[lit - 1] < limit]
        ):
            more = solve_any(asked)
            if more is None:
                return answer(complete=False)
            if not more:
                break
            mark(s.get_model())
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


def _by_engine(
    p: Puzzle,
    spec: str,
    start: float,
    deadline: float | None,
    cap: int,
    possible: Sequence[int] | None,
) -> TrueCandidates:
    """:func:`true_candidates` by any engine: one solve per value asked about.

    With a cap above 1 (or none), each true candidate's solutions are then counted up
    to the cap, one count of the puzzle with that value placed.
    """
    from cpsudoku.engines import get_backend
    from cpsudoku.model.result import Status

    engine = get_backend(spec)
    rules = p.rules
    n = rules.n
    masks = [0 if v == 0 else 1 << (v - 1) for v in p.cells]
    counts: list[int] = []
    calls = 0

    def answer(complete: bool = True) -> TrueCandidates:
        return TrueCandidates(
            p,
            tuple(masks),
            calls,
            time.perf_counter() - start,
            complete,
            spec,
            cap,
            tuple(counts),
        )

    def left() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    def solve(cells: tuple[int, ...]) -> Status | None:
        """The status of the puzzle ``cells``; each solution marks its values."""
        nonlocal calls
        seconds = left()
        if seconds is not None and seconds <= 0:
            return None
        calls += 1
        r = engine.solve(Puzzle(rules, cells), unique=False, time_limit=seconds)
        if r.status is Status.TIMEOUT:
            return None
        if r.status is Status.INVALID:
            raise ValueError(f"{spec} cannot answer: {r.error}")
        if r.solution is not None:
            for i, v in enumerate(r.solution.cells):
                masks[i] |= 1 << (v - 1)
        return r.status

    first = solve(p.cells)
    if first is None or first is Status.UNSOLVABLE:
        masks = [0] * len(masks)
        return answer(complete=first is not None)
    for i, v in enumerate(p.cells):
        if v:
            continue
        seen = 0  # values a given among the cell's peers already holds
        for j in rules.peers[i]:
            if p.cells[j]:
                seen |= 1 << (p.cells[j] - 1)
        if possible is not None:
            seen |= ~possible[i]
        for d in range(1, n + 1):
            bit = 1 << (d - 1)
            if masks[i] & bit or seen & bit:
                continue
            cells = list(p.cells)
            cells[i] = d
            if solve(tuple(cells)) is None:
                return answer(complete=False)
    if cap == 1:
        return answer()
    counts = [m >> d & 1 for m in masks for d in range(n)]  # lower bounds until counted
    limit = cap or 2**62
    whole = 0  # the puzzle's own count, which every given's value has
    for i, m in enumerate(masks):
        for d in range(n):
            if not m >> d & 1:
                continue
            if p.cells[i] and whole:
                counts[i * n + d] = whole
                continue
            seconds = left()
            if seconds is not None and seconds <= 0:
                return answer(complete=False)
            cells = list(p.cells)
            cells[i] = d + 1
            calls += 1
            c = engine.count(Puzzle(rules, tuple(cells)), limit=limit, time_limit=seconds)
            counts[i * n + d] = max(1, min(c.count, limit))
            if c.timed_out:
                return answer(complete=False)
            if p.cells[i]:
                whole = counts[i * n + d]
    return answer()


@dataclass(frozen=True, slots=True)
class _Entry:
    """A complete answer in a :class:`CandidateCache`, with what inheritance compares."""

    answer: TrueCandidates
    givens: frozenset[tuple[int, int]]
    extra: frozenset[Any]
    constraints: frozenset[Any]


def _entry(answer: TrueCandidates) -> _Entry:
    rules = answer.puzzle.rules
    givens = frozenset((i, v) for i, v in enumerate(answer.puzzle.cells) if v)
    return _Entry(answer, givens, frozenset(rules.extra), frozenset(rules.constraints))


class CandidateCache:
    """True candidates by puzzle: an unchanged puzzle answered at once, an extended one reused.

    An answer is kept under its puzzle (rules and givens), cap and backend; the
    ``maxsize`` most recently used complete answers are kept (an incomplete one, cut
    short by its time limit, is not). Asked again, :meth:`get` returns the kept answer
    with ``cached`` True and no solver call. Asked about a new puzzle that *inherits*
    kept ones (the same grid and regions, and all of their extra regions, rules and
    givens, plus more), it starts from their eliminations: a value no solution of the
    smaller puzzle holds can be held by no solution of the larger one, whose solutions
    are among the smaller one's, so it is not asked about (as SudokuSolver does for
    its f-puzzles integration). Any cap and backend serve for that.

    A cache lives as long as the object: the command line keeps one per process
    (:func:`default_cache`), a server one for its whole run, shared by its clients
    (the methods are thread-safe; the solving runs outside the lock).

    >>> cache = CandidateCache(maxsize=10)
    >>> cache.get("1..4.....3..2..3").cached, cache.get("1..4.....3..2..3").cached
    (False, True)
    """

    def __init__(self, maxsize: int = 1000) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a whole number of at least 1, got {maxsize!r}")
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[Any, ...], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        #: Answers given from the cache, answers computed, and computed ones that
        #: started from a kept answer's eliminations.
        self.hits = self.misses = self.reused = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every kept answer."""
        with self._lock:
            self._entries.clear()

    def get(
        self,
        puzzle: PuzzleLike,
        *,
        cap: int = 1,
        backend: str = "sat",
        time_limit: float | None = None,
    ) -> TrueCandidates:
        """The true candidates of ``puzzle`` (:func:`true_candidates`), kept or worked out.

        Raises:
            PuzzleError: a malformed puzzle, or givens that clash.
            UnknownBackendError: an unknown engine spec.
            ValueError: as :func:`true_candidates`.
        """
        p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
        key = (p.rules, p.cells, cap, backend)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return replace(entry.answer, cached=True, calls=0, seconds=0.0)
            possible = self._possible(p)
        found = true_candidates(
            p, backend=backend, time_limit=time_limit, cap=cap, possible=possible
        )
        with self._lock:
            self.misses += 1
            self.reused += possible is not None
            if found.complete:
                self._entries[key] = _entry(found)
                self._entries.move_to_end(key)
                while len(self._entries) > self.maxsize:
                    self._entries.popitem(last=False)
        return found

    def _possible(self, p: Puzzle) -> list[int] | None:
        """Per cell, the values no kept answer that ``p`` inherits has ruled out (or None)."""
        rules = p.rules
        givens = extra = constraints = None
        possible: list[int] | None = None
        for entry in reversed(self._entries.values()):
            old = entry.answer.puzzle.rules
            if old.size != rules.size or old.box != rules.box or old.regions != rules.regions:
                continue
            if givens is None:
                givens = frozenset((i, v) for i, v in enumerate(p.cells) if v)
                extra = frozenset(rules.extra)
                constraints = frozenset(rules.constraints)
            if not (
                entry.givens <= givens
                and entry.extra <= extra  # type: ignore[operator]
                and entry.constraints <= constraints  # type: ignore[operator]
            ):
                continue
            masks = entry.answer.masks
            if possible is None:
                possible = list(masks)
            else:
                possible = [a & b for a, b in zip(possible, masks, strict=True)]
        return possible


_DEFAULT: CandidateCache | None = None


def default_cache() -> CandidateCache:
    """The process's own :class:`CandidateCache` (made when first asked for)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = CandidateCache()
    return _DEFAULT
