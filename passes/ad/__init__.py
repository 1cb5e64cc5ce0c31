"""The `ad` pass: source-to-source differentiation on the IR.

Design (see the module docstrings for details):

- ``rules.py`` — rule tables keyed by op class: a JVP and a VJP rule per
  differentiable op (``rules_arith.py``, ``rules_math.py``,
  ``rules_tensor.py``; elementwise ops described once by their partials),
  the non-differentiable ops marked explicitly, structural ops listed.
- ``activity.py`` — varied/useful analysis: only active values get
  derivative code; zeros are symbolic (None) until a value must exist.
- ``forward.py`` — forward mode (``autodiff.jvp``).
- ``reverse.py`` — reverse mode (``grad``, ``value_and_grad``, ``vjp``):
  forward sweep with tapes for loops, reverse sweep with loop recomputation;
  ``residuals.py`` — expensive results stored instead of recomputed, outer
  products of weight adjoints stacked into one matmul after the reverse loop.
- ``control_flow.py`` — ``loop.while`` to counted ``loop.for``;
  ``checkpoint.py`` — strip-mining for O(sqrt n) checkpointing.
- ``driver.py`` — naming, caching, callee-first ordering, custom rules,
  ``stop_gradient`` erasure.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from irtoolkit.pipeline import option

__all__ = ["AutodiffPass"]


@dataclass(frozen=True)
class AutodiffPass(ModulePass):
    """Replace autodiff ops by calls to generated derivative functions.

    ``checkpoint``: "sqrt" (or a segment length) checkpoints every active
    ``loop.for``, as the ``autodiff.checkpoint`` attribute does for one loop.
    ``checkpoint-memory``: a memory budget ("64MB"; units B, KB, MB, GB) for the
    values each active loop stores for its reverse sweep, as the
    ``autodiff.checkpoint_memory`` attribute gives one loop (checkpoint.py).
    """

    name = "ad"

    checkpoint: str | int | None = option(
        None, "checkpoint every active loop.for: 'sqrt' (segments of about sqrt(n) "
        "iterations) or a segment length", values=("sqrt",), minimum=1)
    checkpoint_memory: str | int | None = option(
        None, "memory budget of every active loop's stored values, e.g. 64MB (units B, KB, MB, "
        "GB, powers of 1024) or a byte count: the pass chooses what to store and what to recompute")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.passes.ad.driver import Driver
        from irtoolkit.gcpause import paused_gc

        if self.checkpoint is not None and self.checkpoint_memory is not None:
            from irtoolkit.diagnostics import Diagnostic, DiagnosticError

            raise DiagnosticError(Diagnostic("pass 'ad': give checkpoint or checkpoint-memory, not both"))
        memory = None if self.checkpoint_memory is None else str(self.checkpoint_memory)
        with paused_gc():  # the cyclic GC rescans the whole module: superlinear
            Driver(op, None if self.checkpoint is None else str(self.checkpoint), memory).run()
