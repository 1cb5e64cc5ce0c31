"""Scalar programs (func, arith, math, cf) compiled with the JIT, checked against numpy."""

import math

import numpy as np
import pytest

import irtoolkit as irt

FLOAT_TEMPLATE = """
func.func @arith(%x: {t}, %y: {t}) -> ({t}, {t}, {t}, {t}, {t}) {{
  %0 = arith.addf %x, %y : {t}
  %1 = arith.subf %x, %y : {t}
  %2 = arith.mulf %x, %y : {t}
  %3 = arith.divf %x, %y : {t}
  %4 = arith.negf %x : {t}
  return %0, %1, %2, %3, %4 : {t}, {t}, {t}, {t}, {t}
}}
func.func @unary(%x: {t}) -> ({t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}) {{
  %0 = math.exp %x : {t}
  %1 = math.tanh %x : {t}
  %2 = math.sin %x : {t}
  %3 = math.cos %x : {t}
  %a = math.absf %x : {t}
  %4 = math.sqrt %a : {t}
  %5 = math.log %a : {t}
  %6 = math.erf %x : {t}
  %7 = math.floor %x : {t}
  return %0, %1, %2, %3, %4, %5, %6, %7 : {t}, {t}, {t}, {t}, {t}, {t}, {t}, {t}
}}
func.func @pow(%x: {t}, %y: {t}) -> {t} {{
  %0 = math.powf %x, %y : {t}
  return %0 : {t}
}}
func.func @minmax(%x: {t}, %y: {t}) -> ({t}, {t}) {{
  %0 = arith.maximumf %x, %y : {t}
  %1 = arith.minimumf %x, %y : {t}
  return %0, %1 : {t}, {t}
}}
func.func @to_int(%x: {t}) -> (i32, i64) {{
  %0 = arith.fptosi %x : {t} to i32
  %1 = arith.fptosi %x : {t} to i64
  return %0, %1 : i32, i64
}}
func.func @cmp(%x: {t}, %y: {t}) -> (i1, i1, i1, i1) {{
  %0 = arith.cmpf olt, %x, %y : {t}
  %1 = arith.cmpf oeq, %x, %y : {t}
  %2 = arith.cmpf une, %x, %y : {t}
  %3 = arith.cmpf uno, %x, %y : {t}
  return %0, %1, %2, %3 : i1, i1, i1, i1
}}
func.func @select(%c: i1, %x: {t}, %y: {t}) -> {t} {{
  %0 = arith.select %c, %x, %y : {t}
  return %0 : {t}
}}
"""

DTYPES = {"f32": np.float32, "f64": np.float64}


@pytest.fixture(scope="module", params=["f32", "f64"])
def float_exe(request):
    t = request.param
    module = irt.parse(FLOAT_TEMPLATE.format(t=t))
    return irt.compile(module), DTYPES[t], module


def test_float_arith(float_exe):
    exe, dt, _ = float_exe
    x, y = dt(1.25), dt(-0.5)
    got = exe["arith"](x, y)
    want = (x + y, x - y, x * y, x / y, -x)
    for g, w in zip(got, want):
        assert type(g) is dt
        assert g == w


def test_float_math_matches_numpy(float_exe):
    exe, dt, _ = float_exe
    rtol = 1e-6 if dt is np.float32 else 1e-14
    for v in (-2.5, -0.3, 0.7, 3.0):
        x = dt(v)
        got = exe["unary"](x)
        a = np.abs(x)
        want = (np.exp(x), np.tanh(x), np.sin(x), np.cos(x), np.sqrt(a), np.log(a),
                dt(math.erf(float(x))), np.floor(x))
        for g, w in zip(got, want):
            assert type(g) is dt
            np.testing.assert_allclose(g, w, rtol=rtol)
    np.testing.assert_allclose(exe["pow"](dt(2.0), dt(0.5)), np.sqrt(dt(2.0)), rtol=rtol)


def test_maximum_minimum_propagate_nan(float_exe):
    exe, dt, _ = float_exe
    assert exe["minmax"](dt(1), dt(2)) == (2, 1)
    hi, lo = exe["minmax"](dt(np.nan), dt(2))
    assert np.isnan(hi) and np.isnan(lo)
    hi, lo = exe["minmax"](dt(3), dt(np.nan))
    assert np.isnan(hi) and np.isnan(lo)


def test_fptosi_truncates_toward_zero(float_exe):
    exe, dt, _ = float_exe
    for v in (2.7, -2.7, 0.5, -0.5, 7.0, -1e3):
        i32, i64 = exe["to_int"](dt(v))
        assert i32 == int(v) and i64 == int(v)
        assert type(i32) is np.int32 and type(i64) is np.int64
    # out of range saturates instead of being undefined
    assert exe["to_int"](dt(1e20))[0] == np.iinfo(np.int32).max


