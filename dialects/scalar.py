"""The elementwise meaning of xDSL's scalar ``arith`` and ``math`` ops.

One declaration per op (see ``elementwise.py``): its numpy meaning (which the
interpreter runs, and which folds the ``tensor`` ops that name it as their
counterpart), its partial derivatives, its cost and its neutral operand. The
``tensor`` dialect's elementwise ops inherit all of it from these.

Numeric conventions (SPEC §2): integers wrap; ``i1`` arithmetic is one-bit
(``addi``/``subi`` are xor, ``muli`` is and, and ``maxsi``/``minsi`` read
``true`` as -1); ``maximumf``/``minimumf`` propagate NaN and order -0 below
+0; ``erf`` is computed in f64 and rounded once; ``round`` rounds half away
from zero, ``roundeven`` half to even; ``fma`` rounds once.
"""

from __future__ import annotations

import math as pymath
from fractions import Fraction

from xdsl.dialects import arith, math

from irtoolkit.dialects.elementwise import NEG_ONE, ONE, Cost, declare, np
from irtoolkit.ties import winner_weights

CHEAP, MEDIUM, EXPENSIVE = Cost.CHEAP, Cost.MEDIUM, Cost.EXPENSIVE

# ---------------------------------------------------------------------------
# numpy meanings that are not one numpy function


def _ieee_extremum(extremum, negative_zero_wins: bool):
    """IEEE maximum/minimum: numpy's (NaN propagates), but with -0 < +0 (np.maximum
    may return either zero)."""

    def fn(a, b):
        r = extremum(a, b)
        zeros = (a == 0) & (b == 0)
        if np.ndim(r) == 0:
            return (a if np.signbit(a) == negative_zero_wins else b) if zeros else r
        if zeros.any():
            r = np.where(zeros, np.where(np.signbit(a) == negative_zero_wins, a, b), r)
        return r

    return fn


def _on_i1(integer_fn, i1_fn):
    """An integer meaning with its own one-bit form (numpy's bool arithmetic is not)."""
    return lambda a, b: i1_fn(a, b) if a.dtype == bool else integer_fn(a, b)


def _erf(x):
    f = np.frompyfunc(pymath.erf, 1, 1)
    return np.asarray(f(np.asarray(x, np.float64))).astype(x.dtype)[()]


def _round_half_away(x):
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0).astype(x.dtype)[()]


