"""Rules for ``math``'s integer ops.

The float ops (exp ... fma) are declared elementwise
(``irtoolkit/dialects/scalar.py``): their numpy meaning is their rule.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import math

from irtoolkit.dialects.math import ClampFOp, IsFiniteOp, IsInfOp, IsNaNOp, IsNormalOp, SinCosOp
from irtoolkit.interpreter.core import BITS, dtype_of, register, register_specialized, wrap_int

# ---------------------------------------------------------------------------
# integer math


def _int_unary(py):
    """Elementwise function of (python int value as unsigned, bits) -> python int."""

    def make(op):
        dt = dtype_of(op.result.type)
        bits = BITS.get(dt, dt.itemsize * 8)

        def f(x):
            v = int(x)
            if v < 0:
                v += 1 << bits
            return wrap_int(py(v, bits), dt)

        vec = np.frompyfunc(f, 1, 1)

        def rule(interp, op, args):
            x = args[0]
            if isinstance(x, np.ndarray):
                return (vec(x).astype(dt),)
            return (f(x),)

        return rule

    return make


def _ctlz(v: int, bits: int) -> int:
    return bits - v.bit_length()


def _cttz(v: int, bits: int) -> int:
    return bits if v == 0 else (v & -v).bit_length() - 1


def _ctpop(v: int, bits: int) -> int:
    return bin(v).count("1")


register_specialized(math.CountLeadingZerosOp)(_int_unary(_ctlz))
register_specialized(math.CountTrailingZerosOp)(_int_unary(_cttz))
register_specialized(math.CtPopOp)(_int_unary(_ctpop))


@register(math.AbsIOp)
def _absi(interp, op, args):
    x = args[0]
    if x.dtype == np.bool_:
        return (x,)
    return (np.abs(x),)  # abs(INT_MIN) wraps to INT_MIN


def _ipow(b: int, e: int) -> int:
    if e < 0:
        # as MLIR's expansion: 1/b in integers
        if b == 1:
            return 1
        if b == -1:
            return -1 if e % 2 else 1
        if b == 0:
            raise ZeroDivisionError("integer division by zero in math.ipowi")
        return 0
    return b ** e


@register_specialized(math.IPowIOp)
def _ipowi(op):
    dt = dtype_of(op.result.type)
    bits = BITS.get(dt, dt.itemsize * 8)

    def f(b, e):
        b, e = int(b), int(e)
        if dt == np.bool_:
            b, e = -b, -e
        if e >= 0:
            return wrap_int(pow(b, e, 1 << bits), dt)
        return wrap_int(_ipow(b, e), dt)

    vec = np.frompyfunc(f, 2, 1)

    def rule(interp, op, args):
        b, e = args
        if isinstance(b, np.ndarray):
            return (vec(b, e).astype(dt),)
        return (f(b, e),)

    return rule


# ops of upstream's math dialect that xDSL 0.74 lacks (irtoolkit.dialects.math)


@register(SinCosOp)
def _sincos(interp, op, args):
    return (np.sin(args[0]), np.cos(args[0]))


@register(ClampFOp)
def _clampf(interp, op, args):
    x, lo, hi = args
    return (np.minimum(np.maximum(x, lo), hi),)


def _isnormal(x):
    return np.isfinite(x) & (np.abs(x) >= np.finfo(np.asarray(x).dtype).tiny)


for _cls, _fn in ((IsFiniteOp, np.isfinite), (IsInfOp, np.isinf), (IsNaNOp, np.isnan), (IsNormalOp, _isnormal)):
    register(_cls)(lambda interp, op, args, _fn=_fn: (_fn(args[0]),))
