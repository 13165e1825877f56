"""Value symmetries: renamings of the values that map a puzzle to itself.

When renaming every value ``v`` to ``perm[v]`` (not the identity) keeps exactly the
grids of every rule, and moves no given, each solution renamed is a solution too, and
a different one: a complete grid holds every value, so some cell changes. Such a
puzzle is never unique, and one solution settles it as ``multiple``, with its
renaming as the second witness, where a search would have to find a second solution
itself. The 18-sandwich snipe of the hard set is one: thirteen sandwich clues and no
given, so 1 and 9 trade places in any solution (a new ``sat`` backend: 2.0-5.9 s to
its first solution, 3.6-7.4 s to both).

Which renamings a rule keeps, each primitive says
(:meth:`~cpsudoku.model.primitives.Primitive.maps_to_itself`): a sound answer, False
when not shown, which only costs the shortcut. The candidates are the swaps of two
values and the reversal ``v -> n + 1 - v`` (non-consecutive and sandwich rules keep
one of these; a rule set that keeps a longer cycle is rare enough to leave to search).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from cpsudoku.model.primitives import Automaton, Primitive
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: A renaming of the values: ``perm[v]`` for ``v`` in 1..n, ``perm[0] == 0``.
Renaming = tuple[int, ...]


@lru_cache(maxsize=64)
def candidates(n: int) -> tuple[Renaming, ...]:
    """The renamings looked for: every swap of two values, then the reversal."""
    out: list[Renaming] = []
    for a in range(1, n + 1):
        for b in range(a + 1, n + 1):
            perm = list(range(n + 1))
            perm[a], perm[b] = b, a
            out.append(tuple(perm))
    out.append((0, *range(n, 0, -1)))
    return tuple(out)


def rule_symmetries(rules: Rules) -> tuple[Renaming, ...]:
    """The candidate renamings (:func:`candidates`) that every rule of ``rules`` keeps.

    The units keep every renaming; so does a grid with no other rule, whose
    renamings need no listing (every candidate is returned).
    """
    return tuple(perm for perm in candidates(rules.n) if _keeps(rules, perm))


def value_symmetry(puzzle: Puzzle) -> Renaming | None:
    """A renaming that maps ``puzzle`` (its rules and its givens) to itself, or None.

    The givens are looked at first, and the rules are asked of one renaming at a time
    until one keeps them: each automaton takes a walk per renaming (the snipe's first
    kept renaming in 22 ms, where asking every renaming first took 58 ms).
    """
    given = {v for v in puzzle.cells if v}
    for perm in candidates(puzzle.rules.n):
        if all(perm[v] == v for v in given) and _keeps(puzzle.rules, perm):
            return perm
    return None


@lru_cache(maxsize=4096)
def _keeps(rules: Rules, perm: Renaming) -> bool:
    """Every primitive of ``rules`` keeps ``perm``, the automata (dearest) asked last."""
    return all(p.maps_to_itself(perm) for p in _by_cost(rules))


@lru_cache(maxsize=64)
def _by_cost(rules: Rules) -> tuple[Primitive, ...]:
    """The rules' primitives, the automata last."""
    return tuple(sorted(rules.primitives, key=lambda p: isinstance(p, Automaton)))


def rename(cells: Sequence[int], perm: Renaming) -> tuple[int, ...]:
    """The grid ``cells`` with every value renamed (0, an open cell, stays 0)."""
    return tuple(perm[v] for v in cells)
