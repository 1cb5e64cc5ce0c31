"""Control flow, calls, custom rules, checkpointing and nesting vs finite differences / closed forms."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp  # noqa: E402

FOR = """
func.func @p(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.addf %s, %x : f64
    loop.yield %t : f64
  }
  return %r : f64
}
"""


@pytest.mark.parametrize("n", [0, 1, 5])
def test_for_trip_counts(n):
    args = [np.float64(0.5), n]
    check_grad(FOR, "p", ["f64", "index"], args, wrt=[0])
    check_jvp(FOR, "p", ["f64", "index"], ["f64"], args, wrt=[0])


IF = """
func.func @g(%x: f64, %y: f64) -> f64 {
  %z = arith.constant 0.0 : f64
  %c = arith.cmpf ogt, %x, %z : f64
  %r = loop.if %c -> (f64) {
    %a = arith.mulf %x, %y : f64
    %s = math.sin %a : f64
    loop.yield %s : f64
  } else {
    %b = math.exp %y : f64
    loop.yield %b : f64
  }
  %q = arith.mulf %r, %x : f64
  return %q : f64
}
"""


@pytest.mark.parametrize("x", [0.5, -0.5])
def test_if_on_data(x):
    args = [np.float64(x), np.float64(0.3)]
    check_grad(IF, "g", ["f64", "f64"], args)
    check_jvp(IF, "g", ["f64", "f64"], ["f64"], args)


WHILE = """
func.func @w(%x: f64, %y: f64) -> f64 {
  %lim = arith.constant 10.0 : f64
  %r = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %lim : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %y : f64
    loop.yield %n : f64
  }
  return %r : f64
}
"""


@pytest.mark.parametrize("x", [0.7, 3.0, 11.0])  # several trip counts, including 0
def test_while_data_dependent_trip_count(x):
    args = [np.float64(x), np.float64(1.7)]
    check_grad(WHILE, "w", ["f64", "f64"], args)
    check_jvp(WHILE, "w", ["f64", "f64"], ["f64"], args)


def test_while_tape_is_dynamic():
    m = irt.parse(add_grad(WHILE, "w", ["f64", "f64"], [0, 1]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    text = str(m)
    assert "tensor<?xf64>" in text and "tensor.empty(" in text


CALL = """
func.func @sq(%x: f64, %k: i64) -> f64 {
  %a = arith.mulf %x, %x : f64
  return %a : f64
}
func.func @h(%x: f64, %y: f64) -> f64 {
  %k = arith.constant 3 : i64
  %a = func.call @sq(%x, %k) : (f64, i64) -> f64
  %b = arith.mulf %a, %y : f64
  %c = func.call @sq(%b, %k) : (f64, i64) -> f64
  return %c : f64
}
"""


def test_calls():
    args = [np.float64(0.5), np.float64(0.3)]
    m = check_grad(CALL, "h", ["f64", "f64"], args)
    check_jvp(CALL, "h", ["f64", "f64"], ["f64"], args)
    irt.run_pipeline(m, "ad")
    names = [op.sym_name.data for op in m.body.block.ops]
    assert names.count("sq_vjp_0") == 1  # generated once, reused by both calls


RNN = open(os.path.join(os.path.dirname(__file__), "Inputs", "rnn.mlir")).read()


def test_rnn_gradient_and_tape_size():
    rng = np.random.default_rng(0)
    types = ["tensor<3x3xf64>", "tensor<4x3xf64>", "tensor<3xf64>"]
    args = [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((4, 3)), rng.standard_normal(3)]
    m = check_grad(RNN, "rnn", types, args)
    irt.run_pipeline(m, "ad,canonicalize,cse")
    # only the hidden state is stored, once per iteration: one tape of 4x3;
    # the weights (loop-invariant) and the inputs are never stored.
    empties = [op for op in m.walk() if op.name == "tensor.empty"]
    assert [str(op.results[0].type) for op in empties] == ["tensor<4x3xf64>"]


CKPT = """
func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.for %i = %c0 to %c16 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.addf %s, %x : f64
    loop.yield %t : f64
  }ATTR
  return %r : f64
}
"""


def _stored_elements(m):
    total = 0
    for op in m.walk():
        if op.name == "tensor.empty":
            # one tape per use (cse may share one tensor.empty between tapes)
            total += int(np.prod(op.results[0].type.get_shape())) * len(list(op.results[0].uses))
    return total


@pytest.mark.parametrize("how", ["attr", "option", "segment"])
def test_checkpointing_sqrt(how):
    attr = {"attr": ' {autodiff.checkpoint = "sqrt"}', "option": "", "segment": " {autodiff.checkpoint = 4}"}[how]
    pipeline = "ad{checkpoint=sqrt}" if how == "option" else "ad"
    src = CKPT.replace("ATTR", attr)
    plain = irt.parse(add_grad(CKPT.replace("ATTR", ""), "p", ["f64"], [0]))
    ck = irt.parse(add_grad(src, "p", ["f64"], [0]))
    want = irt.interpret(plain, "__d", 0.5)
    irt.run_pipeline(plain, "ad,canonicalize,cse")
    irt.run_pipeline(ck, pipeline + ",canonicalize,cse")
    # the same operations on the same values; only the summation order of the
    # invariant's adjoint differs (per segment), hence a last-bit difference
    np.testing.assert_allclose(irt.interpret(ck, "__d", 0.5), want, rtol=1e-14)
    assert _stored_elements(plain) == 16
    assert _stored_elements(ck) == 8  # 4 segment starts + 4 iterates of one segment
    check_grad(src, "p", ["f64"], [np.float64(0.5)])


NESTED = """
func.func @f(%x: f64, %y: f64) -> f64 {
  %a = arith.mulf %x, %x : f64
  %b = arith.mulf %a, %x : f64
  %s = math.sin %y : f64
  %c = arith.mulf %b, %s : f64
  return %c : f64
}
func.func @df(%x: f64, %y: f64) -> f64 {
  %g = autodiff.grad @f(%x, %y) wrt [0] : (f64, f64) -> f64
  return %g : f64
}
func.func @d2f(%x: f64, %y: f64) -> (f64, f64) {
  %gx, %gy = autodiff.grad @df(%x, %y) : (f64, f64) -> (f64, f64)
  return %gx, %gy : f64, f64
}
func.func @hvp(%x: f64, %y: f64, %t: f64) -> (f64, f64) {
  %g, %h = autodiff.jvp @df(%x, %y) tangents(%t) wrt [0] : (f64, f64, f64) -> (f64, f64)
  return %g, %h : f64, f64
}
"""


def test_second_derivatives_closed_form():
    m = irt.parse(NESTED)
    x, y = 0.7, 1.3
    gx, gy = irt.interpret(m, "d2f", x, y)
    np.testing.assert_allclose([gx, gy], [6 * x * np.sin(y), 3 * x * x * np.cos(y)], rtol=1e-12)
    g, h = irt.interpret(m, "hvp", x, y, 2.0)
    np.testing.assert_allclose([g, h], [3 * x * x * np.sin(y), 2.0 * 6 * x * np.sin(y)], rtol=1e-12)


def test_hessian_vector_product_through_loop():
    src = FOR + """
