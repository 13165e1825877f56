r"""SudokuPad puzzles: links and ids, the zipped SCL JSON, rules read from drawings, export.

SudokuPad (sudokupad.app) shares a puzzle as a link whose last part is an *id*:

- ``fpuzzles...`` / ``fpuz...``: an f-puzzles puzzle, the f-puzzles JSON compressed
  with lz-string (the form f-puzzles' "Open in SudokuPad" button makes). Exact: it is
  read by :func:`cpsudoku.model.fpuzzles.read_fpuzzles`.
- ``scl...`` / ``ctc...``: SudokuPad's own JSON (SCL), "zipped" (short property names,
  unquoted keys, single quotes, ``t``/``f``...) and compressed with lz-string.
  Givens, regions, cages with their sums and the stored solution are exact; lines,
  arrows and shapes are *drawings* whose meaning lives in the rules text. They are
  read by the conventions setters use (a bulb and a line: a thermometer; a circle and
  an arrow: an arrow; small dots on an edge: kropki...), cross-checked with the rules
  text sentence by sentence: every drawing must map to a rule the text names and
  every sentence of the text to a rule read, or the puzzle is refused with the list
  of what was read and what was not (:class:`~cpsudoku.model.errors.RulesError`).
  A stored solution that breaks a rule read refuses the puzzle too.
- ``scf...`` and ``classic...``: compact classic givens (and for ``scf`` the one-letter
  rules ``w``, windoku, and ``x``, both diagonals).
- anything else is a short id, kept on SudokuPad's server: cpsudoku never uses the
  network, so the message says what to paste instead.

lz-string's base64 here is SudokuPad's: its 65th character is ``\`` where lz-string
has ``=``; neither ever carries data (both read as zero bits), and ``=`` pads.
The compressor and decompressor are written here (the ``lzstring`` package is ten
times slower on a typical link, which matters for a reader meant to take
milliseconds).
"""

from __future__ import annotations

import colorsys
import json
import math
import re
import unicodedata
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlparse

from cpsudoku.model.constraints import KINDS, SYMBOLS, Constraint, constraint_from_spec
from cpsudoku.model.errors import PuzzleError, RulesError
from cpsudoku.model.lzstring import compress, decompress
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules, anti_diagonal, diagonal, windows

#: An f-puzzles id this long or shorter (prefix included) is a short id on the server.
FPUZZLES_SHORT_ID = 20

#: The id prefixes, longest first: what each form is called.
PREFIXES = (
    ("fpuzzles", "fpuzzles"),
    ("classic", "classic"),
    ("fpuz", "fpuzzles"),
    ("scl", "scl"),
    ("ctc", "scl"),
    ("scf", "scf"),
)


class SudokuPadWarning(UserWarning):
    """Something a setter should know about how a SudokuPad puzzle was read."""


# ------------------------------------------------------------------- PuzzleZipper

#: SudokuPad's short property names (its PuzzleZipper), long name -> short.
ZIP_NAMES = {
    "color": "c",
    "cages": "ca",
    "center": "ct",
    "borderColor": "c1",
    "backgroundColor": "c2",
    "cells": "ce",
    "cellSize": "cs",
    "arrows": "a",
    "overlays": "o",
    "underlays": "u",
    "width": "w",
    "height": "h",
    "value": "v",
    "videos": "vd",
    "lines": "l",
    "rounded": "r",
    "regions": "re",
    "fontSize": "fs",
    "thickness": "th",
    "headLength": "hl",
    "wayPoints": "wp",
    "title": "t",
    "text": "te",
    "duration": "d",
    "d": "d2",
}
UNZIP_NAMES = {short: long for long, short in ZIP_NAMES.items()}
_HEX6 = re.compile(r"^[0-9a-fA-F]{6}$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9]+$")
_NUMBER = re.compile(r"^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$")
_INT_TEXT = re.compile(r"^-?(?:0|[1-9]\d*)$")


class _Unzipper:
    """A reader of SudokuPad's zipped JSON.

    JSON with unquoted keys, single quotes, ``t``/``f`` for booleans, bare colours
    (``#0``, ``#F``, ``c0ffee``), and empty array slots standing for ``{}``.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, what: str) -> PuzzleError:
        return PuzzleError(f"the SudokuPad puzzle does not unzip: {what} at character {self.i}")

    def skip(self) -> None:
        text = self.text
        while self.i < len(text) and text[self.i] in " \t\r\n":
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.i] if self.i < len(self.text) else ""

    def value(self, after_colon: bool) -> Any:
        ch = self.peek()
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.array()
        if ch in "'\"":
            return self.string()
        return self.bare(after_colon)

    def obj(self) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            ch = self.peek()
            key = self.string() if ch in "'\"" else self.token(":")
            if not key or self.peek() != ":":
                raise self.fail("a key without a value")
            self.i += 1
            out[key] = self.value(True)
            ch = self.peek()
            self.i += 1
            if ch == "}":
                return out
            if ch != ",":
                raise self.fail("an object not closed")

    def array(self) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            ch = self.peek()
            if ch in ",]":  # an empty slot is an empty object (zipping drops them)
                out.append({})
            else:
                out.append(self.value(False))
                ch = self.peek()
            self.i += 1
            if ch == "]":
                return out
            if ch != ",":
                raise self.fail("a list not closed")

    def string(self) -> str:
        text = self.text
        quote_char = text[self.i]
        self.i += 1
        parts: list[str] = []
        while True:
            j = self.i
            while j < len(text) and text[j] not in (quote_char, "\\"):
                j += 1
            parts.append(text[self.i : j])
            if j >= len(text):
                raise self.fail("a text not closed")
            self.i = j + 1
            if text[j] == quote_char:
                return "".join(parts)
            esc = text[self.i : self.i + 1]
            self.i += 1
            if esc == "u":
                code = text[self.i : self.i + 4]
                try:
                    parts.append(chr(int(code, 16)))
                except ValueError:
                    raise self.fail("a bad escape") from None
                self.i += 4
            else:
                parts.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(esc, esc))

    def token(self, stops: str) -> str:
        text = self.text
        j = self.i
        while j < len(text) and text[j] not in stops and text[j] not in ",}]" + " \n":
            j += 1
        word = text[self.i : j]
        self.i = j
        return word

    def bare(self, after_colon: bool) -> Any:
        word = self.token("")
        if after_colon and _HEX6.match(word):
            return "#" + word  # SudokuPad reads six hex digits after a colon as a colour
        fixed = {"t": True, "true": True, "f": False, "false": False, "null": None}
        if word in fixed:
            return fixed[word]
        if word == "#0":
            return "#000000"
        if word == "#F":
            return "#FFFFFF"
        if _NUMBER.match(word):
            number = float(word)
            return int(word) if _INT_TEXT.match(word) else number
        if _HEX6.match(word):
            return "#" + word
        raise self.fail(f"an unreadable value {word[:20]!r}")


def _rename(obj: Any, names: Mapping[str, str]) -> Any:
    """``obj`` with every object key renamed by ``names``."""
    if isinstance(obj, list):
        return [_rename(v, names) for v in obj]
    if isinstance(obj, dict):
        return {names.get(k, k): _rename(v, names) for k, v in obj.items()}
    return obj


def _colours(obj: Any) -> Any:
    """Six hex digits as a colour, wherever they are (as SudokuPad unzips)."""
    if isinstance(obj, list):
        return [_colours(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _colours(v) for k, v in obj.items()}
    if isinstance(obj, str) and _HEX6.match(obj):
        return "#" + obj
    return obj


def unzip_scl(text: str) -> dict[str, Any]:
    """The SCL object of a SudokuPad puzzle's JSON text, zipped or plain.

    Plain JSON is read as JSON (SudokuPad tries that first); otherwise the zipped
    form is unzipped and its short property names expanded.

    Raises:
        PuzzleError: neither form, or not an object.
    """
    stripped = text.strip()
    try:
        obj = json.loads(stripped)
    except json.JSONDecodeError:
        reader = _Unzipper(stripped)
        if reader.peek() != "{":
            raise PuzzleError("the SudokuPad puzzle does not unzip: it is no object") from None
        obj = reader.value(False)
        if reader.peek():
            raise reader.fail("text after the puzzle") from None
        obj = _colours(_rename(obj, UNZIP_NAMES))
    if not isinstance(obj, dict):
        raise PuzzleError("the SudokuPad puzzle is no object")
    return obj


def zip_scl(obj: Mapping[str, Any]) -> str:
    """The zipped text of an SCL object, as SudokuPad's PuzzleZipper writes it.

    Empty lists under a key are dropped, empty objects in lists elided, numeric
    strings written as numbers (except a stored ``metadata.solution``), keys
    shortened and unquoted, texts single-quoted, booleans ``t``/``f``, colours bare.
    :func:`unzip_scl` reads it back to the same object (numeric strings as numbers).
    """

    def write(value: Any, after_colon: bool, protect: bool = False) -> str:
        if isinstance(value, bool):
            return "t" if value else "f"
        if value is None:
            return "null"
        if isinstance(value, int | float):
            return _js_number(value)
        if isinstance(value, str):
            if not protect and _INT_TEXT.match(value) and len(value) < 16:
                return str(int(value))
            if after_colon and re.match(r"^#[0-9a-fA-F]{6}$", value):
                upper = value.upper()
                return {"#000000": "#0", "#FFFFFF": "#F"}.get(upper, value[1:])
            body = (
                json.dumps(value, ensure_ascii=False)[1:-1].replace('\\"', '"').replace("'", "\\'")
            )
            return "'" + body + "'"
        if isinstance(value, Mapping):
            parts = []
            for key, item in value.items():
                if isinstance(item, list) and not item:
                    continue
                short = ZIP_NAMES.get(str(key), str(key))
                name = short if _BARE_KEY.match(short) else write(short, False, True)
                parts.append(f"{name}:{write(item, True, protect=key == 'solution')}")
            return "{" + ",".join(parts) + "}"
        if isinstance(value, list | tuple):
            items = ["" if item == {} else write(item, False) for item in value]
            return "[" + ",".join(items) + "]"
        raise PuzzleError(f"an SCL value of type {type(value).__name__} cannot be zipped")

    return write(obj, False)


def _js_number(value: float) -> str:
    """A number as JavaScript writes it (``2`` for 2.0)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


