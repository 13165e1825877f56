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
from cpsudoku.model.primitives import Relation, Sum
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
        _counts_as_brute_force(engine, prims, _givens(rng, trial))


def _givens(rng: random.Random, trial: int) -> tuple[int, ...]:
    """Givens from a random grid on odd trials (about a third of its cells), else none."""
    grid = GRIDS_4X4[rng.randrange(288)]
    return tuple(v if trial % 2 and rng.random() < 0.3 else 0 for v in grid)


def _counts_as_brute_force(engine, prims: tuple, givens: tuple[int, ...]) -> None:  # type: ignore[no-untyped-def]
    """The engine counts the 4x4 grids keeping ``prims`` and ``givens`` as brute force
    over the 288 grids does, and a solution it gives is one of them."""
    rules = Rules.classic(2, 2).with_constraints(Raw(prims))
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


@pytest.mark.parametrize("kind", KINDS)
def test_restarts_keep_each_count_exact(kind: str) -> None:
    """A search that starts again (by cells, then by a digit's places with probing, and
    so on) counts each grid once: with a restart every few nodes, the counts are brute
    force's still."""
    rng = random.Random(f"restart {kind}")
    for trial in range(20):
        prims = (_primitive(rng, kind), _primitive(rng, rng.choice(KINDS)))
        givens = _givens(rng, trial)
        keeping = {
            g
            for g in GRIDS_4X4
            if all(p.holds(g) for p in prims)
            and all(not v or v == w for v, w in zip(givens, g, strict=True))
        }
        rules = Rules.classic(2, 2).with_constraints(Raw(prims))
        layout, allowed = native.layout(rules), native.allowed_masks(rules)
        for restart in (1, 3, 8):
            status, count, grids, _, _ = layout.solve(
                bytes(givens), LIMIT, allowed=allowed, restart=restart
            )
            assert count == len(keeping), (prims, givens, restart)
            # done, or givens that clash at once (no grid keeps them)
            assert status == native.DONE or (status == native.CLASH and not keeping)
            found = {tuple(grids[k * 16 : (k + 1) * 16]) for k in range(min(count, 2))}
            assert found <= keeping


