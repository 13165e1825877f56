"""Sudoku as CNF: the encodings of Lynce & Ouaknine, as pure functions (no solving here).

Variables: ``x(r, c, d)`` is true when the cell at 0-based row ``r`` and column ``c``
holds the value ``d`` (1..n). It is numbered in closed form from 1::

    x(r, c, d) = r*n*n + c*n + d = cell*n + d        (cell = r*n + c)

so the cell variables are exactly ``1..n**3``, and a literal is found by arithmetic, not
by a lookup. Auxiliary variables of a compact at-most-one encoding come after them
(``n**3 + 1`` upwards).

The three encodings of I. Lynce and J. Ouaknine, "Sudoku as a SAT problem" (AIMATH
2006), over the rules' units (:attr:`~cpsudoku.model.rules.Rules.unit_cells`, so any
region layout works, never a hard-coded row/column/box loop):

- ``minimal``: each cell holds at least one value; each value at most once per unit.
  (Each cell then holds exactly one value anyway: n*n cells, each value at most n times.)
- ``efficient``: minimal + each cell holds at most one value.
- ``extended``: efficient + each value at least once per unit. The redundant clauses
  let unit propagation find hidden singles, which is what makes it the fastest to
  solve.

At-most-one constraints are ``pairwise`` (the textbook form, no auxiliary variables) or
one of the compact encodings of :mod:`pysat.card` (``seqcounter``, ``ladder``,
``bitwise``, ``totalizer``), which need O(k) instead of O(k**2) clauses for k literals:
that matters for 25x25 grids and up.

Only :func:`to_cnf` and the compact at-most-one encodings import pysat; the rest (the
pairwise rules, :func:`to_dimacs`) is standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from cpsudoku.encode.sum_clauses import (
    AuxMeaning,
    automaton_clauses,
    count_clauses,
    fold_units,
    sum_clauses,
)
from cpsudoku.model.constraints import Constraint
from cpsudoku.model.primitives import (
    Allowed,
    Automaton,
    Choice,
    Count,
    DigitSets,
    Distinct,
    Primitive,
    Relation,
    Sum,
    Table,
    values_of,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

if TYPE_CHECKING:
    from pysat.formula import CNF

#: The encodings, weakest first.
ENCODINGS: tuple[str, ...] = ("minimal", "efficient", "extended")

#: The at-most-one encodings: ``pairwise`` plus the compact ones of :mod:`pysat.card`.
AT_MOST_ONE: tuple[str, ...] = ("pairwise", "seqcounter", "ladder", "bitwise", "totalizer")

#: The default encoding: the fastest to solve in every measurement (docs/design.md).
DEFAULT_ENCODING = "extended"

#: The default at-most-one encoding.
DEFAULT_AT_MOST_ONE = "pairwise"

#: A clause: a tuple of non-zero DIMACS literals.
Clause = tuple[int, ...]

#: What an auxiliary variable of a constraint means: ``(variable, constraint index,
#: name, parameters)``, the index into ``rules.constraints``; the parameters start with
#: the index of the primitive among the constraint's (see
#: :mod:`cpsudoku.encode.sum_clauses` for the names).
ConstraintMeaning = tuple[int, int, str, tuple[object, ...]]

#: An at-most-one writer: (literals, top variable, output) -> new top variable.
AtMostOne = Callable[[Sequence[int], int, list[Clause]], int]

#: A writer of units of n cells for one puzzle, as :func:`region_literals`: (units, n,
#: givens, lead, clauses out, literals to assume out).
RegionWriter = Callable[
    [Sequence[Sequence[int]], int, Sequence[int], Clause, list[Clause], list[int]], None
]


@dataclass(frozen=True, slots=True)
class RuleClauses:
    """The rule clauses of one set of rules under one encoding (no givens).

    Attributes:
        rules: the puzzle's rules.
        encoding: one of :data:`ENCODINGS`.
        at_most_one: one of :data:`AT_MOST_ONE`.
        clauses: the clauses, cell rules first, then unit rules.
        top: the highest variable used: ``n**3`` plus any auxiliary variables.
    """

    rules: Rules
    encoding: str
    at_most_one: str
    clauses: tuple[Clause, ...]
    top: int


def var(n: int, r: int, c: int, d: int) -> int:
    """The variable of "the cell at 0-based (r, c) holds d" in an n x n grid.

    >>> var(9, 0, 0, 1), var(9, 8, 8, 9)
    (1, 729)
    """
    return r * n * n + c * n + d


def check_encoding(encoding: str, at_most_one: str = DEFAULT_AT_MOST_ONE) -> None:
    """Raise ValueError naming the valid choices when either name is unknown."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose from: {', '.join(ENCODINGS)}")
    if at_most_one not in AT_MOST_ONE:
        raise ValueError(
            f"unknown at-most-one encoding {at_most_one!r}; choose from: {', '.join(AT_MOST_ONE)}"
        )


