"""Random well-typed programs over ``tensor``, ``loop``, ``arith`` and ``math``.

A program is one ``func.func`` built from random statements (elementwise
unary/binary ops, cmp+select, broadcast, reduce_sum/reduce_max, matmul,
transpose, extract_slice/insert_slice, convert, splat and dense constants,
scalar ``arith``/``math`` chains, ``loop.for`` with tensor and scalar
iter_args, ``loop.if`` on a computed condition, ``loop.while`` with a bounded
trip count, and the SPEC 3.1 ops: ``STRUCTURAL``), printed as IR text (the
tests parse it with irtoolkit). Every op the ``tensor`` dialect registers is
generated or listed in ``NOT_GENERATED`` with the reason (a test checks it):
elementwise ops come from their declarations, the others from a builder each
(``Gen.structural``) that draws shapes and attributes satisfying the op's
verifier (small shapes; gather/scatter coordinates in range, unique for
scatter; windows holding an element of the operand) and keeps a model.
Gradient programs avoid the non-differentiable points of SPEC's conventions:
windowed max and its routing ops read a tie-broken operand (distinct offsets,
so one maximizer per window), clamp's bounds are constants with lo < hi, and
argmax/argmin, reduce_min and logical ops (which feed selects) appear in
differential programs only.

Every random choice goes through a ``Chooser``: ``HypothesisChooser`` (the
property tests; hypothesis shrinks the choices) or ``RandomChooser`` (a seeded
``random.Random``, for scripts).

Alongside the text, the generator keeps a *model* of the program: each
statement can be evaluated with numpy (``Program.evaluate``), giving for
every value both its value and a sound bound ``E`` (elementwise) on
``|compiled - interpreted|``, propagated through the program:

* ops that IEEE-754 rounds correctly (+ - * / sqrt, neg, abs, max, min,
  select, slices, copies, converts) on operands that agree exactly give
  results that agree exactly (``E == 0``: bit-exact);
* with perturbed operands, ``E`` is the largest change of the exact result
  over the operands' error boxes (first order for + - * /, corner evaluation
  for monotone functions), plus one ulp for the two roundings;
* transcendental functions (exp log tanh sin cos logistic pow) add
  ``TRANS_ULPS`` ulps (both implementations' errors) even on exact operands;
* ``reduce_sum`` over ``n >= 3`` terms and ``matmul`` over ``K >= 2`` add
  ``(n - 1) * eps * sum |terms|`` (``K * eps * sum |a||b|``): any summation
  order is within ``(n - 1) * u * sum |terms|`` of the exact sum (Higham
  2.2), so two orders are within twice that;
* a compare whose operands are closer than their error bounds is
  *uncertain*; ``select`` on it allows either side, ``loop.if`` on it allows
  either branch's results (both are evaluated), ``loop.while`` on it makes
  the results unbounded (not compared; counted).

Static intervals (``lo``, ``hi``) kept per value at generation time keep the
programs inside the domains of their ops (log of positive, sqrt of
non-negative, pow of positive base with a bounded exponent, division by
values bounded away from 0) and magnitudes moderate; loop-carried values are
squashed (``tanh``) back into the interval declared for them.

``mode="grad"`` generates differentiable f64 programs (smooth ops only, no
compare-dependent ``select``; ``loop.if`` conditions are recorded so that the
tests can require a margin) ending in a scalar ``f64`` loss.

For derivatives, ``Program.path_magnitude(args, v)`` runs the model with the
error channel carrying instead, for every value, the sum over the derivative
paths from the inputs of ``|product of the partials| * |v|`` (the forward
mode of ``|J|`` applied to ``|v|``), and the length ``L`` of the longest chain
of roundings a derivative code can apply along a path (each op counts
``1 + `` the size of its largest operand or result: a reduction, a matmul or
the transpose of a broadcast sums that many terms). Forward and reverse mode
compute the same paths from the same partials in other orders, so they differ
by at most ``L * eps`` of that magnitude each: with cancellation (paths of
opposite signs) the derivative can be far smaller than the magnitude that
bounds its rounding error (``propcheck``).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

NP = {"f32": np.float32, "f64": np.float64}
#: both implementations' errors for one transcendental function, in ulps of the result
TRANS_ULPS = 8
#: magnitudes the generator keeps values within
CAP = 1.0e4



def _registry():
    """The `tensor` dialect's float elementwise ops, from their declarations: an op
    added there is generated without editing this file (ops this generator has no
    hand-made model for get the generic one: inputs mapped into the declared domain,
    the declared numpy meaning, a transcendental's error bound)."""
    from irtoolkit.dialects import tensor
    from irtoolkit.dialects.elementwise import ElementKind, meaning_of

    ops = {c.name.split(".", 1)[1]: c for c in (*tensor.UNARY_OPS, *tensor.BINARY_OPS)
           if ElementKind.FLOAT in meaning_of(c).element_kinds()}
    unary = tuple(n for n, c in ops.items() if c in tensor.UNARY_OPS)
    binary = tuple(n for n, c in ops.items() if c in tensor.BINARY_OPS)
    differentiable = {n for n, c in ops.items() if meaning_of(c).partials_for() is not None}
    return ops, unary, binary, differentiable


#: ops with a kink or a jump in their declared domain: not in gradient programs
NOT_SMOOTH = {"abs", "max", "min", "rem"}
DECLARED, UNARY, BINARY, _DIFFERENTIABLE = _registry()
SMOOTH_UNARY = tuple(n for n in UNARY if n in _DIFFERENTIABLE and n not in NOT_SMOOTH)
SMOOTH_BINARY = tuple(n for n in BINARY if n in _DIFFERENTIABLE and n not in NOT_SMOOTH)
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}
CMPF = {"olt": np.less, "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal}
NICE = (0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 0.1, 0.7, 1.25)
#: statements of the SPEC 3.1 ops (``Gen.structural``), in every program / differential only
STRUCTURAL = ("dot", "conv", "reduce_window_sum", "reduce_window_max", "gather", "scatter_add", "scatter",
              "clamp", "iota", "reverse", "concat", "pad", "insert", "reduce_prod", "window_max_select",
              "window_max_scatter", "generate")
STRUCTURAL_DIFF = ("argmax", "argmin", "reduce_min")
#: the `tensor` ops the generator does not make, and why (test_property_checker checks that
#: every registered op is generated or listed here)
NOT_GENERATED = {
    "tensor.empty": "its elements are undefined until written: no program may read them",
    "tensor.dim": "the generator's shapes are static: a dim is a constant (folded)",
    "tensor.rank": "the generator's shapes are static: a rank is a constant (folded)",
    "tensor.cast": "the generator's shapes are static: a cast between static types is the identity",
}
#: bugs found by these tests and not fixed yet (regression tests: test_property_regressions.py,
#: xfail): the generator avoids the constructs that trigger them, so the properties keep
#: checking everything else. Remove a name once its bug is fixed.
KNOWN_BUGS = {
}


# --------------------------------------------------------------------------- choosers


class RandomChooser:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, a, b):
        return self.rng.randint(a, b)

    def coin(self, p):
        return self.rng.random() < p


class HypothesisChooser:
    """Choices drawn from hypothesis; every choice shrinks towards 0 / False."""

    def __init__(self, draw):
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def int(self, a, b):
        return self.draw(self.st.integers(a, b))

    def coin(self, p):
        return self.draw(self.st.integers(0, 99)) >= round(100 * (1 - p))


class RecordingChooser:
    """Wraps a chooser and records every choice as (value, lo, hi), for ``ReplayChooser``."""

    def __init__(self, inner):
        self.inner, self.log = inner, []

    def int(self, a, b):
        v = self.inner.int(a, b)
        self.log.append((v, a))
        return v

    def coin(self, p):
        v = self.inner.coin(p)
        self.log.append((int(v), 0))
        return v


class ReplayChooser:
    """Replays recorded choices (clamped to the asked range); past the end, the simplest choice."""

    def __init__(self, values):
        self.values, self.k = list(values), 0

    def _next(self, a, b):
        v = self.values[self.k] if self.k < len(self.values) else a
        self.k += 1
        return min(max(v, a), b)

    def int(self, a, b):
        return self._next(a, b)

    def coin(self, p):
        return bool(self._next(0, 1))


def shrink(values, fails, budget=400):
    """Greedy test-case reduction over a choice sequence: delete spans, zero values.
    ``fails(values)`` says whether the program the values generate still shows the failure."""
    values = list(values)
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for size in (16, 8, 4, 2, 1):
            i = 0
            while i < len(values) and tries < budget:
                cand = values[:i] + values[i + size:]
                tries += 1
                if fails(cand):
                    values, changed = cand, True
                else:
                    i += size
        for i in range(len(values)):
            if tries >= budget:
                break
            for smaller in (0, values[i] // 2, values[i] - 1):
                if 0 <= smaller < values[i]:
                    cand = values[:i] + [smaller] + values[i + 1:]
                    tries += 1
                    if fails(cand):
                        values, changed = cand, True
                        break
    return values


def choice(r, seq):
    return seq[r.int(0, len(seq) - 1)]


# --------------------------------------------------------------------------- values


@dataclass
class V:
    """An SSA value: kind 't' float tensor, 's' float scalar, 'i' index, 'b' i1, 'm' i1 tensor,
    'n' i64 tensor."""

    name: str
    kind: str
    shape: tuple = ()
    dt: str = "f64"
    lo: float = 0.0
    hi: float = 0.0

    @property
    def type(self) -> str:
        if self.kind == "i":
            return "index"
        if self.kind == "b":
            return "i1"
        el = {"m": "i1", "n": "i64"}.get(self.kind, self.dt)
        if self.kind == "s":
            return self.dt
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + el + ">"

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))


