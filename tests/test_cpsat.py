"""The CP-SAT backend against the reference oracle, with real solvers (no mocks)."""

from __future__ import annotations

import os
import random
import signal
import threading
from functools import cache
from itertools import permutations
from typing import Any

import pytest
from conftest import read_csv, read_lines
from google.protobuf import text_format
from ortools.sat import cp_model_pb2
from ortools.sat.python import cp_model
from ortools.sat.python import cp_model_helper as cmh

from cpsudoku import Status, parse
from cpsudoku.encode.cpsat import (
    KINDS,
    ModelKind,
    add_exclusion,
    build_model,
    decode,
    free_domains,
    given_domains,
    rules_model,
    set_domains,
    to_proto_text,
)
from cpsudoku.encode.export import export
from cpsudoku.engines import REGISTRY, create_backend
from cpsudoku.engines.cpsat import CpSatBackend, Outcome, _run, translate_status
from cpsudoku.model.errors import RulesError, SolverError, UnknownBackendError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

ORACLE = "backtrack"
#: Every 9x9 puzzle file of tests/data.
NINE = [
    "clue17_royle_200.txt",
    "easy_kaggle1m_200.txt",
    "easy_norvig50.txt",
    "forum_hardest_1106_60.txt",
    "multisolution_tdoku.txt",
    "norvig_hardest.txt",
    "nosolution_tdoku.txt",
    "serg_multisolution_100.txt",
    "top95.txt",
]
VARIANTS = [
    "cpsat:integer",
    "cpsat:exclude",
    "cpsat:integer:exclude",
    "cpsat:sample",
    "cpsat:textbook",
]


@cache
def oracle_statuses(name: str) -> list[Status]:
    oracle = create_backend(ORACLE)
    return [oracle.solve(parse(line)).status for line in read_lines(name)]


def check_file(spec: str, name: str, limit: int | None = None) -> None:
    expected = oracle_statuses(name)[:limit]
    with create_backend(spec) as backend:
        for line, status in zip(read_lines(name, limit), expected, strict=True):
            puzzle = parse(line)
            r = backend.solve(puzzle)
            assert r.status is status, (spec, line)
            if r.solution is not None:
                assert is_solution(puzzle, r.solution)


def test_registered() -> None:
    assert (REGISTRY["cpsat"].module, REGISTRY["cpsat"].cls) == (
        "cpsudoku.engines.cpsat",
        "CpSatBackend",
    )
    assert next(iter(REGISTRY)) != "cpsat"  # the default backend is someone else's call


@pytest.mark.parametrize("name", NINE)
def test_default_matches_oracle_on_every_puzzle(name: str) -> None:
    check_file("cpsat", name)


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("name", NINE)
def test_variants_match_oracle(spec: str, name: str) -> None:
    check_file(spec, name, 12)


@pytest.mark.parametrize("spec", ["cpsat:integer"])  # cpsat itself: the contract suite
@pytest.mark.parametrize(
    "case", read_csv("tdoku_test_puzzles.meta.csv"), ids=lambda c: c["puzzle"][:12]
)
def test_tdoku_solution_counts_exact(spec: str, case: dict[str, str]) -> None:
    found = create_backend(spec).count(parse(case["puzzle"]), limit=1000)
    assert found.count == int(case["solution_count"])
    assert found.complete
    if found.count == 1:
        r = create_backend(spec).solve(parse(case["puzzle"]))
        assert str(r.solution) == case["solution"]


@pytest.mark.parametrize(
    "spec", ["cpsat:exclude", "cpsat:integer:exclude", "cpsat:sample", "cpsat:textbook"]
)
def test_small_counts_by_every_method(spec: str) -> None:
    cases = [c for c in read_csv("tdoku_test_puzzles.meta.csv") if int(c["solution_count"]) <= 12]
    with create_backend(spec) as backend:
        for case in cases[:8]:
            found = backend.count(parse(case["puzzle"]), limit=1000)
            assert found.count == int(case["solution_count"]), case["puzzle"]
            assert found.complete


@pytest.mark.parametrize("spec", ["cpsat:integer", "cpsat:exclude", "cpsat:sample"])
def test_empty_grids_count_to_the_limit(spec: str) -> None:
    backend = create_backend(spec)
    limit = 40 if "exclude" in spec else 1000  # one solve per solution: keep it short
    assert backend.count(parse("." * 16), limit=limit).count == min(288, limit)
    found = backend.count(parse("." * 81), limit=5)
    assert found.count == 5
    assert not found.complete
    assert not found.timed_out
    assert backend.solve(parse("." * 81)).status is Status.MULTIPLE


