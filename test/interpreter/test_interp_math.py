"""math ops on the interpreter: values against Python's math module, dtype kept."""

from __future__ import annotations

import math

import numpy as np
import pytest
from interp_helpers import DTYPES, run_ir

# op -> (reference on Python floats, sample inputs within the domain)
UNARY = {
    "absf": (abs, [-2.5, 0.0, 3.0]),
    "acos": (math.acos, [-0.5, 0.0, 0.9]),
    "acosh": (math.acosh, [1.0, 2.5]),
    "asin": (math.asin, [-0.5, 0.0, 0.9]),
    "asinh": (math.asinh, [-2.0, 0.5]),
    "atan": (math.atan, [-2.0, 0.5]),
    "atanh": (math.atanh, [-0.5, 0.25]),
    "cbrt": (lambda x: math.copysign(abs(x) ** (1 / 3), x), [-8.0, 27.0, 2.0]),
    "ceil": (math.ceil, [-2.5, 2.1, 3.0]),
    "cos": (math.cos, [0.0, 1.0, -3.0]),
    "cosh": (math.cosh, [0.0, 1.5]),
    "erf": (math.erf, [-1.0, 0.0, 0.3, 2.0]),
    "exp": (math.exp, [0.0, 1.0, -2.0]),
    "exp2": (lambda x: 2.0 ** x, [0.5, 3.0, -1.0]),
    "expm1": (math.expm1, [1e-10, 1.0]),
    "floor": (math.floor, [-2.5, 2.1]),
    "log": (math.log, [0.5, 2.0]),
    "log10": (math.log10, [1000.0, 2.0]),
    "log1p": (math.log1p, [1e-10, 1.0]),
    "log2": (math.log2, [8.0, 3.0]),
    "round": (lambda x: math.copysign(math.floor(abs(x) + 0.5), x), [2.5, -2.5, 0.5, 1.4, -0.4]),
    "roundeven": (round, [2.5, -2.5, 0.5, 1.5, 1.4]),
    "rsqrt": (lambda x: 1 / math.sqrt(x), [4.0, 2.0]),
    "sin": (math.sin, [0.0, 1.0, -3.0]),
    "sinh": (math.sinh, [0.0, 1.5]),
    "sqrt": (math.sqrt, [4.0, 2.0, 0.0]),
    "tan": (math.tan, [0.0, 1.0]),
    "tanh": (math.tanh, [0.0, 1.0, -20.0]),
    "trunc": (math.trunc, [-2.7, 2.7]),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_float_unary(op, t):
    dt = DTYPES[t]
    ref, samples = UNARY[op]
    ir = f"func.func @f(%a: {t}) -> {t} {{\n  %r = math.{op} %a : {t}\n  return %r : {t}\n}}"
    rtol = 1e-6 if t == "f32" else 1e-14
    for x in samples:
        x = float(dt(x))  # the value the function sees
        got = run_ir(ir, "f", x)
        assert type(got) is dt, (op, type(got))
        np.testing.assert_allclose(float(got), float(ref(x)), rtol=rtol, atol=1e-300, err_msg=f"{op}({x})")


def test_nan_and_special_values():
    ir = "func.func @f(%a: f64) -> f64 {\n  %r = math.sqrt %a : f64\n  return %r : f64\n}"
    assert np.isnan(run_ir(ir, "f", -1.0))
    ir = "func.func @f(%a: f64) -> f64 {\n  %r = math.log %a : f64\n  return %r : f64\n}"
    assert run_ir(ir, "f", 0.0) == -np.inf
    ir = "func.func @f(%a: f32) -> f32 {\n  %r = math.round %a : f32\n  return %r : f32\n}"
    assert np.isnan(run_ir(ir, "f", float("nan")))
    assert run_ir(ir, "f", 0.49999997) == 0.0


BINARY = {
    "atan2": (math.atan2, [(1.0, 2.0), (-1.0, -2.0), (0.0, -1.0)]),
    "copysign": (math.copysign, [(2.0, -0.0), (-3.0, 1.0)]),
    "powf": (math.pow, [(2.0, 10.0), (9.0, 0.5), (2.0, -1.0)]),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_float_binary(op, t):
    dt = DTYPES[t]
    ref, samples = BINARY[op]
    ir = f"func.func @f(%a: {t}, %b: {t}) -> {t} {{\n  %r = math.{op} %a, %b : {t}\n  return %r : {t}\n}}"
    for a, b in samples:
        got = run_ir(ir, "f", a, b)
        assert type(got) is dt
        np.testing.assert_allclose(float(got), ref(a, b), rtol=1e-6)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_fma_and_fpowi(t):
    dt = DTYPES[t]
    ir = f"""
func.func @f(%a: {t}, %b: {t}, %c: {t}, %n: i32) -> ({t}, {t}) {{
  %r = math.fma %a, %b, %c : {t}
  %p = math.fpowi %a, %n : {t}, i32
  return %r, %p : {t}, {t}
}}"""
    r, p = run_ir(ir, "f", 1.5, 2.0, 0.25, 3)
    assert type(r) is dt and r == 3.25
    assert type(p) is dt and p == 3.375
    # the product is not rounded before the addition in f32
    eps = 2.0 ** -20
    r, _ = run_ir(ir, "f", 1 + eps, 1 + eps, -1.0, 0) if t == "f32" else (None, None)
    if t == "f32":
        assert r == np.float32((1 + eps) ** 2 - 1)
    else:  # f64: exact product, one rounding
        e = 2.0 ** -30
        r, _ = run_ir(ir, "f", 1 + e, 1 + e, -1.0, 0)
        assert r == 2.0 ** -29 + 2.0 ** -60 and (1 + e) * (1 + e) - 1 != r


@pytest.mark.parametrize("t,bits", [("i8", 8), ("i32", 32), ("i64", 64)])
def test_integer_math(t, bits):
    ir = f"""
func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}, {t}) {{
  %0 = math.absi %a : {t}
  %1 = math.ctlz %a : {t}
  %2 = math.cttz %a : {t}
  %3 = math.ctpop %a : {t}
  %4 = math.ipowi %a, %b : {t}
  return %0, %1, %2, %3, %4 : {t}, {t}, {t}, {t}, {t}
}}"""
    dt = DTYPES[t]
    for a, b in [(-6, 3), (1, 0), (0, 2), (12, 2), (3, 5), (-1, -3), (2, -1)]:
        res = run_ir(ir, "f", a, b)
        assert all(type(r) is dt for r in res)
        u = a & ((1 << bits) - 1)
        assert res[0] == abs(a)
        assert res[1] == bits - u.bit_length()
        assert res[2] == (bits if u == 0 else (u & -u).bit_length() - 1)
        assert res[3] == bin(u).count("1")
        if b >= 0:
            want = (a ** b) & ((1 << bits) - 1)
            want = want - (1 << bits) if want >= 1 << (bits - 1) else want
        else:
            want = 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
        assert res[4] == want, (a, b, res[4])
