"""The `autodiff` dialect: differentiation as IR (SPEC section 5).

```mlir
%dx, %dw = autodiff.grad @loss(%x, %w) wrt [0, 1] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
%l, %dw = autodiff.value_and_grad @loss(%x, %w) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (f64, tensor<4xf64>)
%y, %dx = autodiff.vjp @f(%x) cotangents(%dy) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
%y, %dy = autodiff.jvp @f(%x) tangents(%tx) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
%s = autodiff.stop_gradient %x : tensor<4xf64>
```

Representation: property ``callee`` (a flat ``SymbolRefAttr``), optional
property ``wrt`` (``DenseArrayBase`` of i64, ``array<i64: 0, 1>`` in the
generic form; absent = every float argument), operands ``args`` then
``cotangents`` (vjp) / ``tangents`` (jvp), one variadic result group ``outs``.

Helpers for the ``ad`` pass: ``callee_name``, ``wrt_positions()`` (default
applied), ``args``, ``cotangents`` / ``tangents``, ``lookup_callee()``, and
result views (``grads``, ``value``, ``primal_results``, ``derivative_results``).

Python builders infer result types from the callee's signature::

    GradOp(callee_func_or_name, args, wrt=None, result_types=None)
    ValueAndGradOp(callee, args, wrt=None, result_types=None)
    VjpOp(callee, args, cotangents, wrt=None, result_types=None)
    JvpOp(callee, args, tangents, wrt=None, result_types=None)
    StopGradientOp(x)

(when ``callee`` is a name, not a ``func.FuncOp``, pass ``result_types``.)

Function attributes ``autodiff.custom_vjp = @f_vjp`` / ``autodiff.custom_jvp =
@f_jvp`` on ``func.func`` are checked by :func:`verify_function_attributes`
(one function) / :func:`verify_custom_rules` (a whole module): xDSL 0.74 has no
hook for a dialect to verify attributes it owns on foreign ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    Float64Type,
    FunctionType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    VarConstraint,
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
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolTable
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "Autodiff",
    "GradOp",
    "ValueAndGradOp",
    "VjpOp",
    "JvpOp",
    "StopGradientOp",
    "AUTODIFF_OPS",
    "CUSTOM_VJP",
    "CUSTOM_JVP",
    "CHECKPOINT",
    "is_differentiable_type",
    "float_positions",
    "verify_function_attributes",
    "verify_custom_rules",
]

CUSTOM_VJP = "autodiff.custom_vjp"
CUSTOM_JVP = "autodiff.custom_jvp"
CHECKPOINT = "autodiff.checkpoint"


def is_differentiable_type(t: Attribute) -> bool:
    """f32, f64, or a tensor of them (the types the ``ad`` pass differentiates)."""
    if isinstance(t, TensorType):
        t = t.element_type
    return isinstance(t, Float32Type | Float64Type)


def _is_scalar_loss_type(t: Attribute) -> bool:
    if isinstance(t, TensorType):
        return len(t.get_shape()) == 0 and is_differentiable_type(t.element_type)
    return isinstance(t, Float32Type | Float64Type)


def float_positions(types: Sequence[Attribute]) -> list[int]:
    """Positions of the differentiable types in ``types``."""
    return [i for i, t in enumerate(types) if is_differentiable_type(t)]


def _types(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def _symbol(callee: str | StringAttr | SymbolRefAttr | FuncOp) -> SymbolRefAttr:
    if isinstance(callee, FuncOp):
        return SymbolRefAttr(callee.sym_name)
    if isinstance(callee, SymbolRefAttr):
        return callee
    return SymbolRefAttr(callee)


def _lookup_func(op: Operation, ref: SymbolRefAttr) -> FuncOp | None | bool:
    """The func.func named ``ref``; None if absent; False if there is no symbol table."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None:
        return False
    found = SymbolTable.lookup_symbol(op, ref)
    if found is None:
        return None
    return found  # type: ignore[return-value]


