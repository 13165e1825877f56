"""The SAT backend against the oracle, on every 9x9 test file and on bigger grids."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import random_grid, read_csv, read_lines
from pysat.formula import CNF
from pysat.solvers import Solver

import cpsudoku.engines.sat as sat_module
from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.encode.cnf import ENCODINGS, decode
from cpsudoku.engines import DEFAULT_BACKEND, Backend, create_backend
from cpsudoku.engines.sat import DEFAULT_SOLVER, SatBackend
from cpsudoku.model.errors import (
    BackendUnavailableError,
    ConflictingGivensError,
    UnknownBackendError,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

BENCHMARK_DATA = Path(__file__).parent.parent / "benchmarks" / "data"

#: One solver per way of honouring a time limit: conflict budget, interrupt, fallback.
LIMIT_SOLVERS = ["cadical153", "glucose4", "lingeling"]

FILES_9X9 = [
    "top95.txt",
    "norvig_hardest.txt",
    "clue17_royle_200.txt",
    "easy_norvig50.txt",
    "easy_kaggle1m_200.txt",
    "forum_hardest_1106_60.txt",
    "nosolution_tdoku.txt",
    "multisolution_tdoku.txt",
    "serg_multisolution_100.txt",
]


@pytest.fixture(scope="module")
def sat() -> Iterator[SatBackend]:
    """One default SAT backend for the module: the incremental state is the point."""
    with SatBackend() as backend:
        yield backend


@pytest.fixture(scope="module")
def oracle() -> Backend:
    return create_backend("backtrack")


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES_9X9)
def test_same_status_as_the_oracle(name: str, sat: SatBackend, oracle: Backend) -> None:
    for line in read_lines(name):
        puzzle = parse(line)
        got, want = sat.solve(puzzle), oracle.solve(puzzle)
        assert got.status is want.status, line
        if got.solution is not None:
            assert is_solution(puzzle, got.solution)
        if want.status is Status.UNIQUE:
            assert got.solution == want.solution


@pytest.mark.parametrize(
    "spec",
    ["sat", "sat:fresh", "sat:reduced", "sat:glucose4", "sat:minimal", "sat:fresh:kissat404"],
)
def test_clashing_givens_are_invalid_in_every_mode(spec: str) -> None:
    """Incremental and fresh modes check the givens only when the search finds nothing
    (``clash_safe``); ``reduced`` checks first. All must say ``invalid``, with the
    message of the up-front check, and solve the next puzzle right."""
    clash = parse("11" + "." * 79, check=False)
    with pytest.raises(ConflictingGivensError, match="appears twice in row 1") as up_front:
        clash.check()
    unique = parse(read_lines("top95.txt")[0])
    with create_backend(spec) as backend:
        assert backend.clash_safe is (not spec.startswith("sat:reduced"))
        for _ in range(2):
            r = backend.solve(clash)
            assert r.status is Status.INVALID
            assert r.error == str(up_front.value)
            assert backend.solve(unique).status is Status.UNIQUE
        assert backend.solve(clash, time_limit=5).status is Status.INVALID


def interleaved_checks(backend: SatBackend) -> None:
    """Unique, multiple, unsolvable, unique, timeout, unique ... on one instance."""
    unique = [parse(line) for line in read_lines("top95.txt", 4)]
    multiple = parse(read_lines("multisolution_tdoku.txt", 1)[0])
    unsolvable = parse(read_lines("nosolution_tdoku.txt", 1)[0])
    oracle = create_backend("backtrack")
    answers = {p: oracle.solve(p).solution for p in unique}

    def check_unique(p: Puzzle) -> None:
        r = backend.solve(p)
        assert r.status is Status.UNIQUE
        assert r.solution == answers[p]

    check_unique(unique[0])
    assert backend.solve(multiple).status is Status.MULTIPLE
    assert backend.solve(unsolvable).status is Status.UNSOLVABLE
    check_unique(unique[1])
    # A count of the empty grid cannot finish: it is stopped by the time limit with
    # blocking clauses and a selector live in the solver (1 s: the one-solver-per-puzzle
    # modes load the whole formula before the first model, and a stall of a few tenths
    # in a full-suite run must still leave time to find one) ...
    stopped = backend.count(parse("." * 81), limit=10**9, time_limit=1.0)
    assert stopped.timed_out
    assert not stopped.complete
    assert stopped.count >= 1
    # ... and a time limit that has already run out is a timeout before any answer.
    r = backend.solve(unique[2], time_limit=0.0)
    assert r.status is Status.TIMEOUT
    assert r.solution is None
    check_unique(unique[2])
    assert backend.solve(multiple, time_limit=30).status is Status.MULTIPLE
    check_unique(unique[3])
    assert backend.solve(unsolvable, time_limit=30).status is Status.UNSOLVABLE
    check_unique(unique[0])
    assert backend.solve(unique[1], unique=False).status is Status.SOLVED
    check_unique(unique[1])


@pytest.mark.parametrize("solver", LIMIT_SOLVERS)
def test_interleaved_statuses_on_one_instance(solver: str) -> None:
    with SatBackend([solver]) as backend:
        interleaved_checks(backend)


@pytest.mark.parametrize("mode", ["fresh", "reduced"])
def test_interleaved_statuses_one_solver_per_puzzle(mode: str) -> None:
    with SatBackend([mode]) as backend:
        interleaved_checks(backend)


@pytest.mark.parametrize("solver", ["cadical153", "minisat22"])
@pytest.mark.parametrize("time_limit", [None, 60.0])
def test_hard_puzzles_escalate_to_the_reduced_formula(
    solver: str, time_limit: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sat_module, "ESCALATE_CONFLICTS", 1)
    oracle = create_backend("backtrack")
    lines = read_lines("top95.txt", 3) + read_lines("nosolution_tdoku.txt", 2)
    lines += read_lines("multisolution_tdoku.txt", 2)
    escalated = 0
    with SatBackend([solver]) as backend:
        for line in lines:
            puzzle = parse(line)
            r, want = backend.solve(puzzle, time_limit=time_limit), oracle.solve(puzzle)
            assert r.status is want.status
            if want.status is Status.UNIQUE:
                assert r.solution == want.solution
            escalated += r.stats.get("escalated", 0)
        assert escalated >= 3
        three = next(
            c for c in read_csv("tdoku_test_puzzles.meta.csv") if c["solution_count"] == "3"
        )
        assert backend.count(parse(three["puzzle"]), limit=1000).count == 3
        interleaved_checks(backend)


@pytest.mark.parametrize("solver", ["cadical153", "minisat22"])
@pytest.mark.parametrize("time_limit", [None, 60.0])
def test_givens_behind_one_selector_give_the_same_answers(
    solver: str, time_limit: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Puzzles past the first call's budget move their givens behind one selector:
    unique, multiple and unsolvable puzzles alike, interleaved with easy ones, and
    nothing of a retired selector reaches the next puzzle."""
    monkeypatch.setattr(sat_module, "ONE_LEVEL_CONFLICTS", 1)
    # A time-limited CaDiCaL call runs in slices sized from the conflict rate measured
    # so far, so the solver's learnt state, and which later puzzle needs a second
    # conflict, would depend on the clock (one run in ten saw no multiple-solution
    # puzzle take the path). One slice per call keeps every run the same.
    monkeypatch.setattr(sat_module, "FIRST_SLICE", 10**9)
    oracle = create_backend("backtrack")
    hard = read_lines("forum_hardest_1106_60.txt", 8) + read_lines("nosolution_tdoku.txt", 4)
    hard += read_lines("multisolution_tdoku.txt", 4) + read_lines("serg_multisolution_100.txt", 4)
    easy = read_lines("easy_kaggle1m_200.txt", len(hard))
    one_level = {Status.UNIQUE: 0, Status.MULTIPLE: 0, Status.UNSOLVABLE: 0}
    with SatBackend([solver]) as backend:
        for h, e in zip(hard, easy, strict=True):
            for line in (h, e):
                puzzle = parse(line)
                got, want = backend.solve(puzzle, time_limit=time_limit), oracle.solve(puzzle)
                assert got.status is want.status, line
                if want.status is Status.UNIQUE:
                    assert got.solution == want.solution
                if "one_level" in got.stats:
                    one_level[got.status] += 1
        assert all(one_level.values()), one_level  # every kind took the path
        three = next(
            c for c in read_csv("tdoku_test_puzzles.meta.csv") if c["solution_count"] == "3"
        )
        assert backend.count(parse(three["puzzle"]), limit=1000).count == 3
        interleaved_checks(backend)


