"""The `tensor` dialect of irtoolkit: value-semantic tensor algebra (SPEC §3).

A superset of upstream MLIR's `tensor` dialect as xDSL defines it. The
compute ops (elementwise arithmetic and math, compare, select, matmul, dot,
transpose, broadcast, reductions, argmax/argmin, iota, reverse, convert) are
ours; every op of `xdsl.dialects.tensor` is re-exported, subclassed where
xDSL's verification or printing falls short of MLIR's (so that xDSL's
patterns still match).

Every op verifies what is static: dynamic dims (`?`) are compatible with
anything, and the runtime checks the rest.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Mapping, Sequence
from typing import ClassVar, cast

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import arith, math
from xdsl.dialects import tensor as _xt
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    NoneAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i1,
    i64,
)
from xdsl.dialects.utils.reshape_ops_utils import verify_reshape_like_types
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    HasFolder,
    NoMemoryEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.utils.exceptions import VerifyException

from irtoolkit.classtest import instance_test
from irtoolkit.dialects.arith import RemFOp
from irtoolkit.dialects.scalar import float_to_int
from irtoolkit.ties import clamp_weights
from irtoolkit.dialects.elementwise import (
    Cost,
    ElementKind,
    Elementwise,
    declare_cost,
    declared_unit,
    element_kind,
    elementwise,
    meaning_of,
    np,
    resolve,
)

DYN = DYNAMIC_INDEX

# --------------------------------------------------------------------------
# Upstream ops, reused as they are.
# --------------------------------------------------------------------------
CastOp = _xt.CastOp
ConcatOp = _xt.ConcatOp
YieldOp = _xt.YieldOp


class PadOp(_xt.PadOp):
    """`tensor.pad` with upstream's verifier.

    A result dim may be static where the inferred one is dynamic (a dynamic
    `high` into a static result is checked at run time); xDSL 0.74 requires
    them to match, and does not check the block arguments or the yield type.
    """

    def verify_(self) -> None:
        source = cast(TensorType, self.source.type)
        low, high = self.static_low.get_values(), self.static_high.get_values()
        rank = source.get_num_dims()
        if len(low) != rank or len(high) != rank:
            raise VerifyException(f"expected {rank} low and high padding sizes (one per source dim)")
        args = self.region.block.args
        if len(args) != rank:
            raise VerifyException(f"expected the block to have {rank} arguments")
        for i, arg in enumerate(args):
            if not isinstance(arg.type, IndexType):
                raise VerifyException(f"expected block argument {i + 1} to be an index")
        element = source.get_element_type()
        inferred = [DYN if DYN in (s, lo, hi) else s + lo + hi for s, lo, hi in zip(source.get_shape(), low, high)]
        result = cast(TensorType, self.result.type)
        if result.get_element_type() != element or any(
            i != DYN and i != r for i, r in zip(inferred, result.get_shape())
        ) or result.get_num_dims() != rank:
            inferred_type = TensorType(element, inferred)
            raise VerifyException(f"specified type '{result}' does not match the inferred type '{inferred_type}'")
        term = self.region.block.last_op
        if term is not None and term.operands and term.operands[0].type != element:
            raise VerifyException("expected yield type to match shape element type")

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join("?" if d == DYN else str(d) for d in shape) if shape else "scalar"


def _dim_str(d: int) -> str:
    return "?" if d == DYN else str(d)


def _dims_compatible(a: int, b: int) -> bool:
    return a == b or a == DYN or b == DYN


def _shapes_compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or x == DYN or y == DYN for x, y in zip(a, b))


def _merge_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The most static shape compatible with both (assumed compatible)."""
    return tuple(y if x == DYN else x for x, y in zip(a, b))


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_integer_type(t: Attribute) -> bool:
    """Signless integers (including i1) and index."""
    return isinstance(t, IntegerType | IndexType)


def _tensor_type(value: SSAValue | Operation) -> TensorType:
    t = (value if _is_value(value) else SSAValue.get(value)).type
    if not _is_tensor_type(t):
        raise ValueError(f"expected a tensor value, got {t}")
    return t


# (the builders of the derivative code ask for every op they make: SSAValue and
# TensorType are ABCs, each isinstance a Python call)
_is_value = instance_test(SSAValue)
_is_tensor_type = instance_test(TensorType)
_is_none_attr = instance_test(NoneAttr)


def _int_list(values: Sequence[int] | DenseArrayBase) -> DenseArrayBase:
    if isinstance(values, DenseArrayBase):
        return values
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def _parse_int_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


def _print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string("[" + ", ".join(str(v) for v in values) + "]")


def _print_functional(printer: Printer, inputs: Sequence[Attribute], output: Attribute) -> None:
    printer.print_string("(")
    printer.print_list(inputs, printer.print_attribute)
    printer.print_string(") -> ")
    printer.print_attribute(output)


def _parse_functional(parser: Parser) -> tuple[list[Attribute], Attribute]:
    """Parse `(t1, t2, ...) -> t` (the opening paren already consumed)."""
    inputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    parser.parse_punctuation("->")
    return inputs, parser.parse_type()


def _verify_dims_list(dims: Sequence[int], rank: int, what: str) -> None:
    """Dims must be unique, strictly increasing and within [0, rank)."""
    for i, d in enumerate(dims):
        if d < 0 or d >= rank:
            raise VerifyException(f"dimension {d} is out of range for {what} of rank {rank}")
        if i and d <= dims[i - 1]:
            raise VerifyException(
                f"dimensions must be unique and increasing, got [{', '.join(map(str, dims))}]"
            )


def _constant_value(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    attr = ConstantLike.get_constant_value(value)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return attr
    return None


# Constants larger than this are not folded (folding costs memory and time).
FOLD_LIMIT = 1 << 16


def _to_numpy(attr: DenseIntOrFPElementsAttr):
    """The values of ``attr`` as a numpy array (bool for i1), or None if unsupported/too big."""
    import numpy as np

    et = attr.get_element_type()
    shape = attr.get_shape()
    n = 1
    for d in shape:
        n *= d
    if n > FOLD_LIMIT or _numpy_dtype(et) is None:
        return None
    raw = np.frombuffer(attr.data.data, dtype=np.dtype(et.format))
    if raw.size != n:
        if raw.size != 1:
            return None
        raw = np.full(n, raw[0], dtype=raw.dtype)
    if isinstance(et, IntegerType) and et.width.data == 1:
        raw = raw != 0
    return raw.reshape(shape)


def _numpy_dtype(et: Attribute):
    import numpy as np

    from xdsl.dialects.builtin import Float32Type, Float64Type

    if isinstance(et, Float32Type):
        return np.float32
    if isinstance(et, Float64Type):
        return np.float64
    if isinstance(et, IndexType):
        return np.int64
    if isinstance(et, IntegerType):
        return {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}.get(et.width.data)
    return None


def _from_numpy(array, result_type: Attribute) -> DenseIntOrFPElementsAttr | None:
    """A dense attribute of ``result_type`` (which must be static) holding ``array``."""
    import numpy as np

    from xdsl.dialects.builtin import BytesAttr

    if not isinstance(result_type, TensorType) or DYN in result_type.get_shape():
        return None
    et = result_type.get_element_type()
    dtype = _numpy_dtype(et)
    if dtype is None:
        return None
    array = np.asarray(array)
    if dtype is np.bool_:
        array = np.where(array != 0, -1, 0)
    array = np.ascontiguousarray(array.astype(np.dtype(et.format), copy=False).reshape(-1))
    return DenseIntOrFPElementsAttr(result_type, BytesAttr(array.tobytes()))


def _may_be_constant(value: SSAValue) -> bool:
    """Whether ``splat_constant`` or ``_constant_value`` could know ``value``: it
    is the result of a ConstantLike op, or of a splat or broadcast (a cheap test
    first, for the folds of ops whose operands are mostly computed)."""
    owner = value.owner
    cls = type(owner)
    kind = _OWNER_KIND.get(cls)
    if kind is None:  # (remembered per class: isinstance on op classes is slow)
        kind = _OWNER_KIND[cls] = (
            "splat" if issubclass(cls, BroadcastOp | SplatOp)
            else ("constant" if owner.has_trait(ConstantLike) else "other")
            if issubclass(cls, IRDLOperation)
            else "op" if issubclass(cls, Operation) else "block")
    # (an IRDL op's traits are its class's: told once per class, not per operand)
    return kind == "splat" or kind == "constant" or (kind == "op" and owner.has_trait(ConstantLike))


#: class of a value's owner -> "splat" (a splat or broadcast), "constant" or "other" (an
#: IRDL op that is ConstantLike or not), "op" (another op: asked each time) or "block"
_OWNER_KIND: dict[type, str] = {}


def _splat_value(value: SSAValue) -> float | int | None:
    """The value of a splat constant tensor operand, else None."""
    attr = _constant_value(value)
    if attr is None:
        return None
    if len(attr.data.data) > 64:
        return _splat_of(attr)
    # (the derivative code asks about the same few small constants over and over)
    try:
        return _SMALL_SPLATS[attr]
    except KeyError:
        if len(_SMALL_SPLATS) > 4096:
            _SMALL_SPLATS.clear()
        v = _SMALL_SPLATS[attr] = _splat_of(attr)
        return v


#: small dense constant -> its splat value (or None): ``_splat_value``'s memo
_SMALL_SPLATS: dict[DenseIntOrFPElementsAttr, float | int | None] = {}


def _splat_of(attr: DenseIntOrFPElementsAttr) -> float | int | None:
    if len(attr) == 1:  # a splat kept as one element (irtoolkit.dense): read just that
        attr = DenseIntOrFPElementsAttr(TensorType(attr.get_element_type(), [1]), attr.data)
    a = _to_numpy(attr)
    if a is None or a.size == 0:
        return None
    flat = a.reshape(-1)
    first = flat[0]
    if not (flat == first).all():
        return None
    if a.dtype.kind == "f":
        return float(first)  # keeps the sign of a zero
    return int(first)


def splat_constant(value: SSAValue) -> float | int | None:
    """The number every element of ``value`` equals, when that is known statically:
    scalar and dense splat constants, ``tensor.splat`` of a scalar constant, and
    ``tensor.broadcast`` of those; else None."""
    for _ in range(64):
        owner = value.owner
        if isinstance(owner, BroadcastOp):
            value = owner.input
        elif isinstance(owner, SplatOp):
            value = owner.input
        else:
            break
    if isinstance(value.type, TensorType):
        return _splat_value(value)
    attr = ConstantLike.get_constant_value(value)
    if isinstance(attr, FloatAttr | IntegerAttr):
        return attr.value.data
    return None


def _is_unit(c: float | int | None, unit: float | int, kind: ElementKind | None) -> bool:
    if c is None:
        return False
    if kind is ElementKind.I1:
        return bool(c) == bool(unit)
    if kind is ElementKind.FLOAT:  # the sign of a zero counts: -0.0 + 0.0 is +0.0
        return c == unit and pymath.copysign(1.0, c) == pymath.copysign(1.0, unit)
    return c == unit


def fold_neutral(cls: type[Operation], lhs: SSAValue, rhs: SSAValue,
                 result_type: Attribute) -> SSAValue | None:
    """The one neutral-operand rule: ``x + -0.0``, ``-0.0 + x``, ``x - 0.0``, ``x * 1``,
    ``1 * x``, ``x / 1``, ``x ** 1`` (and the integer and i1 forms: ``x + 0`` ...) are
    ``x``, for an op of class ``cls`` whose declaration has a unit, when ``x`` has the
    result's type. The fold is exact: ``x + 0.0`` is not ``x`` (for ``x = -0.0`` it is
    +0.0), as in MLIR and IEEE. Canonicalization folds with it (``tensor`` ops); the
    derivative emitter applies it before emitting an op (scalars and tensors)."""
    kind = element_kind(result_type)
    unit = declared_unit(cls, kind)
    if unit is None:
        return None
    value, commutative = unit
    # (the owner test first: the operands of derivative code are mostly computed)
    if _may_be_constant(rhs) and lhs.type == result_type and _is_unit(splat_constant(rhs), value, kind):
        return lhs
    if (commutative and _may_be_constant(lhs) and rhs.type == result_type
            and _is_unit(splat_constant(lhs), value, kind)):
        return rhs
    return None


def _element_kinds_text(kinds: frozenset[ElementKind]) -> str:
    if ElementKind.FLOAT in kinds and (ElementKind.INTEGER in kinds or ElementKind.I1 in kinds):
        return "float or integer"
    return "float" if ElementKind.FLOAT in kinds else "integer"


def _verify_declared_element_type(op: Operation, et: Attribute) -> None:
    """The element type is one the op's declaration gives a meaning for."""
    meaning = meaning_of(op)
    kinds = meaning.element_kinds() if meaning is not None else frozenset()
    if element_kind(et) not in kinds:
        raise VerifyException(f"requires {_element_kinds_text(kinds)} element type, got {et}")


def _fold_elementwise(op: Operation, operands: Sequence[SSAValue]):
    """Constant folding of a declared elementwise op with its numpy meaning."""
    values = [_constant_value(v) for v in operands]
    if any(v is None for v in values):
        return None
    arrays = [_to_numpy(v) for v in values]  # type: ignore[arg-type]
    if any(a is None for a in arrays):
        return None
    meaning = meaning_of(op)
    fn = meaning.numpy_for(op) if meaning is not None else None
    if fn is None:
        return None
    import numpy as np

    with np.errstate(all="ignore"):
        r = fn(*arrays)
    attr = _from_numpy(r, op.results[0].type)
    return None if attr is None else (attr,)


# --------------------------------------------------------------------------
class _TransposeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ComposeTransposes(),)


class _BroadcastCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ComposeBroadcasts(),)


class _ExtractSliceCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ExtractPastDisjointInsert(),)


class _InsertSliceCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (OverwrittenInsertDest(),)


# --------------------------------------------------------------------------
# Elementwise binary ops
# --------------------------------------------------------------------------


