"""Lowering of the windowed `tensor` ops: `conv`, `reduce_window_sum` /
`reduce_window_max` and the latter's derivatives `window_max_select` /
`window_max_scatter`.

`conv` with one group and enough work (the ``blas`` / ``blas_threshold``
options, as for matmul) is an im2col + one BLAS gemm: the patches are copied
into a buffer N × O... × K... × C, which row-major *is* the matrix
(N·O...) × (K...·C), and the filter K... × C × F is already the matrix
(K...·C) × F, as is the result (N·O...) × F. A 1×1 conv without stride,
padding or dilation needs no copy: the input is that matrix. Other convs
(grouped, depthwise, small) are a direct loop nest whose innermost loop runs
along the output features (contiguous in filter and result). Before both, an
ungrouped conv with few output features and a small window × C × F is a loop
per output position with the whole window unrolled, the sums in registers,
vectorized along the last output dim (`DIRECT_TERMS`).

A conv with fewer operand than output positions (a transposed conv: heavily
padded or input-dilated, as conv's input adjoint) multiplies less as a gemm on
the operand itself, (N·S...) × C times the filter copied to C × (K...·F),
whose columns are then added into the result where each operand element and
tap land (col2im). LeNet's input adjoint (8x8x16 -> 12x12x6, 5x5, pad 4):
9.8M instead of 22M multiply-adds, 2.4 MB of columns instead of a 14.7 MB
im2col buffer three quarters zeros; 0.65 vs 3.5 ms (min of 200 calls, busy
2 cores).

Measured (f32, one thread for both, best of many calls on 2 busy cores; direct
nest vs im2col + gemm; the unrolled nest's figures are at `DIRECT_TERMS`):
LeNet's conv 64x28x28x1 * 5x5x1x6 8.4 vs 1.2 ms,
64x12x12x6 * 5x5x6x16 2.7 vs 0.7 ms, its input adjoint (depth 400, 6 features,
pad 4) 38 vs 9 ms, its filter adjoints 2.6 vs 0.5 and 3.6 vs 0.6 ms; 3x3 convs
of depth 9 to 576 with 1 to 64 features 1.8x to 5x faster as gemms, a 1-D conv
of depth 12 2.7x. The nest's innermost loop (the features, often fewer than a
vector) is too short, so no depth threshold: every ungrouped conv with enough work is a gemm.

A conv whose window has more positions than its output and which has few
output features (conv's filter adjoint of a first layer: the window is the
forward's output, the contracted features its batch) is neither: a gemm of
few columns over an im2col buffer as large as the window times the output
(LeNet's first filter adjoint: 3.7 MB) loses to vectorized dot products along
window rows (`_conv_dots`).

Spatial and feature sizes must be static here (the batch may be dynamic).
A padded position p of a dim is operand element (p - lo) / input_dilation
when that is an integer in range; otherwise it reads the padding value
(0, or -inf for max) through a select on a clamped index, so loads never
leave the buffer.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.dialects.llvm import FastMathFlag
from xdsl.ir import Operation, SSAValue

from irtoolkit.dialects import tensor
from irtoolkit.dialects.elementwise import element_kind, meaning_of
from irtoolkit.passes.lowering.blas import call_gemm, gemm_worthwhile
from irtoolkit.passes.lowering.checks import result_sizes, shape
from irtoolkit.passes.lowering.dot_loops import blocked
from irtoolkit.passes.lowering.reductions import CONTRACT, reassoc_flags
from irtoolkit.passes.lowering.tensor_to_loop_rules import elem, lowering_rule, unsupported

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering


def _static_dims(op: Operation, v: SSAValue, dims: Sequence[int]) -> list[int]:
    sizes = shape(v)
    if any(sizes[d] == DYNAMIC_INDEX for d in dims):
        raise unsupported(op, f"'{op.name}' with dynamic sizes other than the batch")
    return [sizes[d] for d in dims]


def _and(L: TensorLowering, a: SSAValue | None, b: SSAValue) -> SSAValue:
    return b if a is None else L.emit1(arith.AndIOp(a, b))


class _Tap:
    """Where window tap ``k`` of output position ``o`` reads, along one dim of
    ``size`` elements: index and validity (None: always valid)."""

    def __init__(self, size: int, stride: int, lo: int, hi: int, input_dilation: int = 1, dilation: int = 1):
        self.size, self.stride, self.lo, self.hi = size, stride, lo, hi
        self.ld, self.rd = input_dilation, dilation

    def at(self, L: TensorLowering, o: SSAValue, k: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        p = L.index_add(L.index_mul(o, L.index(self.stride)), L.index_mul(k, L.index(self.rd)))
        if self.lo > 0:
            p = L.emit1(arith.SubiOp(p, L.index(self.lo)))
        elif self.lo < 0:
            p = L.index_add(p, L.index(-self.lo))
        # before the operand, between its dilated elements, after it
        return _grid_point(L, p, self.lo > 0, self.ld, self.hi > 0 or self.ld > 1, self.size)

    def reached_from(self, L: TensorLowering, i: SSAValue, k: SSAValue, taps: int,
                     outs: int) -> tuple[SSAValue, SSAValue | None]:
        """The inverse of `at`: the output position whose tap ``k`` reads operand
        element ``i`` (padded position lo + i·input_dilation = o·stride + k·dilation),
        clamped, and whether there is one (None: always); ``taps`` window size,
        ``outs`` output size. The checks the static ranges rule out are left out."""
        q = L.index_mul(i, L.index(self.ld))
        if self.lo > 0:
            q = L.index_add(q, L.index(self.lo))
        elif self.lo < 0:
            q = L.emit1(arith.SubiOp(q, L.index(-self.lo)))
        if self.rd * (taps - 1) > 0:
            q = L.emit1(arith.SubiOp(q, L.index_mul(k, L.index(self.rd))))
        # before output 0, between strides, after the last output
        return _grid_point(L, q, self.lo - self.rd * (taps - 1) < 0, self.stride,
                           (self.lo + (self.size - 1) * self.ld) // self.stride >= outs, outs)


def _grid_point(L: TensorLowering, p: SSAValue, below: bool, step: int, above: bool,
                size: int) -> tuple[SSAValue, SSAValue | None]:
    """p / step, and whether p is a point of the grid 0, step, ..., (size-1)·step
    (None: always); checks p >= 0 only when ``below``, p / step < size only when
    ``above``. Off the grid the index is clamped to 0, so loads stay in the buffer."""
    valid = None
    if below:
        valid = L.emit1(arith.CmpiOp(p, L.index(0), "sge"))
    if step > 1:
        s = L.index(step)
        on_grid = L.emit1(arith.CmpiOp(L.emit1(arith.RemSIOp(p, s)), L.index(0), "eq"))
        valid = _and(L, valid, on_grid)
        p = L.emit1(arith.DivSIOp(p, s))
    if above:
        valid = _and(L, valid, L.emit1(arith.CmpiOp(p, L.index(size), "slt")))
    if valid is not None:
        p = L.emit1(arith.SelectOp(valid, p, L.index(0)))
    return p, valid


def _taps(L: TensorLowering, taps: Sequence[_Tap], os: Sequence[SSAValue], ks: Sequence[SSAValue]):
    idx, valid = [], None
    for t, o, k in zip(taps, os, ks):
        i, v = t.at(L, o, k)
        idx.append(i)
        if v is not None:
            valid = _and(L, valid, v)
    return idx, valid


def _read(L: TensorLowering, buf: SSAValue, idx: list[SSAValue], valid: SSAValue | None, fill: SSAValue) -> SSAValue:
    v = L.load(buf, idx)
    return v if valid is None else L.emit1(arith.SelectOp(valid, v, fill))


# ---------------------------------------------------------------------------
# conv


@lowering_rule(tensor.ConvOp)
def lower_conv(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.ConvOp)
    x, w, res = op.input, op.filter, op.result
    d = op.spatial_rank
    stride, pads, ldil, rdil, groups = op.params()
    sizes = _static_dims(op, x, range(1, d + 2))
    ks = _static_dims(op, w, range(d + 2))
    outs = _static_dims(op, res, range(1, d + 2))
    n = L.dims(x)[0]
    dims = result_sizes(L, res, [n, *(L.index(o) for o in outs)])
    out = L.fresh(res, dims)
    taps = [_Tap(sizes[i], stride[i], *pads[i], ldil[i], rdil[i]) for i in range(d)]
    c, f = sizes[-1], ks[-1]
    window = 1
    for k in ks[:d]:
        window *= k
    static_n = None if shape(x)[0] == DYNAMIC_INDEX else shape(x)[0]

    def flops(positions: Sequence[int]) -> int | None:
        return None if static_n is None else static_n * _prod(positions) * window * c * f

    unroll = L.options.conv_unroll if L.options.conv_unroll >= 0 else DIRECT_TERMS
    if groups == 1 and _prod(sizes[:d]) < _prod(outs[:d]) and gemm_worthwhile(L, elem(res), flops(sizes[:d])):
        _conv_col2im(L, op, out, taps, n, sizes[:d], outs[:d], ks[:d], c, f)
    elif groups == 1 and d > 0 and _prod(ks[:d]) > _prod(outs[:d]) and 0 not in sizes and 0 not in outs \
            and ks[d - 1] * c >= DOT_MIN_ROW and f <= DOT_MAX_FEATURES:
        _conv_dots(L, op, out, taps, n, sizes[:d], outs[:d], ks[:d], c, f)
    elif groups == 1 and f <= DIRECT_FEATURES and window * c * f <= unroll:
        _conv_unrolled(L, op, out, taps, n, outs[:d], ks[:d], c, f)
    elif groups == 1 and gemm_worthwhile(L, elem(res), flops(outs[:d])):
        _conv_gemm(L, op, out, taps, n, outs[:d], ks[:d], c, f)
    else:
        _conv_direct(L, op, out, taps, n, outs[:d], ks, groups)


#: An ungrouped conv of at most DIRECT_FEATURES output features and DIRECT_TERMS
#: (the ``conv_unroll`` option) window x input-feature x output-feature terms is a direct nest with the whole
#: window unrolled (`_conv_unrolled`) rather than im2col + gemm. Measured (f32,
#: one BLAS thread, min of many calls, 2 busy cores; unrolled / im2col + gemm):
#: 5x5x1x6 on 64x28x28x1 0.18 (0.25 padded 2) vs 1.1 (1.4) ms; 3x3 on 32x32x32xC:
#: C=3 F=8 0.52, C=3 F=12 0.67, C=4 F=8 0.87, C=8 F=4 0.43, C=6 F=6 0.42,
#: C=16 F=2 0.21, C=32 F=1 0.35, C=2 F=16 0.98, C=1 F=32 1.58, C=3 F=16 1.04;
#: 5x5x6x4 0.36, 5x5x3x6 0.33; 3x3x16x8 (1152 terms) 1.54, 5x5x8x8 1.79,
#: LeNet's second conv 5x5x6x16 3.05; output widths 4 to 7: 0.84 to 0.98.
#: Beyond ~12 features the sums (one vector register each) spill. Transposed convs
#: (fewer operand than output positions) stay col2im: input-dilated 3x3x8x4 1.82,
#: padded 5x5x6x1 (LeNet's first input adjoint) 1.06.
DIRECT_FEATURES = 12
DIRECT_TERMS = 640


def _conv_unrolled(L: TensorLowering, op: tensor.ConvOp, out: SSAValue, taps: list[_Tap], n: SSAValue,
                   outs: list[int], ks: list[int], c: int, f: int) -> None:
    """A conv of few terms (window × C × F) as one loop per output position
    whose body is the whole window unrolled, the F sums in registers: LLVM
    vectorizes the innermost loop, along the last output dim, so each vector
    lane is one output position (no reduction reassociated; the filter values
    are loop-invariant). The F sums are stored straight into the result
    (strided; through a buffer F × width with contiguous stores, LeNet's
    first conv took 0.30 instead of 0.18 ms)."""
    x, w = L.buf(op.input), L.buf(op.filter)
    et = elem(op.result)
    zero = L.const(0.0, et)

    def at(ivs: list[SSAValue]) -> None:
        nn, o = ivs[0], ivs[1:]
        sums: list[SSAValue | None] = [None] * f
        for kk in itertools.product(*(range(k) for k in ks)):
            idx, valid = _taps(L, taps, o, [L.index(k) for k in kk])
            for ci in range(c):
                xv = _read(L, x, [nn, *idx, L.index(ci)], valid, zero)
                for fi in range(f):
                    wv = L.load(w, [*(L.index(k) for k in kk), L.index(ci), L.index(fi)])
                    term = L.emit1(arith.MulfOp(xv, wv))
                    sums[fi] = term if sums[fi] is None else L.emit1(arith.AddfOp(sums[fi], term))
        for fi in range(f):
            L.store(sums[fi] or zero, out, [nn, *o, L.index(fi)])

    L.for_each([n, *(L.index(o) for o in outs)], at)


def _plain_1x1(taps: Sequence[_Tap], ks: Sequence[int]) -> bool:
    """A 1×1 conv without stride, padding or dilation: the input is the gemm's matrix."""
    return all(k == 1 for k in ks) and all(t.stride == 1 and t.lo == 0 and t.hi == 0 and t.ld == 1 for t in taps)