def test_the_hardest_puzzles_take_one_level_by_default(sat: SatBackend) -> None:
    stats = [sat.solve(parse(line)).stats for line in read_lines("forum_hardest_1106_60.txt", 5)]
    assert sum("one_level" in s for s in stats) >= 4
    easy = sat.solve(parse(read_lines("easy_kaggle1m_200.txt", 1)[0])).stats
    assert "one_level" not in easy


def test_fallback_is_reported_for_solvers_that_cannot_stop() -> None:
    with SatBackend(["lingeling"]) as backend:
        assert not backend.can_stop
        assert (
            "fallback" in backend.solve(parse(read_lines("top95.txt", 1)[0]), time_limit=30).stats
        )
        assert "fallback" not in backend.solve(parse(read_lines("top95.txt", 1)[0])).stats


def test_timeout_on_a_hard_25x25_then_the_next_puzzle_is_solved() -> None:
    # Alain Frisch's minimal 25x25 (Gecode's instance 18): minutes for CaDiCaL.
    hard = parse((BENCHMARK_DATA / "25x25_frisch.txt").read_text().splitlines()[0])
    easy = parse(read_lines("25x25_misc_3.txt", 1)[0])
    with SatBackend() as backend:
        r = backend.solve(hard, time_limit=0.5)
        assert r.status is Status.TIMEOUT
        assert r.error == "time limit reached"
        r = backend.solve(easy)
        assert r.status is Status.UNIQUE
        assert r.solution is not None
        assert is_solution(easy, r.solution)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_each_encoding_on_small_grids(encoding: str) -> None:
    rng = random.Random(len(encoding))
    with SatBackend([encoding]) as backend:
        assert backend.count(parse("." * 16), limit=1000).count == 288
        for br, bc in [(2, 2), (2, 3), (3, 2), (2, 4)]:
            g = Rules.classic(br, bc)
            grid = random_grid(g, rng)
            cells = [0 if rng.random() < 0.6 else v for v in grid.cells]
            puzzle = Puzzle(g, tuple(cells))
            want = create_backend("backtrack").count(puzzle, limit=20).count
            assert backend.count(puzzle, limit=20).count == want
            r = backend.solve(puzzle)
            assert r.status is (Status.UNIQUE if want == 1 else Status.MULTIPLE)
            assert r.solution is not None
            assert is_solution(puzzle, r.solution)