class BinaryElementwiseOp(IRDLOperation, HasFolderInterface):
    """Base of the binary elementwise ops: `%r = tensor.<op> %a, %b : tensor<...>`
    (types differ: `: (T, T) -> T`). A subclass is declared with ``@elementwise``
    (``dialects/elementwise.py``); its element types are those it declares a meaning for."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            lt, rt = _tensor_type(lhs), _tensor_type(rhs)
            if (lt is rt or lt == rt) and _is_none_attr(lt.encoding):
                result_type = lt  # the type it would build (types are values): one object fewer per op
            else:
                shape = lt.get_shape()
                if lt != rt and _shapes_compatible(shape, rt.get_shape()):
                    shape = _merge_shapes(shape, rt.get_shape())
                result_type = TensorType(lt.get_element_type(), shape)
        super().__init__(operands=(lhs, rhs), result_types=(result_type,), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("("):
            inputs, out = _parse_functional(parser)
        else:
            out = parser.parse_type()
            inputs = [out, out]
        operands = parser.resolve_operands([lhs, rhs], inputs, pos)
        return cls(operands[0], operands[1], out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        rt = self.result.type
        if self.lhs.type == rt and self.rhs.type == rt:
            printer.print_attribute(rt)
        else:
            _print_functional(printer, (self.lhs.type, self.rhs.type), rt)

    def verify_(self) -> None:
        lt = cast(TensorType, self.lhs.type)
        rt = cast(TensorType, self.rhs.type)
        ot = cast(TensorType, self.result.type)
        _verify_elementwise_types(self, (lt, rt), ot)
        _verify_declared_element_type(self, ot.get_element_type())

    def fold(self):
        if not any(map(_may_be_constant, self._operands)):  # (the tuple: `operands` builds a view)
            return None  # what both rules below need: a constant (or splat, broadcast) operand
        neutral = fold_neutral(type(self), self.lhs, self.rhs, self.result.type)
        if neutral is not None:
            return (neutral,)
        return _fold_elementwise(self, (self.lhs, self.rhs))


def _verify_elementwise_types(op: Operation, inputs: Sequence[TensorType], out: TensorType) -> None:
    shape = out.get_shape()
    et = out.get_element_type()
    for t in inputs:
        if t.get_element_type() != et:
            raise VerifyException(
                "requires the same element type for all operands and result, got "
                + ", ".join(str(t) for t in inputs) + f" -> {out}"
            )
        if t.get_shape() != shape and not _shapes_compatible(t.get_shape(), shape):
            raise VerifyException(
                "requires the same shape for all operands and result, got "
                + ", ".join(str(t) for t in inputs) + f" -> {out}"
            )
    if len(inputs) == 2 and not _shapes_compatible(inputs[0].get_shape(), inputs[1].get_shape()):
        raise VerifyException(
            "requires the same shape for all operands and result, got "
            + ", ".join(str(t) for t in inputs) + f" -> {out}"
        )


@elementwise(float=arith.AddfOp, integer=arith.AddiOp, i1=arith.XOrIOp)
@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """Elementwise addition (float or integer; xor on i1)."""

    name = "tensor.add"


@elementwise(float=arith.SubfOp, integer=arith.SubiOp, i1=arith.XOrIOp)
@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """Elementwise subtraction (float or integer; xor on i1)."""

    name = "tensor.sub"


@elementwise(float=arith.MulfOp, integer=arith.MuliOp, i1=arith.AndIOp)
@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """Elementwise multiplication (float or integer; and on i1)."""

    name = "tensor.mul"


@elementwise(float=arith.DivfOp)
@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """Elementwise float division."""

    name = "tensor.div"


# i1 is read as unsigned by max/min (or/and), as by tensor.cmp.
@elementwise(float=arith.MaximumfOp, integer=arith.MaxSIOp, i1=arith.OrIOp)
@irdl_op_definition
class MaxOp(BinaryElementwiseOp):
    """Elementwise maximum; NaN propagates (numpy.maximum)."""

    name = "tensor.max"


@elementwise(float=arith.MinimumfOp, integer=arith.MinSIOp, i1=arith.AndIOp)
@irdl_op_definition
class MinOp(BinaryElementwiseOp):
    """Elementwise minimum; NaN propagates (numpy.minimum)."""

    name = "tensor.min"


@elementwise(float=math.PowFOp)
@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """Elementwise float power (numpy.power)."""

    name = "tensor.pow"


# --------------------------------------------------------------------------
# Elementwise unary ops
# --------------------------------------------------------------------------


class UnaryElementwiseOp(IRDLOperation, HasFolderInterface):
    """Base of the unary elementwise ops: `%r = tensor.<op> %a : tensor<...>`
    (types differ: `: T -> T`). A subclass is declared with ``@elementwise``."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        input: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            result_type = _tensor_type(input)
        super().__init__(operands=(input,), result_types=(result_type,), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_type = parser.parse_type()
        out_type = parser.parse_type() if parser.parse_optional_punctuation("->") else in_type
        (value,) = parser.resolve_operands([operand], [in_type], pos)
        return cls(value, out_type, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        if self.result.type != self.input.type:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        it = cast(TensorType, self.input.type)
        ot = cast(TensorType, self.result.type)
        _verify_elementwise_types(self, (it,), ot)
        _verify_declared_element_type(self, ot.get_element_type())

    def fold(self):
        if not _may_be_constant(self.input):
            return None
        return _fold_elementwise(self, (self.input,))


@elementwise(float=arith.NegfOp)
@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    name = "tensor.neg"


@elementwise(float=math.ExpOp)
@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    name = "tensor.exp"


@elementwise(float=math.LogOp)
@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    name = "tensor.log"


@elementwise(float=math.SqrtOp)
@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    name = "tensor.sqrt"


@elementwise(float=math.TanhOp)
@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    name = "tensor.tanh"


@elementwise(float=math.SinOp)
@irdl_op_definition
class SinOp(UnaryElementwiseOp):
    name = "tensor.sin"


@elementwise(float=math.CosOp)
@irdl_op_definition
class CosOp(UnaryElementwiseOp):
    name = "tensor.cos"


@elementwise(float=math.AbsFOp)
@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    name = "tensor.abs"


def _logistic_scalar(B, x: SSAValue) -> SSAValue:
    one = B.const(1.0, x.type)
    e = B.emit1(math.ExpOp(B.emit1(arith.NegfOp(x))))
    return B.emit1(arith.DivfOp(one, B.emit1(arith.AddfOp(one, e))))


def _logistic_partials(D, ins, outs, need):
    (y,) = outs
    return [D.mul(y, D.sub(D.const(1.0, y), y))]


@elementwise(float=_logistic_scalar, numpy=lambda x: 1 / (1 + np.exp(-x)),
             partials=_logistic_partials, cost=Cost.EXPENSIVE)
@irdl_op_definition
class LogisticOp(UnaryElementwiseOp):
    """The logistic sigmoid 1 / (1 + exp(-x))."""

    name = "tensor.logistic"


@elementwise(float=math.TanOp)
@irdl_op_definition
class TanOp(UnaryElementwiseOp):
    name = "tensor.tan"


# --------------------------------------------------------------------------
# The elementwise ops of SPEC §3.1 (StableHLO's semantics; their meanings,
# derivatives, costs and domains come from the scalar counterparts' declarations
# in scalar.py unless given here).
# --------------------------------------------------------------------------


@elementwise(float=math.RsqrtOp)
@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    """1 / sqrt(x)."""

    name = "tensor.rsqrt"


@elementwise(float=math.ErfOp)
@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    """The error function (as `math.erf`: to within 2 ulp of the exact value)."""

    name = "tensor.erf"


@elementwise(float=math.Log1pOp)
@irdl_op_definition
class Log1pOp(UnaryElementwiseOp):
    """log(1 + x), accurate for small x (numpy.log1p)."""

    name = "tensor.log1p"


@elementwise(float=math.ExpM1Op)
@irdl_op_definition
class Expm1Op(UnaryElementwiseOp):
    """exp(x) - 1, accurate for small x (numpy.expm1)."""

    name = "tensor.expm1"


def _sign_scalar(B, x: SSAValue) -> SSAValue:
    zero, one = B.const(0.0, x.type), B.const(1.0, x.type)
    pos = B.emit1(arith.CmpfOp(x, zero, "ogt"))
    neg = B.emit1(arith.CmpfOp(x, zero, "olt"))
    return B.emit1(arith.SelectOp(pos, one, B.emit1(arith.SelectOp(neg, B.const(-1.0, x.type), x))))


def _sign_numpy(x):
    return np.where(x == 0, x, np.sign(x))[()]


@elementwise(float=_sign_scalar, numpy=_sign_numpy, differentiable=False, cost=Cost.CHEAP)
@irdl_op_definition
class SignOp(UnaryElementwiseOp):
    """-1, +1, or x itself for ±0 and NaN (StableHLO's `sign`; numpy.sign but
    for -0.0, which stays -0.0). Derivative 0 (SPEC §6): it carries none."""

    name = "tensor.sign"


@elementwise(float=math.FloorOp, differentiable=False)
@irdl_op_definition
class FloorOp(UnaryElementwiseOp):
    """numpy.floor. Derivative 0 (SPEC §6): it carries none."""

    name = "tensor.floor"


@elementwise(float=math.CeilOp, differentiable=False)
@irdl_op_definition
class CeilOp(UnaryElementwiseOp):
    """numpy.ceil. Derivative 0 (SPEC §6): it carries none."""

    name = "tensor.ceil"


@elementwise(float=math.RoundEvenOp, differentiable=False)
@irdl_op_definition
class RoundOp(UnaryElementwiseOp):
    """Round half to even (numpy.rint, StableHLO's `round_nearest_even`). Derivative 0
    (SPEC §6): it carries none."""

    name = "tensor.round"


@elementwise(float=math.AtanOp)
@irdl_op_definition
class AtanOp(UnaryElementwiseOp):
    """The arctangent, in [-pi/2, pi/2] (numpy.arctan)."""

    name = "tensor.atan"


@elementwise(float=math.Atan2Op)
@irdl_op_definition
class Atan2Op(BinaryElementwiseOp):
    """`tensor.atan2 %y, %x`: the angle of (x, y) in [-pi, pi] (numpy.arctan2)."""

    name = "tensor.atan2"


@elementwise(float=RemFOp, domain=[(-4.0, 4.0), (0.5, 2.0)])
@irdl_op_definition
class RemOp(BinaryElementwiseOp):
    """`tensor.rem %a, %b`: the remainder of a / b truncated, with the sign of a
    (C `fmod`, numpy.fmod, StableHLO's `remainder`)."""

    name = "tensor.rem"


def _clamp_float(B, lo: SSAValue, x: SSAValue, hi: SSAValue) -> SSAValue:
    return B.emit1(arith.MinimumfOp(B.emit1(arith.MaximumfOp(x, lo)), hi))


def _clamp_integer(B, lo: SSAValue, x: SSAValue, hi: SSAValue) -> SSAValue:
    return B.emit1(arith.MinSIOp(B.emit1(arith.MaxSIOp(x, lo)), hi))


def _clamp_numpy(lo, x, hi):
    kind = ElementKind.FLOAT if np.issubdtype(np.asarray(x).dtype, np.floating) else ElementKind.INTEGER
    upper = meaning_of(MaxOp).numpy_of_kind(kind)
    lower = meaning_of(MinOp).numpy_of_kind(kind)
    return lower(upper(x, lo), hi)


def _clamp_partials(D, ins, outs, need):
    """The cotangent goes to x where lo <= x <= hi (at a bound too), else to the bound
    the result equals (SPEC §6, ``irtoolkit.ties``)."""
    weights = clamp_weights(D, *ins)
    return [w if n else None for w, n in zip(weights, need)]


@elementwise(float=_clamp_float, integer=_clamp_integer, numpy=_clamp_numpy,
             partials=_clamp_partials, cost=Cost.CHEAP,
             domain=[(-1.5, -0.5), (-2.0, 2.0), (0.5, 1.5)])
@irdl_op_definition
class ClampOp(IRDLOperation, HasFolderInterface):
    """`%r = tensor.clamp %lo, %x, %hi : tensor<4xf32>`: min(max(x, lo), hi) (StableHLO's
    `clamp`, with the three operands of one shape; NaN propagates, -0.0 < +0.0 as in
    `tensor.max`/`min`). Floats and integers (signed)."""

    name = "tensor.clamp"

    lo = operand_def(TensorType)
    input = operand_def(TensorType)
    hi = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lo: SSAValue | Operation,
        input: SSAValue | Operation,
        hi: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            result_type = _tensor_type(input)
            shape = result_type.get_shape()
            for other in (_tensor_type(lo).get_shape(), _tensor_type(hi).get_shape()):
                if _shapes_compatible(shape, other):
                    shape = _merge_shapes(shape, other)
            result_type = TensorType(result_type.get_element_type(), shape)
        super().__init__(operands=(lo, input, hi), result_types=(result_type,), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        names = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            names.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("("):
            inputs, out = _parse_functional(parser)
        else:
            out = parser.parse_type()
            inputs = [out] * 3
        lo, x, hi = parser.resolve_operands(names, inputs, pos)
        return cls(lo, x, hi, out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        rt = self.result.type
        if all(o.type == rt for o in self.operands):
            printer.print_attribute(rt)
        else:
            _print_functional(printer, [o.type for o in self.operands], rt)

    def verify_(self) -> None:
        ot = cast(TensorType, self.result.type)
        ins = [cast(TensorType, o.type) for o in self.operands]
        _verify_elementwise_types(self, ins, ot)
        shapes = [t.get_shape() for t in ins]
        if not all(_shapes_compatible(shapes[0], s) for s in shapes[1:]):
            raise VerifyException(
                "requires the same shape for all operands and result, got "
                + ", ".join(str(t) for t in ins) + f" -> {ot}"
            )
        _verify_declared_element_type(self, ot.get_element_type())

    def fold(self):
        return _fold_elementwise(self, tuple(self.operands))


def _not_scalar(B, x: SSAValue) -> SSAValue:
    return B.emit1(arith.XOrIOp(x, B.const(-1, x.type)))  # all ones (true on i1)


_LOGICAL = dict(differentiable=False)


@elementwise(integer=arith.AndIOp, i1=arith.AndIOp, **_LOGICAL)
@irdl_op_definition
class AndOp(BinaryElementwiseOp):
    """Bitwise and (logical on i1). Integer and i1 values: not differentiable."""

    name = "tensor.and"


@elementwise(integer=arith.OrIOp, i1=arith.OrIOp, **_LOGICAL)
@irdl_op_definition
class OrOp(BinaryElementwiseOp):
    """Bitwise or (logical on i1). Integer and i1 values: not differentiable."""

    name = "tensor.or"


@elementwise(integer=arith.XOrIOp, i1=arith.XOrIOp, **_LOGICAL)
@irdl_op_definition
class XorOp(BinaryElementwiseOp):
    """Bitwise exclusive or (logical on i1). Integer and i1 values: not differentiable."""

    name = "tensor.xor"


@elementwise(integer=_not_scalar, i1=_not_scalar, numpy=np.invert, cost=Cost.CHEAP, **_LOGICAL)
@irdl_op_definition
class NotOp(UnaryElementwiseOp):
    """Bitwise not (logical on i1; numpy.invert). Integer and i1 values: not differentiable."""

    name = "tensor.not"



# --------------------------------------------------------------------------
# cmp, select
# --------------------------------------------------------------------------

CMP_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")
#: tensor.cmp predicate -> arith.cmpf predicate (ordered, except ne) ...
FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
#: ... -> arith.cmpi predicate on integers (signed) and on i1 (unsigned: true > false)
SIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
UNSIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}
_NUMPY_PREDICATES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                     "gt": np.greater, "ge": np.greater_equal}


class _Comparison(Elementwise):
    """tensor.cmp: the meaning depends on the predicate and on the operands' kind."""

    def __init__(self):
        super().__init__(float=arith.CmpfOp, integer=arith.CmpiOp, i1=arith.CmpiOp,
                         differentiable=False)

    def kind(self, op: Operation) -> ElementKind | None:
        return element_kind(op.operands[0].type)

    def scalar_for(self, op: Operation):
        pred = cast(StringAttr, op.properties["predicate"]).data
        kind = self.kind(op)
        if kind is ElementKind.FLOAT:
            return lambda B, a, b: B.emit1(arith.CmpfOp(a, b, FLOAT_PREDICATES[pred]))
        table = UNSIGNED_PREDICATES if kind is ElementKind.I1 else SIGNED_PREDICATES
        return lambda B, a, b: B.emit1(arith.CmpiOp(a, b, table[pred]))

    def numpy_for(self, op: Operation):
        return resolve(_NUMPY_PREDICATES[cast(StringAttr, op.properties["predicate"]).data])


@elementwise(_Comparison())
@irdl_op_definition
class CmpOp(IRDLOperation, HasFolderInterface):
    """`%m = tensor.cmp gt, %a, %b : tensor<4xf32>` gives `tensor<4xi1>`.

    Float compares are ordered (false on NaN) except `ne`; integer ones are signed.
    """

    name = "tensor.cmp"

    predicate = prop_def(StringAttr)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        predicate: str | StringAttr,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(predicate, str):
            predicate = StringAttr(predicate)
        if result_type is None:
            lt, rt = _tensor_type(lhs), _tensor_type(rhs)
            shape = lt.get_shape()
            if _shapes_compatible(shape, rt.get_shape()):
                shape = _merge_shapes(shape, rt.get_shape())
            result_type = TensorType(i1, shape)
        super().__init__(
            operands=(lhs, rhs),
            result_types=(result_type,),
            properties={"predicate": predicate},
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        pred = parser.parse_identifier()
        if pred not in CMP_PREDICATES:
            parser.raise_error(f"expected a predicate of {', '.join(CMP_PREDICATES)}, got '{pred}'")
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("("):
            inputs, out = _parse_functional(parser)
        else:
            t = parser.parse_type()
            inputs = [t, t]
            if not isinstance(t, TensorType):
                parser.raise_error(f"expected a tensor type, got {t}")
            out = TensorType(i1, t.get_shape())
        operands = parser.resolve_operands([lhs, rhs], inputs, pos)
        return cls(pred, operands[0], operands[1], out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" " + self.predicate.data + ", ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        lt = self.lhs.type
        rt = self.result.type
        if (
            lt == self.rhs.type
            and isinstance(lt, TensorType)
            and isinstance(rt, TensorType)
            and rt.get_element_type() == i1
            and rt.get_shape() == lt.get_shape()
        ):
            printer.print_attribute(lt)
        else:
            _print_functional(printer, (lt, self.rhs.type), rt)

    @property
    def predicate_name(self) -> str:
        return self.predicate.data

    def verify_(self) -> None:
        if self.predicate.data not in CMP_PREDICATES:
            raise VerifyException(
                f"unknown predicate '{self.predicate.data}', expected one of {', '.join(CMP_PREDICATES)}"
            )
        lt = cast(TensorType, self.lhs.type)
        rt = cast(TensorType, self.rhs.type)
        ot = cast(TensorType, self.result.type)
        et = lt.get_element_type()
        if rt.get_element_type() != et:
            raise VerifyException(f"requires the same element type for both operands, got {lt}, {rt}")
        _verify_declared_element_type(self, et)
        if ot.get_element_type() != i1:
            raise VerifyException(f"result must be a tensor of i1, got {ot}")
        if not _shapes_compatible(lt.get_shape(), rt.get_shape()) or not _shapes_compatible(
            lt.get_shape(), ot.get_shape()
        ) or not _shapes_compatible(rt.get_shape(), ot.get_shape()):
            raise VerifyException(
                f"requires the same shape for all operands and result, got {lt}, {rt} -> {ot}"
            )

    def fold(self):
        return _fold_elementwise(self, (self.lhs, self.rhs))


@elementwise(float=arith.SelectOp, integer=arith.SelectOp, i1=arith.SelectOp, numpy=np.where)
@irdl_op_definition
class SelectOp(IRDLOperation, HasFolderInterface):
    """`%r = tensor.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>`: where %m, %a, else %b."""

    name = "tensor.select"

    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        cond: SSAValue | Operation,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            lt, rt, ct = _tensor_type(lhs), _tensor_type(rhs), _tensor_type(cond)
            shape = lt.get_shape()
            for other in (rt.get_shape(), ct.get_shape()):
                if _shapes_compatible(shape, other):
                    shape = _merge_shapes(shape, other)
            result_type = TensorType(lt.get_element_type(), shape)
        super().__init__(operands=(cond, lhs, rhs), result_types=(result_type,), attributes=attributes)

    @property
    def true_value(self) -> SSAValue:
        return self.lhs

    @property
    def false_value(self) -> SSAValue:
        return self.rhs

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("("):
            inputs, out = _parse_functional(parser)
        else:
            ct = parser.parse_type()
            parser.parse_punctuation(",")
            out = parser.parse_type()
            inputs = [ct, out, out]
        operands = parser.resolve_operands([cond, lhs, rhs], inputs, pos)
        return cls(operands[0], operands[1], operands[2], out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list((self.cond, self.lhs, self.rhs), printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        rt = self.result.type
        if self.lhs.type == rt and self.rhs.type == rt:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
            printer.print_attribute(rt)
        else:
            _print_functional(printer, (self.cond.type, self.lhs.type, self.rhs.type), rt)

    def verify_(self) -> None:
        ct = cast(TensorType, self.cond.type)
        lt = cast(TensorType, self.lhs.type)
        rt = cast(TensorType, self.rhs.type)
        ot = cast(TensorType, self.result.type)
        if ct.get_element_type() != i1:
            raise VerifyException(f"condition must be a tensor of i1, got {ct}")
        _verify_elementwise_types(self, (lt, rt), ot)
        if not _shapes_compatible(ct.get_shape(), ot.get_shape()):
            raise VerifyException(
                f"condition shape must match the result shape, got {ct} and {ot}"
            )

    def fold(self):
        if self.lhs == self.rhs and self.lhs.type == self.result.type:
            return (self.lhs,)
        cond = _constant_value(self.cond)
        if cond is None:
            return None
        c = _to_numpy(cond)
        if c is None or c.size == 0:
            return None
        if c.all() and self.lhs.type == self.result.type:
            return (self.lhs,)
        if not c.any() and self.rhs.type == self.result.type:
            return (self.rhs,)
        return _fold_elementwise(self, (self.cond, self.lhs, self.rhs))


# --------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(IRDLOperation, HasFolderInterface):
    """`%c = tensor.matmul %a, %b : (tensor<MxKxf32>, tensor<KxNxf32>) -> tensor<MxNxf32>`."""

    name = "tensor.matmul"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            lt, rt = _tensor_type(lhs), _tensor_type(rhs)
            if lt.get_num_dims() != 2 or rt.get_num_dims() != 2:
                raise ValueError(f"matmul needs 2-d operands, got {lt} and {rt}")
            result_type = TensorType(lt.get_element_type(), (lt.get_shape()[0], rt.get_shape()[1]))
        super().__init__(operands=(lhs, rhs), result_types=(result_type,), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        inputs, out = _parse_functional(parser)
        if len(inputs) != 2:
            parser.raise_error(f"expected 2 operand types, got {len(inputs)}")
        operands = parser.resolve_operands([lhs, rhs], inputs, pos)
        return cls(operands[0], operands[1], out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_functional(printer, (self.lhs.type, self.rhs.type), self.result.type)

    def verify_(self) -> None:
        lt = cast(TensorType, self.lhs.type)
        rt = cast(TensorType, self.rhs.type)
        ot = cast(TensorType, self.result.type)
        for what, t in (("lhs", lt), ("rhs", rt), ("result", ot)):
            if t.get_num_dims() != 2:
                raise VerifyException(f"{what} must be a 2-d tensor, got {t}")
        et = lt.get_element_type()
        if rt.get_element_type() != et or ot.get_element_type() != et:
            raise VerifyException(
                f"requires the same element type for operands and result, got ({lt}, {rt}) -> {ot}"
            )
        if not is_float_type(et):
            raise VerifyException(f"requires float element type, got {et}")
        (m, k1), (k2, n) = lt.get_shape(), rt.get_shape()
        if not _dims_compatible(k1, k2):
            raise VerifyException(f"contracting dimensions differ: {k1} vs {k2}")
        om, on = ot.get_shape()
        if not _dims_compatible(m, om) or not _dims_compatible(n, on):
            raise VerifyException(
                f"result shape {_shape_str((om, on))} does not match the operands' "
                f"{_shape_str((m, n))}"
            )

    @property
    def dims(self) -> DotDims:
        """A matmul is the dot `contract [1] x [0]` (lowerings treat it as one)."""
        return DotDims(2, 2, (), (), (1,), (0,))

    def fold(self):
        lhs = _constant_value(self.lhs)
        rhs = _constant_value(self.rhs)
        if lhs is None or rhs is None:
            return None
        a, b = _to_numpy(lhs), _to_numpy(rhs)
        if a is None or b is None:
            return None
        attr = _from_numpy(a @ b, self.result.type)
        return None if attr is None else (attr,)


# --------------------------------------------------------------------------
# transpose, broadcast, reductions
# --------------------------------------------------------------------------


class _DimsOp(IRDLOperation):
    """Shared syntax: `%r = tensor.<op> %a [d0, d1] : T -> T`."""

    DIMS_NAME: ClassVar[str] = "dimensions"

    input = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def _dims(self) -> tuple[int, ...]:
        return cast(DenseArrayBase, self.properties[self.DIMS_NAME]).get_values()

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        dims = _parse_int_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_type = parser.parse_type()
        parser.parse_punctuation("->")
        out_type = parser.parse_type()
        (value,) = parser.resolve_operands([operand], [in_type], pos)
        return cls(value, dims, out_type, attributes=attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_string(" ")
        _print_int_list(printer, self._dims())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def _verify_element_type(self) -> tuple[TensorType, TensorType]:
        it = cast(TensorType, self.input.type)
        ot = cast(TensorType, self.result.type)
        if it.get_element_type() != ot.get_element_type():
            raise VerifyException(
                f"result element type {ot.get_element_type()} differs from the operand's "
                f"{it.get_element_type()}"
            )
        return it, ot


@irdl_op_definition
class TransposeOp(_DimsOp, HasFolderInterface):
    """`%t = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>`.

    Result dim i is operand dim permutation[i] (numpy.transpose).
    """

    name = "tensor.transpose"
    DIMS_NAME: ClassVar[str] = "permutation"

    permutation = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure(), _TransposeCanonicalization())

    def __init__(
        self,
        input: SSAValue | Operation,
        permutation: Sequence[int] | DenseArrayBase,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        permutation = _int_list(permutation)
        if result_type is None:
            it = _tensor_type(input)
            shape = it.get_shape()
            result_type = TensorType(it.get_element_type(), [shape[p] for p in permutation.get_values()])
        super().__init__(
            operands=(input,),
            result_types=(result_type,),
            properties={"permutation": permutation},
            attributes=attributes,
        )

    def verify_(self) -> None:
        it, ot = self._verify_element_type()
        perm = self.permutation.get_values()
        rank = it.get_num_dims()
        if len(perm) != rank:
            raise VerifyException(
                f"permutation has {len(perm)} entries but the operand has rank {rank}"
            )
        if sorted(perm) != list(range(rank)):
            raise VerifyException(
                f"[{', '.join(map(str, perm))}] is not a permutation of the {rank} operand dimensions"
            )
        if ot.get_num_dims() != rank:
            raise VerifyException(f"result rank {ot.get_num_dims()} differs from the operand rank {rank}")
        ishape, oshape = it.get_shape(), ot.get_shape()
        for i, p in enumerate(perm):
            if not _dims_compatible(oshape[i], ishape[p]):
                raise VerifyException(
                    f"result dimension {i} has size {_dim_str(oshape[i])} but operand dimension "
                    f"{p} has size {_dim_str(ishape[p])}"
                )

    def fold(self):
        perm = self.permutation.get_values()
        if perm == tuple(range(len(perm))) and self.input.type == self.result.type:
            return (self.input,)
        inner = self.input.owner
        if isinstance(inner, TransposeOp):
            inner_perm = inner.permutation.get_values()
            # result dim i = input dim perm[i] = inner input dim inner_perm[perm[i]]
            composed = [inner_perm[p] for p in perm]
            if composed == list(range(len(composed))) and inner.input.type == self.result.type:
                return (inner.input,)
        value = _constant_value(self.input)
        if value is None:
            return None
        a = _to_numpy(value)
        if a is None:
            return None
        attr = _from_numpy(a.transpose(perm), self.result.type)
        return None if attr is None else (attr,)


@irdl_op_definition
class BroadcastOp(_DimsOp, HasFolderInterface):
    """`%b = tensor.broadcast %a [1] : tensor<3xf32> -> tensor<2x3xf32>`.

    StableHLO's broadcast_in_dim: operand dim i goes to result dim dimensions[i];
    dimensions are unique and increasing; an operand dim of size 1 may expand.
    """

    name = "tensor.broadcast"

    dimensions = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure(), _BroadcastCanonicalization())

    def __init__(
        self,
        input: SSAValue | Operation,
        dimensions: Sequence[int] | DenseArrayBase,
        result_type: Attribute,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=(input,),
            result_types=(result_type,),
            properties={"dimensions": _int_list(dimensions)},
            attributes=attributes,
        )

    def verify_(self) -> None:
        it, ot = self._verify_element_type()
        dims = self.dimensions.get_values()
        rank = it.get_num_dims()
        if len(dims) != rank:
            raise VerifyException(
                f"dimensions has {len(dims)} entries but the operand has rank {rank}"
            )
        _verify_dims_list(dims, ot.get_num_dims(), "the result")
        ishape, oshape = it.get_shape(), ot.get_shape()
        for i, d in enumerate(dims):
            s, t = ishape[i], oshape[d]
            if s != 1 and not _dims_compatible(s, t):
                raise VerifyException(
                    f"operand dimension {i} of size {_dim_str(s)} cannot be broadcast to result "
                    f"dimension {d} of size {_dim_str(t)}"
                )

    def fold(self):
        dims = self.dimensions.get_values()
        if self.input.type == self.result.type and dims == tuple(range(len(dims))):
            return (self.input,)
        value = _constant_value(self.input)
        if value is None:
            return None
        rt = cast(TensorType, self.result.type)
        if DYN in rt.get_shape():
            return None
        a = _to_numpy(value)
        if a is None:
            return None
        import numpy as np

        shape = [1] * rt.get_num_dims()
        for i, d in enumerate(dims):
            shape[d] = a.shape[i]
        n = 1
        for d in rt.get_shape():
            n *= d
        if n > FOLD_LIMIT:
            return None
        attr = _from_numpy(np.broadcast_to(a.reshape(shape), rt.get_shape()), rt)
        return None if attr is None else (attr,)


class _ReduceOp(_DimsOp, HasFolderInterface):
    dimensions = prop_def(DenseArrayBase.constr(i64))

    def __init__(
        self,
        input: SSAValue | Operation,
        dimensions: Sequence[int] | DenseArrayBase,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        dimensions = _int_list(dimensions)
        if result_type is None:
            it = _tensor_type(input)
            dims = set(dimensions.get_values())
            shape = [s for i, s in enumerate(it.get_shape()) if i not in dims]
            result_type = TensorType(it.get_element_type(), shape)
        super().__init__(
            operands=(input,),
            result_types=(result_type,),
            properties={"dimensions": dimensions},
            attributes=attributes,
        )

    def verify_(self) -> None:
        it, ot = self._verify_element_type()
        et = it.get_element_type()
        if not (is_float_type(et) or is_integer_type(et)):
            raise VerifyException(f"requires float or integer element type, got {et}")
        dims = self.dimensions.get_values()
        _verify_dims_list(dims, it.get_num_dims(), "the operand")
        kept = [s for i, s in enumerate(it.get_shape()) if i not in dims]
        if not _shapes_compatible(kept, ot.get_shape()):
            raise VerifyException(
                f"result type {ot} does not match the operand with dimensions "
                f"[{', '.join(map(str, dims))}] reduced, expected shape {_shape_str(kept)}"
            )

    def fold(self):
        dims = self.dimensions.get_values()
        if not dims and self.input.type == self.result.type:
            return (self.input,)
        value = _constant_value(self.input)
        if value is None:
            return None
        a = _to_numpy(value)
        if a is None:
            return None
        attr = _from_numpy(self.numpy(a, tuple(dims)), self.result.type)
        return None if attr is None else (attr,)

    # A reduction declares its combiner (an elementwise op), the initial value of its
    # accumulator and its numpy meaning; the kernels and the interpreter use them.
    COMBINER: ClassVar[type[IRDLOperation]]

    @staticmethod
    def initial(et: Attribute) -> int | float:  # pragma: no cover - declared by each reduction
        raise NotImplementedError

    def numpy(self, a, axes: tuple[int, ...]):  # pragma: no cover - declared by each reduction
        raise NotImplementedError


def _extreme_value(et: Attribute, sign: int) -> int | float:
    """The least (``sign`` -1) or greatest (1) value of element type ``et``: -inf/+inf,
    the smallest/largest signed integer, false/true for i1."""
    kind = element_kind(et)
    if kind is ElementKind.FLOAT:
        return sign * float("inf")
    if kind is ElementKind.I1:
        return int(sign > 0)
    width = 64 if isinstance(et, IndexType) else cast(IntegerType, et).width.data
    return 2 ** (width - 1) - 1 if sign > 0 else -(2 ** (width - 1))


@irdl_op_definition
class ReduceSumOp(_ReduceOp):
    """`%s = tensor.reduce_sum %a [0, 1] : tensor<2x3xf32> -> tensor<f32>` (empty sum is 0;
    on i1 the parity, as one-bit addition)."""

    name = "tensor.reduce_sum"
    COMBINER: ClassVar[type[IRDLOperation]] = AddOp

    @staticmethod
    def initial(et: Attribute) -> int | float:
        return 0

    def numpy(self, a, axes: tuple[int, ...]):
        if a.dtype == np.bool_:
            return np.logical_xor.reduce(a, axis=axes)
        return np.sum(a, axis=axes, dtype=a.dtype)


@irdl_op_definition
class ReduceMaxOp(_ReduceOp):
    """`%s = tensor.reduce_max %a [1] : tensor<2x3xf32> -> tensor<2xf32>` (empty max is -inf,
    the smallest integer for integers, false for i1)."""

    name = "tensor.reduce_max"
    COMBINER: ClassVar[type[IRDLOperation]] = MaxOp

    @staticmethod
    def initial(et: Attribute) -> int | float:
        return _extreme_value(et, -1)

    def numpy(self, a, axes: tuple[int, ...]):
        et = cast(TensorType, self.input.type).get_element_type()
        return np.maximum.reduce(a, axis=axes, initial=a.dtype.type(self.initial(et)))


# --------------------------------------------------------------------------
# Ops for real models (SPEC §3.1): dot, reduce_min, reduce_prod, argmax,
# argmin, iota, reverse
# --------------------------------------------------------------------------


@irdl_op_definition
class ReduceMinOp(_ReduceOp):
    """`%s = tensor.reduce_min %a [1] : tensor<2x3xf32> -> tensor<2xf32>` (empty min is +inf,
    the largest integer for integers, true for i1; NaN propagates, as numpy.min)."""

    name = "tensor.reduce_min"
    COMBINER: ClassVar[type[IRDLOperation]] = MinOp

    @staticmethod
    def initial(et: Attribute) -> int | float:
        return _extreme_value(et, 1)

    def numpy(self, a, axes: tuple[int, ...]):
        et = cast(TensorType, self.input.type).get_element_type()
        return np.minimum.reduce(a, axis=axes, initial=a.dtype.type(self.initial(et)))


@irdl_op_definition
class ReduceProdOp(_ReduceOp):
    """`%p = tensor.reduce_prod %a [0] : tensor<2x3xf32> -> tensor<3xf32>` (empty product is 1;
    on i1 the conjunction, as one-bit multiplication; integers wrap)."""

    name = "tensor.reduce_prod"
    COMBINER: ClassVar[type[IRDLOperation]] = MulOp

    @staticmethod
    def initial(et: Attribute) -> int | float:
        return 1

    def numpy(self, a, axes: tuple[int, ...]):
        if a.dtype == np.bool_:
            return np.logical_and.reduce(a, axis=axes)
        return np.prod(a, axis=axes, dtype=a.dtype)


class _ArgExtremeOp(_DimsOp, HasFolderInterface):
    """`%k = tensor.argmax %x [1] : tensor<4x5xf32> -> tensor<4xi64>`: the index along one
    dim of the first extreme element (a NaN counts as the extreme, as numpy.argmax);
    i1 compares unsigned (true > false), integers signed. An empty dim gives index 0
    (numpy raises; StableHLO's reduce-based argmax gives its initial index)."""

    dimensions = prop_def(DenseArrayBase.constr(i64))

    #: numpy.argmax or numpy.argmin
    NUMPY: ClassVar = staticmethod(np.argmax)

    def __init__(
        self,
        input: SSAValue | Operation,
        dimensions: Sequence[int] | DenseArrayBase,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        dimensions = _int_list(dimensions)
        if result_type is None:
            it = _tensor_type(input)
            dims = set(dimensions.get_values())
            result_type = TensorType(i64, [s for i, s in enumerate(it.get_shape()) if i not in dims])
        super().__init__(operands=(input,), result_types=(result_type,),
                         properties={"dimensions": dimensions}, attributes=attributes)

    @property
    def dim(self) -> int:
        return self.dimensions.get_values()[0]

    def verify_(self) -> None:
        it = cast(TensorType, self.input.type)
        ot = cast(TensorType, self.result.type)
        et = it.get_element_type()
        if not (is_float_type(et) or is_integer_type(et)):
            raise VerifyException(f"requires float or integer element type, got {et}")
        if ot.get_element_type() != i64:
            raise VerifyException(f"result element type must be i64, got {ot.get_element_type()}")
        dims = self.dimensions.get_values()
        if len(dims) != 1:
            raise VerifyException(f"expects exactly one dimension, got {len(dims)}")
        _verify_dims_list(dims, it.get_num_dims(), "the operand")
        kept = [s for i, s in enumerate(it.get_shape()) if i != dims[0]]
        if not _shapes_compatible(kept, ot.get_shape()):
            raise VerifyException(
                f"result type {ot} does not match the operand with dimension {dims[0]} "
                f"removed, expected shape {_shape_str(kept)}"
            )

    def numpy(self, a):
        axis = self.dim
        if a.shape[axis] == 0:
            return np.zeros(a.shape[:axis] + a.shape[axis + 1:], dtype=np.int64)
        return self.NUMPY(a, axis=axis).astype(np.int64)

    def fold(self):
        value = _constant_value(self.input)
        a = None if value is None else _to_numpy(value)
        if a is None:
            return None
        attr = _from_numpy(self.numpy(a), self.result.type)
        return None if attr is None else (attr,)


@irdl_op_definition
class ArgMaxOp(_ArgExtremeOp):
    """`%k = tensor.argmax %x [1] : tensor<4x5xf32> -> tensor<4xi64>`: the index of the
    first maximum along the dim (the first NaN, if any; true > false on i1; index 0
    along an empty dim)."""

    name = "tensor.argmax"
    NUMPY: ClassVar = staticmethod(np.argmax)


@irdl_op_definition
class ArgMinOp(_ArgExtremeOp):
    """`%k = tensor.argmin %x [0] : tensor<4x5xf32> -> tensor<5xi64>`: the index of the
    first minimum along the dim (the first NaN, if any; false < true on i1; index 0
    along an empty dim)."""

    name = "tensor.argmin"
    NUMPY: ClassVar = staticmethod(np.argmin)


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`%i = tensor.iota [1] : tensor<4x3xi64>`: element (i0, i1, ...) is i_d (StableHLO
    iota), integer or float, static shape. Not folded: the constant would cost more
    than the loop that computes it."""

    name = "tensor.iota"

    iota_dimension = prop_def(IntegerAttr.constr(i64))
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(self, dim: int | IntegerAttr, result_type: Attribute,
                 attributes: Mapping[str, Attribute] | None = None):
        if isinstance(dim, int):
            dim = IntegerAttr(dim, i64)
        super().__init__(result_types=(result_type,), properties={"iota_dimension": dim},
                         attributes=attributes)

    @property
    def dim(self) -> int:
        return self.iota_dimension.value.data

    @classmethod
    def parse(cls, parser: Parser):
        dims = _parse_int_list(parser)
        if len(dims) != 1:
            parser.raise_error(f"expected exactly one dimension, got {len(dims)}")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls(dims[0], parser.parse_type(), attrs)

    def print(self, printer: Printer):
        printer.print_string(f" [{self.dim}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        ot = cast(TensorType, self.result.type)
        et = ot.get_element_type()
        if not is_float_type(et) and not (is_integer_type(et) and element_kind(et) is not ElementKind.I1):
            raise VerifyException(f"requires float or integer (not i1) element type, got {et}")
        if DYN in ot.get_shape():
            raise VerifyException(f"requires a static result shape, got {ot}")
        if not 0 <= self.dim < ot.get_num_dims():
            raise VerifyException(f"dimension {self.dim} is out of range for the result of rank "
                                  f"{ot.get_num_dims()}")

    def numpy(self):
        ot = cast(TensorType, self.result.type)
        shape = tuple(ot.get_shape())
        line = np.arange(shape[self.dim], dtype=_numpy_dtype(ot.get_element_type()))
        expanded = [1] * len(shape)
        expanded[self.dim] = shape[self.dim]
        return np.broadcast_to(line.reshape(expanded), shape)


@irdl_op_definition
class ReverseOp(_DimsOp, HasFolderInterface):
    """`%r = tensor.reverse %a [0] : tensor<4x3xf32>`: the order of the elements along each
    of the dims (unique, any order) reversed (StableHLO reverse, numpy.flip)."""

    name = "tensor.reverse"

    dimensions = prop_def(DenseArrayBase.constr(i64))

    def __init__(
        self,
        input: SSAValue | Operation,
        dimensions: Sequence[int] | DenseArrayBase,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            result_type = _tensor_type(input)
        super().__init__(operands=(input,), result_types=(result_type,),
                         properties={"dimensions": _int_list(dimensions)}, attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        dims = _parse_int_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_type = parser.parse_type()
        out_type = parser.parse_type() if parser.parse_optional_punctuation("->") else in_type
        (value,) = parser.resolve_operands([operand], [in_type], pos)
        return cls(value, dims, out_type, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_string(" ")
        _print_int_list(printer, self._dims())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        if self.result.type != self.input.type:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        it, ot = self._verify_element_type()
        if not _shapes_compatible(it.get_shape(), ot.get_shape()):
            raise VerifyException(f"result type {ot} does not match the operand type {it}")
        dims = self._dims()
        for d in dims:
            if not 0 <= d < it.get_num_dims():
                raise VerifyException(f"dimension {d} is out of range for the operand of rank "
                                      f"{it.get_num_dims()}")
        if len(set(dims)) != len(dims):
            raise VerifyException(f"dimensions must be unique, got [{', '.join(map(str, dims))}]")

    def fold(self):
        dims = self._dims()
        same = self.input.type == self.result.type
        if not dims and same:
            return (self.input,)
        inner = self.input.owner
        if isinstance(inner, ReverseOp) and set(inner._dims()) == set(dims) \
                and inner.input.type == self.result.type:
            return (inner.input,)
        value = _constant_value(self.input)
        a = None if value is None else _to_numpy(value)
        if a is None:
            return None
        attr = _from_numpy(np.flip(a, axis=dims), self.result.type)
        return None if attr is None else (attr,)


class DotDims:
    """The dimension numbers of a `tensor.dot` (StableHLO dot_general): which dims of the
    lhs and rhs pair up as batch dims and as contracting dims; the others are free."""

    def __init__(self, lhs_rank: int, rhs_rank: int, lhs_batch: Sequence[int] = (),
                 rhs_batch: Sequence[int] = (), lhs_contract: Sequence[int] = (),
                 rhs_contract: Sequence[int] = ()):
        self.lhs_rank, self.rhs_rank = lhs_rank, rhs_rank
        self.lhs_batch, self.rhs_batch = tuple(lhs_batch), tuple(rhs_batch)
        self.lhs_contract, self.rhs_contract = tuple(lhs_contract), tuple(rhs_contract)

    @property
    def lhs_free(self) -> tuple[int, ...]:
        taken = set(self.lhs_batch) | set(self.lhs_contract)
        return tuple(d for d in range(self.lhs_rank) if d not in taken)

    @property
    def rhs_free(self) -> tuple[int, ...]:
        taken = set(self.rhs_batch) | set(self.rhs_contract)
        return tuple(d for d in range(self.rhs_rank) if d not in taken)

    def result_shape(self, ls: Sequence[int], rs: Sequence[int]) -> list[int]:
        """Batch dims (the lhs's sizes, the rhs's where the lhs's is dynamic), lhs free, rhs free."""
        batch = [rs[r] if ls[lb] == DYN else ls[lb] for lb, r in zip(self.lhs_batch, self.rhs_batch)]
        return [*batch, *(ls[d] for d in self.lhs_free), *(rs[d] for d in self.rhs_free)]

    def numpy(self, a, b):
        """dot_general on numpy arrays (one batched np.matmul, in the operands' dtype)."""
        lf, rf = self.lhs_free, self.rhs_free
        at = np.transpose(a, (*self.lhs_batch, *lf, *self.lhs_contract))
        bt = np.transpose(b, (*self.rhs_batch, *self.rhs_contract, *rf))
        nb = len(self.lhs_batch)
        batch = at.shape[:nb]
        m = int(np.prod(at.shape[nb:nb + len(lf)], dtype=np.int64))
        k = int(np.prod(at.shape[nb + len(lf):], dtype=np.int64))
        n = int(np.prod(bt.shape[nb + len(self.rhs_contract):], dtype=np.int64))
        c = np.matmul(at.reshape((*batch, m, k)), bt.reshape((*batch, k, n)))
        return c.reshape((*batch, *at.shape[nb:nb + len(lf)], *bt.shape[nb + len(self.rhs_contract):]))


@irdl_op_definition
class DotOp(IRDLOperation, HasFolderInterface):
    """`%c = tensor.dot %a, %b batch [0] x [0] contract [2] x [1] : (tensor<8x64x32xf32>,
    tensor<8x32x16xf32>) -> tensor<8x64x16xf32>`: StableHLO dot_general. Batch dims pair
    up, contracting dims are summed over; the result has the batch dims (in clause
    order), then the lhs free dims, then the rhs free dims (each in operand order).
    An empty clause may be left out (and is, when printed)."""

    name = "tensor.dot"

    lhs_batching_dimensions = prop_def(DenseArrayBase.constr(i64))
    rhs_batching_dimensions = prop_def(DenseArrayBase.constr(i64))
    lhs_contracting_dimensions = prop_def(DenseArrayBase.constr(i64))
    rhs_contracting_dimensions = prop_def(DenseArrayBase.constr(i64))
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        batch: tuple[Sequence[int], Sequence[int]] = ((), ()),
        contract: tuple[Sequence[int], Sequence[int]] = ((), ()),
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_type is None:
            lt, rt = _tensor_type(lhs), _tensor_type(rhs)
            dims = DotDims(lt.get_num_dims(), rt.get_num_dims(), *batch, *contract)
            result_type = TensorType(lt.get_element_type(), dims.result_shape(lt.get_shape(), rt.get_shape()))
        super().__init__(
            operands=(lhs, rhs),
            result_types=(result_type,),
            properties={
                "lhs_batching_dimensions": _int_list(batch[0]),
                "rhs_batching_dimensions": _int_list(batch[1]),
                "lhs_contracting_dimensions": _int_list(contract[0]),
                "rhs_contracting_dimensions": _int_list(contract[1]),
            },
            attributes=attributes,
        )

    @property
    def dims(self) -> DotDims:
        return DotDims(
            cast(TensorType, self.lhs.type).get_num_dims(), cast(TensorType, self.rhs.type).get_num_dims(),
            self.lhs_batching_dimensions.get_values(), self.rhs_batching_dimensions.get_values(),
            self.lhs_contracting_dimensions.get_values(), self.rhs_contracting_dimensions.get_values(),
        )

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        clauses: dict[str, tuple[list[int], list[int]]] = {"batch": ([], []), "contract": ([], [])}
        for keyword in clauses:
            if parser.parse_optional_keyword(keyword):
                left = _parse_int_list(parser)
                parser.parse_keyword("x")
                clauses[keyword] = (left, _parse_int_list(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        inputs, out = _parse_functional(parser)
        if len(inputs) != 2:
            parser.raise_error(f"expected 2 operand types, got {len(inputs)}")
        operands = parser.resolve_operands([lhs, rhs], inputs, pos)
        return cls(operands[0], operands[1], clauses["batch"], clauses["contract"], out, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        d = self.dims
        for keyword, left, right in (("batch", d.lhs_batch, d.rhs_batch),
                                     ("contract", d.lhs_contract, d.rhs_contract)):
            if left or right:
                printer.print_string(f" {keyword} ")
                _print_int_list(printer, left)
                printer.print_string(" x ")
                _print_int_list(printer, right)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_functional(printer, (self.lhs.type, self.rhs.type), self.result.type)

    def verify_(self) -> None:
        lt = cast(TensorType, self.lhs.type)
        rt = cast(TensorType, self.rhs.type)
        ot = cast(TensorType, self.result.type)
        et = lt.get_element_type()
        if rt.get_element_type() != et or ot.get_element_type() != et:
            raise VerifyException(
                f"requires the same element type for operands and result, got ({lt}, {rt}) -> {ot}"
            )
        if not is_float_type(et):
            raise VerifyException(f"requires float element type, got {et}")
        d = self.dims
        for what, left, right in (("batching", d.lhs_batch, d.rhs_batch),
                                  ("contracting", d.lhs_contract, d.rhs_contract)):
            if len(left) != len(right):
                raise VerifyException(
                    f"{what} dimension lists differ in length: {len(left)} vs {len(right)}")
        for side, t, listed in (("lhs", lt, (*d.lhs_batch, *d.lhs_contract)),
                                ("rhs", rt, (*d.rhs_batch, *d.rhs_contract))):
            rank = t.get_num_dims()
            for i, x in enumerate(listed):
                if not 0 <= x < rank:
                    raise VerifyException(f"{side} dimension {x} is out of range for rank {rank}")
                if x in listed[:i]:
                    raise VerifyException(f"{side} dimension {x} is listed more than once")
        ls, rs = lt.get_shape(), rt.get_shape()
        for what, left, right in (("batch", d.lhs_batch, d.rhs_batch),
                                  ("contracting", d.lhs_contract, d.rhs_contract)):
            for a, b in zip(left, right):
                if not _dims_compatible(ls[a], rs[b]):
                    raise VerifyException(
                        f"{what} dimensions differ: {_dim_str(ls[a])} vs {_dim_str(rs[b])} "
                        f"(lhs dimension {a}, rhs dimension {b})")
        expected = d.result_shape(ls, rs)
        if not _shapes_compatible(expected, ot.get_shape()):
            raise VerifyException(
                f"result shape {_shape_str(ot.get_shape())} does not match the operands' "
                f"{_shape_str(expected)}"
            )

    def fold(self):
        lhs, rhs = _constant_value(self.lhs), _constant_value(self.rhs)
        if lhs is None or rhs is None:
            return None
        a, b = _to_numpy(lhs), _to_numpy(rhs)
        if a is None or b is None:
            return None
        attr = _from_numpy(self.dims.numpy(a, b), self.result.type)
        return None if attr is None else (attr,)


MODEL_OPS: tuple[type[IRDLOperation], ...] = (
    DotOp, ReduceMinOp, ReduceProdOp, ArgMaxOp, ArgMinOp, IotaOp, ReverseOp,
)


# --------------------------------------------------------------------------
# convolution and windowed reductions (pooling)
# --------------------------------------------------------------------------


def windowed_size(size: int, window: int, stride: int, lo: int, hi: int,
                  input_dilation: int = 1, dilation: int = 1) -> int:
    """StableHLO's output size of one windowed dim: the operand dilated by
    ``input_dilation`` and padded by ``lo``/``hi`` (negative crops), the window
    dilated by ``dilation``, every ``stride``-th position; dynamic in, dynamic out."""
    if size == DYN or window == DYN:
        return DYN
    dilated = 0 if size == 0 else (size - 1) * input_dilation + 1
    padded = dilated + lo + hi
    span = 0 if window == 0 else (window - 1) * dilation + 1
    return 0 if padded < span else (padded - span) // stride + 1


def _parse_pad_pairs(parser: Parser) -> list[int]:
    """`[[lo, hi], ...]` as a flat list lo0, hi0, lo1, hi1, ..."""
    pairs = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, lambda: _parse_int_list(parser))
    flat: list[int] = []
    for pair in pairs:
        if len(pair) != 2:
            parser.raise_error(f"expected a [lo, hi] pair, got {len(pair)} values")
        flat.extend(pair)
    return flat


def _print_pad_pairs(printer: Printer, flat: Sequence[int]) -> None:
    pairs = [f"[{flat[i]}, {flat[i + 1]}]" for i in range(0, len(flat), 2)]
    printer.print_string("[" + ", ".join(pairs) + "]")


def _verify_clause(name: str, values: Sequence[int], count: int, what: str, minimum: int | None) -> None:
    if len(values) != count:
        raise VerifyException(f"{name} must have {count} entries (one per {what}), got {len(values)}")
    if minimum is not None and any(v < minimum for v in values):
        adjective = "positive" if minimum == 1 else f"at least {minimum}"
        raise VerifyException(f"{name} entries must be {adjective}, got [{', '.join(map(str, values))}]")


def _clause(props: Mapping[str, Attribute], name: str, count: int, default: int) -> tuple[int, ...]:
    """A clause of ``count`` entries from properties (its default when absent or of
    another length: inference then yields a type the verifier rejects with a message)."""
    v = props.get(name)
    got = (default,) * count if v is None else cast(DenseArrayBase, v).get_values()
    return got if len(got) == count else (default,) * count


def _parse_binary_tail(parser: Parser, operands, pos: int) -> tuple[list[SSAValue], Attribute, dict | None]:
    """`{attrs}? : (T1, T2) -> T` after two operands: the resolved operands, the
    result type and the attributes."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    parser.parse_punctuation("(")
    inputs, out = _parse_functional(parser)
    if len(inputs) != 2:
        parser.raise_error(f"expected 2 operand types, got {len(inputs)}")
    return parser.resolve_operands(operands, inputs, pos), out, attrs


def _print_binary_head(printer: Printer, a: SSAValue, b: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_ssa_value(a)
    printer.print_string(", ")
    printer.print_ssa_value(b)


def _print_binary_tail(printer: Printer, op: Operation, a: SSAValue, b: SSAValue) -> None:
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    _print_functional(printer, (a.type, b.type), op.results[0].type)


class _WindowClauses(IRDLOperation):
    """Optional list clauses (``CLAUSES``: keyword, property name, default entry,
    kind) kept as properties only when they differ from their default, so that
    the custom form (which omits defaults) and the generic form round-trip to the
    same op."""

    CLAUSES: ClassVar[tuple[tuple[str, str, int], ...]] = ()
    PAD_PROPERTY: ClassVar[str] = "pad"

    def clause(self, prop: str, count: int, default: int) -> tuple[int, ...]:
        """The clause's entries as given (verified against ``count`` by the verifier)."""
        value = self.properties.get(prop)
        return (default,) * count if value is None else cast(DenseArrayBase, value).get_values()

    def pads(self, count: int) -> list[tuple[int, int]]:
        """(lo, hi) per windowed dim."""
        flat = self.clause(self.PAD_PROPERTY, 2 * count, 0)
        return [(flat[2 * i], flat[2 * i + 1]) for i in range(len(flat) // 2)]

    @classmethod
    def _clause_properties(cls, values: Mapping[str, Sequence[int] | DenseArrayBase | None]) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        for _, prop, default in cls.CLAUSES:
            v = values.get(prop)
            if v is None:
                continue
            arr = _int_list(v)
            if any(x != default for x in arr.get_values()) or not arr.get_values():
                props[prop] = arr
        return props

    @classmethod
    def _parse_clauses(cls, parser: Parser) -> dict[str, list[int]]:
        got: dict[str, list[int]] = {}
        for keyword, prop, _ in cls.CLAUSES:
            if parser.parse_optional_keyword(keyword) is not None:
                got[prop] = _parse_pad_pairs(parser) if prop == cls.PAD_PROPERTY else _parse_int_list(parser)
        return got

    def _print_clauses(self, printer: Printer) -> None:
        for keyword, prop, _ in self.CLAUSES:
            value = self.properties.get(prop)
            if value is None:
                continue
            printer.print_string(f" {keyword} ")
            values = cast(DenseArrayBase, value).get_values()
            if prop == self.PAD_PROPERTY:
                _print_pad_pairs(printer, values)
            else:
                _print_int_list(printer, values)


@irdl_op_definition
class ConvOp(_WindowClauses):
    """`%y = tensor.conv %x, %w stride [2, 2] pad [[1, 1], [1, 1]] : (tensor<8x28x28x3xf32>,
    tensor<3x3x3x16xf32>) -> tensor<8x14x14x16xf32>`.

    StableHLO's convolution (a cross-correlation: the filter is not flipped),
    channels last: input N × spatial... × C, filter spatial... × C/groups × F,
    result N × spatial... × F, for 1 to 3 spatial dims. Optional clauses, in
    this order: `stride`, `pad` ([lo, hi] per spatial dim; negative crops, as
    StableHLO), `input_dilation`, `dilation` (of the filter), `groups`
    (feature_group_count: input channels and output features split into that
    many groups, group g of the output reading group g of the input).
    Defaults 1 / 0 / 1 / 1 / 1 are omitted when printed.
    """

    name = "tensor.conv"

    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    result = result_def(TensorType)

    stride = opt_prop_def(DenseArrayBase.constr(i64))
    pad = opt_prop_def(DenseArrayBase.constr(i64))
    input_dilation = opt_prop_def(DenseArrayBase.constr(i64))
    dilation = opt_prop_def(DenseArrayBase.constr(i64))
    groups = opt_prop_def(IntegerAttr)

    traits = traits_def(Pure())

    CLAUSES: ClassVar[tuple[tuple[str, str, int], ...]] = (
        ("stride", "stride", 1), ("pad", "pad", 0), ("input_dilation", "input_dilation", 1),
        ("dilation", "dilation", 1),
    )

    def __init__(
        self,
        input: SSAValue | Operation,
        filter: SSAValue | Operation,
        stride: Sequence[int] | DenseArrayBase | None = None,
        pad: Sequence[int] | Sequence[Sequence[int]] | DenseArrayBase | None = None,
        input_dilation: Sequence[int] | DenseArrayBase | None = None,
        dilation: Sequence[int] | DenseArrayBase | None = None,
        groups: int = 1,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        """``pad``: [[lo, hi], ...] or flat [lo0, hi0, lo1, hi1, ...]; the result type
        is inferred when not given."""
        if pad is not None and not isinstance(pad, DenseArrayBase):
            pad = [int(v) for p in pad for v in (p if isinstance(p, Sequence) else (p,))]
        props = self._clause_properties(
            {"stride": stride, "pad": pad, "input_dilation": input_dilation, "dilation": dilation})
        if groups != 1:
            props["groups"] = IntegerAttr(groups, i64)
        if result_type is None:
            it, ft = _tensor_type(input), _tensor_type(filter)
            result_type = TensorType(it.get_element_type(), conv_result_shape(
                it.get_shape(), ft.get_shape(), props))
        super().__init__(operands=(input, filter), result_types=(result_type,), properties=props,
                         attributes=attributes)

    @property
    def spatial_rank(self) -> int:
        return cast(TensorType, self.input.type).get_num_dims() - 2

    def params(self) -> tuple[tuple[int, ...], list[tuple[int, int]], tuple[int, ...], tuple[int, ...], int]:
        """(stride, [(lo, hi)], input_dilation, dilation, groups), defaults filled in."""
        d = self.spatial_rank
        return (self.clause("stride", d, 1), self.pads(d), self.clause("input_dilation", d, 1),
                self.clause("dilation", d, 1), self.group_count)

    @property
    def group_count(self) -> int:
        return 1 if self.groups is None else self.groups.value.data

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        x = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        w = parser.parse_unresolved_operand()
        clauses = cls._parse_clauses(parser)
        groups = parser.parse_integer() if parser.parse_optional_keyword("groups") is not None else 1
        (xv, wv), out, attrs = _parse_binary_tail(parser, [x, w], pos)
        return cls(xv, wv, clauses.get("stride"), clauses.get("pad"), clauses.get("input_dilation"),
                   clauses.get("dilation"), groups, out, attrs)

    def print(self, printer: Printer):
        _print_binary_head(printer, self.input, self.filter)
        self._print_clauses(printer)
        if self.group_count != 1:
            printer.print_string(f" groups {self.group_count}")
        _print_binary_tail(printer, self, self.input, self.filter)

    def verify_(self) -> None:
        it = cast(TensorType, self.input.type)
        ft = cast(TensorType, self.filter.type)
        ot = cast(TensorType, self.result.type)
        rank = it.get_num_dims()
        if rank not in (3, 4, 5):
            raise VerifyException(
                f"input must have rank 3, 4 or 5 (batch, 1 to 3 spatial dims, features), got {it}")
        for what, t in (("filter", ft), ("result", ot)):
            if t.get_num_dims() != rank:
                raise VerifyException(f"{what} rank {t.get_num_dims()} differs from the input rank {rank}")
        et = it.get_element_type()
        if ft.get_element_type() != et or ot.get_element_type() != et:
            raise VerifyException(
                f"requires the same element type for operands and result, got ({it}, {ft}) -> {ot}")
        if not is_float_type(et):
            raise VerifyException(f"requires float element type, got {et}")
        d = rank - 2
        for name, prop, default in self.CLAUSES:
            count = 2 * d if prop == "pad" else d
            what = "spatial dimension" if prop != "pad" else "spatial dimension: [lo, hi] pairs"
            values = self.clause(prop, count, default)
            if prop == "pad":
                if len(values) != count:
                    raise VerifyException(f"pad must have {d} [lo, hi] pairs (one per spatial dimension), "
                                          f"got {len(values) // 2}")
            else:
                _verify_clause(name, values, count, what, 1)
        groups = self.group_count
        if groups < 1:
            raise VerifyException(f"groups must be positive, got {groups}")
        ishape, fshape, oshape = it.get_shape(), ft.get_shape(), ot.get_shape()
        c, cg, f = ishape[-1], fshape[-2], fshape[-1]
        for i, k in enumerate(fshape[:-2]):
            if k != DYN and k < 1:
                raise VerifyException(f"filter spatial dimension {i} must not be empty, got size {k}")
        if c != DYN and c % groups:
            raise VerifyException(f"input feature dimension {c} is not divisible by groups {groups}")
        if c != DYN and cg != DYN and cg * groups != c:
            raise VerifyException(
                f"filter input feature dimension {cg} times groups {groups} does not match the input "
                f"feature dimension {c}")
        if f != DYN and f % groups:
            raise VerifyException(f"filter output feature dimension {f} is not divisible by groups {groups}")
        expected = conv_result_shape(ishape, fshape, self.properties)
        if not _shapes_compatible(expected, oshape):
            raise VerifyException(
                f"result shape {_shape_str(oshape)} does not match the expected {_shape_str(expected)}")


def conv_result_shape(ishape: Sequence[int], fshape: Sequence[int],
                      props: Mapping[str, Attribute]) -> tuple[int, ...]:
    """N × spatial... × F of a conv of these shapes and clause properties."""
    d = len(ishape) - 2
    stride, pad = _clause(props, "stride", d, 1), _clause(props, "pad", 2 * d, 0)
    ldil, rdil = _clause(props, "input_dilation", d, 1), _clause(props, "dilation", d, 1)
    spatial = [windowed_size(ishape[1 + i], fshape[i], stride[i], pad[2 * i], pad[2 * i + 1], ldil[i], rdil[i])
               for i in range(d)]
    return (ishape[0], *spatial, fshape[-1])


class _WindowOp(_WindowClauses):
    """Windows over every dim of an operand: `window [..]`, optional `stride [..]`
    and `pad [[lo, hi], ..]` (one entry or pair per dim)."""

    window = prop_def(DenseArrayBase.constr(i64))
    stride = opt_prop_def(DenseArrayBase.constr(i64))
    pad = opt_prop_def(DenseArrayBase.constr(i64))

    CLAUSES: ClassVar[tuple[tuple[str, str, int], ...]] = (("stride", "stride", 1), ("pad", "pad", 0))

    def window_params(self) -> tuple[tuple[int, ...], tuple[int, ...], list[tuple[int, int]]]:
        """(window, stride, [(lo, hi)]), defaults filled in."""
        w = self.window.get_values()
        return w, self.clause("stride", len(w), 1), self.pads(len(w))

    def _window_props(self, window, stride, pad) -> dict[str, Attribute]:
        if pad is not None and not isinstance(pad, DenseArrayBase):
            pad = [int(v) for p in pad for v in (p if isinstance(p, Sequence) else (p,))]
        props = self._clause_properties({"stride": stride, "pad": pad})
        props["window"] = _int_list(window)
        return props

    @classmethod
    def pooled_type(cls, operand: SSAValue | Operation, props: Mapping[str, Attribute]) -> TensorType:
        """The type of ``operand`` pooled by the clause properties ``props``."""
        t = _tensor_type(operand)
        window = cast(DenseArrayBase, props["window"]).get_values()
        n = len(window)
        flat = _clause(props, "pad", 2 * n, 0)
        pads = [(flat[2 * i], flat[2 * i + 1]) for i in range(n)]
        return TensorType(t.get_element_type(),
                          cls.pooled_shape(t.get_shape(), window, _clause(props, "stride", n, 1), pads))

    @staticmethod
    def pooled_shape(shape: Sequence[int], window: Sequence[int], stride: Sequence[int],
                     pads: Sequence[tuple[int, int]]) -> tuple[int, ...]:
        return tuple(windowed_size(s, w, st, lo, hi) for s, w, st, (lo, hi) in zip(shape, window, stride, pads))

    def _verify_window(self, operand: TensorType) -> tuple[int, ...]:
        """Checks the clauses against ``operand``; its pooled shape."""
        rank = operand.get_num_dims()
        window, stride, pads = self.window_params()
        _verify_clause("window", window, rank, "operand dimension", 1)
        _verify_clause("stride", self.clause("stride", rank, 1), rank, "operand dimension", 1)
        flat = self.clause("pad", 2 * rank, 0)
        if len(flat) != 2 * rank:
            raise VerifyException(f"pad must have {rank} [lo, hi] pairs (one per operand dimension), "
                                  f"got {len(flat) // 2}")
        return self.pooled_shape(operand.get_shape(), window, stride, pads)

    def _print_window(self, printer: Printer) -> None:
        printer.print_string(" window ")
        _print_int_list(printer, self.window.get_values())
        self._print_clauses(printer)


class _ReduceWindowOp(_WindowOp):
    """`%p = tensor.reduce_window_<kind> %x window [..] stride [..] pad [[lo, hi], ..] : T -> T'`."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    #: the reduction over a window (its combiner and initial value, which padding counts as)
    REDUCTION: ClassVar[type[_ReduceOp]]

    def __init__(
        self,
        input: SSAValue | Operation,
        window: Sequence[int] | DenseArrayBase,
        stride: Sequence[int] | DenseArrayBase | None = None,
        pad: Sequence[int] | Sequence[Sequence[int]] | DenseArrayBase | None = None,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        props = self._window_props(window, stride, pad)
        if result_type is None:
            result_type = self.pooled_type(input, props)
        super().__init__(operands=(input,), result_types=(result_type,), properties=props, attributes=attributes)

    def initial(self) -> int | float:
        """The value of a padding element (the reduction's initial value)."""
        return self.REDUCTION.initial(cast(TensorType, self.input.type).get_element_type())

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        x = parser.parse_unresolved_operand()
        parser.parse_keyword("window")
        window = _parse_int_list(parser)
        clauses = cls._parse_clauses(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_type = parser.parse_type()
        parser.parse_punctuation("->")
        out_type = parser.parse_type()
        (xv,) = parser.resolve_operands([x], [in_type], pos)
        return cls(xv, window, clauses.get("stride"), clauses.get("pad"), out_type, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        self._print_window(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        it = cast(TensorType, self.input.type)
        ot = cast(TensorType, self.result.type)
        if it.get_element_type() != ot.get_element_type():
            raise VerifyException(
                f"result element type {ot.get_element_type()} differs from the operand's {it.get_element_type()}")
        et = it.get_element_type()
        if not (is_float_type(et) or is_integer_type(et)) or et == i1:
            raise VerifyException(f"requires float or integer (not i1) element type, got {et}")
        expected = self._verify_window(it)
        if ot.get_num_dims() != it.get_num_dims() or not _shapes_compatible(expected, ot.get_shape()):
            raise VerifyException(
                f"result shape {_shape_str(ot.get_shape())} does not match the expected {_shape_str(expected)}")


@irdl_op_definition
class ReduceWindowSumOp(_ReduceWindowOp):
    """`%p = tensor.reduce_window_sum %x window [1, 2, 2, 1] stride [1, 2, 2, 1] :
    tensor<8x28x28x16xf32> -> tensor<8x14x14x16xf32>`: the sum over each window
    (StableHLO reduce_window with add; padding counts as 0)."""

    name = "tensor.reduce_window_sum"
    REDUCTION: ClassVar[type[_ReduceOp]] = ReduceSumOp


@irdl_op_definition
class ReduceWindowMaxOp(_ReduceWindowOp):
    """`%p = tensor.reduce_window_max %x window [1, 2, 2, 1] stride [1, 2, 2, 1] :
    tensor<8x28x28x16xf32> -> tensor<8x14x14x16xf32>`: the max over each window
    (StableHLO reduce_window with max; padding counts as -inf, NaN propagates).
    Its derivative goes to the first maximal element of each window (XLA's
    select-and-scatter): `tensor.window_max_select` / `tensor.window_max_scatter`."""

    name = "tensor.reduce_window_max"
    REDUCTION: ClassVar[type[_ReduceOp]] = ReduceMaxOp


class _WindowMaxRouteOp(_WindowOp):
    """`%r = tensor.window_max_<select|scatter> %x, %v window [..] stride [..] pad [..] :
    (tensor<X>, tensor<V>) -> tensor<R>`: the derivative of `reduce_window_max` over
    ``%x``. Each window's *first maximal element* is the first element of the window
    (row-major order of window positions, padding counting as -inf) equal to the
    window's max, NaN being maximal. Linear in ``%v``; the two ops are each other's
    transpose."""

    operand = operand_def(TensorType)
    values = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    #: whether ``values`` (and so the result) has the pooled shape or the operand's
    SCATTERS: ClassVar[bool]

    def __init__(
        self,
        operand: SSAValue | Operation,
        values: SSAValue | Operation,
        window: Sequence[int] | DenseArrayBase,
        stride: Sequence[int] | DenseArrayBase | None = None,
        pad: Sequence[int] | Sequence[Sequence[int]] | DenseArrayBase | None = None,
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        props = self._window_props(window, stride, pad)
        if result_type is None:
            result_type = _tensor_type(operand) if self.SCATTERS else self.pooled_type(operand, props)
        super().__init__(operands=(operand, values), result_types=(result_type,), properties=props,
                         attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        x = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        parser.parse_keyword("window")
        window = _parse_int_list(parser)
        clauses = cls._parse_clauses(parser)
        (xv, vv), out, attrs = _parse_binary_tail(parser, [x, v], pos)
        return cls(xv, vv, window, clauses.get("stride"), clauses.get("pad"), out, attrs)

    def print(self, printer: Printer):
        _print_binary_head(printer, self.operand, self.values)
        self._print_window(printer)
        _print_binary_tail(printer, self, self.operand, self.values)

    def verify_(self) -> None:
        xt = cast(TensorType, self.operand.type)
        vt = cast(TensorType, self.values.type)
        rt = cast(TensorType, self.result.type)
        et = xt.get_element_type()
        if not is_float_type(et) or vt.get_element_type() != et or rt.get_element_type() != et:
            raise VerifyException(f"requires one float element type, got ({xt}, {vt}) -> {rt}")
        pooled = self._verify_window(xt)
        vshape = xt.get_shape() if not self.SCATTERS else pooled
        rshape = pooled if not self.SCATTERS else xt.get_shape()
        for what, t, want in (("values", vt, vshape), ("result", rt, rshape)):
            if t.get_num_dims() != len(want) or not _shapes_compatible(want, t.get_shape()):
                raise VerifyException(
                    f"{what} shape {_shape_str(t.get_shape())} does not match the expected {_shape_str(want)}")


@irdl_op_definition
class WindowMaxSelectOp(_WindowMaxRouteOp):
    """`tensor.window_max_select %x, %t ...`: ``%t`` (shaped as ``%x``) at the first
    maximal element of each window of ``%x`` (the JVP of `reduce_window_max`)."""

    name = "tensor.window_max_select"
    SCATTERS: ClassVar[bool] = False


@irdl_op_definition
class WindowMaxScatterOp(_WindowMaxRouteOp):
    """`tensor.window_max_scatter %x, %g ...`: zeros shaped as ``%x``, plus each
    element of ``%g`` (pooled shape) added at the first maximal element of its
    window (the VJP of `reduce_window_max`, XLA's select-and-scatter)."""

    name = "tensor.window_max_scatter"
    SCATTERS: ClassVar[bool] = True


# --------------------------------------------------------------------------
# convert
# --------------------------------------------------------------------------


def _convert_scalar(B, x: SSAValue, dst: Attribute) -> SSAValue:
    """x converted to ``dst``: float to integer truncates toward zero (to i1: x != 0),
    integers are signed, i1 is 0/1."""
    src = x.type
    if src == dst:
        return x
    if is_float_type(src) and is_float_type(dst):
        if cast(AnyFloat, dst).bitwidth > cast(AnyFloat, src).bitwidth:
            return B.emit1(arith.ExtFOp(x, dst))
        return B.emit1(arith.TruncFOp(x, dst))
    src_i1 = element_kind(src) is ElementKind.I1
    dst_i1 = element_kind(dst) is ElementKind.I1
    if is_float_type(src):
        if dst_i1:
            return B.emit1(arith.CmpfOp(x, B.const(0.0, src), "une"))
        if isinstance(dst, IndexType):
            return B.emit1(arith.IndexCastOp(B.emit1(arith.FPToSIOp(x, i64)), dst))
        return B.emit1(arith.FPToSIOp(x, dst))
    if is_float_type(dst):
        if src_i1:
            return B.emit1(arith.UIToFPOp(x, dst))
        if isinstance(src, IndexType):
            x = B.emit1(arith.IndexCastOp(x, i64))
        return B.emit1(arith.SIToFPOp(x, dst))
    if dst_i1:
        return B.emit1(arith.CmpiOp(x, B.const(0, src), "ne"))
    if isinstance(dst, IndexType) or isinstance(src, IndexType):
        if src_i1:
            x = B.emit1(arith.ExtUIOp(x, i64))
        return B.emit1(arith.IndexCastOp(x, dst))
    sw, dw = cast(IntegerType, src).width.data, cast(IntegerType, dst).width.data
    if dw > sw:
        return B.emit1((arith.ExtUIOp if src_i1 else arith.ExtSIOp)(x, dst))
    return B.emit1(arith.TruncIOp(x, dst))


class _Conversion(Elementwise):
    """tensor.convert: the meaning depends on the source and result element types."""

    SCALAR_OPS = (arith.ExtFOp, arith.TruncFOp, arith.SIToFPOp, arith.UIToFPOp, arith.FPToSIOp,
                  arith.FPToUIOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp)

    def element_kinds(self) -> frozenset[ElementKind]:
        return frozenset(ElementKind)

    def scalar_ops(self):
        return self.SCALAR_OPS

    def scalar_for(self, op: Operation):
        dst = cast(TensorType, op.results[0].type).get_element_type()
        return lambda B, x: _convert_scalar(B, x, dst)

    def numpy_for(self, op: Operation):
        dst = _numpy_dtype(cast(TensorType, op.results[0].type).get_element_type())
        to_i1 = dst is np.bool_

        def convert(x):
            if to_i1 and x.dtype != dst:
                return x != 0
            if x.dtype.kind == "f" and np.dtype(dst).kind in "iu":  # as compiled code: saturating
                return float_to_int(x, np.dtype(dst))
            return x.astype(dst)

        return convert


@elementwise(_Conversion())
@irdl_op_definition
class ConvertOp(IRDLOperation, HasFolderInterface):
    """`%d = tensor.convert %a : tensor<4xf32> -> tensor<4xf64>`.

    Float to integer truncates toward zero; integers are signed; i1 is 0/1.
    """

    name = "tensor.convert"

    input = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    def __init__(
        self,
        input: SSAValue | Operation,
        element_type: Attribute,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        """``element_type`` is the result's element type, or the whole result tensor type."""
        if isinstance(element_type, TensorType):
            result_type = element_type
        else:
            result_type = TensorType(element_type, _tensor_type(input).get_shape())
        super().__init__(operands=(input,), result_types=(result_type,), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        in_type = parser.parse_type()
        parser.parse_punctuation("->")
        out_type = parser.parse_type()
        (value,) = parser.resolve_operands([operand], [in_type], pos)
        return cls(value, out_type, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        it = cast(TensorType, self.input.type)
        ot = cast(TensorType, self.result.type)
        if not _shapes_compatible(it.get_shape(), ot.get_shape()):
            raise VerifyException(f"requires the same shape for operand and result, got {it} -> {ot}")
        for t in (it, ot):
            et = t.get_element_type()
            if not (is_float_type(et) or is_integer_type(et)):
                raise VerifyException(f"requires float or integer element types, got {et}")

    def fold(self):
        if self.input.type == self.result.type:
            return (self.input,)
        et = cast(TensorType, self.result.type).get_element_type()
        if element_kind(et) is ElementKind.INTEGER and is_float_type(
                cast(TensorType, self.input.type).get_element_type()):
            value = _constant_value(self.input)
            a = None if value is None else _to_numpy(value)
            width = 64 if isinstance(et, IndexType) else cast(IntegerType, et).width.data
            if a is None or not np.all(np.isfinite(a)) or np.any(np.abs(a) >= 2.0 ** (width - 1)):
                return None  # poison: left to run time
        return _fold_elementwise(self, (self.input,))


# --------------------------------------------------------------------------
# Upstream ops whose xDSL definition needs stricter verification or MLIR's printing.
# They subclass xDSL's classes (without re-running irdl_op_definition, which does
# not support subclassing a defined op) so that xDSL's patterns still match.
# --------------------------------------------------------------------------


def _print_reassociation(printer: Printer, reassociation: ArrayAttr) -> None:
    groups = ", ".join(
        "[" + ", ".join(str(cast(IntegerAttr, e).value.data) for e in group) + "]"
        for group in cast(ArrayAttr, reassociation).data
    )
    printer.print_string("[" + groups + "]")


def _reassociation_attr(reassociation: ArrayAttr | Sequence[Sequence[int]]) -> ArrayAttr:
    if isinstance(reassociation, ArrayAttr):
        return reassociation
    return ArrayAttr([ArrayAttr([IntegerAttr(int(d), i64) for d in g]) for g in reassociation])


def _verify_reassociation(collapsed: TensorType, expanded: TensorType, reassociation: ArrayAttr) -> None:
    if collapsed.get_element_type() != expanded.get_element_type():
        raise VerifyException(
            f"source and result element types differ: {collapsed.get_element_type()} vs "
            f"{expanded.get_element_type()}"
        )
    groups = [[cast(IntegerAttr, e).value.data for e in g] for g in reassociation.data]
    if collapsed.get_num_dims() == 0:
        # MLIR's rank-0 form: `[]`, and every expanded dim is a unit dim
        if groups:
            raise VerifyException(f"a rank-0 collapsed type takes an empty reassociation, got {groups}")
        if any(d != 1 for d in expanded.get_shape()):
            raise VerifyException(f"only unit dims collapse to rank 0, got {expanded}")
        return
    flat = [d for g in groups for d in g]
    if flat != list(range(len(flat))):
        raise VerifyException(
            f"reassociation indices must be contiguous, increasing and start at 0, got {groups}"
        )
    if expanded.get_num_dims() != 0 and any(not g for g in groups):
        raise VerifyException("reassociation groups must not be empty")
    verify_reshape_like_types(collapsed_type=collapsed, expanded_type=expanded, reassociation=reassociation)


class _MethodFolder(HasFolder):
    """Folding for the upstream subclasses: calls the op's ``fold`` method."""

    @classmethod
    def fold(cls, op: Operation):
        return op.fold()  # pyright: ignore[reportAttributeAccessIssue]


class CollapseShapeOp(_xt.CollapseShapeOp):
    """`%f = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>`."""

    def __init__(
        self,
        src: SSAValue | Operation,
        reassociation: ArrayAttr | Sequence[Sequence[int]],
        result_type: Attribute,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=(src,),
            result_types=(result_type,),
            properties={"reassociation": _reassociation_attr(reassociation)},
            attributes=attributes,
        )

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        src = parser.parse_unresolved_operand()
        reassociation = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        (value,) = parser.resolve_operands([src], [src_type], pos)
        return cls(value, cast(ArrayAttr, reassociation), result_type, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string(" ")
        _print_reassociation(printer, self.reassociation)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        super().verify_()
        _verify_reassociation(
            cast(TensorType, self.result.type), cast(TensorType, self.src.type), self.reassociation
        )


class ExpandShapeOp(_xt.ExpandShapeOp):
    """`%e = tensor.expand_shape %f [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>`."""

    def __init__(
        self,
        src: SSAValue | Operation,
        dynamic_output_shape: Sequence[SSAValue],
        reassociation: ArrayAttr | Sequence[Sequence[int]],
        static_output_shape: Sequence[int] | DenseArrayBase,
        result_type: TensorType,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            src, dynamic_output_shape, _reassociation_attr(reassociation), static_output_shape,
            result_type, dict(attributes) if attributes else None,
        )

    def print(self, printer: Printer):
        from xdsl.dialects.utils import print_dynamic_index_list

        printer.print_string(" ")
        printer.print_ssa_value(self.src)
        printer.print_string(" ")
        _print_reassociation(printer, self.reassociation)
        printer.print_string(" output_shape ")
        print_dynamic_index_list(
            printer, DYN, self.dynamic_output_shape, self.static_output_shape.get_values()
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        static = self.static_output_shape.get_values()
        rt = cast(TensorType, self.result.type)
        n_dyn = sum(1 for s in static if s == DYN)
        if n_dyn != len(self.dynamic_output_shape):
            raise VerifyException(
                f"expected {n_dyn} dynamic output sizes, got {len(self.dynamic_output_shape)}"
            )
        if len(static) == rt.get_num_dims():
            for i, (s, r) in enumerate(zip(static, rt.get_shape())):
                if s != DYN and r != DYN and s != r:
                    raise VerifyException(
                        f"output_shape dimension {i} is {s} but the result type has {r}"
                    )
        if cast(TensorType, self.src.type).get_num_dims() != 0:
            super().verify_()  # xDSL's check does not know the rank-0 form
        _verify_reassociation(cast(TensorType, self.src.type), rt, self.reassociation)


def _rank_reduced_match(sizes: list[int], actual: list[int]) -> bool:
    """Whether ``actual`` is ``sizes`` with zero or more dims of size 1 dropped."""
    if len(actual) > len(sizes):
        return False
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if j == len(actual):
            return all(s == 1 for s in sizes[i:])
        if i == len(sizes):
            return False
        key = (i, j)
        if key in memo:
            return memo[key]
        ok = sizes[i] == actual[j] and go(i + 1, j + 1)
        if not ok and sizes[i] == 1:
            ok = go(i + 1, j)
        memo[key] = ok
        return ok

    return go(0, 0)


def _verify_slice(
    full: TensorType,
    slice_type: TensorType,
    static_offsets: Sequence[int],
    static_sizes: Sequence[int],
    static_strides: Sequence[int],
    slice_role: str,
) -> None:
    rank = full.get_num_dims()
    for what, values in (("offsets", static_offsets), ("sizes", static_sizes), ("strides", static_strides)):
        if len(values) != rank:
            raise VerifyException(f"expected {rank} {what} for {full}, got {len(values)}")
    if full.get_element_type() != slice_type.get_element_type():
        raise VerifyException(
            f"{slice_role} element type {slice_type.get_element_type()} differs from "
            f"{full.get_element_type()}"
        )
    # The slice type is the sizes, with some unit dims possibly dropped (rank-reducing).
    expected = list(static_sizes)
    if not _rank_reduced_match(expected, list(slice_type.get_shape())):
        raise VerifyException(
            f"expected {slice_role} type to be {TensorType(full.get_element_type(), expected)} or a "
            f"rank-reduced version of it (sizes {_shape_str(expected)}), got {slice_type}"
        )
    shape = full.get_shape()
    for d in range(rank):
        off, size, stride = static_offsets[d], static_sizes[d], static_strides[d]
        dim = shape[d]
        if dim == DYN:
            continue
        if off != DYN and off >= dim and not (size == 0 and off == dim):
            raise VerifyException(f"offset {d} is out-of-bounds: {off} >= {dim}")
        if off != DYN and size != DYN and stride != DYN and size > 0:
            last = off + (size - 1) * stride
            if last >= dim:
                raise VerifyException(f"slice along dimension {d} runs out-of-bounds: {last} >= {dim}")


def slice_params(op: Operation) -> tuple[list, list, list]:
    """(offsets, sizes, strides) of an ``extract_slice`` / ``insert_slice``, each entry
    an int where static and the op's operand where dynamic (MLIR's getMixedOffsets ...)."""

    def merge(static: DenseArrayBase, dynamic: Sequence[SSAValue]) -> list:
        it = iter(dynamic)
        return [next(it) if s == DYN else int(s) for s in static.get_values()]

    return (
        merge(op.static_offsets, op.offsets),  # type: ignore[attr-defined]
        merge(op.static_sizes, op.sizes),  # type: ignore[attr-defined]
        merge(op.static_strides, op.strides),  # type: ignore[attr-defined]
    )


class ExtractSliceOp(_xt.ExtractSliceOp):
    """`%s = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>`.

    Folds on a splat constant (to the splat of the slice's type); canonicalization
    reads past an ``insert_slice`` that wrote elsewhere (``ExtractPastDisjointInsert``)."""

    traits = traits_def(Pure(), _MethodFolder(), _ExtractSliceCanonicalization())

    def fold(self):
        rt = self.result.type
        if not isinstance(rt, TensorType) or DYN in rt.get_shape():
            return None
        value = _splat_value(self.source)
        if value is None:
            return None
        from irtoolkit.dense import splat_dense

        return (splat_dense(rt, value),)

    def verify_(self) -> None:
        super().verify_()
        _verify_slice(
            cast(TensorType, self.source.type),
            cast(TensorType, self.result.type),
            self.static_offsets.get_values(),
            self.static_sizes.get_values(),
            self.static_strides.get_values(),
            "result",
        )


class InsertSliceOp(_xt.InsertSliceOp):
    """`%u = tensor.insert_slice %s into %t[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>`.

    Canonicalization starts a chain of inserts that overwrites every element of its
    destination from ``tensor.empty`` (``OverwrittenInsertDest``)."""

    traits = traits_def(Pure(), _InsertSliceCanonicalization())

    def verify_(self) -> None:
        super().verify_()
        _verify_slice(
            cast(TensorType, self.dest.type),
            cast(TensorType, self.source.type),
            self.static_offsets.get_values(),
            self.static_sizes.get_values(),
            self.static_strides.get_values(),
            "source",
        )


class ExtractOp(_xt.ExtractOp):
    """`%e = tensor.extract %t[%i] : tensor<4xf32>`; folds on constant tensors and indices."""

    traits = traits_def(Pure(), _MethodFolder())

    def fold(self):
        value = _constant_value(self.tensor)
        if value is None:
            return None
        indices = []
        for index in self.indices:
            attr = ConstantLike.get_constant_value(index)
            if not isinstance(attr, IntegerAttr):
                return None
            indices.append(attr.value.data)
        shape = value.get_shape()
        if len(indices) != len(shape) or any(not 0 <= i < d for i, d in zip(indices, shape)):
            return None
        flat = 0
        for i, d in zip(indices, shape):
            flat = flat * d + i
        a = _to_numpy(value)
        if a is None:
            return None
        v = a.reshape(-1)[flat] if a.size else None
        if v is None:
            return None
        et = value.get_element_type()
        if is_float_type(et):
            from xdsl.dialects.builtin import FloatAttr

            return (FloatAttr(float(v), cast(AnyFloat, et)),)
        if isinstance(et, IntegerType) and et.width.data == 1:
            return (IntegerAttr(1 if v else 0, et),)
        return (IntegerAttr(int(v), cast(IntegerType, et)),)

    def __init__(
        self,
        tensor: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation] | SSAValue | Operation,
        result_type: Attribute | None = None,
    ):
        """The result type defaults to the tensor's element type."""
        if isinstance(indices, SSAValue | Operation):
            indices = [indices]
        if result_type is None:
            result_type = _tensor_type(tensor).get_element_type()
        IRDLOperation.__init__(self, operands=[tensor, indices], result_types=[result_type])

    def verify_(self) -> None:
        super().verify_()
        t = cast(TensorType, self.tensor.type)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(
                f"incorrect number of indices: expected {t.get_num_dims()} for {t}, got {len(self.indices)}"
            )


class InsertOp(_xt.InsertOp):
    """`%u = tensor.insert %e into %t[%i] : tensor<4xf32>`."""

    def verify_(self) -> None:
        super().verify_()
        t = cast(TensorType, self.dest.type)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(
                f"incorrect number of indices: expected {t.get_num_dims()} for {t}, got {len(self.indices)}"
            )


class FromElementsOp(_xt.FromElementsOp):
    """`%t = tensor.from_elements %a, %b : tensor<2xf32>`; folds when every element is constant."""

    traits = traits_def(Pure(), _MethodFolder())

    def fold(self):
        rt = self.result.type
        if not isinstance(rt, TensorType) or len(self.elements) > FOLD_LIMIT:
            return None
        if _numpy_dtype(rt.get_element_type()) is None:
            return None
        values = []
        for e in self.elements:
            attr = ConstantLike.get_constant_value(e)
            if not hasattr(attr, "value") or not hasattr(attr.value, "data"):
                return None
            values.append(attr.value.data)
        if not values or DYN in rt.get_shape():
            return None
        return (DenseIntOrFPElementsAttr.from_list(rt, values),)

    def verify_(self) -> None:
        super().verify_()
        t = cast(TensorType, self.result.type)
        shape = t.get_shape()
        if DYN in shape:
            raise VerifyException(f"result type must have a static shape, got {t}")
        n = 1
        for d in shape:
            n *= d
        if n != len(self.elements):
            raise VerifyException(f"expected {n} elements for {t}, got {len(self.elements)}")


class EmptyOp(_xt.EmptyOp):
    """`%t = tensor.empty(%n) : tensor<?x4xf32>`: one index operand per dynamic dim."""

    def verify_(self) -> None:
        super().verify_()
        t = cast(TensorType, self.tensor.type)
        n_dyn = sum(1 for d in t.get_shape() if d == DYN)
        if n_dyn != len(self.dynamic_sizes):
            raise VerifyException(
                f"expected {n_dyn} dynamic size operands for {t}, got {len(self.dynamic_sizes)}"
            )


class ReshapeOp(_xt.ReshapeOp):
    """`%r = tensor.reshape %a(%shape) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>`.

    xDSL's verifier multiplies dynamic dims; this one checks element counts only when static.
    """

    def verify_(self) -> None:
        _xt.ReshapeOp.get_irdl_definition().verify(self)
        st = cast(TensorType, self.source.type)
        sh = cast(TensorType, self.shape.type)
        rt = cast(TensorType, self.result.type)
        if st.get_element_type() != rt.get_element_type():
            raise VerifyException("element types of source and result tensor types should be the same")
        if sh.get_num_dims() != 1:
            raise VerifyException("shape tensor must have a rank one")
        if DYN not in st.get_shape() and DYN not in rt.get_shape():
            n_src = n_res = 1
            for d in st.get_shape():
                n_src *= d
            for d in rt.get_shape():
                n_res *= d
            if n_src != n_res:
                raise VerifyException(
                    f"source and result tensor should have the same number of elements, got "
                    f"{n_src} and {n_res}"
                )
        n = sh.get_shape()[0]
        if n != DYN and n != rt.get_num_dims():
            raise VerifyException("length of shape operand differs from the result's tensor rank")


class SplatOp(_xt.SplatOp):
    """`%t = tensor.splat %s : tensor<4xf32>` (`tensor.splat %s[%n] : tensor<?xf32>`).

    Folds to a dense splat constant when the scalar is constant and the shape static.
    """

    traits = traits_def(Pure(), _MethodFolder())

    def fold(self):
        attr = ConstantLike.get_constant_value(self.input)
        rt = self.result.type
        if attr is None or not isinstance(rt, TensorType) or DYN in rt.get_shape():
            return None
        n = 1
        for d in rt.get_shape():
            n *= d
        if n > FOLD_LIMIT:
            return None
        from xdsl.dialects.builtin import FloatAttr

        if isinstance(attr, FloatAttr | IntegerAttr) and _numpy_dtype(rt.get_element_type()) is not None:
            v = attr.value.data
            return (DenseIntOrFPElementsAttr.from_list(rt, [v]),)
        return None


class DimOp(_xt.DimOp):
    """`%d = tensor.dim %t, %c0 : tensor<?x4xf32>`; folds to a constant when the dim is static."""

    traits = traits_def(NoMemoryEffect(), _MethodFolder())

    def verify_(self) -> None:
        super().verify_()
        t = self.source.type
        index = ConstantLike.get_constant_value(self.index)
        if isinstance(t, TensorType) and isinstance(index, IntegerAttr):
            i = index.value.data
            if i < 0 or i >= t.get_num_dims():
                raise VerifyException(f"index {i} is out of range for {t}")

    def fold(self):
        t = self.source.type
        index = ConstantLike.get_constant_value(self.index)
        if isinstance(t, TensorType) and isinstance(index, IntegerAttr):
            i = index.value.data
            if 0 <= i < t.get_num_dims() and t.get_shape()[i] != DYN:
                return (IntegerAttr(t.get_shape()[i], IndexType()),)
        return None


# --------------------------------------------------------------------------
# Upstream's indexed ops: gather, scatter (and our scatter_add), generate, rank
# --------------------------------------------------------------------------


def _is_index_element(t: Attribute) -> bool:
    """Upstream's `AnySignlessIntegerOrIndex` (indices of gather/scatter)."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.signedness.data.name == "SIGNLESS")


def gathered_type(source: TensorType, indices: TensorType, dims: Sequence[int], rank_reduced: bool) -> TensorType:
    """Upstream's `GatherOp::inferResultType`: the batch dims of ``indices`` (all but
    the last), then the source dims, each of ``dims`` set to 1 or dropped."""
    shape = list(indices.get_shape()[:-1])
    for d, s in enumerate(source.get_shape()):
        if d in dims:
            if not rank_reduced:
                shape.append(1)
        else:
            shape.append(s)
    return TensorType(source.get_element_type(), shape)


def _verify_indexed_dims(dims: Sequence[int], indices: TensorType, rank: int, kind: str, what: str) -> None:
    """Upstream's `verifyGatherOrScatterDims`, with its messages."""
    if not dims:
        raise VerifyException(f"{kind}_dims must be non-empty")
    if len(dims) > rank:
        raise VerifyException(f"{kind}_dims overflow {what} rank")
    shape = indices.get_shape()
    if not shape or shape[-1] != len(dims):
        raise VerifyException(f"{kind}_dims length must match the size of last dimension of indices")
    for i, d in enumerate(dims):
        if d < 0:
            raise VerifyException(f"{kind}_dims value must be non-negative")
        if d >= rank:
            raise VerifyException(f"{kind}_dims value must be smaller than {what} rank")
        if i and d <= dims[i - 1]:
            raise VerifyException(f"{kind}_dims values must be strictly increasing")


def _verify_indices_type(indices: TensorType, position: int) -> None:
    if not _is_index_element(indices.get_element_type()):
        raise VerifyException(
            f"operand #{position} must be ranked tensor of signless integer or index values, but got '{indices}'"
        )


def _verify_gathered(big: TensorType, indices: TensorType, dims: Sequence[int], got: TensorType,
                     what: str) -> None:
    """``got`` is the gathered type of ``big`` (either form; dynamic dims compatible)."""
    full = gathered_type(big, indices, dims, rank_reduced=False)
    reduced = gathered_type(big, indices, dims, rank_reduced=True)
    for want in (full, reduced):
        if got.get_element_type() == want.get_element_type() and got.get_num_dims() == want.get_num_dims() \
                and _shapes_compatible(got.get_shape(), want.get_shape()):
            return
    raise VerifyException(
        f"{what} type mismatch: expected '{full}' or its rank-reduced variant '{reduced}' (got: '{got}')"
    )


def _parse_indexed(parser: Parser, keyword: str, with_unique: bool, leading: list, n_types: int):
    """The common tail of gather and scatter, from the indices on:
    `[%idx] <keyword>([d0, ..]) unique? attr-dict : (types) -> type`; the operands
    ``leading`` (unresolved) come before the indices. Returns (operands, dims,
    unique, attributes, result type)."""
    pos = parser.pos
    parser.parse_punctuation("[")
    indices = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    dims = _parse_int_list(parser)
    parser.parse_punctuation(")")
    unique = with_unique and parser.parse_optional_keyword("unique") is not None
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    parser.parse_punctuation("(")
    inputs, out = _parse_functional(parser)
    if len(inputs) != n_types:
        parser.raise_error(f"expected {n_types} operand types, got {len(inputs)}")
    operands = parser.resolve_operands([*leading, indices], inputs, pos)
    return operands, dims, unique, attrs, out


def _print_indexed(printer: Printer, op: Operation, indices: SSAValue, keyword: str, dims: Sequence[int]) -> None:
    """The common tail of gather and scatter (see ``_parse_indexed``)."""
    printer.print_string("[")
    printer.print_ssa_value(indices)
    printer.print_string(f"] {keyword}(")
    _print_int_list(printer, dims)
    printer.print_string(")")
    if op.properties.get("unique") is not None:
        printer.print_string(" unique")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    _print_functional(printer, [v.type for v in op.operands], op.results[0].type)


@irdl_op_definition
class GatherOp(IRDLOperation, HasFolderInterface):
    """`%g = tensor.gather %src[%idx] gather_dims([0]) : (tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>`.

    Upstream's `tensor.gather`: for each position ``b`` of the leading dims of
    ``indices``, the coordinates ``indices[b, :]`` select one slice of ``source``
    of size 1 along each of ``gather_dims`` (the whole extent along the others).
    The result is the batch dims, then the source dims with the gathered ones
    set to 1 (or dropped: the rank-reduced form). Indices may be of any
    signless integer type (read as signed) or ``index``; ``unique`` is a hint.

    Out-of-range coordinates (upstream: undefined; StableHLO: clamped) are an
    error here, as in numpy and ``tensor.extract``: the interpreter and the
    compiled code both stop with a located message, so that the gradient
    (``tensor.scatter_add`` at the same coordinates) never disagrees with the
    value.
    """

    name = "tensor.gather"

    source = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    gather_dims = prop_def(DenseArrayBase)
    unique = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue | Operation, indices: SSAValue | Operation, gather_dims: Sequence[int],
                 result_type: Attribute | None = None, unique: bool = False, rank_reduced: bool = False,
                 attributes: Mapping[str, Attribute] | None = None):
        """The result type defaults to the gathered type (rank-reduced if asked)."""
        if result_type is None:
            result_type = gathered_type(_tensor_type(source), _tensor_type(indices), list(gather_dims), rank_reduced)
        props: dict[str, Attribute] = {"gather_dims": _int_list(gather_dims)}
        if unique:
            props["unique"] = UnitAttr()
        super().__init__(operands=(source, indices), result_types=(result_type,), properties=props,
                         attributes=attributes)

    @property
    def dims(self) -> tuple[int, ...]:
        return self.gather_dims.get_values()

    def is_rank_reduced(self) -> bool:
        return cast(TensorType, self.result.type).get_num_dims() < (
            cast(TensorType, self.indices.type).get_num_dims() - 1 + cast(TensorType, self.source.type).get_num_dims()
        )

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        (s, i), dims, unique, attrs, out = _parse_indexed(parser, "gather_dims", True, [source], 2)
        return cls(s, i, dims, out, unique=unique, attributes=attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        _print_indexed(printer, self, self.indices, "gather_dims", self.dims)

    def verify_(self) -> None:
        st = cast(TensorType, self.source.type)
        it = cast(TensorType, self.indices.type)
        _verify_indices_type(it, 1)
        _verify_indexed_dims(self.dims, it, st.get_num_dims(), "gather", "source")
        _verify_gathered(st, it, self.dims, cast(TensorType, self.result.type), "result")

    def fold(self):
        source, indices = _constant_value(self.source), _constant_value(self.indices)
        rt = self.result.type
        if source is None or indices is None or not isinstance(rt, TensorType) or DYN in rt.get_shape():
            return None
        n = 1
        for d in rt.get_shape():
            n *= d
        a, idx = _to_numpy(source), _to_numpy(indices)
        if n > FOLD_LIMIT or a is None or idx is None:
            return None
        try:
            value = gather_numpy(a, idx, self.dims)
        except IndexError:
            return None  # the run-time error stays
        attr = _from_numpy(value.reshape(rt.get_shape()), rt)
        return None if attr is None else (attr,)


def check_coordinates(idx, shape: Sequence[int], dims: Sequence[int]) -> None:
    """Raise ``IndexError`` naming the first coordinate of ``idx`` (..., len(dims)) outside ``shape``."""
    for k, d in enumerate(dims):
        col = idx[..., k]
        bad = (col < 0) | (col >= shape[d])
        if bad.any():
            where = tuple(int(w) for w in np.argwhere(bad)[0])
            raise IndexError(f"index {int(col[where])} at indices{list(where) + [k]} is out of bounds "
                             f"for dim {d} of size {shape[d]}")


def gather_numpy(a, idx, dims: Sequence[int]):
    """The gathered slices in the full (rank-preserving) form; coordinates out of range
    raise ``IndexError``."""
    dims = list(dims)
    check_coordinates(idx, a.shape, dims)
    batch = idx.shape[:-1]
    # move the gathered dims first: a[c0, c1, ...] then has the batch dims first
    rest = [d for d in range(a.ndim) if d not in dims]
    moved = np.transpose(a, dims + rest)
    picked = moved[tuple(idx[..., k].astype(np.int64) for k in range(len(dims)))]  # batch + rest
    full = list(batch)
    for d in range(a.ndim):
        full.append(1 if d in dims else a.shape[d])
    return picked.reshape(full)


def scatter_numpy(dest, updates, idx, dims: Sequence[int], accumulate: bool):
    """``dest`` with the slices of ``updates`` (either form) written (or added, as
    ``numpy.add.at``) at the coordinates ``idx``; out of range raises ``IndexError``."""
    dims = list(dims)
    check_coordinates(idx, dest.shape, dims)
    batch = idx.shape[:-1]
    rest = [d for d in range(dest.ndim) if d not in dims]
    out = np.array(np.transpose(dest, dims + rest), copy=True)
    values = updates.reshape(tuple(batch) + tuple(dest.shape[d] for d in rest))
    key = tuple(idx[..., k].astype(np.int64) for k in range(len(dims)))
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    inverse = [0] * dest.ndim
    for i, p in enumerate(dims + rest):
        inverse[p] = i
    return np.transpose(out, inverse)


class _ScatterBase(IRDLOperation):
    """Shared syntax and checks of `tensor.scatter` and `tensor.scatter_add`:
    `%r = tensor.<op> %src into %dest[%idx] scatter_dims([..]) : (S, D, I) -> D`."""

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    scatter_dims = prop_def(DenseArrayBase)

    traits = traits_def(Pure())

    #: whether the `unique` keyword belongs to the syntax (`tensor.scatter` requires it)
    HAS_UNIQUE: ClassVar[bool] = False

    def __init__(self, source: SSAValue | Operation, dest: SSAValue | Operation, indices: SSAValue | Operation,
                 scatter_dims: Sequence[int], result_type: Attribute | None = None, unique: bool = False,
                 attributes: Mapping[str, Attribute] | None = None):
        """The result type defaults to the dest's."""
        if result_type is None:
            result_type = _tensor_type(dest)
        props: dict[str, Attribute] = {"scatter_dims": _int_list(scatter_dims)}
        if unique:
            props["unique"] = UnitAttr()
        super().__init__(operands=(source, dest, indices), result_types=(result_type,), properties=props,
                         attributes=attributes)

    @property
    def dims(self) -> tuple[int, ...]:
        return self.scatter_dims.get_values()

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        (s, d, i), dims, unique, attrs, out = _parse_indexed(parser, "scatter_dims", cls.HAS_UNIQUE, [source, dest], 3)
        return cls(s, d, i, dims, out, unique=unique, attributes=attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        printer.print_string(" into ")
        printer.print_ssa_value(self.dest)
        _print_indexed(printer, self, self.indices, "scatter_dims", self.dims)

    def verify_(self) -> None:
        dt = cast(TensorType, self.dest.type)
        it = cast(TensorType, self.indices.type)
        _verify_indices_type(it, 2)
        _verify_indexed_dims(self.dims, it, dt.get_num_dims(), "scatter", "dest")
        if self.HAS_UNIQUE and self.properties.get("unique") is None:
            raise VerifyException("requires 'unique' attribute to be set")
        _verify_gathered(dt, it, self.dims, cast(TensorType, self.source.type), "source")
        rt = cast(TensorType, self.result.type)
        if rt.get_element_type() != dt.get_element_type() or rt.get_num_dims() != dt.get_num_dims() \
                or not _shapes_compatible(rt.get_shape(), dt.get_shape()):
            raise VerifyException(f"result type '{rt}' does not match the dest type '{dt}'")


@irdl_op_definition
class ScatterOp(_ScatterBase):
    """`%r = tensor.scatter %src into %dest[%idx] scatter_dims([0]) unique : (tensor<3x1x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>`.

    Upstream's `tensor.scatter`: ``dest`` with the slices of ``source`` (the
    gathered form of ``dest``, full or rank-reduced) written at the coordinates
    of ``indices``. ``unique`` is required; duplicate coordinates (undefined
    upstream) leave the last slice in index order, as numpy's assignment does.
    Out-of-range coordinates are an error (see `tensor.gather`).
    """

    name = "tensor.scatter"
    unique = opt_prop_def(UnitAttr)
    HAS_UNIQUE: ClassVar[bool] = True


@irdl_op_definition
class ScatterAddOp(_ScatterBase):
    """`%r = tensor.scatter_add %upd into %dest[%idx] scatter_dims([0]) : (tensor<3x1x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>`.

    ``dest`` plus the slices of ``source`` added at the coordinates of
    ``indices``; duplicate coordinates accumulate, as ``numpy.add.at`` (in index
    order). The adjoint of `tensor.gather`. Float and integer elements.
    Out-of-range coordinates are an error (see `tensor.gather`).
    """

    name = "tensor.scatter_add"

    def verify_(self) -> None:
        super().verify_()
        et = cast(TensorType, self.dest.type).get_element_type()
        if not (is_float_type(et) or (is_integer_type(et) and cast(IntegerType, et).width.data > 1)):
            raise VerifyException(f"requires float or integer element type, got {et}")


@irdl_op_definition
class GenerateOp(IRDLOperation):
    """`%t = tensor.generate %n { ^bb0(%i: index, %j: index): ... tensor.yield %e : f32 } : tensor<?x3xf32>`.

    Upstream's `tensor.generate`: element (i, j, ...) is what the body yields
    for those indices; one index operand per dynamic dim of the result. Not
    differentiable when its body reads a differentiated value (build such a
    tensor from tensor ops instead).
    """

    name = "tensor.generate"

    dynamic_extents = var_operand_def(IndexType)
    body = region_def("single_block")
    result = result_def(TensorType)

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, dynamic_extents: Sequence[SSAValue | Operation], body: Region, result_type: Attribute,
                 attributes: Mapping[str, Attribute] | None = None):
        super().__init__(operands=(list(dynamic_extents),), regions=(body,), result_types=(result_type,),
                         attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        extents = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        values = parser.resolve_operands(extents, [IndexType()] * len(extents), pos)
        return cls(values, body, t, attrs)

    def print(self, printer: Printer):
        if self.dynamic_extents:
            printer.print_string(" ")
            printer.print_list(self.dynamic_extents, printer.print_ssa_value)
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = cast(TensorType, self.result.type)
        if t.get_shape().count(DYN) != len(self.dynamic_extents):
            raise VerifyException("must have as many index operands as dynamic extents in the result type")

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)
        self.verify_regions_()

    def verify_regions_(self) -> None:
        """The body's checks, after its ops are verified (MLIR's `verifyRegions`)."""
        t = cast(TensorType, self.result.type)
        block = self.body.block
        if len(block.args) != t.get_num_dims():
            raise VerifyException("must have one body argument per input dimension")
        if any(not isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException("all body arguments must be index")
        term = block.last_op
        if not isinstance(term, _xt.YieldOp) or len(term.operands) != 1 \
                or term.operands[0].type != t.get_element_type():
            raise VerifyException("body must be terminated with a `yield` operation of the tensor element type")


@irdl_op_definition
class RankOp(IRDLOperation, HasFolderInterface):
    """`%r = tensor.rank %t : tensor<*xf32>`: the number of dims, an index; folds for ranked tensors."""

    name = "tensor.rank"

    tensor = operand_def()
    rank = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, tensor: SSAValue | Operation, attributes: Mapping[str, Attribute] | None = None):
        super().__init__(operands=(tensor,), result_types=(IndexType(),), attributes=attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        (value,) = parser.resolve_operands([operand], [t], pos)
        return cls(value, attrs)

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_ssa_value(self.tensor)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)

    def verify_(self) -> None:
        t = self.tensor.type
        if not isinstance(t, TensorType | UnrankedTensorType):
            raise VerifyException(f"operand #0 must be tensor of any type values, but got '{t}'")

    def fold(self):
        t = self.tensor.type
        return (IntegerAttr(t.get_num_dims(), IndexType()),) if isinstance(t, TensorType) else None


# --------------------------------------------------------------------------
# Canonicalization patterns (beyond folding)
# --------------------------------------------------------------------------


class ComposeTransposes(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, [p[q[i]]])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, TransposeOp) or not isinstance(inner := op.input.owner, TransposeOp):
            return
        perm = op.permutation.get_values()
        inner_perm = inner.permutation.get_values()
        composed = [inner_perm[p] for p in perm]
        new = TransposeOp(inner.input, composed, op.result.type)
        new.location = op.location
        rewriter.replace(op, [new])


class ComposeBroadcasts(RewritePattern):
    """broadcast(broadcast(x, d1), d2) -> broadcast(x, [d2[d1[i]]])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, BroadcastOp) or not isinstance(inner := op.input.owner, BroadcastOp):
            return
        outer = op.dimensions.get_values()
        dims = [outer[d] for d in inner.dimensions.get_values()]
        new = BroadcastOp(inner.input, dims, op.result.type)
        new.location = op.location
        rewriter.replace(op, [new])


def _static_extent(offset, size, stride) -> tuple[int, int] | None:
    """The first and last index a slice touches along one dim (None: dynamic, or no index)."""
    if not (isinstance(offset, int) and isinstance(size, int) and isinstance(stride, int)) or size <= 0:
        return None
    return offset, offset + (size - 1) * stride


def _provably_disjoint(a: Operation, b: Operation) -> bool:
    """Do slices ``a`` and ``b`` (extract/insert_slice of one tensor) touch no common
    element: along some dim their static index ranges do not meet."""
    for dim in zip(*slice_params(a), *slice_params(b)):
        first, second = _static_extent(*dim[:3]), _static_extent(*dim[3:])
        if first is not None and second is not None and (first[1] < second[0] or second[1] < first[0]):
            return True
    return False


class ExtractPastDisjointInsert(RewritePattern):
    """``extract_slice(insert_slice(%s into %d), R)`` -> ``extract_slice(%d, R)`` when the
    insert wrote no element of R (static ranges apart along some dim). The derivative of
    a slice adds into a zero tensor by extract/add/insert at each slice; reading past
    the others' inserts leaves the chain of inserts with one use each, which
    ``OverwrittenInsertDest`` can then start from ``tensor.empty``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, ExtractSliceOp):
            return
        source = op.source
        while isinstance(ins := source.owner, InsertSliceOp) and _provably_disjoint(op, ins):
            source = ins.dest
        if source is op.source:
            return
        new = ExtractSliceOp(source, *slice_params(op), op.result.type)
        new.location = op.location
        rewriter.replace(op, [new])


#: at most this many cells (of the grid the slices' bounds cut the tensor into) are
#: checked for coverage: a few slices make a few cells
_COVERAGE_CELLS = 4096


def _covers(shape: Sequence[int], boxes: list[list[tuple[int, int]]]) -> bool:
    """Do ``boxes`` (per dim: first and last index, unit steps) cover every index of
    ``shape``? The boxes' bounds cut each dim into intervals: every cell of that grid
    is in a box or in none."""
    cuts = []
    for d, n in enumerate(shape):
        bounds = {0, n}
        for box in boxes:
            bounds.update((min(box[d][0], n), min(box[d][1] + 1, n)))
        cuts.append(sorted(bounds))
    if pymath.prod(len(c) - 1 for c in cuts) > _COVERAGE_CELLS:
        return False
    from itertools import product

    for corner in product(*(c[:-1] for c in cuts)):
        if not any(all(lo <= i <= hi for i, (lo, hi) in zip(corner, box)) for box in boxes):
            return False
    return True


class OverwrittenInsertDest(RewritePattern):
    """A chain of ``insert_slice`` ops, each result used only by the next as its
    destination, whose static unit-step slices together cover the whole tensor: no
    element of the first destination reaches the last result, which starts from
    ``tensor.empty`` instead (no fill of it is computed or stored). The derivative of
    the slices of a tensor (LSTM gates) inserts each slice's adjoint into zeros."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, InsertSliceOp):
            return
        result = op.results[0]
        if (result.has_one_use() and isinstance((use := result.first_use).operation, InsertSliceOp)
                and use.index == 1):
            return  # the next insert is the chain's end, seen from there
        dest_type = op.dest.type
        if not isinstance(dest_type, TensorType) or DYN in dest_type.get_shape():
            return
        boxes = []
        first = op
        while True:
            offsets, sizes, strides = slice_params(first)
            extents = [_static_extent(o, n, 1 if n == 1 else s) for o, n, s in zip(offsets, sizes, strides)]
            if all(e is not None for e in extents) and all(s == 1 or n == 1 for n, s in zip(sizes, strides)):
                boxes.append(extents)
            below = first.dest.owner
            if not isinstance(below, InsertSliceOp) or not first.dest.has_one_use():
                break
            first = below
        if isinstance(first.dest.owner, EmptyOp) or not boxes or not _covers(dest_type.get_shape(), boxes):
            return
        empty = EmptyOp((), dest_type)
        rewriter.insert(empty, InsertPoint.before(first))
        rewriter.replace_uses_with_if(first.dest, empty.tensor, lambda u: u.operation is first and u.index == 1)


# --------------------------------------------------------------------------
# The dialect
# --------------------------------------------------------------------------


class TensorConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become `arith.constant` ops."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        from xdsl.dialects.arith import ConstantOp

        return ConstantOp.build(properties={"value": value}, result_types=(type,))


def _declared_in_this_module(base: type) -> tuple[type[IRDLOperation], ...]:
    """The ops of this module declared ``@elementwise`` on ``base``, in definition order."""
    from irtoolkit.dialects.elementwise import DECLARED

    return tuple(c for c in DECLARED if issubclass(c, base) and c.__module__ == __name__)


BINARY_OPS: tuple[type[BinaryElementwiseOp], ...] = _declared_in_this_module(BinaryElementwiseOp)
UNARY_OPS: tuple[type[UnaryElementwiseOp], ...] = _declared_in_this_module(UnaryElementwiseOp)
ELEMENTWISE_OPS: tuple[type[IRDLOperation], ...] = (*BINARY_OPS, *UNARY_OPS, ClampOp, CmpOp, SelectOp, ConvertOp)
COMPUTE_OPS: tuple[type[IRDLOperation], ...] = (
    *ELEMENTWISE_OPS, MatmulOp, TransposeOp, BroadcastOp, ReduceSumOp, ReduceMaxOp,
    ConvOp, ReduceWindowSumOp, ReduceWindowMaxOp, WindowMaxSelectOp, WindowMaxScatterOp, *MODEL_OPS,
)
UPSTREAM_OPS: tuple[type[IRDLOperation], ...] = (
    CastOp, CollapseShapeOp, ConcatOp, DimOp, EmptyOp, ExpandShapeOp, ExtractOp, ExtractSliceOp,
    FromElementsOp, InsertOp, InsertSliceOp, ReshapeOp, SplatOp, PadOp, YieldOp,
)
#: upstream ops that xDSL 0.74 does not define, and our `scatter_add` next to them
INDEXED_OPS: tuple[type[IRDLOperation], ...] = (GatherOp, ScatterOp, ScatterAddOp, GenerateOp, RankOp)
for _cls in (MatmulOp, ReduceSumOp, ReduceMaxOp, ConvOp, ReduceWindowSumOp, ReduceWindowMaxOp,
             WindowMaxSelectOp, WindowMaxScatterOp):
    declare_cost(_cls, Cost.EXPENSIVE)
for _cls in (DotOp, ReduceMinOp, ReduceProdOp, ArgMaxOp, ArgMinOp):
    declare_cost(_cls, Cost.EXPENSIVE)


Tensor = Dialect(
    "tensor",
    [*COMPUTE_OPS, *UPSTREAM_OPS, *INDEXED_OPS],
    [],
    [TensorConstantMaterialization()],
)

__all__ = [
    "Tensor", "BINARY_OPS", "UNARY_OPS", "ELEMENTWISE_OPS", "COMPUTE_OPS", "UPSTREAM_OPS",
    *(c.__name__ for c in (*COMPUTE_OPS, *UPSTREAM_OPS, *INDEXED_OPS)), "INDEXED_OPS",
    "gathered_type", "gather_numpy", "scatter_numpy",
    "BinaryElementwiseOp", "UnaryElementwiseOp", "CMP_PREDICATES",
    "FLOAT_PREDICATES", "SIGNED_PREDICATES", "UNSIGNED_PREDICATES", "fold_neutral", "splat_constant",
    "is_float_type", "is_integer_type", "MODEL_OPS", "DotDims", "slice_params",
]
