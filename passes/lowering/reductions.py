"""Reduction kernels: the loops that sum (or take the max of) terms, through a
``KernelEmitter``.

Float sums are blocked and vectorizable: the additions of a block of
``SUM_BLOCK`` terms carry ``fastmath<reassoc>`` (LLVM keeps a vector of
partial sums), block sums are added in order, and f16/f32 accumulate in f64.
Any other reduction is one sequential accumulator combined with the declared
scalar meaning of the reduction's combiner (``tensor.add``, ``tensor.max``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from math import prod
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, Float16Type, Float32Type, TensorType, f64
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.dialects import tensor
from irtoolkit.dialects.elementwise import element_kind, meaning_of
from irtoolkit.passes.lowering.checks import constant_index, in_bounds

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.kernel import KernelEmitter

#: elements per block of a float sum (see ``blocked_sum``)
SUM_BLOCK = 512
#: ``arith`` fast-math flags of the accumulating additions of a float sum: LLVM may
#: reassociate them (vectorize with partial sums; lower-loop-to-cf may split the loop
#: over threads). Nothing else is allowed (no nnan/ninf: NaN and Inf propagate).
REASSOC = "reassoc"
#: the flag that lets a product fuse into the addition that takes it (an FMA: one
#: rounding instead of two), for kernels that, as BLAS does, accept it
CONTRACT = "contract"
#: rows (kept elements) of a sum over leading dims: a row of at least this many
#: elements is a vector of sums (``leading_sum``); a shorter static one is a
#: scalar sum per element, unrolled (a loop that short does not fill a vector)
ROW_SUM_MIN = 8


def reassoc_flags(*more: str):
    """``fastmath<reassoc>``, plus the flags ``more``."""
    from xdsl.dialects.arith import FastMathFlagsAttr
    from xdsl.dialects.llvm import FastMathFlag

    return FastMathFlagsAttr([FastMathFlag(REASSOC), *(FastMathFlag(f) for f in more)])


def accumulator_type(et: Attribute) -> Attribute:
    """The type a float sum of ``et`` accumulates in: f64 for f16/f32 (rounded once at
    the end), ``et`` otherwise."""
    if isinstance(et, Float16Type | Float32Type):
        return f64
    return et


def blocked_sum(E: KernelEmitter, n: SSAValue, acc: SSAValue, term: Callable[[SSAValue], SSAValue]) -> SSAValue:
    """``acc + sum(term(i) for i in [0, n))`` for a float ``acc`` (terms converted to its
    type), vectorizable and accurate: blocks of ``SUM_BLOCK`` terms are summed by loops
    whose additions carry ``fastmath<reassoc>`` (LLVM keeps a vector of partial sums per
    block), block sums are added in order. Error ~ (SUM_BLOCK/lanes + n/SUM_BLOCK) ulps
    of sum(|terms|) instead of n for a sequential sum."""
    fm = reassoc_flags()
    at = acc.type

    def add(a: SSAValue, i: SSAValue) -> SSAValue:
        x = term(i)
        if x.type != at:
            x = E.emit1(arith.ExtFOp(x, at))
        return E.emit1(arith.AddfOp(a, x, fm))

    cn = constant_index(E, n)
    if cn is not None and cn <= SUM_BLOCK:
        (s,) = E.loop(E.index(0), n, [acc], lambda i, a: [add(a[0], i)])
        return s
    B = E.index(SUM_BLOCK)
    if cn is not None:
        nb = E.index(-(-cn // SUM_BLOCK))
    else:  # ceil(n / B)
        nb = E.emit1(arith.DivUIOp(E.emit1(arith.AddiOp(n, E.index(SUM_BLOCK - 1))), B))
    zero = E.const(0.0, at)

    def block(b: SSAValue, t: list[SSAValue]) -> list[SSAValue]:
        lo = E.emit1(arith.MuliOp(b, B))
        hi = E.emit1(arith.AddiOp(lo, B))
        if cn is None or cn % SUM_BLOCK:
            hi = E.emit1(arith.MinUIOp(hi, n))
        (s,) = E.loop(lo, hi, [zero], lambda i, a: [add(a[0], i)])
        return [E.emit1(arith.AddfOp(t[0], s, fm))]

    (t,) = E.loop(E.index(0), nb, [acc], block)
    return t


def is_float_sum(reduction: type[Operation], et: Attribute) -> bool:
    return reduction.COMBINER is tensor.AddOp and isinstance(et, AnyFloat)  # type: ignore[attr-defined]


def reduce_nest(E: KernelEmitter, reduction: type[Operation], dims: Sequence[SSAValue], et: Attribute,
                term: Callable[[list[SSAValue]], SSAValue]) -> SSAValue:
    """The reduction (a ``tensor.reduce_*`` class: its ``COMBINER`` and ``initial``) of
    ``term(ivs)`` over the nest ``dims``, of element type ``et``. Float sums: the
    innermost dim is a ``blocked_sum`` (in f64 for f16/f32), the outer dims add its
    results in order (reassociable too); other reductions: one sequential accumulator,
    outermost dim first."""
    if is_float_sum(reduction, et) and dims:
        at = accumulator_type(et)
        fm = reassoc_flags()
        zero = E.const(0.0, at)

        def rec(k: int, ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
            if k == len(dims) - 1:
                return blocked_sum(E, dims[k], acc, lambda i: term([*ivs, i]))

            def body(iv: SSAValue, a: list[SSAValue]) -> list[SSAValue]:
                s = rec(k + 1, [*ivs, iv], zero)
                return [E.emit1(arith.AddfOp(a[0], s, fm))]

            (r,) = E.loop(E.index(0), dims[k], [acc], body)
            return r

        s = rec(0, [], zero)
        if at != et:
            s = E.emit1(arith.TruncFOp(s, et))
        return s
    combine = meaning_of(reduction.COMBINER).scalar_of_kind(element_kind(et))  # type: ignore[attr-defined]
    init = E.const(reduction.initial(et), et)  # type: ignore[attr-defined]

    def rec2(k: int, ivs: list[SSAValue], acc: SSAValue) -> SSAValue:
        if k == len(dims):
            return combine(E, acc, term(ivs))
        (r,) = E.loop(E.index(0), dims[k], [acc], lambda iv, a: [rec2(k + 1, [*ivs, iv], a[0])])
        return r

    return rec2(0, [], init)


def row_by_row(src: SSAValue, rdims: Sequence[int], reduction: type[Operation], et: Attribute) -> bool:
    """Does a reduction of ``src`` over ``rdims`` go row by row (``leading_sum``)?
    A float sum over leading dims whose rows (the kept dims) fill a vector, or
    are short and static: one contiguous pass instead of one strided pass per
    result element."""
    shape = src.type.get_shape()  # type: ignore[attr-defined]
    if not is_float_sum(reduction, et) or not 0 < len(rdims) < len(shape) \
            or sorted(rdims) != list(range(len(rdims))):
        return False
    kept = shape[len(rdims):]
    if kept[-1] == DYNAMIC_INDEX or kept[-1] >= ROW_SUM_MIN:
        return True
    if DYNAMIC_INDEX in kept or not 1 < prod(kept) < ROW_SUM_MIN:
        return False
    # short rows: scalar sums in registers, faster than strided passes when a
    # block is the rows of short static dims (LeNet's bias gradient, 64x24x24x6:
    # 0.06 vs 0.11 ms, 4096x64x3 0.16 vs 0.27, one thread, busy machine); over one
    # long dim a column is one vectorized strided sum (100000x6: row sums in
    # blocks of 512 rows measured 0.67 vs 0.37 ms)
    last = shape[len(rdims) - 1]
    return last != DYNAMIC_INDEX and last <= SUM_BLOCK and len(rdims) > 1


def _one_block(sizes: Sequence[int | None]) -> bool:
    """Do the rows of these reduced sizes (None: dynamic) fit in one SUM_BLOCK?"""
    count = 1
    for n in sizes:
        if n is None:
            return False
        count *= n
    return count <= SUM_BLOCK


def leading_sum(E: KernelEmitter, term: Callable[[list[SSAValue]], SSAValue], sd: Sequence[SSAValue],
                r: int, et: Attribute, result_type: TensorType) -> SSAValue:
    """The float sum of ``term(ivs)`` over the ``r`` leading dims of ``sd``, row by row,
    as a tensor of ``result_type``: the kept dims are innermost, so the loads are
    contiguous and the additions vectorize across result elements (``reduce_nest`` over
    a leading dim walks columns, one strided scalar chain each). Every result element
    still adds its terms in index order, in blocks of at most ``SUM_BLOCK`` rows added in
    order, as ``blocked_sum`` does (a block: the rows of the shortest suffix of reduced
    dims that fits, else ``SUM_BLOCK`` rows of the last one); f16/f32 accumulate in f64.
    The row accumulators are tensors carried through the loops (bufferized in place;
    the blocks' scratch sum is allocated once); rows shorter than ``ROW_SUM_MIN`` are
    scalar sums instead, one per kept element."""
    at = accumulator_type(et)
    fm = reassoc_flags()
    kdims = list(sd[r:])
    shape = result_type.get_shape()

    def new(t: Attribute) -> SSAValue:
        dyn = [d for d, s in zip(kdims, shape) if s == DYNAMIC_INDEX]
        return E.emit1(tensor.EmptyOp(dyn, TensorType(t, shape)))

    def get(acc: SSAValue, ivs: list[SSAValue]) -> SSAValue:
        return E.emit1(in_bounds(tensor.ExtractOp(acc, list(ivs))))

    def put(v: SSAValue, acc: SSAValue, ivs: list[SSAValue]) -> SSAValue:
        return E.emit1(in_bounds(tensor.InsertOp(v, acc, list(ivs))))

    def loop(lo: SSAValue, hi: SSAValue, acc: SSAValue,
             body: Callable[[SSAValue, SSAValue], SSAValue]) -> SSAValue:
        return E.loop(lo, hi, [acc], lambda i, a: [body(i, a[0])])[0]

    def each(acc: SSAValue, cell: Callable[[list[SSAValue], SSAValue], SSAValue]) -> SSAValue:
        return E.nest(kdims, [acc], lambda ivs, a: [cell(ivs, a[0])])[0]

    def zeros(acc: SSAValue) -> SSAValue:
        zero = E.const(0.0, at)
        return each(acc, lambda ivs, a: put(zero, a, ivs))

    def add(a: SSAValue, ivs: list[SSAValue], x: SSAValue) -> SSAValue:
        return put(E.emit1(arith.AddfOp(get(a, ivs), x, fm)), a, ivs)

    ksizes = [constant_index(E, d) for d in kdims]
    width = None if None in ksizes else prod(ksizes)  # type: ignore[arg-type]

    def widened_at(idx: list[SSAValue]) -> SSAValue:
        x = term(idx)
        return x if x.type == at else E.emit1(arith.ExtFOp(x, at))

    def add_row(acc: SSAValue, row: list[SSAValue]) -> SSAValue:
        return each(acc, lambda ivs, a: add(a, ivs, widened_at([*row, *ivs])))

    def rows(k: int, row: list[SSAValue], acc: SSAValue) -> SSAValue:
        if k == r:
            return add_row(acc, row)
        return loop(E.index(0), sd[k], acc, lambda i, a: rows(k + 1, [*row, i], a))

    sizes = [constant_index(E, d) for d in sd[:r]]
    # blocks: the rows of the smallest suffix of reduced dims with at most
    # SUM_BLOCK rows, the dims before it looped over in order
    first = r
    while first > 0 and _one_block(sizes[first - 1:]):
        first -= 1
    if width is not None and width < ROW_SUM_MIN and first < r:
        # short rows: one scalar sum per kept element, carried through the loops (in
        # registers)
        cells = [[E.index(i) for i in c] for c in product(*(range(k) for k in ksizes))]
        zero = E.const(0.0, at)

        def block(outer: list[SSAValue], sums: list[SSAValue]) -> list[SSAValue]:
            def step(ivs: list[SSAValue], part: list[SSAValue]) -> list[SSAValue]:
                xs = [widened_at([*outer, *ivs, *c]) for c in cells]
                return [E.emit1(arith.AddfOp(p, x, fm)) for p, x in zip(part, xs)]

            part = E.nest(list(sd[first:r]), [zero] * len(cells), step)
            return [E.emit1(arith.AddfOp(a, p, fm)) for a, p in zip(sums, part)]

        sums = E.nest(list(sd[:first]), [zero] * len(cells), block)
        out = new(et)
        for c, v in zip(cells, sums):
            out = put(v if at == et else E.emit1(arith.TruncFOp(v, et)), out, c)
        return out

    def block_sum(outer: list[SSAValue], lo: SSAValue, hi: SSAValue, k: int, st: list[SSAValue]) -> list[SSAValue]:
        """[acc, part] -> [acc + the rows of the reduced dims k.. under index prefix
        ``outer`` (dim k from lo to hi), part]: the block is summed in the scratch
        tensor ``part`` (allocated once, not per block)."""
        acc, part = st
        part = loop(lo, hi, zeros(part), lambda i, p: rows(k + 1, [*outer, i], p))
        return [each(acc, lambda ivs, t: add(t, ivs, get(part, ivs))), part]

    def outer_loops(k: int, outer: list[SSAValue], st: list[SSAValue], last: int,
                    body: Callable[[list[SSAValue], list[SSAValue]], list[SSAValue]]) -> list[SSAValue]:
        if k == last:
            return body(outer, st)
        return E.loop(E.index(0), sd[k], st, lambda i, a: outer_loops(k + 1, [*outer, i], a, last, body))

    st = [zeros(new(at)), new(at)]
    if first == 0:  # one block
        st[0] = rows(0, [], st[0])
    elif first < r:
        st = outer_loops(0, [], st, first, lambda outer, a: block_sum(outer, E.index(0), sd[first], first, a))
    else:  # the last reduced dim in blocks of SUM_BLOCK rows (the full ones of static length)
        n = sizes[-1]
        B = E.index(SUM_BLOCK)
        last = sd[r - 1]
        full = E.emit1(arith.DivUIOp(last, B)) if n is None else E.index(n // SUM_BLOCK)

        def blocks(outer: list[SSAValue], a: list[SSAValue]) -> list[SSAValue]:
            def block(k: SSAValue, t: list[SSAValue]) -> list[SSAValue]:
                lo = E.emit1(arith.MuliOp(k, B))
                return block_sum(outer, lo, E.emit1(arith.AddiOp(lo, B)), r - 1, t)

            a = E.loop(E.index(0), full, a, block)
            if n is not None and n % SUM_BLOCK == 0:
                return a
            return block_sum(outer, E.emit1(arith.MuliOp(full, B)), last, r - 1, a)

        st = outer_loops(0, [], st, r - 1, blocks)
    acc = st[0]
    if at == et:
        return acc
    return each(new(et), lambda ivs, o: put(E.emit1(arith.TruncFOp(get(acc, ivs), et)), o, ivs))
