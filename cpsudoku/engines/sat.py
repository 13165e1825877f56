"""SAT backend: python-sat solvers on the CNF encodings of :mod:`cpsudoku.encode.cnf`.

Incremental by default. The rule clauses of a set of rules go into one solver once, and
the solver stays alive across puzzles; each puzzle's givens are *assumptions*, so
nothing about one puzzle stays behind for the next. Uniqueness (and counting up to a
limit) blocks each solution found with a clause over its open cells' true literals,
guarded by a fresh selector literal ``s``: the clause ``-s | -l1 | -l2 ...`` is added,
the solver is called again assuming ``s``, and afterwards the unit clause ``-s``
retires the selector for good. The solver keeps what it learned about the rules, and
every model is read from the cell variables only.

Hard puzzles move to one level. Each assumption is a decision level of its own, and
clauses learned under twenty-odd of them are long and slow to analyse. So the first
call gets a small conflict budget (:data:`ONE_LEVEL_CONFLICTS`); a puzzle that needs
more puts its givens behind the selector instead (clauses ``-s | given``), and the
search goes on assuming ``s`` alone: the givens and all they imply then share one
level, which conflict analysis shrinks to the single literal ``-s``. Easy puzzles
finish within the budget and add no clauses; the stats of a moved puzzle say
``"one_level": 1``.

Hard puzzles escalate. Under assumptions the solver cannot simplify the formula by the
givens, which costs little on 9x9 but a lot on hard 25x25 grids; so a puzzle whose
incremental calls need more than :data:`ESCALATE_CONFLICTS` conflicts is solved again,
from the start, on a new solver holding only that puzzle's reduced formula
(:func:`cpsudoku.encode.cnf.reduced`: the givens folded in), and its stats say
``"escalated": 1``.

Spec words (any order, each at most once), e.g. ``sat:extended:cadical153``:

- an encoding: ``minimal``, ``efficient``, ``extended`` (default);
- an at-most-one encoding: ``pairwise``, ``seqcounter``, ``ladder``, ``bitwise``,
  ``totalizer``; when none is named, pairwise up to 25x25 and the sequential counter
  on bigger grids (:func:`default_at_most_one`);
- a python-sat solver name or alias: ``cadical153`` (default), ``cadical195``,
  ``glucose4``, ``minisat22``, ``lingeling``, ``kissat404``, ... (``cd15``, ``g4``
  and the other aliases of :class:`pysat.solvers.SolverNames` work too);
- a mode: ``fresh``, the textbook baseline: for every puzzle, the whole CNF is encoded
  anew, with the givens as unit clauses, and goes into a new solver (kept so
  benchmarks can show what encoding once and incremental solving buy); or
  ``reduced``: a new solver per puzzle on the reduced formula only (what escalation
  uses).

Time limits. What python-sat can stop depends on the solver (read from its source):

- MiniSat-like solvers (``minisat22``, ``glucose3/4/42``, ``maplesat``, ``maplecm``,
  ``maplechrono``, ``mergesat3``, ``minicard``, ``gluecard3/4``, ``minisatep``,
  ``ergo``): a thread calls ``interrupt()`` at the deadline of a limited call (or at
  once on Ctrl-C, :class:`~cpsudoku.engines.interrupts.StopAt`), then
  ``clear_interrupt()`` makes the solver usable again;
- CaDiCaL (``cadical103/153/195/300``): no ``interrupt()``, but a conflict budget
  per call; the search runs in budgeted slices sized from the measured conflict rate,
  with a look at the clock between slices;
- Lingeling (no limits at all) and Kissat (no assumptions, and a second solve on one
  instance aborts the process): a time-limited call runs on ``cadical153`` instead
  (same encoding and mode), so a time limit always stops. The stats say
  ``"fallback": 1``.

Kissat works only in the one-solver-per-puzzle modes (``fresh``, ``reduced``), and
there every call gets a new instance, because it cannot be called twice.

Reproducible answers: which of several solutions a live solver finds depends on what
it learned before, so for a puzzle with more than one solution the reported one is
the first that a new solver finds on the puzzle's reduced formula: a function of the
puzzle alone, whatever the batch order or partition.

Stats per result: ``conflicts``, ``decisions``, ``propagations`` and ``restarts``, the
solver's counters accumulated over the calls for that one puzzle (not reported by
Kissat); ``forced`` when unit propagation alone decided the puzzle, which proves it
unique without a second call (half of the 17-clue puzzles, nearly every easy one);
``one_level`` when the givens moved behind one selector (nearly every hardest one).
"""

