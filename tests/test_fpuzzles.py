"""f-puzzles' rules read as f-puzzles and the solver setters use with it apply them.

A misread rule is a wrong answer: these tests hold the reader to the meaning of each
key, on puzzles whose solution is known because their clues were read off a grid.
"""

from __future__ import annotations

import json
from pathlib import Path

import lzstring
import pytest
from conftest import DATA

from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import Negative
from cpsudoku.model.errors import RulesError
from cpsudoku.model.fpuzzles import from_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

SAMPLE = [json.loads(line) for line in (DATA / "variants_sample.jsonl").read_text().splitlines()]

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


# ---------------------------------------------------------------- every key, links


def _fpuzzles(size: int = 9, **rules: object) -> dict[str, object]:
    grid: list[list[dict[str, object]]] = [[{} for _ in range(size)] for _ in range(size)]
    grid[0][0] = {"value": 1, "given": True}
    return {"size": size, "grid": grid, "title": "t", "author": "a", **rules}


def test_an_fpuzzles_object_maps_every_rule_key() -> None:
    puzzle = from_fpuzzles(
        _fpuzzles(
            killercage=[{"cells": ["R1C2", "R1C3"], "value": "10"}, {"cells": ["R9C1"]}],
            littlekillersum=[{"cell": "R0C0", "direction": "DR", "value": "45"}],
            sandwichsum=[{"cell": "R0C5", "value": "20"}, {"cell": "R4C0", "value": "0"}],
            arrow=[{"cells": ["R5C5"], "lines": [["R5C5", "R5C6", "R5C7"]]}],
            thermometer=[{"lines": [["R2C2", "R3C2", "R4C2"]]}],
            whispers=[{"lines": [["R6C1", "R6C2"]]}],
            renban=[{"lines": [["R7C1", "R7C2", "R7C3"]]}],
            palindrome=[{"lines": [["R8C1", "R8C2", "R8C3"]]}],
            difference=[{"cells": ["R2C8", "R2C9"]}],
            ratio=[{"cells": ["R3C8", "R3C9"]}],
            xv=[{"cells": ["R4C8", "R4C9"], "value": "X"}],
            negative=["ratio", "xv"],
            even=[{"cell": "R9C9"}],
            odd=[{"cell": "R9C8"}],
            extraregion=[{"cells": ["R1C9", "R2C9", "R3C9"]}],
            antiknight=True,
            nonconsecutive=False,
            **{"diagonal+": True, "disjointgroups": False},
        )
    )
    spec = puzzle.rules.spec()
    kinds = [c["kind"] for c in spec["constraints"]]
    assert kinds.count("cage") == 2
    assert kinds.count("negative") == 3
    assert {"little-killer", "sandwich", "arrow", "thermometer", "whisper", "renban"} <= set(kinds)
    assert {"palindrome", "kropki-white", "kropki-black", "x", "even", "odd"} <= set(kinds)
    assert "anti-knight" in kinds
    assert "non-consecutive" not in kinds
    little = next(c for c in spec["constraints"] if c["kind"] == "little-killer")
    assert little["cells"] == [i * 9 + i for i in range(9)]  # from R0C0 down-right: r1c1..r9c9
    sandwiches = [c for c in spec["constraints"] if c["kind"] == "sandwich"]
    assert {"kind": "sandwich", "column": 5, "sum": 20} in sandwiches
    assert {"kind": "sandwich", "row": 4, "sum": 0} in sandwiches
    assert [r["kind"] for r in spec["extra"]] == ["anti-diagonal", "region"]
    assert puzzle.cells[0] == 1


