"""Constraints the rules imply: what engines may add to propagate more, never to check.

The rule of 45 (on 9x9; n(n+1)/2 in general): a unit of n cells holds each digit once,
so its digits add up to n(n+1)/2. When killer cages lie wholly inside a unit, the
unit's other cells add up to that total less the cages' sums, and they differ (they
share the unit): a cage of their own, which killer solvers call the innies of the
unit. Setters build killers around exactly this deduction, and no engine finds it
alone: CNF and CP-SAT see only each cage's digit sets, and a sum over a whole unit
is beyond unit propagation.

An implied cage is a consequence of the rules, so adding it changes no solution;
engines add them to their own encodings (the SAT and CP-SAT models, the compiled
engine's cages; ``export --to cpsat`` writes the model the engine solves, so it has
them too) and leave the verifier, the certificates and the DIMACS export to the
rules as given.
"""

from __future__ import annotations

from functools import lru_cache

from cpsudoku.model.constraints import Cage
from cpsudoku.model.rules import Rules

#: The most cells an implied cage may have. Few cells have few digit sets, which is
#: what propagates; measured on the killer sample (docs/design.md): 3 cells and fewer
#: took ``sat`` from 98 to 18 conflicts a puzzle and 477 to 663 puzzles/s, larger
#: leftovers added clauses faster than they saved search.
MOST_CELLS = 3


def implied_cages(rules: Rules, most: int = MOST_CELLS) -> tuple[Cage, ...]:
    """The cages the rule of 45 adds to ``rules``: per unit of n cells, its innies.

    For every unit of n cells (rows, columns, boxes or jigsaw regions, extra regions
    of n cells), the killer cages with a sum lying wholly inside it leave the unit's
    other cells, when there are 1 to ``most`` of them, with a known sum. A unit whose
    cages overlap is skipped (their sums would count a cell twice), and so is a
    leftover whose sum no set of different digits makes (the puzzle then has no
    solution, which the engines find by themselves). Renban lines have no sum and
    count as cells outside any cage.
    """
    if not any(type(c) is Cage and c.total is not None for c in rules.constraints):
        return ()
    return _implied(rules, most)


@lru_cache(maxsize=256)
def _implied(rules: Rules, most: int) -> tuple[Cage, ...]:
    n = rules.n
    units_of = rules.units_of
    unit_cells = rules.unit_cells
    total = [0] * len(unit_cells)
    covered: list[list[int]] = [[] for _ in unit_cells]
    for cage in rules.constraints:
        if type(cage) is not Cage or cage.total is None or not cage.cells:
            continue
        # The units holding every cell of the cage.
        shared = set(units_of[cage.cells[0]]).intersection(*(units_of[i] for i in cage.cells))
        for k in shared:
            total[k] += cage.total
            covered[k].extend(cage.cells)
    full = n * (n + 1) // 2
    found: list[Cage] = []
    seen: set[tuple[int, ...]] = set()
    for k, cells in enumerate(unit_cells):
        if len(cells) != n or not covered[k] or len(set(covered[k])) != len(covered[k]):
            continue
        inside = set(covered[k])
        left = tuple(i for i in cells if i not in inside)
        if not 1 <= len(left) <= most or left in seen:
            continue
        cage = Cage(left, full - total[k])
        if cage.combinations(n):
            seen.add(left)
            found.append(cage)
    return tuple(found)
