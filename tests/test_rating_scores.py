"""The rater's scores of a fixed sample, pinned: a change of them is a change of behaviour.

The propagation kernel's singles were once rewritten for the oracle's speed (placements
marked on the units only, every hidden single of a unit at once) and the rater took the
new routine with them: the fixpoint was the same, but the number of singles placed
before a contradiction, which the score counts as a chain's length, was not, and a
third of the hard puzzles' scores moved (6.7 -> 7.78 on a Sudoku Explainer 5.6 puzzle,
7.6 -> 6.83 on a 7.2 one) while the rank correlation with published ratings fell. The
rater now counts its chains with :func:`singles_stepwise`, and the scores below (of the
rater before that rewrite, and after this fix) hold it there.

The sample spans every grade, from the bundled rated samples
(``benchmarks/data/*.ratings.csv``): Kaggle difficulty bands 0-8 and Sudoku Explainer
5.6 and 7.2. Ten of them need trial placement, and nine of those scored otherwise
with the oracle's singles.
"""

from __future__ import annotations

import pytest

from cpsudoku import parse
from cpsudoku.cli import main
from cpsudoku.model.candidates import layout, place, singles, singles_stepwise
from cpsudoku.rating import Candidates, rate_puzzle

# fmt: off
#: (puzzle, score, trials, depth, chain, grade).
PINNED = [
    # singles
    ("4.8.765.........4...5...8.1..47....2...32....59..8.............613..4.5....6..1.8",
     1.2, 0, 0, 0, "easy"),
    (".9..........9.14.7.2......5.631.5...1....2..98.....37......6214...259........8...",
     1.0, 0, 0, 0, "easy"),
    # locked candidates
    ("....7..3......3.2..562...89....64..1..7.......9..8...59....5.......3791.28.......",
     2.61, 0, 0, 0, "medium"),
    (".2....3.........7.1.9.7...2312...6..9.......565....82.8...25..4.....476....31....",
     2.84, 0, 0, 0, "medium"),
    # xy-wing, naked pair, hidden pair, x-wing
    (".6..5...19.5..7.6..1.....94.3.6.5.4..2...4836....9......4.............893...2....",
     4.23, 0, 0, 0, "hard"),
    (".....7.45.....1.....34..7..64................72...6.188.1.3956.5...1........8.9..",
     3.04, 0, 0, 0, "hard"),
    ("..9.....5.2...8...1....57.6.....4.5...3.6....9..7.....5.6.2.4..2....9.71.8.....9.",
     3.44, 0, 0, 0, "hard"),
    ("..6.5....71..6....4..3..6.2.....1..4.6..2...1...9...............7.2.98...3.8..926",
     3.27, 0, 0, 0, "hard"),
    # naked quad, jellyfish
    ("....628..1...3.4.2........79...5...43......1..72....9.6..4......3.6...8....31...5",
     5.16, 0, 0, 0, "expert"),
    ("..7...563.2...........9.....61...........62....54..78....784..1..65..8.2.......4.",
     5.24, 0, 0, 0, "expert"),
    # trial placement; the oracle's singles gave 7.54, 7.71, 6.65, 7.78, 6.83
    (".4......921..69.5..5..2..7.....8.....3...16.5.7...2.4...53..2......1...7.6...4...",
     6.83, 1, 1, 9, "expert"),
    ("........62.93.6......2....9...7...9......35.884..2.73..3.1..6....7...........84..",
     7.75, 2, 1, 31, "expert"),
    ("36.4..7.25......6.....9...1......6......7298.1...5..244....9....3........892.....",
     7.83, 3, 1, 17, "expert"),
    ("2.4.8...3..6..78...8.....14.7.5.8...4...7...8...3.6.4.92.....5...72..3..1...6.2.7",
     6.7, 1, 1, 6, "expert"),
    ("4....8..1....5174......328...3....2.1.2...5.7.7....4...376......9157....6..8....2",
     7.6, 2, 1, 20, "expert"),
    # the oracle's singles gave 7.94, 8.11, 7.84, 9.55, and 8.78 (unchanged)
    (".19.....6......4..8.4.3.5..4..7.........251..3...61.....3........69...837...8...2",
     8.21, 4, 1, 28, "extreme"),
    (".5..63.....6.....73..5.78..8.1..64.39.3..8...4.....2.....8...1..8...56......3..4.",
     8.12, 3, 1, 39, "extreme"),
    ("..7...8...15..4.2.....19..5.8..............6..46.2.75..6..5..13...3.....7.91.....",
     8.01, 2, 1, 64, "extreme"),
    (".........6.1.....3....169.742..5........43..85....13...........347.2...9..9..84.6",
     9.53, 5, 2, 43, "extreme"),
    ("3........4.1..6.95.25..3......5.8.2...2.9..3.9.......81..4..5......2..4...6.3...1",
     8.78, 5, 1, 89, "extreme"),
]
# fmt: on


@pytest.mark.parametrize(
    ("puzzle", "score", "trials", "depth", "chain", "grade"), PINNED, ids=range(len(PINNED))
)
def test_scores_of_the_fixed_sample_are_pinned(
    puzzle: str, score: float, trials: int, depth: int, chain: int, grade: str
) -> None:
    rating = rate_puzzle(parse(puzzle))
    assert (rating.score, rating.trials, rating.depth, rating.chain, str(rating.grade)) == (
        score,
        trials,
        depth,
        chain,
        grade,
    )


def test_rate_command_prints_the_pinned_score(capsys: pytest.CaptureFixture[str]) -> None:
    puzzle, score, *_ = PINNED[13]
    assert main(["rate", puzzle]) == 0
    assert f"(score {score})" in capsys.readouterr().out


def _trial_states() -> list[tuple[list[int], list[int], list[int]]]:
    """The rater's first trials on the pinned puzzles that need one: at its first stuck
    point, each value of each cell of the fewest candidates placed through the peers."""
    states = []
    for puzzle, _score, trials, *_ in PINNED:
        if not trials:
            continue
        s = Candidates(parse(puzzle))
        while (step := s.next_step()) is not None:
            s.apply(step)
        fewest = min(m.bit_count() for m in s.cand if m)
        for cell, m in enumerate(s.cand):
            if m.bit_count() != fewest:
                continue
            for v in s.candidates(cell):
                state = (s.vals.copy(), s.cand.copy(), s.used.copy())
                place(s.layout, *state, cell, v)
                states.append(state)
    return states


def test_stepwise_singles_reach_the_oracles_fixpoint() -> None:
    """Both routines find the same contradictions and the same fixpoint; only the order
    (hence how many singles come before a contradiction) may differ."""
    lay = layout(parse(PINNED[0][0]).rules)
    counted_otherwise = 0
    for vals, cand, used in _trial_states():
        fast = (vals.copy(), cand.copy(), used.copy())
        stepwise = (vals.copy(), cand.copy(), used.copy())
        placed_fast, dead_fast = singles(lay, *fast)
        placed_stepwise, dead_stepwise = singles_stepwise(lay, *stepwise)
        assert dead_fast == dead_stepwise
        if dead_fast:
            counted_otherwise += placed_fast != placed_stepwise
        else:
            assert fast == stepwise
            assert placed_fast == placed_stepwise
    assert counted_otherwise  # the order matters to the count, which is why both exist