class _DiffOp(IRDLOperation):
    """Shared structure of grad / value_and_grad / vjp / jvp."""

    # Name of the extra operand group ("cotangents" / "tangents") or None.
    EXTRA: ClassVar[str | None] = None

    callee = prop_def(SymbolRefAttr)
    wrt = opt_prop_def(DenseArrayBase)

    # -- helpers for passes ------------------------------------------------

    @property
    def callee_name(self) -> str:
        return self.callee.root_reference.data

    def lookup_callee(self) -> FuncOp:
        """The callee ``func.func`` (the op must be verified and inside a module)."""
        found = _lookup_func(self, self.callee)
        if not isinstance(found, FuncOp):
            raise VerifyException(f"callee @{self.callee_name} does not reference a func.func")
        return found

    @property
    def extra_operands(self) -> Sequence[SSAValue]:
        return ()

    def wrt_positions(self, arg_types: Sequence[Attribute] | None = None) -> list[int]:
        """The argument positions differentiated: ``wrt`` or, when absent, every
        float argument (types taken from ``arg_types``, default the operands)."""
        if self.wrt is not None:
            return [int(v) for v in self.wrt.get_values()]
        if arg_types is None:
            arg_types = [a.type for a in self.args]  # type: ignore[attr-defined]
        return float_positions(arg_types)

    # -- verification ------------------------------------------------------

    @staticmethod
    def _expected_results(inputs: list[Attribute], outputs: list[Attribute], wrt: list[int]) -> list[Attribute]:
        raise NotImplementedError

    @staticmethod
    def _expected_extra(inputs: list[Attribute], outputs: list[Attribute], wrt: list[int]) -> list[Attribute]:
        return []

    def verify_(self) -> None:
        if self.callee.nested_references.data:
            raise VerifyException(f"callee must be a flat symbol reference, got {self.callee}")
        args = [a.type for a in self.args]  # type: ignore[attr-defined]
        if self.wrt is not None:
            if self.wrt.elt_type != i64:
                raise VerifyException(f"wrt must be an array of i64, got {self.wrt}")
            positions = self.wrt_positions()
            for p in positions:
                if not 0 <= p < len(args):
                    raise VerifyException(f"wrt position {p} is out of range for {len(args)} arguments")
            if any(b <= a for a, b in zip(positions, positions[1:])):
                raise VerifyException(f"wrt positions must be unique and increasing, got {positions}")
            for p in positions:
                if not is_differentiable_type(args[p]):
                    raise VerifyException(
                        f"wrt position {p} names argument of type {args[p]}, which is not differentiable "
                        "(f32, f64 or a tensor of them)"
                    )
        found = _lookup_func(self, self.callee)
        if found is False:
            return  # not inside a module: nothing to check the callee against
        name = f"@{self.callee_name}"
        if found is None:
            raise VerifyException(f"callee {name} not found in the symbol table")
        if not isinstance(found, FuncOp):
            raise VerifyException(f"callee {name} does not reference a func.func but a {found.name}")
        inputs = list(found.function_type.inputs.data)
        outputs = list(found.function_type.outputs.data)
        if len(args) != len(inputs):
            raise VerifyException(f"{name} takes {len(inputs)} arguments, got {len(args)}")
        for i, (a, e) in enumerate(zip(args, inputs)):
            if a != e:
                raise VerifyException(f"argument #{i} has type {a} but {name} expects {e}")
        wrt = self.wrt_positions(inputs)
        self._check_callee_results(name, outputs)
        if self.EXTRA is not None:
            extra = [v.type for v in self.extra_operands]
            expected = self._expected_extra(inputs, outputs, wrt)
            if extra != expected:
                raise VerifyException(
                    f"{self.EXTRA} types {_types(extra)} do not match the expected {_types(expected)} "
                    f"({self._extra_rule()})"
                )
        results = [r.type for r in self.outs]  # type: ignore[attr-defined]
        expected = self._expected_results(inputs, outputs, wrt)
        if results != expected:
            raise VerifyException(
                f"result types {_types(results)} do not match the expected {_types(expected)} ({self._result_rule()})"
            )

    def _check_callee_results(self, name: str, outputs: list[Attribute]) -> None:
        pass

    def _extra_rule(self) -> str:
        return ""

    def _result_rule(self) -> str:
        return ""

    # -- syntax --------------------------------------------------------------

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee_name)
        printer.print_string("(")
        printer.print_list(self.args, printer.print_ssa_value)  # type: ignore[attr-defined]
        printer.print_string(")")
        if self.EXTRA is not None:
            printer.print_string(f" {self.EXTRA}(")
            printer.print_list(self.extra_operands, printer.print_ssa_value)
            printer.print_string(")")
        if self.wrt is not None:
            printer.print_string(" wrt [")
            printer.print_list(self.wrt.get_values(), lambda v: printer.print_string(str(v)))
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        operands = [*self.args, *self.extra_operands]  # type: ignore[attr-defined]
        printer.print_function_type([v.type for v in operands], self.outs.types)  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        callee = parser.parse_symbol_name()

        def group() -> list[UnresolvedOperand]:
            return parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)

        args = group()
        extra: list[UnresolvedOperand] = []
        if cls.EXTRA is not None:
            parser.parse_keyword(cls.EXTRA)
            extra = group()
        wrt: list[int] | None = None
        if parser.parse_optional_keyword("wrt"):
            parser.parse_punctuation("[")
            wrt = []
            if not parser.parse_optional_punctuation("]"):
                wrt = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_integer)
                parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        inputs = list(ftype.inputs.data)
        if len(inputs) != len(args) + len(extra):
            parser.raise_error(
                f"expected {len(args) + len(extra)} operand types, got {len(inputs)}", pos, parser.pos
            )
        operands = [parser.resolve_operand(o, t) for o, t in zip([*args, *extra], inputs)]
        op = cls._create(
            SymbolRefAttr(callee), operands[: len(args)], operands[len(args) :], wrt, list(ftype.outputs.data)
        )
        op.attributes |= attrs
        return op

    @classmethod
    def _create(
        cls,
        callee: SymbolRefAttr,
        args: Sequence[SSAValue],
        extra: Sequence[SSAValue],
        wrt: Sequence[int] | None,
        result_types: Sequence[Attribute],
    ) -> Self:
        properties: dict[str, Attribute] = {"callee": callee}
        if wrt is not None:
            properties["wrt"] = DenseArrayBase.from_list(i64, list(wrt))
        operands: list = [list(args)]
        if cls.EXTRA is not None:
            operands.append(list(extra))
        return cls.build(operands=operands, result_types=[list(result_types)], properties=properties)

    def _init(
        self,
        callee: SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        extra: Sequence[SSAValue | Operation],
        wrt: Sequence[int] | None,
        result_types: Sequence[Attribute],
    ) -> None:
        properties: dict[str, Attribute] = {"callee": callee}
        if wrt is not None:
            properties["wrt"] = DenseArrayBase.from_list(i64, list(wrt))
        operands: list = [list(args)]
        if self.EXTRA is not None:
            operands.append(list(extra))
        IRDLOperation.__init__(self, operands=operands, result_types=[list(result_types)], properties=properties)


