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
the cost, gets a fifth of the clauses (docs/design.md has the measurements). Of those,
the certificate keeps an unsatisfiable core (:func:`unsat_core`, two rounds): a
subset is implied just the same, and the proof checker, pure Python, propagates over
a third to a tenth of the clauses and replays a shorter proof. The proof is then
trimmed backward (:func:`trimmed`): only the lemmas the empty clause rests on, and
only the clauses those rest on, are written, since the checker replays every lemma.

Little killers, arrows and sandwiches are encoded with auxiliary variables (partial
sums along a chain; where a sandwich's 1 and n stand and which digits lie between). The
manifest says what each of them means, as the encoder built it
(:data:`ENCODING`'s ``auxiliary``); the checker evaluates those meanings from the rules
itself and shows every such clause true under them
(:mod:`cpsudoku.evidence.meanings`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsudoku.encode.cnf import ConstraintMeaning, given_literals, reduced
from cpsudoku.evidence.files import (
    CNF_FILE,
    FILES,
    FORMAT,
    MANIFEST_FILE,
    PROOF_FILE,
    SOLUTION_FILE,
    Clause,
    Step,
    check_proof,
    exclusion_clause,
    no_step,
    sha256,
)
from cpsudoku.model.errors import ConflictingGivensError, CpSudokuError
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Result, Status
from cpsudoku.version import __version__

__all__ = [
    "CNF_FILE",
    "CORE_ROUNDS",
    "CORE_SOLVER",
    "ENCODING",
    "FILES",
    "FORMAT",
    "MANIFEST_FILE",
    "PROOF_FILE",
    "SOLUTION_FILE",
    "SOLVER",
    "TRIVIAL_PROOF",
    "Certificate",
    "CertificateError",
    "Clause",
    "auxiliary",
    "build_manifest",
    "certify",
    "check_proof",
    "exclusion_clause",
    "file_bytes",
    "formula",
    "make_certificate",
    "manifest_text",
    "prove",
    "sha256",
    "solution_text",
    "to_dimacs",
    "trimmed",
    "unsat_core",
    "versions",
    "write_certificate",
]

#: The proof of a formula that unit propagation alone refutes: the empty clause.
TRIVIAL_PROOF = "0\n"

#: The solver that writes the proofs (python-sat name).
SOLVER = "cadical153"

#: The solver that finds the unsatisfiable core the certificate keeps: it takes
#: assumptions and can be interrupted (CaDiCaL cannot, through python-sat).
CORE_SOLVER = "glucose4"

#: Rounds of core finding: each one solves the core of the round before again.
CORE_ROUNDS = 2

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
    "subset": "an unsatisfiable core of the clauses above (the solver's core under one "
    "assumption per clause, clauses sharing auxiliary variables kept or left out together, "
    "found twice over, then only the clauses the trimmed proof rests on): any subset is "
    "implied as the whole is",
    "auxiliary": "variables above n**3; those of little killers, arrows and sandwiches are "
    "listed under the manifest's 'auxiliary' with what each means, as "
    "{constraint: index into rules.constraints, meaning, variables: [[variable, *parameters]]}: "
    "partial-sum [v, k, t]: the weighted sum of the constraint's first k terms (cells in "
    "order, circle cells weighing minus their place value) is t; sandwich-ends [v, p, q]: "
    "the 1 and the n of the line stand at its 0-based positions p and q, either way round; "
    "sandwich-between [v, p, q, digits]: they do, and the cells between hold exactly those "
    "digits. A cage's digit-set selectors have none: any values that satisfy their clauses",
}


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
        seconds: wall time of ``solve``, ``prove`` (the core and the proof) and ``check``.
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
        out[MANIFEST_FILE] = manifest_text(self.manifest).encode()
        return out


def manifest_text(manifest: dict[str, Any]) -> str:
    """The manifest as indented JSON, each auxiliary variable's row on a line of its own.

    Plain ``indent=2`` would put every number of those rows on its own line (a little
    killer certificate's manifest: some 70 KB, mostly indentation).
    """
    aux = manifest.get("auxiliary")
    text = json.dumps({k: v for k, v in manifest.items() if k != "auxiliary"}, indent=2)
    if not aux:
        return text + "\n"
    groups = []
    for entry in aux:
        rows = ",\n".join("        " + json.dumps(row) for row in entry["variables"])
        head = json.dumps({k: v for k, v in entry.items() if k != "variables"})
        groups.append(f'    {head[:-1]}, "variables": [\n{rows}\n    ]}}')
    return text[: -len("\n}")] + ',\n  "auxiliary": [\n' + ",\n".join(groups) + "\n  ]\n}\n"


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


def formula(
    puzzle: Puzzle, solution: Puzzle, meanings: list[ConstraintMeaning] | None = None
) -> list[Clause]:
    """The certificate's clauses: the rules reduced by the givens, the givens, the exclusion.

    The rules are :func:`cpsudoku.encode.cnf.reduced`'s (extended, pairwise): the
    clauses the givens' first round of unit propagation satisfies are left out, and
    the literals it falsifies are taken out of the others. ``meanings``, when given,
    receives what the encoder's sum and sandwich variables mean (for the manifest).
    """
    red = reduced(puzzle, ENCODING["name"], ENCODING["at_most_one"], meanings)
    out: list[Clause] = list(red.clauses)
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

    from cpsudoku.engines.interrupts import SatInterrupts

    # Ctrl-C during the search: KeyboardInterrupt, and the solver is abandoned.
    with Cadical153(bootstrap_with=[list(c) for c in clauses], with_proof=True) as s:
        with SatInterrupts(s):
            if s.solve():
                return None
        lines = s.get_proof()
    return "\n".join(lines) + "\n"


def unsat_core(
    clauses: Sequence[Clause],
    rounds: int = CORE_ROUNDS,
    deadline: float | None = None,
    linked: Collection[int] = (),
) -> list[Clause] | None:
    """An unsatisfiable subset of ``clauses``, in their order; None when they are satisfiable.

    Each round gives every clause a selector, assumes them all and keeps the clauses
    of the solver's core (:data:`CORE_SOLVER`); the next round starts from that core.
    Not a minimal core: two rounds take most of what can go (a third one little more).
    Clauses that share a variable of ``linked`` share a selector and are kept or left
    out together: a cage's digit-set selectors stay with all their clauses, so the
    checker sees that they treat every cell of the cage alike.

    Raises:
        TimeoutError: ``deadline`` (a ``time.perf_counter()`` value) passed.
    """
    from pysat.solvers import Solver

    from cpsudoku.engines.interrupts import SatInterrupts, StopAt

    kept = list(clauses)
    for _ in range(rounds):
        group = _groups(kept, linked)
        top = max((abs(x) for c in kept for x in c), default=0)
        selectors = list(range(top + 1, top + max(group, default=-1) + 2))
        with (
            Solver(
                name=CORE_SOLVER,
                bootstrap_with=[[*c, -(top + 1 + g)] for c, g in zip(kept, group, strict=True)],
            ) as solver,
            SatInterrupts(solver),  # Ctrl-C: KeyboardInterrupt, the solver abandoned
        ):
            if deadline is None:
                answer = solver.solve(assumptions=selectors)
            else:
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError
                try:  # stopped at the deadline, or at once on Ctrl-C (raised after)
                    with StopAt(solver.interrupt, left):
                        answer = solver.solve_limited(assumptions=selectors, expect_interrupt=True)
                finally:
                    solver.clear_interrupt()
                if answer is None:
                    raise TimeoutError
            if answer:
                return None
            core = set(solver.get_core() or ())
        smaller = [c for c, g in zip(kept, group, strict=True) if top + 1 + g in core]
        if len(smaller) == len(kept):
            break
        kept = smaller
    return kept


def trimmed(
    clauses: Sequence[Clause], proof: str, linked: Collection[int] = ()
) -> tuple[list[Clause], str]:
    """The clauses and the proof lines the refutation needs (:func:`~.trim.trim`).

    The proof keeps the lemmas the empty clause rests on, the formula the clauses they
    and the empty clause rest on, whole groups of clauses sharing a variable of
    ``linked`` (a cage's selectors stay with all their clauses, as in
    :func:`unsat_core`), in their order. The proof checker's forward pass then
    propagates over fewer clauses and replays fewer lemmas. The clauses and the proof
    as they were when the trimming cannot follow the proof.
    """
    from cpsudoku.evidence.trim import trim

    found = trim(clauses, proof)
    if found is None:
        return list(clauses), proof
    kept, lines = found
    group = _groups(clauses, linked)
    wanted = {group[k] for k in kept}
    return [c for c, g in zip(clauses, group, strict=True) if g in wanted], lines


def _groups(clauses: Sequence[Clause], linked: Collection[int]) -> list[int]:
    """For each clause its group, numbered from 0.

    A clause is alone in its group, or with every clause it shares a variable of
    ``linked`` with, directly or through others.
    """
    parent: dict[int, int] = {}

    def root(v: int) -> int:
        while parent.setdefault(v, v) != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    shared = [[v for x in c if (v := abs(x)) in linked] for c in clauses] if linked else []
    for vs in shared:
        for v in vs[1:]:
            parent[root(v)] = root(vs[0])
    number: dict[tuple[str, int], int] = {}
    out = []
    for k in range(len(clauses)):
        key = ("linked", root(shared[k][0])) if shared and shared[k] else ("clause", k)
        out.append(number.setdefault(key, len(number)))
    return out


def make_certificate(
    puzzle: PuzzleLike,
    *,
    check: bool = True,
    backend: str = "sat",
    time_limit: float | None = None,
    on_step: Step = no_step,
) -> Certificate:
    """Solve ``puzzle``, and for a unique one build its certificate and check the proof.

    Args:
        puzzle: the puzzle.
        check: check the proof in process with ``dratify`` (the certificate says
            whether it was accepted).
        backend: the engine that solves the puzzle and shows it unique (any engine
            spec); the proof always comes from a fresh :data:`SOLVER`.
        time_limit: seconds for the whole: the solve gets them, the core search what
            is left, and past them no further step starts (the proof's CaDiCaL, its
            trimming and the check, which cannot be stopped from outside, run to
            their end once started).
        on_step: called with each step as it starts (``solving``, ``finding the
            core``, ``proving``, ``trimming the proof``, ``checking the proof``), for
            a progress line.

    Raises:
        CertificateError: the puzzle is invalid, unsolvable or not unique (then
            ``exc.result.solutions`` holds two verified witnesses), or the time ran
            out (``exc.result.status`` is ``timeout``).
        PuzzleError: ``puzzle`` is malformed text.
    """
    from cpsudoku.engines import get_backend

    p = puzzle if isinstance(puzzle, Puzzle) else parse(puzzle, check=False)
    try:
        p.check()
    except ConflictingGivensError as exc:
        raise CertificateError(f"invalid puzzle: {exc}") from exc
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    engine = get_backend(backend)
    on_step(f"solving ({backend})", 0, 0)
    result = engine.solve(p, checked=True, time_limit=time_limit)
    if result.status is not Status.UNIQUE or result.solution is None:
        raise CertificateError(_refusal(result, time_limit), result)
    solution = result.solution
    t1 = time.perf_counter()
    meanings: list[ConstraintMeaning] = []
    whole = formula(p, solution, meanings)
    top, meant = p.n * p.rules.cells, {m[0] for m in meanings}
    linked = {v for c in whole for x in c if (v := abs(x)) > top and v not in meant}
    on_step(f"finding the core of {len(whole):,} clauses", 0, 0)
    try:
        clauses = unsat_core(whole, deadline=deadline, linked=linked)
    except TimeoutError:
        raise CertificateError(
            f"the time limit of {time_limit:g} s ran out before the proof",
            Result(Status.TIMEOUT, solution, result.backend, time.perf_counter() - t0),
        ) from None
    if clauses is not None:
        on_step(f"proving ({len(clauses):,} clauses)", 0, 0)
    proof = None if clauses is None else prove(clauses)
    if clauses is None or proof is None:  # the engine said unique; the fresh solver disagrees
        raise CertificateError("the certificate's formula is satisfiable: no proof", result)
    whole_proof, whole_clauses = proof, clauses
    if proof != TRIVIAL_PROOF and (deadline is None or time.perf_counter() < deadline):
        on_step(f"trimming the proof ({proof.count(chr(10)):,} lines)", 0, 0)
        clauses, proof = trimmed(clauses, proof, linked)
    t2 = time.perf_counter()
    ok, verdict = True, "not checked"
    if check:
        on_step(f"checking the proof ({proof.count(chr(10)):,} lines)", 0, 0)
        ok, verdict, trivial = check_proof(clauses, proof)
        if not ok and proof is not whole_proof:  # never seen: the proof as CaDiCaL wrote it
            clauses, proof = whole_clauses, whole_proof
            ok, verdict, trivial = check_proof(clauses, proof)
        if trivial:
            proof = TRIVIAL_PROOF
    t3 = time.perf_counter()
    cnf = to_dimacs(clauses, p)
    manifest = build_manifest(
        p, solution, cnf, proof, ok if check else None, verdict, auxiliary(meanings)
    )
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


def _refusal(result: Result, time_limit: float | None = None) -> str:
    """Why a solve result gets no certificate, in a sentence."""
    if result.status is Status.MULTIPLE and len(result.solutions) == 2:
        a, b = result.solutions
        return (
            f"not unique: two solutions, {solution_text(a).strip()} and {solution_text(b).strip()}"
        )
    if result.status is Status.INVALID:
        return f"invalid puzzle: {result.error}"
    if result.status is Status.TIMEOUT and time_limit is not None:
        return f"the time limit of {time_limit:g} s ran out before the puzzle was shown unique"
    return f"no certificate for status {result.status}: only a unique puzzle has one"


def build_manifest(
    puzzle: Puzzle,
    solution: Puzzle,
    cnf: str,
    proof: str,
    checked: bool | None,
    verdict: str,
    aux: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The manifest of a certificate: what it claims, how it was made, file hashes.

    ``aux`` (from :func:`auxiliary`) becomes the ``auxiliary`` entry, left out when
    empty, so a certificate without sums reads as before.
    """
    files = file_bytes(solution, cnf, proof)
    out: dict[str, Any] = {
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
    if aux:
        out["auxiliary"] = aux
    return out


def auxiliary(meanings: Sequence[ConstraintMeaning]) -> list[dict[str, Any]]:
    """The encoder's auxiliary meanings as the manifest lists them, JSON-ready.

    One entry per constraint, primitive and meaning name, in order of first
    appearance: ``{"constraint": index, "primitive": index, "meaning": name,
    "variables": [[variable, k, value]]}`` (:mod:`cpsudoku.evidence.meanings`).
    """
    out: dict[tuple[int, object, str], dict[str, Any]] = {}
    for var, j, name, (p, k, value) in meanings:
        entry = out.setdefault(
            (j, p, name), {"constraint": j, "primitive": p, "meaning": name, "variables": []}
        )
        entry["variables"].append([var, k, value])
    return list(out.values())


def write_certificate(cert: Certificate, directory: str | Path) -> Path:
    """Write ``cert``'s four files into ``directory`` (created if missing); return it."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cert.files().items():
        (out / name).write_bytes(data)
    return out


def certify(
    puzzle: PuzzleLike,
    directory: str | Path,
    *,
    backend: str = "sat",
    time_limit: float | None = None,
    on_step: Step = no_step,
) -> Certificate:
    """Make ``puzzle``'s certificate, check its proof in process, write it to ``directory``.

    ``backend``, ``time_limit`` and ``on_step`` as for :func:`make_certificate`.

    >>> import tempfile
    >>> cert = certify("1.343..2.3..2..3", tempfile.mkdtemp())
    >>> cert.checked, str(cert.solution)
    (True, '1234341243212143')

    Raises:
        CertificateError: the puzzle has no certificate (not unique, invalid...).
    """
    cert = make_certificate(puzzle, backend=backend, time_limit=time_limit, on_step=on_step)
    on_step("writing the files", 0, 0)
    write_certificate(cert, directory)
    return cert
