"""`tensor.dot` (and `tensor.matmul`, the dot `contract [1] x [0]`) as BLAS gemm calls.

A dot on f32/f64 whose static size (result elements times contracted
elements) is at least the pass option ``blas_threshold`` (any dynamic size
counts as large) lowers, when the pass option ``blas`` is on, to one

    func.call @scipy_cblas_{s,d}gemm64_(%order, %transA, %transB, %M, %N, %K,
        %alpha, %A, %lda, %B, %ldb, %beta, %C, %ldc)
        : (i32, i32, i32, i64, i64, i64, T, i64, i64, i64, i64, T, i64, i64) -> ()

per batch element (a loop nest over the batch dims; none for a plain matmul),
on a private declaration added to the module (the symbols and enums are
``irtoolkit.abi``'s; whoever links the code provides the library, and turns
the option off when there is none). Per batch element an operand is a matrix
whose rows and columns are each a run of consecutive dims (its free dims, its
contracting dims); the run with unit stride decides the trans flag, the other
run's stride is the leading dimension, and the batch dims give the pointer
offset. A `tensor.transpose` operand is folded into the dot's dimension numbers
when the result is still such a layout; an operand in no such layout is first
transposed to one. The result (batch, lhs free, rhs free) is always row-major
M x N per batch element.

Pointers are passed as i64 (`memref.extract_aligned_pointer_as_index` +
`arith.index_cast`; same ABI as a pointer), leading dimensions are clamped to
at least 1 (BLAS rejects 0 for empty operands), beta = 0 (C is overwritten,
K = 0 gives zeros) except for an accumulating dot. ``gemm_call`` and
``batched_gemm`` are the emitters other lowerings (im2col convolutions) may call
on buffers of their own.

Accumulating dots: ``acc + dot(a, b)`` (static shapes, the add the dot's only use)
is one gemm with beta = 1 whose C is ``acc``'s buffer when the add is ``acc``'s last
use and ``acc`` is no operand of the dot, else a copy of ``acc`` (``plan_accumulations``
and ``lower_dot_gemm``): no temporary for the product and no pass of an add over
it, as a weight gradient summed over the steps of a reverse loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, Float64Type, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.abi import GEMM_SYMBOLS, NO_TRANS, ROW_MAJOR, TRANS
from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import inherit_location
from irtoolkit.dialects import tensor
from irtoolkit.dialects.tensor import DotDims
from irtoolkit.passes.lowering.checks import check_eq, element, result_sizes, shape

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering

#: the run-time checks of a dot's paired dimensions
CONTRACT = "contracting dimensions differ at run time (operand #0 vs operand #1)"
BATCH = "batch dimensions differ at run time (operand #0 vs operand #1)"

DotLike = tensor.DotOp | tensor.MatmulOp
# (asked of every op of the module: isinstance against xDSL's abstract classes is a Python call)
_is_dot_like = instance_test(tensor.DotOp, tensor.MatmulOp)
_is_add = instance_test(tensor.AddOp)


def _float_name(t: Attribute) -> str | None:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    return None


#: ``blas_threshold`` = -1 (the default): the measured crossovers. Static matmuls with
#: M*N*K below these stay loop nests (``dot_loops.py``). Measured on an AMD EPYC Zen 3
#: (AVX2, 2 cores, loaded), square n x n times n x n, loop nest / gemm time per call:
#: f64 n=16 1.00, 24 1.02, 32 1.07, 48 1.27, 64 1.52, 128 1.52;
#: f32 n=16 0.97, 24 0.98, 32 1.03, 48 1.12, 64 1.19, 128 1.63.
MATMUL_THRESHOLD = {"f32": 24576, "f64": 8192}
#: Matrix-vector products (the free dims of one side all of static size 1) never call
#: gemm by default: they are memory-bound and gemm's per-call and threading costs
#: dominate. Measured as above, y = A x with A n x n, loop / gemm time per call:
#: f64 n=64 0.78, 128 0.51, 512 0.25, 2048 0.06; f32 n=128 0.69, 512 0.41, 2048 0.03;
#: x^T A: f64 n=128 0.54, 512 0.33, 2048 0.85; f32 n=128 0.60, 2048 0.38.
#: im2col convolutions (``gemm_worthwhile``) keep the figure all dots had before.
CONV_THRESHOLD = 4096


def _static_size(dims: Sequence[int], picked: Sequence[int]) -> int | None:
    n = 1
    for i in picked:
        if dims[i] == DYNAMIC_INDEX:
            return None
        n *= dims[i]
    return n


def small_static_dot(L: TensorLowering, op: Operation) -> bool:
    """All sizes static and the dot below its threshold: the ``blas_threshold``
    option on (result elements) * (contracted elements) when it is set, else the
    measured defaults (matrix-vector products: always; matmuls: ``MATMUL_THRESHOLD``)."""
    d: DotDims = op.dims  # type: ignore[attr-defined]
    lhs, rhs = shape(op.operands[0]), shape(op.operands[1])
    sizes = [_static_size(lhs, range(len(lhs))), _static_size(rhs, range(len(rhs)))]
    if None in sizes:
        return False
    n = 1
    for s in shape(op.results[0]):
        n *= s
    n *= _static_size(lhs, d.lhs_contract)  # type: ignore[operator]
    threshold = L.options.blas_threshold
    if threshold >= 0:
        return n < threshold
    if _static_size(lhs, d.lhs_free) == 1 or _static_size(rhs, d.rhs_free) == 1:
        return True
    return n < MATMUL_THRESHOLD.get(_float_name(element(op.results[0])) or "f64", 0)


def _gemm_symbol(L: TensorLowering, op: Operation) -> str | None:
    """The gemm a dot lowers to, or None for a loop nest."""
    name = _float_name(element(op.results[0]))
    if name is None or any(_float_name(element(v)) != name for v in op.operands[:2]):
        return None
    if not L.options.blas or small_static_dot(L, op):
        return None
    return GEMM_SYMBOLS[name]


# ---------------------------------------------------------------------------
# layouts


@dataclass(frozen=True)
class MatrixLayout:
    """How one operand of a dot is a matrix per batch element: ``inner`` (its
    contracting or its free dims) has unit stride, ``outer``'s stride is the
    leading dimension; each is a run of consecutive dims (or empty)."""

    outer: tuple[int, ...]
    inner: tuple[int, ...]


def _consecutive(dims: Sequence[int]) -> bool:
    return all(b == a + 1 for a, b in zip(dims, dims[1:]))


def matrix_layout(rank: int, free: Sequence[int], contract: Sequence[int]) -> MatrixLayout | None:
    """The layout of an operand with these free and (paired-order) contracting dims, or
    None when it is no strided matrix (then it must be transposed first)."""
    free, contract = tuple(free), tuple(contract)
    if not _consecutive(free) or not _consecutive(contract):
        return None
    for inner, outer in ((contract, free), (free, contract)):
        if inner and inner[-1] == rank - 1:
            return MatrixLayout(outer, inner)
    if not contract:  # one column: any row stride
        return MatrixLayout(free, contract)
    if not free:
        return MatrixLayout(contract, free)
    return None


def _layouts(d: DotDims) -> tuple[MatrixLayout | None, MatrixLayout | None]:
    return (matrix_layout(d.lhs_rank, d.lhs_free, d.lhs_contract),
            matrix_layout(d.rhs_rank, d.rhs_free, d.rhs_contract))


def _transposed_operand(d: DotDims, side: int, perm: Sequence[int]) -> DotDims | None:
    """The dims of the dot reading operand ``side`` through `transpose perm` of its
    source instead, or None when that reorders the operand's free dims."""
    free = d.lhs_free if side == 0 else d.rhs_free
    if [perm[i] for i in free] != sorted(perm[i] for i in free):
        return None
    batch = (d.lhs_batch, d.rhs_batch)
    contract = (d.lhs_contract, d.rhs_contract)
    new_batch = tuple(tuple(perm[i] for i in b) if k == side else b for k, b in enumerate(batch))
    new_contract = tuple(tuple(perm[i] for i in c) if k == side else c for k, c in enumerate(contract))
    return DotDims(d.lhs_rank, d.rhs_rank, new_batch[0], new_batch[1], new_contract[0], new_contract[1])


