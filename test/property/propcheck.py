"""Running random programs (``propgen``) on the interpreter and compiled, and comparing.

Batches: the programs of one hypothesis example (``@p0`` ... ``@pN``, symbols
disjoint) go into one module that is parsed once and compiled once; a batch
that fails to compile is compiled program by program, so the failure names
its program. Nothing is cached between examples.

``Stats`` counts what was checked (programs, results, elements compared
bit-exactly / within a tolerance / unbounded, programs with loops, op
counts); the tests print it and, with ``IRT_PROPERTY_STATS=path``, append it
as JSON to ``path``.
"""

from __future__ import annotations

import json
import os
from collections import Counter

import numpy as np

import irtoolkit as irt

#: the primal of the jvp vs the function (both interpreted: the same operations)
AD_RTOL = 1e-12
#: compiled vs interpreted derivatives: the compiled code sums in other orders (blocked
#: reductions, matmul) and its transcendental functions (so the partials) differ by ulps;
#: relative to the magnitude of the derivative paths (propgen.Program.path_magnitude),
#: which with cancellation is far larger than the derivative: about 10x the largest
#: difference seen over 2,000 programs
AD_JIT_RTOL = 1e-11
#: forward vs reverse mode (both interpreted) compute the same sums over the derivative
#: paths from the same partials in other orders: each is within L * eps * P of the exact
#: sum, P = the paths' magnitude, L = the longest chain of roundings (Program.path_magnitude);
#: the margin covers the partials propgen evaluates in float64 against the computed ones
EPS = float(np.finfo(np.float64).eps)
PATH_MARGIN = 1.01
#: tolerance of central differences (h = FD_H * (1 + |x|)) against the derivative
FD_RTOL = 1e-6
FD_H = 1e-6


#: every Stats made, by title, for the terminal summary (conftest.py)
REGISTRY: dict = {}


class Stats:
    def __init__(self, title):
        self.title = title
        self.c = Counter()
        self.ops = Counter()
        self.worst = 0.0  # largest |compiled - interpreted| / bound seen where the bound is > 0
        self.ratios: dict = {}  # per gradient check: largest |difference| / tolerance
        self.worst_program: dict = {}  # per gradient check: the program of the largest ratio
        REGISTRY[title] = self

    def add_program(self, p):
        self.c["programs"] += 1
        for k in ("loop.for", "loop.if", "loop.while"):
            if p.tags[k]:
                self.c[f"programs with {k}"] += 1
        self.ops.update(p.tags)

    def require_programs(self, n: int) -> None:
        """Skip when the property did not run (deselected); else at least ``n`` programs ran."""
        if not self.c["programs"]:
            import pytest

            pytest.skip("the property did not run")
        assert self.c["programs"] >= n, self.dump()

    def dump(self, title=None):
        title = title or self.title
        lines = [f"{title}: " + ", ".join(f"{k} {v}" for k, v in sorted(self.c.items()))
                 + f"; largest difference / bound {self.worst:.3g}"]
        if self.ratios:
            lines.append("  largest difference / tolerance: "
                         + ", ".join(f"{k} {v:.3g}" for k, v in sorted(self.ratios.items())))
        lines.append("  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(self.ops.items(), key=lambda kv: -kv[1])))
        text = "\n".join(lines)
        path = os.environ.get("IRT_PROPERTY_STATS")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps({"title": title, "counts": dict(self.c), "ops": dict(self.ops),
                                    "worst_ratio": self.worst, "ratios": self.ratios}) + "\n")
        return text


class Mismatch(AssertionError):
    pass


def _describe(p, args, extra=""):
    shown = "\n".join(f"  arg{i} = {np.asarray(a).tolist()!r} ({np.asarray(a).dtype})" for i, a in enumerate(args))
    return f"{extra}\nprogram:\n{p.text}inputs:\n{shown}"