def test_the_default_at_most_one_depends_on_the_grid_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pairwise up to PAIRWISE_UP_TO, the sequential counter above it; a named one wins.
    # Lowered here so that a 6x6 grid stands for the big ones.
    monkeypatch.setattr(sat_module, "PAIRWISE_UP_TO", 4)
    rng = random.Random(6)
    oracle = create_backend("backtrack")
    for words, amo4, amo6 in [
        ([], "pairwise", "seqcounter"),
        (["pairwise"], "pairwise", "pairwise"),
        (["ladder"], "ladder", "ladder"),
    ]:
        with SatBackend(words) as backend:
            for g, amo in [(Rules.classic(2, 2), amo4), (Rules.classic(2, 3), amo6)]:
                grid = random_grid(g, rng)
                puzzle = Puzzle(g, tuple(0 if rng.random() < 0.5 else v for v in grid.cells))
                r = backend.solve(puzzle)
                assert r.status is oracle.solve(puzzle).status
                assert r.solution is not None
                assert is_solution(puzzle, r.solution)
                assert backend._engines[g].clauses.at_most_one == amo


@pytest.mark.parametrize(
    "spec",
    [
        "extended",
        "efficient",
        "minimal",
        "extended:seqcounter",
        "efficient:ladder",
        "fresh",
        "reduced",
        "reduced:minimal",
    ],
)
def test_big_grids(spec: str) -> None:
    lines = read_lines("16x16_vukr_6.txt", 2)
    if spec in ("extended", "extended:seqcounter", "reduced"):
        lines += read_lines("25x25_misc_3.txt", 1)
    with SatBackend(spec.split(":")) as backend:
        for line in lines:
            puzzle = parse(line)
            r = backend.solve(puzzle)
            assert r.status is Status.UNIQUE, line
            assert r.solution is not None
            assert is_solution(puzzle, r.solution)


@pytest.mark.parametrize("spec", ["sat:extended:cadical153", "sat:fresh", "sat:minisat22"])
def test_specs_through_the_registry(spec: str) -> None:
    backend = create_backend(spec)
    assert backend.spec == spec
    r = backend.solve(parse(read_lines("top95.txt", 1)[0]))
    assert r.status is Status.UNIQUE
    assert r.backend == spec  # the whole spec that answered


def test_sat_is_the_default_backend() -> None:
    assert DEFAULT_BACKEND == "sat"


