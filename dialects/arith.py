"""`arith` as upstream MLIR defines it, on xDSL 0.74's classes.

xDSL's `arith` is loaded with these changes (each class a subclass of xDSL's,
so xDSL's patterns and every `isinstance` check still match):

- casts, compares and `select` take vectors and tensors elementwise
  (`arith.extui %a : vector<8xi32> to vector<8xi64>`, `arith.cmpi` on tensors
  gives a tensor of i1, `arith.select %m, %a, %b : tensor<8xi1>, tensor<8xi32>`);
  xDSL 0.74 takes scalars only;
- their verifiers say what upstream's say ("operand type 'f32' and result type
  'f16' are cast incompatible", "requires the same shape for all operands and
  results");
- `arith.remf` and `arith.index_castui`, which xDSL 0.74 lacks.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _xa
from xdsl.dialects.builtin import (
    AnyFloat,
    FixedBitwidthType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
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

_SHAPED = (VectorType, TensorType)


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, _SHAPED) else t


def with_element(t: Attribute, element: Attribute) -> Attribute:
    """The type of the shape of ``t`` with ``element`` elements (``element`` if t is scalar)."""
    if isinstance(t, TensorType):
        return TensorType(element, t.get_shape(), t.encoding)
    if isinstance(t, VectorType):
        return VectorType(element, t.get_shape(), t.scalable_dims)
    return element


def _is_signless_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS


def _is_int_like(t: Attribute) -> bool:
    return _is_signless_int(t) or isinstance(t, IndexType)


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _shape_key(t: Attribute):
    if isinstance(t, VectorType):
        return ("vector", tuple(t.get_shape()), t.scalable_dims)
    if isinstance(t, TensorType):
        return ("tensor", len(t.get_shape()))
    return ("scalar",)


def check_same_shape(op: Operation, types: list[Attribute]) -> None:
    """Upstream's SameOperandsAndResultShape plus the tensor-dimensions rule of casts."""
    keys = {_shape_key(t) for t in types}
    if len(keys) > 1:
        if all(isinstance(t, TensorType) for t in types):
            raise VerifyException("failed to verify that input and output have the same tensor dimensions")
        raise VerifyException("requires the same shape for all operands and results")
    tensors = [t for t in types if isinstance(t, TensorType)]
    if tensors and len({tuple(t.get_shape()) for t in tensors}) > 1:
        raise VerifyException("failed to verify that input and output have the same tensor dimensions")


_KIND_TEXT = {
    "int": "signless-fixed-width-integer-like",
    "float": "floating-point-like",
    "int_or_index": "signless-integer-like or memref of signless-integer",
    "bitcastable": "signless-integer-or-float-like or memref of signless-integer or float",
}
_KIND_TEST = {
    "int": _is_signless_int,
    "float": _is_float,
    "int_or_index": _is_int_like,
    "bitcastable": lambda t: _is_signless_int(t) or _is_float(t),
}


def _check_kind(t: Attribute, kind: str, what: str) -> None:
    inner = t.get_element_type() if isinstance(t, (*_SHAPED, MemRefType)) else t
    if not _KIND_TEST[kind](inner):
        raise VerifyException(f"{what} must be {_KIND_TEXT[kind]}, but got '{t}'")


class _Cast:
    """Shared verification of the elementwise casts (a mixin before the xDSL class)."""

    SOURCE: ClassVar[str]
    RESULT: ClassVar[str]

    def compatible(self, src: Attribute, dst: Attribute) -> bool:
        raise NotImplementedError

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        _check_kind(src, self.SOURCE, "operand #0")
        _check_kind(dst, self.RESULT, "result #0")
        check_same_shape(self, [src, dst])
        encodings = {t.encoding for t in (src, dst) if isinstance(t, TensorType)}
        if len(encodings) > 1 or not self.compatible(_element(src), _element(dst)):
            raise VerifyException(f"operand type '{src}' and result type '{dst}' are cast incompatible")


def _width(t: Attribute) -> int:
    return t.bitwidth if isinstance(t, FixedBitwidthType) else 64


