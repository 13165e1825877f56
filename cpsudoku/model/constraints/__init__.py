"""Rules beyond the no-repeat units: the constraint kinds, by family.

A constraint is a frozen value of one kind (a killer cage, a thermometer, a kropki
dot...), part of a puzzle's :class:`~cpsudoku.model.rules.Rules`. Each kind has a name,
a JSON spec, its own check of a complete grid, and its compilation to the primitives
of :mod:`cpsudoku.model.primitives`, which are all the engines read. Engines declare
the primitives they take; one that lacks a rule's primitive refuses the puzzle by
the rule's name, so a rule is never dropped.

The kinds live in one module per family: :mod:`~.cages`, :mod:`~.relations` (pairs of
cells, dots), :mod:`~.lines`, :mod:`~.sums`, :mod:`~.outside` (clues outside the
grid), :mod:`~.cells`; importing this package registers them all.
"""

from cpsudoku.model.constraints.base import (
    KINDS,
    SYMBOLS,
    Constraint,
    as_list,
    cell_index,
    cell_name,
    cells_of,
    check_cell,
    constraint_from_spec,
    kind,
    mask_of,
    numbers,
    only_keys,
    whole,
)
from cpsudoku.model.constraints.cages import Cage, digit_sets
from cpsudoku.model.constraints.cells import Candidates, CellValues, Even, Odd
from cpsudoku.model.constraints.lines import Palindrome, Renban, Thermometer, Whisper
from cpsudoku.model.constraints.outside import (
    HiddenSkyscraper,
    LineClue,
    Lunchbox,
    NumberedRoom,
    Sandwich,
    SideClue,
    Skyscraper,
    XSum,
    sandwich_sets,
    xsum_totals,
)
from cpsudoku.model.constraints.relations import (
    MARK_VALUES,
    NEGATABLE,
    AntiKing,
    AntiKnight,
    GridRule,
    KropkiBlack,
    KropkiWhite,
    MarkRule,
    Negative,
    NonConsecutive,
    PairRule,
    ValuedMark,
    VMark,
    XMark,
    mark_allows,
    moves,
)
from cpsudoku.model.constraints.sums import Arrow, LinearSum, LittleKiller

__all__ = [
    "KINDS",
    "MARK_VALUES",
    "NEGATABLE",
    "SYMBOLS",
    "AntiKing",
    "AntiKnight",
    "Arrow",
    "Cage",
    "Candidates",
    "CellValues",
    "Constraint",
    "Even",
    "GridRule",
    "HiddenSkyscraper",
    "KropkiBlack",
    "KropkiWhite",
    "LineClue",
    "LinearSum",
    "LittleKiller",
    "Lunchbox",
    "MarkRule",
    "Negative",
    "NonConsecutive",
    "NumberedRoom",
    "Odd",
    "PairRule",
    "Palindrome",
    "Renban",
    "Sandwich",
    "SideClue",
    "Skyscraper",
    "Thermometer",
    "VMark",
    "ValuedMark",
    "Whisper",
    "XMark",
    "XSum",
    "as_list",
    "cell_index",
    "cell_name",
    "cells_of",
    "check_cell",
    "constraint_from_spec",
    "digit_sets",
    "kind",
    "mark_allows",
    "mask_of",
    "moves",
    "numbers",
    "only_keys",
    "sandwich_sets",
    "whole",
    "xsum_totals",
]
