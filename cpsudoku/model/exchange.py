"""pencilmark's ``sudoku-puzzle`` exchange format (format_version 1), read and written.

A document is a JSON object: ``board`` ({"rows", "cols"}), ``digits``, ``givens`` (a
flat list, 0 for empty) and ``rules``, a list of typed rules with ``r1c1`` cells. The
rules both projects speak are mapped both ways (:data:`WRITTEN`); any other rule type
or kind refuses the document by name, so a rule is never dropped. A rule cpsudoku
holds that the format cannot say (a little killer that is not a diagonal from the
edge, a whisper of another gap) refuses the writing, by name too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cpsudoku.model.constraints import (
    AntiKing,
    AntiKnight,
    Arrow,
    Cage,
    Candidates,
    Constraint,
    Even,
    KropkiBlack,
    KropkiWhite,
    LittleKiller,
    Negative,
    NonConsecutive,
    Odd,
    PairRule,
    Palindrome,
    Renban,
    Sandwich,
    Thermometer,
    VMark,
    Whisper,
    XMark,
    cell_name,
)
from cpsudoku.model.errors import PuzzleError, RulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules

FORMAT = "sudoku-puzzle"
FORMAT_VERSION = 1

#: The rule types of the format this module reads and writes (with their kinds).
WRITTEN = (
    "box_grid", "grid", "box", "region (diagonal, window, disjoint, extra, region)",
    "cage", "line (thermo, whisper, renban, palindrome)", "arrow",
    "edge (kropki, xv)", "negative (kropki, xv)", "sum (little_killer)", "sandwich",
    "neighbours (antiknight, antiking, nonconsecutive)", "cell (odd, even, set)",
)  # fmt: skip

_REGION_KINDS = {"diagonal": "diagonal", "anti-diagonal": "diagonal", "window": "window",
                 "disjoint group": "disjoint"}  # fmt: skip
_LINES: dict[str, type[Constraint]] = {
    "thermo": Thermometer,
    "whisper": Whisper,
    "renban": Renban,
    "palindrome": Palindrome,
}
_NEIGHBOURS = {"antiknight": AntiKnight, "antiking": AntiKing, "nonconsecutive": NonConsecutive}
_EDGES: dict[tuple[str, str], type[PairRule]] = {
    ("kropki", "white"): KropkiWhite,
    ("kropki", "black"): KropkiBlack,
    ("xv", "X"): XMark,
    ("xv", "V"): VMark,
}
_NEGATIVES = {
    "kropki-white": ("kropki", "color", "white"),
    "kropki-black": ("kropki", "color", "black"),
    "x": ("xv", "letter", "X"),
    "v": ("xv", "letter", "V"),
}
_SIDES = {"top": (-1, 0), "bottom": (1, 0), "left": (0, -1), "right": (0, 1)}


def is_exchange(obj: object) -> bool:
    """True for an object that says it is a ``sudoku-puzzle`` document."""
    return isinstance(obj, Mapping) and obj.get("format") == FORMAT


# ---------------------------------------------------------------------------- writing


def to_exchange(puzzle: Puzzle, solution: Puzzle | None = None) -> dict[str, Any]:
    """The puzzle as a ``sudoku-puzzle`` document (format_version 1).

    Raises:
        RulesError: a rule the format cannot say, named.
    """
    rules, n = puzzle.rules, puzzle.rules.n

    def names(cells: Sequence[int]) -> list[str]:
        return [cell_name(i, n) for i in cells]

    out: list[dict[str, Any]] = []
    if rules.box is not None:
        out.append({"type": "box_grid", "box": list(rules.box), "origin": "r1c1"})
    else:
        out.append({"type": "grid", "origin": "r1c1"})
        out.extend({"type": "box", "cells": names(region)} for region in rules.regions)
    for region in rules.extra:
        kind = _REGION_KINDS.get(region.kind, "extra")
        out.append({"type": "region", "kind": kind, "cells": names(region.cells)})
    for c in rules.constraints:
        out.extend(_write_rule(c, n, names))
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "board": {"rows": n, "cols": n},
        "digits": n,
        "givens": list(puzzle.cells),
        "rules": out,
    }
    if solution is not None:
        doc["solution"] = list(solution.cells)
    return doc


def _write_rule(c: Constraint, n: int, names: Any) -> list[dict[str, Any]]:
    """The format's rules for one constraint."""
    if isinstance(c, Renban):  # a cage subclass: first
        return [{"type": "line", "kind": "renban", "cells": names(c.cells)}]
    if isinstance(c, Cage):
        if c.sums:
            raise RulesError("the exchange format has no multi-sum cage")
        rule: dict[str, Any] = {"type": "cage", "cells": names(c.cells)}
        if c.total is not None:
            rule["sum"] = c.total
        return [rule]
    if isinstance(c, Negative):
        if c.mark not in _NEGATIVES:
            raise RulesError(f"the exchange format has no negative rule of {c.mark}")
        if c.spec() != {"kind": c.kind, "of": c.mark}:
            raise RulesError(
                "the exchange format has no negative rule with other values or exempt marks"
            )
        family, key, value = _NEGATIVES[c.mark]
        return [{"type": "negative", "of": family, key: value}]
    for (kind, value), edge_cls in _EDGES.items():
        if type(c) is edge_cls:
            key = "color" if kind == "kropki" else "letter"
            return [{"type": "edge", "kind": kind, key: value, "cells": names(c.cells)}]
    for kind, cls in _NEIGHBOURS.items():
        if type(c) is cls:
            return [{"type": "neighbours", "kind": kind}]
    for kind, line_cls in _LINES.items():
        if type(c) is line_cls:
            line: dict[str, Any] = {"type": "line", "kind": kind, "cells": names(c.cells)}
            if kind == "whisper":
                line["value"] = (n + 1) // 2
            return [line]
    if isinstance(c, Even | Odd):
        return [{"type": "cell", "kind": c.kind, "cells": names(c.cells)}]
    if isinstance(c, Candidates):
        by_set: dict[int, list[int]] = {}
        for i, mask in c.masks():
            by_set.setdefault(mask, []).append(i)
        return [
            {
                "type": "cell",
                "kind": "set",
                "values": [d for d in range(1, n + 1) if mask >> (d - 1) & 1],
                "cells": names(cells),
            }
            for mask, cells in by_set.items()
        ]
    if isinstance(c, Arrow):
        return [{"type": "arrow", "bulb": names(c.circle), "lines": [names(c.shaft)]}]
    if isinstance(c, LittleKiller):
        side = _outside_side(c.cells, n)
        if side is None:
            raise RulesError(
                f"the little killer at {cell_name(c.cells[0], n)} is not a diagonal run from "
                "the edge; the exchange format cannot say it"
            )
        return [{"type": "sum", "kind": "little_killer", "sum": c.total, "side": side,
                 "cells": names(c.cells)}]  # fmt: skip
    if isinstance(c, Sandwich):
        side = "left" if c.line == "row" else "top"
        return [{"type": "sandwich", "sum": c.total, "side": side, "cells": names(c.cells)}]
    raise RulesError(f"the exchange format has no {c.kind} rule")


