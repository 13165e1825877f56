"""Uniqueness certificates: the solution, a CNF, a DRUP proof and a manifest.

A certificate says "this puzzle has exactly one solution" in a form a third party can
check without trusting cpsudoku: the solution (checked by any verifier), a CNF whose
unsatisfiability means "no other solution" (the rules, the givens as unit clauses and
one clause excluding the solution), and a DRUP proof of that unsatisfiability from a
*fresh* CaDiCaL 1.5.3 (proofs taken under assumptions have no empty clause, so the
givens are unit clauses here, not assumptions). The manifest names the puzzle, the
rules spec, the encoding, the solver and checker with versions, and the SHA-256 of
each file. :func:`make_certificate` checks the proof in process with ``dratify``, a
checker that shares no code with the solver.

The CNF is the extended encoding of Lynce & Ouaknine with pairwise at-most-one (the
textbook one, so :mod:`cpsudoku.evidence.plain` can re-derive every clause), plus the
constraints' clauses, reduced by the givens' first round of unit propagation (Kwon &
Jain): a clause it satisfies is left out, a literal it falsifies is taken out. Each
clause left is then implied by the rules and the givens, so the formula's
unsatisfiability proves as much as the whole one's, and the checker, which dominates
the cost, gets a fifth of the clauses (docs/design.md has the measurements).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsudoku.encode.cnf import given_literals, reduced
from cpsudoku.model.errors import ConflictingGivensError, CpSudokuError
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Result, Status
from cpsudoku.version import __version__

#: The manifest's format name; a checker refuses any other.
FORMAT = "cpsudoku-certificate/1"

#: The certificate's files besides ``manifest.json``, each hashed in the manifest.
SOLUTION_FILE = "solution.txt"
CNF_FILE = "formula.cnf"
PROOF_FILE = "proof.drup"
MANIFEST_FILE = "manifest.json"
FILES: tuple[str, ...] = (SOLUTION_FILE, CNF_FILE, PROOF_FILE)

#: The proof of a formula that unit propagation alone refutes: the empty clause.
TRIVIAL_PROOF = "0\n"

#: The solver that writes the proofs (python-sat name).
SOLVER = "cadical153"

#: The encoding the certificate's CNF is a subset of.
ENCODING: dict[str, str] = {
    "name": "extended",
    "at_most_one": "pairwise",
    "variables": "x(cell, d) = cell * n + d, cell = row * n + column (0-based), d in 1..n",
    "givens": "one unit clause each",
    "exclusion": "the last clause: the negation of the solution on the open cells",
    "reduced": "by the givens' first round of unit propagation (a given makes its cell's "
    "other values and its value in the cell's units false): clauses it satisfies left out, "
    "literals it falsifies taken out of the others",
}

Clause = tuple[int, ...]


class CertificateError(CpSudokuError, ValueError):
    """No certificate can be made: the puzzle is not unique (or not valid).

    Attributes:
        reason: why, in a sentence.
        result: the solve result behind the refusal (status ``multiple`` carries the
            two witnesses in ``result.solutions``), or None for an invalid puzzle.
    """

    def __init__(self, reason: str, result: Result | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result


@dataclass(frozen=True, slots=True)
class Certificate:
    r"""A made certificate, in memory (:func:`write_certificate` puts it on disk).

    Attributes:
        puzzle: the puzzle.
        solution: its one solution (verified).
        cnf: the DIMACS text of the formula.
        proof: the DRUP proof text (``"0\n"`` when unit propagation refutes alone).
        manifest: the manifest as a JSON-ready dict, file hashes included.
        checked: True when the in-process checker accepted the proof.
        verdict: the checker's reason.
        seconds: wall time of ``solve``, ``prove`` and ``check``.
    """

    puzzle: Puzzle
    solution: Puzzle
    cnf: str
    proof: str
    manifest: dict[str, Any]
    checked: bool
    verdict: str
    seconds: dict[str, float] = field(default_factory=dict)

    def files(self) -> dict[str, bytes]:
        """The certificate's files by name, as bytes, the manifest included."""
        out = file_bytes(self.solution, self.cnf, self.proof)
        out[MANIFEST_FILE] = (json.dumps(self.manifest, indent=2) + "\n").encode()
        return out


