"""cpsudoku's compiled proof checker: dratify's forward DRAT algorithm in C (``_drup.c``).

Built with the package as an optional extension; :func:`cpsudoku.evidence.files.
check_proof` offers it to dratify (through dratify's ``register_native`` seam) for one
check at a time when no other native checker is installed. tests/test_drup.py holds it
to dratify's Python checker: the same verdict, failing step and counters.
"""

from __future__ import annotations

from types import ModuleType


def compiled_checker() -> ModuleType | None:
    """The compiled checker's module, or None when the package was built without it."""
    try:
        from cpsudoku.evidence import _drup  # type: ignore[attr-defined]
    except ImportError:  # no C compiler at install: dratify's Python checker instead
        return None
    return _drup
