"""Rules for ``autodiff``: only ``stop_gradient`` has a run-time meaning (the identity).

The other autodiff ops are expanded by the `ad` pass before interpretation
(``interpret_function`` runs it on a copy of the module).
"""

from __future__ import annotations

from irtoolkit.dialects.autodiff import StopGradientOp
from irtoolkit.interpreter.core import register


@register(StopGradientOp)
def _stop_gradient(interp, op, args):
    return (args[0],)
