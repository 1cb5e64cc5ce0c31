"""The `stablehlo` dialect, the `chlo` ops JAX emits, and the `sdy` sharding
markup JAX attaches (SPEC §10): programs exported by JAX
(`jax.jit(f).lower(*args).as_text()`) parse, verify and print.

Op definitions are IRDL; every attribute of an op is a property, as in MLIR's
StableHLO (the generic form prints them in `<{...}>`; the pretty form parses
them from the attribute dictionary too). The pretty syntax is StableHLO's own:

    %r = stablehlo.add %a, %b : tensor<4xf32>
    %m = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (...) -> ...
    %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ...
    %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
           window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {...} : (...) -> ...
    %w:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i32>, tensor<4xf32> cond {...} do {...}

Ops that StableHLO prints only in generic form (gather, scatter, reduce_window,
select_and_scatter, sort, case, if) have no custom syntax here either.
xDSL 0.74 has no `stablehlo` dialect, so nothing is replaced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    SameVariadicOperandSize,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect, SymbolOpInterface
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from irtoolkit.dialects.tensor import windowed_size

# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def ints(attr: DenseArrayBase | None) -> tuple[int, ...]:
    """The integers of a `array<i64: ...>` property (empty when absent)."""
    return () if attr is None else tuple(int(v) for v in attr.get_values())


def dense_ints(attr: DenseIntOrFPElementsAttr | None) -> list[int]:
    """The integers of a `dense<...> : tensor<...xi64>` attribute, splats expanded."""
    if attr is None:
        return []
    values = [int(v) for v in attr.get_values()]
    n = 1
    for d in attr.get_shape():
        n *= d
    if len(values) == 1 and n != 1:
        values = values * n
    return values


def padding_pairs(attr: DenseIntOrFPElementsAttr | None, rank: int) -> list[tuple[int, int]]:
    """`dense<[[lo, hi], ...]> : tensor<Nx2xi64>` as pairs (zeros when absent)."""
    if attr is None:
        return [(0, 0)] * rank
    flat = dense_ints(attr)
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(len(flat) // 2)]


def padding_attr(pairs: Sequence[tuple[int, int]]) -> DenseIntOrFPElementsAttr:
    flat = [int(v) for pair in pairs for v in pair]
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, (len(pairs), 2)), flat)


def _list_str(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _parse_int_list(parser: AttrParser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _parse_bool_or_int(parser: AttrParser) -> int:
    if parser.parse_optional_keyword("true"):
        return 1
    if parser.parse_optional_keyword("false"):
        return 0
    return parser.parse_integer()


def _shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


def _is_float(et: Attribute) -> bool:
    return isinstance(et, AnyFloat)


def _is_int(et: Attribute) -> bool:
    return isinstance(et, IntegerType | IndexType)


def _is_bool(et: Attribute) -> bool:
    return isinstance(et, IntegerType) and et.width.data == 1


def _check_dims(dims: Sequence[int], rank: int, what: str) -> None:
    """Dims must be unique and within [0, rank)."""
    for d in dims:
        if not 0 <= d < rank:
            raise VerifyException(f"{what} {d} is out of range [0, {rank})")
    if len(set(dims)) != len(dims):
        raise VerifyException(f"{what} must be unique, got {_list_str(dims)}")


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join("?" if d < 0 else str(d) for d in shape) if shape else "scalar"


def _dims_agree(a: int, b: int) -> bool:
    return a == b or a < 0 or b < 0


def _shapes_agree(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(_dims_agree(x, y) for x, y in zip(a, b))


def _check_result_shape(op: Operation, expected: Sequence[int]) -> None:
    got = _shape(op.results[0].type)
    if not _shapes_agree(got, expected):
        raise VerifyException(
            f"result shape {_shape_str(got)} does not match the expected {_shape_str(expected)}")


def _take_props(cls: type[IRDLOperation], attrs: dict[str, Attribute]) -> dict[str, Attribute]:
    """Move the op's properties out of a parsed attribute dictionary (MLIR prints
    properties there in the pretty form)."""
    names = cls.get_irdl_definition().properties
    return {name: attrs.pop(name) for name in list(attrs) if name in names}


def _build(cls, operands, result_types, props, attrs, regions=()):
    props = dict(props)
    props.update(_take_props(cls, attrs))
    return cls.create(operands=list(operands), result_types=list(result_types), properties=props,
                      attributes=attrs, regions=list(regions))


def _print_attrs(printer: Printer, op: Operation, shown: Sequence[str] = ()) -> None:
    """The attribute dictionary of the pretty form: attributes, plus the
    properties that the pretty syntax does not show elsewhere."""
    extra = {k: v for k, v in op.properties.items() if k not in shown}
    printer.print_op_attributes({**extra, **op.attributes})


def _parse_attrs(parser: Parser) -> dict[str, Attribute]:
    attrs = parser.parse_optional_attr_dict()
    return dict(attrs) if attrs else {}


def _parse_types_after_colon(parser: Parser, n_operands: int) -> tuple[list[Attribute], list[Attribute]]:
    """StableHLO's `SameOperandsAndResultType` form: `: T` (every operand and the
    result have type T) or `: (T1, T2) -> R`."""
    parser.parse_punctuation(":")
    if parser.parse_optional_punctuation("(") is not None:
        ins = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type) \
            if parser.parse_optional_punctuation(")") is None else []
        if ins:
            parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        return ins, _parse_result_types(parser)
    t = parser.parse_type()
    return [t] * n_operands, [t]


def _parse_result_types(parser: Parser) -> list[Attribute]:
    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is not None:
            return []
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return types
    return [parser.parse_type()]


def _print_same_or_functional(printer: Printer, op: Operation) -> None:
    printer.print_string(" : ")
    types = [v.type for v in op.operands]
    rt = op.results[0].type
    if all(t == rt for t in types):
        printer.print_attribute(rt)
    else:
        _print_functional(printer, op)


def _print_functional(printer: Printer, op: Operation) -> None:
    printer.print_string("(")
    printer.print_list([v.type for v in op.operands], printer.print_attribute)
    printer.print_string(") -> ")
    if len(op.results) == 1:
        printer.print_attribute(op.results[0].type)
    else:
        printer.print_string("(")
        printer.print_list([r.type for r in op.results], printer.print_attribute)
        printer.print_string(")")


def _parse_functional(parser: Parser) -> tuple[list[Attribute], list[Attribute]]:
    parser.parse_punctuation(":")
    parser.parse_punctuation("(")
    ins = [] if parser.parse_optional_punctuation(")") is not None else None
    if ins is None:
        ins = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
    parser.parse_punctuation("->")
    return ins, _parse_result_types(parser)


def _parse_operands(parser: Parser) -> list[UnresolvedOperand]:
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)


def _resolve(parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute], pos: int):
    if len(operands) != len(types):
        parser.raise_error(f"expected {len(operands)} operand types, got {len(types)}", pos, parser.pos)
    return parser.resolve_operands(list(operands), list(types), pos)


def _print_operands(printer: Printer, operands: Sequence[SSAValue]) -> None:
    printer.print_list(operands, printer.print_ssa_value)


# --------------------------------------------------------------------------
# Attributes
# --------------------------------------------------------------------------


class ComparisonDirection(StrEnum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<comparison_direction GT>`."""

    name = "stablehlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<comparison_type FLOAT>`."""

    name = "stablehlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<precision DEFAULT>`: a hint for the accuracy of dot and convolution."""

    name = "stablehlo.precision"


class _FieldsAttr(ParametrizedAttribute):
    """`#stablehlo.<name><key = [..], key = n, ...>`: integer-list and integer
    fields in a fixed order; empty lists are left out when printed."""

    LIST_FIELDS: ClassVar[tuple[str, ...]] = ()
    INT_FIELDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return cls.LIST_FIELDS + cls.INT_FIELDS

    @classmethod
    def get(cls, **values):
        params = []
        for f in cls.LIST_FIELDS:
            params.append(ArrayAttr([IntAttr(int(v)) for v in values.get(f, ())]))
        for f in cls.INT_FIELDS:
            params.append(IntAttr(int(values.get(f, 0))))
        return cls(*params)

    def value(self, field: str):
        attr = getattr(self, field)
        if isinstance(attr, IntAttr):
            return attr.data
        return tuple(a.data for a in attr.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, object] = {}

        def parse_field() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in cls.fields():
                parser.raise_error(f"unknown field '{key}' of {cls.name}, expected one of "
                                   + ", ".join(cls.fields()), pos, parser.pos)
            if key in values:
                parser.raise_error(f"field '{key}' given twice", pos, parser.pos)
            parser.parse_punctuation("=")
            values[key] = _parse_int_list(parser) if key in cls.LIST_FIELDS else parser.parse_integer()

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_field)
        missing = [f for f in cls.INT_FIELDS if f not in values]
        if missing:
            parser.raise_error(f"{cls.name} needs field '{missing[0]}'")
        return cls.get(**values).parameters

    def print_parameters(self, printer: Printer) -> None:
        parts = []
        for f in self.LIST_FIELDS:
            v = self.value(f)
            if v:
                parts.append(f"{f} = {_list_str(v)}")
        for f in self.INT_FIELDS:
            parts.append(f"{f} = {self.value(f)}")
        printer.print_string("<" + ", ".join(parts) + ">")


@irdl_attr_definition
class GatherDimensionNumbersAttr(_FieldsAttr):
    """`#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>`."""

    name = "stablehlo.gather"
    LIST_FIELDS: ClassVar[tuple[str, ...]] = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                   "start_indices_batching_dims", "start_index_map")
    INT_FIELDS: ClassVar[tuple[str, ...]] = ("index_vector_dim",)

    offset_dims: ArrayAttr[IntAttr] = param_def()
    collapsed_slice_dims: ArrayAttr[IntAttr] = param_def()
    operand_batching_dims: ArrayAttr[IntAttr] = param_def()
    start_indices_batching_dims: ArrayAttr[IntAttr] = param_def()
    start_index_map: ArrayAttr[IntAttr] = param_def()
    index_vector_dim: IntAttr = param_def()


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_FieldsAttr):
    """`#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], ...>`."""

    name = "stablehlo.scatter"
    LIST_FIELDS: ClassVar[tuple[str, ...]] = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                   "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
    INT_FIELDS: ClassVar[tuple[str, ...]] = ("index_vector_dim",)

    update_window_dims: ArrayAttr[IntAttr] = param_def()
    inserted_window_dims: ArrayAttr[IntAttr] = param_def()
    input_batching_dims: ArrayAttr[IntAttr] = param_def()
    scatter_indices_batching_dims: ArrayAttr[IntAttr] = param_def()
    scatter_dims_to_operand_dims: ArrayAttr[IntAttr] = param_def()
    index_vector_dim: IntAttr = param_def()


