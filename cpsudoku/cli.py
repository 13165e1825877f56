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
import errno
import json
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cpsudoku import __version__
from cpsudoku.engines import DEFAULT_BACKEND, REGISTRY
from cpsudoku.model.errors import CpSudokuError, PuzzleError, WrongLengthError
from cpsudoku.model.forms import AmbiguousZeroWarning
from cpsudoku.model.result import Status

if TYPE_CHECKING:
    from cpsudoku.datasets.options import SolveOptions
    from cpsudoku.datasets.output import Summary
    from cpsudoku.datasets.records import Record
    from cpsudoku.model.grid import Puzzle

EXIT_OK, EXIT_UNSOLVABLE, EXIT_INVALID, EXIT_TIMEOUT = 0, 1, 2, 3

#: ``batch`` only: some records were invalid; some rows disagree with the input's
#: solution column or with the cross-checking backend.
EXIT_SOME_INVALID, EXIT_DISAGREEMENT = 4, 5

#: Stopped by Ctrl-C, by SIGTERM, or by a reader that closed the pipe (``| head``):
#: the codes a shell shows for a process ended by SIGINT, SIGTERM or SIGPIPE.
EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_BROKEN_PIPE = 130, 143, 141

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


#: A PUZZLE argument ending like a file name (``.txt``, ``.sdk``), never like a
#: puzzle line ending in digits or empty cells.
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def read_puzzle_arg(arg: str, box: str | None = None, symbols: str | None = None) -> str:
    """PUZZLE as given: ``-`` is standard input, a file (or pipe) is read, else text.

    A file's bytes are read as every command reads datasets (a byte-order mark picks
    UTF-8, -16 or -32; a comment line may hold any bytes). A folder is a UsageError,
    and so is a missing file: an argument with a slash or a file suffix that names no
    file and is no puzzle either. Raises WrongLengthError with a pointer to ``batch``
    when the text is several whole puzzles, one per line (a dataset given to a
    one-puzzle command).
    """
    from cpsudoku.model.text import decode_text

    if arg == "-":
        stdin = getattr(sys.stdin, "buffer", None)  # None when replaced by a text stream
        data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")
        return _one_puzzle(decode_text(data, "standard input"), box, symbols)
    path = Path(arg)
    try:
        exists, folder = path.exists(), path.is_dir()
    except OSError:  # e.g. a 16x16 puzzle line: longer than a file name may be
        exists = folder = False
    if folder:
        raise UsageError(f"cannot read {arg}: it is a folder, not a puzzle file")
    if not exists:
        if _looks_like_a_path(arg, box, symbols):
            raise UsageError(f"cannot read {arg}: no such file")
        return _one_puzzle(arg, box, symbols)
    try:  # a file, or a pipe such as a shell's <(...)
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {arg}: {exc.strerror or exc}") from None
    return _one_puzzle(decode_text(data, arg), box, symbols)


def _puzzle_arg(args: argparse.Namespace) -> str | Puzzle:
    """The PUZZLE argument's text, read with ``--symbols`` when given (then parsed)."""
    text = read_puzzle_arg(args.puzzle, args.box, args.symbols)
    if args.symbols is None:
        return text
    from cpsudoku.model.forms import parse

    return parse(text, args.box, check=False, symbols=args.symbols)


def _looks_like_a_path(arg: str, box: str | None, symbols: str | None) -> bool:
    """Whether ``arg``, which names no file, was meant as one.

    It was when it has a slash or a file suffix and is no puzzle when read as one
    (``....G`` may end a 16x16 line).
    """
    from cpsudoku.model.forms import parse

    if not ("/" in arg or os.sep in arg or _FILE_SUFFIX.search(arg)):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse(arg, box, check=False, symbols=symbols)
    except PuzzleError:
        return True
    return False


def _one_puzzle(text: str, box: str | None, symbols: str | None = None) -> str:
    """``text``, unless its lines are several puzzles rather than the rows of one.

    They are when each line is a puzzle on its own and either the whole text is no
    grid, or the lines are not its rows: a grid written one row per line has as many
    lines as each line has cells (four 4x4 puzzles, one per line, also make 64 cells,
    an 8x8 grid, but four lines of 16 cells are no grid's rows).
    """
    from cpsudoku.model.forms import GRID_HEADER, parse

    lines = [s for s in text.splitlines() if s.strip() and not s.lstrip().startswith("#")]
    if len(lines) < 2 or any(GRID_HEADER.match(line) for line in lines):
        return text  # parse reads one "Grid 01" puzzle and says when there are several
    error: WrongLengthError | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the puzzle is parsed again, and warns then
        try:
            parse(text, box, check=False, symbols=symbols)
        except WrongLengthError as exc:
            error = exc
        except PuzzleError:
            return text  # the command reports it, as for any other input
        try:
            cells = {
                parse(line, box, check=False, symbols=symbols).geometry.cells for line in lines
            }
        except PuzzleError:
            cells = set()
    if cells and (error is not None or cells != {len(lines)}):
        raise WrongLengthError(
            f"the input holds {len(lines)} puzzles, one per line; this command takes one "
            f"puzzle, and 'cpsudoku batch' takes a file of many"
        )
    if error is not None:
        raise error
    return text


