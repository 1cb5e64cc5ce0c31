"""``loop.parallel`` with ``loop.reduce`` (sum, max, min, product), reverse and forward mode,
vs finite differences, interpreted and compiled; nested with ``loop.for``; activity; errors."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

sys.path.insert(0, os.path.dirname(__file__))
from adcheck import add_grad, check_grad, check_jvp, run1  # noqa: E402

COMBINER = {"sum": "arith.addf", "max": "arith.maximumf", "min": "arith.minimumf",
            "product": "arith.mulf", "maxnum": "arith.maxnumf", "minnum": "arith.minnumf"}
INIT = {"sum": "0.0", "max": "0xFFF0000000000000", "min": "0x7FF0000000000000", "product": "1.0",
        "maxnum": "-5.0", "minnum": "5.0"}


def reduction(kind):
    """@f(x, w, c) = c * reduce_kind_i(x[i] * w): the init is a term too."""
    return f"""
func.func @f(%x: tensor<5xf64>, %w: f64, %c: f64, %init: f64) -> f64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = loop.parallel (%i) = (%c0) to (%c5) step (%c1) init (%init) -> f64 {{
    %v = tensor.extract %x[%i] : tensor<5xf64>
    %u = arith.mulf %v, %w : f64
    loop.reduce(%u : f64) {{
    ^bb0(%l: f64, %rr: f64):
      %a = {COMBINER[kind]} %l, %rr : f64
      loop.reduce.return %a : f64
    }}
  }}
  %y = arith.mulf %r, %c : f64
  return %y : f64
}}
"""


TYPES = ["tensor<5xf64>", "f64", "f64", "f64"]
X = np.array([0.3, -0.5, 0.9, 1.2, -0.7])


# maxnumf/minnumf reductions compiled: LLVM's loop vectorizer miscompiles (or aborts on) a
# loop reducing with llvm.maxnum/minnum, primal code included; interpreted only until
# to_llvm stops emitting those intrinsics for reductions
CASES = [(k, b) for k in sorted(COMBINER) for b in ("interp", "jit") if b == "interp" or "num" not in k]


@pytest.mark.parametrize(("kind", "backend"), CASES)
def test_reductions_against_finite_differences(kind, backend):
    src = reduction(kind)
    init = {"sum": 0.25, "product": 0.9}.get(kind, 0.1)
    args = [X, np.float64(0.8), np.float64(1.3), np.float64(init)]
    check_grad(src, "f", TYPES, args, backend=backend)
    check_jvp(src, "f", TYPES, ["f64"], args, backend=backend)


@pytest.mark.parametrize("zeros", [1, 2])
def test_product_with_zero_terms(zeros, backend):
    """d prod / d v_i: the product of the others (no division by the zero term)."""
    x = X.copy()
    x[1] = 0.0
    if zeros == 2:
        x[3] = 0.0
    args = [x, np.float64(1.0), np.float64(1.0), np.float64(2.0)]
    gx, gw, gc, gi = run1(add_grad(reduction("product"), "f", TYPES, [0, 1, 2, 3]), backend, "__d", *args)
    want = np.zeros(5)
    if zeros == 1:
        want[1] = 2.0 * np.prod(np.delete(x, 1))
    np.testing.assert_allclose(gx, want, rtol=1e-15)
    assert gi == 0.0 and gc == 0.0
    # forward mode along e_1: the same entry
    jvp = add_grad(reduction("product"), "f", TYPES, [0], "jvp", ["f64"])
    e1 = np.eye(5)[1]
    assert run1(jvp, backend, "__d", *args, e1)[1] == pytest.approx(want[1], rel=1e-15)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_ties_split_evenly(kind, backend):
    """Three terms (one of them the init) equal the max: each gets 1/3 (SPEC §6)."""
    x = np.array([1.0, 3.0, -2.0, 3.0, 0.5]) * (1 if kind == "max" else -1)
    args = [x, np.float64(1.0), np.float64(1.0), np.float64(x[1])]
    gx, gi = run1(add_grad(reduction(kind), "f", TYPES, [0, 3]), backend, "__d", *args)
    np.testing.assert_allclose(gx, [0, 1 / 3, 0, 1 / 3, 0], rtol=1e-15)
    assert gi == pytest.approx(1 / 3, rel=1e-15)
    jvp = add_grad(reduction(kind), "f", TYPES, [0, 3], "jvp", ["f64"])
    _, dy = run1(jvp, backend, "__d", *args, np.ones(5), np.float64(1.0))
    assert dy == pytest.approx(1.0, rel=1e-15)


TWO_D = """
func.func @f(%x: tensor<6x4xf64>, %b: tensor<4xf64>, %n: index) -> f64 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %s, %p = loop.parallel (%i, %j) = (%c1, %c1) to (%n, %c4) step (%c2, %c1) init (%z, %one) -> (f64, f64) {
    %v = tensor.extract %x[%i, %j] : tensor<6x4xf64>
    %bj = tensor.extract %b[%j] : tensor<4xf64>
    %u = arith.mulf %v, %bj : f64
    %t = math.tanh %u : f64
    %e = math.exp %t : f64
    loop.reduce(%t, %e : f64, f64) {
    ^bb0(%l: f64, %r: f64):
      %a = arith.addf %r, %l : f64
      loop.reduce.return %a : f64
    }, {
    ^bb0(%l: f64, %r: f64):
      %a = arith.mulf %l, %r : f64
      loop.reduce.return %a : f64
    }
  }
  %y = arith.addf %s, %p : f64
  return %y : f64
}
"""


@pytest.mark.parametrize("n", [0, 1, 6])
def test_two_dimensions_bounds_and_steps(n, backend):
    rng = np.random.default_rng(5)
    types = ["tensor<6x4xf64>", "tensor<4xf64>", "index"]
    args = [rng.uniform(-1, 1, (6, 4)), rng.uniform(-1, 1, 4), n]
    check_grad(TWO_D, "f", types, args, wrt=[0, 1], backend=backend)
    check_jvp(TWO_D, "f", types, ["f64"], args, wrt=[0, 1], backend=backend)


NESTED = """
func.func @f(%x: tensor<4xf64>, %w: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %r = loop.for %k = %c0 to %c3 step %c1 iter_args(%acc = %w) -> (f64) {
    %s, %m = loop.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z, %ninf) -> (f64, f64) {
      %v = tensor.extract %x[%i] : tensor<4xf64>
      %inner = loop.for %j = %c0 to %c3 step %c1 iter_args(%h = %v) -> (f64) {
        %hw = arith.mulf %h, %acc : f64
        %t = math.tanh %hw : f64
        loop.yield %t : f64
      }
      loop.reduce(%inner, %inner : f64, f64) {
      ^bb0(%l: f64, %r: f64):
        %a = arith.addf %l, %r : f64
        loop.reduce.return %a : f64
      }, {
      ^bb0(%l: f64, %r: f64):
        %a = arith.maximumf %l, %r : f64
        loop.reduce.return %a : f64
      }
    }
    %n = arith.addf %s, %m : f64
    %q = math.sin %n : f64
    loop.yield %q : f64
  }
  return %r : f64
}
"""


def test_nested_in_loop_for_and_holding_one(backend):
    args = [np.array([0.3, -0.4, 0.8, 0.1]), np.float64(0.9)]
    types = ["tensor<4xf64>", "f64"]
    check_grad(NESTED, "f", types, args, backend=backend)
    check_jvp(NESTED, "f", types, ["f64"], args, backend=backend)


NESTED_PARALLEL = """
func.func @f(%x: tensor<3x4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %s = loop.parallel (%i) = (%c0) to (%c3) step (%c1) init (%z) -> f64 {
    %m = loop.parallel (%j) = (%c0) to (%c4) step (%c1) init (%ninf) -> f64 {
      %v = tensor.extract %x[%i, %j] : tensor<3x4xf64>
      %t = math.sin %v : f64
      loop.reduce(%t : f64) {
      ^bb0(%l: f64, %r: f64):
        %a = arith.maximumf %l, %r : f64
        loop.reduce.return %a : f64
      }
    }
    %q = arith.mulf %m, %m : f64
    loop.reduce(%q : f64) {
    ^bb0(%l: f64, %r: f64):
      %a = arith.addf %l, %r : f64
      loop.reduce.return %a : f64
    }
  }
  return %s : f64
}
"""


def test_parallel_in_parallel(backend):
    """A sum over rows of the squared max of each row: a max reduction inside a sum's body."""
    x = np.random.default_rng(1).uniform(-1, 1, (3, 4))
    check_grad(NESTED_PARALLEL, "f", ["tensor<3x4xf64>"], [x], backend=backend)
    check_jvp(NESTED_PARALLEL, "f", ["tensor<3x4xf64>"], ["f64"], [x], backend=backend)


