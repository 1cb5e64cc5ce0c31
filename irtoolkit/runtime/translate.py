"""From a module (any level) to LLVM IR text and llvmlite modules.

``lower_module`` runs the lowering pipeline on a clone; ``to_llvmlite`` turns an
llvm-dialect module into an llvmlite ``ir.Module`` (blocks in reverse post-order
so that definitions precede uses, linkage applied, which xDSL's translator
ignores); ``add_interface`` adds the packed entry points the JIT calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IndexType, ModuleOp

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.abi import ENTRY_PREFIX, ERROR_WORDS, TLS_KEY_SYMBOL
from irtoolkit.runtime.signature import spec_words

if TYPE_CHECKING:
    import llvmlite.ir as ir

    from irtoolkit.runtime.signature import Signature, ValueSpec


# passes of the default lowering, and what makes each one necessary
_PASS_NEEDED_BY = {
    "convert-stablehlo-to-tensor": ("stablehlo.", "chlo.", "sdy."),
    "ad": ("autodiff.",),
    "lower-tensor-to-loop": ("tensor.", "bufferization."),
    "lower-loop-to-cf": ("loop.", "scf."),
}


# passes of the default lowering left out of a module that has none of their ops
# (the conversion from StableHLO: a no-op otherwise, but a verification more)
_RUN_ONLY_WHEN_NEEDED = ("convert-stablehlo-to-tensor",)


def _error(message: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic(message))


def is_llvm_module(module: ModuleOp) -> bool:
    return all(op is module or op.name.startswith("llvm.") for op in module.walk())


def _needs(module: ModuleOp, prefixes: tuple[str, ...]) -> bool:
    from xdsl.dialects.builtin import TensorType

    for op in module.walk():
        if op.name.startswith(prefixes):
            return True
        if "tensor." in prefixes and any(
            isinstance(v.type, TensorType) for v in (*op.operands, *op.results)
        ):
            return True
        if "tensor." in prefixes and op.name == "func.func":
            ft = op.function_type  # type: ignore[attr-defined]
            if any(isinstance(t, TensorType) for t in (*ft.inputs.data, *ft.outputs.data)):
                return True
    return False


def default_lowering_passes(module: ModuleOp, include_ad: bool = True) -> list:
    """The passes of the default pipeline that exist; a missing one is an error
    only when the module holds ops that need it."""
    from irtoolkit.context import DEFAULT_COMPILE_PIPELINE, PASSES, PIPELINES, pass_class

    names: list[str] = []
    for item in DEFAULT_COMPILE_PIPELINE.split(","):
        item = item.strip()
        if item in PIPELINES:
            names.extend(x.strip() for x in PIPELINES[item][0].split(","))
        else:
            names.append(item)
    if not include_ad:
        names = [n for n in names if n != "ad"]
    passes = []
    for name in names:
        try:
            cls = pass_class(name) if name in PASSES else None
        except (ImportError, AttributeError):
            cls = None
        if name in _RUN_ONLY_WHEN_NEEDED and not _needs(module, _PASS_NEEDED_BY[name]):
            continue
        if cls is None:
            prefixes = _PASS_NEEDED_BY.get(name)
            if prefixes is not None and not _needs(module, prefixes):
                continue
            raise _error(f"pass '{name}' is needed to compile this module but is not available")
        passes.append(cls(**_driver_options(name)))
    return passes


def _driver_options(name: str) -> dict:
    """Options the JIT sets as the driver of the pipeline: BLAS calls only when the
    library is there to link them."""
    if name == "lower-tensor-to-loop":
        from irtoolkit.runtime.blas import blas_available

        return {"blas": blas_available()}
    return {}


def lower_module(module: ModuleOp, pipeline: str | None = None, clone: bool = True) -> ModuleOp:
    """A copy of ``module`` lowered to the llvm dialect.

    With ``pipeline`` None: the default ``convert-stablehlo-to-tensor,ad,lower-to-llvm`` (passes that do not
    exist yet are skipped when the module does not need them). With a pipeline:
    it runs first, then whatever of the default lowering (without ``ad``) is
    still needed to reach the llvm dialect -- or, inside
    ``pipeline.exact_pipelines()`` (irt-run -p), an error that says so.
    """
    from irtoolkit.pipeline import PipelineRunner, build_passes, completes_lowering, not_lowered_error

    work = module.clone() if clone else module
    if pipeline:
        PipelineRunner(build_passes(pipeline)).run(work)
        if not is_llvm_module(work):
            if not completes_lowering():
                raise not_lowered_error(work, pipeline)
            PipelineRunner(default_lowering_passes(work, include_ad=False)).run(work)
    elif not is_llvm_module(work):
        PipelineRunner(default_lowering_passes(work)).run(work)
    if not is_llvm_module(work):
        from irtoolkit.passes.lowering.to_llvm import check_legal

        check_legal(work)
    return work


# --------------------------------------------------------------------------- llvm dialect -> llvmlite


def _sort_blocks(module: ModuleOp) -> None:
    """Blocks of each llvm.func in reverse post-order; unreachable blocks dropped."""
    from xdsl.dialects import llvm

    for fn in module.ops:
        if not isinstance(fn, llvm.FuncOp) or len(fn.body.blocks) < 2:
            continue
        region = fn.body
        blocks = list(region.blocks)
        entry = blocks[0]
        seen = {entry}
        order = []
        stack = [(entry, iter(_successors(entry)))]
        while stack:
            block, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                order.append(block)
            elif nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(_successors(nxt))))
        order.reverse()
        if order == blocks:
            continue
        for b in blocks:
            region.detach_block(b)
        dead = [b for b in blocks if b not in seen]
        for b in dead:
            for op in b.ops:
                op.drop_all_references()
        for b in order:
            region.add_block(b)


def _successors(block):
    last = block.last_op
    # reversed: the first successor comes first in the reverse post-order
    return list(reversed(last.successors)) if last is not None else []


def _check_no_index(module: ModuleOp) -> None:
    for op in module.walk():
        for v in (*op.results, *op.operands):
            if isinstance(v.type, IndexType):
                from irtoolkit.diagnostics import op_error

                raise op_error(op, "the index type must be lowered (to i64) before LLVM translation")


FUNCTION_PREFIX = "__irt_fn_"


def mangle_functions(module: ModuleOp) -> dict[str, str]:
    """Rename every function defined in ``module`` to ``__irt_fn_<name>``.

    For the JIT: LLVM lowers intrinsics to C library calls (``llvm.pow.f64`` to
    ``pow``) that would otherwise bind to a user function of the same name.
    Declarations (bodyless functions: libm, malloc ...) keep their names.
    Returns the old -> new name mapping.
    """
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

    taken = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    mapping: dict[str, str] = {}
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            old = op.sym_name.data
            new = FUNCTION_PREFIX + old
            while new in taken:
                new = "_" + new
            taken.add(new)
            mapping[old] = new
            op.sym_name = StringAttr(new)
    if mapping:
        for op in module.walk():
            if isinstance(op, llvm.CallOp) and op.callee is not None:
                name = op.callee.string_value()
                if name in mapping:
                    op.callee = SymbolRefAttr(mapping[name])
            elif isinstance(op, llvm.AddressOfOp):
                name = op.global_name.root_reference.data
                if name in mapping:
                    op.global_name = SymbolRefAttr(mapping[name])
            elif isinstance(op, llvm.FuncOp) and "irt.worker" in op.attributes:
                # a thread dispatcher (to_llvm/parallel.py) names its worker
                name = op.attributes["irt.worker"].root_reference.data  # type: ignore[attr-defined]
                if name in mapping:
                    op.attributes["irt.worker"] = SymbolRefAttr(mapping[name])
    return mapping


def to_llvmlite(module: ModuleOp, mangle: bool = False) -> ir.Module:
    """Translate an llvm-dialect module (it is modified: blocks are reordered,
    and with ``mangle`` defined functions are renamed, see ``mangle_functions``)."""
    from irtoolkit.gcpause import paused_gc

    with paused_gc():  # the cyclic GC rescanning the module made this superlinear
        return _to_llvmlite(module, mangle)


def _to_llvmlite(module: ModuleOp, mangle: bool) -> ir.Module:
    from xdsl.backend.llvm.convert import convert_module
    from xdsl.dialects import llvm

    _check_no_index(module)
    _sort_blocks(module)
    if mangle:
        mangle_functions(module)
    target = host_triple()
    try:
        llmod = convert_module(module, fallback_target_triple=target)
    except NotImplementedError as err:
        raise _error(f"LLVM translation failed: {err}") from None
    # --- vector math: define the libm helpers of passes/lowering/to_llvm/vector_math.py
    from irtoolkit.passes.lowering.to_llvm.vector_math import add_vector_helpers, inline_kernels
    add_vector_helpers(llmod)
    inline_kernels(llmod)
    # --- end vector math
    # thread dispatchers of the loops lower-loop-to-cf outlined
    from irtoolkit.passes.lowering.to_llvm.parallel import define_dispatchers
    define_dispatchers(module, llmod)
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            if op.linkage.linkage.data in ("internal", "private"):
                llmod.get_global(op.sym_name.data).linkage = "internal"
    return llmod


def host_triple() -> str:
    import llvmlite.binding as llvm

    return llvm.get_process_triple()


# --------------------------------------------------------------------------- interface


def _spec_type(spec: ValueSpec) -> ir.Type:
    import llvmlite.ir as ir
    import numpy as np

    if spec.is_array:
        fields = [ir.PointerType(), ir.PointerType(), ir.IntType(64)]
        if spec.rank:
            fields += [ir.ArrayType(ir.IntType(64), spec.rank)] * 2
        return ir.LiteralStructType(fields)
    dt = spec.dtype
    if dt == np.float64:
        return ir.DoubleType()
    if dt == np.float32:
        return ir.FloatType()
    if dt == np.float16:
        return ir.HalfType()
    if dt == np.bool_:
        return ir.IntType(1)
    return ir.IntType(dt.itemsize * 8)


def _tls_key(llmod: ir.Module) -> ir.Value:
    """The pthread key of the running call's jmp_buf (see abi.TLS_KEY_SYMBOL)."""
    import llvmlite.ir as ir

    i32 = ir.IntType(32)
    try:
        sym = llmod.get_global(TLS_KEY_SYMBOL)
    except KeyError:
        sym = ir.GlobalVariable(llmod, ir.IntType(8), TLS_KEY_SYMBOL)
        sym.linkage = "external"
    return sym.ptrtoint(i32).sub(ir.Constant(i32, 1))


