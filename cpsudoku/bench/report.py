"""The benchmark's reports: Markdown tables, the results CSV, the machine, the plots.

The plots need matplotlib (the extra :data:`PLOT_EXTRA`); the rest is written without.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cpsudoku.bench.harness import BenchRun
from cpsudoku.bench.plots import plot_cactus, plot_throughput
from cpsudoku.bench.runners import baselines
from cpsudoku.bench.stats import Cell, summarize
from cpsudoku.model.words import count_of


def _fmt(value: float | None, spec: str = ".1f") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf"
    return format(value, spec)


def summary_markdown(run: BenchRun, cells: Sequence[Cell], machine: dict[str, Any]) -> str:
    """The summary tables as Markdown."""
    by_key = {(c.dataset, c.engine): c for c in cells}
    lines = [
        "# cpsudoku benchmark",
        "",
        f"{machine['date']} on {machine['cpu']} ({count_of(machine['cores'], 'core')}), Python "
        f"{machine['python']}; " + ", ".join(f"{k} {v}" for k, v in machine["packages"].items()),
        "",
        f"Command: `{machine['command']}`",
        "",
        f"Per-puzzle time limit {run.time_limit:g} s, uniqueness checked, one engine at a "
        "time in one process. PAR-2: mean seconds per puzzle, a timeout or skipped puzzle "
        "counted as twice the limit. `x base`: puzzles/s over the textbook baseline of the "
        f"same family ({', '.join(baselines().values())}) on the same puzzles.",
        "",
    ]
    header = (
        "| engine | run | puzzles/s | µs/puzzle | median ms | p90 ms | max ms | solved "
        "| unique | timeouts | PAR-2 s | no guess | guesses | x base |"
    )
    rule = "|" + "---|" * 14
    family_baselines = baselines()
    for ds in run.datasets:
        present = [e for e in run.engines if (ds.name, e) in by_key]
        if not present:
            continue
        title = f"## {ds.name}" + (f" ({ds.tier})" if ds.tier else "")
        lines += [title, "", ds.about, "", header, rule] if ds.about else [title, "", header, rule]
        for engine in present:
            c = by_key[ds.name, engine]
            family = engine.split(":")[0]
            base = by_key.get((ds.name, family_baselines.get(family, "")))
            ratio = (
                c.rate / base.rate
                if base
                and base is not c
                and base.run == base.total
                and c.run == c.total
                and base.rate > 0
                else None
            )
            rate_spec = ",.0f" if c.rate >= 10 else ".2g"  # two digits for slow engines
            lines.append(
                f"| {engine} | {c.run}/{c.total} | {_fmt(c.rate, rate_spec)} | "
                f"{_fmt(c.micros, ',.0f')} | {_fmt(c.median_ms, '.2f')} | {_fmt(c.p90_ms, '.2f')} "
                f"| {_fmt(c.max_ms, ',.1f')} | {c.solved} | {c.unique} | {c.timeouts} | "
                f"{_fmt(c.par2, '.4f')} | "
                f"{'-' if c.no_guess is None else f'{100 * c.no_guess:.0f}%'} | "
                f"{_fmt(c.guesses, '.1f')} | {_fmt(ratio, '.1f')} |"
            )
        lines.append("")
    if run.disagreements:
        lines += ["## Disagreements", ""] + [f"- {d}" for d in run.disagreements] + [""]
    else:
        lines += ["All engines agreed on every puzzle they answered.", ""]
    return "\n".join(lines)


def write_results_csv(run: BenchRun, path: Path) -> None:
    """One row per engine x puzzle."""
    keys = sorted({k for m in run.measurements for k in m.stats})
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(
            [
                "dataset",
                "engine",
                "backend",
                "index",
                "puzzle",
                "status",
                "seconds",
                "agree",
                *keys,
                "error",
            ]
        )
        for m in run.measurements:
            writer.writerow(
                [
                    m.dataset,
                    m.engine,
                    m.backend or m.engine,
                    m.index,
                    m.puzzle,
                    m.status,
                    f"{m.seconds:.6f}",
                    int(m.agree),
                    *(m.stats.get(k, "") for k in keys),
                    m.error,
                ]
            )


def machine_info(argv: Sequence[str]) -> dict[str, Any]:
    """What the run was measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu
            )
    except OSError:
        pass
    packages = {}
    for name in ("cpsudoku", "ortools", "python-sat", "numpy"):
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            packages[name] = "not installed"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": dt.date.today().isoformat(),
        "cpu": cpu,
        "cores": cores,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": packages,
        "command": " ".join(["cpsudoku", "bench", *argv]),
    }


#: The pip extra that brings matplotlib, for the plots.
PLOT_EXTRA = "cpsudoku[plot]"


def can_plot() -> bool:
    """True when matplotlib is installed (the optional extra :data:`PLOT_EXTRA`)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except ImportError:  # an import hook that refuses it
        return False


def write_reports(run: BenchRun, out: Path, argv: Sequence[str]) -> list[str]:
    """Write results.csv, summary.md, machine.json and the two plots into ``out``.

    The plots need matplotlib (the extra :data:`PLOT_EXTRA`); without it the tables
    are written all the same. Returns the names of the files written.
    """
    out.mkdir(parents=True, exist_ok=True)
    machine = machine_info(argv)
    cells = summarize(run)
    write_results_csv(run, out / "results.csv")
    (out / "summary.md").write_text(summary_markdown(run, cells, machine), encoding="utf-8")
    from cpsudoku.evidence.provenance import provenance

    made = provenance(
        engine=" ".join(run.engines),
        parameters={"time_limit": run.time_limit},
        inputs=[ds.path for ds in run.datasets],
        argv=["cpsudoku", "bench", *argv],
    )
    (out / "machine.json").write_text(
        json.dumps({**machine, "seconds": round(run.seconds, 1), "provenance": made}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    written = ["summary.md", "results.csv", "machine.json"]
    if can_plot():
        plot_cactus(run, out / "cactus.png")
        plot_throughput(run, cells, out / "throughput.png")
        written += ["cactus.png", "throughput.png"]
    return written
