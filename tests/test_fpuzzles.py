"""f-puzzles' rules read as f-puzzles and the solver setters use with it apply them.

A misread rule is a wrong answer: these tests hold the reader to the meaning of each
key, on puzzles whose solution is known because their clues were read off a grid.
"""

from __future__ import annotations

import json

import pytest

from cpsudoku import Status
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import Negative
from cpsudoku.model.fpuzzles import from_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

#: A complete 9x9 grid the clues below are read off.
GRID = "483921657967345821251876493548132976729564138136798245372689514814253769695417382"
ENGINES = ["sat", "cpsat", "backtrack"]


def _pairs(n: int = 9) -> list[tuple[int, int]]:
    """Orthogonal neighbours, each pair once."""
    out = []
    for i in range(n * n):
        r, c = divmod(i, n)
        if c + 1 < n:
            out.append((i, i + 1))
        if r + 1 < n:
            out.append((i, i + n))
    return out


def _name(i: int, n: int = 9) -> str:
    return f"R{i // n + 1}C{i % n + 1}"


def _dotted(grid: str = GRID) -> dict[str, object]:
    """Every kropki dot of ``grid``, one per pair as a setter draws it (1-2: black)."""
    v = [int(ch) for ch in grid]
    white, black = [], []
    for a, b in _pairs():
        x, y = v[a], v[b]
        cells = [_name(a), _name(b)]
        if x == 2 * y or y == 2 * x:
            black.append({"cells": cells})
        elif abs(x - y) == 1:
            white.append({"cells": cells})
    return {
        "size": 9,
        "grid": [[{} for _ in range(9)] for _ in range(9)],
        "difference": white,
        "ratio": black,
    }


def test_nonconsecutive_with_white_dots_is_the_white_dots_negative() -> None:
    # The regression: read as a grid-wide rule beside its own white dots, this puzzle
    # contradicted itself and every engine said "unsolvable".
    puzzle = from_fpuzzles({**_dotted(), "nonconsecutive": True, "negative": ["ratio"]})
    negatives = [c for c in puzzle.rules.constraints if isinstance(c, Negative)]
    assert {n.mark for n in negatives} == {"kropki-white", "kropki-black"}
    assert all(n.exempt == ("kropki-black", "kropki-white") for n in negatives)
    assert "non-consecutive" not in {c.kind for c in puzzle.rules.constraints}
    for spec in ENGINES:
        with create_backend(spec) as engine:
            result = engine.solve(puzzle, time_limit=60)
        assert result.status is Status.UNIQUE, spec
        assert str(result.solution) == GRID, spec


def test_a_black_dot_exempts_its_pair_from_nonconsecutive() -> None:
    # GRID's 1-2 pairs carry a black dot only, as in f-puzzles; under the rule that
    # exempts only white dots from the white negative, those pairs break it.
    puzzle = from_fpuzzles({**_dotted(), "nonconsecutive": True, "negative": ["ratio"]})
    strict = Rules.from_spec(
        {
            **puzzle.rules.spec(),
            "constraints": [
                c.spec() if not isinstance(c, Negative) else {"kind": "negative", "of": c.mark}
                for c in puzzle.rules.constraints
            ],
        }
    )
    with create_backend("sat") as engine:
        assert engine.count(Puzzle(strict, puzzle.cells), limit=2).count == 0
        assert engine.count(puzzle, limit=2).count == 1


def test_an_xv_mark_exempts_no_pair_from_nonconsecutive() -> None:
    # A 2-3 pair carries a V in place of its white dot: f-puzzles keeps the pair
    # non-consecutive, so the grid breaks the rules (a V exempting it would not).
    v = [int(ch) for ch in GRID]
    a, b = next((a, b) for a, b in _pairs() if {v[a], v[b]} == {2, 3})
    obj = _dotted()
    cells = [_name(a), _name(b)]
    obj["difference"] = [d for d in obj["difference"] if d["cells"] != cells]  # type: ignore[attr-defined]
    obj.update(nonconsecutive=True, xv=[{"cells": cells, "value": "V"}])
    puzzle = from_fpuzzles(obj)
    givens = tuple(int(ch) for ch in GRID)
    with create_backend("sat") as engine:
        assert engine.count(Puzzle(puzzle.rules, givens), limit=1).count == 0


def test_negative_ratio_without_dots_forbids_ratio_two() -> None:
    puzzle = from_fpuzzles(
        {"size": 4, "grid": [[{} for _ in range(4)] for _ in range(4)], "negative": ["ratio"]}
    )
    (rule,) = puzzle.rules.constraints
    assert isinstance(rule, Negative)
    assert rule.values == (2,)
    assert rule.clash(2, 4)
    assert rule.clash(1, 2)
    assert not rule.clash(1, 3)


def test_negative_xv_forbids_both_sums_and_kropki_dots_exempt_nothing() -> None:
    obj = {
        "size": 4,
        "grid": [[{} for _ in range(4)] for _ in range(4)],
        "negative": ["xv"],
        "difference": [{"cells": ["R1C1", "R1C2"]}],
    }
    rules = from_fpuzzles(obj).rules
    negatives = [c for c in rules.constraints if isinstance(c, Negative)]
    assert {n.mark for n in negatives} == {"x", "v"}
    assert all((0, 1) in n.pairs for n in negatives)  # the white dot's pair is not exempt


def test_a_solve_of_contradicting_rules_says_so_and_prints_the_rules(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {
        "rules": {
            "size": 9,
            "box": "3x3",
            "constraints": [
                {"kind": "non-consecutive"},
                {"kind": "kropki-white", "cells": ["r1c1", "r1c2"]},
            ],
        },
        "puzzle": "." * 81,
    }
    assert main(["solve", json.dumps(spec)]) == 1
    out = capsys.readouterr().out
    assert "rules: " in out
    assert "kropki-white" in out
    assert "the rules contradict each other" in out
    # Givens that clash with the rules, not rules that clash with each other: as before.
    spec["rules"]["constraints"] = [{"kind": "kropki-white", "cells": ["r1c1", "r1c2"]}]
    spec["puzzle"] = "15" + "." * 79
    assert main(["solve", json.dumps(spec)]) == 1
    out = capsys.readouterr().out
    assert "rules: " in out
    assert "unsolvable: the puzzle has no solution" in out
