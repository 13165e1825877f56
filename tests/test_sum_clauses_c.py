"""The layered clauses of automata, counts and sums: the C writer and the Python one.

The C writer (``cpsudoku/encode/_sum_clauses.c``) writes the templates the SAT engine
instantiates for every sum, automaton and count; the Python writer
(:func:`cpsudoku.encode.sum_clauses.layered_clauses`) stays the reference and the
writer of certificates. Here both write the same clauses on the same variables for
random diagrams (within a layer the order may differ: Python walks a set), and both
renamings onto a line give the same clauses in the same order. What the clauses
mean is checked through the engines, against brute force on every 4x4 grid
(tests/test_properties.py, tests/test_rules*.py).
"""

from __future__ import annotations

import textwrap
from array import array
from collections import Counter
from itertools import pairwise

import pytest
from conftest import ROOT, asan_library, run_python, run_unbuilt, run_under_asan
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsudoku.encode import sum_clauses
from cpsudoku.encode.sum_clauses import (
    Template,
    _automaton_step,
    _count_step,
    _count_template,
    _instantiate,
    _template,
)

layered = pytest.importorskip("cpsudoku.encode._sum_clauses", reason="the C writer is not built")

Clauses = list[tuple[int, ...]]


def _clauses(template: Template) -> tuple[Clauses, int]:
    flat, starts, aux = template
    lits, bounds = array("q", flat).tolist(), array("q", starts).tolist()
    return [tuple(lits[a:b]) for a, b in pairwise(bounds)], aux


def _same(c: Template, python: Template) -> None:
    """The same clauses (each as its set of literals) and auxiliary variables."""
    (mine, aux), (theirs, aux_py) = _clauses(c), _clauses(python)
    assert aux == aux_py
    assert Counter(frozenset(x) for x in mine) == Counter(frozenset(x) for x in theirs)
    assert all(len(set(x)) == len(x) for x in mine)


@st.composite
def automata(draw: st.DrawFn) -> tuple[tuple[tuple[int, ...], ...], frozenset[int], int, int]:
    """Transitions (``-1``: no move), accepting states, a line length and a side."""
    n = draw(st.sampled_from([1, 2, 3, 4, 6, 9]))
    states = draw(st.integers(1, 12))
    move = st.one_of(st.just(-1), st.integers(0, states - 1))
    rows = draw(st.lists(st.tuples(*[move] * n), min_size=states, max_size=states))
    accepting = frozenset(draw(st.sets(st.integers(0, states - 1))))
    return tuple(rows), accepting, draw(st.integers(0, 7)), n


@settings(max_examples=400, deadline=None)
@given(automata())
def test_an_automaton_s_clauses_are_the_python_writer_s(
    case: tuple[tuple[tuple[int, ...], ...], frozenset[int], int, int],
) -> None:
    trans, accepting, length, n = case
    table = array("i", [t for row in trans for t in row]).tobytes()
    accept = bytes(q in accepting for q in range(len(trans)))
    python = _template(length, n, _automaton_step(trans), accepting.__contains__)
    _same(layered.automaton(table, accept, length, n), python)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([-12, -3, -2, -1, 0, 1, 1, 2, 3, 10, 100]), max_size=6),
    st.frozensets(st.integers(-40, 80), max_size=4),
    st.sampled_from([1, 2, 3, 4, 6, 9]),
)
def test_a_sum_s_clauses_are_the_python_writer_s(
    weights: list[int], targets: frozenset[int], n: int
) -> None:
    python = _template(len(weights), n, lambda k, t, d: t + weights[k] * d, targets.__contains__)
    _same(layered.sum(weights, tuple(targets), n), python)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 511),
    st.frozensets(st.integers(0, 9), min_size=1, max_size=4),
    st.integers(0, 9),
)
def test_a_count_s_clauses_are_the_python_writer_s(
    inside: int, counts: frozenset[int], length: int
) -> None:
    n = 9
    python = _template(length, n, _count_step(inside, counts), counts.__contains__)
    _same(_count_template.__wrapped__(inside, counts, length, n), python)


@settings(max_examples=200, deadline=None)
@given(automata(), st.randoms(use_true_random=False), st.sampled_from([(), (-999,), (-7, 3)]))
def test_a_template_on_a_line_is_the_same_from_either_renaming(
    case: tuple[tuple[tuple[int, ...], ...], frozenset[int], int, int],
    rng: object,
    lead: tuple[int, ...],
) -> None:
    trans, accepting, length, n = case
    template = _template(length, n, _automaton_step(trans), accepting.__contains__)
    cells = rng.sample(range(n * n + length), length)  # type: ignore[attr-defined]
    top = n**3 + 17
    written: list[tuple[Clauses, int]] = []
    for writer in (layered, None):  # C, then numpy
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sum_clauses, "_sum_clauses", writer)
            out: Clauses = []
            written.append((out, _instantiate(template, cells, n, top, out, lead)))
    assert written[0] == written[1]


