"""The engines, and their registry: name -> engine class, imported lazily.

A backend spec is a name optionally followed by variant words separated by colons,
e.g. ``"sat"``, ``"sat:extended:cadical153"``, ``"backtrack:naive"``. The first entry of
:data:`REGISTRY` is the default backend.
"""

from __future__ import annotations

import importlib

from cpsudoku.engines.base import Backend, Search
from cpsudoku.model.errors import BackendUnavailableError, UnknownBackendError
from cpsudoku.model.rules import Rules

#: name -> (module, class). Modules are imported only when the backend is used, so the
#: core (parse, verify, the reference backend) starts without loading any solver.
REGISTRY: dict[str, tuple[str, str]] = {
    "sat": ("cpsudoku.engines.sat", "SatBackend"),
    "backtrack": ("cpsudoku.engines.backtrack", "BacktrackBackend"),
    "cpsat": ("cpsudoku.engines.cpsat", "CpSatBackend"),
    "portfolio": ("cpsudoku.engines.portfolio", "PortfolioBackend"),
}

#: The backend used when none is named.
DEFAULT_BACKEND = next(iter(REGISTRY))

__all__ = [
    "DEFAULT_BACKEND",
    "REGISTRY",
    "Backend",
    "Search",
    "backend_class",
    "check_spec",
    "create_backend",
    "get_backend",
    "uniqueness_checker",
]

_live: dict[str, Backend] = {}

#: Largest grid side on which the oracle is the default uniqueness checker.
_ORACLE_MAX_SIDE = 9


def uniqueness_checker(g: Rules | None = None) -> str:
    """The engine spec for uniqueness checks on puzzles with rules ``g``.

    The generator and the rater ask it for every check they make. The ``backtrack``
    oracle up to 9x9, where it measured as fast as the sat backend or faster (most
    checks during clue removal find a second solution, and the sat backend spends
    extra work on those); ``sat`` for bigger grids, where the oracle takes seconds per
    check on nearly minimal puzzles (see docs/design.md). The oracle also when ``sat``
    is not registered.
    """
    if "sat" not in REGISTRY or (g is not None and g.n <= _ORACLE_MAX_SIDE):
        return "backtrack"
    return "sat"


def backend_class(name: str) -> type[Backend]:
    """The class registered under ``name``.

    Raises:
        UnknownBackendError: no such name (the message lists the valid ones).
        BackendUnavailableError: the backend's solver library is not installed.
    """
    try:
        module_name, class_name = REGISTRY[name]
    except KeyError:
        raise UnknownBackendError(
            f"unknown backend {name!r}; choose from: {', '.join(REGISTRY)}"
        ) from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise BackendUnavailableError(
            f"backend {name!r} needs the package {exc.name!r}, which is not installed "
            f"(pip install cpsudoku installs it)"
        ) from exc
    cls: type[Backend] = getattr(module, class_name)
    return cls


def _check_spec(spec: object) -> None:
    if not isinstance(spec, str):
        raise UnknownBackendError(
            f"a backend spec is text such as 'sat' or 'sat:glucose4', not a "
            f"{type(spec).__name__} ({spec!r})"
        )


def create_backend(spec: str) -> Backend:
    """A new backend for ``spec`` (``name[:variant[:variant...]]``)."""
    _check_spec(spec)
    name, *variant = spec.split(":")
    return backend_class(name)(variant)


def check_spec(spec: str) -> None:
    """Raise now the error ``spec`` would raise when used; keep no engine alive.

    Raises:
        UnknownBackendError: an unknown engine or variant, or a spec that is no text.
        BackendUnavailableError: the engine's solver library is not installed.
    """
    create_backend(spec).close()


def get_backend(spec: str) -> Backend:
    """The process-wide backend for ``spec``, created on first use and then reused.

    Reuse is what keeps encoded rules and live solvers across calls of
    :func:`cpsudoku.solve`; use :func:`create_backend` for a private instance.
    """
    _check_spec(spec)
    backend = _live.get(spec)
    if backend is None:
        backend = _live[spec] = create_backend(spec)
    return backend
