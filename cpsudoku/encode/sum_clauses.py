"""Clauses of the primitives read along a line: sums, automata and counts.

Variable ``i * n + d`` says "cell ``i`` holds ``d``" (as in :mod:`cpsudoku.encode.cnf`);
auxiliary variables are numbered from ``top + 1`` and the new top returned.

All three are one shape, a layered diagram: a state after each cell of the line (a
partial sum, an automaton's state, a count so far), and a value of the next cell
leading from a state to the next one or to nothing. A variable per state that the
line can reach and from which an accepting end stays reachable (worked out here,
before any clause); forward clauses (a state and a value lead to the next state, or
to nothing, which forbids the pair), support clauses (a value and a state each have a
way in) and one at-least-one per layer. Unit propagation then keeps each cell's values
to those on a path to an accepting end (the cells in order).

The values of a cell that lead from a state to the same next state (a count's values
outside its set, a sandwich's digits before the first crust) share one clause, "the
state and none of the other values lead there", and the values that lead nowhere from
a state one clause, "the state needs one of the values that lead on", wherever that
takes fewer literals than a clause per value (three values or more of nine, four or
more): a cell has exactly one value, so these say the same, and they cut the clauses
of numbered rooms by 60% and of quadruples and global entropy by half (docs/design.md
has the measurements).

Each writer can also say what its auxiliary variables mean (``meanings``), as
``(variable, name, parameters)``: ``("partial-sum", (k, t))`` "the weighted sum of the
first k terms is t"; ``("automaton-state", (k, q))`` "after the first k cells the
automaton is in state q"; ``("count", (k, c))`` "c of the first k cells hold a value of
the set". Certificates carry these so that their checker can evaluate each variable
from the primitive itself and test every clause under that meaning
(:mod:`cpsudoku.evidence.meanings`); the solvers pass nothing.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from cpsudoku.model.primitives import Automaton, Count, Primitive, Sum

Clause = tuple[int, ...]

#: What an auxiliary variable means: ``(variable, name, parameters)`` (module docstring).
AuxMeaning = tuple[int, str, tuple[object, ...]]


def layered_clauses(
    cells: Sequence[int],
    n: int,
    start: Hashable,
    step: Callable[[int, Hashable, int], Hashable | None],
    accepting: Callable[[Hashable], bool],
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
    name: str = "",
) -> int:
    """Append the clauses of a layered diagram over ``cells`` (module docstring).

    ``step(k, state, d)`` is the state after cell ``k`` (0-based) holds ``d`` in
    ``state``, or None; ``accepting(state)`` whether the line may end there.
    ``meanings`` receives ``(variable, name, (k, state))`` for each state variable.
    """
    m = len(cells)
    digits = range(1, n + 1)
    forward: list[set[Hashable]] = [{start}]
    for k in range(m):
        nxt: set[Hashable] = set()
        for q in forward[-1]:
            for d in digits:
                t = step(k, q, d)
                if t is not None:
                    nxt.add(t)
        forward.append(nxt)
    back: list[set[Hashable]] = [set() for _ in range(m + 1)]
    back[m] = {q for q in forward[m] if accepting(q)}
    for k in range(m, 0, -1):
        back[k - 1] = {
            q for q in forward[k - 1] if any(step(k - 1, q, d) in back[k] for d in digits)
        }
    if not back[0]:  # no values make the line: the encoding is the empty clause
        out.append(())
        return top
    # State variables; a layer of one state is a constant (layer 0 always is).
    state: list[dict[Hashable, int]] = [{} for _ in range(m + 1)]
    for k in range(1, m + 1):
        if len(back[k]) == 1:
            continue
        for q in sorted(back[k], key=repr):
            top += 1
            state[k][q] = top
            if meanings is not None:
                meanings.append((top, name, (k, q)))

    def at(k: int, q: Hashable) -> tuple[int, ...]:
        """The literal "layer k is in q" as a clause part: () for a constant true."""
        return (state[k][q],) if state[k] else ()

    for k in range(1, m + 1):
        cell = cells[k - 1]
        ways: dict[Hashable, set[int]] = {}  # per state of layer k, the values into it
        into: dict[int, list[Hashable]] = {d: [] for d in digits}  # per value, states it extends
        for q in back[k - 1]:
            source = tuple(-v for v in at(k - 1, q))
            dead: list[int] = []
            to: dict[Hashable, list[int]] = {}  # per next state, the values leading there
            for d in digits:
                u = step(k - 1, q, d)
                if u is not None and u in back[k]:
                    into[d].append(q)
                    to.setdefault(u, []).append(d)
                    ways.setdefault(u, set()).add(d)
                else:
                    dead.append(d)
            if state[k]:  # (layer k-1 = q) and a value of ds -> layer k = u
                for u, ds in to.items():
                    if 4 * len(ds) > n + 2:  # one clause: q and no value outside ds -> u
                        out.append(
                            (*source, *at(k, u), *(cell * n + d for d in digits if d not in ds))
                        )
                    else:
                        out.extend((*source, -(cell * n + d), *at(k, u)) for d in ds)
            if source and 3 * len(dead) > n + 1:  # one clause: q -> a value that leads on
                out.append((*source, *(cell * n + d for d in digits if d not in dead)))
            else:  # (layer k-1 = q) and the value lead nowhere
                out.extend((*source, -(cell * n + d)) for d in dead)
        for d in digits:  # the value has a way in: some state before it that it extends
            x = cell * n + d
            if not into[d]:
                if state[k - 1]:
                    out.append((-x,))
            elif state[k - 1] and len(into[d]) < len(back[k - 1]):
                out.append((-x, *(state[k - 1][q] for q in into[d])))
        if state[k]:
            out.append(tuple(state[k].values()))  # each layer is in some state
            for u, var in state[k].items():  # a state has a way in
                out.append((-var, *(cell * n + d for d in sorted(ways.get(u, ())))))
    return top


def sum_clauses(
    rule: Sum,
    n: int,
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
    lead: Clause = (),
) -> int:
    """Append the partial-sum chain of a weighted sum (meanings ``partial-sum``).

    Every clause starts with the literals ``lead`` (as in all three writers).
    """
    weights = tuple(w for _, w in rule.terms)
    targets = frozenset(rule.targets)
    cells = [i for i, _ in rule.terms]
    if meanings is None:
        return _instantiate(_sum_template(weights, targets, n), cells, n, top, out, lead)
    return _led(
        lead,
        out,
        layered_clauses,
        cells,
        n,
        0,
        lambda k, t, d: t + weights[k] * d,  # type: ignore[operator]
        lambda t: t in targets,
        top,
        meanings=meanings,
        name="partial-sum",
    )


def automaton_clauses(
    rule: Automaton,
    n: int,
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
    lead: Clause = (),
) -> int:
    """Append the layered states of an automaton (meanings ``automaton-state``)."""
    if meanings is None:
        template = _automaton_template(rule.transitions, rule.accepting, len(rule.cells), n)
        return _instantiate(template, rule.cells, n, top, out, lead)
    return _led(
        lead,
        out,
        layered_clauses,
        rule.cells,
        n,
        0,
        _automaton_step(rule.transitions),
        rule.accepting.__contains__,
        top,
        meanings=meanings,
        name="automaton-state",
    )


def _automaton_step(trans: tuple[tuple[int, ...], ...]) -> Callable[[int, Any, int], int | None]:
    """The layered step of an automaton's transitions."""

    def step(k: int, q: Any, d: int) -> int | None:
        t = trans[q][d - 1]
        return t if t >= 0 else None

    return step


