"""Killer cages on every engine that takes them: the published sample, brute force on
4x4, the verifier, the rules' checks, the JSON form and the killer CSV in a batch."""

from __future__ import annotations

import csv
import json
import pickle
import random
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import DATA, GRIDS_4X4
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend, native_built
from cpsudoku.model.errors import PuzzleError, RulesError, UnsupportedRulesError
from cpsudoku.model.implied import MOST_CELLS, MOST_SUM_CELLS, implied_cages, implied_sums
from cpsudoku.model.killer import killer_rules
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution, solution_problems

#: The engines that take killer cages, and their textbook baselines.
NATIVE = ["native"] if native_built() else []
KILLER_ENGINES = [
    "sat",
    "sat:fresh",
    "sat:glucose4",
    "cpsat",
    "cpsat:sample",
    "cpsat:textbook",
    "backtrack",
    *NATIVE,
]

with (DATA / "killer_krazydad_40.csv").open(newline="") as _fh:
    SAMPLE = list(csv.DictReader(_fh))


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _puzzle(row: dict[str, str]) -> Puzzle:
    rules = killer_rules(row["puzz_color"], row["puzz_hint"])
    return Puzzle(rules, (0,) * rules.cells)


@pytest.mark.parametrize("spec", KILLER_ENGINES)
def test_the_published_sample_is_unique_with_its_solution(spec: str) -> None:
    rows = SAMPLE if spec not in ("backtrack", "sat:fresh") else SAMPLE[:8]
    with create_backend(spec) as engine:
        for row in rows:
            r = engine.solve(_puzzle(row))
            assert r.status is Status.UNIQUE, row["ptitle"]
            assert r.solution is not None
            assert "".join(map(str, r.solution.cells)) == row["solved"]


GRIDS = GRIDS_4X4


def test_brute_force_finds_the_288_grids() -> None:
    assert len(GRIDS) == 288


