"""Workload definitions and the contenders that run them.

Every workload has: its irtoolkit program (``bench/workloads/wN.mlir``, with a
``@loss`` and a ``@grad`` function), deterministic inputs (same seed for every
contender), the positions of the differentiated arguments, and one
implementation per contender:

* ``irtoolkit``: ``irtoolkit.compile(irtoolkit.parse(text))``, ``exe["loss"]`` / ``exe["grad"]``
* ``numpy``: a hand-written forward and reverse pass (always available)
* ``jax``: ``jax.jit(loss)`` / ``jax.jit(jax.grad(loss, argnums))`` (when importable)
* ``torch``: eager PyTorch + ``torch.autograd.grad`` on CPU, 2 threads (when importable)
* ``torch-compile``: the same loss through ``torch.compile`` (when it works on the
  machine: it needs a C++ compiler; workloads whose Python loop it would unroll
  hundreds of times or break at every step say so and are skipped)

A workload may add irtoolkit variants (``irtoolkit[8MB]``: the program under a
checkpoint memory budget). Each contender runs in its own process; JAX and
PyTorch in the interpreter named by ``IRT_BENCH_PEER_PYTHON`` (``--peer-python``)
when set -- a virtualenv of their own, so that the project's never needs them.

A contender is a pair of zero-argument callables ``(forward, gradient)`` built
by ``make(contender, workload)``; the gradient callable returns a tuple of
numpy-convertible arrays, one per ``wrt`` argument.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

WORKLOAD_DIR = Path(__file__).parent / "workloads"
SEED = 1234


@dataclass
class Workload:
    key: str
    title: str
    mlir: str  # file name under bench/workloads
    dtype: Any
    wrt: tuple[int, ...]
    make_inputs: Callable[[np.random.Generator], tuple]
    np_loss: Callable
    np_grad: Callable
    jax_loss: Callable[[Any], Callable] | None = None  # (jnp, lax) -> loss
    torch_loss: Callable[[Any], Callable] | None = None  # torch -> loss
    notes: str = ""
    #: why torch.compile is not run on it (None: it is)
    no_torch_compile: str | None = None
    #: extra irtoolkit contenders: name -> rewrite of the program text
    irt_variants: dict[str, Callable[[str], str]] = field(default_factory=dict)
    #: report the gradient's peak memory (bench/memory.py)
    memory: bool = False
    #: gradient agreement tolerance when the dtype's default is too tight (say why)
    tolerance: float | None = None

    def inputs(self) -> tuple:
        return self.make_inputs(np.random.default_rng(SEED))

    @property
    def path(self) -> Path:
        return WORKLOAD_DIR / self.mlir

    def text(self) -> str:
        return self.path.read_text()

    @property
    def rtol(self) -> float:
        if self.tolerance is not None:
            return self.tolerance
        return 1e-6 if self.dtype == np.float32 else 1e-12


# ----------------------------------------------------------------------------- W1


def _w1_inputs(rng):
    return (rng.standard_normal(1_000_000) * 0.5,)


def _w1_loss(x):
    return np.tanh(np.exp(x) * x + 1.0).sum()


def _w1_grad(x):
    e = np.exp(x)
    t = np.tanh(e * x + 1.0)
    return ((1.0 - t * t) * e * (x + 1.0),)


def _w1_jax(jnp, lax):
    def loss(x):
        return jnp.sum(jnp.tanh(jnp.exp(x) * x + 1.0))
    return loss


def _w1_torch(torch):
    def loss(x):
        return torch.tanh(torch.exp(x) * x + 1.0).sum()
    return loss


# ----------------------------------------------------------------------------- W2


def _w2_inputs(rng):
    f = np.float32
    w1 = (rng.standard_normal((784, 256)) * 0.05).astype(f)
    b1 = (rng.standard_normal(256) * 0.1).astype(f)
    w2 = (rng.standard_normal((256, 10)) * 0.1).astype(f)
    b2 = (rng.standard_normal(10) * 0.1).astype(f)
    x = rng.standard_normal((64, 784)).astype(f)
    y = np.zeros((64, 10), f)
    y[np.arange(64), rng.integers(0, 10, 64)] = 1.0
    return w1, b1, w2, b2, x, y


def _w2_loss(w1, b1, w2, b2, x, y):
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    zs = z - z.max(axis=1, keepdims=True)
    logp = zs - np.log(np.exp(zs).sum(axis=1, keepdims=True))
    return np.float32(-(y * logp).sum() / np.float32(64.0))


def _w2_grad(w1, b1, w2, b2, x, y):
    n = np.float32(x.shape[0])
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    zs = z - z.max(axis=1, keepdims=True)
    e = np.exp(zs)
    p = e / e.sum(axis=1, keepdims=True)
    dlogp = -y / n
    dz = dlogp - p * dlogp.sum(axis=1, keepdims=True)
    dw2 = h.T @ dz
    db2 = dz.sum(axis=0)
    dh = dz @ w2.T
    dz1 = dh * (1 - h * h)
    dw1 = x.T @ dz1
    db1 = dz1.sum(axis=0)
    return dw1, db1, dw2, db2


def _w2_jax(jnp, lax):
    def loss(w1, b1, w2, b2, x, y):
        h = jnp.tanh(x @ w1 + b1)
        z = h @ w2 + b2
        zs = z - jnp.max(z, axis=1, keepdims=True)
        logp = zs - jnp.log(jnp.sum(jnp.exp(zs), axis=1, keepdims=True))
        return -jnp.sum(y * logp) / 64.0
    return loss


def _w2_torch(torch):
    def loss(w1, b1, w2, b2, x, y):
        h = torch.tanh(x @ w1 + b1)
        z = h @ w2 + b2
        zs = z - z.max(dim=1, keepdim=True).values
        logp = zs - torch.log(torch.exp(zs).sum(dim=1, keepdim=True))
        return -(y * logp).sum() / 64.0
    return loss


# ----------------------------------------------------------------------------- W3

T3, H3, I3 = 100, 128, 32


def _w3_inputs(rng):
    w = rng.standard_normal((H3, H3)) * (0.9 / np.sqrt(H3))
    u = rng.standard_normal((H3, I3)) / np.sqrt(I3)
    b = rng.standard_normal(H3) * 0.1
    xs = rng.standard_normal((T3, I3))
    return w, u, b, xs


def _w3_loss(w, u, b, xs):
    h = np.zeros(H3)
    for t in range(T3):
        h = np.tanh(w @ h + u @ xs[t] + b)
    return (h * h).sum()


def _w3_grad(w, u, b, xs):
    hs = [np.zeros(H3)]
    for t in range(T3):
        hs.append(np.tanh(w @ hs[-1] + u @ xs[t] + b))
    dh = 2.0 * hs[-1]
    dw = np.zeros_like(w)
    du = np.zeros_like(u)
    db = np.zeros_like(b)
    for t in range(T3 - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dw += np.outer(da, hs[t])
        du += np.outer(da, xs[t])
        db += da
        dh = w.T @ da
    return dw, du, db


def _w3_jax(jnp, lax):
    def loss(w, u, b, xs):
        def step(h, x):
            return jnp.tanh(w @ h + u @ x + b), None
        h, _ = lax.scan(step, jnp.zeros(H3, w.dtype), xs)
        return jnp.sum(h * h)
    return loss


def _w3_torch(torch):
    def loss(w, u, b, xs):
        h = torch.zeros(H3, dtype=w.dtype)
        for t in range(T3):
            h = torch.tanh(w @ h + u @ xs[t] + b)
        return (h * h).sum()
    return loss


# ----------------------------------------------------------------------------- W4

T4 = 200


def _w4_inputs(rng):
    return (rng.standard_normal(1000),)


def _w4_loss(x):
    for _ in range(T4):
        x = np.sin(x) * 0.9 if x.sum() > 0 else np.cos(x) + 0.1
    return (x * x).sum()


def _w4_grad(x):
    xs, branch = [], []
    for _ in range(T4):
        xs.append(x)
        pos = x.sum() > 0
        branch.append(pos)
        x = np.sin(x) * 0.9 if pos else np.cos(x) + 0.1
    dx = 2.0 * x
    for t in range(T4 - 1, -1, -1):
        dx = dx * (0.9 * np.cos(xs[t])) if branch[t] else dx * -np.sin(xs[t])
    return (dx,)


def _w4_jax(jnp, lax):
    def loss(x):
        def body(_, x):
            return lax.cond(jnp.sum(x) > 0, lambda v: jnp.sin(v) * 0.9,
                            lambda v: jnp.cos(v) + 0.1, x)
        x = lax.fori_loop(0, T4, body, x)
        return jnp.sum(x * x)
    return loss


def _w4_torch(torch):
    def loss(x):
        for _ in range(T4):
            x = torch.sin(x) * 0.9 if x.sum().item() > 0 else torch.cos(x) + 0.1
        return (x * x).sum()
    return loss


# ----------------------------------------------------------------------------- W5


def _w5_inputs(rng):
    a = rng.standard_normal((512, 512)).astype(np.float32)
    b = rng.standard_normal((512, 512)).astype(np.float32)
    return a, b


def _w5_loss(a, b):
    return (a @ b).sum()


def _w5_grad(a, b):
    # the chain rule as written by hand: dC = ones, dA = dC @ B^T, dB = A^T @ dC
    dc = np.ones((a.shape[0], b.shape[1]), a.dtype)
    return dc @ b.T, a.T @ dc


def _w5_jax(jnp, lax):
    def loss(a, b):
        return jnp.sum(a @ b)
    return loss


def _w5_torch(torch):
    def loss(a, b):
        return (a @ b).sum()
    return loss


# ----------------------------------------------------------------------------- W6

N6, SEG6, H6 = 400, 20, 128  # steps, JAX/PyTorch checkpoint segment (sqrt), grid
W6_BUDGET = "8MB"


def _w6_inputs(rng):
    return rng.standard_normal((H6, H6)), rng.uniform(0.2, 1.0, (H6 - 2, H6 - 2))


def _w6_step(u, ka, xp):
    c = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + (u[1:-1, :-2] + u[1:-1, 2:]) - c * 4.0
    return c + ka * lap - xp.tanh(c) * 0.05


def _w6_loss(u, k):
    ka = k * 0.2
    u = u.copy()
    for _ in range(N6):
        u[1:-1, 1:-1] = _w6_step(u, ka, np)
    return (u * u).sum()


def _w6_grad(u, k):
    # by hand, every state stored
    ka = k * 0.2
    us = [u]
    for _ in range(N6):
        u = u.copy()
        u[1:-1, 1:-1] = _w6_step(u, ka, np)
        us.append(u)
    du, dka = 2.0 * us[-1], np.zeros_like(k)
    for t in range(N6 - 1, -1, -1):
        u = us[t]
        c = u[1:-1, 1:-1]
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + (u[1:-1, :-2] + u[1:-1, 2:]) - c * 4.0
        g = du[1:-1, 1:-1].copy()
        dka += g * lap
        gl = g * ka
        th = np.tanh(c)
        du[1:-1, 1:-1] = g * (1.0 - 0.05 * (1.0 - th * th)) - 4.0 * gl
        du[:-2, 1:-1] += gl
        du[2:, 1:-1] += gl
        du[1:-1, :-2] += gl
        du[1:-1, 2:] += gl
    return du, 0.2 * dka


def _w6_jax(jnp, lax):
    import jax

    def loss(u, k):
        ka = k * 0.2

        def step(u, _):
            return u.at[1:-1, 1:-1].set(_w6_step(u, ka, jnp)), None

        @jax.checkpoint
        def segment(u):  # recomputed in the reverse sweep: only segment starts are kept
            return lax.scan(step, u, None, length=SEG6)[0]

        u, _ = lax.scan(lambda u, _: (segment(u), None), u, None, length=N6 // SEG6)
        return jnp.sum(u * u)
    return loss


def _w6_torch(torch):
    from torch.utils.checkpoint import checkpoint

    def loss(u, k):
        ka = k * 0.2

        def segment(u):
            for _ in range(SEG6):
                u = u.clone()
                u[1:-1, 1:-1] = _w6_step(u, ka, torch)
            return u

        for _ in range(N6 // SEG6):
            u = checkpoint(segment, u, use_reentrant=False) if u.requires_grad else segment(u)
        return (u * u).sum()
    return loss


def _w6_budget(text: str) -> str:
    return text.replace('{autodiff.checkpoint = "sqrt"}', f'{{autodiff.checkpoint_memory = "{W6_BUDGET}"}}')


# ----------------------------------------------------------------------------- W7

N7 = 64


def _w7_inputs(rng):
    f = np.float32
    w1 = (rng.standard_normal((5, 5, 1, 6)) / 5.0).astype(f)
    b1 = (rng.standard_normal(6) * 0.1).astype(f)
    w2 = (rng.standard_normal((5, 5, 6, 16)) / np.sqrt(150.0)).astype(f)
    b2 = (rng.standard_normal(16) * 0.1).astype(f)
    wd = (rng.standard_normal((256, 10)) / 16.0).astype(f)
    bd = (rng.standard_normal(10) * 0.1).astype(f)
    x = rng.standard_normal((N7, 28, 28, 1)).astype(f)
    y = np.zeros((N7, 10), f)
    y[np.arange(N7), rng.integers(0, 10, N7)] = 1.0
    return w1, b1, w2, b2, wd, bd, x, y


def _conv_nhwc(x, w):
    """Valid, stride-1 convolution, x: N x H x W x C, w: kh x kw x C x F (im2col + one GEMM)."""
    kh, kw = w.shape[:2]
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))  # N, Ho, Wo, C, kh, kw
    return np.tensordot(win, w, axes=([4, 5, 3], [0, 1, 2]))


def _conv_nhwc_dw(x, dy, kh, kw):
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))
    return np.tensordot(win, dy, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)  # kh, kw, C, F


def _conv_nhwc_dx(dy, w):
    kh, kw = w.shape[:2]
    dyp = np.pad(dy, ((0, 0), (kh - 1, kh - 1), (kw - 1, kw - 1), (0, 0)))
    return _conv_nhwc(dyp, w[::-1, ::-1].transpose(0, 1, 3, 2))


def _pool2(r):
    n, h, w, c = r.shape
    return r.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _pool2_back(r, p, dp):
    # every maximal element gets the cotangent; ties only occur among relu's zeros,
    # whose derivative is 0 anyway
    n, h, w, c = r.shape
    mask = r.reshape(n, h // 2, 2, w // 2, 2, c) == p[:, :, None, :, None, :]
    return (mask * dp[:, :, None, :, None, :]).reshape(r.shape)


def _log_softmax(z):
    zs = z - z.max(axis=1, keepdims=True)
    return zs - np.log(np.exp(zs).sum(axis=1, keepdims=True))


def _w7_forward(w1, b1, w2, b2, wd, bd, x):
    a1 = _conv_nhwc(x, w1) + b1
    r1 = np.maximum(a1, 0)
    p1 = _pool2(r1)
    a2 = _conv_nhwc(p1, w2) + b2
    r2 = np.maximum(a2, 0)
    p2 = _pool2(r2)
    f = p2.reshape(x.shape[0], -1)
    return a1, r1, p1, a2, r2, p2, f, f @ wd + bd


def _w7_loss(w1, b1, w2, b2, wd, bd, x, y):
    z = _w7_forward(w1, b1, w2, b2, wd, bd, x)[-1]
    return np.float32(-(y * _log_softmax(z)).sum() / np.float32(N7))


def _w7_grad(w1, b1, w2, b2, wd, bd, x, y):
    a1, r1, p1, a2, r2, p2, f, z = _w7_forward(w1, b1, w2, b2, wd, bd, x)
    p = np.exp(_log_softmax(z))
    dlogp = -y / np.float32(N7)
    dz = dlogp - p * dlogp.sum(axis=1, keepdims=True)
    dwd = f.T @ dz
    dbd = dz.sum(axis=0)
    dp2 = (dz @ wd.T).reshape(p2.shape)
    da2 = _pool2_back(r2, p2, dp2) * (a2 > 0)
    db2 = da2.sum(axis=(0, 1, 2))
    dw2 = _conv_nhwc_dw(p1, da2, 5, 5)
    dp1 = _conv_nhwc_dx(da2, w2)
    da1 = _pool2_back(r1, p1, dp1) * (a1 > 0)
    db1 = da1.sum(axis=(0, 1, 2))
    dw1 = _conv_nhwc_dw(x, da1, 5, 5)
    return dw1, db1, dw2, db2, dwd, dbd


def _w7_jax(jnp, lax):
    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def pool(r):
        # a concrete init value, so that JAX recognizes the max-pool and differentiates it
        return lax.reduce_window(r, np.float32(-np.inf), lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss(w1, b1, w2, b2, wd, bd, x, y):
        p1 = pool(jnp.maximum(conv(x, w1) + b1, 0.0))
        p2 = pool(jnp.maximum(conv(p1, w2) + b2, 0.0))
        z = p2.reshape(x.shape[0], -1) @ wd + bd
        zs = z - jnp.max(z, axis=1, keepdims=True)
        logp = zs - jnp.log(jnp.sum(jnp.exp(zs), axis=1, keepdims=True))
        return -jnp.sum(y * logp) / float(N7)
    return loss


def _w7_torch(torch):
    F = torch.nn.functional

    def loss(w1, b1, w2, b2, wd, bd, x, y):
        # PyTorch convolves NCHW with OIHW filters: the same network, permuted
        a1 = F.conv2d(x.permute(0, 3, 1, 2), w1.permute(3, 2, 0, 1), b1)
        p1 = F.max_pool2d(torch.relu(a1), 2)
        a2 = F.conv2d(p1, w2.permute(3, 2, 0, 1), b2)
        p2 = F.max_pool2d(torch.relu(a2), 2)
        z = p2.permute(0, 2, 3, 1).reshape(x.shape[0], -1) @ wd + bd
        return -(y * torch.log_softmax(z, dim=1)).sum() / float(N7)
    return loss


# ----------------------------------------------------------------------------- W8

S8, D8, H8, M8 = 128, 256, 8, 1024
DH8 = D8 // H8
SCALE8 = 1.0 / np.sqrt(DH8)


def _w8_inputs(rng):
    f = np.float32
    ws = [(rng.standard_normal((D8, D8)) / np.sqrt(D8)).astype(f) for _ in range(4)]
    w1 = (rng.standard_normal((D8, M8)) / np.sqrt(D8)).astype(f)
    w2 = (rng.standard_normal((M8, D8)) / np.sqrt(M8)).astype(f)
    x = rng.standard_normal((S8, D8)).astype(f)
    return (*ws, w1, w2, x)


def _erf_np(x):
    # numpy has no erf: Numerical Recipes' erfc (Chebyshev fit, relative error < 1.2e-7)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(x.dtype)


def _ln(x):
    d = x - x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt((d * d).mean(axis=1, keepdims=True) + np.float32(1e-5))
    return d * rstd, rstd


def _ln_back(dy, y, rstd):
    return rstd * (dy - dy.mean(axis=1, keepdims=True) - y * (dy * y).mean(axis=1, keepdims=True))


_W8_CAUSAL = np.tril(np.ones((S8, S8), bool))


def _w8_forward(wq, wk, wv, wo, w1, w2, x):
    xn, rs0 = _ln(x)
    qh, kh, vh = ((xn @ w).reshape(S8, H8, DH8).transpose(1, 0, 2) for w in (wq, wk, wv))  # H, S, DH
    scores = np.where(_W8_CAUSAL, (qh @ kh.transpose(0, 2, 1)) * np.float32(SCALE8), np.float32(-1e9))
    e = np.exp(scores - scores.max(axis=2, keepdims=True))
    p = e / e.sum(axis=2, keepdims=True)
    ctx = (p @ vh).transpose(1, 0, 2).reshape(S8, D8)
    x1 = x + ctx @ wo
    xn1, rs1 = _ln(x1)
    h = xn1 @ w1
    erf = _erf_np(h * np.float32(np.sqrt(0.5)))
    gelu = np.float32(0.5) * h * (1 + erf)
    out = x1 + gelu @ w2
    return locals()


def _w8_loss(wq, wk, wv, wo, w1, w2, x):
    out = _w8_forward(wq, wk, wv, wo, w1, w2, x)["out"]
    return np.float32((out * out).sum() / np.float32(S8 * D8))


def _w8_grad(wq, wk, wv, wo, w1, w2, x):
    v = _w8_forward(wq, wk, wv, wo, w1, w2, x)
    h, p, qh, kh, vh = v["h"], v["p"], v["qh"], v["kh"], v["vh"]
    dout = v["out"] * np.float32(2.0 / (S8 * D8))
    dw2 = v["gelu"].T @ dout
    dgelu = dout @ w2.T
    dh = dgelu * (np.float32(0.5) * (1 + v["erf"])
                  + h * np.exp(np.float32(-0.5) * h * h) * np.float32(1 / np.sqrt(2 * np.pi)))
    dw1 = v["xn1"].T @ dh
    dx1 = dout + _ln_back(dh @ w1.T, v["xn1"], v["rs1"])
    dwo = v["ctx"].T @ dx1
    dctx = (dx1 @ wo.T).reshape(S8, H8, DH8).transpose(1, 0, 2)
    dp = dctx @ vh.transpose(0, 2, 1)
    dvh = p.transpose(0, 2, 1) @ dctx
    ds = p * (dp - (dp * p).sum(axis=2, keepdims=True)) * np.float32(SCALE8)  # masked: p = 0
    dqh = ds @ kh
    dkh = ds.transpose(0, 2, 1) @ qh
    xn = v["xn"]
    dwq, dwk, dwv = (xn.T @ d.transpose(1, 0, 2).reshape(S8, D8) for d in (dqh, dkh, dvh))
    return dwq, dwk, dwv, dwo, dw1, dw2


def _w8_jax(jnp, lax):
    def ln(x):
        d = x - jnp.mean(x, axis=1, keepdims=True)
        return d * lax.rsqrt(jnp.mean(d * d, axis=1, keepdims=True) + 1e-5)

    def loss(wq, wk, wv, wo, w1, w2, x):
        xn = ln(x)
        q, k, v = ((xn @ w).reshape(S8, H8, DH8) for w in (wq, wk, wv))
        scores = jnp.einsum("ihd,jhd->hij", q, k) * SCALE8
        scores = jnp.where(jnp.tril(jnp.ones((S8, S8), bool)), scores, -1e9)
        p = jax_softmax(scores)
        x1 = x + jnp.einsum("hij,jhd->ihd", p, v).reshape(S8, D8) @ wo
        h = ln(x1) @ w1
        out = x1 + (0.5 * h * (1.0 + lax.erf(h * np.float32(np.sqrt(0.5))))) @ w2
        return jnp.sum(out * out) / float(S8 * D8)

    def jax_softmax(s):
        e = jnp.exp(s - jnp.max(s, axis=2, keepdims=True))
        return e / jnp.sum(e, axis=2, keepdims=True)
    return loss


def _w8_torch(torch):
    F = torch.nn.functional
    mask = torch.tril(torch.ones(S8, S8, dtype=torch.bool))

    def loss(wq, wk, wv, wo, w1, w2, x):
        xn = F.layer_norm(x, (D8,), eps=1e-5)
        q, k, v = ((xn @ w).reshape(S8, H8, DH8).transpose(0, 1) for w in (wq, wk, wv))  # H, S, DH
        scores = torch.where(mask, (q @ k.transpose(1, 2)) * SCALE8, -1e9)
        ctx = (torch.softmax(scores, dim=2) @ v).transpose(0, 1).reshape(S8, D8)
        x1 = x + ctx @ wo
        h = F.layer_norm(x1, (D8,), eps=1e-5) @ w1
        out = x1 + (0.5 * h * (1.0 + torch.erf(h * float(np.sqrt(0.5))))) @ w2
        return (out * out).sum() / float(S8 * D8)
    return loss


# ----------------------------------------------------------------------------- W9

V9, E9, H9, T9, B9 = 10_000, 128, 128, 32, 32


def _w9_inputs(rng):
    f = np.float32
    table = (rng.standard_normal((V9, E9)) * 0.5).astype(f)
    wx = (rng.standard_normal((E9, 4 * H9)) / np.sqrt(E9)).astype(f)
    wh = (rng.standard_normal((H9, 4 * H9)) / np.sqrt(H9)).astype(f)
    b = (rng.standard_normal(4 * H9) * 0.1).astype(f)
    ids = rng.integers(0, V9, (T9, B9, 1)).astype(np.int64)
    return table, wx, wh, b, ids


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _w9_forward(table, wx, wh, b, ids):
    xe = table[ids[..., 0]]  # T, B, E
    zx = (xe.reshape(T9 * B9, E9) @ wx + b).reshape(T9, B9, 4 * H9)
    h = np.zeros((B9, H9), table.dtype)
    c = np.zeros_like(h)
    steps = []
    for t in range(T9):
        z = zx[t] + h @ wh
        i, f, o = (_sigmoid(z[:, k * H9:(k + 1) * H9]) for k in (0, 1, 3))
        g = np.tanh(z[:, 2 * H9:3 * H9])
        c_prev, h_prev = c, h
        c = f * c + i * g
        tc = np.tanh(c)
        h = o * tc
        steps.append((i, f, g, o, c_prev, h_prev, tc))
    return xe, h, steps


def _w9_loss(table, wx, wh, b, ids):
    h = _w9_forward(table, wx, wh, b, ids)[1]
    return np.float32((h * h).sum() / np.float32(B9))


def _w9_grad(table, wx, wh, b, ids):
    xe, h, steps = _w9_forward(table, wx, wh, b, ids)
    dh = h * np.float32(2.0 / B9)
    dc = np.zeros_like(h)
    dz = np.empty((T9, B9, 4 * H9), h.dtype)
    dwh = np.zeros_like(wh)
    for t in range(T9 - 1, -1, -1):
        i, f, g, o, c_prev, h_prev, tc = steps[t]
        dc = dc + dh * o * (1 - tc * tc)
        dz[t, :, 0:H9] = dc * g * i * (1 - i)
        dz[t, :, H9:2 * H9] = dc * c_prev * f * (1 - f)
        dz[t, :, 2 * H9:3 * H9] = dc * i * (1 - g * g)
        dz[t, :, 3 * H9:] = dh * tc * o * (1 - o)
        dc = dc * f
        dwh += h_prev.T @ dz[t]
        dh = dz[t] @ wh.T
    dz2 = dz.reshape(T9 * B9, 4 * H9)
    dwx = xe.reshape(T9 * B9, E9).T @ dz2
    db = dz2.sum(axis=0)
    dtable = np.zeros_like(table)
    np.add.at(dtable, ids.ravel(), dz2 @ wx.T)
    return dtable, dwx, dwh, db


def _w9_jax(jnp, lax):
    def loss(table, wx, wh, b, ids):
        xe = table[ids[..., 0]]

        def step(hc, x):
            h, c = hc
            z = x @ wx + h @ wh + b
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax_sigmoid(f) * c + jax_sigmoid(i) * jnp.tanh(g)
            return (jax_sigmoid(o) * jnp.tanh(c), c), None

        def jax_sigmoid(z):
            return 1.0 / (1.0 + jnp.exp(-z))

        zero = jnp.zeros((B9, H9), table.dtype)
        (h, _), _ = lax.scan(step, (zero, zero), xe)
        return jnp.sum(h * h) / float(B9)
    return loss


def _w9_torch(torch):
    def loss(table, wx, wh, b, ids):
        xe = table[ids[..., 0]]
        h = torch.zeros(B9, H9, dtype=table.dtype)
        c = torch.zeros_like(h)
        for t in range(T9):
            i, f, g, o = (xe[t] @ wx + h @ wh + b).chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return (h * h).sum() / float(B9)
    return loss


#: W7's conv1 bias gradient sums 64*24*24 f32 terms per channel and W8's weight gradients
#: sum over the causal softmax's rows: every contender reduces in its own order (irtoolkit
#: in f64, numpy pairwise, PyTorch/JAX in f32 blocks), which moves them ~1e-6 apart, the
#: same as 16 ulps of the largest entry
F32_REDUCTION_TOL = 5e-6

WORKLOADS: dict[str, Workload] = {
    w.key: w
    for w in [
        Workload("W1", "sum(tanh(exp(x)*x+1)), x: 1e6 f64", "w1.mlir", np.float64, (0,),
                 _w1_inputs, _w1_loss, _w1_grad, _w1_jax, _w1_torch),
        Workload("W2", "MLP 784-256-10, batch 64, softmax xent, f32", "w2.mlir", np.float32,
                 (0, 1, 2, 3), _w2_inputs, _w2_loss, _w2_grad, _w2_jax, _w2_torch),
        Workload("W3", "RNN hidden 128, input 32, 100 steps, f64", "w3.mlir", np.float64,
                 (0, 1, 2), _w3_inputs, _w3_loss, _w3_grad, _w3_jax, _w3_torch),
        Workload("W4", "200x data-dependent if (sin/cos), x: 1000 f64", "w4.mlir", np.float64,
                 (0,), _w4_inputs, _w4_loss, _w4_grad, _w4_jax, _w4_torch,
                 no_torch_compile="a graph break at every step (a branch on a value)"),
        Workload("W5", "sum(A @ B), 512x512 f32", "w5.mlir", np.float32, (0, 1),
                 _w5_inputs, _w5_loss, _w5_grad, _w5_jax, _w5_torch),
        Workload("W6", f"long loop: {N6}-step 2-D stencil {H6}x{H6} f64, checkpointed "
                       f"(irtoolkit: sqrt as written, and a {W6_BUDGET} budget; JAX: nested scan + "
                       f"jax.checkpoint, segments of {SEG6}; PyTorch: torch.utils.checkpoint per segment; "
                       "numpy: every state stored)", "w6.mlir", np.float64, (0, 1),
                 _w6_inputs, _w6_loss, _w6_grad, _w6_jax, _w6_torch,
                 no_torch_compile=f"it would unroll the {N6}-step loop", memory=True,
                 irt_variants={f"irtoolkit[{W6_BUDGET}]": _w6_budget}),
        Workload("W7", f"LeNet-5-style CNN (conv 5x5 -> relu -> max-pool, twice; dense; softmax xent), "
                       f"batch {N7}, 28x28x1, f32", "w7.mlir", np.float32, (0, 1, 2, 3, 4, 5),
                 _w7_inputs, _w7_loss, _w7_grad, _w7_jax, _w7_torch, tolerance=F32_REDUCTION_TOL),
        Workload("W8", f"transformer block: pre-layernorm, causal attention, {H8} heads (batched dot), "
                       f"GELU (erf) MLP {D8}-{M8}-{D8}, sequence {S8}, width {D8}, f32", "w8.mlir", np.float32,
                 (0, 1, 2, 3, 4, 5), _w8_inputs, _w8_loss, _w8_grad, _w8_jax, _w8_torch,
                 tolerance=F32_REDUCTION_TOL),
        Workload("W9", f"embedding {V9}x{E9} (gather) + LSTM hidden {H9}, {T9} steps, batch {B9}, f32",
                 "w9.mlir", np.float32, (0, 1, 2, 3), _w9_inputs, _w9_loss, _w9_grad, _w9_jax, _w9_torch),
    ]
}

CONTENDERS = ("irtoolkit", "numpy", "jax", "torch", "torch-compile")
#: contenders run by the interpreter IRT_BENCH_PEER_PYTHON names, when set
PEERS = ("jax", "torch", "torch-compile")
PEER_PYTHON_ENV = "IRT_BENCH_PEER_PYTHON"


def contenders_for(w: Workload, names) -> list[str]:
    """``names`` with the workload's irtoolkit variants after irtoolkit."""
    out = []
    for name in names:
        out.append(name)
        if name == "irtoolkit":
            out += list(w.irt_variants)
    return out


