import numpy  # noqa: F401  (loaded, as in a batch: is_solution takes its sums path)
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules
from cpsudoku.model.verify import is_solution, solution_problems

PUZZLE = "1.343..2.3..2..3"
SOLUTION = "1234341243212143"


def test_valid_completion() -> None:
    assert is_solution(parse(PUZZLE), parse(SOLUTION))
    assert solution_problems(parse(PUZZLE), parse(SOLUTION)) == []


def test_changed_given_is_rejected() -> None:
    other = parse("2143341243211234")  # valid grid, but not this puzzle's
    assert not is_solution(parse(PUZZLE), other)
    assert any("given" in p for p in solution_problems(parse(PUZZLE), other))


def test_incomplete_or_repeating_grid_is_rejected() -> None:
    assert not is_solution(parse(PUZZLE), parse(PUZZLE))
    bad = parse("1234341243212134", check=False)
    assert not is_solution(parse("." * 16), bad)
    assert any("column" in p for p in solution_problems(parse("." * 16), bad))


def test_geometry_mismatch() -> None:
    assert not is_solution(parse("." * 36), parse("." * 36, box="3x2", check=False))


def _extra(n: int, which: str) -> tuple[Region, ...]:
    """Extra regions: none, both diagonals (n cells each), or a window of four cells."""
    if which == "diagonals":
        return (
            Region("diagonal", tuple(i * n + i for i in range(n))),
            Region("anti-diagonal", tuple(i * n + n - 1 - i for i in range(n))),
        )
    if which == "window":
        return (Region("window", (n + 1, n + 2, 2 * n + 1, 2 * n + 2)),)
    return ()


@settings(max_examples=300, deadline=None)
@given(
    box=st.sampled_from(["2x2", "2x3", "3x2"]),
    extra=st.sampled_from(["", "diagonals", "window"]),
    data=st.data(),
)
def test_fast_check_agrees_with_the_itemised_one(box: str, extra: str, data: st.DataObject) -> None:
    """``is_solution`` (the fast path every backend uses) says yes exactly when
    ``solution_problems`` finds nothing, on grids near and far from valid ones: units
    of n cells only (sums of powers of two) and with a shorter region (a set)."""
    rows, cols = map(int, box.split("x"))
    g = Rules(rows * cols, (rows, cols), extra=_extra(rows * cols, extra))
    n = g.n
    # A valid grid: the pattern solution, then a random relabelling of the values.
    base = [
        (g.box_cols * (r % g.box_rows) + r // g.box_rows + c) % n + 1
        for r in range(n)
        for c in range(n)
    ]
    perm = data.draw(st.permutations(range(1, n + 1)))
    cells = [perm[v - 1] for v in base]
    edits = data.draw(st.lists(st.tuples(st.integers(0, n * n - 1), st.integers(0, n)), max_size=3))
    for i, v in edits:
        cells[i] = v
    solution = Puzzle(g, tuple(cells))
    mask = data.draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    givens = [v if keep else 0 for v, keep in zip(base, mask, strict=True)]
    puzzle = Puzzle(g, tuple(perm[v - 1] if v else 0 for v in givens))
    assert is_solution(puzzle, solution) == (solution_problems(puzzle, solution) == [])