func.func @dp(%x: f64, %n: index) -> f64 {
  %g = autodiff.grad @p(%x, %n) wrt [0] : (f64, index) -> f64
  return %g : f64
}
"""
    check_jvp(src, "dp", ["f64", "index"], ["f64"], [np.float64(0.5), 3], wrt=[0], rtol=1e-5)
    check_grad(src, "dp", ["f64", "index"], [np.float64(0.5), 3], wrt=[0], rtol=1e-5)


STE = """
func.func @round(%x: f64) -> f64 attributes {autodiff.custom_vjp = @round_vjp, autodiff.custom_jvp = @round_jvp} {
  %r = math.round %x : f64
  return %r : f64
}
func.func @round_vjp(%x: f64, %ct: f64) -> f64 {
  return %ct : f64
}
func.func @round_jvp(%x: f64, %t: f64) -> (f64, f64) {
  %r = math.round %x : f64
  return %r, %t : f64, f64
}
func.func @loss(%x: f64) -> f64 {
  %r = func.call @round(%x) : (f64) -> f64
  %s = arith.mulf %r, %x : f64
  return %s : f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @loss(%x) : (f64) -> f64
  return %d : f64
}
func.func @j(%x: f64, %t: f64) -> (f64, f64) {
  %y, %dy = autodiff.jvp @loss(%x) tangents(%t) : (f64, f64) -> (f64, f64)
  return %y, %dy : f64, f64
}
"""


def test_straight_through_estimator():
    m = irt.parse(STE)
    x = 1.7
    # d/dx round(x) * x with round' := 1 (straight through): x + round(x)
    assert irt.interpret(m, "g", x) == pytest.approx(x + 2.0)
    y, dy = irt.interpret(m, "j", x, 1.0)
    assert y == pytest.approx(2.0 * x) and dy == pytest.approx(x + 2.0)


def test_stop_gradient():
    src = """
func.func @sg(%x: f64) -> f64 {
  %s = autodiff.stop_gradient %x : f64
  %r = arith.mulf %s, %x : f64
  return %r : f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @sg(%x) : (f64) -> f64
  return %d : f64
}
"""
    m = irt.parse(src)
    assert irt.interpret(m, "g", 1.7) == pytest.approx(1.7)
    irt.run_pipeline(m, "ad")
    assert "stop_gradient" not in str(m)


def _error(src, pipeline="ad"):
    m = irt.parse(src, "input.mlir")
    with pytest.raises(DiagnosticError) as err:
        irt.run_pipeline(m, pipeline)
    return err.value


def test_recursion_is_a_located_error():
    err = _error("""
func.func @r(%x: f64) -> f64 {
  %y = func.call @r(%x) : (f64) -> f64
  return %y : f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @r(%x) : (f64) -> f64
  return %d : f64
}
""")
    assert "recursive" in err.message and err.location is not None and err.location.line == 3


def test_custom_jvp_only_in_reverse_mode_is_an_error():
    err = _error("""
func.func @f(%x: f64) -> f64 attributes {autodiff.custom_jvp = @f_jvp} {
  return %x : f64
}
func.func @f_jvp(%x: f64, %t: f64) -> (f64, f64) {
  return %x, %t : f64, f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @f(%x) : (f64) -> f64
  return %d : f64
}
""")
    assert "custom_vjp" in err.message and err.location.line == 9
