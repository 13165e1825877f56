"""A certificate's file format, shared by the side that writes it and the checker.

Only what both sides must agree on and nothing of the encoder: the format name, the
file names, the hash, the clause excluding the solution, and the DRUP check with
``dratify``. :mod:`cpsudoku.evidence.check` imports from here, so the checker's imports
never reach :mod:`cpsudoku.encode` (the fast encoder it must not trust).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from cpsudoku.model.puzzle import Puzzle

#: The manifest's format name; a checker refuses any other.
FORMAT = "cpsudoku-certificate/1"

#: The certificate's files besides ``manifest.json``, each hashed in the manifest.
SOLUTION_FILE = "solution.txt"
CNF_FILE = "formula.cnf"
PROOF_FILE = "proof.drup"
MANIFEST_FILE = "manifest.json"
FILES: tuple[str, ...] = (SOLUTION_FILE, CNF_FILE, PROOF_FILE)

Clause = tuple[int, ...]

#: A progress callback of certify and check-certificate: (what is being done, units
#: done, units in all; 0 in all when it is not counted).
Step = Callable[[str, int, int], None]


def no_step(stage: str, done: int, total: int) -> None:
    """The progress callback that shows nothing."""


def sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def exclusion_clause(puzzle: Puzzle, solution: Puzzle) -> Clause:
    """The clause "not this solution", over the open cells only."""
    n = puzzle.n
    pairs = enumerate(zip(puzzle.cells, solution.cells, strict=True))
    return tuple(-(i * n + v) for i, (g, v) in pairs if not g)


def check_proof(clauses: Sequence[Clause], proof: str) -> tuple[bool, str, bool]:
    """Check ``proof`` against ``clauses`` with dratify.

    dratify's pure-Python checker, or its Rust one when installed (``pip install
    "cdclkit[native]"``, which registers it when ``cdclkit`` is imported): about ten
    times faster on the long proofs of little killers, and differentially tested
    against the Python one by dratify. The reason then ends with ``(native checker)``.

    Returns:
        (accepted, the checker's reason, True when unit propagation alone refutes).
    """
    import dratify

    _register_native()

    cnf = dratify.CNF()
    add = cnf.add_dimacs
    for c in clauses:
        add(c)
    try:
        result = dratify.check_proof(cnf, proof)
    except ValueError as exc:  # malformed proof text
        return False, f"the proof is malformed: {exc}", False
    reason = result.reason
    if dratify.native_available():
        reason += " (native checker)"
    if not result.ok and result.failed_clause is not None:
        from dratify.lits import to_dimacs as lit

        step = " ".join(str(lit(x)) for x in result.failed_clause)
        reason = f"{reason} (step {result.failed_step}: {step} 0)"
    return bool(result.ok), reason, "unit propagation alone" in result.reason


def _register_native() -> None:
    """Let dratify use the Rust checker when ``cdclkit[native]`` is installed."""
    import importlib
    from contextlib import suppress

    with suppress(ImportError):  # importing it registers cdclkit_native with dratify
        importlib.import_module("cdclkit")
