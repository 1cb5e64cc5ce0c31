"""Rules for ``stablehlo`` and ``chlo``: StableHLO's semantics on numpy arrays.

Tensors are numpy arrays in the exact dtype of their type (0-d tensors are 0-d
arrays). Ops with a body (reduce, reduce_window, scatter, select_and_scatter,
sort) take a numpy fast path when the body is one known binary op (add,
multiply, maximum, minimum, and, or, xor) or, for scatter, the replacement of
the old value; any other body runs *vectorized*: once per reduced element,
on arrays of all the result positions at once (sound for elementwise bodies,
which is what JAX emits), or once per element where the order matters
(scatter, the scatter half of select_and_scatter, sort).

Integer `divide`/`remainder` truncate toward zero (C), `round_nearest_afz`
rounds half away from zero, `convert` from float to integer truncates,
`case` with an out-of-range index runs its last branch, `dynamic_slice`
clamps its starts, `gather` clamps its starts, and `scatter` skips updates
that fall outside the operand (StableHLO's rules).
"""

from __future__ import annotations

import functools
import itertools
import math as pymath

import numpy as np
from xdsl.dialects import math as xmath

from irtoolkit.dialects import stablehlo as hlo
from irtoolkit.interpreter.arith import dense_to_array
from irtoolkit.interpreter.core import dtype_of, register, register_exit, register_specialized
from irtoolkit.interpreter.math import FLOAT_UNARY

_BOOL = np.dtype(np.bool_)


def _arr(value, dt: np.dtype) -> np.ndarray:
    """A result as an array of ``dt`` (numpy returns scalars for 0-d inputs)."""
    if isinstance(value, np.ndarray) and value.dtype == dt:
        return value
    return np.asarray(value).astype(dt, copy=False)


def _result_dtype(op) -> np.dtype:
    return dtype_of(op.results[0].type)


def _result_shape(op, i: int = 0) -> tuple[int, ...]:
    return tuple(op.results[i].type.get_shape())


# --------------------------------------------------------------------------
# Elementwise


def _logistic(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _round_afz(x):
    return FLOAT_UNARY[xmath.RoundOp](x)


def _sign(x):
    return np.sign(x)


def _pyfunc(fn):
    vec = np.frompyfunc(fn, 1, 1)

    def f(x):
        return np.asarray(vec(np.asarray(x, np.float64)), np.float64)

    return f


def _erf_inv(y):
    """Inverse of erf: Giles' approximation refined by Newton steps in float64."""
    y = np.asarray(y, np.float64)
    w = -np.log((1.0 - y) * (1.0 + y))
    x = np.sqrt(np.maximum(w, 0)) * np.sign(y) * 0.8862269254527580  # a rough start
    x = np.where(np.abs(y) < 0.9, y * (0.8862269254527580 + 0.2320136665 * y * y), x)
    erf = _pyfunc(pymath.erf)
    for _ in range(60):
        step = (erf(x) - y) / (2 / np.sqrt(np.pi) * np.exp(-x * x))
        x = x - np.where(np.isfinite(step), step, 0)
    return np.where(y == 1, np.inf, np.where(y == -1, -np.inf, x))


_FLOAT_UNARY = {
    hlo.CbrtOp: FLOAT_UNARY[xmath.CbrtOp],
    hlo.CeilOp: FLOAT_UNARY[xmath.CeilOp],
    hlo.CosineOp: FLOAT_UNARY[xmath.CosOp],
    hlo.ExponentialOp: FLOAT_UNARY[xmath.ExpOp],
    hlo.ExponentialMinusOneOp: FLOAT_UNARY[xmath.ExpM1Op],
    hlo.FloorOp: FLOAT_UNARY[xmath.FloorOp],
    hlo.LogOp: FLOAT_UNARY[xmath.LogOp],
    hlo.LogPlusOneOp: FLOAT_UNARY[xmath.Log1pOp],
    hlo.LogisticOp: _logistic,
    hlo.RoundNearestAfzOp: _round_afz,
    hlo.RoundNearestEvenOp: FLOAT_UNARY[xmath.RoundEvenOp],
    hlo.RsqrtOp: FLOAT_UNARY[xmath.RsqrtOp],
    hlo.SineOp: FLOAT_UNARY[xmath.SinOp],
    hlo.SqrtOp: FLOAT_UNARY[xmath.SqrtOp],
    hlo.TanOp: FLOAT_UNARY[xmath.TanOp],
    hlo.TanhOp: FLOAT_UNARY[xmath.TanhOp],
    hlo.ChloErfOp: FLOAT_UNARY[xmath.ErfOp],
    hlo.ChloErfcOp: _pyfunc(pymath.erfc),
    hlo.ChloErfInvOp: _erf_inv,
    hlo.ChloSquareOp: lambda x: x * x,
    hlo.ChloTanOp: FLOAT_UNARY[xmath.TanOp],
    hlo.ChloLgammaOp: _pyfunc(pymath.lgamma),
    hlo.ChloSinhOp: FLOAT_UNARY[xmath.SinhOp],
    hlo.ChloCoshOp: FLOAT_UNARY[xmath.CoshOp],
    hlo.ChloAsinOp: FLOAT_UNARY[xmath.AsinOp],
    hlo.ChloAcosOp: FLOAT_UNARY[xmath.AcosOp],
    hlo.ChloAtanOp: FLOAT_UNARY[xmath.AtanOp],
    hlo.ChloAsinhOp: FLOAT_UNARY[xmath.AsinhOp],
    hlo.ChloAcoshOp: FLOAT_UNARY[xmath.AcoshOp],
    hlo.ChloAtanhOp: FLOAT_UNARY[xmath.AtanhOp],
    hlo.ChloIsInfOp: np.isinf,
    hlo.ChloIsPosInfOp: lambda x: x == np.inf,
    hlo.ChloIsNegInfOp: lambda x: x == -np.inf,
    hlo.IsFiniteOp: np.isfinite,
}


def _int_divide(a, b):
    """C division (truncating); x / 0 is -1 as StableHLO's reference does for integers."""
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
    return np.where(b == 0, -1, q)


def _int_remainder(a, b):
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, a, np.fmod(a, safe))


