"""The SPEC §3.1 ops dot, reduce_min, reduce_prod, argmax, argmin, iota and reverse:
interpreter vs numpy, compiled (BLAS gemm and loop nests; reductions fused and
unfused) vs numpy.

f32 and f64; static, dynamic, size-0 and size-1 shapes; NaN and ties for the
extremes. All cases of one element type are packed into one module per
pipeline, compiled once.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numcheck import Pack, check  # noqa: E402

RNG = np.random.default_rng(20261201)
DTYPES = {"f32": np.float32, "f64": np.float64}
PIPELINES = {"blas": None, "loops": "ad,lower-to-llvm{blas=false}"}

# name: (lhs type, rhs type, clauses, result type, einsum, [(lhs shape, rhs shape)])
# (sizes chosen so that bmm, heads, transposed, gather_t and the dynamic ones call
# BLAS by default, the others stay loop nests)
DOTS = {
    "bmm": ("8x64x32", "8x32x16", "batch [0] x [0] contract [2] x [1]", "8x64x16", "bmk,bkn->bmn", None),
    "heads": ("2x32x4x8", "2x32x4x8", "batch [0, 2] x [0, 2] contract [3] x [3]", "2x4x32x32",
              "bshd,bthd->bhst", None),
    "transposed": ("40x30", "20x40", "contract [0] x [1]", "30x20", "km,nk->mn", None),
    "gather_t": ("12x16x5", "5x8x12", "batch [2] x [0] contract [0] x [2]", "5x16x8", "kmb,bnk->bmn", None),
    "dyn": ("?x5x?", "?x?x3", "batch [0] x [0] contract [2] x [1]", "?x5x3", "bmk,bkn->bmn",
            [((3, 5, 7), (3, 7, 3)), ((0, 5, 7), (0, 7, 3)), ((2, 5, 0), (2, 0, 3)), ((1, 5, 1), (1, 1, 3))]),
    "vecmat": ("?", "?x6", "contract [0] x [0]", "6", "k,kn->n", [((5,), (5, 6)), ((0,), (0, 6)), ((1,), (1, 6))]),
    "outer": ("3", "4", "", "3x4", "m,n->mn", None),
    "full": ("3x4", "3x4", "contract [0, 1] x [0, 1]", "", "ij,ij->", None),
    "batch_only": ("3x2", "2x3", "batch [1, 0] x [0, 1]", "2x3", "ab,ba->ba", None),
    "small": ("2x4x3", "2x3x4", "batch [0] x [0] contract [2] x [1]", "2x4x4", "bmk,bkn->bmn", None),
}


def _t(dims: str, T: str) -> str:
    return f"tensor<{dims}x{T}>" if dims else f"tensor<{T}>"


def _shape(dims: str) -> tuple:
    return tuple(int(d) for d in dims.split("x")) if dims else ()


class Case:
    def __init__(self, name, text, args, ref, tol):
        self.name, self.text, self.args, self.ref, self.tol = name, text, args, ref, tol


def _dot_ref(spec, dt):
    return lambda a, b: np.einsum(spec, a.astype(np.float64), b.astype(np.float64)).astype(dt)


def _dot_scale(spec):
    return lambda a, b: np.einsum(spec, np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))


def _arg_ref(fn, axis):
    def ref(x):
        if x.shape[axis] == 0:
            return np.zeros(x.shape[:axis] + x.shape[axis + 1:], dtype=np.int64)
        return fn(x, axis=axis).astype(np.int64)
    return ref


def cases(T: str) -> list[Case]:
    dt = DTYPES[T]
    out: list[Case] = []

    def add(name, text, args, ref, tol="exact"):
        out.append(Case(name, text.replace("{T}", T).replace("@F", "@" + name), args, ref, tol))

    for name, (lt, rt, clauses, ot, spec, shapes) in DOTS.items():
        shapes = shapes or [(_shape(lt), _shape(rt))]
        args = [(RNG.uniform(-2, 2, s).astype(dt), RNG.uniform(-2, 2, r).astype(dt)) for s, r in shapes]
        L, R, O = _t(lt, "{T}"), _t(rt, "{T}"), _t(ot, "{T}")
        add(f"dot_{name}", f"""func.func @F(%a: {L}, %b: {R}) -> {O} {{
  %c = tensor.dot %a, %b {clauses} : ({L}, {R}) -> {O}
  return %c : {O}
}}""", args, _dot_ref(spec, dt), ("reduce", 8, _dot_scale(spec)))

    # reductions: alone (a kernel of one) and fused with an elementwise producer
    special = np.array([[1.5, np.nan, -2.0, 0.0], [3.0, -1.0, -1.0, 2.0], [0.5, 0.25, -0.0, 4.0]], dtype=dt)
    red_args = [(special,), (RNG.uniform(-2, 2, (5, 4)).astype(dt),), (np.zeros((0, 4), dt),),
                (np.ones((1, 4), dt),)]
    prod_args = [(RNG.uniform(0.5, 1.5, (5, 4)).astype(dt),), (np.zeros((0, 4), dt),),
                 (np.array([[0.0, 2.0, -3.0, 0.5]], dt),)]
    for op, fn, args in (("reduce_min", np.min, red_args), ("reduce_prod", np.prod, prod_args)):
        for dims in ([0], [1], [0, 1]):
            kept = "" if dims == [0, 1] else ("4" if dims == [0] else "?")
            axes = tuple(dims)
            ref = (lambda fn, axes: lambda x: np.asarray(
                fn(x.astype(np.float64), axis=axes, **({"initial": np.inf} if fn is np.min else {}))).astype(dt))(fn, axes)
            add(f"{op}_{'_'.join(map(str, dims))}", f"""func.func @F(%x: tensor<?x4x{{T}}>) -> {_t(kept, '{T}')} {{
  %r = tensor.{op} %x [{', '.join(map(str, dims))}] : tensor<?x4x{{T}}> -> {_t(kept, '{T}')}
  return %r : {_t(kept, '{T}')}
}}""", args, ref, ("ulps", 8))
        fref = (lambda fn: lambda x: np.asarray(
            fn(np.exp(x.astype(np.float64)), axis=1, **({"initial": np.inf} if fn is np.min else {}))).astype(dt))(fn)
        add(f"{op}_fused", f"""func.func @F(%x: tensor<?x4x{{T}}>) -> tensor<?x{{T}}> {{
  %e = tensor.exp %x : tensor<?x4x{{T}}>
  %r = tensor.{op} %e [1] : tensor<?x4x{{T}}> -> tensor<?x{{T}}>
  return %r : tensor<?x{{T}}>
}}""", args, fref, ("ulps", 16))

    # argmax / argmin: NaN is the extreme, the first of ties wins
    ties = np.array([[1.0, 3.0, 3.0, -1.0, 0.0], [np.nan, 2.0, np.nan, 5.0, 5.0], [-4.0, -4.0, -4.0, -4.0, -4.0],
                     [np.inf, -np.inf, 0.0, np.inf, 1.0]], dtype=dt)
    arg_args = [(ties,), (RNG.uniform(-2, 2, (3, 5)).astype(dt),), (np.zeros((0, 5), dt),), (ties[:1],)]
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        for axis in (0, 1):
            rt = "tensor<5xi64>" if axis == 0 else "tensor<?xi64>"
            add(f"{op}_{axis}", f"""func.func @F(%x: tensor<?x5x{{T}}>) -> {rt} {{
  %r = tensor.{op} %x [{axis}] : tensor<?x5x{{T}}> -> {rt}
  return %r : {rt}
}}""", arg_args, _arg_ref(fn, axis))
    ints = np.array([[3, 7, 7, -2], [-5, -5, 0, 1]], dtype=np.int32)
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        add(f"{op}_i32", f"""func.func @F(%x: tensor<2x4xi32>) -> tensor<2xi64> {{
  %r = tensor.{op} %x [1] : tensor<2x4xi32> -> tensor<2xi64>
  return %r : tensor<2xi64>
}}""", [(ints,)], _arg_ref(fn, 1))

    add("iota", """func.func @F() -> (tensor<4x3xi64>, tensor<2x5x{T}>, tensor<3xi32>) {
  %a = tensor.iota [1] : tensor<4x3xi64>
  %b = tensor.iota [0] : tensor<2x5x{T}>
  %c = tensor.iota [0] : tensor<3xi32>
  return %a, %b, %c : tensor<4x3xi64>, tensor<2x5x{T}>, tensor<3xi32>
}""", [()], lambda: (np.broadcast_to(np.arange(3), (4, 3)).astype(np.int64),
                     np.broadcast_to(np.arange(2)[:, None], (2, 5)).astype(dt), np.arange(3, dtype=np.int32)))

    rev_args = [(RNG.uniform(-2, 2, (3, 4)).astype(dt),), (np.zeros((0, 4), dt),), (special[:1],)]
    for dims in ([0], [1], [1, 0]):
        add(f"reverse_{''.join(map(str, dims))}", f"""func.func @F(%x: tensor<?x4x{{T}}>) -> tensor<?x4x{{T}}> {{
  %r = tensor.reverse %x [{', '.join(map(str, dims))}] : tensor<?x4x{{T}}>
  return %r : tensor<?x4x{{T}}>
}}""", rev_args, (lambda axes: lambda x: np.flip(x, axis=axes))(tuple(dims)))
    return out


CASES = {T: {c.name: c for c in cases(T)} for T in DTYPES}
PACKS = {(T, p): Pack({n: c.text for n, c in CASES[T].items()}, pipe)
         for T in DTYPES for p, pipe in PIPELINES.items()}
IDS = [(T, n) for T in DTYPES for n in CASES[T]]


@pytest.mark.parametrize(("T", "name"), IDS, ids=[f"{T}-{n}" for T, n in IDS])
def test_model_op(T, name):
    case = CASES[T][name]
    for args in case.args:
        want = case.ref(*args)
        what = f"{name}{[np.shape(a) for a in args]}"
        check(PACKS[(T, "blas")].interp(name, name, *args), want, case.tol, args, what + " interpreted")
        for p in PIPELINES:
            check(PACKS[(T, p)].jit(name, name, *args), want, case.tol, args, f"{what} compiled ({p})")