def _cast(xdsl_cls, source: str, result: str, compatible):
    """A subclass of ``xdsl_cls`` taking any operand type, checked by ``_Cast.verify_``."""
    body = {
        "__module__": __name__,
        "input": operand_def(AnyAttr()),
        "result": result_def(AnyAttr()),
        "SOURCE": source,
        "RESULT": result,
        "compatible": lambda self, a, b: compatible(a, b),
        "__annotations__": {"SOURCE": ClassVar[str], "RESULT": ClassVar[str]},
        # the assembly format is re-derived for the new operand definitions
        "print": Operation.print,
        "parse": classmethod(Operation.parse.__func__),
    }
    return irdl_op_definition(type(xdsl_cls.__name__, (_Cast, xdsl_cls), body))


ExtUIOp = _cast(_xa.ExtUIOp, "int", "int", lambda a, b: a.bitwidth < b.bitwidth)
ExtSIOp = _cast(_xa.ExtSIOp, "int", "int", lambda a, b: a.bitwidth < b.bitwidth)
TruncIOp = _cast(_xa.TruncIOp, "int", "int", lambda a, b: a.bitwidth > b.bitwidth)
ExtFOp = _cast(_xa.ExtFOp, "float", "float", lambda a, b: a.bitwidth < b.bitwidth)
TruncFOp = _cast(_xa.TruncFOp, "float", "float", lambda a, b: a.bitwidth > b.bitwidth)
SIToFPOp = _cast(_xa.SIToFPOp, "int", "float", lambda a, b: True)
UIToFPOp = _cast(_xa.UIToFPOp, "int", "float", lambda a, b: True)
FPToSIOp = _cast(_xa.FPToSIOp, "float", "int", lambda a, b: True)
FPToUIOp = _cast(_xa.FPToUIOp, "float", "int", lambda a, b: True)
# exactly one side is index
IndexCastOp = _cast(_xa.IndexCastOp, "int_or_index", "int_or_index",
                    lambda a, b: isinstance(a, IndexType) != isinstance(b, IndexType))
BitcastOp = _cast(_xa.BitcastOp, "bitcastable", "bitcastable", lambda a, b: _width(a) == _width(b))


@irdl_op_definition
class IndexCastUIOp(_Cast, IRDLOperation):
    """`arith.index_castui`: as `index_cast`, zero-extending (xDSL 0.74 lacks it)."""

    name = "arith.index_castui"
    input = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"
    SOURCE: ClassVar[str] = "int_or_index"
    RESULT: ClassVar[str] = "int_or_index"

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def compatible(self, a: Attribute, b: Attribute) -> bool:
        return isinstance(a, IndexType) != isinstance(b, IndexType)


@irdl_op_definition
class RemFOp(_xa.FloatingPointLikeBinaryOperation):
    """`arith.remf`: the remainder of float division, with the sign of the dividend (C `fmod`)."""

    name = "arith.remf"


def _compare_result_type(operand_type: Attribute) -> Attribute:
    return with_element(operand_type, IntegerType(1))


def _verify_compare(op: Operation, kind: str, kind_text: str, cases: int) -> None:
    predicate = op.predicate.value.data
    if not 0 <= predicate < cases:
        raise VerifyException(
            "attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: "
            + ", ".join(str(i) for i in range(cases))
        )
    lhs, rhs = op.lhs.type, op.rhs.type
    if lhs != rhs:
        raise VerifyException("requires all operands to have the same type")
    if not _KIND_TEST[kind](_element(lhs)):
        raise VerifyException(f"'lhs' must be {kind_text}, but got '{lhs}'")
    res = op.result.type
    if not (isinstance(_element(res), IntegerType) and _element(res).width.data == 1):
        raise VerifyException(f"result #0 must be bool-like, but got '{res}'")
    if res != _compare_result_type(lhs):
        raise VerifyException("failed to verify that result type has i1 element type and same shape as operands")


def _init_compare(op, lhs, rhs, predicate: int | str, mnemonics: list[str], properties: dict) -> None:
    lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
    if isinstance(predicate, str):
        if predicate not in mnemonics:
            raise VerifyException(
                "expected string or keyword containing one of the following enum values for attribute "
                f"'predicate' [{', '.join(mnemonics)}]"
            )
        predicate = mnemonics.index(predicate)
    IRDLOperation.__init__(
        op,
        operands=[lhs, rhs],
        result_types=[_compare_result_type(lhs.type)],
        properties={"predicate": IntegerAttr(predicate, 64), **properties},
    )