def tensor_type(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _pad(lo, hi):
    w = 1e-5 * max(abs(lo), abs(hi), 1e-30)
    return lo - w, hi + w


def ulp(mag, dt):
    """One ulp of |mag| in dtype ``dt``, as float64 (inf where |mag| overflows)."""
    m = np.abs(np.asarray(mag, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.spacing(m.astype(NP[dt])).astype(np.float64)
    return np.where(np.isnan(s), np.inf, s)


def _f64(x):
    return np.asarray(x, dtype=np.float64)


# --------------------------------------------------------------------------- statements


@dataclass
class Op:
    """One operation: its text (results '=' ...) and its model ``fn(env) -> [(value, err)]``."""

    results: list
    text: str
    fn: object
    tag: str

    def emit(self, out, ind):
        out.append(" " * ind + self.text)

    def run(self, env, stats):
        for v, (val, err) in zip(self.results, self.fn(env)):
            env[v.name] = (val, err)
        if _PATHS:
            sizes = [np.size(env[n][0]) for n in _NAME.findall(self.text) if n in env]
            stats["path length"] += 1 + max(sizes, default=0)


def _res_names(base, n):
    return [base] if n == 1 else [f"{base}#{k}" for k in range(n)]


def _lhs(base, n):
    return base if n == 1 else f"{base}:{n}"


@dataclass
class For:
    results: list
    base: str
    iv: V
    ub: int
    step: int
    args: list
    inits: list
    body: list
    yields: list
    consts: tuple  # (lb name, ub name, step name)
    attrs: str = ""  # e.g. '{autodiff.checkpoint = "sqrt"}'
    tag: str = "loop.for"

    def emit(self, out, ind):
        p = " " * ind
        it = ", ".join(f"{a.name} = {i.name}" for a, i in zip(self.args, self.inits))
        ts = ", ".join(a.type for a in self.args)
        lb, ub, st = self.consts
        head = f"{_lhs(self.base, len(self.results))} = " if self.results else ""
        out.append(f"{p}{head}loop.for {self.iv.name} = {lb} to {ub} step {st} iter_args({it}) -> ({ts}) {{")
        for s in self.body:
            s.emit(out, ind + 2)
        out.append(f"{p}  loop.yield {', '.join(y.name for y in self.yields)} : {ts}")
        out.append(p + "}" + (" " + self.attrs if self.attrs else ""))

    def run(self, env, stats):
        cur = [env[i.name] for i in self.inits]
        for k in range(0, self.ub, self.step):
            env[self.iv.name] = (np.int64(k), 0.0)
            for a, c in zip(self.args, cur):
                env[a.name] = c
            for s in self.body:
                s.run(env, stats)
            cur = [env[y.name] for y in self.yields]
        for v, c in zip(self.results, cur):
            env[v.name] = c


def _union(take, other, uncertain):
    """Where ``uncertain``: either side may have been taken by the other implementation."""
    (tv, te), (ov, oe) = take, other
    if not np.any(uncertain):
        return tv, te
    with np.errstate(all="ignore"):
        wide = np.maximum(te, oe) + np.abs(_f64(tv) - _f64(ov))
    return tv, np.where(uncertain, wide, te)


@dataclass
class If:
    results: list
    base: str
    cond: V
    then_body: list
    then_yields: list
    else_body: list
    else_yields: list
    tag: str = "loop.if"

    def emit(self, out, ind):
        p = " " * ind
        ts = ", ".join(v.type for v in self.results)
        out.append(f"{p}{_lhs(self.base, len(self.results))} = loop.if {self.cond.name} -> ({ts}) {{")
        for s in self.then_body:
            s.emit(out, ind + 2)
        out.append(f"{p}  loop.yield {', '.join(y.name for y in self.then_yields)} : {ts}")
        out.append(p + "} else {")
        for s in self.else_body:
            s.emit(out, ind + 2)
        out.append(f"{p}  loop.yield {', '.join(y.name for y in self.else_yields)} : {ts}")
        out.append(p + "}")

    def run(self, env, stats):
        c, cerr = env[self.cond.name]
        for s in self.then_body:
            s.run(env, stats)
        tv = [env[y.name] for y in self.then_yields]
        for s in self.else_body:
            s.run(env, stats)
        ev = [env[y.name] for y in self.else_yields]
        uncertain = bool(np.any(_f64(cerr) > 0))
        if uncertain:
            stats["uncertain_if"] += 1
        stats.setdefault("if_margins", []).append(float(env.get(self.cond.name + "!margin", np.inf)))
        for v, t, e in zip(self.results, tv, ev):
            take, other = (t, e) if bool(c) else (e, t)
            env[v.name] = _union(take, other, np.full(np.shape(take[0]), uncertain))


@dataclass
class While:
    results: list  # counter first
    base: str
    inits: list
    bargs: list
    before: list
    cond: V
    aargs: list
    after: list
    yields: list
    limit: int
    tag: str = "loop.while"

    def emit(self, out, ind):
        p = " " * ind
        ts = ", ".join(v.type for v in self.results)
        it = ", ".join(f"{a.name} = {i.name}" for a, i in zip(self.bargs, self.inits))
        out.append(f"{p}{_lhs(self.base, len(self.results))} = loop.while ({it}) : ({ts}) -> ({ts}) {{")
        for s in self.before:
            s.emit(out, ind + 2)
        out.append(f"{p}  loop.condition({self.cond.name}) {', '.join(a.name for a in self.bargs)} : {ts}")
        out.append(p + "} do {")
        out.append(p + "^bb0(" + ", ".join(f"{a.name}: {a.type}" for a in self.aargs) + "):")
        for s in self.after:
            s.emit(out, ind + 2)
        out.append(f"{p}  loop.yield {', '.join(y.name for y in self.yields)} : {ts}")
        out.append(p + "}")

    def run(self, env, stats):
        cur = [env[i.name] for i in self.inits]
        unbounded = False
        for _ in range(self.limit + 2):
            for a, c in zip(self.bargs, cur):
                env[a.name] = c
            for s in self.before:
                s.run(env, stats)
            c, cerr = env[self.cond.name]
            if np.any(_f64(cerr) > 0):
                unbounded = True
            if not bool(c):
                break
            for a, c in zip(self.aargs, cur):
                env[a.name] = c
            for s in self.after:
                s.run(env, stats)
            cur = [env[y.name] for y in self.yields]
        else:
            raise AssertionError("model: while loop did not stop")
        if unbounded:
            stats["uncertain_while"] += 1
        for v, (val, err) in zip(self.results, cur):
            env[v.name] = (val, np.full(np.shape(val), np.inf) if unbounded else err)


# --------------------------------------------------------------------------- model rules

#: set while ``Program.path_magnitude`` runs the model: the error channel carries the
#: magnitude of the derivative paths (first order, |partials|, no rounding)
_PATHS = False
_NAME = re.compile(r"%[\w#]+")


@contextmanager
def _path_magnitudes():
    global _PATHS
    _PATHS = True
    try:
        yield
    finally:
        _PATHS = False


def _unary_partial(name, x, r):
    return {"neg": lambda: -np.ones_like(x), "exp": lambda: r, "log": lambda: 1 / x, "sqrt": lambda: 0.5 / r,
            "tanh": lambda: 1 - r * r, "sin": lambda: np.cos(x), "cos": lambda: -np.sin(x),
            "abs": lambda: np.sign(x), "logistic": lambda: r * (1 - r)}[name]()


def _binary_partials(name, a, b, r):
    if name in ("add", "sub"):
        return np.ones_like(a), np.ones_like(b)
    if name == "mul":
        return b, a
    if name == "div":
        return 1 / b, r / b
    if name in ("max", "min"):
        wins = (a > b) if name == "max" else (a < b)
        ties = a == b
        return np.where(wins | ties, 1.0, 0.0), np.where(~wins | ties, 1.0, 0.0)
    return b * np.power(a, b - 1), r * np.log(a)  # pow, positive base


def _exact_or(d, r, dt):
    """Correctly rounded op: exact when operands agree, else d + one ulp."""
    d = _f64(d)
    with np.errstate(all="ignore"):
        return np.where(d > 0, d + ulp(np.abs(_f64(r)) + d, dt), 0.0)


def _trans(d, r, dt, k=TRANS_ULPS):
    d = _f64(d)
    with np.errstate(all="ignore"):
        return d + k * ulp(np.abs(_f64(r)) + d, dt)


def _logistic(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


UNARY_NP = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
            "sin": np.sin, "cos": np.cos, "abs": np.abs, "logistic": _logistic}
MATH_OF = {"neg": "arith.negf", "exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt",
           "tanh": "math.tanh", "sin": "math.sin", "cos": "math.cos", "abs": "math.absf"}
BINARY_NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
             "max": np.maximum, "min": np.minimum, "pow": np.power}
ARITH_OF = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
            "max": "arith.maximumf", "min": "arith.minimumf", "pow": "math.powf"}


def unary_model(name, x, e, dt):
    with np.errstate(all="ignore"):
        r = np.asarray(UNARY_NP[name](x))
        if _PATHS:
            return r, np.abs(_unary_partial(name, _f64(x), _f64(r))) * _f64(e)
        if name in ("neg", "abs"):
            return r, _f64(e)
        xf = _f64(x)
        if name in ("sin", "cos"):
            return r, _trans(np.minimum(e, 2.0), r, dt)
        f = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
             "logistic": lambda z: 1.0 / (1.0 + np.exp(-z))}[name]
        hi, lo = f(xf + e), f(xf - e)
        d = np.maximum(np.abs(hi - _f64(r)), np.abs(lo - _f64(r)))
        d = np.where(_f64(e) > 0, d * (1 + 1e-9), 0.0)
        if name in ("log", "sqrt"):
            d = np.where((_f64(e) > 0) & ~(xf - e > 0), np.inf, d)
        d = np.where(np.isnan(d), np.inf, d)
        if name == "sqrt":
            return r, _exact_or(d, r, dt)
        return r, _trans(d, r, dt)


def binary_model(name, a, ea, b, eb, dt):
    with np.errstate(all="ignore"):
        r = np.asarray(BINARY_NP[name](a, b))
        af, bf, ea, eb = _f64(a), _f64(b), _f64(ea), _f64(eb)
        if _PATHS:
            pa, pb = _binary_partials(name, af, bf, _f64(r))
            return r, np.abs(pa) * ea + np.abs(pb) * eb
        if name in ("add", "sub"):
            return r, _exact_or(ea + eb, r, dt)
        if name == "mul":
            return r, _exact_or(np.abs(af) * eb + np.abs(bf) * ea + ea * eb, r, dt)
        if name == "div":
            den = np.abs(bf) - eb
            d = np.where(den > 0, (ea + np.abs(_f64(r)) * (1 + 1e-12) * eb) / den, np.inf)
            return r, _exact_or(np.where(ea + eb > 0, d, 0.0), r, dt)
        if name in ("max", "min"):
            return r, np.maximum(ea, eb)
        # pow, positive base: monotone in each argument, extremes at the corners
        rf = _f64(r)
        d = np.zeros_like(rf)
        for sa in (-1, 1):
            for sb in (-1, 1):
                d = np.maximum(d, np.abs(np.power(af + sa * ea, bf + sb * eb) - rf))
        d = np.where(ea + eb > 0, d * (1 + 1e-9), 0.0)
        d = np.where(np.isnan(d) | (af - ea <= 0), np.inf, d)
        return r, _trans(d, r, dt)


def _declared(name):
    from irtoolkit.dialects.elementwise import ElementKind, meaning_of

    return meaning_of(DECLARED[name]), ElementKind.FLOAT


def declared_numpy(name):
    meaning, kind = _declared(name)
    return meaning.numpy_of_kind(kind)


def generic_model(name, args, dt):
    """An op with no hand-made model: its declared numpy meaning, and the largest
    change of the result over the corners of the operands' error boxes (smooth in
    its domain, so monotone over boxes of a few ulps) plus a transcendental's error."""
    fn = declared_numpy(name)
    with np.errstate(all="ignore"):
        xs = [x for x, _ in args]
        r = np.asarray(fn(*xs))
        rf = _f64(r)
        d = np.zeros_like(rf)
        boxes = [(_f64(x), _f64(e)) for x, e in args]
        for signs in np.ndindex(*([2] * len(args))):
            corner = [x + (1 if s else -1) * e for (x, e), s in zip(boxes, signs)]
            d = np.maximum(d, np.abs(np.asarray(fn(*corner), np.float64) - rf))
        width = sum(e for _, e in boxes)
        d = np.where(width > 0, d * (1 + 1e-9), 0.0)
        d = np.where(np.isnan(d), np.inf, d)
        return r, _trans(d, r, dt)


def cmp_model(fn, a, ea, b, eb):
    r = np.asarray(fn(a, b))
    if _PATHS:  # no derivative flows through a compare (and the branches are certain)
        return r, np.zeros(r.shape)
    with np.errstate(all="ignore"):
        s = _f64(ea) + _f64(eb)
        unc = (s > 0) & (np.abs(_f64(a) - _f64(b)) <= s)
    return r, unc.astype(np.float64)


def select_model(c, ec, a, ea, b, eb):
    r = np.where(c, a, b)
    e = np.where(c, ea, eb)
    with np.errstate(all="ignore"):
        wide = np.maximum(ea, eb) + np.abs(_f64(a) - _f64(b))
    return np.asarray(r), np.where(_f64(ec) > 0, wide, e)


def reduce_sum_model(x, e, axes, dt):
    n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    r = np.asarray(np.sum(x, axis=axes, dtype=NP[dt]))
    es = np.sum(_f64(e), axis=axes)
    if _PATHS:
        return r, es
    with np.errstate(all="ignore"):
        if n <= 2:
            return r, _exact_or(es, r, dt)
        s = np.sum(np.abs(_f64(x)) + _f64(e), axis=axes)
        u = float(np.finfo(NP[dt]).eps)
        return r, es + (n - 1) * u * s * 1.01 + 4 * float(np.finfo(NP[dt]).tiny)


def reduce_max_model(x, e, axes, dt):
    r = np.asarray(np.maximum.reduce(x, axis=axes, initial=NP[dt](-np.inf)))
    return r, np.max(_f64(e), axis=axes)


def bilinear_model(f, k, a, ea, b, eb, dt):
    """``f`` bilinear (numpy, computes in float64), ``k`` products summed per result
    element: the first order change over the error boxes (``f`` of the magnitudes),
    plus ``k eps`` of the sum of |terms| for two summation orders (``k == 1``: one
    correctly rounded product)."""
    af, bf, ea, eb = np.abs(_f64(a)), np.abs(_f64(b)), _f64(ea), _f64(eb)
    r = np.asarray(f(_f64(a), _f64(b)).astype(NP[dt]))
    if _PATHS:
        return r, f(af, eb) + f(ea, bf)
    with np.errstate(all="ignore"):
        d = f(af, eb) + f(ea, bf) + f(ea, eb)
        if k == 1:
            return r, _exact_or(d, r, dt)
        u = float(np.finfo(NP[dt]).eps)
        return r, d + k * u * f(af + ea, bf + eb) * 1.01 + 4 * float(np.finfo(NP[dt]).tiny)


def matmul_model(a, ea, b, eb, dt):
    return bilinear_model(np.matmul, a.shape[1], a, ea, b, eb, dt)


def einsum_of(lhs, rhs, out):
    """A bilinear function of two arrays: ``np.einsum`` with these subscripts."""
    spec = f"{lhs},{rhs}->{out}"
    return lambda a, b: np.einsum(spec, a, b)


