"""Faults from outside: signals, a parent killed, a full disk, a reader that leaves.

Each runs the real command line in a subprocess and does to it what a user or the
system would: SIGTERM, ``kill -9``, a file size limit, a pipe closed by ``head``.
"""

from __future__ import annotations

import contextlib
import csv
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku.cli import main

ROOT = Path(__file__).parent.parent
HARDEST = read_lines("forum_hardest_1106_60.txt", 40)
EASY = read_lines("easy_kaggle1m_200.txt", 20)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads process tables from /proc"
)


def cpsudoku(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "cpsudoku", *args], cwd=ROOT, **kwargs
    )


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text()
        found.update(int(p) for p in text.split())
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def slow_batch(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """A two-worker batch that takes many seconds, started and producing rows."""
    src = tmp_path / "hard.txt"
    src.write_text("\n".join(HARDEST * 3) + "\n")
    out = tmp_path / "out.csv"
    args = ["--jobs", "2", "--chunk-size", "1", "--backend", "backtrack", "--quiet"]
    proc = cpsudoku("batch", str(src), "-o", str(out), *args)
    assert wait_for(lambda: out.exists() and out.read_text().count("\n") >= 3, 60)
    assert wait_for(lambda: len(children(proc.pid)) >= 2, 10)
    return proc, out


def test_sigterm_closes_the_output_and_ends_the_workers(tmp_path: Path) -> None:
    proc, out = slow_batch(tmp_path)
    workers = children(proc.pid)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143
    assert wait_for(lambda: not any(map(alive, workers)), 10), "workers outlived the batch"
    text = out.read_text()
    assert text.endswith("\n")
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["index"]) for r in rows] == list(range(len(rows)))
    assert all(r["status"] == "unique" for r in rows)


def test_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    proc, _out = slow_batch(tmp_path)
    workers = children(proc.pid)
    proc.kill()
    proc.wait(30)
    assert wait_for(lambda: not any(map(alive, workers)), 10), "orphaned workers run on"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_portfolio_engines_end_when_their_parent_is_killed() -> None:
    frisch = (ROOT / "benchmarks" / "data" / "25x25_frisch.txt").read_text().split()[8]
    proc = cpsudoku("solve", frisch, "--backend", "portfolio", stdout=subprocess.DEVNULL)

    def engines() -> set[int]:  # spawned processes (not multiprocessing's resource tracker)
        found = set()
        for pid in children(proc.pid):
            with contextlib.suppress(FileNotFoundError):
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.add(pid)
        return found

    try:
        assert wait_for(lambda: len(engines()) == 2, 60)
        searching = engines()
        # Killed while both search (their start-up, imports included, takes about 1 s).
        assert wait_for(lambda: all(cpu_seconds(p) > 2.0 for p in searching), 60)
    finally:
        proc.kill()
        proc.wait(30)
    assert wait_for(lambda: not any(map(alive, searching)), 10), "portfolio engines run on"


def limited(max_bytes: int) -> Callable[[], None]:
    """A preexec function capping the size of any file the child writes (a full disk)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return cap


@pytest.mark.parametrize(
    ("output", "named"),
    [("out.csv", "out.csv"), ("out.jsonl", "out.jsonl"), ("out.parquet", "part-00000.parquet")],
)
def test_a_full_disk_names_the_output_not_the_input(
    tmp_path: Path, output: str, named: str
) -> None:
    pytest.importorskip("pyarrow")
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY) + "\n")
    proc = cpsudoku(
        "batch",
        str(src),
        "-o",
        str(tmp_path / output),
        "--jobs",
        "1",
        stderr=subprocess.PIPE,
        preexec_fn=limited(300),
    )
    _, err = proc.communicate(timeout=60)
    message = err.decode()
    assert proc.returncode == 2, message
    assert named in message
    assert "File too large" in message
    assert "in.txt" not in message
    assert "Traceback" not in message


def test_generate_on_a_full_disk_names_its_file(tmp_path: Path) -> None:
    target = tmp_path / "new.csv"
    target.write_text("kept\n")
    proc = cpsudoku(
        "generate",
        "--count",
        "20",
        "--box",
        "2x2",
        "--seed",
        "1",
        "-o",
        str(target),
        "--force",
        stderr=subprocess.PIPE,
        preexec_fn=limited(100),
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "new.csv" in err.decode()
    assert "File too large" in err.decode()
    assert target.read_text() == "kept\n"  # a failed run leaves the file as it was


@pytest.mark.parametrize(
    "args",
    [
        ("generate", "--count", "50", "--box", "2x2", "--seed", "3"),
        ("batch", "{src}", "-o", "-", "--jobs", "1"),
        ("batch", "{src}", "-o", "-", "--jobs", "2", "--chunk-size", "2"),
    ],
)
def test_a_reader_that_leaves_ends_the_command_quietly(tmp_path: Path, args: tuple) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY) + "\n")
    proc = cpsudoku(
        *(a.format(src=src) for a in args), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()  # as `| head -0` does: every write now meets a closed pipe
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141
    assert "Broken pipe" not in err.decode()
    assert "Traceback" not in err.decode()


def test_export_refuses_to_overwrite_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(EASY[0] + "\n")
    assert main(["export", str(puzzle), "--to", "dimacs", "-o", str(puzzle)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert puzzle.read_text() == EASY[0] + "\n"
    link = tmp_path / "link.txt"
    link.symlink_to(puzzle)
    assert main(["export", str(link), "--to", "cpsat", "-o", str(puzzle)]) == 2
    assert main(["export", str(puzzle), "--to", "dimacs", "-o", str(tmp_path / "p.cnf")]) == 0
    assert (tmp_path / "p.cnf").read_text().startswith("c cpsudoku")
