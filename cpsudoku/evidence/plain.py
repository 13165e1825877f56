"""The plain, textbook Sudoku CNF that certificates are checked against.

Written apart from :mod:`cpsudoku.encode.cnf` on purpose (no code shared with the fast
encoder): a bug there must not be repeated here. The rules, straight from their
statement, over the units of the puzzle's :class:`~cpsudoku.model.rules.Rules`:

- every cell holds at least one value, and at most one (pairwise);
- every unit holds each value at most once (pairwise), and, when it has n cells, at
  least once.

Variables: cell ``i`` (row-major, 0-based) holds value ``d`` is ``i * n + d``.

Constraints beyond the units (killer cages, anti-knight, ...) have no clause list
here: :func:`implied_by_constraints` checks a clause *semantically* instead, by
enumerating the values of the cells it speaks of and asking each constraint's own
partial-grid check (``Constraint.possible``, the backtracking oracle's, not the
encoder's) whether an assignment that falsifies the clause can still keep the rules.
Sums whose digits may repeat and sandwiches are never enumerated whole here (a chain
of 9 cells has up to 9**9 assignments): their clauses are checked under declared
meanings (:mod:`cpsudoku.evidence.meanings`).

A killer cage (or a renban, a cage of runs) is a rule on the *set* of its digits, so
its clauses are checked by digit sets, never by listing the cage's assignments (a
9-cell cage has 9! = 362,880 of them): the sets the cage takes are found by the
verifier's own check of the cage (:func:`cage_sets`), a clause over the cage's cells
is implied when no set can be placed in the cells, each cell on a value the clause
lets it falsify (a bipartite matching per set), and a cage's selector clauses, which
treat every cell of the cage alike, are shown extendable for one placement of each
set (:func:`extension_holds`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from math import comb

from cpsudoku.model.constraints import Cage, Constraint
from cpsudoku.model.primitives import Automaton, Count, Sum
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

Clause = tuple[int, ...]

#: The most value assignments :func:`implied_by_constraints` enumerates for one clause.
MAX_ASSIGNMENTS = 200_000


def plain_clauses(rules: Rules) -> Iterator[Clause]:
    """The textbook clauses of ``rules``' cells and units (no constraints, no givens)."""
    n = rules.n
    values = range(1, n + 1)
    for i in range(rules.cells):
        cell = [i * n + d for d in values]
        yield tuple(cell)
        yield from _at_most_one(cell)
    for unit in rules.unit_cells:
        for d in values:
            lits = [i * n + d for i in unit]
            if len(unit) == n:
                yield tuple(lits)
            yield from _at_most_one(lits)


def _at_most_one(lits: Sequence[int]) -> Iterator[Clause]:
    """Every pair of ``lits`` not both true."""
    for a in range(len(lits)):
        for b in range(a + 1, len(lits)):
            yield (-lits[a], -lits[b])


def reduced_by_givens(clauses: Iterable[Clause], puzzle: Puzzle) -> set[frozenset[int]]:
    """The clauses the givens imply at once, as literal sets (order does not matter).

    The givens' first round of unit propagation: each given is true, and so is the
    other literal of every binary clause holding its negation (its cell's other
    values, its value elsewhere in its units). The set holds each clause with no true
    literal, its false literals taken out; each given as a unit clause; and each
    literal made false, negated, as a unit clause. Every one follows from the clauses
    and the givens.
    """
    n = puzzle.n
    givens = {i * n + v for i, v in enumerate(puzzle.cells) if v}
    every = list(clauses)
    true = set(givens)
    for c in every:
        if len(c) == 2:
            a, b = c
            if -a in givens:
                true.add(b)
            elif -b in givens:
                true.add(a)
    out = {frozenset((g,)) for g in givens}
    out.update(frozenset((t,)) for t in true)
    for c in every:
        if true.isdisjoint(c):
            out.add(frozenset(x for x in c if -x not in true))
    return out