def conv_np(stride, pads, lhs_dil, rhs_dil, groups):
    """StableHLO's convolution, channels last (N x spatial x C, filter spatial x C/g x F),
    as a bilinear function of float64 arrays: a sum over the filter's positions (an
    implementation of its own, so that it checks the interpreter's)."""

    def f(x, w):
        n, *sp, c = x.shape
        *ks, cg, nf = w.shape
        dil = np.zeros((n, *[(s - 1) * d + 1 for s, d in zip(sp, lhs_dil)], c))
        dil[(slice(None), *[slice(None, None, d) for d in lhs_dil])] = x
        xp = np.pad(dil, [(0, 0), *pads, (0, 0)])
        out_sp = [(xp.shape[1 + i] - (ks[i] - 1) * rhs_dil[i] - 1) // stride[i] + 1 for i in range(len(sp))]
        out = np.zeros((n, *out_sp, nf))
        fg = nf // groups
        for pos in np.ndindex(*ks):
            sl = tuple(slice(q * d, q * d + (o - 1) * s + 1, s) for q, d, o, s in zip(pos, rhs_dil, out_sp, stride))
            patch = xp[(slice(None), *sl, slice(None))]
            for g in range(groups):
                out[..., g * fg:(g + 1) * fg] += patch[..., g * cg:(g + 1) * cg] @ w[pos][:, g * fg:(g + 1) * fg]
        return out

    return f


def windows(x, window, stride, pads, fill):
    """The windows of ``x`` (padded with ``fill``): shape (output dims..., window dims...)."""
    xp = np.pad(x, pads, constant_values=fill)
    view = np.lib.stride_tricks.sliding_window_view(xp, tuple(window))
    return view[tuple(slice(None, None, s) for s in stride)]


def reduce_window_model(kind, x, e, window, stride, pads, dt):
    axes = tuple(range(-len(window), 0))
    if kind == "max":
        r = np.max(windows(x, window, stride, pads, NP[dt](-np.inf)), axis=axes)
        return np.asarray(r), np.max(windows(_f64(e), window, stride, pads, 0.0), axis=axes)
    r = np.asarray(np.sum(windows(_f64(x), window, stride, pads, 0.0), axis=axes).astype(NP[dt]))
    es = np.sum(windows(_f64(e), window, stride, pads, 0.0), axis=axes)
    if _PATHS:
        return r, es
    n = int(np.prod(window))
    with np.errstate(all="ignore"):
        if n <= 2:
            return r, _exact_or(es, r, dt)
        s = np.sum(windows(np.abs(_f64(x)) + _f64(e), window, stride, pads, 0.0), axis=axes)
        u = float(np.finfo(NP[dt]).eps)
        return r, es + (n - 1) * u * s * 1.01 + 4 * float(np.finfo(NP[dt]).tiny)


def window_route_model(scatter, x, ex, v, ev, window, stride, pads, dt):
    """window_max_select (``v`` at each window's first maximal element of ``x``) or
    window_max_scatter (``v`` added at those elements); where an element of the window
    other than the first maximal one is within the error boxes, unbounded."""
    ws = windows(x, window, stride, pads, NP[dt](-np.inf))
    out_shape = ws.shape[:len(window)]
    flat = ws.reshape(*out_shape, -1)
    first = np.argmax(flat, axis=-1)[..., None]
    errs = windows(_f64(ex), window, stride, pads, 0.0).reshape(flat.shape)
    best, ebest = np.take_along_axis(_f64(flat), first, -1), np.take_along_axis(errs, first, -1)
    rivals = (_f64(flat) + errs >= best - ebest) & (errs + ebest > 0) & (np.arange(flat.shape[-1]) != first)
    unsure = np.any(rivals, axis=-1) & (not _PATHS)
    where = windows(np.arange(x.size).reshape(x.shape), window, stride, pads, -1).reshape(flat.shape)
    src = np.take_along_axis(where, first, -1)[..., 0]
    if not scatter:
        r = np.asarray(np.asarray(v).reshape(-1)[src])
        return r, np.where(unsure, np.inf, _f64(ev).reshape(-1)[src])
    r, err = np.zeros(x.size, NP[dt]), np.zeros(x.size)
    terms, mags = np.zeros(x.size), np.zeros(x.size)
    for k, i in np.ndenumerate(src):
        r[i] += np.asarray(v)[k]
        err[i] += _f64(ev)[k]
        terms[i] += 1
        mags[i] += abs(float(np.asarray(v)[k])) + float(_f64(ev)[k])
    if np.any(unsure):
        err[:] = np.inf
    if not _PATHS:
        u = float(np.finfo(NP[dt]).eps)
        with np.errstate(all="ignore"):
            err = np.where(terms <= 2, _exact_or(err, r, dt),
                           err + (terms - 1) * u * mags * 1.01 + 4 * float(np.finfo(NP[dt]).tiny))
    return r.reshape(x.shape), err.reshape(x.shape)


def reduce_min_model(x, e, axes, dt):
    r = np.asarray(np.minimum.reduce(x, axis=axes, initial=NP[dt](np.inf)))
    return r, np.max(_f64(e), axis=axes)


def reduce_prod_model(x, e, axes, dt):
    """|prod(x + d) - prod(x)| <= prod(|x| + e) - prod(|x|); each of the n - 1
    multiplications rounds (relative eps, either order)."""
    r = np.asarray(np.prod(x, axis=axes, dtype=NP[dt]))
    keep = [i for i in range(x.ndim) if i not in axes]
    xs = np.transpose(_f64(x), (*keep, *axes)).reshape(*[x.shape[i] for i in keep], -1)
    es = np.transpose(_f64(e), (*keep, *axes)).reshape(xs.shape)
    n = xs.shape[-1]
    if _PATHS:
        paths = np.zeros(xs.shape[:-1])
        for i in range(n):
            paths += np.abs(np.prod(np.delete(xs, i, axis=-1), axis=-1)) * es[..., i]
        return r, paths
    with np.errstate(all="ignore"):
        big = np.prod(np.abs(xs) + es, axis=-1)
        d = big - np.abs(np.prod(xs, axis=-1))
        d = np.where(np.sum(es, axis=-1) > 0, d * (1 + 1e-9), 0.0)
        if n <= 2:
            return r, _exact_or(d, r, dt)
        u = float(np.finfo(NP[dt]).eps)
        return r, d + (n - 1) * u * big * 1.01 + 4 * float(np.finfo(NP[dt]).tiny)


def arg_model(kind, x, e, axis):
    """argmax/argmin (the first extremal element): the error channel is inf where another
    element of the operand's error box could win."""
    f = np.argmax if kind == "max" else np.argmin
    r = np.asarray(f(x, axis=axis).astype(np.int64))
    if _PATHS:
        return r, np.zeros(r.shape)
    xf, ef = _f64(x), _f64(e)
    sign = 1.0 if kind == "max" else -1.0
    best = np.take_along_axis(sign * xf, np.expand_dims(r, axis), axis)
    ebest = np.take_along_axis(ef, np.expand_dims(r, axis), axis)
    rivals = (sign * xf + ef >= best - ebest) & (ef + ebest > 0)
    rivals &= np.arange(x.shape[axis]).reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)]) != np.expand_dims(r, axis)
    return r, np.where(np.any(rivals, axis=axis), np.inf, 0.0)


def clamp_model(lo, el, x, ex, hi, eh):
    r = np.asarray(np.minimum(np.maximum(x, lo), hi))
    if _PATHS:
        return r, np.where(x < lo, _f64(el), np.where(x > hi, _f64(eh), _f64(ex)))
    return r, np.maximum(np.maximum(_f64(el), _f64(ex)), _f64(eh))


def logical_model(name, a, ea, b=None, eb=None):
    """i1 ops: the error channel marks elements that an uncertain operand could flip."""
    if name == "not":
        return np.asarray(~a), _f64(ea)
    f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[name]
    return np.asarray(f(a, b)), np.maximum(_f64(ea), _f64(eb))


def _gather_slices(idx, dims, rank):
    """Per batch position of ``idx`` (its last dim: coordinates along ``dims``), the index
    tuple of the slice it selects in a rank-``rank`` tensor (size 1 along ``dims``)."""
    for b in np.ndindex(*idx.shape[:-1]):
        where = [slice(None)] * rank
        for d, i in zip(dims, idx[b]):
            where[d] = slice(int(i), int(i) + 1)
        yield b, tuple(where)


def gather_model(x, e, idx, dims, shape):
    val = np.stack([x[w] for _, w in _gather_slices(idx, dims, x.ndim)]).reshape(shape)
    err = np.stack([_f64(e)[w] for _, w in _gather_slices(idx, dims, x.ndim)]).reshape(shape)
    return val, err


def scatter_model(add, upd, eu, dest, ed, idx, dims, dt):
    """scatter (unique coordinates: a copy) or scatter_add (a sum over the dest element
    and every update landing on it, in any order)."""
    val, err = np.array(dest, dtype=NP[dt]), _f64(ed).copy()
    terms, mags = np.ones(dest.shape), np.abs(_f64(dest)) + _f64(ed)
    u_full = np.reshape(np.asarray(upd, dtype=NP[dt]), (*idx.shape[:-1], *[1 if d in dims else s for d, s in enumerate(dest.shape)]))
    e_full = np.reshape(_f64(eu), u_full.shape)
    for b, w in _gather_slices(idx, dims, dest.ndim):
        if add:
            val[w] += u_full[b]
            err[w] += e_full[b]
            terms[w] += 1
            mags[w] += np.abs(_f64(u_full[b])) + e_full[b]
        else:
            val[w], err[w] = u_full[b], e_full[b]
    r = np.asarray(val)
    if not add or _PATHS:
        return r, err
    u = float(np.finfo(NP[dt]).eps)
    with np.errstate(all="ignore"):
        sum_bound = err + (terms - 1) * u * mags * 1.01 + 4 * float(np.finfo(NP[dt]).tiny)
        bound = np.where(terms <= 2, _exact_or(err, r, dt), sum_bound)
    return r, np.where(terms == 1, _f64(ed), bound)


def convert_model(x, e, src, dst):
    r = np.asarray(x.astype(NP[dst]))
    if dst == "f32" and src == "f64" and not _PATHS:
        return r, _exact_or(e, r, dst)
    return r, _f64(e)


# --------------------------------------------------------------------------- generator


@dataclass
class Program:
    name: str
    params: list
    results: list
    body: list
    text: str
    mode: str
    tags: Counter = field(default_factory=Counter)

    def inputs(self, seed):
        rng = np.random.default_rng(seed)
        out = []
        for p in self.params:
            x = rng.uniform(p.lo, p.hi, size=p.shape)
            out.append(np.asarray(x, dtype=NP[p.dt]) if p.kind == "t" else NP[p.dt](x))
        return out

    def evaluate(self, args):
        """The model: [(value, error bound)] per result, and stats of the run."""
        env = {}
        for p, a in zip(self.params, args):
            env[p.name] = (np.asarray(a), np.zeros(np.shape(a)))
        stats = Counter()
        for s in self.body:
            s.run(env, stats)
        return [env[r.name] for r in self.results], stats

    def path_magnitude(self, args, v):
        """(sum over the derivative paths of |product of partials| * |v|, the path length L)
        for the first result (the loss; see the module docstring)."""
        env = {}
        for p, a, t in zip(self.params, args, v):
            env[p.name] = (np.asarray(a), np.abs(_f64(t)))
        stats = Counter()
        with _path_magnitudes():
            for s in self.body:
                s.run(env, stats)
        return float(np.sum(env[self.results[0].name][1])), stats["path length"]

    def __repr__(self):
        return f"<program @{self.name}>\n{self.text}"

    @property
    def has(self):
        return {k for k in ("loop.for", "loop.if", "loop.while") if self.tags[k]}


