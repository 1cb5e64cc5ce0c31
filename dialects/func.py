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
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
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
from xdsl.traits import HasParent, IsTerminator, Pure, ReturnLike, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

FuncOp = _xfunc.FuncOp


def _quoted(types: Sequence[Attribute]) -> str:
    return ", ".join(f"'{t}'" for t in types)


def _function(op: Operation, ref: SymbolRefAttr, missing: str) -> FuncOp:
    """The `func.func` that ``ref`` names from ``op``; ``missing`` (with the name) if none."""
    callee = SymbolTable.lookup_symbol(op, ref)
    if not isinstance(callee, FuncOp):
        raise VerifyException(missing.format(ref.root_reference.data))
    return callee


class _CallSymbolUse(SymbolUserOpInterface):
    """The callee exists and takes the call's types (upstream's wording and notes)."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        callee = _function(op, op.callee, "'{}' does not reference a valid function")
        inputs, outputs = callee.function_type.inputs.data, callee.function_type.outputs.data
        if len(inputs) != len(op.arguments):
            raise VerifyException("incorrect number of operands for callee")
        for i, (expected, given) in enumerate(zip(inputs, op.arguments.types)):
            if expected != given:
                raise VerifyException(f"operand type mismatch: expected operand type '{expected}', "
                                      f"but provided '{given}' for operand number {i}")
        if len(outputs) != len(op.results):
            raise VerifyException("incorrect number of results for callee")
        for i, (expected, given) in enumerate(zip(outputs, op.result_types)):
            if expected != given:
                err = VerifyException(f"result type mismatch at index {i}")
                err.notes = [f"op result types: {_quoted(op.result_types)}",  # type: ignore[attr-defined]
                             f"function result types: {_quoted(outputs)}"]
                raise err


@irdl_op_definition
class CallOp(_xfunc.CallOp):
    """`%r = func.call @f(%a) : (f32) -> f32`: xDSL's, verified with upstream's words."""

    arguments = var_operand_def()
    callee = prop_def(FlatSymbolRefAttrConstr)
    res = var_result_def()

    traits = traits_def(_CallSymbolUse())

    # xDSL's assembly format, derived again for this class
    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"
    print = Operation.print
    parse = classmethod(Operation.parse.__func__)


@irdl_op_definition
class ReturnOp(_xfunc.ReturnOp):
    """`func.return %a : f32`: xDSL's, verified with upstream's words."""

    arguments = var_operand_def()

    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike())

    # xDSL's assembly format, derived again for this class
    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"
    print = Operation.print
    parse = classmethod(Operation.parse.__func__)

    def verify_(self) -> None:
        func_op = self.parent_op()
        assert isinstance(func_op, FuncOp)
        name = func_op.sym_name.data
        outputs = func_op.function_type.outputs.data
        if len(outputs) != len(self.arguments):
            raise VerifyException(f"has {len(self.arguments)} operands, but enclosing function (@{name}) "
                                  f"returns {len(outputs)}")
        for i, (given, expected) in enumerate(zip(self.arguments.types, outputs)):
            if given != expected:
                raise VerifyException(f"type of return operand {i} ('{given}') doesn't match function result "
                                      f"type ('{expected}') in function @{name}")


def verify_function(op: Operation) -> None:
    """What upstream checks of a `func.func` beyond xDSL: argument and result
    attributes are dialect attributes (their names have a dialect prefix)."""
    assert isinstance(op, FuncOp)
    for what, attrs in (("arguments", op.arg_attrs), ("results", op.res_attrs)):
        for entry in attrs.data if attrs is not None else ():
            if any("." not in key for key in entry.data):
                raise VerifyException(f"{what} may only have dialect attributes")


class _ConstantSymbolUse(SymbolUserOpInterface):
    """The function exists and has the value's type (upstream's wording)."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, ConstantOp)
        name = op.value.root_reference.data
        callee = _function(op, op.value, "reference to undefined function '{}'")
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
        pos = parser.pos
        callee = parser.parse_optional_symbol_name()
        if callee is None:
            parser.raise_error("invalid kind of attribute specified", pos)
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


Func = Dialect("func", [FuncOp, CallOp, ReturnOp, ConstantOp, CallIndirectOp], [*_xfunc.Func.attributes])
