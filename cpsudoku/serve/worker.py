"""A worker process of ``cpsudoku serve``: one job at a time, read from stdin.

The server starts it with ``python -m cpsudoku.serve.worker``. Each request is one
line of JSON on stdin; the worker answers with lines of JSON on stdout: the job's
messages as ``{"msg": {...}}``, then ``{"end": true}``. The first line it writes,
once its imports are done, is ``{"ready": true}``. Anything else the job prints goes
to stderr, so a stray ``print`` can never corrupt the protocol.

The server cancels a job by killing the process, so a job stops wherever it is (in
a SAT call, in CP-SAT, in pure Python). The worker also ends when its parent goes
(its stdin closes, or, mid-job, the parent's pid changes): a killed server never
leaves a worker behind.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any


def _watch_parent(parent: int) -> None:
    """End this process when the parent that started it is gone."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (a no-op elsewhere)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _warm_up(run_job: Callable[[dict[str, Any]], Iterator[dict[str, Any]]]) -> None:
    """Load what the jobs use (engines, encoders, the rater) before the first request."""
    tiny = "1.343..2.3..2..3"
    for name in ("candidates", "check", "count", "draw", "explain"):
        for _ in run_job({"api": name, "body": {"puzzle": tiny}, "time_limit": 5}):
            pass
    import cpsudoku.rating  # noqa: F401


def main() -> None:
    """Serve jobs until stdin closes."""
    parent = os.getppid()
    _die_with_parent()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # stray prints never reach the protocol stream
    # The imports every job needs, done before the first request.
    from cpsudoku.serve.jobs import run_job

    _warm_up(run_job)

    def send(obj: object) -> None:
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        out.flush()

    send({"ready": True})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            for message in run_job(request):
                send({"msg": message})
        except Exception as exc:  # a bug, not bad input: reported, the worker lives on
            traceback.print_exc()
            send({"error": f"internal error: {type(exc).__name__}: {exc}"})
        send({"end": True})


if __name__ == "__main__":
    main()
