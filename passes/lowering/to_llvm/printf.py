"""``convert-printf-to-llvm``: ``printf.print_format`` to a call of the runtime's print.

Each print becomes a call ``@__irt_print(spec, frame)`` (``irtoolkit.abi``):
``spec`` a string global with the argument types and the format, ``frame`` a
stack array of 8-byte words holding the values (scalars, memref descriptors)
as the JIT's entry frames do. The runtime formats them exactly as the
interpreter does (numpy's ``str``), so compiled and interpreted programs print
the same text. The frame is allocated once in the function's entry block, not
per execution, so a print inside a loop does not grow the stack.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, printf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, TensorType, i8
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.abi import PRINT_SEPARATOR, PRINT_SYMBOL
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.lowering.to_llvm.common import I64, PTR, Lowering, add_string_global, apply_handlers
from irtoolkit.passes.lowering.to_llvm.math import declare_function
from irtoolkit.types import numpy_dtype


def _spec_text(op: printf.PrintFormatOp) -> str:
    items = []
    for v in op.format_vals:
        if isinstance(v.type, TensorType):
            raise op_error(op, "prints a tensor: bufferize it first ('lower-tensor-to-loop')")
        dtype = numpy_dtype(v.type)
        if dtype is None:
            raise op_error(op, f"cannot print a value of type {v.type}")
        rank = v.type.get_num_dims() if isinstance(v.type, MemRefType) else -1
        items.append(f"{dtype.str}/{rank}")
    return ";".join(items) + PRINT_SEPARATOR + op.format_str.data


def _words(op: printf.PrintFormatOp) -> int:
    return sum(3 + 2 * v.type.get_num_dims() if isinstance(v.type, MemRefType) else 1
               for v in op.format_vals)


def _entry_alloca(op: Operation, words: int) -> SSAValue:
    """``words`` i64 slots on the stack, allocated at the start of the function."""
    fn = op
    while fn.parent_op() is not None and not isinstance(fn.parent_op(), ModuleOp):
        fn = fn.parent_op()  # type: ignore[assignment]
    entry = fn.regions[0].first_block
    assert entry is not None
    count = llvm.ConstantOp(IntegerAttr(max(words, 1), I64), I64)
    slots = llvm.AllocaOp(count, I64, alignment=8)
    for new in (count, slots):
        new.location = op.location
    if entry.first_op is not None:
        entry.insert_ops_before([count, slots], entry.first_op)
    else:
        entry.add_ops([count, slots])
    return slots.results[0]


def lower_print_format(rw: Lowering, op: printf.PrintFormatOp) -> None:
    spec = add_string_global(op, "__irt_print_spec_", _spec_text(op))
    declare_function(op, PRINT_SYMBOL, llvm.LLVMFunctionType([PTR, PTR]))
    frame = _entry_alloca(op, _words(op))

    word = 0

    def store(value: SSAValue) -> None:
        nonlocal word
        # the pointer to word `word`, typed for the value (the translation to
        # LLVM IR gives each GEP result its element type)
        slot = rw.emit(llvm.GEPOp(frame, [word], I64)).results[0]
        if value.type != I64:
            slot = rw.emit(llvm.GEPOp(slot, [0], value.type)).results[0]
        rw.emit(llvm.StoreOp(value, slot))
        word += 1

    for v in op.format_vals:
        lowered = rw.value(v)
        if isinstance(v.type, MemRefType):
            rank = v.type.get_num_dims()
            for field in (0, 1):  # the pointers, as addresses
                store(rw.emit(llvm.PtrToIntOp(rw.extract(lowered, [field], PTR), I64)).results[0])
            store(rw.extract(lowered, [2], I64))
            for field in (3, 4) if rank else ():
                for k in range(rank):
                    store(rw.extract(lowered, [field, k], I64))
        elif numpy_dtype(v.type).kind == "b":  # type: ignore[union-attr]
            store(rw.emit(llvm.ZExtOp(lowered, i8)).results[0])
        else:
            store(lowered)
    address = rw.emit(llvm.AddressOfOp(spec, PTR)).results[0]
    rw.call(PRINT_SYMBOL, [address, frame], None)
    rw.replace([])


HANDLERS = {printf.PrintFormatOp: lower_print_format}


@dataclass(frozen=True)
class ConvertPrintfToLLVMPass(ModulePass):
    """printf.print_format to calls of the runtime's print (values of any type, tensors
    bufferized to memrefs first)."""

    name = "convert-printf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_handlers(op, HANDLERS)  # type: ignore[arg-type]
