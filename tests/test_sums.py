"""Sums with repeats (little killers, arrows), sandwiches and negative dot rules: every
engine against brute force on 4x4, the verifier, and the rules' checks."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest
from conftest import GRIDS_4X4
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cpsudoku.encode.sum_clauses import fold_units
from cpsudoku.engines import create_backend, native_built
from cpsudoku.model.constraints import Constraint
from cpsudoku.model.errors import BackendUnavailableError, RulesError, UnsupportedRulesError
from cpsudoku.model.primitives import Primitive, Sum
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules
from cpsudoku.model.verify import solution_problems


@dataclass(frozen=True)
class _Raw(Constraint):
    """A rule that is its primitives (for these tests only: never registered)."""

    kind: ClassVar[str] = "raw-sums"
    prims: tuple[Primitive, ...]
    cells: tuple[int, ...] = ()

    def compile(self, n: int) -> tuple[Primitive, ...]:
        return self.prims

    def problem(self, values: Sequence[int], n: int) -> str | None:
        return None if all(p.holds(values) for p in self.prims) else "broken"

    @classmethod
    def of(cls, prims: tuple[Primitive, ...]) -> _Raw:
        """The rule of ``prims``, listing their cells as every rule does."""
        return cls(prims, tuple(sorted({i for p in prims for i in p.cells})))


ENGINES = [
    "sat",
    "sat:reduced",
    "cpsat",
    "cpsat:integer",
    "cpsat:sample",
    "backtrack",
    "backtrack:naive",
]


GRIDS = GRIDS_4X4
NEIGHBOURS = [(a, a + 1) for a in range(16) if a % 4 < 3] + [(a, a + 4) for a in range(12)]
#: The values a dot of each kind allows, written out here, apart from the model.
DOTS = {
    "kropki-white": lambda a, b: abs(a - b) == 1,
    "kropki-black": lambda a, b: a == 2 * b or b == 2 * a,
    "x": lambda a, b: a + b == 10,
    "v": lambda a, b: a + b == 5,
}


def _diagonal(rng: random.Random) -> list[int]:
    """The cells of a random diagonal run of a 4x4 grid (at least one cell)."""
    r, c = rng.randrange(4), rng.randrange(4)
    dr, dc = rng.choice([(1, 1), (1, -1)])
    cells = []
    while 0 <= r < 4 and 0 <= c < 4 and len(cells) < rng.randint(1, 4):
        cells.append(r * 4 + c)
        r, c = r + dr, c + dc
    return cells or [0]


def _between(grid: tuple[int, ...], line: list[int]) -> int:
    """The sum between the 1 and the 4 of ``line``'s values in ``grid``, by hand."""
    values = [grid[i] for i in line]
    a, b = sorted((values.index(1), values.index(4)))
    return sum(values[a + 1 : b])


