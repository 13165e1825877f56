"""The generated variant sets of the benchmark (benchmarks/data/variants/*.jsonl) and
the families of the rule vocabulary that make them.

Every stored puzzle is unique on ``sat`` with its stored solution, which keeps all
the rules; each vocabulary family makes a valid minimal puzzle on a small grid.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT

from cpsudoku import Status, parse
from cpsudoku.engines import create_backend
from cpsudoku.generate.variants import ALL_FAMILIES, VOCABULARY_FAMILIES, generate_variant
from cpsudoku.model.constraints import KINDS
from cpsudoku.model.verify import solution_problems

#: The generated sets; hard.jsonl holds published puzzles, checked by test_hard_set.py.
SETS = sorted(
    p for p in (ROOT / "benchmarks" / "data" / "variants").glob("*.jsonl") if p.stem != "hard"
)


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_every_stored_puzzle_is_unique_with_its_solution(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert rows, path.name
    with create_backend("sat") as engine:
        for k, row in enumerate(rows):
            puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
            solution = parse(json.dumps({"rules": row["rules"], "puzzle": row["solution"]}))
            assert solution_problems(puzzle, solution) == [], (path.name, k)
            result = engine.solve(puzzle, time_limit=60)
            assert result.status is Status.UNIQUE, (path.name, k, result.error)
            assert str(result.solution) == row["solution"], (path.name, k)


def test_every_family_has_its_set_and_every_set_its_family() -> None:
    assert {p.stem for p in SETS} == set(ALL_FAMILIES)
    listed = (ROOT / "benchmarks" / "datasets.toml").read_text()
    for family in ALL_FAMILIES:
        assert f'name = "variant:{family}"' in listed, family


def test_the_vocabulary_sets_use_every_new_rule_kind() -> None:
    used: set[str] = set()

    def walk(spec: dict[str, object]) -> None:
        used.add(str(spec["kind"]))
        for inner in spec.get("rules", []):  # type: ignore[attr-defined]
            walk(inner)

    for family in VOCABULARY_FAMILIES:
        path = ROOT / "benchmarks" / "data" / "variants" / f"{family}.jsonl"
        for line in path.read_text().splitlines():
            for spec in json.loads(line)["rules"].get("constraints", []):
                walk(spec)
    vocabulary = {
        "chess", "taxicab", "self-taxicab", "diagonal-non-consecutive", "knightmare",
        "sum-dot", "clone", "minimum", "maximum", "row-indexer", "column-indexer",
        "box-indexer", "slow-thermometer", "nabner", "entropic-line", "modular-line",
        "between-line", "lockout-line", "regex-line", "zipper-line", "double-arrow",
        "region-sum-line", "cage", "digital-root-cage", "rellik-cage", "equality-cage",
        "quadruple", "counting-circles", "global-entropy", "global-modular",
        "dutch-flatmates", "and", "or", "x-sum", "skyscraper", "hidden-skyscraper",
        "numbered-room", "lunchbox", "doppelganger",
    }  # fmt: skip
    assert vocabulary <= set(KINDS)
    assert vocabulary - used == set()


#: Families that need more than four digits: no 4x4 grid keeps anti-(1,3) chess,
#: taxicab 2 or self-taxicab; low, middle and high digits need six; a nabner line of
#: three needs five.
SIX = {"chess", "taxicab", "self-taxicab", "global-entropy", "global-modular", "nabner"}


@pytest.mark.parametrize("family", VOCABULARY_FAMILIES)
def test_each_vocabulary_family_makes_a_unique_minimal_puzzle(family: str) -> None:
    # On small grids, where every check is quick (a clue kept means it is needed).
    made = generate_variant(family, "2x3" if family in SIX else "2x2", seed=3, check_limit=10.0)
    assert solution_problems(made.puzzle, made.solution) == []
    with create_backend("sat") as engine:
        assert engine.count(made.puzzle, limit=2).count == 1
    assert made.puzzle.rules.constraints, family