def _shift(kind):
    def f(a, b):
        bits = a.dtype.itemsize * 8
        out_of_range = (b < 0) | (b >= bits)
        s = np.where(out_of_range, 0, b).astype(a.dtype)
        if kind == "left":
            r = np.left_shift(a, s)
            return np.where(out_of_range, 0, r)
        if kind == "arithmetic":
            r = np.right_shift(a, s)
            return np.where(out_of_range, np.where(a < 0, -1, 0), r)
        u = a.view(np.dtype(f"u{a.dtype.itemsize}"))
        r = np.right_shift(u, s.view(u.dtype)).view(a.dtype)
        return np.where(out_of_range, 0, r)

    return f


#: op class -> (float fn, integer fn, i1 fn); None where the kind is invalid
_BINARY = {
    hlo.AddOp: (np.add, np.add, np.logical_or),
    hlo.SubtractOp: (np.subtract, np.subtract, None),
    hlo.MultiplyOp: (np.multiply, np.multiply, np.logical_and),
    hlo.DivideOp: (np.divide, _int_divide, None),
    hlo.RemainderOp: (np.fmod, _int_remainder, None),
    hlo.MaximumOp: (np.maximum, np.maximum, np.logical_or),
    hlo.MinimumOp: (np.minimum, np.minimum, np.logical_and),
    hlo.PowerOp: (np.power, np.power, None),
    hlo.Atan2Op: (np.arctan2, None, None),
    hlo.AndOp: (None, np.bitwise_and, np.logical_and),
    hlo.OrOp: (None, np.bitwise_or, np.logical_or),
    hlo.XorOp: (None, np.bitwise_xor, np.logical_xor),
    hlo.ShiftLeftOp: (None, _shift("left"), None),
    hlo.ShiftRightArithmeticOp: (None, _shift("arithmetic"), None),
    hlo.ShiftRightLogicalOp: (None, _shift("logical"), None),
}

_INT_UNARY = {
    hlo.AbsOp: (np.abs, np.abs, None),
    hlo.NegateOp: (np.negative, np.negative, None),
    hlo.SignOp: (_sign, np.sign, None),
    hlo.NotOp: (None, np.invert, np.logical_not),
}


