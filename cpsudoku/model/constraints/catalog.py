"""The table of every rule kind: family, meaning, JSON and f-puzzles key, for the README.

Each kind carries what the table says of it (:attr:`Constraint.meaning`,
:attr:`Constraint.example`, :attr:`Constraint.fpuzzles_key`), so the table is written
from the registry, never by hand: ``python -m cpsudoku.model.constraints.catalog``
prints it, ``--update README.md`` rewrites it between the README's markers, and a test
holds the README to it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cpsudoku.model.constraints.base import KINDS

#: The families in the order the table lists them.
FAMILIES = (
    "cages",
    "relations",
    "lines",
    "sums",
    "outside clues",
    "cells",
    "indexers",
    "composites",
)

#: Where the README keeps the table.
START, END = "<!-- rules table: start -->", "<!-- rules table: end -->"

#: The rows of what is no constraint kind: the regions.
_REGION_ROWS = (
    "| regions | jigsaw: up to n regions of n cells in place of the boxes (cells in none "
    'keep only their row and column) | `{"size": 4, "regions": [[0, 1, 4, 8], ...]}` | '
    "a cell's `region` |",
    "| regions | extra no-repeat regions of 1 to n cells: diagonals (Sudoku X), windows, "
    'disjoint groups, any listed region | `"extra": [{"kind": "diagonal", "cells": [0, 10, '
    "20, ...]}]` | `diagonal+`, `diagonal-`, `disjointgroups`, `extraregion` |",
)


def rules_table() -> str:
    """The Markdown table: one row per rule kind, by family."""
    rows = [
        "| family | rule | JSON | f-puzzles key |",
        "|---|---|---|---|",
        *_REGION_ROWS,
    ]
    order = {family: k for k, family in enumerate(FAMILIES)}
    kinds = sorted(KINDS.values(), key=lambda cls: (order.get(cls.family, 99), cls.kind))
    for cls in kinds:
        key = (
            ", ".join(f"`{k.strip()}`" for k in cls.fpuzzles_key.split(","))
            if cls.fpuzzles_key
            else "-"
        )
        example = json.dumps(cls.example)
        rows.append(f"| {cls.family} | `{cls.kind}`: {cls.meaning} | `{example}` | {key} |")
    return "\n".join(rows) + "\n"


def update(path: Path) -> bool:
    """Rewrite the table between the markers of ``path``; True when it changed."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    if not rest or END not in rest:
        raise SystemExit(f"{path} has no {START} ... {END} markers")
    new = f"{head}{START}\n{rules_table()}{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # pragma: no cover - a developer's tool
    if sys.argv[1:2] == ["--update"]:
        print("updated" if update(Path(sys.argv[2])) else "unchanged")
    else:
        sys.stdout.write(rules_table())
