"""The one place that decides whether two numeric results agree.

Used by the compiled-vs-interpreted tests (``test/lowering_e2e``) and by the
``ad`` tests when they run compiled (``test/passes/ad/adcheck.py``).

Tolerances, in units of the result dtype's machine epsilon:

* ``assert_bitexact``: same dtype, shape and bits (NaN matches NaN, -0.0 does
  not match 0.0). For results computed by the same operations in the same
  order (copies, slices, selects, compares, + - * / and sqrt, which IEEE-754
  rounds exactly).
* ``assert_ulps(got, want, ulps)``: elementwise, ``|got - want| <= ulps *
  spacing(|want|)``; for transcendental functions (libm in compiled code vs
  numpy, one ulp or so apart).
* ``assert_ulps(got, want, ulps, scale=S)``: ``|got - want| <= ulps * eps * S``
  for a reduction whose terms have ``sum |term| == S`` (another summation
  order: numpy sums pairwise, the loops sequentially), or for a whole program
  (derivative code) with ``S`` the magnitude of the values it combines.

NaN must be NaN on both sides, infinities must be equal, dtypes and shapes
must be equal (a 0-d result is a 0-d array, a scalar a numpy scalar of the
declared kind).
"""

from __future__ import annotations

import numpy as np


def _arr(x) -> np.ndarray:
    return np.asarray(x)


def _same_kind(got, want) -> None:
    g, w = _arr(got), _arr(want)
    assert g.dtype == w.dtype, f"dtype {g.dtype} != {w.dtype}"
    assert g.shape == w.shape, f"shape {g.shape} != {w.shape}"


def assert_bitexact(got, want, what: str = "", zero_sign: bool = True) -> None:
    """Equal bits (``zero_sign=False``: but 0.0 matches -0.0)."""
    _same_kind(got, want)
    g, w = _arr(got), _arr(want)
    if g.dtype.kind == "f":
        gn, wn = np.isnan(g), np.isnan(w)
        same = (gn & wn) | ((g == w) & ((np.signbit(g) == np.signbit(w)) | (not zero_sign)))
    else:
        same = g == w
    if not np.all(same):
        bad = np.argwhere(~np.asarray(same))[:5]
        raise AssertionError(f"{what}: not bit-exact at {bad.tolist()}:\n got {g!r}\nwant {w!r}")


def assert_ulps(got, want, ulps: float = 4, scale=None, what: str = "") -> None:
    _same_kind(got, want)
    g, w = _arr(got), _arr(want)
    if g.dtype.kind != "f":
        assert_bitexact(got, want, what)
        return
    gn, wn = np.isnan(g), np.isnan(w)
    if not np.array_equal(gn, wn):
        raise AssertionError(f"{what}: NaN positions differ:\n got {g!r}\nwant {w!r}")
    gi, wi = np.isinf(g), np.isinf(w)
    if (gi | wi).any() and not np.array_equal(g[gi | wi], w[gi | wi]):
        raise AssertionError(f"{what}: infinities differ:\n got {g!r}\nwant {w!r}")
    finite = ~(gn | gi | wi)
    if scale is None:
        tol = ulps * np.spacing(np.abs(w).astype(w.dtype))
    else:
        s = np.broadcast_to(np.asarray(scale, dtype=np.float64), w.shape)
        tol = ulps * float(np.finfo(w.dtype).eps) * s + ulps * float(np.finfo(w.dtype).tiny)
    with np.errstate(all="ignore"):
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
    bad = finite & ~(err <= tol)
    if np.any(bad):
        idx = np.argwhere(np.asarray(bad))[:5].tolist()
        raise AssertionError(
            f"{what}: more than {ulps} ulps apart at {idx} "
            f"(max err {float(np.max(err[bad])):.3g}, tol {float(np.min(np.broadcast_to(tol, w.shape)[bad])):.3g}):"
            f"\n got {g!r}\nwant {w!r}")


def sum_abs(x, axes) -> np.ndarray:
    """``sum |x|`` over ``axes`` in float64: the scale of a reduction's rounding error."""
    return np.sum(np.abs(np.asarray(x, dtype=np.float64)), axis=tuple(axes))


def magnitude(*values) -> float:
    """The largest |element| of any of ``values`` (at least 1): a program-wide scale."""
    m = 1.0
    for v in values:
        a = np.asarray(v, dtype=np.float64)
        if a.size:
            fin = a[np.isfinite(a)]
            if fin.size:
                m = max(m, float(np.max(np.abs(fin))))
    return m


def as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


# --------------------------------------------------------------------------- packed modules


class Pack:
    """Many small programs (``{case name: module text}``, symbols disjoint)
    compiled as one module, once, on first use. If the pack does not compile,
    ``exe_for(name)`` compiles that case's own text, so a failure stays with
    the case that causes it."""

    def __init__(self, texts: dict[str, str], pipeline: str | None = None):
        self.texts = dict(texts)
        self.pipeline = pipeline
        self._exe = None
        self._error: Exception | None = None
        self._single: dict[str, object] = {}
        self._modules: dict[str, object] = {}

    @property
    def text(self) -> str:
        return "\n".join(self.texts.values())

    def module(self, name: str):
        import irtoolkit as irt

        if name not in self._modules:
            self._modules[name] = irt.parse(self.texts[name], f"{name}.mlir")
        return self._modules[name]

    def exe_for(self, name: str):
        import irtoolkit as irt

        if self._exe is None and self._error is None:
            try:
                self._exe = irt.compile(irt.parse(self.text, "pack.mlir"), self.pipeline)
            except Exception as e:  # noqa: BLE001 -- reported by the case that fails alone
                self._error = e
        if self._exe is not None:
            return self._exe
        if name not in self._single:
            self._single[name] = irt.compile(self.module(name), self.pipeline)
        return self._single[name]

    def jit(self, name: str, fn: str, *args):
        return as_tuple(self.exe_for(name)[fn](*args))

    def interp(self, name: str, fn: str, *args):
        import irtoolkit as irt

        return as_tuple(irt.interpret(self.module(name), fn, *args))


def check(got, want, tol, args=(), what: str = "") -> None:
    """Compare result tuples with a tolerance spec:
    ``"exact"``, ``"exact0"`` (zero signs may differ), ``("ulps", n)`` or
    ``("reduce", n, scale_fn)`` with ``scale_fn(*args)`` one scale per result."""
    got, want = as_tuple(got), as_tuple(want)
    assert len(got) == len(want), f"{what}: {len(got)} results vs {len(want)}"
    scales = tol[2](*args) if isinstance(tol, tuple) and tol[0] == "reduce" else None
    if scales is not None and not isinstance(scales, (tuple, list)):
        scales = [scales] * len(got)
    for i, (g, w) in enumerate(zip(got, want)):
        label = f"{what} result {i}"
        if tol == "exact":
            assert_bitexact(g, w, label)
        elif tol == "exact0":
            assert_bitexact(g, w, label, zero_sign=False)
        elif tol[0] == "ulps":
            assert_ulps(g, w, tol[1], what=label)
        elif tol[0] == "reduce":
            assert_ulps(g, w, tol[1], scale=scales[i], what=label)
        else:
            raise ValueError(tol)
