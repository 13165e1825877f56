"""The certificate checker's inner loops: table lookups and the auxiliary-variable test.

The checker enumerates a small constraint's assignments, asking the rule at each step
whether the partial grid can still keep it, and for clauses with auxiliary variables
tests every assignment for a satisfying extension. These tests hold the fast forms to
the plain ones they replace (a table's walk over its tuples, truth tables), and show
that the checker no longer walks a table's tuples at all.
"""

from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path

import pytest

from cpsudoku.evidence import certify, check_certificate, plain
from cpsudoku.model import primitives
from cpsudoku.model.constraints import constraint_from_spec
from cpsudoku.model.forms import parse
from cpsudoku.model.primitives import Primitive, Table

VARIANTS = Path(__file__).parents[1] / "benchmarks" / "data" / "variants"


def _tables(n: int) -> list[Table]:
    """The tables of a between line and of a lockout line on a 4x4-sized value range."""
    out: list[Table] = []
    for spec in (
        {"kind": "between-line", "cells": [0, 1, 2, 3]},
        {"kind": "lockout-line", "cells": [0, 1, 5]},
    ):
        out.extend(p for p in constraint_from_spec(spec, n).compile(n) if isinstance(p, Table))
    assert out
    return out


@pytest.mark.parametrize("n", [4, 6])
@pytest.mark.parametrize("listed", [True, False])
def test_a_tables_lookup_agrees_with_its_walk_over_every_partial_grid(
    n: int, listed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every partial assignment of the table's cells: the lookup says what narrow says."""
    if not listed:  # the walk without the projections, for tables too big to list them
        monkeypatch.setattr(primitives, "MAX_PROJECTIONS", 0)
    primitives._projections.cache_clear()
    try:
        for table in _tables(n):
            grid = [0] * (n * n)
            for values in product(range(n + 1), repeat=len(table.cells)):
                for cell, v in zip(table.cells, values, strict=True):
                    grid[cell] = v
                assert table.possible(grid, n) == Primitive.possible(table, grid, n), values
    finally:
        primitives._projections.cache_clear()  # none of this test's lists stays behind


def test_a_between_line_certificate_is_checked_without_walking_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundled between-line puzzle whose check took 10 s walking its tables' tuples."""
    row = json.loads((VARIANTS / "between.jsonl").read_text().splitlines()[5])
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    certify(puzzle, tmp_path / "c")
    plain.allowed.cache_clear()
    plain._indexed.cache_clear()

    def walked(*args: object) -> int:
        raise AssertionError("the checker walked a table's tuples")

    monkeypatch.setattr(Table, "narrow", walked)
    report = check_certificate(tmp_path / "c")
    assert report.ok, report.reasons


def _brute_force(clauses: list[tuple[int, ...]], grid: list[int], n: int, top: int) -> bool:
    """Some values of the auxiliary variables satisfy every clause, the cells as in grid."""
    aux = sorted({abs(x) for c in clauses for x in c if abs(x) > top})
    for bits in product((False, True), repeat=len(aux)):
        true = {v for v, b in zip(aux, bits, strict=True) if b}
        if all(any(_true(x, grid, n, top, true) for x in c) for c in clauses):
            return True
    return False


def _true(x: int, grid: list[int], n: int, top: int, true: set[int]) -> bool:
    v = abs(x)
    if v > top:
        return (v in true) == (x > 0)
    cell, d = divmod(v - 1, n)
    return (grid[cell] == d + 1) == (x > 0)


@pytest.mark.parametrize("seed", range(15))
def test_the_auxiliary_test_agrees_with_a_truth_table(seed: int) -> None:
    """Random clauses over 3 cells of 4 values and 5 auxiliary variables, every grid."""
    rnd = random.Random(seed)
    n, cells = 4, 3
    top = n * n * n
    clauses = []
    for _ in range(rnd.randint(1, 14)):
        size = rnd.randint(1, 4)
        lits = []
        for _ in range(size):
            if rnd.random() < 0.5:
                v = top + rnd.randint(1, 5)
            else:
                v = rnd.randrange(cells) * n + rnd.randint(1, n)
            lits.append(v if rnd.random() < 0.5 else -v)
        clauses.append(tuple(lits))
    test = plain._AuxSatisfiable(clauses, n, top)
    grid = [0] * (n * n)
    for values in product(range(1, n + 1), repeat=cells):
        grid[:cells] = values
        expected = _brute_force(clauses, grid, n, top)
        assert test(grid) == expected, (clauses, values)
        assert test(grid) == expected  # the remembered answer


def test_the_auxiliary_test_propagates_units_before_it_branches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chain of implications ending in a contradiction takes one call, no branch."""
    calls = []
    inner = plain._dpll

    def counted(*args: object) -> bool:
        calls.append(args)
        return inner(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(plain, "_dpll", counted)
    k = 30
    chain = [(1, 0)] + [(1 << (i + 1), 1 << i) for i in range(k - 1)] + [(0, 1 << (k - 1))]
    assert plain._dpll(chain, 0, 0) is False
    assert len(calls) == 1
    calls.clear()
    assert plain._dpll(chain[:-1], 0, 0) is True
    assert len(calls) == 1


def test_the_checker_compiles_a_rule_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A doppelganger's compile builds an automaton per row and column (0.13 s); the
    checker asks the rule about partial grids dozens of times and must not rebuild it
    each time (a certificate took 3.1 s to check that way, 0.5 s with one compile)."""
    from cpsudoku.model.constraints.doppelganger import Doppelganger

    row = json.loads((VARIANTS / "doppelganger.jsonl").read_text().splitlines()[1])
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    certify(puzzle, str(tmp_path / "cert"))
    calls = []
    real = Doppelganger.compile

    def counted(self: Doppelganger, n: int) -> tuple[Primitive, ...]:
        calls.append(n)
        return real(self, n)

    monkeypatch.setattr(Doppelganger, "compile", counted)
    assert check_certificate(tmp_path / "cert").ok
    assert len(calls) <= 1
