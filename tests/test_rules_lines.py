"""Line rules against brute force on every engine, their f-puzzles keys, known facts.

Slow thermometers, nabner, entropic and modular lines, between and lockout lines,
regular-expression lines, zipper lines, double arrows and region sum lines: random
instances on 4x4 (every grid) and 6x6 (every completion of a blanked grid), drawn so
that some hold in the grid they were read from and some do not; each rule's own check
is also held to the rule written out here, apart from the model.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from itertools import combinations, pairwise, permutations, product
from typing import Any

import pytest
from conftest import GRIDS_4X4, LATIN_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecheck import check_4x4, check_6x6, random_grid_6x6, rules_of, walk

from cpsudoku import Status
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import (
    Constraint,
    constraint_from_spec,
)
from cpsudoku.model.constraints.lines import entropy_band
from cpsudoku.model.constraints.regex import parse
from cpsudoku.model.constraints.sums import region_runs
from cpsudoku.model.errors import RulesError
from cpsudoku.model.fpuzzles import read_fpuzzles, to_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# ----------------------------------------------------------- the rules, written out


def _band(v: int, n: int) -> int:
    """Entropy bands by hand: 4x4 1|23|4, 6x6 12|34|56, 9x9 123|456|789."""
    cut = {4: (1, 3), 5: (2, 3), 6: (2, 4), 7: (2, 5), 8: (3, 5), 9: (3, 6)}[n]
    return 0 if v <= cut[0] else 1 if v <= cut[1] else 2


def _classes_ok(of: Callable[[int], int], values: list[int]) -> bool:
    """Every three consecutive values in three different classes (two: two classes)."""
    windows = [values[k : k + 3] for k in range(max(1, len(values) - 2))]
    return all(len({of(v) for v in w}) == len(w) for w in windows)


def _zipper_ok(values: list[int]) -> bool:
    half = len(values) // 2
    totals = {values[k] + values[-1 - k] for k in range(half)}
    if len(values) % 2:
        totals.add(values[half])
    return len(totals) == 1


def holds(spec: dict[str, Any], grid: tuple[int, ...], n: int, rules: Rules) -> bool:
    """The rule of ``spec`` on a complete grid, written out from the setters' statement."""
    v = [grid[i] for i in spec["cells"]]
    kind = spec["kind"]
    if kind == "slow-thermometer":
        return all(a <= b for a, b in pairwise(v))
    if kind == "nabner":
        return all(abs(a - b) >= 2 for a, b in combinations(v, 2))
    if kind == "entropic-line":
        return _classes_ok(lambda d: _band(d, n), v)
    if kind == "modular-line":
        return _classes_ok(lambda d: d % 3, v)
    if kind == "between-line":
        low, high = sorted((v[0], v[-1]))
        return all(low < x < high for x in v[1:-1])
    if kind == "lockout-line":
        low, high = sorted((v[0], v[-1]))
        gap = spec.get("value", n // 2)
        return high - low >= gap and all(x < low or x > high for x in v[1:-1])
    if kind == "regex-line":
        text = "".join(SYMBOLS[d - 1] for d in v)
        return re.fullmatch(spec["pattern"].upper(), text) is not None
    if kind == "zipper-line":
        return _zipper_ok(v)
    if kind == "double-arrow":
        return v[0] + v[-1] == sum(v[1:-1])
    assert kind == "region-sum-line"
    region = {i: k for k, cells in enumerate(rules.unit_cells[2 * n : 3 * n]) for i in cells}
    runs: list[list[int]] = []
    last = None
    for i in spec["cells"]:
        if region[i] != last:
            runs.append([])
        runs[-1].append(grid[i])
        last = region[i]
    return len({sum(run) for run in runs}) <= 1


# ------------------------------------------------------------ random instances

#: Each kind with the fewest and the most cells its random lines take.
LENGTHS = {
    "slow-thermometer": (2, 5),
    "nabner": (2, 3),
    "entropic-line": (2, 6),
    "modular-line": (2, 6),
    "between-line": (3, 5),
    "lockout-line": (2, 5),
    "zipper-line": (3, 6),
    "double-arrow": (3, 5),
    "region-sum-line": (2, 7),
}


def _instance(rng: random.Random, kind: str, n: int) -> dict[str, Any]:
    """A random instance of ``kind`` on an ``n x n`` grid (a walk, or any cells)."""
    low, high = LENGTHS[kind]
    length = rng.randint(low, high)
    if kind == "region-sum-line" or rng.random() < 0.5:
        cells = walk(rng, n, length)
    else:
        cells = rng.sample(range(n * n), length)
    if len(cells) < low:
        cells = rng.sample(range(n * n), low)
    spec: dict[str, Any] = {"kind": kind, "cells": cells}
    if kind == "lockout-line" and rng.random() < 0.4:
        spec["value"] = rng.randint(1, n - 1)
    return spec


def _drawn(
    rng: random.Random, kind: str, n: int, grid: tuple[int, ...], rules: Rules
) -> dict[str, Any]:
    """An instance that holds in ``grid`` about two times in three (when one is found)."""
    want = rng.random() < 0.65
    spec = _instance(rng, kind, n)
    for _ in range(300):
        if holds(spec, grid, n, rules) == want:
            return spec
        spec = _instance(rng, kind, n)
    return spec


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(sorted(LENGTHS)),
    seed=st.integers(0, 2**32 - 1),
    givens=st.integers(0, 3),
)
def test_every_engine_counts_the_4x4_grids_of_a_line_rule(
    kind: str, seed: int, givens: int
) -> None:
    rng = random.Random(seed)
    classic = Rules.classic(2, 2)
    specs = [_drawn(rng, kind, 4, rng.choice(GRIDS_4X4), classic) for _ in range(rng.randint(1, 2))]
    check_4x4(rules_of(4, "2x2", specs), givens, seed)


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["entropic-line", "modular-line", "lockout-line", "region-sum-line"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_engine_counts_the_6x6_completions_of_a_line_rule(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    grid = random_grid_6x6(seed)
    specs = [_drawn(rng, kind, 6, grid, Rules.classic(2, 3)) for _ in range(rng.randint(1, 2))]
    check_6x6(rules_of(6, "2x3", specs), grid, rng.randint(10, 16), seed)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(LENGTHS)), seed=st.integers(0, 2**32 - 1))
