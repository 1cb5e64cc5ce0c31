"""Function signatures at the tensor/memref level, captured before lowering.

The JIT wrapper needs shapes and dtypes that the llvm dialect no longer
carries (a descriptor knows its rank, not its static sizes or element type).
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # xDSL is imported where signatures are captured, not to call code
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute


def spec_words(spec: ValueSpec) -> int:
    """Size of an argument's or result's frame slot in 8-byte words."""
    return 3 + 2 * spec.rank if spec.is_array else 1


@dataclass(frozen=True)
class ValueSpec:
    """One argument or result: a scalar, or an array of a given rank."""

    type_text: str
    dtype: np.dtype
    shape: tuple[int | None, ...] | None  # None: scalar; None entries: dynamic dims

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    @property
    def rank(self) -> int:
        return len(self.shape) if self.shape is not None else 0

    def describe(self) -> str:
        return self.type_text


@dataclass(frozen=True)
class Signature:
    name: str
    inputs: tuple[ValueSpec, ...]
    outputs: tuple[ValueSpec, ...]
    unsupported: str | None = None  # why the function cannot be called from Python


def scalar_dtype(t: Attribute) -> np.dtype | None:
    from irtoolkit.types import numpy_dtype

    return numpy_dtype(t)


def value_spec(t: Attribute) -> ValueSpec | None:
    from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType

    if isinstance(t, (TensorType, MemRefType)):
        dtype = scalar_dtype(t.element_type)
        if dtype is None:
            return None
        shape = tuple(None if d == DYNAMIC_INDEX or d < 0 else d for d in t.get_shape())
        return ValueSpec(str(t), dtype, shape)
    dtype = scalar_dtype(t)
    if dtype is None:
        return None
    return ValueSpec(str(t), dtype, None)


def capture_signatures(module: ModuleOp) -> dict[str, Signature]:
    """Signatures of the public functions with a body (func.func)."""
    from xdsl.dialects import func

    sigs: dict[str, Signature] = {}
    for op in module.ops:
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        if op.sym_visibility is not None and op.sym_visibility.data == "private":
            continue
        name = op.sym_name.data
        ins, outs, why = [], [], None
        for kind, types, acc in (("argument", op.function_type.inputs.data, ins),
                                 ("result", op.function_type.outputs.data, outs)):
            for i, t in enumerate(types):
                spec = value_spec(t)
                if spec is None:
                    why = why or f"{kind} #{i} of type {t} cannot cross the Python boundary"
                    spec = ValueSpec(str(t), np.dtype(np.int8), None)
                acc.append(spec)
        sigs[name] = Signature(name, tuple(ins), tuple(outs), why)
    return sigs
