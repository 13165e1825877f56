"""Ctrl-C inside a python-sat solver call, turned into the KeyboardInterrupt Python expects.

python-sat makes its solver calls interruptible by Ctrl-C its own way: for the length
of a call made from the main thread it replaces the SIGINT handler with one of its
own, which ``longjmp``s out of the solver. The call then raises ``pysolvers.error:
Caught keyboard interrupt``, an ordinary ``Exception``: a command line that maps
KeyboardInterrupt to exit code 130 printed a traceback and exited 1 instead, the code
for "proven unsolvable". The jump also leaves three things behind:

- its handler stays installed (the one saved before the call is never put back), so
  a later Ctrl-C jumps into a stack frame that no longer exists;
- SIGINT stays blocked in the main thread (``longjmp`` out of a signal handler does
  not restore the signal mask), so every later Ctrl-C is held back for good;
- the solver is left half-way through an update: CaDiCaL aborts the whole process on
  its next call (``fatal error: invalid API usage ... solver in invalid state``), and
  even deleting it may free an invalid pointer (glibc aborts the process:
  ``munmap_chunk(): invalid pointer``, one interrupt in 25 in a test).

- a jump that lands inside the allocator may leave the heap itself inconsistent:
  any later ``free`` can then abort the process (``free(): corrupted unsorted
  chunks``, twice in some 250 interrupts of 25x25 searches).

Every python-sat search in the package therefore runs under :class:`SatInterrupts`
(or calls :func:`raise_interrupt` on failure), which puts the handler and the signal
mask back, abandons the solver (:func:`abandon`: never called, never deleted; its
memory is lost, and a Ctrl-C mostly ends the process anyway) and raises
:class:`SolverInterrupted`, a KeyboardInterrupt. The sat engine then abandons its other
solvers too, and the command line ends without the interpreter's teardown
(:func:`jumped`): the fewer native frees after the jump, the fewer chances to meet a
damaged heap. Worker processes, where Ctrl-C belongs to the parent, block SIGINT
instead (:func:`cpsudoku.engines.processes.ignore_ctrl_c`), so the handler never fires
there.

A call that python-sat runs *without* its handler (``solve_limited(expect_interrupt=
True)``, stopped at a deadline by ``interrupt()`` from another thread) has the
opposite fault: Python's own handler only notes the Ctrl-C, and acts on it when the
call returns, at the deadline. :class:`StopAt` stops such a call at the deadline or at
once on Ctrl-C.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Literal

#: The message of the exception python-sat raises when Ctrl-C stops a solver call.
SAT_INTERRUPT = "Caught keyboard interrupt"

#: Set once python-sat's handler has jumped out of a solver in this process.
_jumped = threading.Event()


class SolverInterrupted(KeyboardInterrupt):
    """Ctrl-C jumped out of a python-sat solver call (a KeyboardInterrupt like any other).

    Native memory may be inconsistent afterwards (see the module docstring): the
    engine abandons its solvers instead of deleting them, and the command line ends
    without the interpreter's teardown.
    """


def jumped() -> bool:
    """True once python-sat's Ctrl-C handler has jumped out of a solver in this process."""
    return _jumped.is_set()


def is_sat_interrupt(exc: BaseException) -> bool:
    """True when ``exc`` is python-sat's report of a solver call stopped by Ctrl-C.

    The class is ``pysolvers.error`` (python-sat's C module), which also reports other
    failures; only the message tells an interrupt. Read without importing python-sat.
    """
    return type(exc).__module__ == "pysolvers" and str(exc) == SAT_INTERRUPT


