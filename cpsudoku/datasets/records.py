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
import warnings
import zipfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, islice
from typing import Any, BinaryIO, NamedTuple, cast

from cpsudoku.model.errors import CpSudokuError, DatasetError, RulesError, file_named
from cpsudoku.model.forms import GRID_HEADER, MAX_TEXT, PUZZLE_KEYS, is_symbol, json_kind
from cpsudoku.model.killer import killer_rules
from cpsudoku.model.rules import Rules
from cpsudoku.model.text import decode_line, line_runs
from cpsudoku.model.words import count_of

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
def read_records(
    path: str,
    *,
    box: str | Rules | None = None,
    symbols: str | None = None,
    tell: Callable[[str], None] | None = None,
) -> Iterator[Record]:
    """Stream the records of a dataset (.txt, .csv, .jsonl; optionally compressed).

    - .txt: one puzzle per line; blank lines and lines starting with ``#`` skipped.
      A Project Euler 96 grid (a ``Grid 01`` line, then one row of digits per line)
      is one record, in the one-line form.
    - .csv: the column named ``puzzle``, ``quizzes``, ``quiz``, ``board`` or ``grid``
      holds the puzzle; ``solution``/``solutions``, when present, the expected
      solution. Without such a name (``id,sudoku``, or no header row), the column
      whose first records read as puzzles of 4x4 or more (with ``box`` and
      ``symbols``) holds them, and ``tell`` is called with a line naming it. A first
      row that holds a puzzle-like field is data, not a header. A quote inside a
      field (``5" screen``) is part of it, as in every lenient CSV reader; only a
      quote that starts a field opens a quoted one.
    - .jsonl: one JSON object per line with ``puzzle`` (or ``quizzes``/``quiz``), and
      optionally ``solution``; a bare JSON string is a puzzle too.

    Memory stays flat: one line at a time. Bad lines become records with ``error``
    set, never exceptions, so a batch never loses or reorders a record.

    Raises:
        DatasetError: a CSV of several columns, none of them named as a puzzle
            column, in which no column holds puzzles (raised when the first record
            is asked for, before any is handed out).
    """
    with file_named(path), open_dataset(path) as (stream, kind):
        if kind == "csv":
            yield from _csv_records(stream, _Columns(path, box, symbols, tell))
            return
        reader = {"txt": _txt_records, "jsonl": _jsonl_records}[kind]
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
                    yield Record(index, _grid_text(block), None, problem)
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
        yield Record(index, _grid_text(block), None, problem)


def _grid_text(rows: list[str]) -> str:
    """The text of one grid under a ``Grid 01`` header: its one-line form when plain.

    Project Euler's grids are n lines of n symbols each, nothing else: they are
    written as the n*n symbols in one line, the form every output row holds and the
    bulk passes take. Any other drawing (box lines, spaces) stays as it was read,
    lines and all, and is read by :func:`cpsudoku.parse` like any drawn grid.
    """
    n = len(rows)
    if all(len(row) == n and not _NOT_CELLS.search(row) for row in rows):
        return "".join(rows)
    return "\n".join(rows)


#: Characters that are no cell of a plain grid row: layout, separators, quotes.
_NOT_CELLS = re.compile(r"[\s|+,;#\[\]{}\"']")


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


#: A CSV row as read: its text (None when over-long), why it is unusable (None when
#: it is not), and its fields (None when the text is no CSV row or was not read).
_Row = tuple[str | None, str | None, list[str] | None]


