"""Dataset records as people write them: stray quotes in a CSV, a puzzle column with
another name, Project Euler grids. Every record is kept, in order, exactly once."""

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import read_lines, run_batch

from cpsudoku import solve
from cpsudoku.cli import main
from cpsudoku.datasets import records as reader
from cpsudoku.datasets.records import read_records
from cpsudoku.engines import native_built

EASY = read_lines("easy_kaggle1m_200.txt", 40)
BULK = "native" if native_built() else "logic"


Row = tuple[int, str, str | None, str | None]


def records(path: Path, text: str, tell: Callable[[str], None] | None = None) -> list[Row]:
    path.write_text(text)
    return [(r.index, r.puzzle, r.solution, r.error) for r in read_records(str(path), tell=tell)]


def noted(k: int) -> str:
    """A note field, some with a stray quote mark (inches), one with a quoted comma."""
    return ['5" screen', "ok", 'a 3" nail and a 2" one', '"quoted, with a comma"', "fine"][k % 5]


def stray_quotes_csv(path: Path, puzzles: list[str]) -> Path:
    path.write_text("puzzle,note\n" + "".join(f"{p},{noted(k)}\n" for k, p in enumerate(puzzles)))
    return path


def test_a_stray_quote_in_another_column_is_part_of_its_field(tmp_path: Path) -> None:
    got = records(tmp_path / "a.csv", stray_quotes_csv(tmp_path / "a.csv", EASY).read_text())
    assert got == [(k, p, None, None) for k, p in enumerate(EASY)]
    # As Python's csv module reads the file whole (the lenient readers agree).
    with (tmp_path / "a.csv").open(newline="") as fh:
        assert [row["puzzle"] for row in csv.DictReader(fh)] == EASY


def test_batch_solves_every_record_of_a_csv_with_stray_quotes(tmp_path: Path) -> None:
    src = stray_quotes_csv(tmp_path / "notes.csv", EASY)
    rows = run_batch(src, tmp_path / "out.csv")
    assert [r["index"] for r in rows] == [str(k) for k in range(len(EASY))]
    assert [r["puzzle"] for r in rows] == EASY
    assert {r["status"] for r in rows} == {"unique"}
    assert {r["backend"] for r in rows} == {BULK}  # the bulk pass took them all
    # --resume after a run cut short: the same rows, each exactly once.
    out = tmp_path / "out.csv"
    whole = out.read_bytes()
    lines = whole.splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:12]) + lines[12][:20])  # a row cut mid-way
    resumed = run_batch(src, out, "--resume")
    assert [r["index"] for r in resumed] == [str(k) for k in range(len(EASY))]
    assert [(r["puzzle"], r["solution"]) for r in resumed] == [
        (r["puzzle"], r["solution"]) for r in rows
    ]
    # JSON lines out, on the engine alone: the same records.
    jsonl = tmp_path / "out.jsonl"
    assert main(["batch", str(src), "-o", str(jsonl), "--no-presolve", "--quiet"]) == 0
    assert [json.loads(line)["puzzle"] for line in jsonl.read_text().splitlines()] == EASY


def test_dedupe_reads_a_csv_with_stray_quotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = stray_quotes_csv(tmp_path / "notes.csv", [*EASY[:5], EASY[0]])
    out = tmp_path / "kept.txt"
    assert main(["dedupe", str(src), "-o", str(out)]) == 0
    assert out.read_text().splitlines() == EASY[:5]
    assert "6 records, 5 classes kept, 1 duplicate dropped" in capsys.readouterr().err


def test_an_over_long_csv_row_is_an_invalid_record(tmp_path: Path) -> None:
    """A quoted field over many lines, longer than a record may be: a row with the reason.

    Kept whole it would also be a field beyond what csv readers (and --resume) take.
    """
    huge = "x" * 90_000
    text = f'puzzle,note\n{EASY[0]},"{huge}\n{huge}"\n{EASY[1]},ok\n'
    got = records(tmp_path / "big.csv", text)
    assert [i for i, *_ in got] == [0, 1]
    assert got[0][3] is not None
    assert "is too long" in got[0][3]
    assert got[1] == (1, EASY[1], None, None)
    rows = run_batch(tmp_path / "big.csv", tmp_path / "out.csv", code=4)
    assert [r["status"] for r in rows] == ["invalid", "unique"]


