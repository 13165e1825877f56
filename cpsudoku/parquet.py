"""Batch output shared by the local and the cluster engine, and the Parquet writer.

Both engines hand over rows chunk by chunk, in input order; :class:`BatchOutput`
counts them into the :class:`~cpsudoku.batch.Summary`, advances the progress bar and
writes them: CSV or JSONL through the local engine's own writer (whole lines, flushed
per chunk, so :func:`~cpsudoku.batch.resume_point` stays exact), or Parquet as a
directory ``DIR.parquet`` holding one file per chunk or partition.

Parquet files are written under a hidden temporary name and renamed into place, so a
``part-NNNNN.parquet`` file is always complete; ``--resume`` keeps the unbroken run of
parts from ``part-00000`` on and solves the rest. pyarrow is part of the optional extra
``cpsudoku[dask]`` and is imported only when Parquet is asked for.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, zip_longest
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from cpsudoku.batch import (
    Summary,
    _progress,
    _RowWriter,
    kept_rows,
    old_rows,
    resume_point,
)
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import COLUMNS, format_rows, output_kind
from cpsudoku.model.errors import CpSudokuError, file_named

if TYPE_CHECKING:
    from types import ModuleType

#: A full output row in :data:`~cpsudoku.datasets.rows.COLUMNS` order, seconds as a float:
#: index, puzzle, status, solution, backend, seconds, error.
OutRow = tuple[int, str, str, str, str, float, str]

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


def _schema(pa: ModuleType) -> Any:
    """The Arrow schema of the batch columns."""
    return pa.schema(
        [
            ("index", pa.int64()),
            ("puzzle", pa.string()),
            ("status", pa.string()),
            ("solution", pa.string()),
            ("backend", pa.string()),
            ("seconds", pa.float64()),
            ("error", pa.string()),
        ]
    )


def parquet_bytes(rows: Sequence[OutRow]) -> bytes:
    """``rows`` as one whole Parquet file, in memory."""
    pa, pq = require_pyarrow()
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(COLUMNS)
    table = pa.table(
        {name: list(values) for name, values in zip(COLUMNS, columns, strict=True)},
        schema=_schema(pa),
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


@dataclass(frozen=True, slots=True)
class EncodedRows:
    """A chunk of rows already encoded in the output's format, with their tallies.

    Cluster workers build these, so the client only writes bytes: formatting CSV or
    building Parquet is the heaviest per-row work, and one client serves every worker.

    Attributes:
        kind: ``"csv"``, ``"jsonl"`` or ``"parquet"``; or ``"rows"``, the rows left
            as they are (``--retry-timeouts`` merges them with an earlier output).
        payload: the rows as text lines (CSV/JSONL, no header), a whole Parquet file,
            or the row tuples.
        count: number of rows.
        statuses: rows per status.
        mismatches: rows whose solution differs from the input's solution column.
        disagreements: rows where a cross-checking backend disagreed.
    """

    kind: str
    payload: str | bytes | tuple[OutRow, ...]
    count: int
    statuses: Counter[str] = field(default_factory=Counter)
    mismatches: int = 0
    disagreements: int = 0


def encode_rows(rows: Sequence[OutRow], kind: str) -> EncodedRows:
    """Encode ``rows`` for an output of ``kind`` and count what they hold."""
    statuses = Counter(map(itemgetter(2), rows))
    errors = [error for error in map(itemgetter(6), rows) if error]
    mismatches = sum("input's solution column" in error for error in errors)
    disagreements = sum("disagreement:" in error for error in errors)
    payload: str | bytes | tuple[OutRow, ...]
    if kind == "rows":
        payload = tuple(rows)
    elif kind == "parquet":
        payload = parquet_bytes(rows)
    elif kind == "jsonl":  # the types of `solve --json`: seconds a number, null for none
        payload = format_rows(
            [(*row[:3], row[3] or None, row[4], round(row[5], 6), row[6] or None) for row in rows],
            kind,
        )
    else:
        payload = format_rows([(*row[:5], f"{row[5]:.6f}", row[6]) for row in rows], kind)
    return EncodedRows(kind, payload, len(rows), statuses, mismatches, disagreements)


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


def _is_ours(name: str) -> bool:
    return bool(_PART.match(name)) or (name.startswith(".part-") and name.endswith(".tmp"))


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

    def write(self, rows: Sequence[OutRow]) -> None:
        """Write ``rows`` as one new part file."""
        self.write_encoded(encode_rows(rows, "parquet"))

    def write_encoded(self, block: EncodedRows) -> None:
        """Write a chunk a worker already encoded as one Parquet file."""
        if not isinstance(block.payload, bytes):
            raise TypeError(f"a Parquet part needs bytes, got a {block.kind} chunk")
        _write_part(os.path.join(self.path, part_name(self.number)), block.payload)
        self.number += 1

    def close(self) -> None:
        """Nothing to flush: every part is complete once :meth:`write` returns."""


class _TextWriter:
    """The local engine's CSV/JSONL writer, fed encoded chunks."""

    def __init__(self, path: str, append: bool, kind: str) -> None:
        self.inner = _RowWriter(path, append, kind)

    def write_encoded(self, block: EncodedRows) -> None:
        if not isinstance(block.payload, str):
            raise TypeError(f"a {self.inner.kind} output needs text, got a {block.kind} chunk")
        self.inner.put(block.payload)

    def close(self) -> None:
        self.inner.close()