def _replace_dot(op: Operation, lhs: SSAValue, rhs: SSAValue, d: DotDims) -> tensor.DotOp:
    new = tensor.DotOp(lhs, rhs, (d.lhs_batch, d.rhs_batch), (d.lhs_contract, d.rhs_contract),
                       op.results[0].type)
    inherit_location([new], op)
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()
    return new


def _canonical_operand(op: tensor.DotOp, side: int) -> tensor.DotOp:
    """Transpose operand ``side`` to [batch, free, contract] (lhs) or [batch, contract,
    free] (rhs), the layouts gemm reads as they are."""
    d = op.dims
    v = op.operands[side]
    if side == 0:
        perm = [*d.lhs_batch, *d.lhs_free, *d.lhs_contract]
    else:
        perm = [*d.rhs_batch, *d.rhs_contract, *d.rhs_free]
    t = tensor.TransposeOp(v, perm)
    inherit_location([t], op)
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(t, op)
    nb, nc = len(d.lhs_batch), len(d.lhs_contract)
    rank = len(perm)
    batch = tuple(range(nb))
    contract = tuple(range(rank - nc, rank)) if side == 0 else tuple(range(nb, nb + nc))
    if side == 0:
        new = DotDims(d.lhs_rank, d.rhs_rank, batch, d.rhs_batch, contract, d.rhs_contract)
        return _replace_dot(op, t.result, op.rhs, new)
    new = DotDims(d.lhs_rank, d.rhs_rank, d.lhs_batch, batch, d.lhs_contract, contract)
    return _replace_dot(op, op.lhs, t.result, new)


