"""`func` as upstream MLIR defines it: xDSL 0.74's ops plus function values.

xDSL 0.74 has `func.func`, `func.call` and `func.return`; upstream also has
`func.constant`, which names a function as an SSA value, and
`func.call_indirect`, which calls such a value:

    %f = func.constant @square : (f32) -> f32
    %y = func.call_indirect %f(%x) : (f32) -> f32

The interpreter runs both; the LLVM lowering and the `ad` pass do not take
them (a located error names the op).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func as _xfunc
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FlatSymbolRefAttrConstr, FunctionType, SymbolRefAttr
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

FuncOp = _xfunc.FuncOp
CallOp = _xfunc.CallOp
ReturnOp = _xfunc.ReturnOp


class _ConstantSymbolUse(SymbolUserOpInterface):
    """The function exists and has the value's type (upstream's wording)."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, ConstantOp)
        name = op.value.root_reference.data
        callee = SymbolTable.lookup_symbol(op, op.value)
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"reference to undefined function '{name}'")
        if callee.function_type != op.result.type:
            raise VerifyException(f"reference to function with mismatched type: '@{name}' is "
                                  f"{callee.function_type}, the value {op.result.type}")


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%f = func.constant @fn : (f32) -> f32`: the function `@fn` as a value, of its
    function type (for `func.call_indirect`)."""

    name = "func.constant"

    value = prop_def(FlatSymbolRefAttrConstr)
    result = result_def(FunctionType)

    traits = traits_def(Pure(), _ConstantSymbolUse())

    def __init__(self, callee: str | SymbolRefAttr, function_type: FunctionType):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(properties={"value": callee}, result_types=[function_type])

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        callee = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        function_type = _parse_function_type(parser)
        op = cls(SymbolRefAttr(callee), function_type)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


def _parse_function_type(parser: Parser) -> FunctionType:
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, FunctionType):
        parser.raise_error(f"expected a function type, got {t}", pos, parser.pos)
    return t


@irdl_op_definition
class CallIndirectOp(IRDLOperation):
    """`%r = func.call_indirect %f(%a, %b) : (f32, f32) -> f32`: calls the function
    value `%f`; operands and results are those of its function type."""

    name = "func.call_indirect"

    callee = operand_def(FunctionType)
    callee_operands = var_operand_def()
    results_ = var_result_def()
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])

    def __init__(self, callee: SSAValue | Operation, arguments: Sequence[SSAValue | Operation]):
        function_type = SSAValue.get(callee).type
        assert isinstance(function_type, FunctionType)
        super().__init__(operands=[callee, arguments], result_types=[function_type.outputs.data])

    @classmethod
    def parse(cls, parser: Parser) -> CallIndirectOp:
        callee = parser.parse_unresolved_operand()
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        function_type = _parse_function_type(parser)
        if len(args) != len(function_type.inputs):
            parser.raise_error(f"the callee takes {len(function_type.inputs)} operands, "
                               f"{len(args)} given", pos, parser.pos)
        callee_value = parser.resolve_operand(callee, function_type)
        operands = [parser.resolve_operand(a, t) for a, t in zip(args, function_type.inputs, strict=True)]
        op = cls(callee_value, operands)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.callee)
        printer.print_string("(")
        printer.print_list(self.callee_operands, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.callee.type)

    def verify_(self) -> None:
        function_type = self.callee.type
        assert isinstance(function_type, FunctionType)
        if [a.type for a in self.callee_operands] != list(function_type.inputs):
            raise VerifyException("failed to verify that callee input types match argument types")
        if [r.type for r in self.results] != list(function_type.outputs):
            raise VerifyException("failed to verify that callee result types match result types")


Func = Dialect("func", [*_xfunc.Func.operations, ConstantOp, CallIndirectOp], [*_xfunc.Func.attributes])
