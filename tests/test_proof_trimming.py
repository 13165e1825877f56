"""Certificates keep only the proof lemmas and clauses the empty clause rests on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cpsudoku.evidence import certificate, check_certificate, make_certificate
from cpsudoku.evidence.certificate import prove, trimmed, write_certificate
from cpsudoku.evidence.files import check_proof
from cpsudoku.evidence.trim import trim
from cpsudoku.model.forms import parse

VARIANTS = Path(__file__).parents[1] / "benchmarks" / "data" / "variants"

#: x1..x3 pairwise different over two values (unsatisfiable), padded with an unrelated
#: satisfiable part over x4, x5.
PIGEONS = [(1, 2), (-1, -2), (2, 3), (-2, -3), (1, 3), (-1, -3), (4, 5), (-4, 5)]


def _lemmas(proof: str) -> int:
    return sum(1 for line in proof.splitlines() if line.strip() and line[0] != "d")


def test_a_lemma_the_empty_clause_does_not_need_is_dropped() -> None:
    proof = "5 0\n1 3 0\nd 4 5 0\n1 0\n0\n"  # (5) and the deletion play no part
    assert check_proof(PIGEONS, proof)[0]
    kept, lines = trim(PIGEONS, proof)  # type: ignore[misc]
    assert lines == "1 0\n0\n"  # (1) follows by propagation alone: (1 3) is not needed
    assert kept == [0, 1, 2, 3, 4, 5]
    assert check_proof([PIGEONS[k] for k in kept], lines)[0]


def test_a_proof_trimming_cannot_follow_is_left_as_it_is() -> None:
    assert trim(PIGEONS, "4 0\n0\n") is None  # (4) is not implied by propagation
    assert trim(PIGEONS, "1 3 0\n") is None  # no empty clause
    assert trimmed(PIGEONS, "4 0\n0\n") == (PIGEONS, "4 0\n0\n")


def test_clauses_sharing_a_linked_variable_stay_together() -> None:
    clauses = [*PIGEONS, (6, 7), (-6, 7)]  # 6 links these two; neither is needed
    kept, proof = trimmed(clauses, "1 3 0\n1 0\n0\n", linked={6})
    assert (6, 7) not in kept
    kept, proof = trimmed([*clauses, (1, 6)], "1 3 0\n1 0\n0\n", linked={6})
    assert (1, 6) not in kept
    assert (6, 7) not in kept
    # (1 2) now comes from (1 2 -6) and (6); (6 9) is needed by nothing, but it shares 6
    linked_pigeons: list[tuple[int, ...]] = [(1, 2, -6), (6,), (6, 9), *PIGEONS[1:6]]
    whole = prove(linked_pigeons)
    assert whole is not None
    kept, proof = trimmed(linked_pigeons, whole, linked={6})
    assert check_proof(kept, proof)[0]
    assert (6, 9) in kept
    kept, proof = trimmed(linked_pigeons, whole)
    assert (6, 9) not in kept


def test_a_certificate_holds_the_trimmed_proof_and_formula(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fewer lemmas and clauses than without the trimming, and the certificate checks."""
    row = json.loads((VARIANTS / "and-or.jsonl").read_text().splitlines()[1])
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    cert = make_certificate(puzzle)
    assert cert.checked, cert.verdict
    report = check_certificate(write_certificate(cert, tmp_path / "c"))
    assert report.ok, report.reasons
    monkeypatch.setattr(certificate, "trimmed", lambda clauses, proof, linked: (clauses, proof))
    whole = make_certificate(puzzle)
    assert whole.checked
    assert _lemmas(cert.proof) < _lemmas(whole.proof)
    assert cert.cnf.count(" 0\n") < whole.cnf.count(" 0\n")
    again = trim(_clauses(cert.cnf), cert.proof)
    assert again is not None
    assert _lemmas(again[1]) <= _lemmas(cert.proof)


def _clauses(cnf: str) -> list[tuple[int, ...]]:
    return [
        tuple(int(x) for x in line.split()[:-1])
        for line in cnf.splitlines()
        if line and line[0] not in "cp"
    ]
