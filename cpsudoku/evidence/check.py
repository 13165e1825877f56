"""Check a certificate written by :func:`cpsudoku.evidence.certify`, trusting none of it.

What is checked, in order (each failure is a reason in the report):

1. the manifest: its format, and the SHA-256 of each file it lists;
2. the solution: read from its file, checked by the verifier
   (:func:`cpsudoku.model.verify.solution_problems`) against the manifest's puzzle and
   rules;
3. the CNF against the plain encoder (:mod:`cpsudoku.evidence.plain`, which shares no
   code with the fast one). The rule is *implied*, not identity: every clause of the
   certificate must be a clause of the plain encoding reduced by the givens' first
   round of unit propagation (:func:`~cpsudoku.evidence.plain.reduced_by_givens`,
   computed here), a given as a unit clause, a value the givens rule out as a
   negative unit clause, or the clause excluding the solution, derived here from the
   solution file. Each is implied by "the rules, the givens, not this solution", so
   the certificate's unsatisfiability carries over to it. For constraints (cages, ...)
   the plain encoder has no clause list: a clause over cell literals must be implied by the rules,
   shown by enumeration (:func:`~cpsudoku.evidence.plain.implied_by_constraints`),
   and clauses with auxiliary variables, grouped by the variables they share, must
   leave every grid that keeps the rules extendable
   (:func:`~cpsudoku.evidence.plain.extension_holds`). The auxiliary variables of
   little killers, arrows and sandwiches carry a meaning in the manifest (a partial
   sum, where the 1 and the n stand, which digits lie between); the checker evaluates
   it from the rule and shows each of their clauses true under it
   (:mod:`cpsudoku.evidence.meanings`), and does the same for their cell-only clauses;
4. the DRUP proof, with ``dratify``, an independent checker, against the CNF file.

Outside Python, the two files are standard DIMACS CNF and text DRUP, the formats
drat-trim reads (``drat-trim formula.cnf proof.drup``); steps 1 to 3 are then yours
to do (``sha256sum`` against the manifest, a look at the clauses).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from cpsudoku.evidence.meanings import LayeredClauses, MeaningError, read_meanings
from cpsudoku.evidence.plain import (
    extension_holds,
    implied_by_constraints,
    plain_clauses,
    reduced_by_givens,
)
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import solution_problems
from cpsudoku.model.words import count_of


@dataclass(slots=True)
class CheckReport:
    """What checking a certificate found.

    Attributes:
        ok: True when every check passed.
        reasons: why not, one sentence each (empty when ``ok``).
        passed: the checks that passed, in order.
        puzzle: the certificate's puzzle, when the manifest could be read.
    """

    ok: bool = False
    reasons: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    puzzle: Puzzle | None = None

    def fail(self, reason: str) -> CheckReport:
        """Record a failure; return self."""
        self.reasons.append(reason)
        self.ok = False
        return self


def check_certificate(
    directory: str | Path, on_step: Step = no_step, checker: str = "auto"
) -> CheckReport:
    """Check the certificate in ``directory``; never raises for a bad certificate.

    ``directory`` is a folder written by :func:`~cpsudoku.evidence.certify`, or a
    batch's ``ARCHIVE.zip/INDEX`` (the ``certificate`` column under ``--certify DIR``).
    ``on_step`` is called as each check starts, and during the CNF's check with the
    clauses done and in all (every 256), for a progress line. ``checker``: the proof
    checker (:func:`~cpsudoku.evidence.files.check_proof`): ``auto``, a compiled one
    where there is one; ``python``, dratify's Python checker.

    >>> import tempfile
    >>> from cpsudoku.evidence import certify
    >>> folder = tempfile.mkdtemp()
    >>> _ = certify("1.343..2.3..2..3", folder)
    >>> check_certificate(folder).ok
    True
    """
    report = CheckReport()
    folder = Path(directory)
    on_step("reading the files", 0, 0)
    manifest, data = _read(folder, report)
    if manifest is None:
        return report
    puzzle = _puzzle(manifest, report)
    if puzzle is None:
        return report
    report.puzzle = puzzle
    on_step("checking the solution", 0, 0)
    solution = _solution(puzzle, data[SOLUTION_FILE], report)
    if solution is None:
        return report
    clauses = _clauses(data[CNF_FILE], report)
    if clauses is None:
        return report
    if not _against_plain(clauses, puzzle, solution, report, manifest.get("auxiliary"), on_step):
        return report
    try:
        proof = data[PROOF_FILE].decode("ascii")
    except UnicodeDecodeError:
        return report.fail("the proof is not ASCII text")
    on_step(f"checking the proof ({proof.count(chr(10)):,} lines)", 0, 0)
    ok, verdict, _trivial = check_proof(clauses, proof, checker)
    if not ok:
        return report.fail(f"the proof is rejected by dratify: {verdict}")
    report.passed.append(f"proof accepted by dratify: {verdict}")
    report.ok = True
    return report


def _reader(folder: Path) -> Callable[[str], bytes]:
    """Read a certificate's files from a folder, or from ``ARCHIVE.zip/NAME`` (batch)."""
    archive = folder.parent
    if not folder.is_dir() and archive.suffix == ".zip" and archive.is_file():

        def from_zip(name: str) -> bytes:
            with zipfile.ZipFile(archive) as zf:
                try:
                    return zf.read(f"{folder.name}/{name}")
                except KeyError:
                    raise OSError(f"{archive} holds no {folder.name}/{name}") from None

        return from_zip
    return lambda name: (folder / name).read_bytes()