def implied_by_constraints(clause: Clause, rules: Rules) -> bool:
    """True when every grid that keeps ``rules`` satisfies ``clause`` (cell literals only).

    Searches for values of the clause's cells that falsify it (a negative literal fixes
    its cell's value, positive ones rule values out), together with every cell of each
    small constraint (up to :data:`SMALL` cells, a cage) that holds all of them, that
    can still keep the rules: no value twice in a unit, and each constraint's
    ``possible`` on the grid holding just those cells. The clause is implied when there
    are none. A cage holding the clause's cells is searched by its digit sets
    (:func:`cage_falsifiable`), and a clause of one or two cells is first searched
    over those cells alone (cheap, and enough for the pair rules' clauses). False
    (not shown) when a literal is no cell literal or the search passes
    :data:`MAX_ASSIGNMENTS` leaves.
    """
    n = rules.n
    fixed: dict[int, int] = {}
    banned: dict[int, set[int]] = {}
    for lit in clause:
        v = abs(lit)
        if not 1 <= v <= n * rules.cells:
            return False
        cell, d = divmod(v - 1, n)
        if lit < 0:
            if fixed.get(cell, d + 1) != d + 1:
                return True  # two values of one cell: no grid falsifies the clause
            fixed[cell] = d + 1
        else:
            banned.setdefault(cell, set()).add(d + 1)
    own = set(fixed) | set(banned)
    options = {}
    for cell in own:
        if cell in fixed:
            options[cell] = [fixed[cell]] if fixed[cell] not in banned.get(cell, ()) else []
        else:
            options[cell] = [d for d in range(1, n + 1) if d not in banned.get(cell, ())]
    masks = {cell: sum(1 << (d - 1) for d in values) for cell, values in options.items()}
    for c in rules.constraints:
        if isinstance(c, Cage) and own <= set(c.cells) and not cage_falsifiable(c, n, masks):
            return True
    searched = len(own) <= 2
    if searched and _search(sorted(own), options, rules, lambda grid: True) is False:
        return True
    for c in rules.constraints:
        small = enumerable(c, n) and not isinstance(c, Cage) and own <= set(c.cells)
        if small and not _falsifiable(c, rules, fixed, banned):
            return True
    if searched:
        return False
    found = _search(sorted(own), options, rules, lambda grid: True)
    return found is False


def cage_falsifiable(cage: Cage, n: int, masks: dict[int, int]) -> bool:
    """True when the cage's cells can hold one of its digit sets, each within its mask.

    ``masks`` gives some of the cage's cells the values (bit ``d-1`` for ``d``) they
    may take (a clause's falsifying values); the others may take any. A cage's cells
    hold different digits forming one of :func:`cage_sets`, in any order, so there is
    such an assignment exactly when, for some set, every cell can be matched to its
    own digit of the set.
    """
    full = (1 << n) - 1
    allowed = [masks.get(i, full) for i in cage.cells]
    sets = cage_sets(cage, n)
    if sets is None:
        return has_matching(allowed, full)
    return any(has_matching(allowed, s) for s in sets)


@lru_cache(maxsize=1024)
def cage_sets(cage: Cage, n: int) -> tuple[int, ...] | None:
    """The digit sets a cage's cells may hold, as bit masks; None when any will do.

    Found from the cage itself, not from the encoder: digits are tried in increasing
    order, the first cells taking them, each partial set pruned by the cage's
    ``possible`` and each whole one kept when the verifier's ``problem`` finds nothing
    wrong with it (a cage is a rule on its set of digits, so one order stands for
    every order). A cage that does not restrict its digits (no sum), or one with more
    than :data:`MAX_ASSIGNMENTS` sets, gives None: any different digits, a
    relaxation, so a clause may then fail to be shown, never be shown wrongly.
    """
    if not cage.restricts:
        return None
    cells = cage.cells
    grid = [0] * (n * n)
    out: list[int] = []

    def go(k: int, low: int, mask: int) -> bool:
        if k == len(cells):
            if cage.problem(grid, n) is None:
                out.append(mask)
            return len(out) <= MAX_ASSIGNMENTS
        for d in range(low, n - (len(cells) - k) + 2):
            grid[cells[k]] = d
            if cage.possible(grid, n) and not go(k + 1, d + 1, mask | 1 << (d - 1)):
                return False
        grid[cells[k]] = 0
        return True

    return tuple(out) if go(0, 1, 0) else None


