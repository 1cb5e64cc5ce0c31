"""Threads for the loops ``lower-loop-to-cf`` outlined (see its module doc).

``convert-func-to-llvm`` lowers ``func.call @w(%lb, %ub, inits..., captures...)
{irt.parallel = [kinds], irt.work = c}`` to a call of a *dispatcher*
``@__irt_pfor_<w>`` with the same operands: a bodyless ``llvm.func`` carrying
``irt.pfor`` (the kinds), ``irt.work`` and ``irt.worker = @w``. The pass
``define-parallel-dispatchers`` (the last step of ``lower-to-llvm``) gives it
its body, in the llvm dialect (pthreads, no C compiler). What does not depend on
the loop is one runtime function, ``abi.PARALLEL_FOR_SYMBOL``
(LLVM IR in runtime/support.py), which the JIT builds once per process and an
object file holds a ``linkonce_odr`` copy of (``translate.llvm_ir``); per loop
there are only

* the dispatcher: it stores its operands (but the bounds) in a context in its
  stack frame, calls ``__irt_parallel_for(@__irt_pthunk_<w>, ctx, lb, ub, need,
  per, results, size, serial, gate)`` and combines the ``m`` chunk results it
  returns, in order: "sum" adds the partial sums (chunks after the first start
  from 0), "same" (a buffer passed through) keeps the first;
* the thunk ``void @__irt_pthunk_<w>(ctx, k, lo, hi, slot)``: chunk ``k`` =
  ``@w(lo, hi, ...)`` with the operands from the context, its result to ``slot``.

``__irt_parallel_for``: ``n = ub - lb``; when ``n < need`` (``n * c <
PARALLEL_MIN_WORK``) or fewer than two threads are allowed (``IRT_NUM_THREADS``,
default: the online CPUs, at most ``abi.MAX_THREADS``) or ``gate`` is given and its
flag zero, chunk 0 is all of ``[lb, ub)`` on the calling thread (m = 1). Else it
cuts ``[lb, ub)`` into ``m`` equal chunks (``m`` fixed by the trip count and
``per``: results are deterministic for a given ``m``), starts detached
``pthread_create`` workers (the chunks of one that cannot be created run on the
others), takes chunks itself and waits for the chunks the workers took. Threads
take the next chunk from an atomic counter (a thread slowed down by other work
on its core does not hold the others up), and the calling thread waits for no
worker that took none: on a busy machine a worker may start only after the
calling thread has run every chunk (it then finds none; the last thread out
frees the context the threads share).
While ``serial`` is given and its flag nonzero (``abi.LOOPS_SERIAL_SYMBOL``: a
function measured faster so on a busy machine, runtime/blas.py) the calling
thread takes every chunk itself. The module passes the flags' addresses, so
what it references tells the runtime which ways it has (``blas.thread_ways``).

Gemm calls with static N and K whose M*N*K may reach the threshold get dispatchers
of their own (``split_gemms``): chunks of rows of C, one gemm call each, only while
the runtime asks for it (``abi.BLAS_SPLIT_SYMBOL``, the gate, with OpenBLAS held at
one thread: one pool of threads for loops and gemms; see runtime/blas.py).

The outlined loops contain no run-time check, call or allocation
(``parallel_kinds``), so nothing in a worker needs the calling thread's
error-handling state. Contexts live in the dispatcher's stack frame. The
loads and stores of a worker that reads no buffer it writes are told apart with
alias scopes (``alias_scopes`` / ``noalias_scopes`` on ``llvm.load``/``llvm.store``;
``separate_loads_and_stores``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr, Float16Type, Float32Type, Float64Type, IntegerAttr, IntegerType, ModuleOp, StringAttr,
    VectorType, i8, i32, i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.abi import (
    BLAS_SPLIT_SYMBOL, GEMM_SYMBOLS, LOOPS_SERIAL_SYMBOL, MAX_CHUNKS, NO_TRANS, PARALLEL_FOR_SYMBOL,
    ROW_MAJOR, UNOPTIMIZED_AT_TIER0,
)
from irtoolkit.passes.lowering.to_llvm.build import (
    PTR, FunctionBuilder, declare, define, function_type, lookup, referenced_symbol,
    set_passthrough, symbol_users,
)
from irtoolkit.passes.lowering.to_llvm.common import constant_int

#: chunks of a split loop: at most abi.MAX_CHUNKS, of about CHUNK_WORK cost units each
CHUNK_WORK = 250_000
DISPATCH_PREFIX = "__irt_pfor_"
THUNK_PREFIX = "__irt_pthunk_"


#: ``void thunk(ptr ctx, i64 k, i64 lo, i64 hi, ptr slot)``: chunk k of a loop
THUNK_TYPE = function_type([PTR, i64, i64, i64, PTR])
#: ``abi.PARALLEL_FOR_SYMBOL``'s type (its definition: runtime/support.py)
PARALLEL_FOR_TYPE = function_type([PTR, PTR, i64, i64, i64, i64, PTR, i64, PTR, PTR], i64)


def _size(t: Attribute) -> int:
    """An upper bound of the store size of ``t`` (all our types align to <= 8 bytes)."""
    if isinstance(t, IntegerType):
        n = max(1, -(-t.width.data // 8))
        return 1 << (n - 1).bit_length()
    if isinstance(t, Float16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, Float64Type | llvm.LLVMPointerType):
        return 8
    if isinstance(t, llvm.LLVMArrayType):
        return t.size.data * _size(t.type)
    if isinstance(t, llvm.LLVMStructType):
        return sum(-(-_size(e) // 8) * 8 for e in t.types)
    if isinstance(t, VectorType):
        count = 1
        for d in t.get_shape():
            count *= d
        return 1 << (count * _size(t.element_type) - 1).bit_length()
    return 64


def _combine(b: FunctionBuilder, kind: str, acc: SSAValue, x: SSAValue) -> SSAValue:
    if kind == "same":
        return acc
    if isinstance(acc.type, IntegerType):
        return b.add(acc, x)
    # strictly in order (no reassoc): LLVM would vectorize the combination in the
    # optimized dispatcher and not in the first tier's (``abi.UNOPTIMIZED_AT_TIER0``),
    # and a sum would change in its last bits when the code tiers up
    return b.fadd(acc, x)


def _context_offsets(types: list[Attribute]) -> tuple[list[int], int]:
    """Byte offsets of values of ``types`` in a context, each 8-byte aligned; its words."""
    offsets = []
    words = 0
    for t in types:
        offsets.append(words * 8)
        words += -(-_size(t) // 8)
    return offsets, max(words, 1)


def _define_thunk(module: ModuleOp, worker: llvm.FuncOp, kinds: list[str]) -> str:
    """``void @__irt_pthunk_<worker>(ctx, k, lo, hi, slot)`` (once per worker): chunk
    ``k`` is ``worker(lo, hi, operands...)`` with the operands from the context ("sum"
    inits of chunks after the first are 0), its result stored to ``slot``."""
    name = THUNK_PREFIX + worker.sym_name.data
    if lookup(module, name) is not None:
        return name
    fty = worker.function_type
    ret = fty.output
    arg_types = list(fty.inputs)[2:]
    offsets, _ = _context_offsets(arg_types)
    _, tb = define(module, name, THUNK_TYPE, "internal", "noinline", UNOPTIMIZED_AT_TIER0)
    ctx, k, lo, hi, slot = tb.args
    first = tb.icmp("eq", k, tb.i64(0)) if "sum" in kinds else None
    wargs = [lo, hi]
    for j, t in enumerate(arg_types):
        v = tb.load(tb.gep(ctx, offsets[j]), t)
        if j < len(kinds) and kinds[j] == "sum":  # chunks after the first start from 0
            v = tb.select(first, v, tb.const(0, t))
        wargs.append(v)
    void = isinstance(ret, llvm.LLVMVoidType)
    r = tb.call(worker.sym_name.data, wargs, None if void else ret)
    if not void:
        tb.store(r, slot)
    tb.ret()
    return name


def _flag_address(module: ModuleOp, b: FunctionBuilder, name: str, linkage: str) -> SSAValue:
    """The address of the i64 flag ``name`` the runtime defines, declared in
    ``module`` with ``linkage`` on first use."""
    if lookup(module, name) is None:
        module.body.block.add_op(llvm.GlobalOp(i64, name, linkage))
    return b.addressof(name)


def define_dispatcher(module: ModuleOp, fn: llvm.FuncOp, worker: llvm.FuncOp,
                      kinds: list[str], work: int, min_work: int, chunk_work: int = CHUNK_WORK,
                      gate: str | None = None) -> None:
    """Give the declared dispatcher ``fn(lb, ub, inits..., caps...)`` its body: the
    operands to a context, ``__irt_parallel_for`` over the thunk of ``worker``, the
    chunks' results combined in order (see the module doc).

    Above the threshold the range is cut into chunks (their number depends on the
    trip count and the cost only: the result does not depend on the number of
    threads or on which thread ran which chunk). ``gate``: an external i64 global;
    threads only while it is nonzero (and then whatever ``abi.LOOPS_SERIAL_SYMBOL``
    says); without it the loop runs serially while ``abi.LOOPS_SERIAL_SYMBOL`` is set.
    The flag is weak: code linked without our runtime (``--emit obj``) finds it
    absent and keeps its threads."""
    fty = fn.function_type
    ret = fty.output
    void = isinstance(ret, llvm.LLVMVoidType)
    nk = len(kinds)
    rsize = 0 if void else -(-_size(ret) // 8) * 8
    declare(module, PARALLEL_FOR_SYMBOL, PARALLEL_FOR_TYPE)
    thunk = _define_thunk(module, worker, kinds)

    # the worker (the loop) is compiled once, not once per call site of it
    if "alwaysinline" not in str(worker.attributes.get("passthrough", "")):
        set_passthrough(worker, "noinline")
    _, b = define(module, fn.sym_name.data, fty, "internal", "noinline", UNOPTIMIZED_AT_TIER0)
    args = list(b.args)
    offsets, words = _context_offsets(list(fty.inputs)[2:])
    ctx = b.alloca(llvm.LLVMArrayType(words, i64))
    results = b.null() if void else b.alloca(llvm.LLVMArrayType(rsize * MAX_CHUNKS, i8))
    for j, a in enumerate(args[2:]):
        b.store(a, b.gep(ctx, offsets[j]))
    need = max(2, -(-min_work // max(work, 1)))  # trip count that pays for threads
    per = max(1, -(-chunk_work // max(work, 1)))  # iterations per chunk at least
    if gate is None:
        serial, gated = _flag_address(module, b, LOOPS_SERIAL_SYMBOL, "extern_weak"), b.null()
    else:  # (a split gemm's gate is the SPLIT way itself)
        serial, gated = b.null(), _flag_address(module, b, gate, "external")
    m = b.call(PARALLEL_FOR_SYMBOL, [b.addressof(thunk), ctx, args[0], args[1], b.i64(need), b.i64(per),
                                     results, b.i64(rsize), serial, gated], i64)
    if void:
        b.ret()
        return
    acc_slot = b.alloca(ret, align=16)

    def slot(k: SSAValue) -> SSAValue:
        return b.gep(results, b.mul(k, b.i64(rsize)))

    b.store(b.load(slot(b.i64(0)), ret), acc_slot)

    def combine_one(k: SSAValue) -> None:
        x = b.load(slot(k), ret)
        acc = b.load(acc_slot, ret)
        if nk == 1:
            acc = _combine(b, kinds[0], acc, x)
        else:
            for i, kind in enumerate(kinds):
                if kind != "same":
                    t_i = ret.types.data[i]  # type: ignore[attr-defined]
                    acc = b.insert(acc, _combine(b, kind, b.extract(acc, i, t_i),
                                                 b.extract(x, i, t_i)), i)
        b.store(acc, acc_slot)

    b.counted_loop(b.i64(1), m, combine_one)
    b.ret(b.load(acc_slot, ret))


def separate_loads_and_stores(fn: llvm.FuncOp) -> None:
    """In an outlined loop (or run of loops) marked ``READS_APART_ATTR``, no buffer is
    both read and written and the written ones are fresh allocations
    (``loop_to_cf._reads_apart``): tell LLVM with one alias scope (loads in it,
    stores ``noalias`` with it), so that it vectorizes without run-time overlap
    checks and a scalar copy of the loop."""
    scope = ArrayAttr([StringAttr("irt.reads." + fn.sym_name.data)])
    for op in fn.walk():
        kind = type(op)  # (not isinstance: an ABC check per op)
        if kind is llvm.LoadOp:
            op.attributes["alias_scopes"] = scope
        elif kind is llvm.StoreOp:
            op.attributes["noalias_scopes"] = scope


GEMM_ROWS_PREFIX = "__irt_gemm_rows_"
#: a split gemm's chunks: about this many multiply-adds (M*N*K units) each, at least two
GEMM_CHUNK_WORK = 2_000_000
#: and at least this many rows of C each: every chunk is a gemm call of its own, which
#: packs all of op(B) again, about as long as computing 20-35 rows (OpenBLAS sgemm, AVX2:
#: 64x784 @ 784x256 took 0.33 ms in one call, 0.81 ms in 6 calls of 11 rows; 784x64 @
#: 64x256 0.32 and 0.39 ms). Chunks of 8-11 rows made the split way 2-3x slower than
#: one thread (the W2 and W8 gradients: 1.06 ms against 0.74, 24 against 9.8)
GEMM_MIN_ROWS = 64


def _gemm_rows_worker(module: ModuleOp, gemm: llvm.FuncOp) -> llvm.FuncOp:
    """``@__irt_gemm_rows_<gemm>(lo, hi, <the gemm's arguments but M>)``: the gemm of
    rows [lo, hi) of op(A) and C (row-major)."""
    name = GEMM_ROWS_PREFIX + gemm.sym_name.data
    found = lookup(module, name)
    if isinstance(found, llvm.FuncOp):
        return found
    ins = list(gemm.function_type.inputs)
    et = ins[6]
    fn, b = define(module, name, function_type([i64, i64, *ins[:3], *ins[4:]]), "internal")
    lo, hi, order, ta, tb, N, K, alpha, A, lda, B, ldb, beta, C, ldc = b.args
    size = b.i64(_size(et))
    a_row = b.select(b.icmp("eq", ta, b.i32(NO_TRANS)), b.mul(lo, lda), lo)  # row lo of op(A)
    a = b.add(A, b.mul(a_row, size))
    c = b.add(C, b.mul(b.mul(lo, ldc), size))
    b.call(gemm.sym_name.data, [order, ta, tb, b.sub(hi, lo), N, K, alpha, a, lda, B, ldb, beta, c, ldc])
    b.ret()
    return fn


def split_gemms(module: ModuleOp, min_work: int) -> None:
    """Calls of a row-major gemm with static N and K become calls of a dispatcher
    over the rows of C (``_gemm_rows_worker``), gated by ``abi.BLAS_SPLIT_SYMBOL``:
    while the runtime holds OpenBLAS at one thread and asks for it (runtime/blas.py,
    the way SPLIT), a large gemm runs on the dispatcher's threads as the loops do,
    a chunk of rows each (``GEMM_MIN_ROWS`` at least: a gemm of fewer than twice as
    many rows is never split); else it is the one call."""
    gemms = {lookup(module, s) for s in GEMM_SYMBOLS.values()} - {None}
    if not gemms:
        return
    names = {g.sym_name.data: g for g in gemms}  # type: ignore[union-attr]
    calls = [op for op in symbol_users(module)
             if type(op) is llvm.CallOp and referenced_symbol(op) in names]
    for call in calls:
        order, _ta, _tb, M, N, K = call.args[:6]
        n, k, m = constant_int(N), constant_int(K), constant_int(M)
        if constant_int(order) != ROW_MAJOR or n is None or k is None or n * k == 0:
            continue
        work = n * k  # per row of C
        chunk_work = max(GEMM_CHUNK_WORK, GEMM_MIN_ROWS * work)
        need = max(min_work, 2 * chunk_work)
        if m is not None and m * work < need:
            continue
        worker = _gemm_rows_worker(module, names[call.callee.root_reference.data])  # type: ignore[arg-type]
        disp = f"{DISPATCH_PREFIX}{worker.sym_name.data}_{work}"
        if lookup(module, disp) is None:
            fn = declare(module, disp, worker.function_type)
            define_dispatcher(module, fn, worker, [], work, need, chunk_work, BLAS_SPLIT_SYMBOL)
        zero = llvm.ConstantOp(IntegerAttr(0, i64), i64)
        a = list(call.args)
        new = llvm.CallOp(disp, zero.result, M, *a[:3], *a[4:], return_type=None)
        block = call.parent
        assert block is not None
        block.insert_op_before(zero, call)
        block.insert_op_before(new, call)
        call.detach()
        call.erase()


def define_dispatchers(module: ModuleOp) -> None:
    """Define every dispatcher declared in ``module`` (llvm dialect), and those of
    split gemms (``split_gemms``); tell LLVM the loads and stores of outlined loop
    nests that never overlap apart (``separate_loads_and_stores``)."""
    from irtoolkit.passes.lowering.loop_to_cf import PARALLEL_MIN_WORK, READS_APART_ATTR

    for op in list(module.ops):
        if not isinstance(op, llvm.FuncOp):
            continue
        if op.body.blocks:
            if READS_APART_ATTR in op.attributes:
                del op.attributes[READS_APART_ATTR]
                separate_loads_and_stores(op)
            continue
        kinds_attr = op.attributes.get("irt.pfor")
        if kinds_attr is None:
            continue
        worker = lookup(module, op.attributes["irt.worker"].root_reference.data)  # type: ignore[attr-defined]
        assert isinstance(worker, llvm.FuncOp)
        kinds = [k.data for k in kinds_attr.data]  # type: ignore[attr-defined]
        work = op.attributes["irt.work"].value.data  # type: ignore[attr-defined]
        define_dispatcher(module, op, worker, kinds, work, PARALLEL_MIN_WORK)
    split_gemms(module, PARALLEL_MIN_WORK)


@dataclass(frozen=True)
class DefineParallelDispatchersPass(ModulePass):
    """Bodies for the thread dispatchers ``@__irt_pfor_*`` of the loops
    ``lower-loop-to-cf`` outlined (see the module doc)."""

    name = "define-parallel-dispatchers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        define_dispatchers(op)
