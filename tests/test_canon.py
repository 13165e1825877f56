"""Canonical forms: exact against brute force, invariant, separating, and their commands."""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku import canonical, equivalent, transform
from cpsudoku.canon import Transformation, TransformationError, canonical_lines, minlex_built
from cpsudoku.canon.minlex import compiled, minlex, twin_classes
from cpsudoku.cli import main
from cpsudoku.datasets.records import read_records
from cpsudoku.generate import generate_grid
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules

DATA = Path(__file__).parent / "data"


def bundled_puzzles(name: str) -> list[str]:
    """The puzzle texts of a bundled test file, read as batch and dedupe read it."""
    return [r.puzzle for r in read_records(str(DATA / name)) if r.error is None]


def _is_classic_9x9(name: str) -> bool:
    """Whether every record of a bundled file is a 9x9 puzzle of the classic rules."""
    try:
        puzzles = [parse(text, check=False) for text in bundled_puzzles(name)]
    except PuzzleError:
        return False
    return bool(puzzles) and all(p.rules == Rules.classic(3, 3) for p in puzzles)


#: Every bundled 9x9 set of the classic rules, found rather than listed, so that a new
#: file is covered by the invariance test as soon as it is added.
NINE_BY_NINE = sorted(
    p.name
    for p in DATA.iterdir()
    if p.is_file() and p.name != "README.md" and _is_classic_9x9(p.name)
)

#: The other bundled files: other sizes (the graph key's tests) and variant rules.
NOT_NINE_BY_NINE = {
    "16x16_vukr_6.txt",
    "25x25_misc_3.txt",
    "killer_krazydad_40.csv",
    "variants_sample.jsonl",
    "README.md",
}

#: The most symmetric 9x9 grid: 648 automorphisms.
SYMMETRIC = "123456789456789123789123456231564897564897231897231564312645978645978312978312645"


def lines(name: str) -> list[str]:
    text = (DATA / name).read_text().splitlines()
    return [s.strip() for s in text if s.strip() and not s.startswith("#")]


def line_perms(n: int, size: int) -> Iterator[tuple[int, ...]]:
    """Every permutation of n lines that keeps blocks of ``size`` whole."""
    blocks = n // size
    for order in itertools.permutations(range(blocks)):
        for inner in itertools.product(itertools.permutations(range(size)), repeat=blocks):
            yield tuple(order[b] * size + inner[b][k] for b in range(blocks) for k in range(size))


def relabelled(cells: tuple[int, ...]) -> tuple[int, ...]:
    """Digits renumbered in order of first appearance (0 stays empty)."""
    labels = {0: 0}
    return tuple(labels.setdefault(v, len(labels)) for v in cells)


def brute_force(cells: tuple[int, ...], br: int, bc: int) -> tuple[tuple[int, ...], int]:
    """Minlex form and automorphism count over every transformation, one by one."""
    n = br * bc
    best: tuple[int, ...] | None = None
    count = 0
    identity = tuple(range(1, n + 1))
    for flip in [False, True] if br == bc else [False]:
        for rows in line_perms(n, br):
            for cols in line_perms(n, bc):
                image = relabelled(
                    Transformation((br, bc), flip, rows, cols, identity).apply(cells)
                )
                if best is None or image < best:
                    best, count = image, 1
                elif image == best:
                    count += 1
    assert best is not None
    return best, count


def random_transformation(br: int, bc: int, rng: random.Random) -> Transformation:
    n = br * bc

    def order(size: int) -> tuple[int, ...]:
        blocks = list(range(n // size))
        rng.shuffle(blocks)
        out: list[int] = []
        for b in blocks:
            inner = list(range(b * size, b * size + size))
            rng.shuffle(inner)
            out += inner
        return tuple(out)

    digits = list(range(1, n + 1))
    rng.shuffle(digits)
    flip = br == bc and rng.random() < 0.5
    return Transformation((br, bc), flip, order(br), order(bc), tuple(digits))


def all_4x4_grids() -> list[tuple[int, ...]]:
    rules = Rules.classic(2, 2)
    peers = rules.peers
    grids: list[tuple[int, ...]] = []
    cells = [0] * 16

    def fill(k: int) -> None:
        if k == 16:
            grids.append(tuple(cells))
            return
        for v in range(1, 5):
            if all(cells[p] != v for p in peers[k]):
                cells[k] = v
                fill(k + 1)
                cells[k] = 0

    fill(0)
    return grids


def holes(grid: Puzzle, keep: float, rng: random.Random) -> Puzzle:
    """The grid with each cell kept with probability ``keep``."""
    return Puzzle(grid.rules, tuple(v if rng.random() < keep else 0 for v in grid.cells))


# ------------------------------------------------------------------ exactness


def test_all_4x4_grids_fall_into_two_classes_as_brute_force_says() -> None:
    grids = all_4x4_grids()
    assert len(grids) == 288
    forms = set()
    for cells in grids:
        c = canonical(Puzzle(Rules.classic(2, 2), cells))
        assert (c.form.cells, c.automorphisms) == brute_force(cells, 2, 2)
        forms.add(c.form.cells)
    assert len(forms) == 2
    graph_keys = {canonical(Puzzle(Rules.classic(2, 2), g), method="graph").form for g in grids}
    assert len(graph_keys) == 2


@pytest.mark.parametrize(("br", "bc"), [(2, 3), (3, 2)])
def test_6x6_samples_match_brute_force(br: int, bc: int) -> None:
    rng = random.Random(br * 10 + bc)
    for keep in (0.15, 0.4, 0.7, 1.0):
        p = holes(generate_grid(f"{br}x{bc}", seed=rng.randrange(10**6)), keep, rng)
        c = canonical(p)
        assert (c.form.cells, c.automorphisms) == brute_force(p.cells, br, bc)
        assert minlex(p.cells, br, bc).cells == c.form.cells


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=16, max_size=16))
def test_any_4x4_content_matches_brute_force(values: list[int]) -> None:
    """Valid or not, sparse or full: the search is exact on any content."""
    cells = tuple(values)
    best, count = brute_force(cells, 2, 2)
    reference = minlex(cells, 2, 2)
    assert (reference.cells, reference.automorphisms) == (best, count)
    assert reference.transformation.apply(cells) == best
    if compiled() is not None:
        c = canonical(Puzzle(Rules.classic(2, 2), cells))
        assert (c.form.cells, c.automorphisms) == (best, count)