from __future__ import annotations

import atexit
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import compress
from typing import Any

import pysolvers  # PySAT's C module (clause_adder)
from pysat.solvers import NoSuchSolverError, Solver, SolverNames

from cpsudoku.encode.cnf import (
    AT_MOST_ONE,
    DEFAULT_ENCODING,
    ENCODINGS,
    Clause,
    RuleClauses,
    constraint_clauses,
    decode_reduced,
    encode_rules,
    given_literals,
    line_clauses,
    reduced,
    rule_clauses,
    unit_clauses,
)
from cpsudoku.engines.base import GENERAL_PRIMITIVES, Backend, Search
from cpsudoku.engines.interrupts import SolverInterrupted, StopAt, abandon, raise_interrupt
from cpsudoku.model.errors import BackendUnavailableError, UnknownBackendError
from cpsudoku.model.implied import diagonal_bands, implied_cages, implied_sums
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

try:  # the compiled engine's region writer, when the extension was built
    from cpsudoku.engines._native import MAX_SIDE as NATIVE_SIDE
    from cpsudoku.engines._native import region_literals as _region_writer
except ModuleNotFoundError:  # pragma: no cover - an install without a C compiler
    NATIVE_SIDE, _region_writer = 0, None

#: The solver used when none is named: fastest on every 9x9 set measured (docs/design.md).
DEFAULT_SOLVER = "cadical153"

#: Largest grid side on which pairwise at-most-one is the default. Pairwise writes about
#: 2n^4 clauses, held twice (as Python tuples for reuse, and in the solver), and a
#: puzzle with several solutions builds a second solver: proving that an empty grid
#: has two solutions took 364 MB on 25x25, 721 MB on 30x30 and 1.5 GB on 36x36, against
#: 148, 269 and 401 MB with the sequential counter (docs/design.md). Pairwise stays
#: the default where it fits in well under 500 MB, and where it is the fastest.
PAIRWISE_UP_TO = 25

#: The modes that build a new solver for every puzzle.
MODES: tuple[str, ...] = ("fresh", "reduced")

#: Canonical python-sat solver name for every alias (``cd15`` -> ``cadical153``).
SOLVER_ALIASES: dict[str, str] = {
    alias: canonical
    for canonical, aliases in vars(SolverNames).items()
    if isinstance(aliases, tuple)
    for alias in (canonical, *aliases)
}

#: Canonical names of every solver python-sat knows (not all are in every build).
SOLVERS: tuple[str, ...] = tuple(sorted(set(SOLVER_ALIASES.values())))

#: Solvers whose limited calls python-sat can stop with ``interrupt()`` (they also take
#: a conflict budget).
INTERRUPTIBLE = frozenset(
    {
        "ergo",
        "gluecard3",
        "gluecard4",
        "glucose3",
        "glucose4",
        "glucose42",
        "maplechrono",
        "maplecm",
        "maplesat",
        "mergesat3",
        "minicard",
        "minisat22",
        "minisatep",
        "minisatgh",
    }
)

#: Solvers without ``interrupt()`` that take a per-call conflict budget and keep their
#: state across limited calls.
BUDGETED = frozenset({"cadical103", "cadical153", "cadical195", "cadical300"})

#: Solvers that ignore assumptions and can be called only once per instance.
ONE_SHOT = frozenset({"kissat404"})

#: Solvers whose ``decisions`` counter tells whether a satisfiable call was decided by
#: unit propagation alone, each with the options (set on the live solver) that keep
#: that reading true. CaDiCaL 1.5.3 counts a decision only when it picks a free
#: variable (assumptions are pseudo-decision levels, and every call starts from level
#: 0), and its "lucky" assignments, which find models without counting decisions, run
#: only without assumptions. Variable elimination and equivalent-literal substitution
#: leave variables to the model extension, which picks values without a decision, so
#: they are off. MiniSat and Glucose count a decision before they look for a free
#: variable, so their counter cannot tell; newer CaDiCaL releases bring more
#: techniques of the extension kind, so they are left out rather than guessed at.
PROPAGATION_PROOF: dict[str, dict[str, int]] = {"cadical153": {"elim": 0, "decompose": 0}}

#: Options set on a live incremental solver for speed, by measurement (docs/design.md).
#: Shrinking a learned clause finds each level's literals on the trail; CaDiCaL does it
#: with a radix heap by default, which costs more than sorting the few literals a
#: Sudoku level holds.
TUNED_OPTIONS: dict[str, dict[str, int]] = {
    "cadical153": {"shrinkreap": 0},
    "cadical195": {"shrinkreap": 0},
}