def _read(folder: Path, report: CheckReport) -> tuple[dict[str, Any] | None, dict[str, bytes]]:
    """The manifest and the files, each hash checked."""
    read = _reader(folder)
    try:
        manifest = json.loads(read(MANIFEST_FILE).decode("utf-8"))
    except (OSError, ValueError) as exc:
        report.fail(f"cannot read {MANIFEST_FILE}: {exc}")
        return None, {}
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        report.fail(f"{MANIFEST_FILE} is not a {FORMAT} manifest")
        return None, {}
    data: dict[str, bytes] = {}
    listed = manifest.get("files") or {}
    for name in FILES:
        try:
            data[name] = read(name)
        except OSError as exc:
            report.fail(f"cannot read {name}: {exc}")
            return None, {}
        want = (listed.get(name) or {}).get("sha256")
        if want != sha256(data[name]):
            report.fail(f"{name} does not match its SHA-256 in the manifest (changed?)")
            return None, {}
    report.passed.append("file hashes match the manifest")
    return manifest, data


def _puzzle(manifest: dict[str, Any], report: CheckReport) -> Puzzle | None:
    """The manifest's puzzle under its rules spec."""
    try:
        rules = Rules.from_spec(manifest["rules"])
        puzzle = Puzzle(rules, tuple(int(v) for v in manifest["cells"]))
        puzzle.check()
    except (KeyError, TypeError, ValueError, PuzzleError) as exc:
        report.fail(f"the manifest's puzzle or rules are not valid: {exc}")
        return None
    return puzzle


def _solution(puzzle: Puzzle, data: bytes, report: CheckReport) -> Puzzle | None:
    """The solution file's grid, checked by the verifier."""
    from cpsudoku.model.forms import parse

    text = data.decode("utf-8", "replace").strip()
    try:
        if puzzle.n <= 35:
            solution = parse(text, puzzle.rules, check=False)
        else:
            solution = Puzzle(puzzle.rules, tuple(int(v) for v in text.split()))
    except (ValueError, PuzzleError) as exc:
        report.fail(f"the solution cannot be read: {exc}")
        return None
    problems = solution_problems(puzzle, solution)
    if problems:
        report.fail(f"the solution is wrong: {problems[0]}")
        return None
    report.passed.append("the solution solves the puzzle (verifier)")
    return solution


