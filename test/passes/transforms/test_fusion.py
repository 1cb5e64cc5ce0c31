"""tensor-fuse: fused vs unfused results, on the interpreter and compiled; structure checks."""

from __future__ import annotations

import numpy as np
import pytest

import irtoolkit
from irtoolkit.pipeline import run_pipeline

LOWER = "lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"
FUSED = "tensor-fuse," + LOWER


def _fused(text: str, pre: str | None = None):
    m = irtoolkit.parse(text)
    if pre:
        run_pipeline(m, pre)
    run_pipeline(m, "tensor-fuse")
    return m


def _count(m, name: str, top_only_in: str | None = None) -> int:
    return sum(1 for o in m.walk() if o.name == name)


def _tensor_compute_ops(m) -> list[str]:
    from irtoolkit.dialects import tensor as T

    return [o.name for o in m.walk() if isinstance(o, T.COMPUTE_OPS)]


def check(text: str, fn: str, *args, pre: str | None = None, exact: bool = True, interp: bool = True):
    """Compare fused and unfused results: compiled (always), interpreted (if interp)."""
    pfx = (pre + ",") if pre else ""
    ref = irtoolkit.compile(irtoolkit.parse(text), pipeline=pfx + LOWER)[fn](*args)
    got = irtoolkit.compile(irtoolkit.parse(text), pipeline=pfx + FUSED)[fn](*args)
    ref, got = np.asarray(ref), np.asarray(got)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if exact:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-6 if ref.dtype == np.float32 else 1e-12)
    if interp:
        m0 = irtoolkit.parse(text)
        if pre:
            run_pipeline(m0, pre)
        iref = np.asarray(irtoolkit.interpret(m0, fn, *args))
        igot = np.asarray(irtoolkit.interpret(_fused(text, pre), fn, *args))
        tol = 1e-5 if iref.dtype == np.float32 else 1e-12
        fin = np.abs(iref[np.isfinite(iref)]) if iref.dtype.kind == "f" else np.abs(iref)
        scale = float(np.max(fin, initial=0))
        for v in (igot, got):  # the interpreter is numpy: libm may differ in the last bits
            np.testing.assert_allclose(v, iref, rtol=tol, atol=tol * scale)
    return got


W1 = """
func.func @loss(%x: tensor<{n}x{t}>) -> {t} {{
  %e = tensor.exp %x : tensor<{n}x{t}>
  %m = tensor.mul %e, %x : tensor<{n}x{t}>
  %one = arith.constant 1.0 : {t}
  %ones = tensor.splat %one : tensor<{n}x{t}>
  %a = tensor.add %m, %ones : tensor<{n}x{t}>
  %th = tensor.tanh %a : tensor<{n}x{t}>
  %s = tensor.reduce_sum %th [0] : tensor<{n}x{t}> -> tensor<{t}>
  %r = tensor.extract %s[] : tensor<{t}>
  func.return %r : {t}
}}
func.func @grad(%x: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
  %g = autodiff.grad @loss(%x) wrt [0] : (tensor<{n}x{t}>) -> tensor<{n}x{t}>
  func.return %g : tensor<{n}x{t}>
}}
"""


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_w1_loss_and_grad(t):
    text = W1.format(n=37, t=t)
    x = np.linspace(-2, 1, 37).astype(np.float32 if t == "f32" else np.float64)
    check(text, "loss", x, pre="ad")
    check(text, "grad", x, pre="ad")
    m = _fused(text, "ad,canonicalize,cse")
    # forward: exp, mul, add, tanh and the sum in one nest (37 terms: one block of a
    # blocked sum, its additions reassociable so that the loop vectorizes), no temporary;
    # gradient: the whole adjoint (primal recomputed) is one loop nest
    assert _tensor_compute_ops(m) == []
    assert _count(m, "loop.for") == 2
    assert _count(m, "tensor.empty") == 1
    assert sum(1 for o in m.walk() if o.name == "arith.addf" and "reassoc" in str(o)) == 1


