"""Provenance: how an output was made, as a JSON-ready dict.

Every batch output and bench result carries one (a ``.meta.json`` sidecar beside a CSV
or JSONL file, so the rows and ``--resume`` stay as they were; in a ``DIR.parquet``
folder, Parquet's own file metadata: the dataset's ``_common_metadata`` file holds it
under the key ``cpsudoku.provenance``, with ``_provenance.json`` beside it for readers
without pyarrow; ``machine.json`` of a bench report): the cpsudoku
version and git commit when known, the engine spec and parameters, the solver library
versions, the machine, the input file's name, size and SHA-256, the start and end times
and the command line.
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
    """The git commit of the cpsudoku source tree, when it is a git checkout of it.

    None when cpsudoku is installed (even inside some other repository's tree).
    """
    here = Path(__file__).resolve()
    try:
        out = subprocess.run(
            ["git", "-C", str(here.parent), "rev-parse", "--show-toplevel", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split()
    if out.returncode or len(lines) != 2:
        return None
    top, commit = lines
    ours = Path(top) / "cpsudoku" / "evidence" / "provenance.py"
    return commit if ours.exists() and ours.resolve() == here else None


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
    inputs: list[str | Path] | None = None,
    started: str | None = None,
    ended: str | None = None,
    argv: list[str] | None = None,
) -> dict[str, Any]:
    """How an output was made, as a JSON-ready dict.

    ``input_path`` is the one input file of a batch; ``inputs`` the several of a
    benchmark. ``ended`` defaults to now.

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
        **({"inputs": [file_facts(p) for p in inputs]} if inputs is not None else {}),
        "started": started,
        "ended": ended or now(),
        "argv": list(sys.argv if argv is None else argv),
    }


#: The provenance file inside a ``DIR.parquet`` output (readers skip ``_`` names).
PARQUET_SIDECAR = "_provenance.json"


def sidecar_path(output: str | Path) -> Path | None:
    """Where the provenance of a batch output goes; None for standard output.

    ``solved.csv`` -> ``solved.csv.meta.json`` (JSONL alike); a ``DIR.parquet`` folder
    -> ``DIR.parquet/_provenance.json``, which pyarrow, pandas and Dask skip when they
    read the folder as a dataset.
    """
    text = str(output)
    if text == "-":
        return None
    if text.lower().rstrip("/").endswith(".parquet"):
        return Path(text) / PARQUET_SIDECAR
    return Path(text + SIDECAR_SUFFIX)


#: The key of the provenance in a Parquet output's file metadata.
PARQUET_KEY = "cpsudoku.provenance"


def write_sidecar(output: str | Path, meta: Mapping[str, Any]) -> Path | None:
    """Write ``meta`` as the output's provenance sidecar; return its path or None.

    A sidecar goes only beside a regular file (or into a ``DIR.parquet`` folder): an
    output that is standard output, ``/dev/null``, a pipe or another device gets
    none, so nothing such as ``/dev/null.meta.json`` is ever made. A ``DIR.parquet``
    output gets it in Parquet's file metadata too (:func:`write_parquet_metadata`).
    """
    path = sidecar_path(output)
    if path is None or not path.parent.is_dir():
        return None
    if path.name != PARQUET_SIDECAR and not os.path.isfile(output):
        return None
    text = json.dumps(meta, indent=2)
    path.write_text(text + "\n", encoding="utf-8")
    if path.name == PARQUET_SIDECAR:
        write_parquet_metadata(path.parent, text)
    return path


def write_parquet_metadata(folder: Path, text: str) -> None:
    """Write the dataset's ``_common_metadata``: its schema, with the provenance.

    ``_common_metadata`` is where Parquet datasets keep what holds for every part
    (pyarrow, Spark and Dask read it; ``pyarrow.parquet.read_schema`` shows the key).
    It is written once the run has ended, so it can say when; the parts themselves
    are written by the workers as the run goes. The schema is the last part's (the
    columns a run adds, such as ``canonical``, are in every part). No part, no file.
    """
    import pyarrow.parquet as pq

    parts = sorted(folder.glob("part-*.parquet"))
    if not parts:
        return
    schema = pq.read_schema(parts[-1])
    metadata = {**(schema.metadata or {}), PARQUET_KEY.encode(): text.encode("utf-8")}
    pq.write_metadata(schema.with_metadata(metadata), folder / "_common_metadata")