@lru_cache(maxsize=16)
def rule_clauses(
    rules: Rules,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
) -> RuleClauses:
    """:func:`encode_rules`, cached per argument triple: the rules are encoded once.

    Raises:
        ValueError: an unknown encoding or at-most-one name.
    """
    return encode_rules(rules, encoding, at_most_one)


@lru_cache(maxsize=16)
def line_clauses(
    n: int,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
) -> RuleClauses:
    """The clauses every grid of side ``n`` shares, boxes or regions aside: cells, rows, columns.

    What every jigsaw of that side has in common: the SAT engine keeps them in one live
    solver and adds each puzzle's regions to it (:func:`unit_clauses`). The clauses'
    ``rules`` are a grid of that side whose regions are its rows, standing for any.
    """
    grid = Rules.jigsaw([range(r * n, (r + 1) * n) for r in range(n)])
    return encode_rules(grid, encoding, at_most_one, lines_only=True)


def unit_clauses(
    units: Iterable[Sequence[int]],
    n: int,
    encoding: str,
    at_most_one: str,
    top: int,
    out: list[Clause],
    givens: Sequence[int],
    *,
    guard: int = 0,
    assumed: list[int] | None = None,
    writer: RegionWriter | None = None,
) -> int:
    """Append one puzzle's clauses of ``units`` (regions, extra regions) to a grid's lines.

    As :func:`encode_rules` writes a unit, but for a live solver that holds the rows
    and columns already (:func:`line_clauses`) and assumes the puzzle's ``givens``
    (cell values, 0 for empty). With pairwise at-most-one, the clauses are narrowed to
    the puzzle: a clause those assumptions satisfy, or that the lines' clauses then
    make hold (a value given in a cell's row or column), is left out; two cells that
    share a row or a column need no clause of the unit's; a value given in the unit
    becomes a unit clause for each other cell that could still hold it. A compact
    at-most-one encoding writes each unit whole, its variables numbered from ``top +
    1``. With a ``guard``, every clause starts with ``-guard``. Returns the new top.

    With ``assumed`` (a list the caller assumes along with the guard), the extended
    pairwise encoding writes units of ``n`` cells by :func:`region_literals`, which
    puts its one-literal clauses there; or by ``writer``, a function of the same
    arguments and output (the compiled engine's, for the SAT engine).
    """
    lead = (-guard,) if guard else ()
    if at_most_one == "pairwise":
        if assumed is not None and encoding == "extended":
            full = [u for u in units if len(u) == n]
            (writer or region_literals)(full, n, givens, lead, out, assumed)
            units = [u for u in units if len(u) != n]
        if units:
            _unit_clauses_given(units, n, encoding, out, lead, givens)
        return top
    amo = _compact(at_most_one)
    for cells in units:
        for d in range(1, n + 1):
            lits = tuple(i * n + d for i in cells)
            written: list[Clause] = []
            top = amo(lits, top, written)
            out.extend((*lead, *clause) for clause in written)
            if encoding == "extended" and len(cells) == n:
                out.append((*lead, *lits))
    return top


def region_literals(
    units: Sequence[Sequence[int]],
    n: int,
    givens: Sequence[int],
    lead: Clause,
    out: list[Clause],
    assumed: list[int],
) -> None:
    """Units of ``n`` cells for a live solver holding the lines (extended encoding).

    For one puzzle, whose ``givens`` the solver assumes along with ``assumed``: per
    unit and value it lacks, "at least one of the cells the lines leave that value"
    (a clause starting with ``lead``; one such cell: its literal is assumed; none:
    the clause ``lead`` alone, no solution), and per value given in the unit, each
    other cell the lines leave it assumed not to hold it. No at-most-one clause: each
    cell holds exactly one value (the lines' cell clauses), so n cells holding each of
    n values at least once hold each exactly once; the pairs the pairwise encoding
    would add are implied, and on a jigsaw dataset writing them cost more than they
    saved (docs/design.md). Two givens of one value in a unit write ``lead`` alone.

    Cells are bit sets (Python integers): a value's candidates are the open cells
    outside the rows and columns that hold it, and a unit's are those among its cells.
    """
    lines, bits = _line_bits(n)
    seen = [0] * (n + 1)  # per value: the rows and columns holding it, as cells
    filled = 0
    for i, v in enumerate(givens):
        if v:
            seen[v] |= lines[i]
            filled |= bits[i]
    digits = range(1, n + 1)
    for cells in units:
        placed = 0
        for i in cells:
            v = givens[i]
            if v:
                if placed >> v & 1:  # two givens clash in the unit: no solution
                    out.append(lead)
                placed |= 1 << v
        left = sum(map(bits.__getitem__, cells)) & ~filled
        for d in digits:
            there = left & ~seen[d]
            if placed >> d & 1:  # given in the unit: no other cell holds it
                while there:
                    low = there & -there
                    assumed.append(-((low.bit_length() - 1) * n + d))
                    there ^= low
            elif there & (there - 1):
                lits = []
                while there:
                    low = there & -there
                    lits.append((low.bit_length() - 1) * n + d)
                    there ^= low
                out.append((*lead, *lits))
            elif there:  # one cell left for it
                assumed.append((there.bit_length() - 1) * n + d)
            else:  # no cell left for it: no solution
                out.append(lead)


