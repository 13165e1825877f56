"""The benchmark harness on a tiny run: reports, agreement, budget rules."""

import csv
from pathlib import Path

import pytest
from conftest import DATA, run_blocked

from cpsudoku.bench import BenchError, find_manifest, load_manifest, select_datasets
from cpsudoku.bench.harness import _disagreement
from cpsudoku.bench.runners import Measurement
from cpsudoku.cli import main


def test_manifest_lists_bundled_files_easy_to_hardest() -> None:
    manifest = load_manifest(find_manifest())
    names = [d.name for d in manifest if d.default]
    assert names[0] == "easy_kaggle1m"
    assert names.index("clue17") < names.index("forum_hardest_1106") < names.index("25x25")
    for ds in manifest:
        assert ds.path.is_file(), ds.path
        assert ds.puzzles(3), ds.name
    band = next(d for d in manifest if d.name == "kaggle3m_6-8")
    assert len(band.puzzles()) > 100


def test_a_default_run_holds_no_variant_set() -> None:
    """As README says: the killer sample and the generated variant sets run when named."""
    defaults = [d.name for d in select_datasets([], load_manifest(find_manifest()))]
    assert "killer" not in defaults
    assert not [name for name in defaults if name.startswith("variant:")]
    assert "killer" in [d.name for d in select_datasets(["killer"], load_manifest(find_manifest()))]


def test_two_datasets_under_one_name_are_an_error(tmp_path: Path) -> None:
    """Rows and report sections are keyed by name: two sets under one would merge."""
    (tmp_path / "other").mkdir()
    for path in (tmp_path / "t3.txt", tmp_path / "other" / "t3.txt"):
        path.write_text("1.343..2.3..2..3\n")
    manifest = load_manifest(find_manifest())
    for names in (
        [str(tmp_path / "t3.txt"), str(tmp_path / "other" / "t3.txt")],
        ["clue17", "clue17"],
    ):
        with pytest.raises(BenchError, match="two datasets named"):
            select_datasets(names, manifest)


def test_unknown_dataset_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown dataset"):
        select_datasets(["no_such_set"], load_manifest(find_manifest()))


