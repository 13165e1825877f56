"""The Python API: :func:`solve`, :func:`count` (and, with batch, ``solve_many``)."""

from __future__ import annotations

from cpsudoku.engines import DEFAULT_BACKEND, get_backend, one_call, refusal_text, refused_result
from cpsudoku.engines.default import count_first, solve_first, solve_rest
from cpsudoku.model.errors import PuzzleError, SolveTimeoutError, UnsupportedRulesError
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.result import Count, Result, Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.words import count_of


@one_call
def solve(
    puzzle: PuzzleLike,
    backend: str = DEFAULT_BACKEND,
    *,
    unique: bool = True,
    time_limit: float | None = None,
    box: str | Rules | None = None,
    symbols: str | None = None,
) -> Result:
    """Solve one puzzle.

    Bad input never raises: a malformed puzzle or clashing givens give a Result with
    status ``invalid`` and ``error`` saying what and where. A puzzle with a rule the
    engine does not take gives status ``refused``, ``error`` naming the rule and the
    engines that take it. An unknown backend name
    does raise (:class:`~cpsudoku.model.errors.UnknownBackendError`), and so does a NaN time
    limit (ValueError): those are usage errors, not properties of the puzzle.

    Args:
        puzzle: any form :func:`cpsudoku.parse` accepts, or a Puzzle.
        backend: backend spec, e.g. ``"sat"``, ``"cpsat"``, ``"backtrack"``,
            ``"sat:extended:cadical153"``. The default engine gives a puzzle whose
            rules the compiled engine takes to it first, within a node budget, and
            what it leaves to ``sat`` (:mod:`cpsudoku.engines.default`); ``backend``
            of the result says which answered.
        unique: also prove uniqueness (status ``unique``/``multiple``); False stops at
            the first solution (status ``solved``).
        time_limit: seconds for this puzzle; status ``timeout`` when it runs out.
        box: box shape (``"2x3"``) when it cannot be inferred from the size.
        symbols: the symbols of the values 1..n in text, e.g. ``"0123456789ABCDEF"``
            (see :func:`cpsudoku.parse`); write the solution with them through
            :func:`cpsudoku.to_line`.

    >>> solve("1.343..2.3..2..3", backend="backtrack").status
    <Status.UNIQUE: 'unique'>
    """
    engine = get_backend(backend)
    try:
        parsed = parse(puzzle, box, check=False, symbols=symbols)
    except PuzzleError as exc:
        return Result(Status.INVALID, backend=engine.spec, error=str(exc))
    if why := engine.refuses(parsed.rules):  # not bad input: another engine takes it
        return refused_result(engine, parsed.rules, why)
    if backend == DEFAULT_BACKEND:
        first, time_limit = solve_first(parsed, unique=unique, time_limit=time_limit)
        if first is not None:
            return first
        return solve_rest(engine, parsed, unique=unique, time_limit=time_limit)
    return engine.solve(parsed, unique=unique, time_limit=time_limit)


@one_call
def count_solutions(
    puzzle: PuzzleLike,
    limit: int = 2,
    backend: str = DEFAULT_BACKEND,
    *,
    time_limit: float | None = None,
    box: str | Rules | None = None,
    symbols: str | None = None,
) -> Count:
    """Count solutions up to ``limit``, with whether the count is exact.

    The default engine counts on the compiled engine first, as :func:`solve` does.

    Raises:
        PuzzleError: the puzzle is malformed or its givens clash.
        UnsupportedRulesError: the engine does not take a rule of the puzzle (the
            message names the engines that do).
    """
    parsed = parse(puzzle, box, symbols=symbols)
    engine = get_backend(backend)
    if why := engine.refuses(parsed.rules):
        raise UnsupportedRulesError(refusal_text(why, parsed.rules))
    if backend == DEFAULT_BACKEND:
        first, time_limit = count_first(parsed, limit=limit, time_limit=time_limit)
        if first is not None:
            return first
    return engine.count(parsed, limit=limit, time_limit=time_limit)


def count(
    puzzle: PuzzleLike,
    limit: int = 2,
    backend: str = DEFAULT_BACKEND,
    *,
    time_limit: float | None = None,
    box: str | Rules | None = None,
    symbols: str | None = None,
) -> int:
    """The number of solutions of ``puzzle``, capped at ``limit``.

    A result equal to ``limit`` means "at least ``limit``".

    Raises:
        PuzzleError: the puzzle is malformed or its givens clash.
        SolveTimeoutError: the time limit ran out before the count was settled.

    >>> count("." * 16, limit=1000, backend="backtrack")
    288
    """
    found = count_solutions(puzzle, limit, backend, time_limit=time_limit, box=box, symbols=symbols)
    if found.timed_out:
        raise SolveTimeoutError(
            f"time limit of {time_limit} s reached after {count_of(found.count, 'solution')}"
        )
    return found.count
