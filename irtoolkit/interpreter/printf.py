"""Rules for ``printf``: the text is formatted as compiled code formats it
(``irtoolkit.runtime.printf``), so both print the same."""

from __future__ import annotations

from xdsl.dialects import printf

from irtoolkit.interpreter.core import register
from irtoolkit.runtime.printf import emit, format_print


@register(printf.PrintFormatOp)
def _print_format(interp, op, args):
    emit(format_print(op.format_str.data, args))
    return ()
