"""Reference oracle: a backtracking solver in pure Python (standard library only).

Two strategies, selected by variant word:

- ``backtrack`` (default): candidates as bitmasks (bit ``d-1`` set when value ``d`` is
  still possible), naked and hidden singles to a fixpoint, then branching on the cell
  with the fewest candidates. Counts solutions up to a limit.
- ``backtrack:naive``: the textbook version of the classic write-ups: empty cells in
  row-major order, values 1..n in turn, each checked against the cell's row, column
  and box. Kept so the benchmark can show how far the real oracle is ahead of it.

Both read the rules only from ``rules.unit_cells`` / ``rules.peers``, so they
work for any box shape (and any other unit layout). They share no code with the
verifier or the other engines: that independence is what makes this an oracle.

Stats: ``nodes`` (search states visited; placements for the naive strategy) and
``guesses`` (states entered by a branching choice rather than by logic; zero means
solved without guessing).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from operator import itemgetter

from cpsudoku.engines.base import Backend, Search
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: How many nodes between two looks at the clock in the naive strategy.
_CLOCK_EVERY = 4096


class BacktrackBackend(Backend):
    """The reference oracle (``backtrack``), or the textbook baseline (``backtrack:naive``)."""

    name = "backtrack"
    variants = ("naive",)
    baseline = "backtrack:naive"

    def __init__(self, variant: Sequence[str] = ()) -> None:
        super().__init__(variant)
        self._naive = "naive" in self.variant

    @property
    def keeps_rules(self) -> bool:
        """Nothing is encoded: the search reads the rules directly."""
        return False

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Find up to ``limit`` solutions by backtracking."""
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        if self._naive:
            return _naive_search(puzzle, limit, deadline)
        return _singles_search(puzzle, limit, deadline)


def _singles_search(puzzle: Puzzle, limit: int, deadline: float | None) -> Search:
    """Depth-first search with singles propagation and fewest-candidates branching."""
    g: Rules = puzzle.rules
    n = g.n
    full = (1 << n) - 1
    unit_cells = g.unit_cells
    units_of = g.units_of
    used = [0] * len(unit_cells)
    vals = list(puzzle.cells)
    for i, v in enumerate(vals):
        if v:
            for u in units_of[i]:
                used[u] |= 1 << (v - 1)

    found = Search()
    nodes = guesses = 0
    stack: list[tuple[list[int], list[int], bool]] = [(vals, used, False)]
    while stack:
        vals, used, guessed = stack.pop()
        nodes += 1
        guesses += guessed
        if deadline is not None and time.perf_counter() > deadline:
            found.timed_out = True
            break
        cand = _propagate(vals, used, unit_cells, units_of, full)
        if cand is None:
            continue
        if not any(cand):
            found.count += 1
            if len(found.solutions) < 2:
                found.solutions.append(tuple(vals))
            if found.count >= limit:
                break
            continue
        # Branch on the open cell with the fewest candidates.
        best, best_mask, best_size = -1, 0, n + 1
        for i, m in enumerate(cand):
            if not m:
                continue
            size = m.bit_count()
            if size < best_size:
                best, best_mask, best_size = i, m, size
                if size == 2:
                    break
        units = units_of[best]
        children = []
        m = best_mask
        while m:
            bit = m & -m
            m ^= bit
            child_vals = vals.copy()
            child_vals[best] = bit.bit_length()
            child_used = used.copy()
            for u in units:
                child_used[u] |= bit
            children.append((child_vals, child_used, True))
        stack.extend(reversed(children))  # smallest value explored first
    else:
        found.exhausted = True
    found.stats = {"nodes": nodes, "guesses": guesses}
    return found


def _propagate(
    vals: list[int],
    used: list[int],
    unit_cells: tuple[tuple[int, ...], ...],
    units_of: tuple[tuple[int, ...], ...],
    full: int,
) -> list[int] | None:
    """Place naked and hidden singles until none is left, in place.

    Returns the candidate masks of all cells (0 for filled cells; all zero when the
    grid is solved), or None on a contradiction: an open cell without candidates, a
    value with no place left in a unit, or two singles that clash.
    """
    cells = len(vals)
    while True:
        # Naked singles, and the candidates of every open cell.
        cand = [0] * cells
        placed = False
        open_cells = False
        for i in range(cells):
            if vals[i]:
                continue
            owners = units_of[i]
            if len(owners) == 3:  # rows, columns, boxes: the common case, unrolled
                a, b, c = owners
                m = full & ~(used[a] | used[b] | used[c])
            else:
                m = full
                for u in owners:
                    m &= ~used[u]
            if not m:
                return None
            if m & (m - 1):
                cand[i] = m
                open_cells = True
            else:
                vals[i] = m.bit_length()
                for u in owners:
                    used[u] |= m
                placed = True
        if placed:
            continue
        if not open_cells:
            return cand
        # Hidden singles: a value with one place left in a unit.
        for u, unit in enumerate(unit_cells):
            once = twice = 0
            for i in unit:
                m = cand[i]
                twice |= once & m
                once |= m
            used_u = used[u]
            if (once | used_u) != full:
                return None
            hidden = once & ~twice & ~used_u
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                for i in unit:
                    if cand[i] & bit:
                        break
                if vals[i]:
                    return None  # two hidden singles want the same cell
                for w in units_of[i]:
                    if used[w] & bit:
                        return None  # already placed elsewhere in a shared unit
                vals[i] = bit.bit_length()
                for w in units_of[i]:
                    used[w] |= bit
                placed = True
        if not placed:
            return cand


def _naive_search(puzzle: Puzzle, limit: int, deadline: float | None) -> Search:
    """Cell by cell in row-major order, values 1..n, each checked against the peers."""
    g = puzzle.rules
    n = g.n
    vals = list(puzzle.cells)
    empties = [i for i, v in enumerate(vals) if not v]
    # The values of each empty cell's peers, read in one C call: the strategy is the
    # textbook one, only its check is not written as a Python loop over the peers.
    peer_values = [_gather(g.peers[i]) for i in empties]
    found = Search()
    nodes = 0
    pos = 0
    depth = len(empties)
    while pos >= 0:
        if pos == depth:
            found.count += 1
            if len(found.solutions) < 2:
                found.solutions.append(tuple(vals))
            if found.count >= limit:
                break
            pos -= 1
            continue
        i = empties[pos]
        v = vals[i] + 1
        seen = peer_values[pos](vals)
        while v <= n and v in seen:
            v += 1
        if v <= n:
            vals[i] = v
            pos += 1
            nodes += 1
            if (
                deadline is not None
                and nodes % _CLOCK_EVERY == 0
                and time.perf_counter() > deadline
            ):
                found.timed_out = True
                break
        else:
            vals[i] = 0
            pos -= 1
    else:
        found.exhausted = True
    found.stats = {"nodes": nodes, "guesses": nodes}
    return found


def _gather(cells: Sequence[int]) -> Callable[[Sequence[int]], Sequence[int]]:
    """A function reading ``cells`` out of a grid as a tuple (any number of cells)."""
    if len(cells) > 1:
        return itemgetter(*cells)
    return lambda vals: tuple(vals[j] for j in cells)
