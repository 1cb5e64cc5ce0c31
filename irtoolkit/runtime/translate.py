"""From a module (any level) to an llvm-dialect module, to llvmlite IR, to LLVM IR text.

``lower_module`` runs the lowering pipeline on a clone, then the last steps
of ``lower-to-llvm`` if the pipeline left them out, and for the JIT the pass
``add-jit-interface`` (entry points, guarded allocation, check handling:
see ``passes/lowering/to_llvm/jit_interface.py``). Passes are found through
the registry (``irtoolkit.context``); the runtime imports none.

``to_llvm_text`` gives the LLVM IR text of an llvm-dialect module, printed by
``llvm_text``'s emitter (function bodies) around an llvmlite module of its
globals and declarations, or when the emitter does not know something,
printed from ``to_llvmlite``'s module: the same text either way.

``to_llvmlite`` translates an llvm-dialect module with xDSL's op translation,
plus what xDSL's module translation leaves out and our passes use: linkage,
function attributes (``passthrough``, as upstream MLIR spells them), atomic
orderings of ``llvm.load``/``llvm.store``, alias scopes
(``alias_scopes``/``noalias_scopes``: string scope names), the appending
global ``@llvm.compiler.used`` (its value a list of symbols), and blocks in
reverse post-order so that definitions precede uses.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, IndexType, ModuleOp, StringAttr, SymbolRefAttr

from irtoolkit.abi import (
    ENTRY_PREFIX, FRAME_TAIL_WORDS, KERNEL_PREFIX, LOOP_INTERLEAVE, NEST_PREFIX, UNOPTIMIZED_AT_TIER0,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError, op_error
from irtoolkit.runtime.signature import spec_words

if TYPE_CHECKING:
    import llvmlite.ir as ir

    from irtoolkit.runtime.signature import Signature

# after any pipeline, the last steps of lower-to-llvm (no-ops when they ran
# already: a module is complete only with them), and for the JIT its interface
LOWERING_TAIL = "expand-vector-math,define-parallel-dispatchers"
JIT_INTERFACE = "add-jit-interface"

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


def lower_module(module: ModuleOp, pipeline: str | None = None, clone: bool = True,
                 jit: bool = True) -> ModuleOp:
    """A copy of ``module`` lowered to the llvm dialect and complete
    (``LOWERING_TAIL``); with ``jit``, ready for the JIT (``add-jit-interface``).

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
    PipelineRunner(build_passes(LOWERING_TAIL + ("," + JIT_INTERFACE if jit else ""))).run(work)
    return work


def entry_points(lowered: ModuleOp, signatures: dict[str, Signature]) -> dict[str, str | None]:
    """The entry point of each signature in a module ``add-jit-interface``
    processed, or None (not callable from Python): none was made, or its frame
    does not have the signature's size (the lowered types are not the declared ones)."""
    wrappers = {op.sym_name.data: op for op in lowered.ops
                if isinstance(op, llvm.FuncOp) and op.sym_name.data.startswith(ENTRY_PREFIX)}
    out: dict[str, str | None] = {}
    for name, sig in signatures.items():
        op = wrappers.get(ENTRY_PREFIX + name)
        words = None if op is None else op.attributes.get("irt.frame_words")
        expected = sum(spec_words(s) for s in (*sig.inputs, *sig.outputs)) + FRAME_TAIL_WORDS
        ok = sig.unsupported is None and words is not None and words.value.data == expected  # type: ignore[attr-defined]
        out[name] = ENTRY_PREFIX + name if ok else None
    return out


# --------------------------------------------------------------------------- llvm dialect -> llvmlite


def _sort_blocks(module: ModuleOp) -> None:
    """Blocks of each llvm.func in reverse post-order; unreachable blocks dropped."""
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


def _check_translatable(module: ModuleOp) -> None:
    index_values = False  # every operand is a result or a block argument: those are checked
    for op in module.walk():
        if op is not module and not op.name.startswith("llvm."):
            raise op_error(op, f"failed to legalize operation '{op.name}' to the llvm dialect")
        for r in op.results:
            index_values = index_values or isinstance(r.type, IndexType)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    index_values = index_values or isinstance(a.type, IndexType)
    if not index_values:
        return
    for op in module.walk():  # the first op that has one, for the diagnostic
        for v in (*op.results, *op.operands):
            if isinstance(v.type, IndexType):
                raise op_error(op, "the index type must be lowered (to i64) before LLVM translation")


