"""Regenerates the StableHLO corpus in ``corpus/`` from the JAX models below.

Run with a Python that has JAX (never imported by the project's tests):

    /work/wt/jaxenv/bin/python test/frontends/stablehlo/generate.py

For every model and dtype (f32, then f64 with ``jax_enable_x64``) it writes

- ``corpus/<model>.<dtype>.mlir``: ``jax.jit(loss).lower(*args).as_text()``,
  the text JAX hands to compilers, with its ``mhlo.*``/``jax.*``/``sdy.*``
  attributes;
- ``corpus/<model>_grad.<dtype>.mlir`` for the models marked ``export_grad``:
  JAX's own gradient function ``jax.jit(jax.grad(loss, wrt))``, lowered the
  same way (its ``@main`` returns the gradients);
- ``corpus/<model>.<dtype>.npz``: ``arg0 ... argN`` (the example inputs),
  ``out0`` (the loss), ``wrt`` (the argument positions differentiated),
  ``grad0 ...`` (the reference gradient, one per ``wrt`` position) and
  ``grad_mode`` (``grad``: ``jax.grad``; ``jacfwd``: forward mode, for the
  model whose ``lax.while_loop`` JAX cannot reverse-differentiate).

Every ``loss`` returns one scalar, so that ``autodiff.grad`` of the imported
``@main`` is the comparison. Seeds are fixed: a rerun with the same JAX
version reproduces the files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


@dataclass
class Model:
    name: str
    loss: Callable
    make_args: Callable  # (rng, float dtype) -> list of numpy arrays
    wrt: tuple[int, ...]
    grad_mode: str = "grad"
    export_grad: bool = False
    jit_options: Callable | None = None  # () -> kwargs of jax.jit (shardings, donation)


def define_models():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def normal(rng, dtype, *shape, scale=1.0):
        return (scale * rng.standard_normal(shape)).astype(dtype)

    # -- MLP with GELU -----------------------------------------------------------
    def mlp(approximate):
        def loss(w1, b1, w2, b2, x, y):
            h = jax.nn.gelu(x @ w1 + b1, approximate=approximate)
            out = h @ w2 + b2
            return jnp.mean((out - y) ** 2)

        def make_args(rng, dt):
            return [normal(rng, dt, 16, 32, scale=0.3), normal(rng, dt, 32, scale=0.1),
                    normal(rng, dt, 32, 4, scale=0.3), normal(rng, dt, 4, scale=0.1),
                    normal(rng, dt, 8, 16), normal(rng, dt, 8, 4)]

        return loss, make_args

    # -- LeNet-style CNN: NCHW conv + max-pool, NHWC strided conv + avg-pool ------
    def lenet_loss(k1, c1, k2, c2, wd, bd, x, labels):
        n = x.shape[0]
        y = lax.conv_general_dilated(x, k1, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        y = jax.nn.relu(y + c1[None, :, None, None])
        y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        y = jnp.transpose(y, (0, 2, 3, 1))
        y = lax.conv_general_dilated(y, k2, (2, 2), ((1, 1), (1, 1)),
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jnp.tanh(y + c2)
        y = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
        logits = y.reshape(n, -1) @ wd + bd
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    def lenet_args(rng, dt):
        return [normal(rng, dt, 4, 1, 3, 3, scale=0.5), normal(rng, dt, 4, scale=0.1),
                normal(rng, dt, 3, 3, 4, 8, scale=0.3), normal(rng, dt, 8, scale=0.1),
                normal(rng, dt, 32, 10, scale=0.3), normal(rng, dt, 10, scale=0.1),
                normal(rng, dt, 4, 1, 16, 16), rng.integers(0, 10, 4).astype(np.int32)]

    # -- transformer block: layer norm, causal multi-head attention, GELU MLP -----
    heads = 4

    @jax.jit  # a nested jit: JAX emits a private function and func.call
    def layer_norm(x, g, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

    def transformer_loss(g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2, x, target):
        bsz, t, d = x.shape
        dh = d // heads
        h = layer_norm(x, g1, b1)
        q = (h @ wq).reshape(bsz, t, heads, dh)
        k = (h @ wk).reshape(bsz, t, heads, dh)
        v = (h @ wv).reshape(bsz, t, heads, dh)
        scores = jnp.einsum("bthd,bshd->bhts", q, k) / np.sqrt(dh).astype(x.dtype)
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        scores = jnp.where(causal, scores, jnp.finfo(x.dtype).min)
        attn = jax.nn.softmax(scores, axis=-1)
        o = jnp.einsum("bhts,bshd->bthd", attn, v).reshape(bsz, t, d)
        x = x + o @ wo
        h = layer_norm(x, g2, b2)
        x = x + jax.nn.gelu(h @ w1 + c1) @ w2 + c2
        return jnp.mean((x - target) ** 2)

    def transformer_args(rng, dt):
        d, ff = 16, 32
        return [(1 + normal(rng, dt, d, scale=0.1)).astype(dt), normal(rng, dt, d, scale=0.1),
                normal(rng, dt, d, d, scale=0.25), normal(rng, dt, d, d, scale=0.25),
                normal(rng, dt, d, d, scale=0.25), normal(rng, dt, d, d, scale=0.25),
                (1 + normal(rng, dt, d, scale=0.1)).astype(dt), normal(rng, dt, d, scale=0.1),
                normal(rng, dt, d, ff, scale=0.25), normal(rng, dt, ff, scale=0.1),
                normal(rng, dt, ff, d, scale=0.25), normal(rng, dt, d, scale=0.1),
                normal(rng, dt, 2, 6, d), normal(rng, dt, 2, 6, d)]

    # -- embedding lookup + LSTM with lax.scan -----------------------------------
    def lstm_loss(emb, wx, wh, b, wout, bout, tokens, labels):
        xs = jnp.swapaxes(emb[tokens], 0, 1)  # (time, batch, features)
        hidden = wh.shape[0]
        zeros = jnp.zeros((tokens.shape[0], hidden), emb.dtype)

        def cell(carry, x):
            h, c = carry
            z = jnp.concatenate([x, h], axis=1) @ jnp.concatenate([wx, wh], axis=0) + b
            i, f, g, o = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        (h, _), hs = lax.scan(cell, (zeros, zeros), xs)
        logits = h @ wout + bout
        logp = jax.nn.log_softmax(logits)
        ce = -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))
        return ce + 0.01 * jnp.mean(hs ** 2)

    def lstm_args(rng, dt):
        vocab, e, hid, classes = 20, 8, 8, 5
        return [normal(rng, dt, vocab, e, scale=0.5), normal(rng, dt, e, 4 * hid, scale=0.3),
                normal(rng, dt, hid, 4 * hid, scale=0.3), normal(rng, dt, 4 * hid, scale=0.1),
                normal(rng, dt, hid, classes, scale=0.3), normal(rng, dt, classes, scale=0.1),
                rng.integers(0, vocab, (3, 6)).astype(np.int32),
                rng.integers(0, classes, 3).astype(np.int32)]

    # -- GRU with lax.fori_loop --------------------------------------------------
    def gru_loss(wx, wh, b, wout, x, y):
        bsz, steps, _ = x.shape
        hidden = wh.shape[0]

        def body(t, h):
            xt = lax.dynamic_index_in_dim(x, t, axis=1, keepdims=False)
            gx = xt @ wx + b
            zx, rx, nx = jnp.split(gx, 3, axis=1)
            uz, ur, un = jnp.split(wh, 3, axis=1)
            z = jax.nn.sigmoid(zx + h @ uz)
            r = jax.nn.sigmoid(rx + h @ ur)
            n = jnp.tanh(nx + (r * h) @ un)
            return (1 - z) * h + z * n

        h = lax.fori_loop(0, steps, body, jnp.zeros((bsz, hidden), x.dtype))
        return jnp.mean((h @ wout - y) ** 2)

    def gru_args(rng, dt):
        f, hid = 3, 6
        return [normal(rng, dt, f, 3 * hid, scale=0.4), normal(rng, dt, hid, 3 * hid, scale=0.4),
                normal(rng, dt, 3 * hid, scale=0.1), normal(rng, dt, hid, 2, scale=0.4),
                normal(rng, dt, 4, 5, f), normal(rng, dt, 4, 2)]

    # -- Newton's method with lax.while_loop -------------------------------------
    def newton_loss(a, b, x0):
        # the root of x^3 + a x - b (a > 0: one real root), elementwise
        tol = 1e-12 if a.dtype == np.float64 else 1e-5

        def residual(x):
            return x ** 3 + a * x - b

        def cond(state):
            x, i = state
            return (jnp.max(jnp.abs(residual(x))) > tol) & (i < 50)

        def body(state):
            x, i = state
            return x - residual(x) / (3 * x ** 2 + a), i + 1

        x, _ = lax.while_loop(cond, body, (x0, 0))
        return jnp.sum(jnp.sin(x) + x ** 2)

    def newton_args(rng, dt):
        return [(1 + rng.random(5)).astype(dt), normal(rng, dt, 5, scale=2.0), np.zeros(5, dt)]

    # -- lax.cond and lax.switch -------------------------------------------------
    def branches_loss(w, v, x, k):
        h = x @ w
        h = lax.cond(jnp.sum(h) > 0, jnp.tanh, lambda h: 0.5 * jnp.clip(h, -1.0, 1.0), h)
        h = lax.switch(k, [lambda h: h @ v, lambda h: jnp.sin(h) @ v,
                           lambda h: jnp.exp(-h ** 2) @ v], h)
        return jnp.mean(h ** 2)

    def branches_args(rng, dt):
        return [normal(rng, dt, 5, 6, scale=0.5), normal(rng, dt, 6, 3, scale=0.5),
                normal(rng, dt, 4, 5), np.int32(1)]

    # -- x[idx] gather and x.at[idx].add scatter (message passing on a graph) -----
    def scatter_loss(table, w, src, dst, col):
        rows = table[src]                                   # gather rows
        msg = jnp.tanh(rows @ w)
        agg = jnp.zeros_like(table).at[dst].add(msg)        # duplicates accumulate
        agg = agg.at[dst, col].add(rows[:, 0] ** 2)         # point updates
        return jnp.sum((table + agg) ** 2) / table.shape[0]

    def scatter_args(rng, dt):
        return [normal(rng, dt, 7, 4), normal(rng, dt, 4, 4, scale=0.5),
                np.array([0, 2, 2, 5, 6, 1], np.int32), np.array([1, 1, 3, 0, 6, 1], np.int32),
                np.array([0, 3, 3, 1, 2, 0], np.int32)]

    # -- argmax accuracy: misclassified examples weigh double ---------------------
    def classifier_loss(w, b, x, labels):
        logits = x @ w + b
        logp = jax.nn.log_softmax(logits)
        ce = -jnp.take_along_axis(logp, labels[:, None], axis=1)[:, 0]
        wrong = (jnp.argmax(logits, axis=1) != labels).astype(x.dtype)
        return jnp.mean(ce * (1 + wrong))

    def classifier_args(rng, dt):
        return [normal(rng, dt, 6, 4, scale=0.5), normal(rng, dt, 4, scale=0.1),
                normal(rng, dt, 8, 6), rng.integers(0, 4, 8).astype(np.int32)]

    def classifier_jit_options():
        # shardings over a one-device mesh, so the export carries sdy.mesh and
        # #sdy.sharding attributes
        from jax.sharding import NamedSharding, PartitionSpec

        mesh = jax.make_mesh((1,), ("batch",))
        rows = NamedSharding(mesh, PartitionSpec("batch"))
        whole = NamedSharding(mesh, PartitionSpec())
        return dict(in_shardings=(whole, whole, rows, rows), out_shardings=whole)

    # -- cumsum: value regression against reversed cumulative rewards -------------
    def cumsum_loss(w, x, r):
        v = x @ w                                                  # (batch, time)
        returns = jnp.flip(jnp.cumsum(jnp.flip(r, 1), axis=1), 1)  # reward-to-go
        running = jnp.cumsum(v, axis=1)
        return jnp.mean((v - returns) ** 2) + 0.1 * jnp.mean(running ** 2)

    def cumsum_args(rng, dt):
        return [normal(rng, dt, 3, 5, scale=0.5), normal(rng, dt, 4, 3), normal(rng, dt, 4, 5)]

    # -- logsumexp: softmax cross-entropy written with jax.nn.logsumexp -----------
    def logsumexp_loss(w, x, labels):
        logits = x @ w
        picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=1) - picked)

    def logsumexp_args(rng, dt):
        return [normal(rng, dt, 5, 7), normal(rng, dt, 6, 5), rng.integers(0, 7, 6).astype(np.int32)]

    # -- neural ODE, fixed-step RK4, each step rematerialized ---------------------
    def node_loss(w1, b1, w2, y0, target):
        dt = 0.1

        def field(y):
            return jnp.tanh(y @ w1 + b1) @ w2

        @jax.checkpoint
        def step(i, y):
            k1 = field(y)
            k2 = field(y + dt / 2 * k1)
            k3 = field(y + dt / 2 * k2)
            k4 = field(y + dt * k3)
            return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        y = lax.fori_loop(0, 10, step, y0)
        return jnp.mean((y - target) ** 2)

    def node_args(rng, dt):
        return [normal(rng, dt, 3, 8, scale=0.5), normal(rng, dt, 8, scale=0.1),
                normal(rng, dt, 8, 3, scale=0.5), normal(rng, dt, 4, 3), normal(rng, dt, 4, 3)]

    erf_loss, erf_args = mlp(False)
    tanh_loss, tanh_args = mlp(True)
    return [
        Model("mlp_gelu_erf", erf_loss, erf_args, (0, 1, 2, 3), export_grad=True),
        Model("mlp_gelu_tanh", tanh_loss, tanh_args, (0, 1, 2, 3)),
        Model("lenet", lenet_loss, lenet_args, (0, 1, 2, 3, 4, 5), export_grad=True),
        Model("transformer", transformer_loss, transformer_args, tuple(range(12))),
        Model("lstm_scan", lstm_loss, lstm_args, (0, 1, 2, 3, 4, 5), export_grad=True),
        Model("gru_fori", gru_loss, gru_args, (0, 1, 2, 3)),
        Model("newton_while", newton_loss, newton_args, (0, 1), grad_mode="jacfwd"),
        Model("cond_switch", branches_loss, branches_args, (0, 1)),
        Model("scatter_add", scatter_loss, scatter_args, (0, 1), export_grad=True),
        Model("argmax_accuracy", classifier_loss, classifier_args, (0, 1),
              jit_options=classifier_jit_options),
        Model("cumsum", cumsum_loss, cumsum_args, (0,)),
        Model("logsumexp", logsumexp_loss, logsumexp_args, (0,)),
        Model("neural_ode_rk4", node_loss, node_args, (0, 1, 2), export_grad=True),
    ]


def generate(dtype_name: str) -> None:
    import jax

    jax.config.update("jax_enable_x64", dtype_name == "f64")
    jax.config.update("jax_platforms", "cpu")
    import numpy as np

    dtype = {"f32": np.float32, "f64": np.float64}[dtype_name]
    os.makedirs(CORPUS, exist_ok=True)
    for index, model in enumerate(define_models()):
        rng = np.random.default_rng(1000 + index)
        args = model.make_args(rng, dtype)
        options = model.jit_options() if model.jit_options else {}
        stem = os.path.join(CORPUS, f"{model.name}.{dtype_name}")
        with open(stem + ".mlir", "w") as f:
            f.write(jax.jit(model.loss, **options).lower(*args).as_text())
        differentiate = jax.jacfwd if model.grad_mode == "jacfwd" else jax.grad
        grad_fn = differentiate(model.loss, argnums=model.wrt)
        if model.export_grad:
            path = os.path.join(CORPUS, f"{model.name}_grad.{dtype_name}.mlir")
            with open(path, "w") as f:
                f.write(jax.jit(grad_fn).lower(*args).as_text())
        out = np.asarray(jax.jit(model.loss)(*args))
        grads = jax.jit(grad_fn)(*args)
        arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(args)}
        arrays["out0"] = out
        arrays["wrt"] = np.array(model.wrt, np.int64)
        arrays["grad_mode"] = np.array(model.grad_mode)
        arrays.update({f"grad{i}": np.asarray(g) for i, g in enumerate(grads)})
        np.savez(stem + ".npz", **arrays)
        print(f"{model.name}.{dtype_name}: loss {float(out):.6g}")


def main() -> None:
    if len(sys.argv) > 1:
        generate(sys.argv[1])
        return
    # x64 is a process-wide switch: one process per dtype
    for dtype_name in ("f32", "f64"):
        subprocess.run([sys.executable, __file__, dtype_name], check=True)
    import jax
    import jaxlib

    print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}")


if __name__ == "__main__":
    main()
