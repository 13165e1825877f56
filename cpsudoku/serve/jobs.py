"""The work behind every request of the server, run inside a worker process.

Each job is a generator of JSON-ready messages: the websocket jobs yield replies in
SudokuSolver's f-puzzles protocol (without the nonce, which the server adds), the HTTP
jobs the objects of the JSON API. A job never raises for bad input: it yields an
``invalid`` reply (websocket) or an ``{"status": "invalid", "error": ...}`` object with
``"http": 400`` (HTTP) naming what is wrong. The server kills the worker to cancel a
job, so the jobs need no cancellation of their own; each still takes its time limit to
the engines, so that a job ends on its own with an honest ``timeout``.
"""

from __future__ import annotations

import base64
import io
import json
import random
import time
import warnings
import zipfile
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from cpsudoku.evidence.candidates import CandidateCache, TrueCandidates
from cpsudoku.model.errors import CpSudokuError, PuzzleError, UnsupportedRulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status

#: A job's output: JSON-ready messages, the last one final.
Messages = Iterator[dict[str, Any]]

#: The websocket commands (SudokuSolver's), and what each does here.
WS_COMMANDS = (
    "truecandidates",
    "solve",
    "check",
    "count",
    "solvepath",
    "step",
    "estimate",
)

#: The HTTP API's endpoints (``POST /api/NAME``).
API_ENDPOINTS = (
    "solve",
    "count",
    "candidates",
    "check",
    "certify",
    "explain",
    "draw",
    "canon",
    "show",
)

#: Seconds between two progress messages of a count.
PROGRESS_EVERY = 0.25

#: The cap of true candidates' solution counts when the client asks for colours
#: (SudokuSolver's "Solution Count" setting: green for 1, blue for 2..8).
COLOURED_CAP = 8


# ------------------------------------------------------------------ reading


def fpuzzles_data(data: object) -> dict[str, Any]:
    """The f-puzzles object of a websocket request's ``data`` (lz-string base64 JSON).

    Raises:
        PuzzleError: ``data`` is not a string that decompresses to an f-puzzles object.
    """
    from cpsudoku.model.lzstring import decompress

    if not isinstance(data, str) or not data:
        raise PuzzleError("the request has no data: send the puzzle as f-puzzles data")
    text = decompress(data.strip().replace(" ", "+"))
    if text is None or not text.lstrip().startswith("{"):
        raise PuzzleError(
            "the data does not decompress to an f-puzzles puzzle (lz-string base64 of its "
            "JSON is expected)"
        )
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleError(f"the data decompresses to broken JSON: {exc}") from None
    from cpsudoku.model.fpuzzles import is_fpuzzles

    if not is_fpuzzles(obj):
        raise PuzzleError("the data is JSON but no f-puzzles puzzle (a size and a grid)")
    return dict(obj)


def _options(obj: Mapping[str, Any]) -> set[str]:
    raw = obj.get("truecandidatesoptions")
    return {str(x).lower() for x in raw} if isinstance(raw, list) else set()


def _checked(puzzle: Puzzle) -> Puzzle:
    return puzzle.check()


# --------------------------------------------------------------- websocket


def ws_job(command: str, data: object, time_limit: float) -> Messages:
    """The replies to one websocket request (nonce left out: the server adds it).

    ``command`` is one of :data:`WS_COMMANDS`; ``data`` the request's ``data``.
    """
    try:
        obj = fpuzzles_data(data)
        if command in ("solvepath", "step"):
            yield from _logical(obj, command == "step")
            return
        from cpsudoku.model.fpuzzles import read_fpuzzles

        puzzle = _checked(read_fpuzzles(obj).puzzle)
        if command == "truecandidates":
            cap = COLOURED_CAP if "colored" in _options(obj) else 1
            yield _ws_true_candidates(puzzle, cap, time_limit)
        elif command == "solve":
            yield _ws_solve(puzzle, time_limit)
        elif command == "check":
            yield from _ws_count(puzzle, 2, time_limit)
        elif command == "count":
            yield from _ws_count(puzzle, 0, time_limit)
        elif command == "estimate":
            yield from _ws_estimate(puzzle, time_limit)
        else:
            yield _invalid(f"unknown command {command!r}: one of {', '.join(WS_COMMANDS)}")
    except (CpSudokuError, ValueError) as exc:
        yield _invalid(str(exc))


