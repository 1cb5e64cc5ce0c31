"""Derivative rules of the `tensor` dialect's structural ops.

The elementwise ops need none: their rules come from the partial derivatives
of their declarations (``irtoolkit/dialects/elementwise.py``). Structural ops
are linear: their JVP applies the op to the tangent, their VJP is the
transposed op (extract <-> insert, broadcast <-> reduce_sum, collapse <->
expand, ...).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, TensorType

from irtoolkit.dialects import tensor
from irtoolkit.passes.ad.emit import DYN, is_float
from irtoolkit.passes.ad.rules import (
    ElementContribution,
    SliceContribution,
    linear_unary,
    nondiff,
    register,
    structural,
)
from irtoolkit.passes.ad.rules_arith import select_jvp, select_vjp
from irtoolkit.ties import reduce_weights

register(tensor.SelectOp, select_jvp, select_vjp)
nondiff(tensor.EmptyOp, tensor.DimOp)
structural(tensor.YieldOp)


def _with_operand(E, op, ins, index: int, value):
    """``op`` cloned into the generated code with operand ``index`` replaced by ``value``."""
    mapper = {old: new for old, new in zip(op.operands, ins)}
    new = op.clone(value_mapper=mapper)
    new.operands[index] = value
    return E.v(new)


def _same_op(E, op, t, ins, outs):
    return _with_operand(E, op, ins, 0, t)


# -- convert -------------------------------------------------------------------
def _convert_jvp(E, op, ins, outs, tangents):
    t = tangents[0]
    if t is None or not is_float(outs[0].type.get_element_type()):
        return [None]
    return [E.v(tensor.ConvertOp(t, outs[0].type))]


def _convert_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    if a is None or not need[0]:
        return [None]
    return [E.v(tensor.ConvertOp(a, ins[0].type))]


register(tensor.ConvertOp, _convert_jvp, _convert_vjp)


# -- matmul --------------------------------------------------------------------
def _matmul_jvp(E, op, ins, outs, tangents):
    a, b = ins
    ta, tb = tangents
    total = None
    if ta is not None:
        total = E.matmul(ta, b)
    if tb is not None:
        total = E.accumulate(total, E.matmul(a, tb))
    return [total]


def _matmul_vjp(E, op, ins, outs, adjoints, need):
    a, b = ins
    (g,) = adjoints
    da = E.matmul(g, E.transpose(b, [1, 0])) if need[0] else None
    db = E.matmul(E.transpose(a, [1, 0]), g) if need[1] else None
    return [da, db]


register(tensor.MatmulOp, _matmul_jvp, _matmul_vjp)


# -- transpose, broadcast, reductions ---------------------------------------------
def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


linear_unary(
    tensor.TransposeOp,
    _same_op,
    lambda E, op, a, ins, outs: E.transpose(a, _inverse(op.permutation.get_values())),
)


def _broadcast_transpose(E, op, a, ins, outs):
    in_t: TensorType = ins[0].type
    out_t: TensorType = outs[0].type
    dims = list(op.dimensions.get_values())
    in_shape, out_shape = in_t.get_shape(), out_t.get_shape()
    expanded = [i for i, d in enumerate(dims) if in_shape[i] == 1 and out_shape[d] != 1]
    reduce_dims = sorted({d for d in range(len(out_shape)) if d not in dims} | {dims[i] for i in expanded})
    s = E.reduce_sum(a, reduce_dims) if reduce_dims else a
    if expanded:
        kept = [i for i in range(len(in_shape)) if i not in expanded]
        s = E.broadcast(s, kept, in_t)
    return s


linear_unary(tensor.BroadcastOp, _same_op, _broadcast_transpose)


def _kept_dims(rank, dims):
    return [i for i in range(rank) if i not in set(dims)]


def _broadcast_like(E, op, a, kept, like):
    """broadcast(a, kept) to the shape of the value ``like`` (dynamic dims too)."""
    lt: TensorType = like.type
    shape = lt.get_shape()
    uncovered = [d for i, d in enumerate(shape) if d == DYN and i not in kept]
    if not uncovered:
        return E.broadcast(a, kept, lt)
    if a.type.get_num_dims() == 0:
        sizes = [E.dim(like, i) for i, d in enumerate(shape) if d == DYN]
        return E.v(tensor.SplatOp(E.extract(a, []), sizes, lt))
    from irtoolkit.diagnostics import op_error

    raise op_error(op, "cannot differentiate: the adjoint needs a broadcast along a dynamic "
                       "dimension (tensor.broadcast takes no dynamic sizes)")


linear_unary(
    tensor.ReduceSumOp,
    _same_op,
    lambda E, op, a, ins, outs: _broadcast_like(
        E, op, a, _kept_dims(ins[0].type.get_num_dims(), op.dimensions.get_values()), ins[0]
    ),
)


def _extreme_weights(E, op, x, y):
    """Where x attains the max (or min) of the reduction (ties share equally, ties.py)."""
    dims = list(op.dimensions.get_values())
    kept = _kept_dims(x.type.get_num_dims(), dims)
    return reduce_weights(E, x, y, dims, lambda v: _broadcast_like(E, op, v, kept, x)), kept


def _prod_weights(E, op, x, y):
    """∂y/∂x: the product of the other elements, without dividing by zero: with no
    zero, (product of x) / x; with one zero, the product of the others where x is
    that zero and 0 elsewhere; with more, 0."""
    dims = list(op.dimensions.get_values())
    kept = _kept_dims(x.type.get_num_dims(), dims)
    zero, one = E.zeros(x), E.const(1.0, x)
    is_zero = E.cmp("eq", x, zero)
    nonzero = E.select(is_zero, one, x)
    product = _broadcast_like(E, op, E.v(tensor.ReduceProdOp(nonzero, dims)), kept, x)
    zeros = _broadcast_like(E, op, E.reduce_sum(E.select(is_zero, one, zero), dims), kept, x)
    only_zero = E.select(is_zero, E.select(E.cmp("eq", zeros, one), product, zero), zero)
    return E.select(E.cmp("eq", zeros, zero), E.div(product, nonzero), only_zero), kept


def _weighted_reduction(weights):
    """The JVP and VJP of a reduction y = reduce(x) with ∂y/∂x = weights(E, op, x, y)."""

    def jvp(E, op, ins, outs, tangents):
        t = tangents[0]
        if t is None:
            return [None]
        w, _ = weights(E, op, ins[0], outs[0])
        return [E.reduce_sum(E.mul(t, w), list(op.dimensions.get_values()))]

    def vjp(E, op, ins, outs, adjoints, need):
        a = adjoints[0]
        if a is None or not need[0]:
            return [None]
        w, kept = weights(E, op, ins[0], outs[0])
        return [E.mul(_broadcast_like(E, op, a, kept, ins[0]), w)]

    return jvp, vjp


register(tensor.ReduceMaxOp, *_weighted_reduction(_extreme_weights))
register(tensor.ReduceMinOp, *_weighted_reduction(_extreme_weights))
register(tensor.ReduceProdOp, *_weighted_reduction(_prod_weights))
nondiff(tensor.ArgMaxOp, tensor.ArgMinOp, tensor.IotaOp)
linear_unary(
    tensor.ReverseOp,
    _same_op,
    lambda E, op, a, ins, outs: E.v(tensor.ReverseOp(a, op.dimensions, ins[0].type)),
)


# -- dot (StableHLO dot_general): its derivatives are dots --------------------------
def _dot_jvp(E, op, ins, outs, tangents):
    a, b = ins
    ta, tb = tangents
    d = op.dims
    batch, contract = (d.lhs_batch, d.rhs_batch), (d.lhs_contract, d.rhs_contract)
    total = None
    if ta is not None:
        total = E.v(tensor.DotOp(ta, b, batch, contract, outs[0].type))
    if tb is not None:
        total = E.accumulate(total, E.v(tensor.DotOp(a, tb, batch, contract, outs[0].type)))
    return [total]


def _dot_operand_adjoint(E, g, x, y, x_batch, y_batch, x_contract, y_contract, x_is_lhs: bool):
    """The adjoint of operand ``x`` of a dot with the other operand ``y`` and result
    adjoint ``g``: a dot of g and y over y's free dims, batched as the original,
    with the operands in the order that needs no transpose when there is one."""
    nb = len(x_batch)
    x_rank, y_rank = x.type.get_num_dims(), y.type.get_num_dims()
    x_free = [i for i in range(x_rank) if i not in (*x_batch, *x_contract)]
    y_free = [i for i in range(y_rank) if i not in (*y_batch, *y_contract)]
    first = nb if x_is_lhs else nb + len(y_free)
    g_x = list(range(first, first + len(x_free)))
    g_y = [i for i in range(nb, nb + len(x_free) + len(y_free)) if i not in g_x]
    # y's remaining (contracting) dims come out in y's order: the x dims they pair with
    x_by_y = [x_contract[y_contract.index(i)] for i in sorted(y_contract)]
    g_batch = list(range(nb))
    options = [
        ((y, g), ((y_batch, g_batch), (y_free, g_y)), [*x_batch, *x_by_y, *x_free]),
        ((g, y), ((g_batch, y_batch), (g_y, y_free)), [*x_batch, *x_free, *x_by_y]),
    ]
    (lhs, rhs), (batch, contract), layout = next(
        (o for o in options if o[2] == sorted(o[2])), options[1])
    xt: TensorType = x.type
    shape = xt.get_shape()
    dot_type = TensorType(xt.get_element_type(), [shape[i] for i in layout])
    r = E.v(tensor.DotOp(lhs, rhs, batch, contract, dot_type))
    if layout == sorted(layout):
        return r
    return E.transpose(r, _inverse(layout))


def _dot_vjp(E, op, ins, outs, adjoints, need):
    a, b = ins
    (g,) = adjoints
    if g is None:
        return [None, None]
    d = op.dims
    da = _dot_operand_adjoint(E, g, a, b, d.lhs_batch, d.rhs_batch, d.lhs_contract, d.rhs_contract,
                              True) if need[0] else None
    db = _dot_operand_adjoint(E, g, b, a, d.rhs_batch, d.lhs_batch, d.rhs_contract, d.lhs_contract,
                              False) if need[1] else None
    return [da, db]


register(tensor.DotOp, _dot_jvp, _dot_vjp)


# -- element access ---------------------------------------------------------------
def _extract_jvp(E, op, ins, outs, tangents):
    t = tangents[0]
    return [None if t is None else E.extract(t, ins[1:])]


def _extract_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    res = [None] * len(ins)
    if a is not None and need[0]:
        res[0] = ElementContribution(a, list(ins[1:]))
    return res


register(tensor.ExtractOp, _extract_jvp, _extract_vjp)


def _insert_jvp(E, op, ins, outs, tangents):
    s, d = ins[0], ins[1]
    ts, td = tangents[0], tangents[1]
    if ts is None and td is None:
        return [None]
    return [E.insert(ts if ts is not None else E.zeros(s), td if td is not None else E.zeros(d), ins[2:])]


def _insert_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    res = [None] * len(ins)
    if a is None:
        return res
    if need[0]:
        res[0] = E.extract(a, ins[2:])
    if need[1]:
        res[1] = E.insert(E.zeros(ins[0]), a, ins[2:])
    return res


register(tensor.InsertOp, _insert_jvp, _insert_vjp)


def _from_elements_jvp(E, op, ins, outs, tangents):
    if all(t is None for t in tangents):
        return [None]
    ts = [t if t is not None else E.zeros(v) for t, v in zip(tangents, ins)]
    return [E.v(tensor.FromElementsOp(*ts, result_type=outs[0].type))]


def _unravel(i, shape):
    idx = []
    for d in reversed(shape):
        idx.append(i % d)
        i //= d
    return list(reversed(idx))


def _from_elements_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    shape = outs[0].type.get_shape()
    res = []
    for i, n in enumerate(need):
        if a is None or not n:
            res.append(None)
        else:
            res.append(E.extract(a, [E.index(k) for k in _unravel(i, shape)]))
    return res


register(tensor.FromElementsOp, _from_elements_jvp, _from_elements_vjp)


def _splat_vjp(E, op, a, ins, outs):
    return E.full_reduce_to_scalar(a)


linear_unary(tensor.SplatOp, _same_op, _splat_vjp)


# -- slices ------------------------------------------------------------------
def _extract_slice_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    res = [None] * len(ins)
    if a is not None and need[0]:
        offsets, sizes, strides = _mapped_slice_params(op, ins, first=1)
        res[0] = SliceContribution(a, offsets, sizes, strides)
    return res


def _mapped_slice_params(op, ins, first: int):
    """Slice parameters of ``op`` with its dynamic operands mapped to ``ins``."""
    mapper = dict(zip(op.operands, ins))
    offsets, sizes, strides = tensor.slice_params(op)
    m = lambda xs: [x if isinstance(x, int) else mapper[x] for x in xs]  # noqa: E731
    return m(offsets), m(sizes), m(strides)


def _extract_slice_jvp(E, op, ins, outs, tangents):
    t = tangents[0]
    return [None if t is None else _with_operand(E, op, ins, 0, t)]


register(tensor.ExtractSliceOp, _extract_slice_jvp, _extract_slice_vjp)


def _insert_slice_jvp(E, op, ins, outs, tangents):
    ts, td = tangents[0], tangents[1]
    if ts is None and td is None:
        return [None]
    offsets, sizes, strides = _mapped_slice_params(op, ins, first=2)
    ts = ts if ts is not None else E.zeros(ins[0])
    td = td if td is not None else E.zeros(ins[1])
    return [E.insert_slice(ts, td, offsets, sizes, strides)]


def _insert_slice_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    res = [None] * len(ins)
    if a is None:
        return res
    offsets, sizes, strides = _mapped_slice_params(op, ins, first=2)
    if need[0]:
        res[0] = E.extract_slice(a, offsets, sizes, strides, ins[0].type)
    if need[1]:
        res[1] = E.insert_slice(E.zeros(ins[0]), a, offsets, sizes, strides)
    return res


register(tensor.InsertSliceOp, _insert_slice_jvp, _insert_slice_vjp)


# -- reshapes ----------------------------------------------------------------
def _collapse_vjp(E, op, a, ins, outs):
    in_t: TensorType = ins[0].type
    if DYN in in_t.get_shape():
        from irtoolkit.diagnostics import op_error

        raise op_error(op, "cannot differentiate a collapse of a dynamically shaped tensor")
    return E.v(tensor.ExpandShapeOp(a, [], op.reassociation, list(in_t.get_shape()), in_t))


def _expand_vjp(E, op, a, ins, outs):
    return E.v(tensor.CollapseShapeOp(a, op.reassociation, ins[0].type))


linear_unary(tensor.CollapseShapeOp, _same_op, _collapse_vjp)
linear_unary(tensor.ExpandShapeOp, _same_op, _expand_vjp)
linear_unary(tensor.CastOp, _same_op, lambda E, op, a, ins, outs: E.v(tensor.CastOp(a, ins[0].type)))


def _reshape_vjp(E, op, a, ins, outs):
    in_t: TensorType = ins[0].type
    shape = list(in_t.get_shape())
    if DYN in shape:
        from irtoolkit.diagnostics import op_error

        raise op_error(op, "cannot differentiate a reshape of a dynamically shaped tensor")
    st = TensorType(IndexType(), [len(shape)])
    shape_v = E.v(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(st, shape)))
    return E.v(tensor.ReshapeOp(a, shape_v, in_t))


linear_unary(tensor.ReshapeOp, _same_op, _reshape_vjp)


# -- concat ------------------------------------------------------------------
def _concat_jvp(E, op, ins, outs, tangents):
    if all(t is None for t in tangents):
        return [None]
    ts = [t if t is not None else E.zeros(v) for t, v in zip(tangents, ins)]
    return [E.v(tensor.ConcatOp(ts, op.dim, outs[0].type))]


def _concat_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    dim = op.dim.value.data
    res = []
    offset = 0
    rank = outs[0].type.get_num_dims()
    for v, n in zip(ins, need):
        vt: TensorType = v.type
        size = vt.get_shape()[dim]
        if a is not None and n:
            if DYN in vt.get_shape():
                from irtoolkit.diagnostics import op_error

                raise op_error(op, "cannot differentiate a concat of dynamically shaped tensors")
            offsets = [0] * rank
            offsets[dim] = offset
            res.append(E.extract_slice(a, offsets, list(vt.get_shape()), [1] * rank, vt))
        else:
            res.append(None)
        offset += size if size != DYN else 0
    return res


register(tensor.ConcatOp, _concat_jvp, _concat_vjp)


# -- pad: linear in its source and in its padding value -------------------------
# The padding value is what the region yields; a value captured from outside
# the region is an input of the rules (rules.rule_inputs), after the operands.
def _padding_input(op):
    """Position among the captured values of the value the region yields, or None
    when it is computed inside the region."""
    from irtoolkit.passes.ad.rules import captured_values

    (value,) = op.region.block.last_op.operands
    captured = captured_values(op)
    return captured.index(value) if value in captured else None


def _check_padding(op, active_captures) -> int | None:
    """The active captured input that is the padding value (None if none is active);
    an error when the region computes the padding value from an active value."""
    k = _padding_input(op)
    if any(j != k for j in active_captures):
        from irtoolkit.diagnostics import op_error

        raise op_error(op, "cannot differentiate a padding value computed inside the region from a "
                           "differentiated value; compute it before the tensor.pad and yield it")
    return k if k in active_captures else None


def _pad_like(E, op, ins, source, value):
    """``op`` on ``source`` (in the generated code), padding with the scalar ``value`` (0 if None)."""
    mapper = {old: new for old, new in zip(op.operands, ins)}
    new = op.clone(value_mapper=mapper)
    new.operands[0] = source
    block = new.region.block
    term = block.last_op
    for o in reversed(list(block.ops)):
        if o is not term:
            block.erase_op(o, safe_erase=False)
    if value is None:
        from irtoolkit.passes.ad.emit import Emitter

        value = Emitter(block, term, E.loc).zeros(term.operands[0].type)
    term.operands = [value]
    return E.v(new)


def _pad_jvp(E, op, ins, outs, tangents):
    n = len(op.operands)
    captured = tangents[n:]
    k = _check_padding(op, [j for j, t in enumerate(captured) if t is not None])
    ts, tp = tangents[0], (captured[k] if k is not None else None)
    if ts is None and tp is None:
        return [None]
    return [_pad_like(E, op, ins, ts if ts is not None else E.zeros(ins[0]), tp)]


def _pad_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    res = [None] * len(ins)
    n = len(op.operands)
    k = _check_padding(op, [j for j, nd in enumerate(need[n:]) if nd])
    if a is None:
        return res
    if need[0]:
        low = list(op.static_low.get_values())
        src_t: TensorType = ins[0].type
        if DYN in low or DYN in src_t.get_shape():
            from irtoolkit.diagnostics import op_error

            raise op_error(op, "cannot differentiate a pad with dynamic sizes")
        res[0] = E.extract_slice(a, low, list(src_t.get_shape()), [1] * len(low), src_t)
    if k is not None:
        # the sum of the cotangent over the padded positions (a mask: no cancellation)
        one = E.const(1.0, outs[0].type.get_element_type())
        mask = _pad_like(E, op, ins, E.zeros(ins[0]), one)
        res[n + k] = E.full_reduce_to_scalar(E.mul(a, mask))
    return res


register(tensor.PadOp, _pad_jvp, _pad_vjp)

