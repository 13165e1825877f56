"""Outcomes of solving and counting: :class:`Status`, :class:`Result`, :class:`Count`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from cpsudoku.model.puzzle import Puzzle

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules


class Status(StrEnum):
    """The one status vocabulary of the API, the command line and batch output.

    A ``StrEnum``, so ``result.status == "unique"`` holds and it prints as its value.
    """

    UNIQUE = "unique"
    """Solved, and proven to have exactly one solution."""
    MULTIPLE = "multiple"
    """Solved, and a second, different solution exists."""
    SOLVED = "solved"
    """Solved, uniqueness not checked (the caller asked to skip the check)."""
    UNSOLVABLE = "unsolvable"
    """Proven to have no solution."""
    INVALID = "invalid"
    """Malformed input or conflicting givens; ``Result.error`` says why."""
    TIMEOUT = "timeout"
    """The time limit ran out before an answer."""
    REFUSED = "refused"
    """The engine does not take a rule of the puzzle; ``Result.error`` names the rule
    and the engines that take it. Nothing is known of the puzzle."""

    @property
    def has_solution(self) -> bool:
        """True for the statuses that come with a solution."""
        return self in (Status.UNIQUE, Status.MULTIPLE, Status.SOLVED)


@dataclass(frozen=True, slots=True)
class Result:
    """What one solve produced.

    Attributes:
        status: the outcome.
        solution: the verified completed grid, or None. With status ``timeout`` it may
            hold a solution whose uniqueness could not be proven in time.
        backend: name of the engine that produced the result (``logic`` for rows the
            whole-array logic pass decided).
        seconds: wall time of the solve, parsing excluded.
        error: why the input is invalid (status ``invalid``), else None.
        stats: engine counters, e.g. ``conflicts``/``decisions`` (SAT),
            ``branches``/``conflicts`` (CP-SAT), ``nodes``/``guesses`` (backtracking).
        solutions: with status ``multiple``, two distinct verified solutions (the
            witnesses that show the puzzle is not unique; the first is ``solution``);
            empty otherwise.
    """

    status: Status
    solution: Puzzle | None = None
    backend: str = ""
    seconds: float = 0.0
    error: str | None = None
    stats: Mapping[str, int] = field(default_factory=dict)
    solutions: tuple[Puzzle, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """The JSON form used by ``cpsudoku solve --json``.

        ``solutions`` (the two witnesses) is there only with status ``multiple``.
        """
        out: dict[str, object] = {
            "status": str(self.status),
            "solution": None if self.solution is None else str(self.solution),
            "backend": self.backend,
            "seconds": round(self.seconds, 6),
            "error": self.error,
        }
        if self.solutions:
            out["solutions"] = [str(s) for s in self.solutions]
        return out


class PendingGrid(NamedTuple):
    """A Result's solution not made a Puzzle yet: its rules, and its cells as bytes.

    A bulk pass builds thousands of Results from one array of solutions; a Puzzle per
    solution (a tuple of n*n ints) costs a fifth of a clue17 solve on the compiled
    engine, and a caller counting statuses never reads it. So the pass may leave this
    in a Result's solution slot, and the first read of ``result.solution`` makes the
    Puzzle and keeps it (see :class:`_SolutionSlot`): no caller ever sees a
    PendingGrid, and equality, repr, pickling and ``to_dict`` see the Puzzle. The
    cells are a copy of the solution's row (one value 1..n a byte, checked by the
    bulk verifier), so a kept Result holds its own grid, never its whole block.
    """

    rules: Rules
    cells: bytes


#: The solution slot's own descriptor, from before :class:`_SolutionSlot` wraps it.
_SOLUTION = vars(Result)["solution"]


class _SolutionSlot:
    """``Result.solution``: the slot, whose :class:`PendingGrid` becomes a Puzzle on read."""

    __slots__ = ()

    def __get__(self, result: Result | None, owner: type | None = None) -> object:
        if result is None:
            return self
        value = _SOLUTION.__get__(result, owner)
        if type(value) is PendingGrid:
            value = Puzzle(value.rules, tuple(value.cells))
            _SOLUTION.__set__(result, value)
        return value

    def __set__(self, result: Result, value: object) -> None:
        _SOLUTION.__set__(result, value)

    def __delete__(self, result: Result) -> None:
        _SOLUTION.__delete__(result)


Result.solution = _SolutionSlot()  # type: ignore[assignment,misc]  # over the field's slot


#: The slots of a Result, in the order of its fields (the solution slot's own, which
#: takes a :class:`PendingGrid` as it is).
_SLOTS = tuple(
    (_SOLUTION if field.name == "solution" else vars(Result)[field.name]).__set__
    for field in fields(Result)
)
(
    _set_status,
    _set_solution,
    _set_backend,
    _set_seconds,
    _set_error,
    _set_stats,
    _set_solutions,
) = _SLOTS  # a field added to Result and not here fails at import, not in a bulk pass


def bulk_result(
    status: Status,
    solution: PendingGrid | None,
    backend: str,
    seconds: float,
    error: str | None,
    stats: Mapping[str, int],
) -> Result:
    """``Result(status, solution, backend, seconds, error, stats)`` for a bulk pass.

    The same value as the constructor's, made by setting the slots directly: the
    frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    which doubles the cost of a Result, and a bulk pass makes one for every line.
    ``solution`` is left pending until it is read (:class:`PendingGrid`).
    """
    result = object.__new__(Result)
    _set_status(result, status)
    _set_solution(result, solution)
    _set_backend(result, backend)
    _set_seconds(result, seconds)
    _set_error(result, error)
    _set_stats(result, stats)
    _set_solutions(result, ())
    return result


@dataclass(frozen=True, slots=True)
class Count:
    """What one count produced.

    Attributes:
        count: solutions found, never more than ``limit``.
        limit: the cap the caller asked for.
        complete: True when ``count`` is the exact number of solutions (the search
            finished below the limit); False when the limit or the time ran out.
        timed_out: True when the time limit stopped the count.
        backend: engine name.
        seconds: wall time.
        stats: engine counters.
        error: why there is no count at all (the input is invalid), else None.
    """

    count: int
    limit: int
    complete: bool
    timed_out: bool = False
    backend: str = ""
    seconds: float = 0.0
    stats: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def invalid(cls, error: str, limit: int, backend: str = "") -> Count:
        """The count of an input that is no puzzle: nothing counted, and why."""
        return cls(0, limit, False, backend=backend, error=error)

    def to_dict(self) -> dict[str, object]:
        """The JSON form used by ``cpsudoku count --json`` (``count`` null when invalid)."""
        return {
            "count": None if self.error else self.count,
            "limit": self.limit,
            "complete": self.complete,
            "backend": self.backend,
            "seconds": round(self.seconds, 6),
            "error": self.error,
        }
