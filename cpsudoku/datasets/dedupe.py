"""Datasets deduplicated across symmetries: the first puzzle of each class, in order.

Records stream through in chunks; a few chunks at a time are canonicalised by threads
(the compiled minlex search runs without the GIL), and the main thread keeps one
entry per class seen: its canonical form, first record and size. Memory grows with
the number of classes (about 200 bytes each), never with the number of records.

Only a record proven equivalent to an earlier one is dropped. A record with no
canonical form (it cannot be read, or its rules go beyond rows, columns and boxes)
belongs to no known class: it is kept in its place, named in the report with the
reason, and counted apart, so no record is ever lost or moved.
"""

from __future__ import annotations

import csv
import heapq
import json
import sys
import tempfile
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import islice
from typing import IO

from cpsudoku.canon import canonical_lines
from cpsudoku.datasets.records import Record
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.rules import Rules
from cpsudoku.model.words import count_of

#: Records per chunk handed to a thread.
CHUNK = 10_000


#: Columns of the report: one row per class, and one per record with no canonical form.
REPORT_COLUMNS = ("class", "size", "first_index", "canonical", "error")


@dataclass
class DedupeSummary:
    """What a dedupe run did.

    Attributes:
        records: records read.
        kept: classes kept (the first record of each, written).
        invalid: records with no canonical form (unreadable, or rules beyond boxes):
            written too, in their place, and named in the report.
        seconds: wall time.
    """

    records: int = 0
    kept: int = 0
    invalid: int = 0
    seconds: float = 0.0

    @property
    def duplicates(self) -> int:
        """Records dropped because an earlier one is equivalent."""
        return self.records - self.kept - self.invalid

    def line(self) -> str:
        """A one-line summary for the command line."""
        rate = self.records / self.seconds if self.seconds else 0.0
        return (
            f"{count_of(self.records, 'record')}, {count_of(self.kept, 'class kept')}, "
            f"{count_of(self.duplicates, 'duplicate dropped')}, {self.invalid:,} invalid "
            f"(kept in place), {self.seconds:.1f} s ({rate:,.0f} records/s)"
        )


