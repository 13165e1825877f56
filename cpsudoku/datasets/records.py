"""Dataset readers: the records of a .txt, .csv or .jsonl file, streamed.

Every record keeps its place (its index) whatever is wrong with it: a line that
cannot be read becomes a record with ``error`` set, never an exception and never a
gap, so a batch never loses or reorders a record. Memory stays flat: one line at a
time, each capped in length.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import re
import sys
import zipfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO, NamedTuple, cast

from cpsudoku.model.errors import DatasetError, RulesError, file_named
from cpsudoku.model.forms import GRID_HEADER, MAX_TEXT, PUZZLE_KEYS, is_symbol, json_kind
from cpsudoku.model.killer import killer_rules
from cpsudoku.model.text import decode_line, line_runs

MAX_RECORD = MAX_TEXT

#: Lines one quoted CSV field may span (a 49x49 grid drawn with box lines fits).
MAX_CSV_LINES = 100

_PUZZLE_COLUMNS = PUZZLE_KEYS
_SOLUTION_COLUMNS = ("solution", "solutions")
_NAME = re.compile(r"^[^\W\d][\w ]*$")
_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


class Record(NamedTuple):
    """One input record of a dataset.

    Attributes:
        index: 0-based record number (comments and blank lines are not records).
        puzzle: the puzzle text as read (undecodable bytes shown as U+FFFD).
        solution: the expected solution from the input's solution column, if any.
        error: why the record could not be read at all (over-long, undecodable,
            malformed JSON, a JSON puzzle field that is neither text nor a list);
            such a record becomes an ``invalid`` row.
    """

    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index on purpose
    puzzle: str
    solution: str | None = None
    error: str | None = None


class RecordBlock(list[Record]):
    """A chunk of records that travels to a worker process as four columns.

    Pickled as a list, each Record costs a class reference and a tuple (about 2.7 us
    to pickle and unpickle); as columns a record costs 0.6 us, which is a fifth of
    the parent's serial work on a million easy lines. It arrives as a plain list.
    """

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # type: ignore[override]
        return (_records_of, tuple(zip(*self, strict=True)) or ((), (), (), ()))


def _records_of(*columns: Sequence[Any]) -> list[Record]:
    """The records of :class:`RecordBlock`'s columns (index, puzzle, solution, error)."""
    return list(map(Record, *columns))


def dataset_kind(name: str) -> str:
    """``"csv"``, ``"jsonl"`` or ``"txt"`` from a file name (compression suffix ignored)."""
    lower = name.lower()
    for suffix in (*_COMPRESSED, ".zip"):
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
            break
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "txt"


@contextmanager
def open_dataset(path: str) -> Iterator[tuple[BinaryIO, str]]:
    """Open a dataset for binary reading, decompressing as its suffix says.

    ``-`` is standard input (read as .txt). A ``.zip`` must hold exactly one data
    file, as Kaggle ships them. Yields ``(stream, kind)``.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: the file cannot be opened.
        ValueError: a zip with no or several data files, or a corrupt archive.
    """
    if path == "-":
        yield sys.stdin.buffer, "txt"
        return
    lower = path.lower()
    if lower.endswith(".zip"):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            raise DatasetError(f"{path}: not a readable zip archive ({exc})") from None
        with archive:
            members = [
                m
                for m in archive.namelist()
                if not m.endswith("/") and not m.startswith("__MACOSX/")
            ]
            if len(members) != 1:
                raise DatasetError(
                    f"{path}: a zip must hold exactly one data file, found {len(members)}"
                    + (f" ({', '.join(members[:5])})" if members else "")
                )
            try:
                inner = archive.open(members[0])
            except (RuntimeError, NotImplementedError) as exc:  # encrypted, unknown method
                raise DatasetError(f"{path}: cannot read {members[0]} ({exc})") from None
            with inner:
                yield inner, dataset_kind(members[0])  # type: ignore[misc]
        return
    for suffix, module in _COMPRESSED.items():
        if lower.endswith(suffix):
            opener = importlib.import_module(module).open
            with opener(path, "rb") as stream:
                yield stream, dataset_kind(path)
            return
    with open(path, "rb") as stream:
        yield stream, dataset_kind(path)


#: Bytes read at a time by the dataset readers.
def read_records(path: str) -> Iterator[Record]:
    """Stream the records of a dataset (.txt, .csv, .jsonl; optionally compressed).

    - .txt: one puzzle per line; blank lines and lines starting with ``#`` skipped.
    - .csv: the column ``puzzle``, ``quizzes`` or ``quiz`` (else the first) holds the
      puzzle; ``solution``/``solutions``, when present, the expected solution. A first
      row that holds a puzzle-like field is data, not a header.
    - .jsonl: one JSON object per line with ``puzzle`` (or ``quizzes``/``quiz``), and
      optionally ``solution``; a bare JSON string is a puzzle too.

    Memory stays flat: one line at a time. Bad lines become records with ``error``
    set, never exceptions, so a batch never loses or reorders a record.
    """
    with file_named(path), open_dataset(path) as (stream, kind):
        reader = {"txt": _txt_records, "csv": _csv_records, "jsonl": _jsonl_records}[kind]
        yield from reader(stream)


