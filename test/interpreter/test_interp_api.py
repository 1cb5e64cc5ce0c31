"""The interpreter's public contract: rule coverage, argument checks, result types, autodiff."""

from __future__ import annotations

import numpy as np
import pytest
from interp_helpers import run_ir

import irtoolkit as irt
from irtoolkit.context import _load
from irtoolkit.interpreter import has_rule, interpret_function

# Ops of loaded dialects that need no rule, and why.
EXCLUDED = {
    "func.func": "a symbol definition: functions are entered through interpret_function/func.call",
    "memref.global": "a symbol definition: its data is read through memref.get_global",
    "memref.dma_start": "hardware DMA; nothing in irtoolkit produces it",
    "memref.dma_wait": "hardware DMA; nothing in irtoolkit produces it",
}

COVERED_DIALECTS = ("func", "arith", "math", "tensor", "loop", "memref", "cf", "scf", "autodiff", "stablehlo", "chlo")


@pytest.mark.parametrize("dialect", COVERED_DIALECTS)
def test_every_op_has_an_interpreter_rule(dialect):
    from irtoolkit.context import DIALECTS

    d = _load(DIALECTS[dialect])
    missing = [op.name for op in d.operations if op.name not in EXCLUDED and not has_rule(op)]
    if dialect == "autodiff":
        # grad/vjp/jvp are expanded by the `ad` pass first; stop_gradient runs as the identity
        missing = [n for n in missing if n == "autodiff.stop_gradient"]
    assert not missing, f"ops of '{dialect}' without an interpreter rule: {missing}"


def test_upstream_tensor_classes_are_covered_too():
    # ops built by xDSL's own patterns use xDSL's classes, which ours subclass
    from xdsl.dialects.tensor import Tensor as UpstreamTensor

    missing = [op.name for op in UpstreamTensor.operations if not has_rule(op)]
    assert not missing, missing


def test_tensor_compute_op_tables_are_covered():
    import irtoolkit.dialects.tensor as T

    for cls in (*T.BINARY_OPS, *T.UNARY_OPS, *T.ELEMENTWISE_OPS):
        assert has_rule(cls), cls.name


ADD = """
func.func @f(%a: tensor<2xf32>, %s: f64, %i: index) -> (tensor<2xf32>, f64, index) {
  %r = tensor.add %a, %a : tensor<2xf32>
  return %r, %s, %i : tensor<2xf32>, f64, index
}
func.func @none() {
  return
}
func.func @one(%x: tensor<f64>) -> tensor<f64> {
  return %x : tensor<f64>
}
func.func @scalars(%a: f32, %b: i1, %c: i8, %d: i32) -> (f32, i1, i8, i32) {
  return %a, %b, %c, %d : f32, i1, i8, i32
}"""


def test_result_conventions():
    a = np.array([1.0, 2.0], np.float32)
    r, s, i = run_ir(ADD, "f", a, 2.5, 3)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    assert type(s) is np.float64 and type(i) is np.int64
    assert run_ir(ADD, "none") is None
    one = run_ir(ADD, "one", np.array(4.0))
    assert isinstance(one, np.ndarray) and one.shape == () and one.dtype == np.float64
    res = run_ir(ADD, "scalars", 1.5, True, -3, 7)
    assert [type(v) for v in res] == [np.float32, np.bool_, np.int8, np.int32]


def test_returned_arrays_are_fresh_and_arguments_untouched():
    x = np.array(4.0)
    out = run_ir(ADD, "one", x)
    assert out is not x and not np.shares_memory(out, x)
    out[...] = 1.0
    assert x == 4.0


