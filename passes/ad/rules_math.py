"""Derivative rules of the `math` dialect (scalars)."""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith, math

from irtoolkit.dialects.math import FP_CLASS_OPS, ClampFOp, SinCosOp
from irtoolkit.passes.ad.rules import ONE, elementwise, nondiff, register
from irtoolkit.passes.ad.rules_arith import (
    p_abs,
    p_cos,
    p_exp,
    p_log,
    p_pow,
    p_sin,
    p_sqrt,
    p_tanh,
)


def _u(fn):
    """Unary partial from ``fn(E, x, y) -> dy/dx``."""
    return lambda E, ins, outs, need: [fn(E, ins[0], outs[0])]


def _inv_sqrt(E, v):
    return E.recip(E.sqrt(v))


elementwise(math.ExpOp, p_exp)
elementwise(math.LogOp, p_log)
elementwise(math.SqrtOp, p_sqrt)
elementwise(math.TanhOp, p_tanh)
elementwise(math.SinOp, p_sin)
elementwise(math.CosOp, p_cos)
elementwise(math.AbsFOp, p_abs)
elementwise(math.PowFOp, p_pow)
elementwise(math.Exp2Op, _u(lambda E, x, y: E.scale(y, pymath.log(2.0))))
elementwise(math.ExpM1Op, _u(lambda E, x, y: E.add(y, E.const(1.0, y))))
elementwise(math.Log2Op, _u(lambda E, x, y: E.recip(E.scale(x, pymath.log(2.0)))))
elementwise(math.Log10Op, _u(lambda E, x, y: E.recip(E.scale(x, pymath.log(10.0)))))
elementwise(math.Log1pOp, _u(lambda E, x, y: E.recip(E.add(x, E.const(1.0, x)))))
elementwise(math.RsqrtOp, _u(lambda E, x, y: E.scale(E.div(y, x), -0.5)))
elementwise(math.CbrtOp, _u(lambda E, x, y: E.div(y, E.scale(x, 3.0))))
elementwise(math.TanOp, _u(lambda E, x, y: E.add(E.const(1.0, y), E.square(y))))
elementwise(math.SinhOp, _u(lambda E, x, y: E.cosh(x)))
elementwise(math.CoshOp, _u(lambda E, x, y: E.sinh(x)))
elementwise(math.AsinOp, _u(lambda E, x, y: _inv_sqrt(E, E.sub(E.const(1.0, x), E.square(x)))))
elementwise(math.AcosOp, _u(lambda E, x, y: E.neg(_inv_sqrt(E, E.sub(E.const(1.0, x), E.square(x))))))
elementwise(math.AtanOp, _u(lambda E, x, y: E.recip(E.add(E.const(1.0, x), E.square(x)))))
elementwise(math.AsinhOp, _u(lambda E, x, y: _inv_sqrt(E, E.add(E.square(x), E.const(1.0, x)))))
elementwise(math.AcoshOp, _u(lambda E, x, y: _inv_sqrt(E, E.sub(E.square(x), E.const(1.0, x)))))
elementwise(math.AtanhOp, _u(lambda E, x, y: E.recip(E.sub(E.const(1.0, x), E.square(x)))))
elementwise(
    math.ErfOp,
    _u(lambda E, x, y: E.scale(E.exp(E.neg(E.square(x))), 2.0 / pymath.sqrt(pymath.pi))),
)


def p_atan2(E, ins, outs, need):
    """atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²)."""
    y, x = ins
    r2 = E.add(E.square(x), E.square(y))
    return [E.div(x, r2) if need[0] else None, E.neg(E.div(y, r2)) if need[1] else None]


def p_copysign(E, ins, outs, need):
    """copysign(a, b) = |a| sign(b): d/da = sign(a) * s(b) with s(b) = ±1; d/db = 0."""
    a, b = ins
    if not need[0]:
        return [None, None]
    one = E.const(1.0, a)
    sa = E.v(math.CopySignOp(one, a))
    sb = E.v(math.CopySignOp(one, b))
    return [E.mul(sa, sb), None]


def p_fma(E, ins, outs, need):
    a, b, _ = ins
    return [b, a, ONE]


def p_fpowi(E, ins, outs, need):
    """a^n, n integer: d/da = n a^(n-1)."""
    a, n = ins
    if not need[0]:
        return [None, None]
    one = E.int_const(1, n.type)
    lower = E.v(math.FPowIOp(a, E.v(arith.SubiOp(n, one))))
    nf = E.v(arith.SIToFPOp(n, a.type))
    return [E.mul(nf, lower), None]


elementwise(math.Atan2Op, p_atan2)
elementwise(math.CopySignOp, p_copysign)
elementwise(math.FmaOp, p_fma)
elementwise(math.FPowIOp, p_fpowi)

# Piecewise-constant (derivative zero almost everywhere) and integer ops.
nondiff(
    math.CeilOp, math.FloorOp, math.RoundOp, math.RoundEvenOp, math.TruncOp,
    math.AbsIOp, math.CountLeadingZerosOp, math.CountTrailingZerosOp, math.CtPopOp, math.IPowIOp,
)


def p_clampf(E, ins, outs, need):
    """clampf(x, lo, hi): the cotangent goes to x inside [lo, hi] (bounds included), else to the bound."""
    x, lo, hi = ins
    one, zero = E.const(1.0, x), E.zeros(x)
    below, above = E.cmp("lt", x, lo), E.cmp("gt", x, hi)
    px = E.select(below, zero, E.select(above, zero, one)) if need[0] else None
    plo = E.select(below, one, zero) if need[1] else None
    phi = E.select(above, one, zero) if need[2] else None
    return [px, plo, phi]


elementwise(ClampFOp, p_clampf)


def _sincos_jvp(E, op, ins, outs, tangents):
    (t,) = tangents
    if t is None:
        return [None, None]
    s, c = outs
    return [E.mul(c, t), E.neg(E.mul(s, t))]


def _sincos_vjp(E, op, ins, outs, adjoints, need):
    s, c = outs
    a_sin, a_cos = adjoints
    total = E.mul(a_sin, c) if a_sin is not None else None
    if a_cos is not None:
        total = E.accumulate(total, E.neg(E.mul(a_cos, s)))
    return [total]


register(SinCosOp, _sincos_jvp, _sincos_vjp)
nondiff(*FP_CLASS_OPS)
