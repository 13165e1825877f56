"""The benchmark's plots: a cactus plot and throughput bars (matplotlib, the plot extra).

The throughput bars can be drawn again from a run's ``summary.md`` alone, without
running the benchmark (the per-puzzle ``results.csv`` is not kept in the repository):
``python benchmarks/redraw_plots.py benchmarks/results``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cpsudoku.bench.harness import BenchRun
from cpsudoku.bench.runners import ANSWERS
from cpsudoku.bench.stats import Cell

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Throughput of each (dataset, engine) pair that gets a bar, in puzzles per second.
Rates = Mapping[tuple[str, str], float]


def plot_cactus(run: BenchRun, path: Path) -> None:
    """Puzzles solved (x) against the time each took, sorted (y, log scale), per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    for engine in run.engines:
        times = sorted(
            m.seconds for m in run.measurements if m.engine == engine and m.status in ANSWERS
        )
        if times:
            ax.plot(range(1, len(times) + 1), times, label=engine, linewidth=1.6)
    ax.set_yscale("log")
    ax.set_xlabel("puzzles solved (all datasets, each engine's times sorted)")
    ax.set_ylabel("seconds per puzzle (log)")
    ax.set_title(f"Cactus plot: time limit {run.time_limit:g} s per puzzle")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def throughput_rates(run: BenchRun, cells: Sequence[Cell]) -> Rates:
    """The bars of a run: every engine that ran a whole dataset and solved some of it.

    No bar for an engine that gave up or answered nothing (the logic pass alone on the
    hardest sets): its speed would mean nothing.
    """
    return {
        (c.dataset, c.engine): c.rate
        for c in cells
        if c.run == c.total and c.solved and c.seconds > 0
    }


def plot_throughput(run: BenchRun, cells: Sequence[Cell], path: Path) -> None:
    """Grouped bars: puzzles/s per dataset (x) and engine (colour), log scale."""
    present = {c.dataset for c in cells}
    names = [d.name for d in run.datasets if d.name in present]
    draw_throughput(names, run.engines, throughput_rates(run, cells), path)


def draw_throughput(
    datasets: Sequence[str], engines: Sequence[str], rates: Rates, path: Path
) -> None:
    """Write the throughput bars of ``rates`` to ``path`` (PNG)."""
    import matplotlib.pyplot as plt

    fig = throughput_figure(datasets, engines, rates)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def throughput_figure(datasets: Sequence[str], engines: Sequence[str], rates: Rates) -> Figure:
    """The throughput bars as a figure: one group per dataset, one colour per engine.

    The legend stands to the right of the plot, where it covers no bar (the last
    datasets, the killer sample among them, have bars up to the top); the y label is
    short enough for the plot's height, and what a missing bar means goes under the
    title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.8 / max(1, len(engines))
    fig, ax = plt.subplots(figsize=(max(9.0, 1.1 * len(datasets)) + 1.8, 5.5), dpi=110)
    for k, engine in enumerate(engines):
        xs, ys = [], []
        for i, name in enumerate(datasets):
            rate = rates.get((name, engine))
            if rate is not None and math.isfinite(rate) and rate > 0:
                xs.append(i + (k - (len(engines) - 1) / 2) * width)
                ys.append(rate)
        # Every engine keeps its colour and legend entry, bars or not.
        ax.bar(xs, ys, width, label=engine, color=f"C{k % 10}")
    ax.set_yscale("log")
    ax.set_xticks(range(len(datasets)), list(datasets), rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(datasets) - 0.4)
    ax.set_ylabel("puzzles/s (log scale)")
    ax.set_title(
        "Throughput per dataset, easy to hardest\n"
        "uniqueness checked; no bar: the engine gave up on the dataset or solved none of it",
        fontsize=10,
    )
    ax.grid(True, axis="y", which="both", alpha=0.3)
    if engines:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


_ROW = re.compile(r"^\|\s*(?P<engine>[^|]+?)\s*\|\s*(?P<run>\d+)/(?P<total>\d+)\s*\|")


def rates_from_summary(text: str) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
    """Datasets, engines and bars as a ``summary.md`` written by ``bench --out`` has them.

    The same bars :func:`throughput_rates` gives, read from the tables: an engine that
    ran the whole dataset (``run`` n/n) and solved at least one puzzle, at its
    rounded puzzles/s.
    """
    datasets: list[str] = []
    engines: list[str] = []
    rates: dict[tuple[str, str], float] = {}
    columns: list[str] = []
    dataset = None
    for line in text.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            dataset = None if heading == "Disagreements" else heading.split(" (")[0]
            columns = []
            continue
        if dataset is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "engine":
            columns = cells
            continue
        match = _ROW.match(line)
        if not match or not columns:
            continue
        row = dict(zip(columns, cells, strict=False))
        engine = match["engine"]
        if dataset not in datasets:
            datasets.append(dataset)
        if engine not in engines:
            engines.append(engine)
        rate = row.get("puzzles/s", "-").replace(",", "")
        whole = match["run"] == match["total"]
        if whole and row.get("solved", "0") not in ("0", "-") and rate not in ("-", "", "inf"):
            rates[dataset, engine] = float(rate)
    return datasets, engines, rates


def redraw_throughput(folder: Path) -> Path:
    """Draw ``throughput.png`` again from ``summary.md`` in ``folder``; return its path."""
    datasets, engines, rates = rates_from_summary((folder / "summary.md").read_text("utf-8"))
    path = folder / "throughput.png"
    draw_throughput(datasets, engines, rates, path)
    return path