def _chunks(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    it = iter(records)
    while chunk := list(islice(it, size)):
        yield chunk


def canonical_stream(
    records: Iterable[Record], box: str | Rules | None = None, jobs: int = 1
) -> Iterator[tuple[Record, str | CpSudokuError]]:
    """Each record with its canonical line (or why it cannot be read), in input order.

    ``jobs`` threads canonicalise chunks; at most ``2 * jobs`` chunks are in flight.
    """
    jobs = max(1, jobs)

    def work(chunk: Sequence[Record]) -> list[str | CpSudokuError]:
        return canonical_lines([r.puzzle for r in chunk], box)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending: deque[tuple[list[Record], Future[list[str | CpSudokuError]]]] = deque()
        for chunk in _chunks(records, CHUNK):
            pending.append((chunk, pool.submit(work, chunk)))
            if len(pending) >= 2 * jobs:
                done, future = pending.popleft()
                yield from zip(done, future.result(), strict=True)
        while pending:
            done, future = pending.popleft()
            yield from zip(done, future.result(), strict=True)


class _KeptWriter:
    """The kept records, as the output's name says: .csv, .jsonl, else one per line."""

    def __init__(self, fh: IO[str], name: str, box: str | Rules | None) -> None:
        self.fh = fh
        self.box = box
        suffix = name.rpartition(".")[2].lower()
        self.kind = suffix if suffix in ("csv", "jsonl") else "txt"
        self.csv = csv.writer(fh, lineterminator="\n") if self.kind == "csv" else None
        if self.csv is not None:
            self.csv.writerow(["index", "puzzle"])

    def write(self, record: Record) -> None:
        if self.csv is not None:
            self.csv.writerow([record.index, record.puzzle])
        elif self.kind == "jsonl":
            self.fh.write(json.dumps({"index": record.index, "puzzle": record.puzzle}) + "\n")
        else:
            self.fh.write(_one_line(record.puzzle, self.box) + "\n")


def _one_line(text: str, box: str | Rules | None) -> str:
    """A record's puzzle as one line of a .txt output.

    A record read from several lines (a Project Euler 96 grid, a quoted CSV field)
    is written as its one-line form, which reads back as the same puzzle; one that
    cannot be read has its lines joined by spaces.
    """
    if "\n" not in text and "\r" not in text:
        return text
    from cpsudoku.model.forms import parse

    try:
        return parse(text, box, check=False).line()
    except CpSudokuError:
        return " ".join(part.strip() for part in text.splitlines() if part.strip())


#: Called with each record that has no canonical form, and why.
InvalidHandler = Callable[[Record, str], None]


def dedupe(
    records: Iterable[Record],
    output: str,
    report: str | None = None,
    *,
    box: str | Rules | None = None,
    jobs: int = 1,
    on_invalid: InvalidHandler | None = None,
) -> DedupeSummary:
    """Write the first record of each equivalence class of ``records`` to ``output``.

    ``output`` (``-`` for standard output) gets the kept records in input order: CSV
    (``index,puzzle``) for a .csv name, JSON lines for .jsonl, else one per line. Only
    a record equivalent to an earlier one is dropped: a record with no canonical form
    (unreadable, or rules beyond rows, columns and boxes) is written in its place too,
    and ``on_invalid`` is called with it and the reason.

    ``report``, when given, gets :data:`REPORT_COLUMNS` rows in order of first index:
    one per class (``class,size,first_index,canonical`` and an empty ``error``), and
    one per record with no canonical form (empty ``class`` and ``canonical``, size 1,
    its index and the reason). The sizes add up to the number of records.
    """
    start = time.perf_counter()
    summary = DedupeSummary()
    classes: dict[str, int] = {}
    first = array("q")
    sizes = array("q")
    with ExitStack() as stack:
        fh = (
            sys.stdout
            if output == "-"
            else stack.enter_context(open(output, "w", encoding="utf-8", newline=""))
        )
        # The records with no form, for the report: on disk past 1 MB, so memory
        # stays bounded by the classes even when most records are bad.
        invalid: IO[str] = stack.enter_context(
            tempfile.SpooledTemporaryFile(1 << 20, mode="w+", encoding="utf-8", newline="")
        )
        invalid_rows = csv.writer(invalid, lineterminator="\n")
        writer = _KeptWriter(fh, output, box)
        for record, key in canonical_stream(records, box, jobs):
            summary.records += 1
            if record.error is not None or not isinstance(key, str):
                reason = record.error if record.error is not None else str(key)
                summary.invalid += 1
                writer.write(record)
                invalid_rows.writerow([record.index, reason])
                if on_invalid is not None:
                    on_invalid(record, reason)
                continue
            number = classes.setdefault(key, len(classes))
            if number == len(first):
                first.append(record.index)
                sizes.append(1)
                writer.write(record)
                summary.kept += 1
            else:
                sizes[number] += 1
        if report is not None:
            invalid.seek(0)
            _write_report(report, classes, first, sizes, csv.reader(invalid))
    summary.seconds = time.perf_counter() - start
    return summary


def _write_report(
    report: str,
    classes: dict[str, int],
    first: array[int],
    sizes: array[int],
    invalid: Iterator[list[str]],
) -> None:
    """The report: class rows and rows of records with no form, merged by first index."""
    class_rows = (
        (first[number], [number, sizes[number], first[number], key, ""])
        for key, number in classes.items()  # in order of first appearance
    )
    invalid_rows = ((int(index), ["", 1, int(index), "", reason]) for index, reason in invalid)
    with open(report, "w", encoding="utf-8", newline="") as rh:
        out = csv.writer(rh, lineterminator="\n")
        out.writerow(REPORT_COLUMNS)
        for _, row in heapq.merge(class_rows, invalid_rows, key=lambda item: item[0]):
            out.writerow(row)
