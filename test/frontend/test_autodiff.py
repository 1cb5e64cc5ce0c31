"""irt.grad / value_and_grad / jvp / vjp / stop_gradient, from Python and inside
@irt.function, against central finite differences."""

import numpy as np

import irtoolkit as irt
import irtoolkit.numpy as inp
from fdiff import fd

rng = np.random.default_rng(1)
W = rng.standard_normal((3, 2))
X = rng.standard_normal((4, 3))
T = rng.standard_normal((4, 2))


@irt.function
def loss(w, x, t):
    h = inp.tanh(x @ w)
    for i in range(3):
        if inp.sum(h) > 0:
            h = h * 0.9
        else:
            h = h + 0.1
    k = 0
    while inp.max(inp.abs(h)) < 2.0:  # a data-dependent trip count
        h = h * 1.5
        k = k + 1
    return inp.mean((h - t) ** 2)


@irt.function
def smooth(w, x, t):
    h = inp.tanh(x @ w)
    if inp.sum(h) > 0:
        h = h * 0.9
    return inp.mean((h - t) ** 2)


def test_grad_matches_finite_differences():
    g = irt.grad(loss)(W, X, T)
    np.testing.assert_allclose(g, fd(loss, (W, X, T), 0), rtol=1e-5, atol=1e-8)
    gw, gx = irt.grad(loss, argnums=(0, 1)).interpret(W, X, T)
    np.testing.assert_allclose(gw, g)
    np.testing.assert_allclose(gx, fd(loss, (W, X, T), 1), rtol=1e-5, atol=1e-8)


def test_value_and_grad_jvp_vjp():
    v, g = irt.value_and_grad(smooth)(W, X, T)
    np.testing.assert_allclose(v, smooth(W, X, T))
    tw = rng.standard_normal(W.shape)
    out, tout = irt.jvp(smooth, (W, X, T), (tw, np.zeros_like(X), np.zeros_like(T)))
    np.testing.assert_allclose(out, v)
    np.testing.assert_allclose(tout, np.sum(g * tw), rtol=1e-10)
    out, vjp_fn = irt.vjp(smooth, W, X, T)
    gw, gx, gt = vjp_fn(np.array(2.0))
    np.testing.assert_allclose(gw, 2 * g)


@irt.function
def meta(w, x, t):
    """A meta-learning step: the smooth after one inner gradient step, differentiated."""
    inner = w - 0.1 * irt.grad(smooth)(w, x, t)
    return smooth(inner, x, t)


def test_grad_of_a_function_of_a_grad():
    text = meta.mlir(W, X, T)
    assert "autodiff.grad @smooth" in text
    g = irt.grad(meta)(W, X, T)
    np.testing.assert_allclose(g, fd(meta, (W, X, T), 0), rtol=1e-4, atol=1e-7)


@irt.function
def cube(x):
    return inp.sum(x * x * x)


@irt.function
def second(x):
    d = irt.grad(irt.grad(cube_of_sum))(x)
    return d


@irt.function
def cube_of_sum(x):
    s = inp.sum(x)
    return s * s * s


def test_nested_grad_and_stop_gradient():
    x = np.array(0.7)
    np.testing.assert_allclose(second(x), 6 * 0.7)
    np.testing.assert_allclose(irt.grad(cube)(np.array([1.0, 2.0])), [3.0, 12.0])


@irt.function
def frozen(x):
    return inp.sum(x * irt.stop_gradient(x))


@irt.function
def inner_jvp_vjp(x, t):
    y, ty = irt.jvp(cube, (x,), (t,))
    out, back = irt.vjp(cube, x)
    (gx,) = back(ty)
    return y + out, gx


def test_stop_gradient_and_inner_jvp_vjp():
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(irt.grad(frozen)(x), x)
    t = np.array([0.5, 1.0])
    y, gx = inner_jvp_vjp(x, t)
    ty = np.sum(3 * x ** 2 * t)
    np.testing.assert_allclose(y, 2 * np.sum(x ** 3))
    np.testing.assert_allclose(gx, 3 * x ** 2 * ty)
