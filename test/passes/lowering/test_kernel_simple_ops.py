"""Kernels build a member's scalar op with ``build_simple_op`` only for classes whose
own constructor was seen to make that op (``kernel._builds_simply``): a class whose
constructor sets properties of its own, or another result type, is built by it."""

from __future__ import annotations

from xdsl.dialects import arith, builtin, math
from xdsl.ir import Block

from irtoolkit.passes.lowering.kernel import _builds_simply


def test_builds_simply_only_where_the_constructor_makes_the_same_op():
    block = Block(arg_types=[builtin.f64, builtin.f64, builtin.i1])
    a, b, c = block.args
    assert _builds_simply(arith.AddfOp(a, b), builtin.f64)
    assert _builds_simply(math.TanhOp(a), builtin.f64)
    assert _builds_simply(arith.SelectOp(c, a, b), builtin.f64)
    # a property of its own (the predicate): built by its constructor
    assert not _builds_simply(arith.CmpfOp(a, b, "olt"), builtin.i1)
    # a result type other than the member's element type
    assert not _builds_simply(arith.AddfOp(a, b), builtin.f32)
    # non-default flags
    assert not _builds_simply(arith.AddfOp(a, b, arith.FastMathFlagsAttr("fast")), builtin.f64)
