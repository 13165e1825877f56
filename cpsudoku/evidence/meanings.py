"""Sum and sandwich clauses of a certificate, checked under declared variable meanings.

Little killers and arrows (:class:`~cpsudoku.model.sums.LinearSum`) and sandwiches
(:class:`~cpsudoku.model.sums.Sandwich`) are encoded with auxiliary variables, and a
clause over them reaches across up to n cells: enumerating those cells' values, as
:mod:`cpsudoku.evidence.plain` does for cages, does not finish for a 9-cell chain.
Instead, the certificate's manifest says what each auxiliary variable *means*, a
statement about the grid:

- ``partial-sum [v, k, t]``: the weighted sum of the first ``k`` terms of the
  constraint (:attr:`~cpsudoku.model.sums.LinearSum.terms`, in order) is ``t``;
- ``sandwich-ends [v, p, q]``: the 1 and the n of the sandwich's line stand at its
  0-based positions ``p`` and ``q`` (``p < q``), either way round;
- ``sandwich-between [v, p, q, digits]``: they do, and the cells between hold exactly
  ``digits``.

Nothing else in the manifest is taken on trust. Each meaning is a function of the
grid, so if every clause is true in every grid that keeps the rules and the givens,
each auxiliary variable set to its meaning's value there, then adding the clauses
rules out no such grid: that is what :meth:`SumClauses.holds` shows, clause by clause,
by a small local search for a falsifying grid over a *relaxation* of the rules (only
the one constraint the clause speaks of, and the givens). The relaxation admits every
grid that keeps the rules, so "no falsifying assignment of the relaxation" is a proof;
it may fail to show a clause the whole rules imply, never accept one they do not.

- A partial-sum clause: the values that a layer (prefix) of the chain can hold are the
  sums reachable from the start *and* from which the target stays reachable, each
  cell taking its given or any of 1..n; the search runs along the chain over the
  layers and cells the clause names only (one step for every clause the encoder
  writes), each fixed or excluded as the clause's literals say.
- A sandwich clause: the line must be one of the rules' units of n cells (its digits
  are then a permutation of 1..n); the search tries every placement of the 1 and the
  n the clause and the givens allow, every set of distinct digits of 2..n-1 making the
  clue (worked out here, not read from the encoder), and asks whether the cells
  between can hold exactly that set and the cells outside the other digits (a small
  bipartite matching, each cell restricted by its given and by the clause).

Written apart from :mod:`cpsudoku.encode` on purpose: the model's own definitions of
the rules (cells, weights, target, line, clue) are all it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from cpsudoku.evidence.plain import has_matching
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.sums import LinearSum, Sandwich

Clause = tuple[int, ...]

#: The meaning names a manifest may use, and the constraint class each speaks of.
NAMES: dict[str, type] = {
    "partial-sum": LinearSum,
    "sandwich-ends": Sandwich,
    "sandwich-between": Sandwich,
}


class MeaningError(ValueError):
    """The manifest's ``auxiliary`` entry is malformed or names a rule it cannot mean."""


@dataclass(frozen=True, slots=True)
class Meaning:
    """What one auxiliary variable says about the grid.

    Attributes:
        constraint: its constraint's index in ``rules.constraints``.
        name: one of :data:`NAMES`.
        layer: partial-sum: the number of terms ``k`` (0 otherwise).
        value: partial-sum: the sum ``t`` (0 otherwise).
        ends: sandwich: the positions ``(p, q)``, ``p < q`` (empty otherwise).
        digits: sandwich-between: the digits between (empty otherwise).
    """

    constraint: int
    name: str
    layer: int = 0
    value: int = 0
    ends: tuple[int, ...] = ()
    digits: frozenset[int] = frozenset()


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MeaningError(f"{what} is not a whole number: {value!r}")
    return value


def read_meanings(raw: object, rules: Rules) -> dict[int, Meaning]:
    """The manifest's ``auxiliary`` entry as variable -> :class:`Meaning`.

    ``raw`` is None (no auxiliary meanings) or a list of
    ``{"constraint": j, "meaning": name, "variables": [[v, *parameters], ...]}``. Each
    variable must be above the cell variables and declared once; each constraint
    index must name a constraint of the meaning's kind; each parameter must make the
    meaning well defined (a layer within the chain, positions on the line, digits of
    1..n). Whether the meanings fit the clauses is :meth:`SumClauses.holds`'s question.

    Raises:
        MeaningError: why not, in a sentence.
    """
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise MeaningError("'auxiliary' is not a list")
    n = rules.n
    top = n * rules.cells
    out: dict[int, Meaning] = {}
    for entry in raw:
        if not isinstance(entry, dict) or set(entry) != {"constraint", "meaning", "variables"}:
            raise MeaningError("an 'auxiliary' entry is not {constraint, meaning, variables}")
        j = _int(entry["constraint"], "a constraint index")
        name = entry["meaning"]
        if name not in NAMES:
            raise MeaningError(f"unknown meaning {name!r}")
        if not 0 <= j < len(rules.constraints):
            raise MeaningError(f"{name} variables name constraint #{j}, which the rules lack")
        c = rules.constraints[j]
        if not isinstance(c, NAMES[name]):
            raise MeaningError(f"{name} variables name constraint #{j}, a {c.kind}")
        rows = entry["variables"]
        if not isinstance(rows, list):
            raise MeaningError(f"the {name} variables of constraint #{j} are not a list")
        for row in rows:
            if not isinstance(row, list) or not row:
                raise MeaningError(f"a {name} variable of constraint #{j} is not a list")
            v = _int(row[0], "a variable")
            if v <= top:
                raise MeaningError(f"variable {v} is a cell variable, not an auxiliary one")
            if v in out:
                raise MeaningError(f"variable {v} is given two meanings")
            out[v] = _meaning(j, c, name, row[1:], n, v)
    return out


