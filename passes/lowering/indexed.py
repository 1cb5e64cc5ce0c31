"""Lowering rules of `tensor`'s indexed ops: gather, scatter, scatter_add, generate, rank.

Gather and the scatters are a loop over the index rows (the leading dims of
``indices``): each row's coordinates are read once, checked against the
sizes they index (a located run-time error when out of range, as the
interpreter), then an inner nest copies (or adds) the selected slice, whose
innermost dim is contiguous when the gathered dims lead (embedding rows).
Scatters write into the dest's buffer when this is its last use (no copy),
so an adjoint built as ``scatter_add`` into a fresh zero buffer touches only
the rows it adds. The row loop of a scatter is sequential: rows may repeat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Operation, SSAValue

from irtoolkit.dialects import tensor
from irtoolkit.dialects.tensor import is_float_type
from irtoolkit.passes.lowering.checks import check_cmp, check_eq, result_sizes, shape
from irtoolkit.passes.lowering.tensor_to_loop_rules import fill_from_region, lowering_rule, unsupported

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering


def _coordinates(L: TensorLowering, op: Operation, ib: SSAValue, row: list[SSAValue], dims: Sequence[int],
                 sizes: Sequence[SSAValue]) -> list[SSAValue]:
    """The coordinates of index row ``row`` as index values, each checked in [0, size)
    (integers are signed: a negative one is out of range)."""
    coords = []
    for k, d in enumerate(dims):
        c = L.load(ib, [*row, L.index(k)])
        if not isinstance(c.type, IndexType):
            c = L.emit1(arith.IndexCastOp(c, IndexType()))
        check_cmp(L, op, "ult", c, sizes[d], f"index out of bounds in dim {d} (index vs dim size)")
        coords.append(c)
    return coords


def _big_index(coords: list[SSAValue], dims: Sequence[int], rest: Sequence[int],
               inner: list[SSAValue]) -> list[SSAValue]:
    """The index into the gathered-from / scattered-into tensor: coordinates at ``dims``,
    the inner loop's ivs at the other dims."""
    idx: list[SSAValue] = [None] * (len(dims) + len(rest))  # type: ignore[list-item]
    for d, c in zip(dims, coords):
        idx[d] = c
    for d, iv in zip(rest, inner):
        idx[d] = iv
    return idx


def _slice_index(L: TensorLowering, row: list[SSAValue], dims: Sequence[int], rank: int, full: bool,
                 inner: list[SSAValue]) -> list[SSAValue]:
    """The index into the slices tensor (result of gather, source of scatter): the row,
    then the slice dims, each gathered dim a 0 (full form) or absent (rank-reduced)."""
    idx = list(row)
    it = iter(inner)
    for d in range(rank):
        if d in dims:
            if full:
                idx.append(L.index(0))
        else:
            idx.append(next(it))
    return idx


def _slice_sizes(L: TensorLowering, big_dims: list[SSAValue], batch: list[SSAValue], dims: Sequence[int],
                 full: bool) -> list[SSAValue]:
    sizes = list(batch)
    for d, n in enumerate(big_dims):
        if d in dims:
            if full:
                sizes.append(L.index(1))
        else:
            sizes.append(n)
    return sizes


def _is_full(slices: SSAValue, indices: SSAValue, big: SSAValue) -> bool:
    return len(shape(slices)) == len(shape(indices)) - 1 + len(shape(big))


@lowering_rule(tensor.GatherOp)
def lower_gather(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.GatherOp)
    src, idx, res = op.source, op.indices, op.result
    dims = list(op.dims)
    rank = len(shape(src))
    rest = [d for d in range(rank) if d not in dims]
    full = _is_full(res, idx, src)
    sd, idd = L.dims(src), L.dims(idx)
    batch = idd[:-1]
    out = L.fresh(res, result_sizes(L, res, _slice_sizes(L, sd, batch, dims, full)))
    sb, ib = L.buf(src), L.buf(idx)

    def row(r: list[SSAValue]) -> None:
        coords = _coordinates(L, op, ib, r, dims, sd)
        L.for_each([sd[d] for d in rest], lambda inner: L.store(
            L.load(sb, _big_index(coords, dims, rest, inner)), out, _slice_index(L, r, dims, rank, full, inner)))

    L.for_each(batch, row)


@lowering_rule(tensor.ScatterOp, tensor.ScatterAddOp)
def lower_scatter(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.ScatterOp | tensor.ScatterAddOp)
    src, dest, idx = op.source, op.dest, op.indices
    accumulate = isinstance(op, tensor.ScatterAddOp)
    dims = list(op.dims)
    rank = len(shape(dest))
    rest = [d for d in range(rank) if d not in dims]
    full = _is_full(src, idx, dest)
    dd, idd, sd = L.dims(dest), L.dims(idx), L.dims(src)
    batch = idd[:-1]
    for k, (got, want) in enumerate(zip(sd, _slice_sizes(L, dd, batch, dims, full))):
        check_eq(L, op, got, want, f"source dim {k} does not match the indices and the dest at run time "
                                   "(source size vs expected size)")
    sb, ib = L.buf(src), L.buf(idx)
    in_place = dest is not src and dest is not idx and L.try_consume(dest)
    out = L.buf(dest) if in_place else L.copy_value(dest)
    et = dest.type.get_element_type()  # type: ignore[attr-defined]
    add = arith.AddfOp if is_float_type(et) else arith.AddiOp

    def row(r: list[SSAValue]) -> None:
        coords = _coordinates(L, op, ib, r, dims, dd)

        def element(inner: list[SSAValue]) -> None:
            at = _big_index(coords, dims, rest, inner)
            v = L.load(sb, _slice_index(L, r, dims, rank, full, inner))
            if accumulate:
                v = L.emit1(add(L.load(out, at), v))
            L.store(v, out, at)

        L.for_each([dd[d] for d in rest], element)

    L.for_each(batch, row)
    L.set_result(op.results[0], out)


@lowering_rule(tensor.GenerateOp)
def lower_generate(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.GenerateOp)
    res = op.result
    dyn = iter([L.val(v) for v in op.dynamic_extents])
    known = [next(dyn) if s == DYNAMIC_INDEX else None for s in shape(res)]
    for i, v in enumerate(known):
        if v is not None:
            check_cmp(L, op, "sge", v, L.index(0), f"size of dim {i} is negative (size vs 0)")
    dims = result_sizes(L, res, known)
    fill_from_region(L, op, L.fresh(res, dims), dims)


@lowering_rule(tensor.RankOp)
def lower_rank(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.RankOp)
    t = op.tensor.type
    if not isinstance(t, TensorType):
        raise unsupported(op, "the rank of an unranked tensor")
    L.set_result(op.rank, L.index(t.get_num_dims()))
