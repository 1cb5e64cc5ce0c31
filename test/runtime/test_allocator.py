"""The malloc thresholds the runtime sets for compiled code's temporaries."""

import ctypes
import platform

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.runtime import allocator

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")


@glibc
def test_loading_an_executable_tunes_malloc():
    exe = irt.compile(irt.parse("func.func @f(%a: tensor<4xf64>) -> tensor<4xf64> {\n"
                                "  %b = tensor.add %a, %a : tensor<4xf64>\n  func.return %b : tensor<4xf64>\n}"))
    np.testing.assert_array_equal(exe["f"](np.arange(4.0)), 2 * np.arange(4.0))
    assert allocator.tune_malloc() is True
    # a large block is now heap memory, not a mapping of its own
    assert _mapped_blocks_of(4 << 20) == 0


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


def _mapped_blocks_of(size: int) -> int:
    """How many more blocks glibc serves by mmap while one block of ``size`` is allocated."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.mallinfo2.restype = _Mallinfo2
    before = libc.mallinfo2().hblks
    p = libc.malloc(size)
    during = libc.mallinfo2().hblks
    libc.free(p)
    return during - before

def test_malloc_is_left_alone_when_asked(monkeypatch):
    monkeypatch.setenv("IRT_MALLOC_TUNE", "0")
    assert allocator._apply() is False
