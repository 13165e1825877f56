"""Doppelganger (the Interactive Sudoku Solver's rule), written on a grid one larger.

The rule as ISS states it: an N x N grid holds the values 0..N; every row, column and
box holds 0 and all but one of the digits 1..N; no two rows (columns, boxes) miss the
same digit; and at each 0, the digits missing from its row, its column and its box
are three different digits. ISS keeps the missing digits in cells of their own: one
per row, one per column, one per box.

cpsudoku's grids hold 1..n with every row and column a permutation, so the rule is
written on the grid one larger, side ``n = N + 1``, whose rows and columns are still
permutations: the N x N grid in the top left, each digit k held as the value k + 1
(so ``symbols="0123456789"`` writes and reads the digits as they are, and order and
differences stay as they are for the rules that read them), column ``n`` holding the
digit each row misses, row ``n`` the digit each column misses, and the corner cell
the 0 (a row of the big grid is a row of the small one and its
missing digit: all ``n`` values once; its last row and column are the missing digits
and the 0, all different: ISS's "no two rows miss the same digit"). The big grid
has no boxes (its boxes are its rows, ``"box": "1xn"``): the small grid's boxes are
this rule's, and their missing digits need no cells (below).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar, cast

from cpsudoku.model.constraints.base import (
    Constraint,
    as_list,
    cell_name,
    kind,
    numbers,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Allowed, Automaton, Distinct, Primitive, Sum, automaton, bit

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules

#: The value the doppelganger's 0 is held as (digit k is the value k + 1).
ZERO = 1

#: A whisper over boxes' missing digits: the boxes (0-based, row by row) in line order,
#: and the least difference between neighbours.
BoxWhisper = tuple[tuple[int, ...], int]

#: A missing-digit automaton's state: the next cell's place, the line's missing digit
#: (None once settled), the box of the line's 0, a crossing digit to check, m seen.
_State = tuple[int, int | None, int | None, bool, bool]


def _box_shape(text: object, inner: int) -> tuple[int, int]:
    """The small grid's box shape: ``"RxC"`` with R * C = N, default the most square."""
    if text is None:
        r = int(inner**0.5)
        while r > 1 and inner % r:
            r -= 1
        return (max(r, 1), inner // max(r, 1))
    if not isinstance(text, str) or "x" not in text.lower():
        raise RulesError(f"a doppelganger's box is written 'RxC', not {text!r}")
    rows, _, cols = text.lower().partition("x")
    if not (rows.isdigit() and cols.isdigit()):
        raise RulesError(f"a doppelganger's box is written 'RxC', not {text!r}")
    shape = (int(rows), int(cols))
    if shape[0] < 1 or shape[1] < 1 or shape[0] * shape[1] != inner:
        raise RulesError(
            f"{text} boxes do not tile the doppelganger's {inner}x{inner} grid "
            f"(the {inner + 1}x{inner + 1} grid it is written on less its last row and column)"
        )
    return shape


@kind
@dataclass(frozen=True, slots=True)
class Doppelganger(Constraint):
    """ISS's doppelganger on the grid one larger (see the module's notes).

    JSON ``{"kind": "doppelganger"}`` on a grid of side n = N + 1 with ``"box":
    "1xn"``; ``"box": "RxC"`` in the rule gives the N x N grid's boxes (default the
    most square; ``"1xN"`` is none, the default when N is prime, as ISS reads a grid
    with no boxes: the rule then speaks of rows and columns only). Digit k is the
    value k + 1 (the 0 is 1).

    ``"box_whispers": [{"boxes": [2, 5, 4, 2], "value": 4}]`` draws whispers on the
    boxes' missing digits (ISS's ``Whisper~4~DGB2~DGB5~DGB4~DGB2``; boxes numbered 1..N
    row by row, a loop repeats its first box, ``value`` the least difference, by
    default the whisper's on the big grid). The rows' and columns' missing digits are
    cells (the last column and row), so a whisper on them is a plain ``whisper``.

    It compiles to: the corner holds the 0; each small box's cells differ (a box then
    holds the 0 and misses one digit, a different one in each box: there are N zeros,
    one per row, and each digit is missed by exactly one row, so appears N - 1 times
    in N boxes); and one automaton per row and per column for "at each 0 the three
    missing digits differ". A row's reads the row's missing digit, then each cell of
    the row with the missing digit of its column (the column's must differ where the
    row holds its 0), then the rest of the band box by box (the row's missing digit
    must be in the 0's box, so that box does not miss it). A column's reads its
    missing digit, its cells, then the rest of its stack the same way.
    """

    kind: ClassVar[str] = "doppelganger"
    meaning: ClassVar[str] = (
        "an N x N grid of 0..N (k held as k + 1) on the grid one larger: each unit holds "
        "0 and all but one digit, written in the last row and column; at each 0 the "
        "row's, column's and box's missing digits differ"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "doppelganger"}
    family: ClassVar[str] = "cells"
    binds: ClassVar[bool] = True
    size: int
    cells: tuple[int, ...]
    box: tuple[int, int]
    box_whispers: tuple[BoxWhisper, ...] = ()

    @property
    def inner(self) -> int:
        """N, the side of the doppelganger's own grid."""
        return self.size - 1

    @property
    def has_boxes(self) -> bool:
        """False for a prime N (boxes 1 x N: no boxes, as ISS reads such a grid)."""
        return 1 not in self.box or self.inner == 1

    def spec(self) -> dict[str, Any]:
        """``{"kind": "doppelganger"}``, with ``"box"`` unless the default."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.box != _box_shape(None, self.inner):
            out["box"] = f"{self.box[0]}x{self.box[1]}"
        if self.box_whispers:
            out["box_whispers"] = [
                {"boxes": [b + 1 for b in boxes], "value": value}
                for boxes, value in self.box_whispers
            ]
        return out

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Doppelganger:
        """The rule on a grid of side ``size`` (N = size - 1, at least 2)."""
        only_keys(spec, cls.kind, "box", "box_whispers")
        if size < 3:
            raise RulesError(
                "the doppelganger rule is written on a grid of side N + 1 for N of 2 or more"
            )
        rule = cls(size, tuple(range(size * size)), _box_shape(spec.get("box"), size - 1))
        if "box_whispers" not in spec:
            return rule
        count = len(rule.boxes())
        if not count:
            raise RulesError("a doppelganger's box whispers need boxes (this grid has none)")
        whispers = []
        for line in as_list(spec["box_whispers"], "a doppelganger's box_whispers"):
            if not isinstance(line, Mapping):
                raise RulesError(
                    f'a doppelganger\'s box whisper is {{"boxes": [...], "value": k}}, not {line!r}'
                )
            only_keys(line, "box whisper", "boxes", "value")
            if "boxes" not in line:
                raise RulesError('a doppelganger\'s box whisper needs "boxes": [...]')
            boxes = numbers(line.get("boxes"), "a box whisper's box", 1, count)
            if len(boxes) < 2 or any(a == b for a, b in pairwise(boxes)):
                raise RulesError(
                    f"a box whisper runs through two boxes or more, never twice the same "
                    f"box in a row: {boxes}"
                )
            value = whole(line.get("value", (size + 1) // 2), "a box whisper's value", 1, size - 2)
            whispers.append((tuple(b - 1 for b in boxes), value))
        return cls(rule.size, rule.cells, rule.box, tuple(whispers))

    def bind(self, rules: Rules) -> Constraint:
        """Check the big grid has no boxes of its own (``"box": "1xn"``)."""
        n = self.size
        if rules.box != (1, n) or rules.regions:
            raise RulesError(
                f"the doppelganger rule is written on a {n}x{n} grid with no boxes of its own "
                f'("box": "1x{n}"): its {n - 1}x{n - 1} grid\'s boxes are the rule\'s'
            )
        return self

    def where(self, n: int) -> str:
        """The rule's name: it speaks of the whole grid."""
        return f"the {self.kind} rule"

    def boxes(self) -> list[tuple[int, ...]]:
        """The small grid's boxes (cells of the big grid), row by row; none for a prime N."""
        if not self.has_boxes:
            return []
        n, inner = self.size, self.inner
        br, bc = self.box
        return [
            tuple((r0 + r) * n + c0 + c for r in range(br) for c in range(bc))
            for r0 in range(0, inner, br)
            for c0 in range(0, inner, bc)
        ]

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The rule as ISS states it, on the small grid and its written missing digits."""
        inner, zero = n - 1, 0
        values = [v - 1 for v in values[: n * n]]  # the digits as written: value k + 1 is k
        corner = inner * n + inner
        if values[corner] != zero:
            return f"{cell_name(corner, n)} holds {values[corner]}, not the 0: {self.kind}"
        digits = set(range(1, inner + 1))
        units: dict[str, list[tuple[int, ...]]] = {
            "row": [tuple(r * n + c for c in range(inner)) for r in range(inner)],
            "column": [tuple(r * n + c for r in range(inner)) for c in range(inner)],
            "box": self.boxes(),
        }
        missing: dict[str, list[int]] = {}
        for name, groups in units.items():
            missing[name] = []
            for k, cells in enumerate(groups, 1):
                held = [values[i] for i in cells]
                gone = digits - set(held)
                if len(set(held)) != len(held) or zero not in held or len(gone) != 1:
                    return f"{name} {k} does not hold 0 and all but one of 1..{inner}: {self.kind}"
                missing[name].append(gone.pop())
            if len(set(missing[name])) != len(missing[name]):
                return f"two {name}s miss the same digit: {self.kind}"
        for r in range(inner):
            if values[r * n + inner] != missing["row"][r]:
                return f"{cell_name(r * n + inner, n)} is not the digit row {r + 1} misses"
        for c in range(inner):
            if values[inner * n + c] != missing["column"][c]:
                return f"{cell_name(inner * n + c, n)} is not the digit column {c + 1} misses"
        box_of = {i: b for b, cells in enumerate(units["box"]) for i in cells}
        for r in range(inner):
            for c in range(inner):
                i = r * n + c
                if values[i] != zero:
                    continue
                three = [missing["row"][r], missing["column"][c]]
                if i in box_of:
                    three.append(missing["box"][box_of[i]])
                if len(set(three)) != len(three):
                    return (
                        f"at the 0 in {cell_name(i, n)} its row, column and box miss "
                        f"{', '.join(map(str, three))}: {self.kind}"
                    )
        for boxes, value in self.box_whispers:
            for a, b in pairwise(boxes):
                ma, mb = missing["box"][a], missing["box"][b]
                if abs(ma - mb) < value:
                    return (
                        f"boxes {a + 1} and {b + 1} miss {ma} and {mb}, closer than "
                        f"{value}: the {self.kind}'s box whisper"
                    )
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The corner, the small boxes and an automaton per row and per column."""
        inner = n - 1
        out: list[Primitive] = [Allowed((inner * n + inner,), (bit(ZERO),))]
        boxes = self.boxes()
        out += [Distinct(cells) for cells in boxes]
        br, bc = self.box
        for r in range(inner):
            pairs = [(r * n + c, inner * n + c) for c in range(inner)]
            blocks = (
                [
                    tuple(i for i in cells if i // n != r)
                    for cells in boxes
                    if any(i // n == r for i in cells)
                ]
                if boxes
                else []
            )
            out.append(_missing_automaton(r * n + inner, pairs, blocks, bc, n))
        if boxes:
            for c in range(inner):
                lone = [(r * n + c, None) for r in range(inner)]
                blocks = [
                    tuple(i for i in cells if i % n != c)
                    for cells in boxes
                    if any(i % n == c for i in cells)
                ]
                out.append(_missing_automaton(inner * n + c, lone, blocks, br, n))
        out += self._box_whisper_sums(boxes, n)
        return tuple(out)

    def _box_whisper_sums(self, boxes: list[tuple[int, ...]], n: int) -> list[Primitive]:
        """Each step of a box whisper as a sum over the two boxes' cells.

        A box's cells differ and hold all but one of the values 1..n, so the value it
        misses is 1 + ... + n less their sum, and two boxes' missing values differ by
        the difference of their sums the other way round: ``m_a - m_b = sum(b) -
        sum(a)``, which must be at least ``value`` either way (at most N - 1, two
        digits of 1..N). The boxes' missing digits need no cells of their own.
        """
        out: list[Primitive] = []
        for line, value in self.box_whispers:
            targets = tuple(t for t in range(2 - n, n - 1) if abs(t) >= value)
            for a, b in sorted({tuple(sorted(step)) for step in pairwise(line)}):
                terms = tuple((i, 1) for i in boxes[b]) + tuple((i, -1) for i in boxes[a])
                out.append(Sum(terms, targets))
        return out

    def draw(self, drawing: Drawing) -> None:
        """The missing digits' row and column shaded, the small grid's boxes outlined."""
        n = drawing.n
        inner = n - 1
        margin = tuple(r * n + inner for r in range(n)) + tuple(inner * n + c for c in range(inner))
        drawing.shade(tuple(sorted(margin)), self.kind, colour="#dcdcf0")
        for cells in self.boxes():
            drawing.cage(cells, self.kind)


def _missing_automaton(
    head: int,
    line: Sequence[tuple[int, int | None]],
    blocks: Sequence[tuple[int, ...]],
    span: int,
    n: int,
) -> Primitive:
    """One row's (column's) part of "at each 0 the missing digits differ".

    Reads ``head`` (the line's missing digit m), then each cell of the line, each
    followed by its crossing line's missing digit when ``line`` pairs one (rows do:
    where the row holds its 0 that digit must differ from m), then ``blocks``: the
    other cells of the boxes the line passes, box by box (``span`` cells of the line
    per box). The box that holds the line's 0 must hold m somewhere.
    """
    paired = line[0][1] is not None
    cells = [head]
    for cell, crossing in line:
        cells.append(cell)
        if crossing is not None:
            cells.append(crossing)
    for block in blocks:
        cells.extend(block)
    machine = _missing_machine(paired, len(line), tuple(len(b) for b in blocks), span, n)
    return Automaton(tuple(cells), machine.transitions, machine.accepting)


@lru_cache(maxsize=64)
def _missing_machine(
    paired: bool, length: int, block_sizes: tuple[int, ...], span: int, n: int
) -> Automaton:
    """:func:`_missing_automaton`'s machine, which depends on the line's shape alone.

    Every row of a grid has the same shape (as has every column), so the machine is
    built once for them all: a 7x7 doppelganger's rules compiled in a sixth of the
    time, which was most of a puzzle's time on the compiled engine.
    """
    zero = ZERO
    body = 1 + length * (2 if paired else 1)
    block_ends: list[int] = []
    for size in block_sizes:
        block_ends.append((block_ends[-1] if block_ends else body) + size)
    total = block_ends[-1] if block_ends else body
    step_of = 2 if paired else 1

    def step(state: Hashable, d: int) -> Hashable | None:
        pos, m, box, check, found = cast(_State, state)
        if pos == 0:
            return None if d == zero else (1, d, None, False, False)
        if pos < body:
            k = pos - 1
            if paired and k % 2 == 1:  # a crossing line's missing digit
                if check and d == m:
                    return None
                return (pos + 1, m, box, False, False)
            if d == zero:
                box = (k // step_of) // span
                check = paired
            return (pos + 1, m, box, check, False)
        if m is None:  # settled
            return (pos + 1, None, None, False, False)
        b = next(j for j, end in enumerate(block_ends) if pos < end)
        found = found or (b == box and d == m)
        if pos + 1 == block_ends[b] and b == box:
            return (pos + 1, None, None, False, False) if found else None
        return (pos + 1, m, box, False, found)

    def accept(state: Hashable) -> bool:
        pos, m, box, _check, _found = cast(_State, state)
        return pos == total and (m is None or box is None or not block_sizes)

    start = (0, None, None, False, False)
    return automaton(range(total), n, start, step, accept)  # type: ignore[no-any-return]