#: Constraint kinds whose clauses the plain checker cannot show implied in reasonable
#: time (auxiliary variables over up to n cells): certify refuses them by name.
UNCERTIFIED = frozenset({"little-killer", "arrow", "sandwich"})


def sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def solution_text(solution: Puzzle) -> str:
    """A solution as the certificate writes it: one line, or integers for n > 35."""
    if solution.n <= 35:
        return solution.line() + "\n"
    return " ".join(map(str, solution.cells)) + "\n"


def file_bytes(solution: Puzzle, cnf: str, proof: str) -> dict[str, bytes]:
    """The three hashed files of a certificate, as bytes."""
    return {
        SOLUTION_FILE: solution_text(solution).encode(),
        CNF_FILE: cnf.encode(),
        PROOF_FILE: proof.encode(),
    }


def exclusion_clause(puzzle: Puzzle, solution: Puzzle) -> Clause:
    """The clause "not this solution", over the open cells only."""
    n = puzzle.n
    pairs = enumerate(zip(puzzle.cells, solution.cells, strict=True))
    return tuple(-(i * n + v) for i, (g, v) in pairs if not g)


def formula(puzzle: Puzzle, solution: Puzzle) -> list[Clause]:
    """The certificate's clauses: the rules reduced by the givens, the givens, the exclusion.

    The rules are :func:`cpsudoku.encode.cnf.reduced`'s (extended, pairwise): the
    clauses the givens' first round of unit propagation satisfies are left out, and
    the literals it falsifies are taken out of the others.
    """
    out: list[Clause] = list(reduced(puzzle, ENCODING["name"], ENCODING["at_most_one"]).clauses)
    out.extend((g,) for g in given_literals(puzzle))
    out.append(exclusion_clause(puzzle, solution))
    return out