@irdl_attr_definition
class DotDimensionNumbersAttr(_FieldsAttr):
    """`#stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>`."""

    name = "stablehlo.dot"
    LIST_FIELDS: ClassVar[tuple[str, ...]] = ("lhs_batching_dimensions", "rhs_batching_dimensions",
                   "lhs_contracting_dimensions", "rhs_contracting_dimensions")

    lhs_batching_dimensions: ArrayAttr[IntAttr] = param_def()
    rhs_batching_dimensions: ArrayAttr[IntAttr] = param_def()
    lhs_contracting_dimensions: ArrayAttr[IntAttr] = param_def()
    rhs_contracting_dimensions: ArrayAttr[IntAttr] = param_def()


@irdl_attr_definition
class ConvDimensionNumbersAttr(ParametrizedAttribute):
    """`#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`: which dim of
    the input, kernel and output is batch (b), feature (f), kernel input /
    output feature (i / o) and each spatial dim (0, 1, ...)."""

    name = "stablehlo.conv"

    input_batch_dimension: IntAttr = param_def()
    input_feature_dimension: IntAttr = param_def()
    input_spatial_dimensions: ArrayAttr[IntAttr] = param_def()
    kernel_input_feature_dimension: IntAttr = param_def()
    kernel_output_feature_dimension: IntAttr = param_def()
    kernel_spatial_dimensions: ArrayAttr[IntAttr] = param_def()
    output_batch_dimension: IntAttr = param_def()
    output_feature_dimension: IntAttr = param_def()
    output_spatial_dimensions: ArrayAttr[IntAttr] = param_def()

    @staticmethod
    def get(input_b: int, input_f: int, input_s: Sequence[int], kernel_i: int, kernel_o: int,
            kernel_s: Sequence[int], output_b: int, output_f: int, output_s: Sequence[int]):
        arr = lambda xs: ArrayAttr([IntAttr(int(x)) for x in xs])  # noqa: E731
        return ConvDimensionNumbersAttr(IntAttr(input_b), IntAttr(input_f), arr(input_s),
                                        IntAttr(kernel_i), IntAttr(kernel_o), arr(kernel_s),
                                        IntAttr(output_b), IntAttr(output_f), arr(output_s))

    def layout(self, which: str) -> tuple[int, int, tuple[int, ...]]:
        """(batch-or-input-feature dim, feature-or-output-feature dim, spatial dims) of
        ``which`` in ``input``, ``kernel``, ``output``."""
        if which == "input":
            a, b, s = self.input_batch_dimension, self.input_feature_dimension, self.input_spatial_dimensions
        elif which == "kernel":
            a, b, s = (self.kernel_input_feature_dimension, self.kernel_output_feature_dimension,
                       self.kernel_spatial_dimensions)
        else:
            a, b, s = self.output_batch_dimension, self.output_feature_dimension, self.output_spatial_dimensions
        return a.data, b.data, tuple(x.data for x in s.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        attr = parse_conv_dimension_numbers(parser)
        parser.parse_punctuation(">")
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + conv_dimension_numbers_str(self) + ">")


_CONV_LETTERS = {"input": ("b", "f"), "kernel": ("i", "o"), "output": ("b", "f")}


def _parse_conv_layout(parser: AttrParser, which: str) -> tuple[int, int, list[int]]:
    first, second = _CONV_LETTERS[which]
    found: dict[str, int] = {}
    spatial: dict[int, int] = {}
    pos = parser.pos
    entries: list[str] = []

    def entry() -> None:
        n = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        entries.append(str(n) if n is not None else parser.parse_identifier())

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
    for dim, name in enumerate(entries):
        if name.isdigit():
            if int(name) in spatial:
                parser.raise_error(f"spatial dimension {name} given twice in the {which} layout", pos, parser.pos)
            spatial[int(name)] = dim
        elif name in (first, second):
            if name in found:
                parser.raise_error(f"'{name}' given twice in the {which} layout", pos, parser.pos)
            found[name] = dim
        else:
            parser.raise_error(f"unexpected '{name}' in the {which} layout, expected "
                               f"'{first}', '{second}' or a spatial dimension number", pos, parser.pos)
    if len(found) != 2:
        parser.raise_error(f"the {which} layout needs '{first}' and '{second}'", pos, parser.pos)
    if sorted(spatial) != list(range(len(spatial))):
        parser.raise_error(f"the spatial dimensions of the {which} layout must be 0..{len(spatial) - 1}",
                           pos, parser.pos)
    return found[first], found[second], [spatial[i] for i in range(len(spatial))]