ROWS = """
func.func @f(%x: tensor<4x3xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %lo = arith.constant dense<-10.0> : tensor<3xf64>
  %s, %m = loop.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z, %lo) -> (tensor<3xf64>, tensor<3xf64>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
    %t = tensor.tanh %row : tensor<3xf64>
    loop.reduce(%t, %row : tensor<3xf64>, tensor<3xf64>) {
    ^bb0(%l: tensor<3xf64>, %r: tensor<3xf64>):
      %a = tensor.add %l, %r : tensor<3xf64>
      loop.reduce.return %a : tensor<3xf64>
    }, {
    ^bb0(%l: tensor<3xf64>, %r: tensor<3xf64>):
      %a = tensor.max %l, %r : tensor<3xf64>
      loop.reduce.return %a : tensor<3xf64>
    }
  }
  %q = tensor.mul %s, %m : tensor<3xf64>
  %r = tensor.reduce_sum %q [0] : tensor<3xf64> -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}
"""


def test_tensor_valued_reductions():
    """Reductions of tensors (elementwise combiners); interpreted: lower-tensor-to-loop does
    not lower a loop.parallel that carries tensors."""
    x = np.random.default_rng(2).uniform(-1, 1, (4, 3))
    check_grad(ROWS, "f", ["tensor<4x3xf64>"], [x])
    check_jvp(ROWS, "f", ["tensor<4x3xf64>"], ["f64"], [x])


