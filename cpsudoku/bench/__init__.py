"""The benchmark harness: every engine and variant on the same published puzzles.

``cpsudoku bench`` runs each engine, one at a time and in this process, over the same
puzzles of each dataset (ordered easy to hardest by ``benchmarks/datasets.toml``),
with a per-puzzle time limit, and writes:

- ``results.csv``: one row per engine x puzzle (status, wall time, engine counters,
  agreement with the other engines);
- ``summary.md``: per dataset x engine: puzzles/s, µs/puzzle, median/p90/max ms,
  solved, unique, timeouts, PAR-2, share solved without guessing, guesses per puzzle,
  and the speed-up over the textbook baseline of the same family;
- ``cactus.png`` (puzzles solved vs time, log scale) and ``throughput.png``;
- ``machine.json``: CPU, cores, Python and package versions, the command line.

A disagreement between engines (status, or solution of a unique puzzle) is printed
and makes the run exit non-zero: the harness doubles as a cross-check.
"""

from cpsudoku.bench.harness import BenchRun, log_to_stderr, run_bench
from cpsudoku.bench.manifest import (
    BenchError,
    Dataset,
    find_manifest,
    load_manifest,
    select_datasets,
)
from cpsudoku.bench.report import PLOT_EXTRA, can_plot, write_reports
from cpsudoku.bench.runners import default_engines, expand_engines, variant_engines

__all__ = [
    "PLOT_EXTRA",
    "BenchError",
    "BenchRun",
    "Dataset",
    "can_plot",
    "default_engines",
    "expand_engines",
    "find_manifest",
    "load_manifest",
    "log_to_stderr",
    "run_bench",
    "select_datasets",
    "variant_engines",
    "write_reports",
]
