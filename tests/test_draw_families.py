"""Every rule kind draws itself as setters draw it: the SVG holds its shapes and cells.

Each kind's README example is drawn alone on a 9x9 grid. The SVG must hold the
shapes the kind is drawn with (its elements' classes, ``"<shape> <kind>"``), and
every cell the rule names must be tagged on one of them (``data-cells``), so a page
can find a rule's drawing. Only the rules of the whole grid fall back to the base
drawing, a line of words under the grid.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from conftest import DATA

from cpsudoku.cli import main
from cpsudoku.draw.svg import CELL, Picture, drawing_of, to_svg
from cpsudoku.model.constraints import KINDS, Constraint, cell_index, constraint_from_spec
from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

SVG = "{http://www.w3.org/2000/svg}"

#: The kinds that speak of the whole grid: drawn as a note under it, nothing else.
GRID_WIDE = {
    "anti-king",
    "anti-knight",
    "diagonal-non-consecutive",
    "dutch-flatmates",
    "global-entropy",
    "global-modular",
    "knightmare",
    "non-consecutive",
    "self-taxicab",
    "taxicab",
}

#: The classes ("<shape> <kind>") each kind's example must draw.
EXPECTED: dict[str, tuple[str, ...]] = {
    "and": ("cage cage", "mark odd"),
    "arrow": ("circle arrow", "arrow arrow"),
    "between-line": ("line between-line", "circle between-line"),
    "box-indexer": ("shade box-indexer",),
    "cage": ("cage cage", "cage-label cage"),
    "candidates": ("text candidates",),
    "chess": (),  # its example lists no cells: a note (see the test of listed cells)
    "clone": ("shade clone",),
    "column-indexer": ("shade column-indexer",),
    "counting-circles": ("circle counting-circles",),
    "digital-root-cage": ("cage digital-root-cage", "cage-label digital-root-cage"),
    "doppelganger": ("shade doppelganger", "cage doppelganger"),
    "double-arrow": ("line double-arrow", "circle double-arrow"),
    "entropic-line": ("line entropic-line",),
    "equality-cage": ("cage equality-cage", "cage-label equality-cage"),
    "even": ("mark even",),
    "hidden-skyscraper": ("outside hidden-skyscraper",),
    "kropki-black": ("dot kropki-black",),
    "kropki-white": ("dot kropki-white",),
    "little-killer": ("outside little-killer", "outside little-killer pointer"),
    "lockout-line": ("line lockout-line", "circle lockout-line diamond"),
    "lunchbox": ("pill lunchbox", "outside lunchbox"),
    "maximum": ("chevron maximum",),
    "minimum": ("chevron minimum",),
    "modular-line": ("line modular-line",),
    "nabner": ("line nabner",),
    "negative": (),
    "numbered-room": ("outside numbered-room",),
    "odd": ("mark odd",),
    "or": ("cage cage",),
    "palindrome": ("line palindrome",),
    "quadruple": ("corner quadruple", "corner-text quadruple"),
    "regex-line": ("line regex-line", "text regex-line"),
    "region-sum-line": ("line region-sum-line",),
    "rellik-cage": ("cage rellik-cage", "cage-label rellik-cage"),
    "renban": ("line renban",),
    "row-indexer": ("shade row-indexer",),
    "sandwich": ("outside sandwich",),
    "skyscraper": ("outside skyscraper",),
    "slow-thermometer": ("bulb slow-thermometer", "line slow-thermometer"),
    "sum-dot": ("dot sum-dot", "dot sum-dot label"),
    "thermometer": ("bulb thermometer", "line thermometer"),
    "v": ("edge-text v",),
    "whisper": ("line whisper",),
    "x": ("edge-text x",),
    "x-sum": ("outside x-sum",),
    "zipper-line": ("line zipper-line",),
}

#: Kinds whose example is drawn as words too (a note under the grid).
NOTED = {"negative", "or", "chess", "regex-line"}


def _base(kind: str, n: int = 9) -> Rules:
    """The grid a kind's example is drawn on: a doppelganger's has no boxes of its own."""
    return Rules.classic(1, n) if kind == "doppelganger" else Rules.for_size(n)


def _puzzle(*specs: dict[str, Any], n: int = 9) -> Puzzle:
    base = _base(str(specs[0]["kind"]) if specs else "", n)
    rules = base.with_constraints(*(constraint_from_spec(s, n) for s in specs))
    return Puzzle(rules, (0,) * (n * n))


def _elements(svg: str) -> list[ET.Element]:
    """The SVG's elements with a class (it must be well-formed XML)."""
    root = ET.fromstring(svg)
    return [e for e in root.iter() if e.get("class")]


