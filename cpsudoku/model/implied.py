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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from cpsudoku.model.constraints import Cage
from cpsudoku.model.constraints.cages import sum_bounds
from cpsudoku.model.constraints.sums import LinearSum
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
    other cells, when there are 1 to ``most`` of them, with a known sum (or, beside
    multi-sum cages, one of the sums their sums leave: a multi-sum cage). A unit whose
    cages overlap is skipped (their sums would count a cell twice), and so is a
    leftover whose sum no set of different digits makes (the puzzle then has no
    solution, which the engines find by themselves). Renban lines have no sum and
    count as cells outside any cage.
    """
    if not any(type(c) is Cage and c.targets for c in rules.constraints):
        return ()
    return _implied(rules, most)


@lru_cache(maxsize=256)
def _implied(rules: Rules, most: int) -> tuple[Cage, ...]:
    n = rules.n
    units_of = rules.units_of
    unit_cells = rules.unit_cells
    # Per unit holding whole cages, the totals its cages can add up to: one, or with
    # multi-sum cages each sum of one of every cage's sums (a set of at most n(n+1)/2
    # + 1 numbers), and the cells they cover.
    totals: dict[int, set[int]] = {}
    covered: dict[int, list[int]] = {}
    for cage in rules.constraints:
        if type(cage) is not Cage or not cage.cells:
            continue
        targets = cage.targets
        if not targets:
            continue
        # The units holding every cell of the cage.
        cells = cage.cells
        shared = set(units_of[cells[0]])
        for i in cells[1:]:
            shared.intersection_update(units_of[i])
        for k in shared:
            if k in totals:
                totals[k] = {a + t for a in totals[k] for t in targets}
                covered[k].extend(cells)
            else:
                totals[k] = set(targets)
                covered[k] = list(cells)
    full = n * (n + 1) // 2
    found: list[Cage] = []
    seen: set[tuple[int, ...]] = set()
    for k in sorted(covered):
        cells = unit_cells[k]
        inside = set(covered[k])
        if len(cells) != n or len(inside) != len(covered[k]):
            continue
        size = n - len(inside)
        if not 1 <= size <= most:
            continue
        left = tuple(i for i in cells if i not in inside)
        if left in seen:
            continue
        low, high = sum_bounds(size, n)
        sums = sorted(s for a in totals[k] if low <= (s := full - a) <= high)
        if not sums:
            continue
        cage = Cage(left, sums[0]) if len(sums) == 1 else Cage(left, None, tuple(sums))
        if cage.combinations(n):
            seen.add(left)
            found.append(cage)
    return tuple(found)


#: The most cells an implied innies/outies sum may have (see :func:`implied_sums`).
MOST_SUM_CELLS = 4


@dataclass(frozen=True, slots=True)
class ImpliedSum(LinearSum):
    """A weighted sum the rule of 45 implies (innies +1, outies -1); engines only.

    No rule kind of its own: it is never read, written or checked, only added by an
    engine to its encoding beside the rules (:func:`implied_sums`).
    """

    kind: ClassVar[str] = "implied-sum"
    meaning: ClassVar[str] = "innies less outies of a run of units, as the rule of 45 gives"
    cells: tuple[int, ...]
    weights: tuple[int, ...]
    total: int

    @property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """``(cell, weight)``: +1 for an innie, -1 for an outie."""
        return tuple(zip(self.cells, self.weights, strict=True))

    @property
    def target(self) -> int:
        """Innies less outies."""
        return self.total

    def spec(self) -> dict[str, Any]:
        """For messages only: the terms and the target."""
        return {"kind": self.kind, "terms": [list(t) for t in self.terms], "sum": self.total}


def implied_sums(rules: Rules, most: int = MOST_SUM_CELLS) -> tuple[ImpliedSum, ...]:
    """Innies and outies of runs of units: what the rule of 45 gives beyond one unit.

    A run of k adjacent rows (or columns), or one box or region, holds k times
    n(n+1)/2. Each killer cage with a sum that lies partly in the run is counted
    either by its cells inside (innies, weight +1) or as a whole, its total taken off
    and its cells outside the run weighed -1 (outies), whichever leaves fewer cells;
    cages wholly inside only take their total off, cells in no cage are innies. When
    1 to ``most`` cells are left, their weighted sum is known: a :class:`Sum` whose
    digits may repeat (the cells need not share a unit). What :func:`implied_cages`
    gives already (the innies of one unit, a cage of few cells) is left out, and so
    are runs whose cages overlap and sums no digits make.
    """
    if not any(type(c) is Cage and c.total is not None for c in rules.constraints):
        return ()
    return _implied_sums(rules, most)


@lru_cache(maxsize=256)
def _implied_sums(rules: Rules, most: int) -> tuple[ImpliedSum, ...]:
    n = rules.n
    full = n * (n + 1) // 2
    cage_of: dict[int, int] = {}
    cages: list[Cage] = []
    for c in rules.constraints:
        if type(c) is not Cage or c.total is None or not c.cells:
            continue
        for i in c.cells:
            if i in cage_of:
                return ()  # overlapping cages: a cell would count twice
            cage_of[i] = len(cages)
        cages.append(c)
    units = rules.unit_cells
    runs: list[tuple[int, ...]] = []
    for first in (0, n):  # rows, then columns
        for a in range(n):
            for b in range(a + 1, n + 1):
                if b - a < n:
                    runs.append(tuple(i for k in range(first + a, first + b) for i in units[k]))
    runs.extend(u for u in units[2 * n : 3 * n] if len(u) == n)
    already = {tuple(sorted(c.cells)) for c in implied_cages(rules)}
    found: list[ImpliedSum] = []
    seen: set[tuple[tuple[int, int], ...]] = set()
    for run in runs:
        inside = set(run)
        target = full * len(run) // n
        terms: dict[int, int] = {}
        for i in run:
            if i not in cage_of:
                terms[i] = 1
        for k in sorted({cage_of[i] for i in run if i in cage_of}):
            cage = cages[k]
            ins = [i for i in cage.cells if i in inside]
            outs = [i for i in cage.cells if i not in inside]
            if len(outs) < len(ins) or not outs:
                target -= cage.total  # type: ignore[operator]
                terms.update((i, -1) for i in outs)
            else:
                terms.update((i, 1) for i in ins)
        if not 1 <= len(terms) <= most:
            continue
        key = tuple(sorted(terms.items()))
        if key in seen or (all(w == 1 for _, w in key) and tuple(i for i, _ in key) in already):
            continue
        low = sum(w if w > 0 else w * n for _, w in key)
        high = sum(w * n if w > 0 else w for _, w in key)
        if not low <= target <= high:
            continue
        seen.add(key)
        found.append(ImpliedSum(tuple(i for i, _ in key), tuple(w for _, w in key), target))
    return tuple(found)


#: The fewest cells of the smaller sum that must see the other sum's cells before two
#: sums are tried as one (:func:`combined_sums`): fewer, and their digits barely meet.
MERGE_SEEN = 6


@dataclass(frozen=True, slots=True)
class _Record:
    """A sum of different-digit groups, scored for :func:`combined_sums`."""

    cells: int  # a bit per cell
    total: int
    score: int
    original: bool


def _group_sizes(cells: int, units: tuple[int, ...]) -> list[int]:
    """The sizes of ``cells``' groups of different digits, greedily by the fullest unit."""
    sizes = []
    pieces = [p for u in units if (p := u & cells).bit_count() > 1]
    left = cells
    while pieces:
        best = max(pieces, key=int.bit_count)
        sizes.append(best.bit_count())
        left &= ~best
        pieces = [q for p in pieces if (q := p & ~best).bit_count() > 1]
    return sizes + [1] * left.bit_count()


