"""`tensor.matmul` as a BLAS gemm call: which matmuls, and the call itself.

A matmul on f32/f64 whose static size M*N*K is at least the pass option
``blas_threshold`` (any dynamic size counts as large) lowers, when the pass
option ``blas`` is on, to

    func.call @scipy_cblas_{s,d}gemm64_(%order, %transA, %transB, %M, %N, %K,
        %alpha, %A, %lda, %B, %ldb, %beta, %C, %ldc)
        : (i32, i32, i32, i64, i64, i64, T, i64, i64, i64, i64, T, i64, i64) -> ()

on a private declaration added to the module (the symbols and enums are
``irtoolkit.abi``'s; whoever links the code provides the library, and turns
the option off when there is none). The pointers are passed as i64
(`memref.extract_aligned_pointer_as_index` + `arith.index_cast`; same ABI as a
pointer), leading dimensions are clamped to at least 1 (BLAS rejects 0 for
empty operands), beta = 0 (C is overwritten, K = 0 gives zeros). A 2-D
`tensor.transpose [1, 0]` operand is folded into the trans flags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, Float64Type, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from irtoolkit.abi import GEMM_SYMBOLS, NO_TRANS, ROW_MAJOR, TRANS
from irtoolkit.dialects import tensor
from irtoolkit.passes.lowering.checks import check_eq, result_sizes, shape

if TYPE_CHECKING:
    from irtoolkit.passes.lowering.tensor_to_loop import TensorLowering

#: the run-time check of a matmul's contracting dimension
CONTRACT = "contracting dimensions differ at run time (operand #0 vs operand #1)"


def _element(v: SSAValue) -> Attribute:
    return v.type.get_element_type()  # type: ignore[attr-defined]


def _float_name(t: Attribute) -> str | None:
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    return None


def small_static_matmul(L: TensorLowering, op: Operation) -> bool:
    """All sizes static and M*N*K below the ``blas_threshold`` option."""
    sizes = [*shape(op.operands[0]), *shape(op.operands[1])]
    if any(s == DYNAMIC_INDEX for s in sizes):
        return False
    n = 1
    for s in shape(op.results[0]):
        n *= s
    return n * shape(op.operands[0])[-1] < L.options.blas_threshold


def _gemm_symbol(L: TensorLowering, op: Operation) -> str | None:
    """The gemm a matmul lowers to, or None for a loop nest."""
    name = _float_name(_element(op.results[0]))
    if name is None or any(_float_name(_element(v)) != name for v in op.operands[:2]):
        return None
    if not L.options.blas or small_static_matmul(L, op):
        return None
    return GEMM_SYMBOLS[name]


def plan_matmuls(L: TensorLowering, module: Operation) -> None:
    """Before lowering: decide which matmuls call BLAS and fold a 2-D
    `tensor.transpose [1, 0]` operand of those into the gemm's trans flags
    (the matmul then reads the transpose's source; a transpose left without
    uses is erased). The plans are kept in ``L.matmul_plans``: until the
    lowering, such a matmul has operands of transposed shapes."""
    plans = L.matmul_plans
    dead: list[Operation] = []
    for op in list(module.walk()):
        if not isinstance(op, tensor.MatmulOp):
            continue
        sym = _gemm_symbol(L, op)
        if sym is None:
            continue
        flags = [False, False]
        operands = list(op.operands)
        for k in (0, 1):
            t = operands[k].owner
            if isinstance(t, tensor.TransposeOp) and len(shape(operands[k])) == 2 \
                    and list(t.permutation.get_values()) == [1, 0]:
                operands[k] = t.input
                flags[k] = True
                dead.append(t)
        if any(flags):
            op.operands = operands
        plans[op] = (sym, flags[0], flags[1])
    for t in dead:
        if t.parent is not None and not t.results[0].uses:
            t.detach()
            t.erase()


def matmul_plan(L: TensorLowering, op: Operation) -> tuple[str, bool, bool] | None:
    """(gemm symbol, transA, transB) if ``op`` calls BLAS, else None."""
    return L.matmul_plans.get(op)


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


def _pointer(L: TensorLowering, buf: SSAValue) -> SSAValue:
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


def lower_matmul_gemm(L: TensorLowering, op: Operation, sym: str, ta: bool, tb: bool) -> None:
    """The gemm call of a planned matmul (operands possibly transposed, see ``plan_matmuls``)."""
    a, b = op.operands[0], op.operands[1]
    res = op.results[0]
    ra, rb = len(shape(a)), len(shape(b))
    da, db = L.dims(a), L.dims(b)
    one = L.index(1)
    # stored operands: a is M x K (K x M if ta), a vector is 1 x K;
    # b is K x N (N x K if tb), a vector is K x 1
    if ra == 2:
        M, K, lda = (da[1], da[0], da[1]) if ta else (da[0], da[1], da[1])
    else:
        M, K, lda = one, da[0], da[0]
    if rb == 2:
        N, ldb = (db[0], db[1]) if tb else (db[1], db[1])
    else:
        N, ldb = one, one
    check_eq(L, op, K, (db[1] if tb else db[0]) if rb == 2 else db[0], CONTRACT)
    known: list[SSAValue | None] = ([M] if ra == 2 else []) + ([N] if rb == 2 else [])
    out = L.fresh(res, result_sizes(L, res, known))
    et = _element(res)
    _declare_gemm(L, sym, et)
    c: dict = {}
    args = [
        L.const(ROW_MAJOR, i32), L.const(TRANS if ta else NO_TRANS, i32), L.const(TRANS if tb else NO_TRANS, i32),
        _as_i64(L, M, False, c), _as_i64(L, N, False, c), _as_i64(L, K, False, c),
        L.const(1.0, et), _pointer(L, L.buf(a)), _as_i64(L, lda, True, c),
        _pointer(L, L.buf(b)), _as_i64(L, ldb, True, c),
        L.const(0.0, et), _pointer(L, out), _as_i64(L, N, True, c),
    ]
    L.emit(func.CallOp(sym, args, []))


def call_gemm(L: TensorLowering, et: Attribute, M: SSAValue, N: SSAValue, K: SSAValue,
              a: SSAValue, b: SSAValue, out: SSAValue) -> None:
    """out (M × N, row-major) = a (M × K) @ b (K × N): a gemm call on contiguous
    buffers, for ops other than matmul whose operands are matrices once flattened
    (``conv``'s im2col). Callers check ``gemm_worthwhile`` first."""
    name = _float_name(et)
    assert name is not None
    sym = GEMM_SYMBOLS[name]
    _declare_gemm(L, sym, et)
    c: dict = {}
    args = [
        L.const(ROW_MAJOR, i32), L.const(NO_TRANS, i32), L.const(NO_TRANS, i32),
        _as_i64(L, M, False, c), _as_i64(L, N, False, c), _as_i64(L, K, False, c),
        L.const(1.0, et), _pointer(L, a), _as_i64(L, K, True, c),
        _pointer(L, b), _as_i64(L, N, True, c),
        L.const(0.0, et), _pointer(L, out), _as_i64(L, N, True, c),
    ]
    L.emit(func.CallOp(sym, args, []))


def gemm_worthwhile(L: TensorLowering, et: Attribute, flops: int | None) -> bool:
    """BLAS is on, ``et`` is f32/f64 and the static M*N*K (None: dynamic, large)
    reaches the ``blas_threshold`` option."""
    return L.options.blas and _float_name(et) is not None and (flops is None or flops >= L.options.blas_threshold)
