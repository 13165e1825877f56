"""The reference oracle on the published cases and the classic examples."""

import random

import pytest
from conftest import random_grid, read_csv, read_lines

from cpsudoku import Status, count, parse, solve, solve_many
from cpsudoku.engines import create_backend
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

ORACLE = "backtrack"


def test_article_4x4_examples() -> None:
    r = solve([[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]], backend=ORACLE)
    assert r.status is Status.UNIQUE
    assert r.solution is not None
    assert r.solution.rows() == [[1, 2, 3, 4], [3, 4, 1, 2], [4, 3, 2, 1], [2, 1, 4, 3]]
    r = solve([[4, 0, 0, 0], [0, 0, 0, 0], [1, 0, 4, 0], [0, 0, 0, 2]], backend=ORACLE)
    assert r.status.has_solution
    assert r.solution is not None
    assert is_solution(parse([[4, 0, 0, 0], [0, 0, 0, 0], [1, 0, 4, 0], [0, 0, 0, 2]]), r.solution)


@pytest.mark.parametrize("strategy", ["backtrack", "backtrack:naive"])
def test_empty_4x4_has_288_solutions(strategy: str) -> None:
    assert count("." * 16, limit=1000, backend=strategy) == 288


def test_leetcode_37() -> None:
    from test_formats import LEETCODE

    r = solve(LEETCODE, backend=ORACLE)
    assert r.status is Status.UNIQUE
    assert str(r.solution).startswith("534678912672195348198342567")


@pytest.mark.parametrize(("br", "bc"), [(2, 3), (3, 2), (2, 4), (3, 4), (4, 3)])
def test_rectangular_boxes_solve(br: int, bc: int) -> None:
    g = Rules.classic(br, bc)
    rng = random.Random(br * 10 + bc)
    grid = random_grid(g, rng)
    cells = list(grid.cells)
    for i in rng.sample(range(g.cells), g.cells // 2):
        cells[i] = 0
    puzzle = Puzzle(g, tuple(cells))
    r = solve(puzzle, backend=ORACLE)
    assert r.status in (Status.UNIQUE, Status.MULTIPLE)
    assert r.solution is not None
    assert is_solution(puzzle, r.solution)


EXPECTED = {"none (invalid givens)": Status.INVALID, "none": Status.UNSOLVABLE}


@pytest.mark.parametrize("case", read_csv("invalid_sudopedia.meta.csv"), ids=lambda c: c["case"])
def test_sudopedia_invalid_cases(case: dict[str, str]) -> None:
    r = solve(case["puzzle"], backend=ORACLE)
    expected = case["expected_solutions"]
    if expected in EXPECTED:
        assert r.status is EXPECTED[expected]
        if r.status is Status.INVALID:
            assert r.error
            assert "appears twice" in r.error
        return
    assert r.status is Status.MULTIPLE
    if expected.isdigit():
        assert count(case["puzzle"], limit=1000, backend=ORACLE) == int(expected)


@pytest.mark.parametrize(
    "case", read_csv("tdoku_test_puzzles.meta.csv"), ids=lambda c: c["puzzle"][:12]
)
def test_tdoku_solution_counts(case: dict[str, str]) -> None:
    expected = int(case["solution_count"])
    assert count(case["puzzle"], limit=1000, backend=ORACLE) == expected
    if expected == 1:
        r = solve(case["puzzle"], backend=ORACLE)
        assert str(r.solution) == case["solution"]


@pytest.mark.parametrize("name", ["top95.txt", "norvig_hardest.txt", "clue17_royle_200.txt"])
def test_published_unique_puzzles(name: str) -> None:
    for line in read_lines(name, 60):
        r = solve(line, backend=ORACLE)
        assert r.status is Status.UNIQUE, line
        assert r.solution is not None
        assert is_solution(parse(line), r.solution)


def test_big_grids_solve() -> None:
    for name in ("16x16_vukr_6.txt", "25x25_misc_3.txt"):
        for line in read_lines(name, 2):
            r = solve(line, backend=ORACLE)
            assert r.status is Status.UNIQUE
            assert r.solution is not None
            assert is_solution(parse(line), r.solution)


def test_time_limit_gives_timeout() -> None:
    # An empty 25x25 grid under the naive strategy cannot finish counting in 0.2 s.
    backend = create_backend("backtrack:naive")
    r = backend.solve(parse("." * 625), time_limit=0.2)
    assert r.status in (Status.TIMEOUT, Status.MULTIPLE)
    hard = parse(read_lines("top95.txt")[0])
    assert backend.solve(hard, time_limit=0.01).status is Status.TIMEOUT


def test_naive_agrees_with_oracle_on_easy_puzzles() -> None:
    naive = create_backend("backtrack:naive")
    oracle = create_backend(ORACLE)
    for line in read_lines("easy_norvig50.txt", 10):
        a, b = naive.solve(parse(line)), oracle.solve(parse(line))
        assert a.status == b.status == Status.UNIQUE
        assert a.solution == b.solution


def test_stats_reported() -> None:
    r = solve(read_lines("top95.txt")[0], backend=ORACLE)
    assert r.stats["nodes"] >= 1
    assert r.stats["guesses"] >= 1
    easy = solve(read_lines("easy_kaggle1m_200.txt")[0], backend=ORACLE)
    assert easy.stats["guesses"] == 0


@pytest.mark.parametrize("backend", ["sat", "cpsat", "backtrack"])
def test_a_nan_time_limit_is_refused_by_every_entry(backend: str) -> None:
    # A NaN deadline compares false with everything: one engine would stop at once,
    # another never. Refused up front, the same way everywhere.
    puzzle = "1.343..2.3..2..3"
    with pytest.raises(ValueError, match="NaN"):
        solve(puzzle, backend, time_limit=float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        count(puzzle, 2, backend, time_limit=float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        next(solve_many([puzzle], backend, time_limit=float("nan")))
    assert solve(puzzle, backend, time_limit=float("inf")).status is Status.UNIQUE
    assert solve(puzzle, backend, time_limit=0.0).status is Status.TIMEOUT  # a spent limit
