"""numpy's basic indexing as slices: ``x[i]``, ``x[1:3, ::2]``, ``x[:, None]``,
``x[..., 0]`` read with ``tensor.extract_slice`` (rank-reduced) and, for
``None``, a reshape; ``x[i] = v`` writes with ``tensor.insert_slice`` (a new
value bound to ``x``: tensors are values). Indices are compile-time ints or
run-time integers (loop variables, 0-d integer tensors); slice bounds and
steps are compile-time, steps positive."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, TensorType, i64
from xdsl.ir import SSAValue

from irtoolkit.dialects import tensor
from irtoolkit.frontend.emitter import Emitter, shape_of


@dataclass
class Slice:
    offsets: list  # int | SSAValue per source dim
    sizes: list[int]
    strides: list[int]
    kept: list[int]  # sizes of the dims that are not dropped (the slice's shape)
    new_axes: list[int]  # positions of None in the result


def analyze(E: Emitter, shape: tuple[int, ...], index) -> Slice:
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise E.error("an index can only have a single ellipsis ('...')")
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if n_real > len(shape):
        raise E.error(f"too many indices for a tensor of rank {len(shape)}: {n_real}")
    fill = [slice(None)] * (len(shape) - n_real)
    k = next((j for j, item in enumerate(items) if item is Ellipsis), len(items))
    items[k:k + 1] = fill
    s = Slice([], [], [], [], [])
    dim = 0
    out_rank = 0
    for item in items:
        if item is None:
            s.new_axes.append(out_rank)
            out_rank += 1
            continue
        size = shape[dim]
        if isinstance(item, slice):
            for part in (item.start, item.stop, item.step):
                if part is not None and not isinstance(part, int):
                    raise E.error("slice bounds and steps must be compile-time integers")
            start, stop, step = item.indices(size)
            if step <= 0:
                raise E.error("negative slice steps are not supported")
            n = len(range(start, stop, step))
            s.offsets.append(start)
            s.sizes.append(n)
            s.strides.append(step)
            s.kept.append(n)
            out_rank += 1
        elif isinstance(item, bool) or isinstance(item, float):
            raise E.error(f"only integers, slices, None and ... are valid indices, got {item!r}")
        elif isinstance(item, int | np.integer):
            i = int(item)
            if not -size <= i < size:
                raise E.error(f"index {i} is out of bounds for axis {dim} with size {size}")
            s.offsets.append(i % size)
            s.sizes.append(1)
            s.strides.append(1)
        elif isinstance(item, SSAValue):
            s.offsets.append(E.index_value(item))
            s.sizes.append(1)
            s.strides.append(1)
        else:
            raise E.error(f"unsupported index {item!r}: integers, slices, None and ... only "
                          "(no advanced indexing with arrays)")
        dim += 1
    return s


def getitem(E: Emitter, x: SSAValue, index) -> SSAValue:
    shape = shape_of(x)
    s = analyze(E, shape, index)
    v = x
    if list(s.sizes) != list(shape) or any(o != 0 for o in s.offsets) or any(st != 1 for st in s.strides):
        v = E.emit(tensor.ExtractSliceOp(x, s.offsets, s.sizes, s.strides,
                                         TensorType(x.type.element_type, s.kept)))
    if s.new_axes:
        out = list(s.kept)
        for pos in s.new_axes:
            out.insert(pos, 1)
        from irtoolkit import numpy as inp

        v = inp.reshape.emit(E, v, out)
    return v


def setitem(E: Emitter, x: SSAValue, index, value) -> SSAValue:
    """``x`` with ``x[index] = value`` (numpy's broadcasting of ``value``)."""
    shape = shape_of(x)
    s = analyze(E, shape, index)
    if s.new_axes:
        raise E.error("None is not allowed in an index assignment")
    dtype = E.result_dtype(x)
    v = E.broadcast_to(E.as_tensor(value, dtype), s.kept)
    static = [o if isinstance(o, int) else DYNAMIC_INDEX for o in s.offsets]
    dynamic = [o for o in s.offsets if not isinstance(o, int)]
    op = tensor.InsertSliceOp.build(
        operands=[v, x, dynamic, [], []],
        properties={"static_offsets": DenseArrayBase.from_list(i64, static),
                    "static_sizes": DenseArrayBase.from_list(i64, s.sizes),
                    "static_strides": DenseArrayBase.from_list(i64, s.strides)},
        result_types=[x.type],
    )
    return E.emit(op)