def to_llvmlite(module: ModuleOp) -> ir.Module:
    """Translate an llvm-dialect module (its blocks are reordered in place)."""
    from irtoolkit.gcpause import paused_gc

    with paused_gc():  # the cyclic GC rescanning the module made this superlinear
        return _to_llvmlite(module)


@dataclass
class LLVMText:
    """LLVM IR text of an llvm-dialect module, with what code generation plans from."""

    text: str
    llmod: ir.Module  # its globals and declarations (function bodies only with ``direct``)
    graph: tuple[dict[str, int], dict[str, set[str]]]  # codegen.call_graph of the module
    direct: bool  # emitted by llvm_text (else: printed by llvmlite)


#: why the text emitter left modules to llvmlite (what it does not spell), and how
#: many times, in this process
FALLBACKS: Counter[str] = Counter()


def to_llvm_text(module: ModuleOp, data_layout: str = "") -> LLVMText:
    """The LLVM IR text of an llvm-dialect module (its blocks are reordered in place):
    by ``llvm_text``'s emitter, or through llvmlite's IR objects when it meets
    something it does not spell or with ``IRT_LLVM_TEXT=llvmlite`` (the same text,
    several times slower)."""
    from irtoolkit.gcpause import paused_gc
    from irtoolkit.runtime import codegen

    with paused_gc():
        if os.environ.get("IRT_LLVM_TEXT", "direct") != "llvmlite":
            from xdsl.utils.exceptions import LLVMTranslationException

            from irtoolkit.runtime.llvm_text import TextEmitter, Unsupported

            emitter = TextEmitter()
            try:
                llmod = _to_llvmlite(module, body=emitter.body)
            except (Unsupported, DiagnosticError, LLVMTranslationException) as why:
                FALLBACKS[str(why)] += 1
            else:
                llmod.data_layout = data_layout
                return LLVMText(emitter.module_text(llmod), llmod, emitter.graph(llmod), True)
        llmod = _to_llvmlite(module)
        llmod.data_layout = data_layout
        return LLVMText(str(llmod), llmod, codegen.call_graph(llmod), False)


#: ``abi.UNOPTIMIZED_AT_TIER0`` as LLVM IR text spells it on a ``define`` line
_TIER0_MARK = ' "{}"="{}"'.format(*UNOPTIMIZED_AT_TIER0)


def first_tier_text(text: str) -> str:
    """The LLVM IR ``text`` that the JIT's first tier compiles: the functions marked
    ``abi.UNOPTIMIZED_AT_TIER0`` made ``noinline optnone`` (LLVM's pipeline leaves
    them as they are, and the fast instruction selector emits them). Measured on
    bench W1-W9 (AMD EPYC Zen 3, AVX2; CPU time, before and after alternating in one
    run): LLVM's share of the compile -23 % (W4, W9) to -52 % (W5), the first call
    (parse to first gradient, two runs) W1 -14..-16 %, W5 -21..-24 %, W7 -6..-13 %, W8
    -16..-19 %; the tier-0 gradient calls as fast as before, within the noise (1 %;
    the kernels' optimized code is the same).
    (The mark, quoted and after a space, appears nowhere else in a module's text:
    names are quoted after ``@``, metadata strings after ``!``, data in ``c"..."``.)

    The outlined loop nests (``abi.NEST_PREFIX``) are made ``noinline``: their
    caller's group compiles each once, not once alone and again inlined. Measured
    on bench W7 (CPU time of the gradient's groups, min of 3, alternating): its
    function's group 0.54-0.66 -> 0.40-0.55 s of LLVM time; the nests are called
    once per gradient, not per element."""
    text = text.replace(_TIER0_MARK, " noinline optnone")
    return _NEST_DEFINE.sub(r"\1 noinline", text) if NEST_PREFIX in text else text


#: the ``define`` line of an outlined loop nest (its name is its first ``@``)
_NEST_DEFINE = re.compile(r'(\ndefine [^@\n]*@"?%s[^\n]*)' % re.escape(NEST_PREFIX))


_ORDERING = {1: "unordered", 2: "monotonic", 4: "acquire", 5: "release", 6: "acq_rel",
             7: "seq_cst"}


