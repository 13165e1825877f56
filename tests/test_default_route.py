"""The default engine's route: the compiled engine first, within its budget, then sat.

``cpsudoku.solve``/``count_solutions`` and ``cpsudoku solve``/``count`` with the
default engine hand a puzzle the compiled engine takes to it first; a puzzle past the
budget, or with clashing givens, goes on to ``sat``; any other spec runs alone.
"""

from __future__ import annotations

import json

import pytest
from conftest import DATA, read_lines

import cpsudoku
from cpsudoku.cli import main
from cpsudoku.datasets.records import read_records
from cpsudoku.engines import DEFAULT_BACKEND, create_backend
from cpsudoku.model.forms import parse
from cpsudoku.model.result import Status

default = pytest.importorskip("cpsudoku.engines.default")
pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")

HARDEST = read_lines("forum_hardest_1106_60.txt", 3)


def test_the_default_engine_answers_with_the_compiled_engine_where_it_can() -> None:
    with create_backend("sat") as sat:
        for line in HARDEST:
            got = cpsudoku.solve(line)
            alone = sat.solve(line)
            assert got.backend == "native"
            assert got.status == alone.status == Status.UNIQUE
            assert got.solution == alone.solution
    killer = next(read_records(str(DATA / "killer_krazydad_40.csv")))
    got = cpsudoku.solve(killer.puzzle)
    assert got.backend == "native"
    assert got.status is Status.UNIQUE


def test_another_spec_runs_its_engine_alone() -> None:
    assert DEFAULT_BACKEND == "sat"
    got = cpsudoku.solve(HARDEST[0], backend="sat:cadical153")
    assert got.backend.startswith("sat")
    assert "nodes" not in got.stats  # a SAT solver's counters, not the search's
    assert cpsudoku.solve(HARDEST[0], backend="native").backend == "native"


def test_past_the_budget_the_puzzle_goes_on_with_the_time_left() -> None:
    puzzle = parse(HARDEST[0])
    first, left = default.solve_first(puzzle, unique=True, time_limit=5.0, budget=1)
    assert first is None
    assert left is not None
    assert 0 < left <= 5.0
    first, left = default.solve_first(puzzle, unique=True, time_limit=None, budget=1)
    assert (first, left) == (None, None)
    counted, left = default.count_first(puzzle, limit=2, time_limit=None, budget=1)
    assert counted is None
    # Within the budget it is the answer, counters and all.
    first, left = default.solve_first(puzzle, unique=True, time_limit=None)
    assert first is not None
    assert first.status is Status.UNIQUE
    assert left is None
    assert first.stats["nodes"] > 1


def test_clashing_givens_are_named_by_sat_as_in_a_batch() -> None:
    got = cpsudoku.solve("11" + "." * 79)
    assert got.status is Status.INVALID
    assert got.backend == "sat"
    assert "row 1" in (got.error or "")


def test_counts_go_the_same_way() -> None:
    found = cpsudoku.count_solutions("." * 16, limit=1000)
    assert (found.count, found.complete, found.backend) == (288, True, "native")
    assert cpsudoku.count_solutions("." * 16, limit=1000, backend="sat:cadical153").count == 288


def test_the_command_line_says_which_engine_answered(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", HARDEST[1], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["status"], out["backend"]) == ("unique", "native")
    assert main(["solve", HARDEST[1], "--json", "--backend", "sat:cadical153"]) == 0
    assert json.loads(capsys.readouterr().out)["backend"].startswith("sat")


def test_the_budget_counts_the_propagators_work_as_nodes() -> None:
    """A node through thirteen sandwich automata costs far more than one through units
    alone; the budget counts that work, so the search stops after fewer nodes."""
    from conftest import ROOT

    from cpsudoku.engines import native

    path = ROOT / "benchmarks" / "data" / "variants" / "hard.jsonl"
    row = next(
        json.loads(line) for line in path.read_text().splitlines() if '"sandwich-snipe-18"' in line
    )
    sandwiches = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    status, _, _, nodes, _ = native.layout(sandwiches.rules).solve(
        bytes(sandwiches.cells), 2, -1.0, 10_000
    )
    assert status == native.BUDGET
    assert nodes < 2_500  # each node cost over four nodes' worth of work
    # With units alone, a node is a node.
    hardest = parse(HARDEST[0])
    status, _, _, nodes, _ = native.layout(hardest.rules, band=False).solve(
        bytes(hardest.cells), 2, -1.0, 3
    )
    assert (status, nodes) == (native.BUDGET, 4)
    assert default.native_budget(sandwiches.rules) > default.native_budget(hardest.rules)
