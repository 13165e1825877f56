"""Clauses along a line (sums, automata, counts), checked under declared variable meanings.

Little killers and arrows compile to :class:`~cpsudoku.model.primitives.Sum`, clues
read along a line (sandwiches...) to :class:`~cpsudoku.model.primitives.Automaton`,
and counts of values to :class:`~cpsudoku.model.primitives.Count`; the CNF writes each
as a layered diagram with auxiliary variables, and a clause over them reaches across
up to n cells: enumerating those cells' values, as :mod:`cpsudoku.evidence.plain` does
for cages, does not finish for a 9-cell chain. Instead, the certificate's manifest says
what each auxiliary variable *means*, a statement about the grid, for primitive ``p``
of constraint ``j`` (:attr:`~cpsudoku.model.rules.Rules.compiled`):

- ``partial-sum [v, k, t]``: the weighted sum of the first ``k`` terms of the sum is
  ``t``;
- ``automaton-state [v, k, q]``: after reading the first ``k`` cells of its line the
  automaton is in state ``q``;
- ``count [v, k, c]``: ``c`` of the first ``k`` cells hold a value of the count's set.

Nothing else in the manifest is taken on trust. Each meaning is a function of the
grid, so if every clause is true in every grid that keeps the rules and the givens,
each auxiliary variable set to its meaning's value there, then adding the clauses
rules out no such grid: that is what :meth:`LayeredClauses.holds` shows, clause by
clause, by a small search for a falsifying grid over a *relaxation* of the rules
(only the one primitive the clause speaks of, and the givens): the states a layer can
be in are those reachable from the start *and* from which an accepting end stays
reachable, each cell taking its given or any of 1..n; the search runs along the line
over the layers and cells the clause names only (one step for every clause the
encoder writes), each fixed or excluded as the clause's literals say. The relaxation
admits every grid that keeps the rules, so "no falsifying assignment of the
relaxation" is a proof; it may fail to show a clause the whole rules imply, never
accept one they do not.

Written apart from :mod:`cpsudoku.encode` on purpose: the primitives' own definitions
(a sum's cells, weights and targets, an automaton's table, a count's set) are all it
reads. An automaton is the rule's compiled form: the brute-force tests hold it to the
rule's own check of a grid, which the verifier applies to every solution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cpsudoku.model.primitives import Automaton, Count, Primitive, Sum
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

Clause = tuple[int, ...]

#: The meaning names a manifest may use, and the primitive class each speaks of.
NAMES: dict[str, type] = {
    "partial-sum": Sum,
    "automaton-state": Automaton,
    "count": Count,
}

#: Where an auxiliary variable belongs: (constraint index, primitive index).
Owner = tuple[int, int]


class MeaningError(ValueError):
    """The manifest's ``auxiliary`` entry is malformed or names a rule it cannot mean."""


@dataclass(frozen=True, slots=True)
class Meaning:
    """What one auxiliary variable says about the grid.

    Attributes:
        constraint: its constraint's index in ``rules.constraints``.
        primitive: the index of its primitive among the constraint's.
        name: one of :data:`NAMES`.
        layer: the number of cells read, ``k``.
        value: the partial sum, the automaton's state or the count after them.
    """

    constraint: int
    primitive: int
    name: str
    layer: int
    value: int

    @property
    def owner(self) -> Owner:
        """(constraint, primitive)."""
        return (self.constraint, self.primitive)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MeaningError(f"{what} is not a whole number: {value!r}")
    return value