def compare(got, want, err, what, stats=None):
    """``|got - want| <= err`` elementwise (NaN == NaN; inf only equal to itself; err inf: not compared)."""
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype != w.dtype or g.shape != w.shape:
        raise Mismatch(f"{what}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}")
    e = np.broadcast_to(np.asarray(err, dtype=np.float64), w.shape)
    if w.dtype.kind != "f":
        ok = (g == w) | np.isinf(e)
        if not np.all(ok):
            raise Mismatch(f"{what}: {g!r} != {w!r}")
        if stats is not None:
            stats.c["elements exact"] += int(np.sum(~np.isinf(e)))
        return
    gn, wn = np.isnan(g), np.isnan(w)
    with np.errstate(all="ignore"):
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        same_inf = np.isinf(g) & np.isinf(w) & (g == w)
    ok = (gn & wn) | same_inf | (diff <= e) | np.isinf(e)
    ok &= ~(gn ^ wn) | np.isinf(e)
    if not np.all(ok):
        bad = np.argwhere(~np.asarray(ok))[:5].tolist()
        raise Mismatch(f"{what}: differ at {bad} by {diff[~ok].max() if np.any(~ok & ~(gn|wn)) else 'NaN'} "
                       f"(allowed {e[~ok].min():.3g}):\n got {g!r}\nwant {w!r}\n err {np.asarray(err)!r}")
    if stats is not None:
        inexact = (e > 0) & np.isfinite(e) & ~(gn | wn)
        if np.any(inexact):
            ratio = float(np.max(diff[inexact] / e[inexact]))
            stats.worst = max(stats.worst, ratio)
            stats.c["elements within bound, differing"] += int(np.sum(inexact & (diff > 0)))
        stats.c["elements exact"] += int(np.sum(e == 0))
        stats.c["elements within bound"] += int(np.sum((e > 0) & np.isfinite(e)))
        stats.c["elements unbounded"] += int(np.sum(np.isinf(e)))


def batch_text(programs):
    return "\n".join(p.text for p in programs)


def compile_batch(programs, pipeline=None):
    """One executable for all programs; if that fails, the failing program's own error."""
    text = batch_text(programs)
    try:
        return irt.compile(irt.parse(text, "batch.mlir"), pipeline)
    except Exception as batch_error:  # noqa: BLE001 -- find the program that causes it
        for p in programs:
            try:
                irt.compile(irt.parse(p.text, f"{p.name}.mlir"), pipeline)
            except Exception as e:  # noqa: BLE001
                raise Mismatch(_describe(p, [], f"@{p.name} does not compile: {type(e).__name__}: {e}")) from e
        raise Mismatch(f"the batch does not compile, but each program does: {batch_error}\n{text}") from batch_error


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def check_differential(programs, seeds, stats):
    """Interpreter vs compiled vs the model's bounds, for every program of the batch."""
    module = irt.parse(batch_text(programs), "batch.mlir")
    exe = compile_batch(programs)
    for p, seed in zip(programs, seeds):
        args = p.inputs(seed)
        try:
            want = _as_tuple(irt.interpret(module, p.name, *args))
        except Exception as e:  # noqa: BLE001
            raise Mismatch(_describe(p, args, f"@{p.name}: the interpreter fails: {type(e).__name__}: {e}")) from e
        try:
            got = _as_tuple(exe[p.name](*args))
        except Exception as e:  # noqa: BLE001
            raise Mismatch(_describe(p, args, f"@{p.name}: the compiled code fails: {type(e).__name__}: {e}")) from e
        model, mstats = p.evaluate(args)
        assert len(got) == len(want) == len(model), (len(got), len(want), len(model))
        for i, (g, w, (mv, me)) in enumerate(zip(got, want, model)):
            try:
                if np.ndim(w) == 0 and not isinstance(w, np.ndarray):
                    assert not isinstance(g, np.ndarray), f"result {i}: compiled gives an array for a scalar"
                compare(w, mv.astype(np.asarray(w).dtype, copy=False) if mv.dtype != np.asarray(w).dtype else mv,
                        me, f"@{p.name} result {i}: interpreter vs model")
                compare(g, w, me, f"@{p.name} result {i}: compiled vs interpreter", stats)
            except Mismatch as m:
                raise Mismatch(_describe(p, args, str(m))) from None
        stats.add_program(p)
        stats.c["results"] += len(got)
        stats.c["uncertain if"] += mstats["uncertain_if"]
        stats.c["uncertain while"] += mstats["uncertain_while"]


