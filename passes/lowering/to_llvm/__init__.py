"""Lowering of func, arith, math, cf, memref and printf to the llvm dialect, in pure Python.

``convert-to-llvm`` runs every part (each one also a pass of its own:
``convert-{memref,arith,math,cf,printf,func}-to-llvm``), then
``reconcile-unrealized-casts``, and checks that only ``llvm`` ops remain: any
other op is reported at its location ("failed to legalize operation").
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.passes import ModulePass

from irtoolkit.diagnostics import op_error


def check_legal(module: ModuleOp) -> None:
    """Raise a located diagnostic for the first op that is not in the llvm dialect."""
    for op in module.walk():
        if op is module or op.name.startswith("llvm."):
            continue
        if isinstance(op, UnrealizedConversionCastOp):
            src = ", ".join(str(t) for t in op.inputs.types)
            dst = ", ".join(str(t) for t in op.result_types)
            user = next((u.operation for r in op.results for u in r.uses), None)
            where = user if user is not None else op
            raise op_error(where, f"failed to legalize: a value of type {src} is still "
                                  f"used as {dst} (an operation producing or using it "
                                  "was not lowered)")
        raise op_error(op, f"failed to legalize operation '{op.name}' to the llvm dialect")


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    """func, arith, math, cf, memref and printf to the llvm dialect."""

    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.passes.lowering.to_llvm.arith import ConvertArithToLLVMPass
        from irtoolkit.passes.lowering.to_llvm.cf import ConvertCfToLLVMPass
        from irtoolkit.gcpause import paused_gc
        from irtoolkit.passes.lowering.to_llvm.common import reconcile_casts
        from irtoolkit.passes.lowering.to_llvm.func import ConvertFuncToLLVMPass
        from irtoolkit.passes.lowering.to_llvm.math import ConvertMathToLLVMPass
        from irtoolkit.passes.lowering.to_llvm.memref import ConvertMemrefToLLVMPass
        from irtoolkit.passes.lowering.to_llvm.printf import ConvertPrintfToLLVMPass

        with paused_gc():
            for part in (ConvertMemrefToLLVMPass(), ConvertArithToLLVMPass(), ConvertMathToLLVMPass(),
                         ConvertCfToLLVMPass(), ConvertPrintfToLLVMPass(), ConvertFuncToLLVMPass()):
                part.apply(ctx, op)
            reconcile_casts(op)  # = reconcile-unrealized-casts, linear
            check_legal(op)


@dataclass(frozen=True)
class ReconcileCastsPass(ModulePass):
    """Remove chains of unrealized conversion casts that cancel.

    xDSL's pass of the same name applies the same rule through its pattern
    rewriter, which fails ("insertion point must have a parent block") on some
    chains the partial conversions leave, and is quadratic on long ones."""

    name = "reconcile-unrealized-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.passes.lowering.to_llvm.common import reconcile_casts

        reconcile_casts(op)