def test_restarts_keep_the_miracle_count() -> None:
    """The 72 grids of anti-king, anti-knight and non-consecutive, through restarts."""
    rules = Rules.from_spec(
        {
            "size": 9,
            "box": "3x3",
            "constraints": [{"kind": k} for k in ("anti-king", "anti-knight", "non-consecutive")],
        }
    )
    layout = native.layout(rules)
    for restart in (50, 400):
        assert layout.solve(bytes(81), 100, restart=restart)[:2] == (native.DONE, 72)
    with pytest.raises(ValueError, match="restart"):
        layout.solve(bytes(81), 100, restart=-1)


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
    box the units say all of it, so only the 2,010 pairs of 2,820 that share no unit
    would be propagators (the layout takes them as digit peers, below); the count stays
    exact."""
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": [{"kind": "self-taxicab"}]})
    relations = list(rules.primitives)
    assert sum(len(p.pairs) for p in relations) == 2820  # type: ignore[attr-defined]
    specs = native._relations(relations, list(rules.unit_cells), 9)  # type: ignore[arg-type]
    pairs = [s[1] if s[0] == "relation" else s[2] for s in specs]  # a shift: (delta, cells)
    assert sum(len(p) for p in pairs) == 2010  # type: ignore[arg-type]
    six = Rules.from_spec({"size": 6, "box": "2x3", "constraints": [{"kind": "self-taxicab"}]})
    with create_backend("native") as engine:
        assert engine.count(Puzzle(six, (0,) * 36), limit=100).count == 72


def _grouped_sum(rng: random.Random, rules: Rules) -> Sum:
    """A sum whose cells mostly share units (a row, a box): groups of different digits,
    some weighted as a pill's digits (10, 1) or a circle's (-1)."""
    units = [u for u in rules.unit_cells if len(u) == rules.n]
    cells: list[int] = []
    for _ in range(rng.randint(1, 3)):
        cells += rng.sample(units[rng.randrange(len(units))], rng.randint(1, 4))
    cells = list(dict.fromkeys(cells))  # a sum lists each cell once
    weights = [rng.choice([1, 1, 1, 10, -1]) for _ in cells]
    grid = GRIDS_4X4[rng.randrange(288)] if rules.n == 4 else None
    if grid is not None and rng.random() < 0.7:  # a target some grid meets
        targets: tuple[int, ...] = (sum(w * grid[i] for i, w in zip(cells, weights, strict=True)),)
    else:
        low = sum(min(w, rules.n * w) for w in weights)
        high = sum(max(w, rules.n * w) for w in weights)
        targets = tuple(sorted({rng.randint(low, high) for _ in range(rng.randint(1, 2))}))
    return Sum(tuple(zip(cells, weights, strict=True)), targets)


def test_sums_over_cells_that_see_each_other_count_as_brute_force(engine) -> None:  # type: ignore[no-untyped-def]
    """The sum kernel bounds each group of cells that must differ by its least and
    greatest distinct digits: sound on every 4x4 sum of this shape, one or two at once,
    with givens or without."""
    rng = random.Random("grouped sums")
    rules0 = Rules.classic(2, 2)
    for trial in range(150):
        prims = tuple(_grouped_sum(rng, rules0) for _ in range(1 + trial % 2))
        rules = rules0.with_constraints(Raw(prims))
        grid = GRIDS_4X4[rng.randrange(288)]
        givens = tuple(v if trial % 3 == 1 and rng.random() < 0.25 else 0 for v in grid)
        keeping = sum(
            all(p.holds(g) for p in prims)
            and all(not v or v == w for v, w in zip(givens, g, strict=True))
            for g in GRIDS_4X4
        )
        assert engine.count(Puzzle(rules, givens), limit=LIMIT).count == keeping, (prims, givens)


def test_a_sum_walks_its_partial_sums_alike_in_one_word_pair_and_in_many(engine) -> None:  # type: ignore[no-untyped-def]
    """A range of partial sums under 128 is walked in one 128-bit word per layer, a wider
    one word by word: the same sum of 5 to 10 cells scaled by 10 (ranges 15-30 -> 150-300
    on 4x4) keeps the same grids, as brute force counts them."""
    rng = random.Random("one word or many")
    rules0 = Rules.classic(2, 2)
    for _ in range(40):
        cells = rng.sample(range(16), rng.randint(5, 10))
        grid = GRIDS_4X4[rng.randrange(288)]
        total = sum(grid[i] for i in cells) + rng.choice([0, 0, -1, 1])
        counts = []
        for scale in (1, 10):
            prim = Sum(tuple((i, scale) for i in cells), (scale * total,))
            puzzle = Puzzle(rules0.with_constraints(Raw((prim,))), (0,) * 16)
            counts.append(engine.count(puzzle, limit=LIMIT).count)
        brute = sum(sum(g[i] for i in cells) == total for g in GRIDS_4X4)
        assert counts == [brute, brute], (cells, total)


def test_sums_on_6x6_count_as_sat(engine, sat) -> None:  # type: ignore[no-untyped-def]
    """The same shape of sums on 6x6 grids, counted up to 20 by both engines."""
    rng = random.Random("grouped sums 6x6")
    rules0 = Rules.classic(2, 3)
    for _ in range(30):
        prims = tuple(_grouped_sum(rng, rules0) for _ in range(rng.randint(2, 4)))
        puzzle = Puzzle(rules0.with_constraints(Raw(prims)), (0,) * 36)
        ours, theirs = engine.count(puzzle, limit=20), sat.count(puzzle, limit=20)
        assert (ours.count, ours.complete) == (theirs.count, theirs.complete), prims


@pytest.mark.parametrize(
    ("family", "most"), [("taxicab", 2_000), ("anti-knight", 2_500), ("knightmare", 2_200)]
)
def test_units_look_through_relations(engine, family: str, most: int) -> None:  # type: ignore[no-untyped-def]
    """A digit with two to four places left in a unit keeps out of the cells that every
    place rules out: its own value from the cells that see all of them (a knight's
    move, a taxicab distance: pairs as units), and through relations the values they
    forbid beside it. Guesses, not seconds, over the first puzzles of the set: without
    it taxicab took 15,112 (6 puzzles), anti-knight 4,975 (10), knightmare 2,624 (6)."""
    path = ROOT / "benchmarks" / "data" / "variants" / f"{family}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    guesses = 0
    for record in rows[: 6 if family != "anti-knight" else 10]:
        puzzle = parse(str(record["puzzle"]), Rules.from_spec(record["rules"]))
        result = engine.solve(puzzle, time_limit=60)
        assert result.status.value == "unique"
        guesses += result.stats["guesses"]
    assert guesses <= most


def test_a_relation_that_only_keeps_digits_from_themselves_is_digit_peers(engine) -> None:  # type: ignore[no-untyped-def]
    """Self-taxicab forbids only (d, d) at distance d: the layout takes each distance's
    pairs as peers of digit d alone, cleared by a placement, not 2,010 propagators.
    Counts stay exact (a blank 6x6 has 72 grids, test above); guesses over the first
    six puzzles of the set: 146,000 as propagators (0.3 puzzles/s), about 32,000 as
    digit peers, 11,223 branching on a digit's places in a unit where they are fewer
    than the chosen cell's candidates (4x4 counts below exercise it: a complete and
    disjoint split), 2,585 with each open cell's values probed before the search (the
    4x4 counts with givens cover it too: a value dropped wrongly loses grids)."""
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": [{"kind": "self-taxicab"}]})
    masks = [native._same_digits(p) for p in rules.primitives]  # type: ignore[arg-type]
    assert masks == [1 << d for d in range(9)]  # distance d + 1: digit d + 1 only
    ones = (0, 0b1110, 0b1111, 0b1111, 0b1111)  # only 1 beside 1 is forbidden
    assert native._same_digits(Relation(((0, 5), (1, 6)), ones)) == 1
    assert native._same_digits(Relation(((0, 0), (1, 6)), ones)) == 0  # a cell beside itself
    four = Rules.from_spec({"size": 4, "box": "2x2", "constraints": [{"kind": "self-taxicab"}]})
    keep = [g for g in GRIDS_4X4 if all(c.possible(g, 4) for c in four.constraints)]
    rng = random.Random(5)
    for _ in range(40):  # with givens taken from any grid: counts as brute force
        grid = GRIDS_4X4[rng.randrange(288)]
        shown = set(rng.sample(range(16), rng.randint(0, 5)))
        cells = tuple(v if i in shown else 0 for i, v in enumerate(grid))
        want = sum(all(g[i] == grid[i] for i in shown) for g in keep)
        assert engine.count(Puzzle(four, cells), limit=LIMIT).count == want
    path = ROOT / "benchmarks" / "data" / "variants" / "self-taxicab.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    guesses = 0
    for record in rows[:6]:
        puzzle = parse(str(record["puzzle"]), Rules.from_spec(record["rules"]))
        result = engine.solve(puzzle, time_limit=60)
        assert result.status.value == "unique"
        guesses += result.stats["guesses"]
    assert guesses <= 5_000
    with pytest.raises(ValueError, match="digits above"):
        native._native.Layout(4, [], digit_pairs=[(1 << 4, [(0, 1)])])
    with pytest.raises(ValueError, match="two cells"):
        native._native.Layout(4, [], digit_pairs=[(1, [(0, 0)])])


#: Offsets (rows, columns) of a cell's partner in the shift tests: right, below,
#: diagonally either way, and two knight's moves.
OFFSETS = [(0, 1), (1, 0), (1, 1), (1, -1), (1, 2), (2, -1)]


def _offset_pairs(rng: random.Random, side: int) -> list[tuple[tuple[int, int], ...]]:
    """One or two of :data:`OFFSETS`, each as every pair of cells that far apart."""
    return [
        tuple(
            (r * side + c, (r + dr) * side + c + dc)
            for r in range(side)
            for c in range(side)
            if 0 <= r + dr < side and 0 <= c + dc < side
        )
        for dr, dc in rng.sample(OFFSETS, rng.randint(1, 2))
    ]


def test_relations_one_offset_apart_as_shifts_count_as_brute_force(engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Pairs one offset apart go in as a shift (bit-parallel arc consistency over all
    of them) from SHIFT_PAIRS pairs on; 4x4 has at most 12 per offset, so the test
    lowers the threshold and counts as brute force, with givens, on random tables over
    every cell and its neighbour right, below, diagonally or a knight's move away."""
    monkeypatch.setattr(native, "SHIFT_PAIRS", 2)
    native.layout.cache_clear()
    rng = random.Random("shifts")
    shifted = 0
    try:
        for trial in range(80):
            prims = []
            for pairs in _offset_pairs(rng, 4):
                allowed = (0, *(rng.randrange(1, 16) for _ in range(4)))
                prims.append(Relation(pairs, allowed))
            units = list(Rules.classic(2, 2).unit_cells)
            shifted += any(s[0] == "shift" for s in native._relations(prims, units, 4))
            _counts_as_brute_force(engine, tuple(prims), _givens(rng, trial))
    finally:
        native.layout.cache_clear()
    assert shifted >= 60  # a table a unit's pairs keep anyway adds nothing to shift
    table = (0, 14, 13, 11, 7)
    with pytest.raises(ValueError, match="nonzero"):
        native._native.Layout(4, [], None, [("shift", 0, (0,), table)])
    with pytest.raises(ValueError, match="partner"):
        native._native.Layout(4, [], None, [("shift", 4, (12,), table)])