def _csv_rows(stream: BinaryIO) -> Iterator[_Row]:
    """The rows of a CSV: the lines of :func:`_texts`, a quoted field's lines joined.

    A quote opens a quoted field only as the first character of a field (then it may
    go on in the lines after it, up to :data:`MAX_CSV_LINES` of them); elsewhere it is
    part of the field (``5" screen``), as csv readers, pandas and spreadsheets read
    it. A quoted field that does not close within those lines was a stray quote: its
    line is read alone, and the lines it took are read again, each a row of its own.
    """
    source = _texts(stream)
    ahead: deque[tuple[str | None, str | None]] = deque()
    while item := ahead.popleft() if ahead else next(source, None):
        text, error = item
        if text is None:
            yield None, error, None
            continue
        if '"' not in text:
            yield text, error, text.split(",")
            continue
        fields = _strict_fields(text)
        if fields is not None:
            yield text, error, fields
            continue
        taken: list[tuple[str, str | None]] = [(text, error)]
        closed = False
        stop = None  # what ended the search early: the end, or an over-long line
        while len(taken) <= MAX_CSV_LINES:
            more = ahead.popleft() if ahead else next(source, None)
            if more is None or more[0] is None:
                stop = more
                break
            taken.append((more[0], more[1]))
            if not _ends_quoted(more[0], quoted=True):
                closed = True
                break
        if closed:
            joined = "\n".join(t for t, _ in taken)
            if len(joined) > MAX_RECORD:  # as a line that long: never kept whole
                too_long = f"record of {len(joined):,} characters is too long"
                yield None, f"{too_long} (at most {MAX_RECORD:,})", None
            else:
                yield joined, next((e for _, e in taken if e), None), _lenient_fields(joined)
            continue
        yield text, error, _lenient_fields(text)
        ahead.extendleft(reversed([*taken[1:], *([stop] if stop else [])]))


def _strict_fields(text: str) -> list[str] | None:
    """The fields of a one-line CSV row; None when it ends inside a quoted field."""
    try:
        return next(csv.reader([text], strict=True), [])
    except csv.Error:  # open at the end, or text after a closing quote (``"ab"c``)
        return None if _ends_quoted(text) else _lenient_fields(text)


def _lenient_fields(text: str) -> list[str] | None:
    """The fields of a CSV row as Python's csv module reads it when not strict.

    None when even that fails (a field beyond the csv module's size limit): the row
    is then an ``invalid`` record, see :func:`_csv_records`.
    """
    try:
        return next(csv.reader([text]), [])
    except csv.Error:
        return None


def _ends_quoted(text: str, quoted: bool = False) -> bool:
    """Whether a CSV line ends inside a quoted field (``quoted``: it starts inside one).

    The rules of Python's csv module: a quote at the start of a field opens a quoted
    one, in which ``""`` is a quote and a lone quote closes it; anywhere else a quote
    is an ordinary character.
    """
    at_start = not quoted
    closed = False  # the last character closed a quoted field (or began a ``""``)
    for ch in text:
        if quoted:
            if ch == '"':
                quoted, closed = False, True
            continue
        if closed and ch == '"':  # ``""``: a quote, and the quoted field goes on
            quoted, closed = True, False
            continue
        closed = False
        if ch == ",":
            at_start = True
            continue
        quoted = ch == '"' and at_start
        at_start = False
    return quoted


def _csv_records(stream: BinaryIO, columns: _Columns) -> Iterator[Record]:
    rows = _csv_rows(stream)
    first = next(rows, None)
    if first is None:
        return
    solution_col = None
    sample: list[_Row] = []
    names: list[str] | None = None
    header = first[2]
    if header is not None and _is_header(header):
        names = [f.strip().lower() for f in header]
        if {"puzz_color", "puzz_hint"} <= set(names):
            yield from _killer_records(names, rows)
            return
        found = next((names.index(c) for c in _PUZZLE_COLUMNS if c in names), None)
        solution_col = next((names.index(c) for c in _SOLUTION_COLUMNS if c in names), None)
    else:
        found = None
        sample.append(first)
    if found is None:  # no column named: the one whose values read as puzzles
        sample.extend(islice(rows, SAMPLE_RECORDS - len(sample)))
        found = columns.choose(header if names is not None else None, sample, solution_col)
    for index, (text, error, fields) in enumerate(chain(sample, rows)):
        if text is None:
            yield Record(index, "", None, error)
        elif fields is None:
            yield Record(index, text, None, error or "malformed CSV row: a field is too long")
        elif found >= len(fields):
            yield Record(index, text, None, f"no column {found + 1} in this row")
        else:
            solution = (
                fields[solution_col].strip()
                if solution_col is not None and solution_col < len(fields)
                else None
            )
            yield Record(index, fields[found].strip(), solution or None, error)


#: Records a CSV's puzzle column is told by when no column is named for it.
SAMPLE_RECORDS = 20