class BatchOutput:
    """Where a batch run's rows go: counted, shown on the progress bar, written.

    Opening it applies ``--resume``: :attr:`kept` is the number of leading records an
    earlier run already wrote (and which must be skipped); without ``resume`` the
    output starts afresh. With ``retry_timeouts`` (which implies ``resume``) the kept
    rows whose status is ``timeout`` are solved again (:meth:`rest` hands them out
    with the new records) and written in their place, index order kept, every other
    row byte for byte as it was. A CSV or JSONL output is then rewritten into a
    temporary file that replaces it only when the run completes, so an interrupted
    retry leaves the earlier output as it was; a Parquet part is rewritten (to a
    temporary name, then renamed) as soon as its retried rows are all in.

    Args:
        path: output file (``-`` for stdout); a name ending in ``.parquet`` is a
            Parquet directory.
        summary: the run's summary, updated as rows are written.
        resume: keep the complete rows of an earlier run.
        retry_timeouts: solve the kept ``timeout`` rows again.
        progress: show a progress bar on stderr.
        total: number of records expected, for the bar's ETA (None when unknown).

    Call :meth:`finish` after the last chunk, then :meth:`close` (also on errors).
    """

    def __init__(
        self,
        path: str,
        summary: Summary,
        *,
        resume: bool = False,
        retry_timeouts: bool = False,
        progress: bool = False,
        total: int | None = None,
    ) -> None:
        self.kind = output_kind(path)
        self.summary = summary
        self.path = path
        self.kept = 0
        self.parts = 0  # Parquet parts kept from an earlier run
        resume = resume or retry_timeouts
        if resume and path == "-":
            flag = "--retry-timeouts" if retry_timeouts else "--resume"
            raise CpSudokuError(f"{flag} needs an output file, not standard output")
        self.writer: ParquetPartsWriter | _TextWriter
        self._ranges: list[tuple[int, int]] = []  # Parquet: index range of each kept part
        if self.kind == "parquet":
            if resume:
                self.kept, self.parts, self._ranges = parquet_resume_point(path)
            self.writer = ParquetPartsWriter(path, self.parts)
        elif resume and os.path.exists(path):
            self.kept = resume_point(path, self.kind)
        #: Kept rows are being retried: workers hand back rows, merged here.
        self.retrying = retry_timeouts and self.kept > 0
        #: What the workers encode chunks as.
        self.encoding = "rows" if self.retrying else self.kind
        self._temp: str | None = None
        self._old: Iterator[bytes] | None = None
        self._copied = 0  # old rows copied (or replaced) into the new output so far
        self._pending: dict[int, OutRow] = {}  # Parquet: retried rows of the open part
        self._finished = False
        if self.kind != "parquet":
            target = path
            if self.retrying:
                target = self._temp = _temporary_name(path)
                self._old = old_rows(path, self.kind, self.kept)
            self.writer = _TextWriter(
                target, append=self.kept > 0 and not self.retrying, kind=self.kind
            )
        self.bar: Any = _progress(total, progress)

    def rest(self, records: Iterable[Record]) -> Iterator[Record]:
        """The records to solve: those after the :attr:`kept` ones, and retried ones.

        Each kept row must hold the puzzle of the input record with its index, so a
        ``--resume`` into the output of another dataset fails instead of mixing the two.

        Raises:
            CpSudokuError: a kept row holds another puzzle, or the output has more rows
                than the input has records.
        """
        it = iter(records)
        if self.kept:
            earlier = zip_longest(islice(it, self.kept), self._kept_rows())
            for index, (record, row) in enumerate(earlier):
                if record is None:
                    raise CpSudokuError(
                        f"cannot resume into {self.path}: it holds {self.kept} rows, but the "
                        f"input has only {index} records; it is not this input's output"
                    )
                puzzle, status, error = row
                if record.puzzle != puzzle:
                    raise CpSudokuError(
                        f"cannot resume into {self.path}: its row {index} holds another puzzle "
                        f"than input record {index}; it is not this input's output"
                    )
                if self.retrying and status == "timeout":
                    yield record
                else:
                    self.summary.note_kept(status, error)
                    if self.bar is not None:
                        self.bar.update(1)
        yield from it

    def _kept_rows(self) -> Iterator[tuple[str, str, str | None]]:
        if self.kind != "parquet":
            yield from kept_rows(self.path, self.kind, self.kept)
            return
        _, pq = require_pyarrow()
        for number in range(self.parts):
            table = pq.read_table(
                os.path.join(self.path, part_name(number)), columns=["puzzle", "status", "error"]
            )
            columns = (table.column(c).to_pylist() for c in ("puzzle", "status", "error"))
            yield from zip(*columns, strict=True)

    def write(self, rows: Sequence[OutRow]) -> None:
        """Count and write one chunk of rows (the next ones in input order)."""
        self.write_encoded(encode_rows(rows, self.encoding))

    def write_encoded(self, block: EncodedRows) -> None:
        """Count and write one chunk that is already encoded for this output."""
        summary = self.summary
        summary.statuses.update(block.statuses)
        summary.mismatches += block.mismatches
        summary.disagreements += block.disagreements
        if block.kind == "rows":
            self._merge(block.payload)  # type: ignore[arg-type]
        else:
            self.writer.write_encoded(block)
        summary.records += block.count
        if self.bar is not None:
            self.bar.update(block.count)
            self.bar.set_postfix_str(
                ", ".join(f"{s} {n}" for s, n in sorted(summary.statuses.items())),
                refresh=False,
            )

    def _merge(self, rows: Sequence[OutRow]) -> None:
        """Write retried and new rows in index order among the kept ones."""
        if self.kind == "parquet":
            fresh = [row for row in rows if row[0] >= self.kept]
            for row in rows:
                if row[0] < self.kept:
                    self._parquet_retried(row)
            if fresh:
                self._flush_parts(self.kept)
                self.writer.write_encoded(encode_rows(fresh, "parquet"))
            return
        text: list[str] = []
        for row in rows:
            index = row[0]
            text.extend(self._copy_old(min(index, self.kept)))
            if index < self.kept:  # the timeout row it replaces
                next(self._old)  # type: ignore[arg-type]
                self._copied += 1
            text.append(encode_rows([row], self.kind).payload)  # type: ignore[arg-type]
        self.writer.inner.put("".join(text))  # type: ignore[union-attr]

    def _copy_old(self, upto: int) -> Iterator[str]:
        """The kept rows before index ``upto`` that are not yet in the new output."""
        while self._copied < upto:
            self._copied += 1
            yield next(self._old).decode("utf-8")  # type: ignore[arg-type]

    def _parquet_retried(self, row: OutRow) -> None:
        """Hold a retried row until every retried row of its part is in."""
        self._flush_parts(row[0])
        self._pending[row[0]] = row

    def _flush_parts(self, upto: int) -> None:
        """Rewrite the kept parts that end before index ``upto`` and hold retried rows."""
        if not self._pending:
            return
        first = min(self._pending)
        number = next(k for k, (lo, hi) in enumerate(self._ranges) if lo <= first < hi)
        if upto < self._ranges[number][1]:
            return
        rewrite_part(self.path, number, self._pending)
        self._pending.clear()

    def finish(self) -> None:
        """Complete the output: the kept rows after the last retried one, the rename."""
        if self.kind == "parquet":
            if self._pending:
                self._flush_parts(self.kept)
        elif self.retrying:
            self.writer.inner.put("".join(self._copy_old(self.kept)))  # type: ignore[union-attr]
            self.writer.close()
            os.replace(self._temp, self.path)  # type: ignore[arg-type]
            self._temp = None
        self._finished = True

    def close(self) -> None:
        """Close the writer and the progress bar; an unfinished retry leaves no trace."""
        try:
            self.writer.close()
        finally:
            if self._temp is not None:
                with contextlib.suppress(OSError):
                    os.remove(self._temp)
            if self.bar is not None:
                self.bar.close()


def _temporary_name(path: str) -> str:
    """A new hidden file beside ``path``, for the output that will replace it."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.{os.getpid()}.tmp")


def rewrite_part(path: str, number: int, rows: dict[int, OutRow]) -> None:
    """Replace the rows of Parquet part ``number`` whose index is in ``rows``.

    The new part is written under a hidden temporary name and renamed over the old
    one, so the part is whole, old or new, whenever the run stops.
    """
    _, pq = require_pyarrow()
    name = os.path.join(path, part_name(number))
    table = pq.read_table(name)
    old = list(zip(*(table.column(c).to_pylist() for c in COLUMNS), strict=True))
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
    "BatchOutput",
    "EncodedRows",
    "OutRow",
    "ParquetPartsWriter",
    "ParquetUnavailableError",
    "encode_rows",
    "parquet_bytes",
    "parquet_resume_point",
    "part_name",
    "require_pyarrow",
]
