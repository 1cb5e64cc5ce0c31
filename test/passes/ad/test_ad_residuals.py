"""Reverse loops that store residuals and stack outer products (passes/ad/residuals.py),
and the hoisting of loop invariants out of generated loops (passes/transforms/licm.py).

Every case is checked against central finite differences on the interpreter and
compiled; the IR checks assert the shape that makes the reverse sweep cheap."""

import numpy as np
import pytest
from adcheck import add_grad, check_grad

import irtoolkit as irt
from irtoolkit.passes.ad import residuals

# An RNN as bench W3 (h a column, h' = tanh(W h + U x_t + b)), N steps.
RNN = """
func.func @rnn(%w: tensor<3x3xf64>, %u: tensor<3x2xf64>, %b: tensor<3xf64>, %xs: tensor<NNx2xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %h0 = tensor.splat %zero : tensor<3x1xf64>
  %bc = tensor.broadcast %b [0] : tensor<3xf64> -> tensor<3x1xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant NN : index
  %hT = loop.for %i = %c0 to %n step %c1 iter_args(%h = %h0) -> (tensor<3x1xf64>) {
    %xt = tensor.extract_slice %xs[%i, 0] [1, 2] [1, 1] : tensor<NNx2xf64> to tensor<1x2xf64>
    %xc = tensor.transpose %xt [1, 0] : tensor<1x2xf64> -> tensor<2x1xf64>
    %wh = tensor.matmul %w, %h : (tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
    %ux = tensor.matmul %u, %xc : (tensor<3x2xf64>, tensor<2x1xf64>) -> tensor<3x1xf64>
    %s1 = tensor.add %wh, %ux : tensor<3x1xf64>
    %s2 = tensor.add %s1, %bc : tensor<3x1xf64>
    %hn = tensor.tanh %s2 : tensor<3x1xf64>
    loop.yield %hn : tensor<3x1xf64>
  }ATTR
  %sq = tensor.mul %hT, %hT : tensor<3x1xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<3x1xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""


def rnn(n: int, attr: str = "") -> str:
    return RNN.replace("NN", str(n)).replace("ATTR", attr)


def rnn_args(n: int):
    rng = np.random.default_rng(n)
    return [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((3, 2)),
            rng.standard_normal(3), rng.standard_normal((n, 2))]


RNN_TYPES = lambda n: ["tensor<3x3xf64>", "tensor<3x2xf64>", "tensor<3xf64>", f"tensor<{n}x2xf64>"]  # noqa: E731


@pytest.fixture
def stack_small(monkeypatch):
    """Stack outer products whatever their size (the default skips small ones)."""
    monkeypatch.setattr(residuals, "MIN_OUTER_ELEMENTS", 0)
    monkeypatch.setattr(residuals, "MAX_STORED_FRACTION", 0)


def generated(m, name):
    return next(op for op in m.body.block.ops if getattr(op, "sym_name", None) and op.sym_name.data == name)


def loops(f):
    return [op for op in f.body.block.ops if op.name == "loop.for"]


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_rnn_stacked_outer_products(n, stack_small, backend):
    src = rnn(n)
    check_grad(src, "rnn", RNN_TYPES(n), rnn_args(n), wrt=[0, 1, 2], backend=backend)
    if n < 2:
        return  # nothing to stack (canonicalize erases or inlines the loops)
    m = irt.parse(add_grad(src, "rnn", RNN_TYPES(n), [0, 1, 2]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    f = generated(m, "rnn_grad_0_1_2")
    fwd, rev = loops(f)
    in_rev = [op.name for op in rev.walk()]
    assert "tensor.tanh" not in in_rev  # read from the residual tape
    # dW and dU are one matmul each after the reverse loop, contracting over the steps
    after = [op for op in f.body.block.ops if op.name == "tensor.matmul"]
    assert sorted(str(op.results[0].type) for op in after) == ["tensor<3x2xf64>", "tensor<3x3xf64>"]
    assert all(op.operands[0].type.get_shape()[1] == n for op in after)
    # inside the reverse loop: only the adjoint matvec W^T dz, with W^T hoisted
    mm = [op for op in rev.walk() if op.name == "tensor.matmul"]
    assert len(mm) == 1 and mm[0].operands[0].owner.parent_block() is f.body.block
    # one tape of dz written by the reverse loop; U's rows are %xs itself
    assert [str(v.type) for v in rev.iter_args][-1] == f"tensor<{n}x3x1xf64>"


def test_rnn_default_threshold_keeps_small_outer_products():
    m = irt.parse(add_grad(rnn(4), "rnn", RNN_TYPES(4), [0, 1, 2]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "rnn_grad_0_1_2"))
    # 3x3 outer products are cheaper accumulated in the loop than stacked
    assert sum(op.name == "tensor.matmul" for op in rev.walk()) == 3


def test_residuals_bounded_by_memory(monkeypatch, backend):
    monkeypatch.setattr(residuals, "MAX_TAPE_ELEMENTS", 8)  # 4 steps x 3 > 8: recompute
    src = rnn(4)
    check_grad(src, "rnn", RNN_TYPES(4), rnn_args(4), wrt=[0, 1, 2], backend=backend)
    m = irt.parse(add_grad(src, "rnn", RNN_TYPES(4), [0, 1, 2]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "rnn_grad_0_1_2"))
    assert len(fwd.iter_args) == 2  # h and its tape only
    assert "tensor.tanh" in [op.name for op in rev.walk()]


# A batched RNN: rows h (B x H), h' = tanh(h W + x_t U); the contraction of the
# weight adjoints h^T dz and x_t^T dz is the batch (k = B > 1).
BATCH = """
func.func @brnn(%w: tensor<3x3xf64>, %u: tensor<2x3xf64>, %xs: tensor<4x2x2xf64>, %h0: tensor<2x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %hT = loop.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0) -> (tensor<2x3xf64>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<4x2x2xf64> to tensor<2x2xf64>
    %hw = tensor.matmul %h, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
    %xu = tensor.matmul %x, %u : (tensor<2x2xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %s = tensor.add %hw, %xu : tensor<2x3xf64>
    %hn = tensor.tanh %s : tensor<2x3xf64>
    loop.yield %hn : tensor<2x3xf64>
  }
  %sq = tensor.mul %hT, %hT : tensor<2x3xf64>
  %s = tensor.reduce_sum %sq [0, 1] : tensor<2x3xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""
BATCH_TYPES = ["tensor<3x3xf64>", "tensor<2x3xf64>", "tensor<4x2x2xf64>", "tensor<2x3xf64>"]


def test_batched_rnn_stacked_over_batch_and_steps(stack_small, backend):
    rng = np.random.default_rng(7)
    args = [rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((2, 3)),
            rng.standard_normal((4, 2, 2)), rng.standard_normal((2, 3))]
    check_grad(BATCH, "brnn", BATCH_TYPES, args, wrt=[0, 1, 3], backend=backend)
    m = irt.parse(add_grad(BATCH, "brnn", BATCH_TYPES, [0, 1, 3]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    f = generated(m, "brnn_grad_0_1_3")
    assert not [op for op in f.body.block.ops if op.name in ("tensor.matmul", "tensor.collapse_shape")]
    # x_t U is one dot over all steps before the loop (sliced_products.py); after the
    # loop, dW = H^T DZ (the tapes read in place) and dU = X^T DZ are each one dot,
    # contracting over the 4 steps and the 2 rows
    dots = [op for op in f.body.block.ops if op.name == "tensor.dot"]
    assert [op.operands[1].type.get_shape() for op in dots] == [(2, 3), (4, 2, 3), (4, 2, 3)]
    assert [str(op.results[0].type) for op in dots[1:]] == ["tensor<3x3xf64>", "tensor<2x3xf64>"]
    assert all(op.dims.lhs_contract == op.dims.rhs_contract == (0, 1) for op in dots[1:])


# Residuals of scalar loops: exp and a call of a pure function are stored, not recomputed.
SCALAR = """
func.func @sq(%x: f64) -> f64 {
  %a = arith.mulf %x, %x : f64
  return %a : f64
}
func.func @s(%x: f64, %y: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant NN : index
  %r = loop.for %i = %c0 to %cn step %c1 iter_args(%a = %x) -> (f64) {
    %e = math.exp %a : f64
    %q = func.call @sq(%e) : (f64) -> f64
    %t = arith.mulf %q, %y : f64
    %u = arith.mulf %t, %e : f64
    %v = arith.mulf %u, %a : f64
    loop.yield %v : f64
  }
  return %r : f64
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_scalar_residuals(n, backend):
    src = SCALAR.replace("NN", str(n))
    check_grad(src, "s", ["f64", "f64"], [np.float64(0.3), np.float64(0.7)], backend=backend)
    if n < 2:
        return  # canonicalize erases or inlines the loops
    m = irt.parse(add_grad(src, "s", ["f64", "f64"], [0, 1]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "s_grad_0_1"))
    # stored: the carried %a, exp(%a) and sq(exp(%a)); nothing expensive is recomputed
    assert len(fwd.iter_args) == 4
    names = [op.name for op in rev.walk()]
    calls = [op.callee.string_value() for op in rev.walk() if op.name == "func.call"]
    assert "math.exp" not in names and calls == ["sq_vjp_0"]


WHILE = """
func.func @w(%x: f64, %k: f64) -> f64 {
  %lim = arith.constant 5.0 : f64
  %r = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %lim : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %t = math.tanh %v2 : f64
    %m = arith.mulf %t, %k : f64
    %n = arith.addf %v2, %m : f64
    %one = arith.constant 1.0 : f64
    %n2 = arith.addf %n, %one : f64
    loop.yield %n2 : f64
  }
  return %r : f64
}
"""


@pytest.mark.parametrize("x", [0.2, 7.0])
def test_dynamic_trip_count_residual_tape(x, backend):
    check_grad(WHILE, "w", ["f64", "f64"], [np.float64(x), np.float64(1.3)], backend=backend)
    m = irt.parse(add_grad(WHILE, "w", ["f64", "f64"], [0, 1]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "w_grad_0_1"))
    # one tape of dynamic length: the tanh outputs (the reverse sweep needs
    # nothing else of an iteration, so the carried value is not stored)
    assert [str(v.type) for v in fwd.results[1:]] == ["tensor<?xf64>"]
    assert "math.tanh" not in [op.name for op in rev.walk()]


def test_checkpointed_loop_recomputes(stack_small, backend):
    src = rnn(6, ' {autodiff.checkpoint = "sqrt"}')
    check_grad(src, "rnn", RNN_TYPES(6), rnn_args(6), wrt=[0, 1, 2], backend=backend)
    m = irt.parse(add_grad(src, "rnn", RNN_TYPES(6), [0, 1, 2]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    f = generated(m, "rnn_grad_0_1_2")
    # segments are recomputed forward, storing their iterates and tanh outputs
    # (so the reverse sweep of a segment has no tanh): 2 segment starts, then
    # 3 iterates and 3 tanh outputs of one segment; 6 = 2 segments of exactly 3
    # iterations, so a segment's reverse stacks its outer products too (3 rows of
    # dz and of x_t, the h_t are the iterates' tape): one matmul per segment
    fwd, rev = loops(f)
    inner = [op for op in rev.walk() if op.name == "loop.for" and op is not rev]
    seg_forward, seg_reverse = inner
    assert "tensor.tanh" in [op.name for op in seg_forward.walk()]
    assert "tensor.tanh" not in [op.name for op in seg_reverse.walk()]
    assert [op.name for op in seg_reverse.walk()].count("tensor.matmul") == 1  # W^T dz only
    stored = sum(int(np.prod(op.results[0].type.get_shape())) * len(list(op.results[0].uses))
                 for op in f.walk() if op.name == "tensor.empty")
    assert stored == 2 * 3 + 3 * 3 + 3 * 3 + 3 * 3 + 3 * 2


def test_rnn_32_stacked_matches_numpy():
    """At the default threshold (hidden 32): compiled = interpreted = numpy by hand."""
    n, hdim = 6, 32
    src = open(__file__.replace("test_ad_residuals.py", "rnn_reverse.mlir")).read()
    src = src.replace("10x32", f"{n}x32").replace("arith.constant 10 : index", f"arith.constant {n} : index")
    rng = np.random.default_rng(3)
    w, u = rng.standard_normal((hdim, hdim)) * 0.2, rng.standard_normal((hdim, hdim)) * 0.2
    b, xs = rng.standard_normal(hdim), rng.standard_normal((n, hdim))
    m = irt.parse(src)
    got = irt.compile(m)["grad"](w, u, b, xs)
    interp = irt.interpret(m, "grad", w, u, b, xs)
    hs, h = [], np.zeros(hdim)
    for t in range(n):
        hs.append(h)
        h = np.tanh(w @ h + u @ xs[t] + b)
    dh, gw, gu, gb = 2 * h, 0 * w, 0 * u, 0 * b
    for t in reversed(range(n)):
        hn = np.tanh(w @ hs[t] + u @ xs[t] + b)
        dz = dh * (1 - hn * hn)
        gw += np.outer(dz, hs[t])
        gu += np.outer(dz, xs[t])
        gb += dz
        dh = w.T @ dz
    for g, i, want in zip(got, interp, (gw, gu, gb)):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(i, want, rtol=1e-12, atol=1e-12)


# As bench W4: the reduction deciding the branch is stored (a 0-d residual per
# iteration), so the reverse sweep does not sum x again to find the branch taken.
BRANCH = """
func.func @b(%x0: tensor<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 6 : index
  %zero = arith.constant 0.0 : f64
  %xf = loop.for %i = %c0 to %n step %c1 iter_args(%x = %x0) -> (tensor<5xf64>) {
    %s = tensor.reduce_sum %x [0] : tensor<5xf64> -> tensor<f64>
    %se = tensor.extract %s[] : tensor<f64>
    %pos = arith.cmpf ogt, %se, %zero : f64
    %xn = loop.if %pos -> (tensor<5xf64>) {
      %sx = tensor.sin %x : tensor<5xf64>
      %c = arith.constant dense<0.9> : tensor<5xf64>
      %r = tensor.mul %sx, %c : tensor<5xf64>
      loop.yield %r : tensor<5xf64>
    } else {
      %cx = tensor.cos %x : tensor<5xf64>
      %c = arith.constant dense<0.1> : tensor<5xf64>
      %r = tensor.add %cx, %c : tensor<5xf64>
      loop.yield %r : tensor<5xf64>
    }
    loop.yield %xn : tensor<5xf64>
  }
  %sq = tensor.mul %xf, %xf : tensor<5xf64>
  %t = tensor.reduce_sum %sq [0] : tensor<5xf64> -> tensor<f64>
  %v = tensor.extract %t[] : tensor<f64>
  return %v : f64
}
"""


def test_branch_reduction_is_stored(backend):
    x = np.array([0.4, -0.3, 0.2, -1.1, 0.5])
    check_grad(BRANCH, "b", ["tensor<5xf64>"], [x], backend=backend)
    m = irt.parse(add_grad(BRANCH, "b", ["tensor<5xf64>"], [0]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "b_grad_0"))
    assert [str(v.type) for v in fwd.results[1:]] == ["tensor<6x5xf64>", "tensor<6xf64>"]
    assert "tensor.reduce_sum" not in [op.name for op in rev.walk()]


def lstm_loss() -> str:
    """The minibatch LSTM of lstm_reverse.mlir (bench W9 in small), in f64."""
    src = open(__file__.replace("test_ad_residuals.py", "lstm_reverse.mlir")).read()
    return src[:src.index("func.func @grad")].replace("f32", "f64")


def test_lstm_weight_gradient_stacked_over_steps_and_batch(backend):
    """At the default thresholds, dWh = sum_t h_t^T dz_t (8 batch rows a step against a
    16x64 accumulator) is one matmul after the reverse loop, over all steps' rows."""
    src = lstm_loss()
    types = ["tensor<16x64xf64>", "tensor<4x8x64xf64>"]
    rng = np.random.default_rng(9)
    args = [rng.standard_normal((16, 64)) * 0.3, rng.standard_normal((4, 8, 64))]
    check_grad(src, "loss", types, args, wrt=[0, 1], backend=backend)
    m = irt.parse(add_grad(src, "loss", types, [0, 1]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    fwd, rev = loops(generated(m, "loss_grad_0_1"))
    assert [op.name for op in rev.walk()].count("tensor.matmul") == 1  # dz_t Wh^T only
    after = [op for op in generated(m, "loss_grad_0_1").body.block.ops if op.name == "tensor.dot"]
    assert [str(op.results[0].type) for op in after] == ["tensor<16x64xf64>"]
    assert after[0].operands[0].type.get_shape() == (4, 8, 16)  # the forward tape of h
    assert after[0].dims.lhs_contract == after[0].dims.rhs_contract == (0, 1)  # steps and batch


TAPES = """
func.func @f(%x: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = arith.constant 4 : index
  %init = arith.constant dense<INIT> : tensor<4x3xf64>
  %e = tensor.empty() : tensor<4x3xf64>
  %a, %b = loop.for %i = %c0 to %n step %c1 iter_args(%ta = %e, %tb = %init) -> (tensor<4x3xf64>, tensor<4x3xf64>) {
    %j = arith.subi %c3, %i : index
    %r = tensor.extract_slice %x[%j, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
    %v = tensor.exp %r : tensor<3xf64>
    %na = tensor.insert_slice %v into %ta[%j, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<4x3xf64>
    %old = tensor.extract_slice %tb[%j, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
    %s = tensor.add %old, %v : tensor<3xf64>
    %nb = tensor.insert_slice %s into %tb[%j, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<4x3xf64>
    loop.yield %na, %nb : tensor<4x3xf64>, tensor<4x3xf64>
  }
  func.return %a, %b : tensor<4x3xf64>, tensor<4x3xf64>
}
"""


@pytest.mark.parametrize("init, shared", [("0.0", True), ("1.0", False)])
def test_share_stacked_tapes(init, shared):
    """A tape adding each step's row into a zero init (the adjoint of a slice) is the
    same as the tape copying it, when the index visits every slot once (here the
    reverse n - 1 - i); from another init it is not."""
    m = irt.parse(TAPES.replace("INIT", init))
    x = np.random.default_rng(1).standard_normal((4, 3))
    want = irt.interpret(m, "f", x)
    f = generated(m, "f")
    assert residuals.share_stacked_tapes(f) == int(shared)
    irt.run_pipeline(m, "canonicalize")
    assert len(loops(f)[0].iter_args) == (1 if shared else 2)
    for got, w in zip(irt.interpret(m, "f", x), want):
        np.testing.assert_array_equal(got, w)
