"""Parquet outputs: a folder ``DIR.parquet`` of part files, one per chunk or partition.

A part is written under a hidden temporary name and renamed into place, so a
``part-NNNNN.parquet`` file is always complete; ``--resume`` keeps the unbroken run of
parts from ``part-00000`` on and solves the rest. pyarrow is part of the optional extra
``cpsudoku[dask]`` and is imported only when Parquet is asked for.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cpsudoku.datasets.rows import CANONICAL, COLUMNS, OutRow, columns_of
from cpsudoku.model.errors import CpSudokuError, file_named

if TYPE_CHECKING:
    from types import ModuleType


#: The pip extra that brings pyarrow (and Dask) in.
EXTRA = "cpsudoku[dask]"

_PART = re.compile(r"^part-(\d+)\.parquet$")


class ParquetUnavailableError(CpSudokuError, ModuleNotFoundError):
    """Parquet output was asked for, but pyarrow is not installed."""


def require_pyarrow() -> tuple[ModuleType, ModuleType]:
    """Import pyarrow and pyarrow.parquet, or say which extra to install.

    Raises:
        ParquetUnavailableError: pyarrow is missing.
    """
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ParquetUnavailableError(
            f"Parquet output needs pyarrow, from the optional extra: pip install '{EXTRA}'"
        ) from None
    return pyarrow, pyarrow.parquet


def _schema(pa: ModuleType, columns: Sequence[str] = COLUMNS) -> Any:
    """The Arrow schema of the batch columns (and the evidence columns, when present)."""
    return pa.schema(
        [
            ("index", pa.int64()),
            ("puzzle", pa.string()),
            ("status", pa.string()),
            ("solution", pa.string()),
            ("backend", pa.string()),
            ("seconds", pa.float64()),
            ("error", pa.string()),
            *((name, pa.string()) for name in columns[len(COLUMNS) :]),
        ]
    )


def parquet_bytes(rows: Sequence[OutRow], canonical: Sequence[str] | None = None) -> bytes:
    """``rows`` as one whole Parquet file, in memory.

    ``canonical``, when given (``batch --canon``), is one more string column,
    :data:`~cpsudoku.datasets.rows.CANONICAL`, one text per row, last as in CSV.
    """
    pa, pq = require_pyarrow()
    names = columns_of(rows[0]) if rows else COLUMNS
    columns: list[Sequence[object]] = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    if canonical is not None:
        if len(canonical) != len(rows):
            raise ValueError(f"{len(canonical)} canonical forms for {len(rows)} rows")
        names = (*names, CANONICAL)
        columns.append(canonical)
    table = pa.table(
        {name: list(values) for name, values in zip(names, columns, strict=True)},
        schema=_schema(pa, names),
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def part_name(number: int) -> str:
    """File name of partition ``number`` inside a ``DIR.parquet`` output."""
    return f"part-{number:05d}.parquet"


def _parts(path: str) -> dict[int, str]:
    """The finished part files of a Parquet output directory, by number."""
    found = {}
    for name in os.listdir(path):
        match = _PART.match(name)
        if match:
            found[int(match.group(1))] = name
    return found


#: The dataset files a run writes beside its parts (its provenance): a new run's own.
_DATASET_FILES = frozenset({"_common_metadata", "_provenance.json"})


def _is_ours(name: str) -> bool:
    return (
        bool(_PART.match(name))
        or (name.startswith(".part-") and name.endswith(".tmp"))
        or name in _DATASET_FILES
    )


def parquet_resume_point(path: str) -> tuple[int, int, list[tuple[int, int]]]:
    """Keep the complete parts of an earlier Parquet run.

    Parts are checked in order from ``part-00000``: each must be readable and hold
    consecutive indexes carrying on from the part before. The first part that fails,
    every part after it, and leftover temporary files are deleted, so what stays is
    exactly the first ``records`` rows of the dataset.

    Returns:
        (records kept, the next part's number, each kept part's index range).
    """
    _, pq = require_pyarrow()
    if not os.path.isdir(path):
        return 0, 0, []
    parts = _parts(path)
    kept = number = 0
    ranges = []
    while number in parts:
        try:
            index = pq.read_table(os.path.join(path, parts[number]), columns=["index"])
            values = index.column("index").to_pylist()
        except (OSError, ValueError, KeyError):
            break  # unreadable or foreign: solve again from here
        if values != list(range(kept, kept + len(values))):
            break
        ranges.append((kept, kept + len(values)))
        kept += len(values)
        number += 1
    for other, name in parts.items():
        if other >= number:
            os.remove(os.path.join(path, name))
    for name in os.listdir(path):
        if name.startswith(".part-") and name.endswith(".tmp"):
            os.remove(os.path.join(path, name))
    return kept, number, ranges


class ParquetPartsWriter:
    """Writes each chunk of rows as the next ``part-NNNNN.parquet`` of a directory.

    A part is written to a hidden temporary name, synced and renamed, so a part that
    exists is complete (readers such as pyarrow datasets skip hidden files).
    """

    def __init__(self, path: str, first_part: int = 0) -> None:
        require_pyarrow()
        if os.path.exists(path) and not os.path.isdir(path):
            raise CpSudokuError(f"{path} exists and is not a directory; Parquet output is a folder")
        os.makedirs(path, exist_ok=True)
        self.path = path
        self.number = first_part
        if first_part == 0:  # a fresh run: old parts would mix with the new ones
            for name in os.listdir(path):
                if _is_ours(name):
                    os.remove(os.path.join(path, name))

    def write_part(self, payload: bytes) -> None:
        """Write one whole Parquet file (a chunk, as :func:`parquet_bytes` encodes it)."""
        _write_part(os.path.join(self.path, part_name(self.number)), payload)
        self.number += 1


def rewrite_part(path: str, number: int, rows: dict[int, OutRow]) -> None:
    """Replace the rows of Parquet part ``number`` whose index is in ``rows``.

    The new part is written under a hidden temporary name and renamed over the old
    one, so the part is whole, old or new, whenever the run stops.
    """
    _, pq = require_pyarrow()
    name = os.path.join(path, part_name(number))
    table = pq.read_table(name)
    names = table.column_names  # the batch columns, and the evidence ones when written
    old = list(zip(*(table.column(c).to_pylist() for c in names), strict=True))
    _write_part(name, parquet_bytes([rows.get(row[0], row) for row in old]))


def _write_part(final: str, payload: bytes) -> None:
    """Write one whole part file: to a hidden temporary name, synced, then renamed.

    An error (a full disk) names the part that could not be written.
    """
    folder, name = os.path.split(final)
    temp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with file_named(final), open(temp, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise
    os.replace(temp, final)


__all__ = [
    "EXTRA",
    "ParquetPartsWriter",
    "ParquetUnavailableError",
    "parquet_bytes",
    "parquet_resume_point",
    "part_name",
    "require_pyarrow",
]