def count_clauses(
    rule: Count,
    n: int,
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
    lead: Clause = (),
) -> int:
    """Append a counter along the cells (meanings ``count``): c of the first k hold a value."""
    if meanings is None:
        template = _count_template(rule.values, rule.counts, len(rule.cells), n)
        return _instantiate(template, rule.cells, n, top, out, lead)
    return _led(
        lead,
        out,
        layered_clauses,
        rule.cells,
        n,
        0,
        _count_step(rule.values, rule.counts),
        rule.counts.__contains__,
        top,
        meanings=meanings,
        name="count",
    )


def _led(lead: Clause, out: list[Clause], write: Callable[..., int], *args: Any, **kw: Any) -> int:
    """``write(*args, out=..., **kw)``, every clause it writes into ``out`` led by ``lead``."""
    if not lead:
        return write(*args, out=out, **kw)
    written: list[Clause] = []
    top = write(*args, out=written, **kw)
    out.extend((*lead, *clause) for clause in written)
    return top


def _count_step(inside: int, counts: frozenset[int]) -> Callable[[int, Any, int], int | None]:
    """The layered step of a count of the values ``inside``."""
    most = max(counts)

    def step(k: int, c: Any, d: int) -> int | None:
        c2 = c + (inside >> (d - 1) & 1)
        return c2 if c2 <= most else None

    return step


