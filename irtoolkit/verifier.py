"""Module verification with located, MLIR-style messages.

Runs xDSL's verifiers op by op (so that the failing op is known) and the
checks that span dialects, such as scalar `arith`/`math` ops applied to tensors.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from irtoolkit.diagnostics import op_error

# Scalar ops and the tensor op to use instead when the operands are tensors.
_TENSOR_EQUIVALENT = {
    "arith.addf": "tensor.add", "arith.addi": "tensor.add",
    "arith.subf": "tensor.sub", "arith.subi": "tensor.sub",
    "arith.mulf": "tensor.mul", "arith.muli": "tensor.mul",
    "arith.divf": "tensor.div",
    "arith.maximumf": "tensor.max", "arith.maxnumf": "tensor.max", "arith.maxsi": "tensor.max",
    "arith.minimumf": "tensor.min", "arith.minnumf": "tensor.min", "arith.minsi": "tensor.min",
    "arith.negf": "tensor.neg",
    "arith.cmpf": "tensor.cmp", "arith.cmpi": "tensor.cmp",
    "arith.select": "tensor.select",
    "arith.sitofp": "tensor.convert", "arith.fptosi": "tensor.convert",
    "arith.extf": "tensor.convert", "arith.truncf": "tensor.convert",
    "math.exp": "tensor.exp", "math.log": "tensor.log", "math.sqrt": "tensor.sqrt",
    "math.tanh": "tensor.tanh", "math.sin": "tensor.sin", "math.cos": "tensor.cos",
    "math.absf": "tensor.abs", "math.powf": "tensor.pow",
}


def _check_scalar_op(op: Operation) -> None:
    if op.name == "arith.constant":
        return
    if any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
        hint = _TENSOR_EQUIVALENT.get(op.name)
        use = f"; use '{hint}'" if hint else "; use the tensor dialect"
        raise op_error(op, f"operates on scalars only, not tensors{use}")


def verify_op(op: Operation) -> None:
    """Verify ``op`` alone (not its nested ops); raise a located DiagnosticError."""
    try:
        op.verify(verify_nested_ops=False)
        if op.name == "func.func" and any(k.startswith("autodiff.custom_") for k in op.attributes):
            from irtoolkit.dialects.autodiff import verify_function_attributes

            verify_function_attributes(op)
    except (VerifyException, DiagnosticException, ValueError) as err:
        msg = str(err.args[0]) if err.args else str(err)
        msg = msg.removeprefix("Operation does not verify: ")
        raise op_error(op, msg) from None
    if op.name.startswith(("arith.", "math.")):
        _check_scalar_op(op)


def verify_module(module: ModuleOp) -> None:
    """Verify every op of ``module``, outermost first, reporting the first failure."""
    for op in module.walk():
        verify_op(op)