def _infer(
    cls: type[_DiffOp],
    callee: str | StringAttr | SymbolRefAttr | FuncOp,
    args: Sequence[SSAValue | Operation],
    wrt: Sequence[int] | None,
    result_types: Sequence[Attribute] | None,
) -> Sequence[Attribute]:
    if result_types is not None:
        return result_types
    if not isinstance(callee, FuncOp):
        raise ValueError(f"{cls.name}: pass result_types or the callee func.func to infer them")
    inputs = list(callee.function_type.inputs.data)
    outputs = list(callee.function_type.outputs.data)
    positions = list(wrt) if wrt is not None else float_positions(inputs)
    return cls._expected_results(inputs, outputs, positions)


@irdl_op_definition
class GradOp(_DiffOp):
    """``autodiff.grad @f(args) wrt [...]``: the gradient of a scalar-valued ``@f``,
    one result per ``wrt`` argument, of that argument's type."""

    name = "autodiff.grad"

    args = var_operand_def()
    outs = var_result_def()

    def __init__(
        self,
        callee: str | StringAttr | SymbolRefAttr | FuncOp,
        args: Sequence[SSAValue | Operation],
        wrt: Sequence[int] | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        types = _infer(type(self), callee, args, wrt, result_types)
        self._init(_symbol(callee), args, (), wrt, types)

    @property
    def grads(self) -> Sequence[SSAValue]:
        return self.outs

    @property
    def primal_results(self) -> Sequence[SSAValue]:
        return ()

    @property
    def derivative_results(self) -> Sequence[SSAValue]:
        return self.outs

    def _check_callee_results(self, name: str, outputs: list[Attribute]) -> None:
        if len(outputs) != 1 or not _is_scalar_loss_type(outputs[0]):
            raise VerifyException(
                f"callee {name} must return exactly one f32, f64 or 0-d float tensor, got {_types(outputs)}"
            )

    @staticmethod
    def _expected_results(inputs, outputs, wrt):
        return [inputs[p] for p in wrt]

    def _result_rule(self) -> str:
        return "one gradient per wrt argument, of the argument's type"


@irdl_op_definition
class ValueAndGradOp(_DiffOp):
    """``autodiff.value_and_grad @f(args) wrt [...]``: the value of ``@f`` then its gradients."""

    name = "autodiff.value_and_grad"

    args = var_operand_def()
    outs = var_result_def()

    def __init__(
        self,
        callee: str | StringAttr | SymbolRefAttr | FuncOp,
        args: Sequence[SSAValue | Operation],
        wrt: Sequence[int] | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        types = _infer(type(self), callee, args, wrt, result_types)
        self._init(_symbol(callee), args, (), wrt, types)

    @property
    def value(self) -> SSAValue:
        return self.outs[0]

    @property
    def grads(self) -> Sequence[SSAValue]:
        return self.outs[1:]

    @property
    def primal_results(self) -> Sequence[SSAValue]:
        return self.outs[:1]

    @property
    def derivative_results(self) -> Sequence[SSAValue]:
        return self.outs[1:]

    _check_callee_results = GradOp._check_callee_results

    @staticmethod
    def _expected_results(inputs, outputs, wrt):
        return [*outputs, *(inputs[p] for p in wrt)]

    def _result_rule(self) -> str:
        return "the callee's result, then one gradient per wrt argument"


@irdl_op_definition
class VjpOp(_DiffOp):
    """``autodiff.vjp @f(args) cotangents(cts) wrt [...]``: the results of ``@f``
    then one cotangent per ``wrt`` argument; ``cts`` has one per result."""

    name = "autodiff.vjp"
    EXTRA: ClassVar[str | None] = "cotangents"

    args = var_operand_def()
    cotangents = var_operand_def()
    outs = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        callee: str | StringAttr | SymbolRefAttr | FuncOp,
        args: Sequence[SSAValue | Operation],
        cotangents: Sequence[SSAValue | Operation],
        wrt: Sequence[int] | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        types = _infer(type(self), callee, args, wrt, result_types)
        self._init(_symbol(callee), args, cotangents, wrt, types)

    @property
    def extra_operands(self) -> Sequence[SSAValue]:
        return self.cotangents

    @property
    def num_primal_results(self) -> int:
        return len(self.cotangents)

    @property
    def primal_results(self) -> Sequence[SSAValue]:
        return self.outs[: len(self.cotangents)]

    @property
    def derivative_results(self) -> Sequence[SSAValue]:
        return self.outs[len(self.cotangents) :]

    @staticmethod
    def _expected_extra(inputs, outputs, wrt):
        return list(outputs)

    def _extra_rule(self) -> str:
        return "one per callee result, of the result's type"

    @staticmethod
    def _expected_results(inputs, outputs, wrt):
        return [*outputs, *(inputs[p] for p in wrt)]

    def _result_rule(self) -> str:
        return "the callee's results, then one cotangent per wrt argument"


@irdl_op_definition
class JvpOp(_DiffOp):
    """``autodiff.jvp @f(args) tangents(ts) wrt [...]``: the results of ``@f``
    then one tangent per result; ``ts`` has one per ``wrt`` argument."""

    name = "autodiff.jvp"
    EXTRA: ClassVar[str | None] = "tangents"

    args = var_operand_def()
    tangents = var_operand_def()
    outs = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        callee: str | StringAttr | SymbolRefAttr | FuncOp,
        args: Sequence[SSAValue | Operation],
        tangents: Sequence[SSAValue | Operation],
        wrt: Sequence[int] | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        types = _infer(type(self), callee, args, wrt, result_types)
        self._init(_symbol(callee), args, tangents, wrt, types)

    @property
    def extra_operands(self) -> Sequence[SSAValue]:
        return self.tangents

    @property
    def primal_results(self) -> Sequence[SSAValue]:
        return self.outs[: len(self.outs) // 2]

    @property
    def derivative_results(self) -> Sequence[SSAValue]:
        return self.outs[len(self.outs) // 2 :]

    @staticmethod
    def _expected_extra(inputs, outputs, wrt):
        return [inputs[p] for p in wrt]

    def _extra_rule(self) -> str:
        return "one per wrt argument, of the argument's type"

    @staticmethod
    def _expected_results(inputs, outputs, wrt):
        return [*outputs, *outputs]

    def _result_rule(self) -> str:
        return "the callee's results, then one tangent per result"


@irdl_op_definition
class StopGradientOp(IRDLOperation):
    """``%s = autodiff.stop_gradient %x : t`` — the identity, with zero derivative."""

    name = "autodiff.stop_gradient"

    T: ClassVar = VarConstraint("T", AnyAttr())

    input = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue | Operation):
        v = SSAValue.get(input)
        super().__init__(operands=[v], result_types=[v.type])

    def verify_(self) -> None:
        if self.result.type != self.input.type:
            raise VerifyException(
                f"result type {self.result.type} differs from the operand type {self.input.type}"
            )


AUTODIFF_OPS = (GradOp, ValueAndGradOp, VjpOp, JvpOp)


# ---------------------------------------------------------------------------
# Custom rules on func.func
# ---------------------------------------------------------------------------


def _rule_signature(kind: str, ftype: FunctionType) -> tuple[list[Attribute], list[Attribute]]:
    inputs = list(ftype.inputs.data)
    outputs = list(ftype.outputs.data)
    floats = [inputs[p] for p in float_positions(inputs)]
    if kind == CUSTOM_VJP:
        # (args..., result cotangents...) -> (one cotangent per float argument...)
        return [*inputs, *outputs], floats
    # (args..., tangents of the float args...) -> (results..., result tangents...)
    return [*inputs, *floats], [*outputs, *outputs]


def verify_function_attributes(op: Operation) -> None:
    """Check ``autodiff.custom_vjp`` / ``autodiff.custom_jvp`` on a ``func.func``.

    Raises VerifyException (message without the op prefix, as dialect verifiers do).
    """
    if not isinstance(op, FuncOp):
        for kind in (CUSTOM_VJP, CUSTOM_JVP):
            if kind in op.attributes:
                raise VerifyException(f"attribute '{kind}' is only allowed on func.func")
        return
    for kind in (CUSTOM_VJP, CUSTOM_JVP):
        attr = op.attributes.get(kind)
        if attr is None:
            continue
        if not isinstance(attr, SymbolRefAttr) or attr.nested_references.data:
            raise VerifyException(f"attribute '{kind}' must be a flat symbol reference, got {attr}")
        rule_name = f"@{attr.root_reference.data}"
        found = _lookup_func(op, attr)
        if found is False:
            continue
        if found is None:
            raise VerifyException(f"attribute '{kind}' references {rule_name}, which is not in the symbol table")
        if not isinstance(found, FuncOp):
            raise VerifyException(f"attribute '{kind}' references {rule_name}, which is not a func.func")
        ins, outs = _rule_signature(kind, op.function_type)
        got = found.function_type
        if list(got.inputs.data) != ins or list(got.outputs.data) != outs:
            what = (
                "(arguments..., result cotangents...) -> (one cotangent per float argument...)"
                if kind == CUSTOM_VJP
                else "(arguments..., tangents of the float arguments...) -> (results..., result tangents...)"
            )
            raise VerifyException(
                f"attribute '{kind}' rule {rule_name} has type {got} but must have type "
                f"{FunctionType.from_lists(ins, outs)}: {what}"
            )


def verify_custom_rules(module: Operation) -> None:
    """Check every custom rule attribute in ``module``; raise a located DiagnosticError."""
    from irtoolkit.diagnostics import op_error

    for op in module.walk():
        if CUSTOM_VJP in op.attributes or CUSTOM_JVP in op.attributes:
            try:
                verify_function_attributes(op)
            except VerifyException as err:
                raise op_error(op, str(err)) from None


Autodiff = Dialect(
    "autodiff",
    [GradOp, ValueAndGradOp, VjpOp, JvpOp, StopGradientOp],
    [],
)
