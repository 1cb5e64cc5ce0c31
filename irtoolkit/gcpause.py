"""Pausing Python's cyclic garbage collector around IR-building work.

A leaf utility (like diagnostics): any layer may use it. IR objects all sit in
reference cycles (parents, use lists), so building many ops triggers
collections that rescan the whole live module again and again — measured as
the main source of superlinear time in parsing and lowering passes.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_holds = [0]  # resume_later holds not yet released
_resume_on_release = [False]  # a paused_gc body ended while held: enable the collector then
_lock = threading.Lock()


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the body without the cyclic collector; it resumes afterwards (or, if
    the body asked, later: ``resume_later``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            with _lock:
                if _holds[0]:
                    _resume_on_release[0] = True
                else:
                    gc.enable()


class Hold:
    """The collector kept paused past a ``paused_gc`` body (``resume_later``)."""

    def __init__(self, seconds: float | None):
        self._released = seconds is None  # (outside a pause: holds nothing)
        self._timer = None
        if not self._released:
            with _lock:
                _holds[0] += 1
            self._timer = threading.Timer(seconds, self.release)  # type: ignore[arg-type]
            self._timer.daemon = True
            self._timer.start()

    def keep(self) -> None:
        """Hold until ``release``, however long it takes."""
        if self._timer is not None:
            self._timer.cancel()

    def release(self) -> None:
        with _lock:
            if self._released:
                return
            self._released = True
            _holds[0] -= 1
            if not _holds[0] and _resume_on_release[0]:
                _resume_on_release[0] = False
                gc.enable()


def resume_later(seconds: float) -> Hold:
    """Called in a ``paused_gc`` body: the collector stays paused after it until
    the hold is released, or ``seconds`` have passed (unless kept). For a body
    that leaves garbage to be collected where a core is idle: the JIT's compile
    leaves its IR to its first build, which collects it while LLVM works -- the
    collector, resumed at once, would scan it on the way there (bench W7:
    0.2-0.4 s). Outside a pause it holds nothing."""
    return Hold(None if gc.isenabled() else seconds)


_EXIT_WITHOUT_COLLECTING: list[bool] = []


def exit_without_collecting() -> None:
    """Have the interpreter's shutdown skip its last full collection.

    For the command-line tools: that collection walks every object the run
    left (the IR of each pass, all in cycles) only to free memory the process
    gives back anyway -- measured 0.9 s of an 11 s ``irt-opt`` run on a 4k-op
    program. ``gc.freeze`` at exit (atexit runs before the collection) sets
    them aside; a process that goes on (tests calling the tools) is unaffected.
    """
    if not _EXIT_WITHOUT_COLLECTING:
        import atexit

        _EXIT_WITHOUT_COLLECTING.append(True)
        atexit.register(gc.freeze)
