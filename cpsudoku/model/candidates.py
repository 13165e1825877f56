"""Candidates and singles: the one propagation routine of the oracle, rater and generator.

A grid in play is three lists: ``vals`` (0 for an open cell), ``cand`` (for each open
cell the bitmask of its values still possible, bit ``d-1`` for value ``d``; 0 for a
filled one) and ``used`` (for each unit the bitmask of the values placed in it).
:func:`start` builds them from a puzzle's givens; :func:`place` fills a cell and
takes its value from its peers' candidates (the rater); :func:`fill` marks it in the
cell's units only, for a round of :func:`singles` to narrow the peers (the oracle's
branches); :func:`singles` places naked and hidden singles to a fixpoint, fast (the
oracle); :func:`singles_stepwise` reaches the same fixpoint one single at a time in a
fixed order, so that the singles placed before a contradiction count a chain the
same way every time (the rater's trials); :func:`naked_singles` places one value
and the naked singles that follow (the generator's random fill). Plain lists and
functions, not objects: this is the inner loop of the oracle's search.

The numpy logic pass of batch solving (:mod:`cpsudoku.datasets.bulk_logic`) does the
same on whole arrays of puzzles at once, and stays separate: it works on arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Literal

from cpsudoku.model.rules import Rules

if TYPE_CHECKING:
    from cpsudoku.model.primitives import Primitive

#: What :func:`singles` may assume of ``cand`` when it starts: ``"exact"``, every open
#: cell's possible values; ``"units"``, those values, but values placed since (by
#: :func:`fill`) are marked only in ``used``; ``"none"``, nothing (it is not read).
Known = Literal["exact", "units", "none"]


@dataclass(frozen=True, slots=True)
class Layout:
    """What propagation needs of a set of rules, computed once per rules.

    Attributes:
        n: the side of the grid.
        full: the mask of all ``n`` values.
        unit_cells: the cells of every unit.
        units_of: for each cell, the units holding it.
        rules: the rules themselves (their :attr:`~Rules.peers`, worked out when first
            asked for: the oracle's search does without them).
        complete: for each unit, whether it has ``n`` cells, so that it holds every
            value once (a smaller extra region only holds each at most once).
    """

    n: int
    full: int
    unit_cells: tuple[tuple[int, ...], ...]
    units_of: tuple[tuple[int, ...], ...]
    rules: Rules
    complete: tuple[bool, ...]

    @property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the other cells sharing a unit with it."""
        return self.rules.peers


@lru_cache(maxsize=64)  # a jigsaw or killer dataset has rules per puzzle
def layout(rules: Rules) -> Layout:
    """The :class:`Layout` of ``rules`` (cached per rules)."""
    return Layout(
        n=rules.n,
        full=(1 << rules.n) - 1,
        unit_cells=rules.unit_cells,
        units_of=rules.units_of,
        rules=rules,
        complete=tuple(len(cells) == rules.n for cells in rules.unit_cells),
    )


def start(
    lay: Layout, cells: tuple[int, ...] | list[int], *, exact: bool = True
) -> tuple[list[int], list[int], list[int]]:
    """``(vals, cand, used)`` of a grid whose givens are ``cells``.

    Each open cell's candidates are the values no unit of the cell holds; givens that
    clash are not looked for (an open cell may then have no candidate, which
    :func:`singles` reports). With ``exact=False`` every open cell gets all values
    instead: ``cand`` is left empty for a caller that runs :func:`singles` first with
    ``known="none"`` (its first round works the candidates out from the units anyway):
    the oracle, whose easy puzzles would otherwise pay for that pass twice.
    """
    vals = list(cells)
    used = [0] * len(lay.unit_cells)
    for i, v in enumerate(vals):
        if v:
            bit = 1 << (v - 1)
            for u in lay.units_of[i]:
                used[u] |= bit
    full = lay.full
    if not exact:
        return vals, [0] * len(vals), used
    cand = [0] * len(vals)
    for i, owners in enumerate(lay.units_of):
        if vals[i]:
            continue
        if len(owners) == 3:  # rows, columns, boxes: the common case, unrolled
            a, b, c = owners
            cand[i] = full & ~(used[a] | used[b] | used[c])
        else:
            m = full
            for u in owners:
                m &= ~used[u]
            cand[i] = m
    return vals, cand, used


def place(lay: Layout, vals: list[int], cand: list[int], used: list[int], i: int, v: int) -> None:
    """Fill cell ``i`` with ``v``: mark it used in the cell's units, take it from the peers."""
    bit = 1 << (v - 1)
    vals[i] = v
    cand[i] = 0
    for u in lay.units_of[i]:
        used[u] |= bit
    off = ~bit
    for j in lay.peers[i]:
        cand[j] &= off


def fill(lay: Layout, vals: list[int], cand: list[int], used: list[int], i: int, v: int) -> None:
    """Fill cell ``i`` with ``v`` and mark it used in the cell's units only.

    The peers keep ``v`` among their candidates until :func:`singles` runs with
    ``known="units"``, whose first round takes the units' values out of every open
    cell: cheaper than :func:`place` when a round runs next anyway, and it needs no
    peers (a jigsaw's rules are new for every puzzle, and its peers would be worked
    out for one search).
    """
    bit = 1 << (v - 1)
    vals[i] = v
    cand[i] = 0
    for u in lay.units_of[i]:
        used[u] |= bit


def naked_singles(
    lay: Layout, vals: list[int], cand: list[int], used: list[int], i: int, v: int
) -> bool:
    """Place ``v`` at ``i`` and every naked single that follows; False on a contradiction.

    A contradiction is ``v`` not being a candidate of ``i`` (or ``i`` holding another
    value), or a cell left without candidates. Only naked singles: the generator's
    random fill wants exactly these, no more.
    """
    todo = [(i, v)]
    while todo:
        i, v = todo.pop()
        bit = 1 << (v - 1)
        if vals[i]:
            if vals[i] != v:
                return False
            continue
        if not cand[i] & bit:
            return False
        place(lay, vals, cand, used, i, v)
        for j in lay.peers[i]:
            m = cand[j]
            if not vals[j]:
                if not m:
                    return False
                if not m & (m - 1):
                    todo.append((j, m.bit_length()))
    return True


def singles(
    lay: Layout, vals: list[int], cand: list[int], used: list[int], *, known: Known = "exact"
) -> tuple[int, bool]:
    """Place naked and hidden singles until none is left, in place.

    ``cand`` holds every open cell's possible values, less any eliminations of the
    caller's own (the rater's), exactly (as :func:`start` and :func:`place` keep it),
    unless ``known`` says less (:data:`Known`): with ``"units"`` (after :func:`fill`)
    the first round takes the units' values out of it, with ``"none"`` it is not
    looked at in the first round, which works the candidates out from the units alone
    (a grid fresh from ``start(..., exact=False)``).
    Placements made here mark only the units, not the peers; every later round takes
    the candidates afresh as ``cand`` less the values the cell's units hold, so on
    return ``cand`` is exact. The fixpoint is the same in any order. Returns the
    number of values placed, and whether a contradiction turned up (an open cell with
    no candidate left, or a value with no place left in a unit of ``n`` cells); the
    rater counts the steps that led to one.
    """
    full = lay.full
    unit_cells, units_of, complete = lay.unit_cells, lay.units_of, lay.complete
    cells = len(vals)
    placed = 0
    # The first round: cand as it is (exact), or narrowed by the units (units), or all
    # values narrowed by the units (none); an exact one narrows by the units only once
    # this round has placed something.
    fresh = known == "exact"
    rough = known == "none"
    while True:
        progress = False
        open_cells = False
        # Naked singles, and the candidates of every open cell.
        for i in range(cells):
            if vals[i]:
                continue
            owners = units_of[i]
            if fresh:
                m = cand[i]
            else:
                m = full if rough else cand[i]
                if len(owners) == 3:  # rows, columns, boxes: the common case, unrolled
                    a, b, c = owners
                    m &= ~(used[a] | used[b] | used[c])
                else:
                    for u in owners:
                        m &= ~used[u]
            if not m:
                return placed, True
            if m & (m - 1):
                cand[i] = m
                open_cells = True
            else:
                vals[i] = m.bit_length()
                cand[i] = 0
                for u in owners:
                    used[u] |= m
                placed += 1
                progress = True
                fresh = False  # the cells after this one must see it
        rough = False
        if progress:
            continue
        if not open_cells:
            return placed, False  # solved
        # Hidden singles: a value with one place left in a unit of n cells.
        for u, unit in enumerate(unit_cells):
            if not complete[u]:
                continue  # a smaller region need not hold every value
            once = twice = 0
            for i in unit:
                m = cand[i]
                twice |= once & m
                once |= m
            used_u = used[u]
            missing = full & ~used_u
            if missing & ~once:
                return placed, True
            hidden = once & ~twice & missing
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                i = next((i for i in unit if cand[i] & bit), -1)
                if i < 0:
                    return placed, True  # its one cell went to another hidden single
                for w in units_of[i]:
                    if used[w] & bit:
                        return placed, True  # already placed in a shared unit
                vals[i] = bit.bit_length()
                cand[i] = 0
                for w in units_of[i]:
                    used[w] |= bit
                placed += 1
                progress = True
        fresh = False
        if not progress:
            return placed, False


@dataclass(frozen=True, slots=True)
class Watch:
    """Which primitives :func:`propagate` wakes when a cell changes (:func:`watchers`).

    Attributes:
        of_cell: for each cell, the positions of the primitives over it.
        cells: the cells some primitive is over, ascending.
        gather: reads those cells' entries out of a list in one C call (a tuple).
    """

    of_cell: tuple[tuple[int, ...], ...]
    cells: tuple[int, ...]
    gather: Callable[[Sequence[int]], tuple[int, ...]]

    def woken(self, cand: list[int], before: list[int]) -> set[int]:
        """The primitives over a cell whose candidates are not those of ``before``."""
        now, then = self.gather(cand), self.gather(before)
        if now == then:  # the common case, compared in C
            return set()
        of_cell = self.of_cell
        return {
            k for i, a, b in zip(self.cells, now, then, strict=True) if a != b for k in of_cell[i]
        }


def watchers(constraints: Sequence[Primitive], cells: int) -> Watch:
    """The :class:`Watch` of ``constraints`` on a grid of ``cells``, once per search."""
    out: list[list[int]] = [[] for _ in range(cells)]
    for k, c in enumerate(constraints):
        for i in set(c.cells):
            out[i].append(k)
    watched = tuple(i for i in range(cells) if out[i])
    if len(watched) == 1:
        (only,) = watched
        gather: Callable[[Sequence[int]], tuple[int, ...]] = lambda xs: (xs[only],)  # noqa: E731
    else:
        gather = itemgetter(*watched) if watched else (lambda xs: ())
    return Watch(tuple(map(tuple, out)), watched, gather)


def propagate(
    constraints: Sequence[Primitive],
    lay: Layout,
    vals: list[int],
    cand: list[int],
    used: list[int],
    n: int,
    blame: list[Primitive] | None = None,
    *,
    watch: Watch | None = None,
    since: list[int] | None = None,
) -> bool:
    """Each primitive's narrowing, and singles again, to a fixpoint.

    False on a contradiction; the primitive that could not be kept is then appended
    to ``blame`` when one is given (a contradiction of the singles blames none). The
    oracle's propagation, shared with the estimator's probes.

    Each round runs only the primitives over a cell that changed since they last ran:
    every primitive in the first round, or with ``watch`` (:func:`watchers`) and
    ``since`` (the candidates of a state at a fixpoint this one came from: the
    oracle's parent node) those over a cell whose candidates differ from ``since``.
    A cell's candidates change whenever it narrows or is filled (a filled cell's are
    0), so the one list says it. The fixpoint is the same as running every primitive
    every round: each narrowing only takes values out, and one whose cells did not
    change since it last ran has nothing new to take.
    """
    if watch is None:
        watch = watchers(constraints, len(vals))
    pending: set[int] | range = (
        range(len(constraints)) if since is None else watch.woken(cand, since)
    )
    while pending:
        before = cand.copy()
        for k in sorted(pending) if isinstance(pending, set) else pending:
            c = constraints[k]
            if c.narrow(vals, cand, n) < 0:
                if blame is not None:
                    blame.append(c)
                return False
        if cand == before:
            return True
        if singles(lay, vals, cand, used)[1]:
            return False
        pending = watch.woken(cand, before)
    return True


def fewest(cand: list[int]) -> tuple[int, int]:
    """The first open cell with the fewest candidates, and its mask.

    ``(-1, 0)`` when no cell is open. A cell of two candidates ends the look (an open
    cell of one would have been placed by the singles): the oracle's branching, and
    the estimator's probes down the same tree.
    """
    best, best_mask, best_size = -1, 0, 0
    for i, m in enumerate(cand):
        if m:
            size = m.bit_count()
            if best < 0 or size < best_size:
                best, best_mask, best_size = i, m, size
                if size == 2:
                    break
    return best, best_mask


def singles_stepwise(
    lay: Layout, vals: list[int], cand: list[int], used: list[int]
) -> tuple[int, bool]:
    """Place naked and hidden singles one at a time until none is left, in place.

    The fixpoint of :func:`singles`, reached in the order the rater counts a chain of
    singles by: cells in order, each naked single placed through its peers
    (:func:`place`) as soon as it is seen, so that the cells after it see it in the
    same sweep; when a sweep places nothing, one hidden single per unit of ``n`` cells
    (units in order), each placed through its peers before the next unit is looked
    at; a contradiction reported as soon as a sweep meets it (an open cell with no
    candidate, a value with no place left in a unit). ``cand`` must be exact (as
    :func:`start` and :func:`place` keep it, less any eliminations of the caller's
    own).

    The fixpoint is the same in any order, but the number of singles placed before a
    contradiction shows up is not, and the rater scores a refutation by that number:
    :func:`singles` (units only, every hidden single of a unit at once) counts other
    placements and changed a third of the rater's scores of hard puzzles. That one
    stays the oracle's, which needs the fixpoint only, and fast.

    Returns:
        (values placed, whether a contradiction turned up).
    """
    full = lay.full
    unit_cells, complete = lay.unit_cells, lay.complete
    placed = 0
    while True:
        progress = False
        for i, m in enumerate(cand):
            if m:
                if not m & (m - 1):
                    place(lay, vals, cand, used, i, m.bit_length())
                    placed += 1
                    progress = True
            elif not vals[i]:
                return placed, True
        if progress:
            continue
        for u, cells in enumerate(unit_cells):
            if not complete[u]:
                continue  # a smaller region need not hold every value
            once = twice = 0
            for i in cells:
                m = cand[i]
                twice |= once & m
                once |= m
            missing = full & ~used[u]
            if missing & ~once:
                return placed, True
            hidden = once & ~twice & missing
            if hidden:
                bit = hidden & -hidden
                i = next(i for i in cells if cand[i] & bit)
                place(lay, vals, cand, used, i, bit.bit_length())
                placed += 1
                progress = True
        if not progress:
            return placed, False
