"""The CNF encodings: closed-form clause counts, model counts, numbering, DIMACS text."""

import random
from math import comb

import pytest
from conftest import random_grid
from pysat.formula import CNF
from pysat.solvers import Solver

from cpsudoku import parse
from cpsudoku.encode.cnf import (
    AT_MOST_ONE,
    ENCODINGS,
    decode,
    decode_reduced,
    encode_rules,
    given_literals,
    reduced,
    rule_clauses,
    to_cnf,
    to_dimacs,
    var,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

SHAPES = [(2, 2), (2, 3), (3, 3), (4, 4)]


def pairwise_clause_count(n: int, units: int, encoding: str) -> int:
    """Lynce & Ouaknine's counts for pairwise at-most-one, units of n cells."""
    minimal = n * n + units * n * comb(n, 2)
    if encoding == "minimal":
        return minimal
    efficient = minimal + n * n * comb(n, 2)
    if encoding == "efficient":
        return efficient
    return efficient + units * n


def count_models(clauses: tuple[tuple[int, ...], ...], n: int, cap: int = 10_000) -> int:
    """Count models over the cell variables only (auxiliary ones never block)."""
    top = n**3
    found = 0
    with Solver("cadical153", bootstrap_with=clauses) as s:
        while found < cap and s.solve():
            cells = [lit for lit in s.get_model()[:top] if lit > 0]
            s.add_clause([-lit for lit in cells])
            found += 1
    return found


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(("br", "bc"), SHAPES)
def test_pairwise_clause_counts_match_closed_form(encoding: str, br: int, bc: int) -> None:
    g = Rules.classic(br, bc)
    r = rule_clauses(g, encoding)
    assert len(r.clauses) == pairwise_clause_count(g.n, 3 * g.n, encoding)
    assert r.top == g.n**3  # pairwise needs no auxiliary variables


def test_nine_by_nine_counts_from_the_paper() -> None:
    # Lynce & Ouaknine, table 1: 8829 / 11745 / 11988 clauses on 729 variables.
    g = Rules.classic(3, 3)
    assert [len(rule_clauses(g, e).clauses) for e in ENCODINGS] == [8829, 11745, 11988]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_each_encoding_has_288_models_on_the_empty_4x4(encoding: str) -> None:
    assert count_models(rule_clauses(Rules.classic(2, 2), encoding).clauses, 4) == 288


@pytest.mark.parametrize("at_most_one", [a for a in AT_MOST_ONE if a != "pairwise"])
@pytest.mark.parametrize("encoding", ["minimal", "extended"])
def test_compact_at_most_one_keeps_288_models(encoding: str, at_most_one: str) -> None:
    r = rule_clauses(Rules.classic(2, 2), encoding, at_most_one)
    assert r.top > 4**3  # auxiliary variables exist ...
    aux = {abs(lit) for c in r.clauses for lit in c if abs(lit) > 4**3}
    assert aux
    assert min(aux) == 4**3 + 1  # ... numbered right after the cell variables
    assert max(aux) == r.top
    assert count_models(r.clauses, 4) == 288


def test_compact_at_most_one_is_smaller_on_big_grids() -> None:
    g = Rules.classic(4, 4)
    assert len(rule_clauses(g, "extended", "seqcounter").clauses) < len(
        rule_clauses(g, "extended").clauses
    )


def test_variable_numbering_is_closed_form() -> None:
    n = 9
    seen = {var(n, r, c, d) for r in range(n) for c in range(n) for d in range(1, n + 1)}
    assert seen == set(range(1, n**3 + 1))
    assert var(n, 0, 0, 1) == 1
    assert var(n, 1, 2, 3) == 1 * 81 + 2 * 9 + 3
    g = Rules.classic(3, 3)
    used = {abs(lit) for c in rule_clauses(g, "extended").clauses for lit in c}
    assert used == set(range(1, 730))


def test_rules_follow_the_units_not_hard_coded_loops() -> None:
    # Every clause over one value lies inside a cell or inside one unit.
    g = Rules.classic(2, 3)
    n = g.n
    unit_sets = [set(cells) for cells in g.unit_cells]
    for clause in rule_clauses(g, "extended").clauses:
        cells = {(abs(lit) - 1) // n for lit in clause}
        values = {(abs(lit) - 1) % n for lit in clause}
        assert len(cells) == 1 or (len(values) == 1 and any(cells <= u for u in unit_sets))


def test_rules_are_cached() -> None:
    g = Rules.classic(3, 3)
    assert rule_clauses(g, "extended") is rule_clauses(g, "extended")
    assert rule_clauses(g, "minimal") is not rule_clauses(g, "extended")


def test_unknown_encoding_names_are_refused() -> None:
    with pytest.raises(ValueError, match="choose from"):
        rule_clauses(Rules.classic(2, 2), "textbook")
    with pytest.raises(ValueError, match="at-most-one"):
        rule_clauses(Rules.classic(2, 2), "extended", "pairs")


def test_givens_and_decode_round_trip(rng: random.Random) -> None:
    g = Rules.classic(2, 3)
    grid = random_grid(g, rng)
    lits = given_literals(grid)
    assert len(lits) == g.cells
    assert decode(lits, g) == grid.cells
    assert decode([-lit for lit in lits], g) == (0,) * g.cells
    assert decode([*lits, 10_000, -3], g) == grid.cells  # beyond the cells: ignored


def test_to_cnf_adds_givens_as_unit_clauses() -> None:
    puzzle = parse("1.343..2.3..2..3")
    cnf = to_cnf(puzzle)
    base = rule_clauses(puzzle.rules, "extended").clauses
    assert len(cnf.clauses) == len(base) + puzzle.givens
    assert cnf.clauses[len(base) :] == [[lit] for lit in given_literals(puzzle)]
    assert cnf.nv == 64
    with Solver("minisat22", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        assert Puzzle(puzzle.rules, decode(s.get_model(), puzzle.rules)).rows() == [
            [1, 2, 3, 4],
            [3, 4, 1, 2],
            [4, 3, 2, 1],
            [2, 1, 4, 3],
        ]


def test_a_cnf_owns_its_clauses() -> None:
    """Changing a returned CNF leaves the cached rules, and so the next CNF, alone."""
    puzzle = parse("1.343..2.3..2..3")
    first = to_cnf(puzzle)
    first.clauses[0].append(99)
    first.clauses[-1][0] = -first.clauses[-1][0]
    second = to_cnf(puzzle)
    assert 99 not in second.clauses[0]
    assert second.clauses[0] == list(rule_clauses(puzzle.rules).clauses[0])
    assert second.clauses[-1] == [given_literals(puzzle)[-1]]


@pytest.mark.parametrize("at_most_one", ["pairwise", "seqcounter"])
def test_encoding_anew_gives_the_cached_rules(at_most_one: str) -> None:
    g = Rules.classic(2, 3)
    anew = encode_rules(g, "extended", at_most_one)
    assert anew == rule_clauses(g, "extended", at_most_one)
    assert anew is not rule_clauses(g, "extended", at_most_one)
    assert rule_clauses(g, "extended", at_most_one) is rule_clauses(g, "extended", at_most_one)


@pytest.mark.parametrize("at_most_one", ["pairwise", "seqcounter"])
def test_dimacs_text_reads_back(at_most_one: str) -> None:
    puzzle = parse("1.343..2.3..2..3")
    text = to_dimacs(puzzle, "extended", at_most_one)
    comments = [line for line in text.splitlines() if line.startswith("c ")]
    assert any("x(r,c,d) = r*N*N + c*N + d" in line for line in comments)
    assert any("2x2 boxes" in line for line in comments)
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    nv, nclauses = map(int, header.split()[2:])
    cnf = CNF(from_string=text)
    expected = to_cnf(puzzle, "extended", at_most_one)
    assert cnf.clauses == expected.clauses
    assert len(cnf.clauses) == nclauses
    assert nv == expected.nv
    assert (nv > 64) == (at_most_one != "pairwise")


def test_dimacs_of_a_rectangular_grid() -> None:
    g = Rules.classic(3, 4)
    cells = [0] * g.cells
    cells[-1] = 12
    text = to_dimacs(Puzzle(g, tuple(cells)), "minimal")
    assert "3x4 boxes" in text
    assert f"p cnf 1728 {pairwise_clause_count(12, 36, 'minimal') + 1}\n" in text
    assert text.endswith(f"{var(12, 11, 11, 12)} 0\n")  # the given, as the last unit clause


def count_reduced_models(puzzle: Puzzle, encoding: str, cap: int = 10_000) -> int:
    """Count models of the reduced formula, blocking only the candidate literals."""
    red = reduced(puzzle, encoding)
    found = 0
    with Solver("cadical153", bootstrap_with=red.clauses) as s:
        while found < cap and s.solve():
            model = s.get_model()
            cells = decode_reduced(model, puzzle, red)
            assert is_solution(puzzle, Puzzle(puzzle.rules, cells))
            s.add_clause([-(i * puzzle.n + v) for i, v in enumerate(cells) if not puzzle.cells[i]])
            found += 1
    return found


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_reduced_formula_keeps_exactly_the_solutions(encoding: str) -> None:
    assert count_reduced_models(parse("." * 16), encoding) == 288
    three = "8.........95.......67.........472968...913245...856137....9.716...6.8492......583"
    assert count_reduced_models(parse(three), encoding) == 3
    puzzle = parse("1.343..2.3..2..3")
    assert count_reduced_models(puzzle, encoding) == 1


def test_reduced_formula_is_small_and_keeps_the_numbering() -> None:
    puzzle = parse(
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    )
    red = reduced(puzzle)
    assert len(red.clauses) < len(rule_clauses(puzzle.rules).clauses) / 3
    assert red.candidates[0] == ()  # a given: no variables left
    n = puzzle.n
    for i, lits in enumerate(red.candidates):
        assert all((lit - 1) // n == i for lit in lits)
        assert list(lits) == sorted(lits)
    used = {abs(lit) for c in red.clauses for lit in c}
    assert used == {lit for lits in red.candidates for lit in lits}


def test_reduced_formula_of_a_dead_end_has_an_empty_clause() -> None:
    # Row 1 holds 1, 2, 3 in columns 2-4, and column 1 holds 4 lower down: r1c1 has no
    # value left, although no two givens clash.
    puzzle = parse("." + "123" + "." * 4 + "4" + "." * 7)
    red = reduced(puzzle)
    assert red.candidates[0] == ()
    assert () in red.clauses
    with Solver("cadical153", bootstrap_with=red.clauses) as s:
        assert not s.solve()


# --- the grouped forms of small tables and counts ---------------------------------


def _exactly_one_per_cell(cells: tuple[int, ...], n: int) -> list[list[int]]:
    """Each listed cell holds exactly one value (the grid's cell clauses, in small)."""
    out = []
    for i in cells:
        lits = [i * n + d for d in range(1, n + 1)]
        out.append(lits)
        out.extend([-a, -b] for k, a in enumerate(lits) for b in lits[k + 1 :])
    return out


def _accepted(clauses: list[list[int]], cells: tuple[int, ...], n: int) -> set[tuple[int, ...]]:
    """The values of ``cells`` some model of ``clauses`` gives them (auxiliaries free)."""
    from itertools import product

    found = set()
    with Solver("cadical153", bootstrap_with=clauses + _exactly_one_per_cell(cells, n)) as s:
        for values in product(range(1, n + 1), repeat=len(cells)):
            if s.solve(assumptions=[i * n + v for i, v in zip(cells, values, strict=True)]):
                found.add(values)
    return found


@pytest.mark.parametrize("seed", range(40))
def test_a_small_table_keeps_exactly_its_tuples(seed: int) -> None:
    """Forbidden tuples grouped with a free cell: the same tuples as one clause each."""
    from itertools import product

    from cpsudoku.encode.cnf import table_clauses
    from cpsudoku.model.primitives import Table

    rng = random.Random(seed)
    n = rng.choice([3, 4])
    cells = tuple(rng.sample(range(9), rng.randint(1, 3)))
    every = list(product(range(1, n + 1), repeat=len(cells)))
    tuples = tuple(t for t in every if rng.random() < rng.choice([0.1, 0.5, 0.9]))
    clauses: list[tuple[int, ...]] = []
    table_clauses(Table(cells, tuples), n, 9 * n, clauses)
    assert all(abs(x) <= 9 * n for c in clauses for x in c)  # no auxiliary variable
    assert _accepted([list(c) for c in clauses], cells, n) == set(tuples)


@pytest.mark.parametrize("seed", range(60))
def test_a_small_count_keeps_exactly_its_counts(seed: int) -> None:
    """Subsets over shared indicators: the assignments the count's own check keeps."""
    from cpsudoku.encode.cnf import small_count_clauses
    from cpsudoku.model.primitives import Count

    rng = random.Random(seed)
    n = 4
    cells = tuple(rng.sample(range(9), rng.randint(1, 5)))
    lo = rng.randint(0, len(cells))
    hi = rng.randint(lo, len(cells) + 1)
    count = Count(cells, rng.randrange(1, 1 << n), frozenset(range(lo, hi + 1)))
    clauses: list[tuple[int, ...]] = []
    classes: dict[tuple[tuple[int, ...], int, int], int] = {}
    top = small_count_clauses(count, n, 9 * n, clauses, (), classes)
    assert top is not None
    # A second count of the same set over the same cells shares the indicators.
    again = small_count_clauses(count, n, top, clauses, (), classes)
    assert again == top
    keeps = set()
    from itertools import product

    for values in product(range(1, n + 1), repeat=len(cells)):
        grid = [1] * 9
        for i, v in zip(cells, values, strict=True):
            grid[i] = v
        if count.holds(grid):
            keeps.add(values)
    assert _accepted([list(c) for c in clauses], cells, n) == keeps


def test_counts_beyond_the_small_form_are_left_to_the_layered_counter() -> None:
    from cpsudoku.encode.cnf import small_count_clauses
    from cpsudoku.model.primitives import Count

    out: list[tuple[int, ...]] = []
    wide = Count(tuple(range(6)), 0b1, frozenset({1}))  # six cells
    gaps = Count((0, 1, 2), 0b1, frozenset({0, 2}))  # not an interval
    assert small_count_clauses(wide, 4, 100, out, (), {}) is None
    assert small_count_clauses(gaps, 4, 100, out, (), {}) is None
    assert out == []
