"""The evidence commands: ``certify``, ``check-certificate`` and ``candidates``.

``certify`` exits 0 when the certificate is written and its proof accepted, 1 when the
puzzle has none (not unique, or unsolvable: the reason is printed, with the two
witnesses of a ``multiple`` one), 2 for invalid input. ``check-certificate`` exits 0
when every check passes, 1 otherwise, each reason printed. ``candidates`` exits 0 when
the puzzle has a solution, 1 when it has none.
"""

from __future__ import annotations

import argparse
import json
import sys

from cpsudoku.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_UNSOLVABLE,
    Command,
    add_box_options,
    puzzle_arg,
)
from cpsudoku.model.constraints import cell_name
from cpsudoku.model.result import Status


def _configure_certify(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="certificate folder")
    add_box_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_certify(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.certificate import CertificateError, certify
    from cpsudoku.model.forms import parse

    puzzle = parse(puzzle_arg(args), args.box, check=False)
    try:
        cert = certify(puzzle, args.output)
    except CertificateError as exc:
        result = exc.result
        code = EXIT_INVALID if result is None or result.status is Status.INVALID else 1
        if args.json:
            record = {"certified": False, "reason": exc.reason}
            if result is not None:
                record.update(result.to_dict())
            print(json.dumps(record))
        else:
            print(f"no certificate: {exc.reason}", file=sys.stderr)
        return code
    seconds = sum(cert.seconds.values())
    if args.json:
        print(
            json.dumps(
                {
                    "certified": cert.checked,
                    "directory": str(args.output),
                    "solution": str(cert.solution),
                    "proof_bytes": len(cert.proof),
                    "verdict": cert.verdict,
                    "seconds": round(seconds, 6),
                }
            )
        )
    else:
        print(cert.solution.pretty(args.symbols))
        print()
        state = "accepted" if cert.checked else "REJECTED"
        print(
            f"unique: certificate written to {args.output} (proof {len(cert.proof)} bytes; "
            f"{state} by dratify: {cert.verdict}; {seconds * 1000:.1f} ms)"
        )
    return EXIT_OK if cert.checked else 1


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", metavar="DIR", help="a folder written by cpsudoku certify")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_check(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.check import check_certificate

    report = check_certificate(args.directory)
    if args.json:
        print(json.dumps({"ok": report.ok, "passed": report.passed, "reasons": report.reasons}))
    else:
        for line in report.passed:
            print(f"ok: {line}")
        for line in report.reasons:
            print(f"FAILED: {line}")
        print(
            "certificate accepted: the puzzle has exactly one solution"
            if report.ok
            else "certificate rejected"
        )
    return EXIT_OK if report.ok else 1


def _configure_candidates(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    add_box_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_candidates(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.candidates import true_candidates
    from cpsudoku.model.forms import parse

    found = true_candidates(parse(puzzle_arg(args), args.box, check=False))
    n = found.puzzle.n
    if args.json:
        print(
            json.dumps(
                {
                    "candidates": [list(found.values(i)) for i in range(len(found.masks))],
                    "unique": found.unique,
                    "solvable": found.solvable,
                    "ambiguous": [cell_name(i, n) for i in found.ambiguous],
                    "calls": found.calls,
                    "seconds": round(found.seconds, 6),
                }
            )
        )
        return EXIT_OK if found.solvable else EXIT_UNSOLVABLE
    if not found.solvable:
        print(f"no solution: no cell has a true candidate ({found.seconds * 1000:.1f} ms)")
        return EXIT_UNSOLVABLE
    print(found.pencilmarks())
    print()
    if found.unique:
        print("unique: one true candidate per cell", end="")
    else:
        cells = " ".join(cell_name(i, n) for i in found.ambiguous)
        print(
            f"not unique: {len(found.ambiguous)} cells with several true candidates: {cells}",
            end="",
        )
    print(f" ({found.calls} SAT calls, {found.seconds * 1000:.1f} ms)")
    return EXIT_OK


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "certify": (
        "prove a puzzle unique: write a checkable certificate (CNF, DRUP proof, manifest)",
        _configure_certify,
        _run_certify,
    ),
    "check-certificate": (
        "check a certificate: hashes, solution, CNF against a plain encoder, proof",
        _configure_check,
        _run_check,
    ),
    "candidates": (
        "the true candidates of each cell: the values some solution holds there",
        _configure_candidates,
        _run_candidates,
    ),
}
