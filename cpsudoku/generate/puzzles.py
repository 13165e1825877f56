"""Puzzles with exactly one solution, for any box shape, minimal or to a clue target.

Start from a complete grid (:mod:`cpsudoku.generate.grids`) and remove clues in random
order, keeping a removal only while the puzzle still has exactly one solution.
Removing clues never removes solutions, so one pass over the cells gives a *minimal*
puzzle (no clue can be removed) or stops at a clue target. With a symmetry, clues are
removed in orbits (a cell and its mirror or 180-degree image) and minimal means no
orbit can be removed. Uniqueness is checked by the registry's uniqueness checker
(:func:`cpsudoku.engines.uniqueness_checker`) as a count; a removal whose cells are
naked or hidden singles of the remaining clues cannot add a solution and skips the
solver. A difficulty target generates and rates (:mod:`cpsudoku.rating`) until the
grade matches, within a bounded number of attempts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import partial

from cpsudoku.engines import Backend, get_backend, one_call, uniqueness_checker
from cpsudoku.generate.grids import grid_shape, random_grid, random_source
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.words import count_of
from cpsudoku.rating import Grade, Rating, rate_puzzle

#: Attempts (grids tried) per puzzle before a clue or difficulty target is given up.
DEFAULT_ATTEMPTS = 100


class GenerationError(CpSudokuError, RuntimeError):
    """A generation target (clue count, difficulty) was not reached in the attempts."""


class Symmetry(StrEnum):
    """Which clue patterns are kept: clues are removed a whole orbit at a time."""

    NONE = "none"
    """No symmetry: clues are removed one at a time."""
    ROTATIONAL = "rotational"
    """180-degree rotational symmetry: cell (r, c) goes with (n-1-r, n-1-c)."""
    MIRROR = "mirror"
    """Left-right mirror symmetry: cell (r, c) goes with (r, n-1-c)."""


@dataclass(frozen=True, slots=True)
class GeneratedPuzzle:
    """A generated puzzle with what is known about it.

    Attributes:
        puzzle: the puzzle (0 = empty), with exactly one solution.
        solution: its solution.
        rating: the logic rating when a difficulty was asked for, else None.
        attempts: grids tried to reach the targets (1 when the first one did).
        checks: uniqueness checks the solver made (removals proven by singles excluded).
    """

    puzzle: Puzzle
    solution: Puzzle
    rating: Rating | None = None
    attempts: int = 1
    checks: int = 0

    def to_dict(self) -> dict[str, object]:
        """The record written to .jsonl and .csv datasets."""
        out: dict[str, object] = {"puzzle": str(self.puzzle), "solution": str(self.solution)}
        if self.rating is not None:
            out["grade"] = None if self.rating.grade is None else str(self.rating.grade)
            out["score"] = self.rating.score
        return out


# --------------------------------------------------------------------------- grids


# --------------------------------------------------------------------------- puzzles


def orbits(g: Rules, symmetry: Symmetry | str) -> list[tuple[int, ...]]:
    """The groups of cells that are emptied together under ``symmetry``."""
    n, size = g.n, g.cells
    sym = Symmetry(symmetry)
    seen: set[int] = set()
    out: list[tuple[int, ...]] = []
    for i in range(size):
        if i in seen:
            continue
        r, c = divmod(i, n)
        if sym is Symmetry.ROTATIONAL:
            image = size - 1 - i
        elif sym is Symmetry.MIRROR:
            image = r * n + n - 1 - c
        else:
            image = i
        orbit = (i,) if image == i else (i, image)
        seen.update(orbit)
        out.append(orbit)
    return out


class _Remover:
    """Clue removal against one uniqueness checker, with a shortcut for singles."""

    def __init__(self, g: Rules, backend: Backend) -> None:
        self.g = g
        self.backend = backend
        self.full = (1 << g.n) - 1
        self.checks = 0

    def _forced(self, cells: list[int], orbit: tuple[int, ...], solution: tuple[int, ...]) -> bool:
        """True when every emptied cell is a single of the remaining clues.

        A cell whose peers' clues hold every other value (naked single), or the only
        cell of one of its units whose peers' clues do not hold its value (hidden
        single), has that value in every solution, so emptying it adds no solution.
        """
        peers = self.g.peers
        for i in orbit:
            v = solution[i]
            seen = 1 << (v - 1)
            for j in peers[i]:
                if cells[j]:
                    seen |= 1 << (cells[j] - 1)
            if seen != self.full and not self._hidden(cells, i, v):
                return False
        return True

    def _hidden(self, cells: list[int], i: int, v: int) -> bool:
        """True when some unit of cell ``i`` has no other empty cell that can hold ``v``."""
        g = self.g
        for u in g.units_of[i]:
            if all(
                cells[j] or any(cells[k] == v for k in g.peers[j])
                for j in g.unit_cells[u]
                if j != i
            ):
                return True
        return False

    def unique(self, cells: list[int]) -> bool:
        """True when the puzzle ``cells`` has exactly one solution (solver check)."""
        self.checks += 1
        found = self.backend.search(Puzzle(self.g, tuple(cells)), 2, None)
        if found.timed_out or (found.count < 2 and not found.exhausted):
            raise GenerationError(f"{self.backend.spec} could not settle a uniqueness check")
        return found.count == 1

    def remove(
        self,
        solution: tuple[int, ...],
        order: list[tuple[int, ...]],
        clues: int | None,
        on_step: Callable[[int, int], None] | None = None,
    ) -> list[int]:
        """Empty the orbits of ``order`` that keep the puzzle unique, down to ``clues``.

        ``on_step`` is called before each orbit with (orbits tried, orbits in all).
        """
        cells = list(solution)
        givens = len(cells)
        for tried, orbit in enumerate(order):
            if on_step is not None:
                on_step(tried, len(order))
            if clues is not None and givens - len(orbit) < clues:
                continue
            for i in orbit:
                cells[i] = 0
            if self._forced(cells, orbit, solution) or self.unique(cells):
                givens -= len(orbit)
                if givens == clues:
                    break
            else:
                for i in orbit:
                    cells[i] = solution[i]
        return cells


def _resolve_backend(backend: str | Backend | None, g: Rules) -> Backend:
    if isinstance(backend, Backend):
        return backend
    return get_backend(backend or uniqueness_checker(g))


def _check_targets(
    g: Rules,
    clues: int | None,
    symmetry: Symmetry | str,
    difficulty: Grade | str | None,
    max_attempts: int,
) -> tuple[Symmetry, Grade | None]:
    """The symmetry and grade asked for; ValueError for a target no attempt can reach.

    Checked before any grid is made, so an impossible request fails at once instead of
    after every attempt. A clue count is impossible outside ``0..cells``, and when it
    is odd under a symmetry that pairs every cell with another: clues are removed a
    whole orbit at a time, so without a one-cell orbit the count stays even. That is
    the case on even sides for both symmetries (rotational: no center cell; mirror: no
    middle column); on odd sides the center cell, or the middle column, makes any
    count possible.
    """
    sym = Symmetry(symmetry)
    grade = None if difficulty is None else Grade(difficulty)
    if clues is not None and not 0 <= clues <= g.cells:
        raise ValueError(f"a {g} puzzle has 0..{g.cells} clues, not {clues}")
    if clues is not None and clues % 2 and all(len(o) == 2 for o in orbits(g, sym)):
        raise ValueError(
            f"with {sym} symmetry on a {g.n}x{g.n} grid every clue has a partner, "
            f"so the clue count must be even, not {clues}"
        )
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
    return sym, grade


@one_call
def generate_puzzle(
    box: str | Rules = "3x3",
    *,
    clues: int | None = None,
    symmetry: Symmetry | str = Symmetry.NONE,
    difficulty: Grade | str | None = None,
    seed: int | None = None,
    rng: random.Random | None = None,
    backend: str | Backend | None = None,
    max_attempts: int = DEFAULT_ATTEMPTS,
    on_step: Callable[[int, int, int], None] | None = None,
) -> GeneratedPuzzle:
    """One puzzle with exactly one solution.

    Args:
        box: box shape, e.g. ``"3x3"`` for 9x9 or ``"4x4"`` for 16x16.
        clues: stop removing at exactly this many clues; None (the default) removes
            until the puzzle is minimal (no clue, or orbit, can be removed).
        symmetry: ``"none"``, ``"rotational"`` (180 degrees) or ``"mirror"``.
        difficulty: a grade of :class:`cpsudoku.rating.Grade` (``"easy"`` ...
            ``"extreme"``); puzzles are generated and rated until one has it.
        seed: makes the result reproducible.
        rng: draw from this generator instead (for a reproducible sequence).
        backend: uniqueness checker, a spec or a Backend (default:
            :func:`cpsudoku.engines.uniqueness_checker`).
        max_attempts: grids to try before a clue or difficulty target is given up.
        on_step: called before each clue (or symmetric pair) is tried for removal,
            with (attempt, clues tried, clues in all), for a progress line.

    Raises:
        GenerationError: the clue count or difficulty was not reached in time.
        ValueError: an impossible argument (clues out of range, an odd clue count under
            a symmetry that pairs every cell, unknown grade).
    """
    g = grid_shape(box)
    sym, grade = _check_targets(g, clues, symmetry, difficulty, max_attempts)
    random_ = random_source(seed, rng)
    remover = _Remover(g, _resolve_backend(backend, g))
    cell_orbits = orbits(g, sym)
    seen_grades: list[str] = []
    closest = g.cells
    for attempt in range(1, max_attempts + 1):
        solution = random_grid(g, random_)
        order = cell_orbits.copy()
        random_.shuffle(order)
        step = None
        if on_step is not None:
            step = partial(on_step, attempt)
        cells = remover.remove(solution.cells, order, clues, step)
        givens = sum(1 for v in cells if v)
        closest = min(closest, givens)
        if clues is not None and givens != clues:
            continue
        puzzle = Puzzle(g, tuple(cells))
        rating = None
        if grade is not None:
            rating = rate_puzzle(puzzle)
            seen_grades.append(str(rating.grade or rating.status))
            if rating.grade is not grade:
                continue
        return GeneratedPuzzle(puzzle, solution, rating, attempt, remover.checks)
    if grade is not None:
        raise GenerationError(
            f"no {grade} puzzle in {count_of(max_attempts, 'attempt')} (got: "
            f"{', '.join(sorted(set(seen_grades))) or 'none at the clue target'}); "
            "allow more attempts, or ask for a neighbouring grade"
        )
    raise GenerationError(
        f"no unique {g} puzzle with {count_of(clues or 0, 'clue')} in "
        f"{count_of(max_attempts, 'attempt')} "
        f"(fewest reached: {closest}); allow more attempts or ask for more clues"
    )


def generate_puzzles(
    count: int = 1,
    box: str | Rules = "3x3",
    *,
    clues: int | None = None,
    symmetry: Symmetry | str = Symmetry.NONE,
    difficulty: Grade | str | None = None,
    seed: int | None = None,
    backend: str | Backend | None = None,
    max_attempts: int = DEFAULT_ATTEMPTS,
    on_step: Callable[[int, int, int], None] | None = None,
) -> Iterator[GeneratedPuzzle]:
    """``count`` puzzles, lazily; the same seed gives the same sequence.

    Takes the arguments of :func:`generate_puzzle` (``on_step`` is called for each
    puzzle in turn); one random generator seeded with
    ``seed`` drives the whole sequence. Arguments are checked at the call (a
    ValueError for an impossible target), the puzzles are made as they are asked for.

    >>> [str(p.puzzle) for p in generate_puzzles(2, "2x2", seed=1)] == [
    ...     str(p.puzzle) for p in generate_puzzles(2, "2x2", seed=1)
    ... ]
    True
    """
    g = grid_shape(box)
    if count < 0:
        raise ValueError(f"count must be 0 or more, got {count}")
    _check_targets(g, clues, symmetry, difficulty, max_attempts)  # at once, not lazily

    @one_call
    def puzzles() -> Iterator[GeneratedPuzzle]:
        random_ = random.Random(seed)
        engine = _resolve_backend(backend, g)
        for _ in range(count):
            yield generate_puzzle(
                g,
                clues=clues,
                symmetry=symmetry,
                difficulty=difficulty,
                rng=random_,
                backend=engine,
                max_attempts=max_attempts,
                on_step=on_step,
            )

    return puzzles()


# --------------------------------------------------------------------------- writing
