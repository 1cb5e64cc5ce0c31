"""The IR the `ad` pass emits, compiled: tapes (of tensors, f64/f32, i1 and index
values, of dynamic length and dynamic element shape), dynamic-offset and
dynamic-size slices, replayed loops, while-to-for rewrites, checkpointing,
second order. Each program is checked to really contain the construct, then
the derivative compiled (``irt.compile``: ``ad,lower-to-llvm``) is compared
with the interpreted one and with central differences of the compiled primal.
"""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numcheck import Pack, assert_ulps, check, magnitude  # noqa: E402

ULPS = 64  # of the magnitude of inputs and results: derivative code reorders sums

PROGRAMS = {
    # a tensor and an index carried: tape<?x4xf64> (dynamic-offset insert/extract_slice), tape<?xindex>
    "tape_index": ("""
func.func @tape_index(%x: tensor<4x{T}>, %n: index) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : {T}
  %r, %k = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %j = %c0) -> (tensor<4x{T}>, index) {
    %s = tensor.reduce_sum %a [0] : tensor<4x{T}> -> tensor<{T}>
    %se = tensor.extract %s[] : tensor<{T}>
    %pos = arith.cmpf ogt, %se, %z : {T}
    %b = loop.if %pos -> (tensor<4x{T}>) {
      %t = tensor.tanh %a : tensor<4x{T}>
      loop.yield %t : tensor<4x{T}>
    } else {
      %t = tensor.sin %a : tensor<4x{T}>
      loop.yield %t : tensor<4x{T}>
    }
    %j1 = arith.addi %j, %c1 : index
    %j2 = arith.remui %j1, %c3 : index
    %e = tensor.extract %b[%j] : tensor<4x{T}>
    %e2 = arith.mulf %e, %e : {T}
    %b2 = tensor.insert %e2 into %b[%j] : tensor<4x{T}>
    loop.yield %b2, %j2 : tensor<4x{T}>, index
  }
  %s = tensor.reduce_sum %r [0] : tensor<4x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
""", ["tensor<4x{T}>", "index"], [0], ["tensor<?x4x{T}>", "tensor<?xindex>", "tensor.extract_slice %"],
        lambda dt, r: [[r.uniform(-1, 1, 4).astype(dt), n] for n in (0, 1, 5)]),
    # an i1 carried: tape<?xi1>
    "tape_i1": ("""
func.func @tape_i1(%x: {T}, %n: index) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %r, %fl = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %f = %t) -> ({T}, i1) {
    %s = math.sin %a : {T}
    %c = math.cos %a : {T}
    %v = arith.select %f, %s, %c : {T}
    %w = arith.addf %v, %x : {T}
    %nf = arith.xori %f, %t : i1
    loop.yield %w, %nf : {T}, i1
  }
  return %r : {T}
}
""", ["{T}", "index"], [0], ["tensor<?xi1>"],
        lambda dt, r: [[dt(0.3), n] for n in (0, 1, 4)]),
    # a dynamically shaped tensor carried: tape<?x?xT>, slices of dynamic size
    "tape_dyn": ("""
func.func @tape_dyn(%x: tensor<?x{T}>, %n: index) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<?x{T}>) {
    %t = tensor.tanh %a : tensor<?x{T}>
    %u = tensor.mul %t, %x : tensor<?x{T}>
    loop.yield %u : tensor<?x{T}>
  }
  %s = tensor.reduce_sum %r [0] : tensor<?x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
""", ["tensor<?x{T}>", "index"], [0], ["tensor<?x?x{T}>", "[1, %"],
        lambda dt, r: [[r.uniform(-1, 1, k).astype(dt), n] for k, n in ((3, 0), (3, 4), (0, 2), (1, 3))]),
    # an active while carrying a tensor: trip count known at run time only
    "while_tensor": ("""
func.func @while_tensor(%x: tensor<3x{T}>, %y: {T}) -> {T} {
  %lim = arith.constant 10.0 : {T}
  %r = loop.while (%v = %x) : (tensor<3x{T}>) -> tensor<3x{T}> {
    %s = tensor.reduce_sum %v [0] : tensor<3x{T}> -> tensor<{T}>
    %se = tensor.extract %s[] : tensor<{T}>
    %c = arith.cmpf olt, %se, %lim : {T}
    loop.condition(%c) %v : tensor<3x{T}>
  } do {
  ^bb0(%v2: tensor<3x{T}>):
    %ys = tensor.splat %y : tensor<3x{T}>
    %n = tensor.mul %v2, %ys : tensor<3x{T}>
    %e = tensor.exp %n : tensor<3x{T}>
    loop.yield %e : tensor<3x{T}>
  }
  %s = tensor.reduce_sum %r [0] : tensor<3x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
""", ["tensor<3x{T}>", "{T}"], [0, 1], ["tensor<?x3x{T}>", "loop.while"],
        lambda dt, r: [[np.array([0.1, 0.2, 0.3], dt), dt(1.1)], [np.array([4.0, 4.0, 4.0], dt), dt(0.5)]]),
    # nested loops: the inner loop's tapes live inside the outer reverse sweep
    "nested": ("""
func.func @nested(%x: tensor<3x{T}>, %w: tensor<3x{T}>, %n: index) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : {T}
  %r, %s = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x, %acc = %z) -> (tensor<3x{T}>, {T}) {
    %b = loop.for %j = %c0 to %c3 step %c1 iter_args(%bb = %a) -> (tensor<3x{T}>) {
      %e = tensor.extract %w[%j] : tensor<3x{T}>
      %v = tensor.extract %bb[%j] : tensor<3x{T}>
      %p = arith.mulf %e, %v : {T}
      %q = math.sin %p : {T}
      %nb = tensor.insert %q into %bb[%j] : tensor<3x{T}>
      loop.yield %nb : tensor<3x{T}>
    }
    %m = tensor.mul %b, %w : tensor<3x{T}>
    %sum = tensor.reduce_sum %m [0] : tensor<3x{T}> -> tensor<{T}>
    %se = tensor.extract %sum[] : tensor<{T}>
    %acc2 = arith.addf %acc, %se : {T}
    loop.yield %b, %acc2 : tensor<3x{T}>, {T}
  }
  return %s : {T}
}
""", ["tensor<3x{T}>", "tensor<3x{T}>", "index"], [0, 1], ["tensor<?x3x{T}>", "tensor<3x3x{T}>"],
        lambda dt, r: [[r.uniform(-1, 1, 3).astype(dt), r.uniform(-1, 1, 3).astype(dt), n] for n in (0, 3)]),
    # sqrt checkpointing of a matrix recurrence: segment starts stored, segments recomputed
    "ckpt": ("""
func.func @ckpt(%h0: tensor<2x3x{T}>, %w: tensor<3x3x{T}>) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = loop.for %i = %c0 to %c9 step %c1 iter_args(%h = %h0) -> (tensor<2x3x{T}>) {
    %m = tensor.matmul %h, %w : (tensor<2x3x{T}>, tensor<3x3x{T}>) -> tensor<2x3x{T}>
    %t = tensor.tanh %m : tensor<2x3x{T}>
    loop.yield %t : tensor<2x3x{T}>
  } {autodiff.checkpoint = "sqrt"}
  %s = tensor.reduce_sum %r [0, 1] : tensor<2x3x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
""", ["tensor<2x3x{T}>", "tensor<3x3x{T}>"], [0, 1], ["tensor<3x2x3x{T}>"],
        lambda dt, r: [[r.uniform(-1, 1, (2, 3)).astype(dt), (r.uniform(-1, 1, (3, 3)) * 0.8).astype(dt)]]),
    # structural ops with their adjoints: broadcast/reduce, transpose, slices, concat-free layout ops, max
    "layout": ("""
func.func @layout(%x: tensor<4x3x{T}>, %v: tensor<3x{T}>) -> {T} {
  %c1 = arith.constant 1 : index
  %b = tensor.broadcast %v [1] : tensor<3x{T}> -> tensor<4x3x{T}>
  %p = tensor.mul %x, %b : tensor<4x3x{T}>
  %t = tensor.transpose %p [1, 0] : tensor<4x3x{T}> -> tensor<3x4x{T}>
  %sl = tensor.extract_slice %t[%c1, 1] [2, 2] [1, 1] : tensor<3x4x{T}> to tensor<2x2x{T}>
  %cl = tensor.collapse_shape %sl [[0, 1]] : tensor<2x2x{T}> into tensor<4x{T}>
  %mx = tensor.reduce_max %x [1] : tensor<4x3x{T}> -> tensor<4x{T}>
  %q = tensor.max %cl, %mx : tensor<4x{T}>
  %l = tensor.logistic %q : tensor<4x{T}>
  %s = tensor.reduce_sum %l [0] : tensor<4x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
""", ["tensor<4x3x{T}>", "tensor<3x{T}>"], [0, 1], [],
        lambda dt, r: [[r.uniform(-1, 1, (4, 3)).astype(dt), r.uniform(-1, 1, 3).astype(dt)]]),
}