# --------------------------------------------------------------------------- gradients


def derivative_text(p):
    """``@<p>_g`` (reverse mode: autodiff.grad) and ``@<p>_j`` (forward mode: autodiff.jvp) of ``@<p>``."""
    types = [a.type for a in p.params]
    sig = ", ".join(types)
    names = ", ".join(f"%x{i}" for i in range(len(types)))
    args = ", ".join(f"%x{i}: {t}" for i, t in enumerate(types))
    targs = ", ".join(f"%t{i}: {t}" for i, t in enumerate(types))
    tnames = ", ".join(f"%t{i}" for i in range(len(types)))
    gres = ", ".join(f"%g{i}" for i in range(len(types)))
    return (p.text + f"""
func.func @{p.name}_g({args}) -> ({sig}) {{
  {gres} = autodiff.grad @{p.name}({names}) : ({sig}) -> ({sig})
  func.return {gres} : {sig}
}}
func.func @{p.name}_j({args}, {targs}) -> (f64, f64) {{
  %y, %dy = autodiff.jvp @{p.name}({names}) tangents({tnames}) : ({sig}, {sig}) -> (f64, f64)
  func.return %y, %dy : f64, f64
}}
""")


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def check_gradients(programs, seeds, stats, directions=2):
    """Reverse mode, forward mode and central differences agree; compiled and interpreted too."""
    text = "\n".join(derivative_text(p) for p in programs)
    try:
        exe = irt.compile(irt.parse(text, "batch.mlir"))
    except Exception as batch_error:  # noqa: BLE001
        for p in programs:
            try:
                irt.compile(irt.parse(derivative_text(p), f"{p.name}.mlir"))
            except Exception as e:  # noqa: BLE001
                raise Mismatch(_describe(p, [], f"@{p.name}: derivatives do not compile: {type(e).__name__}: {e}")) from e
        raise Mismatch(f"the batch does not compile, but each program does: {batch_error}") from batch_error
    interp_module = irt.parse(text, "batch.mlir")
    try:
        irt.run_pipeline(interp_module, "ad")
    except Exception as batch_error:  # noqa: BLE001
        for p in programs:
            try:
                irt.run_pipeline(irt.parse(derivative_text(p), f"{p.name}.mlir"), "ad")
            except Exception as e:  # noqa: BLE001
                raise Mismatch(_describe(p, [], f"@{p.name}: the ad pass fails: {type(e).__name__}: {e}")) from e
        raise Mismatch(f"the ad pass fails on the batch, but not on each program: {batch_error}") from batch_error
    for p, seed in zip(programs, seeds):
        args = p.inputs(seed)
        try:
            _check_one_gradient(p, seed, args, exe, interp_module, stats, directions)
        except Mismatch as m:
            raise Mismatch(_describe(p, args, str(m))) from None
        except Exception as e:  # noqa: BLE001
            raise Mismatch(_describe(p, args, f"@{p.name}: {type(e).__name__}: {e}")) from e


def _track(stats, key, got, want, tol, program=None):
    with np.errstate(all="ignore"):
        d = np.abs(_f64(got) - _f64(want)) / np.maximum(_f64(tol), 1e-300)
    if np.size(d) and np.all(np.isfinite(d)):
        r = float(np.max(d))
        if r > stats.ratios.get(key, 0.0):
            stats.ratios[key] = r
            stats.worst_program[key] = program


def forward_reverse_tolerance(p, args, v, terms):
    """(P, the bound on |jvp(v) - grad . v|): each mode within ``L eps P`` of the exact sum
    of the paths (``Program.path_magnitude``), the dot product within ``n eps`` of its
    ``terms`` (sum |grad_i v_i|)."""
    paths, length = p.path_magnitude(args, v)
    n = sum(np.size(a) for a in args)
    return paths, 2 * length * EPS * PATH_MARGIN * paths + n * EPS * terms + 1e-300