def _named_cells(spec: dict[str, Any], n: int) -> dict[str, set[int]]:
    """The cells a spec names, by the kind that names them (members of composites too)."""
    out: dict[str, set[int]] = {}
    for member in spec.get("rules", []):
        for kind, cells in _named_cells(member, n).items():
            out.setdefault(kind, set()).update(cells)
    for key in ("cells", "circle", "clones"):
        for c in spec.get(key, []):
            out.setdefault(spec["kind"], set()).add(cell_index(c, n))
    return out


def _line_cells(spec: dict[str, Any], n: int) -> set[int]:
    """The cells of the row or column an outside clue names."""
    if "row" in spec:
        return {(spec["row"] - 1) * n + c for c in range(n)}
    return {r * n + spec["column"] - 1 for r in range(n)}


def test_every_kind_is_listed_here() -> None:
    assert set(KINDS) == set(EXPECTED) | GRID_WIDE
    assert not set(EXPECTED) & GRID_WIDE


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_only_rules_of_the_whole_grid_fall_back_to_the_base_drawing(kind: str) -> None:
    rule = constraint_from_spec(KINDS[kind].example, 9)
    drawing = drawing_of(_base(kind).with_constraints(rule))
    falls_back = type(rule).draw is Constraint.draw
    assert falls_back == (kind in GRID_WIDE)
    if kind in GRID_WIDE:
        assert not drawing.shapes
        assert len(drawing.notes) == 1
        assert drawing.notes[0].startswith(kind)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_kind_draws_its_shapes_on_its_cells(kind: str) -> None:
    spec = KINDS[kind].example
    puzzle = _puzzle(spec)
    svg = to_svg(Picture(puzzle))
    elements = _elements(svg)
    classes = {e.get("class") for e in elements}
    for expected in EXPECTED[kind]:
        assert expected in classes, f"{kind}: no element of class {expected!r}"
    # every cell the rule names is tagged on an element of its kind (of a member's kind)
    for named, cells in _named_cells(spec, 9).items():
        tagged = {
            int(i)
            for e in elements
            if named in (e.get("class") or "").split()
            for i in (e.get("data-cells") or "").split()
        }
        assert cells <= tagged, f"{kind}: cells {sorted(cells - tagged)} drawn nowhere"
    # an outside clue shows its number and is tagged with the line it reads
    if "row" in spec or "column" in spec:
        (clue,) = [e for e in elements if e.get("class") == f"outside {kind}"]
        number = next(v for k, v in spec.items() if k in ("sum", "count", "digit"))
        assert clue.text == str(number)
        assert {int(i) for i in (clue.get("data-cells") or "").split()} == _line_cells(spec, 9)
    notes = [e for e in elements if e.get("class") == "note"]
    assert bool(notes) == (kind in NOTED), kind


@pytest.mark.parametrize("kind", sorted(GRID_WIDE))
def test_rules_of_the_whole_grid_are_written_under_it(kind: str) -> None:
    svg = to_svg(Picture(_puzzle(KINDS[kind].example)))
    notes = [e.text or "" for e in _elements(svg) if e.get("class") == "note"]
    assert notes
    assert notes[0].startswith(kind)
    assert KINDS[kind].meaning.split()[0] in " ".join(notes)


