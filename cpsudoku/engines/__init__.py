"""The engines, and their registry: the one list of engines everything else reads.

A backend spec is a name optionally followed by variant words separated by colons,
e.g. ``"sat"``, ``"sat:extended:cadical153"``, ``"backtrack:naive"``. The first entry of
:data:`REGISTRY` is the default backend.

Each engine class declares what it is (:class:`~cpsudoku.engines.base.Backend`): its
name and variant words, its textbook baseline and extra specs for the benchmark,
whether it races in the portfolio, and the constraint kinds it takes. The benchmark,
the portfolio, the generator, the rater and the tests read those through this module,
so adding an engine is one new module and one line in :data:`REGISTRY`
(docs/design.md walks through it).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, cast

from cpsudoku.engines.base import Backend, Search
from cpsudoku.model.errors import BackendUnavailableError, UnknownBackendError
from cpsudoku.model.result import Result, Status
from cpsudoku.model.rules import MAX_SIZE, Rules


@dataclass(frozen=True, slots=True)
class Entry:
    """Where an engine class lives, imported only when the engine is used.

    Attributes:
        module: the module holding the class.
        cls: the class name.
        checks_up_to: the largest grid side on which this engine does the generator's
            and the rater's uniqueness checks (0: never), and ``check_rank`` its place
            among those that fit (lowest first). Kept here, not on the class, so that
            picking a checker imports no solver library.
    """

    module: str
    cls: str
    checks_up_to: int = 0
    check_rank: int = 0


#: name -> where the engine class lives. Modules are imported only when the engine is
#: used, so the core (parse, verify, the reference oracle) starts without any solver.
REGISTRY: dict[str, Entry] = {
    "sat": Entry("cpsudoku.engines.sat", "SatBackend", checks_up_to=MAX_SIZE, check_rank=2),
    "backtrack": Entry(
        "cpsudoku.engines.backtrack", "BacktrackBackend", checks_up_to=9, check_rank=1
    ),
    "cpsat": Entry("cpsudoku.engines.cpsat", "CpSatBackend"),
    "native": Entry("cpsudoku.engines.native", "NativeBackend", checks_up_to=32, check_rank=0),
    "portfolio": Entry("cpsudoku.engines.portfolio", "PortfolioBackend"),
}

#: The module of the compiled engine's C extension (optional: built when it can be).
NATIVE_EXTENSION = "cpsudoku.engines._native"

#: The backend used when none is named.
DEFAULT_BACKEND = next(iter(REGISTRY))

__all__ = [
    "DEFAULT_BACKEND",
    "NATIVE_EXTENSION",
    "REGISTRY",
    "Backend",
    "Entry",
    "Search",
    "available_engines",
    "backend_class",
    "call_scope",
    "check_spec",
    "create_backend",
    "engines_taking",
    "get_backend",
    "native_built",
    "one_call",
    "refusal_text",
    "refused_result",
    "uniqueness_checker",
]

_live: dict[str, Backend] = {}

#: Call scopes open in this process (:func:`call_scope`), and the specs of the
#: process-wide backends used inside them, to release when the last one ends.
_scopes = 0
_used: set[str] = set()
_scope_lock = threading.Lock()

_P = ParamSpec("_P")
_R = TypeVar("_R")


def uniqueness_checker(g: Rules | None = None) -> str:
    """The engine spec for uniqueness checks on puzzles with rules ``g``.

    The generator and the rater ask it for every check they make: among the engines
    whose registry entry says they check grids of this side, the one of lowest rank
    that takes the rules and is installed. Today the compiled ``native`` engine up to
    32x32; without it, the ``backtrack`` oracle up to 9x9, where it measured as fast as
    the sat backend or faster (most checks during clue removal find a second solution,
    and the sat backend spends extra work on those), and ``sat`` for bigger grids, where
    the oracle takes seconds per check on nearly minimal puzzles (see docs/design.md).
    """
    n = 0 if g is None else g.n
    fits = sorted(
        (entry.check_rank, name)
        for name, entry in REGISTRY.items()
        if entry.checks_up_to >= n and entry.checks_up_to > 0
    )
    for _, name in fits:
        try:
            cls = backend_class(name)
        except BackendUnavailableError:
            continue
        if g is None or cls.refusal(g) is None:
            return name
    return "backtrack"  # the oracle takes every rule set the model can state


def engines_taking(rules: Rules) -> list[str]:
    """The installed engines that take every rule of ``rules``, in registry order."""
    return [cls.name for cls in available_engines() if cls.refusal(rules) is None]


def refusal_text(why: str, rules: Rules) -> str:
    """An engine's refusal (``why``) followed by the engines that do take ``rules``."""
    takers = engines_taking(rules)
    if not takers:
        return f"{why}; no installed engine takes these rules"
    return f"{why}; engines that take them: {', '.join(takers)}"