def _to_llvmlite(module: ModuleOp, body: Callable | None = None) -> ir.Module:
    """The llvmlite module of ``module``; each function body translated by ``body``
    (op, llvmlite module, alias scopes) -- by default into llvmlite instructions,
    after checking that every op and value can be translated (the text emitter
    finds out for itself, and leaves the diagnostic to this path)."""
    import llvmlite.ir as ir
    from xdsl.backend.llvm.convert import _convert_global, _declare_func

    if body is None:
        _check_translatable(module)
    _sort_blocks(module)
    llmod = ir.Module()
    triple = module.attributes.get("llvm.target_triple")
    llmod.triple = triple.data if isinstance(triple, StringAttr) else host_triple()
    funcs = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    used = []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            if op.linkage.linkage.data == "appending":
                used.append(op)
                continue
            try:
                _convert_global(op, llmod)
            except (NotImplementedError, TypeError, ValueError) as err:
                raise op_error(op, f"LLVM translation failed: {err}") from None
            if op.section is not None:
                llmod.get_global(op.sym_name.data).section = op.section.data
        elif not isinstance(op, llvm.FuncOp):
            raise op_error(op, f"LLVM translation failed: unexpected {op.name} at module level")
    for op in funcs:
        _declare_func(op, llmod)
        fn = llmod.get_global(op.sym_name.data)
        if op.body.blocks and op.linkage.linkage.data in ("internal", "private"):
            fn.linkage = "internal"
        passthrough = op.attributes.get("passthrough")
        if isinstance(passthrough, ArrayAttr):
            for item in passthrough.data:
                # (set.add: llvmlite would refuse attributes it does not know)
                if isinstance(item, StringAttr):
                    set.add(fn.attributes, item.data)
                elif isinstance(item, ArrayAttr) and len(item.data) == 2:
                    key, value = (a.data for a in item.data)  # type: ignore[attr-defined]
                    set.add(fn.attributes, f'"{key}"="{value}"')
    scopes: dict[str, ir.Value] = {}
    for op in funcs:
        if op.body.blocks:
            (body or _convert_body)(op, llmod, scopes)
    for op in used:
        names = op.value.data if isinstance(op.value, ArrayAttr) else ()  # type: ignore[union-attr]
        ptr = ir.PointerType()
        init = [llmod.get_global(s.root_reference.data) for s in names if isinstance(s, SymbolRefAttr)]
        gv = ir.GlobalVariable(llmod, ir.ArrayType(ptr, len(init)), op.sym_name.data)
        gv.linkage = "appending"
        gv.initializer = ir.Constant(ir.ArrayType(ptr, len(init)), init)
        if op.section is not None:
            gv.section = op.section.data
    return llmod


def _scope_list(llmod: ir.Module, scopes: dict, attr) -> ir.Value:
    """The metadata list of the alias scopes named in ``attr`` (one domain each)."""
    import llvmlite.ir as ir

    items = []
    for name in (a.data for a in attr.data):
        md = scopes.get(name)
        if md is None:
            domain = llmod.add_metadata([ir.MetaDataString(llmod, name + ".domain")])
            md = scopes[name] = llmod.add_metadata([ir.MetaDataString(llmod, name), domain])
        items.append(md)
    return llmod.add_metadata(items)


_CONVERTERS: dict[type, Callable] = {}


