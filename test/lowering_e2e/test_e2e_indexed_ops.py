"""tensor.gather / scatter / scatter_add / generate / rank: compiled vs the
interpreter vs numpy (the dialect's numpy meaning is checked against plain
numpy indexing in test/interpreter/test_interp_indexed.py). One module,
compiled once."""

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

SRC = """
func.func @gather_rows(%t: tensor<?x4xf64>, %i: tensor<?x1xi64>) -> tensor<?x4xf64> {
  %g = tensor.gather %t[%i] gather_dims([0]) : (tensor<?x4xf64>, tensor<?x1xi64>) -> tensor<?x4xf64>
  return %g : tensor<?x4xf64>
}
func.func @gather_mid(%t: tensor<3x5x2xf64>, %i: tensor<4x1xindex>) -> tensor<4x3x1x2xf64> {
  %g = tensor.gather %t[%i] gather_dims([1]) : (tensor<3x5x2xf64>, tensor<4x1xindex>) -> tensor<4x3x1x2xf64>
  return %g : tensor<4x3x1x2xf64>
}
func.func @gather_two(%t: tensor<3x5x2xf32>, %i: tensor<2x2x2xi32>) -> tensor<2x2x5xf32> {
  %g = tensor.gather %t[%i] gather_dims([0, 2]) : (tensor<3x5x2xf32>, tensor<2x2x2xi32>) -> tensor<2x2x5xf32>
  return %g : tensor<2x2x5xf32>
}
func.func @gather_points(%t: tensor<3x4xf64>, %i: tensor<5x2xindex>) -> tensor<5xf64> {
  %g = tensor.gather %t[%i] gather_dims([0, 1]) unique : (tensor<3x4xf64>, tensor<5x2xindex>) -> tensor<5xf64>
  return %g : tensor<5xf64>
}
func.func @scatter_add_rows(%u: tensor<?x4xf64>, %d: tensor<?x4xf64>, %i: tensor<?x1xindex>) -> tensor<?x4xf64> {
  %r = tensor.scatter_add %u into %d[%i] scatter_dims([0]) : (tensor<?x4xf64>, tensor<?x4xf64>, tensor<?x1xindex>) -> tensor<?x4xf64>
  return %r : tensor<?x4xf64>
}
func.func @scatter_add_int(%u: tensor<3xi32>, %d: tensor<5xi32>, %i: tensor<3x1xi32>) -> tensor<5xi32> {
  %r = tensor.scatter_add %u into %d[%i] scatter_dims([0]) : (tensor<3xi32>, tensor<5xi32>, tensor<3x1xi32>) -> tensor<5xi32>
  return %r : tensor<5xi32>
}
func.func @scatter_mid(%u: tensor<2x3x1x2xf64>, %d: tensor<3x5x2xf64>, %i: tensor<2x1xindex>) -> (tensor<3x5x2xf64>, tensor<3x5x2xf64>) {
  %r = tensor.scatter %u into %d[%i] scatter_dims([1]) unique : (tensor<2x3x1x2xf64>, tensor<3x5x2xf64>, tensor<2x1xindex>) -> tensor<3x5x2xf64>
  return %r, %d : tensor<3x5x2xf64>, tensor<3x5x2xf64>
}
func.func @generate(%n: index, %x: f64) -> tensor<?x3xf64> {
  %t = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %c3 = arith.constant 3 : index
    %a = arith.muli %i, %c3 : index
    %b = arith.addi %a, %j : index
    %c = arith.index_cast %b : index to i64
    %f = arith.sitofp %c : i64 to f64
    %y = arith.mulf %f, %x : f64
    tensor.yield %y : f64
  } : tensor<?x3xf64>
  return %t : tensor<?x3xf64>
}
func.func @rank(%t: tensor<?x3xf64>) -> index {
  %r = tensor.rank %t : tensor<?x3xf64>
  return %r : index
}
"""

RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def both():
    return irt.compile(SRC), irt.parse(SRC)


