"""Every `tensor` op compiled (`ad,lower-to-llvm` + JIT) vs the interpreter vs numpy.

f32 and f64; static, 0-d, 1-element and dynamic (`tensor<?x4xT>`, also with 0
rows) shapes; special values (NaN, infinities, signed zeros, subnormals).
All cases of one element type are packed into one module, compiled once.
Tolerances (``numcheck.check``): bit-exact for exact operations, a few ulps for
transcendentals, a few ulps of sum|terms| for reductions.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numcheck import Pack, check, sum_abs  # noqa: E402

RNG = np.random.default_rng(20240601)
DTYPES = {"f32": np.float32, "f64": np.float64}

EXACT, EXACT0 = "exact", "exact0"
TRANS = ("ulps", 4)  # libm vs numpy


def _t(dims: str, T: str) -> str:
    return f"tensor<{dims}x{T}>" if dims else f"tensor<{T}>"


# elementwise shapes: (type dims, runtime shapes)
SHAPES = {
    "s": ("2x3", [(2, 3)]),
    "z": ("", [()]),
    "o": ("1", [(1,)]),
    "d": ("?x4", [(3, 4), (0, 4), (1, 4)]),
}

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 1e30, -2.5]  # 1e-40: subnormal in f32

UNARY = {
    "neg": (np.negative, EXACT), "abs": (np.abs, EXACT), "sqrt": (np.sqrt, EXACT),
    "exp": (np.exp, TRANS), "log": (np.log, TRANS), "tanh": (np.tanh, TRANS),
    "sin": (np.sin, TRANS), "cos": (np.cos, TRANS),
    "logistic": (lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype), TRANS),
}
BINARY = {
    "add": (np.add, EXACT), "sub": (np.subtract, EXACT), "mul": (np.multiply, EXACT),
    "div": (np.divide, EXACT), "max": (np.maximum, EXACT0), "min": (np.minimum, EXACT0),
    "pow": (np.power, TRANS),
}
RANK0_REASSOC = ("dialects/tensor.py: the verifier rejects MLIR's empty reassociation "
                 "`collapse_shape %x [] : tensor<1x1xf32> into tensor<f32>` (and expand_shape to/from 0-d)")
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}


class Case:
    def __init__(self, name, text, args, ref, tol=EXACT, known=None):
        self.name, self.text, self.args, self.ref, self.tol = name, text, args, ref, tol
        self.known = known  # a known bug elsewhere (reason): xfail, compiled apart from the pack


def _rand(shape, dt, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dt)


def _np(fn):
    def ref(*a):
        with np.errstate(all="ignore"):
            return fn(*a)
    return ref


def cases(T: str) -> list[Case]:
    dt = DTYPES[T]
    out: list[Case] = []

    def add(name, text, args, ref, tol=EXACT, known=None):
        out.append(Case(name, text.replace("{T}", T).replace("@F", "@" + name), args, ref, tol, known))

    # -- elementwise, every shape ------------------------------------------------------
    for k, (dims, runs) in SHAPES.items():
        t = _t(dims, "{T}")
        for op, (fn, tol) in UNARY.items():
            add(f"un_{op}_{k}", f"""
func.func @F(%x: {t}) -> {t} {{
  %r = tensor.{op} %x : {t}
  return %r : {t}
}}""", [[_rand(s, dt)] for s in runs], _np(fn), tol)
        for op, (fn, tol) in BINARY.items():
            lo = 0.1 if op == "pow" else -2.0
            add(f"bin_{op}_{k}", f"""
func.func @F(%x: {t}, %y: {t}) -> {t} {{
  %r = tensor.{op} %x, %y : {t}
  return %r : {t}
}}""", [[_rand(s, dt, lo), _rand(s, dt)] for s in runs], _np(fn), tol)
        tb = _t(dims, "i1")
        add(f"cmp_select_{k}", f"""
func.func @F(%x: {t}, %y: {t}) -> ({tb}, {tb}, {tb}, {tb}, {tb}, {tb}, {t}) {{
  %0 = tensor.cmp eq, %x, %y : {t}
  %1 = tensor.cmp ne, %x, %y : {t}
  %2 = tensor.cmp lt, %x, %y : {t}
  %3 = tensor.cmp le, %x, %y : {t}
  %4 = tensor.cmp gt, %x, %y : {t}
  %5 = tensor.cmp ge, %x, %y : {t}
  %r = tensor.select %2, %x, %y : {tb}, {t}
  return %0, %1, %2, %3, %4, %5, %r : {tb}, {tb}, {tb}, {tb}, {tb}, {tb}, {t}
}}""", [[np.round(_rand(s, dt)), np.round(_rand(s, dt))] for s in runs],
            lambda x, y: (*(f(x, y) for f in CMP.values()), np.where(x < y, x, y)))

    # -- special values --------------------------------------------------------------------
    sp = np.array(SPECIAL, dtype=dt)
    t8 = "tensor<8x{T}>"
    for op, (fn, tol) in UNARY.items():
        add(f"sp_{op}", f"""
func.func @F(%x: {t8}) -> {t8} {{
  %r = tensor.{op} %x : {t8}
  return %r : {t8}
}}""", [[sp]], _np(fn), tol)
    a8 = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, np.inf, -np.inf, 2.0], dtype=dt)
    b8 = np.array([1.0, np.nan, np.nan, 0.0, -0.0, 3.0, 3.0, np.inf], dtype=dt)
    for op, (fn, tol) in BINARY.items():
        add(f"sp_{op}", f"""
