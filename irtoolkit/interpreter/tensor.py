"""Rules for ``tensor``: value-semantic numpy arrays in the exact dtype of the IR type.

The elementwise ops (add ... logistic, cmp, select, convert) have no rule
here: their declared numpy meaning runs (``elementwise.py``). An empty
``reduce_sum`` is 0 and an empty ``reduce_max`` is -inf (the smallest integer
for integer tensors); on ``i1`` a sum is the parity. The numpy meanings of the
reductions, ``dot``, ``argmax``/``argmin`` and ``iota`` live on their classes
(folding uses them too).

No rule writes into an operand: ``insert``/``insert_slice`` copy.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType

from irtoolkit.diagnostics import op_error
from irtoolkit.interpreter.core import (
    dtype_of,
    register,
    register_exit,
    register_specialized,
    shape_with_dynamic,
    static_shape,
)
from irtoolkit.interpreter.memref import (
    check_indices,
    mixed_values,
    reduced_shape,
    slice_spec,
    slices_of,
)

_asarray = np.asarray


def _matmul(interp, op, args):
    a, b = args
    if a.shape[-1] != b.shape[0]:
        raise op_error(op, f"contracting dimensions differ at run time: {a.shape[-1]} vs {b.shape[0]}")
    return (_asarray(np.matmul(a, b)),)


def _make_transpose(op):
    perm = tuple(op.permutation.get_values())
    return lambda interp, op, args: (np.transpose(args[0], perm),)


def _make_broadcast(op):
    dims = tuple(op.dimensions.get_values())
    out = static_shape(op.result.type)
    rank = len(out)

    def rule(interp, op, args):
        x = args[0]
        if x.ndim != len(dims):
            raise op_error(op, f"operand of rank {x.ndim} for {len(dims)} broadcast dimensions")
        expanded = [1] * rank
        target = list(out)
        for i, d in enumerate(dims):
            expanded[d] = x.shape[i]
            if target[d] is None:
                target[d] = x.shape[i]
        if any(t is None for t in target):
            raise op_error(op, "cannot determine a dynamic result dimension that no operand dimension maps to")
        try:
            return (np.broadcast_to(x.reshape(expanded), tuple(target)),)
        except ValueError:
            raise op_error(op, f"cannot broadcast operand of shape {x.shape} to {tuple(target)} "
                               f"along dimensions {list(dims)}") from None

    return rule


def _make_reduce(op):
    """The reduction's own numpy meaning (``tensor.reduce_*.numpy``, which folding uses too)."""
    axes = tuple(op.dimensions.get_values())
    return lambda interp, op, args: (_asarray(op.numpy(args[0], axes)),)


def _make_dot(op):
    dims = op.dims

    def rule(interp, op, args):
        a, b = args
        for what, left, right in (("batch", dims.lhs_batch, dims.rhs_batch),
                                  ("contracting", dims.lhs_contract, dims.rhs_contract)):
            for x, y in zip(left, right):
                if a.shape[x] != b.shape[y]:
                    raise op_error(op, f"{what} dimensions differ at run time: {a.shape[x]} vs {b.shape[y]}")
        return (_asarray(dims.numpy(a, b)),)

    return rule


def _make_reverse(op):
    axes = tuple(op.dimensions.get_values())
    return lambda interp, op, args: (np.flip(args[0], axis=axes),)


def _arg_extreme(interp, op, args):
    return (_asarray(op.numpy(args[0])),)


def _make_iota(op):
    value = np.ascontiguousarray(op.numpy())
    return lambda interp, op, args: (value,)


# ---------------------------------------------------------------------------
# upstream ops


def _make_empty(op):
    t = op.results[0].type
    dt = dtype_of(t)

    def rule(interp, op, args):
        shape = shape_with_dynamic(t, args)
        if any(s < 0 for s in shape):
            raise op_error(op, f"negative dimension size in {shape}")
        return (np.zeros(shape, dtype=dt),)

    return rule


def _make_splat(op):
    t = op.results[0].type
    dt = dtype_of(t)

    def rule(interp, op, args):
        shape = shape_with_dynamic(t, args[1:])
        return (np.full(shape, args[0], dtype=dt),)

    return rule


def _extract(interp, op, args):
    x = args[0]
    idx = tuple(args[1:])
    check_indices(idx, x.shape)
    return (x[idx],)


def _insert(interp, op, args):
    value, dest = args[0], args[1]
    idx = tuple(args[2:])
    check_indices(idx, dest.shape)
    out = np.array(dest, copy=True)
    out[idx] = value
    return (out,)


def _make_from_elements(op):
    t = op.results[0].type
    dt = dtype_of(t)
    shape = shape_with_dynamic(t, ())
    return lambda interp, op, args: (np.array(args, dtype=dt).reshape(shape),)