def test_w1_grad_is_one_nest_without_canonicalize():
    m = _fused(W1.format(n=8, t="f64"), "ad")
    assert _tensor_compute_ops(m) == []
    assert _count(m, "loop.for") == 2


BCAST = """
func.func @f(%x: tensor<4x3x{t}>, %b: tensor<3x{t}>, %c: tensor<4x{t}>) -> tensor<4x3x{t}> {{
  %bb = tensor.broadcast %b [1] : tensor<3x{t}> -> tensor<4x3x{t}>
  %cb = tensor.broadcast %c [0] : tensor<4x{t}> -> tensor<4x3x{t}>
  %a = tensor.add %x, %bb : tensor<4x3x{t}>
  %m = tensor.mul %a, %cb : tensor<4x3x{t}>
  %z = arith.constant dense<0.0> : tensor<4x3x{t}>
  %r = tensor.max %m, %z : tensor<4x3x{t}>
  %g = tensor.cmp gt, %r, %x : tensor<4x3x{t}>
  %l = tensor.logistic %r : tensor<4x3x{t}>
  %s = tensor.select %g, %l, %a : tensor<4x3xi1>, tensor<4x3x{t}>
  func.return %s : tensor<4x3x{t}>
}}
"""


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_broadcasts_cmp_select(t):
    dt = np.float32 if t == "f32" else np.float64
    rng = np.random.default_rng(1)
    x, b, c = (rng.standard_normal(s).astype(dt) for s in [(4, 3), (3,), (4,)])
    x[0, 0] = np.nan  # max propagates NaN, cmp is ordered
    text = BCAST.format(t=t)
    check(text, "f", x, b, c)
    m = _fused(text)
    assert _tensor_compute_ops(m) == []
    assert _count(m, "loop.for") == 2  # one 2-d nest
    assert _count(m, "tensor.broadcast") == 0


REDUCE = """
func.func @rows(%x: tensor<5x7xf64>, %y: tensor<5x7xf64>) -> tensor<5xf64> {
  %a = tensor.mul %x, %y : tensor<5x7xf64>
  %e = tensor.sqrt %a : tensor<5x7xf64>
  %s = tensor.reduce_sum %e [1] : tensor<5x7xf64> -> tensor<5xf64>
  func.return %s : tensor<5xf64>
}
func.func @cols(%x: tensor<5x7xf64>, %y: tensor<5x7xf64>) -> tensor<7xf64> {
  %a = tensor.sub %x, %y : tensor<5x7xf64>
  %e = tensor.abs %a : tensor<5x7xf64>
  %s = tensor.reduce_max %e [0] : tensor<5x7xf64> -> tensor<7xf64>
  func.return %s : tensor<7xf64>
}
func.func @all(%x: tensor<5x7xf64>, %y: tensor<5x7xf64>) -> tensor<f64> {
  %a = tensor.div %x, %y : tensor<5x7xf64>
  %e = tensor.neg %a : tensor<5x7xf64>
  %s = tensor.reduce_sum %e [0, 1] : tensor<5x7xf64> -> tensor<f64>
  func.return %s : tensor<f64>
}
func.func @mid(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %n = tensor.neg %x : tensor<2x3x4xf32>
  %e = tensor.exp %n : tensor<2x3x4xf32>
  %s = tensor.reduce_sum %e [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  func.return %s : tensor<2x4xf32>
}
"""


@pytest.mark.parametrize("fn", ["rows", "cols", "all"])
def test_reductions_bit_identical(fn):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((2, 5, 7))
    x = np.abs(x)  # sqrt
    check(REDUCE, fn, x, y, exact=True)


def test_reduction_middle_dim_f32():
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
    check(REDUCE, "mid", x, exact=True)


def test_reductions_are_one_nest():
    m = _fused(REDUCE)
    # mid sums exp: the tree and the (blocked, reassociable) sum are one nest
    assert _tensor_compute_ops(m) == []
    # rows: 2 loops, cols: 2, all: 2, mid: 3 (static sizes below one sum block)
    assert _count(m, "loop.for") == 9