@st.composite
def cage_sets(draw: st.DrawFn) -> list[tuple[tuple[int, ...], int | None]]:
    """Random cages over part of a 4x4 grid, their sums from a random grid or random."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    cells = list(range(16))
    rng.shuffle(cells)
    grid = GRIDS[rng.randrange(288)]
    cages = []
    while cells and len(cages) < draw(st.integers(1, 6)):
        size = rng.randint(1, min(4, len(cells)))
        members = tuple(sorted(cells[:size]))
        del cells[:size]
        if len({grid[i] for i in members}) != size:
            continue  # its digits would repeat in that grid: not a cage of it
        total: int | None = sum(grid[i] for i in members)
        if rng.random() < 0.25:
            total = None
        elif rng.random() < 0.25:  # some sum another grid may make, or none
            low, high = sum(range(1, size + 1)), sum(range(5 - size, 5))
            total = rng.randint(low, high)
        cages.append((members, total))
    return cages


def _related(steps: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs of 4x4 cells one of ``steps`` apart, written out here, apart from the model."""
    return [
        (a, b) for a in range(16) for b in range(16) if (b // 4 - a // 4, b % 4 - a % 4) in steps
    ]


#: Rule kind -> (related pairs on 4x4, the values they may not hold), by hand.
RELATIONS = {
    "anti-knight": (_related([(1, 2), (2, 1), (1, -2), (2, -1)]), lambda a, b: a == b),
    "anti-king": (_related([(0, 1), (1, 0), (1, 1), (1, -1)]), lambda a, b: a == b),
    "non-consecutive": (_related([(0, 1), (1, 0)]), lambda a, b: abs(a - b) == 1),
}


def _line_ok(kind: str, values: list[int]) -> bool:
    """A line or dot's rule on its values in order, written out here, apart from the model."""
    pairs = list(pairwise(values))
    if kind == "thermometer":
        return all(a < b for a, b in pairs)
    if kind == "whisper":  # ceil(4 / 2) = 2 on 4x4
        return all(abs(a - b) >= 2 for a, b in pairs)
    if kind == "palindrome":
        return values == values[::-1]
    if kind == "renban":
        return len(set(values)) == len(values) and max(values) - min(values) == len(values) - 1
    a, b = values
    return {
        "kropki-white": abs(a - b) == 1,
        "kropki-black": a == 2 * b or b == 2 * a,
        "x": a + b == 10,
        "v": a + b == 5,
    }[kind]


@st.composite
def mark_sets(draw: st.DrawFn) -> list[tuple[str, tuple[int, ...]]]:
    """Random lines (king-step walks) and dots (orthogonal neighbours) on a 4x4 grid."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    marks = []
    for _ in range(draw(st.integers(0, 3))):
        kind = rng.choice(
            [
                "thermometer",
                "whisper",
                "palindrome",
                "kropki-white",
                "kropki-black",
                "x",
                "v",
                "renban",
            ]
        )
        cell = rng.randrange(16)
        cells = [cell]
        length = 2 if kind in ("kropki-white", "kropki-black", "x", "v") else rng.randint(2, 4)
        steps = [(0, 1), (1, 0), (0, -1), (-1, 0)] + ([] if length == 2 else [(1, 1), (-1, -1)])
        while len(cells) < length:
            r, c = divmod(cells[-1], 4)
            options = [
                (r + dr) * 4 + c + dc
                for dr, dc in steps
                if 0 <= r + dr < 4 and 0 <= c + dc < 4 and (r + dr) * 4 + c + dc not in cells
            ]
            if not options:
                break
            cells.append(rng.choice(options))
        if len(cells) >= 2:
            marks.append((kind, tuple(cells)))
    return marks


@st.composite
def narrowed_cells(draw: st.DrawFn) -> list[tuple[str, tuple[int, ...], tuple[str, ...]]]:
    """Random even and odd cells, and given candidates, on a 4x4 grid."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    out = []
    for kind in rng.sample(["even", "odd", "candidates"], rng.randint(0, 3)):
        cells = tuple(rng.sample(range(16), rng.randint(1, 4)))
        values = tuple("".join(sorted(rng.sample("1234", rng.randint(1, 3)))) for _ in cells)
        out.append((kind, cells, values if kind == "candidates" else ()))
    return out


def _narrowed_ok(kind: str, value: int, allowed: str) -> bool:
    """A cell's value under an even, odd or candidates rule, written out here."""
    return {"even": value % 2 == 0, "odd": value % 2 == 1}.get(kind, str(value) in allowed)


@settings(max_examples=150, deadline=None)
@given(
    cages=cage_sets(),
    givens=st.integers(0, 3),
    relations=st.sets(st.sampled_from(sorted(RELATIONS)), max_size=2),
    marks=mark_sets(),
    narrowed=narrowed_cells(),
)
def test_every_engine_counts_as_brute_force(
    cages: list[tuple[tuple[int, ...], int | None]],
    givens: int,
    relations: set[str],
    marks: list[tuple[str, tuple[int, ...]]],
    narrowed: list[tuple[str, tuple[int, ...], tuple[str, ...]]],
) -> None:
    rules = Rules.from_spec(
        {
            "size": 4,
            "box": "2x2",
            "constraints": [
                *({"kind": "cage", "cells": list(c), "sum": t} for c, t in cages),
                *({"kind": kind} for kind in sorted(relations)),
                *({"kind": kind, "cells": list(cells)} for kind, cells in marks),
                *(
                    {"kind": kind, "cells": list(cells), **({"values": list(v)} if v else {})}
                    for kind, cells, v in narrowed
                ),
            ],
        }
    )
    keep = [
        grid
        for grid in GRIDS
        if all(
            len({grid[i] for i in c}) == len(c) and (t is None or sum(grid[i] for i in c) == t)
            for c, t in cages
        )
        and all(
            not clash(grid[a], grid[b])
            for kind in relations
            for pairs, clash in [RELATIONS[kind]]
            for a, b in pairs
        )
        and all(_line_ok(kind, [grid[i] for i in cells]) for kind, cells in marks)
        and all(
            _narrowed_ok(kind, grid[i], v[k] if v else "")
            for kind, cells, v in narrowed
            for k, i in enumerate(cells)
        )
    ]
    cells = [0] * 16
    if keep and givens:
        for i in random.Random(givens).sample(range(16), givens):
            cells[i] = keep[0][i]
        keep = [g for g in keep if all(not v or g[i] == v for i, v in enumerate(cells))]
    puzzle = Puzzle(rules, tuple(cells))
    for spec in (
        "sat",
        "sat:reduced",
        "cpsat",
        "cpsat:integer",
        "backtrack",
        "backtrack:naive",
        *NATIVE,
    ):
        with create_backend(spec) as engine:
            if type(engine).refusal(rules):
                assert spec == "native"  # the general engines take every kind
                continue
            assert engine.count(puzzle, limit=300).count == len(keep), spec


def _random_killer_4x4(rng: random.Random) -> tuple[Rules, int]:
    """A random 4x4 killer (cages tiling the grid, sums from a grid or off by one) and
    its solution count by brute force."""
    grid = GRIDS[rng.randrange(288)]
    cells = list(range(16))
    rng.shuffle(cells)
    cages = []
    while cells:
        size = min(rng.randint(1, 3), len(cells))
        members = tuple(sorted(cells[:size]))
        del cells[:size]
        total = sum(grid[i] for i in members) + rng.choice([0, 0, 0, 1, -1])
        if len({grid[i] for i in members}) == size and total > 0:
            cages.append((members, total))
    spec = {
        "size": 4,
        "box": "2x2",
        "constraints": [{"kind": "cage", "cells": list(c), "sum": t} for c, t in cages],
    }
    try:
        rules = Rules.from_spec(spec)
    except RulesError:  # a sum no different digits make: try another
        return _random_killer_4x4(rng)
    count = sum(
        all(len({g[i] for i in c}) == len(c) and sum(g[i] for i in c) == t for c, t in cages)
        for g in GRIDS
    )
    return rules, count


@pytest.mark.parametrize("spec", ["sat", "cpsat", *NATIVE])
def test_one_live_engine_counts_many_different_killers_as_brute_force(spec: str) -> None:
    # The SAT engine keeps one solver for the grid and numbers every puzzle's auxiliary
    # variables alike; nothing of one puzzle may bind the next, whatever its count.
    rng = random.Random(5)
    counts = []
    with create_backend(spec) as engine:
        for _ in range(150):
            rules, expected = _random_killer_4x4(rng)
            found = engine.count(Puzzle(rules, (0,) * 16), limit=300).count
            assert found == expected, rules.spec()
            counts.append(expected)
    # Every kind of answer came: none, one, several.
    assert 0 in counts
    assert 1 in counts
    assert max(counts) > 1


def test_the_implied_cages_hold_in_every_published_solution() -> None:
    found = 0
    for row in read(DATA / "killer_krazydad_40.csv"):
        rules = killer_rules(row["puzz_color"], row["puzz_hint"])
        solution = tuple(int(ch) for ch in row["solved"])
        for cage in implied_cages(rules):
            assert 1 <= len(cage.cells) <= MOST_CELLS
            assert cage.problem(solution, 9) is None, (row["ptitle"], cage)
            assert cage not in rules.constraints
            found += 1
    assert found >= 40  # the rule of 45 finds some in most puzzles


def test_implied_cages_are_the_innies_of_a_unit() -> None:
    # Row 1 of a 4x4: cages {r1c1, r1c2} = 3 and {r1c3} = 4 leave r1c4 = 10 - 7 = 3.
    spec = {
        "size": 4,
        "box": "2x2",
        "constraints": [
            {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
            {"kind": "cage", "cells": ["r1c3"], "sum": 4},
        ],
    }
    rules = Rules.from_spec(spec)
    assert (3,) in [c.cells for c in implied_cages(rules)]
    assert next(c for c in implied_cages(rules) if c.cells == (3,)).total == 3
    # Two cages of row 1 over the same cell: their sums would count it twice.
    spec["constraints"].append({"kind": "cage", "cells": ["r1c2", "r1c3"], "sum": 6})
    assert (3,) not in [c.cells for c in implied_cages(Rules.from_spec(spec))]
    # Cages without a sum, renban lines and classic rules imply nothing.
    assert implied_cages(Rules.for_size(9)) == ()
    bare = Rules.from_spec(
        {
            "size": 4,
            "box": "2x2",
            "constraints": [{"kind": "cage", "cells": ["r1c1", "r1c2", "r1c3"]}],
        }
    )
    assert implied_cages(bare) == ()


def test_multi_sum_cages_imply_cages_of_the_sums_they_leave() -> None:
    # Row 1 of a 4x4 (10): {r1c1, r1c2} adds up to 3 or 7, {r1c3} to 1 or 2: r1c4
    # holds 10 less one of 4, 5, 8, 9: 6, 5, 2 or 1, of which 1 and 2 are digits.
    spec = {
        "size": 4,
        "box": "2x2",
        "constraints": [
            {"kind": "cage", "cells": ["r1c1", "r1c2"], "sums": [3, 7]},
            {"kind": "cage", "cells": ["r1c3"], "sums": [1, 2]},
        ],
    }
    (innie,) = [c for c in implied_cages(Rules.from_spec(spec)) if c.cells == (3,)]
    assert (innie.total, innie.sums) == (None, (1, 2))
    # One sum left: a plain cage.
    spec["constraints"][1] = {"kind": "cage", "cells": ["r1c3"], "sum": 4}
    (innie,) = [c for c in implied_cages(Rules.from_spec(spec)) if c.cells == (3,)]
    assert (innie.total, innie.sums) == (3, ())


def test_the_implied_cages_of_multi_sum_cages_hold_in_every_solution() -> None:
    path = DATA.parent.parent / "benchmarks" / "data" / "variants" / "multi-sum.jsonl"
    found = 0
    for line in path.read_text().splitlines():
        row = json.loads(line)
        rules = Rules.from_spec(row["rules"])
        solution = tuple(int(ch) for ch in row["solution"])
        for cage in implied_cages(rules):
            assert cage.problem(solution, 9) is None, cage
            found += bool(cage.sums)
    assert found >= 3


def test_the_implied_sums_hold_in_every_published_solution() -> None:
    found = 0
    hard = DATA.parent.parent / "benchmarks" / "data" / "variants" / "hard.jsonl"
    killers = [json.loads(line) for line in hard.read_text().splitlines()]
    killers = [r for r in killers if {c["kind"] for c in r["rules"]["constraints"]} == {"cage"}]
    assert len(killers) >= 15
    puzzles = [(Rules.from_spec(r["rules"]), r["solution"]) for r in killers]
    for row in read(DATA / "killer_krazydad_40.csv"):
        puzzles.append((killer_rules(row["puzz_color"], row["puzz_hint"]), row["solved"]))
    for rules, solved in puzzles:
        solution = tuple(int(ch) for ch in solved)
        cages = {c.cells for c in implied_cages(rules)}
        for s in implied_sums(rules):
            assert 1 <= len(s.cells) <= MOST_SUM_CELLS
            assert s.problem(solution, 9) is None, s
            assert set(s.weights) <= {-1, 1}
            assert s.cells not in cages or -1 in s.weights
            found += 1
    assert found >= 200


def test_implied_sums_are_innies_less_outies_of_runs_of_units() -> None:
    # Row 1 of a 4x4 adds up to 10. Cage {r1c1, r1c2, r2c1} = 6 sticks out of it by one
    # cell, cage {r1c3, r1c4} = 7 lies inside: the outie r2c1 is 6 + 7 - 10 = 3.
    spec = {
        "size": 4,
        "box": "2x2",
        "constraints": [
            {"kind": "cage", "cells": ["r1c1", "r1c2", "r2c1"], "sum": 6},
            {"kind": "cage", "cells": ["r1c3", "r1c4"], "sum": 7},
        ],
    }
    sums = implied_sums(Rules.from_spec(spec))
    outie = next(s for s in sums if s.cells == (4,))
    assert (outie.weights, outie.total) == ((-1,), -3)
    # Column 1 (10): the first cage's r1c1 and r2c1 inside, r1c2 out; r3c1 and r4c1
    # in no cage: innies r1c1 + r2c1 + r3c1 + r4c1 = 10, one unit's own sum, left out
    # (implied_cages' business); the first cage whole: r3c1 + r4c1 - r1c2 = 4.
    column = next(s for s in sums if s.cells == (1, 8, 12))
    assert (column.weights, column.total) == ((-1, 1, 1), 4)
    # Overlapping cages, or no cage with a sum: nothing.
    spec["constraints"].append({"kind": "cage", "cells": ["r1c2", "r1c3"], "sum": 6})
    assert implied_sums(Rules.from_spec(spec)) == ()
    assert implied_sums(Rules.for_size(9)) == ()


def test_a_killer_too_hard_for_the_live_solver_keeps_its_implied_constraints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Escalated to a new solver on its reduced formula, a killer keeps the cages and
    sums the rule of 45 implies (they were left out there, where the hard ones go)."""
    import cpsudoku.engines.sat as sat_module

    seen: list[int] = []
    real = sat_module.reduced

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(len(kwargs.get("implied", ())))
        return real(*args, **kwargs)

    monkeypatch.setattr(sat_module, "ESCALATE_CONFLICTS", 1)
    monkeypatch.setattr(sat_module, "reduced", spy)
    hard = DATA.parent.parent / "benchmarks" / "data" / "variants" / "hard.jsonl"
    row = json.loads(hard.read_text().splitlines()[0])  # tarek 1
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    with create_backend("sat") as engine:
        result = engine.solve(puzzle)
    assert result.status is Status.UNIQUE
    assert str(result.solution) == row["solution"]
    wanted = len(implied_cages(puzzle.rules)) + len(implied_sums(puzzle.rules))
    assert wanted > 0
    assert seen
    assert seen[0] == wanted


def test_the_verifier_checks_the_cages() -> None:
    row = SAMPLE[0]
    puzzle = _puzzle(row)
    good = parse(row["solved"], puzzle.rules)
    assert is_solution(puzzle, good)
    plain = parse(row["solved"])  # the classic rules alone: another puzzle
    assert not is_solution(puzzle, plain)
    # A grid that keeps every row, column and box but breaks a cage's sum.
    swapped = parse(row["solved"].translate(str.maketrans("12", "21")), puzzle.rules)
    assert not is_solution(puzzle, swapped)
    assert any("adds up to" in p for p in solution_problems(puzzle, swapped))


def test_cages_are_checked_when_the_rules_are_made() -> None:
    for spec, message in [
        ({"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 2}, "cannot add up to 2"),
        ({"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 18}, "cannot add up to 18"),
        ({"kind": "cage", "cells": ["r1c1", "r1c1"], "sum": 3}, "twice"),
        ({"kind": "cage", "cells": [], "sum": 3}, "no cells"),
        ({"kind": "cage", "cells": ["r10c1"], "sum": 3}, "not a cell"),
        ({"kind": "cage", "cells": list(range(10)), "sum": 45}, "cannot all differ"),
        ({"kind": "cage", "cells": ["r1c1"], "sum": "x"}, "whole number"),
        ({"kind": "zipper", "cells": ["r1c1"]}, "unknown constraint kind 'zipper'"),
    ]:
        with pytest.raises(RulesError, match=message):
            Rules.from_spec({"size": 9, "box": "3x3", "constraints": [spec]})
    with pytest.raises(RulesError, match="31 cages but 30 sums"):
        killer_rules(SAMPLE[0]["puzz_color"], SAMPLE[0]["puzz_hint"].rsplit(",", 1)[0])
    with pytest.raises(RulesError, match="no square grid"):
        killer_rules("ABC", "1,2,3")


def test_killer_rules_travel_whole() -> None:
    rules = _puzzle(SAMPLE[1]).rules
    assert Rules.from_spec(json.loads(json.dumps(rules.spec()))) == rules
    assert pickle.loads(pickle.dumps(rules)) is rules  # interned: one value per process
    assert rules.units_only == Rules.for_size(9)
    assert f"{len(rules.constraints)} cages (killer" in " ".join(rules.describe())


def test_the_portfolio_takes_what_every_engine_it_races_takes() -> None:
    puzzle = _puzzle(SAMPLE[0])
    with create_backend("portfolio") as engine:  # sat against cpsat: both take cages
        result = engine.solve(puzzle)
    assert result.status is Status.UNIQUE
    assert "".join(map(str, result.solution.cells)) == SAMPLE[0]["solved"]  # type: ignore[union-attr]
    # An arrow whose circle reads as an 11-digit number is past the compiled engine's
    # limits (a weight beyond 2**31): a race with it refuses it, by name.
    arrow = {"kind": "arrow", "circle": list(range(11)), "cells": [80]}
    hot = puzzle.rules.with_constraints(
        *Rules.from_spec({"size": 9, "box": "3x3", "constraints": [arrow]}).constraints
    )
    with (
        create_backend("portfolio:cpsat:native") as engine,
        pytest.raises(UnsupportedRulesError, match="races native: engine 'native' cannot take"),
    ):
        engine.solve(Puzzle(hot, (0,) * 81))


def test_the_json_form_carries_the_rules() -> None:
    rules = _puzzle(SAMPLE[2]).rules
    text = json.dumps({"rules": rules.spec(), "puzzle": "." * 81})
    puzzle = parse(text)
    assert puzzle.rules == rules
    r = create_backend("sat").solve(puzzle)
    assert "".join(map(str, r.solution.cells)) == SAMPLE[2]["solved"]  # type: ignore[union-attr]


def test_a_killer_csv_is_a_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "killer.csv"
    lines = (DATA / "killer_krazydad_40.csv").read_text().splitlines()
    bad = lines[1].replace(",11,", ",2,", 1)  # a cage of several cells adding up to 2
    src.write_text("\n".join([*lines[:11], bad]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 4
    rows = read(out)
    assert [r["status"] for r in rows] == ["unique"] * 10 + ["invalid"]
    # The default engine hands killers to the compiled one first, when it is built.
    first = "native" if native_built() else "sat"
    assert all(r["backend"] == first and not r["error"] for r in rows[:10])  # solved column
    forced = tmp_path / "sat.csv"
    assert main(["batch", str(src), "-o", str(forced), "--quiet", "--backend", "sat:extended"]) == 4
    assert {r["backend"] for r in read(forced)[:10]} == {"sat:extended"}
    assert "killer cages" in rows[10]["error"]
    # The portfolio races engines that all take cages.
    out2 = tmp_path / "out2.csv"
    args = ["batch", str(src), "-o", str(out2), "--quiet", "--backend", "portfolio"]
    assert main(args) == 4
    rows = read(out2)
    assert [r["status"] for r in rows] == ["unique"] * 10 + ["invalid"]
    capsys.readouterr()


def test_solve_says_which_rules_it_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = _puzzle(SAMPLE[3]).rules
    path = tmp_path / "k.json"
    path.write_text(json.dumps({"rules": rules.spec(), "puzzle": "." * 81}))
    assert main(["solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rules: ")
    assert "cages (killer" in out


def test_the_rules_are_counted_in_words() -> None:
    rules = Rules.from_spec(
        {
            "size": 4,
            "box": "2x2",
            "constraints": [
                {"kind": "sandwich", "row": 1, "sum": 0},
                {"kind": "sandwich", "row": 2, "sum": 0},
                {"kind": "x", "cells": ["r1c1", "r1c2"]},
                {"kind": "cage", "cells": ["r3c3"], "sum": 2},
            ],
        }
    )
    words = rules.describe()
    assert any(line.startswith("2 sandwiches (") for line in words)
    assert any(line.startswith("1 X mark (") for line in words)
    assert any(line.startswith("1 cage (") for line in words)


def test_the_json_schema_describes_every_kind_and_key() -> None:
    from cpsudoku.model.constraints import KINDS

    schema = json.loads((Path(__file__).parent.parent / "docs" / "puzzle.schema.json").read_text())
    rules = schema["$defs"]["rules"]
    listed = {
        ref["$ref"].rsplit("/", 1)[1]
        for ref in rules["properties"]["constraints"]["items"]["oneOf"]
    }
    assert listed == set(KINDS)
    for kind in KINDS:
        assert schema["$defs"][kind]["properties"]["kind"] == {"const": kind}
    spec = _puzzle(SAMPLE[0]).rules.with_extra().spec()
    assert set(spec) <= set(rules["properties"])
    assert set(spec["constraints"][0]) <= set(schema["$defs"]["cage"]["properties"])


def test_puzzles_cpsudoku_writes_are_valid_under_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "docs" / "puzzle.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    from conftest import X

    jigsaw = Rules.jigsaw([[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]])
    for rules in (_puzzle(SAMPLE[0]).rules, X, jigsaw, Rules.for_size(9)):
        validator.validate({"rules": rules.spec(), "puzzle": "." * rules.cells})
    bad = {"rules": {"size": 9, "box": "3x3", "constraints": [{"kind": "cage"}]}, "puzzle": ""}
    assert not validator.is_valid(bad)  # a cage without cells


def test_pair_rules_are_checked_by_the_verifier_and_refused_by_name() -> None:
    rules = Rules.from_spec({"size": 4, "box": "2x2", "constraints": [{"kind": "non-consecutive"}]})
    grid = parse("1234341243212143", Rules.for_size(4)).cells  # 1 beside 2: consecutive
    problems = solution_problems(Puzzle(rules, (0,) * 16), Puzzle(rules, grid))
    assert any("non-consecutive" in p for p in problems)
    with pytest.raises(RulesError, match="takes no 'cells'"):
        Rules.from_spec(
            {"size": 4, "box": "2x2", "constraints": [{"kind": "anti-knight", "cells": [0]}]}
        )
    if native_built():  # the compiled engine takes them too, as every engine does
        with create_backend("native") as native, create_backend("backtrack") as oracle:
            puzzle = Puzzle(rules, (0,) * 16)
            assert native.count(puzzle, limit=300).count == oracle.count(puzzle, limit=300).count


def test_the_general_engines_take_every_primitive_the_model_defines() -> None:
    from cpsudoku.engines import backend_class
    from cpsudoku.engines.base import GENERAL_PRIMITIVES
    from cpsudoku.model.primitives import PRIMITIVES, Primitive

    assert set(PRIMITIVES) == GENERAL_PRIMITIVES
    # none left out of the list (slotted dataclasses leave their first class behind)
    assert {p.__name__ for p in PRIMITIVES} == {p.__name__ for p in Primitive.__subclasses__()}
    for name in ("sat", "cpsat", "backtrack"):
        assert backend_class(name).primitive_kinds == GENERAL_PRIMITIVES


def test_a_sukaku_line_is_read_as_given_candidates() -> None:
    line = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    text = "".join(
        "123456789" if ch == "." else "".join(ch if str(d) == ch else "." for d in range(1, 10))
        for ch in line
    )
    puzzle = parse(text)
    assert [c.kind for c in puzzle.rules.constraints] == ["candidates"]
    classic = create_backend("sat").solve(parse(line))
    for spec in ["sat", "cpsat", "backtrack", *NATIVE]:
        r = create_backend(spec).solve(puzzle)
        assert r.status is Status.UNIQUE
        assert r.solution is not None
        assert r.solution.cells == classic.solution.cells  # type: ignore[union-attr]
    with pytest.raises(PuzzleError, match="no candidate"):
        parse("." * 9 + text[9:])