#: The bytes of a plain block of one-line records: printable ASCII but ``#`` (no
#: comment), no space or control character (nothing to strip), and the line feeds.
_PLAIN_LINE_BYTES = bytes(c for c in range(0x21, 0x7F) if c != ord("#")) + b"\n"


def _plain_run(block: bytes) -> list[str] | None:
    """The records of a block of lines that needs no per-line work, else None.

    Nearly every block of a big one-line-per-puzzle file is such a block: its lines
    are its records, the blank ones left out. A block with anything else (spaces, a
    comment, a carriage return, non-ASCII bytes, a ``Grid 01`` header) is read line by
    line; both ways give the same records.
    """
    if block.translate(None, _PLAIN_LINE_BYTES) or b"rid" in block.lower():
        return None
    return [line for line in block.decode("ascii").split("\n") if line]


Text = tuple[str | None, str | None]


def _texts(stream: BinaryIO) -> Iterator[Text]:
    """The non-blank lines of a stream, stripped, each with the reason it is unusable.

    An over-long line comes as ``(None, reason)``: it is never decoded or kept. A line
    with bytes that are not UTF-8 comes decoded with U+FFFD, and its reason.
    """
    for item in _text_runs(stream, None):
        yield from cast(tuple[Text], item)  # without a run, every item is one line


def _text_runs(
    stream: BinaryIO, run: Callable[[bytes], list[str] | None] | None
) -> Iterator[list[str] | tuple[Text]]:
    """:func:`_texts`, with plain blocks of lines (``run``) as lists of texts.

    Every other line comes as a 1-tuple of its ``(text, error)``.
    """
    for item in line_runs(stream, MAX_RECORD, run):
        if isinstance(item, list):
            yield item
            continue
        raw, length = item
        if not raw and length:
            yield ((None, f"record of {length:,} bytes is too long (at most {MAX_RECORD:,})"),)
            continue
        text, error = decode_line(raw)
        text = text.strip()
        if text:
            yield ((text, error),)


def _txt_records(stream: BinaryIO) -> Iterator[Record]:
    """One puzzle per line; or, after a ``Grid 01`` line, the lines up to the next one.

    The second is the Project Euler 96 layout (a header line, then nine lines of nine
    digits): its header lines separate the records, and each grid is one record.
    """
    index = 0
    block: list[str] | None = None  # the lines of the grid under the last header
    problem: str | None = None
    for item in _text_runs(stream, _plain_run):
        if isinstance(item, list) and block is None:  # one record per line, fast
            yield from map(Record, range(index, index + len(item)), item)
            index += len(item)
            continue
        texts: Iterable[Text] = ((t, None) for t in item) if isinstance(item, list) else item
        for text, error in texts:
            if text is not None and text.startswith("#"):
                continue
            if text is not None and GRID_HEADER.match(text):
                if block is not None:
                    yield Record(index, "\n".join(block), None, problem)
                    index += 1
                block, problem = [], None
                continue
            if block is None:
                yield Record(index, text or "", None, error)
                index += 1
            elif len(block) >= MAX_CSV_LINES:
                problem = f"a grid of more than {MAX_CSV_LINES} lines"
            else:
                block.append(text or "")
                problem = problem or error
    if block is not None:
        yield Record(index, "\n".join(block), None, problem)


def _is_header(fields: Sequence[str]) -> bool:
    """Whether a CSV's first row names its columns rather than holding a record.

    It does when it names a known column, or when every field is a name (a letter or
    ``_`` first, then letters, digits, ``_`` and spaces) and none could be a puzzle.
    Anything else, a malformed or short puzzle among it, is data: taking a record for
    a header would drop it and shift every index after it.
    """
    names = [f.strip().lower() for f in fields]
    if any(name in _PUZZLE_COLUMNS or name in _SOLUTION_COLUMNS for name in names):
        return True
    return all(not name or _NAME.match(name) for name in names) and not any(
        len(name) >= 16 and all(map(is_symbol, name)) for name in names
    )


def _csv_lines(stream: BinaryIO) -> Iterator[tuple[str | None, str | None]]:
    """The lines of :func:`_texts`, with the line breaks of a quoted CSV field joined.

    A line with an odd number of quotes opens a field that goes on in the lines after
    it, up to :data:`MAX_CSV_LINES` of them. A quote that does not close within them
    was a stray one: the lines it took are read again, each a record of its own.
    """
    source = _texts(stream)
    ahead: deque[tuple[str | None, str | None]] = deque()
    while item := ahead.popleft() if ahead else next(source, None):
        text, error = item
        if text is None or text.count('"') % 2 == 0:
            yield item
            continue
        taken = [(text, error)]
        quotes = text.count('"')
        stop = None
        while quotes % 2 and len(taken) <= MAX_CSV_LINES:
            more = ahead.popleft() if ahead else next(source, None)
            if more is None or more[0] is None:
                stop = more
                break
            taken.append((more[0], more[1]))
            quotes += more[0].count('"')
        if quotes % 2 == 0:
            yield "\n".join(t for t, _ in taken), next((e for _, e in taken if e), None)
            continue
        yield item
        ahead.extendleft(reversed([*taken[1:], *([stop] if stop else [])]))