@st.composite
def sum_rules(draw: st.DrawFn) -> tuple[list[dict[str, object]], list[object]]:
    """Random sum and negative rules on 4x4, with checks of a grid written out here.

    Sums come from a random grid half the time, so that some rule sets have solutions.
    """
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    model = rng.choice(GRIDS)
    specs: list[dict[str, object]] = []
    checks: list[object] = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["little-killer", "arrow", "sandwich", "negative"])
        if kind == "little-killer":
            cells = _diagonal(rng)
            total = sum(model[i] for i in cells) if rng.random() < 0.5 else None
            total = total or rng.randint(len(cells), 4 * len(cells))
            specs.append({"kind": kind, "cells": cells, "sum": total})
            checks.append(lambda g, c=cells, t=total: sum(g[i] for i in c) == t)
        elif kind == "arrow":
            cells = rng.sample(range(16), rng.randint(2, 4))
            circle, shaft = cells[:1], cells[1:]
            if len(shaft) == 3 and rng.random() < 0.3:  # a pill: two cells read as 1x
                circle, shaft = cells[:2], cells[2:]
            specs.append({"kind": kind, "circle": circle, "cells": shaft})

            def arrow(g: tuple[int, ...], circle: list[int] = circle, shaft: list[int] = shaft):
                number = int("".join(str(g[i]) for i in circle))
                return sum(g[i] for i in shaft) == number

            checks.append(arrow)
        elif kind == "sandwich":
            index = rng.randrange(4)
            line = "row" if rng.random() < 0.5 else "column"
            cells = (
                [index * 4 + k for k in range(4)]
                if line == "row"
                else [k * 4 + index for k in range(4)]
            )
            total = _between(model, cells) if rng.random() < 0.6 else rng.choice([0, 2, 3, 5])
            specs.append({"kind": kind, line: index + 1, "sum": total})
            checks.append(lambda g, c=cells, t=total: _between(g, c) == t)
        else:
            of = rng.choice(sorted(DOTS))
            dots = rng.sample(NEIGHBOURS, rng.randint(0, 3))
            specs.append({"kind": kind, "of": of})
            specs.extend({"kind": of, "cells": list(p)} for p in dots)
            ok = DOTS[of]
            checks.append(
                lambda g, ok=ok, dots=dots: all(
                    ok(g[a], g[b]) == ((a, b) in dots) for a, b in NEIGHBOURS
                )
            )
    return specs, checks


@settings(max_examples=120, deadline=None)
@given(rules=sum_rules(), givens=st.integers(0, 3))
def test_every_engine_counts_as_brute_force(
    rules: tuple[list[dict[str, object]], list[object]], givens: int
) -> None:
    specs, checks = rules
    try:
        made = Rules.from_spec({"size": 4, "box": "2x2", "constraints": specs})
    except RulesError:  # a sum no cells make: refused before any engine runs
        return
    keep = [g for g in GRIDS if all(check(g) for check in checks)]  # type: ignore[operator]
    cells = [0] * 16
    if keep and givens:
        for i in random.Random(givens).sample(range(16), givens):
            cells[i] = keep[0][i]
        keep = [g for g in keep if all(not v or g[i] == v for i, v in enumerate(cells))]
    puzzle = Puzzle(made, tuple(cells))
    for grid in keep[:3]:
        assert solution_problems(puzzle, Puzzle(made, grid)) == []
    for spec in ENGINES:
        with create_backend(spec) as engine:
            assert engine.count(puzzle, limit=300).count == len(keep), spec


