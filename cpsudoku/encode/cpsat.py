"""CP-SAT models of a puzzle: pure functions from rules or a puzzle to a ``CpModel``.

Two model kinds, both built from ``rules.unit_cells`` (the rules are data):

- ``"integer"``: one integer variable per cell, domain ``1..n``, and one
  ``add_all_different`` per unit. The textbook model; CP-SAT's presolve turns
  ``AllDifferent`` over small domains into Boolean clauses itself.
- ``"boolean"``: one Boolean per (cell, value), "cell ``i`` holds ``d``" (one-hot), with
  ``add_exactly_one`` per cell and per (unit, value). The same clauses a SAT encoding
  has, handed to CP-SAT directly, so its presolve has nothing left to expand.

Variable layout (fixed, so decoding needs no lookup table): in the integer model
variable ``i`` is cell ``i``; in the Boolean model variable ``i*n + d - 1`` is
"cell ``i`` holds ``d``".

Givens are not constraints. In a self-contained model (:func:`build_model`, the export)
they are fixed domains: ``x_i in [v, v]``, or ``y_(i,v) in [1, 1]``. That is also what
makes the rules reusable: a backend builds :func:`rules_model` once per set of rules and,
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

from collections.abc import Iterable, Sequence
from typing import Any, Literal, get_args

from ortools.sat.python import cp_model

from cpsudoku.model.constraints import Cage, CellValues, PairRule, Renban
from cpsudoku.model.implied import implied_cages
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.sums import LinearSum, Sandwich

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
        for cage in (*_cages(rules), *implied_cages(rules)):
            model.add_all_different([cells[i] for i in cage.cells])
            _add_digit_sets_int(model, [cells[i] for i in cage.cells], cage, n)
        _add_pair_rules_int(model, cells, rules)
        _add_sums(model, cells, rules, None)
    elif kind == "boolean":
        holds = [
            model.new_bool_var(f"r{k // n // n + 1}c{k // n % n + 1}d{k % n + 1}" if named else "")
            for k in range(rules.cells * n)
        ]
        for i in range(rules.cells):
            model.add_exactly_one(holds[i * n : (i + 1) * n])
        for unit in rules.unit_cells:
            # A unit of n cells holds each value once; a shorter one (an extra region)
            # only never twice.
            add = model.add_exactly_one if len(unit) == n else model.add_at_most_one
            for d in range(n):
                add([holds[i * n + d] for i in unit])
        for cage in (*_cages(rules), *implied_cages(rules)):
            for d in range(n):
                model.add_at_most_one([holds[i * n + d] for i in cage.cells])
            if isinstance(cage, Renban):  # one run chosen; each digit of it in the line
                runs = [model.new_bool_var("") for _ in cage.combinations(n)]
                model.add_exactly_one(runs)
                for run, digits in zip(runs, cage.combinations(n), strict=True):
                    for d in digits:
                        model.add_bool_or(
                            [holds[i * n + d - 1] for i in cage.cells]
                        ).only_enforce_if(run)
            elif cage.total is not None:
                model.add(
                    sum((d + 1) * holds[i * n + d] for i in cage.cells for d in range(n))
                    == cage.total
                )
        for values in rules.constraints:
            if isinstance(values, CellValues):
                for i, mask in values.masks():
                    for d in range(n):
                        if not mask >> d & 1:
                            model.add(holds[i * n + d] == 0)
        for rule in _pair_rules(rules):
            clashes = rule.clashes(n)
            for i, j in rule.pairs:
                for a, b in clashes:
                    model.add_bool_or([holds[i * n + a - 1].Not(), holds[j * n + b - 1].Not()])
        if any(isinstance(c, LinearSum | Sandwich) for c in rules.constraints):
            exprs = [sum((d + 1) * holds[i * n + d] for d in range(n)) for i in range(rules.cells)]
            _add_sums(model, exprs, rules, holds)
    else:
        raise ValueError(f"unknown CP-SAT model kind {kind!r}; choose from: {', '.join(KINDS)}")
    return model


def _cages(rules: Rules) -> list[Cage]:
    """The rules' killer cages (and a check that every other kind has a form here)."""
    known = Cage | PairRule | CellValues | LinearSum | Sandwich
    other = [c for c in rules.constraints if not isinstance(c, known)]
    if other:
        kinds = sorted({c.kind for c in other})
        raise ValueError(f"the CP-SAT models have no form of {', '.join(kinds)} constraints")
    return [c for c in rules.constraints if isinstance(c, Cage)]


