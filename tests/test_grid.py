import pytest

from cpsudoku.model.errors import BoxShapeError, ConflictingGivensError
from cpsudoku.model.rules import Rules, parse_box

SHAPES = [(1, 1), (2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4), (5, 5), (6, 6)]


@pytest.mark.parametrize(("br", "bc"), SHAPES)
def test_units_and_peers_invariants(br: int, bc: int) -> None:
    g = Rules.classic(br, bc)
    n = g.n
    assert len(g.units) == 3 * n
    assert all(len(u.cells) == n for u in g.units)
    # every cell is in exactly one row, one column and one box
    assert all(len(owners) == 3 for owners in g.units_of)
    # peers: row + column + box minus the overlaps and the cell itself
    expected = 2 * (n - 1) + (n - br - bc + 1)
    assert all(len(p) == expected for p in g.peers)
    # every unit partitions the grid by kind
    for kind in ("row", "column", "box"):
        cells = sorted(i for u in g.units if u.kind == kind for i in u.cells)
        assert cells == list(range(n * n))


def test_norvig_invariants_9x9() -> None:
    g = Rules.classic(3, 3)
    assert g.cells == 81
    assert len(g.units) == 27
    assert all(len(p) == 20 for p in g.peers)


@pytest.mark.parametrize(
    ("n", "shape"),
    [
        (4, "2x2"),
        (6, "2x3"),
        (8, "2x4"),
        (9, "3x3"),
        (12, "3x4"),
        (16, "4x4"),
        (25, "5x5"),
        (36, "6x6"),
        (10, "2x5"),
        (7, "1x7"),
    ],
)
def test_default_box_shape(n: int, shape: str) -> None:
    assert Rules.for_size(n).box_shape == shape


def test_box_of_rectangular() -> None:
    g = Rules.classic(2, 3)  # 6x6: 3 bands of 2 rows, 2 stacks of 3 columns
    assert g.box_of(0, 0) == 0
    assert g.box_of(0, 3) == 1
    assert g.box_of(2, 0) == 2
    assert g.box_of(5, 5) == 5


@pytest.mark.parametrize("text", ["3", "3x", "axb", "0x3", "3x3x3", "101x1"])
def test_bad_box_shapes(text: str) -> None:
    with pytest.raises(BoxShapeError):
        parse_box(text)


def test_check_names_unit_and_cells() -> None:
    from cpsudoku.model.forms import parse

    p = parse(
        ".4.1..35.............2.5......4.89..26.....12.5.3....7..4...16.6....7....1..8..2.",
        check=False,
    )
    with pytest.raises(ConflictingGivensError) as info:
        p.check()
    message = str(info.value)
    assert "row" in message
    assert "column" in message
    assert info.value.row is not None
    assert info.value.symbol is not None