def _by_kind(table_entry, dt: np.dtype):
    fn = table_entry[2] if dt == _BOOL else table_entry[1] if dt.kind in "iu" else table_entry[0]
    if fn is None:
        raise ValueError(f"no meaning for element type {dt}")
    return fn


def _elementwise(make_fn):
    def make(op):
        dt = _result_dtype(op)
        fn = make_fn(op, dtype_of(op.operands[0].type))

        def rule(interp, op, args):
            return (_arr(fn(*args), dt),)

        return rule

    return make


for _cls, _fn in _FLOAT_UNARY.items():
    register_specialized(_cls)(_elementwise(lambda op, dt, fn=_fn: fn))
for _cls, _entry in {**_BINARY, **_INT_UNARY}.items():
    register_specialized(_cls)(_elementwise(lambda op, dt, entry=_entry: _by_kind(entry, dt)))


@register_specialized(hlo.ClampOp)
def _clamp(op):
    dt = _result_dtype(op)

    def rule(interp, op, args):
        lo, x, hi = args
        return (_arr(np.minimum(np.maximum(x, lo), hi), dt),)

    return rule


@register(hlo.SelectOp)
def _select(interp, op, args):
    pred, a, b = args
    return (_arr(np.where(pred, a, b), a.dtype),)


@register_specialized(hlo.ConvertOp)
def _convert(op):
    dt = _result_dtype(op)

    def rule(interp, op, args):
        (x,) = args
        if dt == _BOOL:
            return (_arr(x != 0, dt),)
        if x.dtype.kind == "f" and dt.kind in "iu":
            with np.errstate(invalid="ignore"):
                t = np.trunc(x)
                info = np.iinfo(dt)
                t = np.where(np.isnan(t), 0, np.clip(t, info.min, info.max))
            return (_arr(t, dt),)
        return (_arr(x, dt),)

    return rule


@register_specialized(hlo.BitcastConvertOp)
def _bitcast(op):
    dt = _result_dtype(op)

    def rule(interp, op, args):
        x = np.ascontiguousarray(args[0])
        if x.dtype == _BOOL or dt == _BOOL:
            raise ValueError("bitcast_convert of i1 is not supported")
        return (x.view(dt).reshape(x.shape),)

    return rule


def _total_order_key(x):
    """Floats mapped to integers whose order is IEEE totalOrder."""
    bits = np.ascontiguousarray(x).view(np.dtype(f"i{x.dtype.itemsize}"))
    return np.where(bits < 0, np.iinfo(bits.dtype).min - bits - 1, bits)


_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}


@register_specialized(hlo.CompareOp)
def _compare(op):
    fn = _COMPARE[op.comparison_direction.data.value]
    kind = op.compare_type.data.value if op.compare_type is not None else None

    def rule(interp, op, args):
        a, b = args
        if kind == "TOTALORDER":
            a, b = _total_order_key(a), _total_order_key(b)
        elif kind == "UNSIGNED" and a.dtype.kind == "i":
            u = np.dtype(f"u{a.dtype.itemsize}")
            a, b = np.asarray(a).view(u), np.asarray(b).view(u)
        return (_arr(fn(a, b), _BOOL),)

    return rule


# --------------------------------------------------------------------------
# Constants and data movement


@register_specialized(hlo.ConstantOp)
def _constant(op):
    value = dense_to_array(op.value, op.output.type)
    return lambda interp, op, args: (value,)


@register_specialized(hlo.IotaOp)
def _iota(op):
    shape = _result_shape(op)
    dim = op.iota_dimension.value.data
    dt = _result_dtype(op)
    view = [1] * len(shape)
    view[dim] = shape[dim]
    value = np.broadcast_to(np.arange(shape[dim]).reshape(view), shape).astype(dt)
    value.flags.writeable = False
    return lambda interp, op, args: (value,)


@register_specialized(hlo.BroadcastInDimOp)
def _broadcast_in_dim(op):
    dims = op.dims
    out = _result_shape(op)
    order = sorted(range(len(dims)), key=lambda i: dims[i])

    def rule(interp, op, args):
        x = args[0]
        if order != list(range(len(dims))):
            x = np.transpose(x, order)
        view = [1] * len(out)
        for i in order:
            view[dims[i]] = args[0].shape[i]
        return (np.broadcast_to(x.reshape(view), out),)

    return rule


