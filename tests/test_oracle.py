"""The reference oracle on the published cases and the classic examples."""

import random

import pytest
from conftest import GRIDS_4X4, read_lines
from test_primitives import KINDS, Raw, _primitive

from cpsudoku import Status, count, parse, solve
from cpsudoku.engines import create_backend
from cpsudoku.engines.backtrack import _singles_search
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

ORACLE = "backtrack"


def test_article_4x4_examples() -> None:
    r = solve([[1, 0, 3, 4], [3, 0, 0, 2], [0, 3, 0, 0], [2, 0, 0, 3]], backend=ORACLE)
    assert r.status is Status.UNIQUE
    assert r.solution is not None
    assert r.solution.rows() == [[1, 2, 3, 4], [3, 4, 1, 2], [4, 3, 2, 1], [2, 1, 4, 3]]
    r = solve([[4, 0, 0, 0], [0, 0, 0, 0], [1, 0, 4, 0], [0, 0, 0, 2]], backend=ORACLE)
    assert r.status.has_solution
    assert r.solution is not None
    assert is_solution(parse([[4, 0, 0, 0], [0, 0, 0, 0], [1, 0, 4, 0], [0, 0, 0, 2]]), r.solution)


@pytest.mark.parametrize("strategy", ["backtrack:naive"])  # the oracle: the contract suite
def test_empty_4x4_has_288_solutions(strategy: str) -> None:
    assert count("." * 16, limit=1000, backend=strategy) == 288


def test_leetcode_37() -> None:
    from test_formats import LEETCODE

    r = solve(LEETCODE, backend=ORACLE)
    assert r.status is Status.UNIQUE
    assert str(r.solution).startswith("534678912672195348198342567")


@pytest.mark.parametrize("name", ["top95.txt", "norvig_hardest.txt", "clue17_royle_200.txt"])
def test_published_unique_puzzles(name: str) -> None:
    for line in read_lines(name, 60):
        r = solve(line, backend=ORACLE)
        assert r.status is Status.UNIQUE, line
        assert r.solution is not None
        assert is_solution(parse(line), r.solution)


def test_big_grids_solve() -> None:
    for name in ("16x16_vukr_6.txt", "25x25_misc_3.txt"):
        for line in read_lines(name, 2):
            r = solve(line, backend=ORACLE)
            assert r.status is Status.UNIQUE
            assert r.solution is not None
            assert is_solution(parse(line), r.solution)


def test_time_limit_gives_timeout() -> None:
    # An empty 25x25 grid under the naive strategy cannot finish counting in 0.2 s.
    backend = create_backend("backtrack:naive")
    r = backend.solve(parse("." * 625), time_limit=0.2)
    assert r.status in (Status.TIMEOUT, Status.MULTIPLE)
    hard = parse(read_lines("top95.txt")[0])
    assert backend.solve(hard, time_limit=0.01).status is Status.TIMEOUT


def test_naive_agrees_with_oracle_on_easy_puzzles() -> None:
    naive = create_backend("backtrack:naive")
    oracle = create_backend(ORACLE)
    for line in read_lines("easy_norvig50.txt", 10):
        a, b = naive.solve(parse(line)), oracle.solve(parse(line))
        assert a.status == b.status == Status.UNIQUE
        assert a.solution == b.solution


def test_stats_reported() -> None:
    r = solve(read_lines("top95.txt")[0], backend=ORACLE)
    assert r.stats["nodes"] >= 1
    assert r.stats["guesses"] >= 1
    easy = solve(read_lines("easy_kaggle1m_200.txt")[0], backend=ORACLE)
    assert easy.stats["guesses"] == 0


def _published(ident: str):  # type: ignore[no-untyped-def]
    import json
    import warnings
    from pathlib import Path

    from cpsudoku.model.fpuzzles import read_fpuzzles

    path = Path(__file__).parent / "data" / "published" / "fpuzzles.jsonl"
    row = next(r for r in map(json.loads, path.read_text().splitlines()) if r["id"] == ident)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_fpuzzles(row["fpuzzles"]).puzzle