DYNAMIC = """
func.func @f(%x: tensor<?x3xf32>, %b: tensor<?xf32>) -> tensor<?x3xf32> {
  %bb = tensor.broadcast %b [0] : tensor<?xf32> -> tensor<?x3xf32>
  %a = tensor.mul %x, %bb : tensor<?x3xf32>
  %t = tensor.tanh %a : tensor<?x3xf32>
  %r = tensor.add %t, %x : tensor<?x3xf32>
  func.return %r : tensor<?x3xf32>
}
func.func @g(%x: tensor<?x?xf64>) -> tensor<?xf64> {
  %a = tensor.mul %x, %x : tensor<?x?xf64>
  %e = tensor.sqrt %a : tensor<?x?xf64>
  %s = tensor.reduce_sum %e [1] : tensor<?x?xf64> -> tensor<?xf64>
  func.return %s : tensor<?xf64>
}
func.func @h(%x: tensor<?xf64>) -> f64 {
  %a = tensor.mul %x, %x : tensor<?xf64>
  %e = tensor.abs %a : tensor<?xf64>
  %s = tensor.reduce_max %e [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""


def test_dynamic_dims():
    rng = np.random.default_rng(4)
    for n in (0, 1, 6):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        check(DYNAMIC, "f", x, b, exact=True)
    for shape in ((4, 5), (3, 0), (0, 2)):
        check(DYNAMIC, "g", rng.standard_normal(shape), exact=True)
    check(DYNAMIC, "h", rng.standard_normal(9) + 3.0, exact=True)
    assert float(irtoolkit.compile(irtoolkit.parse(DYNAMIC), pipeline=FUSED)["h"](np.zeros(0))) == -np.inf
    m = _fused(DYNAMIC)
    assert _tensor_compute_ops(m) == []
    assert _count(m, "tensor.dim") >= 3


ZERO_D = """
func.func @f(%x: tensor<f64>, %y: tensor<f64>) -> tensor<f64> {
  %a = tensor.pow %x, %y : tensor<f64>
  %b = tensor.min %a, %y : tensor<f64>
  func.return %b : tensor<f64>
}
"""


def test_zero_d():
    check(ZERO_D, "f", np.array(1.5), np.array(2.5))
    m = _fused(ZERO_D)
    assert _tensor_compute_ops(m) == []
    assert _count(m, "loop.for") == 0 and _count(m, "tensor.insert") == 1


SHARED = """
func.func @f(%x: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>) {
  %e = tensor.exp %x : tensor<6xf64>
  %a = tensor.sin %e : tensor<6xf64>
  %b = tensor.add %a, %e : tensor<6xf64>
  %c = tensor.mul %e, %x : tensor<6xf64>
  %d = tensor.neg %c : tensor<6xf64>
  func.return %b, %d : tensor<6xf64>, tensor<6xf64>
}
"""


def test_shared_intermediate_is_cut():
    x = np.linspace(-1, 1, 6)
    ref = irtoolkit.compile(irtoolkit.parse(SHARED), pipeline=LOWER)["f"](x)
    got = irtoolkit.compile(irtoolkit.parse(SHARED), pipeline=FUSED)["f"](x)
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r)
    m = _fused(SHARED)
    # %e is used by two groups: it stays a tensor op of its own (cut), read by both nests
    assert _tensor_compute_ops(m) == ["tensor.exp"]
    assert _count(m, "loop.for") == 2


INTS = """
func.func @f(%x: tensor<8xi32>, %y: tensor<8xi32>) -> tensor<8xf64> {
  %a = tensor.add %x, %y : tensor<8xi32>
  %m = tensor.cmp ne, %a, %x : tensor<8xi32>
  %s = tensor.select %m, %a, %y : tensor<8xi1>, tensor<8xi32>
  %c = tensor.convert %s : tensor<8xi32> -> tensor<8xf64>
  %d = tensor.convert %m : tensor<8xi1> -> tensor<8xf64>
  %r = tensor.sub %c, %d : tensor<8xf64>
  func.return %r : tensor<8xf64>
}
"""


def test_integers_convert_select():
    x = np.array([1, -2, 3, 0, 5, -6, 7, 8], dtype=np.int32)
    y = np.array([0, 2, 0, 4, 0, 6, 0, 1], dtype=np.int32)
    check(INTS, "f", x, y)
    assert _tensor_compute_ops(_fused(INTS)) == []


def test_single_op_left_alone():
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.exp %x : tensor<4xf32>
  func.return %e : tensor<4xf32>
}
"""
    m = _fused(text)
    assert _tensor_compute_ops(m) == ["tensor.exp"]
    assert _count(m, "loop.for") == 0


