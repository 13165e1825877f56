"""Does the logic rater's score order puzzles as published ratings do?

Rates every puzzle of the two rated samples in ``benchmarks/data`` and compares the
score with the published rating:

- ``medium_kaggle3m_rated.ratings.csv``: ``difficulty`` (0.0-8.5) of the Kaggle
  "3 million Sudoku puzzles with ratings" data set, up to 120 puzzles per integer band;
- ``hard_sudokuexchange_se5plus.ratings.csv``: ``se_rating`` (Sukaku Explainer, 5.0-9.3)
  of the Sudoku Exchange puzzle bank, up to 150 puzzles per integer band.

The score's weights were chosen on those two samples, so their figures are in-sample.
``--data DIR`` reads the files of the same names from ``DIR`` instead (the published
files, of which the repository bundles only samples), and ``--held-out`` leaves out
the puzzles of the bundled samples: the figures on puzzles the weights never saw.
``--per-band N`` keeps the first N puzzles of each integer band of a file.

Prints, per data set, Spearman's rank correlation between score and published rating
(average ranks for ties, no SciPy needed) over the whole range and over the hard band
on its own (published rating 5 and up, where the rater's trial placements decide the
score and a whole-range figure, carried by the easy end, hides how well they order
puzzles; every puzzle of the Sudoku Explainer 5+ file is in it), the mean score per
integer band (it must rise with the bands), the share of puzzles needing trial
placement, the grades, and the rating speed.

    python benchmarks/rating_correlation.py [--data DIR] [--held-out] [--per-band N]
        [--limit N] [--json FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpsudoku.model.forms import parse
from cpsudoku.rating import rate_puzzle

DATA = Path(__file__).parent / "data"
DATASETS = {
    "medium_kaggle3m_rated": "difficulty",
    "hard_sudokuexchange_se5plus": "se_rating",
}
#: Where the hard band starts on both published scales (Sudoku Explainer's 5.0 is
#: where its techniques go beyond XY-wing; the Kaggle difficulty runs 0.0-8.5).
HARD = 5.0


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing the average of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(a: list[float], b: list[float]) -> float:
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    var = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return cov / var if var else float("nan")


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation: Pearson's on the (tie-averaged) ranks."""
    return pearson(ranks(a), ranks(b))


def read_rows(path: Path, column: str) -> list[dict[str, str]]:
    """The rows of a ratings file, stopping with a message naming it when it cannot be read."""
    try:
        with path.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        raise SystemExit(f"cannot read {path}: {exc.strerror}") from None
    for line, row in enumerate(rows, start=2):
        try:
            float(row.get(column) or "")
        except ValueError:
            raise SystemExit(
                f"{path}, line {line}: no {column} rating (the columns are puzzle,{column})"
            ) from None
    return rows


def select(
    name: str,
    column: str,
    data: Path,
    *,
    held_out: bool = False,
    per_band: int | None = None,
    limit: int | None = None,
) -> list[dict[str, str]]:
    """The rows of ``name`` to rate: from ``data``, less the bundled ones if ``held_out``."""
    rows = read_rows(data / f"{name}.ratings.csv", column)
    if held_out:
        bundled = {r["puzzle"] for r in read_rows(DATA / f"{name}.ratings.csv", column)}
        rows = [r for r in rows if r["puzzle"] not in bundled]
    if per_band is not None:
        taken: Counter[int] = Counter()
        kept = []
        for row in rows:
            band = int(float(row[column]))
            if taken[band] < per_band:
                taken[band] += 1
                kept.append(row)
        rows = kept
    return rows[:limit]


def evaluate(name: str, column: str, rows: list[dict[str, str]]) -> dict[str, object]:
    published: list[float] = []
    scores: list[float] = []
    bands: dict[int, list[float]] = defaultdict(list)
    trial_bands: dict[int, list[bool]] = defaultdict(list)
    grades: Counter[str] = Counter()
    start = time.perf_counter()
    for row in rows:
        rating = rate_puzzle(parse(row["puzzle"]))
        if rating.score is None:
            raise SystemExit(f"{name}: {row['puzzle']} rated {rating.status}")
        published.append(float(row[column]))
        scores.append(rating.score)
        band = int(float(row[column]))
        bands[band].append(rating.score)
        trial_bands[band].append(rating.trials > 0)
        grades[str(rating.grade)] += 1
    seconds = time.perf_counter() - start
    hard = [(s, p) for s, p in zip(scores, published, strict=True) if p >= HARD]
    means = {b: sum(v) / len(v) for b, v in sorted(bands.items())}
    values = list(means.values())
    rising = all(x < y for x, y in pairwise(values))
    return {
        "dataset": name,
        "published": column,
        "puzzles": len(rows),
        "spearman": round(spearman(scores, published), 4),
        "hard_from": HARD,
        "hard_puzzles": len(hard),
        "hard_spearman": round(spearman(*map(list, zip(*hard, strict=True))), 4)
        if len(hard) > 1
        else None,
        "mean_score_per_band": {b: round(m, 3) for b, m in means.items()},
        "puzzles_per_band": {b: len(v) for b, v in sorted(bands.items())},
        "share_with_trials_per_band": {
            b: round(sum(v) / len(v), 3) for b, v in sorted(trial_bands.items())
        },
        "means_rise_with_bands": rising,
        "grades": dict(grades),
        "seconds": round(seconds, 2),
        "puzzles_per_second": round(len(rows) / seconds, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        metavar="DIR",
        type=Path,
        default=DATA,
        help="read the ratings files from DIR (the published files; default: the bundled samples)",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="leave out the puzzles of the bundled samples (the score's weights were "
        "chosen on them)",
    )
    parser.add_argument(
        "--per-band", type=int, metavar="N", help="first N puzzles of each integer band"
    )
    parser.add_argument("--limit", type=int, help="first N puzzles of each file")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    for flag, value in (("--per-band", args.per_band), ("--limit", args.limit)):
        if value is not None and value < 1:
            parser.error(f"{flag} must be at least 1")
    results = []
    for name, column in DATASETS.items():
        rows = select(
            name,
            column,
            args.data,
            held_out=args.held_out,
            per_band=args.per_band,
            limit=args.limit,
        )
        if not rows:
            raise SystemExit(f"{name}: no puzzle left to rate")
        results.append(evaluate(name, column, rows))
    for r in results:
        print(f"{r['dataset']} ({r['puzzles']} puzzles, published {r['published']})")
        print(f"  Spearman rank correlation: {r['spearman']:.3f}")
        hard = r["hard_spearman"]
        print(
            f"  hard band ({r['published']} >= {r['hard_from']:g}, {r['hard_puzzles']} "
            f"puzzles): {'-' if hard is None else f'{hard:.3f}'}"
        )
        print("  band  puzzles  mean score  with trials")
        per_band = r["mean_score_per_band"]
        assert isinstance(per_band, dict)
        for band, mean in per_band.items():
            count = r["puzzles_per_band"][band]  # type: ignore[index]
            share = r["share_with_trials_per_band"][band]  # type: ignore[index]
            print(f"  {band:>4}  {count:>7}  {mean:>10.3f}  {share:>10.0%}")
        print(f"  mean score rises with the bands: {r['means_rise_with_bands']}")
        print(f"  grades: {r['grades']}")
        print(f"  {r['seconds']} s, {r['puzzles_per_second']} puzzles/s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0 if all(r["means_rise_with_bands"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
