"""``convert-cf-to-llvm``: cf.br / cf.cond_br / cf.switch / cf.assert to the llvm dialect.

Arguments of non-entry blocks get their LLVM types (the entry block belongs to
the function signature, converted by ``convert-func-to-llvm``). ``cf.switch``
becomes a chain of ``llvm.icmp`` + ``llvm.cond_br``; ``cf.assert`` branches to a
cold block calling ``@__irt_check_failed`` (see :func:`lower_assert`), which
prints the message and aborts; the JIT gives it a body that raises
``irtoolkit.runtime.RuntimeCheckError`` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.abi import CHECK_FAILED_SYMBOL
from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import location_of
from irtoolkit.passes.lowering.to_llvm.common import (
    I64,
    PTR,
    Lowering,
    add_string_global,
    apply_handlers,
    convert_block_args,
)
from irtoolkit.passes.lowering.to_llvm.math import declare_function

_BRANCHES = (cf.BranchOp, cf.ConditionalBranchOp, cf.SwitchOp, cf.AssertOp)


def lower_br(rw: Lowering, op: cf.BranchOp) -> None:
    br = rw.emit(llvm.BrOp(op.successor, *rw.operands()))
    if "irt.latch" in op.attributes:  # a loop's back edge (see loop_to_cf.py)
        br.attributes["irt.latch"] = op.attributes["irt.latch"]
    rw.replace([])


def lower_cond_br(rw: Lowering, op: cf.ConditionalBranchOp) -> None:
    cond = rw.value(op.cond)
    then_args = [rw.value(v) for v in op.then_arguments]
    else_args = [rw.value(v) for v in op.else_arguments]
    rw.emit(llvm.CondBrOp(cond, op.then_block, then_args, op.else_block, else_args))
    rw.replace([])


def lower_switch(rw: Lowering, op: cf.SwitchOp) -> None:
    flag = rw.value(op.flag)
    default_args = [rw.value(v) for v in op.default_operands]
    values = list(op.case_values.get_values()) if op.case_values is not None else []
    cases = [
        (v, blk, [rw.value(x) for x in args])
        for v, blk, args in zip(values, op.case_blocks, op.case_operand, strict=True)
    ]
    region = rw.block.parent
    assert region is not None
    block = rw.block

    def emit(new: Operation) -> Operation:
        new.location = op.location
        if block is rw.block:
            block.insert_op_before(new, op)
        else:
            block.add_op(new)
        return new

    if not cases:
        emit(llvm.BrOp(op.default_block, *default_args))
    for i, (value, dest, args) in enumerate(cases):
        c = emit(llvm.ConstantOp(IntegerAttr(int(value), flag.type), flag.type))
        eq = emit(llvm.ICmpOp(flag, c.results[0],
                              IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), 64)))
        if i + 1 < len(cases):
            nxt = Block()
            region.insert_block_after(nxt, block)
            emit(llvm.CondBrOp(eq.results[0], dest, args, nxt, []))
            block = nxt
        else:
            emit(llvm.CondBrOp(eq.results[0], dest, args, op.default_block, default_args))
    rw.replace([])


CHECK_FAILED = CHECK_FAILED_SYMBOL


def _compared_values(rw: Lowering, cond) -> tuple[object, object] | None:
    """The two integer operands of the ``llvm.icmp`` computing ``cond`` as i64
    (to report them when the check fails; narrower ones sign-extended), or None."""
    owner = cond.owner
    if not isinstance(owner, llvm.ICmpOp):
        return None
    values = []
    for v in (owner.lhs, owner.rhs):
        t = v.type
        if not isinstance(t, IntegerType) or t.width.data > 64:
            return None
        if t.width.data < 64:
            cls = llvm.ZExtOp if t.width.data == 1 else llvm.SExtOp
            v = rw.emit(cls(v, I64)).results[0]
        values.append(v)
    return values[0], values[1]


def check_message_text(where: Operation, message: str) -> str:
    """``file\x1fline\x1fcol\x1fmessage`` (empty location fields when unknown)."""
    loc = location_of(where)
    prefix = f"{loc.file}\x1f{loc.line}\x1f{loc.col}" if loc is not None else "\x1f\x1f"
    return f"{prefix}\x1f{message}"


def emit_check(rw: Lowering, cond: SSAValue, message: str,
               values: tuple[SSAValue, SSAValue] | None = None) -> None:
    """A run-time check right before ``rw.op``: unless ``cond`` (i1) holds, call
    ``@__irt_check_failed(msg, has_values, a, b)`` (``msg``: a global
    ``file\x1fline\x1fcol\x1fmessage`` located at ``rw.op``; ``a``, ``b``: the
    i64 ``values`` to report, if given). The JIT defines that function to jump
    back to the entry point and raise ``RuntimeCheckError`` (outside the JIT:
    print the message and abort). ``rw.op`` and the ops after it move to a new
    block, which becomes ``rw``'s insertion block."""
    from irtoolkit.passes.lowering.loop_to_cf import split_block_before

    op = rw.op
    block = rw.block
    region = block.parent
    assert region is not None
    cont = split_block_before(block, op)  # `op` and everything after it move to `cont`
    fail = Block()
    region.insert_block_after(fail, block)
    br = llvm.CondBrOp(cond, cont, [], fail, [])
    br.location = op.location
    block.add_op(br)
    rw.block = cont
    name = add_string_global(op, "__irt_assert_msg_", check_message_text(op, message))
    declare_function(op, CHECK_FAILED, llvm.LLVMFunctionType([PTR, I64, I64, I64]))
    addr = llvm.AddressOfOp(name, PTR)
    new_ops: list[Operation] = [addr]
    if values is not None:
        flag = llvm.ConstantOp(IntegerAttr(1, I64), I64)
        args = [addr.results[0], flag.results[0], *values]
        new_ops.append(flag)
    else:
        zero = llvm.ConstantOp(IntegerAttr(0, I64), I64)
        args = [addr.results[0], zero.results[0], zero.results[0], zero.results[0]]
        new_ops.append(zero)
    new_ops.append(llvm.CallOp(CHECK_FAILED, *args))
    new_ops.append(llvm.UnreachableOp())
    for new in new_ops:
        new.location = op.location
        fail.add_op(new)


