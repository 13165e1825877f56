"""The Monte-Carlo solution-count estimate (Knuth's probes) and its command."""

from __future__ import annotations

import json
import random

import pytest

import cpsudoku
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.evidence.estimate import Estimate, estimate, estimates
from cpsudoku.model.constraints import Cage
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

ORACLE = create_backend("backtrack")
BLANK4 = Puzzle(Rules.classic(2, 2), (0,) * 16)  # 288 solutions
UNSOLVABLE = "12....3....3...."  # r1c3 and r1c4 need 3 and 4; box 2's 3 is in row 2


def _blanked(rules: Rules, seed: int, blanks: int) -> Puzzle:
    grid = cpsudoku.generate_grid(rules, seed=seed)
    cells = list(grid.cells)
    for i in random.Random(seed).sample(range(len(cells)), blanks):
        cells[i] = 0
    return Puzzle(grid.rules, tuple(cells))


def _nine_with_dozens() -> tuple[Puzzle, int]:
    """A 9x9 puzzle with a few dozen solutions (12 to 99), and its count."""
    for seed in range(300):
        p = _blanked(Rules.classic(3, 3), seed, 56)
        c = ORACLE.count(p, limit=100).count
        if 12 <= c <= 99:
            return p, c
    raise AssertionError("no 9x9 with a few dozen solutions among the seeds")


def _holds(e: Estimate, count: int) -> bool:
    return e.ci95_lower <= count <= e.ci95_upper


def test_the_interval_of_a_blank_4x4_holds_288() -> None:
    e = estimate(BLANK4, seed=3, iterations=1500, exact=False)
    assert e.iterations == 1500
    assert _holds(e, 288), e
    assert e.stderr > 0
    assert e.rel_err_percent == pytest.approx(100 * e.stderr / e.estimate)
    assert e.ci95_upper - e.estimate == pytest.approx(1.959963984540054 * e.stderr)


def test_the_interval_of_a_9x9_with_dozens_holds_its_count() -> None:
    p, count = _nine_with_dozens()
    assert cpsudoku.count(p, limit=1000) == count
    e = estimate(p, seed=5, iterations=1500, exact=False)
    assert _holds(e, count), (e, count)


def test_the_interval_of_a_killer_holds_its_count() -> None:
    rules = Rules.classic(2, 2).with_constraints(Cage((0, 1, 4), 7), Cage((14, 15), 5))
    p = Puzzle(rules, (0,) * 16)
    count = ORACLE.count(p, limit=10**6).count
    e = estimate(p, seed=11, iterations=1500, exact=False)
    assert _holds(e, count), (e, count)


def test_a_unique_puzzle_estimates_exactly_one() -> None:
    p = _blanked(Rules.classic(3, 3), 0, 30)
    assert cpsudoku.count(p) == 1
    (e,) = estimates(p, seed=1, iterations=100)
    assert (e.estimate, e.stderr, e.iterations, e.exact) == (1.0, 0.0, 0, True)
    assert (e.ci95_lower, e.ci95_upper) == (1.0, 1.0)
    # Without the exact count first: the probes of a puzzle singles solve are all 1.
    e = estimate(p, seed=1, iterations=50, exact=False)
    assert (e.estimate, e.stderr, e.iterations) == (1.0, 0.0, 50)


def test_an_unsolvable_puzzle_estimates_zero() -> None:
    for exact in (True, False):
        e = estimate(UNSOLVABLE, seed=1, iterations=20, exact=exact)
        assert (e.estimate, e.stderr, e.ci95_lower, e.ci95_upper) == (0.0, 0.0, 0.0, 0.0)
        assert e.rel_err_percent == 0.0


def test_estimates_improve_as_they_stream() -> None:
    seen = list(estimates(BLANK4, seed=2, iterations=40, exact=False, every=0.0))
    assert [e.iterations for e in seen] == list(range(1, 41))
    assert seen[-1] == estimate(BLANK4, seed=2, iterations=40, exact=False)  # seeded
    # Without a limit it goes on until the caller stops.
    endless = estimates(BLANK4, seed=2, exact=False, every=0.0)
    assert [next(endless).iterations for _ in range(5)] == [1, 2, 3, 4, 5]
    endless.close()


def test_to_dict_has_sudokusolvers_fields() -> None:
    e = estimate(BLANK4, seed=1, iterations=30, exact=False)
    d = e.to_dict()
    assert list(d) == [
        "estimate",
        "stderr",
        "iterations",
        "ci95_lower",
        "ci95_upper",
        "relErrPercent",
    ]
    assert d["relErrPercent"] == e.rel_err_percent
    json.dumps(d)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="iterations"):
        estimate(BLANK4, iterations=0)
    with pytest.raises(ValueError, match="time limit or a number"):
        estimate(BLANK4)
    with pytest.raises(ValueError, match="time_limit"):
        next(estimates(BLANK4, time_limit=-1))


def test_cli_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", str(BLANK4), "--iterations", "300", "--seed", "1"]
    assert main([*args, "--json"]) == 0  # at most 1000 solutions: counted
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "estimate": 288.0,
        "stderr": 0.0,
        "iterations": 0,
        "ci95_lower": 288.0,
        "ci95_upper": 288.0,
        "relErrPercent": 0.0,
    }
    assert json.loads(err.splitlines()[-1])["estimate"] == 288.0
    assert main(["estimate", "." * 81, "--time-limit", "0.3", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("about ")
    assert "95% interval" in out
    assert err.splitlines()[-1] == out.strip()
    assert main(["estimate", "." * 81, "--iterations", "5", "--quiet", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["iterations"] == 5
    assert err == ""
    assert main(["estimate", UNSOLVABLE]) == 1
    assert "exactly 0 solutions" in capsys.readouterr().out
    assert main(["estimate", str(BLANK4), "--iterations", "0"]) == 2
    assert "--iterations must be 1 or more" in capsys.readouterr().err
    assert main(["estimate", "11" + "." * 14]) == 2  # clashing givens: named, no traceback
    assert "Traceback" not in capsys.readouterr().err
