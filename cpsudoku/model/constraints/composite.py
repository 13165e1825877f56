"""Composites: rules made of rules, all of them (``and``) or at least one (``or``).

ISS's ``And`` and ``Or``. Their members are any rule specs, composites too. ``and``
compiles to its members' primitives side by side; ``or`` to one
:class:`~cpsudoku.model.primitives.Choice` whose branches are each member's
primitives, so every engine takes an ``or`` of rules it takes. A member whose meaning
depends on the puzzle's other rules (a negative rule's exempt marks) reads the
puzzle's own rules, as it would standing alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from cpsudoku.model.constraints.base import (
    Constraint,
    as_list,
    constraint_from_spec,
    kind,
    only_keys,
)
from cpsudoku.model.constraints.drawing import Drawing
from cpsudoku.model.errors import RulesError
from cpsudoku.model.primitives import Choice, Primitive

if TYPE_CHECKING:
    from cpsudoku.model.rules import Rules


class Composite(Constraint):
    """Base of ``and`` and ``or``: ``{"kind": ..., "rules": [spec, ...]}``, one rule or more."""

    family: ClassVar[str] = "composites"
    binds: ClassVar[bool] = True
    rules: tuple[Constraint, ...]
    cells: tuple[int, ...]

    def spec(self) -> dict[str, Any]:
        """``{"kind": ..., "rules": [each member's spec]}``."""
        return {"kind": self.kind, "rules": [rule.spec() for rule in self.rules]}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], size: int) -> Constraint:
        """Each member from its spec; at least one.

        Raises:
            RulesError: no rules, or a member's own error (named with its place).
        """
        only_keys(spec, cls.kind, "rules")
        items = as_list(spec.get("rules"), f'an {cls.kind} rule\'s "rules"')
        if not items:
            raise RulesError(f"an {cls.kind} rule needs at least one rule")
        members = []
        for k, item in enumerate(items):
            try:
                members.append(constraint_from_spec(item, size))
            except RulesError as err:
                raise RulesError(f"rule {k + 1} of an {cls.kind} rule: {err}") from None
        return cls(tuple(members))  # type: ignore[call-arg]

    def bind(self, rules: Rules) -> Constraint:
        """Members whose meaning depends on the puzzle's rules read them."""
        bound = tuple(m.bind(rules) if m.binds else m for m in self.rules)
        return self if bound == self.rules else replace(self, rules=bound)  # type: ignore[type-var]

    def where(self, n: int) -> str:
        """``the or rule of 2 rules``."""
        return f"the {self.kind} rule of {len(self.rules)} rule{'s' * (len(self.rules) != 1)}"


def _cells(rules: Sequence[Constraint]) -> tuple[int, ...]:
    """Every member's cells, each once, in order."""
    return tuple(dict.fromkeys(i for rule in rules for i in rule.cells))


@kind
@dataclass(frozen=True, slots=True)
class And(Composite):
    """Every member holds: ``{"kind": "and", "rules": [...]}`` (inside an ``or``, say)."""

    kind: ClassVar[str] = "and"
    meaning: ClassVar[str] = "all of its rules hold"
    example: ClassVar[dict[str, Any]] = {
        "kind": "and",
        "rules": [
            {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
            {"kind": "odd", "cells": ["r1c1"]},
        ],
    }
    rules: tuple[Constraint, ...]
    cells: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", _cells(self.rules))

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """The first member's problem."""
        for rule in self.rules:
            found = rule.problem(values, n)
            if found is not None:
                return f"{self.where(n)}: {found}"
        return None

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Every member can still hold."""
        return all(rule.possible(values, n) for rule in self.rules)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """The members' primitives, side by side."""
        return tuple(p for rule in self.rules for p in rule.compile(n))

    def draw(self, drawing: Drawing) -> None:
        """Each member as it draws itself: all of them hold."""
        for rule in self.rules:
            rule.draw(drawing)


@kind
@dataclass(frozen=True, slots=True)
class Or(Composite):
    """At least one member holds: ``{"kind": "or", "rules": [...]}``."""

    kind: ClassVar[str] = "or"
    meaning: ClassVar[str] = "at least one of its rules holds"
    example: ClassVar[dict[str, Any]] = {
        "kind": "or",
        "rules": [
            {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 3},
            {"kind": "cage", "cells": ["r1c1", "r1c2"], "sum": 17},
        ],
    }
    rules: tuple[Constraint, ...]
    cells: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", _cells(self.rules))

    def problem(self, values: Sequence[int], n: int) -> str | None:
        """None when some member holds; else what each breaks."""
        found = []
        for rule in self.rules:
            problem = rule.problem(values, n)
            if problem is None:
                return None
            found.append(problem)
        return f"{self.where(n)}: none holds ({'; '.join(found)})"

    def possible(self, values: Sequence[int], n: int) -> bool:
        """Some member can still hold."""
        return any(rule.possible(values, n) for rule in self.rules)

    def compile(self, n: int) -> tuple[Primitive, ...]:
        """One choice, a branch per member (one member: its own primitives).

        A member with no primitives always holds, and so does the rule then.
        """
        branches = tuple(rule.compile(n) for rule in self.rules)
        if len(branches) == 1:
            return branches[0]
        if not all(branches):
            return ()
        return (Choice(branches),)

    def draw(self, drawing: Drawing) -> None:
        """Each member as it draws itself, and a note that one of them is enough."""
        for rule in self.rules:
            rule.draw(drawing)
        members = " | ".join(rule.describe(drawing.n).split(": ", 1)[0] for rule in self.rules)
        drawing.note(f"or, at least one holds: {members}")