def test_each_rule_checks_a_grid_as_written_out_here(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([4, 6])
    rules = Rules.for_size(n)
    spec = _instance(rng, kind, n)
    rule = rules.with_constraints(constraint_from_spec(spec, n)).constraints[0]
    grids = rng.sample(GRIDS_4X4, 40) if n == 4 else [random_grid_6x6(s) for s in range(40)]
    for grid in grids:
        assert (rule.problem(grid, n) is None) == holds(spec, grid, n, rules), (spec, grid)


# ------------------------------------------------------------------- regex lines


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    """A random pattern over the digits 1-4, of every construct the parser takes."""
    pick = rng.random() if depth < 3 else rng.random() * 0.5
    if pick < 0.3:
        return rng.choice("1234.")
    if pick < 0.45:
        digits = "".join(sorted(rng.sample("1234", rng.randint(1, 3))))
        if rng.random() < 0.4 and len(digits) > 1:
            digits = f"{digits[0]}-{digits[-1]}"
        return f"[{'^' if rng.random() < 0.3 else ''}{digits}]"
    if pick < 0.6:
        return "".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 3)))
    if pick < 0.75:
        options = [_random_pattern(rng, depth + 1) for _ in range(rng.randint(2, 3))]
        return f"({'|'.join(options)})"
    part = _random_pattern(rng, depth + 1)
    low = rng.randint(0, 2)
    quantifier = rng.choice(["*", "+", "?", f"{{{low}}}", f"{{{low},}}", f"{{{low},{low + 2}}}"])
    return f"({part}){quantifier}"


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), givens=st.integers(0, 2))
def test_a_random_regular_expression_counts_as_brute_force(seed: int, givens: int) -> None:
    rng = random.Random(seed)
    cells = walk(rng, 4, rng.randint(1, 5)) if rng.random() < 0.7 else rng.sample(range(16), 4)
    spec = {"kind": "regex-line", "cells": cells, "pattern": _random_pattern(rng)}
    lines = ("".join(t) for t in product(SYMBOLS[:4], repeat=len(cells)))
    if not any(re.fullmatch(spec["pattern"], line) for line in lines):
        with pytest.raises(RulesError, match="matches"):  # refused, as an impossible sum is
            rules_of(4, "2x2", [spec])
        return
    check_4x4(rules_of(4, "2x2", [spec]), givens, seed)


