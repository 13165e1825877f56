"""The interface every engine implements, and the status logic they all share.

An engine only has to implement :meth:`Backend.search`: find up to ``limit`` solutions
of a puzzle whose givens are consistent, and say whether it searched the whole space.
:meth:`Backend.solve` and :meth:`Backend.count` turn that into the status vocabulary,
and pass every solution through the independent verifier before it is reported.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import TracebackType
from typing import ClassVar, Self

from cpsudoku.model.errors import (
    ConflictingGivensError,
    SolverError,
    UnknownBackendError,
    UnsupportedRulesError,
)
from cpsudoku.model.forms import PuzzleLike, as_puzzle
from cpsudoku.model.primitives import PRIMITIVES, Choice, Primitive
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Count, Result, Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution, solution_problems


@dataclass(slots=True)
class Search:
    """What an engine's :meth:`Backend.search` found.

    Attributes:
        solutions: the first distinct solutions found, as cell tuples (at most two are
            kept; counting beyond that only increments ``count``).
        count: number of distinct solutions found, at most the ``limit`` asked for.
        exhausted: True when the whole search space was covered, so ``count`` is exact.
        timed_out: True when the time limit stopped the search.
        stats: engine counters.
        answered_by: the spec of the engine that actually answered, when it is not the
            backend's own (the portfolio's winner; a solver's stand-in for a time limit).
    """

    solutions: list[tuple[int, ...]] = field(default_factory=list)
    count: int = 0
    exhausted: bool = False
    timed_out: bool = False
    stats: dict[str, int] = field(default_factory=dict)
    answered_by: str | None = None


#: The primitives the general engines (sat, cpsat, the oracle) take: every primitive
#: of :mod:`cpsudoku.model.primitives`, each encoded by both encoders and narrowed by
#: the oracle, so every rule the model can state.
GENERAL_PRIMITIVES: frozenset[type[Primitive]] = frozenset(PRIMITIVES)


class Backend(ABC):
    """Base class of the engines.

    Subclasses set :attr:`name`, accept their variant words in ``__init__`` (e.g.
    ``SatBackend("extended", "cadical153")`` for the spec ``sat:extended:cadical153``)
    and implement :meth:`search`. A backend may keep encoded rules and live solvers
    between calls (that is the point of having an object); :meth:`close` frees them.
    Backends are not thread-safe: use one per thread or process.
    """

    name: ClassVar[str]
    #: Variant words this backend understands, for help text and error messages.
    variants: ClassVar[tuple[str, ...]] = ()
    #: The spec of this family's textbook baseline (the benchmark runs it beside the
    #: engine and reports the speed-up over it), or None.
    baseline: ClassVar[str | None] = None
    #: More specs of this engine that ``cpsudoku bench --backends all`` runs.
    bench_variants: ClassVar[tuple[str, ...]] = ()
    #: True when the portfolio races this engine unless its spec names others.
    races: ClassVar[bool] = False
    #: The primitives (:mod:`cpsudoku.model.primitives`) this engine takes; a rule
    #: is taken when all its primitives are (:meth:`takes`). Every engine takes every
    #: no-repeat region (boxes, jigsaw regions, extras).
    primitive_kinds: ClassVar[frozenset[type[Primitive]]] = frozenset()

    def __init__(self, variant: Sequence[str] = ()) -> None:
        unknown = [v for v in variant if v not in self.variants]
        if unknown:
            raise UnknownBackendError(
                f"backend {self.name!r} has no variant {unknown[0]!r}; "
                f"choose from: {', '.join(self.variants) or '(none)'}"
            )
        self.variant = tuple(variant)

    @classmethod
    def takes(cls, primitive: Primitive) -> bool:
        """True when this engine implements ``primitive`` (a choice: every branch too)."""
        if type(primitive) not in cls.primitive_kinds:
            return False
        if isinstance(primitive, Choice):
            return all(cls.takes(p) for branch in primitive.branches for p in branch)
        return True

    @classmethod
    def refusal(cls, rules: Rules) -> str | None:
        """Why this engine cannot take ``rules`` (the rule kinds it lacks, by name), or None.

        A rule is taken when every primitive it compiles to is (:meth:`takes`): the
        engine knows primitives, never rule names.
        """
        if not rules.constraints:  # the common case, on every solve: nothing to look at
            return None
        missing = _missing(cls, rules)
        if not missing:
            return None
        return f"engine {cls.name!r} cannot take {', '.join(missing)} constraints"

    def refuses(self, rules: Rules) -> str | None:
        """Why this engine, as configured, cannot take ``rules``, or None.

        What :meth:`refusal` says of its class; a portfolio asks each engine it races.
        """
        return self.refusal(rules)

    def _refuse_unsupported(self, puzzle: Puzzle) -> None:
        """Raise UnsupportedRulesError when the puzzle has rules this engine lacks."""
        if why := self.refuses(puzzle.rules):
            raise UnsupportedRulesError(why)

    @property
    def keeps_rules(self) -> bool:
        """True when the engine encodes the rules once and reuses them across puzzles.

        The benchmark warms such an engine up, untimed, before measuring it; an engine
        that builds everything per puzzle (the textbook baselines) has nothing to warm.
        """
        return True

    @property
    def clash_safe(self) -> bool:
        """True when :meth:`search` copes with clashing givens: no solution, no crash.

        Then :meth:`solve` checks the givens for clashes only when the search found no
        solution: a verified solution keeps every given and repeats no value in a
        unit, so it proves the givens clash-free, and the check (a quarter of the
        Python time per easy puzzle) is skipped for every solved puzzle. Engines whose
        search may assume clash-free givens, as :meth:`search` allows (a reduced formula
        that drops the givens, for one), keep the default, False: they are checked
        first.
        """
        return False

    @property
    def spec(self) -> str:
        """The full name with variant words, e.g. ``"sat:extended:cadical153"``."""
        return ":".join((self.name, *self.variant))

    @abstractmethod
    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Find up to ``limit`` distinct solutions of ``puzzle``.

        The givens are known to be consistent (no two clash in a unit). Must return
        within about ``time_limit`` seconds, with ``timed_out`` set if it stopped early.
        """

    def solve(
        self,
        puzzle: PuzzleLike,
        *,
        unique: bool = True,
        time_limit: float | None = None,
        checked: bool = False,
    ) -> Result:
        """Solve one puzzle; with ``unique`` also prove or refute uniqueness.

        ``puzzle`` is a Puzzle or any form :func:`cpsudoku.parse` reads (a malformed
        one raises its PuzzleError; :func:`cpsudoku.solve` turns that into a result).
        Conflicting givens give status ``invalid`` (never ``unsolvable``). Every
        solution is checked by :mod:`cpsudoku.model.verify` before it is returned.
        ``checked=True`` says the caller has already found the givens free of clashes
        (the whole-array logic pass does, for every puzzle it hands on), so the
        per-puzzle clash check is not repeated. A wrong claim can turn ``invalid`` into
        ``unsolvable``, never into a wrong solution: the verifier still checks each one.
        """
        start = time.perf_counter()
        if not isinstance(puzzle, Puzzle):  # text or lists: parse errors raise PuzzleError
            puzzle = as_puzzle(puzzle)
        self._refuse_unsupported(puzzle)
        if time_limit is not None:
            check_time_limit(time_limit)
        late = not checked and self.clash_safe
        if not checked and not late and (clash := self._clash(puzzle, start)):
            return clash
        found = self.search(puzzle, 2 if unique else 1, time_limit)
        solutions = self._verified(puzzle, found)
        if not solutions and late and (clash := self._clash(puzzle, start)):
            return clash
        if not solutions:
            if found.timed_out:
                status = Status.TIMEOUT
            elif found.exhausted:
                status = Status.UNSOLVABLE
            else:
                raise SolverError(f"{self.spec} stopped with no solution and no proof")
        elif not unique:
            status = Status.SOLVED
        elif len(solutions) >= 2:
            status = Status.MULTIPLE
        elif found.timed_out:
            status = Status.TIMEOUT
        elif found.exhausted:
            status = Status.UNIQUE
        else:
            raise SolverError(f"{self.spec} found one solution but did not finish the search")
        return Result(
            status,
            solutions[0] if solutions else None,
            found.answered_by or self.spec,
            time.perf_counter() - start,
            "time limit reached" if status is Status.TIMEOUT else None,
            found.stats,
            tuple(solutions[:2]) if status is Status.MULTIPLE else (),
        )

    def count(
        self, puzzle: PuzzleLike, *, limit: int = 2, time_limit: float | None = None
    ) -> Count:
        """Count the solutions of ``puzzle``, stopping at ``limit``.

        Raises:
            ConflictingGivensError: the givens clash, so there is nothing to count.
            ValueError: ``limit`` is below 1.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a whole number of at least 1, got {limit!r}")
        if time_limit is not None:
            check_time_limit(time_limit)
        start = time.perf_counter()
        puzzle = as_puzzle(puzzle).check()
        self._refuse_unsupported(puzzle)
        found = self.search(puzzle, limit, time_limit)
        self._verified(puzzle, found)
        return Count(
            count=found.count,
            limit=limit,
            complete=found.exhausted and not found.timed_out,
            timed_out=found.timed_out,
            backend=found.answered_by or self.spec,
            seconds=time.perf_counter() - start,
            stats=found.stats,
        )

    def _clash(self, puzzle: Puzzle, start: float) -> Result | None:
        """The ``invalid`` result naming the first clash among the givens, or None."""
        try:
            puzzle.check()
        except ConflictingGivensError as exc:
            return Result(Status.INVALID, None, self.spec, time.perf_counter() - start, str(exc))
        return None

    def _verified(self, puzzle: Puzzle, found: Search) -> list[Puzzle]:
        """The found solutions as Puzzles, each checked by the verifier."""
        out = []
        for cells in found.solutions[:2]:
            solution = Puzzle(puzzle.rules, tuple(cells))
            if not is_solution(puzzle, solution):
                problems = solution_problems(puzzle, solution)
                raise SolverError(
                    f"{self.spec} returned an invalid solution {solution}: {problems[0]}"
                )
            out.append(solution)
        if len(out) == 2 and out[0] == out[1]:
            raise SolverError(f"{self.spec} reported the same solution twice")
        return out

    def close(self) -> None:
        """Free native solvers and other resources (idempotent)."""
        return None  # an optional hook: engines without native state keep this

    def release(self) -> None:
        """Free what must not outlive one call of the module-level API (idempotent).

        Called on the process-wide backends (:func:`cpsudoku.engines.get_backend`) when
        the call that used them returns (:func:`cpsudoku.engines.call_scope`). Nothing
        by default: encoded rules and live solvers are what reuse is for. The portfolio
        stops its worker processes; it starts them again if used later.
        """
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def check_time_limit(seconds: float) -> None:
    """Raise ValueError for a time limit that is not a number (NaN).

    Zero or less is a limit already spent (status ``timeout``); infinity is no limit.
    """
    if math.isnan(seconds):
        raise ValueError("time_limit is NaN; give seconds, or None for no limit")


@lru_cache(maxsize=256)
def _missing(engine: type[Backend], rules: Rules) -> tuple[str, ...]:
    """The rule kinds of ``rules`` that ``engine`` does not take, sorted.

    Kept per engine and rules (both immutable; rules hash once): a batch, a bench or a
    portfolio asks before it solves, and the solve asks again.
    """
    return tuple(
        sorted({c.kind for c, prims in rules.compiled if not all(engine.takes(p) for p in prims)})
    )
