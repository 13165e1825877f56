"""Measure the cluster batch: speed-up, overhead against the local batch, per-task cost.

Figures (each run ``--repeats`` times, the best kept, since a shared machine only
ever adds time):

1. one worker core's puzzles/s on each benchmark tier (``solve_records`` in this
   process, no cluster);
2. the cluster's per-task overhead: wall time of N no-op tasks / N, the round trip of
   one task, and the time per partition of K records beyond solving them;
3. speed-up of a local cluster with 2 workers over the same cluster with 1 worker on
   the hard sample (``forum_hardest_1905_11plus``), with the local ``--jobs 2`` over
   ``--jobs 1`` speed-up as the control of how much CPU the machine had to give;
4. cluster overhead over the local ``--jobs 2`` batch on the easy Kaggle sample,
   repeated to ``--easy-records`` records, with the default partition size: once
   against a running cluster (as on a real deployment) and once end to end with
   ``--scheduler local`` (cluster start-up included);

The running clusters are started as on a real one, with ``dask scheduler`` and
``dask worker ADDRESS --nthreads 1`` processes, on 127.0.0.1 only.
5. the client's own ceiling (reading the input, receiving rows, writing CSV), and
   what the measured figures predict for 10, 100 and 1,000 worker cores on the
   9-million-puzzle Kaggle dataset.

Run from the repository root::

    python benchmarks/cluster_speed.py --json benchmarks/results/cluster_speed.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pickle
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from itertools import cycle, islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cpsudoku.datasets.batch import run_batch  # noqa: E402
from cpsudoku.datasets.cluster import (  # noqa: E402
    LARGEST_PARTITION,
    SMALLEST_PARTITION,
    _noop,
    _Partition,
    _solve_partition,
    measure_task_overhead,
    partition_target,
    run_cluster_batch,
)
from cpsudoku.datasets.encoding import encode_rows  # noqa: E402
from cpsudoku.datasets.options import SolveOptions  # noqa: E402
from cpsudoku.datasets.output import (  # noqa: E402
    BatchOutput,
    Summary,
)
from cpsudoku.datasets.records import Record, read_records  # noqa: E402
from cpsudoku.datasets.solving import solve_records  # noqa: E402
from cpsudoku.engines import DEFAULT_BACKEND  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
TIERS = ("easy_kaggle9m", "easy_kaggle1m", "clue17_royle", "top1465", "forum_hardest_1905_11plus")
NINE_MILLION = 9_000_000


def best_of(repeats: int, run: Callable[[], float]) -> tuple[float, list[float]]:
    """The smallest of ``repeats`` timings, and all of them."""
    times = [run() for _ in range(repeats)]
    return min(times), times


def records(name: str, limit: int | None = None) -> list[Record]:
    return list(islice(read_records(str(DATA / f"{name}.txt")), limit))


def repeated_file(name: str, count: int, folder: Path) -> Path:
    """A .txt of ``count`` puzzles: the sample repeated (rows differ only in index)."""
    path = folder / f"{name}_{count}.txt"
    lines = [r.puzzle for r in records(name)]
    path.write_text("\n".join(islice(cycle(lines), count)) + "\n")
    return path


@contextlib.contextmanager
def dask_processes(workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers started with Dask's commands.

    As on a real cluster (``dask scheduler``, ``dask worker ADDRESS``), only on
    127.0.0.1; yields the scheduler's address and ends the processes afterwards.
    """
    from distributed import Client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    common: dict[str, Any] = {
        "env": env,
        "start_new_session": True,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
    }
    procs = [
        subprocess.Popen(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            **common,
        )
    ]
    try:
        procs.append(
            subprocess.Popen(
                [
                    *("dask", "worker", address, "--host", "127.0.0.1", "--no-dashboard"),
                    *("--nworkers", str(workers), "--nthreads", "1", "--death-timeout", "30"),
                ],
                **common,
            )
        )
        with Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def core_rates(options: SolveOptions, seconds: float, repeats: int) -> dict[str, float]:
    """Puzzles/s of one core on each tier, solving up to ``seconds`` worth.

    Puzzles are solved in blocks of about 0.25 s of work, the size a cluster partition
    would have (the whole-array logic pass is faster on larger blocks).
    """
    rates = {}
    solve_records(records("easy_kaggle1m", 50), options)  # build the backend first
    for tier in TIERS:
        sample = records(tier)
        solve_records(sample[:200], options)  # warm up on this tier, then estimate
        start = time.perf_counter()
        solve_records(sample[:200], options)
        block = max(50, int(0.25 * 200 / (time.perf_counter() - start)))
        best = 0.0
        for _ in range(repeats):
            done, start = 0, time.perf_counter()
            for i in range(0, len(sample), block):
                done += len(solve_records(sample[i : i + block], options))
                if time.perf_counter() - start > seconds / repeats:
                    break
            best = max(best, done / (time.perf_counter() - start))
        rates[tier] = best
        print(f"  {tier:28s} {best:10,.0f} puzzles/s per core (blocks of {block})", flush=True)
    return rates