def test_small_run_writes_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench"
    code = main(
        [
            "bench",
            "--datasets",
            str(DATA / "top95.txt"),
            "easy_kaggle1m",
            "--backends",
            "backtrack,backtrack:naive",
            "--limit",
            "3",
            "--time-limit",
            "0.5",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    with (out / "results.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * 3
    assert {r["engine"] for r in rows} == {"backtrack", "backtrack:naive"}
    assert all(r["backend"] == r["engine"] for r in rows)  # the spec that answered
    oracle = [r for r in rows if r["engine"] == "backtrack"]
    assert all(r["status"] == "unique" for r in oracle)
    assert all(r["agree"] == "1" for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| backtrack |" in summary
    assert "puzzles/s" in summary
    assert "All engines agreed" in summary
    for png in ("cactus.png", "throughput.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "python" in (out / "machine.json").read_text()


def test_give_up_skips_rest_of_dataset(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    assert (
        main(
            [
                "bench",
                "--datasets",
                "top95",
                "--backends",
                "backtrack:naive",
                "--limit",
                "5",
                "--time-limit",
                "0.02",
                "--give-up",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    with (out / "results.csv").open(newline="") as fh:
        statuses = [r["status"] for r in csv.DictReader(fh)]
    assert statuses == ["timeout", "timeout", "skipped", "skipped", "skipped"]
    summary = (out / "summary.md").read_text()
    assert "| backtrack:naive | 2/5 |" in summary


def test_disagreement_detection() -> None:
    def m(engine: str, status: str, solution: str = "") -> Measurement:
        return Measurement("d", engine, 0, "p", status, 0.1, solution)

    assert _disagreement([m("a", "unique", "12"), m("b", "unique", "12")]) is None
    assert _disagreement([m("a", "unique", "12"), m("b", "timeout")]) is None
    assert "b says multiple" in (_disagreement([m("a", "unique", "1"), m("b", "multiple")]) or "")
    assert "different solutions" in (
        _disagreement([m("a", "unique", "12"), m("b", "unique", "21")]) or ""
    )


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--list"]) == 0
    assert "forum_hardest_1106" in capsys.readouterr().out


def test_logic_and_pipeline_rows(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    assert (
        main(
            [
                "bench",
                "--datasets",
                "easy_kaggle1m",
                "clue17",
                "--backends",
                "backtrack,logic,batch+backtrack",
                "--limit",
                "40",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    with (out / "results.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    logic = [r for r in rows if r["engine"] == "logic"]
    assert {r["status"] for r in logic} <= {"unique", "undecided"}
    assert all(r["status"] == "unique" for r in logic if r["dataset"] == "easy_kaggle1m")
    pipeline = [r["status"] for r in rows if r["engine"] == "batch+backtrack"]
    assert pipeline == ["unique"] * 80
    assert all(r["agree"] == "1" for r in rows)


@pytest.mark.parametrize(
    ("spec", "keeps"),
    [
        ("sat", True),
        ("sat:fresh", False),
        ("cpsat", True),
        ("cpsat:sample", False),
        ("backtrack", False),
        ("portfolio", True),
    ],
)
def test_only_engines_that_keep_rules_are_warmed_up(spec: str, keeps: bool) -> None:
    from cpsudoku.engines import create_backend

    with create_backend(spec) as backend:
        assert backend.keeps_rules is keeps


def test_without_matplotlib_the_tables_are_still_written(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    args = ["bench", "--datasets", str(DATA / "top95.txt"), "--backends", "backtrack"]
    done = run_blocked({"matplotlib"}, *args, "--limit", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "pip install 'cpsudoku[plot]'" in done.stderr
    assert "LOADED []" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == ["machine.json", "results.csv", "summary.md"]


def test_the_manifest_is_found_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = find_manifest()
    assert found.is_file()
    assert found.resolve() == (Path(__file__).parent.parent / "benchmarks" / "datasets.toml")
    with pytest.raises(BenchError, match=r"no benchmark manifest at .*nope\.toml"):
        find_manifest(str(tmp_path / "nope.toml"))


def test_the_canon_row_times_canonical_forms_per_dataset(tmp_path: Path) -> None:
    from cpsudoku import canonical
    from cpsudoku.bench.runners import make_runner

    out = tmp_path / "bench"
    args = ["bench", "--datasets", "clue17", "variant:jigsaw", "--backends", "canon", "sat"]
    assert main([*args, "--limit", "5", "--out", str(out)]) == 0
    with (out / "results.csv").open(newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["engine"] == "canon"]
    by_set = {(r["dataset"], r["status"]) for r in rows}
    assert by_set == {("clue17", "canonical"), ("variant:jigsaw", "skipped")}  # no boxes
    lines = (DATA / "clue17_royle_200.txt").read_text().split()[:3]
    for m, line in zip(make_runner("canon", 2)(lines, 5.0, "t"), lines, strict=True):
        assert m.solution == str(canonical(line).form)
        assert m.seconds > 0


def test_the_peer_row_runs_pencilmark_on_the_same_puzzles(tmp_path: Path) -> None:
    pytest.importorskip("pencilmark")
    out = tmp_path / "bench"
    args = ["bench", "--datasets", "killer", "variant:jigsaw", "--backends", "pencilmark", "sat"]
    assert main([*args, "--limit", "3", "--out", str(out)]) == 0  # 0: every answer agreed
    with (out / "results.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    peer = [r for r in rows if r["engine"] == "pencilmark"]
    assert [r["status"] for r in peer] == ["unique"] * 6
    assert all(r["agree"] == "1" for r in peer)  # the same solution as sat's, each
    # A multi-solution puzzle is multiple for the peer too, and agrees.
    from cpsudoku.bench.runners import make_runner

    (m,) = make_runner("pencilmark", 2)(["." * 81], 5.0, "t")
    assert m.status == "multiple"
