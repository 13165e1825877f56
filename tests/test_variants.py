"""Variant puzzles end to end: generated sets on every engine, f-puzzles import, and
pencilmark's exchange format read and written, checked against pencilmark itself."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import lzstring
import pytest
from conftest import DATA

from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend, native_built
from cpsudoku.generate.variants import FAMILIES, generate_variant
from cpsudoku.model.errors import RulesError
from cpsudoku.model.exchange import from_exchange, to_exchange
from cpsudoku.model.fpuzzles import from_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.verify import solution_problems

SAMPLE = [json.loads(line) for line in (DATA / "variants_sample.jsonl").read_text().splitlines()]
ENGINES = ["sat", "cpsat", "cpsat:sample", "backtrack", *(["native"] if native_built() else [])]


def _family(row: dict[str, object]) -> str:
    return str(row["family"])


@pytest.mark.parametrize("row", SAMPLE, ids=_family)
def test_every_engine_finds_the_generated_solution(row: dict[str, str]) -> None:
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    answered = 0
    for spec in ENGINES:
        with create_backend(spec) as engine:
            if type(engine).refusal(puzzle.rules):
                assert spec == "native", spec  # the general engines take every rule
                continue
            result = engine.solve(puzzle, time_limit=60)
            assert result.status is Status.UNIQUE, (spec, result.error)
            assert str(result.solution) == row["solution"], spec
            answered += 1
    assert answered >= 3


def test_the_sample_covers_every_family() -> None:
    assert {row["family"] for row in SAMPLE} == set(FAMILIES)


@pytest.mark.parametrize("family", ["jigsaw", "kropki", "sandwich"])
def test_generated_puzzles_are_unique_minimal_and_reproducible(family: str) -> None:
    # Reproducible when no uniqueness check meets its time limit: a generous one, so a
    # busy machine does not turn a quick check into a kept clue (none comes near 0.25 s).
    made = generate_variant(family, seed=5, check_limit=10.0)
    assert made.puzzle == generate_variant(family, seed=5, check_limit=10.0).puzzle
    assert solution_problems(made.puzzle, made.solution) == []
    with create_backend("sat") as engine:
        assert engine.count(made.puzzle, limit=2).count == 1
        clues = [i for i, v in enumerate(made.puzzle.cells) if v]
        for i in clues[:5]:  # each clue is needed (checks were quick at this size)
            cells = list(made.puzzle.cells)
            cells[i] = 0
            assert engine.count(Puzzle(made.puzzle.rules, tuple(cells)), limit=2).count == 2


# ---------------------------------------------------------------------------- f-puzzles


def _fpuzzles(size: int = 9, **rules: object) -> dict[str, object]:
    grid: list[list[dict[str, object]]] = [[{} for _ in range(size)] for _ in range(size)]
    grid[0][0] = {"value": 1, "given": True}
    grid[8][8] = {"value": 5, "given": False}  # a solver's entry, not a given
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
    assert puzzle.cells[80] == 0


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
        ({"betweenline": [{"lines": [["R1C1", "R1C3"]]}]}, "'betweenline' is a rule"),
        ({"text": [{"cells": ["R1C1"], "value": "?"}]}, "'text' is a rule"),
        ({"difference": [{"cells": ["R1C1", "R1C2"], "value": "3"}]}, "value '3'"),
        ({"negative": ["sum"]}, "negative 'sum'"),
        ({"killercage": [{"cells": ["R1C1", "R1C2"], "value": "99"}]}, "cannot add up"),
    ],
)
def test_fpuzzles_rules_cpsudoku_lacks_are_refused_by_name(
    rules: dict[str, object], message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        from_fpuzzles(_fpuzzles(**rules))


# ---------------------------------------------------------------------- exchange format


@pytest.mark.parametrize("row", SAMPLE, ids=_family)
def test_the_exchange_format_round_trips(row: dict[str, str]) -> None:
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    doc = json.loads(json.dumps(to_exchange(puzzle)))
    back = from_exchange(doc)
    assert back.cells == puzzle.cells
    assert sorted(map(json.dumps, back.rules.spec().get("constraints", []))) == sorted(
        map(json.dumps, puzzle.rules.spec().get("constraints", []))
    )
    assert sorted(map(sorted, back.rules.unit_cells)) == sorted(
        map(sorted, puzzle.rules.unit_cells)
    )


@pytest.mark.parametrize("row", SAMPLE, ids=_family)
def test_pencilmark_solves_what_cpsudoku_writes_and_the_reverse(row: dict[str, str]) -> None:
    pencilmark = pytest.importorskip("pencilmark")
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    ours = to_exchange(puzzle)
    pencilmark.exchange.validate(ours)
    digits = pencilmark.solve(ours)
    assert "".join(map(str, digits)) == row["solution"]
    # pencilmark writes its own document of the puzzle; cpsudoku reads and solves it.
    theirs = pencilmark.to_export(pencilmark.load(ours), with_solution=False, describe=False)
    with create_backend("sat") as engine:
        result = engine.solve(parse(json.dumps(theirs)))
    assert result.status is Status.UNIQUE
    assert str(result.solution) == row["solution"]


def test_exchange_rules_cpsudoku_lacks_are_refused_by_name() -> None:
    row = SAMPLE[0]
    doc = to_exchange(parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]})))
    doc["rules"].append({"type": "line", "kind": "zipper", "cells": ["r1c1", "r1c2"]})
    with pytest.raises(RulesError, match=r"rule \d+ \(line zipper\) is not a rule cpsudoku takes"):
        from_exchange(doc)


def test_a_batch_of_jigsaw_and_x_puzzles_goes_through_the_bulk_passes(tmp_path: Path) -> None:
    rows = [r for r in SAMPLE if r["family"] in ("jigsaw", "x", "windoku")]
    src = tmp_path / "regions.jsonl"
    src.write_text(
        "".join(json.dumps({k: r[k] for k in ("rules", "puzzle", "solution")}) + "\n" for r in rows)
    )
    for backend in ("backtrack", "sat"):
        out = tmp_path / f"{backend}.csv"
        assert main(["batch", str(src), "-o", str(out), "--quiet", "--backend", backend]) == 0
        with out.open(newline="") as fh:
            got = list(csv.DictReader(fh))
        assert [g["solution"] for g in got] == [r["solution"] for r in rows]
        assert {g["status"] for g in got} == {"unique"}


def test_certificates_cover_the_lines_the_dots_and_the_sums(tmp_path: Path) -> None:
    from cpsudoku import certify, check_certificate

    for row in SAMPLE:
        puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
        folder = tmp_path / row["family"]
        if row["family"] in ("little-killer", "arrow", "sandwich"):
            cert = certify(puzzle, folder)
            assert cert.checked, row["family"]
            assert str(cert.solution) == row["solution"]
            report = check_certificate(folder)
            assert report.ok, (row["family"], report.reasons)
            assert "true under their declared meanings" in report.passed[2]
        elif row["family"] in ("thermometer", "kropki", "xv", "x", "jigsaw"):
            certify(puzzle, folder)
            assert check_certificate(folder).ok, row["family"]


@pytest.mark.parametrize("row", SAMPLE, ids=_family)
def test_solve_and_export_work_on_every_family_from_the_command_line(
    row: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The text output draws the grid (a jigsaw's region borders, which has no boxes);
    # the DIMACS export holds exactly the puzzle's one solution.
    from pysat.solvers import Solver

    text = json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]})
    assert main(["solve", text]) == 0
    out = capsys.readouterr().out
    assert "unique: the only solution" in out
    solution = parse(json.dumps({"rules": row["rules"], "puzzle": row["solution"]}))
    drawing = out.split("\n\n")[0].splitlines()
    if not solution.rules.is_classic:  # the rules applied, named first
        assert drawing.pop(0).startswith("rules: ")
    assert "".join(s for line in drawing for s in line if s.isalnum()) == str(solution)
    cnf = tmp_path / "puzzle.cnf"
    assert main(["export", "--to", "dimacs", text, "-o", str(cnf)]) == 0
    lines = cnf.read_text().splitlines()
    assert json.loads(lines[1].removeprefix("c rules: ")) == solution.rules.spec()
    clauses = [[int(x) for x in line.split()[:-1]] for line in lines if line[:1] not in "cp"]
    n = solution.n
    with Solver("cadical153", bootstrap_with=clauses) as sat:
        assert sat.solve()
        model = [v for v in sat.get_model() if 0 < v <= n**3]
        assert tuple((v - 1) % n + 1 for v in sorted(model)) == solution.cells
        sat.add_clause([-v for v in model])
        assert not sat.solve()  # the only one
    assert main(["export", "--to", "cpsat", text, "-o", str(tmp_path / "puzzle.pb")]) == 0


@pytest.mark.parametrize("row", SAMPLE, ids=_family)
def test_the_rater_rates_regions_and_refuses_other_rules_by_name(
    row: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    # The rater's techniques know no-repeat regions only: on a killer they would see
    # many solutions and call a proper puzzle "multiple". It refuses such rules.
    from cpsudoku.model.errors import UnsupportedRulesError
    from cpsudoku.rating import rate

    text = json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]})
    puzzle = parse(text)
    if not puzzle.rules.constraints:
        rating = rate(puzzle)
        assert rating.status is Status.UNIQUE or rating.status is Status.TIMEOUT
        if rating.solution is not None:
            assert str(rating.solution) == row["solution"]
        return
    with pytest.raises(UnsupportedRulesError, match="cannot rate"):
        rate(puzzle)
    assert main(["rate", text]) == 6  # refused: not invalid input
    assert "cannot rate" in capsys.readouterr().err


@pytest.mark.skipif(not native_built(), reason="the compiled engine is the one that refuses")
def test_a_batch_on_an_engine_that_lacks_a_rule_marks_those_rows_and_goes_on(
    tmp_path: Path,
) -> None:
    # The compiled engine takes cages and regions but no thermometer: those rows are
    # refused, saying why, in their place; the others are solved.
    rows = [r for r in SAMPLE if r["family"] in ("killer", "thermometer", "jigsaw")]
    src = tmp_path / "mixed.jsonl"
    src.write_text(
        "".join(json.dumps({k: r[k] for k in ("rules", "puzzle", "solution")}) + "\n" for r in rows)
    )
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--backend", "native"]) == 6
    with out.open(newline="") as fh:
        got = list(csv.DictReader(fh))
    assert len(got) == len(rows)
    for row, result in zip(rows, got, strict=True):
        if row["family"] == "thermometer":
            assert result["status"] == "refused"
            assert "engine 'native' cannot take thermometer" in result["error"]
        else:
            assert (result["status"], result["solution"]) == ("unique", row["solution"])