@pytest.mark.parametrize("args,match", [
    ((np.zeros(2, np.float32), 1.0), "takes 3 argument"),
    ((np.zeros(2, np.float64), 1.0, 1), "expected dtype float32"),
    ((np.zeros(3, np.float32), 1.0, 1), r"expected shape \(2,\)"),
    ((np.zeros((2, 1), np.float32), 1.0, 1), r"expected shape \(2,\)"),
    ((np.zeros(2, np.float32), "x", 1), "expected a float"),
    ((np.zeros(2, np.float32), 1.0, 1.5), "expected an integer"),
    ((np.zeros(2, np.float32), np.zeros(2), 1), "expected a scalar"),
])
def test_argument_mismatch_is_a_clear_error(args, match):
    with pytest.raises(irt.DiagnosticError, match=match) as info:
        run_ir(ADD, "f", *args)
    assert isinstance(info.value, TypeError)
    assert "'@f'" in str(info.value)


def test_scalar_argument_range_and_kinds():
    with pytest.raises(irt.DiagnosticError, match="does not fit"):
        run_ir(ADD, "scalars", 1.0, True, 300, 1)
    res = run_ir(ADD, "scalars", np.float32(0.25), np.bool_(False), np.int64(5), 2 ** 31 - 1)
    assert res == (0.25, False, 5, 2 ** 31 - 1)
    # Python/numpy floats of another width are rounded to the declared type
    assert type(run_ir(ADD, "scalars", np.float64(0.1), 1, 1, 1)[0]) is np.float32


def test_unknown_function():
    with pytest.raises(irt.DiagnosticError, match="no function named 'nope'"):
        run_ir(ADD, "nope")


def test_public_api_matches_the_interpreter():
    m = irt.parse(ADD)
    a = np.array([1.0, 2.0], np.float32)
    r, s, i = irt.interpret(m, "f", a, 2.5, 3)
    np.testing.assert_array_equal(r, [2.0, 4.0])


AD = """
func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %p = tensor.mul %x, %w : tensor<4xf64>
  %t = tensor.tanh %p : tensor<4xf64>
  %s = tensor.reduce_sum %t [0] : tensor<4xf64> -> tensor<f64>
  %c = tensor.extract %s[] : tensor<f64>
  return %c : f64
}
func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> (f64, tensor<4xf64>) {
  %l, %dw = autodiff.value_and_grad @loss(%x, %w) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (f64, tensor<4xf64>)
  %s = autodiff.stop_gradient %l : f64
  return %s, %dw : f64, tensor<4xf64>
}"""


def test_autodiff_ops_are_expanded_on_a_copy():
    m = irt.parse(AD)
    before = str(m)
    x = np.linspace(-1.0, 1.0, 4)
    w = np.array([0.5, 1.0, 1.5, 2.0])
    loss, dw = interpret_function(m, "main", x, w, check_types=True)
    assert type(loss) is np.float64
    np.testing.assert_allclose(loss, np.tanh(x * w).sum(), rtol=1e-14)
    np.testing.assert_allclose(dw, x * (1 - np.tanh(x * w) ** 2), rtol=1e-12)
    assert str(m) == before  # the module given is unchanged


def test_stop_gradient_alone_is_the_identity():
    ir = """
func.func @f(%x: f64) -> f64 {
  %s = autodiff.stop_gradient %x : f64
  return %s : f64
}"""
    assert run_ir(ir, "f", 1.25) == 1.25


def test_runtime_errors_are_located_diagnostics():
    ir = """
func.func @f(%t: tensor<?xf32>, %n: index) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty(%n) : tensor<?x3xf32>
  return %e : tensor<?x3xf32>
}"""
    with pytest.raises(irt.DiagnosticError) as info:
        run_ir(ir, "f", np.zeros(2, np.float32), -1)
    assert "'tensor.empty' op" in str(info.value)
    assert info.value.location is not None and info.value.location.line == 4


def test_an_op_without_rule_fails_only_when_reached():
    ir = """
func.func @f(%c: i1) -> f64 {
  %one = arith.constant 1.0 : f64
  loop.if %c {
    %z = llvm.mlir.zero : !llvm.ptr
  }
  return %one : f64
}"""
    assert run_ir(ir, "@f", False) == 1.0
    with pytest.raises(irt.DiagnosticError, match="'llvm.mlir.zero' op has no interpreter rule") as info:
        run_ir(ir, "f", True)
    assert info.value.location.line == 5
