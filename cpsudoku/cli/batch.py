"""``cpsudoku batch``: a dataset solved into one verified row per record, in input order."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cpsudoku.cli.common import (
    EXIT_DISAGREEMENT,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_SOME_INVALID,
    EXIT_TIMEOUT,
    Command,
    UsageError,
    add_backend_options,
    add_box_options,
    add_force_option,
    backend_spec,
    check_time_limit_option,
    refuse_existing_output,
    refuse_overwrite,
)
from cpsudoku.evidence.provenance import now
from cpsudoku.model.forms import AmbiguousZeroWarning
from cpsudoku.model.result import Status
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    from cpsudoku.datasets.options import SolveOptions
    from cpsudoku.datasets.output import Summary
    from cpsudoku.datasets.records import Record


def _configure_batch(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "input",
        metavar="INPUT",
        help="dataset: .txt (one puzzle per line), .csv (column puzzle/quizzes/quiz, else "
        "the first), .jsonl; optionally .gz/.bz2/.xz/.zip; - for stdin",
    )
    p.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="OUTPUT",
        help="rows as CSV (default; - is stdout, the default), JSON lines (.jsonl) or Parquet "
        "(a DIR.parquet folder, one file per chunk), by the name",
    )
    add_backend_options(p)
    add_box_options(p)
    p.add_argument(
        "--jobs", type=int, default=0, metavar="N", help="worker processes (default: all cores)"
    )
    p.add_argument("--no-unique", action="store_true", help="stop at the first solution")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds per record")
    p.add_argument(
        "--resume", action="store_true", help="keep the complete rows of OUTPUT, solve the rest"
    )
    p.add_argument(
        "--retry-timeouts",
        action="store_true",
        help="as --resume, and solve OUTPUT's timeout rows again (give a bigger --time-limit); "
        "they are replaced in place, every other row is kept as it is",
    )
    add_force_option(p)
    p.add_argument(
        "--verify-with",
        metavar="BACKEND",
        help="also solve every record with BACKEND; disagreements go to the error column",
    )
    p.add_argument(
        "--chunk-size",
        type=int,
        metavar="K",
        help="records per work unit (default: adaptive, about 0.25 s of work each)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster: 'local' starts one here (--jobs workers), or a "
        "scheduler address such as tcp://HOST:8786 (needs: pip install 'cpsudoku[dask]')",
    )
    p.add_argument(
        "--partition-size",
        type=int,
        metavar="K",
        help="records per partition (one Parquet file each); default: adaptive, sized "
        "from the measured per-task overhead",
    )
    p.add_argument(
        "--no-presolve",
        action="store_true",
        help="send every record to the engine (default: a bulk pass first decides what it "
        "can, a block of puzzles per call: the compiled engine, backend native, when the "
        "engine is the default or native and it is built; else the numpy logic pass of "
        "singles and locked candidates, backend logic)",
    )
    p.add_argument(
        "--witnesses",
        action="store_true",
        help="add the columns solution2 (a second verified solution of every multiple "
        "record) and certificate",
    )
    p.add_argument(
        "--certify",
        metavar="DIR",
        help="write a checkable certificate of every unique record into DIR (one zip "
        "archive per chunk), named in the certificate column; implies --witnesses",
    )
    p.add_argument(
        "--canon",
        action="store_true",
        help="add a canonical column: each puzzle's canonical form (minlex up to 12x12, "
        "see 'cpsudoku canon'), empty where it has none; any output, local or --scheduler",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="the closing summary as one JSON object (records, statuses, resumed, kept, "
        "mismatches, disagreements, output, seconds, exit_code): on stdout when the rows "
        "go to a file, on stderr when they go to stdout",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")


def _run_on_cluster(
    args: argparse.Namespace,
    options: SolveOptions,
    progress: bool,
    total: int | None,
    records: Iterable[Record],
) -> Summary:
    """``batch --scheduler``: the same run on a Dask cluster (lazy import: optional extra)."""
    from cpsudoku.datasets.cluster import (
        ClusterError,
        DaskUnavailableError,
        quiet_dask_logs,
        run_cluster_batch,
    )

    if args.jobs and args.scheduler != "local":
        raise UsageError("--jobs sets the workers of --scheduler local only")

    def log(text: str) -> None:
        print(f"cpsudoku batch: {text}", file=sys.stderr)

    quiet_dask_logs()  # our one-line errors say it; the process ends right after
    try:
        return run_cluster_batch(
            records,
            args.output,
            options,
            scheduler=args.scheduler,
            workers=args.jobs or None,
            partition_size=args.partition_size or args.chunk_size,
            resume=args.resume,
            retry_timeouts=args.retry_timeouts,
            progress=progress,
            total=total,
            log=None if args.quiet else log,
        )
    except (ClusterError, DaskUnavailableError) as exc:
        raise UsageError(str(exc)) from None


def _run_batch(args: argparse.Namespace) -> int:
    import lzma
    import zipfile

    from cpsudoku.datasets.batch import run_batch
    from cpsudoku.datasets.options import SolveOptions
    from cpsudoku.datasets.pool import max_jobs
    from cpsudoku.datasets.records import count_records_fast, peeked, read_records

    if args.input != "-":
        if os.path.isdir(args.input):
            raise UsageError(f"cannot read {args.input}: it is a folder, not a dataset file")
        if not os.path.exists(args.input):
            raise UsageError(f"cannot read {args.input}: no such file")
        refuse_overwrite(args.input, args.output)
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (all cores) or more, got {args.jobs}")
    if args.jobs > (most := max_jobs()):
        raise UsageError(f"--jobs must be at most {most} (4 per core here), got {args.jobs}")
    check_time_limit_option(args.time_limit)
    if args.chunk_size is not None and args.chunk_size < 1:
        raise UsageError(f"--chunk-size must be at least 1, got {args.chunk_size}")
    if args.partition_size is not None and args.partition_size < 1:
        raise UsageError(f"--partition-size must be at least 1, got {args.partition_size}")
    if args.scheduler is not None and not (
        args.scheduler == "local" or "://" in args.scheduler or ":" in args.scheduler
    ):
        raise UsageError(
            f"--scheduler must be 'local' or an address such as tcp://HOST:8786, "
            f"got {args.scheduler!r}"
        )
    if args.output.lower().endswith(".json"):
        raise UsageError(
            f"cannot tell what to write to {args.output}: batch writes JSON lines (name it "
            ".jsonl), CSV (.csv or any other name) or Parquet (a .parquet folder)"
        )
    if args.force and (args.resume or args.retry_timeouts):
        flag = "--retry-timeouts" if args.retry_timeouts else "--resume"
        raise UsageError(f"--force writes OUTPUT afresh and {flag} keeps its rows: give one")
    if not (args.resume or args.retry_timeouts):
        refuse_existing_output(
            args.output,
            args.force,
            " (or --resume to keep its rows and solve the rest, --retry-timeouts to also "
            "solve its timeout rows again)",
        )
    if args.canon and (args.resume or args.retry_timeouts or args.symbols is not None):
        raise UsageError(
            "--canon goes into a new output (CSV, JSON lines or Parquet) with the standard "
            "symbols (not with --resume, --retry-timeouts, --symbols)"
        )
    options = SolveOptions.checked(  # every mistake is a usage error before any work
        backend_spec(args),
        unique=not args.no_unique,
        time_limit=args.time_limit,
        box=args.box,
        verify_with=args.verify_with,
        presolve=not args.no_presolve,
        symbols=args.symbols,
        witnesses=args.witnesses,
        certify=args.certify,
        canon=args.canon,
    )
    started = now()
    interactive = sys.stderr.isatty() and not args.quiet
    total = count_records_fast(args.input) if interactive else None
    try:
        # The first record read before any output is opened: an input refused whole
        # (a CSV with no puzzle column) leaves no output behind.
        records = peeked(
            read_records(
                args.input,
                box=options.rules,
                symbols=options.symbols,
                tell=None if args.quiet else _tell,
            )
        )
        warnings.simplefilter("ignore", AmbiguousZeroWarning)  # counted, told once at the end
        if args.scheduler:
            summary = _run_on_cluster(args, options, interactive, total, records)
        else:
            summary = run_batch(
                records,
                args.output,
                options,
                jobs=args.jobs or None,
                resume=args.resume,
                retry_timeouts=args.retry_timeouts,
                progress=interactive,
                total=total,
                chunk_size=args.partition_size or args.chunk_size,
            )
    except OSError as exc:
        if exc.filename is not None and os.fspath(exc.filename) != args.input:
            raise  # the output, or another file: main() names it
        raise UsageError(f"cannot read {args.input}: {exc.strerror or exc}") from None
    except (EOFError, lzma.LZMAError, zipfile.BadZipFile) as exc:  # truncated or corrupt
        raise UsageError(f"cannot read {args.input}: {exc}") from None
    _write_provenance(args, options, started)
    code = batch_exit_code(summary)
    if args.json:
        where = sys.stderr if args.output == "-" else sys.stdout  # never among the rows
        print(json.dumps(summary_record(summary, args.output, code)), file=where)
    elif not args.quiet:
        print(f"cpsudoku batch: {summary.line()}", file=sys.stderr)
    if not args.quiet and summary.zeros and args.symbols is None:
        zeros = count_of(summary.zeros, "16x16 record", "16x16 records")
        writes = "writes" if summary.zeros == 1 else "write"
        print(
            f"cpsudoku batch: warning: {zeros} {writes} 0 "
            "and no other empty cell, and 0 was read as empty; if the digits are 0-F, run "
            "again with --symbols 0123456789ABCDEF",
            file=sys.stderr,
        )
    return code


def summary_record(summary: Summary, output: str, code: int) -> dict[str, object]:
    """``batch --json``: the closing summary as one JSON-ready object.

    ``records`` and ``statuses`` count the rows this run wrote (every status named,
    0 when none); ``resumed`` and ``kept`` the rows kept from an earlier run
    (``--resume``, ``--retry-timeouts``); ``mismatches`` the rows that differ from the
    input's solution column, ``disagreements`` those where ``--verify-with``
    disagreed; ``exit_code`` is the code the command returns, for the whole output.
    """
    return {
        "records": summary.records,
        "statuses": {s.value: summary.statuses[s.value] for s in Status},
        "resumed": summary.resumed,
        "kept": {s.value: summary.kept[s.value] for s in Status},
        "mismatches": summary.mismatches,
        "disagreements": summary.disagreements,
        "output": output,
        "seconds": round(summary.seconds, 6),
        "exit_code": code,
    }


def _tell(text: str) -> None:
    """Say something about the input on stderr (which column holds the puzzles)."""
    print(f"cpsudoku batch: {text}", file=sys.stderr)


def _write_provenance(args: argparse.Namespace, options: SolveOptions, started: str) -> None:
    """Write the output's provenance sidecar (only beside a regular file or Parquet folder)."""
    from dataclasses import asdict

    from cpsudoku.datasets.solving import bulk_pass
    from cpsudoku.evidence.provenance import provenance, write_sidecar

    parameters = {k: v for k, v in asdict(options).items() if k not in ("backend", "rules")}
    if options.rules is not None:
        parameters["rules"] = options.rules.spec()
    parameters.update(jobs=args.jobs, resume=args.resume, scheduler=args.scheduler)
    meta = provenance(
        engine=options.backend,
        parameters=parameters,
        input_path=args.input,
        started=started,
        argv=["cpsudoku", *sys.argv[1:]] if sys.argv[1:2] == ["batch"] else None,
    )
    # What runs: the bulk pass first (rows with backend native or logic), then the
    # engine on what it leaves; "engine" alone would name only the second.
    at = list(meta).index("engine") + 1
    items = list(meta.items())
    meta = dict([*items[:at], ("bulk_pass", bulk_pass(options)), *items[at:]])
    write_sidecar(args.output, meta)


def batch_exit_code(summary: Summary) -> int:
    """The exit code of a batch run: the most serious of its rows' outcomes.

    5 when a row disagrees with the input's solution column or with ``--verify-with``,
    else 6 when the engine refused a record (a rule it does not take), else 4 when a
    record was invalid, else 3 when one timed out, else 0: every record was decided
    (``unique``, ``multiple``, ``solved`` or ``unsolvable``). Rows kept by
    ``--resume`` count too: the code speaks of the whole output.
    """
    if summary.flagged:
        return EXIT_DISAGREEMENT
    if summary.total(Status.REFUSED.value):
        return EXIT_REFUSED
    if summary.total(Status.INVALID.value):
        return EXIT_SOME_INVALID
    if summary.total(Status.TIMEOUT.value):
        return EXIT_TIMEOUT
    return EXIT_OK


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "batch": (
        "solve a dataset: one verified row per record, in input order",
        _configure_batch,
        _run_batch,
    ),
}