def test_big_grids_unique() -> None:
    backend = create_backend("cpsat")
    for name in ("16x16_vukr_6.txt", "25x25_misc_3.txt"):
        for line in read_lines(name, 2):
            puzzle = parse(line)
            r = backend.solve(puzzle)
            assert r.status is Status.UNIQUE
            assert r.solution is not None
            assert is_solution(puzzle, r.solution)
    parallel = create_backend("cpsat:parallel")
    puzzle = parse(read_lines("25x25_misc_3.txt")[0])
    assert parallel.solve(puzzle, unique=False).status is Status.SOLVED  # all cores
    assert parallel.solve(puzzle).status is Status.UNIQUE


@pytest.mark.parametrize(
    "spec", ["cpsat", "cpsat:integer:exclude", "cpsat:sample", "cpsat:textbook"]
)
def test_timeout_then_next_puzzle_still_right(spec: str) -> None:
    backend = create_backend(spec)
    empty = parse("." * 625)
    assert backend.solve(empty, time_limit=0.001).status is Status.TIMEOUT
    assert backend.solve(empty, time_limit=0).status is Status.TIMEOUT
    found = backend.count(empty, limit=10**6, time_limit=0.001)
    assert found.timed_out
    assert not found.complete
    # The domains narrowed for a puzzle are widened again, also after a timeout.
    for line in read_lines("top95.txt", 3) + read_lines("25x25_misc_3.txt", 1):
        r = backend.solve(parse(line))
        assert r.status is Status.UNIQUE
        assert r.solution is not None
        assert is_solution(parse(line), r.solution)


def test_stats() -> None:
    r = create_backend("cpsat").solve(parse(read_lines("top95.txt")[0]))
    assert set(r.stats) == {"branches", "conflicts"}
    assert r.stats["branches"] > 0
    r = create_backend("cpsat:exclude").solve(parse(read_lines("top95.txt")[0]))
    assert r.stats["branches"] > 0


def test_rules_are_left_untouched() -> None:
    backend = create_backend("cpsat")
    puzzle = parse(read_lines("top95.txt")[0])
    backend.solve(puzzle)
    backend.solve(puzzle)  # rules met twice keep their model
    proto = backend._rules[puzzle.rules, backend.kind_for(puzzle.rules)]
    assert str(proto) == str(rules_model(puzzle.rules, "boolean").proto)


