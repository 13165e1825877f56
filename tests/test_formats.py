import random

import pytest

from cpsudoku.model.errors import (
    BoxShapeError,
    ConflictingGivensError,
    PuzzleError,
    UnknownSymbolError,
    ValueOutOfRangeError,
    WrongLengthError,
)
from cpsudoku.model.forms import parse, to_grid, to_line
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules

LINE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
LEETCODE = [
    ["5", "3", ".", ".", "7", ".", ".", ".", "."],
    ["6", ".", ".", "1", "9", "5", ".", ".", "."],
    [".", "9", "8", ".", ".", ".", ".", "6", "."],
    ["8", ".", ".", ".", "6", ".", ".", ".", "3"],
    ["4", ".", ".", "8", ".", "3", ".", ".", "1"],
    ["7", ".", ".", ".", "2", ".", ".", ".", "6"],
    [".", "6", ".", ".", ".", ".", "2", "8", "."],
    [".", ".", ".", "4", "1", "9", ".", ".", "5"],
    [".", ".", ".", ".", "8", ".", ".", "7", "9"],
]


def test_one_line_round_trip() -> None:
    assert to_line(parse(LINE)) == LINE


@pytest.mark.parametrize("blank", ["0", "_", "-", "*"])
def test_blank_symbols(blank: str) -> None:
    assert parse(LINE.replace(".", blank)) == parse(LINE)


def test_boxed_grid_round_trip() -> None:
    p = parse(LINE)
    text = to_grid(p)
    assert "|" in text
    assert "+" in text
    assert parse(text) == p


def test_multiline_with_layout_rows() -> None:
    text = """
    +-------+-------+
    | 4 . . | . . . |
    """
    grid = "\n".join(
        [
            "4 . . | . . . | 8 . 5",
            ". 3 . | . . . | . . .",
            ". . . | 7 . . | . . .",
            "------+-------+------",
            ". 2 . | . . . | . 6 .",
            ". . . | . 8 . | 4 . .",
            ". . . | . 1 . | . . .",
            "======================",
            ". . . | 6 . 3 | . 7 .",
            "5 . . | 2 . . | . . .",
            "1 . 4 | . . . | . . .",
        ]
    )
    assert text  # the layout-only sample above is not a grid on its own
    assert parse(grid) == parse(LINE)


def test_integer_list_forms() -> None:
    p = parse(LINE)
    ints = " ".join(str(v) for v in p.cells)
    assert parse(ints) == p
    assert parse(",".join(str(v) for v in p.cells)) == p
    rows = "\n".join(" ".join(str(v) for v in row) for row in p.rows())
    assert parse(rows) == p


def test_python_lists_and_none() -> None:
    rows = [[1, 0, 3, 4], [3, None, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]]
    p = parse(rows)
    assert str(p) == "1.343..2.3..2..3"
    assert parse(str(rows)) == p
    assert parse([1, 0, 3, 4, 3, 0, 0, 2, 0, 3, 0, 0, 2, 0, 0, 3]) == p


def test_leetcode_character_lists() -> None:
    p = parse(LEETCODE)
    assert str(p).startswith("53..7....6..195...")
    assert parse(str(LEETCODE)) == p


def test_letters_for_16x16_any_case() -> None:
    line = "ABCDEFG" + "." * 249
    p = parse(line)
    assert p.rules == Rules.classic(4, 4)
    assert p.cells[:7] == (10, 11, 12, 13, 14, 15, 16)
    assert parse(line.lower()) == p


def test_integers_beyond_35() -> None:
    cells = [0] * (36 * 36)
    cells[0] = 36
    p = parse(" ".join(map(str, cells)))
    assert p.rules == Rules.classic(6, 6)
    assert p.cells[0] == 36
    assert parse(str(p)) == p


def test_box_override_rectangular() -> None:
    p = parse("." * 36, box="3x2")
    assert p.rules == Rules.classic(3, 2)
    with pytest.raises(WrongLengthError, match="36 cells"):
        parse("." * 35, box="2x3")
    with pytest.raises(BoxShapeError):
        parse(p, box="2x3")


