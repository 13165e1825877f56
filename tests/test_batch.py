"""Batch solving: formats, order, parallel agreement, resume after SIGKILL, bad records."""

import bz2
import csv
import gzip
import json
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import read_lines, run_batch
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku import Result, Status, solve, solve_many
from cpsudoku.cli import main
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.output import resume_point
from cpsudoku.datasets.records import MAX_RECORD, read_records
from cpsudoku.datasets.rows import COLUMNS
from cpsudoku.datasets.solving import _cross_check

ORACLE = "backtrack"
EASY = read_lines("easy_kaggle1m_200.txt", 40)
HARD = read_lines("top95.txt", 12)
#: Beyond the logic pass (singles and locked candidates): always reaches the engine.
HARDEST = read_lines("forum_hardest_1106_60.txt", 1)
MULTI = read_lines("multisolution_tdoku.txt", 2)
NONE = read_lines("nosolution_tdoku.txt", 2)


def batch(
    tmp_path: Path, name: str, content: bytes | str, *args: str, code: int = 0
) -> list[dict[str, str]]:
    src = tmp_path / name
    if isinstance(content, str):
        content = content.encode()
    src.write_bytes(content)
    out = tmp_path / "out.csv"
    return run_batch(src, out, "--backend", ORACLE, "--jobs", "1", *args, code=code)


def test_order_and_count_kept_with_bad_records(tmp_path: Path) -> None:
    lines = [
        "# a comment",
        EASY[0],
        "",
        "12345",
        EASY[1],
        "55" + EASY[2][2:],
        MULTI[0],
        "?" * 81,
        NONE[0],
        "x" * (MAX_RECORD + 10),
        EASY[3],
    ]
    content = (
        "\n".join(lines).encode() + b"\n\xff\xfe" + EASY[4].encode() + b"\n" + EASY[5].encode()
    )
    rows = batch(tmp_path, "mixed.txt", content, code=4)
    assert [r["index"] for r in rows] == [str(i) for i in range(11)]
    assert [r["status"] for r in rows] == [
        "unique",
        "invalid",
        "unique",
        "invalid",
        "multiple",
        "invalid",
        "unsolvable",
        "invalid",
        "unique",
        "invalid",
        "unique",
    ]
    assert rows[1]["error"]  # wrong length names the count
    assert "5 cells" in rows[1]["error"]
    assert "appears twice in row 1" in rows[3]["error"]
    assert "unknown symbol '?'" in rows[5]["error"]
    assert "too long" in rows[7]["error"]
    assert "undecodable" in rows[9]["error"]
    assert rows[0]["solution"] == str(solve(EASY[0], backend=ORACLE).solution)
    assert list(rows[0]) == list(COLUMNS)


def test_jobs_1_and_2_give_identical_rows(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY + HARD + MULTI + NONE + ["bad"]) + "\n")
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}.csv"
        args = ("--backend", ORACLE, "--jobs", jobs, "--chunk-size", "7")
        rows = run_batch(src, out, *args, code=4)  # "bad" is invalid
        outs.append([{k: v for k, v in r.items() if k != "seconds"} for r in rows])
    assert outs[0] == outs[1]
    assert len(outs[0]) == len(EASY + HARD + MULTI + NONE) + 1


def test_csv_columns_and_solution_mismatch(tmp_path: Path) -> None:
    right = str(solve(EASY[0], backend=ORACLE).solution)
    wrong = str(solve(EASY[1], backend=ORACLE).solution)
    text = (
        "id,quizzes,solutions\n"
        f"1,{EASY[0].replace('.', '0')},{right}\n"
        f"2,{EASY[1]},{right}\n"
        f'3,"{EASY[2]}",\n'
    )
    rows = batch(tmp_path, "k.csv", text, code=5)  # row 2 differs from its solution column
    assert [r["status"] for r in rows] == ["unique"] * 3
    assert rows[0]["error"] == ""
    assert "solution column" in rows[1]["error"]
    assert right != wrong


@pytest.mark.parametrize("header", ["puzzle", "quiz", "something"])
def test_csv_puzzle_column_choice(tmp_path: Path, header: str) -> None:
    first = "puzzle" if header == "something" else "other"
    text = (
        f"{header},{first}\n{EASY[0]},x\n"
        if header != "something"
        else (f"{header},other\n{EASY[0]},x\n")
    )
    rows = batch(tmp_path, "c.csv", text)
    assert len(rows) == 1
    assert rows[0]["status"] == "unique"