def has_matching(allowed: Sequence[int], pool: int) -> bool:
    """True when each position can take a digit of ``pool`` of its own (bit masks).

    ``allowed[i]`` is position i's digits as a mask; ``pool`` holds at least as many
    digits as there are positions (exactly as many: every digit is used). Kuhn's
    augmenting paths; at most 35 positions.
    """
    masks = [a & pool for a in allowed]
    if any(not m for m in masks):
        return False
    if all(m == pool for m in masks):
        return pool.bit_count() >= len(masks)
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        m = masks[i]
        while m:
            bit = m & -m
            m ^= bit
            if bit in seen:
                continue
            seen.add(bit)
            if bit not in owner or place(owner[bit], seen):
                owner[bit] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(masks)))


def _falsifiable(
    constraint: Constraint, rules: Rules, fixed: dict[int, int], banned: dict[int, set[int]]
) -> bool:
    """True when some allowed assignment of ``constraint`` falsifies the clause.

    The clause is given by ``fixed`` (cells its negative literals fix) and ``banned``
    (values its positive literals rule out); also True when the assignments could not
    all be listed.
    """
    every, index = _indexed(constraint, rules)
    if () in every:
        return True
    position = {cell: p for p, cell in enumerate(constraint.cells)}
    left: set[int] | None = None
    for cell in set(fixed) | set(banned):
        by_value = index[position[cell]]
        if cell in fixed:
            values = [fixed[cell]] if fixed[cell] not in banned.get(cell, ()) else []
        else:
            values = [v for v in by_value if v not in banned[cell]]
        ids: set[int] = set().union(*(by_value.get(v, ()) for v in values))
        left = ids if left is None else left & ids
        if not left:
            return False
    return bool(left)


@lru_cache(maxsize=256)
def _indexed(
    constraint: Constraint, rules: Rules
) -> tuple[tuple[tuple[int, ...], ...], list[dict[int, frozenset[int]]]]:
    """:func:`allowed`, and for each cell position and value the assignments having it."""
    every = allowed(constraint, rules)
    index: list[dict[int, set[int]]] = [{} for _ in constraint.cells]
    for k, values in enumerate(every):
        for p, v in enumerate(values):
            index[p].setdefault(v, set()).add(k)
    frozen = [{v: frozenset(ids) for v, ids in by_value.items()} for by_value in index]
    return every, frozen


@lru_cache(maxsize=256)
def allowed(constraint: Constraint, rules: Rules) -> tuple[tuple[int, ...], ...]:
    """Every assignment of a small constraint's cells that keeps it and the units.

    Found by search over the constraint's cells alone, pruned by the constraint's own
    ``possible`` and by its cells that share a unit (pruning less than the whole
    rules could only keep more assignments: a clause may then fail to be shown
    implied, never be shown wrongly). At most :data:`MAX_ASSIGNMENTS`; past that the
    list ends with ``()``, a marker no clause check passes.
    """
    cells = constraint.cells
    n = rules.n
    units_of = rules.units_of
    share = {
        i: [j for j in cells if j != i and not set(units_of[i]).isdisjoint(units_of[j])]
        for i in cells
    }
    grid = [0] * rules.cells
    out: list[tuple[int, ...]] = []
    possible = constraint.possible

    def go(k: int) -> bool:
        if k == len(cells):
            out.append(tuple(grid[i] for i in cells))
            return len(out) < MAX_ASSIGNMENTS
        i = cells[k]
        for v in range(1, n + 1):
            if any(grid[j] == v for j in share[i]):
                continue
            grid[i] = v
            if possible(grid, n) and not go(k + 1):
                grid[i] = 0
                return False
        grid[i] = 0
        return True

    if not go(0):
        out.append(())
    return tuple(out)


#: The most cells of a constraint whose every cell :func:`implied_by_constraints` adds.
SMALL = 9


def enumerable(constraint: Constraint, n: int) -> bool:
    """True for a constraint whose assignments :func:`allowed` may list.

    A small one whose cells differ or are few (a cage), not one read along a line (a
    sum with repeats, an automaton, a count: checked under meanings instead).
    """
    return len(constraint.cells) <= SMALL and not any(
        isinstance(p, Sum | Automaton | Count) for p in constraint.compile(n)
    )


