"""explain: a minimal conflict that holds the change made, and witnesses of several solutions."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import DATA

from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.evidence.explain import explain
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

SAMPLE = [json.loads(line) for line in (DATA / "variants_sample.jsonl").read_text().splitlines()]


def _count(rules: Rules, cells: tuple[int, ...]) -> int:
    with create_backend("sat") as engine:
        return engine.count(Puzzle(rules, cells), limit=1).count


def _without(
    p: Puzzle,
    rules: tuple[int, ...],
    regions: tuple[int, ...],
    givens: tuple[int, ...],
    drop: tuple[str, int],
) -> tuple[Rules, tuple[int, ...]]:
    """The puzzle reduced to the explanation's members, less one of them."""
    kept_rules = tuple(p.rules.constraints[j] for j in rules if drop != ("rule", j))
    kept_regions = tuple(p.rules.extra[k] for k in regions if drop != ("region", k))
    r = Rules(p.rules.size, p.rules.box, p.rules.regions, kept_regions, kept_rules)
    # Each rule as it reads in the whole puzzle, as explain weighs it: a negative rule
    # keeps the exemptions of the dots it was read with, even where a dot is dropped.
    object.__setattr__(r, "constraints", kept_rules)
    cells = tuple(v if i in givens and drop != ("given", i) else 0 for i, v in enumerate(p.cells))
    return r, cells


def _assert_minimal(p: Puzzle) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    found = explain(p, time_limit=600)  # a bound, not a speed test
    assert found.status is Status.UNSOLVABLE
    members = [("rule", j) for j in found.rules] + [("region", k) for k in found.regions]
    members += [("given", i) for i in found.givens]
    rules, cells = _without(p, found.rules, found.regions, found.givens, ("none", -1))
    assert _count(rules, cells) == 0  # the members alone contradict each other
    for member in members:  # and each is needed
        rules, cells = _without(p, found.rules, found.regions, found.givens, member)
        assert _count(rules, cells) == 1, member
    return found.rules, found.regions, found.givens


@pytest.mark.parametrize("row", SAMPLE, ids=lambda r: str(r["family"]))
def test_a_changed_given_is_in_a_minimal_conflict(row: dict[str, object]) -> None:
    p = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    solution = [int(ch, 36) for ch in str(row["solution"])]
    rng = random.Random(str(row["family"]))
    n = p.n
    cells = list(p.cells)
    # A cell left open gets a wrong value that clashes with no given of its units.
    open_cells = [i for i, v in enumerate(cells) if not v]
    for i in rng.sample(open_cells, len(open_cells)):
        seen = {cells[j] for u in p.rules.units_of[i] for j in p.rules.unit_cells[u]}
        wrong = [v for v in range(1, n + 1) if v != solution[i] and v not in seen]
        if wrong:
            cells[i] = rng.choice(wrong)
            break
    changed = Puzzle(p.rules, tuple(cells))
    _, _, givens = _assert_minimal(changed)
    assert i in givens


@pytest.mark.parametrize("row", SAMPLE[:8], ids=lambda r: str(r["family"]))
def test_an_added_rule_is_in_a_minimal_conflict(row: dict[str, object]) -> None:
    p = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    solution = [int(ch, 36) for ch in str(row["solution"])]
    n = p.n
    # A white dot between two neighbours that are not consecutive in the solution.
    a, b = next(
        (i, i + 1)
        for i in range(n * n)
        if i % n < n - 1 and abs(solution[i] - solution[i + 1]) != 1
    )
    spec = {**p.rules.spec()}
    spec["constraints"] = [*spec.get("constraints", []), {"kind": "kropki-white", "cells": [a, b]}]
    changed = Puzzle(Rules.from_spec(spec), p.cells)
    rules, _, _ = _assert_minimal(changed)
    assert len(p.rules.constraints) in rules  # the added rule (the last)


def test_rules_alone_and_several_solutions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {
        "rules": {
            "size": 9,
            "box": "3x3",
            "constraints": [
                {"kind": "non-consecutive"},
                {"kind": "kropki-white", "cells": ["r1c1", "r1c2"]},
            ],
        },
        "puzzle": "." * 81,
    }
    found = explain(json.dumps(spec))
    assert found.rules_alone
    assert found.rules == (0, 1)  # a 9x9 grid keeps either rule alone, not both
    assert main(["explain", json.dumps(spec), "-o", str(tmp_path / "c.svg")]) == 1
    assert "the rules contradict each other" in capsys.readouterr().out
    svg = (tmp_path / "c.svg").read_text()
    assert svg.count('class="highlight"') == 2  # the dot's two cells
    several = explain("1..4.....3..2..3")
    assert several.status is Status.MULTIPLE
    assert several.differ == (6, 7, 10, 11)
    assert main(["explain", "1..4.....3..2..3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["differ"] == ["r2c3", "r2c4", "r3c3", "r3c4"]
