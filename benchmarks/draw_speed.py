"""Drawing speed: a published 9x9 variant to SVG (and to PNG), the median of many calls.

The SVG is what ``cpsudoku draw -o p.svg`` writes and what a page asks for on every
edit, so its time is the one that matters (the target: under 20 ms on one core);
the PNG adds resvg's rasterising (the draw extra). The puzzle is read once; each
call draws every rule anew (:func:`cpsudoku.draw.svg.to_svg`).

    python benchmarks/draw_speed.py                       # the default puzzle
    python benchmarks/draw_speed.py --id iss-killer-sudoku --runs 200
    taskset -c 0 python benchmarks/draw_speed.py --all    # every published 9x9

The default, "Bird in a storm" (sudokusolverrust-02), holds the most rules of the
published 9x9 f-puzzles: anti-knight, non-consecutive, a negative rule, palindromes,
white and black dots (41 rules).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from cpsudoku.draw.svg import Picture, to_svg
from cpsudoku.model.fpuzzles import read_fpuzzles

PUBLISHED = Path(__file__).parent.parent / "tests" / "data" / "published" / "fpuzzles.jsonl"


def _records() -> list[dict[str, Any]]:
    text = PUBLISHED.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _median_ms(picture: Picture, runs: int, png: bool = False) -> float:
    """The median time of one drawing, in milliseconds."""
    if png:
        from cpsudoku.draw.png import svg_to_png
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        svg = to_svg(picture)
        if png:
            svg_to_png(svg)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--id", default="sudokusolverrust-02", help="the published puzzle")
    parser.add_argument("--runs", type=int, default=100, help="calls per figure")
    parser.add_argument("--all", action="store_true", help="every published 9x9, SVG only")
    args = parser.parse_args()
    records = _records()
    if args.all:
        rows = []
        for record in records:
            if record["size"] != 9:
                continue
            puzzle = read_fpuzzles(record["fpuzzles"]).puzzle
            ms = _median_ms(Picture(puzzle), args.runs)
            rows.append((ms, record["id"], len(puzzle.rules.constraints)))
        rows.sort(reverse=True)
        print("| puzzle | rules | SVG median ms |\n| --- | ---: | ---: |")
        for ms, name, rules in rows:
            print(f"| {name} | {rules} | {ms:.2f} |")
        middle = statistics.median(r[0] for r in rows)
        print(f"\nslowest {rows[0][0]:.2f} ms; median of the medians {middle:.2f} ms")
        return
    record = next(r for r in records if r["id"] == args.id)
    puzzle = read_fpuzzles(record["fpuzzles"]).puzzle
    picture = Picture(puzzle, title=record["title"])
    kinds = sorted({c.kind for c in puzzle.rules.constraints})
    rules = len(puzzle.rules.constraints)
    print(f"{record['id']} ({record['title']}): {rules} rules: {', '.join(kinds)}")
    print(f"SVG: median {_median_ms(picture, args.runs):.2f} ms of {args.runs}")
    try:
        import resvg_py  # noqa: F401
    except ImportError:
        print("PNG: resvg-py is not installed (the draw extra)")
        return
    print(f"PNG: median {_median_ms(picture, args.runs, png=True):.2f} ms of {args.runs}")


if __name__ == "__main__":
    main()
