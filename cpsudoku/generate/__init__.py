"""Generating complete grids and puzzles with exactly one solution, for any box shape."""

from cpsudoku.generate.files import DATASET_SUFFIXES, dataset_text, write_dataset
from cpsudoku.generate.grids import generate_grid, random_grid
from cpsudoku.generate.puzzles import (
    DEFAULT_ATTEMPTS,
    GeneratedPuzzle,
    GenerationError,
    Symmetry,
    generate_puzzle,
    generate_puzzles,
    orbits,
)

__all__ = [
    "DATASET_SUFFIXES",
    "DEFAULT_ATTEMPTS",
    "GeneratedPuzzle",
    "GenerationError",
    "Symmetry",
    "dataset_text",
    "generate_grid",
    "generate_puzzle",
    "generate_puzzles",
    "orbits",
    "random_grid",
    "write_dataset",
]