def test_compares_and_select(float_exe):
    exe, dt, _ = float_exe
    assert exe["cmp"](dt(1), dt(2)) == (True, False, True, False)
    lt, eq, ne, uno = exe["cmp"](dt(np.nan), dt(2))
    assert (lt, eq, ne, uno) == (False, False, True, True)
    assert type(lt) is np.bool_
    assert exe["select"](True, dt(1), dt(2)) == 1
    assert exe["select"](np.bool_(False), dt(1), dt(2)) == 2


def test_matches_interpreter(float_exe):
    exe, dt, module = float_exe
    for name, args in (("arith", (dt(3), dt(4))), ("minmax", (dt(-1), dt(5))),
                       ("select", (False, dt(1), dt(2)))):
        got = exe[name](*args)
        want = irt.interpret(module, name, *args)
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                   rtol=1e-6)


INT_PROGRAM = """
func.func @divs(%a: i64, %b: i64) -> (i64, i64, i64, i64) {
  %0 = arith.floordivsi %a, %b : i64
  %1 = arith.ceildivsi %a, %b : i64
  %2 = arith.divsi %a, %b : i64
  %3 = arith.remsi %a, %b : i64
  return %0, %1, %2, %3 : i64, i64, i64, i64
}
func.func @index_math(%n: index, %k: i32) -> (index, f64, i1) {
  %c3 = arith.constant 3 : index
  %0 = arith.muli %n, %c3 : index
  %k64 = arith.index_cast %k : i32 to index
  %1 = arith.addi %0, %k64 : index
  %i = arith.index_cast %1 : index to i64
  %f = arith.sitofp %i : i64 to f64
  %c = arith.cmpi sgt, %1, %n : index
  return %1, %f, %c : index, f64, i1
}
func.func @uitofp(%a: i64, %b: i32) -> (f64, f32) {
  %0 = arith.uitofp %a : i64 to f64
  %1 = arith.uitofp %b : i32 to f32
  return %0, %1 : f64, f32
}
func.func @countdown(%n: i64) -> (i64, f64) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %acc0 = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  cf.br ^head(%n, %acc0 : i64, f64)
^head(%i: i64, %acc: f64):
  %done = arith.cmpi sle, %i, %zero : i64
  cf.cond_br %done, ^exit, ^body
^body:
  %j = arith.subi %i, %one : i64
  %a2 = arith.mulf %acc, %half : f64
  cf.br ^head(%j, %a2 : i64, f64)
^exit:
  return %i, %acc : i64, f64
}
func.func @caller(%n: i64) -> f64 {
  %r:2 = func.call @countdown(%n) : (i64) -> (i64, f64)
  %s = func.call @square(%r#1) : (f64) -> f64
  return %s : f64
}
func.func private @square(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  return %0 : f64
}
func.func @nothing() {
  return
}
"""


@pytest.fixture(scope="module")
def int_exe():
    return irt.compile(irt.parse(INT_PROGRAM))


@pytest.mark.parametrize("a", [7, -7, 6, -6, 0])
@pytest.mark.parametrize("b", [2, -2, 3, -3])
def test_integer_division(int_exe, a, b):
    floor, ceil, div, rem = int_exe["divs"](a, b)
    assert floor == a // b
    assert ceil == -((-a) // b)
    assert div == int(a / b)
    assert rem == a - int(a / b) * b


def test_index_and_casts(int_exe):
    n, f, c = int_exe["index_math"](5, -2)
    assert (n, f, c) == (13, 13.0, True)
    assert type(n) is np.int64 and type(f) is np.float64 and type(c) is np.bool_


def test_uitofp(int_exe):
    d, s = int_exe["uitofp"](-1, -1)  # all bits set
    assert d == 2.0**64 and s == np.float32(2.0**32)
    assert int_exe["uitofp"](12345, 7) == (12345.0, 7.0)


def test_cf_loops_and_calls(int_exe):
    assert int_exe["countdown"](3) == (0, 0.125)
    assert int_exe["caller"](2) == 0.0625
    assert int_exe["nothing"]() is None
    assert "square" not in int_exe  # private functions are not entry points


LIBM_NAMES = """
func.func @pow(%x: f64, %n: i32) -> (f64, f64) {
  %0 = math.powf %x, %x : f64
  %1 = math.fpowi %x, %n : f64, i32
  return %0, %1 : f64, f64
}
func.func @exp(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.expm1 %0 : f32
  return %1 : f32
}
"""


def test_user_functions_named_like_libm():
    # LLVM lowers llvm.pow.f64 to a call of C's `pow`: it must not bind to @pow.
    exe = irt.compile(irt.parse(LIBM_NAMES))
    p, pi = exe["pow"](2.0, 3)
    assert p == 4.0 and pi == 8.0
    np.testing.assert_allclose(exe["exp"](np.float32(0.5)), np.expm1(np.exp(np.float32(0.5))),
                               rtol=1e-6)
