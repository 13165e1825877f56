"""The ``cpsudoku`` command line: a thin layer over the Python API.

``main(argv) -> int`` does all the work and returns the exit code, so tests call it
directly; :func:`entrypoint` wraps it for the console script.

Exit codes: 0 a solution was found (or the command succeeded); 1 proven unsolvable;
2 invalid input or usage; 3 time limit reached. ``batch`` speaks of its records:
0 every record decided (unique, multiple, solved or unsolvable), 3 some timed out,
4 some invalid, 5 some disagree with the input's solution column or with
``--verify-with`` (the highest that applies).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from cpsudoku.cli.batch import COMMANDS as BATCH_COMMANDS
from cpsudoku.cli.bench import COMMANDS as BENCH_COMMANDS
from cpsudoku.cli.canon import COMMANDS as CANON_COMMANDS
from cpsudoku.cli.canon import canon_error_record
from cpsudoku.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_REFUSED,
    EXIT_TERMINATED,
    Command,
    UsageError,
)
from cpsudoku.cli.drawing import COMMANDS as DRAWING_COMMANDS
from cpsudoku.cli.evidence import COMMANDS as EVIDENCE_COMMANDS
from cpsudoku.cli.making import COMMANDS as MAKING_COMMANDS
from cpsudoku.cli.puzzles import COMMANDS as PUZZLE_COMMANDS
from cpsudoku.cli.serving import COMMANDS as SERVE_COMMANDS
from cpsudoku.engines import call_scope, create_backend, native_built
from cpsudoku.engines.interrupts import is_sat_interrupt, raise_interrupt
from cpsudoku.engines.interrupts import jumped as sat_jumped
from cpsudoku.model.errors import CpSudokuError, PuzzleError, UnsupportedRulesError
from cpsudoku.model.forms import AmbiguousZeroWarning
from cpsudoku.model.fpuzzles import FpuzzlesWarning
from cpsudoku.model.result import Count, Result, Status
from cpsudoku.model.sudokupad import SudokuPadWarning
from cpsudoku.rating import Rating
from cpsudoku.version import __version__

#: Subcommands, in the order of ``--help``: name -> (help, configure, run). Each run
#: returns the exit code.
COMMANDS: dict[str, Command] = {
    name: PUZZLE_COMMANDS.get(name)
    or BATCH_COMMANDS.get(name)
    or BENCH_COMMANDS.get(name)
    or EVIDENCE_COMMANDS.get(name)
    or CANON_COMMANDS.get(name)
    or DRAWING_COMMANDS.get(name)
    or SERVE_COMMANDS.get(name)
    or MAKING_COMMANDS[name]
    for name in (
        "solve",
        "count",
        "show",
        "draw",
        "explain",
        "batch",
        "bench",
        "export",
        "generate",
        "rate",
        "certify",
        "check-certificate",
        "candidates",
        "estimate",
        "canon",
        "dedupe",
        "serve",
    )
}


def build_parser(prog: str = "cpsudoku") -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Solve, count, batch-solve and benchmark Sudoku puzzles of any box "
        "shape with SAT, CP-SAT and backtracking engines.",
        epilog="Exit codes: 0 solved, 1 unsolvable, 2 invalid input or usage, 3 timeout, "
        "6 the engine does not take a rule of the puzzle (another does: the message names "
        "it); batch: 0 every record decided, 3 some timed out, 4 some invalid, 5 some "
        "disagree with the input's solutions or with --verify-with, 6 some refused; "
        "130 Ctrl-C, 143 SIGTERM, 141 a closed pipe.",
    )
    compiled = "built" if native_built() else "missing (no C compiler at install time)"
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} (compiled engine: {compiled})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, configure, _run) in COMMANDS.items():
        configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def _error(args: argparse.Namespace | None, message: str, code: int = EXIT_INVALID) -> int:
    """Report a usage or input error: JSON on stdout with --json, else on stderr.

    The JSON is the command's own result type for an invalid input, so it has the keys
    a successful answer has.
    """
    if args is not None and getattr(args, "json", False):
        backend = _whole_spec(getattr(args, "backend", None) or "")
        if args.command == "count":
            record = Count.invalid(message, args.limit, backend).to_dict()
        elif args.command == "rate":
            record = Rating.of_invalid(message).to_dict()
        elif args.command == "canon":
            record = canon_error_record(message)
        else:
            status = Status.REFUSED if code == EXIT_REFUSED else Status.INVALID
            record = Result(status, backend=backend, error=message).to_dict()
        print(json.dumps(record))
    else:
        print(f"cpsudoku: error: {message}", file=sys.stderr)
    return code


def _whole_spec(spec: str) -> str:
    """``spec`` as the engine names itself (``sat:g4`` is ``sat:glucose4``), if it can."""
    if not spec:
        return spec
    try:
        with create_backend(spec) as engine:
            return engine.spec
    except CpSudokuError:  # an unknown engine or variant: the spec as given
        return spec


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the command stops as on Ctrl-C (outputs flushed and closed)."""


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """While running, SIGTERM raises :class:`Terminated` (once; a second one kills).

    Without it the default action ends the process at once: no ``finally`` runs, the
    output's last rows stay in a buffer and the workers are never stopped.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    """Warnings as one line on stderr, like the errors (no source location)."""
    print(f"cpsudoku: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None, prog: str = "cpsudoku") -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_INVALID
    args.argv = list(argv if argv is not None else sys.argv[1:])[1:]
    run = COMMANDS[args.command][2]
    try:
        with _stop_on_sigterm(), warnings.catch_warnings(), call_scope():
            warnings.showwarning = _show_warning
            for told in (AmbiguousZeroWarning, FpuzzlesWarning, SudokuPadWarning):
                warnings.simplefilter("default", told)  # a line on stderr, whatever the caller set
            return run(args)
    except UnsupportedRulesError as exc:  # not bad input: another engine takes the rule
        return _error(args, str(exc), EXIT_REFUSED)
    except (PuzzleError, UsageError, CpSudokuError, ValueError) as exc:
        return _error(args, str(exc))
    except OSError as exc:  # a file that cannot be written or read: name it, no traceback
        if exc.errno == errno.EPIPE:  # the reader left (| head): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_BROKEN_PIPE
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return _error(args, f"{where}{exc.strerror or exc}")
    except Terminated:
        print("cpsudoku: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("cpsudoku: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        # python-sat's report of Ctrl-C (the engines raise KeyboardInterrupt for it;
        # one that escaped them is still Ctrl-C, never a traceback and exit code 1).
        if not is_sat_interrupt(exc):
            raise
        with contextlib.suppress(KeyboardInterrupt):
            raise_interrupt(exc)  # the signal handling put back, the jump noted
        print("cpsudoku: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def entrypoint() -> None:
    """Console-script entry point."""
    code = main()
    if code == EXIT_INTERRUPTED and sat_jumped():
        # Ctrl-C jumped out of a python-sat solver, which may leave native memory
        # damaged (cpsudoku.engines.interrupts): the outputs are closed, so end now,
        # without the teardown's frees, rather than risk an abort on the way out.
        with contextlib.suppress(OSError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
