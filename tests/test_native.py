"""The compiled engine: checked against the oracle and sat, its bulk entry point, its
input checks, and its memory safety (random bytes through every entry point, also
under AddressSanitizer in a build of its own).

The engine contract suite (test_engine_contract.py) holds it to what every engine
keeps; this file holds what is its own.
"""

from __future__ import annotations

import json
import os
import random
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    ROOT,
    asan_library,
    random_grid,
    read_lines,
    run_python,
    run_unbuilt,
    run_under_asan,
    x_puzzle,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku import Status, parse, solve_many
from cpsudoku.datasets import bulk_logic
from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.solving import solve_records
from cpsudoku.engines import create_backend, uniqueness_checker
from cpsudoku.model.errors import UnsupportedRulesError
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution

if os.environ.get("CI"):  # CI builds the extension: there its absence is a failure
    import cpsudoku.engines.native as native
else:
    native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
_native = native._native

#: Samples of every bundled dataset, with the sizes they are written in.
SAMPLES = [
    ("easy_kaggle1m_200.txt", 9),
    ("easy_norvig50.txt", 9),
    ("clue17_royle_200.txt", 9),
    ("top95.txt", 9),
    ("norvig_hardest.txt", 9),
    ("forum_hardest_1106_60.txt", 9),
    ("multisolution_tdoku.txt", 9),
    ("nosolution_tdoku.txt", 9),
    ("serg_multisolution_100.txt", 9),
    ("16x16_vukr_6.txt", 16),
    ("25x25_misc_3.txt", 25),
]


@pytest.fixture(scope="module")
def engine() -> native.NativeBackend:
    return create_backend("native")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def sat():  # type: ignore[no-untyped-def]
    with create_backend("sat") as backend:
        yield backend


