"""cpsudoku: Sudoku of any box shape, solved, counted and checked by three engines.

>>> import cpsudoku
>>> r = cpsudoku.solve("1.343..2.3..2..3", backend="backtrack")
>>> r.status, str(r.solution)
(<Status.UNIQUE: 'unique'>, '1234341243212143')
"""

from cpsudoku.api import count, count_solutions, solve
from cpsudoku.canon import Canonical, Transformation, canonical, equivalent, transform
from cpsudoku.datasets.batch import solve_many
from cpsudoku.engines import DEFAULT_BACKEND, REGISTRY, create_backend, get_backend
from cpsudoku.evidence import (
    Certificate,
    CertificateError,
    CheckReport,
    TrueCandidates,
    certify,
    check_certificate,
    true_candidates,
)
from cpsudoku.generate import (
    GeneratedPuzzle,
    GenerationError,
    Symmetry,
    generate_grid,
    generate_puzzle,
    generate_puzzles,
)
from cpsudoku.model.errors import (
    BackendUnavailableError,
    BoxShapeError,
    ConflictingGivensError,
    CpSudokuError,
    PuzzleError,
    RulesError,
    SolverError,
    SolveTimeoutError,
    UnknownBackendError,
    UnknownSymbolError,
    ValueOutOfRangeError,
    WrongLengthError,
)
from cpsudoku.model.forms import parse, to_grid, to_line
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.result import Count, Result, Status
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import is_solution, solution_problems
from cpsudoku.rating import Grade, Rating, Step, Technique, rate
from cpsudoku.version import __version__

__all__ = [
    "DEFAULT_BACKEND",
    "REGISTRY",
    "BackendUnavailableError",
    "BoxShapeError",
    "Canonical",
    "Certificate",
    "CertificateError",
    "CheckReport",
    "ConflictingGivensError",
    "Count",
    "CpSudokuError",
    "GeneratedPuzzle",
    "GenerationError",
    "Grade",
    "Puzzle",
    "PuzzleError",
    "Rating",
    "Result",
    "Rules",
    "RulesError",
    "SolveTimeoutError",
    "SolverError",
    "Status",
    "Step",
    "Symmetry",
    "Technique",
    "Transformation",
    "TrueCandidates",
    "UnknownBackendError",
    "UnknownSymbolError",
    "ValueOutOfRangeError",
    "WrongLengthError",
    "__version__",
    "canonical",
    "certify",
    "check_certificate",
    "count",
    "count_solutions",
    "create_backend",
    "equivalent",
    "generate_grid",
    "generate_puzzle",
    "generate_puzzles",
    "get_backend",
    "is_solution",
    "parse",
    "rate",
    "solution_problems",
    "solve",
    "solve_many",
    "to_grid",
    "to_line",
    "transform",
    "true_candidates",
]
