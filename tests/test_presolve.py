"""The whole-array logic pass (cpsudoku.datasets.bulk_logic) against the reference oracle.

The pass may leave any puzzle UNDECIDED; what it decides must agree with the oracle:
UNIQUE with the oracle's unique solution, UNSOLVABLE only when the oracle proves no
solution, CONFLICT exactly when the givens clash. And it must be sound: the
candidates it hands on for an undecided puzzle keep every real solution.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from conftest import random_grid, read_csv, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku.datasets.bulk_logic import (
    CONFLICT,
    UNDECIDED,
    UNIQUE,
    UNSOLVABLE,
    BlockResult,
    format_block,
    parse_block,
    presolve,
    verify_block,
)
from cpsudoku.engines import create_backend
from cpsudoku.generate import generate_puzzle
from cpsudoku.model.errors import ValueOutOfRangeError, WrongLengthError
from cpsudoku.model.forms import AmbiguousZeroWarning, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Region, Rules

BUNDLED = Path(__file__).parent.parent / "benchmarks" / "data"
ORACLE = create_backend("backtrack")
#: Sample size per bundled dataset, and how many undecided puzzles per file get the
#: (slower) soundness check against the oracle's solutions.
SAMPLE = 150
SOUNDNESS = 12


def bundled(name: str) -> list[str]:
    return [s for s in (line.strip() for line in (BUNDLED / name).read_text().splitlines()) if s]


def spread(items: list[str], k: int) -> list[str]:
    """``k`` items evenly spaced over the list (all when there are fewer)."""
    if len(items) <= k:
        return items
    return [items[i * len(items) // k] for i in range(k)]


def run(records: list[str], g: Rules) -> tuple[np.ndarray, BlockResult]:
    values, ok = parse_block(records, g)
    assert ok.all()
    return values, presolve(values, g)


def oracle_solutions(puzzle: Puzzle, limit: int = 2) -> list[tuple[int, ...]]:
    return ORACLE.search(puzzle, limit, None).solutions


def assert_sound(result: BlockResult, i: int, solutions: list[tuple[int, ...]]) -> None:
    """Every real solution fits row i's placed values and candidates."""
    cand = result.candidates[i].tolist()
    placed = result.solutions[i].tolist()
    for sol in solutions:
        assert all(c >> (v - 1) & 1 for c, v in zip(cand, sol, strict=True))
        assert all(p in (0, v) for p, v in zip(placed, sol, strict=True))


def assert_agrees(
    records: list[str], g: Rules, values: np.ndarray, result: BlockResult, soundness: int
) -> None:
    """Decided rows agree with the oracle; up to ``soundness`` undecided rows are sound."""
    lines = format_block(result.solutions, g)
    undecided_checked = 0
    for i, text in enumerate(records):
        status = result.status[i]
        if status == UNDECIDED:
            if undecided_checked < soundness:
                undecided_checked += 1
                assert_sound(result, i, oracle_solutions(parse(text, box=g)))
            continue
        r = ORACLE.solve(parse(text, box=g, check=False))
        if status == UNIQUE:
            assert r.status is Status.UNIQUE, (text, r.status)
            assert lines[i] == str(r.solution)
        elif status == UNSOLVABLE:
            assert r.status is Status.UNSOLVABLE, (text, r.status)
        else:
            assert status == CONFLICT
            assert r.status is Status.INVALID
    unique = result.status == UNIQUE
    assert verify_block(values[unique], result.solutions[unique], g).all()


# --- bundled datasets ------------------------------------------------------------------

DATASETS = sorted(p.name for p in BUNDLED.glob("*.txt"))


@pytest.mark.parametrize("name", DATASETS)
def test_bundled_sample_agrees_with_oracle(name: str) -> None:
    records = spread(bundled(name), SAMPLE)
    g = Rules.for_size(math.isqrt(len(records[0])))
    values, result = run(records, g)
    # The oracle's search on hard 25x25 puzzles takes minutes: check decided rows only.
    soundness = SOUNDNESS if g.n <= 16 else 0
    assert_agrees(records, g, values, result, soundness)


def test_easy_kaggle_sample_is_all_decided() -> None:
    # The measurement: every easy_kaggle1m puzzle falls to singles.
    records = bundled("easy_kaggle1m.txt")
    _, result = run(records, Rules.classic(3, 3))
    assert (result.status == UNIQUE).all()


def test_no_solution_file_is_never_unique() -> None:
    records = bundled("nosolution_tdoku.txt")
    g = Rules.classic(3, 3)
    values, result = run(records, g)
    assert set(result.status.tolist()) <= {UNDECIDED, UNSOLVABLE}
    assert_agrees(records, g, values, result, soundness=0)


