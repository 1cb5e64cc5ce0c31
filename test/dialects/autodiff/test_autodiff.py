"""autodiff dialect: Python builders, helper methods and custom-rule checks."""

from io import StringIO

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType, f32, f64
from xdsl.ir import Block, Region
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.dialects.autodiff import (
    GradOp,
    JvpOp,
    StopGradientOp,
    ValueAndGradOp,
    VjpOp,
    verify_custom_rules,
    verify_function_attributes,
)
from irtoolkit.parsing import parse_module

T4 = TensorType(f64, [4])


def _identity_func(name, arg_types, result_types):
    block = Block(arg_types=arg_types)
    block.add_op(func.ReturnOp(*block.args[: len(result_types)]))
    return func.FuncOp(name, (arg_types, result_types), Region(block))


def _text(op) -> str:
    s = StringIO()
    Printer(stream=s).print_op(op)
    return s.getvalue()


def test_builders_infer_result_types_and_roundtrip():
    loss = _identity_func("loss", [TensorType(f64, []), IndexType(), T4], [TensorType(f64, [])])
    f = _identity_func("f", [T4, f32], [T4])
    block = Block(arg_types=[TensorType(f64, []), IndexType(), T4, f32])
    s, n, x, y = block.args
    g = GradOp(loss, [s, n, x])
    vg = ValueAndGradOp(loss, [s, n, x], wrt=[2])
    vjp = VjpOp(f, [x, y], [x])
    jvp = JvpOp(f, [x, y], [y], wrt=[1])
    sg = StopGradientOp(x)
    block.add_ops([g, vg, vjp, jvp, sg, func.ReturnOp()])
    main = func.FuncOp("main", ([b.type for b in block.args], []), Region(block))
    module = ModuleOp([loss, f, main])
    module.verify()

    assert [r.type for r in g.grads] == [TensorType(f64, []), T4]
    assert g.wrt is None and g.wrt_positions() == [0, 2]
    assert vg.wrt_positions() == [2] and vg.value.type == TensorType(f64, [])
    assert [r.type for r in vg.grads] == [T4]
    assert [r.type for r in vjp.outs] == [T4, T4, f32]
    assert vjp.cotangents[0] is x and list(vjp.derivative_results) == list(vjp.outs[1:])
    assert [r.type for r in jvp.outs] == [T4, T4] and jvp.tangents[0] is y
    assert list(jvp.primal_results) == [jvp.outs[0]]
    assert sg.result.type == T4
    assert g.callee_name == "loss" and g.lookup_callee() is loss

    text = _text(module)
    assert "autodiff.grad @loss(" in text and "wrt [2]" in text
    assert _text(parse_module(text)) == text


def test_name_callee_needs_result_types():
    block = Block(arg_types=[f64])
    with pytest.raises(ValueError):
        GradOp("loss", [block.args[0]])
    g = GradOp("loss", [block.args[0]], result_types=[f64])
    assert g.callee_name == "loss"


def test_wrong_builder_types_fail_verification():
    loss = _identity_func("loss", [f64], [f64])
    block = Block(arg_types=[f64])
    g = GradOp("loss", [block.args[0]], result_types=[f32])
    block.add_ops([g, func.ReturnOp()])
    module = ModuleOp([loss, func.FuncOp("main", ([f64], []), Region(block))])
    with pytest.raises(VerifyException, match=r"result types \(f32\) do not match the expected \(f64\)"):
        module.verify()


RULES = """
func.func @sq(%x: f64, %k: index) -> f64 attributes {autodiff.custom_vjp = @sq_vjp, autodiff.custom_jvp = @sq_jvp} {
  return %x : f64
}
func.func @sq_vjp(%x: f64, %k: index, %dy: f64) -> f64 {
  return %dy : f64
}
func.func @sq_jvp(%x: f64, %k: index, %tx: f64) -> (f64, f64) {
  return %x, %tx : f64, f64
}
"""


def test_custom_rules_accepted():
    m = parse_module(RULES)
    verify_custom_rules(m)


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("-> f64 {\n  return %dy : f64", "-> (f64, f64) {\n  return %dy, %dy : f64, f64",
         "attribute 'autodiff.custom_vjp' rule @sq_vjp has type (f64, index, f64) -> (f64, f64) but must have type "
         "(f64, index, f64) -> f64"),
        ("%k: index, %tx: f64) -> (f64, f64)", "%k: index, %tx: f64, %tk: index) -> (f64, f64)",
         "attribute 'autodiff.custom_jvp' rule @sq_jvp has type (f64, index, f64, index) -> (f64, f64) but must have type "
         "(f64, index, f64) -> (f64, f64)"),
        ("custom_vjp = @sq_vjp", "custom_vjp = @missing",
         "attribute 'autodiff.custom_vjp' references @missing, which is not in the symbol table"),
        ("custom_jvp = @sq_jvp", "custom_jvp = 3",
         "attribute 'autodiff.custom_jvp' must be a flat symbol reference, got 3 : i64"),
    ],
)
def test_custom_rules_rejected(old, new, message):
    text = RULES.replace(old, new)
    assert text != RULES
    m = parse_module(text, "rules.mlir", verify=False)
    with pytest.raises(DiagnosticError) as err:
        verify_custom_rules(m)
    assert err.value.message.startswith(f"'func.func' op {message}")
    assert err.value.location is not None and err.value.location.line == 2
    # the module verifier (run by parse) reports the same error
    with pytest.raises(DiagnosticError) as err:
        parse_module(text, "rules.mlir")
    assert err.value.message.startswith(f"'func.func' op {message}")


def test_verify_function_attributes_ignores_plain_functions():
    m = parse_module(RULES)
    for op in m.ops:
        verify_function_attributes(op)