def _parse_compare(cls, parser: Parser, build):
    pred = parser.parse_identifier()
    parser.parse_punctuation(",")
    a = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    b = parser.parse_unresolved_operand()
    extra = build(parser)
    parser.parse_punctuation(":")
    t = parser.parse_type()
    a, b = parser.resolve_operands([a, b], [t, t], parser.pos)
    return cls(a, b, pred, *extra)


@irdl_op_definition
class CmpiOp(_xa.CmpiOp):
    """`arith.cmpi` on integers, or elementwise on vectors and tensors of them."""

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, operand1, operand2, arg: int | str):
        _init_compare(self, operand1, operand2, arg, _xa.CMPI_COMPARISON_OPERATIONS, {})

    @classmethod
    def parse(cls, parser: Parser):
        return _parse_compare(cls, parser, lambda p: ())

    def verify_(self) -> None:
        _verify_compare(self, "int_or_index", "signless-integer-like", len(_xa.CMPI_COMPARISON_OPERATIONS))


@irdl_op_definition
class CmpfOp(_xa.CmpfOp):
    """`arith.cmpf` on floats, or elementwise on vectors and tensors of them."""

    predicate = prop_def(IntegerAttr)
    fastmath = prop_def(_xa.FastMathFlagsAttr, default_value=_xa.FastMathFlagsAttr("none"))
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, operand1, operand2, arg: int | str, fastmath=_xa.FastMathFlagsAttr("none")):
        _init_compare(self, operand1, operand2, arg, _xa.CMPF_COMPARISON_OPERATIONS, {"fastmath": fastmath})

    @classmethod
    def parse(cls, parser: Parser):
        def fastmath(p: Parser):
            if p.parse_optional_keyword("fastmath"):
                return (_xa.FastMathFlagsAttr(_xa.FastMathFlagsAttr.parse_parameter(p)),)
            return ()

        return _parse_compare(cls, parser, fastmath)

    def verify_(self) -> None:
        _verify_compare(self, "float", "floating-point-like", len(_xa.CMPF_COMPARISON_OPERATIONS))


@irdl_op_definition
class SelectOp(_xa.SelectOp):
    """`arith.select` with an i1 condition, or elementwise with a vector or tensor of i1.

    Custom form as upstream: `: type` for a scalar condition, `: cond-type, type` otherwise.
    """

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(AnyAttr())
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser):
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        cond_t = IntegerType(1)
        if parser.parse_optional_punctuation(","):
            cond_t, t = t, parser.parse_type()
        (c,) = parser.resolve_operands([c], [cond_t], parser.pos)
        a, b = parser.resolve_operands([a, b], [t, t], parser.pos)
        op = cls(c, a, b)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.cond, self.lhs, self.rhs], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.cond.type != IntegerType(1):
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        c, t = self.cond.type, self.result.type
        if c == IntegerType(1):
            return
        if not isinstance(c, _SHAPED) or _element(c) != IntegerType(1):
            raise VerifyException(f"operand #0 must be bool-like, but got '{c}'")
        if type(c) is not type(t) or c.get_shape() != t.get_shape():
            raise VerifyException("failed to verify that condition is signless i1 or has matching shape")
        if isinstance(c, TensorType) and c.encoding != t.encoding:
            raise VerifyException("expected condition type to have the same shape as the result type")


_OVERRIDES = (ExtUIOp, ExtSIOp, TruncIOp, ExtFOp, TruncFOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp,
              IndexCastOp, BitcastOp, CmpiOp, CmpfOp, SelectOp)
_REPLACED = {cls.name for cls in _OVERRIDES}

Arith = Dialect(
    "arith",
    [*(op for op in _xa.Arith.operations if op.name not in _REPLACED), *_OVERRIDES, RemFOp, IndexCastUIOp],
    list(_xa.Arith.attributes),
    list(_xa.Arith.interfaces) if hasattr(_xa.Arith, "interfaces") else [],
)
