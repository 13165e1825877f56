"""What a benchmark runs: one runner per engine spec, measuring puzzle by puzzle.

A backend spec is measured around ``solve`` itself; ``logic`` is the whole-array pass
alone; ``batch+SPEC`` is the batch pipeline in one process. Every runner yields one
:class:`Measurement` per puzzle, in order, and gives up on a dataset after a number of
timeouts (its harder datasets are then skipped too).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from cpsudoku.engines import (
    DEFAULT_BACKEND,
    Backend,
    available_engines,
    create_backend,
    get_backend,
)
from cpsudoku.model.errors import BackendUnavailableError, PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status

#: Runners that are not engines, in the order they run: the numpy logic pass alone,
#: and the batch pipeline (``batch+SPEC``: the bulk pass a batch runs, the compiled
#: engine where it is built or else the numpy pass, then the engine SPEC on the rest).
PIPELINES = ("logic", f"batch+{DEFAULT_BACKEND}")


def default_engines() -> list[str]:
    """What a run measures by default, in the registry's order.

    Every installed engine, each followed by its textbook baseline, then the pass
    alone and the batch pipeline.
    """
    specs = []
    for cls in available_engines():
        specs.append(cls.name)
        if cls.baseline:
            specs.append(cls.baseline)
    return [*specs, *PIPELINES]


def variant_engines() -> list[str]:
    """The further specs ``--backends all`` adds: each engine's declared variants."""
    return [spec for cls in available_engines() for spec in cls.bench_variants]


def expand_engines(names: Sequence[str]) -> list[str]:
    """Engine specs from the command line; ``all`` = defaults plus every variant."""
    if not names:
        return default_engines()
    out: list[str] = []
    for name in names:
        for spec in [*default_engines(), *variant_engines()] if name == "all" else [name]:
            if spec not in out:
                out.append(spec)
    return out


def baselines() -> dict[str, str]:
    """Engine name -> the spec of its textbook baseline, for the speed-up column."""
    return {cls.name: cls.baseline for cls in available_engines() if cls.baseline}


#: Status of a puzzle an engine did not run (it gave up on the dataset).
SKIPPED = "skipped"

#: The statuses that answer a puzzle (all but a timeout).
ANSWERS = {s.value for s in Status} - {Status.TIMEOUT.value}


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
            refused = set()
            for k, puzzle in enumerate(parsed):  # rules the engine refuses: not run
                if puzzle is not None and (why := backend.refuses(puzzle.rules)):
                    parsed[k], errors[k] = None, why
                    refused.add(k)
            first = next((p for p in parsed if p is not None), None)
            if first is not None and backend.keeps_rules:  # encode the rules, untimed
                empty = Puzzle(first.rules, (0,) * first.rules.cells)
                backend.solve(empty, unique=False, time_limit=min(time_limit, 2.0))
            timeouts = 0
            for index, (text, puzzle, error) in enumerate(
                zip(puzzles, parsed, errors, strict=True)
            ):
                if timeouts >= give_up:
                    yield Measurement(dataset, spec, index, text, SKIPPED, 0.0)
                    continue
                if puzzle is None:  # unreadable, or rules the engine does not take
                    status = SKIPPED if index in refused else Status.INVALID.value
                    yield Measurement(dataset, spec, index, text, status, 0.0, error=error)
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
    out: dict[int, Measurement] = {}
    for k, text in enumerate(puzzles):
        if text.startswith("{"):  # the JSON form, with rules of its own: not for the pass
            out[k] = Measurement(dataset, "logic", k, text, SKIPPED, 0.0)
        else:
            groups[len(text)].append(k)
    for members in groups.values():
        texts = [puzzles[k] for k in members]
        g = parse(texts[0], check=False).rules
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


#: Status of a puzzle the ``canon`` runner put in canonical form (it answers no
#: question about solutions, so the agreement check leaves it alone).
CANONICAL = "canonical"


