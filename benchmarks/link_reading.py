"""Link reading speed: ``cpsudoku.parse`` of an f-puzzles share link of a 9x9 variant.

The link is made with :func:`cpsudoku.model.fpuzzles.fpuzzles_link` from the published
9x9 puzzles of tests/data/published/fpuzzles.jsonl: the one with the most rules (or
the one ``--id`` names), topped up to ``--rules`` (50 by default) with rules of kinds
it lacks, taken from the next published puzzles (the largest published one has 41;
reading does not solve, so the mix need not have a solution). A call decodes the link
(lz-string, base64), reads the JSON and checks every rule, as a user's paste is read.
Prints the median, 90th percentile and best of ``--repeat`` calls (after one warm-up
call). Run it on one core:

    taskset -c 0 python benchmarks/link_reading.py
    taskset -c 0 python benchmarks/link_reading.py --id sudokusolverrust-01 --repeat 500
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from cpsudoku import parse
from cpsudoku.model.fpuzzles import fpuzzles_link

warnings.simplefilter("ignore")  # the drawings read past are named once per link, not here

PUBLISHED = Path(__file__).parent.parent / "tests" / "data" / "published" / "fpuzzles.jsonl"


def decode(link: str) -> str:
    """The f-puzzles JSON a link carries."""
    import lzstring

    return str(lzstring.LZString().decompressFromBase64(unquote(link.split("load=", 1)[1])))


def rule_count(link: str) -> int:
    """The rules a link reads to: constraints plus extra regions."""
    rules = parse(link).rules
    return len(rules.constraints) + len(rules.extra)


def build(rows: list[dict[str, Any]], target: int, name: str | None) -> tuple[str, str]:
    """A link of about ``target`` rules, and where its rules come from."""
    nines = [row for row in rows if row.get("size") == 9]
    nines.sort(key=lambda row: -rule_count(fpuzzles_link(row["fpuzzles"])))
    first = next(row for row in nines if row["id"] == name) if name else nines[0]
    obj = json.loads(json.dumps(first["fpuzzles"]))
    sources = [first["id"]]
    for row in nines:
        for key, entries in row["fpuzzles"].items():
            if key in obj or not isinstance(entries, list) or key == "grid":
                continue
            for entry in entries:
                if rule_count(fpuzzles_link(obj)) >= target:
                    break
                obj.setdefault(key, []).append(entry)
                if row["id"] not in sources:
                    sources.append(row["id"])
    return fpuzzles_link(obj), " + ".join(sources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=50, help="rules of the link to pick")
    parser.add_argument("--id", help="the published puzzle's id instead")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    rows = [json.loads(line) for line in PUBLISHED.read_text().splitlines() if line.strip()]
    link, sources = build(rows, args.rules, args.id)
    keys = sorted(json.loads(decode(link)))
    parse(link)  # warm-up: imports, caches of the grid shape
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        parse(link)
        times.append(time.perf_counter() - start)
    times.sort()
    print(f"puzzle: {sources}: {rule_count(link)} rules, a link of {len(link)} characters")
    print(f"keys: {', '.join(k for k in keys if k not in ('size', 'grid'))}")
    ms = [t * 1000 for t in times]
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(
        f"parse(link), {args.repeat} calls: median {statistics.median(ms):.2f} ms, "
        f"90th percentile {p90:.2f} ms, best {ms[0]:.2f} ms"
    )


if __name__ == "__main__":
    main()
