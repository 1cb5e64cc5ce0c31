"""`math` as upstream MLIR defines it: xDSL 0.74's ops plus the ones it lacks.

Added, with upstream's syntax (scalars, or elementwise on vectors and tensors):

- `%s, %c = math.sincos %x : f32` (sine and cosine);
- `%r = math.clampf %x to [%lo, %hi] : f32` (`min(max(x, lo), hi)`, NaN propagates);
- `%b = math.isfinite %x : f32`, `isinf`, `isnan`, `isnormal` (i1, or i1 of the
  operand's shape).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import math as _xm
from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from irtoolkit.dialects.arith import with_element

_float_like = _xm.floatingPointLike


@irdl_op_definition
class SinCosOp(IRDLOperation):
    """`%s, %c = math.sincos %x : f32`: the sine and the cosine of `x`."""

    name = "math.sincos"
    T: ClassVar = VarConstraint("T", _float_like)
    operand = operand_def(T)
    sin = result_def(T)
    cos = result_def(T)
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))
    traits = traits_def(Pure())
    assembly_format = "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($operand)"

    def __init__(self, operand: Operation | SSAValue, fastmath: FastMathFlagsAttr | None = None):
        operand = SSAValue.get(operand)
        super().__init__(operands=[operand], result_types=[operand.type, operand.type],
                         properties={"fastmath": fastmath})


@irdl_op_definition
class ClampFOp(IRDLOperation):
    """`%r = math.clampf %x to [%lo, %hi] : f32`: `min(max(x, lo), hi)`, NaN in, NaN out."""

    name = "math.clampf"
    T: ClassVar = VarConstraint("T", _float_like)
    value = operand_def(T)
    min = operand_def(T)
    max = operand_def(T)
    result = result_def(T)
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))
    traits = traits_def(Pure())
    assembly_format = (
        "$value `to` ` ` `[` $min `,` $max `]` (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"
    )

    def __init__(self, value, lo, hi, fastmath: FastMathFlagsAttr | None = None):
        value = SSAValue.get(value)
        super().__init__(operands=[value, lo, hi], result_types=[value.type],
                         properties={"fastmath": fastmath})


class _FPClassOp(IRDLOperation):
    """A floating-point class test: i1 per element, of the operand's shape."""

    operand = operand_def(_float_like)
    result = result_def()
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))
    traits = traits_def(Pure())

    def __init__(self, operand: Operation | SSAValue, fastmath: FastMathFlagsAttr | None = None):
        operand = SSAValue.get(operand)
        super().__init__(operands=[operand], result_types=[with_element(operand.type, IntegerType(1))],
                         properties={"fastmath": fastmath})

    @classmethod
    def parse(cls, parser: Parser):
        x = parser.parse_unresolved_operand()
        fastmath = None
        if parser.parse_optional_keyword("fastmath"):
            fastmath = FastMathFlagsAttr(FastMathFlagsAttr.parse_parameter(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        (x,) = parser.resolve_operands([x], [parser.parse_type()], parser.pos)
        op = cls(x, fastmath)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        if self.fastmath != FastMathFlagsAttr("none"):
            printer.print_string(" fastmath")
            self.fastmath.print_parameter(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)

    def verify_(self) -> None:
        want = with_element(self.operand.type, IntegerType(1))
        if self.result.type != want:
            raise VerifyException(f"result type {self.result.type} should be {want}")


@irdl_op_definition
class IsFiniteOp(_FPClassOp):
    """`math.isfinite %x : f32`: neither infinite nor NaN."""

    name = "math.isfinite"


@irdl_op_definition
class IsInfOp(_FPClassOp):
    """`math.isinf %x : f32`: +inf or -inf."""

    name = "math.isinf"


@irdl_op_definition
class IsNaNOp(_FPClassOp):
    """`math.isnan %x : f32`."""

    name = "math.isnan"


@irdl_op_definition
class IsNormalOp(_FPClassOp):
    """`math.isnormal %x : f32`: finite, non-zero and not subnormal."""

    name = "math.isnormal"


FP_CLASS_OPS = (IsFiniteOp, IsInfOp, IsNaNOp, IsNormalOp)


Math = Dialect(
    "math",
    [*_xm.Math.operations, SinCosOp, ClampFOp, *FP_CLASS_OPS],
    list(_xm.Math.attributes),
)
