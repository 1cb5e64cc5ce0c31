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

#: element type name -> the row-major CBLAS gemm with 64-bit integers that numpy's
#: bundled OpenBLAS exports:
#: ``void gemm(int order, int transA, int transB, i64 M, i64 N, i64 K, T alpha,
#: T *A, i64 lda, T *B, i64 ldb, T beta, T *C, i64 ldc)``
GEMM_SYMBOLS = {"f32": "scipy_cblas_sgemm64_", "f64": "scipy_cblas_dgemm64_"}

# CBLAS enums
ROW_MAJOR = 101
NO_TRANS = 111
TRANS = 112


# ---------------------------------------------------------------------------
# The native calling convention: frame layout, thread key, error reporting
# ---------------------------------------------------------------------------