def _check_time_limit(seconds: float | None) -> None:
    """Raise UsageError unless ``--time-limit`` is absent or a positive number of seconds."""
    if seconds is not None and not seconds > 0:  # NaN fails too
        raise UsageError(f"--time-limit must be a positive number of seconds, got {seconds}")


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        default=DEFAULT_BACKEND,
        metavar="NAME",
        help=f"engine, with optional variants as NAME:VARIANT (one of: "
        f"{', '.join(REGISTRY)}; default: {DEFAULT_BACKEND})",
    )
    p.add_argument(
        "--sat-solver",
        metavar="NAME",
        help="python-sat solver for the sat backend, e.g. cadical153, glucose4, minisat22 "
        "(the same as --backend sat:NAME)",
    )


def _add_box(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--box",
        metavar="RxC",
        help="box shape, e.g. 2x3 for 6x6 grids (default: inferred from the size)",
    )
    p.add_argument(
        "--symbols",
        metavar="ABC",
        help="the symbols of the values 1..N in order, e.g. 0123456789ABCDEF for a 16x16 "
        "written in hex digits (then . _ - * are empty cells); solutions are written with "
        "them too (default: 1-9 then A-Z, and 0 is empty)",
    )


def backend_spec(args: argparse.Namespace) -> str:
    """The backend spec named on the command line, with ``--sat-solver`` appended.

    Raises:
        UsageError: ``--sat-solver`` was given for a backend other than ``sat``.
    """
    spec = str(args.backend)
    solver = getattr(args, "sat_solver", None)
    if solver:
        if spec.split(":")[0] != "sat":
            raise UsageError(f"--sat-solver applies to the sat backend only, not to {spec!r}")
        spec = f"{spec}:{solver}"
    return spec


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

    _check_time_limit(args.time_limit)
    result = solve(
        read_puzzle_arg(args.puzzle, args.box, args.symbols),
        backend=backend_spec(args),
        unique=not args.no_unique,
        time_limit=args.time_limit,
        box=args.box,
        symbols=args.symbols,
    )
    if args.json:
        record = result.to_dict()
        if result.solution is not None:
            record["solution"] = result.solution.line(args.symbols)
        print(json.dumps(record))
    else:
        if result.solution is not None:
            print(result.solution.pretty(args.symbols))
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
    _check_time_limit(args.time_limit)
    found = count_solutions(
        read_puzzle_arg(args.puzzle, args.box, args.symbols),
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
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write here instead of stdout (- is stdout)"
    )


def _refuse_overwrite(source: str, output: str | None) -> None:
    """Raise UsageError when ``output`` is the file ``source`` (writing would destroy it)."""
    if not output or output == "-" or source == "-":
        return
    try:
        same = os.path.samefile(source, output)
    except OSError:  # one of them does not exist (yet): not the same file
        return
    if same:
        raise UsageError(
            f"the output {output} is the input file, which writing would destroy; "
            "write to another file"
        )