def add_interface(llmod: ir.Module, sig: Signature, symbol: str | None = None,
                  guarded: bool = False, track: bool = False) -> str | None:
    """Add ``i64 @_irt_call_<name>(ptr frame)``, or return None when the lowered
    signature does not match the captured one. It returns 0, or with
    ``guarded`` the size of a failed allocation (see ``add_allocation_guard``).

    Frame: one slot per argument then one per result, in order, each
    ``spec_words`` 8-byte words: scalars in the first bytes of their word
    (``i1`` as one byte 0/1), memrefs as their descriptor
    ``{allocated, aligned, offset, sizes[R], strides[R]}``.
    """
    import llvmlite.ir as ir

    try:
        fn = llmod.get_global(symbol or sig.name)
    except KeyError:
        return None
    fty = fn.function_type
    in_types = [_spec_type(s) for s in sig.inputs]
    out_types = [_spec_type(s) for s in sig.outputs]
    if [str(t) for t in fty.args] != [str(t) for t in in_types]:
        return None
    if not out_types:
        if not isinstance(fty.return_type, ir.VoidType):
            return None
    elif len(out_types) == 1:
        if str(fty.return_type) != str(out_types[0]):
            return None
    elif str(fty.return_type) != str(ir.LiteralStructType(out_types)):
        return None

    i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
    ptr = ir.PointerType()
    name = ENTRY_PREFIX + sig.name
    wrapper = ir.Function(llmod, ir.FunctionType(i64, [ptr]), name=name)
    b = ir.IRBuilder(wrapper.append_basic_block("entry"))
    frame = wrapper.args[0]
    word = 0

    if guarded:
        # a failed allocation or runtime check longjmps back here (see
        # add_allocation_guard, add_check_handler)
        key = _tls_key(llmod)
        buf = b.alloca(ir.ArrayType(i64, JMPBUF_WORDS + FAIL_WORDS + TRACK_WORDS), name="jmpbuf")
        buf.align = 16
        # no check failed (yet): message word 0; no tracked allocation
        for k in [JMPBUF_WORDS + 1] + ([TRACK_AT, TRACK_AT + 1, TRACK_AT + 2] if track else []):
            b.store(ir.Constant(i64, 0),
                    b.gep(buf, [ir.Constant(i32, 0), ir.Constant(i32, k)], inbounds=True))
        release = _release_function(llmod) if track else None
        prev = b.call(_declare(llmod, "pthread_getspecific", ir.FunctionType(ptr, [i32])), [key])
        setspec = _declare(llmod, "pthread_setspecific", ir.FunctionType(i32, [i32, ptr]))
        b.call(setspec, [key, buf])
        setjmp = _declare(llmod, "_setjmp", ir.FunctionType(i32, [ptr]))
        setjmp.attributes.add("returns_twice")
        jumped = b.call(setjmp, [buf])
        run_block = wrapper.append_basic_block("run")
        fail_block = wrapper.append_basic_block("failed")
        b.cbranch(b.icmp_signed("!=", jumped, ir.Constant(i32, 0)), fail_block, run_block)
        b.position_at_end(fail_block)
        size_slot = b.gep(buf, [ir.Constant(i64, JMPBUF_WORDS * 8)], source_etype=i8)
        failed_size = b.load(size_slot, typ=i64)
        # the failed check's message and values go to the frame's error words
        err_word = sum(spec_words(s) for s in (*sig.inputs, *sig.outputs))
        for k in range(FAIL_WORDS - 1):
            w = b.load(b.gep(buf, [ir.Constant(i32, 0), ir.Constant(i32, JMPBUF_WORDS + 1 + k)],
                             inbounds=True), typ=i64)
            b.store(w, b.gep(frame, [ir.Constant(i64, (err_word + k) * 8)], source_etype=i8))
        if release is not None:  # free what the failed call allocated
            b.call(release, [buf, ir.Constant(ir.IntType(1), 1)])
        b.call(setspec, [key, prev])
        b.ret(failed_size)
        b.position_at_end(run_block)

    def slot(offset_words: int):
        if offset_words == 0:
            return frame
        return b.gep(frame, [ir.Constant(i64, offset_words * 8)], inbounds=True, source_etype=i8)

    args = []
    for spec, t in zip(sig.inputs, in_types):
        p = slot(word)
        if isinstance(t, ir.IntType) and t.width == 1:
            args.append(b.trunc(b.load(p, typ=i8), t))
        else:
            args.append(b.load(p, typ=t))
        word += spec_words(spec)
    ret = b.call(fn, args)
    for j, (spec, t) in enumerate(zip(sig.outputs, out_types)):
        v = ret if len(out_types) == 1 else b.extract_value(ret, j)
        p = slot(word)
        if isinstance(t, ir.IntType) and t.width == 1:
            b.store(b.zext(v, i8), p)
        else:
            b.store(v, p)
        word += spec_words(spec)
    if guarded:
        if release is not None:  # the list only: live buffers are results
            b.call(release, [buf, ir.Constant(ir.IntType(1), 0)])
        b.call(setspec, [key, prev])
    b.ret(ir.Constant(i64, 0))
    return name


