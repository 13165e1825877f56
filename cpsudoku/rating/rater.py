"""A logic solver that works like a person, and the difficulty rating built on it.

The solver keeps a *candidates grid*: for every empty cell the set of values still
possible, as a bitmask (bit ``d-1`` set when value ``d`` is possible). At each step it
takes the easiest technique that makes progress, in the order of :class:`Technique`:

- naked single: a cell with one candidate left;
- hidden single: a value with one place left in a row, column or box;
- locked candidates: pointing (a value's places in a box all lie in one row or
  column, so the rest of that line loses it) and claiming (a value's places in a line
  all lie in one box, so the rest of that box loses it);
- naked and hidden subsets: pairs, triples and quads;
- fish: X-wing, swordfish, jellyfish;
- XY-wing;
- trial placement (bifurcation), the last resort: on a cell with the fewest
  candidates each value is placed in turn on a copy of the grid and followed with
  singles and, when those are stuck, with further trial placements (recursively). A
  value whose trial ends in a contradiction on every way on is eliminated. Every cell
  with the fewest candidates is tried, simple trials (no nesting) first, and the
  easiest refutation is taken; see :class:`_TrialSearch`.

Every deduction is sound for any solution and trials eliminate only what they refute,
so the solver never relies on luck or on uniqueness: what it places is in every
solution, and it notices when a puzzle has no solution or several.

The rating (:func:`rate_puzzle`) is the ordered list of steps with explanations such
as ``r3c5 = 7: hidden single in box 2``, the hardest technique needed, a numeric score
and a grade (:class:`Grade`). The score is the weight of the hardest technique (on a
scale modelled on Sudoku Explainer's) plus small terms for how often hard techniques
and trials were needed; see :func:`score_of`.

Everything reads the rules from the rules' units, so any box shape works; the
fish need the row and column units, which every grid has.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import combinations

from cpsudoku.model.candidates import layout, place, singles_stepwise, start
from cpsudoku.model.errors import CpSudokuError, UnsupportedRulesError
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules

#: Trial placements allowed for one rating before it gives up (status ``timeout``).
DEFAULT_MAX_TRIALS = 20_000

#: Deepest nesting of trial placements before the rating gives up (keeps the
#: recursion far below Python's limit on big, nearly empty grids).
MAX_DEPTH = min(200, sys.getrecursionlimit() // 4)


class Technique(StrEnum):
    """The techniques, easiest first: the order in which the solver tries them."""

    NAKED_SINGLE = "naked single"
    HIDDEN_SINGLE = "hidden single"
    POINTING = "locked candidates (pointing)"
    CLAIMING = "locked candidates (claiming)"
    NAKED_PAIR = "naked pair"
    X_WING = "x-wing"
    HIDDEN_PAIR = "hidden pair"
    NAKED_TRIPLE = "naked triple"
    SWORDFISH = "swordfish"
    HIDDEN_TRIPLE = "hidden triple"
    XY_WING = "xy-wing"
    NAKED_QUAD = "naked quad"
    JELLYFISH = "jellyfish"
    HIDDEN_QUAD = "hidden quad"
    TRIAL = "trial placement"

    @property
    def weight(self) -> float:
        """Difficulty weight; the score of a puzzle starts from its hardest technique's."""
        return _WEIGHTS[self]


#: Weights modelled on Sudoku Explainer's scale (hidden single 1.2-1.5, pointing 2.6,
#: claiming 2.8, naked pair 3.0, X-wing 3.2, hidden pair 3.4, naked triple 3.6,
#: swordfish 3.8, hidden triple 4.0, XY-wing 4.2, naked quad 5.0, jellyfish 5.2,
#: hidden quad 5.4). Naked single sits lowest because this solver keeps candidates,
#: which makes it the most visible technique. Trial placement stands for everything
#: beyond (chains, forcing nets), which Sudoku Explainer rates 6.5 and up.
_WEIGHTS: dict[Technique, float] = {
    Technique.NAKED_SINGLE: 1.0,
    Technique.HIDDEN_SINGLE: 1.2,
    Technique.POINTING: 2.6,
    Technique.CLAIMING: 2.8,
    Technique.NAKED_PAIR: 3.0,
    Technique.X_WING: 3.2,
    Technique.HIDDEN_PAIR: 3.4,
    Technique.NAKED_TRIPLE: 3.6,
    Technique.SWORDFISH: 3.8,
    Technique.HIDDEN_TRIPLE: 4.0,
    Technique.XY_WING: 4.2,
    Technique.NAKED_QUAD: 5.0,
    Technique.JELLYFISH: 5.2,
    Technique.HIDDEN_QUAD: 5.4,
    Technique.TRIAL: 6.0,
}


