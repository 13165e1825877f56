"""Certificates, their independent check, witness pairs and true candidates."""

from __future__ import annotations

import csv
import json
import random
from itertools import pairwise
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
    for backend in ("sat", "backtrack"):  # incremental SAT, and one solve per value
        found = true_candidates(puzzle, backend=backend)
        assert found.complete
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
    # Parquet's own file metadata says the same, and the folder still reads as one table.
    meta = pq.read_schema(folder / "_common_metadata").metadata[b"cpsudoku.provenance"]
    assert json.loads(meta) == json.loads((folder / "_provenance.json").read_text())
    assert json.loads(meta)["input"]["sha256"]
    assert pq.read_table(folder).num_rows == len(rows)


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


# Little killers, arrows and sandwiches: auxiliary variables checked under meanings.

VARIANTS = Path(__file__).parent.parent / "benchmarks" / "data" / "variants"
SUM_FAMILIES = ["little-killer", "arrow", "sandwich"]


def _variant_rows(family: str, k: int) -> list[dict[str, object]]:
    lines = (VARIANTS / f"{family}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines[:k]]


def _variant_puzzle(row: dict[str, object]) -> Puzzle:
    return parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))


@pytest.mark.parametrize("family", SUM_FAMILIES)
def test_certificates_of_bundled_sum_puzzles_are_accepted(family: str, tmp_path: Path) -> None:
    for k, row in enumerate(_variant_rows(family, 2)):
        cert = certify(_variant_puzzle(row), tmp_path / str(k))
        assert cert.checked, cert.verdict
        assert str(cert.solution) == row["solution"]
        assert cert.manifest["auxiliary"], "the sums' variables carry their meanings"
        text = (tmp_path / str(k) / MANIFEST_FILE).read_text()
        assert json.loads(text) == cert.manifest  # one row per variable, same JSON
        report = check_certificate(tmp_path / str(k))
        assert report.ok, report.reasons
        assert "true under their declared meanings" in report.passed[2]


@pytest.mark.parametrize("family", SUM_FAMILIES)
@pytest.mark.parametrize("box", ["2x2", "2x3"])
def test_certificates_of_small_generated_sum_puzzles_are_accepted(
    family: str, box: str, tmp_path: Path
) -> None:
    from cpsudoku.generate.variants import generate_variant

    for seed in range(2):
        made = generate_variant(family, box, seed=seed)
        folder = tmp_path / str(seed)
        cert = certify(made.puzzle, folder)
        assert cert.checked
        assert cert.solution == made.solution
        report = check_certificate(folder)
        assert report.ok, report.reasons


def test_a_pill_arrow_is_certified(tmp_path: Path) -> None:
    """An arrow whose circle reads as a two-digit number, drawn from a solution."""
    puzzle = parse(read_lines("top95.txt")[5])
    solution = cpsudoku.solve(puzzle).solution
    assert solution is not None
    s = solution.cells
    open_ = [i for i in range(81) if not puzzle.cells[i]]  # the arrow on open cells only
    circle = next(
        (i, i + 1) for i in open_ if i % 9 < 8 and i + 1 in open_ and s[i] == 1 and s[i + 1] <= 6
    )
    value = 10 + s[circle[1]]
    free = [i for i in open_ if i not in circle]
    rng = random.Random(5)
    while True:
        shaft = rng.sample(free, 3)
        if sum(s[i] for i in shaft) == value:
            break
    rules = Rules.from_spec(
        {
            "size": 9,
            "box": "3x3",
            "constraints": [{"kind": "arrow", "circle": list(circle), "cells": shaft}],
        }
    )
    cert = certify(Puzzle(rules, puzzle.cells), tmp_path)
    assert cert.solution.cells == s
    report = check_certificate(tmp_path)
    assert report.ok, report.reasons


@pytest.fixture(scope="module")
def sum_certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One certificate of each sum family, kept pristine: tests copy them."""
    base = tmp_path_factory.mktemp("sums")
    out = {}
    for family in SUM_FAMILIES:
        certify(_variant_puzzle(_variant_rows(family, 1)[0]), base / family)
        out[family] = base / family
    return out


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def _body(folder: Path) -> tuple[list[str], list[list[int]]]:
    """The CNF's header lines and its clauses."""
    lines = (folder / CNF_FILE).read_text().splitlines()
    head = [line for line in lines if line.startswith(("c", "p"))]
    return head, [[int(x) for x in line.split()[:-1]] for line in lines if line not in head]