# ----------------------------------------------------------------- particular shapes


def _by_class(svg: str, cls: str) -> list[ET.Element]:
    return [e for e in _elements(svg) if e.get("class") == cls]


def test_a_chess_rule_over_listed_cells_shades_them() -> None:
    spec = {"kind": "chess", "offsets": [[1, 2]], "cells": ["r2c2", "r7c8"]}
    svg = to_svg(Picture(_puzzle(spec)))
    assert {e.get("data-cells") for e in _by_class(svg, "shade chess")} == {"10", "61"}
    assert any((e.text or "").startswith("chess") for e in _by_class(svg, "note"))


def test_a_multi_sum_cage_is_labelled_with_its_sums() -> None:
    svg = to_svg(Picture(_puzzle({"kind": "cage", "cells": ["r1c1", "r1c2"], "sums": [3, 10]})))
    (label,) = _by_class(svg, "cage-label cage")
    assert label.text == "3/10"


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        ({"kind": "digital-root-cage", "cells": ["r1c1", "r1c2"], "root": 4}, "DR4"),
        ({"kind": "rellik-cage", "cells": ["r1c1", "r1c2"], "value": 5}, "\u22605"),
        ({"kind": "equality-cage", "cells": ["r1c1", "r1c2"]}, "="),
    ],
)
def test_cages_of_digit_sets_carry_their_mark(spec: dict[str, Any], label: str) -> None:
    (text,) = _by_class(to_svg(Picture(_puzzle(spec))), f"cage-label {spec['kind']}")
    assert text.text == label


def test_a_quadruple_sits_on_the_corner_its_cells_share() -> None:
    spec = {"kind": "quadruple", "cells": ["r2c3", "r2c4", "r3c3", "r3c4"], "values": [1, 1, 9]}
    svg = to_svg(Picture(_puzzle(spec)))
    (circle,) = _by_class(svg, "corner quadruple")
    assert (float(circle.get("cx", "")), float(circle.get("cy", ""))) == (3 * CELL, 2 * CELL)
    texts = _by_class(svg, "corner-text quadruple")
    assert [t.text for t in texts] == ["11", "9"]  # three digits and more: two rows


def test_minimum_arrowheads_point_in_and_maximum_ones_out() -> None:
    def tips(kind: str) -> list[tuple[float, float]]:
        # r5c5's chevrons: one per edge; each path is "M back L tip L back"
        (path,) = _by_class(
            to_svg(Picture(_puzzle({"kind": kind, "cells": ["r5c5"]}))), f"chevron {kind}"
        )
        heads = (path.get("d") or "").split("M")[1:]
        return [tuple(map(float, h.split("L")[1].split(","))) for h in heads]  # type: ignore[misc]

    centre = 4.5 * CELL
    for kind, near in (("minimum", 0.33), ("maximum", 0.44)):
        found = tips(kind)
        assert len(found) == 4  # four neighbours, none listed
        for x, y in found:
            assert abs(abs(x - centre) + abs(y - centre) - near * CELL) < 0.05


def test_a_minimum_cell_is_not_compared_with_a_listed_neighbour() -> None:
    spec = {"kind": "minimum", "cells": ["r1c1", "r1c2"]}
    paths = _by_class(to_svg(Picture(_puzzle(spec))), "chevron minimum")
    assert [(p.get("d") or "").count("M") for p in paths] == [
        1,
        2,
    ]  # corner: down; r1c2: down, right


def test_clone_cells_share_one_colour() -> None:
    spec = {"kind": "clone", "cells": ["r1c1", "r1c2"], "clones": ["r5c5", "r5c6"]}
    shades = _by_class(to_svg(Picture(_puzzle(spec))), "shade clone")
    assert len(shades) == 4
    assert len({s.get("fill") for s in shades}) == 1


