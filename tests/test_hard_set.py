"""The hard-variant set of the benchmark (benchmarks/data/variants/hard.jsonl).

Every row reads through the dataset reader and cpsudoku's rules, says what it expects,
and a unique row's solution keeps every rule; the rows marked ``fast`` are solved by
``sat`` (and by ``native`` where it takes the rules and is quick) with their answer
checked. The bench lists the set as ``variant:hard``.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

import cpsudoku
from cpsudoku import Status, parse
from cpsudoku.bench import find_manifest, load_manifest, select_datasets
from cpsudoku.datasets.records import read_records
from cpsudoku.engines import create_backend
from cpsudoku.model.verify import solution_problems

PATH = ROOT / "benchmarks" / "data" / "variants" / "hard.jsonl"
ROWS = [json.loads(line) for line in PATH.read_text().splitlines() if line.strip()]
FAST = [r for r in ROWS if r["fast"]]
#: The rows the compiled engine answers within a second or so (``native`` marks them).
NATIVE = [r for r in ROWS if r.get("native")]


def _puzzle(row: dict[str, object]):  # type: ignore[no-untyped-def]
    return parse(json.dumps({"rules": row["rules"], "puzzle": row["puzzle"]}))


def test_every_row_reads_and_says_what_it_expects() -> None:
    assert 20 <= len(ROWS) <= 40
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    records = list(read_records(str(PATH)))
    assert [r.error for r in records] == [None] * len(ROWS)
    kinds: set[str] = set()
    for row, record in zip(ROWS, records, strict=True):
        puzzle = parse(record.puzzle)
        assert puzzle == _puzzle(row), row["id"]
        kinds.update(str(c["kind"]) for c in row["rules"]["constraints"])
        assert row["expect"] in {"unique", "unsolvable", "multiple"}, row["id"]
        if row["expect"] == "unique":
            assert record.solution == row["solution"], row["id"]
            solution = parse(json.dumps({"rules": row["rules"], "puzzle": row["solution"]}))
            assert solution_problems(puzzle, solution) == [], row["id"]
            assert row["solution_from"] in {"published", "computed"}, row["id"]
        else:
            assert "solution" not in row, row["id"]
    # Killers, long sums and pills, little killers, sandwiches, and a no-solution row.
    assert {"cage", "arrow", "little-killer", "sandwich"} <= kinds
    assert {r["expect"] for r in ROWS} == {"unique", "unsolvable", "multiple"}


def test_the_bench_lists_the_set() -> None:
    (hard,) = select_datasets(["variant:hard"], load_manifest(find_manifest()))
    assert hard.path.resolve() == PATH.resolve()
    assert not hard.default


@pytest.mark.parametrize("row", FAST, ids=[r["id"] for r in FAST])
def test_sat_answers_the_fast_rows(row: dict[str, object]) -> None:
    with create_backend("sat") as engine:
        result = engine.solve(_puzzle(row), time_limit=60)
    assert result.status == row["expect"]
    if row["expect"] == "unique":
        assert result.solution is not None
        assert str(result.solution) == row["solution"]


@pytest.mark.parametrize("row", NATIVE, ids=[r["id"] for r in NATIVE])
def test_native_answers_the_rows_it_is_quick_on(row: dict[str, object]) -> None:
    pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    result = create_backend("native").solve(_puzzle(row), time_limit=60)
    assert result.status == row["expect"]
    if row["expect"] == "unique":
        assert result.solution is not None
        assert str(result.solution) == row["solution"]
    assert result.status is not Status.TIMEOUT


def _native_unique(pid: str) -> dict[str, int]:
    """The compiled engine's stats on row ``pid``, which it must solve as published."""
    pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    row = next(r for r in ROWS if r["id"] == pid)
    result = create_backend("native").solve(_puzzle(row), time_limit=60)
    assert result.status is Status.UNIQUE
    assert str(result.solution) == row["solution"]
    return dict(result.stats)


