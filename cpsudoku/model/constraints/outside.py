"""Clues outside the grid that read a row or column in order: sandwiches and kin.

Which cells such a clue sums or counts depends on where digits stand, so each one
compiles to an :class:`~cpsudoku.model.primitives.Automaton` reading its line.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    kind,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.constraints.fpuzzles_io import Reading, Writing, reads, writes
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Automaton, Primitive, automaton


@lru_cache(maxsize=4096)
def sandwich_sets(n: int, k: int, total: int) -> tuple[tuple[int, ...], ...]:
    """The sets of ``k`` different digits of 2..n-1 adding up to ``total``.

    Between the 1 and the n of a row stand ``k`` cells of that row: different digits,
    neither 1 nor n.
    """
    return tuple(c for c in combinations(range(2, n), k) if sum(c) == total)


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
        n = self.size
        if self.line == "row":
            return tuple(self.index * n + c for c in range(n))
        return tuple(r * n + self.index for r in range(n))

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
        """The clue outside its line, on the side it reads from."""
        n = drawing.n
        far = bool(getattr(self, "reverse", False))
        edge = n if far else -1
        if self.line == "row":
            drawing.outside(self.index, edge, self.kind, self.clue_text())
        else:
            drawing.outside(edge, self.index, self.kind, self.clue_text())


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


@lru_cache(maxsize=1024)
def _sandwich(cells: tuple[int, ...], n: int, total: int) -> Automaton:
    """The sandwich automaton of a line (shared by every line of that side and clue).

    States: ``("before",)``; ``("between", s, closer)``, the digits since the first
    end adding up to ``s`` and ``closer`` the end still to come; ``("after",)``.
    """

    def step(state: Any, d: int) -> Hashable | None:
        phase = state[0]
        if phase == "before":
            if d in (1, n):
                return ("between", 0, n + 1 - d)
            return state
        if phase == "between":
            s: int = state[1]
            closer: int = state[2]
            if d == closer:
                return ("after",) if s == total else None
            if d in (1, n) or s + d > total:
                return None
            return ("between", s + d, closer)
        return None if d in (1, n) else state

    return automaton(cells, n, ("before",), step, lambda state: state[0] == "after")  # type: ignore[index,no-any-return]


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