@pytest.mark.parametrize("name", ["multisolution_tdoku.txt", "serg_benchmark_multisolution.txt"])
def test_multi_solution_files_are_never_decided(name: str) -> None:
    records = bundled(name)
    _, result = run(records, Rules.classic(3, 3))
    assert (result.status == UNDECIDED).all()
    for i in range(0, len(records), max(1, len(records) // 25)):
        solutions = oracle_solutions(parse(records[i]))
        assert len(solutions) == 2
        assert_sound(result, i, solutions)


def test_sudopedia_invalid_cases() -> None:
    expected = {
        "none (invalid givens)": {CONFLICT},
        "none": {UNSOLVABLE, UNDECIDED},
    }
    cases = read_csv("invalid_sudopedia.meta.csv")
    g = Rules.classic(3, 3)
    _, result = run([c["puzzle"] for c in cases], g)
    for case, status in zip(cases, result.status.tolist(), strict=True):
        assert status in expected.get(case["expected_solutions"], {UNDECIDED}), case["case"]


# --- box shapes ------------------------------------------------------------------------


def punched_block(g: Rules, count: int, holes: float, seed: int) -> tuple[list[str], list[str]]:
    """``count`` (puzzle, grid) pairs as one-line strings: valid grids with holes."""
    rng = random.Random(seed)
    puzzles, grids = [], []
    for _ in range(count):
        grid = random_grid(g, rng)
        cells = tuple(0 if rng.random() < holes else v for v in grid.cells)
        puzzles.append(str(Puzzle(g, cells)))
        grids.append(str(grid))
    return puzzles, grids


@pytest.mark.parametrize(
    ("br", "bc", "holes"),
    [(2, 2, 0.6), (2, 3, 0.55), (3, 2, 0.55), (2, 4, 0.5), (3, 4, 0.5), (4, 4, 0.3), (5, 5, 0.33)],
)
def test_blocks_of_every_box_shape(br: int, bc: int, holes: float) -> None:
    g = Rules.classic(br, bc)
    puzzles, grids = punched_block(g, 60 if g.n <= 12 else 12, holes, seed=br * 10 + bc)
    values, result = run(puzzles, g)
    assert UNSOLVABLE not in result.status
    assert CONFLICT not in result.status
    lines = format_block(result.solutions, g)
    for i, status in enumerate(result.status.tolist()):
        if status == UNIQUE:
            # The punched grid is a solution, so a forced solution must be that grid.
            assert lines[i] == grids[i]
        else:
            assert_sound(result, i, [parse(grids[i], box=g).cells])
    assert_agrees(puzzles, g, values, result, soundness=5 if g.n <= 9 else 0)
    assert UNIQUE in result.status
    assert UNDECIDED in result.status


@pytest.mark.parametrize("name", ["16x16_janko.txt", "16x16_vukr.txt", "25x25_misc.txt"])
def test_large_grid_blocks_keep_order(name: str) -> None:
    records = bundled(name)
    g = Rules.for_size(math.isqrt(len(records[0])))
    _, block = run(records, g)
    for i in range(0, len(records), 7):
        _, alone = run([records[i]], g)
        assert alone.status[0] == block.status[i]
        assert (alone.solutions[0] == block.solutions[i]).all()
        assert (alone.candidates[0] == block.candidates[i]).all()


def no_candidate(g: Rules) -> list[int]:
    """Givens 1..n-1 in row 1 and n below them in column 1: r1c1 has no candidate left."""
    cells = [0] * g.cells
    cells[1 : g.n] = range(1, g.n)
    cells[g.box_rows * g.n] = g.n
    return cells


@pytest.mark.parametrize(("br", "bc"), [(7, 8), (6, 11)])
def test_wide_masks(br: int, bc: int) -> None:
    # 56x56 needs uint64 masks whose sums could overflow (bits are counted instead);
    # 66x66 needs masks wider than 64 bits (Python ints in object arrays).
    g = Rules.classic(br, bc)
    rng = random.Random(br)
    grid = random_grid(g, rng).cells
    punched = [0 if rng.random() < 0.05 else v for v in grid]
    clash = list(punched)
    clash[1] = clash[0] = 1
    values = np.array([punched, [0] * g.cells, no_candidate(g), clash], dtype=np.uint8)
    result = presolve(values, g)
    assert result.status.tolist() == [UNIQUE, UNDECIDED, UNSOLVABLE, CONFLICT]
    assert tuple(result.solutions[0].tolist()) == grid
    assert set(result.candidates[1].tolist()) == {(1 << g.n) - 1}
    assert ORACLE.solve(Puzzle(g, tuple(no_candidate(g)))).status is Status.UNSOLVABLE


# --- the mixed block ---------------------------------------------------------------------

FORCED = "1....5..738.9.....6.....48.82...1.75.4.76..2..69..2..1..5.39..4....2.1......46352"
UNSOLVABLE_9 = "..9.287..8.6..4..5..3.....46.........2.71345.........23.....5..9..4..8.7..125.3.."
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"
CLASH = "11" + "." * 79


#: Singles alone stall on it; seven locked-candidate steps (pointing) finish it.
POINTING = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def test_locked_candidates_decide_what_singles_leave() -> None:
    g = Rules.classic(3, 3)
    values, _ = parse_block([POINTING, POINTING.replace("4", ".", 1)], g)
    result = presolve(values, g)
    assert result.status.tolist() == [UNIQUE, UNDECIDED]
    assert format_block(result.solutions[:1], g)[0] == str(ORACLE.solve(parse(POINTING)).solution)
    # The undecided one keeps every solution among the candidates it hands on.
    assert_sound(result, 1, oracle_solutions(Puzzle(g, tuple(values[1].tolist()))))


def test_mixed_block_keeps_order() -> None:
    g = Rules.classic(3, 3)
    records = [
        FORCED,
        "x" + FORCED[1:],  # unknown symbol
        UNSOLVABLE_9,
        FORCED[:-1],  # one cell short
        HARD,
        CLASH,
        "é" + FORCED[1:],  # non-ASCII, right length in characters
        "A" + FORCED[1:],  # value 10 in a 9x9 grid
        " ".join(FORCED),  # layout: left to the slow path
        FORCED.replace(".", "0"),
    ]
    values, ok = parse_block(records, g)
    assert ok.tolist() == [True, False, True, False, True, True, False, False, False, True]
    assert not values[~ok].any()
    # The whole block goes in; refused rows are all-empty grids the caller ignores.
    result = presolve(values, g)
    assert result.status[ok].tolist() == [UNIQUE, UNSOLVABLE, UNDECIDED, CONFLICT, UNIQUE]
    expected = str(ORACLE.solve(parse(FORCED)).solution)
    lines = format_block(result.solutions, g)
    assert (lines[0], lines[9]) == (expected, expected)
    assert not result.solutions[[2, 5]].any()
    # The undecided row hands on its givens and sound candidates.
    row, givens = result.solutions[4].tolist(), values[4].tolist()
    assert all(v == given for v, given in zip(row, givens, strict=True) if given)
    assert_sound(result, 4, oracle_solutions(parse(HARD)))
    # The refused rows are what the per-record path is for: it reads or explains them.
    assert str(parse(records[8])) == FORCED


@pytest.mark.parametrize(
    ("puzzle", "why"),
    [
        ("..4.1.....2...3.", "an open cell without candidates"),
        (".....3..2.4...23", "a value with no place left in a unit"),
        (".3.2..1.32.1....", "a cell that is the only place for two values"),
        ("..34.41......241", "two forced placements of one value in a unit"),
    ],
)
def test_each_contradiction_gives_unsolvable(puzzle: str, why: str) -> None:
    g = Rules.classic(2, 2)
    _, result = run([puzzle], g)
    assert result.status[0] == UNSOLVABLE, why
    assert ORACLE.solve(parse(puzzle)).status is Status.UNSOLVABLE


def test_conflict_only_for_clashing_givens() -> None:
    g = Rules.classic(2, 2)
    _, result = run(["..2.1.3..122..13", "1234341243212143", "1234341243212134"], g)
    # A complete valid grid is its own unique solution; a complete grid with a repeat
    # is a clash among givens.
    assert result.status.tolist() == [CONFLICT, UNIQUE, CONFLICT]


def test_results_do_not_depend_on_neighbours() -> None:
    # Two datasets shuffled together span more than one internal chunk.
    records = bundled("easy_kaggle9m.txt") + bundled("clue17_royle.txt")
    g = Rules.classic(3, 3)
    order = list(range(len(records)))
    random.Random(4).shuffle(order)
    _, plain = run(records, g)
    _, mixed = run([records[i] for i in order], g)
    assert (mixed.status == plain.status[order]).all()
    assert (mixed.solutions == plain.solutions[order]).all()
    assert (mixed.candidates == plain.candidates[order]).all()


def test_empty_block() -> None:
    g = Rules.classic(3, 3)
    values, ok = parse_block([], g)
    assert values.shape == (0, 81)
    assert ok.shape == (0,)
    result = presolve(values, g)
    assert result.status.shape == (0,)
    assert result.solutions.shape == (0, 81)
    assert format_block(result.solutions, g) == []


# --- rules are data: rules with extra units ------------------------------------------


def x_rules(n: int = 9) -> Rules:
    """Sudoku X: the two main diagonals are units too (cells in 3, 4 or 5 units)."""
    main = tuple(i * n + i for i in range(n))
    anti = tuple(i * n + n - 1 - i for i in range(n))
    box = Rules.for_size(n)
    return box.with_extra(Region("diagonal", main), Region("anti-diagonal", anti))


def test_extra_units_are_rules_too() -> None:
    g = x_rules()
    grid = oracle_solutions(Puzzle(g, (0,) * 81), 1)[0]
    rng = random.Random(9)
    puzzles = [tuple(0 if rng.random() < 0.6 else v for v in grid) for _ in range(40)]
    result = presolve(np.array(puzzles, dtype=np.uint8), g)
    assert UNIQUE in result.status
    for i, cells in enumerate(puzzles):
        puzzle = Puzzle(g, cells)
        if result.status[i] == UNIQUE:
            r = ORACLE.solve(puzzle)
            assert r.status is Status.UNIQUE
            assert tuple(result.solutions[i].tolist()) == r.solution.cells == grid
        else:
            assert result.status[i] == UNDECIDED
            assert_sound(result, i, [grid])
    # A repeat on a diagonal only (r1c1 and r5c5) clashes here, not in plain Sudoku.
    diagonal = [0] * 81
    diagonal[0] = diagonal[40] = 5
    block = np.array([diagonal], dtype=np.uint8)
    assert presolve(block, g).status[0] == CONFLICT
    assert presolve(block, Rules.classic(3, 3)).status[0] == UNDECIDED


# --- property: never contradicts the oracle ------------------------------------------------


@st.composite
def small_blocks(draw: st.DrawFn) -> tuple[Rules, list[tuple[int, ...]]]:
    """Blocks of 1-6 small puzzles: valid grids with holes, some with a wrong value
    written into a hole (no clash, usually unsolvable), some with any value anywhere."""
    br, bc = draw(st.sampled_from([(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)]))
    g = Rules.classic(br, bc)
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        rng = random.Random(draw(st.integers(0, 2**32)))
        grid = random_grid(g, rng)
        share = draw(st.floats(0.0, 0.9))
        holes = {i for i in range(g.cells) if rng.random() < share}
        cells = [0 if i in holes else v for i, v in enumerate(grid.cells)]
        change = draw(st.sampled_from(["none", "wrong", "any"]))
        if change == "wrong" and holes:
            i = draw(st.sampled_from(sorted(holes)))
            seen = {cells[j] for j in g.peers[i]} | {grid.cells[i]}
            allowed = [v for v in range(1, g.n + 1) if v not in seen]
            if allowed:
                cells[i] = draw(st.sampled_from(allowed))
        elif change == "any":
            cells[draw(st.integers(0, g.cells - 1))] = draw(st.integers(0, g.n))
        rows.append(tuple(cells))
    return g, rows


@settings(max_examples=150, deadline=None)
@given(case=small_blocks())
def test_never_contradicts_the_oracle(case: tuple[Rules, list[tuple[int, ...]]]) -> None:
    g, rows = case
    result = presolve(np.array(rows, dtype=np.uint8), g)
    for i, cells in enumerate(rows):
        puzzle = Puzzle(g, cells)
        status = result.status[i]
        assert (status == CONFLICT) == bool(puzzle.conflicts())
        if status == CONFLICT:
            continue
        found = ORACLE.search(puzzle, 2, None)
        if status == UNIQUE:
            assert found.count == 1
            assert tuple(result.solutions[i].tolist()) == found.solutions[0]
        elif status == UNSOLVABLE:
            assert found.count == 0
        else:
            assert_sound(result, i, found.solutions)


# --- the bulk verifier, parser and formatter ------------------------------------------------


def test_verify_block_rejects_tampered_solutions() -> None:
    g = Rules.classic(3, 3)
    puzzle = np.array(parse(FORCED).cells, dtype=np.uint8)
    solution = np.array(ORACLE.solve(parse(FORCED)).solution.cells, dtype=np.uint8)
    changed_given = solution.copy()
    given = int(np.flatnonzero(puzzle)[0])
    # Relabel two values everywhere: still a valid grid, but a given changes.
    a, b = changed_given[given], (changed_given[given] % 9) + 1
    changed_given = np.where(solution == a, b, np.where(solution == b, a, solution))
    repeated = solution.copy()
    open_cell = int(np.flatnonzero(puzzle == 0)[0])
    repeated[open_cell] = repeated[open_cell ^ 1] if open_cell % 9 != 8 else repeated[open_cell - 1]
    swapped = solution.copy()
    row = open_cell // 9 * 9
    swapped[row : row + 2] = swapped[row : row + 2][::-1]  # rows stay permutations
    zero = solution.copy()
    zero[open_cell] = 0
    ten = solution.copy()
    ten[open_cell] = 10
    sols = np.array([solution, changed_given, repeated, swapped, zero, ten])
    puzzles = np.repeat(puzzle[None], len(sols), axis=0)
    puzzles[3] = 0  # the swap may touch a given: judge the units alone
    assert verify_block(puzzles, sols, g).tolist() == [True, False, False, False, False, False]
    with pytest.raises(WrongLengthError):
        verify_block(puzzles[:, :80], sols[:, :80], g)


def test_parse_block_matches_parse() -> None:
    g = Rules.classic(4, 4)
    records = bundled("16x16_vukr.txt")[:20]
    records[3] = records[3].lower()
    records[5] = records[5].replace(".", "0")
    values, ok = parse_block(records, g)
    assert ok.all()
    for k, (text, row) in enumerate(zip(records, values.tolist(), strict=True)):
        if k == 5:  # 0 is empty here, and parse says it may be a digit
            with pytest.warns(AmbiguousZeroWarning):
                assert tuple(row) == parse(text, box=g).cells
        else:
            assert tuple(row) == parse(text, box=g).cells
    assert format_block(values, g)[0] == records[0]
    assert format_block(values, g)[3] == records[3].upper()


def test_parse_block_refuses_what_it_cannot_read() -> None:
    g = Rules.classic(2, 3)
    ok_line = "1" + "." * 35
    records = [ok_line, ok_line + ".", "7" + "." * 35, "_-*0." * 7 + "6", "\u00e9" * 36, ""]
    values, ok = parse_block(records, g)
    assert ok.tolist() == [True, False, False, True, False, False]
    assert values[3, -1] == 6
    assert values[3, :-1].sum() == 0
    big = Rules.classic(6, 6)  # no one-line symbol form above 35
    _, ok = parse_block(["." * 1296], big)
    assert not ok.any()
    with pytest.raises(ValueError, match="symbol form"):
        format_block(np.zeros((1, 1296), dtype=np.uint8), big)


def test_presolve_refuses_bad_arrays() -> None:
    g = Rules.classic(2, 2)
    with pytest.raises(WrongLengthError):
        presolve(np.zeros((2, 15), dtype=np.uint8), g)
    bad = np.zeros((2, 16), dtype=np.uint8)
    bad[1, 5] = 5
    with pytest.raises(ValueOutOfRangeError, match="row 1"):
        presolve(bad, g)
    with pytest.raises(ValueError, match="integer"):
        presolve(np.zeros((1, 16)), g)


def test_block_lines_read_like_single_puzzles() -> None:
    lines = read_lines("easy_kaggle1m_200.txt")
    g = Rules.classic(3, 3)
    _, result = run(lines, g)
    out = format_block(result.solutions, g)
    for i in range(0, len(lines), 20):
        assert out[i] == str(ORACLE.solve(parse(lines[i])).solution)


def test_the_pipeline_runs_as_much_of_the_pass_as_pays() -> None:
    from cpsudoku import solve_many
    from cpsudoku.datasets.bulk_logic import PassPlan, pass_plan

    plans = {
        (r, c): pass_plan(Rules.classic(r, c)) for r, c in ((2, 2), (3, 3), (3, 4), (4, 4), (5, 5))
    }
    assert plans == {
        (2, 2): PassPlan.FULL,
        (3, 3): PassPlan.FULL,
        (3, 4): PassPlan.OFF,
        (4, 4): PassPlan.SINGLES,
        (5, 5): PassPlan.FULL,
    }
    janko = bundled("16x16_janko.txt")[:20]
    g = Rules.classic(4, 4)
    values, _ = parse_block(janko, g)
    full = presolve(values, g)
    singles = presolve(values, g, locked=False)
    assert (singles.status == UNIQUE).sum() < (full.status == UNIQUE).sum()
    piped = list(solve_many(janko, "backtrack"))
    alone = list(solve_many(janko, "backtrack", presolve=False))
    assert [r.solution for r in piped] == [r.solution for r in alone]
    assert sum(r.backend == "logic" for r in piped) == (singles.status == UNIQUE).sum()
    twelve = [str(generate_puzzle("3x4", seed=s).puzzle) for s in range(2)]
    assert all(r.backend != "logic" for r in solve_many(twelve, "backtrack", box="3x4"))