def read_meanings(raw: object, rules: Rules) -> dict[int, Meaning]:
    """The manifest's ``auxiliary`` entry as variable -> :class:`Meaning`.

    ``raw`` is None (no auxiliary meanings) or a list of ``{"constraint": j,
    "primitive": p, "meaning": name, "variables": [[v, k, value], ...]}``. Each variable
    must be above the cell variables and declared once; each index must name a
    primitive of the meaning's kind; each layer must lie on its line. Whether the
    meanings fit the clauses is :meth:`LayeredClauses.holds`'s question.

    Raises:
        MeaningError: why not, in a sentence.
    """
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise MeaningError("'auxiliary' is not a list")
    top = rules.n * rules.cells
    out: dict[int, Meaning] = {}
    for entry in raw:
        keys = {"constraint", "primitive", "meaning", "variables"}
        if not isinstance(entry, dict) or set(entry) != keys:
            raise MeaningError(
                "an 'auxiliary' entry is not {constraint, primitive, meaning, variables}"
            )
        j = _int(entry["constraint"], "a constraint index")
        p = _int(entry["primitive"], "a primitive index")
        name = entry["meaning"]
        if name not in NAMES:
            raise MeaningError(f"unknown meaning {name!r}")
        if not 0 <= j < len(rules.constraints):
            raise MeaningError(f"{name} variables name constraint #{j}, which the rules lack")
        c, prims = rules.compiled[j]
        if not 0 <= p < len(prims) or not isinstance(prims[p], NAMES[name]):
            raise MeaningError(f"{name} variables name primitive #{p} of a {c.kind}")
        length = len(prims[p].cells)
        rows = entry["variables"]
        if not isinstance(rows, list):
            raise MeaningError(f"the {name} variables of constraint #{j} are not a list")
        for row in rows:
            if not isinstance(row, list) or len(row) != 3:
                raise MeaningError(f"a {name} variable of constraint #{j} is not [v, k, value]")
            v = _int(row[0], "a variable")
            if v <= top:
                raise MeaningError(f"variable {v} is a cell variable, not an auxiliary one")
            if v in out:
                raise MeaningError(f"variable {v} is given two meanings")
            k = _int(row[1], f"variable {v}: k")
            if not 0 <= k <= length:
                raise MeaningError(f"variable {v}: k = {k} is not a layer of its {length} cells")
            out[v] = Meaning(j, p, name, k, _int(row[2], f"variable {v}: value"))
    return out


def _stepper(p: Primitive) -> tuple[Callable[[int, int, int], int | None], Callable[[int], bool]]:
    """A layered primitive's move ``(k, state, d) -> state`` and its accepting test.

    From the primitive's definition: a sum adds the k-th term's weight times d, an
    automaton follows its table, a count adds one for a value of its set.
    """
    if isinstance(p, Sum):
        weights = [w for _, w in p.terms]
        targets = set(p.targets)
        return (lambda k, t, d: t + weights[k] * d), targets.__contains__
    if isinstance(p, Automaton):
        table = p.transitions

        def follow(k: int, q: int, d: int) -> int | None:
            t = table[q][d - 1]
            return t if t >= 0 else None

        return follow, p.accepting.__contains__
    if isinstance(p, Count):
        inside, counts = p.values, p.counts
        return (lambda k, c, d: c + (inside >> (d - 1) & 1)), counts.__contains__
    raise MeaningError(f"no layered meaning for a {type(p).__name__}")


