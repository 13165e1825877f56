"""The logic solver and rater: sound steps, every technique, texts, statuses, CLI."""

from __future__ import annotations

import json
import re

import pytest
from conftest import read_lines

from cpsudoku import parse, rate
from cpsudoku.cli import main
from cpsudoku.engines import get_backend
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Status
from cpsudoku.model.rules import Rules
from cpsudoku.rating import (
    Candidates,
    ContradictionError,
    Grade,
    Rating,
    Step,
    Technique,
    rate_puzzle,
    score_of,
)

G9 = Rules.classic(3, 3)
ORACLE = get_backend("backtrack")

#: From Norvig's hardest list: needs trial placement.
HARD = "...92......68.3...19..7...623..4.1....1...7....8.3..297...8..91...5.72......64..."
#: From the forum's hardest list: refutations need nested trials.
NESTED = ".....7..8.3..2..9...84..3....6.......8.5..6..5.4..........9.8.2.1.....7.8..3..4.."

_CELLS = r"r\d+c\d+(, r\d+c\d+)*"
_VALUES = r"\d+(, \d+)*"
PLACEMENT_TEXT = re.compile(r"^r\d+c\d+ = \d+: \S")
ELIMINATION_TEXT = re.compile(rf"^{_CELLS} <> {_VALUES}(; {_CELLS} <> {_VALUES})*: \S")


def cell(r: int, c: int, n: int = 9) -> int:
    """Cell index from a 1-based row and column."""
    return (r - 1) * n + c - 1


def empty_grid() -> Candidates:
    return Candidates(Puzzle(G9, (0,) * 81))


def keep_only(s: Candidates, cells: list[int], values: set[int]) -> None:
    """Leave only ``values`` as candidates of ``cells``."""
    for i in cells:
        for v in range(1, 10):
            if v not in values:
                s.eliminate(i, v)


def remove_value(s: Candidates, cells: list[int], v: int) -> None:
    for i in cells:
        s.eliminate(i, v)


def check_sound(rating: Rating, solution: Puzzle) -> None:
    """Every placement matches the solution; no elimination removes a solution value."""
    for step in rating.steps:
        for i, v in step.placements:
            assert solution.cells[i] == v, step.text
        for i, v in step.eliminations:
            assert solution.cells[i] != v, step.text
        text_form = PLACEMENT_TEXT if step.placements else ELIMINATION_TEXT
        assert text_form.match(step.text), step.text


# ----------------------------------------------------------------- soundness on samples


@pytest.mark.parametrize(
    "line",
    read_lines("easy_norvig50.txt", 6)
    + read_lines("norvig_hardest.txt", 6)
    + read_lines("forum_hardest_1106_60.txt", 2),
)
def test_rating_agrees_with_the_oracle(line: str) -> None:
    puzzle = parse(line)
    rating = rate_puzzle(puzzle)
    solution = ORACLE.solve(puzzle).solution
    assert solution is not None
    assert rating.status is Status.UNIQUE
    assert rating.solution == solution
    check_sound(rating, solution)
    assert rating.score is not None
    assert rating.grade is Grade.of(rating.score)


def test_rating_works_for_other_box_shapes() -> None:
    for line, box in (
        ("1.343..2.3..2..3", None),
        (".2......3.4.5.....632.....52......1.", "2x3"),
        (read_lines("16x16_vukr_6.txt", 1)[0], None),
    ):
        puzzle = parse(line, box)
        rating = rate_puzzle(puzzle)
        solution = ORACLE.solve(puzzle).solution
        assert solution is not None
        assert rating.solution == solution
        check_sound(rating, solution)


def test_trial_placement_is_counted_and_refutes_only_wrong_values() -> None:
    puzzle = parse(HARD)
    rating = rate_puzzle(puzzle)
    trials = [s for s in rating.steps if s.technique is Technique.TRIAL]
    assert trials
    assert rating.hardest is Technique.TRIAL
    assert rating.counts[Technique.TRIAL] == len(trials)
    assert rating.trials >= len(trials)
    assert rating.depth >= 1
    assert rating.score is not None
    assert rating.score >= 6.0
    assert re.search(
        r": trial placements? leads? to (a )?contradictions? \(\d+ trial", trials[0].text
    )


def test_nested_trials_are_deeper_and_score_higher() -> None:
    simple = rate_puzzle(parse(HARD))
    nested = rate_puzzle(parse(NESTED))
    solution = ORACLE.solve(parse(NESTED)).solution
    assert solution is not None
    check_sound(nested, solution)
    assert nested.depth > simple.depth
    assert nested.score is not None
    assert simple.score is not None
    assert nested.score > simple.score
    assert nested.grade is Grade.EXTREME


def test_easy_puzzle_is_easy_and_has_no_trials() -> None:
    rating = rate_puzzle(parse(read_lines("easy_norvig50.txt", 1)[0]))
    assert rating.grade is Grade.EASY
    assert rating.trials == 0
    assert rating.hardest in (Technique.NAKED_SINGLE, Technique.HIDDEN_SINGLE)


# ----------------------------------------------------------------- each technique