def _types(types, T):
    return [t.replace("{T}", T) for t in types]


def _program(name, T):
    src, types, wrt, _, _ = PROGRAMS[name]
    types = _types(types, T)
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%a{i}" for i in range(len(types)))
    wt = [types[i] for i in wrt]
    res = ", ".join(f"%r{i}" for i in range(len(wt)))
    wrt_s = ", ".join(map(str, wrt))
    # tangent seed: one per wrt argument
    targs = ", ".join(f"%t{i}: {t}" for i, t in enumerate(wt))
    tnames = ", ".join(f"%t{i}" for i in range(len(wt)))
    return src.replace("{T}", T) + f"""
func.func @{name}_grad({args}) -> ({", ".join(wt)}) {{
  {res} = autodiff.grad @{name}({names}) wrt [{wrt_s}] : ({", ".join(types)}) -> ({", ".join(wt)})
  return {res} : {", ".join(wt)}
}}
func.func @{name}_jvp({args}, {targs}) -> ({T}, {T}) {{
  %y, %dy = autodiff.jvp @{name}({names}) tangents({tnames}) wrt [{wrt_s}] : ({", ".join(types + wt)}) -> ({T}, {T})
  return %y, %dy : {T}, {T}
}}
"""


DTYPES = {"f64": np.float64, "f32": np.float32}
PACKS = {T: Pack({n: _program(n, T) for n in PROGRAMS}) for T in DTYPES}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_emitted_constructs(name):
    """The program exercises what it claims: the post-`ad` IR contains the construct."""
    m = irt.parse(_program(name, "f64"))
    irt.run_pipeline(m, "ad,canonicalize,cse")
    text = str(m)
    for needle in PROGRAMS[name][3]:
        assert needle.replace("{T}", "f64") in text, f"{name}: {needle!r} not in the ad output"