@pytest.mark.parametrize(
    ("text", "error", "fragment"),
    [
        (LINE[:-1], WrongLengthError, "80"),
        (LINE + "1", WrongLengthError, "82"),
        ("", WrongLengthError, "empty"),
        ("   \n  ", WrongLengthError, "empty"),
        (LINE[:10] + "#" + LINE[11:], UnknownSymbolError, "row 2, column 2"),
        ("A" + LINE[1:], ValueOutOfRangeError, "row 1, column 1"),
        ("1 2 3 99 " + "0 " * 12, ValueOutOfRangeError, "99"),
        ("5" + LINE[1:], ConflictingGivensError, "5"),
        ("[[1, 2], [3]]", WrongLengthError, "row 2"),
        ("[[1, 2], [2, '#']]", UnknownSymbolError, "#"),
        ("[[1, 2], [2, 'x']]", ValueOutOfRangeError, "33"),
        ("[1, 2,", PuzzleError, "list"),
    ],
)
def test_bad_inputs_name_the_problem(text: str, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error) as info:
        parse(text)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_huge_input_is_refused_quickly() -> None:
    with pytest.raises(WrongLengthError, match="too large"):
        parse("." * 10_000_000)


def test_conflicts_can_be_parsed_unchecked() -> None:
    p = parse("5" + LINE[1:], check=False)
    assert p.conflicts()


def test_an_array_is_refused_with_a_pointer_to_tolist() -> None:
    import numpy as np

    grid = np.array(parse(LINE).rows())
    with pytest.raises(PuzzleError, match=r"ndarray \(pass its \.tolist\(\)\)"):
        parse(grid)  # type: ignore[arg-type]
    assert str(parse(grid.tolist())) == LINE
    with pytest.raises(PuzzleError, match=r"from a generator$"):
        parse(v for v in grid.ravel().tolist())  # type: ignore[arg-type]


EULER = "\n".join(
    [
        "003020600",
        "900305001",
        "001806400",
        "008102900",
        "700000008",
        "006708200",
        "002609500",
        "800203009",
        "005010300",
    ]
)


def test_rows_of_digits_with_zero_for_empty() -> None:
    """The Project Euler layout: one row of digits per line, with or without box gaps."""
    p = parse(EULER.replace("\n", ""))
    assert parse(EULER) == p
    spaced = "\n".join(" ".join((r[:3], r[3:6], r[6:])) for r in EULER.splitlines())
    assert parse(spaced) == p
    assert parse(EULER.replace("\n", ",\n")) == p
    import cpsudoku

    assert cpsudoku.solve(EULER, backend="backtrack").status == "unique"


def test_rows_of_digits_keep_small_and_padded_integer_forms() -> None:
    """Digit strings are symbols only when the integer reading cannot be a grid."""
    four = ["1200", "0034", "3000", "0001"]
    assert str(parse("\n".join(four), check=False)) == "12....343......1"
    assert str(parse("\n".join(f"{r[:2]} {r[2:]}" for r in four), check=False)) == (
        "12....343......1"
    )
    cells = [0] * 256
    cells[:3] = [10, 16, 1]
    rows = [" ".join(f"{v:02d}" for v in cells[r * 16 : r * 16 + 16]) for r in range(16)]
    assert parse("\n".join(rows)).cells == tuple(cells)  # zero-padded integers
    assert parse(" ".join(f"{v:02d}" for v in [0] * 81)).cells == (0,) * 81


def test_rows_of_digits_errors_name_the_cells() -> None:
    with pytest.raises(WrongLengthError, match="got 80 cells"):
        parse(EULER[:-1])
    spaced = "\n".join(" ".join((r[:3], r[3:6], r[6:])) for r in EULER.splitlines())
    with pytest.raises(WrongLengthError, match="got 80 cells"):
        parse(spaced[:-1])


CLUE17 = ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7..."


def test_a_row_of_dashes_is_a_row_of_empty_cells() -> None:
    """``---------`` among rows of nine symbols is a row, not a layout line."""
    dashes = CLUE17.replace(".", "-")
    folded = "\n".join(dashes[i : i + 9] for i in range(0, 81, 9))
    assert folded.startswith("---------\n")
    assert parse(folded) == parse(CLUE17)
    spaced = "\n".join(" ".join(row) for row in folded.splitlines())
    assert parse(spaced) == parse(CLUE17)
    boxed = "\n".join(f"{r[:3]}|{r[3:6]}|{r[6:]}" for r in folded.splitlines())
    assert parse(boxed) == parse(CLUE17)
    assert parse("\n".join(["----"] * 4)) == parse("." * 16)  # the empty 4x4 grid
    # Folded at another width, a chunk of dashes still counts when dropping it
    # would leave no grid.
    assert parse("\n".join(dashes[i : i + 27] for i in range(0, 81, 27))) == parse(CLUE17)