class Gen:
    def __init__(self, r, mode="diff", name="p", max_stmts=7, max_depth=2):
        self.r, self.mode, self.fname = r, mode, name
        self.max_stmts, self.max_depth = max_stmts, max_depth
        self.n = 0
        self.pool: list[V] = []
        self.cur: list = []
        self.tags = Counter()
        self.depth = 0
        self.ivs: list[tuple[V, int]] = []  # induction vars in scope, with their largest value
        self.in_for = 0
        self.in_ckpt = 0  # checkpointed loops around the current statement
        self.in_while = 0  # loop.while bodies around the current statement
        self.loop_args: set = set()  # names of the block arguments of loops

    # ------------------------------------------------------------- basics
    def fresh(self, p="v"):
        self.n += 1
        return f"%{p}{self.n}"

    def dts(self):
        return ("f64",) if self.mode == "grad" else ("f32", "f64")

    def add(self, results, text, fn, tag):
        self.cur.append(Op(results, text, fn, tag))
        self.tags[tag] += 1
        for v in results:
            self.pool.append(v)
        return results[0] if len(results) == 1 else results

    def new(self, kind, shape, dt, lo, hi, p="v"):
        lo, hi = _pad(lo, hi)
        return V(self.fresh(p), kind, tuple(shape), dt, lo, hi)

    def floats(self, kind="t", pred=None):
        return [v for v in self.pool if v.kind == kind and (pred is None or pred(v))]

    def pick(self, cands):
        """Recent values are likelier (index 0 = newest), so chains grow deep."""
        if not cands:
            return None
        k = self.r.int(0, len(cands) - 1)
        if self.r.coin(0.5):
            k = k // 3
        return cands[len(cands) - 1 - k]

    def index_const(self, k):
        v = V(self.fresh("c"), "i")
        self.add([v], f"{v.name} = arith.constant {k} : index",
                 lambda env, k=k: [(np.int64(k), 0.0)], "arith.constant")
        return v

    def nice(self):
        x = choice(self.r, NICE)
        return -x if self.r.coin(0.3) else x

    def scalar_const(self, dt, x=None):
        x = self.nice() if x is None else x
        v = self.new("s", (), dt, float(NP[dt](x)), float(NP[dt](x)))
        self.add([v], f"{v.name} = arith.constant {x!r} : {dt}",
                 lambda env, x=x, dt=dt: [(np.asarray(NP[dt](x)), np.zeros(()))], "arith.constant")
        return v

    def tensor_const(self, shape, dt, x=None):
        """A dense constant: one value (splat form) or random nice values."""
        if x is not None or self.r.coin(0.5):
            x = self.nice() if x is None else x
            arr = np.full(shape, x, dtype=NP[dt])
            lit = repr(float(x))
        else:
            flat = [self.nice() for _ in range(int(np.prod(shape, dtype=np.int64)))]
            arr = np.array(flat, dtype=NP[dt]).reshape(shape)
            lit = _dense(np.array(flat, dtype=np.float64).reshape(shape))
        v = self.new("t", shape, dt, float(arr.min()), float(arr.max()))
        self.add([v], f"{v.name} = arith.constant dense<{lit}> : {v.type}",
                 lambda env, arr=arr: [(arr.copy(), np.zeros(arr.shape))], "arith.constant")
        return v

    # ------------------------------------------------------------- getting a value of a type
    def need(self, shape, dt, avoid=None):
        shape = tuple(shape)
        same = [v for v in self.floats() if v.shape == shape and v.dt == dt and v is not avoid]
        if same and self.r.coin(0.75):
            return self.pick(same)
        way = self.r.int(0, 4)
        if way == 0:
            other = [v for v in self.floats() if v.shape == shape and v.dt != dt]
            if other:
                return self.convert(self.pick(other), dt)
        if way == 1:
            src = [v for v in self.floats() if v.dt == dt and len(v.shape) < len(shape)
                   and _embed(v.shape, shape) is not None]
            if src:
                return self.broadcast(self.pick(src), shape)
        if way == 2:
            sc = self.floats("s", lambda v: v.dt == dt)
            if sc:
                return self.splat(self.pick(sc), shape)
        if way == 3:
            return self.splat(self.scalar_const(dt), shape)
        if same:
            return self.pick(same)
        return self.tensor_const(shape, dt)

    def need_scalar(self, dt):
        sc = self.floats("s", lambda v: v.dt == dt)
        if sc and self.r.coin(0.6):
            return self.pick(sc)
        ts = self.floats("t", lambda v: v.dt == dt)
        if ts and self.r.coin(0.8):
            return self.extract(self.pick(ts))
        return self.scalar_const(dt)

    # ------------------------------------------------------------- domain fixes
    def positive(self, v, lo=0.05):
        """A value > lo derived from v (log, sqrt in grad mode, pow base, divisor)."""
        if v.lo > lo:
            return v
        if self.mode == "grad" or self.r.coin(0.3):
            sq = self.binary("mul", v, v, force=True)
            c = self.const_like(sq, 0.5)
            return self.binary("add", sq, c, force=True)
        a = self.unary("abs", v, force=True)
        return self.binary("add", a, self.const_like(a, 0.5), force=True)

    def bounded(self, v, b):
        if v.mag <= b:
            return v
        return self.unary("tanh", v, force=True)

    def const_like(self, v, x):
        if v.kind == "s":
            return self.scalar_const(v.dt, x)
        if self.r.coin(0.5):
            return self.tensor_const(v.shape, v.dt, x)
        return self.splat(self.scalar_const(v.dt, x), v.shape)

    # ------------------------------------------------------------- elementwise
    def into_domain(self, v, lo, hi):
        """``v``, or ``mid + half * tanh(v)`` (inside [lo, hi]) when it may leave it."""
        if v.lo >= lo and v.hi <= hi:
            return v
        mid, half = (lo + hi) / 2, 0.45 * (hi - lo)
        t = self.unary("tanh", v, force=True)
        s = self.binary("mul", t, self.const_like(t, half), force=True)
        return self.binary("add", s, self.const_like(s, mid), force=True)

    def generic(self, name, vs):
        """An elementwise op with no hand-made model (see ``generic_model``)."""
        meaning, _ = _declared(name)
        vs = [self.into_domain(v, lo, hi) for v, (lo, hi) in zip(vs, meaning.domain(len(vs)))]
        v0 = vs[0]
        with np.errstate(all="ignore"):
            grids = np.meshgrid(*[np.linspace(v.lo, v.hi, 33) for v in vs])
            ys = np.asarray(declared_numpy(name)(*grids), np.float64)
        lo, hi = _pad(float(np.nanmin(ys)), float(np.nanmax(ys)))
        out = self.new(v0.kind, v0.shape, v0.dt, lo, hi)
        operands = ", ".join(v.name for v in vs)
        if v0.kind == "t":
            text = f"{out.name} = tensor.{name} {operands} : {v0.type}"
            tag = f"tensor.{name}"
        else:
            scalar = meaning.counterpart(_declared(name)[1])
            if scalar is None:  # a composite op: no scalar op of its own
                return self.unary("tanh", v0, force=True)
            text = f"{out.name} = {scalar.name} {operands} : {v0.dt}"
            tag = scalar.name
        return self.add([out], text, lambda env, ns=[v.name for v in vs], dt=v0.dt:
                        [generic_model(name, [env[n] for n in ns], dt)], tag)

    def unary(self, name, v, force=False):
        if name not in UNARY_NP:
            return self.generic(name, [v])
        if not force:
            if name == "log":
                v = self.positive(v, 0.05 if self.mode == "grad" else 1e-3)
            elif name == "sqrt":
                v = self.positive(v, 0.05) if self.mode == "grad" else (v if v.lo >= 0 else self.positive(v))
            elif name == "exp":
                v = self.bounded(v, 8.0)
            elif name in ("sin", "cos"):
                v = self.bounded(v, 100.0)
        lo, hi = v.lo, v.hi
        with np.errstate(all="ignore"):
            if name == "neg":
                lo, hi = -hi, -lo
            elif name == "abs":
                lo, hi = (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), v.mag
            elif name in ("sin", "cos"):
                lo, hi = -1.0, 1.0
            elif name == "logistic":
                lo, hi = 1 / (1 + math.exp(-max(lo, -700))), 1 / (1 + math.exp(-min(hi, 700)))
            else:
                f = {"exp": math.exp, "log": math.log, "sqrt": math.sqrt, "tanh": math.tanh}[name]
                lo, hi = f(max(lo, 1e-300) if name in ("log", "sqrt") else lo), f(hi)
        out = self.new(v.kind, v.shape, v.dt, lo, hi)
        dt = v.dt
        if v.kind == "t":
            text = f"{out.name} = tensor.{name} {v.name} : {v.type}"
            tag = f"tensor.{name}"
        else:
            if name == "logistic":  # no scalar logistic: 1 / (1 + exp(-x)) is not the same rounding
                name = "tanh"
                out.lo, out.hi = _pad(math.tanh(v.lo), math.tanh(v.hi))
            text = f"{out.name} = {MATH_OF[name]} {v.name} : {dt}"
            tag = MATH_OF[name]
        return self.add([out], text, lambda env, n=name, x=v.name, dt=dt: [unary_model(n, *env[x], dt)], tag)

    def binary(self, name, a, b=None, force=False):
        dt = a.dt
        if b is None:
            b = self.need(a.shape, dt) if a.kind == "t" else self.need_scalar(dt)
        if name not in BINARY_NP:
            return self.generic(name, [a, b])
        if not force:
            if name == "div":
                b = self.positive(b, 0.1) if not (b.hi < -0.1 or b.lo > 0.1) else b
                if a.mag / min(abs(b.lo), abs(b.hi)) > CAP:
                    a = self.bounded(a, 1.0)
            elif name == "pow":
                a = self.positive(a, 0.05)
                b = self.bounded(b, 3.0)
                if a.hi > 20:
                    a = self.unary("log", a, force=True) if a.lo > 1 else self.positive(self.unary("tanh", a, force=True))
            elif name == "mul" and a.mag * b.mag > CAP:
                a, b = self.bounded(a, 1.0), self.bounded(b, 1.0)
            elif a.mag + b.mag > CAP:
                a, b = self.bounded(a, 1.0), self.bounded(b, 1.0)
        with np.errstate(all="ignore"):
            if name == "add":
                lo, hi = a.lo + b.lo, a.hi + b.hi
            elif name == "sub":
                lo, hi = a.lo - b.hi, a.hi - b.lo
            elif name in ("mul", "div", "pow"):
                f = {"mul": lambda x, y: x * y, "div": lambda x, y: x / y,
                     "pow": _pow}[name]
                cs = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
                lo, hi = min(cs), max(cs)
            elif name == "max":
                lo, hi = max(a.lo, b.lo), max(a.hi, b.hi)
            else:
                lo, hi = min(a.lo, b.lo), min(a.hi, b.hi)
        out = self.new(a.kind, a.shape, dt, lo, hi)
        if a.kind == "t":
            text = f"{out.name} = tensor.{name} {a.name}, {b.name} : {a.type}"
            tag = f"tensor.{name}"
        else:
            text = f"{out.name} = {ARITH_OF[name]} {a.name}, {b.name} : {dt}"
            tag = ARITH_OF[name]

        def fn(env, n=name, x=a.name, y=b.name, dt=dt):
            return [binary_model(n, *env[x], *env[y], dt)]

        return self.add([out], text, fn, tag)

    def compare(self, a, b):
        """An i1 tensor: ``a`` and ``b`` compared elementwise."""
        pred = choice(self.r, tuple(CMP))
        m = V(self.fresh("m"), "m", a.shape, a.dt)
        return self.add([m], f"{m.name} = tensor.cmp {pred}, {a.name}, {b.name} : {a.type}",
                        lambda env, f=CMP[pred], x=a.name, y=b.name: [cmp_model(f, *env[x], *env[y])], "tensor.cmp")

    def cmp_select(self):
        a = self.pick(self.floats())
        b = self.need(a.shape, a.dt)
        m = self.compare(a, b)
        if self.r.coin(0.3):
            m = self.logical(m)
        x = a if self.r.coin(0.5) else self.need(a.shape, a.dt)
        y = b if self.r.coin(0.5) else self.need(a.shape, a.dt)
        out = self.new("t", a.shape, a.dt, min(x.lo, y.lo), max(x.hi, y.hi))
        mt = tensor_type(a.shape, "i1")
        return self.add([out], f"{out.name} = tensor.select {m.name}, {x.name}, {y.name} : {mt}, {a.type}",
                        lambda env, c=m.name, p=x.name, q=y.name: [select_model(*env[c], *env[p], *env[q])],
                        "tensor.select")

    # ------------------------------------------------------------- shape ops
    def convert(self, v, dt):
        out = self.new("t", v.shape, dt, v.lo, v.hi)
        return self.add([out], f"{out.name} = tensor.convert {v.name} : {v.type} -> {out.type}",
                        lambda env, x=v.name, s=v.dt, d=dt: [convert_model(*env[x], s, d)], "tensor.convert")

    def broadcast(self, v, shape=None):
        if shape is None:
            rank = len(v.shape) + self.r.int(1, max(1, 3 - len(v.shape)))
            pos = sorted(_sample(self.r, list(range(rank)), len(v.shape)))
            shape = [self.r.int(1, 4) for _ in range(rank)]
            for i, d in zip(pos, v.shape):
                shape[i] = d if (d != 1 or self.r.coin(0.5)) else self.r.int(1, 4)
            dims = pos
        else:
            dims = _embed(v.shape, shape)
        shape = tuple(shape)
        out = self.new("t", shape, v.dt, v.lo, v.hi)
        text = (f"{out.name} = tensor.broadcast {v.name} {list(dims)} : {v.type} -> {out.type}")

        def fn(env, x=v.name, dims=tuple(dims), shape=shape):
            val, err = env[x]
            exp = [1] * len(shape)
            for i, d in enumerate(dims):
                exp[d] = val.shape[i]
            return [(np.broadcast_to(val.reshape(exp), shape).copy(),
                     np.broadcast_to(_f64(err).reshape(exp), shape).copy())]

        return self.add([out], text, fn, "tensor.broadcast")

    def reduce(self, v, kind):
        rank = len(v.shape)
        k = self.r.int(1, rank)
        dims = sorted(_sample(self.r, list(range(rank)), k))
        if kind == "prod":  # at most 8 factors in [0.5, 1.5]: no overflow, no underflow
            while len(dims) > 1 and np.prod([v.shape[i] for i in dims]) > 8:
                dims.pop()
            if v.shape[dims[0]] > 8:
                dims = [dims[0]]
            v = self.into_domain(v, 0.5, 1.5)
        shape = tuple(d for i, d in enumerate(v.shape) if i not in dims)
        n = int(np.prod([v.shape[i] for i in dims]))
        lo, hi = (v.lo * n, v.hi * n) if kind == "sum" else (v.lo, v.hi)
        lo, hi = min(lo, v.lo), max(hi, v.hi)
        if kind == "sum" and max(abs(lo), abs(hi)) > CAP:
            v = self.unary("tanh", v, force=True)
            lo, hi = -n, n
        if kind == "prod":
            lo, hi = min(v.lo ** n, v.lo), max(v.hi ** n, v.hi)
        out = self.new("t", shape, v.dt, lo, hi)
        text = f"{out.name} = tensor.reduce_{kind} {v.name} {dims} : {v.type} -> {out.type}"
        model = {"sum": reduce_sum_model, "max": reduce_max_model, "min": reduce_min_model,
                 "prod": reduce_prod_model}[kind]
        return self.add([out], text, lambda env, x=v.name, ax=tuple(dims), dt=v.dt: [model(*env[x], ax, dt)],
                        f"tensor.reduce_{kind}")

    def matmul(self, a):
        m, k = a.shape
        cands = [v for v in self.floats() if len(v.shape) == 2 and v.shape[0] == k and v.dt == a.dt]
        if cands and self.r.coin(0.6):
            b = self.pick(cands)
        elif self.r.coin(0.3):
            b = self.transpose(a)
        else:
            b = self.need((k, self.r.int(1, 4)), a.dt)
        if max(a.mag, 1) * max(b.mag, 1) * k > CAP:
            a, b = self.bounded(a, 1.0), self.bounded(b, 1.0)
        cs = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        out = self.new("t", (m, b.shape[1]), a.dt, k * min(cs), k * max(cs))
        text = f"{out.name} = tensor.matmul {a.name}, {b.name} : ({a.type}, {b.type}) -> {out.type}"
        return self.add([out], text, lambda env, x=a.name, y=b.name, dt=a.dt: [matmul_model(*env[x], *env[y], dt)],
                        "tensor.matmul")

    def transpose(self, v):
        rank = len(v.shape)
        perm = _sample(self.r, list(range(rank)), rank)
        if perm == list(range(rank)):  # not the identity (no retry loop: replayed choices repeat)
            perm = perm[1:] + perm[:1]
        shape = tuple(v.shape[p] for p in perm)
        out = self.new("t", shape, v.dt, v.lo, v.hi)
        text = f"{out.name} = tensor.transpose {v.name} {perm} : {v.type} -> {out.type}"
        return self.add([out], text,
                        lambda env, x=v.name, p=tuple(perm): [tuple(np.transpose(a, p).copy() for a in (env[x][0], _f64(env[x][1])))],
                        "tensor.transpose")

    def slice_spec(self, shape):
        """Random offsets (static, or an induction variable in scope), sizes, strides."""
        offs, sizes, strides, dyn = [], [], [], []
        for d in shape:
            s = self.r.int(1, d)
            st = 2 if (s > 1 and 2 * (s - 1) < d and self.r.coin(0.2)) else 1
            span = (s - 1) * st + 1
            ivs = [(iv, mx) for iv, mx in self.ivs if mx + span <= d]
            if ivs and self.r.coin(0.4):
                iv, _ = choice(self.r, ivs)
                offs.append(iv)
            else:
                offs.append(self.r.int(0, d - span))
            sizes.append(s)
            strides.append(st)
        return offs, sizes, strides

    def extract_slice(self, v):
        offs, sizes, strides = self.slice_spec(v.shape)
        drop = self.r.coin(0.3)
        shape = tuple(s for s in sizes if not (drop and s == 1))
        out = self.new("t", shape, v.dt, v.lo, v.hi)
        text = (f"{out.name} = tensor.extract_slice {v.name}[{_offs(offs)}] {sizes} {strides} : "
                f"{v.type} to {out.type}")

        def fn(env, x=v.name, offs=tuple(offs), sizes=tuple(sizes), strides=tuple(strides), shape=shape):
            sl = _slices(env, offs, sizes, strides)
            val, err = env[x]
            return [(val[sl].reshape(shape).copy(), _f64(err)[sl].reshape(shape).copy())]

        return self.add([out], text, fn, "tensor.extract_slice")

    def insert_slice(self, dest):
        offs, sizes, strides = self.slice_spec(dest.shape)
        drop = self.r.coin(0.3)
        shape = tuple(s for s in sizes if not (drop and s == 1))
        src = self.need(shape, dest.dt)
        out = self.new("t", dest.shape, dest.dt, min(src.lo, dest.lo), max(src.hi, dest.hi))
        text = (f"{out.name} = tensor.insert_slice {src.name} into {dest.name}[{_offs(offs)}] {sizes} {strides} : "
                f"{src.type} into {dest.type}")

        def fn(env, s=src.name, d=dest.name, offs=tuple(offs), sizes=tuple(sizes), strides=tuple(strides)):
            sl = _slices(env, offs, sizes, strides)
            val, err = env[d]
            val, err = val.copy(), _f64(err).copy()
            sv, se = env[s]
            val[sl] = np.reshape(sv, sizes)
            err[sl] = np.reshape(_f64(se), sizes)
            return [(val, err)]

        return self.add([out], text, fn, "tensor.insert_slice")

    def reshape(self, v):
        """collapse_shape (contiguous groups of dims) or expand_shape (a dim split in factors)."""
        shape = v.shape
        if self.r.coin(0.25):  # tensor.reshape: any shape of as many elements, from a shape operand
            n = int(np.prod(shape))
            f = choice(self.r, [q for q in range(1, n + 1) if n % q == 0])
            out_shape = choice(self.r, [(n,), (f, n // f), (n // f, 1, f)])
            sh = self.int_const(np.array(out_shape, dtype=np.int64))
            out = self.new("t", out_shape, v.dt, v.lo, v.hi)
            text = f"{out.name} = tensor.reshape {v.name}({sh.name}) : ({v.type}, {sh.type}) -> {out.type}"
            tag = "tensor.reshape"
        elif len(shape) >= 2 and (len(shape) == 3 or self.r.coin(0.5)):
            cuts = sorted(set(self.r.int(1, len(shape) - 1) for _ in range(self.r.int(1, len(shape) - 1))))
            bounds = [0, *cuts, len(shape)]
            groups = [list(range(a, b)) for a, b in zip(bounds, bounds[1:])]
            out_shape = tuple(int(np.prod([shape[i] for i in g])) for g in groups)
            out = self.new("t", out_shape, v.dt, v.lo, v.hi)
            text = f"{out.name} = tensor.collapse_shape {v.name} {groups} : {v.type} into {out.type}"
            tag = "tensor.collapse_shape"
        else:
            if not shape:
                return self.broadcast(v)
            k = self.r.int(0, len(shape) - 1)
            d = shape[k]
            f = choice(self.r, [q for q in range(1, d + 1) if d % q == 0])
            parts = [f, d // f] if self.r.coin(0.5) else [d // f, f]
            out_shape = tuple(shape[:k]) + tuple(parts) + tuple(shape[k + 1:])
            groups, j = [], 0
            for i in range(len(shape)):
                n = 2 if i == k else 1
                groups.append(list(range(j, j + n)))
                j += n
            out = self.new("t", out_shape, v.dt, v.lo, v.hi)
            text = (f"{out.name} = tensor.expand_shape {v.name} {groups} output_shape {list(out_shape)} : "
                    f"{v.type} into {out.type}")
            tag = "tensor.expand_shape"
        return self.add([out], text,
                        lambda env, x=v.name, sh=out.shape: [(env[x][0].reshape(sh).copy(), _f64(env[x][1]).reshape(sh).copy())],
                        tag)

    def from_elements(self, dt):
        n = self.r.int(1, 4)
        parts = [self.need_scalar(dt) for _ in range(n)]
        shape = (n,) if self.r.coin(0.7) or n == 1 else ((1, n) if n != 4 else (2, 2))
        out = self.new("t", shape, dt, min(p.lo for p in parts), max(p.hi for p in parts))
        text = f"{out.name} = tensor.from_elements {', '.join(p.name for p in parts)} : {out.type}"

        def fn(env, names=tuple(p.name for p in parts), sh=shape, dt=dt):
            return [(np.array([env[q][0] for q in names], dtype=NP[dt]).reshape(sh),
                     np.array([float(env[q][1]) for q in names]).reshape(sh))]

        return self.add([out], text, fn, "tensor.from_elements")

    def splat(self, s, shape):
        out = self.new("t", shape, s.dt, s.lo, s.hi)
        text = f"{out.name} = tensor.splat {s.name} : {out.type}"
        return self.add([out], text,
                        lambda env, x=s.name, sh=tuple(shape): [(np.full(sh, env[x][0], dtype=NP[s.dt]),
                                                                np.full(sh, float(env[x][1])))],
                        "tensor.splat")

    def extract(self, t):
        idx = []
        for d in t.shape:
            ivs = [iv for iv, mx in self.ivs if mx < d]
            if ivs and self.r.coin(0.4):
                idx.append(choice(self.r, ivs))
            else:
                idx.append(self.index_const(self.r.int(0, d - 1)))
        out = self.new("s", (), t.dt, t.lo, t.hi)
        text = f"{out.name} = tensor.extract {t.name}[{', '.join(i.name for i in idx)}] : {t.type}"

        def fn(env, x=t.name, idx=tuple(i.name for i in idx)):
            val, err = env[x]
            k = tuple(int(env[i][0]) for i in idx)
            return [(np.asarray(val[k]), np.asarray(_f64(err)[k]))]

        return self.add([out], text, fn, "tensor.extract")

    def scalar_chain(self):
        dt = choice(self.r, self.dts())
        s = self.need_scalar(dt)
        for _ in range(self.r.int(1, 3)):
            if self.r.coin(0.5):
                names = SMOOTH_UNARY if self.mode == "grad" else UNARY
                s = self.unary(choice(self.r, [n for n in names if n != "logistic"]), s)
            else:
                names = SMOOTH_BINARY if self.mode == "grad" else BINARY
                s = self.binary(choice(self.r, names), s)
        if self.mode != "grad" and self.r.coin(0.2):
            other = "f32" if dt == "f64" else "f64"
            out = self.new("s", (), other, s.lo, s.hi)
            op = "arith.extf" if other == "f64" else "arith.truncf"
            self.add([out], f"{out.name} = {op} {s.name} : {dt} to {other}",
                     lambda env, x=s.name, d=other, sdt=dt: [convert_model(*env[x], sdt, d)], op)
            s = out
        if self.r.coin(0.5):
            ts = self.floats("t", lambda v: v.dt == s.dt)
            shape = choice(self.r, ts).shape if ts else (self.r.int(1, 4),)
            return self.splat(s, shape)
        return s

    def iv_float(self):
        iv, mx = choice(self.r, self.ivs)
        dt = choice(self.r, self.dts())
        i64 = V(self.fresh("k"), "i")
        self.add([i64], f"{i64.name} = arith.index_cast {iv.name} : index to i64",
                 lambda env, x=iv.name: [env[x]], "arith.index_cast")
        out = self.new("s", (), dt, 0.0, float(mx))
        self.add([out], f"{out.name} = arith.sitofp {i64.name} : i64 to {dt}",
                 lambda env, x=i64.name, dt=dt: [(np.asarray(NP[dt](env[x][0])), np.zeros(()))], "arith.sitofp")
        return out

    # ------------------------------------------------------------- structural ops (SPEC 3.1)
    def int_const(self, arr):
        """A dense i64 constant (gather/scatter coordinates)."""
        v = V(self.fresh("c"), "n", arr.shape)
        lit = _dense(arr.astype(np.float64)).replace(".0", "")
        self.add([v], f"{v.name} = arith.constant dense<{lit}> : {v.type}",
                 lambda env, arr=arr: [(arr.copy(), np.zeros(arr.shape))], "arith.constant")
        return v

    def tie_break(self, v):
        """``v`` plus distinct offsets (multiples of 1/8): a window max or min over it has
        one maximizer even where ``v`` repeats a value (broadcast, splat, a saturated
        tanh), so that gradients are not taken at a tie (SPEC: non-differentiable)."""
        n = int(np.prod(v.shape))
        order = np.array(_sample(self.r, list(range(n)), n), dtype=np.float64).reshape(v.shape)
        offs = order / 8
        c = self.new("t", v.shape, v.dt, 0.0, float(offs.max()))
        self.add([c], f"{c.name} = arith.constant dense<{_dense(offs)}> : {c.type}",
                 lambda env, arr=offs.astype(NP[v.dt]): [(arr.copy(), np.zeros(arr.shape))], "arith.constant")
        return self.binary("add", self.bounded(v, 1.0), c, force=True)

    def dot(self, a):
        """tensor.dot with batch, contracting and free dims in random positions."""
        rank = len(a.shape)
        order = _sample(self.r, list(range(rank)), rank)
        nb = self.r.int(0, min(1, rank))
        nc = self.r.int(0, min(2, rank - nb))
        lb, lc = order[:nb], order[nb:nb + nc]
        lfree = [d for d in range(rank) if d not in lb and d not in lc]
        nfree = self.r.int(0, 1)
        slots = [("b", i) for i in range(nb)] + [("c", i) for i in range(nc)] + [("f", i) for i in range(nfree)]
        slots = _sample(self.r, slots, len(slots))
        rshape = [a.shape[lb[i]] if k == "b" else a.shape[lc[i]] if k == "c" else self.r.int(1, 3) for k, i in slots]
        rb = [slots.index(("b", i)) for i in range(nb)]
        rc = [slots.index(("c", i)) for i in range(nc)]
        b = self.need(tuple(rshape), a.dt)
        k = int(np.prod([a.shape[d] for d in lc]))
        if max(a.mag, 1) * max(b.mag, 1) * k > CAP:
            a, b = self.bounded(a, 1.0), self.bounded(b, 1.0)
        letters = "abcdefgh"
        ls = [letters[i] for i in range(rank)]
        rs = [None] * len(rshape)
        for i in range(nb):
            rs[rb[i]] = ls[lb[i]]
        for i in range(nc):
            rs[rc[i]] = ls[lc[i]]
        extra = iter(letters[rank:])
        rs = [x or next(extra) for x in rs]
        rfree = [d for d in range(len(rshape)) if d not in rb and d not in rc]
        out_sub = [ls[d] for d in lb] + [ls[d] for d in lfree] + [rs[d] for d in rfree]
        shape = tuple([a.shape[d] for d in lb] + [a.shape[d] for d in lfree] + [rshape[d] for d in rfree])
        cs = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        out = self.new("t", shape, a.dt, k * min(cs), k * max(cs))
        text = (f"{out.name} = tensor.dot {a.name}, {b.name} batch {lb} x {rb} contract {lc} x {rc} : "
                f"({a.type}, {b.type}) -> {out.type}")
        f = einsum_of("".join(ls), "".join(rs), "".join(out_sub))
        return self.add([out], text, lambda env, x=a.name, y=b.name, dt=a.dt, f=f, k=k:
                        [bilinear_model(f, k, *env[x], *env[y], dt)], "tensor.dot")

    def conv(self):
        """tensor.conv, 1-D or 2-D, with strides, padding, both dilations and groups."""
        nd = self.r.int(1, 2)
        ins = [v for v in self.floats() if len(v.shape) == nd + 2 and all(s >= 2 for s in v.shape[1:-1])]
        if ins and self.r.coin(0.6):
            x = self.pick(ins)
        else:
            dt = choice(self.r, self.dts())
            x = self.need((self.r.int(1, 2), *[self.r.int(2, 5) for _ in range(nd)], self.r.int(1, 4)), dt)
        n, *sp, c = x.shape
        groups = choice(self.r, [g for g in range(1, c + 1) if c % g == 0])
        nf = groups * self.r.int(1, 2)
        stride = [self.r.int(1, 2) for _ in sp]
        lhs_dil = [2 if self.r.coin(0.15) else 1 for _ in sp]
        rhs_dil = [2 if self.r.coin(0.2) else 1 for _ in sp]
        pads = [(self.r.int(0, 1), self.r.int(0, 1)) for _ in sp]
        ks = []
        for s, ld, rd, (lo, hi) in zip(sp, lhs_dil, rhs_dil, pads):
            room = (s - 1) * ld + 1 + lo + hi
            ks.append(self.r.int(1, max(1, min(3, (room - 1) // rd + 1))))
        w = self.need((*ks, c // groups, nf), x.dt)
        k = int(np.prod(ks)) * (c // groups)
        if max(x.mag, 1) * max(w.mag, 1) * k > CAP:
            x, w = self.bounded(x, 1.0), self.bounded(w, 1.0)
        f = conv_np(stride, pads, lhs_dil, rhs_dil, groups)
        shape = f(np.zeros(x.shape), np.zeros(w.shape)).shape
        cs = [p * q for p in (x.lo, x.hi, 0.0) for q in (w.lo, w.hi)]
        out = self.new("t", shape, x.dt, k * min(cs), k * max(cs))
        clauses = []
        if stride != [1] * nd or self.r.coin(0.3):
            clauses.append(f"stride {stride}")
        if any(p != (0, 0) for p in pads) or self.r.coin(0.3):
            clauses.append("pad [" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pads) + "]")
        if lhs_dil != [1] * nd:
            clauses.append(f"input_dilation {lhs_dil}")
        if rhs_dil != [1] * nd:
            clauses.append(f"dilation {rhs_dil}")
        if groups != 1:
            clauses.append(f"groups {groups}")
        text = (f"{out.name} = tensor.conv {x.name}, {w.name} {' '.join(clauses)} : "
                f"({x.type}, {w.type}) -> {out.type}").replace("  :", " :")
        if groups > 1:
            self.tags["conv groups>1"] += 1
        if lhs_dil != [1] * nd or rhs_dil != [1] * nd:
            self.tags["conv dilated"] += 1
        return self.add([out], text, lambda env, x=x.name, y=w.name, dt=x.dt, f=f, k=k:
                        [bilinear_model(f, k, *env[x], *env[y], dt)], "tensor.conv")

    def window_spec(self, shape):
        """(window, stride, pads, clauses text) over every dim of ``shape``: each window
        holds at least one element of the operand (padding at most window - 1 per side)."""
        window, stride, pads = [], [], []
        for d in shape:
            w = self.r.int(1, min(3, d + 1))
            lo = self.r.int(0, w - 1) if self.r.coin(0.3) else 0
            hi = self.r.int(0, w - 1) if self.r.coin(0.3) else 0
            if d + lo + hi < w:
                lo = w - d
            window.append(w)
            stride.append(self.r.int(1, 2))
            pads.append((lo, hi))
        clauses = f"window {window} stride {stride}"
        if any(p != (0, 0) for p in pads):
            clauses += " pad [" + ", ".join(f"[{a}, {b}]" for a, b in pads) + "]"
        return tuple(window), tuple(stride), tuple(pads), clauses

    def reduce_window(self, v, kind):
        if kind == "max" and self.mode == "grad":
            v = self.tie_break(v)
        window, stride, pads, clauses = self.window_spec(v.shape)
        n = int(np.prod(window))
        lo, hi = (min(v.lo * n, v.lo, 0.0), max(v.hi * n, v.hi, 0.0)) if kind == "sum" else (v.lo, v.hi)
        if kind == "sum" and max(abs(lo), abs(hi)) > CAP:
            v = self.unary("tanh", v, force=True)
            lo, hi = -n, n
        shape = windows(np.zeros(v.shape), window, stride, pads, 0.0).shape[:len(window)]
        out = self.new("t", shape, v.dt, lo, hi)
        text = f"{out.name} = tensor.reduce_window_{kind} {v.name} {clauses} : {v.type} -> {out.type}"
        return self.add([out], text, lambda env, x=v.name, spec=(window, stride, pads), dt=v.dt:
                        [reduce_window_model(kind, *env[x], *spec, dt)], f"tensor.reduce_window_{kind}")

    def window_route(self, x, scatter):
        """tensor.window_max_select / window_max_scatter (reduce_window_max's derivatives)
        over a tie-broken ``x``."""
        x = self.tie_break(x)
        window, stride, pads, clauses = self.window_spec(x.shape)
        pooled = windows(np.zeros(x.shape), window, stride, pads, 0.0).shape[:len(window)]
        v = self.need(pooled if scatter else x.shape, x.dt)
        n = int(np.prod(window))
        if scatter and n * v.mag > CAP:
            v = self.bounded(v, 1.0)
        lo, hi = (min(n * v.lo, 0.0), max(n * v.hi, 0.0)) if scatter else (v.lo, v.hi)
        out = self.new("t", x.shape if scatter else pooled, x.dt, lo, hi)
        op = "window_max_scatter" if scatter else "window_max_select"
        text = f"{out.name} = tensor.{op} {x.name}, {v.name} {clauses} : ({x.type}, {v.type}) -> {out.type}"
        return self.add([out], text, lambda env, a=x.name, b=v.name, spec=(window, stride, pads), dt=x.dt:
                        [window_route_model(scatter, *env[a], *env[b], *spec, dt)], f"tensor.{op}")

    def generate_op(self):
        """tensor.generate: element (i, ...) = i * s, s a scalar (a constant in gradient
        programs: ad does not differentiate through the body)."""
        dt = choice(self.r, self.dts())
        shape = tuple(self.r.int(1, 4) for _ in range(self.r.int(1, 3)))
        s = self.scalar_const(dt) if self.mode == "grad" else self.bounded(self.need_scalar(dt), 10.0)
        b = self.fresh("g")[1:]
        args = ", ".join(f"%{b}_{i}: index" for i in range(len(shape)))
        out = self.new("t", shape, dt, min(0.0, (shape[0] - 1) * s.lo), max(0.0, (shape[0] - 1) * s.hi))
        text = (f"{out.name} = tensor.generate {{\n  ^bb0({args}):\n"
                f"    %{b}_k = arith.index_cast %{b}_0 : index to i64\n"
                f"    %{b}_f = arith.sitofp %{b}_k : i64 to {dt}\n"
                f"    %{b}_y = arith.mulf %{b}_f, {s.name} : {dt}\n"
                f"    tensor.yield %{b}_y : {dt}\n  }} : {out.type}")

        def fn(env, x=s.name):
            sv, se = env[x]
            i = np.broadcast_to(np.arange(shape[0]).reshape(-1, *[1] * (len(shape) - 1)), shape).astype(NP[dt])
            # i * s: one correctly rounded product of an exact i
            return [binary_model("mul", i, np.zeros(shape), np.full(shape, sv), np.full(shape, float(se)), dt)]

        self.tags["tensor.yield"] += 1
        return self.add([out], text, fn, "tensor.generate")

    def coords(self, shape, dims, batch, unique=False):
        """i64 coordinates along ``dims`` of ``shape``, in range; ``batch`` positions."""
        nb = int(np.prod(batch))
        space = list(np.ndindex(*[shape[d] for d in dims]))
        if unique:
            nb = min(nb, len(space))
            picks = _sample(self.r, space, nb)
            batch = (nb,)
        else:
            picks = [space[self.r.int(0, len(space) - 1)] for _ in range(nb)]
        return self.int_const(np.array(picks, dtype=np.int64).reshape(*batch, len(dims)))

    def gather(self, src):
        dims = sorted(_sample(self.r, list(range(len(src.shape))), self.r.int(1, min(2, len(src.shape)))))
        batch = tuple(self.r.int(1, 3) for _ in range(self.r.int(1, 2)))
        idx = self.coords(src.shape, dims, batch)
        reduced = self.r.coin(0.5)
        rest = [1 if d in dims else s for d, s in enumerate(src.shape)]
        shape = (*batch, *[s for d, s in enumerate(src.shape) if d not in dims]) if reduced else (*batch, *rest)
        out = self.new("t", shape, src.dt, src.lo, src.hi)
        text = (f"{out.name} = tensor.gather {src.name}[{idx.name}] gather_dims({dims}) : "
                f"({src.type}, {idx.type}) -> {out.type}")
        return self.add([out], text, lambda env, x=src.name, i=idx.name, d=tuple(dims), sh=shape:
                        [gather_model(*env[x], env[i][0], d, sh)], "tensor.gather")

    def scatter(self, dest, add):
        dims = sorted(_sample(self.r, list(range(len(dest.shape))), self.r.int(1, min(2, len(dest.shape)))))
        batch = tuple(self.r.int(1, 3) for _ in range(self.r.int(1, 2)))
        idx = self.coords(dest.shape, dims, batch, unique=not add)
        batch = idx.shape[:-1]
        reduced = self.r.coin(0.5)
        rest = [s for d, s in enumerate(dest.shape) if d not in dims] if reduced else \
            [1 if d in dims else s for d, s in enumerate(dest.shape)]
        upd = self.need((*batch, *rest), dest.dt)
        if add:
            n = 1 + int(np.prod(batch))
            if n * max(upd.mag, dest.mag) > CAP:
                upd, dest = self.bounded(upd, 1.0), self.bounded(dest, 1.0)
            lo, hi = min(dest.lo, 0) + n * min(upd.lo, 0), max(dest.hi, 0) + n * max(upd.hi, 0)
        else:
            lo, hi = min(dest.lo, upd.lo), max(dest.hi, upd.hi)
        out = self.new("t", dest.shape, dest.dt, lo, hi)
        op = "scatter_add" if add else "scatter"
        text = (f"{out.name} = tensor.{op} {upd.name} into {dest.name}[{idx.name}] scatter_dims({dims})"
                f"{'' if add else ' unique'} : ({upd.type}, {dest.type}, {idx.type}) -> {out.type}")
        return self.add([out], text, lambda env, u=upd.name, d=dest.name, i=idx.name, dims=tuple(dims), dt=dest.dt:
                        [scatter_model(add, *env[u], *env[d], env[i][0], dims, dt)], f"tensor.{op}")

    def clamp(self, x):
        a, b = sorted(_sample(self.r, list(NICE), 2))
        a = -a if self.r.coin(0.5) else a
        lo = self.tensor_const(x.shape, x.dt, a)
        # bounds from the program in differential programs only: a gradient needs lo <= hi
        # (where lo > hi, clamp is hi but SPEC routes the cotangent by lo <= x <= hi)
        diff = self.mode != "grad" and self.r.coin(0.5)
        hi = self.need(x.shape, x.dt) if diff else self.tensor_const(x.shape, x.dt, b)
        out = self.new("t", x.shape, x.dt, min(lo.lo, hi.lo), max(x.hi, hi.hi))
        return self.add([out], f"{out.name} = tensor.clamp {lo.name}, {x.name}, {hi.name} : {x.type}",
                        lambda env, l=lo.name, y=x.name, h=hi.name: [clamp_model(*env[l], *env[y], *env[h])],
                        "tensor.clamp")

    def iota(self):
        dt = choice(self.r, self.dts())
        shape = tuple(self.r.int(1, 4) for _ in range(self.r.int(1, 3)))
        d = self.r.int(0, len(shape) - 1)
        out = self.new("t", shape, dt, 0.0, float(shape[d] - 1))
        arr = np.broadcast_to(np.arange(shape[d]).reshape([-1 if i == d else 1 for i in range(len(shape))]), shape)
        return self.add([out], f"{out.name} = tensor.iota [{d}] : {out.type}",
                        lambda env, arr=arr.astype(NP[dt]): [(arr.copy(), np.zeros(arr.shape))], "tensor.iota")

    def reverse(self, v):
        dims = sorted(_sample(self.r, list(range(len(v.shape))), self.r.int(1, len(v.shape))))
        out = self.new("t", v.shape, v.dt, v.lo, v.hi)
        return self.add([out], f"{out.name} = tensor.reverse {v.name} {dims} : {v.type}",
                        lambda env, x=v.name, d=tuple(dims): [(np.flip(env[x][0], d).copy(),
                                                              np.flip(_f64(env[x][1]), d).copy())], "tensor.reverse")

    def concat(self, a):
        d = self.r.int(0, len(a.shape) - 1)
        shape = list(a.shape)
        shape[d] = self.r.int(1, 3)
        b = self.need(tuple(shape), a.dt)
        shape[d] += a.shape[d]
        out = self.new("t", shape, a.dt, min(a.lo, b.lo), max(a.hi, b.hi))
        return self.add([out], f"{out.name} = tensor.concat dim({d}) {a.name}, {b.name} : ({a.type}, {b.type}) -> {out.type}",
                        lambda env, x=a.name, y=b.name, d=d: [tuple(np.concatenate([_f64(env[x][k]), _f64(env[y][k])], d)
                                                                    .astype(NP[a.dt] if k == 0 else np.float64) for k in (0, 1))],
                        "tensor.concat")

    def pad(self, v):
        pads = [(self.r.int(0, 2), self.r.int(0, 2)) for _ in v.shape]
        p = self.need_scalar(v.dt)
        shape = tuple(s + lo + hi for s, (lo, hi) in zip(v.shape, pads))
        out = self.new("t", shape, v.dt, min(v.lo, p.lo), max(v.hi, p.hi))
        args = ", ".join(f"%{out.name[1:]}_{i}: index" for i in range(len(shape)))
        text = (f"{out.name} = tensor.pad {v.name} low{[lo for lo, _ in pads]} high{[hi for _, hi in pads]} {{\n"
                f"  ^bb0({args}):\n    tensor.yield {p.name} : {v.dt}\n  }} : {v.type} to {out.type}")

        def fn(env, x=v.name, q=p.name):
            (xv, xe), (pv, pe) = env[x], env[q]
            return [(np.pad(xv, pads, constant_values=pv), np.pad(_f64(xe), pads, constant_values=float(pe)))]

        self.tags["tensor.yield"] += 1
        return self.add([out], text, fn, "tensor.pad")

    def insert(self, t):
        s = self.need_scalar(t.dt)
        idx = [self.index_const(self.r.int(0, d - 1)) for d in t.shape]
        out = self.new("t", t.shape, t.dt, min(t.lo, s.lo), max(t.hi, s.hi))

        def fn(env, x=t.name, y=s.name, idx=tuple(i.name for i in idx)):
            (tv, te), (sv, se) = env[x], env[y]
            k = tuple(int(env[i][0]) for i in idx)
            tv, te = tv.copy(), _f64(te).copy()
            tv[k], te[k] = sv, se
            return [(tv, te)]

        return self.add([out], f"{out.name} = tensor.insert {s.name} into {t.name}[{', '.join(i.name for i in idx)}] : {t.type}",
                        fn, "tensor.insert")

    def arg_reduce(self, v, kind):
        """tensor.argmax/argmin, its i64 result converted back to floats."""
        d = self.r.int(0, len(v.shape) - 1)
        shape = tuple(s for i, s in enumerate(v.shape) if i != d)
        k = V(self.fresh("k"), "n", shape)
        self.add([k], f"{k.name} = tensor.arg{kind} {v.name} [{d}] : {v.type} -> {k.type}",
                 lambda env, x=v.name, d=d: [arg_model(kind, *env[x], d)], f"tensor.arg{kind}")
        out = self.new("t", shape, v.dt, 0.0, float(v.shape[d] - 1))
        return self.add([out], f"{out.name} = tensor.convert {k.name} : {k.type} -> {out.type}",
                        lambda env, x=k.name, dt=v.dt: [(env[x][0].astype(NP[dt]), _f64(env[x][1]))], "tensor.convert")

    def logical(self, m):
        """An i1 tensor op on a mask (and a second mask of its shape)."""
        name = choice(self.r, ("and", "or", "xor", "not"))
        out = V(self.fresh("m"), "m", m.shape, m.dt)
        if name == "not":
            return self.add([out], f"{out.name} = tensor.not {m.name} : {m.type}",
                            lambda env, x=m.name: [logical_model("not", *env[x])], "tensor.not")
        others = [w for w in self.pool if w.kind == "m" and w.shape == m.shape and w is not m]
        if others:
            n = self.pick(others)
        else:
            a = self.need(m.shape, m.dt)
            n = self.compare(a, self.need(m.shape, m.dt, avoid=a))
        return self.add([out], f"{out.name} = tensor.{name} {m.name}, {n.name} : {m.type}",
                        lambda env, x=m.name, y=n.name: [logical_model(name, *env[x], *env[y])], f"tensor.{name}")

    # ------------------------------------------------------------- control flow
    def region(self, fn):
        """Run ``fn`` in a nested scope; returns (statements, fn's value)."""
        saved = (self.cur, list(self.pool), self.depth)
        self.cur, self.depth = [], self.depth + 1
        try:
            val = fn()
            return self.cur, val
        finally:
            self.cur, self.pool, self.depth = saved[0], saved[1], saved[2]

    def squash_into(self, v, lo, hi):
        """``v`` or ``tanh(v)`` so that the value lies in [lo, hi] (which contains [-1, 1])."""
        if v.lo >= lo and v.hi <= hi:
            return v
        return self.unary("tanh", v, force=True)

    def carried(self):
        cands = self.floats("t") + self.floats("s")
        k = self.r.int(1, 2)
        out = []
        for _ in range(k):
            if cands and self.r.coin(0.85):
                v = self.pick(cands)
            else:
                v = self.scalar_const(choice(self.r, self.dts()))
            if v not in out:
                out.append(v)
        return out

    def loop_for(self):
        inits = self.carried()
        ub = self.r.int(1, 4)
        step = 2 if self.r.coin(0.2) else 1
        consts = (self.index_const(0), self.index_const(ub), self.index_const(step))
        iv = V(self.fresh("i"), "i")
        args = [V(self.fresh("a"), v.kind, v.shape, v.dt, min(v.lo, -1.0), max(v.hi, 1.0)) for v in inits]
        last = ((ub - 1) // step) * step

        def body():
            self.pool.extend(args)
            self.loop_args.update(a.name for a in args)
            self.pool.append(iv)
            self.ivs.append((iv, last))
            try:
                if self.r.coin(0.3):
                    self.iv_float()
                self.stmts(self.r.int(1, 3))
                ys = []
                for a in args:
                    cands = [v for v in self.pool if v.kind == a.kind and v.shape == a.shape and v.dt == a.dt
                             and v is not a]
                    y = self.pick(cands) if cands and self.r.coin(0.8) else a
                    once = ub <= step and "for-once-forwarding" in KNOWN_BUGS
                    if (y is a and (once or self.r.coin(0.7))) or (
                            y.name in self.loop_args and "loop-yields-block-arg" in KNOWN_BUGS):
                        y = self.unary(choice(self.r, ("tanh", "sin")), y, force=True)
                    ys.append(self.squash_into(y, a.lo, a.hi))
                return ys
            finally:
                self.ivs.pop()

        attrs = ""
        nested = self.in_ckpt and "nested-checkpoint" in KNOWN_BUGS
        if self.mode == "grad" and not nested and self.r.coin(0.25):
            attrs = choice(self.r, ('{autodiff.checkpoint = "sqrt"}', "{autodiff.checkpoint = 1}",
                                    "{autodiff.checkpoint = 2}", "{autodiff.checkpoint = 3}"))
            self.tags["checkpoint"] += 1
        self.in_for += 1
        self.in_ckpt += bool(attrs)
        try:
            stmts, ys = self.region(body)
        finally:
            self.in_for -= 1
            self.in_ckpt -= bool(attrs)
        base = self.fresh("r")
        results = [V(n, a.kind, a.shape, a.dt, a.lo, a.hi) for n, a in zip(_res_names(base, len(args)), args)]
        self.cur.append(For(results, base, iv, ub, step, args, inits, stmts, ys,
                            tuple(c.name for c in consts), attrs))
        self.tags["loop.for"] += 1
        self.pool.extend(results)
        return results[-1]

    def condition(self):
        """An i1 from a float compare (or an induction variable compare)."""
        if self.ivs and self.r.coin(0.3):
            iv, mx = choice(self.r, self.ivs)
            c = self.index_const(self.r.int(0, mx + 1))
            b = V(self.fresh("b"), "b")
            self.add([b], f"{b.name} = arith.cmpi ult, {iv.name}, {c.name} : index",
                     lambda env, x=iv.name, y=c.name: [(np.bool_(env[x][0] < env[y][0]), 0.0)], "arith.cmpi")
            return b
        dt = choice(self.r, self.dts())
        x = self.need_scalar(dt)
        y = self.need_scalar(dt) if self.r.coin(0.5) else self.scalar_const(dt)
        if y is x:
            y = self.scalar_const(dt)
        pred = choice(self.r, tuple(CMPF))
        b = V(self.fresh("b"), "b")

        def fn(env, f=CMPF[pred], p=x.name, q=y.name, b=b.name):
            (xv, xe), (yv, ye) = env[p], env[q]
            env[b + "!margin"] = float(abs(_f64(xv) - _f64(yv)))
            return [cmp_model(f, xv, xe, yv, ye)]

        self.add([b], f"{b.name} = arith.cmpf {pred}, {x.name}, {y.name} : {dt}", fn, "arith.cmpf")
        return b

    def loop_if(self):
        cond = self.condition()
        outs = []
        for _ in range(self.r.int(1, 2)):
            cands = self.floats("t") + self.floats("s")
            v = self.pick(cands) if cands else self.scalar_const(choice(self.r, self.dts()))
            outs.append((v.kind, v.shape, v.dt))

        def branch():
            self.stmts(self.r.int(0, 2))
            ys = []
            for kind, shape, dt in outs:
                ys.append(self.need(shape, dt) if kind == "t" else self.need_scalar(dt))
            return ys

        ts, ty = self.region(branch)
        es, ey = self.region(branch)
        base = self.fresh("r")
        results = [V(n, k, sh, dt, min(a.lo, b.lo), max(a.hi, b.hi))
                   for n, (k, sh, dt), a, b in zip(_res_names(base, len(outs)), outs, ty, ey)]
        self.cur.append(If(results, base, cond, ts, ty, es, ey))
        self.tags["loop.if"] += 1
        self.pool.extend(results)
        return results[-1]

    def loop_while(self):
        inits = self.carried()
        limit = self.r.int(0, 4)
        c0 = self.index_const(0)
        cl = self.index_const(limit)
        c1 = self.index_const(1)
        kinds = [(v.kind, v.shape, v.dt, min(v.lo, -1.0), max(v.hi, 1.0)) for v in inits]
        bargs = [V(self.fresh("w"), "i")] + [V(self.fresh("w"), *k) for k in kinds]
        aargs = [V(self.fresh("x"), "i")] + [V(self.fresh("x"), *k) for k in kinds]
        float_cond = self.mode != "grad" and self.r.coin(0.3)

        def before():
            self.pool.extend(bargs)
            b = V(self.fresh("b"), "b")
            self.add([b], f"{b.name} = arith.cmpi ult, {bargs[0].name}, {cl.name} : index",
                     lambda env, x=bargs[0].name, y=cl.name: [(np.bool_(env[x][0] < env[y][0]), 0.0)], "arith.cmpi")
            if float_cond:
                f = self.condition()
                b2 = V(self.fresh("b"), "b")
                self.add([b2], f"{b2.name} = arith.andi {b.name}, {f.name} : i1",
                         lambda env, x=b.name, y=f.name: [(np.bool_(env[x][0] and env[y][0]),
                                                           float(env[y][1]) if env[x][0] else 0.0)], "arith.andi")
                b = b2
            return b

        def after():
            self.pool.extend(aargs)
            self.loop_args.update(a.name for a in aargs)
            self.stmts(self.r.int(1, 2))
            n = V(self.fresh("n"), "i")
            self.add([n], f"{n.name} = arith.addi {aargs[0].name}, {c1.name} : index",
                     lambda env, x=aargs[0].name: [(np.int64(env[x][0] + 1), 0.0)], "arith.addi")
            ys = [n]
            for a in aargs[1:]:
                cands = [v for v in self.pool if v.kind == a.kind and v.shape == a.shape and v.dt == a.dt
                         and v is not a]
                y = self.pick(cands) if cands and self.r.coin(0.8) else self.unary("tanh", a, force=True)
                if y.name in self.loop_args and "loop-yields-block-arg" in KNOWN_BUGS:
                    y = self.unary("tanh", y, force=True)
                ys.append(self.squash_into(y, a.lo, a.hi))
            return ys

        bs, cond = self.region(before)
        self.in_while += 1
        try:
            as_, ys = self.region(after)
        finally:
            self.in_while -= 1
        base = self.fresh("r")
        results = [V(n, a.kind, a.shape, a.dt, a.lo, a.hi) for n, a in zip(_res_names(base, len(bargs)), bargs)]
        self.cur.append(While(results, base, [c0] + inits, bargs, bs, cond, aargs, as_, ys, limit))
        self.tags["loop.while"] += 1
        self.pool.extend(results)
        return results[-1]

    # ------------------------------------------------------------- statements
    def stmt(self):
        diff = self.mode != "grad"
        kinds = ["unary", "binary", "broadcast", "reduce_sum", "matmul", "transpose", "extract_slice",
                 "insert_slice", "scalar", "for", "if", "while", "reshape", *["structural"] * 5]
        if diff:
            kinds += ["select", "reduce_max", "convert"]
        k = choice(self.r, kinds)
        ts = self.floats()
        if k in ("for", "if", "while") and self.depth >= self.max_depth:
            k = "unary"
        if k == "while" and self.in_for and not diff and "while-in-for-grad" in KNOWN_BUGS:
            k = "if"
        if k in ("for", "if", "while") and self.in_while and not diff and "if-in-while-grad" in KNOWN_BUGS:
            k = "unary"
        if k == "unary":
            return self.unary(choice(self.r, UNARY if diff else SMOOTH_UNARY), self.pick(ts))
        if k == "binary":
            return self.binary(choice(self.r, BINARY if diff else SMOOTH_BINARY), self.pick(ts))
        if k == "select":
            return self.cmp_select()
        if k == "broadcast":
            small = [v for v in ts if len(v.shape) < 3]
            return self.broadcast(self.pick(small)) if small else self.scalar_chain()
        if k in ("reduce_sum", "reduce_max"):
            ranked = [v for v in ts if v.shape]
            return self.reduce(self.pick(ranked), k[7:]) if ranked else self.scalar_chain()
        if k == "matmul":
            two = [v for v in ts if len(v.shape) == 2]
            if not two:
                src = self.pick(ts)
                if len(src.shape) > 2:
                    src = self.reduce(src, "sum") if self.r.coin(0.5) else self.extract_slice(src)
                two = [v for v in self.floats() if len(v.shape) == 2] or [self.need((self.r.int(1, 3), self.r.int(1, 3)), src.dt)]
            return self.matmul(self.pick(two))
        if k == "transpose":
            ranked = [v for v in ts if len(v.shape) >= 2]
            return self.transpose(self.pick(ranked)) if ranked else self.unary("neg", self.pick(ts))
        if k == "extract_slice":
            ranked = [v for v in ts if v.shape]
            return self.extract_slice(self.pick(ranked)) if ranked else self.scalar_chain()
        if k == "insert_slice":
            ranked = [v for v in ts if v.shape]
            return self.insert_slice(self.pick(ranked)) if ranked else self.scalar_chain()
        if k == "convert":
            v = self.pick(ts)
            return self.convert(v, "f32" if v.dt == "f64" else "f64")
        if k == "scalar":
            return self.scalar_chain() if self.r.coin(0.8) else self.from_elements(choice(self.r, self.dts()))
        if k == "reshape":
            return self.reshape(self.pick(ts))
        if k == "structural":
            return self.structural(choice(self.r, STRUCTURAL + (STRUCTURAL_DIFF if diff else ())), ts)
        if k == "for":
            return self.loop_for()
        if k == "if":
            return self.loop_if()
        return self.loop_while()

    def structural(self, k, ts):
        """A statement of one of the SPEC 3.1 ops (``STRUCTURAL``)."""
        ranked = [v for v in ts if v.shape]
        if k == "conv":
            return self.conv()
        if k == "iota":
            return self.iota()
        if k == "generate":
            return self.generate_op()
        if not ranked:
            return self.scalar_chain()
        v = self.pick(ranked)
        if k == "dot":
            return self.dot(v)
        if k in ("reduce_window_sum", "reduce_window_max"):
            return self.reduce_window(v, k[14:])
        if k == "gather":
            return self.gather(v)
        if k in ("scatter", "scatter_add"):
            return self.scatter(v, k == "scatter_add")
        if k in ("reduce_min", "reduce_prod"):
            return self.reduce(v, k[7:])
        if k in ("argmax", "argmin"):
            return self.arg_reduce(v, k[3:])
        if k in ("window_max_select", "window_max_scatter"):
            return self.window_route(v, k.endswith("scatter"))
        return getattr(self, k)(v)  # clamp, reverse, concat, pad, insert

    def stmts(self, n):
        for _ in range(n):
            self.stmt()

    def params(self):
        ps = []
        for i in range(self.r.int(1, 3)):
            dt = choice(self.r, self.dts())
            if self.r.coin(0.15):
                ps.append(V(f"%arg{i}", "s", (), dt, -2.0, 2.0))
            else:
                rank = self.r.int(0, 3)
                ps.append(V(f"%arg{i}", "t", tuple(self.r.int(1, 4) for _ in range(rank)), dt, -2.0, 2.0))
        if not any(p.kind == "t" for p in ps):
            ps.append(V(f"%arg{len(ps)}", "t", (self.r.int(1, 4),), ps[0].dt, -2.0, 2.0))
        return ps

    def program(self) -> Program:
        params = self.params()
        self.pool = list(params)
        self.stmts(self.r.int(1, self.max_stmts))
        if self.mode == "grad":
            results = [self.loss()]
        else:
            cands = [v for v in self.pool if v.kind in "ts"]
            results = [cands[-1]]
            for _ in range(self.r.int(0, 2)):
                v = self.pick(cands)
                if v not in results:
                    results.append(v)
            if self.r.coin(0.1):
                idx = [v for v in self.pool if v.kind == "i" and v.name.startswith("%r")]
                if idx:
                    results.append(idx[-1])
        return self.build(params, results)

    def build(self, params, results) -> Program:
        """The program of the statements generated so far, returning ``results``."""
        lines = []
        for s in self.cur:
            s.emit(lines, 2)
        sig = ", ".join(f"{p.name}: {p.type}" for p in params)
        rts = ", ".join(r.type for r in results)
        text = (f"func.func @{self.fname}({sig}) -> ({rts}) {{\n" + "\n".join(lines) + "\n"
                f"  func.return {', '.join(r.name for r in results)} : {rts}\n}}\n")
        return Program(self.fname, params, results, self.cur, text, self.mode, self.tags)

    def loss(self):
        """A scalar f64 from 1-2 recent values: sums of their elements, added."""
        cands = [v for v in self.pool if v.kind in "ts"]
        picks = [cands[-1]]
        if len(cands) > 1 and self.r.coin(0.5):
            v = self.pick(cands)
            if v is not picks[0]:
                picks.append(v)
        total = None
        for v in picks:
            if v.kind == "t":
                if v.shape:
                    v = self.reduce_all(v)
                v = self.extract(v)
            total = v if total is None else self.binary("add", total, v, force=True)
        return total

    def reduce_all(self, v):
        dims = list(range(len(v.shape)))
        n = int(np.prod(v.shape))
        out = self.new("t", (), v.dt, v.lo * n, v.hi * n)
        text = f"{out.name} = tensor.reduce_sum {v.name} {dims} : {v.type} -> {out.type}"
        return self.add([out], text, lambda env, x=v.name, ax=tuple(dims), dt=v.dt: [reduce_sum_model(*env[x], ax, dt)],
                        "tensor.reduce_sum")


# --------------------------------------------------------------------------- helpers


def _pow(x, y):
    try:
        return math.pow(max(x, 1e-300), y)
    except OverflowError:
        return math.inf


def _sample(r, xs, k):
    xs = list(xs)
    out = []
    for _ in range(k):
        out.append(xs.pop(r.int(0, len(xs) - 1)))
    return out


def _embed(src, dst):
    """Broadcast dims mapping ``src`` into ``dst`` (equal sizes, or size 1), increasing; or None."""
    dims, j = [], 0
    for d in src:
        while j < len(dst) and not (dst[j] == d or d == 1):
            j += 1
        if j == len(dst):
            return None
        dims.append(j)
        j += 1
    return dims


def _dense(a):
    if a.ndim == 0:
        return repr(float(a))
    return "[" + ", ".join(_dense(x) for x in a) + "]"


def _offs(offs):
    return ", ".join(o.name if isinstance(o, V) else str(o) for o in offs)


def _slices(env, offs, sizes, strides):
    out = []
    for o, s, st in zip(offs, sizes, strides):
        o = int(env[o.name][0]) if isinstance(o, V) else o
        out.append(slice(o, o + (s - 1) * st + 1, st))
    return tuple(out)


def registered_tensor_ops() -> list[str]:
    """Every op the `tensor` dialect registers."""
    from irtoolkit.dialects import tensor

    return sorted(c.name for c in tensor.Tensor.operations)


def generate(r, mode="diff", name="p", **kw) -> Program:
    return Gen(r, mode, name, **kw).program()


def strategy(mode="diff", name="p", **kw):
    """A hypothesis strategy of Programs (each choice shrinks towards simpler programs)."""
    from hypothesis import strategies as st

    @st.composite
    def programs(draw):
        return generate(HypothesisChooser(draw), mode, name, **kw)

    return programs()
