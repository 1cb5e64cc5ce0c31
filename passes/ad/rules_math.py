"""Derivative rules of the `math` dialect (scalars).

The float ops need none: their rules come from the partial derivatives of
their declarations (``irtoolkit/dialects/scalar.py``), and the piecewise
constant ones (floor, ceil, round ...) are declared non-differentiable there.
"""

from __future__ import annotations

from xdsl.dialects import math

from irtoolkit.dialects.math import FP_CLASS_OPS, ClampFOp, SinCosOp
from irtoolkit.ties import clamp_weights
from irtoolkit.passes.ad.rules import jvp_from_partials, nondiff, register, vjp_from_partials

# Integer ops.
nondiff(math.AbsIOp, math.CountLeadingZerosOp, math.CountTrailingZerosOp, math.CtPopOp, math.IPowIOp)


def p_clampf(E, ins, outs, need):
    """clampf(x, lo, hi): the cotangent goes to x inside [lo, hi] (bounds included), else to
    the bound (SPEC §6, irtoolkit.ties)."""
    x, lo, hi = ins
    w_lo, w_x, w_hi = clamp_weights(E, lo, x, hi)
    return [w_x if need[0] else None, w_lo if need[1] else None, w_hi if need[2] else None]


register(ClampFOp, jvp_from_partials(p_clampf), vjp_from_partials(p_clampf))


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
