"""Doppelganger (ISS's rule), written on the grid one larger, against brute force.

The brute force here reads ISS's statement directly on the small grid of 0..N (no
margin, no primitives): every row, column and box holds 0 and all but one of 1..N,
no two rows (columns, boxes) miss the same digit, and at each 0 the row's, column's
and box's missing digits differ. Each of its grids, written on the grid one larger,
must keep the rule's own check, and every engine must count as many.
"""

from __future__ import annotations

import json
import random
from functools import cache
from itertools import pairwise, permutations
from pathlib import Path

import pytest
from rulecheck import ENGINES, NATIVE, completions

from cpsudoku import parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import Doppelganger, constraint_from_spec
from cpsudoku.model.errors import RulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

Grid = tuple[tuple[int, ...], ...]

#: Published doppelgangers in cpsudoku's JSON (tests/data/published/README.md).
PUBLISHED_OWN = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "published" / "cpsudoku.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
]


@cache
def iss_grids(inner: int, br: int, bc: int) -> tuple[Grid, ...]:
    """Every small grid (values 0..N) keeping ISS's doppelganger, row by row."""
    digits = set(range(1, inner + 1))
    rows = [p for p in permutations(range(inner + 1), inner) if 0 in p]
    boxed = br > 1 and bc > 1
    boxes = (
        [
            [(r0 + r, c0 + c) for r in range(br) for c in range(bc)]
            for r0 in range(0, inner, br)
            for c0 in range(0, inner, bc)
        ]
        if boxed
        else []
    )
    box_of = {rc: j for j, b in enumerate(boxes) for rc in b}
    out: list[Grid] = []

    def go(grid: list[tuple[int, ...]], cols: list[set[int]], missed: list[int]) -> None:
        k = len(grid)
        if k == inner:
            if any(0 not in col for col in cols):
                return
            by_col = [(digits - col).pop() for col in cols]
            by_box = [(digits - {grid[r][c] for r, c in b}).pop() for b in boxes]
            if len(set(by_col)) != inner or len(set(by_box)) != len(by_box):
                return
            for r in range(inner):
                c = grid[r].index(0)
                three = {missed[r], by_col[c]} | ({by_box[box_of[r, c]]} if boxed else set())
                if len(three) != (3 if boxed else 2):
                    return
            out.append(tuple(grid))
            return
        for row in rows:
            gone = (digits - set(row)).pop()
            if gone in missed or any(row[c] in cols[c] for c in range(inner)):
                continue
            grid.append(row)
            band_done = boxed and (k + 1) % br == 0
            if not band_done or all(
                len({grid[r][c] for r, c in b}) == inner for b in boxes if b[0][0] == k + 1 - br
            ):
                go(grid, [cols[c] | {row[c]} for c in range(inner)], [*missed, gone])
            grid.pop()

    go([], [set() for _ in range(inner)], [])
    return tuple(out)


def written(grid: Grid) -> tuple[int, ...]:
    """A small grid written on the grid one larger (digit k as the value k + 1), the
    missing digits around it and the 0 in the corner."""
    inner = len(grid)
    n = inner + 1
    digits = set(range(1, n))
    cells = [0] * (n * n)
    for r in range(inner):
        for c in range(inner):
            cells[r * n + c] = grid[r][c] + 1
        cells[r * n + inner] = (digits - set(grid[r])).pop() + 1
    for c in range(inner):
        cells[inner * n + c] = (digits - {grid[r][c] for r in range(inner)}).pop() + 1
    cells[n * n - 1] = 1
    return tuple(cells)


def rules_of(n: int, **spec: object) -> Rules:
    return Rules.from_spec(
        {"size": n, "box": f"1x{n}", "constraints": [{"kind": "doppelganger", **spec}]}
    )


def engines_count(rules: Rules, cells: tuple[int, ...], limit: int = 1000) -> dict[str, int]:
    out = {}
    for spec in (*ENGINES, *NATIVE):
        with create_backend(spec) as engine:
            found = engine.count(Puzzle(rules, cells), limit=limit, time_limit=60)
            assert not found.timed_out, spec
            out[spec] = found.count
    return out


