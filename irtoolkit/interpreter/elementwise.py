"""The rule of every declared elementwise op: its numpy meaning.

Ops declared with ``irtoolkit.dialects.elementwise`` (the scalar ``arith``
and ``math`` ops, the ``tensor`` dialect's elementwise ops, and any op a user
declares) need no rule of their own: :func:`make_rule` runs the declaration's
numpy meaning. On tensors it first checks that the operands' shapes agree at
run time (numpy would broadcast); values of explicitly unsigned integer types
are computed on their signed bits, as the hardware does.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects.elementwise import meaning_of
from irtoolkit.interpreter.core import Rule, dtype_of

_asarray = np.asarray


def _check_shapes(op: Operation, args) -> None:
    shapes = [a.shape for a in args if isinstance(a, np.ndarray)]
    if any(s != shapes[0] for s in shapes):
        listed = " vs ".join(str(s) for s in shapes)
        raise op_error(op, f"operand shapes differ at run time: {listed}")


def make_rule(op: Operation) -> Rule:
    """The interpreter rule of a declared elementwise op."""
    meaning = meaning_of(op)
    fn = meaning.numpy_for(op) if meaning is not None else None
    if fn is None:
        raise op_error(op, f"cannot be interpreted: no numpy meaning for {op.results[0].type}")
    dt = dtype_of(op.results[0].type)
    if dt.kind == "u":
        signed = np.dtype(f"i{dt.itemsize}")
        inner = fn

        def fn(*xs):
            return inner(*(x.astype(signed) for x in xs)).astype(dt)

    if not isinstance(op.results[0].type, TensorType):
        return lambda interp, op, args: (fn(*args),)
    if len(op.operands) == 1:
        return lambda interp, op, args: (_asarray(fn(args[0])),)

    def rule(interp, op, args):
        first = args[0].shape
        for a in args:
            if a.shape != first:
                _check_shapes(op, args)
        return (_asarray(fn(*args)),)

    return rule