def to_dimacs(clauses: Sequence[Clause], puzzle: Puzzle) -> str:
    """DIMACS text of the certificate's clauses, with comments saying what they are."""
    n = puzzle.n
    top = max(n**3, max((abs(x) for c in clauses for x in c), default=0))
    head = [
        f"c cpsudoku certificate CNF: {n}x{n} grid, {puzzle.givens} givens",
        "c encoding: extended (Lynce & Ouaknine), pairwise at-most-one, subset (see manifest)",
        f"c x(cell, d) = cell * N + d, cell = row * N + column (0-based), d in 1..N, N = {n}",
        "c unsatisfiable <=> the solution excluded by the last clause is the only one",
        f"p cnf {top} {len(clauses)}",
    ]
    body = [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(head + body) + "\n"


def versions() -> dict[str, str]:
    """The versions of cpsudoku, python-sat and dratify."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"cpsudoku": __version__}
    for dist in ("python-sat", "dratify"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:  # pragma: no cover - both are dependencies
            out[dist] = "unknown"
    return out


def prove(clauses: Sequence[Clause]) -> str | None:
    """A DRUP proof of ``clauses``' unsatisfiability from a fresh CaDiCaL, or None if SAT."""
    from pysat.solvers import Cadical153

    with Cadical153(bootstrap_with=[list(c) for c in clauses], with_proof=True) as s:
        if s.solve():
            return None
        lines = s.get_proof()
    return "\n".join(lines) + "\n"


def check_proof(clauses: Sequence[Clause], proof: str) -> tuple[bool, str, bool]:
    """Check ``proof`` against ``clauses`` with dratify.

    Returns:
        (accepted, the checker's reason, True when unit propagation alone refutes).
    """
    import dratify

    cnf = dratify.CNF()
    add = cnf.add_dimacs
    for c in clauses:
        add(c)
    try:
        result = dratify.check_proof(cnf, proof)
    except ValueError as exc:  # malformed proof text
        return False, f"the proof is malformed: {exc}", False
    reason = result.reason
    if not result.ok and result.failed_clause is not None:
        from dratify.lits import to_dimacs as lit

        step = " ".join(str(lit(x)) for x in result.failed_clause)
        reason = f"{reason} (step {result.failed_step}: {step} 0)"
    return bool(result.ok), reason, "unit propagation alone" in result.reason


def make_certificate(puzzle: PuzzleLike, *, check: bool = True) -> Certificate:
    """Solve ``puzzle``, and for a unique one build its certificate and check the proof.

    Raises:
        CertificateError: the puzzle is invalid, unsolvable or not unique (then
            ``exc.result.solutions`` holds two verified witnesses), or timed out.
        PuzzleError: ``puzzle`` is malformed text.
    """
    from cpsudoku.engines import get_backend

    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    try:
        p.check()
    except ConflictingGivensError as exc:
        raise CertificateError(f"invalid puzzle: {exc}") from exc
    unchecked = sorted({c.kind for c in p.rules.constraints if c.kind in UNCERTIFIED})
    if unchecked:
        raise CertificateError(
            f"certificates do not cover {', '.join(unchecked)} rules yet: their clauses reach "
            "across up to n cells through auxiliary variables, which check-certificate's "
            "plain encoder cannot yet show implied by the rules in reasonable time"
        )
    t0 = time.perf_counter()
    result = get_backend("sat").solve(p, checked=True)
    if result.status is not Status.UNIQUE or result.solution is None:
        raise CertificateError(_refusal(result), result)
    solution = result.solution
    t1 = time.perf_counter()
    clauses = formula(p, solution)
    proof = prove(clauses)
    if proof is None:  # the engine said unique; the fresh solver disagrees
        raise CertificateError("the certificate's formula is satisfiable: no proof", result)
    t2 = time.perf_counter()
    ok, verdict = True, "not checked"
    if check:
        ok, verdict, trivial = check_proof(clauses, proof)
        if trivial:
            proof = TRIVIAL_PROOF
    t3 = time.perf_counter()
    cnf = to_dimacs(clauses, p)
    manifest = build_manifest(p, solution, cnf, proof, ok if check else None, verdict)
    return Certificate(
        p,
        solution,
        cnf,
        proof,
        manifest,
        ok,
        verdict,
        {"solve": t1 - t0, "prove": t2 - t1, "check": t3 - t2},
    )


def _refusal(result: Result) -> str:
    """Why a solve result gets no certificate, in a sentence."""
    if result.status is Status.MULTIPLE and len(result.solutions) == 2:
        a, b = result.solutions
        return (
            f"not unique: two solutions, {solution_text(a).strip()} and {solution_text(b).strip()}"
        )
    if result.status is Status.INVALID:
        return f"invalid puzzle: {result.error}"
    return f"no certificate for status {result.status}: only a unique puzzle has one"


def build_manifest(
    puzzle: Puzzle,
    solution: Puzzle,
    cnf: str,
    proof: str,
    checked: bool | None,
    verdict: str,
) -> dict[str, Any]:
    """The manifest of a certificate: what it claims, how it was made, file hashes."""
    files = file_bytes(solution, cnf, proof)
    return {
        "format": FORMAT,
        "claim": "unique",
        "puzzle": puzzle.line() if puzzle.n <= 35 else None,
        "cells": list(puzzle.cells),
        "rules": puzzle.rules.spec(),
        "encoding": ENCODING,
        "proof_format": "DRUP (text)",
        "solver": {"name": SOLVER, "via": "python-sat", "fresh": True},
        "checker": {"name": "dratify", "accepted": checked, "verdict": verdict},
        "versions": versions(),
        "files": {
            name: {"sha256": sha256(data), "bytes": len(data)} for name, data in files.items()
        },
    }


def write_certificate(cert: Certificate, directory: str | Path) -> Path:
    """Write ``cert``'s four files into ``directory`` (created if missing); return it."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cert.files().items():
        (out / name).write_bytes(data)
    return out


def certify(puzzle: PuzzleLike, directory: str | Path) -> Certificate:
    """Make ``puzzle``'s certificate, check its proof in process, write it to ``directory``.

    >>> import tempfile
    >>> cert = certify("1.343..2.3..2..3", tempfile.mkdtemp())
    >>> cert.checked, str(cert.solution)
    (True, '1234341243212143')

    Raises:
        CertificateError: the puzzle has no certificate (not unique, invalid...).
    """
    cert = make_certificate(puzzle)
    write_certificate(cert, directory)
    return cert