def refused_result(engine: Backend, rules: Rules, why: str) -> Result:
    """The ``refused`` result of ``engine`` on a puzzle with ``rules``, saying why."""
    return Result(Status.REFUSED, None, engine.spec, 0.0, refusal_text(why, rules))


def native_built() -> bool:
    """True when the compiled engine's extension was built (found without importing it)."""
    try:
        return importlib.util.find_spec(NATIVE_EXTENSION) is not None
    except ImportError:  # an import hook that refuses it
        return False


def backend_class(name: str) -> type[Backend]:
    """The class registered under ``name``.

    Raises:
        UnknownBackendError: no such name (the message lists the valid ones).
        BackendUnavailableError: the backend's solver library is not installed.
    """
    try:
        entry = REGISTRY[name]
    except KeyError:
        raise UnknownBackendError(
            f"unknown backend {name!r}; choose from: {', '.join(REGISTRY)}"
        ) from None
    try:
        module = importlib.import_module(entry.module)
    except ModuleNotFoundError as exc:
        if exc.name == NATIVE_EXTENSION:
            raise BackendUnavailableError(
                f"backend {name!r} is the compiled engine, which was not built when "
                f"cpsudoku was installed (it needs a C compiler and the Python headers; "
                f"install them and reinstall cpsudoku)"
            ) from exc
        raise BackendUnavailableError(
            f"backend {name!r} needs the package {exc.name!r}, which is not installed "
            f"(pip install cpsudoku installs it)"
        ) from exc
    cls: type[Backend] = getattr(module, entry.cls)
    return cls


def available_engines() -> list[type[Backend]]:
    """The classes of the registered engines whose libraries are installed, in order."""
    out = []
    for name in REGISTRY:
        try:
            out.append(backend_class(name))
        except BackendUnavailableError:
            continue
    return out


def _check_spec_type(spec: object) -> None:
    if not isinstance(spec, str):
        raise UnknownBackendError(
            f"a backend spec is text such as 'sat' or 'sat:glucose4', not a "
            f"{type(spec).__name__} ({spec!r})"
        )


def create_backend(spec: str) -> Backend:
    """A new backend for ``spec`` (``name[:variant[:variant...]]``)."""
    _check_spec_type(spec)
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
    :func:`cpsudoku.solve`; use :func:`create_backend` for a private instance. Worker
    processes (the portfolio's) end with the call that started them (:func:`call_scope`).
    """
    _check_spec_type(spec)
    backend = _live.get(spec)
    if backend is None:
        backend = _live[spec] = create_backend(spec)
    if _scopes and spec not in _used:
        with _scope_lock:
            _used.add(spec)
    return backend


class _CallScope:
    """The context manager that :func:`call_scope` returns.

    A class, not a generator: about a microsecond per call of ``cpsudoku.solve``, a
    fifth of what a ``contextlib.contextmanager`` costs.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        global _scopes
        with _scope_lock:
            _scopes += 1

    def __exit__(self, *exc: object) -> None:
        global _scopes
        with _scope_lock:
            _scopes -= 1
            if _scopes or not _used:
                return
            done = sorted(_used)
            _used.clear()
        for spec in done:
            if (backend := _live.get(spec)) is not None:
                backend.release()


_CALL_SCOPE = _CallScope()


def call_scope() -> AbstractContextManager[None]:
    """One call of the module-level API: what it starts through :func:`get_backend` ends.

    The process-wide backends keep their encoded rules and live solvers for good, but
    not worker processes: when the outermost open scope ends, every process-wide
    backend used inside any of them is released (:meth:`Backend.release`; the
    portfolio stops its engines' processes, and starts them again if used later).
    Scopes nest, and may be open in several threads at once: the release waits for
    the last one. ``cpsudoku.solve``, ``count``, ``solve_many``, ``batch``, ``rate``,
    the generator and every command of the command line each run in one
    (:func:`one_call`). A backend from :func:`get_backend` used outside any scope,
    or one of the caller's own (:func:`create_backend`, a ``with`` block), keeps its
    workers until its ``close()``.
    """
    return _CALL_SCOPE


def one_call(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: ``fn`` runs in a :func:`call_scope`.

    A generator function runs in one for as long as it is iterated (until it is
    exhausted, closed or collected).
    """
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def iterate(*args: _P.args, **kwargs: _P.kwargs) -> Iterator[Any]:
            with call_scope():
                yield from cast(Iterator[Any], fn(*args, **kwargs))

        return cast(Callable[_P, _R], iterate)

    @functools.wraps(fn)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with call_scope():
            return fn(*args, **kwargs)

    return call