def _outside_side(cells: Sequence[int], n: int) -> str | None:
    """The side a diagonal run of ``cells`` starts from (its clue outside), or None.

    The run's first cell lies on that side's edge, and the run moves away from it.
    """
    (r, c), rest = divmod(cells[0], n), cells[1:]
    dr, dc = (divmod(rest[0], n)[0] - r, rest[0] % n - c) if rest else (0, 0)
    if rest and (abs(dr) != 1 or abs(dc) != 1):
        return None
    for k in range(len(cells) - 1):
        if (cells[k + 1] // n - cells[k] // n, cells[k + 1] % n - cells[k] % n) != (dr, dc):
            return None
    for side, (sr, sc) in _SIDES.items():
        outside = not (0 <= r + sr < n and 0 <= c + sc < n)
        away = not rest or (sr != 0 and dr == -sr) or (sc != 0 and dc == -sc)
        if outside and away:
            return side
    return None


# ---------------------------------------------------------------------------- reading


def from_exchange(doc: Mapping[str, Any]) -> Puzzle:
    """The puzzle of a ``sudoku-puzzle`` document.

    Raises:
        RulesError: a rule type or kind cpsudoku does not take (named), or a malformed
            rule.
        PuzzleError: a malformed document (version, board, givens).
    """
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise PuzzleError(f"sudoku-puzzle format_version {version!r}; this reads version 1")
    board = doc.get("board")
    n = doc.get("digits")
    if not isinstance(board, Mapping) or not isinstance(n, int) or isinstance(n, bool):
        raise PuzzleError('a sudoku-puzzle needs "board" and "digits"')
    if board.get("rows") != n or board.get("cols") != n:
        raise RulesError(f"a {board.get('rows')}x{board.get('cols')} board with {n} digits is not "
                         "a square grid of n digits")  # fmt: skip
    givens = doc.get("givens")
    if not isinstance(givens, list) or len(givens) != n * n:
        raise PuzzleError(f"sudoku-puzzle givens: a list of {n * n} values")
    if any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= n for v in givens):
        raise PuzzleError(f"sudoku-puzzle givens: whole numbers 0..{n}")
    if doc.get("candidates"):
        raise RulesError("sudoku-puzzle key 'candidates' is not read; write them as cell set rules")
    rules_list = doc.get("rules")
    if not isinstance(rules_list, list) or not rules_list:
        raise PuzzleError("a sudoku-puzzle needs its rules")

    def cells_of(value: object, what: str) -> list[int]:
        if not isinstance(value, list):
            raise RulesError(f"sudoku-puzzle {what}: cells are a list")
        return [_cell(v, n, what) for v in value]

    box: tuple[int, int] | None = None
    grid = False
    regions: list[tuple[int, ...]] = []
    extra: list[Region] = []
    constraints: list[Constraint] = []
    for k, rule in enumerate(rules_list):
        if not isinstance(rule, Mapping):
            raise RulesError(f"sudoku-puzzle rule {k} is not an object")
        t, kind = rule.get("type"), rule.get("kind")
        what = f"rule {k} ({t}{' ' + str(kind) if kind else ''})"
        if t == "box_grid":
            shape = rule.get("box")
            if rule.get("origin") != "r1c1" or not isinstance(shape, list) or len(shape) != 2:
                raise RulesError(f"sudoku-puzzle {what}: only a box grid from r1c1 is read")
            box = (int(shape[0]), int(shape[1]))
        elif t == "grid":
            if rule.get("origin") != "r1c1":
                raise RulesError(f"sudoku-puzzle {what}: only a grid from r1c1 is read")
            grid = True
        elif t == "box":
            regions.append(tuple(cells_of(rule.get("cells"), what)))
        elif t == "region":
            extra.append(_region(kind, cells_of(rule.get("cells"), what), n))
        elif t == "cage":
            spec = {"kind": "cage", "cells": cells_of(rule.get("cells"), what)}
            if "sum" in rule:
                spec["sum"] = rule["sum"]
            constraints.append(Cage.from_spec(spec, n))
        elif t == "line" and kind in _LINES:
            if rule.get("closed"):
                raise RulesError(f"sudoku-puzzle {what}: closed lines are not read")
            if kind == "whisper" and rule.get("value", 5 if n == 9 else None) != (n + 1) // 2:
                raise RulesError(
                    f"sudoku-puzzle {what}: cpsudoku's whispers differ by {(n + 1) // 2} "
                    f"on {n}x{n}, not {rule.get('value')}"
                )
            spec = {"kind": _LINES[kind].kind, "cells": cells_of(rule.get("cells"), what)}
            constraints.append(_LINES[kind].from_spec(spec, n))
        elif t == "arrow":
            circle = cells_of(rule.get("bulb"), what)
            lines = rule.get("lines")
            if not isinstance(lines, list) or not lines:
                raise RulesError(f"sudoku-puzzle {what}: no shafts")
            for shaft in lines:
                spec = {"kind": "arrow", "circle": circle, "cells": cells_of(shaft, what)}
                constraints.append(Arrow.from_spec(spec, n))
        elif t == "edge" and kind in ("kropki", "xv"):
            key = str(rule.get("color" if kind == "kropki" else "letter"))
            edge = _EDGES.get((str(kind), key))
            if edge is None:
                raise RulesError(f"sudoku-puzzle {what}: {key!r} is not read")
            cells = cells_of(rule.get("cells"), what)
            constraints.append(edge.from_spec({"kind": edge.kind, "cells": cells}, n))
        elif t == "negative" and rule.get("of") in ("kropki", "xv") and "area" not in rule:
            of = rule["of"]
            chosen = rule.get("color" if of == "kropki" else "letter")
            marks = [
                m for m, (fam, _, v) in _NEGATIVES.items() if fam == of and chosen in (None, v)
            ]
            if not marks:
                raise RulesError(f"sudoku-puzzle {what}: {chosen!r} is not read")
            constraints.extend(Negative.from_spec({"kind": "negative", "of": m}, n) for m in marks)
        elif t == "sum" and kind == "little_killer":
            cells = cells_of(rule.get("cells"), what)
            sum_spec = {"kind": "little-killer", "cells": cells, "sum": rule.get("sum")}
            constraints.append(LittleKiller.from_spec(sum_spec, n))
        elif t == "sandwich":
            constraints.append(_sandwich(rule, cells_of(rule.get("cells"), what), n, what))
        elif (
            t == "neighbours"
            and kind in _NEIGHBOURS
            and set(rule) <= {"type", "kind", "id", "label", "style"}
        ):
            constraints.append(_NEIGHBOURS[kind].of(n))  # type: ignore[attr-defined]
        elif t == "cell" and kind in ("odd", "even"):
            cls_ = Even if kind == "even" else Odd
            constraints.append(
                cls_.from_spec({"kind": kind, "cells": cells_of(rule.get("cells"), what)}, n)
            )
        elif t == "cell" and kind == "set":
            values = rule.get("values")
            if not isinstance(values, list) or not values:
                raise RulesError(f"sudoku-puzzle {what}: no values")
            cells = cells_of(rule.get("cells"), what)
            text = "".join(Rules.for_size(n).symbol(int(v)) for v in values)
            constraints.append(
                Candidates.from_spec(
                    {"kind": "candidates", "cells": cells, "values": [text] * len(cells)}, n
                )
            )
        else:
            raise RulesError(
                f"sudoku-puzzle {what} is not a rule cpsudoku takes; it reads: {', '.join(WRITTEN)}"
            )
    if box is not None and (grid or regions):
        raise RulesError("sudoku-puzzle: a box grid and a grid with boxes at once")
    if box is not None:
        rules = Rules.classic(*box)
        if rules.n != n:
            raise RulesError(f"sudoku-puzzle: {box[0]}x{box[1]} boxes do not make {n} digits")
    elif grid and regions:
        rules = Rules.jigsaw(regions)
    else:
        raise RulesError(
            "sudoku-puzzle: rows, columns and boxes (box_grid, or grid and box rules) are needed"
        )
    if extra:
        rules = rules.with_extra(*extra)
    if constraints:
        rules = rules.with_constraints(*constraints)
    return Puzzle(rules, tuple(givens))


