"""Rules for ``func`` (call, return, function values) and ``builtin`` (unrealized casts)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import builtin, func

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects.func import CallIndirectOp, ConstantOp
from irtoolkit.interpreter.core import register, register_exit, register_specialized

register_exit(func.ReturnOp)


def _callee(interp, op, name: str):
    """The function ``@name`` that ``op`` calls, or a rule for an external one."""
    callee = interp.functions.get(name)
    if callee is None:
        raise op_error(op, f"calls '@{name}', which is not defined in the module")
    if not callee.body.blocks:
        from irtoolkit.interpreter.blas import external_rule

        ext = external_rule(name)  # e.g. BLAS gemm emitted for tensor.matmul
        if ext is not None:
            return ext
        raise op_error(op, f"calls external function '@{name}', which has no body to interpret")
    return callee


def _invoke(interp, op, callee, args):
    if callable(callee):
        return callee(interp, op, args)
    return interp.call_function(callee, args)


@register_specialized(func.CallOp)
def _call(op: func.CallOp):
    name = op.callee.root_reference.data
    captured: dict = {}

    def rule(interp, op, args):
        callee = captured.get("f")
        if callee is None:
            callee = captured["f"] = _callee(interp, op, name)
        return _invoke(interp, op, callee, args)

    return rule


@dataclass(frozen=True)
class FunctionValue:
    """The value of ``func.constant @name``."""

    name: str


@register(ConstantOp)
def _function_constant(interp, op, args):
    return (FunctionValue(op.value.root_reference.data),)


@register(CallIndirectOp)
def _call_indirect(interp, op, args):
    value, *operands = args
    return _invoke(interp, op, _callee(interp, op, value.name), operands)


@register(builtin.UnrealizedConversionCastOp)
def _unrealized_cast(interp, op, args):
    # Identity when it only renames values (as between bufferization steps).
    if len(args) != len(op.results):
        raise op_error(op, "cannot interpret an unrealized cast that changes the number of values")
    return tuple(args)