def _search(
    cells: Sequence[int],
    options: dict[int, list[int]],
    rules: Rules,
    leaf: Callable[[list[int]], bool],
) -> bool | None:
    """True when some assignment of ``cells`` keeps the rules and ``leaf`` accepts it.

    Cells are assigned in order from ``options``, each partial grid pruned by the
    rules. None when more than :data:`MAX_ASSIGNMENTS` leaves would be needed.
    """
    grid = [0] * rules.cells
    touching = _constraints_by_cell(rules)
    budget = [MAX_ASSIGNMENTS]

    def go(k: int) -> bool | None:
        if k == len(cells):
            budget[0] -= 1
            return None if budget[0] < 0 else leaf(grid)
        cell = cells[k]
        for v in options[cell]:
            grid[cell] = v
            if _keeps(grid, cell, rules, touching[cell]):
                found = go(k + 1)
                if found is not False:
                    grid[cell] = 0
                    return found
        grid[cell] = 0
        return False

    return go(0)


def _constraints_by_cell(rules: Rules) -> list[list[Constraint]]:
    """For each cell, the constraints that speak of it."""
    out: list[list[Constraint]] = [[] for _ in range(rules.cells)]
    for c in rules.constraints:
        for i in c.cells:
            out[i].append(c)
    return out


def _keeps(grid: Sequence[int], cell: int, rules: Rules, constraints: list[Constraint]) -> bool:
    """True when the partial ``grid``, just given ``cell``'s value, can still keep the rules."""
    v = grid[cell]
    unit_cells = rules.unit_cells
    for u in rules.units_of[cell]:
        if any(j != cell and grid[j] == v for j in unit_cells[u]):
            return False
    n = rules.n
    return all(c.possible(grid, n) for c in constraints)


