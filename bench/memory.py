"""Peak memory of one call, measured alike for every contender.

The call runs in a process of its own whose C allocator returns memory to the
system at once (glibc: every block of 64 KB or more is its own mapping, freed
pages are trimmed), so that the resident set follows what is allocated. After
a warm-up call, the pages of the blocks freed so far (by compilers, by the
warm-up) are released (``malloc_trim``) and the kernel's high-water mark of
the resident set is reset (``/proc/self/clear_refs``); the peak is its rise
during the measured call:
everything the call allocates and touches -- stored values, temporaries,
results -- whatever allocates it (compiled code, numpy, XLA, PyTorch).
Linux only.
"""

from __future__ import annotations

import gc

#: environment of the measuring process (glibc's malloc tunables)
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_TOP_PAD_": "0"}


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {key} in /proc/self/status")


def _release_free_pages() -> None:
    """Give the pages of freed blocks back to the system (glibc's ``malloc_trim``),
    so that a block the call reuses counts when it is touched again."""
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc_trim(0)


def peak_bytes(fn) -> int:
    """Rise of the resident set's high-water mark during ``fn()`` (call ``fn``
    once before, so that what the first call loads or compiles is not counted)."""
    gc.collect()
    _release_free_pages()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current VmRSS
    base = _status_kb("VmRSS")
    result = fn()
    peak = _status_kb("VmHWM")
    del result
    return max(0, peak - base) * 1024
