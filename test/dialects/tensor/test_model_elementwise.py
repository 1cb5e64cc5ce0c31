"""The elementwise ops of SPEC §3.1 beyond what the registry tests check
(``test/dialects/test_registry.py`` runs every declared op on static
``tensor<7xT>``): dynamic dims with sizes 0, 1 and 5, interpreted and compiled
(fused and unfused); gradients on dynamic dims against finite differences,
interpreted and compiled; special values (signed zeros, NaN, halves, negative
dividends); clamp's derivative at its bounds (SPEC §6); and the scalar ops on
tensors lifting to the op of their element kind."""

from __future__ import annotations

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.dialects import tensor as T
from irtoolkit.dialects.elementwise import ElementKind, meaning_of

UNFUSED = "ad,convert-scf-to-loop,canonicalize,cse,lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"

OPS = [T.RsqrtOp, T.ErfOp, T.Log1pOp, T.Expm1Op, T.SignOp, T.FloorOp, T.CeilOp, T.RoundOp,
       T.AtanOp, T.Atan2Op, T.RemOp, T.ClampOp, T.AndOp, T.OrOp, T.XorOp, T.NotOp]
DIFFERENTIABLE = [c for c in OPS if meaning_of(c).partials_for() is not None]
NAMES = "abc"


def _arity(cls) -> int:
    return len(cls.get_irdl_definition().operands)


def _types(cls) -> list[str]:
    kinds = meaning_of(cls).element_kinds()
    return (["f32", "f64"] if ElementKind.FLOAT in kinds else []) + \
        (["i32"] if ElementKind.INTEGER in kinds else []) + (["i1"] if ElementKind.I1 in kinds else [])


def _short(cls) -> str:
    return cls.name.split(".")[1]


def _function(cls, t: str) -> str:
    tt = f"tensor<?x{t}>"
    names = NAMES[:_arity(cls)]
    args = ", ".join(f"%{n}: {tt}" for n in names)
    return (f"func.func @{_short(cls)}_{t}({args}) -> {tt} {{\n"
            f"  %y = {cls.name} {', '.join('%' + n for n in names)} : {tt}\n  return %y : {tt}\n}}\n")


def _grad_functions(cls) -> str:
    tt = "tensor<?xf64>"
    names = NAMES[:_arity(cls)]
    args = ", ".join(f"%{n}: {tt}" for n in names)
    ops = ", ".join("%" + n for n in names)
    types = ", ".join([tt] * len(names))
    s = _short(cls)
    results = ", ".join(f"%g#{i}" for i in range(len(names))) if len(names) > 1 else "%g"
    count = f":{len(names)}" if len(names) > 1 else ""
    return f"""
func.func @loss_{s}({args}, %w: {tt}) -> f64 {{
  %y = {cls.name} {ops} : {tt}
  %p = tensor.mul %y, %w : {tt}
  %r = tensor.reduce_sum %p [0] : {tt} -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}}
func.func @grad_{s}({args}, %w: {tt}) -> ({types}) {{
  %g{count} = autodiff.grad @loss_{s}({ops}, %w) wrt [{", ".join(map(str, range(len(names))))}] : ({types}, {tt}) -> ({types})
  return {results} : {types}
}}
"""


SOURCE = "".join(_function(c, t) for c in OPS for t in _types(c)) + \
    "".join(_grad_functions(c) for c in DIFFERENTIABLE)


@pytest.fixture(scope="module")
def module():
    return irt.parse(SOURCE)


@pytest.fixture(scope="module")
def compiled(module):
    return {"fused": irt.compile(module), "unfused": irt.compile(module, UNFUSED)}


