"""``convert-func-to-llvm``: func.func / func.call / func.return to the llvm dialect.

Signatures go through the shared type converter (``index`` -> ``i64``, memref ->
descriptor struct passed by value). A function with several results returns
one ``!llvm.struct`` of them; with none it returns void. Private functions with
a body get ``internal`` linkage (the runtime applies it, so LLVM may inline and
drop them); declarations and public functions are external. A function marked
``llvm.emit_c_interface`` also gets upstream's C entry point
``@_mlir_ciface_<name>`` (memrefs by pointer to their descriptor).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass

from irtoolkit.diagnostics import op_error
from irtoolkit.passes.lowering.loop_to_cf import READS_APART_ATTR
from irtoolkit.passes.lowering.to_llvm.common import (
    Lowering,
    apply_handlers,
    convert_block_args,
    convert_type,
    pack_result_type,
)


def _signature(op: Operation, inputs, outputs) -> tuple[list, list]:
    ins, outs = [], []
    for t in inputs:
        lt = convert_type(t)
        if lt is None:
            raise op_error(op, f"argument type {t} cannot be lowered to the llvm dialect")
        ins.append(lt)
    for t in outputs:
        lt = convert_type(t)
        if lt is None:
            raise op_error(op, f"result type {t} cannot be lowered to the llvm dialect")
        outs.append(lt)
    return ins, outs


def lower_func(rw: Lowering, op: func.FuncOp) -> None:
    ft = op.function_type
    ins, outs = _signature(op, ft.inputs.data, ft.outputs.data)
    fty = llvm.LLVMFunctionType(ins, pack_result_type(outs))
    body = Region()
    op.body.move_blocks(body)
    is_decl = not body.blocks
    private = op.sym_visibility is not None and op.sym_visibility.data == "private"
    linkage = "internal" if (private and not is_decl) else "external"
    new = llvm.FuncOp(op.sym_name.data, fty, linkage=llvm.LinkageAttr(linkage), body=body)
    if op.arg_attrs is not None:
        pass  # func-level argument attributes have no meaning after lowering
    for name, attr in op.attributes.items():
        if name.startswith("llvm.") or name == READS_APART_ATTR:  # (the latter: see define_dispatchers)
            new.attributes[name] = attr
    if not is_decl:
        convert_block_args(body.blocks[0], ins)
    new.location = op.location
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    if C_INTERFACE in op.attributes and not is_decl:
        add_c_interface(new, ft.inputs.data, ins, outs)
    op.detach()
    op.erase()


C_INTERFACE = "llvm.emit_c_interface"
C_INTERFACE_PREFIX = "_mlir_ciface_"


def add_c_interface(fn: llvm.FuncOp, inputs, ins: list, outs: list) -> None:
    """``@_mlir_ciface_<name>``, upstream MLIR's C entry point of ``fn``: memref
    arguments by pointer to their descriptor, and a struct result (a memref, or
    several results) through a pointer passed first; the rest by value."""
    from xdsl.dialects.builtin import MemRefType, UnrankedMemRefType

    from irtoolkit.passes.lowering.to_llvm.build import PTR, define, function_type

    module = fn.parent_op()
    assert isinstance(module, ModuleOp)
    ret = pack_result_type(outs) if outs else None
    by_pointer = isinstance(ret, llvm.LLVMStructType)
    params = [PTR] if by_pointer else []
    params += [PTR if isinstance(t, (MemRefType, UnrankedMemRefType)) else lt
               for t, lt in zip(inputs, ins)]
    wrapper, b = define(module, C_INTERFACE_PREFIX + fn.sym_name.data,
                        function_type(params, None if by_pointer or ret is None else ret), "external")
    wrapper.location = fn.location
    given = list(b.args[1:] if by_pointer else b.args)
    args = [b.load(v, lt) if isinstance(t, (MemRefType, UnrankedMemRefType)) else v
            for t, lt, v in zip(inputs, ins, given)]
    result = b.call(fn.sym_name.data, args, ret)
    if by_pointer:
        b.store(result, b.args[0])
        b.ret()
    else:
        b.ret(result if ret is not None else None)


def lower_return(rw: Lowering, op: func.ReturnOp) -> None:
    parent = op.parent_op()
    if isinstance(parent, func.FuncOp):  # not converted yet (convert-to-llvm converts it last):
        ft = parent.function_type  # its signature's error comes before the operands'
        _signature(parent, ft.inputs.data, ft.outputs.data)
    vals = rw.operands()
    if not vals:
        rw.emit(llvm.ReturnOp())
    elif len(vals) == 1:
        rw.emit(llvm.ReturnOp(vals[0]))
    else:
        st = pack_result_type([v.type for v in vals])
        acc = rw.undef(st)
        for i, v in enumerate(vals):
            acc = rw.insert(acc, v, [i])
        rw.emit(llvm.ReturnOp(acc))
    rw.replace([])


def _dispatcher(op: func.CallOp, args, ret) -> str:
    """The declaration of the thread dispatcher of a loop outlined by lower-loop-to-cf
    (``{irt.parallel}`` calls; see ``to_llvm/parallel.py``), added once per callee."""
    from xdsl.dialects.builtin import SymbolRefAttr

    from irtoolkit.passes.lowering.to_llvm.parallel import DISPATCH_PREFIX

    callee = op.callee.string_value()
    name = DISPATCH_PREFIX + callee
    module = op.get_toplevel_object()
    top = module.regions[0].blocks[0] if module.regions else None
    if top is None:
        return callee
    for other in top.ops:
        if getattr(other, "sym_name", None) is not None and other.sym_name.data == name:
            return name
    fty = llvm.LLVMFunctionType([a.type for a in args], ret if ret is not None else llvm.LLVMVoidType())
    decl = llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr("external"))
    decl.attributes["irt.pfor"] = op.attributes["irt.parallel"]
    decl.attributes["irt.work"] = op.attributes["irt.work"]
    decl.attributes["irt.worker"] = SymbolRefAttr(callee)
    decl.location = op.location
    top.add_op(decl)
    return name


def lower_call(rw: Lowering, op: func.CallOp) -> None:
    args = rw.operands()
    _, outs = _signature(op, [], [r.type for r in op.results])
    ret = pack_result_type(outs) if outs else None
    callee = op.callee.string_value()
    if "irt.parallel" in op.attributes and "irt.work" in op.attributes:
        callee = _dispatcher(op, args, ret)
    call = rw.emit(llvm.CallOp(callee, *args, return_type=ret))
    if len(outs) <= 1:
        rw.replace(list(call.results))
    else:
        rw.replace([rw.extract(call.results[0], [i], t) for i, t in enumerate(outs)])


def convert_entry_blocks(funcs: list[func.FuncOp]) -> None:
    """Give the entry blocks of ``funcs`` their LLVM argument types ahead of
    ``lower_func`` (which then finds them converted), so that the ops of the
    bodies see the converted arguments; a function whose signature does not
    convert keeps them, and its body's errors come first."""
    for op in funcs:
        if not op.body.blocks:
            continue
        types = [convert_type(t) for t in op.function_type.inputs.data]
        if all(t is not None for t in types):
            convert_block_args(op.body.blocks[0], types)


HANDLERS = {
    func.FuncOp: lower_func,
    func.ReturnOp: lower_return,
    func.CallOp: lower_call,
}


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_handlers(op, HANDLERS)  # type: ignore[arg-type]