def test_aliases_and_word_order() -> None:
    backend = SatBackend(["cd15", "extended"])
    assert backend.solver == "cadical153"
    assert backend.spec == "sat:cadical153:extended"
    assert SatBackend(["G4"]).solver == "glucose4"
    assert SatBackend().solver == DEFAULT_SOLVER


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["textbook"], "no variant 'textbook'"),
        (["minimal", "extended"], "one encoding"),
        (["glucose4", "minisat22"], "one solver"),
        (["kissat404"], "sat:reduced:kissat404"),
        (["fresh", "reduced"], "one mode"),
    ],
)
def test_bad_specs_are_refused(words: list[str], message: str) -> None:
    with pytest.raises(UnknownBackendError, match=message):
        SatBackend(words)


def test_unavailable_solver_is_a_clear_error() -> None:
    with pytest.raises(BackendUnavailableError, match="not available"):
        SatBackend(["minisatgh"])


def test_kissat_runs_fresh_and_falls_back_for_time_limits() -> None:
    puzzle = parse(read_lines("top95.txt", 1)[0])
    three = next(c for c in read_csv("tdoku_test_puzzles.meta.csv") if c["solution_count"] == "3")
    multiple = parse(three["puzzle"])
    with SatBackend(["fresh", "kissat404"]) as backend:
        assert backend.solve(puzzle).status is Status.UNIQUE
        assert backend.solve(multiple).status is Status.MULTIPLE
        assert backend.count(multiple, limit=1000).count == 3
        r = backend.solve(puzzle, time_limit=30)
        assert r.status is Status.UNIQUE
        assert r.stats["fallback"] == 1


def test_the_fresh_baseline_encodes_every_puzzle_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sat:fresh`` is the issue's textbook baseline: a new CNF and a new solver each time."""
    encoded: list[int] = []
    real = sat_module.encode_rules

    def spy(*args: object) -> object:
        encoded.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sat_module, "encode_rules", spy)
    oracle = create_backend("backtrack")
    puzzles = [parse(line) for line in read_lines("top95.txt", 3)]
    with SatBackend(["fresh"]) as backend:
        for puzzle in puzzles:
            got = backend.solve(puzzle)
            assert got.status is Status.UNIQUE
            assert got.solution == oracle.solve(puzzle).solution
    assert len(encoded) == len(puzzles)


def test_stats_are_per_puzzle(sat: SatBackend) -> None:
    hard = parse(read_lines("forum_hardest_1106_60.txt", 1)[0])
    first = sat.solve(hard).stats
    assert set(first) >= {"conflicts", "decisions", "propagations"}
    assert first["propagations"] > 0
    easy = sat.solve(parse(read_lines("easy_kaggle1m_200.txt", 1)[0])).stats
    assert easy["conflicts"] < 5  # a delta for this puzzle, not the solver's running total


@pytest.mark.parametrize(
    "solver", [*sorted(sat_module.PROPAGATION_PROOF), "cadical195", "minisat22"]
)
def test_propagation_alone_proves_uniqueness(solver: str) -> None:
    """A puzzle that unit propagation decides is unique without a second call; a
    multi-solution puzzle never looks decided, whatever the instance solved before."""
    oracle = create_backend("backtrack")
    easy = [parse(line) for line in read_lines("easy_kaggle1m_200.txt", 30)]
    multiple = [parse(line) for line in read_lines("serg_multisolution_100.txt", 30)]
    hard = [parse(line) for line in read_lines("forum_hardest_1106_60.txt", 5)]
    forced = 0
    with SatBackend([solver]) as backend:
        for e, m in zip(easy, multiple, strict=True):
            got = backend.solve(e)
            assert got.status is Status.UNIQUE
            assert got.solution == oracle.solve(e).solution
            forced += got.stats.get("forced", 0)
            assert backend.solve(m).status is Status.MULTIPLE
            counted = backend.count(e, limit=5)
            assert (counted.count, counted.complete) == (1, True)
            assert backend.count(m, limit=5).count >= 2
        for h in hard:  # these need search: no shortcut
            got = backend.solve(h)
            assert got.status is Status.UNIQUE
            assert "forced" not in got.stats
    if solver in sat_module.PROPAGATION_PROOF:
        assert forced >= 25  # easy puzzles: singles decide nearly all of them
    else:
        assert forced == 0  # solvers whose counters cannot tell never take the shortcut


