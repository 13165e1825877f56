"""Solver-free checking: is a grid a valid completion of a puzzle?

This module shares no code with any engine: it reads the rules only from the
rules' list of units. Every solution any backend returns goes through
:func:`is_solution` before it is reported; :func:`solution_problems` says what is
wrong when it fails.
"""

from __future__ import annotations

import sys
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
    holds each value exactly once), and every other constraint holds. How "no value
    twice in a unit" is checked is chosen once per rules (:func:`_distinct_test`).

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
    distinct, values = _layout(g.units_only)  # the units, the same for every killer
    if not values.issuperset(sol):
        return False
    if list(compress(sol, puzzle.cells)) != list(filter(None, puzzle.cells)):
        return False
    if not distinct(sol):
        return False
    return all(c.problem(sol, g.n) is None for c in g.constraints)


@lru_cache(maxsize=64)
def _layout(g: Rules) -> tuple[Callable[[Sequence[int]], bool], frozenset[int]]:
    """What :func:`is_solution` needs of a set of rules, computed once per rules.

    The test "no unit holds a value twice" (:func:`_distinct_test`) and the set 1..n.
    """
    return _distinct_test(g), frozenset(range(1, g.n + 1))


def _distinct_test(g: Rules) -> Callable[[Sequence[int]], bool]:
    """The test "no unit holds a value twice" for grids of ``g`` whose values lie in 1..n.

    Where every unit has n cells and n < 63, by sums of powers of two, in numpy: the n
    terms 2**v of a unit add up to 2**1 + ... + 2**n exactly when no two are equal (a
    repeat carries, and n powers with a carry set fewer than n bits). A unit's sum is
    one ``reduceat`` over the gathered values, a few microseconds for a 9x9 grid, a
    third of the set below. Otherwise as one set: each (unit k, value v) becomes the
    key ``k*(n+1) + v``, all distinct exactly when no unit repeats a value. The sums
    only where numpy is already loaded (batches, the bench, the API's bulk calls):
    importing it costs a single command on the command line a tenth of a second.
    """
    n, units = g.n, g.unit_cells
    np = sys.modules.get("numpy")
    if np is not None and n < 63 and all(len(unit) == n for unit in units):
        powers = np.array([1 << v for v in range(n + 1)], dtype=np.int64)
        order = np.fromiter(chain.from_iterable(units), dtype=np.intp)
        starts = np.arange(0, len(order), n)
        full = (1 << (n + 1)) - 2

        def by_sums(sol: Sequence[int]) -> bool:
            values = np.frombuffer(bytes(sol), dtype=np.uint8)
            return bool((np.add.reduceat(powers[values[order]], starts) == full).all())

        return by_sums
    gather = itemgetter(*chain.from_iterable(units))
    keys = _offsets(n, tuple(map(len, units)) if g.extra else len(units))
    count = len(keys)

    def by_keys(sol: Sequence[int]) -> bool:
        return len(set(map(add, gather(sol), keys))) == count

    return by_keys


@lru_cache(maxsize=64)
def _offsets(n: int, lengths: tuple[int, ...] | int) -> tuple[int, ...]:
    """The key offset ``k*(n+1)`` of each cell of each unit k, for units of these lengths.

    ``lengths`` as a number: that many units of ``n`` cells (every jigsaw of a side:
    its key is not a tuple to hash).
    """
    if isinstance(lengths, int):
        lengths = (n,) * lengths
    return tuple(k * (n + 1) for k, length in enumerate(lengths) for _ in range(length))
