"""`scf` with upstream MLIR's syntax and checks, on xDSL 0.74's classes.

Each class is a subclass of xDSL's (so xDSL's patterns, the interpreter and
`convert-scf-to-loop` take it as xDSL's op); what changes:

- `scf.if %c -> f32 {...}`: one result type without parentheses; an `scf.if`
  with results needs an else region; its regions take no arguments;
- `scf.while : () -> () {...} do {...}`: a while without loop-carried values;
- `scf.parallel (%i) = (%lb) to (%ub) step (%s) init (%x) -> f32 {...}`: the
  custom form (xDSL 0.74 prints and parses only the generic one).
"""

from __future__ import annotations

from xdsl.dialects import scf as _xscf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Block, Dialect, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from irtoolkit.dialects import loop
from irtoolkit.dialects.loop import check_no_region_arguments, parse_optional_result_types


class IfOp(_xscf.IfOp):
    """`scf.if %c [-> types] {...} [else {...}]`."""

    @classmethod
    def parse(cls, parser: Parser):
        cond = parser.parse_operand(IntegerType(1))
        types = parse_optional_result_types(parser)
        then_region = cls.parse_region_with_yield(parser)
        else_region = cls.parse_region_with_yield(parser) if parser.parse_optional_keyword("else") else Region()
        attrs = parser.parse_optional_attr_dict()
        op = cls(cond, types, then_region, else_region)
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        super().verify_()
        if self.output and not self.false_region.blocks:
            raise VerifyException("must have an else block if defining values")
        check_no_region_arguments(self)


class WhileOp(_xscf.WhileOp):
    """`scf.while [(%a = %init, ...)] : (types) -> (types) {...} do {...}`."""

    @classmethod
    def parse(cls, parser: Parser):
        if parser.parse_optional_punctuation(":") is None:
            return super().parse(parser)
        # no loop-carried values: the argument list is left out, as upstream prints it
        types = parser.parse_function_type()
        if types.inputs.data:
            parser.raise_error(f"expected as many input types as operands (expected 0 got {len(types.inputs.data)})")
        before = parser.parse_region(())
        parser.parse_characters("do")
        after = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls((), types.outputs.data, before, after)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.arguments:
            return super().print(printer)
        printer.print_string(" : () -> (")
        printer.print_list(self.res.types, printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


class ParallelOp(_xscf.ParallelOp):
    """`scf.parallel (%i, ...) = (%lb, ...) to (%ub, ...) step (%s, ...) [init (%x, ...) -> types] {...}`.

    The custom form is loop.parallel's (same fields); a body without a
    terminator gets the empty `scf.reduce`, as upstream's parser adds it.
    """

    print = loop.ParallelOp.print

    @classmethod
    def parse(cls, parser: Parser):
        op = loop.ParallelOp.parse.__func__(cls, parser)
        if not op.body.blocks:
            op.body.add_block(Block([], arg_types=[IndexType()] * len(op.lowerBound)))
        block = op.body.block
        if not isinstance(block.last_op, _xscf.ReduceOp):
            block.add_op(_xscf.ReduceOp())
        return op


_OVERRIDES = (IfOp, WhileOp, ParallelOp)
_REPLACED = {cls.name for cls in _OVERRIDES}

Scf = Dialect(
    "scf",
    [*(op for op in _xscf.Scf.operations if op.name not in _REPLACED), *_OVERRIDES],
    list(_xscf.Scf.attributes),
)
