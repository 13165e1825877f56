"""What a batch run says when it ends (exit code, summary line), and retrying timeouts."""

import csv
import json
from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku.cli import main

ORACLE = "backtrack"
EASY = read_lines("easy_kaggle1m_200.txt", 6)
HARD = read_lines("forum_hardest_1106_60.txt", 3)
MULTI = read_lines("multisolution_tdoku.txt", 1)
NONE = read_lines("nosolution_tdoku.txt", 1)


def rows_of(path: Path) -> list[dict[str, object]]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize(
    ("extra", "args", "code"),
    [
        ([MULTI[0], NONE[0]], (), 0),  # multiple and unsolvable are decided answers
        (["12345"], (), 4),
        ([HARD[0]], ("--backend", "backtrack:naive", "--time-limit", "0.02"), 3),
        (["12345", HARD[0]], ("--backend", "backtrack:naive", "--time-limit", "0.02"), 4),
        ([], ("--verify-with", "backtrack:naive"), 0),
    ],
)
def test_the_exit_code_is_the_most_serious_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], args: tuple, code: int
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join([*EASY[:3], *extra]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--backend", ORACLE, *args]) == code
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"cpsudoku batch: {3 + len(extra)} records in ")
    for status in {r["status"] for r in rows_of(out)}:
        assert f" {status}" in line  # the one-line summary counts every status


def test_a_row_that_contradicts_the_solution_column_exits_5(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(f"puzzle,solution\n{EASY[0]},{EASY[1].replace('.', '1')}\n")
    assert main(["batch", str(src), "-o", str(tmp_path / "o.csv"), "--quiet"]) == 5


def test_resumed_rows_count_in_the_exit_code(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(["12345", *EASY[:3]]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 4
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:3]))  # the invalid row is kept, the rest solved again
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--resume"]) == 4


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_retry_timeouts_rewrites_just_those_rows(tmp_path: Path, suffix: str) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    puzzles = [EASY[0], HARD[0], EASY[1], "12345", HARD[1], EASY[2], HARD[2], EASY[3]]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(puzzles) + "\n")
    out = tmp_path / f"out{suffix}"
    slow = ["--backend", "backtrack:naive", "--time-limit", "0.02", "--jobs", "1"]
    common = ["batch", str(src), "-o", str(out), "--quiet", "--chunk-size", "3"]
    assert main([*common, *slow]) == 4
    before = rows_of(out)
    timed_out = [i for i, r in enumerate(before) if r["status"] == "timeout"]
    assert timed_out == [1, 4, 6]
    fast = ["--backend", ORACLE, "--time-limit", "30", "--jobs", "2"]
    assert main([*common, *fast, "--retry-timeouts"]) == 4  # "12345" stays invalid
    after = rows_of(out)
    assert [int(r["index"]) for r in after] == list(range(len(puzzles)))  # type: ignore[call-overload]
    assert [r["puzzle"] for r in after] == puzzles
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        if i in timed_out:
            assert new["status"] == "unique"
            assert new["backend"] == ORACLE
        else:
            assert new == old  # untouched, seconds and all
    if suffix != ".parquet":
        text = out.read_bytes()
        assert main([*common, *fast, "--retry-timeouts"]) == 4  # nothing left to retry
        assert out.read_bytes() == text


def test_retry_timeouts_also_finishes_an_unfinished_output(tmp_path: Path) -> None:
    puzzles = [HARD[0], *EASY[:4]]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(puzzles) + "\n")
    out = tmp_path / "out.csv"
    slow = ["--backend", "backtrack:naive", "--time-limit", "0.02", "--jobs", "1"]
    assert main(["batch", str(src), "-o", str(out), "--quiet", *slow]) == 3
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:3]))  # rows 0 and 1
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--retry-timeouts"]) == 0
    rows = rows_of(out)
    assert [r["status"] for r in rows] == ["unique"] * 5
    assert [r["puzzle"] for r in rows] == puzzles


def test_json_is_the_summary_as_one_object_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join([*EASY[:3], MULTI[0], "12345"]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--backend", ORACLE, "--json"]) == 4
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["records"] == 5
    assert summary["statuses"]["unique"] == 3
    assert summary["statuses"]["multiple"] == 1
    assert summary["statuses"]["invalid"] == 1
    assert summary["statuses"]["timeout"] == 0  # every status named
    assert summary["exit_code"] == 4
    assert summary["output"] == str(out)
    assert summary["resumed"] == 0
    assert summary["mismatches"] == 0
    assert summary["disagreements"] == 0
    assert summary["seconds"] >= 0
    assert "cpsudoku batch: 5 records in" not in captured.err  # the JSON replaces the line


def test_json_goes_to_stderr_when_the_rows_go_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY[:2]) + "\n")
    assert main(["batch", str(src), "-o", "-", "--json"]) == 0
    captured = capsys.readouterr()
    rows = list(csv.DictReader(captured.out.splitlines()))
    assert [row["status"] for row in rows] == ["unique", "unique"]
    summary = json.loads(captured.err.strip().splitlines()[-1])
    assert summary["records"] == 2
    assert summary["output"] == "-"
    assert summary["exit_code"] == 0


def test_json_counts_the_rows_kept_by_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY[:4]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 0
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:3]))  # 2 rows kept
    capsys.readouterr()
    assert main(["batch", str(src), "-o", str(out), "--resume", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["resumed"] == 2
    assert summary["kept"]["unique"] == 2
    assert summary["records"] == 2
    assert summary["statuses"]["unique"] == 2