func.func @F(%x: {t8}, %y: {t8}) -> {t8} {{
  %r = tensor.{op} %x, %y : {t8}
  return %r : {t8}
}}""", [[a8, b8], [sp, sp[::-1].copy()]], _np(fn), tol)
    pa = np.array([-2.0, -2.0, 0.0, np.nan, 1.0, 0.0, -0.0, 4.0], dtype=dt)
    pb = np.array([3.0, 0.5, -1.0, 0.0, np.nan, 0.0, 3.0, -0.5], dtype=dt)
    add("sp_pow_cases", """
func.func @F(%x: tensor<8x{T}>, %y: tensor<8x{T}>) -> tensor<8x{T}> {
  %r = tensor.pow %x, %y : tensor<8x{T}>
  return %r : tensor<8x{T}>
}""", [[pa, pb]], _np(np.power), TRANS)
    tb8 = "tensor<8xi1>"
    add("sp_cmp", f"""
func.func @F(%x: {t8}, %y: {t8}) -> ({tb8}, {tb8}, {tb8}, {tb8}, {tb8}, {tb8}) {{
  %0 = tensor.cmp eq, %x, %y : {t8}
  %1 = tensor.cmp ne, %x, %y : {t8}
  %2 = tensor.cmp lt, %x, %y : {t8}
  %3 = tensor.cmp le, %x, %y : {t8}
  %4 = tensor.cmp gt, %x, %y : {t8}
  %5 = tensor.cmp ge, %x, %y : {t8}
  return %0, %1, %2, %3, %4, %5 : {tb8}, {tb8}, {tb8}, {tb8}, {tb8}, {tb8}
}}""", [[a8, b8]], lambda x, y: tuple(f(x, y) for f in CMP.values()))

    # -- reductions ------------------------------------------------------------------------
    def red(name, src_t, dst_t, dims, shapes, np_fn, kind, data=None):
        fn = "reduce_sum" if kind == "sum" else "reduce_max"
        ax = tuple(dims)
        args = [[data if data is not None else _rand(s, dt)] for s in shapes]
        if kind == "sum":
            tol = ("reduce", 4, lambda x: sum_abs(x, ax))
        else:
            tol = EXACT
        add(name, f"""
func.func @F(%x: {src_t}) -> {dst_t} {{
  %r = tensor.{fn} %x [{", ".join(map(str, dims))}] : {src_t} -> {dst_t}
  return %r : {dst_t}
}}""", args, lambda x: np.asarray(np_fn(x, ax)).astype(dt), tol)

    rsum = lambda x, ax: np.sum(x, axis=ax, dtype=dt)  # noqa: E731
    rmax = lambda x, ax: np.max(x, axis=ax, initial=-np.inf)  # noqa: E731
    for kind, f in (("sum", rsum), ("max", rmax)):
        red(f"r{kind}_0", "tensor<5x3x{T}>", "tensor<3x{T}>", [0], [(5, 3)], f, kind)
        red(f"r{kind}_1", "tensor<5x3x{T}>", "tensor<5x{T}>", [1], [(5, 3)], f, kind)
        red(f"r{kind}_all", "tensor<5x3x{T}>", "tensor<{T}>", [0, 1], [(5, 3)], f, kind)
        red(f"r{kind}_mid", "tensor<2x7x3x{T}>", "tensor<2x3x{T}>", [1], [(2, 7, 3)], f, kind)
        red(f"r{kind}_one", "tensor<1x{T}>", "tensor<{T}>", [0], [(1,)], f, kind)
        red(f"r{kind}_long", "tensor<1000x{T}>", "tensor<{T}>", [0], [(1000,)], f, kind)
        red(f"r{kind}_dyn", "tensor<?x4x{T}>", "tensor<4x{T}>", [0], [(3, 4), (0, 4), (1, 4)], f, kind)
        red(f"r{kind}_dynall", "tensor<?x4x{T}>", "tensor<{T}>", [0, 1], [(3, 4), (0, 4)], f, kind)
        # leading dims, rows of >= 8: summed row by row (blocks of 512 rows past 512)
        red(f"r{kind}_rows", "tensor<6x9x{T}>", "tensor<9x{T}>", [0], [(6, 9)], f, kind)
        red(f"r{kind}_rows2", "tensor<3x4x10x{T}>", "tensor<10x{T}>", [0, 1], [(3, 4, 10)], f, kind)
        red(f"r{kind}_rowsblk", "tensor<1100x8x{T}>", "tensor<8x{T}>", [0], [(1100, 8)], f, kind)
        red(f"r{kind}_rowsdyn", "tensor<?x?x{T}>", "tensor<?x{T}>", [0],
            [(700, 12), (0, 9), (5, 0), (513, 1)], f, kind)
        # several leading dims past 512 rows: blocks of the inner dims' rows, or of
        # 512 rows of the last one; short rows of short dims (unrolled) too
        red(f"r{kind}_rowsnd", "tensor<20x30x9x{T}>", "tensor<9x{T}>", [0, 1], [(20, 30, 9)], f, kind)
        red(f"r{kind}_rowslast", "tensor<2x?x8x{T}>", "tensor<8x{T}>", [0, 1],
            [(2, 1100, 8), (2, 1024, 8), (2, 0, 8)], f, kind)
        red(f"r{kind}_short", "tensor<40x30x2x3x{T}>", "tensor<2x3x{T}>", [0, 1], [(40, 30, 2, 3)], f, kind)
        red(f"r{kind}_short1", "tensor<3x7x5x6x{T}>", "tensor<6x{T}>", [0, 1, 2], [(3, 7, 5, 6)], f, kind)
    # a fused elementwise chain summed over leading dims, row by row (blocks past 512 rows)
    for name, src_t, dst_t, dims, shapes in (
            ("fused_rows", "tensor<?x?x{T}>", "tensor<?x{T}>", [0], [(700, 12), (3, 9), (0, 8), (600, 0)]),
            ("fused_rows2", "tensor<4x3x9x{T}>", "tensor<9x{T}>", [0, 1], [(4, 3, 9)]),
            ("fused_short", "tensor<6x30x3x6x{T}>", "tensor<6x{T}>", [0, 1, 2], [(6, 30, 3, 6)])):
        ax = tuple(dims)
        add(name, f"""
