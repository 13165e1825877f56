"""benchmarks/make_variants.py: its own folder, no overwriting, the same files on every run."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
BUNDLED = BENCHMARKS / "data" / "variants"


def _script() -> ModuleType:
    """The script as a module importable by name: its worker processes pickle ``line``."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("make_variants")


make_variants = _script()


def test_two_runs_give_the_same_files_as_the_bundled_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeded and without time limits: byte for byte the same, and the bundled lines."""
    families = ["sandwich", "x"]
    for out in ("a", "b"):
        assert make_variants.main(["-n", "2", *families, "--out", str(tmp_path / out)]) == 0
    for family in families:
        first = (tmp_path / "a" / f"{family}.jsonl").read_bytes()
        assert first == (tmp_path / "b" / f"{family}.jsonl").read_bytes()
        bundled = (BUNDLED / f"{family}.jsonl").read_bytes().splitlines(keepends=True)
        assert first.splitlines(keepends=True) == bundled[:2]
    assert "sandwich.jsonl: 2 puzzles in" in capsys.readouterr().out


def test_the_line_that_depended_on_the_machine_is_made_again() -> None:
    """Line 23 of sandwich.jsonl: a time-limited check had kept a removable clue."""
    bundled = (BUNDLED / "sandwich.jsonl").read_text().splitlines()[22]
    assert make_variants.line(("sandwich", 22)) == bundled
    assert sum(c != "." for c in json.loads(bundled)["puzzle"]) == 3


def test_the_default_folder_is_a_new_one_and_nothing_is_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in BUNDLED.iterdir()}
    assert make_variants.main(["-n", "1", "x"]) == 0
    assert (tmp_path / "variants-out" / "x.jsonl").is_file()
    assert {p.name: p.read_bytes() for p in BUNDLED.iterdir()} == before
    capsys.readouterr()
    assert make_variants.main(["-n", "1", "x"]) == 2
    err = capsys.readouterr().err
    assert "variants-out/x.jsonl exists" in err
    assert "--force" in err
    assert make_variants.main(["-n", "1", "x", "--force"]) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such-family"], "unknown family 'no-such-family'"),
        (["-n", "0", "x"], "-n must be at least 1"),
        (["--jobs", "0", "x"], "--jobs must be at least 1"),
    ],
)
def test_bad_arguments_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        make_variants.main([*argv, "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