_KNOWN_NAMES = f"{', '.join(_PUZZLE_COLUMNS[:-1])} or {_PUZZLE_COLUMNS[-1]}"


class _Columns(NamedTuple):
    """How to find a CSV's puzzle column by its values, and whom to tell."""

    path: str
    box: str | Rules | None
    symbols: str | None
    tell: Callable[[str], None] | None

    def choose(self, header: list[str] | None, sample: Sequence[_Row], solution: int | None) -> int:
        """The column whose values in ``sample`` read as puzzles (0 with one column).

        Each column but the solution column scores the records it reads as a puzzle
        of 4x4 or more (a 1x1 or 2x2 "puzzle" is an id or a number), then those with
        an empty cell (a puzzle rather than a solution); the best wins, the leftmost
        among equals. ``tell`` is told which column it is.

        Raises:
            DatasetError: several columns and none holds a puzzle.
        """
        rows = [fields for _, error, fields in sample if fields is not None and not error]
        width = max(map(len, [header or [], *rows]), default=0)
        if width <= 1:
            return 0
        scores = [(0, 0)] * width
        for k in range(width):
            if k != solution:
                scores[k] = self._score([row[k] for row in rows if k < len(row)])
        best = max(range(width), key=lambda k: (scores[k], -k))
        shown = ", ".join(f.strip() for f in header) if header is not None else None
        if scores[best][0] == 0:
            named = f"none is named {_KNOWN_NAMES}, and " if header else ""
            raise DatasetError(
                f"{self.path}: no puzzle column: {named}no field of its first "
                f"{count_of(len(rows), 'record')} reads as a puzzle of 4x4 or more"
                + (f"; its columns are: {shown}" if shown is not None else "")
            )
        if self.tell is not None:
            if header is not None:
                self.tell(
                    f"puzzles read from column {header[best].strip()!r} (column {best + 1} of "
                    f"{width}): no column is named {_KNOWN_NAMES}"
                )
            else:
                self.tell(
                    f"puzzles read from column {best + 1} of {width} (no header row names one)"
                )
        return best

    def _score(self, values: Sequence[str]) -> tuple[int, int]:
        """How many of ``values`` read as puzzles, and how many of those have empty cells."""
        from cpsudoku.model.forms import parse

        puzzles = empty = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a 16x16 read with 0 as empty, say
            for value in values:
                try:
                    puzzle = parse(value.strip(), self.box, check=False, symbols=self.symbols)
                except (CpSudokuError, ValueError, TypeError, RecursionError):
                    continue
                if puzzle.rules.n >= 4:
                    puzzles += 1
                    empty += 0 in puzzle.cells
        return puzzles, empty


def _killer_records(names: list[str], rows: Iterator[_Row]) -> Iterator[Record]:
    """The rows of a killer CSV, after its header.

    The krazydad layout: ``puzz_color`` cage map, ``puzz_hint`` sums, ``solved``
    solution (see :mod:`cpsudoku.model.killer`). Each record's puzzle is the JSON object
    form with its rules (the cages), read by :func:`cpsudoku.parse` like any other; a
    row whose cages do not hold together is an invalid record naming why.
    """
    cages, sums = names.index("puzz_color"), names.index("puzz_hint")
    solved = names.index("solved") if "solved" in names else None
    for index, (text, error, fields) in enumerate(rows):
        if text is None or error or fields is None or len(fields) <= max(cages, sums):
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


def peeked(records: Iterable[Record]) -> Iterator[Record]:
    """``records``, with the first one already read.

    Reading it opens the file and reads a CSV's header and first records, where
    :func:`read_records` raises what it refuses: a command calls this before it
    writes anything, so a refused input leaves no output behind.
    """
    it = iter(records)
    first = next(it, None)
    return it if first is None else chain([first], it)


def count_records_fast(path: str) -> int | None:
    """Line count of a plain file, for the progress bar's ETA (None when unknown)."""
    if not os.path.isfile(path) or path.lower().endswith((".gz", ".bz2", ".xz", ".zip")):
        return None  # stdin, a pipe (counting would eat it) or compressed
    lines = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            lines += block.count(b"\n")
    return lines
