"""True candidates with their solution counts up to a cap, and the candidate cache."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpsudoku
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.evidence.candidates import CandidateCache, true_candidates
from cpsudoku.model.constraints import Cage, Thermometer
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules, diagonal

ORACLE = create_backend("backtrack")


def _brute_counts(p: Puzzle, cap: int) -> list[int]:
    """Each candidate's number of solutions (up to ``cap``), counted by the oracle.

    The puzzle with the value placed, every solution counted (no cap), then capped
    here: a count the solver under test did not stop at ``cap`` for.
    """
    n = p.n
    out = [0] * (len(p.cells) * n)
    whole = ORACLE.count(p, limit=10**6).count
    for i, v in enumerate(p.cells):
        if v:
            out[i * n + v - 1] = min(whole, cap) if cap else whole
            continue
        for d in range(1, n + 1):
            cells = list(p.cells)
            cells[i] = d
            q = Puzzle(p.rules, tuple(cells))
            if q.conflicts():
                continue
            c = ORACLE.count(q, limit=10**6).count
            out[i * n + d - 1] = min(c, cap) if cap else c
    return out


def _blanked(rules: Rules, seed: int, blanks: int) -> Puzzle:
    """A valid grid of ``rules`` with ``blanks`` random cells emptied."""
    grid = cpsudoku.generate_grid(rules, seed=seed)
    cells = list(grid.cells)
    for i in random.Random(seed).sample(range(len(cells)), blanks):
        cells[i] = 0
    return Puzzle(grid.rules, tuple(cells))


def _few_nine() -> Puzzle:
    """A 9x9 puzzle with a few solutions (between 3 and 60)."""
    for seed in range(200):
        p = _blanked(Rules.classic(3, 3), seed, 52)
        c = ORACLE.count(p, limit=61).count
        if 3 <= c <= 60:
            return p
    raise AssertionError("no 9x9 with a few solutions among the seeds")


@pytest.mark.parametrize(
    ("rules", "blanks", "cap"),
    [
        (Rules.classic(2, 2), 16, 1),
        (Rules.classic(2, 2), 16, 5),
        (Rules.classic(2, 2), 12, 3),
        (Rules.classic(2, 2), 16, 0),
        (Rules.classic(2, 3), 22, 4),
        (Rules.classic(2, 3), 26, 8),
        (Rules.classic(2, 3).with_constraints(Cage((0, 1, 6), 6)), 24, 6),
    ],
)
def test_counts_match_brute_force(rules: Rules, blanks: int, cap: int) -> None:
    for seed in range(3):
        p = _blanked(rules, seed, blanks)
        want = _brute_counts(p, cap)
        for backend in ("sat", "backtrack"):
            found = true_candidates(p, backend=backend, cap=cap)
            assert found.complete
            assert found.cap == cap
            assert list(found.counts) == want, (backend, str(p))
            for i in range(len(p.cells)):  # masks keep meaning "true candidates"
                assert set(found.values(i)) == {
                    d for d in range(1, p.n + 1) if want[i * p.n + d - 1]
                }


def test_counts_on_a_9x9_with_a_few_solutions() -> None:
    p = _few_nine()
    total = ORACLE.count(p, limit=100).count
    for cap in (1, 2, 8, 0):
        want = _brute_counts(p, cap)
        found = true_candidates(p, cap=cap)
        assert list(found.counts) == want
        if cap != 1:
            # Each open cell's counts add up to the number of solutions (capped).
            n = p.n
            for i, v in enumerate(p.cells):
                if not v and cap == 0:
                    assert sum(found.counts[i * n : i * n + n]) == total


def test_cap_is_respected_and_one_counts_each_true_candidate_once() -> None:
    blank = Puzzle(Rules.classic(2, 2), (0,) * 16)  # 288 solutions, 72 per value per cell
    assert set(true_candidates(blank, cap=1).counts) == {1}
    assert set(true_candidates(blank, cap=7).counts) == {7}
    assert set(true_candidates(blank, cap=0).counts) == {72}
    found = true_candidates(blank, cap=7)
    assert found.count(0, 3) == 7
    assert "7+" in found.count_grid()


def test_unsolvable_counts_all_zero() -> None:
    # No clash among the givens, and no solution: r1c3 and r1c4 need 3 and 4, and the
    # 3 of box 2 is in row 2.
    p = cpsudoku.parse("12....3....3....")
    assert ORACLE.count(p, limit=2).count == 0
    for backend in ("sat", "backtrack"):
        for cap in (1, 4):
            found = true_candidates(p, cap=cap, backend=backend)
            assert found.complete
            assert not found.solvable
            assert set(found.counts) == {0}
            assert set(found.masks) == {0}


def test_bad_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        true_candidates("." * 16, cap=-1)
    with pytest.raises(ValueError, match="possible"):
        true_candidates("." * 16, possible=[15] * 3)


def test_a_time_limit_leaves_lower_bounds_and_is_not_cached() -> None:
    p = Puzzle(Rules.classic(3, 3), (0,) * 81)
    cache = CandidateCache()
    found = cache.get(p, cap=50, time_limit=0.05)
    assert not found.complete
    assert all(c <= 50 for c in found.counts)
    assert len(cache) == 0


def test_cache_hit_returns_the_same_answer() -> None:
    cache = CandidateCache(maxsize=2)
    p = _blanked(Rules.classic(2, 3), 1, 24)
    first = cache.get(p, cap=3)
    again = cache.get(str(p), cap=3)
    assert not first.cached
    assert again.cached
    assert again.counts == first.counts
    assert again.masks == first.masks
    assert again.calls == 0
    assert cache.hits == 1
    assert cache.misses == 1
    # Another cap or backend is another answer; the oldest is dropped past maxsize.
    assert not cache.get(p, cap=2).cached
    assert not cache.get(p, cap=3, backend="backtrack").cached
    assert len(cache) == 2
    assert not cache.get(p, cap=3).cached
    with pytest.raises(ValueError, match="maxsize"):
        CandidateCache(maxsize=0)


def _extended(p: Puzzle, rnd: random.Random) -> Puzzle:
    """``p`` with a random given, cage, thermometer or diagonal added (its rules kept)."""
    n = p.n
    rules = p.rules
    cells = list(p.cells)
    choice = rnd.randrange(4)
    if choice == 0:
        open_cells = [i for i, v in enumerate(cells) if not v]
        if open_cells:
            cells[rnd.choice(open_cells)] = rnd.randint(1, n)
    elif choice == 1:
        a = rnd.randrange(n * n - 1)
        rules = rules.with_constraints(Cage((a, a + 1), rnd.randint(3, 2 * n - 1)))
    elif choice == 2:
        a = rnd.randrange(n * (n - 1))
        rules = rules.with_constraints(Thermometer(n, (a, a + n)))
    elif not rules.extra:
        rules = rules.with_extra(diagonal(n))
    q = Puzzle(rules, tuple(cells))
    return p if q.conflicts() else q


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from([1, 3]))
def test_reuse_of_an_inherited_answer_gives_a_fresh_answer(rnd: random.Random, cap: int) -> None:
    rules = rnd.choice([Rules.classic(2, 2), Rules.classic(2, 3)])
    p = _blanked(rules, rnd.randrange(1000), rules.cells - rnd.randint(0, 6))
    cache = CandidateCache()
    cache.get(p, cap=cap)
    for _ in range(3):
        q = _extended(p, rnd)
        got = cache.get(q, cap=cap)
        fresh = true_candidates(q, cap=cap)
        assert got.counts == fresh.counts
        assert got.masks == fresh.masks
        p = q
    assert cache.reused >= 1


def test_reuse_skips_what_the_inherited_answer_ruled_out() -> None:
    p = _blanked(Rules.classic(3, 3), 3, 45)
    cache = CandidateCache()
    cache.get(p)
    cells = list(p.cells)
    i = cells.index(0)
    cells[i] = true_candidates(p).values(i)[0]
    q = Puzzle(p.rules, tuple(cells))
    reused = cache.get(q)
    assert cache.reused == 1
    fresh = true_candidates(q)
    assert reused.masks == fresh.masks
    assert reused.calls <= fresh.calls
    # Not inherited: a given taken away, or another grid.
    cells[cells.index(next(v for v in p.cells if v))] = 0
    cache.get(Puzzle(p.rules, tuple(cells)))
    assert cache.reused == 1


def test_cli_candidates_cap(capsys: pytest.CaptureFixture[str]) -> None:
    p = _blanked(Rules.classic(2, 2), 2, 12)
    want = _brute_counts(p, 4)
    assert main(["candidates", str(p), "--cap", "4", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["counts"] == want
    assert record["cap"] == 4
    assert main(["candidates", str(p), "--cap", "4"]) == 0
    out = capsys.readouterr().out
    assert "solutions holding each candidate (up to 4" in out
    assert main(["candidates", str(p), "--cap", "-2"]) == 2
    assert "--cap must be 0" in capsys.readouterr().err
    assert main(["candidates", str(p), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["cap"] == 1
    assert set(record["counts"]) <= {0, 1}


def test_a_complete_grid_counts_one_solution() -> None:
    grid = cpsudoku.parse("1234341221434321")
    for cap in (1, 3, 0):
        for backend in ("sat", "backtrack"):
            found = true_candidates(grid, cap=cap, backend=backend)
            assert found.unique
            assert [found.count(i, v) for i, v in enumerate(grid.cells)] == [1] * 16
            assert sum(found.counts) == 16
