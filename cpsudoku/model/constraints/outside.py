"""Clues outside the grid that read a row or column in order: sandwiches and kin.

Which cells such a clue sums or counts depends on where digits stand, so each one
compiles to an :class:`~cpsudoku.model.primitives.Automaton` reading its line: a
sandwich, an X-sum, a skyscraper, a hidden skyscraper, a numbered room, and the
lunchbox (a sandwich between the smallest and the largest digit of any listed cells).

Every clue but the sandwich reads its line from the clue's side: from the left of a
row or the top of a column, or with ``"reverse": true`` from the right or the bottom
(f-puzzles: a clue in column n + 1 or row n + 1). The automata count on the line's
digits being different (a row or column is a unit; a lunchbox's cells are made to
differ): their states need not say which digits were seen, and they reject a repeat
wherever that keeps them small.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    cell_name,
    cells_of,
    kind,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Automaton, Distinct, Primitive, automaton, per_length


@lru_cache(maxsize=4096)
def sandwich_sets(n: int, k: int, total: int) -> tuple[tuple[int, ...], ...]:
    """The sets of ``k`` different digits of 2..n-1 adding up to ``total``.

    Between the 1 and the n of a row stand ``k`` cells of that row: different digits,
    neither 1 nor n.
    """
    return tuple(c for c in combinations(range(2, n), k) if sum(c) == total)


@lru_cache(maxsize=1024)
def line_cells(n: int, line: str, index: int) -> tuple[int, ...]:
    """The cells of row (or column) ``index`` (0-based), left to right or top down.

    Remembered: a clue's cells are asked for by its compiling, checking and drawing,
    and were a third of a skyscraper puzzle's time on the compiled engine.
    """
    if line == "row":
        return tuple(index * n + c for c in range(n))
    return tuple(r * n + index for r in range(n))


class LineClue(Constraint):
    """Base of the clues on one row or column: ``{"row": 3}`` or ``{"column": 5}``.

    Some clues read their line from its far end (``"reverse": true``): the clue
    stands below a column or right of a row.
    """

    family: ClassVar[str] = "outside clues"
    size: int
    line: str  # "row" or "column"
    index: int  # 0-based

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The row's (or column's) cells, in reading order."""
        return line_cells(self.size, self.line, self.index)

    @classmethod
    def line_of(cls, spec: Mapping[str, Any], size: int) -> tuple[str, int]:
        """``("row" | "column", 0-based index)`` from a spec naming exactly one."""
        lines = [key for key in ("row", "column") if key in spec]
        if len(lines) != 1:
            raise RulesError(f'a {cls.kind} names one "row" or one "column"')
        line = lines[0]
        number = whole(spec[line], f"a {cls.kind}'s {line}", 1, size)
        return line, number - 1

    def where(self, n: int) -> str:
        """``the sandwich of row 3``."""
        return f"the {self.kind} of {self.line} {self.index + 1}"

    def clue_text(self) -> str:
        """What the clue outside the grid reads."""
        spec = self.spec()
        return str(spec.get("sum", spec.get("count", spec.get("value", ""))))

    def draw(self, drawing: Drawing) -> None:
        """The clue's number outside its line, on the side it reads from."""
        n = drawing.n
        far = bool(getattr(self, "reverse", False))
        edge = n if far else -1
        spec = self.spec()
        text = str(spec.get("digit", self.clue_text()))
        if self.line == "row":
            drawing.outside(self.index, edge, self.kind, text, cells=self.cells)
        else:
            drawing.outside(edge, self.index, self.kind, text, cells=self.cells)