# ------------------------------------------------------------------ links and ids

#: A bare id: a prefix and the characters of lz-string base64 and URLs.
_BARE_ID = re.compile(
    r"^(?:fpuzzles|fpuz|scl|ctc|scf|classic)[A-Za-z0-9+/=\\%_.~*()\[\]!$&',;:@-]+"
    r"(?:\?setting-[\w=&.-]*)?$"
)


def is_sudokupad_id(text: str) -> bool:
    """True for a bare SudokuPad id pasted alone (``scl...``, ``fpuzzles...``...)."""
    stripped = text.strip()
    return bool(_BARE_ID.match(stripped)) and " " not in stripped


def is_sudokupad_link(text: str) -> bool:
    """True for a link to SudokuPad (or the old Cracking the Cryptic app) or a bare id."""
    stripped = text.strip()
    if is_sudokupad_id(stripped):
        return True
    if stripped.lower().startswith("sudokupad://"):
        return True
    try:
        url = urlparse(stripped if "://" in stripped else "https://" + stripped)
        host = (url.hostname or "").lower()
    except ValueError:  # no URL at all (urlparse reads "[" as an IPv6 host)
        return False
    return host.endswith("sudokupad.app") or host.endswith("crackingthecryptic.com")


def puzzle_id(text: str) -> str:
    """The puzzle id a SudokuPad link (or a bare id) carries, settings left out.

    Link forms: ``sudokupad.app/<id>``, ``sudokupad.app/sudoku/<id>``,
    ``sudokupad.app/?puzzleid=<id>``, ``app.crackingthecryptic.com/sudoku/<id>``,
    ``sudokupad.app/<author>/<slug>`` (a short id with a slash) and
    ``sudokupad://puzzle/<id>``, each with or without ``?setting-...``.

    Raises:
        PuzzleError: the link names no puzzle.
    """
    stripped = text.strip()
    if is_sudokupad_id(stripped):
        return stripped.split("?setting-", 1)[0].split("&setting-", 1)[0]
    if stripped.lower().startswith("sudokupad://"):
        rest = stripped[len("sudokupad://") :]
        rest = rest[len("puzzle/") :] if rest.lower().startswith("puzzle/") else rest
        found = rest.split("?", 1)[0]
    else:
        url = urlparse(stripped if "://" in stripped else "https://" + stripped)
        query = parse_qs(url.query, keep_blank_values=True)
        if query.get("puzzleid"):
            # parse_qs reads "+" as a space: base64's "+" comes back.
            found = query["puzzleid"][0].replace(" ", "+")
        else:
            path = url.path.lstrip("/")
            for lead in ("sudoku.html", "sudoku/", "sudoku"):
                if path.lower().startswith(lead) and (
                    lead.endswith("/") or path[len(lead) :] in ("", "/")
                ):
                    path = path[len(lead) :].lstrip("/")
                    break
            found = path
            if not found and url.query and "=" not in url.query.split("&")[0]:
                found = url.query.split("&")[0]  # sudokupad.app/?<id>
    found = found.strip()
    if not found:
        raise PuzzleError(f"{stripped} names no SudokuPad puzzle (no id after the site)")
    return found


def _form(pid: str) -> tuple[str, str]:
    """(form, payload) of an id: ``scl``, ``fpuzzles``, ``scf``, ``classic``, or ``short``."""
    for prefix, form in PREFIXES:
        if pid.startswith(prefix) and len(pid) > len(prefix):
            if form == "fpuzzles" and len(pid) <= FPUZZLES_SHORT_ID:
                return "short", pid
            return form, pid[len(prefix) :]
    return "short", pid


def _short_id_error(pid: str) -> PuzzleError:
    what = "an f-puzzles short id" if pid.startswith("fpuz") else "a short id"
    if "/" in pid:
        what = "a name (author/title)"
    return PuzzleError(
        f"the SudokuPad puzzle {pid!r} is {what} of a puzzle kept on SudokuPad's server, and "
        "cpsudoku never uses the network: paste the puzzle data instead, the link's "
        "long id (scl... or fpuzzles...) or the f-puzzles JSON (the server gives the "
        f"data at https://sudokupad.app/api/puzzle/{quote(pid, safe='/')}, opened in a "
        "browser)"
    )


def _payload_text(payload: str, what: str, *, raw: bool = False) -> str:
    """The text an lz-string payload holds (URL-decoded, slashes a URL lost put back).

    SudokuPad reads a payload that is no lz-string data as the text itself (an ``scl``
    id may carry the zipped JSON uncompressed, an ``scf`` id is mostly its own text:
    ``raw``).

    Raises:
        PuzzleError: it decompresses to nothing.
    """
    decoded = unquote(payload) if "%" in payload else payload
    decoded = decoded.replace(" ", "+")
    text = decompress(decoded)
    if text is None or not text.strip():
        text = _fix_slashes(decoded)
    if text is None or len(text) < len(decoded) // 2:
        if raw or decoded.lstrip().startswith("{"):
            return decoded
        raise PuzzleError(
            f"{what} does not decompress to a puzzle: it may be cut short or garbled; "
            "copy the whole link"
        )
    return text


def _fix_slashes(payload: str) -> str | None:
    """The text of a payload whose ``//`` a URL collapsed to ``/``, or None.

    As SudokuPad does: put a second slash back at some of the slashes, fewest first,
    until the payload decompresses to an object (at most 2,000 tries).
    """
    spots = [k for k, ch in enumerate(payload) if ch == "/"][:11]
    if not spots:
        return None
    tries = sorted(range(1, 1 << len(spots)), key=lambda m: bin(m).count("1"))
    for mask in tries[:2000]:
        pieces = []
        last = 0
        for bit, spot in enumerate(spots):
            if mask >> bit & 1:
                pieces.append(payload[last : spot + 1] + "/")
                last = spot + 1
        pieces.append(payload[last:])
        text = decompress("".join(pieces))
        if text and text.lstrip().startswith("{"):
            return text
    return None


# ------------------------------------------------------------------ reading a puzzle


@dataclass(frozen=True)
class SudokuPadPuzzle:
    """A SudokuPad puzzle as read.

    Attributes:
        puzzle: its givens and rules.
        notes: what a setter should know: every rule read from a drawing or the rules
            text, with what it came from, and anything read past.
        solution: the stored solution, row-major, or None.
        title: the puzzle's title, or "".
        author: its author, or "".
        rules_text: its rules text, or "".
        form: the id's form: ``scl``, ``fpuzzles``, ``scf`` or ``classic``.
    """

    puzzle: Puzzle
    notes: tuple[str, ...] = ()
    solution: tuple[int, ...] | None = None
    title: str = ""
    author: str = ""
    rules_text: str = ""
    form: str = "scl"


def read_sudokupad(text: str) -> SudokuPadPuzzle:
    """The puzzle of a SudokuPad link, a bare id, or SCL JSON text.

    Raises:
        PuzzleError: a short id (which needs SudokuPad's server), a payload that does
            not decompress or unzip, a malformed grid.
        RulesError: rules that cannot be read with certainty (the message lists what
            was read and what was not), or a stored solution that breaks them.
    """
    stripped = text.strip()
    if stripped.startswith("{"):
        return read_scl(unzip_scl(stripped))
    if stripped[:4] in ("scl{", "ctc{"):  # the zipped text itself, uncompressed
        return read_scl(unzip_scl(stripped[3:]))
    pid = puzzle_id(stripped)
    form, payload = _form(pid)
    if form == "short":
        raise _short_id_error(pid)
    if form == "classic":
        return _classic(payload)
    body = _payload_text(payload, f"the SudokuPad {form} id", raw=form == "scf")
    if form == "fpuzzles":
        return _fpuzzles(body)
    if form == "scf":
        return _scf(body)
    return read_scl(unzip_scl(body))


def from_sudokupad(text: str) -> Puzzle:
    """The puzzle of a SudokuPad link or id; what a setter should know comes as warnings.

    Raises:
        PuzzleError: see :func:`read_sudokupad`.
    """
    read = read_sudokupad(text)
    for note in read.notes:
        warnings.warn(note, SudokuPadWarning, stacklevel=2)
    return read.puzzle


def _fpuzzles(body: str) -> SudokuPadPuzzle:
    """An ``fpuzzles`` id: the f-puzzles JSON, read exactly."""
    from cpsudoku.model.fpuzzles import is_fpuzzles, read_fpuzzles

    try:
        obj = json.loads(body)
    except json.JSONDecodeError:
        raise PuzzleError("the SudokuPad fpuzzles id does not hold f-puzzles JSON") from None
    if not is_fpuzzles(obj):
        raise PuzzleError("the SudokuPad fpuzzles id does not hold an f-puzzles puzzle")
    read = read_fpuzzles(obj)
    return SudokuPadPuzzle(
        read.puzzle, read.notes, read.solution, read.title, read.author, read.ruleset, "fpuzzles"
    )