class Grade(StrEnum):
    """Difficulty grades by score; :attr:`min_score` is where each grade's range starts.

    ========  ============  ==================================================
    grade     score         needs
    ========  ============  ==================================================
    easy      below 2.0     singles only
    medium    2.0 - 3.0     locked candidates
    hard      3.0 - 5.0     pairs, triples, X-wing, swordfish, XY-wing
    expert    5.0 - 8.0     quads, jellyfish, or a few short trial placements
    extreme   8.0 and up    many, long or nested trial placements
    ========  ============  ==================================================

    Without trial placement the grade follows from the hardest technique alone; trial
    placement scores 6.0 and up (see :func:`score_of`).
    """

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"
    EXTREME = "extreme"

    @property
    def min_score(self) -> float:
        """The lowest score of this grade."""
        return _GRADE_LOWER[self]

    @classmethod
    def of(cls, score: float) -> Grade:
        """The grade of a score."""
        grade = cls.EASY
        for g in cls:
            if score >= g.min_score:
                grade = g
        return grade


_GRADE_LOWER: dict[Grade, float] = {
    Grade.EASY: 0.0,
    Grade.MEDIUM: 2.0,
    Grade.HARD: 3.0,
    Grade.EXPERT: 5.0,
    Grade.EXTREME: 8.0,
}


class ContradictionError(CpSudokuError):
    """The candidates grid admits no solution (a cell or a value has no place left)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One deduction: what it places or eliminates, and why.

    Attributes:
        technique: the technique that found it.
        placements: ``(cell, value)`` pairs it fills in.
        eliminations: ``(cell, value)`` candidates it removes.
        text: the explanation, e.g. ``"r3c5 = 7: hidden single in box 2"``; the effect
            comes first, then the reason.
    """

    technique: Technique
    placements: tuple[tuple[int, int], ...]
    eliminations: tuple[tuple[int, int], ...]
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Rating:
    """How a puzzle is solved by logic, and how hard that is.

    Attributes:
        puzzle: the rated puzzle.
        status: ``unique`` when rated; ``unsolvable`` or ``multiple`` when the puzzle is
            not a proper Sudoku (then there is no score or grade); ``timeout`` when the
            trial budget ran out.
        steps: the ordered steps, each with its explanation.
        solution: the solution (for ``unique``), else None.
        hardest: the hardest technique used, None when no step was needed.
        counts: steps per technique.
        trials: trial placements in the refutations behind the trial steps, nested ones
            included (0 without trial placement).
        depth: deepest nesting of trial placements inside a refutation (1 when every
            refuted value fails by singles alone; 0 without trial placement).
        chain: single steps followed inside the refutations, all trials together.
        score: the numeric difficulty (see :func:`score_of`), None unless ``unique``.
        grade: the grade of the score, None unless ``unique``.
        invalid: why the input could not be rated at all (it is no puzzle), else None.
    """

    puzzle: Puzzle | None
    status: Status
    steps: tuple[Step, ...] = ()
    solution: Puzzle | None = None
    hardest: Technique | None = None
    counts: Mapping[Technique, int] = field(default_factory=dict)
    trials: int = 0
    depth: int = 0
    chain: int = 0
    score: float | None = None
    grade: Grade | None = None
    invalid: str | None = None

    @classmethod
    def of_invalid(cls, error: str) -> Rating:
        """The rating of an input that is no puzzle: nothing rated, and why."""
        return cls(None, Status.INVALID, invalid=error)

    @property
    def error(self) -> str | None:
        """Why there is no grade: the input is no puzzle, or no proper one; else None."""
        if self.invalid is not None:
            return self.invalid
        return _NOT_RATED.get(self.status)

    def to_dict(self, *, steps: bool = False) -> dict[str, object]:
        """The JSON form of ``cpsudoku rate --json`` (step texts only with ``steps``).

        The same keys whatever the outcome, ``error`` saying why there is no grade.
        """
        if self.invalid is not None:
            out = dict.fromkeys(_RATING_KEYS)
            out.update(status=str(self.status), error=self.invalid)
            return out
        out = {
            "puzzle": str(self.puzzle),
            "status": str(self.status),
            "grade": None if self.grade is None else str(self.grade),
            "score": self.score,
            "hardest": None if self.hardest is None else str(self.hardest),
            "techniques": {str(t): k for t, k in self.counts.items()},
            "trials": self.trials,
            "depth": self.depth,
            "chain": self.chain,
            "solution": None if self.solution is None else str(self.solution),
            "error": self.error,
        }
        if steps:
            out["steps"] = [s.text for s in self.steps]
        return out


