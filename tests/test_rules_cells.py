"""Cages, cell rules and composites of the setters' solvers, against brute force.

Multi-sum, digital-root, rellik and equality cages; quadruples, counting circles,
global entropy and global mod 3, Dutch flatmates; ``and`` / ``or``. Each kind: random
instances on 4x4 (and on 6x6 where the meaning depends on the side) drawn from a
grid, so that some hold and some cannot; every engine must count what the rules' own
checks count (tests/rulecheck.py). Then the f-puzzles keys (``cage`` with ``DR<n>``,
``quadruple``) on puzzles written as f-puzzles writes them, and known facts.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, product
from pathlib import Path
from typing import Any

import pytest
from conftest import GRIDS_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecheck import (
    check_4x4,
    check_6x6,
    grids_4x4,
    neighbours,
    random_grid_6x6,
    rules_of,
    walk,
)

from cpsudoku import Status
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import (
    KINDS,
    Cage,
    Constraint,
    DigitalRootCage,
    DigitSetCage,
    EqualityCage,
    Negative,
    Or,
    Quadruple,
    RellikCage,
    constraint_from_spec,
)
from cpsudoku.model.constraints.cages import digital_root, subset_sums
from cpsudoku.model.constraints.cells import entropy_bands, residues
from cpsudoku.model.errors import RulesError
from cpsudoku.model.exchange import to_exchange
from cpsudoku.model.fpuzzles import read_fpuzzles, to_fpuzzles
from cpsudoku.model.primitives import Allowed, Choice, Primitive
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

SEEDS = st.integers(0, 2**32 - 1)


def _grid(rng: random.Random) -> tuple[int, ...]:
    return GRIDS_4X4[rng.randrange(len(GRIDS_4X4))]


def _check_or_refused(rule: DigitSetCage, givens: int, seed: int) -> None:
    """Count a cage rule on 4x4; when the rule's own check passes no set of as many
    digits as it has cells, the rule must be refused instead."""
    every = combinations(range(1, 5), len(rule.cells))
    if all(rule.fits(c, 4) is not None for c in every):
        with pytest.raises(RulesError, match=r"different digits of 1\.\.4 keep it"):
            rules_of(4, "2x2", [rule.spec()])
        return
    check_4x4(rules_of(4, "2x2", [rule.spec()]), givens, seed)


# ------------------------------------------------------------------------ cages


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_multi_sum_cages_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    grid = _grid(rng)
    cells = rng.sample(range(16), rng.randint(1, 4))
    k = len(cells)
    low, high = k * (k + 1) // 2, sum(range(5 - k, 5))
    sums = {rng.randint(low, high) for _ in range(rng.randint(1, 3))}
    if rng.random() < 0.6:
        sums.add(min(max(sum(grid[i] for i in cells), low), high))
    spec = {"kind": "cage", "cells": cells, "sums": sorted(sums)}
    rules = rules_of(4, "2x2", [spec])
    (cage,) = rules.constraints
    assert isinstance(cage, Cage)
    assert cage.targets == tuple(sorted(sums))
    check_4x4(rules, rng.randint(0, 3), seed)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_digital_root_cages_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    grid = _grid(rng)
    cells = walk(rng, 4, rng.randint(1, 4))
    root = digital_root(sum(grid[i] for i in cells)) if rng.random() < 0.6 else rng.randint(1, 9)
    _check_or_refused(DigitalRootCage(tuple(cells), root), rng.randint(0, 3), seed)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_rellik_cages_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    cells = rng.sample(range(16), rng.randint(1, 4))
    rule = RellikCage(tuple(cells), rng.randint(1, 10))
    _check_or_refused(rule, rng.randint(0, 3), seed)


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_equality_cages_count_as_brute_force_on_4x4(seed: int) -> None:
    rng = random.Random(seed)
    cells = walk(rng, 4, rng.choice([1, 2, 2, 3, 4, 4]))
    _check_or_refused(EqualityCage(tuple(cells)), rng.randint(0, 3), seed)


@settings(max_examples=12, deadline=None)
@given(seed=SEEDS)
def test_equality_cages_count_as_brute_force_on_6x6(seed: int) -> None:
    """On 6x6 the low digits are 1-3 and the high 4-6."""
    rng = random.Random(seed)
    grid = random_grid_6x6(seed)
    cells = walk(rng, 6, rng.choice([2, 4, 4, 6]))
    cells = cells[: len(cells) // 2 * 2]  # a walk may stop short: keep an even count
    rules = rules_of(6, "2x3", [{"kind": "equality-cage", "cells": cells}])
    check_6x6(rules, grid, rng.randint(6, 12), seed)


@pytest.mark.parametrize("n", range(3, 10))
def test_each_cage_kind_compiles_to_exactly_the_sets_its_check_keeps(n: int) -> None:
    """Every set of k different digits of 1..n: in the compiled sets iff the rule's own
    check (written from its statement) passes it; for every parameter."""
    for k in range(1, n + 1):
        every = list(combinations(range(1, n + 1), k))
        rules = [EqualityCage(tuple(range(k)))]
        rules += [DigitalRootCage(tuple(range(k)), root) for root in range(1, 10)]
        rules += [RellikCage(tuple(range(k)), v) for v in range(1, n * (n + 1) // 2 + 2)]
        for rule in rules:
            kept = {c for c in every if rule.fits(c, n) is None}
            assert set(rule.sets(n)) == kept, (rule, n)


def test_cage_rules_say_what_is_wrong_and_refuse_what_cannot_hold() -> None:
    grid = [1, 2, 3, 4] + [0] * 12
    assert RellikCage((0, 1, 2), 5).problem(grid, 4) == (
        "the rellik-cage at r1c1 holds digits adding up to 5"
    )
    assert RellikCage((0, 1), 3).problem(grid, 4) is not None  # 1 + 2
    assert RellikCage((0, 1), 4).problem(grid, 4) is None
    assert subset_sums([1, 2, 4]) == {1, 2, 3, 4, 5, 6, 7}
    assert DigitalRootCage((2, 3), 7).problem(grid, 4) is None  # 3 + 4 = 7
    assert "digital root 7, not 8" in str(DigitalRootCage((2, 3), 8).problem(grid, 4))
    pair = EqualityCage((0, 1))
    assert "middle digit 5" in str(pair.problem([5, 2] + [0] * 79, 9))
    assert "0 even and 2 odd" in str(pair.problem([5, 1] + [0] * 79, 9))
    assert "2 low and 0 high" in str(pair.problem([1, 4] + [0] * 79, 9))
    assert pair.problem([1, 6] + [0] * 79, 9) is None  # odd and even, low and high
    assert len(EqualityCage((0, 1)).sets(9)) == 8  # {1,6} {1,8} {2,7} {2,9} {3,6}...
    cases = [
        ({"kind": "digital-root-cage", "cells": [0, 1], "root": 10}, "not one of 1..9"),
        ({"kind": "digital-root-cage", "cells": [0], "root": 9}, "no 1 different digits"),
        ({"kind": "rellik-cage", "cells": [0, 1, 2, 3], "value": 3}, "no 4 different"),
        ({"kind": "rellik-cage", "cells": [0, 1], "value": 0}, "not one of 1.."),
        ({"kind": "equality-cage", "cells": [0, 1, 2]}, "no 3 different digits"),
        ({"kind": "equality-cage", "cells": [0, 0]}, "lists a cell twice"),
        ({"kind": "cage", "cells": [0, 1], "sum": 3, "sums": [3, 4]}, "not both"),
        ({"kind": "cage", "cells": [0, 1], "sums": [3, 9]}, "cannot add up to 9"),
        ({"kind": "cage", "cells": [0, 1], "sums": []}, "none given"),
        ({"kind": "rellik-cage", "cells": [0, 1], "value": 3, "sum": 3}, "takes no 'sum'"),
    ]
    for spec, message in cases:
        with pytest.raises(RulesError, match=message):
            rules_of(4, "2x2", [spec])


def test_a_multi_sum_cage_reads_as_a_killer_cage_wherever_a_cage_is_read() -> None:
    one = rules_of(4, "2x2", [{"kind": "cage", "cells": [0, 1], "sums": [3, 3]}])
    assert one.spec()["constraints"] == [{"kind": "cage", "cells": [0, 1], "sum": 3}]
    rules = rules_of(4, "2x2", [{"kind": "cage", "cells": ["r1c1", "r1c2"], "sums": [7, 3]}])
    (cage,) = rules.constraints
    assert isinstance(cage, Cage)
    assert cage.total is None
    assert cage.sums == (3, 7)
    assert cage.restricts
    assert sorted(cage.combinations(4)) == [(1, 2), (3, 4)]
    assert cage.problem([1, 3] + [0] * 14, 4) == "the cage at r1c1 adds up to 4, not one of 3, 7"
    assert cage.possible([1] + [0] * 15, 4)
    assert not cage.possible([1, 3] + [0] * 14, 4)
    again = Rules.from_spec(json.loads(json.dumps(rules.spec())))
    assert again == rules
    puzzle = Puzzle(rules, (0,) * 16)
    with pytest.raises(RulesError, match="multi-sum cage"):
        to_fpuzzles(puzzle)
    with pytest.raises(RulesError, match="multi-sum cage"):
        to_exchange(puzzle)


# ------------------------------------------------------------------------ cells


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_quadruples_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    grid = _grid(rng)
    r, c = rng.randrange(3), rng.randrange(3)
    cells = [r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5]
    if rng.random() < 0.3:  # now and then fewer cells, as a clue at the grid's edge
        cells = rng.sample(cells, rng.randint(1, 3))
    k = rng.randint(1, len(cells))
    if rng.random() < 0.6:
        values = rng.sample([grid[i] for i in cells], k)  # repeats where the grid repeats
    else:
        values = [rng.randint(1, 4) for _ in range(k)]
    rules = rules_of(4, "2x2", [{"kind": "quadruple", "cells": cells, "values": values}])
    check_4x4(rules, rng.randint(0, 3), seed)


@pytest.mark.parametrize(
    "values", [[1, 2, 3, 4], [1, 1, 2, 3], [2, 2, 4, 4], [1, 2, 3], [4, 4], [3]]
)
def test_a_quadruple_compiles_to_primitives_that_keep_exactly_what_it_keeps(
    values: list[int],
) -> None:
    """Over every filling of its four cells (repeats too: the cells need not see each
    other), the primitives hold exactly when the rule finds no problem. As many digits
    as cells also narrow each cell to those digits before any search."""
    cells = [0, 1, 4, 5]
    rules = rules_of(4, "2x2", [{"kind": "quadruple", "cells": cells, "values": values}])
    ((rule, prims),) = rules.compiled
    grid = [1] * 16
    for filling in product(range(1, 5), repeat=4):
        for i, v in zip(cells, filling, strict=True):
            grid[i] = v
        assert all(p.holds(grid) for p in prims) == (rule.problem(grid, 4) is None), filling
    narrowed = [p for p in prims if isinstance(p, Allowed)]
    assert bool(narrowed) == (len(values) == len(cells))


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS)
def test_counting_circles_count_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    cells = rng.sample(range(16), rng.randint(1, 9))
    rules = rules_of(4, "2x2", [{"kind": "counting-circles", "cells": cells}])
    check_4x4(rules, rng.randint(0, 2), seed)


GLOBALS = ["global-entropy", "global-modular", "dutch-flatmates"]


@settings(max_examples=9, deadline=None)
@given(seed=SEEDS, kind=st.sampled_from(GLOBALS))
def test_global_rules_count_as_brute_force_on_4x4(seed: int, kind: str) -> None:
    rules = rules_of(4, "2x2", [{"kind": kind}])
    check_4x4(rules, random.Random(seed).randint(0, 4), seed)


def _keeping(rules: Rules, rng: random.Random) -> tuple[int, ...]:
    """A 6x6 grid keeping ``rules`` (a solver completes a few digits of a random grid)."""
    with create_backend("sat") as engine:
        while True:
            base = random_grid_6x6(rng.randrange(2**32))
            cells = [0] * 36
            for i in rng.sample(range(36), 2):
                cells[i] = base[i]
            found = engine.solve(Puzzle(rules, tuple(cells)))
            if found.solution is not None:
                return found.solution.cells


@settings(max_examples=24, deadline=None)
@given(seed=SEEDS, kind=st.sampled_from(GLOBALS), box=st.sampled_from(["2x3", "3x2"]))
def test_global_rules_count_as_brute_force_on_6x6(seed: int, kind: str, box: str) -> None:
    """Half the time from a grid that keeps the rule (some completions do), half from any
    grid (most cannot be completed)."""
    rng = random.Random(seed)
    rules = rules_of(6, box, [{"kind": kind}])
    if rng.random() < 0.5:
        grid = _keeping(rules, rng)
    else:
        grid = random_grid_6x6(seed)  # 2x3 boxes; transposed, 3x2
        if box == "3x2":
            grid = tuple(grid[(i % 6) * 6 + i // 6] for i in range(36))
    check_6x6(rules, grid, rng.randint(8, 14), seed)


def test_the_bands_and_the_middle_digit_on_each_side() -> None:
    def digits(mask: int) -> list[int]:
        return [d for d in range(1, 17) if mask >> (d - 1) & 1]

    assert [digits(m) for m in entropy_bands(9)] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert [digits(m) for m in entropy_bands(4)] == [[1], [2, 3], [4]]
    assert [digits(m) for m in entropy_bands(6)] == [[1, 2], [3, 4], [5, 6]]
    assert [digits(m) for m in entropy_bands(8)] == [[1, 2, 3], [4, 5], [6, 7, 8]]
    assert [digits(m) for m in residues(9)] == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]
    grid9 = [int(ch) for ch in "123456789" * 9]
    rules = rules_of(9, "3x3", [{"kind": "dutch-flatmates"}])
    (rule,) = rules.constraints
    assert rule.problem(grid9, 9) == "the 5 at r1c5 has no 1 above it and no 9 below it"
    column = [0] * 81
    column[0::9] = [1, 5, 9, 2, 3, 4, 6, 7, 8]  # the 5: a 1 above and a 9 below
    assert rule.possible(column, 9)
    for kind in ("global-entropy", "global-modular", "dutch-flatmates"):
        with pytest.raises(RulesError, match="needs"):
            rules_of(2, "1x2", [{"kind": kind}])


def test_on_4x4_no_grid_keeps_global_entropy_and_eight_keep_dutch_flatmates() -> None:
    """Entropy on 4x4: every 2x2 area needs the 1 and the 4 (bands 1 / 2-3 / 4)."""
    assert check_4x4(rules_of(4, "2x2", [{"kind": "global-entropy"}])) == 0
    assert check_4x4(rules_of(4, "2x2", [{"kind": "global-modular"}])) == 0
    assert check_4x4(rules_of(4, "2x2", [{"kind": "dutch-flatmates"}])) == 8


def test_counting_circles_and_quadruples_say_what_is_wrong() -> None:
    grid = [1, 2, 2, 3] + [0] * 12
    circles = constraint_from_spec({"kind": "counting-circles", "cells": [0, 1, 2]}, 4)
    assert circles.problem(grid, 4) is None  # one 1, two 2s
    assert circles.problem([1, 2, 3, 0] + [0] * 12, 4) == (
        "2 in the circle at r1c2 stands in 1 circles"
    )
    quad = constraint_from_spec({"kind": "quadruple", "cells": [1, 2, 5], "values": [2, 2]}, 4)
    assert isinstance(quad, Quadruple)
    assert quad.problem(grid, 4) is None
    assert (
        quad.problem([1, 2, 3, 3] + [0] * 12, 4) == "the quadruple at r1c2 holds 2 1 times, not 2"
    )
    for spec, message in [
        ({"kind": "quadruple", "cells": [0, 1], "values": [1, 2, 3]}, "3 digits for 2"),
        ({"kind": "quadruple", "cells": [0, 1, 2, 3, 4], "values": [1]}, "at most 4"),
        ({"kind": "quadruple", "cells": [0], "values": [5]}, "not one of 1..4"),
        ({"kind": "counting-circles", "cells": []}, "no cells"),
    ]:
        with pytest.raises(RulesError, match=message):
            rules_of(4, "2x2", [spec])


# ------------------------------------------------------------------------ composites


def _member(rng: random.Random, grid: tuple[int, ...], depth: int) -> dict[str, Any]:
    """A random rule spec, kept by ``grid`` more often than not; composites to ``depth``."""
    pick = rng.randrange(6 if depth else 4)
    if pick == 0:
        cells = walk(rng, 4, rng.randint(1, 3))
        total = sum(grid[i] for i in cells) if rng.random() < 0.7 else None
        spec: dict[str, Any] = {"kind": "cage", "cells": cells}
        if total is not None and len({grid[i] for i in cells}) == len(cells):
            spec["sum"] = total
        return spec
    if pick == 1:
        cell = rng.randrange(16)
        kind = "odd" if (grid[cell] % 2 == 1) == (rng.random() < 0.7) else "even"
        return {"kind": kind, "cells": [cell]}
    if pick == 2:
        a, b = neighbours(rng, 4)
        return {"kind": rng.choice(["v", "kropki-white", "kropki-black"]), "cells": [a, b]}
    if pick == 3:
        cells = rng.sample(range(16), rng.randint(1, 3))
        return {"kind": "quadruple", "cells": cells, "values": [grid[cells[0]]]}
    members = [_member(rng, grid, depth - 1) for _ in range(rng.randint(1, 3))]
    return {"kind": "and" if pick == 4 else "or", "rules": members}


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS)
def test_and_and_or_count_as_brute_force(seed: int) -> None:
    """Nested composites; enough givens to keep counts small (CP-SAT counts a choice's
    solutions one solve at a time)."""
    rng = random.Random(seed)
    grid = _grid(rng)
    members = [_member(rng, grid, 2) for _ in range(rng.randint(1, 3))]
    rules = rules_of(4, "2x2", [{"kind": rng.choice(["and", "or"]), "rules": members}])
    check_4x4(rules, rng.randint(5, 9), seed)


class _Always(Constraint):
    """A rule with no primitives (for these tests only: never registered)."""

    kind = "always"
    cells = ()

    def compile(self, n: int) -> tuple[Primitive, ...]:
        return ()

    def problem(self, values: Sequence[int], n: int) -> str | None:
        return None


def test_an_or_is_a_choice_and_an_and_is_its_members_side_by_side() -> None:
    cage3 = {"kind": "cage", "cells": [0, 1], "sum": 3}
    cage7 = {"kind": "cage", "cells": [0, 1], "sum": 7}
    either = rules_of(4, "2x2", [{"kind": "or", "rules": [cage3, cage7]}])
    assert {g[:2] for g in grids_4x4(either)} == {(1, 2), (2, 1), (3, 4), (4, 3)}
    check_4x4(either, 6, 0)
    (rule,) = either.constraints
    assert isinstance(rule, Or)
    assert rule.cells == (0, 1)
    (choice,) = rule.compile(4)
    assert isinstance(choice, Choice)
    assert len(choice.branches) == 2
    assert Or((rule.rules[0], _Always())).compile(4) == ()  # a member that always holds
    assert Or((rule.rules[0],)).compile(4) == rule.rules[0].compile(4)
    assert "none holds" in str(rule.problem([1, 3] + [0] * 14, 4))
    assert rule.possible([1, 0] + [0] * 14, 4)
    assert not rule.possible([1, 1] + [0] * 14, 4)
    both = rules_of(4, "2x2", [{"kind": "and", "rules": [cage3, {"kind": "odd", "cells": [0]}]}])
    flat = rules_of(4, "2x2", [cage3, {"kind": "odd", "cells": [0]}])
    assert both.primitives == flat.primitives
    assert "the and rule of 2 rules" in str(both.constraints[0].problem([2, 1] + [0] * 14, 4))
    assert Rules.from_spec(json.loads(json.dumps(either.spec()))) == either
    with pytest.raises(RulesError, match="no key for or rules"):
        to_fpuzzles(Puzzle(either, (0,) * 16))
    for spec, message in [
        ({"kind": "or", "rules": []}, "at least one rule"),
        ({"kind": "and", "rules": [cage3, {"kind": "cage", "cells": [0], "sum": 9}]}, "rule 2 of"),
        ({"kind": "or", "rules": [{"kind": "nothing"}]}, "unknown constraint kind"),
        ({"kind": "or", "rules": "cage"}, "must be a list"),
        ({"kind": "or", "rules": [cage3], "cells": [0]}, "takes no 'cells'"),
    ]:
        with pytest.raises(RulesError, match=message):
            rules_of(4, "2x2", [spec])


def test_a_member_that_reads_the_puzzles_marks_reads_them_inside_a_composite() -> None:
    dot = {"kind": "kropki-white", "cells": [0, 1]}
    negative = {"kind": "negative", "of": "kropki-white"}
    odd = {"kind": "odd", "cells": [5]}
    rules = rules_of(4, "2x2", [dot, {"kind": "or", "rules": [negative, odd]}])
    composite = rules.constraints[1]
    assert isinstance(composite, Or)
    member = composite.rules[0]
    assert isinstance(member, Negative)
    assert (0, 1) in member.marked
    check_4x4(rules, 6, 1)


def test_a_composite_puzzle_solves_from_the_command_line(tmp_path: Path) -> None:
    grid = "1234341221434321"
    givens = ".2...4........21"
    rules = {
        "size": 4,
        "box": "2x2",
        "constraints": [
            {
                "kind": "or",
                "rules": [
                    {"kind": "cage", "cells": ["r1c2", "r1c3"], "sum": 5},
                    {"kind": "cage", "cells": ["r1c2", "r1c3"], "sum": 7},
                ],
            },
            {"kind": "quadruple", "cells": ["r2c2", "r2c3", "r3c2", "r3c3"], "values": [1, 4]},
        ],
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"rules": rules, "puzzle": givens, "solution": grid}))
    assert main(["solve", str(path), "--backend", "sat"]) == 0
    puzzle = Puzzle(Rules.from_spec(rules), tuple(int(ch) if ch != "." else 0 for ch in givens))
    for spec in ("sat", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            found = engine.solve(puzzle)
        assert found.status is Status.UNIQUE, spec
        assert "".join(map(str, found.solution.cells)) == grid  # type: ignore[union-attr]


# ------------------------------------------------------------------------ f-puzzles

#: A 6x6 puzzle of digital-root cages, one given (as f-puzzles writes cosmetic cages),
#: and its solution; plus a plain cosmetic cage, a drawing copy of a rule, and a cage
#: whose value holds "DR" and no root.
DR_SOLUTION = "645312213546561423324165436251152634"
DR_CAGES = [
    (["R1C1", "R1C2"], 1), (["R1C3", "R2C3"], 8), (["R1C4", "R1C5", "R1C6"], 6),
    (["R2C1", "R3C1"], 7), (["R2C2", "R3C2", "R4C2"], 9), (["R2C4", "R2C5"], 9),
    (["R2C6", "R3C6"], 9), (["R3C4", "R3C5"], 6), (["R4C1", "R5C1"], 7),
    (["R4C3", "R4C4"], 5), (["R4C5", "R4C6", "R5C6"], 3), (["R5C2", "R5C3"], 9),
    (["R5C4", "R5C5"], 7), (["R6C1", "R6C2"], 6), (["R6C3", "R6C4"], 8), (["R6C5", "R6C6"], 7),
]  # fmt: skip
DR_PUZZLE: dict[str, Any] = {
    "size": 6,
    "title": "Roots",
    "grid": [
        [{}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {"value": 4, "given": True}, {}, {}],
        [{}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {}, {}, {}],
    ],
    "cage": [
        *(
            {"cells": cells, "value": f"DR{root}", "outlineC": "#000000", "fontC": "#000000"}
            for cells, root in DR_CAGES
        ),
        {"cells": ["R3C3"], "outlineC": "#C77C7C", "fontC": "#000000"},
        {"cells": ["R1C1", "R2C1"], "value": "DR5", "fromConstraint": "Killer Cage"},
        {"cells": ["R6C6"], "value": "Dragon"},
    ],
}

#: A 6x6 puzzle of quadruples (digits listed twice where a clue straddles two boxes).
QUAD_SOLUTION = DR_SOLUTION
QUAD_PUZZLE: dict[str, Any] = {
    "size": 6,
    "grid": [
        [{}, {}, {}, {}, {}, {"value": 2, "given": True}],
        [{}, {}, {}, {}, {}, {}],
        [{"value": 5, "given": True}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {}, {}, {}],
        [{}, {}, {}, {}, {}, {"value": 1, "given": True}],
        [{}, {}, {}, {}, {}, {}],
    ],
    "quadruple": [
        {"cells": ["R1C1", "R1C2", "R2C1", "R2C2"], "values": [1, 2]},
        {"cells": ["R1C3", "R1C4", "R2C3", "R2C4"], "values": [3, 3, 5, 5]},
        {"cells": ["R1C5", "R1C6", "R2C5", "R2C6"], "values": [1, 2, 4]},
        {"cells": ["R2C2", "R2C3", "R3C2", "R3C3"], "values": [1, 1]},
        {"cells": ["R2C4", "R2C5", "R3C4", "R3C5"], "values": [2, 4, 4, 5]},
        {"cells": ["R3C1", "R3C2", "R4C1", "R4C2"], "values": [2, 3, 5]},
        {"cells": ["R3C3", "R3C4", "R4C3", "R4C4"], "values": [1, 1]},
        {"cells": ["R3C5", "R3C6", "R4C5", "R4C6"], "values": [2, 3, 5, 6]},
        {"cells": ["R4C2", "R4C3", "R5C2", "R5C3"], "values": [2, 3, 4]},
        {"cells": ["R4C4", "R4C5", "R5C4", "R5C5"], "values": [1, 2]},
        {"cells": ["R5C1", "R5C2", "R6C1", "R6C2"], "values": [1, 3, 4, 5]},
        {"cells": ["R5C3", "R5C4", "R6C3", "R6C4"], "values": [2, 2, 6]},
        {"cells": ["R5C5", "R5C6", "R6C5", "R6C6"], "values": [1, 3]},
        {"cells": ["R6C6"], "values": []},
    ],
}


@pytest.mark.parametrize(
    ("obj", "solution", "kind", "count"),
    [
        (DR_PUZZLE, DR_SOLUTION, "digital-root-cage", 16),
        (QUAD_PUZZLE, QUAD_SOLUTION, "quadruple", 13),
    ],
)
def test_an_fpuzzles_puzzle_reads_solves_and_comes_back_the_same(
    obj: dict[str, Any], solution: str, kind: str, count: int
) -> None:
    read = read_fpuzzles(obj)
    kinds = Counter(c.kind for c in read.puzzle.rules.constraints)
    assert kinds == {kind: count}
    for spec in ("sat", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            found = engine.solve(read.puzzle)
        assert found.status is Status.UNIQUE, spec
        assert "".join(map(str, found.solution.cells)) == solution  # type: ignore[union-attr]
    back = to_fpuzzles(read.puzzle)
    again = read_fpuzzles(json.loads(json.dumps(back)))
    assert again.puzzle.rules.spec() == read.puzzle.rules.spec()
    assert again.puzzle.cells == read.puzzle.cells
    assert not again.notes


def test_cosmetic_cages_stay_drawings_and_say_so() -> None:
    notes = read_fpuzzles(DR_PUZZLE).notes
    assert any("'Dragon' names no digital root" in note for note in notes)
    assert any("read past drawings" in note and "cage" in note for note in notes)
    lower = dict(DR_PUZZLE, cage=[{"cells": ["R1C1", "R1C2"], "value": "dr 1"}])
    (rule,) = read_fpuzzles(lower).puzzle.rules.constraints
    assert rule.spec() == {"kind": "digital-root-cage", "cells": [0, 1], "root": 1}
    only_drawn = dict(DR_PUZZLE, cage=[{"cells": ["R1C1"], "value": "7"}])
    read = read_fpuzzles(only_drawn)
    assert not read.puzzle.rules.constraints
    assert any("read past drawings" in note for note in read.notes)
    for value, message in [("DR0", "not one of 1..9"), ("DR12", "not one of 1..9")]:
        bad = dict(DR_PUZZLE, cage=[{"cells": ["R1C1", "R1C2"], "value": value}])
        with pytest.raises(RulesError, match=message):
            read_fpuzzles(bad)
    assert any("quadruple 13 lists no digit" in note for note in read_fpuzzles(QUAD_PUZZLE).notes)


#: "Quadruple - repeated values" (logic-masters.de 00022p, from ISS's collection):
#: each clue's digits, top-left cell of its 2x2 area. Read with repeats counted it is
#: unique with the published solution; with each digit counted once it is not.
REPEATED = {
    "R1C1": [1, 2, 3, 4], "R1C8": [6, 7, 8, 9], "R2C2": [4, 5, 6, 7], "R2C7": [3, 4, 5, 6],
    "R3C3": [1, 3, 5, 6], "R3C6": [4, 7, 7, 8], "R6C1": [4, 5, 5, 9], "R6C8": [2, 4, 7, 8],
    "R7C3": [3, 4, 6, 8], "R7C6": [2, 2, 5, 6],
}  # fmt: skip
REPEATED_SOLUTION = (
    "239456187147283569865197432926348715378521946451769328593812674784635291612974853"
)


def _quads(values: dict[str, list[int]]) -> dict[str, Any]:
    items = []
    for corner, digits in values.items():
        r, c = int(corner[1]), int(corner[3])
        cells = [f"R{r + dr}C{c + dc}" for dr in (0, 1) for dc in (0, 1)]
        items.append({"cells": cells, "values": digits})
    return {"size": 9, "grid": [[{} for _ in range(9)] for _ in range(9)], "quadruple": items}


def test_a_published_quadruple_puzzle_needs_its_repeated_digits() -> None:
    with create_backend("sat") as engine:
        found = engine.solve(read_fpuzzles(_quads(REPEATED)).puzzle)
        assert found.status is Status.UNIQUE
        assert "".join(map(str, found.solution.cells)) == REPEATED_SOLUTION  # type: ignore[union-attr]
        once = {corner: sorted(set(digits)) for corner, digits in REPEATED.items()}
        assert engine.count(read_fpuzzles(_quads(once)).puzzle, limit=2).count == 2


def test_the_json_schema_takes_these_kinds_and_nested_composites() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    root = Path(__file__).parent.parent
    schema = json.loads((root / "docs" / "puzzle.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    kinds = [
        "cage", "digital-root-cage", "rellik-cage", "equality-cage", "quadruple",
        "counting-circles", "global-entropy", "global-modular", "dutch-flatmates", "and", "or",
    ]  # fmt: skip
    nested = {
        "kind": "or",
        "rules": [
            {"kind": "and", "rules": [{"kind": "cage", "cells": [0, 1], "sums": [3, 4]}]},
            {"kind": "global-entropy"},
        ],
    }
    for spec in [KINDS[kind].example for kind in kinds] + [nested]:
        rules = Rules.classic(3, 3).with_constraints(constraint_from_spec(spec, 9))
        validator.validate({"rules": rules.spec(), "puzzle": "." * 81})
    both = {"kind": "cage", "cells": [0, 1], "sum": 3, "sums": [3, 4]}
    bad = {"rules": {"size": 9, "box": "3x3", "constraints": [both]}, "puzzle": "." * 81}
    assert not validator.is_valid(bad)