def test_every_4x4_doppelganger_grid_keeps_the_rules_own_check() -> None:
    grids = iss_grids(4, 2, 2)
    assert len(grids) == 768
    (rule,) = rules_of(5).constraints
    assert all(rule.problem(written(g), 5) is None for g in grids)


@pytest.mark.parametrize("seed", range(4))
def test_4x4_counts_as_brute_force_on_every_engine(seed: int) -> None:
    """A few cells of one grid given: every engine counts the brute force's grids."""
    rng = random.Random(seed)
    grids = [written(g) for g in iss_grids(4, 2, 2)]
    one = grids[rng.randrange(len(grids))]
    cells = [0] * 25
    for i in rng.sample(range(25), 3 + seed % 3):
        cells[i] = one[i]
    expected = sum(all(not v or g[i] == v for i, v in enumerate(cells)) for g in grids)
    counts = engines_count(rules_of(5), tuple(cells))
    assert set(counts.values()) == {expected}, counts


def test_with_no_boxes_no_3x3_grid_keeps_it() -> None:
    """N = 3 is prime: no boxes (as ISS reads a prime grid); no grid keeps the rest."""
    assert iss_grids(3, 1, 3) == ()
    assert set(engines_count(rules_of(4), (0,) * 16).values()) == {0}


def test_6x6_completions_count_as_the_rules_own_check() -> None:
    """Cells of a 6x6 doppelganger grid blanked: the completions the rule's own check
    keeps (a plain search, no primitives) are what every engine counts."""
    rules = rules_of(7)
    with create_backend("native") as engine:
        found = engine.solve(Puzzle(rules, (0,) * 49), unique=False)
    assert found.solution is not None
    rng = random.Random(7)
    for blanks in (8, 10):
        cells = list(found.solution.cells)
        for i in rng.sample(range(49), blanks):
            cells[i] = 0
        expected = len(completions(rules, cells))
        assert expected >= 1
        counts = engines_count(rules, tuple(cells))
        assert set(counts.values()) == {expected}, counts


def test_the_rule_names_what_it_finds_wrong() -> None:
    (rule,) = rules_of(5).constraints
    good = list(written(iss_grids(4, 2, 2)[0]))
    assert rule.problem(good, 5) is None
    bad = good[:]
    bad[24] = 2
    assert "not the 0" in (rule.problem(bad, 5) or "")
    bad = good[:]
    bad[4] = bad[9]  # row 1's written missing digit is row 2's
    assert "misses" in (rule.problem(bad, 5) or "")


def test_spec_box_and_the_grid_it_is_written_on() -> None:
    rule = constraint_from_spec({"kind": "doppelganger"}, 10)
    assert isinstance(rule, Doppelganger)
    assert rule.box == (3, 3)
    assert rule.spec() == {"kind": "doppelganger"}
    wide = constraint_from_spec({"kind": "doppelganger", "box": "3x2"}, 7)
    assert wide.spec() == {"kind": "doppelganger", "box": "3x2"}
    assert not constraint_from_spec({"kind": "doppelganger", "box": "1x9"}, 10).boxes()
    with pytest.raises(RulesError, match="do not tile"):
        constraint_from_spec({"kind": "doppelganger", "box": "2x2"}, 10)
    with pytest.raises(RulesError, match="'RxC'"):
        constraint_from_spec({"kind": "doppelganger", "box": 4}, 10)
    with pytest.raises(RulesError, match="N of 2 or more"):
        constraint_from_spec({"kind": "doppelganger"}, 2)
    with pytest.raises(RulesError, match='no boxes of its own \\("box": "1x10"\\)'):
        Rules.from_spec({"size": 10, "box": "2x5", "constraints": [{"kind": "doppelganger"}]})


