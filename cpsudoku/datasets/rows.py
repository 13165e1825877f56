"""Batch output rows: their columns, and their CSV and JSON-lines text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from operator import itemgetter

#: Columns of batch output, in order.
COLUMNS = ("index", "puzzle", "status", "solution", "backend", "seconds", "error")

#: The columns ``--witnesses`` / ``--certify DIR`` add at the end: a second solution
#: of a ``multiple`` record, and the certificate of a ``unique`` one (``ARCHIVE/INDEX``).
EVIDENCE_COLUMNS = ("solution2", "certificate")

#: Columns of batch output with the evidence columns.
EVIDENCE_OUTPUT_COLUMNS = COLUMNS + EVIDENCE_COLUMNS

#: The column ``batch --canon`` adds after the others: the puzzle's canonical form.
CANONICAL = "canonical"


def columns_of(row: Sequence[object]) -> tuple[str, ...]:
    """The columns of a full output row, by its length (evidence columns or not)."""
    return COLUMNS if len(row) == len(COLUMNS) else EVIDENCE_OUTPUT_COLUMNS


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


#: The bytes a CSV field may hold unquoted: printable ASCII but the quote and comma.
_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if c not in b'",')


def _plain(texts: Iterable[str]) -> bool:
    """True when no text needs quotes: one C pass deleting the safe bytes of them all.

    Anything left (a quote, a comma, a control character, any non-ASCII character,
    among them the Unicode line breaks) sends the block to the per-field path.
    """
    joined = "".join(texts).encode("utf-8", "replace")
    return not joined.translate(None, _PLAIN_BYTES)


def _csv_field(text: str) -> str:
    """``text`` as one CSV field: quoted (quotes doubled) when it needs to be."""
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def format_rows(
    rows: Sequence[Sequence[object]], kind: str, canonical: Sequence[str] | None = None
) -> str:
    """Rows (in :data:`COLUMNS` order) as whole lines of CSV or JSONL text.

    Every row is one physical line in JSONL (JSON escapes control characters). In
    CSV a field holding a delimiter, a quote or any control character is quoted, as
    RFC 4180 says, so csv readers, pandas and ``--resume`` read each row back whole
    and exactly; the standard ``csv.writer`` leaves a lone carriage return unquoted
    when lines end in LF, and a reader then splits the row there. A float in the
    seconds column (a float) is written with six decimals. ``canonical``, when given,
    is one more column (:data:`CANONICAL`), one text per row.
    """
    if kind == "jsonl":
        if canonical is not None:
            return "".join(
                json.dumps({**dict(zip(columns_of(row), row, strict=True)), CANONICAL: key}) + "\n"
                for row, key in zip(rows, canonical, strict=True)
            )
        return "".join(
            json.dumps(dict(zip(columns_of(row), row, strict=True))) + "\n" for row in rows
        )
    if canonical is not None:
        lines = format_rows(rows, kind).splitlines(keepends=True)
        if len(lines) == len(rows):  # no quoted line break: one line per row
            return "".join(
                f"{line[:-1]},{_csv_field(key)}\n"
                for line, key in zip(lines, canonical, strict=True)
            )
        return "".join(
            f"{format_rows([row], kind)[:-1]},{_csv_field(key)}\n"
            for row, key in zip(rows, canonical, strict=True)
        )
    field = _csv_field
    if rows and len(rows[0]) != len(COLUMNS):  # evidence columns: the general path
        return "".join(
            ",".join(
                f"{v:.6f}" if isinstance(v, float) else field("" if v is None else str(v))
                for v in row
            )
            + "\n"
            for row in rows
        )
    # One look at the puzzle, solution and backend columns of the whole block: where
    # none needs quotes (nearly always), no field of them is looked at again.
    if all(_plain(map(itemgetter(k), rows)) for k in (1, 3, 4)):  # type: ignore[arg-type]
        return "".join(
            [
                f"{index},{puzzle},{status},{solution},{backend},"
                f"{seconds:.6f},{field(str(error)) if error else ''}\n"
                for index, puzzle, status, solution, backend, seconds, error in rows
            ]
        )
    return "".join(
        [
            f"{index},{field(str(puzzle))},{status},{field(str(solution))},{field(str(backend))},"
            f"{seconds:.6f},{field(str(error)) if error else ''}\n"
            for index, puzzle, status, solution, backend, seconds, error in rows
        ]
    )
