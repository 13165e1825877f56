"""Whole-array logic pass: singles and locked candidates on a block of puzzles at once.

Most puzzles of the datasets users batch-solve (the Kaggle 1M and 9M files, generated
puzzle banks) fall to naked and hidden singles alone. A puzzle completed by sound
deductions has a forced, hence unique, solution, so it needs no search and no second
solve. This module decides such puzzles for a whole block with numpy operations, with
no Python loop per puzzle or per cell, and leaves the rest (``UNDECIDED``) to an engine.
Puzzles that singles leave stuck also get locked candidates (pointing and claiming),
which finish half of those among the 17-clue puzzles; the easy ones never pay for it.

Representation (see docs/design.md, "Whole-array logic pass"):

- A block is worked on *transposed*: ``(cells, puzzles)``, so every operation on one
  cell, or on one unit position, is a long contiguous vector over the puzzles.
- A cell's state is a bitmask (bit ``d-1`` = value ``d``) in the narrowest unsigned
  type that holds ``n`` bits (uint8 up to n = 8, then uint16, uint32, uint64); for
  n > 64 the masks are Python integers in object arrays: correct, but slow.
- ``placed`` holds the bit of each filled cell (0 if open). Each round rebuilds the
  units' used values from it, derives every open cell's candidates, places all naked
  and hidden singles at once, and drops finished puzzles from the working set. A
  puzzle for which a round places nothing gets one step of locked candidates; the
  candidates it removes go to ``banned``, and the puzzle stays in play if any did.
- The rules are data: units and the units of each cell come from
  :attr:`Rules.unit_cells` and :attr:`Rules.units_of`, never from row/column/box
  arithmetic.

Contradictions (an open cell without candidates, a value with no place left in a
unit, a cell that is the only place for two values, two placements of one value in a
unit) make a puzzle ``UNSOLVABLE``; a clash among the givens themselves is
``CONFLICT``, which the caller reports as ``invalid``.

>>> from cpsudoku.model.rules import Rules
>>> g = Rules.classic(2, 2)
>>> values, ok = parse_block(["1.343..2.3..2..3", "12..", "11.............."], g)
>>> ok.tolist()
[True, False, True]
>>> result = presolve(values, g)
>>> result.status.tolist() == [UNIQUE, UNDECIDED, CONFLICT]
True
>>> format_block(result.solutions[:1], g)
['1234341243212143']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property, lru_cache
from itertools import compress

import numpy as np

from cpsudoku.model.errors import SolverError, ValueOutOfRangeError, WrongLengthError
from cpsudoku.model.forms import EMPTY
from cpsudoku.model.rules import SYMBOLS, Rules

__all__ = [
    "CONFLICT",
    "UNDECIDED",
    "UNIQUE",
    "UNSOLVABLE",
    "BlockResult",
    "format_block",
    "parse_block",
    "presolve",
    "verify_block",
]

#: Status codes of :attr:`BlockResult.status` (np.int8).
UNDECIDED, UNIQUE, UNSOLVABLE, CONFLICT = 0, 1, 2, 3

#: Cells (puzzles x cells per puzzle) worked on at once. Small enough that a round's
#: arrays stay in the CPU caches, large enough that numpy's per-call cost vanishes;
#: measured best between 2**17 and 2**19 for 9x9 (benchmarks/presolve_speed.py).
_CHUNK_CELLS = 1 << 18

#: Marker of an unusable character in the parse table (above any value).
_BAD = 255


@dataclass
class BlockResult:
    """What :func:`presolve` found for each puzzle of a block, row by row.

    Attributes:
        status: ``(B,)`` int8 codes: :data:`UNDECIDED`, :data:`UNIQUE`,
            :data:`UNSOLVABLE`, or :data:`CONFLICT` (the givens clash: the caller
            reports ``invalid`` with a precise message from the slow path).
        solutions: ``(B, n*n)`` uint8 values 1..n where status is ``UNIQUE`` (checked
            by :func:`verify_block`). For ``UNDECIDED`` rows: the grid after the pass
            (givens plus every single placed, 0 = open), a smaller puzzle with the
            same solutions for the engine that takes over. Zeros otherwise.
        candidates: ``(B, n*n)`` bitmasks (bit ``d-1`` = value ``d`` possible), in the
            narrowest unsigned type that holds n bits (object for n > 64). For
            ``UNDECIDED`` rows, the state after the pass: a filled cell has its own
            value's bit only, an open cell at least two bits. For ``UNIQUE`` rows, the
            solution's bits. Zeros otherwise.
    """

    status: np.ndarray
    solutions: np.ndarray
    candidates: np.ndarray


@dataclass(frozen=True)
class _Tables:
    """Index arrays and lookup tables of one set of rules, built once (see :func:`_tables`).

    Attributes:
        n: side of the grid.
        cells: ``n*n``.
        units: number of units ``U``.
        mask_dtype: dtype of the bitmasks.
        full: the mask with all ``n`` bits set.
        unit_pos: ``unit_pos[k]`` is the ``(U,)`` array of each unit's k-th cell.
        owners: ``owners[j]`` is the ``(n*n,)`` array of each cell's j-th unit; cells
            in fewer units than others point at the dummy unit ``U``, which is empty.
        unit_count: per cell, how many real units hold it (a scalar when uniform).
        sum_dtype: integer type in which sums of masks over all units cannot overflow,
            or None when no fixed-width type is wide enough (then bits are counted).
        bit: ``(n+1,)`` value -> mask (0 -> 0).
        unit_cells: the rules' units, from which the locked-candidate tables are built
            when first asked for (:attr:`lock_seg`): a jigsaw dataset's blocks, one
            puzzle each, go to the compiled engine and never ask.

    The symbol tables (character code -> value and back) are per alphabet, in
    :func:`_symbol_tables`.
    """

    n: int
    cells: int
    units: int
    mask_dtype: np.dtype
    full: int
    unit_pos: tuple[np.ndarray, ...]
    owners: tuple[np.ndarray, ...]
    unit_count: int | np.ndarray
    sum_dtype: np.dtype | None
    bit: np.ndarray
    unit_cells: tuple[tuple[int, ...], ...]

    @cached_property
    def _locks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _lock_tables(self.unit_cells, self.cells)

    @property
    def lock_seg(self) -> np.ndarray:
        """``(P, k)``: per ordered pair (A, B) of units sharing 2+ cells, the cells S shared.

        Padded with the dummy cell ``n*n``.
        """
        return self._locks[0]

    @property
    def lock_rest(self) -> np.ndarray:
        """``(P, n)`` the cells of A outside S (padded likewise)."""
        return self._locks[1]

    @property
    def lock_targets(self) -> np.ndarray:
        """``(n*n, m)``: for each cell, the pairs whose B minus S holds it.

        Padded with the dummy pair ``P``; empty arrays when no units overlap so.
        """
        return self._locks[2]

    @property
    def wide(self) -> bool:
        """True when the masks are Python integers (n > 64)."""
        return self.mask_dtype == np.dtype(object)


def _mask_dtype(n: int) -> np.dtype:
    """The narrowest unsigned type with ``n`` bits; object (Python int) above 64."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if n <= np.iinfo(dtype).bits:
            return np.dtype(dtype)
    return np.dtype(object)


