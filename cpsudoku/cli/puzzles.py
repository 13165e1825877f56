"""The one-puzzle commands: ``solve``, ``count`` and ``export``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cpsudoku.cli.common import (
    EXIT_FOR_STATUS,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_UNSOLVABLE,
    PUZZLE_HELP,
    STATUS_TEXT,
    Command,
    PuzzleInput,
    UsageError,
    add_backend_options,
    add_box_options,
    add_setter_options,
    backend_spec,
    check_time_limit_option,
    puzzle_input,
    refuse_overwrite,
)
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.result import Result, Status
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    from cpsudoku.model.puzzle import Puzzle
    from cpsudoku.model.rules import Rules


def _configure_solve(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_backend_options(p)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument(
        "--no-unique", action="store_true", help="stop at the first solution (status solved)"
    )
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for this puzzle")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_solve(args: argparse.Namespace) -> int:
    from cpsudoku.api import solve

    check_time_limit_option(args.time_limit)
    given = puzzle_input(args)
    text = given.puzzle
    result = solve(
        text,
        backend=backend_spec(args),
        unique=not args.no_unique,
        time_limit=args.time_limit,
        box=args.box,
        symbols=args.symbols,
    )
    rules = _rules_of(result, text, args)
    contradiction = (
        result.status is Status.UNSOLVABLE
        and rules is not None
        and (_rules_contradict(rules, args))
    )
    if args.json:
        record = result.to_dict()
        if result.solution is not None:
            record["solution"] = result.solution.line(args.symbols)
        if result.solutions:
            record["solutions"] = [s.line(args.symbols) for s in result.solutions]
        if contradiction:
            record["error"] = RULES_CONTRADICT
        print(json.dumps(record))
    else:
        if rules is not None and not rules.is_classic:  # what was applied beyond classic
            print("rules: " + "; ".join(rules.describe()))
        if result.solution is not None:
            print(result.solution.pretty(args.symbols))
            print()
        line = STATUS_TEXT[result.status]
        if contradiction:
            line = f"unsolvable: {RULES_CONTRADICT}"
        if result.status is Status.UNSOLVABLE:
            line += "; run 'cpsudoku explain' to see which rules and givens clash"
        elif result.error and result.status in (Status.INVALID, Status.REFUSED):
            line = f"{line}: {result.error}"
        print(f"{line} ({result.backend}, {result.seconds * 1000:.1f} ms)")
    given.check_answer(result.solution)
    return EXIT_FOR_STATUS[result.status]


#: What ``solve`` says of an unsolvable puzzle whose rules alone have no solution.
RULES_CONTRADICT = "the rules contradict each other: no grid keeps them, even with no givens"


def _rules_of(result: Result, text: str | Puzzle, args: argparse.Namespace) -> Rules | None:
    """The rules of the solved puzzle (read again when no solution carries them)."""
    if result.solution is not None:
        return result.solution.rules
    if result.status is Status.INVALID:
        return None
    if not isinstance(text, str):
        return text.rules
    from cpsudoku.model.forms import parse

    try:
        return parse(text, args.box, check=False, symbols=args.symbols).rules
    except PuzzleError:
        return None


def _rules_contradict(rules: Rules, args: argparse.Namespace) -> bool:
    """True when ``rules`` alone, on an empty grid, have no solution (proven in time)."""
    from cpsudoku.api import count_solutions
    from cpsudoku.model.puzzle import Puzzle

    empty = Puzzle(rules, (0,) * rules.cells)
    limit = min(args.time_limit or RULES_CHECK_SECONDS, RULES_CHECK_SECONDS)
    found = count_solutions(empty, 1, backend_spec(args), time_limit=limit)
    return found.complete and found.count == 0


#: The most time ``solve`` spends on asking whether an unsolvable puzzle's rules alone
#: have a solution (a blank grid under a few rules is usually quick).
RULES_CHECK_SECONDS = 10.0


def _configure_count(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    p.add_argument(
        "--limit", type=int, default=1000, metavar="K", help="stop counting at K (default 1000)"
    )
    add_backend_options(p)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for the count")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_count(args: argparse.Namespace) -> int:
    from cpsudoku.api import count_solutions

    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    check_time_limit_option(args.time_limit)
    found = count_solutions(
        puzzle_input(args).puzzle,
        args.limit,
        backend_spec(args),
        time_limit=args.time_limit,
        box=args.box,
        symbols=args.symbols,
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
            f"at least {count_of(found.count, 'solution')} ({why}; {found.backend}, "
            f"{found.seconds * 1000:.1f} ms)"
        )
    if found.timed_out:
        return EXIT_TIMEOUT
    return EXIT_OK if found.count else EXIT_UNSOLVABLE


#: The formats ``export`` writes: encodings, and the setters' tools.
EXPORTS = ("dimacs", "cpsat", "fpuzzles", "fpuzzles-link", "sudokupad")


def _configure_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    p.add_argument(
        "--to",
        required=True,
        choices=EXPORTS,
        help="dimacs (CNF), cpsat (a CP-SAT model), fpuzzles (f-puzzles' JSON), "
        "fpuzzles-link (an f-puzzles share link), sudokupad (a SudokuPad link)",
    )
    add_box_options(p)
    add_setter_options(p)
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write here instead of stdout (- is stdout)"
    )


def _run_export(args: argparse.Namespace) -> int:
    refuse_overwrite(args.puzzle, args.output)
    given = puzzle_input(args)
    if args.to in ("dimacs", "cpsat"):
        from cpsudoku.encode.export import export

        text = export(given.puzzle, args.to, box=args.box)
    else:
        text = _setters_export(given, args) + "\n"
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _setters_export(given: PuzzleInput, args: argparse.Namespace) -> str:
    """The puzzle in f-puzzles' JSON, as an f-puzzles link, or as a SudokuPad link."""
    from cpsudoku.model.forms import parse
    from cpsudoku.model.fpuzzles import fpuzzles_link, to_fpuzzles

    puzzle = given.puzzle if not isinstance(given.puzzle, str) else parse(given.puzzle, args.box)
    setter = given.setter
    obj = to_fpuzzles(
        puzzle,
        title=setter.title if setter else "",
        author=setter.author if setter else "",
        ruleset=setter.ruleset if setter else "",
    )
    if args.to == "fpuzzles":
        return json.dumps(obj)
    if args.to == "fpuzzles-link":
        return fpuzzles_link(obj)
    from cpsudoku.model.sudokupad import to_sudokupad

    return to_sudokupad(
        puzzle,
        title=setter.title if setter else "",
        author=setter.author if setter else "",
        ruleset=setter.ruleset if setter else "",
    )