class LayeredClauses:
    """Shows the clauses of sums, automata and counts true under their meanings.

    Args:
        puzzle: the manifest's puzzle (rules and givens).
        meanings: from :func:`read_meanings`.
    """

    def __init__(self, puzzle: Puzzle, meanings: dict[int, Meaning]) -> None:
        self.puzzle = puzzle
        self.rules = puzzle.rules
        self.n = puzzle.n
        self.top = self.n * self.rules.cells
        self.meanings = meanings
        self._layers: dict[Owner, list[set[int]]] = {}
        self._by_cell: dict[int, list[Owner]] = {}
        for j, (_, prims) in enumerate(self.rules.compiled):
            for p, prim in enumerate(prims):
                if isinstance(prim, Sum | Automaton | Count):
                    for i in prim.cells:
                        self._by_cell.setdefault(i, []).append((j, p))

    def primitive(self, owner: Owner) -> Primitive:
        """The primitive ``(constraint, primitive)`` names."""
        j, p = owner
        return self.rules.compiled[j][1][p]

    def _mask(self, cell: int) -> int:
        """The values ``cell`` may take in the relaxation, as a mask: its given, or all."""
        v = self.puzzle.cells[cell]
        return 1 << (v - 1) if v else (1 << self.n) - 1

    def _values(self, mask: int) -> list[int]:
        return [d for d in range(1, self.n + 1) if mask >> (d - 1) & 1]

    def cell_clause_holds(self, clause: Clause) -> bool:
        """True when a layered primitive holding every cell of ``clause`` shows it true.

        ``clause`` has cell literals only (a value a chain rules out, two values that
        lead nowhere together).
        """
        cells = {(abs(x) - 1) // self.n for x in clause}
        if not cells:
            return False
        first = next(iter(cells))
        for owner in self._by_cell.get(first, ()):
            if cells <= set(self.primitive(owner).cells) and self.holds(clause, owner):
                return True
        return False

    def holds(self, clause: Clause, owner: Owner) -> bool:
        """True when no grid keeping primitive ``owner`` and the givens falsifies ``clause``.

        Auxiliary variables take the values of their meanings (all must be of
        ``owner``); cell literals must speak of its cells. False means "not shown": a
        falsifying assignment of the relaxation, or a clause this check does not read.
        """
        n, top = self.n, self.top
        equal: dict[int, int] = {}  # cell -> the value a negative literal gives it
        differ: dict[int, int] = {}  # cell -> mask of values positive literals rule out
        fixed: dict[int, int] = {}  # layer -> the state negative literals give it
        barred: dict[int, set[int]] = {}  # layer -> states positive literals rule out
        for lit in clause:
            v = abs(lit)
            if v <= top:
                cell, d = divmod(v - 1, n)
                if lit < 0:
                    if equal.get(cell, d + 1) != d + 1:
                        return True  # two values of one cell: never falsified
                    equal[cell] = d + 1
                else:
                    differ[cell] = differ.get(cell, 0) | 1 << d
                continue
            meaning = self.meanings.get(v)
            if meaning is None or meaning.owner != owner:
                return False
            k, t = meaning.layer, meaning.value
            if lit < 0:
                if fixed.get(k, t) != t:
                    return True  # two states of one layer: never both true
                fixed[k] = t
            else:
                barred.setdefault(k, set()).add(t)
        prim = self.primitive(owner)
        position = {cell: k for k, cell in enumerate(prim.cells, 1)}
        masks: dict[int, int] = {}
        for cell in set(equal) | set(differ):
            if cell not in position:
                return False
            m = self._mask(cell) & ~differ.get(cell, 0)
            if cell in equal:
                m &= 1 << (equal[cell] - 1)
            masks[cell] = m
        named = set(fixed) | set(barred)
        for cell in masks:
            named.update((position[cell] - 1, position[cell]))
        if not named:
            return False  # the empty clause
        lo, hi = min(named), max(named)
        layers = self.layers(owner)
        step, _ = _stepper(prim)

        def keep(k: int, t: int) -> bool:
            return fixed.get(k, t) == t and t not in barred.get(k, ())

        now = {t for t in layers[lo] if keep(lo, t)}
        for k in range(lo + 1, hi + 1):
            if not now:
                return True
            cell = prim.cells[k - 1]
            vals = self._values(masks.get(cell, self._mask(cell)))
            reach = layers[k]
            now = {u for t in now for d in vals if (u := step(k - 1, t, d)) in reach and keep(k, u)}  # type: ignore[operator]
        return not now

    def layers(self, owner: Owner) -> list[set[int]]:
        """For each layer k of a primitive, the states its first k cells can reach.

        Those some grid keeping the primitive and the givens can reach: from the start
        with each cell at its given or any of 1..n, and able to end accepted the same
        way; cached per primitive.
        """
        if owner in self._layers:
            return self._layers[owner]
        prim = self.primitive(owner)
        step, accepting = _stepper(prim)
        values = [self._values(self._mask(cell)) for cell in prim.cells]
        forward: list[set[int]] = [{0}]
        for k, vals in enumerate(values):
            forward.append(
                {u for t in forward[-1] for d in vals if (u := step(k, t, d)) is not None}
            )
        m = len(values)
        back = {t for t in forward[m] if accepting(t)}
        out: list[set[int]] = [set() for _ in range(m + 1)]
        out[m] = back
        for k in range(m, 0, -1):
            vals = values[k - 1]
            back = {t for t in forward[k - 1] if any(step(k - 1, t, d) in back for d in vals)}
            out[k - 1] = back
        self._layers[owner] = out
        return out


#: The former name, kept for readers of older code.
SumClauses = LayeredClauses
