"""CP-SAT models of a puzzle: pure functions from rules or a puzzle to a ``CpModel``.

Two model kinds, both built from ``rules.unit_cells`` (the rules are data):

- ``"integer"``: one integer variable per cell, domain ``1..n``, and one
  ``add_all_different`` per unit. The textbook model; CP-SAT's presolve turns
  ``AllDifferent`` over small domains into Boolean clauses itself.
- ``"boolean"``: one Boolean per (cell, value), "cell ``i`` holds ``d``" (one-hot), with
  an exactly-one per cell and per (unit, value). The same clauses a SAT encoding has,
  handed to CP-SAT directly, so its presolve has nothing left to expand. A killer
  cage is its digit sets, as exactly-ones too (:func:`_add_cage`). It is written
  straight into the proto (:func:`write_boolean`), not through the ``CpModel`` API,
  which costs more than the solve for a puzzle with rules of its own.

Variable layout (fixed, so decoding needs no lookup table): in the integer model
variable ``i`` is cell ``i``; in the Boolean model variable ``i*n + d - 1`` is
"cell ``i`` holds ``d``" (a cage's set selectors come after the cells).

Givens are not constraints. In a self-contained model (:func:`build_model`, the export)
they are fixed domains: ``x_i in [v, v]``, or ``y_(i,v) in [1, 1]``. That is also what
makes the rules reusable: a backend builds the rules' model once per set of rules and,
per puzzle, narrows the givens' domains in place with :func:`set_domains`
(:func:`given_domains`), then widens them back (:func:`free_domains`). In the Boolean
model a given can instead be an *assumption* (:func:`given_literals`): one list set on
the shared proto and cleared afterwards, two Python calls into the proto instead of
four per given. Nothing else in the model depends on the puzzle.

>>> from cpsudoku import parse
>>> model = build_model(parse("1.343..2.3..2..3"), "boolean")
>>> len(model.proto.variables), len(model.proto.constraints)
(64, 64)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Literal, get_args

from ortools.sat.python import cp_model
from ortools.sat.python import cp_model_helper as cmh

from cpsudoku.encode.cnf import primitive_clauses, table_clauses
from cpsudoku.encode.sum_clauses import AuxMeaning, folded
from cpsudoku.model.constraints import digit_sets
from cpsudoku.model.constraints.cages import set_masks
from cpsudoku.model.implied import implied_cages
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

#: The two model kinds (see the module docstring).
ModelKind = Literal["integer", "boolean"]
KINDS: tuple[ModelKind, ...] = get_args(ModelKind)

#: One domain change: (variable index, lower bound, upper bound).
Domain = tuple[int, int, int]


def rules_model(rules: Rules, kind: ModelKind, *, named: bool = False) -> cp_model.CpModel:
    """The rules ``rules`` as a CP-SAT model without any givens.

    Args:
        rules: the rules; their ``unit_cells`` are the constraints.
        kind: ``"integer"`` (AllDifferent) or ``"boolean"`` (one-hot, exactly-one).
        named: give the variables readable names (``r1c2``, ``r1c2d5``). Off for
            solving: names only make the model bigger to copy and load.

    Killer cages come with the cages the rule of 45 implies
    (:func:`~cpsudoku.model.implied.implied_cages`): the same solutions, far less search.

    Raises:
        ValueError: an unknown kind.
    """
    n = rules.n
    model = cp_model.CpModel()
    if kind == "integer":
        cells = [
            model.new_int_var(1, n, f"r{i // n + 1}c{i % n + 1}" if named else "")
            for i in range(rules.cells)
        ]
        for unit in rules.unit_cells:
            model.add_all_different([cells[i] for i in unit])
        implied = [p for c in implied_cages(rules) for p in c.compile(n)]
        # Sums with whole units read as their totals (the rule of 45, fold_units).
        prims = folded((*rules.primitives, *implied), rules.unit_cells, n)
        _IntegerWriter(model, cells, n).add_all(prims)
    elif kind == "boolean":
        write_boolean(model.proto, rules, named=named)
    else:
        raise ValueError(f"unknown CP-SAT model kind {kind!r}; choose from: {', '.join(KINDS)}")
    return model


# ---- the Boolean model, written into the proto -----------------------------------------
#
# Through the ``CpModel`` API a constraint costs about 5 us of Python (a killer puzzle:
# 4-8 ms, more than its solve), and a new ``CpModel`` alone about 180 us. Here the
# model is written into the proto itself: a cached base copied in (into a proto that
# held a model before: about 20 us for 9x9, its storage reused), each further
# constraint added with its literals in one call (about 1 us), and new variables
# merged in from a cached proto holding that many (about 2 us for all of them).
# Measured alternative: protobuf text merged in one call parses at about 1 us per
# constraint, but writing the text costs as much again.


def write_boolean(proto: cmh.CpModelProto, rules: Rules, *, named: bool = False) -> None:
    """Make ``proto`` the Boolean model of ``rules`` (whatever it held before).

    Used by :func:`rules_model` and by the backend, which writes each new rule set
    into a proto it used before.
    """
    units = rules.units_only
    base = _BASES.get(units, named)
    if base is not None:
        proto.copy_from(base)
    else:
        proto.copy_from(_grid_base(rules.n, named))
        _add_units(proto, rules)
        _BASES.offer(units, named, proto)
    if rules.constraints:
        _add_constraints(proto, rules)


@lru_cache(maxsize=8)
def _grid_base(n: int, named: bool) -> cmh.CpModelProto:
    """The start of every Boolean model of side ``n``.

    Its variables, exactly one value per cell, each value once per row and per column.
    Never handed out: copied.
    """
    proto = cmh.CpModelProto()
    add_variable = proto.variables.add
    for k in range(n**3):
        variable = add_variable()
        if named:
            variable.name = f"r{k // n // n + 1}c{k // n % n + 1}d{k % n + 1}"
        variable.domain.extend((0, 1))
    add = proto.constraints.add
    for i in range(n * n):
        add().exactly_one.literals.extend(range(i * n, i * n + n))
    for r in range(n):
        for d in range(n):
            add().exactly_one.literals.extend(range(r * n * n + d, (r + 1) * n * n, n))
    for c in range(n):
        for d in range(n):
            add().exactly_one.literals.extend(range(c * n + d, n**3, n * n))
    return proto


@lru_cache(maxsize=4096)
def _pair_clauses(
    i: int, j: int, allowed: tuple[int, ...], differ: bool, n: int
) -> cmh.CpModelProto:
    """A proto holding only a pair's clauses: not (i holds a and j holds b), per pair.

    Kept per pair of cells and table, and merged into each model that has it (one
    call a pair): a kropki or XV puzzle's negative constraint is some 130 pairs of 16
    to 73 clauses each, which, written a clause at a time, took 7 ms of a puzzle's 12.
    """
    bad = [(a, a) for a in range(1, n + 1)] if differ else Relation((), allowed).forbidden()
    proto = cmh.CpModelProto()
    add = proto.constraints.add
    for a, b in bad:
        add().bool_or.literals.extend((-i * n - a, -j * n - b))
    return proto


@lru_cache(maxsize=256)
def _booleans(count: int) -> cmh.CpModelProto:
    """A proto holding only ``count`` Boolean variables, to merge into a model."""
    proto = cmh.CpModelProto()
    for _ in range(count):
        proto.variables.add().domain.extend((0, 1))
    return proto


class _Bases:
    """The Boolean models of unit sets (rules without their other constraints) met twice.

    A few are kept, the oldest dropped. A killer dataset's grid is then copied whole;
    a jigsaw layout met once is written and costs no copy that would not be used
    again. Shared by every engine of the process, hence the lock.
    """

    KEPT = 16

    def __init__(self) -> None:
        self.protos: dict[tuple[Rules, bool], cmh.CpModelProto] = {}
        self.seen: dict[tuple[Rules, bool], None] = {}
        self.lock = threading.Lock()

    def get(self, units: Rules, named: bool) -> cmh.CpModelProto | None:
        """The kept model of ``units``, or None. Never handed out: copied from."""
        return self.protos.get((units, named))

    def offer(self, units: Rules, named: bool, proto: cmh.CpModelProto) -> None:
        """Keep a copy of ``proto``, the model of ``units``, the second time it is made."""
        key = (units, named)
        with self.lock:
            if key not in self.seen:
                if len(self.seen) >= self.KEPT:
                    del self.seen[next(iter(self.seen))]
                self.seen[key] = None
                return
            kept = cmh.CpModelProto()
            kept.copy_from(proto)
            if len(self.protos) >= self.KEPT:
                del self.protos[next(iter(self.protos))]
            self.protos[key] = kept


_BASES = _Bases()


def _add_units(proto: cmh.CpModelProto, rules: Rules) -> None:
    """Each value once per unit other than the rows and columns (the grid base's).

    At most once in a unit shorter than n (an extra region).
    """
    n = rules.n
    add = proto.constraints.add
    for unit in rules.units[2 * n :]:  # the rows and columns come first (not by name:
        full = len(unit.cells) == n  # an extra region may be called anything)
        for d in range(n):
            literals = [i * n + d for i in unit.cells]
            (add().exactly_one if full else add().at_most_one).literals.extend(literals)


def _add_constraints(proto: cmh.CpModelProto, rules: Rules) -> None:
    """The rules' primitives (and the implied cages) on the one-hot cells.

    Literals a rule fixes (a value taken from a cell, a one-cell cage's digit) are
    collected and fixed by one ``bool_and``; not by domains, which the backend sets
    and resets for the givens. Relations, allowed values, different digits, digit
    sets, tables and counts in the model's own forms; rules with sums, automata or
    choices get the integer model by default (:func:`needs_integer`), and when the
    Boolean one is asked for, a sum is a linear constraint over the one-hot literals
    and an automaton or a choice the clauses the CNF encoder writes for it (and an
    at-most-one per layer of an automaton's states, so that the cells fix them).
    """
    n = rules.n
    add = proto.constraints.add
    fixed: list[int] = []
    first = count = len(proto.variables)
    implied = [p for c in implied_cages(rules) for p in c.compile(n)]
    for p in folded((*rules.primitives, *implied), rules.unit_cells, n):
        if isinstance(p, DigitSets):
            count = _add_cage(add, fixed, p, n, count)
        elif isinstance(p, Table):
            count = _add_table(add, p, n, count)
        elif isinstance(p, Allowed):
            for i, mask in zip(p.cells, p.masks, strict=True):
                fixed.extend(-i * n - d - 1 for d in range(n) if not mask >> d & 1)
        elif isinstance(p, Distinct):
            for d in range(n):
                add().at_most_one.literals.extend([i * n + d for i in p.cells])
        elif isinstance(p, Relation):
            for i, j in p.pairs:
                proto.merge_from(_pair_clauses(i, j, p.allowed, p.differ, n))
        elif isinstance(p, Count):
            linear = add().linear
            linear.vars.extend(i * n + d for i in p.cells for d in range(n) if p.values >> d & 1)
            linear.coeffs.extend([1] * len(linear.vars))
            linear.domain.extend(_domain(p.counts))
        elif isinstance(p, Sum):  # a cell's value is sum(d * holds(cell, d))
            linear = add().linear
            for i, w in p.terms:
                linear.vars.extend(range(i * n, i * n + n))
                linear.coeffs.extend(w * d for d in range(1, n + 1))
            linear.domain.extend(_domain(p.targets))
        elif isinstance(p, Automaton | Choice):
            # Asked for the Boolean model (by default such rules get the integer one):
            # the primitive's clauses, as the CNF encoder writes them, over the same
            # literals (CNF variable v is variable v - 1 here).
            clauses: list[tuple[int, ...]] = []
            states: list[AuxMeaning] | None = [] if isinstance(p, Automaton) else None
            count = primitive_clauses(p, rules, count, clauses, meanings=states)
            for clause in clauses:
                add().bool_or.literals.extend(v - 1 if v > 0 else v for v in clause)
            # At most one state per layer (the clauses say at least one): the cells
            # then fix every state, so an enumeration meets each grid once.
            layers: dict[object, list[int]] = {}
            for var, _, (k, _state) in states or ():
                layers.setdefault(k, []).append(var - 1)
            for literals in layers.values():
                add().at_most_one.literals.extend(literals)
        else:
            raise ValueError(f"the Boolean CP-SAT model has no form of {type(p).__name__}")
    if count > first:
        proto.merge_from(_booleans(count - first))
    if fixed:
        add().bool_and.literals.extend(fixed)


def needs_integer(rules: Rules) -> bool:
    """True when the rules hold a primitive only the integer model writes.

    Sums whose digits may repeat (little killers, arrows: CP-SAT's LP relaxation reads
    the linear sums well), automata (a state variable per layer and a table per
    step) and choices (constraints enforced by a literal per branch).
    """
    return any(isinstance(p, Sum | Automaton | Choice) for p in rules.primitives)


def _domain(values: Iterable[int]) -> list[int]:
    """A proto domain (flat list of closed intervals) holding exactly ``values``."""
    out: list[int] = []
    for v in sorted(values):
        if out and out[-1] == v - 1:
            out[-1] = v
        else:
            out.extend((v, v))
    return out


def _add_cage(add: Callable[[], Any], fixed: list[int], cage: DigitSets, n: int, count: int) -> int:
    """Digit sets (a cage, a renban) on the one-hot cells; returns the next free variable.

    A one-cell cage fixes its digit (``fixed``). A two-cell cage with sum s says, per
    digit d, "the first cell holds d exactly when the second holds s - d": one
    exactly-one of "first holds d" and "second does not hold s - d", which keeps the
    two cells' candidates matched pair by pair (the digit sets below do not: killer
    sample, 14 conflicts a puzzle instead of 35, and a fifth less solve time).

    Any other cage, with digit sets S1..Sk (its sum's sets, a renban's runs), gets for
    k > 1 a selector per set (variables from ``count``) and exactly one of them; then
    per digit d, exactly one of: the cage's cells holding d, and the selectors of the
    sets without d. So the chosen set's digits are each in the cage once and no other
    digit is: the digits differ and make the sum. A digit in every set needs no
    selector; one in no set leaves the cage's cells (``fixed`` false). This is the
    linear equality "cells holding d = chosen sets holding d" written as an
    exactly-one (the selectors add up to one), which CP-SAT loads as clauses: as
    linear constraints they cost about 2.4 us each to load (killer sample: 1.5 ms a
    solve, 1.2 ms as exactly-ones).
    """
    bases = [i * n for i in cage.cells]
    total = _pair_sum(cage.sets, n) if len(bases) == 2 else None
    if total is not None:
        a, b = bases
        pairs, outs = _pair_plan(total, n)
        for d, e in pairs:
            add().exactly_one.literals.extend((a + d, -b - e - 1))
        for d in outs:
            fixed.extend((-a - d - 1, -b - d - 1))
        return count
    sets, rows, outs = _cage_plan(cage.sets, n)
    for d in outs:
        fixed.extend([-b - d - 1 for b in bases])
    if len(bases) == 1 and sets == 1:
        fixed.append(bases[0] + rows[0][0])
        return count
    if sets > 1:
        add().exactly_one.literals.extend(range(count, count + sets))
    for d, without in rows:
        literals = [b + d for b in bases]
        literals.extend([count + j for j in without])
        add().exactly_one.literals.extend(literals)
    return count + sets if sets > 1 else count


@lru_cache(maxsize=4096)
def _pair_sum(sets: tuple[int, ...], n: int) -> int | None:
    """The sum s when ``sets`` are all the pairs of different digits adding up to s."""
    if not sets:
        return None
    total = sum(values_of(sets[0]))
    return total if set(sets) == set(set_masks(tuple(digit_sets(n, 2, total)))) else None


@lru_cache(maxsize=256)
def _pair_plan(total: int, n: int) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """A two-cell cage's digit pairs, and the digits in no pair (all 0-based).

    A pair is (d, total - d) where both are digits 1..n and they differ.
    """
    pairs = tuple((d - 1, total - d - 1) for d in range(1, n + 1) if 1 <= total - d <= n)
    pairs = tuple((d, e) for d, e in pairs if d != e)
    return pairs, tuple(sorted(set(range(n)) - {d for d, _ in pairs}))


@lru_cache(maxsize=4096)
def _cage_plan(
    sets: tuple[int, ...], n: int
) -> tuple[int, tuple[tuple[int, tuple[int, ...]], ...], tuple[int, ...]]:
    """What digit sets (masks) make, worked out once per sets.

    The number of sets; per digit (0-based) some set holds, that digit and the sets
    (by number) without it; and the digits no set holds.
    """
    rows = []
    outs = []
    for d in range(n):
        without = tuple(k for k, mask in enumerate(sets) if not mask >> d & 1)
        if len(without) < len(sets):
            rows.append((d, without if len(sets) > 1 else ()))
        else:
            outs.append(d)
    return len(sets), tuple(rows), tuple(outs)


def _add_table(add: Callable[[], Any], table: Table, n: int, count: int) -> int:
    """A table on the one-hot cells; returns the next free variable.

    Up to three cells: the CNF encoder's clauses of its forbidden tuples, grouped
    (:func:`~cpsudoku.encode.cnf.table_clauses`), no variable added: a between line's
    inner cell is a clause per values of its ends, where a selector per allowed tuple
    made the model's writing most of a puzzle's time (0.1 of 0.13 s over six puzzles
    of between lines). More cells: a selector per allowed tuple, exactly one chosen;
    a chosen tuple's values are held (``bool_or(not s, x)``), and a cell holding a
    value chooses a tuple giving it that value.
    """
    if len(table.cells) <= 3:
        clauses: list[tuple[int, ...]] = []
        table_clauses(table, n, 0, clauses)
        for clause in clauses:  # CNF variable v is variable v - 1 here
            add().bool_or.literals.extend(v - 1 if v > 0 else v for v in clause)
        return count
    selectors = list(range(count, count + len(table.tuples)))
    add().exactly_one.literals.extend(selectors)
    having: dict[tuple[int, int], list[int]] = {}
    for s, t in zip(selectors, table.tuples, strict=True):
        for i, v in zip(table.cells, t, strict=True):
            add().bool_or.literals.extend((-s - 1, i * n + v - 1))
            having.setdefault((i, v), []).append(s)
    for i in table.cells:
        for v in range(1, n + 1):
            add().bool_or.literals.extend((-(i * n + v - 1) - 1, *having.get((i, v), ())))
    return count + len(selectors)


@lru_cache(maxsize=1024)
def _automaton_plan(
    transitions: tuple[tuple[int, ...], ...], accepting: frozenset[int], length: int, n: int
) -> tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...] | None:
    """Per cell of an automaton's line: its next layer's states, and its table's rows.

    The states (sorted) when the layer has more than one, else ``()`` (a constant,
    left out of the model); the rows ``(state before, value, state after)`` with a
    constant's column left out. None when no line reaches an accepting state. It
    depends on the line's length only: every line of a shape shares it.
    """
    layers = Automaton((), transitions, accepting).layers([(1 << n) - 1] * length)
    if layers is None:
        return None
    plan = []
    for k in range(length):
        here = layers[k + 1]
        steps = [(q, d, t) for q in layers[k] for d, t in enumerate(transitions[q], 1) if t in here]
        cut_before, cut_after = len(layers[k]) <= 1, len(here) <= 1
        rows = tuple(
            tuple(x for x, cut in zip(step, (cut_before, False, cut_after), strict=True) if not cut)
            for step in steps
        )
        plan.append((() if cut_after else tuple(sorted(here)), rows))
    return tuple(plan)


class _IntegerWriter:
    """The primitives on the integer cells (one variable per cell, domain 1..n).

    Each primitive in CP-SAT's own form: ``!=`` or forbidden pairs for a relation,
    allowed values as domains, ``AllDifferent`` (with a linear sum, or largest less
    smallest, for digit sets of a sum or of runs; any other digit sets through the
    cells' one-hot literals), allowed assignments for a table, a linear sum, an
    automaton's states and a table per step (:meth:`_automaton`), a count over the
    cells' one-hot literals. A choice gets a literal per branch, at least one true,
    each branch's constraints enforced by its literal.
    """

    def __init__(self, model: cp_model.CpModel, cells: Sequence[cp_model.IntVar], n: int) -> None:
        self.model = model
        self.cells = cells
        self.n = n
        self._onehot: dict[int, list[cp_model.IntVar]] = {}

    def add_all(self, prims: Iterable[Primitive]) -> None:
        """Add every primitive."""
        for p in prims:
            self.add(p)

    def onehot(self, i: int) -> list[cp_model.IntVar]:
        """Cell ``i``'s literals "holds d" (d = 1..n), channelled once to its variable."""
        found = self._onehot.get(i)
        if found is None:
            found = [self.model.new_bool_var("") for _ in range(self.n)]
            self.model.add_map_domain(self.cells[i], found, 1)
            self._onehot[i] = found
        return found

    def add(self, p: Primitive, when: Sequence[Any] = ()) -> None:
        """Add one primitive, enforced by the literals ``when`` (a choice's branch)."""
        model, cells = self.model, self.cells
        made: list[Any] = []
        if isinstance(p, Relation):
            for i, j in p.pairs:
                if p.differ:
                    made.append(model.add(cells[i] != cells[j]))
                else:
                    made.append(
                        model.add_forbidden_assignments([cells[i], cells[j]], p.forbidden())
                    )
        elif isinstance(p, Allowed):
            for i, mask in zip(p.cells, p.masks, strict=True):
                allowed = cp_model.Domain.from_values(values_of(mask))
                made.append(model.add_linear_expression_in_domain(cells[i], allowed))
        elif isinstance(p, Distinct):
            made.append(model.add_all_different([cells[i] for i in p.cells]))
        elif isinstance(p, DigitSets):
            made.extend(self._digit_sets(p, when))
        elif isinstance(p, Table):
            made.append(model.add_allowed_assignments([cells[i] for i in p.cells], p.tuples))
        elif isinstance(p, Sum):
            expr = sum(w * cells[i] for i, w in p.terms)
            made.append(
                model.add_linear_expression_in_domain(expr, cp_model.Domain.from_values(p.targets))
            )
        elif isinstance(p, Automaton):
            made.extend(self._automaton(p))
        elif isinstance(p, Count):
            holding = [self.onehot(i)[d - 1] for i in p.cells for d in values_of(p.values)]
            made.append(
                model.add_linear_expression_in_domain(
                    sum(holding), cp_model.Domain.from_values(sorted(p.counts))
                )
            )
        elif isinstance(p, Choice):
            branches = [model.new_bool_var("") for _ in p.branches]
            made.append(model.add_bool_or(branches))
            for lit, branch in zip(branches, p.branches, strict=True):
                for q in branch:
                    self.add(q, (*when, lit))
        else:
            raise ValueError(f"the integer CP-SAT model has no form of {type(p).__name__}")
        if when:
            for ct in made:
                ct.only_enforce_if(list(when))

    def _automaton(self, p: Automaton) -> list[Any]:
        """An automaton's run: its state after each cell, a table per step.

        A variable per layer of more than one state (the states reachable from the
        start from which an accepting end stays reachable), and per cell the allowed
        (state before, value, state after) triples. The automaton is deterministic, so
        the cells fix every state and an enumeration meets each grid once. CP-SAT's
        own ``add_automaton`` does not: its expansion adds variables the cells leave
        free, and the enumeration met grids many times over (docs/design.md); it also
        refuses an automaton without accepting states, which is here a constraint no
        grid keeps.
        """
        model, n = self.model, self.n
        plan = _automaton_plan(p.transitions, p.accepting, len(p.cells), n)
        if plan is None:  # no line reaches an accepting state
            return [model.add_bool_or([])]
        made = []
        before: cp_model.IntVar | None = None  # None: a layer of one state
        for i, (here, rows) in zip(p.cells, plan, strict=True):
            after = None
            if here:
                after = model.new_int_var_from_domain(cp_model.Domain.from_values(here), "")
            columns = [self.cells[i]]
            if before is not None:
                columns.insert(0, before)
            if after is not None:
                columns.append(after)
            made.append(model.add_allowed_assignments(columns, rows))
            before = after
        return made

    def _digit_sets(self, p: DigitSets, when: Sequence[Any]) -> list[Any]:
        """Different digits forming one of the sets: AllDifferent and the sets' shape."""
        model, n = self.model, self.n
        cells = [self.cells[i] for i in p.cells]
        made = [model.add_all_different(cells)]
        k = len(cells)
        sums = {sum(values_of(m)) for m in p.sets}
        if len(sums) == 1 and set(p.sets) == set(set_masks(tuple(digit_sets(n, k, *sums)))):
            made.append(model.add(sum(cells) == next(iter(sums))))
        elif set(p.sets) == set(_run_masks(n, k)):
            high, low = model.new_int_var(1, n, ""), model.new_int_var(1, n, "")
            made.append(model.add_max_equality(high, cells))
            made.append(model.add_min_equality(low, cells))
            made.append(model.add(high - low == k - 1))
        else:  # any sets: a selector per set, its digits each in the cage
            chosen = [model.new_bool_var("") for _ in p.sets]
            made.append(model.add_exactly_one(chosen))
            for d in range(1, n + 1):
                holders = [self.onehot(i)[d - 1] for i in p.cells]
                having = [c for c, m in zip(chosen, p.sets, strict=True) if m >> (d - 1) & 1]
                made.append(model.add(sum(holders) == sum(having)))
        return made


@lru_cache(maxsize=256)
def _run_masks(n: int, k: int) -> tuple[int, ...]:
    """The masks of the runs of ``k`` consecutive digits of 1..n."""
    return tuple(((1 << k) - 1) << start for start in range(n - k + 1))


def given_domains(puzzle: Puzzle, kind: ModelKind) -> list[Domain]:
    """The domain changes that fix the givens of ``puzzle`` in a :func:`rules_model`."""
    if kind == "integer":
        return [(i, v, v) for i, v in enumerate(puzzle.cells) if v]
    n = puzzle.n
    return [(i * n + v - 1, 1, 1) for i, v in enumerate(puzzle.cells) if v]


def given_literals(puzzle: Puzzle) -> list[int]:
    """The givens of ``puzzle`` as literals of the Boolean model, for ``assumptions``."""
    n = puzzle.n
    return [i * n + v - 1 for i, v in enumerate(puzzle.cells) if v]


def free_domains(puzzle: Puzzle, kind: ModelKind) -> list[Domain]:
    """The domain changes that undo :func:`given_domains` (back to the rules' domains)."""
    if kind == "integer":
        n = puzzle.n
        return [(i, 1, n) for i, v in enumerate(puzzle.cells) if v]
    n = puzzle.n
    return [(i * n + v - 1, 0, 1) for i, v in enumerate(puzzle.cells) if v]


def set_domains(proto: cp_model.CpModelProto, changes: Iterable[Domain]) -> None:
    """Set each listed variable's domain to one interval, in place.

    This is the one mutating helper here: it lets a backend reuse one copy of the
    rules for every puzzle instead of building or copying a model per puzzle.
    """
    variables = proto.variables
    for index, low, high in changes:
        domain = variables[index].domain
        domain[0] = low
        domain[1] = high


def build_model(
    puzzle: Puzzle, kind: ModelKind = "integer", *, named: bool = False
) -> cp_model.CpModel:
    """A fresh model of ``puzzle``: the rules plus the givens as fixed domains."""
    model = rules_model(puzzle.rules, kind, named=named)
    set_domains(model.proto, given_domains(puzzle, kind))
    return model


def sample_model(puzzle: Puzzle) -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    """The model as the OR-Tools Sudoku sample builds it, for the textbook baseline.

    A new model per puzzle: one ``new_int_var(1, n)`` per cell, ``add_all_different``
    per unit (and per killer cage, with a linear sum; the other rules as the integer
    model writes them), and each given as an equality constraint ``x == v``. Returns
    the model and the cell variables in cell order.
    """
    g = puzzle.rules
    n = g.n
    model = cp_model.CpModel()
    cells = [model.new_int_var(1, n, f"cell{i}") for i in range(g.cells)]
    for unit in g.unit_cells:
        model.add_all_different([cells[i] for i in unit])
    # The other rules as the integer model writes them (a killer cage: AllDifferent
    # and a linear sum), without the implied cages.
    _IntegerWriter(model, cells, n).add_all(g.primitives)
    for i, v in enumerate(puzzle.cells):
        if v:
            model.add(cells[i] == v)
    return model, cells


def decode(
    values: Sequence[int],
    rules: Rules,
    kind: ModelKind,
    puzzle: Puzzle | None = None,
) -> tuple[int, ...]:
    """The grid (cell values in cell order) held by a solution of the model.

    Args:
        values: the solution's values of the model's variables, in variable order: a
            list, or ``CpSolverResponse.solution`` itself (see :func:`solution_text`);
            variables after the cells (e.g. those an exclusion added) are ignored.
        rules: the puzzle's rules.
        kind: the model kind the values belong to.
        puzzle: the puzzle that was solved; its givens are taken as they are.

    A cell of the Boolean model with no value set decodes as 0, which the verifier
    rejects: a wrong solution is never papered over here.
    """
    cells = [0] * rules.cells if puzzle is None else list(puzzle.cells)
    open_cells = [i for i, v in enumerate(cells) if not v]
    text = solution_text(values)
    n = rules.n
    if kind == "integer":
        if text is not None:
            numbers = text[1:-1].split(",")
            for i in open_cells:
                cells[i] = int(numbers[i])
        else:
            for i in open_cells:
                cells[i] = values[i]
        return tuple(cells)
    if text is not None and len(text) == 3 * len(values):
        # All values are one digit: "[0, 1, 0, ...]", value k at position 1 + 3k.
        digits = text[1::3]
        for i in open_cells:
            cells[i] = digits.find("1", i * n, i * n + n) - i * n + 1
        return tuple(cells)
    for i in open_cells:
        for d in range(n):
            if values[i * n + d]:
                cells[i] = d + 1
                break
    return tuple(cells)


def solution_text(values: Sequence[int]) -> str | None:
    """A protobuf repeated field's values as its text ``"[v0, v1, ...]"``, else None.

    Reading a repeated field element by element is a Python call into C++ each
    (about half a microsecond: more than a whole easy solve for the ``n**3`` values of
    a Boolean solution), while ``str()`` of the field renders them all in one call.
    Lists and tuples (and any field whose text does not look like that) give None.
    """
    if isinstance(values, list | tuple):
        return None
    text = str(values)
    if not (text.startswith("[") and text.endswith("]")):
        return None
    if text.count(",") != max(len(values) - 1, 0):
        return None
    return text


def add_exclusion(
    model: cp_model.CpModel, puzzle: Puzzle, solution: Sequence[int], kind: ModelKind
) -> None:
    """Forbid ``solution``: at least one empty cell of ``puzzle`` must differ from it.

    Only the empty cells are named (the givens are fixed anyway), and only cell
    variables, so the count of solutions is a count of grids. In the Boolean model
    this is one clause over "cell ``i`` does not hold ``s_i``"; in the integer model
    each empty cell gets a literal ``b_i => x_i != s_i``, and one clause over them.

    Raises:
        ValueError: the puzzle has no empty cell, so nothing can differ.
    """
    empty = [i for i, v in enumerate(puzzle.cells) if not v]
    if not empty:
        raise ValueError("a complete grid has no other solution to look for")
    n = puzzle.n
    if kind == "boolean":
        literals = [
            model.get_bool_var_from_proto_index(i * n + solution[i] - 1).negated() for i in empty
        ]
    else:
        literals = []
        for i in empty:
            differs = model.new_bool_var("")
            model.add(model.get_int_var_from_proto_index(i) != solution[i]).only_enforce_if(differs)
            literals.append(differs)
    model.add_bool_or(literals)


def to_proto_text(puzzle: Puzzle, kind: ModelKind = "integer") -> str:
    """The model of ``puzzle`` in protobuf text format, for OR-Tools' own tools.

    The integer (AllDifferent) model by default: the compact, readable one. Variables
    are named ``r<row>c<col>`` (``r<row>c<col>d<value>`` in the Boolean model), 1-based.
    The text parses with ``google.protobuf.text_format`` into a ``CpModelProto``.
    """
    return str(build_model(puzzle, kind, named=True).proto)
