"""The compiled engine on every primitive: against brute force and against sat.

Each primitive kind, random instances on a 4x4 grid (the generators of
test_primitives.py), alone and with givens: the compiled engine must take it, count
the grids keeping it as brute force over the 288 grids does, and give solutions from
among those grids. Then every bundled variant set (benchmarks/data/variants): on a
sample of each, the same status and solution as sat, and with a given taken out the
same status again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import GRIDS_4X4, ROOT
from test_primitives import KINDS, Raw, _primitive

from cpsudoku.engines import create_backend
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")

#: More than the 288 grids: every count is exact.
LIMIT = 300

#: The generated sets; hard.jsonl holds published puzzles, checked by test_hard_set.py.
VARIANTS = sorted(
    p for p in (ROOT / "benchmarks" / "data" / "variants").glob("*.jsonl") if p.stem != "hard"
)


@pytest.fixture(scope="module")
def engine() -> native.NativeBackend:
    return create_backend("native")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def sat():  # type: ignore[no-untyped-def]
    with create_backend("sat") as backend:
        yield backend


@pytest.mark.parametrize("kind", KINDS)
def test_every_primitive_is_taken(kind: str) -> None:
    rng = random.Random(kind)
    for _ in range(50):
        p = _primitive(rng, kind)
        rules = Rules.classic(2, 2).with_constraints(Raw((p,)))
        assert native.NativeBackend.takes(p), p
        assert native.NativeBackend.refusal(rules) is None, p


@pytest.mark.parametrize("kind", KINDS)
def test_each_primitive_counts_as_brute_force(engine, kind: str) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(f"brute {kind}")
    for trial in range(60):
        prims = (_primitive(rng, kind),)
        if trial % 3 == 2:  # with a primitive of another kind beside it
            prims += (_primitive(rng, rng.choice(KINDS)),)
        rules = Rules.classic(2, 2).with_constraints(Raw(prims))
        grid = GRIDS_4X4[rng.randrange(288)]
        givens = tuple(v if trial % 2 and rng.random() < 0.3 else 0 for v in grid)
        keeping = {
            g
            for g in GRIDS_4X4
            if all(p.holds(g) for p in prims)
            and all(not v or v == w for v, w in zip(givens, g, strict=True))
        }
        found = engine.count(Puzzle(rules, givens), limit=LIMIT)
        assert found.count == len(keeping), (prims, givens)
        assert found.complete
        solved = engine.solve(Puzzle(rules, givens), unique=False)
        if keeping:
            assert solved.solution is not None
            assert tuple(solved.solution.cells) in keeping, (prims, givens)
        else:
            assert solved.solution is None


def _sample(path: Path, k: int = 4) -> list[dict[str, object]]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    step = max(1, len(records) // k)
    return records[::step][:k]


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_every_variant_set_answers_as_sat(engine, sat, path: Path) -> None:  # type: ignore[no-untyped-def]
    for record in _sample(path):
        rules = Rules.from_spec(record["rules"])  # type: ignore[arg-type]
        puzzle = parse(str(record["puzzle"]), rules)
        assert type(engine).refusal(rules) is None, path.stem
        ours = engine.solve(puzzle, time_limit=60)
        theirs = sat.solve(puzzle, time_limit=60)
        assert ours.status == theirs.status, (path.stem, record["puzzle"])
        assert ours.solution == theirs.solution, (path.stem, record["puzzle"])
        assert ours.solution is not None
        assert is_solution(puzzle, ours.solution)
        # One given fewer (or, with none, one rule): most often several solutions; both
        # engines must say the same.
        given = next((i for i, v in enumerate(puzzle.cells) if v), None)
        if given is None:
            spec = dict(record["rules"])  # type: ignore[call-overload]
            spec["constraints"] = spec["constraints"][:-1]
            fewer = Puzzle(Rules.from_spec(spec), puzzle.cells)
        else:
            cells = tuple(0 if i == given else v for i, v in enumerate(puzzle.cells))
            fewer = Puzzle(rules, cells)
        ours, theirs = engine.solve(fewer, time_limit=60), sat.solve(fewer, time_limit=60)
        assert ours.status == theirs.status, (path.stem, record["puzzle"], given)
        assert ours.solution is not None
        assert is_solution(fewer, ours.solution)


def test_relation_pairs_the_units_already_keep_apart_are_no_propagators() -> None:
    """Self-taxicab forbids only (d, d) at distance d: on pairs sharing a row, column or
    box the units say all of it, so only the 2,010 pairs of 2,820 that share no unit are
    propagators (each woken by every change of its cells); the count stays exact."""
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": [{"kind": "self-taxicab"}]})
    relations = list(rules.primitives)
    assert sum(len(p.pairs) for p in relations) == 2820  # type: ignore[attr-defined]
    specs = native._relations(relations, list(rules.unit_cells), 9)  # type: ignore[arg-type]
    assert sum(len(s[1]) for s in specs) == 2010  # type: ignore[arg-type]
    six = Rules.from_spec({"size": 6, "box": "2x3", "constraints": [{"kind": "self-taxicab"}]})
    with create_backend("native") as engine:
        assert engine.count(Puzzle(six, (0,) * 36), limit=100).count == 72
