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


#: The proof checkers :func:`check_proof` takes: ``auto`` (a compiled one where there
#: is one) and ``python`` (dratify's own Python checker, always).
CHECKERS: tuple[str, ...] = ("auto", "python")


def check_proof(
    clauses: Sequence[Clause], proof: str, checker: str = "auto"
) -> tuple[bool, str, bool]:
    """Check ``proof`` against ``clauses`` with dratify.

    dratify runs its forward DRAT check with a compiled checker when one is there:
    the Rust one of ``cdclkit[native]`` when installed (the reason then ends with
    ``(native checker)``), else cpsudoku's own (``evidence/_drup.c``: dratify's
    algorithm step for step in C, built with the package, tested to give dratify's
    verdict, failing step and counters on every certificate and on corrupted proofs;
    the reason ends with ``(cpsudoku's compiled checker)``), else its pure-Python
    checker. Ours also reads the proof text itself, by dratify's parsing rules,
    where the text holds only what those rules read one way (clause lines of digits,
    signs and ``d``, comment lines); any other text goes through dratify's parser,
    which reads it or names what it refuses. Past the check, parsing was most of the
    time on long proofs: dratify builds a Python tuple per step. ``checker="python"``
    asks for dratify's Python parser and checker whatever is installed: about ten
    times slower on the long proofs of little killers and non-consecutive grids, and
    the one written apart from every solver.

    Returns:
        (accepted, the checker's reason, True when unit propagation alone refutes).
    """
    import dratify

    if checker not in CHECKERS:
        raise ValueError(f"unknown proof checker {checker!r}; one of {', '.join(CHECKERS)}")
    cnf = dratify.CNF()
    add = cnf.add_dimacs
    for c in clauses:
        add(c)
    ours = _register_native() if checker == "auto" else None
    try:
        raw = None if ours is None else _check_text(ours, cnf, proof)
        if raw is not None:
            ok, reason, failed_step, failed = raw
            native = ours
        else:
            result = dratify.check_proof(
                cnf, proof, engine="auto" if checker == "auto" else "python"
            )
            ok, reason = result.ok, result.reason
            failed_step, failed = result.failed_step, result.failed_clause
            native = dratify.native_implementation() if checker == "auto" else None
    except ValueError as exc:  # malformed proof text
        return False, f"the proof is malformed: {exc}", False
    finally:
        if ours is not None:  # registered for this call only
            dratify.register_native(None)
    if native is not None:
        reason += " (cpsudoku's compiled checker)" if native is ours else " (native checker)"
    if not ok and failed is not None:
        from dratify.lits import to_dimacs as lit

        step = " ".join(str(lit(x)) for x in failed)
        reason = f"{reason} (step {failed_step}: {step} 0)"
    return bool(ok), reason, "unit propagation alone" in reason


def _check_text(
    ours: object, cnf: object, proof: str
) -> tuple[bool, str, int, tuple[int, ...] | None] | None:
    """Our compiled checker on the proof text: (ok, reason, failed step, its literals).

    None when the text is one only dratify's parser may read (or refuse).
    """
    raw = ours.check_text(  # type: ignore[attr-defined]
        cnf.nvars,  # type: ignore[attr-defined]
        [list(c) for c in cnf.clauses],  # type: ignore[attr-defined]
        proof,
        True,
        True,
    )
    if raw is None:
        return None
    return raw[0], raw[1], raw[8], raw[10]


def _register_native() -> object | None:
    """Give dratify a compiled checker: ``cdclkit[native]``'s when installed, else ours.

    Importing ``cdclkit`` registers its Rust checker with dratify. Without it,
    cpsudoku's (:mod:`cpsudoku.evidence.drup`, when built) is registered and
    returned, for the caller to unregister after its check: dratify's registry is
    process-wide.
    """
    import importlib
    from contextlib import suppress

    import dratify

    with suppress(ImportError):  # importing it registers cdclkit_native with dratify
        importlib.import_module("cdclkit")
    if dratify.native_implementation() is not None:
        return None
    from cpsudoku.evidence.drup import compiled_checker

    ours = compiled_checker()
    if ours is not None:
        dratify.register_native(ours)
    return ours
