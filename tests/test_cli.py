"""The command line, called through main(argv) and once as a real subprocess."""

import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import read_lines

from cpsudoku.cli import main

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", PUZZLE, "--backend", "backtrack", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["status"] == "unique"
    assert data["solution"].startswith("417369825")
    assert set(data) == {"status", "solution", "backend", "seconds", "error"}


def test_solve_human_output_draws_boxes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", PUZZLE, "--backend", "backtrack")
    assert code == 0
    assert "+" in out
    assert "unique" in out


def test_solve_from_file_and_stdin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.txt"
    path.write_text(PUZZLE + "\n")
    assert run(capsys, "solve", str(path), "--backend", "backtrack", "--json")[0] == 0
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(PUZZLE))
    code, out, _ = run(capsys, "solve", "-", "--backend", "backtrack", "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"


def test_no_unique_and_box(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "solve", "." * 36, "--box", "3x2", "--no-unique", "--json", "--backend", "backtrack"
    )
    assert code == 0
    assert json.loads(out)["status"] == "solved"


def test_unsolvable_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    puzzle = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."
    code, out, _ = run(capsys, "solve", puzzle, "--backend", "backtrack", "--json")
    assert code == 1
    assert json.loads(out)["status"] == "unsolvable"


def test_timeout_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "solve", PUZZLE, "--backend", "backtrack:naive", "--time-limit", "0.01", "--json"
    )
    assert code == 3
    assert json.loads(out)["status"] == "timeout"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["solve", PUZZLE[:-1]], "80"),
        (["solve", PUZZLE[:5] + "?" + PUZZLE[6:]], "row 1, column 6"),
        (["solve", "5" + PUZZLE[1:]], "appears twice"),
        (["solve", "." * 36, "--box", "2x2"], "16 cells"),
        (["solve", PUZZLE, "--box", "three"], "RxC"),
        (["solve", PUZZLE, "--backend", "nosuch"], "backtrack"),
        (["count", PUZZLE[:-3]], "78"),
        (["count", "5" + PUZZLE[1:]], "appears twice"),
        (["count", PUZZLE, "--limit", "0"], "limit"),
    ],
)
def test_bad_input_exit_2_with_json_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 2
    data = json.loads(out)
    assert fragment in data["error"]


def test_bad_input_human_message_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "count", "123")
    assert code == 2
    assert "3 cells" in err
    assert out == ""


def test_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "solve")[0] == 2
    assert run(capsys, "nosuchcommand")[0] == 2
    assert run(capsys, "--help")[0] == 0


def test_count_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "count", "." * 16, "--limit", "1000", "--json", "--backend", "backtrack"
    )
    assert code == 0
    assert json.loads(out) == {**json.loads(out), "count": 288, "limit": 1000, "complete": True}
    code, out, _ = run(
        capsys, "count", "." * 16, "--limit", "5", "--json", "--backend", "backtrack"
    )
    assert json.loads(out)["count"] == 5
    assert json.loads(out)["complete"] is False


def test_python_dash_m_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cpsudoku", "solve", PUZZLE, "--backend", "backtrack", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "unique"