@pytest.mark.parametrize(("name", "n"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_every_sample_agrees_with_sat_and_the_oracle(name: str, n: int, engine, sat) -> None:  # type: ignore[no-untyped-def]
    lines = read_lines(name, 60)
    oracle = create_backend("backtrack")
    for k, line in enumerate(lines):
        puzzle = parse(line, check=False)
        mine = engine.solve(puzzle)
        theirs = sat.solve(puzzle)
        assert mine.status == theirs.status, line
        if mine.status is Status.UNIQUE:
            assert mine.solution == theirs.solution
        if n == 9 and k < 20:  # the oracle takes seconds per puzzle above 9x9
            assert oracle.solve(puzzle).status == mine.status, line


@pytest.mark.parametrize(("name", "n"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_the_bulk_call_answers_as_one_call_per_puzzle(name: str, n: int, engine) -> None:  # type: ignore[no-untyped-def]
    g = Rules.for_size(n)
    lines = read_lines(name)
    values, ok = bulk_logic.parse_block(lines, g)
    assert ok.all()
    found = native.solve_block(values, g)
    for k, line in enumerate(lines):
        one = (
            engine.count(parse(line, check=False), limit=2)
            if found.status[k] != native.CLASH
            else None
        )
        if one is None:
            continue
        assert found.count[k] == one.count, line
        if found.count[k]:
            assert is_solution(
                parse(line, check=False), Puzzle(g, tuple(found.solutions[k].tolist()))
            )
    solved = found.count > 0
    assert bulk_logic.verify_block(values[solved], found.solutions[solved], g).all()


def test_counts_of_the_multi_solution_files_match_the_oracle(engine) -> None:  # type: ignore[no-untyped-def]
    oracle = create_backend("backtrack")
    for line in read_lines("multisolution_tdoku.txt") + read_lines(
        "serg_multisolution_100.txt", 20
    ):
        puzzle = parse(line)
        assert engine.count(puzzle, limit=50).count == oracle.count(puzzle, limit=50).count


@settings(max_examples=150, deadline=None)
@given(
    shape=st.sampled_from([(1, 2), (2, 2), (2, 3), (3, 2), (1, 4), (2, 4)]),
    seed=st.integers(0, 2**32 - 1),
    keep=st.floats(0.0, 0.6),
)
def test_small_grids_count_as_the_oracle_does(
    shape: tuple[int, int], seed: int, keep: float
) -> None:
    g = Rules.classic(*shape)
    rng = random.Random(seed)
    grid = random_grid(g, rng)
    cells = tuple(v if rng.random() < keep else 0 for v in grid.cells)
    if rng.random() < 0.3:  # a wrong digit somewhere: unsolvable or a clash
        i = rng.randrange(g.cells)
        cells = (*cells[:i], rng.randint(1, g.n), *cells[i + 1 :])
    puzzle = Puzzle(g, cells)
    mine, oracle = create_backend("native"), create_backend("backtrack")
    assert mine.solve(puzzle).status == oracle.solve(puzzle).status
    if puzzle.conflicts():
        return
    assert mine.count(puzzle, limit=500).count == oracle.count(puzzle, limit=500).count


def test_the_whole_4x4_space_is_288_grids() -> None:
    layout = native.layout(Rules.for_size(4))
    status, count, _grids, _nodes, _guesses = layout.solve(bytes(16), 1000)
    assert (status, count) == (native.DONE, 288)


def test_extra_regions_are_units_too(engine) -> None:  # type: ignore[no-untyped-def]
    puzzle = x_puzzle()
    mine = engine.solve(puzzle)
    assert mine.status is create_backend("sat").solve(puzzle).status
    assert mine.solution is not None
    assert is_solution(puzzle, mine.solution)


def test_a_layout_over_the_units_of_the_one_before_searches_as_a_fresh_one() -> None:
    """A layout copies the unit part of the last one built when their units are the
    same; built in turn over two sets of units, each answers as it does alone."""
    from cpsudoku.engines import _native

    x = x_puzzle()
    classic = Rules.for_size(9)
    cells = bytes(x.cells)
    expected = {}
    for rules in (x.rules, classic):
        expected[rules] = _native.Layout(9, list(rules.unit_cells), band=False).solve(cells, 300)
    for rules in (x.rules, x.rules, classic, classic, x.rules, classic):
        layout = _native.Layout(9, list(rules.unit_cells), band=False)
        assert layout.solve(cells, 300) == expected[rules]  # the same tree: nodes too
    assert expected[x.rules][:2] == (native.DONE, 1)  # the diagonals keep one grid
    assert expected[classic][:2] == (native.LIMIT, 300)


def test_sides_up_to_32_and_no_further(engine) -> None:  # type: ignore[no-untyped-def]
    r = engine.solve(Puzzle(Rules.for_size(32), (0,) * 32**2), unique=False)
    assert r.status is Status.SOLVED
    with pytest.raises(UnsupportedRulesError, match="up to 32x32"):
        engine.solve(Puzzle(Rules.for_size(36), (0,) * 36**2))
    assert uniqueness_checker(Rules.for_size(36)) == "sat"
    assert uniqueness_checker(Rules.for_size(9)) == "native"


def test_a_node_budget_stops_the_search() -> None:
    g = Rules.for_size(9)
    hard = read_lines("forum_hardest_1106_60.txt", 1)
    values, _ = bulk_logic.parse_block(hard, g)
    found = native.solve_block(values, g, budget=3)
    assert found.status.tolist() == [native.BUDGET]
    assert found.nodes[0] <= 4


def test_the_batch_hands_what_the_budget_leaves_to_sat() -> None:
    lines = read_lines("forum_hardest_1106_60.txt", 6) + read_lines("easy_norvig50.txt", 2)
    records = [Record(k, line) for k, line in enumerate(lines)]
    options = SolveOptions.checked()
    rows = solve_records(records, replace(options, native_budget=5))
    backends = [row[2] for row in rows]
    assert set(backends) == {"native", "sat"}, backends  # easy ones stay native
    plain = solve_records(records, options)
    assert [row[2] for row in plain] == ["native"] * len(lines)
    assert [row[:2] for row in rows] == [row[:2] for row in plain]


def test_the_default_batch_is_native_and_other_engines_are_kept() -> None:
    lines = [*read_lines("top95.txt", 5), "12", "11" + "." * 79]
    results = list(solve_many(lines))
    assert [r.backend for r in results[:5]] == ["native"] * 5
    assert results[5].status is Status.INVALID
    assert results[6].status is Status.INVALID
    assert "appears twice" in (results[6].error or "")  # a clash is named by the engine
    assert {r.backend for r in solve_many(lines[:5], backend="cpsat")} <= {"cpsat", "logic"}


def test_bad_arguments_are_refused_by_name() -> None:
    layout = native.layout(Rules.for_size(4))
    for cells, message in [
        (bytes(15), "expected 16 cells"),
        (bytes([5] + [0] * 15), "cell 0 holds 5"),
    ]:
        with pytest.raises(ValueError, match=message):
            layout.solve(cells)
    for kwargs, message in [
        ({"limit": 0}, "limit"),
        ({"budget": -1}, "budget"),
        ({"time_limit": float("nan")}, "NaN"),
        ({"allowed": b"\x00" * 3}, "allowed"),
    ]:
        with pytest.raises(ValueError, match=message):
            layout.solve(bytes(16), **kwargs)
    with pytest.raises(ValueError, match="whole number"):
        layout.solve_many(bytes(17))
    for n, units, message in [
        (0, [], "sides 1 to 32"),
        (33, [], "sides 1 to 32"),
        (4, [[0, 1, 2, 3, 4]], "at most 4"),
        (4, [[0, 0]], "listed twice"),
        (4, [[16]], "out of range"),
        (4, [[-1]], "out of range"),
    ]:
        with pytest.raises(ValueError, match=message):
            _native.Layout(n, units)
    with pytest.raises(TypeError):
        _native.Layout(4, [["a"]])
    units = [list(range(4 * r, 4 * r + 4)) for r in range(4)]
    for counts in (frozenset({"a"}), {1, None}):  # a count's counts, read off a set
        with pytest.raises(TypeError):
            _native.Layout(4, units, None, [("count", (0, 1), 1, counts)])
    _native.Layout(4, units, None, [("count", (0, 1), 1, frozenset({0, 1}))])


def test_allowed_values_narrow_the_cells() -> None:
    layout = native.layout(Rules.for_size(4))
    every = np.full(16, 0b1111, dtype=np.uint32)
    assert layout.solve(bytes(16), 1000, allowed=every.tobytes())[1] == 288
    one = every.copy()
    one[0] = 0b0001  # r1c1 holds 1: a quarter of the grids
    assert layout.solve(bytes(16), 1000, allowed=one.tobytes())[1] == 72
    one[0] = 0
    assert layout.solve(bytes(16), 1000, allowed=one.tobytes())[:2] == (native.DONE, 0)


def test_a_spent_time_limit_stops_at_once() -> None:
    layout = native.layout(Rules.for_size(25))
    status, count, *_ = layout.solve(bytes(625), 10**6, 0.01)
    assert status == native.TIMEOUT
    assert count < 10**6


# --- memory safety ---------------------------------------------------------------

#: Random layouts, puzzles and arguments through both entry points. Every call must
#: answer or raise ValueError/TypeError; run in-process here and under ASan below.
FUZZ = textwrap.dedent(
    """
    import random, sys
    from cpsudoku.engines import _native
    from array import array
    rng = random.Random(int(sys.argv[1]))
    answered = refused = with_props = 0

    def bad(x):  # now and then a field out of its range, of another type, or missing
        r = rng.random()
        return x if r < 0.97 else rng.choice([-1, 2**40, None, "x", [], 1.5, [[-1]]])

    def cellist(cells, k):
        return bad(tuple(
            rng.randint(0, cells - 1) if rng.random() < 0.99 else rng.randint(-2, cells + 2)
            for _ in range(k)
        ))

    def prop(rng, n, cells, depth):
        kind = rng.choice(["relation", "allowed", "distinct", "digitsets", "table", "sum",
                           "automaton", "count", "choice", "nonsense"])
        k = rng.randint(0, min(cells, 6))
        top = (1 << n) - 1
        if kind == "relation":
            pairs = [cellist(cells, 2) for _ in range(rng.randint(0, 4))]
            table = [0] + [rng.randint(0, top) for _ in range(n)]
            return bad(("relation", bad(pairs), bad(table)))
        if kind == "allowed":
            return ("allowed", cellist(cells, k), bad([rng.randint(0, top) for _ in range(k)]))
        if kind == "distinct":
            return ("distinct", cellist(cells, k))
        if kind == "digitsets":
            return ("digitsets", cellist(cells, k),
                    bad([rng.randint(0, top) for _ in range(rng.randint(0, 4))]))
        if kind == "table":
            rows = rng.randint(0, 6)
            data = bytes(rng.randint(1, n) if rng.random() < 0.98 else rng.randint(0, 255)
                         for _ in range(rows * k))
            return ("table", cellist(cells, k), bad(data), bad(rows))
        if kind == "sum":
            weights = [rng.choice([1, 1, 1, 2, 10, -1, -3, 2**31, 2**33]) for _ in range(k)]
            targets = [rng.randint(-10, 10 * n * max(k, 1)) for _ in range(rng.randint(0, 3))]
            return ("sum", cellist(cells, k), bad(weights), bad(targets))
        if kind == "automaton":
            states = rng.randint(1, 5)
            moves = [rng.randint(-1, states - 1) if rng.random() < 0.98 else rng.randint(-5, 9)
                     for _ in range(states * n)]
            raw = array("i", moves).tobytes()
            if rng.random() < 0.05:
                raw = raw[: rng.randint(0, len(raw))]
            return ("automaton", cellist(cells, k), bad(raw), bad(states),
                    bad([rng.randint(0, states) for _ in range(rng.randint(0, 2))]))
        if kind == "count":
            return ("count", cellist(cells, k), bad(rng.randint(0, top)),
                    bad([rng.randint(-1, k + 1) for _ in range(rng.randint(0, 3))]))
        if kind == "choice":
            if depth > 9:
                return ("choice", [])
            branches = [
                [prop(rng, n, cells, depth + 1) for _ in range(rng.randint(0, 2))]
                for _ in range(rng.randint(0, 3))
            ]
            return ("choice", bad(branches))
        return (kind, 1, 2)
    for _ in range(int(sys.argv[2])):
        n = rng.choice([rng.randint(-2, 40), 1, 2, 4, 6, 9, 16, 25, 32])
        cells = max(n, 0) ** 2
        units = [
            [rng.randint(-3, cells + 3) for _ in range(rng.randint(0, max(n, 0) + 2))]
            for _ in range(rng.randint(0, 3 * max(n, 1) + 3))
        ]
        if rng.random() < 0.5 and n > 0:  # a well-formed layout: rows and columns
            units = [[r * n + c for c in range(n)] for r in range(n)]
            units += [[r * n + c for r in range(n)] for c in range(n)]
        cages = None
        if rng.random() < 0.3 and n > 0:
            cages = [
                (
                    [rng.randint(-1, cells) for _ in range(rng.randint(0, n + 1))],
                    [rng.randint(-1, 2 ** min(n, 32)) for _ in range(rng.randint(0, 4))],
                )
                for _ in range(rng.randint(0, 4))
            ]
        props = None
        if rng.random() < 0.6 and n > 0:
            props = [prop(rng, n, cells, 0) for _ in range(rng.randint(0, 6))]
        try:
            lay = _native.Layout(n, units, cages, props)
        except (ValueError, TypeError, OverflowError):
            refused += 1
            continue
        for _ in range(3):
            size = rng.choice([cells, cells, rng.randint(0, 2 * cells + 2)])
            data = bytes(rng.choice([0, 0, 0, rng.randint(0, 255)]) for _ in range(size))
            try:
                lay.solve(data, rng.randint(1, 3), rng.choice([-1.0, 0.01]), rng.randint(0, 200))
                lay.solve_many(data * rng.randint(0, 3), 2, 0.01, 100)
                answered += 1
            except (ValueError, TypeError):
                refused += 1
    for _ in range(int(sys.argv[2])):  # rows, columns and primitives, readable givens
        n = rng.choice([1, 2, 3, 4, 4, 6, 9])
        cells = n * n
        units = [[r * n + c for c in range(n)] for r in range(n)]
        units += [[r * n + c for r in range(n)] for c in range(n)]
        props = [prop(rng, n, cells, 0) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.2:  # many counts of a few classes: the cells-to-counts index
            masks = [rng.randint(1, (1 << n) - 1) for _ in range(3)]
            props += [
                ("count", tuple(rng.sample(range(cells), min(cells, rng.randint(1, 5)))),
                 rng.choice(masks), rng.sample(range(6), rng.randint(1, 3)))
                for _ in range(rng.randint(60, 300))
            ]
        try:
            lay = _native.Layout(n, units, None, props)
        except (ValueError, TypeError, OverflowError):
            refused += 1
            continue
        data = bytes(rng.randint(1, n) if rng.random() < 0.15 else 0 for _ in range(cells))
        allowed = array("I", [rng.randint(0, (1 << n) - 1) | rng.choice([0, (1 << n) - 1])
                              for _ in range(cells)]).tobytes()
        lay.solve(data, rng.randint(1, 3), 0.05, rng.randint(0, 500),
                  allowed=allowed if rng.random() < 0.3 else None,
                  restart=rng.choice([0, 0, 1, rng.randint(2, 50)]))
        lay.solve_many(data * rng.randint(0, 3), 2, 0.05, 200)
        with_props += 1
    band = 0
    for _ in range(int(sys.argv[2]) // 2):  # classic 9x9: the band solver
        units = [[r * 9 + c for c in range(9)] for r in range(9)]
        units += [[r * 9 + c for r in range(9)] for c in range(9)]
        units += [[(b // 3 * 3 + j // 3) * 9 + b % 3 * 3 + j % 3 for j in range(9)]
                  for b in range(9)]
        rng.shuffle(units)
        lay = _native.Layout(9, units, band=rng.random() < 0.9)
        band += lay.band
        data = bytes(rng.randint(1, 9) if rng.random() < rng.choice([0.1, 0.3, 0.6]) else 0
                     for _ in range(81))
        if rng.random() < 0.1:
            data = bytes(rng.randint(0, 255) for _ in range(rng.choice([81, 80, 162])))
        try:
            lay.solve(data, rng.randint(1, 300), rng.choice([-1.0, 0.01, 1e-9]),
                      rng.randint(0, 300), restart=rng.choice([0, 1, 7]))
            lay.solve_many(data * rng.randint(0, 3), rng.randint(1, 5), 0.01, 300)
        except (ValueError, TypeError):
            refused += 1
    print("fuzzed", answered, refused, with_props, band)
    """
)


def test_random_bytes_through_every_entry_point() -> None:
    done = run_python(FUZZ, "1", "300")
    assert done.returncode == 0, done.stderr
    answered, refused, with_props, band = map(int, done.stdout.split()[1:])
    assert answered > 20
    assert refused > 20
    assert with_props > 30
    assert band > 30  # classic 9x9 layouts searched by the band solver


@pytest.mark.skipif(asan_library() is None, reason="gcc with AddressSanitizer is needed")
def test_random_bytes_under_address_sanitizer(tmp_path: Path) -> None:
    source = ROOT / "cpsudoku" / "engines" / "_native.c"
    done = run_under_asan(source, "cpsudoku.engines._native", FUZZ, ["2", "300"], tmp_path)
    assert done.stdout.startswith("fuzzed")
    assert int(done.stdout.split()[3]) > 30  # layouts with primitives searched
    assert int(done.stdout.split()[4]) > 30  # classic 9x9 on the band solver


def test_without_the_extension_the_engine_is_reported_missing() -> None:
    script = """
        from cpsudoku import solve_many
        from cpsudoku.cli import main
        from cpsudoku.engines import available_engines, uniqueness_checker, get_backend
        from cpsudoku.model.errors import BackendUnavailableError
        print("engines", [c.name for c in available_engines()])
        print("checker", uniqueness_checker())
        print("batch", {r.backend for r in solve_many(["1.343..2.3..2..3"] * 3)})
        try:
            get_backend("native")
        except BackendUnavailableError as exc:
            print("error", exc)
        main(["--version"])
        """
    done = run_unbuilt("cpsudoku.engines._native", script)
    out = done.stdout
    assert "native" not in out.split("engines", 1)[1].splitlines()[0]
    assert "checker backtrack" in out
    assert "batch {'logic'}" in out
    assert "compiled engine, which was not built" in out
    assert "compiled engine: missing" in out


def test_rules_that_only_narrow_cells_share_their_units_layout() -> None:
    """Parity and given candidates are masks the search takes per puzzle: rules of
    them alone (an even-odd dataset has rules per puzzle) use their units' layout,
    built once, and count as with a layout of their own."""
    from cpsudoku.engines import native
    from cpsudoku.model.rules import Rules

    base = {"size": 4, "box": "2x2"}
    one = Rules.from_spec({**base, "constraints": [{"kind": "even", "cells": [0, 5]}]})
    two = Rules.from_spec({**base, "constraints": [{"kind": "odd", "cells": [3, 12, 15]}]})
    assert native.layout(one) is native.layout(two) is native.layout(one.units_only)
    with_rule = Rules.from_spec(
        {**base, "constraints": [{"kind": "even", "cells": [0]}, {"kind": "anti-king"}]}
    )
    assert native.layout(with_rule) is not native.layout(with_rule.units_only)
    from rulecheck import check_4x4

    assert check_4x4(one) > 0  # every engine, native too
    assert check_4x4(two) > 0


#: The generated variant sets of the benchmark (9x9 but for a few small-grid families).
VARIANT_SETS = sorted((ROOT / "benchmarks" / "data" / "variants").glob("*.jsonl"))


def test_the_box_triads_of_9x9_find_what_the_loop_over_every_triad_finds(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The 54 triads of a 9x9 grid's lines and boxes, looked at all at once on 128-bit
    boards, take what the loop over every triad takes: the same answers on the first
    puzzles of every variant set, and on the classic hardest (units alone, on the
    generic search) the same search tree, node for node."""
    from functools import partial

    from cpsudoku.engines import _native

    def both(build):  # type: ignore[no-untyped-def]
        fast = build()
        monkeypatch.setattr(_native, "Layout", partial(_native.Layout, box_triads=False))
        try:
            return fast, build()
        finally:
            monkeypatch.undo()

    g = Rules.for_size(9)
    fast, loop = both(lambda: _native.Layout(9, list(g.unit_cells), band=False))
    for line in read_lines("forum_hardest_1106_60.txt", 20):
        cells = bytes(parse(line).cells)
        assert fast.solve(cells, 2) == loop.solve(cells, 2)
    same_tree = 0
    for path in VARIANT_SETS:
        for row in map(json.loads, path.read_text().splitlines()[:3]):
            puzzle = parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))
            rules = puzzle.rules
            fast, loop = both(lambda rules=rules: native.layout.__wrapped__(rules))
            allowed = native.allowed_masks(rules) if rules.constraints else None
            a, b = (lay.solve(bytes(puzzle.cells), 2, allowed=allowed) for lay in (fast, loop))
            assert a[:3] == b[:3], (path.stem, row["puzzle"])
            same_tree += a[3] == b[3]
    # (the few others differ by the order of the looks: FN(sees) stops looking where
    # its looks rarely take a candidate, counted per look)
    assert same_tree >= 0.9 * 3 * len(VARIANT_SETS)
