"""Batch output rows: their columns, and their CSV and JSON-lines text."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

#: Columns of batch output, in order.
COLUMNS = ("index", "puzzle", "status", "solution", "backend", "seconds", "error")

#: A batch row without its index and puzzle: status, solution, backend, seconds, error.
Row = tuple[str, str, str, float, str]

#: A full output row in :data:`~cpsudoku.datasets.rows.COLUMNS` order, seconds as a float:
#: index, puzzle, status, solution, backend, seconds, error.
OutRow = tuple[int, str, str, str, str, float, str]


def output_kind(path: str) -> str:
    """``"csv"``, ``"jsonl"`` or ``"parquet"`` from an output name (``-`` is CSV)."""
    lower = path.lower().rstrip("/")
    if lower.endswith(".parquet"):
        return "parquet"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "csv"


#: What makes a CSV field need quotes: the delimiter, a quote, and every control
#: character (CR and LF above all: unquoted, a reader would split the row there), and
#: the line breaks some readers take from Unicode (NEL, LS, PS).
_NEEDS_QUOTES = re.compile('[",\x00-\x1f\x7f\x85\u2028\u2029]')


def _csv_field(text: str) -> str:
    """``text`` as one CSV field: quoted (quotes doubled) when it needs to be."""
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def format_rows(rows: Sequence[Sequence[object]], kind: str) -> str:
    """Rows (in :data:`COLUMNS` order) as whole lines of CSV or JSONL text.

    Every row is one physical line in JSONL (JSON escapes control characters). In
    CSV a field holding a delimiter, a quote or any control character is quoted, as
    RFC 4180 says, so csv readers, pandas and ``--resume`` read each row back whole
    and exactly; the standard ``csv.writer`` leaves a lone carriage return unquoted
    when lines end in LF, and a reader then splits the row there.
    """
    if kind == "jsonl":
        return "".join(json.dumps(dict(zip(COLUMNS, row, strict=True))) + "\n" for row in rows)
    field = _csv_field
    return "".join(
        f"{index},{field(str(puzzle))},{status},{field(str(solution))},{field(str(backend))},"
        f"{seconds},{field(str(error)) if error else ''}\n"
        for index, puzzle, status, solution, backend, seconds, error in rows
    )