def parse_conv_dimension_numbers(parser: AttrParser) -> ConvDimensionNumbersAttr:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`."""
    ib, if_, is_ = _parse_conv_layout(parser, "input")
    # `]x[` lexes as `]`, `x`, `[` (or `x[` as a bare identifier prefix): accept both
    if parser.parse_optional_keyword("x") is None:
        parser.parse_characters("x")
    ki, ko, ks = _parse_conv_layout(parser, "kernel")
    parser.parse_punctuation("->")
    ob, of, os_ = _parse_conv_layout(parser, "output")
    return ConvDimensionNumbersAttr.get(ib, if_, is_, ki, ko, ks, ob, of, os_)


def conv_dimension_numbers_str(attr: ConvDimensionNumbersAttr) -> str:
    parts = []
    for which in ("input", "kernel", "output"):
        a, b, spatial = attr.layout(which)
        rank = 2 + len(spatial)
        names = [""] * rank
        first, second = _CONV_LETTERS[which]
        names[a], names[b] = first, second
        for i, d in enumerate(spatial):
            names[d] = str(i)
        parts.append("[" + ", ".join(names) + "]")
    return f"{parts[0]}x{parts[1]}->{parts[2]}"


class _OpaqueBodyAttr(ParametrizedAttribute):
    """An attribute kept as the text of its `<...>` body (sharding markup that
    irtoolkit carries along but does not interpret)."""

    body: StringAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if parser._current_token.text != "<":  # noqa: SLF001
            parser.raise_error(f"expected '<' after {cls.name}")
        return (StringAttr(parser._parse_dialect_symbol_body()),)  # noqa: SLF001

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + self.body.data + ">")


@irdl_attr_definition
class ShardingAttr(_OpaqueBodyAttr):
    """`#sdy.sharding<@mesh, [{"batch"}, {}]>`."""

    name = "sdy.sharding"


@irdl_attr_definition
class ShardingPerValueAttr(_OpaqueBodyAttr):
    """`#sdy.sharding_per_value<[<@mesh, [{}]>, ...]>`."""

    name = "sdy.sharding_per_value"


@irdl_attr_definition
class MeshAttr(_OpaqueBodyAttr):
    """`#sdy.mesh<["batch"=1]>`."""

    name = "sdy.mesh"


@irdl_op_definition
class MeshOp(IRDLOperation):
    """`sdy.mesh @mesh = <["batch"=1]>`: a named device mesh that shardings refer to."""

    name = "sdy.mesh"

    sym_name = prop_def(SymbolNameConstraint())
    mesh = prop_def(MeshAttr)

    traits = traits_def(SymbolOpInterface())

    @classmethod
    def parse(cls, parser: Parser) -> MeshOp:
        name = parser.parse_symbol_name()
        parser.parse_punctuation("=")
        mesh = MeshAttr(*MeshAttr.parse_parameters(parser))
        attrs = _parse_attrs(parser)
        return cls.create(properties={"sym_name": name, "mesh": mesh}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" = ")
        self.mesh.print_parameters(printer)
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------
# Elementwise ops
# --------------------------------------------------------------------------

# element-type kinds an op accepts
FLOAT, INT, BOOL = "float", "integer", "boolean"


def _kind_ok(et: Attribute, kinds: Sequence[str]) -> bool:
    return ((FLOAT in kinds and (_is_float(et) or isinstance(et, ComplexType)))
            or (BOOL in kinds and _is_bool(et))
            or (INT in kinds and _is_int(et) and not _is_bool(et)))


def _check_kind(et: Attribute, kinds: Sequence[str]) -> None:
    if not _kind_ok(et, kinds):
        raise VerifyException(f"requires {' or '.join(kinds)} element type, got {et}")


def _check_same_shapes(op: Operation, types: Sequence[Attribute]) -> None:
    shapes = [_shape(t) for t in types]
    if any(not _shapes_agree(shapes[0], s) for s in shapes[1:]):
        raise VerifyException(
            "requires the same shape for all operands and results, got "
            + ", ".join(str(t) for t in types[:-1]) + f" -> {types[-1]}")


def _check_same_types(op: Operation, types: Sequence[Attribute]) -> None:
    _check_same_shapes(op, types)
    ets = [_element(t) for t in types]
    if any(e != ets[0] for e in ets[1:]):
        raise VerifyException(
            "requires the same element type for all operands and results, got "
            + ", ".join(str(t) for t in types[:-1]) + f" -> {types[-1]}")


class _ElementwiseOp(IRDLOperation):
    """Pretty form `%r = stablehlo.<op> %a, %b : T` (`: (T1, T2) -> R` when types differ)."""

    KINDS: ClassVar[tuple[str, ...]] = (FLOAT, INT, BOOL)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = _parse_operands(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_types_after_colon(parser, len(operands))
        return _build(cls, _resolve(parser, operands, ins, pos), outs, {}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attrs(printer, self)
        _print_same_or_functional(printer, self)

    def verify_(self) -> None:
        types = [v.type for v in self.operands] + [self.results[0].type]
        _check_same_types(self, types)
        _check_kind(_element(types[-1]), self.KINDS)


class _UnaryOp(_ElementwiseOp):
    operand = operand_def(TensorType)
    result = result_def(TensorType)


class _BinaryOp(_ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)


def _unary(op_name: str, doc: str, kinds: tuple[str, ...] = (FLOAT,)) -> type[_UnaryOp]:
    cls = type(op_name.split(".")[1].title().replace("_", "") + "Op", (_UnaryOp,),
               {"name": op_name, "KINDS": kinds, "__doc__": doc, "__module__": __name__,
                "__annotations__": {"KINDS": ClassVar[tuple[str, ...]]}})
    return irdl_op_definition(cls)


def _binary(op_name: str, doc: str, kinds: tuple[str, ...] = (FLOAT, INT)) -> type[_BinaryOp]:
    cls = type(op_name.split(".")[1].title().replace("_", "") + "Op", (_BinaryOp,),
               {"name": op_name, "KINDS": kinds, "__doc__": doc, "__module__": __name__,
                "__annotations__": {"KINDS": ClassVar[tuple[str, ...]]}})
    return irdl_op_definition(cls)


AbsOp = _unary("stablehlo.abs", "|x| (float or integer).", (FLOAT, INT))
CbrtOp = _unary("stablehlo.cbrt", "Cube root.")
CeilOp = _unary("stablehlo.ceil", "Round toward +inf.")
CosineOp = _unary("stablehlo.cosine", "cos x.")
ExponentialOp = _unary("stablehlo.exponential", "e**x.")
ExponentialMinusOneOp = _unary("stablehlo.exponential_minus_one", "e**x - 1 (accurate near 0).")
FloorOp = _unary("stablehlo.floor", "Round toward -inf.")
LogOp = _unary("stablehlo.log", "Natural logarithm.")
LogPlusOneOp = _unary("stablehlo.log_plus_one", "log(1 + x) (accurate near 0).")
LogisticOp = _unary("stablehlo.logistic", "1 / (1 + e**-x).")
NegateOp = _unary("stablehlo.negate", "-x (float or integer).", (FLOAT, INT))
NotOp = _unary("stablehlo.not", "Logical (i1) or bitwise (integer) not.", (BOOL, INT))
RoundNearestAfzOp = _unary("stablehlo.round_nearest_afz", "Round to nearest, ties away from zero.")
RoundNearestEvenOp = _unary("stablehlo.round_nearest_even", "Round to nearest, ties to even.")
RsqrtOp = _unary("stablehlo.rsqrt", "1 / sqrt(x).")
SignOp = _unary("stablehlo.sign", "-1, 0 or 1 (NaN stays NaN).", (FLOAT, INT))
SineOp = _unary("stablehlo.sine", "sin x.")
SqrtOp = _unary("stablehlo.sqrt", "Square root.")
TanOp = _unary("stablehlo.tan", "tan x.")
TanhOp = _unary("stablehlo.tanh", "Hyperbolic tangent.")

AddOp = _binary("stablehlo.add", "a + b (or for i1).", (FLOAT, INT, BOOL))
SubtractOp = _binary("stablehlo.subtract", "a - b.")
MultiplyOp = _binary("stablehlo.multiply", "a * b (and for i1).", (FLOAT, INT, BOOL))
DivideOp = _binary("stablehlo.divide", "a / b (integers: truncating).")
RemainderOp = _binary("stablehlo.remainder", "C fmod: the sign of the dividend.")
MaximumOp = _binary("stablehlo.maximum", "Elementwise max; NaN propagates.", (FLOAT, INT, BOOL))
MinimumOp = _binary("stablehlo.minimum", "Elementwise min; NaN propagates.", (FLOAT, INT, BOOL))
PowerOp = _binary("stablehlo.power", "a ** b.")
Atan2Op = _binary("stablehlo.atan2", "atan2(a, b).", (FLOAT,))
AndOp = _binary("stablehlo.and", "Logical or bitwise and.", (BOOL, INT))
OrOp = _binary("stablehlo.or", "Logical or bitwise or.", (BOOL, INT))
XorOp = _binary("stablehlo.xor", "Logical or bitwise xor.", (BOOL, INT))
ShiftLeftOp = _binary("stablehlo.shift_left", "a << b.", (INT,))
ShiftRightArithmeticOp = _binary("stablehlo.shift_right_arithmetic", "a >> b, sign-extending.", (INT,))
ShiftRightLogicalOp = _binary("stablehlo.shift_right_logical", "a >> b, zero-filling.", (INT,))


@irdl_op_definition
class ClampOp(_ElementwiseOp):
    """`stablehlo.clamp %min, %x, %max : T`: min and max are 0-d or of x's shape."""

    name = "stablehlo.clamp"

    min = operand_def(TensorType)
    operand = operand_def(TensorType)
    max = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        t = self.operand.type
        for which, bound in (("min", self.min), ("max", self.max)):
            bt = bound.type
            if _element(bt) != _element(t):
                raise VerifyException(f"{which} has element type {_element(bt)}, operand has {_element(t)}")
            if _shape(bt) and not _shapes_agree(_shape(bt), _shape(t)):
                raise VerifyException(f"{which} must be 0-d or of the operand's shape, got {bt} for {t}")
        _check_same_types(self, [t, self.result.type])


@irdl_op_definition
class ConvertOp(_ElementwiseOp):
    """`stablehlo.convert %x : (tensor<4xi1>) -> tensor<4xf32>`: element type conversion."""

    name = "stablehlo.convert"
    operand = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        _check_same_shapes(self, [self.operand.type, self.result.type])


@irdl_op_definition
class BitcastConvertOp(_ElementwiseOp):
    """`stablehlo.bitcast_convert %x : (tensor<4xf32>) -> tensor<4xi32>`: same bits, another type."""

    name = "stablehlo.bitcast_convert"
    operand = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        it, rt = self.operand.type, self.result.type
        bits = [_element_bits(_element(t)) for t in (it, rt)]
        if bits[0] != bits[1]:
            raise VerifyException(f"element types of different widths are not supported: "
                                  f"{_element(it)} ({bits[0]} bits) vs {_element(rt)} ({bits[1]} bits)")
        _check_same_shapes(self, [it, rt])


def _element_bits(et: Attribute) -> int:
    if isinstance(et, IntegerType):
        return et.width.data
    if isinstance(et, AnyFloat):
        return et.bitwidth
    if isinstance(et, IndexType):
        return 64
    return 0


@irdl_op_definition
class IsFiniteOp(_ElementwiseOp):
    """`stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>`."""

    name = "stablehlo.is_finite"
    x = operand_def(TensorType)
    y = result_def(TensorType)

    def verify_(self) -> None:
        _check_kind(_element(self.x.type), (FLOAT,))
        if _element(self.y.type) != i1:
            raise VerifyException(f"result must have element type i1, got {self.y.type}")
        _check_same_shapes(self, [self.x.type, self.y.type])


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`stablehlo.select %pred, %a, %b : tensor<4xi1>, tensor<4xf32>`; pred may be 0-d."""

    name = "stablehlo.select"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = _parse_operands(parser)
        attrs = _parse_attrs(parser)
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("(") is not None:
            ins = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            outs = [parser.parse_type()]
        else:
            pt = parser.parse_type()
            parser.parse_punctuation(",")
            t = parser.parse_type()
            ins, outs = [pt, t, t], [t]
        return _build(cls, _resolve(parser, operands, ins, pos), outs, {}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        rt = self.result.type
        if self.on_true.type == rt and self.on_false.type == rt:
            printer.print_attribute(self.pred.type)
            printer.print_string(", ")
            printer.print_attribute(rt)
        else:
            _print_functional(printer, self)

    def verify_(self) -> None:
        pt, at, bt, rt = self.pred.type, self.on_true.type, self.on_false.type, self.result.type
        if _element(pt) != i1:
            raise VerifyException(f"predicate must have element type i1, got {pt}")
        _check_same_types(self, [at, bt, rt])
        if _shape(pt) and not _shapes_agree(_shape(pt), _shape(at)):
            raise VerifyException(f"predicate must be 0-d or of the operands' shape, got {pt} for {at}")


@irdl_op_definition
class CompareOp(IRDLOperation):
    """`stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>`."""

    name = "stablehlo.compare"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    comparison_direction = prop_def(ComparisonDirectionAttr)
    compare_type = opt_prop_def(ComparisonTypeAttr)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        direction = ComparisonDirectionAttr(parser.parse_str_enum(ComparisonDirection))
        parser.parse_punctuation(",")
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {"comparison_direction": direction}
        if parser.parse_optional_punctuation(","):
            props["compare_type"] = ComparisonTypeAttr(parser.parse_str_enum(ComparisonType))
        attrs = _parse_attrs(parser)
        ins, outs = _parse_types_after_colon(parser, 2)
        return _build(cls, _resolve(parser, [lhs, rhs], ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f"  {self.comparison_direction.data.value}, ")
        _print_operands(printer, self.operands)
        if self.compare_type is not None:
            printer.print_string(f",  {self.compare_type.data.value}")
        _print_attrs(printer, self, ("comparison_direction", "compare_type"))
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        lt, rt, ot = self.lhs.type, self.rhs.type, self.result.type
        if _element(lt) != _element(rt):
            raise VerifyException(f"operands have different element types: {lt} vs {rt}")
        if _element(ot) != i1:
            raise VerifyException(f"result must have element type i1, got {ot}")
        _check_same_shapes(self, [lt, rt, ot])
        if self.compare_type is not None:
            ct = self.compare_type.data
            et = _element(lt)
            ok = {ComparisonType.FLOAT: _is_float(et), ComparisonType.TOTALORDER: _is_float(et),
                  ComparisonType.SIGNED: _is_int(et), ComparisonType.UNSIGNED: _is_int(et),
                  ComparisonType.NOTYPE: True}[ct]
            if not ok:
                raise VerifyException(f"compare type {ct.value} does not fit element type {et}")


# --------------------------------------------------------------------------
# Constants, shapes, data movement
# --------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%c = stablehlo.constant dense<1.0> : tensor<f32>`."""

    name = "stablehlo.constant"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        attrs = _parse_attrs(parser)
        if "value" in attrs:
            value = attrs.pop("value")
            parser.parse_punctuation(":")
            parser.parse_punctuation("(")
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            out = parser.parse_type()
        else:
            pos = parser.pos
            value = parser.parse_attribute()
            if not isinstance(value, DenseIntOrFPElementsAttr):
                parser.raise_error(f"expected a dense elements attribute, got {value}", pos, parser.pos)
            out = value.get_type()
        return _build(cls, [], [out], {"value": value}, attrs)

    def print(self, printer: Printer) -> None:
        _print_attrs(printer, self, ("value",))
        printer.print_string(" ")
        printer.print_attribute(self.value)

    def verify_(self) -> None:
        vt = self.value.get_type()
        if vt != self.output.type:
            raise VerifyException(f"value of type {vt} does not match the result type {self.output.type}")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`%i = stablehlo.iota dim = 1 : tensor<4x3xi32>`: 0, 1, 2 ... along one dim."""

    name = "stablehlo.iota"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    iota_dimension = prop_def(IntegerAttr)
    output = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer()
        attrs = _parse_attrs(parser)
        parser.parse_punctuation(":")
        out = parser.parse_type()
        return _build(cls, [], [out], {"iota_dimension": IntegerAttr(dim, i64)}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dim = {self.iota_dimension.value.data}")
        _print_attrs(printer, self, ("iota_dimension",))
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)

    def verify_(self) -> None:
        rank = len(_shape(self.output.type))
        d = self.iota_dimension.value.data
        if not 0 <= d < rank:
            raise VerifyException(f"iota dimension {d} is out of range [0, {rank})")


class _DimsOp(IRDLOperation):
    """`%r = stablehlo.<op> %x, dims = [..] : (T) -> R` (reverse: `: T`)."""

    DIMS: ClassVar[str] = "dimensions"
    SAME_TYPE: ClassVar[bool] = False
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("dims")
        parser.parse_punctuation("=")
        dims = _parse_int_list(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_types_after_colon(parser, 1)
        return _build(cls, _resolve(parser, [operand], ins, pos), outs, {cls.DIMS: _i64_array(dims)}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.operands[0])
        printer.print_string(f", dims = {_list_str(self.dims)}")
        _print_attrs(printer, self, (self.DIMS,))
        if self.SAME_TYPE:
            _print_same_or_functional(printer, self)
        else:
            printer.print_string(" : ")
            _print_functional(printer, self)

    @property
    def dims(self) -> tuple[int, ...]:
        return ints(self.properties[self.DIMS])


@irdl_op_definition
class BroadcastInDimOp(_DimsOp):
    """`stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>`:
    operand dim i goes to result dim dims[i] (size equal, or 1 to expand)."""

    name = "stablehlo.broadcast_in_dim"
    DIMS: ClassVar[str] = "broadcast_dimensions"
    operand = operand_def(TensorType)
    broadcast_dimensions = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    def verify_(self) -> None:
        it, rt = self.operand.type, self.result.type
        ishape, rshape = _shape(it), _shape(rt)
        dims = self.dims
        if _element(it) != _element(rt):
            raise VerifyException(f"element types differ: {it} vs {rt}")
        if len(dims) != len(ishape):
            raise VerifyException(f"needs one dimension per operand dim: {len(dims)} for rank {len(ishape)}")
        _check_dims(dims, len(rshape), "broadcast dimension")
        for i, d in enumerate(dims):
            if ishape[i] != 1 and not _dims_agree(ishape[i], rshape[d]):
                raise VerifyException(
                    f"operand dim {i} of size {ishape[i]} cannot broadcast to result dim {d} of size {rshape[d]}")


@irdl_op_definition
class TransposeOp(_DimsOp):
    """`stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>`:
    result dim i is operand dim dims[i]."""

    name = "stablehlo.transpose"
    DIMS: ClassVar[str] = "permutation"
    operand = operand_def(TensorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    def verify_(self) -> None:
        it = self.operand.type
        perm = self.dims
        ishape = _shape(it)
        if sorted(perm) != list(range(len(ishape))):
            raise VerifyException(f"permutation {_list_str(perm)} is not a permutation of 0..{len(ishape) - 1}")
        if _element(it) != _element(self.result.type):
            raise VerifyException(f"element types differ: {it} vs {self.result.type}")
        _check_result_shape(self, [ishape[p] for p in perm])


@irdl_op_definition
class ReverseOp(_DimsOp):
    """`stablehlo.reverse %x, dims = [0] : tensor<4x3xf32>`."""

    name = "stablehlo.reverse"
    SAME_TYPE: ClassVar[bool] = True
    operand = operand_def(TensorType)
    dimensions = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    def verify_(self) -> None:
        _check_dims(self.dims, len(_shape(self.operand.type)), "dimension")
        _check_same_types(self, [self.operand.type, self.result.type])


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """`stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>` (row-major)."""

    name = "stablehlo.reshape"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = _parse_attrs(parser)
        ins, outs = _parse_types_after_colon(parser, 1)
        return _build(cls, _resolve(parser, [operand], ins, pos), outs, {}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        it, rt = self.operand.type, self.result.type
        if _element(it) != _element(rt):
            raise VerifyException(f"element types differ: {it} vs {rt}")
        a, b = _shape(it), _shape(rt)
        if all(d >= 0 for d in a + b) and _prod(a) != _prod(b):
            raise VerifyException(f"cannot reshape {_prod(a)} elements ({it}) into {_prod(b)} ({rt})")


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


@irdl_op_definition
class SliceOp(IRDLOperation):
    """`stablehlo.slice %x [0:4, 2:8:2] : (tensor<4x8xf32>) -> tensor<4x3xf32>` (start:limit:stride)."""

    name = "stablehlo.slice"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    start_indices = prop_def(DenseArrayBase.constr(i64))
    limit_indices = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        starts, limits, strides = [], [], []

        def entry() -> None:
            starts.append(parser.parse_integer())
            parser.parse_punctuation(":")
            limits.append(parser.parse_integer())
            strides.append(parser.parse_integer() if parser.parse_optional_punctuation(":") else 1)

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_types_after_colon(parser, 1)
        props = {"start_indices": _i64_array(starts), "limit_indices": _i64_array(limits),
                 "strides": _i64_array(strides)}
        return _build(cls, _resolve(parser, [operand], ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.operand)
        entries = [f"{s}:{l}" + (f":{st}" if st != 1 else "")
                   for s, l, st in zip(ints(self.start_indices), ints(self.limit_indices), ints(self.strides))]
        printer.print_string(" [" + ", ".join(entries) + "]")
        _print_attrs(printer, self, ("start_indices", "limit_indices", "strides"))
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        starts, limits, strides = ints(self.start_indices), ints(self.limit_indices), ints(self.strides)
        if not len(starts) == len(limits) == len(strides) == len(shape):
            raise VerifyException(f"needs one start, limit and stride per operand dim (rank {len(shape)}), "
                                  f"got {len(starts)}, {len(limits)}, {len(strides)}")
        out = []
        for d, (s, l, st, n) in enumerate(zip(starts, limits, strides, shape)):
            if st <= 0:
                raise VerifyException(f"stride {st} of dim {d} must be positive")
            if s < 0 or l < s or (n >= 0 and l > n):
                raise VerifyException(f"slice {s}:{l} of dim {d} is out of bounds for size {n}")
            out.append(-(-(l - s) // st))
        if _element(self.operand.type) != _element(self.result.type):
            raise VerifyException(f"element types differ: {self.operand.type} vs {self.result.type}")
        _check_result_shape(self, out)


def _check_scalar_indices(indices: Sequence[SSAValue], rank: int) -> None:
    if len(indices) != rank:
        raise VerifyException(f"needs {rank} start indices (one per operand dim), got {len(indices)}")
    for i, v in enumerate(indices):
        t = v.type
        if _shape(t) != () or not _is_int(_element(t)):
            raise VerifyException(f"start index {i} must be a 0-d integer tensor, got {t}")
    if len({v.type for v in indices}) > 1:
        raise VerifyException("start indices must all have the same type")


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """`stablehlo.dynamic_slice %x, %i, %j, sizes = [4, 1] : (tensor<8x5xf32>, tensor<i32>, tensor<i32>) -> tensor<4x1xf32>`;
    starts are clamped so that the slice stays in bounds."""

    name = "stablehlo.dynamic_slice"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    slice_sizes = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            if parser.parse_optional_keyword("sizes"):
                break
            operands.append(parser.parse_unresolved_operand())
        else:
            parser.raise_error("expected 'sizes = [...]'")
        parser.parse_punctuation("=")
        sizes = _parse_int_list(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, operands, ins, pos), outs, {"slice_sizes": _i64_array(sizes)}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        printer.print_string(f", sizes = {_list_str(ints(self.slice_sizes))}")
        _print_attrs(printer, self, ("slice_sizes",))
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        _check_scalar_indices(self.start_indices, len(shape))
        sizes = ints(self.slice_sizes)
        if len(sizes) != len(shape):
            raise VerifyException(f"needs {len(shape)} slice sizes, got {len(sizes)}")
        for d, (s, n) in enumerate(zip(sizes, shape)):
            if s < 0 or (n >= 0 and s > n):
                raise VerifyException(f"slice size {s} of dim {d} is out of range [0, {n}]")
        _check_result_shape(self, sizes)


@irdl_op_definition
class DynamicUpdateSliceOp(IRDLOperation):
    """`stablehlo.dynamic_update_slice %x, %u, %i, %j : (...) -> T`: %x with %u written at
    the (clamped) start indices."""

    name = "stablehlo.dynamic_update_slice"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    update = operand_def(TensorType)
    start_indices = var_operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = _parse_operands(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, operands, ins, pos), outs, {}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        _print_attrs(printer, self)
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        ot, ut = self.operand.type, self.update.type
        _check_scalar_indices(self.start_indices, len(_shape(ot)))
        if _element(ot) != _element(ut):
            raise VerifyException(f"update has element type {_element(ut)}, operand has {_element(ot)}")
        if len(_shape(ut)) != len(_shape(ot)) or any(
                u >= 0 and o >= 0 and u > o for u, o in zip(_shape(ut), _shape(ot))):
            raise VerifyException(f"update of shape {_shape_str(_shape(ut))} does not fit in "
                                  f"operand of shape {_shape_str(_shape(ot))}")
        _check_same_types(self, [ot, self.result.type])


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """`stablehlo.concatenate %a, %b, dim = 1 : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x16xf32>`."""

    name = "stablehlo.concatenate"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    inputs = var_operand_def(TensorType)
    dimension = prop_def(IntegerAttr)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            if parser.parse_optional_keyword("dim"):
                break
            operands.append(parser.parse_unresolved_operand())
        else:
            parser.raise_error("expected 'dim = N'")
        parser.parse_punctuation("=")
        dim = parser.parse_integer()
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, operands, ins, pos), outs, {"dimension": IntegerAttr(dim, i64)}, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        printer.print_string(f", dim = {self.dimension.value.data}")
        _print_attrs(printer, self, ("dimension",))
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("needs at least one operand")
        shapes = [_shape(v.type) for v in self.inputs]
        rank = len(shapes[0])
        d = self.dimension.value.data
        if not 0 <= d < rank:
            raise VerifyException(f"dimension {d} is out of range [0, {rank})")
        et = _element(self.inputs[0].type)
        for i, (v, s) in enumerate(zip(self.inputs, shapes)):
            if _element(v.type) != et or len(s) != rank or any(
                    k != d and not _dims_agree(a, b) for k, (a, b) in enumerate(zip(s, shapes[0]))):
                raise VerifyException(f"operand {i} of type {v.type} does not match operand 0 of type "
                                      f"{self.inputs[0].type} outside dimension {d}")
        out = list(shapes[0])
        out[d] = -1 if any(s[d] < 0 for s in shapes) else sum(s[d] for s in shapes)
        _check_result_shape(self, out)


@irdl_op_definition
class PadOp(IRDLOperation):
    """`stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : (T, tensor<f32>) -> R`
    (negative low/high crop)."""

    name = "stablehlo.pad"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    padding_value = operand_def(TensorType)
    edge_padding_low = prop_def(DenseArrayBase.constr(i64))
    edge_padding_high = prop_def(DenseArrayBase.constr(i64))
    interior_padding = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType)

    _KEYS: ClassVar[tuple[tuple[str, str], ...]] = (("low", "edge_padding_low"), ("high", "edge_padding_high"), ("interior", "interior_padding"))

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        props = {}
        for key, prop in cls._KEYS:
            parser.parse_punctuation(",")
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            props[prop] = _i64_array(_parse_int_list(parser))
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, [operand, value], ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        for key, prop in self._KEYS:
            printer.print_string(f", {key} = {_list_str(ints(self.properties[prop]))}")
        _print_attrs(printer, self, [p for _, p in self._KEYS])
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        shape = _shape(self.operand.type)
        low, high, interior = ints(self.edge_padding_low), ints(self.edge_padding_high), ints(self.interior_padding)
        if not len(low) == len(high) == len(interior) == len(shape):
            raise VerifyException(f"needs one low, high and interior padding per operand dim (rank {len(shape)})")
        if _shape(self.padding_value.type) != ():
            raise VerifyException(f"padding value must be a 0-d tensor, got {self.padding_value.type}")
        if _element(self.padding_value.type) != _element(self.operand.type):
            raise VerifyException("padding value and operand have different element types")
        out = []
        for d, (n, lo, hi, it) in enumerate(zip(shape, low, high, interior)):
            if it < 0:
                raise VerifyException(f"interior padding {it} of dim {d} must be non-negative")
            size = -1 if n < 0 else n + lo + hi + max(n - 1, 0) * it
            if n >= 0 and size < 0:
                raise VerifyException(f"padding of dim {d} makes its size negative ({size})")
            out.append(size)
        _check_result_shape(self, out)


# --------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------


def _parse_precision(parser: Parser) -> ArrayAttr:
    return ArrayAttr(parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: PrecisionAttr(parser.parse_str_enum(Precision))))


def _precision_str(attr: ArrayAttr) -> str:
    return "[" + ", ".join(p.data.value for p in attr.data) + "]"


def _check_precision(op: Operation, attr: ArrayAttr | None) -> None:
    if attr is not None and len(attr.data) not in (0, 2):
        raise VerifyException(f"precision config needs 0 or 2 values, got {len(attr.data)}")


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """`stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
    precision = [DEFAULT, DEFAULT] : (A, B) -> R`: result = batch dims, lhs free dims, rhs free dims."""

    name = "stablehlo.dot_general"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        dims: dict[str, list[int]] = {}
        props: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(","):
            key_pos = parser.pos
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key in ("batching_dims", "contracting_dims"):
                which = "batching" if key == "batching_dims" else "contracting"
                dims[f"lhs_{which}_dimensions"] = _parse_int_list(parser)
                parser.parse_keyword("x")
                dims[f"rhs_{which}_dimensions"] = _parse_int_list(parser)
            elif key == "precision":
                props["precision_config"] = _parse_precision(parser)
            else:
                parser.raise_error(f"unexpected '{key}', expected batching_dims, contracting_dims or precision",
                                   key_pos, parser.pos)
        props["dot_dimension_numbers"] = DotDimensionNumbersAttr.get(**dims)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, [lhs, rhs], ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        dn = self.dot_dimension_numbers
        if dn.value("lhs_batching_dimensions") or dn.value("rhs_batching_dimensions"):
            printer.print_string(f", batching_dims = {_list_str(dn.value('lhs_batching_dimensions'))} x "
                                 f"{_list_str(dn.value('rhs_batching_dimensions'))}")
        printer.print_string(f", contracting_dims = {_list_str(dn.value('lhs_contracting_dimensions'))} x "
                             f"{_list_str(dn.value('rhs_contracting_dimensions'))}")
        if self.precision_config is not None and self.precision_config.data:
            printer.print_string(f", precision = {_precision_str(self.precision_config)}")
        shown = ["dot_dimension_numbers"]
        if self.precision_config is not None and self.precision_config.data:
            shown.append("precision_config")
        _print_attrs(printer, self, shown)
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        lt, rt = self.lhs.type, self.rhs.type
        ls, rs = _shape(lt), _shape(rt)
        dn = self.dot_dimension_numbers
        lb, rb = dn.value("lhs_batching_dimensions"), dn.value("rhs_batching_dimensions")
        lc, rc = dn.value("lhs_contracting_dimensions"), dn.value("rhs_contracting_dimensions")
        if len(lb) != len(rb):
            raise VerifyException(f"batching dims differ in number: {_list_str(lb)} x {_list_str(rb)}")
        if len(lc) != len(rc):
            raise VerifyException(f"contracting dims differ in number: {_list_str(lc)} x {_list_str(rc)}")
        _check_dims(lb + lc, len(ls), "lhs batching/contracting dimension")
        _check_dims(rb + rc, len(rs), "rhs batching/contracting dimension")
        for kind, l_dims, r_dims in (("batching", lb, rb), ("contracting", lc, rc)):
            for a, b in zip(l_dims, r_dims):
                if not _dims_agree(ls[a], rs[b]):
                    raise VerifyException(f"{kind} dimensions differ in size: lhs dim {a} is {ls[a]}, "
                                          f"rhs dim {b} is {rs[b]}")
        if _element(lt) != _element(rt):
            raise VerifyException(f"operands have different element types: {lt} vs {rt}")
        _check_precision(self, self.precision_config)
        lfree = [ls[d] for d in range(len(ls)) if d not in lb + lc]
        rfree = [rs[d] for d in range(len(rs)) if d not in rb + rc]
        _check_result_shape(self, [ls[d] for d in lb] + lfree + rfree)


@irdl_op_definition
class DotOp(IRDLOperation):
    """`stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>`: vector/matrix products."""

    name = "stablehlo.dot"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        props = {}
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("precision")
            parser.parse_punctuation("=")
            props["precision_config"] = _parse_precision(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, [lhs, rhs], ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        shown = []
        if self.precision_config is not None and self.precision_config.data:
            printer.print_string(f", precision = {_precision_str(self.precision_config)}")
            shown.append("precision_config")
        _print_attrs(printer, self, shown)
        printer.print_string(" : ")
        _print_functional(printer, self)

    def verify_(self) -> None:
        ls, rs = _shape(self.lhs.type), _shape(self.rhs.type)
        if len(ls) not in (1, 2) or len(rs) not in (1, 2):
            raise VerifyException(f"operands must be vectors or matrices, got ranks {len(ls)} and {len(rs)}")
        if not _dims_agree(ls[-1], rs[0]):
            raise VerifyException(f"contracting dimensions differ: {ls[-1]} vs {rs[0]}")
        _check_precision(self, self.precision_config)
        _check_result_shape(self, list(ls[:-1]) + list(rs[1:]))


_WINDOW_KEYS = {"stride": "window_strides", "pad": "padding", "lhs_dilate": "lhs_dilation",
                "rhs_dilate": "rhs_dilation", "reverse": "window_reversal"}


@irdl_op_definition
class ConvolutionOp(IRDLOperation):
    """`stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (X, W) -> Y`."""

    name = "stablehlo.convolution"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    window_strides = opt_prop_def(DenseArrayBase.constr(i64))
    padding = opt_prop_def(DenseIntOrFPElementsAttr)
    lhs_dilation = opt_prop_def(DenseArrayBase.constr(i64))
    rhs_dilation = opt_prop_def(DenseArrayBase.constr(i64))
    window_reversal = opt_prop_def(DenseArrayBase)
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count = prop_def(IntegerAttr)
    batch_group_count = prop_def(IntegerAttr)
    precision_config = opt_prop_def(ArrayAttr)
    result = result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("(")
        pos = parser.pos
        operands = _parse_operands(parser)
        parser.parse_punctuation(")")
        parser.parse_keyword("dim_numbers")
        parser.parse_punctuation("=")
        props: dict[str, Attribute] = {"dimension_numbers": parse_conv_dimension_numbers(parser)}
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("window")
            parser.parse_punctuation("=")

            def entry() -> None:
                key_pos = parser.pos
                key = parser.parse_identifier()
                if key not in _WINDOW_KEYS:
                    parser.raise_error(f"unexpected window entry '{key}', expected one of "
                                       + ", ".join(_WINDOW_KEYS), key_pos, parser.pos)
                parser.parse_punctuation("=")
                if key == "pad":
                    pairs = parser.parse_comma_separated_list(
                        parser.Delimiter.SQUARE, lambda: tuple(_parse_int_list(parser)))
                    if any(len(p) != 2 for p in pairs):
                        parser.raise_error("pad entries must be [low, high] pairs", key_pos, parser.pos)
                    props["padding"] = padding_attr(pairs)
                elif key == "reverse":
                    flags = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                              lambda: _parse_bool_or_int(parser))
                    props["window_reversal"] = DenseArrayBase.from_list(i1, flags)
                else:
                    props[_WINDOW_KEYS[key]] = _i64_array(_parse_int_list(parser))

            parser.parse_comma_separated_list(parser.Delimiter.BRACES, entry)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        return _build(cls, _resolve(parser, operands, ins, pos), outs, props, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        _print_operands(printer, self.operands)
        printer.print_string(f") dim_numbers = {conv_dimension_numbers_str(self.dimension_numbers)}")
        entries = []
        for key, prop in _WINDOW_KEYS.items():
            attr = self.properties.get(prop)
            if attr is None:
                continue
            if key == "pad":
                entries.append("pad = [" + ", ".join(f"[{lo}, {hi}]" for lo, hi in
                                                     padding_pairs(attr, 0)) + "]")
            elif key == "reverse":
                entries.append("reverse = [" + ", ".join("true" if v else "false" for v in ints(attr)) + "]")
            else:
                entries.append(f"{key} = {_list_str(ints(attr))}")
        if entries:
            printer.print_string(", window = {" + ", ".join(entries) + "}")
        _print_attrs(printer, self, ["dimension_numbers", *_WINDOW_KEYS.values()])
        printer.print_string(" : ")
        _print_functional(printer, self)

    def spatial_rank(self) -> int:
        return len(self.dimension_numbers.layout("input")[2])

    def window(self) -> dict[str, list]:
        """stride, pad, lhs_dilate, rhs_dilate, reverse per spatial dim, defaults filled."""
        n = self.spatial_rank()
        return {
            "stride": list(ints(self.window_strides)) or [1] * n,
            "pad": padding_pairs(self.padding, n),
            "lhs_dilate": list(ints(self.lhs_dilation)) or [1] * n,
            "rhs_dilate": list(ints(self.rhs_dilation)) or [1] * n,
            "reverse": [bool(v) for v in ints(self.window_reversal)] or [False] * n,
        }

    def verify_(self) -> None:
        dn = self.dimension_numbers
        xs, ws = _shape(self.lhs.type), _shape(self.rhs.type)
        n = self.spatial_rank()
        for which, shape in (("input", xs), ("kernel", ws), ("output", _shape(self.result.type))):
            a, b, spatial = dn.layout(which)
            if len(spatial) != n:
                raise VerifyException(f"the {which} layout has {len(spatial)} spatial dims, the input {n}")
            if len(shape) != n + 2:
                raise VerifyException(f"{which} must have rank {n + 2}, got {len(shape)}")
            _check_dims([a, b, *spatial], n + 2, f"{which} layout dimension")
        win = self.window()
        for key, values in win.items():
            if len(values) != n:
                raise VerifyException(f"window {key} needs {n} values, got {len(values)}")
        for key in ("stride", "lhs_dilate", "rhs_dilate"):
            if any(v <= 0 for v in win[key]):
                raise VerifyException(f"window {key} must be positive, got {_list_str(win[key])}")
        fg, bg = self.feature_group_count.value.data, self.batch_group_count.value.data
        if fg <= 0 or bg <= 0:
            raise VerifyException(f"group counts must be positive, got feature_group_count = {fg}, "
                                  f"batch_group_count = {bg}")
        if fg > 1 and bg > 1:
            raise VerifyException("feature_group_count and batch_group_count cannot both exceed 1")
        _check_precision(self, self.precision_config)
        ib, if_, isp = dn.layout("input")
        ki, ko, ksp = dn.layout("kernel")
        ob, of, osp = dn.layout("output")
        if not _dims_agree(xs[if_], ws[ki] * fg if ws[ki] >= 0 else -1):
            raise VerifyException(f"input feature dimension ({xs[if_]}) must be kernel input feature "
                                  f"dimension ({ws[ki]}) x feature_group_count ({fg})")
        if ws[ko] >= 0 and (ws[ko] % fg or ws[ko] % bg):
            raise VerifyException(f"kernel output feature dimension ({ws[ko]}) must be divisible by the group counts")
        if xs[ib] >= 0 and xs[ib] % bg:
            raise VerifyException(f"input batch dimension ({xs[ib]}) must be divisible by batch_group_count ({bg})")
        out = [0] * (n + 2)
        out[ob] = xs[ib] // bg if xs[ib] >= 0 else -1
        out[of] = ws[ko]
        for i in range(n):
            size, k = xs[isp[i]], ws[ksp[i]]
            if size < 0 or k < 0:
                out[osp[i]] = -1
                continue
            lo, hi = win["pad"][i]
            dilated = (size - 1) * win["lhs_dilate"][i] + 1 if size else 0
            span = (k - 1) * win["rhs_dilate"][i] + 1 if k else 0
            padded = dilated + lo + hi
            out[osp[i]] = max(0, (padded - span) // win["stride"][i] + 1) if padded >= span else 0
        _check_result_shape(self, out)


# --------------------------------------------------------------------------
# Region ops
# --------------------------------------------------------------------------


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`stablehlo.return %a, %b : T1, T2`: ends the regions of reduce, while, case ..."""

    name = "stablehlo.return"
    results_ = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$results_ attr-dict (`:` type($results_)^)?"


def _region_arg_types(op: Operation, region: Region) -> list[Attribute]:
    block = region.blocks.first
    return [] if block is None else [a.type for a in block.args]


def _yielded_types(region: Region) -> list[Attribute]:
    block = region.blocks.first
    if block is None or block.last_op is None:
        return []
    return [v.type for v in block.last_op.operands]


def _check_single_block(region: Region, what: str) -> None:
    if len(region.blocks) != 1:
        raise VerifyException(f"{what} must have one block, got {len(region.blocks)}")
    term = region.blocks.first.last_op
    if not isinstance(term, ReturnOp):
        raise VerifyException(f"{what} must end with stablehlo.return")


def _check_reducer(region: Region, element_types: Sequence[Attribute], what: str) -> None:
    """A reduction body: (acc_0..acc_n-1, x_0..x_n-1) of 0-d tensors -> n 0-d tensors."""
    _check_single_block(region, what)
    n = len(element_types)
    expected = [TensorType(et, ()) for et in element_types]
    args = _region_arg_types(None, region)
    if args != expected * 2:
        raise VerifyException(f"{what} must take {2 * n} arguments of types "
                              f"{', '.join(str(t) for t in expected * 2)}, got "
                              f"({', '.join(str(t) for t in args)})")
    yielded = _yielded_types(region)
    if yielded != expected:
        raise VerifyException(f"{what} must return {', '.join(str(t) for t in expected)}, got "
                              f"({', '.join(str(t) for t in yielded)})")


def _check_reduction(op, out_shape: Sequence[int], what: str) -> None:
    """reduce and reduce_window: inputs of one shape, 0-d inits of their element
    types, results of ``out_shape``, and a body reducing (inits..., inputs...)."""
    n = len(op.inputs)
    if n == 0 or n != len(op.init_values) or n != len(op.outs):
        raise VerifyException(f"needs as many inputs, init values and results, got {n}, "
                              f"{len(op.init_values)}, {len(op.outs)}")
    shape = _shape(op.inputs[0].type)
    ets = []
    for i, (x, c, r) in enumerate(zip(op.inputs, op.init_values, op.outs)):
        et = _element(x.type)
        if not _shapes_agree(_shape(x.type), shape):
            raise VerifyException(f"input {i} of type {x.type} differs in shape from input 0 ({op.inputs[0].type})")
        if c.type != TensorType(et, ()):
            raise VerifyException(f"init value {i} must be tensor<{et}>, got {c.type}")
        if _element(r.type) != et or not _shapes_agree(_shape(r.type), out_shape):
            raise VerifyException(f"result {i} must be {TensorType(et, out_shape)}, got {r.type}")
        ets.append(et)
    _check_reducer(op.body, ets, what)


# the ops that the compact `applies <op>` form of reduce may name
_REDUCE_APPLIES: dict[str, type[Operation]] = {}


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`%s = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (...) -> ...`,
    or with a body: `stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [1] : (...) -> (...)
    reducer(%a: T, %b: T) (%c: U, %d: U) { ... }`."""

    name = "stablehlo.reduce"
    irdl_options = (SameVariadicOperandSize(), ParsePropInAttrDict())
    traits = traits_def(RecursiveMemoryEffect())

    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    dimensions = prop_def(DenseArrayBase.constr(i64))
    body = region_def()
    outs = var_result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        pairs: list[tuple[UnresolvedOperand, UnresolvedOperand]] = []

        def pair() -> None:
            x = parser.parse_unresolved_operand()
            parser.parse_keyword("init")
            parser.parse_punctuation(":")
            pairs.append((x, parser.parse_unresolved_operand()))

        while True:
            parser.parse_punctuation("(")
            pair()
            parser.parse_punctuation(")")
            if not parser.parse_optional_punctuation(","):
                break
        applies = None
        if parser.parse_optional_keyword("applies"):
            apos = parser.pos
            applies = parser.parse_identifier()
            if applies not in _REDUCE_APPLIES:
                parser.raise_error(f"'{applies}' cannot be applied by reduce, expected one of "
                                   + ", ".join(sorted(_REDUCE_APPLIES)), apos, parser.pos)
        parser.parse_keyword("across")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dims = _parse_int_list(parser)
        attrs = _parse_attrs(parser)
        ins, outs = _parse_functional(parser)
        operands = [x for x, _ in pairs] + [c for _, c in pairs]
        values = _resolve(parser, operands, ins, pos)
        n = len(pairs)
        if applies is not None:
            et = TensorType(_element(ins[0]), ())
            block = Block(arg_types=[et, et])
            inner = _REDUCE_APPLIES[applies].create(operands=list(block.args), result_types=[et])
            block.add_ops([inner, ReturnOp.create(operands=[inner.results[0]])])
            region = Region(block)
        else:
            parser.parse_keyword("reducer")
            lhs_args, rhs_args = [], []
            for _ in range(n):
                parser.parse_punctuation("(")
                lhs_args.append(parser.parse_argument())
                parser.parse_punctuation(",")
                rhs_args.append(parser.parse_argument())
                parser.parse_punctuation(")")
            region = parser.parse_region(lhs_args + rhs_args)
        op = _build(cls, values, outs, {"dimensions": _i64_array(dims)}, attrs, [region])
        return op

    def _applied_op(self) -> Operation | None:
        """The single binary op of a body that the compact form can show."""
        block = self.body.blocks.first
        if len(self.inputs) != 1 or block is None or len(block.args) != 2:
            return None
        ops = list(block.ops)
        if len(ops) != 2 or not isinstance(ops[1], ReturnOp):
            return None
        inner = ops[0]
        et = TensorType(_element(self.inputs[0].type), ())
        if (inner.name not in _REDUCE_APPLIES or type(inner) is not _REDUCE_APPLIES[inner.name]
                or list(inner.operands) != list(block.args) or inner.attributes or inner.properties
                or list(ops[1].operands) != [inner.results[0]]
                or any(a.type != et for a in block.args) or inner.results[0].type != et):
            return None
        return inner

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for i, (x, c) in enumerate(zip(self.inputs, self.init_values)):
            if i:
                printer.print_string(", (")
            printer.print_ssa_value(x)
            printer.print_string(" init: ")
            printer.print_ssa_value(c)
            printer.print_string(")")
        applied = self._applied_op()
        if applied is not None:
            printer.print_string(f" applies {applied.name}")
        printer.print_string(f" across dimensions = {_list_str(ints(self.dimensions))}")
        _print_attrs(printer, self, ("dimensions",))
        printer.print_string(" : ")
        _print_functional(printer, self)
        if applied is not None:
            return
        args = self.body.blocks.first.args
        n = len(self.inputs)
        printer._print_new_line()  # noqa: SLF001
        printer.print_string(" reducer")
        for i in range(n):
            printer.print_string("(")
            printer.print_block_argument(args[i])
            printer.print_string(", ")
            printer.print_block_argument(args[i + n])
            printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        shape = _shape(self.inputs[0].type) if self.inputs else ()
        dims = ints(self.dimensions)
        _check_dims(dims, len(shape), "dimension")
        _check_reduction(self, [d for i, d in enumerate(shape) if i not in dims], "reducer body")


def _window_props(op: Operation, rank: int, keys: Sequence[str]) -> dict[str, list]:
    values = {}
    defaults = {"window_dimensions": 1, "window_strides": 1, "base_dilations": 1, "window_dilations": 1}
    for key in keys:
        attr = op.properties.get(key)
        values[key] = list(ints(attr)) if attr is not None else [defaults[key]] * rank
        if len(values[key]) != rank:
            raise VerifyException(f"{key} needs {rank} values (one per operand dim), got {len(values[key])}")
        if any(v <= 0 for v in values[key]):
            raise VerifyException(f"{key} must be positive, got {_list_str(values[key])}")
    pad = padding_pairs(op.properties.get("padding"), rank)
    if len(pad) != rank:
        raise VerifyException(f"padding needs {rank} [low, high] pairs, got {len(pad)}")
    values["padding"] = pad
    return values


def reduce_window_shape(shape: Sequence[int], w: Mapping[str, list]) -> list[int]:
    return [windowed_size(n, w["window_dimensions"][i], w["window_strides"][i], *w["padding"][i],
                          w["base_dilations"][i], w["window_dilations"][i])
            for i, n in enumerate(shape)]


@irdl_op_definition
class ReduceWindowOp(IRDLOperation):
    """`"stablehlo.reduce_window"(%x, %init) <{window_dimensions = array<i64: ...>, ...}> ({body})`:
    pooling; the window slides over the (base-dilated, padded) operand."""

    name = "stablehlo.reduce_window"
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    window_dimensions = prop_def(DenseArrayBase.constr(i64))
    window_strides = opt_prop_def(DenseArrayBase.constr(i64))
    base_dilations = opt_prop_def(DenseArrayBase.constr(i64))
    window_dilations = opt_prop_def(DenseArrayBase.constr(i64))
    padding = opt_prop_def(DenseIntOrFPElementsAttr)
    body = region_def()
    outs = var_result_def(TensorType)

    KEYS: ClassVar[tuple[str, ...]] = ("window_dimensions", "window_strides", "base_dilations", "window_dilations")

    def window(self) -> dict[str, list]:
        return _window_props(self, len(_shape(self.inputs[0].type)), self.KEYS)

    def verify_(self) -> None:
        shape = _shape(self.inputs[0].type) if self.inputs else ()
        _check_reduction(self, reduce_window_shape(shape, self.window()), "reduce_window body")


@irdl_op_definition
class SelectAndScatterOp(IRDLOperation):
    """`"stablehlo.select_and_scatter"(%operand, %source, %init) <{window_dimensions = ...}> ({select}, {scatter})`:
    each window's selected element (by `select`) receives the source value, combined by `scatter`
    (the gradient of max-pooling)."""

    name = "stablehlo.select_and_scatter"
    traits = traits_def(RecursiveMemoryEffect())

    operand = operand_def(TensorType)
    source = operand_def(TensorType)
    init_value = operand_def(TensorType)
    window_dimensions = opt_prop_def(DenseArrayBase.constr(i64))
    window_strides = opt_prop_def(DenseArrayBase.constr(i64))
    padding = opt_prop_def(DenseIntOrFPElementsAttr)
    select = region_def()
    scatter = region_def()
    result = result_def(TensorType)

    def window(self) -> dict[str, list]:
        w = _window_props(self, len(_shape(self.operand.type)), ("window_dimensions", "window_strides"))
        w["base_dilations"] = w["window_dilations"] = [1] * len(w["padding"])
        return w

    def verify_(self) -> None:
        ot, st = self.operand.type, self.source.type
        et = _element(ot)
        out = reduce_window_shape(_shape(ot), self.window())
        if not _shapes_agree(_shape(st), out):
            raise VerifyException(f"source shape {_shape_str(_shape(st))} does not match the window "
                                  f"count {_shape_str(out)}")
        if self.init_value.type != TensorType(et, ()):
            raise VerifyException(f"init value must be tensor<{et}>, got {self.init_value.type}")
        _check_same_types(self, [ot, self.result.type])
        _check_single_block(self.select, "select region")
        scalar = TensorType(et, ())
        if _region_arg_types(self, self.select) != [scalar, scalar] or \
                _yielded_types(self.select) != [TensorType(i1, ())]:
            raise VerifyException(f"select region must map ({scalar}, {scalar}) to tensor<i1>")
        _check_reducer(self.scatter, [et], "scatter region")


def _check_sorted_unique(values: Sequence[int], what: str) -> None:
    if list(values) != sorted(set(values)):
        raise VerifyException(f"{what} must be sorted and unique, got {_list_str(values)}")


def _index_batch_shape(indices_shape: Sequence[int], index_vector_dim: int) -> list[int]:
    return [d for i, d in enumerate(indices_shape) if i != index_vector_dim]


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`"stablehlo.gather"(%operand, %indices) <{dimension_numbers = #stablehlo.gather<...>,
    slice_sizes = array<i64: ...>, indices_are_sorted = false}>`: slices of %operand at the
    (clamped) start indices (what `x[idx]` and `take_along_axis` produce)."""

    name = "stablehlo.gather"
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    start_indices = operand_def(TensorType)
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes = prop_def(DenseArrayBase.constr(i64))
    indices_are_sorted = opt_prop_def(BoolAttr)
    result = result_def(TensorType)

    def verify_(self) -> None:
        os_, is_ = _shape(self.operand.type), _shape(self.start_indices.type)
        dn = self.dimension_numbers
        offset, collapsed = dn.value("offset_dims"), dn.value("collapsed_slice_dims")
        obatch, ibatch = dn.value("operand_batching_dims"), dn.value("start_indices_batching_dims")
        index_map, ivd = dn.value("start_index_map"), dn.value("index_vector_dim")
        sizes = ints(self.slice_sizes)
        if not _is_int(_element(self.start_indices.type)):
            raise VerifyException(f"start indices must be integers, got {self.start_indices.type}")
        if not 0 <= ivd <= len(is_):
            raise VerifyException(f"index_vector_dim {ivd} is out of range [0, {len(is_)}]")
        index_len = is_[ivd] if ivd < len(is_) else 1
        if index_len >= 0 and len(index_map) != index_len:
            raise VerifyException(f"start_index_map has {len(index_map)} entries, the index vector "
                                  f"has {index_len}")
        if len(sizes) != len(os_):
            raise VerifyException(f"slice_sizes needs {len(os_)} entries (the operand rank), got {len(sizes)}")
        _check_sorted_unique(offset, "offset_dims")
        _check_sorted_unique(collapsed, "collapsed_slice_dims")
        _check_sorted_unique(obatch, "operand_batching_dims")
        _check_dims(collapsed + obatch, len(os_), "collapsed/operand batching dimension")
        _check_dims(index_map, len(os_), "start_index_map entry")
        if len(ibatch) != len(obatch):
            raise VerifyException("operand_batching_dims and start_indices_batching_dims differ in length")
        _check_dims(list(ibatch) + ([ivd] if ivd < len(is_) else []), len(is_),
                    "start_indices batching dimension")
        for d, s in enumerate(sizes):
            if s < 0 or (os_[d] >= 0 and s > os_[d]):
                raise VerifyException(f"slice size {s} of dim {d} is out of range [0, {os_[d]}]")
        for d in collapsed + obatch:
            if sizes[d] > 1:
                raise VerifyException(f"slice size of collapsed or batching dim {d} must be 0 or 1, got {sizes[d]}")
        batch = _index_batch_shape(is_, ivd)
        window = [s for d, s in enumerate(sizes) if d not in collapsed + obatch]
        rank = len(batch) + len(offset)
        _check_dims(offset, rank, "offset dimension")
        if len(offset) != len(window):
            raise VerifyException(f"offset_dims has {len(offset)} entries for {len(window)} slice dims kept")
        out, bi, wi = [], iter(batch), iter(window)
        for d in range(rank):
            out.append(next(wi) if d in offset else next(bi))
        _check_result_shape(self, out)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`"stablehlo.scatter"(%operand, %indices, %updates) <{scatter_dimension_numbers = ...}> ({combiner})`:
    %operand with each update combined into it at its index (`x.at[idx].add(u)`)."""

    name = "stablehlo.scatter"
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    inputs = var_operand_def(TensorType)
    scatter_indices = operand_def(TensorType)
    updates = var_operand_def(TensorType)
    scatter_dimension_numbers = prop_def(ScatterDimensionNumbersAttr)
    indices_are_sorted = opt_prop_def(BoolAttr)
    unique_indices = opt_prop_def(BoolAttr)
    update_computation = region_def()
    outs = var_result_def(TensorType)

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0 or len(self.updates) != n or len(self.outs) != n:
            raise VerifyException(f"needs as many inputs, updates and results, got {n}, "
                                  f"{len(self.updates)}, {len(self.outs)}")
        os_, is_ = _shape(self.inputs[0].type), _shape(self.scatter_indices.type)
        us = _shape(self.updates[0].type)
        dn = self.scatter_dimension_numbers
        window, inserted = dn.value("update_window_dims"), dn.value("inserted_window_dims")
        ibatch, sbatch = dn.value("input_batching_dims"), dn.value("scatter_indices_batching_dims")
        to_operand, ivd = dn.value("scatter_dims_to_operand_dims"), dn.value("index_vector_dim")
        if not _is_int(_element(self.scatter_indices.type)):
            raise VerifyException(f"scatter indices must be integers, got {self.scatter_indices.type}")
        if not 0 <= ivd <= len(is_):
            raise VerifyException(f"index_vector_dim {ivd} is out of range [0, {len(is_)}]")
        index_len = is_[ivd] if ivd < len(is_) else 1
        if index_len >= 0 and len(to_operand) != index_len:
            raise VerifyException(f"scatter_dims_to_operand_dims has {len(to_operand)} entries, the index "
                                  f"vector has {index_len}")
        _check_sorted_unique(window, "update_window_dims")
        _check_sorted_unique(inserted, "inserted_window_dims")
        _check_sorted_unique(ibatch, "input_batching_dims")
        _check_dims(inserted + ibatch, len(os_), "inserted/input batching dimension")
        _check_dims(to_operand, len(os_), "scatter_dims_to_operand_dims entry")
        if len(ibatch) != len(sbatch):
            raise VerifyException("input_batching_dims and scatter_indices_batching_dims differ in length")
        if len(window) + len(inserted) + len(ibatch) != len(os_):
            raise VerifyException(f"update_window_dims ({len(window)}) + inserted_window_dims ({len(inserted)}) "
                                  f"+ input_batching_dims ({len(ibatch)}) must equal the operand rank {len(os_)}")
        batch = _index_batch_shape(is_, ivd)
        if len(us) != len(batch) + len(window):
            raise VerifyException(f"updates must have rank {len(batch) + len(window)}, got {len(us)}")
        _check_dims(window, len(us), "update window dimension")
        scatter_dims = [d for d in range(len(us)) if d not in window]
        for d, b in zip(scatter_dims, batch):
            if not _dims_agree(us[d], b):
                raise VerifyException(f"updates dim {d} ({us[d]}) must match the index batch dim ({b})")
        kept = [d for d in range(len(os_)) if d not in inserted + ibatch]
        for d, od in zip(window, kept):
            if us[d] >= 0 and os_[od] >= 0 and us[d] > os_[od]:
                raise VerifyException(f"update window dim {d} ({us[d]}) exceeds operand dim {od} ({os_[od]})")
        ets = []
        for i, (x, u, r) in enumerate(zip(self.inputs, self.updates, self.outs)):
            if x.type != r.type and not (_element(x.type) == _element(r.type)
                                          and _shapes_agree(_shape(x.type), _shape(r.type))):
                raise VerifyException(f"result {i} of type {r.type} must have the type of input {i} ({x.type})")
            if _element(u.type) != _element(x.type):
                raise VerifyException(f"update {i} has element type {_element(u.type)}, input {i} has "
                                      f"{_element(x.type)}")
            ets.append(_element(x.type))
        _check_reducer(self.update_computation, ets, "update computation")


@irdl_op_definition
class SortOp(IRDLOperation):
    """`"stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({comparator})`:
    sorts all operands along one dim by the comparator on the first (or several) of them."""

    name = "stablehlo.sort"
    traits = traits_def(RecursiveMemoryEffect())

    inputs = var_operand_def(TensorType)
    dimension = opt_prop_def(IntegerAttr)
    is_stable = opt_prop_def(BoolAttr)
    comparator = region_def()
    outs = var_result_def(TensorType)

    def sort_dimension(self) -> int:
        d = -1 if self.dimension is None else self.dimension.value.data
        return d + len(_shape(self.inputs[0].type)) if d < 0 else d

    def verify_(self) -> None:
        if not self.inputs or len(self.inputs) != len(self.outs):
            raise VerifyException("needs at least one operand and one result per operand")
        shape = _shape(self.inputs[0].type)
        d = self.sort_dimension()
        if not 0 <= d < max(len(shape), 1):
            raise VerifyException(f"dimension {d} is out of range [0, {len(shape)})")
        for i, (x, r) in enumerate(zip(self.inputs, self.outs)):
            if not _shapes_agree(_shape(x.type), shape) or x.type != r.type:
                raise VerifyException(f"operand {i} ({x.type}) and result {i} ({r.type}) must have the shape "
                                      f"of operand 0 and equal types")
        _check_single_block(self.comparator, "comparator")
        expected = [TensorType(_element(x.type), ()) for x in self.inputs for _ in (0, 1)]
        if _region_arg_types(self, self.comparator) != expected or \
                _yielded_types(self.comparator) != [TensorType(i1, ())]:
            raise VerifyException("comparator must take two 0-d tensors per operand and return tensor<i1>")


@irdl_op_definition
class WhileOp(IRDLOperation):
    """`%r:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i32>, tensor<4xf32>
    cond { ... stablehlo.return %p : tensor<i1> } do { ... stablehlo.return %i2, %x2 : ... }`."""

    name = "stablehlo.while"
    traits = traits_def(RecursiveMemoryEffect())

    operand = var_operand_def(TensorType)
    cond = region_def()
    body = region_def()
    outs = var_result_def(TensorType)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        names, operands = [], []

        def binding() -> None:
            names.append(parser.parse_argument(expect_type=False))
            parser.parse_punctuation("=")
            operands.append(parser.parse_unresolved_operand())

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, binding)
        parser.parse_punctuation(":")
        types = [] if not operands else parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        values = _resolve(parser, operands, types, pos)
        attrs = _parse_attrs(parser)
        parser.parse_keyword("cond")
        cond = parser.parse_region([n.resolve(t) for n, t in zip(names, types)])
        parser.parse_keyword("do")
        body = parser.parse_region([n.resolve(t) for n, t in zip(names, types)])
        return cls.create(operands=values, result_types=types, attributes=attrs, regions=[cond, body])

    def print(self, printer: Printer) -> None:
        cond_args = self.cond.blocks.first.args if self.cond.blocks else ()
        body_args = self.body.blocks.first.args if self.body.blocks else ()
        printer.print_string("(")
        for i, (arg, value) in enumerate(zip(cond_args, self.operand)):
            if i:
                printer.print_string(", ")
            printer.print_ssa_value(arg)
            printer.print_string(" = ")
            printer.print_ssa_value(value)
        printer.print_string(") : ")
        printer.print_list([v.type for v in self.operand], printer.print_attribute)
        printer.print_op_attributes(self.attributes)
        # both regions see the loop-carried values under the header's names, as in MLIR
        for a, b in zip(cond_args, body_args):
            printer._ssa_values[b] = printer._ssa_values[a]  # noqa: SLF001
        printer._print_new_line()  # noqa: SLF001
        printer.print_string("cond ")
        printer.print_region(self.cond, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        types = [v.type for v in self.operand]
        if [r.type for r in self.outs] != types:
            raise VerifyException("result types must be the operand types")
        for what, region in (("cond", self.cond), ("body", self.body)):
            _check_single_block(region, f"{what} region")
            got = _region_arg_types(self, region)
            if got != types:
                raise VerifyException(f"{what} region arguments ({', '.join(map(str, got))}) must have the "
                                      f"operand types ({', '.join(map(str, types))})")
        if _yielded_types(self.cond) != [TensorType(i1, ())]:
            raise VerifyException(f"cond region must return tensor<i1>, got "
                                  f"({', '.join(map(str, _yielded_types(self.cond)))})")
        if _yielded_types(self.body) != types:
            raise VerifyException(f"body region must return the operand types, got "
                                  f"({', '.join(map(str, _yielded_types(self.body)))})")


def _check_branches(op: Operation, regions: Sequence[Region]) -> None:
    types = [r.type for r in op.results]
    for i, region in enumerate(regions):
        _check_single_block(region, f"branch {i}")
        if region.blocks.first.args:
            raise VerifyException(f"branch {i} must not take arguments")
        got = _yielded_types(region)
        if got != types:
            raise VerifyException(f"branch {i} returns ({', '.join(map(str, got))}), the op's results are "
                                  f"({', '.join(map(str, types))})")


@irdl_op_definition
class CaseOp(IRDLOperation):
    """`"stablehlo.case"(%index) ({...}, {...}) : (tensor<i32>) -> T`: runs branch %index
    (the last one when out of range)."""

    name = "stablehlo.case"
    traits = traits_def(RecursiveMemoryEffect())

    index = operand_def(TensorType)
    branches = var_region_def()
    outs = var_result_def()

    def verify_(self) -> None:
        if self.index.type != TensorType(IntegerType(32), ()):
            raise VerifyException(f"index must be tensor<i32>, got {self.index.type}")
        if not self.branches:
            raise VerifyException("needs at least one branch")
        _check_branches(self, self.branches)


@irdl_op_definition
class IfOp(IRDLOperation):
    """`"stablehlo.if"(%pred) ({...}, {...}) : (tensor<i1>) -> T`."""

    name = "stablehlo.if"
    traits = traits_def(RecursiveMemoryEffect())

    pred = operand_def(TensorType)
    true_branch = region_def()
    false_branch = region_def()
    outs = var_result_def()

    def verify_(self) -> None:
        if self.pred.type != TensorType(i1, ()):
            raise VerifyException(f"predicate must be tensor<i1>, got {self.pred.type}")
        _check_branches(self, [self.true_branch, self.false_branch])


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """`%r:2 = stablehlo.optimization_barrier %a, %b : T1, T2`: the identity, a fence for
    the optimizer (JAX's rematerialization emits it)."""

    name = "stablehlo.optimization_barrier"
    traits = traits_def(Pure())

    operand = var_operand_def()
    outs = var_result_def()

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        operands = []
        if parser._current_token.text.startswith("%"):  # noqa: SLF001
            operands = _parse_operands(parser)
        attrs = _parse_attrs(parser)
        types = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.create(operands=_resolve(parser, operands, types, pos), result_types=types, attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.operand:
            printer.print_string(" ")
            _print_operands(printer, self.operand)
        printer.print_op_attributes(self.attributes)
        if self.operand:
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.operand], printer.print_attribute)

    def verify_(self) -> None:
        if [v.type for v in self.operand] != [r.type for r in self.outs]:
            raise VerifyException("result types must be the operand types")


for _cls in (AddOp, MultiplyOp, MaximumOp, MinimumOp, AndOp, OrOp, XorOp):
    _REDUCE_APPLIES[_cls.name] = _cls


StableHLO = Dialect(
    "stablehlo",
    [
        AbsOp, CbrtOp, CeilOp, CosineOp, ExponentialOp, ExponentialMinusOneOp, FloorOp, LogOp,
        LogPlusOneOp, LogisticOp, NegateOp, NotOp, RoundNearestAfzOp, RoundNearestEvenOp, RsqrtOp,
        SignOp, SineOp, SqrtOp, TanOp, TanhOp,
        AddOp, SubtractOp, MultiplyOp, DivideOp, RemainderOp, MaximumOp, MinimumOp, PowerOp, Atan2Op,
        AndOp, OrOp, XorOp, ShiftLeftOp, ShiftRightArithmeticOp, ShiftRightLogicalOp,
        ClampOp, ConvertOp, BitcastConvertOp, IsFiniteOp, SelectOp, CompareOp,
        ConstantOp, IotaOp, BroadcastInDimOp, TransposeOp, ReverseOp, ReshapeOp, SliceOp,
        DynamicSliceOp, DynamicUpdateSliceOp, ConcatenateOp, PadOp,
        DotGeneralOp, DotOp, ConvolutionOp,
        ReturnOp, ReduceOp, ReduceWindowOp, SelectAndScatterOp, GatherOp, ScatterOp, SortOp,
        WhileOp, CaseOp, IfOp, OptimizationBarrierOp,
    ],
    [
        ComparisonDirectionAttr, ComparisonTypeAttr, PrecisionAttr, GatherDimensionNumbersAttr,
        ScatterDimensionNumbersAttr, DotDimensionNumbersAttr, ConvDimensionNumbersAttr,
    ],
)


# --------------------------------------------------------------------------
# chlo: the "client" ops JAX emits next to StableHLO
# --------------------------------------------------------------------------


class _ChloUnaryOp(IRDLOperation):
    """`%r = chlo.<op> %x : tensor<4xf32> -> tensor<4xf32>`."""

    RESULT_BOOL: ClassVar[bool] = False
    traits = traits_def(Pure())

    operand = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def verify_(self) -> None:
        it, rt = self.operand.type, self.result.type
        _check_kind(_element(it), (FLOAT,))
        if self.RESULT_BOOL:
            if _element(rt) != i1:
                raise VerifyException(f"result must have element type i1, got {rt}")
            _check_same_shapes(self, [it, rt])
        else:
            _check_same_types(self, [it, rt])


def _chlo(op_name: str, doc: str, result_bool: bool = False) -> type[_ChloUnaryOp]:
    cls = type(op_name.split(".")[1].title().replace("_", "") + "Op", (_ChloUnaryOp,),
               {"name": op_name, "RESULT_BOOL": result_bool, "__doc__": doc, "__module__": __name__,
                "__annotations__": {"RESULT_BOOL": ClassVar[bool]}})
    return irdl_op_definition(cls)


ChloErfOp = _chlo("chlo.erf", "The error function.")
ChloErfcOp = _chlo("chlo.erfc", "1 - erf(x), accurate for large x.")
ChloErfInvOp = _chlo("chlo.erf_inv", "The inverse error function.")
ChloSquareOp = _chlo("chlo.square", "x * x.")
ChloTanOp = _chlo("chlo.tan", "tan x.")
ChloLgammaOp = _chlo("chlo.lgamma", "log |Gamma(x)|.")
ChloSinhOp = _chlo("chlo.sinh", "Hyperbolic sine.")
ChloCoshOp = _chlo("chlo.cosh", "Hyperbolic cosine.")
ChloAsinOp = _chlo("chlo.asin", "Arc sine.")
ChloAcosOp = _chlo("chlo.acos", "Arc cosine.")
ChloAtanOp = _chlo("chlo.atan", "Arc tangent.")
ChloAsinhOp = _chlo("chlo.asinh", "Inverse hyperbolic sine.")
ChloAcoshOp = _chlo("chlo.acosh", "Inverse hyperbolic cosine.")
ChloAtanhOp = _chlo("chlo.atanh", "Inverse hyperbolic tangent.")
ChloIsInfOp = _chlo("chlo.is_inf", "x is +inf or -inf.", True)
ChloIsPosInfOp = _chlo("chlo.is_pos_inf", "x is +inf.", True)
ChloIsNegInfOp = _chlo("chlo.is_neg_inf", "x is -inf.", True)

CHLO = Dialect(
    "chlo",
    [ChloErfOp, ChloErfcOp, ChloErfInvOp, ChloSquareOp, ChloTanOp, ChloLgammaOp, ChloSinhOp,
     ChloCoshOp, ChloAsinOp, ChloAcosOp, ChloAtanOp, ChloAsinhOp, ChloAcoshOp, ChloAtanhOp,
     ChloIsInfOp, ChloIsPosInfOp, ChloIsNegInfOp],
    [],
)

SDY = Dialect("sdy", [MeshOp], [ShardingAttr, ShardingPerValueAttr, MeshAttr])