def test_no_fusion_across_matmul_and_transpose():
    text = """
func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<4x2xf64> {
  %e = tensor.exp %a : tensor<2x3xf64>
  %l = tensor.log %e : tensor<2x3xf64>
  %m = tensor.matmul %l, %b : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = tensor.transpose %m [1, 0] : tensor<2x4xf64> -> tensor<4x2xf64>
  %s = tensor.sin %t : tensor<4x2xf64>
  %c = tensor.cos %s : tensor<4x2xf64>
  func.return %c : tensor<4x2xf64>
}
"""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    check(text, "f", a, b)
    m = _fused(text)
    assert sorted(_tensor_compute_ops(m)) == ["tensor.matmul", "tensor.transpose"]
    assert _count(m, "loop.for") == 4


def test_fusion_inside_loop_body():
    text = """
func.func @f(%x: tensor<5xf64>, %n: index) -> tensor<5xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<5xf64>) {
    %s = tensor.sin %acc : tensor<5xf64>
    %m = tensor.mul %s, %x : tensor<5xf64>
    %a = tensor.add %m, %acc : tensor<5xf64>
    loop.yield %a : tensor<5xf64>
  }
  func.return %r : tensor<5xf64>
}
"""
    x = np.linspace(0, 1, 5)
    check(text, "f", x, 3)
    assert _tensor_compute_ops(_fused(text)) == []


def test_locations_inherited():
    from irtoolkit.diagnostics import location_of

    m = _fused(W1.format(n=4, t="f64"))
    f = next(o for o in m.walk() if o.name == "func.func")
    lines = {location_of(o).line for o in f.walk() if o.name in ("math.exp", "math.tanh", "arith.mulf")}
    assert lines == {3, 4, 8}  # exp, mul, tanh lines of W1
    loop = next(o for o in f.walk() if o.name == "loop.for")
    assert location_of(loop).line == 9  # the reduce_sum, root of the nest


# ---------------------------------------------------------------------------
# simplifications
# ---------------------------------------------------------------------------


def test_neutral_operands_are_canonicalize_s():
    """x * 1 and -0.0 + x vanish (canonicalize, which the lowering pipeline runs before
    tensor-fuse); +0.0 + x is kept: it is not x for x = -0.0."""
    text = """
func.func @f(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %one = arith.constant dense<1.0> : tensor<f64>
  %b = tensor.broadcast %one [] : tensor<f64> -> tensor<4xf64>
  %m = tensor.mul %b, %x : tensor<4xf64>
  %nz = arith.constant -0.0 : f64
  %nzs = tensor.splat %nz : tensor<4xf64>
  %a = tensor.add %nzs, %m : tensor<4xf64>
  %z = arith.constant 0.0 : f64
  %zs = tensor.splat %z : tensor<4xf64>
  %k = tensor.add %zs, %m : tensor<4xf64>
  func.return %a, %k : tensor<4xf64>, tensor<4xf64>
}
"""
    m = irtoolkit.parse(text)
    run_pipeline(m, "canonicalize")
    assert _tensor_compute_ops(m) == ["tensor.add"]
    ret = next(o for o in m.walk() if o.name == "func.return")
    x = next(o for o in m.walk() if o.name == "func.func").body.blocks.first.args[0]
    assert ret.operands[0] is x and ret.operands[1].owner.name == "tensor.add"
    got = irtoolkit.compile(m)["f"](np.array([-0.0, 1.0, 2.0, 3.0]))
    assert np.signbit(got[0][0]) and not np.signbit(got[1][0])


