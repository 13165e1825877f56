"""How each rule reads and writes itself in f-puzzles' JSON: the registry of keys.

f-puzzles (and the userscript of the solver setters use with it) stores each rule
family under a key of the puzzle object: ``"thermometer": [{"lines": [["R1C1",
"R2C2"]]}]``. A rule family registers a reader for its keys (:func:`reads`) and a
writer for its kinds (:func:`writes`) beside its model, so the reader in
:mod:`cpsudoku.model.fpuzzles` knows no rule by name and a new rule is one module.

Cells are written ``R3C5`` (1-based); clues outside the grid (little killers,
sandwiches, X-sums, skyscrapers) use row or column 0 or n + 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cpsudoku.model.constraints.base import Constraint
from cpsudoku.model.errors import RulesError

_CELL = re.compile(r"^R(\d+)C(\d+)$", re.IGNORECASE)


@dataclass
class Reading:
    """What a key's reader has at hand: the puzzle object, the grid's side, notes.

    Attributes:
        obj: the whole f-puzzles object (a rule may depend on another key, as a
            negative rule on the dots it exempts).
        n: the grid's side.
        notes: what the reader tells the user (a clue skipped as f-puzzles skips it).
    """

    obj: Mapping[str, Any]
    n: int
    notes: list[str] = field(default_factory=list)

    def items(self, key: str) -> list[Mapping[str, Any]]:
        """The list of objects under ``key`` (none when absent), cosmetic copies left out.

        The userscript writes drawing copies of its rules tagged ``fromConstraint``;
        they are never rules.
        """
        value = self.obj.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise RulesError(f"f-puzzles {key} is a list of objects")
        return [v for v in value if not v.get("fromConstraint")]

    def position(self, text: object, what: str, *, outside: bool = False) -> tuple[int, int]:
        """``R3C5`` as (3, 5), 1-based; rows and columns 0 and n + 1 too when ``outside``."""
        match = _CELL.match(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise RulesError(f"f-puzzles {what}: {text!r} is no cell (R1C1)")
        r, c = int(match.group(1)), int(match.group(2))
        low, high = (0, self.n + 1) if outside else (1, self.n)
        if not (low <= r <= high and low <= c <= high):
            raise RulesError(f"f-puzzles {what}: {text} is off the grid")
        return r, c

    def cell(self, text: object, what: str) -> int:
        """The index of cell ``R3C5``."""
        r, c = self.position(text, what)
        return (r - 1) * self.n + c - 1

    def cells(self, value: object, what: str) -> list[int]:
        """A list of cells."""
        if not isinstance(value, list):
            raise RulesError(f"f-puzzles {what}: cells are a list")
        return [self.cell(v, what) for v in value]

    def lines(self, item: Mapping[str, Any], what: str) -> list[list[int]]:
        """The cells of each of an item's ``lines``."""
        lines = item.get("lines")
        if not isinstance(lines, list):
            raise RulesError(f"f-puzzles {what} has no lines")
        return [self.cells(line, what) for line in lines]

    def number(
        self, value: object, what: str, low: int | None = None, high: int | None = None
    ) -> int:
        """A whole number (f-puzzles writes most as text), within ``low..high``."""
        try:
            number = int(str(value).strip())
        except ValueError:
            raise RulesError(f"f-puzzles {what}: {value!r} is no number") from None
        if (low is not None and number < low) or (high is not None and number > high):
            raise RulesError(f"f-puzzles {what}: {number} is not one of {low}..{high}")
        return number

    def optional_number(self, value: object, what: str) -> int | None:
        """A whole number, or None for a missing or blank value."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        return self.number(value, what)

    def clue(self, value: object, what: str) -> int | None:
        """A clue's value as f-puzzles' solvers read it: a whole number, else skipped.

        Those solvers drop a clue whose value is no whole number without a word; here
        the reader says so (:attr:`notes`) and skips it too.
        """
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        try:
            return int(str(value).strip())
        except ValueError:
            self.notes.append(f"{what}: value {value!r} is no number, so the clue says nothing")
            return None

    def note(self, text: str) -> None:
        """Tell the user something about the reading (printed as a warning)."""
        self.notes.append(text)


@dataclass
class Writing:
    """An f-puzzles object being written: rules add their items under their keys."""

    n: int
    obj: dict[str, Any]

    def name(self, i: int) -> str:
        """Cell ``i`` as ``R1C1``."""
        return f"R{i // self.n + 1}C{i % self.n + 1}"

    def names(self, cells: Sequence[int]) -> list[str]:
        """Cells as ``R1C1`` names."""
        return [self.name(i) for i in cells]

    def add(self, key: str, item: Any) -> None:
        """Append ``item`` to the list under ``key``."""
        self.obj.setdefault(key, []).append(item)

    def flag(self, key: str, value: Any = True) -> None:
        """Set a top-level key (a flag such as ``antiknight``)."""
        self.obj[key] = value


#: An f-puzzles key's reader: (reading, the key) -> the rules the key sets.
Reader = Callable[[Reading, str], list[Constraint]]
#: A rule kind's writer into f-puzzles: (rule, writing) -> None.
Writer = Callable[[Any, Writing], None]

#: f-puzzles key -> its reader.
READERS: dict[str, Reader] = {}
#: Constraint class -> its writer.
WRITERS: dict[type[Constraint], Writer] = {}


def reads(*keys: str) -> Callable[[Reader], Reader]:
    """Decorator: register a reader for f-puzzles ``keys`` (each key once)."""

    def register(reader: Reader) -> Reader:
        for key in keys:
            if key in READERS:
                raise ValueError(f"f-puzzles key {key!r} has a reader already")
            READERS[key] = reader
        return reader

    return register


def writes(*classes: type[Constraint]) -> Callable[[Writer], Writer]:
    """Decorator: register the f-puzzles writer of some constraint classes."""

    def register(writer: Writer) -> Writer:
        for cls in classes:
            WRITERS[cls] = writer
        return writer

    return register