@pytest.mark.parametrize(("pid", "most"), [("triple-digits", 1_000), ("3-digit-pill-arrow", 100)])
def test_native_reads_whole_units_in_a_sum_as_their_totals(pid: str, most: int) -> None:
    """The compiled engine folds whole units out of a sum (a pill's 78-cell shaft is a
    sum of three cells): nodes, not seconds (without it 2,181 nodes on the 3-digit pill
    arrow, and triple digits not done in 21,000)."""
    assert _native_unique(pid)["nodes"] <= most


def test_a_hard_killer_on_native_starts_again_with_the_runs_of_units_as_sums() -> None:
    """Past ESCALATE_NODES on its own layout, a killer is searched again on the layout
    that adds the innies and outies of runs of units: tarek 1 takes 27,953 nodes
    without them, about 5,400 (its first 5,000 included) with them."""
    native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    stats = _native_unique("tarek-01")
    assert stats["escalated"] == 1
    assert stats["nodes"] < 10_000
    # An easy killer never gets there.
    easy = next(r for r in ROWS if r["id"] == "hs-killer-3")
    assert "escalated" not in create_backend("native").solve(_puzzle(easy)).stats
    assert native.ESCALATE_NODES == 5_000


def test_a_flower_caged_killer_escalates_to_sums_of_five_cells() -> None:
    """wecoc-1 leaves no run of units with four cells or fewer to sum; with five-cell
    sums on escalation it takes about 67,000 nodes (1,328,000 without them)."""
    native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    assert native.ESCALATE_SUM_CELLS == 5
    stats = _native_unique("wecoc-1")
    assert stats["escalated"] == 1
    assert stats["nodes"] < 150_000


def test_the_hailstone_little_killer_reads_its_bands_of_diagonals() -> None:
    """Four little killers beside each X diagonal make two bands of five diagonals
    holding three whole boxes each: about 9,600 nodes with them, 133,490 without."""
    assert _native_unique("hailstone-little-killer")["nodes"] < 20_000


def test_the_default_route_leaves_wecoc_1_mod_a_to_the_compiled_engine() -> None:
    """Its search takes about 434,000 node-equivalents, within the variant budget: the
    compiled engine answers (0.45 s) where ``sat`` would take about 2 s after it."""
    pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    from cpsudoku.engines.default import native_budget

    row = next(r for r in ROWS if r["id"] == "wecoc-1-mod-a")
    puzzle = _puzzle(row)
    assert native_budget(puzzle.rules) >= 450_000
    result = cpsudoku.solve(puzzle, time_limit=60)
    assert result.status is Status.UNIQUE
    assert str(result.solution) == row["solution"]
    assert result.backend == "native"


def test_a_killer_that_escalates_without_implied_sums_is_still_searched_to_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no sums to add, the search starts again on the same layout, unbudgeted
    (it used to stop there, reported as a timeout)."""
    native = pytest.importorskip("cpsudoku.engines.native", reason="the extension was not built")
    monkeypatch.setattr(native, "ESCALATE_NODES", 2)
    monkeypatch.setattr(native, "implied_sums", lambda rules, most=0: ())
    row = next(r for r in ROWS if r["id"] == "hs-killer-3")
    result = create_backend("native").solve(_puzzle(row), time_limit=60)
    assert result.status is Status.UNIQUE
    assert str(result.solution) == row["solution"]
    assert result.stats["escalated"] == 1
    # With a budget of its own (a batch's), the engine keeps to it.
    engine = create_backend("native")
    engine.budget = 5
    assert create_backend("native").solve(_puzzle(row)).status is Status.UNIQUE
    assert engine.solve(_puzzle(row)).status is Status.TIMEOUT


@pytest.mark.parametrize(("pid", "most"), [("long-sums-1", 2_000), ("long-sums-2", 5_000)])
def test_native_bounds_a_long_sum_by_its_groups_of_different_digits(pid: str, most: int) -> None:
    """A 32-cell shaft's cells fall in groups that see each other (a box's, a row's):
    each group adds at least its least distinct candidates. Without that, 941,054 nodes
    (3.7 s) on long sums 1 and 688,087 on long sums 2; with it 183 and 1,034."""
    assert _native_unique(pid)["nodes"] <= most
