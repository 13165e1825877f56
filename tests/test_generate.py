"""Grid and puzzle generation: validity, uniqueness by a second engine, minimality,
symmetry, targets, reproducibility, dataset files and the CLI."""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from cpsudoku import generate_grid, generate_puzzle, generate_puzzles, parse
from cpsudoku.cli import main
from cpsudoku.engines import REGISTRY, get_backend, uniqueness_checker
from cpsudoku.generate import (
    GeneratedPuzzle,
    GenerationError,
    Symmetry,
    dataset_text,
    orbits,
    write_dataset,
)
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution
from cpsudoku.rating import Grade, rate_puzzle

G9 = Rules.classic(3, 3)
_LOGIC_COUNT = {Status.UNSOLVABLE: 0, Status.UNIQUE: 1, Status.MULTIPLE: 2}


def second_engine(g: Rules) -> str:
    """An engine independent of the one generation uses for ``g``: the oracle when
    generation uses a solver, else a solver, else the logic rater (which proves
    uniqueness on its own, by trial placements)."""
    if uniqueness_checker(g) != "backtrack":
        return "backtrack"
    return next((b for b in ("sat", "cpsat") if b in REGISTRY), "logic")


def second_count(puzzle: Puzzle) -> int:
    """Solutions of ``puzzle`` up to 2, per the second engine."""
    engine = second_engine(puzzle.rules)
    if engine == "logic":
        return _LOGIC_COUNT[rate_puzzle(puzzle).status]
    return get_backend(engine).count(puzzle, limit=2).count


def second_solution(puzzle: Puzzle) -> Puzzle | None:
    engine = second_engine(puzzle.rules)
    if engine == "logic":
        return rate_puzzle(puzzle).solution
    return get_backend(engine).solve(puzzle).solution


def assert_valid_grid(grid: Puzzle) -> None:
    assert grid.is_complete
    assert not grid.conflicts()
    assert is_solution(grid, grid)


def assert_unique(item: GeneratedPuzzle) -> None:
    """Unique per the second engine, with the solution generation recorded."""
    assert second_count(item.puzzle) == 1
    assert second_solution(item.puzzle) == item.solution
    assert is_solution(item.puzzle, item.solution)


# ----------------------------------------------------------------- grids


@pytest.mark.parametrize(
    ("box", "count"), [("2x2", 50), ("2x3", 30), ("3x3", 20), ("2x4", 5), ("3x4", 3), ("4x4", 1)]
)
def test_grids_are_valid(box: str, count: int) -> None:
    rng = random.Random(11)
    for _ in range(count):
        grid = generate_grid(box, rng=rng)
        assert grid.rules.box_shape == box
        assert_valid_grid(grid)


def test_grids_are_reproducible_and_ignore_the_global_rng() -> None:
    random.seed(1)
    first = generate_grid("3x3", seed=42)
    random.seed(2)
    random.random()
    assert generate_grid("3x3", seed=42) == first
    assert generate_grid("3x3", seed=43) != first


def test_every_4x4_grid_comes_out() -> None:
    # There are 288 valid 4x4 grids: all appear, none hugely more often than another
    # (not a uniformity proof, see the module docs; a fixed seed keeps it deterministic).
    rng = random.Random(5)
    seen = Counter(generate_grid("2x2", rng=rng) for _ in range(5760))
    assert len(seen) == 288
    assert max(seen.values()) < 6 * min(seen.values())


def test_seed_and_rng_are_exclusive() -> None:
    with pytest.raises(ValueError, match="not both"):
        generate_grid("2x2", seed=1, rng=random.Random(1))


# ----------------------------------------------------------------- puzzles


@pytest.mark.parametrize(("box", "count"), [("2x2", 10), ("2x3", 5), ("3x3", 6)])
def test_minimal_puzzles_are_unique_per_a_second_engine(box: str, count: int) -> None:
    for item in generate_puzzles(count, box, seed=3):
        assert_unique(item)
        assert item.puzzle.rules.box_shape == box


