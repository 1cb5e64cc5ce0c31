"""Per-iteration products of a slice (``x_t @ W``) as one dot over all iterations before
the loop (passes/transforms/sliced_products.py), which the ad pass applies to the
function it differentiates: the rewritten loops against the interpreter on the original,
gradients against finite differences, and the loops it must leave alone."""

import numpy as np
import pytest
from adcheck import check_grad

import irtoolkit as irt
from irtoolkit.interpreter import interpret_function
from irtoolkit.passes.transforms.sliced_products import batch_sliced_products

# x_t @ W with the steps on dim 0, W @ x_t with them in the middle of xs, and a batched
# dot of a slice; h carries a dependency so that the loop is a real recurrence
SRC = """
func.func @rows(%xs: tensor<4x2x3xf64>, %w: tensor<3x5xf64>, %h0: tensor<2x5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %hT = loop.for %t = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<2x5xf64>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf64> to tensor<2x3xf64>
    %z = tensor.matmul %x, %w : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
    %m = tensor.mul %z, %h : tensor<2x5xf64>
    %hn = tensor.tanh %m : tensor<2x5xf64>
    loop.yield %hn : tensor<2x5xf64>
  }
  %s = tensor.reduce_sum %hT [0, 1] : tensor<2x5xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @middle(%w: tensor<5x3xf64>, %xs: tensor<3x4x2xf64>, %h0: tensor<5x2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %hT = loop.for %t = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<5x2xf64>) {
    %x = tensor.extract_slice %xs[0, %t, 0] [3, 1, 2] [1, 1, 1] : tensor<3x4x2xf64> to tensor<3x2xf64>
    %z = tensor.matmul %w, %x : (tensor<5x3xf64>, tensor<3x2xf64>) -> tensor<5x2xf64>
    %m = tensor.mul %z, %h : tensor<5x2xf64>
    %hn = tensor.sin %m : tensor<5x2xf64>
    loop.yield %hn : tensor<5x2xf64>
  }
  %s = tensor.reduce_sum %hT [0, 1] : tensor<5x2xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @batched(%xs: tensor<2x3x4x2xf64>, %w: tensor<2x4x3xf64>, %h0: tensor<2x3x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %hT = loop.for %t = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<2x3x3xf64>) {
    %x = tensor.extract_slice %xs[0, %t, 0, 0] [2, 1, 4, 2] [1, 1, 1, 1] : tensor<2x3x4x2xf64> to tensor<2x4x2xf64>
    %z = tensor.dot %w, %x batch [0] x [0] contract [1] x [1] : (tensor<2x4x3xf64>, tensor<2x4x2xf64>) -> tensor<2x3x2xf64>
    %zz = tensor.dot %z, %z batch [0] x [0] contract [2] x [2] : (tensor<2x3x2xf64>, tensor<2x3x2xf64>) -> tensor<2x3x3xf64>
    %m = tensor.mul %zz, %h : tensor<2x3x3xf64>
    %hn = tensor.tanh %m : tensor<2x3x3xf64>
    loop.yield %hn : tensor<2x3x3xf64>
  }
  %s = tensor.reduce_sum %hT [0, 1, 2] : tensor<2x3x3xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""

CASES = {
    "rows": ["tensor<4x2x3xf64>", "tensor<3x5xf64>", "tensor<2x5xf64>"],
    "middle": ["tensor<5x3xf64>", "tensor<3x4x2xf64>", "tensor<5x2xf64>"],
    "batched": ["tensor<2x3x4x2xf64>", "tensor<2x4x3xf64>", "tensor<2x3x3xf64>"],
}


def _args(types, seed=3):
    rng = np.random.default_rng(seed)
    shapes = [tuple(int(d) for d in t[len("tensor<"):-len("xf64>")].split("x")) for t in types]
    return [rng.standard_normal(s) * 0.7 for s in shapes]


def _loop_ops(m, name):
    f = next(o for o in m.body.block.ops if getattr(o, "sym_name", None) and o.sym_name.data == name)
    loop = next(o for o in f.body.block.ops if o.name == "loop.for")
    return f, [o.name for o in loop.walk()]


def test_products_leave_the_loop_and_agree():
    before, after = irt.parse(SRC), irt.parse(SRC)
    assert batch_sliced_products(after) == 3
    for name, types in CASES.items():
        f, inside = _loop_ops(after, name)
        # the product of the slice left the loop: rows and middle have none left, batched
        # keeps only the product of two loop values
        assert inside.count("tensor.matmul") + inside.count("tensor.dot") == (1 if name == "batched" else 0)
        assert [o.name for o in f.body.block.ops].count("tensor.dot") == 1
        args = _args(types)
        np.testing.assert_allclose(interpret_function(after, name, *args),
                                   interpret_function(before, name, *args), rtol=1e-13)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients(name, backend):
    check_grad(SRC, name, CASES[name], _args(CASES[name]), wrt=[0, 1, 2], backend=backend)


# loops the rewrite must leave alone: it does not start at 0, it runs over part of the
# steps, the slice is not at the induction variable, the weight is computed in the loop
LEFT = """
func.func @f(%xs: tensor<4x2x3xf64>, %w: tensor<3x5xf64>, %acc0: tensor<2x5xf64>) -> tensor<2x5xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = arith.constant 4 : index
  %a = loop.for %t = %c1 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<2x5xf64>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf64> to tensor<2x3xf64>
    %z = tensor.matmul %x, %w : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
    %s = tensor.add %acc, %z : tensor<2x5xf64>
    loop.yield %s : tensor<2x5xf64>
  }
  %b = loop.for %t = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<2x5xf64>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf64> to tensor<2x3xf64>
    %z = tensor.matmul %x, %w : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
    %s = tensor.add %acc, %z : tensor<2x5xf64>
    loop.yield %s : tensor<2x5xf64>
  }
  %c = loop.for %t = %c0 to %n step %c1 iter_args(%acc = %b) -> (tensor<2x5xf64>) {
    %r = arith.subi %c3, %t : index
    %x = tensor.extract_slice %xs[%r, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf64> to tensor<2x3xf64>
    %z = tensor.matmul %x, %w : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
    %s = tensor.add %acc, %z : tensor<2x5xf64>
    loop.yield %s : tensor<2x5xf64>
  }
  %d = loop.for %t = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<2x5xf64>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf64> to tensor<2x3xf64>
    %w2 = tensor.mul %w, %w : tensor<3x5xf64>
    %wt = tensor.add %w2, %w : tensor<3x5xf64>
    %ws = tensor.sin %wt : tensor<3x5xf64>
    %z = tensor.matmul %x, %ws : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
    %s = tensor.add %acc, %z : tensor<2x5xf64>
    loop.yield %s : tensor<2x5xf64>
  }
  func.return %d : tensor<2x5xf64>
}
"""


def test_loops_left_alone():
    m = irt.parse(LEFT)
    assert batch_sliced_products(m) == 0