def python_for(name: str) -> str:
    import sys

    if name in PEERS:
        return os.environ.get(PEER_PYTHON_ENV) or sys.executable
    return sys.executable


# ----------------------------------------------------------------------------- availability


AVAILABILITY_PROBES = {
    "jax": "import jax",
    "torch": "import torch",
    # inductor compiles C++: a forward and a backward graph of a tiny function
    "torch-compile": ("import torch\n"
                      "f = torch.compile(lambda x: (torch.sin(x) * 2.0).sum())\n"
                      "x = torch.ones(3, requires_grad=True)\n"
                      "torch.autograd.grad(f(x), x)\n"),
}
_AVAILABLE: dict[str, str | None] = {}


def available(name: str) -> str | None:
    """None when the contender can run (in its interpreter), else the reason it cannot."""
    import subprocess

    if name.startswith("irtoolkit") or name == "numpy":
        return None
    if name not in AVAILABILITY_PROBES:
        return f"unknown contender {name}"
    if name not in _AVAILABLE:
        py = python_for(name)
        try:
            proc = subprocess.run([py, "-c", AVAILABILITY_PROBES[name]], capture_output=True, text=True,
                                  timeout=600)
            ok = proc.returncode == 0
            why = (proc.stderr.strip().splitlines() or ["?"])[-1][:200]
        except (OSError, subprocess.TimeoutExpired) as err:
            ok, why = False, f"{type(err).__name__}: {err}"
        _AVAILABLE[name] = None if ok else f"does not work with {py} ({why})"
    return _AVAILABLE[name]