def _inputs(cls, t: str, n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if t == "i1":
        return [rng.integers(0, 2, n).astype(bool) for _ in range(_arity(cls))]
    if t == "i32":
        return [rng.integers(-100, 100, n).astype(np.int32) for _ in range(_arity(cls))]
    dtype = np.float32 if t == "f32" else np.float64
    return [rng.uniform(lo, hi, n).astype(dtype) for lo, hi in meaning_of(cls).domain(_arity(cls))]


def _numpy(cls, t, xs):
    kind = {"i1": ElementKind.I1, "i32": ElementKind.INTEGER}.get(t, ElementKind.FLOAT)
    with np.errstate(all="ignore"):
        return meaning_of(cls).numpy_of_kind(kind)(*xs)


CASES = [(c, t) for c in OPS for t in _types(c)]


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("cls,t", CASES, ids=lambda x: getattr(x, "name", x))
def test_dynamic_sizes(module, compiled, cls, t, n):
    xs = _inputs(cls, t, n, seed=n)
    fn = f"{_short(cls)}_{t}"
    want = irt.interpret(module, fn, *xs)
    assert want.shape == (n,)
    np.testing.assert_array_equal(want, _numpy(cls, t, xs))
    for way in ("fused", "unfused"):
        got = compiled[way][fn](*xs)
        assert got.shape == (n,) and got.dtype == want.dtype
        if t in ("i1", "i32"):
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps, atol=0)


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("cls", DIFFERENTIABLE, ids=lambda c: c.name)
def test_gradients_on_dynamic_sizes(module, compiled, cls, n):
    s = _short(cls)
    xs = _inputs(cls, "f64", n, seed=10 + n)
    w = np.random.default_rng(3).uniform(-1, 1, n)
    eps = 1e-6
    grads = irt.interpret(module, f"grad_{s}", *xs, w)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for way in ("fused", "unfused"):
        got = compiled[way][f"grad_{s}"](*xs, w)
        got = got if isinstance(got, tuple) else (got,)
        for g, h in zip(grads, got):
            np.testing.assert_allclose(h, g, rtol=1e-13, atol=1e-15)
    for k, g in enumerate(grads):
        assert g.shape == (n,)
        fd = np.zeros(n)
        for i in range(n):
            up = [x.copy() for x in xs]
            down = [x.copy() for x in xs]
            up[k][i] += eps
            down[k][i] -= eps
            fd[i] = (irt.interpret(module, f"loss_{s}", *up, w) - irt.interpret(module, f"loss_{s}", *down, w)) / (2 * eps)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8, err_msg=f"operand {k}")


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
func.func @loss(%lo: tensor<5xf64>, %x: tensor<5xf64>, %hi: tensor<5xf64>) -> f64 {
  %y = tensor.clamp %lo, %x, %hi : tensor<5xf64>
  %r = tensor.reduce_sum %y [0] : tensor<5xf64> -> tensor<f64>
  %e = tensor.extract %r[] : tensor<f64>
  return %e : f64
}
func.func @grad(%lo: tensor<5xf64>, %x: tensor<5xf64>, %hi: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) {
  %g:3 = autodiff.grad @loss(%lo, %x, %hi) wrt [0, 1, 2] : (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>)
  return %g#0, %g#1, %g#2 : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
}
func.func @jvp(%lo: tensor<5xf64>, %x: tensor<5xf64>, %hi: tensor<5xf64>, %tl: tensor<5xf64>, %tx: tensor<5xf64>, %th: tensor<5xf64>) -> f64 {
  %y, %dy = autodiff.jvp @loss(%lo, %x, %hi) tangents(%tl, %tx, %th) : (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> (f64, f64)
  return %dy : f64
}
"""


def test_clamp_derivative_at_bounds():
    """SPEC §6: at a bound the cotangent goes to x; outside, to the bound the result
    equals (hi when lo > hi, as the value min(max(x, lo), hi) is hi)."""
    m = irt.parse(CLAMP_AT_BOUNDS)
    lo = np.array([0.0, 0.0, 0.0, 0.0, 2.0])
    x = np.array([0.0, 1.0, -1.0, 3.0, 1.5])  # at lo, at hi, below, above, lo > hi
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    want = ([0, 0, 1, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 1, 1])
    exe = irt.compile(m)
    for got in (irt.interpret(m, "grad", lo, x, hi), exe["grad"](lo, x, hi)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    e = np.eye(5)
    for i in range(5):
        for k in range(3):
            ts = [e[i] if j == k else np.zeros(5) for j in range(3)]
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