#: A line's clauses written once on placeholder variables: value d of the line's k-th
#: cell is ``k * n + d``, auxiliary variable j is ``length * n + j``. Held as every
#: literal in one native int64 array (bytes), where each clause starts and the end in
#: another, and how many auxiliary variables there are.
Template = tuple[bytes, bytes, int]

try:  # the C writer of the same clauses, when the extension was built
    from cpsudoku.encode import _sum_clauses  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover - an install without a C compiler
    _sum_clauses = None

#: The most values a cell may hold for the C writer (its value masks are one word).
_LAYERED_VALUES = 64


@lru_cache(maxsize=1024)
def _sum_template(weights: tuple[int, ...], targets: frozenset[int], n: int) -> Template:
    """The partial-sum chain of a sum with these weights, on placeholder variables."""
    if _sum_clauses is not None and n <= _LAYERED_VALUES:
        try:
            return _sum_clauses.sum(weights, tuple(targets), n)  # type: ignore[no-any-return]
        except OverflowError:  # too many partial sums for it: the Python writer
            pass
    return _template(
        len(weights),
        n,
        lambda k, t, d: t + weights[k] * d,  # type: ignore[operator]
        targets.__contains__,
    )


@lru_cache(maxsize=1024)
def _automaton_template(
    transitions: tuple[tuple[int, ...], ...], accepting: frozenset[int], length: int, n: int
) -> Template:
    """The layered states of an automaton over ``length`` cells, on placeholders."""
    if _sum_clauses is not None and n <= _LAYERED_VALUES:
        table = array("i", [t for row in transitions for t in row]).tobytes()
        accept = bytes(q in accepting for q in range(len(transitions)))
        try:
            return _sum_clauses.automaton(table, accept, length, n)  # type: ignore[no-any-return]
        except OverflowError:  # too large for its tables: the Python writer
            pass
    return _template(length, n, _automaton_step(transitions), accepting.__contains__)


@lru_cache(maxsize=1024)
def _count_template(inside: int, counts: frozenset[int], length: int, n: int) -> Template:
    """The counter of a count over ``length`` cells, on placeholders.

    For the C writer, the counter is an automaton: state c is "c of the cells so far
    hold a value of the set", the same states in the same order.
    """
    step = _count_step(inside, counts)
    if _sum_clauses is not None and n <= _LAYERED_VALUES:
        most = max(counts)
        moves = [step(0, c, d) for c in range(most + 1) for d in range(1, n + 1)]
        table = array("i", [-1 if t is None else t for t in moves]).tobytes()
        accept = bytes(c in counts for c in range(most + 1))
        try:
            return _sum_clauses.automaton(table, accept, length, n)  # type: ignore[no-any-return]
        except OverflowError:  # too large for its tables: the Python writer
            pass
    return _template(length, n, step, counts.__contains__)


def _template(
    length: int,
    n: int,
    step: Callable[[int, Hashable, int], Hashable | None],
    accepting: Callable[[Hashable], bool],
) -> Template:
    """:func:`layered_clauses` on the placeholder cells 0..length-1 (:data:`Template`)."""
    clauses: list[Clause] = []
    top = layered_clauses(range(length), n, 0, step, accepting, length * n, clauses)
    starts = array("q", [0])
    for clause in clauses:
        starts.append(starts[-1] + len(clause))
    flat = array("q", [v for clause in clauses for v in clause])
    return flat.tobytes(), starts.tobytes(), top - length * n


