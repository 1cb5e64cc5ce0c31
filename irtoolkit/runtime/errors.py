"""The errors compiled code raises in Python, from the JIT's calling convention."""

from __future__ import annotations

from typing import Any

from irtoolkit.diagnostics import Diagnostic, DiagnosticError


class AllocationError(DiagnosticError, MemoryError):
    """Compiled code could not allocate a buffer (too large, or a negative size)."""

    def __init__(self, message: str):
        DiagnosticError.__init__(self, Diagnostic(message))


class RuntimeCheckError(DiagnosticError, ValueError):
    """A run-time check of compiled code failed (dynamic sizes that disagree,
    an index or slice out of bounds ...): a ``cf.assert`` emitted by the
    lowering. The message names the op, its location and what mismatched.
    Nothing was written to the results."""

    def __init__(self, message: str, location: Any = None):
        DiagnosticError.__init__(self, Diagnostic(message, location))


def check_failure(function: str, text: bytes, has_values: int, a: int, b: int) -> RuntimeCheckError:
    """The error for a failed check whose message global holds ``text``
    (``file\x1fline\x1fcol\x1fmessage``, see ``to_llvm/cf.py``)."""
    from irtoolkit.diagnostics import Location

    raw = text.decode("utf-8", "replace")
    parts = raw.split("\x1f", 3)
    location = None
    if len(parts) == 4:
        file, line, col, message = parts
        if file and line.isdigit() and col.isdigit():
            location = Location(file, int(line), int(col))
    else:
        message = raw
    if has_values:
        message = f"{message}: {a} vs {b}"
    if location is None:
        message = f"@{function}: {message}"
    return RuntimeCheckError(message, location)


class ArgumentError(DiagnosticError, TypeError):
    """A call with arguments that do not match the function's signature.

    Raised before any native code runs. It is both a DiagnosticError and a TypeError.
    """

    def __init__(self, message: str):
        DiagnosticError.__init__(self, Diagnostic(message))


class StackExhaustedError(DiagnosticError, RecursionError):
    """Recursion in compiled code reached the thread's stack limit (the call was
    abandoned, its temporaries freed: nothing was written to the results)."""

    def __init__(self, message: str):
        DiagnosticError.__init__(self, Diagnostic(message))
