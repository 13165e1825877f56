"""Reference oracle: a backtracking solver in pure Python (standard library only).

Two strategies, selected by variant word:

- ``backtrack`` (default): candidates as bitmasks (bit ``d-1`` set when value ``d`` is
  still possible), naked and hidden singles to a fixpoint, then branching on the cell
  with the fewest candidates; with rules beyond the units, the fewest for the failures
  seen near it so far (dom/wdeg: a failed branch weighs its cell, a primitive that
  cannot be kept weighs its cells). Counts solutions up to a limit.
- ``backtrack:naive``: the textbook version of the classic write-ups: empty cells in
  row-major order, values 1..n in turn, each checked against the cell's row, column
  and box. Kept so the benchmark can show how far the real oracle is ahead of it.

Both read the rules only from ``rules.unit_cells`` (and ``units_of``, ``peers``), so they
work for any box shape (and any other unit layout); other rules narrow the candidates
through the primitives they compile to
(:meth:`~cpsudoku.model.primitives.Primitive.narrow`, then singles again, to a
fixpoint); the naive strategy checks them after every placement. They share no code
with the verifier or the other engines: that independence is what makes this an oracle.

Stats: ``nodes`` (search states visited; placements for the naive strategy) and
``guesses`` (states entered by a branching choice rather than by logic; zero means
solved without guessing).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import itemgetter

from cpsudoku.engines.base import GENERAL_PRIMITIVES, Backend, Search
from cpsudoku.model.candidates import (
    Layout,
    fewest,
    fill,
    layout,
    propagate,
    singles,
    start,
    watchers,
)
from cpsudoku.model.primitives import GroupedSum, Primitive, Relation, Sum, values_of
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: A search state: values, candidates, units' values, the cell its branch filled (-1
#: at the root) and its parent's candidates (None at the root).
_State = tuple[list[int], list[int], list[int], int, list[int] | None]

#: Nodes after which a search first starts again the other way (by a digit's places,
#: then by cells again, turn about, with doubling caps): past what every published
#: puzzle the search by cells ends takes (docs/design.md).
RESTART_NODES = 1_000_000

#: How many nodes between two looks at the clock in the naive strategy.
_CLOCK_EVERY = 4096


class BacktrackBackend(Backend):
    """The reference oracle (``backtrack``), or the textbook baseline (``backtrack:naive``)."""

    name = "backtrack"
    variants = ("naive",)
    baseline = "backtrack:naive"
    primitive_kinds = GENERAL_PRIMITIVES

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


def _singles_search(
    puzzle: Puzzle, limit: int, deadline: float | None, restart: int | None = None
) -> Search:
    """Depth-first search with singles propagation and weighted fewest-candidates branching.

    A search that passes ``restart`` nodes (:data:`RESTART_NODES` by default) starts
    again from the root branching on a digit's places in a unit, where they are fewer
    than the chosen cell's candidates, for twice as many nodes; then by cells again
    for as many, and so on, turn about, each way's cap doubling. The failures' weights
    carry over; each run counts its solutions afresh, so counts stay exact
    (docs/design.md).
    """
    nodes = guesses = 0
    weight = [0] * len(puzzle.cells)
    first = restart or RESTART_NODES
    for run in itertools.count():
        cap = nodes + (first << min((run + 1) // 2, 40))
        found, nodes, guesses = _run(
            puzzle, limit, deadline, weight, run % 2 == 1, cap, nodes, guesses
        )
        if found is not None:
            found.stats = {"nodes": nodes, "guesses": guesses}
            return found
    raise AssertionError("unreachable")  # pragma: no cover


def _run(
    puzzle: Puzzle,
    limit: int,
    deadline: float | None,
    weight: list[int],
    places: bool,
    cap: int,
    nodes: int,
    guesses: int,
) -> tuple[Search | None, int, int]:
    """One run of :func:`_singles_search` from the root.

    Returns its answer (None past ``cap`` nodes: start again), and the nodes and
    guesses counted so far.
    """
    lay = layout(puzzle.rules)
    constraints, n = oracle_primitives(puzzle.rules), puzzle.rules.n
    found = Search()
    # The root's candidates are worked out by its first round of singles; a child's are
    # its parent's, and its first round takes out what its units hold (the branch
    # value, placed by ``fill`` in the units only: no peers needed).
    root = start(lay, puzzle.cells, exact=False)
    # Failures seen near each cell in this search (``weight``), for branching where
    # there are rules beyond the units: a failed branch weighs its cell, a primitive
    # that could not be kept weighs each of its cells (docs/design.md).
    blame: list[Primitive] = []
    watch = watchers(constraints, len(puzzle.cells))
    # Each state with the cell its branch filled (-1 at the root) and its parent's
    # candidates (a fixpoint of every primitive: only those over a cell that changed
    # since need to run again).
    stack: list[_State] = [(*root, -1, None)]
    while stack:
        vals, cand, used, branched, parent = stack.pop()
        nodes += 1
        guesses += branched >= 0
        if deadline is not None and time.perf_counter() > deadline:
            found.timed_out = True
            break
        if nodes > cap:
            return None, nodes, guesses
        if singles(lay, vals, cand, used, known="units" if branched >= 0 else "none")[1]:
            if branched >= 0:
                weight[branched] += 1
            continue  # a contradiction
        if constraints and not propagate(
            constraints, lay, vals, cand, used, n, blame, watch=watch, since=parent
        ):
            if branched >= 0:
                weight[branched] += 1
            for c in blame:
                for i in c.cells:
                    weight[i] += 1
            blame.clear()
            continue  # a cage (or another constraint) cannot be kept
        if not any(cand):  # no open cell left: solved
            found.count += 1
            if len(found.solutions) < 2:
                found.solutions.append(tuple(vals))
            if found.count >= limit:
                break
            continue
        if constraints or places:  # the open cell with the fewest candidates for its weight
            best, best_mask, best_size, best_weight = -1, 0, 1, 0
            for i, m in enumerate(cand):
                if m:
                    size, w = m.bit_count(), 1 + weight[i]
                    if best < 0 or size * best_weight < best_size * w:
                        best, best_mask, best_size, best_weight = i, m, size, w
        else:  # units alone: the first open cell with the fewest candidates
            best, best_mask = fewest(cand)
        # Each child: (cell, value), smallest value (or first place) explored first.
        branches = [(best, v) for v in values_of(best_mask)]
        if places:
            branches = _fewest_places(lay, cand, used, len(branches)) or branches
        children = []
        for i, v in branches:
            child = vals.copy(), cand.copy(), used.copy()
            fill(lay, *child, i, v)
            children.append((*child, i, cand))
        stack.extend(reversed(children))
    else:
        found.exhausted = True
    return found, nodes, guesses


@lru_cache(maxsize=64)
def oracle_primitives(rules: Rules) -> tuple[Primitive, ...]:
    """The rules' primitives as the oracle narrows them, with what the units add.

    A sum whose terms of one weight see each other holds different digits there
    (:class:`~cpsudoku.model.primitives.GroupedSum`), and a relation that joins every
    two of its cells is also read as the table of their tuples
    (:meth:`~cpsudoku.model.primitives.Relation.clique_table`). Both only narrow more:
    the rules and their solutions are the same. On the published "Beauty mark"
    (equal-sum lines and nabner lines), with seven cells of its solution given, they
    took the search from 180,041 nodes to 21,837 (docs/design.md).
    """
    out: list[Primitive] = []
    tables: list[Primitive] = []
    peers: list[frozenset[int]] = []
    for p in rules.primitives:
        if isinstance(p, Sum):
            if not peers:
                peers = [frozenset(cells) for cells in rules.peers]
            out.append(GroupedSum.of(p, peers))
            continue
        out.append(p)
        if isinstance(p, Relation) and (table := p.clique_table()) is not None:
            tables.append(table)
    return (*out, *tables)


def _fewest_places(
    lay: Layout, cand: list[int], used: list[int], most: int
) -> list[tuple[int, int]]:
    """The places of the digit with the fewest in a unit of n cells, as ``(cell, digit)``.

    Only where they are fewer than ``most`` (the chosen cell's candidates), else none.
    The digit must be in one of them, and in only one: a complete and disjoint split.
    """
    best: list[tuple[int, int]] = []
    for u, cells in enumerate(lay.unit_cells):
        if not lay.complete[u]:
            continue
        for d in values_of(lay.full & ~used[u]):
            bit = 1 << (d - 1)
            where = [i for i in cells if cand[i] & bit]
            if 2 <= len(where) < most:
                most, best = len(where), [(i, d) for i in where]
    return best


def _naive_search(puzzle: Puzzle, limit: int, deadline: float | None) -> Search:
    """Cell by cell in row-major order, values 1..n, each checked against the peers."""
    g = puzzle.rules
    n = g.n
    constraints = g.primitives
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
        while v <= n and (v in seen or (constraints and not _keeps(constraints, vals, i, v, n))):
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


def _keeps(constraints: Sequence[Primitive], vals: list[int], i: int, v: int, n: int) -> bool:
    """True when ``v`` at cell ``i`` keeps every primitive possible (``vals`` unchanged)."""
    old, vals[i] = vals[i], v
    ok = all(c.possible(vals, n) for c in constraints)
    vals[i] = old
    return ok


def _gather(cells: Sequence[int]) -> Callable[[Sequence[int]], Sequence[int]]:
    """A function reading ``cells`` out of a grid as a tuple (any number of cells)."""
    if len(cells) > 1:
        return itemgetter(*cells)
    return lambda vals: tuple(vals[j] for j in cells)
