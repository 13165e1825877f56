"""OR-Tools CP-SAT backend (``cpsat``); the models live in :mod:`cpsudoku.encode.cpsat`.

Variant words (``cpsat:integer:exclude`` and so on):

- model kind: ``boolean`` (one-hot cells, exactly-one per cell and per unit and value,
  killer cages as their digit sets) or ``integer`` (one variable per cell, AllDifferent
  per unit); by default chosen per rule set (:meth:`CpSatBackend.kind_for`);
- counting method: ``callback`` (default: one solve that enumerates solutions through a
  callback and stops it at the limit) or ``exclude`` (solve, then solve again with the
  found solutions forbidden, until the limit or infeasibility);
- ``parallel``: on grids of side 16 and up, searches for one solution (``unique=False``,
  and each solve of ``exclude``) use ``os.cpu_count()`` workers. Enumeration always
  uses one worker, because several workers can report a solution more than once.
- ``sample``: the OR-Tools sample approach, kept as the textbook baseline: a new
  ``CpModel`` per puzzle (integer cells, AllDifferent, givens as equalities) and
  default parameters. It takes no other word.
- ``textbook``: the textbook model of the variant puzzles' literature, the baseline of
  variant rules: the same new model per puzzle (AllDifferent and a linear sum per
  killer cage), one worker, and uniqueness by a second solve that forbids the first
  solution. It takes no other word either.

Why these defaults (measured with ``benchmarks/cpsat_speed.py``; docs/design.md has
the figures): CP-SAT keeps no state between solves, so what differs between approaches
is the per-solve overhead: building or copying the model, presolve, probing. Rules met
more than once are built once and kept as one model proto; a puzzle only adds its givens
(narrowed domains, or assumptions when the Boolean model enumerates) and takes them off
again afterwards: no model building, no copy. Rules of their own per puzzle (a killer
or jigsaw dataset) are written into one scratch proto, puzzle after puzzle.
The one-hot model needs no presolve to propagate well, so presolve, probing, symmetry
detection, inprocessing and the LP relaxation are all off (:data:`TUNED`). Enumerating
with a callback beat a second, excluding solve: the second solve repeats the whole
set-up cost, while the callback costs one Python call. One worker beat all cores even
on hard 25x25 puzzles (two workers took 1.1-1.9x the time and 2-3.7x the CPU: CP-SAT's
parallel portfolio runs its own configurations, not this tuned one), hence
``parallel`` is not the default.

Searches on grids of side 16 and up run in a helper thread, so Ctrl-C stops the search
at once (``stop_search``) and is then raised as usual; smaller grids take milliseconds.

Stats: ``branches`` and ``conflicts``, summed over the solves of one search.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from functools import partial
from typing import Literal

from ortools.sat.python import cp_model
from ortools.sat.python import cp_model_helper as cmh

from cpsudoku.encode.cpsat import (
    ModelKind,
    add_exclusion,
    decode,
    free_domains,
    given_domains,
    given_literals,
    needs_integer,
    rules_model,
    sample_model,
    set_domains,
    write_boolean,
)
from cpsudoku.engines.base import GENERAL_PRIMITIVES, Backend, Search
from cpsudoku.model.errors import SolverError, UnknownBackendError
from cpsudoku.model.primitives import Choice, DigitSets, Sum
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: Smallest grid side whose searches run interruptibly (Ctrl-C mid-search), and that the
#: ``parallel`` variant searches with all cores.
BIG_SIDE = 16

#: Parameters for many small solves, per model kind (measured; see docs/design.md).
#: Applied on top of CP-SAT's defaults and :data:`COMMON`; ``num_workers`` and the time
#: limit are set per solve.
TUNED: Mapping[ModelKind, Mapping[str, bool | int]] = {
    # One-hot model: the clauses are already there, so every presolve and root-level
    # pass only costs time. Without presolve, root probing and inprocessing are the
    # remaining fixed costs; the LP relaxation and symmetry detection never pay off.
    # Nor does the loader's search of the clauses for integer bounds ("greater than at
    # least one of"): there are no integers (killer sample 6% less solve time, classic
    # puzzles 2-5%).
    "boolean": {
        "cp_model_presolve": False,
        "cp_model_probing_level": 0,
        "use_sat_inprocessing": False,
        "linearization_level": 0,
        "symmetry_level": 0,
        "auto_detect_greater_than_at_least_one_of": False,
    },
    # AllDifferent model: one short presolve pass is needed to expand AllDifferent into
    # clauses (without presolve it is 30% slower on 17-clue puzzles); its expensive parts
    # (probing, SAT presolve, symmetry, more iterations) are off.
    "integer": {
        "max_presolve_iterations": 1,
        "cp_model_probing_level": 0,
        "cp_model_use_sat_presolve": False,
        "use_sat_inprocessing": False,
        "linearization_level": 0,
        "symmetry_level": 0,
    },
}


#: On top of the tuning when the model holds linear sums (the integer model's cages,
#: little killers, arrows, sandwiches): the LP relaxation pays there (killer sample,
#: integer model: about 2x the tuned parameters; docs/design.md).
SUMS: Mapping[str, int] = {"linearization_level": 1}

#: Rule sets met more than once whose models a backend keeps, and rule sets met once
#: that it remembers (a killer dataset has rules per puzzle).
KEPT_MODELS = 64


def _has_choice(rules: Rules) -> bool:
    """True when the rules hold a choice (an ``or`` of rules)."""
    return bool(rules.constraints) and any(isinstance(p, Choice) for p in rules.primitives)


def _linear(rules: Rules, kind: ModelKind) -> bool:
    """True when the model of ``rules`` holds linear sums (the LP relaxation reads them).

    The integer model writes a cage's sum and every repeat sum as one; the Boolean
    model writes a cage as its digit sets (clauses) and takes no repeat sums.
    """
    if kind == "integer":
        return any(isinstance(p, Sum | DigitSets) for p in rules.primitives)
    return False


#: Set for every solve, the sample's included: they change no search, only behaviour.
COMMON: Mapping[str, bool] = {
    # CP-SAT's own SIGINT handler swallows Ctrl-C (the solve returns as if the time had
    # run out, and the batch goes on); without it Python raises KeyboardInterrupt.
    "catch_sigint_signal": False,
    "log_search_progress": False,
}


class Outcome(Enum):
    """What a CP-SAT status says about one solve (see :func:`translate_status`)."""

    COMPLETE = "complete"
    """OPTIMAL: a solution, and the search finished (an enumeration saw every solution)."""
    STOPPED = "stopped"
    """FEASIBLE: a solution, but the search stopped early (solution limit or time)."""
    NONE = "none"
    """INFEASIBLE: proven to have no (further) solution."""
    UNKNOWN = "unknown"
    """UNKNOWN: stopped (by the time limit) before finding anything."""


def translate_status(
    status: cmh.CpSolverStatus,
    model: cmh.CpModelProto,
    parameters: cmh.SatParameters | None = None,
) -> Outcome:
    """Translate a CP-SAT status explicitly; never guess at one.

    Raises:
        SolverError: MODEL_INVALID (with CP-SAT's own validation message for ``model``;
            when the model validates, CP-SAT rejected a parameter instead, and the
            message lists ``parameters``), or any status this code does not know.
    """
    if status == cmh.CpSolverStatus.OPTIMAL:
        return Outcome.COMPLETE
    if status == cmh.CpSolverStatus.FEASIBLE:
        return Outcome.STOPPED
    if status == cmh.CpSolverStatus.INFEASIBLE:
        return Outcome.NONE
    if status == cmh.CpSolverStatus.UNKNOWN:
        return Outcome.UNKNOWN
    if status == cmh.CpSolverStatus.MODEL_INVALID:
        why = cmh.CpSatHelper.validate_model(model)
        if not why:
            shown = " ".join(str(parameters).split()) if parameters is not None else "?"
            why = f"the model validates, so a parameter is out of range: {shown}"
        raise SolverError(f"CP-SAT rejected the model as invalid: {why}")
    raise SolverError(f"CP-SAT returned an unexpected status {status!r}")


class CpSatBackend(Backend):
    """CP-SAT (OR-Tools): the rules built once per set of rules, tuned for many small solves."""

    name = "cpsat"
    primitive_kinds = GENERAL_PRIMITIVES
    variants = ("boolean", "integer", "callback", "exclude", "parallel", "sample", "textbook")
    baseline = "cpsat:sample"
    bench_variants = ("cpsat:integer", "cpsat:exclude")
    races = True

    def __init__(
        self,
        variant: Sequence[str] = (),
        *,
        parameters: Mapping[str, bool | int | float | str | None] | None = None,
    ) -> None:
        """Create the backend.

        Args:
            variant: the variant words (see the module docstring).
            parameters: CP-SAT parameters to set on top of :data:`TUNED`, by field name
                (``{"cp_model_presolve": True}``; enum fields by value name, e.g.
                ``{"search_branching": "FIXED_SEARCH"}``); ``None`` as a value restores
                CP-SAT's own default for that field. For experiments: the benchmark
                uses it to measure each tuned parameter's effect.

        Raises:
            UnknownBackendError: an unknown or contradictory variant word.
        """
        super().__init__(variant)
        self.overrides = dict(parameters or {})
        words = set(self.variant)
        for pair in (("boolean", "integer"), ("callback", "exclude")):
            if set(pair) <= words:
                raise UnknownBackendError(f"backend 'cpsat' takes only one of {' and '.join(pair)}")
        self.sample = "sample" in words
        self.textbook = "textbook" in words
        for word in ("sample", "textbook"):
            if word in words and len(words) > 1:
                raise UnknownBackendError(f"the variant 'cpsat:{word}' takes no other variant word")
        #: The model kind asked for; None: chosen per rule set (:meth:`kind_for`).
        self.asked: ModelKind | None = (
            "integer" if "integer" in words else "boolean" if "boolean" in words else None
        )
        self.kind: ModelKind = self.asked or "boolean"
        self.counting: Literal["callback", "exclude"] = (
            "exclude" if "exclude" in words else "callback"
        )
        self.parallel = "parallel" in words
        #: The models of rule sets met more than once; :data:`KEPT_MODELS` at most.
        self._rules: dict[tuple[Rules, ModelKind], cmh.CpModelProto] = {}
        #: The rule sets met once (the last :data:`KEPT_MODELS`), and the proto their
        #: Boolean models are written into, one after the other.
        self._met: dict[tuple[Rules, ModelKind], None] = {}
        self._scratch = cmh.CpModelProto()
        self._params: dict[tuple[bool, int, ModelKind, bool], cmh.SatParameters] = {}

    @property
    def keeps_rules(self) -> bool:
        """The sample and textbook approaches build a new model for every puzzle."""
        return not (self.sample or self.textbook)

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Find up to ``limit`` distinct solutions with CP-SAT."""
        if self.sample:
            return _sample_search(puzzle, limit, time_limit)
        if self.textbook:
            return _textbook_search(puzzle, limit, time_limit)
        kind = self.kind_for(puzzle.rules)
        proto = self._rules_for(puzzle.rules, kind)
        # The givens go onto the shared rules and come off again afterwards, whatever
        # happens: as fixed domains, or as assumptions when the Boolean model enumerates.
        # An enumeration fixes assumptions at the root, and setting them is one call;
        # a plain solve keeps them as decisions, 5-10x slower on hard 25x25 grids (and
        # with ``parallel``, assumptions would force one worker).
        # A choice's branch literals (and what its idle branches hold) are not fixed by
        # the cells: an enumeration would list each grid many times over, so such
        # rules count by excluding each grid found instead. An automaton's states are
        # (both models write them so), and automata enumerate.
        counting = "exclude" if _has_choice(puzzle.rules) else self.counting
        enumerating = counting == "callback" and limit > 1
        assume = kind == "boolean" and enumerating and not self.parallel
        if assume:
            proto.assumptions.extend(given_literals(puzzle))
        else:
            set_domains(proto, given_domains(puzzle, kind))
        try:
            if counting == "callback" or limit == 1:
                return self._callback_search(proto, puzzle, limit, time_limit, kind)
            return self._exclude_search(proto, puzzle, limit, time_limit, kind)
        finally:
            if assume:
                proto.assumptions.clear()
            else:
                set_domains(proto, free_domains(puzzle, kind))

    def kind_for(self, rules: Rules) -> ModelKind:
        """The model kind for ``rules``: the one asked for, else chosen by the rules.

        Rules with sums whose digits may repeat (little killers, arrows), automata
        (sandwiches and other clues read along a line) or choices get the integer
        model (:func:`~cpsudoku.encode.cpsat.needs_integer`), whose linear constraints
        CP-SAT's LP relaxation reads well; every other rule set the one-hot model,
        killer cages included: written as their digit sets they need no LP, and the
        model is written fast enough to build per puzzle (killer sample: about 2.5x
        the integer model; docs/design.md).
        """
        if self.asked is not None:
            return self.asked
        return "integer" if needs_integer(rules) else "boolean"

    def close(self) -> None:
        """Drop the cached rules."""
        self._rules.clear()
        self._met.clear()

    def _rules_for(self, rules: Rules, kind: ModelKind) -> cmh.CpModelProto:
        """The rules' model: kept from the second time they are met.

        A killer or jigsaw dataset has rules of its own per puzzle: such a model is
        used once, so it is written into one scratch proto, puzzle after puzzle (a
        proto that held a model takes a copy in about 20 us, a new one in 80 us for
        9x9). Rules met again (a classic dataset) get a proto of their own, the oldest
        dropped past :data:`KEPT_MODELS` rule sets, its storage reused.
        """
        key = (rules, kind)
        proto = self._rules.get(key)
        if proto is not None:
            return proto
        again = key in self._met
        if not again:
            if len(self._met) >= KEPT_MODELS:
                del self._met[next(iter(self._met))]
            self._met[key] = None
        if kind == "integer":
            proto = rules_model(rules, kind).proto
        elif not again:
            proto = self._scratch
        elif len(self._rules) >= KEPT_MODELS:
            proto = self._rules.pop(next(iter(self._rules)))
        else:
            proto = cmh.CpModelProto()
        if kind == "boolean":
            write_boolean(proto, rules)
        if again:
            if len(self._rules) >= KEPT_MODELS:
                del self._rules[next(iter(self._rules))]
            self._rules[key] = proto
        return proto

    def _workers(self, rules: Rules) -> int:
        """Workers for a search of one solution: all cores only with ``parallel`` on big grids."""
        return _cores() if self.parallel and rules.n >= BIG_SIDE else 1

    def _parameters(
        self, enumerate_all: bool, workers: int, time_limit: float | None, g: Rules
    ) -> cmh.SatParameters:
        """The tuned parameters for one solve (cached per setting, model kind and sums)."""
        kind = self.kind_for(g)
        sums = _linear(g, kind)
        params = self._params.get((enumerate_all, workers, kind, sums))
        if params is None:
            params = cmh.SatParameters()
            params.num_workers = workers
            tuned = {**TUNED[kind], **(SUMS if sums else {})}
            chosen = {**COMMON, **tuned, **self.overrides}
            for key, value in chosen.items():
                if value is not None:
                    if isinstance(value, str):  # an enum field, by value name
                        value = getattr(cmh.SatParameters, value)
                    setattr(params, key, value)
            params.enumerate_all_solutions = enumerate_all
            self._params[(enumerate_all, workers, kind, sums)] = params
        params.max_time_in_seconds = _seconds(time_limit)
        return params

    def _callback_search(
        self,
        proto: cmh.CpModelProto,
        puzzle: Puzzle,
        limit: int,
        time_limit: float | None,
        kind: ModelKind,
    ) -> Search:
        """One solve; with ``limit > 1`` it enumerates through a callback that stops it.

        A search for one solution takes no callback and, on a big grid, every core.
        """
        g = puzzle.rules
        big = g.n >= BIG_SIDE
        if limit == 1:
            params = self._parameters(False, self._workers(g), time_limit, g)
            response = _run(proto, params, None, big)
            outcome = translate_status(response.status, proto, params)
            found = Search(stats=_stats(response))
            if outcome in (Outcome.COMPLETE, Outcome.STOPPED):
                found.solutions.append(decode(response.solution, g, kind, puzzle))
                found.count = 1
            found.exhausted = outcome is Outcome.NONE
            found.timed_out = outcome is Outcome.UNKNOWN
            return found
        collector = _Collector(puzzle, kind, limit)
        params = self._parameters(True, 1, time_limit, g)
        response = _run(proto, params, collector, big)
        outcome = translate_status(response.status, proto, params)
        found = Search(collector.first, len(collector.seen), stats=_stats(response))
        _enumeration_flags(found, outcome, limit)
        return found

    def _exclude_search(
        self,
        proto: cmh.CpModelProto,
        puzzle: Puzzle,
        limit: int,
        time_limit: float | None,
        kind: ModelKind,
    ) -> Search:
        """Solve, then solve again with every found solution forbidden, up to ``limit``."""
        g = puzzle.rules
        workers = self._workers(g)
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        found = Search(stats={"branches": 0, "conflicts": 0})
        model: cp_model.CpModel | None = None
        current = proto
        while True:
            remaining = None if deadline is None else deadline - time.perf_counter()
            params = self._parameters(False, workers, remaining, g)
            response = _run(current, params, None, g.n >= BIG_SIDE)
            for key, value in _stats(response).items():
                found.stats[key] += value
            outcome = translate_status(response.status, current, params)
            read = partial(decode, response.solution, g, kind, puzzle)
            grid = _counted(found, outcome, limit, puzzle, read)
            if grid is None:
                return found
            if model is None:
                # The shared rules stay untouched: exclusions go into a private copy.
                model = cp_model.CpModel()
                model.proto.copy_from(proto)
                current = model.proto
            add_exclusion(model, puzzle, grid, kind)


