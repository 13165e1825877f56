"""Build a big dataset from the bundled samples by symmetry transformations.

Each output puzzle is a bundled puzzle with its digits relabelled, bands and stacks
permuted, rows permuted within bands, columns within stacks, and optionally
transposed. These maps send valid grids to valid grids and solutions to solutions, so
each puzzle keeps its difficulty and its number of solutions.

    python benchmarks/make_big.py -n 1000000 -o big.txt
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
DEFAULT_SOURCES = [HERE / "data" / "easy_kaggle1m.txt", HERE / "data" / "easy_kaggle9m.txt"]
SYMBOLS = np.frombuffer(b".123456789", dtype=np.uint8)


def load(paths: list[Path]) -> np.ndarray:
    """The 9x9 puzzles of the files as an (N, 81) array of values, 0 = empty."""
    lines = [line.strip() for p in paths for line in p.read_text().splitlines()]
    lines = [line for line in lines if len(line) == 81]
    raw = np.frombuffer("".join(lines).encode(), dtype=np.uint8).reshape(len(lines), 81)
    values = raw.astype(np.int16) - ord("0")
    values[(values < 0) | (values > 9)] = 0
    return values.astype(np.uint8)


def transformed(puzzles: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random symmetry images of randomly chosen puzzles, (count, 81)."""
    pick = rng.integers(0, len(puzzles), count)

    def perm3x3() -> np.ndarray:  # (count, 9): a band order plus a row order inside each band
        bands = rng.permuted(np.tile(np.arange(3), (count, 1)), axis=1)
        inner = rng.permuted(np.tile(np.arange(3), (count, 3, 1)), axis=2)
        return (bands[:, :, None] * 3 + np.take_along_axis(inner, bands[:, :, None], 1)).reshape(
            count, 9
        )

    rows, cols = perm3x3(), perm3x3()
    cells = rows[:, :, None] * 9 + cols[:, None, :]  # (count, 9, 9) source cell of each cell
    flip = rng.random(count) < 0.5
    cells[flip] = cells[flip].transpose(0, 2, 1)
    relabel = np.concatenate(
        [
            np.zeros((count, 1), np.uint8),
            rng.permuted(np.tile(np.arange(1, 10, dtype=np.uint8), (count, 1)), axis=1),
        ],
        axis=1,
    )
    source = puzzles[pick][np.arange(count)[:, None], cells.reshape(count, 81)]
    return np.take_along_axis(relabel, source.astype(np.intp), axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="puzzles to write")
    parser.add_argument("-o", "--output", required=True, help="output .txt file")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sources", nargs="+", type=Path, default=DEFAULT_SOURCES)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    puzzles = load(args.sources)
    with open(args.output, "wb") as fh:
        for start in range(0, args.n, 100_000):
            block = transformed(puzzles, min(100_000, args.n - start), rng)
            text = np.concatenate(
                [SYMBOLS[block], np.full((len(block), 1), ord("\n"), np.uint8)], axis=1
            )
            fh.write(text.tobytes())


if __name__ == "__main__":
    main()
