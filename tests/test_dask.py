"""cpsudoku.datasets.dask: solving the puzzles of a Dask DataFrame or Bag on a Client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.solving import solve_records
from cpsudoku.engines import REGISTRY
from cpsudoku.model.errors import UnknownBackendError

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
db = pytest.importorskip("dask.bag")
pd = pytest.importorskip("pandas")

from cpsudoku.datasets.dask import RESULT_COLUMNS, solve_bag, solve_dataframe  # noqa: E402

ROOT = Path(__file__).parent.parent
FAST = "sat" if "sat" in REGISTRY else "backtrack"
EASY = [
    line.strip()
    for line in (ROOT / "benchmarks" / "data" / "easy_kaggle1m.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
][:600]


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A real distributed scheduler with two single-threaded workers (in this process)."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address="127.0.0.1:0",  # None would still take 8787, maybe in use
            worker_dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


@pytest.fixture
def kaggle_csv(tmp_path: Path) -> Path:
    """A Kaggle-layout sample: quizzes (0 = empty) and solutions, plus two bad rows."""
    expected = solve_records([Record(i, p) for i, p in enumerate(EASY)], SolveOptions(FAST))
    solutions = [row[1] for row in expected]
    solutions[3] = solutions[4]  # a wrong expected solution is reported, not trusted
    frame = pd.DataFrame(
        {
            "quizzes": [p.replace(".", "0") for p in EASY] + ["12345", None],
            "solutions": [*solutions, "", ""],
        }
    )
    path = tmp_path / "sudoku.csv"
    frame.to_csv(path, index=False)
    return path


def test_dataframe_gets_batch_columns(client: distributed.Client, kaggle_csv: Path) -> None:
    df = dd.read_csv(kaggle_csv, dtype={"quizzes": str, "solutions": str}, blocksize=20_000)
    assert df.npartitions > 1
    solved = solve_dataframe(df, "quizzes", solution_column="solutions", backend=FAST)
    assert list(solved.columns) == ["quizzes", "solutions", *RESULT_COLUMNS]
    assert solved.npartitions == df.npartitions
    result = client.compute(solved).result()
    assert dict(result.dtypes) == dict(solved.dtypes)  # meta matches what comes back
    expected = solve_records(
        [Record(i, p) for i, p in enumerate([*EASY, "12345"])], SolveOptions(FAST)
    )
    assert result["status"].tolist() == [row[0] for row in expected] + ["invalid"]
    assert result["solution"].tolist()[: len(EASY)] == [row[1] for row in expected[: len(EASY)]]
    assert result["backend"].tolist()[: len(EASY)] == [row[2] for row in expected[: len(EASY)]]
    assert (result["seconds"] >= 0).all()
    errors = result["error"].tolist()
    assert "solution differs" in errors[3]
    assert errors[0] == ""
    assert "not the cell count" in errors[-2]
    assert "missing puzzle" in errors[-1]


def test_bag_of_puzzle_strings(client: distributed.Client) -> None:
    bag = db.from_sequence([*EASY[:50], "bad", None], npartitions=4)
    items = client.compute(solve_bag(bag, backend=FAST)).result()
    assert [item["puzzle"] for item in items] == [*EASY[:50], "bad", None]
    assert [item["status"] for item in items] == ["unique"] * 50 + ["invalid"] * 2
    assert set(items[0]) == {"puzzle", *RESULT_COLUMNS}
    # Without the logic pass every puzzle goes to the backend, as with --no-presolve.
    direct = client.compute(solve_bag(bag, backend=FAST, presolve=False)).result()
    records = [Record(i, p) for i, p in enumerate([*EASY[:50], "bad", ""])]
    expected = solve_records(records, SolveOptions(FAST, presolve=False))
    assert [item["backend"] for item in direct] == [row[2] for row in expected]
    assert [item["solution"] for item in direct] == [item["solution"] for item in items]


def test_mistakes_are_caught_before_any_work(tmp_path: Path) -> None:
    frame = dd.from_pandas(pd.DataFrame({"quizzes": [1, 2], "p": ["a", "b"]}), npartitions=1)
    with pytest.raises(TypeError, match="leading zeros"):
        solve_dataframe(frame, "quizzes")
    with pytest.raises(KeyError, match="no column 'puzzle'"):
        solve_dataframe(frame, "puzzle")
    with pytest.raises(UnknownBackendError):
        solve_dataframe(frame, "p", backend="nope")
    bag = db.from_sequence(["a"], npartitions=1)
    for spec in ("sat:nope", 5):  # a bad variant, or no text at all
        with pytest.raises(UnknownBackendError):
            solve_bag(bag, backend=spec)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NaN"):
        solve_bag(bag, time_limit=float("nan"))


def test_a_bag_of_bytes_is_read_as_text(client: distributed.Client) -> None:
    bag = db.from_sequence([EASY[0].encode(), b"\xff\xfe"], npartitions=1)
    items = client.compute(solve_bag(bag, backend=FAST)).result()
    assert [item["status"] for item in items] == ["unique", "invalid"]
    assert "undecodable" in items[1]["error"]


def test_dashboard_address_is_announced(
    client: distributed.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cpsudoku.datasets.cluster
    from cpsudoku.datasets.cluster import dashboard_address, run_cluster_batch
    from cpsudoku.datasets.records import read_records

    assert dashboard_address(client) is None  # this machine's scheduler has no bokeh
    # The scheduler runs in this process, so it sees the patched check.
    monkeypatch.setattr(cpsudoku.datasets.cluster, "_scheduler_has_bokeh", lambda: True)
    link = dashboard_address(client)
    assert link is not None
    assert link.startswith("http://")
    assert link.endswith("/status")
    src = tmp_path / "in.txt"
    src.write_text("\n".join(EASY[:20]) + "\n")
    notices: list[str] = []
    summary = run_cluster_batch(
        read_records(str(src)),
        str(tmp_path / "out.csv"),
        SolveOptions(FAST),
        scheduler=client.scheduler.address,
        log=notices.append,
    )
    # Each client names the host in its own way; the port is the dashboard's.
    port = link.rsplit(":", 1)[1]
    assert summary.dashboard is not None
    assert summary.dashboard.endswith(f":{port}")
    assert notices == [f"Dask dashboard at {summary.dashboard}"]
    assert summary.records == 20


def test_a_pandas_frame_is_solved_in_its_order(client: distributed.Client) -> None:
    expected = solve_records([Record(i, p) for i, p in enumerate(EASY[:30])], SolveOptions(FAST))
    solutions = [row[1] for row in expected]
    solutions[5] = solutions[6]  # found by the auto-detected solutions column
    frame = pd.DataFrame(
        {"quizzes": EASY[:30], "Solutions": solutions}, index=list(range(30, 0, -1))
    )
    solved = solve_dataframe(frame, "quizzes", backend=FAST)
    assert isinstance(solved, dd.DataFrame)
    result = client.compute(solved).result()
    assert result.index.tolist() == list(range(30, 0, -1))  # an unsorted index, kept
    assert result["solution"].tolist() == [row[1] for row in expected]
    errors = result["error"].tolist()
    assert "solution differs" in errors[5]
    assert errors.count("") == 29
    unchecked = client.compute(solve_dataframe(frame, "quizzes", solution_column=None)).result()
    assert unchecked["error"].tolist() == [""] * 30


def test_something_else_than_a_frame_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="Dask or pandas DataFrame, not a list"):
        solve_dataframe(EASY[:3])  # type: ignore[arg-type]


def test_rules_travel_whole_to_cluster_tasks(client: distributed.Client) -> None:
    from conftest import X, x_puzzle

    from cpsudoku import solve

    text = str(x_puzzle())
    bag = db.from_sequence([text] * 4, npartitions=2)
    items = client.compute(solve_bag(bag, backend=FAST, box=X)).result()
    assert [item["status"] for item in items] == ["unique"] * 4
    assert {item["solution"] for item in items} == {str(solve(text, box=X).solution)}
    classic = client.compute(solve_bag(bag, backend=FAST)).result()
    assert {item["status"] for item in classic} == {"multiple"}  # the diagonals mattered


@pytest.fixture
def numbers_csv(tmp_path: Path) -> Path:
    """Kaggle's layout, with puzzles whose first cells are empty: 0s that pandas drops."""
    quizzes = [p.replace(".", "0") for p in EASY[:40]]
    assert sum(q.startswith("0") for q in quizzes) >= 5
    expected = solve_records([Record(i, p) for i, p in enumerate(EASY[:40])], SolveOptions(FAST))
    path = tmp_path / "sudoku.csv"
    path.write_text(
        "quizzes,solutions\n"
        + "".join(f"{q},{row[1]}\n" for q, row in zip(quizzes, expected, strict=True))
    )
    return path