class _Collector(cp_model.CpSolverSolutionCallback):
    """Counts distinct grids, keeps the first two, and stops the search at the limit."""

    def __init__(self, puzzle: Puzzle, kind: ModelKind, limit: int) -> None:
        super().__init__()
        self.puzzle = puzzle
        self.kind: ModelKind = kind
        self.limit = limit
        self.seen: set[tuple[int, ...]] = set()
        self.first: list[tuple[int, ...]] = []

    def on_solution_callback(self) -> None:
        """Record one solution (deduplicated on the grid)."""
        grid = decode(self.response_proto.solution, self.puzzle.rules, self.kind, self.puzzle)
        if grid not in self.seen:
            self.seen.add(grid)
            if len(self.first) < 2:
                self.first.append(grid)
        if len(self.seen) >= self.limit:
            self.stop_search()


class _SampleCounter(cp_model.CpSolverSolutionCallback):
    """The sample's solution callback: read each cell with ``value``, stop at a limit."""

    def __init__(self, cells: list[cp_model.IntVar], limit: int) -> None:
        super().__init__()
        self.cells = cells
        self.limit = limit
        self.seen: dict[tuple[int, ...], None] = {}

    def on_solution_callback(self) -> None:
        """Record one solution (deduplicated) and stop at the limit."""
        self.seen[tuple(self.value(x) for x in self.cells)] = None
        if len(self.seen) >= self.limit:
            self.stop_search()


