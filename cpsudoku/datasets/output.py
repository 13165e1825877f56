"""Where a batch run's rows go: counted, shown on a progress bar, written, resumed.

CSV and JSON-lines outputs are written as whole rows and flushed chunk by chunk, so
``--resume`` finds exactly the rows an interrupted run completed; ``--retry-timeouts``
rewrites the ``timeout`` rows in place. Parquet outputs are folders of part files
(:mod:`cpsudoku.datasets.parquet`). The local and the cluster engine share this.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import islice, zip_longest
from typing import IO, TYPE_CHECKING, Any

from cpsudoku.datasets.encoding import EncodedRows, encode_rows
from cpsudoku.datasets.parquet import (
    ParquetPartsWriter,
    parquet_resume_point,
    part_name,
    require_pyarrow,
    rewrite_part,
)
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import COLUMNS, OutRow, output_kind
from cpsudoku.model.errors import CpSudokuError, file_named
from cpsudoku.model.words import count_of

if TYPE_CHECKING:
    pass


@dataclass(slots=True)
class Summary:
    """Counts of a batch run, for the progress bar, the closing line and the exit code.

    Attributes:
        statuses: rows written by this run, per status.
        mismatches: of those, rows that differ from the input's solution column.
        disagreements: of those, rows where the cross-checking backend disagreed.
        records: rows written by this run.
        resumed: rows kept from an earlier run (``--resume``), which this run did not
            solve again.
        kept: those kept rows per status, and ``kept_flags`` their mismatches and
            disagreements: the exit code speaks of the whole output.
        seconds: wall time of the run.
        zeros: rows written by this run whose 16x16 puzzle may use 0 as a digit.
    """

    statuses: Counter[str] = field(default_factory=Counter)
    mismatches: int = 0
    disagreements: int = 0
    records: int = 0
    resumed: int = 0
    kept: Counter[str] = field(default_factory=Counter)
    kept_flags: int = 0
    seconds: float = 0.0
    zeros: int = 0

    def note_kept(self, status: str, error: str | None) -> None:
        """Count one row kept from an earlier run."""
        self.resumed += 1
        self.kept[status] += 1
        if error and ("input's solution column" in error or "disagreement:" in error):
            self.kept_flags += 1

    def total(self, status: str) -> int:
        """Rows of ``status`` in the whole output: written now or kept."""
        return self.statuses[status] + self.kept[status]

    @property
    def flagged(self) -> int:
        """Rows in the whole output that differ from the input or between backends."""
        return self.mismatches + self.disagreements + self.kept_flags

    def line(self) -> str:
        """The one-line summary printed at the end of a run."""
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        counts = ", ".join(f"{n:,} {s}" for s, n in sorted(self.statuses.items()))
        text = (
            f"{count_of(self.records, 'record')} in {self.seconds:.2f} s "
            f"({rate:,.0f} puzzles/s): "
            f"{counts or 'none'}"
        )
        if self.resumed:
            kept = ", ".join(f"{n:,} {s}" for s, n in sorted(self.kept.items()))
            text += f"; {self.resumed:,} kept from the previous run ({kept})"
        if self.mismatches:
            differ = "differs" if self.mismatches == 1 else "differ"
            text += f"; {self.mismatches:,} {differ} from the input's solution column"
        if self.disagreements:
            text += "; " + count_of(
                self.disagreements,
                "DISAGREEMENT between backends",
                "DISAGREEMENTS between backends",
            )
        return text


def resume_point(path: str, kind: str, columns: tuple[str, ...] = COLUMNS) -> int:
    """Keep the complete rows of an earlier run's output; return how many there are.

    Rows are checked one by one (whole, right field count, consecutive index); the
    file is truncated after the last good row, so a row cut by a crash is gone. CSV
    rows are parsed as CSV records (a quoted field may hold line breaks), JSONL rows
    are lines.

    Raises:
        CpSudokuError: the file does not start as a batch output does (the header for
            CSV, row 0 for JSONL, or the start of either cut short): it is some other
            file, and truncating it would destroy it.
    """
    with open(path, "r+b") as fh:
        rows = _csv_rows(fh) if kind == "csv" else _jsonl_rows(fh)
        kept = good_end = 0
        first = True
        for fields, end, complete in rows:
            if first:
                first = False
                if not _starts_output(fields, kind, complete, columns):
                    raise CpSudokuError(
                        f"cannot resume into {path}: it does not start as a batch output of "
                        f"{kind.upper()} rows with the columns {','.join(columns)} does, so it "
                        "is left untouched; name a new output or drop --resume (--witnesses "
                        "and --certify add two columns: resume with the flags the run had)"
                    )
                if kind == "csv":
                    if not complete:
                        break
                    good_end = end  # the header
                    continue
            if not complete or not _row_ok(fields, kind, kept, columns):
                break
            kept += 1
            good_end = end
        fh.truncate(good_end)
    return kept


#: A parsed output row: its fields (a list for CSV, a dict for JSONL, None when it
#: does not parse), the byte offset where it ends, and whether it ends in a newline.
_Parsed = tuple[Any, int, bool]


def _csv_rows(fh: IO[bytes]) -> Iterator[_Parsed]:
    """The CSV records of ``fh``, each with the byte offset of its end."""
    consumed = 0
    whole = True

    def lines() -> Iterator[str]:
        nonlocal consumed, whole
        for raw in fh:
            consumed += len(raw)
            whole = raw.endswith(b"\n")
            yield raw.decode("utf-8", "replace")

    reader = csv.reader(lines(), strict=True)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error:  # a row cut short inside quotes, or not CSV at all
            yield None, consumed, False
            return
        yield fields, consumed, whole


def _jsonl_rows(fh: IO[bytes]) -> Iterator[_Parsed]:
    """The JSON lines of ``fh``, each with the byte offset of its end."""
    consumed = 0
    for raw in fh:
        consumed += len(raw)
        try:
            row = json.loads(raw)
        except ValueError:
            row = None
        yield row, consumed, raw.endswith(b"\n")


def _starts_output(
    first: Any, kind: str, complete: bool, columns: tuple[str, ...] = COLUMNS
) -> bool:
    """Whether ``first``, the first row of a file, is how a batch output starts.

    That is the header for CSV (or its start, cut short by a crash), row 0 for JSONL
    (or a line cut short that a row 0 may have started).
    """
    if kind == "csv":
        if first is None:
            return False
        header = list(columns)
        if complete:
            return bool(first == header)
        return len(first) <= len(header) and header[: len(first)][:-1] == first[:-1]
    return _row_ok(first, kind, 0, columns) or not complete


def kept_rows(path: str, kind: str, kept: int) -> Iterator[tuple[str, str, str | None]]:
    """Puzzle, status and error of the first ``kept`` rows of a CSV or JSONL output."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        if kind == "csv":
            rows = csv.reader(fh)
            next(rows, None)  # the header
            for row in islice(rows, kept):
                yield row[1], row[2], row[6] or None
        else:
            for line in islice(fh, kept):
                row = json.loads(line)
                yield row["puzzle"], row["status"], row["error"]