def skipped_for(name: str, w: Workload) -> str | None:
    """Why contender ``name`` does not run workload ``w`` (None: it does)."""
    if name == "torch-compile" and w.no_torch_compile:
        return f"not run: {w.no_torch_compile}"
    return None


def _jax():
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    from jax import lax

    return jax, jnp, lax


def _torch():
    import torch

    torch.set_num_threads(2)
    return torch


# ----------------------------------------------------------------------------- builders


@dataclass
class Built:
    forward: Callable[[], Any]
    gradient: Callable[[], tuple]
    extra: dict = field(default_factory=dict)


_IRT_CACHE: dict[tuple[str, str], Any] = {}


def irtoolkit_executable(w: Workload, variant: str = "irtoolkit"):
    exe = _IRT_CACHE.get((w.key, variant))
    if exe is None:
        import irtoolkit

        text = w.text() if variant == "irtoolkit" else w.irt_variants[variant](w.text())
        exe = irtoolkit.compile(irtoolkit.parse(text, str(w.path)))
        # the steady state: the code a tiered compile swaps in once the program is
        # hot (the first call, in bench's first-call processes, runs tier 0)
        exe.optimize()
        _IRT_CACHE[(w.key, variant)] = exe
    return exe


def _as_tuple(r) -> tuple:
    return r if isinstance(r, tuple) else (r,)


