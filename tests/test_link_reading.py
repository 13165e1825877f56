"""f-puzzles share links decode with SudokuPad's lz-string decoder as with the
``lzstring`` package (which the f-puzzles reader used before, ten times slower)."""

from __future__ import annotations

import json
from urllib.parse import unquote

import lzstring
import pytest
from conftest import DATA

from cpsudoku.model.errors import PuzzleError
from cpsudoku.model.fpuzzles import decompress, fpuzzles_link, share_text

ROWS = [
    json.loads(line) for line in (DATA / "published" / "fpuzzles.jsonl").read_text().splitlines()
]


def test_every_published_link_decodes_as_the_lzstring_package_does() -> None:
    for row in ROWS:
        link = fpuzzles_link(row["fpuzzles"])
        payload = link.split("load=", 1)[1]
        text = share_text(link)
        assert text is not None, row["id"]
        assert json.loads(text) == row["fpuzzles"], row["id"]
        assert text == lzstring.LZString().decompressFromBase64(unquote(payload)), row["id"]


@pytest.mark.parametrize("payload", ["N4IgzglgXgpiBcBOANCA5gJwg", "N4Ig!!!", "N4Ig"])
def test_a_cut_or_garbled_link_is_a_clear_error(payload: str) -> None:
    with pytest.raises(PuzzleError, match="cut short or garbled"):
        decompress(payload, "the f-puzzles link")
