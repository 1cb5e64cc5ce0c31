"""`tensor.dot` (and `tensor.matmul`) as loop nests: the dots that do not call BLAS.

Two register-blocked forms, chosen from which operand dims have unit stride
(the last dim whose static size is not 1; row-major buffers):

* **row dots** (``y = A·x``, ``A·Bᵀ``): both operands are contiguous along their
  innermost contracting dim. Each result element is a dot product over the
  contracting dims whose additions carry ``fastmath<reassoc>`` (LLVM keeps
  vectors of partial sums, as the float sums of ``reductions.py``); ``ROWS``
  result elements along one free dim are computed together, so each load of the
  shared operand serves ``ROWS`` accumulators.
* **axpy** (``xᵀ·A``, ``A·B``): the rhs is contiguous along its last free dim (the
  last result dim). C = 0, then for each lhs element C's row gets a multiple of
  a rhs row added, ``DEPTH`` contracting steps at a time (one pass over C's row
  per ``DEPTH`` rows of the rhs); the row loop is elementwise and vectorizes.

Any other layout gets the plain nests (``dot_ijk`` for small static dots and
products without rhs free dims, else ``dot_ikj``). Which dots call BLAS
instead is ``blas.py``'s decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from irtoolkit.dialects import tensor
from irtoolkit.passes.lowering.blas import check_dot_sizes, small_static_dot
from irtoolkit.passes.lowering.checks import constant_index, element, shape
from irtoolkit.passes.lowering.reductions import reassoc_flags

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering

#: result elements of a row dot computed together (accumulators in flight; with
#: LLVM's vectorizer interleaving, 4 rows x 2 vectors of partial sums stay in
#: registers on AVX2)
ROWS = 4
#: contracting steps of an axpy added to C's row in one pass
DEPTH = 4


def _unit_dim(v: SSAValue) -> int | None:
    """The dim of a row-major operand with unit stride: its last dim whose static size
    is not 1 (None: every dim is 1)."""
    sizes = shape(v)
    for i in range(len(sizes) - 1, -1, -1):
        if sizes[i] != 1:
            return i
    return None


def dot_index(d: tensor.DotDims, side: int, batch: Sequence[SSAValue], free: Sequence[SSAValue],
              contract: Sequence[SSAValue]) -> list[SSAValue]:
    """The index into operand ``side`` of a dot from its batch, free and contracting ivs."""
    rank = d.lhs_rank if side == 0 else d.rhs_rank
    idx: list[SSAValue] = [None] * rank  # type: ignore[list-item]
    for dims, ivs in ((d.lhs_batch if side == 0 else d.rhs_batch, batch),
                      (d.lhs_free if side == 0 else d.rhs_free, free),
                      (d.lhs_contract if side == 0 else d.rhs_contract, contract)):
        for dim, iv in zip(dims, ivs):
            idx[dim] = iv
    return idx


def lower_dot_loops(L: TensorLowering, op: Operation) -> None:
    """A dot (or matmul) that does not call BLAS, as the loop nest its layout suits."""
    d: tensor.DotDims = op.dims  # type: ignore[attr-defined]
    a, b = op.operands[0], op.operands[1]
    ua, ub = _unit_dim(a), _unit_dim(b)
    if d.lhs_contract and d.rhs_free and ub == d.rhs_free[-1]:
        _dot_axpy(L, op)
    elif d.lhs_contract and ua in (None, d.lhs_contract[-1]) and ub in (None, d.rhs_contract[-1]):
        _dot_rows(L, op)
    elif small_static_dot(L, op) or not d.rhs_free:
        dot_ijk(L, op)
    else:
        dot_ikj(L, op)


class _Dot(NamedTuple):
    """A dot's buffers, once its sizes are checked and its result allocated."""

    d: tensor.DotDims
    dims: list[SSAValue]  # the result's sizes
    contract: list[SSAValue]  # the contracting sizes
    out: SSAValue
    ba: SSAValue
    bb: SSAValue
    zero: SSAValue
    nb: int  # batch dims
    nf: int  # lhs free dims


def _start(L: TensorLowering, op: Operation, zero_fill: bool) -> _Dot:
    """Check the sizes of a dot, allocate its result (filled with 0 for a nest that
    accumulates in it)."""
    d: tensor.DotDims = op.dims  # type: ignore[attr-defined]
    a, b, res = op.operands[0], op.operands[1], op.results[0]
    da, db = L.dims(a), L.dims(b)
    dims = check_dot_sizes(L, op, da, db)
    out = L.fresh(res, dims)
    zero = L.const(0.0, element(res))
    if zero_fill:
        L.for_each(dims, lambda ivs: L.store(zero, out, ivs))
    return _Dot(d, dims, [da[c] for c in d.lhs_contract], out, L.buf(a), L.buf(b), zero,
                len(d.lhs_batch), len(d.lhs_free))