def test_a_regular_expression_on_a_6x6_grid_counts_as_brute_force() -> None:
    grid = random_grid_6x6(7)
    cells = walk(random.Random(7), 6, 6)
    text = "".join(str(grid[i]) for i in cells)
    for pattern in (text, f"[{text[0]}-6].*", "([1-3][4-6])*[1-3]?", "(1|2|3){2}[^12].*"):
        spec = {"kind": "regex-line", "cells": cells, "pattern": pattern}
        check_6x6(rules_of(6, "2x3", [spec]), grid, 14, 7)


def _regex_of(tuples: list[tuple[int, ...]]) -> str:
    """A pattern matching exactly the listed value tuples."""
    return "|".join("".join(map(str, t)) for t in tuples) or "(1|)1{9}"


def _same_counts(builtin: dict[str, Any], pattern: str, n: int, box: str, seed: int) -> None:
    """The built-in rule and a regex line with ``pattern`` count alike on every engine."""
    regex = {"kind": "regex-line", "cells": builtin["cells"], "pattern": pattern}
    if n == 4:
        assert check_4x4(rules_of(n, box, [builtin])) == check_4x4(rules_of(n, box, [regex]))
    else:
        grid = random_grid_6x6(seed)
        expected = check_6x6(rules_of(n, box, [builtin]), grid, 14, seed)
        assert check_6x6(rules_of(n, box, [regex]), grid, 14, seed) == expected


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_regex_reproduces_thermometer_renban_and_whisper_counts(seed: int) -> None:
    rng = random.Random(seed)
    n, box = rng.choice([(4, "2x2"), (6, "2x3")])
    kind = rng.choice(["thermometer", "renban", "whisper"])
    cells = walk(rng, n, rng.randint(2, 4))
    length = len(cells)
    if kind == "thermometer":  # rising: each digit at most once, in order
        pattern = "".join(f"{d}?" for d in range(1, n + 1))
    elif kind == "renban":  # the runs of its length, in any order
        runs = [range(s, s + length) for s in range(1, n - length + 2)]
        pattern = _regex_of([p for run in runs for p in permutations(run)])
    else:  # neighbours at least ceil(n / 2) apart
        gap = (n + 1) // 2
        tuples = [
            t
            for t in product(range(1, n + 1), repeat=length)
            if all(abs(a - b) >= gap for a, b in pairwise(t))
        ]
        pattern = _regex_of(tuples)
    _same_counts({"kind": kind, "cells": cells}, pattern, n, box, seed)


def test_a_malformed_pattern_is_refused_by_name() -> None:
    for pattern, message in [
        ("1**", "nothing to repeat"),
        ("(12", "without its '\\)'"),
        ("12)", "unmatched"),
        ("[]", "empty class"),
        ("[3-1]", "larger digit"),
        ("0", "'0' is no digit"),
        ("1{3,2}", "at most fewer than at least"),
        ("1{,2}", "no repeat count"),
        ("\\d", "no digit"),
        ("^1$", "no digit"),
        ("123", "no line of 2 digits"),
        ("A", "no line of 2 digits"),
    ]:
        spec = {"kind": "regex-line", "cells": ["r1c1", "r1c2"], "pattern": pattern}
        with pytest.raises(RulesError, match=message):
            constraint_from_spec(spec, 9)
    with pytest.raises(RulesError, match="pattern is text"):
        constraint_from_spec({"kind": "regex-line", "cells": [0], "pattern": 12}, 9)


def test_patterns_read_letters_for_values_above_nine_and_ignore_spaces() -> None:
    rules = Rules.for_size(12)
    spec = {"kind": "regex-line", "cells": [0, 1, 2], "pattern": "[a-c] b C"}
    rule = rules.with_constraints(constraint_from_spec(spec, 12)).constraints[0]
    grid = [0] * 144
    grid[:3] = [12, 11, 12]
    assert rule.problem(grid, 12) is None
    grid[0] = 9
    assert rule.problem(grid, 12) is not None
    assert parse("A", 9).mask == 0  # type: ignore[union-attr]  # no such value: matches none


# --------------------------------------------------------------- region sum lines

