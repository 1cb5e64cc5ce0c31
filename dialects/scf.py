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
    """`scf.parallel (%i, ...) = (%lb, ...) to (%ub, ...) step (%s, ...) [init (%x, ...) -> types] {...}`."""

    @classmethod
    def parse(cls, parser: Parser):
        ivs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")

        def bounds():
            pos = parser.pos
            values = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            if len(values) != len(ivs):
                parser.raise_error(f"expected {len(ivs)} operands", pos, parser.pos)
            return parser.resolve_operands(values, [IndexType()] * len(values), pos)

        lower = bounds()
        parser.parse_characters("to")
        upper = bounds()
        parser.parse_characters("step")
        steps = bounds()
        inits = []
        if parser.parse_optional_keyword("init"):
            inits = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        pos = parser.pos
        types = parse_optional_result_types(parser)
        if len(types) != len(inits):
            parser.raise_error(
                f"number of operands and types do not match: got {len(inits)} operands and {len(types)} types",
                pos, parser.pos,
            )
        inits = parser.resolve_operands(inits, types, pos)
        body = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
        if not body.blocks:
            body.add_block(Block())
        block = body.block
        if block.last_op is None or not isinstance(block.last_op, _xscf.ReduceOp):
            block.add_op(_xscf.ReduceOp())
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(lower, upper, steps, body, inits)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        block = self.body.block
        printer.print_string(" (")
        printer.print_list(block.args, printer.print_operand)
        printer.print_string(") = (")
        printer.print_list(self.lowerBound, printer.print_operand)
        printer.print_string(") to (")
        printer.print_list(self.upperBound, printer.print_operand)
        printer.print_string(") step (")
        printer.print_list(self.step, printer.print_operand)
        printer.print_string(")")
        if self.initVals:
            printer.print_string(" init (")
            printer.print_list(self.initVals, printer.print_operand)
            printer.print_string(") -> (")
            printer.print_list(self.res.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        last = block.last_op
        elide = isinstance(last, _xscf.ReduceOp) and not last.args and not last.regions
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=not elide)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


_OVERRIDES = (IfOp, WhileOp, ParallelOp)
_REPLACED = {cls.name for cls in _OVERRIDES}

Scf = Dialect(
    "scf",
    [*(op for op in _xscf.Scf.operations if op.name not in _REPLACED), *_OVERRIDES],
    list(_xscf.Scf.attributes),
)