def _check_one_gradient(p, seed, args, exe, interp_module, stats, directions):
    name = p.name
    f_c = float(exe[name](*args))
    f_i = float(irt.interpret(interp_module, name, *args))
    g_c = _as_tuple(exe[name + "_g"](*args))
    g_i = _as_tuple(irt.interpret(interp_module, name + "_g", *args))
    model, mstats = p.evaluate(args)
    (mv, me), = model
    # the primal: compiled vs interpreted within the model's bound
    compare(np.float64(f_c), np.float64(f_i), me, f"@{name}: compiled vs interpreted loss")
    # every component's paths are among those of the all-ones direction
    ones_paths, _ = p.path_magnitude(args, [np.ones(np.shape(a)) for a in args])
    scale = max(1.0, abs(f_i), ones_paths, *(float(np.max(np.abs(_f64(g)))) if np.size(g) else 0.0 for g in g_i))
    for k, (gc, gi) in enumerate(zip(g_c, g_i)):
        compare(_f64(gc), _f64(gi), AD_JIT_RTOL * scale, f"@{name}_g result {k}: compiled vs interpreted gradient")
        _track(stats, "grad compiled vs interpreted", gc, gi, AD_JIT_RTOL * scale, p)
    rng = np.random.default_rng(seed + 7919)
    margin = min(mstats.get("if_margins", []) or [np.inf])
    for d in range(directions):
        v = [rng.standard_normal(np.shape(a)) for a in args]
        v = [np.asarray(t) if np.ndim(a) else np.float64(t) for t, a in zip(v, args)]
        terms = sum(float(np.sum(np.abs(_f64(g) * t))) for g, t in zip(g_i, v))
        dot = sum(float(np.sum(_f64(g) * t)) for g, t in zip(g_i, v))
        paths, tol_ad = forward_reverse_tolerance(p, args, v, terms)
        y_c, dy_c = exe[name + "_j"](*args, *v)
        y_i, dy_i = irt.interpret(interp_module, name + "_j", *args, *v)
        compare(np.float64(y_i), np.float64(f_i), AD_RTOL * max(1.0, abs(f_i)), f"@{name}_j: primal of jvp vs function")
        compare(np.float64(y_c), np.float64(f_c), AD_JIT_RTOL * max(1.0, abs(f_i)), f"@{name}_j compiled: primal of jvp vs function")
        compare(np.float64(dy_i), np.float64(dot), tol_ad, f"@{name}: forward (jvp) vs reverse (grad . v), interpreted")
        tol_jit = AD_JIT_RTOL * max(paths, terms, 1e-300)
        compare(np.float64(dy_c), np.float64(dy_i), tol_jit, f"@{name}_j: compiled vs interpreted jvp")
        _track(stats, "forward vs reverse", dy_i, dot, tol_ad, (p, seed, d))
        _track(stats, "jvp compiled vs interpreted", dy_c, dy_i, tol_jit, (p, seed, d))
        if margin < 1e-3:
            stats.c["fd skipped (if condition near its threshold)"] += 1
            continue
        h = FD_H
        xp = [_f64(a) + h * t for a, t in zip(args, v)]
        xm = [_f64(a) - h * t for a, t in zip(args, v)]
        xp = [np.asarray(x) if np.ndim(a) else np.float64(x) for x, a in zip(xp, args)]
        xm = [np.asarray(x) if np.ndim(a) else np.float64(x) for x, a in zip(xm, args)]
        fd = (float(exe[name](*xp)) - float(exe[name](*xm))) / (2 * h)
        tol_fd = FD_RTOL * max(terms, 1e-3) + 1e-7 * max(1.0, abs(f_i))
        compare(np.float64(fd), np.float64(dot), tol_fd, f"@{name}: central differences vs grad . v")
        _track(stats, "finite differences vs reverse", fd, dot, tol_fd, (p, seed, d))
        stats.c["directions checked"] += 1
    stats.add_program(p)
