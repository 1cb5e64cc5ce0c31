"""Rules for ``memref``: buffers are mutable numpy arrays; views alias them.

``alloc``/``alloca`` give zero-filled arrays (deterministic), ``dealloc`` is a
no-op, ``subview``/``collapse_shape``/``expand_shape``/``cast`` are numpy views
(never copies: an impossible view is an error). ``reinterpret_cast`` reads the
source as a contiguous buffer starting at its first element.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType

from irtoolkit.diagnostics import op_error
from irtoolkit.interpreter.core import (
    dtype_of,
    register,
    register_exit,
    register_specialized,
    shape_with_dynamic,
    static_shape,
)


def check_indices(idx, shape) -> None:
    for i, n in zip(idx, shape):
        if not 0 <= i < n:
            raise IndexError(f"index {int(i)} is out of bounds for a dimension of size {n}")


@register_specialized(memref.AllocOp, memref.AllocaOp)
def _alloc(op):
    t = op.memref.type
    dt = dtype_of(t)
    ndyn = len(op.dynamic_sizes)
    if ndyn == 0:
        shape = shape_with_dynamic(t, ())
        return lambda interp, op, args: (np.zeros(shape, dtype=dt),)

    def rule(interp, op, args):
        shape = shape_with_dynamic(t, args[:ndyn])
        if any(s < 0 for s in shape):
            raise ValueError(f"negative size in allocation shape {shape}")
        return (np.zeros(shape, dtype=dt),)

    return rule


@register(memref.DeallocOp)
def _dealloc(interp, op, args):
    return ()


@register(memref.LoadOp)
def _load(interp, op, args):
    m = args[0]
    idx = tuple(args[1:])
    check_indices(idx, m.shape)
    return (m[idx],)


@register(memref.StoreOp)
def _store(interp, op, args):
    value, m = args[0], args[1]
    idx = tuple(args[2:])
    check_indices(idx, m.shape)
    m[idx] = value
    return ()


@register(memref.DimOp)
def _dim(interp, op, args):
    m, i = args
    if not 0 <= i < m.ndim:
        raise IndexError(f"dimension {int(i)} out of range for rank {m.ndim}")
    return (np.int64(m.shape[int(i)]),)


@register(memref.RankOp)
def _rank(interp, op, args):
    return (np.int64(args[0].ndim),)


@register(memref.CastOp, memref.MemorySpaceCastOp, memref.AssumeAlignmentOp)
def _identity_view(interp, op, args):
    t = op.results[0].type
    if isinstance(t, MemRefType):
        shape = static_shape(t)
        m = args[0]
        if m.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, m.shape)):
            raise ValueError(f"memref of shape {m.shape} does not match {t}")
    return (args[0],)


@register(memref.CopyOp)
def _copy(interp, op, args):
    src, dst = args
    if src.shape != dst.shape:
        raise ValueError(f"copy between shapes {src.shape} and {dst.shape}")
    np.copyto(dst, src)
    return ()


def mixed_values(static, dynamic_args, start: int):
    """Static values with the dynamic placeholders replaced, in order, from operands."""
    out = []
    k = start
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    for s in static:
        if s == DYNAMIC_INDEX:
            out.append(int(dynamic_args[k]))
            k += 1
        else:
            out.append(int(s))
    return out, k


def slice_spec(op, args, first_dynamic: int):
    """(offsets, sizes, strides) of an op with static_offsets/sizes/strides and operands."""
    offsets, k = mixed_values(op.static_offsets.get_values(), args, first_dynamic)
    sizes, k = mixed_values(op.static_sizes.get_values(), args, k)
    strides, k = mixed_values(op.static_strides.get_values(), args, k)
    return offsets, sizes, strides


def slices_of(offsets, sizes, strides, shape):
    """numpy slices for a strided window; checks it lies inside ``shape``."""
    out = []
    for d, (o, s, st) in enumerate(zip(offsets, sizes, strides)):
        if s < 0 or st <= 0 and s > 1 or o < 0:
            raise ValueError(f"invalid slice (offset {o}, size {s}, stride {st}) in dimension {d}")
        if s > 0 and o + (s - 1) * st >= shape[d]:
            raise IndexError(
                f"slice (offset {o}, size {s}, stride {st}) out of bounds for dimension {d} of size {shape[d]}")
        out.append(slice(o, o + (s - 1) * st + 1, st if st > 0 else 1) if s > 0 else slice(o, o))
    return tuple(out)


def reduced_shape(result_type, sizes):
    """The result shape of a (possibly rank-reducing) slice: the slice sizes with
    unit dims dropped so that they match the dims of the result type."""
    shape = static_shape(result_type)
    sizes = tuple(sizes)
    if len(shape) == len(sizes):
        return sizes

    def match(i: int, j: int):
        if j == len(shape):
            return () if all(s == 1 for s in sizes[i:]) else None
        if len(sizes) - i < len(shape) - j:
            return None
        s = sizes[i]
        if shape[j] is None or shape[j] == s:
            rest = match(i + 1, j + 1)
            if rest is not None:
                return (s, *rest)
        if s == 1:
            return match(i + 1, j)
        return None

    kept = match(0, 0)
    if kept is None:
        raise ValueError(f"slice sizes {list(sizes)} do not reduce to {result_type}")
    return kept


@register(memref.SubviewOp)
def _subview(interp, op, args):
    src = args[0]
    offsets, sizes, strides = slice_spec(op, args, 1)
    view = src[slices_of(offsets, sizes, strides, src.shape)]
    return (view.reshape(reduced_shape(op.result.type, sizes), copy=False),)


@register(memref.CollapseShapeOp, memref.ExpandShapeOp)
def _reshape(interp, op, args):
    src = args[0]
    t = op.result.type
    shape = static_shape(t)
    if any(s is None for s in shape):
        if isinstance(op, memref.ExpandShapeOp):
            shape, _ = mixed_values(op.static_output_shape.get_values(), args, 1)
        else:
            groups = [[a.value.data for a in g.data]
                      for g in op.reassociation]
            shape = [int(np.prod([src.shape[i] for i in g], dtype=np.int64)) for g in groups]
    return (src.reshape(tuple(shape), copy=False),)


def _root(m: np.ndarray) -> np.ndarray:
    while isinstance(m.base, np.ndarray):
        m = m.base
    return m


@register(memref.ReinterpretCastOp)
def _reinterpret_cast(interp, op, args):
    src = args[0]
    offsets, sizes, strides = slice_spec(op, args, 1)
    if not src.flags.c_contiguous:
        raise ValueError("reinterpret_cast of a non-contiguous memref is not supported by the interpreter")
    flat = src.reshape(-1)
    off = offsets[0] if offsets else 0
    extent = off + sum((s - 1) * st for s, st in zip(sizes, strides)) + 1 if all(sizes) else off
    if extent > flat.size or off < 0:
        raise IndexError(f"reinterpret_cast reads beyond the buffer of {flat.size} elements")
    view = np.lib.stride_tricks.as_strided(
        flat[off:], shape=tuple(sizes), strides=tuple(st * src.itemsize for st in strides))
    return (view,)


@register(memref.ExtractStridedMetaDataOp)
def _extract_strided_metadata(interp, op, args):
    src = args[0]
    root = _root(src)
    item = src.itemsize
    offset = (src.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // item
    base = root.reshape(-1)[:1].reshape(())
    return (base, np.int64(offset), *(np.int64(s) for s in src.shape),
            *(np.int64(s // item) for s in src.strides))


@register(memref.ExtractAlignedPointerAsIndexOp)
def _aligned_pointer(interp, op, args):
    from irtoolkit.interpreter.blas import register_pointer

    # remembered for external calls that take buffers by address (BLAS gemm)
    return (np.int64(register_pointer(interp, args[0])),)


@register(memref.ViewOp)
def _view(interp, op, args):
    buf, shift = args[0], int(args[1])
    t = op.result.type
    dt = dtype_of(t)
    shape = shape_with_dynamic(t, args[2:])
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    raw = buf.reshape(-1)[shift:shift + nbytes]
    if raw.size != nbytes:
        raise IndexError("memref.view reads beyond its buffer")
    return (raw.view(dt).reshape(shape),)


@register_specialized(memref.GetGlobalOp)
def _get_global(op):
    name = op.name_.root_reference.data

    def rule(interp, op, args):
        globals_ = interp.state.setdefault("memref.globals", {})
        arr = globals_.get(name)
        if arr is None:
            glob = None
            for candidate in interp.module.walk():
                if isinstance(candidate, memref.GlobalOp) and candidate.sym_name.data == name:
                    glob = candidate
                    break
            if glob is None:
                raise op_error(op, f"refers to undefined global '@{name}'")
            t = glob.type
            dt = dtype_of(t)
            init = glob.initial_value
            if isinstance(init, DenseIntOrFPElementsAttr):
                from irtoolkit.interpreter.arith import dense_to_array

                arr = np.array(dense_to_array(init, _as_tensor_type(t)), copy=True)
            else:
                arr = np.zeros(shape_with_dynamic(t, ()), dtype=dt)
            if glob.constant is not None:
                arr.flags.writeable = False
            globals_[name] = arr
        return (arr,)

    return rule


def _as_tensor_type(t: MemRefType):
    from xdsl.dialects.builtin import TensorType

    return TensorType(t.element_type, t.get_shape())


# memref.atomic_rmw kinds (MLIR's arith::AtomicRMWKind numbering)
_RMW = {
    0: lambda old, v: old + v,             # addf
    1: lambda old, v: old + v,             # addi
    2: lambda old, v: v,                   # assign
    3: lambda old, v: np.maximum(old, v),  # maximumf
    4: lambda old, v: np.maximum(old, v),  # maxs
    5: None,                               # maxu
    6: lambda old, v: np.minimum(old, v),  # minimumf
    7: lambda old, v: np.minimum(old, v),  # mins
    8: None,                               # minu
    9: lambda old, v: old * v,             # mulf
    10: lambda old, v: old * v,            # muli
    11: lambda old, v: old | v,            # ori
    12: lambda old, v: old & v,            # andi
    13: lambda old, v: np.fmax(old, v),    # maxnumf
    14: lambda old, v: np.fmin(old, v),    # minnumf
}


@register_specialized(memref.AtomicRMWOp)
def _atomic_rmw(op):
    kind = op.kind.value.data
    fn = _RMW.get(kind)
    if fn is None:
        raise op_error(op, f"cannot be interpreted: atomic kind {kind} is not supported")

    def rule(interp, op, args):
        value, m = args[0], args[1]
        idx = tuple(args[2:])
        check_indices(idx, m.shape)
        old = m[idx]
        m[idx] = fn(old, value)
        return (old,)

    return rule


@register(memref.AllocaScopeOp)
def _alloca_scope(interp, op, args):
    return tuple(interp.run_single_block(op.scope, ()))


register_exit(memref.AllocaScopeReturnOp)
