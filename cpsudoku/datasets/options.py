"""How records are solved: one options value, checked once, sent to every worker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cpsudoku.engines import DEFAULT_BACKEND

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, slots=True)
class SolveOptions:
    """Everything a worker needs to solve records; sent once per worker process."""

    backend: str = DEFAULT_BACKEND
    unique: bool = True
    time_limit: float | None = None
    box: str | None = None
    verify_with: str | None = None
    presolve: bool = True
    #: The symbols of the values 1..n, as :func:`cpsudoku.parse` takes them; solutions
    #: are written with them too.
    symbols: str | None = None
