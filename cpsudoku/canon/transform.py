"""The validity-preserving transformations of a box-shaped grid, as one value.

A :class:`Transformation` of an ``N x N`` grid with ``R x C`` boxes is, in this order: an
optional transposition (only when ``R == C``, the only shape it maps to itself), a
permutation of the rows that keeps bands together (bands permuted, rows permuted within
each band), the same for columns and stacks, and a relabelling of the digits. Each maps
valid grids to valid grids and a puzzle's solutions to the image's solutions, so two
puzzles one maps onto the other are the same puzzle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules


class TransformationError(PuzzleError):
    """A transformation that is not one of the grid's symmetries, or of another shape."""


@dataclass(frozen=True, slots=True)
class Transformation:
    """One symmetry of a grid with ``box`` = (rows, cols) boxes.

    Applied to a grid ``P`` it gives ``Q`` with
    ``Q[i][j] = digits[X[rows[i]][cols[j]] - 1]`` where ``X`` is ``P`` transposed when
    ``transpose`` is set, else ``P`` itself; empty cells stay empty.

    Attributes:
        box: the box shape (rows, cols) it belongs to.
        transpose: transpose first (only when the boxes are square).
        rows: ``rows[i]`` is the row of ``X`` that becomes row ``i``.
        cols: ``cols[j]`` is the column of ``X`` that becomes column ``j``.
        digits: ``digits[d - 1]`` is the new digit of digit ``d``.
    """

    box: tuple[int, int]
    transpose: bool
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    digits: tuple[int, ...]

    def __post_init__(self) -> None:
        br, bc = self.box
        n = br * bc
        if self.transpose and br != bc:
            raise TransformationError(f"{br}x{bc} boxes cannot be transposed")
        _check_lines(self.rows, n, br, "rows")
        _check_lines(self.cols, n, bc, "columns")
        if sorted(self.digits) != list(range(1, n + 1)):
            raise TransformationError(f"digits {self.digits} are not a permutation of 1..{n}")

    @property
    def n(self) -> int:
        """Side of the grid."""
        return self.box[0] * self.box[1]

    @classmethod
    def identity(cls, box: tuple[int, int]) -> Transformation:
        """The transformation that changes nothing."""
        n = box[0] * box[1]
        line = tuple(range(n))
        return cls(box, False, line, line, tuple(range(1, n + 1)))

    def cell_sources(self) -> list[int]:
        """``sources[k]`` is the cell of the input whose value lands in cell ``k``."""
        n = self.n
        if self.transpose:
            return [c * n + r for r in self.rows for c in self.cols]
        return [r * n + c for r in self.rows for c in self.cols]

    def apply(self, cells: Sequence[int]) -> tuple[int, ...]:
        """The image of a grid given as its ``N*N`` values (0 = empty)."""
        table = (0, *self.digits)
        return tuple(table[cells[k]] for k in self.cell_sources())

    def then(self, other: Transformation) -> Transformation:
        """The transformation that applies ``self`` first, then ``other``."""
        if other.box != self.box:
            raise TransformationError(f"boxes {self.box} and {other.box} differ")
        first, second = self.cell_sources(), other.cell_sources()
        digits = tuple(other.digits[d - 1] for d in self.digits)
        return _from_sources(self.box, [first[k] for k in second], digits)

    def inverse(self) -> Transformation:
        """The transformation that undoes this one."""
        sources = self.cell_sources()
        back = [0] * len(sources)
        for k, s in enumerate(sources):
            back[s] = k
        digits = [0] * self.n
        for d, new in enumerate(self.digits, 1):
            digits[new - 1] = d
        return _from_sources(self.box, back, tuple(digits))

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form (lists of 0-based lines, digits 1..N)."""
        return {
            "box": f"{self.box[0]}x{self.box[1]}",
            "transpose": self.transpose,
            "rows": list(self.rows),
            "cols": list(self.cols),
            "digits": list(self.digits),
        }


def _check_lines(lines: tuple[int, ...], n: int, size: int, what: str) -> None:
    """``lines`` is a permutation of 0..n-1 that moves blocks of ``size`` whole."""
    if sorted(lines) != list(range(n)):
        raise TransformationError(f"{what} {lines} are not a permutation of 0..{n - 1}")
    for start in range(0, n, size):
        block = {line // size for line in lines[start : start + size]}
        if len(block) != 1:
            raise TransformationError(f"{what} {lines} split a band or stack of {size}")


def _from_sources(
    box: tuple[int, int], sources: list[int], digits: tuple[int, ...]
) -> Transformation:
    """The transformation whose :meth:`Transformation.cell_sources` are ``sources``."""
    n = box[0] * box[1]
    # Without transposition the first output row reads one input row.
    transpose = n > 1 and sources[0] // n != sources[1] // n
    if transpose:
        rows = tuple(sources[i * n] % n for i in range(n))
        cols = tuple(sources[j] // n for j in range(n))
    else:
        rows = tuple(sources[i * n] // n for i in range(n))
        cols = tuple(sources[j] % n for j in range(n))
    return Transformation(box, transpose, rows, cols, digits)


def transform(puzzle: Puzzle, transformation: Transformation) -> Puzzle:
    """The image of ``puzzle`` under ``transformation`` (same rules, same box shape).

    Raises:
        TransformationError: the puzzle's rules are not classic boxes of that shape.
    """
    rules = puzzle.rules
    if not rules.is_classic or rules.box != transformation.box:
        raise TransformationError(
            f"a transformation of {transformation.box[0]}x{transformation.box[1]} boxes "
            f"does not apply to a {rules} grid"
        )
    return Puzzle(rules, transformation.apply(puzzle.cells))


def classic_box(rules: Rules) -> tuple[int, int]:
    """The box shape of classic rules, or TransformationError for any other rules."""
    if not rules.is_classic or rules.box is None:
        raise TransformationError(
            f"canonical forms are defined for rows, columns and boxes alone, not for {rules}"
        )
    return rules.box