@pytest.mark.parametrize(
    "ident",
    [
        "sudokusolverrust-02",  # relations over the whole grid
        "iss-nabner-thermo",
        "iss-triple-digits",  # sums with place values
        "iss-region-sum-lines",
        "iss-x-sum",  # automata
        "iss-quadruple---repeated-values",  # counts
    ],
)
def test_waking_only_the_primitives_over_changed_cells_reaches_the_same_fixpoint(
    ident: str,
) -> None:
    """The oracle's propagation from a parent's fixpoint runs only the primitives over
    cells that changed since; at random branches of random depth it ends where running
    every primitive every round ends (or fails where that fails)."""
    import random

    from cpsudoku.model.candidates import fill, layout, propagate, singles, start, watchers

    puzzle = _published(ident)
    lay, prims, n = layout(puzzle.rules), puzzle.rules.primitives, puzzle.rules.n
    watch = watchers(prims, puzzle.rules.cells)
    rng = random.Random(ident)
    branches = 0
    for _ in range(40):
        vals, cand, used = start(lay, puzzle.cells)
        assert not singles(lay, vals, cand, used)[1]
        assert propagate(prims, lay, vals, cand, used, n)
        for _depth in range(rng.randrange(1, 6)):
            open_cells = [i for i, m in enumerate(cand) if m]
            if not open_cells:
                break
            i = rng.choice(open_cells)
            d = rng.choice([d + 1 for d in range(n) if cand[i] >> d & 1])
            ends = []
            for woken in (False, True):
                v, c, u = vals.copy(), cand.copy(), used.copy()
                fill(lay, v, c, u, i, d)
                ok = not singles(lay, v, c, u, known="units")[1] and propagate(
                    prims,
                    lay,
                    v,
                    c,
                    u,
                    n,
                    watch=watch if woken else None,
                    since=cand if woken else None,  # the parent's fixpoint
                )
                ends.append((ok, v, c, u) if ok else (ok,))
            assert ends[0] == ends[1], (ident, i, d)
            branches += 1
            if not ends[0][0]:
                break
            _, vals, cand, used = ends[0]
    assert branches >= 40


@pytest.mark.parametrize("kind", KINDS)
def test_restarts_keep_each_count_exact(kind: str) -> None:
    """A search that starts again (by cells, then by a digit's places, and so on)
    counts each grid once: with a restart every few nodes, brute force's counts."""
    rng = random.Random(f"oracle restart {kind}")
    for trial in range(15):
        prims = (_primitive(rng, kind), _primitive(rng, rng.choice(KINDS)))
        grid = GRIDS_4X4[rng.randrange(288)]
        givens = tuple(v if trial % 2 and rng.random() < 0.3 else 0 for v in grid)
        keeping = {
            g
            for g in GRIDS_4X4
            if all(p.holds(g) for p in prims)
            and all(not v or v == w for v, w in zip(givens, g, strict=True))
        }
        puzzle = Puzzle(Rules.classic(2, 2).with_constraints(Raw(prims)), givens)
        for restart in (1, 3, 8):
            found = _singles_search(puzzle, 300, None, restart=restart)
            assert (found.count, found.exhausted) == (len(keeping), True), (prims, restart)
            assert set(found.solutions) <= keeping


def test_restarts_keep_a_blank_grids_count() -> None:
    """A blank 6x6 under non-consecutive (48 grids): with a restart every node, every
    20 nodes or none, the oracle counts what ``sat`` counts."""
    rules = Rules.from_spec({"size": 6, "box": "2x3", "constraints": [{"kind": "non-consecutive"}]})
    blank = Puzzle(rules, (0,) * 36)
    with create_backend("sat") as engine:
        expected = engine.count(blank, limit=1000).count
    assert expected == 48
    for restart in (1, 20, 10**9):
        assert _singles_search(blank, 1000, None, restart=restart).count == expected
