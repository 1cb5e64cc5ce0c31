"""The `loop` dialect: structured control flow, upstream `scf` under the name `loop`.

Same syntax and semantics as MLIR's `scf` (for, if, while/condition, yield,
parallel/reduce/reduce.return), with our own classes and verifiers (xDSL's
`scf` classes hard-code `scf.yield` and accept wrongly typed yields).

Building ops in Python (for passes)
-----------------------------------
Every op has a constructor taking values and regions/blocks; the region-holding
ops also have ``from_callable(s)`` builders that create the blocks, call a
Python function to fill them (inside an ``ImplicitBuilder``, so ops created in
the function are appended to the block) and add the terminator::

    # for with iter_args: body(iv, *iter_args) -> values to yield
    loop_op = ForOp.from_callable(lb, ub, step, [x],
                                  lambda iv, acc: [tensor.TanhOp(acc).result])
    # if with results: then()/else() -> values to yield
    if_op = IfOp.from_callables(cond, [t], lambda: [a], lambda: [b])
    # while: before(*args) -> (condition, forwarded values); after(*args) -> yielded
    w = WhileOp.from_callables([x], [f64], lambda v: (cmp(v), [v]), lambda v: [mul(v)])

Or build the block yourself and pass it::

    body = Block(arg_types=[IndexType(), t])      # induction var + iter args
    body.add_ops([..., YieldOp(new_acc)])
    ForOp(lb, ub, step, [x], body)

A ``ForOp``/``IfOp`` without results whose block lacks a terminator gets an
empty ``loop.yield`` appended, as upstream's implicit terminator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self

from xdsl.dialects.builtin import IndexType, IntegerType, i1
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsTerminator,
    Pure,
    RecursivelySpeculatable,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "Loop",
    "ForOp",
    "IfOp",
    "WhileOp",
    "ConditionOp",
    "YieldOp",
    "ParallelOp",
    "ReduceOp",
    "ReduceReturnOp",
]

_BodyLike = Region | Block | Sequence[Operation] | Sequence[Block]


def _types(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _as_region(body: _BodyLike | None) -> Region:
    if body is None:
        return Region()
    if isinstance(body, Region):
        return body
    if isinstance(body, Block):
        return Region(body)
    body = list(body)
    if body and isinstance(body[0], Block):
        return Region(body)  # type: ignore[arg-type]
    return Region(Block(body))  # type: ignore[arg-type]


def _is_int_like(t: Attribute) -> bool:
    return isinstance(t, IndexType) or (
        isinstance(t, IntegerType) and t.signedness.data.name == "SIGNLESS"
    )


def _add_implicit_yield(region: Region) -> None:
    """Append an empty ``loop.yield`` to a single-block region lacking a terminator."""
    if not region.blocks:
        return
    block = region.blocks.last
    assert block is not None
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator, value_if_unregistered=True):
        block.add_op(YieldOp())


def _fill(block: Block, fn: Callable[..., object]) -> object:
    from xdsl.builder import ImplicitBuilder

    with ImplicitBuilder(block):
        return fn(*block.args)


def _yield_values(result: object) -> list[SSAValue]:
    if result is None:
        return []
    if isinstance(result, (SSAValue, Operation)):
        result = [result]
    return [SSAValue.get(v) for v in result]  # type: ignore[union-attr]


def _parse_assignment_list(parser: Parser) -> tuple[list[Parser.UnresolvedArgument], list[UnresolvedOperand]]:
    """`(` (%arg `=` %value (`,` ...)*)? `)`"""
    args: list[Parser.UnresolvedArgument] = []
    values: list[UnresolvedOperand] = []

    def one() -> None:
        args.append(parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")
        values.append(parser.parse_unresolved_operand())

    parser.parse_comma_separated_list(Parser.Delimiter.PAREN, one)
    return args, values


def _print_assignment_list(printer: Printer, args: Sequence[SSAValue], values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    for i, (a, v) in enumerate(zip(args, values, strict=True)):
        if i:
            printer.print_string(", ")
        printer.print_ssa_value(a)
        printer.print_string(" = ")
        printer.print_ssa_value(v)
    printer.print_string(")")


def _print_generic_tail(printer: Printer, op: Operation) -> None:
    """Print a structurally broken op (say, in an error report) without crashing."""
    printer.print_string(" ")
    printer.print_op_with_default_format(op)


def _terminator_has_operands(region: Region) -> bool:
    block = region.blocks.first
    if block is None:
        return False
    last = block.last_op
    return last is not None and len(last.operands) > 0


# ---------------------------------------------------------------------------
# Canonicalization traits (patterns are at the end of the module)
# ---------------------------------------------------------------------------


class _ForCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        return (ForTrivialTripCount(), ForHoistConstants(), ForRemoveDeadIterArgs())


class _IfCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        return (IfConstantCondition(), IfRemoveUnusedResults())


# ---------------------------------------------------------------------------
# Terminators
# ---------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``loop.yield %a, %b : t1, t2`` — terminates for, if and the `after` region of while."""

    name = "loop.yield"

    arguments = var_operand_def()

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ForOp, IfOp, WhileOp), Pure()))

    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"

    def __init__(self, *operands: SSAValue | Operation):
        super().__init__(operands=[operands])

    def verify_(self) -> None:
        parent = self.parent_op()
        got = [v.type for v in self.arguments]
        if isinstance(parent, ForOp):
            expected = list(parent.iter_args.types)
            what = f"'{parent.name}' loop-carried values"
        elif isinstance(parent, IfOp):
            expected = list(parent.results.types)
            what = f"'{parent.name}' results"
        elif isinstance(parent, WhileOp):
            if self.parent_region() is not parent.after_region:
                raise VerifyException("must terminate the 'after' region of 'loop.while' (use 'loop.condition' in 'before')")
            expected = list(parent.inits.types)
            what = f"'{parent.name}' 'before' region arguments"
        else:  # HasParent reports this case
            return
        if len(got) != len(expected):
            raise VerifyException(
                f"yields {len(got)} values but the {what} are {len(expected)}: "
                f"{_types(got)} vs {_types(expected)}"
            )
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                raise VerifyException(f"type of yielded value #{i} is {g} but the {what} have type {e} there")


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """``loop.condition(%c) %v : f64`` — terminates the `before` region of while.

    When %c is true, the forwarded values become the `after` region arguments;
    otherwise they are the results of the loop.
    """

    name = "loop.condition"

    condition = operand_def(i1)
    args = var_operand_def()

    traits = lazy_traits_def(lambda: (HasParent(WhileOp), IsTerminator(), Pure()))

    assembly_format = "`(` $condition `)` attr-dict ($args^ `:` type($args))?"

    def __init__(self, condition: SSAValue | Operation, *args: SSAValue | Operation):
        super().__init__(operands=[condition, args])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, WhileOp):
            return
        if self.parent_region() is not parent.before_region:
            raise VerifyException("must terminate the 'before' region of 'loop.while'")
        got = [v.type for v in self.args]
        expected = list(parent.res.types)
        if len(got) != len(expected):
            raise VerifyException(
                f"forwards {len(got)} values but 'loop.while' has {len(expected)} results: "
                f"{_types(got)} vs {_types(expected)}"
            )
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                raise VerifyException(f"type of forwarded value #{i} is {g} but 'loop.while' result #{i} has type {e}")


