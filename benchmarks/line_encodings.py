"""Encodings of the line rules compared on published puzzles that use them.

Each family's rules compile one way in the model; this script swaps in the other
forms that were tried and times every engine on the published f-puzzles puzzles with
the family's keys (best of ``--repeat`` solves a puzzle; every answer checked against
the published solution):

- ``sums`` (zipper lines, double arrows, region sum lines): each part against the
  first (kept), each part against the next (``chain``), every two parts (``all``),
  a table of the four cells where two parts have four cells between them (``table``);
- ``between`` (between lines): a table of (end, inner cell, end) per inner cell
  (kept), or a choice of the two orders, each a set of "less than" relations
  (``choice``);
- ``classes`` (entropic and modular lines): relations of cells one, two and three
  apart (kept), or a table of every three consecutive cells plus the relations of
  cells three apart (``triples``).

    python benchmarks/line_encodings.py sums --engines sat cpsat
    python benchmarks/line_encodings.py between classes
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import combinations, pairwise, product
from pathlib import Path
from typing import Any

from cpsudoku.engines import create_backend
from cpsudoku.model.constraints import lines, sums
from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.primitives import Choice, Primitive, Relation, Sum, Table, table_of

DATA = Path(__file__).parent.parent / "tests" / "data" / "published" / "fpuzzles.jsonl"


def _parts_sum(first: tuple[int, ...], other: tuple[int, ...]) -> Sum:
    return Sum(tuple((i, 1) for i in first) + tuple((i, -1) for i in other), (0,))


def _chain(rule: Any, n: int) -> tuple[Primitive, ...]:
    groups = rule.groups
    return tuple(_parts_sum(a, b) for a, b in pairwise(groups))


def _all(rule: Any, n: int) -> tuple[Primitive, ...]:
    return tuple(_parts_sum(a, b) for a, b in combinations(rule.groups, 2))


def _table(rule: Any, n: int) -> tuple[Primitive, ...]:
    out: list[Primitive] = []
    groups = rule.groups
    for other in groups[1:]:
        first = groups[0]
        if len(first) + len(other) <= 4:
            k = len(first)
            tuples = tuple(
                t
                for t in product(range(1, n + 1), repeat=k + len(other))
                if sum(t[:k]) == sum(t[k:])
            )
            out.append(Table(first + other, tuples))
        else:
            out.append(_parts_sum(first, other))
    return tuple(out)


def _less(a: int, b: int) -> bool:
    return a < b


def _choice(rule: Any, n: int) -> tuple[Primitive, ...]:
    a, b, inner = rule.cells[0], rule.cells[-1], rule.cells[1:-1]
    less = table_of(n, _less)

    def rising(low: int, high: int) -> tuple[Primitive, ...]:
        return (
            Relation(tuple((low, i) for i in inner), less),
            Relation(tuple((i, high) for i in inner), less),
        )

    return (Choice((rising(a, b), rising(b, a))),)


def _triples(rule: Any, n: int) -> tuple[Primitive, ...]:
    of = lines._CLASSES[rule.classes]
    cells = rule.cells
    if len(cells) < 3:
        return rule.kept(n)  # type: ignore[no-any-return]
    tuples = tuple(t for t in product(range(1, n + 1), repeat=3) if len({of(v, n) for v in t}) == 3)
    windows = tuple(Table(cells[k : k + 3], tuples) for k in range(len(cells) - 2))
    same = rule.kept(n)[1:]  # the relation of cells three apart, when there is one
    return windows + tuple(same)


#: family -> (the class whose compile is swapped, the keys, {variant: compile}).
FAMILIES: dict[str, tuple[type, set[str], dict[str, Callable[..., Any] | None]]] = {
    "sums": (
        sums.EqualSums,
        {"zipperline", "doublearrow", "regionsumline"},
        {"kept": None, "chain": _chain, "all": _all, "table": _table},
    ),
    "between": (lines.BetweenLine, {"betweenline"}, {"kept": None, "choice": _choice}),
    "classes": (
        lines.ClassLine,
        {"entropicline", "modularline"},
        {"kept": None, "triples": _triples},
    ),
}


def run(family: str, variant: str, engines: list[str], data: Path, repeat: int) -> None:
    """Time one variant of one family on every engine (in a process of its own)."""
    cls, keys, variants = FAMILIES[family]
    kept = cls.compile
    cls.kept = kept  # type: ignore[attr-defined]
    cls.compile = variants[variant] or kept  # type: ignore[method-assign]
    records = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    chosen = [r for r in records if keys & set(r["keys"])]
    for spec in engines:
        with create_backend(spec) as engine:
            times = []
            for record in chosen:
                puzzle = read_fpuzzles(record["fpuzzles"]).puzzle
                best = float("inf")
                for _ in range(repeat):
                    start = time.perf_counter()
                    result = engine.solve(puzzle, time_limit=120)
                    best = min(best, time.perf_counter() - start)
                cells = result.solution.cells if result.solution else ()
                assert "".join(map(str, cells)) == record["solution"], record["title"]
                times.append(best)
        shown = " ".join(f"{t:.3f}" for t in times)
        print(f"  {variant:8} {spec:8} total {sum(times):6.2f} s   {shown}", flush=True)


def main() -> None:
    """Time each family's encodings on every engine asked for, each in a fresh process.

    Rules are interned and keep their compiled primitives, and engines keep their
    encodings: a variant swapped in after another was used would not be seen.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="+", choices=sorted(FAMILIES))
    parser.add_argument("--engines", nargs="+", default=["sat", "cpsat"])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        run(args.families[0], args.variant, args.engines, args.data, args.repeat)
        return
    records = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    for family in args.families:
        _, keys, variants = FAMILIES[family]
        titles = [r["title"] for r in records if keys & set(r["keys"])]
        print(f"{family}: {len(titles)} puzzles ({', '.join(titles)})", flush=True)
        for variant in variants:
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    family,
                    "--variant",
                    variant,
                    "--engines",
                    *args.engines,
                    "--data",
                    str(args.data),
                    "--repeat",
                    str(args.repeat),
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
