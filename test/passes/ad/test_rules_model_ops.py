"""Derivative rules of the SPEC §3.1 ops (dot, reduce_min, reduce_prod, reverse; argmax,
argmin and iota non-differentiable) vs central finite differences, f64, reverse and
forward, interpreted and compiled; static, dynamic, size-0 and size-1 shapes."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import check_grad, check_jvp, grad_texts, register, run1  # noqa: E402

RNG = np.random.default_rng(4321)


def _tt(dims: str) -> str:
    return f"tensor<{dims}xf64>" if dims else "tensor<f64>"


def _loss(v: str, dims: str) -> str:
    """sum(v * v * w) as f64 (w = 1, 2, 3, ... along the last dim: a loss whose
    gradient differs per element), appended to a function body."""
    rank = len(dims.split("x")) if dims else 0
    all_dims = ", ".join(str(i) for i in range(rank))
    t = _tt(dims)
    return f"""  %sq = tensor.mul {v}, {v} : {t}
  %sum = tensor.reduce_sum %sq [{all_dims}] : {t} -> tensor<f64>
  %l = tensor.extract %sum[] : tensor<f64>
  return %l : f64"""


# name: (operand dims, body computing %r from %a0, %a1 ..., result dims, runtime shapes per call)
CASES = {
    "dot_bmm": (["2x3x4", "2x4x2"], "%r = tensor.dot %a0, %a1 batch [0] x [0] contract [2] x [1] : "
                "(tensor<2x3x4xf64>, tensor<2x4x2xf64>) -> tensor<2x3x2xf64>", "2x3x2", None),
    "dot_heads": (["2x3x2x4", "2x3x2x4"], "%r = tensor.dot %a0, %a1 batch [0, 2] x [0, 2] contract [3] x [3] : "
                  "(tensor<2x3x2x4xf64>, tensor<2x3x2x4xf64>) -> tensor<2x2x3x3xf64>", "2x2x3x3", None),
    "dot_gather_t": (["4x3x2", "2x5x4"], "%r = tensor.dot %a0, %a1 batch [2] x [0] contract [0] x [2] : "
                     "(tensor<4x3x2xf64>, tensor<2x5x4xf64>) -> tensor<2x3x5xf64>", "2x3x5", None),
    "dot_transposed": (["4x3", "2x4"], "%r = tensor.dot %a0, %a1 contract [0] x [1] : "
                       "(tensor<4x3xf64>, tensor<2x4xf64>) -> tensor<3x2xf64>", "3x2", None),
    "dot_two_contract": (["2x3x4", "4x5x2"], "%r = tensor.dot %a0, %a1 contract [2, 0] x [0, 2] : "
                         "(tensor<2x3x4xf64>, tensor<4x5x2xf64>) -> tensor<3x5xf64>", "3x5", None),
    "dot_outer": (["3", "2"], "%r = tensor.dot %a0, %a1 : (tensor<3xf64>, tensor<2xf64>) -> tensor<3x2xf64>",
                  "3x2", None),
    "dot_full": (["2x3", "2x3"], "%r = tensor.dot %a0, %a1 contract [0, 1] x [0, 1] : "
                 "(tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<f64>", "", None),
    "dot_batch_only": (["3x2", "2x3"], "%r = tensor.dot %a0, %a1 batch [1, 0] x [0, 1] : "
                       "(tensor<3x2xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>", "2x3", None),
    "dot_dynamic": (["?x3x?", "?x?x2"], "%r = tensor.dot %a0, %a1 batch [0] x [0] contract [2] x [1] : "
                    "(tensor<?x3x?xf64>, tensor<?x?x2xf64>) -> tensor<?x3x2xf64>", "?x3x2",
                    [[(2, 3, 4), (2, 4, 2)], [(1, 3, 1), (1, 1, 2)], [(0, 3, 4), (0, 4, 2)], [(2, 3, 0), (2, 0, 2)]]),
    "reduce_min": (["3x4"], "%r = tensor.reduce_min %a0 [1] : tensor<3x4xf64> -> tensor<3xf64>", "3", None),
    # (over the static dim: an adjoint broadcast along a dynamic dim is unsupported, as
    # for reduce_sum and reduce_max)
    "reduce_min_dynamic": (["?x4"], "%r = tensor.reduce_min %a0 [1] : tensor<?x4xf64> -> tensor<?xf64>", "?",
                           [[(3, 4)], [(1, 4)], [(0, 4)]]),
    "reduce_prod": (["3x4"], "%r = tensor.reduce_prod %a0 [1] : tensor<3x4xf64> -> tensor<3xf64>", "3", None),
    "reduce_prod_dynamic": (["?x4"], "%r = tensor.reduce_prod %a0 [0, 1] : tensor<?x4xf64> -> tensor<f64>", "",
                            [[(3, 4)], [(1, 4)], [(0, 4)]]),
    "reverse": (["2x3"], "%r = tensor.reverse %a0 [1, 0] : tensor<2x3xf64>", "2x3", None),
    "reverse_dynamic": (["?x3"], "%r = tensor.reverse %a0 [0] : tensor<?x3xf64>", "?x3",
                        [[(4, 3)], [(1, 3)], [(0, 3)]]),
    # argmax picks the element whose value flows on; iota weights are constants
    "argmax_pick": (["4"], "%k = tensor.argmax %a0 [0] : tensor<4xf64> -> tensor<i64>\n"
                    "  %ke = tensor.extract %k[] : tensor<i64>\n  %i = arith.index_cast %ke : i64 to index\n"
                    "  %e = tensor.extract %a0[%i] : tensor<4xf64>\n  %r = tensor.splat %e : tensor<2xf64>", "2", None),
    "argmin_iota": (["3x4"], "%k = tensor.argmin %a0 [1] : tensor<3x4xf64> -> tensor<3xi64>\n"
                    "  %w = tensor.iota [1] : tensor<3x4xf64>\n  %kf = tensor.convert %k : tensor<3xi64> -> tensor<3xf64>\n"
                    "  %kb = tensor.broadcast %kf [0] : tensor<3xf64> -> tensor<3x4xf64>\n"
                    "  %w2 = tensor.add %w, %kb : tensor<3x4xf64>\n  %r = tensor.mul %a0, %w2 : tensor<3x4xf64>", "3x4", None),
}


def _src(name: str) -> str:
    dims, body, rdims, _ = CASES[name]
    args = ", ".join(f"%a{i}: {_tt(d)}" for i, d in enumerate(dims))
    return f"func.func @f({args}) -> f64 {{\n  {body}\n{_loss('%r', rdims)}\n}}\n"


def _types(name):
    return [_tt(d) for d in CASES[name][0]]


register(t for name in CASES for t in grad_texts(_src(name), "f", _types(name), ["f64"]))


def _inputs(name):
    dims, _, _, shapes = CASES[name]
    shapes = shapes or [[tuple(int(s) for s in d.split("x")) for d in dims]]
    lo = 0.5 if "prod" in name else -2.0  # away from the zeros the product's own test covers
    return [[RNG.uniform(lo, 2.0, s) for s in call] for call in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_op_derivatives(name, backend):
    for args in _inputs(name):
        check_grad(_src(name), "f", _types(name), args, backend=backend)
        check_jvp(_src(name), "f", _types(name), ["f64"], args, backend=backend)


PROD_SRC = """
func.func @f(%x: tensor<2x4xf64>) -> f64 {
  %p = tensor.reduce_prod %x [1] : tensor<2x4xf64> -> tensor<2xf64>
  %s = tensor.reduce_sum %p [0] : tensor<2xf64> -> tensor<f64>
  %l = tensor.extract %s[] : tensor<f64>
  return %l : f64
}
func.func @g(%x: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %d = autodiff.grad @f(%x) : (tensor<2x4xf64>) -> tensor<2x4xf64>
  return %d : tensor<2x4xf64>
}
"""


def test_reduce_prod_zeros(backend):
    """The product of the others, where rows hold one zero and two zeros (no 0/0)."""
    x = np.array([[2.0, 0.0, 3.0, -1.5], [0.0, 4.0, 0.0, 5.0]])
    got = run1(PROD_SRC, backend, "g", x)
    want = np.array([[0.0, 2.0 * 3.0 * -1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(got, want)
    check_grad(PROD_SRC, "f", ["tensor<2x4xf64>"], [x], backend=backend)


MIN_TIES_SRC = """
func.func @f(%x: tensor<2x3xf64>) -> f64 {
  %m = tensor.reduce_min %x [1] : tensor<2x3xf64> -> tensor<2xf64>
  %s = tensor.reduce_sum %m [0] : tensor<2xf64> -> tensor<f64>
  %l = tensor.extract %s[] : tensor<f64>
  return %l : f64
}
func.func @g(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %d = autodiff.grad @f(%x) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %d : tensor<2x3xf64>
}
"""


def test_reduce_min_ties_split(backend):
    x = np.array([[1.0, -2.0, -2.0], [0.5, 3.0, 0.25]])
    got = run1(MIN_TIES_SRC, backend, "g", x)
    np.testing.assert_array_equal(got, [[0.0, 0.5, 0.5], [0.0, 0.0, 1.0]])
