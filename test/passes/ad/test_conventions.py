"""SPEC §6 conventions, exact values, reverse and forward mode, interpreted and compiled:
ties in max/min split evenly, abs at ±0 has derivative 0, the padding value of
tensor.pad is differentiated (the silent zero of issue 14)."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp, run1  # noqa: E402

PAD = """
func.func @f(%x: tensor<2xf64>, %p: f64) -> f64 {
  %pd = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %p : f64
  } : tensor<2xf64> to tensor<4xf64>
  %s = tensor.reduce_sum %pd [0] : tensor<4xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
"""
PAD_TYPES = ["tensor<2xf64>", "f64"]


def test_pad_padding_value_gets_its_derivative(backend):
    """The reproduction of issue 14: d/dp = the number of padded elements."""
    x, p = np.array([1.0, 2.0]), np.float64(3.0)
    gx, gp = run1(add_grad(PAD, "f", PAD_TYPES, [0, 1]), backend, "__d", x, p)
    assert gp == 2.0 and np.array_equal(gx, [1.0, 1.0])
    assert run1(add_grad(PAD, "f", PAD_TYPES, [1]), backend, "__d", x, p) == 2.0
    jvp = add_grad(PAD, "f", PAD_TYPES, [0, 1], "jvp", ["f64"])
    y, dy = run1(jvp, backend, "__d", x, p, np.array([0.0, 0.0]), np.float64(1.0))
    assert (y, dy) == (9.0, 2.0)
    _, dy = run1(jvp, backend, "__d", x, p, np.array([1.0, 10.0]), np.float64(0.5))
    assert dy == 12.0


PAD_2D = """
func.func @f(%x: tensor<2x3xf64>, %p: f64, %w: tensor<4x6xf64>) -> f64 {
  %q = arith.mulf %p, %p : f64
  %pd = tensor.pad %x low[1, 2] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %q : f64
  } : tensor<2x3xf64> to tensor<4x6xf64>
  %m = tensor.mul %pd, %w : tensor<4x6xf64>
  %t = tensor.tanh %m : tensor<4x6xf64>
  %s = tensor.reduce_sum %t [0, 1] : tensor<4x6xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