#: A 4x4 jigsaw: an L, a column, a square, an L.
JIGSAW = [[0, 1, 2, 4], [3, 7, 11, 15], [5, 6, 9, 10], [8, 12, 13, 14]]


def test_region_runs_cut_the_line_where_it_crosses_and_when_it_comes_back() -> None:
    boxes = Rules.classic(2, 2).unit_cells[8:12]
    # r1c1 r1c2 (box 1) r1c3 (box 2) r2c2 (box 1 again) r3c2 (box 3)
    assert region_runs([0, 1, 2, 5, 9], boxes) == ((0, 1), (2,), (5,), (9,))
    assert region_runs([0, 1, 5, 4], boxes) == ((0, 1, 5, 4),)
    # a cell in no region belongs to no run and does not cut one
    assert region_runs([0, 7, 1, 2], [[0, 1, 4, 5], [2, 3, 6]]) == ((0, 1), (2,))


def test_a_region_sum_line_takes_the_puzzles_own_regions() -> None:
    spec = {"kind": "region-sum-line", "cells": [0, 1, 2, 3]}
    boxed = rules_of(4, "2x2", [spec])
    jigsaw = rules_of(4, "2x2", [spec], regions=JIGSAW)
    assert boxed.constraints[0].runs == ((0, 1), (2, 3))  # type: ignore[attr-defined]
    assert jigsaw.constraints[0].runs == ((0, 1, 2), (3,))  # type: ignore[attr-defined]
    assert jigsaw.spec()["constraints"] == [spec]
    assert Rules.from_spec(jigsaw.spec()) == jigsaw


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_region_sum_lines_on_a_jigsaw_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    latin = [g for g in LATIN_4X4 if all(len({g[i] for i in region}) == 4 for region in JIGSAW)]
    jigsaw = Rules.jigsaw(JIGSAW)
    specs = [_drawn(rng, "region-sum-line", 4, rng.choice(latin), jigsaw)]
    check_4x4(rules_of(4, "2x2", specs, regions=JIGSAW), rng.randint(0, 2), seed)