def _meaning(j: int, c: Any, name: str, params: list[Any], n: int, v: int) -> Meaning:
    """One variable's :class:`Meaning`, its parameters checked."""
    where = f"variable {v} ({name} of constraint #{j})"
    if name == "partial-sum":
        if len(params) != 2:
            raise MeaningError(f"{where} takes [v, k, t]")
        k, t = _int(params[0], f"{where}: k"), _int(params[1], f"{where}: t")
        if not 0 <= k <= len(c.terms):
            raise MeaningError(f"{where}: k = {k} is not a layer of its {len(c.terms)} terms")
        return Meaning(j, name, layer=k, value=t)
    want = 2 if name == "sandwich-ends" else 3
    if len(params) != want:
        raise MeaningError(f"{where} takes {want} parameters")
    p, q = _int(params[0], f"{where}: p"), _int(params[1], f"{where}: q")
    if not 0 <= p < q < len(c.cells):
        raise MeaningError(f"{where}: positions {p}, {q} are not p < q on the line")
    if name == "sandwich-ends":
        return Meaning(j, name, ends=(p, q))
    raw = params[2]
    if not isinstance(raw, list):
        raise MeaningError(f"{where}: the digits are not a list")
    digits = [_int(d, f"{where}: a digit") for d in raw]
    if len(set(digits)) != len(digits) or not all(1 <= d <= n for d in digits):
        raise MeaningError(f"{where}: the digits are not distinct digits of 1..{n}")
    return Meaning(j, name, ends=(p, q), digits=frozenset(digits))


@lru_cache(maxsize=4096)
def clue_sets(n: int, k: int, total: int) -> tuple[frozenset[int], ...]:
    """Every set of ``k`` distinct digits of 2..n-1 adding up to ``total``.

    The digits between the 1 and the n of a line that holds each of 1..n once.
    """
    return tuple(frozenset(c) for c in combinations(range(2, n), k) if sum(c) == total)


