"""``cpsudoku bench``: every engine on published puzzles, easy to hardest."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cpsudoku.cli.common import EXIT_OK, Command, UsageError, check_time_limit_option, split_names
from cpsudoku.cli.progress import progress_bar, progress_wanted
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    from cpsudoku.bench.harness import BenchRun


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
        help="engines, e.g. sat sat:extended:glucose4 cpsat:sample logic batch+sat; 'canon' "
        "times canonical forms, 'pencilmark' the peer solver of that name (test extra); "
        "'all' adds every variant (default: every installed engine, their textbook "
        "baselines, portfolio, the numpy pass 'logic' and the batch pipeline 'batch+sat')",
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
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object on stdout at the end: seconds, the report folder and files, "
        "the disagreements, and per engine its puzzles, answers, timeouts and seconds",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar and no lines on stderr (but the disagreements)",
    )


def _run_bench(args: argparse.Namespace) -> int:
    from cpsudoku import bench

    manifest = bench.load_manifest(bench.find_manifest(args.manifest))
    if args.list:
        for ds in manifest:
            flag = "" if ds.default else "  (not in a default run)"
            print(f"{ds.name:<28} {ds.tier:<18} {ds.about}{flag}")
        print("\nengines:", " ".join(bench.default_engines()))
        print("variants (--backends all):", " ".join(bench.variant_engines()))
        return EXIT_OK
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.give_up < 1:
        raise UsageError(f"--give-up must be at least 1, got {args.give_up}")
    check_time_limit_option(args.time_limit)
    datasets = bench.select_datasets(split_names(args.datasets), manifest)
    engines = bench.expand_engines(split_names(args.backends))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)  # a report folder that cannot be made fails now
    with progress_bar(progress_wanted(args), None, "puzzle", "bench") as bar:

        def log(line: str) -> None:
            if not args.quiet or line.startswith("DISAGREEMENT"):
                bar.write(line)

        def step(dataset: str, engine: str, done: int, total: int) -> None:
            bar.stage(f"{dataset} {engine}", done, total)

        run = bench.run_bench(
            datasets,
            engines,
            limit=args.limit,
            time_limit=args.time_limit,
            give_up=args.give_up,
            log=log,
            on_puzzle=step if bar.bar is not None else None,
        )
    written = bench.write_reports(run, out, args.argv)
    if args.json:
        print(json.dumps(_summary(run, out, written)))
    if not args.quiet:
        print(
            f"cpsudoku bench: {run.seconds:.1f} s; reports in {out}/ ({', '.join(written)})",
            file=sys.stderr,
        )
    if not args.quiet and not bench.can_plot():
        print(
            f"cpsudoku bench: no plots: they need matplotlib (pip install '{bench.PLOT_EXTRA}')",
            file=sys.stderr,
        )
    if run.disagreements:
        print(
            f"cpsudoku bench: {count_of(len(run.disagreements), 'DISAGREEMENT', 'DISAGREEMENTS')}"
            " between engines (see summary.md)",
            file=sys.stderr,
        )
        return 1
    return EXIT_OK


def _summary(run: BenchRun, out: Path, written: list[str]) -> dict[str, object]:
    """``bench --json``: the run in one JSON-ready object.

    Per engine: puzzles measured, answers (a definite status: unique, multiple,
    solved, unsolvable), timeouts (skipped puzzles counted too, as in PAR-2),
    refused (statuses invalid: rules it lacks), and the seconds of its answers.
    """
    from cpsudoku.bench.runners import ANSWERS, SKIPPED
    from cpsudoku.model.result import Status

    engines: dict[str, dict[str, object]] = {}
    for spec in run.engines:
        rows = [m for m in run.measurements if m.engine == spec]
        answers = [m for m in rows if m.status in ANSWERS and m.status != Status.INVALID.value]
        engines[spec] = {
            "puzzles": len(rows),
            "answers": len(answers),
            "timeouts": sum(m.status in (Status.TIMEOUT.value, SKIPPED) for m in rows),
            "refused": sum(m.status == Status.INVALID.value for m in rows),
            "seconds": round(sum(m.seconds for m in answers), 6),
        }
    return {
        "seconds": round(run.seconds, 6),
        "out": str(out),
        "reports": list(written),
        "datasets": [ds.name for ds in run.datasets],
        "time_limit": run.time_limit,
        "disagreements": list(run.disagreements),
        "engines": engines,
    }


#: This module's commands: name -> (help, configure, run).
COMMANDS: dict[str, Command] = {
    "bench": (
        "benchmark engines on published puzzles, easy to hardest; tables and plots",
        _configure_bench,
        _run_bench,
    ),
}
