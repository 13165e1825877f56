"""Datasets deduplicated across symmetries: the first puzzle of each class, in order.

Records stream through in chunks; a few chunks at a time are canonicalised by threads
(the compiled minlex search runs without the GIL), and the main thread keeps one
entry per class seen: its canonical form, first record and size. Memory grows with
the number of classes (about 200 bytes each), never with the number of records.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import islice
from typing import IO

from cpsudoku.canon import canonical_lines
from cpsudoku.datasets.records import Record
from cpsudoku.model.errors import CpSudokuError
from cpsudoku.model.rules import Rules

#: Records per chunk handed to a thread.
CHUNK = 10_000


@dataclass
class DedupeSummary:
    """What a dedupe run did.

    Attributes:
        records: records read.
        kept: records written (the first of each class).
        invalid: records that could not be read as a puzzle (not written).
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
            f"{self.records:,} records, {self.kept:,} classes kept, "
            f"{self.duplicates:,} duplicates dropped, {self.invalid:,} invalid, "
            f"{self.seconds:.1f} s ({rate:,.0f} records/s)"
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

    def __init__(self, fh: IO[str], name: str) -> None:
        self.fh = fh
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
            self.fh.write(record.puzzle + "\n")


def dedupe(
    records: Iterable[Record],
    output: str,
    report: str | None = None,
    *,
    box: str | Rules | None = None,
    jobs: int = 1,
) -> DedupeSummary:
    """Write the first record of each equivalence class of ``records`` to ``output``.

    ``output`` (``-`` for standard output) gets the kept puzzles in input order: CSV
    (``index,puzzle``) for a .csv name, JSON lines for .jsonl, else one per line.
    ``report``, when given, gets one CSV row per class in order of first appearance:
    ``class,size,first_index,canonical``. Records that cannot be read are counted as
    invalid and written nowhere.
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
        writer = _KeptWriter(fh, output)
        for record, key in canonical_stream(records, box, jobs):
            summary.records += 1
            if record.error is not None or not isinstance(key, str):
                summary.invalid += 1
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
        with open(report, "w", encoding="utf-8", newline="") as rh:
            out = csv.writer(rh, lineterminator="\n")
            out.writerow(["class", "size", "first_index", "canonical"])
            for key, number in classes.items():
                out.writerow([number, sizes[number], first[number], key])
    summary.seconds = time.perf_counter() - start
    return summary
