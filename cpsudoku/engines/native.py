"""The compiled engine (``native``): a bit-parallel search in C, built with the package.

The rules' units become bit masks over the cells once per rule set
(:func:`layout`); a search keeps, per digit, the set of cells where it may still go
and reasons on those sets a word of 64 cells at a time: naked and hidden singles,
locked candidates, naked and hidden sets on every box-line intersection (triads), and
branching on the two-candidate cell that sees the most open cells. docs/design.md
gives each technique's measured effect.

It takes every rule, up to 32x32: no-repeat units (boxes of any shape, jigsaw
regions, extra regions of any size), killer cages (the digit sets that make each sum
narrow its cells) and relations that only say "differ" (anti-knight, anti-king: pairs
of cells as units) go in as units; allowed values (even, odd, given candidates) are
masks the search starts from; every other primitive (relations with any table,
tables, sums, automata, counts, choices) is a propagator in C, woken when one of its
cells loses a candidate. Only a primitive past the layout's size limits is refused
(:func:`beyond`), by name.
:func:`solve_block` is the bulk entry point that ``cpsudoku batch`` and
:func:`cpsudoku.solve_many` use: one C call over a whole block of puzzles, without the
GIL.

The extension is optional: when it was not built (no C compiler at install time),
importing this module raises ModuleNotFoundError, the registry reports the engine as
unavailable, and ``cpsudoku --version`` says so.

Stats: ``nodes`` (search states visited) and ``guesses`` (branch choices made while
another digit was left to try; the last one left is forced, not guessed).
"""

from __future__ import annotations

import math
import time
from array import array
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, ClassVar