func.func @F(%x: {src_t}) -> {dst_t} {{
  %t = tensor.tanh %x : {src_t}
  %m = tensor.mul %t, %x : {src_t}
  %r = tensor.reduce_sum %m [{", ".join(map(str, dims))}] : {src_t} -> {dst_t}
  return %r : {dst_t}
}}""", [[_rand(sh, dt)] for sh in shapes],
            lambda x, ax=ax: np.sum(np.tanh(x) * x, axis=ax, dtype=dt),
            ("reduce", 8, lambda x, ax=ax: sum_abs(np.tanh(x) * x, ax)))
    nanrow = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], dtype=dt)
    red("rmax_nan", "tensor<2x3x{T}>", "tensor<2x{T}>", [1], [None], rmax, "max", data=nanrow)
    red("rsum_nan", "tensor<2x3x{T}>", "tensor<3x{T}>", [0], [None], rsum, "sum", data=nanrow)

    # -- matmul ----------------------------------------------------------------------------
    def mm_scale(a, b):
        return np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))

    for name, (m, k, n), ta, tb_, tc in (
        ("mm", (2, 3, 4), "2x3", "3x4", "2x4"),
        ("mm_one", (1, 1, 1), "1x1", "1x1", "1x1"),
        ("mm_long", (3, 64, 5), "3x64", "64x5", "3x5"),
        ("mm_dyn", (5, 3, 2), "?x3", "3x2", "?x2"),
        ("mm_big", (32, 64, 16), "32x64", "64x16", "32x16"),
    ):
        add(name, f"""
func.func @F(%a: {_t(ta, "{T}")}, %b: {_t(tb_, "{T}")}) -> {_t(tc, "{T}")} {{
  %r = tensor.matmul %a, %b : ({_t(ta, "{T}")}, {_t(tb_, "{T}")}) -> {_t(tc, "{T}")}
  return %r : {_t(tc, "{T}")}
}}""", [[_rand((m, k), dt), _rand((k, n), dt)]] + ([[_rand((0, k), dt), _rand((k, n), dt)]] if "?" in ta else []),
            lambda a, b: np.matmul(a, b), ("reduce", 4, mm_scale))

    add("mm_kdyn", """
func.func @F(%a: tensor<2x?x{T}>, %b: tensor<?x3x{T}>) -> tensor<2x3x{T}> {
  %r = tensor.matmul %a, %b : (tensor<2x?x{T}>, tensor<?x3x{T}>) -> tensor<2x3x{T}>
  return %r : tensor<2x3x{T}>
}""", [[_rand((2, 5), dt), _rand((5, 3), dt)], [_rand((2, 0), dt), _rand((0, 3), dt)]],
        lambda a, b: np.matmul(a, b), ("reduce", 4, mm_scale))
    add("mm_transposed", """
func.func @F(%a: tensor<40x24x{T}>, %b: tensor<16x40x{T}>) -> (tensor<24x16x{T}>, tensor<16x24x{T}>) {
  %at = tensor.transpose %a [1, 0] : tensor<40x24x{T}> -> tensor<24x40x{T}>
  %bt = tensor.transpose %b [1, 0] : tensor<16x40x{T}> -> tensor<40x16x{T}>
  %r = tensor.matmul %at, %bt : (tensor<24x40x{T}>, tensor<40x16x{T}>) -> tensor<24x16x{T}>
  %s = tensor.matmul %b, %a : (tensor<16x40x{T}>, tensor<40x24x{T}>) -> tensor<16x24x{T}>
  return %r, %s : tensor<24x16x{T}>, tensor<16x24x{T}>
}""", [[_rand((40, 24), dt), _rand((16, 40), dt)]], lambda a, b: (a.T @ b.T, b @ a),
        ("reduce", 4, lambda a, b: (mm_scale(a.T, b.T), mm_scale(b, a))))

    # -- layout ops ------------------------------------------------------------------------
    add("transpose2", """
func.func @F(%x: tensor<2x3x{T}>) -> tensor<3x2x{T}> {
  %r = tensor.transpose %x [1, 0] : tensor<2x3x{T}> -> tensor<3x2x{T}>
  return %r : tensor<3x2x{T}>
}""", [[_rand((2, 3), dt)]], lambda x: x.T)
    add("transpose3", """
func.func @F(%x: tensor<2x3x4x{T}>) -> tensor<4x2x3x{T}> {
  %r = tensor.transpose %x [2, 0, 1] : tensor<2x3x4x{T}> -> tensor<4x2x3x{T}>
  return %r : tensor<4x2x3x{T}>
}""", [[_rand((2, 3, 4), dt)]], lambda x: np.transpose(x, (2, 0, 1)))
    add("transpose_dyn", """