def task_costs(options: SolveOptions, repeats: int) -> dict[str, Any]:
    """Per-task overhead of a 2-worker local cluster."""
    from distributed import Client

    out: dict[str, Any] = {}
    with dask_processes(2) as address, Client(address, set_as_default=False) as client:
        out["noop_task_seconds"] = min(measure_task_overhead(client, 400) for _ in range(repeats))
        start = time.perf_counter()
        for i in range(50):
            client.submit(_noop, i, pure=False).result()
        out["round_trip_seconds"] = (time.perf_counter() - start) / 50
        easy = records("easy_kaggle1m")
        per_partition = {}
        for k in (100, 1000, 2000):
            work = _Partition(easy[:k])
            client.submit(_solve_partition, work, options, "csv", pure=False).result()  # warm

            def one(work: _Partition = work) -> float:
                start = time.perf_counter()
                _rows, solving, _pid, _b = client.submit(
                    _solve_partition, work, options, "csv", pure=False
                ).result()
                return time.perf_counter() - start - solving

            per_partition[k] = best_of(max(3, repeats), one)[0]
        out["partition_extra_seconds"] = per_partition
    print(
        f"  no-op task (400 at once): {out['noop_task_seconds'] * 1e3:.2f} ms/task; "
        f"one task round trip: {out['round_trip_seconds'] * 1e3:.1f} ms",
        flush=True,
    )
    for k, extra in out["partition_extra_seconds"].items():
        print(f"  partition of {k:5d} easy records: {extra * 1e3:6.1f} ms beyond solving")
    return out


def cluster_run(address: str, path: Path, out: Path, options: SolveOptions) -> float:
    start = time.perf_counter()
    run_cluster_batch(read_records(str(path)), str(out), options, scheduler=address)
    return time.perf_counter() - start


def interleaved(repeats: int, runs: dict[str, Callable[[], float]]) -> dict[str, Any]:
    """Time every run ``repeats`` times, alternating between them; keep the best of each.

    Alternating spreads the moments when other work on a shared machine steals CPU
    over all the variants instead of charging it to whichever ran then.
    """
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(run())
    return {name: {"best": min(all_), "all": all_} for name, all_ in times.items()}


def own_cpu() -> float:
    """CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def children_cpu() -> float:
    """CPU seconds of this process's ended and reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def local_run(path: Path, out: Path, options: SolveOptions, jobs: int) -> float:
    start = time.perf_counter()
    run_batch(read_records(str(path)), str(out), options, jobs=jobs)
    return time.perf_counter() - start


def speedup(options: SolveOptions, hard: int, repeats: int, folder: Path) -> dict[str, Any]:
    """Wall time of the hard sample on a running local cluster of 1 and of 2 workers.

    The same sample through the local batch with ``--jobs 1`` and ``--jobs 2`` is the
    control: on a machine shared with other work, it shows how much of a second core
    was there to be had at all.
    """
    path = repeated_file("forum_hardest_1905_11plus", hard, folder)
    with dask_processes(1) as one, dask_processes(2) as two:
        times = interleaved(
            repeats,
            {
                "cluster_1": lambda: cluster_run(one, path, folder / "h.csv", options),
                "cluster_2": lambda: cluster_run(two, path, folder / "h.csv", options),
                "local_jobs_1": lambda: local_run(path, folder / "hl.csv", options, 1),
                "local_jobs_2": lambda: local_run(path, folder / "hl.csv", options, 2),
            },
        )
    for name, label in [
        ("cluster_1", "cluster, 1 worker: "),
        ("cluster_2", "cluster, 2 workers:"),
        ("local_jobs_1", "local --jobs 1:    "),
        ("local_jobs_2", "local --jobs 2:    "),
    ]:
        print(f"  {label} {times[name]['best']:.2f} s (runs: {_runs(times[name]['all'])})")
    ratio = times["cluster_1"]["best"] / times["cluster_2"]["best"]
    control = times["local_jobs_1"]["best"] / times["local_jobs_2"]["best"]
    print(f"  speed-up 2 vs 1 worker: {ratio:.2f}x (local --jobs 2 vs 1: {control:.2f}x)")
    print(f"  load average now: {os.getloadavg()[0]:.1f}", flush=True)
    return {
        "records": hard,
        "seconds": times,
        "speedup": ratio,
        "local_speedup": control,
        "load_average": os.getloadavg()[0],
    }