def _fd(run, fn, args, wrt, dt, eps):
    """Central differences of the compiled primal, in float64 steps on the argument dtype."""
    grads = []
    for i in wrt:
        a = np.asarray(args[i], dtype=np.float64)
        g = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            ap, am = list(args), list(args)
            p, q = a.copy(), a.copy()
            p[idx] += eps
            q[idx] -= eps
            ap[i] = p.astype(dt) if a.ndim else dt(p)
            am[i] = q.astype(dt) if a.ndim else dt(q)
            g[idx] = (float(run(fn, *ap)[0]) - float(run(fn, *am)[0])) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("T", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_derivative_compiled(name, T):
    dt = DTYPES[T]
    pack = PACKS[T]
    _, types, wrt, _, make_args = PROGRAMS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    for args in make_args(dt, rng):
        def run(fn, *a):
            return pack.jit(name, fn, *a)

        grad = run(f"{name}_grad", *args)
        want = pack.interp(name, f"{name}_grad", *args)
        scale = magnitude(*want, *args)
        check(grad, want, ("reduce", ULPS, lambda *a: scale), args, f"{name} grad jit vs interp")
        # primal: compiled vs interpreted
        prim = run(name, *args)
        check(prim, pack.interp(name, name, *args), ("reduce", ULPS, lambda *a: magnitude(*args)), args,
              f"{name} primal jit vs interp")
        # central differences of the compiled primal
        eps = 1e-6 if dt == np.float64 else 1e-2
        rtol = 1e-6 if dt == np.float64 else 2e-2
        for g, f in zip(grad, _fd(run, name, args, wrt, dt, eps)):
            np.testing.assert_allclose(np.asarray(g, np.float64), f, rtol=rtol, atol=rtol * magnitude(f))
        # forward mode: jvp along a random direction equals <grad, direction>
        tans = [(rng.standard_normal(np.shape(args[i]))).astype(dt) if np.ndim(args[i])
                else dt(rng.standard_normal()) for i in wrt]
        y, dy = run(f"{name}_jvp", *args, *tans)
        y_i, dy_i = pack.interp(name, f"{name}_jvp", *args, *tans)
        assert_ulps(y, prim[0], ULPS, scale=magnitude(prim[0]), what=f"{name} jvp primal")
        assert_ulps(dy, dy_i, ULPS, scale=magnitude(dy_i, *grad, *tans), what=f"{name} jvp jit vs interp")
        dot = sum(float(np.sum(np.asarray(g, np.float64) * np.asarray(t, np.float64))) for g, t in zip(grad, tans))
        tol = (1e-9 if dt == np.float64 else 1e-4) * magnitude(dot, *grad) * max(1, len(tans)) * 8
        assert abs(float(dy) - dot) <= tol, f"{name}: jvp {float(dy)} vs <grad, t> {dot}"


SECOND = """
func.func @f(%x: tensor<3x{T}>, %w: tensor<3x{T}>) -> {T} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = loop.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (tensor<3x{T}>) {
    %m = tensor.mul %a, %w : tensor<3x{T}>
    %t = tensor.sin %m : tensor<3x{T}>
    loop.yield %t : tensor<3x{T}>
  }
  %s = tensor.reduce_sum %r [0] : tensor<3x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
func.func @df(%x: tensor<3x{T}>, %w: tensor<3x{T}>) -> tensor<3x{T}> {
  %g = autodiff.grad @f(%x, %w) wrt [0] : (tensor<3x{T}>, tensor<3x{T}>) -> tensor<3x{T}>
  return %g : tensor<3x{T}>
}
func.func @hvp(%x: tensor<3x{T}>, %w: tensor<3x{T}>, %v: tensor<3x{T}>) -> (tensor<3x{T}>, tensor<3x{T}>) {
  %g, %h = autodiff.jvp @df(%x, %w) tangents(%v) wrt [0] : (tensor<3x{T}>, tensor<3x{T}>, tensor<3x{T}>) -> (tensor<3x{T}>, tensor<3x{T}>)
  return %g, %h : tensor<3x{T}>, tensor<3x{T}>
}
func.func @gn(%x: tensor<3x{T}>, %w: tensor<3x{T}>) -> {T} {
  %g = func.call @df(%x, %w) : (tensor<3x{T}>, tensor<3x{T}>) -> tensor<3x{T}>
  %sq = tensor.mul %g, %g : tensor<3x{T}>
  %s = tensor.reduce_sum %sq [0] : tensor<3x{T}> -> tensor<{T}>
  %se = tensor.extract %s[] : tensor<{T}>
  return %se : {T}
}
func.func @dgn(%x: tensor<3x{T}>, %w: tensor<3x{T}>) -> tensor<3x{T}> {
  %g = autodiff.grad @gn(%x, %w) wrt [1] : (tensor<3x{T}>, tensor<3x{T}>) -> tensor<3x{T}>
  return %g : tensor<3x{T}>
}
"""


def test_second_order_compiled():
    """Forward-over-reverse (HVP) and reverse-over-reverse through a taped loop, compiled."""
    pack = Pack({"second": SECOND.replace("{T}", "f64")})
    rng = np.random.default_rng(5)
    x, w, v = (rng.uniform(-1, 1, 3) for _ in range(3))
    g, h = pack.jit("second", "hvp", x, w, v)
    gi, hi = pack.interp("second", "hvp", x, w, v)
    assert_ulps(g, gi, ULPS, scale=magnitude(gi, x, w))
    assert_ulps(h, hi, ULPS, scale=magnitude(hi, x, w, v))
    eps = 1e-6
    fd = (pack.jit("second", "df", x + eps * v, w)[0] - pack.jit("second", "df", x - eps * v, w)[0]) / (2 * eps)
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-8)
    d = pack.jit("second", "dgn", x, w)[0]
    assert_ulps(d, pack.interp("second", "dgn", x, w)[0], ULPS, scale=magnitude(d, x, w))
    fd = [(pack.jit("second", "gn", x, w + eps * e)[0] - pack.jit("second", "gn", x, w - eps * e)[0]) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(d, fd, rtol=1e-6, atol=1e-8)


DIRECT = """
func.func @tapes(%n: index, %x: tensor<?x3xf64>) -> (tensor<?xi1>, tensor<?xindex>, tensor<?x3xf64>, i1, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %e2 = tensor.empty(%n) : tensor<?xindex>
  %e3 = tensor.empty(%n) : tensor<?x3xf64>
  %a, %b, %c = loop.for %i = %c0 to %n step %c1 iter_args(%t1 = %e1, %t2 = %e2, %t3 = %e3) -> (tensor<?xi1>, tensor<?xindex>, tensor<?x3xf64>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 3] [1, 1] : tensor<?x3xf64> to tensor<3xf64>
    %v = tensor.extract %row[%c1] : tensor<3xf64>
    %p = arith.cmpf ogt, %v, %z : f64
    %sq = arith.muli %i, %i : index
    %neg = tensor.neg %row : tensor<3xf64>
    %u1 = tensor.insert %p into %t1[%i] : tensor<?xi1>
    %u2 = tensor.insert %sq into %t2[%i] : tensor<?xindex>
    %u3 = tensor.insert_slice %neg into %t3[%i, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<?x3xf64>
    loop.yield %u1, %u2, %u3 : tensor<?xi1>, tensor<?xindex>, tensor<?x3xf64>
  }
  %l = arith.subi %n, %c1 : index
  %last1 = tensor.extract %a[%l] : tensor<?xi1>
  %last2 = tensor.extract %b[%l] : tensor<?xindex>
  return %a, %b, %c, %last1, %last2 : tensor<?xi1>, tensor<?xindex>, tensor<?x3xf64>, i1, index
}
"""


def test_tapes_written_directly():
    """Tapes of i1 and index values and dynamic-offset slices, as hand-written IR."""
    pack = Pack({"direct": DIRECT})
    x = np.random.default_rng(1).uniform(-1, 1, (5, 3))
    got = pack.jit("direct", "tapes", 5, x)
    want = pack.interp("direct", "tapes", 5, x)
    ref = (x[:, 1] > 0, np.arange(5, dtype=np.int64) ** 2, -x, bool(x[4, 1] > 0), np.int64(16))
    check(got, want, "exact", (), "tapes jit vs interp")
    assert got[0].dtype == np.bool_ and got[1].dtype == np.int64
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
