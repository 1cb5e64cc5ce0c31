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

if TYPE_CHECKING:
    import llvmlite.ir as ir

    from irtoolkit.runtime.signature import Signature, ValueSpec

INTERFACE_PREFIX = "_irt_call_"

# passes of the default lowering, and what makes each one necessary
_PASS_NEEDED_BY = {
    "ad": ("autodiff.",),
    "lower-tensor-to-loop": ("tensor.", "bufferization."),
    "lower-loop-to-cf": ("loop.", "scf."),
}


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
    """The passes of ``ad,lower-to-llvm`` that exist; a missing one is an error
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
        if cls is None:
            prefixes = _PASS_NEEDED_BY.get(name)
            if prefixes is not None and not _needs(module, prefixes):
                continue
            raise _error(f"pass '{name}' is needed to compile this module but is not available")
        passes.append(cls())
    return passes


def lower_module(module: ModuleOp, pipeline: str | None = None, clone: bool = True) -> ModuleOp:
    """A copy of ``module`` lowered to the llvm dialect.

    With ``pipeline`` None: the default ``ad,lower-to-llvm`` (passes that do not
    exist yet are skipped when the module does not need them). With a pipeline:
    it runs first, then whatever of the default lowering (without ``ad``) is
    still needed to reach the llvm dialect.
    """
    from irtoolkit.pipeline import PipelineRunner, build_passes

    work = module.clone() if clone else module
    if pipeline:
        PipelineRunner(build_passes(pipeline)).run(work)
        if not is_llvm_module(work):
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
    return mapping


def to_llvmlite(module: ModuleOp, mangle: bool = False) -> ir.Module:
    """Translate an llvm-dialect module (it is modified: blocks are reordered,
    and with ``mangle`` defined functions are renamed, see ``mangle_functions``)."""
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
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            if op.linkage.linkage.data in ("internal", "private"):
                llmod.get_global(op.sym_name.data).linkage = "internal"
    return llmod


def host_triple() -> str:
    import llvmlite.binding as llvm

    return llvm.get_process_triple()


# --------------------------------------------------------------------------- interface


def spec_words(spec: ValueSpec) -> int:
    """Size of a frame slot in 8-byte words."""
    return 3 + 2 * spec.rank if spec.is_array else 1


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


def add_interface(llmod: ir.Module, sig: Signature, symbol: str | None = None,
                  guard_key: int | None = None) -> str | None:
    """Add ``i64 @_irt_call_<name>(ptr frame)``, or return None when the lowered
    signature does not match the captured one. It returns 0, or with
    ``guard_key`` the size of a failed allocation (see ``add_allocation_guard``).

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
    name = INTERFACE_PREFIX + sig.name
    wrapper = ir.Function(llmod, ir.FunctionType(i64, [ptr]), name=name)
    b = ir.IRBuilder(wrapper.append_basic_block("entry"))
    frame = wrapper.args[0]
    word = 0

    guarded = guard_key is not None
    if guarded:
        # a failed allocation longjmps back here (see add_allocation_guard)
        key = ir.Constant(i32, guard_key)
        buf = b.alloca(ir.ArrayType(i64, JMPBUF_WORDS + 1), name="jmpbuf")
        buf.align = 16
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
        b.call(setspec, [key, prev])
    b.ret(ir.Constant(i64, 0))
    return name


# --------------------------------------------------------------------------- allocation failures

GUARDED_MALLOC = "__irt_malloc"
JMPBUF_WORDS = 64  # glibc's x86-64 jmp_buf is 25 words; room for any target


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


def add_allocation_guard(llmod: ir.Module, key: int) -> None:
    """Define ``ptr @__irt_malloc(i64 n)``: malloc, but a null result for a
    non-zero size (or a negative size) stores ``n`` after the thread's current
    jmp_buf (found under pthread key ``key``) and longjmps to the entry wrapper,
    which returns ``n`` as its status."""
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
        buf = b.call(getspec, [ir.Constant(i32, key)])
        with b.if_then(b.icmp_unsigned("==", buf, ir.Constant(ptr, None)), likely=False):
            b.call(abort, [])
            b.unreachable()
        b.store(n, b.gep(buf, [ir.Constant(i64, JMPBUF_WORDS * 8)], source_etype=i8))
        b.call(longjmp, [buf, ir.Constant(i32, 1)])
        b.unreachable()
    b.ret(p)


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