def _prod(xs: Sequence[int]) -> int:
    r = 1
    for v in xs:
        r *= v
    return r


def _conv_gemm(L: TensorLowering, op: tensor.ConvOp, out: SSAValue, taps: list[_Tap], n: SSAValue,
               outs: list[int], ks: list[int], c: int, f: int) -> None:
    x, w = L.buf(op.input), L.buf(op.filter)
    et = elem(op.result)
    rows = L.index_mul(n, L.index(_prod(outs)))
    depth = L.index(_prod(ks) * c)
    if _plain_1x1(taps, ks):
        call_gemm(L, et, rows, L.index(f), depth, x, w, out)
        return
    col_type = TensorType(et, [shape(op.input)[0], *outs, *ks, c])
    col = L.alloc(col_type, [n])
    zero = L.const(0.0, et)
    d = len(outs)

    def copy(ivs: list[SSAValue], ci: SSAValue) -> None:
        nn, os, kk = ivs[0], ivs[1:1 + d], ivs[1 + d:]
        idx, valid = _taps(L, taps, os, kk)
        L.store(_read(L, x, [nn, *idx, ci], valid, zero), col, [*ivs, ci])

    _for_each_row(L, [n, *(L.index(o) for o in outs), *(L.index(k) for k in ks[:-1])], [ks[-1], c],
                  lambda ivs: copy(ivs[:-1], ivs[-1]))
    call_gemm(L, et, rows, L.index(f), depth, col, w, out)
    L.dealloc(col)


