"""Draw a benchmark run's throughput bars again from its summary.md, without running it.

The per-puzzle rows (results.csv) are not kept in the repository, so the cactus plot
cannot be redrawn; the throughput bars need only the tables of summary.md:

    python benchmarks/redraw_plots.py                      # benchmarks/results
    python benchmarks/redraw_plots.py DIR [DIR ...]        # any `cpsudoku bench --out DIR`
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cpsudoku.bench.plots import redraw_throughput

HERE = Path(__file__).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[HERE / "results"], metavar="DIR")
    for folder in parser.parse_args().folders:
        print(redraw_throughput(folder))


if __name__ == "__main__":
    main()