#: The keys of a rating's JSON form, in order.
_RATING_KEYS = (
    "puzzle",
    "status",
    "grade",
    "score",
    "hardest",
    "techniques",
    "trials",
    "depth",
    "chain",
    "solution",
    "error",
)

#: Why a puzzle of these statuses has no grade.
_NOT_RATED = {
    Status.UNSOLVABLE: "it has no solution",
    Status.MULTIPLE: "it has several solutions; only a proper puzzle rates",
    Status.TIMEOUT: "gave up: too many trial placements",
}


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class _Tables:
    """Everything the techniques need about a set of rules, computed once per rules."""

    n: int
    full: int
    unit_cells: tuple[tuple[int, ...], ...]
    unit_names: tuple[str, ...]
    units_of: tuple[tuple[int, ...], ...]
    peers: tuple[tuple[int, ...], ...]
    peer_sets: tuple[frozenset[int], ...]
    #: Units in the order hidden singles and subsets are looked for: boxes first.
    scan_order: tuple[int, ...]
    #: (a, b, a∩b, a-b, b-a) for units a (a box) and b (a line) sharing >= 2 cells.
    pointing: tuple[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]
    #: The same with a a line and b a box.
    claiming: tuple[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]
    rows: tuple[tuple[int, ...], ...]
    cols: tuple[tuple[int, ...], ...]


_KIND_ORDER = {"box": 0, "row": 1, "column": 2}


