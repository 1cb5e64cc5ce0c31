"""The elementwise ops of SPEC §3.1 beyond what the registry tests check
(``test/dialects/test_registry.py`` runs every declared op on random values,
static and dynamic dims, sizes 0, 1 and 5, interpreted and compiled, and
differentiated): special values (signed zeros, NaN, halves, infinities,
negative dividends), interpreted and compiled fused and unfused; clamp's
derivative at its bounds (SPEC §6); and the scalar ops on tensors lifting to
the op of their element kind."""

from __future__ import annotations

import numpy as np
import pytest

import irtoolkit as irt

UNFUSED = "convert-scf-to-loop,canonicalize,cse,lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"

# (op, element type, operand count): the functions the special-value checks call
_SPECIAL = [("sign", "f64", 1), ("round", "f64", 1), ("floor", "f32", 1), ("ceil", "f64", 1),
            ("rem", "f64", 2), ("atan2", "f64", 2), ("clamp", "f64", 3), ("clamp", "i32", 3),
            ("not", "i1", 1), ("not", "i32", 1), ("xor", "i1", 2)]
SOURCE = "".join(
    f"func.func @{op}_{t}({', '.join(f'%{n}: tensor<?x{t}>' for n in 'abc'[:k])}) -> tensor<?x{t}> {{\n"
    f"  %y = tensor.{op} {', '.join('%' + n for n in 'abc'[:k])} : tensor<?x{t}>\n  return %y : tensor<?x{t}>\n}}\n"
    for op, t, k in _SPECIAL)


@pytest.fixture(scope="module")
def module():
    return irt.parse(SOURCE)


@pytest.fixture(scope="module")
def compiled(module):
    return {"fused": irt.compile(module), "unfused": irt.compile(module, UNFUSED)}