def _converter(kind: type) -> Callable:
    """The function xDSL's ``convert_op`` hands an op of exactly this class to
    (its cases in its order; ``convert_op`` itself for the cases it spells out
    inline), taking (op, builder, val_map, block_map). ``convert_op`` tests an op
    against its cases one by one, ABC instance checks mostly (the constants, the
    most frequent op, come last): a third of the translation's time."""
    found = _CONVERTERS.get(kind)
    if found is not None:
        return found
    from xdsl.backend.llvm import convert_op as c

    def values(f):
        return lambda op, builder, val_map, block_map: f(op, builder, val_map)

    def constant(op, builder, val_map, block_map):
        val_map[op.result] = c.create_constant(op.result.type, op.value)

    def extract_value(op, builder, val_map, block_map):
        val_map[op.results[0]] = builder.extract_value(val_map[op.container],
                                                       list(op.position.iter_values()))

    def insert_value(op, builder, val_map, block_map):
        val_map[op.results[0]] = builder.insert_value(val_map[op.container], val_map[op.value],
                                                      list(op.position.iter_values()))

    cases = [  # (matches, converter), as convert_op's match statement
        (lambda k: k in c._BINARY_OP_MAP, values(c._convert_binop)),
        (llvm.ICmpOp, values(c._convert_icmp)),
        (llvm.FCmpOp, values(c._convert_fcmp)),
        (lambda k: k in c._CAST_OP_NAMES, values(c._convert_cast)),
        (lambda k: k in c._UNARY_INTRINSIC_MAP, values(c._convert_unary_intrinsic)),
        (lambda k: k in c._BINARY_INTRINSIC_MAP, values(c._convert_binary_intrinsic)),
        (lambda k: k in c._VECTOR_REDUCE_INTRINSIC_MAP, values(c._convert_vector_reduce)),
        (llvm.FNegOp, values(c._convert_fneg)),
        (llvm.CallOp, values(c._convert_call)),
        (llvm.AllocaOp, values(c._convert_alloca)),
        (llvm.LoadOp, values(c._convert_load)),
        (llvm.StoreOp, values(c._convert_store)),
        (llvm.ExtractValueOp, extract_value),
        (llvm.InsertValueOp, insert_value),
        (llvm.GEPOp, values(c._convert_getelementptr)),
        (llvm.InlineAsmOp, values(c._convert_inline_asm)),
        (llvm.BrOp, c._convert_br),
        (llvm.CondBrOp, c._convert_condbr),
        (llvm.UnreachableOp, c.convert_op),
        (llvm.SelectOp, values(c._convert_select)),
        (llvm.MaskedStoreOp, values(c._convert_masked_store)),
        (llvm.ReturnOp, values(c._convert_return)),
        (llvm.ZeroOp, c.convert_op),
        (llvm.UndefOp, c.convert_op),
        (llvm.AddressOfOp, values(c._convert_addressof)),
        (llvm.CallIntrinsicOp, values(c._convert_call_intrinsic)),
        (llvm.InsertElementOp, c.convert_op),
        (llvm.ShuffleVectorOp, values(c._convert_shuffle_vector)),
        (llvm.FMAOp, values(c._convert_fma)),
        (llvm.ConstantOp, constant),
    ]
    found = next((convert for matches, convert in cases
                  if (issubclass(kind, matches) if isinstance(matches, type) else matches(kind))),
                 c.convert_op)  # (which raises NotImplementedError)
    _CONVERTERS[kind] = found
    return found


def _convert_body(op: llvm.FuncOp, llmod: ir.Module, scopes: dict) -> None:
    """xDSL's function-body translation, with atomic orderings and alias scopes."""
    import llvmlite.ir as ir
    from xdsl.backend.llvm.convert_type import convert_type

    func = llmod.get_global(op.sym_name.data)
    block_map = {}
    val_map = {}
    for i, block in enumerate(op.body.blocks):
        block_map[block] = func.append_basic_block(name=block.name_hint or "")
        if i == 0:
            for arg, llarg in zip(block.args, func.args):
                val_map[arg] = llarg
    for i, block in enumerate(op.body.blocks):
        if i and block.args:
            builder = ir.IRBuilder(block_map[block])
            for arg in block.args:
                val_map[arg] = builder.phi(convert_type(arg.type))
    for block in op.body.blocks:
        builder = ir.IRBuilder(block_map[block])
        if block_map[block].instructions:
            builder.position_after(block_map[block].instructions[-1])
        for inner in block.ops:
            special = isinstance(inner, llvm.StoreOp) or isinstance(inner, llvm.LoadOp) and (
                inner.ordering.value.data != 0
                or "alias_scopes" in inner.attributes or "noalias_scopes" in inner.attributes)
            if not special:
                try:
                    _converter(type(inner))(inner, builder, val_map, block_map)
                except NotImplementedError as err:
                    raise op_error(inner, f"LLVM translation failed: {err}") from None
                continue
            order = _ORDERING.get(inner.ordering.value.data) if inner.ordering is not None else None
            align = inner.alignment.value.data if inner.alignment is not None else 8
            if isinstance(inner, llvm.LoadOp):
                t = convert_type(inner.dereferenced_value.type)
                if order:
                    instr = builder.load_atomic(val_map[inner.ptr], order, align, typ=t)
                else:
                    instr = builder.load(val_map[inner.ptr], typ=t)
                    if inner.alignment is not None:
                        instr.align = align
                val_map[inner.dereferenced_value] = instr
            else:
                value, ptr = val_map[inner.value], val_map[inner.ptr]
                if not ptr.type.is_opaque and ptr.type.pointee != value.type:
                    # a byte-offset GEP: llvmlite's typed pointers want the stored type
                    # (and cannot spell a pointer to an opaque pointer: store its bits)
                    if isinstance(value.type, ir.PointerType):
                        value = builder.ptrtoint(value, ir.IntType(64))
                    ptr = builder.bitcast(ptr, value.type.as_pointer())
                if order:
                    instr = builder.store_atomic(value, ptr, order, align)
                else:
                    instr = builder.store(value, ptr)
                    if inner.alignment is not None:
                        instr.align = align
            for key, md in (("alias_scopes", "alias.scope"), ("noalias_scopes", "noalias")):
                attr = inner.attributes.get(key)
                if isinstance(attr, ArrayAttr):
                    instr.set_metadata(md, _scope_list(llmod, scopes, attr))
    for block, loop_id in math_loop_ids(op, llmod).items():
        block_map[block].terminator.set_metadata("llvm.loop", loop_id)


