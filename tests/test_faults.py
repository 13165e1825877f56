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


# ---- Ctrl-C during a search: exit code 130, never a traceback, never 1 ---------------

#: A 25x25 puzzle that takes every engine far longer than these tests wait (the sat
#: engine about 25 s of CPU, the others longer still).
FRISCH = (ROOT / "benchmarks" / "data" / "25x25_frisch.txt").read_text().split()[0]


def group_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of its live children (a batch's or portfolio's workers)."""
    total = 0.0
    for p in {pid, *children(pid)}:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            total += cpu_seconds(p)
    return total


def ctrl_c_after(args: list[str], cpu: float) -> tuple[int, str, set[int]]:
    """Run ``cpsudoku ARGS`` in a session of its own; once it has used ``cpu`` seconds
    of CPU (its workers' included), press Ctrl-C as a terminal does: SIGINT to the
    whole process group. Returns the exit code, stderr and the workers it had."""
    proc = cpsudoku(
        *args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        assert wait_for(lambda: group_cpu(proc.pid) >= cpu, 120), "the search never started"
        workers = children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode, err.decode(), workers


BATCH_SAT = ["batch", "{tmp}/in.txt", "-o", "{tmp}/out.csv", "--backend", "sat", "--no-presolve"]

#: name -> (arguments, CPU seconds after which the search is surely running). The sat
#: engine encodes the 25x25 rules and runs its budgeted calls in the first 2.5 s of
#: CPU (imports included); past that it is inside one long python-sat call, where a
#: Ctrl-C used to raise ``pysolvers.error`` (a traceback, exit code 1).
CTRL_C_CASES: dict[str, tuple[list[str], float]] = {
    "solve-sat": (["solve", FRISCH, "--backend", "sat"], 3.5),
    "count-sat": (["count", FRISCH, "--backend", "sat"], 3.5),
    "certify": (["certify", FRISCH, "-o", "{tmp}/cert"], 3.5),
    "candidates": (["candidates", FRISCH], 1.5),
    # A limited call that python-sat runs without its handler: it used to go on to
    # its time limit (the command's 60 s wait would run out first).
    "solve-minisat-time-limit": (
        ["solve", FRISCH, "--backend", "sat:reduced:minisat22", "--time-limit", "600"],
        1.8,
    ),
    "batch-sat": ([*BATCH_SAT, "--jobs", "1"], 3.5),
    "batch-sat-2-workers": ([*BATCH_SAT, "--jobs", "2", "--chunk-size", "1"], 7.0),
    "solve-cpsat": (["solve", FRISCH, "--backend", "cpsat"], 2.5),
    "count-native": (["count", FRISCH, "--backend", "native"], 1.5),
    "solve-backtrack": (["solve", FRISCH, "--backend", "backtrack"], 1.5),
    "solve-portfolio": (["solve", FRISCH, "--backend", "portfolio"], 5.0),
}


@pytest.mark.parametrize("case", CTRL_C_CASES)
def test_ctrl_c_during_a_search_exits_130(tmp_path: Path, case: str) -> None:
    args, cpu = CTRL_C_CASES[case]
    (tmp_path / "in.txt").write_text(f"{FRISCH}\n{FRISCH}\n")
    code, err, workers = ctrl_c_after([a.format(tmp=tmp_path) for a in args], cpu)
    assert code == 130, err
    assert "Traceback" not in err, err
    assert err.strip().endswith("cpsudoku: interrupted"), err
    assert wait_for(lambda: not any(map(alive, workers)), 10), "workers outlived the command"


#: Python code run in a subprocess: an interrupted python-sat search, then the same
#: objects used again, then a second Ctrl-C while Python sleeps. ``{hard}`` and
#: ``{easy}`` are 25x25 puzzles (the same rules, so the engine's live solver is the one
#: the interrupt hit).
AFTER_CTRL_C = """
import sys, time
from cpsudoku import parse, create_backend
from cpsudoku.encode.cnf import reduced
from cpsudoku.evidence.candidates import true_candidates
from cpsudoku.evidence.certificate import prove

what, hard, easy = sys.argv[1:]
sat = create_backend("sat")
if what == "engine":
    # Never escalate: the whole search runs on the engine's live solver, kept for the
    # next puzzle of these rules.
    import cpsudoku.engines.sat
    cpsudoku.engines.sat.ESCALATE_CONFLICTS = None
    first = lambda: sat.solve(parse(hard))
    again = lambda: sat.solve(parse(easy)).status.value
elif what == "prove":
    first = lambda: prove(reduced(parse(hard)).clauses)
    again = lambda: "proof" if prove([[1], [-1]]) is not None else "none"
else:
    first = lambda: true_candidates(hard)
    again = lambda: "unique" if true_candidates(easy).unique else "not unique"
try:
    first()
except KeyboardInterrupt:
    print("interrupted", flush=True)
print("again:", again(), flush=True)
try:
    print("ready", flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    print("second Ctrl-C", flush=True)
sat.close()
"""


@pytest.mark.parametrize(
    ("what", "cpu", "again"),
    [("engine", 3.5, "unique"), ("prove", 1.8, "proof"), ("candidates", 1.5, "unique")],
)
def test_after_ctrl_c_in_python_sat_everything_still_works(
    what: str, cpu: float, again: str
) -> None:
    # python-sat's Ctrl-C handler jumps out of the solver: the call raised its own
    # error, not KeyboardInterrupt; CaDiCaL then aborted the process on the next call
    # to the same solver; and SIGINT stayed blocked, so the next Ctrl-C never came.
    easy = read_lines("25x25_misc_3.txt")[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", AFTER_CTRL_C, what, FRISCH, easy],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        assert wait_for(lambda: cpu_seconds(proc.pid) >= cpu, 120)
        proc.send_signal(signal.SIGINT)
        lines = [proc.stdout.readline() for _ in range(3)]
        if lines[2] == "ready\n":
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert lines == ["interrupted\n", f"again: {again}\n", "ready\n"], err
    assert out == "second Ctrl-C\n", err
    assert proc.returncode == 0, err


def test_ctrl_c_while_the_portfolio_engines_start_prints_no_traceback() -> None:
    # A spawned engine imports for a second or more before it ignores Ctrl-C; one
    # pressed meanwhile stopped its imports with a KeyboardInterrupt traceback.
    proc = cpsudoku(
        "solve",
        FRISCH,
        "--backend",
        "portfolio",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )

    def spawned() -> bool:
        for pid in children(proc.pid):
            with contextlib.suppress(FileNotFoundError):
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
        return False

    try:
        assert wait_for(spawned, 60)
        time.sleep(0.3)  # well inside its imports
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 130, err.decode()
    assert err.decode() == "cpsudoku: interrupted\n"


@pytest.mark.parametrize("name", ["cadical153", "minisat22", "glucose4"])
def test_an_abandoned_solver_is_never_reached_again(name: str) -> None:
    # A solver that python-sat's Ctrl-C handler jumped out of is half-way through an
    # update: deleting it freed an invalid pointer (glibc aborted the process) one
    # interrupt in 25. Abandoned, no call reaches its native state, deletion included.
    from pysat.solvers import Solver

    from cpsudoku.engines.interrupts import abandon

    solver = Solver(name, bootstrap_with=[[1, 2], [-1]])
    assert solver.solve()
    abandon(solver)
    assert solver.solve() is None  # python-sat's own guard: no native solver
    solver.delete()
    solver.delete()
    del solver  # the finaliser deletes nothing either