@register_specialized(hlo.TransposeOp)
def _transpose(op):
    perm = op.dims
    return lambda interp, op, args: (np.transpose(args[0], perm),)


@register_specialized(hlo.ReverseOp)
def _reverse(op):
    dims = op.dims
    return lambda interp, op, args: (np.flip(args[0], dims) if dims else args[0],)


@register_specialized(hlo.ReshapeOp)
def _reshape(op):
    shape = _result_shape(op)
    return lambda interp, op, args: (np.reshape(args[0], shape),)


@register_specialized(hlo.SliceOp)
def _slice(op):
    index = tuple(slice(s, l, st) for s, l, st in zip(hlo.ints(op.start_indices), hlo.ints(op.limit_indices),
                                                      hlo.ints(op.strides)))
    return lambda interp, op, args: (args[0][index],)


def _clamped_starts(starts, shape, sizes):
    return [min(max(int(s), 0), n - k) for s, n, k in zip(starts, shape, sizes)]


@register_specialized(hlo.DynamicSliceOp)
def _dynamic_slice(op):
    sizes = hlo.ints(op.slice_sizes)

    def rule(interp, op, args):
        x = args[0]
        starts = _clamped_starts(args[1:], x.shape, sizes)
        return (x[tuple(slice(s, s + k) for s, k in zip(starts, sizes))],)

    return rule


@register(hlo.DynamicUpdateSliceOp)
def _dynamic_update_slice(interp, op, args):
    x, u = args[0], args[1]
    starts = _clamped_starts(args[2:], x.shape, u.shape)
    r = np.array(x, copy=True)
    r[tuple(slice(s, s + k) for s, k in zip(starts, u.shape))] = u
    return (r,)


@register_specialized(hlo.ConcatenateOp)
def _concatenate(op):
    dim = op.dimension.value.data
    return lambda interp, op, args: (np.concatenate(args, axis=dim),)


def pad(x: np.ndarray, value, low, high, interior) -> np.ndarray:
    """StableHLO pad: interior padding between elements, then edge padding (negative crops)."""
    inner = [n + max(n - 1, 0) * it for n, it in zip(x.shape, interior)]
    grown = [max(lo, 0) + n + max(hi, 0) for n, lo, hi in zip(inner, low, high)]
    r = np.full(grown, value, dtype=x.dtype)
    r[tuple(slice(max(lo, 0), max(lo, 0) + n, it + 1) for n, lo, it in zip(inner, low, interior))] = x
    crop = tuple(slice(max(-lo, 0), g - max(-hi, 0)) for g, lo, hi in zip(grown, low, high))
    return r[crop]


@register_specialized(hlo.PadOp)
def _pad(op):
    low, high = hlo.ints(op.edge_padding_low), hlo.ints(op.edge_padding_high)
    interior = hlo.ints(op.interior_padding)
    return lambda interp, op, args: (pad(args[0], args[1], low, high, interior),)


# --------------------------------------------------------------------------
# Contractions