def _invalid(message: str) -> dict[str, Any]:
    return {"type": "invalid", "message": message}


def true_candidates_with(puzzle: Puzzle, cap: int, time_limit: float | None) -> TrueCandidates:
    """True candidates with counts up to ``cap`` (``counts``, index ``cell * n + value - 1``).

    Answered by the worker's :class:`~cpsudoku.evidence.candidates.CandidateCache`: an
    unchanged puzzle at once, an extended one from the values its earlier answer ruled
    out.
    """
    return _CACHE.get(puzzle, cap=cap, time_limit=time_limit)


#: The worker's true-candidate cache (one per worker process, for its life).
_CACHE = CandidateCache()


def candidate_counts(found: TrueCandidates) -> list[int]:
    """Per candidate (index ``cell * n + value - 1``) its solution count, 0 if none."""
    return [int(c) for c in found.counts]


def _ws_true_candidates(puzzle: Puzzle, cap: int, time_limit: float) -> dict[str, Any]:
    found = true_candidates_with(puzzle, cap, time_limit)
    if not found.complete:
        return _invalid(
            f"The time limit of {time_limit:g} s ran out before every candidate was "
            "settled (start the server with a longer --time-limit)."
        )
    if not found.solvable:
        return _invalid("No solutions found.")
    return {"type": "truecandidates", "solutionsPerCandidate": candidate_counts(found)}


def _sat_solver(puzzle: Puzzle) -> tuple[Any, Any]:
    """A python-sat solver holding ``puzzle`` with its givens folded in, and the encoding."""
    from pysat.solvers import Solver

    from cpsudoku.encode.cnf import reduced

    red = reduced(puzzle)
    return Solver(name="glucose4", bootstrap_with=red.clauses), red


def _ws_solve(puzzle: Puzzle, time_limit: float) -> dict[str, Any]:
    """A random solution (SudokuSolver's ``solve`` is random): random phases, then SAT."""
    from cpsudoku.encode.cnf import decode_reduced
    from cpsudoku.model.verify import is_solution

    solver, red = _sat_solver(puzzle)
    with solver:
        if any(not c for c in red.clauses):
            return _invalid("No solutions found.")
        lits = [lit for lits in red.candidates for lit in lits]
        rng = random.Random()
        solver.set_phases([lit if rng.random() < 1 / puzzle.n else -lit for lit in lits])
        found = _limited_solve(solver, [], time_limit)
        if found is None:
            return _invalid(f"The time limit of {time_limit:g} s ran out before a solution.")
        if not found:
            return _invalid("No solutions found.")
        cells = decode_reduced(solver.get_model(), puzzle, red)
    solution = Puzzle(puzzle.rules, cells)
    if not is_solution(puzzle, solution):  # never sent unverified
        return _invalid("internal error: the solver's grid breaks a rule")
    return {"type": "solved", "solution": list(cells)}


def _limited_solve(solver: Any, assumptions: list[int], seconds: float) -> bool | None:
    """One SAT call stopped at ``seconds``; None when the time ran out."""
    from cpsudoku.engines.interrupts import StopAt

    if seconds <= 0:
        return None
    try:
        with StopAt(solver.interrupt, seconds):
            found = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        solver.clear_interrupt()
    return None if found is None else bool(found)


