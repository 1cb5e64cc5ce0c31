"""Helpers for the `ad` numerical tests: derivatives vs central finite differences.

``grad_module(src, f, types, wrt)`` appends a function ``@__grad`` calling
``autodiff.grad @f``; ``fd_grad`` differentiates ``@f`` numerically on the
interpreter.
"""

from __future__ import annotations

import numpy as np

import irtoolkit as irt


def np_type(t: str) -> str:
    return t


def call(module, name, *args):
    out = irt.interpret(module, name, *args)
    return out if isinstance(out, tuple) else (out,)


def as_array(x):
    return np.array(x, dtype=np.float64)


def fd_grad(module, name, args, wrt, out_index=0, eps=1e-6):
    """Central differences of result ``out_index`` of ``@name`` w.r.t. args[wrt]."""
    grads = []
    for i in wrt:
        a = as_array(args[i])
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = a.copy(), a.copy()
            plus[idx] += eps
            minus[idx] -= eps
            ap = list(args)
            am = list(args)
            ap[i] = plus if a.ndim else np.float64(plus)
            am[i] = minus if a.ndim else np.float64(minus)
            fp = float(np.sum(call(module, name, *ap)[out_index]))
            fm = float(np.sum(call(module, name, *am)[out_index]))
            g[idx] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def fd_jvp(module, name, args, wrt, tangents, eps=1e-6):
    ap, am = list(args), list(args)
    for i, t in zip(wrt, tangents):
        a = as_array(args[i])
        ap[i] = a + eps * t if a.ndim else np.float64(a + eps * t)
        am[i] = a - eps * t if a.ndim else np.float64(a - eps * t)
    outp = call(module, name, *ap)
    outm = call(module, name, *am)
    return [(as_array(p) - as_array(m)) / (2 * eps) for p, m in zip(outp, outm)]


def assert_close(got, want, rtol=1e-6, atol=1e-8):
    got, want = as_array(got), as_array(want)
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale * 100)


def sig(types):
    return ", ".join(types)


def add_grad(src: str, callee: str, types: list[str], wrt: list[int], mode="grad", out_types=None) -> str:
    """Append ``@__d`` that applies autodiff ``mode`` to ``@callee`` (args of ``types``)."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%a{i}" for i in range(len(types)))
    wt = [types[i] for i in wrt]
    wrt_s = "[" + ", ".join(map(str, wrt)) + "]"
    if mode == "grad":
        res = ", ".join(f"%r{i}" for i in range(len(wt)))
        return src + f"""
func.func @__d({args}) -> ({sig(wt)}) {{
  {res} = autodiff.grad @{callee}({names}) wrt {wrt_s} : ({sig(types)}) -> ({sig(wt)})
  return {res} : {sig(wt)}
}}
"""
    if mode == "jvp":
        outs = out_types
        targs = ", ".join(f"%t{i}: {t}" for i, t in enumerate(wt))
        tnames = ", ".join(f"%t{i}" for i in range(len(wt)))
        allres = outs + outs
        res = ", ".join(f"%r{i}" for i in range(len(allres)))
        return src + f"""
func.func @__d({args}, {targs}) -> ({sig(allres)}) {{
  {res} = autodiff.jvp @{callee}({names}) tangents({tnames}) wrt {wrt_s} : ({sig(types + wt)}) -> ({sig(allres)})
  return {res} : {sig(allres)}
}}
"""
    raise ValueError(mode)


def check_grad(src, callee, types, args, wrt=None, rtol=1e-6):
    if wrt is None:
        wrt = [i for i, t in enumerate(types) if "f64" in t or "f32" in t]
    m = irt.parse(add_grad(src, callee, types, wrt))
    got = call(m, "__d", *args)
    want = fd_grad(m, callee, args, wrt)
    for g, w in zip(got, want):
        assert_close(g, w, rtol=rtol)
    return m


def check_jvp(src, callee, types, out_types, args, wrt=None, seed=0, rtol=1e-6):
    if wrt is None:
        wrt = [i for i, t in enumerate(types) if "f64" in t or "f32" in t]
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(np.shape(args[i])) for i in wrt]
    tangents = [t if np.ndim(t) else np.float64(t) for t in tangents]
    m = irt.parse(add_grad(src, callee, types, wrt, "jvp", out_types))
    got = call(m, "__d", *args, *tangents)
    n = len(out_types)
    want = fd_jvp(m, callee, args, wrt, tangents)
    prim = call(m, callee, *args)
    for g, w in zip(got[:n], prim):
        assert_close(g, w)
    for g, w in zip(got[n:], want):
        assert_close(g, w, rtol=rtol)
    return m
