"""glibc malloc settings for compiled code's temporaries.

Compiled functions allocate their intermediate buffers with ``malloc`` and free
them before returning. glibc serves blocks above its mmap threshold (128 KiB,
raised dynamically up to the largest freed block) with fresh ``mmap``s, and
returns free memory at the top of the heap to the system once it exceeds the
trim threshold (twice the mmap threshold): every call then maps, zero-fills
page by page and unmaps its large temporaries again. On the transformer block
of ``bench`` (W8) that was 20-27% of the gradient's samples in the kernel
(page faults, ``clear_page``); with the mmap threshold fixed at 32 MiB and the
trim threshold at 64 MiB, 5%.

``tune_malloc()`` sets both once per process, when the first executable is
loaded (the settings are the process's: a process that runs compiled code
keeps up to 64 MiB of freed heap for reuse). ``IRT_MALLOC_TUNE=0`` leaves
malloc alone; other C libraries (no ``mallopt``) are left alone too.
"""

from __future__ import annotations

import ctypes
import os
import threading

#: mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20

_lock = threading.Lock()
_done: list[bool] = []


def tune_malloc() -> bool:
    """Apply the thresholds once; True if they are in effect."""
    with _lock:
        if not _done:
            _done.append(_apply())
        return _done[0]


def _apply() -> bool:
    if os.environ.get("IRT_MALLOC_TUNE", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