def test_minimal_means_no_clue_can_go() -> None:
    for item in generate_puzzles(2, "3x3", seed=8):
        cells = list(item.puzzle.cells)
        for i, v in enumerate(cells):
            if v:
                cells[i] = 0
                assert second_count(Puzzle(item.puzzle.rules, tuple(cells))) == 2
                cells[i] = v


def test_symmetric_minimal_means_no_symmetric_pair_can_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As the help says: with a symmetry no orbit can go, yet a single clue may."""
    singles = 0
    for item in generate_puzzles(4, "3x3", symmetry="rotational", seed=8):
        g = item.puzzle.rules
        for orbit in orbits(g, "rotational"):
            cells = list(item.puzzle.cells)
            if not cells[orbit[0]]:
                continue
            for i in orbit:
                cells[i] = 0
            assert second_count(Puzzle(g, tuple(cells))) == 2
            for i in orbit:  # one clue of the pair alone
                cells = list(item.puzzle.cells)
                cells[i] = 0
                singles += second_count(Puzzle(g, tuple(cells))) == 1
    assert singles > 0  # so "minimal" is minimal over pairs, not over clues
    assert main(["generate", "--help"]) == 0
    assert "symmetric pair" in capsys.readouterr().out


def test_clue_target_is_met_exactly() -> None:
    item = generate_puzzle("3x3", clues=30, seed=4)
    assert item.puzzle.givens == 30
    assert_unique(item)


def test_16x16_puzzle_with_a_clue_target() -> None:
    item = generate_puzzle("4x4", clues=160, seed=2)
    assert item.puzzle.givens == 160
    assert_valid_grid(item.solution)
    assert_unique(item)


@pytest.mark.parametrize("symmetry", list(Symmetry))
def test_symmetry_is_respected(symmetry: Symmetry) -> None:
    for item in generate_puzzles(3, "3x3", symmetry=symmetry, seed=6):
        assert_unique(item)
        cells = item.puzzle.cells
        for orbit in orbits(item.puzzle.rules, symmetry):
            assert len({bool(cells[i]) for i in orbit}) == 1, orbit
        n = 9
        for r in range(n):
            for c in range(n):
                if symmetry is Symmetry.ROTATIONAL:
                    image = (n - 1 - r) * n + n - 1 - c
                elif symmetry is Symmetry.MIRROR:
                    image = r * n + n - 1 - c
                else:
                    continue
                assert bool(cells[r * n + c]) == bool(cells[image])


def test_orbits_partition_the_grid() -> None:
    g = Rules.classic(2, 3)
    for symmetry in Symmetry:
        cells = [i for orbit in orbits(g, symmetry) for i in orbit]
        assert sorted(cells) == list(range(g.cells))


def test_puzzles_are_reproducible_and_independent_of_the_checker() -> None:
    first = [p.puzzle for p in generate_puzzles(3, "3x3", seed=21)]
    other = second_engine(G9)
    other = other if other != "logic" else uniqueness_checker(G9)  # same puzzles, any checker
    again = [p.puzzle for p in generate_puzzles(3, "3x3", seed=21, backend=other)]
    assert first == again
    assert [p.puzzle for p in generate_puzzles(3, "3x3", seed=22)] != first


@pytest.mark.parametrize("grade", [Grade.EASY, Grade.HARD])
def test_difficulty_target(grade: Grade) -> None:
    item = generate_puzzle("3x3", difficulty=grade, seed=9)
    assert item.rating is not None
    assert item.rating.grade is grade
    assert rate_puzzle(item.puzzle).grade is grade
    assert_unique(item)


def test_unreachable_targets_raise() -> None:
    with pytest.raises(GenerationError, match="no extreme puzzle in 3 attempt"):
        generate_puzzle("2x2", difficulty="extreme", seed=1, max_attempts=3)
    with pytest.raises(GenerationError, match="with 12 clues"):
        generate_puzzle("3x3", clues=12, seed=1, max_attempts=2)
    with pytest.raises(ValueError, match=r"0\.\.81 clues"):
        generate_puzzle("3x3", clues=82)
    with pytest.raises(ValueError, match="not a valid Grade"):
        generate_puzzle("3x3", difficulty="fiendish")


def test_generated_puzzles_rate_as_unique() -> None:
    # The rater proves uniqueness on its own, without any solver.
    for item in generate_puzzles(3, "2x3", seed=12):
        rating = rate_puzzle(item.puzzle)
        assert rating.status is Status.UNIQUE
        assert rating.solution == item.solution


# ----------------------------------------------------------------- datasets and CLI


def test_dataset_formats(tmp_path: Path) -> None:
    items = list(generate_puzzles(2, "2x2", seed=1))
    lines = dataset_text(items).splitlines()
    assert lines == [str(i.puzzle) for i in items]
    for suffix in (".csv", ".jsonl"):
        path = tmp_path / f"out{suffix}"
        assert write_dataset(items, path) == 2
        text = path.read_text()
        if suffix == ".csv":
            rows = list(csv.DictReader(io.StringIO(text)))
        else:
            rows = [json.loads(line) for line in text.splitlines()]
        assert [r["puzzle"] for r in rows] == [str(i.puzzle) for i in items]
        assert [r["solution"] for r in rows] == [str(i.solution) for i in items]
        assert all(parse(r["puzzle"]) == i.puzzle for r, i in zip(rows, items, strict=True))
    with pytest.raises(ValueError, match=r"\.txt, \.csv, \.jsonl"):
        write_dataset(items, tmp_path / "out.xlsx")


def test_cli_generate_to_stdout_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "--count", "3", "--seed", "5", "--box", "2x3", "--symmetry", "mirror"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert main(argv) == 0
    second = capsys.readouterr()
    lines = first.out.splitlines()
    assert len(lines) == 3
    assert second.out == first.out
    assert "seed 5" in first.err
    for line in lines:
        assert second_count(parse(line, "2x3")) == 1


def test_cli_generate_csv_with_difficulty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "easy.csv"
    argv = ["generate", "--count", "2", "--clues", "36", "--difficulty", "easy", "--seed", "1"]
    assert main([*argv, "-o", str(out)]) == 0
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [list(r) for r in rows] == [["puzzle", "solution", "grade", "score"]] * 2
    assert all(r["grade"] == "easy" for r in rows)
    assert all(parse(r["puzzle"]).givens == 36 for r in rows)
    assert "2 puzzles" in capsys.readouterr().err


def test_cli_generate_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--clues", "30", "--minimal"]) == 2
    assert main(["generate", "--count", "0"]) == 2
    assert main(["generate", "--box", "3y3"]) == 2
    assert main(["generate", "--clues", "12", "--attempts", "1", "--seed", "1"]) == 2
    assert "with 12 clues" in capsys.readouterr().err


# ----------------------------------------------------------------- bounded grid fills


def _bounded_fill(monkeypatch: pytest.MonkeyPatch, limit: int, fail: bool = False) -> list[int]:
    """Count calls of the randomized fill and stop a test that would restart without bound.

    With ``fail`` every fill reports hitting its node cap. Returns the call counter.
    """
    import cpsudoku.generate.grids as gen

    real = gen.random_fill
    calls = [0]

    def fill(g: Rules, rng: random.Random) -> list[int] | None:
        calls[0] += 1
        if calls[0] > limit:
            raise AssertionError(f"the fill restarted more than {limit} times")
        return None if fail else real(g, rng)

    monkeypatch.setattr(gen, "random_fill", fill)
    return calls


@pytest.mark.parametrize("box", ["6x6", "40x1", "5x6"])
def test_big_grids_end_valid_and_reproducible(box: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _bounded_fill(monkeypatch, 10)
    grid = generate_grid(box, seed=1)
    assert_valid_grid(grid)
    assert grid.rules.box_shape == box
    assert generate_grid(box, seed=1) == grid
    assert generate_grid(box, seed=2) != grid


def test_a_fill_that_keeps_stalling_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _bounded_fill(monkeypatch, 1000, fail=True)
    for box in ("3x3", "2x3", "3x2"):
        grid = generate_grid(box, seed=4)
        assert_valid_grid(grid)
        assert generate_grid(box, seed=4) == grid
    assert 0 < calls[0] <= 600


# ----------------------------------------------------------------- failed runs keep files


def test_cli_failed_generate_leaves_an_existing_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.csv").write_text("keep\n")
    argv = ["generate", "--count", "3", "--clues", "17", "--attempts", "1", "--seed", "5"]
    assert main([*argv, "-o", "keep.csv", "--force"]) == 2
    assert "with 17 clues" in capsys.readouterr().err
    assert (tmp_path / "keep.csv").read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv"]


def test_write_dataset_replaces_a_file_only_when_all_is_written(tmp_path: Path) -> None:
    items = list(generate_puzzles(2, "2x2", seed=1))
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    path.chmod(0o640)

    def failing() -> Iterator[GeneratedPuzzle]:
        yield items[0]  # written to the temporary file, then the run fails
        raise GenerationError("target not reached")

    with pytest.raises(GenerationError):
        write_dataset(failing(), path)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    assert write_dataset(iter(items), path) == 2
    assert [json.loads(line)["puzzle"] for line in path.read_text().splitlines()] == [
        str(i.puzzle) for i in items
    ]
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    with pytest.raises(FileNotFoundError) as info:
        write_dataset(items, tmp_path / "missing" / "out.txt")
    assert info.value.filename == str(tmp_path / "missing" / "out.txt")


# ----------------------------------------------------------------- impossible symmetric targets


@pytest.mark.parametrize("symmetry", [Symmetry.ROTATIONAL, Symmetry.MIRROR])
@pytest.mark.parametrize("box", ["2x2", "2x3", "4x4"])
def test_odd_clues_on_even_sides_under_symmetry_are_rejected_at_once(
    symmetry: Symmetry, box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cpsudoku.generate.puzzles as gen

    def no_grids(g: Rules, rng: random.Random) -> Puzzle:
        raise AssertionError("a grid was made for an impossible target")

    monkeypatch.setattr(gen, "random_grid", no_grids)
    n = Rules.classic(*map(int, box.split("x"))).n
    message = f"{symmetry} symmetry on a {n}x{n} grid every clue has a partner"
    with pytest.raises(ValueError, match=message):
        generate_puzzle(box, clues=5, symmetry=symmetry, seed=1)
    with pytest.raises(ValueError, match="clue count must be even, not 5"):
        generate_puzzles(2, box, clues=5, symmetry=symmetry, seed=1)  # at the call


@pytest.mark.parametrize("symmetry", list(Symmetry))
def test_odd_clues_on_odd_sides_are_allowed(symmetry: Symmetry) -> None:
    # The center cell (rotational) or the middle column (mirror) are one-cell orbits.
    item = generate_puzzle("3x3", clues=35, symmetry=symmetry, seed=2)
    assert item.puzzle.givens == 35
    cells = item.puzzle.cells
    assert all(len({bool(cells[i]) for i in orbit}) == 1 for orbit in orbits(G9, symmetry))
    assert generate_puzzle("2x2", clues=6, symmetry=symmetry, seed=2).puzzle.givens == 6
    assert generate_puzzle("2x2", clues=5, seed=2).puzzle.givens == 5


def test_cli_rejects_odd_clues_under_symmetry_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["generate", "--box", "2x2", "--clues", "7", "--symmetry", "rotational"]
    assert main([*argv, "-o", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err
    assert "rotational symmetry on a 4x4 grid every clue has a partner" in err
    assert "attempts" not in err
    assert list(tmp_path.iterdir()) == []


def test_generation_reports_each_clue_it_tries() -> None:
    """The progress hook sees every clue of each attempt tried, in order."""
    seen: list[tuple[int, int, int]] = []
    item = generate_puzzle("2x2", seed=4, on_step=lambda a, k, n: seen.append((a, k, n)))
    assert seen
    assert all(n == 16 for _, _, n in seen)
    first = [k for a, k, _ in seen if a == 1]
    assert first == list(range(len(first)))
    assert item.puzzle == generate_puzzle("2x2", seed=4).puzzle  # the hook changes nothing
