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
