"""IR emission for the Python frontend: one block at a time, every op located
at the Python expression it comes from and verified as it is built (so a shape
mismatch is reported at the Python line, not later in the IR).

Run-time values are SSA values: tensors (a Python scalar that meets a tensor
becomes a 0-d or splat tensor constant) and, for loop induction variables,
``index`` scalars. Compile-time values are plain Python objects (int, float,
bool, tuple, numpy arrays, functions); numpy's broadcasting and type promotion
become explicit ``tensor.broadcast`` / ``tensor.convert`` ops here.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from irtoolkit.diagnostics import Diagnostic, DiagnosticError, Location, register_source
from irtoolkit.dialects import tensor
from irtoolkit.types import numpy_dtype

_ELEMENT_TYPES: dict[np.dtype, Attribute] = {
    np.dtype(np.float32): f32, np.dtype(np.float64): f64, np.dtype(np.bool_): i1,
    np.dtype(np.int32): i32, np.dtype(np.int64): i64,
}


def element_type(dtype) -> Attribute:
    """The IR element type of a numpy dtype (or dtype-like: ``np.float32``, ``"f8"``)."""
    et = _ELEMENT_TYPES.get(np.dtype(dtype))
    if et is None:
        raise TypeError(f"dtype {np.dtype(dtype)} has no tensor element type (f32, f64, bool, int32, int64)")
    return et


def tensor_type_of(array: np.ndarray) -> TensorType:
    return TensorType(element_type(array.dtype), array.shape)


def shape_of(v: SSAValue) -> tuple[int, ...]:
    return tuple(v.type.get_shape())


def dtype_of(v: SSAValue) -> np.dtype:
    return numpy_dtype(v.type)


def is_float(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType) and isinstance(v.type.element_type, Float32Type | Float64Type)


def is_runtime(v: object) -> bool:
    return isinstance(v, SSAValue)


@dataclass
class Source:
    """Where a function's source sits in its file, to locate AST nodes there."""

    filename: str
    first_line: int  # line of the file where the parsed (dedented) text starts
    indent: int  # columns removed by dedenting

    @staticmethod
    def register(filename: str, file_text: str | None) -> None:
        if file_text is not None:
            register_source(filename, file_text)

    def location(self, node: ast.AST) -> Location:
        return Location(self.filename, self.first_line + getattr(node, "lineno", 1) - 1,
                        getattr(node, "col_offset", 0) + self.indent + 1)


