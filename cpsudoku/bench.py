"""Benchmark harness: every engine and variant on the same published puzzles.

``cpsudoku bench`` runs each engine, one at a time and in this process, over the same
puzzles of each dataset (ordered easy to hardest by ``benchmarks/datasets.toml``),
with a per-puzzle time limit, and writes:

- ``results.csv``: one row per engine x puzzle (status, wall time, engine counters,
  agreement with the other engines);
- ``summary.md``: per dataset x engine: puzzles/s, µs/puzzle, median/p90/max ms,
  solved, unique, timeouts, PAR-2, share solved without guessing, guesses per puzzle,
  and the speed-up over the textbook baseline of the same family;
- ``cactus.png`` (puzzles solved vs time, log scale) and ``throughput.png``;
- ``machine.json``: CPU, cores, Python and package versions, the command line.

A disagreement between engines (status, or solution of a unique puzzle) is printed
and makes the run exit non-zero: the harness doubles as a cross-check.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
import tomllib
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpsudoku.datasets.records import read_records
from cpsudoku.engines import Backend, create_backend, get_backend
from cpsudoku.model.errors import CpSudokuError, PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.grid import Puzzle
from cpsudoku.model.result import Status

#: Engines of a default run, in the order they run and appear in tables: the three
#: engines, their textbook baselines, the portfolio, the logic pass alone and the
#: batch pipeline (logic pass, then the SAT backend on what it leaves).
DEFAULT_ENGINES = (
    "backtrack",
    "backtrack:naive",
    "sat",
    "sat:fresh",
    "cpsat",
    "cpsat:sample",
    "portfolio",
    "logic",
    "logic+sat",
)

#: Variants added by ``--backends all``: the other encodings, solvers and models.
VARIANT_ENGINES = (
    "sat:minimal",
    "sat:efficient",
    "sat:extended:seqcounter",
    "sat:extended:glucose4",
    "sat:extended:minisat22",
    "sat:extended:cadical195",
    "cpsat:integer",
    "cpsat:exclude",
)


def expand_engines(names: Sequence[str]) -> list[str]:
    """Engine specs from the command line; ``all`` = defaults plus every variant."""
    if not names:
        return list(DEFAULT_ENGINES)
    out: list[str] = []
    for name in names:
        for spec in (DEFAULT_ENGINES + VARIANT_ENGINES) if name == "all" else (name,):
            if spec not in out:
                out.append(spec)
    return out


#: Textbook baseline of each engine family, for the speed-up column.
BASELINES = {"backtrack": "backtrack:naive", "sat": "sat:fresh", "cpsat": "cpsat:sample"}

#: Status of a puzzle an engine did not run (it gave up on the dataset).
SKIPPED = "skipped"


class BenchError(CpSudokuError, ValueError):
    """A bad benchmark request: unknown dataset, unreadable manifest."""


@dataclass(frozen=True, slots=True)
class Dataset:
    """One benchmark dataset from the manifest (or a file named on the command line)."""

    name: str
    path: Path
    tier: str = ""
    about: str = ""
    column: str | None = None
    min: float | None = None
    max: float | None = None
    default: bool = True

    def puzzles(self, limit: int | None = None) -> list[str]:
        """The dataset's puzzle strings (the rating band applied), at most ``limit``."""
        if self.column is None:
            out: list[str] = []
            for record in read_records(str(self.path)):
                if limit is not None and len(out) >= limit:
                    break
                out.append(record.puzzle)
            return out
        low = -math.inf if self.min is None else self.min
        high = math.inf if self.max is None else self.max
        out = []
        with self.path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if low <= float(row[self.column]) <= high:
                    out.append(row["puzzle"])
                    if limit is not None and len(out) >= limit:
                        break
        return out


def find_manifest(explicit: str | None = None) -> Path:
    """The manifest: ``explicit``, else ./benchmarks/datasets.toml, else next to the source."""
    candidates = (
        [Path(explicit)]
        if explicit
        else [
            Path("benchmarks") / "datasets.toml",
            Path(__file__).resolve().parent.parent / "benchmarks" / "datasets.toml",
        ]
    )
    for path in candidates:
        if path.is_file():
            return path
    looked = " and ".join(str(p.resolve()) for p in candidates)
    raise BenchError(
        f"no benchmark manifest at {looked}: the benchmark datasets come with the "
        "repository (a clone), not with the package; run from its root or pass --manifest FILE"
    )


