"""Value symmetries: renamings that keep a puzzle's grids, and the shortcut they give.

A renaming a primitive claims to keep must keep exactly its grids (checked against
all 288 4x4 grids); the default route settles a symmetric puzzle by one solution and
its renaming, which must agree with a full search on every engine.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from conftest import GRIDS_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from test_primitives import KINDS, _primitive

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.solving import solve_records
from cpsudoku.engines import create_backend
from cpsudoku.engines.default import solve_rest
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.symmetry import candidates, rename, rule_symmetries, value_symmetry
from cpsudoku.model.verify import is_solution

ENGINES = ("sat", "cpsat", "backtrack", "native")


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS))
def test_a_renaming_a_primitive_keeps_keeps_exactly_its_grids(seed: int, kind: str) -> None:
    p = _primitive(random.Random(seed), kind)
    for perm in candidates(4):
        if p.maps_to_itself(perm):
            for g in GRIDS_4X4:
                assert p.holds(g) == p.holds(rename(g, perm)), (p, perm, g)


def _rules(spec: list[dict[str, object]], size: int = 9) -> Rules:
    box = {4: "2x2", 6: "2x3", 9: "3x3"}[size]
    return Rules.from_spec({"size": size, "box": box, "constraints": spec})


def test_the_renamings_of_known_rules() -> None:
    swap_1_9 = (0, 9, 2, 3, 4, 5, 6, 7, 8, 1)
    reverse = (0, 9, 8, 7, 6, 5, 4, 3, 2, 1)
    assert rule_symmetries(_rules([{"kind": "non-consecutive"}])) == (reverse,)
    sandwich = _rules([{"kind": "sandwich", "row": 1, "sum": 18}])
    assert rule_symmetries(sandwich) == (swap_1_9,)
    sums = _rules([{"kind": "little-killer", "cells": ["r1c1", "r2c2"], "sum": 10}])
    assert rule_symmetries(sums) == ()  # a sum keeps no renaming (none is shown)
    pairs = _rules([{"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 10}])
    assert reverse in rule_symmetries(pairs)  # {1, 9}, {2, 8}, {3, 7}, {4, 6} both ways
    renban = _rules([{"kind": "renban", "cells": ["r1c1", "r1c2", "r2c3"]}])
    assert rule_symmetries(renban) == (reverse,)
    assert len(rule_symmetries(Rules.for_size(9))) == len(candidates(9))  # any renaming
    # A given moved by every kept renaming leaves none for the puzzle.
    assert value_symmetry(Puzzle(sandwich, (0,) * 81)) == swap_1_9
    assert value_symmetry(Puzzle(sandwich, (1,) + (0,) * 80)) is None
    assert value_symmetry(Puzzle(sandwich, (5,) + (0,) * 80)) == swap_1_9


SYMMETRIC = [  # 4x4 rule sets a renaming keeps: some with solutions, some without
    [{"kind": "non-consecutive"}],
    [{"kind": "renban", "cells": ["r1c1", "r1c2", "r3c3"]}],
    [{"kind": "renban", "cells": ["r1c1", "r1c2", "r2c3"]}],  # r2c3 repeats r1c1 or r1c2
    [{"kind": "non-consecutive"}, {"kind": "anti-king"}],
    [{"kind": "anti-king"}],
    [{"kind": "sandwich", "row": 1, "sum": 5}],
]


@pytest.mark.parametrize("spec", SYMMETRIC, ids=lambda s: "+".join(str(c["kind"]) for c in s))
@pytest.mark.parametrize("engine_name", ENGINES)
def test_one_solution_settles_a_symmetric_puzzle(
    engine_name: str, spec: list[dict[str, object]]
) -> None:
    rules = _rules(spec, 4)
    puzzle = Puzzle(rules, (0,) * 16)
    assert value_symmetry(puzzle) is not None
    grids = sum(all(c.holds(g) for c in rules.primitives) for g in GRIDS_4X4)
    with create_backend(engine_name) as engine:
        result = solve_rest(engine, puzzle, unique=True, time_limit=30)
        assert result.status is (Status.MULTIPLE if grids else Status.UNSOLVABLE)
        assert result.status is engine.solve(puzzle, unique=True).status  # a full search
    if grids:
        first, second = result.solutions
        assert first != second
        assert is_solution(puzzle, first)
        assert is_solution(puzzle, second)
        assert result.stats["value_symmetry"] == 1


def test_a_puzzle_no_renaming_keeps_is_searched_in_full() -> None:
    rules = _rules([{"kind": "renban", "cells": ["r1c1", "r1c2", "r3c3"]}], 4)
    # The renban keeps the swaps of 1 and 4 and of 2 and 3, and the reversal: each moves
    # a given here.
    puzzle = parse("." * 14 + "21", rules)
    assert value_symmetry(puzzle) is None
    with create_backend("sat") as engine, create_backend("backtrack") as oracle:
        result = solve_rest(engine, puzzle, unique=True, time_limit=30)
        assert result.status is Status.MULTIPLE
        assert result.status is oracle.solve(puzzle).status
    assert "value_symmetry" not in result.stats


def test_a_batch_settles_what_the_compiled_engine_leaves_by_symmetry() -> None:
    spec = {"size": 6, "box": "2x3", "constraints": [{"kind": "non-consecutive"}]}
    records = [
        Record(0, json.dumps({"rules": spec, "puzzle": "." * 36})),
        Record(1, json.dumps({"rules": spec, "puzzle": "1" + "." * 35})),  # a moved given
    ]
    rows = solve_records(records, replace(SolveOptions.checked(), native_budget=1))
    assert [(row[0], row[2]) for row in rows] == [("multiple", "sat")] * 2