def _run_export(args: argparse.Namespace) -> int:
    from cpsudoku.encode.export import export

    _refuse_overwrite(args.puzzle, args.output)
    text = export(_puzzle_arg(args), args.to, box=args.box)
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


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
    _add_backend(p)
    _add_box(p)
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
        help="send every record to the engine (default: the whole-array logic pass decides "
        "what singles and locked candidates can, backend logic)",
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
    from cpsudoku.datasets.records import count_records_fast, read_records
    from cpsudoku.engines import get_backend
    from cpsudoku.model.forms import symbols_geometry
    from cpsudoku.model.grid import parse_box

    if args.input != "-":
        if os.path.isdir(args.input):
            raise UsageError(f"cannot read {args.input}: it is a folder, not a dataset file")
        if not os.path.exists(args.input):
            raise UsageError(f"cannot read {args.input}: no such file")
        _refuse_overwrite(args.input, args.output)
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (all cores) or more, got {args.jobs}")
    if args.jobs > (most := max_jobs()):
        raise UsageError(f"--jobs must be at most {most} (4 per core here), got {args.jobs}")
    _check_time_limit(args.time_limit)
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
    shape = parse_box(args.box) if args.box else None
    if args.symbols is not None:
        symbols_geometry(args.symbols, shape)
    spec = backend_spec(args)
    get_backend(spec)  # unknown backends are a usage error before any work starts
    if args.verify_with:
        get_backend(args.verify_with)
    options = SolveOptions(
        spec,
        not args.no_unique,
        args.time_limit,
        args.box,
        args.verify_with,
        not args.no_presolve,
        args.symbols,
    )
    interactive = sys.stderr.isatty() and not args.quiet
    total = count_records_fast(args.input) if interactive else None
    zeros = _ZeroWatch(read_records(args.input), args.symbols)
    try:
        warnings.simplefilter("ignore", AmbiguousZeroWarning)  # counted, told once at the end
        if args.scheduler:
            summary = _run_on_cluster(args, options, interactive, total, zeros)
        else:
            summary = run_batch(
                zeros,
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
    if not args.quiet:
        print(f"cpsudoku batch: {summary.line()}", file=sys.stderr)
        if zeros.seen:
            print(
                f"cpsudoku batch: warning: {zeros.seen:,} 16x16 records write 0 and no other "
                "empty cell, and 0 was read as empty; if their digits are 0-F, run again with "
                "--symbols 0123456789ABCDEF",
                file=sys.stderr,
            )
    return batch_exit_code(summary)


class _ZeroWatch:
    """Passes records on, counting those whose 0 may be a digit (see ``--symbols``).

    The batch reports them once, at the end, rather than a warning per record.
    """

    def __init__(self, records: Iterator[Record], symbols: str | None) -> None:
        self.records = records
        self.watch = symbols is None
        self.seen = 0

    def __iter__(self) -> Iterator[Record]:
        from cpsudoku.model.forms import zero_may_be_a_digit

        if not self.watch:
            yield from self.records
            return
        for record in self.records:
            if len(record.puzzle) == 256 and zero_may_be_a_digit(record.puzzle):
                self.seen += 1
            yield record


def batch_exit_code(summary: Summary) -> int:
    """The exit code of a batch run: the most serious of its rows' outcomes.

    5 when a row disagrees with the input's solution column or with ``--verify-with``,
    else 4 when a record was invalid, else 3 when one timed out, else 0: every record
    was decided (``unique``, ``multiple``, ``solved`` or ``unsolvable``). Rows kept by
    ``--resume`` count too: the code speaks of the whole output.
    """
    if summary.flagged:
        return EXIT_DISAGREEMENT
    if summary.total(Status.INVALID.value):
        return EXIT_SOME_INVALID
    if summary.total(Status.TIMEOUT.value):
        return EXIT_TIMEOUT
    return EXIT_OK


def _names(values: Sequence[str] | None) -> list[str]:
    """Names given as repeated words and/or comma-separated lists."""
    return [n for v in values or () for n in v.split(",") if n]


def _configure_bench(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--datasets",
        nargs="+",
        metavar="NAME",
        help="manifest names or file paths (default: every default dataset, easy to hardest)",
    )
    p.add_argument(
        "--backends",
        nargs="+",
        metavar="SPEC",
        help="engines, e.g. sat sat:extended:glucose4 cpsat:sample logic logic+sat; 'all' adds "
        "every variant (default: the three engines, their textbook baselines, portfolio, "
        "logic and logic+sat)",
    )
    p.add_argument("--limit", type=int, metavar="N", help="at most N puzzles per dataset")
    p.add_argument(
        "--time-limit",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds per puzzle; a timeout counts twice this in PAR-2 (default 5)",
    )
    p.add_argument(
        "--give-up",
        type=int,
        default=2,
        metavar="K",
        help="an engine stops on a dataset after K timeouts, and skips harder ones (default 2)",
    )
    p.add_argument("--out", default="bench-out", metavar="DIR", help="report folder")
    p.add_argument(
        "--manifest",
        metavar="FILE",
        help="dataset manifest (TOML; default: benchmarks/datasets.toml here, or in the "
        "repository the package runs from)",
    )
    p.add_argument("--list", action="store_true", help="list the datasets and engines, then stop")


def _run_bench(args: argparse.Namespace) -> int:
    from cpsudoku import bench

    manifest = bench.load_manifest(bench.find_manifest(args.manifest))
    if args.list:
        for ds in manifest:
            flag = "" if ds.default else "  (not in a default run)"
            print(f"{ds.name:<28} {ds.tier:<18} {ds.about}{flag}")
        print("\nengines:", " ".join(bench.DEFAULT_ENGINES))
        print("variants (--backends all):", " ".join(bench.VARIANT_ENGINES))
        return EXIT_OK
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.give_up < 1:
        raise UsageError(f"--give-up must be at least 1, got {args.give_up}")
    _check_time_limit(args.time_limit)
    datasets = bench.select_datasets(_names(args.datasets), manifest)
    engines = bench.expand_engines(_names(args.backends))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)  # a report folder that cannot be made fails now
    run = bench.run_bench(
        datasets,
        engines,
        limit=args.limit,
        time_limit=args.time_limit,
        give_up=args.give_up,
        log=bench.log_to_stderr,
    )
    written = bench.write_reports(run, out, args.argv)
    print(
        f"cpsudoku bench: {run.seconds:.1f} s; reports in {out}/ ({', '.join(written)})",
        file=sys.stderr,
    )
    if not bench.can_plot():
        print(
            f"cpsudoku bench: no plots: they need matplotlib (pip install '{bench.PLOT_EXTRA}')",
            file=sys.stderr,
        )
    if run.disagreements:
        print(
            f"cpsudoku bench: {len(run.disagreements)} DISAGREEMENTS between engines "
            "(see summary.md)",
            file=sys.stderr,
        )
        return 1
    return EXIT_OK


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
    p.add_argument(
        "--backend",
        metavar="NAME",
        help="uniqueness checker (default: backtrack up to 9x9, sat for bigger grids)",
    )
    p.add_argument(
        "--attempts",
        type=int,
        default=DEFAULT_ATTEMPTS,
        metavar="N",
        help=f"grids to try per puzzle for --clues/--difficulty (default {DEFAULT_ATTEMPTS})",
    )