#: Rule sets whose engines (live solvers, encodings) a backend keeps; the oldest goes
#: first. Jigsaws share one live solver per side, but the one-shot modes keep an
#: encoding per layout.
KEPT_ENGINES = 64

#: Puzzles in a row under the same constraints from which on they go into a live
#: solver of their own instead of behind each puzzle's guard (a grid-wide rule's set).
#: Not the second: a dataset of killers that come in pairs would build a solver per
#: pair, slower than writing a pair's cages twice.
OWN_ENGINE_RUN = 3

#: Rebuild an incremental solver after this many retired selector variables: each
#: one lengthens every model python-sat returns, while clauses learned on many
#: puzzles help later ones; 1000 measured best on the hardest 9x9 set.
MAX_SELECTORS = 1000

#: Conflicts the first call of a puzzle may take with one assumption per given before
#: the givens move behind one selector (None: never). Each assumption is a decision
#: level of its own, and clauses learned under twenty-odd of them are long and costly
#: to analyse; behind one selector the givens and all they imply sit on one level, as
#: if at level 0. Easy puzzles never reach the budget, so they add no clauses.
ONE_LEVEL_CONFLICTS: int | None = 5

#: Conflicts one incremental call may take before the puzzle escalates to its reduced
#: formula on a new solver (None: never). No 9x9 puzzle measured came near it.
ESCALATE_CONFLICTS: int | None = 2000

#: Conflicts in the first budgeted slice of a time-limited CaDiCaL call, before any
#: conflict rate has been measured (and the least any slice gets).
FIRST_SLICE = 100

#: Shortest target wall time of one budgeted slice, in seconds. Slices grow to a tenth
#: of the time already spent (so re-entering the solver costs little on long
#: searches) but never beyond half the time left (so the deadline is kept).
SLICE_SECONDS = 0.02

_STAT_KEYS = ("conflicts", "decisions", "propagations", "restarts")


def default_at_most_one(n: int) -> str:
    """The at-most-one encoding used on an n x n grid when the spec names none.

    >>> default_at_most_one(25), default_at_most_one(49)
    ('pairwise', 'seqcounter')
    """
    return "pairwise" if n <= PAIRWISE_UP_TO else "seqcounter"


def canonical_solver(word: str) -> str | None:
    """The canonical python-sat name for ``word`` (any alias, any case), or None."""
    return SOLVER_ALIASES.get(word.lower())


