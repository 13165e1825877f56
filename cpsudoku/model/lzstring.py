"""lz-string's base64 form, as SudokuPad and f-puzzles write their puzzles.

A reader of our own, written from the format (LZW codes of growing width over
UTF-16 units, six bits a character): the PyPI package took most of a link's reading
time, this one about a millisecond for a typical puzzle.
"""

from __future__ import annotations

import re

#: SudokuPad's base64 alphabet for lz-string (lz-string's own ends in ``=``).
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/\\"
_SIX_BITS = {ch: format(i & 63, "06b") for i, ch in enumerate(ALPHABET)}
_SIX_BITS["="] = "000000"


def decompress(payload: str) -> str | None:
    """lz-string base64 ``payload`` (SudokuPad's alphabet) decompressed, or None.

    None when the text is not lz-string data (a character outside the alphabet, a
    code that points nowhere, data that ends before its end mark).
    """
    try:
        bits = "".join([_SIX_BITS[ch] for ch in payload])
    except KeyError:
        return None
    if not bits:
        return None
    # The codes are read lowest bit first from the bits in order: in the reversed
    # stream (zeros added past the end), the bits from ``pos`` on, lowest first, are
    # the slice ending ``pos`` from its end, read as a binary number.
    end = len(bits)
    back = "0" * 40 + bits[::-1]
    top = len(back)
    first = int(back[top - 2 : top], 2)
    if first > 1:
        return "" if first == 2 else None
    size = 8 if first == 0 else 16
    entry = chr(int(back[top - 2 - size : top - 2], 2))
    pos = 2 + size
    words: list[str] = ["", "", "", entry]
    out = [entry]
    last = entry
    width = 3
    room = 4
    while pos <= end:
        code = int(back[top - pos - width : top - pos], 2)
        pos += width
        if code < 2:
            size = 8 if code == 0 else 16
            words.append(chr(int(back[top - pos - size : top - pos], 2)))
            pos += size
            code = len(words) - 1
            room -= 1
        elif code == 2:
            return _from_units("".join(out))
        if room == 0:
            room = 1 << width
            width += 1
        if 2 < code < len(words):
            entry = words[code]
        elif code == len(words):
            entry = last + last[0]
        else:
            return None
        out.append(entry)
        words.append(last + entry[0])
        room -= 1
        last = entry
        if room == 0:
            room = 1 << width
            width += 1
    return None


def compress(text: str) -> str:
    """``text`` compressed with lz-string to base64 (SudokuPad's alphabet, ``=`` pads).

    The same output as lz-string's ``compressToBase64``: what SudokuPad and f-puzzles
    read.
    """
    out: list[str] = []
    acc = 0
    filled = 0

    def put(value: int, count: int) -> None:
        # ``count`` bits of ``value``, lowest first, into 6-bit characters.
        nonlocal acc, filled
        for _ in range(count):
            acc = (acc << 1) | (value & 1)
            value >>= 1
            filled += 1
            if filled == 6:
                out.append(ALPHABET[acc])
                acc = filled = 0

    codes: dict[str, int] = {}
    fresh: set[str] = set()  # single characters seen but not yet written out
    size = 3
    width = 2
    room = 2
    current = ""

    def emit(word: str) -> None:
        nonlocal room, width
        if word in fresh:
            point = ord(word)
            if point < 256:
                put(0, width)
                put(point, 8)
            else:
                put(1, width)
                put(point, 16)
            room -= 1
            if room == 0:
                room = 1 << width
                width += 1
            fresh.discard(word)
        else:
            put(codes[word], width)
        room -= 1
        if room == 0:
            room = 1 << width
            width += 1

    for ch in _to_units(text):
        if ch not in codes:
            codes[ch] = size
            size += 1
            fresh.add(ch)
        joined = current + ch
        if joined in codes:
            current = joined
            continue
        emit(current)
        codes[joined] = size
        size += 1
        current = ch
    if current:
        emit(current)
    put(2, width)
    written = len(out)
    while len(out) == written:  # the last character, padded with zero bits (always one)
        put(0, 1)
    tail = len(out) % 4
    return "".join(out) + "=" * ((4 - tail) % 4)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _to_units(text: str) -> str:
    """``text`` as JavaScript holds it: characters past U+FFFF as two surrogates."""
    if text.isascii() or all(ord(ch) < 0x10000 for ch in text):
        return text
    raw = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(raw[k : k + 2], "little")) for k in range(0, len(raw), 2))


def _from_units(text: str) -> str:
    """JavaScript's UTF-16 text back as characters (surrogate pairs joined)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
