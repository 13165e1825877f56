"""The Python API given arguments of the wrong kind: clear errors of the project's own
family, raised before any work, never an AttributeError from deep inside."""

import json
from typing import Any

import pytest
from conftest import read_lines

from cpsudoku import (
    BoxShapeError,
    Status,
    UnknownBackendError,
    count,
    generate_puzzles,
    parse,
    solve,
    solve_many,
)

SMALL = "1.343..2.3..2..3"


@pytest.mark.parametrize("spec", [None, 3, ["sat"]])
def test_a_backend_spec_must_be_text(spec: Any) -> None:
    with pytest.raises(UnknownBackendError, match="a backend spec is text"):
        solve(SMALL, backend=spec)
    with pytest.raises(UnknownBackendError, match="a backend spec is text"):
        next(solve_many([SMALL], backend=spec))


@pytest.mark.parametrize("box", [4, 2.0, ("2", "2")])
def test_a_box_must_be_a_shape(box: Any) -> None:
    with pytest.raises(BoxShapeError, match="a box shape is text such as '2x3'"):
        parse(SMALL, box)
    result = solve(SMALL, backend="backtrack", box=box)
    assert result.status is Status.INVALID
    assert "box shape" in (result.error or "")
    with pytest.raises(BoxShapeError):  # at once, not as an invalid result per puzzle
        next(solve_many([SMALL], backend="backtrack", box=box))
    with pytest.raises(BoxShapeError):
        next(generate_puzzles(1, box))


def test_generating_needs_a_box() -> None:
    with pytest.raises(BoxShapeError, match="needs a box shape"):
        next(generate_puzzles(1, None))  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["²x²", "3x٣", "3 x", "x3"])
def test_box_text_of_other_digits_is_a_shape_error(text: str) -> None:
    with pytest.raises(BoxShapeError, match="not of the form RxC"):
        parse(SMALL, text)


@pytest.mark.parametrize("limit", [None, 2.5, True, 0, "3"])
def test_a_count_limit_must_be_a_whole_number(limit: Any) -> None:
    with pytest.raises(ValueError, match="limit must be a whole number of at least 1"):
        count("." * 16, limit=limit, backend="backtrack")


def test_a_count_never_exceeds_its_limit() -> None:
    assert count("." * 16, limit=3, backend="backtrack") == 3


def test_a_spent_time_limit_gives_the_same_statuses_with_the_pass_or_without() -> None:
    puzzles = read_lines("easy_kaggle1m_200.txt", 5)
    for presolve in (True, False):
        got = [r.status for r in solve_many(puzzles, "sat", time_limit=0, presolve=presolve)]
        assert got == [Status.TIMEOUT] * len(puzzles)


def test_a_grid_with_empty_cells_is_named_cell_by_cell_under_any_rule() -> None:
    """Rules whose checks read whole 2x2 areas or counts are not asked about empty cells."""
    from cpsudoku import solution_problems

    rules = {
        "size": 9,
        "box": "3x3",
        "constraints": [
            {"kind": "global-entropy"},
            {"kind": "quadruple", "cells": [0, 1, 9, 10], "values": [1, 2, 3, 4]},
        ],
    }
    puzzle = json.dumps({"rules": rules, "puzzle": "." * 81})
    partial = json.dumps({"rules": rules, "puzzle": "1" + "." * 80})
    problems = solution_problems(puzzle, partial)
    assert problems[0] == "row 1, column 2 holds 0, not a value 1..9"
    assert len([p for p in problems if "not a value" in p]) == 80


def test_the_grid_helpers_take_any_puzzle_form() -> None:
    from cpsudoku import create_backend, is_solution, solution_problems, to_grid, to_line

    rows = [[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]]
    assert to_line(rows) == SMALL
    assert parse(to_grid(SMALL)) == parse(SMALL)
    assert is_solution(SMALL, "1234341243212143")
    assert not is_solution(SMALL, "1234341243212134")
    assert solution_problems(SMALL, "1234341243212143") == []
    assert solution_problems(SMALL, "1234341243212134")
    with create_backend("backtrack") as backend:
        assert backend.solve(SMALL).status is Status.UNIQUE
        assert backend.count(rows, limit=3).count == 1
