"""solve_many over lines of text: blocks to the compiled engine, Results as solve gives them.

Runs of one-line puzzles go to the bulk pass a block at a time and their Results are
built in bulk, each solution left as bytes until it is read. Whatever path a line
takes, its Result is the one ``solve`` gives it alone: status, solution, witnesses,
error text, engine, and the compiled engine's counters.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from collections.abc import Iterator
from itertools import count, cycle, islice
from typing import Any

import pytest
from conftest import read_lines

import cpsudoku
from cpsudoku import Status, solve, solve_many
from cpsudoku.engines import native_built
from cpsudoku.model.fpuzzles import fpuzzles_link, to_fpuzzles
from cpsudoku.model.result import PendingGrid, Result, bulk_result
from cpsudoku.model.rules import Rules

pytestmark = pytest.mark.skipif(not native_built(), reason="the compiled engine is not built")

CLUE17 = read_lines("clue17_royle_200.txt", 40)
EASY = read_lines("easy_kaggle1m_200.txt", 20)
MULTI = read_lines("multisolution_tdoku.txt", 8)
NONE = read_lines("nosolution_tdoku.txt", 6)
HARD = read_lines("forum_hardest_1106_60.txt", 6)
SIXTEEN = read_lines("16x16_vukr_6.txt", 3)
FOUR = ["1.343..2.3..2..3", "2..4...2.....3..", "..31........14..", "4..1.........31.", "." * 16]
#: 6x6 puzzles of boxes 3 rows by 2 columns (not the default 2x3 of a 36-cell line).
SIX_3X2 = [
    ".14.........3...2..41.3....6..1....2",
    "......4..31.5.4.6....1......2...36..",
    "4.5...3....4.....621.4....6.......2.",
    "........52...2...3..16...4..5.....1.",
]
JIGSAW = [
    line.strip()
    for line in (read_lines("variants_sample.jsonl"))
    if json.loads(line)["family"] == "jigsaw"
]

#: Every kind of line that is no puzzle, and lines the bulk parser leaves to the engine.
BAD = [
    CLUE17[0][:80],  # one cell short
    CLUE17[0] + ".",  # one cell long
    "x" + CLUE17[0][1:],  # an unknown symbol
    "11" + EASY[0][2:],  # clashing givens (a row)
    "1" + "." * 8 + "1" + "." * 71,  # clashing givens (a column)
    "1" + "." * 9 + "1" + "." * 70,  # clashing givens (a box)
    "",
    "   ",
    "1",
    "12345",
    "?" * 81,
    "9" + "." * 15,  # 9 in a 4x4 grid
    "{",  # malformed JSON
    '{"puzzle": 5}',
    '{"puzzle": "' + EASY[1] + '", "rules": {"size": 7, "box": "3x3"}}',
    "x" * 200_000,  # over-long
    "1" * 81,
]
#: Lines the engine reads one by one (other text forms), solved all the same.
OTHER_FORMS = [
    " ".join(EASY[2]),  # integers
    "\n".join(CLUE17[1][i : i + 9] for i in range(0, 81, 9)),  # a grid of 9 lines
    "  " + CLUE17[2] + "  \n",  # surrounding blanks: still one line
]


def same_as_alone(results: list[Result], items: list[Any], engine: str, **kwargs: Any) -> None:
    """Each result is what ``solve`` gives its item alone (seconds apart).

    A result the bulk pass gave (backend ``native``) is compared with the compiled
    engine's, counters included; the logic pass's with the engine's, bar the backend.
    """
    assert len(results) == len(items)
    for k, (item, got) in enumerate(zip(items, results, strict=True)):
        assert type(got) is Result
        alone = solve(item, "native" if got.backend == "native" else engine, **kwargs)
        where = f"item {k}: {str(item)[:90]!r}"
        assert got.status == alone.status, where
        assert got.solution == alone.solution, where
        assert got.solutions == alone.solutions, where
        assert got.error == alone.error, where
        if got.backend != "logic":
            assert got.backend == alone.backend, where
        if got.backend == "native":
            assert got.stats == alone.stats, where
        elif got.backend == "logic":
            assert got.stats == {}, where


def key(result: Result) -> tuple[Any, ...]:
    """A result without its time."""
    return (*dataclasses.astuple(dataclasses.replace(result, seconds=0.0)),)


def test_clue17_lines_go_to_the_compiled_engine_in_bulk() -> None:
    results = list(solve_many(CLUE17, jobs=1))
    assert {r.backend for r in results} == {"native"}
    assert {r.status for r in results} == {Status.UNIQUE}
    same_as_alone(results, CLUE17, "native")


@pytest.mark.parametrize("engine", ["native", "sat"])
def test_every_kind_of_line_as_alone(engine: str) -> None:
    lines = [*EASY[:5], *MULTI, *NONE, *BAD, *OTHER_FORMS, *HARD[:3], *FOUR, *SIXTEEN]
    results = list(solve_many(lines, engine))
    statuses = [r.status for r in results]
    assert Status.MULTIPLE in statuses
    assert Status.UNSOLVABLE in statuses
    assert statuses.count(Status.INVALID) == len(BAD)
    if engine == "native":
        same_as_alone(results, lines, engine)
        return
    # A live SAT solver's witnesses of a multiple puzzle depend on what it learned
    # before: compare the rest exactly, and those as statuses.
    sure = [k for k, r in enumerate(results) if r.status is not Status.MULTIPLE]
    same_as_alone([results[k] for k in sure], [lines[k] for k in sure], engine)
    for line, result in zip(lines, results, strict=True):
        if result.status is Status.MULTIPLE:
            assert solve(line, engine).status is Status.MULTIPLE
            assert len(set(result.solutions)) == 2


def test_invalid_lines_keep_their_error_text() -> None:
    results = list(solve_many(BAD, "native"))
    for line, result in zip(BAD, results, strict=True):
        alone = solve(line, "native")
        assert (result.status, result.error, result.backend) == (
            alone.status,
            alone.error,
            alone.backend,
        )
    assert "twice" in (results[3].error or "")


def test_mixed_inputs_keep_their_order_and_results() -> None:
    jigsaw = cpsudoku.parse(JIGSAW[0])
    items: list[Any] = [
        CLUE17[3],
        cpsudoku.parse(CLUE17[4]),  # a Puzzle
        cpsudoku.parse(CLUE17[5]).rows(),  # a list of lists
        JIGSAW[0],  # JSON with its own regions: the bulk pass takes it, by its rules
        jigsaw,
        fpuzzles_link(to_fpuzzles(cpsudoku.parse(EASY[6]))),
        "12",
        CLUE17[6],
        MULTI[0],
        SIXTEEN[0],
        FOUR[0],
        EASY[7],
    ]
    results = list(solve_many(items, "native"))
    same_as_alone(results, items, "native")
    assert results[3].backend == "native"
    assert results[3].solution is not None
    assert results[3].solution.rules == jigsaw.rules  # not a classic grid's


def test_order_kept_with_two_workers() -> None:
    lines = [*CLUE17[:20], "bad", *MULTI[:2], *NONE[:2], *SIXTEEN[:2], *FOUR, " ".join(EASY[0])]
    items = lines * 3
    one = list(solve_many(items, "native", jobs=1))
    two = list(solve_many(items, "native", jobs=2))
    assert [key(r) for r in one] == [key(r) for r in two]
    same_as_alone(one[: len(lines)], lines, "native")


def test_no_unique_gives_the_first_solution_as_alone() -> None:
    lines = [*CLUE17[:10], *MULTI, *NONE[:2], FOUR[-1], SIXTEEN[0]]
    results = list(solve_many(lines, "native", unique=False))
    assert Status.SOLVED in {r.status for r in results}
    assert Status.MULTIPLE not in {r.status for r in results}
    same_as_alone(results, lines, "native", unique=False)


def test_time_limit() -> None:
    lines = [*CLUE17[:10], *HARD, *MULTI[:2]]
    same_as_alone(list(solve_many(lines, "native", time_limit=30)), lines, "native", time_limit=30)
    # Out of time in the bulk pass: the status and error text of the engine alone.
    for line, result in zip(HARD, solve_many(HARD, "native", time_limit=1e-9), strict=True):
        assert result.status in (Status.TIMEOUT, Status.UNIQUE)
        if result.status is Status.TIMEOUT:
            assert result.error == "time limit reached"
            alone = solve(line, "native", time_limit=1e-9)
            assert alone.status is not Status.TIMEOUT or alone.error == result.error


def test_symbols_and_box() -> None:
    letters = "ABCDEFGHI"
    lines = [line.translate(str.maketrans("123456789", letters)) for line in CLUE17[:8]]
    lines += ["A" * 81, "Z" + lines[0][1:], CLUE17[0]]  # a clash, a symbol not among them
    results = list(solve_many(lines, "native", symbols=letters))
    assert [r.status for r in results[-3:]] == [Status.INVALID] * 3
    same_as_alone(results, lines, "native", symbols=letters)
    six = list(solve_many(SIX_3X2, "native", box="3x2"))
    assert all(r.solution is not None and r.solution.rules.box == (3, 2) for r in six)
    same_as_alone(six, SIX_3X2, "native", box="3x2")


def test_the_logic_pass_gives_the_same_results() -> None:
    lines = [*EASY[:10], *CLUE17[:5], *NONE[:2], "bad"]
    results = list(solve_many(lines, "backtrack"))
    assert {r.backend for r in results} == {"logic", "backtrack"}
    same_as_alone(results, lines, "backtrack")


def test_a_bulk_result_is_a_result_in_every_way() -> None:
    alone = solve(CLUE17[7], "native")

    def fresh() -> tuple[Result, Result]:
        """A bulk Result whose solution was not read yet, and the same one built."""
        got = next(solve_many([CLUE17[7]], "native"))
        made = Result(got.status, alone.solution, "native", got.seconds, None, dict(alone.stats))
        return got, made

    got, made = fresh()
    assert type(got) is Result
    assert pickle.dumps(got) == pickle.dumps(made)
    got, made = fresh()
    assert repr(got) == repr(made)
    got, made = fresh()
    assert got == made
    got, made = fresh()
    assert made == got
    got, made = fresh()
    assert got.to_dict() == made.to_dict()
    got, made = fresh()
    assert dataclasses.astuple(got) == dataclasses.astuple(made)
    assert dataclasses.replace(got, seconds=1.0) == dataclasses.replace(made, seconds=1.0)
    got, made = fresh()
    assert pickle.loads(pickle.dumps(got)) == made
    assert copy.deepcopy(got) == made
    assert copy.copy(got) == made
    got, _ = fresh()
    assert got.solution is got.solution  # made once, then kept
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.solution = None  # type: ignore[misc]


def test_a_pending_grid_is_never_seen() -> None:
    rules = Rules.for_size(4)
    grid = PendingGrid(rules, bytes([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]))
    result = bulk_result(Status.UNIQUE, grid, "native", 0.5, None, {})
    plain = Result(Status.UNIQUE, cpsudoku.parse("1234341221434321"), "native", 0.5)
    assert result == plain
    assert isinstance(result.solution, cpsudoku.Puzzle)
    assert Result(Status.INVALID, error="x").solution is None


def test_input_is_read_lazily() -> None:
    taken = count()

    def endless() -> Iterator[str]:
        for line in cycle(CLUE17):
            next(taken)
            yield line

    first = list(islice(solve_many(endless(), "native"), 3))
    assert [r.status for r in first] == [Status.UNIQUE] * 3
    assert next(taken) < 100  # the first chunk only