# --------------------------------------------------------------- JSON and refusals


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "slow-thermometer", "cells": [0]}, "at least 2 cells"),
        ({"kind": "nabner", "cells": list(range(5))}, "at most 4 cells"),
        ({"kind": "between-line", "cells": [0, 1]}, "at least 3 needed"),
        ({"kind": "lockout-line", "cells": [0, 1], "value": 4}, "not one of 1..3"),
        ({"kind": "zipper-line", "cells": [0, 1]}, "at least 3 needed"),
        ({"kind": "double-arrow", "cells": [0, 1, 1]}, "list a cell twice"),
        ({"kind": "region-sum-line", "cells": [0], "sum": 3}, "takes no 'sum'"),
        ({"kind": "entropic-line", "cells": [0, 99]}, "not a cell"),
    ],
)
def test_malformed_line_rules_are_refused_by_name(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        constraint_from_spec(spec, 4)


def test_every_new_kind_reads_back_its_own_spec() -> None:
    for spec in [
        {"kind": "slow-thermometer", "cells": [0, 1, 2]},
        {"kind": "nabner", "cells": [0, 5]},
        {"kind": "entropic-line", "cells": [0, 1, 2, 3]},
        {"kind": "modular-line", "cells": [0, 1]},
        {"kind": "between-line", "cells": [0, 1, 2]},
        {"kind": "lockout-line", "cells": [0, 1, 2]},
        {"kind": "lockout-line", "cells": [0, 1, 2], "value": 1},
        {"kind": "regex-line", "cells": [0, 1], "pattern": "1.|[^2]3"},
        {"kind": "zipper-line", "cells": [0, 1, 2]},
        {"kind": "double-arrow", "cells": [0, 1, 2]},
        {"kind": "region-sum-line", "cells": [0, 1, 2]},
    ]:
        rule: Constraint = constraint_from_spec(spec, 4)
        assert rule.spec() == spec
        assert constraint_from_spec(rule.spec(), 4) == rule


def test_entropy_bands_follow_the_grids_side() -> None:
    bands = {
        n: "".join(str(entropy_band(v, n)) for v in range(1, n + 1)) for n in (4, 5, 6, 7, 8, 9)
    }
    assert bands == {
        4: "0112",
        5: "00122",
        6: "001122",
        7: "0011122",
        8: "00011222",
        9: "000111222",
    }


# ---------------------------------------------------------------------- f-puzzles


def _fpuzzles(n: int, givens: str, **keys: Any) -> dict[str, Any]:
    """An f-puzzles object of side ``n`` with the givens of a digit string (0: empty)."""
    grid = [
        [
            {"value": int(givens[r * n + c]), "given": True} if givens[r * n + c] != "0" else {}
            for c in range(n)
        ]
        for r in range(n)
    ]
    return {"size": n, "grid": grid, **keys}


def _lines(*lines: str) -> list[dict[str, Any]]:
    """Items of one line each, cells written as f-puzzles writes them."""
    return [{"lines": [line.split()]} for line in lines]


#: A 6x6 puzzle per key, as the userscript writes it: (key, givens, the lines, the one
#: solution). The lines hold in the solution; the givens leave it unique.
PUZZLES = [
    (
        "slowthermometer",
        "030000000000000002000000000000102000",
        ["R5C4 R5C5 R4C4", "R5C3 R5C2 R4C2 R3C3", "R1C3 R2C3 R1C4", "R2C2 R1C1 R2C1"],
        "431526625134316452254613543261162345",
    ),
    (
        "nabner",
        "400000000001003000010600000000000000",
        ["R6C6 R5C5 R4C5", "R6C4 R6C3 R5C2", "R1C1 R1C2 R2C3", "R3C5 R2C5 R3C6"],
        "461352352461623514514623136245245136",
    ),
    (
        "entropicline",
        "000000400000060000000120000300000000",
        ["R6C2 R5C3 R5C2 R6C3 R5C4 R6C4", "R1C2 R2C3 R3C3", "R2C4 R1C4 R2C5", "R1C1 R2C1 R3C1"],
        "631452425613162534543126214365356241",
    ),
    (
        "modularline",
        "500041300000000003000000000030004000",
        ["R6C5 R5C6 R5C5 R6C6", "R6C3 R5C2 R6C1", "R6C4 R5C3 R5C4", "R3C2 R4C3 R3C3 R4C4"],
        "526341341526415263263415152634634152",
    ),
    (
        "betweenline",
        "061000400000000000000503003600000000",
        ["R6C4 R6C3 R6C2", "R4C3 R3C2 R3C1 R4C1", "R4C6 R3C6 R3C5", "R2C2 R1C1 R1C2"],
        "361452425316532164146523213645654231",
    ),
    (
        "lockout",
        "000000000005000000120000003040000000",
        ["R1C3 R2C4 R2C3", "R3C6 R3C5 R2C5", "R3C3 R4C3 R5C4", "R2C1 R1C1 R1C2"],
        "265431341625534216126354653142412563",
    ),
    (
        "zipperline",
        "000000000003300004000000000000000000",
        [
            "R1C5 R2C4 R3C4 R4C5",
            "R5C3 R5C2 R6C1 R5C1",
            "R6C4 R6C3 R5C4 R4C3 R3C3",
            "R2C3 R1C3 R1C4",
        ],
        "136245254163362514541326413652625431",
    ),
    (
        "doublearrow",
        "000000000000000000000530000000002006",
        [
            "R1C6 R2C5 R3C6 R4C5 R4C6",
            "R6C4 R6C3 R5C2 R5C3 R4C2",
            "R1C2 R1C3 R2C2",
            "R3C1 R4C1 R3C2 R4C3",
        ],
        "413625526314135462264531641253352146",
    ),
    (
        "regionsumline",
        "000000350000040201000000000000000000",
        [
            "R4C6 R3C6 R2C5 R1C5",
            "R3C2 R3C3 R4C4 R4C5",
            "R5C1 R6C2 R6C3 R6C4 R5C4",
            "R2C3 R1C4 R1C3 R2C2",
        ],
        "421653356124645231132546263415514362",
    ),
]

#: Each puzzle as an f-puzzles object: (key, the object, its one solution).
FPUZZLES = [
    (key, _fpuzzles(6, givens, **{key: _lines(*lines)}), solution)
    for key, givens, lines, solution in PUZZLES
]


@pytest.mark.parametrize(("key", "obj", "solution"), FPUZZLES, ids=[k for k, _, _ in FPUZZLES])
def test_an_fpuzzles_line_key_reads_solves_and_writes_back(
    key: str, obj: dict[str, Any], solution: str
) -> None:
    read = read_fpuzzles(obj)
    assert not read.notes
    rules = read.puzzle.rules
    assert rules.constraints
    for spec in ("sat", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            result = engine.solve(read.puzzle)
            assert result.status is Status.UNIQUE, spec
            assert result.solution is not None
            assert "".join(map(str, result.solution.cells)) == solution
            if spec == "sat":  # the givens alone leave other grids: the lines decide
                alone = Puzzle(rules.units_only, read.puzzle.cells)
                assert engine.count(alone, limit=2).count == 2
    out = to_fpuzzles(read.puzzle)
    assert out[key]
    again = read_fpuzzles(out).puzzle
    assert again.rules.spec() == rules.spec()
    assert again.cells == read.puzzle.cells


def test_short_fpuzzles_lines_say_nothing_and_a_long_nabner_is_refused() -> None:
    n, empty = 4, "0" * 16
    obj = _fpuzzles(
        n,
        empty,
        betweenline=_lines("R1C1 R1C2"),
        zipperline=_lines("R2C1 R2C2"),
        doublearrow=_lines("R3C1 R3C2"),
        slowthermometer=_lines("R4C1"),
    )
    assert not read_fpuzzles(obj).puzzle.rules.constraints
    with pytest.raises(RulesError, match="nabner takes at most 4"):
        read_fpuzzles(_fpuzzles(n, empty, nabner=_lines("R1C1 R1C2 R1C3 R1C4 R2C4")))


def test_an_fpuzzles_lockout_line_differs_by_half_the_side() -> None:
    obj = _fpuzzles(6, "0" * 36, lockout=_lines("R1C1 R1C2 R1C3"))
    (rule,) = read_fpuzzles(obj).puzzle.rules.constraints
    assert rule.spec() == {"kind": "lockout-line", "cells": [0, 1, 2]}
    assert rule.value == 3  # type: ignore[attr-defined]
    other = Puzzle(
        Rules.for_size(6).with_constraints(
            constraint_from_spec({"kind": "lockout-line", "cells": [0, 1, 2], "value": 2}, 6)
        ),
        (0,) * 36,
    )
    with pytest.raises(RulesError, match="lockout lines differ by 3"):
        to_fpuzzles(other)


def test_a_regex_line_has_no_fpuzzles_key() -> None:
    rule = constraint_from_spec({"kind": "regex-line", "cells": [0, 1], "pattern": "12"}, 4)
    with pytest.raises(RulesError, match="no key for regex-line"):
        to_fpuzzles(Puzzle(Rules.for_size(4).with_constraints(rule), (0,) * 16))


@pytest.mark.parametrize("loop", [[0, 1, 5, 4, 0], [0, 5, 10, 6, 0], [2, 3, 7, 2]])
def test_a_whisper_loop_pairs_its_last_cell_with_its_first(loop: list[int]) -> None:
    """A line that ends where it starts (as ISS and SudokuPad close one) is a whisper
    over its open line plus the closing pair: its brute-force grids are those, and
    every engine counts them."""
    closed = rules_of(4, "2x2", [{"kind": "whisper", "cells": loop, "value": 2}])
    split = rules_of(
        4,
        "2x2",
        [
            {"kind": "whisper", "cells": loop[:-1], "value": 2},
            {"kind": "whisper", "cells": loop[-2:], "value": 2},
        ],
    )
    opened = rules_of(4, "2x2", [{"kind": "whisper", "cells": loop[:-1], "value": 2}])
    assert closed.spec()["constraints"][0]["cells"] == loop
    count = check_4x4(closed)
    assert count == check_4x4(split) < check_4x4(opened)


def test_only_a_whisper_closes_a_loop_and_only_round_three_cells() -> None:
    with pytest.raises(RulesError, match="lists a cell twice"):
        rules_of(4, "2x2", [{"kind": "whisper", "cells": [0, 1, 0], "value": 2}])
    with pytest.raises(RulesError, match="lists a cell twice"):
        rules_of(4, "2x2", [{"kind": "whisper", "cells": [0, 1, 5, 1, 0], "value": 2}])
    with pytest.raises(RulesError, match="lists a cell twice"):
        rules_of(4, "2x2", [{"kind": "renban", "cells": [0, 1, 5, 0]}])
