"""Clauses of the sum rules whose digits may repeat: little killers, arrows, sandwiches.

Variable ``i * n + d`` says "cell ``i`` holds ``d``" (as in :mod:`cpsudoku.encode.cnf`);
auxiliary variables are numbered from ``top + 1`` and the new top returned.

A weighted sum (:class:`~cpsudoku.model.sums.LinearSum`) is a chain of partial sums,
one layer per cell, as in a decision diagram of the sum: a variable per partial sum
that some values reach and from which the target can still be reached. The clauses
say that a partial sum and a value lead to the next partial sum (or to nothing, which
forbids the pair), that every partial sum and every value has a way through, and that
each layer holds a partial sum. Unit propagation then keeps each cell's values to
those on a path to the target (the cells in order). A sandwich reuses the digit-set
enumeration of killer cages: the cells between the 1 and the n of a row differ, so
each set of digits that makes the clue is one selector.

Each writer can also say what its auxiliary variables mean (``meanings``), as
``(variable, name, parameters)``: ``("partial-sum", (k, t))`` "the weighted sum of the
first k terms is t"; ``("sandwich-ends", (p, q))`` "the 1 and the n stand at positions
p and q of the line, either way round"; ``("sandwich-between", (p, q, digits))`` "they
do, and the cells between hold exactly those digits". Certificates carry these so that
their checker can evaluate each variable from the rule itself and test every clause
under that meaning (:mod:`cpsudoku.evidence.meanings`); the solvers pass nothing.
"""

from __future__ import annotations

from cpsudoku.model.sums import LinearSum, Sandwich, sandwich_sets

Clause = tuple[int, ...]

#: What an auxiliary variable means: ``(variable, name, parameters)`` (module docstring).
AuxMeaning = tuple[int, str, tuple[object, ...]]


def linear_clauses(
    rule: LinearSum,
    n: int,
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
) -> int:
    """Append the partial-sum chain of ``rule`` (weights, target) to ``out``.

    ``meanings``, when given, receives ``(variable, "partial-sum", (k, t))`` for each
    state variable: the weighted sum of the first ``k`` terms is ``t``.
    """
    terms = rule.terms
    m = len(terms)
    digits = range(1, n + 1)
    forward: list[set[int]] = [{0}]
    for _, w in terms:
        forward.append({t + w * d for t in forward[-1] for d in digits})
    back: list[set[int]] = [set() for _ in range(m + 1)]
    back[m] = {rule.target} & forward[m]
    for k in range(m, 0, -1):
        w = terms[k - 1][1]
        back[k - 1] = {t for t in forward[k - 1] if any(t + w * d in back[k] for d in digits)}
    if not back[0]:  # no values make the sum: the encoding is the empty clause
        out.append(())
        return top
    # State variables of the inner layers; layer 0 (sum 0) and layer m (the target)
    # are constants.
    state: list[dict[int, int]] = [{} for _ in range(m + 1)]
    for k in range(1, m):
        for t in sorted(back[k]):
            top += 1
            state[k][t] = top
            if meanings is not None:
                meanings.append((top, "partial-sum", (k, t)))

    def at(k: int, t: int) -> tuple[int, ...]:
        """The literal "layer k holds t" as a clause part: () for a constant true."""
        return () if k in (0, m) else (state[k][t],)

    for k in range(1, m + 1):
        cell, w = terms[k - 1]
        for d in digits:
            x = cell * n + d
            into = []
            for t in back[k - 1]:
                u = t + w * d
                if u in back[k]:
                    into.append(t)
                    if k < m:  # (layer k-1 = t) and x -> layer k = u
                        out.append((*(-v for v in at(k - 1, t)), -x, *at(k, u)))
                else:  # (layer k-1 = t) and x lead nowhere
                    out.append((*(-v for v in at(k - 1, t)), -x))
            # x has a way in: some partial sum before it that it extends.
            if not into:
                out.append((-x,))
            elif k > 1:
                out.append((-x, *(state[k - 1][t] for t in into)))
        if k < m:
            out.append(tuple(state[k].values()))  # each layer holds a partial sum
            for u, var in state[k].items():  # a partial sum has a way in
                ways = [d for d in digits if u - w * d in back[k - 1]]
                out.append((-var, *(cell * n + d for d in ways)))
    return top


def sandwich_clauses(
    rule: Sandwich,
    n: int,
    top: int,
    out: list[Clause],
    meanings: list[AuxMeaning] | None = None,
) -> int:
    """Append the clauses of a sandwich clue: per placement of its 1 and n, the sets between.

    For cells ``p < q`` of the line holding 1 and n (either way round), the ``k = q - p - 1``
    cells between hold one of the sets of ``k`` different digits of 2..n-1 making the
    sum: none, and the placement is forbidden; else a placement variable implies one
    of the sets, and a chosen set's digits are all between (the line is a row or a
    column, whose digits differ, so ``k`` cells holding ``k`` such digits hold exactly
    that set).

    ``meanings``, when given, receives ``(placed, "sandwich-ends", (p, q))`` and, for
    each set's selector, ``(selector, "sandwich-between", (p, q, digits))``.
    """
    cells = rule.cells
    for p in range(n):
        for q in range(p + 1, n):
            sets = sandwich_sets(n, q - p - 1, rule.total)
            ends = ((cells[p] * n + 1, cells[q] * n + n), (cells[p] * n + n, cells[q] * n + 1))
            if not sets:
                out.extend((-a, -b) for a, b in ends)
                continue
            between = cells[p + 1 : q]
            if not between:  # neighbours and a clue of 0: nothing more to say
                continue
            top += 1
            placed = top
            out.extend((-a, -b, placed) for a, b in ends)
            selectors = range(top + 1, top + len(sets) + 1)
            top += len(sets)
            out.append((-placed, *selectors))
            for s, digits in zip(selectors, sets, strict=True):
                out.extend((-s, *(i * n + d for i in between)) for d in digits)
            if meanings is not None:
                meanings.append((placed, "sandwich-ends", (p, q)))
                meanings.extend(
                    (s, "sandwich-between", (p, q, digits))
                    for s, digits in zip(selectors, sets, strict=True)
                )
    return top