class SatBackend(Backend):
    """python-sat engines: incremental (default), ``fresh`` or ``reduced``; any encoding.

    >>> from cpsudoku.model.forms import parse
    >>> with SatBackend(["extended", "cadical153"]) as sat:
    ...     str(sat.solve(parse("1.343..2.3..2..3")).status)
    'unique'
    """

    name = "sat"
    primitive_kinds = GENERAL_PRIMITIVES
    variants = (*ENCODINGS, *AT_MOST_ONE, *MODES, *SOLVERS)
    baseline = "sat:fresh"
    bench_variants = (
        "sat:minimal",
        "sat:efficient",
        "sat:extended:seqcounter",
        "sat:extended:glucose4",
        "sat:extended:minisat22",
        "sat:extended:cadical195",
    )
    races = True

    def __init__(self, variant: Sequence[str] = ()) -> None:
        words = [canonical_solver(w) or w for w in variant]
        super().__init__(words)
        self.encoding = _pick(words, ENCODINGS, "encoding", DEFAULT_ENCODING)
        #: The at-most-one encoding named in the spec; None: by grid size.
        self.at_most_one = _pick(words, AT_MOST_ONE, "at-most-one encoding", "") or None
        self.solver = _pick(words, SOLVERS, "solver", DEFAULT_SOLVER)
        self.mode = _pick(words, MODES, "mode", "incremental")
        _check_available(self.solver)
        if self.solver in ONE_SHOT and self.mode == "incremental":
            raise UnknownBackendError(
                f"SAT solver {self.solver!r} ignores assumptions and cannot be called twice "
                f"on one instance, so it cannot run incrementally; use "
                f"'sat:fresh:{self.solver}' or 'sat:reduced:{self.solver}'"
            )
        self._engines: dict[Rules | int, _Engine] = {}
        #: The last puzzle's rules with constraints, and how many puzzles in a row had
        #: them (a long enough run gets an engine of its own: OWN_ENGINE_RUN).
        self._last_rules: Rules | None = None
        self._run = 0
        self._fallback: SatBackend | None = None
        _LIVE.add(self)

    @property
    def keeps_rules(self) -> bool:
        """Only the incremental mode keeps a solver across puzzles."""
        return self.mode == "incremental"

    @property
    def clash_safe(self) -> bool:
        """Clashing givens are contradictory assumptions or unit clauses: unsatisfiable.

        Not so for ``reduced``, whose formula leaves the givens out altogether.
        """
        return self.mode != "reduced"

    @property
    def can_stop(self) -> bool:
        """True when the chosen solver itself can honour a time limit."""
        return self.solver in INTERRUPTIBLE or self.solver in BUDGETED

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Find up to ``limit`` solutions; with a time limit, stop when it runs out."""
        deadline = None
        if time_limit is not None:
            deadline = time.perf_counter() + max(time_limit, 0.0)
            if not self.can_stop:
                return self._fallback_search(puzzle, limit, deadline)
        # One engine per grid: a puzzle's other constraints (its killer cages) are
        # added to the live rules for that puzzle only; so are a jigsaw's regions, the
        # live rules being the rows and columns every jigsaw of the side shares.
        # A run of puzzles under the same constraints (a grid-wide rule: non-consecutive,
        # global entropy, a doppelganger) gets an engine whose live rules hold them too,
        # from its third puzzle on: encoded once, not once a puzzle behind a selector,
        # and what the solver learns from them serves every later puzzle.
        rules = puzzle.rules.units_only
        if self.mode == "incremental" and puzzle.rules.constraints:
            if puzzle.rules == self._last_rules:
                self._run += 1
            else:
                self._last_rules, self._run = puzzle.rules, 1
            if self._run >= OWN_ENGINE_RUN:
                rules = puzzle.rules
        key: Rules | int = rules
        if rules.box is None and self.mode == "incremental" and not rules.constraints:
            key = rules.n
        engine = self._engines.get(key)
        if engine is None:
            if len(self._engines) >= KEPT_ENGINES:  # a jigsaw dataset: rules per puzzle
                self._engines.pop(next(iter(self._engines))).close()
            engine = self._engines[key] = self._new_engine(rules, lines=isinstance(key, int))
        try:
            return engine.search(puzzle.cells, limit, deadline, puzzle.rules)
        except SolverInterrupted:
            # python-sat jumped out of a solver: native memory may be damaged, so none
            # of this engine's solvers is deleted (interrupts); the next search builds
            # new ones.
            engine.abandon()
            raise
        except BaseException:
            # Ctrl-C (or any failure) between two calls, with this puzzle's clauses half
            # added: the engine starts afresh.
            engine.close()
            raise

    def _new_engine(self, rules: Rules, *, lines: bool) -> _Engine:
        amo = self.at_most_one or default_at_most_one(rules.n)
        if lines:
            return _Incremental(line_clauses(rules.n, self.encoding, amo), self.solver, lines=True)
        r = rule_clauses(rules, self.encoding, amo)
        if rules.constraints and (implied := implied_cages(rules)):  # as _guarded adds them
            out = list(r.clauses)
            top = constraint_clauses(implied, rules, r.top, out)
            r = RuleClauses(rules, r.encoding, r.at_most_one, tuple(out), top)
        if self.mode == "incremental":
            return _Incremental(r, self.solver)
        return _OneShot(r, self.solver, reduce=self.mode == "reduced")

    def _fallback_search(self, puzzle: Puzzle, limit: int, deadline: float) -> Search:
        """Search on :data:`DEFAULT_SOLVER`, for solvers that cannot be stopped."""
        if self._fallback is None:
            words = [self.encoding, DEFAULT_SOLVER]
            if self.at_most_one:
                words.append(self.at_most_one)
            if self.mode != "incremental":
                words.append(self.mode)
            self._fallback = SatBackend(words)
        found = self._fallback.search(puzzle, limit, deadline - time.perf_counter())
        found.stats["fallback"] = 1
        found.answered_by = self._fallback.spec
        return found

    def close(self) -> None:
        """Delete the live solvers (idempotent); the next search builds them again."""
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()
        if self._fallback is not None:
            self._fallback.close()
            self._fallback = None


#: Every backend not yet collected, so the native solvers are deleted at exit while
#: python-sat is still importable (otherwise their finalisers fail noisily).
_LIVE: weakref.WeakSet[SatBackend] = weakref.WeakSet()


@atexit.register
def _close_live() -> None:
    for backend in list(_LIVE):
        backend.close()


def _pick(words: Sequence[str], choices: Sequence[str], what: str, default: str) -> str:
    """The one word of ``words`` found in ``choices``, else ``default``."""
    found = [w for w in words if w in choices]
    if len(found) > 1:
        raise UnknownBackendError(
            f"backend 'sat' takes one {what}, got {' and '.join(map(repr, found))}"
        )
    return found[0] if found else default


def _check_available(name: str) -> None:
    """Raise BackendUnavailableError when this python-sat build lacks solver ``name``."""
    try:
        Solver(name).delete()
    except (NoSuchSolverError, ImportError, NotImplementedError) as exc:
        raise BackendUnavailableError(
            f"SAT solver {name!r} is not available in the installed python-sat ({exc!r}); "
            f"pick another one, e.g. {DEFAULT_SOLVER!r}"
        ) from exc


def clause_adder(solver: Solver) -> Callable[[Sequence[int]], object]:
    """The fastest way to add one clause to ``solver``, for ``map`` over many.

    CaDiCaL 1.5.3's own C call where PySAT has it: a Python method call less per
    clause (300,000 clauses of three literals: 0.31 s through ``add_clause``, 0.20 s
    straight), which a puzzle of eighteen sandwich lines (17,000 clauses) feels. Its
    return value is dropped, as ``add_clause`` drops it: the next solve says whether
    the formula still holds. Any other solver: its ``add_clause``.
    """
    inner = solver.solver
    add = getattr(pysolvers, "cadical153_add_cl", None)
    handle = getattr(inner, "cadical", None)
    if type(inner).__name__ == "Cadical153" and add is not None and handle is not None:
        return partial(add, handle)
    return inner.add_clause  # type: ignore[no-any-return]


def _loaded(name: str, clauses: Iterable[Sequence[int]]) -> Solver:
    """A new solver ``name`` holding ``clauses`` (:func:`clause_adder`)."""
    solver = Solver(name)
    deque(map(clause_adder(solver), clauses), maxlen=0)
    return solver


def _stats(solver: Solver) -> dict[str, int]:
    """The solver's accumulated counters, or {} when it does not report them."""
    try:
        raw: dict[str, Any] | None = solver.accum_stats()
    except NotImplementedError:
        return {}
    return {k: int(raw[k]) for k in _STAT_KEYS if k in raw} if raw else {}


