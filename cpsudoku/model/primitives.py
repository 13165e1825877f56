"""The few shapes every rule compiles to, and every engine implements once.

A rule (:class:`~cpsudoku.model.constraints.Constraint`) says what it means in the
setters' words; :meth:`~cpsudoku.model.constraints.Constraint.compile` turns it into
primitives, and the engines know only these:

- :class:`Relation`: pairs of cells whose values must be an allowed pair (a table
  ``n x n``): anti-knight, kropki dots, XV, thermometers, whispers, palindromes,
  clones, indexers, negative rules...
- :class:`Allowed`: the values each listed cell may hold (parity, given candidates).
- :class:`Distinct`: no value twice among the cells (extra regions, disjoint sets).
- :class:`DigitSets`: different digits forming one of the listed sets (killer cages,
  renban lines, digital-root and multi-sum cages).
- :class:`Table`: the allowed tuples of a few cells (between lines, lockout lines).
- :class:`Sum`: a weighted sum of cells, digits may repeat, lying in a set of targets
  (little killers, arrows and pills, equal sums along a line).
- :class:`Automaton`: a regular language over a line of cells (sandwiches, X-sums,
  skyscrapers, numbered rooms, a rule given as a regular expression).
- :class:`Count`: how many of the cells hold a value of a set (quadruples, counting
  circles, entropy in every 2x2).
- :class:`Choice`: at least one of several groups of primitives holds (``or``).

Values are 1..n; a set of values is a bit mask, bit ``d - 1`` for ``d``. Every
primitive says of a complete grid whether it holds (:meth:`Primitive.holds`) and, for
the reference oracle, narrows candidate masks (:meth:`Primitive.narrow`): that is the
oracle's whole knowledge of the rules beyond the units. The engines' own encodings of
each primitive are in :mod:`cpsudoku.encode` and :mod:`cpsudoku.engines`; the
verifier does not read primitives at all (it checks each rule as the rule states
it), so a rule compiled wrongly cannot pass unseen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, update_wrapper, wraps
from typing import Generic, TypeVar

from cpsudoku.model.errors import RulesError

#: A table's allowed tuples, one value per cell each.
TupleList = tuple[tuple[int, ...], ...]
R = TypeVar("R")

#: The most states an automaton may have (a rule that needs more is refused by name).
MAX_STATES = 200_000

#: The most tuples of a relation's table over cells it joins pairwise
#: (:meth:`Relation.clique_table`): a nabner line of four cells has 360.
MOST_CLIQUE_TUPLES = 5_000


def bit(d: int) -> int:
    """The mask of value ``d``."""
    return 1 << (d - 1)


def full(n: int) -> int:
    """The mask of every value 1..n."""
    return (1 << n) - 1


def values_of(mask: int) -> list[int]:
    """The values of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return out


def renamed(mask: int, perm: Sequence[int]) -> int:
    """The mask of the values of ``mask`` renamed by ``perm`` (``v`` to ``perm[v]``)."""
    out = 0
    while mask:
        low = mask & -mask
        mask ^= low
        out |= 1 << (perm[low.bit_length()] - 1)
    return out


def _current(values: Sequence[int], cand: Sequence[int], i: int) -> int:
    """Cell ``i``'s mask: its value's bit when filled, else its candidates."""
    v = values[i]
    return 1 << (v - 1) if v else cand[i]


def _set(values: Sequence[int], cand: list[int], i: int, mask: int) -> int:
    """Narrow cell ``i`` to ``mask``: -1 when nothing is left, 1 when it changed."""
    if values[i]:
        return 0 if mask >> (values[i] - 1) & 1 else -1
    if cand[i] & ~mask:
        cand[i] &= mask
        return 1 if cand[i] else -1
    return 0


