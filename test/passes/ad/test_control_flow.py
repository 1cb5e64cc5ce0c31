"""Control flow, calls, custom rules, checkpointing and nesting vs finite differences / closed forms."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp, run1, runner  # noqa: E402

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
def test_for_trip_counts(n, backend):
    args = [np.float64(0.5), n]
    check_grad(FOR, "p", ["f64", "index"], args, wrt=[0], backend=backend)
    check_jvp(FOR, "p", ["f64", "index"], ["f64"], args, wrt=[0], backend=backend)


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
def test_if_on_data(x, backend):
    args = [np.float64(x), np.float64(0.3)]
    check_grad(IF, "g", ["f64", "f64"], args, backend=backend)
    check_jvp(IF, "g", ["f64", "f64"], ["f64"], args, backend=backend)


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
def test_while_data_dependent_trip_count(x, backend):
    args = [np.float64(x), np.float64(1.7)]
    check_grad(WHILE, "w", ["f64", "f64"], args, backend=backend)
    check_jvp(WHILE, "w", ["f64", "f64"], ["f64"], args, backend=backend)


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


def test_calls(backend):
    args = [np.float64(0.5), np.float64(0.3)]
    m = check_grad(CALL, "h", ["f64", "f64"], args, backend=backend)
    check_jvp(CALL, "h", ["f64", "f64"], ["f64"], args, backend=backend)
    irt.run_pipeline(m, "ad")
    names = [op.sym_name.data for op in m.body.block.ops]
    assert names.count("sq_vjp_0") == 1  # generated once, reused by both calls


RNN = open(os.path.join(os.path.dirname(__file__), "Inputs", "rnn.mlir")).read()


def test_rnn_gradient_and_tape_size(backend):
    rng = np.random.default_rng(0)
    types = ["tensor<3x3xf64>", "tensor<4x3xf64>", "tensor<3xf64>"]
    args = [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((4, 3)), rng.standard_normal(3)]
    m = check_grad(RNN, "rnn", types, args, backend=backend)
    irt.run_pipeline(m, "ad,canonicalize,cse")
    # Stored once per iteration: the hidden state (carried) and the tanh output
    # that the reverse sweep reads (a residual: it is not recomputed, nor are
    # the matmul and the add feeding it); two tapes of 4x3. The weights
    # (loop-invariant) and the inputs are never stored.
    gen = next(op for op in m.body.block.ops if op.sym_name.data == "rnn_grad_0_1_2")
    fwd, rev = [op for op in gen.body.block.ops if op.name == "loop.for"]
    tapes = [v for v in fwd.iter_args if getattr(v.owner, "name", "") == "tensor.empty"]
    assert [str(v.type) for v in tapes] == ["tensor<4x3xf64>"] * 2
    assert _stored_elements(m) == 2 * 12
    inside = [op.name for op in rev.walk()]
    assert "tensor.tanh" not in inside
    # the transposed weights of the reverse sweep are hoisted out of its loop
    assert inside.count("tensor.transpose") == 1  # h^T only
    assert [op.name for op in gen.body.block.ops].count("tensor.transpose") == 1


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
def test_checkpointing_sqrt(how, backend):
    attr = {"attr": ' {autodiff.checkpoint = "sqrt"}', "option": "", "segment": " {autodiff.checkpoint = 4}"}[how]
    pipeline = "ad{checkpoint=sqrt}" if how == "option" else "ad"
    src = CKPT.replace("ATTR", attr)
    plain = irt.parse(add_grad(CKPT.replace("ATTR", ""), "p", ["f64"], [0]))
    ck = irt.parse(add_grad(src, "p", ["f64"], [0]))
    want = irt.interpret(plain, "__d", 0.5)
    irt.run_pipeline(plain, "ad,canonicalize,cse")
    irt.run_pipeline(ck, pipeline + ",canonicalize,cse")
    # the same operations on the same values, in the same order: identical
    if backend == "jit":
        assert run1(str(ck), backend, "__d", 0.5) == run1(str(plain), backend, "__d", 0.5) == want
    assert irt.interpret(ck, "__d", 0.5) == want
    assert _stored_elements(plain) == 16
    assert _stored_elements(ck) == 8  # 4 segment starts + 4 iterates of one segment
    check_grad(src, "p", ["f64"], [np.float64(0.5)], backend=backend)


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


def test_second_derivatives_closed_form(backend):
    x, y = 0.7, 1.3
    gx, gy = run1(NESTED, backend, "d2f", x, y)
    np.testing.assert_allclose([gx, gy], [6 * x * np.sin(y), 3 * x * x * np.cos(y)], rtol=1e-12)
    g, h = run1(NESTED, backend, "hvp", x, y, 2.0)
    np.testing.assert_allclose([g, h], [3 * x * x * np.sin(y), 2.0 * 6 * x * np.sin(y)], rtol=1e-12)


def test_hessian_vector_product_through_loop(backend):
    src = FOR + """
