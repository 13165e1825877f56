"""Rows encoded for an output (CSV or JSON-lines text, a Parquet file), with their tallies.

Workers encode their chunks, so the process writing the output only writes bytes:
formatting rows is the heaviest per-row work, and one writer serves every worker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from cpsudoku.datasets.parquet import parquet_bytes
from cpsudoku.datasets.rows import OutRow, format_rows
from cpsudoku.model.forms import zero_may_be_a_digit


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
        zeros: 16x16 rows whose puzzle writes 0 and no other empty cell, so its 0 may
            be a digit (:func:`~cpsudoku.model.forms.zero_may_be_a_digit`).
    """

    kind: str
    payload: str | bytes | tuple[OutRow, ...]
    count: int
    statuses: Counter[str] = field(default_factory=Counter)
    mismatches: int = 0
    disagreements: int = 0
    zeros: int = 0


def encode_rows(
    rows: Sequence[OutRow], kind: str, canonical: Sequence[str] | None = None
) -> EncodedRows:
    """Encode ``rows`` for an output of ``kind`` and count what they hold.

    ``canonical``: the ``batch --canon`` column, one text per row (CSV, JSON lines and
    Parquet; not the bare rows that ``--retry-timeouts`` merges).
    """
    if canonical is not None and kind not in ("csv", "jsonl", "parquet"):
        raise ValueError(f"the canonical column goes to CSV, JSON lines or Parquet, not {kind}")
    statuses = Counter(map(itemgetter(2), rows))
    errors = [error for error in map(itemgetter(6), rows) if error]
    mismatches = sum("input's solution column" in error for error in errors)
    disagreements = sum("disagreement:" in error for error in errors)
    payload: str | bytes | tuple[OutRow, ...]
    if kind == "rows":
        payload = tuple(rows)
    elif kind == "parquet":
        payload = parquet_bytes(rows, canonical)
    elif kind == "jsonl":  # the types of `solve --json`: seconds a number, null for none
        payload = format_rows(
            [
                (
                    *row[:3],
                    row[3] or None,
                    row[4],
                    round(row[5], 6),
                    row[6] or None,
                    *(value or None for value in list(row)[7:]),  # evidence columns
                )
                for row in rows
            ],
            kind,
            canonical,
        )
    else:
        payload = format_rows(rows, kind, canonical)
    zeros = sum(len(row[1]) == 256 and zero_may_be_a_digit(row[1]) for row in rows)
    return EncodedRows(kind, payload, len(rows), statuses, mismatches, disagreements, zeros)