class Primitive:
    """Base of the primitives: frozen values over :attr:`cells`.

    Subclasses implement :meth:`holds` (a complete grid) and :meth:`narrow` (the
    oracle's propagation). :meth:`possible` (a partial grid can still keep it) is
    :meth:`narrow` on a copy by default.
    """

    cells: tuple[int, ...]

    def holds(self, values: Sequence[int]) -> bool:
        """True when the complete grid ``values`` (row-major) keeps the primitive."""
        raise NotImplementedError

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Drop candidates the primitive forbids, in place.

        ``values[i]`` is cell ``i``'s value (0 when open), ``cand[i]`` an open cell's
        candidate mask. Returns -1 on a contradiction, 1 when a candidate went, else
        0. One pass: the oracle repeats the primitives to a fixpoint.
        """
        raise NotImplementedError

    def possible(self, values: Sequence[int], n: int) -> bool:
        """False when the partial grid ``values`` (0 = open) can no longer keep it."""
        cand = [full(n)] * len(values)
        return self.narrow(values, cand, n) >= 0

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """True when renaming every value ``v`` to ``perm[v]`` keeps exactly its grids.

        ``perm`` is a permutation of 1..n (``perm[0]`` is 0). A sound answer, not
        always a complete one: False means "not shown", which only costs a shortcut
        (:mod:`cpsudoku.model.symmetry`). By default, False.
        """
        return False


# ---------------------------------------------------------------------------- relation


@lru_cache(maxsize=4096)
def relation_table(n: int, ok: Callable[[int, int], bool]) -> tuple[int, ...]:
    """The table of a relation: entry ``a`` is the mask of ``b`` with ``ok(a, b)``.

    Entry 0 is 0. ``ok`` must be hashable and stable (a module-level function or a
    :func:`functools.partial` of one): tables are worked out once per side.
    """
    return (0, *(sum(bit(b) for b in range(1, n + 1) if ok(a, b)) for a in range(1, n + 1)))


def table_of(n: int, ok: Callable[[int, int], bool]) -> tuple[int, ...]:
    """:func:`relation_table` for any ``ok``, cached only when ``ok`` is hashable."""
    try:
        return relation_table(n, ok)
    except TypeError:
        return relation_table.__wrapped__(n, ok)


@lru_cache(maxsize=4096)
def _reverse(allowed: tuple[int, ...]) -> tuple[int, ...]:
    """A relation table read the other way round (see :attr:`Relation.back`)."""
    n = len(allowed) - 1
    return (
        0,
        *(
            sum(bit(a) for a in range(1, n + 1) if allowed[a] >> (b - 1) & 1)
            for b in range(1, n + 1)
        ),
    )


@lru_cache(maxsize=64)
def differ_table(n: int) -> tuple[int, ...]:
    """The table of "the two values differ" (and nothing else) on side ``n``."""
    return (0, *(full(n) & ~bit(a) for a in range(1, n + 1)))


@dataclass(frozen=True, slots=True)
class Relation(Primitive):
    """Pairs of cells whose values must be an allowed pair.

    ``allowed[a]`` is the mask of the values the second cell of a pair may hold
    while the first holds ``a`` (``allowed[0]`` is 0). One primitive holds every pair
    of one table (all the knight-move pairs of anti-knight, say).
    """

    pairs: tuple[tuple[int, int], ...]
    allowed: tuple[int, ...]
    cells: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: The reverse table: entry ``b`` is the mask of the ``a`` allowing ``b``.
    back: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen = dict.fromkeys(c for pair in self.pairs for c in pair)
        object.__setattr__(self, "cells", tuple(seen))
        object.__setattr__(self, "back", _reverse(self.allowed))

    @classmethod
    def of(
        cls, pairs: Iterable[tuple[int, int]], n: int, ok: Callable[[int, int], bool]
    ) -> Relation:
        """The relation ``ok(a, b)`` (first cell ``a``, second ``b``) on ``pairs``."""
        return cls(tuple(pairs), table_of(n, ok))

    @property
    def n(self) -> int:
        """The grid's side (the table has an entry per value)."""
        return len(self.allowed) - 1

    @property
    def differ(self) -> bool:
        """True when the pairs only have to differ (each is then a unit of two cells)."""
        return self.allowed == differ_table(self.n)

    @property
    def symmetric(self) -> bool:
        """True when the table reads the same both ways."""
        return self.allowed == self.back

    def forbidden(self) -> list[tuple[int, int]]:
        """Every value pair ``(a, b)`` a pair's two cells may not hold."""
        n = self.n
        return [
            (a, b)
            for a in range(1, n + 1)
            for b in range(1, n + 1)
            if not self.allowed[a] >> (b - 1) & 1
        ]

    def clique_table(self, most: int = MOST_CLIQUE_TUPLES) -> Table | None:
        """This relation as the table of its cells, where it joins every two of them.

        A nabner line of four cells is six pairs of "differ by two or more": arc
        consistency on each pair cannot see that {4, 5, 6} leaves no room for three of
        its cells, the table of the whole line (360 tuples) does. None when some two
        cells are not a pair, when the table is plain "differ" (a unit, which the
        units already read), or when it would list more than ``most`` tuples.
        """
        cells, allowed = self.cells, self.allowed
        if len(cells) < 3 or self.differ or not self.symmetric:
            return None
        pairs = {frozenset(pair) for pair in self.pairs}
        if len(pairs) != len(cells) * (len(cells) - 1) // 2 or any(len(p) != 2 for p in pairs):
            return None
        tuples: list[tuple[int, ...]] = []

        def extend(prefix: tuple[int, ...], fits: int) -> bool:
            if len(prefix) == len(cells):
                tuples.append(prefix)
                return len(tuples) <= most
            return all(extend((*prefix, v), fits & allowed[v]) for v in values_of(fits))

        if not extend((), full(self.n)):
            return None
        return Table(cells, tuple(tuples))

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """Each allowed pair renamed is allowed: ``allowed[perm[a]]`` is ``allowed[a]`` renamed."""
        allowed = self.allowed
        return all(allowed[perm[a]] == renamed(allowed[a], perm) for a in range(1, len(allowed)))

    def holds(self, values: Sequence[int]) -> bool:
        """Every pair holds an allowed pair of values."""
        allowed = self.allowed
        return all(allowed[values[i]] >> (values[j] - 1) & 1 for i, j in self.pairs)

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Arc consistency, one pass: a value stays while its partner can answer it."""
        first, second = self.allowed, self.back
        changed = 0
        for i, j in self.pairs:
            mi, mj = _current(values, cand, i), _current(values, cand, j)
            for cell, mine, theirs, table in ((i, mi, mj, first), (j, mj, mi, second)):
                keep, m = 0, mine
                while m:
                    low = m & -m
                    m ^= low
                    if table[low.bit_length()] & theirs:
                        keep |= low
                if keep != mine:
                    step = _set(values, cand, cell, keep)
                    if step < 0:
                        return -1
                    changed |= step
                    if cell == i:
                        mi = keep
        return changed


# ------------------------------------------------------------------------ cell values


@dataclass(frozen=True, slots=True)
class Allowed(Primitive):
    """The values each listed cell may hold: ``masks[k]`` for ``cells[k]``."""

    cells: tuple[int, ...]
    masks: tuple[int, ...]

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """Each cell's values, renamed, are its values."""
        return all(renamed(m, perm) == m for m in self.masks)

    def holds(self, values: Sequence[int]) -> bool:
        """Each listed cell holds one of its values."""
        return all(m >> (values[i] - 1) & 1 for i, m in zip(self.cells, self.masks, strict=True))

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each listed cell keeps only its values."""
        changed = 0
        for i, m in zip(self.cells, self.masks, strict=True):
            step = _set(values, cand, i, m)
            if step < 0:
                return -1
            changed |= step
        return changed


# --------------------------------------------------------------------------- distinct


@dataclass(frozen=True, slots=True)
class Distinct(Primitive):
    """No value twice among the cells (any number of them, up to n)."""

    cells: tuple[int, ...]

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """Values that differ still differ when renamed."""
        return True

    def holds(self, values: Sequence[int]) -> bool:
        """The cells' values all differ."""
        digits = [values[i] for i in self.cells]
        return len(set(digits)) == len(digits)

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Placed values leave the other cells; a value placed twice is a contradiction."""
        placed = 0
        for i in self.cells:
            v = values[i]
            if v:
                if placed >> (v - 1) & 1:
                    return -1
                placed |= 1 << (v - 1)
        if not placed:
            return 0
        changed = 0
        for i in self.cells:
            if not values[i] and cand[i] & placed:
                cand[i] &= ~placed
                if not cand[i]:
                    return -1
                changed = 1
        return changed


# ------------------------------------------------------------------------- digit sets


@dataclass(frozen=True, slots=True)
class DigitSets(Primitive):
    """Different digits in the cells, forming one of ``sets`` (masks of len(cells) bits).

    A killer cage's sets are those adding up to its sum; a renban line's are the runs.
    """

    cells: tuple[int, ...]
    sets: tuple[int, ...]

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """The sets, renamed, are the sets."""
        return {renamed(m, perm) for m in self.sets} == set(self.sets)

    def holds(self, values: Sequence[int]) -> bool:
        """The cells hold different digits, and their set is one of the sets."""
        mask = 0
        for i in self.cells:
            mask |= 1 << (values[i] - 1)
        return mask.bit_count() == len(self.cells) and mask in self.sets

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Open cells keep the digits of the sets that can still be completed.

        A set stays when it holds the placed digits, each of its missing digits is a
        candidate of some open cell, and each open cell has a candidate among them.
        A digit every such set needs that only one open cell can take goes there.
        """
        have = 0
        open_cells = []
        for i in self.cells:
            v = values[i]
            if v:
                b = 1 << (v - 1)
                if have & b:
                    return -1
                have |= b
            else:
                open_cells.append(i)
        reach = 0
        for i in open_cells:
            reach |= cand[i]
        allowed, needed = 0, -1
        for mask in self.sets:
            missing = mask & ~have
            if mask & have != have or missing & ~reach:
                continue
            if any(not cand[i] & missing for i in open_cells):
                continue
            allowed |= mask
            needed &= missing
        if not allowed:
            return -1
        keep = allowed & ~have
        changed = 0
        for i in open_cells:
            if cand[i] & ~keep:
                cand[i] &= keep
                if not cand[i]:
                    return -1
                changed = 1
        if needed > 0:
            m = needed
            while m:
                b = m & -m
                m ^= b
                takers = [i for i in open_cells if cand[i] & b]
                if not takers:
                    return -1
                if len(takers) == 1 and cand[takers[0]] != b:
                    cand[takers[0]] = b
                    changed = 1
        return changed