def test_naked_single() -> None:
    s = empty_grid()
    keep_only(s, [cell(4, 4)], {5})
    step = s.find(Technique.NAKED_SINGLE)
    assert step is not None
    assert step.placements == ((cell(4, 4), 5),)
    assert step.text == "r4c4 = 5: naked single"


def test_hidden_single_names_its_unit() -> None:
    s = empty_grid()
    box1 = [cell(r, c) for r in (1, 2, 3) for c in (1, 2, 3)]
    remove_value(s, [i for i in box1 if i != cell(2, 2)], 7)
    step = s.find(Technique.HIDDEN_SINGLE)
    assert step is not None
    assert step.placements == ((cell(2, 2), 7),)
    assert step.text == "r2c2 = 7: hidden single in box 1"


def test_hidden_single_in_a_row_of_a_real_puzzle() -> None:
    # Row 1 holds 1..8 except 4, so 9 can only go to r1c4 ... and so can 4: the
    # solver finds one of them as a single, and it matches the oracle.
    puzzle = parse("123.56789" + "." * 72)
    step = Candidates(puzzle).next_step()
    assert step is not None
    assert step.placements == ((3, 4),)


def test_pointing() -> None:
    s = empty_grid()
    box1 = [cell(r, c) for r in (1, 2, 3) for c in (1, 2, 3)]
    remove_value(s, [i for i in box1 if i not in (cell(1, 1), cell(1, 2))], 3)
    step = s.find(Technique.POINTING)
    assert step is not None
    assert set(step.eliminations) == {(cell(1, c), 3) for c in range(4, 10)}
    assert step.text == (
        "r1c4, r1c5, r1c6, r1c7, r1c8, r1c9 <> 3: locked candidates (pointing): "
        "in box 1, 3 lies only in row 1"
    )


def test_claiming() -> None:
    s = empty_grid()
    remove_value(s, [cell(1, c) for c in range(4, 10)], 4)
    step = s.find(Technique.CLAIMING)
    assert step is not None
    expected = {(cell(r, c), 4) for r in (2, 3) for c in (1, 2, 3)}
    assert set(step.eliminations) == expected
    assert step.text.endswith(": locked candidates (claiming): in row 1, 4 lies only in box 1")


@pytest.mark.parametrize(
    ("technique", "sets"),
    [
        (Technique.NAKED_PAIR, [{1, 2}, {1, 2}]),
        (Technique.NAKED_TRIPLE, [{1, 2}, {2, 3}, {1, 3}]),
        (Technique.NAKED_QUAD, [{1, 2}, {2, 3}, {3, 4}, {1, 4}]),
    ],
)
def test_naked_subsets(technique: Technique, sets: list[set[int]]) -> None:
    s = empty_grid()
    cells = [cell(1, c) for c in (1, 4, 7, 9)][: len(sets)]  # one per box where possible
    for i, values in zip(cells, sets, strict=True):
        keep_only(s, [i], values)
    step = s.find(technique)
    assert step is not None
    union = set().union(*sets)
    others = [cell(1, c) for c in range(1, 10) if cell(1, c) not in cells]
    if technique is Technique.NAKED_QUAD:
        # r1c7 and r1c9 share box 3, so the row is the only unit holding all four
        assert {i for i, _ in step.eliminations} == set(others)
    else:
        assert {i for i, _ in step.eliminations} <= set(others)
    assert {v for _, v in step.eliminations} == union
    assert f"{technique} {{{', '.join(map(str, sorted(union)))}}} in " in step.text
    assert step.text.endswith("(row 1)")


@pytest.mark.parametrize(
    ("technique", "values"),
    [
        (Technique.HIDDEN_PAIR, [6, 7]),
        (Technique.HIDDEN_TRIPLE, [5, 6, 7]),
        (Technique.HIDDEN_QUAD, [4, 5, 6, 7]),
    ],
)
def test_hidden_subsets(technique: Technique, values: list[int]) -> None:
    s = empty_grid()
    spots = [cell(5, c) for c in (1, 5, 9, 2)][: len(values)]
    row5 = [cell(5, c) for c in range(1, 10)]
    for v in values:
        remove_value(s, [i for i in row5 if i not in spots], v)
    step = s.find(technique)
    assert step is not None
    expected = {(i, v) for i in spots for v in range(1, 10) if v not in values}
    assert set(step.eliminations) == expected
    assert step.text.endswith("(row 5)")


@pytest.mark.parametrize(
    ("technique", "rows", "columns"),
    [
        (Technique.X_WING, [2, 7], [[3, 8], [3, 8]]),
        (Technique.SWORDFISH, [1, 4, 7], [[2, 5], [5, 8], [2, 8]]),
        (Technique.JELLYFISH, [1, 3, 6, 8], [[1, 4], [4, 6], [6, 9], [1, 9]]),
    ],
)
def test_fish(technique: Technique, rows: list[int], columns: list[list[int]]) -> None:
    s = empty_grid()
    for r, cols in zip(rows, columns, strict=True):
        remove_value(s, [cell(r, c) for c in range(1, 10) if c not in cols], 5)
    step = s.find(technique)
    assert step is not None
    cover = sorted({c for cols in columns for c in cols})
    expected = {(cell(r, c), 5) for c in cover for r in range(1, 10) if r not in rows}
    assert set(step.eliminations) == expected
    assert step.text.endswith(
        f"{technique} on 5 in rows {', '.join(map(str, rows))} and columns "
        f"{', '.join(map(str, cover))}"
    )