def _extract_slice(interp, op, args):
    src = args[0]
    offsets, sizes, strides = slice_spec(op, args, 1)
    view = src[slices_of(offsets, sizes, strides, src.shape)]
    return (view.reshape(reduced_shape(op.result.type, sizes)),)


def _insert_slice(interp, op, args):
    src, dest = args[0], args[1]
    offsets, sizes, strides = slice_spec(op, args, 2)
    window = slices_of(offsets, sizes, strides, dest.shape)
    if int(np.prod(sizes, dtype=np.int64)) != src.size:
        raise op_error(op, f"source of shape {src.shape} does not fill a slice of sizes {sizes}")
    out = np.array(dest, copy=True)
    out[window] = src.reshape(sizes)
    return (out,)


def _collapse_shape(interp, op, args):
    src = args[0]
    groups = [[a.value.data for a in g.data] for g in op.reassociation]
    if src.ndim == 0 or not groups:
        shape = tuple(d for d in static_shape(op.result.type))
        return (src.reshape(tuple(1 if d is None else d for d in shape)),)
    shape = tuple(int(np.prod([src.shape[i] for i in g], dtype=np.int64)) for g in groups)
    return (src.reshape(shape),)


def _expand_shape(interp, op, args):
    src = args[0]
    shape, _ = mixed_values(op.static_output_shape.get_values(), args, 1)
    return (src.reshape(tuple(shape)),)


def _dim(interp, op, args):
    x, i = args
    if not 0 <= i < x.ndim:
        raise op_error(op, f"dimension index {int(i)} is out of range for rank {x.ndim}")
    return (np.int64(x.shape[int(i)]),)


def _make_cast(op):
    t = op.results[0].type
    shape = static_shape(t) if isinstance(t, TensorType) else None

    def rule(interp, op, args):
        x = args[0]
        if shape is not None and (
            x.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, x.shape))
        ):
            raise op_error(op, f"value of shape {x.shape} does not match the result type {t}")
        return (x,)

    return rule


def _concat(interp, op, args):
    return (np.concatenate(args, axis=op.dim.value.data),)


def _reshape(interp, op, args):
    src, shape = args
    return (src.reshape(tuple(int(s) for s in shape)),)


def _pad(interp, op, args):
    src = args[0]
    n_low = len(op.low)
    low, _ = mixed_values(op.static_low.get_values(), args, 1)
    high, _ = mixed_values(op.static_high.get_values(), args, 1 + n_low)
    shape = tuple(s + lo + hi for s, lo, hi in zip(src.shape, low, high))
    for i, (got, want) in enumerate(zip(shape, op.result.type.get_shape())):
        if want != DYNAMIC_INDEX and got != want:  # a dynamic pad into a static result dim
            raise op_error(op, f"result dim {i} does not match the operands at run time "
                               f"(operand size vs result type): {got} vs {want}")
    out = np.zeros(shape, dtype=dtype_of(op.result.type))
    interior = tuple(slice(lo, lo + s) for lo, s in zip(low, src.shape))
    mask = np.ones(shape, dtype=bool)
    mask[interior] = False
    for idx in zip(*np.nonzero(mask)) if shape else ():
        vals = interp.run_region(op.region, tuple(np.int64(i) for i in idx))[1]
        out[idx] = vals[0]
    out[interior] = src
    return (out,)


def _register_all() -> None:
    from xdsl.dialects import tensor as upstream

    from irtoolkit.dialects import tensor as ours

    specialized = {
        "TransposeOp": _make_transpose, "BroadcastOp": _make_broadcast,
        "ReduceSumOp": _make_reduce, "ReduceMaxOp": _make_reduce,
        "EmptyOp": _make_empty, "SplatOp": _make_splat, "FromElementsOp": _make_from_elements,
        "CastOp": _make_cast,
        "ReduceMinOp": _make_reduce, "ReduceProdOp": _make_reduce, "DotOp": _make_dot,
        "ReverseOp": _make_reverse, "IotaOp": _make_iota,
    }
    plain = {
        "MatmulOp": _matmul, "ExtractOp": _extract, "InsertOp": _insert,
        "ExtractSliceOp": _extract_slice, "InsertSliceOp": _insert_slice,
        "CollapseShapeOp": _collapse_shape, "ExpandShapeOp": _expand_shape, "DimOp": _dim,
        "ConcatOp": _concat, "ReshapeOp": _reshape, "PadOp": _pad,
        "ArgMaxOp": _arg_extreme, "ArgMinOp": _arg_extreme,
    }
    # ours, and xDSL's own classes too (ops built by xDSL patterns), where ours subclass them
    for module in (ours, upstream):
        for name, make in specialized.items():
            if hasattr(module, name):
                register_specialized(getattr(module, name))(make)
        for name, rule in plain.items():
            if hasattr(module, name):
                register(getattr(module, name))(rule)
        register_exit(module.YieldOp)


_register_all()

from irtoolkit.interpreter import windows  # noqa: E402,F401  (conv and pooling: their own module)