def make(name: str, w: Workload, inputs: tuple | None = None) -> Built:
    args = w.inputs() if inputs is None else inputs
    if name.startswith("irtoolkit"):
        exe = irtoolkit_executable(w, name)
        f, g = exe["loss"], exe["grad"]
        return Built(lambda: f(*args), lambda: _as_tuple(g(*args)), {"exe": exe})
    if name == "numpy":
        return Built(lambda: w.np_loss(*args), lambda: w.np_grad(*args))
    if name == "jax":
        jax, jnp, lax = _jax()
        loss = w.jax_loss(jnp, lax)
        jargs = tuple(jnp.asarray(a) for a in args)
        jf = jax.jit(loss)
        jg = jax.jit(jax.grad(loss, argnums=w.wrt))

        def fwd():
            return jf(*jargs).block_until_ready()

        def grad():
            return tuple(np.asarray(x) for x in jax.block_until_ready(jg(*jargs)))
        return Built(fwd, grad)
    if name in ("torch", "torch-compile"):
        torch = _torch()
        loss = w.torch_loss(torch)
        if name == "torch-compile":
            loss = torch.compile(loss)
        targs = [torch.from_numpy(np.array(a)) for a in args]
        for i in w.wrt:
            targs[i].requires_grad_(True)
        params = [targs[i] for i in w.wrt]

        def fwd():
            with torch.no_grad():
                return loss(*targs)

        def grad():
            out = loss(*targs)
            gs = torch.autograd.grad(out, params)
            return tuple(x.numpy() for x in gs)
        return Built(fwd, grad)
    raise ValueError(f"unknown contender {name}")


