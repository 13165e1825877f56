"""Certificates, their independent check, witness pairs and true candidates."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
from conftest import read_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpsudoku
from cpsudoku.cli import main
from cpsudoku.engines import create_backend, native_built
from cpsudoku.evidence import (
    CertificateError,
    certify,
    check_certificate,
    make_certificate,
    true_candidates,
)
from cpsudoku.evidence.certificate import CNF_FILE, MANIFEST_FILE, PROOF_FILE, SOLUTION_FILE
from cpsudoku.model.forms import parse
from cpsudoku.model.killer import killer_rules
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

DATA = Path(__file__).parent / "data"
NINE = [
    "easy_kaggle1m_200.txt",
    "easy_norvig50.txt",
    "top95.txt",
    "norvig_hardest.txt",
    "forum_hardest_1106_60.txt",
    "clue17_royle_200.txt",
]


def _sample(name: str, k: int) -> list[str]:
    lines = read_lines(name)
    return random.Random(name).sample(lines, min(k, len(lines)))


@pytest.mark.parametrize("name", NINE)
def test_certificates_of_every_9x9_set_are_accepted(name: str, tmp_path: Path) -> None:
    for k, line in enumerate(_sample(name, 3)):
        cert = certify(line, tmp_path / str(k))
        assert cert.checked, cert.verdict
        report = check_certificate(tmp_path / str(k))
        assert report.ok, report.reasons
        assert is_solution(parse(line), cert.solution)


def test_certificates_of_16x16_puzzles_are_accepted(tmp_path: Path) -> None:
    for k, line in enumerate(read_lines("16x16_vukr_6.txt")[:2]):
        cert = certify(line, tmp_path / str(k))
        assert cert.checked
        assert check_certificate(tmp_path / str(k)).ok


def test_a_puzzle_propagation_completes_gets_the_empty_clause(tmp_path: Path) -> None:
    cert = certify("1.343..2.3..2..3", tmp_path)
    assert cert.proof == "0\n"
    assert "unit propagation" in cert.verdict
    assert check_certificate(tmp_path).ok


@pytest.fixture
def certificate(tmp_path: Path) -> Path:
    certify(read_lines("forum_hardest_1106_60.txt")[0], tmp_path)
    return tmp_path


def _rehash(folder: Path, name: str) -> None:
    """Make the manifest agree with a changed file, so only the deeper check can fail."""
    import hashlib

    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    data = (folder / name).read_bytes()
    manifest["files"][name]["sha256"] = hashlib.sha256(data).hexdigest()
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))


def test_a_changed_file_fails_its_hash(certificate: Path) -> None:
    proof = certificate / PROOF_FILE
    proof.write_text(proof.read_text() + "1 0\n")
    report = check_certificate(certificate)
    assert not report.ok
    assert "proof.drup does not match its SHA-256" in report.reasons[0]


def test_a_tampered_proof_is_rejected_by_the_checker(certificate: Path) -> None:
    proof = certificate / PROOF_FILE
    lines = proof.read_text().splitlines()
    # Keep only the end: the empty clause no longer follows.
    proof.write_text("\n".join(lines[-1:]) + "\n")
    _rehash(certificate, PROOF_FILE)
    report = check_certificate(certificate)
    assert not report.ok
    assert "the proof is rejected by dratify" in report.reasons[0]


def test_a_tampered_cnf_is_rejected_by_the_plain_encoder(certificate: Path) -> None:
    cnf = certificate / CNF_FILE
    text = cnf.read_text().splitlines()
    # A unit clause the rules do not imply makes any proof easy: it must be refused.
    head = [line for line in text if line.startswith(("c", "p"))]
    body = [line for line in text if not line.startswith(("c", "p"))]
    count = len(body) + 1
    head[-1] = " ".join([*head[-1].split()[:3], str(count)])
    cnf.write_text("\n".join([*head, "-1 0", *body]) + "\n")
    _rehash(certificate, CNF_FILE)
    report = check_certificate(certificate)
    assert not report.ok
    assert "(-1 0) is not a clause of the plain encoding" in report.reasons[0]


def test_a_wrong_solution_is_rejected_by_the_verifier(certificate: Path) -> None:
    path = certificate / SOLUTION_FILE
    line = path.read_text().strip()
    swapped = list(line)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    path.write_text("".join(swapped) + "\n")
    _rehash(certificate, SOLUTION_FILE)
    report = check_certificate(certificate)
    assert not report.ok
    assert report.reasons[0].startswith("the solution is wrong")


def test_a_non_unique_puzzle_gets_no_certificate_but_two_witnesses(tmp_path: Path) -> None:
    line = read_lines("multisolution_tdoku.txt")[0]
    with pytest.raises(CertificateError, match="not unique") as info:
        certify(line, tmp_path / "c")
    result = info.value.result
    assert result is not None
    assert result.status is Status.MULTIPLE
    a, b = result.solutions
    assert a != b
    assert is_solution(parse(line), a)
    assert is_solution(parse(line), b)
    assert not (tmp_path / "c").exists()


def test_an_unsolvable_puzzle_gets_no_certificate() -> None:
    with pytest.raises(CertificateError, match="only a unique puzzle"):
        make_certificate(read_lines("nosolution_tdoku.txt")[0])


def test_a_certificate_naming_another_puzzle_is_rejected(certificate: Path) -> None:
    manifest = json.loads((certificate / MANIFEST_FILE).read_text())
    cells = manifest["cells"]
    k = cells.index(0)
    manifest["cells"] = [*cells[:k], 0, *cells[k + 1 :]]
    first_given = next(i for i, v in enumerate(cells) if v)
    manifest["cells"][first_given] = 0  # fewer givens: the CNF's given units are now foreign
    (certificate / MANIFEST_FILE).write_text(json.dumps(manifest))
    report = check_certificate(certificate)
    assert not report.ok
    assert "is not a clause of the plain encoding" in report.reasons[0]


def test_killer_certificates_are_checked_by_enumeration(tmp_path: Path) -> None:
    with (DATA / "killer_krazydad_40.csv").open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh)]
    small = [r for r in rows if max(map(len, _cages(r))) <= 5][:2]
    for k, row in enumerate(small):
        rules = killer_rules(row["puzz_color"], row["puzz_hint"])
        cert = certify(Puzzle(rules, (0,) * rules.cells), tmp_path / str(k))
        assert "".join(map(str, cert.solution.cells)) == row["solved"]
        report = check_certificate(tmp_path / str(k))
        assert report.ok, report.reasons
        assert "enumeration" in report.passed[2]


def _cages(row: dict[str, str]) -> list[str]:
    shape = row["puzz_color"]
    return [shape.replace(ch, "") and ch * shape.count(ch) for ch in set(shape)]


ENGINES = ["sat", "sat:glucose4", "cpsat", "backtrack", *(["native"] if native_built() else [])]


@pytest.mark.parametrize("spec", ENGINES)
def test_every_multiple_result_carries_two_verified_witnesses(spec: str) -> None:
    lines = read_lines("multisolution_tdoku.txt")[:5] + read_lines("serg_multisolution_100.txt")[:5]
    with create_backend(spec) as engine:
        for line in lines:
            r = engine.solve(line)
            assert r.status is Status.MULTIPLE
            assert len(r.solutions) == 2
            assert r.solutions[0] != r.solutions[1]
            assert r.solutions[0] == r.solution
            assert all(is_solution(parse(line), s) for s in r.solutions)
            assert r.to_dict()["solutions"] == [str(s) for s in r.solutions]
            unique = engine.solve(read_lines("top95.txt")[0])
            assert unique.solutions == ()
            assert "solutions" not in unique.to_dict()


def _brute_force(puzzle: Puzzle) -> list[tuple[int, ...]]:
    """Every solution of a small puzzle: each open cell tried with every value in turn,
    a branch dropped as soon as a unit repeats a value."""
    g = puzzle.rules
    cells = list(puzzle.cells)
    open_cells = [i for i, v in enumerate(cells) if not v]
    out: list[tuple[int, ...]] = []

    def fits(i: int) -> bool:
        return all(cells[j] != cells[i] for u in g.units_of[i] for j in g.unit_cells[u] if j != i)

    def go(k: int) -> None:
        if k == len(open_cells):
            if is_solution(puzzle, Puzzle(g, tuple(cells))):
                out.append(tuple(cells))
            return
        i = open_cells[k]
        for v in range(1, g.n + 1):
            cells[i] = v
            if fits(i):
                go(k + 1)
        cells[i] = 0

    go(0)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(min_value=5, max_value=10))
def test_true_candidates_match_brute_force_on_4x4(rnd: random.Random, givens: int) -> None:
    grid = cpsudoku.generate_grid(Rules.classic(2, 2), seed=rnd.randrange(10**6))
    cells = list(grid.cells)
    for i in rnd.sample(range(16), 16 - givens):
        cells[i] = 0
    if rnd.random() < 0.2:  # now and then a clash-free puzzle with no solution
        i = cells.index(0)
        cells[i] = next(
            (
                v
                for v in range(1, 5)
                if v != grid.cells[i]
                and Puzzle(grid.rules, tuple([*cells[:i], v, *cells[i + 1 :]])).conflicts() == []
            ),
            0,
        )
    puzzle = Puzzle(grid.rules, tuple(cells))
    solutions = _brute_force(puzzle)
    found = true_candidates(puzzle)
    for i in range(16):
        assert set(found.values(i)) == {s[i] for s in solutions}
    assert found.unique == (len(solutions) == 1)
    assert found.solvable == bool(solutions)


def test_true_candidates_say_unique_exactly_when_the_count_is_one() -> None:
    lines = read_lines("multisolution_tdoku.txt")[:5] + _sample("clue17_royle_200.txt", 5)
    for line in lines:
        found = true_candidates(line)
        assert found.unique == (cpsudoku.count(line, 2) == 1)
        if not found.unique:
            assert found.ambiguous


def test_cli_certify_check_and_candidates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = read_lines("top95.txt")[1]
    assert main(["certify", line, "-o", str(tmp_path / "c")]) == 0
    assert "certificate written" in capsys.readouterr().out
    assert main(["check-certificate", str(tmp_path / "c"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    (tmp_path / "c" / PROOF_FILE).write_text("0\n")
    assert main(["check-certificate", str(tmp_path / "c")]) == 1
    assert "FAILED: proof.drup does not match" in capsys.readouterr().out
    multi = read_lines("multisolution_tdoku.txt")[0]
    assert main(["certify", multi, "-o", str(tmp_path / "m")]) == 1
    assert "no certificate: not unique: two solutions" in capsys.readouterr().err
    assert main(["candidates", multi]) == 0
    out = capsys.readouterr().out
    assert "not unique:" in out
    assert "cells with several true candidates" in out
    assert main(["candidates", line, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["unique"]
    assert all(len(c) == 1 for c in record["candidates"])


def test_batch_outputs_carry_their_provenance(tmp_path: Path) -> None:
    import hashlib

    src = tmp_path / "in.txt"
    src.write_text("\n".join(read_lines("top95.txt")[:5]) + "\n")
    for name in ("out.csv", "out.jsonl"):
        assert main(["batch", str(src), "-o", str(tmp_path / name), "--jobs", "1", "--quiet"]) == 0
        meta = json.loads((tmp_path / (name + ".meta.json")).read_text())
        assert meta["input"]["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
        assert meta["input"]["bytes"] == src.stat().st_size
        assert meta["engine"] == "sat"
        assert meta["versions"]["python-sat"]
        assert meta["machine"]["cores"] >= 1
        assert meta["started"] <= meta["ended"]
    # The rows are as they were: --resume reads the output back and keeps every row.
    assert main(["batch", str(src), "-o", str(tmp_path / "out.csv"), "--resume", "--quiet"]) == 0
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 6


def _evidence_input(tmp_path: Path) -> Path:
    src = tmp_path / "in.txt"
    lines = read_lines("multisolution_tdoku.txt")[:3] + read_lines("top95.txt")[:4] + ["12345"]
    src.write_text("\n".join(lines) + "\n")
    return src


def test_batch_certify_names_a_checkable_certificate_per_unique_row(tmp_path: Path) -> None:
    src = _evidence_input(tmp_path)
    out, certs = tmp_path / "out.csv", tmp_path / "certs"
    args = ["batch", str(src), "-o", str(out), "--certify", str(certs), "--jobs", "1", "--quiet"]
    assert main(args) == 4  # the last record is invalid
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[-2:] == ["solution2", "certificate"]
    assert [r["status"] for r in rows] == ["multiple"] * 3 + ["unique"] * 4 + ["invalid"]
    for row in rows:
        puzzle = parse(row["puzzle"]) if row["status"] != "invalid" else None
        if row["status"] == "multiple":
            assert puzzle is not None
            assert row["solution2"] != row["solution"]
            assert is_solution(puzzle, parse(row["solution2"]))
            assert not row["certificate"]
        elif row["status"] == "unique":
            assert not row["solution2"]
            report = check_certificate(certs / row["certificate"])
            assert report.ok, report.reasons
            assert str(report.puzzle) == str(puzzle)
        else:
            assert not row["certificate"]
    # Resumed after a crash: the kept rows keep their archives, the rest get new ones.
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:6]) + "\n")
    assert main([*args, "--resume"]) == 4
    with out.open(newline="") as fh:
        again = list(csv.DictReader(fh))
    assert [r["status"] for r in again] == [r["status"] for r in rows]
    assert all(check_certificate(certs / r["certificate"]).ok for r in again if r["certificate"])


def test_batch_witnesses_in_jsonl_and_parquet(tmp_path: Path) -> None:
    src = _evidence_input(tmp_path)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(src), "-o", str(out), "--witnesses", "--jobs", "1", "--quiet"]) == 4
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["solution2"] is not None for r in rows] == [True] * 3 + [False] * 5
    assert all(r["certificate"] is None for r in rows)
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "out.parquet"
    assert main(["batch", str(src), "-o", str(folder), "--witnesses", "--quiet"]) == 4
    table = pq.read_table(folder)
    assert table.column_names[-2:] == ["solution2", "certificate"]
    assert table.column("solution2").to_pylist()[:3] == [r["solution2"] for r in rows[:3]]
    assert (folder / "_provenance.json").exists()


def test_certificates_of_puzzles_with_marks_and_parity_are_checked(tmp_path: Path) -> None:
    """Constraints drawn from the solution keep the puzzle unique; each is certified."""
    puzzle = parse(read_lines("top95.txt")[3])
    solution = cpsudoku.solve(puzzle).solution
    assert solution is not None
    s = solution.cells
    constraints: list[dict[str, object]] = [
        {"kind": "even", "cells": [i for i in range(0, 81, 7) if s[i] % 2 == 0]},
        {"kind": "odd", "cells": [i for i in range(3, 81, 11) if s[i] % 2 == 1]},
    ]
    for i in (k for k in range(81) if k % 9 < 8):
        a, b = s[i], s[i + 1]
        kind = (
            "x" if a + b == 10 else "v" if a + b == 5 else "kropki-white" if abs(a - b) == 1 else ""
        )
        if kind:
            constraints.append({"kind": kind, "cells": [i, i + 1]})
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": constraints})
    cert = certify(Puzzle(rules, puzzle.cells), tmp_path)
    assert cert.solution.cells == s
    report = check_certificate(tmp_path)
    assert report.ok, report.reasons
    # A manifest whose rules leave the marks out no longer implies the mark clauses.
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    manifest["rules"]["constraints"] = manifest["rules"]["constraints"][:2]
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(manifest))
    broken = check_certificate(tmp_path)
    assert not broken.ok
    assert "is not a clause of the plain encoding" in broken.reasons[0]


def test_solve_many_gives_every_multiple_result_its_witnesses() -> None:
    lines = read_lines("multisolution_tdoku.txt")[:6] + read_lines("top95.txt")[:2]
    for line, r in zip(lines, cpsudoku.solve_many(lines, jobs=1), strict=True):
        if r.status is Status.MULTIPLE:
            assert len(r.solutions) == 2
            assert r.solutions[0] != r.solutions[1]
            assert all(is_solution(parse(line), s) for s in r.solutions)
        else:
            assert r.solutions == ()


def _rows(out: Path) -> list[dict[str, object]]:
    if out.suffix == ".csv":
        with out.open(newline="") as fh:
            return list(csv.DictReader(fh))
    import pyarrow.parquet as pq

    return pq.read_table(out).to_pylist()


@pytest.mark.parametrize("name", ["out.csv", "out.parquet"])
def test_retried_timeouts_get_their_evidence(tmp_path: Path, name: str) -> None:
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    src = _evidence_input(tmp_path)
    out, certs = tmp_path / name, tmp_path / "certs"
    base = ["batch", str(src), "-o", str(out), "--certify", str(certs), "--quiet", "--jobs", "1"]
    slow = ["--backend", "backtrack:naive", "--time-limit", "0.02", "--chunk-size", "3"]
    assert main([*base, *slow]) in (3, 4)  # some rows time out (and one is invalid)
    assert "timeout" in [r["status"] for r in _rows(out)]
    assert main([*base, "--retry-timeouts", "--time-limit", "30"]) == 4
    rows = _rows(out)
    assert [r["status"] for r in rows] == ["multiple"] * 3 + ["unique"] * 4 + ["invalid"]
    assert all(r["solution2"] for r in rows[:3])
    assert all(check_certificate(certs / str(r["certificate"])).ok for r in rows[3:7])
