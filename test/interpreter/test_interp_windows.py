"""The interpreter's `tensor.conv` and windowed reductions against naive
loop references (``windows_reference.py``)."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(__file__))
from windows_reference import (  # noqa: E402
    CONV_CASES,
    WINDOW_CASES,
    conv_function,
    naive_conv,
    naive_reduce_window,
    naive_window_max_scatter,
    naive_window_max_select,
    window_functions,
    window_operand,
)

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_matches_naive(name):
    x, w, clauses, out = CONV_CASES[name]
    m = irt.parse(conv_function("f", x, w, clauses, out))
    a, b = RNG.standard_normal(x), RNG.standard_normal(w)
    y = irt.interpret(m, "f", a, b)
    assert y.shape == out
    np.testing.assert_allclose(y, naive_conv(a, b, clauses), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(WINDOW_CASES))
def test_windows_match_naive(name):
    shape, window, clauses, out = WINDOW_CASES[name]
    m = irt.parse(window_functions("f", shape, window, clauses, out))
    x = window_operand(RNG, shape)
    g, t = RNG.standard_normal(out), RNG.standard_normal(shape)
    s, mx, d, e = irt.interpret(m, "f", x, g, t)
    np.testing.assert_allclose(s, naive_reduce_window(x, window, clauses, "sum"), rtol=1e-12)
    np.testing.assert_array_equal(mx, naive_reduce_window(x, window, clauses, "max"))
    np.testing.assert_allclose(d, naive_window_max_scatter(x, g, window, clauses), rtol=1e-12)
    np.testing.assert_array_equal(e, naive_window_max_select(x, t, window, clauses, out))


def test_max_pool_nan_and_ties():
    """NaN propagates through the max and is the maximal element; ties go to the first."""
    m = irt.parse(window_functions("f", (6,), [3], "stride [3]", (2,)))
    x = np.array([1.0, np.nan, 5.0, 2.0, 2.0, 0.0])
    s, mx, d, e = irt.interpret(m, "f", x, np.array([10.0, 20.0]), np.arange(6.0))
    assert np.isnan(mx[0]) and mx[1] == 2.0
    np.testing.assert_array_equal(d, [0, 10, 0, 20, 0, 0])
    np.testing.assert_array_equal(e, [1, 3])


def test_integer_pooling():
    src = """
func.func @f(%x: tensor<5xi32>) -> (tensor<4xi32>, tensor<2xi32>) {
  %s = tensor.reduce_window_sum %x window [2] : tensor<5xi32> -> tensor<4xi32>
  %m = tensor.reduce_window_max %x window [2] stride [2] pad [[1, 0]] : tensor<5xi32> -> tensor<3xi32>
  return %s, %m : tensor<4xi32>, tensor<3xi32>
}
"""
    src = src.replace("-> (tensor<4xi32>, tensor<2xi32>)", "-> (tensor<4xi32>, tensor<3xi32>)")
    x = np.array([3, -1, 4, 1, -5], dtype=np.int32)
    s, mx = irt.interpret(irt.parse(src), "f", x)
    np.testing.assert_array_equal(s, [2, 3, 5, -4])
    np.testing.assert_array_equal(mx, [3, 4, 1])


def test_dynamic_batch():
    src = conv_function("f", ("?", 5, 5, 2), (3, 3, 2, 3), "pad [[1, 1], [1, 1]]", ("?", 5, 5, 3))
    a, b = RNG.standard_normal((3, 5, 5, 2)), RNG.standard_normal((3, 3, 2, 3))
    y = irt.interpret(irt.parse(src), "f", a, b)
    np.testing.assert_allclose(y, naive_conv(a, b, "pad [[1, 1], [1, 1]]"), rtol=1e-12)
