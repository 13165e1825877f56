"""``serve``: the f-puzzles websocket protocol, a JSON API and a page, on one local port."""

from __future__ import annotations

import argparse
import sys

from cpsudoku.cli.common import EXIT_OK, Command, UsageError

#: The port SudokuSolver listens on, and its f-puzzles userscript connects to.
DEFAULT_PORT = 4545


def _configure_serve(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port (default {DEFAULT_PORT}, where SudokuSolver's f-puzzles userscript "
        "connects)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; any other "
        "lets other machines send work, and a warning says so)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        metavar="N",
        help="worker processes running the solvers (default 2)",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds for each interactive request: true candidates, check, solve, step, "
        "solve path and the API's other calls (default 5)",
    )
    p.add_argument(
        "--count-time-limit",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds for each count, estimate and certificate (default 60)",
    )
    p.epilog = (
        "No request reads or writes a file: every puzzle comes in the request, every "
        "answer (drawing, certificate) goes back in the response. Needs the serve extra: "
        "pip install 'cpsudoku[serve]'."
    )


def _run_serve(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    for name, value in (
        ("--time-limit", args.time_limit),
        ("--count-time-limit", args.count_time_limit),
    ):
        if not value > 0:
            raise UsageError(f"{name} must be a positive number of seconds, got {value}")
    try:
        from cpsudoku.serve.app import Limits, serve
    except ImportError as exc:
        raise UsageError(
            f"serve needs the serve extra ({exc.name} is missing): pip install 'cpsudoku[serve]'"
        ) from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"cpsudoku: warning: listening on {args.host}: other machines that reach it can "
            "send puzzles and use this machine's processors (no file is ever read or written)",
            file=sys.stderr,
        )
    serve(args.host, args.port, args.workers, Limits(args.time_limit, args.count_time_limit))
    return EXIT_OK


#: This module's commands.
COMMANDS: dict[str, Command] = {
    "serve": (
        "serve the f-puzzles integration (SudokuSolver's websocket protocol), a JSON API and "
        "a page on one local port",
        _configure_serve,
        _run_serve,
    ),
}