def _record(
    cells: int, total: int, n: int, units: tuple[int, ...], original: bool
) -> _Record | None:
    """``cells`` adding up to ``total``, scored; None when no digits can make it."""
    sizes = _group_sizes(cells, units)
    low = sum(k * (k + 1) // 2 for k in sizes)
    high = sum(k * (2 * n - k + 1) // 2 for k in sizes)
    if not low <= total <= high:
        return None
    slack = min(total - low, high - total)
    # A group of k different digits has k(n - k) ways to lie off its extremes: a
    # score above 0 means the groups are tighter than the sum's slack lets them be.
    score = sum(k * (n - k) - slack for k in sizes)
    return _Record(cells, total, score, original)


def combined_sums(rules: Rules) -> tuple[ImpliedSum, ...]:
    """Sums of several sums whose cells see each other: what two diagonals add up to.

    Two little killers side by side each cross boxes in pieces of one to three cells,
    loose bounds; together their pieces in a box are one group of different digits
    (up to eight of a box's nine), and such a group's sum has little room: eight
    little killers of 49 that cannot all hold are refuted by the compiled engine in
    4,000 nodes with the sums of the two families of parallel diagonals, not in 2
    million without (docs/design.md). Sums with every weight 1 (little killers) are
    merged two at a time, greedily, while the merged sum scores better (its groups
    tighter for its slack) than both of its parts, or than the two together, as the
    Interactive Sudoku Solver's optimiser merges its sums; only sums disjoint and
    related (:data:`MERGE_SEEN` cells of the smaller seeing the larger) are tried. The
    merged sums that were not rules are returned. Killer cages are left out: their
    innies and outies (:func:`implied_sums`) say more, and merged cages beside them
    cost more than they cut (killer-0-cage-hard of the hard set: 10,218 -> 12,219
    nodes).
    """
    sums = tuple(
        (tuple(c.cells), c.target)
        for c in rules.constraints
        if isinstance(c, LinearSum)
        and len(c.cells) >= MERGE_SEEN
        and all(w == 1 for _, w in c.terms)
    )
    if len(sums) < 2:
        return ()
    return _combined(rules, sums)


#: The most band sums :func:`diagonal_bands` returns for one grid.
MOST_BANDS = 16


def diagonal_bands(rules: Rules) -> tuple[ImpliedSum, ...]:
    """Sums of runs of parallel diagonals that hold a whole box: the band of the X.

    Each whole diagonal of the grid (every cell with the same column less row, or
    row plus column) whose cells add up to a known number, a little killer or a
    diagonal of n different digits (n(n+1)/2), is a line of the band it lies in. A run
    of such lines side by side adds up to their totals; when the run holds a whole box,
    that box adds n(n+1)/2 whatever its digits, so what the run holds outside its
    boxes has a sum of its own. Setters build little killers beside an X around this:
    on the hard set's hailstone little killer the two bands of five diagonals (39 cells,
    three whole boxes each) leave 12 cells adding up to 81 and 83, and the compiled
    engine's search on the layout with them falls from 132,284 nodes to 8,564; the
    engines read whole units out of a sum
    (:func:`~cpsudoku.encode.sum_clauses.fold_units`), so the band is given whole. No
    pair of the lines makes such a sum, which is why :func:`combined_sums`, merging two
    at a time while each merge scores better, never gets there.
    """
    if not any(isinstance(c, LinearSum) for c in rules.constraints):
        return ()
    return _bands(rules)


def _offset(i: int, n: int, d: int) -> int:
    """Cell ``i``'s diagonal: column less row (``d`` 0, falling) or row plus column (1)."""
    return i % n - i // n if d == 0 else i % n + i // n


def _line_of(cells: Sequence[int], n: int) -> tuple[int, int] | None:
    """The whole diagonal ``cells`` are exactly, as ``(d, offset)``; else None.

    ``d`` and ``offset`` as :func:`_offset` gives them.
    """
    for d in (0, 1):
        key = _offset(cells[0], n, d)
        length = n - abs(key) if d == 0 else n - abs(key - (n - 1))
        if len(cells) == length == len(set(cells)) and all(_offset(i, n, d) == key for i in cells):
            return d, key
    return None


@lru_cache(maxsize=256)
def _bands(rules: Rules) -> tuple[ImpliedSum, ...]:
    n = rules.n
    lines: dict[tuple[int, int], int] = {}  # (direction, offset) -> total
    for c in rules.constraints:
        if (
            isinstance(c, LinearSum)
            and all(w == 1 for _, w in c.terms)
            and (key := _line_of(c.cells, n)) is not None
        ):
            lines[key] = c.target
    if not lines:
        return ()  # (asked of every puzzle with a sum: an arrow's answer is cheap)
    for u in rules.unit_cells[3 * n :]:
        if (key := _line_of(u, n)) is not None:
            lines.setdefault(key, n * (n + 1) // 2)
    boxes = [frozenset(u) for u in rules.unit_cells[2 * n : 3 * n] if len(u) == n]
    found: list[ImpliedSum] = []
    for d in (0, 1):
        offsets = sorted(k for dd, k in lines if dd == d)
        for a, first in enumerate(offsets):
            cells: set[int] = set()
            total = 0
            for b in range(a, len(offsets)):
                if offsets[b] != first + (b - a):
                    break  # not side by side
                cells |= _diagonal(n, d, offsets[b])
                total += lines[(d, offsets[b])]
                if b > a and any(box <= cells for box in boxes):
                    found.append(ImpliedSum(tuple(sorted(cells)), (1,) * len(cells), total))
                    break  # the shortest run from here: longer ones say less
    found.sort(key=lambda s: len(s.cells))
    return tuple(found[:MOST_BANDS])


@lru_cache(maxsize=512)
def _diagonal(n: int, d: int, key: int) -> frozenset[int]:
    """The cells of a whole diagonal (see :func:`_line_of`)."""
    return frozenset(i for i in range(n * n) if _offset(i, n, d) == key)


@lru_cache(maxsize=16)
def _peer_masks(grid: Rules) -> tuple[int, ...]:
    """Each cell's peers (:attr:`Rules.peers`) as a bit mask, once per grid."""
    return tuple(sum(1 << j for j in near) for near in grid.peers)


@lru_cache(maxsize=256)
def _combined(
    rules: Rules, sums: tuple[tuple[tuple[int, ...], int], ...]
) -> tuple[ImpliedSum, ...]:
    n = rules.n
    units = tuple(sum(1 << i for i in u) for u in rules.unit_cells)
    seen = _peer_masks(rules.units_only)
    active: dict[int, _Record] = {}
    for cells, total in sums:
        mask = sum(1 << i for i in cells)
        if mask not in active and (r := _record(mask, total, n, units, True)):
            active[mask] = r

    def related(a: _Record, b: _Record) -> bool:
        if a.cells & b.cells:
            return False
        small, big = (a, b) if a.cells.bit_count() <= b.cells.bit_count() else (b, a)
        if small.cells.bit_count() < MERGE_SEEN:
            return False
        count, k = 0, small.cells
        while k:
            low = k & -k
            count += bool(seen[low.bit_length() - 1] & big.cells)
            k ^= low
        return count >= MERGE_SEEN

    def merged(a: _Record, b: _Record) -> _Record | None:
        if not related(a, b) or (a.cells | b.cells) in active:
            return None
        r = _record(a.cells | b.cells, a.total + b.total, n, units, False)
        if r is None or (min(a.score, b.score) >= r.score and r.score <= a.score + b.score):
            return None
        return r

    records = list(active.values())
    candidates = [
        (m, a, b)
        for i, a in enumerate(records)
        for b in records[i + 1 :]
        if (m := merged(a, b)) is not None
    ]
    while candidates:
        live = [
            c
            for c in candidates
            if active.get(c[1].cells) is c[1]
            and active.get(c[2].cells) is c[2]
            and c[0].cells not in active
        ]
        if not live:
            break
        best = max(live, key=lambda c: (c[0].score, c[0].cells))
        new, a, b = best
        del active[a.cells], active[b.cells]
        active[new.cells] = new
        candidates = [c for c in live if c is not best]
        candidates += [
            (m, new, o) for o in active.values() if o is not new and (m := merged(new, o))
        ]
    found = []
    for r in active.values():
        if r.original or r.score <= 0:
            continue
        cells = tuple(i for i in range(rules.cells) if r.cells >> i & 1)
        found.append(ImpliedSum(cells, (1,) * len(cells), r.total))
    return tuple(found)