def _instantiate(
    template: Template,
    cells: Sequence[int],
    n: int,
    top: int,
    out: list[Clause],
    lead: Clause = (),
) -> int:
    """Append ``template``'s clauses on the line ``cells``, auxiliaries from ``top + 1``.

    The clauses of a sum, automaton or count depend on the line only through its
    cells, so a grid's lines of one shape (the sandwich lines of one clue, the
    diagonals of one length and sum) and every later puzzle with them share one
    template: what remains per line is renaming its variables and putting ``lead`` in
    front of each clause, in C where it is built.
    """
    flat, starts, aux = template
    if _sum_clauses is not None:
        _sum_clauses.instantiate(flat, starts, cells, n, top, lead, out)
        return top + aux
    import numpy as np

    lits_in = np.frombuffer(flat, np.int64)
    bounds_in = np.frombuffer(starts, np.int64)
    at = np.empty(len(cells) * n + aux + 1, np.int64)
    at[0] = 0
    at[1 : len(cells) * n + 1] = (
        np.asarray(cells, np.int64)[:, None] * n + np.arange(1, n + 1)
    ).ravel()
    at[len(cells) * n + 1 :] = np.arange(top + 1, top + aux + 1)
    lits = np.sign(lits_in) * at[np.abs(lits_in)]
    bounds: Sequence[int] = bounds_in.tolist()
    if lead:
        begin = bounds_in[:-1]
        lits = np.insert(lits, np.repeat(begin, len(lead)), np.tile(lead, len(begin)))
        bounds = (bounds_in + len(lead) * np.arange(len(bounds_in))).tolist()
    flat_list = lits.tolist()
    out.extend([tuple(flat_list[a:b]) for a, b in pairwise(bounds)])
    return top + aux


def fold_units(rule: Sum, units: Sequence[Sequence[int]], n: int) -> Sum:
    """The same sum with whole units read as their totals (the rule of 45).

    Every unit of ``n`` cells holds each value once, so its cells add up to
    ``n(n+1)/2`` whatever the grid: adding ``c`` times (the unit's cells less that
    total) to a sum changes no grid's verdict. Greedily, while some unit and ``c``
    leave fewer cells with a non-zero weight, do it (``c`` the opposite of the weight
    most of the unit's cells share): an arrow whose shaft runs through whole rows
    becomes a sum of the few cells left over, a shaft holding most of a row becomes
    minus the rest of the row. The engines' encodings then see a short sum that the
    units alone made short, where the long one left that reasoning to search.

    Only for solving: the sum's meaning is the same in every grid that keeps the
    units, not in every assignment of its own cells, so the certificates (whose
    checker reads a sum's clauses against the sum alone) keep the sum as written.
    """
    if len(rule.terms) <= n // 2:
        return rule  # a unit folds only when the sum holds more than half of its cells
    weights = dict(rule.terms)
    shift = 0
    total = n * (n + 1) // 2
    whole = [tuple(u) for u in units if len(u) == n]
    while True:
        best, best_gain, best_c = None, 0, 0
        for unit in whole:
            count: dict[int, int] = {}
            for i in unit:
                w = weights.get(i, 0)
                count[w] = count.get(w, 0) + 1
            zero = count.pop(0, 0)
            for w, k in count.items():
                if k - zero > best_gain:
                    best, best_gain, best_c = unit, k - zero, -w
        if best is None:
            break
        for i in best:
            weights[i] = weights.get(i, 0) + best_c
        shift += best_c * total
    if not shift and all(weights[i] == w for i, w in rule.terms):
        return rule
    order = [i for i, _ in rule.terms] + sorted(set(weights) - set(rule.cells))
    terms = tuple((i, weights[i]) for i in order if weights[i])
    return Sum(terms, tuple(sorted({t + shift for t in rule.targets})))


def folded(prims: Iterable[Primitive], units: Sequence[Sequence[int]], n: int) -> list[Primitive]:
    """``prims`` with each sum read through :func:`fold_units` (the others as they are)."""
    return [fold_units(p, units, n) if isinstance(p, Sum) else p for p in prims]