def test_csv_without_header_keeps_first_record(tmp_path: Path) -> None:
    rows = batch(tmp_path, "nohead.csv", f"{EASY[0]},a\n{EASY[1]},b\n")
    assert [r["puzzle"] for r in rows] == EASY[:2]


def test_jsonl_input_and_output(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        json.dumps({"puzzle": EASY[0]})
        + "\n"
        + "{broken\n"
        + json.dumps(EASY[1])
        + "\n"
        + json.dumps({"nope": 1})
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(src), "-o", str(out), "--backend", ORACLE, "--quiet"]) == 4
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["unique", "invalid", "unique", "invalid"]
    assert "malformed JSON" in rows[1]["error"]
    assert set(rows[0]) == set(COLUMNS)
    # The types of `cpsudoku solve --json`: seconds a number, null where there is none.
    assert isinstance(rows[0]["seconds"], float)
    assert rows[0]["error"] is None
    assert rows[1]["solution"] is None


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zip"])
def test_compressed_inputs(tmp_path: Path, suffix: str) -> None:
    data = ("quizzes,solutions\n" + "\n".join(f"{p}," for p in EASY[:5]) + "\n").encode()
    path = tmp_path / f"sudoku.csv{suffix}"
    if suffix == ".zip":
        path = tmp_path / "sudoku.zip"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("sudoku.csv", data)
    else:
        opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
        with opener(path, "wb") as fh:
            fh.write(data)
    records = list(read_records(str(path)))
    assert [r.puzzle for r in records] == EASY[:5]


def test_zip_with_two_files_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.txt", EASY[0])
        zf.writestr("b.txt", EASY[1])
    assert main(["batch", str(path), "--backend", ORACLE, "--quiet"]) == 2
    assert "exactly one data file" in capsys.readouterr().err


def test_missing_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", str(tmp_path / "nope.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["batch", str(tmp_path)]) == 2


def test_per_record_time_limit(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join([EASY[0], HARDEST[0], EASY[1]]) + "\n")
    args = ("--backend", "backtrack:naive", "--time-limit", "0.05", "--jobs", "1")
    statuses = [r["status"] for r in run_batch(src, tmp_path / "out.csv", *args, code=3)]
    assert statuses == ["unique", "timeout", "unique"]


def test_verify_with_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = batch(
        tmp_path,
        "v.txt",
        "\n".join(EASY[:5] + MULTI[:1]) + "\n",
        "--verify-with",
        "backtrack:naive",
    )
    assert all(r["error"] == "" for r in rows)


def test_cross_check_reports_disagreement() -> None:
    options = SolveOptions(ORACLE)
    real = solve(MULTI[0], backend=ORACLE)
    assert real.status is Status.MULTIPLE
    claimed = Result(Status.UNIQUE, real.solution, "claimed")
    message = _cross_check(MULTI[0], claimed, ORACLE, options)
    assert message is not None
    assert "disagreement" in message


def test_solve_many_keeps_order_and_reports_invalid() -> None:
    puzzles = [EASY[0], "bad", [[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]], NONE[0]]
    one = list(solve_many(puzzles, ORACLE))
    two = list(solve_many(puzzles, ORACLE, jobs=2))
    assert [r.status for r in one] == [
        Status.UNIQUE,
        Status.INVALID,
        Status.UNIQUE,
        Status.UNSOLVABLE,
    ]
    assert [(r.status, r.solution) for r in one] == [(r.status, r.solution) for r in two]


def test_resume_after_sigkill(tmp_path: Path) -> None:
    puzzles = (HARD * 4)[:40]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(puzzles) + "\n")
    out = tmp_path / "out.csv"
    cmd = [
        sys.executable,
        "-m",
        "cpsudoku",
        "batch",
        str(src),
        "-o",
        str(out),
        "--backend",
        "backtrack:naive",
        "--jobs",
        "1",
        "--chunk-size",
        "1",
        "--time-limit",
        "0.05",
        "--quiet",
    ]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).parent.parent)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 6:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = out.read_text().count("\n") - 1
    assert 0 < before < len(puzzles)
    with out.open("ab") as fh:  # a half-written row, as a crash mid-write would leave
        fh.write(b"999,4.....8.5")
    code = main([*cmd[3:], "--resume"])
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert code == (3 if any(r["status"] == "timeout" for r in rows) else 0)
    assert [int(r["index"]) for r in rows] == list(range(len(puzzles)))
    assert [r["puzzle"] for r in rows] == puzzles
    assert out.read_text().endswith("\n")