def plan_accumulations(L: TensorLowering, module: Operation, ops: Iterable[Operation] | None = None) -> None:
    """Before kernels are formed: each ``tensor.add`` of a BLAS dot's result (its only
    use, in the same block) and an accumulator of the same static type is kept out of
    the kernels and the dot moved right in front of it, so the dot's gemm can add into
    the accumulator (``L.gemm_accumulate``: add -> which operand is the dot's).
    ``ops``: the module's ops on tensors in walk order, if known (else it is walked)."""
    for op in [o for o in (module.walk() if ops is None else ops) if _is_add(o)]:
        for side in (0, 1):
            p, acc = op.operands[side], op.operands[1 - side]
            dot = p.owner
            if not isinstance(dot, DotLike) or not p.has_one_use() or dot.parent_block() is not op.parent_block():
                continue
            if not (p.type == acc.type == op.results[0].type) or DYNAMIC_INDEX in shape(p):
                continue
            if _gemm_symbol(L, dot) is None:
                continue
            dot.detach()
            op.parent_block().insert_op_before(dot, op)  # type: ignore[union-attr]
            L.gemm_accumulate[op] = side
            break


def accumulating_add(L: TensorLowering, dot: Operation) -> Operation | None:
    """The add that ``plan_accumulations`` gave this dot's result to, or None."""
    use = dot.results[0].first_use
    if use is None or not dot.results[0].has_one_use() or use.operation not in L.gemm_accumulate:
        return None
    return use.operation


def plan_dots(L: TensorLowering, module: Operation, ops: Iterable[Operation] | None = None) -> None:
    """Before lowering: decide which dots (and matmuls, rewritten as dots) call BLAS;
    fold `tensor.transpose` operands of those into their dimension numbers when
    the layout stays a strided matrix, and transpose operands in no such layout.
    The dots that call BLAS are kept in ``L.gemm_dots`` (a transpose left without
    uses is erased). ``ops``: the module's ops on tensors in walk order, if known
    (else it is walked; those no longer in the module are left out)."""
    dead: list[Operation] = []
    if ops is None:
        dots = [o for o in module.walk() if _is_dot_like(o)]
    else:
        dots = [o for o in ops if _is_dot_like(o) and module.is_ancestor(o)]
    for op in dots:
        sym = _gemm_symbol(L, op)
        if sym is None:
            continue
        for side in (0, 1):
            t = op.operands[side].owner
            if not isinstance(t, tensor.TransposeOp):
                continue
            d = _transposed_operand(op.dims, side, t.permutation.get_values())
            if d is None or _layouts(d)[side] is None:
                continue
            operands = [op.operands[0], op.operands[1]]
            operands[side] = t.input
            op = _replace_dot(op, operands[0], operands[1], d)  # a matmul becomes a dot
            dead.append(t)
        for side in (0, 1):
            if _layouts(op.dims)[side] is None:
                op = _canonical_operand(op, side)  # type: ignore[arg-type]
        L.gemm_dots[op] = sym
    for t in dead:
        if t.parent is not None and not t.results[0].uses:
            t.detach()
            t.erase()


# ---------------------------------------------------------------------------
# emitters


def _product(L: TensorLowering, sizes: Sequence[SSAValue]) -> SSAValue:
    """The product of index values (constants folded)."""
    known = 1
    rest: list[SSAValue] = []
    for s in sizes:
        c = L.const_values.get(s)
        if c is None:
            rest.append(s)
        else:
            known *= int(c)
    out = L.index(known)
    for s in rest:
        out = L.index_mul(out, s)
    return out


