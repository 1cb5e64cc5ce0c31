"""Structural ops (func, loop, autodiff) in the rule tables.

Calls and region ops are differentiated by the driver (forward.py,
reverse.py, control_flow.py); they are listed here so that the completeness
test knows every op of these dialects is accounted for.
"""

from __future__ import annotations

from xdsl.dialects import func

from irtoolkit.passes.ad.rules import nondiff, structural

structural(func.FuncOp, func.CallOp, func.ReturnOp)

try:
    from irtoolkit.dialects import loop

    structural(loop.ForOp, loop.IfOp, loop.WhileOp, loop.YieldOp, loop.ConditionOp,
               loop.ParallelOp, loop.ReduceOp, loop.ReduceReturnOp)
except ImportError:  # pragma: no cover - dialect being written
    pass

try:
    from irtoolkit.dialects import autodiff

    # stop_gradient is the identity whose derivative is zero.
    nondiff(autodiff.StopGradientOp)
    # grad/value_and_grad/vjp/jvp are lowered (callee first) before a function
    # is differentiated; the driver replaces them by calls.
    structural(autodiff.GradOp, autodiff.ValueAndGradOp, autodiff.VjpOp, autodiff.JvpOp)
except (ImportError, AttributeError):  # pragma: no cover - dialect being written
    pass
