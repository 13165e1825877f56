"""Rules beyond the no-repeat units: the constraint kinds, and their specs.

A constraint is a frozen value of one kind (a killer cage, a thermometer, a kropki
dot...), part of a puzzle's :class:`~cpsudoku.model.rules.Rules`. Each kind has a name
(``kind``), a JSON spec, and a check of its cells against the grid. Engines declare
the kinds they take; one that lacks a kind refuses the puzzle by name, so a rule is
never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from cpsudoku.model.errors import RulesError


class Constraint:
    """Base of the constraint kinds: frozen dataclasses, registered by :func:`kind`.

    A subclass sets :attr:`kind`, and writes :meth:`spec` and :meth:`from_spec`.
    """

    kind: ClassVar[str] = ""

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


#: Every constraint kind, by name.
KINDS: dict[str, type[Constraint]] = {}


def kind(cls: type[Constraint]) -> type[Constraint]:
    """Class decorator: register a constraint kind under its ``kind`` name."""
    if not cls.kind or cls.kind in KINDS:
        raise ValueError(f"constraint kind {cls.kind!r} is empty or taken")
    KINDS[cls.kind] = cls
    return cls


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
