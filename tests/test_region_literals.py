"""A jigsaw's regions for the SAT engine's live line solver: the compiled writer and
the Python one write the same clauses and literals, in the same order.

What those clauses mean is checked through the engine, against brute force on every
4x4 Latin square (tests/test_regions.py, with either writer).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku.encode.cnf import region_literals
from cpsudoku.engines import native_built

pytestmark = pytest.mark.skipif(not native_built(), reason="the compiled engine is not built")


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], int, list[int], tuple[int, ...]]:
    """Units of n cells (a random partition, maybe with an extra unit), givens, lead."""
    n = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 9, 12, 16, 25, 32]))
    cells = draw(st.permutations(range(n * n)))
    units = [tuple(sorted(cells[k : k + n])) for k in range(0, n * n, n)]
    if draw(st.booleans()):
        units.append(tuple(draw(st.permutations(range(n * n)))[:n]))
    givens = draw(st.lists(st.integers(0, n), min_size=n * n, max_size=n * n))
    if draw(st.booleans()):  # sparse, as puzzles are
        givens = [v if draw(st.integers(0, 3)) == 0 else 0 for v in givens]
    lead = draw(st.sampled_from([(), (-(n**3) - 1,), (-7, 3)]))
    return units, n, givens, lead


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_compiled_writer_writes_what_the_python_one_does(
    case: tuple[list[tuple[int, ...]], int, list[int], tuple[int, ...]],
) -> None:
    from cpsudoku.engines._native import region_literals as compiled

    units, n, givens, lead = case
    written: list[tuple[list[tuple[int, ...]], list[int]]] = []
    for writer in (region_literals, compiled):
        out: list[tuple[int, ...]] = []
        assumed: list[int] = []
        writer(units, n, givens, lead, out, assumed)
        written.append((out, assumed))
    assert written[0] == written[1]


def test_a_region_of_a_9x9_puzzle() -> None:
    # The region: the top left box, with a 5 given at r2c2; a 1 at r4c1 and a 3 at
    # r2c6 outside it. Only what the lines leave is written: 5 is ruled out of the
    # box's cells outside row 2 and column 2 (the lines rule it out of those), and each
    # other value is "somewhere in the box", on the cells the lines leave it.
    from cpsudoku.engines._native import region_literals as compiled

    n = 9
    box = (0, 1, 2, 9, 10, 11, 18, 19, 20)
    givens = [0] * 81
    givens[10] = 5  # r2c2, in the box
    givens[27] = 1  # r4c1: 1 is not in column 1 of the box
    givens[9 + 5] = 3  # r2c6: 3 is not in row 2 of the box
    open_cells = [i for i in box if not givens[i]]
    for writer in (region_literals, compiled):
        out: list[tuple[int, ...]] = []
        assumed: list[int] = []
        writer([box], n, givens, (-1000,), out, assumed)
        assert sorted(-lit for lit in assumed if lit < 0) == [
            i * n + 5 for i in open_cells if i // 9 != 1 and i % 9 != 1
        ]
        assert not [lit for lit in assumed if lit > 0]  # no value is left one cell
        clauses = {(clause[1] - 1) % n + 1: clause for clause in out}
        assert len(clauses) == len(out) == 8
        assert all(clause[0] == -1000 for clause in out)
        assert set(clauses) == {1, 2, 3, 4, 6, 7, 8, 9}
        assert clauses[1][1:] == tuple(i * n + 1 for i in open_cells if i % 9 != 0)
        assert clauses[3][1:] == tuple(i * n + 3 for i in open_cells if i // 9 != 1)
        assert clauses[2][1:] == tuple(i * n + 2 for i in open_cells)


@pytest.mark.parametrize(
    ("units", "givens", "message"),
    [
        ([(0, 1, 2, 3, 4)], [0] * 16, "over 4 cells"),
        ([(0, 1, 2, 16)], [0] * 16, "off the grid"),
        ([(0, 1, 2, 3)], [0] * 15, "has 16 cells"),
        ([(0, 1, 2, 3)], [5] + [0] * 15, "holds 5"),
    ],
)
def test_the_compiled_writer_refuses_what_is_no_grid(
    units: list[tuple[int, ...]], givens: list[int], message: str
) -> None:
    from cpsudoku.engines._native import region_literals as compiled

    with pytest.raises(ValueError, match=message):
        compiled(units, 4, givens, (), [], [])