@lru_cache(maxsize=64)  # a jigsaw or killer dataset has rules per puzzle
def _tables(g: Rules) -> _Tables:
    units = g.units
    kinds = [u.kind for u in units]
    scan_order = tuple(sorted(range(len(units)), key=lambda k: (_KIND_ORDER.get(kinds[k], 3), k)))
    pointing: list[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
    claiming: list[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
    cell_sets = [set(c) for c in g.unit_cells]
    for a, ca in enumerate(g.unit_cells):
        for b, cb in enumerate(g.unit_cells):
            if a == b or kinds[a] == kinds[b]:
                continue
            inter = cell_sets[a] & cell_sets[b]
            if len(inter) < 2:
                continue
            entry = (
                a,
                b,
                tuple(i for i in ca if i in inter),
                tuple(i for i in ca if i not in inter),
                tuple(i for i in cb if i not in inter),
            )
            (pointing if kinds[a] == "box" else claiming).append(entry)
    return _Tables(
        n=g.n,
        full=(1 << g.n) - 1,
        unit_cells=g.unit_cells,
        unit_names=tuple(str(u) for u in units),
        units_of=g.units_of,
        peers=g.peers,
        peer_sets=tuple(frozenset(p) for p in g.peers),
        scan_order=scan_order,
        pointing=tuple(pointing),
        claiming=tuple(claiming),
        rows=tuple(u.cells for u in units[: g.n]),  # the units open with the rows
        cols=tuple(u.cells for u in units[g.n : 2 * g.n]),  # and the columns (by place:
        # an extra region may be called anything)
    )


# --------------------------------------------------------------------------- state


class Candidates:
    """The candidates grid: placed values, and the candidates of every empty cell.

    Build it from a puzzle (candidates are the values no peer holds), then let
    :meth:`find` look for a technique or :meth:`next_step` for the easiest one, and
    :meth:`apply` the step. Tests build special situations with :meth:`eliminate`.
    """

    __slots__ = ("cand", "empty", "layout", "rules", "tables", "used", "vals")

    def __init__(self, puzzle: Puzzle) -> None:
        """Start from the givens of ``puzzle`` (which must not clash)."""
        g = puzzle.rules
        self.rules = g
        self.tables = _tables(g)
        self.layout = layout(g)
        self.vals, self.cand, self.used = start(self.layout, puzzle.cells)
        self.empty = self.vals.count(0)

    def copy(self) -> Candidates:
        """An independent copy (for a trial placement)."""
        other = Candidates.__new__(Candidates)
        other.rules = self.rules
        other.tables = self.tables
        other.layout = self.layout
        other.vals = self.vals.copy()
        other.used = self.used.copy()
        other.cand = self.cand.copy()
        other.empty = self.empty
        return other

    def candidates(self, i: int) -> set[int]:
        """The values still possible in cell ``i`` (empty for a filled cell)."""
        return set(_values(self.cand[i]))

    def place(self, i: int, v: int) -> None:
        """Fill cell ``i`` with ``v`` and remove ``v`` from the candidates of its peers."""
        place(self.layout, self.vals, self.cand, self.used, i, v)
        self.empty -= 1

    def eliminate(self, i: int, v: int) -> None:
        """Remove candidate ``v`` from cell ``i``."""
        self.cand[i] &= ~(1 << (v - 1))

    def apply(self, step: Step) -> None:
        """Carry out a step's eliminations and placements."""
        for i, v in step.eliminations:
            self.eliminate(i, v)
        for i, v in step.placements:
            self.place(i, v)

    def find(self, technique: Technique) -> Step | None:
        """The first step ``technique`` finds here, or None.

        Trial placement is not found this way (it is a search, see :func:`rate_puzzle`).

        Raises:
            ContradictionError: the grid has no solution (noticed while looking).
        """
        return _FINDERS[technique](self.tables, self)

    def next_step(self, techniques: int | None = None) -> Step | None:
        """The step of the easiest technique that makes progress, or None when stuck.

        Args:
            techniques: use only the first this many techniques (all when None).

        Raises:
            ContradictionError: the grid has no solution.
        """
        t = self.tables
        for finder in _FINDER_ORDER[:techniques]:
            step = finder(t, self)
            if step is not None:
                return step
        return None

    def to_puzzle(self) -> Puzzle:
        """The placed values as a Puzzle (0 where still empty)."""
        return Puzzle(self.rules, tuple(self.vals))


# --------------------------------------------------------------------------- text


def cell_name(n: int, i: int) -> str:
    """The ``r3c5`` name of cell ``i`` (1-based row and column)."""
    return f"r{i // n + 1}c{i % n + 1}"


def _values(mask: int) -> Iterator[int]:
    while mask:
        bit = mask & -mask
        mask ^= bit
        yield bit.bit_length()


def _set_text(mask: int) -> str:
    return "{" + ", ".join(map(str, _values(mask))) + "}"


def _cells_text(n: int, cells: Sequence[int]) -> str:
    return ", ".join(cell_name(n, i) for i in cells)


def _elims_text(n: int, elims: Sequence[tuple[int, int]]) -> str:
    """``r1c1, r1c2 <> 3; r4c4 <> 3, 5``: cells grouped by the values they lose."""
    per_cell: dict[int, list[int]] = {}
    for i, v in elims:
        per_cell.setdefault(i, []).append(v)
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, vs in per_cell.items():
        groups.setdefault(tuple(sorted(vs)), []).append(i)
    return "; ".join(
        f"{_cells_text(n, cells)} <> {', '.join(map(str, vs))}" for vs, cells in groups.items()
    )


# --------------------------------------------------------------------------- techniques


def _naked_single(t: _Tables, s: Candidates) -> Step | None:
    vals, cand = s.vals, s.cand
    for i, m in enumerate(cand):
        if m and not m & (m - 1):
            v = m.bit_length()
            return Step(
                Technique.NAKED_SINGLE, ((i, v),), (), f"{cell_name(t.n, i)} = {v}: naked single"
            )
        if not m and not vals[i]:
            raise ContradictionError(f"{cell_name(t.n, i)} has no candidate left")
    return None


def _hidden_single(t: _Tables, s: Candidates) -> Step | None:
    cand, used, full = s.cand, s.used, t.full
    for u in t.scan_order:
        cells = t.unit_cells[u]
        once = twice = 0
        for i in cells:
            m = cand[i]
            twice |= once & m
            once |= m
        missing = full & ~used[u]
        if missing & ~once:
            v = (missing & ~once & -(missing & ~once)).bit_length()
            raise ContradictionError(f"{v} has no place left in {t.unit_names[u]}")
        hidden = once & ~twice & missing
        if hidden:
            bit = hidden & -hidden
            i = next(i for i in cells if cand[i] & bit)
            v = bit.bit_length()
            return Step(
                Technique.HIDDEN_SINGLE,
                ((i, v),),
                (),
                f"{cell_name(t.n, i)} = {v}: hidden single in {t.unit_names[u]}",
            )
    return None


def _locked(
    t: _Tables,
    s: Candidates,
    table: tuple[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...],
    technique: Technique,
) -> Step | None:
    cand = s.cand
    for a, b, inter, a_only, b_only in table:
        inside = 0
        for i in inter:
            inside |= cand[i]
        if not inside:
            continue
        for i in a_only:
            inside &= ~cand[i]
        if not inside:
            continue
        out_b = 0
        for i in b_only:
            out_b |= cand[i]
        hit = inside & out_b
        if hit:
            bit = hit & -hit
            v = bit.bit_length()
            elims = tuple((i, v) for i in b_only if cand[i] & bit)
            return Step(
                technique,
                (),
                elims,
                f"{_elims_text(t.n, elims)}: {technique}: in {t.unit_names[a]}, "
                f"{v} lies only in {t.unit_names[b]}",
            )
    return None


def _pointing(t: _Tables, s: Candidates) -> Step | None:
    return _locked(t, s, t.pointing, Technique.POINTING)


def _claiming(t: _Tables, s: Candidates) -> Step | None:
    return _locked(t, s, t.claiming, Technique.CLAIMING)


def _naked_subset(t: _Tables, s: Candidates, k: int, technique: Technique) -> Step | None:
    cand = s.cand
    for u in t.scan_order:
        open_cells = [i for i in t.unit_cells[u] if cand[i]]
        if len(open_cells) <= k:
            continue
        small = [i for i in open_cells if cand[i].bit_count() <= k]
        for combo in combinations(small, k):
            m = 0
            for i in combo:
                m |= cand[i]
            size = m.bit_count()
            if size < k:
                raise ContradictionError(
                    f"{_cells_text(t.n, combo)} share only the values {_set_text(m)}"
                )
            if size > k:
                continue
            elims = tuple(
                (j, v) for j in open_cells if j not in combo for v in _values(cand[j] & m)
            )
            if elims:
                return Step(
                    technique,
                    (),
                    elims,
                    f"{_elims_text(t.n, elims)}: {technique} {_set_text(m)} in "
                    f"{_cells_text(t.n, combo)} ({t.unit_names[u]})",
                )
    return None


def _hidden_subset(t: _Tables, s: Candidates, k: int, technique: Technique) -> Step | None:
    cand, used, full = s.cand, s.used, t.full
    for u in t.scan_order:
        cells = t.unit_cells[u]
        missing = full & ~used[u]
        if missing.bit_count() <= k:
            continue
        where: dict[int, int] = {}
        for p, i in enumerate(cells):
            for v in _values(cand[i]):
                where[v] = where.get(v, 0) | 1 << p
        values = [v for v in _values(missing) if 2 <= where.get(v, 0).bit_count() <= k]
        for combo in combinations(values, k):
            places = 0
            vmask = 0
            for v in combo:
                places |= where[v]
                vmask |= 1 << (v - 1)
            if places.bit_count() != k:
                continue  # fewer than k is a contradiction the hidden singles report
            spots = [cells[p] for p in range(len(cells)) if places >> p & 1]
            elims = tuple((i, v) for i in spots for v in _values(cand[i] & ~vmask))
            if elims:
                return Step(
                    technique,
                    (),
                    elims,
                    f"{_elims_text(t.n, elims)}: {technique} {_set_text(vmask)} in "
                    f"{_cells_text(t.n, spots)} ({t.unit_names[u]})",
                )
    return None


def _fish(t: _Tables, s: Candidates, k: int, technique: Technique) -> Step | None:
    cand, n = s.cand, t.n
    if len(t.rows) != n or len(t.cols) != n:
        return None
    for v in range(1, n + 1):
        bit = 1 << (v - 1)
        for base, cover, base_word, cover_word in (
            (t.rows, t.cols, "rows", "columns"),
            (t.cols, t.rows, "columns", "rows"),
        ):
            lines = []
            for li, cells in enumerate(base):
                m = 0
                for p, i in enumerate(cells):
                    if cand[i] & bit:
                        m |= 1 << p
                if 2 <= m.bit_count() <= k:
                    lines.append((li, m))
            for combo in combinations(lines, k):
                union = 0
                for _, m in combo:
                    union |= m
                if union.bit_count() != k:
                    continue
                chosen = {li for li, _ in combo}
                covers = [p for p in range(n) if union >> p & 1]
                elims = tuple(
                    (cover[p][q], v)
                    for p in covers
                    for q in range(n)
                    if q not in chosen and cand[cover[p][q]] & bit
                )
                if elims:
                    return Step(
                        technique,
                        (),
                        elims,
                        f"{_elims_text(n, elims)}: {technique} on {v} in {base_word} "
                        f"{', '.join(str(li + 1) for li in sorted(chosen))} and {cover_word} "
                        f"{', '.join(str(p + 1) for p in covers)}",
                    )
    return None


def _xy_wing(t: _Tables, s: Candidates) -> Step | None:
    cand, n = s.cand, t.n
    for p, cp in enumerate(cand):
        if cp.bit_count() != 2:
            continue
        wings = [
            a for a in t.peers[p] if cand[a].bit_count() == 2 and (cand[a] & cp).bit_count() == 1
        ]
        for a, b in combinations(wings, 2):
            ca, cb = cand[a], cand[b]
            z = ca & ~cp
            if z != cb & ~cp or ca & cp == cb & cp:
                continue
            v = z.bit_length()
            common = t.peer_sets[a] & t.peer_sets[b]
            elims = tuple((i, v) for i in sorted(common) if cand[i] & z)
            if elims:
                return Step(
                    Technique.XY_WING,
                    (),
                    elims,
                    f"{_elims_text(n, elims)}: xy-wing with pivot {cell_name(n, p)} "
                    f"{_set_text(cp)} and pincers {cell_name(n, a)} {_set_text(ca)}, "
                    f"{cell_name(n, b)} {_set_text(cb)}",
                )
    return None


def _subset_finder(
    fn: Callable[[_Tables, Candidates, int, Technique], Step | None], k: int, technique: Technique
) -> Callable[[_Tables, Candidates], Step | None]:
    def finder(t: _Tables, s: Candidates) -> Step | None:
        return fn(t, s, k, technique)

    return finder


_FINDERS: dict[Technique, Callable[[_Tables, Candidates], Step | None]] = {
    Technique.NAKED_SINGLE: _naked_single,
    Technique.HIDDEN_SINGLE: _hidden_single,
    Technique.POINTING: _pointing,
    Technique.CLAIMING: _claiming,
    Technique.NAKED_PAIR: _subset_finder(_naked_subset, 2, Technique.NAKED_PAIR),
    Technique.X_WING: _subset_finder(_fish, 2, Technique.X_WING),
    Technique.HIDDEN_PAIR: _subset_finder(_hidden_subset, 2, Technique.HIDDEN_PAIR),
    Technique.NAKED_TRIPLE: _subset_finder(_naked_subset, 3, Technique.NAKED_TRIPLE),
    Technique.SWORDFISH: _subset_finder(_fish, 3, Technique.SWORDFISH),
    Technique.HIDDEN_TRIPLE: _subset_finder(_hidden_subset, 3, Technique.HIDDEN_TRIPLE),
    Technique.XY_WING: _xy_wing,
    Technique.NAKED_QUAD: _subset_finder(_naked_subset, 4, Technique.NAKED_QUAD),
    Technique.JELLYFISH: _subset_finder(_fish, 4, Technique.JELLYFISH),
    Technique.HIDDEN_QUAD: _subset_finder(_hidden_subset, 4, Technique.HIDDEN_QUAD),
}

_FINDER_ORDER = tuple(_FINDERS[t] for t in Technique if t in _FINDERS)


# --------------------------------------------------------------------------- search


class _OutOfBudgetError(Exception):
    """The trial budget or the nesting limit ran out."""


#: Outcomes of following a trial: every way on contradicts; a complete grid was
#: reached; or the nesting limit stopped the search first (neither proven).
_REFUTED, _SOLVED, _OPEN = "refuted", "solved", "open"


@dataclass(slots=True)
class _Trial:
    """The trial placements on one cell: which values they refuted, and at what cost."""

    cell: int
    refuted: list[int] = field(default_factory=list)
    solved: int = 0  # values whose trial reached a complete grid
    open: int = 0  # values neither refuted nor solved within the nesting limit
    cost: int = 0  # trial placements inside the refutations, the first ones included
    length: int = 0  # single steps inside the refutations (how long the chains are)
    depth: int = 0  # deepest nesting inside the refutations (1 = no nested trial)


def _singles(s: Candidates) -> tuple[int, bool]:
    """Place naked and hidden singles until none is left (no steps recorded).

    Inside trials only the consequences matter, not their explanations; but the
    number of singles placed before a contradiction is the chain length the score
    counts, and it depends on the order: :func:`singles_stepwise` places them in one
    fixed order (see there), not the oracle's faster :func:`singles`.

    Returns:
        (values placed, whether a contradiction turned up).
    """
    placed, dead = singles_stepwise(s.layout, s.vals, s.cand, s.used)
    s.empty -= placed
    return placed, dead


class _TrialSearch:
    """Trial placements, applied recursively, on the cells with the fewest candidates.

    A trial places a value on a copy of the grid and follows it with singles; when
    those are stuck it places a value again (nested), on the copy's cell with the
    fewest candidates, trying each of its values. The trial *refutes* its value when
    every way on ends in a contradiction; it stops as soon as one way reaches a
    complete grid (the value is then possible) or the nesting limit.

    At a stuck point of the main solve, every cell with the fewest candidates is
    tried, every value of it, first without nested trials, then allowing one level
    of nesting, then two, and so on (iterative deepening: the simplest trials
    first, and the nesting reported is the least that works). At the first limit
    where some refutation exists, the cell whose refutations take the
    fewest trial placements (then the shortest chains) wins and its refuted values
    are eliminated. That makes the result largely independent of luck and of cell
    and value order, and names the easiest trial a person could make. Two values of one cell
    that both reach a complete grid prove several solutions; a cell whose values are
    all refuted proves there is none.
    """

    def __init__(self, max_trials: int) -> None:
        self.max_trials = max_trials
        self.placements = 0  # every trial placement made, for the budget

    def _place(self, s: Candidates, cell: int, v: int) -> Candidates:
        self.placements += 1
        if self.placements > self.max_trials:
            raise _OutOfBudgetError
        child = s.copy()
        child.place(cell, v)
        return child

    def follow(self, s: Candidates, level: int, limit: int) -> tuple[str, int, int, int]:
        """Follow ``s`` with singles, and nested trials up to ``limit`` levels deep.

        Returns:
            (outcome, trial placements, single steps, nesting of trials) inside.
        """
        length, dead = _singles(s)
        if dead:
            return _REFUTED, 0, length, 0
        if not s.empty:
            return _SOLVED, 0, length, 0
        if level >= limit:
            return _OPEN, 0, length, 0
        cand = s.cand
        cell = min((i for i, m in enumerate(cand) if m), key=lambda i: cand[i].bit_count())
        cost = nesting = 0
        for v in _values(cand[cell]):
            child = self._place(s, cell, v)
            outcome, placements, inner_length, inner = self.follow(child, level + 1, limit)
            cost += 1 + placements
            length += inner_length
            nesting = max(nesting, 1 + inner)
            if outcome != _REFUTED:
                return outcome, cost, length, nesting
        return _REFUTED, cost, length, nesting

    def trial(self, s: Candidates, cell: int, limit: int) -> _Trial:
        """Try every value of ``cell``, nesting up to ``limit`` levels deep."""
        found = _Trial(cell)
        for v in _values(s.cand[cell]):
            outcome, placements, length, nesting = self.follow(self._place(s, cell, v), 1, limit)
            if outcome == _REFUTED:
                found.refuted.append(v)
                found.cost += 1 + placements
                found.length += length
                found.depth = max(found.depth, 1 + nesting)
            elif outcome == _SOLVED:
                found.solved += 1
            else:
                found.open += 1
        return found

    def best_trial(self, s: Candidates) -> _Trial:
        """The easiest refutation among the cells with the fewest candidates.

        Returns a trial with refuted values and at least one value left, or one
        proving the grid has no solution (nothing left) or several (two values
        solved); see the class docstring.
        """
        cand = s.cand
        fewest = min(m.bit_count() for m in cand if m)
        cells = [i for i, m in enumerate(cand) if m.bit_count() == fewest]
        for limit in range(1, MAX_DEPTH + 1):
            best: _Trial | None = None
            for cell in cells:
                found = self.trial(s, cell, limit)
                if found.solved >= 2 or not found.solved + found.open:
                    return found
                if found.refuted and (best is None or _easier(found, best)):
                    best = found
            if best is not None:
                return best
        raise _OutOfBudgetError  # even MAX_DEPTH levels of nesting settled nothing


def _easier(a: _Trial, b: _Trial) -> bool:
    """True when trial ``a`` is easier than ``b``: fewer placements, shorter chains."""
    return (a.cost, -len(a.refuted), a.length) < (b.cost, -len(b.refuted), b.length)


def _trial_text(n: int, found: _Trial) -> str:
    plural = len(found.refuted) > 1
    return (
        f"{_elims_text(n, [(found.cell, v) for v in found.refuted])}: trial "
        f"placement{'s' * plural} lead{'' if plural else 's'} to "
        f"{'contradictions' if plural else 'a contradiction'} ({found.cost} trial "
        f"placement{'s' * (found.cost != 1)}, nested {found.depth} deep)"
    )


def score_of(
    counts: Mapping[Technique, int], trials: int = 0, depth: int = 0, chain: int = 0
) -> float:
    """The numeric difficulty of a solve path.

    Without trial placement: the weight of the hardest technique, plus 0.01 for each
    step above singles (at most 0.19, so the bonus never lifts a puzzle into the next
    grade), so that among puzzles needing the same hardest technique the ones needing
    hard steps more often come out harder.

    With trial placement: ``6 + 0.5*log2(trials) + (depth - 1) + 0.25*log2(1 + chain)``:
    each doubling of the trial placements adds 0.5, each level of nesting inside a
    refutation adds 1, and longer chains of singles to the contradictions add a
    little (the length of a chain is what Sudoku Explainer rates its chains by). The
    weights were chosen on the two rated datasets (``benchmarks/rating_correlation.py``)
    among round values: trial counts track the Kaggle ratings best, chain lengths the
    Sudoku Explainer ones.

    >>> score_of({Technique.HIDDEN_SINGLE: 50})
    1.2
    >>> score_of({Technique.TRIAL: 1}, trials=1, depth=1, chain=3)
    6.5
    """
    if trials:
        return round(
            6.0 + 0.5 * math.log2(trials) + max(0, depth - 1) + 0.25 * math.log2(1 + chain), 2
        )
    used = [t for t, k in counts.items() if k]
    if not used:
        return 0.0
    hardest = max(t.weight for t in used)
    advanced = sum(k for t, k in counts.items() if t.weight > Technique.HIDDEN_SINGLE.weight)
    return round(hardest + min(0.19, 0.01 * advanced), 2)


def rate_puzzle(puzzle: Puzzle, *, max_trials: int = DEFAULT_MAX_TRIALS) -> Rating:
    """Solve ``puzzle`` like a person and rate how hard that is.

    Works on any consistent puzzle: one with no solution or several comes back with
    status ``unsolvable`` or ``multiple`` (proven by the trials themselves), and
    status ``timeout`` when more than ``max_trials`` trial placements would be needed.
    On big, nearly empty grids that proof is slow: :func:`rate` checks uniqueness
    with a solver first.

    Raises:
        ConflictingGivensError: two givens clash.
        UnsupportedRulesError: the rules have constraints beyond no-repeat regions.
    """
    refuse_constraints(puzzle.rules)
    puzzle.check()
    s = Candidates(puzzle)
    n = puzzle.n
    search = _TrialSearch(max_trials)
    steps: list[Step] = []
    trials = depth = chain = 0
    status = Status.UNIQUE
    try:
        while s.empty:
            try:
                step = s.next_step()
            except ContradictionError:
                status = Status.UNSOLVABLE
                break
            if step is None:
                found = search.best_trial(s)
                if found.solved >= 2:
                    status = Status.MULTIPLE
                    break
                if not found.solved + found.open:
                    status = Status.UNSOLVABLE
                    break
                trials += found.cost
                chain += found.length
                depth = max(depth, found.depth)
                elims = tuple((found.cell, v) for v in found.refuted)
                step = Step(Technique.TRIAL, (), elims, _trial_text(n, found))
            s.apply(step)
            steps.append(step)
    except _OutOfBudgetError:
        status = Status.TIMEOUT
    counts = Counter(step.technique for step in steps)
    ordered = {t: counts[t] for t in Technique if counts[t]}
    hardest = max(ordered, key=lambda t: t.weight, default=None)
    if status is not Status.UNIQUE:
        return Rating(puzzle, status, tuple(steps), None, hardest, ordered, trials, depth, chain)
    score = score_of(ordered, trials, depth, chain)
    return Rating(
        puzzle,
        status,
        tuple(steps),
        s.to_puzzle(),
        hardest,
        ordered,
        trials,
        depth,
        chain,
        score,
        Grade.of(score),
    )


def refuse_constraints(rules: Rules) -> None:
    """Raise UnsupportedRulesError for rules with constraints (cages, lines, dots...).

    The techniques reason on no-repeat regions only (rows, columns, boxes, jigsaw and
    extra regions): on a killer they would see a puzzle with many solutions and call
    it ``multiple``. Refused by name instead, as an engine refuses a rule it lacks.
    """
    if rules.constraints:
        kinds = ", ".join(sorted({c.kind for c in rules.constraints}))
        raise UnsupportedRulesError(
            f"the rater reasons with no-repeat regions only; it cannot rate {kinds} constraints"
        )


def rate(
    puzzle: PuzzleLike,
    *,
    box: str | Rules | None = None,
    backend: str | None = None,
    max_trials: int = DEFAULT_MAX_TRIALS,
) -> Rating:
    """Rate a puzzle given in any form :func:`cpsudoku.parse` accepts.

    A solver (``backend``; by default the one generation uses, see
    :func:`cpsudoku.engines.uniqueness_checker`) first counts the solutions up to two,
    so a puzzle with none or several comes back at once with status ``unsolvable`` or
    ``multiple`` and no score; otherwise the puzzle is solved and rated by
    :func:`rate_puzzle`.

    Raises:
        PuzzleError: the puzzle is malformed or its givens clash.
        UnsupportedRulesError: the rules have constraints beyond no-repeat regions.

    >>> r = rate("1.343..2.3..2..3")
    >>> r.grade, r.steps[0].text
    (<Grade.EASY: 'easy'>, 'r1c2 = 2: naked single')
    """
    from cpsudoku.engines import call_scope, get_backend, uniqueness_checker

    parsed = parse(puzzle, box)
    refuse_constraints(parsed.rules)
    with call_scope():  # a portfolio's processes end with the count
        found = get_backend(backend or uniqueness_checker(parsed.rules)).count(parsed, limit=2)
    if found.count != 1:
        status = Status.UNSOLVABLE if found.count == 0 else Status.MULTIPLE
        return Rating(parsed, status)
    return rate_puzzle(parsed, max_trials=max_trials)
