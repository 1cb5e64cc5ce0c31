"""Rules for ``math``: elementwise functions, computed in the precision of the IR type.

Functions numpy lacks (erf) are computed in float64 by Python's ``math`` and
rounded once to the operand's type; ``fma`` does not round the product (f16/f32
through f64, f64 through exact rational arithmetic). ``round`` rounds half away from zero, ``roundeven`` half to even.
"""

from __future__ import annotations

import math as pymath
from fractions import Fraction

import numpy as np
from xdsl.dialects import math

from irtoolkit.dialects.math import ClampFOp, IsFiniteOp, IsInfOp, IsNaNOp, IsNormalOp, SinCosOp
from irtoolkit.interpreter.core import BITS, dtype_of, register, register_specialized, wrap_int

_F64 = np.dtype(np.float64)


def _round_half_away(x):
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0).astype(x.dtype) \
        if isinstance(x, np.ndarray) else (t + np.sign(x) if abs(x - t) >= 0.5 else t)


_erf_vec = np.frompyfunc(pymath.erf, 1, 1)


def _erf(x):
    if isinstance(x, np.ndarray):
        return _erf_vec(x.astype(_F64)).astype(x.dtype)
    return x.dtype.type(pymath.erf(float(x)))


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


_FLOAT_UNARY = {
    math.AbsFOp: np.abs,
    math.AcosOp: np.arccos,
    math.AcoshOp: np.arccosh,
    math.AsinOp: np.arcsin,
    math.AsinhOp: np.arcsinh,
    math.AtanOp: np.arctan,
    math.AtanhOp: np.arctanh,
    math.CbrtOp: np.cbrt,
    math.CeilOp: np.ceil,
    math.CosOp: np.cos,
    math.CoshOp: np.cosh,
    math.ErfOp: _erf,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.ExpOp: np.exp,
    math.FloorOp: np.floor,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.Log2Op: np.log2,
    math.LogOp: np.log,
    math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away,
    math.RsqrtOp: _rsqrt,
    math.SinOp: np.sin,
    math.SinhOp: np.sinh,
    math.SqrtOp: np.sqrt,
    math.TanOp: np.tan,
    math.TanhOp: np.tanh,
    math.TruncOp: np.trunc,
}

#: math op class -> the numpy function of the same meaning (also used by tests)
FLOAT_UNARY = _FLOAT_UNARY


def _unary(fn):
    return lambda interp, op, args: (fn(args[0]),)


for _cls, _fn in _FLOAT_UNARY.items():
    register(_cls)(_unary(_fn))

FLOAT_BINARY = {
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
    math.PowFOp: np.power,
}


def _binary(fn):
    return lambda interp, op, args: (fn(args[0], args[1]),)


for _cls, _fn in FLOAT_BINARY.items():
    register(_cls)(_binary(_fn))


def _fma64(a, b, c):
    """a*b + c with one rounding (exact rational arithmetic, then round to f64)."""
    a, b, c = float(a), float(b), float(c)
    if not (pymath.isfinite(a) and pymath.isfinite(b) and pymath.isfinite(c)):
        return np.float64(a * b + c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return np.float64(a * b + c)  # the sign of a zero result as IEEE says
    try:
        return np.float64(float(exact))
    except OverflowError:
        return np.float64(pymath.copysign(pymath.inf, exact))


_fma64_vec = np.frompyfunc(_fma64, 3, 1)


@register(math.FmaOp)
def _fma(interp, op, args):
    a, b, c = args
    dt = a.dtype
    if dt.itemsize < 8:
        # the product of two f32 (f16) is exact in f64; the sum is rounded to f64 and
        # then to f32 (a true fma may differ in the last bit in rare double-rounding cases)
        wide = a.astype(_F64) * b.astype(_F64) + c.astype(_F64)
        return (wide.astype(dt),)
    if isinstance(a, np.ndarray):
        return (_fma64_vec(a, b, c).astype(dt),)
    return (_fma64(a, b, c),)


@register(math.FPowIOp)
def _fpowi(interp, op, args):
    base, power = args
    dt = base.dtype
    return (np.power(base, power.astype(dt)).astype(dt),)


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
    register(_cls)(_unary(_fn))
