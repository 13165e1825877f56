"""Clues read along a row or column from their side (X-sums, skyscrapers, hidden
skyscrapers, numbered rooms) and lunchboxes: every engine against brute force on 4x4
and on 6x6 completions, each rule's statement written out here apart from the model,
known counts, the side a clue reads from, and the f-puzzles keys both ways."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any, ClassVar

import pytest
from conftest import GRIDS_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecheck import check_4x4, check_6x6, random_grid_6x6, rules_of, walk

from cpsudoku import Status
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import (
    Constraint,
    Lunchbox,
    Sandwich,
    Skyscraper,
    XSum,
    constraint_from_spec,
    sandwich_sets,
    xsum_totals,
)
from cpsudoku.model.errors import RulesError
from cpsudoku.model.fpuzzles import from_fpuzzles, to_fpuzzles
from cpsudoku.model.primitives import Primitive, automaton
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import solution_problems

# ------------------------------------------------------- the rules, as setters state them


def _visible(values: Sequence[int]) -> int:
    """How many values are higher than every value before them."""
    return sum(1 for k, v in enumerate(values) if all(v > u for u in values[:k]))


def _first_hidden(values: Sequence[int]) -> int | None:
    """The first value lower than some value before it (None: none is)."""
    return next((v for k, v in enumerate(values) if any(u > v for u in values[:k])), None)


def _between_extremes(values: Sequence[int]) -> int:
    """The sum of the values standing between the smallest and the largest."""
    a, b = sorted((values.index(min(values)), values.index(max(values))))
    return sum(values[a + 1 : b])


#: kind -> (the value a line shows, the spec key holding it).
STATEMENTS: dict[str, tuple[Callable[[Sequence[int]], int | None], str]] = {
    "x-sum": (lambda v: sum(v[: v[0]]), "sum"),
    "skyscraper": (_visible, "count"),
    "hidden-skyscraper": (_first_hidden, "digit"),
    "numbered-room": (lambda v: v[v[0] - 1], "digit"),
    "lunchbox": (_between_extremes, "sum"),
}
SIDE_KINDS = ("x-sum", "skyscraper", "hidden-skyscraper", "numbered-room")


def _line(n: int, line: str, index: int, reverse: bool) -> list[int]:
    """The cells of a row or column from the clue's side, worked out here."""
    cells = (
        [index * n + k for k in range(n)] if line == "row" else [k * n + index for k in range(n)]
    )
    return cells[::-1] if reverse else cells


def _holds(spec: dict[str, Any], grid: Sequence[int], n: int) -> bool:
    """Whether ``grid`` keeps the rule ``spec``, from the rule's statement."""
    show, key = STATEMENTS[spec["kind"]]
    if spec["kind"] == "lunchbox":
        values = [grid[i] for i in spec["cells"]]
        return len(set(values)) == len(values) and show(values) == spec[key]
    line = "row" if "row" in spec else "column"
    cells = _line(n, line, spec[line] - 1, spec.get("reverse", False))
    return show([grid[i] for i in cells]) == spec[key]


def _possible_values(kind: str, n: int, size: int = 0) -> list[int]:
    """Values a clue of ``kind`` may take on a side of ``n`` (lunchbox: of ``size`` cells)."""
    if kind == "x-sum":
        return sorted(xsum_totals(n))
    if kind == "skyscraper":
        return list(range(1, n + 1))
    if kind == "hidden-skyscraper":
        return list(range(1, n))
    if kind == "numbered-room":
        return list(range(1, n + 1))
    return sorted({t for k in range(size - 1) for t in range(n * n) if sandwich_sets(n, k, t)})