def test_a_single_solve_does_not_import_numpy() -> None:
    # numpy serves only the whole-array logic pass of a batch; importing it costs a
    # tenth of a second at every command, so the plain solve path must not.
    code = (
        "import sys; from cpsudoku.cli import main; "
        f"code = main(['solve', {PUZZLE!r}, '--json']); "
        "print(code, 'numpy' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-2:] == ["0", "False"]


@pytest.mark.parametrize("name", ["16x16_vukr_6.txt", "25x25_misc_3.txt"])
def test_a_big_puzzle_on_the_command_line(capsys: pytest.CaptureFixture[str], name: str) -> None:
    # A 16x16 line has 256 characters, more than a file name may have: asking the
    # file system whether such an argument is a file fails, and it is text.
    puzzle = read_lines(name, 1)[0]
    assert len(puzzle) > 255
    for argv in (
        ["solve", "--json"],
        ["count", "--json"],
        ["rate", "--json"],
        ["export", "--to", "dimacs"],
    ):
        code, out, err = run(capsys, argv[0], puzzle, *argv[1:])
        assert code == 0, err
        if argv[0] == "export":
            assert out.startswith("c cpsudoku:")
        else:
            assert json.loads(out)
    code, out, _ = run(capsys, "solve", puzzle, "--json")
    assert json.loads(out)["status"] == "unique"


@pytest.mark.parametrize("seconds", ["-1", "0", "nan"])
@pytest.mark.parametrize("command", ["solve", "count", "batch", "bench"])
def test_time_limit_must_be_positive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, seconds: str
) -> None:
    src = tmp_path / "p.txt"
    src.write_text(PUZZLE + "\n")
    target = {"solve": PUZZLE, "count": PUZZLE, "batch": str(src)}
    argv = [command, *([target[command]] if command in target else [])]
    out_dir = ["--out", str(tmp_path / "bench")] if command == "bench" else []
    code, _, err = run(capsys, *argv, *out_dir, "--time-limit", seconds)
    assert code == 2
    assert "--time-limit must be a positive number of seconds" in err
    assert not (tmp_path / "bench").exists()


@pytest.mark.parametrize("command", ["solve", "count", "rate", "export"])
def test_a_file_of_puzzles_points_to_batch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    src = tmp_path / "two.txt"
    src.write_text(f"# two puzzles\n{PUZZLE}\n{PUZZLE}\n")
    extra = ["--to", "dimacs"] if command == "export" else []
    code, _, err = run(capsys, command, str(src), *extra)
    assert code == 2
    assert "the input holds 2 puzzles, one per line" in err
    assert "cpsudoku batch" in err