def _runs(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}" for t in times)


def overhead(options: SolveOptions, easy: int, repeats: int, folder: Path) -> dict[str, Any]:
    """Cluster batch against the local --jobs 2 batch on the repeated easy sample."""
    from distributed import Client

    path = repeated_file("easy_kaggle1m", easy, folder)
    cpu: dict[str, list[float]] = {"local_jobs2": [], "running_cluster": []}

    def local() -> float:
        before = own_cpu() + children_cpu()
        wall = local_run(path, folder / "l.csv", options, 2)
        cpu["local_jobs2"].append(own_cpu() + children_cpu() - before)
        return wall

    with dask_processes(2) as address, Client(address, set_as_default=False) as client:

        def cluster_cpu() -> float:
            workers = sum(client.run(time.process_time).values())
            return float(workers + client.run_on_scheduler(time.process_time)) + own_cpu()

        def running() -> float:
            before = cluster_cpu()
            wall = cluster_run(address, path, folder / "c.csv", options)
            cpu["running_cluster"].append(cluster_cpu() - before)
            return wall

        times = interleaved(repeats, {"local_jobs2": local, "running_cluster": running})
    times |= interleaved(
        repeats, {"scheduler_local": lambda: cluster_run("local", path, folder / "c.csv", options)}
    )
    local_best = times["local_jobs2"]["best"]
    result = {
        "load_average": os.getloadavg()[0],
        "records": easy,
        **times,
        "overhead_running": times["running_cluster"]["best"] / local_best - 1,
        "overhead_scheduler_local": times["scheduler_local"]["best"] / local_best - 1,
        "cpu_seconds": {name: min(values) for name, values in cpu.items()},
    }
    result["cpu_overhead_running"] = (
        result["cpu_seconds"]["running_cluster"] / result["cpu_seconds"]["local_jobs2"] - 1
    )
    print(
        f"  local --jobs 2:                 {local_best:.2f} s ({easy / local_best:,.0f}/s; "
        f"runs: {_runs(times['local_jobs2']['all'])})"
    )
    print(
        f"  running 2-worker cluster:       {times['running_cluster']['best']:.2f} s "
        f"({result['overhead_running']:+.1%}; runs: {_runs(times['running_cluster']['all'])})"
    )
    print(
        f"  --scheduler local (with start): {times['scheduler_local']['best']:.2f} s "
        f"({result['overhead_scheduler_local']:+.1%}; "
        f"runs: {_runs(times['scheduler_local']['all'])})",
    )
    print(
        f"  CPU seconds, all processes: local --jobs 2 "
        f"{result['cpu_seconds']['local_jobs2']:.2f}, running cluster "
        f"{result['cpu_seconds']['running_cluster']:.2f} "
        f"({result['cpu_overhead_running']:+.1%})",
        flush=True,
    )
    return result


def kaggle_file(count: int, folder: Path) -> Path:
    """A Kaggle-layout CSV (``quizzes,solutions``, 0 for empty) of ``count`` rows."""
    path = folder / f"kaggle_{count}.csv"
    sample = records("easy_kaggle9m")
    solved = solve_records(sample, SolveOptions())
    lines = [
        f"{r.puzzle.replace('.', '0')},{row[1]}" for r, row in zip(sample, solved, strict=True)
    ]
    path.write_text("quizzes,solutions\n" + "\n".join(islice(cycle(lines), count)) + "\n")
    return path


def client_ceiling(count: int, folder: Path, kind: str, source: str = "txt") -> float:
    """Records/s one client can read, ship, receive and write, solving aside.

    The client's part of a cluster run: stream the input into partitions, pack each
    one for the scheduler, unpickle the worker's encoded rows, append them to the
    output (a worker formats the rows; that cost is the worker's, not measured here).
    ``source`` is ``"txt"`` (one puzzle per line) or ``"kaggle"`` (a CSV with an
    expected-solution column, whose records travel pickled).
    """
    path = repeated_file("easy_kaggle1m", count, folder) if source == "txt" else None
    path = path or kaggle_file(count, folder)
    size = 20_000  # about the default partition size for easy puzzles
    sample = list(islice(cycle(records("easy_kaggle1m")), size))
    solved = solve_records(sample, SolveOptions())
    rows = [(r.index, r.puzzle, *row) for r, row in zip(sample, solved, strict=True)]
    encoded = pickle.dumps(encode_rows(rows, kind))  # what a worker sends back
    out = folder / f"ceiling.{kind}"
    if kind == "parquet":
        shutil.rmtree(out, ignore_errors=True)
    summary = Summary()
    sink = BatchOutput(str(out), summary)
    start = time.perf_counter()
    done = 0
    batch: list[Record] = []
    for rec in read_records(str(path)):
        batch.append(rec)
        if len(batch) == size:
            pickle.loads(pickle.dumps((_Partition(batch),)))
            sink.write_encoded(pickle.loads(encoded))
            done += len(batch)
            batch = []
    sink.close()
    rate = done / (time.perf_counter() - start)
    print(
        f"  client ceiling, {source} in, {kind} out: {rate:,.0f} records/s "
        f"(read, ship, receive, write)"
    )
    return rate


