"""Puzzles shared as links: f-puzzles and SudokuPad links, and what other links are.

A link is never a file name and never a line of symbols: :func:`is_link` tells one
apart, and :func:`read_link` reads it or says, by name, why it cannot (a short link
that needs the network, a site cpsudoku does not read). A SudokuPad id pasted alone
(``scl...``, ``fpuzzles...``) counts as a link: :mod:`cpsudoku.model.sudokupad` reads
both.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.fpuzzles import parse_fpuzzles_text
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.sudokupad import from_sudokupad, is_sudokupad_id, is_sudokupad_link

#: A URL (any scheme) or a bare host of the setters' sites.
_LINK = re.compile(
    r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|www\.|(?:[\w-]+\.)*(?:f-puzzles\.com|sudokupad\.app|"
    r"crackingthecryptic\.com)\b)",
    re.IGNORECASE,
)


def is_link(text: str) -> bool:
    """True when ``text`` (one line, no spaces) is a link rather than a puzzle or a path."""
    stripped = text.strip()
    return (
        bool(stripped)
        and " " not in stripped
        and "\n" not in stripped
        and (bool(_LINK.match(stripped)) or is_sudokupad_id(stripped))
    )


def read_link(text: str) -> Puzzle:
    """The puzzle a link carries.

    Raises:
        PuzzleError: the link carries no puzzle cpsudoku reads; the message says why
            (a truncated or garbled f-puzzles link, an f-puzzles or SudokuPad short
            link, which needs the site's server, a site cpsudoku does not read).
        RulesError: a SudokuPad puzzle whose drawn rules cannot be read with
            certainty (the message lists what was read and what was not).
    """
    stripped = text.strip()
    url = urlparse(stripped if "://" in stripped else "https://" + stripped)
    host = (url.hostname or "").lower()
    if "load=" in stripped and not is_sudokupad_link(stripped):
        puzzle = parse_fpuzzles_text(stripped)
        if puzzle is None:
            raise PuzzleError("the f-puzzles link does not hold an f-puzzles puzzle")
        return puzzle
    if host.endswith("f-puzzles.com"):
        if "id=" in url.query:
            raise PuzzleError(
                "an f-puzzles short link (?id=...) names a puzzle kept on the f-puzzles "
                "server, which cpsudoku does not fetch: open it in f-puzzles and copy the "
                "long link (?load=...) or the puzzle's JSON"
            )
        raise PuzzleError("the f-puzzles link holds no puzzle (no ?load=...)")
    if is_sudokupad_link(stripped):
        return from_sudokupad(stripped)
    raise PuzzleError(
        f"{stripped} is a link to {host or 'an unknown site'}, which holds no puzzle "
        "cpsudoku reads: give an f-puzzles link (?load=...), a SudokuPad link, the "
        "puzzle's JSON, or its text"
    )
