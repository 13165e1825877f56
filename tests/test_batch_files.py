"""Batch input and output files at their edges: headers, byte-order marks, quoted line
breaks, archives that cannot be read, outputs that must not be overwritten or mixed."""

import csv
import os
import signal
import zipfile
from pathlib import Path

import pytest
from conftest import read_lines, run_batch

from cpsudoku.cli import main
from cpsudoku.datasets.pool import max_jobs
from cpsudoku.datasets.records import MAX_CSV_LINES, read_records

ORACLE = "backtrack"
EASY = read_lines("easy_kaggle1m_200.txt", 8)


def records(path: Path, content: str | bytes) -> list[tuple[int, str, str | None, str | None]]:
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return [(r.index, r.puzzle, r.solution, r.error) for r in read_records(str(path))]


def rows_of(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize(
    "first",
    [
        "4.....8.5.3..x",  # a malformed puzzle
        "1.34",  # a short one
        " ".join("0" if ch == "." else ch for ch in EASY[7]),  # the integer form
    ],
)
def test_a_headerless_csv_keeps_its_first_record(tmp_path: Path, first: str) -> None:
    got = records(tmp_path / "data.csv", f"{first}\n{EASY[0]}\n{EASY[1]}\n")
    assert [(i, p) for i, p, _, _ in got] == [(0, first), (1, EASY[0]), (2, EASY[1])]


@pytest.mark.parametrize("header", ["quizzes,solutions", "id,puzzle", "Puzzle", "name,level"])
def test_a_row_of_names_is_a_header(tmp_path: Path, header: str) -> None:
    got = records(tmp_path / "data.csv", f"{header}\n{EASY[0]}\n")
    assert len(got) == 1
    assert got[0][0] == 0


def test_a_byte_order_mark_is_not_part_of_the_first_record(tmp_path: Path) -> None:
    bom = "\ufeff"
    txt = records(tmp_path / "a.txt", f"{bom}{EASY[0]}\n{EASY[1]}\n")
    assert [p for _, p, _, _ in txt] == EASY[:2]
    headed = records(tmp_path / "b.csv", f"{bom}solution,puzzle\nSOL,{EASY[0]}\n")
    assert headed == [(0, EASY[0], "SOL", None)]
    bare = records(tmp_path / "c.csv", f"{bom}{EASY[0]}\n{EASY[1]}\n")
    assert [p for _, p, _, _ in bare] == EASY[:2]
    jsonl = records(tmp_path / "d.jsonl", f'{bom}{{"puzzle": "{EASY[0]}"}}\n')
    assert jsonl == [(0, EASY[0], None, None)]


def test_a_quoted_csv_field_may_span_lines(tmp_path: Path) -> None:
    grid = "\n".join(EASY[0][i : i + 9] for i in range(0, 81, 9))
    got = records(tmp_path / "data.csv", f'puzzle,solution\n"{grid}",x\n{EASY[1]},y\n')
    assert got == [(0, grid, "x", None), (1, EASY[1], "y", None)]
    rows = run_batch(tmp_path / "data.csv", tmp_path / "out.csv", "--backend", ORACLE, code=5)
    assert [r["index"] for r in rows] == ["0", "1"]
    assert [r["status"] for r in rows] == ["unique", "unique"]
    assert rows[0]["puzzle"] == grid  # the record as read, line breaks and all


def test_a_stray_quote_takes_no_record_with_it(tmp_path: Path) -> None:
    lines = ['"' + EASY[0], *EASY[1 : MAX_CSV_LINES + 5]]
    got = records(tmp_path / "data.csv", "puzzle\n" + "\n".join(lines) + "\n")
    assert [i for i, _, _, _ in got] == list(range(len(lines)))
    assert [p for _, p, _, _ in got[1:]] == lines[1:]


def test_an_encrypted_zip_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """zipfile cannot write encrypted members, so flag one as such by hand."""
    path = tmp_path / "locked.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("puzzles.txt", EASY[0] + "\n")
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # general flags
        at = data.index(signature) + offset
        data[at] |= 0x01  # the "encrypted" bit
    path.write_bytes(bytes(data))
    assert main(["batch", str(path), "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    assert "encrypted" in capsys.readouterr().err


def test_the_output_may_not_be_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "puzzles.txt"
    src.write_text("\n".join(EASY) + "\n")
    before = src.read_bytes()
    for args in ([], ["--resume"]):
        assert main(["batch", str(src), "-o", str(src), "--quiet", *args]) == 2
        assert "is the input file" in capsys.readouterr().err
        assert src.read_bytes() == before


def test_resume_leaves_a_file_that_is_no_batch_output_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "puzzles.txt"
    src.write_text("\n".join(EASY[:3]) + "\n")
    for name, text in (("notes.csv", "my notes\nmore\n"), ("notes.jsonl", '{"a": 1}\n')):
        out = tmp_path / name
        out.write_text(text)
        assert main(["batch", str(src), "-o", str(out), "--resume", "--quiet"]) == 2
        assert "left untouched" in capsys.readouterr().err
        assert out.read_text() == text


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_resume_refuses_the_output_of_another_input(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("\n".join(EASY[:6]) + "\n")
    second.write_text("\n".join(EASY[6:8]) + "\n")
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"out{suffix}"
    common = ["-o", str(out), "--backend", ORACLE, "--jobs", "1", "--quiet"]
    assert main(["batch", str(first), *common]) == 0

    def contents() -> list[bytes]:
        files = sorted(out.iterdir()) if out.is_dir() else [out]
        return [f.read_bytes() for f in files]

    written = contents()
    assert main(["batch", str(second), *common, "--resume"]) == 2
    assert "holds another puzzle than input record 0" in capsys.readouterr().err
    shorter = tmp_path / "shorter.txt"
    shorter.write_text("\n".join(EASY[:4]) + "\n")
    assert main(["batch", str(shorter), *common, "--resume"]) == 2
    assert "input has only 4 records" in capsys.readouterr().err
    assert contents() == written
    longer = tmp_path / "longer.txt"  # the same dataset grown: the kept rows still fit
    longer.write_text("\n".join(EASY) + "\n")
    assert main(["batch", str(longer), *common, "--resume"]) == 0


def test_a_failed_write_names_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full, a device that is always full")
    src = tmp_path / "puzzles.txt"
    src.write_text("\n".join(EASY[:3]) + "\n")
    assert main(["batch", str(src), "-o", "/dev/full", "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "/dev/full" in err
    assert str(src) not in err


def test_a_named_pipe_is_a_dataset(tmp_path: Path) -> None:
    fifo = tmp_path / "puzzles.txt"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer end, as a shell's process substitution would be
        try:
            with open(fifo, "w") as fh:
                fh.write("\n".join(EASY[:3]) + "\n")
        finally:
            os._exit(0)
    try:
        rows = run_batch(fifo, tmp_path / "out.csv", "--backend", ORACLE, "--jobs", "1")
    finally:  # a writer still blocked (nobody opened the pipe) must not hang the test
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert [r["puzzle"] for r in rows] == EASY[:3]


def test_too_many_jobs_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "puzzles.txt"
    src.write_text(EASY[0] + "\n")
    assert main(["batch", str(src), "--jobs", str(max_jobs() + 1), "--quiet"]) == 2
    assert f"at most {max_jobs()}" in capsys.readouterr().err


@pytest.mark.parametrize("presolve", [[], ["--no-presolve"]])
def test_the_solution_column_is_checked_whatever_the_status(
    tmp_path: Path, presolve: list[str]
) -> None:
    """Not only unique answers: a column that does not solve the puzzle, or that solves
    one found unsolvable, is noted; any one solution of a multiple puzzle is fine."""
    from cpsudoku import solve

    multi = read_lines("multisolution_tdoku.txt", 1)[0]
    unsolvable = read_lines("nosolution_tdoku.txt", 1)[0]
    right = str(solve(EASY[0], backend=ORACLE).solution)
    some = str(solve(multi, backend=ORACLE, unique=False).solution)
    wrong = right[1:] + right[0]  # a grid, but no solution of EASY[0]
    lines = [
        f"{EASY[0]},{wrong}",  # solved without the uniqueness proof (--no-unique)
        f"{multi},{some}",
        f"{multi},{wrong}",
        f"{unsolvable},{right}",
    ]
    src = tmp_path / "data.csv"
    src.write_text("puzzle,solution\n" + "\n".join(lines) + "\n")
    args = ("--backend", ORACLE, "--jobs", "1", *presolve)
    rows = run_batch(src, tmp_path / "out.csv", *args, code=5)
    assert [r["status"] for r in rows] == ["unique", "multiple", "multiple", "unsolvable"]
    assert [bool(r["error"]) for r in rows] == [True, False, True, True]
    assert "does not solve" in rows[2]["error"]
    args = ("--backend", ORACLE, "--no-unique", *presolve)
    solved = run_batch(src, tmp_path / "solved.csv", *args, code=5)
    assert solved[0]["status"] == "solved"
    assert "does not solve" in solved[0]["error"]


def test_a_carriage_return_only_file_is_read_as_lines(tmp_path: Path) -> None:
    got = records(tmp_path / "mac.txt", "\r".join(EASY[:3]) + "\r")
    assert [p for _, p, _, _ in got] == EASY[:3]
    mixed = records(tmp_path / "mixed.txt", f"{EASY[0]}\r\n{EASY[1]}\r{EASY[2]}\n{EASY[3]}")
    assert [p for _, p, _, _ in mixed] == EASY[:4]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_control_characters_never_split_an_output_row(tmp_path: Path, suffix: str) -> None:
    import json

    import pandas as pd

    puzzles = ["12\r34", "a\x00b", "x\u2028y", '"q",\n', EASY[0]]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"puzzle": p}) + "\n" for p in puzzles))
    out = tmp_path / f"out{suffix}"
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--backend", ORACLE]) == 4
    if suffix == ".csv":
        assert [row["puzzle"] for row in rows_of(out)] == puzzles
        assert pd.read_csv(out, keep_default_na=False)["puzzle"].tolist() == puzzles
    else:
        assert [json.loads(line)["puzzle"] for line in out.read_text().splitlines()] == puzzles
    before = out.read_bytes()
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--resume"]) == 4
    assert out.read_bytes() == before  # every row kept whole, nothing solved again


def test_resume_reads_quoted_line_breaks_and_stops_at_a_broken_row(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(f'puzzle\n"{EASY[0][:40]}\n{EASY[0][40:]}"\n{EASY[1]}\n{EASY[2]}\n')
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--backend", ORACLE]) == 0
    whole = out.read_text()
    assert whole.count("\n") == 5  # the header, a row on two lines, two rows
    kept = "".join(whole.splitlines(keepends=True)[:4])  # the header and rows 0 and 1
    out.write_text(kept + '2,"broken')  # a crash inside a quoted field
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--resume"]) == 0
    again = out.read_text()
    assert again.startswith(kept)
    assert [r["puzzle"] for r in rows_of(out)] == [f"{EASY[0][:40]}\n{EASY[0][40:]}", *EASY[1:3]]
    assert rows_of(out)[2]["status"] == "unique"