func.func @dp(%x: f64, %n: index) -> f64 {
  %g = autodiff.grad @p(%x, %n) wrt [0] : (f64, index) -> f64
  return %g : f64
}
"""
    check_jvp(src, "dp", ["f64", "index"], ["f64"], [np.float64(0.5), 3], wrt=[0], rtol=1e-5, backend=backend)
    check_grad(src, "dp", ["f64", "index"], [np.float64(0.5), 3], wrt=[0], rtol=1e-5, backend=backend)


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


def test_straight_through_estimator(backend):
    x = 1.7
    # d/dx round(x) * x with round' := 1 (straight through): x + round(x)
    assert run1(STE, backend, "g", x) == pytest.approx(x + 2.0)
    y, dy = run1(STE, backend, "j", x, 1.0)
    assert y == pytest.approx(2.0 * x) and dy == pytest.approx(x + 2.0)


def test_stop_gradient(backend):
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
    assert run1(src, backend, "g", 1.7) == pytest.approx(1.7)
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


NESTED_LOOPS = """
func.func @nl(%x: tensor<3xf64>, %w: tensor<3xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f64
  %r, %s = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<3xf64>, f64) {
    %b = loop.for %j = %c0 to %c3 step %c1 iter_args(%bb = %a) -> (tensor<3xf64>) {
      %e = tensor.extract %w[%j] : tensor<3xf64>
      %v = tensor.extract %bb[%j] : tensor<3xf64>
      %p = arith.mulf %e, %v : f64
      %q = math.sin %p : f64
      %zero = arith.constant 0.0 : f64
      %pos = arith.cmpf ogt, %q, %zero : f64
      %t = loop.if %pos -> (f64) {
        %u = arith.mulf %q, %q : f64
        loop.yield %u : f64
      } else {
        %u = arith.addf %q, %e : f64
        loop.yield %u : f64
      }
      %nb = tensor.insert %t into %bb[%j] : tensor<3xf64>
      loop.yield %nb : tensor<3xf64>
    }
    %m = tensor.mul %b, %w : tensor<3xf64>
    %sum = tensor.reduce_sum %m [0] : tensor<3xf64> -> tensor<f64>
    %se = tensor.extract %sum[] : tensor<f64>
    %acc2 = arith.addf %acc, %se : f64
    loop.yield %b, %acc2 : tensor<3xf64>, f64
  }
  return %s : f64
}
"""


def test_nested_loops_with_if_and_element_updates(backend):
    rng = np.random.default_rng(3)
    types = ["tensor<3xf64>", "tensor<3xf64>", "index"]
    args = [rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3), 3]
    check_grad(NESTED_LOOPS, "nl", types, args, wrt=[0, 1], backend=backend)
    check_jvp(NESTED_LOOPS, "nl", types, ["f64"], args, wrt=[0, 1], backend=backend)


VJP = """
func.func @f(%x: tensor<2xf64>, %y: f64) -> (tensor<2xf64>, f64) {
  %s = tensor.splat %y : tensor<2xf64>
  %m = tensor.mul %x, %s : tensor<2xf64>
  %e = tensor.exp %m : tensor<2xf64>
  %sum = tensor.reduce_sum %e [0] : tensor<2xf64> -> tensor<f64>
  %se = tensor.extract %sum[] : tensor<f64>
  %z = arith.mulf %se, %y : f64
  return %e, %z : tensor<2xf64>, f64
}
func.func @v(%x: tensor<2xf64>, %y: f64, %c1: tensor<2xf64>, %c2: f64) -> (tensor<2xf64>, f64, tensor<2xf64>, f64) {
  %a, %b, %dx, %dy = autodiff.vjp @f(%x, %y) cotangents(%c1, %c2) : (tensor<2xf64>, f64, tensor<2xf64>, f64) -> (tensor<2xf64>, f64, tensor<2xf64>, f64)
  return %a, %b, %dx, %dy : tensor<2xf64>, f64, tensor<2xf64>, f64
}
func.func @l(%x: tensor<2xf64>, %y: f64) -> f64 {
  %a, %b = func.call @f(%x, %y) : (tensor<2xf64>, f64) -> (tensor<2xf64>, f64)
  return %b : f64
}
func.func @vg(%x: tensor<2xf64>, %y: f64) -> (f64, f64) {
  %v, %dy = autodiff.value_and_grad @l(%x, %y) wrt [1] : (tensor<2xf64>, f64) -> (f64, f64)
  return %v, %dy : f64, f64
}
"""


def test_vjp_and_value_and_grad(backend):
    run = runner(VJP, backend)
    x, y = np.array([0.3, -0.2]), 0.7
    c1, c2 = np.array([1.5, -0.5]), 2.0
    a, b, dx, dy = run1(VJP, backend, "v", x, y, c1, c2)
    e, z = run("f", x, y)
    np.testing.assert_allclose(a, e)
    assert b == z

    def lin(x, y):
        e, z = run("f", x, y)
        return float(np.dot(c1, e) + c2 * z)

    eps = 1e-6
    ndx = [(lin(x + eps * np.eye(2)[i], y) - lin(x - eps * np.eye(2)[i], y)) / (2 * eps) for i in range(2)]
    ndy = (lin(x, y + eps) - lin(x, y - eps)) / (2 * eps)
    np.testing.assert_allclose(dx, ndx, rtol=1e-6)
    np.testing.assert_allclose(dy, ndy, rtol=1e-6)
    v, g = run1(VJP, backend, "vg", x, y)
    assert v == run("l", x, y)[0]
    want = (run("l", x, y + eps)[0] - run("l", x, y - eps)[0]) / (2 * eps)
    np.testing.assert_allclose(g, want, rtol=1e-6)


DYNAMIC = """
func.func @d(%x: tensor<?xf64>, %y: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %s = tensor.splat %y[%n] : tensor<?xf64>
  %e = tensor.exp %x : tensor<?xf64>
  %m = tensor.mul %e, %s : tensor<?xf64>
  %sum = tensor.reduce_sum %m [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %sum[] : tensor<f64>
  return %r : f64
}
"""


def test_dynamic_shapes(backend):
    args = [np.array([0.1, 0.5, -0.3]), np.float64(0.7)]
    check_grad(DYNAMIC, "d", ["tensor<?xf64>", "f64"], args, backend=backend)
    check_jvp(DYNAMIC, "d", ["tensor<?xf64>", "f64"], ["f64"], args, backend=backend)


F32 = """
func.func @g(%x: tensor<3xf32>, %y: f32) -> f32 {
  %s = tensor.splat %y : tensor<3xf32>
  %m = tensor.mul %x, %s : tensor<3xf32>
  %t = tensor.tanh %m : tensor<3xf32>
  %sum = tensor.reduce_sum %t [0] : tensor<3xf32> -> tensor<f32>
  %r = tensor.extract %sum[] : tensor<f32>
  return %r : f32
}
func.func @main(%x: tensor<3xf32>, %y: f32) -> (tensor<3xf32>, f32) {
  %a, %b = autodiff.grad @g(%x, %y) : (tensor<3xf32>, f32) -> (tensor<3xf32>, f32)
  return %a, %b : tensor<3xf32>, f32
}
"""


def test_f32_closed_form(backend):
    x, y = np.array([0.1, 0.5, -0.3], dtype=np.float32), np.float32(0.7)
    a, b = run1(F32, backend, "main", x, y)
    t = np.tanh(x * y)
    assert a.dtype == np.float32
    np.testing.assert_allclose(a, (1 - t * t) * y, rtol=1e-6)
    np.testing.assert_allclose(b, ((1 - t * t) * x).sum(), rtol=1e-6)


def test_grad_of_non_scalar_is_a_located_error():
    src = """
func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  return %x : tensor<2xf64>
}
func.func @g(%x: tensor<2xf64>) -> tensor<2xf64> {
  %d = autodiff.grad @f(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %d : tensor<2xf64>
}
"""
    with pytest.raises(DiagnosticError) as err:
        m = irt.parse(src, "input.mlir")
        irt.run_pipeline(m, "ad")
    assert err.value.location is not None and err.value.location.line == 6
    assert "must return" in err.value.message  # the verifier or the pass, at the grad op


def test_no_dead_adjoint_code_for_inactive_values():
    """Adjoints only for active values: w is not differentiated, the constant branch is inactive."""
    src = """
func.func @f(%x: f64, %w: f64) -> f64 {
  %a = math.exp %w : f64
  %b = arith.mulf %a, %x : f64
  %c = math.sin %w : f64
  %d = arith.addf %b, %c : f64
  return %d : f64
}
func.func @g(%x: f64, %w: f64) -> f64 {
  %d = autodiff.grad @f(%x, %w) wrt [0] : (f64, f64) -> f64
  return %d : f64
}
"""
    m = irt.parse(src)
    irt.run_pipeline(m, "ad,canonicalize,cse")
    (gen,) = [op for op in m.body.block.ops if op.sym_name.data == "f_grad_0"]
    names = [op.name for op in gen.body.block.ops]
    assert names == ["math.exp", "func.return"]  # d/dx = exp(w)


RNN_SECOND = RNN + """
func.func @dw(%w: tensor<3x3xf64>, %xs: tensor<4x3xf64>, %h0: tensor<3xf64>) -> tensor<3x3xf64> {
  %g = autodiff.grad @rnn(%w, %xs, %h0) wrt [0] : (tensor<3x3xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<3x3xf64>
  return %g : tensor<3x3xf64>
}
func.func @l2(%w: tensor<3x3xf64>, %xs: tensor<4x3xf64>, %h0: tensor<3xf64>) -> f64 {
  %g = func.call @dw(%w, %xs, %h0) : (tensor<3x3xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<3x3xf64>
  %sq = tensor.mul %g, %g : tensor<3x3xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<3x3xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  return %e : f64
}
"""


def test_rnn_second_order(backend):
    """Forward-over-reverse (HVP) and reverse-over-reverse through a taped loop."""
    rng = np.random.default_rng(0)
    types = ["tensor<3x3xf64>", "tensor<4x3xf64>", "tensor<3xf64>"]
    args = [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((4, 3)), rng.standard_normal(3)]
    check_jvp(RNN_SECOND, "dw", types, ["tensor<3x3xf64>"], args, wrt=[0], rtol=1e-5, backend=backend)
    check_grad(RNN_SECOND, "l2", types, args, wrt=[2], rtol=1e-5, backend=backend)