func.func @F(%x: tensor<?x4x{T}>) -> tensor<4x?x{T}> {
  %r = tensor.transpose %x [1, 0] : tensor<?x4x{T}> -> tensor<4x?x{T}>
  return %r : tensor<4x?x{T}>
}""", [[_rand((3, 4), dt)], [_rand((0, 4), dt)]], lambda x: x.T)
    for name, src, dst, dims, shp, ref in (
        ("bc_row", "3", "2x3", [1], (3,), lambda x: np.broadcast_to(x, (2, 3))),
        ("bc_col", "2", "2x3", [0], (2,), lambda x: np.broadcast_to(x[:, None], (2, 3))),
        ("bc_scalar", "", "2x3", [], (), lambda x: np.broadcast_to(x, (2, 3))),
        ("bc_expand", "1x3", "4x3", [0, 1], (1, 3), lambda x: np.broadcast_to(x, (4, 3))),
        ("bc_one", "1", "1", [0], (1,), lambda x: x),
        ("bc_dyn", "?x3", "?x2x3", [0, 2], (4, 3), lambda x: np.broadcast_to(x[:, None, :], (x.shape[0], 2, 3))),
    ):
        add(name, f"""
func.func @F(%x: {_t(src, "{T}")}) -> {_t(dst, "{T}")} {{
  %r = tensor.broadcast %x [{", ".join(map(str, dims))}] : {_t(src, "{T}")} -> {_t(dst, "{T}")}
  return %r : {_t(dst, "{T}")}
}}""", [[_rand(shp, dt)]], lambda x, ref=ref: np.ascontiguousarray(ref(x)))

    add("collapse", """
func.func @F(%x: tensor<2x3x4x{T}>) -> (tensor<6x4x{T}>, tensor<24x{T}>) {
  %a = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4x{T}> into tensor<6x4x{T}>
  %b = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x3x4x{T}> into tensor<24x{T}>
  return %a, %b : tensor<6x4x{T}>, tensor<24x{T}>
}""", [[_rand((2, 3, 4), dt)]], lambda x: (x.reshape(6, 4), x.reshape(24)))
    add("collapse_0d", """
func.func @F(%x: tensor<1x1x{T}>) -> tensor<{T}> {
  %a = tensor.collapse_shape %x [] : tensor<1x1x{T}> into tensor<{T}>
  return %a : tensor<{T}>
}""", [[_rand((1, 1), dt)]], lambda x: x.reshape(()))
    add("collapse_dyn", """
func.func @F(%x: tensor<?x4x{T}>) -> tensor<?x{T}> {
  %a = tensor.collapse_shape %x [[0, 1]] : tensor<?x4x{T}> into tensor<?x{T}>
  return %a : tensor<?x{T}>
}""", [[_rand((3, 4), dt)], [_rand((0, 4), dt)]], lambda x: x.reshape(-1))
    add("expand", """
func.func @F(%x: tensor<6x{T}>) -> tensor<2x3x{T}> {
  %a = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<6x{T}> into tensor<2x3x{T}>
  return %a : tensor<2x3x{T}>
}""", [[_rand((6,), dt)]], lambda x: x.reshape(2, 3))
    add("expand_0d", """
func.func @F(%x: tensor<{T}>) -> tensor<1x1x{T}> {
  %a = tensor.expand_shape %x [] output_shape [1, 1] : tensor<{T}> into tensor<1x1x{T}>
  return %a : tensor<1x1x{T}>
}""", [[_rand((), dt)]], lambda x: x.reshape(1, 1))
    add("expand_dyn", """
func.func @F(%x: tensor<?x{T}>) -> tensor<?x4x{T}> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?x{T}>
  %m = arith.divui %n, %c4 : index
  %a = tensor.expand_shape %x [[0, 1]] output_shape [%m, 4] : tensor<?x{T}> into tensor<?x4x{T}>
  return %a : tensor<?x4x{T}>
}""", [[_rand((12,), dt)], [_rand((0,), dt)]], lambda x: x.reshape(-1, 4))
    add("cast", """
func.func @F(%x: tensor<2x3x{T}>) -> (tensor<?x3x{T}>, tensor<2x3x{T}>) {
  %a = tensor.cast %x : tensor<2x3x{T}> to tensor<?x3x{T}>
  %b = tensor.cast %a : tensor<?x3x{T}> to tensor<2x3x{T}>
  %c = tensor.neg %b : tensor<2x3x{T}>
  return %a, %c : tensor<?x3x{T}>, tensor<2x3x{T}>
}""", [[_rand((2, 3), dt)]], lambda x: (x, -x))
    add("concat", """
func.func @F(%a: tensor<2x3x{T}>, %b: tensor<1x3x{T}>, %c: tensor<2x2x{T}>) -> (tensor<3x3x{T}>, tensor<2x5x{T}>) {
  %r = tensor.concat dim(0) %a, %b : (tensor<2x3x{T}>, tensor<1x3x{T}>) -> tensor<3x3x{T}>
  %s = tensor.concat dim(1) %a, %c : (tensor<2x3x{T}>, tensor<2x2x{T}>) -> tensor<2x5x{T}>
  return %r, %s : tensor<3x3x{T}>, tensor<2x5x{T}>
}""", [[_rand((2, 3), dt), _rand((1, 3), dt), _rand((2, 2), dt)]],
        lambda a, b, c: (np.concatenate([a, b], 0), np.concatenate([a, c], 1)))
    add("reshape", """
func.func @F(%x: tensor<6x{T}>, %s: tensor<2xindex>) -> tensor<2x3x{T}> {
  %r = tensor.reshape %x(%s) : (tensor<6x{T}>, tensor<2xindex>) -> tensor<2x3x{T}>
  return %r : tensor<2x3x{T}>
}""", [[_rand((6,), dt), np.array([2, 3], dtype=np.int64)]], lambda x, s: x.reshape(2, 3))

    add("pad", """
