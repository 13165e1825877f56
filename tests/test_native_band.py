"""The compiled engine's 9x9 band solver, held to the generic search.

Classic 9x9 rules (rows, columns and boxes, nothing else) are searched by the band
solver (``_native_band.h``); ``band=False`` keeps them on the generic search. Both must
give the same statuses, counts and solutions on every bundled classic set, on random
puzzles and at every limit; the stats may differ (the band solver reasons otherwise
and branches on its own choices).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, ROOT, random_grid

from cpsudoku.datasets import bulk_logic
from cpsudoku.model.rules import Rules

if os.environ.get("CI"):
    import cpsudoku.engines.native as native
else:
    native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
_native = native._native

G = Rules.for_size(9)


def _classic_files() -> list[Path]:
    """Every bundled file of 9x9 puzzle lines, in the tests and the benchmarks."""
    found = []
    for folder in (DATA, ROOT / "benchmarks" / "data"):
        for path in sorted(folder.glob("*.txt")):
            lines = _lines(path)
            if lines and len(lines[0]) == 81:
                found.append(path)
    return found


def _lines(path: Path) -> list[str]:
    out = [line.split(",")[0].strip() for line in path.read_text().splitlines()]
    return [line for line in out if line and not line.startswith("#")]


def _both(values: np.ndarray, **kwargs: object) -> tuple[native.BlockResult, ...]:
    band = native.solve_block(values, G, band=True, **kwargs)  # type: ignore[arg-type]
    generic = native.solve_block(values, G, band=False, **kwargs)  # type: ignore[arg-type]
    return band, generic


def _same(band: native.BlockResult, generic: native.BlockResult, values: np.ndarray) -> None:
    """Same statuses and counts; the same solution where it is unique, and a valid one
    where there are more (which comes first depends on the order of the search)."""
    assert band.status.tolist() == generic.status.tolist()
    assert band.count.tolist() == generic.count.tolist()
    unique = (band.count == 1) & (band.status == native.DONE)
    assert np.array_equal(band.solutions[unique], generic.solutions[unique])
    more = (band.count > 0) & ~unique
    assert bulk_logic.verify_block(values[more], band.solutions[more], G).all()
    assert not band.solutions[band.count == 0].any()


def test_only_classic_9x9_takes_the_band_solver() -> None:
    units = list(G.unit_cells)
    assert native.layout(G).band
    assert not native.layout(G, band=False).band
    assert _native.Layout(9, units[::-1]).band  # any order
    assert not _native.Layout(9, units, band=False).band
    assert not _native.Layout(9, units[:-1] + units[:1]).band  # a unit twice, one missing
    assert not _native.Layout(9, [*units, (0, 10)]).band  # one more pair
    assert not _native.Layout(9, [*units, tuple(range(0, 81, 10))]).band  # a diagonal
    assert not native.layout(Rules.for_size(4)).band
    assert not native.layout(Rules.for_size(16)).band
    cage = [((0, 1), [0b11])]
    assert not _native.Layout(9, [*units, (0, 1)], cage).band
    assert not _native.Layout(9, units, None, [("distinct", (0, 1))]).band


@pytest.mark.parametrize("path", _classic_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bundled_classic_set_as_the_generic_search(path: Path) -> None:
    lines = _lines(path)
    values, ok = bulk_logic.parse_block(lines, G)
    values = values[ok]
    band, generic = _both(values, budget=200_000)
    _same(band, generic, values)
    assert (band.status != native.BUDGET).all()
    solved = band.count > 0
    assert bulk_logic.verify_block(values[solved], band.solutions[solved], G).all()
    # stats: the root, then one node per branch tried; a guess leaves another digit.
    # Clashing givens end the search before its root, as on the generic search.
    clash = band.status == native.CLASH
    assert (band.nodes[clash] == 0).all()
    assert (generic.nodes[clash] == 0).all()
    assert (band.nodes[~clash] >= 1).all()
    assert (band.guesses < np.maximum(band.nodes, 1)).all()


def test_counts_past_two_as_the_generic_search() -> None:
    lines = _lines(DATA / "serg_multisolution_100.txt")[:12]
    lines += _lines(DATA / "multisolution_tdoku.txt")[:6]
    values, ok = bulk_logic.parse_block(lines, G)
    for limit in (3, 40, 1000):
        band, generic = _both(values[ok], limit=limit)
        _same(band, generic, values[ok])
    assert (band.count > 2).any()
    empty = np.zeros((1, 81), np.uint8)
    for limit in (1, 2, 7, 500):
        band, generic = _both(empty, limit=limit)
        _same(band, generic, empty)
        assert band.status.tolist() == [native.LIMIT]
        assert band.count[0] == min(limit, 255)


def test_one_puzzle_at_a_time_as_the_bulk_call() -> None:
    lines = _lines(DATA / "forum_hardest_1106_60.txt")[:5] + _lines(DATA / "nosolution_tdoku.txt")
    lines += _lines(DATA / "multisolution_tdoku.txt")[:3]
    band, generic = native.layout(G), native.layout(G, band=False)
    for line in lines:
        cells = bytes(0 if ch in ".0" else int(ch) for ch in line)
        mine = band.solve(cells, 5)
        theirs = generic.solve(cells, 5)
        assert mine[:2] == theirs[:2], line
        if mine[:2] == (native.DONE, 1):
            assert mine[2] == theirs[2]
        grids = np.frombuffer(mine[2], np.uint8).reshape(-1, 81)
        given = np.frombuffer(cells, np.uint8)[None].repeat(len(grids), 0)
        assert bulk_logic.verify_block(given, grids, G).all()
        nodes, guesses = mine[3], mine[4]
        assert nodes >= 1
        assert 0 <= guesses < nodes


def test_random_puzzles_as_the_generic_search() -> None:
    rng = random.Random(33)
    rows = []
    for _ in range(300):
        grid = random_grid(G, rng).cells
        keep = rng.randint(15, 45)
        chosen = set(rng.sample(range(81), keep))
        rows.append([v if i in chosen else 0 for i, v in enumerate(grid)])
    values = np.array(rows, np.uint8)
    for limit in (1, 2, 5):
        band, generic = _both(values, limit=limit, budget=100_000)
        _same(band, generic, values)
    assert (band.count == 5).any()
    assert (band.count == 1).any()
    # a wrong given in a solved grid: no solution, or clashing givens
    for row in rows[:100]:
        i = rng.randrange(81)
        row[i] = rng.randint(1, 9)
    wrong = np.array(rows[:100], np.uint8)
    band, generic = _both(wrong)
    _same(band, generic, wrong)


def test_clashing_givens_are_a_clash() -> None:
    clash = np.zeros((3, 81), np.uint8)
    clash[0, [0, 5]] = 4  # a row
    clash[1, [0, 45]] = 4  # a column
    clash[2, [0, 20]] = 4  # a box
    band, generic = _both(clash)
    _same(band, generic, clash)
    assert band.status.tolist() == [native.CLASH] * 3
    assert band.count.tolist() == [0, 0, 0]


def test_limits_on_the_band_solver() -> None:
    layout = native.layout(G)
    status, count, _, _nodes, _ = layout.solve(bytes(81), 10**9, 0.01)
    assert status == native.TIMEOUT
    assert 0 < count < 10**9
    hard = _lines(DATA / "forum_hardest_1106_60.txt")[:4]
    values, _ = bulk_logic.parse_block(hard, G)
    found = native.solve_block(values, G, budget=3)
    assert found.status.tolist() == [native.BUDGET] * 4
    assert (found.nodes <= 4).all()
    found = native.solve_block(np.zeros((2, 81), np.uint8), G, limit=10**9, time_limit=0.005)
    assert found.status.tolist() == [native.TIMEOUT] * 2
    status, count, *_ = layout.solve(bytes(81), 2, 1e-9)  # spent before the search began
    assert status == native.TIMEOUT
    assert count == 0


def test_allowed_masks_take_the_generic_search() -> None:
    line = _lines(DATA / "forum_hardest_1106_60.txt")[0]
    cells = bytes(0 if ch in ".0" else int(ch) for ch in line)
    _status, count, grid, *_ = native.layout(G).solve(cells, 2)
    assert count == 1
    masks = [0x1FF] * 81
    first_open = cells.index(0)
    masks[first_open] = 0x1FF & ~(1 << (grid[first_open] - 1))  # its own value forbidden
    allowed = np.array(masks, np.uint32).tobytes()
    mine = native.layout(G).solve(cells, 2, allowed=allowed)
    theirs = native.layout(G, band=False).solve(cells, 2, allowed=allowed)
    assert mine == theirs
    assert mine[1] == 0
