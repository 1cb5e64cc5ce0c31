"""What ``printf.print_format`` prints, for the interpreter and for compiled code.

One formatting rule for both, so that a program prints the same text either
way: each ``{}`` of the format is replaced by ``str`` of the value as a numpy
object of its exact type (``0.1`` for an f64, ``3`` for an index, ``True`` for
an i1, numpy's array text -- summarized when large -- for a tensor or memref).
Compiled code calls ``__irt_print(spec, frame)`` (``irtoolkit.abi``); this
module defines it for the JIT as a ctypes callback that rebuilds the values
from the frame. Output goes to ``sys.stdout``, so it interleaves with what
Python prints.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from irtoolkit.abi import PRINT_SEPARATOR
from irtoolkit.runtime import interrupts


def format_print(fmt: str, values: Sequence[Any]) -> str:
    """``fmt`` with its ``{}`` replaced by ``str`` of ``values``, in order (other
    braces are literal text)."""
    parts = fmt.split("{}")
    out = [parts[0]]
    for value, part in zip(values, parts[1:]):
        out.append(str(value))
        out.append(part)
    return "".join(out)


def emit(text: str) -> None:
    try:
        sys.stdout.write(text)
        if "\n" in text:
            sys.stdout.flush()  # a progress line shows while the program runs
    except BrokenPipeError:  # the reader went away (`irt-run p.mlir | head`): print no more
        import os

        sys.stdout = open(os.devnull, "w")  # noqa: SIM115


def _frame_values(spec: str, frame: int) -> tuple[str, list[Any]]:
    """The format and the values a compiled print passed (see ``irtoolkit.abi``)."""
    header, _, fmt = spec.partition(PRINT_SEPARATOR)
    words = ctypes.cast(frame, ctypes.POINTER(ctypes.c_int64))
    values: list[Any] = []
    w = 0
    for item in header.split(";") if header else ():
        dtype_text, _, rank_text = item.partition("/")
        dtype, rank = np.dtype(dtype_text), int(rank_text)
        if rank < 0:
            values.append(np.frombuffer(ctypes.string_at(frame + 8 * w, dtype.itemsize), dtype)[0])
            w += 1
            continue
        aligned, offset = words[w + 1], words[w + 2]
        sizes = [words[w + 3 + k] for k in range(rank)]
        strides = [words[w + 3 + rank + k] for k in range(rank)]
        w += 3 + 2 * rank
        if 0 in sizes:
            values.append(np.empty(sizes, dtype))
            continue
        span = 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
        buf = (ctypes.c_char * (span * dtype.itemsize)).from_address(aligned + offset * dtype.itemsize)
        view = np.ndarray(sizes, dtype, buffer=buf, strides=[s * dtype.itemsize for s in strides])
        values.append(view.copy())
    return fmt, values


def _print_from_compiled_code(spec: int, frame: int) -> None:
    try:
        fmt, values = _frame_values(ctypes.string_at(spec).decode("utf-8", "replace"), frame)
        emit(format_print(fmt, values))
    except KeyboardInterrupt:
        # Ctrl-C while Python ran this callback: the exception cannot unwind
        # through compiled code (ctypes would print and drop it), so the call
        # stops at its next poll instead and raises it when it returns
        interrupts.interrupt()
    except Exception as err:  # noqa: BLE001 - nothing may unwind through compiled code
        sys.stderr.write(f"error: printf.print_format in compiled code: {type(err).__name__}: {err}\n")


# kept alive for as long as compiled code may call it
_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(_print_from_compiled_code)


def callback_address() -> int:
    """The address compiled code calls as ``__irt_print``."""
    address = ctypes.cast(_CALLBACK, ctypes.c_void_p).value
    assert address is not None
    return address
