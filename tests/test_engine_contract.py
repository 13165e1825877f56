"""The contract every registered engine keeps: one suite, run on each of them.

The engines come from the registry (each installed one, by its default spec), so a new
engine is held to all of this by being registered. What is specific to one engine (its
variants, encodings, solvers, processes) stays in that engine's own test file.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest
from conftest import random_grid, read_csv, read_lines

from cpsudoku import Status, parse
from cpsudoku.engines import Backend, available_engines, create_backend
from cpsudoku.model.errors import ConflictingGivensError, UnknownBackendError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

#: Every installed engine, by its default spec.
ENGINES = [cls.name for cls in available_engines()]

#: Box shapes every engine solves, squares and rectangles, 1x1 to 25x25.
SHAPES = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 3), (4, 4), (5, 5)]

SUDOPEDIA = read_csv("invalid_sudopedia.meta.csv")
TDOKU = read_csv("tdoku_test_puzzles.meta.csv")


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Backend]:
    with create_backend(request.param) as backend:
        yield backend


def test_the_empty_4x4_grid_has_288_solutions(engine: Backend) -> None:
    found = engine.count(parse("." * 16), limit=1000)
    assert found.count == 288
    assert found.complete


def test_counting_stops_at_the_limit(engine: Backend) -> None:
    found = engine.count(parse("." * 81), limit=50)
    assert found.count == 50
    assert not found.complete
    assert engine.solve(parse("." * 81)).status is Status.MULTIPLE


@pytest.mark.parametrize("case", SUDOPEDIA, ids=lambda c: c["case"])
def test_the_sudopedia_invalid_cases(engine: Backend, case: dict[str, str]) -> None:
    r = engine.solve(parse(case["puzzle"], check=False))
    expected = case["expected_solutions"]
    if expected == "none (invalid givens)":
        with pytest.raises(ConflictingGivensError) as up_front:
            parse(case["puzzle"])
        assert r.status is Status.INVALID
        assert r.error == str(up_front.value)  # the same message, whichever engine
        assert "appears twice" in r.error
    elif expected == "none":
        assert r.status is Status.UNSOLVABLE
    else:
        assert r.status is Status.MULTIPLE, case["case"]
        if expected.isdigit():
            assert engine.count(parse(case["puzzle"]), limit=1000).count == int(expected)


@pytest.mark.parametrize("case", TDOKU, ids=lambda c: c["puzzle"][:12])
def test_the_tdoku_counts_are_exact(engine: Backend, case: dict[str, str]) -> None:
    found = engine.count(parse(case["puzzle"]), limit=1000)
    assert found.count == int(case["solution_count"])
    assert found.complete
    if found.count == 1:
        r = engine.solve(parse(case["puzzle"]))
        assert r.status is Status.UNIQUE
        assert str(r.solution) == case["solution"]


@pytest.mark.parametrize("name", ["nosolution_tdoku.txt", "multisolution_tdoku.txt"])
def test_the_no_and_multi_solution_files(engine: Backend, name: str) -> None:
    expected = Status.UNSOLVABLE if name.startswith("no") else Status.MULTIPLE
    for line in read_lines(name):
        r = engine.solve(parse(line))
        assert r.status is expected, line
        if r.solution is not None:
            assert is_solution(parse(line), r.solution)


def test_clashing_givens_are_invalid_then_the_next_puzzle_is_right(engine: Backend) -> None:
    clash = parse("11" + "." * 79, check=False)
    with pytest.raises(ConflictingGivensError, match="appears twice in row 1") as up_front:
        clash.check()
    unique = parse(read_lines("top95.txt")[0])
    for _ in range(2):
        r = engine.solve(clash)
        assert r.status is Status.INVALID
        assert r.error == str(up_front.value)
        assert engine.solve(unique).status is Status.UNIQUE
    with pytest.raises(ConflictingGivensError):
        engine.count(clash)


def test_a_spent_time_limit_is_a_timeout_then_the_next_puzzle_is_right(engine: Backend) -> None:
    empty = parse("." * 625)
    assert engine.solve(empty, time_limit=0).status is Status.TIMEOUT
    found = engine.count(empty, limit=10**6, time_limit=0.001)
    assert found.timed_out
    assert not found.complete
    line = read_lines("top95.txt")[1]
    r = engine.solve(parse(line))
    assert r.status is Status.UNIQUE
    assert r.solution is not None
    assert is_solution(parse(line), r.solution)


def test_a_nan_time_limit_is_refused(engine: Backend) -> None:
    # A NaN deadline compares false with everything: one engine would stop at once,
    # another never. Refused up front, the same way everywhere.
    puzzle = parse("1.343..2.3..2..3")
    with pytest.raises(ValueError, match="NaN"):
        engine.solve(puzzle, time_limit=math.nan)
    with pytest.raises(ValueError, match="NaN"):
        engine.count(puzzle, time_limit=math.nan)


def test_a_bad_limit_is_refused(engine: Backend) -> None:
    for limit in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="limit"):
            engine.count(parse("1.343..2.3..2..3"), limit=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize(("br", "bc"), SHAPES, ids=lambda s: str(s))
def test_every_box_shape(engine: Backend, br: int, bc: int) -> None:
    g = Rules.classic(br, bc)
    rng = random.Random(br * 100 + bc)
    grid = random_grid(g, rng)
    holes = 0.35 if g.n >= 16 else 0.6
    puzzle = Puzzle(g, tuple(0 if rng.random() < holes else v for v in grid.cells))
    r = engine.solve(puzzle)
    assert r.status in (Status.UNIQUE, Status.MULTIPLE)
    assert r.solution is not None
    assert is_solution(puzzle, r.solution)
    if r.status is Status.UNIQUE:
        assert r.solution == grid  # the grid we punched is a solution, so it is the one
    assert engine.solve(grid).status is Status.UNIQUE  # a complete grid is its own answer


def test_the_answer_names_the_engine_that_gave_it(engine: Backend) -> None:
    r = engine.solve(parse(read_lines("top95.txt")[0]))
    assert r.backend.split(":")[0] in ENGINES


def test_unknown_variants_are_refused() -> None:
    for name in ENGINES:
        with pytest.raises(UnknownBackendError, match="nope"):
            create_backend(f"{name}:nope")
