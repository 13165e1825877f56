"""Rating a puzzle the way a person solves it: techniques, steps, a score and a grade.

The human-technique rater (:mod:`cpsudoku.rating.rater`), not to be confused with the
whole-array logic pass of batch solving (:mod:`cpsudoku.datasets.bulk_logic`), which
only decides what singles and locked candidates settle, in bulk.
"""

from cpsudoku.rating.rater import (
    Candidates,
    ContradictionError,
    Grade,
    Rating,
    Step,
    Technique,
    rate,
    rate_puzzle,
    score_of,
)

__all__ = [
    "Candidates",
    "ContradictionError",
    "Grade",
    "Rating",
    "Step",
    "Technique",
    "rate",
    "rate_puzzle",
    "score_of",
]
