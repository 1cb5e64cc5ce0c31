"""Python builders of the tensor dialect: inferred result types, verification, printing."""

import io

import pytest
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.parsing import parse_module
from irtoolkit.dialects import tensor as T

from xdsl.dialects.builtin import DYNAMIC_INDEX as DYN  # noqa: E402


def _args(*types):
    """Block arguments of the given types, inside a func (so that ops can be verified)."""
    block = Block(arg_types=types)
    return block, list(block.args)


def _finish(block, ops):
    block.add_ops(ops)
    block.add_op(ReturnOp())
    func = FuncOp("f", ([a.type for a in block.args], []), Region(block))
    module = ModuleOp([func])
    module.verify()
    return module


def _text(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def test_exports():
    # the elementwise ops are the declared ones, every one in the dialect
    assert {T.AddOp, T.PowOp} <= set(T.BINARY_OPS) and {T.NegOp, T.LogisticOp} <= set(T.UNARY_OPS)
    assert set(T.BINARY_OPS) | set(T.UNARY_OPS) <= set(T.ELEMENTWISE_OPS)
    names = {op.name for op in T.Tensor.operations}
    for op in (*T.COMPUTE_OPS, *T.UPSTREAM_OPS):
        assert op.name in names
    # every op of xDSL's tensor dialect is part of ours
    from xdsl.dialects import tensor as xt

    assert {op.name for op in xt.Tensor.operations} <= names
    # upstream subclasses still match xDSL's classes
    assert issubclass(T.ExtractSliceOp, xt.ExtractSliceOp)
    assert issubclass(T.CollapseShapeOp, xt.CollapseShapeOp)


def test_compute_ops_are_pure():
    from xdsl.traits import NoMemoryEffect

    for op in T.COMPUTE_OPS:
        assert op.has_trait(NoMemoryEffect), op.name


def _element_type(cls, float_type):
    """``float_type`` where the op takes floats, else i32 (the logical ops)."""
    from irtoolkit.dialects.elementwise import ElementKind, meaning_of

    return float_type if ElementKind.FLOAT in meaning_of(cls).element_kinds() else i32


@pytest.mark.parametrize("cls", T.BINARY_OPS)
def test_binary_infers_type(cls):
    et = _element_type(cls, f32)
    block, (a, b) = _args(TensorType(et, [2, 3]), TensorType(et, [2, 3]))
    op = cls(a, b)
    assert op.result.type == TensorType(et, [2, 3])
    assert op.lhs is a and op.rhs is b
    _finish(block, [op])


def test_binary_merges_dynamic_dims():
    block, (a, b) = _args(TensorType(f32, [DYN, 3]), TensorType(f32, [4, DYN]))
    op = T.AddOp(a, b)
    assert op.result.type == TensorType(f32, [4, 3])
    module = _finish(block, [op])
    assert "tensor.add %0, %1 : (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<4x3xf32>" in _text(module)


@pytest.mark.parametrize("cls", T.UNARY_OPS)
def test_unary_infers_type(cls):
    et = _element_type(cls, f64)
    block, (a,) = _args(TensorType(et, [5]))
    op = cls(a)
    assert op.result.type == TensorType(et, [5])
    assert op.input is a
    _finish(block, [op])


def test_clamp_infers_type():
    block, (lo, x, hi) = _args(TensorType(f32, [DYN]), TensorType(f32, [4]), TensorType(f32, [4]))
    op = T.ClampOp(lo, x, hi)
    assert op.result.type == TensorType(f32, [4])
    assert (op.lo, op.input, op.hi) == (lo, x, hi)
    _finish(block, [op])


def test_cmp_and_select():
    block, (a, b) = _args(TensorType(f32, [4]), TensorType(f32, [4]))
    cmp = T.CmpOp("gt", a, b)
    assert cmp.result.type == TensorType(i1, [4])
    assert cmp.predicate.data == "gt" and cmp.predicate_name == "gt"
    sel = T.SelectOp(cmp, a, b)
    assert sel.result.type == TensorType(f32, [4])
    assert sel.cond is cmp.result and sel.true_value is a and sel.false_value is b
    text = _text(_finish(block, [cmp, sel]))
    assert "tensor.cmp gt, %0, %1 : tensor<4xf32>" in text
    assert "tensor.select %2, %0, %1 : tensor<4xi1>, tensor<4xf32>" in text


def test_cmp_rejects_unknown_predicate():
    block, (a,) = _args(TensorType(f32, [4]))
    cmp = T.CmpOp("ogt", a, a)
    with pytest.raises(VerifyException, match="unknown predicate 'ogt'"):
        cmp.verify()


def test_matmul():
    block, (a, b) = _args(TensorType(f32, [2, 3]), TensorType(f32, [3, DYN]))
    op = T.MatmulOp(a, b)
    assert op.result.type == TensorType(f32, [2, DYN])
    _finish(block, [op])


def test_matmul_contracting_mismatch():
    block, (a, b) = _args(TensorType(f32, [2, 3]), TensorType(f32, [5, 4]))
    op = T.MatmulOp(a, b)
    with pytest.raises(VerifyException, match="contracting dimensions differ: 3 vs 5"):
        op.verify()


def test_transpose():
    block, (a,) = _args(TensorType(f32, [2, 3, 4]))
    op = T.TransposeOp(a, [2, 0, 1])
    assert op.result.type == TensorType(f32, [4, 2, 3])
    assert op.permutation.get_values() == (2, 0, 1)
    _finish(block, [op])


def test_broadcast_needs_result_type():
    block, (a,) = _args(TensorType(f32, [3]))
    op = T.BroadcastOp(a, [1], TensorType(f32, [2, 3]))
    assert op.dimensions.get_values() == (1,)
    _finish(block, [op])
    bad = T.BroadcastOp(a, [0], TensorType(f32, [2, 3]))
    with pytest.raises(VerifyException, match="cannot be broadcast"):
        bad.verify()


def test_broadcast_size_one_expands():
    block, (a,) = _args(TensorType(f32, [1, 3]))
    op = T.BroadcastOp(a, [0, 1], TensorType(f32, [7, 3]))
    _finish(block, [op])


@pytest.mark.parametrize("cls", [T.ReduceSumOp, T.ReduceMaxOp])
def test_reduce(cls):
    block, (a,) = _args(TensorType(f32, [2, DYN, 4]))
    op1 = cls(a, [1])
    assert op1.result.type == TensorType(f32, [2, 4])
    op2 = cls(a, [0, 1, 2])
    assert op2.result.type == TensorType(f32, [])
    _finish(block, [op1, op2])


def test_convert():
    block, (a,) = _args(TensorType(f32, [DYN, 2]))
    op = T.ConvertOp(a, f64)
    assert op.result.type == TensorType(f64, [DYN, 2])
    op2 = T.ConvertOp(a, TensorType(i32, [3, 2]))
    assert op2.result.type == TensorType(i32, [3, 2])
    _finish(block, [op, op2])


def test_integer_arith_allowed_but_not_div():
    block, (a,) = _args(TensorType(i64, [3]))
    T.AddOp(a, a).verify()
    T.MaxOp(a, a).verify()
    with pytest.raises(VerifyException, match="requires float element type, got i64"):
        T.DivOp(a, a).verify()
    with pytest.raises(VerifyException, match="requires float element type, got i64"):
        T.ExpOp(a).verify()


def test_zero_d():
    block, (a,) = _args(TensorType(f64, []))
    ops = [T.MulOp(a, a), T.ExpOp(a), T.CmpOp("lt", a, a)]
    ops.append(T.BroadcastOp(a, [], TensorType(f64, [3])))
    assert ops[2].result.type == TensorType(i1, [])
    _finish(block, ops)


def test_upstream_builders():
    block, (t,) = _args(TensorType(f32, [2, 3]))
    collapse = T.CollapseShapeOp(t, [[0, 1]], TensorType(f32, [6]))
    expand = T.ExpandShapeOp(collapse.result, [], [[0, 1]], [3, 2], TensorType(f32, [3, 2]))
    module = _finish(block, [collapse, expand])
    text = _text(module)
    assert "tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>" in text
    assert "[[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>" in text


def test_parsed_ops_are_our_classes():
    module = parse_module(
        """
        func.func @f(%t: tensor<8x4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
          %s = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
          %r = tensor.add %s, %a : tensor<4xf32>
          return %r : tensor<4xf32>
        }
        """
    )
    kinds = {type(op) for op in module.walk()}
    assert T.ExtractSliceOp in kinds and T.AddOp in kinds


def test_parse_error_is_located():
    with pytest.raises(DiagnosticError) as info:
        parse_module(
            "func.func @f(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {\n"
            "  %c = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>\n"
            "  return\n}\n",
            "m.mlir",
        )
    assert info.value.message == "'tensor.matmul' op contracting dimensions differ: 3 vs 5"
    assert info.value.location.line == 2


def test_folding_materializes_arith_constants():
    from irtoolkit.pipeline import run_pipeline

    module = parse_module(
        """
        func.func @f() -> tensor<3xf32> {
          %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
          %b = tensor.mul %a, %a : tensor<3xf32>
          %c = tensor.neg %b : tensor<3xf32>
          return %c : tensor<3xf32>
        }
        """
    )
    run_pipeline(module, "canonicalize")
    consts = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert not any(op.name.startswith("tensor.") for op in module.walk())
    assert len(consts) == 1
    value = consts[0].value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    assert value.get_values() == (-1.0, -4.0, -9.0)


def _print(module, generic=False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def test_ops_file_round_trips_exactly():
    import os

    path = os.path.join(os.path.dirname(__file__), "ops.mlir")
    text = open(path).read()
    custom = _print(parse_module(text, path))
    assert _print(parse_module(custom)) == custom
    generic = _print(parse_module(text, path), generic=True)
    assert '"tensor.cmp"' in generic and "permutation = array<i64: 1, 0>" in generic
    assert _print(parse_module(generic)) == custom
    assert _print(parse_module(generic), generic=True) == generic