def extension_holds(clauses: Sequence[Clause], rules: Rules) -> bool:
    """True when the clauses, which share auxiliary variables, never rule out a grid.

    ``clauses`` mention cell literals and auxiliary variables (above ``n**3``). They
    are shown harmless when every assignment of their cells' values that can keep the
    rules (searched cell by cell, pruned by the rules) leaves the clauses satisfiable
    by some values of the auxiliary variables. Adding such clauses to a formula keeps
    every one of its grids. When the cells are a cage's and the clauses treat all of
    its cells alike (:func:`_symmetric`: swapping two cells maps the clauses onto
    themselves), one placement of each of the cage's digit sets stands for every
    assignment of it. False (not shown) past :data:`MAX_ASSIGNMENTS` leaves, or at
    once when the cells lie in no :func:`enumerable` constraint and n to the power of
    their number passes it: auxiliary variables over a long chain with no declared
    meaning are refused fast, not after a search that would all but surely use up
    the budget (no encoder writes such clauses without meanings).
    """
    n = rules.n
    top = n * rules.cells
    cells = sorted({(abs(x) - 1) // n for c in clauses for x in c if abs(x) <= top})
    satisfiable = _AuxSatisfiable(clauses, n, top)
    for c in rules.constraints:
        if isinstance(c, Cage) and set(cells) <= set(c.cells) and _symmetric(clauses, c, n, top):
            sets = cage_sets(c, n)
            if sets is None:
                if comb(n, len(c.cells)) > MAX_ASSIGNMENTS:
                    continue
                sets = tuple(
                    sum(1 << (d - 1) for d in s)
                    for s in combinations(range(1, n + 1), len(c.cells))
                )
            grid = [0] * rules.cells
            for mask in sets:
                digits = [d for d in range(1, n + 1) if mask >> (d - 1) & 1]
                for cell, v in zip(c.cells, digits, strict=True):
                    grid[cell] = v
                if not satisfiable(grid):
                    return False
            return True
    for c in rules.constraints:
        if enumerable(c, n) and set(cells) <= set(c.cells):
            grid = [0] * rules.cells
            for values in allowed(c, rules):
                if not values:
                    return False  # the list was cut short
                for cell, v in zip(c.cells, values, strict=True):
                    grid[cell] = v
                if not satisfiable(grid):
                    return False
            return True
    if n ** len(cells) > MAX_ASSIGNMENTS:
        return False
    options = {cell: list(range(1, n + 1)) for cell in cells}
    found = _search(cells, options, rules, lambda grid: not satisfiable(grid))
    return found is False


def _symmetric(clauses: Sequence[Clause], cage: Cage, n: int, top: int) -> bool:
    """True when every permutation of the cage's cells maps ``clauses`` onto themselves.

    A cell literal of cell ``i`` moves to the same value of the cell ``i`` is sent to;
    auxiliary variables stay. Checked for the swaps of the first cell with each other
    one, which generate every permutation. Then an assignment of the cage and any
    reordering of it leave the clauses equally satisfiable.
    """
    every = {frozenset(c) for c in clauses}
    cells = cage.cells
    for other in cells[1:]:
        swap = {cells[0]: other, other: cells[0]}
        if any(frozenset(_moved(x, swap, n, top) for x in c) not in every for c in every):
            return False
    return True


def _moved(lit: int, swap: dict[int, int], n: int, top: int) -> int:
    """``lit`` with its cell sent where ``swap`` says (auxiliary variables stay)."""
    v = abs(lit)
    if v > top:
        return lit
    cell, d = divmod(v - 1, n)
    w = swap.get(cell, cell) * n + d + 1
    return w if lit > 0 else -w


class _AuxSatisfiable:
    """Whether ``clauses`` can be satisfied by auxiliary values, given the cells' values.

    Called once per assignment of a constraint's cells (thousands), so the clauses are
    read once: for each cell and value, the clauses that value satisfies (a bit per
    clause: the clauses holding that cell literal, and those holding the negation of
    the cell's other values), and each clause's auxiliary literals as two bit masks
    over the group's auxiliary variables (positive, negative). A grid leaves the
    clauses none of its cells' values satisfies; their auxiliary parts are tested by
    :func:`_dpll` once per distinct set of clauses left, the answer remembered.
    """

    __slots__ = ("_by_value", "_cells", "_every", "_rest", "_seen")

    def __init__(self, clauses: Sequence[Clause], n: int, top: int) -> None:
        self._by_value: dict[tuple[int, int], int] = {}
        self._rest: list[tuple[int, int]] = []
        index: dict[int, int] = {}
        for k, c in enumerate(clauses):
            pos = neg = 0
            for x in c:
                v = abs(x)
                if v > top:
                    b = 1 << index.setdefault(v, len(index))
                    if x > 0:
                        pos |= b
                    else:
                        neg |= b
                    continue
                cell, d = divmod(v - 1, n)
                values = [d + 1] if x > 0 else [e for e in range(1, n + 1) if e != d + 1]
                for e in values:
                    key = (cell, e)
                    self._by_value[key] = self._by_value.get(key, 0) | 1 << k
            self._rest.append((pos, neg))
        self._every = (1 << len(clauses)) - 1
        self._seen: dict[int, bool] = {}
        self._cells = sorted({cell for cell, _ in self._by_value})

    def __call__(self, grid: Sequence[int]) -> bool:
        """True when the clauses are satisfiable with the cells as in ``grid``."""
        by_value = self._by_value
        satisfied = 0
        for cell in self._cells:
            satisfied |= by_value.get((cell, grid[cell]), 0)
        left = self._every & ~satisfied
        known = self._seen.get(left)
        if known is None:
            rest = [self._rest[k] for k in range(left.bit_length()) if left >> k & 1]
            known = self._seen[left] = _dpll(rest, 0, 0)
        return known


def _dpll(clauses: list[tuple[int, int]], true: int, false: int) -> bool:
    """A tiny satisfiability test for a handful of auxiliary variables.

    Each clause is two bit masks over the variables, its positive and its negative
    literals; ``true`` and ``false`` the variables set so far. Davis-Putnam-Logemann-
    Loveland: unit clauses are made true first (each fixes its literal, shortening
    the others), then a variable of the first open clause is tried both ways. Without
    the units first, the selectors of a sum or a choice (a hundred clauses over a
    dozen variables) took some 25 branches a call.
    """
    while True:
        changed = False
        left = []
        for pos, neg in clauses:
            if pos & true or neg & false:
                continue
            p, q = pos & ~false, neg & ~true
            if not p and not q:
                return False
            if not q and not p & (p - 1):
                true |= p
                changed = True
            elif not p and not q & (q - 1):
                false |= q
                changed = True
            else:
                left.append((pos, neg))
        if not left:
            return True
        if not changed:
            break
        clauses = left
    pos, neg = left[0]
    free = (pos | neg) & ~(true | false)
    v = free & -free
    return _dpll(left, true | v, false) or _dpll(left, true, false | v)
