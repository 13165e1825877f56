"""The primitives every rule compiles to, on every engine, against brute force.

Random primitives of each kind on a 4x4 grid (hypothesis): the number of the 288
grids each keeps (by :meth:`Primitive.holds`) must be what every engine counts,
and the oracle's narrowing must never take out a value some grid keeping the
primitive has there.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest
from conftest import GRIDS_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecheck import ENGINES, NATIVE

from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import Constraint
from cpsudoku.model.primitives import (
    Allowed,
    Choice,
    Count,
    DigitSets,
    Distinct,
    GroupedSum,
    Primitive,
    Relation,
    Sum,
    Table,
    automaton,
    full,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

N = 4

#: The most solutions counted per puzzle.
LIMIT = 40


@dataclass(frozen=True)
class Raw(Constraint):
    """A rule that is its primitives (for these tests only: never registered)."""

    kind: ClassVar[str] = "raw"
    prims: tuple[Primitive, ...]
    cells: tuple[int, ...] = ()

    def compile(self, n: int) -> tuple[Primitive, ...]:
        return self.prims

    def problem(self, values: Sequence[int], n: int) -> str | None:
        return None if all(p.holds(values) for p in self.prims) else "broken"


def _cells(rng: random.Random, k: int) -> tuple[int, ...]:
    return tuple(rng.sample(range(16), k))


def _primitive(rng: random.Random, kind: str) -> Primitive:
    """A random primitive of one kind on the 4x4 grid."""
    if kind == "relation":
        allowed = (0, *(rng.randrange(1, 16) for _ in range(N)))
        pairs = tuple(tuple(rng.sample(range(16), 2)) for _ in range(rng.randint(1, 4)))
        return Relation(pairs, allowed)  # type: ignore[arg-type]
    if kind == "differ":
        pairs = tuple(tuple(rng.sample(range(16), 2)) for _ in range(rng.randint(1, 4)))
        return Relation.of(pairs, N, lambda a, b: a != b)  # type: ignore[arg-type]
    if kind == "allowed":
        cells = _cells(rng, rng.randint(1, 4))
        return Allowed(cells, tuple(rng.randrange(1, 16) for _ in cells))
    if kind == "distinct":
        return Distinct(_cells(rng, rng.randint(2, 4)))
    if kind == "digit-sets":
        k = rng.randint(1, 4)
        sets = [m for m in range(1, 16) if m.bit_count() == k]
        return DigitSets(_cells(rng, k), tuple(rng.sample(sets, rng.randint(1, len(sets)))))
    if kind == "table":
        k = rng.randint(1, 4)
        from itertools import product

        pool = list(product(range(1, 5), repeat=k))
        return Table(_cells(rng, k), tuple(sorted(rng.sample(pool, rng.randint(1, len(pool))))))
    if kind == "sum":
        k = rng.randint(1, 5)
        terms = tuple((i, rng.choice([1, 1, 2, -1, -3])) for i in _cells(rng, k))
        low = sum(min(w, 4 * w) for _, w in terms)
        high = sum(max(w, 4 * w) for _, w in terms)
        targets = tuple(sorted({rng.randint(low, high) for _ in range(rng.randint(1, 2))}))
        return Sum(terms, targets)
    if kind == "automaton":  # digits along the cells: a rising, then any; ends on even
        cells = _cells(rng, rng.randint(2, 5))
        limit = rng.randint(3, 9)
        return automaton(
            cells,
            N,
            (0, 0),
            lambda s, d: (s[0] + d, d) if s[0] + d <= limit else None,  # type: ignore[index]
            lambda s: s[1] % 2 == 0,  # type: ignore[index]
        )
    if kind == "count":
        cells = _cells(rng, rng.randint(1, 6))
        values = rng.randrange(1, 16)
        counts = frozenset(rng.sample(range(len(cells) + 1), rng.randint(1, len(cells) + 1)))
        return Count(cells, values, counts)
    assert kind == "choice"
    branches = tuple(
        tuple(_primitive(rng, rng.choice(SIMPLE)) for _ in range(rng.randint(1, 2)))
        for _ in range(rng.randint(1, 3))
    )
    return Choice(branches)


SIMPLE = ["relation", "differ", "allowed", "distinct", "digit-sets", "table", "sum", "count"]
KINDS = [*SIMPLE, "automaton", "choice"]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3)
)
def test_every_engine_counts_each_primitive_as_brute_force(seed: int, kinds: list[str]) -> None:
    rng = random.Random(seed)
    prims = tuple(_primitive(rng, kind) for kind in kinds)
    rules = Rules.classic(2, 2).with_constraints(Raw(prims))
    # Counts up to LIMIT: each further solution costs some engines a solve of its own
    # (CP-SAT counts a choice's solutions by excluding each one found).
    expected = min(LIMIT, sum(all(p.holds(g) for p in prims) for g in GRIDS_4X4))
    puzzle = Puzzle(rules, (0,) * 16)
    for spec in (*ENGINES, "cpsat:boolean", "backtrack:naive", *NATIVE):
        with create_backend(spec) as engine:
            assert type(engine).refusal(rules) is None, spec  # every engine takes every kind
            assert engine.count(puzzle, limit=LIMIT).count == expected, (spec, prims)


def _grouped_sum(rng: random.Random) -> Primitive:
    """A random sum on a 4x4 grid read with its groups of peers (the oracle's view)."""
    unit = rng.choice(Rules.classic(2, 2).unit_cells)
    cells = [*rng.sample(unit, rng.randint(2, 4)), *_cells(rng, rng.randint(0, 2))]
    terms = tuple((i, rng.choice([1, 1, -1, 2])) for i in dict.fromkeys(cells))
    low = sum(min(w, 4 * w) for _, w in terms)
    high = sum(max(w, 4 * w) for _, w in terms)
    return GroupedSum.of(Sum(terms, (rng.randint(low, high),)), PEERS)


PEERS = [frozenset(p) for p in Rules.classic(2, 2).peers]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from([*KINDS, "grouped-sum"]))
def test_narrowing_never_takes_out_a_value_some_grid_keeps(seed: int, kind: str) -> None:
    rng = random.Random(seed)
    p = _grouped_sum(rng) if kind == "grouped-sum" else _primitive(rng, kind)
    # A state: some cells filled from a grid, the others with random candidates that
    # keep that grid's value (so at least one grid fits, unless the primitive breaks it).
    grid = GRIDS_4X4[rng.randrange(288)]
    values = [grid[i] if rng.random() < 0.3 else 0 for i in range(16)]
    cand = [0 if values[i] else (1 << (grid[i] - 1)) | rng.randrange(16) for i in range(16)]
    fits = [
        g
        for g in GRIDS_4X4
        if p.holds(g)
        and all(
            (values[i] and g[i] == values[i]) or (not values[i] and cand[i] >> (g[i] - 1) & 1)
            for i in range(16)
        )
    ]
    before = list(cand)
    step = p.narrow(values, cand, N)
    if step < 0:
        assert not fits, (p, values, before)
        return
    for g in fits:
        for i in range(16):
            if not values[i]:
                assert cand[i] >> (g[i] - 1) & 1, (p, i, values, before, cand)
    assert step == (cand != before)