# --------------------------------------------------------------------------- allocation failures

GUARDED_MALLOC = "__irt_malloc"
JMPBUF_WORDS = 64  # glibc's x86-64 jmp_buf is 25 words; room for any target
# after the jmp_buf: status (failed allocation size, or 1 for a failed check),
# then the failed check's message pointer, value flag, and two values
FAIL_WORDS = 1 + ERROR_WORDS
CHECK_FAILED = "__irt_check_failed"
# with tracking (modules with run-time checks): after those, the list of the
# buffers the running call malloc'ed and has not freed {ptr array, count, capacity}
TRACK_WORDS = 3
TRACK_AT = JMPBUF_WORDS + FAIL_WORDS
TRACKED_FREE = "__irt_free"
RELEASE = "__irt_release"


def track_frees(module: ModuleOp) -> None:
    """Route the ``free`` calls of ``module`` (llvm dialect) through
    ``@__irt_free`` (``add_allocation_guard(track=True)`` defines it), which
    drops the buffer from the call's allocation list."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import SymbolRefAttr

    found = False
    for op in module.walk():
        if isinstance(op, llvm.CallOp) and op.callee is not None \
                and op.callee.string_value() == "free":
            op.callee = SymbolRefAttr(TRACKED_FREE)
            found = True
    if found:
        from irtoolkit.passes.lowering.to_llvm.common import PTR

        module.body.block.add_op(llvm.FuncOp(TRACKED_FREE, llvm.LLVMFunctionType([PTR]),
                                             linkage=llvm.LinkageAttr("external")))


def _track_word(b, buf, k: int):
    import llvmlite.ir as ir

    return b.gep(buf, [ir.Constant(ir.IntType(64), (TRACK_AT + k) * 8)], source_etype=ir.IntType(8))


def _release_function(llmod: ir.Module) -> ir.Function:
    """``void @__irt_release(ptr jmpbuf, i1 all)``: free the call's allocation
    list, and with ``all`` every buffer still in it (after a failure)."""
    import llvmlite.ir as ir

    i64, ptr = ir.IntType(64), ir.PointerType()
    fn = _declare(llmod, RELEASE, ir.FunctionType(ir.VoidType(), [ptr, ir.IntType(1)]))
    if fn.blocks:
        return fn
    fn.linkage = "internal"
    free = _declare(llmod, "free", ir.FunctionType(ir.VoidType(), [ptr]))
    buf, everything = fn.args
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    body = fn.append_basic_block("body")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    arr = b.inttoptr(b.load(_track_word(b, buf, 0), typ=i64), ptr)
    count = b.load(_track_word(b, buf, 1), typ=i64)
    b.cbranch(everything, loop, done)
    b.position_at_end(loop)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    b.cbranch(b.icmp_signed("<", i, count), body, done)
    b.position_at_end(body)
    p = b.load(b.gep(arr, [i], source_etype=ptr), typ=ptr)
    b.call(free, [p])
    i.add_incoming(b.add(i, ir.Constant(i64, 1)), body)
    b.branch(loop)
    b.position_at_end(done)
    b.call(free, [arr])
    b.ret_void()
    return fn


def _add_tracked_free(llmod: ir.Module) -> None:
    """``void @__irt_free(ptr p)``: drop ``p`` from the call's allocation list
    (searched from the end: buffers die young), then ``free`` it."""
    import llvmlite.ir as ir

    i32, i64, ptr = ir.IntType(32), ir.IntType(64), ir.PointerType()
    try:
        fn = llmod.get_global(TRACKED_FREE)
    except KeyError:
        return
    fn.linkage = "internal"
    free = _declare(llmod, "free", ir.FunctionType(ir.VoidType(), [ptr]))
    getspec = _declare(llmod, "pthread_getspecific", ir.FunctionType(ptr, [i32]))
    (p,) = fn.args
    entry = fn.append_basic_block("entry")
    search = fn.append_basic_block("search")
    loop = fn.append_basic_block("loop")
    body = fn.append_basic_block("body")
    found = fn.append_basic_block("found")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    buf = b.call(getspec, [_tls_key(llmod)])
    b.cbranch(b.icmp_unsigned("==", buf, ir.Constant(ptr, None)), done, search)
    b.position_at_end(search)
    arr = b.inttoptr(b.load(_track_word(b, buf, 0), typ=i64), ptr)
    count = b.load(_track_word(b, buf, 1), typ=i64)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(i64)
    i.add_incoming(count, search)
    b.cbranch(b.icmp_signed(">", i, ir.Constant(i64, 0)), body, done)
    b.position_at_end(body)
    j = b.sub(i, ir.Constant(i64, 1))
    slot = b.gep(arr, [j], source_etype=ptr)
    i.add_incoming(j, body)
    b.cbranch(b.icmp_unsigned("==", b.load(slot, typ=ptr), p), found, loop)
    b.position_at_end(found)
    last = b.sub(count, ir.Constant(i64, 1))
    b.store(b.load(b.gep(arr, [last], source_etype=ptr), typ=ptr), slot)
    b.store(last, _track_word(b, buf, 1))
    b.branch(done)
    b.position_at_end(done)
    b.call(free, [p])
    b.ret_void()


def guard_allocations(module: ModuleOp) -> bool:
    """Route the ``malloc`` calls of ``module`` (llvm dialect) through
    ``@__irt_malloc``, which ``add_allocation_guard`` defines: on failure it
    returns to the entry wrapper with ``longjmp`` instead of letting compiled
    code write through a null pointer. True if there was any."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import SymbolRefAttr

    found = False
    for op in module.walk():
        if isinstance(op, llvm.CallOp) and op.callee is not None \
                and op.callee.string_value() == "malloc":
            op.callee = SymbolRefAttr(GUARDED_MALLOC)
            found = True
    if found:
        from irtoolkit.passes.lowering.to_llvm.common import I64, PTR

        decl = llvm.FuncOp(GUARDED_MALLOC, llvm.LLVMFunctionType([I64], PTR),
                           linkage=llvm.LinkageAttr("external"))
        module.body.block.add_op(decl)
    return found