def count_stream(puzzle: Puzzle, limit: int, time_limit: float | None) -> Iterator[tuple[int, str]]:
    """Count solutions up to ``limit`` (0: no limit), with progress.

    Yields ``(count, state)``: state ``"progress"`` about every
    :data:`PROGRESS_EVERY` seconds, then one of ``"exact"`` (every solution
    counted), ``"limit"`` (the limit reached) or ``"timeout"``. Each solution found
    is blocked by a clause over its open cells and the search goes on.
    """
    from cpsudoku.encode.cnf import decode_reduced

    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    solver, red = _sat_solver(puzzle)
    count = 0
    last = start
    with solver:
        if any(not c for c in red.clauses):
            yield 0, "exact"
            return
        while True:
            if deadline is None:
                found: bool | None = bool(solver.solve())
            else:
                found = _limited_solve(solver, [], deadline - time.perf_counter())
            if found is None:
                yield count, "timeout"
                return
            if not found:
                yield count, "exact"
                return
            count += 1
            if limit and count >= limit:
                yield count, "limit"
                return
            model = solver.get_model()
            cells = decode_reduced(model, puzzle, red)
            n = puzzle.n
            blocking = [-(i * n + v) for i, v in enumerate(cells) if red.candidates[i]]
            if not blocking:  # no open cell: the givens are the one solution
                yield count, "exact"
                return
            solver.add_clause(blocking)
            now = time.perf_counter()
            if now - last >= PROGRESS_EVERY:
                last = now
                yield count, "progress"


def _ws_count(puzzle: Puzzle, limit: int, time_limit: float) -> Messages:
    for count, state in count_stream(puzzle, limit, time_limit):
        if state == "progress":
            yield {"type": "count", "count": count, "inProgress": True}
        elif state == "timeout":
            yield _invalid(
                f"The time limit of {time_limit:g} s ran out after {count} solution"
                f"{'s' * (count != 1)}: there are at least {count} (start the server with "
                "a longer --count-time-limit)."
            )
        else:
            yield {"type": "count", "count": count, "inProgress": False}


def _ws_estimate(puzzle: Puzzle, time_limit: float) -> Messages:
    from cpsudoku.evidence.estimate import estimates

    for estimate in estimates(puzzle, time_limit=time_limit):
        yield {"type": "estimate", **estimate.to_dict()}


# ------------------------------------------------------------------ logical


def _logical(obj: Mapping[str, Any], one_step: bool) -> Messages:
    """``solvepath`` / ``step``: the human-technique rater, where it takes the rules.

    The state is the user's: digits filled in count as placed, centre marks restrict
    their cells (SudokuSolver reads them so for these two commands).
    """
    from cpsudoku.model.errors import ConflictingGivensError
    from cpsudoku.model.fpuzzles import read_fpuzzles
    from cpsudoku.rating import Candidates, ContradictionError
    from cpsudoku.rating.rater import refuse_constraints

    puzzle = read_fpuzzles(obj, include_filled=True).puzzle
    n = puzzle.n
    marks = _centre_marks(obj, n)
    try:
        refuse_constraints(puzzle.rules)
    except UnsupportedRulesError as exc:
        kinds = ", ".join(sorted({c.kind for c in puzzle.rules.constraints}))
        yield _logical_reply(
            _as_sent(puzzle, marks),
            f"The logical solve path is not available for these rules ({kinds}): "
            f"cpsudoku's human-technique rater reasons with no-repeat regions only ({exc}). "
            "Use True Candid., Check or Solution Count instead.",
            True,
        )
        return
    try:
        puzzle.check()
    except ConflictingGivensError as exc:
        yield _logical_reply(_as_sent(puzzle, marks), f"{exc}\nBoard is invalid!", False)
        return
    state = Candidates(puzzle)
    for i, mask in marks.items():
        if not state.vals[i]:
            state.cand[i] &= mask
    if one_step:
        sent = {i: m for i, m in marks.items() if not puzzle.cells[i]}
        for i in range(n * n):
            if puzzle.cells[i]:
                continue
            if sent.get(i, 0) != state.cand[i]:
                yield _logical_reply(_cells(state), "Initial candidates.", True)
                return
    lines: list[str] = []
    valid = True
    try:
        while state.empty:
            if any(not state.vals[i] and not state.cand[i] for i in range(n * n)):
                raise ContradictionError("a cell has no candidate left")
            step = state.next_step()
            if step is None:
                lines.append("No logical steps found.")
                break
            state.apply(step)
            lines.append(str(step))
            if one_step:
                break
        else:
            lines.append("Solved!")
    except ContradictionError:
        lines.append("Board is invalid!")
        valid = False
    yield _logical_reply(_cells(state), "\n".join(lines), valid)


