"""The default engine's route: the compiled engine first, within a node budget, then ``sat``.

Where the compiled engine is built and takes a puzzle's rules, the default engine
(:data:`cpsudoku.engines.DEFAULT_BACKEND`) hands the puzzle to it first, for at most
:func:`native_budget` search nodes (a tenth of a second of search on classic rules, about
a second on variant rules);
what the compiled engine decides within that is the answer, with ``backend`` saying
``native``; a puzzle it leaves (the minimal 25x25 Frisch puzzles, the hardest killers,
puzzles that want clause learning) goes to ``sat`` with the time that is left. Every
solution is verified either way. A batch does the same in bulk
(:mod:`cpsudoku.datasets.solving`); :func:`cpsudoku.solve`, :func:`cpsudoku.count`
and ``cpsudoku solve``/``count`` one puzzle at a time. An engine named in any other
way (``sat:...``, ``native``, ``create_backend("sat")``) runs alone.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import cache

from cpsudoku.engines import create_backend, native_built
from cpsudoku.engines.base import Backend
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Count, Result, Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.symmetry import rename, value_symmetry
from cpsudoku.model.verify import is_solution

#: The compiled engine's name in the registry and in results.
NATIVE = "native"


def native_budget(rules: Rules) -> int:
    """Search nodes the compiled engine spends on one puzzle before handing it on.

    The engine counts its propagators' work as nodes too (a node of a search with
    units alone costs about 2.5 us on 9x9, and one through sandwich automata 15 times
    that), so a budget stands for about the same time whatever the rules. Regions
    alone: about a tenth of a second whatever the size (a node's cost grows with the
    cells), far beyond what any published 9x9, 16x16 or 25x25 puzzle of the bundled
    sets needs, except the minimal 25x25 Frisch puzzles, which go to the SAT engine
    (clause learning) after that tenth of a second. Variant rules: ten times that
    (493,827 on 9x9, 0.4-0.6 s), enough for the hard set's wecoc-1-mod-a (434,000 with
    its work), which ``sat`` takes four times as long on; a puzzle the engine cannot
    finish (the nine renban lines that cannot all hold, the 18-sandwich snipe) pays
    that before ``sat`` starts (docs/design.md).
    """
    return (40_000_000 if rules.constraints else 4_000_000) // rules.cells


def native_takes(rules: Rules) -> bool:
    """True when the compiled engine is built and takes ``rules``."""
    if not native_built():
        return False
    from cpsudoku.engines import native

    return native.NativeBackend.refusal(rules) is None


@cache
def budgeted_native(budget: int) -> Backend:
    """A compiled engine of the route's own that stops after ``budget`` nodes a puzzle."""
    engine = create_backend(NATIVE)
    engine.budget = budget  # type: ignore[attr-defined]
    return engine


def _left(time_limit: float | None, start: float) -> float | None:
    """What is left of ``time_limit`` since ``start`` (at least a millisecond)."""
    if time_limit is None:
        return None
    return max(time_limit - (time.perf_counter() - start), 0.001)


def solve_first(
    puzzle: Puzzle,
    *,
    unique: bool,
    time_limit: float | None,
    checked: bool = False,
    budget: int | None = None,
) -> tuple[Result | None, float | None]:
    """The compiled engine's answer within its budget, or None and the time left.

    ``(result, None)`` when it decided; ``(None, time left)`` when the puzzle goes on
    to the next engine: past the budget, or with clashing givens, which the next
    engine names (as a batch's bulk pass leaves them to it: one wording, one backend).
    """
    if not native_takes(puzzle.rules):
        return None, time_limit
    start = time.perf_counter()
    engine = budgeted_native(budget or native_budget(puzzle.rules))
    result = engine.solve(puzzle, unique=unique, time_limit=time_limit, checked=checked)
    if result.status is Status.INVALID or (
        result.status is Status.TIMEOUT and result.stats.get("budget")
    ):
        return None, _left(time_limit, start)
    return result, None


def solve_rest(
    engine: Backend,
    puzzle: Puzzle,
    *,
    unique: bool,
    time_limit: float | None,
    checked: bool = False,
) -> Result:
    """``engine``'s answer on a puzzle the compiled engine left.

    A puzzle that a renaming of its values maps to itself
    (:func:`~cpsudoku.model.symmetry.value_symmetry`) is never unique: any one solution
    settles it as ``multiple``, its renaming the second witness (checked by the
    verifier as every solution is), and no solution settles it as ``unsolvable``. So
    its uniqueness takes one search for a solution, where otherwise the search must
    find a second one too: on the hard set's 18-sandwich snipe, a new ``sat`` backend
    takes 2.0-5.9 s for the first and 3.6-7.4 s for both (docs/design.md).
    """
    perm = value_symmetry(puzzle) if unique else None
    if perm is None:
        return engine.solve(puzzle, unique=unique, time_limit=time_limit, checked=checked)
    first = engine.solve(puzzle, unique=False, time_limit=time_limit, checked=checked)
    if first.status is not Status.SOLVED or first.solution is None:
        return first  # unsolvable, invalid or out of time: the same with or without it
    twin = Puzzle(puzzle.rules, rename(first.solution.cells, perm))
    if twin == first.solution or not is_solution(puzzle, twin):  # never, if the rules hold
        return engine.solve(puzzle, unique=True, time_limit=time_limit, checked=checked)
    stats = {**first.stats, "value_symmetry": 1}
    return replace(first, status=Status.MULTIPLE, stats=stats, solutions=(first.solution, twin))


def count_first(
    puzzle: Puzzle, *, limit: int, time_limit: float | None, budget: int | None = None
) -> tuple[Count | None, float | None]:
    """The compiled engine's count within its budget, or None and the time left."""
    if not native_takes(puzzle.rules):
        return None, time_limit
    start = time.perf_counter()
    engine = budgeted_native(budget or native_budget(puzzle.rules))
    found = engine.count(puzzle, limit=limit, time_limit=time_limit)
    if not (found.timed_out and found.stats.get("budget")):
        return found, None
    return None, _left(time_limit, start)