@kind
@dataclass(frozen=True, slots=True)
class Sandwich(LineClue):
    """A sandwich clue: the digits between the 1 and the n of its line add up to ``total``.

    JSON: ``{"kind": "sandwich", "row": 3, "sum": 10}`` or ``{"kind": "sandwich",
    "column": 5, "sum": 0}`` (1-based; a sum of 0: the 1 and the n are neighbours).
    """

    kind: ClassVar[str] = "sandwich"
    meaning: ClassVar[str] = "the digits between the 1 and the n of a row or column add up"
    example: ClassVar[dict[str, Any]] = {"kind": "sandwich", "row": 3, "sum": 10}
    fpuzzles_key: ClassVar[str] = "sandwichsum"
    size: int
    line: str
    index: int
    total: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "sandwich", "row" | "column": k (1-based), "sum": ...}``."""
        return {"kind": self.kind, self.line: self.index + 1, "sum": self.total}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Sandwich:
        """One of ``row`` or ``column`` (1..n) and a sum some digits between can make."""
        only_keys(spec, cls.kind, "row", "column", "sum")
        line, index = cls.line_of(spec, size)
        total = whole(spec.get("sum"), "a sandwich's sum")
        if not any(sandwich_sets(size, k, total) for k in range(size - 1)):
            raise RulesError(
                f"sandwich in {line} {index + 1}: no digits between 1 and {size} add up to {total}"
            )
        return cls(size, line, index, total)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The sum between the 1 and the n, when it is not the clue."""
        line = [values[i] for i in self.cells]
        where = self.where(n)
        if 1 not in line or n not in line:
            return f"{where}: no 1 and {n} in the {self.line}"
        a, b = sorted((line.index(1), line.index(n)))
        got = sum(line[a + 1 : b])
        if got != self.total:
            return f"{where} holds {got} between 1 and {n}, not {self.total}"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Once the 1 and the n stand, the cells between can still make the sum."""
        line = [values[i] for i in self.cells]
        if 1 not in line or n not in line:
            return True
        a, b = sorted((line.index(1), line.index(n)))
        between = line[a + 1 : b]
        placed = [v for v in between if v]
        free = sorted(set(range(2, n)) - set(placed))
        left = len(between) - len(placed)
        need = self.total - sum(placed)
        if left > len(free):
            return False
        return sum(free[:left]) <= need <= sum(free[len(free) - left :])

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """An automaton: before the first end, between the ends (summing), after."""
        return (_sandwich(self.cells, n, self.total),)


def _sandwich(cells: tuple[int, ...], n: int, total: int) -> Automaton:
    """The sandwich automaton of a line: :func:`_sandwich_machine` on its cells."""
    machine = _sandwich_machine(n, len(cells), total)
    return Automaton(cells, machine.transitions, machine.accepting)


@lru_cache(maxsize=256)
def _sandwich_machine(n: int, length: int, total: int) -> Automaton:
    """The sandwich automaton of a line of ``length`` cells (shared by every such line).

    States: ``("before",)``; ``("between", s, c, closer)``, the ``c`` digits since
    the first end adding up to ``s`` and ``closer`` the end still to come;
    ``("after",)``. A state is kept only where ``c`` different digits of 2..n-1 can
    add up to ``s`` (the line's digits differ): the sum alone let the automaton fill
    the gap with repeats (eight 2s between for a 16), so it could not tell how far
    apart the 1 and the n may stand. Keeping the set of digits instead of their count
    narrows a little more but costs ``sat`` more than it saves (docs/design.md).
    """

    def least(c: int) -> int:  # c different digits of 2..n-1 add up to at least this
        return c * (c + 3) // 2

    def most(c: int) -> int:  # ... and at most this
        return sum(range(n - c, n))

    def step(state: Any, d: int) -> Hashable | None:
        phase = state[0]
        if phase == "before":
            if d in (1, n):
                return ("between", 0, 0, n + 1 - d)
            return state
        if phase == "between":
            s: int = state[1]
            c: int = state[2]
            closer: int = state[3]
            if d == closer:
                return ("after",) if s == total else None
            s, c = s + d, c + 1
            if d in (1, n) or s > total or c > n - 2 or s < least(c) or s > most(c):
                return None
            return ("between", s, c, closer)
        return None if d in (1, n) else state

    return automaton(range(length), n, ("before",), step, lambda state: state[0] == "after")  # type: ignore[index,no-any-return]


# ------------------------------------------------------------ clues read from one side


class SideClue(LineClue):
    """Base of the clues read from their side of the line, first cell nearest the clue.

    JSON: ``{"row": 3}`` reads row 3 from the left, ``{"column": 5}`` column 5 from
    the top; ``"reverse": true`` reads from the right or from the bottom (the clue
    stands there).
    """

    reverse: bool

    @property
    def cells(self) -> tuple[int, ...]:  # type: ignore[override]
        """The line's cells, the one nearest the clue first."""
        cells = line_cells(self.size, self.line, self.index)
        return cells[::-1] if self.reverse else cells

    @classmethod
    def side_of(cls, spec: Mapping[str, Any]) -> bool:
        """The spec's ``reverse`` (False when absent)."""
        reverse = spec.get("reverse", False)
        if not isinstance(reverse, bool):
            raise RulesError(f'a {cls.kind}\'s "reverse" is true or false, not {reverse!r}')
        return reverse

    def head(self) -> dict[str, Any]:
        """The spec's kind, line and side: ``{"kind": ..., "row": 3, "reverse": true}``."""
        out: dict[str, Any] = {"kind": self.kind, self.line: self.index + 1}
        if self.reverse:
            out["reverse"] = True
        return out

    def where(self, n: int) -> str:
        """``the x-sum of row 3 from the right``."""
        side = ""
        if self.reverse:
            side = " from the right" if self.line == "row" else " from below"
        return f"the {self.kind} of {self.line} {self.index + 1}{side}"


@lru_cache(maxsize=64)
def xsum_totals(n: int) -> frozenset[int]:
    """The clues an X-sum can have on a side of ``n``: X plus X - 1 other digits."""
    out: set[int] = set()
    for x in range(1, n + 1):
        reach: list[set[int]] = [{0}] + [set() for _ in range(x - 1)]  # k digits -> sums
        for d in range(1, n + 1):
            if d != x:
                for k in range(x - 1, 0, -1):
                    reach[k] |= {s + d for s in reach[k - 1]}
        out |= {x + s for s in reach[x - 1]}
    return frozenset(out)


@kind
@dataclass(frozen=True, slots=True)
class XSum(SideClue):
    """An X-sum: the first X cells from the clue add up to ``total``, X the first's digit.

    The first cell counts among the X. JSON: ``{"kind": "x-sum", "row": 3, "sum":
    25}``; ``"reverse": true`` for a clue right of the row or below the column.
    """

    kind: ClassVar[str] = "x-sum"
    meaning: ClassVar[str] = (
        "the first X cells from the clue add up to it, X the digit in the first"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "x-sum", "row": 3, "reverse": True, "sum": 25}
    fpuzzles_key: ClassVar[str] = "xsum"
    size: int
    line: str
    index: int
    reverse: bool
    total: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "x-sum", "row" | "column": k, "reverse"?: true, "sum": ...}``."""
        return {**self.head(), "sum": self.total}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> XSum:
        """A line, a side and a sum some X first digits can make."""
        only_keys(spec, cls.kind, "row", "column", "reverse", "sum")
        line, index = cls.line_of(spec, size)
        reverse = cls.side_of(spec)
        total = whole(spec.get("sum"), "an x-sum's sum")
        if total not in xsum_totals(size):
            raise RulesError(f"x-sum in {line} {index + 1}: no first digits make {total}")
        return cls(size, line, index, reverse, total)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The sum of the first X cells, when it is not the clue."""
        line = [values[i] for i in self.cells]
        x = line[0]
        got = sum(line[:x])
        if got != self.total:
            return f"{self.where(n)}: its first {x} cells add up to {got}, not {self.total}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """An automaton: the first digit, then the cells and sum still to come."""
        return (_xsum(self.cells, n, self.total),)


def _least(k: int) -> int:
    """The least sum of ``k`` different digits."""
    return k * (k + 1) // 2


def _most(k: int, n: int) -> int:
    """The largest sum of ``k`` different digits of 1..n."""
    return k * (2 * n - k + 1) // 2


@per_length
def _xsum(cells: tuple[int, ...], n: int, total: int) -> Automaton:
    """The X-sum automaton: ``("sum", k, s)``, k cells still to add up to s; ``("done",)``.

    A state whose k cells cannot make s with different digits is dropped.
    """

    def counting(k: int, s: int) -> Hashable | None:
        if k == 0:
            return ("done",) if s == 0 else None
        return ("sum", k, s) if _least(k) <= s <= _most(k, n) else None

    def step(state: Any, d: int) -> Hashable | None:
        if state[0] == "first":
            return counting(d - 1, total - d)
        if state[0] == "sum":
            return counting(state[1] - 1, state[2] - d)
        return state

    return automaton(cells, n, ("first",), step, lambda state: state[0] == "done")  # type: ignore[index,no-any-return]


@kind
@dataclass(frozen=True, slots=True)
class Skyscraper(SideClue):
    """A skyscraper clue: ``count`` cells are seen from it, each higher than all before.

    JSON: ``{"kind": "skyscraper", "column": 2, "count": 3}``; ``"reverse": true``
    for a clue right of the row or below the column.
    """

    kind: ClassVar[str] = "skyscraper"
    meaning: ClassVar[str] = (
        "as many cells are seen from the clue as it says (each higher than all before it)"
    )
    example: ClassVar[dict[str, Any]] = {"kind": "skyscraper", "column": 2, "count": 3}
    fpuzzles_key: ClassVar[str] = "skyscraper"
    size: int
    line: str
    index: int
    reverse: bool
    count: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "skyscraper", "row" | "column": k, "reverse"?: true, "count": ...}``."""
        return {**self.head(), "count": self.count}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Skyscraper:
        """A line, a side and a count of 1..n."""
        only_keys(spec, cls.kind, "row", "column", "reverse", "count")
        line, index = cls.line_of(spec, size)
        reverse = cls.side_of(spec)
        count = whole(spec.get("count"), "a skyscraper's count", 1, size)
        return cls(size, line, index, reverse, count)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """How many cells are seen, when it is not the clue."""
        seen = top = 0
        for i in self.cells:
            if values[i] > top:
                seen += 1
                top = values[i]
        if seen != self.count:
            return f"{self.where(n)} sees {seen} cells, not {self.count}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """An automaton: the highest digit so far and how many were seen."""
        return (_skyscraper(self.cells, n, self.count),)


@per_length
def _skyscraper(cells: tuple[int, ...], n: int, count: int) -> Automaton:
    """The skyscraper automaton: ``(top, seen)``.

    A state that has seen too many, or that cannot see enough more above its top,
    is dropped; the line ends seeing ``count`` with n seen (a line holds every digit).
    """

    def step(state: Any, d: int) -> Hashable | None:
        top, seen = state
        if d < top:
            return state
        if d == top:
            return None
        seen += 1
        if seen > count or count - seen > n - d:
            return None
        return (d, seen)

    return automaton(cells, n, (0, 0), step, lambda state: state == (n, count))


@kind
@dataclass(frozen=True, slots=True)
class HiddenSkyscraper(SideClue):
    """A hidden skyscraper: the first cell from the clue lower than one before it holds ``digit``.

    Seen from the clue, a cell hides behind a higher one before it; the clue names the
    first such cell's digit. JSON: ``{"kind": "hidden-skyscraper", "row": 1, "digit":
    4}``; ``"reverse": true`` for a clue right of the row or below the column.
    """

    kind: ClassVar[str] = "hidden-skyscraper"
    meaning: ClassVar[str] = "the first cell from the clue hidden by a higher one holds its digit"
    example: ClassVar[dict[str, Any]] = {"kind": "hidden-skyscraper", "row": 1, "digit": 4}
    size: int
    line: str
    index: int
    reverse: bool
    digit: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "hidden-skyscraper", "row" | "column": k, "reverse"?: true, "digit": d}``."""
        return {**self.head(), "digit": self.digit}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> HiddenSkyscraper:
        """A line, a side and a digit of 1..n-1 (n is never hidden)."""
        only_keys(spec, cls.kind, "row", "column", "reverse", "digit")
        line, index = cls.line_of(spec, size)
        reverse = cls.side_of(spec)
        digit = whole(spec.get("digit"), "a hidden skyscraper's digit", 1, size - 1)
        return cls(size, line, index, reverse, digit)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first hidden cell's digit, when it is not the clue."""
        top = 0
        for i in self.cells:
            if values[i] < top:
                if values[i] != self.digit:
                    where = self.where(n)
                    return f"{where}: the first hidden digit is {values[i]}, not {self.digit}"
                return None
            top = values[i]
        return f"{self.where(n)}: no cell is hidden"

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """An automaton: the highest digit so far, until the first hidden cell."""
        return (_hidden_skyscraper(self.cells, n, self.digit),)