def _csv_records(stream: BinaryIO) -> Iterator[Record]:
    index = 0
    puzzle_col, solution_col = 0, None
    first = True
    lines = _csv_lines(stream)
    for text, error in lines:
        if text is None:
            yield Record(index, "", None, error)
            index += 1
            continue
        fields = next(csv.reader([text])) if '"' in text else text.split(",")
        if first:
            first = False
            if _is_header(fields):
                names = [f.strip().lower() for f in fields]
                if {"puzz_color", "puzz_hint"} <= set(names):
                    yield from _killer_records(names, lines)
                    return
                found = next((names.index(c) for c in _PUZZLE_COLUMNS if c in names), None)
                solution_col = next((names.index(c) for c in _SOLUTION_COLUMNS if c in names), None)
                if found is None and solution_col is not None:
                    # The first column would be taken for the puzzles: an id, say.
                    raise DatasetError(
                        f"the CSV has a {names[solution_col]} column but no puzzle column "
                        f"({', '.join(_PUZZLE_COLUMNS)}); its columns are: "
                        + ", ".join(f.strip() for f in fields)
                    )
                puzzle_col = found or 0
                continue
        if puzzle_col >= len(fields):
            yield Record(index, text, None, f"no column {puzzle_col + 1} in this row")
        else:
            solution = (
                fields[solution_col].strip()
                if solution_col is not None and solution_col < len(fields)
                else None
            )
            yield Record(index, fields[puzzle_col].strip(), solution or None, error)
        index += 1


def _killer_records(
    names: list[str], lines: Iterator[tuple[str | None, str | None]]
) -> Iterator[Record]:
    """The rows of a killer CSV, after its header.

    The krazydad layout: ``puzz_color`` cage map, ``puzz_hint`` sums, ``solved``
    solution (see :mod:`cpsudoku.model.killer`). Each record's puzzle is the JSON object
    form with its rules (the cages), read by :func:`cpsudoku.parse` like any other; a
    row whose cages do not hold together is an invalid record naming why.
    """
    cages, sums = names.index("puzz_color"), names.index("puzz_hint")
    solved = names.index("solved") if "solved" in names else None
    for index, (text, error) in enumerate(lines):
        fields = next(csv.reader([text])) if text else []
        if text is None or error or len(fields) <= max(cages, sums):
            yield Record(index, text or "", None, error or "no cage map and sums in this row")
            continue
        try:
            rules = killer_rules(fields[cages], fields[sums])
        except RulesError as exc:
            yield Record(index, text, None, f"killer cages: {exc}")
            continue
        puzzle = json.dumps({"rules": rules.spec(), "puzzle": "." * rules.cells})
        solution = fields[solved].strip() if solved is not None and solved < len(fields) else None
        yield Record(index, puzzle, solution or None)


def _jsonl_records(stream: BinaryIO) -> Iterator[Record]:
    for index, (text, error) in enumerate(_texts(stream)):
        if text is None or error:
            yield Record(index, text or "", None, error)
        else:
            yield _json_record(index, text)


#: How a JSON value that is not a puzzle is named in a record's error.
def _json_record(index: int, text: str) -> Record:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return Record(index, text, None, f"malformed JSON: {exc.msg} at character {exc.pos + 1}")
    if isinstance(obj, str):
        return Record(index, obj)
    if isinstance(obj, dict):
        for key in _PUZZLE_COLUMNS:
            if key in obj:
                value = obj[key]
                if not isinstance(value, str | list):
                    # Read as text, null would be four symbols and {"a": 1} seven cells.
                    kind = json_kind(value)
                    return Record(index, text, None, f'the "{key}" field is {kind}, not a puzzle')
                puzzle = value if isinstance(value, str) else json.dumps(value)
                if "rules" in obj:  # its own rules: the object is the puzzle, read whole
                    puzzle = json.dumps({"rules": obj["rules"], "puzzle": value})
                solution = obj.get("solution", obj.get("solutions"))
                return Record(index, puzzle, solution if isinstance(solution, str) else None)
        return Record(index, text, None, 'JSON object has no "puzzle" field')
    if isinstance(obj, list):
        return Record(index, json.dumps(obj))
    return Record(index, text, None, "JSON record is neither a puzzle string nor an object")


def count_records_fast(path: str) -> int | None:
    """Line count of a plain file, for the progress bar's ETA (None when unknown)."""
    if not os.path.isfile(path) or path.lower().endswith((".gz", ".bz2", ".xz", ".zip")):
        return None  # stdin, a pipe (counting would eat it) or compressed
    lines = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            lines += block.count(b"\n")
    return lines