func.func @F(%a: tensor<2x3x{T}>, %v: {T}) -> tensor<3x6x{T}> {
  %r = tensor.pad %a low[0, 1] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : {T}
  } : tensor<2x3x{T}> to tensor<3x6x{T}>
  return %r : tensor<3x6x{T}>
}""", [[_rand((2, 3), dt), dt(9.5)]], lambda a, v: np.pad(a, ((0, 1), (1, 2)), constant_values=v))
    add("pad_dyn", """
func.func @F(%a: tensor<?x3x{T}>, %l: index) -> tensor<?x4x{T}> {
  %r = tensor.pad %a low[%l, 1] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i64
    %f = arith.sitofp %si : i64 to {T}
    tensor.yield %f : {T}
  } : tensor<?x3x{T}> to tensor<?x4x{T}>
  return %r : tensor<?x4x{T}>
}""", [[_rand((2, 3), dt), 2], [_rand((0, 3), dt), 0]], lambda a, lo: _pad_ref(a, lo))

    # -- element access and construction ----------------------------------------------------
    add("splat", """
func.func @F(%s: {T}, %n: index) -> (tensor<2x3x{T}>, tensor<{T}>, tensor<?x4x{T}>) {
  %a = tensor.splat %s : tensor<2x3x{T}>
  %b = tensor.splat %s : tensor<{T}>
  %c = tensor.splat %s[%n] : tensor<?x4x{T}>
  return %a, %b, %c : tensor<2x3x{T}>, tensor<{T}>, tensor<?x4x{T}>
}""", [[dt(1.25), 3], [dt(-0.0), 0]],
        lambda s, n: (np.full((2, 3), s, dt), np.full((), s, dt), np.full((n, 4), s, dt)))
    add("extract_insert", """
func.func @F(%x: tensor<2x3x{T}>, %z: tensor<{T}>, %i: index, %j: index) -> ({T}, {T}, tensor<2x3x{T}>, tensor<{T}>, tensor<2x3x{T}>) {
  %e = tensor.extract %x[%i, %j] : tensor<2x3x{T}>
  %z0 = tensor.extract %z[] : tensor<{T}>
  %u = tensor.insert %z0 into %x[%i, %j] : tensor<2x3x{T}>
  %w = tensor.insert %e into %z[] : tensor<{T}>
  return %e, %z0, %u, %w, %x : {T}, {T}, tensor<2x3x{T}>, tensor<{T}>, tensor<2x3x{T}>
}""", [[_rand((2, 3), dt), _rand((), dt), 1, 2], [_rand((2, 3), dt), _rand((), dt), 0, 0]],
        lambda x, z, i, j: (x[i, j], z[()], _put(x, (i, j), z[()]), np.asarray(x[i, j]), x))
    add("from_elements", """
func.func @F(%a: {T}, %b: {T}) -> (tensor<2x2x{T}>, tensor<{T}>, tensor<1x{T}>) {
  %r = tensor.from_elements %a, %b, %b, %a : tensor<2x2x{T}>
  %s = tensor.from_elements %b : tensor<{T}>
  %t = tensor.from_elements %a : tensor<1x{T}>
  return %r, %s, %t : tensor<2x2x{T}>, tensor<{T}>, tensor<1x{T}>
}""", [[dt(1.5), dt(-2.25)]],
        lambda a, b: (np.array([[a, b], [b, a]], dt), np.array(b, dt), np.array([a], dt)))
    add("empty_fill", """
func.func @F(%n: index, %v: {T}) -> tensor<?x{T}> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty(%n) : tensor<?x{T}>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%t = %e) -> (tensor<?x{T}>) {
    %t2 = tensor.insert %v into %t[%i] : tensor<?x{T}>
    loop.yield %t2 : tensor<?x{T}>
  }
  return %r : tensor<?x{T}>
}""", [[5, dt(0.5)], [0, dt(0.5)]], lambda n, v: np.full((n,), v, dt))
    add("dim", """
func.func @F(%x: tensor<?x4x{T}>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.dim %x, %c0 : tensor<?x4x{T}>
  %b = tensor.dim %x, %c1 : tensor<?x4x{T}>
  return %a, %b : index, index
}""", [[_rand((3, 4), dt)], [_rand((0, 4), dt)]],
        lambda x: (np.int64(x.shape[0]), np.int64(4)))
    add("slice_static", """
func.func @F(%x: tensor<4x3x{T}>) -> (tensor<2x3x{T}>, tensor<3x{T}>, tensor<2x2x{T}>, tensor<1x1x{T}>) {
  %a = tensor.extract_slice %x[1, 0] [2, 3] [1, 1] : tensor<4x3x{T}> to tensor<2x3x{T}>
  %b = tensor.extract_slice %x[3, 0] [1, 3] [1, 1] : tensor<4x3x{T}> to tensor<3x{T}>
  %c = tensor.extract_slice %x[0, 0] [2, 2] [2, 2] : tensor<4x3x{T}> to tensor<2x2x{T}>
  %d = tensor.extract_slice %x[3, 2] [1, 1] [1, 1] : tensor<4x3x{T}> to tensor<1x1x{T}>
  return %a, %b, %c, %d : tensor<2x3x{T}>, tensor<3x{T}>, tensor<2x2x{T}>, tensor<1x1x{T}>
}""", [[_rand((4, 3), dt)]], lambda x: (x[1:3], x[3], x[0:4:2, 0:3:2], x[3:4, 2:3]))
    add("slice_dynamic", """
