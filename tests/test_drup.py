"""cpsudoku's compiled proof checker against dratify's Python checker.

``evidence/_drup.c`` is dratify's forward DRAT algorithm in C, offered to dratify for
certificates. It must give the same verdict, failing step and counters as dratify's
own Python checker (the one written apart from every solver): on the proofs of
certificates of the bundled variant sets, on those proofs corrupted, on proofs with
RAT steps, deletions of clauses that are not there, unit deletions and repeated
literals, and on random formulas with CaDiCaL's proofs. Where it reads the proof text
itself (``check_text``), it must read it as dratify's parser does, or leave it to that
parser.
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


def _cnf(clauses: list[tuple[int, ...]]) -> object:
    cnf = dratify.CNF()
    for c in clauses:
        cnf.add_dimacs(c)
    return cnf


def _from_text(cnf: object, proof: str) -> tuple[object, ...] | None:
    """Our checker reading the proof text itself, or None when it leaves it to dratify."""
    return drup.check_text(cnf.nvars, [list(c) for c in cnf.clauses], proof, True, True)


def _both(clauses: list[tuple[int, ...]], proof: str) -> tuple[tuple[object, ...], ...]:
    """dratify's Python verdict and ours, field by field (and the failing clause).

    Ours twice: given dratify's parsed steps, and reading the text itself; a proof
    written as solvers write it (lines of literals, deletions, comments) must be read.
    """
    cnf = _cnf(clauses)
    python = DRATChecker(cnf).check(parse_proof(proof))
    text = _from_text(cnf, proof)
    assert text is not None
    assert text[:10] == tuple(getattr(python, f) for f in FIELDS)
    assert text[10] == (python.failed_clause if python.failed_step > 0 else None)
    dratify.register_native(drup)
    try:
        assert dratify.native_implementation() is drup
        ours = dratify.check_proof(cnf, proof, engine="native")
    finally:
        dratify.register_native(None)
    fields = [(getattr(python, f), getattr(ours, f)) for f in FIELDS]
    clause = [set(c) if c else c for c in (python.failed_clause, ours.failed_clause)]
    return (*fields, tuple(clause))


def _outcome(clauses: list[tuple[int, ...]], proof: str) -> object:
    """dratify's reading of a proof text: its verdict's fields, or the error it raises."""
    try:
        r = dratify.check_proof(_cnf(clauses), proof, engine="python")
    except ValueError as exc:
        return str(exc)
    return (*(getattr(r, f) for f in FIELDS), r.failed_clause if r.failed_step > 0 else None)


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
    # A proof text only dratify's parser reads (a literal written "+5") is still
    # checked by the compiled checker, through dratify.
    clauses, proof, _ = _certificate(tmp_path, "killer")
    lemma = next(s for s in proof.splitlines() if s and s[0] not in "dc-0")
    plus = proof.replace(lemma, "+" + lemma, 1)
    assert _from_text(_cnf(clauses), plus) is None
    ok, reason, _ = check_proof(clauses, plus)
    assert ok
    assert "checker)" in reason
    python = check_certificate(folder, checker="python")
    assert python.ok
    assert not any("checker)" in p for p in python.passed)
    assert dratify.native_implementation() is not drup  # registered for the call only
    with pytest.raises(ValueError, match="unknown proof checker"):
        check_proof([(1,), (-1,)], "", checker="rust")


def test_a_proof_text_is_read_as_dratify_reads_it_or_left_to_dratify() -> None:
    formula = [(1, 2), (-1, 2), (1, -2), (-1, -2, 3), (-3, 4)]
    read_here = [
        "2 0\n0\n",
        "2 0 0\n",  # two clauses on one line
        "2\n0\n0\n",  # a clause over two lines
        "c a comment\n  c indented\n2 0\r\n0\r\n",  # comments, CRLF line ends
        "d1 2 0\nd 1 -2 0\nd0\n2 0\n0\n",  # deletions written three ways
        "-0\n",  # the empty clause as -0
        "002 0\n0\n",  # leading zeros
        "\t2  0\n\n\n0",  # tabs, blank lines, no final newline
        "5 0\n",  # not implied: rejected
        "-2 0\n",  # not implied: rejected with its literals
    ]
    for proof in read_here:
        assert _from_text(_cnf(formula), proof) is not None, proof
        here = _from_text(_cnf(formula), proof)
        assert here == _outcome(formula, proof), proof
    left_to_dratify = [
        "1 d 2 0\n",  # a deletion inside a clause
        "2 x 0\n",  # a bad token
        "+2 0\n",  # int() takes it; this parser does not try
        "1_0 0\n",  # so too
        "2 0\n1",  # a clause never closed
        "2 0\r0\n",  # a lone CR is a line break to splitlines
        "c note\x0b2 0\n0\n",  # so is a vertical tab, even in a comment
        "c caf\u00e9\n2 0\n0\n",  # not ASCII
        "99999999999 0\n",  # beyond the variables formula and proof account for
        "2 0\v0\n",
    ]
    for proof in left_to_dratify:
        assert _from_text(_cnf(formula), proof) is None, proof
        outcome = _outcome(formula, proof)
        ours = check_proof(formula, proof)  # goes through dratify's parser
        if isinstance(outcome, str):
            assert not ours[0], proof
            assert f"the proof is malformed: {outcome}" in ours[1], proof
        else:
            assert ours[0] == outcome[0], proof