def _cell(value: object, n: int, what: str) -> int:
    """An ``r1c1`` cell name as an index."""
    text = value if isinstance(value, str) else ""
    if not (text.startswith("r") and "c" in text):
        raise RulesError(f"sudoku-puzzle {what}: {value!r} is no cell (r1c1)")
    try:
        r, c = (int(x) for x in text[1:].split("c", 1))
    except ValueError:
        raise RulesError(f"sudoku-puzzle {what}: {value!r} is no cell (r1c1)") from None
    if not (1 <= r <= n and 1 <= c <= n):
        raise RulesError(f"sudoku-puzzle {what}: {value} is off the grid")
    return (r - 1) * n + c - 1


def _region(kind: object, cells: list[int], n: int) -> Region:
    """An extra region, its kind named as cpsudoku names them."""
    if kind == "diagonal":
        main = all(i // n == i % n for i in cells)
        return Region("diagonal" if main else "anti-diagonal", tuple(cells))
    names = {
        "window": "window",
        "disjoint": "disjoint group",
        "extra": "region",
        "region": "region",
    }
    if kind not in names:
        raise RulesError(f"sudoku-puzzle region kind {kind!r} is not read")
    return Region(names[str(kind)], tuple(cells))


def _sandwich(rule: Mapping[str, Any], cells: list[int], n: int, what: str) -> Sandwich:
    """A sandwich clue: its cells a whole row or column read away from its side."""
    side = rule.get("side")
    rows = {i // n for i in cells}
    cols = {i % n for i in cells}
    if side in ("left", "right") and len(rows) == 1 and len(cells) == n:
        spec = {"kind": "sandwich", "row": cells[0] // n + 1, "sum": rule.get("sum")}
    elif side in ("top", "bottom") and len(cols) == 1 and len(cells) == n:
        spec = {"kind": "sandwich", "column": cells[0] % n + 1, "sum": rule.get("sum")}
    else:
        raise RulesError(f"sudoku-puzzle {what}: only whole rows and columns are read")
    return Sandwich.from_spec(spec, n)