def _centre_marks(obj: Mapping[str, Any], n: int) -> dict[int, int]:
    """The centre marks of the cells without a digit, as masks."""
    out: dict[int, int] = {}
    grid = obj.get("grid")
    if not isinstance(grid, list):
        return out
    for r, row in enumerate(grid[:n]):
        if not isinstance(row, list):
            continue
        for c, cell in enumerate(row[:n]):
            if not isinstance(cell, Mapping) or cell.get("value"):
                continue
            marks = cell.get("centerPencilMarks")
            if isinstance(marks, list) and marks:
                mask = 0
                for m in marks:
                    if isinstance(m, int) and 1 <= m <= n:
                        mask |= 1 << (m - 1)
                out[r * n + c] = mask
    return out


def _as_sent(puzzle: Puzzle, marks: Mapping[int, int]) -> list[dict[str, Any]]:
    """The cells as the client sent them (digits, centre marks): nothing changed."""
    n = puzzle.n
    return [
        {"value": v}
        if v
        else {
            "value": 0,
            "candidates": [d for d in range(1, n + 1) if marks.get(i, 0) >> (d - 1) & 1],
        }
        for i, v in enumerate(puzzle.cells)
    ]


def _cells(state: Any) -> list[dict[str, Any]]:
    n = state.rules.n
    return [
        {"value": v}
        if v
        else {
            "value": 0,
            "candidates": [d for d in range(1, n + 1) if state.cand[i] >> (d - 1) & 1],
        }
        for i, v in enumerate(state.vals)
    ]


def _logical_reply(cells: list[dict[str, Any]], message: str, valid: bool) -> dict[str, Any]:
    return {"type": "logical", "cells": cells, "message": message + "\n", "isValid": valid}


# -------------------------------------------------------------------- HTTP


class BadRequestError(CpSudokuError, ValueError):
    """A request the API cannot take (its body, an option): HTTP 400."""


def read_body_puzzle(body: Mapping[str, Any]) -> tuple[Puzzle, dict[str, Any]]:
    """The puzzle of an API body, and what came with it (title, notes, rules text).

    ``body["puzzle"]`` is any form :func:`cpsudoku.parse` takes (text, JSON spec,
    an f-puzzles or SudokuPad link), or a JSON object (f-puzzles JSON or a spec).

    Raises:
        BadRequestError: no puzzle in the body.
        PuzzleError: the puzzle cannot be read (named).
    """
    from cpsudoku.model.forms import parse
    from cpsudoku.model.fpuzzles import read_fpuzzles_text

    raw = body.get("puzzle")
    if isinstance(raw, Mapping | list):
        raw = json.dumps(raw)
    if not isinstance(raw, str) or not raw.strip():
        raise BadRequestError('the body has no "puzzle": give its text, JSON or a link')
    include_filled = bool(body.get("include_filled", False))
    meta: dict[str, Any] = {"title": "", "notes": [], "ruleset": ""}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        setter = read_fpuzzles_text(raw, include_filled=include_filled)
        if setter is not None:
            puzzle = setter.puzzle
            meta.update(title=setter.title, notes=list(setter.notes), ruleset=setter.ruleset)
        else:
            puzzle = parse(raw.strip(), _box(body), check=False)
    meta["notes"] += [str(w.message) for w in caught]
    return puzzle, meta


def _box(body: Mapping[str, Any]) -> str | None:
    box = body.get("box")
    if box is None or isinstance(box, str):
        return box
    raise BadRequestError(f'"box" is a shape such as "2x3", not {box!r}')


def _number(body: Mapping[str, Any], key: str, default: float, low: float = 0.0) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > low:
        raise BadRequestError(f'"{key}" must be a number above {low:g}, not {value!r}')
    return float(value)


def _time_limit(body: Mapping[str, Any], limit: float) -> float:
    """The body's ``time_limit``, never above the server's ``limit``."""
    return min(_number(body, "time_limit", limit), limit)


