"""Canonical forms of puzzles: equivalent puzzles found, datasets deduplicated.

A transformation relabels the digits, permutes bands, rows within a band, stacks and
columns within a stack, and transposes square-box grids; puzzles one maps onto another
are the same puzzle. :func:`canonical` gives one representative per class (minlex up
to 12x12, a graph canonical key above), :func:`equivalent` the transformation between
two puzzles, :func:`transform` the image of a puzzle.
"""

from cpsudoku.canon.canonical import (
    MINLEX_MAX_SIDE,
    Canonical,
    canonical,
    canonical_lines,
    canonical_text,
    equivalent,
    minlex_built,
    transform,
)
from cpsudoku.canon.transform import Transformation, TransformationError

__all__ = [
    "MINLEX_MAX_SIDE",
    "Canonical",
    "Transformation",
    "TransformationError",
    "canonical",
    "canonical_lines",
    "canonical_text",
    "equivalent",
    "minlex_built",
    "transform",
]