def _write_body(folder: Path, head: list[str], clauses: list[list[int]]) -> None:
    head = [*head[:-1], " ".join([*head[-1].split()[:3], str(len(clauses))])]
    text = "\n".join(head + [" ".join(map(str, [*c, 0])) for c in clauses]) + "\n"
    (folder / CNF_FILE).write_text(text)
    _rehash(folder, CNF_FILE)


def _used_variables(folder: Path) -> set[int]:
    return {abs(x) for c in _body(folder)[1] for x in c}


def _top(folder: Path) -> int:
    rules = json.loads((folder / MANIFEST_FILE).read_text())["rules"]
    return int(rules["size"]) ** 3


def _swapped_meanings_rejected(src: Path, tmp_path: Path, meaning: str, kind: str) -> None:
    """Swapping what two variables of one layer mean is refused (for some such pair).

    The CNF is a core, and a layer's at-least-one clause reads the same after a swap:
    the pairs are tried in turn until one breaks a clause, as most do.
    """
    manifest = json.loads((src / MANIFEST_FILE).read_text())
    used = _used_variables(src)  # the CNF is a core: not every variable is in it
    pairs = [
        (e_index, a_index)
        for e_index, e in enumerate(manifest["auxiliary"])
        if e["meaning"] == meaning
        for a_index, (a, b) in enumerate(pairwise(e["variables"]))
        if a[1] == b[1] and a[0] in used and b[0] in used
    ]
    assert pairs
    for attempt, (e_index, a_index) in enumerate(pairs[:8]):
        folder = _copy(src, tmp_path / f"c{attempt}")
        changed = json.loads(json.dumps(manifest))
        rows = changed["auxiliary"][e_index]["variables"]
        first, second = rows[a_index], rows[a_index + 1]
        first[2], second[2] = second[2], first[2]
        (folder / MANIFEST_FILE).write_text(json.dumps(changed))
        report = check_certificate(folder)
        if not report.ok:
            assert f"is not true under the declared meanings of {kind} #" in report.reasons[0]
            return
    raise AssertionError("no swap of two meanings was refused")


def test_a_changed_partial_sum_meaning_is_rejected(
    sum_certificates: dict[str, Path], tmp_path: Path
) -> None:
    _swapped_meanings_rejected(
        sum_certificates["little-killer"], tmp_path, "partial-sum", "little-killer"
    )


def test_a_changed_sandwich_meaning_is_rejected(
    sum_certificates: dict[str, Path], tmp_path: Path
) -> None:
    _swapped_meanings_rejected(
        sum_certificates["sandwich"], tmp_path, "automaton-state", "sandwich"
    )


