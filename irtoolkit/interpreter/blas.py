"""External BLAS calls in lowered IR: ``func.call @scipy_cblas_{s,d}gemm64_``.

`lower-tensor-to-loop` lowers large float matmuls to a call of the row-major
CBLAS gemm (64-bit integers) on a bodyless private declaration, passing the
buffers as integers (``memref.extract_aligned_pointer_as_index`` +
``arith.index_cast``)::

    (order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)

The interpreter runs such a call with numpy: ``extract_aligned_pointer_as_index``
records which buffer each address belongs to (:func:`register_pointer`), and
the gemm rule finds the buffers again by address (an address that no
interpreted memref produced is an error: no raw memory is ever read) and
computes ``C = alpha * op(A) @ op(B) + beta * C`` on strided views.
"""

from __future__ import annotations

import weakref

import numpy as np

from irtoolkit.diagnostics import op_error

GEMM_DTYPES = {
    "scipy_cblas_sgemm64_": np.dtype(np.float32),
    "scipy_cblas_dgemm64_": np.dtype(np.float64),
}

_ROW_MAJOR = 101
_TRANS = {111: False, 112: True, 113: True}  # NoTrans, Trans, ConjTrans (real: Trans)


def register_pointer(interp, arr: np.ndarray) -> int:
    """The address of ``arr``'s first element; remembers which array it is."""
    addr = int(arr.__array_interface__["data"][0])
    if arr.size:
        table = interp.state.get("blas.pointers")
        if table is None:
            table = interp.state["blas.pointers"] = weakref.WeakValueDictionary()
        try:
            table[addr] = arr
        except TypeError:  # pragma: no cover - ndarrays support weak references
            pass
    return addr


def _matrix(interp, op, what: str, addr: int, rows: int, cols: int, ld: int, dtype: np.dtype):
    """(flat row-major buffer, owner array, rows x cols strided view) of an operand."""
    if ld < max(1, cols):
        raise op_error(op, f"gemm: leading dimension of {what} is {ld}, expected at least {max(1, cols)}")
    if rows == 0 or cols == 0:
        return None, None, np.zeros((rows, cols), dtype)
    table = interp.state.get("blas.pointers") or {}
    arr = table.get(addr)
    if arr is None:
        raise op_error(op, f"gemm: operand {what} ({addr:#x}) is not the address of a buffer "
                           "(memref.extract_aligned_pointer_as_index)")
    if arr.dtype != dtype:
        raise op_error(op, f"gemm: operand {what} has element type {arr.dtype}, expected {dtype}")
    flat = arr.reshape(-1)  # the memref's row-major element order (a copy if not contiguous)
    need = (rows - 1) * ld + cols
    if need > flat.size:
        raise op_error(op, f"gemm: operand {what} reads {need} elements of a buffer of {flat.size}")
    view = np.lib.stride_tricks.as_strided(flat, (rows, cols), (ld * flat.itemsize, flat.itemsize))
    return flat, arr, view


def gemm_rule(name: str):
    dtype = GEMM_DTYPES[name]

    def rule(interp, op, args):
        if len(args) != 14:
            raise op_error(op, f"gemm takes 14 arguments, got {len(args)}")
        order, ta, tb = int(args[0]), int(args[1]), int(args[2])
        M, N, K = int(args[3]), int(args[4]), int(args[5])
        alpha, pa, lda, pb, ldb = args[6], int(args[7]), int(args[8]), int(args[9]), int(args[10])
        beta, pc, ldc = args[11], int(args[12]), int(args[13])
        if order != _ROW_MAJOR:
            raise op_error(op, f"gemm: only row-major order (101) is supported, got {order}")
        if ta not in _TRANS or tb not in _TRANS:
            raise op_error(op, f"gemm: invalid transpose flags {ta}, {tb}")
        if min(M, N, K) < 0:
            raise op_error(op, f"gemm: negative size M={M} N={N} K={K}")
        ta_, tb_ = _TRANS[ta], _TRANS[tb]
        _, _, a = _matrix(interp, op, "A", pa, *((K, M) if ta_ else (M, K)), lda, dtype)
        _, _, b = _matrix(interp, op, "B", pb, *((N, K) if tb_ else (K, N)), ldb, dtype)
        flat, owner, c = _matrix(interp, op, "C", pc, M, N, ldc, dtype)
        if flat is None:
            return ()
        if ta_:
            a = a.T
        if tb_:
            b = b.T
        with np.errstate(all="ignore"):
            prod = a @ b if K else np.zeros((M, N), dtype)
            result = dtype.type(alpha) * prod
            if beta != 0:  # BLAS: beta == 0 overwrites C (NaNs in C do not propagate)
                result = result + dtype.type(beta) * c
        c[...] = result.astype(dtype, copy=False)
        if not np.shares_memory(flat, owner):
            owner[...] = flat.reshape(owner.shape)
        return ()

    return rule


def external_rule(name: str):
    """The rule of a call to external function ``name`` (None if unknown)."""
    if name in GEMM_DTYPES:
        return gemm_rule(name)
    return None


__all__ = ["GEMM_DTYPES", "register_pointer", "gemm_rule", "external_rule"]