def _clue(kind: str, rng: random.Random, grid: Sequence[int], n: int) -> dict[str, Any]:
    """A random clue of ``kind``, its value read off ``grid`` more often than not."""
    key = STATEMENTS[kind][1]
    if kind == "lunchbox":
        size = rng.randint(2, n)
        cells = walk(rng, n, size) if rng.random() < 0.5 else rng.sample(range(n * n), size)
        spec: dict[str, Any] = {"kind": kind, "cells": cells}
        values = [grid[i] for i in cells]
        true = _between_extremes(values) if len(set(values)) == len(values) else None
        choices = _possible_values(kind, n, len(cells))
    else:
        line = rng.choice(["row", "column"])
        spec = {"kind": kind, line: rng.randint(1, n)}
        if rng.random() < 0.5:
            spec["reverse"] = True
        true = STATEMENTS[kind][0](
            [grid[i] for i in _line(n, line, spec[line] - 1, spec.get("reverse", False))]
        )
        choices = _possible_values(kind, n)
    spec[key] = true if true is not None and rng.random() < 0.65 else rng.choice(choices)
    return spec


# --------------------------------------------------------------- brute force, 4x4 and 6x6


@st.composite
def clue_sets(draw: st.DrawFn, kind: str, n: int) -> tuple[list[dict[str, Any]], int]:
    """One to three clues of ``kind`` from a random grid, and a seed."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    grid = rng.choice(GRIDS_4X4) if n == 4 else random_grid_6x6(seed)
    return [_clue(kind, rng, grid, n) for _ in range(rng.randint(1, 3))], seed


@pytest.mark.parametrize("kind", [*SIDE_KINDS, "lunchbox"])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), givens=st.integers(0, 3))
def test_every_engine_counts_the_4x4_grids_brute_force_keeps(
    kind: str, data: st.DataObject, givens: int
) -> None:
    specs, seed = data.draw(clue_sets(kind, 4))
    rules = rules_of(4, "2x2", specs)
    count = check_4x4(rules, givens, seed)  # each rule's own check, against every engine
    if not givens:  # and the statements above, apart from the model
        assert count == sum(1 for g in GRIDS_4X4 if all(_holds(s, g, 4) for s in specs))


@pytest.mark.parametrize("kind", [*SIDE_KINDS, "lunchbox"])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_every_engine_counts_the_6x6_completions(kind: str, data: st.DataObject) -> None:
    specs, seed = data.draw(clue_sets(kind, 6))
    rules = rules_of(6, "2x3", specs)
    check_6x6(rules, random_grid_6x6(seed), 14, seed)


def test_the_verifier_names_the_clue_a_grid_breaks() -> None:
    grid = GRIDS_4X4[0]
    row = [grid[k] for k in range(4)]
    specs = [
        {"kind": "x-sum", "row": 1, "sum": 10 if sum(row[: row[0]]) != 10 else 1},
        {"kind": "skyscraper", "row": 1, "reverse": True, "count": _visible(row[::-1]) % 4 + 1},
    ]
    rules = rules_of(4, "2x2", specs)
    problems = solution_problems(Puzzle(rules, (0,) * 16), Puzzle(rules, grid))
    assert any("x-sum of row 1" in p for p in problems)
    assert any("skyscraper of row 1 from the right" in p for p in problems)


# ------------------------------------------------------------------------- known facts


def _accepted(spec: dict[str, Any], n: int) -> int:
    """How many orders of 1..n in row 1 the rule's primitives keep (with the row's units)."""
    rule = constraint_from_spec(spec, n)
    prims = rule.compile(n)
    count = 0
    for perm in permutations(range(1, n + 1)):
        values = list(perm) + [0] * (n * n - n)
        if all(p.holds(values) for p in prims if set(p.cells) <= set(range(n))):
            count += 1
    return count


def test_skyscraper_counts_are_the_stirling_numbers_of_the_first_kind() -> None:
    # The orders of 1..n with k records from the left: c(6, k) = 120, 274, 225, 85, 15, 1.
    counts = [_accepted({"kind": "skyscraper", "row": 1, "count": k}, 6) for k in range(1, 7)]
    assert counts == [120, 274, 225, 85, 15, 1]


def test_a_clue_of_one_or_n_places_its_digits() -> None:
    assert _accepted({"kind": "x-sum", "row": 1, "sum": 1}, 5) == 24  # a 1 first
    assert _accepted({"kind": "x-sum", "row": 1, "sum": 15}, 5) == 24  # a 5 first: all five
    # The X-th cell holds the clue: a 1 either first (X = 1) or at the X-th of X = 2..5,
    # 2 * 4! orders; a 3 at the X-th for X = 2, 4, 5 (X = 3 would need two 3s), 3 * 3!.
    assert _accepted({"kind": "numbered-room", "row": 1, "digit": 1}, 5) == 48
    assert _accepted({"kind": "numbered-room", "row": 1, "digit": 3}, 5) == 18
    assert _accepted({"kind": "skyscraper", "row": 1, "count": 5}, 5) == 1  # 1 2 3 4 5


def test_a_lunchbox_on_a_whole_row_is_its_sandwich() -> None:
    for total in (0, 5, 9, 14):
        lunchbox = {"kind": "lunchbox", "cells": list(range(6)), "sum": total}
        sandwich = {"kind": "sandwich", "row": 1, "sum": total}
        assert _accepted(lunchbox, 6) == _accepted(sandwich, 6)
        rules = rules_of(6, "2x3", [lunchbox])
        assert check_6x6(rules, random_grid_6x6(total), 16, total) == check_6x6(
            rules_of(6, "2x3", [sandwich]), random_grid_6x6(total), 16, total
        )


def test_a_hidden_skyscraper_is_the_first_digit_below_a_higher_one() -> None:
    # 3 1 2 4 5: the 1 hides first; 1 2 4 3 5: the 3; 1 2 3 4 5 hides none.
    rule = constraint_from_spec({"kind": "hidden-skyscraper", "row": 1, "digit": 3}, 5)
    grid = [0] * 25
    for order, keeps in (
        ([3, 1, 2, 4, 5], False),
        ([1, 2, 4, 3, 5], True),
        ([1, 2, 3, 4, 5], False),
    ):
        grid[:5] = order
        assert (rule.problem(grid, 5) is None) == keeps, order
        assert all(p.holds(grid) for p in rule.compile(5)) == keeps, order


# ------------------------------------------------------------------------- the clue's side


def test_a_reversed_clue_reads_its_line_from_the_far_end() -> None:
    left = XSum.from_spec({"kind": "x-sum", "row": 2, "sum": 10}, 9)
    right = XSum.from_spec({"kind": "x-sum", "row": 2, "reverse": True, "sum": 10}, 9)
    assert left.cells == tuple(range(9, 18))
    assert right.cells == tuple(range(17, 8, -1))
    top = Skyscraper.from_spec({"kind": "skyscraper", "column": 5, "count": 3}, 9)
    bottom = Skyscraper.from_spec(
        {"kind": "skyscraper", "column": 5, "reverse": True, "count": 3}, 9
    )
    assert top.cells == tuple(r * 9 + 4 for r in range(9))
    assert bottom.cells == top.cells[::-1]
    assert right.spec() == {"kind": "x-sum", "row": 2, "reverse": True, "sum": 10}
    assert left.spec() == {"kind": "x-sum", "row": 2, "sum": 10}


def _fpuzzles(n: int, givens: dict[str, int], **keys: object) -> dict[str, Any]:
    grid: list[list[dict[str, object]]] = [[{} for _ in range(n)] for _ in range(n)]
    for name, value in givens.items():
        r, c = (int(x) for x in name[1:].split("C"))
        grid[r - 1][c - 1] = {"value": value, "given": True}
    return {"size": n, "grid": grid, **keys}


#: A 6x6 grid, and clues read off it as f-puzzles stores them (R0 above a column, R7
#: below it, C0 left of a row, C7 right of it).
GRID_6 = "513462426531134256265143651324342615"
SKYSCRAPER_6 = _fpuzzles(
    6,
    {"R3C4": 2},
    skyscraper=[
        {"cell": "R2C7", "value": "4"},
        {"cell": "R3C0", "value": "5"},
        {"cell": "R0C1", "value": "2"},
        {"cell": "R7C1", "value": "2"},
        {"cell": "R0C2", "value": "4"},
        {"cell": "R7C2", "value": "3"},
        {"cell": "R7C5", "value": "5"},
    ],
)
XSUM_6 = _fpuzzles(
    6,
    {},
    xsum=[
        {"cell": "R1C7", "value": "8"},
        {"cell": "R4C7", "value": "8"},
        {"cell": "R7C1", "value": "11"},
        {"cell": "R0C2", "value": "1"},
        {"cell": "R7C2", "value": "18"},
        {"cell": "R0C4", "value": "12"},
        {"cell": "R7C5", "value": "1"},
    ],
)


@pytest.mark.parametrize(("obj", "kind"), [(SKYSCRAPER_6, "skyscraper"), (XSUM_6, "x-sum")])
def test_fpuzzles_clues_read_from_their_side_solve_and_export_back(
    obj: dict[str, Any], kind: str
) -> None:
    puzzle = from_fpuzzles(obj)
    specs = puzzle.rules.spec()["constraints"]
    assert {c["kind"] for c in specs} == {kind}
    key = "xsum" if kind == "x-sum" else "skyscraper"
    far = {
        item["cell"] for item in obj[key] if "C7" in item["cell"] or item["cell"].startswith("R7")
    }
    assert sum(1 for c in specs if c.get("reverse")) == len(far)
    for spec in ("sat", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            result = engine.solve(puzzle, time_limit=60)
        assert result.status is Status.UNIQUE, spec
        assert result.solution is not None
        assert "".join(map(str, result.solution.cells)) == GRID_6, spec
    back = to_fpuzzles(puzzle)
    assert sorted(back[key], key=lambda item: item["cell"]) == sorted(
        obj[key], key=lambda item: item["cell"]
    )
    assert from_fpuzzles(back).rules.spec() == puzzle.rules.spec()


def test_fpuzzles_clues_without_a_number_say_nothing() -> None:
    obj = _fpuzzles(
        6,
        {},
        xsum=[{"cell": "R0C1", "value": ""}, {"cell": "R0C2", "value": "?"}],
        skyscraper=[{"cell": "R7C3", "value": "4"}],
    )
    from cpsudoku.model.fpuzzles import read_fpuzzles

    read = read_fpuzzles(obj)
    assert read.puzzle.rules.spec()["constraints"] == [
        {"kind": "skyscraper", "column": 3, "reverse": True, "count": 4}
    ]
    assert any("xsum 1" in note and "'?'" in note for note in read.notes)


def test_clues_f_puzzles_has_no_key_for_are_refused_on_export() -> None:
    for spec in (
        {"kind": "hidden-skyscraper", "row": 1, "digit": 2},
        {"kind": "numbered-room", "row": 1, "digit": 2},
        {"kind": "lunchbox", "cells": [0, 1, 2], "sum": 2},
    ):
        rules = rules_of(4, "2x2", [spec])
        with pytest.raises(RulesError, match=f"no key for {spec['kind']}"):
            to_fpuzzles(Puzzle(rules, (0,) * 16))


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "x-sum", "row": 1, "sum": 2}, "no first digits make 2"),
        ({"kind": "x-sum", "row": 1, "reverse": "yes", "sum": 1}, '"reverse" is true or false'),
        ({"kind": "x-sum", "row": 1, "column": 2, "sum": 1}, "one"),
        ({"kind": "x-sum", "row": 1, "total": 1}, "takes no 'total'"),
        ({"kind": "skyscraper", "column": 1, "count": 10}, "not one of 1..9"),
        ({"kind": "skyscraper", "column": 10, "count": 1}, "not one of 1..9"),
        ({"kind": "hidden-skyscraper", "row": 1, "digit": 9}, "not one of 1..8"),
        ({"kind": "numbered-room", "row": 1, "digit": 0}, "not one of 1..9"),
        ({"kind": "lunchbox", "cells": ["r1c1"], "sum": 0}, "at least 2"),
        ({"kind": "lunchbox", "cells": ["r1c1", "r1c2"], "sum": 3}, "add up to 3"),
        ({"kind": "lunchbox", "cells": ["r1c1", "r1c1", "r1c2"], "sum": 0}, "twice"),
        ({"kind": "lunchbox", "cells": ["r1c1", "r1c2", "r1c3"], "sum": -1}, "not one of 0.."),
    ],
)
def test_malformed_clues_are_refused_by_name(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        constraint_from_spec(spec, 9)


def test_the_largest_x_sums_and_lunchboxes_are_accepted() -> None:
    assert max(xsum_totals(9)) == 45
    assert 2 not in xsum_totals(9)
    assert Lunchbox.from_spec({"kind": "lunchbox", "cells": list(range(9)), "sum": 35}, 9)
    assert Sandwich.from_spec({"kind": "sandwich", "row": 1, "sum": 35}, 9)


# --------------------------------------------------- engine limits these rules run into


def test_cpsat_meets_each_grid_once_when_it_counts_an_automaton(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cells fix an automaton's states in both models: one callback per grid.

    CP-SAT's own automaton (integer model) and layers without an at-most-one
    (Boolean model) left states free, and the enumeration met grids many times over.
    """
    import cpsudoku.engines.cpsat as cpsat

    met: list[tuple[int, ...]] = []
    record = cpsat._Collector.on_solution_callback

    def counted(self: Any) -> None:
        met.append(tuple(self.response_proto.solution))
        record(self)

    monkeypatch.setattr(cpsat._Collector, "on_solution_callback", counted)
    rules = rules_of(6, "2x3", [{"kind": "skyscraper", "row": 1, "count": 3}])
    for spec in ("cpsat", "cpsat:boolean"):
        met.clear()
        with create_backend(spec) as engine:
            found = engine.count(Puzzle(rules, (0,) * 36), limit=100)
        assert found.count == 100
        assert len(met) == 100, spec  # one callback per grid
    # Counted to the end: the 132 4x4 grids that show two skyscrapers from the left
    # (the Boolean layers met 168 solutions without their at-most-one).
    rules = rules_of(4, "2x2", [{"kind": "skyscraper", "row": 1, "count": 2}])
    truth = sum(1 for grid in GRIDS_4X4 if rules.constraints[0].problem(grid, 4) is None)
    assert truth == 132
    for spec in ("cpsat", "cpsat:boolean"):
        met.clear()
        with create_backend(spec) as engine:
            found = engine.count(Puzzle(rules, (0,) * 16), limit=1000)
        assert found.count == truth
        assert len(met) == truth, spec


@dataclass(frozen=True, slots=True)
class _Nowhere(Constraint):
    """A test rule whose automaton accepts nothing (as a choice's dead branch may)."""

    kind: ClassVar[str] = "nowhere"
    cells: tuple[int, ...]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        return "no line keeps it"

    def compile(self, n: int) -> tuple[Primitive, ...]:
        return (automaton(self.cells, n, 0, lambda state, d: 0, lambda state: False),)


@pytest.mark.parametrize("spec", ["cpsat", "cpsat:boolean"])
def test_an_automaton_that_accepts_nothing_is_unsolvable_on_cpsat(spec: str) -> None:
    """No grid keeps it: no solution, not a crash (add_automaton refused it)."""
    rules = Rules.classic(2, 2).with_constraints(_Nowhere((0, 1, 2, 3)))
    with create_backend(spec) as engine:
        assert engine.count(Puzzle(rules, (0,) * 16), limit=2).count == 0
        assert engine.solve(Puzzle(rules, (0,) * 16)).status == Status.UNSOLVABLE
