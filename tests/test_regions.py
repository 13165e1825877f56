"""Jigsaw regions and extra regions on every engine, against brute force on 4x4.

Every Latin square of order 4 (576 of them) is enumerated by hand (conftest); a
random layout of four regions of four cells (connected or not) keeps those whose
regions hold each value once, extra regions (a diagonal, any listed cells) keep
those they do not repeat a value in, and the givens keep the rest. Each engine, one
live engine for many layouts as a jigsaw dataset gives them, must count the same.
"""

from __future__ import annotations

import random

import pytest
from conftest import LATIN_4X4

from cpsudoku.engines import create_backend, native_built
from cpsudoku.engines import sat as sat_engine
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules

LATIN = LATIN_4X4

ENGINES = [
    "sat",
    "sat:reduced",
    "sat:seqcounter",  # regions written whole, with auxiliary variables
    "sat:efficient",  # no "at least once" per region: a clash must still be seen
    "sat:glucose4",
    "cpsat",
    "cpsat:integer",
    "backtrack",
    *(["native"] if native_built() else []),
]


def test_there_are_576_latin_squares_of_order_4() -> None:
    assert len(LATIN) == 576


def _case(rng: random.Random) -> tuple[Puzzle, int]:
    """A random 4x4 jigsaw (maybe with extra regions and givens) and its count."""
    cells = list(range(16))
    rng.shuffle(cells)
    regions = [sorted(cells[k : k + 4]) for k in range(0, 16, 4)]
    extra = []
    if rng.random() < 0.3:
        extra.append(Region("diagonal", (0, 5, 10, 15)))
    if rng.random() < 0.3:
        extra.append(Region("region", tuple(sorted(rng.sample(range(16), rng.randint(2, 4))))))
    rules = Rules.jigsaw(regions).with_extra(*extra) if extra else Rules.jigsaw(regions)
    keep = [
        g
        for g in LATIN
        if all(
            len({g[i] for i in unit}) == len(unit) for unit in [*regions, *(r.cells for r in extra)]
        )
    ]
    givens = [0] * 16
    if keep:
        source = rng.choice(keep) if rng.random() < 0.8 else rng.choice(LATIN)
        for i in rng.sample(range(16), rng.randint(0, 7)):
            givens[i] = source[i]
    count = sum(all(not v or g[i] == v for i, v in enumerate(givens)) for g in keep)
    return Puzzle(rules, tuple(givens)), count


@pytest.mark.parametrize("spec", ENGINES)
def test_one_engine_counts_many_jigsaws_as_brute_force(spec: str) -> None:
    _counts_as_brute_force(spec)


@pytest.mark.skipif(not native_built(), reason="the compiled region writer is the other one")
def test_sat_counts_as_brute_force_with_the_python_region_writer_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An install without a C compiler writes a jigsaw's regions in Python.
    monkeypatch.setattr(sat_engine, "_region_writer", None)
    _counts_as_brute_force("sat")


def _counts_as_brute_force(spec: str) -> None:
    rng = random.Random(11)
    cases = [_case(rng) for _ in range(120)]
    counts = []
    with create_backend(spec) as engine:
        for puzzle, expected in cases:
            clash = puzzle.conflicts()
            if clash:
                assert engine.solve(puzzle).status == "invalid"
                continue
            found = engine.count(puzzle, limit=600)
            assert found.count == expected, (spec, puzzle.rules.spec(), str(puzzle))
            assert found.complete
            counts.append(expected)
            if expected == 1:  # the one solution, verified and named unique
                assert engine.solve(puzzle).status == "unique"
    assert 0 in counts
    assert 1 in counts
    assert max(counts) > 1


@pytest.mark.parametrize("spec", ENGINES)
def test_givens_that_clash_in_a_region_are_invalid(spec: str) -> None:
    # Two 1s in region 1 (not in one row or column), and two 2s in a short extra region.
    rules = Rules.jigsaw([[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]])
    short = rules.with_extra(Region("region", (3, 12)))
    with create_backend(spec) as engine:
        for puzzle in (
            Puzzle(rules, (1, 0, 0, 0, 0, 1, *[0] * 10)),
            Puzzle(short, (0, 0, 0, 2, *[0] * 8, 2, 0, 0, 0)),
        ):
            result = engine.solve(puzzle)
            assert result.status == "invalid", (spec, result)
            assert result.error is not None
            assert "appears twice" in result.error


@pytest.mark.parametrize("spec", ENGINES)
def test_an_extra_region_named_like_a_unit_is_still_a_rule(spec: str) -> None:
    # Engines tell rows, columns and boxes by their place among the units, never by
    # name: an extra region may be called anything, "row" and "box" included.
    diagonal = (0, 5, 10, 15)
    boxes = [(0, 1, 4, 5), (2, 3, 6, 7), (8, 9, 12, 13), (10, 11, 14, 15)]
    expected = sum(
        len({g[i] for i in diagonal}) == 4 and all(len({g[i] for i in b}) == 4 for b in boxes)
        for g in LATIN
    )
    with create_backend(spec) as engine:
        for name in ("row", "column", "box", "region"):
            rules = Rules.for_size(4).with_extra(Region(name, diagonal))
            assert engine.count(Puzzle(rules, (0,) * 16), limit=1000).count == expected, name
