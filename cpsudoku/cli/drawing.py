"""``draw``: a puzzle as setters draw it, to SVG or PNG, with what a solve found."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cpsudoku.cli.common import (
    EXIT_OK,
    PUZZLE_HELP,
    Command,
    UsageError,
    add_backend_options,
    add_box_options,
    add_setter_options,
    backend_spec,
    check_time_limit_option,
    puzzle_input,
    refuse_overwrite,
)


def _configure_draw(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        required=True,
        help="the picture: FILE.svg or FILE.png (PNG needs the draw extra); - for SVG on stdout",
    )
    p.add_argument("--solution", action="store_true", help="solve, and draw the solution")
    p.add_argument(
        "--candidates",
        action="store_true",
        help="draw every cell's true candidates (the values some solution holds) as pencil marks",
    )
    p.add_argument(
        "--witnesses",
        action="store_true",
        help="when the puzzle has several solutions, draw one and mark where a second differs",
    )
    p.add_argument("--title", help="a line above the grid (default: the puzzle's own title)")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for the solve")
    add_backend_options(p)
    add_box_options(p)
    add_setter_options(p)


def _run_draw(args: argparse.Namespace) -> int:
    from cpsudoku.api import solve
    from cpsudoku.draw.svg import Picture, to_svg
    from cpsudoku.model.forms import parse

    check_time_limit_option(args.time_limit)
    suffix = Path(args.output).suffix.lower() if args.output != "-" else ".svg"
    if suffix not in (".svg", ".png"):
        raise UsageError(f"-o {args.output}: a picture is .svg or .png")
    refuse_overwrite(args.puzzle, args.output)
    given = puzzle_input(args)
    puzzle = parse(given.puzzle, args.box, check=False)
    solution = candidates = None
    highlight: frozenset[int] = frozenset()
    if args.solution or args.witnesses:
        result = solve(puzzle, backend_spec(args), time_limit=args.time_limit)
        if result.solution is not None:
            solution = result.solution.cells
        if args.witnesses and len(result.solutions) >= 2:
            a, b = result.solutions[0].cells, result.solutions[1].cells
            highlight = frozenset(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
        print(f"{result.status} ({result.backend})", file=sys.stderr)
    if args.candidates:
        from cpsudoku.evidence.candidates import true_candidates

        found = true_candidates(puzzle, time_limit=args.time_limit)
        candidates = found.masks
    title = args.title if args.title is not None else (given.setter.title if given.setter else "")
    _write_picture(to_svg(Picture(puzzle, solution, candidates, highlight, title)), args.output)
    return EXIT_OK


def _configure_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="also draw the explanation: FILE.svg or FILE.png (the conflict or the cells "
        "where two solutions differ highlighted)",
    )
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds in all")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_box_options(p)
    add_setter_options(p)


def _run_explain(args: argparse.Namespace) -> int:
    import json

    from cpsudoku.cli.common import EXIT_FOR_STATUS
    from cpsudoku.draw.svg import Picture, to_svg
    from cpsudoku.evidence.explain import explain
    from cpsudoku.model.forms import parse

    check_time_limit_option(args.time_limit)
    if args.output:
        refuse_overwrite(args.puzzle, args.output)
    given = puzzle_input(args)
    puzzle = parse(given.puzzle, args.box, check=False)
    found = explain(puzzle, time_limit=args.time_limit)
    if args.json:
        print(json.dumps(found.to_dict()))
    else:
        for line in found.lines():
            print(line)
    if args.output:
        solution = found.solutions[0].cells if found.solutions else None
        picture = Picture(
            puzzle, solution, None, found.cells, given.setter.title if given.setter else ""
        )
        _write_picture(to_svg(picture), args.output)
    return EXIT_FOR_STATUS[found.status]


def _write_picture(svg: str, output: str) -> None:
    """The SVG to ``output``: SVG text, PNG by its suffix, or stdout for -."""
    if output == "-":
        sys.stdout.write(svg)
        return
    suffix = Path(output).suffix.lower()
    if suffix not in (".svg", ".png"):
        raise UsageError(f"-o {output}: a picture is .svg or .png")
    if suffix == ".png":
        from cpsudoku.draw.png import svg_to_png

        Path(output).write_bytes(svg_to_png(svg))
    else:
        Path(output).write_text(svg, encoding="utf-8")


#: This module's commands.
COMMANDS: dict[str, Command] = {
    "draw": (
        "draw a puzzle as setters draw it (SVG or PNG), with its solution or candidates",
        _configure_draw,
        _run_draw,
    ),
    "explain": (
        "say why a puzzle fails: a minimal set of rules and givens that contradict each "
        "other, or two solutions and where they differ",
        _configure_explain,
        _run_explain,
    ),
}
