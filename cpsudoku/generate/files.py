"""Generated puzzles written as datasets that ``cpsudoku batch`` reads."""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from cpsudoku.generate.puzzles import GeneratedPuzzle
from cpsudoku.model.errors import file_named

#: Output suffixes the dataset writer knows.
DATASET_SUFFIXES = (".txt", ".csv", ".jsonl")


def write_dataset(
    items: Iterator[GeneratedPuzzle] | Sequence[GeneratedPuzzle],
    path: str | Path | None = None,
    *,
    stream: TextIO | None = None,
) -> int:
    """Write generated puzzles in a batch input format chosen by the suffix.

    ``.txt`` (also the form for standard output): one puzzle per line; ``.csv``: a
    header ``puzzle,solution`` (plus ``grade,score`` when rated); ``.jsonl``: one
    object per line with the same keys. Returns the number of puzzles written.

    A file is written as the puzzles come, into a temporary file next to it that
    replaces ``path`` only when every puzzle was written: a failed or interrupted run
    (say a :class:`GenerationError`) leaves an existing file as it was. A path that is
    not a regular file (a pipe, a device) is written directly.

    Raises:
        ValueError: an unknown suffix.
    """
    suffix = ".txt" if path is None else Path(path).suffix.lower()
    if suffix not in DATASET_SUFFIXES:
        raise ValueError(
            f"cannot tell the format of {path}: use a name ending in {', '.join(DATASET_SUFFIXES)}"
        )
    if path is None:
        with file_named("standard output"):
            return _write(items, suffix, stream or sys.stdout)
    target = Path(os.path.realpath(path))  # through a symlink: keep the link
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with file_named(path), target.open("w", encoding="utf-8", newline="") as fh:
            return _write(items, suffix, fh)
    temp, out = _open_temporary(target, path)
    try:
        with file_named(path), out:  # an error names the file asked for
            written = _write(items, suffix, out)
        if mode is not None:
            shutil.copymode(target, temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return written


def _open_temporary(target: Path, path: str | Path) -> tuple[Path, TextIO]:
    """A new hidden file next to ``target``, open for writing, and its path.

    Created with mode ``x`` (so the umask applies, as for a plain open) under a random
    name. An error names ``path``, the file asked for, not the temporary one.
    """
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return temp, temp.open("x", encoding="utf-8", newline="")
        except FileExistsError:
            continue
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(path)) from None


def _write(
    items: Iterator[GeneratedPuzzle] | Sequence[GeneratedPuzzle], suffix: str, out: TextIO
) -> int:
    written = 0
    writer = None
    for item in items:
        if suffix == ".txt":
            out.write(f"{item.puzzle}\n")
        elif suffix == ".jsonl":
            out.write(json.dumps(item.to_dict()) + "\n")
        else:
            record = item.to_dict()
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(record), lineterminator="\n")
                writer.writeheader()
            writer.writerow(record)
        written += 1
    if suffix == ".csv" and writer is None:
        out.write("puzzle,solution\n")
    out.flush()
    return written


def dataset_text(items: Sequence[GeneratedPuzzle], suffix: str = ".txt") -> str:
    """The dataset as text (for tests and small outputs)."""
    buffer = io.StringIO()
    _write(items, suffix, buffer)
    return buffer.getvalue()