import cpsudoku.engines._native as _native
from cpsudoku.encode.sum_clauses import folded
from cpsudoku.engines.base import Backend, Search
from cpsudoku.model.constraints import Cage
from cpsudoku.model.implied import combined_sums, diagonal_bands, implied_cages, implied_sums
from cpsudoku.model.primitives import (
    PRIMITIVES,
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
    TupleList,
    differ_table,
    per_tuples,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

if TYPE_CHECKING:
    import numpy as np

#: The largest side the compiled engine takes (32x32: 1,024 cells).
MAX_SIDE: int = _native.MAX_SIDE
#: Units of n cells a layout holds (more become propagators).
FULL_UNITS: int = _native.FULL_UNITS
#: The layout's limits on a primitive (past them the engine refuses the rule by name).
MAX_PROP_CELLS: int = _native.MAX_PROP_CELLS
MAX_TABLE_CELLS: int = _native.MAX_TABLE_CELLS
MAX_STATES: int = _native.MAX_STATES
MAX_LAYERS: int = _native.MAX_LAYERS

# What a search ended with (see _native.c).
DONE: int = _native.DONE
LIMIT: int = _native.LIMIT
TIMEOUT: int = _native.TIMEOUT
BUDGET: int = _native.BUDGET
CLASH: int = _native.CLASH

#: Nodes a puzzle with summed cages may take on its own layout before its search starts
#: again on :func:`sums_layout` (the innies and outies of runs of units as sums). Easy
#: killers take tens of nodes, the tarek killers tens of thousands without those sums.
ESCALATE_NODES = 5_000
#: Node-equivalents (nodes and propagators' work) a puzzle with bands of diagonals and
#: no summed cage may take on its own layout before it starts again with the bands.
#: A little killer's node costs some five node-equivalents, and the generated little
#: killers take up to about 5,000 nodes without the bands, which cost them more than
#: they save.
ESCALATE_BANDS = 50_000
#: The most cells of an implied sum on :func:`sums_layout`: one more than ``sat`` takes
#: (:data:`~cpsudoku.model.implied.MOST_SUM_CELLS`). The flower-caged extreme killers
#: leave no run of units with four cells or fewer, and five-cell sums cost the compiled
#: engine little: wecoc-1 1,328,050 -> 61,644 nodes, tarek unsolvable 41 84,612 ->
#: 4,684 (docs/design.md).
ESCALATE_SUM_CELLS = 5
#: How many ways a search can end: the codes above are 0 to ENDS - 1.
ENDS = 5


@lru_cache(maxsize=64)
def layout(rules: Rules, band: bool = True) -> _native.Layout:
    """The compiled layout of ``rules``, built once per rule set (:func:`_layout`).

    Classic 9x9 rules (rows, columns and boxes, nothing else) are searched by the
    9x9 band solver (``_native_band.h``) unless ``band`` is False, which keeps them on
    the generic search: the tests compare the two, the benchmark measures both.

    Rules whose constraints only narrow cells (parity, given candidates: ``Allowed``)
    share the layout of their units: the search takes those masks per puzzle
    (:func:`allowed_masks`), so an even-odd dataset, rules of its own per puzzle,
    builds no layout per puzzle.
    """
    if rules.constraints and all(type(p) is Allowed for p in rules.primitives):
        # (called as the classic rules' own calls are, so the cache holds it once)
        return layout(rules.units_only) if band else layout(rules.units_only, False)
    return _layout(rules, (), band, _combined(rules))


def _combined(rules: Rules) -> tuple[Primitive, ...]:
    """The sums of sums whose cells see each other (:func:`combined_sums`), compiled."""
    return tuple(p for c in combined_sums(rules) for p in c.compile(rules.n))


@lru_cache(maxsize=16)
def sums_layout(rules: Rules) -> _native.Layout:
    """The layout with the innies and outies of runs of units added as sums.

    Sums of up to :data:`ESCALATE_SUM_CELLS` cells, and the bands of parallel diagonals
    that hold a whole box (:func:`diagonal_bands`: the hailstone little killer of the
    hard set, 133,490 -> 9,622 nodes; given to every puzzle, they cost the generated
    little killers more than they saved, 40,179 -> 44,414 nodes on the set).
    :func:`~cpsudoku.model.implied.implied_sums` take a few milliseconds of Python a
    puzzle, many times an easy killer's whole search, so only a puzzle that passes
    :data:`ESCALATE_NODES` on its own layout gets them (docs/design.md).
    """
    extra = tuple(p for c in implied_sums(rules, ESCALATE_SUM_CELLS) for p in c.compile(rules.n))
    bands = tuple(p for c in diagonal_bands(rules) for p in c.compile(rules.n))
    return _layout(rules, extra, True, _combined(rules) + bands)


def _escalate_at(rules: Rules) -> int:
    """The node-equivalents after which a search starts again on :func:`sums_layout`.

    :data:`ESCALATE_NODES` with killer cages with a sum (what implied sums start from);
    else :data:`ESCALATE_BANDS` with bands of diagonals; else 0, never.
    """
    if any(type(c) is Cage and c.total is not None for c in rules.constraints):
        return ESCALATE_NODES
    return ESCALATE_BANDS if diagonal_bands(rules) else 0


def _layout(
    rules: Rules,
    extra: tuple[Primitive, ...],
    band: bool = True,
    grouped: tuple[Primitive, ...] = (),
) -> _native.Layout:
    """The compiled layout of ``rules`` and the implied primitives ``extra`` and ``grouped``.

    Its units as bit masks. The primitives that are units go in as units: different
    digits (:class:`Distinct`), digit sets (:class:`DigitSets`: a unit carrying its
    sets as masks; the cages the rule of 45 implies, :func:`implied_cages`, as well),
    and the pairs of a relation that only says "differ", each a unit of two cells.
    Every other primitive is a propagator of its own (:func:`spec`), woken when one of
    its cells loses a candidate; allowed values are the masks a search starts from
    (:func:`allowed_masks`).
    """
    if not rules.constraints:  # regions alone: a jigsaw dataset builds one per puzzle
        return _native.Layout(rules.n, rules.unit_cells, band=band)
    n = rules.n
    units: list[tuple[int, ...]] = list(rules.unit_cells)
    full = sum(len(u) == n for u in units)
    cages: list[DigitSets] = []
    props: list[tuple[object, ...]] = []
    pairs: list[tuple[int, int]] = []
    digit_pairs: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    relations: list[Relation] = []
    # Sums with whole units read as their totals (the rule of 45, fold_units): a pill's
    # shaft through whole rows becomes a sum of the few cells left.
    implied_from = len(rules.primitives) + len(grouped)
    for at, p in enumerate(folded((*rules.primitives, *grouped, *extra), units, n)):
        if type(p) is Allowed:  # (type tests: primitives are final classes)
            continue  # the masks a search starts from
        if type(p) is Relation:
            if p.differ:
                pairs.extend(p.pairs)
            elif digits := _same_digits(p):
                digit_pairs.append((digits, p.pairs))
            else:
                relations.append(p)
        elif (type(p) is Distinct or type(p) is DigitSets) and _unit_fits(
            p.cells, n, full, len(cages)
        ):
            full += len(p.cells) == n
            if type(p) is DigitSets:
                cages.append(p)
            else:
                units.append(p.cells)
        else:
            # The innies and outies (extra) span many units: bounding their groups of
            # different digits cost more than it narrowed (docs/design.md); the sums of
            # sums (grouped) are there for their groups.
            props.append(spec(p, grouped=at < implied_from))
    implied = [p for c in implied_cages(rules) for p in c.compile(n) if isinstance(p, DigitSets)]
    for p in implied:
        if _unit_fits(p.cells, n, full, len(cages)):
            full += len(p.cells) == n
            cages.append(p)
    units += [p.cells for p in cages]
    units += pairs
    if relations:
        props += _relations(relations, units, n)
    return _native.Layout(
        n,
        units,
        [(p.cells, list(p.sets)) for p in cages],
        props,
        band=band,
        digit_pairs=digit_pairs,
    )


def _same_digits(r: Relation) -> int:
    """The digits a relation keeps apart when that is all it says, else 0.

    A relation whose every forbidden pair is a digit beside itself (self-taxicab: two
    cells d apart may not both hold d) is a unit of two cells for those digits only:
    the layout takes it as digit peers (bit d - 1 for digit d), which a placement
    clears as it clears its unit peers, instead of a propagator per pair woken by every
    change of its cells.
    """
    digits = _digits_apart(r.allowed)  # (kept per table: most relations say more)
    if digits and any(i == j for i, j in r.pairs):  # a cell beside itself: a propagator
        return 0
    return digits


@lru_cache(maxsize=256)
def _digits_apart(allowed: tuple[int, ...]) -> int:
    """The digits a relation's table keeps from themselves, when that is all it forbids."""
    every = (1 << (len(allowed) - 1)) - 1
    digits = 0
    for a in range(1, len(allowed)):
        missing = every & ~allowed[a]
        if missing & ~(1 << (a - 1)):
            return 0
        digits |= missing
    return digits


def _relations(
    relations: list[Relation], units: list[tuple[int, ...]], n: int
) -> list[tuple[object, ...]]:
    """Relations as the layout reads them: pairs in a unit get the table less equals.

    Two cells that share a unit must differ anyway, and arc consistency on the joint
    table takes out more than on the relation's own: next to {2, 3}, a 2 or a 3 has no
    non-consecutive partner that differs from it.
    """
    peers = _peer_masks(tuple(units), n * n)
    out: list[tuple[object, ...]] = []
    for r in relations:
        # Each relation on its own: merged by table, a modular grid's lines made runs
        # of 16 pairs and more into shifts, and took 130 -> 161 guesses a puzzle.
        shared = [(i, j) for i, j in r.pairs if i != j and peers[i] >> j & 1]
        apart = [(i, j) for i, j in r.pairs if i == j or not peers[i] >> j & 1]
        if shared:
            differ = _less_equal(r.allowed)
            if differ != differ_table(n):  # else the units already say all it says
                out += _shifted(shared, differ, n)
        if apart:
            out += _shifted(apart, r.allowed, n)
    return out


@lru_cache(maxsize=256)
def _less_equal(allowed: tuple[int, ...]) -> tuple[int, ...]:
    """A relation's table without "equal": for its pairs in a unit, which must differ."""
    return (0, *(allowed[a] & ~(1 << (a - 1)) for a in range(1, len(allowed))))


@lru_cache(maxsize=64)
def _peer_masks(units: tuple[tuple[int, ...], ...], cells: int) -> tuple[int, ...]:
    """Per cell, the cells sharing a unit with it (itself too), as a bit mask."""
    peers = [0] * cells
    for unit in units:
        mask = sum(1 << i for i in unit)
        for i in unit:
            peers[i] |= mask
    return tuple(peers)


#: The fewest pairs one offset apart that go in as a shift rather than a propagator
#: each: a shift costs a few word operations per value at every step of the fixpoint,
#: a propagator only when one of its cells changes, but then it gathers each cell's
#: candidates digit by digit; from 16 pairs on the shift is faster (docs/design.md).
SHIFT_PAIRS = 16


def _shifted(
    pairs: list[tuple[int, int]], allowed: tuple[int, ...], n: int
) -> list[tuple[object, ...]]:
    """A relation's pairs as the layout reads them: runs of one offset as shifts.

    Pairs (a, b) whose b lies the same rows and columns from a (a non-consecutive
    grid's right-hand and lower neighbours, a knight's move one way) are one
    ``("shift", b - a, cells a, table)``, propagated over all its pairs at once by a
    few word operations per value (``FN(shifts)`` in ``_native_core.h``); the rest are
    ``("relation", pairs, table)``, a propagator per pair.
    """
    runs: dict[tuple[int, int], list[int]] = {}
    rest: list[tuple[int, int]] = []
    for a, b in pairs:
        if a == b:
            rest.append((a, b))
        else:
            runs.setdefault((b // n - a // n, b % n - a % n), []).append(a)
    out: list[tuple[object, ...]] = []
    for (dr, dc), cells in runs.items():
        if len(cells) >= SHIFT_PAIRS:
            out.append(("shift", dr * n + dc, tuple(cells), allowed))
        else:
            rest += [(a, a + dr * n + dc) for a in cells]
    if rest:
        out.append(("relation", rest, allowed))
    return out


def _unit_fits(cells: tuple[int, ...], n: int, full: int, cages: int) -> bool:
    """True when a unit (or cage) of ``cells`` fits the layout's unit arrays.

    A layout holds :data:`FULL_UNITS` units of n cells and as many cages as cells;
    beyond that (and for cells listed twice) the primitive is a propagator instead.
    """
    if len(set(cells)) != len(cells) or not 0 < len(cells) <= n:
        return False
    return (len(cells) < n or full < FULL_UNITS) and cages < n * n


def spec(p: Primitive, *, grouped: bool = True) -> tuple[object, ...]:
    """A primitive as the compiled layout reads it: a tuple ``(kind, ...)``.

    ``("relation", pairs, allowed)``, ``("allowed", cells, masks)``, ``("distinct",
    cells)``, ``("digitsets", cells, sets)``, ``("table", cells, tuples as bytes,
    count)``, ``("sum", cells, weights, targets, grouped)`` (``grouped``: bound its
    groups of cells that see each other; the fields before it are enough, grouped
    then), ``("automaton", cells, transitions
    as int32 bytes, states, accepting)``, ``("count", cells, values, counts)``,
    ``("choice", [[branch primitives], ...])``. The C side checks every field.
    """
    # (primitives are final classes: a type test, the common ones first)
    if type(p) is Count:
        return ("count", p.cells, p.values, p.counts)  # (any order: the C side takes bits)
    if type(p) is Relation:
        return ("relation", p.pairs, p.allowed)
    if type(p) is Sum:
        return ("sum", p.cells, [w for _, w in p.terms], p.targets, grouped)
    if type(p) is Automaton:
        return ("automaton", p.cells, *_moves(p.transitions, p.accepting))
    if type(p) is Table:
        return ("table", p.cells, _table_bytes(p.tuples), len(p.tuples))
    if type(p) is Allowed:
        return ("allowed", p.cells, p.masks)
    if type(p) is Distinct:
        return ("distinct", p.cells)
    if type(p) is DigitSets:
        return ("digitsets", p.cells, p.sets)
    if type(p) is Choice:
        return ("choice", [[spec(q) for q in branch] for branch in p.branches])
    raise TypeError(f"no compiled form for {type(p).__name__}")


@per_tuples
def _table_bytes(tuples: TupleList) -> bytes:
    """A table's tuples as the layout reads them, one byte a value, row after row.

    Worked out once for the tables that share a tuple list (a grid's between lines of
    one length): listing some 700 tuples a line was most of a between puzzle's time.
    """
    return bytes(chain.from_iterable(tuples))


@lru_cache(maxsize=256)
def _moves(
    transitions: tuple[tuple[int, ...], ...], accepting: frozenset[int]
) -> tuple[bytes, int, tuple[int, ...]]:
    """An automaton's transitions as int32 bytes, its states, its accepting states.

    Worked out once for the lines that share a machine (a grid's sandwich lines).
    """
    moves = array("i", [t for row in transitions for t in row]).tobytes()
    return moves, len(transitions), tuple(sorted(accepting))


#: The primitives whose only limit in a layout is their number of cells (:func:`beyond`).
_SIZED_ONLY = frozenset(PRIMITIVES) - {Choice, Table, Sum, Automaton}


def beyond(p: Primitive) -> str | None:
    """Why the compiled layout cannot hold ``p`` (a size past its limits), or None."""
    if isinstance(p, Choice):
        return next((why for b in p.branches for q in b if (why := beyond(q))), None)
    if len(p.cells) > MAX_PROP_CELLS:
        return f"a primitive over more than {MAX_PROP_CELLS} cells"
    if isinstance(p, Table) and (len(p.cells) > MAX_TABLE_CELLS or len(p.tuples) > 1 << 26):
        return f"a table over more than {MAX_TABLE_CELLS} cells"
    if isinstance(p, Sum) and (
        len(set(p.targets)) > 4096 or any(abs(w) > 1 << 31 for _, w in p.terms)
    ):
        return "a sum with more than 4,096 targets or a weight beyond 2**31"
    if isinstance(p, Automaton):
        states = len(p.transitions)
        if states > MAX_STATES or (len(p.cells) + 3) * -(-states // 64) > MAX_LAYERS:
            return "an automaton too large to walk"
    return None


@lru_cache(maxsize=64)
def allowed_masks(rules: Rules) -> bytes | None:
    """Each cell's allowed values (parity, given candidates) as uint32 masks, or None.

    The search narrows every cell to its mask before the givens go in; the bulk entry
    point takes no masks, so the batch sends such rules down the per-record path.
    """
    narrowing = [p for p in rules.primitives if isinstance(p, Allowed)]
    if not narrowing:
        return None
    masks = [(1 << rules.n) - 1] * rules.cells
    for p in narrowing:
        for i, mask in zip(p.cells, p.masks, strict=True):
            masks[i] &= mask
    return array("I", masks).tobytes()


def _seconds(time_limit: float | None) -> float:
    """A time limit as the C side takes it: negative for none, at least a nanosecond."""
    if time_limit is None or math.isinf(time_limit):
        return -1.0
    return max(time_limit, 1e-9)


class NativeBackend(Backend):
    """The compiled engine (``native``)."""

    name = "native"
    primitive_kinds: ClassVar[frozenset[type[Primitive]]] = frozenset(PRIMITIVES)

    @classmethod
    def takes(cls, primitive: Primitive) -> bool:
        """Every primitive, within the layout's size limits (:func:`beyond`)."""
        if type(primitive) in _SIZED_ONLY:  # asked of every primitive of every puzzle
            return len(primitive.cells) <= MAX_PROP_CELLS
        return super().takes(primitive) and beyond(primitive) is None

    @classmethod
    def refusal(cls, rules: Rules) -> str | None:
        """Why the engine cannot take ``rules``, or None.

        A side above 32, or a rule whose primitives pass the layout's limits (named,
        with the limit: an arrow whose circle reads as a number of 11 digits).
        """
        if rules.n > MAX_SIDE:
            return f"engine 'native' takes grids up to {MAX_SIDE}x{MAX_SIDE}, not {rules}"
        why = super().refusal(rules)
        if why is None:
            return None
        limit = next((b for _, prims in rules.compiled for p in prims if (b := beyond(p))), None)
        return f"{why} ({limit})" if limit else why

    #: Search nodes a puzzle may take before the search stops as if timed out (0: no
    #: cap). A batch sets it on an engine of its own to hand hard puzzles to ``sat``.
    budget: int = 0

    @property
    def clash_safe(self) -> bool:
        """Clashing givens end the search at once, with no solution."""
        return True

    def search(self, puzzle: Puzzle, limit: int, time_limit: float | None) -> Search:
        """Find up to ``limit`` solutions in one C call (Ctrl-C interrupts it).

        A search stopped by :attr:`budget` is ``timed_out`` with the stat ``budget``.
        """
        rules = puzzle.rules
        allowed = allowed_masks(rules) if rules.constraints else None
        budget = self.budget
        escalate = _escalate_at(rules)
        if budget and budget <= escalate:
            escalate = 0
        start = time.monotonic()
        status, count, grids, nodes, guesses = layout(rules).solve(
            bytes(puzzle.cells), limit, _seconds(time_limit), escalate or budget, allowed=allowed
        )
        escalated = bool(escalate) and status == BUDGET
        if escalated:
            # A hard killer: again, with the rule of 45's runs of units as sums and the
            # bands of diagonals (if it has none, on the same layout without the
            # escalation's budget).
            more_sums = implied_sums(rules, ESCALATE_SUM_CELLS) or diagonal_bands(rules)
            again = sums_layout(rules) if more_sums else layout(rules)
            left = None if time_limit is None else time_limit - (time.monotonic() - start)
            if left is None or left > 0:
                more = max(budget - nodes, 1) if budget else 0
                status, count, grids, more_nodes, more_guesses = again.solve(
                    bytes(puzzle.cells), limit, _seconds(left), more, allowed=allowed
                )
                nodes, guesses = nodes + more_nodes, guesses + more_guesses
            else:
                status = TIMEOUT
        cells = rules.cells
        stats = {"nodes": nodes, "guesses": guesses}
        if escalated:
            stats["escalated"] = 1
        if status == BUDGET:
            stats["budget"] = 1
        return Search(
            solutions=[tuple(grids[k : k + cells]) for k in range(0, len(grids), cells)],
            count=count,
            exhausted=status in (DONE, CLASH),
            timed_out=status in (TIMEOUT, BUDGET),
            stats=stats,
        )


@dataclass(frozen=True, slots=True)
class BlockResult:
    """What :func:`solve_block` found, one entry per puzzle of the block.

    Attributes:
        status: the search's end (:data:`DONE`, :data:`LIMIT`, :data:`TIMEOUT`,
            :data:`BUDGET`, :data:`CLASH`).
        count: solutions found (at most the limit).
        solutions: each puzzle's first solution (zeros when none).
        nodes: search states visited.
        guesses: branch choices.
    """

    status: np.ndarray
    count: np.ndarray
    solutions: np.ndarray
    nodes: np.ndarray
    guesses: np.ndarray


def solve_block(
    values: np.ndarray,
    rules: Rules,
    *,
    limit: int = 2,
    time_limit: float | None = None,
    budget: int = 0,
    band: bool = True,
) -> BlockResult:
    """Search every puzzle of ``values`` (P x cells, uint8 values 0..n) in one C call.

    ``time_limit`` (seconds) and ``budget`` (nodes, 0 for none) apply to each puzzle;
    the GIL is released for the whole call. ``band=False`` keeps classic 9x9 rules on
    the generic search instead of the band solver (for comparing the two). The
    solutions are not verified here: the caller verifies them
    (:func:`cpsudoku.datasets.bulk_logic.verify_block`).
    """
    import numpy as np

    block = np.ascontiguousarray(values, dtype=np.uint8)
    status, count, grids, nodes, guesses = layout(rules, band).solve_many(
        block, limit, _seconds(time_limit), budget
    )
    return BlockResult(
        np.frombuffer(status, np.uint8),
        np.frombuffer(count, np.uint8),
        np.frombuffer(grids, np.uint8).reshape(block.shape),
        np.frombuffer(nodes, np.uint32),
        np.frombuffer(guesses, np.uint32),
    )
