"""Messages that say what happened: links, words, stray characters and refusals.

A link is never a file name, a word is not a 2x2 puzzle, a lone character is not a
1x1 one, and an engine that lacks a rule refuses (its own status and exit code), not
"invalid input".
"""

from __future__ import annotations

import json
from pathlib import Path

import lzstring
import pytest

import cpsudoku
from cpsudoku import Status
from cpsudoku.cli import main
from cpsudoku.engines import native_built
from cpsudoku.model.errors import PuzzleError, UnsupportedRulesError

#: An arrow whose circle reads as an 11-digit number: past the compiled engine's limits.
BEYOND = {
    "rules": {
        "size": 4,
        "box": "2x2",
        "constraints": [{"kind": "arrow", "circle": list(range(11)), "cells": [15]}],
    },
    "puzzle": "1...............",
}


def _link(obj: dict[str, object]) -> str:
    return "https://f-puzzles.com/?load=" + lzstring.LZString().compressToBase64(json.dumps(obj))


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("https://f-puzzles.com/?load=N4Ig...", "cut short or garbled"),
        (_link({"size": 9, "grid": [[{}] * 9] * 9, "spotlight": [{"cell": "R1C1"}]}), "spotlight"),
        ("https://sudokupad.app/abc123", "SudokuPad"),
        ("https://f-puzzles.com/?id=abc", "short link"),
        ("https://example.com/puzzle", "example.com"),
    ],
)
def test_a_bad_link_is_reported_with_its_reason_not_as_a_missing_file(
    link: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", link]) == 2
    out, err = capsys.readouterr()
    assert reason in out + err
    assert "no such file" not in out + err
    with pytest.raises(PuzzleError, match=reason):
        cpsudoku.parse(link)


@pytest.mark.parametrize("word", ["nope", "abc", "x"])
def test_a_short_word_is_no_puzzle_and_no_file(
    word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", word]) == 2
    err = capsys.readouterr().err
    assert "not a puzzle" in err
    assert "no such file" in err


def test_a_lone_character_is_no_1x1_puzzle_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(PuzzleError, match="1x1"):
        cpsudoku.parse("5")
    assert cpsudoku.solve("5").status is Status.INVALID
    assert cpsudoku.solve(".", box="1x1").status is Status.UNIQUE
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("5\n.\nx\n" + "1.343..2.3..2..3\n")
    out = tmp_path / "out.csv"
    assert main(["batch", str(garbage), "-o", str(out), "--quiet"]) == 4
    rows = out.read_text().splitlines()[1:]
    assert [row.split(",")[2] for row in rows] == ["invalid", "invalid", "invalid", "unique"]


def test_a_rule_the_engine_lacks_is_refused_not_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not native_built():
        pytest.skip("the compiled engine was not built")
    text = json.dumps(BEYOND)
    result = cpsudoku.solve(text, backend="native")
    assert result.status is Status.REFUSED
    assert "arrow" in (result.error or "")
    assert "sat" in (result.error or "")  # it names the engines that take the rule
    assert main(["solve", text, "--backend", "native"]) == 6
    assert "refused" in capsys.readouterr().out
    assert main(["solve", text, "--backend", "native", "--json"]) == 6
    assert json.loads(capsys.readouterr().out)["status"] == "refused"
    assert main(["count", text, "--backend", "native"]) == 6
    with pytest.raises(UnsupportedRulesError, match="engines that take them"):
        cpsudoku.count(text, backend="native")
    dataset = tmp_path / "k.jsonl"
    dataset.write_text(text + "\n")
    out = tmp_path / "k.csv"
    assert main(["batch", str(dataset), "-o", str(out), "--backend", "native", "--quiet"]) == 6
    assert ",refused," in out.read_text()
