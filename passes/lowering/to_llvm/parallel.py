"""Threads for the loops ``lower-loop-to-cf`` outlined (see its module doc).

``convert-func-to-llvm`` lowers ``func.call @w(%lb, %ub, inits..., captures...)
{irt.parallel = [kinds], irt.work = c}`` to a call of a *dispatcher*
``@__irt_pfor_<w>`` with the same operands: a bodyless ``llvm.func`` carrying
``irt.pfor`` (the kinds), ``irt.work`` and ``irt.worker = @w``. The pass
``define-parallel-dispatchers`` (the last step of ``lower-to-llvm``) gives it
its body, in the llvm dialect (pthreads, no C compiler):

* ``n = ub - lb``; when ``n * c < PARALLEL_MIN_WORK`` or fewer than two threads are
  allowed (``IRT_NUM_THREADS``, default: the online CPUs, at most ``MAX_THREADS``),
  it calls ``@w(lb, ub, ...)`` on the calling thread;
* else it cuts ``[lb, ub)`` into ``t`` equal chunks (fixed: results are
  deterministic for a given ``t``), starts ``pthread_create`` workers for chunks
  1..t-1 (each runs ``@w`` on the chunks it takes through
  ``@__irt_pthunk_<w>(ctx)``; a worker that cannot be created runs inline),
  takes chunks itself, joins the workers in order and combines their results
  in order: "sum" adds the partial sums (chunks after the first start from 0),
  "same" (a buffer passed through) keeps the first. Threads take the next chunk
  from a counter under a mutex in the shared context (a thread slowed down by
  other work on its core does not hold the others up). While the runtime asks
  for serial loops (``abi.LOOPS_SERIAL_SYMBOL``: a function measured faster so on a
  busy machine, runtime/blas.py) the calling thread takes every chunk itself.

Gemm calls with static N and K whose M*N*K may reach the threshold get dispatchers
of their own (``split_gemms``): chunks of rows of C, one gemm call each, only while
the runtime asks for it (``abi.BLAS_SPLIT_SYMBOL``, with OpenBLAS held at one thread:
one pool of threads for loops and gemms; see runtime/blas.py).

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
    BLAS_SPLIT_SYMBOL, GEMM_SYMBOLS, LOOPS_SERIAL_SYMBOL, NO_TRANS, ROW_MAJOR, UNOPTIMIZED_AT_TIER0,
)
from irtoolkit.passes.lowering.to_llvm.build import (
    PTR, FunctionBuilder, declare, define, function_type, global_string, lookup, referenced_symbol,
    set_passthrough, symbol_users,
)
from irtoolkit.passes.lowering.to_llvm.common import constant_int

MAX_THREADS = 8
#: chunks of a split loop: at most MAX_CHUNKS, of about CHUNK_WORK cost units each
MAX_CHUNKS = 32
CHUNK_WORK = 250_000
DISPATCH_PREFIX = "__irt_pfor_"
THUNK_PREFIX = "__irt_pthunk_"
NUM_THREADS = "__irt_num_threads"
ENV_VAR = "IRT_NUM_THREADS"
_SC_NPROCESSORS_ONLN = 84  # glibc, Linux


MUTEX_BYTES = 64  # a pthread_mutex_t (40 bytes with glibc on x86-64), zeroed = initialized


def _num_threads_function(module: ModuleOp) -> None:
    """``i64 @__irt_num_threads()``: IRT_NUM_THREADS if set (at least 1), else the
    number of online CPUs (sysconf, cached); at most MAX_THREADS."""
    if lookup(module, NUM_THREADS) is not None:
        return
    declare(module, "getenv", function_type([PTR], PTR))
    declare(module, "atol", function_type([PTR], i64))
    declare(module, "sysconf", function_type([i32], i64))
    global_string(module, "__irt_env_num_threads", ENV_VAR.encode())
    module.body.block.add_op(llvm.GlobalOp(i64, "__irt_ncpu", "internal",
                                           value=IntegerAttr(0, i64)))
    _, b = define(module, NUM_THREADS, function_type([], i64), "internal", UNOPTIMIZED_AT_TIER0)
    from_env, from_cpus, ask, done = b.new_block(), b.new_block(), b.new_block(), b.new_block([i64])
    p = b.call("getenv", [b.addressof("__irt_env_num_threads")], PTR)
    b.cond_br(b.is_null(p), from_cpus, from_env)
    b.at(from_env)
    b.br(done, b.call("atol", [p], i64))
    b.at(from_cpus)
    cache = b.addressof("__irt_ncpu")
    cached = b.load(cache, i64, ordering=MONOTONIC)  # (threads may race here)
    b.cond_br(b.icmp("sgt", cached, b.i64(0)), done, ask, (cached,))
    b.at(ask)
    v = b.call("sysconf", [b.i32(_SC_NPROCESSORS_ONLN)], i64)
    v = b.select(b.icmp("slt", v, b.i64(1)), b.i64(1), v)
    b.store(v, b.addressof("__irt_ncpu"), ordering=MONOTONIC)
    b.br(done, v)
    b.at(done)
    v = done.args[0]
    lo = b.select(b.icmp("slt", v, b.i64(1)), b.i64(1), v)
    b.ret(b.select(b.icmp("sgt", lo, b.i64(MAX_THREADS)), b.i64(MAX_THREADS), lo))


MONOTONIC = 2  # LLVM's atomic ordering code


def _runtime_flag(module: ModuleOp, b: FunctionBuilder, name: str, linkage: str) -> SSAValue:
    """The address of the i64 flag ``name`` the runtime defines, declared in
    ``module`` with ``linkage`` on first use."""
    if lookup(module, name) is None:
        module.body.block.add_op(llvm.GlobalOp(i64, name, linkage))
    return b.addressof(name)


def _one_thread_if_serial(module: ModuleOp, b: FunctionBuilder, t: SSAValue) -> SSAValue:
    """``t``, or 1 while the runtime asks for serial loops (``abi.LOOPS_SERIAL_SYMBOL``:
    the same chunks, combined in the same order, all taken by the calling thread, so
    the results do not depend on it). The flag is weak: code linked without our
    runtime (``--emit obj``) finds it absent and keeps its threads."""
    flag = _runtime_flag(module, b, LOOPS_SERIAL_SYMBOL, "extern_weak")
    present, after = b.new_block(), b.new_block([i64])
    b.cond_br(b.is_null(flag), after, present, (t,))
    b.at(present)
    on = b.icmp("ne", b.load(flag, i64, ordering=MONOTONIC), b.i64(0))
    b.br(after, b.select(on, b.i64(1), t))
    b.at(after)
    return after.args[0]


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


def define_dispatcher(module: ModuleOp, fn: llvm.FuncOp, worker: llvm.FuncOp,
                      kinds: list[str], work: int, min_work: int, chunk_work: int = CHUNK_WORK,
                      gate: str | None = None) -> None:
    """Give the declared dispatcher ``fn(lb, ub, inits..., caps...)`` its body.

    Above the threshold the range is cut into ``m`` chunks (``m`` depends on the trip
    count and the cost only: the result does not depend on the number of threads or on
    which thread ran which chunk); the threads take chunks from a shared counter, each
    chunk's result goes to its slot, and the slots are combined in order. ``gate``: an
    external i64 global; threads only while it is nonzero."""
    name = fn.sym_name.data
    fty = fn.function_type
    ret = fty.output
    void = isinstance(ret, llvm.LLVMVoidType)
    arg_types = list(fty.inputs)
    nk = len(kinds)
    rsize = 0 if void else -(-_size(ret) // 8) * 8
    # shared context: {mutex, counter, chunks, chunk size, lb, ub, results ptr, args...};
    # each field at an 8-byte aligned offset
    fields: list[Attribute] = [llvm.LLVMArrayType(MUTEX_BYTES // 8, i64), i64, i64, i64, i64, i64,
                               PTR, *arg_types[2:]]
    offsets = []
    words = 0
    for t in fields:
        offsets.append(words * 8)
        words += -(-_size(t) // 8)
    MUTEX, COUNTER, CHUNKS, SIZE, LB, UB, RESULTS = range(7)
    declare(module, "pthread_mutex_lock", function_type([PTR], i32))
    declare(module, "pthread_mutex_unlock", function_type([PTR], i32))
    declare(module, "pthread_create", function_type([PTR, PTR, PTR, PTR], i32))
    declare(module, "pthread_join", function_type([i64, PTR], i32))
    _num_threads_function(module)

    def field(b: FunctionBuilder, c: SSAValue, k: int) -> SSAValue:
        return b.gep(c, offsets[k])

    # the function a worker thread runs: ptr (ptr ctx), "while (k = counter++) < chunks:
    # results[k] = worker(chunk k)"
    thunk_name = THUNK_PREFIX + name
    _, tb = define(module, thunk_name, function_type([PTR], PTR), "internal", "noinline",
                   UNOPTIMIZED_AT_TIER0)
    (c,) = tb.args
    loop, body, done = tb.new_block(), tb.new_block(), tb.new_block()
    tb.br(loop)
    tb.at(loop)
    mutex = field(tb, c, MUTEX)
    tb.call("pthread_mutex_lock", [mutex], i32)
    k = tb.load(field(tb, c, COUNTER), i64)
    tb.store(tb.add(k, tb.i64(1)), field(tb, c, COUNTER))
    tb.call("pthread_mutex_unlock", [mutex], i32)
    tb.cond_br(tb.icmp("slt", k, tb.load(field(tb, c, CHUNKS), i64)), body, done)
    tb.at(body)
    size = tb.load(field(tb, c, SIZE), i64)
    lb_ = tb.load(field(tb, c, LB), i64)
    ub_ = tb.load(field(tb, c, UB), i64)
    lo = tb.add(lb_, tb.mul(k, size))
    lo = tb.select(tb.icmp("sgt", lo, ub_), ub_, lo)
    hi = tb.add(lo, size)
    hi = tb.select(tb.icmp("sgt", hi, ub_), ub_, hi)
    wargs = [lo, hi]
    first = tb.icmp("eq", k, tb.i64(0))
    for j, t in enumerate(arg_types[2:]):
        v = tb.load(field(tb, c, 7 + j), t)
        if j < nk and kinds[j] == "sum":  # chunks after the first start from 0
            v = tb.select(first, v, tb.const(0, t))
        wargs.append(v)
    r = tb.call(worker.sym_name.data, wargs, None if void else ret)
    if not void:
        res = tb.load(field(tb, c, RESULTS), PTR)
        tb.store(r, tb.gep(res, tb.mul(k, tb.i64(rsize))))
    tb.br(loop)
    tb.at(done)
    tb.ret(tb.null())

    # the worker (the loop) is compiled once, not once per call site of it
    if "alwaysinline" not in str(worker.attributes.get("passthrough", "")):
        set_passthrough(worker, "noinline")
    _, b = define(module, name, fty, "internal", "noinline", UNOPTIMIZED_AT_TIER0)
    args = list(b.args)
    lb, ub = args[0], args[1]
    ctx = b.alloca(llvm.LLVMArrayType(words, i64))
    tids = b.alloca(llvm.LLVMArrayType(MAX_THREADS, i64))
    oks = b.alloca(llvm.LLVMArrayType(MAX_THREADS, i32))
    results = None if void else b.alloca(llvm.LLVMArrayType(rsize * MAX_CHUNKS, i8))
    n = b.sub(ub, lb)
    need = max(2, -(-min_work // max(work, 1)))  # trip count that pays for threads
    try_b, seq, par = b.new_block(), b.new_block(), b.new_block()
    b.cond_br(b.icmp("sge", n, b.i64(need)), try_b, seq)
    b.at(try_b)
    t = b.call(NUM_THREADS, [], i64)
    if gate is None:
        b.cond_br(b.icmp("sgt", t, b.i64(1)), par, seq)
    else:
        gated = b.new_block()
        b.cond_br(b.icmp("sgt", t, b.i64(1)), gated, seq)
        b.at(gated)
        on = b.load(_runtime_flag(module, b, gate, "external"), i64, ordering=MONOTONIC)
        b.cond_br(b.icmp("ne", on, b.i64(0)), par, seq)
    b.at(seq)
    r = b.call(worker.sym_name.data, args, None if void else ret)
    b.ret(None if void else r)
    b.at(par)
    # chunks: about one per CHUNK_WORK of work, at least 2, at most MAX_CHUNKS and n
    per = max(1, -(-chunk_work // max(work, 1)))  # iterations per chunk at least
    m = b.sdiv(n, b.i64(per))
    m = b.select(b.icmp("slt", m, b.i64(2)), b.i64(2), m)
    m = b.select(b.icmp("sgt", m, b.i64(MAX_CHUNKS)), b.i64(MAX_CHUNKS), m)
    m = b.select(b.icmp("sgt", m, n), n, m)
    size = b.sdiv(b.add(n, b.sub(m, b.i64(1))), m)
    t = b.select(b.icmp("sgt", t, m), m, t)
    if gate is None:  # (a split gemm's gate is the SPLIT way itself)
        t = _one_thread_if_serial(module, b, t)
    for k in range(MUTEX_BYTES // 8):
        b.store(b.i64(0), b.gep(ctx, offsets[MUTEX] + 8 * k))
    for k, v in ((COUNTER, b.i64(0)), (CHUNKS, m), (SIZE, size), (LB, lb), (UB, ub)):
        b.store(v, field(b, ctx, k))
    b.store(b.null() if results is None else results, field(b, ctx, RESULTS))
    for j, a in enumerate(args[2:]):
        b.store(a, field(b, ctx, 7 + j))

    def spawn(j: SSAValue) -> None:
        rc = b.call("pthread_create", [b.gep(tids, j, i64), b.null(), b.addressof(thunk_name), ctx], i32)
        b.store(b.zext(b.icmp("eq", rc, b.i32(0)), i32), b.gep(oks, j, i32))

    def wait(j: SSAValue) -> None:
        joined, after = b.new_block(), b.new_block()
        b.cond_br(b.icmp("ne", b.load(b.gep(oks, j, i32), i32), b.i32(0)), joined, after)
        b.at(joined)
        b.call("pthread_join", [b.load(b.gep(tids, j, i64), i64), b.null()], i32)
        b.br(after)
        b.at(after)

    b.counted_loop(b.i64(1), t, spawn)
    b.call(thunk_name, [ctx], PTR)  # this thread takes chunks too (all of them if no thread started)
    b.counted_loop(b.i64(1), t, wait)
    if void:
        b.ret()
        return
    assert results is not None
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
    a chunk of rows each; else it is the one call."""
    gemms = {lookup(module, s) for s in GEMM_SYMBOLS.values()} - {None}
    if not gemms:
        return
    names = {g.sym_name.data: g for g in gemms}  # type: ignore[union-attr]
    calls = [op for op in symbol_users(module)
             if type(op) is llvm.CallOp and referenced_symbol(op) in names]
    need = max(min_work, 2 * GEMM_CHUNK_WORK)
    for call in calls:
        order, _ta, _tb, M, N, K = call.args[:6]
        n, k, m = constant_int(N), constant_int(K), constant_int(M)
        if constant_int(order) != ROW_MAJOR or n is None or k is None or n * k == 0:
            continue
        work = n * k  # per row of C
        if m is not None and m * work < need:
            continue
        worker = _gemm_rows_worker(module, names[call.callee.root_reference.data])  # type: ignore[arg-type]
        disp = f"{DISPATCH_PREFIX}{worker.sym_name.data}_{work}"
        if lookup(module, disp) is None:
            fn = declare(module, disp, worker.function_type)
            define_dispatcher(module, fn, worker, [], work, need, GEMM_CHUNK_WORK, BLAS_SPLIT_SYMBOL)
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
