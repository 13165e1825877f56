"""Bytes to text lines, as every command reads its input.

A byte-order mark picks the encoding (UTF-8 without one, UTF-16 or UTF-32 with
theirs); every line ending counts (LF, CR LF, a lone CR); a line longer than a cap is
reported by its length, never held whole; a line that is not valid UTF-8 is decoded
with U+FFFD and reported. The dataset readers and the one-puzzle commands share this,
so a file reads the same wherever it is given.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from functools import partial
from itertools import chain
from typing import BinaryIO, cast

from cpsudoku.model.errors import PuzzleError

_BLOCK = 1 << 16

#: Byte-order marks, longest first (the UTF-32 LE mark starts with the UTF-16 LE one).
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_LINE_END = re.compile(rb"\r\n?|\n")


def _blocks(stream: BinaryIO) -> Iterator[bytes]:
    """The stream's bytes in blocks, as UTF-8: a byte-order mark decides the encoding.

    A UTF-8 mark is dropped (spreadsheet exports write one); text marked as UTF-16 or
    UTF-32 (Windows editors save "Unicode" so) is decoded and re-encoded as UTF-8,
    undecodable units becoming U+FFFD; anything else passes through as it is.
    """
    head = b""
    while len(head) < 4 and (more := stream.read(_BLOCK)):
        head += more
    encoding = next((enc for bom, enc in _BOMS if head.startswith(bom)), None)
    if encoding is None or encoding == "utf-8":
        if encoding == "utf-8":
            head = head[len(codecs.BOM_UTF8) :]
        if head:
            yield head
        yield from iter(partial(stream.read, _BLOCK), b"")
        return
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    for block in chain((head,), iter(partial(stream.read, _BLOCK), b"")):
        yield decoder.decode(block).encode("utf-8", "surrogatepass")
    yield decoder.decode(b"", final=True).encode("utf-8", "surrogatepass")


def lines(stream: BinaryIO, longest: int) -> Iterator[tuple[bytes, int]]:
    """Lines as ``(bytes, length)``; an over-long line yields ``(b"", length)``.

    Any line ending counts: LF, CR LF, and a lone CR (old Mac files), so a carriage
    return never hides inside a record. ``length`` counts the line's bytes, its
    ending excluded; a line longer than ``longest`` is over-long. Blocks are
    read with a cap on what is held, so one giant line never sits in memory whole.
    """
    # Without a reader of runs every item is one line.
    yield from cast(Iterator[tuple[bytes, int]], line_runs(stream, longest, None))


def line_runs(
    stream: BinaryIO, longest: int, run: Callable[[bytes], list[str] | None] | None
) -> Iterator[tuple[bytes, int] | list[str]]:
    """:func:`lines`, where ``run`` may take whole blocks of lines at once.

    ``run`` gets each block of complete lines (LF-terminated, shorter than
    ``longest`` together) and returns the texts it stands for, or None to have the
    block's lines come one by one as in :func:`lines`. A reader gives its plain blocks
    (nothing to decode, strip or skip) to a run, and pays per line only elsewhere.
    """
    carry = b""
    skipped = -1  # bytes of an over-long line seen so far; -1 when not in one
    for block in _blocks(stream):
        data = carry + block if carry else block
        start = 0
        if skipped >= 0:
            end = _LINE_END.search(data)
            if end is None:
                skipped += len(data)
                carry = b""
                continue
            yield b"", skipped + end.start()
            skipped, start = -1, end.end()
        if run is not None:
            cut = data.rfind(b"\n") + 1
            if cut > start and cut - start <= longest:
                texts = run(data[start:cut])
                if texts is not None:
                    if texts:
                        yield texts
                    start = cut
        lines = data[start:].splitlines(keepends=True)
        carry = lines.pop() if lines else b""
        if carry.endswith(b"\n"):  # complete; a final CR may still meet its LF
            lines.append(carry)
            carry = b""
        for line in lines:
            text = line.rstrip(b"\r\n")
            yield (b"", len(text)) if len(text) > longest else (text, len(text))
        if len(carry) > longest + 1:
            skipped, carry = len(carry.rstrip(b"\r")), b""
    if skipped >= 0:
        yield b"", skipped
    elif carry:
        text = carry.rstrip(b"\r")
        yield (b"", len(text)) if len(text) > longest else (text, len(text))


def decode_line(raw: bytes) -> tuple[str, str | None]:
    """Text of a line, and an error when it holds bytes that are not UTF-8."""
    try:
        return raw.decode("ascii"), None
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), f"undecodable bytes at byte {exc.start + 1}"


def decode_text(data: bytes, name: str = "the input") -> str:
    """Text of a whole puzzle file or argument, read as every command reads datasets.

    The encoding comes from a byte-order mark (UTF-8 without one); a comment line
    (``#`` first) may hold any bytes, as in a dataset, where such lines are skipped;
    bytes that are not text elsewhere are an error naming the line and byte.

    Raises:
        PuzzleError: undecodable bytes outside comment lines.
    """
    out = []
    for number, (raw, _length) in enumerate(lines(io.BytesIO(data), len(data)), 1):
        text, error = decode_line(raw)
        if error and not text.lstrip().startswith("#"):
            where = f"line {number}, {error.removeprefix('undecodable bytes at ')}"
            raise PuzzleError(f"cannot read {name}: bytes that are not UTF-8 text at {where}")
        out.append(text)
    return "\n".join(out)