def _sample_search(puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
    """The OR-Tools sample approach: new model, default parameters, ``CpSolver``.

    One solution: a plain ``solve``. More: ``enumerate_all_solutions`` and a callback
    that stops at the limit, as in the sample ``stop_after_n_solutions_sample_sat.py``.
    Only the time limit and :data:`COMMON` (Ctrl-C handling, no log) are set.
    """
    model, cells = sample_model(puzzle)
    solver = cp_model.CpSolver()
    for key, value in COMMON.items():
        setattr(solver.parameters, key, value)
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = _seconds(time_limit)
    counter = None
    if limit > 1:
        solver.parameters.enumerate_all_solutions = True
        counter = _SampleCounter(cells, limit)
    status = solver.solve(model, counter)
    outcome = translate_status(status, model.proto, solver.parameters)
    found = Search(stats={"branches": solver.num_branches, "conflicts": solver.num_conflicts})
    if counter is None:
        if outcome in (Outcome.COMPLETE, Outcome.STOPPED):
            found.solutions.append(tuple(solver.value(x) for x in cells))
            found.count = 1
        found.exhausted = outcome is Outcome.NONE
        found.timed_out = outcome is Outcome.UNKNOWN
        return found
    found.solutions = list(counter.seen)[:2]
    found.count = len(counter.seen)
    _enumeration_flags(found, outcome, limit)
    return found


def _textbook_search(puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
    """The textbook way: new model, one worker, each further solution by a new solve.

    The model of :func:`sample_model`; after each solution, a clause forbidding it
    (:func:`add_exclusion`) and a solve of the grown model, until the limit or no
    solution is left. Only one worker, the time limit and :data:`COMMON` are set.
    """
    model, cells = sample_model(puzzle)
    solver = cp_model.CpSolver()
    for key, value in COMMON.items():
        setattr(solver.parameters, key, value)
    solver.parameters.num_workers = 1
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    found = Search(stats={"branches": 0, "conflicts": 0})
    while True:
        if deadline is not None:
            solver.parameters.max_time_in_seconds = _seconds(deadline - time.perf_counter())
        outcome = translate_status(solver.solve(model), model.proto, solver.parameters)
        found.stats["branches"] += solver.num_branches
        found.stats["conflicts"] += solver.num_conflicts
        grid = _counted(found, outcome, limit, puzzle, lambda: tuple(map(solver.value, cells)))
        if grid is None:
            return found
        add_exclusion(model, puzzle, grid, "integer")


def _counted(
    found: Search,
    outcome: Outcome,
    limit: int,
    puzzle: Puzzle,
    read: Callable[[], tuple[int, ...]],
) -> tuple[int, ...] | None:
    """One solve of a count by exclusion, recorded: the grid to forbid next, or None.

    None when the count is over: the clock ran out, no solution is left, the limit is
    reached, or the puzzle is a full grid (its own only candidate). ``read`` gives the
    solve's grid.
    """
    if outcome is Outcome.UNKNOWN:
        found.timed_out = True
        return None
    if outcome is Outcome.NONE:
        found.exhausted = True
        return None
    grid = read()
    found.count += 1
    if len(found.solutions) < 2:
        found.solutions.append(grid)
    if found.count >= limit:
        return None
    if puzzle.is_complete:
        found.exhausted = True
        return None
    return grid


def _enumeration_flags(found: Search, outcome: Outcome, limit: int) -> None:
    """Set ``exhausted``/``timed_out`` after an enumeration that a callback may stop.

    OPTIMAL/INFEASIBLE: the enumeration finished. FEASIBLE: it was stopped, by the
    callback at the limit or else by the clock. UNKNOWN: the clock, before anything.
    At the limit the count is never called exact, whatever the status says (a stopped
    search has been reported as OPTIMAL: google/or-tools#4430).
    """
    found.exhausted = outcome in (Outcome.COMPLETE, Outcome.NONE) and found.count < limit
    found.timed_out = found.count < limit and outcome in (Outcome.UNKNOWN, Outcome.STOPPED)


def _run(
    proto: cmh.CpModelProto,
    params: cmh.SatParameters,
    callback: cp_model.CpSolverSolutionCallback | None,
    interruptible: bool,
) -> cmh.CpSolverResponse:
    """Solve ``proto`` once (a new ``SolveWrapper`` per solve: reusing one aborts).

    With ``interruptible`` the solve runs in a helper thread while this thread waits,
    so a KeyboardInterrupt arrives at once: the search is stopped, waited for, and the
    interrupt re-raised. (CP-SAT's own SIGINT handler would swallow the interrupt and
    return as if the time had run out; without it, Ctrl-C would wait for the solve.)
    The callback is detached from the wrapper afterwards, as ``CpSolver.solve`` does.
    """
    wrapper = cmh.SolveWrapper()
    wrapper.set_parameters(params)
    if callback is not None:
        wrapper.add_solution_callback(callback)
    try:
        if not interruptible:
            return wrapper.solve(proto)
        return _solve_in_thread(wrapper, proto)
    finally:
        if callback is not None:
            wrapper.clear_solution_callback(callback)


def _solve_in_thread(wrapper: cmh.SolveWrapper, proto: cmh.CpModelProto) -> cmh.CpSolverResponse:
    """Run ``wrapper.solve`` in a helper thread; on Ctrl-C stop it, wait, re-raise."""
    box: list[cmh.CpSolverResponse] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append(wrapper.solve(proto))
        except BaseException as exc:  # handed to the waiting thread
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="cpsat-solve", daemon=True).start()
    try:
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt:
        while True:  # stop and wait for the search, however often Ctrl-C is pressed
            try:
                wrapper.stop_search()
                done.wait()
                break
            except KeyboardInterrupt:
                continue
        raise
    if failure:
        raise failure[0]
    return box[0]


def _stats(response: cmh.CpSolverResponse) -> dict[str, int]:
    return {"branches": response.num_branches, "conflicts": response.num_conflicts}


def _seconds(time_limit: float | None) -> float:
    """CP-SAT's ``max_time_in_seconds`` for a time limit (infinite when None)."""
    return float("inf") if time_limit is None else max(0.0, time_limit)


def _cores() -> int:
    return os.cpu_count() or 1
