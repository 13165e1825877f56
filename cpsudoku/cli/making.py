"""``cpsudoku generate`` and ``cpsudoku rate``: making puzzles and rating them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from cpsudoku.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_UNSOLVABLE,
    PUZZLE_HELP,
    Command,
    UsageError,
    add_box_options,
    add_force_option,
    add_setter_options,
    puzzle_arg,
    refuse_existing_output,
)
from cpsudoku.cli.progress import progress_bar, progress_wanted
from cpsudoku.model.result import Status
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    pass


def _configure_generate(p: argparse.ArgumentParser) -> None:
    from cpsudoku.generate import DEFAULT_ATTEMPTS, Symmetry
    from cpsudoku.rating import Grade

    p.add_argument("--count", type=int, default=1, metavar="K", help="puzzles (default 1)")
    p.add_argument("--box", default="3x3", metavar="RxC", help="box shape (default 3x3: 9x9)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--clues", type=int, metavar="N", help="stop at exactly N clues")
    target.add_argument(
        "--minimal",
        action="store_true",
        help="remove clues until none can go (the default); with --symmetry, until no "
        "symmetric pair can go: a single clue of a pair may still be removable",
    )
    p.add_argument(
        "--symmetry",
        choices=[s.value for s in Symmetry],
        default=Symmetry.NONE.value,
        help="clue pattern (default none)",
    )
    p.add_argument(
        "--difficulty",
        choices=[g.value for g in Grade],
        help="generate and rate until the logic rater gives this grade",
    )
    p.add_argument("--seed", type=int, metavar="S", help="reproduce a run (printed when random)")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help=".txt, .csv or .jsonl dataset (default, or -: .txt lines on stdout)",
    )
    add_force_option(p)
    p.add_argument(
        "--backend",
        metavar="NAME",
        help="uniqueness checker (default: native up to 32x32 when built, else backtrack "
        "up to 9x9 and sat for bigger grids)",
    )
    p.add_argument(
        "--attempts",
        type=int,
        default=DEFAULT_ATTEMPTS,
        metavar="N",
        help=f"grids to try per puzzle for --clues/--difficulty (default {DEFAULT_ATTEMPTS})",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="the closing summary as one JSON object (puzzles, output, box, seed, "
        "checks, seconds): on stdout when the puzzles go to a file, on stderr when "
        "they go to stdout",
    )
    p.add_argument("--quiet", action="store_true", help="no progress line and no summary")


def _run_generate(args: argparse.Namespace) -> int:
    import random
    import time
    from collections.abc import Iterator

    from cpsudoku.generate import GeneratedPuzzle, generate_puzzles, write_dataset

    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    refuse_existing_output(args.output, args.force)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    start = time.perf_counter()
    output = None if args.output == "-" else args.output  # - is stdout, as in batch
    checks = 0
    with progress_bar(progress_wanted(args), args.count, "puzzle", "generate") as bar:

        def step(attempt: int, tried: int, total: int) -> None:
            again = f", attempt {attempt}" if attempt > 1 else ""
            bar.note(f"clue {tried}/{total}{again}")

        items = generate_puzzles(
            args.count,
            args.box,
            clues=args.clues,
            symmetry=args.symmetry,
            difficulty=args.difficulty,
            seed=seed,
            backend=args.backend,
            max_attempts=args.attempts,
            on_step=step if bar.bar is not None else None,
        )

        def counted(made: Iterator[GeneratedPuzzle]) -> Iterator[GeneratedPuzzle]:
            nonlocal checks
            for item in made:
                checks += item.checks
                bar.update()
                yield item

        written = write_dataset(counted(items), output)
    seconds = time.perf_counter() - start
    if args.json:
        summary = {
            "puzzles": written,
            "output": output,
            "box": args.box,
            "seed": seed,
            "checks": checks,
            "seconds": round(seconds, 6),
        }
        print(json.dumps(summary), file=sys.stderr if output is None else sys.stdout)
    elif not args.quiet:
        where = f" to {output}" if output else ""
        print(
            f"cpsudoku generate: {count_of(written, 'puzzle')}{where} "
            f"(box {args.box}, seed {seed}) in {seconds:.2f} s",
            file=sys.stderr,
        )
    return EXIT_OK


def _configure_rate(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument("--steps", action="store_true", help="list every step with its reason")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--backend",
        metavar="NAME",
        help="solver for the first uniqueness check (default: as for generate)",
    )


def _run_rate(args: argparse.Namespace) -> int:
    from cpsudoku.rating import rate

    rating = rate(puzzle_arg(args), box=args.box, backend=args.backend)
    code = {
        Status.UNSOLVABLE: EXIT_UNSOLVABLE,
        Status.MULTIPLE: EXIT_INVALID,
        Status.TIMEOUT: EXIT_TIMEOUT,
    }.get(rating.status, EXIT_OK)
    if args.json:
        print(json.dumps(rating.to_dict(steps=args.steps)))
        return code
    if rating.error:
        print(f"cpsudoku: {rating.status}: {rating.error}", file=sys.stderr)
        return code
    if args.steps:
        width = len(str(len(rating.steps)))
        for k, step in enumerate(rating.steps, 1):
            print(f"{k:>{width}}. {step}")
        print()
    print(f"grade: {rating.grade} (score {rating.score})")
    print(f"hardest technique: {rating.hardest or 'none (already solved)'}")
    used = ", ".join(f"{t} x{k}" for t, k in rating.counts.items())
    print(f"techniques: {used or 'none'}")
    if rating.trials:
        print(
            f"trial placements: {rating.trials} (nested {rating.depth} deep, "
            f"{rating.chain} single steps inside)"
        )
    return EXIT_OK


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "generate": (
        "generate puzzles with one solution: clue target or minimal, symmetry, difficulty",
        _configure_generate,
        _run_generate,
    ),
    "rate": (
        "solve a puzzle like a person: steps, hardest technique, difficulty grade",
        _configure_rate,
        _run_rate,
    ),
}
