"""``cpsudoku canon`` and ``cpsudoku dedupe``: canonical forms and deduplication."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from cpsudoku.cli.common import (
    EXIT_OK,
    EXIT_SOME_INVALID,
    PUZZLE_HELP,
    Command,
    UsageError,
    add_box_options,
    add_force_option,
    add_setter_options,
    puzzle_arg,
    refuse_existing_output,
    refuse_overwrite,
)
from cpsudoku.cli.progress import Progress, progress_bar, progress_wanted
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import AmbiguousZeroWarning
from cpsudoku.model.words import count_of


def _configure_canon(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help=PUZZLE_HELP)
    add_box_options(p)
    add_setter_options(p)
    p.add_argument(
        "--method",
        choices=("auto", "minlex", "graph"),
        default="auto",
        help="minlex (the smallest string; default up to 12x12) or graph (a canonical key "
        "by nauty; default above)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_canon(args: argparse.Namespace) -> int:
    from cpsudoku.canon import canonical

    try:
        c = canonical(puzzle_arg(args), args.box, method=args.method)
    except PuzzleError as exc:
        where = _source(args.puzzle)
        if where is None:  # the argument is the puzzle text: the error names the cell
            raise
        raise PuzzleError(f"{where}: {exc}", row=exc.row, col=exc.col, symbol=exc.symbol) from None
    if args.json:
        print(json.dumps(c.to_dict()))
        return EXIT_OK
    t = c.transformation
    print(f"canonical: {c.line}")
    print(f"method: {c.method}")
    print(f"automorphisms: {c.automorphisms}")
    print(
        f"transformation: transpose={'yes' if t.transpose else 'no'} "
        f"rows={','.join(map(str, t.rows))} cols={','.join(map(str, t.cols))} "
        f"digits={','.join(map(str, t.digits))}"
    )
    return EXIT_OK


def _source(arg: str) -> str | None:
    """Where the PUZZLE argument was read from: a file, standard input, or None (text)."""
    if arg == "-":
        return "standard input"
    try:
        return arg if os.path.exists(arg) else None
    except OSError:  # a long puzzle line is no file name
        return None


def canon_error_record(message: str) -> dict[str, object]:
    """The ``canon --json`` answer for an input with no canonical form: same keys, empty."""
    return {
        "canonical": None,
        "method": None,
        "automorphisms": None,
        "transformation": None,
        "error": message,
    }


def _configure_dedupe(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "input",
        metavar="INPUT",
        help="dataset, any form batch reads (.txt, .csv, .jsonl, compressed); - for stdin",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUTPUT",
        help="the first puzzle of each class, in input order, and every record with no "
        "canonical form in its place: one per line, or index,puzzle rows for .csv, JSON "
        "lines for .jsonl; - for stdout",
    )
    p.add_argument(
        "--report",
        metavar="CSV",
        help="one row per class: class,size,first_index,canonical,error, and one per "
        "record with no canonical form, with the reason in error "
        "(default: OUTPUT.classes.csv; none when OUTPUT is -)",
    )
    add_force_option(p)
    p.add_argument("--box", metavar="RxC", help="box shape (default: inferred from the size)")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="threads canonicalising at once, in this one process (the compiled search "
        "runs without the GIL, so N threads use N cores; default 1)",
    )
    # Before --threads, the same option was --jobs, which batch uses for worker
    # processes: still read, with a note, so that scripts keep working.
    p.add_argument("--jobs", type=int, dest="old_jobs", help=argparse.SUPPRESS)
    p.add_argument(
        "--json",
        action="store_true",
        help="the closing summary as one JSON object (records, kept, duplicates, invalid, "
        "output, report, seconds): on stdout, or on stderr when OUTPUT is -",
    )
    p.add_argument("--quiet", action="store_true", help="no progress line and no summary")


#: Records with no canonical form that ``dedupe`` names on stderr; the report has all.
SHOWN_INVALID = 10


def _run_dedupe(args: argparse.Namespace) -> int:
    from collections.abc import Iterator

    from cpsudoku.datasets.dedupe import dedupe
    from cpsudoku.datasets.records import Record, count_records_fast, peeked, read_records
    from cpsudoku.model.rules import as_rules

    if args.input != "-":
        if os.path.isdir(args.input):
            raise UsageError(f"cannot read {args.input}: it is a folder, not a dataset file")
        if not os.path.exists(args.input):
            raise UsageError(f"cannot read {args.input}: no such file")
        refuse_overwrite(args.input, args.output)
    if args.old_jobs is not None:
        if not args.quiet:
            print(
                "cpsudoku dedupe: note: --jobs is now --threads (threads in one process; "
                "batch --jobs counts worker processes)",
                file=sys.stderr,
            )
        args.threads = args.old_jobs
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    # As in batch: a 16x16 line whose 0 is read as empty would warn once per record.
    warnings.simplefilter("ignore", AmbiguousZeroWarning)
    report = args.report
    if report is None and args.output != "-":
        report = f"{args.output}.classes.csv"
    if report is not None:
        refuse_overwrite(args.input, report)
    for path in (args.output, report):
        refuse_existing_output(path, args.force)
    named = 0
    shown = Progress()

    def tell(record: Record, reason: str) -> None:
        """Name the first few records with no canonical form (the report has them all)."""
        nonlocal named
        named += 1
        if not args.quiet and named <= SHOWN_INVALID:
            shown.write(  # above the progress bar, when there is one
                f"cpsudoku dedupe: record {record.index} has no canonical form, kept in "
                f"place: {reason}"
            )

    # The first record read before any output is opened, as in batch.
    box = as_rules(args.box)
    interactive = progress_wanted(args)
    total = count_records_fast(args.input) if interactive and args.input != "-" else None
    with progress_bar(interactive, total, "record", "dedupe") as bar:
        shown = bar

        def counted(records: Iterator[Record]) -> Iterator[Record]:
            for record in records:
                bar.update()
                yield record

        records = peeked(read_records(args.input, box=box, tell=None if args.quiet else _tell))
        summary = dedupe(
            counted(records),
            args.output,
            report,
            box=box,
            jobs=args.threads,
            on_invalid=tell,
        )
    if args.json:
        record = {
            "records": summary.records,
            "kept": summary.kept,
            "duplicates": summary.duplicates,
            "invalid": summary.invalid,
            "output": args.output,
            "report": report,
            "seconds": round(summary.seconds, 6),
        }
        print(json.dumps(record), file=sys.stderr if args.output == "-" else sys.stdout)
    elif not args.quiet:
        if named > SHOWN_INVALID:
            where = f"; {report} lists them all" if report else ""
            print(
                f"cpsudoku dedupe: ... and "
                f"{count_of(named - SHOWN_INVALID, 'more record', 'more records')} with no "
                f"canonical form{where}",
                file=sys.stderr,
            )
        if not summary.records:
            source = "standard input" if args.input == "-" else args.input
            print(f"cpsudoku dedupe: {source} holds no records", file=sys.stderr)
        print(f"cpsudoku dedupe: {summary.line()}", file=sys.stderr)
    return EXIT_SOME_INVALID if summary.invalid else EXIT_OK


def _tell(text: str) -> None:
    """Say something about the input on stderr (which column holds the puzzles)."""
    print(f"cpsudoku dedupe: {text}", file=sys.stderr)


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "canon": (
        "the canonical form of a puzzle: minlex string, transformation, automorphisms",
        _configure_canon,
        _run_canon,
    ),
    "dedupe": (
        "keep the first puzzle of each class of equivalent puzzles (symmetries, relabelling)",
        _configure_dedupe,
        _run_dedupe,
    ),
}