@lru_cache(maxsize=64)  # a jigsaw or killer dataset has rules per puzzle
def _tables(rules: Rules) -> _Tables:
    """Build (once per rules and process) the index arrays the pass works with."""
    n, cells = rules.n, rules.cells
    unit_cells = rules.unit_cells
    if any(len(u) != n for u in unit_cells):
        raise ValueError(f"every unit of {rules} must have {n} cells for the logic pass")
    n_units = len(unit_cells)
    units = np.array(unit_cells, dtype=np.intp).reshape(n_units, n)
    depth = max(len(o) for o in rules.units_of)
    owners = np.full((cells, depth), n_units, dtype=np.intp)
    for i, own in enumerate(rules.units_of):
        owners[i, : len(own)] = own
    per_cell = np.array([len(o) for o in rules.units_of], dtype=np.int64)
    unit_count: int | np.ndarray = int(per_cell[0]) if (per_cell == per_cell[0]).all() else per_cell

    mask_dtype = _mask_dtype(n)
    # Largest sum _check forms: every cell's full mask, counted once per unit.
    bound = int(per_cell.sum()) * ((1 << n) - 1)
    sum_dtype: np.dtype | None = np.dtype(object) if mask_dtype == np.dtype(object) else None
    for candidate in (np.int32, np.int64):
        if sum_dtype is None and bound <= np.iinfo(candidate).max:
            sum_dtype = np.dtype(candidate)
    bit = np.array([0] + [1 << (d - 1) for d in range(1, n + 1)], dtype=mask_dtype)

    return _Tables(
        n=n,
        cells=cells,
        units=n_units,
        mask_dtype=mask_dtype,
        full=(1 << n) - 1,
        unit_pos=tuple(np.ascontiguousarray(units[:, k]) for k in range(n)),
        owners=tuple(np.ascontiguousarray(owners[:, j]) for j in range(depth)),
        unit_count=unit_count,
        sum_dtype=sum_dtype,
        bit=bit,
        unit_cells=unit_cells,
    )


