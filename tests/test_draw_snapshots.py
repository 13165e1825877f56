"""Pictures of a few puzzles compared with committed PNGs, within a pixel tolerance.

The element tests (test_draw_families.py) say what is drawn; these say how it
looks: a shape moved, recoloured or lost shows here. Text is rasterised with the
DejaVu font matplotlib ships, so the pictures barely differ between machines; the
tolerance lets antialiasing differ. To accept a change of drawing, look at the new
pictures and write them with ``CPSUDOKU_UPDATE_SNAPSHOTS=1 python -m pytest
tests/test_draw_snapshots.py``.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import DATA

from cpsudoku.draw.png import svg_to_png
from cpsudoku.draw.svg import Picture, to_svg
from cpsudoku.model.constraints import constraint_from_spec
from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

pytest.importorskip("resvg_py", reason="PNG pictures need the draw extra")
Image = pytest.importorskip("PIL.Image", reason="the comparison reads PNGs with Pillow")

SNAPSHOTS = DATA / "draw"
#: Pixels per SVG pixel: small pictures, still legible.
SCALE = 0.75
#: The mean absolute difference allowed, per channel, on 0..255.
MEAN_TOLERANCE = 1.0
#: The share of pixels allowed to differ strongly (by more than STRONG).
STRONG_TOLERANCE = 0.001
#: A difference that counts as strong, per channel (a pale line on white is about 70).
STRONG = 40

LINES = [
    {"kind": "thermometer", "cells": ["r1c1", "r2c1", "r3c1"]},
    {"kind": "slow-thermometer", "cells": ["r1c2", "r2c2", "r3c2", "r3c3"]},
    {"kind": "between-line", "cells": ["r1c4", "r1c5", "r1c6"]},
    {"kind": "lockout-line", "cells": ["r2c4", "r2c5", "r2c6", "r3c6"]},
    {"kind": "zipper-line", "cells": ["r1c7", "r1c8", "r1c9", "r2c9", "r2c8"]},
    {"kind": "double-arrow", "cells": ["r4c1", "r4c2", "r4c3", "r5c3"]},
    {"kind": "region-sum-line", "cells": ["r5c1", "r6c1", "r7c1", "r7c2"]},
    {"kind": "entropic-line", "cells": ["r4c5", "r4c6", "r5c6", "r6c6"]},
    {"kind": "modular-line", "cells": ["r5c4", "r6c4", "r6c5"]},
    {"kind": "nabner", "cells": ["r4c8", "r5c8", "r6c8"]},
    {"kind": "regex-line", "cells": ["r8c1", "r8c2", "r8c3"], "pattern": "1+9?"},
    {"kind": "whisper", "cells": ["r9c1", "r9c2", "r9c3"]},
    {"kind": "renban", "cells": ["r7c5", "r8c5", "r9c5"]},
    {"kind": "palindrome", "cells": ["r7c7", "r8c8", "r9c9"]},
    {"kind": "arrow", "circle": ["r7c4"], "cells": ["r8c4", "r9c4"]},
]

CLUES = [
    {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
    {"kind": "cage", "cells": ["r2c1", "r2c2", "r3c1"], "sums": [7, 20]},
    {"kind": "digital-root-cage", "cells": ["r1c4", "r1c5"], "root": 4},
    {"kind": "rellik-cage", "cells": ["r2c4", "r2c5", "r3c4"], "value": 5},
    {"kind": "equality-cage", "cells": ["r1c7", "r1c8"]},
    {"kind": "quadruple", "cells": ["r4c4", "r4c5", "r5c4", "r5c5"], "values": [1, 2, 3]},
    {"kind": "counting-circles", "cells": ["r7c1", "r8c3", "r7c3"]},
    {"kind": "row-indexer", "cells": ["r4c1"]},
    {"kind": "column-indexer", "cells": ["r5c1", "r6c1"]},
    {"kind": "box-indexer", "cells": ["r6c3"]},
    {"kind": "odd", "cells": ["r4c7"]},
    {"kind": "even", "cells": ["r4c9"]},
    {"kind": "kropki-white", "cells": ["r6c7", "r6c8"]},
    {"kind": "kropki-black", "cells": ["r6c8", "r6c9"], "value": 3},
    {"kind": "x", "cells": ["r7c7", "r8c7"]},
    {"kind": "v", "cells": ["r7c8", "r8c8"]},
    {"kind": "sum-dot", "cells": ["r7c9", "r8c9"], "value": 7},
    {"kind": "clone", "cells": ["r8c5", "r8c6"], "clones": ["r9c8", "r9c9"]},
    {"kind": "maximum", "cells": ["r9c5"]},
    {"kind": "minimum", "cells": ["r5c8", "r5c9"]},
    {"kind": "x-sum", "row": 3, "sum": 25},
    {"kind": "skyscraper", "column": 2, "count": 3},
    {"kind": "sandwich", "row": 5, "sum": 10},
    {"kind": "little-killer", "cells": ["r1c3", "r2c2", "r3c1"], "sum": 12},
    {"kind": "numbered-room", "row": 2, "digit": 7, "reverse": True},
    {"kind": "hidden-skyscraper", "column": 6, "digit": 4, "reverse": True},
    {"kind": "lunchbox", "cells": ["r9c1", "r9c2", "r9c3", "r9c4"], "sum": 5},
    {"kind": "anti-knight"},
]


def _gallery(specs: list[dict[str, Any]]) -> Picture:
    rules = Rules.for_size(9).with_constraints(*(constraint_from_spec(s, 9) for s in specs))
    return Picture(Puzzle(rules, (0,) * 81))


def _published(record_id: str, solved: bool = False) -> Picture:
    text = (DATA / "published" / "fpuzzles.jsonl").read_text(encoding="utf-8")
    record = next(
        r for r in map(json.loads, filter(None, text.splitlines())) if r["id"] == record_id
    )
    setter = read_fpuzzles(record["fpuzzles"])
    solution = None
    if solved:
        solution = [int(ch, 36) for ch in record["solution"]]
    return Picture(setter.puzzle, solution, title=record["title"])


PICTURES = {
    "lines": lambda: _gallery(LINES),
    "clues": lambda: _gallery(CLUES),
    "cloneways": lambda: _published("sudokusolverrust-12"),
    "extreme-killer-6x6-solved": lambda: _published("sudokusolverrust-23", solved=True),
}


def _pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_the_picture_looks_as_committed(name: str, tmp_path: Path) -> None:
    png = svg_to_png(to_svg(PICTURES[name]()), scale=SCALE)
    reference = SNAPSHOTS / f"{name}.png"
    if os.environ.get("CPSUDOKU_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(png)
    got, want = _pixels(png), _pixels(reference.read_bytes())
    (tmp_path / f"{name}.png").write_bytes(png)  # kept beside the test's other output
    assert got.shape == want.shape, f"{name}: {got.shape} pixels, committed {want.shape}"
    diff = np.abs(got - want)
    mean = float(diff.mean())
    strong = float((diff.max(axis=2) > STRONG).mean())
    assert mean < MEAN_TOLERANCE, f"{name}: mean difference {mean:.2f}; see {tmp_path}"
    assert strong < STRONG_TOLERANCE, f"{name}: {strong:.2%} of pixels differ; see {tmp_path}"


@pytest.mark.parametrize("k", range(len(LINES)))
def test_a_lost_rule_is_caught(k: int) -> None:
    """The tolerance is not so loose that a picture missing one line passes."""
    picture = PICTURES["lines"]()
    rules = picture.puzzle.rules.constraints
    fewer = Rules.for_size(9).with_constraints(*rules[:k], *rules[k + 1 :])
    png = svg_to_png(to_svg(Picture(Puzzle(fewer, picture.puzzle.cells))), scale=SCALE)
    diff = np.abs(_pixels(png) - _pixels((SNAPSHOTS / "lines.png").read_bytes()))
    assert float((diff.max(axis=2) > STRONG).mean()) >= STRONG_TOLERANCE, rules[k].kind
