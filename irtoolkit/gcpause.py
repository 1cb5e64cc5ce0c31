"""Pausing Python's cyclic garbage collector around IR-building work.

A leaf utility (like diagnostics): any layer may use it. IR objects all sit in
reference cycles (parents, use lists), so building many ops triggers
collections that rescan the whole live module again and again — measured as
the main source of superlinear time in parsing and lowering passes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the body without the cyclic collector; it resumes afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