# ----------------------------------------------------------------------------- first call

FIRST_CALL_SCRIPT = r"""
import json, sys, time
contender, key, preload = sys.argv[1], sys.argv[2], sys.argv[3] == "preload"
t_import = time.perf_counter()
import numpy as np
from bench.contenders import WORKLOADS, _jax, _torch
w = WORKLOADS[key]
args = w.inputs()
out = {}
if contender.startswith("irtoolkit"):
    import irtoolkit
    if preload:  # load the compiler, as `import jax` loads XLA
        irtoolkit.preload()
    out["import_s"] = time.perf_counter() - t_import
    text = w.text() if contender == "irtoolkit" else w.irt_variants[contender](w.text())
    t0 = time.perf_counter()
    m = irtoolkit.parse(text, str(w.path))
    t1 = time.perf_counter()
    exe = irtoolkit.compile(m)
    t2 = time.perf_counter()
    g = exe["grad"](*args)
    t3 = time.perf_counter()
    out.update(first_s=t3 - t0, parse_s=t1 - t0, compile_s=t2 - t1, call_s=t3 - t2,
               from_cache=bool(getattr(exe, "from_cache", False)))
elif contender == "jax":
    jax, jnp, lax = _jax()
    out["import_s"] = time.perf_counter() - t_import
    t0 = time.perf_counter()
    loss = w.jax_loss(jnp, lax)
    jargs = tuple(jnp.asarray(a) for a in args)
    jg = jax.jit(jax.grad(loss, argnums=w.wrt))
    jax.block_until_ready(jg(*jargs))
    out["first_s"] = time.perf_counter() - t0
elif contender in ("torch", "torch-compile"):
    torch = _torch()
    out["import_s"] = time.perf_counter() - t_import
    t0 = time.perf_counter()
    loss = w.torch_loss(torch)
    if contender == "torch-compile":
        loss = torch.compile(loss)
    targs = [torch.from_numpy(np.array(a)) for a in args]
    for i in w.wrt:
        targs[i].requires_grad_(True)
    torch.autograd.grad(loss(*targs), [targs[i] for i in w.wrt])
    out["first_s"] = time.perf_counter() - t0
elif contender == "numpy":
    out["import_s"] = time.perf_counter() - t_import
    t0 = time.perf_counter()
    w.np_grad(*args)
    out["first_s"] = time.perf_counter() - t0
print("@@RESULT@@" + json.dumps(out))
"""