@pytest.mark.parametrize("way", ["interpret", "fused", "unfused"])
def test_special_values(module, compiled, way):
    def run(fn, *xs):
        if way == "interpret":
            return irt.interpret(module, fn, *xs)
        return compiled[way][fn](*xs)

    x = np.array([-0.0, 0.0, np.nan, -3.5, 2.5, -2.5, 0.5, 1.5, np.inf, -np.inf])
    sign = run("sign_f64", x)
    np.testing.assert_array_equal(sign, [-0.0, 0.0, np.nan, -1, 1, -1, 1, 1, 1, -1])
    assert np.signbit(sign[0]) and not np.signbit(sign[1])
    np.testing.assert_array_equal(run("round_f64", x), [-0.0, 0.0, np.nan, -4, 2, -2, 0, 2, np.inf, -np.inf])
    assert np.signbit(run("round_f64", np.array([-0.5]))[0])
    np.testing.assert_array_equal(run("floor_f32", x.astype(np.float32)), np.floor(x).astype(np.float32))
    np.testing.assert_array_equal(run("ceil_f64", x), np.ceil(x))
    a = np.array([-7.5, 7.5, -7.5, 7.5, 1.0, np.inf, 3.0, -0.0])
    b = np.array([2.0, -2.0, -2.0, 2.0, 0.0, 1.0, np.inf, 1.0])
    r = run("rem_f64", a, b)
    np.testing.assert_array_equal(r, [-1.5, 1.5, -1.5, 1.5, np.nan, np.nan, 3.0, -0.0])
    assert np.signbit(r[-1])
    y = np.array([0.0, -0.0, 1.0, -1.0, 0.0, np.nan])
    xx = np.array([-1.0, -1.0, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(run("atan2_f64", y, xx), np.arctan2(y, xx))
    lo = np.array([0.0, 0.0, 0.0, 0.0, 2.0, -0.0])
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    v = np.array([-1.0, 0.5, 2.0, np.nan, 1.5, 0.0])
    c = run("clamp_f64", lo, v, hi)
    np.testing.assert_array_equal(c, [0.0, 0.5, 1.0, np.nan, 1.0, 0.0])
    assert not np.signbit(c[-1])  # max(+0, -0) is +0
    np.testing.assert_array_equal(run("clamp_i32", *(np.array(u, np.int32) for u in ([0, 0, 5], [-3, 7, 1], [4, 4, 2]))),
                                  [0, 4, 2])
    m = np.array([True, False, True, False])
    np.testing.assert_array_equal(run("not_i1", m), ~m)
    np.testing.assert_array_equal(run("not_i32", np.array([0, -1, 5], np.int32)), [-1, 0, -6])
    np.testing.assert_array_equal(run("xor_i1", m, m[::-1].copy()), m ^ m[::-1])


CLAMP_AT_BOUNDS = """
func.func @loss(%lo: tensor<6xf64>, %x: tensor<6xf64>, %hi: tensor<6xf64>) -> f64 {
  %y = tensor.clamp %lo, %x, %hi : tensor<6xf64>
  %r = tensor.reduce_sum %y [0] : tensor<6xf64> -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}
func.func @grad(%lo: tensor<6xf64>, %x: tensor<6xf64>, %hi: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) {
  %g:3 = autodiff.grad @loss(%lo, %x, %hi) wrt [0, 1, 2] : (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>)
  return %g#0, %g#1, %g#2 : tensor<6xf64>, tensor<6xf64>, tensor<6xf64>
}
func.func @jvp(%lo: tensor<6xf64>, %x: tensor<6xf64>, %hi: tensor<6xf64>, %tl: tensor<6xf64>, %tx: tensor<6xf64>, %th: tensor<6xf64>) -> f64 {
  %y, %dy = autodiff.jvp @loss(%lo, %x, %hi) tangents(%tl, %tx, %th) : (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) -> (f64, f64)
  return %dy : f64
}
"""


def test_clamp_derivative_at_bounds():
    """SPEC §6: at a bound the cotangent goes to x; outside, to the bound the result
    equals (hi when lo > hi, as the value min(max(x, lo), hi) is hi)."""
    m = irt.parse(CLAMP_AT_BOUNDS)
    lo = np.array([0.0, 0.0, 0.0, 0.0, 2.0, 2.0])
    x = np.array([0.0, 1.0, -1.0, 3.0, 1.5, 0.5])  # at lo, at hi, below, above, lo > hi (twice)
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    want = ([0, 0, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1])
    exe = irt.compile(m)
    for got in (irt.interpret(m, "grad", lo, x, hi), exe["grad"](lo, x, hi)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    e = np.eye(6)
    for i in range(6):
        for k in range(3):
            ts = [e[i] if j == k else np.zeros(6) for j in range(3)]
            assert exe["jvp"](lo, x, hi, *ts) == want[k][i]


def test_scalar_ops_on_tensors_lift_by_element_kind():
    """`arith.andi` on i1 tensors may be `tensor.mul` (one-bit and), but on i32 it is
    `tensor.and`; likewise `arith.xori` (`tensor.add` on i1) and `arith.ori`."""
    text = """
    func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
      %0 = arith.andi %a, %b : tensor<3xi32>
      %1 = arith.ori %a, %b : tensor<3xi32>
      %2 = arith.xori %a, %b : tensor<3xi32>
      return %0, %1, %2 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
    }"""
    m = irt.run_pipeline(irt.parse(text), "canonicalize")
    names = [op.name for op in m.walk() if op.name.startswith(("tensor.", "arith."))]
    assert names == ["tensor.and", "tensor.or", "tensor.xor"]
    a, b = np.array([6, -1, 5], np.int32), np.array([3, 7, -8], np.int32)
    for got in (irt.interpret(m, "f", a, b), irt.compile(m)["f"](a, b)):
        np.testing.assert_array_equal(got[0], a & b)
        np.testing.assert_array_equal(got[1], a | b)
        np.testing.assert_array_equal(got[2], a ^ b)