def math_loop_ids(op: llvm.FuncOp, llmod: ir.Module, kernel_blocks: set | None = None) -> dict:
    """The back-edge blocks of the loops of ``op`` that get ``llvm.loop`` metadata,
    and their loop ids (made in ``llmod``, after the body's other metadata);
    ``kernel_blocks``: the blocks that call a kernel, if known.

    Loops calling a vector-math kernel get ``llvm.loop.interleave.count``: a kernel
    is one long dependency chain, which LLVM's cost model leaves at one vector per
    iteration (latency-bound); independent vectors side by side keep the FMA units
    busy (see ``abi.LOOP_INTERLEAVE``). Blocks are in reverse post-order
    here, so a branch to an earlier block is a loop's back edge."""
    import llvmlite.ir as ir

    blocks = list(op.body.blocks)
    index = {b: i for i, b in enumerate(blocks)}
    math = [b in kernel_blocks if kernel_blocks is not None else _calls_kernel(b) for b in blocks]
    option = None
    ids = {}
    for i, block in enumerate(blocks):
        heads = [index[s] for s in block.last_op.successors] if block.last_op is not None else []
        if not any(j <= i and any(math[j:i + 1]) for j in heads):
            continue
        if option is None:
            option = llmod.add_metadata([ir.MetaDataString(llmod, "llvm.loop.interleave.count"),
                                         ir.Constant(ir.IntType(32), LOOP_INTERLEAVE)])
        # a loop id refers to itself (which makes it distinct)
        loop_id = ir.values.MDValue(llmod, [], name=str(len(llmod.metadata)))
        loop_id.operands = (loop_id, option)
        ids[block] = loop_id
    return ids


def host_triple() -> str:
    import llvmlite.binding as llvm_binding

    return llvm_binding.get_process_triple()


def emit_code(module: ModuleOp, assembly: bool = False, pipeline: str | None = None) -> bytes:
    """An ELF object file (or with ``assembly``, assembly text) of ``module`` for
    this host: ``llvm_ir`` optimized at the JIT's level, every public symbol
    kept, position independent (it links into executables and shared libraries)."""
    from irtoolkit.runtime import codegen
    from irtoolkit.runtime.executable import default_opt, init_llvm, loop_unrolling, target_machine

    llvm_binding = init_llvm()
    opt = default_opt()
    text = llvm_ir(module, pipeline)
    tm = target_machine(llvm_binding, opt, jit=False)
    try:
        return codegen.emit_file(llvm_binding, text, tm, opt, loop_unrolling(), assembly)
    except RuntimeError as err:
        raise _error(f"LLVM code generation failed: {err}") from None


def llvm_ir(module: ModuleOp, pipeline: str | None = None) -> str:
    """LLVM IR text of ``module``: an llvm-dialect module, or any level (lowered
    on a clone first with ``pipeline`` or the default lowering), for the host
    (its target triple and data layout). No JIT interface: the code links into a
    C program, with a copy of the runtime functions it calls (``support.link_runtime``).
    The text is checked by LLVM's parser and verifier."""
    import llvmlite.binding as llvm_binding

    from irtoolkit.runtime.executable import init_llvm, target_machine

    from irtoolkit.runtime.support import link_runtime

    lowered = lower_module(module, pipeline, jit=False)
    text = to_llvm_text(lowered, str(target_machine(init_llvm(), 0, jit=False).target_data)).text
    try:
        mod = llvm_binding.parse_assembly(text)
        mod.verify()
    except RuntimeError as err:
        raise _error(f"invalid LLVM IR produced: {err}") from None
    if link_runtime(mod):  # the object links alone
        text = str(mod)
    return text


def _calls_kernel(block) -> bool:
    """Does ``block`` call a vector-math kernel (``abi.KERNEL_PREFIX``)?"""
    return any(isinstance(op, llvm.CallOp) and op.callee is not None
               and op.callee.string_value().startswith(KERNEL_PREFIX)
               for op in block.ops)