def test_shifts_that_bar_few_values_count_as_sat(engine, sat, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """On 9x9, shift tables that bar none to five values beside each value: up to three
    are found from the barred values and the cells' counts of values, more value by
    value. With a few givens, counts as ``sat`` up to 20."""
    monkeypatch.setattr(native, "SHIFT_PAIRS", 2)
    native.layout.cache_clear()
    rng = random.Random("shifts 9x9")
    rules0 = Rules.classic(3, 3)
    try:
        for trial in range(30):
            prims = []
            for pairs in _offset_pairs(rng, 9):
                allowed = [0]
                for _ in range(9):
                    barred = rng.sample(range(9), rng.choice((0, 1, 2, 3, 3, 5)))
                    allowed.append(511 & ~sum(1 << b for b in barred))
                prims.append(Relation(pairs, tuple(allowed)))
            assert any(s[0] == "shift" for s in native._relations(prims, rules0.unit_cells, 9))
            rules = rules0.with_constraints(Raw(tuple(prims)))
            filled = sat.solve(Puzzle(rules, (0,) * 81), unique=False).solution
            givens = [0] * 81
            if filled is not None:  # some of a grid the rules allow: few solutions
                for i in rng.sample(range(81), 18 + trial % 12):
                    givens[i] = filled.cells[i]
            puzzle = Puzzle(rules, tuple(givens))
            ours, theirs = engine.count(puzzle, limit=20), sat.count(puzzle, limit=20)
            assert (ours.count, ours.complete) == (theirs.count, theirs.complete), prims
    finally:
        native.layout.cache_clear()