def test_bad_tables_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="leads to state 2 of 2"):
        layered.automaton(array("i", [0, 2]).tobytes(), b"\x01\x00", 3, 1)
    with pytest.raises(ValueError, match="S \\* n int32"):
        layered.automaton(array("i", [0, 1, 0]).tobytes(), b"\x01\x00", 3, 1)
    with pytest.raises(ValueError, match="values 1 to 64"):
        layered.sum([1, 2], (3,), 65)
    with pytest.raises(OverflowError, match="too many partial sums"):
        layered.sum([1_000_000] * 10, (5,), 9)
    with pytest.raises(ValueError, match="starts must"):
        layered.instantiate(b"", array("q", [0, 1]).tobytes(), [0], 2, 0, (), [])


def test_diagrams_beyond_the_c_writer_are_written_in_python() -> None:
    """Too many partial sums or states for the C writer's tables: the Python writer
    takes them (its layers hold only the states a line reaches)."""
    weights, targets = (1_000_000, 1, 1), frozenset({1_000_003})
    written = sum_clauses._sum_template.__wrapped__(weights, targets, 9)
    python = _template(3, 9, lambda k, t, d: t + weights[k] * d, targets.__contains__)
    assert written == python
    # 200,000 states (a second one reached, the rest idle) over 100 cells
    trans = ((0, 0, 1, 0, 0, 0, 0, 0, 0), (1,) * 9) + ((0,) * 9,) * 199_998
    with pytest.raises(OverflowError, match="too many states"):
        layered.automaton(
            array("i", [t for row in trans for t in row]).tobytes(), bytes(200_000), 100, 9
        )
    accepting = frozenset({1})
    written = sum_clauses._automaton_template.__wrapped__(trans, accepting, 100, 9)
    assert written == _template(100, 9, _automaton_step(trans), accepting.__contains__)


def test_without_the_c_writer_the_sat_engine_writes_in_python() -> None:
    script = """
        import json, sys
        from cpsudoku import solve
        row = json.loads(open("benchmarks/data/variants/x-sum.jsonl").readline())
        result = solve(json.dumps(row), "sat")
        print(result.status.value, "".join(map(str, result.solution.cells)) == row["solution"])
        print("cpsudoku.encode._sum_clauses" in sys.modules)
        """
    done = run_unbuilt("cpsudoku.encode._sum_clauses", script)
    assert done.stdout.split() == ["unique", "True", "False"], done.stderr


#: Random diagrams through every entry point, in one process (run under
#: AddressSanitizer): the C writer against the Python one, and malformed arguments.
FUZZ = textwrap.dedent(
    """
    import random, sys
    from array import array
    from cpsudoku.encode import _sum_clauses, sum_clauses as sc
    rng = random.Random(int(sys.argv[1]))
    checked = refused = 0
    for _ in range(int(sys.argv[2])):
        n = rng.choice([1, 2, 3, 4, 9, 16])
        states = rng.randint(1, 40)
        trans = tuple(
            tuple(rng.choice([-1, rng.randrange(states)]) for _ in range(n))
            for _ in range(states)
        )
        accepting = frozenset(q for q in range(states) if rng.random() < 0.3)
        length = rng.randint(0, 9)
        table = array("i", [t for row in trans for t in row]).tobytes()
        accept = bytes(q in accepting for q in range(states))
        lits, starts, aux = _sum_clauses.automaton(table, accept, length, n)
        py = sc._template(length, n, sc._automaton_step(trans), accepting.__contains__)
        assert aux == py[2] and len(starts) == len(py[1]), (trans, accepting, length, n)
        cells = rng.sample(range(n * n + length), length)
        out = []
        _sum_clauses.instantiate(lits, starts, cells, n, 1000, (-5,), out)
        weights = [rng.randint(-20, 20) for _ in range(rng.randint(0, 8))]
        lits, starts, aux = _sum_clauses.sum(weights, [rng.randint(-50, 50)], n)
        checked += 1
        for bad in (
            lambda: _sum_clauses.automaton(table[:-1], accept, length, n),
            lambda: _sum_clauses.automaton(table, accept, length, 0),
            lambda: _sum_clauses.automaton(b"", b"", length, n),
            lambda: _sum_clauses.instantiate(lits[:-8], starts, cells, n, 0, (), []),
            lambda: _sum_clauses.instantiate(lits, starts, [None] * length, n, 0, (), []),
            lambda: _sum_clauses.sum([2**40], [1], n),
        ):
            try:
                bad()
            except (ValueError, TypeError, OverflowError):
                refused += 1
    print("fuzzed", checked, refused)
    """
)


def test_random_diagrams_through_every_entry_point() -> None:
    done = run_python(FUZZ, "1", "200")
    assert done.returncode == 0, done.stderr
    _, checked, refused = done.stdout.split()
    assert int(checked) == 200
    assert int(refused) >= 200 * 4  # four of the six malformed calls are so on any line


@pytest.mark.skipif(asan_library() is None, reason="gcc with AddressSanitizer is needed")
def test_random_diagrams_under_address_sanitizer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = ROOT / "cpsudoku" / "encode" / "_sum_clauses.c"
    done = run_under_asan(source, "cpsudoku.encode._sum_clauses", FUZZ, ["2", "300"], tmp_path)
    assert done.stdout.split()[:2] == ["fuzzed", "300"]
