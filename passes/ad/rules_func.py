"""Structural ops (func, loop, autodiff) and prints in the rule tables.

Calls and region ops are differentiated by the driver (forward.py,
reverse.py, control_flow.py); they are listed here so that the completeness
test knows every op of these dialects is accounted for.
"""

from __future__ import annotations

from xdsl.dialects import func, printf

from irtoolkit.dialects import autodiff, loop
from irtoolkit.dialects import func as func_values
from irtoolkit.passes.ad.rules import nondiff, primal_only, structural, unsupported

structural(func.FuncOp, func.CallOp, func.ReturnOp)
# A function value is not a number; what it calls is known only at run time.
nondiff(func_values.ConstantOp)
unsupported(func_values.CallIndirectOp, "its callee is known only at run time; call the function with func.call")
# a print is a side effect without a derivative: it stays in the primal code, once
# (the reverse sweep's replays of loop bodies and branches leave it out)
nondiff(printf.PrintFormatOp, printf.PrintCharOp, printf.PrintIntOp)
primal_only(printf.PrintFormatOp, printf.PrintCharOp, printf.PrintIntOp)
structural(loop.ForOp, loop.IfOp, loop.WhileOp, loop.YieldOp, loop.ConditionOp,
           loop.ParallelOp, loop.ReduceOp, loop.ReduceReturnOp)
# stop_gradient is the identity whose derivative is zero.
nondiff(autodiff.StopGradientOp)
# grad/value_and_grad/vjp/jvp are lowered (callee first) before a function
# is differentiated; the driver replaces them by calls.
structural(autodiff.GradOp, autodiff.ValueAndGradOp, autodiff.VjpOp, autodiff.JvpOp)