def test_a_puzzle_column_with_another_name_is_found_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "ids.csv"
    src.write_text("id,sudoku\n" + "".join(f"{k},{p}\n" for k, p in enumerate(EASY[:3])))
    rows = run_batch(src, tmp_path / "out.csv")
    assert [r["puzzle"] for r in rows] == EASY[:3]
    assert [r["status"] for r in rows] == ["unique"] * 3
    code = main(["batch", str(src), "-o", str(tmp_path / "again.csv")])
    assert code == 0
    err = capsys.readouterr().err
    assert "puzzles read from column 'sudoku' (column 2 of 2)" in err
    # dedupe reads it the same way.
    assert main(["dedupe", str(src), "-o", str(tmp_path / "k.txt")]) == 0
    assert "column 'sudoku'" in capsys.readouterr().err
    assert (tmp_path / "k.txt").read_text().splitlines() == EASY[:3]


def test_the_puzzle_column_is_found_without_a_header_and_beside_solutions(
    tmp_path: Path,
) -> None:
    solutions = [str(solve(p).solution) for p in EASY[:3]]
    bare = records(tmp_path / "a.csv", "".join(f"{k},{p}\n" for k, p in enumerate(EASY[:3])))
    assert [p for _, p, _, _ in bare] == EASY[:3]
    told: list[str] = []
    text = "id,answer,sudoku\n" + "".join(
        f"{k},{s},{p}\n" for k, (s, p) in enumerate(zip(solutions, EASY, strict=False))
    )
    got = records(tmp_path / "b.csv", text, tell=told.append)
    assert [p for _, p, _, _ in got] == EASY[:3]  # the column with empty cells
    assert told == [
        "puzzles read from column 'sudoku' (column 3 of 3): no column is named puzzle, "
        "quizzes, quiz, board or grid"
    ]
    named = records(
        tmp_path / "c.csv",
        "id,sudoku,solution\n"
        + "".join(f"{k},{p},{s}\n" for k, (p, s) in enumerate(zip(EASY, solutions, strict=False))),
    )
    assert [(p, s) for _, p, s, _ in named] == list(zip(EASY[:3], solutions, strict=True))


def test_a_csv_with_no_puzzle_column_is_refused_before_any_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "people.csv"
    src.write_text("id,name\n0,ann\n1,bob\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no puzzle column" in err
    assert "its columns are: id, name" in err
    assert not out.exists()
    assert main(["dedupe", str(src), "-o", str(tmp_path / "k.txt")]) == 2
    assert "no puzzle column" in capsys.readouterr().err
    assert not (tmp_path / "k.txt").exists()


def test_the_column_is_told_by_the_first_records_only(tmp_path: Path) -> None:
    """Puzzles past the sample do not change the column: the records stay as read."""
    text = "id,name\n" + "0,x\n" * reader.SAMPLE_RECORDS + f"{EASY[0]},y\n"
    with pytest.raises(ValueError, match="no puzzle column"):
        records(tmp_path / "late.csv", text)


def euler(*puzzles: str) -> str:
    return "".join(
        f"Grid {k + 1:02}\n"
        + "".join(p[r * 9 : r * 9 + 9].replace(".", "0") + "\n" for r in range(9))
        for k, p in enumerate(puzzles)
    )


def test_project_euler_grids_are_one_line_records_for_the_bulk_pass(tmp_path: Path) -> None:
    src = tmp_path / "p096_sudoku.txt"
    src.write_text(euler(*EASY[:4]))
    ones = [p.replace(".", "0") for p in EASY[:4]]
    assert [r.puzzle for r in read_records(str(src))] == ones
    rows = run_batch(src, tmp_path / "euler.csv")
    assert [r["puzzle"] for r in rows] == ones
    assert [r["backend"] for r in rows] == [BULK] * 4
    assert [r["solution"] for r in rows] == [str(solve(p).solution) for p in EASY[:4]]
    # A drawn grid (box lines) stays as drawn; it is read as any drawn grid.
    drawn = "Grid 01\n" + "\n".join(
        " | ".join(EASY[0][r * 9 + c : r * 9 + c + 3] for c in (0, 3, 6)) for r in range(9)
    )
    (tmp_path / "drawn.txt").write_text(drawn + "\n")
    rows = run_batch(tmp_path / "drawn.txt", tmp_path / "drawn.csv")
    assert rows[0]["status"] == "unique"
    assert "\n" in rows[0]["puzzle"]
