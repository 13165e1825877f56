"""The portfolio backend: real engines in real worker processes, no mocks."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import read_lines

import cpsudoku
from cpsudoku import Status, parse
from cpsudoku.cli import main
from cpsudoku.engines import REGISTRY, create_backend, get_backend
from cpsudoku.engines.portfolio import PortfolioBackend
from cpsudoku.model.errors import SolverError, UnknownBackendError
from cpsudoku.model.verify import is_solution

#: sat against cpsat once the SAT backend is registered; until then two other engines.
SPEC = "portfolio" if "sat" in REGISTRY else "portfolio:cpsat:backtrack"
HARD_25 = Path(__file__).parents[1] / "benchmarks" / "data" / "25x25_frisch.txt"


def child_pids() -> set[int]:
    """Live child processes of this process, from /proc (multiprocessing's resource
    tracker excepted: it is shared by every spawn in the process and outlives us)."""
    me = str(os.getpid())
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if (
            fields.get("PPid", "").strip() == me
            and fields.get("State", "")[:1] != "Z"
            and b"resource_tracker" not in cmdline
        ):
            found.add(int(entry.name))
    return found


def no_workers_left() -> bool:
    workers = [p for p in multiprocessing.active_children() if p.name.startswith("cpsudoku-")]
    return not workers and not child_pids()


@pytest.fixture
def portfolio() -> Iterator[PortfolioBackend]:
    assert no_workers_left()
    backend = create_backend(SPEC)
    assert isinstance(backend, PortfolioBackend)
    try:
        yield backend
    finally:
        backend.close()
    assert no_workers_left()
    backend.close()  # idempotent


def test_registered_and_races_sat_against_cpsat_by_default() -> None:
    assert REGISTRY["portfolio"].module == "cpsudoku.engines.portfolio"
    assert PortfolioBackend().engines == ("sat", "cpsat")  # no process starts before a search
    for bad in ("portfolio:cpsat", "portfolio:cpsat:cpsat", "portfolio:cpsat:fast"):
        with pytest.raises(UnknownBackendError):
            create_backend(bad)


def test_agrees_with_the_oracle(portfolio: PortfolioBackend) -> None:
    oracle = create_backend("backtrack")
    lines = (
        read_lines("top95.txt", 3)
        + read_lines("nosolution_tdoku.txt", 1)
        + read_lines("multisolution_tdoku.txt", 1)
        + read_lines("16x16_vukr_6.txt", 1)
    )
    for line in lines:
        puzzle = parse(line)
        r = portfolio.solve(puzzle)
        assert r.status is oracle.solve(puzzle).status, line
        if r.solution is not None:
            assert is_solution(puzzle, r.solution)
        winners = [key for key in r.stats if key.startswith("won_by_")]
        assert len(winners) == 1
        assert winners[0].removeprefix("won_by_") in portfolio.engines
        assert r.backend == winners[0].removeprefix("won_by_")  # the spec that answered
    counted = portfolio.count(parse(read_lines("multisolution_tdoku.txt")[0]), limit=1000)
    assert counted.complete
    portfolio.close()  # a closed portfolio starts its workers again when used
    assert no_workers_left()
    assert portfolio.solve(parse(read_lines("top95.txt")[4])).status is Status.UNIQUE


def test_time_limit_is_honoured_and_the_next_puzzle_still_solves(
    portfolio: PortfolioBackend,
) -> None:
    hardest = parse(HARD_25.read_text().splitlines()[0])  # minutes for either engine
    r = portfolio.solve(hardest, time_limit=1.0)
    assert r.status is Status.TIMEOUT
    line = read_lines("top95.txt")[5]
    assert portfolio.solve(parse(line)).status is Status.UNIQUE


def worker_pid(engine: str) -> int:
    [process] = [
        p for p in multiprocessing.active_children() if p.name == f"cpsudoku-portfolio-{engine}"
    ]
    assert process.pid is not None
    return process.pid


def test_the_loser_of_a_long_race_is_stopped_at_once() -> None:
    with PortfolioBackend(("cpsat", "backtrack"), restart_after=0.1) as portfolio:
        assert portfolio.solve(parse(read_lines("top95.txt")[0])).status is Status.UNIQUE
        loser = worker_pid("backtrack")
        # About a second for CP-SAT; the backtracking oracle needs far longer.
        r = portfolio.solve(parse(HARD_25.read_text().splitlines()[1]))
        assert r.status is Status.UNIQUE
        assert r.stats["won_by_cpsat"] == 1
        assert loser not in child_pids()  # stopped and reaped, not left searching
        assert worker_pid("backtrack") != loser  # and a fresh worker is starting
    assert no_workers_left()


def test_ctrl_c_stops_every_worker(portfolio: PortfolioBackend) -> None:
    hardest = parse(HARD_25.read_text().splitlines()[0])
    portfolio.solve(parse(read_lines("top95.txt")[0]))  # workers up and warm
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            portfolio.solve(hardest, time_limit=60)
    finally:
        timer.cancel()
    assert not child_pids()  # the busy workers were stopped, and none was restarted
    assert portfolio.solve(parse(read_lines("top95.txt")[1])).status is Status.UNIQUE


def test_a_dead_worker_is_an_error_then_replaced(portfolio: PortfolioBackend) -> None:
    hardest = parse(HARD_25.read_text().splitlines()[0])
    portfolio.solve(parse(read_lines("top95.txt")[0]))
    victim = next(iter(child_pids()))
    threading.Timer(0.5, os.kill, (victim, signal.SIGKILL)).start()
    with pytest.raises(SolverError, match="died"):
        portfolio.solve(hardest, time_limit=60)
    assert victim not in child_pids()
    assert portfolio.solve(parse(read_lines("top95.txt")[2])).status is Status.UNIQUE


def test_a_slower_engine_never_falls_more_than_max_owed_behind() -> None:
    # On easy puzzles sat answers in a fraction of cpsat's time, so cpsat loses every
    # race and would owe one more job after each: unbounded, its stale answers once
    # filled the pipe and both processes blocked on a send (a deadlock).
    from cpsudoku.engines.portfolio import MAX_OWED

    puzzles = [parse(line) for line in read_lines("easy_kaggle1m_200.txt")] * 2
    with PortfolioBackend(("sat", "cpsat")) as portfolio:
        owed = []
        for puzzle in puzzles:
            r = portfolio.solve(puzzle)
            assert r.status is Status.UNIQUE
            owed.append(max(len(w.outstanding) for w in portfolio._workers if w is not None))
        assert max(owed) <= MAX_OWED
        assert portfolio._workers[1] is not None  # cpsat was kept, not restarted away
    assert no_workers_left()


def test_the_module_level_api_ends_the_workers_with_each_call(tmp_path: Path) -> None:
    # The process-wide portfolio of cpsudoku.solve and batch kept its engines running
    # after the call; the next forked batch then failed, and so did this file's checks.
    assert no_workers_left()
    lines = read_lines("top95.txt", 3)
    assert cpsudoku.solve(lines[0], backend=SPEC).status is Status.UNIQUE
    assert no_workers_left()
    assert cpsudoku.count(lines[1], backend=SPEC) == 1
    assert no_workers_left()
    assert cpsudoku.rate(lines[2], backend=SPEC).grade is not None
    assert no_workers_left()
    assert cpsudoku.generate_puzzle("2x2", seed=1, backend=SPEC).puzzle.rules.n == 4
    assert no_workers_left()
    assert len(list(cpsudoku.generate_puzzles(2, "2x2", seed=1, backend=SPEC))) == 2
    assert no_workers_left()
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    args = ["batch", str(src), "-o", str(tmp_path / "out.csv"), "--quiet", "--no-presolve"]
    assert main([*args, "--backend", SPEC, "--jobs", "1"]) == 0  # in this process
    assert no_workers_left()
    assert [r.status for r in cpsudoku.solve_many(lines, SPEC)] == [Status.UNIQUE] * 3
    assert no_workers_left()
    many = cpsudoku.solve_many(lines, SPEC, presolve=False)
    assert next(many).status is Status.UNIQUE
    assert not no_workers_left()  # an iterator still being read keeps its workers
    many.close()
    assert no_workers_left()


def test_forked_processes_start_workers_of_their_own() -> None:
    # A batch worker forked from a process whose process-wide portfolio has live
    # workers inherits the object; it used to test those processes, which it did not
    # start: "AssertionError: can only test a child process".
    lines = read_lines("top95.txt", 4)
    shared = get_backend(SPEC)  # used outside any call: its workers stay until close()
    try:
        assert shared.solve(parse(lines[0])).status is Status.UNIQUE
        assert not no_workers_left()
        results = list(cpsudoku.solve_many(lines, SPEC, jobs=2, presolve=False))
        assert [r.status for r in results] == [Status.UNIQUE] * 4
        assert [r.error for r in results] == [None] * 4
    finally:
        shared.close()
    assert no_workers_left()