def test_dash_separators_stay_layout() -> None:
    rows = [CLUE17[i : i + 9] for i in range(0, 81, 9)]
    for rule in ("---+---+---", "-----------", "---|---|---", "--- --- ---", "---------"):
        lines = [f"{r[:3]}|{r[3:6]}|{r[6:]}" for r in rows]
        text = "\n".join([*lines[:3], rule, *lines[3:6], rule, *lines[6:]])
        assert parse(text) == parse(CLUE17), rule
    for rows_, cols in [(1, 2), (2, 2), (1, 3), (2, 3), (3, 2), (3, 3), (2, 4), (3, 4), (6, 6)]:
        p = Puzzle(Rules.classic(rows_, cols), (0,) * (rows_ * cols) ** 2)
        assert parse(to_grid(p), box=f"{rows_}x{cols}") == p
        if rows_ <= cols:
            assert parse(to_grid(p)) == p


def test_rows_of_dashes_between_dash_separators() -> None:
    """Separators as wide as the rows: the lines at band boundaries are the separators."""
    rows = [CLUE17.replace(".", "-")[i : i + 9] for i in range(0, 81, 9)]
    text = "\n".join([*rows[:3], "-" * 9, *rows[3:6], "-" * 9, *rows[6:]])
    assert parse(text) == parse(CLUE17)
    empty = "\n".join(
        ["---|---"] * 2 + ["-------"] + ["---|---"] * 2 + ["-------"] + ["---|---"] * 2
    )
    assert parse(empty) == parse("." * 36)


def test_list_form_reads_json_null_and_names_bad_items() -> None:
    p = parse("[[1,null,3,4],[3,null,null,2],[null,3,null,null],[2,null,null,3]]")
    assert str(p) == "1.343..2.3..2..3"
    with pytest.raises(PuzzleError, match="boolean") as info:
        parse("[[1,true,3,4],[3,null,null,2],[null,3,null,null],[2,null,null,3]]")
    with pytest.raises(PuzzleError, match="'foo'") as info:
        parse("[[1, foo], [2, 1]]")
    assert " at 0x" not in str(info.value)


def test_bytes_are_read_as_utf8_text() -> None:
    assert parse(LINE.encode()) == parse(LINE)
    assert parse(bytearray(b"1.343..2.3..2..3")) == parse("1.343..2.3..2..3")
    with pytest.raises(PuzzleError, match="UTF-8"):
        parse(b"\xff" + LINE[1:].encode())


def test_comment_lines_are_ignored() -> None:
    assert parse(f"# my puzzle\n{LINE}\n") == parse(LINE)
    assert parse(f"  # a comment\n{to_grid(parse(LINE))}\n# end") == parse(LINE)
    p = parse(LINE)
    ints = "\n".join(" ".join(str(v) for v in row) for row in p.rows())
    assert parse(f"# as integers\n{ints}") == p
    assert parse("# rows\n[[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]]") == parse(
        "1.343..2.3..2..3"
    )
    with pytest.raises(UnknownSymbolError, match="'#'"):
        parse(LINE[:40] + "#" + LINE[41:])  # not a comment: a symbol in a puzzle line


@pytest.mark.parametrize("shape", [(r, c) for r in range(1, 6) for c in range(1, 6)])
def test_a_drawn_grid_parses_back_with_its_own_boxes(shape: tuple[int, int]) -> None:
    """to_grid draws the boxes, and parse reads their shape back: a 3x2-box 6x6 grid
    stays 3x2, not the 2x3 a bare 36 cells would give. A 1x1 grid is read only when
    its box shape is given (a lone character in a dataset is no puzzle)."""
    g = Rules.classic(*shape)
    rng = random.Random(sum(shape))
    cells = tuple(rng.choice([0, 0, 0, *range(1, g.n + 1)]) for _ in range(g.cells))
    p = Puzzle(g, cells)
    if g.n == 1:
        with pytest.raises(WrongLengthError, match="1x1"):
            parse(to_grid(p), check=False)
        assert parse(to_grid(p), "1x1", check=False) == p
        return
    assert parse(to_grid(p), check=False) == p
