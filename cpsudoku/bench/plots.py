"""The benchmark's plots: a cactus plot and throughput bars (matplotlib, the plot extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cpsudoku.bench.harness import BenchRun
from cpsudoku.bench.runners import ANSWERS
from cpsudoku.bench.stats import Cell


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


def plot_throughput(run: BenchRun, cells: Sequence[Cell], path: Path) -> None:
    """Grouped bars: puzzles/s per dataset (x) and engine (colour), log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key = {(c.dataset, c.engine): c for c in cells}
    names = [d.name for d in run.datasets if any((d.name, e) in by_key for e in run.engines)]
    width = 0.8 / max(1, len(run.engines))
    fig, ax = plt.subplots(figsize=(max(9, 1.1 * len(names)), 5.5), dpi=110)
    for k, engine in enumerate(run.engines):
        xs, ys = [], []
        for i, name in enumerate(names):
            c = by_key.get((name, engine))
            # No bar for an engine that gave up or answered nothing (the logic pass
            # alone on the hardest sets): its speed would mean nothing.
            if c and c.run == c.total and c.solved and c.seconds > 0:
                xs.append(i + (k - (len(run.engines) - 1) / 2) * width)
                ys.append(c.rate)
        if xs:
            ax.bar(xs, ys, width, label=engine)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("puzzles/s (log; uniqueness checked; no bar = gave up or none solved)")
    ax.set_title("Throughput per dataset, easy to hardest")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