def _delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items()}


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}


class _Engine:
    """One set of rules encoded as clauses, and the solver calls every mode shares."""

    def __init__(self, r: RuleClauses, solver: str) -> None:
        g = r.rules
        self.clauses = r
        self.rules = g
        self.solver_name = solver
        self.n = g.n
        self.ncells = g.cells
        self.top_cell = g.n**3
        #: Literal ``cell*n`` for each cell: a given's literal is ``base[i] + value``.
        self.base = range(0, self.top_cell, g.n)
        #: The value a positive cell literal stands for, indexed by the literal.
        self.value_of = [0, *((lit - 1) % g.n + 1 for lit in range(1, self.top_cell + 1))]
        self.interruptible = solver in INTERRUPTIBLE
        self.budgeted = solver in BUDGETED
        #: Conflicts per second last seen in a budgeted slice (sizes the next slices).
        self.conflict_rate: float | None = None
        #: Set by :meth:`call` when the conflict budget, not the clock, stopped it.
        self.over_budget = False

    def search(
        self, cells: tuple[int, ...], limit: int, deadline: float | None, rules: Rules
    ) -> Search:
        """Find up to ``limit`` solutions of the puzzle with these cells and ``rules``.

        ``rules`` are the engine's own plus, maybe, constraints of this puzzle alone.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Delete native solvers."""
        return None

    def abandon(self) -> None:
        """Drop native solvers without deleting them (:func:`interrupts.abandon`)."""
        return None

    def values(self, model: list[int]) -> tuple[int, ...]:
        """The grid of a model of the whole rules: one true cell literal per cell."""
        true = [lit for lit in model[: self.top_cell] if lit > 0]
        if len(true) != self.ncells:  # not one value per cell: the verifier will say why
            out = [0] * self.ncells
            for lit in true:
                out[(lit - 1) // self.n] = self.value_of[lit]
            return tuple(out)
        return tuple(map(self.value_of.__getitem__, true))

    def blocking(self, values: tuple[int, ...], open_cells: list[bool]) -> list[int]:
        """The clause that rules out ``values`` on the open cells (givens are fixed)."""
        return [-(b + v) for b, v in compress(zip(self.base, values, strict=True), open_cells)]

    def call(
        self,
        solver: Solver,
        assumptions: list[int],
        deadline: float | None,
        budget: int | None = None,
    ) -> bool | None:
        """One SAT call: True/False, or None when the deadline or ``budget`` stopped it.

        ``budget`` caps the conflicts of the call (only for solvers that take one);
        :attr:`over_budget` then tells the two reasons for None apart.

        Raises:
            KeyboardInterrupt: Ctrl-C stopped the call; the solver is abandoned (its
                ``delete`` does nothing: :mod:`cpsudoku.engines.interrupts`).
        """
        try:
            return self._call(solver, assumptions, deadline, budget)
        except Exception as exc:
            raise_interrupt(exc, solver)
            raise

    def _call(
        self, solver: Solver, assumptions: list[int], deadline: float | None, budget: int | None
    ) -> bool | None:
        """:meth:`call`, without the translation of python-sat's interrupt."""
        self.over_budget = False
        if budget is not None and not (self.interruptible or self.budgeted):
            budget = None
        if deadline is None:
            if budget is None:
                return bool(solver.solve(assumptions=assumptions))
            solver.conf_budget(budget)
            answer = solver.solve_limited(assumptions=assumptions)
            self.over_budget = answer is None
            return answer
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        if self.interruptible:
            answer = _call_interrupt(solver, assumptions, remaining, budget)
            self.over_budget = answer is None and time.perf_counter() < deadline
            return answer
        if self.budgeted:
            return self._call_sliced(solver, assumptions, deadline, budget)
        raise UnknownBackendError(f"SAT solver {self.solver_name!r} cannot honour a time limit")

    def _call_sliced(
        self, solver: Solver, assumptions: list[int], deadline: float, budget: int | None
    ) -> bool | None:
        """Limited calls in conflict-budget slices until an answer, the deadline or budget.

        Each slice is sized from the conflict rate last measured on this engine, so it
        ends well before the deadline; the clock is read between slices.
        """
        start = time.perf_counter()
        remaining = deadline - start
        spent = 0
        while True:
            target = min(max(SLICE_SECONDS, (time.perf_counter() - start) / 10), remaining / 2)
            rate = self.conflict_rate
            size = FIRST_SLICE if rate is None else max(FIRST_SLICE, int(rate * target))
            if budget is not None:
                size = min(size, budget - spent)
            before = time.perf_counter()
            conflicts = solver.accum_stats()["conflicts"]
            solver.conf_budget(size)
            answer = solver.solve_limited(assumptions=assumptions)
            if answer is not None:
                return answer
            now = time.perf_counter()
            done = solver.accum_stats()["conflicts"] - conflicts
            spent += done
            if done > 0:
                self.conflict_rate = done / max(now - before, 1e-6)
            if budget is not None and spent >= budget:
                self.over_budget = True
                return None
            remaining = deadline - now
            if remaining <= 0:
                return None


def _call_interrupt(
    solver: Solver, assumptions: list[int], remaining: float, budget: int | None
) -> bool | None:
    """A limited call stopped by ``interrupt()`` at the deadline (or by the budget).

    python-sat runs it without the GIL and without its own SIGINT handler, so
    :class:`~cpsudoku.engines.interrupts.StopAt` also stops it at once on Ctrl-C, and
    raises the KeyboardInterrupt when it returns.
    """
    solver.conf_budget(-1 if budget is None else budget)
    try:
        with StopAt(solver.interrupt, remaining):
            return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        solver.clear_interrupt()


class _OneShot(_Engine):
    """A new solver for every puzzle: the textbook CNF (``fresh``) or the reduced one."""

    def __init__(self, r: RuleClauses, solver: str, *, reduce: bool) -> None:
        super().__init__(r, solver)
        self.reduce = reduce

    def search(
        self, cells: tuple[int, ...], limit: int, deadline: float | None, rules: Rules
    ) -> Search:
        r = self.clauses
        puzzle = Puzzle(rules, cells)
        if self.reduce:
            # The rule of 45's cages, as the live solver has them, its innies and
            # outies of runs of units, which only a puzzle hard enough to come here
            # pays for (their encoding costs an easy killer more than its search), and
            # the bands of parallel diagonals holding whole boxes (little killers
            # beside an X: the hailstone little killer, 84,000 -> 44,000 conflicts).
            implied = implied_cages(rules) + implied_sums(rules) + diagonal_bands(rules)
            red = reduced(puzzle, r.encoding, r.at_most_one, implied=implied)
            clauses: list[Any] = red.clauses

            def values(model: list[int]) -> tuple[int, ...]:
                return decode_reduced(model, puzzle, red)

        else:
            # The textbook way: the whole CNF is encoded anew for every puzzle.
            fresh = encode_rules(rules, r.encoding, r.at_most_one).clauses
            clauses = [*fresh, *([lit] for lit in given_literals(puzzle))]
            values = self.values
        open_cells = [not v for v in cells]
        found = Search()
        stats: dict[str, int] = {}
        blocking: list[list[int]] = []
        solver = _loaded(self.solver_name, clauses)
        try:
            while True:
                answer = self.call(solver, [], deadline)
                if not answer:
                    break
                grid = values(solver.get_model())
                found.count += 1
                if len(found.solutions) < 2:
                    found.solutions.append(grid)
                if found.count >= limit:
                    break
                blocking.append(self.blocking(grid, open_cells))
                if self.solver_name in ONE_SHOT:  # cannot be called twice: start over
                    stats = _add(stats, _stats(solver))
                    solver.delete()
                    solver = _loaded(self.solver_name, clauses + blocking)
                else:
                    solver.add_clause(blocking[-1])
            stats = _add(stats, _stats(solver))
        finally:
            solver.delete()
        found.timed_out = answer is None
        found.exhausted = answer is False
        found.stats = stats
        return found


class _Incremental(_Engine):
    """The rules in one live solver; givens as assumptions; retired selectors."""

    def __init__(self, r: RuleClauses, solver: str, *, lines: bool = False) -> None:
        super().__init__(r, solver)
        self.solver: Solver | None = None
        #: True when the live rules are only the cells, rows and columns
        #: (:func:`line_clauses`): each puzzle brings its regions, as it brings cages.
        self.lines = lines
        #: Variables after the rules' that a puzzle's own constraints may use (the
        #: same numbers for every puzzle); the selectors come after them.
        self.aux = 0
        self.top = r.top
        #: Solves hard puzzles (escalation) and picks among several solutions.
        self.one_shot = _OneShot(r, solver, reduce=True)

    def _build(self) -> Solver:
        solver = Solver(self.solver_name)
        options = TUNED_OPTIONS.get(self.solver_name, {}) | PROPAGATION_PROOF.get(
            self.solver_name, {}
        )
        if options:
            solver.configure(options)
        deque(map(clause_adder(solver), self.clauses.clauses), maxlen=0)
        self.solver = solver
        self.top = self.clauses.top + self.aux
        return solver

    def search(
        self, cells: tuple[int, ...], limit: int, deadline: float | None, rules: Rules
    ) -> Search:
        solver = self.solver
        if solver is None or self.top - self.clauses.top - self.aux >= MAX_SELECTORS:
            self.close()
            solver = self._build()
        assumptions = [b + v for b, v in zip(self.base, cells, strict=True) if v]
        guard = 0  # the selector of this puzzle's own constraints, if it has any
        if (rules.constraints and not self.rules.constraints) or self.lines:
            guard, extra, assumed = self._guarded(rules, cells)
            solver = self.solver or self._build()
            deque(map(clause_adder(solver), extra), maxlen=0)
            assumptions += assumed
            assumptions.append(guard)
        before: dict[str, int] = solver.accum_stats()  # the incremental solvers all report
        budget = ESCALATE_CONFLICTS
        found = Search()
        selector = 0  # this puzzle's selector, once it needs one
        one_level = False  # True once the givens sit behind the selector
        first = budget
        if ONE_LEVEL_CONFLICTS is not None and len(assumptions) > 1:
            first = ONE_LEVEL_CONFLICTS  # (one assumption is one level already)
        answer = self.call(solver, assumptions, deadline, first)
        if answer is None and self.over_budget and first != budget:
            # A hard one: the givens go behind one selector, one decision level.
            selector = self.new_selector()
            for lit in assumptions:
                solver.add_clause([-selector, lit])
            assumptions = [selector]
            one_level = True
            answer = self.call(solver, assumptions, deadline, budget)
        forced = (
            bool(answer) and limit > 1 and self.forced_by_propagation(solver, assumptions, before)
        )
        if answer and (limit == 1 or forced):
            found.count = 1
            found.solutions.append(self.values(solver.get_model()))
            if forced:  # propagation built the model: no other solution can exist
                answer = False
        elif answer:
            # The selector (a new one, unless the givens are behind one already) guards
            # every blocking clause of this puzzle.
            if not selector:
                selector = self.new_selector()
                assumptions.append(selector)
            open_cells = [not v for v in cells]
            while answer:
                grid = self.values(solver.get_model())
                found.count += 1
                if len(found.solutions) < 2:
                    found.solutions.append(grid)
                if found.count >= limit:
                    break
                clause = self.blocking(grid, open_cells)
                clause.append(-selector)
                solver.add_clause(clause)
                answer = self.call(solver, assumptions, deadline, budget)
        for retired in (selector, guard):
            if retired:  # retire it: nothing leaks into the next puzzle
                solver.add_clause([-retired])
        stats = _delta(solver.accum_stats(), before)
        if one_level:
            stats["one_level"] = 1
        if answer is None and self.over_budget:
            # Too hard under assumptions: start again on the puzzle's reduced formula.
            found = self.one_shot.search(cells, limit, deadline, rules)
            found.stats = _add(found.stats, stats)
            found.stats["escalated"] = 1
            return found
        found.timed_out = answer is None
        found.exhausted = answer is False
        if forced:
            stats["forced"] = 1
        found.stats = stats
        if found.count >= 2:
            self._first_from_scratch(found, cells, deadline, rules)
        return found

    def _guarded(self, rules: Rules, cells: tuple[int, ...]) -> tuple[int, list[Clause], list[int]]:
        """A new guard, the clauses of the puzzle's own rules behind it, literals to assume.

        Its constraints, and on a solver of :attr:`lines` its regions and extra regions,
        narrowed by its givens (``cells``), which every call of the puzzle assumes; the
        regions' one-literal clauses are assumed with them
        (:func:`~cpsudoku.encode.cnf.region_literals`).

        The cages the rule of 45 implies go in too (:func:`implied_cages`): they cut
        the search on killers about fivefold (docs/design.md). Auxiliary variables are
        numbered from the rules' top for every puzzle: the clauses of an earlier puzzle
        that used them all sit behind its retired guard, and so does every clause
        learned from those, so nothing of theirs binds the new ones. The selectors
        come after that block; the solver is rebuilt only when the block must grow.
        """
        constraints = rules.constraints + implied_cages(rules)
        regions = rules.unit_cells[2 * rules.n :] if self.lines else ()
        r = self.clauses
        while True:
            guard = self.new_selector()
            extra: list[Clause] = []
            assumed: list[int] = []
            top = unit_clauses(
                regions,
                rules.n,
                r.encoding,
                r.at_most_one,
                r.top,
                extra,
                cells,
                guard=guard,
                assumed=assumed,
                writer=_region_writer if rules.n <= NATIVE_SIDE else None,
            )
            used = constraint_clauses(constraints, rules, top, extra, guard=guard) - r.top
            if used <= self.aux:
                return guard, extra, assumed
            self.aux = 2 * used
            self.close()
            self._build()

    def new_selector(self) -> int:
        """A new variable, numbered after the rules' and every earlier selector."""
        self.top += 1
        return self.top

    def forced_by_propagation(
        self, solver: Solver, assumptions: list[int], before: dict[str, int]
    ) -> bool:
        """True when the last satisfiable call found its model with no decision at all.

        Then unit propagation derived the model from the givens and from clauses implied
        by the rules (learned clauses are; every blocking clause sits behind a retired
        selector), so every solution of the puzzle agrees with it: it is the only one.
        Only for :data:`PROPAGATION_PROOF`, and only with givens (with none, CaDiCaL
        may find a model by its "lucky" phases without counting a decision). Tests
        check this on multi-solution puzzles, which can never be decided this way.
        """
        if not assumptions or self.solver_name not in PROPAGATION_PROOF:
            return False
        return bool(solver.accum_stats()["decisions"] == before["decisions"])

    def _first_from_scratch(
        self, found: Search, cells: tuple[int, ...], deadline: float | None, rules: Rules
    ) -> None:
        """Report first the solution a new solver finds on the reduced formula.

        Which of several solutions a live solver finds depends on what it learned from
        earlier puzzles, so the same puzzle would get a different one in another batch
        order or partition. The first solution on a new solver is a function of the
        puzzle alone (and the same one escalation would report). Puzzles are meant to
        be unique, so this costs little overall.
        """
        first = self.one_shot.search(cells, 1, deadline, rules)
        found.stats = _add(found.stats, first.stats)
        if first.solutions:
            best = first.solutions[0]
            other = next(s for s in found.solutions if s != best)
            found.solutions[:] = [best, other]

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None

    def abandon(self) -> None:
        if self.solver is not None:
            abandon(self.solver)
            self.solver = None