def _as_i64(L: TensorLowering, d: SSAValue, at_least_1: bool, cache: dict) -> SSAValue:
    c = L.const_values.get(d)
    if c is not None:
        return L.const(max(int(c), 1) if at_least_1 else int(c), i64)
    v = cache.get((d, False))
    if v is None:
        v = cache[(d, False)] = L.emit1(arith.IndexCastOp(d, i64))
    if at_least_1:
        w = cache.get((d, True))
        if w is None:
            w = cache[(d, True)] = L.emit1(arith.MaxSIOp(v, L.const(1, i64)))
        v = w
    return v


def buffer_pointer(L: TensorLowering, buf: SSAValue) -> SSAValue:
    """The address of a buffer's first element, as i64."""
    p = L.emit1(memref.ExtractAlignedPointerAsIndexOp.get(buf))
    return L.emit1(arith.IndexCastOp(p, i64))


def _declare_gemm(L: TensorLowering, sym: str, et: Attribute) -> None:
    block = L.module.body.block
    for o in block.ops:
        if isinstance(o, func.FuncOp) and o.sym_name.data == sym:
            return
    decl = func.FuncOp.external(sym, [i32, i32, i32, i64, i64, i64, et, i64, i64, i64, i64, et, i64, i64], [])
    if L.loc is not None:
        decl.location = L.loc
    block.add_op(decl)
    L.taken_symbols.add(sym)


@dataclass
class StridedMatrix:
    """A gemm operand per batch element: the address of batch element 0 (i64), whether
    it is stored transposed, its leading dimension and the stride of each batch
    dim (index values, in elements)."""

    pointer: SSAValue
    trans: bool
    ld: SSAValue
    batch_strides: Sequence[SSAValue]


def gemm_call(L: TensorLowering, et: Attribute, M: SSAValue, N: SSAValue, K: SSAValue,
              a: tuple[SSAValue, bool, SSAValue], b: tuple[SSAValue, bool, SSAValue],
              c: tuple[SSAValue, SSAValue], cache: dict | None = None, beta: float = 0.0) -> None:
    """One gemm C = op(A) @ op(B) + beta C (M x N, K contracted): ``a``, ``b`` are
    (pointer, trans, leading dim) and ``c`` (pointer, leading dim); pointers i64, sizes
    index. Leading dims are clamped to at least 1."""
    name = _float_name(et)
    assert name is not None
    sym = GEMM_SYMBOLS[name]
    _declare_gemm(L, sym, et)
    cache = {} if cache is None else cache
    args = [
        L.const(ROW_MAJOR, i32), L.const(TRANS if a[1] else NO_TRANS, i32),
        L.const(TRANS if b[1] else NO_TRANS, i32),
        _as_i64(L, M, False, cache), _as_i64(L, N, False, cache), _as_i64(L, K, False, cache),
        L.const(1.0, et), a[0], _as_i64(L, a[2], True, cache),
        b[0], _as_i64(L, b[2], True, cache),
        L.const(beta, et), c[0], _as_i64(L, c[1], True, cache),
    ]
    L.emit(func.CallOp(sym, args, []))