def load_manifest(path: Path) -> list[Dataset]:
    """The datasets of a manifest, in its order (easy to hardest)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BenchError(f"cannot read the manifest {path}: {exc}") from None
    out = []
    for entry in data.get("dataset", []):
        out.append(
            Dataset(
                name=entry["name"],
                path=path.parent / entry["file"],
                tier=entry.get("tier", ""),
                about=entry.get("about", ""),
                column=entry.get("column"),
                min=entry.get("min"),
                max=entry.get("max"),
                default=entry.get("default", True),
            )
        )
    return out


def select_datasets(names: Sequence[str] | None, manifest: Sequence[Dataset]) -> list[Dataset]:
    """Datasets by manifest name or file path; the manifest's defaults when ``names`` is empty."""
    if not names:
        return [d for d in manifest if d.default]
    by_name = {d.name: d for d in manifest}
    out: list[Dataset] = []
    for name in names:
        if name in by_name:
            chosen = by_name[name]
        elif Path(name).is_file():
            chosen = Dataset(Path(name).stem, Path(name), "file")
        else:
            raise BenchError(
                f"unknown dataset {name!r}: not a file, and not one of: {', '.join(by_name)}"
            )
        if any(d.name == chosen.name for d in out):
            # Rows and report sections are keyed by the name: two sets under one name
            # would be measured and summed as one.
            raise BenchError(
                f"two datasets named {chosen.name!r} ({name!r} and one before it): "
                "name each set once, and rename files that share a name"
            )
        out.append(chosen)
    return out


@dataclass(slots=True)
class Measurement:
    """One engine on one puzzle.

    ``engine`` is the spec the run was asked to measure; ``backend`` the spec that
    answered (the portfolio's winner, a solver's stand-in), as in batch rows.
    """

    dataset: str
    engine: str
    index: int
    puzzle: str
    status: str
    seconds: float
    solution: str = ""
    stats: dict[str, int] = field(default_factory=dict)
    agree: bool = True
    error: str = ""
    backend: str = ""


#: An engine runner: (puzzles, time limit, dataset name) -> measurements, in order.
Runner = Callable[[Sequence[str], float, str], Iterator[Measurement]]


