from cpsudoku.formats import parse
from cpsudoku.verify import is_solution, solution_problems

PUZZLE = "1.343..2.3..2..3"
SOLUTION = "1234341243212143"


def test_valid_completion() -> None:
    assert is_solution(parse(PUZZLE), parse(SOLUTION))
    assert solution_problems(parse(PUZZLE), parse(SOLUTION)) == []


def test_changed_given_is_rejected() -> None:
    other = parse("2143341243211234")  # valid grid, but not this puzzle's
    assert not is_solution(parse(PUZZLE), other)
    assert any("given" in p for p in solution_problems(parse(PUZZLE), other))


def test_incomplete_or_repeating_grid_is_rejected() -> None:
    assert not is_solution(parse(PUZZLE), parse(PUZZLE))
    bad = parse("1234341243212134", check=False)
    assert not is_solution(parse("." * 16), bad)
    assert any("column" in p for p in solution_problems(parse("." * 16), bad))


def test_geometry_mismatch() -> None:
    assert not is_solution(parse("." * 36), parse("." * 36, box="3x2", check=False))
