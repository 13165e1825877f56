"""cpsudoku's compiled proof checker against dratify's Python checker.

``evidence/_drup.c`` is dratify's forward DRAT algorithm in C, offered to dratify for
certificates. It must give the same verdict, failing step and counters as dratify's
own Python checker (the one written apart from every solver): on the proofs of
certificates of the bundled variant sets, on those proofs corrupted, on proofs with
RAT steps, deletions of clauses that are not there, unit deletions and repeated
literals, and on random formulas with CaDiCaL's proofs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cpsudoku.evidence import check_certificate, make_certificate
from cpsudoku.evidence.certificate import write_certificate
from cpsudoku.evidence.files import check_proof
from cpsudoku.model.forms import parse

dratify = pytest.importorskip("dratify")
drup = pytest.importorskip("cpsudoku.evidence._drup", reason="the extension was not built")
pytest.importorskip("pysat")

from dratify.proof import DRATChecker, parse_proof  # noqa: E402

VARIANTS = Path(__file__).parents[1] / "benchmarks" / "data" / "variants"
FIELDS = (
    "ok",
    "reason",
    "steps",
    "rup_steps",
    "rat_steps",
    "deletions",
    "ignored_deletions",
    "resolvents_checked",
    "failed_step",
    "reached_empty",
)


def _both(clauses: list[tuple[int, ...]], proof: str) -> tuple[tuple[object, ...], ...]:
    """dratify's Python verdict and ours, field by field (and the failing clause)."""
    cnf = dratify.CNF()
    for c in clauses:
        cnf.add_dimacs(c)
    python = DRATChecker(cnf).check(parse_proof(proof))
    dratify.register_native(drup)
    try:
        assert dratify.native_implementation() is drup
        ours = dratify.check_proof(cnf, proof, engine="native")
    finally:
        dratify.register_native(None)
    fields = [(getattr(python, f), getattr(ours, f)) for f in FIELDS]
    clause = [set(c) if c else c for c in (python.failed_clause, ours.failed_clause)]
    return (*fields, tuple(clause))


def _agree(clauses: list[tuple[int, ...]], proof: str) -> bool:
    pairs = _both(clauses, proof)
    for (a, b), name in zip(pairs, (*FIELDS, "failed_clause"), strict=True):
        assert a == b, (name, a, b)
    return bool(pairs[0][0])


def _certificate(
    tmp_path: Path, family: str, index: int = 0
) -> tuple[list[tuple[int, ...]], str, Path]:
    rows = [json.loads(x) for x in (VARIANTS / f"{family}.jsonl").read_text().splitlines() if x]
    row = rows[index]
    puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
    folder = tmp_path / family
    write_certificate(make_certificate(puzzle), folder)
    lines = (folder / "formula.cnf").read_text().splitlines()
    clauses = [tuple(int(x) for x in s.split()[:-1]) for s in lines if s and s[0] not in "pc"]
    return clauses, (folder / "proof.drup").read_text(), folder


def _corrupted(proof: str, rng: random.Random) -> str:
    """The proof with one lemma losing a literal, or one lemma dropped."""
    lines = proof.splitlines()
    lemmas = [i for i, s in enumerate(lines) if s and s[0] != "d" and len(s.split()) > 2]
    i = rng.choice(lemmas)
    parts = lines[i].split()
    if rng.random() < 0.5:
        del parts[rng.randrange(len(parts) - 1)]
        lines[i] = " ".join(parts)
    else:
        del lines[i]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("family", ["little-killer", "arrow", "sandwich", "killer", "whisper"])
def test_certificates_of_the_variant_sets_get_dratifys_verdict(tmp_path: Path, family: str) -> None:
    clauses, proof, _ = _certificate(tmp_path, family)
    assert _agree(clauses, proof)
    rng = random.Random(family)
    verdicts = {_agree(clauses, _corrupted(proof, rng)) for _ in range(6)}
    assert False in verdicts or family != "little-killer"  # some corruption must be caught


def test_rat_steps_deletions_and_repeated_literals_as_dratify_reads_them() -> None:
    pigeons = [(1, 2), (-1, -2), (2, 3), (-2, -3), (1, 3), (-1, -3), (4, 5), (-4, 5)]
    cases = [
        "1 3 0\n1 0\n0\n",  # RUP throughout
        "6 4 0\n1 0\n0\n",  # (6 4): RAT on the new variable 6 (no clause holds -6)
        "-5 -4 0\n1 0\n0\n",  # not RUP; RAT on -5 fails against (4 5)
        "d 7 8 0\nd 1 0\nd 1 2 0\n1 3 0\n1 0\n0\n",  # absent, unit, then a real deletion
        "1 1 3 0\n3 3 0\n0\n",  # repeated literals: (1 3) and (3)
        "4 0\n0\n",  # not implied: rejected at step 1
        "1 3 0\n",  # no empty clause
        "",  # no proof at all
    ]
    for proof in cases:
        _agree(pigeons, proof)
    _agree([*pigeons, ()], "")  # the empty clause given: refuted at once
    _agree([(1,), (-1,)], "")  # units in conflict at the root


def test_random_formulas_with_cadicals_proofs() -> None:
    from pysat.solvers import Solver

    rng = random.Random(7)
    for trial in range(40):
        nvars = rng.randint(5, 12)
        clauses = [
            tuple(rng.choice((1, -1)) * v for v in rng.sample(range(1, nvars + 1), 3))
            for _ in range(int(nvars * 4.6))
        ]
        with Solver(name="cadical153", bootstrap_with=clauses, with_proof=True) as s:
            if s.solve():
                continue
            proof = "\n".join(s.get_proof()) + "\n"
        assert _agree(clauses, proof), trial
        _agree(clauses, _corrupted(proof, rng)) if len(proof.splitlines()) > 3 else None


def test_a_certificate_says_which_checker_took_its_proof(tmp_path: Path) -> None:
    _, _, folder = _certificate(tmp_path, "arrow")
    compiled = check_certificate(folder)
    assert compiled.ok
    assert any("cpsudoku's compiled checker" in p for p in compiled.passed) or any(
        "(native checker)" in p for p in compiled.passed
    )
    python = check_certificate(folder, checker="python")
    assert python.ok
    assert not any("checker)" in p for p in python.passed)
    assert dratify.native_implementation() is not drup  # registered for the call only
    with pytest.raises(ValueError, match="unknown proof checker"):
        check_proof([(1,), (-1,)], "", checker="rust")