@pytest.mark.skipif(not minlex_built(), reason="the compiled minlex search was not built")
@pytest.mark.parametrize("name", ["clue17_royle_200.txt", "easy_kaggle1m_200.txt", "top95.txt"])
def test_compiled_search_agrees_with_the_python_reference(name: str) -> None:
    for text in lines(name)[:6]:
        p = parse(text, check=False)
        fast, slow = canonical(p), minlex(p.cells, 3, 3)
        assert fast.form.cells == slow.cells
        assert fast.automorphisms == slow.automorphisms
        assert fast.transformation == slow.transformation


@pytest.mark.skipif(not minlex_built(), reason="the compiled minlex search was not built")
@pytest.mark.parametrize(
    ("box", "keep"),
    [
        *[("2x4", 0.2), ("2x4", 0.45), ("2x4", 1.0), ("4x2", 0.45), ("4x2", 1.0)],
        *[("3x4", 0.2), ("3x4", 0.45), ("4x3", 0.2), ("4x3", 0.45)],
    ],
)
def test_compiled_search_agrees_with_the_reference_on_8x8_and_12x12(box: str, keep: float) -> None:
    """Shapes too large for brute force: the C search and the Python one agree."""
    br, bc = map(int, box.split("x"))
    rng = random.Random(f"{box}{keep}")
    p = holes(generate_grid(box, seed=3), keep, rng)
    fast, slow = canonical(p), minlex(p.cells, br, bc)
    assert fast.form.cells == slow.cells
    assert fast.automorphisms == slow.automorphisms
    assert fast.transformation == slow.transformation


