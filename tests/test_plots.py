"""The benchmark's throughput plot: nothing cut off, no bar hidden, redrawn from summary.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsudoku.bench.harness import BenchRun
from cpsudoku.bench.manifest import Dataset
from cpsudoku.bench.plots import (
    draw_throughput,
    rates_from_summary,
    redraw_throughput,
    throughput_figure,
    throughput_rates,
)
from cpsudoku.bench.report import summary_markdown
from cpsudoku.bench.stats import Cell

pytest.importorskip("matplotlib")

RESULTS = Path(__file__).parents[1] / "benchmarks" / "results"

ENGINES = ["sat", "sat:fresh", "backtrack", "backtrack:naive", "cpsat", "cpsat:sample",
           "native", "portfolio", "logic", "batch+sat"]  # fmt: skip
DATASETS = ["easy_kaggle1m", "clue17", "25x25", "killer"]


def _cell(dataset: str, engine: str, rate: float, *, run: int = 100, solved: int = 100) -> Cell:
    return Cell(dataset, engine, 100, run, solved, solved, 0, run / rate, 1.0, 1.0, 1.0, 0.0,
                None, None)  # fmt: skip


def _cells() -> list[Cell]:
    """The bars of the default run, the killer sample last, tall bars at the right too."""
    return [
        _cell(ds, e, 1.0, run=40)  # gave up: no bar
        if (ds, e) == ("25x25", "backtrack:naive")
        else _cell(ds, e, 10.0 ** (1 + (k + i) % 5))
        for i, ds in enumerate(DATASETS)
        for k, e in enumerate(ENGINES)
    ]


def test_the_label_fits_and_the_legend_covers_no_bar() -> None:
    rates = {(c.dataset, c.engine): c.rate for c in _cells()}
    fig = throughput_figure(DATASETS, ENGINES, rates)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    (ax,) = fig.axes
    page = fig.bbox
    label = ax.yaxis.label.get_window_extent(renderer)
    assert page.y0 <= label.y0, "the y label runs off the bottom of the figure"
    assert label.y1 <= page.y1, "the y label runs off the top of the figure"
    legend = ax.get_legend().get_window_extent(renderer)
    bars = [patch.get_window_extent(renderer) for patch in ax.patches]
    assert bars
    assert not any(legend.overlaps(bar) for bar in bars), "the legend covers bars"
    assert legend.x0 >= ax.get_window_extent(renderer).x1  # beside the plot, not on it
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ENGINES


def test_an_engine_that_gave_up_gets_no_bar() -> None:
    run = BenchRun([Dataset(d, Path(d)) for d in DATASETS], ENGINES, 10.0)
    rates = throughput_rates(run, _cells())
    assert ("25x25", "backtrack:naive") not in rates
    assert rates["killer", "sat"] == pytest.approx(10.0 ** (1 + 3 % 5))


def test_the_bars_are_read_back_from_the_summary(tmp_path: Path) -> None:
    run = BenchRun([Dataset(d, Path(d), about=d) for d in DATASETS], ENGINES, 10.0)
    cells = _cells()
    machine = {"date": "2026-01-01", "cpu": "cpu", "cores": 1, "python": "3", "packages": {},
               "command": "cpsudoku bench"}  # fmt: skip
    text = summary_markdown(run, cells, machine)
    assert "(1 core)" in text
    datasets, engines, rates = rates_from_summary(text)
    assert datasets == DATASETS
    assert engines == ENGINES
    expected = throughput_rates(run, cells)
    assert rates.keys() == expected.keys()
    for key, rate in expected.items():
        assert rates[key] == pytest.approx(rate, rel=0.01)
    (tmp_path / "summary.md").write_text(text)
    png = redraw_throughput(tmp_path)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_committed_plot_is_drawn_from_the_committed_summary(tmp_path: Path) -> None:
    """benchmarks/results/throughput.png comes from summary.md beside it: every bar."""
    datasets, engines, rates = rates_from_summary((RESULTS / "summary.md").read_text())
    assert datasets[0] == "easy_kaggle1m"
    assert "forum_hardest_1106" in datasets
    assert "sat" in engines
    assert "batch+sat" in engines
    assert rates["easy_kaggle1m", "sat"] > 0
    assert ("kaggle3m_6-8", "backtrack:naive") not in rates  # gave up: 0/215 run
    draw_throughput(datasets, engines, rates, tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 10_000