def test_puzzles_read_as_numbers_are_refused_or_padded_by_the_box(
    client: distributed.Client, numbers_csv: Path
) -> None:
    frame = pd.read_csv(numbers_csv)  # no dtype=str: 81 digits come as Python ints
    assert not isinstance(frame["quizzes"][0], str)
    with pytest.raises(TypeError, match=r"leading zeros.*dtype=str"):
        solve_dataframe(frame, "quizzes", backend=FAST)
    text = pd.read_csv(numbers_csv, dtype=str)
    want = client.compute(solve_dataframe(text, "quizzes", backend=FAST)).result()
    got = client.compute(solve_dataframe(frame, "quizzes", backend=FAST, box="3x3")).result()
    assert got["status"].tolist() == ["unique"] * 40
    assert got["solution"].tolist() == want["solution"].tolist()
    assert got["error"].tolist() == [""] * 40  # the solutions column, numbers too, checked
    # A short grid fits in int64: a numeric column, padded the same way.
    fours = ["1.343..2.3..2..3", "..4.3......1.2.."]
    small = pd.DataFrame({"quizzes": [int(p.replace(".", "0")) for p in fours]})
    assert small["quizzes"].dtype.kind == "i"
    with pytest.raises(TypeError, match="leading zeros"):
        solve_dataframe(small, "quizzes", backend=FAST)
    solved = client.compute(solve_dataframe(small, "quizzes", backend=FAST, box="2x2")).result()
    assert solved["status"].tolist() == ["unique", "unique"]


def test_digits_that_lost_their_zeros_in_a_dask_frame_say_so(
    client: distributed.Client, numbers_csv: Path
) -> None:
    """dd.read_csv turns the numbers into strings: each short row names the cause."""
    from cpsudoku.datasets.dask import LOST_ZEROS

    df = dd.read_csv(numbers_csv)
    result = client.compute(solve_dataframe(df, "quizzes", backend=FAST)).result()
    short = [q for q in pd.read_csv(numbers_csv, dtype=str)["quizzes"] if q.startswith("0")]
    invalid = result[result["status"] == "invalid"]
    assert len(invalid) == len(short)
    assert all(error.endswith(LOST_ZEROS) for error in invalid["error"])
    assert "dtype=str" in LOST_ZEROS
