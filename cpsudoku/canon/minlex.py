"""The exact minlex form, in plain Python: the reference the compiled search mirrors.

The minlex form of a grid is, over every transformation (see
:class:`~cpsudoku.canon.transform.Transformation`) and every relabelling of the
digits, the lexicographically smallest string of its cells read row by row, ``0`` for
an empty cell (which sorts first). For a fixed transformation the best relabelling
numbers the digits in their order of first appearance, so the search only chooses the
transformation:

1. the first output row: every row of the grid (and of its transpose, for square
   boxes); its best form over the column permutations is known in advance (stacks with
   fewer givens first, givens last in their stack), which bounds the search at once;
2. the columns, one output column at a time (a stack first, then its columns),
   each choice writing one cell of the first row;
3. the other rows, one output row at a time (a band first, then its rows).

Every written cell is compared with the best string found so far: larger prunes the
branch, smaller makes it the new best. Every leaf equal to the final best is an
automorphism (a transformation mapping the grid onto its own form, relabelled), so
their count comes out of the same search.

Symmetric branches are searched once: twin lines (see :func:`twin_classes`: two empty
rows of a band, two empty bands, columns whose digits appear nowhere else...) give the
same strings whichever of them is placed first, so only the first of a class is
searched and the count is multiplied by the class's size. Without it a 12x12 puzzle
whose givens fill one row took 40 s (215 million automorphisms, one leaf each).

This module is readable rather than fast: the compiled ``_minlex`` runs the same
search, and the tests compare the two.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from cpsudoku.canon.transform import Transformation

#: Larger than every label: the best string's still unknown tail.
_UNKNOWN = 1 << 30

#: First-row states held before they are sorted and searched on (memory stays bounded).
SNAPSHOTS = 4096


def first_row_bound(lines: Sequence[Sequence[int]], stack: int) -> list[int]:
    """The smallest relabelled first row any of ``lines`` can give.

    A line's best form puts its stacks in increasing order of givens and, in each
    stack, the empty cells first; the givens are then numbered 1, 2, ... in order.
    """
    best: list[int] | None = None
    for line in lines:
        counts = sorted(
            sum(1 for v in line[s : s + stack] if v) for s in range(0, len(line), stack)
        )
        row: list[int] = []
        label = 0
        for k in counts:
            row += [0] * (stack - k)
            row += range(label + 1, label + k + 1)
            label += k
        if best is None or row < best:
            best = row
    assert best is not None
    return best


#: Row correspondences tried per pair of bands when looking for twin bands.
BAND_MATCHES = 64


def _low(mask: int) -> int:
    """The index of the lowest set bit of a non-zero mask."""
    return (mask & -mask).bit_length() - 1


def twin_classes(grid: Sequence[Sequence[int]], block: int) -> tuple[list[int], list[int]]:
    """The twin rows and twin bands of a grid whose bands are ``block`` rows, as classes.

    Two rows of one band are twins when swapping them, with a relabelling of the
    digits that appear in those two rows alone, maps the grid onto itself (two empty
    rows, say); two bands are twins when swapping them whole, row ``k`` of one with
    row ``f(k)`` of the other, does, with such a relabelling. Each swap is an
    automorphism that fixes every other row, band and column, so once the search has
    placed other lines, twins still unplaced lead to the same strings: only the first
    of a class is searched and its count is multiplied by the class's unplaced
    members. The relation is an equivalence (the conjugate of one swap by another is
    a third), so the classes are its closure. The band test tries up to
    :data:`BAND_MATCHES` correspondences ``f``: a class it misses costs time, never
    exactness. Called on the transpose, it gives the twin columns and stacks.

    Returns ``(rows, bands)``: ``rows[r]`` is the bit mask of ``r``'s class, ``bands[b]``
    that of band ``b``'s.
    """
    lines = _Lines(grid, block)
    n = len(grid)
    rows = [1 << r for r in range(n)]
    for r1 in range(n):
        for r2 in range(r1 + 1, r1 // block * block + block):
            if (
                lines.masks[r1] == lines.masks[r2]
                and not rows[r1] >> r2 & 1
                and lines.swap_fixes_grid([(r1, r2)], 1 << r1 | 1 << r2)
            ):
                _merge(rows, r1, r2)
    bands = [1 << b for b in range(n // block)]
    for b1 in range(len(bands)):
        for b2 in range(b1 + 1, len(bands)):
            if not bands[b1] >> b2 & 1 and lines.bands_are_twins(b1, b2):
                _merge(bands, b1, b2)
    return rows, bands


class _Lines:
    """The rows of a grid in bands of ``block`` rows, and the twin tests on them."""

    def __init__(self, grid: Sequence[Sequence[int]], block: int) -> None:
        self.grid, self.block = grid, block
        self.masks = [sum(1 << c for c, v in enumerate(row) if v) for row in grid]
        self.where = [0] * (len(grid) + 1)  # where[d]: the rows holding digit d
        for r, row in enumerate(grid):
            for v in row:
                self.where[v] |= 1 << r

    def swap_fixes_grid(self, pairs: Sequence[tuple[int, int]], inside: int) -> bool:
        """Whether swapping each pair of rows (of equal masks) maps the grid onto itself.

        With one relabelling, an involution that moves only digits held by the rows
        of ``inside`` alone.
        """
        pi: dict[int, int] = {}
        for r1, r2 in pairs:
            for a, b in zip(self.grid[r1], self.grid[r2], strict=True):
                if a and (pi.setdefault(a, b) != b or pi.setdefault(b, a) != a):
                    return False
        return all(not self.where[a] & ~inside for a, b in pi.items() if a != b)

    def bands_are_twins(self, b1: int, b2: int) -> bool:
        """Whether swapping bands ``b1`` and ``b2`` row for row is a symmetry.

        The correspondences tried are the first :data:`BAND_MATCHES` that pair rows of
        equal masks, in lexicographic order (as the compiled search tries them).
        """
        block, masks = self.block, self.masks
        one = list(range(b1 * block, b1 * block + block))
        two = list(range(b2 * block, b2 * block + block))
        if sorted(masks[r] for r in one) != sorted(masks[r] for r in two):
            return False
        inside = sum(1 << r for r in one + two)
        tried = 0
        match: list[int] = []

        def find(k: int) -> bool:
            nonlocal tried
            if tried >= BAND_MATCHES:
                return False
            if k == block:
                tried += 1
                return self.swap_fixes_grid(list(zip(one, match, strict=True)), inside)
            for r in two:
                if r not in match and masks[r] == masks[one[k]]:
                    match.append(r)
                    if find(k + 1):
                        return True
                    match.pop()
            return False

        return find(0)


def _merge(classes: list[int], a: int, b: int) -> None:
    """Join the classes of ``a`` and ``b`` (bit masks, one per member)."""
    joined = classes[a] | classes[b]
    for k in range(len(classes)):
        if joined >> k & 1:
            classes[k] = joined


@dataclass
class MinlexResult:
    """What :func:`minlex` finds: the form, one transformation to it, the automorphisms."""

    cells: tuple[int, ...]
    transformation: Transformation
    automorphisms: int


class _Search:
    """One minlex search over a grid; see the module docstring."""

    def __init__(self, cells: Sequence[int], box_rows: int, box_cols: int) -> None:
        n = box_rows * box_cols
        self.n, self.br, self.bc = n, box_rows, box_cols
        grid = [list(cells[r * n : (r + 1) * n]) for r in range(n)]
        self.grids = [grid]
        transposed = [list(col) for col in zip(*grid, strict=True)]
        if box_rows == box_cols:
            self.grids.append(transposed)
        # Twin classes (see twin_classes) of each grid searched: rows and bands, then
        # columns and stacks (the rows and bands of the transpose).
        rows, columns = twin_classes(grid, box_rows), twin_classes(transposed, box_cols)
        self.twins = [(*rows, *columns), (*columns, *rows)]
        self.best = [_UNKNOWN] * (n * n)
        lines = [row for g in self.grids for row in g]
        self.best[:n] = first_row_bound(lines, box_cols)
        self.label = [0] * (n + 1)
        self.next_label = 1
        self.digits = len(set(cells) - {0})  # the digits present: labelled sooner or later
        self.count = 0
        self.found: tuple[int, list[int], list[int], list[int]] | None = None
        self.grid = grid
        self.t = 0
        # The number of transformations each branch stands for: the product of the
        # twin classes' sizes chosen on the way (see _twins).
        self.mult = 1
        self.rows: list[int] = []
        # cols[j]: the source column of output column j, or -1 while it is deferred.
        self.cols = [-1] * n
        # pools[s]: the deferred source columns of output stack s (see _write_row).
        self.pools: list[set[int]] = [set() for _ in range(n // box_cols)]
        self.stacks: list[int] = []
        self.snapshots: list[tuple[list[int], int, tuple[object, ...]]] = []
        self._seq = 0  # states numbered in order of appearance, across flushes
        # Times the best first row went down: only a row with a repeated digit can go
        # below the bound, and the states held for the larger row are then void.
        self.first_row = 0

    # A written cell: -1 pruned, else the number of labels it added (0 or 1).
    def _write(self, pos: int, value: int) -> int:
        added = 0
        lab = self.label[value]
        if value and not lab:
            lab = self.next_label
            added = 1
        best = self.best[pos]
        if lab > best:
            return -1
        if lab < best:
            # A new best prefix: forget the old tail and the leaves counted for it.
            self.first_row += pos < self.n
            self.best[pos] = lab
            for k in range(pos + 1, len(self.best)):
                if self.best[k] == _UNKNOWN:
                    break
                self.best[k] = _UNKNOWN
            self.count = 0
        if added:
            self.label[value] = lab
            self.next_label += 1
        return added

    def run(self) -> MinlexResult:
        n = self.n
        for t, grid in enumerate(self.grids):
            self.t, self.grid = t, grid
            self.rows = []
            for r, mult in self._twins(list(range(n)), 0):
                self.rows = [r]
                self.mult = mult
                self._start_row(0)
        self._flush()
        assert self.found is not None
        t, rows, cols, label = self.found
        digits = full_relabelling(label, n)
        box = (self.br, self.bc)
        transformation = Transformation(box, bool(t), tuple(rows), tuple(cols), digits)
        return MinlexResult(tuple(self.best), transformation, self.count)

    def _rows(self, i: int) -> None:
        """Choose the source row of output row ``i`` (a band first, then its rows)."""
        n, br = self.n, self.br
        if i == n:
            self._leaf()
            return
        if self.next_label == self.digits + 1 and self._finish(i):
            return
        if i % br == 0:
            used = {r // br for r in self.rows}
            choices = [r for r in range(n) if r // br not in used]
        else:
            band = self.rows[-1] // br
            choices = [r for r in range(band * br, band * br + br) if r not in self.rows]
        outer = self.mult
        for (r, mult), text in self._best_rows(self._twins(choices, i)):
            self.rows.append(r)
            self.mult = outer * mult
            if text is None:
                self._start_row(i)
            else:
                self._known_row(i, text)
            self.rows.pop()
        self.mult = outer

    def _finish(self, i: int) -> bool:
        """Write rows ``i``.. at once when each writes a known string; False if not.

        Once every digit has its label and no row left has a given in a deferred
        column, each row left writes one fixed string wherever it goes. The least
        completion is then the current band's rows in increasing order of those
        strings, then the bands left, each as its rows in increasing order, in
        increasing order of those; the completions that tie with it permute rows of
        equal strings within a band, and bands of equal strings: they are counted, not
        searched. (Full grids and puzzles of whole rows reach this after their first
        full row.) Ties are broken by index. The current band is written first, so
        that a larger one prunes before the other bands' strings are made.
        """
        n, br = self.n, self.br
        deferred = [c for pool in self.pools for c in pool]
        placed = set(self.rows)
        left = [r for r in range(n) if r not in placed]
        grid, label = self.grid, self.label
        if any(grid[r][c] for r in left for c in deferred):
            return False
        texts: dict[int, list[int]] = {}
        ties = 1

        def ordered(rows: list[int]) -> list[int]:
            """Rows in increasing order of their strings; their ties counted."""
            nonlocal ties
            for r in rows:
                texts[r] = [label[grid[r][c]] if c >= 0 else 0 for c in self.cols]
            rows = sorted(rows, key=lambda r: (texts[r], r))
            for _, same in itertools.groupby(rows, key=lambda r: texts[r]):
                ties *= math.factorial(len(list(same)))
            return rows

        best, pos = self.best, i * n
        better = False

        def write(rows: list[int]) -> bool:
            """Write the rows' strings on; False when a larger cell prunes them."""
            nonlocal pos, better
            for r in rows:
                for lab in texts[r]:
                    if not better and lab != best[pos]:
                        if lab > best[pos]:
                            return False
                        better = True  # a new best: the rest of the grid is this
                        self.count = 0
                    best[pos] = lab
                    pos += 1
            return True

        current = self.rows[-1] // br if i % br else -1
        order = ordered([r for r in left if r // br == current])
        if not write(order):
            return True
        bands = sorted(
            (list(itertools.chain.from_iterable(texts[r] for r in rows)), rows)
            for rows in (
                ordered([r for r in left if r // br == b])
                for b in sorted({r // br for r in left} - {current})
            )
        )
        for _, same in itertools.groupby(bands, key=lambda band: band[0]):
            ties *= math.factorial(len(list(same)))
        for _, rows in bands:
            if not write(rows):
                return True
            order += rows
        rows = self.rows
        self.rows = rows + order
        self._leaf(ties)
        self.rows = rows
        return True

    def _twins(self, choices: list[int], i: int) -> list[tuple[int, int]]:
        """The candidate rows of output row ``i`` that stand for their twins.

        Twin rows (and, where a band is chosen, twin bands) still unplaced give the
        same strings (see :func:`twin_classes`): only the first of each class is kept,
        with the number of its class's unplaced members (times those of its band's
        class) that it stands for.
        """
        row_classes, band_classes = self.twins[self.t][:2]
        br = self.br
        placed = sum(1 << r for r in self.rows)
        bands = sum(1 << b for b in {r // br for r in self.rows})
        out = []
        for r in choices:
            mult = 1
            if i % br == 0:
                free_bands = band_classes[r // br] & ~bands
                if r // br != _low(free_bands):
                    continue
                mult = free_bands.bit_count()
            free = row_classes[r] & ~placed
            if r == _low(free):
                out.append((r, mult * free.bit_count()))
        return out

    def _best_rows(
        self, choices: list[tuple[int, int]]
    ) -> list[tuple[tuple[int, int], list[int] | None]]:
        """The candidate rows worth writing, the most promising first, with their text.

        A row that leaves no column undecided (every deferred column of a stack gets
        an empty cell) writes one known string; all candidates share the prefix, so
        such a row that is larger than another one can never give the minimum and is
        dropped here, before it starts a descent of its own. The smallest known rows
        come first (with their text, written at once), then the rows that still decide
        columns (None: written cell by cell).
        """
        known: list[tuple[list[int], tuple[int, int]]] = []
        open_rows: list[tuple[tuple[int, int], list[int] | None]] = []
        for choice in choices:
            text = self._row_text(choice[0])
            if text is None:
                open_rows.append((choice, None))
            else:
                known.append((text, choice))
        if not known:
            return open_rows
        least = min(text for text, _ in known)
        return [(choice, text) for text, choice in known if text == least] + open_rows

    def _known_row(self, i: int, text: list[int]) -> None:
        """Write output row ``i``, a row that decides no column, at once; go on to ``i + 1``.

        Its labels ``text`` are known (see :meth:`_row_text`), so this does what
        writing it cell by cell would, without the descent: the first cell that differs
        from the best string prunes the row (larger) or starts a new best there
        (smaller), the tail of the old best void.
        """
        n, best = self.n, self.best
        start = i * n
        for k, lab in enumerate(text):
            if lab != best[start + k]:
                if lab > best[start + k]:
                    return
                best[start + k : start + n] = text[k:]
                for q in range(start + n, len(best)):
                    if best[q] == _UNKNOWN:
                        break
                    best[q] = _UNKNOWN
                self.count = 0
                break
        row = self.grid[self.rows[i]]
        fresh = []
        for c in self.cols:
            v = row[c] if c >= 0 else 0
            if v and not self.label[v]:
                self.label[v] = self.next_label
                self.next_label += 1
                fresh.append(v)
        self._rows(i + 1)
        for v in fresh:
            self.label[v] = 0
        self.next_label -= len(fresh)

    def _row_text(self, r: int) -> list[int] | None:
        """The labels source row ``r`` writes next, or None when it decides a column."""
        row = self.grid[r]
        if any(row[c] for pool in self.pools for c in pool):
            return None  # a deferred column meets a given: decided while written
        labels = list(self.label)
        nxt = self.next_label
        text = []
        for c in self.cols:
            v = row[c] if c >= 0 else 0
            if v and not labels[v]:
                labels[v] = nxt
                nxt += 1
            text.append(labels[v])
        return text

    # ---------------------------------------------------------- first-row states

    def _state(self) -> tuple[object, ...]:
        return (
            self.t,
            self.rows[0],
            list(self.cols),
            [set(p) for p in self.pools],
            list(self.label),
            self.next_label,
            self.mult,
        )

    def _restore(self, state: tuple[object, ...]) -> None:
        t, r0, cols, pools, label, nxt, mult = state
        self.t = t  # type: ignore[assignment]
        self.grid = self.grids[self.t]
        self.rows = [r0]  # type: ignore[list-item]
        self.cols = list(cols)  # type: ignore[call-overload]
        self.pools = [set(p) for p in pools]  # type: ignore[attr-defined]
        self.label = list(label)  # type: ignore[call-overload]
        self.next_label = nxt  # type: ignore[assignment]
        self.mult = mult  # type: ignore[assignment]

    def _save_first_row(self) -> None:
        """The first row is written: hold the state, keyed by its least known second row.

        Searching on from every first-row state in turn, the order decides how often
        a later state beats the best found so far and descends to the last row for
        it. So the states wait here (up to :data:`SNAPSHOTS` at a time) and go on in
        order of the least second row they can write among the rows that decide no
        column (those that do come last): the likely best goes first and prunes the
        others early.
        """
        if len(self.snapshots) == SNAPSHOTS:
            here, stacks = self._state(), list(self.stacks)
            self._flush()
            self._restore(here)
            self.stacks = stacks
        n, br, r0 = self.n, self.br, self.rows[0]
        lo, hi = (r0 // br * br, r0 // br * br + br) if br > 1 else (0, n)
        key = [_UNKNOWN] * n
        for r in range(lo, hi):
            if r != r0 and (text := self._row_text(r)) is not None and text < key:
                key = text
        state = (*self._state(), self.first_row)
        self.snapshots.append((key, len(self.snapshots) + self._seq, state))

    def _flush(self) -> None:
        """Search on from the held first-row states, the most promising first."""
        held, self.snapshots = self.snapshots, []
        self._seq += len(held)
        held.sort(key=lambda item: (item[0], item[1]))
        for _, _, state in held:
            if state[-1] != self.first_row:
                continue  # a smaller first row came later: this one cannot be the least
            self._restore(state[:-1])
            self._rows(1)

    def _start_row(self, i: int) -> None:
        """Write output row ``i`` from its chosen source row, then go on to row ``i + 1``.

        Columns are deferred: an output column whose cells written so far are all
        empty keeps its column undecided, among the stack's deferred columns (its
        pool), all empty on those rows too, so any of them gives the same string. In
        a new row the best string puts the pool's empty cells first: the first ``z``
        deferred columns of the stack (``z`` = empty cells of the pool in this row)
        stay deferred and write 0; the others take the pool's given cells, in every
        order (a branch each). Without this an empty first row would try every
        column permutation in turn.
        """
        row = self.grid[self.rows[i]]
        ranks: list[int] = [0] * self.n
        for s in range(len(self.pools)):
            k = 0
            for j in range(s * self.bc, s * self.bc + self.bc):
                if self.cols[j] < 0:
                    ranks[j] = k
                    k += 1
        zeros = [sum(1 for c in pool if not row[c]) for pool in self.pools]
        self._write_row(i, 0, row, ranks, zeros)

    def _write_row(
        self, i: int, j: int, row: list[int], ranks: list[int], zeros: list[int]
    ) -> None:
        n, bc = self.n, self.bc
        if j == n:
            if i == 0:
                self._save_first_row()
            else:
                self._rows(i + 1)
            return
        s = j // bc
        if i == 0 and j % bc == 0:
            # The first row chooses the stacks: each output stack takes a whole stack,
            # the first of its twin class still free standing for the class.
            stack_classes = self.twins[self.t][3]
            used = sum(1 << st for st in self.stacks)
            outer = self.mult
            for stack in range(n // bc):
                free = stack_classes[stack] & ~used
                if stack in self.stacks or stack != _low(free):
                    continue
                self.mult = outer * free.bit_count()
                self.stacks.append(stack)
                self.pools[s] = set(range(stack * bc, stack * bc + bc))
                zeros[s] = sum(1 for c in self.pools[s] if not row[c])
                for k, jj in enumerate(range(j, j + bc)):
                    ranks[jj] = k
                self._cell(i, j, row, ranks, zeros)
                self.pools[s] = set()
                self.stacks.pop()
            self.mult = outer
            return
        self._cell(i, j, row, ranks, zeros)

    def _cell(self, i: int, j: int, row: list[int], ranks: list[int], zeros: list[int]) -> None:
        """Write cell (i, j), branching over the pool when its column is decided here.

        Twin columns among the pool's given cells (see :func:`twin_classes`) give the
        same strings: the first of each class stands for the class.
        """
        pos = i * self.n + j
        c = self.cols[j]
        outer = self.mult
        if c >= 0:
            options = [(c, 1)]
        elif ranks[j] < zeros[j // self.bc]:
            if self._write(pos, 0) >= 0:
                self._write_row(i, j + 1, row, ranks, zeros)
            return
        else:
            pool = self.pools[j // self.bc]
            given = sum(1 << c for c in pool if row[c])
            col_classes = self.twins[self.t][2]
            options = [
                (c, (col_classes[c] & given).bit_count())
                for c in sorted(pool)
                if row[c] and c == _low(col_classes[c] & given)
            ]
        for c, mult in options:
            self.mult = outer * mult
            value = row[c]
            added = self._write(pos, value)
            if added < 0:
                continue
            deciding = self.cols[j] < 0
            if deciding:
                self.cols[j] = c
                self.pools[j // self.bc].discard(c)
            self._write_row(i, j + 1, row, ranks, zeros)
            if deciding:
                self.cols[j] = -1
                self.pools[j // self.bc].add(c)
            if added:
                self.label[value] = 0
                self.next_label -= 1
        self.mult = outer

    def _leaf(self, ties: int = 1) -> None:
        """Every string written equals the best: count its transformations.

        ``ties``: the row orders it stands for (see :meth:`_finish`).
        """
        ways = self.mult * ties
        for pool in self.pools:
            ways *= math.factorial(len(pool))
        self.count += ways
        if self.count == ways:
            cols = list(self.cols)
            for s, pool in enumerate(self.pools):
                free = iter(sorted(pool))
                for j in range(s * self.bc, s * self.bc + self.bc):
                    if cols[j] < 0:
                        cols[j] = next(free)
            self.found = (self.t, list(self.rows), cols, list(self.label))


def full_relabelling(label: Sequence[int], n: int) -> tuple[int, ...]:
    """The labels of digits 1..n: those seen, then the rest in increasing order."""
    digits = list(label[1 : n + 1])
    free = iter(sorted(set(range(1, n + 1)) - set(digits)))
    return tuple(d if d else next(free) for d in digits)


@lru_cache(maxsize=1)
def compiled() -> ModuleType | None:
    """The compiled search (``_minlex``), or None when it was not built."""
    try:
        from cpsudoku.canon import _minlex  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    return _minlex


def minlex(cells: Sequence[int], box_rows: int, box_cols: int) -> MinlexResult:
    """The minlex form of a grid of ``box_rows x box_cols`` boxes given by its values.

    Exact for every grid (puzzle or solution, valid or not); the cost grows with the
    grid's symmetry, so it is meant for grids up to 9x9 and for checking the compiled
    search.
    """
    return _Search(cells, box_rows, box_cols).run()