def _fma64(a, b, c):
    """a*b + c with one rounding (exact rational arithmetic, then round to f64)."""
    a, b, c = float(a), float(b), float(c)
    if not (pymath.isfinite(a) and pymath.isfinite(b) and pymath.isfinite(c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the sign of a zero result as IEEE says
    try:
        return float(exact)
    except OverflowError:
        return pymath.copysign(pymath.inf, exact)


def _fma(a, b, c):
    dt = a.dtype
    if dt.itemsize < 8:
        # the product of two f32 (f16) is exact in f64; the sum is rounded to f64 and
        # then to f32 (a true fma may differ in the last bit in rare double-rounding cases)
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(dt)
    return np.asarray(np.frompyfunc(_fma64, 3, 1)(a, b, c)).astype(dt)[()]


def _fpowi(base, power):
    return np.power(base, power.astype(base.dtype)).astype(base.dtype)


# ---------------------------------------------------------------------------
# partial derivatives (shared by the scalar ops and the tensor ops naming them)


def p_add(D, ins, outs, need):
    return [ONE, ONE]


def p_sub(D, ins, outs, need):
    return [ONE, NEG_ONE]


def p_mul(D, ins, outs, need):
    a, b = ins
    return [b, a]


def p_div(D, ins, outs, need):
    a, b = ins
    (y,) = outs
    return [D.recip(b) if need[0] else None, D.neg(D.div(y, b)) if need[1] else None]


def float_to_int(x, dst: np.dtype, signed: bool = True):
    """Float to integer as compiled code converts (``llvm.fptosi.sat`` /
    ``fptoui.sat``, as XLA): truncate toward zero, saturate at the bounds of
    the (signed or unsigned) type, NaN gives 0. ``dst`` is the storage dtype
    (``bool`` for i1, whose signed range is {-1, 0}: true only for x <= -1)."""
    if dst == np.bool_:
        return (x <= -1.0) if signed else (x >= 1.0)
    bits = dst.itemsize * 8
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)  # [lo, hi)
    scalar = not isinstance(x, np.ndarray)
    arr = np.asarray(x)
    nan = np.isnan(arr)
    above = arr >= float(hi)
    below = arr <= float(lo) - 1.0 if signed else arr <= -1.0
    inside = np.where(nan | above | below, 0, arr)
    work = np.dtype(f"{'i' if signed else 'u'}{dst.itemsize}")
    out = inside.astype(work)
    if above.any() or below.any():
        out = np.where(above, work.type(hi - 1), np.where(below, work.type(lo), out))
    out = out.astype(work).view(dst) if work != dst else out
    return dst.type(out) if scalar else out


def _p_extremum(predicate: str, nan_loses: bool = False):
    """d max(a, b) (predicate "gt") / d min(a, b) ("lt"): 1 to the winner, 1/2 each
    at a tie (SPEC §6, irtoolkit.ties); with ``nan_loses`` (maxnum, minnum) a NaN
    operand gets nothing."""

    def partials(D, ins, outs, need):
        wa, wb = winner_weights(D, ins[0], ins[1], predicate, nan_loses)
        return [wa if need[0] else None, wb if need[1] else None]

    return partials


def p_pow(D, ins, outs, need):
    """d a^b: b a^(b-1) and a^b log a (0 where a == 0, as JAX)."""
    a, b = ins
    (y,) = outs
    pa = pb = None
    if need[0]:
        pa = D.mul(b, D.pow(a, D.sub(b, D.const(1.0, b))))
    if need[1]:
        safe = D.select(D.cmp("eq", a, D.zeros(a)), D.const(1.0, a), a)
        pb = D.mul(y, D.log(safe))
    return [pa, pb]


def _unary(fn):
    """Partials of a unary op from ``fn(D, x, y) -> dy/dx``."""
    return lambda D, ins, outs, need: [fn(D, ins[0], outs[0])]


def _inv_sqrt(D, v):
    return D.recip(D.sqrt(v))


def p_atan2(D, ins, outs, need):
    """atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²)."""
    y, x = ins
    r2 = D.add(D.square(x), D.square(y))
    return [D.div(x, r2) if need[0] else None, D.neg(D.div(y, r2)) if need[1] else None]


def p_copysign(D, ins, outs, need):
    """copysign(a, b) = |a| sign(b): d/da = sign(a) s(b) with s(b) = ±1; d/db = 0."""
    a, b = ins
    if not need[0]:
        return [None, None]
    one = D.const(1.0, a)
    return [D.mul(D.apply(math.CopySignOp, one, a), D.apply(math.CopySignOp, one, b)), None]


def p_fma(D, ins, outs, need):
    a, b, _ = ins
    return [b, a, ONE]


def p_fpowi(D, ins, outs, need):
    """a^n, n integer: d/da = n a^(n-1)."""
    a, n = ins
    if not need[0]:
        return [None, None]
    lower = D.apply(math.FPowIOp, a, D.apply(arith.SubiOp, n, D.const(1, n)))
    return [D.mul(D.emit1(arith.SIToFPOp(n, a.type)), lower), None]


POSITIVE = (0.1, 4.0)

# ---------------------------------------------------------------------------
# arith (floats)

declare(arith.AddfOp, numpy=np.add, partials=p_add, unit=-0.0, commutative=True)
declare(arith.SubfOp, numpy=np.subtract, partials=p_sub, unit=0.0)
declare(arith.MulfOp, numpy=np.multiply, partials=p_mul, unit=1.0, commutative=True)
declare(arith.DivfOp, numpy=np.divide, partials=p_div, unit=1.0, cost=MEDIUM,
        domain=[(-2.0, 2.0), (0.5, 2.0)])
declare(arith.NegfOp, numpy=np.negative, partials=lambda D, ins, outs, need: [NEG_ONE])
declare(arith.MaximumfOp, numpy=_ieee_extremum(np.maximum, False), partials=_p_extremum("gt"))
declare(arith.MinimumfOp, numpy=_ieee_extremum(np.minimum, True), partials=_p_extremum("lt"))
declare(arith.MaxnumfOp, numpy=np.fmax, partials=_p_extremum("gt", nan_loses=True))
declare(arith.MinnumfOp, numpy=np.fmin, partials=_p_extremum("lt", nan_loses=True))

# ---------------------------------------------------------------------------
# arith (integers): the counterparts of the tensor ops on integer and i1 tensors

declare(arith.AddiOp, numpy=_on_i1(np.add, np.logical_xor), unit=0, commutative=True,
        differentiable=False)
declare(arith.SubiOp, numpy=_on_i1(np.subtract, np.logical_xor), unit=0, differentiable=False)
declare(arith.MuliOp, numpy=_on_i1(np.multiply, np.logical_and), unit=1, commutative=True,
        differentiable=False)
declare(arith.MaxSIOp, numpy=_on_i1(np.maximum, np.logical_and), differentiable=False)
declare(arith.MinSIOp, numpy=_on_i1(np.minimum, np.logical_or), differentiable=False)
declare(arith.AndIOp, numpy=np.bitwise_and, differentiable=False)
declare(arith.OrIOp, numpy=np.bitwise_or, unit=0, commutative=True, differentiable=False)
declare(arith.XOrIOp, numpy=np.bitwise_xor, unit=0, commutative=True, differentiable=False)

# ---------------------------------------------------------------------------
# math

_LOG2, _LOG10 = pymath.log(2.0), pymath.log(10.0)

declare(math.AbsFOp, numpy=np.abs, partials=_unary(lambda D, x, y: D.sign(x)))
declare(math.ExpOp, numpy=np.exp, partials=_unary(lambda D, x, y: y), cost=EXPENSIVE)
declare(math.Exp2Op, numpy=np.exp2, partials=_unary(lambda D, x, y: D.scale(y, _LOG2)), cost=EXPENSIVE)
declare(math.ExpM1Op, numpy=np.expm1, partials=_unary(lambda D, x, y: D.add(y, D.const(1.0, y))),
        cost=EXPENSIVE)
declare(math.LogOp, numpy=np.log, partials=_unary(lambda D, x, y: D.recip(x)), cost=EXPENSIVE,
        domain=POSITIVE)
declare(math.Log2Op, numpy=np.log2, partials=_unary(lambda D, x, y: D.recip(D.scale(x, _LOG2))),
        cost=EXPENSIVE, domain=POSITIVE)
declare(math.Log10Op, numpy=np.log10, partials=_unary(lambda D, x, y: D.recip(D.scale(x, _LOG10))),
        cost=EXPENSIVE, domain=POSITIVE)
declare(math.Log1pOp, numpy=np.log1p, partials=_unary(lambda D, x, y: D.recip(D.add(x, D.const(1.0, x)))),
        cost=EXPENSIVE, domain=(-0.5, 4.0))
declare(math.SqrtOp, numpy=np.sqrt, partials=_unary(lambda D, x, y: D.div(D.const(0.5, y), y)),
        cost=MEDIUM, domain=POSITIVE)
declare(math.RsqrtOp, numpy=lambda x: np.reciprocal(np.sqrt(x)),
        partials=_unary(lambda D, x, y: D.scale(D.div(y, x), -0.5)), cost=MEDIUM, domain=POSITIVE)
declare(math.CbrtOp, numpy=np.cbrt, partials=_unary(lambda D, x, y: D.div(y, D.scale(x, 3.0))),
        cost=EXPENSIVE, domain=POSITIVE)
declare(math.TanhOp, numpy=np.tanh, partials=_unary(lambda D, x, y: D.sub(D.const(1.0, y), D.square(y))),
        cost=EXPENSIVE)
declare(math.SinOp, numpy=np.sin, partials=_unary(lambda D, x, y: D.cos(x)), cost=EXPENSIVE)
declare(math.CosOp, numpy=np.cos, partials=_unary(lambda D, x, y: D.neg(D.sin(x))), cost=EXPENSIVE)
declare(math.TanOp, numpy=np.tan, partials=_unary(lambda D, x, y: D.add(D.const(1.0, y), D.square(y))),
        cost=EXPENSIVE, domain=(-1.2, 1.2))
declare(math.SinhOp, numpy=np.sinh, partials=_unary(lambda D, x, y: D.apply(math.CoshOp, x)),
        cost=EXPENSIVE)
declare(math.CoshOp, numpy=np.cosh, partials=_unary(lambda D, x, y: D.apply(math.SinhOp, x)),
        cost=EXPENSIVE)
declare(math.AsinOp, numpy=np.arcsin,
        partials=_unary(lambda D, x, y: _inv_sqrt(D, D.sub(D.const(1.0, x), D.square(x)))),
        cost=EXPENSIVE, domain=(-0.9, 0.9))
declare(math.AcosOp, numpy=np.arccos,
        partials=_unary(lambda D, x, y: D.neg(_inv_sqrt(D, D.sub(D.const(1.0, x), D.square(x))))),
        cost=EXPENSIVE, domain=(-0.9, 0.9))
declare(math.AtanOp, numpy=np.arctan,
        partials=_unary(lambda D, x, y: D.recip(D.add(D.const(1.0, x), D.square(x)))), cost=EXPENSIVE)
declare(math.AsinhOp, numpy=np.arcsinh,
        partials=_unary(lambda D, x, y: _inv_sqrt(D, D.add(D.square(x), D.const(1.0, x)))),
        cost=EXPENSIVE)
declare(math.AcoshOp, numpy=np.arccosh,
        partials=_unary(lambda D, x, y: _inv_sqrt(D, D.sub(D.square(x), D.const(1.0, x)))),
        cost=EXPENSIVE, domain=(1.1, 4.0))
declare(math.AtanhOp, numpy=np.arctanh,
        partials=_unary(lambda D, x, y: D.recip(D.sub(D.const(1.0, x), D.square(x)))),
        cost=EXPENSIVE, domain=(-0.9, 0.9))
declare(math.ErfOp, numpy=_erf,
        partials=_unary(lambda D, x, y: D.scale(D.exp(D.neg(D.square(x))), 2.0 / pymath.sqrt(pymath.pi))),
        cost=EXPENSIVE)
declare(math.PowFOp, numpy=np.power, partials=p_pow, unit=1.0, cost=EXPENSIVE,
        domain=[(0.2, 3.0), (-2.0, 2.0)])
declare(math.Atan2Op, numpy=np.arctan2, partials=p_atan2, cost=EXPENSIVE,
        domain=[(-2.0, 2.0), (0.5, 2.0)])
declare(math.CopySignOp, numpy=np.copysign, partials=p_copysign, domain=[(-2.0, 2.0), (0.5, 2.0)])
declare(math.FmaOp, numpy=_fma, partials=p_fma, cost=MEDIUM)
declare(math.FPowIOp, numpy=_fpowi, partials=p_fpowi, cost=EXPENSIVE)

# Piecewise constant: the derivative is zero almost everywhere, and values carry none.
for _cls, _fn in ((math.CeilOp, np.ceil), (math.FloorOp, np.floor), (math.TruncOp, np.trunc),
                  (math.RoundEvenOp, np.rint), (math.RoundOp, _round_half_away)):
    declare(_cls, numpy=_fn, differentiable=False)
