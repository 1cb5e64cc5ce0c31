"""Upstream arith/math ops that xDSL 0.74 lacks (arith.remf, arith.index_castui,
math.sincos, math.clampf, math.isfinite/isinf/isnan/isnormal): compiled vs the
interpreter vs numpy on special values, and their derivatives vs finite
differences. One module per element type, compiled once."""

import numpy as np
import pytest

import irtoolkit as it

SPECIAL = [0.7, -2.5, 3.0, -0.0, 1e-310, 1e-40, np.inf, -np.inf, np.nan, 1e300]


def _module(T: str) -> str:
    return f"""
func.func @ops(%x: {T}, %lo: {T}, %hi: {T}) -> ({T}, {T}, {T}, {T}, i1, i1, i1, i1) {{
  %s, %c = math.sincos %x : {T}
  %k = math.clampf %x to [%lo, %hi] : {T}
  %r = arith.remf %x, %hi : {T}
  %a = math.isfinite %x : {T}
  %b = math.isinf %x : {T}
  %n = math.isnan %x : {T}
  %o = math.isnormal %x : {T}
  func.return %s, %c, %k, %r, %a, %b, %n, %o : {T}, {T}, {T}, {T}, i1, i1, i1, i1
}}
func.func @castui(%i: index) -> (i32, i64) {{
  %a = arith.index_castui %i : index to i32
  %b = arith.index_castui %i : index to i64
  func.return %a, %b : i32, i64
}}
func.func @f(%x: {T}, %lo: {T}, %hi: {T}) -> {T} {{
  %s, %c = math.sincos %x : {T}
  %k = math.clampf %x to [%lo, %hi] : {T}
  %r = arith.remf %x, %hi : {T}
  %t = arith.mulf %s, %c : {T}
  %u = arith.addf %t, %k : {T}
  %v = arith.addf %u, %r : {T}
  func.return %v : {T}
}}
func.func @df(%x: {T}, %lo: {T}, %hi: {T}) -> ({T}, {T}, {T}) {{
  %a, %b, %c = autodiff.grad @f(%x, %lo, %hi) : ({T}, {T}, {T}) -> ({T}, {T}, {T})
  func.return %a, %b, %c : {T}, {T}, {T}
}}
"""


@pytest.fixture(scope="module", params=["f32", "f64"])
def compiled(request):
    T = request.param
    src = _module(T)
    return np.dtype(np.float32 if T == "f32" else np.float64), it.compile(src), it.parse(src)


def _want(x, lo, hi, dt):
    tiny = np.finfo(dt).tiny
    return [np.sin(x), np.cos(x), np.minimum(np.maximum(x, lo), hi), np.fmod(x, hi),
            np.isfinite(x), np.isinf(x), np.isnan(x), np.isfinite(x) and abs(x) >= tiny]


@pytest.mark.parametrize("x", SPECIAL)
def test_ops_match_numpy(compiled, x):
    dt, exe, module = compiled
    with np.errstate(all="ignore"):
        args = [dt.type(x), dt.type(0.1), dt.type(0.5)]
        want = _want(*args, dt)
    for got in (exe["ops"](*args), it.interpret(module, "ops", *args)):
        for g, w in zip(got, want):
            if isinstance(w, (bool, np.bool_)):
                assert bool(g) == bool(w), (x, got, want)
            else:
                np.testing.assert_allclose(g, w, rtol=4 * np.finfo(dt).eps, atol=0, equal_nan=True)


def test_clampf_propagates_nan_bounds(compiled):
    dt, exe, module = compiled
    args = [dt.type(0.3), dt.type(np.nan), dt.type(0.5)]
    assert np.isnan(exe["ops"](*args)[2]) and np.isnan(it.interpret(module, "ops", *args)[2])


@pytest.mark.parametrize("i", [0, 7, 2**32 + 5, 2**63 + 1])
def test_index_castui_zero_extends_and_truncates(compiled, i):
    _, exe, module = compiled
    v = np.int64(np.uint64(i).view(np.int64))
    want = (np.uint64(i).astype(np.uint32).view(np.int32), v)
    for got in (exe["castui"](v), it.interpret(module, "castui", v)):
        assert (int(got[0]), int(got[1])) == (int(want[0]), int(want[1]))


@pytest.mark.parametrize("compiled", ["f64"], indirect=True)
@pytest.mark.parametrize("x", [0.3, 0.05, 0.9, -1.7])
def test_derivatives_match_finite_differences(compiled, x):
    _, exe, module = compiled
    args = [np.float64(x), np.float64(0.1), np.float64(0.5)]
    grad = exe["df"](*args)
    np.testing.assert_allclose(grad, it.interpret(module, "df", *args), rtol=1e-12)
    eps = 1e-6
    for k in range(3):
        hi, lo = list(args), list(args)
        hi[k] += eps
        lo[k] -= eps
        fd = (exe["f"](*hi) - exe["f"](*lo)) / (2 * eps)
        np.testing.assert_allclose(grad[k], fd, rtol=1e-5, atol=1e-7)


UPSTREAM_SYNTAX = """
func.func @scf(%p: i1, %x: f64, %n: index) -> (f64, f64) {
  %r = scf.if %p -> f64 {
    scf.yield %x : f64
  } else {
    %y = arith.negf %x : f64
    scf.yield %y : f64
  }
  %false = arith.constant false
  scf.while : () -> () {
    scf.condition(%false)
  } do {
    scf.yield
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%z) -> f64 {
    %v = arith.index_cast %i : index to i64
    %f = arith.sitofp %v : i64 to f64
    scf.reduce(%f : f64) {
    ^bb0(%a: f64, %b: f64):
      %t = arith.addf %a, %b : f64
      scf.reduce.return %t : f64
    }
  }
  func.return %r, %s : f64, f64
}
func.func @pad(%a: tensor<?x?xf64>, %h0: index, %h1: index) -> tensor<2x3xf64> {
  %z = arith.constant 7.0 : f64
  %p = tensor.pad %a low[0, 0] high[%h0, %h1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f64
  } : tensor<?x?xf64> to tensor<2x3xf64>
  func.return %p : tensor<2x3xf64>
}
"""


@pytest.fixture(scope="module")
def syntax():
    return it.compile(UPSTREAM_SYNTAX), it.parse(UPSTREAM_SYNTAX)


@pytest.mark.parametrize("p", [True, False])
def test_scf_upstream_forms_run(syntax, p):
    exe, module = syntax
    args = (np.bool_(p), np.float64(2.5), np.int64(5))
    want = (2.5 if p else -2.5, 10.0)
    assert tuple(map(float, exe["scf"](*args))) == want
    assert tuple(map(float, it.interpret(module, "scf", *args))) == want


def test_pad_dynamic_high_into_static_result(syntax):
    exe, module = syntax
    a = np.arange(2.0).reshape(1, 2)
    want = np.array([[0.0, 1.0, 7.0], [7.0, 7.0, 7.0]])
    np.testing.assert_array_equal(exe["pad"](a, 1, 1), want)
    np.testing.assert_array_equal(it.interpret(module, "pad", a, 1, 1), want)
    for run in (lambda: exe["pad"](a, 2, 1), lambda: it.interpret(module, "pad", a, 2, 1)):
        with pytest.raises(Exception, match="result dim 0 does not match the operands at run time"):
            run()
