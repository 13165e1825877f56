"""Cluster batch on a real Dask scheduler and workers (localhost only).

A module fixture starts ``dask scheduler`` and two ``dask worker`` processes with
Dask's own commands, as a user would on a cluster; every test compares the cluster's
rows with the local ``--jobs 1`` rows of the same input (all columns but ``seconds``).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import read_lines, run_blocked

from cpsudoku.cli import main
from cpsudoku.datasets.batch import run_batch
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record, read_records
from cpsudoku.datasets.rows import COLUMNS
from cpsudoku.engines import REGISTRY

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

ROOT = Path(__file__).parent.parent
BENCH = ROOT / "benchmarks" / "data"
FAST = "sat" if "sat" in REGISTRY else "backtrack"


def bench_lines(name: str, limit: int | None = None) -> list[str]:
    lines = [
        line.strip()
        for line in (BENCH / name).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return lines[:limit]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rows_of(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV output, or of a Parquet directory read back with pandas."""
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
        frame["index"] = frame["index"].astype(str)
        frame["seconds"] = frame["seconds"].map(lambda s: f"{s:.6f}")
        return [{k: str(v) for k, v in r.items()} for r in frame.to_dict("records")]
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def without_seconds(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few thousand bundled puzzles, hard ones spread through, plus bad records."""
    easy = bench_lines("easy_kaggle1m.txt")
    hard = bench_lines("forum_hardest_1905_11plus.txt", 24)
    extra = (
        read_lines("clue17_royle_200.txt", 200)
        + bench_lines("multisolution_tdoku.txt", 5)
        + bench_lines("nosolution_tdoku.txt", 5)
        + ["12345", "?" * 81, "55" + easy[0][2:]]
    )
    lines = easy + extra
    step = len(lines) // len(hard)
    for i, puzzle in enumerate(hard):
        lines.insert(i * (step + 1), puzzle)
    path = tmp_path_factory.mktemp("data") / "mixed.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def local_csv(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local ``--jobs 1`` output that every cluster run must reproduce."""
    out = tmp_path_factory.mktemp("local") / "local.csv"
    args = ["batch", str(dataset), "-o", str(out), "--backend", FAST, "--jobs", "1", "--quiet"]
    assert main(args) == 4  # the dataset holds invalid records
    return out


@pytest.fixture(scope="module")
def local_rows(local_csv: Path) -> list[dict[str, str]]:
    return rows_of(local_csv)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """End the processes this module started (each in its own process group)."""
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Address of a ``dask scheduler`` with two ``dask worker`` processes, 1 thread each."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scratch = tmp_path_factory.mktemp("dask")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    log = (scratch / "log.txt").open("ab")
    common: dict[str, object] = {
        "cwd": scratch,
        "env": env,
        "start_new_session": True,  # one process group each: nanny and worker end together
        "stdout": subprocess.DEVNULL,
        "stderr": log,
    }
    procs = [
        subprocess.Popen(
            [
                "dask",
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--idle-timeout",
                "600",
            ],
            **common,  # type: ignore[call-overload]
        )
    ]
    try:
        for name in ("w1", "w2"):
            procs.append(
                subprocess.Popen(
                    [
                        "dask",
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--name",
                        name,
                        "--death-timeout",
                        "30",
                        "--local-directory",
                        str(scratch),
                    ],
                    **common,  # type: ignore[call-overload]
                )
            )
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        _stop(procs[::-1])
        log.close()


@pytest.fixture
def client(scheduler: str) -> Iterator[distributed.Client]:
    with distributed.Client(scheduler, timeout=10, set_as_default=False) as c:
        c.wait_for_workers(2, timeout=60)  # a killed worker is back before each test
        yield c


def cluster_batch(src: Path, out: Path, scheduler: str, *args: str) -> int:
    common = ["-o", str(out), "--backend", FAST, "--scheduler", scheduler, "--quiet"]
    return main(["batch", str(src), *common, *args])


def test_cluster_rows_identical_to_local(
    dataset: Path, local_rows: list[dict[str, str]], scheduler: str, tmp_path: Path
) -> None:
    out = tmp_path / "cluster.csv"
    assert cluster_batch(dataset, out, scheduler) == 4
    rows = rows_of(out)
    assert list(rows[0]) == list(COLUMNS)
    assert without_seconds(rows) == without_seconds(local_rows)
    assert len(rows) > 2000
    assert {r["status"] for r in rows} >= {"unique", "multiple", "unsolvable", "invalid"}


def test_backend_kept_alive_and_parquet_equals_csv(
    dataset: Path, local_rows: list[dict[str, str]], scheduler: str, tmp_path: Path
) -> None:
    from cpsudoku.datasets.cluster import run_cluster_batch

    out = tmp_path / "cluster.parquet"
    summary = run_cluster_batch(
        read_records(str(dataset)),
        str(out),
        SolveOptions(FAST),
        scheduler=scheduler,
        partition_size=100,
    )
    assert summary.records == len(local_rows)
    parts = sorted(p.name for p in out.iterdir())
    assert parts[0] == "part-00000.parquet"
    assert len(parts) == summary.partitions == -(-len(local_rows) // 100)
    # Each worker process solved many partitions with one and the same backend object.
    assert 1 <= len(summary.backends) <= 2
    assert all(len(ids) == 1 for ids in summary.backends.values())
    assert without_seconds(rows_of(out)) == without_seconds(local_rows)


def test_worker_killed_mid_run_loses_nothing(
    dataset: Path,
    local_rows: list[dict[str, str]],
    scheduler: str,
    client: distributed.Client,
    tmp_path: Path,
) -> None:
    out = tmp_path / "killed.csv"
    cmd = [sys.executable, "-m", "cpsudoku", "batch", str(dataset), "-o", str(out)]
    cmd += ["--backend", FAST, "--scheduler", scheduler, "--partition-size", "5", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        victim = None
        while time.monotonic() < deadline and proc.poll() is None:
            written = out.read_text().count("\n") if out.exists() else 0
            busy = [w for w, tasks in client.processing().items() if tasks]
            if written > 50 and busy:
                victim = busy[0]
                break
            time.sleep(0.01)
        assert victim is not None, "the run ended before a worker could be killed"
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        killed_at = out.read_text().count("\n") - 1
        assert proc.wait(120) == 4
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert killed_at < len(local_rows)
    rows = rows_of(out)
    assert [int(r["index"]) for r in rows] == list(range(len(local_rows)))
    assert without_seconds(rows) == without_seconds(local_rows)


def test_interrupted_client_resumes(
    dataset: Path, local_rows: list[dict[str, str]], scheduler: str, tmp_path: Path
) -> None:
    out = tmp_path / "resumed.parquet"
    cmd = [sys.executable, "-m", "cpsudoku", "batch", str(dataset), "-o", str(out)]
    cmd += ["--backend", FAST, "--scheduler", scheduler, "--partition-size", "20", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and len(list(out.glob("part-*.parquet"))) >= 3:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    done = sorted(out.glob("part-*.parquet"))
    assert 3 <= len(done) < -(-len(local_rows) // 20)
    (out / ".part-99999.parquet.1.tmp").write_bytes(b"half")  # as a crash mid-write leaves
    assert cluster_batch(dataset, out, scheduler, "--resume", "--partition-size", "500") == 4
    assert not list(out.glob(".*"))
    assert without_seconds(rows_of(out)) == without_seconds(local_rows)


def test_csv_resume_keeps_written_rows(
    dataset: Path,
    local_csv: Path,
    local_rows: list[dict[str, str]],
    scheduler: str,
    tmp_path: Path,
) -> None:
    out = tmp_path / "resumed.csv"
    lines = local_csv.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:1001]) + lines[1001][:30])  # 1,000 rows and a cut one
    kept = out.read_text()[: len("".join(lines[:1001]))]
    assert cluster_batch(dataset, out, scheduler, "--resume") == 4
    assert out.read_text().startswith(kept)  # the earlier rows are kept as they were
    assert without_seconds(rows_of(out)) == without_seconds(local_rows)


def test_local_parquet_equals_csv_and_resumes(
    dataset: Path, local_rows: list[dict[str, str]], tmp_path: Path
) -> None:
    out = tmp_path / "local.parquet"
    options = SolveOptions(FAST)
    summary = run_batch(read_records(str(dataset)), str(out), options, jobs=1, chunk_size=300)
    assert summary.records == len(local_rows)
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == -(-len(local_rows) // 300)
    assert without_seconds(rows_of(out)) == without_seconds(local_rows)
    parts[-1].unlink()
    parts[-2].write_bytes(b"not parquet")  # a foreign or broken file is solved again
    again = run_batch(
        read_records(str(dataset)), str(out), options, jobs=1, chunk_size=300, resume=True
    )
    assert again.resumed == 300 * (len(parts) - 2)
    assert without_seconds(rows_of(out)) == without_seconds(local_rows)


def test_local_cluster_option(
    dataset: Path, local_rows: list[dict[str, str]], tmp_path: Path
) -> None:
    small = tmp_path / "small.txt"
    small.write_text("".join(dataset.read_text().splitlines(keepends=True)[:300]))
    out = tmp_path / "small.jsonl"
    args = ["batch", str(small), "-o", str(out), "--backend", FAST, "--quiet"]
    assert main([*args, "--scheduler", "local", "--jobs", "2"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in rows] == list(range(300))
    assert [r["status"] for r in rows] == [r["status"] for r in local_rows[:300]]
    assert [r["solution"] for r in rows] == [r["solution"] for r in local_rows[:300]]


def test_unreachable_scheduler_is_exit_2(
    dataset: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cpsudoku.datasets.cluster

    monkeypatch.setattr(cpsudoku.datasets.cluster, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    out = tmp_path / "never.csv"
    assert cluster_batch(dataset, out, address) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at {address}" in err
    assert err.count("\n") == 1  # one clear line, no traceback
    assert not out.exists()


def test_bad_scheduler_options_are_usage_errors(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", str(dataset), "--scheduler", "nowhere"]) == 2
    assert "--scheduler must be" in capsys.readouterr().err
    assert main(["batch", str(dataset), "--partition-size", "0"]) == 2
    assert main(["batch", str(dataset), "--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_without_dask_the_extra_is_named(dataset: Path, tmp_path: Path) -> None:
    small = tmp_path / "s.txt"
    small.write_text("\n".join(dataset.read_text().splitlines()[:20]) + "\n")
    done = run_blocked(
        {"dask", "distributed"}, "batch", str(small), "--scheduler", "local", "--quiet"
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'cpsudoku[dask]'" in done.stderr
    assert "Traceback" not in done.stderr
    # The core batch works without Dask, and never imports it.
    out = tmp_path / "s.csv"
    done = run_blocked({"dask", "distributed"}, "batch", str(small), "-o", str(out), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout
    done = run_blocked({"pyarrow"}, "batch", str(small), "-o", str(tmp_path / "s.parquet"))
    assert done.returncode == 2
    assert "pip install 'cpsudoku[dask]'" in done.stderr


def test_partition_packing_round_trips() -> None:
    import pickle

    from cpsudoku.datasets.cluster import _Partition
    from cpsudoku.datasets.records import Record

    plain = [Record(7, "1.3"), Record(8, ""), Record(9, "a\nb")]
    kaggle = [Record(3, "x", "sol"), Record(4, "", "s")]
    mixed = [Record(3, "x", "sol"), Record(4, "", None, "bad line")]
    gaps = [Record(1, "x"), Record(5, "y")]
    for records in (plain, kaggle, mixed, gaps, []):
        packed = pickle.loads(pickle.dumps(_Partition(records)))
        assert packed.records() == tuple(records)
    assert _Partition(plain).payload is None  # the compact forms
    assert _Partition(kaggle).payload is None
    assert _Partition(mixed).payload is not None


MMAP_CHECK = """
import ctypes, numpy as np
from cpsudoku.datasets.cluster import _keep_freed_memory

class MallInfo2(ctypes.Structure):
    names = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
    _fields_ = [(name, ctypes.c_size_t) for name in names.split()]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2

def mmapped_blocks_for_an_array():
    before = libc.mallinfo2().hblks
    held = np.ones(1 << 20)  # 8 MiB, as the logic pass allocates for a large partition
    return libc.mallinfo2().hblks - before

print(mmapped_blocks_for_an_array(), mmapped_blocks_for_an_array(), end=" ")
_keep_freed_memory()
print(mmapped_blocks_for_an_array())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc tuning")
def test_worker_reuses_freed_memory_despite_the_nanny_setting() -> None:
    # A Dask nanny sets this, which pins glibc's mmap threshold at 128 KiB: every large
    # array is then a fresh mmap whose pages fault in again. The worker undoes it.
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    done = subprocess.run(
        [sys.executable, "-c", MMAP_CHECK], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if "mallinfo2" in done.stderr:
        pytest.skip("this C library has no mallinfo2 to look with")
    assert done.returncode == 0, done.stderr
    # Mmapped again and again before (glibc no longer adapts), from the heap after.
    assert done.stdout.split() == ["1", "1", "0"]


def test_rules_travel_whole_to_worker_processes(scheduler: str, tmp_path: Path) -> None:
    """The X rules reach the separate worker processes, diagonals and all (pickled)."""
    from conftest import X, x_puzzle

    from cpsudoku import solve
    from cpsudoku.datasets.cluster import run_cluster_batch

    text = str(x_puzzle())
    out = tmp_path / "x.csv"
    records = [Record(i, text) for i in range(6)]
    options = SolveOptions.checked(FAST, box=X)
    run_cluster_batch(records, str(out), options, scheduler=scheduler, partition_size=2)
    rows = rows_of(out)
    assert [r["status"] for r in rows] == ["unique"] * 6
    assert {r["solution"] for r in rows} == {str(solve(text, box=X).solution)}


def test_cluster_certify_matches_local(scheduler: str, tmp_path: Path) -> None:
    from cpsudoku.evidence import check_certificate

    src = tmp_path / "in.txt"
    src.write_text(
        "\n".join(read_lines("multisolution_tdoku.txt")[:2] + read_lines("top95.txt")[:3])
    )
    local, remote = tmp_path / "local.csv", tmp_path / "cluster.csv"
    flags = ["--certify", str(tmp_path / "certs"), "--quiet"]
    assert main(["batch", str(src), "-o", str(local), "--jobs", "1", *flags]) == 0
    assert cluster_batch(src, remote, scheduler, *flags) == 0
    here, there = rows_of(local), rows_of(remote)
    assert list(there[0])[-2:] == ["solution2", "certificate"]
    assert [(r["status"], r["solution2"] != "") for r in there] == [
        (r["status"], r["solution2"] != "") for r in here
    ]
    for row in there:
        if row["status"] == "unique":
            assert check_certificate(tmp_path / "certs" / row["certificate"]).ok


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_cluster_canon_matches_local(scheduler: str, tmp_path: Path, suffix: str) -> None:
    """--canon on the cluster: the same canonical column as a local run, Parquet too."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join([*read_lines("top95.txt")[:8], "12", *read_lines("top95.txt")[8:12]]))
    local, remote = tmp_path / f"local{suffix}", tmp_path / f"cluster{suffix}"
    assert main(["batch", str(src), "-o", str(local), "--jobs", "1", "--canon", "--quiet"]) == 4
    assert cluster_batch(src, remote, scheduler, "--canon", "--partition-size", "5") == 4
    here, there = rows_of(local), rows_of(remote)
    assert list(there[0])[-1] == "canonical"
    assert [r["canonical"] for r in there] == [r["canonical"] for r in here]
    assert there[8]["canonical"] == ""  # the invalid record "12"
    assert all(r["canonical"] for r in there if r["index"] != "8")
