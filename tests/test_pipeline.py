"""The whole-array logic pass inside batch and solve_many: same answers, fewer engine calls."""

from pathlib import Path

import pytest
from conftest import read_lines, run_batch

from cpsudoku import Status, solve_many
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.solving import solve_records

ENGINE = "backtrack"
EASY = read_lines("easy_kaggle1m_200.txt", 60)
CLUE17 = read_lines("clue17_royle_200.txt", 30)
MULTI = read_lines("multisolution_tdoku.txt")
NONE = read_lines("nosolution_tdoku.txt")
MIXED = [
    EASY[0],
    "11" + EASY[1][2:],
    CLUE17[0],
    "12345",
    NONE[0],
    MULTI[0],
    EASY[2],
    " ".join(EASY[3]),
    "?" * 81,
    EASY[4],
]


def rows_for(records: list[str], **options: object) -> list[tuple[str, ...]]:
    opts = SolveOptions.checked(ENGINE, **options)  # type: ignore[arg-type]
    return solve_records([Record(i, p) for i, p in enumerate(records)], opts)  # type: ignore[return-value]


def test_same_statuses_and_solutions_with_and_without_the_pass() -> None:
    puzzles = EASY + CLUE17 + MULTI + NONE + MIXED
    with_pass = rows_for(puzzles)
    without = rows_for(puzzles, presolve=False)
    assert [(r[0], r[1]) for r in with_pass] == [(r[0], r[1]) for r in without]
    backends = [r[2] for r in with_pass]
    assert backends.count("logic") >= len(EASY)  # every easy puzzle falls to singles
    assert all(r[2] != "logic" for r in without)
    # multi-solution puzzles are never decided by the pass
    for row, puzzle in zip(with_pass, puzzles, strict=True):
        if puzzle in MULTI:
            assert row[0] == "multiple"
            assert row[2] == ENGINE


def test_mixed_block_keeps_order_and_explains_invalid_records() -> None:
    rows = rows_for(MIXED)
    assert [r[0] for r in rows] == [
        "unique",
        "invalid",
        "unique",
        "invalid",
        "unsolvable",
        "multiple",
        "unique",
        "unique",
        "invalid",
        "unique",
    ]
    assert "appears twice" in rows[1][4]
    assert "cells" in rows[3][4]
    assert "unknown symbol" in rows[8][4]
    assert rows[7][2] == ENGINE  # another text form: the per-record path parses it


def test_no_unique_keeps_its_meaning() -> None:
    rows = rows_for(EASY[:10], unique=False)
    assert {r[0] for r in rows} == {"solved"}


def test_solve_many_with_and_without_the_pass() -> None:
    puzzles = [
        *EASY[:20],
        *CLUE17[:10],
        MULTI[0],
        NONE[0],
        "bad",
        [[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]],
    ]
    fast = list(solve_many(puzzles, ENGINE))
    slow = list(solve_many(puzzles, ENGINE, presolve=False))
    assert [(r.status, r.solution) for r in fast] == [(r.status, r.solution) for r in slow]
    assert any(r.backend == "logic" for r in fast)
    assert fast[-2].status is Status.INVALID


@pytest.mark.parametrize("box", ["2x2", "2x3"])
def test_small_shapes_through_the_pass(box: str) -> None:
    from conftest import random_grid

    from cpsudoku.model.puzzle import Puzzle
    from cpsudoku.model.rules import parse_box

    g = parse_box(box)
    import random

    rng = random.Random(7)
    puzzles = []
    for _ in range(20):
        grid = random_grid(g, rng)
        holes = set(rng.sample(range(g.cells), g.cells // 2))
        puzzles.append(
            str(Puzzle(g, tuple(0 if i in holes else v for i, v in enumerate(grid.cells))))
        )
    a = rows_for(puzzles, box=box)
    b = rows_for(puzzles, box=box, presolve=False)
    assert [(r[0], r[1]) for r in a] == [(r[0], r[1]) for r in b]


def test_cli_no_presolve(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY[:5]) + "\n")
    outs = {}
    for flag in ([], ["--no-presolve"]):
        out = tmp_path / f"out{len(flag)}.csv"
        outs[bool(flag)] = run_batch(src, out, "--backend", ENGINE, "--jobs", "1", *flag)
    assert {r["backend"] for r in outs[False]} == {"logic"}
    assert {r["backend"] for r in outs[True]} == {ENGINE}
    assert [r["solution"] for r in outs[False]] == [r["solution"] for r in outs[True]]
