"""The numpy dtype of each IR element type, shared by the interpreter and the JIT boundary."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

_FLOATS = {Float64Type: np.dtype(np.float64), Float32Type: np.dtype(np.float32),
           Float16Type: np.dtype(np.float16)}


def numpy_dtype(t: Attribute) -> np.dtype | None:
    """The dtype of a scalar type or of a tensor/memref's elements; None if numpy has none.

    ``index`` is int64; ``i1`` is bool; integers keep their width and signedness.
    """
    if isinstance(t, (TensorType, MemRefType)):
        t = t.element_type
    if (dtype := _FLOATS.get(type(t))) is not None:
        return dtype
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            unsigned = t.signedness.data == Signedness.UNSIGNED
            return np.dtype(f"{'u' if unsigned else 'i'}{width // 8}")
    return None
