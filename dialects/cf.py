"""`cf` as upstream MLIR defines it: xDSL 0.74's ops, `cf.cond_br` with branch weights,
`cf.switch` with upstream's parse errors.

`cf.cond_br %c weights([60, 40]), ^bb1, ^bb2` carries upstream's optional
`branch_weights` (a hint to the code generator; the lowering drops it). The
class is a subclass of xDSL's, so every `isinstance` check still matches.
"""

from __future__ import annotations

from xdsl.dialects import cf as _xcf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntElementsAttr,
    IndexType,
    IndexTypeConstr,
    IntegerType,
    SignlessIntegerConstraint,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Block, Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_successor_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException


def _parse_destination(parser: Parser) -> tuple[Block, list[UnresolvedOperand], list]:
    block = parser.parse_successor()
    args: list[UnresolvedOperand] = []
    types: list = []
    if parser.parse_optional_punctuation("("):
        args = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
    return block, args, types


def _print_destination(printer: Printer, block: Block, args) -> None:
    printer.print_block_name(block)
    if args:
        printer.print_string("(")
        printer.print_list(args, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([a.type for a in args], printer.print_attribute)
        printer.print_string(")")


@irdl_op_definition
class ConditionalBranchOp(_xcf.ConditionalBranchOp):
    """`cf.cond_br %c [weights([t, e])], ^then[(args : types)], ^else[(args : types)]`."""

    cond = operand_def(IntegerType(1))
    then_arguments = var_operand_def()
    else_arguments = var_operand_def()
    branch_weights = opt_prop_def(DenseArrayBase)  # the segment sizes come from xDSL's irdl_options
    then_block = successor_def()
    else_block = successor_def()
    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser):
        cond = parser.parse_unresolved_operand()
        weights = None
        if parser.parse_optional_keyword("weights"):
            parser.parse_punctuation("(")
            values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            parser.parse_punctuation(")")
            weights = DenseArrayBase.from_list(i32, values)
        parser.parse_punctuation(",")
        then_block, then_args, then_types = _parse_destination(parser)
        parser.parse_punctuation(",")
        else_block, else_args, else_types = _parse_destination(parser)
        attrs = parser.parse_optional_attr_dict()
        (cond,) = parser.resolve_operands([cond], [IntegerType(1)], parser.pos)
        then_ops = parser.resolve_operands(then_args, then_types, parser.pos)
        else_ops = parser.resolve_operands(else_args, else_types, parser.pos)
        op = cls(cond, then_block, then_ops, else_block, else_ops)
        if weights is not None:
            op.properties["branch_weights"] = weights
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        if self.branch_weights is not None:
            printer.print_string(" weights([")
            printer.print_list(self.branch_weights.get_values(), lambda v: printer.print_string(str(v)))
            printer.print_string("])")
        printer.print_string(", ")
        _print_destination(printer, self.then_block, self.then_arguments)
        printer.print_string(", ")
        _print_destination(printer, self.else_block, self.else_arguments)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.branch_weights is None:
            return
        weights = self.branch_weights.get_values()
        if len(weights) != 2:
            raise VerifyException(
                f"expects number of branch weights to match number of successors: {len(weights)} vs 2"
            )
        if not any(weights):
            raise VerifyException("branch weights cannot all be zero")


def _end_of_previous_line(text: str, pos: int) -> int:
    """``pos``, or the end of the last code line before it when ``pos`` starts a line."""
    start = text.rfind("\n", 0, pos) + 1
    if text[start:pos].strip():
        return pos
    while start > 0:
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        code = text[start:end].split("//")[0].rstrip()
        if code:
            return start + len(code)
    return pos


def _case_value_fits(value: int, flag_type: Attribute) -> bool:
    width = 64 if isinstance(flag_type, IndexType) else flag_type.width.data
    return -(1 << (width - 1)) <= value < (1 << width)  # signed or unsigned, as upstream's APInt


@irdl_op_definition
class SwitchOp(_xcf.SwitchOp):
    """`cf.switch %flag : i32, [default: ^bb0(%a : i32), 42: ^bb1, ...]`: xDSL's op, parsed
    with upstream's errors (a case value that is not an integer, or out of the flag's range)."""

    case_values = opt_prop_def(DenseIntElementsAttr)
    flag = operand_def(IndexTypeConstr | SignlessIntegerConstraint)
    default_operands = var_operand_def()
    case_operands = var_operand_def()
    case_operand_segments = prop_def(DenseArrayBase.constr(i32))
    default_block = successor_def()
    case_blocks = var_successor_def()
    traits = traits_def(IsTerminator(), Pure(), _xcf.SwitchOpHasCanonicalizationPatterns())
    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser):
        flag = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        flag_type = parser.parse_type()
        if not isinstance(flag_type, IntegerType | IndexType):
            parser.raise_error(f"expected a signless integer or index flag type, got {flag_type}", type_pos, parser.pos)
        parser.parse_punctuation(",")
        parser.parse_punctuation("[")
        parser.parse_keyword("default")
        parser.parse_punctuation(":")
        default = _parse_destination(parser)
        cases = []
        while parser.parse_optional_punctuation(","):
            pos = parser.pos
            value = parser.parse_optional_integer(allow_boolean=False)
            if value is None:
                parser.raise_error("expected integer value", pos)
            if not _case_value_fits(value, flag_type):
                parser.raise_error(f"case value is out of range for '{flag_type}'", pos, parser.pos)
            parser.parse_punctuation(":")
            cases.append((value, *_parse_destination(parser)))
        if not parser.parse_optional_punctuation("]"):
            # as mlir-opt, at the end of the last case when the next token starts a line
            parser.raise_error("expected ']'", _end_of_previous_line(parser.lexer.input.content, parser.pos))
        attrs = parser.parse_optional_attr_dict()
        (flag,) = parser.resolve_operands([flag], [flag_type], parser.pos)
        values = None
        if cases:
            try:
                values = DenseIntElementsAttr.from_list(VectorType(flag_type, (len(cases),)), [c[0] for c in cases])
            except NotImplementedError:  # xDSL 0.74 stores dense integers of 1, 8, 16, 32 and 64 bits only
                parser.raise_error(f"case values of type '{flag_type}' are not supported "
                                   "(integers of 1, 8, 16, 32 or 64 bits, or index)", type_pos)
        return cls(flag, default[0], parser.resolve_operands(default[1], default[2], parser.pos), values,
                   [c[1] for c in cases], [parser.resolve_operands(c[2], c[3], parser.pos) for c in cases],
                   attrs or None)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.flag)
        printer.print_string(" : ")
        printer.print_attribute(self.flag.type)
        printer.print_string(", [")
        values = self.case_values.get_values() if self.case_values is not None else ()
        entries = [("default", self.default_block, self.default_operands),
                   *zip(values, self.case_blocks, self.case_operand)]
        with printer.indented():
            for i, (label, block, args) in enumerate(entries):
                printer.print_string("," if i else "")
                printer._print_new_line()
                printer.print_string(f"{label}: ")
                _print_destination(printer, block, args)
        printer._print_new_line()
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)


Cf = Dialect(
    "cf",
    [*(op for op in _xcf.Cf.operations if op.name not in (ConditionalBranchOp.name, SwitchOp.name)),
     ConditionalBranchOp, SwitchOp],
    list(_xcf.Cf.attributes),
)
