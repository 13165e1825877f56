"""Export a puzzle's encoding for outside tools: DIMACS CNF or a CP-SAT model."""

from __future__ import annotations

import importlib

from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.rules import Rules

#: format -> (module, function taking a Puzzle and returning the text).
EXPORTERS: dict[str, tuple[str, str]] = {
    "dimacs": ("cpsudoku.encode.cnf", "to_dimacs"),
    "cpsat": ("cpsudoku.encode.cpsat", "to_proto_text"),
}


def export(puzzle: PuzzleLike, to: str, *, box: str | Rules | None = None) -> str:
    """The puzzle's rules and givens as text in format ``to`` (``dimacs`` or ``cpsat``).

    ``dimacs``: a standard DIMACS CNF (rules plus the givens as unit clauses) with
    comment lines giving the variable mapping. ``cpsat``: the CP-SAT model in protobuf
    text format.

    Raises:
        PuzzleError: the puzzle is malformed or its givens clash.
        ValueError: an unknown format.
    """
    try:
        module_name, function = EXPORTERS[to]
    except KeyError:
        choices = ", ".join(EXPORTERS)
        raise ValueError(f"unknown export format {to!r}; choose from: {choices}") from None
    writer = getattr(importlib.import_module(module_name), function)
    text: str = writer(parse(puzzle, box))
    return text