@per_length
def _hidden_skyscraper(cells: tuple[int, ...], n: int, digit: int) -> Automaton:
    """The hidden skyscraper automaton: the top so far, then ``"found"``.

    The digit seen (higher than all before it) is never hidden afterwards: rejected.
    """

    def step(state: Any, d: int) -> Hashable | None:
        if state == "found":
            return state
        if d < state:
            return "found" if d == digit else None
        if d in (state, digit):
            return None
        return d

    return automaton(cells, n, 0, step, lambda state: state == "found")


@kind
@dataclass(frozen=True, slots=True)
class NumberedRoom(SideClue):
    """A numbered room: the X-th cell from the clue holds ``digit``, X the first cell's digit.

    JSON: ``{"kind": "numbered-room", "row": 2, "digit": 7}``; ``"reverse": true``
    for a clue right of the row or below the column.
    """

    kind: ClassVar[str] = "numbered-room"
    meaning: ClassVar[str] = "the X-th cell from the clue holds its digit, X the digit in the first"
    example: ClassVar[dict[str, Any]] = {"kind": "numbered-room", "row": 2, "digit": 7}
    size: int
    line: str
    index: int
    reverse: bool
    digit: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "numbered-room", "row" | "column": k, "reverse"?: true, "digit": d}``."""
        return {**self.head(), "digit": self.digit}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> NumberedRoom:
        """A line, a side and a digit of 1..n."""
        only_keys(spec, cls.kind, "row", "column", "reverse", "digit")
        line, index = cls.line_of(spec, size)
        reverse = cls.side_of(spec)
        digit = whole(spec.get("digit"), "a numbered room's digit", 1, size)
        return cls(size, line, index, reverse, digit)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The X-th cell's digit, when it is not the clue."""
        line = [values[i] for i in self.cells]
        x = line[0]
        if line[x - 1] != self.digit:
            return f"{self.where(n)}: cell {x} from the clue holds {line[x - 1]}, not {self.digit}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """An automaton: the first digit, then the cells still to go to the X-th."""
        return (_numbered_room(self.cells, n, self.digit),)


@per_length
def _numbered_room(cells: tuple[int, ...], n: int, digit: int) -> Automaton:
    """The numbered room automaton: ``("first",)``, ``("ahead", k)``, ``("found",)``.

    ``("ahead", k)``: the X-th cell is k cells on. The digit anywhere before the X-th
    cell is rejected (it stands there).
    """

    def step(state: Any, d: int) -> Hashable | None:
        if state[0] == "found":
            return state
        if state[0] == "first":
            if d == 1:
                return ("found",) if digit == 1 else None
            return None if d == digit else ("ahead", d - 1)
        if state[1] == 1:
            return ("found",) if d == digit else None
        return None if d == digit else ("ahead", state[1] - 1)

    return automaton(cells, n, ("first",), step, lambda state: state[0] == "found")  # type: ignore[index,no-any-return]


# ------------------------------------------------------------------------- lunchbox


@kind
@dataclass(frozen=True, slots=True)
class Lunchbox(Constraint):
    """A lunchbox: different digits; those between the smallest and the largest add up.

    The cells are read in the order listed (a row's segment, left to right, as a rule);
    the digits lying between the cells of the smallest and of the largest digit add up
    to ``total`` (0: those two are neighbours). On n cells it is a sandwich (the
    smallest is 1, the largest n). JSON: ``{"kind": "lunchbox", "cells": ["r1c1",
    "r1c2", "r1c3", "r1c4"], "sum": 5}``.
    """

    kind: ClassVar[str] = "lunchbox"
    meaning: ClassVar[str] = (
        "different digits; those standing between the smallest and the largest add up to its sum"
    )
    example: ClassVar[dict[str, Any]] = {
        "kind": "lunchbox",
        "cells": ["r1c1", "r1c2", "r1c3", "r1c4"],
        "sum": 5,
    }
    family: ClassVar[str] = "lines"
    cells: tuple[int, ...]
    total: int

    def spec(self) -> dict[str, Any]:
        """``{"kind": "lunchbox", "cells": [...], "sum": ...}``."""
        return {"kind": self.kind, "cells": list(self.cells), "sum": self.total}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Lunchbox:
        """2..n different cells and a sum some digits between can make."""
        only_keys(spec, cls.kind, "cells", "sum")
        cells = cells_of(spec.get("cells"), size, "a lunchbox's cells", least=2)
        if len(cells) > size:
            raise RulesError(
                f"the lunchbox at {cell_name(cells[0], size)}: {len(cells)} cells cannot "
                f"hold different digits of 1..{size}"
            )
        total = whole(spec.get("sum"), "a lunchbox's sum", 0)
        if not any(sandwich_sets(size, k, total) for k in range(len(cells) - 1)):
            raise RulesError(
                f"the lunchbox at {cell_name(cells[0], size)}: no digits between its "
                f"smallest and largest add up to {total}"
            )
        return cls(cells, total)

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """A repeated digit, or the sum between the smallest and the largest."""
        line = [values[i] for i in self.cells]
        where = self.where(n)
        if len(set(line)) != len(line):
            return f"{where} repeats a digit"
        a, b = sorted((line.index(min(line)), line.index(max(line))))
        got = sum(line[a + 1 : b])
        if got != self.total:
            return f"{where} holds {got} between {min(line)} and {max(line)}, not {self.total}"
        return None

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The cells differ, and an automaton reads them (a sandwich's on n cells)."""
        if len(self.cells) == n:
            return (Distinct(self.cells), _sandwich(self.cells, n, self.total))
        return (Distinct(self.cells), _lunchbox(self.cells, n, self.total))

    def draw(self, drawing: Drawing) -> None:
        """A box around the cells, its sum outside the grid when it starts at an edge.

        A straight run starting at the grid's edge has its clue just outside, before
        its first cell; any other lunchbox has it in its first cell's corner.
        """
        n = drawing.n
        drawing.circle(self.cells, self.kind, fill="none", stroke="#606060")
        r, c = divmod(self.cells[0], n)
        if len(self.cells) > 1:
            dr, dc = self.cells[1] // n - r, self.cells[1] % n - c
            straight = all(
                (b // n - a // n, b % n - a % n) == (dr, dc)
                for a, b in zip(self.cells, self.cells[1:], strict=False)
            )
            outside = (r - dr, c - dc)
            if (
                straight
                and abs(dr) + abs(dc) == 1
                and not (0 <= outside[0] < n and 0 <= outside[1] < n)
            ):
                drawing.outside(*outside, self.kind, str(self.total), cells=self.cells)
                return
        drawing.text(self.cells[0], self.kind, str(self.total))


@per_length
def _lunchbox(cells: tuple[int, ...], n: int, total: int) -> Automaton:
    """The lunchbox automaton: the extremes so far, which came last, and two sums.

    States: ``("empty",)``, ``("one", d)``, then ``("two", lo, hi, hi_last, between,
    after)``: ``lo`` and ``hi`` the smallest and largest digit so far, ``hi_last``
    whether ``hi`` stands after ``lo``, ``between`` the sum of the cells between
    them and ``after`` of the cells after the later one. A new largest digit makes
    the span run from ``lo`` to it: ``between + hi + after`` when ``hi`` was the later
    extreme, else ``after``; a new smallest likewise. Sums are capped at
    ``total + 1`` (beyond the clue they only grow or are dropped). With different
    digits every other cell lies strictly between ``lo`` and ``hi``, so the two sums
    never exceed the digits there; once the earlier extreme is 1 (or n) it stays, and
    ``between`` can only grow; once both are, it is final and ``after`` is not kept.
    """
    cap = total + 1

    def state_of(lo: int, hi: int, hi_last: bool, between: int, after: int) -> Hashable | None:
        between, after = min(between, cap), min(after, cap)
        # The digits strictly inside hold both sums (``after`` at the cap may stand for
        # "too much to matter", so it is left out of the test).
        if between + (after if after < cap else 0) > (hi - lo - 1) * (lo + hi) // 2:
            return None
        earlier_stays = lo == 1 if hi_last else hi == n
        if earlier_stays:
            if between > total:
                return None
            last = hi if hi_last else lo
            if lo == 1 and hi == n:
                if between != total:
                    return None
                after = 0  # nothing can move the span now
            elif between + last + after > total:
                after = cap  # moving the later extreme would overshoot: only "too much" matters
        return ("two", lo, hi, hi_last, between, after)

    def step(state: Any, d: int) -> Hashable | None:
        if state[0] == "empty":
            return ("one", d)
        if state[0] == "one":
            a = state[1]
            if d == a:
                return None
            return state_of(min(a, d), max(a, d), d > a, 0, 0)
        _, lo, hi, hi_last, between, after = state
        if lo < d < hi:
            return state_of(lo, hi, hi_last, between, after + d)
        if d > hi:
            return state_of(lo, d, True, between + hi + after if hi_last else after, 0)
        if d < lo:
            return state_of(d, hi, False, after if hi_last else between + lo + after, 0)
        return None  # a repeat of an extreme

    return automaton(
        cells,
        n,
        ("empty",),
        step,
        lambda state: state[0] == "two" and state[4] == total,  # type: ignore[index]
    )


# ------------------------------------------------------------------------- f-puzzles


def line_of_clue(reading: Reading, item: Mapping[str, Any], what: str) -> tuple[str, int, bool]:
    """Where an outside clue stands: ``("row" | "column", 0-based index, reversed)``.

    ``reversed`` is True for a clue right of a row or below a column (read from there).
    """
    n = reading.n
    r, c = reading.position(item.get("cell"), what, outside=True)
    if r in (0, n + 1) and 1 <= c <= n:
        return "column", c - 1, r == n + 1
    if c in (0, n + 1) and 1 <= r <= n:
        return "row", r - 1, c == n + 1
    raise RulesError(f"f-puzzles {what} is not beside a row or a column")


def clue_cell(out: Writing, line: str, index: int, far: bool) -> str:
    """The ``R0C5``-style name of a clue beside a line (``far``: right or below)."""
    n = out.n
    edge = n + 1 if far else 0
    return f"R{edge}C{index + 1}" if line == "column" else f"R{index + 1}C{edge}"


@reads("sandwichsum")
def _read_sandwiches(reading: Reading, key: str) -> list[Constraint]:
    """Sandwich clues: either side of the line reads the same (the digits between)."""
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        total = reading.clue(item.get("value"), f"sandwichsum {k}")
        if total is None:
            continue
        line, index, _ = line_of_clue(reading, item, f"sandwichsum {k}")
        out.append(
            Sandwich.from_spec({"kind": "sandwich", line: index + 1, "sum": total}, reading.n)
        )
    return out


@writes(Sandwich)
def _write_sandwich(rule: Sandwich, out: Writing) -> None:
    cell = clue_cell(out, rule.line, rule.index, far=False)
    out.add("sandwichsum", {"cell": cell, "value": str(rule.total)})


@reads("xsum", "skyscraper")
def _read_side_clues(reading: Reading, key: str) -> list[Constraint]:
    """X-sums and skyscrapers: read from the clue's side (row or column 0 or n + 1).

    A clue with no whole number for a value says nothing (f-puzzles' solvers skip it).
    """
    out: list[Constraint] = []
    for k, item in enumerate(reading.items(key)):
        value = reading.clue(item.get("value"), f"{key} {k}")
        if value is None:
            continue
        line, index, far = line_of_clue(reading, item, f"{key} {k}")
        spec: dict[str, Any] = {line: index + 1, "reverse": far}
        if key == "xsum":
            out.append(XSum.from_spec({"kind": "x-sum", **spec, "sum": value}, reading.n))
        else:
            out.append(
                Skyscraper.from_spec({"kind": "skyscraper", **spec, "count": value}, reading.n)
            )
    return out


@writes(XSum)
def _write_xsum(rule: XSum, out: Writing) -> None:
    cell = clue_cell(out, rule.line, rule.index, far=rule.reverse)
    out.add("xsum", {"cell": cell, "value": str(rule.total)})


@writes(Skyscraper)
def _write_skyscraper(rule: Skyscraper, out: Writing) -> None:
    cell = clue_cell(out, rule.line, rule.index, far=rule.reverse)
    out.add("skyscraper", {"cell": cell, "value": str(rule.count)})
