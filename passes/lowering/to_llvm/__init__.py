"""Lowering of func, arith, math, cf, memref and printf to the llvm dialect, in pure Python.

Each part is a module with a table of handlers (op class -> rewrite) and a pass
of its own, ``convert-{memref,arith,math,cf,printf,func}-to-llvm``.
``convert-to-llvm`` applies the tables of every part in one walk of the module
(functions last, once their bodies are converted), then
``reconcile-unrealized-casts``, and checks that only ``llvm`` ops remain: any
other op is reported at its location ("failed to legalize operation").
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import op_error


def reconcile_and_check(module: ModuleOp) -> None:
    """``reconcile_casts``, then a located diagnostic for the first op that is not
    in the llvm dialect, in one walk of the module."""
    from irtoolkit.passes.lowering.to_llvm.common import reconcile_casts

    others: list[Operation] = []
    for op in module.walk():
        if op is not module and not op.name.startswith("llvm."):
            others.append(op)
    reconcile_casts(module, [o for o in others if isinstance(o, UnrealizedConversionCastOp)])
    for op in others:
        if op.parent is not None:  # a cast that did not cancel, or an op not lowered
            raise _not_legalized(op)


def _not_legalized(op: Operation) -> Exception:
    if isinstance(op, UnrealizedConversionCastOp):
        src = ", ".join(str(t) for t in op.inputs.types)
        dst = ", ".join(str(t) for t in op.result_types)
        user = next((u.operation for r in op.results for u in r.uses), None)
        where = user if user is not None else op
        return op_error(where, f"failed to legalize: a value of type {src} is still "
                               f"used as {dst} (an operation producing or using it "
                               "was not lowered)")
    return op_error(op, f"failed to legalize operation '{op.name}' to the llvm dialect")


#: the parts, each a module with a HANDLERS table and a pass ``convert-<part>-to-llvm``
PARTS = ("memref", "arith", "math", "cf", "printf", "func")


def conversion_handlers() -> dict:
    """The handlers of every part, one table (each op class lowered by exactly one part)."""
    import importlib

    handlers: dict = {}
    for part in PARTS:
        table = importlib.import_module(f"{__name__}.{part}").HANDLERS
        overlap = handlers.keys() & table.keys()
        assert not overlap, f"lowered by two parts: {overlap}"
        handlers.update(table)
    return handlers


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    """func, arith, math, cf, memref and printf to the llvm dialect, in one walk
    of the module with the handlers of every part (as MLIR's ``convert-to-llvm``):
    a converted result maps to its LLVM value, so casts are only made for block
    arguments and for values whose producer or user is not converted."""

    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects import func

        from irtoolkit.gcpause import paused_gc
        from irtoolkit.passes.lowering.to_llvm.cf import convert_branch_targets, define_check_failure
        from irtoolkit.passes.lowering.to_llvm.common import Conversion, Lowering, apply_handlers
        from irtoolkit.passes.lowering.to_llvm.func import convert_entry_blocks, lower_func

        global _HANDLERS
        if _HANDLERS is None:
            _HANDLERS = conversion_handlers()
            del _HANDLERS[func.FuncOp]  # after the bodies: see below
        funcs: list[func.FuncOp] = []

        def prepare(ops: list[Operation]) -> None:
            is_func = instance_test(func.FuncOp)
            funcs.extend(o for o in ops if is_func(o))
            convert_entry_blocks(funcs)
            convert_branch_targets(ops)

        with paused_gc():
            apply_handlers(op, _HANDLERS, prepare, Conversion())
            # each function once its body is converted, as when convert-func-to-llvm
            # runs last: an op of the body that cannot be lowered is reported
            # before a signature that cannot
            for f in funcs:
                lower_func(Lowering(f), f)
            define_check_failure(op)
            reconcile_and_check(op)  # = reconcile-unrealized-casts, then the legality check


_HANDLERS: dict | None = None


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
