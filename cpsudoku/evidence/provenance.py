"""Provenance: how an output was made, as a JSON-ready dict.

Every batch output and bench result carries one (a ``.meta.json`` sidecar beside a CSV
or JSONL file, file metadata in Parquet): the cpsudoku version and git commit when
known, the engine spec and parameters, the solver library versions, the machine, the
input file's name, size and SHA-256, the start and end times and the command line.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from cpsudoku.version import __version__

#: The suffix of a provenance sidecar: ``solved.csv`` -> ``solved.csv.meta.json``.
SIDECAR_SUFFIX = ".meta.json"


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@cache
def _commit() -> str | None:
    """The git commit of the cpsudoku source tree, when it is a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for dist in ("python-sat", "ortools", "numpy", "dratify"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def _cpu() -> str:
    """The CPU model name (Linux), else the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def file_facts(path: str | Path) -> dict[str, Any]:
    """A file's name, size and SHA-256 (None for standard input or a folder)."""
    p = Path(path)
    if str(path) == "-" or not p.is_file():
        return {"name": str(path), "bytes": None, "sha256": None}
    digest = hashlib.sha256()
    with p.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return {"name": p.name, "bytes": p.stat().st_size, "sha256": digest.hexdigest()}


def provenance(
    *,
    engine: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    input_path: str | Path | None = None,
    started: str | None = None,
    ended: str | None = None,
    argv: list[str] | None = None,
) -> dict[str, Any]:
    """How an output was made, as a JSON-ready dict.

    >>> sorted(provenance(engine="sat"))[:4]
    ['argv', 'commit', 'cpsudoku', 'engine']
    """
    return {
        "cpsudoku": __version__,
        "commit": _commit(),
        "engine": engine,
        "parameters": dict(parameters or {}),
        "versions": {"python": platform.python_version(), **_versions()},
        "machine": {
            "cpu": _cpu(),
            "cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()}",
        },
        "input": None if input_path is None else file_facts(input_path),
        "started": started,
        "ended": ended or now(),
        "argv": list(sys.argv if argv is None else argv),
    }


def sidecar_path(output: str | Path) -> Path:
    """The provenance sidecar of an output file."""
    return Path(str(output) + SIDECAR_SUFFIX)


def write_sidecar(output: str | Path, meta: Mapping[str, Any]) -> Path:
    """Write ``meta`` as the output's ``.meta.json`` sidecar; return its path."""
    path = sidecar_path(output)
    path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return path
