"""Solving records into rows, chunk by chunk: what runs inside a worker process.

A bulk pass decides first what it can, a whole block of puzzles per call: the compiled
engine (backend ``native``) when it is built, the rules are ones it takes and the
engine asked for is the default one or ``native``; else the numpy logic pass (backend
``logic``). The engine gets the rest: what the compiled engine refused, or left after
its node budget (:func:`native_budget`), or the logic pass left open, with the cells
the pass forced filled in. Every solution of the compiled pass is checked by the bulk
verifier before it is written. Every row is checked against the input's solution
column when there is one, and cross-checked with a second engine when asked.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import Row
from cpsudoku.engines import DEFAULT_BACKEND, get_backend, refused_result
from cpsudoku.engines.default import (
    NATIVE,
    native_budget,
    native_takes,
    solve_first,
    solve_rest,
)
from cpsudoku.model.errors import CpSudokuError, PuzzleError, SolverError, UnsupportedRulesError
from cpsudoku.model.forms import PuzzleLike, parse
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import PendingGrid, Result, Status, bulk_result
from cpsudoku.model.rules import SYMBOLS, Rules
from cpsudoku.model.verify import is_solution

if TYPE_CHECKING:
    import numpy as np

    from cpsudoku.datasets import bulk_logic


#: Backend name of the rows the whole-array logic pass decided.
LOGIC = "logic"


def _native_pass(options: SolveOptions, rules: Rules, *, bulk: bool = True) -> bool:
    """True when the compiled engine should decide puzzles of ``rules`` first.

    ``bulk``: in its bulk pass, which takes no per-cell masks (such rules go record
    by record); else one puzzle at a time, and only in place of the default engine.
    """
    if options.backend not in ((DEFAULT_BACKEND, NATIVE) if bulk else (DEFAULT_BACKEND,)):
        return False
    if not native_takes(rules):
        return False
    from cpsudoku.engines import native

    return not bulk or native.allowed_masks(rules) is None


def bulk_pass(options: SolveOptions) -> str | None:
    """The bulk pass a batch runs before its engine: ``"native"``, ``"logic"`` or None.

    As :func:`solve_records` decides it for the rules every record shares
    (``options.rules``), or else for classic grids: ``native`` (the compiled engine)
    when it is built and the engine asked for is the default one or ``native``,
    otherwise ``logic`` (the numpy logic pass); None without ``presolve``, or for
    shared rules the logic pass skips (10x10 to 15x15). The provenance of a batch
    output names it beside the engine, which takes what the pass leaves.
    """
    if not options.presolve:
        return None
    rules = options.rules or Rules.for_size(9)
    if _native_pass(options, rules):
        return NATIVE
    from cpsudoku.datasets import bulk_logic

    if options.rules is not None and bulk_logic.pass_plan(rules) is bulk_logic.PassPlan.OFF:
        return None
    return LOGIC


def _solve_one(
    puzzle: PuzzleLike, options: SolveOptions, *, checked: bool = False, native_first: bool = True
) -> Result:
    """Solve one puzzle with the options' engine (``checked``: see :meth:`Backend.solve`).

    With the default engine, a puzzle the bulk pass did not take (rules of its own,
    given candidates, another text form) goes to the compiled engine first, within a
    node budget, where it takes the rules; what that leaves goes to the default engine
    (:func:`cpsudoku.engines.default.solve_first`, as :func:`cpsudoku.solve` does);
    without ``presolve`` the engine alone.
    ``native_first`` False: the named engine only (a cross-check).
    """
    engine = get_backend(options.backend)
    try:
        parsed = parse(puzzle, options.rules, check=False, symbols=options.symbols)
        kwargs = {"unique": options.unique, "time_limit": options.time_limit, "checked": checked}
        if native_first and options.presolve and _native_pass(options, parsed.rules, bulk=False):
            first, left = solve_first(
                parsed,
                unique=options.unique,
                time_limit=options.time_limit,
                checked=checked,
                budget=options.native_budget,
            )
            if first is not None:
                return first
            return solve_rest(
                engine, parsed, unique=options.unique, time_limit=left, checked=checked
            )
        return engine.solve(parsed, **kwargs)  # type: ignore[arg-type]
    except PuzzleError as exc:  # a row says it; the batch goes on
        return Result(Status.INVALID, None, engine.spec, 0.0, str(exc))
    except UnsupportedRulesError as exc:  # a rule this engine lacks: refused, not invalid
        return refused_result(engine, parsed.rules, str(exc))


def _cross_check(
    puzzle: str, first: Result, other_backend: str, options: SolveOptions
) -> str | None:
    """Solve again with ``other_backend``; describe any disagreement."""
    other = _solve_one(
        puzzle, replace(options, backend=other_backend, verify_with=None), native_first=False
    )
    if Status.TIMEOUT in (first.status, other.status):
        return None  # a timeout is not an answer to disagree with
    if first.status != other.status:
        return (
            f"disagreement: {first.backend} says {first.status}, "
            f"{other.backend} says {other.status}"
        )
    if first.status is Status.UNIQUE and first.solution != other.solution:
        return f"disagreement: {first.backend} and {other.backend} give different solutions"
    return None


def _solution_mismatch(
    expected: str, record: Record, result: Result, options: SolveOptions
) -> str | None:
    """Compare a result with the input's solution column.

    A unique result must equal it. For the other answers the column is checked by the
    verifier: it must solve the puzzle (any one of a ``multiple`` or ``solved``
    puzzle's solutions will do), and if it does, the puzzle cannot be ``unsolvable``.
    """
    status = result.status
    if status is Status.UNIQUE and result.solution is not None:
        try:
            given = parse(expected, result.solution.rules, check=False, symbols=options.symbols)
        except PuzzleError as exc:
            return f"the input's solution column is not a grid: {exc}"
        if given != result.solution:
            return "solution differs from the input's solution column"
        return None
    if status not in (Status.SOLVED, Status.MULTIPLE, Status.UNSOLVABLE):
        return None  # invalid or timed out: nothing to compare
    try:
        puzzle = parse(record.puzzle, options.rules, check=False, symbols=options.symbols)
        given = parse(expected, puzzle.rules, check=False, symbols=options.symbols)
    except PuzzleError as exc:
        return f"the input's solution column is not a grid: {exc}"
    if not is_solution(puzzle, given):
        return "the input's solution column does not solve the puzzle"
    if status is Status.UNSOLVABLE:
        return "the input's solution column solves the puzzle, found unsolvable"
    return None


def solve_records(records: Sequence[Record], options: SolveOptions) -> list[Row]:
    """Solve a chunk of dataset records into batch rows (runs inside a worker).

    With ``options.presolve`` the whole-array logic pass decides first every record it
    can (backend ``logic``); the engine gets only the rest, with the cells the pass
    forced already filled in.
    """
    rows: list[Row | None] = [None] * len(records)
    reduced: dict[int, Puzzle] = {}
    if options.presolve:
        _logic_rows(records, options, rows, reduced)
    out: list[Row] = []
    for k, (record, row) in enumerate(zip(records, rows, strict=True)):
        out.append(row if row is not None else _engine_row(record, options, reduced.get(k)))
    return out


def _engine_row(record: Record, options: SolveOptions, reduced: Puzzle | None) -> Row:
    """One record solved by the engine (``reduced``: the same puzzle after the logic pass)."""
    if record.error:
        spec = get_backend(options.backend).spec
        return (Status.INVALID.value, "", spec, 0.0, record.error)
    # A puzzle the logic pass left undecided has givens known not to clash.
    puzzle = record.puzzle if reduced is None else reduced
    result = _solve_one(puzzle, options, checked=reduced is not None)
    return _finish_row(record, result, options)


def _finish_row(record: Record, result: Result, options: SolveOptions) -> Row:
    """The row of a result, with the solution-column check and the cross-check."""
    notes = [result.error] if result.error else []
    if record.solution:
        mismatch = _solution_mismatch(record.solution, record, result, options)
        if mismatch:
            notes.append(mismatch)
    if options.verify_with and result.status is not Status.INVALID:
        disagreement = _cross_check(record.puzzle, result, options.verify_with, options)
        if disagreement:
            notes.append(disagreement)
    solution = "" if result.solution is None else result.solution.line(options.symbols)
    return (result.status.value, solution, result.backend, result.seconds, "; ".join(notes))


class _Decided(NamedTuple):
    """What a bulk pass decided for one block of one-line puzzles sharing their rules.

    Batch rows (:func:`_logic_rows`) and Results (:func:`solve_puzzles`) are both
    built from it, so a line gets the same answer either way.

    Attributes:
        rules: the rules of every puzzle of the block.
        backend: the pass that decided: :data:`NATIVE` or :data:`LOGIC`.
        members: the positions, in the chunk, of the block's puzzles.
        codes: per puzzle, its entry in ``outcomes``.
        outcomes: per code, the status and the error text; None where the pass leaves
            the puzzle to the engine (a clash to name, the node budget spent, open cells).
        solved: the indices (into ``members``) of the puzzles with a solution.
        solutions: their solutions, a row each, every one checked by the bulk verifier.
        seconds: the pass's time per puzzle.
        nodes: the compiled engine's search nodes per puzzle (None for the logic pass).
        guesses: its branch choices per puzzle (None for the logic pass).
    """

    rules: Rules
    backend: str
    members: list[int]
    codes: list[int]
    outcomes: Sequence[tuple[Status, str] | None]
    solved: np.ndarray
    solutions: np.ndarray
    seconds: float
    nodes: np.ndarray | None = None
    guesses: np.ndarray | None = None


def _bulk_passes(
    texts: Sequence[str | None], options: SolveOptions, reduced: dict[int, Puzzle]
) -> Iterator[_Decided]:
    """Run the bulk passes over a chunk's one-line puzzles, one block per rules.

    ``texts`` holds the puzzle text at each position of the chunk, None where there is
    none to read (a record the reader could not read, an input that is no text).
    Puzzles are grouped by rules (from ``--box`` or their length, or a JSON record's
    own regions); puzzles the logic pass leaves undecided get their reduced puzzle in
    ``reduced``. Texts the bulk parser cannot read (other text forms, bad input) are
    left to the per-puzzle path, which parses them or says precisely what is wrong.
    """
    # Imported here, with numpy, so that a single solve or a batch without the pass
    # does not pay for numpy's import (a tenth of a second at every command).
    from cpsudoku.datasets import bulk_logic

    if options.symbols is not None and not options.symbols.isascii():
        return  # the pass reads bytes: such records take the per-record path
    fixed = options.rules
    if fixed is None and options.symbols is not None:
        fixed = Rules.for_size(len(options.symbols))
    by_length: dict[int, list[int]] = {}
    groups: dict[Rules, list[int]] = {}
    inner: dict[int, str] = {}  # a JSON record's puzzle text, by record
    seen: dict[str, Rules | None] = {}
    for k, text in enumerate(texts):
        if text is None:
            continue
        if text.startswith("{"):
            found = _regions_only(text, seen)
            if found is not None:  # a jigsaw, Sudoku X...: the pass takes its units
                groups.setdefault(found[0], []).append(k)
                inner[k] = found[1]
            continue
        by_length.setdefault(len(text), []).append(k)
    for length, members in by_length.items():
        g = fixed or _geometry_of_length(length)
        if g is not None:
            groups.setdefault(g, []).extend(members)
    for g, members in groups.items():
        start = time.perf_counter()
        block_texts = [inner[k] if k in inner else texts[k] for k in members]
        values, ok = bulk_logic.parse_block(
            cast("list[str]", block_texts), g, options.symbols
        )  # members hold texts only
        chosen = [k for k, good in zip(members, ok.tolist(), strict=True) if good]
        if not chosen:
            continue
        block = values[ok]
        if _native_pass(options, g):
            yield _native_block(chosen, block, g, options, start)
            continue
        plan = bulk_logic.pass_plan(g)
        if plan is not bulk_logic.PassPlan.OFF:
            yield _logic_block(chosen, block, g, options, start, plan, reduced)


def _logic_block(
    chosen: list[int],
    block: np.ndarray,
    g: Rules,
    options: SolveOptions,
    start: float,
    plan: bulk_logic.PassPlan,
    reduced: dict[int, Puzzle],
) -> _Decided:
    """The whole-array logic pass over ``block``; undecided puzzles go to ``reduced``."""
    import numpy as np

    from cpsudoku.datasets import bulk_logic

    result = bulk_logic.presolve(block, g, locked=plan is bulk_logic.PassPlan.FULL)
    status = result.status
    unique_rows = np.flatnonzero(status == bulk_logic.UNIQUE)
    open_rows = np.flatnonzero(status == bulk_logic.UNDECIDED)
    if open_rows.size:
        # For undecided rows the pass returns the grid with its placements made:
        # same solutions as the input, fewer open cells for the engine.
        forced = result.solutions[open_rows]
        for j, cells in zip(open_rows.tolist(), forced.tolist(), strict=True):
            reduced[chosen[j]] = Puzzle(g, tuple(cells))
    outcomes: list[tuple[Status, str] | None] = [None] * 4
    outcomes[bulk_logic.UNIQUE] = (Status.UNIQUE if options.unique else Status.SOLVED, "")
    outcomes[bulk_logic.UNSOLVABLE] = (Status.UNSOLVABLE, "")
    seconds = (time.perf_counter() - start) / len(chosen)
    return _Decided(
        g,
        LOGIC,
        chosen,
        status.tolist(),
        outcomes,
        unique_rows,
        result.solutions[unique_rows],
        seconds,
    )


def _native_block(
    chosen: list[int], block: np.ndarray, g: Rules, options: SolveOptions, start: float
) -> _Decided:
    """The compiled engine's bulk pass over ``block``, one C call, its solutions verified.

    Clashing givens and puzzles beyond the node budget have no outcome: the per-record
    path takes them (the engine there names the clash, or solves what the compiled
    search could not within its budget).
    """
    import numpy as np

    from cpsudoku.datasets import bulk_logic
    from cpsudoku.engines import native

    found = native.solve_block(
        block,
        g,
        limit=2 if options.unique else 1,
        time_limit=options.time_limit,
        budget=options.native_budget or native_budget(g),
    )
    solved = found.count > 0
    solutions = found.solutions[solved]
    checked = bulk_logic.verify_block(block[solved], solutions, g)
    if not checked.all():
        bad = chosen[int(np.flatnonzero(solved)[np.flatnonzero(~checked)[0]])]
        raise SolverError(f"native returned an invalid solution for record {bad}")
    seconds = (time.perf_counter() - start) / len(chosen)
    codes = (3 * found.status.astype(np.intp) + found.count).tolist()
    return _Decided(
        g,
        NATIVE,
        chosen,
        codes,
        _native_outcomes(options.unique),
        np.flatnonzero(solved),
        solutions,
        seconds,
        found.nodes,
        found.guesses,
    )


@cache
def _native_outcomes(unique: bool) -> tuple[tuple[Status, str] | None, ...]:
    """How a compiled search ended, as ``3 * end + solutions found``, -> status and error.

    A clash to name, or the budget spent, has none: the engine takes those puzzles.
    """
    from cpsudoku.engines import native

    one = Status.UNIQUE if unique else Status.SOLVED
    late = (Status.TIMEOUT, "time limit reached")
    outcomes: list[tuple[Status, str] | None] = [None] * (3 * native.ENDS)
    for (end, count), outcome in {
        (native.DONE, 0): (Status.UNSOLVABLE, ""),
        (native.DONE, 1): (one, ""),
        (native.LIMIT, 1): (one, ""),
        (native.LIMIT, 2): (Status.MULTIPLE, ""),
        (native.TIMEOUT, 0): late,
        (native.TIMEOUT, 1): late,
    }.items():
        outcomes[3 * end + count] = outcome
    return tuple(outcomes)


def _logic_rows(
    records: Sequence[Record],
    options: SolveOptions,
    rows: list[Row | None],
    reduced: dict[int, Puzzle],
) -> None:
    """Fill ``rows`` for the records the bulk passes decide (see :func:`_bulk_passes`)."""
    from cpsudoku.datasets import bulk_logic

    texts = [None if record.error else record.puzzle for record in records]
    checks = bool(options.verify_with)
    for decided in _bulk_passes(texts, options, reduced):
        g, backend, members = decided.rules, decided.backend, decided.members
        solutions = bulk_logic.format_block(decided.solutions, g, options.symbols)
        if len(solutions) < len(members):  # rows without a solution write none
            spread = [""] * len(members)
            for j, text in zip(decided.solved.tolist(), solutions, strict=True):
                spread[j] = text
            solutions = spread
        seconds, outcomes = decided.seconds, decided.outcomes
        plain = {outcome: (outcome[0].value, outcome[1]) for outcome in outcomes if outcome}
        for k, code, text in zip(members, decided.codes, solutions, strict=True):
            outcome = outcomes[code]
            if outcome is None:
                continue
            if checks or records[k].solution:
                status, error = outcome
                rows[k] = _pass_row(records[k], status, text, g, seconds, options, backend, error)
            else:  # the plain row of _pass_row, built here: a million times on big files
                value, error = plain[outcome]
                rows[k] = (value, text, backend, seconds, error)


def _pass_row(
    record: Record,
    status: Status,
    text: str,
    g: Rules,
    seconds: float,
    options: SolveOptions,
    backend: str,
    error: str = "",
) -> Row:
    """The row of a record a bulk pass decided; checks run only when asked for."""
    if not record.solution and not options.verify_with:
        return (status.value, text, backend, seconds, error)
    solution = parse(text, g, check=False, symbols=options.symbols) if text else None
    result = Result(status, solution, backend, seconds, error or None)
    return _finish_row(record, result, options)


def _regions_only(text: str, seen: dict[str, Rules | None]) -> tuple[Rules, str] | None:
    """The rules and puzzle text of a JSON record whose rules are units only, else None.

    Jigsaw regions and extra regions of n cells are units like the boxes, so the bulk
    passes take them; a record with other constraints (cages, lines...) is left to the
    engines, as is anything malformed (the per-record path says what is wrong).
    ``seen`` caches the rules per spec text: a dataset repeats its rules.
    """
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("puzzle"), str):
        return None
    spec = obj.get("rules")
    if not isinstance(spec, dict):
        return None
    key = json.dumps(spec, sort_keys=True)
    if key not in seen:
        try:
            rules: Rules | None = Rules.from_spec(spec)
        except CpSudokuError:
            rules = None
        if rules is not None and (
            rules.constraints or any(len(u) != rules.n for u in rules.unit_cells)
        ):
            rules = None
        seen[key] = rules
    found = seen[key]
    return None if found is None else (found, obj["puzzle"])


@cache
def _geometry_of_length(length: int) -> Rules | None:
    """The default rules of a one-line puzzle of ``length`` symbols (n <= 35)."""
    n = math.isqrt(length)
    if n * n != length or not 2 <= n <= len(SYMBOLS):  # one cell: no grid (parse says)
        return None
    return Rules.for_size(n)


def solve_puzzles(puzzles: Sequence[PuzzleLike], options: SolveOptions) -> list[Result]:
    """Solve a chunk of puzzles into Results (runs inside a worker).

    With ``options.presolve``, the one-line text puzzles go through the bulk passes
    first, as in :func:`solve_records`: a block of them per call, and their Results
    built from the pass's arrays (no Puzzle parsed per line). The engine solves the
    rest one by one: other forms and objects, what the passes leave, and the
    ``multiple`` puzzles, whose two witnesses the bulk pass does not give.
    """
    results: list[Result | None] = [None] * len(puzzles)
    reduced: dict[int, Puzzle] = {}
    if options.presolve:
        texts = [p.strip() if isinstance(p, str) else None for p in puzzles]
        for decided in _bulk_passes(texts, options, reduced):
            _pass_results(decided, results)
    return [
        # A puzzle the logic pass left undecided has givens known not to clash.
        _solve_one(reduced.get(k, puzzle), options, checked=k in reduced)
        if result is None
        else result
        for k, (puzzle, result) in enumerate(zip(puzzles, results, strict=True))
    ]


def _pass_results(decided: _Decided, results: list[Result | None]) -> None:
    """Fill ``results`` for the puzzles a bulk pass decided, built in bulk from its arrays.

    The values are those of a Result built the usual way: the solution a Puzzle of
    the block's rules, the error text and stats the engine gives one puzzle at a time
    (the compiled engine's nodes and guesses; none for the logic pass). But each
    solution stays a row of bytes until it is read (:class:`PendingGrid`), and the
    Results are made without their constructor (:func:`bulk_result`): a Puzzle per
    line and the constructor's checks cost a third of the compiled search of a clue17
    puzzle. A ``multiple`` puzzle is left out: the engine finds its two witnesses.
    """
    import numpy as np

    g, backend, seconds, outcomes = (
        decided.rules,
        decided.backend,
        decided.seconds,
        decided.outcomes,
    )
    members = decided.members
    width = g.cells
    grids: list[PendingGrid | None] = [None] * len(members)
    if len(decided.solved):
        block = decided.solutions.astype(np.uint8, copy=False).tobytes()
        pending = tuple.__new__  # PendingGrid(g, cells) without its Python-level __new__
        for at, j in enumerate(decided.solved.tolist()):
            grids[j] = pending(PendingGrid, (g, block[at * width : (at + 1) * width]))
    if decided.nodes is not None and decided.guesses is not None:
        counters = zip(decided.nodes.tolist(), decided.guesses.tolist(), strict=True)
        stats = [{"nodes": nodes, "guesses": guesses} for nodes, guesses in counters]
    else:
        stats = [{} for _ in members]
    multiple = Status.MULTIPLE
    for k, code, grid, counts in zip(members, decided.codes, grids, stats, strict=True):
        outcome = outcomes[code]
        if outcome is None or outcome[0] is multiple:
            continue
        status, error = outcome
        results[k] = bulk_result(status, grid, backend, seconds, error or None, counts)


def canonical_column(records: Sequence[Record], options: SolveOptions) -> list[str] | None:
    """The ``batch --canon`` column of a chunk, or None when it was not asked for.

    Each record's canonical form (see :func:`cpsudoku.canon.canonical_lines`), empty
    when it has none: a record that cannot be read (its row's error says why), or
    one with rules beyond rows, columns and boxes. Local workers and cluster tasks
    both call this, so the column is the same whichever ran the chunk.
    """
    if not options.canon:
        return None
    from cpsudoku.canon import canonical_lines

    keys = canonical_lines([record.puzzle for record in records], options.rules)
    return [key if isinstance(key, str) else "" for key in keys]


def solve_and_encode(records: Sequence[Record], options: SolveOptions, kind: str) -> Any:
    """Solve a chunk and encode its rows for an output of ``kind`` (runs in a worker).

    Encoding in the worker keeps the parent's serial work to reading and writing:
    it receives one ready block of text (or one Parquet file) per chunk, with the
    counts for the summary.
    """
    from cpsudoku.datasets.encoding import encode_rows

    rows = solve_records(records, options)
    canonical = canonical_column(records, options)
    if options.witnesses:  # the evidence columns: solution2 and certificate
        from cpsudoku.datasets.evidence import evidence_columns

        extra = evidence_columns(records, rows, options)
        return encode_rows(
            [
                (record.index, record.puzzle, *row, *more)  # type: ignore[misc]
                for record, row, more in zip(records, rows, extra, strict=True)
            ],
            kind,
            canonical,
        )
    return encode_rows(
        [(record.index, record.puzzle, *row) for record, row in zip(records, rows, strict=True)],
        kind,
        canonical,
    )
