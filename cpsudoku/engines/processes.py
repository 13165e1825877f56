"""Worker processes that never outlive the process that started them.

Batch workers and the portfolio's engines are separate processes. Ctrl-C is their
parent's to handle (:func:`ctrl_c_held`, :func:`ignore_ctrl_c`). If their parent
ends without stopping them (``kill -9``, a crash, SIGTERM to the parent alone) they
must end too, instead of solving on for nobody. Two guards, both started by the
worker itself, first thing:

- on Linux, the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG)``), which kills
  the worker the moment its parent dies, even inside a long C call that holds the GIL.
  The kernel sends it when the parent *thread* that started the worker ends, so it is
  armed only when that thread is the parent's main thread (the parent says so);
- everywhere, a daemon thread that looks every :data:`WATCH_EVERY` seconds whether the
  parent is still the parent.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Seconds between two looks at the parent by the watching thread.
WATCH_EVERY = 0.5

#: ``prctl`` option number of the parent-death signal (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def ignore_ctrl_c() -> None:
    """Leave Ctrl-C to the parent: ignore SIGINT in this worker, and block it too.

    A terminal sends Ctrl-C to every process of the foreground group, workers
    included; the parent stops them. Ignoring SIGINT is not enough: python-sat puts
    its own handler in place for every solver call made from the main thread, and a
    Ctrl-C then stops the worker's search with an error (and leaves a CaDiCaL solver
    that aborts the process on its next call). A blocked signal reaches no handler.
    Call it first thing, before any thread starts: threads inherit the mask.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C back in this thread while it starts worker processes.

    A worker is not ready for Ctrl-C until :func:`ignore_ctrl_c` has run, and a spawned
    one (a new interpreter) takes a second or more to get there: a Ctrl-C meanwhile
    stopped its imports with a traceback on the terminal. For the length of the block
    SIGINT is blocked, which a forked worker inherits, and in the main thread (where
    Python sets handlers) also ignored, which a spawned one inherits (a new process
    gets no signal mask, but keeps ignoring what its parent ignored); both are put
    back afterwards. A Ctrl-C pressed during the block stays pending (Linux never
    ignores a blocked signal) and arrives when it ends.
    """
    before = None
    if hasattr(signal, "pthread_sigmask"):
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = None
    if threading.current_thread() is threading.main_thread():
        handler = signal.getsignal(signal.SIGINT)
        if handler is not None:  # None: set outside Python, left alone
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        if before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def sigterm_held() -> Iterator[None]:
    """Hold SIGTERM back in this thread while it forks worker processes.

    A forked worker runs its parent's Python code until its own start-up sets its
    handlers. A SIGTERM that reached it meanwhile ran the parent's handler (the command
    line's raises :class:`~cpsudoku.cli.Terminated`) in the worker, *outside* the
    guard that ends a forked child whatever happens: the exception unwound the copy of
    the parent's stack, and the worker went on as if it were the parent (it stopped
    the pool, wrote the outputs, ran the rest of the program). Blocked, the signal
    waits in the worker until :func:`release_sigterm`, by which time its default
    action applies; in the parent it arrives when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def release_sigterm() -> None:
    """In a worker: end at SIGTERM (the default action), including one held since the fork."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def parent_identity() -> tuple[int, bool]:
    """What a worker must know of the process starting it, for :func:`die_with_parent`.

    Its pid, and whether the starting thread is its main thread.
    """
    return os.getpid(), threading.current_thread() is threading.main_thread()


def die_with_parent(parent: int, main_thread: bool) -> None:
    """End this process as soon as process ``parent`` ends, whatever ends it.

    Args:
        parent: pid of the process that started this one.
        main_thread: that process started this one from its main thread, which lives
            as long as it does (only then is the parent-death signal safe to arm).
    """
    if main_thread and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl here: the thread alone watches
            pass
    watcher = threading.Thread(
        target=_watch, args=(parent,), name="cpsudoku-parent-watch", daemon=True
    )
    watcher.start()
    if os.getppid() != parent:  # the parent died before the guards were up
        os._exit(1)


def _watch(parent: int) -> None:
    """Exit the process once ``parent`` is no longer its parent (it was reparented)."""
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(1)
