"""Solver-free checking: is a grid a valid completion of a puzzle?

This module shares no code with any engine: it reads the rules only from the
rules' list of units. Every solution any backend returns goes through
:func:`is_solution` before it is reported; :func:`solution_problems` says what is
wrong when it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import chain, compress
from operator import add, itemgetter

from cpsudoku.model.completion import completion_problems
from cpsudoku.model.forms import PuzzleLike, as_puzzle
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules


def _puzzles(puzzle: PuzzleLike, solution: PuzzleLike) -> tuple[Puzzle, Puzzle]:
    """Both as Puzzles, the solution read under the puzzle's rules."""
    first = as_puzzle(puzzle)
    return first, as_puzzle(solution, first.rules)


def solution_problems(puzzle: PuzzleLike, solution: PuzzleLike) -> list[str]:
    """Everything wrong with ``solution`` as a completion of ``puzzle`` (empty if valid).

    Checks: same rules, every cell filled with 1..n, every given kept, every unit
    holding each value exactly once (a region of fewer cells: no value twice), and
    every other constraint (its own check, :meth:`Constraint.problem`). Either may be
    in any form :func:`cpsudoku.parse` reads.
    """
    return completion_problems(*_puzzles(puzzle, solution))


def is_solution(puzzle: PuzzleLike, solution: PuzzleLike) -> bool:
    """True when ``solution`` is a valid completion of ``puzzle`` (any forms parse reads).

    The same rules as :func:`solution_problems`, checked in a few C-level passes,
    because every solution of every backend comes through here: the values all lie in
    1..n, the givens are kept, no unit holds a value twice (a unit of n cells then
    holds each value exactly once), and every other constraint holds. "No value twice in a unit"
    is one set: each (unit k, value v) pair becomes the key ``k*(n+1) + v``, and the
    keys are all distinct exactly when no unit repeats a value.

    >>> from cpsudoku.model.forms import parse
    >>> is_solution(parse("1.343..2.3..2..3"), parse("1234341243212143"))
    True
    >>> is_solution(parse("1.343..2.3..2..3"), parse("1234341243212134"))
    False
    """
    if not (isinstance(puzzle, Puzzle) and isinstance(solution, Puzzle)):
        puzzle, solution = _puzzles(puzzle, solution)
    g = puzzle.rules
    if solution.rules != g:
        return False
    sol = solution.cells
    gather, keys, values = _layout(g.units_only)  # the units, the same for every killer
    if not values.issuperset(sol):
        return False
    if list(compress(sol, puzzle.cells)) != list(filter(None, puzzle.cells)):
        return False
    if len(set(map(add, gather(sol), keys))) != len(keys):
        return False
    return all(c.problem(sol, g.n) is None for c in g.constraints)


@lru_cache(maxsize=64)
def _layout(
    g: Rules,
) -> tuple[Callable[[Sequence[int]], tuple[int, ...]], tuple[int, ...], frozenset[int]]:
    """What :func:`is_solution` needs of a set of rules, computed once per rules.

    A getter of every unit's values, one unit after another; the matching key offsets
    ``k*(n+1)`` (k = the unit's index); and the set 1..n.
    """
    return (
        itemgetter(*chain.from_iterable(g.unit_cells)),
        _offsets(g.n, tuple(map(len, g.unit_cells)) if g.extra else len(g.unit_cells)),
        frozenset(range(1, g.n + 1)),
    )


@lru_cache(maxsize=64)
def _offsets(n: int, lengths: tuple[int, ...] | int) -> tuple[int, ...]:
    """The key offset ``k*(n+1)`` of each cell of each unit k, for units of these lengths.

    ``lengths`` as a number: that many units of ``n`` cells (every jigsaw of a side:
    its key is not a tuple to hash).
    """
    if isinstance(lengths, int):
        lengths = (n,) * lengths
    return tuple(k * (n + 1) for k, length in enumerate(lengths) for _ in range(length))