#: im2col's copy and col2im's scatter emit a row (last tap dim × features) of at
#: most this many elements unrolled: a loop of C or F (LeNet's 6) was most of
#: their time; unrolled, LLVM merges neighbouring loads and stores. LeNet's
#: second conv 0.74 -> 0.53 ms (the whole window unrolled: no better), its input
#: adjoint 0.65 -> 0.55 ms (min of many calls, one BLAS thread, busy 2 cores).
_UNROLLED_ROW = 64


def _for_each_row(L: TensorLowering, dims: Sequence[SSAValue], row: Sequence[int],
                  body: Callable[[list[SSAValue]], None]) -> None:
    """``body(ivs)`` for each index of ``dims`` followed by the static ``row``, the
    row unrolled when it has at most ``_UNROLLED_ROW`` elements."""
    if _prod(row) > _UNROLLED_ROW:
        L.for_each([*dims, *(L.index(r) for r in row)], body)
        return

    def unrolled(ivs: list[SSAValue]) -> None:
        for rs in itertools.product(*(range(r) for r in row)):
            body([*ivs, *(L.index(r) for r in rs)])

    L.for_each(dims, unrolled)


def _conv_col2im(L: TensorLowering, op: tensor.ConvOp, out: SSAValue, taps: list[_Tap], n: SSAValue,
                 sizes: list[int], outs: list[int], ks: list[int], c: int, f: int) -> None:
    """A conv with fewer operand than output positions (a transposed conv: padded,
    input-dilated) as one gemm per operand element rather than per output
    position: cols (N·S... × K...·F) = x (N·S... × C) @ w' (C × K...·F), w' the
    filter with its channels first, then out = 0 and out[n, o(s, k), :] +=
    cols[n, s, k, :] for each operand element s and tap k that reaches an output."""
    x, w = L.buf(op.input), L.buf(op.filter)
    et = elem(op.result)
    d = len(outs)
    wt = L.alloc(TensorType(et, [c, *ks, f]), [])
    L.for_each([L.index(c), *(L.index(k) for k in ks), L.index(f)],
               lambda ivs: L.store(L.load(w, [*ivs[1:1 + d], ivs[0], ivs[-1]]), wt, ivs))
    cols = L.alloc(TensorType(et, [shape(op.input)[0], *sizes, *ks, f]), [n])
    call_gemm(L, et, L.index_mul(n, L.index(_prod(sizes))), L.index(_prod(ks) * f), L.index(c), x, wt, cols)
    L.dealloc(wt)
    zero = L.const(0.0, et)
    L.for_each(L.dims_of_buf(out), lambda ivs: L.store(zero, out, ivs))

    def scatter(ivs: list[SSAValue]) -> None:
        nn, ss, kk, fi = ivs[0], ivs[1:1 + d], ivs[1 + d:-1], ivs[-1]
        idx, valid = [], None
        for t, s, k, nk, no in zip(taps, ss, kk, ks, outs):
            o, v = t.reached_from(L, s, k, nk, no)
            idx.append(o)
            if v is not None:
                valid = _and(L, valid, v)
        at = [nn, *idx, fi]
        v = _read(L, cols, ivs, valid, zero)
        L.store(L.emit1(arith.AddfOp(L.load(out, at), v)), out, at)

    _for_each_row(L, [n, *(L.index(s) for s in sizes), *(L.index(k) for k in ks[:-1])], [ks[-1], f], scatter)
    L.dealloc(cols)


