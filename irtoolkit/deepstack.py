"""Running deeply recursive work (xDSL's parser, walkers, printer) on a big stack.

Kept free of heavy imports: the command-line tools wrap every run in it.
"""

from __future__ import annotations

import sys
import threading

_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 200_000


def run_with_deep_stack(fn):
    """Run ``fn()`` on a thread with a large stack and recursion limit; re-raise its error."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as err:  # re-raised in the caller's thread
            outcome["error"] = err

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    try:
        threading.stack_size(_DEEP_STACK_BYTES)
        sys.setrecursionlimit(_DEEP_RECURSION_LIMIT)
        worker = threading.Thread(target=target, daemon=True)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        err = outcome["error"]
        raise err  # type: ignore[misc]
    return outcome["value"]
