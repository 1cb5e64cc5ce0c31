"""Threads for the loops ``lower-loop-to-cf`` outlined (see its module doc).

``convert-func-to-llvm`` lowers ``func.call @w(%lb, %ub, inits..., captures...)
{irt.parallel = [kinds], irt.work = c}`` to a call of a *dispatcher*
``@__irt_pfor_<w>`` with the same operands: a bodyless ``llvm.func`` carrying
``irt.pfor`` (the kinds), ``irt.work`` and ``irt.worker = @w``. The LLVM
translation (``irtoolkit.runtime.translate.to_llvmlite``) defines its body
(``define_dispatchers``), in plain LLVM IR, no C compiler:

* ``n = ub - lb``; when ``n * c < PARALLEL_MIN_WORK`` or fewer than two threads are
  allowed (``IRT_NUM_THREADS``, default: the online CPUs, at most ``MAX_THREADS``),
  it calls ``@w(lb, ub, ...)`` on the calling thread;
* else it cuts ``[lb, ub)`` into ``t`` equal chunks (fixed: results are
  deterministic for a given ``t``), starts ``pthread_create`` workers for chunks
  1..t-1 (each runs ``@w`` on its chunk through ``@__irt_pthunk_<w>(ctx)``; a
  worker that cannot be created runs inline), runs chunk 0 itself, joins the
  workers in order and combines their results in order: "sum" adds the partial
  sums (chunks after the first start from 0), "same" (a buffer passed through)
  keeps the first.

The outlined loops contain no run-time check, call or allocation
(``parallel_kinds``), so nothing in a worker needs the calling thread's
error-handling state. Contexts live in the dispatcher's stack frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import llvmlite.ir as ir
    from xdsl.dialects.builtin import ModuleOp

MAX_THREADS = 8
#: chunks of a split loop: at most MAX_CHUNKS, of about CHUNK_WORK cost units each
MAX_CHUNKS = 32
CHUNK_WORK = 250_000
DISPATCH_PREFIX = "__irt_pfor_"
THUNK_PREFIX = "__irt_pthunk_"
NUM_THREADS = "__irt_num_threads"
ENV_VAR = "IRT_NUM_THREADS"
_SC_NPROCESSORS_ONLN = 84  # glibc, Linux


def _declare(llmod, name, fty):
    import llvmlite.ir as ir

    try:
        return llmod.get_global(name)
    except KeyError:
        return ir.Function(llmod, fty, name=name)


def _num_threads_function(llmod: ir.Module) -> ir.Function:
    """``i64 @__irt_num_threads()``: IRT_NUM_THREADS if set (at least 1), else the
    number of online CPUs (sysconf, cached); at most MAX_THREADS."""
    import llvmlite.ir as ir

    i8, i32, i64, ptr = ir.IntType(8), ir.IntType(32), ir.IntType(64), ir.PointerType()
    try:
        fn = llmod.get_global(NUM_THREADS)
        if fn.blocks:
            return fn
    except KeyError:
        fn = ir.Function(llmod, ir.FunctionType(i64, []), name=NUM_THREADS)
    fn.linkage = "internal"
    getenv = _declare(llmod, "getenv", ir.FunctionType(ptr, [ptr]))
    atol = _declare(llmod, "atol", ir.FunctionType(i64, [ptr]))
    sysconf = _declare(llmod, "sysconf", ir.FunctionType(i64, [i32]))
    data = bytearray(ENV_VAR.encode() + b"\0")
    name_g = ir.GlobalVariable(llmod, ir.ArrayType(i8, len(data)), name="__irt_env_num_threads")
    name_g.linkage = "internal"
    name_g.global_constant = True
    name_g.initializer = ir.Constant(ir.ArrayType(i8, len(data)), data)
    cache = ir.GlobalVariable(llmod, i64, name="__irt_ncpu")
    cache.linkage = "internal"
    cache.initializer = ir.Constant(i64, 0)
    entry = fn.append_basic_block("entry")
    from_env = fn.append_basic_block("env")
    from_cpus = fn.append_basic_block("cpus")
    ask = fn.append_basic_block("sysconf")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    p = b.call(getenv, [b.bitcast(name_g, ptr)])
    b.cbranch(b.icmp_unsigned("==", p, ir.Constant(ptr, None)), from_cpus, from_env)
    b.position_at_end(from_env)
    v_env = b.call(atol, [p])
    b.branch(done)
    b.position_at_end(from_cpus)
    cached = b.load_atomic(cache, "monotonic", 8, typ=i64)  # (threads may race here)
    b.cbranch(b.icmp_signed(">", cached, ir.Constant(i64, 0)), done, ask)
    b.position_at_end(ask)
    v_sys = b.call(sysconf, [ir.Constant(i32, _SC_NPROCESSORS_ONLN)])
    v_sys = b.select(b.icmp_signed("<", v_sys, ir.Constant(i64, 1)), ir.Constant(i64, 1), v_sys)
    b.store_atomic(v_sys, cache, "monotonic", 8)
    b.branch(done)
    b.position_at_end(done)
    v = b.phi(i64)
    v.add_incoming(v_env, from_env)
    v.add_incoming(cached, from_cpus)
    v.add_incoming(v_sys, ask)
    lo = b.select(b.icmp_signed("<", v, ir.Constant(i64, 1)), ir.Constant(i64, 1), v)
    hi = b.select(b.icmp_signed(">", lo, ir.Constant(i64, MAX_THREADS)),
                  ir.Constant(i64, MAX_THREADS), lo)
    b.ret(hi)
    return fn


def _size(t) -> int:
    """An upper bound of the store size of ``t`` (all our types align to <= 8 bytes)."""
    import llvmlite.ir as ir

    if isinstance(t, ir.IntType):
        n = max(1, -(-t.width // 8))
        return 1 << (n - 1).bit_length()
    if isinstance(t, ir.HalfType):
        return 2
    if isinstance(t, ir.FloatType):
        return 4
    if isinstance(t, ir.DoubleType | ir.PointerType):
        return 8
    if isinstance(t, ir.ArrayType):
        return t.count * _size(t.element)
    if isinstance(t, ir.LiteralStructType):
        return sum(-(-_size(e) // 8) * 8 for e in t.elements)
    if isinstance(t, ir.VectorType):
        return 1 << (t.count * _size(t.element) - 1).bit_length()
    return 64


def _zero(t: ir.Type):
    import llvmlite.ir as ir

    if isinstance(t, ir.IntType):
        return ir.Constant(t, 0)
    return ir.Constant(t, 0.0)


def _combine(b, kind: str, acc, x):
    import llvmlite.ir as ir

    if kind == "same":
        return acc
    if isinstance(acc.type, ir.IntType):
        return b.add(acc, x)
    return b.fadd(acc, x, flags=("reassoc",))


def define_dispatcher(llmod: ir.Module, fn: ir.Function, worker: ir.Function,
                      kinds: list[str], work: int, min_work: int) -> None:
    """Give the declared dispatcher ``fn(lb, ub, inits..., caps...)`` its body.

    Above the threshold the range is cut into ``m`` chunks (``m`` depends on the trip
    count and the cost only: the result does not depend on the number of threads or on
    which thread ran which chunk); the threads take chunks from a shared atomic
    counter (a thread slowed down by other work on its core does not hold the others
    up), each chunk's result goes to its slot, and the slots are combined in order."""
    import llvmlite.ir as ir

    i8, i32, i64, ptr = ir.IntType(8), ir.IntType(32), ir.IntType(64), ir.PointerType()
    fty = fn.function_type
    ret = fty.return_type
    nk = len(kinds)
    arg_types = list(fty.args)
    void = isinstance(ret, ir.VoidType)
    rsize = 0 if void else -(-_size(ret) // 8) * 8
    # shared context: {counter, chunks, chunk size, lb, ub, results ptr, args...}; each
    # field at an 8-byte aligned offset
    fields = [i64, i64, i64, i64, i64, i64, *arg_types[2:]]  # results: as an integer
    offsets = []
    words = 0
    for t in fields:
        offsets.append(words * 8)
        words += -(-_size(t) // 8)

    def field(b, c, k):
        # (a typed pointer: llvmlite checks stores against it; LLVM reads it as ptr)
        p = b.gep(c, [ir.Constant(i64, offsets[k])], inbounds=True, source_etype=i8)
        return b.bitcast(p, ir.PointerType(fields[k]))

    def run_chunks(b, f, c) -> None:
        """while (k = counter++) < chunks: results[k] = worker(chunk k)"""
        loop = f.append_basic_block("chunk")
        body = f.append_basic_block("chunk_body")
        done = f.append_basic_block("chunks_done")
        b.branch(loop)
        b.position_at_end(loop)
        k = b.atomic_rmw("add", field(b, c, 0), ir.Constant(i64, 1), "monotonic")
        m = b.load(field(b, c, 1), typ=i64)
        b.cbranch(b.icmp_signed("<", k, m), body, done)
        b.position_at_end(body)
        size = b.load(field(b, c, 2), typ=i64)
        lb_ = b.load(field(b, c, 3), typ=i64)
        ub_ = b.load(field(b, c, 4), typ=i64)
        lo = b.add(lb_, b.mul(k, size))
        lo = b.select(b.icmp_signed(">", lo, ub_), ub_, lo)
        hi = b.add(lo, size)
        hi = b.select(b.icmp_signed(">", hi, ub_), ub_, hi)
        wargs = [lo, hi]
        for j, t in enumerate(arg_types[2:]):
            v = b.load(field(b, c, 6 + j), typ=t)
            if j < nk and kinds[j] == "sum":  # chunks after the first start from 0
                v = b.select(b.icmp_signed("==", k, ir.Constant(i64, 0)), v, _zero(t))
            wargs.append(v)
        r = b.call(worker, wargs)
        if not void:
            res = b.inttoptr(b.load(field(b, c, 5), typ=i64), ptr)
            slot = b.gep(res, [b.mul(k, ir.Constant(i64, rsize))], inbounds=True, source_etype=i8)
            b.store(r, b.bitcast(slot, ir.PointerType(ret)))
        b.branch(loop)
        b.position_at_end(done)

    # the function a worker thread runs: ptr (ptr ctx)
    thunk = ir.Function(llmod, ir.FunctionType(ptr, [ptr]), name=THUNK_PREFIX + fn.name)
    thunk.linkage = "internal"
    thunk.attributes.add("noinline")
    tb = ir.IRBuilder(thunk.append_basic_block("entry"))
    run_chunks(tb, thunk, thunk.args[0])
    tb.ret(ir.Constant(ptr, None))

    create = _declare(llmod, "pthread_create", ir.FunctionType(i32, [ptr, ptr, ptr, ptr]))
    join = _declare(llmod, "pthread_join", ir.FunctionType(i32, [i64, ptr]))
    nthreads = _num_threads_function(llmod)

    fn.linkage = "internal"
    # the worker (the loop) is compiled once, not once per call site of it
    if "alwaysinline" not in worker.attributes:
        worker.attributes.add("noinline")
    fn.attributes.add("noinline")
    args = list(fn.args)
    lb, ub = args[0], args[1]
    entry = fn.append_basic_block("entry")
    try_b = fn.append_basic_block("try")
    seq = fn.append_basic_block("seq")
    par = fn.append_basic_block("par")
    b = ir.IRBuilder(entry)
    ctx = b.alloca(ir.ArrayType(i64, words), name="ctx")
    ctx.align = 16
    tids = b.alloca(ir.ArrayType(i64, MAX_THREADS), name="tids")
    oks = b.alloca(ir.ArrayType(i32, MAX_THREADS), name="spawned")
    results = None if void else b.alloca(ir.ArrayType(i8, rsize * MAX_CHUNKS), name="results")
    if results is not None:
        results.align = 16
    j_slot = b.alloca(i64, name="j")
    acc_slot = None if void else b.alloca(ret, name="acc")
    n = b.sub(ub, lb)
    need = max(2, -(-min_work // max(work, 1)))  # trip count that pays for threads
    b.cbranch(b.icmp_signed(">=", n, ir.Constant(i64, need)), try_b, seq)
    b.position_at_end(try_b)
    t = b.call(nthreads, [])
    b.cbranch(b.icmp_signed(">", t, ir.Constant(i64, 1)), par, seq)
    b.position_at_end(seq)
    r = b.call(worker, args)
    b.ret_void() if void else b.ret(r)

    b.position_at_end(par)
    # chunks: about one per CHUNK_WORK of work, at least 2, at most MAX_CHUNKS and n
    per = max(1, -(-CHUNK_WORK // max(work, 1)))  # iterations per chunk at least
    m = b.sdiv(n, ir.Constant(i64, per))
    m = b.select(b.icmp_signed("<", m, ir.Constant(i64, 2)), ir.Constant(i64, 2), m)
    m = b.select(b.icmp_signed(">", m, ir.Constant(i64, MAX_CHUNKS)), ir.Constant(i64, MAX_CHUNKS), m)
    m = b.select(b.icmp_signed(">", m, n), n, m)
    size = b.sdiv(b.add(n, b.sub(m, ir.Constant(i64, 1))), m)
    t = b.select(b.icmp_signed(">", t, m), m, t)
    c = ctx
    b.store(ir.Constant(i64, 0), field(b, c, 0))
    b.store(m, field(b, c, 1))
    b.store(size, field(b, c, 2))
    b.store(lb, field(b, c, 3))
    b.store(ub, field(b, c, 4))
    b.store(ir.Constant(i64, 0) if results is None else b.ptrtoint(results, i64), field(b, c, 5))
    for j, a in enumerate(args[2:]):
        b.store(a, field(b, c, 6 + j))

    def count_from_one(n, body, name: str) -> None:
        """for j in [1, n): body(j)"""
        b.store(ir.Constant(i64, 1), j_slot)
        cond = fn.append_basic_block(name)
        loop = fn.append_basic_block(name + "_body")
        after = fn.append_basic_block(name + "_done")
        b.branch(cond)
        b.position_at_end(cond)
        j = b.load(j_slot, typ=i64)
        b.cbranch(b.icmp_signed("<", j, n), loop, after)
        b.position_at_end(loop)
        body(j)
        b.store(b.add(j, ir.Constant(i64, 1)), j_slot)
        b.branch(cond)
        b.position_at_end(after)

    def threads(body) -> None:
        count_from_one(t, body, "threads")

    def tid(j):
        return b.gep(tids, [ir.Constant(i64, 0), j], inbounds=True)

    def ok(j):
        return b.gep(oks, [ir.Constant(i64, 0), j], inbounds=True)

    def spawn(j) -> None:
        rc = b.call(create, [tid(j), ir.Constant(ptr, None), thunk, b.bitcast(c, ptr)])
        b.store(b.zext(b.icmp_signed("==", rc, ir.Constant(i32, 0)), i32), ok(j))

    def wait(j) -> None:
        with b.if_then(b.icmp_signed("!=", b.load(ok(j)), ir.Constant(i32, 0))):
            b.call(join, [b.load(tid(j)), ir.Constant(ptr, None)])

    threads(spawn)
    b.call(thunk, [c])  # this thread takes chunks too (all of them if no thread started)
    threads(wait)
    if void:
        b.ret_void()
        return
    # combine the chunk results in order
    def slot(k):
        p = b.gep(results, [ir.Constant(i64, 0), b.mul(k, ir.Constant(i64, rsize))], inbounds=True)
        return b.bitcast(p, ir.PointerType(ret))

    b.store(b.load(slot(ir.Constant(i64, 0)), typ=ret), acc_slot)

    def combine_one(k) -> None:
        x = b.load(slot(k), typ=ret)
        acc = b.load(acc_slot, typ=ret)
        if nk == 1:
            acc = _combine(b, kinds[0], acc, x)
        else:
            for i, kind in enumerate(kinds):
                if kind != "same":
                    acc = b.insert_value(acc, _combine(b, kind, b.extract_value(acc, i),
                                                       b.extract_value(x, i)), i)
        b.store(acc, acc_slot)

    count_from_one(m, combine_one, "combine")
    b.ret(b.load(acc_slot, typ=ret))


def _separate_loads_and_stores(llmod: ir.Module, fn: ir.Function) -> None:
    """In an outlined loop, no buffer is both read and written (``parallel_kinds``) and
    the written ones are fresh allocations: tell LLVM with scoped no-alias metadata
    (loads in scope S, stores ``!noalias`` S), so that it vectorizes without run-time
    overlap checks and a scalar copy of the loop."""
    import llvmlite.ir as ir

    domain = llmod.add_metadata([ir.MetaDataString(llmod, "irt.loop." + fn.name)])
    scope = llmod.add_metadata([ir.MetaDataString(llmod, "irt.reads." + fn.name), domain])
    scopes = llmod.add_metadata([scope])
    for block in fn.blocks:
        for instr in block.instructions:
            if isinstance(instr, ir.LoadInstr):
                instr.set_metadata("alias.scope", scopes)
            elif isinstance(instr, ir.StoreInstr):
                instr.set_metadata("noalias", scopes)


def define_dispatchers(module: ModuleOp, llmod: ir.Module) -> None:
    """Define every dispatcher declared in ``module`` (llvm dialect) in ``llmod``."""
    from xdsl.dialects import llvm

    from irtoolkit.passes.lowering.loop_to_cf import PARALLEL_MIN_WORK

    for op in module.ops:
        if not isinstance(op, llvm.FuncOp) or op.body.blocks:
            continue
        kinds_attr = op.attributes.get("irt.pfor")
        if kinds_attr is None:
            continue
        name = op.sym_name.data
        fn = llmod.get_global(name)
        if fn.blocks:
            continue
        worker_name = op.attributes["irt.worker"].root_reference.data  # type: ignore[attr-defined]
        worker = llmod.get_global(worker_name)
        kinds = [k.data for k in kinds_attr.data]  # type: ignore[attr-defined]
        work = op.attributes["irt.work"].value.data  # type: ignore[attr-defined]
        define_dispatcher(llmod, fn, worker, kinds, work, PARALLEL_MIN_WORK)
        _separate_loads_and_stores(llmod, worker)