def brute_force_9x9(cells: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Minlex form and automorphisms of a 9x9 grid over all 3,359,232 transformations.

    Every image is built and relabelled, 1,296 column orders at a time (numpy): no
    pruning, nothing shared with the search under test.
    """
    import numpy as np

    perms = np.array(list(line_perms(9, 3)))  # the 1,296 row (or column) orders
    digits = np.arange(1, 10)
    grid = np.array(cells).reshape(9, 9)
    best: bytes | None = None
    count = 0
    for g in (grid, grid.T):
        for rows in perms:
            images = g[rows][:, perms].transpose(1, 0, 2).reshape(len(perms), 81)
            seen = images[:, :, None] == digits
            first = np.where(seen.any(1), seen.argmax(1), 99)  # first cell of each digit
            labels = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1) + 1
            index = np.maximum(images - 1, 0)
            relabelled = np.where(images > 0, np.take_along_axis(labels, index, 1), 0)
            # Each image as one byte string (labels + 1: no trailing NUL to be dropped).
            keys = (relabelled.astype(np.uint8) + 1).view("S81").ravel()
            least = bytes(np.sort(keys)[0])
            ties = int(np.count_nonzero(keys == least))
            if best is None or least < best:
                best, count = least, ties
            elif least == best:
                count += ties
    assert best is not None
    return tuple(b - 1 for b in best), count


@pytest.mark.slow
def test_a_9x9_puzzle_matches_brute_force_over_every_transformation() -> None:
    """The 9x9 search against all 2 x 6^8 transformations, one by one (about 10 s)."""
    p = parse(lines("clue17_royle_200.txt")[7], check=False)
    c = canonical(p)
    assert (c.form.cells, c.automorphisms) == brute_force_9x9(p.cells)


def test_automorphisms_of_known_symmetric_grids() -> None:
    assert canonical(SYMMETRIC).automorphisms == 648
    assert canonical(SYMMETRIC, method="graph").automorphisms == 648
    assert canonical("." * 81).automorphisms == 2 * 6**8
    assert canonical("." * 81, method="graph").automorphisms == 2 * 6**8
    assert canonical("." * 16).automorphisms == 128
    assert canonical("." * 256).automorphisms == 2 * 24**10  # graph key, nauty's order
    # 12x12, 3x4 boxes: 4! bands x 3!^4 rows, 3! stacks x 4!^3 columns, no transposition.
    assert canonical("." * 144).automorphisms == 24 * 6**4 * 6 * 24**3


# ------------------------------------------------------------------ regular puzzles
#
# Very regular valid puzzles (whole rows, bands, boxes or digits of a grid, and nothing
# else) are the search's worst cases: their automorphisms run into the hundreds of
# millions, and every one of them ties. The search counts the twins among them (empty
# rows of a band, empty bands, columns and stacks whose digits appear nowhere else)
# instead of enumerating them; these tests hold it to brute force where that is
# affordable, to the Python reference elsewhere, and to counts found by reasoning.


def pattern_grid(box: str) -> Puzzle:
    """The most regular valid grid of a box shape: each row a shift of the first."""
    br, bc = map(int, box.split("x"))
    n = br * bc
    cells = tuple((bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n))
    return Puzzle(Rules.classic(br, bc), cells)


#: Which cells of a grid a regular puzzle keeps: keep(row, col, value, box rows, box cols).
REGULAR: dict[str, Callable[[int, int, int, int, int], bool]] = {
    "one row": lambda r, c, v, br, bc: r == 0,
    "one column": lambda r, c, v, br, bc: c == 0,
    "one band": lambda r, c, v, br, bc: r < br,
    "one stack": lambda r, c, v, br, bc: c < bc,
    "one box": lambda r, c, v, br, bc: r < br and c < bc,
    "one cell": lambda r, c, v, br, bc: r == c == 0,
    "two rows": lambda r, c, v, br, bc: r < 2,
    "a row and a column": lambda r, c, v, br, bc: r == 0 or c == 0,
    "a band and a stack": lambda r, c, v, br, bc: r < br or c < bc,
    "the first row of each band": lambda r, c, v, br, bc: r % br == 0,
    "the diagonal boxes": lambda r, c, v, br, bc: r // br == c // bc,
    "one digit": lambda r, c, v, br, bc: v == 1,
    "two digits": lambda r, c, v, br, bc: v <= 2,
    "all but one digit": lambda r, c, v, br, bc: v != 1,
    "all but one row": lambda r, c, v, br, bc: r != 0,
    "all but one band": lambda r, c, v, br, bc: r >= br,
    "every cell": lambda r, c, v, br, bc: True,
}


def regular(grid: Puzzle, kind: str) -> Puzzle:
    """The regular puzzle ``kind`` (see :data:`REGULAR`) cut from a grid."""
    br, bc, n = grid.rules.box_rows, grid.rules.box_cols, grid.n
    keep = REGULAR[kind]
    cells = tuple(v if keep(k // n, k % n, v, br, bc) else 0 for k, v in enumerate(grid.cells))
    return Puzzle(grid.rules, cells)


def regular_puzzles(box: str, kinds: Iterator[str] | list[str] | None = None) -> list[Puzzle]:
    """The regular puzzles of a box shape, cut from the pattern grid and a generated one."""
    grids = [pattern_grid(box), generate_grid(box, seed=1)]
    return [regular(g, kind) for g in grids for kind in (kinds or REGULAR)]


@pytest.mark.parametrize("box", ["2x2", "2x3", "3x2"])
def test_regular_puzzles_match_brute_force(box: str) -> None:
    br, bc = map(int, box.split("x"))
    empty = Puzzle(Rules.classic(br, bc), (0,) * (br * bc) ** 2)
    for p in [*regular_puzzles(box), empty]:
        expected = brute_force(p.cells, br, bc)
        reference = minlex(p.cells, br, bc)
        assert (reference.cells, reference.automorphisms) == expected
        assert reference.transformation.apply(p.cells) == reference.cells
        c = canonical(p)
        assert (c.form.cells, c.automorphisms) == expected


@pytest.mark.slow
def test_a_regular_9x9_puzzle_matches_brute_force() -> None:
    """One full box and nothing else: twin rows, bands, columns and stacks at once."""
    p = regular(generate_grid("3x3", seed=4), "one box")
    c = canonical(p)
    assert (c.form.cells, c.automorphisms) == brute_force_9x9(p.cells)
    assert c.automorphisms == 2 * 432 * 432  # see test_automorphisms_of_regular_puzzles


#: The regular puzzles whose Python reference search takes at most about 0.1 s.
QUICK_REGULAR = [
    "one row",
    "one column",
    "one stack",
    "one box",
    "one cell",
    "a band and a stack",
    "the diagonal boxes",
    "one digit",
    "two digits",
]


@pytest.mark.skipif(not minlex_built(), reason="the compiled minlex search was not built")
@pytest.mark.parametrize("box", ["2x4", "4x2", "3x3", "3x4", "4x3"])
def test_compiled_search_agrees_with_the_reference_on_regular_puzzles(box: str) -> None:
    """Form, count and the transformation itself: the twins are chosen alike."""
    br, bc = map(int, box.split("x"))
    kinds = list(REGULAR) if br * bc <= 9 else QUICK_REGULAR
    for p in regular_puzzles(box, kinds):
        fast, slow = canonical(p), minlex(p.cells, br, bc)
        assert fast.form.cells == slow.cells
        assert fast.automorphisms == slow.automorphisms
        assert fast.transformation == slow.transformation


def _line_orders(n: int, size: int) -> int:
    """How many orders of n lines keep blocks of ``size`` whole: (n/size)! * size!^(n/size)."""
    return math.factorial(n // size) * math.factorial(size) ** (n // size)


@pytest.mark.parametrize("box", ["2x2", "2x3", "3x2", "2x4", "4x2", "3x3", "3x4", "4x3"])
def test_automorphisms_of_regular_puzzles(box: str) -> None:
    """Counts found by reasoning, not by a search.

    Row orders (R of them) and column orders (C) act independently; a puzzle's
    automorphisms are the pairs that map its given cells onto themselves, any
    relabelling of the digits allowed. Every given line below holds distinct digits,
    so any order of its cells is undone by a relabelling, and by orbit and stabiliser
    the orders that keep one of n rows in place are R / n (the row orders move any row
    to any row), those that keep one of n / br bands in place R / (n / br). A
    transposition (square boxes) maps a row to a column, so it is an automorphism only
    where the puzzle is its own transpose up to those orders: an empty grid, one cell,
    one box.
    """
    br, bc = map(int, box.split("x"))
    n = br * bc
    rows, cols = _line_orders(n, br), _line_orders(n, bc)
    flip = 2 if br == bc else 1
    grid = generate_grid(box, seed=2)
    empty = Puzzle(grid.rules, (0,) * n * n)
    expected = {
        empty: flip * rows * cols,
        regular(grid, "one row"): rows // n * cols,  # 215 million on 12x12
        regular(grid, "one column"): rows * (cols // n),
        regular(grid, "one cell"): flip * (rows // n) * (cols // n),
        regular(grid, "one box"): flip * (rows // (n // br)) * (cols // (n // bc)),
    }
    for p, count in expected.items():
        assert canonical(p).automorphisms == count, p.line()
    if box == "3x4":
        assert expected[regular(grid, "one row")] == 214_990_848


@pytest.mark.parametrize("box", ["2x4", "4x2", "3x3", "3x4", "4x3"])
def test_automorphisms_of_regular_puzzles_agree_with_nauty(box: str) -> None:
    """An independent count: nauty's group order of the puzzle's graph (the graph key).

    The minlex search multiplies most of these counts out of twin classes and ties
    instead of meeting each automorphism; nauty shares none of that.
    """
    for p in regular_puzzles(box):
        graph = canonical(p, method="graph")
        assert canonical(p).automorphisms == graph.automorphisms, p.line()


@pytest.mark.parametrize("box", ["3x3", "3x4", "4x3"])
def test_regular_puzzles_are_invariant_under_transformations(box: str) -> None:
    """The former worst cases (seconds to minutes each) among them."""
    rng = random.Random(f"regular {box}")
    br, bc = map(int, box.split("x"))
    for p in regular_puzzles(box):
        c = canonical(p)
        assert transform(p, c.transformation) == c.form
        for _ in range(3):
            q = transform(p, random_transformation(br, bc, rng))
            cq = canonical(q)
            assert (cq.form, cq.automorphisms) == (c.form, c.automorphisms)
            assert transform(q, cq.transformation) == cq.form


def test_twins_are_automorphisms() -> None:
    """Each twin class the search folds is a class of real symmetries of the grid."""
    for box in ("2x3", "3x3", "3x4", "4x3"):
        br, bc = map(int, box.split("x"))
        n = br * bc
        for p in regular_puzzles(box):
            grid = [list(p.cells[r * n : (r + 1) * n]) for r in range(n)]
            transposed = [list(col) for col in zip(*grid, strict=True)]
            for lines, block in ((grid, br), (transposed, bc)):
                rows, bands = twin_classes(lines, block)
                identity = list(range(n))
                for r in range(n):
                    for other in _members(rows[r]):
                        order = identity.copy()
                        order[r], order[other] = other, r
                        assert _symmetric(lines, order), (box, r, other)
                for b in range(n // block):
                    for other in _members(bands[b]):
                        assert _band_swap_is_symmetric(lines, block, b, other), (box, b)


def test_twin_classes_of_a_one_row_puzzle() -> None:
    """12x12, 3x4 boxes, row 0 full: what the search folds instead of enumerating."""
    p = regular(generate_grid("3x4", seed=1), "one row")
    grid = [list(p.cells[r * 12 : (r + 1) * 12]) for r in range(12)]
    rows, bands = twin_classes(grid, 3)
    assert rows[:3] == [0b001, 0b110, 0b110]  # the full row has no twin; the empty ones do
    assert rows[3:] == [0b111 << 3] * 3 + [0b111 << 6] * 3 + [0b111 << 9] * 3
    assert bands == [0b0001, 0b1110, 0b1110, 0b1110]
    # Its columns: each holds one digit that appears nowhere else, so a stack's columns
    # are twins, and so are the stacks.
    columns, stacks = twin_classes([list(c) for c in zip(*grid, strict=True)], 4)
    assert columns == [0b1111 << (4 * (c // 4)) for c in range(12)]
    assert stacks == [0b111] * 3


def _members(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _symmetric(lines: list[list[int]], order: list[int]) -> bool:
    """Whether reading the lines in ``order`` gives the grid again, relabelled."""
    flat = [v for line in lines for v in line]
    return relabelled(tuple(v for r in order for v in lines[r])) == relabelled(tuple(flat))


def _band_swap_is_symmetric(lines: list[list[int]], block: int, b1: int, b2: int) -> bool:
    """Whether some swap of bands b1 and b2, row for row, is a symmetry."""
    one = range(b1 * block, b1 * block + block)
    for two in itertools.permutations(range(b2 * block, b2 * block + block)):
        order = list(range(len(lines)))
        for r1, r2 in zip(one, two, strict=True):
            order[r1], order[r2] = r2, r1
        if _symmetric(lines, order):
            return True
    return False


# ------------------------------------------------------------------ invariance


def check_invariant(p: Puzzle, rng: random.Random, times: int = 100) -> None:
    br, bc = p.rules.box_rows, p.rules.box_cols
    c = canonical(p)
    assert transform(p, c.transformation) == c.form
    for _ in range(times):
        q = transform(p, random_transformation(br, bc, rng))
        cq = canonical(q)
        assert cq.form == c.form
        assert transform(q, cq.transformation) == cq.form
        assert cq.automorphisms == c.automorphisms


def test_the_9x9_sets_are_every_bundled_one() -> None:
    """Each bundled file is a 9x9 set checked below, or of another size or rules."""
    names = {p.name for p in DATA.iterdir() if p.is_file()}  # folders hold variant sets
    assert names - NOT_NINE_BY_NINE == set(NINE_BY_NINE)
    assert len(NINE_BY_NINE) >= 11
    assert {"invalid_sudopedia.meta.csv", "tdoku_test_puzzles.meta.csv"} <= set(NINE_BY_NINE)


@pytest.mark.parametrize("name", NINE_BY_NINE)
def test_every_9x9_set_is_invariant_under_100_transformations(name: str) -> None:
    rng = random.Random(name)
    puzzles = bundled_puzzles(name)
    for text in rng.sample(puzzles, min(3, len(puzzles))):
        check_invariant(parse(text, check=False), rng)


@pytest.mark.parametrize(
    ("box", "keep"),
    [
        ("2x2", 0.5),
        ("2x2", 1.0),
        ("2x3", 0.4),
        ("2x3", 1.0),
        ("3x2", 0.4),
        ("2x4", 0.35),
        ("2x4", 1.0),
        ("4x2", 0.35),
        ("3x3", 1.0),  # a solution grid
        ("3x4", 0.4),
        ("4x3", 0.5),
    ],
)
def test_every_box_shape_is_invariant_under_100_transformations(box: str, keep: float) -> None:
    rng = random.Random(box)
    check_invariant(holes(generate_grid(box, seed=7), keep, rng), rng)


@pytest.mark.parametrize(
    ("name", "box"), [("16x16_vukr_6.txt", "4x4"), ("25x25_misc_3.txt", "5x5")]
)
def test_large_grids_take_an_invariant_graph_key(name: str, box: str) -> None:
    rng = random.Random(name)
    p = parse(lines(name)[0], box, check=False)
    c = canonical(p)
    assert c.method == "graph"
    assert transform(p, c.transformation) == c.form
    for _ in range(100):
        q = transform(p, random_transformation(p.rules.box_rows, p.rules.box_cols, rng))
        cq = canonical(q)
        assert cq.form == c.form
        assert transform(q, cq.transformation) == cq.form
        assert cq.automorphisms == c.automorphisms
        t = equivalent(p, q)
        assert t is not None
        assert transform(p, t) == q


# ------------------------------------------------------------------ separation


def test_the_17_clue_sample_holds_no_two_equivalent_puzzles(tmp_path: Path) -> None:
    out = tmp_path / "kept.txt"
    code = main(["dedupe", str(DATA / "clue17_royle_200.txt"), "-o", str(out), "--quiet"])
    assert code == 0
    assert out.read_text().splitlines() == lines("clue17_royle_200.txt")


ROYLE = Path(__file__).parent.parent / "benchmarks" / "data" / "clue17_royle.txt"


def test_the_bundled_17_clue_file_holds_no_two_equivalent_puzzles(tmp_path: Path) -> None:
    """All 2,000 lines of the bundled cut of Royle's list: dedupe keeps every one."""
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(ROYLE), "-o", str(out), "--threads", "2", "--quiet"]) == 0
    puzzles = [s.strip() for s in ROYLE.read_text().splitlines() if s.strip()]
    assert len(puzzles) == 2000
    assert out.read_text().splitlines() == puzzles
    report = report_rows(Path(f"{out}.classes.csv"))
    assert [r["size"] for r in report] == ["1"] * 2000


