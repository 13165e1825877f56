"""Build the compiled engine and the minlex search, optional C extensions.

See cpsudoku/engines/native.py and cpsudoku/canon/minlex.py.

Everything else is declared in pyproject.toml. The extension is ``optional``: where it
cannot be built (no C compiler or no Python headers), the install still succeeds,
without the ``native`` engine, and ``cpsudoku --version`` says it is missing.
"""

import platform

from setuptools import Extension, setup

# -O3 for the search loops; POPCNT (every x86-64 CPU since 2008) for the cell counts.
flags = ["-O3", "-std=gnu11"]
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")

setup(
    ext_modules=[
        Extension(
            "cpsudoku.engines._native",
            sources=["cpsudoku/engines/_native.c"],
            depends=[
                "cpsudoku/engines/_native_core.h",
                "cpsudoku/engines/_native_props.h",
                "cpsudoku/engines/_native_band.h",
            ],
            extra_compile_args=flags,
            optional=True,
        ),
        # A forward DRAT checker, dratify's algorithm in C, offered to dratify for
        # certificates (cpsudoku/evidence/files.py); dratify's Python checker otherwise.
        Extension(
            "cpsudoku.evidence._drup",
            sources=["cpsudoku/evidence/_drup.c"],
            extra_compile_args=flags,
            optional=True,
        ),
        # The layered clauses of sums, automata and counts (cpsudoku/encode/sum_clauses.py)
        # for the SAT engine; the Python writer otherwise.
        Extension(
            "cpsudoku.encode._sum_clauses",
            sources=["cpsudoku/encode/_sum_clauses.c"],
            extra_compile_args=flags,
            optional=True,
        ),
        # The exact minlex search of cpsudoku/canon/minlex.py (canonical forms).
        Extension(
            "cpsudoku.canon._minlex",
            sources=["cpsudoku/canon/_minlex.c"],
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