#: `_conv_dots` takes an ungrouped conv whose window has more positions than its
#: output, of at most DOT_MAX_FEATURES output features (a gemm of so few columns
#: wastes BLAS's register tiles, and its im2col copy serves few multiply-adds),
#: when a row of its window (last window dim x input features) has at least
#: DOT_MIN_ROW terms (the vectorized dot's length). Measured (f32, one thread,
#: min of many calls, 2 busy cores; dots vs im2col + gemm): LeNet's first filter
#: adjoint (1x28x28x64 * 24x24x64x6) 0.34 vs 0.56 ms, 16x12x12x64 * 8x8x64x6
#: 0.42 vs 0.88, 3x32x32x32 * 30x30x32x4 0.17 vs 0.37, 16x32x32x32 * 30x30x32x8
#: 2.6 vs 4.5, 6x12x12x64 * 8x8x64x8 0.23 vs 0.24; with 12 features 0.73 vs 0.62,
#: 16 (LeNet's second filter adjoint) 0.46 vs 0.35. With more features, one gemm
#: per window row on the same rows and the filter itself (LeNet's second: 48
#: gemms 25 x 512 x 16) measured 1.05-1.8x slower than im2col + gemm.
DOT_MAX_FEATURES = 8
DOT_MIN_ROW = 16
#: output positions (along the last output dim) x features whose dots
#: `_conv_dots` computes together: each load serves that many accumulators;
#: 2 x 4 keeps the 8 vector accumulators and the 6 loads in AVX2's 16 registers
#: (LLVM interleaves the loop once more); 1 x 4 and 3 x 2 measured 5-15% slower.
DOT_POSITIONS = 2
DOT_FEATURES = 4