# ---------------------------------------------------------------------------
# loop.for
# ---------------------------------------------------------------------------


@irdl_op_definition
class ForOp(IRDLOperation):
    """``loop.for %i = %lb to %ub step %s iter_args(%a = %x) -> (t) { ... }``

    Operands ``lb``, ``ub``, ``step`` (same index or signless integer type) and
    ``iter_args``; one result per iter arg. The body block takes the induction
    variable then one argument per iter arg, and ends in ``loop.yield`` of the
    next iter values.

    ``ForOp(lb, ub, step, iter_args, body)``: ``body`` is a Block (with the
    arguments already in place), a Region, or ops/blocks. See also
    :meth:`from_callable`.
    """

    name = "loop.for"

    lb = operand_def()
    ub = operand_def()
    step = operand_def()
    iter_args = var_operand_def()

    res = var_result_def()

    body = region_def("single_block")

    traits = traits_def(
        SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect(), _ForCanonicalization()
    )

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        iter_args: Sequence[SSAValue | Operation],
        body: _BodyLike,
        attributes: dict[str, Attribute] | None = None,
    ):
        region = _as_region(body)
        super().__init__(
            operands=[lb, ub, step, iter_args],
            result_types=[[SSAValue.get(a).type for a in iter_args]],
            regions=[region],
            attributes=attributes,
        )
        if not self.iter_args:
            _add_implicit_yield(region)

    @classmethod
    def from_callable(
        cls,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        iter_args: Sequence[SSAValue | Operation],
        body: Callable[..., object],
        attributes: dict[str, Attribute] | None = None,
    ) -> ForOp:
        """Build a loop whose body is filled by ``body(iv, *iter_args)``.

        Ops created inside ``body`` are appended to the loop body; it returns
        the values to yield (a value, a sequence, or None for none).
        """
        iv_type = SSAValue.get(lb).type
        block = Block(arg_types=[iv_type, *(SSAValue.get(a).type for a in iter_args)])
        yielded = _yield_values(_fill(block, body))
        block.add_op(YieldOp(*yielded))
        return cls(lb, ub, step, iter_args, block, attributes)

    @property
    def body_block(self) -> Block:
        return self.body.block

    @property
    def induction_var(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def region_iter_args(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args[1:])

    @property
    def yield_op(self) -> YieldOp:
        op = self.body.block.last_op
        assert isinstance(op, YieldOp)
        return op

    def verify_(self) -> None:
        bound_types = [self.lb.type, self.ub.type, self.step.type]
        for what, t in zip(("lower bound", "upper bound", "step"), bound_types):
            if not _is_int_like(t):
                raise VerifyException(f"{what} must be of index or signless integer type, got {t}")
        if len(set(bound_types)) != 1:
            raise VerifyException(
                "lower bound, upper bound and step must have the same type, got "
                + ", ".join(str(t) for t in bound_types)
            )
        block = self.body.block
        if not block.args:
            raise VerifyException("body block must take the induction variable as its first argument")
        if block.args[0].type != self.lb.type:
            raise VerifyException(
                f"induction variable has type {block.args[0].type} but the bounds have type {self.lb.type}"
            )
        carried = [v.type for v in self.iter_args]
        block_carried = [a.type for a in block.args[1:]]
        if len(block_carried) != len(carried):
            raise VerifyException(
                f"body block has {len(block_carried)} loop-carried arguments but there are "
                f"{len(carried)} iter_args"
            )
        for i, (b, c) in enumerate(zip(block_carried, carried)):
            if b != c:
                raise VerifyException(f"body block argument #{i + 1} has type {b} but iter_arg #{i} has type {c}")
        results = [r.type for r in self.res]
        if results != carried:
            raise VerifyException(
                f"result types {_types(results)} do not match the iter_args types {_types(carried)}"
            )

    def print(self, printer: Printer) -> None:
        if len(self.body.blocks) != 1 or len(self.body.block.args) != 1 + len(self.iter_args):
            return _print_generic_tail(printer, self)
        block = self.body.block
        printer.print_string(" ")
        printer.print_ssa_value(block.args[0])
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        if self.iter_args:
            printer.print_string(" iter_args")
            _print_assignment_list(printer, block.args[1:], self.iter_args)
            printer.print_string(" -> (")
            printer.print_list(self.res.types, printer.print_attribute)
            printer.print_string(")")
        if not isinstance(self.lb.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(self.lb.type)
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=bool(self.iter_args) or _terminator_has_operands(self.body),
        )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        iv = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        args: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        pos = parser.pos
        if parser.parse_optional_keyword("iter_args"):
            args, inits = _parse_assignment_list(parser)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            if len(types) != len(args):
                parser.raise_error(
                    f"expected {len(args)} types for the iter_args, got {len(types)}", pos, parser.pos
                )
        iv_type: Attribute = IndexType()
        if parser.parse_optional_punctuation(":"):
            iv_type = parser.parse_type()
        operands = [parser.resolve_operand(o, iv_type) for o in (lb, ub, step)]
        init_values = [parser.resolve_operand(o, t) for o, t in zip(inits, types)]
        block_args = [iv.resolve(iv_type), *(a.resolve(t) for a, t in zip(args, types))]
        body = parser.parse_region(block_args)
        attrs = parser.parse_optional_attr_dict()
        op = cls(*operands, init_values, body)
        op.attributes |= attrs
        _add_implicit_yield(op.body)  # as upstream: always (then verified)
        return op


# ---------------------------------------------------------------------------
# loop.if
# ---------------------------------------------------------------------------


def parse_optional_result_types(parser: Parser) -> list[Attribute]:
    """``-> (t1, t2)``, or ``-> t`` for one type (upstream's scf.if syntax), or nothing."""
    if not parser.parse_optional_punctuation("->"):
        return []
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    if parser.parse_optional_punctuation(")"):
        return []
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return types


def check_no_region_arguments(op: Operation) -> None:
    """The regions of an if (loop.if, scf.if) take no arguments (upstream's check)."""
    for i, region in enumerate(op.regions):
        if region.blocks and region.blocks.first.args:
            raise VerifyException(f"region #{i} should have no arguments")


@irdl_op_definition
class IfOp(IRDLOperation):
    """``loop.if %c -> (t) { ... loop.yield %a : t } else { ... }``

    ``IfOp(cond, result_types, then_region, else_region=None)``; regions may be
    given as a Region, a Block or a list of ops. See also :meth:`from_callables`.
    """

    name = "loop.if"

    cond = operand_def(i1)
    output = var_result_def()

    true_region = region_def("single_block")
    false_region = region_def()

    traits = traits_def(
        SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect(), RecursivelySpeculatable(), _IfCanonicalization()
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        result_types: Sequence[Attribute],
        then_region: _BodyLike,
        else_region: _BodyLike | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        then_r = _as_region(then_region)
        else_r = _as_region(else_region)
        if not result_types:
            _add_implicit_yield(then_r)
            _add_implicit_yield(else_r)
        super().__init__(
            operands=[cond],
            result_types=[result_types],
            regions=[then_r, else_r],
            attributes=attributes,
        )

    @classmethod
    def from_callables(
        cls,
        cond: SSAValue | Operation,
        result_types: Sequence[Attribute],
        then_fn: Callable[[], object],
        else_fn: Callable[[], object] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> IfOp:
        """Build an if whose branches are filled by ``then_fn()`` / ``else_fn()``.

        Each returns the values to yield (value, sequence or None). Without
        ``else_fn`` the else region is left empty (only valid without results).
        """
        then_block = Block()
        then_block.add_op(YieldOp(*_yield_values(_fill(then_block, then_fn))))
        else_block = None
        if else_fn is not None:
            else_block = Block()
            else_block.add_op(YieldOp(*_yield_values(_fill(else_block, else_fn))))
        return cls(cond, result_types, then_block, else_block, attributes)

    @property
    def then_block(self) -> Block:
        return self.true_region.block

    @property
    def else_block(self) -> Block | None:
        return self.false_region.blocks.first

    def verify_(self) -> None:
        if len(self.false_region.blocks) > 1:
            raise VerifyException("the 'else' region must have at most one block")
        if self.output and not self.false_region.blocks:
            raise VerifyException("must have an else block if defining values")
        check_no_region_arguments(self)

    def print(self, printer: Printer) -> None:
        if len(self.true_region.blocks) != 1:
            return _print_generic_tail(printer, self)
        printer.print_string(" ")
        printer.print_ssa_value(self.cond)
        if self.output:
            printer.print_string(" -> (")
            printer.print_list(self.output.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        print_terms = bool(self.output) or _terminator_has_operands(self.true_region)
        printer.print_region(self.true_region, print_entry_block_args=False, print_block_terminators=print_terms)
        if self.false_region.blocks:
            print_terms = bool(self.output) or _terminator_has_operands(self.false_region)
            printer.print_string(" else ")
            printer.print_region(self.false_region, print_entry_block_args=False, print_block_terminators=print_terms)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.parse_operand(i1)
        types = parse_optional_result_types(parser)
        then_r = parser.parse_region()
        if not then_r.blocks:  # `loop.if %c {}`: an empty then block
            then_r.add_block(Block())
        else_r = Region()
        if parser.parse_optional_keyword("else"):
            else_r = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        _add_implicit_yield(then_r)
        _add_implicit_yield(else_r)
        op = cls(cond, types, then_r, else_r)
        op.attributes |= attrs
        return op


# ---------------------------------------------------------------------------
# loop.while
# ---------------------------------------------------------------------------


@irdl_op_definition
class WhileOp(IRDLOperation):
    """``loop.while (%v = %x) : (f64) -> f64 { ... loop.condition(%c) %v : f64 } do { ^bb0(%v2: f64): ... }``

    ``WhileOp(inits, result_types, before, after)``: ``before`` takes one
    argument per init and ends in ``loop.condition``; ``after`` takes one
    argument per result and ends in ``loop.yield`` of the next ``before``
    arguments. See also :meth:`from_callables`.
    """

    name = "loop.while"

    inits = var_operand_def()
    res = var_result_def()

    before_region = region_def("single_block")
    after_region = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        inits: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        before: _BodyLike,
        after: _BodyLike,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[inits],
            result_types=[result_types],
            regions=[_as_region(before), _as_region(after)],
            attributes=attributes,
        )

    @classmethod
    def from_callables(
        cls,
        inits: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        before_fn: Callable[..., tuple[SSAValue | Operation, Sequence[SSAValue | Operation]]],
        after_fn: Callable[..., object],
        attributes: dict[str, Attribute] | None = None,
    ) -> WhileOp:
        """``before_fn(*before_args) -> (condition, forwarded values)``;
        ``after_fn(*after_args) -> values yielded to the next iteration``."""
        before = Block(arg_types=[SSAValue.get(v).type for v in inits])
        cond, forwarded = _fill(before, before_fn)  # type: ignore[misc]
        before.add_op(ConditionOp(cond, *_yield_values(forwarded)))
        after = Block(arg_types=list(result_types))
        after.add_op(YieldOp(*_yield_values(_fill(after, after_fn))))
        return cls(inits, result_types, before, after, attributes)

    @property
    def before_block(self) -> Block:
        return self.before_region.block

    @property
    def after_block(self) -> Block:
        return self.after_region.block

    @property
    def condition_op(self) -> ConditionOp:
        op = self.before_region.block.last_op
        assert isinstance(op, ConditionOp)
        return op

    @property
    def yield_op(self) -> YieldOp:
        op = self.after_region.block.last_op
        assert isinstance(op, YieldOp)
        return op

    def verify_(self) -> None:
        before, after = self.before_region.block, self.after_region.block
        if not isinstance(before.last_op, ConditionOp):
            got = before.last_op.name if before.last_op else "nothing"
            raise VerifyException(f"expects the 'before' region to terminate with 'loop.condition', got {got}")
        if not isinstance(after.last_op, YieldOp):
            got = after.last_op.name if after.last_op else "nothing"
            raise VerifyException(f"expects the 'after' region to terminate with 'loop.yield', got {got}")
        init_types = [v.type for v in self.inits]
        before_types = [a.type for a in before.args]
        if before_types != init_types:
            raise VerifyException(
                f"the 'before' region argument types {_types(before_types)} do not match "
                f"the init operand types {_types(init_types)}"
            )
        res_types = [r.type for r in self.res]
        after_types = [a.type for a in after.args]
        if after_types != res_types:
            raise VerifyException(
                f"the 'after' region argument types {_types(after_types)} do not match "
                f"the result types {_types(res_types)}"
            )

    def print(self, printer: Printer) -> None:
        if any(len(r.blocks) != 1 for r in self.regions) or len(self.before_region.block.args) != len(self.inits):
            return _print_generic_tail(printer, self)
        printer.print_string(" ")
        if self.inits:
            _print_assignment_list(printer, self.before_region.block.args, self.inits)
            printer.print_string(" ")
        printer.print_string(": ")
        printer.print_function_type(self.inits.types, self.res.types)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        args: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        if parser.parse_optional_punctuation("(") and not parser.parse_optional_punctuation(")"):

            def one() -> None:
                args.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                inits.append(parser.parse_unresolved_operand())

            parser.parse_comma_separated_list(Parser.Delimiter.NONE, one)
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        inputs, outputs = list(ftype.inputs.data), list(ftype.outputs.data)
        if len(inputs) != len(args):
            parser.raise_error(
                f"expected as many input types as operands: {len(args)} operands, {len(inputs)} types",
                pos,
                parser.pos,
            )
        operands = [parser.resolve_operand(o, t) for o, t in zip(inits, inputs)]
        before = parser.parse_region([a.resolve(t) for a, t in zip(args, inputs)])
        parser.parse_keyword("do")
        after = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(operands, outputs, before, after)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


# ---------------------------------------------------------------------------
# loop.parallel / loop.reduce / loop.reduce.return
# ---------------------------------------------------------------------------


@irdl_op_definition
class ReduceReturnOp(IRDLOperation):
    """``loop.reduce.return %v : t`` — terminates a reduction region of ``loop.reduce``."""

    name = "loop.reduce.return"

    result = operand_def()

    traits = lazy_traits_def(lambda: (HasParent(ReduceOp), IsTerminator(), Pure()))

    assembly_format = "$result attr-dict `:` type($result)"

    def __init__(self, result: SSAValue | Operation):
        super().__init__(operands=[result])


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """``loop.reduce(%a, %b : f32, i32) { ^bb0(%l: f32, %r: f32): ... loop.reduce.return %s : f32 }, { ... }``

    Terminates ``loop.parallel``: one operand and one reduction region (two
    block arguments of the operand type, ending in ``loop.reduce.return``)
    per result of the parallel loop. ``ReduceOp(args, regions)``; see also
    :meth:`from_callables`.
    """

    name = "loop.reduce"

    args = var_operand_def()
    reductions = var_region_def("single_block")

    traits = lazy_traits_def(lambda: (RecursiveMemoryEffect(), HasParent(ParallelOp), IsTerminator()))

    def __init__(self, args: Sequence[SSAValue | Operation] = (), regions: Sequence[_BodyLike] = ()):
        super().__init__(operands=[args], regions=[[_as_region(r) for r in regions]])

    @classmethod
    def from_callables(
        cls, args: Sequence[SSAValue | Operation], combiners: Sequence[Callable[[SSAValue, SSAValue], SSAValue | Operation]]
    ) -> ReduceOp:
        """One combiner ``fn(lhs, rhs) -> combined`` per argument."""
        regions = []
        for arg, fn in zip(args, combiners, strict=True):
            t = SSAValue.get(arg).type
            block = Block(arg_types=[t, t])
            block.add_op(ReduceReturnOp(SSAValue.get(_fill(block, fn))))  # type: ignore[arg-type]
            regions.append(Region(block))
        return cls(args, regions)

    def verify_(self) -> None:
        if len(self.args) != len(self.reductions):
            raise VerifyException(
                f"expects as many reduction regions as operands: {len(self.args)} operands, "
                f"{len(self.reductions)} regions"
            )
        for i, (region, arg) in enumerate(zip(self.reductions, self.args)):
            block = region.block
            types = [a.type for a in block.args]
            if types != [arg.type, arg.type]:
                raise VerifyException(
                    f"reduction region #{i} must take two arguments of the operand type {arg.type}, "
                    f"got {_types(types)}"
                )
            last = block.last_op
            if not isinstance(last, ReduceReturnOp):
                got = last.name if last else "nothing"
                raise VerifyException(f"reduction region #{i} must terminate with 'loop.reduce.return', got {got}")
            if last.result.type != arg.type:
                raise VerifyException(
                    f"reduction region #{i} returns {last.result.type} but the operand has type {arg.type}"
                )

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string("(")
            printer.print_list(self.args, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.args.types, printer.print_attribute)
            printer.print_string(")")
        for i, region in enumerate(self.reductions):
            printer.print_string(", " if i else " ")
            printer.print_region(region)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands: list[SSAValue] = []
        if parser.parse_optional_punctuation("("):
            pos = parser.pos
            unresolved = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(types) != len(unresolved):
                parser.raise_error(f"expected {len(unresolved)} types, got {len(types)}", pos, parser.pos)
            operands = [parser.resolve_operand(o, t) for o, t in zip(unresolved, types)]
        regions: list[Region] = []
        region = parser.parse_optional_region()
        if region is not None:
            regions.append(region)
            while parser.parse_optional_punctuation(","):
                regions.append(parser.parse_region())
        attrs = parser.parse_optional_attr_dict()
        op = cls(operands, regions)
        op.attributes |= attrs
        return op


@irdl_op_definition
class ParallelOp(IRDLOperation):
    """``loop.parallel (%i, %j) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1) init (%z) -> f32 { ... loop.reduce ... }``

    Independent iterations over an index space. The body takes one index per
    dimension and ends in ``loop.reduce`` (one reduced value per init/result).
    ``ParallelOp(lower_bounds, upper_bounds, steps, body, init_vals=())``; a
    body without a terminator gets an empty ``loop.reduce``.
    """

    name = "loop.parallel"

    lowerBound = var_operand_def(IndexType)
    upperBound = var_operand_def(IndexType)
    step = var_operand_def(IndexType)
    initVals = var_operand_def()
    res = var_result_def()

    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(SingleBlockImplicitTerminator(ReduceOp), RecursiveMemoryEffect())

    def __init__(
        self,
        lower_bounds: Sequence[SSAValue | Operation],
        upper_bounds: Sequence[SSAValue | Operation],
        steps: Sequence[SSAValue | Operation],
        body: _BodyLike,
        init_vals: Sequence[SSAValue | Operation] = (),
        attributes: dict[str, Attribute] | None = None,
    ):
        region = _as_region(body)
        block = region.blocks.last
        if block is not None:
            last = block.last_op
            if last is None or not last.has_trait(IsTerminator, value_if_unregistered=True):
                block.add_op(ReduceOp())
        super().__init__(
            operands=[lower_bounds, upper_bounds, steps, init_vals],
            result_types=[[SSAValue.get(v).type for v in init_vals]],
            regions=[region],
            attributes=attributes,
        )

    @property
    def induction_vars(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    @property
    def reduce_op(self) -> ReduceOp:
        op = self.body.block.last_op
        assert isinstance(op, ReduceOp)
        return op

    def verify_(self) -> None:
        n = len(self.lowerBound)
        if len(self.upperBound) != n or len(self.step) != n:
            raise VerifyException(
                f"expects the same number of lower bounds, upper bounds and steps, got "
                f"{n}, {len(self.upperBound)} and {len(self.step)}"
            )
        if n == 0:
            raise VerifyException("needs at least one induction variable")
        args = self.body.block.args
        if len(args) != n or any(not isinstance(a.type, IndexType) for a in args):
            raise VerifyException(f"body block must take {n} arguments of type index, one per induction variable")
        reduce_op = self.body.block.last_op
        if not isinstance(reduce_op, ReduceOp):
            return  # the terminator trait reports it
        inits = [v.type for v in self.initVals]
        results = [r.type for r in self.res]
        reduced = [v.type for v in reduce_op.args]
        if results != inits:
            raise VerifyException(f"result types {_types(results)} do not match the init types {_types(inits)}")
        if reduced != inits:
            raise VerifyException(
                f"the 'loop.reduce' operand types {_types(reduced)} do not match the init types {_types(inits)}"
            )

    def print(self, printer: Printer) -> None:
        if len(self.body.blocks) != 1:
            return _print_generic_tail(printer, self)
        printer.print_string(" (")
        printer.print_list(self.body.block.args, printer.print_ssa_value)
        printer.print_string(") = (")
        printer.print_list(self.lowerBound, printer.print_ssa_value)
        printer.print_string(") to (")
        printer.print_list(self.upperBound, printer.print_ssa_value)
        printer.print_string(") step (")
        printer.print_list(self.step, printer.print_ssa_value)
        printer.print_string(")")
        if self.initVals:
            printer.print_string(" init (")
            printer.print_list(self.initVals, printer.print_ssa_value)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            if len(self.res) == 1:
                printer.print_attribute(self.res.types[0])
            else:
                printer.print_string("(")
                printer.print_list(self.res.types, printer.print_attribute)
                printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("operandSegmentSizes",))

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        ivs = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_punctuation("=")

        def operands() -> list[UnresolvedOperand]:
            return parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)

        idx = IndexType()

        def bounds() -> list[SSAValue]:
            pos = parser.pos
            values = operands()
            if len(values) != len(ivs):
                parser.raise_error(f"expected {len(ivs)} operands", pos, parser.pos)
            return [parser.resolve_operand(o, idx) for o in values]

        lbs = bounds()
        parser.parse_keyword("to")
        ubs = bounds()
        parser.parse_keyword("step")
        steps = bounds()
        inits: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("init"):
            inits = operands()
        pos = parser.pos
        types = parse_optional_result_types(parser)
        if len(types) != len(inits):
            parser.raise_error(
                f"number of operands and types do not match: got {len(inits)} operands and {len(types)} types",
                pos, parser.pos,
            )
        init_vals = [parser.resolve_operand(o, t) for o, t in zip(inits, types)]
        body = parser.parse_region([iv.resolve(idx) for iv in ivs])
        attrs = parser.parse_optional_attr_dict()
        op = cls(lbs, ubs, steps, body, init_vals)
        op.attributes |= attrs
        return op


Loop = Dialect(
    "loop",
    [ForOp, IfOp, WhileOp, ConditionOp, YieldOp, ParallelOp, ReduceOp, ReduceReturnOp],
    [],
)


# ---------------------------------------------------------------------------
# Canonicalization patterns
# ---------------------------------------------------------------------------

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern  # noqa: E402
from xdsl.rewriter import InsertPoint  # noqa: E402
from xdsl.traits import ConstantLike, is_side_effect_free  # noqa: E402


def _const_int(value: SSAValue) -> int | None:
    """The integer value of an `arith.constant` (i1 true is 1), else None."""
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr

    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        v = owner.value.value.data
        if owner.value.type == i1:
            return 1 if v else 0
        return v
    return None


def _replace_with_block(rewriter: PatternRewriter, op: Operation, block: Block, args: Sequence[SSAValue]) -> None:
    """Inline ``block`` before ``op`` and replace op's results by the block's yielded values."""
    terminator = block.last_op
    assert terminator is not None
    rewriter.inline_block(block, InsertPoint.before(op), args)
    # read after inlining: a yielded block argument has become its replacement
    values = list(terminator.operands)
    rewriter.erase(terminator)
    rewriter.replace(op, (), values)


class ForTrivialTripCount(RewritePattern):
    """A loop with constant bounds that runs zero times becomes its inits; once, its body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ForOp, rewriter: PatternRewriter) -> None:
        lb, ub = _const_int(op.lb), _const_int(op.ub)
        if lb is None or ub is None:
            return
        if ub <= lb:
            rewriter.replace(op, (), list(op.iter_args))
            return
        step = _const_int(op.step)
        if step is None or step <= 0 or step < ub - lb:
            return
        _replace_with_block(rewriter, op, op.body.block, [op.lb, *op.iter_args])


class ForHoistConstants(RewritePattern):
    """Constants directly in a loop body move before the loop."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ForOp, rewriter: PatternRewriter) -> None:
        for child in list(op.body.block.ops):
            if child.has_trait(ConstantLike) and not child.regions:
                child.detach()
                rewriter.insert(child, InsertPoint.before(op))


class ForRemoveDeadIterArgs(RewritePattern):
    """Drop loop-carried values that are forwarded unchanged (the result is the init),
    or whose result is unused and whose value only feeds its own next iteration."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ForOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        yield_op = block.last_op
        if not isinstance(yield_op, YieldOp) or not op.iter_args:
            return
        drop: list[int] = []
        for i, (arg, res) in enumerate(zip(block.args[1:], op.res)):
            out = yield_op.arguments[i]
            if out is arg or (not res.uses and _only_feeds_itself(block, yield_op, i)):
                drop.append(i)
        if not drop:
            return
        keep = [i for i in range(len(op.iter_args)) if i not in drop]
        new_block = Block(arg_types=[block.args[0].type, *(block.args[1 + i].type for i in keep)])
        kept_args = iter(new_block.args[1:])
        arg_values = [new_block.args[0]] + [
            next(kept_args) if i in keep else op.iter_args[i] for i in range(len(op.iter_args))
        ]
        rewriter.inline_block(block, InsertPoint.at_start(new_block), arg_values)
        # read after inlining: a yielded block argument has become its replacement
        new_yield_values = [yield_op.arguments[i] for i in keep]
        rewriter.erase(yield_op)
        new_block.add_op(YieldOp(*new_yield_values))
        new_op = ForOp(op.lb, op.ub, op.step, [op.iter_args[i] for i in keep], new_block, dict(op.attributes))
        new_results: list[SSAValue] = []
        kept_res = iter(new_op.res)
        for i in range(len(op.iter_args)):
            new_results.append(next(kept_res) if i in keep else op.iter_args[i])
        rewriter.replace(op, new_op, new_results)


def _only_feeds_itself(block: Block, yield_op: YieldOp, i: int) -> bool:
    """Is block argument 1+i used only by side-effect-free ops of ``block`` whose
    values reach nothing but yield operand i?"""

    def used_only_by(value: SSAValue, slice_ops: set[Operation]) -> bool:
        return all(
            u.operation in slice_ops or (u.operation is yield_op and u.index == i) for u in value.uses
        )

    # Users follow their operands in a block: one backward pass decides every op.
    slice_ops: set[Operation] = set()
    o = yield_op.prev_op
    while o is not None:
        if o.results and not o.regions and all(used_only_by(r, slice_ops) for r in o.results):
            if is_side_effect_free(o):
                slice_ops.add(o)
        o = o.prev_op
    return used_only_by(block.args[1 + i], slice_ops)


class IfConstantCondition(RewritePattern):
    """``loop.if`` on a constant condition becomes the taken branch."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        cond = _const_int(op.cond)
        if cond is None:
            return
        if not cond and not op.false_region.blocks:
            rewriter.erase(op)
            return
        region = op.true_region if cond else op.false_region
        _replace_with_block(rewriter, op, region.block, ())


def _replace_result_revisiting_parents(rewriter: PatternRewriter, result: SSAValue, value: SSAValue) -> None:
    """Replace ``result`` by ``value`` and queue the ops whose terminators yielded it.

    The greedy driver queues only the direct users (the terminators); their parent
    ops may now fold too. Without this, n nested foldable ifs need n sweeps of the
    whole module (cubic with the driver's region DCE after each sweep).
    """
    parents = {use.operation.parent_op() for use in result.uses if use.operation.has_trait(IsTerminator)}
    rewriter.replace_all_uses_with(result, value)
    for parent in parents:
        if parent is not None:
            rewriter.notify_op_modified(parent)


class IfRemoveUnusedResults(RewritePattern):
    """Results yielded as the same value by both branches become that value; unused
    results are dropped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if not op.output or not op.false_region.blocks:
            return
        then_yield, else_yield = op.true_region.block.last_op, op.false_region.block.last_op
        if not isinstance(then_yield, YieldOp) or not isinstance(else_yield, YieldOp):
            return
        same = [
            i for i, r in enumerate(op.output)
            if r.uses and then_yield.arguments[i] is else_yield.arguments[i]
        ]
        for i in same:
            _replace_result_revisiting_parents(rewriter, op.output[i], then_yield.arguments[i])
        keep = [i for i, r in enumerate(op.output) if r.uses]
        if len(keep) == len(op.output):
            return
        for y in (then_yield, else_yield):
            rewriter.replace(y, YieldOp(*[y.arguments[i] for i in keep]))
        then_r, else_r = [op.detach_region(r) for r in list(op.regions)]
        new_op = IfOp(op.cond, [op.output[i].type for i in keep], then_r, else_r, dict(op.attributes))
        kept = iter(new_op.output)
        rewriter.replace(op, new_op, [next(kept) if i in keep else None for i in range(len(op.output))])