def test_long_runs_rebuild_the_solver_and_stay_right(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sat_module, "MAX_SELECTORS", 7)
    with SatBackend() as backend:
        for line in read_lines("clue17_royle_200.txt", 30):
            assert backend.solve(parse(line)).status is Status.UNIQUE


def test_dimacs_export_solves_to_the_backend_solution(
    sat: SatBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    line = read_lines("top95.txt", 1)[0]
    assert main(["export", line, "--to", "dimacs"]) == 0
    text = capsys.readouterr().out
    cnf = CNF(from_string=text)
    puzzle = parse(line)
    with Solver("minisat22", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        cells = decode(s.get_model(), puzzle.rules)
    r = sat.solve(puzzle)
    assert r.solution is not None
    assert cells == r.solution.cells


def test_cli_sat_solver_option(capsys: pytest.CaptureFixture[str]) -> None:
    line = read_lines("top95.txt", 1)[0]
    assert main(["solve", line, "--sat-solver", "glucose4", "--json"]) == 0
    assert '"status": "unique"' in capsys.readouterr().out
    assert main(["count", "." * 16, "--sat-solver", "minisat22"]) == 0
    assert "288 solutions" in capsys.readouterr().out
    assert main(["solve", line, "--backend", "backtrack", "--sat-solver", "glucose4"]) == 2
    assert "--sat-solver" in capsys.readouterr().err


def test_multiple_solution_choice_does_not_depend_on_history() -> None:
    lines = read_lines("serg_multisolution_100.txt", 12) + read_lines("top95.txt", 6)
    with SatBackend() as forward, SatBackend() as backward:
        ahead = {line: forward.solve(parse(line)) for line in lines}
        for line in reversed(lines):
            r = backward.solve(parse(line))
            assert r.status is ahead[line].status
            assert r.solution == ahead[line].solution


def test_big_grids_default_to_the_lighter_at_most_one() -> None:
    from cpsudoku.engines.sat import default_at_most_one

    assert [default_at_most_one(n) for n in (9, 16, 25, 30, 36)] == ["pairwise"] * 3 + [
        "seqcounter"
    ] * 2


def test_an_empty_36x36_count_stays_under_500_mb(tmp_path: Path) -> None:
    """The default sat engine on the biggest common grid (it took 1.5 GB with pairwise)."""
    import subprocess
    import sys

    empty = tmp_path / "empty36.txt"
    empty.write_text(" ".join(["0"] * 1296) + "\n")
    # A fresh parent, whose only child is the count: its children's peak is the count's.
    measure = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'cpsudoku', 'count', sys.argv[1],"
        " '--limit', '2'], capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(done.stdout, done.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", measure, str(empty)], capture_output=True, text=True, timeout=300
    )
    code, peak_kb = map(int, done.stdout.split()[:2])
    assert code == 0, done.stdout
    assert "at least 2 solutions" in done.stdout
    assert peak_kb < 500 * 1024


@pytest.mark.parametrize(
    "constraints",
    [
        [{"kind": "non-consecutive"}],
        [{"kind": "anti-knight"}, {"kind": "whisper", "cells": [0, 5, 10], "value": 2}],
        [
            {"kind": "cage", "cells": [0, 1], "sum": 5},
            {"kind": "cage", "cells": [14, 15], "sum": 4},
        ],
    ],
)
def test_a_run_of_puzzles_under_the_same_rules_counts_as_brute_force(
    constraints: list[dict[str, object]],
) -> None:
    """From the third puzzle of a run under the same constraints on, the live solver
    holds them (and the rule of 45's cages) itself, learning across puzzles: every
    count of the run, and of puzzles of other rules between, is the brute force's."""
    from rulecheck import grids_4x4

    rules = Rules.from_spec({"size": 4, "box": "2x2", "constraints": constraints})
    other = Rules.from_spec({"size": 4, "box": "2x2", "constraints": [{"kind": "anti-king"}]})
    rng = random.Random(len(constraints))
    with create_backend("sat") as engine:
        for k in range(15):
            g = rules if k % 6 != 5 else other  # a puzzle of other rules now and then
            keep = grids_4x4(g)
            cells = [0] * 16
            if keep:
                one = keep[rng.randrange(len(keep))]
                for i in rng.sample(range(16), rng.randrange(0, 5)):
                    cells[i] = one[i]
            expected = sum(all(not v or x[i] == v for i, v in enumerate(cells)) for x in keep)
            found = engine.count(Puzzle(g, tuple(cells)), limit=300)
            assert found.count == expected, (k, cells)
        assert rules in engine._engines  # type: ignore[attr-defined]
