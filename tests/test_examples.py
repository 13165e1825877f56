"""The files README's examples name are in the clone, and do what README says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cpsudoku.cli import main

ROOT = Path(__file__).parents[1]


def test_every_file_a_readme_command_names_is_shipped() -> None:
    """A `cpsudoku ... path` line of README names a file of the clone (not an invented one)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(
        re.findall(r"(?:examples|benchmarks/data)/[\w./-]+\.(?:jsonl|json|txt|csv)\b", text)
    )
    assert "examples/killer.json" in named
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing


def test_the_killer_example_is_unique(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(ROOT / "examples" / "killer.json"), "--backend", "native"]) == 0
    out = capsys.readouterr().out
    assert "30 cages" in out
    assert "unique: the only solution" in out


def _setup_batch_command() -> list[str]:
    """The batch command of README's set-up command 1 (after the install)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(s for s in text.splitlines() if s.startswith("python3 -m venv .venv"))
    return line.split(" && ")[-1].split()


def test_the_set_up_command_runs_again_in_the_same_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Command 1 twice: the second run writes over solved.csv (batch refuses without --force)."""
    command = _setup_batch_command()
    assert command[:2] == ["cpsudoku", "batch"]
    assert "--force" in command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert " ".join(command) in ci.splitlines()  # CI performs exactly README's command
    monkeypatch.chdir(tmp_path)
    (tmp_path / "benchmarks").symlink_to(ROOT / "benchmarks")
    for _ in range(2):
        assert main([*command[1:], "--quiet"]) == 0
    assert len((tmp_path / "solved.csv").read_text().splitlines()) == 2001
    assert (tmp_path / "solved.csv.meta.json").is_file()


def test_the_set_up_command_leaves_nothing_for_git_to_add() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/solved.csv" in ignored
    assert "/solved.csv.meta.json" in ignored


def test_the_data_readme_lists_the_bundled_files_with_their_counts() -> None:
    """Each file of benchmarks/data/README.md's tables is in the clone, with as many puzzles."""
    data = ROOT / "benchmarks" / "data"
    rows = [
        cells
        for line in (data / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ")
        and len(cells := [c.strip() for c in line.strip("|").split("|")]) > 2
        and re.fullmatch(r"[\w.-]+\.(?:txt|csv)", cells[0])
    ]
    assert len(rows) >= 20
    for name, count, *_ in rows:
        path = data / name
        assert path.is_file(), name
        lines = path.read_text(encoding="utf-8").splitlines()
        puzzles = len(lines) - (1 if name.endswith(".csv") else 0)
        assert f"{puzzles:,}" == count, name