def _add_digit_sets_int(
    model: cp_model.CpModel, cells: list[cp_model.IntVar], cage: Cage, n: int
) -> None:
    """A cage's sum, or a renban's run (its largest less its smallest), on integer cells."""
    if isinstance(cage, Renban):
        high, low = model.new_int_var(1, n, ""), model.new_int_var(1, n, "")
        model.add_max_equality(high, cells)
        model.add_min_equality(low, cells)
        model.add(high - low == len(cells) - 1)
    elif cage.total is not None:
        model.add(sum(cells) == cage.total)


def _add_sums(
    model: cp_model.CpModel,
    values: Sequence[Any],
    rules: Rules,
    holds: Sequence[cp_model.IntVar] | None,
) -> None:
    """Sums with repeats (little killers, arrows) and sandwiches, on either model.

    ``values[i]`` is cell ``i``'s value as a linear expression (the integer variable,
    or the one-hot sum). A sandwich has, for each placement of its 1 and n, the sum of
    the cells between enforced by that placement: the literals "cell holds 1" and
    "cell holds n" are the one-hot variables, or made for the integer model.
    """
    n = rules.n
    flags: dict[tuple[int, int], Any] = {}

    def holds_value(i: int, v: int) -> Any:
        if holds is not None:
            return holds[i * n + v - 1]
        if (i, v) not in flags:
            flag = model.new_bool_var("")
            model.add(values[i] == v).only_enforce_if(flag)
            model.add(values[i] != v).only_enforce_if(flag.Not())
            flags[i, v] = flag
        return flags[i, v]

    for rule in rules.constraints:
        if isinstance(rule, LinearSum):
            model.add(sum(w * values[i] for i, w in rule.terms) == rule.target)
        elif isinstance(rule, Sandwich):
            cells = rule.cells
            for p in range(n):
                for q in range(p + 1, n):
                    for a, b in ((1, n), (n, 1)):
                        ends = [holds_value(cells[p], a), holds_value(cells[q], b)]
                        if q == p + 1:  # neighbours: nothing between, a sum of 0
                            if rule.total:
                                model.add_bool_or([e.Not() for e in ends])
                            continue
                        between = sum(values[i] for i in cells[p + 1 : q])
                        model.add(between == rule.total).only_enforce_if(ends)


def _pair_rules(rules: Rules) -> list[PairRule]:
    """The rules over pairs of cells (anti-knight, anti-king, non-consecutive)."""
    return [c for c in rules.constraints if isinstance(c, PairRule)]


def _add_pair_rules_int(
    model: cp_model.CpModel, cells: Sequence[cp_model.IntVar], rules: Rules
) -> None:
    """The integer model's pair rules and allowed values.

    Related cells: ``!=`` where they only differ, else the value pairs forbidden; cells
    with allowed values (parity, given candidates): those values only.
    """
    for rule in rules.constraints:
        if isinstance(rule, CellValues):
            for i, mask in rule.masks():
                values = [d for d in range(1, rules.n + 1) if mask >> (d - 1) & 1]
                model.add_allowed_assignments([cells[i]], [(v,) for v in values])
    for rule in _pair_rules(rules):
        clashes = rule.clashes(rules.n)
        for i, j in rule.pairs:
            if rule.differ:
                model.add(cells[i] != cells[j])
            else:
                model.add_forbidden_assignments([cells[i], cells[j]], clashes)


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
    for cage in _cages(g):  # the killer sample: AllDifferent and a linear sum per cage
        model.add_all_different([cells[i] for i in cage.cells])
        _add_digit_sets_int(model, [cells[i] for i in cage.cells], cage, n)
    _add_pair_rules_int(model, cells, g)
    _add_sums(model, cells, g, None)  # little killers, arrows, sandwiches: as in rules_model
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