#: The digits of SudokuPad's classic codes: a blank run's length, or a digit and blanks.
_RUNS70 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz()[]-.~:@!$&'*,;=_"
_RUNS60 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwx"


def _classic(payload: str) -> SudokuPadPuzzle:
    """A ``classic`` id: 81 givens in one of SudokuPad's two run-length codes.

    The first code writes a digit as itself and a run of k blanks as the k-th
    character of a 70-letter alphabet; the second writes each digit (0 for a blank)
    and the blanks after it (up to 5) as one character of a 60-letter alphabet.
    SudokuPad tells them apart by which characters occur and which reading gives 81
    cells; so does this.
    """
    first = all(ch in _RUNS70 or ch in "123456789" for ch in payload)
    second = all(ch in _RUNS60 for ch in payload)

    def one() -> str:
        return "".join("." * _RUNS70.index(ch) if ch in _RUNS70 else ch for ch in payload)

    def two() -> str:
        out = []
        for ch in payload:
            code = _RUNS60.index(ch)
            out.append(str(code % 10) + "0" * (code // 10))
        return "".join(out)

    grids = []
    if second:
        grids.append(two())
    if first:
        grids.append(one())
    for grid in grids:
        if len(grid) == 81:
            values = tuple(0 if ch in ".0" else int(ch) for ch in grid)
            return SudokuPadPuzzle(Puzzle(Rules.for_size(9), values), form="classic")
    raise PuzzleError("the SudokuPad classic id does not hold 81 cells")


def _scf(body: str) -> SudokuPadPuzzle:
    """An ``scf`` id: 81 givens, then the rules' letters.

    Each character is a digit (0 for a blank) and up to five blanks after it; the
    letters after the 81 cells are rules: ``w`` windoku windows, ``x`` both diagonals.
    """
    text = body[3:] if body.startswith("scf") else body
    text = text[:-4] if text.endswith(".scf") else text
    cells: list[int] = []
    used = 0
    for ch in text:
        if len(cells) >= 81:
            break
        if not ch.isalnum() or not ch.isascii():
            raise PuzzleError(f"the SudokuPad scf id holds {ch!r}, which is no cell")
        code = ord(ch) - (61 if ch > "Z" else 55 if ch > "9" else 48)
        cells.append(code % 10)
        cells.extend([0] * (code // 10))
        used += 1
    if len(cells) < 81:
        raise PuzzleError("the SudokuPad scf id holds fewer than 81 cells")
    rules = Rules.for_size(9)
    notes = []
    letters = text[used:]
    extra: list[Region] = []
    for letter in letters:
        if letter == "w":
            extra.extend(windows(9, 3, 3))
            notes.append("scf rule w: windoku (four extra 3x3 windows)")
        elif letter == "x":
            extra.extend((diagonal(9), anti_diagonal(9)))
            notes.append("scf rule x: both diagonals hold different digits")
        else:
            raise RulesError(f"the SudokuPad scf id's rule {letter!r} is not one cpsudoku reads")
    if extra:
        rules = rules.with_extra(*extra)
    return SudokuPadPuzzle(Puzzle(rules, tuple(cells[:81])), tuple(notes), form="scf")


# --------------------------------------------------------------------------- colours

RGB = tuple[float, float, float]

#: Colour names setters write in rules texts, and the hue classes each may mean.
COLOUR_WORDS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("grey", "gray", "silver"), frozenset({"grey"})),
    "black": frozenset({"black"}),
    "white": frozenset({"white"}),
    "red": frozenset({"red"}),
    **dict.fromkeys(("orange", "peach", "tan", "brown", "beige", "gold"), frozenset({"orange"})),
    "yellow": frozenset({"yellow", "orange"}),
    **dict.fromkeys(("green", "lime"), frozenset({"green"})),
    "teal": frozenset({"green", "blue"}),
    **dict.fromkeys(("blue", "cyan", "turquoise", "aqua", "azure"), frozenset({"blue"})),
    **dict.fromkeys(
        ("purple", "violet", "lavender", "lilac", "magenta", "pink", "fuchsia", "mauve"),
        frozenset({"purple"}),
    ),
}
_COLOUR_WORD = re.compile(r"\b(" + "|".join(COLOUR_WORDS) + r")\b")
_NAMED = {"black": "#000000", "white": "#ffffff", "none": "", "transparent": ""}


def colour(value: object, opacity: float = 1.0) -> RGB | None:
    """A drawing colour as seen on white paper (alpha blended), or None if invisible.

    Reads ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb(...)``, ``rgba(...)``
    and the names black, white, none, transparent.
    """
    if not isinstance(value, str):
        return None
    text = _NAMED.get(value.strip().lower(), value.strip())
    if not text:
        return None
    alpha = 1.0
    if text.startswith("#"):
        digits = text[1:]
        if len(digits) in (3, 4):
            digits = "".join(ch * 2 for ch in digits)
        if len(digits) not in (6, 8) or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
            return None
        rgb = [float(int(digits[k : k + 2], 16)) for k in (0, 2, 4)]
        if len(digits) == 8:
            alpha = int(digits[6:8], 16) / 255
    else:
        match = re.match(r"^rgba?\(([^)]*)\)$", text.lower())
        if match is None:
            return None
        try:
            parts = [float(p) for p in match.group(1).replace("/", ",").split(",")]
        except ValueError:
            return None
        if len(parts) < 3:
            return None
        rgb = parts[:3]
        if len(parts) > 3:
            alpha = parts[3]
    alpha *= opacity
    if alpha < 0.08:
        return None
    r, g, b = (255 - (255 - v) * alpha for v in rgb)
    return (r, g, b)


def hue_class(rgb: RGB) -> str:
    """The colour class a setter would name a colour by.

    One of black, white, grey, red, orange, yellow, green, blue or purple (pinks and
    magentas are purple: setters call ``#f067f0`` either).
    """
    h, s, v = colorsys.rgb_to_hsv(*(x / 255 for x in rgb))
    if v < 0.3:
        return "black"
    if s < 0.12:
        return "white" if v > 0.96 else "grey"
    deg = h * 360
    if deg < 15 or deg >= 345:
        return "purple" if s < 0.5 and v > 0.8 else "red"
    if deg < 50:
        return "orange"
    if deg < 70:
        return "yellow"
    if deg < 165:
        return "green"
    if deg < 255:
        return "blue"
    return "purple"


def _hex(rgb: RGB) -> str:
    return "#" + "".join(f"{round(x):02x}" for x in rgb)


# --------------------------------------------------------------------- rules text

#: What a sentence of a rules text may speak of: topic -> pattern (lower-case text).
TOPICS: dict[str, str] = {
    # The grid's own rules, in a sentence that names nothing drawn.
    "normal": r"^(?!.*\b(shaded|circles?|squares?|lines?|dots?|cages?|arrows?|sums?|outside|"
    r"clues?|diagonals?|even|odd|greater|less|knight|king)\b)(.*\b(normal|standard|classic|"
    r"regular|usual|ordinary)\b.*\brules?\b|.*\bsudoku rules\b|.*\brows?\b.*\bcolumns?\b|"
    r".*\bplace (the )?digits\b|.*\bfill (in )?the grid\b)",
    # Sentences that qualify another rule's sentence and state none of their own.
    "qualifier": r"\bnot all\b|\bnot every\b|\bnot necessarily\b|\b(may|can) repeat\b|"
    r"\bdifferent (lines|segments|cages|arrows|circles)\b.*\b(may|can|sum)\b|^for example\b|"
    r"\ball clues are standard\b|^good luck\b|^have fun\b|^enjoy\b",
    "negative": r"^(?!.*\bnot all\b).*\ball\b.*\b(given|shown|marked|drawn)\b",
    "cage": r"\bcages?\b|(?<!little )\bkiller\b",
    "arrow": r"\barrows?\b",
    "thermometer": r"\bthermo",
    "slow": r"\bslow\b|\bstays? the same\b|\bremains? the same\b|\bor (stay|remain)\b|"
    r"\bor equal\b|\bnon-?decreasing\b|\bnever decrease",
    "kropki-white": r"\bwhite\b.*\b(dots?|circles?|kropki)\b|\b(dots?|kropki)\b.*\bwhite\b",
    "kropki-black": r"\bblack\b.*\b(dots?|circles?|kropki)\b|\b(dots?|kropki)\b.*\bblack\b",
    "kropki": r"\bkropki\b|\bdots?\b",
    "x": r"\bx\b(?!-)",
    "v": r"\bv\b(?!-)",
    "little-killer": r"\blittle killer|\boutside the grid\b|\bindicated diagonal|"
    r"\bdiagonal indicated\b|\bby the arrow\b",
    "sandwich": r"\bsandwich|\bbetween the 1 and",
    "renban": r"\brenban\b|\bline\b.*\bconsecutive\b|\bconsecutive\b.*\bline\b",
    "whisper": r"\bwhisper|\bdiffer by (at least )?\d|\bat least \d+ apart\b",
    "palindrome": r"\bpalindrom|\breads? the same\b",
    "region-sum-line": r"\bregion sum|\bsegments?\b|\bsame (sum|total)\b.*\b(box|region)|"
    r"\b(box|region)\b.*\bsame (sum|total)\b|\bequal sum\b",
    "entropic-line": r"\bentropic",
    "modular-line": r"\bmodular",
    "zipper-line": r"\bzipper",
    "between-line": r"\bbetween line|\bbetween\b.*\bcircles\b",
    "lockout-line": r"\blockout",
    "nabner": r"\bnabner",
    "anti-knight": r"\bknight",
    "anti-king": r"\bking\b|\bking's\b|\bdiagonally (adjacent|touching)\b",
    "non-consecutive": r"^(?!.*\b(dots?|lines?|renban)\b).*(\bnon-?consecutive\b|"
    r"\b(adjacent|neighbou?ring)\b.*\b(cannot|can't|may not|must not|never)\b.*\bconsecutive\b)",
    "diagonal": r"^(?!.*\b(little killer|outside|indicated)\b)(?=.*\bdiagonals?\b)"
    r"(?=.*\b(repeat|once|unique|different)\b)",
    "odd": r"\bodd\b",
    "even": r"\beven\b",
}
_TOPIC_RES = {name: re.compile(pattern) for name, pattern in TOPICS.items()}

#: Line rules: (kind, topic, the hue classes of the colour setters usually draw it in).
LINE_RULES: tuple[tuple[str, str, frozenset[str]], ...] = (
    ("renban", "renban", frozenset({"purple"})),
    ("whisper", "whisper", frozenset({"green"})),
    ("palindrome", "palindrome", frozenset({"grey"})),
    ("region-sum-line", "region-sum-line", frozenset({"blue"})),
    ("entropic-line", "entropic-line", frozenset({"orange"})),
    ("modular-line", "modular-line", frozenset()),
    ("zipper-line", "zipper-line", frozenset({"purple"})),
    ("between-line", "between-line", frozenset({"grey"})),
    ("lockout-line", "lockout-line", frozenset()),
    ("nabner", "nabner", frozenset()),
)

#: What the sentences naming a rule must also say for the rule to be the one cpsudoku
#: reads (a thermometer's digits increase...): a text that names a rule but states
#: another meaning is not read.
MEANINGS: dict[str, str] = {
    "thermometer": r"increas|ascend|\brises?\b|larger|greater|bigger|higher",
    "arrow": r"\bsums?\b|summing|\badd|\btotal",
    "cage": r"\bsums?\b|summing|\badd|\btotal|repeat|different|unique",
    "renban": r"consecutive",
    "whisper": r"differ|apart|at least",
    "palindrome": r"palindrom|same",
    "kropki-white": r"consecutive|\b(1|one) (greater|more|larger|apart|bigger)\b|"
    r"differ(ence)? (of|by) (1|one)\b|kropki",
    "kropki-black": r"ratio|double|twice|half|2:1|1:2|kropki",
    "x": r"\b10\b|\bten\b",
    "v": r"\b5\b|\bfive\b",
    "little-killer": r"\bsums?\b|\badd|\btotal",
    "sandwich": r"\bsums?\b|\badd|\btotal",
}

#: The rule drawn by each mark kind, for the check that the text names it.
_MARK_TOPIC = {"kropki-white": "kropki-white", "kropki-black": "kropki-black", "x": "x", "v": "v"}


@dataclass
class _Sentence:
    text: str
    paragraph: int
    topics: set[str]
    colours: set[str]


class _RulesText:
    """A rules text cut into sentences, each with the rules it speaks of."""

    def __init__(self, text: str) -> None:
        self.raw = text
        self.sentences: list[_Sentence] = []
        normal = unicodedata.normalize("NFKC", text.replace("\\n", "\n"))
        for k, paragraph in enumerate(normal.splitlines()):
            body = paragraph.strip().strip("-\u2022*\u2013\u2014 ").strip()
            if not body:
                continue
            words = re.findall(r"[\w']+", body)
            if len(words) <= 3 and not re.search(r"[.!?]\s*$", body):
                continue  # a heading ("KILLER", "Rules:"): it states no rule by itself
            for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\-\[(•])", body):
                lower = piece.strip().lower()
                if not re.search(r"\w", lower):
                    continue
                topics = {name for name, regex in _TOPIC_RES.items() if regex.search(lower)}
                colours = set(_COLOUR_WORD.findall(lower))
                self.sentences.append(_Sentence(piece.strip(), k, topics, colours))

    @property
    def present(self) -> bool:
        """True when there is a rules text to check the drawings against."""
        return bool(self.sentences)

    def mentions(self, topic: str) -> bool:
        return any(topic in s.topics for s in self.sentences)

    def about(self, topic: str) -> list[_Sentence]:
        return [s for s in self.sentences if topic in s.topics]

    def unexplained(self) -> list[str]:
        """The sentences that speak of no rule cpsudoku knows."""
        return [s.text for s in self.sentences if not s.topics]

    def negatives(self) -> set[str]:
        """The mark kinds the text says are all given (dots, X, V)."""
        out: set[str] = set()
        marks = ("kropki-white", "kropki-black", "x", "v")
        for k, s in enumerate(self.sentences):
            if "negative" not in s.topics:
                continue
            named = {m for m in marks if m in s.topics}
            if not named and k > 0 and self.sentences[k - 1].paragraph == s.paragraph:
                named = {m for m in marks if m in self.sentences[k - 1].topics}
            if not named and "kropki" in s.topics:
                same = [t for t in self.sentences if t.paragraph == s.paragraph]
                named = {m for t in same for m in ("kropki-white", "kropki-black") if m in t.topics}
                named = named or {"kropki-white", "kropki-black"}
            out |= named
        return out


# ------------------------------------------------------------------------ drawings


@dataclass
class _Line:
    points: list[tuple[float, float]]
    rgb: RGB
    width: float
    arrow: bool
    what: str
    used: bool = False


@dataclass
class _Shape:
    center: tuple[float, float]
    width: float
    height: float
    rounded: bool
    fill: RGB | None
    border: RGB | None
    text: str
    what: str
    used: bool = False

    @property
    def hollow(self) -> bool:
        """A ring: white or no fill, a visible border."""
        return self.border is not None and (self.fill is None or hue_class(self.fill) == "white")


def _listed(value: object) -> list[Any]:
    """``value`` if it is a list, else no items (the caller says what is missing)."""
    return value if isinstance(value, list) else []


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _point(value: object) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        r, c = _number(value[0]), _number(value[1])
        if r is not None and c is not None and math.isfinite(r) and math.isfinite(c):
            return (r, c)
    return None


def _half(x: float) -> int | None:
    """The k for which x is k + 0.5 (a cell centre's coordinate), else None."""
    k = math.floor(x)
    return k if abs(x - k - 0.5) < 0.06 else None


def _whole(x: float) -> int | None:
    k = round(x)
    return k if abs(x - k) < 0.06 else None


@dataclass
class _Reading:
    """What is read of one SCL puzzle: rules read, things not read, notes."""

    n: int
    text: _RulesText
    specs: list[dict[str, Any]] = field(default_factory=list)
    extra: list[Region] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    drawn: dict[str, str] = field(default_factory=dict)  # topic -> what was drawn

    def name(self, i: int) -> str:
        return f"r{i // self.n + 1}c{i % self.n + 1}"

    def cell(self, p: tuple[float, float]) -> int | None:
        """The cell whose centre is ``p``, or None."""
        r, c = _half(p[0]), _half(p[1])
        if r is None or c is None or not (0 <= r < self.n and 0 <= c < self.n):
            return None
        return r * self.n + c

    def cell_of(self, p: tuple[float, float]) -> int | None:
        """The cell ``p`` lies in (not on its border), or None."""
        r, c = math.floor(p[0]), math.floor(p[1])
        if not (0 <= r < self.n and 0 <= c < self.n):
            return None
        if min(p[0] - r, r + 1 - p[0], p[1] - c, c + 1 - p[1]) < 0.02:
            return None
        return r * self.n + c

    def trace(self, points: Sequence[tuple[float, float]]) -> list[int] | None:
        """The cells a line through cell centres passes, in order, or None.

        Each leg runs along a row, a column or a diagonal; a leg at another angle or a
        point off a cell centre is no line of cells. A cell passed twice (a loop, a
        line crossing itself) is listed twice: the caller decides.
        """
        cells: list[int] = []
        n = self.n
        for p in points:
            i = self.cell(p)
            if i is None:
                return None
            if not cells:
                cells.append(i)
                continue
            r0, c0 = divmod(cells[-1], n)
            r1, c1 = divmod(i, n)
            dr, dc = r1 - r0, c1 - c0
            if dr == dc == 0:
                continue
            if dr and dc and abs(dr) != abs(dc):
                return None
            steps = max(abs(dr), abs(dc))
            sr, sc = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
            cells.extend((r0 + k * sr) * n + c0 + k * sc for k in range(1, steps + 1))
        return cells

    def rule(self, spec: dict[str, Any], label: str, topic: str | None = None) -> None:
        """A rule read (its kind must exist here), counted under ``label``."""
        kind_name = str(spec["kind"])
        if kind_name not in KINDS:
            self.unread.append(f"{label}: cpsudoku has no {kind_name} rule yet")
            return
        self.specs.append(spec)
        self.read[label] = self.read.get(label, 0) + 1
        if topic is not None:
            self.drawn.setdefault(topic, label)


# ------------------------------------------------------------------------ SCL reading

#: Top-level SCL keys that hold no rule (or none cpsudoku needs).
_SCL_QUIET = frozenset(
    {"id", "cellSize", "settings", "videos", "foglight", "foglink", "metadata", "metaData"}
)
#: Metadata keys that describe the puzzle and set no rule.
_META_QUIET = frozenset(
    {
        "title",
        "author",
        "rules",
        "solution",
        "source",
        "msgcorrect",
        "msgincorrect",
        "msgcorrectsolution",
        "customstyle",
        "date",
        "puzzleid",
        "video",
        "sourceurl",
        "bgimage",
        "selectedcolour",
    }
)
_FLAGS = {"antiknight": "anti-knight", "antiking": "anti-king"}
_META_CAGE = re.compile(r"^([^: ]+):\s*(.*)$", re.DOTALL)


def read_scl(obj: Mapping[str, Any]) -> SudokuPadPuzzle:
    """The puzzle of an SCL object (SudokuPad's JSON, unzipped).

    Givens, regions, cages and the stored solution are read exactly; the drawings by
    the setters' conventions, checked against the rules text (see the module's doc).

    Raises:
        PuzzleError: a malformed grid.
        RulesError: rules not read with certainty, listed with what was read; a stored
            solution that breaks the rules read.
    """
    n, values = _scl_cells(obj)
    meta = _scl_metadata(obj)
    text = _RulesText(str(meta.get("rules") or ""))
    reading = _Reading(n, text)
    rules = _scl_regions(obj, n)
    _read_cages(obj, reading)
    for key in obj:
        if (
            key not in _SCL_QUIET
            and key not in ("cells", "regions", "cages", "lines", "arrows", "overlays", "underlays")
            and obj[key] not in (None, [], {}, "", False)
        ):
            reading.unread.append(f"SudokuPad key {key!r} (cpsudoku does not know what it sets)")
    for key, value in meta.items():
        flag = _FLAGS.get(key.lower())
        if flag is not None:
            if value in (True, "true", 1, "1"):
                reading.rule({"kind": flag}, f"{flag} (the puzzle's {key} flag)")
        elif key.lower() not in _META_QUIET and value in (True, "true"):
            reading.unread.append(f"the puzzle's metadata flag {key!r}")
    _read_drawings(obj, reading)
    _read_text_rules(reading)
    solution = _scl_solution(meta.get("solution"), n)
    if solution is None and meta.get("solution"):
        reading.notes.append("the stored solution is not a grid of this size; not checked")
    if reading.unread:
        raise RulesError(_refusal(reading))
    constraints: list[Constraint] = []
    seen: set[str] = set()
    for spec in reading.specs:
        key = json.dumps(spec, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        try:
            constraints.append(constraint_from_spec(spec, n))
        except RulesError as exc:
            reading.unread.append(f"{spec['kind']}: {exc}")
    if reading.unread:
        raise RulesError(_refusal(reading))
    if reading.extra:
        rules = rules.with_extra(*reading.extra)
    if constraints:
        rules = rules.with_constraints(*constraints)
    puzzle = Puzzle(rules, tuple(values))
    notes = [_counted(label, count) for label, count in reading.read.items()]
    notes.extend(reading.notes)
    if solution is not None:
        problems = _solution_problems(puzzle, solution)
        if problems:
            raise RulesError(
                "the SudokuPad puzzle's stored solution breaks the rules read from its "
                f"drawings and text ({'; '.join(problems[:3])}), so they were misread: "
                f"{_summary(reading)}"
            )
        notes.append("the stored solution keeps every rule read")
    return SudokuPadPuzzle(
        puzzle,
        tuple(notes),
        solution,
        str(meta.get("title") or ""),
        str(meta.get("author") or ""),
        text.raw,
        "scl",
    )


def _counted(label: str, count: int) -> str:
    """``read arrow (a circle...)``, or ``read 10 arrow rules (a circle...)``."""
    if count == 1:
        return f"read {label}"
    name, _, source = label.partition(" (")
    return f"read {count} {name} rules" + (f" ({source}" if source else "")


def _summary(reading: _Reading) -> str:
    read = ", ".join(
        f"{count} x {label}" if count > 1 else label for label, count in reading.read.items()
    )
    return f"read: {read or 'no rule beyond the grid'}"


def _article(words: str) -> str:
    return ("an " if words[:1].lower() in "aeiou" else "a ") + words


def _refusal(reading: _Reading) -> str:
    counts: dict[str, int] = {}
    for item in reading.unread:
        counts[item] = counts.get(item, 0) + 1
    items = [f"{item} (x{count})" if count > 1 else item for item, count in counts.items()]
    unread = "; ".join(items[:8])
    more = f" (and {len(items) - 8} more)" if len(items) > 8 else ""
    return (
        f"the SudokuPad puzzle's rules cannot be read with certainty; not read: {unread}{more}. "
        f"{_summary(reading)}. Give the puzzle as f-puzzles JSON or cpsudoku's own JSON "
        "to solve it"
    )


def _solution_problems(puzzle: Puzzle, solution: tuple[int, ...]) -> list[str]:
    from cpsudoku.model.completion import completion_problems

    return completion_problems(puzzle, Puzzle(puzzle.rules, solution))


def _scl_cells(obj: Mapping[str, Any]) -> tuple[int, list[int]]:
    """The grid's side and its givens (a cell's value; ``given: false`` is no given)."""
    rows = obj.get("cells")
    if not isinstance(rows, list) or not rows:
        raise PuzzleError("a SudokuPad puzzle has a list of rows of cells")
    n = len(rows)
    if n > len(SYMBOLS):
        raise PuzzleError(f"a SudokuPad grid of {n} rows is larger than cpsudoku reads here")
    values = [0] * (n * n)
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != n:
            raise PuzzleError(
                f"a SudokuPad grid of {n} rows has {n} cells in each (row {r + 1} has "
                f"{len(row) if isinstance(row, list) else 0}): only square grids are read"
            )
        for c, cell in enumerate(row):
            if not isinstance(cell, Mapping):
                raise PuzzleError(f"SudokuPad cell r{r + 1}c{c + 1} is not an object")
            value = cell.get("value")
            if value in (None, "", 0) or cell.get("given") is False:
                continue
            digit = _digit(value, n)
            if digit is None:
                raise PuzzleError(f"SudokuPad cell r{r + 1}c{c + 1} holds {value!r}, not 1..{n}")
            values[r * n + c] = digit
    return n, values


def _digit(value: object, n: int) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1 <= value <= n else None
    if isinstance(value, str) and len(value.strip()) == 1:
        k = SYMBOLS.find(value.strip().upper()) + 1
        return k if 1 <= k <= n else None
    return None


def _scl_regions(obj: Mapping[str, Any], n: int) -> Rules:
    """The grid's rules: its regions (a list of [row, column] lists), boxes if none."""
    regions = obj.get("regions")
    base = Rules.for_size(n)
    if not regions:
        return base
    if not isinstance(regions, list):
        raise PuzzleError("SudokuPad regions are a list of lists of [row, column]")
    parts: list[tuple[int, ...]] = []
    for k, region in enumerate(regions):
        if region in ({}, []):
            continue
        if not isinstance(region, list):
            raise PuzzleError(f"SudokuPad region {k + 1} is not a list of cells")
        cells = []
        for item in region:
            p = _point(item)
            if p is None or not all(float(x).is_integer() for x in p):
                raise PuzzleError(f"SudokuPad region {k + 1} holds {item!r}, which is no cell")
            r, c = int(p[0]), int(p[1])
            if not (0 <= r < n and 0 <= c < n):
                raise PuzzleError(f"SudokuPad region {k + 1} holds r{r + 1}c{c + 1}, off the grid")
            cells.append(r * n + c)
        if len(cells) != n:
            raise RulesError(f"SudokuPad region {k + 1} has {len(cells)} cells, not {n}")
        parts.append(tuple(cells))
    boxes = sorted(tuple(sorted(b)) for b in base.unit_cells[2 * n : 3 * n])
    if sorted(tuple(sorted(p)) for p in parts) == boxes:
        return base
    return Rules.jigsaw(parts)


def _scl_metadata(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Title, author, rules, solution and flags.

    From the ``metadata`` object and the cell-less cages whose text reads
    ``key: value``.
    """
    meta: dict[str, Any] = {}
    for key in ("metadata", "metaData"):
        found = obj.get(key)
        if isinstance(found, Mapping):
            meta.update(found)
    for cage in _listed(obj.get("cages")):
        if not isinstance(cage, Mapping) or cage.get("cells"):
            continue
        match = _META_CAGE.match(str(cage.get("value", "")))
        if match:
            meta.setdefault(match.group(1), match.group(2))
    return meta


def _scl_solution(value: object, n: int) -> tuple[int, ...] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a 4x4 solution zipped as a number
    if not isinstance(value, str):
        return None
    digits = [SYMBOLS.find(ch.upper()) + 1 for ch in value.strip()]
    if len(digits) != n * n or not all(1 <= d <= n for d in digits):
        return None
    return tuple(digits)


def _read_cages(obj: Mapping[str, Any], reading: _Reading) -> None:
    """Cages with cells: killer cages (a sum, different digits), no-repeat cages.

    A cage whose digits may repeat, or a cage drawn with no rule to it, is not read.
    Cells in a hidden cage marked ``unique: false`` are f-puzzles' cells in no region
    (SudokuPad draws them so); the regions say it already.
    """
    n = reading.n
    no_repeat_text = any(
        re.search(r"\b(cannot|can't|may not|must not|don't|do not|no)\b.*\brepeat", s.text.lower())
        or re.search(r"\bdifferent digits\b|\bwithout repeat", s.text.lower())
        for s in reading.text.about("cage")
    )
    if not isinstance(obj.get("cages") or [], list):
        reading.unread.append("SudokuPad cages that are not a list")
    for k, cage in enumerate(_listed(obj.get("cages"))):
        if not isinstance(cage, Mapping) or not cage.get("cells"):
            continue
        if not isinstance(cage["cells"], list):
            raise PuzzleError(f"SudokuPad cage {k + 1}'s cells are not a list")
        cells = []
        for item in cage["cells"]:
            p = _point(item)
            if p is None or not all(float(x).is_integer() for x in p):
                raise PuzzleError(f"SudokuPad cage {k + 1} holds {item!r}, which is no cell")
            r, c = int(p[0]), int(p[1])
            if not (0 <= r < n and 0 <= c < n):
                raise PuzzleError(f"SudokuPad cage {k + 1} holds r{r + 1}c{c + 1}, off the grid")
            cells.append(r * n + c)
        where = f"the cage at {reading.name(cells[0])}"
        if cage.get("hidden") and cage.get("unique") is False and cage.get("value") in (None, ""):
            continue
        style = cage.get("style")
        if style not in (None, "", "killer"):
            reading.unread.append(f"{where}, drawn in style {style!r}")
            continue
        total = cage.get("sum")
        value = cage.get("value")
        if total is None and value not in (None, ""):
            total = value
        number = _number(total) if total not in (None, "") else None
        if total not in (None, "") and (number is None or not number.is_integer()):
            reading.unread.append(f"{where}: its clue {total!r} is no sum")
            continue
        unique = cage.get("unique")
        if unique is not True and not (unique is None and no_repeat_text):
            reading.unread.append(
                f"{where}: a cage whose digits may repeat (the rules text does not say they differ)"
            )
            continue
        spec: dict[str, Any] = {"kind": "cage", "cells": cells}
        if number is not None:
            spec["sum"] = int(number)
        label = "killer cage" if number is not None else "cage of different digits"
        reading.rule(spec, label, "cage")


def _drawn(
    obj: Mapping[str, Any], key: str, reading: _Reading
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The non-empty items of the list ``obj[key]``, each named (``"line 3"``).

    A value that is no list is noted as unread, never a traceback.
    """
    items = obj.get(key) or []
    if not isinstance(items, list):
        reading.unread.append(f"SudokuPad {key} that are not a list")
        return
    for k, item in enumerate(items):
        if isinstance(item, Mapping) and item != {}:
            yield f"{key[:-1]} {k + 1}", item


def _elements(obj: Mapping[str, Any], reading: _Reading) -> tuple[list[_Line], list[_Shape]]:
    """The visible lines, arrows and shapes (overlays and underlays), normalised."""
    lines: list[_Line] = []
    shapes: list[_Shape] = []
    for key in ("lines", "arrows"):
        for what, item in _drawn(obj, key, reading):
            points = [_point(p) for p in _listed(item.get("wayPoints"))]
            opacity = _number(item.get("opacity"))
            rgb = colour(item.get("color"), 1.0 if opacity is None else opacity)
            width = _number(item.get("thickness"))
            if rgb is None or (width is not None and width <= 0):
                continue  # invisible
            if len(points) < 2 or any(p is None for p in points):
                reading.unread.append(f"{what}: a drawing with no points")
                continue
            clean = [p for p in points if p is not None]
            lines.append(_Line(clean, rgb, width or 1.0, key == "arrows", what))
    for key in ("underlays", "overlays"):
        for what, item in _drawn(obj, key, reading):
            text = item.get("text")
            text = "" if text is None else str(text).strip()
            fill = colour(item.get("backgroundColor"))
            border = colour(item.get("borderColor"))
            if item.get("class") == "board-position" or (
                fill is None and border is None and not text
            ):
                continue  # invisible, or the board's own frame
            center = _point(item.get("center"))
            width = _number(item.get("width"))
            height = _number(item.get("height"))
            if center is None or width is None or height is None:
                reading.unread.append(f"{what}: a shape with no centre or size")
                continue
            rounded = item.get("rounded") in (True, 1, "true", "1")
            shapes.append(_Shape(center, width, height, rounded, fill, border, text, what))
    return lines, shapes


def _describe(rgb: RGB) -> str:
    return f"{hue_class(rgb)} ({_hex(rgb)})"


def _read_drawings(obj: Mapping[str, Any], reading: _Reading) -> None:
    """Every visible drawing read as a rule, or listed as not read."""
    lines, shapes = _elements(obj, reading)
    n = reading.n
    text = reading.text

    def disc_at(i: int) -> list[_Shape]:
        return [
            s
            for s in shapes
            if s.rounded
            and reading.cell(s.center) == i
            and 0.45 <= s.width <= 1.0
            and abs(s.width - s.height) < 0.06
            and not s.text
        ]

    def pill_cells(s: _Shape) -> list[int]:
        """The cells whose centres a shape covers (a circle: its own; a pill: several)."""
        half_r, half_c = s.height / 2 + 0.05, s.width / 2 + 0.05
        out = []
        for r in range(
            max(0, math.floor(s.center[0] - half_r)), min(n, math.ceil(s.center[0] + half_r))
        ):
            for c in range(
                max(0, math.floor(s.center[1] - half_c)), min(n, math.ceil(s.center[1] + half_c))
            ):
                if abs(r + 0.5 - s.center[0]) < half_r and abs(c + 0.5 - s.center[1]) < half_c:
                    out.append(r * n + c)
        return out

    rings: dict[int, _Shape] = {}
    for s in shapes:
        if (
            s.rounded
            and s.hollow
            and not s.text
            and min(s.width, s.height) >= 0.45
            and max(s.width, s.height) <= n
        ):
            for i in pill_cells(s):
                rings.setdefault(i, s)

    def circle_over(i: int) -> _Shape | None:
        """A ring (circle or pill) covering cell ``i``: an arrow's circle."""
        return rings.get(i)

    thermo_kind = (
        "slow-thermometer"
        if any("slow" in s.topics for s in text.about("thermometer"))
        else "thermometer"
    )
    arrows_named = text.mentions("arrow") or not text.present
    plain: list[tuple[_Line, list[int]]] = []
    loose: list[_Line] = []  # lines not through cell centres
    tips: dict[int, str] = {}  # the last cell of an arrow drawn as a line: its colour
    between: list[tuple[_Line, list[int], _Shape, _Shape]] = []

    # Lines: thermometers (a bulb at one end), arrows drawn as lines (a ring at one
    # end), between lines (rings at both ends), diagonals; the rest by colour below.
    for line in lines:
        if line.arrow:
            continue
        corners = [(_whole(p[0]), _whole(p[1])) for p in line.points]
        if len(line.points) == 2 and all(r is not None and c is not None for r, c in corners):
            ends = {corners[0], corners[1]}
            if ends in ({(0, 0), (n, n)}, {(0, n), (n, 0)}):
                main = (0, 0) in ends
                if text.mentions("diagonal"):
                    reading.extra.append(diagonal(n) if main else anti_diagonal(n))
                    reading.read["diagonal (a line from corner to corner)"] = (
                        reading.read.get("diagonal (a line from corner to corner)", 0) + 1
                    )
                    reading.drawn.setdefault("diagonal", "diagonal")
                else:
                    reading.unread.append(
                        f"{line.what}: a diagonal drawn from corner to corner, and the rules "
                        "text does not say its digits differ"
                    )
                line.used = True
                continue
        cells = reading.trace(line.points)
        if cells is None:
            loose.append(line)
            continue
        first, last = cells[0], cells[-1]
        simple = len(set(cells)) == len(cells)
        bulbs = [
            (end, s)
            for end in (first, last)
            for s in disc_at(end)
            if s.fill is not None and not s.hollow and hue_class(s.fill) == hue_class(line.rgb)
        ]
        at_end = {end: circle_over(end) for end in (first, last)}
        if bulbs and len(cells) > 1 and simple:
            end, bulb = bulbs[0]
            bulb.used = True
            path = cells if end == first else cells[::-1]
            reading.rule(
                {"kind": thermo_kind, "cells": path},
                f"{thermo_kind} ({_describe(line.rgb)} line from a bulb)",
                "thermometer",
            )
        elif at_end[first] is not None and at_end[last] is not None and len(cells) > 1 and simple:
            between.append((line, cells, at_end[first], at_end[last]))  # type: ignore[arg-type]
        elif (
            (at_end[first] is None) != (at_end[last] is None)
            and line.width <= 6
            and arrows_named
            and simple
        ):
            ring = at_end[first] or at_end[last]
            assert ring is not None
            ring.used = True
            path = cells if at_end[first] is not None else cells[::-1]
            circle = sorted(pill_cells(ring))
            shaft = [i for i in path if i not in circle]
            _arrow(reading, circle, shaft, f"arrow ({_describe(line.rgb)} line from a circle)")
            tips[path[-1]] = _hex(line.rgb)
        else:
            plain.append((line, cells))
        line.used = True

    bulb_classes = {
        hue_class(s.fill) for s in shapes if s.used and s.fill is not None and not s.hollow
    }
    for s in shapes:  # a bulb with no line: a thermometer of one cell, which says nothing
        at = reading.cell(s.center)
        if (
            not s.used
            and at is not None
            and s in disc_at(at)
            and s.fill is not None
            and not s.hollow
            and hue_class(s.fill) in bulb_classes
        ):
            s.used = True
            reading.notes.append(
                f"{s.what}: a thermometer bulb with no line at {reading.name(at)} (one cell: "
                "no rule)"
            )

    for line in loose:
        # An arrowhead drawn as a line: a short chevron whose point is the last cell of
        # an arrow drawn as a line in its colour.
        tip = reading.cell(line.points[1]) if len(line.points) == 3 else None
        if (
            tip is not None
            and tips.get(tip) == _hex(line.rgb)
            and all(math.dist(p, line.points[1]) < 0.5 for p in line.points)
        ):
            continue
        reading.unread.append(
            f"{line.what}: {_article(_describe(line.rgb))} line that is no path through cell "
            "centres"
        )

    for first_line, cells, ring_a, ring_b in between:
        if text.mentions("between-line"):
            ring_a.used = ring_b.used = True
            reading.rule(
                {"kind": "between-line", "cells": cells},
                "between line (a line between two circles)",
                "between-line",
            )
        else:
            plain.append((first_line, cells))

    # Arrows: from a circle (or pill) in the grid, or a little killer's pointer.
    clues = [s for s in shapes if s.text and reading.cell_of(s.center) is None and _outside(s, n)]
    for line in lines:
        if not line.arrow:
            continue
        line.used = True
        start = reading.cell_of(line.points[0])
        if start is not None:
            ring = circle_over(start)
            if ring is None:
                reading.unread.append(
                    f"{line.what}: an arrow from {reading.name(start)}, where no circle is"
                )
                continue
            ring.used = True
            r, c = divmod(start, n)
            cells = reading.trace([(r + 0.5, c + 0.5), *line.points[1:]])
            if cells is None:
                reading.unread.append(f"{line.what}: an arrow that is no path through cells")
                continue
            circle = sorted(pill_cells(ring))
            shaft = [i for i in cells if i not in circle]
            _arrow(reading, circle, shaft, "arrow (a circle and an arrow)")
            continue
        _little_killer(reading, line, clues)

    for s in clues:
        if s.used:
            continue
        _outside_clue(reading, s)

    # Marks on the edge between two cells: kropki dots, X and V.
    for s in shapes:
        if s.used or max(s.width, s.height) > 0.5:
            continue
        pair = _edge(s.center, n)
        if pair is None:
            continue
        a, b = pair
        label = None
        if s.text.upper() in ("X", "V"):
            kind_name = s.text.lower()
            label = f"{s.text.upper()} (a letter on an edge)"
        elif not s.text and s.rounded and s.fill is not None and hue_class(s.fill) == "black":
            kind_name, label = "kropki-black", "kropki-black (a black dot on an edge)"
        elif (
            not s.text
            and s.rounded
            and s.border is not None
            and (s.fill is None or hue_class(s.fill) == "white")
        ):
            kind_name, label = "kropki-white", "kropki-white (a white dot on an edge)"
        if label is None:
            continue
        s.used = True
        reading.rule({"kind": kind_name, "cells": [a, b]}, label, _MARK_TOPIC[kind_name])

    # Odd and even cells: circles or squares the rules text says hold odd/even digits.
    parity: dict[str, list[int]] = {"odd": [], "even": []}
    for s in shapes:
        if s.used or s.text or s.fill is None:
            continue
        spot = reading.cell(s.center)
        if spot is None or not (0.4 <= s.width <= 0.95 and abs(s.width - s.height) < 0.06):
            continue
        shape_word = "circle" if s.rounded else "square"
        fits = [
            p
            for p in ("odd", "even")
            for sentence in text.about(p)
            if shape_word in sentence.text.lower()
            and (not sentence.colours or hue_class(s.fill) in _classes(sentence.colours))
        ]
        if len(set(fits)) == 1:
            parity[fits[0]].append(spot)
            s.used = True
    for name, cells in parity.items():
        if cells:
            reading.rule(
                {"kind": name, "cells": sorted(cells)},
                f"{name} cells ({len(cells)} shapes the rules text calls {name})",
                name,
            )

    _plain_lines(reading, plain, shapes)

    for s in shapes:
        if not s.used:
            where = reading.cell_of(s.center)
            place = f" at {reading.name(where)}" if where is not None else f" at {list(s.center)}"
            look = "circle" if s.rounded else "rectangle"
            body = _describe(s.fill) if s.fill is not None else "outlined"
            words = f" with text {s.text!r}" if s.text else ""
            reading.unread.append(
                f"{s.what}: {_article(body)} {look}{place}{words}, which maps to no rule"
            )


def _classes(words: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for word in words:
        out |= COLOUR_WORDS.get(word, frozenset())
    return frozenset(out)


def _outside(s: _Shape, n: int) -> bool:
    r, c = s.center
    return r < 0 or c < 0 or r > n or c > n


def _edge(center: tuple[float, float], n: int) -> tuple[int, int] | None:
    """The two orthogonal neighbours whose shared edge's middle is ``center``."""
    r, c = center
    hr, hc, wr, wc = _half(r), _half(c), _whole(r), _whole(c)
    if hr is not None and wc is not None and 0 <= hr < n and 1 <= wc < n:
        return hr * n + wc - 1, hr * n + wc
    if wr is not None and hc is not None and 0 <= hc < n and 1 <= wr < n:
        return (wr - 1) * n + hc, wr * n + hc
    return None


def _arrow(reading: _Reading, circle: list[int], shaft: list[int], label: str) -> None:
    if not shaft or not circle:
        reading.unread.append(f"{label}: an arrow with no shaft")
        return
    reading.rule({"kind": "arrow", "circle": circle, "cells": shaft}, label, "arrow")


def _little_killer(reading: _Reading, line: _Line, clues: list[_Shape]) -> None:
    """A little killer: a number outside the grid, a short arrow along a diagonal."""
    n = reading.n
    p0, p1 = line.points[0], line.points[-1]
    dr, dc = p1[0] - p0[0], p1[1] - p0[1]
    near = [s for s in clues if math.dist(s.center, p0) < 0.8]
    if not near or abs(abs(dr) - abs(dc)) > 0.05 * max(abs(dr), abs(dc), 1e-9) or not dr:
        reading.unread.append(f"{line.what}: an arrow outside the grid that points at no diagonal")
        return
    clue = min(near, key=lambda s: math.dist(s.center, p0))
    total = _number(clue.text)
    sr, sc = (1 if dr > 0 else -1), (1 if dc > 0 else -1)
    r, c = math.floor(clue.center[0]) + sr, math.floor(clue.center[1]) + sc
    cells = []
    while 0 <= r < n and 0 <= c < n:
        cells.append(r * n + c)
        r, c = r + sr, c + sc
    clue.used = True
    if total is None or not total.is_integer() or not cells:
        reading.unread.append(f"{clue.what}: a clue {clue.text!r} by an arrow, which is no sum")
        return
    reading.rule(
        {"kind": "little-killer", "cells": cells, "sum": int(total)},
        "little killer (a number outside the grid and a diagonal arrow)",
        "little-killer",
    )


def _outside_clue(reading: _Reading, s: _Shape) -> None:
    """A number outside the grid with no arrow: a sandwich clue when the text says so."""
    n = reading.n
    r, c = s.center
    total = _number(s.text)
    hr, hc = _half(r), _half(c)
    s.used = True
    if total is None or not total.is_integer():
        reading.unread.append(f"{s.what}: text {s.text!r} outside the grid")
        return
    if hr is not None and 0 <= hr < n and (c < 0 or c > n):
        line, index = "row", hr
    elif hc is not None and 0 <= hc < n and (r < 0 or r > n):
        line, index = "column", hc
    else:
        reading.unread.append(f"{s.what}: a number {s.text!r} outside the grid by no row or column")
        return
    if reading.text.mentions("sandwich"):
        reading.rule(
            {"kind": "sandwich", line: index + 1, "sum": int(total)},
            "sandwich clue (a number beside a row or column)",
            "sandwich",
        )
    else:
        reading.unread.append(
            f"{s.what}: a number {s.text!r} beside {line} {index + 1} (the rules text names "
            "no outside clue cpsudoku reads: sandwich, little killer)"
        )


#: Line rules whose three classes repeat along the line with period 3 (a closed loop
#: of them is read when its length is a multiple of 3: see :func:`_plain_lines`).
_CLASS_LINES = frozenset({"entropic-line", "modular-line"})


def _plain_lines(
    reading: _Reading, plain: list[tuple[_Line, list[int]]], shapes: Sequence[_Shape] = ()
) -> None:
    """Lines with no bulb or circle: their rule is named by the rules text, by colour.

    A colour's rule is the one line rule the text names in a sentence with that
    colour's name, or (no colour named) the one whose usual colour it is. No text, no
    rule named, or several: not read.

    A closed loop of an entropic or modular line (its last cell its first, no other
    cell twice) is read as the line through its cells in order when it has 3k cells:
    any three consecutive cells holding one digit of each class makes the classes
    repeat every three cells, so the triples that wrap round the loop say nothing the
    open line does not. A loop of another length cannot hold (the classes would
    repeat with period 1) and is not read. A zipper line's centre marked with a dot of
    the line's colour (setters mark it so) is part of the zipper.
    """
    text = reading.text
    groups: dict[str, list[tuple[_Line, list[int]]]] = {}
    for line, cells in plain:
        groups.setdefault(_hex(line.rgb), []).append((line, cells))
    for hex_colour, members in groups.items():
        cls = hue_class(members[0][0].rgb)
        look = f"{cls} ({hex_colour}) line{'s' * (len(members) > 1)}"
        if not text.present:
            reading.unread.append(f"{len(members)} {look}: no rules text says what they mean")
            continue
        named: list[tuple[str, str]] = []
        usual: list[tuple[str, str]] = []
        for kind_name, topic, defaults in LINE_RULES:
            sentences = text.about(topic)
            if not sentences:
                continue
            words = set().union(*(s.colours for s in sentences))
            if words and cls in _classes(words):
                named.append((kind_name, topic))
            elif not words and (cls in defaults or not defaults):
                usual.append((kind_name, topic))
        choice = named if named else usual
        if len(choice) != 1:
            why = (
                "names no rule for them"
                if not choice
                else ("could mean " + " or ".join(k for k, _ in choice))
            )
            reading.unread.append(f"{len(members)} {look}: the rules text {why}")
            continue
        kind_name, topic = choice[0]
        for line, cells in members:
            loop = len(cells) > 3 and cells[0] == cells[-1] and len(set(cells)) == len(cells) - 1
            if kind_name in _CLASS_LINES and loop and (len(cells) - 1) % 3 == 0:
                cells = cells[:-1]
            elif len(set(cells)) != len(cells):
                if kind_name != "renban":  # a set of cells: a loop or a crossing is fine
                    reading.unread.append(
                        f"{line.what}: {_article(kind_name)} that crosses itself or closes a loop "
                        "(cpsudoku reads such lines with two ends)"
                    )
                    continue
                cells = list(dict.fromkeys(cells))
            if len(cells) < 2:
                continue
            spec: dict[str, Any] = {"kind": kind_name, "cells": cells}
            if kind_name == "whisper":
                spec["value"] = _whisper_gap(text, reading.n)
            if kind_name == "zipper-line":
                _zipper_centre(reading, line, cells, shapes)
            reading.rule(
                spec, f"{kind_name} ({look.rstrip('s') if len(members) > 1 else look})", topic
            )


def _zipper_centre(
    reading: _Reading, line: _Line, cells: list[int], shapes: Sequence[_Shape]
) -> None:
    """Mark as read the dots of the line's colour drawn at a zipper line's centre.

    The centre is the middle cell of an odd line, the middle of the edge between the
    two middle cells of an even one; a dot there (filled, no text, at most a cell
    wide) only shows where the zipper folds.
    """
    n = reading.n
    k = len(cells)
    a, b = divmod(cells[(k - 1) // 2], n), divmod(cells[k // 2], n)
    centre = ((a[0] + b[0]) / 2 + 0.5, (a[1] + b[1]) / 2 + 0.5)
    for s in shapes:
        if (
            not s.used
            and s.rounded
            and not s.text
            and s.fill is not None
            and max(s.width, s.height) <= 1.0
            and math.dist(s.center, centre) < 0.05
            and hue_class(s.fill) == hue_class(line.rgb)
        ):
            s.used = True


def _whisper_gap(text: _RulesText, n: int) -> int:
    """The whispers' least difference: the number the text gives, Dutch 4, else ceil(n/2)."""
    for s in text.about("whisper"):
        lower = s.text.lower()
        match = re.search(r"\b(?:at least|by)\s+(\d+)", lower)
        if match:
            return int(match.group(1))
        if "dutch" in lower:
            return 4
    return (n + 1) // 2


def _read_text_rules(reading: _Reading) -> None:
    """Rules the text states with no drawing; the text and the drawings checked."""
    text = reading.text
    if not text.present:
        reading.notes.append(
            "the puzzle has no rules text: its drawings were read by their usual meaning"
        )
        return
    for topic, kind_name in (
        ("anti-knight", "anti-knight"),
        ("anti-king", "anti-king"),
        ("non-consecutive", "non-consecutive"),
    ):
        if text.mentions(topic) and not any(s["kind"] == kind_name for s in reading.specs):
            reading.rule({"kind": kind_name}, f"{kind_name} (the rules text)", topic)
    exempt = {
        "kropki-white": ["kropki-black", "kropki-white"],
        "kropki-black": ["kropki-black", "kropki-white"],
        "x": ["v", "x"],
        "v": ["v", "x"],
    }
    for mark in sorted(text.negatives()):
        reading.rule(
            {"kind": "negative", "of": mark, "exempt": exempt[mark]},
            f"negative {mark} (the rules text: all are given)",
        )
    for sentence in text.unexplained():
        reading.unread.append(
            f"the rules text says {sentence!r}, which names no rule cpsudoku reads"
        )
    for topic, label in reading.drawn.items():
        if topic in ("anti-knight", "anti-king", "non-consecutive"):
            continue
        if not text.mentions(topic):
            reading.unread.append(f"{label} is drawn, but the rules text does not name that rule")
            continue
        meaning = MEANINGS.get(topic)
        said = " ".join(s.text.lower() for s in text.about(topic))
        if meaning is not None and not re.search(meaning, said):
            reading.unread.append(
                f"{label} is drawn, and the rules text names it but not with the meaning "
                "cpsudoku gives it"
            )
    if text.mentions("diagonal") and "diagonal" not in reading.drawn:
        reading.unread.append("the rules text speaks of diagonals, but no diagonal is drawn")
    for topic in (
        "thermometer",
        "arrow",
        "cage",
        "little-killer",
        "sandwich",
        "renban",
        "whisper",
        "palindrome",
        "kropki-white",
        "kropki-black",
    ):
        if text.mentions(topic) and topic not in reading.drawn:
            reading.notes.append(f"the rules text names {topic} rules, but none is drawn")


# ---------------------------------------------------------------------------- export

SUDOKUPAD = "https://sudokupad.app/"


def sudokupad_id(
    puzzle: Puzzle,
    *,
    title: str = "",
    author: str = "",
    ruleset: str = "",
    solution: Sequence[int] | None = None,
) -> str:
    """The ``fpuzzles...`` id of ``puzzle``: its f-puzzles export, compressed.

    Every rule with an f-puzzles key travels exactly; SudokuPad reads the id as
    f-puzzles' "Open in SudokuPad" button sends it.

    Raises:
        RulesError: a rule f-puzzles has no key for (named).
    """
    from cpsudoku.model.fpuzzles import to_fpuzzles

    obj = to_fpuzzles(puzzle, title=title, author=author, ruleset=ruleset, solution=solution)
    return "fpuzzles" + compress(json.dumps(obj, separators=(",", ":")))


def to_sudokupad(
    puzzle: Puzzle,
    *,
    title: str = "",
    author: str = "",
    ruleset: str = "",
    solution: Sequence[int] | None = None,
) -> str:
    """A SudokuPad link that opens ``puzzle``: ``https://sudokupad.app/?puzzleid=fpuzzles...``.

    Reading the link back (:func:`read_sudokupad`) gives the same rules.

    Raises:
        RulesError: a rule f-puzzles has no key for (named).
    """
    pid = sudokupad_id(puzzle, title=title, author=author, ruleset=ruleset, solution=solution)
    return SUDOKUPAD + "?puzzleid=" + quote(pid, safe="")


#: What the rules text of an ``scl`` export says, per rule it carries.
_SCL_TEXT = {
    "normal": "Normal sudoku rules apply.",
    "cage": "Digits in cages do not repeat and sum to the number in the cage's corner, if given.",
    "diagonal": "Digits do not repeat along the marked diagonals.",
}


def to_scl(
    puzzle: Puzzle,
    *,
    title: str = "",
    author: str = "",
    solution: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The SCL object of ``puzzle``: givens, regions, cages, main diagonals, metadata.

    The rules text it writes names each rule it carries, so :func:`read_scl` reads
    the same rules back.

    Raises:
        RulesError: a rule this form does not carry (export it with
            :func:`to_sudokupad`, the f-puzzles form, instead).
    """
    rules = puzzle.rules
    n = rules.n
    cells: list[list[dict[str, Any]]] = [[{} for _ in range(n)] for _ in range(n)]
    for i, v in enumerate(puzzle.cells):
        if v:
            cells[i // n][i % n] = {"value": v}
    parts = rules.unit_cells[2 * n : 3 * n] if rules.box is not None else rules.regions
    regions = [[[i // n, i % n] for i in sorted(part)] for part in parts]
    obj: dict[str, Any] = {"cellSize": 50, "cells": cells, "regions": regions}
    said = ["normal"]
    cages = []
    for c in rules.constraints:
        if c.kind != "cage":
            raise RulesError(
                f"SudokuPad's scl form carries givens, regions, cages and diagonals here, not "
                f"{c.kind} rules: export the fpuzzles form (to_sudokupad) instead"
            )
        cage: dict[str, Any] = {"cells": [[i // n, i % n] for i in c.cells], "unique": True}
        total = getattr(c, "total", None)
        if total is not None:
            cage["value"] = total
        cages.append(cage)
    if cages:
        obj["cages"] = cages
        said.append("cage")
    lines = []
    for region in rules.extra:
        if region == diagonal(n):
            lines.append({"wayPoints": [[0, 0], [n, n]], "color": "#34BBE6", "thickness": 2})
        elif region == anti_diagonal(n):
            lines.append({"wayPoints": [[0, n], [n, 0]], "color": "#34BBE6", "thickness": 2})
        else:
            raise RulesError(
                f"SudokuPad's scl form carries the main diagonals here, not {region.kind} "
                "regions: export the fpuzzles form (to_sudokupad) instead"
            )
    if lines:
        obj["lines"] = lines
        said.append("diagonal")
    meta: dict[str, Any] = {"rules": "\n".join(_SCL_TEXT[k] for k in said)}
    if title:
        meta["title"] = title
    if author:
        meta["author"] = author
    if solution is not None:
        meta["solution"] = "".join(SYMBOLS[v - 1] for v in solution)
    obj["metadata"] = meta
    return obj


def scl_id(
    puzzle: Puzzle,
    *,
    title: str = "",
    author: str = "",
    solution: Sequence[int] | None = None,
) -> str:
    """The ``scl...`` id of ``puzzle`` (see :func:`to_scl`): zipped and compressed.

    Raises:
        RulesError: a rule the scl form does not carry here.
    """
    obj = to_scl(puzzle, title=title, author=author, solution=solution)
    return "scl" + compress(zip_scl(obj))