def test_dedupe_counts_threads_and_still_reads_the_old_jobs_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--threads is the one name; --jobs (batch's word for processes) still works, with a note."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines("clue17_royle_200.txt")[:20]) + "\n")
    assert "--threads N" in _help(capsys, "dedupe")
    assert main(["dedupe", str(src), "-o", str(tmp_path / "a.txt"), "--threads", "2"]) == 0
    assert "note" not in capsys.readouterr().err
    assert main(["dedupe", str(src), "-o", str(tmp_path / "b.txt"), "--jobs", "2"]) == 0
    assert "--jobs is now --threads" in capsys.readouterr().err
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    assert main(["dedupe", str(src), "-o", str(tmp_path / "c.txt"), "--threads", "0"]) == 2
    assert "--threads must be at least 1, got 0" in capsys.readouterr().err


def _help(capsys: pytest.CaptureFixture[str], command: str) -> str:
    with contextlib.suppress(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def test_one_given_apart_is_not_equivalent_unless_a_transformation_says_so() -> None:
    rng = random.Random(5)
    found = 0
    for text in lines("clue17_royle_200.txt")[:20]:
        p = parse(text, check=False)
        empty = [k for k, v in enumerate(p.cells) if not v]
        one, two = (list(p.cells) for _ in range(2))
        for cells in (one, two):
            cells[rng.choice(empty)] = rng.randint(1, 9)
        a, b = Puzzle(p.rules, tuple(one)), Puzzle(p.rules, tuple(two))
        t = equivalent(a, b)
        assert t is None or transform(a, t) == b
        assert equivalent(p, a) is None  # 17 givens against 18
        # One given's value changed: the same cells, one digit apart.
        given = rng.choice([k for k, v in enumerate(p.cells) if v])
        other = list(p.cells)
        other[given] = rng.choice([d for d in range(1, 10) if d != p.cells[given]])
        c = Puzzle(p.rules, tuple(other))
        t = equivalent(p, c)
        assert t is None or transform(p, t) == c
        found += t is not None
    assert found < 20  # most such pairs are different puzzles


def test_equivalent_gives_a_transformation_that_maps_one_onto_the_other() -> None:
    rng = random.Random(11)
    p = parse(lines("top95.txt")[3])
    q = transform(p, random_transformation(3, 3, rng))
    t = equivalent(p, q)
    assert t is not None
    assert transform(p, t) == q
    back = equivalent(q, p)
    assert back is not None
    assert transform(q, back) == p


def test_puzzles_of_other_shapes_or_rules_get_a_clear_error() -> None:
    """Different sizes, box shapes or rules are never equivalent: an error says why."""
    diagonal = Region("diagonal", tuple(range(0, 81, 10)))
    x_sudoku = Puzzle(Rules.classic(3, 3).with_extra(diagonal), (0,) * 81)
    classic = parse(lines("top95.txt")[0])
    wide, tall = Puzzle(Rules.classic(2, 3), (0,) * 36), Puzzle(Rules.classic(3, 2), (0,) * 36)
    with pytest.raises(TransformationError, match=r"4x4 \(2x2 boxes\) grid and a 9x9"):
        equivalent("." * 16, classic)
    with pytest.raises(TransformationError, match=r"\(2x3 boxes\) grid and a 6x6 \(3x2"):
        equivalent(wide, tall)
    with pytest.raises(TransformationError, match=r"diagonal.*never equivalent"):
        equivalent(x_sudoku, classic)
    with pytest.raises(TransformationError, match="rows, columns and boxes alone"):
        equivalent(x_sudoku, x_sudoku)
    with pytest.raises(TransformationError, match=r"3x3 boxes does not apply to a 9x9 .*diagonal"):
        transform(x_sudoku, Transformation.identity((3, 3)))
    with pytest.raises(TransformationError, match=r"3x2 boxes does not apply to a 6x6 \(2x3"):
        transform(wide, Transformation.identity((3, 2)))
    with pytest.raises(PuzzleError, match="got 2 cells"):
        equivalent("12", classic)
    # The same text read with the box shape the transformation names.
    assert transform("." * 36, Transformation.identity((3, 2))).rules == tall.rules


# ------------------------------------------------------------------ the transformation type


def test_transformations_compose_and_invert() -> None:
    rng = random.Random(2)
    p = parse(lines("easy_kaggle1m_200.txt")[0])
    s, t = random_transformation(3, 3, rng), random_transformation(3, 3, rng)
    assert transform(p, s.then(t)) == transform(transform(p, s), t)
    assert transform(transform(p, s), s.inverse()) == p
    assert s.then(s.inverse()) == Transformation.identity((3, 3))


def test_a_transformation_that_breaks_the_rules_is_refused() -> None:
    line = tuple(range(6))
    digits = tuple(range(1, 7))
    with pytest.raises(TransformationError, match="cannot be transposed"):
        Transformation((2, 3), True, line, line, digits)
    with pytest.raises(TransformationError, match="split a band"):
        Transformation((2, 3), False, (0, 2, 1, 3, 4, 5), line, digits)
    with pytest.raises(TransformationError, match="not a permutation"):
        Transformation((2, 3), False, line, line, (1, 1, 2, 3, 4, 5))
    with pytest.raises(TransformationError, match="does not apply"):
        transform(parse("." * 81), Transformation.identity((2, 3)))
    diagonal = Region("diagonal", tuple(range(0, 81, 10)))
    x_sudoku = Puzzle(Rules.classic(3, 3).with_extra(diagonal), (0,) * 81)
    with pytest.raises(TransformationError, match="boxes alone"):
        canonical(x_sudoku)


# ------------------------------------------------------------------ bulk path and commands


def test_bulk_lines_match_single_calls_and_name_bad_records() -> None:
    texts = [*lines("easy_norvig50.txt")[:5], "12", "1.343..2.3..2..3", "x" * 81]
    out = canonical_lines(texts)
    for text, key in zip(texts, out, strict=True):
        if text in ("12",) or text.startswith("x"):
            assert not isinstance(key, str)
        else:
            assert key == canonical(text).line


def test_canon_command_prints_the_form_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["canon", SYMMETRIC]) == 0
    out = capsys.readouterr().out
    assert "automorphisms: 648" in out
    assert f"canonical: {canonical(SYMMETRIC).line}" in out
    assert main(["canon", "--json", lines("top95.txt")[0]]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["canonical"] == canonical(lines("top95.txt")[0]).line
    assert record["automorphisms"] == 1
    assert main(["canon", "12"]) == 2


def test_canon_command_names_the_place_of_every_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def error(*argv: str) -> str:
        assert main(["canon", *argv]) == 2
        return capsys.readouterr().err

    puzzle = lines("top95.txt")[0]
    assert "row 9, column 9" in error(puzzle[:-1] + "Z")  # not taken for a file "....Z"
    assert "row 1, column 5" in error(puzzle[:4] + "?" + puzzle[5:])
    assert "got 80 cells" in error(puzzle[:-1])
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert f"{empty}: empty input" in error(str(empty))
    two = tmp_path / "two.txt"
    two.write_text(puzzle + "\n" + puzzle + "\n")
    assert f"{two}: the input holds 2 puzzles" in error(str(two))
    x_sudoku = {"rules": {"size": 9, "box": "3x3", "extra": [{"kind": "diagonal", "cells": [0]}]}}
    assert "rows, columns and boxes alone" in error(json.dumps({**x_sudoku, "puzzle": puzzle}))
    # --json: an invalid input's answer has the keys of a good one, and the reason.
    assert main(["canon", "--json", puzzle]) == 0
    good = json.loads(capsys.readouterr().out)
    assert main(["canon", "--json", str(empty)]) == 2
    bad = json.loads(capsys.readouterr().out)
    assert set(bad) == set(good)
    assert good["error"] is None
    assert bad["canonical"] is None
    assert bad["error"] == f"{empty}: empty input: no cells found"


def symmetric_images(count: int, seed: int) -> list[str]:
    """``count`` random transformations of 30 easy puzzles, as one-line texts."""
    rng = random.Random(seed)
    sources = lines("easy_kaggle1m_200.txt")[:30]
    return [
        transform(parse(rng.choice(sources)), random_transformation(3, 3, rng)).line()
        for _ in range(count)
    ]


def first_of_each_class(texts: list[str]) -> list[str]:
    """What dedupe must keep of one-line puzzles: the first of each class, in order."""
    keys = [canonical(t).line for t in texts]
    return [t for i, t in enumerate(texts) if keys[i] not in keys[:i]]


def report_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_dedupe_keeps_the_first_of_each_class_and_reports_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = symmetric_images(200, seed=3)
    records = [*texts[:120], "not a puzzle", *texts[120:]]
    path = tmp_path / "in.csv"
    path.write_text("quizzes\n" + "\n".join(records) + "\n")
    out, report = tmp_path / "kept.txt", tmp_path / "classes.csv"
    code = main(["dedupe", str(path), "-o", str(out), "--report", str(report), "--threads", "2"])
    assert code == 4  # one record with no canonical form
    assert "record 120 has no canonical form, kept in place" in capsys.readouterr().err
    kept = out.read_text().splitlines()
    # Only duplicates are dropped: the unreadable record stays, in its place.
    expected = [*first_of_each_class(texts[:120]), "not a puzzle"]
    expected += [t for t in first_of_each_class(texts) if t not in expected]
    assert kept == expected
    rows = report_rows(report)
    assert list(rows[0]) == ["class", "size", "first_index", "canonical", "error"]
    assert [int(r["first_index"]) for r in rows] == [records.index(t) for t in kept]
    assert sum(int(r["size"]) for r in rows) == len(records)
    classes = [r for r in rows if r["class"]]
    assert len(classes) == len({canonical(t).line for t in texts}) == len(kept) - 1
    for r in classes:
        assert r["canonical"] == canonical(records[int(r["first_index"])]).line
        assert r["error"] == ""
    (bad,) = (r for r in rows if not r["class"])
    assert (bad["first_index"], bad["size"], bad["canonical"]) == ("120", "1", "")
    assert "cells" in bad["error"]


def _gzip(path: Path, data: bytes) -> None:
    import gzip

    path.write_bytes(gzip.compress(data))


def _zip(path: Path, data: bytes) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(path.name.removesuffix(".zip"), data)


def _bz2(path: Path, data: bytes) -> None:
    import bz2

    path.write_bytes(bz2.compress(data))


def _xz(path: Path, data: bytes) -> None:
    import lzma

    path.write_bytes(lzma.compress(data))


def _plain(path: Path, data: bytes) -> None:
    path.write_bytes(data)


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("in.txt", _plain),
        ("in.csv", _plain),
        ("in.jsonl", _plain),
        ("in.txt.gz", _gzip),
        ("in.csv.zip", _zip),
        ("in.jsonl.bz2", _bz2),
        ("in.txt.xz", _xz),
    ],
)
def test_dedupe_reads_every_input_format_batch_reads(
    tmp_path: Path, name: str, write: Callable[[Path, bytes], None]
) -> None:
    texts = symmetric_images(60, seed=8)
    kind = name.split(".")[1]
    if kind == "csv":  # the puzzle column need not be the first
        body = "id,puzzle,solution\n" + "".join(f"p{k},{t},\n" for k, t in enumerate(texts))
    elif kind == "jsonl":
        body = "".join(json.dumps({"id": k, "puzzle": t}) + "\n" for k, t in enumerate(texts))
    else:
        body = "# a comment line, then the puzzles\n\n" + "\n".join(texts) + "\n"
    path = tmp_path / name
    write(path, body.encode())
    out = tmp_path / "kept.csv"
    assert main(["dedupe", str(path), "-o", str(out), "--quiet"]) == 0
    rows = report_rows(out)
    expected = first_of_each_class(texts)
    assert [r["puzzle"] for r in rows] == expected
    assert [int(r["index"]) for r in rows] == [texts.index(t) for t in expected]
    report = report_rows(Path(f"{out}.classes.csv"))
    assert sum(int(r["size"]) for r in report) == len(texts)


