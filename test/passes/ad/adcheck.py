"""Helpers for the `ad` numerical tests: derivatives vs central finite differences.

``add_grad(src, f, types, wrt)`` appends a function ``@__d`` calling
``autodiff.grad @f`` (or ``autodiff.jvp``); ``check_grad`` / ``check_jvp``
run it and compare with central differences of ``@f``.

Backends: every check takes ``backend="interp"`` (the reference interpreter)
or ``backend="jit"`` (``irtoolkit.compile``: ``ad,lower-to-llvm`` + LLVM JIT).
With ``jit`` the compiled derivative is also compared with the interpreted
one (``numcheck.assert_ulps``, a few ulps of the values' magnitude), and the
finite differences use the compiled primal. Compiled modules are cached by
text; ``register(...)`` packs the derivative programs of many cases into one
module (symbols renamed apart) that is compiled once, on first use; if the
pack does not compile, each case is compiled on its own, so a failure stays
with its case.
"""

from __future__ import annotations

import os
import re
import sys

import numpy as np

import irtoolkit as irt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lowering_e2e"))
from numcheck import assert_ulps, magnitude  # noqa: E402

BACKENDS = ("interp", "jit")

#: ulps (of the magnitude of the inputs and results) allowed between the
#: compiled and the interpreted derivative
JIT_ULPS = 64


# --------------------------------------------------------------------------- compiled modules

_PACK_OF: dict[str, tuple[int, int]] = {}  # derivative text -> (pack id, index in pack)
_PACKS: list[list[str]] = []
_PACK_EXE: dict[int, object] = {}  # pack id -> executable, or None when it failed to compile
_SINGLE_EXE: dict[str, object] = {}

_SYM = re.compile(r"@([A-Za-z_][\w$.]*)")


def _rename(text: str, suffix: str) -> str:
    return _SYM.sub(lambda m: "@" + m.group(1) + suffix, text)


def register(texts) -> None:
    """Compile ``texts`` (derivative programs, e.g. from ``grad_texts``) together on first use."""
    texts = list(dict.fromkeys(t for t in texts if t not in _PACK_OF))
    if not texts:
        return
    pid = len(_PACKS)
    _PACKS.append(texts)
    for k, t in enumerate(texts):
        _PACK_OF[t] = (pid, k)


def grad_texts(src, callee, types, out_types=None, wrt=None):
    """The programs ``check_grad`` (and, given ``out_types``, ``check_jvp``) will run."""
    wrt = _default_wrt(types) if wrt is None else wrt
    texts = [add_grad(src, callee, types, wrt)]
    if out_types is not None:
        texts.append(add_grad(src, callee, types, wrt, "jvp", out_types))
    return texts


def compiled(text: str):
    """(executable, symbol suffix) running the program ``text``."""
    if text in _PACK_OF:
        pid, k = _PACK_OF[text]
        if pid not in _PACK_EXE:
            packed = "\n".join(_rename(t, f"__p{pid}k{i}") for i, t in enumerate(_PACKS[pid]))
            try:
                _PACK_EXE[pid] = irt.compile(irt.parse(packed))
            except Exception:  # noqa: BLE001 -- the failing case reports it when compiled alone
                _PACK_EXE[pid] = None
        if _PACK_EXE[pid] is not None:
            return _PACK_EXE[pid], f"__p{pid}k{k}"
    if text not in _SINGLE_EXE:
        _SINGLE_EXE[text] = irt.compile(irt.parse(text))
    return _SINGLE_EXE[text], ""


class Runner:
    """Calls the functions of program ``text`` (parsed as ``module``) on a backend."""

    def __init__(self, text: str, module, backend: str):
        assert backend in BACKENDS, backend
        self.module, self.backend = module, backend
        if backend == "jit":
            self.exe, self.suffix = compiled(text)
        else:  # what irt.interpret does on every call, once
            self.lowered = module.clone()
            irt.run_pipeline(self.lowered, "ad")

    def __call__(self, name, *args):
        if self.backend == "interp":
            out = irt.interpret(self.lowered, name, *args)
        else:
            out = self.exe[name + self.suffix](*args)
        return out if isinstance(out, tuple) else (out,)


def np_type(t: str) -> str:
    return t


