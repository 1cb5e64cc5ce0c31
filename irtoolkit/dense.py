"""Dense elements attributes without materializing them.

A large *splat* (``dense<1.0> : tensor<100000000xf64>``) is kept as a
``DenseIntOrFPElementsAttr`` whose data holds one element while its type has
many: xDSL prints it as the splat it is, and every consumer here (folders,
interpreter, lowering) reads the one value instead of a copy per element. Code
that needs every element (a vector constant for LLVM) calls :func:`values`.

Splats of at most EXPAND_LIMIT elements are stored element by element, as
xDSL's ``from_list`` stores them: attributes compare by their bytes, and the
constants that passes and folders create (always small) must stay equal to the
same constants parsed from text, for ``cse`` and the folders to see them equal.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute


#: splats of more elements than this keep one element (the folders' limit too)
EXPAND_LIMIT = 1 << 16


def splat_dense(type: Attribute, value) -> DenseIntOrFPElementsAttr:
    """``dense<value> : type``: one stored element if the type has more than
    EXPAND_LIMIT, else one per element (as ``from_list``)."""
    element = type.get_element_type()  # type: ignore[attr-defined]
    if isinstance(element, IntegerType):
        value = element.get_normalized_value(value)
    data = element.pack([value])  # type: ignore[attr-defined]
    key = (type, data)
    attr = _SPLATS.get(key)
    if attr is None:
        count = math.prod(type.get_shape())  # type: ignore[attr-defined]
        if count <= EXPAND_LIMIT:
            data *= count
        attr = DenseIntOrFPElementsAttr(type, BytesAttr(data))  # type: ignore[arg-type]
        if len(_SPLATS) > 4096:
            _SPLATS.clear()
        _SPLATS[key] = attr
    return attr


#: (type, one packed element) -> the splat: attributes are immutable, and passes ask
#: for the same few constants (zeros, ones) over and over
_SPLATS: dict[tuple[Attribute, bytes], DenseIntOrFPElementsAttr] = {}


def element_count(attr: DenseIntOrFPElementsAttr) -> int:
    return math.prod(attr.get_type().get_shape())


def is_splat_form(attr: DenseIntOrFPElementsAttr) -> bool:
    """One stored element for a type of several."""
    return len(attr) == 1 and element_count(attr) != 1


def values(attr: DenseIntOrFPElementsAttr) -> tuple:
    """Every element (a splat replicated): for consumers that need them all."""
    vals = attr.get_values()
    n = element_count(attr)
    if len(vals) == 1 and n != 1:
        return vals * n
    return vals


def numbers_to_bytes(array, element: Attribute) -> bytes | None:
    """The data of a dense attribute of ``element`` type holding the numbers of
    ``array`` (numpy, int or float), or None when the type cannot hold them
    exactly as xDSL's element-by-element parsing would (then that path reports
    the error)."""
    import numpy as np

    if isinstance(element, (Float16Type, Float32Type, Float64Type)):
        return array.astype(np.float64).astype(np.dtype(element.format)).tobytes()
    if isinstance(element, IndexType):
        width = 64
    elif isinstance(element, IntegerType) and element.width.data in (8, 16, 32, 64):
        width = element.width.data
    else:
        return None
    if array.dtype.kind != "i" or array.size == 0:
        return None
    if array.min() < -(1 << (width - 1)) or array.max() >= (1 << width):
        return None
    signed = np.dtype(element.format)
    if width < 64:
        array = (array & ((1 << width) - 1)).astype(np.dtype(f"<u{width // 8}")).view(signed)
    return array.astype(signed).tobytes()


__all__ = ["EXPAND_LIMIT", "splat_dense", "element_count", "is_splat_form", "values", "numbers_to_bytes"]