def _declare(llmod: ir.Module, name: str, fty: ir.FunctionType) -> ir.Function:
    import llvmlite.ir as ir

    try:
        return llmod.get_global(name)
    except KeyError:
        return ir.Function(llmod, fty, name=name)


def add_allocation_guard(llmod: ir.Module, track: bool = False) -> None:
    """Define ``ptr @__irt_malloc(i64 n)``: malloc, but a null result for a
    non-zero size (or a negative size) stores ``n`` after the thread's current
    jmp_buf (found under the pthread key ``_tls_key``) and longjmps to the entry wrapper,
    which returns ``n`` as its status.

    With ``track``, each buffer is also appended to the running call's
    allocation list (after the jmp_buf), so that a failed call frees what it
    allocated (see ``_release_function``); ``@__irt_free`` removes it."""
    import llvmlite.ir as ir

    i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
    ptr = ir.PointerType()
    fn = llmod.get_global(GUARDED_MALLOC)
    fn.linkage = "internal"
    malloc = _declare(llmod, "malloc", ir.FunctionType(ptr, [i64]))
    getspec = _declare(llmod, "pthread_getspecific", ir.FunctionType(ptr, [i32]))
    longjmp = _declare(llmod, "longjmp", ir.FunctionType(ir.VoidType(), [ptr, i32]))
    longjmp.attributes.add("noreturn")
    abort = _declare(llmod, "abort", ir.FunctionType(ir.VoidType(), []))
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    n = fn.args[0]
    p = b.call(malloc, [n])
    null = b.icmp_unsigned("==", p, ir.Constant(ptr, None))
    nonzero = b.icmp_signed("!=", n, ir.Constant(i64, 0))
    negative = b.icmp_signed("<", n, ir.Constant(i64, 0))
    bad = b.or_(negative, b.and_(null, nonzero))
    with b.if_then(bad, likely=False):
        buf = b.call(getspec, [_tls_key(llmod)])
        with b.if_then(b.icmp_unsigned("==", buf, ir.Constant(ptr, None)), likely=False):
            b.call(abort, [])
            b.unreachable()
        b.store(n, b.gep(buf, [ir.Constant(i64, JMPBUF_WORDS * 8)], source_etype=i8))
        b.call(longjmp, [buf, ir.Constant(i32, 1)])
        b.unreachable()
    if track:
        _add_tracked_free(llmod)
        realloc = _declare(llmod, "realloc", ir.FunctionType(ptr, [ptr, i64]))
        buf = b.call(getspec, [_tls_key(llmod)])
        with b.if_then(b.icmp_unsigned("!=", buf, ir.Constant(ptr, None)), likely=True):
            count = b.load(_track_word(b, buf, 1), typ=i64)
            cap = b.load(_track_word(b, buf, 2), typ=i64)
            with b.if_then(b.icmp_signed(">=", count, cap), likely=False):
                new_cap = b.select(b.icmp_signed("<", cap, ir.Constant(i64, 16)),
                                   ir.Constant(i64, 16), b.mul(cap, ir.Constant(i64, 2)))
                old = b.inttoptr(b.load(_track_word(b, buf, 0), typ=i64), ptr)
                grown = b.call(realloc, [old, b.mul(new_cap, ir.Constant(i64, 8))])
                with b.if_then(b.icmp_unsigned("==", grown, ir.Constant(ptr, None)), likely=False):
                    free = _declare(llmod, "free", ir.FunctionType(ir.VoidType(), [ptr]))
                    b.call(free, [p])
                    b.store(n, b.gep(buf, [ir.Constant(i64, JMPBUF_WORDS * 8)], source_etype=i8))
                    b.call(longjmp, [buf, ir.Constant(i32, 1)])
                    b.unreachable()
                b.store(b.ptrtoint(grown, i64), _track_word(b, buf, 0))
                b.store(new_cap, _track_word(b, buf, 2))
            arr = b.inttoptr(b.load(_track_word(b, buf, 0), typ=i64), ptr)
            b.store(p, b.gep(arr, [count], source_etype=ptr))
            b.store(b.add(count, ir.Constant(i64, 1)), _track_word(b, buf, 1))
    b.ret(p)