def test_a_grid_over_several_lines_is_still_one_puzzle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "grid.txt"
    src.write_text("\n".join(PUZZLE[r * 9 : r * 9 + 9] for r in range(9)) + "\n")
    code, out, _ = run(capsys, "solve", str(src), "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"
    src.write_text(f"{PUZZLE}\n{PUZZLE}1\n")  # not all whole puzzles: the plain message
    code, _, err = run(capsys, "solve", str(src))
    assert code == 2
    assert "163 cells" in err
    assert "batch" not in err


@pytest.mark.parametrize("command", ["export", "generate", "batch"])
def test_an_output_that_cannot_be_written_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    src = tmp_path / "p.txt"
    src.write_text(PUZZLE + "\n")
    target = tmp_path / "no such folder" / "out.csv"
    argv = {
        "export": ["export", PUZZLE, "--to", "dimacs"],
        "generate": ["generate", "--count", "1", "--seed", "1"],
        "batch": ["batch", str(src), "--quiet"],
    }[command]
    code, _, err = run(capsys, *argv, "-o", str(target))
    assert code == 2
    assert err.startswith(f"cpsudoku: error: {target}: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_truncated_compressed_input_is_a_clean_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    import bz2
    import gzip
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix]
    data = compress(("\n".join([PUZZLE] * 300) + "\n").encode())
    src = tmp_path / f"p.txt{suffix}"
    src.write_bytes(data[: len(data) // 2])
    code, _, err = run(capsys, "batch", str(src), "-o", str(tmp_path / "o.csv"), "--quiet")
    assert code == 2
    assert err.startswith(f"cpsudoku: error: cannot read {src}: ")


def test_bench_checks_its_report_folder_before_it_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    out = blocker / "reports"
    argv = ["bench", "--datasets", "top95", "--backends", "backtrack", "--limit", "1"]
    code, _, err = run(capsys, *argv, "--out", str(out))
    assert code == 2
    assert err.startswith(f"cpsudoku: error: {out}: ")
    assert "top95" not in err  # nothing was run


def test_jsonl_puzzle_fields_that_are_not_puzzles_are_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "p.jsonl"
    records = [
        {"puzzle": None},
        {"puzzle": {"a": 1}},
        {"puzzle": 5},
        {"quizzes": True},
        {"puzzle": [[1, None, 3, 4], [3, None, None, 2], [None, 3, None, None], [2, 0, 0, 3]]},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out.jsonl"
    code, _, _ = run(capsys, "batch", str(src), "-o", str(out), "--backend", "backtrack", "--quiet")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in rows] == ["invalid"] * 4 + ["unique"]
    assert 'the "puzzle" field is null, not a puzzle' in rows[0]["error"]
    assert 'the "puzzle" field is an object, not a puzzle' in rows[1]["error"]
    assert 'the "puzzle" field is a number, not a puzzle' in rows[2]["error"]
    assert 'the "quizzes" field is a boolean, not a puzzle' in rows[3]["error"]
    assert code == 4  # some records are invalid


def test_solve_a_file_with_a_comment_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "p.txt"
    path.write_text(f"# my puzzle\n{PUZZLE}\n")
    code, out, _ = run(capsys, "solve", str(path), "--backend", "backtrack", "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"


def test_small_puzzles_one_per_line_are_not_read_as_one_big_grid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Four 4x4 puzzles make 64 cells, an 8x8 grid, but four lines of 16 cells are
    no grid's rows; four lines of four cells are, and stay one 4x4 puzzle."""
    four = ["1.343..2.3..2..3", "4...........3..1", "2...........1..4", "1.34............"]
    src = tmp_path / "four.txt"
    src.write_text("\n".join(four) + "\n")
    code, _, err = run(capsys, "solve", str(src))
    assert code == 2
    assert "the input holds 4 puzzles, one per line" in err
    src.write_text("\n".join(four[0][r * 4 : r * 4 + 4] for r in range(4)) + "\n")
    code, out, _ = run(capsys, "solve", str(src), "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"


def test_bench_needs_a_positive_give_up(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "bench", "--give-up", "0", "--out", str(tmp_path / "b"))
    assert code == 2
    assert "--give-up must be at least 1" in err


def test_a_puzzle_from_a_pipe_and_not_from_a_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "puzzle"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer end, as a shell's <(echo ...) would be
        try:
            fifo.write_text(PUZZLE + "\n")
        finally:
            os._exit(0)
    try:
        code, out, _ = run(capsys, "solve", str(fifo), "--json")
    finally:  # a writer still blocked (nobody opened the pipe) must not hang the test
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert code == 0
    assert json.loads(out)["status"] == "unique"
    code, _, err = run(capsys, "solve", str(tmp_path))
    assert code == 2
    assert "is a folder" in err


def test_a_byte_order_mark_is_no_cell(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "puzzle.txt"
    src.write_text("\ufeff" + PUZZLE + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "solve", str(src), "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unique"


@pytest.mark.parametrize("command", ["export", "generate"])
def test_dash_output_is_standard_output(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = {
        "export": ["export", PUZZLE, "--to", "dimacs"],
        "generate": ["generate", "--box", "2x2", "--seed", "5"],
    }[command]
    code, out, _ = run(capsys, *argv, "-o", "-")
    assert code == 0
    assert out.strip()
    assert not (tmp_path / "-").exists()


def test_rate_json_keeps_its_keys_for_invalid_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rate", "1.343..2.3..2..3", "--json")
    assert code == 0
    good = json.loads(out)
    code, out, _ = run(capsys, "rate", "11.3..2.3..2..3.", "--json")
    assert code == 2
    bad = json.loads(out)
    assert list(bad) == list(good)
    assert bad["status"] == "invalid"
    assert "appears twice" in bad["error"]


@pytest.mark.parametrize(
    ("asked", "named"),
    [("sat:g4", "sat:glucose4"), ("cpsat:integer", "cpsat:integer"), ("backtrack", "backtrack")],
)
def test_json_names_the_whole_spec_that_answered(
    capsys: pytest.CaptureFixture[str], asked: str, named: str
) -> None:
    code, out, _ = run(capsys, "solve", PUZZLE, "--backend", asked, "--json")
    assert code == 0
    assert json.loads(out)["backend"] == named
    code, out, _ = run(capsys, "count", PUZZLE, "--backend", asked, "--json")
    assert json.loads(out)["backend"] == named
    code, out, _ = run(capsys, "solve", "12", "--backend", asked, "--json")
    assert code == 2
    assert json.loads(out)["backend"] == named


def test_batch_rows_name_the_whole_spec(tmp_path: Path) -> None:
    hard = read_lines("forum_hardest_1106_60.txt", 2)
    easy = read_lines("easy_kaggle1m_200.txt", 2)
    src = tmp_path / "in.txt"
    src.write_text("\n".join([*hard, *easy, "12"]) + "\n")
    for suffix in (".csv", ".jsonl"):
        out = tmp_path / f"out{suffix}"
        assert main(["batch", str(src), "-o", str(out), "--backend", "sat:g4", "--quiet"]) == 4
        text = out.read_text()
        rows = (
            [json.loads(line) for line in text.splitlines()]
            if suffix == ".jsonl"
            else list(csv.DictReader(text.splitlines()))
        )
        # The logic pass decides the easy ones; the engine answers the rest, bad input too.
        assert [r["backend"] for r in rows] == ["sat:glucose4"] * 2 + ["logic"] * 2 + [
            "sat:glucose4"
        ]


def test_a_solver_that_cannot_stop_names_its_stand_in() -> None:
    from cpsudoku import solve
    from cpsudoku.engines.sat import SatBackend

    assert not SatBackend(["lingeling"]).can_stop  # Lingeling takes no limit at all
    r = solve(PUZZLE, backend="sat:lingeling", time_limit=30)
    assert r.stats["fallback"] == 1
    assert r.backend == "sat:extended:cadical153"


@pytest.mark.parametrize("command", ["solve", "count", "rate"])
def test_json_has_the_same_keys_for_invalid_input(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Each result type writes its own JSON, an invalid input's too."""
    code, out, _ = run(capsys, command, "1.343..2.3..2..3", "--json", "--backend", "backtrack")
    assert code == 0
    good = json.loads(out)
    code, out, _ = run(capsys, command, "11.3..2.3..2..3.", "--json", "--backend", "backtrack")
    assert code == 2
    bad = json.loads(out)
    assert list(bad) == list(good)
    assert "appears twice" in bad["error"]
    assert good["error"] is None


# ------------------------------------------- progress lines, --json summaries, options

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["generate", "--count", "2", "--seed", "3", "-o", "{tmp}/g.txt", "--force"], "puzzle/s"),
        (["certify", HARD, "-o", "{tmp}/c"], "finding the core"),
        (["candidates", HARD], "candidates (sat)"),
        (["dedupe", "{tmp}/in.txt", "-o", "{tmp}/out.txt", "--force"], "record/s"),
        (
            [
                "bench",
                "--datasets",
                "top95",
                "--backends",
                "sat",
                "--limit",
                "2",
                "--out",
                "{tmp}/b",
            ],
            "top95 sat:",
        ),
    ],
)
def test_long_commands_show_progress_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    shown: str,
) -> None:
    (tmp_path / "in.txt").write_text(f"{HARD}\n{HARD}\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = run(capsys, *args)
    assert code == 0
    assert shown not in err  # not a terminal: no progress line
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(capsys, *args)
    assert code == 0
    assert shown in err
    code, _, err = run(capsys, *args, "--quiet")
    assert code == 0
    assert shown not in err


def test_check_certificate_shows_its_steps_on_a_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # capsys's stream, as a terminal
    assert run(capsys, "certify", HARD, "-o", str(tmp_path / "c"), "--quiet")[0] == 0
    code, out, err = run(capsys, "check-certificate", str(tmp_path / "c"))
    assert code == 0
    assert "checking the CNF against the plain encoding" in err
    assert "checking the proof" in err
    assert "certificate accepted" in out


def test_generate_json_summary_goes_where_the_puzzles_do_not(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "g.txt"
    code, out, err = run(
        capsys, "generate", "--count", "2", "--seed", "5", "-o", str(target), "--json"
    )
    assert code == 0
    summary = json.loads(out)
    assert set(summary) == {"puzzles", "output", "box", "seed", "checks", "seconds"}
    assert (summary["puzzles"], summary["output"], summary["box"], summary["seed"]) == (
        2,
        str(target),
        "3x3",
        5,
    )
    assert summary["checks"] > 0
    assert len(target.read_text().splitlines()) == 2
    code, out, err = run(capsys, "generate", "--count", "2", "--seed", "5", "--json")
    assert code == 0
    assert out.splitlines() == target.read_text().splitlines()  # stdout: the puzzles only
    assert json.loads(err)["output"] is None


def test_dedupe_json_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text(f"{HARD}\n{HARD}\nnot a puzzle\n")
    code, out, _ = run(capsys, "dedupe", str(source), "-o", str(tmp_path / "out.txt"), "--json")
    assert code == 4  # a record with no canonical form
    summary = json.loads(out)
    assert summary == {
        "records": 3,
        "kept": 1,
        "duplicates": 1,
        "invalid": 1,
        "output": str(tmp_path / "out.txt"),
        "report": str(tmp_path / "out.txt.classes.csv"),
        "seconds": summary["seconds"],
    }
    code, out, err = run(capsys, "dedupe", str(source), "-o", "-", "--json", "--quiet")
    assert len(out.splitlines()) == 2  # stdout: the kept records only
    assert json.loads(err)["report"] is None


def test_bench_json_summary_and_quiet(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["bench", "--datasets", "top95", "--backends", "sat", "backtrack", "--limit", "2"]
    code, out, err = run(capsys, *argv, "--out", str(tmp_path), "--json", "--quiet")
    assert code == 0
    assert err == ""
    summary = json.loads(out)
    assert summary["out"] == str(tmp_path)
    assert summary["datasets"] == ["top95"]
    assert summary["disagreements"] == []
    assert "results.csv" in summary["reports"]
    assert set(summary["engines"]) == {"sat", "backtrack"}
    assert summary["engines"]["sat"] == {
        "puzzles": 2,
        "answers": 2,
        "timeouts": 0,
        "refused": 0,
        "seconds": summary["engines"]["sat"]["seconds"],
    }


def test_certify_backend_and_time_limit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(
        capsys, "certify", HARD, "-o", str(tmp_path / "a"), "--backend", "cpsat", "--json"
    )
    assert code == 0
    record = json.loads(out)
    assert record["certified"]
    assert record["backend"] == "cpsat"
    assert run(capsys, "check-certificate", str(tmp_path / "a"))[0] == 0
    code, out, _ = run(
        capsys, "certify", HARD, "-o", str(tmp_path / "b"), "--time-limit", "1e-6", "--json"
    )
    assert code == 3
    record = json.loads(out)
    assert record["certified"] is False
    assert record["status"] == "timeout"
    assert "time limit" in record["reason"]
    assert not (tmp_path / "b").exists()
    code, _, err = run(capsys, "certify", HARD, "-o", str(tmp_path / "c"), "--time-limit", "1e-6")
    assert code == 3
    assert "time limit of 1e-06 s ran out" in err
    assert run(capsys, "certify", HARD, "-o", str(tmp_path / "d"), "--backend", "nosuch")[0] == 2
    assert run(capsys, "certify", HARD, "-o", str(tmp_path / "d"), "--time-limit", "0")[0] == 2


def test_candidates_backend_and_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    from cpsudoku.evidence.candidates import default_cache

    puzzle = "1..4.....3..2..3"
    answers = {}
    for spec in ("sat", "sat:glucose4", "cpsat", "backtrack"):
        code, out, _ = run(capsys, "candidates", puzzle, "--backend", spec, "--json")
        assert code == 0
        record = json.loads(out)
        assert record["backend"] == spec
        assert record["complete"]
        answers[spec] = record["candidates"]
    assert len({json.dumps(a) for a in answers.values()}) == 1
    default_cache().clear()  # an answer kept from an earlier call would need no time
    code, out, _ = run(capsys, "candidates", HARD, "--time-limit", "1e-6", "--json")
    assert code == 3
    record = json.loads(out)
    assert record["complete"] is False
    assert record["unique"] is False
    code, out, err = run(
        capsys, "candidates", HARD, "--backend", "backtrack", "--time-limit", "1e-6"
    )
    assert code == 3
    assert "time limit of 1e-06 s ran out" in err
    assert run(capsys, "candidates", puzzle, "--backend", "nosuch")[0] == 2