@lru_cache(maxsize=16)
def _line_bits(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per cell of an n x n grid: its row and column together, and itself, as cell bit sets."""
    rows = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    cols = [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    cells = range(n * n)
    return tuple(rows[i // n] | cols[i % n] for i in cells), tuple(1 << i for i in cells)


def _unit_clauses_given(
    units: Iterable[Sequence[int]],
    n: int,
    encoding: str,
    out: list[Clause],
    lead: Clause,
    givens: Sequence[int],
) -> None:
    """:func:`unit_clauses` with pairwise at-most-one, narrowed by the givens.

    Two givens of one value in a unit write the clause ``lead`` alone: no solution
    while the guard is assumed (without a guard, the empty clause).
    """
    full = (1 << n) - 1
    rows, cols = [0] * n, [0] * n
    for i, v in enumerate(givens):
        if v:
            rows[i // n] |= 1 << (v - 1)
            cols[i % n] |= 1 << (v - 1)
    # The values the lines leave each open cell (a given cell: none).
    left = [0 if v else full & ~(rows[i // n] | cols[i % n]) for i, v in enumerate(givens)]
    extended = encoding == "extended"
    for cells in units:
        placed = 0
        holders: list[list[int]] = [[] for _ in range(n + 1)]  # value -> open cells
        for i in cells:
            if givens[i]:
                bit = 1 << (givens[i] - 1)
                if placed & bit:  # two givens clash in the unit: no solution
                    out.append(lead)
                placed |= bit
                continue
            m = left[i]
            while m:
                low = m & -m
                holders[low.bit_length()].append(i)
                m ^= low
        whole = extended and len(cells) == n
        for d in range(1, n + 1):
            there = holders[d]
            if placed >> (d - 1) & 1:  # no other cell of the unit holds it
                out.extend((*lead, -(i * n + d)) for i in there)
                continue
            if len(there) > 1:
                out.extend(
                    (*lead, -(i * n + d), -(j * n + d))
                    for i, j in combinations(there, 2)
                    if i // n != j // n and i % n != j % n
                )
            if whole:
                out.append((*lead, *(i * n + d for i in there)))


def encode_rules(
    rules: Rules,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
    *,
    lines_only: bool = False,
) -> RuleClauses:
    """The rule clauses of ``rules`` under ``encoding``, encoded anew at every call.

    Use :func:`rule_clauses`, its cached form, everywhere but where the point is to encode
    for every puzzle: the textbook ``fresh`` baseline of the SAT backend.

    Clause counts with pairwise at-most-one, for n x n grids with U units of n cells
    (U = 3n for rows, columns and boxes), C(n, 2) = n(n-1)/2:

    - minimal: ``n*n + U*n*C(n, 2)``
    - efficient: minimal + ``n*n*C(n, 2)``
    - extended: efficient + ``U*n``

    ``lines_only`` keeps to the cells, rows and columns (:func:`line_clauses`).

    Raises:
        ValueError: an unknown encoding or at-most-one name.

    >>> from cpsudoku.model.rules import Rules
    >>> len(encode_rules(Rules.classic(3, 3), "minimal").clauses)
    8829
    """
    check_encoding(encoding, at_most_one)
    n = rules.n
    top = n**3
    amo = _pairwise if at_most_one == "pairwise" else _compact(at_most_one)
    values = range(1, n + 1)
    out: list[Clause] = []
    # Cells: at least one value (all encodings); at most one (efficient, extended).
    cell_lits = [tuple(i * n + d for d in values) for i in range(rules.cells)]
    out.extend(cell_lits)
    if encoding != "minimal":
        for lits in cell_lits:
            top = amo(lits, top, out)
    # Units: each value at most once (all encodings); at least once (extended), which
    # holds only for units of n cells.
    for cells in rules.unit_cells[: 2 * n] if lines_only else rules.unit_cells:
        for d in values:
            lits = tuple(i * n + d for i in cells)
            top = amo(lits, top, out)
            if encoding == "extended" and len(cells) == n:
                out.append(lits)
    if not lines_only:
        top = constraint_clauses(rules.constraints, rules, top, out)
    return RuleClauses(rules, encoding, at_most_one, tuple(out), top)


def constraint_clauses(
    constraints: Iterable[Constraint],
    rules: Rules,
    top: int,
    out: list[Clause],
    *,
    guard: int = 0,
    meanings: list[ConstraintMeaning] | None = None,
) -> int:
    """Append the clauses of ``constraints`` on ``rules``' grid; return the new top.

    Each constraint is written as the primitives it compiles to
    (:func:`primitive_clauses`); auxiliary variables are numbered from ``top + 1``.
    With a ``guard`` variable, every clause starts with ``-guard``: the constraints
    hold only while the guard is assumed (the SAT engine's live solver; writing the
    literal here saves a copy of every clause). The engines refuse what they lack
    before encoding, so an unknown primitive here is a bug.

    ``meanings``, when given, receives what the auxiliary variables of sums, automata
    and counts mean, each with the index of its constraint in ``constraints`` and of
    the primitive among the constraint's (certificates carry them; a cage's
    selectors get none).
    """
    n = rules.n
    lead = (-guard,) if guard else ()
    local: list[AuxMeaning] | None = None if meanings is None else []
    compiled = rules.compiled if constraints is rules.constraints else None
    classes: Classes = {}
    for j, c in enumerate(constraints):
        prims = compiled[j][1] if compiled is not None else c.compile(n)
        for k, p in enumerate(prims):
            top = primitive_clauses(p, rules, top, out, lead, local, classes)
            if meanings is not None and local:
                meanings.extend((v, j, name, (k, *params)) for v, name, params in local)
                local.clear()
    return top


def primitive_clauses(
    p: Primitive,
    rules: Rules,
    top: int,
    out: list[Clause],
    lead: Clause = (),
    meanings: list[AuxMeaning] | None = None,
    classes: Classes | None = None,
) -> int:
    """Append the clauses of one primitive (each starting with ``lead``); the new top.

    - a relation: a binary clause per pair of values a pair of cells may not hold;
    - allowed values: a unit clause per value a cell may not hold;
    - different digits: a binary clause per digit for cells that share no unit;
    - digit sets: :func:`cage_clauses`;
    - a table: a clause per forbidden tuple (up to three cells), else a selector per
      allowed tuple;
    - a sum, an automaton, a count: a layered diagram
      (:mod:`cpsudoku.encode.sum_clauses`); a sum with whole units read as their
      totals first (:func:`~cpsudoku.encode.sum_clauses.fold_units`), unless
      ``meanings`` are asked for (a certificate's sums stay as written); a count of
      a few cells between two bounds as subsets (:func:`small_count_clauses`),
      unless ``meanings`` are asked for (``classes`` shares its indicators);
    - a choice: a selector per branch, one of them chosen, each branch's clauses
      behind its selector.
    """
    n = rules.n
    if isinstance(p, Relation):
        if p.differ:  # equal values only
            out.extend(
                (*lead, -(i * n + d), -(j * n + d)) for i, j in p.pairs for d in range(1, n + 1)
            )
        else:
            bad = p.forbidden()
            out.extend((*lead, -(i * n + a), -(j * n + b)) for i, j in p.pairs for a, b in bad)
    elif isinstance(p, Allowed):
        out.extend(
            (*lead, -(i * n + d))
            for i, mask in zip(p.cells, p.masks, strict=True)
            for d in range(1, n + 1)
            if not mask >> (d - 1) & 1
        )
    elif isinstance(p, Distinct):
        peers = rules.units_only.peers
        cells = p.cells
        apart = [(i, j) for a, i in enumerate(cells) for j in cells[a + 1 :] if j not in peers[i]]
        out.extend((*lead, -(i * n + d), -(j * n + d)) for i, j in apart for d in range(1, n + 1))
    elif isinstance(p, DigitSets):
        top = cage_clauses(p, rules, top, out, lead)
    elif isinstance(p, Table):
        top = table_clauses(p, n, top, out, lead)
    elif (
        isinstance(p, Count)
        and meanings is None
        and (small := small_count_clauses(p, n, top, out, lead, classes)) is not None
    ):
        top = small
    elif isinstance(p, Sum | Automaton | Count):
        writer = (
            sum_clauses
            if isinstance(p, Sum)
            else (automaton_clauses if isinstance(p, Automaton) else count_clauses)
        )
        if isinstance(p, Sum) and meanings is None:  # solving: whole units as totals
            p = fold_units(p, rules.unit_cells, n)
        top = writer(p, n, top, out, meanings, lead)  # type: ignore[arg-type]
    elif isinstance(p, Choice):
        chosen = list(range(top + 1, top + len(p.branches) + 1))
        top += len(p.branches)
        out.append((*lead, *chosen))
        for selector, branch in zip(chosen, p.branches, strict=True):
            for q in branch:
                top = primitive_clauses(q, rules, top, out, (*lead, -selector), meanings, classes)
    else:
        raise ValueError(f"the CNF encoder has no encoding of {type(p).__name__}")
    return top


def table_clauses(p: Table, n: int, top: int, out: list[Clause], lead: Clause = ()) -> int:
    """A table: forbidden tuples as clauses (up to three cells), else tuple selectors.

    With selectors: one of the allowed tuples is chosen, a chosen tuple's values are
    held, and a cell holding a value chooses a tuple giving it that value (so unit
    propagation keeps each cell's values to those of some tuple still possible).
    """
    cells = p.cells
    if len(cells) <= 3:
        # Placeholder cell k's value v is k * n + v - 1 below: rename to the cells'.
        at = [i * n - k * n for k, i in enumerate(cells)]
        out.extend(
            (*lead, *(x + at[(abs(x) - 1) // n] if x > 0 else x - at[(-x - 1) // n] for x in c))
            for c in _small_table(len(cells), p.tuples, n)
        )
        return top
    selectors = range(top + 1, top + len(p.tuples) + 1)
    top += len(p.tuples)
    out.append((*lead, *selectors))
    having: dict[tuple[int, int], list[int]] = {}
    for s, t in zip(selectors, p.tuples, strict=True):
        for i, v in zip(cells, t, strict=True):
            out.append((*lead, -s, i * n + v))
            having.setdefault((i, v), []).append(s)
    for i in cells:
        for v in range(1, n + 1):
            out.append((*lead, -(i * n + v), *having.get((i, v), ())))
    return top


#: The class indicators of one encoding: ``(lead, cell, values) -> variable`` for "the
#: cell holds one of ``values``" (a mask), written once under the clauses' ``lead``.
Classes = dict[tuple[Clause, int, int], int]

#: Counts over at most this many cells are written as subsets (:func:`small_count_clauses`).
SMALL_COUNT = 5


def small_count_clauses(
    p: Count, n: int, top: int, out: list[Clause], lead: Clause, classes: Classes | None
) -> int | None:
    """A count of a few cells between two bounds as subsets; None for the others.

    "Between lo and hi of the cells hold a value of the set": no hi + 1 of them all
    do, and no m - lo + 1 of them (m cells) all do not, a clause per subset over an
    indicator per cell, "the cell holds a value of the set": the cell's own variable
    for a set of one value, else a variable defined both ways (the set's values
    imply it, it implies one of them, and it rules out the others), made once per
    cell and set in ``classes`` and shared by every count using it (global entropy's
    2x2 areas share each cell's three indicators). Unit propagation then does what
    the count's narrowing does: hi cells in the set rule the set out of the others.
    A layered diagram says this with three states a cell and, grouped, less strongly.
    """
    m = len(p.cells)
    lo = min(p.counts)
    hi = min(max(p.counts), m)
    if m > SMALL_COUNT or lo > m or any(c not in p.counts for c in range(lo, hi + 1)):
        return None
    from itertools import combinations

    inside = [d for d in range(1, n + 1) if p.values >> (d - 1) & 1]
    lits: list[int] = []
    for c in p.cells:
        if len(inside) == 1:
            lits.append(c * n + inside[0])
            continue
        key = (lead, c, p.values)
        v = classes.get(key) if classes is not None else None
        if v is None:
            top += 1
            v = top
            if classes is not None:
                classes[key] = v
            out.extend((*lead, -(c * n + d), v) for d in inside)
            out.append((*lead, -v, *(c * n + d for d in inside)))
            out.extend(
                (*lead, -v, -(c * n + d)) for d in range(1, n + 1) if not p.values >> (d - 1) & 1
            )
        lits.append(v)
    if hi < m:
        out.extend((*lead, *(-x for x in some)) for some in combinations(lits, hi + 1))
    if lo > 0:
        out.extend((*lead, *some) for some in combinations(lits, m - lo + 1))
    return top


@lru_cache(maxsize=256)
def _small_table(size: int, tuples: tuple[tuple[int, ...], ...], n: int) -> tuple[Clause, ...]:
    """The clauses of a table over up to three cells: its forbidden tuples, grouped.

    Read with one cell left free: for each values of the others, the free cell's
    values no allowed tuple completes are forbidden, as a clause each, or as one
    clause "those values of the others need one of the free cell's allowed values"
    where that takes fewer literals (a cell has exactly one value: the same
    meaning); the values of the others no tuple completes, a shorter clause. The
    free cell is the one giving the fewest literals (a between line's inner cell).
    Written on the placeholder cells ``0..size-1``, once per table of values.
    """
    from itertools import product

    best: list[Clause] | None = None
    for free in range(size):
        others = [i for i in range(size) if i != free]
        ok: dict[tuple[int, ...], list[int]] = {}
        for t in set(tuples):
            ok.setdefault(tuple(t[i] for i in others), []).append(t[free])
        clauses: list[Clause] = []
        for rest in product(range(1, n + 1), repeat=len(others)):
            head = tuple(-(i * n + v) for i, v in zip(others, rest, strict=True))
            keep = ok.get(rest, ())
            bad = n - len(keep)
            if not bad:
                continue
            if len(head) + len(keep) < bad * (len(head) + 1):
                clauses.append((*head, *(free * n + v for v in sorted(keep))))
            else:
                clauses.extend((*head, -(free * n + v)) for v in range(1, n + 1) if v not in keep)
        if best is None or sum(map(len, clauses)) < sum(map(len, best)):
            best = clauses
    return tuple(best or ())


def cage_clauses(
    cage: DigitSets, rules: Rules, top: int, out: list[Clause], lead: Clause = ()
) -> int:
    """Different digits forming one of some sets (a killer cage, a renban) as clauses.

    The digits of the cage differ: a binary clause per digit the cage can hold, for
    each two of its cells that share no unit (most cages lie in one row, column or
    box, whose clauses already say it). A digit in no set leaves every cell of the
    cage (a unit clause each). One set left: each of its digits is somewhere in the
    cage. Several: a selector per set, at least one chosen, a chosen set's digits each
    somewhere in the cage, and a cell holding a digit chooses one of the sets that
    hold it (a clause per cell and digit not in every set). k cells holding k
    different digits then hold exactly the chosen set, so nothing more needs saying
    about the other digits. The last clauses are redundant, but unit propagation
    needs them to go from a placed digit to its set (on the killer sample they halve
    the conflicts). A 9x9 cage has at most 12 such sets (5 cells adding up to 25).
    docs/design.md compares the alternatives measured. Every clause starts with the
    literals ``lead`` (see :func:`constraint_clauses`).
    """
    n = rules.n
    cells = cage.cells
    recipe = _cage_recipe(n, cage.sets)
    peers = rules.units_only.peers  # one grid's peers, worked out once for all puzzles
    apart = [(i, j) for a, i in enumerate(cells) for j in cells[a + 1 :] if j not in peers[i]]
    out.extend((*lead, -(i * n + d), -(j * n + d)) for i, j in apart for d in recipe.digits)
    if not recipe.sets:
        return top
    bases = [i * n for i in cells]
    out.extend((*lead, -(b + d)) for d in recipe.excluded for b in bases)
    if len(recipe.sets) == 1:
        out.extend((*lead, *(b + d for b in bases)) for d in recipe.sets[0])
        return top
    out.append((*lead, *range(top + 1, top + len(recipe.sets) + 1)))
    out.extend((*lead, -(top + s), *(b + d for b in bases)) for s, d in recipe.members)
    for d, having in recipe.links:
        chosen = tuple(top + s for s in having)
        out.extend((*lead, -(b + d), *chosen) for b in bases)
    return top + len(recipe.sets)


@dataclass(frozen=True, slots=True)
class _CageRecipe:
    """What the clauses of a cage need, worked out once per grid side and digit sets.

    ``sets``: the digit sets (empty: no restriction); ``digits``: those in some set (all
    of 1..n when unrestricted); ``excluded``: the others; ``members``: (selector,
    digit) for each digit of each set, selectors numbered from 1; ``links``: for each
    digit in some but not every set, the selectors of the sets holding it.
    """

    sets: tuple[tuple[int, ...], ...]
    digits: tuple[int, ...]
    excluded: tuple[int, ...]
    members: tuple[tuple[int, int], ...]
    links: tuple[tuple[int, tuple[int, ...]], ...]


@lru_cache(maxsize=4096)
def _cage_recipe(n: int, masks: tuple[int, ...]) -> _CageRecipe:
    """The recipe of a cage whose digits must form one of the sets ``masks``."""
    sets = tuple(tuple(values_of(m)) for m in masks)
    digits = tuple(sorted(set().union(*sets))) if sets else tuple(range(1, n + 1))
    excluded = tuple(d for d in range(1, n + 1) if d not in digits)
    members = tuple((s, d) for s, combo in enumerate(sets, 1) for d in combo)
    links = []
    for d in digits:
        having = tuple(s for s, combo in enumerate(sets, 1) if d in combo)
        if len(having) < len(sets):
            links.append((d, having))
    return _CageRecipe(sets, digits, excluded, members, tuple(links))


def _pairwise(lits: Sequence[int], top: int, out: list[Clause]) -> int:
    """Append the pairwise at-most-one clauses of ``lits``; no new variables."""
    out.extend((-a, -b) for a, b in combinations(lits, 2))
    return top


def _compact(name: str) -> AtMostOne:
    """An at-most-one writer using the :mod:`pysat.card` encoding ``name``."""
    from pysat.card import CardEnc, EncType

    enc = getattr(EncType, name)

    def write(lits: Sequence[int], top: int, out: list[Clause]) -> int:
        if len(lits) < 2:
            return top
        cnf = CardEnc.atmost(list(lits), bound=1, top_id=top, encoding=enc)
        out.extend(tuple(c) for c in cnf.clauses)
        return max(top, cnf.nv)

    return write


@dataclass(frozen=True, slots=True)
class Reduced:
    """One puzzle's rules restricted to its open cells' candidates (no givens left).

    Attributes:
        clauses: the clauses; an empty clause when an open cell has no candidate left
            (or, with ``extended``, a value has no place left in a unit).
        candidates: for each cell, the literals of its remaining values in increasing
            order; empty for a given.
        top: the highest variable number used.
    """

    clauses: list[Clause]
    candidates: tuple[tuple[int, ...], ...]
    top: int


def reduced(
    puzzle: Puzzle,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
    meanings: list[ConstraintMeaning] | None = None,
    implied: Sequence[Constraint] = (),
) -> Reduced:
    """The encoding of one puzzle with its givens folded in (Kwon & Jain's optimisation).

    G. Kwon and H. Jain, "Optimized CNF encoding for Sudoku puzzles" (LPAR 2006): a
    given fixes its cell and rules its value out of every peer, so those variables and
    the clauses they satisfy are dropped before the solver sees them. What is left
    ranges over the candidates (values not given in any unit of the cell) of the open
    cells only: a 25x25 puzzle with 270 givens shrinks from about 750,000 clauses to
    about 25,000. Variables keep the closed-form numbering of :func:`var`; the others
    occur in no clause, so a model says nothing about them: read the cells from the
    candidate literals (:func:`decode_reduced`), never from the whole model.

    ``meanings``, when given, receives what the constraints' auxiliary variables mean
    (:func:`constraint_clauses`). ``implied`` are constraints the rules imply
    (:mod:`cpsudoku.model.implied`) that a solving engine adds beside them; the
    certificates pass none, so their formula keeps to the rules as given.

    Raises:
        ValueError: an unknown encoding or at-most-one name.
    """
    check_encoding(encoding, at_most_one)
    g = puzzle.rules
    n = g.n
    cells = puzzle.cells
    used = [0] * len(g.unit_cells)
    for cell_units, v in zip(g.units_of, cells, strict=True):
        if v:
            bit = 1 << (v - 1)
            for u in cell_units:
                used[u] |= bit
    full = (1 << n) - 1
    masks = [0] * g.cells
    candidates: list[tuple[int, ...]] = []
    for i, v in enumerate(cells):
        if v:
            candidates.append(())
            continue
        m = full
        for u in g.units_of[i]:
            m &= ~used[u]
        masks[i] = m
        candidates.append(tuple(i * n + d for d in range(1, n + 1) if m >> (d - 1) & 1))
    top = n**3
    amo = _pairwise if at_most_one == "pairwise" else _compact(at_most_one)
    out: list[Clause] = []
    for i, lits in enumerate(candidates):
        if not cells[i]:
            out.append(lits)  # at least one value (empty: no candidate left)
            if encoding != "minimal":
                top = amo(lits, top, out)
    for u, unit in enumerate(g.unit_cells):
        for d in range(1, n + 1):
            bit = 1 << (d - 1)
            if used[u] & bit:
                continue
            lits = tuple(i * n + d for i in unit if masks[i] & bit)
            top = amo(lits, top, out)
            if encoding == "extended" and len(unit) == n:
                out.append(lits)  # at least once (empty: no place left)
    constraints = g.constraints + tuple(implied) if implied else g.constraints
    if constraints:
        # The constraints' clauses speak of every value of their cells, and the cell
        # clauses above only of the candidates: every other value of those cells is
        # false (a given's own value true), or a model could satisfy a cage with a
        # value its cell does not hold. So are those of the other cells the clauses
        # name: a sum read with whole units as their totals (fold_units) names cells
        # of those units that its rule does not list.
        listed = {i for c in constraints for i in c.cells}
        _fix_others(sorted(listed), cells, candidates, n, out)
        start = len(out)
        top = constraint_clauses(constraints, g, top, out, meanings=meanings)
        named = {(abs(x) - 1) // n for c in out[start:] for x in c if abs(x) <= n**3}
        _fix_others(sorted(named - listed), cells, candidates, n, out)
    return Reduced(out, tuple(candidates), top)


def _fix_others(
    some: Iterable[int],
    cells: Sequence[int],
    candidates: Sequence[tuple[int, ...]],
    n: int,
    out: list[Clause],
) -> None:
    """Unit clauses: each cell of ``some`` holds none of its non-candidates (a given: its value)."""
    for i in some:
        v, keep = cells[i], set(candidates[i])
        out.extend(
            (lit,) if d == v else (-lit,) for d in range(1, n + 1) if (lit := i * n + d) not in keep
        )


def decode_reduced(model: Sequence[int], puzzle: Puzzle, red: Reduced) -> tuple[int, ...]:
    """The grid of a model of ``red``: the givens, plus each open cell's true candidate.

    ``model`` is a solver model (``model[v - 1]`` is ``v`` or ``-v``). An open cell
    with no true candidate is left 0 (the verifier rejects such a grid).
    """
    n = puzzle.n
    out = list(puzzle.cells)
    size = len(model)
    for i, lits in enumerate(red.candidates):
        for lit in lits:
            if lit <= size and model[lit - 1] > 0:
                out[i] = (lit - 1) % n + 1
                break
    return tuple(out)


def given_literals(puzzle: Puzzle) -> list[int]:
    """The true cell literals of the givens, in cell order (assumptions or unit clauses).

    >>> from cpsudoku.model.forms import parse
    >>> given_literals(parse("1.343..2.3..2..3"))
    [1, 11, 16, 19, 30, 39, 50, 63]
    """
    n = puzzle.n
    return [i * n + v for i, v in enumerate(puzzle.cells) if v]


def decode(model: Iterable[int], rules: Rules) -> tuple[int, ...]:
    """The cell values of a model (a list of true/false literals); 0 where none is true.

    Only the cell variables ``1..n**3`` are read; auxiliary and selector variables are
    ignored. When a model sets several values of one cell (possible only in formulas
    without per-cell at-most-one, and never in a model of a complete Sudoku), the
    largest wins; the verifier would reject such a grid.
    """
    n = rules.n
    top = n**3
    cells = [0] * rules.cells
    for lit in model:
        if 0 < lit <= top:
            i, d = divmod(lit - 1, n)
            cells[i] = d + 1
    return tuple(cells)


def to_cnf(
    puzzle: Puzzle,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
) -> CNF:
    """The puzzle as a :class:`pysat.formula.CNF`: the rules plus one unit clause per given.

    ``cnf.nv`` is at least ``n**3``, so every cell variable is declared even when it
    occurs in no clause.

    Raises:
        ValueError: an unknown encoding or at-most-one name.
    """
    from pysat.formula import CNF

    r = rule_clauses(puzzle.rules, encoding, at_most_one)
    # The clauses are new lists already, so pysat's default deep copy of them (five
    # times the cost of all the rest on 9x9) would copy nothing that needs it.
    cnf = CNF(from_clauses=[list(c) for c in r.clauses], by_ref=True)
    cnf.extend([[lit] for lit in given_literals(puzzle)])
    cnf.nv = max(cnf.nv, r.top)
    return cnf


def to_dimacs(
    puzzle: Puzzle,
    encoding: str = DEFAULT_ENCODING,
    at_most_one: str = DEFAULT_AT_MOST_ONE,
) -> str:
    """The puzzle as DIMACS CNF text for outside solvers (kissat, minisat, cadical).

    The rules come first, then one unit clause per given. Comment lines (``c ...``)
    give the rules, the encoding and the variable mapping, so a model printed by
    any solver can be decoded by hand: the true variables ``v <= n**3`` are the cells,
    with ``cell = (v - 1) // n`` (row-major) and ``value = (v - 1) % n + 1``.

    Raises:
        ValueError: an unknown encoding or at-most-one name.
    """
    g = puzzle.rules
    n = g.n
    r = rule_clauses(g, encoding, at_most_one)
    units = [(lit,) for lit in given_literals(puzzle)]
    body = [" ".join(map(str, c)) + " 0" for c in r.clauses]
    body.extend(f"{lit} 0" for (lit,) in units)
    header = [
        f"c cpsudoku: {g} Sudoku, {len(g.units)} no-repeat units",
        f"c rules: {json.dumps(g.spec(), separators=(',', ':'))}",
        f"c encoding: {encoding} (Lynce & Ouaknine), at-most-one: {at_most_one}",
        f"c x(r,c,d) = r*N*N + c*N + d with N = {n}, 0-based row r and column c, "
        f"value d in 1..{n}: variables 1..{n**3}",
        "c decode a true variable v <= N*N*N: row = (v-1) // (N*N), "
        "column = (v-1) // N % N, value = (v-1) % N + 1",
    ]
    if r.top > n**3:
        owners = [f"the {at_most_one} at-most-one"] if at_most_one != "pairwise" else []
        owners += ["the constraints' (digit-set selectors, sums)"] if g.constraints else []
        header.append(f"c variables {n**3 + 1}..{r.top}: auxiliary, {' and '.join(owners)}")
    header.append(f"c givens: {len(units)} unit clauses after the {len(r.clauses)} rules")
    if n <= 35:
        header.append(f"c puzzle: {puzzle}")
    header.append(f"p cnf {r.top} {len(r.clauses) + len(units)}")
    return "\n".join(header + body) + "\n"
