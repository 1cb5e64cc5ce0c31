"""Rules for ``func`` (call, return) and ``builtin`` (unrealized casts)."""

from __future__ import annotations

from xdsl.dialects import builtin, func

from irtoolkit.diagnostics import op_error
from irtoolkit.interpreter.core import register, register_exit, register_specialized

register_exit(func.ReturnOp)


@register_specialized(func.CallOp)
def _call(op: func.CallOp):
    name = op.callee.root_reference.data
    captured: dict = {}

    def rule(interp, op, args):
        callee = captured.get("f")
        if callee is None:
            callee = interp.functions.get(name)
            if callee is None:
                raise op_error(op, f"calls '@{name}', which is not defined in the module")
            if not callee.body.blocks:
                from irtoolkit.interpreter.blas import external_rule

                ext = external_rule(name)  # e.g. BLAS gemm emitted for tensor.matmul
                if ext is not None:
                    return ext(interp, op, args)
                raise op_error(op, f"calls external function '@{name}', which has no body to interpret")
            captured["f"] = callee
        return interp.call_function(callee, args)

    return rule


@register(builtin.UnrealizedConversionCastOp)
def _unrealized_cast(interp, op, args):
    # Identity when it only renames values (as between bufferization steps).
    if len(args) != len(op.results):
        raise op_error(op, "cannot interpret an unrealized cast that changes the number of values")
    return tuple(args)
