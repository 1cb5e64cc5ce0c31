"""Derivative rules of the `arith` dialect (scalars).

The elementwise float ops (addf ... minnumf) need none: their rules come from
the partial derivatives of their declarations (``irtoolkit/dialects/scalar.py``),
which the `tensor` dialect's elementwise ops share; the integer ops declared
there are non-differentiable.
"""

from __future__ import annotations

from xdsl.dialects import arith

from irtoolkit.dialects.arith import IndexCastUIOp
from irtoolkit.passes.ad.rules import linear_unary, nondiff, register


def select_jvp(E, op, ins, outs, tangents):
    c, a, b = ins
    _, ta, tb = tangents
    if ta is None and tb is None:
        return [None]
    ta = ta if ta is not None else E.zeros(a)
    tb = tb if tb is not None else E.zeros(b)
    return [E.select(c, ta, tb)]


def select_vjp(E, op, ins, outs, adjoints, need):
    c, a, b = ins
    (adj,) = adjoints
    zero = E.zeros(adj)
    return [
        None,
        E.select(c, adj, zero) if need[1] else None,
        E.select(c, zero, adj) if need[2] else None,
    ]


register(arith.SelectOp, select_jvp, select_vjp)


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
    arith.DivUIOp, arith.DivSIOp,
    arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp, arith.RemUIOp, arith.RemSIOp,
    arith.MinUIOp, arith.MaxUIOp, arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp,
    arith.AddUIExtendedOp, arith.MulUIExtendedOp, arith.MulSIExtendedOp,
    arith.BitcastOp, arith.IndexCastOp,
    arith.FPToSIOp, arith.FPToUIOp, arith.SIToFPOp, arith.UIToFPOp,
    arith.TruncIOp, arith.ExtSIOp, arith.ExtUIOp,
)
nondiff(IndexCastUIOp)
