"""What is wrong with a completed grid under a puzzle: the verifier's core.

Kept apart from :mod:`cpsudoku.model.verify` (which reads any puzzle form) so that the
readers of setters' formats can check a stored solution without importing the parser
that imports them.
"""

from __future__ import annotations

from cpsudoku.model.puzzle import Puzzle


def completion_problems(puzzle: Puzzle, solution: Puzzle) -> list[str]:
    """Everything wrong with ``solution`` as a completion of ``puzzle`` (empty if valid).

    Checks: same rules, every cell filled with 1..n, every given kept, every unit
    holding each value exactly once (a region of fewer cells: no value twice), and,
    on a grid of values 1..n only, every other constraint (its own check,
    :meth:`Constraint.problem`).
    """
    g = puzzle.rules
    if solution.rules != g:
        return [f"solution is {solution.rules}, puzzle is {g}"]
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
        held = gather(sol)
        values = set(held)
        if len(held) == g.n and values != full:
            missing = sorted(full - values)
            problems.append(f"{unit} misses {', '.join(map(str, missing))}")
        elif len(values) != len(held):  # a region of fewer than n cells
            twice = sorted({v for v in held if held.count(v) > 1})
            problems.append(f"{unit} repeats {', '.join(map(str, twice))}")
    if not all(1 <= v <= g.n for v in sol):
        return problems  # the rules read full grids of values: the cells are named above
    problems.extend(problem for c in g.constraints if (problem := c.problem(sol, g.n)) is not None)
    return problems
