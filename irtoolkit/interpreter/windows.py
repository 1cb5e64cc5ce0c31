"""Rules for the windowed ``tensor`` ops: ``conv``, ``reduce_window_sum`` /
``reduce_window_max`` and the latter's derivatives ``window_max_select`` /
``window_max_scatter`` (StableHLO's convolution, reduce_window and
select-and-scatter, channels last).

Each is written as the definition reads: the operand dilated and padded
(negative padding crops), then one strided slice per window position,
combined; accumulation is in the operand's dtype, as the compiled code does.
"""

from __future__ import annotations

import itertools

import numpy as np

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import tensor
from irtoolkit.dialects.tensor import windowed_size
from irtoolkit.interpreter.core import register


def dilate_and_pad(x: np.ndarray, dims: range | list[int], dilation, pads, fill) -> np.ndarray:
    """``x`` with ``dilation[i] - 1`` fills between elements of dim ``dims[i]``
    and ``pads[i] = (lo, hi)`` fills around it (a negative count crops)."""
    shape = list(x.shape)
    for d, ld in zip(dims, dilation):
        shape[d] = 0 if x.shape[d] == 0 else (x.shape[d] - 1) * ld + 1
    dilated = np.full(shape, fill, dtype=x.dtype)
    index = [slice(None)] * x.ndim
    for d, ld in zip(dims, dilation):
        index[d] = slice(None, None, ld)
    dilated[tuple(index)] = x
    widths = [(0, 0)] * x.ndim
    crop = [slice(None)] * x.ndim
    for d, (lo, hi) in zip(dims, pads):
        widths[d] = (max(lo, 0), max(hi, 0))
    padded = np.pad(dilated, widths, constant_values=fill)
    for d, (lo, hi) in zip(dims, pads):
        crop[d] = slice(max(-lo, 0), padded.shape[d] - max(-hi, 0))
    return padded[tuple(crop)]


def _window_slices(origin, sizes, strides) -> tuple[slice, ...]:
    """The positions ``origin[i] + o * strides[i]`` for o < sizes[i], per dim."""
    return tuple(slice(k, k + (n - 1) * s + 1, s) if n else slice(k, k)
                 for k, n, s in zip(origin, sizes, strides))


def conv(x: np.ndarray, w: np.ndarray, stride, pads, input_dilation, dilation, groups: int) -> np.ndarray:
    """StableHLO convolution, channels last (x: N × S... × C, w: K... × C/G × F)."""
    d = x.ndim - 2
    n, c = x.shape[0], x.shape[-1]
    ks, cg, f = w.shape[:d], w.shape[d], w.shape[-1]
    out = tuple(windowed_size(x.shape[1 + i], ks[i], stride[i], *pads[i], input_dilation[i], dilation[i])
                for i in range(d))
    xp = dilate_and_pad(x, range(1, d + 1), input_dilation, pads, 0)
    xg = xp.reshape(n, *xp.shape[1:-1], groups, c // groups)
    wg = w.reshape(*ks, cg, groups, f // groups)
    y = np.zeros((n, *out, groups, f // groups), dtype=x.dtype)
    for k in itertools.product(*(range(s) for s in ks)):
        origin = [ki * di for ki, di in zip(k, dilation)]
        patch = xg[(slice(None), *_window_slices(origin, out, stride))]  # N × O... × G × Cg
        y += np.einsum("...gc,cgf->...gf", patch, wg[k])
    return y.reshape(n, *out, f)


def window_patches(x: np.ndarray, window, stride, pads, fill):
    """(window position, strided slice of the padded operand) for every window
    position in row-major order, and the pooled shape."""
    xp = dilate_and_pad(x, range(x.ndim), [1] * x.ndim, pads, fill)
    out = tuple(windowed_size(s, w, st, lo, hi) for s, w, st, (lo, hi) in zip(x.shape, window, stride, pads))
    return [(k, xp[_window_slices(k, out, stride)])
            for k in itertools.product(*(range(w) for w in window))], out


def reduce_window(op, x: np.ndarray) -> np.ndarray:
    window, stride, pads = op.window_params()
    fill = x.dtype.type(op.initial())
    patches, out = window_patches(x, window, stride, pads, fill)
    acc = np.full(out, fill, dtype=x.dtype)
    combine = np.add if isinstance(op, tensor.ReduceWindowSumOp) else np.maximum
    for _, p in patches:
        acc = combine(acc, p)
    return acc


def first_max_positions(x: np.ndarray, window, stride, pads):
    """Per window: the index (into the row-major window positions) of its first
    maximal element (padding is -inf, NaN is maximal), and the pooled shape."""
    patches, out = window_patches(x, window, stride, pads, x.dtype.type(-np.inf))
    best = np.full(out, -np.inf, dtype=x.dtype)
    where = np.zeros(out, dtype=np.int64)
    for i, (_, p) in enumerate(patches):
        better = (p > best) | (np.isnan(p) & ~np.isnan(best)) | (i == 0)
        best = np.where(better, p, best)
        where = np.where(better, i, where)
    return patches, where, out


def _window_route(op, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    window, stride, pads = op.window_params()
    patches, where, out = first_max_positions(x, window, stride, pads)
    if isinstance(op, tensor.WindowMaxSelectOp):
        tp = dict((k, p) for k, p in window_patches(v, window, stride, pads, v.dtype.type(0))[0])
        result = np.zeros(out, dtype=x.dtype)
        for i, (k, _) in enumerate(patches):
            result = np.where(where == i, tp[k], result)
        return result
    if v.shape != out:
        raise op_error(op, f"values of shape {v.shape} for windows of shape {out}")
    d = x.ndim
    padded = dilate_and_pad(np.zeros_like(x), range(d), [1] * d, pads, 0)
    for i, (k, _) in enumerate(patches):
        padded[_window_slices(k, out, stride)] += np.where(where == i, v, 0).astype(x.dtype)
    # padded position p is operand element p - lo; padding positions get nothing
    result = np.zeros_like(x)
    src, dst = [], []
    for s, (lo, _), size in zip(x.shape, pads, padded.shape):
        first, last = max(lo, 0), min(size, s + lo)
        src.append(slice(first, max(last, first)))
        dst.append(slice(first - lo, max(last, first) - lo))
    result[tuple(dst)] = padded[tuple(src)]
    return result


@register(tensor.ConvOp)
def _conv(interp, op, args):
    x, w = args
    stride, pads, ldil, rdil, groups = op.params()
    if x.shape[-1] != w.shape[-2] * groups:
        raise op_error(op, f"input features {x.shape[-1]} vs filter input features {w.shape[-2]} "
                           f"times groups {groups} at run time")
    return (conv(x, w, stride, pads, ldil, rdil, groups),)


@register(tensor.ReduceWindowSumOp, tensor.ReduceWindowMaxOp)
def _reduce_window(interp, op, args):
    return (reduce_window(op, args[0]),)


@register(tensor.WindowMaxSelectOp, tensor.WindowMaxScatterOp)
def _window_max_route(interp, op, args):
    return (_window_route(op, *args),)
