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
    named = set(re.findall(r"(?:examples|benchmarks/data)/[\w./-]+\.(?:jsonl|json|txt|csv)\b", text))
    assert "examples/killer.json" in named
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing


def test_the_killer_example_is_unique(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(ROOT / "examples" / "killer.json"), "--backend", "native"]) == 0
    out = capsys.readouterr().out
    assert "30 cages" in out
    assert "unique: the only solution" in out