def old_rows(path: str, kind: str, kept: int) -> Iterator[bytes]:
    """The first ``kept`` rows of a CSV or JSONL output as their bytes, header skipped."""
    with open(path, "rb") as parsed, open(path, "rb") as raw:
        rows = _csv_rows(parsed) if kind == "csv" else _jsonl_rows(parsed)
        done = 0
        if kind == "csv":
            _fields, done, _complete = next(rows)
            raw.seek(done)
        for _fields, end, _complete in islice(rows, kept):
            yield raw.read(end - done)
            done = end


def _row_ok(fields: Any, kind: str, index: int, columns: tuple[str, ...] = COLUMNS) -> bool:
    """Whether a parsed row is the output row numbered ``index``."""
    if kind == "jsonl":
        return (
            isinstance(fields, dict)
            and fields.get("index") == index
            and set(fields) == set(columns)
        )
    return isinstance(fields, list) and len(fields) == len(columns) and fields[0] == str(index)


class _RowWriter:
    """Writes rows to CSV/JSONL as whole lines, flushed after every chunk.

    A failed write (a full disk, a closed pipe) raises an OSError that names the
    output, so it is never taken for a problem with the input.
    """

    def __init__(
        self,
        path: str,
        append: bool,
        kind: str | None = None,
        columns: Sequence[str] = COLUMNS,
    ) -> None:
        self.kind = kind or output_kind(path)
        self.name = "standard output" if path == "-" else path
        self.stream: IO[str]
        if path == "-":
            self.stream, self._own = sys.stdout, False
        else:
            # Held open across chunks and closed by close(): not a with-block.
            self.stream = open(path, "a" if append else "w", encoding="utf-8", newline="")  # noqa: SIM115
            self._own = True
        if self.kind == "csv" and not append:
            self.put(",".join(columns) + "\n")

    def put(self, text: str) -> None:
        """Write ``text`` and flush it, naming the output in any error."""
        try:
            with file_named(self.name):
                self.stream.write(text)
                self.stream.flush()
        except OSError:
            if self._own:  # no later write can succeed: let go of the file now
                with suppress(OSError):
                    self.stream.close()
            raise

    def close(self) -> None:
        if self._own:
            with file_named(self.name):
                self.stream.close()


