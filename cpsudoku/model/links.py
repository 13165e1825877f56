"""Puzzles shared as links: f-puzzles share links, and what other links are.

A link is never a file name and never a line of symbols: :func:`is_link` tells one
apart, and :func:`read_link` reads it or says, by name, why it cannot (a short link
that needs the network, a site cpsudoku does not read).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.fpuzzles import parse_fpuzzles_text
from cpsudoku.model.puzzle import Puzzle

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
        and bool(_LINK.match(stripped))
    )


def read_link(text: str) -> Puzzle:
    """The puzzle a link carries.

    Raises:
        PuzzleError: the link carries no puzzle cpsudoku reads; the message says why
            (a truncated or garbled f-puzzles link, an f-puzzles short link, which
            needs the f-puzzles server, a site cpsudoku does not read).
    """
    stripped = text.strip()
    url = urlparse(stripped if "://" in stripped else "https://" + stripped)
    host = (url.hostname or "").lower()
    if "load=" in stripped:
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
    if host.endswith("sudokupad.app") or host.endswith("crackingthecryptic.com"):
        raise PuzzleError(
            "SudokuPad links are not read yet: open the puzzle in f-puzzles and copy its "
            "link (?load=...), or give its f-puzzles JSON"
        )
    raise PuzzleError(
        f"{stripped} is a link to {host or 'an unknown site'}, which holds no puzzle "
        "cpsudoku reads: give an f-puzzles link (?load=...), the puzzle's JSON, or its text"
    )