def _backend_runner(spec: str, give_up: int) -> Runner:
    """Measure a registered backend puzzle by puzzle, wall time around ``solve``."""

    def run(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
        backend: Backend = create_backend(spec)
        try:
            parsed: list[Puzzle | None] = []
            errors: list[str] = []
            for text in puzzles:
                try:
                    parsed.append(parse(text, check=False))
                    errors.append("")
                except PuzzleError as exc:
                    parsed.append(None)
                    errors.append(str(exc))
            first = next((p for p in parsed if p is not None), None)
            if first is not None and backend.keeps_rules:  # encode the rules, untimed
                empty = Puzzle(first.geometry, (0,) * first.geometry.cells)
                backend.solve(empty, unique=False, time_limit=min(time_limit, 2.0))
            timeouts = 0
            for index, (text, puzzle, error) in enumerate(
                zip(puzzles, parsed, errors, strict=True)
            ):
                if timeouts >= give_up:
                    yield Measurement(dataset, spec, index, text, SKIPPED, 0.0)
                    continue
                if puzzle is None:
                    yield Measurement(
                        dataset, spec, index, text, Status.INVALID.value, 0.0, error=error
                    )
                    continue
                start = time.perf_counter()
                result = backend.solve(puzzle, unique=True, time_limit=time_limit)
                seconds = time.perf_counter() - start
                timeouts += result.status is Status.TIMEOUT
                yield Measurement(
                    dataset,
                    spec,
                    index,
                    text,
                    result.status.value,
                    seconds,
                    "" if result.solution is None else str(result.solution),
                    dict(result.stats),
                    error=result.error or "",
                    backend=result.backend,
                )
        finally:
            backend.close()

    return run


#: Status of a puzzle the logic pass alone could not decide.
UNDECIDED = "undecided"


def _logic_runner(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
    """The whole-array logic pass alone on the dataset as one block.

    Each puzzle is charged the block's time divided by its size; what the pass cannot
    decide is ``undecided`` (neither solved nor a timeout).
    """
    from cpsudoku.datasets import bulk_logic

    groups: dict[int, list[int]] = defaultdict(list)
    for k, text in enumerate(puzzles):
        groups[len(text)].append(k)
    out: dict[int, Measurement] = {}
    for members in groups.values():
        texts = [puzzles[k] for k in members]
        g = parse(texts[0], check=False).geometry
        start = time.perf_counter()
        values, ok = bulk_logic.parse_block(texts, g)
        result = bulk_logic.presolve(values, g)
        unique = result.status == bulk_logic.UNIQUE
        solved = bulk_logic.format_block(result.solutions[unique], g)
        each = (time.perf_counter() - start) / len(members)
        names = {
            bulk_logic.UNIQUE: Status.UNIQUE.value,
            bulk_logic.UNSOLVABLE: Status.UNSOLVABLE.value,
            bulk_logic.CONFLICT: Status.INVALID.value,
        }
        solutions = iter(solved)
        for k, code, good in zip(members, result.status.tolist(), ok.tolist(), strict=True):
            status = names.get(code, UNDECIDED) if good else Status.INVALID.value
            text = next(solutions) if good and code == bulk_logic.UNIQUE else ""
            out[k] = Measurement(dataset, "logic", k, puzzles[k], status, each, text)
    yield from (out[k] for k in range(len(puzzles)))


def _pipeline_runner(spec: str, give_up: int) -> Runner:
    """The logic pass, then ``spec`` on what it leaves: the batch pipeline in one process.

    9x9 puzzles go in chunks of 1,000 as in a batch run; bigger grids one at a time,
    so the give-up rule can stop after ``give_up`` timeouts as for the other engines.
    """

    def run(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
        from cpsudoku.datasets.options import SolveOptions
        from cpsudoku.datasets.records import Record
        from cpsudoku.datasets.solving import solve_records

        name = f"logic+{spec}"
        options = SolveOptions(spec, True, time_limit)
        warm = parse(puzzles[0], check=False) if puzzles else None
        engine = get_backend(spec)
        if warm is not None and engine.keeps_rules:  # encode the rules untimed, as above
            empty = Puzzle(warm.geometry, (0,) * warm.geometry.cells)
            engine.solve(empty, unique=False, time_limit=min(time_limit, 2.0))
        step = 1000 if warm is None or warm.n <= 9 else 1
        records = [Record(k, p) for k, p in enumerate(puzzles)]
        timeouts = 0
        for start in range(0, len(records), step):
            chunk = records[start : start + step]
            if timeouts >= give_up:
                yield from (
                    Measurement(dataset, name, r.index, r.puzzle, SKIPPED, 0.0) for r in chunk
                )
                continue
            t0 = time.perf_counter()
            rows = solve_records(chunk, options)
            wall = time.perf_counter() - t0
            # Charge the chunk's whole wall time (row building, checks), shared out in
            # proportion to the time each row reports.
            reported = sum(row[3] for row in rows)
            scale = wall / reported if reported > 0 else 0.0
            for record, (status, solution, backend, seconds, error) in zip(
                chunk, rows, strict=True
            ):
                timeouts += status == Status.TIMEOUT.value
                each = seconds * scale if scale else wall / len(chunk)
                yield Measurement(
                    dataset,
                    name,
                    record.index,
                    record.puzzle,
                    status,
                    each,
                    solution,
                    error=error,
                    backend=backend,
                )

    return run


def make_runner(spec: str, give_up: int) -> Runner:
    """The runner for an engine spec: a backend spec, ``logic``, or ``logic+SPEC``."""
    if spec == "logic":
        return _logic_runner
    if spec.startswith("logic+"):
        create_backend(spec[len("logic+") :]).close()
        return _pipeline_runner(spec[len("logic+") :], give_up)
    create_backend(spec).close()  # fail early on an unknown or unavailable engine
    return _backend_runner(spec, give_up)


@dataclass(slots=True)
class BenchRun:
    """Everything one run measured."""

    datasets: list[Dataset]
    engines: list[str]
    time_limit: float
    measurements: list[Measurement] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_bench(
    datasets: Sequence[Dataset],
    engines: Sequence[str],
    *,
    limit: int | None,
    time_limit: float,
    give_up: int = 2,
    log: Callable[[str], None] = lambda _: None,
) -> BenchRun:
    """Run every engine on every dataset; compare answers; return the measurements.

    An engine stops on a dataset after ``give_up`` timeouts (the rest of it is
    ``skipped``, counted as timeouts in PAR-2) and is not run on the later, harder
    datasets with grids at least as large.
    """
    runners = {spec: make_runner(spec, give_up) for spec in engines}
    run = BenchRun(list(datasets), list(engines), time_limit)
    gave_up: dict[str, int] = {}  # engine -> grid side from which it is skipped
    start = time.perf_counter()
    for ds in datasets:
        puzzles = ds.puzzles(limit)
        if not puzzles:
            log(f"{ds.name}: no puzzles, skipped")
            continue
        side = _side(puzzles[0])
        per_puzzle: dict[int, list[Measurement]] = defaultdict(list)
        for spec in engines:
            t0 = time.perf_counter()
            if spec in gave_up and side >= gave_up[spec]:
                rows = [
                    Measurement(ds.name, spec, i, p, SKIPPED, 0.0) for i, p in enumerate(puzzles)
                ]
            else:
                rows = list(runners[spec](puzzles, time_limit, ds.name))
            if any(m.status == SKIPPED for m in rows):
                gave_up[spec] = min(side, gave_up.get(spec, side))
            for m in rows:
                per_puzzle[m.index].append(m)
            run.measurements.extend(rows)
            done = sum(m.status != SKIPPED for m in rows)
            log(
                f"{ds.name:<26} {spec:<28} {done:>5}/{len(puzzles)} puzzles "
                f"in {time.perf_counter() - t0:7.2f} s"
            )
        for index, group in per_puzzle.items():
            message = _disagreement(group)
            if message:
                for m in group:
                    m.agree = False
                run.disagreements.append(f"{ds.name} #{index}: {message}")
                log(f"DISAGREEMENT {ds.name} #{index}: {message}")
    run.seconds = time.perf_counter() - start
    return run


def _side(text: str) -> int:
    try:
        return parse(text, check=False).n
    except PuzzleError:
        return 0


_DEFINITE = {s.value for s in Status} - {Status.TIMEOUT.value}


def _disagreement(group: Sequence[Measurement]) -> str | None:
    """Describe how the definite answers of several engines on one puzzle differ."""
    answers = [m for m in group if m.status in _DEFINITE and m.engine != "logic"]
    statuses = {m.status for m in answers}
    if len(statuses) > 1:
        return ", ".join(f"{m.engine} says {m.status}" for m in answers)
    uniques = {m.solution for m in answers if m.status == Status.UNIQUE.value}
    if len(uniques) > 1:
        return "engines give different solutions to a unique puzzle"
    return None


# ---------------------------------------------------------------- reports


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass(slots=True)
class Cell:
    """Summary of one engine on one dataset."""

    dataset: str
    engine: str
    total: int
    run: int
    solved: int
    unique: int
    timeouts: int
    seconds: float
    median_ms: float
    p90_ms: float
    max_ms: float
    par2: float
    no_guess: float | None
    guesses: float | None

    @property
    def rate(self) -> float:
        """Puzzles per second over the puzzles run (nan when none ran)."""
        if not self.run:
            return math.nan
        return self.run / self.seconds if self.seconds > 0 else math.inf

    @property
    def micros(self) -> float:
        """Mean µs per puzzle run."""
        return 1e6 * self.seconds / self.run if self.run else math.nan


def summarize(run: BenchRun) -> list[Cell]:
    """One :class:`Cell` per dataset x engine, in run order."""
    groups: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for m in run.measurements:
        groups[m.dataset, m.engine].append(m)
    cells = []
    for (dataset, engine), rows in groups.items():
        ran = [m for m in rows if m.status != SKIPPED]
        times = [m.seconds for m in ran]
        finished = [m.seconds for m in ran if m.status != Status.TIMEOUT.value]
        failed = sum(m.status in (Status.TIMEOUT.value, SKIPPED) for m in rows)
        par2 = (sum(finished) + failed * 2 * run.time_limit) / len(rows)
        guessing = [m.stats["guesses"] for m in ran if "guesses" in m.stats]
        cells.append(
            Cell(
                dataset,
                engine,
                len(rows),
                len(ran),
                sum(Status(m.status).has_solution for m in ran if m.status in _DEFINITE),
                sum(m.status == Status.UNIQUE.value for m in ran),
                sum(m.status == Status.TIMEOUT.value for m in ran),
                sum(times),
                1000 * statistics.median(times) if times else math.nan,
                1000 * _percentile(times, 0.9),
                1000 * max(times) if times else math.nan,
                par2,
                (sum(g == 0 for g in guessing) / len(guessing)) if guessing else None,
                (sum(guessing) / len(guessing)) if guessing else None,
            )
        )
    return cells


def _fmt(value: float | None, spec: str = ".1f") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf"
    return format(value, spec)


def summary_markdown(run: BenchRun, cells: Sequence[Cell], machine: dict[str, Any]) -> str:
    """The summary tables as Markdown."""
    by_key = {(c.dataset, c.engine): c for c in cells}
    lines = [
        "# cpsudoku benchmark",
        "",
        f"{machine['date']} on {machine['cpu']} ({machine['cores']} cores), Python "
        f"{machine['python']}; " + ", ".join(f"{k} {v}" for k, v in machine["packages"].items()),
        "",
        f"Command: `{machine['command']}`",
        "",
        f"Per-puzzle time limit {run.time_limit:g} s, uniqueness checked, one engine at a "
        "time in one process. PAR-2: mean seconds per puzzle, a timeout or skipped puzzle "
        "counted as twice the limit. `x base`: puzzles/s over the textbook baseline of the "
        "same family (sat:fresh, cpsat:sample, backtrack:naive) on the same puzzles.",
        "",
    ]
    header = (
        "| engine | run | puzzles/s | µs/puzzle | median ms | p90 ms | max ms | solved "
        "| unique | timeouts | PAR-2 s | no guess | guesses | x base |"
    )
    rule = "|" + "---|" * 14
    for ds in run.datasets:
        present = [e for e in run.engines if (ds.name, e) in by_key]
        if not present:
            continue
        title = f"## {ds.name}" + (f" ({ds.tier})" if ds.tier else "")
        lines += [title, "", ds.about, "", header, rule] if ds.about else [title, "", header, rule]
        for engine in present:
            c = by_key[ds.name, engine]
            family = engine.split(":")[0]
            base = by_key.get((ds.name, BASELINES.get(family, "")))
            ratio = (
                c.rate / base.rate
                if base
                and base is not c
                and base.run == base.total
                and c.run == c.total
                and base.rate > 0
                else None
            )
            rate_spec = ",.0f" if c.rate >= 10 else ".2g"  # two digits for slow engines
            lines.append(
                f"| {engine} | {c.run}/{c.total} | {_fmt(c.rate, rate_spec)} | "
                f"{_fmt(c.micros, ',.0f')} | {_fmt(c.median_ms, '.2f')} | {_fmt(c.p90_ms, '.2f')} "
                f"| {_fmt(c.max_ms, ',.1f')} | {c.solved} | {c.unique} | {c.timeouts} | "
                f"{_fmt(c.par2, '.4f')} | "
                f"{'-' if c.no_guess is None else f'{100 * c.no_guess:.0f}%'} | "
                f"{_fmt(c.guesses, '.1f')} | {_fmt(ratio, '.1f')} |"
            )
        lines.append("")
    if run.disagreements:
        lines += ["## Disagreements", ""] + [f"- {d}" for d in run.disagreements] + [""]
    else:
        lines += ["All engines agreed on every puzzle they answered.", ""]
    return "\n".join(lines)


def write_results_csv(run: BenchRun, path: Path) -> None:
    """One row per engine x puzzle."""
    keys = sorted({k for m in run.measurements for k in m.stats})
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(
            [
                "dataset",
                "engine",
                "backend",
                "index",
                "puzzle",
                "status",
                "seconds",
                "agree",
                *keys,
                "error",
            ]
        )
        for m in run.measurements:
            writer.writerow(
                [
                    m.dataset,
                    m.engine,
                    m.backend or m.engine,
                    m.index,
                    m.puzzle,
                    m.status,
                    f"{m.seconds:.6f}",
                    int(m.agree),
                    *(m.stats.get(k, "") for k in keys),
                    m.error,
                ]
            )


def machine_info(argv: Sequence[str]) -> dict[str, Any]:
    """What the run was measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu
            )
    except OSError:
        pass
    packages = {}
    for name in ("cpsudoku", "ortools", "python-sat", "numpy"):
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            packages[name] = "not installed"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": dt.date.today().isoformat(),
        "cpu": cpu,
        "cores": cores,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": packages,
        "command": " ".join(["cpsudoku", "bench", *argv]),
    }


def plot_cactus(run: BenchRun, path: Path) -> None:
    """Puzzles solved (x) against the time each took, sorted (y, log scale), per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=110)
    for engine in run.engines:
        times = sorted(
            m.seconds for m in run.measurements if m.engine == engine and m.status in _DEFINITE
        )
        if times:
            ax.plot(range(1, len(times) + 1), times, label=engine, linewidth=1.6)
    ax.set_yscale("log")
    ax.set_xlabel("puzzles solved (all datasets, each engine's times sorted)")
    ax.set_ylabel("seconds per puzzle (log)")
    ax.set_title(f"Cactus plot: time limit {run.time_limit:g} s per puzzle")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_throughput(run: BenchRun, cells: Sequence[Cell], path: Path) -> None:
    """Grouped bars: puzzles/s per dataset (x) and engine (colour), log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key = {(c.dataset, c.engine): c for c in cells}
    names = [d.name for d in run.datasets if any((d.name, e) in by_key for e in run.engines)]
    width = 0.8 / max(1, len(run.engines))
    fig, ax = plt.subplots(figsize=(max(9, 1.1 * len(names)), 5.5), dpi=110)
    for k, engine in enumerate(run.engines):
        xs, ys = [], []
        for i, name in enumerate(names):
            c = by_key.get((name, engine))
            # No bar for an engine that gave up or answered nothing (the logic pass
            # alone on the hardest sets): its speed would mean nothing.
            if c and c.run == c.total and c.solved and c.seconds > 0:
                xs.append(i + (k - (len(run.engines) - 1) / 2) * width)
                ys.append(c.rate)
        if xs:
            ax.bar(xs, ys, width, label=engine)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("puzzles/s (log; uniqueness checked; no bar = gave up or none solved)")
    ax.set_title("Throughput per dataset, easy to hardest")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


#: The pip extra that brings matplotlib, for the plots.
PLOT_EXTRA = "cpsudoku[plot]"


def can_plot() -> bool:
    """True when matplotlib is installed (the optional extra :data:`PLOT_EXTRA`)."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except ImportError:  # an import hook that refuses it
        return False


def write_reports(run: BenchRun, out: Path, argv: Sequence[str]) -> list[str]:
    """Write results.csv, summary.md, machine.json and the two plots into ``out``.

    The plots need matplotlib (the extra :data:`PLOT_EXTRA`); without it the tables
    are written all the same. Returns the names of the files written.
    """
    out.mkdir(parents=True, exist_ok=True)
    machine = machine_info(argv)
    cells = summarize(run)
    write_results_csv(run, out / "results.csv")
    (out / "summary.md").write_text(summary_markdown(run, cells, machine), encoding="utf-8")
    (out / "machine.json").write_text(
        json.dumps({**machine, "seconds": round(run.seconds, 1)}, indent=2) + "\n", encoding="utf-8"
    )
    written = ["summary.md", "results.csv", "machine.json"]
    if can_plot():
        plot_cactus(run, out / "cactus.png")
        plot_throughput(run, cells, out / "throughput.png")
        written += ["cactus.png", "throughput.png"]
    return written


def log_to_stderr(message: str) -> None:
    """Progress lines of a run."""
    print(message, file=sys.stderr, flush=True)