def _clauses(data: bytes, report: CheckReport) -> list[Clause] | None:
    """The CNF file's clauses (DIMACS), header count checked."""
    clauses: list[Clause] = []
    declared: int | None = None
    pending: list[int] = []
    try:
        for line in data.decode("ascii").splitlines():
            line = line.strip()
            if not line or line[0] == "c":
                continue
            if line[0] == "p":
                declared = int(line.split()[3])
                continue
            for token in line.split():
                x = int(token)
                if x:
                    pending.append(x)
                else:
                    clauses.append(tuple(pending))
                    pending = []
    except (UnicodeDecodeError, ValueError, IndexError) as exc:
        report.fail(f"the CNF is not DIMACS: {exc}")
        return None
    if pending or declared != len(clauses):
        header = "no" if declared is None else f"{declared:,}"
        report.fail(f"the CNF header declares {header} clauses but it holds {len(clauses):,}")
        return None
    return clauses


def _against_plain(
    clauses: list[Clause],
    puzzle: Puzzle,
    solution: Puzzle,
    report: CheckReport,
    auxiliary: object = None,
    on_step: Step = no_step,
) -> bool:
    """True when every clause is implied by the rules, the givens and the exclusion.

    ``auxiliary`` is the manifest's list of auxiliary meanings (None: there are none).
    """
    rules = puzzle.rules
    try:
        meanings = read_meanings(auxiliary, rules)
    except MeaningError as exc:
        report.fail(f"the manifest's auxiliary meanings are not valid: {exc}")
        return False
    sums = LayeredClauses(puzzle, meanings)
    allowed = reduced_by_givens(plain_clauses(rules), puzzle)
    allowed.add(frozenset(exclusion_clause(puzzle, solution)))
    top = rules.n * rules.cells
    aux: list[Clause] = []
    meant = 0
    on_step("checking the CNF against the plain encoding", 0, len(clauses))
    for k, c in enumerate(clauses, 1):
        if not k & 255:
            on_step("checking the CNF against the plain encoding", k, len(clauses))
        if frozenset(c) in allowed:
            continue
        extra = [v for x in c if (v := abs(x)) > top]
        if extra:
            owners = {meanings[v].owner for v in extra if v in meanings}
            if not owners:
                aux.append(c)  # no declared meaning: shown extendable below
                continue
            if len(owners) > 1 or any(v not in meanings for v in extra):
                return _bad(
                    report,
                    k,
                    c,
                    "mixes auxiliary variables of different constraints, or declared "
                    "ones with undeclared ones",
                )
            owner = owners.pop()
            if not sums.holds(c, owner):
                what = f"{rules.constraints[owner[0]].kind} #{owner[0]}"
                return _bad(
                    report, k, c, f"is not true under the declared meanings of {what}'s variables"
                )
            meant += 1
        elif sums.cell_clause_holds(c):
            meant += 1
        elif not (rules.constraints and implied_by_constraints(c, rules)):
            return _bad(report, k, c, "is not a clause of the plain encoding")
    for group in _groups(aux, top):
        if not extension_holds(group, rules):
            return _bad(report, 0, group[0], "(with auxiliary variables) may rule out a grid")
    how = "implied by the plain encoding, the givens and the exclusion clause"
    if rules.constraints:
        how += " (constraint clauses shown implied by enumeration"
        if meant:
            how += (
                f"; {count_of(meant, 'clause')} of sums, automata and counts true under their "
                "declared meanings"
            )
        how += ")"
    report.passed.append(f"the CNF is {how}")
    return True


def _bad(report: CheckReport, k: int, clause: Clause, why: str) -> bool:
    where = f"clause {k}" if k else "clause"
    report.fail(f"the CNF's {where} ({' '.join(map(str, clause))} 0) {why}")
    return False


def _groups(clauses: list[Clause], top: int) -> list[list[Clause]]:
    """``clauses`` grouped so that no auxiliary variable occurs in two groups."""
    owner: dict[int, int] = {}
    groups: list[list[Clause]] = []
    for c in clauses:
        found = sorted({owner[v] for x in c if (v := abs(x)) > top and v in owner})
        if not found:
            groups.append([])
            g = len(groups) - 1
        else:
            g = found[0]
            for other in found[1:]:
                groups[g].extend(groups[other])
                for v, o in owner.items():
                    if o == other:
                        owner[v] = g
                groups[other] = []
        groups[g].append(c)
        for x in c:
            if abs(x) > top:
                owner[abs(x)] = g
    return [g for g in groups if g]
