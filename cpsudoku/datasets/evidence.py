"""The evidence columns of a batch: ``solution2`` and ``certificate`` (runs in a worker).

``solution2``: a second verified solution of each ``multiple`` record, different from
its ``solution`` (the engine is asked again for the two witnesses: the bulk passes
report only the first). ``certificate``: with ``--certify DIR``, each ``unique``
record's certificate (:mod:`cpsudoku.evidence.certificate`, its proof checked in
process), written with the others of its chunk into one zip archive
``DIR/chunk-FIRST-LAST.zip`` (record indexes), compressed, one folder per record
named by its index; the column holds ``chunk-FIRST-LAST.zip/INDEX``, which
``cpsudoku check-certificate DIR/chunk-FIRST-LAST.zip/INDEX`` checks. An archive is
complete before its chunk's rows are written (temporary name, then renamed), so a
``--resume``d run only ever names archives that are whole.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

from cpsudoku.datasets.options import SolveOptions
from cpsudoku.datasets.records import Record
from cpsudoku.datasets.rows import Row
from cpsudoku.engines import get_backend
from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.forms import parse
from cpsudoku.model.result import Status


def evidence_columns(
    records: Sequence[Record], rows: Sequence[Row], options: SolveOptions
) -> list[tuple[str, str]]:
    """``(solution2, certificate)`` for each row of a chunk ("" where none applies)."""
    out = [("", "")] * len(rows)
    certs: dict[int, dict[str, bytes]] = {}
    for k, (record, row) in enumerate(zip(records, rows, strict=True)):
        status, solution = row[0], row[1]
        if status == Status.MULTIPLE.value:
            out[k] = (_second(record, solution, options), "")
        elif status == Status.UNIQUE.value and options.certify is not None:
            files = _certificate(record, options)
            if files is not None:
                certs[record.index] = files
    if certs and options.certify is not None:
        name = _archive(records, certs, Path(options.certify))
        for k, record in enumerate(records):
            if record.index in certs:
                out[k] = ("", f"{name}/{record.index}")
    return out


def _second(record: Record, solution: str, options: SolveOptions) -> str:
    """A verified solution of ``record`` other than ``solution``."""
    puzzle = parse(record.puzzle, options.rules, check=False, symbols=options.symbols)
    result = get_backend(options.backend).solve(puzzle, time_limit=options.time_limit)
    for witness in result.solutions:
        text = witness.line(options.symbols)
        if text != solution:
            return text
    return ""


def _certificate(record: Record, options: SolveOptions) -> dict[str, bytes] | None:
    """The files of ``record``'s certificate, or None if it has none."""
    from cpsudoku.evidence.certificate import CertificateError, make_certificate

    try:
        puzzle = parse(record.puzzle, options.rules, check=False, symbols=options.symbols)
        cert = make_certificate(puzzle)
    except (CertificateError, PuzzleError):
        return None
    return cert.files() if cert.checked else None


def _archive(records: Sequence[Record], certs: dict[int, dict[str, bytes]], folder: Path) -> str:
    """Write the chunk's certificates into one zip archive; return its name."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"chunk-{records[0].index:09d}-{records[-1].index:09d}.zip"
    temp = folder / f".{name}.{os.getpid()}.tmp"
    with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for index, files in certs.items():
            for file, data in files.items():
                zf.writestr(f"{index}/{file}", data)
    os.replace(temp, folder / name)
    return name