def _configure_show(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument("--json", action="store_true", help="print the puzzle's JSON only")


def _run_show(args: argparse.Namespace) -> int:
    """The puzzle as read: its grid, every rule on a line of its own, and its JSON."""
    from cpsudoku.model.forms import parse

    given = puzzle_input(args)
    puzzle = parse(given.puzzle, args.box, check=False)
    spec = {"rules": puzzle.rules.spec(), "puzzle": puzzle.line(args.symbols)}
    if args.json:
        print(json.dumps(spec))
        return EXIT_OK
    setter = given.setter
    if setter is not None:
        for label, value in (("title", setter.title), ("author", setter.author)):
            if value:
                print(f"{label}: {value}")
    print(puzzle.pretty(args.symbols))
    print()
    for line in puzzle.rules.describe():
        print(f"- {line}")
    n = puzzle.n
    for c in puzzle.rules.constraints:
        print(f"  - {c.describe(n)}")
    givens = sum(1 for v in puzzle.cells if v)
    print(f"{givens} given{'s' * (givens != 1)}")
    if setter is not None and setter.ruleset:
        print("rules text: " + " ".join(setter.ruleset.split()))
    print("json: " + json.dumps(spec))
    return EXIT_OK


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "solve": (
        "solve one puzzle",
        _configure_solve,
        _run_solve,
    ),
    "count": (
        "count the solutions of one puzzle, up to a limit",
        _configure_count,
        _run_count,
    ),
    "export": (
        "write a puzzle's encoding (DIMACS CNF, a CP-SAT model) or its f-puzzles or SudokuPad form",
        _configure_export,
        _run_export,
    ),
    "show": (
        "show a puzzle as read: its grid, every rule on a line, its JSON",
        _configure_show,
        _run_show,
    ),
}