def _canon_runner(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
    """Canonical forms, one API call per puzzle: the speed of ``canonical`` per grid size.

    Minlex up to 12x12, the graph key above (``cpsudoku.canonical``'s default); the
    form goes in the solution column. A puzzle with rules beyond rows, columns and
    boxes (a jigsaw, cages) has no canonical form here: ``skipped``.
    """
    from cpsudoku.canon import canonical

    for k, text in enumerate(puzzles):
        try:
            puzzle = parse(text, check=False)
        except PuzzleError as exc:
            yield Measurement(dataset, "canon", k, text, Status.INVALID.value, 0.0, error=str(exc))
            continue
        if not puzzle.rules.has_boxes or puzzle.rules.extra or puzzle.rules.constraints:
            yield Measurement(dataset, "canon", k, text, SKIPPED, 0.0)
            continue
        start = time.perf_counter()
        form = canonical(puzzle)
        seconds = time.perf_counter() - start
        yield Measurement(dataset, "canon", k, text, CANONICAL, seconds, str(form.form))


#: The peer measured beside the engines: pencilmark (a C++ solver with a Python API that
#: reads variant puzzles; in the test extra), fed its own exchange format.
PEER = "pencilmark"


def _peer_runner(give_up: int) -> Runner:
    """The peer: pencilmark's ``solve`` (unique solution or an exception) on each puzzle.

    The puzzle goes to pencilmark as its ``sudoku-puzzle`` document, written before the
    clock starts (cpsudoku's conversion is not pencilmark's time); a rule the format
    cannot carry, or that pencilmark refuses, is ``skipped``. Wall time around
    ``pencilmark.solve``, which checks uniqueness as every engine here does.
    """
    import pencilmark

    from cpsudoku.model.errors import RulesError
    from cpsudoku.model.exchange import to_exchange

    answers = {
        pencilmark.NotUnique: Status.MULTIPLE.value,
        pencilmark.NoSolution: Status.UNSOLVABLE.value,
        pencilmark.Undecided: Status.TIMEOUT.value,
    }

    def run(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
        timeouts = 0
        for k, text in enumerate(puzzles):
            try:
                puzzle = parse(text, check=False)
                doc = to_exchange(puzzle)
            except (PuzzleError, RulesError) as exc:
                yield Measurement(dataset, PEER, k, text, SKIPPED, 0.0, error=str(exc))
                continue
            if timeouts >= give_up:
                yield Measurement(dataset, PEER, k, text, SKIPPED, 0.0)
                continue
            solution, error = "", ""
            start = time.perf_counter()
            try:
                digits = pencilmark.solve(doc)
                status = Status.UNIQUE.value
            except tuple(answers) as exc:
                status, error = answers[type(exc)], str(exc)
            except (pencilmark.NotSupportedError, pencilmark.FormatError) as exc:
                status, error = SKIPPED, str(exc)
            seconds = time.perf_counter() - start
            if status == Status.UNIQUE.value:
                solution = str(Puzzle(puzzle.rules, tuple(digits)))
            timeouts += status == Status.TIMEOUT.value
            yield Measurement(dataset, PEER, k, text, status, seconds, solution, error=error)

    return run


def _pipeline_runner(spec: str, give_up: int) -> Runner:
    """The bulk pass, then ``spec`` on what it leaves: the batch pipeline in one process.

    9x9 puzzles go in chunks of 1,000 as in a batch run; bigger grids one at a time,
    so the give-up rule can stop after ``give_up`` timeouts as for the other engines.
    """

    def run(puzzles: Sequence[str], time_limit: float, dataset: str) -> Iterator[Measurement]:
        from cpsudoku.datasets.options import SolveOptions
        from cpsudoku.datasets.records import Record
        from cpsudoku.datasets.solving import solve_records

        name = f"batch+{spec}"
        options = SolveOptions(spec, True, time_limit)
        warm = parse(puzzles[0], check=False) if puzzles else None
        engine = get_backend(spec)
        if warm is not None and engine.keeps_rules:  # encode the rules untimed, as above
            empty = Puzzle(warm.rules, (0,) * warm.rules.cells)
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
    """The runner for a spec: a backend, ``logic``, ``canon``, ``batch+SPEC`` or the peer."""
    if spec == "logic":
        return _logic_runner
    if spec == "canon":
        return _canon_runner
    if spec == PEER:
        try:
            return _peer_runner(give_up)
        except ImportError:
            raise BackendUnavailableError(
                "pencilmark is not installed; it comes with the test extra: "
                "pip install 'cpsudoku[test]'"
            ) from None
    if spec.startswith("batch+"):
        create_backend(spec[len("batch+") :]).close()
        return _pipeline_runner(spec[len("batch+") :], give_up)
    create_backend(spec).close()  # fail early on an unknown or unavailable engine
    return _backend_runner(spec, give_up)