def call(module, name, *args):
    out = irt.interpret(module, name, *args)
    return out if isinstance(out, tuple) else (out,)


def as_array(x):
    return np.array(x, dtype=np.float64)


def _like(value, orig):
    """``value`` (float64) in the dtype and kind (scalar or array) of ``orig``."""
    dt = np.asarray(orig).dtype if np.asarray(orig).dtype.kind == "f" else np.float64
    if np.ndim(orig):
        return np.asarray(value, dtype=dt)
    return dt.type(value) if hasattr(dt, "type") else np.float64(value)


def fd_grad(module, name, args, wrt, out_index=0, eps=1e-6, run=None):
    """Central differences of result ``out_index`` of ``@name`` w.r.t. args[wrt]."""
    run = run or (lambda n, *a: call(module, n, *a))
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
            ap[i] = _like(plus, args[i])
            am[i] = _like(minus, args[i])
            fp = float(np.sum(run(name, *ap)[out_index]))
            fm = float(np.sum(run(name, *am)[out_index]))
            g[idx] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def fd_jvp(module, name, args, wrt, tangents, eps=1e-6, run=None):
    run = run or (lambda n, *a: call(module, n, *a))
    ap, am = list(args), list(args)
    for i, t in zip(wrt, tangents):
        a = as_array(args[i])
        ap[i] = _like(a + eps * t, args[i])
        am[i] = _like(a - eps * t, args[i])
    outp = run(name, *ap)
    outm = run(name, *am)
    return [(as_array(p) - as_array(m)) / (2 * eps) for p, m in zip(outp, outm)]


def assert_close(got, want, rtol=1e-6, atol=1e-8):
    got, want = as_array(got), as_array(want)
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale * 100)


def assert_jit_matches_interp(got, module, name, args, what=""):
    """The compiled results ``got`` vs the interpreter's, within JIT_ULPS of their magnitude."""
    want = call(module, name, *args)
    assert len(got) == len(want), f"{name}: {len(got)} results vs {len(want)}"
    scale = magnitude(*want, *args)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_ulps(g, w, JIT_ULPS, scale=scale, what=f"{what}@{name} result {i} (jit vs interp)")


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


def _default_wrt(types):
    return [i for i, t in enumerate(types) if "f64" in t or "f32" in t]


def check_grad(src, callee, types, args, wrt=None, rtol=1e-6, backend="interp"):
    wrt = _default_wrt(types) if wrt is None else wrt
    text = add_grad(src, callee, types, wrt)
    m = irt.parse(text)
    run = Runner(text, m, backend)
    got = run("__d", *args)
    if backend == "jit":
        assert_jit_matches_interp(got, m, "__d", args)
    want = fd_grad(m, callee, args, wrt, run=run)
    for g, w in zip(got, want):
        assert_close(g, w, rtol=rtol)
    return m


def check_jvp(src, callee, types, out_types, args, wrt=None, seed=0, rtol=1e-6, backend="interp"):
    wrt = _default_wrt(types) if wrt is None else wrt
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(np.shape(args[i])) for i in wrt]
    tangents = [_like(t, args[i]) for t, i in zip(tangents, wrt)]
    text = add_grad(src, callee, types, wrt, "jvp", out_types)
    m = irt.parse(text)
    run = Runner(text, m, backend)
    got = run("__d", *args, *tangents)
    if backend == "jit":
        assert_jit_matches_interp(got, m, "__d", [*args, *tangents])
    n = len(out_types)
    want = fd_jvp(m, callee, args, wrt, tangents, run=run)
    prim = run(callee, *args)
    for g, w in zip(got[:n], prim):
        assert_close(g, w)
    for g, w in zip(got[n:], want):
        assert_close(g, w, rtol=rtol)
    return m


def runner(src: str, backend: str) -> Runner:
    """A Runner for the program ``src`` (parsed once; compiled once per text for ``jit``)."""
    return Runner(src, irt.parse(src), backend)


def run1(src: str, backend: str, name: str, *args):
    """``@name(*args)`` of ``src`` on ``backend``; with ``jit`` also checked against the interpreter."""
    r = runner(src, backend)
    out = r(name, *args)
    if backend == "jit":
        assert_jit_matches_interp(out, r.module, name, args)
    return out if len(out) != 1 else out[0]
