"""arith ops on the interpreter against independent references (Python ints, numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import irtoolkit as irt
from interp_helpers import DTYPES, run_ir

NAN = float("nan")
INF = float("inf")
FLOAT_SAMPLES = [(1.5, -2.25), (0.0, -0.0), (-0.0, 0.0), (3.0, 3.0), (NAN, 1.0), (1.0, NAN),
                 (INF, -INF), (1e30, 1e30), (-7.0, 2.0), (2.0, 0.0)]


def binop_ir(op: str, t: str, rt: str | None = None) -> str:
    rt = rt or t
    return (f"func.func @f(%a: {t}, %b: {t}) -> {rt} {{\n"
            f"  %r = arith.{op} %a, %b : {t}\n  return %r : {rt}\n}}")


def same(got, want) -> bool:
    """Bitwise-equal floats (NaN equal to NaN, -0 distinct from +0)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        return False
    if got.dtype.kind == "f":
        return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))))
    return bool(np.all(got == want))


# ---------------------------------------------------------------------------
# floats


def _ieee_max(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b == 0:
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def _ieee_min(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def _num_max(a, b):
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def _num_min(a, b):
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


FLOAT_BINARY = {
    "addf": lambda a, b: a + b,
    "subf": lambda a, b: a - b,
    "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b,
    "maximumf": lambda a, b: np.maximum(a, b) if not (a == b == 0) else _ieee_max(a, b),
    "minimumf": lambda a, b: np.minimum(a, b) if not (a == b == 0) else _ieee_min(a, b),
    "maxnumf": lambda a, b: np.fmax(a, b),
    "minnumf": lambda a, b: np.fmin(a, b),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(FLOAT_BINARY))
def test_float_binary(op, t):
    dt = DTYPES[t]
    ir = binop_ir(op, t)
    with np.errstate(all="ignore"):
        for a, b in FLOAT_SAMPLES:
            got = run_ir(ir, "f", a, b)
            want = dt(FLOAT_BINARY[op](dt(a), dt(b)))
            assert type(got) is dt
            assert same(got, want), (op, a, b, got, want)


def test_f32_arithmetic_stays_f32():
    # 1 + 2**-30 is exact in f64 but rounds to 1 in f32
    ir = binop_ir("addf", "f32")
    assert run_ir(ir, "f", 1.0, 2.0 ** -30) == np.float32(1.0)
    ir64 = binop_ir("addf", "f64")
    assert run_ir(ir64, "f", 1.0, 2.0 ** -30) == 1.0 + 2.0 ** -30
    # overflow to inf in f32
    assert run_ir(binop_ir("mulf", "f32"), "f", 1e30, 1e30) == np.float32(np.inf)


def test_max_min_nan_propagation_and_signed_zero():
    for op in ("maximumf", "minimumf"):
        assert np.isnan(run_ir(binop_ir(op, "f64"), "f", NAN, 1.0))
        assert np.isnan(run_ir(binop_ir(op, "f64"), "f", 1.0, NAN))
    for op in ("maxnumf", "minnumf"):
        assert run_ir(binop_ir(op, "f64"), "f", NAN, 1.0) == 1.0
    assert not np.signbit(run_ir(binop_ir("maximumf", "f64"), "f", -0.0, 0.0))
    assert not np.signbit(run_ir(binop_ir("maximumf", "f64"), "f", 0.0, -0.0))
    assert np.signbit(run_ir(binop_ir("minimumf", "f64"), "f", 0.0, -0.0))
    assert np.signbit(run_ir(binop_ir("minimumf", "f64"), "f", -0.0, 0.0))


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_negf(t):
    ir = f"func.func @f(%a: {t}) -> {t} {{\n %r = arith.negf %a : {t}\n return %r : {t}\n}}"
    assert same(run_ir(ir, "f", 0.0), DTYPES[t](-0.0))
    assert same(run_ir(ir, "f", -2.5), DTYPES[t](2.5))


# ---------------------------------------------------------------------------
# integers, against Python-int references with wrapping


def wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def uns(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


INT_BINARY = {
    "addi": lambda a, b, n: a + b,
    "subi": lambda a, b, n: a - b,
    "muli": lambda a, b, n: a * b,
    "divsi": lambda a, b, n: tdiv(a, b),
    "divui": lambda a, b, n: uns(a, n) // uns(b, n),
    "remsi": lambda a, b, n: a - b * tdiv(a, b),
    "remui": lambda a, b, n: uns(a, n) % uns(b, n),
    "floordivsi": lambda a, b, n: a // b,
    "ceildivsi": lambda a, b, n: -((-a) // b),
    "ceildivui": lambda a, b, n: -((-uns(a, n)) // uns(b, n)),
    "minsi": lambda a, b, n: min(a, b),
    "maxsi": lambda a, b, n: max(a, b),
    "minui": lambda a, b, n: a if uns(a, n) < uns(b, n) else b,
    "maxui": lambda a, b, n: a if uns(a, n) > uns(b, n) else b,
    "andi": lambda a, b, n: a & b,
    "ori": lambda a, b, n: a | b,
    "xori": lambda a, b, n: a ^ b,
    "shli": lambda a, b, n: a << b,
    "shrsi": lambda a, b, n: a >> b,
    "shrui": lambda a, b, n: uns(a, n) >> b,
}
DIVISIONS = {"divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui"}
SHIFTS = {"shli", "shrsi", "shrui"}


def int_samples(bits: int):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    vals = [0, 1, -1, 7, -7, 3, -3, hi, lo, hi - 1, 100 % (hi + 1)]
    return [(a, b) for a in vals for b in vals]


@pytest.mark.parametrize("t", ["i8", "i32", "i64", "index"])
@pytest.mark.parametrize("op", sorted(INT_BINARY))
def test_int_binary(op, t):
    bits = 64 if t == "index" else int(t[1:])
    dt = DTYPES[t]
    ir = binop_ir(op, t)
    for a, b in int_samples(bits):
        if op in DIVISIONS and (b == 0 or (op in ("divsi", "remsi", "floordivsi", "ceildivsi")
                                           and a == -(1 << (bits - 1)) and b == -1)):
            continue  # undefined behaviour
        if op in SHIFTS and not 0 <= b < bits:
            continue  # poison
        got = run_ir(ir, "f", a, b)
        want = wrap(INT_BINARY[op](a, b, bits), bits)
        assert type(got) is dt, (op, t, type(got))
        assert int(got) == want, (op, t, a, b, got, want)


@pytest.mark.parametrize("op", ["addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"])
def test_i1_binary(op):
    ir = binop_ir(op, "i1")
    for a in (False, True):
        for b in (False, True):
            got = run_ir(ir, "f", a, b)
            # i1 values as signed {0, -1}
            want = wrap(INT_BINARY[op](-int(a), -int(b), 1), 1) != 0
            assert type(got) is np.bool_
            assert bool(got) == want, (op, a, b, got)


def test_extended_ops():
    ir = """
func.func @f(%a: i8, %b: i8) -> (i8, i1, i8, i8, i8, i8) {
  %s, %o = arith.addui_extended %a, %b : i8, i1
  %l, %h = arith.mului_extended %a, %b : i8
  %l2, %h2 = arith.mulsi_extended %a, %b : i8
  return %s, %o, %l, %h, %l2, %h2 : i8, i1, i8, i8, i8, i8
}"""
    for a, b in [(-1, -1), (100, 100), (3, 4), (-128, 2)]:
        s, o, lo, hi, lo2, hi2 = run_ir(ir, "f", a, b)
        ua, ub = uns(a, 8), uns(b, 8)
        assert int(s) == wrap(ua + ub, 8) and bool(o) == (ua + ub >= 256)
        assert int(lo) == wrap(ua * ub, 8) and int(hi) == wrap((ua * ub) >> 8, 8)
        assert int(lo2) == wrap(a * b, 8) and int(hi2) == wrap((a * b) >> 8, 8)


# ---------------------------------------------------------------------------
# compares and select


CMPF = {
    "false": lambda a, b, u: False, "oeq": lambda a, b, u: not u and a == b,
    "ogt": lambda a, b, u: not u and a > b, "oge": lambda a, b, u: not u and a >= b,
    "olt": lambda a, b, u: not u and a < b, "ole": lambda a, b, u: not u and a <= b,
    "one": lambda a, b, u: not u and a != b, "ord": lambda a, b, u: not u,
    "ueq": lambda a, b, u: u or a == b, "ugt": lambda a, b, u: u or a > b,
    "uge": lambda a, b, u: u or a >= b, "ult": lambda a, b, u: u or a < b,
    "ule": lambda a, b, u: u or a <= b, "une": lambda a, b, u: u or a != b,
    "uno": lambda a, b, u: u, "true": lambda a, b, u: True,
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("pred", sorted(CMPF))
def test_cmpf(pred, t):
    ir = (f"func.func @f(%a: {t}, %b: {t}) -> i1 {{\n"
          f"  %r = arith.cmpf {pred}, %a, %b : {t}\n  return %r : i1\n}}")
    for a, b in FLOAT_SAMPLES:
        got = run_ir(ir, "f", a, b)
        unordered = math.isnan(a) or math.isnan(b)
        assert type(got) is np.bool_
        assert bool(got) == CMPF[pred](a, b, unordered), (pred, a, b)


CMPI = {
    "eq": lambda a, b, n: a == b, "ne": lambda a, b, n: a != b,
    "slt": lambda a, b, n: a < b, "sle": lambda a, b, n: a <= b,
    "sgt": lambda a, b, n: a > b, "sge": lambda a, b, n: a >= b,
    "ult": lambda a, b, n: uns(a, n) < uns(b, n), "ule": lambda a, b, n: uns(a, n) <= uns(b, n),
    "ugt": lambda a, b, n: uns(a, n) > uns(b, n), "uge": lambda a, b, n: uns(a, n) >= uns(b, n),
}


@pytest.mark.parametrize("t", ["i1", "i8", "i64", "index"])
@pytest.mark.parametrize("pred", sorted(CMPI))
def test_cmpi(pred, t):
    ir = (f"func.func @f(%a: {t}, %b: {t}) -> i1 {{\n"
          f"  %r = arith.cmpi {pred}, %a, %b : {t}\n  return %r : i1\n}}")
    if t == "i1":
        samples, bits = [(a, b) for a in (False, True) for b in (False, True)], 1
    else:
        bits = 64 if t == "index" else int(t[1:])
        samples = int_samples(bits)
    for a, b in samples:
        got = run_ir(ir, "f", a, b)
        sa, sb = (-int(a), -int(b)) if t == "i1" else (a, b)
        assert bool(got) == CMPI[pred](sa, sb, bits), (pred, t, a, b)


def test_select():
    ir = """
func.func @f(%c: i1, %a: f32, %b: f32) -> f32 {
  %r = arith.select %c, %a, %b : f32
  return %r : f32
}"""
    assert run_ir(ir, "f", True, 1.0, 2.0) == np.float32(1.0)
    assert run_ir(ir, "f", False, 1.0, 2.0) == np.float32(2.0)


# ---------------------------------------------------------------------------
# casts


def cast_ir(op: str, src: str, dst: str) -> str:
    return (f"func.func @f(%a: {src}) -> {dst} {{\n"
            f"  %r = arith.{op} %a : {src} to {dst}\n  return %r : {dst}\n}}")


@pytest.mark.parametrize("op,src,dst,arg,want", [
    ("sitofp", "i32", "f32", -3, np.float32(-3.0)),
    ("sitofp", "i1", "f64", True, np.float64(-1.0)),
    ("sitofp", "i64", "f64", 2 ** 62, np.float64(2.0 ** 62)),
    ("uitofp", "i8", "f32", -1, np.float32(255.0)),
    ("uitofp", "i1", "f64", True, np.float64(1.0)),
    ("fptosi", "f64", "i32", -3.7, np.int32(-3)),
    ("fptosi", "f32", "i64", 3.99, np.int64(3)),
    ("fptosi", "f64", "i8", -0.5, np.int8(0)),
    ("fptoui", "f64", "i8", 200.9, np.int8(-56)),
    ("extf", "f32", "f64", 0.1, np.float64(np.float32(0.1))),
    ("truncf", "f64", "f32", 0.1, np.float32(0.1)),
    ("truncf", "f64", "f16", 65536.0 * 2, np.float16(np.inf)),
    ("extsi", "i8", "i32", -1, np.int32(-1)),
    ("extsi", "i1", "i64", True, np.int64(-1)),
    ("extui", "i8", "i32", -1, np.int32(255)),
    ("extui", "i1", "i64", True, np.int64(1)),
    ("trunci", "i32", "i8", 300, np.int8(44)),
    ("trunci", "i64", "i1", 3, np.True_),
    ("trunci", "i64", "i1", 2, np.False_),
    ("index_cast", "index", "i32", 2 ** 31, np.int32(-2 ** 31)),
    ("index_cast", "i32", "index", -5, np.int64(-5)),
    ("index_cast", "i64", "index", 2 ** 40, np.int64(2 ** 40)),
    ("bitcast", "f32", "i32", 1.0, np.int32(1065353216)),
    ("bitcast", "i64", "f64", 4607182418800017408, np.float64(1.0)),
])
def test_casts(op, src, dst, arg, want):
    got = run_ir(cast_ir(op, src, dst), "f", arg)
    assert type(got) is type(want)
    assert same(got, want), (op, src, dst, arg, got, want)


# ---------------------------------------------------------------------------
# constants


def test_constants():
    ir = """
func.func @f() -> (f32, f64, i8, i1, index, tensor<3xf32>, tensor<2x2xi32>, tensor<4xf64>, tensor<f64>, tensor<2xi1>, tensor<0xf32>) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant -2.0e-3 : f64
  %c = arith.constant -1 : i8
  %d = arith.constant true
  %e = arith.constant 42 : index
  %f = arith.constant dense<[1.0, 2.5, -3.0]> : tensor<3xf32>
  %g = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %h = arith.constant dense<0.25> : tensor<4xf64>
  %i = arith.constant dense<7.0> : tensor<f64>
  %j = arith.constant dense<[true, false]> : tensor<2xi1>
  %k = arith.constant dense<> : tensor<0xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k : f32, f64, i8, i1, index, tensor<3xf32>, tensor<2x2xi32>, tensor<4xf64>, tensor<f64>, tensor<2xi1>, tensor<0xf32>
}"""
    a, b, c, d, e, f, g, h, i, j, k = run_ir(ir, "f")
    assert type(a) is np.float32 and a == 1.5
    assert type(b) is np.float64 and b == -2.0e-3
    assert type(c) is np.int8 and c == -1
    assert type(d) is np.bool_ and d
    assert type(e) is np.int64 and e == 42
    np.testing.assert_array_equal(f, np.array([1.0, 2.5, -3.0], np.float32))
    assert f.dtype == np.float32
    np.testing.assert_array_equal(g, np.array([[1, -2], [3, 4]], np.int32))
    assert g.dtype == np.int32
    np.testing.assert_array_equal(h, np.full(4, 0.25))
    assert i.shape == () and i.dtype == np.float64 and i == 7.0 and isinstance(i, np.ndarray)
    np.testing.assert_array_equal(j, [True, False])
    assert j.dtype == np.bool_
    assert k.shape == (0,) and k.dtype == np.float32
    f[0] = 99.0  # results are fresh arrays the caller may write
    assert run_ir(ir, "f")[5][0] == 1.0


def test_integer_overflow_wraps_silently():
    ir = binop_ir("muli", "i64")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run_ir(ir, "f", 2 ** 62, 4) == 0
        assert run_ir(binop_ir("addi", "i8"), "f", 127, 1) == -128
        assert np.isinf(run_ir(binop_ir("divf", "f64"), "f", 1.0, 0.0))


@pytest.mark.parametrize("literal", ["dense<0xFF800000>", "dense<2.5>"])
def test_rank_0_dense_constant_stays_rank_0(literal):
    module = irt.parse("func.func @main() -> tensor<f32> {\n"
                       f"  %c = arith.constant {literal} : tensor<f32>\n"
                       "  return %c : tensor<f32>\n}")
    assert np.shape(irt.interpret(module, "main")) == ()