def first_call(name: str, key: str, timeout: float = 600.0) -> dict:
    """Time the first gradient call in a fresh interpreter; the imports (for
    irtoolkit: ``import irtoolkit`` and ``irtoolkit.preload()``, the compiler's
    modules and LLVM, as ``import jax`` loads XLA) are timed apart, as import_s.

    irtoolkit: the first process compiles with an EMPTY compile cache (a fresh
    ``IRT_CACHE_DIR``); a second fresh process then compiles the same program
    again, loading it from that cache: its times are the ``warm_*`` entries.
    A third process, with another empty cache, skips ``preload()``: the
    compiler loads during the first call (``lazy_*``)."""
    import tempfile

    if not name.startswith("irtoolkit"):
        return _first_call_process(name, key, timeout, None)
    with tempfile.TemporaryDirectory(prefix="irt-bench-cache-") as d:
        cold = _first_call_process(name, key, timeout, d)
        if "error" in cold:
            return cold
        warm = _first_call_process(name, key, timeout, d)
    with tempfile.TemporaryDirectory(prefix="irt-bench-cache-") as d:
        lazy = _first_call_process(name, key, timeout, d, preload=False)
    for prefix, res in (("warm_", warm), ("lazy_", lazy)):
        if "error" in res:
            cold[prefix + "error"] = res["error"]
        else:
            cold.update({prefix + k: v for k, v in res.items()})
    return cold