def test_xy_wing() -> None:
    s = empty_grid()
    keep_only(s, [cell(1, 1)], {1, 2})
    keep_only(s, [cell(1, 5)], {1, 3})
    keep_only(s, [cell(5, 1)], {2, 3})
    step = s.find(Technique.XY_WING)
    assert step is not None
    assert step.eliminations == ((cell(5, 5), 3),)
    assert step.text == (
        "r5c5 <> 3: xy-wing with pivot r1c1 {1, 2} and pincers r1c5 {1, 3}, r5c1 {2, 3}"
    )


def test_techniques_find_nothing_on_an_empty_grid() -> None:
    s = empty_grid()
    for technique in Technique:
        if technique is not Technique.TRIAL:
            assert s.find(technique) is None


def test_contradiction_is_reported() -> None:
    s = empty_grid()
    keep_only(s, [cell(1, 1)], set())
    with pytest.raises(ContradictionError, match="r1c1 has no candidate"):
        s.next_step()


def test_step_application_updates_peers() -> None:
    s = empty_grid()
    s.apply(Step(Technique.NAKED_SINGLE, ((cell(1, 1), 9),), (), "r1c1 = 9: naked single"))
    assert s.vals[0] == 9
    assert 9 not in s.candidates(cell(1, 9))
    assert 9 not in s.candidates(cell(9, 1))
    assert 9 not in s.candidates(cell(3, 3))
    assert 9 in s.candidates(cell(4, 4))


# ----------------------------------------------------------------- statuses and scores


def test_rater_proves_several_solutions_and_none() -> None:
    assert rate_puzzle(parse("." * 16)).status is Status.MULTIPLE
    unsolvable = rate_puzzle(parse(read_lines("nosolution_tdoku.txt", 1)[0]))
    assert unsolvable.status is Status.UNSOLVABLE
    assert unsolvable.score is None
    assert unsolvable.grade is None


def test_rate_checks_uniqueness_first() -> None:
    rating = rate("." * 81, backend="backtrack")
    assert rating.status is Status.MULTIPLE
    assert rating.steps == ()
    assert rating.score is None


def test_trial_budget_gives_timeout() -> None:
    rating = rate_puzzle(parse(HARD), max_trials=1)
    assert rating.status is Status.TIMEOUT
    assert rating.score is None


def test_scores_follow_the_technique_order() -> None:
    easy = score_of({Technique.NAKED_SINGLE: 30, Technique.HIDDEN_SINGLE: 20})
    medium = score_of({Technique.HIDDEN_SINGLE: 20, Technique.POINTING: 3})
    hard = score_of({Technique.HIDDEN_SINGLE: 20, Technique.X_WING: 1})
    trial = score_of({Technique.TRIAL: 1}, trials=1, depth=1)
    assert easy < medium < hard < trial
    assert [Grade.of(x) for x in (easy, medium, hard)] == [Grade.EASY, Grade.MEDIUM, Grade.HARD]
    assert score_of({Technique.CLAIMING: 500}) < Grade.HARD.min_score  # bonus stays in its grade
    assert score_of({Technique.TRIAL: 9}, trials=64, depth=3) >= Grade.EXTREME.min_score
    weights = [t.weight for t in Technique]
    assert weights == sorted(weights)


def test_rating_json_form() -> None:
    data = rate_puzzle(parse(HARD)).to_dict(steps=True)
    assert data["status"] == "unique"
    assert data["hardest"] == "trial placement"
    assert isinstance(data["steps"], list)
    assert len(data["steps"]) == len(rate_puzzle(parse(HARD)).steps)
    assert json.loads(json.dumps(data)) == data


# ----------------------------------------------------------------- command line


def test_cli_rate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", "1.343..2.3..2..3", "--steps"]) == 0
    out = capsys.readouterr().out
    assert "1. r1c2 = 2: naked single" in out
    assert "grade: easy (score 1.0)" in out
    assert "hardest technique: naked single" in out
    assert main(["rate", "1234341243212143"]) == 0  # a full grid needs no technique
    assert "techniques: none" in capsys.readouterr().out


def test_cli_rate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", HARD, "--json", "--backend", "backtrack"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["grade"] in ("expert", "extreme")
    assert data["error"] is None
    assert "steps" not in data


def test_cli_rate_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate", "11" + "." * 14]) == 2  # clashing givens
    assert main(["rate", "123"]) == 2  # wrong length
    assert main(["rate", "." * 16]) == 2  # several solutions
    nosolution = read_lines("nosolution_tdoku.txt", 1)[0]
    assert main(["rate", nosolution, "--json", "--backend", "backtrack"]) == 1
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["status"] == "unsolvable"