def dot_general(a, b, lb, rb, lc, rc, dt) -> np.ndarray:
    """Batch dims, then lhs free dims, then rhs free dims (StableHLO's dot_general)."""
    lf = [d for d in range(a.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(b.ndim) if d not in rb and d not in rc]
    batch = [a.shape[d] for d in lb]
    m = [a.shape[d] for d in lf]
    n = [b.shape[d] for d in rf]
    k = int(np.prod([a.shape[d] for d in lc], dtype=np.int64))
    a2 = np.transpose(a, list(lb) + lf + list(lc)).reshape(
        int(np.prod(batch, dtype=np.int64)), int(np.prod(m, dtype=np.int64)), k)
    b2 = np.transpose(b, list(rb) + list(rc) + rf).reshape(
        int(np.prod(batch, dtype=np.int64)), k, int(np.prod(n, dtype=np.int64)))
    return _arr(np.matmul(a2, b2).reshape(batch + m + n), dt)


@register_specialized(hlo.DotGeneralOp)
def _dot_general(op):
    dn = op.dot_dimension_numbers
    dims = [dn.value(f) for f in ("lhs_batching_dimensions", "rhs_batching_dimensions",
                                  "lhs_contracting_dimensions", "rhs_contracting_dimensions")]
    dt = _result_dtype(op)
    return lambda interp, op, args: (dot_general(args[0], args[1], *dims, dt),)


@register_specialized(hlo.DotOp)
def _dot(op):
    dt = _result_dtype(op)

    def rule(interp, op, args):
        a, b = args
        return (dot_general(a, b, (), (), (a.ndim - 1,), (0,), dt),)

    return rule


def convolution(x, w, dn: hlo.ConvDimensionNumbersAttr, win: dict, fg: int, bg: int, dt) -> np.ndarray:
    """StableHLO convolution through a canonical layout (N, C, spatial) x (O, I, spatial)."""
    ib, if_, isp = dn.layout("input")
    ki, ko, ksp = dn.layout("kernel")
    ob, of, osp = dn.layout("output")
    x = np.transpose(x, [ib, if_, *isp])
    w = np.transpose(w, [ko, ki, *ksp])
    nsp = len(isp)
    zero = np.zeros((), x.dtype)
    x = pad(x, zero, [0, 0] + [lo for lo, _ in win["pad"]], [0, 0] + [hi for _, hi in win["pad"]],
            [0, 0] + [d - 1 for d in win["lhs_dilate"]])
    if any(win["reverse"]):
        w = np.flip(w, [2 + i for i, r in enumerate(win["reverse"]) if r])
    ksize = w.shape[2:]
    span = [(k - 1) * d + 1 for k, d in zip(ksize, win["rhs_dilate"])]
    out_sp = [max(0, (n - s) // st + 1) if n >= s else 0
              for n, s, st in zip(x.shape[2:], span, win["stride"])]
    n, c = x.shape[:2]
    o, i = w.shape[:2]
    # batch groups: group g reads the g-th slice of the batch and writes the g-th slice of features
    xg = x.reshape((bg, n // bg, fg, c // fg) + x.shape[2:])
    wg = w.reshape((bg, fg, o // (bg * fg), i) + w.shape[2:])
    acc = np.zeros((bg, n // bg, fg, o // (bg * fg), *out_sp), dtype=np.result_type(x, w))
    for kk in itertools.product(*(range(k) for k in ksize)):
        window = tuple(slice(k * d, k * d + (m - 1) * st + 1, st) if m else slice(0, 0)
                       for k, d, m, st in zip(kk, win["rhs_dilate"], out_sp, win["stride"]))
        xs = xg[(slice(None),) * 4 + window]  # (bg, n', fg, i, *out)
        acc += np.einsum("bngi...,bgoi->bngo...", xs, wg[(slice(None),) * 4 + kk])
    # features: batch group major, then feature group, then the group's outputs
    out = np.transpose(acc, (1, 0, 2, 3, *range(4, 4 + nsp))).reshape((n // bg, o, *out_sp))
    inverse = np.argsort([ob, of, *osp])
    return _arr(np.transpose(out, inverse), dt)


@register_specialized(hlo.ConvolutionOp)
def _convolution(op):
    dn, win = op.dimension_numbers, op.window()
    fg, bg = op.feature_group_count.value.data, op.batch_group_count.value.data
    dt = _result_dtype(op)
    return lambda interp, op, args: (convolution(args[0], args[1], dn, win, fg, bg, dt),)


# --------------------------------------------------------------------------
# Bodies: recognizing one-op reductions, running others vectorized

_UFUNCS = {hlo.AddOp: (np.add, np.logical_or), hlo.MultiplyOp: (np.multiply, np.logical_and),
           hlo.MaximumOp: (np.maximum, np.logical_or), hlo.MinimumOp: (np.minimum, np.logical_and),
           hlo.AndOp: (np.bitwise_and, np.logical_and), hlo.OrOp: (np.bitwise_or, np.logical_or),
           hlo.XorOp: (np.bitwise_xor, np.logical_xor)}

REPLACE = "replace"


def body_ufunc(region, dt: np.dtype):
    """The numpy ufunc a two-argument body computes (one known op on its arguments), or
    REPLACE when it returns its second argument, or None."""
    block = region.blocks.first
    if block is None or len(block.args) != 2:
        return None
    ops = list(block.ops)
    a, b = block.args
    if len(ops) == 1 and list(ops[0].operands) == [b]:
        return REPLACE
    if len(ops) != 2:
        return None
    inner, ret = ops
    if type(inner) not in _UFUNCS or list(ret.operands) != [inner.results[0]]:
        return None
    if set(inner.operands) != {a, b} or len(inner.operands) != 2:
        return None
    ufunc, bool_ufunc = _UFUNCS[type(inner)]
    if dt == _BOOL:
        return bool_ufunc
    if dt.kind == "f" and ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor):
        return None
    return ufunc


def run_body(interp, region, args):
    """Run a body on arrays of many positions at once (elementwise bodies)."""
    saved = interp.check_types
    interp.check_types = False  # the body's 0-d types describe one position of these arrays
    try:
        return interp.run_region(region, tuple(args))[1]
    finally:
        interp.check_types = saved


# --------------------------------------------------------------------------
# reduce, reduce_window, select_and_scatter


@register_specialized(hlo.ReduceOp)
def _reduce(op):
    dims = tuple(hlo.ints(op.dimensions))
    n = len(op.inputs)
    dts = [dtype_of(r.type) for r in op.outs]
    ufunc = body_ufunc(op.body, dts[0]) if n == 1 else None
    if ufunc is REPLACE:
        ufunc = None

    def rule(interp, op, args):
        xs, inits = args[:n], args[n:]
        if ufunc is not None:
            if not dims:
                return (_arr(ufunc(inits[0], xs[0]), dts[0]),)
            return (_arr(ufunc.reduce(xs[0], axis=dims, initial=inits[0][()]), dts[0]),)
        keep = [d for d in range(xs[0].ndim) if d not in dims]
        out_shape = [xs[0].shape[d] for d in keep]
        lines = [np.transpose(x, keep + list(dims)).reshape(out_shape + [-1]) for x in xs]
        acc = [np.broadcast_to(c, out_shape) for c in inits]
        for k in range(lines[0].shape[-1]):
            acc = run_body(interp, op.body, [*acc, *(line[..., k] for line in lines)])
        return tuple(_arr(a, dt) for a, dt in zip(acc, dts))

    return rule


def _windows(x, init, w):
    """(padded operand, sliding windows of shape out + window) for a window description."""
    rank = x.ndim
    padded = pad(x, init, [lo for lo, _ in w["padding"]], [hi for _, hi in w["padding"]],
                 [d - 1 for d in w["base_dilations"]])
    span = [(k - 1) * d + 1 for k, d in zip(w["window_dimensions"], w["window_dilations"])]
    out = hlo.reduce_window_shape(x.shape, w)
    if any(p < s for p, s in zip(padded.shape, span)) or 0 in out:
        empty = np.empty(tuple(out) + tuple(w["window_dimensions"]), x.dtype)
        return padded, empty
    view = np.lib.stride_tricks.sliding_window_view(padded, span)
    index = tuple(slice(None, None, st) for st in w["window_strides"]) + \
        tuple(slice(None, None, d) for d in w["window_dilations"])
    view = view[index]
    return padded, view[tuple(slice(0, o) for o in out) + (slice(None),) * rank]


@register_specialized(hlo.ReduceWindowOp)
def _reduce_window(op):
    n = len(op.inputs)
    w = op.window()
    dts = [dtype_of(r.type) for r in op.outs]
    ufunc = body_ufunc(op.body, dts[0]) if n == 1 else None
    if ufunc is REPLACE:
        ufunc = None

    def rule(interp, op, args):
        xs, inits = args[:n], args[n:]
        views = [_windows(x, c, w)[1] for x, c in zip(xs, inits)]
        rank = xs[0].ndim
        axes = tuple(range(rank, 2 * rank))
        if ufunc is not None:
            return (_arr(ufunc.reduce(views[0], axis=axes, initial=inits[0][()]), dts[0]),)
        out_shape = views[0].shape[:rank]
        flat = [v.reshape(out_shape + (-1,)) for v in views]
        acc = [np.broadcast_to(c, out_shape) for c in inits]
        for k in range(flat[0].shape[-1]):
            acc = run_body(interp, op.body, [*acc, *(f[..., k] for f in flat)])
        return tuple(_arr(a, dt) for a, dt in zip(acc, dts))

    return rule


@register_specialized(hlo.SelectAndScatterOp)
def _select_and_scatter(op):
    w = op.window()
    dt = _result_dtype(op)
    combine = body_ufunc(op.scatter, dt)

    def rule(interp, op, args):
        x, source, init = args
        rank = x.ndim
        # positions of the operand (-1 in the padding), windowed like the operand
        positions = np.arange(x.size).reshape(x.shape)
        _, pos_view = _windows(positions, np.asarray(-1), w)
        _, val_view = _windows(x, np.zeros((), x.dtype), w)
        out_shape = val_view.shape[:rank]
        vals = val_view.reshape(out_shape + (-1,))
        pos = pos_view.reshape(out_shape + (-1,))
        best, best_pos = vals[..., 0], pos[..., 0]
        for k in range(1, vals.shape[-1]):
            v, p = vals[..., k], pos[..., k]
            keep = np.asarray(run_body(interp, op.select, [best, v])[0], bool)
            keep = (keep | (p < 0)) & ~((best_pos < 0) & (p >= 0))  # padding is never selected
            best, best_pos = np.where(keep, best, v), np.where(keep, best_pos, p)
        result = np.full(x.size, init, dtype=dt)
        targets, updates = best_pos.reshape(-1), source.reshape(-1)
        inside = targets >= 0
        if combine is not None and combine is not REPLACE and dt != _BOOL:
            combine.at(result, targets[inside], updates[inside])
        else:
            for t, u in zip(targets[inside], updates[inside]):
                result[t] = run_body(interp, op.scatter, [result[t:t + 1].reshape(()), u.reshape(())])[0]
        return (result.reshape(x.shape),)

    return rule


# --------------------------------------------------------------------------
# gather, scatter


def _start_indices(indices, ivd: int, index_map, operand_batching, indices_batching, op_rank: int):
    """Per operand dim: the start index as an array over the index batch dims (None: 0)."""
    if ivd == indices.ndim:
        indices = indices[..., None]
    else:
        indices = np.moveaxis(indices, ivd, -1)
    batch_shape = indices.shape[:-1]
    starts: list = [None] * op_rank
    for k, d in enumerate(index_map):
        starts[d] = indices[..., k].astype(np.int64)
    for od, idim in zip(operand_batching, indices_batching):
        pos = idim - (1 if idim > ivd else 0)
        view = [1] * len(batch_shape)
        view[pos] = batch_shape[pos]
        starts[od] = np.broadcast_to(np.arange(batch_shape[pos]).reshape(view), batch_shape)
    return starts, batch_shape


def _place(arr, positions, rank):
    """``arr`` (dims in order) as an array of ``rank`` dims, its dims at ``positions``."""
    view = [1] * rank
    for p, n in zip(positions, arr.shape):
        view[p] = n
    return arr.reshape(view)


@register_specialized(hlo.GatherOp)
def _gather(op):
    dn = op.dimension_numbers
    offset, collapsed = dn.value("offset_dims"), dn.value("collapsed_slice_dims")
    obatch, ibatch = dn.value("operand_batching_dims"), dn.value("start_indices_batching_dims")
    index_map, ivd = dn.value("start_index_map"), dn.value("index_vector_dim")
    sizes = hlo.ints(op.slice_sizes)
    out_rank = len(_result_shape(op))
    batch_dims = [d for d in range(out_rank) if d not in offset]
    kept = [d for d in range(len(sizes)) if d not in collapsed and d not in obatch]

    def rule(interp, op, args):
        x, indices = args
        starts, _ = _start_indices(indices, ivd, index_map, obatch, ibatch, x.ndim)
        index = []
        for d in range(x.ndim):
            s = starts[d]
            s = np.zeros((1,) * len(batch_dims), np.int64) if s is None else s
            if d not in obatch:
                s = np.clip(s, 0, x.shape[d] - sizes[d])
            full = _place(s, batch_dims, out_rank)
            if d in kept:
                full = full + _place(np.arange(sizes[d]), [offset[kept.index(d)]], out_rank)
            index.append(full)
        return (x[tuple(index)],)

    return rule


@register_specialized(hlo.ScatterOp)
def _scatter(op):
    dn = op.scatter_dimension_numbers
    window, inserted = dn.value("update_window_dims"), dn.value("inserted_window_dims")
    ibatch, sbatch = dn.value("input_batching_dims"), dn.value("scatter_indices_batching_dims")
    to_operand, ivd = dn.value("scatter_dims_to_operand_dims"), dn.value("index_vector_dim")
    n = len(op.inputs)
    dts = [dtype_of(r.type) for r in op.outs]
    combine = body_ufunc(op.update_computation, dts[0]) if n == 1 else None

    def rule(interp, op, args):
        xs, indices, updates = args[:n], args[n], args[n + 1:]
        rank = xs[0].ndim
        urank = updates[0].ndim
        scatter_dims = [d for d in range(urank) if d not in window]
        kept = [d for d in range(rank) if d not in inserted and d not in ibatch]
        starts, _ = _start_indices(indices, ivd, to_operand, ibatch, sbatch, rank)
        index, inside = [], np.ones(updates[0].shape, bool)
        for d in range(rank):
            s = starts[d]
            s = np.zeros((1,) * len(scatter_dims), np.int64) if s is None else s
            full = _place(s, scatter_dims, urank)
            if d in kept:
                wd = window[kept.index(d)]
                full = full + _place(np.arange(updates[0].shape[wd]), [wd], urank)
            full = np.broadcast_to(full, updates[0].shape)
            inside &= (full >= 0) & (full < xs[0].shape[d])
            index.append(full[inside])
        index = tuple(index)
        results = [np.array(x, copy=True) for x in xs]
        if combine is REPLACE:
            results[0][index] = updates[0][inside]
        elif combine is not None:
            combine.at(results[0], index, updates[0][inside])
        else:
            picked = [u[inside] for u in updates]
            for k, at in enumerate(zip(*index)):
                old = [r[at] for r in results]
                new = run_body(interp, op.update_computation,
                               [*(np.asarray(v) for v in old), *(np.asarray(p[k]) for p in picked)])
                for r, v in zip(results, new):
                    r[at] = v
        return tuple(_arr(r, dt) for r, dt in zip(results, dts))

    return rule


# --------------------------------------------------------------------------
# sort


@register_specialized(hlo.SortOp)
def _sort(op):
    dim = op.sort_dimension()

    def rule(interp, op, args):
        moved = [np.moveaxis(x, dim, -1) for x in args]
        shape = moved[0].shape
        flat = [m.reshape(-1, shape[-1]) for m in moved]
        outs = [np.empty_like(f) for f in flat]
        for row in range(flat[0].shape[0]):
            def before(i, j):
                pair = [v for f in flat for v in (np.asarray(f[row, i]), np.asarray(f[row, j]))]
                if run_body(interp, op.comparator, pair)[0]:
                    return -1
                pair = [v for f in flat for v in (np.asarray(f[row, j]), np.asarray(f[row, i]))]
                return 1 if run_body(interp, op.comparator, pair)[0] else 0

            order = sorted(range(shape[-1]), key=functools.cmp_to_key(before))
            for o, f in zip(outs, flat):
                o[row] = f[row, order]
        return tuple(np.moveaxis(o.reshape(shape), -1, dim) for o in outs)

    return rule


# --------------------------------------------------------------------------
# Control flow


@register(hlo.WhileOp)
def _while(interp, op, args):
    values = list(args)
    run = interp.run_region
    while run(op.cond, values)[1][0]:
        values = run(op.body, values)[1]
    return tuple(values)


@register(hlo.CaseOp)
def _case(interp, op, args):
    branches = op.branches
    i = int(args[0])
    if not 0 <= i < len(branches):
        i = len(branches) - 1
    return tuple(interp.run_region(branches[i], ())[1])


@register(hlo.IfOp)
def _if(interp, op, args):
    region = op.true_branch if args[0] else op.false_branch
    return tuple(interp.run_region(region, ())[1])


@register(hlo.OptimizationBarrierOp)
def _barrier(interp, op, args):
    return tuple(args)


register_exit(hlo.ReturnOp)