def _run(both, name, *args):
    exe, module = both
    got = exe[name](*args)
    want = irt.interpret(module, name, *args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    return want


@pytest.mark.parametrize("n_rows,n_ids", [(10, 3), (1, 1), (5, 0), (0, 0)])
def test_gather_rows(both, n_rows, n_ids):
    t = RNG.standard_normal((n_rows, 4))
    ids = RNG.integers(0, max(n_rows, 1), size=(n_ids, 1)).astype(np.int64)
    (g,) = _run(both, "gather_rows", t, ids)
    np.testing.assert_array_equal(g, t[ids[:, 0]])


def test_gather_slices(both):
    t = RNG.standard_normal((3, 5, 2))
    i = np.array([[4], [0], [4], [2]])
    (g,) = _run(both, "gather_mid", t, i)
    np.testing.assert_array_equal(g, np.moveaxis(t[:, i[:, 0], :], 1, 0)[:, :, None, :])
    t32 = t.astype(np.float32)
    i2 = np.array([[[2, 1], [0, 0]], [[1, 1], [2, 0]]], dtype=np.int32)
    (g,) = _run(both, "gather_two", t32, i2)
    np.testing.assert_array_equal(g, t32[i2[..., 0], :, i2[..., 1]])
    p = RNG.standard_normal((3, 4))
    i3 = np.array([[0, 0], [2, 3], [1, 2], [2, 0], [0, 3]])
    (g,) = _run(both, "gather_points", p, i3)
    np.testing.assert_array_equal(g, p[i3[:, 0], i3[:, 1]])


@pytest.mark.parametrize("ids", [[3, 0, 3, 3], [9], [], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]])
def test_scatter_add_duplicates_accumulate(both, ids):
    d = RNG.standard_normal((10, 4))
    u = RNG.standard_normal((len(ids), 4))
    i = np.array(ids, dtype=np.int64).reshape(-1, 1)
    (r,) = _run(both, "scatter_add_rows", u, d, i)
    want = d.copy()
    np.add.at(want, i[:, 0], u)
    np.testing.assert_allclose(r, want, rtol=0, atol=1e-15)


def test_scatter_add_integers(both):
    (r,) = _run(both, "scatter_add_int", np.array([1, 2, 3], np.int32), np.arange(5, dtype=np.int32),
                np.array([[4], [4], [0]], np.int32))
    np.testing.assert_array_equal(r, [3, 1, 2, 3, 7])


def test_scatter_overwrites_and_leaves_dest(both):
    d = RNG.standard_normal((3, 5, 2))
    u = RNG.standard_normal((2, 3, 1, 2))
    r, d_after = _run(both, "scatter_mid", u, d, np.array([[3], [1]]))
    want = d.copy()
    want[:, 3, :] = u[0, :, 0, :]
    want[:, 1, :] = u[1, :, 0, :]
    np.testing.assert_array_equal(r, want)
    np.testing.assert_array_equal(d_after, d)  # the argument is not written


@pytest.mark.parametrize("n", [4, 1, 0])
def test_generate_and_rank(both, n):
    (t,) = _run(both, "generate", n, 0.5)
    np.testing.assert_array_equal(t, 0.5 * np.arange(3 * n, dtype=np.float64).reshape(n, 3))
    (r,) = _run(both, "rank", np.zeros((n, 3)))
    assert int(r) == 2


@pytest.mark.parametrize("bad", [10, -1])
def test_out_of_range_is_a_located_error_in_both(both, bad):
    exe, module = both
    t = np.zeros((10, 4))
    ids = np.array([[2], [bad]], dtype=np.int64)
    with pytest.raises(DiagnosticError, match="tensor.gather"):
        irt.interpret(module, "gather_rows", t, ids)
    with pytest.raises(Exception, match="'tensor.gather' op index out of bounds in dim 0"):
        exe["gather_rows"](t, ids)
    with pytest.raises(Exception, match="'tensor.scatter_add' op index out of bounds in dim 0"):
        exe["scatter_add_rows"](np.zeros((2, 4)), t, ids)