def _window_rows(L: TensorLowering, op: tensor.ConvOp, taps: list[_Tap], n: SSAValue, sizes: list[int],
                 outs: list[int], ks: list[int], c: int) -> SSAValue:
    """The input copied so that the terms of one row of the window (last window
    dim × C) for one output position are contiguous: rows[n, p..., o, k·C + c] =
    x at padded position p... (the outer dims padded and dilated, 0 where that is
    padding) and tap k of output position o along the last dim (0 in padding).
    A fraction of a full im2col: only the last dim's taps are spelled out."""
    x = L.buf(op.input)
    et = elem(op.result)
    d = len(outs)
    padded = [(s - 1) * t.ld + 1 + t.lo + t.hi for s, t in zip(sizes[:-1], taps[:-1])]
    zero = L.const(0.0, et)
    rows = L.alloc(TensorType(et, [shape(op.input)[0], *padded, outs[-1], ks[-1] * c]), [n])
    grid = [_Tap(s, 1, t.lo, t.hi, t.ld) for s, t in zip(sizes[:-1], taps[:-1])]

    def copy(ivs: list[SSAValue]) -> None:
        idx, valid = _taps(L, grid, ivs[1:d], [L.index(0)] * (d - 1))
        i, v = taps[-1].at(L, ivs[d], ivs[d + 1])
        if v is not None:
            valid = _and(L, valid, v)
        L.store(_read(L, x, [ivs[0], *idx, i, ivs[-1]], valid, zero), rows,
                [*ivs[:d + 1], L.index_add(L.index_mul(ivs[d + 1], L.index(c)), ivs[-1])])

    L.for_each([n, *(L.index(p) for p in padded), L.index(outs[-1]), L.index(ks[-1]), L.index(c)], copy)
    return rows