def test_fpuzzles_irregular_regions_make_a_jigsaw() -> None:
    row = next(r for r in SAMPLE if r["family"] == "jigsaw")
    regions = row["rules"]["regions"]
    obj = _fpuzzles()
    for k, region in enumerate(regions):
        for i in region:
            obj["grid"][i // 9][i % 9]["region"] = k  # type: ignore[index]
    assert from_fpuzzles(obj).rules.regions == tuple(tuple(r) for r in regions)


def test_an_fpuzzles_share_link_is_read(tmp_path: Path) -> None:
    obj = _fpuzzles(killercage=[{"cells": ["R1C1", "R2C1"], "value": "9"}])
    link = "https://f-puzzles.com/?load=" + lzstring.LZString().compressToBase64(json.dumps(obj))
    puzzle = parse(link)
    assert puzzle.rules.spec()["constraints"] == [{"kind": "cage", "cells": [0, 9], "sum": 9}]
    # A link as f-puzzles writes it (two killer cages, no givens).
    real = (
        "https://www.f-puzzles.com/?load=N4IgzglgXgpiBcBOANCA5gJwgEwQbT2AF9ljSSzKLryBdZQmq8l54"
        "+x1p7rjtn/nQaCR3PgIm9hk0UM6zR4rssX0QAawgAbLTAwBjAIZo48QiH0wdYfCABKARgDCDkKjsAmFyDUA"
        "3Q1oArqYgiCAUFlZaNmb2zh5ucU4AzImeTgnuXqnuyRk+qP5BIcmpRGqG+gAuEL4wTgD2AHZgVRiGEE1VMX"
        "ggANLauhgABE7GcLREQA="
    )
    cages = parse(real).rules.spec()["constraints"]
    assert [(len(c["cells"]), c["sum"]) for c in cages] == [(2, 9), (5, 33)]
    path = tmp_path / "link.txt"
    path.write_text(link)
    assert main(["solve", str(path), "--backend", "sat"]) == 0


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"sudoku": [{"cells": ["R1C1"]}]}, "'sudoku' is a rule"),
        ({"killercage": [{"cells": ["R1C1", "R1C2"], "value": "?"}]}, "is no number"),
        ({"xv": [{"cells": ["R1C1", "R1C2"], "value": "Z"}]}, "not X or V"),
        ({"negative": ["sum"]}, "negative 'sum'"),
        ({"killercage": [{"cells": ["R1C1", "R1C2"], "value": "99"}]}, "cannot add up"),
    ],
)
def test_fpuzzles_rules_cpsudoku_lacks_are_refused_by_name(
    rules: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        from_fpuzzles(_fpuzzles(**rules))


# -------------------------------------------- the command line: notes, filled digits


def _obj_with_solution() -> dict[str, object]:
    """The dotted kropki puzzle with its solution stored, a filled digit and a drawing."""
    obj = {**_dotted(), "nonconsecutive": True, "negative": ["ratio"]}
    obj["solution"] = [int(ch) for ch in GRID]
    obj["grid"][4][4] = {"value": int(GRID[40])}  # type: ignore[index]  # not given
    obj["text"] = [{"cells": ["R1C1"], "value": "?"}]
    obj["line"] = [{"lines": [["R1C1", "R1C2"]], "fromConstraint": "Renban"}]  # a copy
    obj["title"] = "Dots"
    return obj


def test_solve_reads_notes_filled_digits_and_checks_the_stored_solution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.json"
    obj = _obj_with_solution()
    path.write_text(json.dumps(obj))
    assert main(["solve", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "unique" in out
    assert "read past drawings" in err
    assert "text" in err
    assert "line" not in err.split("drawings", 1)[1].split(";")[0]  # the copy is no drawing
    assert "1 filled digit" in err
    assert "stored solution" not in err  # it is the answer
    obj["solution"] = [int(ch) for ch in GRID[:-2]] + [int(GRID[-1]), int(GRID[-2])]
    path.write_text(json.dumps(obj))
    assert main(["solve", str(path)]) == 0
    assert "stored solution differs from the answer at r9c8, r9c9" in capsys.readouterr().err


def test_include_filled_keeps_filled_digits_as_givens(capsys: pytest.CaptureFixture[str]) -> None:
    obj = _obj_with_solution()
    text = json.dumps(obj)
    assert main(["show", text, "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["puzzle"][40] == "."
    assert main(["show", text, "--json", "--include-filled"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["puzzle"][40] == GRID[40]


def test_show_lists_every_rule_and_export_reads_back(capsys: pytest.CaptureFixture[str]) -> None:
    obj = _obj_with_solution()
    text = json.dumps(obj)
    assert main(["show", text]) == 0
    out = capsys.readouterr().out
    assert "title: Dots" in out
    assert out.count("  - kropki-white") == len(obj["difference"])  # type: ignore[arg-type]
    assert "json: " in out
    assert main(["export", text, "--to", "fpuzzles-link"]) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith("https://www.f-puzzles.com/?load=")
    assert parse(link).rules == from_fpuzzles_quiet(obj).rules
    assert main(["export", link, "--to", "fpuzzles"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["nonconsecutive"] is True
    assert back["negative"] == ["ratio"]
    assert back["title"] == "Dots"


def from_fpuzzles_quiet(obj: dict[str, object]) -> Puzzle:
    from cpsudoku.model.fpuzzles import read_fpuzzles

    return read_fpuzzles(obj).puzzle