@pytest.mark.parametrize("family", SUM_FAMILIES)
def test_a_sum_clause_with_a_literal_dropped_or_flipped_is_rejected(
    family: str, sum_certificates: dict[str, Path], tmp_path: Path
) -> None:
    from cpsudoku.evidence.meanings import read_meanings

    src = sum_certificates[family]
    head, clauses = _body(src)
    top = _top(src)
    manifest = json.loads((src / MANIFEST_FILE).read_text())
    rules = Rules.from_spec(manifest["rules"])
    meanings = read_meanings(manifest["auxiliary"], rules)
    grid = parse((src / SOLUTION_FILE).read_text().strip(), rules).cells
    n = rules.n

    def true(x: int) -> bool:
        v = abs(x)
        if v > top:
            return _meaning_value(meanings[v], rules, grid) == (x > 0)
        return (grid[(v - 1) // n] == (v - 1) % n + 1) == (x > 0)

    # A clause over auxiliary variables whose one true literal (on the solution, under
    # the meanings) is the last: without it, or with it flipped, the clause rules out
    # the solution itself, so no check may accept it.
    k = next(
        k
        for k, c in enumerate(clauses)
        if any(abs(x) > top for x in c[:-1]) and true(c[-1]) and not any(map(true, c[:-1]))
    )
    for change in ("drop", "flip"):
        folder = _copy(src, tmp_path / change)
        changed = [list(c) for c in clauses]
        if change == "drop":
            changed[k] = changed[k][:-1]
        else:
            changed[k][-1] = -changed[k][-1]
        _write_body(folder, head, changed)
        report = check_certificate(folder)
        assert not report.ok, change
        assert f"clause {k + 1} " in report.reasons[0]
        assert "is not true under the declared meanings" in report.reasons[0]


@pytest.mark.parametrize("family", SUM_FAMILIES)
def test_a_manifest_whose_rules_drop_the_sum_is_rejected(
    family: str, sum_certificates: dict[str, Path], tmp_path: Path
) -> None:
    kinds = {"little-killer": "little-killer", "arrow": "arrow", "sandwich": "sandwich"}
    # The sum dropped, its meanings kept: they name a rule the manifest lacks.
    folder = _copy(sum_certificates[family], tmp_path / "kept")
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    last = len(manifest["rules"]["constraints"]) - 1
    assert manifest["rules"]["constraints"][last]["kind"] == kinds[family]
    manifest["rules"]["constraints"].pop()
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    report = check_certificate(folder)
    assert not report.ok
    assert f"constraint #{last}, which the rules lack" in report.reasons[0]
    # The first sum dropped: every later meaning names the sum after its own.
    folder = _copy(sum_certificates[family], tmp_path / "shifted")
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    manifest["rules"]["constraints"].pop(0)
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    report = check_certificate(folder)
    assert not report.ok
    # The sum and its meanings dropped: the variables mean nothing, and no enumeration
    # can show the clauses harmless (refused at once, not after a long search).
    folder = _copy(sum_certificates[family], tmp_path / "bare")
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    manifest["rules"]["constraints"] = []
    del manifest["auxiliary"]
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    report = check_certificate(folder)
    assert not report.ok
    assert "may rule out a grid" in report.reasons[0] or "plain encoding" in report.reasons[0]


def test_malformed_or_misplaced_meanings_are_rejected(
    sum_certificates: dict[str, Path], tmp_path: Path
) -> None:
    src = sum_certificates["arrow"]

    def broken(name: str, change: object) -> str:
        folder = _copy(src, tmp_path / name)
        manifest = json.loads((folder / MANIFEST_FILE).read_text())
        change(manifest)  # type: ignore[operator]
        (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
        report = check_certificate(folder)
        assert not report.ok, name
        return report.reasons[0]

    def cell_variable(m: dict[str, object]) -> None:
        m["auxiliary"][0]["variables"][0][0] = 5  # type: ignore[index]

    def twice(m: dict[str, object]) -> None:
        rows = m["auxiliary"][0]["variables"]  # type: ignore[index]
        rows.append(list(rows[0]))

    def wrong_kind(m: dict[str, object]) -> None:
        m["auxiliary"][0]["meaning"] = "automaton-state"  # type: ignore[index]

    def no_layer(m: dict[str, object]) -> None:
        m["auxiliary"][0]["variables"][0][1] = 99  # type: ignore[index]

    # The certificate keeps only the clauses its proof uses: undeclare a variable
    # that one of them names.
    named = {abs(x) for clause in _body(src)[1] for x in clause}

    def undeclared(m: dict[str, object]) -> None:
        rows = m["auxiliary"][0]["variables"]  # type: ignore[index]
        rows.remove(next(row for row in rows if row[0] in named))

    assert "is a cell variable" in broken("cell", cell_variable)
    assert "given two meanings" in broken("twice", twice)
    assert "a arrow" in broken("kind", wrong_kind)
    assert "is not a layer" in broken("layer", no_layer)
    assert "declared ones with undeclared ones" in broken("undeclared", undeclared)


def test_the_checker_does_not_import_the_fast_encoder() -> None:
    """check-certificate's modules reach no module of cpsudoku.encode, even indirectly."""
    import ast

    root = Path(cpsudoku.__file__).parent

    def imports(module: str) -> set[str]:
        path = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cpsudoku"):
                out.add(str(node.module))
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.startswith("cpsudoku"))
        return out

    seen: set[str] = set()
    todo = ["cpsudoku.evidence.check", "cpsudoku.evidence.plain", "cpsudoku.evidence.meanings"]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if root.joinpath(*module.split(".")[1:]).with_suffix(".py").exists():
            todo.extend(imports(module))
    assert not [m for m in seen if m.startswith("cpsudoku.encode")], sorted(seen)


def _all_grids(rules: Rules) -> list[tuple[int, ...]]:
    """Every grid of a 4x4 rule set's units (288 classic ones), constraints ignored."""
    n, out, cells = rules.n, [], [0] * rules.cells

    def go(i: int) -> None:
        if i == rules.cells:
            out.append(tuple(cells))
            return
        for v in range(1, n + 1):
            if all(cells[j] != v for u in rules.units_of[i] for j in rules.unit_cells[u] if j < i):
                cells[i] = v
                go(i + 1)
        cells[i] = 0

    go(0)
    return out


def _meaning_value(meaning: object, rules: Rules, grid: tuple[int, ...]) -> bool:
    """A declared meaning evaluated on a grid, straight from its statement."""
    from cpsudoku.evidence.meanings import Meaning
    from cpsudoku.model.primitives import Automaton, Sum

    assert isinstance(meaning, Meaning)
    p = rules.compiled[meaning.constraint][1][meaning.primitive]
    k = meaning.layer
    if isinstance(p, Sum):
        return sum(w * grid[i] for i, w in p.terms[:k]) == meaning.value
    assert isinstance(p, Automaton)
    q = 0
    for i in p.cells[:k]:
        q = p.transitions[q][grid[i] - 1]
        if q < 0:
            return False
    return q == meaning.value


SMALL_SUM_RULES = [
    [{"kind": "little-killer", "cells": [3, 6, 9, 12], "sum": 10}],
    [{"kind": "little-killer", "cells": [1, 6, 11], "sum": 7}],
    [{"kind": "arrow", "circle": [0], "cells": [5, 10]}],
    [{"kind": "arrow", "circle": [0, 1], "cells": [4, 5, 8, 9]}],
    [{"kind": "sandwich", "row": 1, "sum": 5}],
    [{"kind": "sandwich", "column": 2, "sum": 0}],
]


@pytest.mark.parametrize("constraints", SMALL_SUM_RULES, ids=lambda c: c[0]["kind"])
@pytest.mark.parametrize("givens", [0, 3])
def test_the_meaning_check_is_sound_against_brute_force_on_4x4(
    constraints: list[dict[str, object]], givens: int
) -> None:
    """Every clause the checker accepts (the encoder's, and each with a literal dropped
    or flipped, under true or scrambled meanings) holds in every grid of the rules."""
    from cpsudoku.encode.cnf import reduced
    from cpsudoku.evidence.certificate import auxiliary
    from cpsudoku.evidence.meanings import LayeredClauses, read_meanings

    rules = Rules.from_spec({"size": 4, "box": "2x2", "constraints": constraints})
    c = rules.constraints[0]
    grids = [g for g in _all_grids(rules) if c.problem(g, 4) is None]
    assert len(grids) > 1
    rng = random.Random(givens)
    cells = [0] * 16
    for i in rng.sample(range(16), givens):
        cells[i] = grids[0][i]
    puzzle = Puzzle(rules, tuple(cells))
    grids = [g for g in grids if all(not v or g[i] == v for i, v in enumerate(cells))]
    raw: list[tuple[int, int, str, tuple[object, ...]]] = []
    clauses = [cl for cl in reduced(puzzle, meanings=raw).clauses if len(cl) > 0]
    declared = auxiliary(raw)
    top = 64

    def true_everywhere(clause: tuple[int, ...], meanings: dict[int, object]) -> bool:
        for g in grids:
            if not any(
                (
                    _meaning_value(meanings[abs(x)], rules, g)
                    if abs(x) > top
                    else g[(abs(x) - 1) // 4] == (abs(x) - 1) % 4 + 1
                )
                == (x > 0)
                for x in clause
            ):
                return False
        return True

    def accepted(checker: LayeredClauses, clause: tuple[int, ...]) -> bool:
        if any(abs(x) > top for x in clause):
            return checker.holds(clause, (0, 0))
        return checker.cell_clause_holds(clause)

    scrambled = json.loads(json.dumps(declared))
    for entry in scrambled:
        for row in entry["variables"]:
            if rng.random() < 0.3:
                row[2] += rng.choice((-1, 1))  # another sum, another state
    rejected = 0
    for meanings_raw, own in ((declared, True), (scrambled, False)):
        meanings = read_meanings(meanings_raw, rules)
        checker = LayeredClauses(puzzle, meanings)  # type: ignore[arg-type]
        for clause in clauses:
            if not any(abs(x) > top for x in clause) and not checker.cell_clause_holds(clause):
                continue  # a plain clause: not this check's business
            if own:
                assert true_everywhere(clause, meanings), clause  # type: ignore[arg-type]
                assert accepted(checker, clause), clause
            for k in range(len(clause)):
                for mutated in (
                    clause[:k] + clause[k + 1 :],
                    (*clause[:k], -clause[k], *clause[k + 1 :]),
                ):
                    if accepted(checker, mutated):
                        assert true_everywhere(mutated, meanings), (mutated, own)  # type: ignore[arg-type]
                    else:
                        rejected += 1
    assert rejected > 0


def _six_by_six_rules() -> tuple[tuple[int, ...], list[list[dict[str, object]]]]:
    """A 6x6 grid, and rules read off it: a little killer, a pill arrow, two sandwiches."""
    from itertools import combinations

    grid = cpsudoku.generate_grid(Rules.classic(2, 3), seed=7).cells
    diagonal = [5, 10, 15, 20, 25, 30]
    pill = [13, 12]
    value = 10 * grid[13] + grid[12]
    shaft = next(c for c in combinations(range(18, 36), 4) if sum(grid[i] for i in c) == value)

    def sandwich(line: list[int]) -> int:
        values = [grid[i] for i in line]
        a, b = sorted((values.index(1), values.index(6)))
        return sum(values[a + 1 : b])

    row, column = list(range(30, 36)), list(range(0, 36, 6))
    return grid, [
        [{"kind": "little-killer", "cells": diagonal, "sum": sum(grid[i] for i in diagonal)}],
        [{"kind": "arrow", "circle": pill, "cells": list(shaft)}],
        [{"kind": "sandwich", "row": 6, "sum": sandwich(row)}],
        [{"kind": "sandwich", "column": 1, "sum": sandwich(column)}],
    ]


@pytest.mark.parametrize("which", range(4))
@pytest.mark.parametrize("givens", [0, 2])
def test_the_meaning_check_is_sound_against_its_relaxation_on_6x6(which: int, givens: int) -> None:
    """On 6x6, every assignment of the constraint's cells alone that keeps it (and the
    line's digits distinct, for a sandwich): each clause the checker accepts holds in
    all of them, as it must, this being the very relaxation it searches."""
    from itertools import permutations, product

    from cpsudoku.encode.cnf import reduced
    from cpsudoku.evidence.certificate import auxiliary
    from cpsudoku.evidence.meanings import LayeredClauses, read_meanings

    grid, cases = _six_by_six_rules()
    rules = Rules.from_spec({"size": 6, "box": "2x3", "constraints": cases[which]})
    c = rules.constraints[0]
    cells = list(c.cells)
    rng = random.Random(which)
    given = dict.fromkeys(rng.sample(cells, givens), 0)
    for i in given:
        given[i] = grid[i]
    puzzle = Puzzle(rules, tuple(given.get(i, 0) for i in range(36)))
    assignments = (
        permutations(range(1, 7))
        if c.kind == "sandwich"
        else product(range(1, 7), repeat=len(cells))
    )
    worlds = []
    for values in assignments:
        world = [0] * 36
        for i, v in zip(cells, values, strict=True):
            world[i] = v
        if c.problem(world, 6) is None and all(world[i] == v for i, v in given.items()):
            worlds.append(tuple(world))
    assert tuple(grid[i] for i in cells) in {tuple(w[i] for i in cells) for w in worlds}
    raw: list[tuple[int, int, str, tuple[object, ...]]] = []
    clauses = reduced(puzzle, meanings=raw).clauses
    meanings = read_meanings(auxiliary(raw), rules)
    checker = LayeredClauses(puzzle, meanings)
    top = 6**3

    truth: dict[int, int] = {}  # literal -> the worlds it is true in, as a bit mask

    def worlds_of(x: int) -> int:
        if x not in truth:
            v = abs(x)
            mask = 0
            for k, w in enumerate(worlds):
                if v > top:
                    value = _meaning_value(meanings[v], rules, w)
                else:
                    value = w[(v - 1) // 6] == (v - 1) % 6 + 1
                if value == (x > 0):
                    mask |= 1 << k
            truth[x] = mask
        return truth[x]

    every = (1 << len(worlds)) - 1

    def holds(clause: tuple[int, ...]) -> bool:
        got = 0
        for x in clause:
            got |= worlds_of(x)
        return got == every

    def accepted(clause: tuple[int, ...]) -> bool:
        if any(abs(x) > top for x in clause):
            return checker.holds(clause, (0, 0))
        return checker.cell_clause_holds(clause)

    mine = [
        cl for cl in clauses if cl and all((abs(x) - 1) // 6 in cells or abs(x) > top for x in cl)
    ]
    ours = [cl for cl in mine if any(abs(x) > top for x in cl) or checker.cell_clause_holds(cl)]
    assert ours
    rejected = 0
    for clause in ours:
        assert accepted(clause), clause
        assert holds(clause), clause
        for k in range(len(clause)):
            for mutated in (
                clause[:k] + clause[k + 1 :],
                (*clause[:k], -clause[k], *clause[k + 1 :]),
            ):
                if accepted(mutated):
                    assert holds(mutated), mutated
                else:
                    rejected += 1
    assert rejected > 0


# ---------------------------------------------------------------- cages by digit sets

#: A killer whose certificate took 36 s to check when a cage's assignments were listed:
#: 15 cages across boxes, two of 9 cells (one without its sum), 7 without sums, and
#: 3 little killers. Cage map (one letter per cage), solution, cages without a sum.
BIG_KILLER_MAP = "AAAABBBCCAAAABBCCCADDDBBCCEFFDDGGGEEFFDHHGGEEFFHHHIIIEJJJHPPIIEJLLKKKMMELLLKOOMME"
BIG_KILLER_GRID = (
    "549381267218765934637249815325894671891673542764512398456927183972138456183456729"
)
BIG_KILLER_GIVENS = {2: 9, 11: 8, 21: 2, 29: 5, 30: 8, 42: 5, 47: 4, 51: 3, 73: 8, 76: 5}


def _big_killer() -> Puzzle:
    values = [int(ch) for ch in BIG_KILLER_GRID]
    constraints: list[dict[str, object]] = []
    for letter in sorted(set(BIG_KILLER_MAP)):
        cells = [i for i, ch in enumerate(BIG_KILLER_MAP) if ch == letter]
        spec: dict[str, object] = {"kind": "cage", "cells": cells}
        if letter not in "DEGHJMO":
            spec["sum"] = sum(values[i] for i in cells)
        constraints.append(spec)
    lines = ([0, 10, 20, 30, 40, 50, 60, 70, 80], [8, 16, 24, 32, 40, 48, 56], [45, 55, 65, 75])
    for line in lines:
        constraints.append(
            {"kind": "little-killer", "cells": line, "sum": sum(values[i] for i in line)}
        )
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": constraints})
    return Puzzle(rules, tuple(BIG_KILLER_GIVENS.get(i, 0) for i in range(81)))


@pytest.fixture(scope="module")
def big_killer_certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("big-killer")
    cert = certify(_big_killer(), folder)
    assert "".join(map(str, cert.solution.cells)) == BIG_KILLER_GRID
    return folder


def test_a_killer_with_9_cell_cages_and_cages_without_sums_is_checked(
    big_killer_certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked by digit sets: no cage's assignments are listed (9! for a 9-cell cage)."""
    from cpsudoku.evidence import plain
    from cpsudoku.model.constraints import Cage

    listed = plain.allowed

    def allowed(constraint: object, rules: Rules) -> object:
        assert not isinstance(constraint, Cage), "a cage's assignments were listed"
        return listed(constraint, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(plain, "allowed", allowed)
    report = check_certificate(big_killer_certificate)
    assert report.ok, report.reasons
    manifest = json.loads((big_killer_certificate / MANIFEST_FILE).read_text())
    assert "unsatisfiable core" in manifest["encoding"]["subset"]


def _cage_cells(letter: str) -> list[int]:
    return [i for i, ch in enumerate(BIG_KILLER_MAP) if ch == letter]


@pytest.mark.parametrize(
    "extra",
    [
        # "a 9 somewhere in the 9-cell cage without a sum", one of its cells left out
        pytest.param(lambda: [[i * 9 + 9 for i in _cage_cells("E")[:-1]]], id="cell-clause"),
        # "the 2-cell cage of sum 9 (cells 58, 59) holds no 4": it may ({4, 5})
        pytest.param(lambda: [[-(58 * 9 + 4)]], id="digit-out"),
        # a selector (729 + 1) that says "the cage P holds a 1, or else a 2": the cage
        # of sum 9 may hold {3, 6}. Treats both cells alike, so the digit-set path sees it.
        pytest.param(
            lambda: [[-730, *(i * 9 + 1 for i in (58, 59))], [730, *(i * 9 + 2 for i in (58, 59))]],
            id="symmetric-selector",
        ),
    ],
)
def test_a_wrong_cage_clause_is_refused_by_the_digit_set_check(
    big_killer_certificate: Path, tmp_path: Path, extra: object
) -> None:
    assert callable(extra)
    added: list[list[int]] = extra()
    folder = _copy(big_killer_certificate, tmp_path / "c")
    head, clauses = _body(folder)
    top = max([729, *(abs(x) for c in clauses for x in c)])
    shift = {730: top + 1, -730: -(top + 1)}
    added = [[shift.get(x, x) for x in c] for c in added]
    head[-1] = " ".join(
        [*head[-1].split()[:2], str(max(top, *(abs(x) for c in added for x in c))), "0"]
    )
    _write_body(folder, head, [*added, *clauses])
    report = check_certificate(folder)
    assert not report.ok
    why = "may rule out a grid" if len(added) > 1 else "is not a clause of the plain encoding"
    assert why in report.reasons[0], report.reasons


CAGE_RULES = [
    [{"kind": "cage", "cells": [0, 1, 4], "sum": 6}, {"kind": "cage", "cells": [2, 3], "sum": 5}],
    [{"kind": "cage", "cells": [1, 2, 5, 6]}, {"kind": "cage", "cells": [8, 12], "sum": 4}],
    [{"kind": "cage", "cells": [5, 6, 9], "sum": 7}, {"kind": "cage", "cells": [10, 11], "sum": 5}],
    [{"kind": "renban", "cells": [4, 5, 6]}, {"kind": "cage", "cells": [14, 15]}],
]


@pytest.mark.parametrize("constraints", CAGE_RULES, ids=range(len(CAGE_RULES)))
def test_the_cage_checks_are_sound_against_brute_force_on_4x4(
    constraints: list[dict[str, object]],
) -> None:
    """Each cage clause the encoder writes is accepted; each with a literal dropped or
    flipped is accepted only when it holds in every grid of the rules (cell clauses),
    or leaves every grid extendable (selector clauses)."""
    from itertools import product

    from cpsudoku.encode.cnf import reduced
    from cpsudoku.evidence.plain import extension_holds, implied_by_constraints

    rules = Rules.from_spec({"size": 4, "box": "2x2", "constraints": constraints})
    grids = [
        g for g in _all_grids(rules) if all(c.problem(g, 4) is None for c in rules.constraints)
    ]
    assert grids
    top = 64

    def true(x: int, g: tuple[int, ...], aux: dict[int, bool]) -> bool:
        v = abs(x)
        if v > top:
            return aux[v] == (x > 0)
        return (g[(v - 1) // 4] == (v - 1) % 4 + 1) == (x > 0)

    def harmless(group: list[tuple[int, ...]]) -> bool:
        names = sorted({abs(x) for c in group for x in c if abs(x) > top})
        return all(
            any(
                all(any(true(x, g, dict(zip(names, bits, strict=True))) for x in c) for c in group)
                for bits in product((False, True), repeat=len(names))
            )
            for g in grids
        )

    clauses = reduced(Puzzle(rules, (0,) * 16)).clauses
    cell_clauses = [c for c in clauses if c and all(abs(x) <= top for x in c)]
    selectors = [c for c in clauses if any(abs(x) > top for x in c)]
    constraint_cells = {i for c in rules.constraints for i in c.cells}
    own = [c for c in cell_clauses if {(abs(x) - 1) // 4 for x in c} <= constraint_cells]
    refused = 0
    for clause in own:
        if not implied_by_constraints(clause, rules):
            continue  # a unit's clause over cage cells, not the cage's own
        for k in range(len(clause)):
            for mutated in (
                clause[:k] + clause[k + 1 :],
                (*clause[:k], -clause[k], *clause[k + 1 :]),
            ):
                if implied_by_constraints(mutated, rules):
                    assert all(any(true(x, g, {}) for x in mutated) for g in grids), mutated
                else:
                    refused += 1
    if selectors:
        assert extension_holds(selectors, rules)
        for k, clause in enumerate(selectors):
            for j in range(len(clause)):
                changed = list(selectors)
                changed[k] = (*clause[:j], -clause[j], *clause[j + 1 :])
                if extension_holds(changed, rules):
                    assert harmless(changed), changed[k]
                else:
                    refused += 1
    assert refused > 0
