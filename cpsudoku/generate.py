"""Complete grids and puzzles with one solution, for any box shape.

Grids (:func:`generate_grid`): a randomized backtracking fill, as the classic
write-ups do it: naked singles are placed at once, then the open cell with the fewest
candidates (ties broken at random) gets its candidates in random order; a fill that
takes too many nodes restarts. The filled grid then goes through a uniformly random validity-
preserving symmetry: relabelling of the values, permutations of bands, of rows within
each band, of stacks and of columns within each stack, and a transposition when the
boxes are square. All randomness comes from one ``random.Random``, so a seed
reproduces everything.

The randomized fill stalls on big grids (no 30x30 or 36x36 fill finished within its
node cap in measurements). Grids with a side above 25, and any grid whose fill hits
the node cap on 100 restarts in a row (practically never below 25x25), are instead
the pattern grid ``(bc*(r % br) + r//br + c) % n + 1`` put through the same random
symmetry, drawn from the same ``random.Random``. Those fallback grids are valid and
reproducible but far from uniform: they are the images of one grid only.

How uniform is that? Every valid grid can come out, and the final symmetry makes
grids that are images of each other under those operations exactly equally likely.
Across essentially different grids it is *not* proven uniform: a backtracking fill
reaches some grids by more paths than others. (Shuffling one fixed pattern grid, the
cheap alternative, is far worse: it only ever yields the images of that one grid.)

Puzzles (:func:`generate_puzzle`, :func:`generate_puzzles`): start from a complete
grid and remove clues in random order, keeping a removal only while the puzzle still
has exactly one solution. Removing clues never removes solutions, so one pass over
the cells gives a *minimal* puzzle (no clue can be removed) or stops at a clue target.
With a symmetry, clues are removed in orbits (a cell and its mirror or 180-degree
image) and minimal means no orbit can be removed. Uniqueness is checked by the fast
backend (the ``backtrack`` oracle up to 9x9, ``sat`` above) as a count; a
removal whose cells are naked or hidden singles of the remaining clues cannot add a
solution and skips the solver. A difficulty target generates and rates
(:mod:`cpsudoku.logic`) until the grade matches, within a bounded number of attempts.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from cpsudoku.engines import REGISTRY, Backend, get_backend
from cpsudoku.logic import Grade, Rating, rate_puzzle
from cpsudoku.model.errors import BoxShapeError, CpSudokuError, file_named
from cpsudoku.model.grid import Geometry, Puzzle, as_geometry

#: Attempts (grids tried) per puzzle before a clue or difficulty target is given up.
DEFAULT_ATTEMPTS = 100

#: Search nodes of one randomized fill before it restarts (rarely reached below 25x25).
_FILL_NODES = 2_000

#: Largest grid side filled by randomized backtracking; bigger grids stall there
#: (30x30 and 36x36 fills measured 0 successes in 10) and use the pattern grid.
_FILL_MAX_SIDE = 25

#: Randomized fills tried before falling back to the pattern grid. A 25x25 fill
#: succeeds about one time in 3.5 (at most 18 restarts on 100 seeds), 24x24 shapes
#: one in 4, so the fallback is practically never reached up to 25x25; the cap only
#: bounds the time.
_FILL_ATTEMPTS = 100

#: Largest grid side checked by the oracle by default (see :func:`checker_backend`).
_ORACLE_MAX_SIDE = 9


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


def checker_backend(g: Geometry | None = None) -> str:
    """The backend for uniqueness checks on grids of geometry ``g``.

    The ``backtrack`` oracle up to 9x9, where it measured as fast as the sat backend
    or faster (most checks during clue removal find a second solution, and the sat
    backend spends extra work on those); ``sat`` for bigger grids, where the oracle
    takes seconds per check on nearly minimal puzzles (see docs/design.md). The
    oracle also when ``sat`` is not registered.
    """
    if "sat" not in REGISTRY or (g is not None and g.n <= _ORACLE_MAX_SIDE):
        return "backtrack"
    return "sat"


def _geometry(box: str | Geometry) -> Geometry:
    geometry = as_geometry(box)
    if geometry is None:
        raise BoxShapeError("generating needs a box shape, such as '3x3', not None")
    return geometry


def _rng(seed: int | None, rng: random.Random | None) -> random.Random:
    if rng is not None and seed is not None:
        raise ValueError("give seed or rng, not both")
    return rng if rng is not None else random.Random(seed)


# --------------------------------------------------------------------------- grids


def _assign(
    vals: list[int], cand: list[int], peers: tuple[tuple[int, ...], ...], i: int, v: int
) -> bool:
    """Place ``v`` at ``i`` and every naked single that follows, in place.

    Returns False on a contradiction (a cell left without candidates).
    """
    todo = [(i, v)]
    while todo:
        i, v = todo.pop()
        bit = 1 << (v - 1)
        if vals[i]:
            if vals[i] != v:
                return False
            continue
        if not cand[i] & bit:
            return False
        vals[i] = v
        cand[i] = bit
        for j in peers[i]:
            m = cand[j]
            if m & bit and not vals[j]:
                m &= ~bit
                if not m:
                    return False
                cand[j] = m
                if not m & (m - 1):
                    todo.append((j, m.bit_length()))
    return True


def _choice(vals: list[int], cand: list[int], rng: random.Random) -> tuple[int, list[int]]:
    """A random open cell among those with the fewest candidates, values shuffled."""
    fewest = len(vals) + 1
    cells: list[int] = []
    for i, m in enumerate(cand):
        if not vals[i]:
            k = m.bit_count()
            if k < fewest:
                fewest, cells = k, [i]
            elif k == fewest:
                cells.append(i)
    cell = rng.choice(cells)
    m = cand[cell]
    values = [d for d in range(1, m.bit_length() + 1) if m >> (d - 1) & 1]
    rng.shuffle(values)
    return cell, values


def _fill(g: Geometry, rng: random.Random) -> list[int] | None:
    """One randomized backtracking fill of the empty grid; None after too many nodes.

    Candidates are kept per cell and updated on each placement; naked singles are
    placed at once; the search branches on a random cell among those with the fewest
    candidates, trying its values in random order.
    """
    peers = g.peers
    vals = [0] * g.cells
    cand = [(1 << g.n) - 1] * g.cells
    stack = [(vals, cand, *_choice(vals, cand, rng))]
    nodes = 0
    while stack:
        vals, cand, cell, values = stack[-1]
        if not values:
            stack.pop()
            continue
        nodes += 1
        if nodes > _FILL_NODES:
            return None
        child_vals, child_cand = vals.copy(), cand.copy()
        if not _assign(child_vals, child_cand, peers, cell, values.pop()):
            continue
        if 0 not in child_vals:
            return child_vals
        stack.append((child_vals, child_cand, *_choice(child_vals, child_cand, rng)))
    return None


def _shuffle_symmetry(g: Geometry, cells: Sequence[int], rng: random.Random) -> list[int]:
    """Apply a uniformly random validity-preserving transformation of the grid."""
    n, br, bc = g.n, g.box_rows, g.box_cols
    bands = rng.sample(range(n // br), n // br)
    rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(n // bc), n // bc)
    cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    labels = [0, *rng.sample(range(1, n + 1), n)]
    out = [labels[cells[r * n + c]] for r in rows for c in cols]
    if br == bc and rng.random() < 0.5:
        out = [out[c * n + r] for r in range(n) for c in range(n)]
    return out


def _pattern(g: Geometry) -> list[int]:
    """The pattern grid ``(bc*(r % br) + r//br + c) % n + 1``, valid for any box shape.

    Each row is a cyclic shift; the shifts ``bc*(r % br) + r//br`` of the ``n`` rows are
    all different (so columns are valid), and within a band they step by ``bc``, so each
    box holds ``bc*a + d`` plus a constant for every ``a < br``, ``d < bc``: all values.
    """
    n, br, bc = g.n, g.box_rows, g.box_cols
    return [(bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n)]


def random_grid(g: Geometry, rng: random.Random) -> Puzzle:
    """A random complete grid of geometry ``g``, drawn with ``rng``, in bounded time.

    Up to a side of 25, a randomized backtracking fill, restarted when it hits its node
    cap, at most ``_FILL_ATTEMPTS`` times (see the module for how uniform it is). For
    bigger grids, where that fill stalls, and when every restart failed, the pattern
    grid (:func:`_pattern`) under a random validity-preserving symmetry: valid and
    reproducible from ``rng``, but *not* uniformly random (only images of one grid).
    """
    if g.n <= _FILL_MAX_SIDE:
        for _ in range(_FILL_ATTEMPTS):
            cells = _fill(g, rng)
            if cells is not None:
                return Puzzle(g, tuple(_shuffle_symmetry(g, cells, rng)))
    return Puzzle(g, tuple(_shuffle_symmetry(g, _pattern(g), rng)))


def generate_grid(
    box: str | Geometry = "3x3", *, seed: int | None = None, rng: random.Random | None = None
) -> Puzzle:
    """A random complete, valid grid of the given box shape, in bounded time.

    Grids with a side above 25 (and, practically never, a smaller grid whose random
    fill keeps stalling) are a shuffled pattern grid: valid but not uniformly random
    (see :func:`random_grid`).

    Args:
        box: box shape, ``"3x3"`` (9x9), ``"2x3"`` (6x6), ``"4x4"`` (16x16), ...
        seed: makes the result reproducible.
        rng: draw from this generator instead (for a reproducible sequence).

    >>> str(generate_grid("2x2", seed=7)) == str(generate_grid("2x2", seed=7))
    True
    """
    return random_grid(_geometry(box), _rng(seed, rng))


# --------------------------------------------------------------------------- puzzles


def orbits(g: Geometry, symmetry: Symmetry | str) -> list[tuple[int, ...]]:
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

    def __init__(self, g: Geometry, backend: Backend) -> None:
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
    ) -> list[int]:
        """Empty the orbits of ``order`` that keep the puzzle unique, down to ``clues``."""
        cells = list(solution)
        givens = len(cells)
        for orbit in order:
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


def _resolve_backend(backend: str | Backend | None, g: Geometry) -> Backend:
    if isinstance(backend, Backend):
        return backend
    return get_backend(backend or checker_backend(g))


def _check_targets(
    g: Geometry,
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


def generate_puzzle(
    box: str | Geometry = "3x3",
    *,
    clues: int | None = None,
    symmetry: Symmetry | str = Symmetry.NONE,
    difficulty: Grade | str | None = None,
    seed: int | None = None,
    rng: random.Random | None = None,
    backend: str | Backend | None = None,
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> GeneratedPuzzle:
    """One puzzle with exactly one solution.

    Args:
        box: box shape, e.g. ``"3x3"`` for 9x9 or ``"4x4"`` for 16x16.
        clues: stop removing at exactly this many clues; None (the default) removes
            until the puzzle is minimal (no clue, or orbit, can be removed).
        symmetry: ``"none"``, ``"rotational"`` (180 degrees) or ``"mirror"``.
        difficulty: a grade of :class:`cpsudoku.logic.Grade` (``"easy"`` ...
            ``"extreme"``); puzzles are generated and rated until one has it.
        seed: makes the result reproducible.
        rng: draw from this generator instead (for a reproducible sequence).
        backend: uniqueness checker, a spec or a Backend (default: :func:`checker_backend`).
        max_attempts: grids to try before a clue or difficulty target is given up.

    Raises:
        GenerationError: the clue count or difficulty was not reached in time.
        ValueError: an impossible argument (clues out of range, an odd clue count under
            a symmetry that pairs every cell, unknown grade).
    """
    g = _geometry(box)
    sym, grade = _check_targets(g, clues, symmetry, difficulty, max_attempts)
    random_ = _rng(seed, rng)
    remover = _Remover(g, _resolve_backend(backend, g))
    cell_orbits = orbits(g, sym)
    seen_grades: list[str] = []
    closest = g.cells
    for attempt in range(1, max_attempts + 1):
        solution = random_grid(g, random_)
        order = cell_orbits.copy()
        random_.shuffle(order)
        cells = remover.remove(solution.cells, order, clues)
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
            f"no {grade} puzzle in {max_attempts} attempt(s) (got: "
            f"{', '.join(sorted(set(seen_grades))) or 'none at the clue target'}); "
            "allow more attempts, or ask for a neighbouring grade"
        )
    raise GenerationError(
        f"no unique {g} puzzle with {clues} clues in {max_attempts} attempt(s) "
        f"(fewest reached: {closest}); allow more attempts or ask for more clues"
    )


def generate_puzzles(
    count: int = 1,
    box: str | Geometry = "3x3",
    *,
    clues: int | None = None,
    symmetry: Symmetry | str = Symmetry.NONE,
    difficulty: Grade | str | None = None,
    seed: int | None = None,
    backend: str | Backend | None = None,
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> Iterator[GeneratedPuzzle]:
    """``count`` puzzles, lazily; the same seed gives the same sequence.

    Takes the arguments of :func:`generate_puzzle`; one random generator seeded with
    ``seed`` drives the whole sequence. Arguments are checked at the call (a
    ValueError for an impossible target), the puzzles are made as they are asked for.

    >>> [str(p.puzzle) for p in generate_puzzles(2, "2x2", seed=1)] == [
    ...     str(p.puzzle) for p in generate_puzzles(2, "2x2", seed=1)
    ... ]
    True
    """
    g = _geometry(box)
    if count < 0:
        raise ValueError(f"count must be 0 or more, got {count}")
    _check_targets(g, clues, symmetry, difficulty, max_attempts)  # at once, not lazily

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
            )

    return puzzles()


# --------------------------------------------------------------------------- writing

#: Output suffixes the dataset writer knows.
DATASET_SUFFIXES = (".txt", ".csv", ".jsonl")


def write_dataset(
    items: Iterator[GeneratedPuzzle] | Sequence[GeneratedPuzzle],
    path: str | Path | None = None,
    *,
    stream: TextIO | None = None,
) -> int:
    """Write generated puzzles in a batch input format chosen by the suffix.

    ``.txt`` (also the form for standard output): one puzzle per line; ``.csv``: a
    header ``puzzle,solution`` (plus ``grade,score`` when rated); ``.jsonl``: one
    object per line with the same keys. Returns the number of puzzles written.

    A file is written as the puzzles come, into a temporary file next to it that
    replaces ``path`` only when every puzzle was written: a failed or interrupted run
    (say a :class:`GenerationError`) leaves an existing file as it was. A path that is
    not a regular file (a pipe, a device) is written directly.

    Raises:
        ValueError: an unknown suffix.
    """
    suffix = ".txt" if path is None else Path(path).suffix.lower()
    if suffix not in DATASET_SUFFIXES:
        raise ValueError(
            f"cannot tell the format of {path}: use a name ending in {', '.join(DATASET_SUFFIXES)}"
        )
    if path is None:
        with file_named("standard output"):
            return _write(items, suffix, stream or sys.stdout)
    target = Path(os.path.realpath(path))  # through a symlink: keep the link
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with file_named(path), target.open("w", encoding="utf-8", newline="") as fh:
            return _write(items, suffix, fh)
    temp, out = _open_temporary(target, path)
    try:
        with file_named(path), out:  # an error names the file asked for
            written = _write(items, suffix, out)
        if mode is not None:
            shutil.copymode(target, temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return written


def _open_temporary(target: Path, path: str | Path) -> tuple[Path, TextIO]:
    """A new hidden file next to ``target``, open for writing, and its path.

    Created with mode ``x`` (so the umask applies, as for a plain open) under a random
    name. An error names ``path``, the file asked for, not the temporary one.
    """
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return temp, temp.open("x", encoding="utf-8", newline="")
        except FileExistsError:
            continue
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(path)) from None


def _write(
    items: Iterator[GeneratedPuzzle] | Sequence[GeneratedPuzzle], suffix: str, out: TextIO
) -> int:
    written = 0
    writer = None
    for item in items:
        if suffix == ".txt":
            out.write(f"{item.puzzle}\n")
        elif suffix == ".jsonl":
            out.write(json.dumps(item.to_dict()) + "\n")
        else:
            record = item.to_dict()
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(record), lineterminator="\n")
                writer.writeheader()
            writer.writerow(record)
        written += 1
    if suffix == ".csv" and writer is None:
        out.write("puzzle,solution\n")
    out.flush()
    return written


def dataset_text(items: Sequence[GeneratedPuzzle], suffix: str = ".txt") -> str:
    """The dataset as text (for tests and small outputs)."""
    buffer = io.StringIO()
    _write(items, suffix, buffer)
    return buffer.getvalue()
