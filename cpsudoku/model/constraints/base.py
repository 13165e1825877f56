"""What every rule shares: the :class:`Constraint` base, the registry of kinds, cells.

A constraint is a frozen value of one kind (a killer cage, a thermometer, a kropki
dot...), part of a puzzle's :class:`~cpsudoku.model.rules.Rules`. Each kind has a name
(``kind``), a JSON spec, its own check of a complete grid (:meth:`Constraint.problem`,
what the verifier calls, written from the rule as setters state it) and its
compilation to primitives (:meth:`Constraint.compile`, what every engine reads). The
two are written apart on purpose: the brute-force tests hold each rule's primitives
to its own check on every 4x4 grid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Primitive

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules

#: A cell written as ``r3c5`` (1-based), as setters' tools write them.
_CELL_NAME = re.compile(r"^[rR](\d+)[cC](\d+)$")

#: The symbols of the values 1..35, as grids write them.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Constraint:
    """Base of the constraint kinds: frozen dataclasses, registered by :func:`kind`.

    A subclass sets :attr:`kind` and :attr:`meaning`, and writes :meth:`spec`,
    :meth:`from_spec`, :meth:`problem` (the verifier's check of a complete grid) and
    :meth:`compile` (its primitives on a grid of side n).
    """

    kind: ClassVar[str] = ""
    #: What the rule says, in a few words, for ``cpsudoku solve`` and messages.
    meaning: ClassVar[str] = ""
    #: The family it is listed under (cages, relations, lines, sums, outside clues,
    #: cells, indexers, composites).
    family: ClassVar[str] = ""
    #: One JSON line of the rule, for the README's table of rules (a valid spec on a
    #: 9x9 grid: the tests read each one).
    example: ClassVar[dict[str, Any]] = {}
    #: The f-puzzles key it is read from and written to ("" when it has none).
    fpuzzles_key: ClassVar[str] = ""
    #: True when the rule's meaning depends on the puzzle's other rules (a negative
    #: rule's exempt pairs, a region sum line's regions): :meth:`bind` is then called
    #: when the rules are made.
    binds: ClassVar[bool] = False
    #: The cells the constraint speaks of.
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """The constraint as a JSON-ready object, with its ``"kind"``."""
        raise NotImplementedError

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """The constraint of ``spec`` on a grid of side ``size``, checked.

        Raises:
            RulesError: a malformed spec, or cells off the grid.
        """
        raise NotImplementedError

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """What a complete grid (``values``, row-major) breaks of this rule, or None."""
        raise NotImplementedError

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The primitives the rule means on a grid of side ``n`` (engines read these)."""
        raise NotImplementedError

    def bind(self, rules: Rules) -> Constraint:
        """This rule as it reads among ``rules`` (only for kinds with :attr:`binds`)."""
        return self

    def possible(self, values: Sequence[int], n: int) -> bool:
        """False when a partial grid (0 = empty) can no longer keep this rule.

        What the certificate checker prunes its enumerations with. A kind may write its
        own from the rule's statement (the kinds of the first release do, so the
        checker is independent of their compilation); by default it asks the rule's
        primitives, which the brute-force tests hold to :meth:`problem`.
        """
        return all(p.possible(values, n) for p in _compiled(self, n))

    def describe(self, n: int) -> str:
        """The rule in one line: what it is, where, its parameters and what it says.

        ``thermometer r1c1-r2c2-r3c3: values increase from the bulb``.
        """
        spec = self.spec()
        if not self.cells or len(self.cells) == n * n:  # a rule of the whole grid
            cells = ""
        elif len(self.cells) > 8:
            first, last = cell_name(self.cells[0], n), cell_name(self.cells[-1], n)
            cells = f"{first}...{last} ({len(self.cells)} cells)"
        else:
            cells = "-".join(cell_name(i, n) for i in self.cells)
        params = ", ".join(
            f"{k} {json.dumps(v)}" for k, v in spec.items() if k not in ("kind", "cells")
        )
        head = " ".join(
            part for part in (self.kind, cells, f"({params})" if params else "") if part
        )
        return f"{head}: {self.meaning}"

    def draw(self, drawing: Drawing) -> None:
        """Draw the rule as setters do (each kind draws itself; this is the fallback).

        By default its cells are shaded and marked with its name; a rule of the whole
        grid is listed beside it.
        """
        n = drawing.n
        if not self.cells or len(self.cells) == n * n:
            drawing.note(self.describe(n))
            return
        drawing.shade(self.cells, self.kind, colour="#f5e6c8")
        drawing.text(self.cells[0], self.kind, self.kind)

    def where(self, n: int) -> str:
        """Where the rule is, for messages: ``the thermometer at r1c1``."""
        if not self.cells:
            return f"the {self.kind} rule"
        return f"the {self.kind} at {cell_name(self.cells[0], n)}"


#: Every constraint kind, by name.
KINDS: dict[str, type[Constraint]] = {}


def kind(cls: type[Constraint]) -> type[Constraint]:
    """Class decorator: register a constraint kind under its ``kind`` name."""
    if not cls.kind or cls.kind in KINDS:
        raise ValueError(f"constraint kind {cls.kind!r} is empty or taken")
    KINDS[cls.kind] = cls
    return cls


def cell_name(i: int, n: int) -> str:
    """The ``r1c2`` name of cell ``i`` of an ``n x n`` grid."""
    return f"r{i // n + 1}c{i % n + 1}"


def check_cell(i: object, n: int, where: str) -> None:
    """Raise RulesError unless ``i`` is a cell index of an ``n x n`` grid."""
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n * n:
        raise RulesError(f"cell {i!r} of {where} is not a cell of a {n}x{n} grid")


def cell_index(value: object, n: int) -> int:
    """A cell given as a 0-based index or as an ``r1c2`` name.

    Raises:
        RulesError: neither, or off the grid.
    """
    if type(value) is int and 0 <= value < n * n:  # the common case, first
        return value
    if isinstance(value, str):
        match = _CELL_NAME.match(value.strip())
        if match is None:
            raise RulesError(f"{value!r} is no cell: write r1c2 (1-based) or an index")
        r, c = int(match.group(1)), int(match.group(2))
        if not (1 <= r <= n and 1 <= c <= n):
            raise RulesError(f"{value} is not a cell of a {n}x{n} grid")
        return (r - 1) * n + c - 1
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{value!r} is no cell: write r1c2 (1-based) or an index")
    check_cell(value, n, "the rules")
    return value


def only_keys(spec: Mapping[str, Any], kind: str, *keys: str) -> None:
    """Raise RulesError naming the first key of ``spec`` a ``kind`` rule does not take."""
    extra = sorted(set(spec) - {"kind", *keys})
    if extra:
        raise RulesError(f"a {kind} rule takes no {extra[0]!r}")


def as_list(value: object, what: str) -> list[Any]:
    """``value`` as a list, or RulesError naming ``what`` it should have been."""
    if not isinstance(value, list | tuple):
        raise RulesError(f"{what} must be a list, not {type(value).__name__}")
    return list(value)


def cells_of(
    value: object, size: int, what: str, *, least: int = 1, distinct: bool = True
) -> tuple[int, ...]:
    """A list of cells on the grid (at least ``least``, none twice unless allowed).

    Raises:
        RulesError: not a list, too few cells, a cell off the grid or listed twice.
    """
    cells = tuple(cell_index(c, size) for c in as_list(value, what))
    if not cells:
        raise RulesError(f"{what}: no cells")
    if len(cells) < least:
        raise RulesError(f"{what}: {len(cells)} cells, at least {least} needed")
    if distinct and len(set(cells)) != len(cells):
        raise RulesError(f"{what} list a cell twice")
    return cells


def whole(value: object, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as a whole number (within ``low..high``), or RulesError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"{low if low is not None else '...'}..{high if high is not None else '...'}"
        raise RulesError(f"{what} {value} is not one of {span}")
    return value


def numbers(value: object, what: str, low: int | None = None, high: int | None = None) -> list[int]:
    """A non-empty list of whole numbers (each within ``low..high``)."""
    items = as_list(value, what)
    if not items:
        raise RulesError(f"{what}: none given")
    return [whole(v, what, low, high) for v in items]


def mask_of(digits: Sequence[int]) -> int:
    """The mask of a set of values."""
    out = 0
    for d in digits:
        out |= 1 << (d - 1)
    return out


def constraint_from_spec(spec: object, size: int) -> Constraint:
    """The constraint a spec describes (its ``"kind"`` picks the class).

    Raises:
        RulesError: no kind, an unknown kind (the message lists the known ones), or a
            malformed spec.
    """
    if not isinstance(spec, Mapping) or "kind" not in spec:
        raise RulesError(f'a constraint is an object with a "kind", not {spec!r}')
    cls = KINDS.get(str(spec["kind"]))
    if cls is None:
        known = ", ".join(sorted(KINDS)) or "none yet"
        raise RulesError(f"unknown constraint kind {spec['kind']!r}; known kinds: {known}")
    return cls.from_spec(spec, size)


@lru_cache(maxsize=256)
def _compiled(rule: Constraint, n: int) -> tuple[Primitive, ...]:
    """``rule.compile(n)``, once per rule.

    The certificate checker asks a rule whether a partial grid can still keep it
    thousands of times, and some rules build automata to answer (a doppelganger's:
    0.13 s a compile, 51 compiles a certificate).
    """
    return rule.compile(n)
