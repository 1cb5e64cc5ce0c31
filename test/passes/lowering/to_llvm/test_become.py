"""``become`` (an op lowered by changing its class where it stands) gives the
module xDSL gives when the op is built by ``cls.create`` and replaces the old one."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func, llvm, math
from xdsl.dialects.builtin import IndexType, ModuleOp, VectorType, f64
from xdsl.ir import Block, Region
from xdsl.rewriter import Rewriter

from irtoolkit.passes.lowering.to_llvm.common import (
    Lowering,
    become,
    call_properties,
    float_properties,
    intrinsic_properties,
)
from irtoolkit.printer import module_text

V4 = VectorType(f64, [4])


def _module(make_op, t):
    """A function of two ``t`` arguments: ``make_op(a, b)``, then a use of its result."""
    block = Block(arg_types=[t, t])
    a, b = block.args
    op = make_op(a, b)
    op.results[0].name_hint = "r"
    use = arith.AddfOp(op.results[0], op.results[0]) if t != IndexType() else arith.AddiOp(op.results[0], a)
    block.add_ops([op, use, func.ReturnOp(use.results[0])])
    f = func.FuncOp("f", ((t, t), (t,)), Region(block))
    return ModuleOp([f]), op


CASES = [
    (lambda a, b: arith.AddfOp(a, b), llvm.FAddOp, lambda a, b, r: float_properties(None)),
    (lambda a, b: arith.MulfOp(a, b, arith.FastMathFlagsAttr("fast")), llvm.FMulOp,
     lambda a, b, r: float_properties(llvm.FastMathAttr("fast"))),
    (lambda a, b: math.PowFOp(a, b), llvm.CallIntrinsicOp,
     lambda a, b, r: intrinsic_properties("llvm.pow.f64", 2)),
    (lambda a, b: math.PowFOp(a, b), llvm.CallOp, lambda a, b, r: call_properties("pow", [a, b], r)),
]


@pytest.mark.parametrize("t", [f64, V4])
@pytest.mark.parametrize("make_op, cls, properties", CASES)
def test_become_is_create_and_replace(make_op, cls, properties, t):
    converted, op = _module(make_op, t)
    a, b = op.operands
    become(op, cls, properties(a, b, t))

    expected, old = _module(make_op, t)
    a, b = old.operands
    new = cls.create(operands=[a, b], result_types=[t], properties=properties(a, b, t))
    Rewriter.replace_op(old, new)

    assert type(op) is cls
    assert list(op.properties.items()) == list(new.properties.items())  # (in the same order)
    assert op.attributes == new.attributes
    assert [r.type for r in op.results] == [r.type for r in new.results]
    assert [u.operation.name for u in op.results[0].uses] == [u.operation.name for u in new.results[0].uses]
    assert module_text(converted) == module_text(expected)
    assert module_text(converted, generic=True) == module_text(expected, generic=True)
    assert _verified(converted) == _verified(expected)  # (the call's callee is undeclared: the same error)


def _verified(module: ModuleOp) -> str | None:
    try:
        module.verify()
    except Exception as err:  # noqa: BLE001 - compared, not handled
        return str(err)
    return None


def test_types_kept_only_when_no_type_changes():
    _, float_op = _module(lambda a, b: arith.AddfOp(a, b), V4)
    _, index_op = _module(lambda a, b: arith.AddiOp(a, b), IndexType())
    assert Lowering(float_op).types_kept()
    assert not Lowering(index_op).types_kept()  # (index is i64 in LLVM)