def test_dedupe_keeps_and_names_every_record_with_no_canonical_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad records are kept in place and named; only proven duplicates go."""
    good = lines("easy_kaggle1m_200.txt")[:4]
    assert len({canonical(t).line for t in good}) == 4
    image = transform(good[0], random_transformation(3, 3, random.Random(1))).line()
    x_rules = {"size": 9, "box": "3x3", "extra": [{"kind": "diagonal", "cells": [0, 10, 20]}]}
    text = [
        json.dumps({"puzzle": good[0]}),
        json.dumps({"puzzle": "12"}),  # wrong length
        json.dumps({"puzzle": good[1]}),
        json.dumps({"puzzle": good[0][:-1] + "Z"}),  # unknown symbol
        json.dumps({"rules": x_rules, "puzzle": good[2]}),  # rules beyond boxes
        json.dumps({"puzzle": 7}),  # not a puzzle
        '{"puzzle": "unclosed',  # malformed JSON
        json.dumps({"rules": {"size": 9, "box": "3x3"}, "puzzle": image}),  # a duplicate of 0
        json.dumps({"puzzle": good[3]}),
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(text) + "\n")
    out = tmp_path / "kept.jsonl"
    assert main(["dedupe", str(path), "-o", str(out), "--threads", "2"]) == 4
    err = capsys.readouterr().err
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["index"] for row in kept] == [0, 1, 2, 3, 4, 5, 6, 8]
    assert kept[-1]["puzzle"] == good[3]
    report = report_rows(Path(f"{out}.classes.csv"))
    assert sum(int(r["size"]) for r in report) == len(text)
    assert [r["size"] for r in report if r["class"]] == ["2", "1", "1"]  # 0 and 7 are one
    reasons = {int(r["first_index"]): r["error"] for r in report if not r["class"]}
    assert sorted(reasons) == [1, 3, 4, 5, 6]
    assert "got 2 cells" in reasons[1]
    assert "symbol 'Z'" in reasons[3]
    assert "row 9, column 9" in reasons[3]
    assert "rows, columns and boxes alone" in reasons[4]
    assert '"puzzle" field is' in reasons[5]
    assert "malformed JSON" in reasons[6]
    for index in reasons:
        assert f"record {index} has no canonical form" in err
    assert "5 invalid (kept in place)" in err


def test_dedupe_of_an_empty_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("# only a comment\n\n")
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(path), "-o", str(out)]) == 0
    assert f"{path} holds no records" in capsys.readouterr().err
    assert out.read_text() == ""
    assert Path(f"{out}.classes.csv").read_text() == "class,size,first_index,canonical,error\n"


def test_dedupe_names_only_the_first_few_bad_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("".join(f"{'x' * k}\n" for k in range(1, 26)))  # no puzzle among them
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(path), "-o", str(out)]) == 4
    err = capsys.readouterr().err
    assert err.count("has no canonical form, kept in place") == 10
    assert f"... and 15 more records with no canonical form; {out}.classes.csv" in err
    assert out.read_text() == path.read_text()


def test_dedupe_writes_a_multi_line_record_as_one_line(tmp_path: Path) -> None:
    """A Project Euler 96 grid is one record over ten lines; a .txt output has one line."""
    puzzles = lines("top95.txt")[:3]
    body = ""
    for k, p in enumerate(puzzles, 1):
        digits = p.replace(".", "0")
        body += f"Grid {k:02d}\n" + "".join(digits[r * 9 : r * 9 + 9] + "\n" for r in range(9))
    path = tmp_path / "p096_sudoku.txt"
    path.write_text(body)
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(path), "-o", str(out), "--quiet"]) == 0
    # Each grid is read as its one-line form, as the file writes it (0 for empty).
    assert out.read_text().splitlines() == [p.replace(".", "0") for p in puzzles]


def read_rows(path: Path) -> list[dict[str, object]]:
    """The rows of a batch output: CSV, JSON lines or a Parquet folder."""
    if path.suffix == ".parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        return list(pq.read_table(path).to_pylist())
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_batch_canon_adds_the_column(tmp_path: Path, suffix: str) -> None:
    """Every output kind gets the column, last; empty where a record has no form."""
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    texts = lines("easy_norvig50.txt")[:12]
    x_sudoku = json.dumps(
        {
            "rules": {
                "size": 9,
                "box": "3x3",
                "extra": [{"kind": "diagonal", "cells": list(range(0, 81, 10))}],
            },
            "puzzle": "." * 81,
        }
    )
    src = tmp_path / "in.jsonl"
    records = [*texts, "12", x_sudoku]
    src.write_text("\n".join(json.dumps({"puzzle": t}) if t[0] != "{" else t for t in records))
    out = tmp_path / f"rows{suffix}"
    flags = ["--jobs", "1", "--chunk-size", "5", "--quiet"]  # Parquet: three part files
    code = main(["batch", str(src), "-o", str(out), "--canon", *flags])
    assert code == 4  # the record "12" is invalid
    rows = read_rows(out)
    assert list(rows[0])[-1] == "canonical"
    assert [r["index"] in (k, str(k)) for k, r in enumerate(rows)] == [True] * len(records)
    assert [r["canonical"] for r in rows] == [canonical(t).line for t in texts] + ["", ""]
    plain = tmp_path / f"plain{suffix}"
    assert main(["batch", str(src), "-o", str(plain), *flags]) == 4
    assert "canonical" not in read_rows(plain)[0]


def test_batch_canon_refuses_what_it_cannot_add_to(tmp_path: Path) -> None:
    src = DATA / "easy_norvig50.txt"
    out = str(tmp_path / "rows.csv")
    for flags in (["--resume"], ["--retry-timeouts"], ["--symbols", "ABCDEFGHI"]):
        assert main(["batch", str(src), "-o", out, "--canon", *flags]) == 2


@pytest.mark.skipif(not minlex_built(), reason="the compiled minlex search was not built")
def test_the_compiled_bulk_call_leaves_what_it_cannot_read_to_the_caller() -> None:
    fast = compiled()
    assert fast is not None
    texts = ["." * 80, "x" * 81, "é" * 81, 5, "." * 81]
    assert fast.minlex_lines(texts, 3, 3) == [None, None, None, None, "0" * 81]
    with pytest.raises(ValueError, match="box shape"):
        fast.minlex_lines([], 5, 5)
    with pytest.raises(ValueError, match="outside"):
        fast.minlex(bytes([10] * 81), 3, 3)


def test_dedupe_of_16x16_puzzles_uses_the_graph_key(tmp_path: Path) -> None:
    rng = random.Random(16)
    sources = [parse(t, "4x4", check=False) for t in lines("16x16_vukr_6.txt")[:3]]
    texts = [
        transform(rng.choice(sources), random_transformation(4, 4, rng)).line() for _ in range(12)
    ]
    path = tmp_path / "big.txt"
    path.write_text("\n".join(texts) + "\n")
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(path), "-o", str(out), "--quiet"]) == 0
    kept = out.read_text().splitlines()
    keys = [canonical(t).line for t in texts]
    assert len(kept) == len(set(keys)) <= 3
    assert kept == [t for i, t in enumerate(texts) if keys[i] not in keys[:i]]