def lower_assert(rw: Lowering, op: cf.AssertOp) -> None:
    """``cf.assert``: a run-time check (:func:`emit_check`) reporting the
    operands of the comparison computing the condition, when it is one."""
    cond = rw.value(op.arg)
    emit_check(rw, cond, op.msg.data, _compared_values(rw, cond))
    op.detach()
    op.erase()


HANDLERS: dict = {
    cf.BranchOp: lower_br,
    cf.ConditionalBranchOp: lower_cond_br,
    cf.SwitchOp: lower_switch,
    cf.AssertOp: lower_assert,
}


def convert_branch_targets(ops: list[Operation]) -> None:
    """Give the non-entry blocks of the regions that hold a branch among ``ops``
    their LLVM argument types, before the branches convert (so that their
    operands convert to those types; an entry block belongs to its function's
    signature, converted by ``convert-func-to-llvm``)."""
    regions: dict[int, Region] = {}
    is_branch = instance_test(*_BRANCHES)
    for op in ops:
        if is_branch(op):
            region = op.parent
            region = region.parent if region is not None else None
            if region is not None:
                regions[id(region)] = region
    for region in regions.values():
        for block in region.blocks:
            if block is not region.blocks.first:
                convert_block_args(block)


def convert_cf(module: ModuleOp) -> None:
    apply_handlers(module, HANDLERS, convert_branch_targets)
    define_check_failure(module)


def define_check_failure(module: ModuleOp) -> None:
    """A portable body for a declared ``@__irt_check_failed``: print the message
    and abort, as MLIR's ``cf.assert`` lowering does (the JIT's ``add-jit-interface``
    replaces it by one that raises ``RuntimeCheckError``)."""
    from irtoolkit.passes.lowering.to_llvm.build import declare, define, function_type, lookup

    fn = lookup(module, CHECK_FAILED)
    if not isinstance(fn, llvm.FuncOp) or fn.body.blocks:
        return
    declare(module, "puts", function_type([PTR], i32))
    declare(module, "abort", function_type([]), "noreturn")
    _, b = define(module, CHECK_FAILED, fn.function_type, "internal", "noinline", "cold")
    b.call("puts", [b.args[0]], i32)
    b.call("abort", [])
    b.unreachable()


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_cf(op)
