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
    if 0 in sol or any(
        given and given != value for given, value in zip(puzzle.cells, sol, strict=True)
    ):
        for i, (given, value) in enumerate(zip(puzzle.cells, sol, strict=True)):
            if not 1 <= value <= g.n:
                problems.append(f"{g.position(i)} holds {value}, not a value 1..{g.n}")
            elif given and given != value:
                problems.append(f"{g.position(i)} changes the given {given} to {value}")
    full = set(range(1, g.n + 1))
    for unit, gather in zip(g.units, g.unit_getters, strict=True):
        values = set(gather(sol))
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
    full = set(range(1, g.n + 1))
    return all(set(gather(sol)) == full for gather in g.unit_getters)
