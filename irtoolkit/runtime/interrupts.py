"""SIGINT for compiled code: a counter it polls, moved when Ctrl-C is pressed.

Python runs its SIGINT handler (``KeyboardInterrupt``) only between bytecodes,
never while the main thread is inside a native call. Its C-level handler,
though, writes the signal number to the wakeup file descriptor, if one is set
(``signal.set_wakeup_fd``): a daemon thread reading that pipe increments the
counter that compiled code polls (``abi.INTERRUPTS_SYMBOL``; see
``passes/lowering/to_llvm/jit_interface.py``). The running call then stops at
its next poll, its entry point frees its temporaries and returns
``abi.INTERRUPTED``, and the caller raises ``KeyboardInterrupt`` (Python does
too, from its own handler, as soon as the call returns).

The watch starts with the first call from the main thread, and only if no one
else uses the wakeup descriptor (asyncio does: compiled code then runs to its
end, as before).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading

COUNT = ctypes.c_int64(0)  # its address is the symbol compiled code polls
_state: dict[str, object] = {}
_lock = threading.Lock()


def address() -> int:
    return ctypes.addressof(COUNT)


def watch() -> None:
    """Start watching SIGINT (once; from the main thread only, as Python requires)."""
    if _state or threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _state:
            return
        _state["tried"] = True
        try:
            r, w = os.pipe()
        except OSError:
            return
        os.set_blocking(w, False)
        try:
            previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except ValueError:  # not the main thread of the main interpreter
            os.close(r)
            os.close(w)
            return
        if previous != -1:  # someone else's: leave it to them
            signal.set_wakeup_fd(previous)
            os.close(r)
            os.close(w)
            return
        _state["fds"] = (r, w)
        threading.Thread(target=_relay, args=(r,), name="irt-sigint", daemon=True).start()


def _relay(r: int) -> None:
    while True:
        try:
            data = os.read(r, 64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            interrupt()


def interrupt() -> None:
    """Stop the running compiled calls at their next poll (with the GIL held:
    a lost increment of two still moves the count)."""
    COUNT.value += 1