def _supported(p: Primitive, values: list[int], cand: list[int]) -> list[int]:
    """Per cell of ``p``, the values of every assignment of its cells' masks keeping it."""
    from itertools import product

    masks = [1 << (values[i] - 1) if values[i] else cand[i] for i in p.cells]
    seen = [0] * len(p.cells)
    grid = list(values)
    for pick in product(*(range(1, N + 1) for _ in p.cells)):
        if all(m >> (v - 1) & 1 for m, v in zip(masks, pick, strict=True)):
            for i, v in zip(p.cells, pick, strict=True):
                grid[i] = v
            if p.holds(grid):
                for k, v in enumerate(pick):
                    seen[k] |= 1 << (v - 1)
    return seen


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["sum", "table"]))
def test_sums_and_tables_keep_exactly_the_supported_values(seed: int, kind: str) -> None:
    """Exact: a value stays in an open cell iff some assignment of the masks keeps it."""
    rng = random.Random(seed)
    p = _primitive(rng, kind)
    values = [rng.randint(1, N) if rng.random() < 0.2 else 0 for _ in range(16)]
    cand = [0 if values[i] else rng.randrange(1, 16) for i in range(16)]
    seen = _supported(p, values, cand)
    after = list(cand)
    step = p.narrow(values, after, N)
    if not any(seen):
        assert step == -1
        return
    assert step >= 0
    for k, i in enumerate(p.cells):
        if not values[i]:
            assert after[i] == seen[k], (p, i, values, cand, after)