def api_job(endpoint: str, body: Mapping[str, Any], time_limit: float) -> Messages:
    """The answer of ``POST /api/ENDPOINT`` (several messages for ``count``'s progress).

    Each message is a JSON object; one with ``"http": 400`` is a bad request (the
    server answers 400 with it, key removed).
    """
    try:
        if not isinstance(body, Mapping):
            raise BadRequestError('the body must be a JSON object with a "puzzle"')
        job = _API.get(endpoint)
        if job is None:
            raise BadRequestError(f"no endpoint {endpoint!r}: one of {', '.join(API_ENDPOINTS)}")
        limit = _time_limit(body, time_limit)
        puzzle, meta = read_body_puzzle(body)
        yield from job(puzzle, meta, body, limit)
    except (CpSudokuError, ValueError) as exc:
        yield {"status": "invalid", "error": str(exc), "http": 400}


def _backend(body: Mapping[str, Any]) -> str:
    from cpsudoku.engines import DEFAULT_BACKEND, check_spec

    spec = body.get("backend", DEFAULT_BACKEND)
    if not isinstance(spec, str):
        raise BadRequestError(f'"backend" is an engine name, not {spec!r}')
    check_spec(spec)
    return spec


def _api_solve(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.api import solve

    result = solve(puzzle, _backend(body), time_limit=limit, unique=bool(body.get("unique", True)))
    out = result.to_dict()
    out["notes"] = meta["notes"]
    if result.status is Status.INVALID:
        out["http"] = 400
    yield out


def _api_check(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.api import solve

    result = solve(puzzle, _backend(body), time_limit=limit)
    out: dict[str, Any] = {"status": str(result.status), "error": result.error}
    if result.status is Status.INVALID:
        out["http"] = 400
    yield out


def _api_count(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    cap = body.get("limit", 1000)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise BadRequestError(f'"limit" is a whole number of solutions (0: none), not {cap!r}')
    puzzle.check()
    start = time.perf_counter()
    for count, state in count_stream(puzzle, cap, limit):
        if state == "progress":
            yield {"progress": count}
            continue
        yield {
            "count": count,
            "limit": cap,
            "complete": state == "exact",
            "timed_out": state == "timeout",
            "status": _count_status(count, state),
            "seconds": round(time.perf_counter() - start, 6),
            "error": None,
        }


def _count_status(count: int, state: str) -> str:
    if state == "timeout":
        return str(Status.TIMEOUT)
    if count == 0:
        return str(Status.UNSOLVABLE)
    return str(Status.UNIQUE if count == 1 and state == "exact" else Status.MULTIPLE)


def _api_candidates(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.model.constraints import cell_name

    cap = body.get("cap", 1)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise BadRequestError(f'"cap" is a whole number of solutions (0: none), not {cap!r}')
    puzzle.check()
    found = true_candidates_with(puzzle, cap, limit)
    n = puzzle.n
    if not found.complete:
        status = Status.TIMEOUT
    elif not found.solvable:
        status = Status.UNSOLVABLE
    else:
        status = Status.UNIQUE if found.unique else Status.MULTIPLE
    out: dict[str, Any] = {
        "status": str(status),
        "candidates": [list(found.values(i)) for i in range(len(found.masks))],
        "counts": candidate_counts(found),
        "cap": cap,
        "complete": found.complete,
        "ambiguous": [cell_name(i, n) for i in found.ambiguous],
        "seconds": round(found.seconds, 6),
        "error": None,
    }
    yield out


def _api_explain(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.draw.svg import Picture, to_svg
    from cpsudoku.evidence.explain import explain
    from cpsudoku.model.constraints import cell_name

    found = explain(puzzle, time_limit=limit)
    out = found.to_dict()
    out["lines"] = found.lines()
    out["cells"] = [cell_name(i, puzzle.n) for i in sorted(found.cells)]
    solution = found.solutions[0].cells if found.solutions else None
    out["svg"] = to_svg(Picture(puzzle, solution, None, found.cells, meta["title"]))
    yield out


def _api_draw(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.draw.svg import Picture, to_svg

    solution = candidates = None
    highlight: frozenset[int] = frozenset()
    if body.get("solution") or body.get("witnesses"):
        from cpsudoku.api import solve

        result = solve(puzzle, _backend(body), time_limit=limit)
        if body.get("solution") and result.solution is not None:
            solution = result.solution.cells
        if body.get("witnesses") and len(result.solutions) >= 2:
            a, b = result.solutions[0].cells, result.solutions[1].cells
            highlight = frozenset(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
    if body.get("highlight"):
        highlight |= _named_cells(body["highlight"], puzzle.n)
    if body.get("candidates"):
        puzzle.check()
        candidates = true_candidates_with(puzzle, 1, limit).masks
    title = body.get("title", meta["title"])
    svg = to_svg(Picture(puzzle, solution, candidates, highlight, str(title or "")))
    yield {"svg": svg}


def _named_cells(names: object, n: int) -> frozenset[int]:
    """Cells named ``r1c2`` (or 0-based indices), for ``highlight``.

    Raises:
        BadRequestError: not a list of cells of the grid.
    """
    import re

    if not isinstance(names, list):
        raise BadRequestError('"highlight" is a list of cells such as "r1c2"')
    out = set()
    for name in names:
        if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < n * n:
            out.add(name)
            continue
        m = re.fullmatch(r"[rR](\d+)[cC](\d+)", str(name))
        if m is None or not (1 <= int(m[1]) <= n and 1 <= int(m[2]) <= n):
            raise BadRequestError(f'"highlight": {name!r} is no cell of a {n}x{n} grid')
        out.add((int(m[1]) - 1) * n + int(m[2]) - 1)
    return frozenset(out)


def _api_certify(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.evidence.certificate import CertificateError, make_certificate

    try:
        cert = make_certificate(puzzle, backend=_backend(body), time_limit=limit)
    except CertificateError as exc:
        result = exc.result
        out: dict[str, Any] = {"certified": False, "reason": exc.reason}
        if result is not None:
            out.update(result.to_dict())
        else:
            out.update(status=str(Status.INVALID), error=exc.reason)
        if out.get("status") == str(Status.INVALID):
            out["http"] = 400
        yield out
        return
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in cert.files().items():
            archive.writestr(f"certificate/{name}", data)
    yield {
        "certified": cert.checked,
        "status": str(Status.UNIQUE),
        "solution": str(cert.solution),
        "verdict": cert.verdict,
        "proof_bytes": len(cert.proof),
        "zip": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "error": None,
    }


def _api_canon(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    from cpsudoku.canon import canonical

    out = canonical(puzzle).to_dict()
    yield out


def _api_show(
    puzzle: Puzzle, meta: dict[str, Any], body: Mapping[str, Any], limit: float
) -> Messages:
    n = puzzle.n
    yield {
        "title": meta["title"],
        "ruleset": meta["ruleset"],
        "notes": meta["notes"],
        "puzzle": puzzle.line(),
        "rules": puzzle.rules.spec(),
        "lines": puzzle.rules.describe() + [c.describe(n) for c in puzzle.rules.constraints],
        "givens": sum(1 for v in puzzle.cells if v),
    }


_API: dict[str, Callable[[Puzzle, dict[str, Any], Mapping[str, Any], float], Messages]] = {
    "solve": _api_solve,
    "check": _api_check,
    "count": _api_count,
    "candidates": _api_candidates,
    "explain": _api_explain,
    "draw": _api_draw,
    "certify": _api_certify,
    "canon": _api_canon,
    "show": _api_show,
}


def run_job(request: Mapping[str, Any]) -> Messages:
    """A worker's request (``{"ws": COMMAND, ...}`` or ``{"api": NAME, ...}``) run."""
    limit = float(request.get("time_limit", 5.0))
    if "ws" in request:
        yield from ws_job(str(request["ws"]), request.get("data"), limit)
    else:
        yield from api_job(str(request.get("api")), request.get("body", {}), limit)


__all__ = ["API_ENDPOINTS", "WS_COMMANDS", "BadRequestError", "PuzzleError", "run_job"]