def test_each_clone_rule_has_its_own_colour() -> None:
    specs = [{"kind": "clone", "cells": [f"r1c{k}"], "clones": [f"r9c{k}"]} for k in range(1, 10)]
    shades = [
        e for e in _elements(to_svg(Picture(_puzzle(*specs)))) if "clone" in e.get("class", "")
    ]
    fills = [e.get("fill") for e in shades]
    assert len(set(fills[:16])) == 8  # the palette's 8 colours, two cells each
    assert fills[16] == fills[0]  # then round again


def test_a_lunchbox_inside_the_grid_has_its_sum_in_its_first_cell() -> None:
    spec = {"kind": "lunchbox", "cells": ["r2c2", "r2c3", "r2c4"], "sum": 0}
    svg = to_svg(Picture(_puzzle(spec)))
    assert not _by_class(svg, "outside lunchbox")
    (text,) = _by_class(svg, "text lunchbox")
    assert text.text == "0"
    assert text.get("data-cells") == str(cell_index("r2c2", 9))


def test_a_long_regex_pattern_is_written_under_the_grid() -> None:
    spec = {"kind": "regex-line", "cells": ["r1c1", "r1c2", "r1c3"], "pattern": "(12|34|56)+[1-9]"}
    notes = [e.text or "" for e in _by_class(to_svg(Picture(_puzzle(spec))), "note")]
    assert any("(12|34|56)+[1-9]" in note for note in notes)


def test_lines_take_their_kind_colour() -> None:
    from cpsudoku.model.constraints.drawing import COLOURS

    for kind, colour in (("region-sum-line", "region-sum"), ("zipper-line", "zipper")):
        (line,) = _by_class(to_svg(Picture(_puzzle(KINDS[kind].example))), f"line {kind}")
        assert line.get("stroke") == COLOURS[colour]


def test_dots_and_corner_clues_are_drawn_over_the_grid_lines() -> None:
    svg = to_svg(
        Picture(
            _puzzle(
                {"kind": "kropki-white", "cells": ["r1c3", "r1c4"]},
                {"kind": "quadruple", "cells": ["r3c3", "r3c4", "r4c3", "r4c4"], "values": [1]},
            )
        )
    )
    order = [e.get("class") for e in _elements(svg)]
    assert order.index("region-line") < order.index("dot kropki-white")
    assert order.index("region-line") < order.index("corner quadruple")


def test_a_thermometer_bulb_shows_in_a_between_lines_circle() -> None:
    svg = to_svg(
        Picture(
            _puzzle(
                {"kind": "between-line", "cells": ["r2c2", "r2c3", "r2c4"]},
                {"kind": "thermometer", "cells": ["r2c2", "r3c2"]},
            )
        )
    )
    order = [e.get("class") for e in _elements(svg)]
    assert order.index("circle between-line") < order.index("bulb thermometer")


def test_an_or_rule_draws_its_members_and_says_one_is_enough() -> None:
    drawing = drawing_of(
        Rules.for_size(9).with_constraints(constraint_from_spec(KINDS["or"].example, 9))
    )
    assert [s.shape for s in drawing.shapes] == ["cage", "cage"]
    assert drawing.notes[0].startswith("or, at least one holds: cage r1c1-r1c2 (sum 3) | ")


def test_a_published_variant_draws_every_rule(tmp_path: Any) -> None:
    """Cloneways Game of Life: arrows, clones, minimum and maximum cells, X and V."""
    text = (DATA / "published" / "fpuzzles.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    record = next(r for r in records if r["id"] == "sudokusolverrust-12")
    puzzle = read_fpuzzles(record["fpuzzles"]).puzzle
    out = tmp_path / "p.svg"
    assert main(["draw", json.dumps(record["fpuzzles"]), "-o", str(out)]) == 0
    elements = _elements(out.read_text())
    kinds = {c.kind for c in puzzle.rules.constraints}
    classes = [(e.get("class") or "").split() for e in elements]
    drawn = {words[1] for words in classes if len(words) > 1}  # "<shape> <kind> ..."
    assert kinds <= drawn
    assert not any(e.get("class") == "note" for e in elements)
