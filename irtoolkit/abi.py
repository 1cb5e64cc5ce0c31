"""Facts shared by the lowering passes and the runtime, and nothing else.

A leaf module: it imports nothing from irtoolkit, so that `passes/` and
`irtoolkit/runtime/` can both read it without importing each other (what the
JIT needs from the lowering is a named pass; what a lowering needs to know
about the runtime is a pass option or a constant here).
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# BLAS: the symbols and enums of the GEMM calls that lowered matmuls make
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# The native calling convention: frame layout, thread key, error reporting
# ---------------------------------------------------------------------------
