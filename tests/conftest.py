"""Shared fixtures: bundled data, small-grid helpers and a batch runner."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from cpsudoku.cli import main
from cpsudoku.grid import Geometry, Puzzle

DATA = Path(__file__).parent / "data"


def read_lines(name: str, limit: int | None = None) -> list[str]:
    """Puzzle lines of a bundled test file (comments and blank lines skipped)."""
    lines = [
        line.strip()
        for line in (DATA / name).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return lines[:limit]


def read_csv(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as fh:
        return list(csv.DictReader(fh))


def run_batch(src: Path, out: Path, *args: str, code: int = 0) -> list[dict[str, str]]:
    """Run ``cpsudoku batch SRC -o OUT --quiet ARGS``, check its exit code, read OUT's rows.

    The code is batch's: 0 every record decided, 3 some timed out, 4 some invalid, 5
    some disagree with the input's solution column or the cross-check.
    """
    assert main(["batch", str(src), "-o", str(out), "--quiet", *args]) == code
    with out.open(newline="") as fh:
        return list(csv.DictReader(fh))


def random_grid(g: Geometry, rng: random.Random) -> Puzzle:
    """A valid complete grid: the pattern solution, shuffled by symmetries."""
    n, br, bc = g.n, g.box_rows, g.box_cols

    def pattern(r: int, c: int) -> int:
        return (bc * (r % br) + r // br + c) % n

    bands = rng.sample(range(n // br), n // br)
    rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(n // bc), n // bc)
    cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    symbols = rng.sample(range(1, n + 1), n)
    return Puzzle(g, tuple(symbols[pattern(r, c)] for r in rows for c in cols))


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261123)