def restore_sigint() -> None:
    """Put back Python's SIGINT handler and unblock SIGINT (see the module docstring).

    Only the main thread's handler and mask are touched; python-sat installs its
    handler only for calls from the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    handler = signal.getsignal(signal.SIGINT)
    if handler is not None:  # None: a handler not set from Python, left as it is
        signal.signal(signal.SIGINT, handler)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def abandon(solver: object) -> None:
    """Make sure nothing touches ``solver``'s C++ state again, its deletion included.

    ``solver`` is a python-sat solver (``pysat.solvers.Solver`` or one of the classes
    it wraps). Each keeps its native handles as capsules in attributes; with those set
    to None, every method that would reach the native solver, ``delete`` and the
    finaliser included, does nothing. The native memory is never freed.
    """
    for obj in (solver, getattr(solver, "solver", None)):
        if obj is None or not hasattr(obj, "__dict__"):
            continue
        for name, value in list(vars(obj).items()):
            if type(value).__name__ == "PyCapsule":
                setattr(obj, name, None)


def raise_interrupt(exc: BaseException, *solvers: object) -> None:
    """Raise :class:`SolverInterrupted` in place of ``exc`` when it is python-sat's interrupt.

    The python-sat ``solvers`` the interrupted call may have been running in are
    abandoned (:func:`abandon`). Returns (and the caller re-raises ``exc``) for any
    other exception.
    """
    if is_sat_interrupt(exc):
        _jumped.set()
        for solver in solvers:
            abandon(solver)
        restore_sigint()
        raise SolverInterrupted from None


class SatInterrupts:
    """Context manager: python-sat's interrupt inside the block leaves as KeyboardInterrupt.

    Takes the python-sat solvers that the block calls: an interrupt abandons them
    (:func:`abandon`). Any other exception passes through unchanged.

    >>> with SatInterrupts():
    ...     pass
    """

    def __init__(self, *solvers: object) -> None:
        self.solvers = solvers

    def __enter__(self) -> SatInterrupts:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        if exc is not None:
            raise_interrupt(exc, *self.solvers)
        return False


def _python_handles_sigint() -> bool:
    """True when Ctrl-C reaches a Python handler here (then :class:`StopAt` watches it)."""
    return (
        threading.current_thread() is threading.main_thread()
        and hasattr(signal, "sigtimedwait")
        and hasattr(signal, "pthread_sigmask")
        and hasattr(signal, "pthread_kill")
        and callable(signal.getsignal(signal.SIGINT))
    )


class StopAt:
    """Context manager: call ``stop()`` after ``seconds``, or at once on Ctrl-C.

    For a blocking call that runs without the GIL and is stopped from another thread
    (python-sat's ``interrupt()``). A thread calls ``stop`` at the deadline, unless the
    block ends first. In the main thread, where Python handles Ctrl-C, SIGINT is also
    blocked for the length of the block and the thread waits for it with
    ``sigtimedwait``: a Ctrl-C calls ``stop`` at once, and is raised again for Python's
    handler (KeyboardInterrupt by default) when the block ends. Elsewhere only the
    deadline is watched.

    Attributes:
        stopped: True when ``stop`` was called (the deadline, or Ctrl-C).
        ctrl_c: True when Ctrl-C was pressed during the block.
    """

    def __init__(self, stop: Callable[[], None], seconds: float) -> None:
        self.stop = stop
        self.deadline = time.monotonic() + seconds
        self.stopped = False
        self.ctrl_c = False
        self._lock = threading.Lock()
        self._done = False  # the block has ended
        self._waiting = True  # the thread has not yet decided (it may be woken)
        self._signals = _python_handles_sigint()
        self._mask: set[int | signal.Signals] = set()
        self._thread = threading.Thread(target=self._watch, name="cpsudoku-stop-at", daemon=True)
        self._woken = threading.Event()

    def __enter__(self) -> StopAt:
        if self._signals:  # before the thread starts: it inherits the mask
            self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        with self._lock:
            self._done = True
            if self._waiting:  # wake it: a SIGINT meant for that thread alone
                if self._signals:
                    assert self._thread.ident is not None
                    signal.pthread_kill(self._thread.ident, signal.SIGINT)
                self._woken.set()
        self._thread.join()
        if self._signals:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
            if self.ctrl_c:  # Python's handler gets it now, as if it came now
                signal.raise_signal(signal.SIGINT)
        return False

    def _watch(self) -> None:
        """The thread: wait for the deadline, Ctrl-C or the end of the block."""
        taken = 0  # SIGINTs taken: Ctrl-C, or the wake-up sent when the block ends
        while True:
            left = self.deadline - time.monotonic()
            if left > 0:
                if self._signals:
                    taken += signal.sigtimedwait({signal.SIGINT}, left) is not None
                else:
                    self._woken.wait(left)
            with self._lock:
                if self._done:  # the block ended first; one SIGINT taken was the wake-up
                    if self._signals:
                        while signal.sigtimedwait({signal.SIGINT}, 0) is not None:
                            taken += 1
                        self.ctrl_c = taken > 1
                    self._waiting = False
                    return
                if taken or time.monotonic() >= self.deadline:
                    self.ctrl_c = taken > 0
                    self._waiting = False
                    self.stopped = True
                    self.stop()
                    return


__all__ = [
    "SAT_INTERRUPT",
    "SatInterrupts",
    "SolverInterrupted",
    "StopAt",
    "abandon",
    "is_sat_interrupt",
    "jumped",
    "raise_interrupt",
    "restore_sigint",
]