def test_a_doppelganger_reads_with_0_for_the_value_n_and_solves_from_the_cli(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The givens over symbols 01234 (digit k is the value k + 1), or the grid's own."""
    grids = [written(g) for g in iss_grids(4, 2, 2)]
    one = grids[0]
    cells = [0] * 25
    for i in random.Random(3).sample(range(25), 12):
        cells[i] = one[i]
    assert sum(all(not v or g[i] == v for i, v in enumerate(cells)) for g in grids) == 1
    with_zero = "".join("01234"[v - 1] if v else "." for v in cells)
    text = json.dumps({"rules": rules_of(5).spec(), "puzzle": with_zero})
    assert parse(text, symbols="01234").cells == tuple(cells)
    own = "".join(str(v) if v else "." for v in cells)
    plain = json.dumps({"rules": rules_of(5).spec(), "puzzle": own})
    assert main(["solve", plain, "--backend", "sat"]) == 0
    out = capsys.readouterr().out
    assert "unique" in out
    assert "".join(map(str, one)) in "".join(ch for ch in out.split("unique")[0] if ch.isdigit())
    # --symbols with a puzzle that brings its own rules: the symbols need only be as
    # many as its values (they once set default boxes, refused as "not 2x5 boxes").
    assert main(["solve", text, "--backend", "sat", "--symbols", "01234"]) == 0
    assert "unique" in capsys.readouterr().out
    assert main(["solve", text, "--backend", "sat", "--symbols", "0123"]) == 2
    assert "unknown symbol '4' at row 1, column 5" in capsys.readouterr().err


def test_the_json_schema_takes_a_doppelganger_puzzle() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    root = Path(__file__).parent.parent
    schema = json.loads((root / "docs" / "puzzle.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for rules in (rules_of(10), rules_of(7, box="3x2")):
        validator.validate({"rules": rules.spec(), "puzzle": "." * rules.cells})
    for row in PUBLISHED_OWN:  # box whispers, whisper values and loops
        validator.validate(row["puzzle"])
    bad = {"kind": "doppelganger", "box": "three"}
    assert not validator.is_valid({"rules": {"size": 10, "constraints": [bad]}, "puzzle": ""})


def test_a_thermometer_on_a_doppelganger_reads_its_0_as_the_lowest_digit() -> None:
    """Digit k is held as k + 1, so order rules drawn with the rule read the digits as
    ISS does: counted against the brute force's grids whose thermometer rises."""
    rng = random.Random(11)
    thermo = [(0, 0), (0, 1), (1, 1)]
    keep = [g for g in iss_grids(4, 2, 2) if g[0][0] < g[0][1] < g[1][1]]
    assert any(g[0][0] == 0 for g in keep)
    grids = [written(g) for g in keep]
    one = grids[rng.randrange(len(grids))]
    cells = [0] * 25
    for i in rng.sample(range(25), 3):
        cells[i] = one[i]
    expected = sum(all(not v or g[i] == v for i, v in enumerate(cells)) for g in grids)
    spec = {"kind": "thermometer", "cells": [r * 5 + c for r, c in thermo]}
    rules = Rules.from_spec(
        {"size": 5, "box": "1x5", "constraints": [{"kind": "doppelganger"}, spec]}
    )
    counts = engines_count(rules, tuple(cells))
    assert set(counts.values()) == {expected}, counts


def _box_missing(grid: Grid, br: int, bc: int) -> list[int]:
    """The digit each box of a small grid misses, boxes row by row."""
    inner = len(grid)
    digits = set(range(1, inner + 1))
    return [
        (digits - {grid[r0 + r][c0 + c] for r in range(br) for c in range(bc)}).pop()
        for r0 in range(0, inner, br)
        for c0 in range(0, inner, bc)
    ]


def _keeps_box_whisper(grid: Grid, boxes: list[int], value: int) -> bool:
    """ISS's whisper on the boxes' missing digits (boxes numbered from 1), read directly."""
    missing = _box_missing(grid, 2, 2)
    return all(abs(missing[a - 1] - missing[b - 1]) >= value for a, b in pairwise(boxes))


#: Lines over the 4x4's boxes; the loop cannot hold (three of 1..4 pairwise 2 apart),
#: though its open line [2, 3, 4] can.
BOX_WHISPERS = [([1, 2, 4], 2), ([2, 3, 4], 2), ([2, 3, 4, 2], 2), ([1, 4], 3)]


@pytest.mark.parametrize(("boxes", "value"), BOX_WHISPERS)
def test_a_box_whisper_keeps_the_grids_brute_force_keeps(boxes: list[int], value: int) -> None:
    """The rule's own check and every engine's count against ISS's statement read
    directly on every 4x4 grid: the boxes' missing digits, neighbours on the line at
    least ``value`` apart (a loop repeats its first box)."""
    spec = {"box_whispers": [{"boxes": boxes, "value": value}]}
    (rule,) = rules_of(5, **spec).constraints
    grids = iss_grids(4, 2, 2)
    keep = [g for g in grids if _keeps_box_whisper(g, boxes, value)]
    assert len(keep) < len(grids)
    assert [g for g in grids if rule.problem(written(g), 5) is None] == keep
    rng = random.Random(len(keep))
    cells = [0] * 25
    if keep:
        one = written(keep[rng.randrange(len(keep))])
        for i in rng.sample(range(25), 3):
            cells[i] = one[i]
    expected = sum(all(not v or written(g)[i] == v for i, v in enumerate(cells)) for g in keep)
    assert set(engines_count(rules_of(5, **spec), tuple(cells)).values()) == {expected}


def test_box_whispers_spec_and_what_it_refuses() -> None:
    spec = {"kind": "doppelganger", "box_whispers": [{"boxes": [2, 5, 4, 2], "value": 4}]}
    rule = constraint_from_spec(spec, 10)
    assert isinstance(rule, Doppelganger)
    assert rule.box_whispers == (((1, 4, 3, 1), 4),)
    assert rule.spec() == spec
    default = constraint_from_spec(
        {"kind": "doppelganger", "box_whispers": [{"boxes": [1, 9]}]}, 10
    )
    assert default.spec()["box_whispers"] == [{"boxes": [1, 9], "value": 5}]
    for bad, match in (
        ([{"boxes": [1, 10]}], "box 10 is not one of 1..9"),
        ([{"boxes": [3]}], "two boxes or more"),
        ([{"boxes": [3, 3, 4]}], "never twice the same box"),
        ([{"boxes": [1, 2], "value": 9}], "value 9 is not one of 1..8"),
        ([{"boxes": [1, 2], "sum": 9}], "takes no 'sum'"),
        ([{"value": 3}], 'needs "boxes"'),
        ([[1, 2]], "box whisper is"),
    ):
        with pytest.raises(RulesError, match=match):
            constraint_from_spec({"kind": "doppelganger", "box_whispers": bad}, 10)
    with pytest.raises(RulesError, match="need boxes"):
        constraint_from_spec({"kind": "doppelganger", "box": "1x9", "box_whispers": []}, 10)


@pytest.mark.parametrize("row", PUBLISHED_OWN, ids=lambda row: str(row["id"]))
def test_the_published_dutch_pelganger_is_unique_with_its_published_solution(
    row: dict[str, object],
) -> None:
    """ChinStrap's puzzle as ISS holds it (whispers on the rows', columns' and boxes'
    missing digits), in cpsudoku's JSON: `sat` (about 5 s) and `cpsat` (about 50 s)
    prove it unique, and the answer is the published 9x9 grid of 0..9 (written one
    larger, digit k as k + 1). The compiled engine and the oracle do not finish it in
    two minutes (docs/design.md)."""
    puzzle = parse(json.dumps(row["puzzle"]))
    small = [[int(ch) for ch in str(row["solution"])[r * 9 : r * 9 + 9]] for r in range(9)]
    assert puzzle.rules.spec() == row["puzzle"]["rules"]  # type: ignore[index]
    for spec in ("sat", "cpsat"):
        with create_backend(spec) as engine:
            result = engine.solve(puzzle, time_limit=600)
        assert result.status.value == "unique", (spec, result.error)
        assert result.solution is not None
        assert result.solution.cells == written(tuple(map(tuple, small))), spec
