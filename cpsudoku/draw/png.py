"""PNG pictures: the SVG drawing rasterised by resvg (the ``resvg-py`` package).

resvg renders SVG exactly as written, in a few milliseconds for a puzzle, with no
system library to install (a compiled wheel): matplotlib, already the plot extra,
would need every shape drawn a second time through its own API. Text needs a font:
matplotlib's DejaVu Sans when matplotlib is installed (so a picture looks the same on
every machine), else the system's fonts.
"""

from __future__ import annotations

import os
from functools import cache

from cpsudoku.model.errors import CpSudokuError


class DrawingError(CpSudokuError, RuntimeError):
    """A picture could not be made (a missing package, an unreadable drawing)."""


@cache
def _fonts() -> list[str]:
    """Font files to load: matplotlib's DejaVu Sans, when it is installed."""
    try:
        import matplotlib
    except ImportError:
        return []
    folder = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "fonts", "ttf")
    files = [os.path.join(folder, f) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]
    return [f for f in files if os.path.exists(f)]


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """The PNG of an SVG text (``scale``: pixels per SVG pixel).

    Raises:
        DrawingError: ``resvg-py`` is not installed (``pip install 'cpsudoku[draw]'``).
    """
    try:
        import resvg_py
    except ImportError:
        raise DrawingError(
            "PNG pictures need the resvg-py package: pip install 'cpsudoku[draw]' "
            "(SVG needs nothing)"
        ) from None
    fonts = _fonts()
    data = resvg_py.svg_to_bytes(
        svg_string=svg,
        font_files=fonts or None,
        skip_system_fonts=bool(fonts),
        sans_serif_family="DejaVu Sans",
        font_family="DejaVu Sans",
        zoom=scale,
    )
    return bytes(data)
