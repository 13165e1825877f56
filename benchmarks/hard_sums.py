"""Seconds per engine on the published puzzles where long sums and pills decide.

The puzzles (tests/data/published/fpuzzles.jsonl): ``iss-triple-digits`` (ten arrows
with 2- and 3-digit pill circles), ``iss-3-digit-pill-arrow`` (one 3-digit pill whose
shaft runs 78 cells), ``iss-hailstone---little-killer`` and
``iss-disjoint-little-killer``. Each is solved with uniqueness checked by a fresh
backend per puzzle (its set-up included), the answer checked against the published
solution; a solve past ``--limit`` seconds prints ``>limit``. With ``--sets``, the
bundled variant sets (killer, little-killer, arrow, sandwich: puzzles per second over
the first ``--count`` lines) and the killer sample are timed the same way. With
``--hard``, every row of the hard-variant set (benchmarks/data/variants/hard.jsonl,
``variant:hard``): seconds per puzzle and engine, each answer checked against the row's
expected status and solution, and the median per engine (a timeout counts as the
limit, so the median is a lower bound when there are timeouts). Each cell is
``wall (cpu)``: on a shared machine the CPU seconds are the steadier figure. The engine
``default`` is :func:`cpsudoku.solve` with the default engine: the compiled engine
first, within its node budget, then ``sat`` (:mod:`cpsudoku.engines.default`).

Run on one core, as the figures in docs/design.md were::

    taskset -c 0 python benchmarks/hard_sums.py --engines sat cpsat --limit 120
    taskset -c 0 python benchmarks/hard_sums.py --sets --count 50
    taskset -c 0 python benchmarks/hard_sums.py --hard --engines sat native cpsat --limit 60
    taskset -c 0 python benchmarks/hard_sums.py --hard --engines default --limit 30
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cpsudoku
from cpsudoku.engines import create_backend
from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.puzzle import Puzzle

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "published" / "fpuzzles.jsonl"
PUZZLES = (
    "iss-triple-digits",
    "iss-3-digit-pill-arrow",
    "iss-hailstone---little-killer",
    "iss-disjoint-little-killer",
)
SETS = ("killer", "little-killer", "arrow", "sandwich")


def published(ids: tuple[str, ...]) -> list[tuple[str, Puzzle, str]]:
    """(id, puzzle, published solution) for each id."""
    rows = {}
    with DATA.open() as f:
        for line in f:
            row = json.loads(line)
            rows[row["id"]] = row
    return [(i, read_fpuzzles(rows[i]["fpuzzles"]).puzzle, rows[i]["solution"]) for i in ids]


def one(engine: str, puzzle: Puzzle, limit: float) -> tuple[float, float, str, str | None]:
    """Wall and CPU seconds, status and solution text of one solve by a fresh backend.

    CPU seconds are this process's (the solvers run in it): on a shared machine the
    wall time also counts the other processes' turns.
    """
    start, cpu = time.perf_counter(), time.process_time()
    if engine == "default":  # cpsudoku.solve's route: the compiled engine first, then sat
        result = cpsudoku.solve(puzzle, time_limit=limit)
    else:
        backend = create_backend(engine)
        try:
            result = backend.solve(puzzle, time_limit=limit)
        finally:
            backend.close()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    text = result.solution.line() if result.solution is not None else None
    return seconds, cpu, str(result.status.value), text


def warm(engines: list[str]) -> None:
    """Import each engine's solver library before any clock starts (OR-Tools: seconds)."""
    for engine in engines:
        create_backend("sat" if engine == "default" else engine).close()


def hard(engines: list[str], limit: float) -> None:
    """Print wall (and CPU) seconds per puzzle and engine."""
    warm(engines)
    print(f"{'puzzle':30} " + " ".join(f"{e + ' wall (cpu)':>20}" for e in engines))
    for pid, puzzle, solution in published(PUZZLES):
        cells = []
        for engine in engines:
            seconds, cpu, status, text = one(engine, puzzle, limit)
            if status == "timeout":
                cells.append(f">{limit:g} ({cpu:.2f})".rjust(20))
                continue
            if status != "unique" or text != solution:
                raise SystemExit(f"{pid} on {engine}: {status}, not the published solution")
            cells.append(f"{seconds:.2f} ({cpu:.2f})".rjust(20))
        print(f"{pid:30} " + " ".join(cells), flush=True)


