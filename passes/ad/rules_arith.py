"""Derivative rules of the `arith` dialect (scalars).

The elementwise partials defined here are shared with the `tensor` dialect's
elementwise ops (see rules_tensor.py): one description, both dialects.
"""

from __future__ import annotations

from xdsl.dialects import arith

from irtoolkit.dialects.arith import IndexCastUIOp, RemFOp
from irtoolkit.passes.ad.rules import NEG_ONE, ONE, elementwise, linear_unary, nondiff, register


# -- partials shared by scalar and tensor elementwise ops -----------------------
def p_add(E, ins, outs, need):
    return [ONE, ONE]


def p_sub(E, ins, outs, need):
    return [ONE, NEG_ONE]


def p_mul(E, ins, outs, need):
    a, b = ins
    return [b, a]


def p_div(E, ins, outs, need):
    a, b = ins
    (y,) = outs
    ra = E.recip(b) if need[0] else None
    rb = E.neg(E.div(y, b)) if need[1] else None
    return [ra, rb]


def p_max(E, ins, outs, need):
    """d max(a, b): 1 to a where a >= b, else to b (NaN propagates through the value)."""
    a, b = ins
    one, zero = E.const(1.0, a), E.zeros(a)
    mask = E.cmp("ge", a, b)
    pa = E.select(mask, one, zero) if need[0] else None
    pb = E.select(mask, zero, one) if need[1] else None
    return [pa, pb]


def p_min(E, ins, outs, need):
    a, b = ins
    one, zero = E.const(1.0, a), E.zeros(a)
    mask = E.cmp("le", a, b)
    pa = E.select(mask, one, zero) if need[0] else None
    pb = E.select(mask, zero, one) if need[1] else None
    return [pa, pb]


def p_pow(E, ins, outs, need):
    """d a^b: b a^(b-1) and a^b log a (0 where a == 0, as JAX)."""
    a, b = ins
    (y,) = outs
    pa = pb = None
    if need[0]:
        pa = E.mul(b, E.pow(a, E.sub(b, E.const(1.0, b))))
    if need[1]:
        zero = E.zeros(a)
        safe = E.select(E.cmp("eq", a, zero), E.const(1.0, a), a)
        pb = E.mul(y, E.log(safe))
    return [pa, pb]


def p_rem(E, ins, outs, need):
    """d fmod(a, b) = da - trunc(a / b) db, where trunc(a / b) = (a - fmod(a, b)) / b."""
    a, b = ins
    (y,) = outs
    return [ONE, E.neg(E.div(E.sub(a, y), b)) if need[1] else None]


def p_neg(E, ins, outs, need):
    return [NEG_ONE]


def p_exp(E, ins, outs, need):
    return [outs[0]]


def p_log(E, ins, outs, need):
    return [E.recip(ins[0])]


def p_sqrt(E, ins, outs, need):
    (y,) = outs
    return [E.div(E.const(0.5, y), y)]


def p_tanh(E, ins, outs, need):
    (y,) = outs
    return [E.sub(E.const(1.0, y), E.square(y))]


def p_sin(E, ins, outs, need):
    return [E.cos(ins[0])]


def p_cos(E, ins, outs, need):
    return [E.neg(E.sin(ins[0]))]


def p_abs(E, ins, outs, need):
    return [E.sign(ins[0])]


def p_logistic(E, ins, outs, need):
    (y,) = outs
    return [E.mul(y, E.sub(E.const(1.0, y), y))]


# -- arith ---------------------------------------------------------------------
elementwise(arith.AddfOp, p_add)
elementwise(arith.SubfOp, p_sub)
elementwise(arith.MulfOp, p_mul)
elementwise(arith.DivfOp, p_div)
elementwise(RemFOp, p_rem)
elementwise(arith.NegfOp, p_neg)
elementwise(arith.MaximumfOp, p_max)
elementwise(arith.MaxnumfOp, p_max)
elementwise(arith.MinimumfOp, p_min)
elementwise(arith.MinnumfOp, p_min)


def _select_jvp(E, op, ins, outs, tangents):
    c, a, b = ins
    _, ta, tb = tangents
    if ta is None and tb is None:
        return [None]
    ta = ta if ta is not None else E.zeros(a)
    tb = tb if tb is not None else E.zeros(b)
    return [E.select(c, ta, tb)]


def _select_vjp(E, op, ins, outs, adjoints, need):
    c, a, b = ins
    (adj,) = adjoints
    zero = E.zeros(adj)
    return [
        None,
        E.select(c, adj, zero) if need[1] else None,
        E.select(c, zero, adj) if need[2] else None,
    ]


register(arith.SelectOp, _select_jvp, _select_vjp)


def _float_cast(cls_fwd, cls_bwd):
    linear_unary(
        cls_fwd,
        lambda E, op, t, ins, outs: E.v(cls_fwd(t, outs[0].type)),
        lambda E, op, a, ins, outs: E.v(cls_bwd(a, ins[0].type)),
    )


_float_cast(arith.ExtFOp, arith.TruncFOp)
_float_cast(arith.TruncFOp, arith.ExtFOp)


# Not differentiable: constants, compares, every integer/index op, and the
# conversions between integers and floats (piecewise constant or integer-valued).
nondiff(
    arith.ConstantOp,
    arith.CmpfOp, arith.CmpiOp,
    arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivUIOp, arith.DivSIOp,
    arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp, arith.RemUIOp, arith.RemSIOp,
    arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp,
    arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp,
    arith.AddUIExtendedOp, arith.MulUIExtendedOp, arith.MulSIExtendedOp,
    arith.BitcastOp, arith.IndexCastOp,
    arith.FPToSIOp, arith.FPToUIOp, arith.SIToFPOp, arith.UIToFPOp,
    arith.TruncIOp, arith.ExtSIOp, arith.ExtUIOp,
)
nondiff(IndexCastUIOp)
