"""`cf` as upstream MLIR defines it: xDSL 0.74's ops, `cf.cond_br` with branch weights.

`cf.cond_br %c weights([60, 40]), ^bb1, ^bb2` carries upstream's optional
`branch_weights` (a hint to the code generator; the lowering drops it). The
class is a subclass of xDSL's, so every `isinstance` check still matches.
"""

from __future__ import annotations

from xdsl.dialects import cf as _xcf
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, i32
from xdsl.ir import Block, Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    successor_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
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


Cf = Dialect(
    "cf",
    [*(op for op in _xcf.Cf.operations if op.name != ConditionalBranchOp.name), ConditionalBranchOp],
    list(_xcf.Cf.attributes),
)
