"""Killer sudoku in the layout of the killer CSV datasets: a cage map and its sums.

The cage map is one letter per cell, row by row (``A``-``Z`` then ``a``-``z``; cells
with the same letter form one cage), optionally after a one-letter prefix (the
krazydad files write ``K``); the sums are comma-separated, one per cage letter in
that letter order. See benchmarks/data/README.md for the bundled sample.
"""

from __future__ import annotations

import math
import string

from cpsudoku.model.constraints import Cage
from cpsudoku.model.errors import RulesError
from cpsudoku.model.rules import Rules

#: The cage letters, in the order their sums are listed.
LETTERS = string.ascii_uppercase + string.ascii_lowercase


def killer_rules(cage_map: str, sums: str, base: Rules | None = None) -> Rules:
    """The classic rules of the grid (or ``base``) with the cages of a killer puzzle.

    Raises:
        RulesError: a map that is no square grid of letters, a sum count that differs
            from the cage count, or a cage that breaks the cage rules (see
            :meth:`Cage.checked`).
    """
    letters = cage_map.strip()
    if math.isqrt(len(letters) - 1) ** 2 == len(letters) - 1 and letters[0] == "K":
        letters = letters[1:]  # the krazydad files' prefix
    n = math.isqrt(len(letters))
    if n * n != len(letters) or n == 0:
        raise RulesError(f"a cage map of {len(letters)} letters is no square grid")
    bad = sorted(set(letters) - set(LETTERS))
    if bad:
        raise RulesError(f"a cage map holds {bad[0]!r}; cage letters are A-Z and a-z")
    order = sorted(set(letters), key=LETTERS.index)
    try:
        totals = [int(s) for s in sums.replace(" ", "").split(",") if s]
    except ValueError:
        raise RulesError(f"cage sums must be whole numbers separated by commas: {sums!r}") from None
    if len(totals) != len(order):
        raise RulesError(f"{len(order)} cages but {len(totals)} sums")
    rules = base or Rules.for_size(n)
    if rules.n != n:
        raise RulesError(f"a {n}x{n} cage map for {rules} rules")
    cages = [
        Cage.checked([i for i, ch in enumerate(letters) if ch == letter], total, n)
        for letter, total in zip(order, totals, strict=True)
    ]
    return rules.with_constraints(*cages)