def _first_call_process(name: str, key: str, timeout: float, cache_dir: str | None,
                        preload: bool = True) -> dict:
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    if cache_dir is not None:
        env["IRT_CACHE_DIR"] = cache_dir
        env.pop("IRT_NO_CACHE", None)
    try:
        proc = subprocess.run([python_for(name), "-c", FIRST_CALL_SCRIPT, name, key,
                               "preload" if preload else "lazy"],
                              capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": tail[:300]}


# ----------------------------------------------------------------------------- isolated timing

#: timing rounds per measurement: the reported median is the lowest round median,
#: so that a burst of other work on the machine during one round does not decide it
ROUNDS = 3
#: calls per round at most (a round otherwise lasts budget / ROUNDS seconds)
MAX_CALLS = 1000


def measure(fn, repeat, budget):
    """(median, min, calls) of ``fn``'s time: the median of the least disturbed of
    ``ROUNDS`` rounds, each ``repeat`` calls or about ``budget / ROUNDS`` seconds
    (at least 5 calls, at most ``MAX_CALLS``)."""
    import statistics
    import time

    fn()
    medians, best, calls = [], float("inf"), 0
    for _ in range(ROUNDS):
        times = []
        start = time.perf_counter()
        while True:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
            if repeat is not None:
                if len(times) >= repeat:
                    break
            elif (len(times) >= 5 and time.perf_counter() - start > budget / ROUNDS) \
                    or len(times) >= MAX_CALLS:
                break
        medians.append(statistics.median(times))
        best = min(best, min(times))
        calls += len(times)
    return min(medians), best, calls


def timed_run(name: str, key: str, repeat: int | None, budget: float, out_npz: str) -> dict:
    """Build contender ``name`` for workload ``key``, time forward and gradient,
    save the gradient (g0, g1, ...) and loss value to ``out_npz``."""
    import traceback

    w = WORKLOADS[key]
    res: dict = {}
    try:
        built = make(name, w)
    except Exception as exc:  # noqa: BLE001
        res["error"] = f"{type(exc).__name__}: {exc}"
        res["traceback"] = traceback.format_exc()
        return res
    for what, fn in (("fwd", built.forward), ("grad", built.gradient)):
        try:
            res[what], res[what + "_min"], res[what + "_n"] = measure(fn, repeat, budget)
        except Exception as exc:  # noqa: BLE001
            res[what + "_error"] = f"{type(exc).__name__}: {exc}"
            res[what + "_traceback"] = traceback.format_exc()
    save = {}
    try:
        save["value"] = np.asarray(np.asarray(built.forward(), dtype=np.float64))
    except Exception:  # noqa: BLE001
        pass
    try:
        for i, g in enumerate(built.gradient()):
            save[f"g{i}"] = np.asarray(g)
    except Exception:  # noqa: BLE001
        pass
    np.savez(out_npz, **save)
    return res


def memory_run(name: str, key: str) -> dict:
    """Peak memory of contender ``name``'s gradient of workload ``key`` (bench/memory.py):
    the largest of three measured calls after two warm-up calls."""
    from bench.memory import peak_bytes

    built = make(name, WORKLOADS[key])
    built.gradient()
    built.gradient()
    return {"peak_bytes": max(peak_bytes(built.gradient) for _ in range(3))}


WORKER_SCRIPT = r"""
import json, sys
from bench.contenders import memory_run, timed_run
name, key, repeat, budget, out = sys.argv[1:6]
if repeat == "memory":
    res = memory_run(name, key)
else:
    res = timed_run(name, key, None if repeat == "none" else int(repeat), float(budget), out)
print("@@RESULT@@" + json.dumps(res))
"""


def isolated(name: str, key: str, repeat: int | str | None, budget: float,
             timeout: float = 900.0) -> tuple[dict, dict]:
    """``timed_run`` in a fresh interpreter; returns (result, saved arrays).
    ``repeat="memory"``: ``memory_run`` instead, with the allocator settings of
    bench/memory.py."""
    import json
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    if repeat == "memory":
        from bench.memory import MALLOC_ENV

        env.update(MALLOC_ENV)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "grad.npz")
        try:
            proc = subprocess.run(
                [python_for(name), "-c", WORKER_SCRIPT, name, key,
                 "none" if repeat is None else str(repeat), str(budget), out],
                capture_output=True, text=True, timeout=timeout, cwd=root, env=env)
        except subprocess.TimeoutExpired:
            return {"error": f"timeout after {timeout:.0f} s"}, {}
        res = None
        for line in proc.stdout.splitlines():
            if line.startswith("@@RESULT@@"):
                res = json.loads(line[len("@@RESULT@@"):])
        if res is None:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"error": f"worker died (rc {proc.returncode}): {tail[:300]}"}, {}
        arrays = {}
        if os.path.exists(out):
            with np.load(out) as z:
                arrays = {k: z[k] for k in z.files}
        return res, arrays