def uses_runtime_checks(module: ModuleOp) -> bool:
    """True if ``module`` (llvm dialect) calls ``@__irt_check_failed`` (lowered
    ``cf.assert``: see ``passes/lowering/to_llvm/cf.py``)."""
    from xdsl.dialects import llvm

    for op in module.walk():
        if isinstance(op, llvm.CallOp) and op.callee is not None \
                and op.callee.string_value() == CHECK_FAILED:
            return True
    return False


def add_check_handler(llmod: ir.Module) -> None:
    """Define ``void @__irt_check_failed(ptr msg, i64 has_values, i64 a, i64 b)``
    (a failed ``cf.assert``): store status 1, the message and the values after
    the thread's current jmp_buf (pthread key ``_tls_key``) and longjmp to the entry
    wrapper, which copies them to the frame's error words. Outside an entry
    wrapper (no jmp_buf): print the message and abort, as MLIR does."""
    import llvmlite.ir as ir

    i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
    ptr = ir.PointerType()
    fn = _declare(llmod, CHECK_FAILED, ir.FunctionType(ir.VoidType(), [ptr, i64, i64, i64]))
    if fn.blocks:
        return
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    fn.attributes.add("cold")
    getspec = _declare(llmod, "pthread_getspecific", ir.FunctionType(ptr, [i32]))
    longjmp = _declare(llmod, "longjmp", ir.FunctionType(ir.VoidType(), [ptr, i32]))
    longjmp.attributes.add("noreturn")
    puts = _declare(llmod, "puts", ir.FunctionType(i32, [ptr]))
    abort = _declare(llmod, "abort", ir.FunctionType(ir.VoidType(), []))
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    msg, flag, x, y = fn.args
    buf = b.call(getspec, [_tls_key(llmod)])
    with b.if_then(b.icmp_unsigned("==", buf, ir.Constant(ptr, None)), likely=False):
        b.call(puts, [msg])
        b.call(abort, [])
        b.unreachable()

    def word(k: int):
        return b.gep(buf, [ir.Constant(i64, (JMPBUF_WORDS + k) * 8)], source_etype=i8)

    b.store(ir.Constant(i64, 1), word(0))
    b.store(b.ptrtoint(msg, i64), word(1))
    b.store(flag, word(2))
    b.store(x, word(3))
    b.store(y, word(4))
    b.call(longjmp, [buf, ir.Constant(i32, 1)])
    b.unreachable()


def llvm_ir(module: ModuleOp, pipeline: str | None = None) -> str:
    """LLVM IR text of ``module``: an llvm-dialect module, or any level (lowered
    on a clone first with ``pipeline`` or the default lowering). The text is
    checked by LLVM's parser and verifier."""
    import llvmlite.binding as llvm

    lowered = lower_module(module, pipeline)
    llmod = to_llvmlite(lowered)
    text = str(llmod)
    try:
        llvm.parse_assembly(text).verify()
    except RuntimeError as err:
        raise _error(f"invalid LLVM IR produced: {err}") from None
    return text