def blocked(L: TensorLowering, n: SSAValue, width: int, block: Callable[[list[SSAValue]], None],
             one: Callable[[SSAValue], None]) -> None:
    """``block([i, .., i + width - 1])`` for the full blocks of [0, n), then ``one(i)`` for
    the rest."""
    cn = constant_index(L, n)
    W = L.index(width)
    if cn is not None:
        nblocks, full = L.index(cn // width), L.index(cn // width * width)
    else:
        nblocks = L.emit1(arith.DivUIOp(n, W))
        full = L.emit1(arith.MuliOp(nblocks, W))
    if cn is None or cn >= width:

        def body(bi: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            i0 = L.emit1(arith.MuliOp(bi, W))
            block([i0, *(L.emit1(arith.AddiOp(i0, L.index(r))) for r in range(1, width))])
            return []

        L.loop(L.index(0), nblocks, [], body)
    if cn is None or cn % width:
        L.loop(full, n, [], lambda i, _: (one(i), [])[1])


def _dot_rows(L: TensorLowering, op: Operation) -> None:
    """Row dots: ``ROWS`` result elements along one free dim at a time, each a
    reassociable dot product over the contracting dims (innermost: contiguous in
    both operands)."""
    d, dims, contract, out, ba, bb, zero, nb, nf = _start(L, op, False)
    fm = reassoc_flags()
    rsizes = shape(op.results[0])
    # the free dim blocked: the lhs's last (rows of A) unless it is 1, else the rhs's
    p = None
    if d.lhs_free and rsizes[nb + nf - 1] != 1:
        p = nb + nf - 1
    elif d.rhs_free and rsizes[-1] != 1:
        p = len(rsizes) - 1

    def tile(points: list[list[SSAValue]]) -> None:
        def step(k: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
            loads: dict[tuple, SSAValue] = {}

            def load(buf: SSAValue, idx: list[SSAValue]) -> SSAValue:
                key = (buf, *idx)
                if key not in loads:
                    loads[key] = L.load(buf, idx)
                return loads[key]

            new = []
            for ivs, acc in zip(points, accs):
                batch, i, j = ivs[:nb], ivs[nb:nb + nf], ivs[nb + nf:]
                x = load(ba, dot_index(d, 0, batch, i, k))
                y = load(bb, dot_index(d, 1, batch, j, k))
                new.append(L.emit1(arith.AddfOp(acc, L.emit1(arith.MulfOp(x, y)), fm)))
            return new

        sums = L.nest(contract, [zero] * len(points), step)
        for ivs, s in zip(points, sums):
            L.store(s, out, ivs)

    if p is None:
        L.for_each(dims, lambda ivs: tile([ivs]))
        return
    others = [q for q in range(len(dims)) if q != p]

    def at(ivs: list[SSAValue], i: SSAValue) -> list[SSAValue]:
        return [*ivs[:p], i, *ivs[p:]]

    L.for_each([dims[q] for q in others], lambda ivs: blocked(
        L, dims[p], ROWS, lambda rows: tile([at(ivs, i) for i in rows]), lambda i: tile([at(ivs, i)])))


def _dot_axpy(L: TensorLowering, op: Operation) -> None:
    """C = 0, then for batch, lhs free ivs and ``DEPTH`` steps of the innermost
    contracting dim: C's row (the rhs free dims, innermost contiguous) += the sum of
    those steps' lhs element times rhs row."""
    d, dims, contract, out, ba, bb, _, nb, nf = _start(L, op, True)

    def rows(batch: list[SSAValue], i: list[SSAValue], ks: list[list[SSAValue]]) -> None:
        xs = [L.load(ba, dot_index(d, 0, batch, i, k)) for k in ks]

        def inner(j: list[SSAValue]) -> None:
            terms = [L.emit1(arith.MulfOp(x, L.load(bb, dot_index(d, 1, batch, j, k)))) for x, k in zip(xs, ks)]
            while len(terms) > 1:  # pairwise: independent additions
                terms = [L.emit1(arith.AddfOp(terms[t], terms[t + 1])) if t + 1 < len(terms) else terms[t]
                         for t in range(0, len(terms), 2)]
            c = L.load(out, [*batch, *i, *j])
            L.store(L.emit1(arith.AddfOp(c, terms[0])), out, [*batch, *i, *j])

        L.for_each(dims[nb + nf:], inner)

    def body(ivs: list[SSAValue]) -> None:
        batch, i, kouter = ivs[:nb], ivs[nb:nb + nf], ivs[nb + nf:]
        blocked(L, contract[-1], DEPTH, lambda ks: rows(batch, i, [[*kouter, k] for k in ks]),
                 lambda k: rows(batch, i, [[*kouter, k]]))

    L.for_each([*dims[:nb + nf], *contract[:-1]], body)


def dot_ijk(L: TensorLowering, op: Operation) -> None:
    """A nest over the result with a scalar accumulator over the contracting dims."""
    d, dims, contract, out, ba, bb, zero, nb, nf = _start(L, op, False)

    def body(ivs: list[SSAValue]) -> None:
        batch, i, j = ivs[:nb], ivs[nb:nb + nf], ivs[nb + nf:]

        def inner(k: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
            x = L.load(ba, dot_index(d, 0, batch, i, k))
            y = L.load(bb, dot_index(d, 1, batch, j, k))
            return [L.emit1(arith.AddfOp(acc[0], L.emit1(arith.MulfOp(x, y))))]

        (s,) = L.nest(contract, [zero], inner)
        L.store(s, out, ivs)

    L.for_each(dims, body)


def dot_ikj(L: TensorLowering, op: Operation) -> None:
    """C = 0, then batch-i-k-j: the innermost loops run along the rhs free dims
    (contiguous rows of B and C when they are trailing: LLVM vectorizes them). Same
    summation order as :func:`dot_ijk`."""
    d, dims, contract, out, ba, bb, _, nb, nf = _start(L, op, True)

    def body(ivs: list[SSAValue]) -> None:
        batch, i, k = ivs[:nb], ivs[nb:nb + nf], ivs[nb + nf:]
        x = L.load(ba, dot_index(d, 0, batch, i, k))

        def inner(j: list[SSAValue]) -> None:
            c = L.load(out, [*batch, *i, *j])
            y = L.load(bb, dot_index(d, 1, batch, j, k))
            L.store(L.emit1(arith.AddfOp(c, L.emit1(arith.MulfOp(x, y)))), out, [*batch, *i, *j])

        L.for_each(dims[nb + nf:], inner)

    L.for_each([*dims[:nb + nf], *contract], body)