def _progress(total: int | None, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="puzzle", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


class _TextWriter:
    """The local engine's CSV/JSONL writer, fed encoded chunks."""

    def __init__(
        self, path: str, append: bool, kind: str, columns: Sequence[str] = COLUMNS
    ) -> None:
        self.inner = _RowWriter(path, append, kind, columns)

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
        columns: the output's columns: :data:`~cpsudoku.datasets.rows.COLUMNS`, or
            with the evidence columns (``--witnesses``, ``--certify``) and the
            canonical column (``--canon``) after them.

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
        columns: Sequence[str] = COLUMNS,
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
            self.kept = resume_point(path, self.kind, tuple(columns))
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
                target, append=self.kept > 0 and not self.retrying, kind=self.kind, columns=columns
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
        if not self.kept:
            return iter(records)  # no layer between the reader and the workers
        return self._after_kept(iter(records))

    def _after_kept(self, it: Iterator[Record]) -> Iterator[Record]:
        """:meth:`rest` of a resumed run: the kept records checked, then the others."""
        if self.kept:
            earlier = zip_longest(islice(it, self.kept), self._kept_rows())
            for index, (record, row) in enumerate(earlier):
                if record is None:
                    raise CpSudokuError(
                        f"cannot resume into {self.path}: it holds "
                        f"{count_of(self.kept, 'row')}, but the input has only "
                        f"{count_of(index, 'record')}; it is not this input's output"
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
        summary.zeros += block.zeros
        if block.kind == "rows":
            self._merge(block.payload)  # type: ignore[arg-type]
        else:
            self._write(block)
        summary.records += block.count
        if self.bar is not None:
            self.bar.update(block.count)
            self.bar.set_postfix_str(
                ", ".join(f"{s} {n}" for s, n in sorted(summary.statuses.items())),
                refresh=False,
            )

    def _write(self, block: EncodedRows) -> None:
        """Write an encoded chunk as it is: text appended, or a new Parquet part."""
        if isinstance(self.writer, ParquetPartsWriter):
            if not isinstance(block.payload, bytes):
                raise TypeError(f"a Parquet part needs bytes, got a {block.kind} chunk")
            self.writer.write_part(block.payload)
        else:
            self.writer.write_encoded(block)

    def _merge(self, rows: Sequence[OutRow]) -> None:
        """Write retried and new rows in index order among the kept ones."""
        if self.kind == "parquet":
            fresh = [row for row in rows if row[0] >= self.kept]
            for row in rows:
                if row[0] < self.kept:
                    self._parquet_retried(row)
            if fresh:
                self._flush_parts(self.kept)
                self._write(encode_rows(fresh, "parquet"))
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
        elif self.retrying and isinstance(self.writer, _TextWriter):
            self.writer.inner.put("".join(self._copy_old(self.kept)))
            self.writer.close()
            os.replace(self._temp, self.path)  # type: ignore[arg-type]
            self._temp = None
        self._finished = True

    def close(self) -> None:
        """Close the writer and the progress bar; an unfinished retry leaves no trace."""
        try:
            if isinstance(self.writer, _TextWriter):
                self.writer.close()  # every Parquet part is complete once written
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
