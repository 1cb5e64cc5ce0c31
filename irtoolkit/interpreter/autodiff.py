"""Rules for ``autodiff``: only ``stop_gradient`` has a run-time meaning (the identity).

The other autodiff ops are expanded by the `ad` pass before interpretation
(``interpret_function`` runs it on a copy of the module).
"""

from __future__ import annotations

from irtoolkit.interpreter.core import register

try:
    from irtoolkit.dialects.autodiff import StopGradientOp
except Exception:  # noqa: BLE001 -- the dialect is being written in parallel; the coverage test reports it
    StopGradientOp = None

if StopGradientOp is not None:

    @register(StopGradientOp)
    def _stop_gradient(interp, op, args):
        return (args[0],)