def test_resume_point_truncates_partial_rows(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    good = [
        json.dumps(dict(zip(COLUMNS, [i, "p", "unique", "s", "b", "0.1", ""], strict=True)))
        for i in range(3)
    ]
    out.write_text("\n".join(good) + "\n" + '{"index": 3, "puz')
    assert resume_point(str(out), "jsonl") == 3
    assert out.read_text() == "\n".join(good) + "\n"


@settings(max_examples=200, deadline=None)
@given(
    fields=st.lists(
        st.tuples(
            st.text(alphabet='.12,"x\n\r\x00\x1b\u2028 ', max_size=12),
            st.text(alphabet='123,"\n\r', max_size=6),
            st.text(alphabet='ab ,"\n\r\t', max_size=8),
        ),
        max_size=5,
    )
)
def test_csv_rows_read_back_whole(fields: list[tuple[str, str, str]]) -> None:
    """Every row reads back as written, control characters and all, one record per row."""
    import io

    from cpsudoku.datasets.rows import format_rows

    rows = [(i, p, "unique", s, "sat", 0.0001, e) for i, (p, s, e) in enumerate(fields)]
    text = format_rows(rows, "csv")
    back = list(csv.reader(io.StringIO(text, newline="")))
    rows = [(i, p, "unique", s, "sat", "0.000100", e) for i, (p, s, e) in enumerate(fields)]
    assert back == [[str(field) for field in row] for row in rows]
    controls = set("\r\t\x00\x1b\u2028")
    if not any(controls & set(f) for t in fields for f in t):
        buffer = io.StringIO()  # where csv.writer is right, the same bytes
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        assert text == buffer.getvalue()


def _slow_but_the_first(chunk: Sequence[str], options: SolveOptions) -> list[int]:
    if chunk != ["first"]:
        time.sleep(60)
    return [len(x) for x in chunk]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_worker_that_shrugs_off_sigterm_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker deaf to SIGTERM lives on; when the run stops early, it is killed after
    the grace period, not left for the interpreter's exit to wait on."""
    import multiprocessing

    from cpsudoku.datasets import pool

    start = pool._init_worker

    def stubborn(*args: object) -> None:
        start(*args)  # type: ignore[arg-type]
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    monkeypatch.setattr(pool, "_init_worker", stubborn)
    monkeypatch.setattr(pool, "STOP_GRACE", 0.5)
    before = set(multiprocessing.active_children())
    began = time.perf_counter()
    run = pool.run_chunks(["first", "x", "y", "z"], _slow_but_the_first, SolveOptions(), 2, 1)
    assert next(run) == (["first"], [5])
    run.close()  # the others are still sleeping, deaf to SIGTERM
    assert time.perf_counter() - began < 20
    assert not [p.pid for p in set(multiprocessing.active_children()) - before if _running(p.pid)]


_SIGTERM_AT_FORK = """
import ctypes, functools, os, signal
from cpsudoku.datasets import pool
from cpsudoku.datasets.options import SolveOptions

class Stop(Exception):
    pass

def stop(signum, frame):
    raise Stop

def lengths(chunk, options):
    return [len(x) for x in chunk]

signal.signal(signal.SIGTERM, stop)
# SIGTERM to every worker the moment it is forked, before any of its Python runs
# (a C callable: no Python frame of the hook's own to run the handler in).
os.register_at_fork(after_in_child=functools.partial(
    getattr(ctypes.CDLL(None), "raise"), signal.SIGTERM))
parent = os.getpid()
try:
    list(pool.run_chunks(["a", "bb", "ccc"], lengths, SolveOptions(), 2, 1))
finally:
    print("parent" if os.getpid() == parent else "worker", flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_worker_terminated_as_it_forks_never_runs_the_parents_code() -> None:
    """SIGTERM reaching a worker between the fork and its start-up once ran the
    parent's handler there; the exception unwound the worker's copy of the parent's
    stack, and the worker went on as the parent (stopping the pool, writing outputs).
    Held until the worker's own handlers are in place, it just ends the worker."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _SIGTERM_AT_FORK], capture_output=True, text=True, timeout=120
    )
    assert run.stdout.split() == ["parent"], run.stderr


def _running(pid: int | None) -> bool:
    """The process ``pid`` exists and has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):  # gone before or while read
        return False
