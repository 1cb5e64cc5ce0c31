"""Interpreter rules of stablehlo/chlo ops that the JAX corpus does not reach
(test/frontends/stablehlo checks those end to end), each against numpy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.interpreter.core import Interpreter


def run(body: str, signature: str, *args):
    module = irt.parse(f"func.func @f{signature} {{\n{body}\n}}")
    # the StableHLO interpreter itself (irt.interpret converts to tensor ops first)
    return Interpreter(module).call("f", *args)


X = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 2.5], np.float64)


@pytest.mark.parametrize("op, ref", [
    ("stablehlo.cbrt", np.cbrt), ("stablehlo.ceil", np.ceil), ("stablehlo.floor", np.floor),
    ("stablehlo.cosine", np.cos), ("stablehlo.exponential_minus_one", np.expm1),
    ("stablehlo.logistic", lambda x: 1 / (1 + np.exp(-x))), ("stablehlo.sign", np.sign),
    ("stablehlo.round_nearest_even", np.rint),
    ("stablehlo.round_nearest_afz", lambda x: np.array([-3.0, -1.0, 0.0, 1.0, 2.0, 3.0])),
    ("stablehlo.tan", np.tan), ("chlo.sinh", np.sinh), ("chlo.atan", np.arctan),
    ("chlo.erf", np.vectorize(math.erf)), ("chlo.erfc", np.vectorize(math.erfc)),
    ("chlo.square", np.square),
])
def test_unary(op, ref):
    syntax = ": tensor<6xf64> -> tensor<6xf64>" if op.startswith("chlo") else ": tensor<6xf64>"
    got = run(f"%r = {op} %x {syntax}\nreturn %r : tensor<6xf64>",
              "(%x: tensor<6xf64>) -> tensor<6xf64>", X)
    np.testing.assert_allclose(got, ref(X), rtol=1e-15, atol=1e-15)


def test_erf_inv_inverts_erf():
    y = np.array([-0.999, -0.5, 0.0, 0.3, 0.95], np.float64)
    got = run("%r = chlo.erf_inv %y : tensor<5xf64> -> tensor<5xf64>\nreturn %r : tensor<5xf64>",
              "(%y: tensor<5xf64>) -> tensor<5xf64>", y)
    np.testing.assert_allclose(np.vectorize(math.erf)(got), y, rtol=1e-14, atol=1e-15)


def test_integer_division_truncates_and_shifts_saturate():
    a = np.array([7, -7, 7, -7, 1], np.int32)
    b = np.array([2, 2, -2, -2, 33], np.int32)
    q, r, sl, sra, srl = run("""
      %q = stablehlo.divide %a, %b : tensor<5xi32>
      %r = stablehlo.remainder %a, %b : tensor<5xi32>
      %sl = stablehlo.shift_left %a, %b : tensor<5xi32>
      %sra = stablehlo.shift_right_arithmetic %a, %b : tensor<5xi32>
      %srl = stablehlo.shift_right_logical %a, %b : tensor<5xi32>
      return %q, %r, %sl, %sra, %srl : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>""",
        "(%a: tensor<5xi32>, %b: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>)",
        a, b)
    np.testing.assert_array_equal(q, [3, -3, -3, 3, 0])
    np.testing.assert_array_equal(r, [1, -1, 1, -1, 1])
    # shift amounts outside [0, 32) shift everything out (the sign for arithmetic shifts)
    np.testing.assert_array_equal(sl, [28, -28, 0, 0, 0])
    np.testing.assert_array_equal(sra, [1, -2, 0, -1, 0])
    np.testing.assert_array_equal(srl, [1, (2**32 - 7) >> 2, 0, 0, 0])


def test_compare_total_order_and_unsigned():
    a = np.array([np.nan, -0.0, 1.0, -np.inf], np.float32)
    b = np.array([1.0, 0.0, np.nan, -1.0], np.float32)
    i = np.array([-1, 1], np.int32)
    j = np.array([1, 1], np.int32)
    total, ieee, unsigned = run("""
      %t = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %f = stablehlo.compare  NE, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %u = stablehlo.compare  GT, %i, %j,  UNSIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      return %t, %f, %u : tensor<4xi1>, tensor<4xi1>, tensor<2xi1>""",
        "(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<2xi32>, %j: tensor<2xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<2xi1>)",
        a, b, i, j)
    np.testing.assert_array_equal(total, [False, True, True, True])
    np.testing.assert_array_equal(ieee, [True, False, True, True])
    np.testing.assert_array_equal(unsigned, [True, False])


def test_convert_truncates_and_bitcast_keeps_bits():
    x = np.array([-1.7, 2.9, 0.5], np.float32)
    i, bits = run("""
      %i = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xi32>
      %b = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3xi32>
      return %i, %b : tensor<3xi32>, tensor<3xi32>""",
        "(%x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xi32>)", x)
    np.testing.assert_array_equal(i, [-1, 2, 0])
    np.testing.assert_array_equal(bits, x.view(np.int32))


def test_pad_interior_and_negative_edges():
    x = np.arange(1, 4, dtype=np.float64)
    got = run("""
      %v = stablehlo.constant dense<9.0> : tensor<f64>
      %r = stablehlo.pad %x, %v, low = [-1], high = [2], interior = [1] : (tensor<3xf64>, tensor<f64>) -> tensor<6xf64>
      return %r : tensor<6xf64>""", "(%x: tensor<3xf64>) -> tensor<6xf64>", x)
    np.testing.assert_array_equal(got, [9, 2, 9, 3, 9, 9])


def test_dynamic_slice_clamps_and_case_takes_the_last_branch():
    x = np.arange(10, dtype=np.float64).reshape(5, 2)
    s, c = run("""
      %i = stablehlo.constant dense<4> : tensor<i32>
      %z = stablehlo.constant dense<0> : tensor<i32>
      %s = stablehlo.dynamic_slice %x, %i, %z, sizes = [2, 2] : (tensor<5x2xf64>, tensor<i32>, tensor<i32>) -> tensor<2x2xf64>
      %k = stablehlo.constant dense<7> : tensor<i32>
      %c = "stablehlo.case"(%k) ({
        %a = stablehlo.constant dense<1.0> : tensor<f64>
        stablehlo.return %a : tensor<f64>
      }, {
        %b = stablehlo.constant dense<2.0> : tensor<f64>
        stablehlo.return %b : tensor<f64>
      }) : (tensor<i32>) -> tensor<f64>
      return %s, %c : tensor<2x2xf64>, tensor<f64>""", "(%x: tensor<5x2xf64>) -> (tensor<2x2xf64>, tensor<f64>)", x)
    np.testing.assert_array_equal(s, x[3:5])
    assert c == 2.0


def test_convolution_with_groups_and_dilations():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 4, 4))
    w = rng.standard_normal((3, 2, 2, 6))
    got = run("""
      %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 2], [0, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x5x4x4xf64>, tensor<3x2x2x6xf64>) -> tensor<2x5x3x6xf64>
      return %r : tensor<2x5x3x6xf64>""",
        "(%x: tensor<2x5x4x4xf64>, %w: tensor<3x2x2x6xf64>) -> tensor<2x5x3x6xf64>", x, w)
    ref = _conv_reference_mixed(x, w)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def _conv_reference_mixed(x, w):
    """The convolution above: lhs dilation 2, rhs dilation (1, 2), stride 2, pad ((1, 2), (0, 1)), 2 groups."""
    n, h, wd, c = x.shape
    xd = np.zeros((n, 2 * h - 1, 2 * wd - 1, c))
    xd[:, ::2, ::2] = x
    xp = np.pad(xd, ((0, 0), (1, 2), (0, 1), (0, 0)))
    kh, kw, ci, o = w.shape
    out = np.zeros((n, 5, 3, o))
    for b, i, j, f in itertools.product(range(n), range(5), range(3), range(o)):
        g = f // (o // 2)
        for di, dj, k in itertools.product(range(kh), range(kw), range(ci)):
            out[b, i, j, f] += xp[b, 2 * i + di, 2 * j + 2 * dj, g * ci + k] * w[di, dj, k, f]
    return out


def test_convolution_with_batch_groups():
    # (what JAX emits for the kernel gradient of a depthwise convolution)
    # batch group g reads input batch g and writes output feature g
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 1))
    w = rng.standard_normal((3, 1, 4))
    got = run("""
      %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f] {batch_group_count = 4 : i64, feature_group_count = 1 : i64} : (tensor<4x6x1xf64>, tensor<3x1x4xf64>) -> tensor<1x4x4xf64>
      return %r : tensor<1x4x4xf64>""", "(%x: tensor<4x6x1xf64>, %w: tensor<3x1x4xf64>) -> tensor<1x4x4xf64>", x, w)
    ref = np.zeros((1, 4, 4))
    for g, s_ in itertools.product(range(4), range(4)):
        ref[0, s_, g] = sum(x[g, s_ + k, 0] * w[k, 0, g] for k in range(3))
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_reduce_with_a_general_body_and_reduce_window_padding():
    x = np.arange(1.0, 7.0).reshape(2, 3)
    r, w = run("""
      %one = stablehlo.constant dense<1.0> : tensor<f64>
      %r = stablehlo.reduce(%x init: %one) across dimensions = [1] : (tensor<2x3xf64>, tensor<f64>) -> tensor<2xf64>
       reducer(%a: tensor<f64>, %b: tensor<f64>) {
        %m = stablehlo.multiply %a, %b : tensor<f64>
        %s = stablehlo.add %m, %b : tensor<f64>
        stablehlo.return %s : tensor<f64>
      }
      %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
      %w = "stablehlo.reduce_window"(%x, %ninf) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %m = stablehlo.maximum %a, %b : tensor<f64>
        stablehlo.return %m : tensor<f64>
      }) : (tensor<2x3xf64>, tensor<f64>) -> tensor<1x2xf64>
      return %r, %w : tensor<2xf64>, tensor<1x2xf64>""", "(%x: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<1x2xf64>)", x)
    expected = []
    for row in x:
        acc = 1.0
        for v in row:
            acc = acc * v + v
        expected.append(acc)
    np.testing.assert_allclose(r, expected)
    np.testing.assert_array_equal(w, [[4.0, 6.0]])


def test_select_and_scatter_routes_to_the_first_maximum():
    x = np.array([[1.0, 3.0, 2.0, 2.0], [3.0, 0.0, 1.0, 0.0]])
    src = np.array([[10.0, 20.0]])
    got = run("""
      %z = stablehlo.constant dense<0.0> : tensor<f64>
      %r = "stablehlo.select_and_scatter"(%x, %s, %z) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %c = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %c = stablehlo.add %a, %b : tensor<f64>
        stablehlo.return %c : tensor<f64>
      }) : (tensor<2x4xf64>, tensor<1x2xf64>, tensor<f64>) -> tensor<2x4xf64>
      return %r : tensor<2x4xf64>""", "(%x: tensor<2x4xf64>, %s: tensor<1x2xf64>) -> tensor<2x4xf64>", x, src)
    np.testing.assert_array_equal(got, [[0, 10, 20, 0], [0, 0, 0, 0]])


def test_gather_clamps_and_scatter_skips_out_of_bounds():
    x = np.arange(12.0).reshape(4, 3)
    idx = np.array([[0, 1], [3, 2], [5, 0]], np.int32)
    g, s = run("""
      %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<4x3xf64>, tensor<3x2xi32>) -> tensor<3x2xf64>
      %u = stablehlo.constant dense<1.0> : tensor<3xf64>
      %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        stablehlo.return %b : tensor<f64>
      }) : (tensor<4x3xf64>, tensor<3x2xi32>, tensor<3xf64>) -> tensor<4x3xf64>
      return %g, %s : tensor<3x2xf64>, tensor<4x3xf64>""",
        "(%x: tensor<4x3xf64>, %i: tensor<3x2xi32>) -> (tensor<3x2xf64>, tensor<4x3xf64>)", x, idx)
    np.testing.assert_array_equal(g, [[1, 2], [10, 11], [9, 10]])  # starts clamped into bounds
    expected = x.copy()
    expected[0, 1] = expected[3, 2] = 1.0  # (5, 0) is outside: skipped
    np.testing.assert_array_equal(s, expected)


def test_scatter_with_a_general_body_accumulates_in_order():
    x = np.zeros(3)
    idx = np.array([[1], [1], [2]], np.int32)
    u = np.array([2.0, 3.0, 4.0])
    got = run("""
      %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %m = stablehlo.multiply %a, %b : tensor<f64>
        %r = stablehlo.add %m, %b : tensor<f64>
        stablehlo.return %r : tensor<f64>
      }) : (tensor<3xf64>, tensor<3x1xi32>, tensor<3xf64>) -> tensor<3xf64>
      return %s : tensor<3xf64>""", "(%x: tensor<3xf64>, %i: tensor<3x1xi32>, %u: tensor<3xf64>) -> tensor<3xf64>",
        x, idx, u)
    np.testing.assert_array_equal(got, [0.0, (0 * 2 + 2) * 3 + 3, 4.0])


def test_sort_two_operands_by_the_first():
    keys = np.array([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    vals = np.array([[0, 1, 2], [0, 1, 2]], np.int32)
    k, v = run("""
      %k, %v = "stablehlo.sort"(%a, %b) <{dimension = 1 : i64, is_stable = true}> ({
      ^bb0(%x: tensor<f64>, %y: tensor<f64>, %i: tensor<i32>, %j: tensor<i32>):
        %c = stablehlo.compare  LT, %x, %y,  TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }) : (tensor<2x3xf64>, tensor<2x3xi32>) -> (tensor<2x3xf64>, tensor<2x3xi32>)
      return %k, %v : tensor<2x3xf64>, tensor<2x3xi32>""",
        "(%a: tensor<2x3xf64>, %b: tensor<2x3xi32>) -> (tensor<2x3xf64>, tensor<2x3xi32>)", keys, vals)
    np.testing.assert_array_equal(k, np.sort(keys, axis=1))
    np.testing.assert_array_equal(v, np.argsort(keys, axis=1))