def _run_generate(args: argparse.Namespace) -> int:
    import random
    import time

    from cpsudoku.generate import generate_puzzles, write_dataset

    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    start = time.perf_counter()
    items = generate_puzzles(
        args.count,
        args.box,
        clues=args.clues,
        symmetry=args.symmetry,
        difficulty=args.difficulty,
        seed=seed,
        backend=args.backend,
        max_attempts=args.attempts,
    )
    output = None if args.output == "-" else args.output  # - is stdout, as in batch
    written = write_dataset(items, output)
    where = f" to {output}" if output else ""
    print(
        f"cpsudoku generate: {written} puzzle{'s' * (written != 1)}{where} "
        f"(box {args.box}, seed {seed}) in {time.perf_counter() - start:.2f} s",
        file=sys.stderr,
    )
    return EXIT_OK


def _configure_rate(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="puzzle text, - for stdin, or a file")
    _add_box(p)
    p.add_argument("--steps", action="store_true", help="list every step with its reason")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--backend",
        metavar="NAME",
        help="solver for the first uniqueness check (default: as for generate)",
    )


def _run_rate(args: argparse.Namespace) -> int:
    from cpsudoku.rating import rate

    rating = rate(_puzzle_arg(args), box=args.box, backend=args.backend)
    problem = {
        Status.UNSOLVABLE: ("it has no solution", EXIT_UNSOLVABLE),
        Status.MULTIPLE: ("it has several solutions; only a proper puzzle rates", EXIT_INVALID),
        Status.TIMEOUT: ("gave up: too many trial placements", EXIT_TIMEOUT),
    }.get(rating.status)
    if args.json:
        record = rating.to_dict(steps=args.steps)
        record["error"] = problem[0] if problem else None
        print(json.dumps(record))
        return problem[1] if problem else EXIT_OK
    if problem:
        print(f"cpsudoku: {rating.status}: {problem[0]}", file=sys.stderr)
        return problem[1]
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


#: Subcommands: name -> (help, configure, run). Each run returns the exit code.
COMMANDS: dict[
    str,
    tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]],
] = {
    "solve": ("solve one puzzle", _configure_solve, _run_solve),
    "count": ("count the solutions of one puzzle, up to a limit", _configure_count, _run_count),
    "batch": (
        "solve a dataset: one verified row per record, in input order",
        _configure_batch,
        _run_batch,
    ),
    "bench": (
        "benchmark engines on published puzzles, easy to hardest; tables and plots",
        _configure_bench,
        _run_bench,
    ),
    "export": (
        "write a puzzle's encoding: DIMACS CNF or a CP-SAT model",
        _configure_export,
        _run_export,
    ),
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


def build_parser(prog: str = "cpsudoku") -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Solve, count, batch-solve and benchmark Sudoku puzzles of any box "
        "shape with SAT, CP-SAT and backtracking engines.",
        epilog="Exit codes: 0 solved, 1 unsolvable, 2 invalid input or usage, 3 timeout; "
        "batch: 0 every record decided, 3 some timed out, 4 some invalid, 5 some disagree "
        "with the input's solutions or with --verify-with.",
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
        elif args.command == "rate":  # the keys of a rating, as for a puzzle that rates
            keys = ("puzzle", "status", "grade", "score", "hardest", "techniques", "trials")
            record: dict[str, object] = dict.fromkeys((*keys, "depth", "chain", "solution"))
            record.update(status="invalid", error=message)
            print(json.dumps(record))
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
        with _stop_on_sigterm(), warnings.catch_warnings():
            warnings.showwarning = _show_warning
            warnings.simplefilter("default", AmbiguousZeroWarning)
            return run(args)
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


def entrypoint() -> None:
    """Console-script entry point."""
    sys.exit(main())