@cache
def _symbol_tables(n: int, symbols: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Byte -> value table and value -> byte table of an alphabet (default: 1-9, A-Z).

    Empty tables when the alphabet has no one-byte form: n > 35 without ``symbols``,
    or symbols that are not ASCII (such records take the per-record path).
    """
    parse = np.full(256, _BAD, dtype=np.uint8)
    symbol = np.zeros(0, dtype=np.uint8)
    alphabet = SYMBOLS[:n] if symbols is None else symbols
    if len(alphabet) != n or not alphabet.isascii():
        return parse, symbol
    for ch in EMPTY:
        if ch not in alphabet:
            parse[ord(ch)] = 0
    for v, ch in enumerate(alphabet, 1):
        parse[ord(ch)] = v
    for v, ch in enumerate(alphabet, 1):  # the other case, where no symbol has it
        for other in (ch.lower(), ch.upper()):
            if other not in alphabet and parse[ord(other)] == _BAD:
                parse[ord(other)] = v
    empty = next(c for c in "._-*0" if c not in alphabet)
    symbol = np.frombuffer((empty + alphabet).encode("ascii"), dtype=np.uint8).copy()
    return parse, symbol


def _lock_tables(
    unit_cells: Sequence[Sequence[int]], cells: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index arrays of locked candidates: every ordered pair of units sharing 2+ cells.

    For Sudoku these are a box with a row or column (pointing) and a row or column with
    a box (claiming); any other unit layout gets its own pairs from the same rule.
    """
    sets = [frozenset(u) for u in unit_cells]
    pairs = []
    for a, sa in enumerate(sets):
        for b, sb in enumerate(sets):
            common = sa & sb
            if a != b and len(common) >= 2 and sb - sa:
                pairs.append((sorted(common), sorted(sa - common), sorted(sb - sa)))
    if not pairs:
        empty = np.zeros((0, 1), dtype=np.intp)
        return empty, empty, np.zeros((cells, 0), dtype=np.intp)
    width = max(len(p[0]) for p in pairs)
    rest = max(len(p[1]) for p in pairs)
    seg = np.full((len(pairs), width), cells, dtype=np.intp)
    out = np.full((len(pairs), max(rest, 1)), cells, dtype=np.intp)
    targets: list[list[int]] = [[] for _ in range(cells)]
    for k, (shared, others, hit) in enumerate(pairs):
        seg[k, : len(shared)] = shared
        out[k, : len(others)] = others
        for i in hit:
            targets[i].append(k)
    depth = max(len(t) for t in targets)
    hits = np.full((cells, depth), len(pairs), dtype=np.intp)
    for i, ks in enumerate(targets):
        hits[i, : len(ks)] = ks
    return seg, out, hits


# --- bulk parsing and formatting --------------------------------------------------


def parse_block(
    records: Sequence[str], rules: Rules, symbols: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Parse one-line records of ``n*n`` symbols into an array, in one step.

    Only the plain one-line form is read here (symbols ``1-9``, ``A-Z`` in either case,
    empties ``._-*0``, no layout, no surrounding spaces). Anything else, including
    forms that :func:`cpsudoku.parse` accepts (integers, layout characters) and
    malformed records, gets ``ok`` False: the caller sends it down the usual,
    per-record path, which parses it or explains what is wrong.

    Args:
        records: the puzzle strings.
        rules: the rules every record is read under.
        symbols: the symbols of the values 1..n, as :func:`cpsudoku.parse` takes them.

    Returns:
        ``(values, ok)``: ``values`` is ``(B, n*n)`` uint8 with 0 for an empty cell;
        ``ok`` is ``(B,)`` bool. A row whose ``ok`` is False is all zeros.
    """
    n, cells = rules.n, rules.cells  # no tables: a jigsaw's block is one puzzle
    table, symbol = _symbol_tables(n, symbols)
    count = len(records)
    values = np.zeros((count, cells), dtype=np.uint8)
    ok = np.zeros(count, dtype=bool)
    if count == 0 or symbol.size == 0:
        return values, ok
    lengths = np.fromiter(map(len, records), dtype=np.int64, count=count)
    fits = lengths == cells
    text = "".join(records) if fits.all() else "".join(compress(records, fits.tolist()))
    if not text:
        return values, ok
    # "replace" turns every non-ASCII character into one '?', so the byte count still
    # equals the character count and the bad record is caught by the table below.
    raw = np.frombuffer(text.encode("ascii", "replace"), dtype=np.uint8)
    parsed = table[raw.reshape(-1, cells)]
    good = parsed.max(axis=1) <= n
    parsed[~good] = 0
    if fits.all():
        return parsed, good
    values[fits] = parsed
    ok[fits] = good
    return values, ok


def format_block(solutions: np.ndarray, rules: Rules, symbols: str | None = None) -> list[str]:
    """One-line symbol strings of a block of grids (``.`` for 0), for n <= 35.

    ``symbols``: the symbols of the values 1..n (ASCII), as :func:`cpsudoku.parse`
    takes them.

    Built as one byte buffer (a table lookup plus a newline column) decoded and split
    once, so the cost per grid is a few hundred nanoseconds.

    Raises:
        ValueError: n > 35 (there is no one-line symbol form), a value outside 0..n,
            or an array that is not ``(B, n*n)``.
    """
    t = _tables(rules)
    _, symbol = _symbol_tables(t.n, symbols)
    if symbol.size == 0:
        raise ValueError(
            f"a {rules} grid has no one-line symbol form (n > {len(SYMBOLS)}, or "
            "symbols that are not ASCII)"
        )
    grid = _check_block(solutions, t, "solutions")
    if grid.shape[0] == 0:
        return []
    out = np.empty((grid.shape[0], t.cells + 1), dtype=np.uint8)
    np.take(symbol, grid, out=out[:, : t.cells], mode="clip")  # range checked above
    out[:, t.cells] = ord("\n")
    return out.tobytes().decode("ascii").split("\n")[:-1]


def _check_block(block: np.ndarray, t: _Tables, what: str) -> np.ndarray:
    """Check that ``block`` is a ``(B, n*n)`` integer array with values in 0..n."""
    arr = np.asarray(block)
    if arr.ndim != 2 or arr.shape[1] != t.cells:
        raise WrongLengthError(f"{what} must have shape (B, {t.cells}), got {arr.shape}")
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{what} must be an integer array, got {arr.dtype}")
    if arr.size:
        low, high = int(arr.min()), int(arr.max())
        if low < 0 or high > t.n:
            bad = np.argwhere((arr < 0) | (arr > t.n))[0]
            row, cell = int(bad[0]), int(bad[1])
            raise ValueOutOfRangeError(
                f"{what} row {row}: value {int(arr[row, cell])} at row {cell // t.n + 1}, "
                f"column {cell % t.n + 1} is outside 0..{t.n}",
                row=cell // t.n + 1,
                col=cell % t.n + 1,
                symbol=str(int(arr[row, cell])),
            )
    return arr


# --- bulk verification ---------------------------------------------------------------


def verify_block(puzzles: np.ndarray, solutions: np.ndarray, rules: Rules) -> np.ndarray:
    """Check a block of solutions against their puzzles, row by row, without a solver.

    A row passes when every cell of the solution holds 1..n, every given of the puzzle
    is kept, and every unit of the rules holds each value exactly once. It reads the
    rules from the rules' unit list only and shares no step with the pass.

    Args:
        puzzles: ``(B, n*n)`` values, 0 = empty.
        solutions: ``(B, n*n)`` values.
        rules: the rules of every row.

    Returns:
        ``(B,)`` bool, True where the solution is a valid completion of the puzzle.
    """
    t = _tables(rules)
    puz = np.asarray(puzzles)
    sol = np.asarray(solutions)
    if puz.shape != sol.shape or puz.ndim != 2 or puz.shape[1] != t.cells:
        raise WrongLengthError(
            f"puzzles {puz.shape} and solutions {sol.shape} must both be (B, {t.cells})"
        )
    passed = np.zeros(puz.shape[0], dtype=bool)
    step = _chunk_rows(t)
    for start in range(0, puz.shape[0], step):
        chunk = slice(start, start + step)
        passed[chunk] = _verify_chunk(puz[chunk], sol[chunk], t)
    return passed


def _verify_chunk(puz: np.ndarray, sol: np.ndarray, t: _Tables) -> np.ndarray:
    """:func:`verify_block` on a cache-sized chunk of rows."""
    # Transposed (cells, rows), so each step below is a vector over the rows.
    sol_t = np.ascontiguousarray(sol.T)
    in_range = np.logical_and.reduce((sol_t >= 1) & (sol_t <= t.n), axis=0)
    kept = np.logical_and.reduce((puz.T == 0) | (sol_t == puz.T), axis=0)
    # A unit of n cells holds each of 1..n exactly once iff its values' bits cover all n.
    bits = _bits(np.clip(sol_t, 0, t.n), t)
    seen = bits[t.unit_pos[0]]
    for pos in t.unit_pos[1:]:
        seen |= bits[pos]
    return in_range & kept & np.logical_and.reduce(seen == t.full, axis=0)


# --- the pass ------------------------------------------------------------------------


class PassPlan(StrEnum):
    """How much of the pass a grid size gets in the batch pipeline (:func:`pass_plan`)."""

    FULL = "full"
    """Singles and locked candidates."""
    SINGLES = "singles"
    """Naked and hidden singles only."""
    OFF = "off"
    """No pass: every puzzle goes to the engine."""


#: A plan for one grid side that overrides :func:`pass_plan`'s rule (for measuring
#: other plans with ``benchmarks/pipeline_speed.py --plan``).
PLANS: dict[int, PassPlan] = {}


def pass_plan(rules: Rules) -> PassPlan:
    """What the batch pipeline runs of the pass on puzzles under ``rules``.

    The rule: the pipeline must never be more than 5% slower than its engine alone, on
    any set of that size, and should gain what it can. Measured per size with
    ``benchmarks/pipeline_speed.py`` (docs/design.md has the table):

    - up to 9x9, the whole pass: 1.7-6x faster on easy sets, within noise on the
      hardest (it costs about 4 microseconds a puzzle there);
    - above 9x9 and below 16x16, none: on 12x12 minimal puzzles it decided almost
      nothing and cost 6-9%;
    - from 16x16 and below 25x25, singles only: locked candidates cost 0.1-0.3 ms a
      puzzle there, more than they save (a 16x16 set lost 9% with them); singles alone
      still gain 1.3x on the easy set and stay within 5% on the others;
    - from 25x25, the whole pass again: the engine's time per puzzle dwarfs it.
    """
    n = rules.n
    if n in PLANS:
        return PLANS[n]
    if n <= 9 or n >= 25:
        return PassPlan.FULL
    return PassPlan.OFF if n < 16 else PassPlan.SINGLES


def presolve(values: np.ndarray, rules: Rules, *, locked: bool = True) -> BlockResult:
    """Apply singles and locked candidates to every puzzle of a block, to a fixpoint.

    Every solution reported ``UNIQUE`` is checked by :func:`verify_block` first.

    Args:
        values: ``(B, n*n)`` integer values, 0 = empty (as from :func:`parse_block`).
        rules: the rules of every row.
        locked: also look for locked candidates (False: singles only, cheaper on big
            grids, and deciding fewer puzzles).

    Returns:
        The :class:`BlockResult`, row by row in input order.

    Raises:
        WrongLengthError: ``values`` is not ``(B, n*n)``.
        ValueOutOfRangeError: a value outside 0..n.
        SolverError: a solution failed the check (a bug, never a property of input).
    """
    t = _tables(rules)
    block = _check_block(values, t, "values")
    count = block.shape[0]
    status = np.zeros(count, dtype=np.int8)
    # Every chunk writes all its rows; np.empty spares zeroing pages only to overwrite them.
    solutions = np.empty((count, t.cells), dtype=np.uint8)
    candidates = np.empty((count, t.cells), dtype=t.mask_dtype)
    step = _chunk_rows(t)
    for start in range(0, count, step):
        chunk = slice(start, start + step)
        _presolve_chunk(block[chunk], t, status[chunk], solutions[chunk], candidates[chunk], locked)
    unique = status == UNIQUE
    if unique.any():
        passed = verify_block(block[unique], solutions[unique], rules)
        if not passed.all():
            row = int(np.flatnonzero(unique)[np.argmin(passed)])
            raise SolverError(f"logic pass produced an invalid solution for block row {row}")
    return BlockResult(status, solutions, candidates)


def _chunk_rows(t: _Tables) -> int:
    """Puzzles per chunk: about :data:`_CHUNK_CELLS` cells."""
    return max(1, _CHUNK_CELLS // t.cells)


def _presolve_chunk(
    block: np.ndarray,
    t: _Tables,
    status: np.ndarray,
    solutions: np.ndarray,
    candidates: np.ndarray,
    locked: bool = True,
) -> None:
    """Run the pass on one chunk, writing into the chunk's rows of the outputs.

    The working set holds the puzzles still in play, as columns: ``placed`` (the bit
    of each filled cell, 0 if open), ``used`` (per unit, the union of its placed bits)
    and ``rows`` (their rows in the chunk). A puzzle leaves it once it is solved,
    contradictory, or stuck (a round placed nothing), and its last state goes to
    ``final``; the working set is compressed once per round.
    """
    placed = _bits(np.ascontiguousarray(block.T), t)  # (cells, b)
    final = np.zeros_like(placed)  # solution bits (UNIQUE) or candidates (UNDECIDED)
    rows = np.arange(block.shape[0])
    used = _used(placed, t)
    clash, done = _check(used, placed, t)
    status[clash] = CONFLICT
    leave = clash | done
    # Candidates removed by locked candidates, per cell; None until the first puzzle
    # gets stuck on singles, so puzzles that singles finish never pay for it.
    banned: np.ndarray | None = None
    while True:
        if done.any():
            status[rows[done]] = UNIQUE
            final[:, rows[done]] = placed[:, done]
        if leave.any():
            live = ~leave
            placed, used, rows = placed[:, live], used[:, live], rows[live]
            if banned is not None:
                banned = banned[:, live]
        if not rows.size:
            break
        cand, new, dead = _singles(placed, used, t, banned)
        placed |= new
        used = _used(placed, t)
        clash, done = _check(used, placed, t)
        clash &= ~dead
        done &= ~dead
        stuck = np.bitwise_or.reduce(new, axis=0) == 0
        stuck &= ~dead
        if locked and stuck.any() and t.lock_seg.shape[0]:
            # Singles placed nothing: try locked candidates on those puzzles; one that
            # loses a candidate stays in play for another round of singles.
            if banned is None:
                banned = np.zeros_like(placed)
            cols = np.flatnonzero(stuck)
            elim = _locked(cand[:, cols], t)
            banned[:, cols] |= elim
            cand[:, cols] &= ~elim
            stuck[cols[np.bitwise_or.reduce(elim, axis=0) != 0]] = False
        status[rows[dead | clash]] = UNSOLVABLE
        if stuck.any():
            final[:, rows[stuck]] = placed[:, stuck] | cand[:, stuck]
        leave = dead | clash | done | stuck
    candidates[:] = final.T
    # Values of the cells with a single bit: every cell of a solved puzzle, the filled
    # cells of an undecided one (its open cells have two candidates or more).
    solutions[:] = _values(_keep_where(final, (final & (final - 1)) == 0)).T


def _used(placed: np.ndarray, t: _Tables) -> np.ndarray:
    """``(U+1, b)`` union of the placed bits of each unit; the last row (dummy) is 0."""
    used = np.zeros((t.units + 1, placed.shape[1]), dtype=t.mask_dtype)
    real = used[: t.units]
    np.take(placed, t.unit_pos[0], axis=0, out=real, mode="clip")
    buf = np.empty_like(real)
    for pos in t.unit_pos[1:]:
        np.take(placed, pos, axis=0, out=buf, mode="clip")
        real |= buf
    return used


def _check(used: np.ndarray, placed: np.ndarray, t: _Tables) -> tuple[np.ndarray, np.ndarray]:
    """``(clash, done)`` per puzzle: a value repeated in a unit; every unit complete.

    Each unit's used mask is at most the sum of its cells' bits, with equality exactly
    when no value repeats. So, summed over all units, ``used`` falls short of the cell
    bits weighted by how many units hold each cell iff some unit repeats a value (two
    integer sums, where counting bits would cost far more). Without repeats, the
    puzzle is done iff every unit's mask is full.
    """
    real = used[: t.units]
    if t.sum_dtype is None:  # n = 51..64 for Sudoku: the sums could overflow; count bits
        have = _popcount(real).sum(axis=0)
        want = _weighted(placed != 0, t)
        clash = have != want
        return clash, ~clash & (have == t.units * t.n)
    have = real.sum(axis=0, dtype=t.sum_dtype)
    want = _weighted(placed, t)
    clash = have != want
    return clash, ~clash & (have == t.units * t.full)


def _weighted(per_cell: np.ndarray, t: _Tables) -> np.ndarray:
    """Column sums of ``per_cell`` with each cell weighted by its number of units."""
    dtype = t.sum_dtype if t.sum_dtype is not None else np.int64
    if isinstance(t.unit_count, int):
        return per_cell.sum(axis=0, dtype=dtype) * t.unit_count
    return t.unit_count.astype(dtype) @ per_cell.astype(dtype)


def _singles(
    placed: np.ndarray, used: np.ndarray, t: _Tables, banned: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One round of naked and hidden singles on the working set.

    ``banned`` holds candidates removed earlier by :func:`_locked` (None: none yet).

    Returns:
        ``(cand, new, dead)``: the candidates of the open cells (0 for filled ones),
        the bit to place in each cell this round (0 for none), and the puzzles found
        contradictory: an open cell without candidates, a value with no place left in
        a unit, or a cell that is the only place for two values.
    """
    full = t.full
    # Candidates: the values no unit of the cell uses yet; none for filled cells.
    taken = used[t.owners[0]]
    for own in t.owners[1:]:
        taken |= used[own]
    if banned is not None:
        taken |= banned
    cand = _keep_where(~taken & full, placed == 0)
    no_candidate = np.minimum.reduce(placed | cand, axis=0) == 0
    # Naked singles: one candidate left.
    new = _keep_where(cand, (cand & (cand - 1)) == 0)
    # Hidden singles: per unit, the values that are candidates of exactly one cell.
    once = np.take(cand, t.unit_pos[0], axis=0, mode="clip")
    twice = np.zeros_like(once)
    buf = np.empty_like(once)
    both = np.empty_like(once)
    for pos in t.unit_pos[1:]:
        np.take(cand, pos, axis=0, out=buf, mode="clip")
        np.bitwise_and(once, buf, out=both)
        twice |= both
        once |= buf
    nowhere = np.bitwise_and.reduce(once | used[: t.units], axis=0) != full
    hidden = np.zeros_like(used)
    np.bitwise_and(once, ~twice, out=hidden[: t.units])
    forced = hidden[t.owners[0]]
    for own in t.owners[1:]:
        forced |= hidden[own]
    forced &= cand
    two_values = np.bitwise_or.reduce(forced & (forced - 1), axis=0) != 0
    new |= forced
    return cand, new, no_candidate | nowhere | two_values


def _locked(cand: np.ndarray, t: _Tables) -> np.ndarray:
    """Eliminations by locked candidates (pointing and claiming) on the working set.

    For every ordered pair (A, B) of units sharing the cells S: a value whose
    candidates in A all lie in S must go in S, so it leaves the cells of B outside S.
    Returns the ``(cells, b)`` masks of the candidates removed (a subset of ``cand``).
    """
    pad = np.zeros((1, cand.shape[1]), dtype=cand.dtype)
    c = np.concatenate([cand, pad])  # row n*n: the dummy cell, never a candidate
    inside = np.bitwise_or.reduce(c[t.lock_seg], axis=1)
    outside = np.bitwise_or.reduce(c[t.lock_rest], axis=1)
    lock = np.concatenate([inside & ~outside, pad])  # row P: the dummy pair
    return np.bitwise_or.reduce(lock[t.lock_targets], axis=1) & cand


# --- mask helpers (fixed-width integers, or Python ints in object arrays) -------------


def _bits(values: np.ndarray, t: _Tables) -> np.ndarray:
    """Masks of values (0 -> 0, d -> bit d-1)."""
    if t.wide:
        return t.bit[values]
    v = values.astype(t.mask_dtype)
    # Shift by d-1 for d >= 1; an empty cell shifts by 0 and is then zeroed (a shift by
    # the type's width or more, as 0 - 1 would give, is undefined in C).
    return np.left_shift(1, np.maximum(v, 1) - 1, dtype=t.mask_dtype) * (v != 0)


def _keep_where(masks: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``masks`` where ``keep``, else 0 (a multiply: branch-free and vectorised)."""
    if masks.dtype == object:
        return np.where(keep, masks, 0).astype(object)
    return masks * keep


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of each mask."""
    if masks.dtype == object:
        return np.vectorize(int.bit_count, otypes=[np.int64])(masks)
    return np.bitwise_count(masks)


def _values(masks: np.ndarray) -> np.ndarray:
    """Values (uint8) of single-bit masks; 0 stays 0."""
    if masks.dtype == object:
        return np.vectorize(int.bit_length, otypes=[np.uint8])(masks)
    # frexp(2**(d-1)) = (0.5, d), exact in floating point; frexp(0) = (0, 0).
    return np.frexp(masks)[1].astype(np.uint8)
