"""The inputs people have: mistyped paths, hex grids, Project Euler files, JSON objects,
CSVs without a puzzle column, files in UTF-16 or with stray bytes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku import parse, solve, solve_many, to_line
from cpsudoku.cli import main
from cpsudoku.datasets.records import read_records
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import AmbiguousZeroWarning

EASY = read_lines("easy_norvig50.txt", 3)
SIXTEEN = read_lines("16x16_vukr_6.txt", 2)
HEX = "0123456789ABCDEF"


def hex_line(line: str) -> str:
    """A 16x16 line rewritten with the digits 0-F for the values 1-16."""
    return "".join("." if v == 0 else HEX[v - 1] for v in parse(line).cells)


def euler(*puzzles: str) -> str:
    """Puzzles in the Project Euler 96 layout: 'Grid NN', then nine rows of digits."""
    out = []
    for k, p in enumerate(puzzles, 1):
        digits = p.replace(".", "0")
        out.append(f"Grid {k:02d}")
        out.extend(digits[r * 9 : r * 9 + 9] for r in range(9))
    return "\n".join(out) + "\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mistyped_file_name_is_no_such_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for arg in ("missing.txt", str(tmp_path / "nope"), "data/puzzle.sdk"):
        code, _, err = run(capsys, "solve", arg)
        assert code == 2
        assert f"cannot read {arg}: no such file" in err
    # A puzzle line that happens to end like a file suffix (".G") is still a puzzle.
    grid = solve(SIXTEEN[0]).solution
    assert grid is not None
    last = grid.cells[-1]  # relabel so that the last cell holds 16, written G
    relabel = {v: 16 if v == last else (last if v == 16 else v) for v in range(1, 17)}
    cells = [relabel[v] if i % 3 or i == 255 else 0 for i, v in enumerate(grid.cells)]
    cells[254] = 0
    line = "".join("." if v == 0 else "123456789ABCDEFG"[v - 1] for v in cells)
    assert line.endswith(".G")
    code, out, err = run(capsys, "solve", line, "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"
    assert "no such file" not in err


def test_hex_symbols_in_the_api(tmp_path: Path) -> None:
    default = solve(SIXTEEN[0])
    r = solve(hex_line(SIXTEEN[0]), symbols=HEX)
    assert r.status == default.status == "unique"
    assert r.solution == default.solution
    assert to_line(r.solution, symbols=HEX) == hex_line(str(default.solution))
    results = list(solve_many([hex_line(p) for p in SIXTEEN], symbols=HEX))
    assert [x.solution for x in results] == [solve(p).solution for p in SIXTEEN]
    with pytest.raises(PuzzleError, match="repeat"):
        parse(hex_line(SIXTEEN[0]), symbols="0123456789ABCDEE")
    with pytest.raises(PuzzleError, match="do not fit"):
        parse(hex_line(SIXTEEN[0]), box="3x3", symbols=HEX)
    # Read without symbols, a 0-F line (0 and no other empty marker) warns.
    zeroes = hex_line(SIXTEEN[0]).replace(".", "")  # a grid of 0-F alone
    zeroes = zeroes + "1" * (256 - len(zeroes))
    with pytest.warns(AmbiguousZeroWarning):
        parse(zeroes, check=False)


def test_hex_symbols_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    expected = hex_line(str(solve(SIXTEEN[0]).solution))
    code, out, _ = run(capsys, "solve", hex_line(SIXTEEN[0]), "--symbols", HEX, "--json")
    assert code == 0
    assert json.loads(out)["solution"] == expected
    src = tmp_path / "hex.txt"
    src.write_text("\n".join(hex_line(p) for p in SIXTEEN) + "\n")
    out_csv = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out_csv), "--symbols", HEX, "--quiet"]) == 0
    with out_csv.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["solution"] for r in rows] == [hex_line(str(solve(p).solution)) for p in SIXTEEN]
    # Without --symbols, a file written 0-F with 0s and no other empty mark is flagged.
    zero = tmp_path / "zero.txt"
    zero.write_text("\n".join(hex_line(p).replace(".", "0") for p in SIXTEEN) + "\n")
    code, _, err = run(capsys, "batch", str(zero), "-o", str(tmp_path / "z.csv"))
    assert "2 16x16 records write 0 and no other empty cell" in err
    assert "--symbols 0123456789ABCDEF" in err
    code, _, err = run(capsys, "solve", hex_line(SIXTEEN[0]).replace(".", "0"))
    assert "cpsudoku: warning: this 16x16 puzzle writes 0" in err


def test_project_euler_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "p096_sudoku.txt"
    path.write_text(euler(*EASY))
    records = list(read_records(str(path)))
    assert [parse(r.puzzle) for r in records] == [parse(p) for p in EASY]
    out = tmp_path / "out.csv"
    assert main(["batch", str(path), "-o", str(out), "--quiet"]) == 0
    with out.open(newline="") as fh:
        assert [r["solution"] for r in csv.DictReader(fh)] == [str(solve(p).solution) for p in EASY]
    one = tmp_path / "one.txt"
    one.write_text(euler(EASY[0]))
    code, out_text, _ = run(capsys, "solve", str(one), "--json")
    assert json.loads(out_text)["solution"] == str(solve(EASY[0]).solution)
    code, out_text, _ = run(capsys, "solve", str(path))
    assert code == 2
    assert "holds 3 puzzles" in out_text
    assert "batch" in out_text


def test_a_json_object_holding_a_board(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    board = [["." if ch == "." else ch for ch in EASY[0][r * 9 : r * 9 + 9]] for r in range(9)]
    for key in ("board", "grid", "puzzle", "quizzes"):
        text = json.dumps({key: board, "id": 7})
        assert parse(text) == parse(EASY[0])
    path = tmp_path / "leetcode.json"
    path.write_text(json.dumps({"board": board}))
    code, out, _ = run(capsys, "solve", str(path), "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"
    with pytest.raises(PuzzleError, match="no puzzle"):
        parse('{"name": "x"}')
    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text(json.dumps({"board": EASY[1]}) + "\n")
    assert [r.puzzle for r in read_records(str(jsonl))] == [EASY[1]]


def test_a_csv_with_solutions_but_no_puzzles_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "ids.csv"
    path.write_text("id,solutions\n1,123\n2,456\n")
    code, _, err = run(capsys, "batch", str(path), "-o", str(tmp_path / "o.csv"))
    assert code == 2
    assert "no puzzle column" in err
    assert "its columns are: id, solutions" in err


@pytest.mark.parametrize(
    ("encoding", "mark"),
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00")],
)
def test_unicode_files_with_a_byte_order_mark(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, encoding: str, mark: bytes
) -> None:
    path = tmp_path / "u.txt"
    path.write_bytes(mark + ("# a comment\n" + "\n".join(EASY) + "\n").encode(encoding))
    assert [r.puzzle for r in read_records(str(path))] == EASY
    one = tmp_path / "one.txt"
    one.write_bytes(mark + ("# one puzzle\n" + EASY[0] + "\n").encode(encoding))
    code, out, _ = run(capsys, "solve", str(one), "--json")
    assert code == 0
    assert json.loads(out)["solution"] == str(solve(EASY[0]).solution)


def test_undecodable_bytes_are_the_same_in_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    comment = tmp_path / "c.txt"
    comment.write_bytes(b"# caf\xe9\n" + EASY[0].encode() + b"\n")
    code, out, _ = run(capsys, "solve", str(comment), "--json")
    assert code == 0  # a comment may hold any bytes, as in a dataset
    assert json.loads(out)["status"] == "unique"
    assert main(["batch", str(comment), "-o", str(tmp_path / "c.csv"), "--quiet"]) == 0
    bad = tmp_path / "b.txt"
    bad.write_bytes(EASY[0][:5].encode() + b"\xe9" + EASY[0][6:].encode() + b"\n")
    code, _, err = run(capsys, "solve", str(bad))
    assert code == 2
    assert "line 1, byte 6" in err
    assert main(["batch", str(bad), "-o", str(tmp_path / "b.csv"), "--quiet"]) == 4


def test_json_output_name_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(EASY[0] + "\n")
    code, _, err = run(capsys, "batch", str(src), "-o", str(tmp_path / "x.json"))
    assert code == 2
    assert ".jsonl" in err
