"""Derivative rules of `tensor.conv` and the windowed reductions.

A conv is bilinear: its JVP is two convs, and both adjoints are convs again
(so they lower as fast as the forward one):

* input: the output cotangent, dilated by the stride (`input_dilation`),
  convolved with the filter flipped in space and with its two feature dims
  swapped per group, at stride `input_dilation`;
* filter: the input (batch and features swapped: the batch becomes the
  contracted feature dim) convolved with the cotangent as its filter, whose
  dilation is the forward stride, at stride `dilation`.

`reduce_window_sum` is linear: its adjoint adds the cotangent into the
strided slice of every window position (one slice per window position, in
place). `reduce_window_max` routes derivatives through its first maximal
element per window: `window_max_select` (JVP) and `window_max_scatter` (VJP),
which are each other's transpose.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import tensor
from irtoolkit.passes.ad.emit import DYN
from irtoolkit.passes.ad.rules import linear_unary, register
from irtoolkit.passes.ad.rules_tensor import _with_operand


def _static(op, t: TensorType, dims, what: str) -> list[int]:
    shape = t.get_shape()
    if any(shape[i] == DYN for i in dims):
        raise op_error(op, f"cannot differentiate: the {what} has dynamic spatial or feature sizes")
    return [shape[i] for i in dims]


def _conv_jvp(E, op, ins, outs, tangents):
    tx, tw = tangents
    total = None
    if tx is not None:
        total = _with_operand(E, op, ins, 0, tx)
    if tw is not None:
        total = E.accumulate(total, _with_operand(E, op, ins, 1, tw))
    return [total]


def _flip(E, w, dims):
    """``w`` reversed along ``dims`` (size-1 slices concatenated backwards)."""
    t: TensorType = w.type
    shape = list(t.get_shape())
    for d in dims:
        if shape[d] == 1:
            continue
        one = [1 if i == d else s for i, s in enumerate(shape)]
        st = TensorType(t.get_element_type(), one)
        parts = [E.extract_slice(w, [k if i == d else 0 for i in range(len(shape))], one, [1] * len(shape), st)
                 for k in reversed(range(shape[d]))]
        w = E.v(tensor.ConcatOp(parts, d, t))
    return w


def _swap_feature_groups(E, v, groups: int, lead: int):
    """... × A × (G·B) -> ... × B × (G·A): per group, the last two dims swapped
    (``lead`` dims before them, static except possibly the first)."""
    t: TensorType = v.type
    shape = list(t.get_shape())
    a, gb = shape[-2], shape[-1]
    b = gb // groups
    perm = [*range(lead), lead + 1, lead, ]
    if groups == 1:
        return E.transpose(v, perm)
    et = t.get_element_type()
    expanded = TensorType(et, [*shape[:-1], groups, b])
    assoc = [[i] for i in range(lead + 1)] + [[lead + 1, lead + 2]]
    dyn = [E.dim(v, i) for i, s in enumerate(shape[:-1]) if s == DYN]
    v = E.v(tensor.ExpandShapeOp(v, dyn, assoc, [*shape[:-1], groups, b], expanded))
    v = E.transpose(v, [*range(lead), lead + 2, lead + 1, lead])  # ... × B × G × A
    return E.v(tensor.CollapseShapeOp(v, assoc, TensorType(et, [*shape[:-2], b, groups * a])))


def _input_adjoint(E, op, g, x, w):
    xt: TensorType = x.type
    d = op.spatial_rank
    stride, pads, ldil, rdil, groups = op.params()
    sizes = _static(op, xt, range(1, d + 2), "input")
    ks = _static(op, w.type, range(d + 2), "filter")
    outs = _static(op, g.type, range(1, d + 1), "result")
    if 0 in outs or 0 in sizes:
        return E.zeros(x)
    wf = _swap_feature_groups(E, _flip(E, w, range(d)), groups, d)  # K × F/G × C
    new_pads = []
    for i in range(d):
        lo = (ks[i] - 1) * rdil[i] - pads[i][0]
        hi = (sizes[i] - 1) * ldil[i] + (ks[i] - 1) * rdil[i] + 1 - ((outs[i] - 1) * stride[i] + 1) - lo
        new_pads.append([lo, hi])
    return E.v(tensor.ConvOp(g, wf, stride=list(ldil), pad=new_pads, input_dilation=list(stride),
                             dilation=list(rdil), groups=groups, result_type=xt))


def _filter_adjoint(E, op, g, x, w):
    wt: TensorType = w.type
    d = op.spatial_rank
    stride, pads, ldil, rdil, groups = op.params()
    sizes = _static(op, x.type, range(1, d + 2), "input")
    ks = _static(op, wt, range(d + 2), "filter")
    outs = _static(op, g.type, range(1, d + 1), "result")
    if 0 in outs or 0 in sizes:
        return E.zeros(w)
    # input: Cg × S... × (G·N), filter: O... × N × F, result Cg × K... × F
    xs = E.transpose(x, [d + 1, *range(1, d + 1), 0]) if groups == 1 else \
        _batch_to_features(E, x, groups, d)
    gs = E.transpose(g, [*range(1, d + 1), 0, d + 1])
    new_pads = []
    for i in range(d):
        lo = pads[i][0]
        hi = (outs[i] - 1) * stride[i] + (ks[i] - 1) * rdil[i] + 1 - ((sizes[i] - 1) * ldil[i] + 1) - lo
        new_pads.append([lo, hi])
    r = E.v(tensor.ConvOp(xs, gs, stride=list(rdil), pad=new_pads, input_dilation=list(ldil),
                          dilation=list(stride), groups=groups))
    return E.transpose(r, [*range(1, d + 1), 0, d + 1])


def _batch_to_features(E, x, groups: int, d: int):
    """N × S... × (G·Cg) -> Cg × S... × (G·N)."""
    t: TensorType = x.type
    shape = list(t.get_shape())
    et = t.get_element_type()
    cg = shape[-1] // groups
    assoc = [[i] for i in range(d + 1)] + [[d + 1, d + 2]]
    dyn = [E.dim(x, 0)] if shape[0] == DYN else []
    v = E.v(tensor.ExpandShapeOp(x, dyn, assoc, [*shape[:-1], groups, cg], TensorType(et, [*shape[:-1], groups, cg])))
    v = E.transpose(v, [d + 2, *range(1, d + 1), d + 1, 0])  # Cg × S... × G × N
    n = shape[0]
    return E.v(tensor.CollapseShapeOp(v, assoc, TensorType(et, [cg, *shape[1:-1], DYN if n == DYN else groups * n])))


def _conv_vjp(E, op, ins, outs, adjoints, need):
    (g,) = adjoints
    x, w = ins
    if g is None:
        return [None, None]
    return [_input_adjoint(E, op, g, x, w) if need[0] else None,
            _filter_adjoint(E, op, g, x, w) if need[1] else None]


register(tensor.ConvOp, _conv_jvp, _conv_vjp)


# -- windowed reductions ------------------------------------------------------------
def _reduce_window_sum_transpose(E, op, a, ins, outs):
    """Zeros over the padded operand, the cotangent added into each window
    position's strided slice, then the operand's part of it."""
    x = ins[0]
    xt: TensorType = x.type
    window, stride, pads = op.window_params()
    shape = _static(op, xt, range(xt.get_num_dims()), "operand")
    out = list(a.type.get_shape())
    rank = len(shape)
    et = xt.get_element_type()
    padded = [s + lo + hi for s, (lo, hi) in zip(shape, pads)]
    if 0 in out or 0 in shape:
        return E.zeros(x)
    acc = E.zeros(TensorType(et, padded))
    from itertools import product

    for k in product(*(range(w) for w in window)):
        old = E.extract_slice(acc, list(k), out, list(stride), a.type)
        acc = E.insert_slice(E.add(old, a), acc, list(k), out, list(stride))
    # padded position p is operand element p - lo
    first = [max(lo, 0) for lo, _ in pads]
    last = [min(p, s + lo) for p, s, (lo, _) in zip(padded, shape, pads)]
    sizes = [max(b - f, 0) for f, b in zip(first, last)]
    if sizes == shape:
        return E.extract_slice(acc, first, sizes, [1] * rank, xt)
    part = E.extract_slice(acc, first, sizes, [1] * rank, TensorType(et, sizes))
    return E.insert_slice(part, E.zeros(x), [f - lo for f, (lo, _) in zip(first, pads)], sizes, [1] * rank)


linear_unary(
    tensor.ReduceWindowSumOp,
    lambda E, op, t, ins, outs: _with_operand(E, op, ins, 0, t),
    _reduce_window_sum_transpose,
)


def _route(E, op, cls, x, v, result_type):
    window, stride, pads = op.window_params()
    return E.v(cls(x, v, window, stride, [p for pair in pads for p in pair], result_type))


def _reduce_window_max_jvp(E, op, ins, outs, tangents):
    t = tangents[0]
    return [None if t is None else _route(E, op, tensor.WindowMaxSelectOp, ins[0], t, outs[0].type)]


def _reduce_window_max_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    if a is None or not need[0]:
        return [None]
    return [_route(E, op, tensor.WindowMaxScatterOp, ins[0], a, ins[0].type)]


register(tensor.ReduceWindowMaxOp, _reduce_window_max_jvp, _reduce_window_max_vjp)


def _route_jvp(E, op, ins, outs, tangents):
    # the selection is piecewise constant in the operand: only the values carry tangents
    t = tangents[1]
    return [None if t is None else _with_operand(E, op, ins, 1, t)]


def _route_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    if a is None or not need[1]:
        return [None, None]
    cls = tensor.WindowMaxScatterOp if isinstance(op, tensor.WindowMaxSelectOp) else tensor.WindowMaxSelectOp
    return [None, _route(E, op, cls, ins[0], a, ins[1].type)]


register(tensor.WindowMaxSelectOp, _route_jvp, _route_vjp)
register(tensor.WindowMaxScatterOp, _route_jvp, _route_vjp)
