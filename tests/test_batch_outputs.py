"""Where dataset commands write: an existing output is never replaced without --force,
a provenance sidecar goes only beside a regular file and says what ran."""

import json
import os
import threading
from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku.cli import main
from cpsudoku.engines import native_built

EASY = read_lines("easy_kaggle1m_200.txt", 6)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "puzzles.txt"
    path.write_text("\n".join(EASY) + "\n")
    return path


def test_batch_refuses_an_existing_output_without_force(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "solved.csv"
    out.write_text("index,puzzle\n0,precious\n")
    before = out.read_bytes()
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{out} already exists and is not empty" in err
    for option in ("--force", "--resume", "--retry-timeouts"):
        assert option in err
    assert out.read_bytes() == before
    assert not (tmp_path / "solved.csv.meta.json").exists()
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--force"]) == 0
    assert len(out.read_text().splitlines()) == len(EASY) + 1
    # --resume keeps what the file holds: no --force needed, and none taken.
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--resume"]) == 0
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--resume", "--force"]) == 2
    assert "give one" in capsys.readouterr().err


def test_an_empty_file_or_folder_is_no_existing_output(src: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert main(["batch", str(src), "-o", str(empty), "--quiet"]) == 0
    assert len(empty.read_text().splitlines()) == len(EASY)


def test_batch_refuses_a_parquet_folder_that_holds_parts(src: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    out = tmp_path / "solved.parquet"
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 0
    assert main(["batch", str(src), "-o", str(out), "--quiet"]) == 2
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--force"]) == 0


def test_dedupe_and_generate_refuse_an_existing_output_too(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("mine\n")
    assert main(["dedupe", str(src), "-o", str(kept), "--quiet"]) == 2
    assert f"{kept} already exists" in capsys.readouterr().err
    assert kept.read_text() == "mine\n"
    assert main(["dedupe", str(src), "-o", str(kept), "--quiet", "--force"]) == 0
    assert kept.read_text().splitlines() == EASY
    # Its report is an output too.
    other = tmp_path / "other.txt"
    (tmp_path / "other.txt.classes.csv").write_text("mine\n")
    assert main(["dedupe", str(src), "-o", str(other), "--quiet"]) == 2
    assert "other.txt.classes.csv already exists" in capsys.readouterr().err
    assert not other.exists()
    new = tmp_path / "new.txt"
    new.write_text("mine\n")
    argv = ["generate", "--box", "2x2", "--count", "2", "--seed", "1", "-o", str(new)]
    assert main(argv) == 2
    assert f"{new} already exists" in capsys.readouterr().err
    assert new.read_text() == "mine\n"
    assert main([*argv, "--force"]) == 0
    assert len(new.read_text().splitlines()) == 2


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def drain() -> None:
        with path.open("rb") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_no_sidecar_beside_a_pipe_and_no_refusal_of_one(src: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "rows.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    assert main(["batch", str(src), "-o", str(fifo), "--quiet", "--jobs", "1"]) == 0
    reader.join(timeout=60)
    assert len(got[0].decode().splitlines()) == len(EASY) + 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["puzzles.txt", "rows.csv"]


def test_batch_to_dev_null_writes_no_sidecar(src: Path) -> None:
    sidecar = Path(os.devnull + ".meta.json")
    existed = sidecar.exists()
    try:
        assert main(["batch", str(src), "-o", os.devnull, "--quiet", "--jobs", "1"]) == 0
        assert sidecar.exists() == existed
    finally:
        if sidecar.exists() and not existed:
            sidecar.unlink()


@pytest.mark.parametrize(
    ("args", "bulk"),
    [
        ([], "native" if native_built() else "logic"),
        (["--backend", "backtrack"], "logic"),
        (["--no-presolve"], None),
    ],
)
def test_the_sidecar_names_the_bulk_pass_beside_the_engine(
    src: Path, tmp_path: Path, args: list[str], bulk: str | None
) -> None:
    out = tmp_path / "solved.csv"
    assert main(["batch", str(src), "-o", str(out), "--quiet", "--jobs", "1", *args]) == 0
    meta = json.loads((tmp_path / "solved.csv.meta.json").read_text())
    assert meta["bulk_pass"] == bulk
    assert list(meta).index("bulk_pass") == list(meta).index("engine") + 1
    backends = {line.split(",")[4] for line in out.read_text().splitlines()[1:]}
    assert backends == {bulk or meta["engine"]}  # easy puzzles: the pass decides them all


def test_batch_help_says_what_the_bulk_pass_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "the compiled engine, backend native" in text
    assert "whole-array logic pass decides" not in text
    assert "--force" in text