"""


def test_pad_weighted_against_finite_differences(backend):
    rng = np.random.default_rng(3)
    types = ["tensor<2x3xf64>", "f64", "tensor<4x6xf64>"]
    args = [rng.uniform(-1, 1, (2, 3)), np.float64(0.7), rng.uniform(-1, 1, (4, 6))]
    check_grad(PAD_2D, "f", types, args, backend=backend)
    check_jvp(PAD_2D, "f", types, ["f64"], args, backend=backend)
    check_grad(PAD_2D, "f", types, args, wrt=[1], backend=backend)


def test_padding_value_computed_in_the_region_is_a_located_error():
    src = PAD.replace("    tensor.yield %p : f64", "    %q = arith.mulf %p, %p : f64\n    tensor.yield %q : f64")
    for mode in ("grad", "jvp"):
        m = irt.parse(add_grad(src, "f", PAD_TYPES, [1], mode, ["f64"]))
        with pytest.raises(DiagnosticError) as e:
            irt.run_pipeline(m, "ad")
        assert "padding value computed inside the region" in e.value.message
        assert e.value.location.line == 3


# -- ties ------------------------------------------------------------------------------

SCALAR = """
func.func @f(%a: f64, %b: f64) -> f64 {
  %r = OP %a, %b : f64
  return %r : f64
}
"""
TENSOR = """
func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> f64 {
  %r = OP %a, %b : tensor<3xf64>
  %w = arith.constant dense<[1.0, 10.0, 100.0]> : tensor<3xf64>
  %rw = tensor.mul %r, %w : tensor<3xf64>
  %s = tensor.reduce_sum %rw [0] : tensor<3xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
"""
SCALAR_OPS = ["arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"]


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_scalar_ties_split_evenly(op, backend):
    src = SCALAR.replace("OP", op)
    grad = add_grad(src, "f", ["f64", "f64"], [0, 1])
    jvp = add_grad(src, "f", ["f64", "f64"], [0, 1], "jvp", ["f64"])
    assert run1(grad, backend, "__d", 1.5, 1.5) == (0.5, 0.5)
    assert run1(grad, backend, "__d", 0.0, -0.0) == (0.5, 0.5)
    big = 2.0 if "max" in op else 1.0
    assert run1(grad, backend, "__d", 2.0, 1.0) == ((1.0, 0.0) if big == 2.0 else (0.0, 1.0))
    # forward mode: (da, db) = (1, 0) and (0, 1) at the tie
    assert run1(jvp, backend, "__d", 1.5, 1.5, 1.0, 0.0)[1] == 0.5
    assert run1(jvp, backend, "__d", 1.5, 1.5, 0.0, 1.0)[1] == 0.5


@pytest.mark.parametrize("op", ["arith.maxnumf", "arith.minnumf"])
def test_maxnum_gives_all_to_the_number_against_nan(op, backend):
    src = SCALAR.replace("OP", op)
    grad = add_grad(src, "f", ["f64", "f64"], [0, 1])
    assert run1(grad, backend, "__d", 1.5, np.nan) == (1.0, 0.0)
    assert run1(grad, backend, "__d", np.nan, 1.5) == (0.0, 1.0)


def test_relu_at_zero_is_one_half(backend):
    src = """
func.func @relu(%x: f64) -> f64 {
  %z = arith.constant 0.0 : f64
  %r = arith.maximumf %x, %z : f64
  return %r : f64
}
"""
    grad = add_grad(src, "relu", ["f64"], [0])
    jvp = add_grad(src, "relu", ["f64"], [0], "jvp", ["f64"])
    got = [run1(grad, backend, "__d", x) for x in (-1.0, -0.0, 0.0, 1.0)]
    assert got == [0.0, 0.5, 0.5, 1.0]
    assert run1(jvp, backend, "__d", 0.0, 1.0)[1] == 0.5


@pytest.mark.parametrize("op", ["tensor.max", "tensor.min"])
def test_tensor_ties_split_evenly(op, backend):
    src = TENSOR.replace("OP", op)
    t = "tensor<3xf64>"
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    ga, gb = run1(add_grad(src, "f", [t, t], [0, 1]), backend, "__d", a, b)
    wins_a = [0.5, 10.0, 0.0] if op == "tensor.max" else [0.5, 0.0, 100.0]
    assert ga.tolist() == wins_a
    assert (ga + gb).tolist() == [1.0, 10.0, 100.0]
    jvp = add_grad(src, "f", [t, t], [0, 1], "jvp", ["f64"])
    _, dy = run1(jvp, backend, "__d", a, b, np.ones(3), np.zeros(3))
    assert dy == sum(wins_a)


def test_reduce_max_three_way_tie(backend):
    src = """
func.func @f(%x: tensor<2x3xf64>) -> f64 {
  %m = tensor.reduce_max %x [1] : tensor<2x3xf64> -> tensor<2xf64>
  %w = arith.constant dense<[1.0, 10.0]> : tensor<2xf64>
  %mw = tensor.mul %m, %w : tensor<2xf64>
  %s = tensor.reduce_sum %mw [0] : tensor<2xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
"""
    x = np.array([[2.0, 2.0, 2.0], [1.0, 4.0, 4.0]])
    g = run1(add_grad(src, "f", ["tensor<2x3xf64>"], [0]), backend, "__d", x)
    np.testing.assert_array_equal(g, [[1 / 3, 1 / 3, 1 / 3], [0.0, 5.0, 5.0]])


@pytest.mark.parametrize("op", ["math.absf", "tensor.abs"])
def test_abs_at_signed_zero_has_derivative_zero(op, backend):
    if op == "math.absf":
        src = "func.func @f(%x: f64) -> f64 {\n  %r = math.absf %x : f64\n  return %r : f64\n}\n"
        types, args = ["f64"], [-0.0, 0.0, -2.0, 2.0]
        want = [0.0, 0.0, -1.0, 1.0]
    else:
        src = """
func.func @f(%x: tensor<4xf64>) -> f64 {
  %r = tensor.abs %x : tensor<4xf64>
  %s = tensor.reduce_sum %r [0] : tensor<4xf64> -> tensor<f64>
  %v = tensor.extract %s[] : tensor<f64>
  return %v : f64
}
"""
        types, args = ["tensor<4xf64>"], [np.array([-0.0, 0.0, -2.0, 2.0])]
        want = [[0.0, 0.0, -1.0, 1.0]]
    grad = add_grad(src, "f", types, [0])
    jvp = add_grad(src, "f", types, [0], "jvp", ["f64"])
    got = [run1(grad, backend, "__d", a) for a in args]
    assert np.asarray(got).tolist() == want
    if op == "math.absf":
        assert [run1(jvp, backend, "__d", a, 1.0)[1] for a in args] == want
    else:
        assert [run1(jvp, backend, "__d", args[0], e)[1] for e in np.eye(4)] == want[0]


def test_clamp_weights_give_the_bounds_to_x():
    """ties.clamp_weights, for the clamp rule to come: x gets the cotangent at a bound."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import f64
    from xdsl.ir import Block, Region

    from irtoolkit.passes.ad.emit import Emitter
    from irtoolkit.ties import clamp_weights

    block = Block(arg_types=[f64, f64, f64])
    E = Emitter(block)
    E.op(func.ReturnOp(*clamp_weights(E, *block.args)))
    f = func.FuncOp("w", ([f64] * 3, [f64] * 3), Region(block))
    m = irt.parse(str(f))
    cases = {-1.0: (1.0, 0.0, 0.0), 0.0: (0.0, 1.0, 0.0), 0.5: (0.0, 1.0, 0.0), 1.0: (0.0, 1.0, 0.0),
             2.0: (0.0, 0.0, 1.0)}
    for x, want in cases.items():
        assert irt.interpret(m, "w", 0.0, x, 1.0) == want