class SumClauses:
    """Shows the sum and sandwich clauses of one certificate true under their meanings.

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
        self._layers: dict[int, list[set[int]]] = {}
        self._units = {frozenset(u) for u in self.rules.unit_cells if len(u) == self.n}
        self._by_cell: dict[int, list[int]] = {}
        for j, c in enumerate(self.rules.constraints):
            if isinstance(c, LinearSum | Sandwich):
                for i in c.cells:
                    self._by_cell.setdefault(i, []).append(j)

    def _mask(self, cell: int) -> int:
        """The values ``cell`` may take in the relaxation, as a mask: its given, or all."""
        v = self.puzzle.cells[cell]
        return 1 << (v - 1) if v else (1 << self.n) - 1

    def cell_clause_holds(self, clause: Clause) -> bool:
        """True when a sum or sandwich holding every cell of ``clause`` shows it true.

        ``clause`` has cell literals only (a value a chain rules out, a placement of a
        sandwich's 1 and n that no set of digits between makes).
        """
        cells = {(abs(x) - 1) // self.n for x in clause}
        if not cells:
            return False
        first = next(iter(cells))
        for j in self._by_cell.get(first, ()):
            if cells <= set(self.rules.constraints[j].cells) and self.holds(clause, j):
                return True
        return False

    def holds(self, clause: Clause, j: int) -> bool:
        """True when no grid that keeps constraint ``j`` and the givens falsifies ``clause``.

        Auxiliary variables take the values of their meanings (all must be of
        constraint ``j``); cell literals must speak of ``j``'s cells. False means "not
        shown": a falsifying assignment of the relaxation, or a clause this check
        does not read.
        """
        n, top = self.n, self.top
        equal: dict[int, int] = {}  # cell -> the value a negative literal gives it
        differ: dict[int, int] = {}  # cell -> mask of values positive literals rule out
        true: list[Meaning] = []  # meanings negative literals make true
        false: list[Meaning] = []  # meanings positive literals make false
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
            if meaning is None or meaning.constraint != j:
                return False
            (true if lit < 0 else false).append(meaning)
        masks: dict[int, int] = {}
        for cell in set(equal) | set(differ):
            m = self._mask(cell) & ~differ.get(cell, 0)
            if cell in equal:
                m &= 1 << (equal[cell] - 1)
            masks[cell] = m
        c = self.rules.constraints[j]
        if isinstance(c, LinearSum):
            return self._chain_holds(j, c, masks, true, false)
        if isinstance(c, Sandwich):
            return self._sandwich_holds(c, masks, true, false)
        return False

    def layers(self, j: int) -> list[set[int]]:
        """For each layer k of LinearSum ``j``, the sums its first k terms can have.

        Those some grid keeping the sum and the givens can have: reachable from 0
        with each cell at its given or any of 1..n, and able to reach the target the
        same way; cached per constraint.
        """
        if j in self._layers:
            return self._layers[j]
        c = self.rules.constraints[j]
        assert isinstance(c, LinearSum)
        terms = c.terms
        values = [self._values(self._mask(cell)) for cell, _ in terms]
        forward: list[set[int]] = [{0}]
        for (_, w), vals in zip(terms, values, strict=True):
            forward.append({t + w * d for t in forward[-1] for d in vals})
        m = len(terms)
        back = {c.target} & forward[m]
        out: list[set[int]] = [set() for _ in range(m + 1)]
        out[m] = back
        for k in range(m, 0, -1):
            w, vals = terms[k - 1][1], values[k - 1]
            back = {t for t in forward[k - 1] if any(t + w * d in back for d in vals)}
            out[k - 1] = back
        self._layers[j] = out
        return out

    def _values(self, mask: int) -> list[int]:
        return [d for d in range(1, self.n + 1) if mask >> (d - 1) & 1]

    def _chain_holds(
        self,
        j: int,
        c: LinearSum,
        masks: dict[int, int],
        true: list[Meaning],
        false: list[Meaning],
    ) -> bool:
        """:meth:`holds` for a weighted sum: a search along the chain over the named layers."""
        terms = c.terms
        position = {cell: k for k, (cell, _) in enumerate(terms, 1)}
        if any(cell not in position for cell in masks):
            return False
        fixed: dict[int, int] = {}
        barred: dict[int, set[int]] = {}
        for meaning in true:
            k, t = meaning.layer, meaning.value
            if fixed.get(k, t) != t:
                return True  # two sums of one layer: never both true
            fixed[k] = t
        for meaning in false:
            barred.setdefault(meaning.layer, set()).add(meaning.value)
        named = set(fixed) | set(barred)
        for cell in masks:
            named.update((position[cell] - 1, position[cell]))
        if not named:
            return False  # the empty clause
        lo, hi = min(named), max(named)
        layers = self.layers(j)

        def keep(k: int, t: int) -> bool:
            return fixed.get(k, t) == t and t not in barred.get(k, ())

        now = {t for t in layers[lo] if keep(lo, t)}
        for k in range(lo + 1, hi + 1):
            if not now:
                return True
            cell, w = terms[k - 1]
            vals = self._values(masks.get(cell, self._mask(cell)))
            reach = layers[k]
            now = {u for t in now for d in vals if (u := t + w * d) in reach and keep(k, u)}
        return not now

    def _sandwich_holds(
        self,
        c: Sandwich,
        masks: dict[int, int],
        true: list[Meaning],
        false: list[Meaning],
    ) -> bool:
        """:meth:`holds` for a sandwich: placements, digit sets, and a matching each."""
        n = self.n
        line = c.cells
        if frozenset(line) not in self._units:
            return False  # the digits of the line need not differ: not shown
        position = {cell: p for p, cell in enumerate(line)}
        if any(cell not in position for cell in masks):
            return False
        allowed = [masks.get(cell, self._mask(cell)) for cell in line]
        ends: tuple[int, ...] | None = None
        between: frozenset[int] | None = None
        for meaning in true:
            if ends is not None and meaning.ends != ends:
                return True  # two placements at once: never both true
            ends = meaning.ends
            if meaning.name == "sandwich-between":
                if between is not None and meaning.digits != between:
                    return True
                between = meaning.digits
        not_ends = {m.ends for m in false if m.name == "sandwich-ends"}
        not_between = {(m.ends, m.digits) for m in false if m.name == "sandwich-between"}
        one, big = 1, 1 << (n - 1)
        middle = ((1 << n) - 1) & ~(one | big)
        outcasts = {p for p in range(n) if not allowed[p] & middle}  # must hold the 1 or n
        if len(outcasts) > 2:
            return True
        for a in range(n):
            if not allowed[a] & one:
                continue
            for b in range(n):
                if b == a or not allowed[b] & big or not outcasts <= {a, b}:
                    continue
                p, q = min(a, b), max(a, b)
                if (ends is not None and (p, q) != ends) or (p, q) in not_ends:
                    continue
                inside = [allowed[t] for t in range(p + 1, q)]
                outside = [allowed[t] for t in range(n) if t not in (a, b) and not p < t < q]
                for digits in clue_sets(n, q - p - 1, c.total):
                    if between is not None and digits != between:
                        continue
                    if ((p, q), digits) in not_between:
                        continue
                    mask = sum(1 << (d - 1) for d in digits)
                    if has_matching(inside, mask) and has_matching(outside, middle & ~mask):
                        return False
        return True