def variant_puzzles(name: str, count: int) -> list[Puzzle]:
    """The first ``count`` puzzles of a bundled variant set (or the killer sample)."""
    from cpsudoku.datasets.records import read_records
    from cpsudoku.model.forms import parse

    data = ROOT / "benchmarks" / "data"
    if name == "killer_krazydad":
        texts = [r.puzzle for r in read_records(str(data / "killer_krazydad.csv"))]
    else:
        lines = (data / "variants" / f"{name}.jsonl").read_text().splitlines()
        rows = [json.loads(line) for line in lines if line.strip()]
        texts = [json.dumps({"rules": r["rules"], "puzzle": r["puzzle"]}) for r in rows]
    return [parse(t) for t in texts[:count]]


def sets(engines: list[str], count: int, limit: float) -> None:
    """Print puzzles per second per set and engine (one backend per set)."""
    warm(engines)
    print(f"{'set':34} " + " ".join(f"{e:>10}" for e in engines))
    for name in (*SETS, "killer_krazydad"):
        puzzles = variant_puzzles(name, count)
        cells = []
        for engine in engines:
            backend = create_backend(engine)
            start = time.perf_counter()
            try:
                for p in puzzles:
                    if backend.solve(p, time_limit=limit).status.value != "unique":
                        raise SystemExit(f"{name} on {engine}: not unique")
            finally:
                backend.close()
            cells.append(f"{len(puzzles) / (time.perf_counter() - start):10.1f}")
        print(f"{name:34} " + " ".join(cells), flush=True)


def hard_set(engines: list[str], limit: float, only: list[str] | None) -> None:
    """Print seconds per row of the hard-variant set and engine, and the medians.

    An engine that refuses a rule prints ``refused``; a wrong answer stops the run.
    """
    from statistics import median

    from cpsudoku.model.forms import parse

    warm(engines)
    path = ROOT / "benchmarks" / "data" / "variants" / "hard.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if only is None or r["id"] in only]
    print(f"{'puzzle':26} {'expect':>10} " + " ".join(f"{e + ' wall (cpu)':>17}" for e in engines))
    times: dict[str, list[float]] = {e: [] for e in engines}
    cpus: dict[str, list[float]] = {e: [] for e in engines}
    for r in rows:
        puzzle = parse(json.dumps({"rules": r["rules"], "puzzle": r["puzzle"]}))
        cells = []
        for engine in engines:
            try:
                seconds, cpu, status, text = one(engine, puzzle, limit)
            except Exception as exc:
                cells.append("refused".rjust(17))
                print(f"  ({engine}: {type(exc).__name__}: {exc})"[:200], flush=True)
                continue
            if status == "timeout":
                times[engine].append(limit)
                cpus[engine].append(cpu)
                cells.append(f">{limit:g} ({cpu:.2f})".rjust(17))
                continue
            if status != r["expect"] or (status == "unique" and text != r["solution"]):
                raise SystemExit(f"{r['id']} on {engine}: {status}, expected {r['expect']}")
            times[engine].append(seconds)
            cpus[engine].append(cpu)
            cells.append(f"{seconds:.3f} ({cpu:.3f})".rjust(17))
        print(f"{r['id']:26} {r['expect']:>10} " + " ".join(cells), flush=True)
    print(
        f"{'median':26} {'':>10} "
        + " ".join(
            f"{median(times[e]):.3f} ({median(cpus[e]):.3f})".rjust(17)
            if times[e]
            else f"{'-':>17}"
            for e in engines
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=["sat", "cpsat"])
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per solve")
    parser.add_argument("--sets", action="store_true", help="the variant sets instead")
    parser.add_argument("--count", type=int, default=50, help="puzzles per set")
    parser.add_argument("--hard", action="store_true", help="the hard-variant set instead")
    parser.add_argument("--only", nargs="+", help="with --hard: these row ids only")
    args = parser.parse_args()
    if args.hard:
        hard_set(args.engines, args.limit, args.only)
    elif args.sets:
        sets(args.engines, args.count, args.limit)
    else:
        hard(args.engines, args.limit)


if __name__ == "__main__":
    main()
