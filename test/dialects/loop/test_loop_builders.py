"""Python builders of the loop dialect build IR that verifies and prints as expected."""

from io import StringIO

import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IndexType, ModuleOp, f64, i1
from xdsl.ir import Block
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from irtoolkit.dialects.loop import (
    ConditionOp,
    ForOp,
    IfOp,
    ParallelOp,
    ReduceOp,
    WhileOp,
    YieldOp,
)
from irtoolkit.parsing import parse_module


def _function(arg_types, build):
    block = Block(arg_types=arg_types)
    ret = build(block, *block.args)
    block.add_op(func.ReturnOp(*ret))
    f = func.FuncOp("f", (arg_types, [v.type for v in ret]), region=_region(block))
    return ModuleOp([f])


def _region(block):
    from xdsl.ir import Region

    return Region(block)


def _text(op) -> str:
    s = StringIO()
    Printer(stream=s).print_op(op)
    return s.getvalue()


def _roundtrip(module):
    module.verify()
    text = _text(module)
    assert _text(parse_module(text)) == text
    return text


def test_for_from_callable():
    def build(block, lb, ub, step, x):
        def body(iv, acc):
            return arith.AddfOp(acc, acc).result

        op = ForOp.from_callable(lb, ub, step, [x], body)
        block.add_op(op)
        assert op.induction_var.type == IndexType()
        assert op.region_iter_args[0].type == f64
        assert isinstance(op.yield_op, YieldOp)
        return [op.res[0]]

    text = _roundtrip(_function([IndexType()] * 3 + [f64], build))
    assert "loop.for" in text and "iter_args(" in text and "loop.yield" in text


def test_for_without_iter_args_gets_implicit_yield():
    def build(block, lb, ub, step):
        op = ForOp(lb, ub, step, [], Block(arg_types=[IndexType()]))
        block.add_op(op)
        assert isinstance(op.body.block.last_op, YieldOp)
        return []

    text = _roundtrip(_function([IndexType()] * 3, build))
    assert "loop.yield" not in text


def test_if_from_callables():
    def build(block, c, a, b):
        op = IfOp.from_callables(c, [f64], lambda: [a], lambda: arith.MulfOp(a, b))
        block.add_op(op)
        return [op.output[0]]

    text = _roundtrip(_function([i1, f64, f64], build))
    assert "loop.if" in text and "} else {" in text


def test_while_from_callables():
    def build(block, x, limit):
        def before(v):
            c = arith.CmpfOp(v, limit, "olt")
            return c, [v]

        def after(v):
            two = arith.ConstantOp(FloatAttr(2.0, f64))
            return arith.MulfOp(v, two)

        op = WhileOp.from_callables([x], [f64], before, after)
        block.add_op(op)
        assert isinstance(op.condition_op, ConditionOp)
        return [op.res[0]]

    text = _roundtrip(_function([f64, f64], build))
    assert "loop.while (%" in text and "loop.condition(" in text


def test_parallel_with_reduce():
    def build(block, lb, ub, step, z):
        body = Block(arg_types=[IndexType()])
        with_reduce = ReduceOp.from_callables([z], [lambda l, r: arith.AddfOp(l, r)])
        body.add_op(with_reduce)
        op = ParallelOp([lb], [ub], [step], body, [z])
        block.add_op(op)
        return [op.res[0]]

    text = _roundtrip(_function([IndexType()] * 3 + [f64], build))
    assert "loop.parallel (%" in text and "init (%" in text and "loop.reduce.return" in text


def test_wrong_yield_is_rejected():
    def build(block, c, a, b):
        op = IfOp.from_callables(c, [f64], lambda: [a], lambda: [])
        block.add_op(op)
        return [op.output[0]]

    with pytest.raises(VerifyException, match="yields 0 values"):
        _function([i1, f64, f64], build).verify()
