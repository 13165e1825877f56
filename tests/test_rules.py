"""The rules value: built checked, compared and hashed by content, pickled whole, with a
stable spec; and carried whole to every worker process, portfolio engine and cluster task."""

from __future__ import annotations

import json
import pickle

import pytest
from conftest import X, read_lines, x_puzzle

from cpsudoku import solve, solve_many
from cpsudoku.engines import create_backend
from cpsudoku.model.errors import BoxShapeError, RulesError
from cpsudoku.model.rules import Region, Rules, parse_box

PUZZLE = x_puzzle()
MAIN, ANTI = X.extra[0].cells, X.extra[1].cells
TEXT = str(PUZZLE)


def test_the_x_puzzle_needs_its_diagonals() -> None:
    assert solve(TEXT, backend="backtrack", box=X).status == "unique"
    assert solve(TEXT, backend="backtrack").status == "multiple"


def test_rules_compare_and_hash_by_content() -> None:
    def x_rules() -> Rules:
        return Rules.classic(3, 3).with_extra(
            Region("diagonal", MAIN), Region("anti-diagonal", ANTI)
        )

    again = x_rules()
    assert again == X
    assert hash(again) == hash(X)
    # Interned (the recent ones): what engines derive from rules is built once.
    assert x_rules() is again
    assert Rules.classic(3, 3) != X
    assert Rules.for_size(6) is Rules.classic(2, 3) is parse_box("2x3")
    with pytest.raises(AttributeError):
        X.size = 4  # type: ignore[misc]


def test_rules_pickle_whole() -> None:
    back = pickle.loads(pickle.dumps(X))
    assert back == X
    assert back.extra == X.extra
    assert len(back.units) == 29  # rows, columns, boxes and the two diagonals
    jigsaw = Rules.jigsaw([[r * 4 + c for c in range(4)] for r in range(4)])
    assert pickle.loads(pickle.dumps(jigsaw)).regions == jigsaw.regions


def test_the_spec_is_stable_and_round_trips() -> None:
    assert Rules.classic(3, 3).spec() == {"size": 9, "box": "3x3"}
    spec = X.spec()
    assert spec["extra"][0] == {"kind": "diagonal", "cells": list(MAIN)}
    assert Rules.from_spec(spec) is X
    assert Rules.from_spec(json.dumps(spec)) is X
    named = {
        "box": "3x3",
        "extra": [{"kind": "diagonal", "cells": [f"r{k}c{k}" for k in range(1, 10)]}],
    }
    assert Rules.from_spec(named).extra[0].cells == MAIN
    regions = [[r * 4 + c for c in range(4)] for r in range(4)]
    jigsaw = Rules.jigsaw(regions)
    assert Rules.from_spec(jigsaw.spec()) is jigsaw
    assert str(jigsaw) == "4x4 (jigsaw regions)"
    assert str(X) == "9x9 (3x3 boxes + 1 diagonal + 1 anti-diagonal)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"box": "3x3", "colour": 1}, "unknown key in a rules spec: colour"),
        ({"size": 9, "box": "2x3"}, "do not tile"),
        ({"box": "3x3", "extra": [{"kind": "region", "cells": list(range(10))}]}, "1 to 9 cells"),
        ({"box": "3x3", "extra": [{"cells": [0] * 9}]}, "lists a cell twice"),
        ({"box": "3x3", "extra": [{"cells": ["r10c1", *range(8)]}]}, "not a cell of a 9x9"),
        (
            {"regions": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [3, 13, 14, 15]]},
            "jigsaw regions 1 and 4",
        ),
        ({"regions": [[0, 1, 2], [3]]}, "jigsaw region 1 has 3 cells"),
        (
            {"regions": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 16]]},
            "cell 16 of jigsaw region 4 is not a cell of a 4x4 grid",
        ),
        (
            {"regions": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, -1]]},
            "cell -1 of jigsaw region 4",
        ),
        (
            {"regions": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, True]]},
            "True is no cell",
        ),
        (
            {"regions": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, "r5c1"]]},
            "r5c1 is not a cell of a 4x4 grid",
        ),
        ({"size": 4}, "needs boxes or jigsaw regions"),
        ({"box": "3x3", "constraints": [{"kind": "nope"}]}, "unknown constraint kind 'nope'"),
        ("[1, 2]", "a rules spec is a JSON object"),
        ("{oops", "not JSON"),
    ],
)
def test_bad_specs_are_named_errors(spec: object, message: str) -> None:
    with (
        pytest.raises(RulesError, match=message)
        if "tile" not in message
        else pytest.raises(BoxShapeError, match=message)
    ):
        Rules.from_spec(spec)  # type: ignore[arg-type]


def test_rules_reach_every_worker_process() -> None:
    puzzles = [TEXT] * 5 + read_lines("easy_kaggle1m_200.txt", 3)
    expected = solve(TEXT, backend="backtrack", box=X).solution
    for jobs in (1, 2):
        results = list(solve_many(puzzles, "sat", jobs=jobs, box=X))
        assert [r.status for r in results[:5]] == ["unique"] * 5
        assert {r.solution for r in results[:5]} == {expected}
        # Classic puzzles read under X rules: as the oracle says under X rules.
        oracle = [solve(p, backend="backtrack", box=X).status for p in puzzles[5:]]
        assert [r.status for r in results[5:]] == oracle


def test_rules_reach_the_portfolio_engines() -> None:
    with create_backend("portfolio") as portfolio:
        r = portfolio.solve(PUZZLE)
    assert r.status == "unique"
    assert r.solution == solve(TEXT, backend="backtrack", box=X).solution


@pytest.mark.parametrize(
    "rules",
    [
        Rules.classic(2, 3),
        Rules.classic(3, 3).with_extra(*X.extra),
        Rules.jigsaw([[0, 1, 4, 5], [2, 3, 6, 7], [8, 12, 13, 14], [9, 10, 11, 15]]),
        Rules.jigsaw([[0, 1, 4, 5], [2, 3, 6, 7], [8, 12, 13, 14], [9, 10, 11, 15]]).with_extra(
            Region("region", (0, 15)), Region("diagonal", (0, 5, 10, 15))
        ),
    ],
    ids=str,
)
def test_the_fast_forms_of_the_units_say_what_the_units_say(rules: Rules) -> None:
    # unit_cells, units_of and peers are built without the Unit objects (a jigsaw
    # dataset has rules per puzzle); they must agree with them.
    units = rules.units
    assert rules.unit_cells == tuple(u.cells for u in units)
    for i in range(rules.cells):
        holding = tuple(k for k, u in enumerate(units) if i in u.cells)
        assert rules.units_of[i] == holding
        assert rules.peers[i] == tuple(sorted({j for k in holding for j in units[k].cells} - {i}))


def test_a_jigsaw_is_drawn_with_its_region_borders() -> None:
    from cpsudoku.model.puzzle import Puzzle

    rules = Rules.jigsaw([[0, 1, 2, 4], [3, 7, 11, 15], [5, 6, 8, 9], [10, 12, 13, 14]])
    drawing = Puzzle(rules, (1, 2, 3, 4, 4, *[0] * 11)).pretty()
    assert drawing == "\n".join(
        ["1 2 3|4", " +---+", "4|. .|.", "-+ +-+", ". .|.|.", "---+ |", ". . .|."]
    )
