"""Instructions per puzzle, counted by Valgrind: an A/B measure that a busy host cannot blur.

Wall and CPU times on a shared virtual machine move by 20-40% between identical runs
(noisy neighbours, frequency changes), which hides a 10% change. The number of
instructions a run executes does not move: the engines are deterministic. So an
A/B decision (a Python fast path, an encoding, a solver option) can be made on
instructions per puzzle, measured here, and confirmed afterwards in time with
``sat_speed.py`` or ``cpsudoku bench``. Instructions are not time (a cache miss costs
more than an add), so a change that moves memory traffic must still be timed.

Each measurement runs the same worker twice under ``valgrind --tool=callgrind``: once
on the first puzzle only, once on the first N; the difference over N - 1 is the cost
of one puzzle with the imports, the encoding and the warm-up taken out. Puzzles go
through ``Backend.solve`` with the uniqueness check, as in ``sat_speed.py``. Counts
do not depend on the load, so two measurements run at once (``--jobs``).

Needs ``valgrind`` on the PATH (Debian: ``apt-get install valgrind``). Under
Valgrind a run is about 50 times slower: keep N in the hundreds.

Examples::

    python benchmarks/instructions.py --specs sat --datasets clue17_royle.txt --limit 600
    python benchmarks/instructions.py --specs sat sat:minisat22 sat:efficient \\
        --datasets forum_hardest_1106.txt --limit 150
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DATA = Path(__file__).resolve().parent / "data"


def worker(spec: str, name: str, limit: int) -> None:
    """Solve the first ``limit`` puzzles of ``name`` with ``spec`` (run under Valgrind)."""
    from cpsudoku.engines import create_backend
    from cpsudoku.model.forms import parse

    path = Path(name) if Path(name).exists() else DATA / name
    lines = [s for s in path.read_text().splitlines() if s.strip() and not s.startswith("#")]
    puzzles = [parse(s) for s in lines[:limit]]
    with create_backend(spec) as backend:
        for p in puzzles:
            backend.solve(p)


def count(spec: str, name: str, limit: int) -> int:
    """Instructions executed by :func:`worker` on the first ``limit`` puzzles."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--worker",
                spec,
                name,
                str(limit),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for line in out.read_text().splitlines():
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"no instruction total in the callgrind output for {spec} on {name}")


def per_puzzle(spec: str, name: str, limit: int) -> float:
    """Instructions of one puzzle: (count on ``limit`` - count on 1) / (``limit`` - 1)."""
    return (count(spec, name, limit) - count(spec, name, 1)) / (limit - 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Instructions per puzzle under Valgrind (uniqueness checked): a "
        "load-independent A/B measure for backends and their variants."
    )
    p.add_argument("--specs", nargs="+", default=["sat"], metavar="SPEC", help="backend specs")
    p.add_argument(
        "--datasets",
        nargs="+",
        default=["clue17_royle.txt", "top1465.txt", "forum_hardest_1106.txt"],
        metavar="FILE",
        help="files in benchmarks/data or paths (default: the three SAT goal sets)",
    )
    p.add_argument("--limit", type=int, default=200, metavar="N", help="puzzles per file (200)")
    p.add_argument("--jobs", type=int, default=2, metavar="J", help="Valgrind runs at once (2)")
    p.add_argument("--worker", nargs=3, metavar=("SPEC", "FILE", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        spec, name, limit = args.worker
        worker(spec, name, int(limit))
        return 0
    if shutil.which("valgrind") is None:
        p.error("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    if args.limit < 2:
        p.error("--limit must be at least 2")
    jobs = [(spec, name) for name in args.datasets for spec in args.specs]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = pool.map(lambda job: per_puzzle(*job, args.limit), jobs)
        print(f"{'dataset':26s} {'spec':28s} {'n':>5s} {'instructions/puzzle':>20s}")
        for (spec, name), value in zip(jobs, results, strict=True):
            print(f"{name:26s} {spec:28s} {args.limit:5d} {value:20,.0f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")  # the same set orders in every run
    sys.exit(main())