def batched_gemm(L: TensorLowering, et: Attribute, batch: Sequence[SSAValue], M: SSAValue,
                 N: SSAValue, K: SSAValue, a: StridedMatrix, b: StridedMatrix,
                 c: StridedMatrix, beta: float = 0.0) -> None:
    """One gemm per batch element (a loop nest over ``batch``; one call without)."""
    cache: dict = {}

    def at(m: StridedMatrix, ivs: list[SSAValue]) -> SSAValue:
        offset = L.index(0)
        for iv, s in zip(ivs, m.batch_strides):
            offset = L.index_add(offset, L.index_mul(iv, s))
        if L.const_values.get(offset) == 0:
            return m.pointer
        bytes_ = L.const(et.bitwidth // 8, i64)  # type: ignore[attr-defined]
        scaled = L.emit1(arith.MuliOp(L.emit1(arith.IndexCastOp(offset, i64)), bytes_))
        return L.emit1(arith.AddiOp(m.pointer, scaled))

    if not batch:
        gemm_call(L, et, M, N, K, (a.pointer, a.trans, a.ld), (b.pointer, b.trans, b.ld),
                  (c.pointer, c.ld), cache, beta)
        return
    L.for_each(batch, lambda ivs: gemm_call(
        L, et, M, N, K, (at(a, ivs), a.trans, a.ld), (at(b, ivs), b.trans, b.ld), (at(c, ivs), c.ld),
        beta=beta))


def _strides(L: TensorLowering, dims: Sequence[SSAValue]) -> list[SSAValue]:
    """Row-major strides (in elements) of a buffer of these sizes."""
    return [_product(L, dims[i + 1:]) for i in range(len(dims))]


def check_dot_sizes(L: TensorLowering, op: Operation, da: Sequence[SSAValue],
                    db: Sequence[SSAValue]) -> list[SSAValue]:
    """Run-time checks of a dot's paired dims; the result's sizes."""
    d: DotDims = op.dims  # type: ignore[attr-defined]
    for lb, rb in zip(d.lhs_batch, d.rhs_batch):
        check_eq(L, op, da[lb], db[rb], BATCH)
    for lc, rc in zip(d.lhs_contract, d.rhs_contract):
        check_eq(L, op, da[lc], db[rc], CONTRACT)
    known: list[SSAValue | None] = [*(da[i] for i in d.lhs_batch), *(da[i] for i in d.lhs_free),
                                    *(db[i] for i in d.rhs_free)]
    return result_sizes(L, op.results[0], known)


def lower_dot_gemm(L: TensorLowering, op: Operation) -> None:
    """The gemm calls of a dot (or matmul) planned by ``plan_dots``; an accumulating
    dot (``plan_accumulations``) adds into its accumulator's buffer when the add right
    after it is the accumulator's last use, else into a copy of it."""
    d: DotDims = op.dims  # type: ignore[attr-defined]
    a, b = op.operands[0], op.operands[1]
    da, db = L.dims(a), L.dims(b)
    dims = check_dot_sizes(L, op, da, db)
    add = accumulating_add(L, op)
    if add is None:
        out, beta = L.fresh(op.results[0], dims), 0.0
    else:
        assert op.next_op is add, "plan_accumulations puts the dot right before its add"
        acc = add.operands[1 - L.gemm_accumulate[add]]
        in_place = acc not in op.operands and L.try_consume(acc, L.scope.index + 1)
        out, beta = (L.buf(acc) if in_place else L.copy_value(acc)), 1.0
        L.set_result(op.results[0], out)
    la, lb = _layouts(d)
    assert la is not None and lb is not None, "plan_dots leaves only strided-matrix operands"
    nb = len(d.lhs_batch)
    M = _product(L, [da[i] for i in d.lhs_free])
    N = _product(L, [db[i] for i in d.rhs_free])
    K = _product(L, [da[i] for i in d.lhs_contract])

    def matrix(buf: SSAValue, sizes: list[SSAValue], layout: MatrixLayout, batch_dims,
               trans: bool) -> StridedMatrix:
        strides = _strides(L, sizes)
        if layout.outer:
            ld = strides[layout.outer[-1]]
        else:  # one row: the leading dim only has to cover the columns
            ld = _product(L, [sizes[i] for i in layout.inner])
        return StridedMatrix(buffer_pointer(L, buf), trans, ld, [strides[i] for i in batch_dims])

    # the lhs is M x K, stored transposed when its free dims are the unit-stride run;
    # the rhs is K x N, stored transposed when its contracting dims are
    A = matrix(L.buf(a), da, la, d.lhs_batch, la.inner != d.lhs_contract)
    B = matrix(L.buf(b), db, lb, d.rhs_batch, lb.inner != d.rhs_free)
    C = StridedMatrix(buffer_pointer(L, out), False, N, _strides(L, dims)[:nb])
    batched_gemm(L, element(op.results[0]), dims[:nb], M, N, K, A, B, C, beta)


def call_gemm(L: TensorLowering, et: Attribute, M: SSAValue, N: SSAValue, K: SSAValue,
              a: SSAValue, b: SSAValue, out: SSAValue) -> None:
    """out (M × N, row-major) = a (M × K) @ b (K × N): one gemm call on contiguous
    buffers, for ops other than dot whose operands are matrices once flattened
    (``conv``'s im2col). Callers check ``gemm_worthwhile`` first."""
    gemm_call(L, et, M, N, K, (buffer_pointer(L, a), False, K), (buffer_pointer(L, b), False, N),
              (buffer_pointer(L, out), N))


def gemm_worthwhile(L: TensorLowering, et: Attribute, flops: int | None) -> bool:
    """BLAS is on, ``et`` is f32/f64 and the static M*N*K (None: dynamic, large)
    reaches the ``blas_threshold`` option (default ``CONV_THRESHOLD``)."""
    threshold = L.options.blas_threshold
    if threshold < 0:
        threshold = CONV_THRESHOLD
    return L.options.blas and _float_name(et) is not None and (flops is None or flops >= threshold)