def test_the_verifier_names_the_broken_sum() -> None:
    rules = Rules.from_spec(
        {
            "size": 4,
            "box": "2x2",
            "constraints": [
                {"kind": "little-killer", "cells": ["r1c1", "r2c2"], "sum": 7},
                {"kind": "arrow", "circle": ["r4c4"], "cells": ["r3c3"]},
                {"kind": "sandwich", "row": 1, "sum": 5},
            ],
        }
    )
    grid = Puzzle(rules, (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1))
    problems = " ".join(solution_problems(Puzzle(rules, (0,) * 16), grid))
    assert "little-killer at r1c1 makes 5, not 7" in problems
    assert "arrow at r4c4 makes 3" in problems
    assert "sandwich of row 1 holds 5" not in problems  # 2 + 3 = 5 holds


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "little-killer", "cells": ["r1c1", "r2c2"], "sum": 9}, "only 2 to 8"),
        ({"kind": "little-killer", "cells": [], "sum": 1}, "no cells"),
        ({"kind": "arrow", "circle": ["r1c1"], "cells": ["r1c1"]}, "in both parts"),
        ({"kind": "sandwich", "row": 5, "sum": 1}, "not one of 1..4"),
        ({"kind": "sandwich", "row": 1, "column": 2, "sum": 1}, "one"),
        ({"kind": "sandwich", "row": 1, "sum": 4}, "add up to 4"),
        ({"kind": "negative", "of": "thermometer"}, "not 'thermometer'"),
    ],
)
def test_malformed_sum_rules_are_refused_by_name(spec: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_spec({"size": 4, "box": "2x2", "constraints": [spec]})


def test_a_negative_rule_follows_the_marks_beside_it() -> None:
    rules = Rules.from_spec(
        {
            "size": 4,
            "box": "2x2",
            "constraints": [
                {"kind": "negative", "of": "v"},
                {"kind": "v", "cells": ["r1c2", "r1c1"]},
            ],
        }
    )
    (negative,) = [c for c in rules.constraints if c.kind == "negative"]
    assert (0, 1) not in negative.pairs  # type: ignore[attr-defined]
    assert (1, 2) in negative.pairs  # type: ignore[attr-defined]
    assert Rules.from_spec(rules.spec()) == rules


def test_the_compiled_engine_refuses_a_sum_past_its_limits_by_name() -> None:
    # A circle read as an 11-digit number: a weight beyond 2**31.
    arrow = {"kind": "arrow", "circle": list(range(11)), "cells": [15]}
    rules = Rules.from_spec({"size": 4, "box": "2x2", "constraints": [arrow]})
    if not native_built():  # without a compiler at install time: unavailable, by name
        with pytest.raises(BackendUnavailableError):
            create_backend("native")
        return
    with (
        create_backend("native") as engine,
        pytest.raises(UnsupportedRulesError, match=r"arrow constraints \(a sum .* 2\*\*31\)"),
    ):
        engine.solve(Puzzle(rules, (0,) * 16))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), givens=st.integers(0, 3))
def test_short_extra_regions_only_forbid_repeats(seed: int, givens: int) -> None:
    """An extra region of fewer than n cells: no value twice, no value required."""
    rng = random.Random(seed)
    cells = tuple(rng.sample(range(16), rng.randint(1, 4)))
    rules = Rules.for_size(4).with_extra(Region("region", cells))
    keep = [g for g in GRIDS if len({g[i] for i in cells}) == len(cells)]
    puzzle_cells = [0] * 16
    for i in rng.sample(range(16), givens if keep else 0):
        puzzle_cells[i] = keep[0][i]
    keep = [g for g in keep if all(not v or g[i] == v for i, v in enumerate(puzzle_cells))]
    puzzle = Puzzle(rules, tuple(puzzle_cells))
    for spec in [*ENGINES, *(["native"] if native_built() else [])]:
        with create_backend(spec) as engine:
            assert engine.count(puzzle, limit=300).count == len(keep), spec


# ---- sums as the engines write them for solving: whole units folded, runs of digits --


def _random_sum(rng: random.Random, rules: Rules) -> Sum:
    """A random sum on ``rules``' grid: whole units, parts of units, pills, repeats.

    Some terms cover whole units or most of one (so that :func:`fold_units` has
    work), some lie in one box (runs of different digits), some are a pill's cells
    (weights 10 and 1, negated); the targets are one to three sums, one of them made
    by a random grid half the time.
    """
    n = rules.n
    units = rules.unit_cells
    weights: dict[int, int] = {}
    for _ in range(rng.randint(1, 3)):
        shape = rng.choice(["unit", "most", "box-run", "pill", "cells"])
        if shape == "unit":
            cells = list(rng.choice(units))
        elif shape == "most":
            cells = rng.sample(list(rng.choice(units)), n - rng.randint(1, 2))
        elif shape == "box-run":
            cells = rng.sample(list(rng.choice(units[2 * n :])), rng.randint(2, 3))
        elif shape == "pill":
            a, b = rng.sample([i for i in range(n * n) if i not in weights], 2)
            weights.setdefault(a, -10)
            weights.setdefault(b, -1)
            continue
        else:
            cells = rng.sample(range(n * n), rng.randint(1, 4))
        w = rng.choice([1, 1, 1, 2, -1])
        for i in cells:
            weights.setdefault(i, w)
    terms = tuple(weights.items())
    return Sum(terms, (0,))


