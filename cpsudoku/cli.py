"""The ``cpsudoku`` command line: a thin layer over the Python API.

``main(argv) -> int`` does all the work and returns the exit code, so tests call it
directly; :func:`entrypoint` wraps it for the console script.

Exit codes: 0 a solution was found (or the command succeeded); 1 proven unsolvable;
2 invalid input or usage; 3 time limit reached.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from cpsudoku import __version__
from cpsudoku.backends import DEFAULT_BACKEND, REGISTRY
from cpsudoku.errors import CpSudokuError, PuzzleError
from cpsudoku.result import Status

EXIT_OK, EXIT_UNSOLVABLE, EXIT_INVALID, EXIT_TIMEOUT = 0, 1, 2, 3

_EXIT_FOR_STATUS = {
    Status.UNIQUE: EXIT_OK,
    Status.MULTIPLE: EXIT_OK,
    Status.SOLVED: EXIT_OK,
    Status.UNSOLVABLE: EXIT_UNSOLVABLE,
    Status.INVALID: EXIT_INVALID,
    Status.TIMEOUT: EXIT_TIMEOUT,
}

_STATUS_TEXT = {
    Status.UNIQUE: "unique: the only solution",
    Status.MULTIPLE: "multiple: solved, but another solution exists",
    Status.SOLVED: "solved (uniqueness not checked)",
    Status.UNSOLVABLE: "unsolvable: the puzzle has no solution",
    Status.INVALID: "invalid",
    Status.TIMEOUT: "timeout: the time limit ran out",
}


class UsageError(CpSudokuError):
    """A command-line mistake reported with exit code 2."""


def read_puzzle_arg(arg: str) -> str:
    """PUZZLE as given: ``-`` reads standard input, an existing file is read, else text."""
    if arg == "-":
        return sys.stdin.read()
    path = Path(arg)
    try:
        if len(arg) < 4096 and path.is_file():
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {arg}: {exc}") from None
    return arg


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        default=DEFAULT_BACKEND,
        metavar="NAME",
        help=f"engine, with optional variants as NAME:VARIANT (one of: "
        f"{', '.join(REGISTRY)}; default: {DEFAULT_BACKEND})",
    )


def _add_box(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--box",
        metavar="RxC",
        help="box shape, e.g. 2x3 for 6x6 grids (default: inferred from the size)",
    )


def _configure_solve(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    _add_backend(p)
    _add_box(p)
    p.add_argument(
        "--no-unique", action="store_true", help="stop at the first solution (status solved)"
    )
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for this puzzle")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_solve(args: argparse.Namespace) -> int:
    from cpsudoku.api import solve

    result = solve(
        read_puzzle_arg(args.puzzle),
        backend=args.backend,
        unique=not args.no_unique,
        time_limit=args.time_limit,
        box=args.box,
    )
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        if result.solution is not None:
            print(result.solution.pretty())
            print()
        text = _STATUS_TEXT[result.status]
        if result.error and result.status is Status.INVALID:
            text = f"{text}: {result.error}"
        print(f"{text} ({result.backend}, {result.seconds * 1000:.1f} ms)")
    return _EXIT_FOR_STATUS[result.status]


def _configure_count(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    p.add_argument(
        "--limit", type=int, default=1000, metavar="K", help="stop counting at K (default 1000)"
    )
    _add_backend(p)
    _add_box(p)
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for the count")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_count(args: argparse.Namespace) -> int:
    from cpsudoku.api import count_solutions

    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    found = count_solutions(
        read_puzzle_arg(args.puzzle),
        args.limit,
        args.backend,
        time_limit=args.time_limit,
        box=args.box,
    )
    if args.json:
        print(json.dumps(found.to_dict()))
    elif found.complete:
        print(
            f"{found.count} solution{'s' * (found.count != 1)} ({found.backend}, "
            f"{found.seconds * 1000:.1f} ms)"
        )
    else:
        why = "time limit reached" if found.timed_out else "limit reached"
        print(
            f"at least {found.count} solutions ({why}; {found.backend}, "
            f"{found.seconds * 1000:.1f} ms)"
        )
    if found.timed_out:
        return EXIT_TIMEOUT
    return EXIT_OK if found.count else EXIT_UNSOLVABLE


def _configure_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    p.add_argument("--to", required=True, choices=["dimacs", "cpsat"], help="output format")
    _add_box(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


def _run_export(args: argparse.Namespace) -> int:
    from cpsudoku.export import export

    text = export(read_puzzle_arg(args.puzzle), args.to, box=args.box)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


#: Subcommands: name -> (help, configure, run). Each run returns the exit code.
COMMANDS: dict[
    str,
    tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]],
] = {
    "solve": ("solve one puzzle", _configure_solve, _run_solve),
    "count": ("count the solutions of one puzzle, up to a limit", _configure_count, _run_count),
    "export": (
        "write a puzzle's encoding: DIMACS CNF or a CP-SAT model",
        _configure_export,
        _run_export,
    ),
}


def build_parser(prog: str = "cpsudoku") -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Solve, count, batch-solve and benchmark Sudoku puzzles of any box "
        "shape with SAT, CP-SAT and backtracking engines.",
        epilog="Exit codes: 0 solved, 1 unsolvable, 2 invalid input or usage, 3 timeout.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, configure, _run) in COMMANDS.items():
        configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def _error(args: argparse.Namespace | None, message: str) -> int:
    """Report a usage or input error: JSON on stdout with --json, else on stderr."""
    if args is not None and getattr(args, "json", False):
        if args.command == "count":
            print(
                json.dumps(
                    {
                        "count": None,
                        "limit": args.limit,
                        "complete": False,
                        "backend": args.backend,
                        "seconds": 0.0,
                        "error": message,
                    }
                )
            )
        else:
            print(
                json.dumps(
                    {
                        "status": "invalid",
                        "solution": None,
                        "backend": getattr(args, "backend", None),
                        "seconds": 0.0,
                        "error": message,
                    }
                )
            )
    else:
        print(f"cpsudoku: error: {message}", file=sys.stderr)
    return EXIT_INVALID


def main(argv: Sequence[str] | None = None, prog: str = "cpsudoku") -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_INVALID
    run = COMMANDS[args.command][2]
    try:
        return run(args)
    except (PuzzleError, UsageError, CpSudokuError, ValueError) as exc:
        return _error(args, str(exc))
    except KeyboardInterrupt:
        print("cpsudoku: interrupted", file=sys.stderr)
        return 130


def entrypoint() -> None:
    """Console-script entry point."""
    sys.exit(main())