def scaling(rates: dict[str, float], task: float, ceiling: float) -> list[dict[str, Any]]:
    """Predicted time for 9M puzzles on 10, 100 and 1,000 worker cores, per tier rate.

    The partition size is the default one (``partition_target`` seconds of solving,
    clamped to the size bounds). Then time = max(workers, scheduler, client):

    - workers: N / (busy cores x rate) x (1 + task / partition time), where busy cores
      is at most the number of partitions, and never less than one partition's time;
    - scheduler: partitions x task (the no-op cost per task, paid one after another);
    - client: N / ceiling (one client reads, ships, receives and writes every record).
    """
    table = []
    for tier in ("easy_kaggle9m", "forum_hardest_1905_11plus"):
        rate = rates[tier]
        for cores in (10, 100, 1000):
            target = partition_target(task, cores)
            size = max(SMALLEST_PARTITION, min(LARGEST_PARTITION, int(target * rate)))
            partitions = math.ceil(NINE_MILLION / size)
            busy = min(cores, partitions)
            seconds_each = size / rate
            compute = max(
                NINE_MILLION / (busy * rate) * (1 + task / seconds_each), seconds_each + task
            )
            limits = {
                "workers": compute,
                "scheduler": partitions * task,
                "client": NINE_MILLION / ceiling,
            }
            bound = max(limits, key=lambda name: limits[name])
            total = limits[bound]
            table.append(
                {
                    "tier": tier,
                    "cores": cores,
                    "partition_records": size,
                    "partitions": partitions,
                    "busy_cores": busy,
                    **{f"{name}_s": value for name, value in limits.items()},
                    "predicted_s": total,
                    "bound": bound,
                }
            )
            print(
                f"  {tier:26s} {cores:5d} cores: {total:8.1f} s ({bound}-bound; "
                f"{partitions:,} partitions of {size:,}; workers {compute:.1f} s, "
                f"scheduler {limits['scheduler']:.1f} s, client {limits['client']:.1f} s)"
            )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default=DEFAULT_BACKEND, help="backend spec")
    parser.add_argument("--repeats", type=int, default=2, help="runs per figure; best kept")
    parser.add_argument(
        "--hard-records", type=int, default=3000, help="hard sample size (repeated)"
    )
    parser.add_argument(
        "--easy-records", type=int, default=500_000, help="easy sample size (repeated)"
    )
    parser.add_argument(
        "--rate-seconds", type=float, default=20.0, help="seconds per tier for core rates"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=["rates", "tasks", "speedup", "overhead", "scaling"],
        help="measure only these figures (scaling needs rates and tasks)",
    )
    args = parser.parse_args(argv)
    only = set(args.only or ["rates", "tasks", "speedup", "overhead", "scaling"])
    if "scaling" in only:
        only |= {"rates", "tasks"}
    options = SolveOptions(args.backend)
    report: dict[str, Any] = {
        "backend": args.backend,
        "load_average_at_start": os.getloadavg()[0],
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "repeats": args.repeats,
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "rates" in only:
            print("one worker core, puzzles/s:", flush=True)
            report["core_rates"] = core_rates(options, args.rate_seconds, args.repeats)
        if "tasks" in only:
            print("per-task overhead (2 workers):", flush=True)
            report["tasks"] = task_costs(options, args.repeats)
        if "speedup" in only:
            print(f"hard sample, {args.hard_records} records:", flush=True)
            report["speedup"] = speedup(options, args.hard_records, args.repeats, folder)
        if "overhead" in only:
            print(f"easy sample, {args.easy_records:,} records:", flush=True)
            report["overhead"] = overhead(options, args.easy_records, args.repeats, folder)
        if "scaling" in only:
            print("9 million puzzles, predicted:", flush=True)
            count = min(args.easy_records, 400_000)
            ceilings = {
                f"{source}->{kind}": client_ceiling(count, folder, kind, source)
                for source, kind in (("txt", "csv"), ("txt", "parquet"), ("kaggle", "csv"))
            }
            report["client_ceiling"] = ceilings
            ceiling = ceilings["kaggle->csv"]  # the 9-million file is a Kaggle CSV
            report["scaling"] = scaling(
                report["core_rates"], report["tasks"]["noop_task_seconds"], ceiling
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
