"""Progress on stderr for the commands that can run long, shown as ``batch`` shows it.

A tqdm bar on standard error (the settings of the batch's bar), only when standard
error is a terminal and ``--quiet`` is not given: a log, a pipe or a test sees
nothing of it. :func:`progress_bar` gives a :class:`Progress` either way, so a
command calls it unconditionally.
"""

from __future__ import annotations

import argparse
import sys
import time
from types import TracebackType
from typing import Any


def progress_wanted(args: argparse.Namespace) -> bool:
    """True when a progress bar is shown: stderr is a terminal and no ``--quiet``."""
    return sys.stderr.isatty() and not getattr(args, "quiet", False)


class Progress:
    """A progress bar on stderr, or nothing (every method then does nothing).

    Use as a context manager: the bar is closed (its last state left on the
    terminal's line) at the end, whatever happens.
    """

    #: Seconds between two redraws for :meth:`stage` and :meth:`note`, which may be
    #: called thousands of times a second (a redraw per call would cost more).
    REDRAW = 0.2

    def __init__(self, bar: Any = None) -> None:
        self.bar = bar
        self._drawn = 0.0

    def _redraw(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._drawn >= self.REDRAW:
            self._drawn = now
            self.bar.refresh()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        if self.bar is not None:
            self.bar.update(n)

    def stage(self, text: str, done: int = 0, total: int | None = None) -> None:
        """Name what is being done now; ``done`` of ``total`` units, when counted."""
        if self.bar is None:
            return
        new = text != self.bar.desc
        self.bar.set_description_str(text, refresh=False)
        if self.bar.total != total:
            self.bar.reset(total=total)
        self.bar.n = done
        self._redraw(force=new)

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (e.g. the cell a search has reached)."""
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self._redraw()

    def write(self, line: str) -> None:
        """Print ``line`` on stderr above the bar (or plainly, without one)."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Close the bar (idempotent)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress_bar(
    enabled: bool, total: int | None = None, unit: str = "puzzle", desc: str | None = None
) -> Progress:
    """A :class:`Progress`: a tqdm bar on stderr when ``enabled``, else a silent one.

    The bar is the batch's (``dynamic_ncols``, ``smoothing=0.1``), counting ``unit``
    up to ``total`` (None: a running count without an end).
    """
    if not enabled:
        return Progress()
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        dynamic_ncols=True,
        smoothing=0.1,
        leave=False,
    )
    return Progress(bar)