def test_reduce_of_broadcast():
    text = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %b = tensor.broadcast %x [1] : tensor<3xf64> -> tensor<4x3x5xf64>
  %s = tensor.reduce_sum %b [0, 2] : tensor<4x3x5xf64> -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}
func.func @g(%x: tensor<3xf64>) -> tensor<4x3xf64> {
  %b = tensor.broadcast %x [1] : tensor<3xf64> -> tensor<4x3x5xf64>
  %s = tensor.reduce_sum %b [2] : tensor<4x3x5xf64> -> tensor<4x3xf64>
  func.return %s : tensor<4x3xf64>
}
func.func @h(%x: tensor<3xf64>) -> tensor<3xf64> {
  %b = tensor.broadcast %x [0] : tensor<3xf64> -> tensor<3x6xf64>
  %s = tensor.reduce_max %b [1] : tensor<3x6xf64> -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}
"""
    x = np.array([0.1, -2.0, 3.5])
    exe = irtoolkit.compile(irtoolkit.parse(text), pipeline=FUSED)
    np.testing.assert_allclose(exe["f"](x), x * 20)
    np.testing.assert_allclose(exe["g"](x), np.broadcast_to(x * 5, (4, 3)))
    np.testing.assert_array_equal(exe["h"](x), x)
    m = _fused(text)
    names = _tensor_compute_ops(m)
    assert "tensor.reduce_sum" not in names and "tensor.reduce_max" not in names
    np.testing.assert_allclose(irtoolkit.interpret(m, "g", x), np.broadcast_to(x * 5, (4, 3)))


SUM_MATMUL = """
func.func @loss(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>) -> f64 {
  %c = tensor.matmul %a, %b : (tensor<3x4xf64>, tensor<4x5xf64>) -> tensor<3x5xf64>
  %s = tensor.reduce_sum %c [0, 1] : tensor<3x5xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @grad(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>) {
  %g:2 = autodiff.grad @loss(%a, %b) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>)
  func.return %g#0, %g#1 : tensor<3x4xf64>, tensor<4x5xf64>
}
func.func @scaled(%a: tensor<3x4xf64>) -> tensor<3x2xf64> {
  %c = arith.constant dense<2.5> : tensor<4x2xf64>
  %m = tensor.matmul %a, %c : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
  func.return %m : tensor<3x2xf64>
}
func.func @ones_lhs(%a: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %one = arith.constant 1.0 : f64
  %v = tensor.splat %one : tensor<2x3xf64>
  %m = tensor.matmul %v, %a : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  func.return %m : tensor<2x4xf64>
}
"""


def test_matmul_with_splat_needs_no_gemm():
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    m = irtoolkit.parse(SUM_MATMUL)
    run_pipeline(m, "ad,canonicalize,cse,tensor-fuse")
    grad_fn = next(o for o in m.walk() if o.name == "func.func" and "grad_" in o.sym_name.data)
    assert not any(o.name == "tensor.matmul" for o in grad_fn.walk())
    ga, gb = irtoolkit.compile(irtoolkit.parse(SUM_MATMUL), pipeline="ad,canonicalize,cse," + FUSED)["grad"](a, b)
    np.testing.assert_allclose(ga, np.broadcast_to(b.sum(axis=1), (3, 4)), rtol=1e-13)
    np.testing.assert_allclose(gb, np.broadcast_to(a.sum(axis=0)[:, None], (4, 5)), rtol=1e-13)
    exe = irtoolkit.compile(irtoolkit.parse(SUM_MATMUL), pipeline="ad," + FUSED)
    np.testing.assert_allclose(exe["loss"](a, b), (a @ b).sum(), rtol=1e-13)
    np.testing.assert_allclose(exe["scaled"](a), a @ np.full((4, 2), 2.5), rtol=1e-13)
    np.testing.assert_allclose(exe["ones_lhs"](a), np.ones((2, 3)) @ a, rtol=1e-13)
    ms = _fused(SUM_MATMUL)
    for name in ("scaled", "ones_lhs"):
        f = next(o for o in ms.walk() if o.name == "func.func" and o.sym_name.data == name)
        assert not any(o.name == "tensor.matmul" for o in f.walk())
    np.testing.assert_allclose(irtoolkit.interpret(ms, "scaled", a), a @ np.full((4, 2), 2.5), rtol=1e-13)


def test_pass_options():
    m = irtoolkit.parse(BCAST.format(t="f32"))
    run_pipeline(m, "tensor-fuse{fuse=false}")
    assert _count(m, "loop.for") == 0
    m = irtoolkit.parse(SUM_MATMUL)
    run_pipeline(m, "tensor-fuse{simplify=false}")
    assert _count(m, "tensor.matmul") == 3


# ---------------------------------------------------------------------------
# run-time shape checks of fused ops
# ---------------------------------------------------------------------------

CHECKS = """\
func.func @chain2(%x: tensor<?x?xf64>, %y: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %e = tensor.exp %x : tensor<?x?xf64>
  %s = tensor.sub %e, %y : tensor<?x?xf64>
  %t = tensor.tanh %s : tensor<?x?xf64>
  func.return %t : tensor<?x?xf64>
}
func.func @bcast(%x: tensor<3x?xf64>, %b: tensor<?xf64>) -> tensor<3x4xf64> {
  %bb = tensor.broadcast %b [1] : tensor<?xf64> -> tensor<3x4xf64>
  %a = tensor.add %x, %bb : (tensor<3x?xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %e = tensor.exp %a : tensor<3x4xf64>
  func.return %e : tensor<3x4xf64>
}
func.func @rsum(%x: tensor<?xf64>, %y: tensor<?xf64>) -> f64 {
  %m = tensor.mul %x, %y : tensor<?xf64>
  %a = tensor.abs %m : tensor<?xf64>
  %s = tensor.reduce_sum %a [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""


def _raises(exe, fn, *args) -> str:
    from irtoolkit.runtime import RuntimeCheckError

    with pytest.raises(RuntimeCheckError) as info:
        exe[fn](*args)
    return str(info.value)


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
def test_fused_shape_checks_fail_like_unfused(fused):
    m = irtoolkit.parse(CHECKS, "checks.mlir")
    exe = irtoolkit.compile(m, pipeline=FUSED if fused else LOWER)
    # dim 0 and dim 1 of the 2-d chain: the sub (line 3) names the mismatch
    for x, y, k in ((np.ones((2, 3)), np.ones((3, 3)), 0), (np.ones((2, 3)), np.ones((2, 4)), 1)):
        text = _raises(exe, "chain2", x, y)
        assert "checks.mlir:3:" in text and "'tensor.sub' op operand shapes differ at run time" in text, text
        assert f"dim {k} of operand #0 vs operand #1" in text, text
    # the broadcast (line 8) of a size that is neither 1 nor 4
    text = _raises(exe, "bcast", np.ones((3, 4)), np.ones(3))
    assert "checks.mlir:8:" in text and "'tensor.broadcast' op cannot broadcast at run time" in text, text
    # the add (line 9): dynamic dim of %x vs the static size 4
    text = _raises(exe, "bcast", np.ones((3, 5)), np.ones(4))
    assert "checks.mlir:9:" in text and "'tensor.add' op" in text, text
    # the mul feeding a fused reduction (line 14)
    text = _raises(exe, "rsum", np.ones(3), np.ones(5))
    assert "checks.mlir:14:" in text and "'tensor.mul' op operand shapes differ" in text, text
    # valid calls still work (size-1 broadcast operands expand)
    x, y = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    np.testing.assert_allclose(exe["chain2"](x, y), np.tanh(np.exp(x) - y))
    np.testing.assert_allclose(exe["bcast"](x[:1].repeat(3, 0)[:, :1].repeat(4, 1), np.ones(1)),
                               np.exp(np.full((3, 4), 1.0)))
    np.testing.assert_allclose(exe["bcast"](np.zeros((3, 4)), np.arange(4.0)), np.exp(np.tile(np.arange(4.0), (3, 1))))
    assert float(exe["rsum"](np.arange(3.0), -np.ones(3))) == 3.0


def test_fused_checks_only_for_dynamic_shapes():
    m = _fused(CHECKS)
    assert _tensor_compute_ops(m) == [] and _count(m, "tensor.broadcast") == 0
    msgs = [o.msg.data for o in m.walk() if o.name == "cf.assert"]
    assert len(msgs) == 2 + 2 + 1 + 1, msgs  # chain2: 2 dims; bcast: broadcast + add (2); rsum: 1
    static = _fused(W1.format(n=4, t="f64"))
    assert _count(static, "cf.assert") == 0 and _count(static, "tensor.dim") == 0


def test_fused_reduction_checks_static_result_dims():
    text = """\
func.func @r(%x: tensor<?x?xf64>, %y: tensor<?x?xf64>) -> tensor<3xf64> {
  %m = tensor.mul %x, %y : tensor<?x?xf64>
  %a = tensor.abs %m : tensor<?x?xf64>
  %s = tensor.reduce_sum %a [1] : tensor<?x?xf64> -> tensor<3xf64>
  func.return %s : tensor<3xf64>
}
"""
    exe = irtoolkit.compile(irtoolkit.parse(text, "red.mlir"), pipeline=FUSED)
    got = _raises(exe, "r", np.ones((2, 4)), np.ones((2, 4)))
    assert "red.mlir:4:" in got and "'tensor.reduce_sum' op result dim 0 does not match" in got, got
    got = _raises(exe, "r", np.ones((3, 4)), np.ones((3, 5)))
    assert "red.mlir:2:" in got and "dim 1 of operand #0 vs operand #1" in got, got
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(exe["r"](x, -x), (x * x).sum(1))
    # rows around a blocked sum of a dynamic count: rows, blocks, block
    assert _count(_fused(text), "loop.for") == 3


STENCIL_STEP = """\
func.func @step(%u: tensor<6x7xf64>, %g: tensor<6x7xf64>, %k: tensor<4x5xf64>) -> (tensor<6x7xf64>, tensor<6x7xf64>) {
  %c = tensor.extract_slice %u[1, 1] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %n = tensor.extract_slice %u[0, 1] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %e = tensor.extract_slice %u[1, 2] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %ne = tensor.add %n, %e : tensor<4x5xf64>
  %t = tensor.tanh %c : tensor<4x5xf64>
  %d = tensor.mul %k, %ne : tensor<4x5xf64>
  %new = tensor.sub %d, %t : tensor<4x5xf64>
  %v = tensor.insert_slice %new into %u[1, 1] [4, 5] [1, 1] : tensor<4x5xf64> into tensor<6x7xf64>
  %gs = tensor.extract_slice %g[0, 2] [4, 5] [1, 1] : tensor<6x7xf64> to tensor<4x5xf64>
  %acc = tensor.add %gs, %k : tensor<4x5xf64>
  %g2 = tensor.insert_slice %acc into %g[0, 2] [4, 5] [1, 1] : tensor<4x5xf64> into tensor<6x7xf64>
  func.return %v, %g2 : tensor<6x7xf64>, tensor<6x7xf64>
}
"""


def _stencil_step_ref(u, g, k):
    v, g2 = u.copy(), g.copy()
    v[1:5, 1:6] = k * (u[0:4, 1:6] + u[1:5, 2:7]) - np.tanh(u[1:5, 1:6])
    g2[0:4, 2:7] += k
    return v, g2


def test_slices_read_through_and_accumulated_in_place():
    """The kernel reads the shifted windows of %u in place of copies of them, and the
    accumulation into a window of %g is a nest updating %g (no insert_slice left);
    the stencil's result still goes through a temporary (it reads %u around the
    window it overwrites)."""
    m = _fused(STENCIL_STEP)
    assert _count(m, "tensor.extract_slice") == 0
    assert _count(m, "tensor.insert_slice") == 1
    (acc,) = [o for o in m.walk() if o.name == "loop.for" and o.operands[3].name_hint == "g"]
    rng = np.random.default_rng(1)
    args = (rng.standard_normal((6, 7)), rng.standard_normal((6, 7)), rng.standard_normal((4, 5)))
    exe = irtoolkit.compile(irtoolkit.parse(STENCIL_STEP), pipeline=FUSED)
    for got, want in zip(exe["step"](*args), _stencil_step_ref(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-13)
    for got, want in zip(irtoolkit.interpret(m, "step", *args), _stencil_step_ref(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_in_place_refused_when_the_destination_is_read_elsewhere():
    """x[1:] = x[1:] + x[:-1] must read the old x[i - 1]: computed into a temporary."""
    text = """\
func.func @f(%x: tensor<8xf64>) -> tensor<8xf64> {
  %a = tensor.extract_slice %x[1] [7] [1] : tensor<8xf64> to tensor<7xf64>
  %b = tensor.extract_slice %x[0] [7] [1] : tensor<8xf64> to tensor<7xf64>
  %s = tensor.add %a, %b : tensor<7xf64>
  %y = tensor.insert_slice %s into %x[1] [7] [1] : tensor<7xf64> into tensor<8xf64>
  func.return %y : tensor<8xf64>
}
"""
    assert _count(_fused(text), "tensor.insert_slice") == 1
    x = np.arange(8.0) ** 2
    want = x.copy()
    want[1:] = x[1:] + x[:-1]
    np.testing.assert_array_equal(check(text, "f", x), want)


def test_slice_read_through_checks_dynamic_offsets():
    text = """\
func.func @f(%x: tensor<5x4xf64>, %i: index) -> tensor<4xf64> {
  %r = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<5x4xf64> to tensor<4xf64>
  %e = tensor.exp %r : tensor<4xf64>
  %y = tensor.mul %e, %r : tensor<4xf64>
  func.return %y : tensor<4xf64>
}
"""
    m = _fused(text)
    assert _count(m, "tensor.extract_slice") == 0
    exe = irtoolkit.compile(irtoolkit.parse(text, "rows.mlir"), pipeline=FUSED)
    x = np.arange(20.0).reshape(5, 4) / 10
    np.testing.assert_allclose(exe["f"](x, 3), np.exp(x[3]) * x[3], rtol=1e-14)
    for bad in (5, -1):
        got = _raises(exe, "f", x, bad)
        assert "rows.mlir:2:" in got and "'tensor.extract_slice' op slice" in got, got


def test_stored_value_written_into_its_tape():
    """tanh(x) stored into row j of a tape and read by a kernel: one nest writes the
    tape, the reader reads it back; values as unfused, out-of-range rows checked."""
    text = """\
func.func @taped(%x: tensor<4x8xf64>, %tape: tensor<3x4x8xf64>, %j: index) -> (tensor<4x8xf64>, tensor<3x4x8xf64>) {
  %t = tensor.tanh %x : tensor<4x8xf64>
  %y = tensor.mul %t, %x : tensor<4x8xf64>
  %z = tensor.add %y, %t : tensor<4x8xf64>
  %tape2 = tensor.insert_slice %t into %tape[%j, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf64> into tensor<3x4x8xf64>
  func.return %z, %tape2 : tensor<4x8xf64>, tensor<3x4x8xf64>
}
"""
    m = _fused(text)
    assert _count(m, "tensor.insert_slice") == 0 and _count(m, "math.tanh") == 1
    rng = np.random.default_rng(2)
    x, tape = rng.standard_normal((4, 8)), rng.standard_normal((3, 4, 8))
    want_tape, tape_before = tape.copy(), tape.copy()
    want_tape[1] = np.tanh(x)
    exe = irtoolkit.compile(irtoolkit.parse(text, "taped.mlir"), pipeline=FUSED)
    for got in (exe["taped"](x, tape, 1), irtoolkit.interpret(m, "taped", x, tape, 1)):
        np.testing.assert_allclose(got[0], np.tanh(x) * x + np.tanh(x), rtol=1e-13)
        np.testing.assert_allclose(got[1], want_tape, rtol=1e-13)
    np.testing.assert_array_equal(tape, tape_before)  # the caller's tape is not written
    got = _raises(exe, "taped", x, tape, 3)
    assert "taped.mlir:5:" in got and "slice out of bounds" in got, got
