"""The reference oracle on the published cases and the classic examples."""

import pytest
from conftest import read_lines

from cpsudoku import Status, count, parse, solve
from cpsudoku.engines import create_backend
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


@pytest.mark.parametrize("strategy", ["backtrack:naive"])  # the oracle: the contract suite
def test_empty_4x4_has_288_solutions(strategy: str) -> None:
    assert count("." * 16, limit=1000, backend=strategy) == 288


def test_leetcode_37() -> None:
    from test_formats import LEETCODE

    r = solve(LEETCODE, backend=ORACLE)
    assert r.status is Status.UNIQUE
    assert str(r.solution).startswith("534678912672195348198342567")


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
