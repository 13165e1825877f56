"""Variant puzzles end to end: generated sets on every engine, f-puzzles import, and
pencilmark's exchange format read and written, checked against pencilmark itself."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import DATA

from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import create_backend, native_built
from cpsudoku.generate.variants import FAMILIES, generate_variant
from cpsudoku.model.errors import RulesError
from cpsudoku.model.exchange import from_exchange, to_exchange
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
    # The compiled engine takes every rule, but not an arrow whose circle reads as an
    # 11-digit number (a weight beyond 2**31): those rows are refused, saying why, in
    # their place; the others are solved.
    rows = [dict(r) for r in SAMPLE if r["family"] in ("killer", "thermometer", "jigsaw")]
    arrow = {"kind": "arrow", "circle": list(range(11)), "cells": [80]}
    for row in rows:
        if row["family"] == "thermometer":
            rules = dict(row["rules"])
            rules["constraints"] = [*rules["constraints"], arrow]
            row["rules"] = rules
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
            assert "engine 'native' cannot take arrow constraints" in result["error"]
            assert "beyond 2**31" in result["error"]
        else:
            assert (result["status"], result["solution"]) == ("unique", row["solution"])
