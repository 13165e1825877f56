"""Solver-free checking: is a grid a valid completion of a puzzle?

This module shares no code with any engine: it reads the rules only from the
geometry's list of units. Every solution any backend returns goes through
:func:`check_solution` before it is reported.
"""

from __future__ import annotations

from cpsudoku.grid import Puzzle


def solution_problems(puzzle: Puzzle, solution: Puzzle) -> list[str]:
    """Everything wrong with ``solution`` as a completion of ``puzzle`` (empty if valid).

    Checks: same geometry, every cell filled with 1..n, every given kept, and every
    unit holding each value exactly once.
    """
    g = puzzle.geometry
    if solution.geometry != g:
        return [f"solution is {solution.geometry}, puzzle is {g}"]
    problems = []
    sol = solution.cells
    for i, (given, value) in enumerate(zip(puzzle.cells, sol, strict=True)):
        if not 1 <= value <= g.n:
            problems.append(f"{g.position(i)} holds {value}, not a value 1..{g.n}")
        elif given and given != value:
            problems.append(f"{g.position(i)} changes the given {given} to {value}")
    full = set(range(1, g.n + 1))
    for unit in g.units:
        values = {sol[i] for i in unit.cells}
        if values != full:
            missing = sorted(full - values)
            problems.append(f"{unit} misses {', '.join(map(str, missing))}")
    return problems


def is_solution(puzzle: Puzzle, solution: Puzzle) -> bool:
    """True when ``solution`` is a valid completion of ``puzzle``.

    >>> from cpsudoku.formats import parse
    >>> is_solution(parse("1.343..2.3..2..3"), parse("1234341243212143"))
    True
    """
    g = puzzle.geometry
    if solution.geometry != g:
        return False
    sol = solution.cells
    if any(given and given != value for given, value in zip(puzzle.cells, sol, strict=True)):
        return False
    n = g.n
    full = set(range(1, n + 1))
    return all({sol[i] for i in cells} == full for cells in g.unit_cells)
