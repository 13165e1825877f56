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
