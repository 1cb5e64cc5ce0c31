"""`tensor.conv` and the windowed reductions: JVP and VJP vs central finite
differences (f64), interpreted and compiled; the adjoints of a conv are convs
themselves, and a max pool's cotangent goes to the first maximal element."""

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "interpreter"))
from adcheck import (  # noqa: E402
    Runner,
    add_grad,
    assert_close,
    assert_jit_matches_interp,
    check_jvp,
    fd_jvp,
    grad_texts,
    register,
)
from windows_reference import CONV_CASES, WINDOW_CASES, tensor_type  # noqa: E402

RNG = np.random.default_rng(7)
T = tensor_type


def _loss(body: str, args: list[tuple[str, tuple]], out: tuple) -> str:
    """``@f(args) -> f64``: sum(tanh(y) * y) of ``%y`` computed by ``body`` (nonlinear,
    so that the cotangent differs per element)."""
    sig = ", ".join(f"%{n}: {T(s)}" for n, s in args)
    dims = ", ".join(map(str, range(len(out))))
    return f"""
func.func @f({sig}) -> f64 {{
  {body}
  %th = tensor.tanh %y : {T(out)}
  %p = tensor.mul %th, %y : {T(out)}
  %s = tensor.reduce_sum %p [{dims}] : {T(out)} -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  return %r : f64
}}
"""


def _conv_src(name):
    x, w, clauses, out = CONV_CASES[name]
    body = f"%y = tensor.conv %x, %w {clauses} : ({T(x)}, {T(w)}) -> {T(out)}"
    return _loss(body, [("x", x), ("w", w)], out), [T(x), T(w)], x, w


def _window_src(name, kind):
    shape, window, clauses, out = WINDOW_CASES[name]
    body = f"%y = tensor.reduce_window_{kind} %x window [{', '.join(map(str, window))}] {clauses} : {T(shape)} -> {T(out)}"
    return _loss(body, [("x", shape)], out), [T(shape)], shape


def _distinct(shape):
    """Values at least 0.1 apart (no ties: finite differences see one max per window)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n) * 0.1 - n * 0.05).reshape(shape)


def check_grad_directional(src, types, args, backend, directions=2):
    """The gradient against central differences along random directions (one
    finite difference each instead of one per input element: the conv cases
    have hundreds of inputs)."""
    wrt = list(range(len(args)))
    text = add_grad(src, "f", types, wrt)
    m = irt.parse(text)
    run = Runner(text, m, backend)
    grads = run("__d", *args)
    if backend == "jit":
        assert_jit_matches_interp(grads, m, "__d", args)
    for _ in range(directions):
        vs = [RNG.standard_normal(np.shape(a)) for a in args]
        (want,) = fd_jvp(m, "f", args, wrt, vs, run=run)
        assert_close(sum(np.vdot(g, v) for g, v in zip(grads, vs)), want)


# the derivative checks skip the cases sized for speed paths (slow to difference)
AD_CONV = [n for n in CONV_CASES if n not in ("2d_large", "2d_deep")]
# the compiled checks run on a few cases (each compiles a module); the interpreter on all
JIT_CONV = ("2d_all", "2d_depthwise", "3d")
JIT_WINDOW = ("pool_3x3_pad",)


def setup_module():
    texts = []
    for name in JIT_CONV:
        src, types, *_ = _conv_src(name)
        texts += grad_texts(src, "f", types, ["f64"])
    for name in JIT_WINDOW:
        for kind in ("sum", "max"):
            src, types, _ = _window_src(name, kind)
            texts += grad_texts(src, "f", types, ["f64"])
    register(texts)


@pytest.mark.parametrize("name, backend", [(n, "interp") for n in AD_CONV] + [(n, "jit") for n in JIT_CONV])
def test_conv_derivatives(name, backend):
    src, types, x, w = _conv_src(name)
    args = [RNG.standard_normal(x), RNG.standard_normal(w)]
    check_grad_directional(src, types, args, backend)
    check_jvp(src, "f", types, ["f64"], args, backend=backend)


@pytest.mark.parametrize("kind", ["sum", "max"])
@pytest.mark.parametrize("name, backend", [(n, "interp") for n in WINDOW_CASES] + [(n, "jit") for n in JIT_WINDOW])
def test_reduce_window_derivatives(name, kind, backend):
    src, types, shape = _window_src(name, kind)
    args = [_distinct(shape)]
    check_grad_directional(src, types, args, backend)
    check_jvp(src, "f", types, ["f64"], args, backend=backend)


def _grad_function(src, types, wrt):
    printed = str(irt.run_pipeline(irt.parse(add_grad(src, "f", types, wrt)), "ad,canonicalize"))
    return printed[printed.index("@f_grad"):printed.index("func.func @__d")]


def test_conv_adjoints_are_convs():
    src, types, *_ = _conv_src("2d_all")
    grad_fn = _grad_function(src, types, [0, 1])
    # the primal conv and the two adjoints; nothing else does the arithmetic
    assert grad_fn.count("tensor.conv") == 3, grad_fn
    assert "loop." not in grad_fn and "tensor.matmul" not in grad_fn


def test_max_pool_cotangent_goes_to_first_max():
    """Ties: the whole cotangent of a window goes to its first maximal element
    (XLA's select-and-scatter), not split as for reduce_max."""
    src = """
func.func @f(%x: tensor<6xf64>) -> f64 {
  %y = tensor.reduce_window_max %x window [3] stride [3] : tensor<6xf64> -> tensor<2xf64>
  %s = tensor.reduce_sum %y [0] : tensor<2xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  return %r : f64
}
"""
    m = irt.parse(add_grad(src, "f", ["tensor<6xf64>"], [0]))
    x = np.array([1.0, 3.0, 3.0, 2.0, 2.0, 2.0])
    np.testing.assert_array_equal(irt.interpret(m, "__d", x), [0, 1, 0, 1, 0, 0])
    np.testing.assert_array_equal(irt.compile(m)["__d"](x), [0, 1, 0, 1, 0, 0])
    assert "window_max_scatter" in _grad_function(src, ["tensor<6xf64>"], [0])


def test_max_pool_second_order():
    """Hessian-vector product through a max pool (the select/scatter pair transposes)."""
    src = """
func.func @f(%x: tensor<2x4xf64>) -> f64 {
  %y = tensor.reduce_window_max %x window [1, 2] stride [1, 2] : tensor<2x4xf64> -> tensor<2x2xf64>
  %q = tensor.mul %y, %y : tensor<2x2xf64>
  %s = tensor.reduce_sum %q [0, 1] : tensor<2x2xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  return %r : f64
}
func.func @g(%x: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %d = autodiff.grad @f(%x) : (tensor<2x4xf64>) -> tensor<2x4xf64>
  return %d : tensor<2x4xf64>
}
func.func @hvp(%x: tensor<2x4xf64>, %v: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %g, %h = autodiff.jvp @g(%x) tangents(%v) : (tensor<2x4xf64>, tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
  return %g, %h : tensor<2x4xf64>, tensor<2x4xf64>
}
"""
    x = _distinct((2, 4))
    v = RNG.standard_normal((2, 4))
    m = irt.parse(src)
    _, h = irt.interpret(m, "hvp", x, v)
    mask = np.zeros((2, 4))
    for i in range(2):
        for j in range(2):
            mask[i, 2 * j + int(np.argmax(x[i, 2 * j:2 * j + 2]))] = 1
    np.testing.assert_allclose(h, 2 * mask * v * mask, rtol=1e-12)