func.func @F(%x: tensor<?x3x{T}>, %i: index, %j: index) -> (tensor<3x{T}>, tensor<2x2x{T}>, {T}) {
  %a = tensor.extract_slice %x[%i, 0] [1, 3] [1, 1] : tensor<?x3x{T}> to tensor<3x{T}>
  %b = tensor.extract_slice %x[%i, %j] [2, 2] [1, 1] : tensor<?x3x{T}> to tensor<2x2x{T}>
  %s = tensor.extract_slice %x[%i, %j] [1, 1] [1, 1] : tensor<?x3x{T}> to tensor<{T}>
  %e = tensor.extract %s[] : tensor<{T}>
  return %a, %b, %e : tensor<3x{T}>, tensor<2x2x{T}>, {T}
}""", [[_rand((5, 3), dt), 2, 1], [_rand((2, 3), dt), 0, 0]],
        lambda x, i, j: (x[i], x[i:i + 2, j:j + 2], x[i, j]))
    add("insert_slice", """
func.func @F(%r: tensor<3x{T}>, %x: tensor<4x3x{T}>, %i: index, %p: tensor<2x2x{T}>) -> (tensor<4x3x{T}>, tensor<4x3x{T}>, tensor<4x3x{T}>, tensor<4x3x{T}>) {
  %a = tensor.insert_slice %r into %x[1, 0] [1, 3] [1, 1] : tensor<3x{T}> into tensor<4x3x{T}>
  %b = tensor.insert_slice %r into %x[%i, 0] [1, 3] [1, 1] : tensor<3x{T}> into tensor<4x3x{T}>
  %c = tensor.insert_slice %p into %x[0, 0] [2, 2] [2, 2] : tensor<2x2x{T}> into tensor<4x3x{T}>
  %d = tensor.insert_slice %p into %x[%i, 1] [2, 2] [1, 1] : tensor<2x2x{T}> into tensor<4x3x{T}>
  return %a, %b, %c, %d : tensor<4x3x{T}>, tensor<4x3x{T}>, tensor<4x3x{T}>, tensor<4x3x{T}>
}""", [[_rand((3,), dt), _rand((4, 3), dt), 2, _rand((2, 2), dt)]],
        lambda r, x, i, p: (_set(x, np.s_[1], r), _set(x, np.s_[i], r), _set(x, np.s_[0:4:2, 0:3:2], p),
                            _set(x, np.s_[i:i + 2, 1:3], p)))
    add("insert_slice_dyn", """
func.func @F(%r: tensor<3x{T}>, %x: tensor<?x3x{T}>, %i: index) -> tensor<?x3x{T}> {
  %b = tensor.insert_slice %r into %x[%i, 0] [1, 3] [1, 1] : tensor<3x{T}> into tensor<?x3x{T}>
  return %b : tensor<?x3x{T}>
}""", [[_rand((3,), dt), _rand((5, 3), dt), 4], [_rand((3,), dt), _rand((1, 3), dt), 0]],
        lambda r, x, i: _set(x, np.s_[i], r))
    # a kernel computing into a slice of %e in place reads the window of another insert
    # into %e at that place (%w: all of what that insert made), not the window it writes
    add("insert_slices_one_dest", """
