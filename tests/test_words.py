"""Counts in messages: one record, two records; never "1 records" or "(1 cores)"."""

from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku.cli import main
from cpsudoku.model.words import count_of, plural

EASY = read_lines("easy_kaggle1m_200.txt", 2)


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (0, "record", "0 records"),
        (1, "record", "1 record"),
        (2, "core", "2 cores"),
        (12345, "record", "12,345 records"),
        (1, "duplicate dropped", "1 duplicate dropped"),
        (3, "duplicate dropped", "3 duplicates dropped"),
        (2, "class kept", "2 classes kept"),
        (1, "class kept", "1 class kept"),
    ],
)
def test_count_of(n: int, noun: str, expected: str) -> None:
    assert count_of(n, noun) == expected


def test_an_irregular_plural_is_given() -> None:
    assert count_of(2, "DISAGREEMENT", "DISAGREEMENTS") == "2 DISAGREEMENTS"
    assert count_of(1, "DISAGREEMENT", "DISAGREEMENTS") == "1 DISAGREEMENT"
    assert count_of(4, "16x16 record", "16x16 records") == "4 16x16 records"
    assert plural("witness") == "witnesses"


def test_a_batch_of_one_record_says_one_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "one.txt"
    src.write_text(EASY[0] + "\n")
    assert main(["batch", str(src), "-o", str(tmp_path / "o.csv"), "--backend", "sat"]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith("cpsudoku batch: 1 record in "), line


def test_dedupe_of_one_duplicate_says_one_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "two.txt"
    src.write_text(f"{EASY[0]}\n{EASY[0]}\n{EASY[1]}\n")
    assert main(["dedupe", str(src), "-o", str(tmp_path / "kept.txt")]) == 0
    err = capsys.readouterr().err
    assert "3 records, 2 classes kept, 1 duplicate dropped" in err, err