def _conv_dots(L: TensorLowering, op: tensor.ConvOp, out: SSAValue, taps: list[_Tap], n: SSAValue,
               sizes: list[int], outs: list[int], ks: list[int], c: int, f: int) -> None:
    """A conv whose window has more positions than its output (conv's filter
    adjoint: the window is the forward's output, the input features its batch)
    as dot products over window rows: the input's `_window_rows` and the filter
    copied features-first (F × K... × K·C) make each row one contiguous vector in
    both. Per batch element b and window position but the last k...,
    dot(rows[b, p(o, k)..., o_last, :], filter row (k..., f)) for each output
    position o and feature f, `DOT_POSITIONS` positions × `DOT_FEATURES` features
    together; the additions are reassociable and may fuse with the products
    (vectorized FMAs, rounded as BLAS rounds). One window row's rows stay in
    cache across the output positions."""
    rows = _window_rows(L, op, taps, n, sizes, outs, ks, c)
    w = L.buf(op.filter)
    et = elem(op.result)
    d = len(outs)
    row = ks[-1] * c
    zero = L.const(0.0, et)
    wt = L.alloc(TensorType(et, [f, *ks[:-1], row]), [])
    # read in order, stores strided: 4% faster than the other way round (LeNet's first filter adjoint)
    L.for_each([*(L.index(k) for k in ks), L.index(c), L.index(f)],
               lambda ivs: L.store(L.load(w, ivs), wt,
                                   [ivs[-1], *ivs[:d - 1], L.index_add(L.index_mul(ivs[d - 1], L.index(c)), ivs[d])]))
    # each window row's sums go to a buffer of their own, stored once (no zero fill,
    # no read-add-write): the loops over batch elements and window rows may run in
    # threads; then the rows' sums are added in order
    krows = [L.index(k) for k in ks[:-1]]
    sums_type = TensorType(et, [*ks[:-1], shape(op.result)[0], *outs, f])
    partial = out if d == 1 else L.alloc(sums_type, [*krows, n, *(L.index(o) for o in outs), L.index(f)])
    fm, cm = reassoc_flags(CONTRACT), FastMathFlagsAttr([FastMathFlag(CONTRACT)])

    def at_row(ivs: list[SSAValue]) -> None:
        nn, krow = ivs[0], ivs[1:]

        def at(pos: list[SSAValue]) -> None:
            idx = [L.index_add(L.index_mul(o, L.index(t.stride)), L.index_mul(k, L.index(t.rd)))
                   for t, o, k in zip(taps, pos, krow)]

            def tile(lasts: list[SSAValue], fs: list[SSAValue]) -> None:
                def step(j: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
                    xs = [L.load(rows, [nn, *idx, o, j]) for o in lasts]
                    ws = [L.load(wt, [fi, *krow, j]) for fi in fs]
                    return [L.emit1(arith.AddfOp(accs[i * len(fs) + k], L.emit1(arith.MulfOp(xv, wv, cm)), fm))
                            for i, xv in enumerate(xs) for k, wv in enumerate(ws)]

                sums = iter(L.loop(L.index(0), L.index(row), [zero] * (len(lasts) * len(fs)), step))
                for o in lasts:
                    for fi in fs:
                        L.store(next(sums), partial, [*krow, nn, *pos, o, fi])

            def features(lasts: list[SSAValue]) -> None:
                # the remainder one block too (6 features: 4 + 2, 3.5% faster than 4 + 1 + 1)
                for f0 in range(0, f, DOT_FEATURES):
                    tile(lasts, [L.index(fi) for fi in range(f0, min(f0 + DOT_FEATURES, f))])

            blocked(L, L.index(outs[-1]), DOT_POSITIONS, features, lambda o: features([o]))

        L.for_each([L.index(o) for o in outs[:-1]], at)

    L.for_each([n, *krows], at_row)
    L.dealloc(wt)
    L.dealloc(rows)
    if d > 1:
        def total(ivs: list[SSAValue]) -> None:
            (s,) = L.nest(krows, [zero], lambda k, acc: [L.emit1(arith.AddfOp(acc[0], L.load(partial, [*k, *ivs])))])
            L.store(s, out, ivs)

        L.for_each(L.dims_of_buf(out), total)
        L.dealloc(partial)


def _conv_direct(L: TensorLowering, op: tensor.ConvOp, out: SSAValue, taps: list[_Tap], n: SSAValue,
                 outs: list[int], ks: list[int], groups: int) -> None:
    """out = 0; for n, o..., k..., c' (of a group): out[n, o, f] += x[n, tap, c(f)] * w[k, c', f],
    the innermost loop along f."""
    x, w = L.buf(op.input), L.buf(op.filter)
    et = elem(op.result)
    zero = L.const(0.0, et)
    d = len(outs)
    cg, f = ks[d], ks[d + 1]
    fg = f // groups
    L.for_each(L.dims_of_buf(out), lambda ivs: L.store(zero, out, ivs))

    def body(ivs: list[SSAValue]) -> None:
        nn, os, kk, ci = ivs[0], ivs[1:1 + d], ivs[1 + d:1 + 2 * d], ivs[-1]
        idx, valid = _taps(L, taps, os, kk)
        xv = _read(L, x, [nn, *idx, ci], valid, zero) if groups == 1 else None

        def inner(fi: list[SSAValue]) -> None:
            v = xv
            if v is None:  # the input channel of output feature f's group (depthwise: f itself)
                group = fi[0] if fg == 1 else L.emit1(arith.DivUIOp(fi[0], L.index(fg)))
                chan = L.index_add(L.index_mul(group, L.index(cg)), ci)
                v = _read(L, x, [nn, *idx, chan], valid, zero)
            acc = L.load(out, [nn, *os, fi[0]])
            prod = L.emit1(arith.MulfOp(v, L.load(w, [*kk, ci, fi[0]])))
            L.store(L.emit1(arith.AddfOp(acc, prod)), out, [nn, *os, fi[0]])

        L.for_each([L.index(f)], inner)

    L.for_each([n, *(L.index(o) for o in outs), *(L.index(k) for k in ks[:d]), L.index(cg)], body)


# ---------------------------------------------------------------------------
# windowed reductions


def _window_setup(L: TensorLowering, op: Operation, operand: SSAValue, pooled: SSAValue):
    window, stride, pads = op.window_params()  # type: ignore[attr-defined]
    rank = len(window)
    sizes = _static_dims(op, operand, range(rank))
    outs = _static_dims(op, pooled, range(rank))
    taps = [_Tap(sizes[i], stride[i], *pads[i]) for i in range(rank)]
    return taps, [L.index(o) for o in outs], list(window)


# LLVM's loop unroller is off (compile time), so a small window's taps are
# emitted one after the other: as loops, a 2×2 pool carried its running max (and
# the argmax) through phis of loops of 1 and 2 iterations.
_UNROLLED_TAPS = 16


def _over_window(L: TensorLowering, window: Sequence[int], inits: Sequence[SSAValue],
                 body: Callable[[list[SSAValue], list[SSAValue]], Sequence[SSAValue]]) -> list[SSAValue]:
    """``body(taps, carried) -> carried`` for each tap of the window, in row-major order."""
    if _prod(window) > _UNROLLED_TAPS:
        return L.nest([L.index(w) for w in window], inits, body)
    carried = list(inits)
    for ks in itertools.product(*(range(w) for w in window)):
        carried = list(body([L.index(k) for k in ks], carried))
    return carried


@lowering_rule(tensor.ReduceWindowSumOp, tensor.ReduceWindowMaxOp)
def lower_reduce_window(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor._ReduceWindowOp)
    x, res = op.input, op.result
    taps, outs, window = _window_setup(L, op, x, res)
    out = L.fresh(res, result_sizes(L, res, outs))
    et = elem(res)
    combine = meaning_of(op.REDUCTION.COMBINER).scalar_of_kind(element_kind(et))  # type: ignore[attr-defined]
    init = L.const(op.initial(), et)
    b = L.buf(x)

    def at(ivs: list[SSAValue]) -> None:
        def tap(ks: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
            idx, valid = _taps(L, taps, ivs, ks)
            return [combine(L, acc[0], _read(L, b, idx, valid, init))]

        (r,) = _over_window(L, window, [init], tap)
        L.store(r, out, ivs)

    L.for_each(outs, at)


def _first_max(L: TensorLowering, taps: list[_Tap], b: SSAValue, ivs: list[SSAValue],
               window: list[int], et) -> tuple[list[SSAValue], SSAValue | None]:
    """The clamped index of the first maximal element of window ``ivs`` and
    whether it is an operand element (not padding; None: always)."""
    return _taps(L, taps, ivs, _first_max_tap(L, taps, b, ivs, window, et))


def _first_max_tap(L: TensorLowering, taps: list[_Tap], b: SSAValue, ivs: list[SSAValue],
                   window: list[int], et) -> list[SSAValue]:
    """The tap (window position) of the first maximal element of window ``ivs``.
    Only the value and the taps along dims wider than 1 are carried through the
    window (fewer selects per tap)."""
    ninf = L.const(float("-inf"), et)
    zero = L.index(0)
    wide = [i for i, w in enumerate(window) if w != 1]
    first = [ninf, *(zero for _ in wide)]  # as if tap 0 were -inf: tap 0 wins unless something is greater

    def tap(ks: list[SSAValue], best: list[SSAValue]) -> list[SSAValue]:
        idx, valid = _taps(L, taps, ivs, ks)
        v = _read(L, b, idx, valid, ninf)
        # strictly greater, or the first NaN (NaN is maximal): the first maximal element wins
        gt = L.emit1(arith.CmpfOp(v, best[0], "ogt"))
        v_nan = L.emit1(arith.CmpfOp(v, v, "uno"))
        best_num = L.emit1(arith.CmpfOp(best[0], best[0], "ord"))
        better = L.emit1(arith.OrIOp(gt, L.emit1(arith.AndIOp(v_nan, best_num))))
        return [L.emit1(arith.SelectOp(better, new, old)) for new, old in zip([v, *(ks[i] for i in wide)], best)]

    best = _over_window(L, window, first, tap)
    ks = [zero] * len(taps)
    for i, k in zip(wide, best[1:]):
        ks[i] = k
    return ks


@lowering_rule(tensor.WindowMaxSelectOp)
def lower_window_max_select(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.WindowMaxSelectOp)
    res = op.result
    taps, outs, window = _window_setup(L, op, op.operand, res)
    out = L.fresh(res, result_sizes(L, res, outs))
    et = elem(res)
    b, t = L.buf(op.operand), L.buf(op.values)
    zero = L.const(0.0, et)

    def at(ivs: list[SSAValue]) -> None:
        idx, valid = _first_max(L, taps, b, ivs, window, et)
        v = L.load(t, idx)
        L.store(v if valid is None else L.emit1(arith.SelectOp(valid, v, zero)), out, ivs)

    L.for_each(outs, at)


@lowering_rule(tensor.WindowMaxScatterOp)
def lower_window_max_scatter(L: TensorLowering, op: Operation) -> None:
    assert isinstance(op, tensor.WindowMaxScatterOp)
    res = op.result
    taps, outs, window = _window_setup(L, op, op.operand, op.values)
    out = L.fresh(res, result_sizes(L, res, [L.index(s) for s in _static_dims(op, res, range(len(outs)))]))
    et = elem(res)
    b, g = L.buf(op.operand), L.buf(op.values)
    zero = L.const(0.0, et)
    sizes = shape(op.operand)
    if all(t.stride >= w and t.lo <= 0 and t.hi <= 0 for t, w in zip(taps, window)):
        _scatter_disjoint(L, taps, window, outs, shape(op.values), sizes, b, g, out, et)
        return
    L.for_each(L.dims_of_buf(out), lambda ivs: L.store(zero, out, ivs))

    def at(ivs: list[SSAValue]) -> None:
        idx, valid = _first_max(L, taps, b, ivs, window, et)
        add = L.load(g, ivs)
        if valid is not None:
            add = L.emit1(arith.SelectOp(valid, add, zero))
        L.store(L.emit1(arith.AddfOp(L.load(out, idx), add)), out, idx)

    L.for_each(outs, at)


def _scatter_disjoint(L: TensorLowering, taps: list[_Tap], window: list[int], outs: list[SSAValue],
                      out_sizes: Sequence[int], sizes: Sequence[int], b: SSAValue, g: SSAValue, out: SSAValue, et) -> None:
    """`window_max_scatter` whose windows neither overlap (stride >= window) nor
    reach into padding: each operand element is in at most one window, so every
    tap is stored once, the cotangent at the first maximum and 0 elsewhere,
    without a read-add-write. Only when the windows leave elements out (a stride
    wider than the window, a tail, cropping) is the result zero-filled first.
    LeNet's first pool adjoint (64x24x24x6, 2x2; min of many calls,
    busy 2 cores): 0.82 -> 0.24 ms."""
    zero = L.const(0.0, et)
    covered = all(t.stride == w and t.lo == 0 and w * o == s
                  for t, w, o, s in zip(taps, window, out_sizes, sizes))
    if not covered:
        L.for_each(L.dims_of_buf(out), lambda ivs: L.store(zero, out, ivs))
    wide = [i for i, w in enumerate(window) if w != 1]

    def at(ivs: list[SSAValue]) -> None:
        best = _first_max_tap(L, taps, b, ivs, window, et)
        gv = L.load(g, ivs)

        def tap(ks: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            is_best = None
            for i in wide:
                is_best = _and(L, is_best, L.emit1(arith.CmpiOp(ks[i], best[i], "eq")))
            idx, _valid = _taps(L, taps, ivs, ks)
            L.store(gv if is_best is None else L.emit1(arith.SelectOp(is_best, gv, zero)), out, idx)
            return []

        _over_window(L, window, [], tap)

    L.for_each(outs, at)
