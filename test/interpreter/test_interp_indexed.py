"""The numpy meaning of tensor.gather / scatter / scatter_add / generate / rank
(the interpreter's, and the folder's) vs plain numpy indexing."""

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError
from irtoolkit.dialects.tensor import gather_numpy, scatter_numpy

RNG = np.random.default_rng(3)


def test_gather_numpy_is_fancy_indexing():
    a = RNG.standard_normal((3, 5, 2))
    i = np.array([[[2, 1], [0, 0]], [[1, 1], [2, 0]]])
    np.testing.assert_array_equal(gather_numpy(a, i, [0, 2]).reshape(2, 2, 5), a[i[..., 0], :, i[..., 1]])
    j = np.array([[4], [0]])
    np.testing.assert_array_equal(gather_numpy(a, j, [1]), np.moveaxis(a[:, j[:, 0], :], 1, 0)[:, :, None, :])
    np.testing.assert_array_equal(gather_numpy(a, np.zeros((0, 1), np.int64), [1]).shape, (0, 3, 1, 2))


def test_scatter_numpy_overwrites_last_wins_and_adds_as_add_at():
    d = np.zeros((4, 2))
    u = np.arange(6.0).reshape(3, 2)
    i = np.array([[1], [3], [1]])
    over = scatter_numpy(d, u, i, [0], accumulate=False)
    np.testing.assert_array_equal(over, [[0, 0], [4, 5], [0, 0], [2, 3]])
    added = scatter_numpy(d, u, i, [0], accumulate=True)
    want = d.copy()
    np.add.at(want, i[:, 0], u)
    np.testing.assert_array_equal(added, want)
    np.testing.assert_array_equal(d, 0)  # not written


SRC = """
func.func @g(%t: tensor<4x3xf64>, %i: tensor<2x1xi32>) -> tensor<2x3xf64> {
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<4x3xf64>, tensor<2x1xi32>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
func.func @s(%u: tensor<2x1x3xf64>, %d: tensor<4x3xf64>, %i: tensor<2x1xindex>) -> tensor<4x3xf64> {
  %r = tensor.scatter %u into %d[%i] scatter_dims([0]) unique : (tensor<2x1x3xf64>, tensor<4x3xf64>, tensor<2x1xindex>) -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}
"""


def test_interpreter_rules_and_out_of_range():
    m = irt.parse(SRC)
    t = RNG.standard_normal((4, 3))
    np.testing.assert_array_equal(irt.interpret(m, "g", t, np.array([[3], [3]], np.int32)), t[[3, 3]])
    u = RNG.standard_normal((2, 1, 3))
    want = t.copy()
    want[[2, 0]] = u[:, 0]
    np.testing.assert_array_equal(irt.interpret(m, "s", u, t, np.array([[2], [0]])), want)
    with pytest.raises(DiagnosticError, match=r"'tensor.gather' op index -1 at indices\[1, 0\] is out of bounds "
                                              r"for dim 0 of size 4"):
        irt.interpret(m, "g", t, np.array([[0], [-1]], np.int32))
    with pytest.raises(DiagnosticError, match="'tensor.scatter' op index 4 .* out of bounds"):
        irt.interpret(m, "s", u, t, np.array([[4], [0]]))


def test_folds():
    src = """
func.func @f(%x: tensor<?x2xf32>) -> (tensor<2x2xf64>, index) {
  %t = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  %i = arith.constant dense<[[2], [0]]> : tensor<2x1xindex>
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<3x2xf64>, tensor<2x1xindex>) -> tensor<2x2xf64>
  %r = tensor.rank %x : tensor<?x2xf32>
  return %g, %r : tensor<2x2xf64>, index
}
"""
    text = str(irt.run_pipeline(irt.parse(src), "canonicalize"))
    assert "tensor.gather" not in text and "tensor.rank" not in text
    assert "dense<[[5.0" in text.replace("5.000000e+00", "5.0") and "arith.constant 2 : index" in text