def test_a_grouped_sum_knows_its_cells_differ() -> None:
    # Two cells of a row adding up to 3 hold 1 and 2: the sum alone keeps 1 + 1 too.
    plain = Sum(((0, 1), (1, 1)), (2, 3))
    grouped = GroupedSum.of(plain, PEERS)
    assert isinstance(grouped, GroupedSum)
    assert grouped.groups == ((1, (0, 1)),)
    cand = [full(N)] * 16
    assert grouped.narrow([0] * 16, cand, N) == 1
    assert cand[:2] == [0b0011, 0b0011]
    assert grouped.narrow([1] + [0] * 15, list(cand), N) == 1  # the 1 leaves the 2
    assert GroupedSum.of(Sum(((0, 1), (6, 1)), (3,)), PEERS) == Sum(((0, 1), (6, 1)), (3,))


def test_a_relation_joining_every_two_cells_reads_as_its_table() -> None:
    from itertools import combinations, product

    far = Relation.of(combinations((0, 5, 10), 2), N, lambda a, b: abs(a - b) >= 2)
    table = far.clique_table()
    assert table is not None
    assert table.cells == (0, 5, 10)
    every = [
        t
        for t in product(range(1, N + 1), repeat=3)
        if all(abs(a - b) >= 2 for a, b in combinations(t, 2))
    ]
    assert sorted(table.tuples) == every == []  # three values 1..4 two apart: none
    assert table.narrow([0] * 16, [full(N)] * 16, N) == -1
    near = Relation.of(combinations((0, 5, 10), 2), N, lambda a, b: a != b and abs(a - b) <= 2)
    assert near.clique_table() is not None
    assert sorted(near.clique_table().tuples) == [  # type: ignore[union-attr]
        t
        for t in product(range(1, N + 1), repeat=3)
        if all(a != b and abs(a - b) <= 2 for a, b in combinations(t, 2))
    ]
    assert Relation.of([(0, 5), (5, 10)], N, lambda a, b: abs(a - b) >= 2).clique_table() is None
    assert Relation.of(combinations((0, 5, 10), 2), N, lambda a, b: a != b).clique_table() is None
    assert near.clique_table(most=5) is None  # more tuples than allowed


def test_an_automaton_keeps_only_values_on_accepted_paths() -> None:
    # Digits along four cells adding up to 4: every cell must hold 1, and nothing else.
    a = automaton((0, 1, 2, 3), N, 0, lambda s, d: s + d if s + d <= 4 else None, lambda s: s == 4)  # type: ignore[operator]
    cand = [full(N)] * 16
    assert a.narrow([0] * 16, cand, N) == 1
    assert cand[:4] == [1, 1, 1, 1]


def test_a_count_pinned_at_its_least_fills_every_maybe() -> None:
    c = Count((0, 1, 2), 0b0011, frozenset({3}))  # all three cells hold 1 or 2
    cand = [full(N)] * 16
    assert c.narrow([0] * 16, cand, N) == 1
    assert cand[:3] == [3, 3, 3]


def test_a_choice_keeps_the_union_of_its_live_branches() -> None:
    ch = Choice(((Allowed((0,), (0b0001,)),), (Allowed((0,), (0b0100,)),)))
    cand = [full(N)] * 16
    assert ch.narrow([0] * 16, cand, N) == 1
    assert cand[0] == 0b0101
    assert ch.narrow([2] + [0] * 15, list(cand), N) == -1


def test_a_relation_table_reads_both_ways() -> None:
    r = Relation.of([(0, 1)], N, lambda a, b: a < b)
    assert r.allowed[1] == 0b1110
    assert r.back[4] == 0b0111
    assert not r.differ
    assert Relation.of([(0, 1)], N, lambda a, b: a != b).differ


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_drawn(kind: str) -> None:
    # The generator above makes every kind (so the property tests cover them all).
    rng = random.Random(1)
    assert _primitive(rng, kind) is not None