def _with_targets(rng: random.Random, s: Sum, grid: tuple[int, ...] | None, n: int) -> Sum:
    low = sum(min(w, n * w) for _, w in s.terms)
    high = sum(max(w, n * w) for _, w in s.terms)
    targets = {rng.randint(low, high) for _ in range(rng.randint(1, 3))}
    if grid is not None:
        targets.add(sum(w * grid[i] for i, w in s.terms))
    return Sum(s.terms, tuple(sorted(targets)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_folded_sum_keeps_every_grid_as_written(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules.classic(2, 2)
    s = _with_targets(rng, _random_sum(rng, rules), rng.choice(GRIDS), 4)
    short = fold_units(s, rules.unit_cells, 4)
    assert len(short.terms) <= len(s.terms)
    assert [short.holds(g) for g in GRIDS] == [s.holds(g) for g in GRIDS]


def test_a_shaft_through_whole_rows_folds_to_the_cells_left_over() -> None:
    rules = Rules.classic(3, 3)
    # Every cell but the first three, equal to the number the first three read as.
    s = Sum((*((i, 1) for i in range(3, 81)), (0, -100), (1, -10), (2, -1)), (0,))
    short = fold_units(s, rules.unit_cells, 9)
    assert sorted(short.terms) == [(0, -101), (1, -11), (2, -2)]
    assert short.targets == (-405,)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), givens=st.integers(0, 3))
def test_random_sums_count_as_brute_force_on_sat_and_cpsat(seed: int, givens: int) -> None:
    rng = random.Random(seed)
    rules = Rules.classic(2, 2)
    model = rng.choice(GRIDS)
    prims = tuple(
        _with_targets(rng, _random_sum(rng, rules), model if rng.random() < 0.6 else None, 4)
        for _ in range(rng.randint(1, 2))
    )
    made = rules.with_constraints(_Raw.of(prims))
    cells = [0] * 16
    for i in rng.sample(range(16), givens):
        cells[i] = model[i]
    keep = [
        g
        for g in GRIDS
        if all(p.holds(g) for p in prims) and all(not v or g[i] == v for i, v in enumerate(cells))
    ]
    puzzle = Puzzle(made, tuple(cells))
    for spec in ("sat", "sat:reduced", "cpsat", "cpsat:boolean"):
        with create_backend(spec) as engine:
            assert engine.count(puzzle, limit=300).count == len(keep), (spec, prims)


def _some_givens(
    rules: Rules, grid: Sequence[int], rng: random.Random, least: int, most: int
) -> Puzzle:
    """``rules`` with ``least`` to ``most`` of ``grid``'s cells given, chosen by ``rng``."""
    cells = [0] * rules.cells
    for i in rng.sample(range(rules.cells), rng.randint(least, most)):
        cells[i] = grid[i]
    return Puzzle(rules, tuple(cells))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_sums_on_6x6_agree_with_the_oracle(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules.classic(2, 3)
    with create_backend("backtrack") as oracle:
        grid = oracle.solve(Puzzle(rules, (0,) * 36)).solution
    assert grid is not None
    model = grid.cells
    prims = tuple(
        _with_targets(rng, _random_sum(rng, rules), model, 6) for _ in range(rng.randint(1, 3))
    )
    puzzle = _some_givens(rules.with_constraints(_Raw.of(prims)), model, rng, 8, 14)
    with create_backend("backtrack") as oracle:
        expected = oracle.count(puzzle, limit=20).count
    assert expected >= 1
    for spec in ("sat", "cpsat", "cpsat:boolean"):
        with create_backend(spec) as engine:
            assert engine.count(puzzle, limit=20).count == expected, (spec, prims)


#: Published puzzles where long sums decide, each solved in well under 10 s after
#: the sums were folded (the little killers are in benchmarks/hard_sums.py only).
HARD = ["iss-3-digit-pill-arrow", "iss-triple-digits"]


@pytest.mark.parametrize("pid", HARD)
@pytest.mark.parametrize("spec", ["sat", "cpsat"])
def test_published_long_sums_are_unique_with_their_solution(pid: str, spec: str) -> None:
    import json

    from conftest import DATA

    from cpsudoku.model.fpuzzles import read_fpuzzles

    lines = (DATA / "published" / "fpuzzles.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    row = next(r for r in rows if r["id"] == pid)
    puzzle = read_fpuzzles(row["fpuzzles"]).puzzle
    with create_backend(spec) as engine:
        result = engine.solve(puzzle, time_limit=60)
    assert result.status.value == "unique", (pid, spec, result.status)
    assert result.solution is not None
    assert result.solution.line() == row["solution"]


def _diagonals(n: int) -> list[tuple[int, ...]]:
    """Every diagonal of the grid, both ways, as cell lists."""
    out = []
    for start in range(-(n - 1), n):
        down = tuple(r * n + r + start for r in range(n) if 0 <= r + start < n)
        up = tuple(r * n + (n - 1 - r) - start for r in range(n) if 0 <= n - 1 - r - start < n)
        out += [down, up]
    return out


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sums_of_parallel_little_killers_hold_and_keep_every_count(seed: int) -> None:
    """The merged sums of little killers hold in the grid they came from, and the
    compiled engine (which searches with them) counts as ``sat`` (which does not).

    Three or four parallel diagonals side by side, on a random grid whose digits are
    renamed so that the diagonals' digits are the grid's largest (or smallest): a
    setter's extreme sums, the ones merging tightens.
    """
    if not native_built():
        pytest.skip("the compiled engine was not built")
    from collections import Counter

    from cpsudoku.generate.grids import random_grid
    from cpsudoku.model.constraints import LittleKiller
    from cpsudoku.model.implied import combined_sums

    rng = random.Random(seed)
    rules = Rules.for_size(9)
    diagonals = _diagonals(9)
    way, first = rng.randint(0, 1), rng.randint(-4, 1)
    family = [diagonals[2 * (s + 8) + way] for s in range(first, first + rng.randint(3, 4))]
    grid = random_grid(rules, rng).cells
    often = Counter(grid[i] for d in family for i in d)
    order = sorted(range(1, 10), key=lambda v: often[v])
    up = rng.random() < 0.5
    renamed = {v: k + 1 if up else 9 - k for k, v in enumerate(order)}
    grid = tuple(renamed[v] for v in grid)
    made = rules.with_constraints(*(LittleKiller(d, sum(grid[i] for i in d)) for d in family))
    merged = combined_sums(made)
    assume(merged)
    for s in merged:
        assert sum(grid[i] for i in s.cells) == s.total
        parts = [d for d in family if set(d) <= set(s.cells)]
        assert len(parts) >= 2
        assert sum(map(len, parts)) == len(s.cells)
    puzzle = _some_givens(made, grid, rng, 10, 20)
    with create_backend("sat") as engine:
        expected = engine.count(puzzle, limit=2).count
    assert expected >= 1
    assert create_backend("native").count(puzzle, limit=2, time_limit=60).count == expected


def test_the_parallel_little_killers_of_the_hard_set_merge_by_family() -> None:
    """Eight little killers of 49 that cannot all hold: each family of parallel
    diagonals adds up to 196, and the compiled engine refutes the grid with those."""
    import json

    from conftest import ROOT

    from cpsudoku import parse
    from cpsudoku.model.implied import combined_sums

    path = ROOT / "benchmarks" / "data" / "variants" / "hard.jsonl"
    row = next(
        json.loads(line) for line in path.read_text().splitlines() if '"zero-little-killer"' in line
    )
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    diagonals = [set(c.cells) for c in puzzle.rules.constraints]
    merged = combined_sums(puzzle.rules)
    assert sorted(s.total for s in merged) == [196, 196]
    for s in merged:
        parts = [d for d in diagonals if d <= set(s.cells)]
        assert len(parts) == 4
        assert set().union(*parts) == set(s.cells)
    if native_built():
        result = create_backend("native").count(puzzle, limit=2, time_limit=60)
        assert result.count == 0
        assert not result.timed_out


# ------------------------------------------------------------ bands of parallel diagonals


def _whole_diagonal(n: int, down: bool, k: int) -> list[int]:
    """The cells of the whole diagonal ``k``: column less row (down), or row plus column."""
    return [i for i in range(n * n) if (i % n - i // n if down else i % n + i // n) == k]


def test_a_band_of_diagonals_holding_whole_boxes_is_a_sum_of_its_totals() -> None:
    """Little killers beside an X diagonal: the run that holds whole boxes adds up to
    the killers' totals and the diagonal's 45; runs that hold no box give nothing."""
    from cpsudoku.model.implied import diagonal_bands

    grid = [int(ch) for ch in X_SOLUTION]
    killers = [
        {"kind": "little-killer", "cells": cells, "sum": sum(grid[i] for i in cells)}
        for k in (-2, -1, 1, 2)
        for cells in [_whole_diagonal(9, True, k)]
    ]
    main = {"kind": "diagonal", "cells": _whole_diagonal(9, True, 0)}
    spec = {"size": 9, "box": "3x3", "extra": [main], "constraints": killers}
    (band,) = diagonal_bands(Rules.from_spec(spec))
    assert len(band.cells) == 39
    assert band.total == sum(grid[i] for i in band.cells)
    # Without the X diagonal the run has a gap: no band.
    assert diagonal_bands(Rules.from_spec({**spec, "extra": []})) == ()
    # Two killers side by side hold no whole box: no band.
    assert diagonal_bands(Rules.from_spec({**spec, "extra": [], "constraints": killers[:2]})) == ()


#: A 9x9 grid that keeps the main diagonal (an X-sudoku's falling diagonal).
X_SOLUTION = "852917634139264578476358291291546387348792156765831429623489715917625843584173962"


@pytest.mark.skipif(not native_built(), reason="the extension was not built")
def test_bands_of_diagonals_keep_every_4x4_solution(monkeypatch: pytest.MonkeyPatch) -> None:
    """On 4x4 with the falling diagonal a unit, little killers on the diagonals beside it
    make a band holding two boxes: the compiled engine, made to start again with the
    band at once, counts as brute force, with totals some grid meets and totals none
    does."""
    from cpsudoku.engines import native
    from cpsudoku.model.implied import diagonal_bands

    monkeypatch.setattr(native, "ESCALATE_BANDS", 1)

    rng = random.Random("bands")
    diagonal = _whole_diagonal(4, True, 0)
    grids = [g for g in GRIDS_4X4 if len({g[i] for i in diagonal}) == 4]
    assert grids
    engine = create_backend("native")
    escalated = 0
    for _ in range(40):
        source = grids[rng.randrange(len(grids))]
        killers = []
        for k in (-1, 1):
            cells = _whole_diagonal(4, True, k)
            total = sum(source[i] for i in cells) + rng.choice([0, 0, 0, 1, -1])
            killers.append({"kind": "little-killer", "cells": cells, "sum": total})
        spec = {
            "size": 4,
            "box": "2x2",
            "extra": [{"kind": "diagonal", "cells": diagonal}],
            "constraints": killers,
        }
        rules = Rules.from_spec(spec)
        assert diagonal_bands(rules), spec
        want = sum(all(sum(g[i] for i in c["cells"]) == c["sum"] for c in killers) for g in grids)
        found = engine.count(Puzzle(rules, (0,) * 16), limit=300)
        assert found.count == want, spec
        escalated += found.stats.get("escalated", 0)
    assert escalated >= 20  # (the others end at the root, before any band)