def test_models_kept_scratched_and_dropped_stay_right(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rules met once are written into one scratch proto, rules met again get a proto
    # of their own, the oldest dropped and its storage reused: interleave rule sets,
    # more than are kept, and check every answer against the oracle.
    monkeypatch.setattr("cpsudoku.engines.cpsat.KEPT_MODELS", 2)
    rng = random.Random(3)
    rule_sets = []
    while len(rule_sets) < 4:
        grid = rng.choice(GRIDS_4X4)
        cages = [_random_rule(rng, grid) for _ in range(2)]
        try:
            rule_sets.append(Rules.from_spec({"size": 4, "box": "2x2", "constraints": cages}))
        except RulesError:
            continue
    oracle = create_backend(ORACLE)
    with create_backend("cpsat:boolean") as backend:
        for k in [0, 1, 0, 2, 3, 1, 0, 2, 2, 3, 0, 1]:
            puzzle = Puzzle(rule_sets[k], (0,) * 16)
            assert backend.count(puzzle, limit=300).count == oracle.count(puzzle, limit=300).count
        assert len(backend._rules) <= 2


def test_variant_words() -> None:
    assert create_backend("cpsat").kind == "boolean"
    assert create_backend("cpsat:integer:exclude").counting == "exclude"
    assert create_backend("cpsat:boolean:callback").spec == "cpsat:boolean:callback"
    for bad in (
        "cpsat:fast",
        "cpsat:boolean:integer",
        "cpsat:exclude:callback",
        "cpsat:sample:integer",
        "cpsat:textbook:exclude",
        "cpsat:textbook:sample",
    ):
        with pytest.raises(UnknownBackendError):
            create_backend(bad)


# ---- status translation, with statuses from real solves -------------------------------


def solve_proto(proto: cmh.CpModelProto, **params: object) -> cmh.CpSolverStatus:
    p = cmh.SatParameters()
    p.num_workers = 1
    p.catch_sigint_signal = False  # CP-SAT's handler leaves SIGINT at SIG_DFL afterwards
    for key, value in params.items():
        setattr(p, key, value)
    return _run(proto, p, None, False).status


def test_model_invalid_raises_with_the_validation_text() -> None:
    model = cp_model.CpModel()
    x = model.new_int_var(1, 9, "x")
    model.add_all_different([x])
    model.proto.variables[0].domain[0] = 10  # lower bound above the upper bound
    status = solve_proto(model.proto)
    assert status == cmh.CpSolverStatus.MODEL_INVALID
    with pytest.raises(SolverError, match="invalid") as info:
        translate_status(status, model.proto)
    assert cmh.CpSatHelper.validate_model(model.proto) in str(info.value)


def test_invalid_parameters_are_named() -> None:
    backend = CpSatBackend(parameters={"at_most_one_max_expansion_size": 0})
    with pytest.raises(SolverError, match="at_most_one_max_expansion_size"):
        backend.solve(parse(read_lines("top95.txt")[0]))


def test_other_statuses_translate() -> None:
    puzzle = parse(read_lines("top95.txt")[0])
    model = build_model(puzzle, "boolean")
    assert translate_status(solve_proto(model.proto), model.proto) is Outcome.COMPLETE
    hopeless = build_model(parse(read_lines("nosolution_tdoku.txt")[0]), "boolean")
    assert translate_status(solve_proto(hopeless.proto), hopeless.proto) is Outcome.NONE
    big = build_model(parse("." * 625), "boolean")
    status = solve_proto(big.proto, max_time_in_seconds=0.0)
    assert translate_status(status, big.proto) is Outcome.UNKNOWN
    lin = build_model(parse("." * 81), "integer")
    lin.maximize(lin.get_int_var_from_proto_index(0))  # stopped before the proof: FEASIBLE
    status = solve_proto(lin.proto, stop_after_first_solution=True)
    assert translate_status(status, lin.proto) is Outcome.STOPPED


# ---- the encoder ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_encoder_round_trip_through_domains(kind: ModelKind) -> None:
    puzzle = parse(read_lines("clue17_royle_200.txt")[0])
    rules = rules_model(puzzle.rules, kind)
    before = str(rules.proto)
    set_domains(rules.proto, given_domains(puzzle, kind))
    assert str(rules.proto) == str(build_model(puzzle, kind).proto)
    set_domains(rules.proto, free_domains(puzzle, kind))
    assert str(rules.proto) == before


@pytest.mark.parametrize("kind", KINDS)
def test_exclusion_forbids_exactly_that_grid(kind: ModelKind) -> None:
    puzzle = parse(read_lines("multisolution_tdoku.txt")[0])
    model = build_model(puzzle, kind)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    assert solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    first = decode(solver.response_proto.solution, puzzle.rules, kind, puzzle)
    assert is_solution(puzzle, Puzzle(puzzle.rules, first))
    add_exclusion(model, puzzle, first, kind)
    assert solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    second = decode(solver.response_proto.solution, puzzle.rules, kind, puzzle)
    assert second != first
    assert is_solution(puzzle, Puzzle(puzzle.rules, second))


@pytest.mark.parametrize("kind", KINDS)
def test_export_round_trip(kind: ModelKind) -> None:
    line = read_lines("top95.txt")[1]
    puzzle = parse(line)
    text = to_proto_text(puzzle, kind)
    parsed = text_format.Parse(text, cp_model_pb2.CpModelProto())  # the stock protobuf parser
    assert len(parsed.variables) == (81 if kind == "integer" else 729)
    assert parsed.variables[0].name in ("r1c1", "r1c1d1")
    model = cp_model.CpModel()
    model.proto.parse_text_format(text_format.MessageToString(parsed))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    assert solver.solve(model) == cp_model.OPTIMAL
    grid = decode(solver.response_proto.solution, puzzle.rules, kind)
    assert grid == create_backend(ORACLE).solve(puzzle).solution.cells  # type: ignore[union-attr]


def test_export_command_uses_the_integer_model() -> None:
    line = read_lines("top95.txt")[0]
    text = export(line, "cpsat")
    parsed = text_format.Parse(text, cp_model_pb2.CpModelProto())
    assert len(parsed.variables) == 81
    assert sum(c.HasField("all_diff") for c in parsed.constraints) == 27


# ---- both models on every rule kind, against brute force ------------------------------


def _grids_4x4() -> list[tuple[int, ...]]:
    """The 288 grids of 4x4 Sudoku: rows as permutations, columns and boxes checked."""
    rows = list(permutations(range(1, 5)))
    out = []
    for a in rows:
        for b in rows:
            if any(x == y for x, y in zip(a, b, strict=True)) or {*a[:2], *b[:2]} != {1, 2, 3, 4}:
                continue
            for c in rows:
                for d in rows:
                    g = a + b + c + d
                    cols = all(len({g[r * 4 + k] for r in range(4)}) == 4 for k in range(4))
                    boxes = all(
                        len({g[(br + dr) * 4 + bc + dc] for dr in (0, 1) for dc in (0, 1)}) == 4
                        for br in (0, 2)
                        for bc in (0, 2)
                    )
                    if cols and boxes:
                        out.append(g)
    return out


GRIDS_4X4 = _grids_4x4()
#: Every rule kind the CP-SAT models take; cages thrice, for their many shapes.
KINDS_4X4 = (
    *("cage", "cage", "cage", "renban", "anti-knight", "anti-king", "non-consecutive"),
    *("thermometer", "whisper", "palindrome", "kropki-white", "kropki-black", "x", "v"),
    *("negative", "even", "odd", "candidates", "little-killer", "arrow", "sandwich"),
)
DIAGONALS = [[0, 5, 10, 15], [3, 6, 9, 12], [1, 6, 11], [4, 9, 14], [2, 5, 8], [7, 10, 13]]


def _random_rule(rng: random.Random, grid: tuple[int, ...]) -> dict[str, Any]:
    """One rule of any kind the CP-SAT models take, on 4x4 cells (sums often from ``grid``)."""
    kind = rng.choice(KINDS_4X4)
    cells = rng.sample(range(16), rng.randint(1, 4))
    if kind == "cage":
        total = sum(grid[i] for i in cells) + rng.choice([0, 0, 0, 1, -1])
        return {"kind": kind, "cells": cells, **({"sum": total} if rng.random() < 0.8 else {})}
    if kind in ("anti-knight", "anti-king", "non-consecutive"):
        return {"kind": kind}
    if kind in ("kropki-white", "kropki-black", "x", "v"):
        return {"kind": kind, "cells": rng.sample(range(16), 2)}
    if kind in ("renban", "thermometer", "whisper", "palindrome"):
        return {"kind": kind, "cells": rng.sample(range(16), rng.randint(2, 4))}
    if kind == "negative":
        return {"kind": kind, "of": rng.choice(["kropki-white", "kropki-black", "x", "v"])}
    if kind in ("even", "odd"):
        return {"kind": kind, "cells": cells}
    if kind == "candidates":
        values = ["".join(sorted(rng.sample("1234", rng.randint(1, 3)))) for _ in cells]
        return {"kind": kind, "cells": cells, "values": values}
    if kind == "little-killer":
        line = rng.choice(DIAGONALS)
        return {"kind": kind, "cells": line, "sum": sum(grid[i] for i in line)}
    if kind == "arrow":
        return {
            "kind": kind,
            "circle": cells[:1],
            "cells": rng.sample(sorted(set(range(16)) - {cells[0]}), 2),
        }
    line = rng.randrange(4)
    values = [grid[line * 4 + k] for k in range(4)]
    a, b = sorted((values.index(1), values.index(4)))
    return {"kind": kind, "row": line + 1, "sum": sum(values[a + 1 : b])}


def test_both_models_count_every_rule_kind_as_brute_force() -> None:
    # The Boolean model writes every rule into the proto itself, the integer model
    # through the CpModel API: each against the verifier on all 288 grids, with extra
    # regions (short and full) and givens now and then.
    rng = random.Random(11)
    kinds_seen: set[str] = set()
    checked = 0
    while checked < 120:
        grid = rng.choice(GRIDS_4X4)
        spec: dict[str, Any] = {"size": 4, "box": "2x2"}
        spec["constraints"] = [_random_rule(rng, grid) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            spec["extra"] = [{"cells": rng.choice([rng.sample(range(16), 3), DIAGONALS[0]])}]
        try:
            rules = Rules.from_spec(spec)
        except RulesError:  # a sum no cells make, a thermometer too long...: refused
            continue
        cells = [0] * 16
        for i in rng.sample(range(16), rng.choice([0, 0, 2])):
            cells[i] = grid[i]
        puzzle = Puzzle(rules, tuple(cells))
        expected = sum(is_solution(puzzle, Puzzle(rules, g)) for g in GRIDS_4X4)
        for spec_name in ("cpsat", "cpsat:boolean", "cpsat:integer", "cpsat:boolean:exclude"):
            limit = 12 if "exclude" in spec_name else 300
            with create_backend(spec_name) as engine:
                found = engine.count(puzzle, limit=limit)
            assert found.count == min(expected, limit), (spec_name, rules.spec(), cells)
        kinds_seen.update(c.kind for c in rules.constraints)
        checked += 1
    assert kinds_seen == set(KINDS_4X4)  # every kind came up


# ---- Ctrl-C on a long (big-grid) search ---------------------------------------------


def test_ctrl_c_stops_a_big_search_and_the_backend_still_works() -> None:
    backend = create_backend("cpsat")
    empty = parse("." * 625)
    stopped = threading.Event()

    def press_ctrl_c() -> None:
        # Again after two seconds, as a user would: an interrupt that lands while the
        # main thread runs a finalizer is printed and dropped by Python ("Exception
        # ignored"). The search stops within milliseconds of the one that arrives.
        pause = 0.3
        while not stopped.wait(pause):
            os.kill(os.getpid(), signal.SIGINT)
            pause = 2.0

    presser = threading.Thread(target=press_ctrl_c, daemon=True)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            backend.count(empty, limit=10**9, time_limit=30)
    finally:
        stopped.set()
        presser.join()
    line = read_lines("25x25_misc_3.txt")[0]
    assert backend.solve(parse(line)).status is Status.UNIQUE