class Emitter:
    """Appends located, verified ops to ``block``; ``node`` is the Python
    expression being translated (errors and op locations point at it)."""

    def __init__(self, source: Source, block: Block, node: ast.AST):
        self.source = source
        self.block = block
        self.node = node
        # 0-d tensors standing for Python numbers (a number carried by a loop): they
        # promote as Python scalars do, so `acc = 0.0; acc = acc + x32` stays float32
        self.weak: set[SSAValue] = set()

    # ---------------------------------------------------------------- errors
    def error(self, message: str, node: ast.AST | None = None) -> DiagnosticError:
        return DiagnosticError(Diagnostic(message, self.source.location(node or self.node)))

    # ---------------------------------------------------------------- ops
    def emit(self, op: Operation, verify: bool = True) -> SSAValue | Operation:
        loc = self.source.location(self.node)
        op.location = FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.col))
        try:
            if verify:
                op.verify_()
        except VerifyException as e:
            raise self.error(f"'{op.name}' {e}") from None
        self.block.add_op(op)
        return op.results[0] if len(op.results) == 1 else op

    def constant(self, value, dtype, shape: Sequence[int] = ()) -> SSAValue:
        """A dense tensor constant: a splat of ``value`` or an array of ``shape``."""
        array = np.asarray(value, dtype=dtype)
        t = TensorType(element_type(array.dtype), tuple(shape) if array.ndim == 0 else array.shape)
        values = [array.item()] if array.ndim == 0 else array.ravel().tolist()
        return self.emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, values)))

    def index(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp.from_int_and_width(value, IndexType()))

    # ---------------------------------------------------------------- values
    def as_tensor(self, v, dtype=None) -> SSAValue:
        """A run-time tensor for ``v`` (a tensor, an index scalar or a compile-time value)."""
        if isinstance(v, SSAValue):
            if isinstance(v.type, IndexType):
                v = self.emit(arith.IndexCastOp(v, i64))
            if not isinstance(v.type, TensorType):  # a scalar: an index, an arith.cmpi result
                v = self.emit(tensor.FromElementsOp(v, result_type=TensorType(v.type, ())))
            return v if dtype is None else self.convert(v, dtype)
        if isinstance(v, bool | int | float | np.ndarray | np.generic):
            if dtype is None:
                dtype = np.asarray(v).dtype
                if dtype == np.dtype(np.int64) and isinstance(v, int) and not isinstance(v, bool):
                    dtype = np.int64
            return self.constant(v, dtype, np.shape(v))
        raise self.error(f"expected a tensor or a number, got {type(v).__name__} {v!r}")

    def convert(self, v: SSAValue, dtype) -> SSAValue:
        et = element_type(dtype)
        if v.type.element_type == et:
            return v
        return self.emit(tensor.ConvertOp(v, et))

    def index_value(self, v) -> SSAValue:
        """An ``index`` scalar from a compile-time int, a loop variable or a 0-d integer tensor."""
        if isinstance(v, bool) or isinstance(v, float):
            raise self.error(f"expected an integer index, got {v!r}")
        if isinstance(v, int | np.integer):
            return self.index(int(v))
        if isinstance(v, SSAValue):
            if isinstance(v.type, IndexType):
                return v
            if isinstance(v.type, TensorType) and v.type.get_shape() == () and isinstance(v.type.element_type, IntegerType):
                s = self.emit(tensor.ExtractOp(v, [], v.type.element_type))
                return self.emit(arith.IndexCastOp(s, IndexType()))
        raise self.error("expected an integer index (a Python int or a 0-d integer tensor)")

    def condition(self, v) -> SSAValue:
        """The ``i1`` scalar of a 0-d tensor used as a condition."""
        if isinstance(v, SSAValue) and v.type == i1:
            return v
        v = self.as_tensor(v)
        if shape_of(v) != ():
            raise self.error(f"the condition must be a single value (a 0-d tensor), got a tensor of shape {shape_of(v)}; "
                             "use inp.any / inp.all or index it")
        if v.type.element_type != i1:
            zero = self.constant(0, dtype_of(v))
            v = self.emit(tensor.CmpOp("ne", v, zero))
        return self.emit(tensor.ExtractOp(v, [], i1))

    # ---------------------------------------------------------------- broadcasting
    def result_dtype(self, *vals) -> np.dtype:
        """numpy's promotion with Python scalars weak (a float32 tensor times 0.5 stays float32)."""
        vals = [(0.0 if dtype_of(v).kind == "f" else 0) if isinstance(v, SSAValue) and v in self.weak
                else 0 if isinstance(v, SSAValue) and isinstance(v.type, IndexType)  # a loop index: a Python int
                else v for v in vals]
        tensors = [dtype_of(v) for v in vals if isinstance(v, SSAValue) and isinstance(v.type, TensorType)]
        scalars = [v for v in vals if not isinstance(v, SSAValue)]
        if not tensors:
            return np.result_type(*[np.asarray(s).dtype for s in scalars])
        dt = np.result_type(*tensors)
        for s in scalars:
            if isinstance(s, float) and dt.kind in "biu":
                dt = np.dtype(np.float64)
            elif isinstance(s, int) and not isinstance(s, bool) and dt.kind == "b":
                dt = np.dtype(np.int64)
            elif isinstance(s, np.ndarray | np.generic):
                dt = np.result_type(dt, s.dtype)
        return dt

    def broadcast_shape(self, *shapes: Sequence[int]) -> tuple[int, ...]:
        try:
            return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
        except ValueError:
            raise self.error("shapes " + " and ".join(str(tuple(s)) for s in shapes)
                             + " do not broadcast together") from None

    def broadcast_to(self, v: SSAValue, shape: Sequence[int]) -> SSAValue:
        src = shape_of(v)
        shape = tuple(shape)
        if src == shape:
            return v
        offset = len(shape) - len(src)
        if offset < 0:
            raise self.error(f"cannot broadcast a tensor of shape {src} to {shape}")
        return self.emit(tensor.BroadcastOp(v, list(range(offset, len(shape))),
                                            TensorType(v.type.element_type, shape)))

    def operands(self, *vals, dtype=None) -> list[SSAValue]:
        """``vals`` as tensors of one element type and one (broadcast) shape."""
        dtype = dtype or self.result_dtype(*vals)
        ts = [self.as_tensor(v, dtype) for v in vals]
        shape = self.broadcast_shape(*[shape_of(t) for t in ts])
        return [self.broadcast_to(t, shape) for t in ts]