func.func @F(%a: tensor<3x1x{T}>, %b: tensor<3x1x{T}>, %c: tensor<3x1x{T}>) -> (tensor<1x3x1x{T}>, tensor<1x3x1x{T}>) {
  %e = tensor.empty() : tensor<1x3x1x{T}>
  %w = tensor.insert_slice %b into %e[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<3x1x{T}> into tensor<1x3x1x{T}>
  %bw = tensor.extract_slice %w[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<1x3x1x{T}> to tensor<3x1x{T}>
  %m = tensor.mul %bw, %c : tensor<3x1x{T}>
  %r = tensor.insert_slice %m into %e[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<3x1x{T}> into tensor<1x3x1x{T}>
  %v = tensor.insert_slice %a into %e[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<3x1x{T}> into tensor<1x3x1x{T}>
  return %r, %v : tensor<1x3x1x{T}>, tensor<1x3x1x{T}>
}""", [[_rand((3, 1), dt), _rand((3, 1), dt), _rand((3, 1), dt)]],
        lambda a, b, c: ((b * c)[None], a[None]))

    # -- constants -------------------------------------------------------------------------
    big = np.arange(40, dtype=dt).reshape(5, 8) * dt(0.25) - dt(3)
    big_text = "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in big) + "]"
    add("constants", f"""
func.func @F(%x: tensor<5x8x{{T}}>) -> (tensor<2x2x{{T}}>, tensor<5x8x{{T}}>, tensor<5x8x{{T}}>, tensor<5x8x{{T}}>) {{
  %s = arith.constant dense<[[1.0, -2.0], [0.5, 3.0]]> : tensor<2x2x{{T}}>
  %b = arith.constant dense<{big_text}> : tensor<5x8x{{T}}>
  %h = arith.constant dense<1.5> : tensor<5x8x{{T}}>
  %p = tensor.add %x, %b : tensor<5x8x{{T}}>
  %q = tensor.mul %p, %h : tensor<5x8x{{T}}>
  return %s, %b, %q, %h : tensor<2x2x{{T}}>, tensor<5x8x{{T}}>, tensor<5x8x{{T}}>, tensor<5x8x{{T}}>
}}""", [[_rand((5, 8), dt)]],
        lambda x: (np.array([[1.0, -2.0], [0.5, 3.0]], dt), big, (x + big) * dt(1.5), np.full((5, 8), 1.5, dt)))

    # -- a dynamic operand dim of size 1 expanding (known only at run time) -----------------
    add("bc_dyn_expand", """
func.func @F(%x: tensor<?x3x{T}>) -> tensor<4x3x{T}> {
  %r = tensor.broadcast %x [0, 1] : tensor<?x3x{T}> -> tensor<4x3x{T}>
  return %r : tensor<4x3x{T}>
}""", [[_rand((1, 3), dt)], [_rand((4, 3), dt)]], lambda x: np.ascontiguousarray(np.broadcast_to(x, (4, 3))))

    # -- conversions -------------------------------------------------------------------------
    other = "f32" if T == "f64" else "f64"
    odt = DTYPES[other]
    fx = np.array([-2.7, 2.7, -0.0, 0.5, 1e-30, -1e6, 7.99, np.inf], dtype=dt)
    add("convert_float", f"""
func.func @F(%x: tensor<8x{{T}}>) -> (tensor<8x{other}>, tensor<8xi1>) {{
  %a = tensor.convert %x : tensor<8x{{T}}> -> tensor<8x{other}>
  %b = tensor.convert %x : tensor<8x{{T}}> -> tensor<8xi1>
  return %a, %b : tensor<8x{other}>, tensor<8xi1>
}}""", [[fx], [np.array([np.nan, 1e38, -1e38, 3.0, 1e-45, -1e-45, 0.1, -np.inf], dtype=dt)]],
        lambda x: (x.astype(odt), x != 0))
    ix = np.array([-2.7, 2.7, -0.0, 0.5, -1e6, 7.99, 2e9, -2e9], dtype=dt)
    add("convert_to_int", """
func.func @F(%x: tensor<8x{T}>) -> (tensor<8xi32>, tensor<8xi64>, tensor<8xindex>) {
  %a = tensor.convert %x : tensor<8x{T}> -> tensor<8xi32>
  %b = tensor.convert %x : tensor<8x{T}> -> tensor<8xi64>
  %c = tensor.convert %x : tensor<8x{T}> -> tensor<8xindex>
  return %a, %b, %c : tensor<8xi32>, tensor<8xi64>, tensor<8xindex>
}""", [[np.where(np.abs(ix) < 2e9, ix, dt(1)).astype(dt)], [ix[4:6].repeat(4)]],
        lambda x: (x.astype(np.int32), x.astype(np.int64), x.astype(np.int64)))
    add("convert_from_int", """
func.func @F(%i: tensor<5xi32>, %l: tensor<5xi64>, %b: tensor<5xi1>, %k: tensor<5xindex>) -> (tensor<5x{T}>, tensor<5x{T}>, tensor<5x{T}>, tensor<5x{T}>) {
  %0 = tensor.convert %i : tensor<5xi32> -> tensor<5x{T}>
  %1 = tensor.convert %l : tensor<5xi64> -> tensor<5x{T}>
  %2 = tensor.convert %b : tensor<5xi1> -> tensor<5x{T}>
  %3 = tensor.convert %k : tensor<5xindex> -> tensor<5x{T}>
  return %0, %1, %2, %3 : tensor<5x{T}>, tensor<5x{T}>, tensor<5x{T}>, tensor<5x{T}>
}""", [[np.array([-5, 7, 2**31 - 1, -2**31, 0], np.int32), np.array([2**53 + 1, -(2**62), 3, 0, -1], np.int64),
         np.array([True, False, True, True, False]), np.array([0, -3, 5, 2**40, 1], np.int64)]],
        lambda i, l, b, k: (i.astype(dt), l.astype(dt), b.astype(dt), k.astype(dt)))
    if T == "f64":  # integer tensors: once
        add("convert_int", """
func.func @F(%i: tensor<5xi32>, %l: tensor<5xi64>, %b: tensor<5xi1>) -> (tensor<5xi64>, tensor<5xi8>, tensor<5xi32>, tensor<5xi1>, tensor<5xi1>, tensor<5xindex>) {
  %0 = tensor.convert %i : tensor<5xi32> -> tensor<5xi64>
  %1 = tensor.convert %i : tensor<5xi32> -> tensor<5xi8>
  %2 = tensor.convert %b : tensor<5xi1> -> tensor<5xi32>
  %3 = tensor.convert %l : tensor<5xi64> -> tensor<5xi1>
  %4 = tensor.convert %b : tensor<5xi1> -> tensor<5xi1>
  %5 = tensor.convert %i : tensor<5xi32> -> tensor<5xindex>
  return %0, %1, %2, %3, %4, %5 : tensor<5xi64>, tensor<5xi8>, tensor<5xi32>, tensor<5xi1>, tensor<5xi1>, tensor<5xindex>
}""", [[np.array([-5, 300, -129, 2**31 - 1, 0], np.int32), np.array([0, 2, -1, 2**40, 0], np.int64),
             np.array([True, False, True, True, False])]],
            lambda i, l, b: (i.astype(np.int64), i.astype(np.int8), b.astype(np.int32), l != 0, b, i.astype(np.int64)))
        for it, idt in (("i32", np.int32), ("i64", np.int64)):
            a = np.array([-7, 7, -7, 2**(8 * idt().itemsize - 1) - 1, 0, 5], idt)
            b = np.array([2, 2, -2, 1, 3, -1], idt)
            add(f"int_{it}", f"""
func.func @F(%a: tensor<6x{it}>, %b: tensor<6x{it}>) -> (tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6xi1>, tensor<6x{it}>, tensor<{it}>, tensor<{it}>, tensor<6x{it}>) {{
  %0 = tensor.add %a, %b : tensor<6x{it}>
  %1 = tensor.sub %a, %b : tensor<6x{it}>
  %2 = tensor.mul %a, %b : tensor<6x{it}>
  %3 = tensor.sub %b, %a : tensor<6x{it}>
  %4 = tensor.max %a, %b : tensor<6x{it}>
  %5 = tensor.min %a, %b : tensor<6x{it}>
  %6 = tensor.mul %a, %a : tensor<6x{it}>
  %7 = tensor.max %b, %a : tensor<6x{it}>
  %8 = tensor.cmp lt, %a, %b : tensor<6x{it}>
  %9 = tensor.select %8, %a, %b : tensor<6xi1>, tensor<6x{it}>
  %10 = tensor.reduce_sum %a [0] : tensor<6x{it}> -> tensor<{it}>
  %11 = tensor.reduce_max %a [0] : tensor<6x{it}> -> tensor<{it}>
  %c = arith.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6x{it}>
  %12 = tensor.add %c, %b : tensor<6x{it}>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6x{it}>, tensor<6xi1>, tensor<6x{it}>, tensor<{it}>, tensor<{it}>, tensor<6x{it}>
}}""", [[a, b]], lambda a, b: _int_ref(a, b))
        add("bool_ops", """
func.func @F(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<i1>) {
  %0 = tensor.add %a, %b : tensor<4xi1>
  %1 = tensor.sub %a, %b : tensor<4xi1>
  %2 = tensor.mul %a, %b : tensor<4xi1>
  %3 = tensor.max %a, %b : tensor<4xi1>
  %4 = tensor.min %a, %b : tensor<4xi1>
  %5 = tensor.cmp eq, %a, %b : tensor<4xi1>
  %6 = tensor.reduce_sum %a [0] : tensor<4xi1> -> tensor<i1>
  %7 = tensor.reduce_max %a [0] : tensor<4xi1> -> tensor<i1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<i1>, tensor<i1>
}""", [[np.array([True, True, False, False]), np.array([True, False, True, False])],
             [np.array([True, True, True, False]), np.array([False] * 4)]],
            lambda a, b: (a ^ b, a ^ b, a & b, a | b, a & b, a == b, np.asarray(np.logical_xor.reduce(a)),
                          np.asarray(np.any(a))))

    # -- the same buffer passed twice, results aliasing arguments ----------------------------
    same = _rand((3,), dt)
    add("alias", """
func.func @F(%x: tensor<3x{T}>, %y: tensor<3x{T}>) -> (tensor<3x{T}>, tensor<3x{T}>, tensor<3x{T}>) {
  %a = tensor.mul %x, %y : tensor<3x{T}>
  return %x, %a, %x : tensor<3x{T}>, tensor<3x{T}>, tensor<3x{T}>
}""", [[same, same]], lambda x, y: (x, x * y, x))
    return out


def _int_ref(a, b):
    with np.errstate(all="ignore"):
        return (a + b, a - b, a * b, b - a, np.maximum(a, b), np.minimum(a, b), a * a, np.maximum(b, a), a < b,
                np.where(a < b, a, b), np.asarray(np.sum(a, dtype=a.dtype)), np.asarray(np.max(a)),
                np.arange(1, 7, dtype=a.dtype) + b)


def _pad_ref(a, lo):
    n = a.shape[0] + lo + 1
    out = np.add.outer(np.arange(n), np.arange(4)).astype(a.dtype)
    out[lo:lo + a.shape[0], 1:] = a
    return out


def _put(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def _set(x, sl, v):
    y = x.copy()
    y[sl] = v
    return y


CASES = {T: cases(T) for T in DTYPES}
PACKS = {T: Pack({c.name: c.text for c in CASES[T] if not c.known}) for T in DTYPES}
KNOWN = {T: Pack({c.name: c.text for c in CASES[T] if c.known}) for T in DTYPES}
PARAMS = [pytest.param(T, i, id=f"{T}-{c.name}",
                       marks=[pytest.mark.xfail(reason=c.known)] if c.known else [])
          for T in DTYPES for i, c in enumerate(CASES[T])]


@pytest.mark.parametrize(("T", "i"), PARAMS)
def test_tensor_op(T, i):
    case = CASES[T][i]
    pack = KNOWN[T] if case.known else PACKS[T]
    for args in case.args:
        jit = pack.jit(case.name, case.name, *args)
        interp = pack.interp(case.name, case.name, *args)
        check(jit, interp, case.tol, args, f"{case.name}{[np.shape(a) for a in args]} jit vs interp")
        want = case.ref(*args)
        want = tuple(np.asarray(w, dtype=np.asarray(g).dtype) if isinstance(g, np.ndarray) else type(g)(w)
                     for w, g in zip(want if isinstance(want, tuple) else (want,), interp))
        check(jit, want, case.tol, args, f"{case.name}{[np.shape(a) for a in args]} jit vs numpy")
        check(interp, want, case.tol, args, f"{case.name} interp vs numpy")


def test_dtypes_preserved_in_results():
    """f32 stays f32, i1 comes back as bool, index as int64, 0-d as a 0-d array."""
    pack = PACKS["f32"]
    x, y = _rand((), np.float32), _rand((), np.float32)
    out = pack.jit("cmp_select_z", "cmp_select_z", x, y)
    assert out[0].dtype == np.bool_ and out[0].shape == ()
    assert out[-1].dtype == np.float32 and out[-1].shape == ()
    d = pack.jit("dim", "dim", _rand((3, 4), np.float32))
    assert all(isinstance(v, np.integer) for v in d)
