"""Property-based tests on small grids: holes punched in valid grids always solve."""

import contextlib
import random

import pytest
from conftest import random_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku import Status, parse
from cpsudoku.engines import available_engines, get_backend
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

SHAPES = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)]
#: Every installed engine but the portfolio, which races the others in processes.
ENGINES = [cls.name for cls in available_engines() if cls.name != "portfolio"]


@st.composite
def punched(draw: st.DrawFn) -> tuple[Puzzle, Puzzle]:
    br, bc = draw(st.sampled_from(SHAPES))
    g = Rules.classic(br, bc)
    grid = random_grid(g, random.Random(draw(st.integers(0, 2**32))))
    holes = draw(st.sets(st.integers(0, g.cells - 1), max_size=g.cells))
    cells = tuple(0 if i in holes else v for i, v in enumerate(grid.cells))
    return Puzzle(g, cells), grid


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=60, deadline=None)
@given(case=punched())
def test_punched_grids_solve_to_valid_completions(engine: str, case: tuple[Puzzle, Puzzle]) -> None:
    puzzle, grid = case
    r = get_backend(engine).solve(puzzle)
    assert r.status in (Status.UNIQUE, Status.MULTIPLE)
    assert r.solution is not None
    assert is_solution(puzzle, r.solution)
    if r.status is Status.UNIQUE:
        assert r.solution == grid  # the grid we punched is a solution, so it is the one


@settings(max_examples=100, deadline=None)
@given(case=punched())
def test_one_line_round_trip(case: tuple[Puzzle, Puzzle]) -> None:
    puzzle, _ = case
    assert parse(str(puzzle), box=puzzle.rules) == puzzle
    assert parse(puzzle.pretty(), box=puzzle.rules) == puzzle


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="0123456789.ABCxyz#|-+ \n,[]", max_size=120))
def test_parse_never_crashes(text: str) -> None:
    from cpsudoku.model.errors import PuzzleError

    with contextlib.suppress(PuzzleError):
        parse(text)