# ------------------------------------------------------------------------------ table


@dataclass(frozen=True, slots=True)
class Table(Primitive):
    """The allowed tuples of a few cells (``tuples[k][j]`` is ``cells[j]``'s value)."""

    cells: tuple[int, ...]
    tuples: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, cells: Sequence[int], n: int, ok: Callable[..., bool]) -> Table:
        """The tuples of values 1..n of ``len(cells)`` cells for which ``ok(*values)``."""
        return cls(tuple(cells), _tuples(len(cells), n, ok))

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """The tuples, renamed, are the tuples."""
        return {tuple(perm[v] for v in t) for t in self.tuples} == set(self.tuples)

    def holds(self, values: Sequence[int]) -> bool:
        """The cells' values are one of the tuples."""
        return tuple(values[i] for i in self.cells) in self.tuples

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Generalised arc consistency: each cell keeps the values of some fitting tuple.

        The tuples that still fit are one bit set (bit ``k`` for tuple ``k``): per cell,
        the union of its candidates' supports (:func:`_supports`), and across the
        cells. A value stays where its support meets it. A few dozen operations on
        integers of one bit a tuple, where walking the tuples cost one test per tuple
        and cell (the oracle on a 4-cell nabner line's 360 tuples: 4 times faster).
        """
        if not self.tuples:
            return -1
        if not self.cells:
            return 0
        supports = _supports(self.tuples)
        masks = [_current(values, cand, i) for i in self.cells]
        listed = (1 << (len(supports[0]) - 1)) - 1  # the values some tuple holds
        fit = -1
        for mask, of in zip(masks, supports, strict=True):
            union = 0
            mask &= listed
            while mask:
                low = mask & -mask
                mask ^= low
                union |= of[low.bit_length()]
            fit &= union
        changed = 0
        for i, mask, of in zip(self.cells, masks, supports, strict=True):
            keep, m = 0, mask & listed
            while m:
                low = m & -m
                m ^= low
                if of[low.bit_length()] & fit:
                    keep |= low
            if keep != mask:
                step = _set(values, cand, i, keep)
                if step < 0:
                    return -1
                changed |= step
        return changed

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Some tuple agrees with every filled cell (what :meth:`narrow` finds, looked up).

        The certificate checker and the oracle ask this for each partial assignment
        they try (tens of thousands on a few between lines), so it looks the filled
        cells' values up in the table's projections (:func:`_projections`) instead of
        walking every tuple.
        """
        filled = 0
        key = []
        for j, i in enumerate(self.cells):
            v = values[i]
            if v:
                filled |= 1 << j
                key.append(v)
        if not filled:
            return bool(self.tuples)
        projections = _projections(self.tuples)
        if projections is None:
            return any(
                all(not values[i] or values[i] == v for i, v in zip(self.cells, t, strict=True))
                for t in self.tuples
            )
        return (filled, *key) in projections


#: The most (tuple, subset of its positions) pairs :func:`_projections` lists for a table.
MAX_PROJECTIONS = 100_000


class per_tuples(Generic[R]):  # noqa: N801 (a decorator, named as lru_cache is)
    """A function of a tuple list, remembered by the list's identity, the last 256 lists.

    The tables of one rule share one tuple list (:func:`_tuples` is cached), and
    hashing a few hundred tuples at every call would cost what the lookup saves; each
    entry keeps its list, so the identity stays its own.
    """

    def __init__(self, work: Callable[[TupleList], R]) -> None:
        self.work = work
        self.done: dict[int, tuple[TupleList, R]] = {}
        update_wrapper(self, work)

    def __call__(self, tuples: TupleList) -> R:
        """``work(tuples)``, from the last call on the same list where there was one."""
        entry = self.done.get(id(tuples))
        if entry is not None and entry[0] is tuples:
            return entry[1]
        out = self.work(tuples)
        if len(self.done) >= 256:
            self.done.clear()
        self.done[id(tuples)] = (tuples, out)
        return out

    def cache_clear(self) -> None:
        """Forget every list (as ``functools.lru_cache``'s method of that name)."""
        self.done.clear()


@per_tuples
def _projections(tuples: TupleList) -> frozenset[tuple[int, ...]] | None:
    """Every ``(positions, *values)`` some tuple has on a nonempty subset of positions.

    ``positions`` is a bit mask (bit ``j`` for position ``j``), the values those
    positions', in order. None when the list would pass :data:`MAX_PROJECTIONS`.
    """
    width = len(tuples[0]) if tuples else 0
    if len(tuples) << width > MAX_PROJECTIONS:
        return None
    return frozenset(
        (mask, *(v for j, v in enumerate(t) if mask >> j & 1))
        for t in tuples
        for mask in range(1, 1 << width)
    )


@per_tuples
def _supports(tuples: TupleList) -> tuple[tuple[int, ...], ...]:
    """Per position of ``tuples``, per value ``v``: the bit set of the tuples with ``v`` there.

    Entry 0 of each position, and any value no tuple has there, is 0.
    """
    width = len(tuples[0]) if tuples else 0
    top = max((v for t in tuples for v in t), default=0)
    out = [[0] * (top + 1) for _ in range(width)]
    for k, t in enumerate(tuples):
        for j, v in enumerate(t):
            out[j][v] |= 1 << k
    return tuple(map(tuple, out))


@lru_cache(maxsize=1024)
def _tuple_cache(k: int, n: int, ok: Callable[..., bool]) -> tuple[tuple[int, ...], ...]:
    from itertools import product

    return tuple(t for t in product(range(1, n + 1), repeat=k) if ok(*t))


def _tuples(k: int, n: int, ok: Callable[..., bool]) -> tuple[tuple[int, ...], ...]:
    if n**k > 1_000_000:
        raise RulesError(f"a table over {k} cells of {n} values is too large to list")
    try:
        return _tuple_cache(k, n, ok)
    except TypeError:  # an unhashable condition: worked out each time
        return _tuple_cache.__wrapped__(k, n, ok)


# -------------------------------------------------------------------------------- sum


@dataclass(frozen=True, slots=True)
class Sum(Primitive):
    """A weighted sum of cells, digits may repeat, equal to one of ``targets``.

    ``terms`` are ``(cell, weight)`` pairs, each cell once. A little killer weighs its
    diagonal 1; an arrow its shaft 1 and its circle's cells minus their place values
    (a pill reads as a number), target 0; two groups of equal sum weigh +1 and -1.
    """

    terms: tuple[tuple[int, int], ...]
    targets: tuple[int, ...]
    cells: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cells = tuple(i for i, _ in self.terms)
        if len(set(cells)) != len(cells):
            raise RulesError("a sum lists a cell twice")
        object.__setattr__(self, "cells", cells)

    @property
    def target(self) -> int:
        """The one target (for sums that have one)."""
        if len(self.targets) != 1:
            raise ValueError("this sum has several targets")
        return self.targets[0]

    def holds(self, values: Sequence[int]) -> bool:
        """The weighted sum is one of the targets."""
        return sum(w * values[i] for i, w in self.terms) in self.targets

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Exact support: a value stays where the other cells can still make a target.

        The partial sums reachable over the first ``k`` terms are one integer's bits
        (less the least such sum, so that no bit is negative); a walk back from the
        targets keeps, at each term, the values that link a reachable sum before it to
        one that still leads to a target. Exact for the sum alone (digits may repeat),
        where bounds saw only each cell's least and greatest value: a cell of {1, 3, 5}
        beside a target it must reach evenly loses what bounds kept.
        """
        terms = self.terms
        layers = [1]  # layers[k]: the partial sums over the first k terms
        masks = []  # per term: its cell's values
        leasts = []  # per term: its least part (weight times a value)
        low = 0
        reach = 1
        for i, w in terms:
            v = values[i]
            mask = 1 << (v - 1) if v else cand[i]
            if not mask:
                return -1
            least = w * (mask & -mask).bit_length() if w > 0 else w * mask.bit_length()
            low += least
            after, m = 0, mask
            while m:
                b = m & -m
                m ^= b
                after |= reach << (w * b.bit_length() - least)
            reach = after
            layers.append(reach)
            masks.append(mask)
            leasts.append(least)
        back = 0  # the sums (less ``low``) that are targets
        for t in self.targets:
            if t >= low:
                back |= 1 << (t - low)
        if not reach & back:
            return -1
        changed = 0
        for k in range(len(terms) - 1, -1, -1):
            i, w = terms[k]
            mask, least, before = masks[k], leasts[k], layers[k]
            keep = ahead = 0
            m = mask
            while m:
                b = m & -m
                m ^= b
                rest = back >> (w * b.bit_length() - least)
                if before & rest:
                    keep |= b
                    ahead |= rest
            if keep != mask:
                cand[i] = keep  # an open cell (a filled one keeps its value); never empty
                changed = 1
            back = ahead
        return changed


@dataclass(frozen=True, slots=True)
class GroupedSum(Sum):
    """A :class:`Sum` whose terms fall in groups of different digits (the oracle's view).

    ``groups`` lists ``(weight, cells)``: terms of one weight on cells that see each
    other, so they hold different digits, which the sum alone does not know. A group
    of ``j`` cells adds at least its weight times its ``j`` least candidates' union
    (the ``j`` greatest at most): two cells of a box on one side of an equal-sum line
    add at least 3, where the sum alone allows 2. The groups come from the rules'
    units, so rules never compile to this: the oracle reads its sums this way, as the
    compiled engine bounds its sums' groups (docs/design.md).
    """

    groups: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @classmethod
    def of(cls, rule: Sum, peers: Sequence[Collection[int]]) -> Sum:
        """``rule`` with its groups (each term joins the first group it fits, in order).

        ``rule`` itself when no two terms of one weight see each other.
        """
        groups: list[tuple[int, list[int]]] = []
        for i, w in rule.terms:
            for weight, cells in groups:
                if weight == w and all(j in peers[i] for j in cells):
                    cells.append(i)
                    break
            else:
                groups.append((w, [i]))
        if all(len(cells) < 2 for _, cells in groups):
            return rule
        return cls(rule.terms, rule.targets, tuple((w, tuple(cells)) for w, cells in groups))

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """The groups' bounds, then the sum's exact support (:meth:`Sum.narrow`)."""
        changed = self._bounds(values, cand)
        if changed < 0:
            return -1
        step = Sum.narrow(self, values, cand, n)
        return -1 if step < 0 else changed | step

    def _bounds(self, values: Sequence[int], cand: list[int]) -> int:
        """Bounds by groups: each group's least and greatest total.

        A value stays in a cell while, with the rest of its group on their other
        candidates, some target stays within reach.
        """
        spans = []
        low = high = 0
        for w, cells in self.groups:
            union = twice = 0
            for i in cells:
                m = _current(values, cand, i)
                twice |= union & m
                union |= m
            j = len(cells)
            count, a, _, b, _, _, _ = _sides(union, j)
            if count < j:
                return -1  # fewer digits than cells
            lo, hi = (w * a, w * b) if w > 0 else (w * b, w * a)
            spans.append((union, twice, lo, hi))
            low += lo
            high += hi
        targets = [t for t in self.targets if low <= t <= high]
        if not targets:
            return -1
        t_low, t_high = min(targets), max(targets)
        changed = 0
        slack = min(t_high - low, high - t_low)
        for (w, cells), (union, twice, lo, hi) in zip(self.groups, spans, strict=True):
            j = len(cells)
            if j < 2:
                continue  # a lone cell: the exact walk sees all of it
            loose = hi - lo <= slack
            for i in cells:
                mask = cand[i]
                if values[i] or not mask & (mask - 1):
                    continue
                others = twice | (union & ~mask)  # what the group's other cells may hold
                if loose and others.bit_count() >= j:
                    # Whatever this cell holds, the others have values enough, and the
                    # group's least stays at most ``hi``, its greatest at least ``lo``:
                    # within the slack, so every value stays.
                    continue
                # The rest of the group, j - 1 cells, on the others' values less this
                # cell's: their least and greatest totals (:func:`_sides`).
                count, least, least_set, most, most_set, least_all, most_all = _sides(others, j - 1)
                if count < j - 1:
                    return -1  # the rest of the group lacks values, whatever this holds
                room_low, room_high = t_high - (low - lo), t_low - (high - hi)
                keep, m = 0, mask
                while m:
                    low_bit = m & -m
                    m ^= low_bit
                    a, b = least, most
                    if low_bit & (least_set | most_set):
                        if count < j:
                            continue  # the rest would lack a value
                        if low_bit & least_set:
                            a = least_all - low_bit.bit_length()
                        if low_bit & most_set:
                            b = most_all - low_bit.bit_length()
                    d = low_bit.bit_length()
                    x, y = (w * (d + a), w * (d + b)) if w > 0 else (w * (d + b), w * (d + a))
                    if x <= room_low and y >= room_high:
                        keep |= low_bit
                if keep != mask:
                    if not keep:
                        return -1
                    cand[i] = keep
                    changed = 1
        return changed


@lru_cache(maxsize=1 << 16)
def _sides(mask: int, j: int) -> tuple[int, int, int, int, int, int, int]:
    """What :meth:`GroupedSum._bounds` asks of the values ``mask`` for ``j`` cells.

    ``(count, least, least_set, most, most_set, least_all, most_all)``: how many
    values; the sum of the ``j`` least and their mask; of the ``j`` greatest and their
    mask; the sums of the ``j + 1`` least and greatest (0 where there are fewer
    values), so that leaving one value of a set out reads as one subtraction.
    """
    vs = values_of(mask)
    k = len(vs)
    if k < j:
        return k, 0, mask, 0, mask, 0, 0  # too few values (the caller stops there)
    low, high = vs[:j], vs[k - j :]
    return (
        k,
        sum(low),
        sum(1 << (v - 1) for v in low),
        sum(high),
        sum(1 << (v - 1) for v in high),
        sum(vs[: j + 1]) if k > j else 0,
        sum(vs[k - j - 1 :]) if k > j else 0,
    )


# -------------------------------------------------------------------------- automaton


@lru_cache(maxsize=4096)
def _automaton_keeps(
    trans: tuple[tuple[int, ...], ...],
    accepting: frozenset[int],
    length: int,
    perm: tuple[int, ...],
    most: int,
) -> bool:
    """:meth:`Automaton.maps_to_itself`, once per automaton, line length and renaming."""
    n = len(trans[0]) if trans else 0
    layer = {(0, 0)}
    for _ in range(length):
        after = set()
        for p, q in layer:
            for d in range(1, n + 1):
                a = trans[p][d - 1] if p >= 0 else -1
                b = trans[q][perm[d] - 1] if q >= 0 else -1
                if a >= 0 or b >= 0:  # (both rejecting: they agree, whatever follows)
                    after.add((a, b))
        if len(after) > most:
            return False
        layer = after
    return all((p in accepting) == (q in accepting) for p, q in layer)


@dataclass(frozen=True, slots=True)
class Automaton(Primitive):
    """A deterministic automaton reading the cells' values in order, from state 0.

    ``transitions[q][d - 1]`` is the state after reading ``d`` in state ``q`` (-1:
    no move, the line is rejected); the line is kept when the automaton ends in an
    ``accepting`` state. Build one with :func:`automaton`.
    """

    cells: tuple[int, ...]
    transitions: tuple[tuple[int, ...], ...]
    accepting: frozenset[int]

    def maps_to_itself(self, perm: Sequence[int], most: int = 100_000) -> bool:
        """It accepts a line exactly when it accepts the line renamed.

        Both readings walk side by side over the line's length: pairs of states, one
        reading ``d`` and the other ``perm[d]``, a layer per cell (-1, a rejected
        line, stays -1); at the end the two must agree on acceptance in every pair.
        False (not shown) past ``most`` pairs in a layer.
        """
        return _automaton_keeps(
            self.transitions, self.accepting, len(self.cells), tuple(perm), most
        )

    def holds(self, values: Sequence[int]) -> bool:
        """The automaton accepts the cells' values."""
        q = 0
        for i in self.cells:
            q = self.transitions[q][values[i] - 1]
            if q < 0:
                return False
        return q in self.accepting

    def layers(self, masks: Sequence[int]) -> list[set[int]] | None:
        """The states each layer can be in on a path to acceptance, None when none.

        Layer ``k`` holds the states after ``k`` cells that are reachable from the
        start with the cells' masks and from which an accepting state stays
        reachable. Forward, then backward: the exact support of the language.
        """
        trans = self.transitions
        forward: list[set[int]] = [{0}]
        for mask in masks:
            vals = values_of(mask)
            nxt = set()
            for q in forward[-1]:
                row = trans[q]
                for d in vals:
                    t = row[d - 1]
                    if t >= 0:
                        nxt.add(t)
            if not nxt:
                return None
            forward.append(nxt)
        alive = forward[-1] & self.accepting
        if not alive:
            return None
        out: list[set[int]] = [set() for _ in forward]
        out[-1] = alive
        for k in range(len(masks) - 1, -1, -1):
            vals = values_of(masks[k])
            nxt = out[k + 1]
            keep = set()
            for q in forward[k]:
                row = trans[q]
                if any(row[d - 1] in nxt for d in vals):
                    keep.add(q)
            out[k] = keep
        return out

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each cell keeps the values on some accepted path (domain consistency)."""
        masks = [_current(values, cand, i) for i in self.cells]
        layers = self.layers(masks)
        if layers is None:
            return -1
        trans = self.transitions
        changed = 0
        for k, i in enumerate(self.cells):
            keep = 0
            nxt = layers[k + 1]
            for d in values_of(masks[k]):
                if any(trans[q][d - 1] in nxt for q in layers[k]):
                    keep |= 1 << (d - 1)
            if keep != masks[k]:
                step = _set(values, cand, i, keep)
                if step < 0:
                    return -1
                changed |= step
        return changed


def automaton(
    cells: Sequence[int],
    n: int,
    start: Hashable,
    step: Callable[[Hashable, int], Hashable | None],
    accept: Callable[[Hashable], bool],
) -> Automaton:
    """The automaton of a state machine: states found by search from ``start``.

    ``step(state, d)`` is the next state after value ``d`` (None: rejected),
    ``accept(state)`` whether a line may end there. States are any hashable values;
    only those reachable within ``len(cells)`` steps are kept, numbered from 0 (the
    start). Raises RulesError beyond :data:`MAX_STATES`.
    """
    index: dict[Hashable, int] = {start: 0}
    order: list[Hashable] = [start]
    rows: list[list[int]] = []
    depth = {start: 0}
    k = 0
    while k < len(order):
        state = order[k]
        row = []
        for d in range(1, n + 1):
            if depth[state] >= len(cells):
                row.append(-1)
                continue
            nxt = step(state, d)
            if nxt is None:
                row.append(-1)
                continue
            if nxt not in index:
                if len(order) >= MAX_STATES:
                    raise RulesError(f"the rule needs more than {MAX_STATES:,} automaton states")
                index[nxt] = len(order)
                order.append(nxt)
                depth[nxt] = depth[state] + 1
            row.append(index[nxt])
        rows.append(row)
        k += 1
    accepting = frozenset(index[s] for s in order if accept(s))
    return Automaton(tuple(cells), tuple(tuple(r) for r in rows), accepting)


def per_length(
    build: Callable[..., Automaton],
) -> Callable[..., Automaton]:
    """An automaton builder ``build(cells, n, *args)`` cached by the line's length.

    For builders whose states do not depend on which cells the line holds (an X-sum
    clue, a skyscraper, a numbered room, a lunchbox): the machine is built once per
    length, ``n`` and arguments, and each line gets it on its own cells. Cached by the
    cells instead, every clue of every puzzle built its machine anew: a third of
    CP-SAT's time on the X-sum set.
    """

    @lru_cache(maxsize=1024)
    def machine(length: int, n: int, *args: Hashable) -> Automaton:
        return build(tuple(range(length)), n, *args)

    @wraps(build)
    def on_cells(cells: Sequence[int], n: int, *args: Hashable) -> Automaton:
        made = machine(len(cells), n, *args)
        return Automaton(tuple(cells), made.transitions, made.accepting)

    return on_cells


# ------------------------------------------------------------------------------ count


@dataclass(frozen=True, slots=True)
class Count(Primitive):
    """How many of the cells hold a value of ``values`` (a mask) is one of ``counts``."""

    cells: tuple[int, ...]
    values: int
    counts: frozenset[int]

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """The counted values, renamed, are the counted values."""
        return renamed(self.values, perm) == self.values

    def holds(self, values: Sequence[int]) -> bool:
        """The number of cells holding one of the values is an allowed count."""
        k = sum(1 for i in self.cells if self.values >> (values[i] - 1) & 1)
        return k in self.counts

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Cells that must, cells that may: a count pinned at either end decides the rest."""
        inside = self.values
        must = 0
        maybe = []
        for i in self.cells:
            m = _current(values, cand, i)
            if not m & ~inside:
                must += 1
            elif m & inside:
                maybe.append(i)
        fits = [c for c in self.counts if must <= c <= must + len(maybe)]
        if not fits:
            return -1
        if not maybe:
            return 0
        changed = 0
        if max(fits) == must:  # no more: the maybes hold other values
            for i in maybe:
                step = _set(values, cand, i, ~inside)
                if step < 0:
                    return -1
                changed |= step
        elif min(fits) == must + len(maybe):  # every maybe is needed
            for i in maybe:
                step = _set(values, cand, i, inside)
                if step < 0:
                    return -1
                changed |= step
        return changed


# ----------------------------------------------------------------------------- choice


@dataclass(frozen=True, slots=True)
class Choice(Primitive):
    """At least one branch holds, each branch a group of primitives (a rule's ``or``)."""

    branches: tuple[tuple[Primitive, ...], ...]
    cells: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen = dict.fromkeys(c for b in self.branches for p in b for c in p.cells)
        object.__setattr__(self, "cells", tuple(seen))

    def maps_to_itself(self, perm: Sequence[int]) -> bool:
        """Every branch's primitives map to themselves (enough, not necessary)."""
        return all(p.maps_to_itself(perm) for branch in self.branches for p in branch)

    def holds(self, values: Sequence[int]) -> bool:
        """Some branch's primitives all hold."""
        return any(all(p.holds(values) for p in branch) for branch in self.branches)

    def narrow(self, values: Sequence[int], cand: list[int], n: int) -> int:
        """Each cell keeps what some live branch leaves it (constructive disjunction)."""
        union: dict[int, int] = dict.fromkeys(self.cells, 0)
        alive = 0
        for branch in self.branches:
            trial = list(cand)
            if not _fixpoint(branch, values, trial, n):
                continue
            alive += 1
            for i in self.cells:
                union[i] |= _current(values, trial, i)
        if not alive:
            return -1
        changed = 0
        for i, keep in union.items():
            step = _set(values, cand, i, keep)
            if step < 0:
                return -1
            changed |= step
        return changed


def _fixpoint(prims: Sequence[Primitive], values: Sequence[int], cand: list[int], n: int) -> bool:
    """Narrow with ``prims`` until nothing changes; False on a contradiction."""
    while True:
        changed = 0
        for p in prims:
            step = p.narrow(values, cand, n)
            if step < 0:
                return False
            changed |= step
        if not changed:
            return True


#: Every primitive type, for engines that say which they take.
PRIMITIVES: tuple[type[Primitive], ...] = (
    Relation,
    Allowed,
    Distinct,
    DigitSets,
    Table,
    Sum,
    Automaton,
    Count,
    Choice,
)
