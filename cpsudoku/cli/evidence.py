"""The evidence commands: ``certify``, ``check-certificate``, ``candidates``, ``estimate``.

``certify`` exits 0 when the certificate is written and its proof accepted, 1 when the
puzzle has none (not unique, or unsolvable: the reason is printed, with the two
witnesses of a ``multiple`` one), 2 for invalid input, 3 when ``--time-limit`` ran
out. ``check-certificate`` exits 0 when every check passes, 1 otherwise, each reason
printed. ``candidates`` exits 0 when the puzzle has a solution, 1 when it has none, 3
when ``--time-limit`` ran out first (the candidates found by then are printed);
``--cap N`` adds each candidate's number of solutions, up to N. ``estimate`` prints
a line per update on stderr and the last on stdout; it exits 0, or 1 when the puzzle
is counted exactly and has no solution. Each
shows what it is doing on a progress line while stderr is a terminal (not with
``--quiet``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from cpsudoku.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_UNSOLVABLE,
    PUZZLE_HELP,
    Command,
    add_backend_options,
    add_box_options,
    add_setter_options,
    backend_spec,
    check_time_limit_option,
    puzzle_arg,
)
from cpsudoku.cli.progress import Progress, progress_bar, progress_wanted
from cpsudoku.evidence.files import CHECKERS
from cpsudoku.model.constraints import cell_name
from cpsudoku.model.result import Status
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    from cpsudoku.evidence.estimate import Estimate


def _add_run_options(p: argparse.ArgumentParser, engine_help: str) -> None:
    """``--backend``/``--sat-solver``, ``--time-limit`` and ``--quiet``."""
    add_backend_options(p)
    p.add_argument("--time-limit", type=float, metavar="S", help=engine_help)
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def _stepper(bar: Progress) -> Callable[[str, int, int], None]:
    """A progress callback of the evidence functions that shows its step on ``bar``."""

    def step(stage: str, done: int, total: int) -> None:
        bar.stage(stage, done, total or None)

    return step


def _configure_certify(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="certificate folder")
    add_box_options(p)
    add_setter_options(p)
    _add_run_options(
        p,
        "seconds for the whole; the solve and the core search stop at it (exit 3), no "
        "later step starts past it (the proof's CaDiCaL and the check, once started, "
        "cannot be stopped)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_certify(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.certificate import CertificateError, certify
    from cpsudoku.model.forms import parse

    check_time_limit_option(args.time_limit)
    spec = backend_spec(args)
    puzzle = parse(puzzle_arg(args), args.box, check=False)
    try:
        with progress_bar(progress_wanted(args), None, "step", "certify") as bar:
            cert = certify(
                puzzle,
                args.output,
                backend=spec,
                time_limit=args.time_limit,
                on_step=_stepper(bar),
            )
    except CertificateError as exc:
        result = exc.result
        if result is None or result.status is Status.INVALID:
            code = EXIT_INVALID
        elif result.status is Status.TIMEOUT:
            code = EXIT_TIMEOUT
        else:
            code = 1
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
                    "backend": spec,
                    "seconds": round(seconds, 6),
                }
            )
        )
    else:
        print(cert.solution.pretty(args.symbols))
        print()
        state = "accepted" if cert.checked else "REJECTED"
        print(
            f"unique: certificate written to {args.output} "
            f"(proof {count_of(len(cert.proof), 'byte')}; "
            f"{state} by dratify: {cert.verdict}; {seconds * 1000:.1f} ms)"
        )
    return EXIT_OK if cert.checked else 1


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "directory",
        metavar="DIR",
        help="a folder written by cpsudoku certify, or ARCHIVE.zip/INDEX as a batch's "
        "certificate column names it",
    )
    p.add_argument(
        "--checker",
        choices=CHECKERS,
        default="auto",
        help="the proof's checker: auto (dratify with a compiled checker where there is "
        "one: cdclkit's, else cpsudoku's own) or python (dratify's pure-Python checker, "
        "about ten times slower on long proofs); default auto",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def _run_check(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.check import check_certificate

    with progress_bar(progress_wanted(args), None, "clause", "check") as bar:
        report = check_certificate(args.directory, on_step=_stepper(bar), checker=args.checker)
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
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_box_options(p)
    add_setter_options(p)
    _add_run_options(
        p,
        "seconds for the whole; when they run out the candidates found so far are "
        "printed (each a true one, not necessarily all) and the exit code is 3",
    )
    p.add_argument(
        "--cap",
        type=int,
        default=1,
        metavar="N",
        help="count the solutions holding each candidate, up to N (default 1: only "
        "whether some solution does; 0: no cap), and print the counts",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_candidates(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.candidates import default_cache
    from cpsudoku.model.forms import parse

    check_time_limit_option(args.time_limit)
    if args.cap < 0:
        print(
            f"cpsudoku candidates: --cap must be 0 (no cap) or more, got {args.cap}",
            file=sys.stderr,
        )
        return EXIT_INVALID
    spec = backend_spec(args)
    puzzle = parse(puzzle_arg(args), args.box, check=False)
    with progress_bar(progress_wanted(args), None, "call", "candidates") as bar:
        bar.stage(f"candidates ({spec})")
        found = default_cache().get(puzzle, cap=args.cap, backend=spec, time_limit=args.time_limit)
    n = found.puzzle.n
    code = EXIT_OK if found.solvable else EXIT_UNSOLVABLE
    if not found.complete:
        code = EXIT_TIMEOUT
    if args.json:
        print(
            json.dumps(
                {
                    "candidates": [list(found.values(i)) for i in range(len(found.masks))],
                    "unique": found.unique,
                    "solvable": found.solvable,
                    "complete": found.complete,
                    "ambiguous": [cell_name(i, n) for i in found.ambiguous],
                    "backend": found.backend,
                    "cap": found.cap,
                    "counts": list(found.counts),
                    "cached": found.cached,
                    "calls": found.calls,
                    "seconds": round(found.seconds, 6),
                }
            )
        )
        return code
    if not found.complete:
        print(
            f"cpsudoku candidates: the time limit of {args.time_limit:g} s ran out after "
            f"{count_of(found.calls, 'call')}: the candidates shown are true "
            "ones, not necessarily all",
            file=sys.stderr,
        )
        if not found.solvable:
            return code
    elif not found.solvable:
        print(f"no solution: no cell has a true candidate ({found.seconds * 1000:.1f} ms)")
        return EXIT_UNSOLVABLE
    print(found.pencilmarks())
    print()
    if found.cap != 1:
        cap = f"up to {found.cap}" if found.cap else "no cap"
        print(f"solutions holding each candidate ({cap}; in the order above):")
        print(found.count_grid())
        print()
    if not found.complete:
        print(f"incomplete ({count_of(found.calls, 'call')}, {found.seconds * 1000:.1f} ms)")
        return code
    if found.unique:
        print("unique: one true candidate per cell", end="")
    else:
        cells = " ".join(cell_name(i, n) for i in found.ambiguous)
        print(
            f"not unique: {count_of(len(found.ambiguous), 'cell')} with several true "
            f"candidates: {cells}",
            end="",
        )
    sat = found.backend.split(":")[0] == "sat"
    calls = count_of(found.calls, "SAT call" if sat else f"{found.backend} solve")
    print(f" ({calls}, {found.seconds * 1000:.1f} ms)")
    return EXIT_OK


#: The time ``estimate`` runs with neither ``--time-limit`` nor ``--iterations``.
ESTIMATE_SECONDS = 5.0


def _configure_estimate(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help=f"seconds of probing (default {ESTIMATE_SECONDS:g} when --iterations is not given)",
    )
    p.add_argument("--iterations", type=int, metavar="N", help="stop after N probes")
    p.add_argument("--seed", type=int, help="seed of the random probes (repeatable runs)")
    p.add_argument("--json", action="store_true", help="print JSON objects")
    p.add_argument("--quiet", action="store_true", help="no update lines on stderr")


def _estimate_line(e: Estimate) -> str:
    """One estimate in words."""
    if e.exact:
        return f"exactly {e.estimate:.0f} solutions (counted)"
    return (
        f"about {e.estimate:.6g} solutions (stderr {e.stderr:.3g}, 95% interval "
        f"{e.ci95_lower:.6g} to {e.ci95_upper:.6g}, relative error "
        f"{e.rel_err_percent:.2f}%, {e.iterations} probes)"
    )


def _run_estimate(args: argparse.Namespace) -> int:
    from cpsudoku.evidence.estimate import estimates
    from cpsudoku.model.forms import parse

    check_time_limit_option(args.time_limit)
    if args.iterations is not None and args.iterations < 1:
        print(
            f"cpsudoku estimate: --iterations must be 1 or more, got {args.iterations}",
            file=sys.stderr,
        )
        return EXIT_INVALID
    seconds = args.time_limit
    if seconds is None and args.iterations is None:
        seconds = ESTIMATE_SECONDS
    puzzle = parse(puzzle_arg(args), args.box, check=False)
    last = None
    for last in estimates(puzzle, seed=args.seed, time_limit=seconds, iterations=args.iterations):
        if not args.quiet:
            line = json.dumps(last.to_dict()) if args.json else _estimate_line(last)
            print(line, file=sys.stderr, flush=True)
    assert last is not None  # estimates yields at least once
    print(json.dumps(last.to_dict()) if args.json else _estimate_line(last))
    return EXIT_UNSOLVABLE if last.exact and last.estimate == 0 else EXIT_OK


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
    "estimate": (
        "estimate the number of solutions (Knuth's random probes), with a 95%% interval",
        _configure_estimate,
        _run_estimate,
    ),
}