ACTIVITY = """
func.func @f(%x: tensor<4xf64>, %w: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  %k, %s, %dead = loop.parallel (%i) = (%c0) to (%c4) step (%c1) init (%c0, %z, %z) -> (index, f64, f64) {
    %v = tensor.extract %x[%i] : tensor<4xf64>
    %u = arith.mulf %v, %w : f64
    %e = math.exp %u : f64
    %ii = arith.addi %i, %c1 : index
    loop.reduce(%ii, %u, %e : index, f64, f64) {
    ^bb0(%l: index, %r: index):
      %a = arith.addi %l, %r : index
      loop.reduce.return %a : index
    }, {
    ^bb0(%l: f64, %r: f64):
      %a = arith.addf %l, %r : f64
      loop.reduce.return %a : f64
    }, {
    ^bb0(%l: f64, %r: f64):
      %a = arith.addf %l, %r : f64
      %b = arith.mulf %a, %a : f64
      loop.reduce.return %b : f64
    }
  }
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = tensor.extract %x[%i] : tensor<4xf64>
    %u = arith.mulf %v, %w : f64
  }
  %kf = arith.index_cast %k : index to i64
  %kd = arith.sitofp %kf : i64 to f64
  %y = arith.mulf %s, %kd : f64
  return %y : f64
}
"""


def test_activity_inactive_reductions_get_no_code(backend):
    """An integer reduction, an unused one whose combiner has no rule and a loop.parallel
    without results: no derivative code, no error."""
    args = [np.array([0.3, -0.4, 0.8, 0.1]), np.float64(0.9)]
    types = ["tensor<4xf64>", "f64"]
    check_grad(ACTIVITY, "f", types, args, backend=backend)
    check_jvp(ACTIVITY, "f", types, ["f64"], args, backend=backend)
    m = irt.parse(add_grad(ACTIVITY, "f", types, [0, 1]))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    grad = next(op for op in m.body.block.ops if op.sym_name.data == "f_grad_0_1")
    text = str(grad)
    assert text.count("math.exp") == 1  # the primal loop's: the reverse sweep does not recompute it
    assert text.count("loop.for") == 1  # the reverse sweep
    assert text.count("loop.parallel") == 1  # the primal loop; a sum needs no counting loop


def test_active_reduction_without_a_rule_is_a_located_error():
    src = ACTIVITY.replace("%y = arith.mulf %s, %kd : f64", "%y0 = arith.mulf %s, %kd : f64\n"
                           "  %y = arith.addf %y0, %dead : f64")
    for mode in ("grad", "jvp"):
        m = irt.parse(add_grad(src, "f", ["tensor<4xf64>", "f64"], [1], mode, ["f64"]))
        with pytest.raises(DiagnosticError) as e:
            irt.run_pipeline(m, "ad")
        assert "cannot differentiate reduction #2" in e.value.message
        assert e.value.location.line == 12  # the loop.reduce
