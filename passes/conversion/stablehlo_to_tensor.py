"""convert-stablehlo-to-tensor: StableHLO (with JAX's `chlo` and `sdy` ops) to the
`tensor`, `loop`, `arith` and `func` ops a person would write (SPEC §10).

One table, ``CONVERTERS``, maps each StableHLO op class to a function that emits
its replacement before it and returns the replacing values; one rewrite pattern
applies the table. Each StableHLO op becomes its SPEC §3.1 tensor op (dot_general
tensor.dot, convolution tensor.conv, max-pool's select_and_scatter
tensor.window_max_scatter, ...); an op or attribute value without one is a
located error naming what is unsupported.

Control flow: a `while` whose condition is ``counter < n`` on a carried integer
that starts at a constant and steps by 1 (what `lax.fori_loop` and `lax.scan`
emit) becomes a `loop.for` with a static trip count, so that reverse mode gets a
static-count loop; any other `while` becomes `loop.while`. Values a loop only
passes through (weights) are used from outside instead of being carried. `case`
becomes a chain of `loop.if` (branch k when the index is k, the last branch
otherwise, as StableHLO runs the last branch for an out-of-range index).
"""

from __future__ import annotations

import math as _pymath
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    f32,
    i1,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import loop
from irtoolkit.dialects import stablehlo as sh
from irtoolkit.dialects import tensor
from irtoolkit.dialects.elementwise import ElementKind, element_kind, meaning_of
from irtoolkit.passes.ad.emit import Emitter

Converter = Callable[[Emitter, Operation], Sequence[SSAValue]]

# stablehlo op class -> converter; one entry per op (see ``converts``)
CONVERTERS: dict[type[Operation], Converter] = {}

_DIALECTS = ("stablehlo.", "chlo.", "sdy.")


def converts(*classes: type[Operation]) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for cls in classes:
            CONVERTERS[cls] = fn
        return fn

    return register


# "add" -> tensor.AddOp: the converters name the tensor op of each StableHLO op
TENSOR_OPS: dict[str, type[Operation]] = {cls.name.removeprefix("tensor."): cls for cls in tensor.Tensor.operations}


def _type(v: SSAValue) -> TensorType:
    return v.type  # type: ignore[return-value]


def _element(v: SSAValue | TensorType) -> object:
    t = v if isinstance(v, TensorType) else v.type
    return t.get_element_type()  # type: ignore[union-attr]


def _shape(v: SSAValue | TensorType) -> tuple[int, ...]:
    t = v if isinstance(v, TensorType) else v.type
    return tuple(t.get_shape())  # type: ignore[union-attr]


def _is_bool(v: SSAValue) -> bool:
    return _element(v) == i1


def splat_value(v: SSAValue) -> int | float | None:
    """The value of a splat `stablehlo.constant` or `arith.constant`, else None."""
    owner = v.owner
    if isinstance(owner, sh.ConstantOp | arith.ConstantOp):
        attr = owner.value
        if isinstance(attr, DenseIntOrFPElementsAttr) and attr.is_splat():
            return attr.get_values()[0]
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _build(e: Emitter, op: Operation, cls: type[Operation], *args, **kwargs) -> SSAValue:
    """``cls(*args)``, after checking that ``cls`` declares a meaning for the
    element type of ``op``'s first operand."""
    meaning = meaning_of(cls)
    et = _element(op.operands[0])
    if meaning is not None and element_kind(et) not in meaning.element_kinds():
        raise op_error(op, f"element type {et} is not supported: '{cls.name}' takes "
                           + ", ".join(sorted(k.value for k in meaning.element_kinds())))
    return e.v(cls(*args, **kwargs))


# --------------------------------------------------------------------------
# Elementwise ops
# --------------------------------------------------------------------------

# stablehlo/chlo op -> tensor op names, the first one irtoolkit has is used
UNARY: dict[type[Operation], str] = {
    sh.NegateOp: "neg", sh.ExponentialOp: "exp", sh.LogOp: "log", sh.SqrtOp: "sqrt",
    sh.TanhOp: "tanh", sh.SineOp: "sin", sh.CosineOp: "cos", sh.AbsOp: "abs",
    sh.LogisticOp: "logistic", sh.TanOp: "tan", sh.ChloTanOp: "tan",
    sh.RsqrtOp: "rsqrt", sh.ChloErfOp: "erf", sh.LogPlusOneOp: "log1p",
    sh.ExponentialMinusOneOp: "expm1", sh.SignOp: "sign", sh.FloorOp: "floor",
    sh.CeilOp: "ceil", sh.RoundNearestEvenOp: "round", sh.ChloAtanOp: "atan",
    sh.NotOp: "not",
}
BINARY: dict[type[Operation], str] = {
    sh.AddOp: "add", sh.SubtractOp: "sub", sh.MultiplyOp: "mul", sh.DivideOp: "div",
    sh.MaximumOp: "max", sh.MinimumOp: "min", sh.PowerOp: "pow", sh.Atan2Op: "atan2",
    sh.RemainderOp: "rem", sh.AndOp: "and", sh.OrOp: "or", sh.XorOp: "xor",
}
# on i1, StableHLO's arithmetic is logic (add = or, multiply = and)
BOOL_BINARY: dict[type[Operation], str] = {
    sh.AddOp: "or", sh.MultiplyOp: "and", sh.MaximumOp: "or",
    sh.MinimumOp: "and", sh.AndOp: "and", sh.OrOp: "or",
    sh.XorOp: "xor",
}


@converts(*UNARY)
def _unary(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    cls = TENSOR_OPS[UNARY[type(op)]]
    return [_build(e, op, cls, op.operands[0])]


@converts(*BINARY)
def _binary(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    name = (BOOL_BINARY if _is_bool(op.operands[0]) else BINARY)[type(op)]
    cls = TENSOR_OPS[name]
    return [_build(e, op, cls, op.operands[0], op.operands[1])]


@converts(sh.ChloSquareOp)
def _square(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    x = op.operands[0]
    return [e.v(tensor.MulOp(x, x))]


@converts(sh.ChloErfcOp)
def _erfc(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    # 1 - erf(x): loses relative precision only where erfc(x) < ~1e-16
    erf = TENSOR_OPS["erf"]
    x = op.operands[0]
    return [e.v(tensor.SubOp(e.const(1.0, x), _build(e, op, erf, x)))]


@converts(sh.IsFiniteOp)
def _is_finite(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    x = op.operands[0]
    # ordered: NaN compares false
    return [e.v(tensor.CmpOp("lt", e.v(tensor.AbsOp(x)), e.const(_pymath.inf, x)))]


_DIRECTIONS = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}


@converts(sh.CompareOp)
def _compare(e: Emitter, op: sh.CompareOp) -> Sequence[SSAValue]:
    kind = op.compare_type.data.value if op.compare_type is not None else None
    direction = op.comparison_direction.data.value
    # unsigned and signed equality are the same test
    if kind == "TOTALORDER" or (kind == "UNSIGNED" and direction not in ("EQ", "NE")):
        raise op_error(op, f"compare type {kind} is not supported (with {direction})")
    return [e.v(tensor.CmpOp(_DIRECTIONS[direction], op.lhs, op.rhs))]


def _broadcast_to(e: Emitter, v: SSAValue, t: TensorType) -> SSAValue:
    """A 0-d ``v`` broadcast to ``t``'s shape (``v`` itself when it has it)."""
    if _shape(v) == _shape(t):
        return v
    return e.v(tensor.BroadcastOp(v, [], TensorType(_element(v), _shape(t))))


@converts(sh.SelectOp)
def _select(e: Emitter, op: sh.SelectOp) -> Sequence[SSAValue]:
    pred = _broadcast_to(e, op.pred, _type(op.result))
    return [e.v(tensor.SelectOp(pred, op.on_true, op.on_false))]


@converts(sh.ClampOp)
def _clamp(e: Emitter, op: sh.ClampOp) -> Sequence[SSAValue]:
    t = _type(op.result)
    lo, hi = _broadcast_to(e, op.min, t), _broadcast_to(e, op.max, t)
    return [e.v(tensor.ClampOp(lo, op.operand, hi))]


@converts(sh.ConvertOp)
def _convert(e: Emitter, op: sh.ConvertOp) -> Sequence[SSAValue]:
    if op.operand.type == op.result.type:
        return [op.operand]
    return [e.v(tensor.ConvertOp(op.operand, op.result.type))]


# --------------------------------------------------------------------------
# Constants, shapes, data movement
# --------------------------------------------------------------------------


@converts(sh.ConstantOp)
def _constant(e: Emitter, op: sh.ConstantOp) -> Sequence[SSAValue]:
    return [e.v(arith.ConstantOp(op.value))]


@converts(sh.IotaOp)
def _iota(e: Emitter, op: sh.IotaOp) -> Sequence[SSAValue]:
    iota = TENSOR_OPS["iota"]
    return [e.v(iota(op.iota_dimension.value.data, op.output.type))]


@converts(sh.BroadcastInDimOp)
def _broadcast_in_dim(e: Emitter, op: sh.BroadcastInDimOp) -> Sequence[SSAValue]:
    x, dims, rt = op.operand, list(op.dims), _type(op.result)
    if dims != sorted(dims):  # tensor.broadcast keeps the operand's dim order
        perm = sorted(range(len(dims)), key=lambda i: dims[i])
        x = e.transpose(x, perm)
        dims = sorted(dims)
    if x.type == rt and dims == list(range(len(dims))):
        return [x]
    return [e.broadcast(x, dims, rt)]


@converts(sh.TransposeOp)
def _transpose(e: Emitter, op: sh.TransposeOp) -> Sequence[SSAValue]:
    perm = list(op.dims)
    if perm == sorted(perm):
        return [op.operand]
    return [e.v(tensor.TransposeOp(op.operand, perm, op.result.type))]


@converts(sh.ReverseOp)
def _reverse(e: Emitter, op: sh.ReverseOp) -> Sequence[SSAValue]:
    reverse = TENSOR_OPS["reverse"]
    return [e.v(reverse(op.operand, list(op.dims)))]


def _groups(big: Sequence[int], small: Sequence[int]) -> list[list[int]] | None:
    """The reassociation that collapses shape ``big`` into ``small`` (each dim of
    ``small`` the product of consecutive dims of ``big``), or None."""
    if not small:
        return [] if all(d == 1 for d in big) else None
    groups: list[list[int]] = []
    i = 0
    for s in small:
        if i >= len(big):
            return None
        group, p = [i], big[i]
        i += 1
        while p < s and i < len(big):
            group.append(i)
            p *= big[i]
            i += 1
        if p != s:
            return None
        groups.append(group)
    while i < len(big):  # trailing unit dims join the last group
        if big[i] != 1:
            return None
        groups[-1].append(i)
        i += 1
    return groups


def reshape(e: Emitter, x: SSAValue, shape: Sequence[int]) -> SSAValue:
    """``x`` reshaped row-major: a collapse_shape, an expand_shape, or both
    (through 1-D) when the reshape is neither."""
    src = _shape(x)
    shape = tuple(shape)
    et = _element(x)
    if src == shape:
        return x
    collapse = _groups(src, shape)
    if collapse is not None:
        return e.v(tensor.CollapseShapeOp(x, collapse, TensorType(et, shape)))
    expand = _groups(shape, src)
    if expand is not None:
        return e.v(tensor.ExpandShapeOp(x, [], expand, shape, TensorType(et, shape)))
    n = _pymath.prod(src)
    if n == 0:  # no elements to move (and no grouping of the dims through 1-D)
        return e.v(tensor.EmptyOp([], TensorType(et, shape)))
    return reshape(e, reshape(e, x, (n,)), shape)


@converts(sh.ReshapeOp)
def _reshape(e: Emitter, op: sh.ReshapeOp) -> Sequence[SSAValue]:
    return [reshape(e, op.operand, _shape(op.result))]


@converts(sh.SliceOp)
def _slice(e: Emitter, op: sh.SliceOp) -> Sequence[SSAValue]:
    starts, strides = list(sh.ints(op.start_indices)), list(sh.ints(op.strides))
    return [e.extract_slice(op.operand, starts, _shape(op.result), strides, op.result.type)]


def _clamped_starts(e: Emitter, starts: Sequence[SSAValue], shape: Sequence[int],
                    sizes: Sequence[int]) -> list[SSAValue | int]:
    """StableHLO clamps each start so that the slice stays in bounds; upstream
    slices do not, so the clamp is explicit (folded for constant starts)."""
    out: list[SSAValue | int] = []
    for start, n, size in zip(starts, shape, sizes):
        c = splat_value(start)
        if isinstance(c, int):
            out.append(min(max(c, 0), n - size))
            continue
        i = e.to_index(e.extract(start, []))
        out.append(e.imin(e.imax(i, e.index(0)), e.index(n - size)))
    return out


@converts(sh.DynamicSliceOp)
def _dynamic_slice(e: Emitter, op: sh.DynamicSliceOp) -> Sequence[SSAValue]:
    sizes = list(sh.ints(op.slice_sizes))
    offsets = _clamped_starts(e, op.start_indices, _shape(op.operand), sizes)
    return [e.extract_slice(op.operand, offsets, sizes, [1] * len(sizes), op.result.type)]


@converts(sh.DynamicUpdateSliceOp)
def _dynamic_update_slice(e: Emitter, op: sh.DynamicUpdateSliceOp) -> Sequence[SSAValue]:
    sizes = _shape(op.update)
    offsets = _clamped_starts(e, op.start_indices, _shape(op.operand), sizes)
    return [e.insert_slice(op.update, op.operand, offsets, sizes, [1] * len(sizes))]


@converts(sh.ConcatenateOp)
def _concatenate(e: Emitter, op: sh.ConcatenateOp) -> Sequence[SSAValue]:
    if len(op.inputs) == 1:
        return [op.inputs[0]]
    return [e.v(tensor.ConcatOp(list(op.inputs), op.dimension.value.data, op.result.type))]


@converts(sh.PadOp)
def _pad(e: Emitter, op: sh.PadOp) -> Sequence[SSAValue]:
    # a tensor of the padding value, the operand inserted with stride interior + 1,
    # then negative edge padding cropped
    low, high = sh.ints(op.edge_padding_low), sh.ints(op.edge_padding_high)
    interior = sh.ints(op.interior_padding)
    shape, et = _shape(op.operand), _element(op.operand)
    grown = [n + max(lo, 0) + max(hi, 0) + max(n - 1, 0) * it
             for n, lo, hi, it in zip(shape, low, high, interior)]
    dest = _broadcast_to(e, op.padding_value, TensorType(et, grown))
    padded = e.insert_slice(op.operand, dest, [max(lo, 0) for lo in low], shape, [it + 1 for it in interior])
    if all(lo >= 0 and hi >= 0 for lo, hi in zip(low, high)):
        return [padded]
    return [e.extract_slice(padded, [max(-lo, 0) for lo in low], _shape(op.result), [1] * len(shape),
                            op.result.type)]


@converts(sh.OptimizationBarrierOp)
def _optimization_barrier(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    return list(op.operands)  # the identity; its fence means nothing to our passes


@converts(sh.MeshOp)
def _mesh(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    return []  # only the (inert) sharding attributes refer to it


# --------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------


def _transpose_to(e: Emitter, x: SSAValue, perm: list[int]) -> SSAValue:
    return x if perm == sorted(perm) else e.transpose(x, perm)


@converts(sh.DotGeneralOp, sh.DotOp)
def _dot_general(e: Emitter, op: Operation) -> Sequence[SSAValue]:
    lhs, rhs = op.operands[0], op.operands[1]
    if isinstance(op, sh.DotGeneralOp):
        dn = op.dot_dimension_numbers
        lb, rb = list(dn.value("lhs_batching_dimensions")), list(dn.value("rhs_batching_dimensions"))
        lc, rc = list(dn.value("lhs_contracting_dimensions")), list(dn.value("rhs_contracting_dimensions"))
    else:
        lb, rb, lc, rc = [], [], [len(_shape(lhs)) - 1], [0]
    if not _is_float(lhs):
        raise op_error(op, f"element type {_element(lhs)} is not supported: only float dot products convert")
    return [e.v(tensor.DotOp(lhs, rhs, (lb, rb), (lc, rc), op.results[0].type))]


def _is_float(v: SSAValue) -> bool:
    return element_kind(_element(v)) == ElementKind.FLOAT


@converts(sh.ConvolutionOp)
def _convolution(e: Emitter, op: sh.ConvolutionOp) -> Sequence[SSAValue]:
    if op.batch_group_count.value.data != 1:
        raise op_error(op, f"batch_group_count = {op.batch_group_count.value.data} is not supported")
    if any(op.window()["reverse"]):
        raise op_error(op, "window reversal is not supported")
    conv = TENSOR_OPS["conv"]
    ib, if_, isp = op.dimension_numbers.layout("input")
    ki, ko, ksp = op.dimension_numbers.layout("kernel")
    ob, of, osp = op.dimension_numbers.layout("output")
    n = len(isp)
    # tensor.conv is channels last: input N x spatial x C, filter spatial x C/groups x F
    x = _transpose_to(e, op.lhs, [ib, *isp, if_])
    w = _transpose_to(e, op.rhs, [*ksp, ki, ko])
    win = op.window()
    y = e.v(conv(x, w, win["stride"], win["pad"], win["lhs_dilate"], win["rhs_dilate"],
                 op.feature_group_count.value.data))
    # back to the op's output layout: dim k of the result is dim perm[k] of y
    perm = [0] * (n + 2)
    perm[ob], perm[of] = 0, n + 1
    for i, d in enumerate(osp):
        perm[d] = 1 + i
    return [_transpose_to(e, y, perm)]


# --------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------

# the op a reduce body applies -> (tensor reduction, its identity)
REDUCTIONS: dict[type[Operation], tuple[str, float]] = {
    sh.AddOp: ("reduce_sum", 0.0),
    sh.MaximumOp: ("reduce_max", -_pymath.inf),
    sh.MinimumOp: ("reduce_min", _pymath.inf),
    sh.MultiplyOp: ("reduce_prod", 1.0),
}


def _applied(body: Region) -> Operation | None:
    """The one binary op a reduction body applies to its two arguments, else None."""
    block = body.blocks.first
    ops = list(block.ops) if block is not None else []
    if len(ops) != 2 or len(block.args) != 2:
        return None
    inner, ret = ops
    if set(inner.operands) != set(block.args) or list(ret.operands) != [inner.results[0]]:
        return None
    return inner


@converts(sh.ReduceOp)
def _reduce(e: Emitter, op: sh.ReduceOp) -> Sequence[SSAValue]:
    if len(op.inputs) == 2:
        return _arg_extreme(e, op)
    if len(op.inputs) != 1:
        raise op_error(op, f"a reduce of {len(op.inputs)} operands is not supported")
    inner = _applied(op.body)
    if inner is None or type(inner) not in (REDUCTIONS if not _is_bool(op.inputs[0]) else BOOL_REDUCTIONS):
        raise op_error(op, "only reductions applying one stablehlo.add, maximum, minimum or multiply "
                           "(and, or on i1) convert")
    if _is_bool(op.inputs[0]):
        return [_reduce_bool(e, op, inner)]
    name, identity = REDUCTIONS[type(inner)]
    cls = TENSOR_OPS[name]
    x, init = op.inputs[0], op.init_values[0]
    result = _build(e, op, cls, x, list(sh.ints(op.dimensions)))
    if splat_value(init) != identity:  # StableHLO folds the init value in as one more element
        combine = TENSOR_OPS[BINARY[type(inner)]]
        result = e.v(combine(result, _broadcast_to(e, init, _type(result))))
    return [result]


def _body_signature(region: Region) -> list[tuple]:
    """The ops of a one-block body as (name, compare direction, operands), an operand
    being ``"a<k>"`` (block argument k) or the position of the op defining it."""
    block = region.blocks.first
    ops = list(block.ops)
    where = {a: f"a{k}" for k, a in enumerate(block.args)}
    where.update({o.results[0]: k for k, o in enumerate(ops) if o.results})
    return [(o.name, o.comparison_direction.data.value if isinstance(o, sh.CompareOp) else None,
             tuple(where.get(v) for v in o.operands)) for o in ops]


def _arg_extreme_body(direction: str) -> list[tuple]:
    """jnp.argmax's (GT) / argmin's (LT) reducer over (value, index) pairs: the value
    wins when it compares `direction` or is NaN, the lower index on ties."""
    c, sel = "stablehlo.compare", "stablehlo.select"
    return [(c, direction, ("a0", "a2")), (c, "NE", ("a0", "a0")), ("stablehlo.or", None, (0, 1)),
            (c, "EQ", ("a0", "a2")), (c, "LT", ("a1", "a3")), ("stablehlo.and", None, (3, 4)),
            ("stablehlo.or", None, (2, 5)), (sel, None, (2, "a0", "a2")), (sel, None, (6, "a1", "a3")),
            ("stablehlo.return", None, (7, 8))]


# argument-extreme reducer direction -> (tensor op, value reduction, init of the values)
ARG_EXTREMES = {"GT": ("argmax", "reduce_max", -_pymath.inf), "LT": ("argmin", "reduce_min", _pymath.inf)}


def _arg_extreme(e: Emitter, op: sh.ReduceOp) -> Sequence[SSAValue]:
    """The variadic reduce of jnp.argmax / argmin: (values, iota along the dim)."""
    dims = list(sh.ints(op.dimensions))
    x, iota = op.inputs
    kind = next((d for d in ARG_EXTREMES if _body_signature(op.body) == _arg_extreme_body(d)), None)
    source = iota.owner
    if (kind is None or len(dims) != 1 or source is None or source.name not in ("stablehlo.iota", "tensor.iota")
            or source.iota_dimension.value.data != dims[0]
            or splat_value(op.init_values[0]) != ARG_EXTREMES[kind][2] or splat_value(op.init_values[1]) != 0):
        raise op_error(op, "a reduce of two operands converts only as jnp.argmax / argmin emits it "
                           "(values and an iota along the dim, their reducer and inits)")
    name, values, _ = ARG_EXTREMES[kind]
    index = e.v(TENSOR_OPS[name](x, dims))
    if _element(index) != _element(op.outs[1]):
        index = e.v(tensor.ConvertOp(index, op.outs[1].type))
    value = e.v(TENSOR_OPS[values](x, dims))
    return [value, index]


# i1 reductions (jnp.all / jnp.any, take_along_axis's bounds check) -> whether the
# largest of the values as 0.0 / 1.0 (for `and`: of their negations) is positive
BOOL_REDUCTIONS: dict[type[Operation], bool] = {
    sh.OrOp: False, sh.MaximumOp: False, sh.AddOp: False,
    sh.AndOp: True, sh.MinimumOp: True, sh.MultiplyOp: True,
}


def _any_or_all(e: Emitter, x: SSAValue, dims: list[int], all_: bool) -> SSAValue:
    values = e.v(tensor.ConvertOp(x, f32))
    if all_:
        values = e.v(tensor.SubOp(e.const(1.0, values), values))
    top = e.v(tensor.ReduceMaxOp(values, dims))
    # an empty reduction gives -inf: false for `or`, true for `and`, as it should
    return e.v(tensor.CmpOp("le" if all_ else "gt", top, e.const(0.0, top)))


def _all(e: Emitter, x: SSAValue, dims: list[int]) -> SSAValue:
    return _any_or_all(e, x, dims, True)


def _reduce_bool(e: Emitter, op: sh.ReduceOp, inner: Operation) -> SSAValue:
    negate = BOOL_REDUCTIONS[type(inner)]
    x, init = op.inputs[0], op.init_values[0]
    result = _any_or_all(e, x, list(sh.ints(op.dimensions)), negate)
    known = splat_value(init)
    if known is None or bool(known) != negate:  # i1 true is stored as -1
        combine = tensor.MinOp if negate else tensor.MaxOp  # and, or on i1
        result = e.v(combine(result, _broadcast_to(e, init, _type(result))))
    return result


# select(selected, candidate) keeps `selected` when true, so GE keeps a window's first
# maximal element, as tensor.window_max_scatter does (GT would keep the last)
_FIRST_MAX_SELECT = [("stablehlo.compare", "GE", ("a0", "a1")), ("stablehlo.return", None, (0,))]


@converts(sh.SelectAndScatterOp)
def _select_and_scatter(e: Emitter, op: sh.SelectAndScatterOp) -> Sequence[SSAValue]:
    """jax.grad of max-pooling: each source value added at its window's first maximum."""
    if _body_signature(op.select) != _FIRST_MAX_SELECT:
        raise op_error(op, "only a select of `compare GE` (the first maximal element of each window) "
                           "converts; this select region is not supported")
    inner = _applied(op.scatter)
    if not isinstance(inner, sh.AddOp):
        raise op_error(op, "only a scatter region applying stablehlo.add converts")
    if not _is_float(op.operand):
        raise op_error(op, f"a select_and_scatter over {_element(op.operand)} is not supported (floats only)")
    win = op.window()
    result = e.v(TENSOR_OPS["window_max_scatter"](
        op.operand, op.source, win["window_dimensions"], win["window_strides"], win["padding"],
        op.result.type))
    if splat_value(op.init_value) != 0.0:  # every element starts at the init value
        result = e.v(tensor.AddOp(result, _broadcast_to(e, op.init_value, _type(result))))
    return [result]


# the op a reduce_window body applies -> (tensor op, the value its padding counts as)
WINDOW_REDUCTIONS: dict[type[Operation], tuple[str, float]] = {
    sh.AddOp: ("reduce_window_sum", 0.0),
    sh.MaximumOp: ("reduce_window_max", -_pymath.inf),
}


@converts(sh.ReduceWindowOp)
def _reduce_window(e: Emitter, op: sh.ReduceWindowOp) -> Sequence[SSAValue]:
    inner = _applied(op.body) if len(op.inputs) == 1 else None
    if inner is None or type(inner) not in WINDOW_REDUCTIONS or _is_bool(op.inputs[0]):
        raise op_error(op, "only windowed reductions applying one stablehlo.add or maximum convert")
    win = op.window()
    for key in ("base_dilations", "window_dilations"):
        if any(v != 1 for v in win[key]):
            raise op_error(op, f"{key} = {list(win[key])} is not supported (only 1)")
    name, identity = WINDOW_REDUCTIONS[type(inner)]
    cls = TENSOR_OPS[name]
    x, init = op.inputs[0], op.init_values[0]
    padded = any(p != (0, 0) for p in map(tuple, win["padding"]))
    if splat_value(init) != identity and padded:
        raise op_error(op, f"padding with an init value other than {identity} is not supported")
    result = e.v(cls(x, win["window_dimensions"], win["window_strides"], win["padding"], op.outs[0].type))
    if splat_value(init) != identity:  # StableHLO folds the init value into every window
        combine = TENSOR_OPS[BINARY[type(inner)]]
        result = e.v(combine(result, _broadcast_to(e, init, _type(result))))
    return [result]


def _int_constant(e: Emitter, values, t: TensorType) -> SSAValue:
    import numpy as np

    flat = np.broadcast_to(np.asarray(values), _shape(t)).reshape(-1)
    return e.v(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [int(v) for v in flat])))


def _coordinates(e: Emitter, op: Operation, indices: SSAValue, vector_dim: int, start_map: list[int],
                 batching: list[int], indices_batching: list[int], shape: Sequence[int],
                 sizes: Sequence[int]) -> tuple[SSAValue, SSAValue, list[int]]:
    """StableHLO start indices as upstream gather/scatter coordinates: a tensor B x k
    (k = len(dims)), its clamped form, and ``dims`` (the operand dims they index,
    increasing). An operand batching dim indexes with the position along its indices
    batching dim (an iota)."""
    import numpy as np

    ishape = _shape(indices)
    if vector_dim == len(ishape):  # an implicit index vector of one
        indices = reshape(e, indices, (*ishape, 1))
        ishape = _shape(indices)
    if vector_dim != len(ishape) - 1:
        raise op_error(op, f"index_vector_dim = {vector_dim} is not supported (only the last dim)")
    batch, et = ishape[:-1], _element(indices)
    dims = sorted(start_map + batching)
    coords = indices
    if dims != start_map:
        columns = []
        column_type = TensorType(et, (*batch, 1))
        for d in dims:
            if d in start_map:
                offsets = [0] * len(batch) + [start_map.index(d)]
                columns.append(e.extract_slice(indices, offsets, (*batch, 1), [1] * len(ishape), column_type))
            else:
                along = indices_batching[batching.index(d)]
                iota = np.arange(batch[along]).reshape([-1 if i == along else 1 for i in range(len(batch))] + [1])
                columns.append(_int_constant(e, iota, column_type))
        coords = e.v(tensor.ConcatOp(columns, len(ishape) - 1, TensorType(et, (*batch, len(dims)))))
    ct = _type(coords)
    # StableHLO clamps a start so that its slice stays in bounds; upstream ops do not
    bounds = _int_constant(e, [shape[d] - sizes[d] for d in dims], ct)
    clamped = e.v(tensor.MinOp(e.v(tensor.MaxOp(coords, _int_constant(e, 0, ct))), bounds))
    return coords, clamped, dims


def _window_shape(op: Operation, shape: Sequence[int], sizes: Sequence[int], dims: list[int]) -> list[int]:
    """The upstream slice shape: 1 on the indexed dims, the whole extent on the others."""
    for d, (n, size) in enumerate(zip(shape, sizes)):
        if size != (1 if d in dims else n):
            raise op_error(op, f"a slice of size {size} along dim {d} (of {n}) is not supported: only "
                               f"size 1 along the indexed dims and whole dims along the others")
    return [1 if d in dims else n for d, n in enumerate(shape)]


def _batch_last_perm(rank: int, window_dims: list[int]) -> list[int]:
    """The permutation taking (batch dims..., window dims...) to StableHLO's order,
    where the window dims sit at ``window_dims`` and the batch dims fill the rest."""
    n_batch = rank - len(window_dims)
    perm, b = [], 0
    for p in range(rank):
        if p in window_dims:
            perm.append(n_batch + window_dims.index(p))
        else:
            perm.append(b)
            b += 1
    return perm


@converts(sh.GatherOp)
def _gather(e: Emitter, op: sh.GatherOp) -> Sequence[SSAValue]:
    gather = TENSOR_OPS["gather"]
    dn = op.dimension_numbers
    shape, sizes = _shape(op.operand), list(sh.ints(op.slice_sizes))
    start_map, batching = list(dn.value("start_index_map")), list(dn.value("operand_batching_dims"))
    _, coords, dims = _coordinates(e, op, op.start_indices, dn.value("index_vector_dim"), start_map, batching,
                                   list(dn.value("start_indices_batching_dims")), shape, sizes)
    window = _window_shape(op, shape, sizes, dims)
    batch = _shape(coords)[:-1]
    et = _element(op.operand)
    g = e.v(gather(op.operand, coords, dims, TensorType(et, (*batch, *window))))
    dropped = set(dn.value("collapsed_slice_dims")) | set(batching)
    kept = [n for d, n in enumerate(window) if d not in dropped]
    g = reshape(e, g, (*batch, *kept))
    return [_transpose_to(e, g, _batch_last_perm(len(_shape(op.result)), list(dn.value("offset_dims"))))]


@converts(sh.ScatterOp)
def _scatter(e: Emitter, op: sh.ScatterOp) -> Sequence[SSAValue]:
    inner = _applied(op.update_computation) if len(op.inputs) == 1 else None
    if not isinstance(inner, sh.AddOp):
        raise op_error(op, "only scatters that add their updates (x.at[idx].add) convert")
    scatter_add = TENSOR_OPS["scatter_add"]
    dn = op.scatter_dimension_numbers
    dest, updates = op.inputs[0], op.updates[0]
    shape = _shape(dest)
    start_map, batching = list(dn.value("scatter_dims_to_operand_dims")), list(dn.value("input_batching_dims"))
    window_dims = list(dn.value("update_window_dims"))
    inserted = set(dn.value("inserted_window_dims")) | set(batching)
    # the slice size along each operand dim: 1 where inserted, else the update window's
    window_sizes = iter(_shape(updates)[p] for p in window_dims)
    sizes = [1 if d in inserted else next(window_sizes) for d in range(len(shape))]
    coords, clamped, dims = _coordinates(e, op, op.scatter_indices, dn.value("index_vector_dim"), start_map,
                                         batching, list(dn.value("scatter_indices_batching_dims")), shape, sizes)
    window = _window_shape(op, shape, sizes, dims)
    batch = _shape(coords)[:-1]
    perm = _batch_last_perm(len(_shape(updates)), window_dims)
    inverse = sorted(range(len(perm)), key=lambda p: perm[p])
    u = reshape(e, _transpose_to(e, updates, inverse), (*batch, *window))
    # StableHLO skips an update whose slice would leave the operand: add zeros there instead
    in_bounds = _all(e, e.v(tensor.CmpOp("eq", coords, clamped)), [len(batch)])
    ut = _type(u)
    mask = e.v(tensor.BroadcastOp(in_bounds, list(range(len(batch))), TensorType(i1, _shape(ut))))
    u = e.v(tensor.SelectOp(mask, u, e.zeros(ut)))
    return [e.v(scatter_add(u, dest, clamped, dims, dest.type))]


# --------------------------------------------------------------------------
# Control flow
# --------------------------------------------------------------------------


def _region_block(op: Operation, region: Region, terminator: Callable[[list[SSAValue]], Operation]) -> Block:
    """The single block of ``region``, detached, its `stablehlo.return` replaced by
    ``terminator(operands)``."""
    block = region.blocks.first
    region.detach_block(block)
    ret = block.last_op
    new = terminator(list(ret.operands))
    new.location = ret.location
    block.insert_op_before(new, ret)
    block.erase_op(ret)
    return block


def _drop_pass_through(op: sh.WhileOp) -> dict[int, SSAValue]:
    """Loop-carried values the body returns unchanged: their uses inside both
    regions and of the loop's result become the value from outside. Returns
    {position: outer value}; the block arguments stay (unused)."""
    body, cond = op.body.blocks.first, op.cond.blocks.first
    ret = body.last_op
    outer: dict[int, SSAValue] = {}
    for j, (arg, value) in enumerate(zip(body.args, ret.operands)):
        if value is arg:
            outer[j] = op.operand[j]
            arg.replace_all_uses_with(op.operand[j])
            cond.args[j].replace_all_uses_with(op.operand[j])
    return outer


def _counter(op: sh.WhileOp) -> tuple[int, int, int] | None:
    """(position, start, stop) when the loop runs ``for i in range(start, stop)``
    on a carried integer i: ``cond { i < stop }``, ``body { ... i + 1 }``."""
    cond, body = op.cond.blocks.first, op.body.blocks.first
    p = cond.last_op.operands[0].owner
    if not (isinstance(p, sh.CompareOp) and p.comparison_direction.data.value == "LT"
            and p.lhs in cond.args and isinstance(stop := splat_value(p.rhs), int)):
        return None
    j = list(cond.args).index(p.lhs)
    start = splat_value(op.operand[j])
    step = body.last_op.operands[j].owner
    if not (isinstance(start, int) and isinstance(step, sh.AddOp)):
        return None
    others = [v for v in step.operands if v is not body.args[j]]
    if len(others) != 1 or splat_value(others[0]) != 1:
        return None
    return j, start, stop


def _place(e: Emitter, new: Operation, old: Operation) -> Operation:
    """Insert a region op at ``e``, located at ``old`` (the ops of its regions keep theirs)."""
    e.raw(new)
    new.location = old.location
    return new


def _keep_args(block: Block, keep: Sequence[int]) -> None:
    for j in reversed(range(len(block.args))):
        if j not in keep:
            block.erase_arg(block.args[j])


def _results(n: int, carried: Sequence[int], loop_results: Sequence[SSAValue],
             fixed: dict[int, SSAValue]) -> list[SSAValue]:
    return [fixed[j] if j in fixed else loop_results[carried.index(j)] for j in range(n)]


@converts(sh.WhileOp)
def _while(e: Emitter, op: sh.WhileOp) -> Sequence[SSAValue]:
    outer = _drop_pass_through(op)
    counter = _counter(op)
    if counter is not None:
        return _counter_loop(e, op, outer, *counter)
    n = len(op.operand)
    carried = [j for j in range(n) if j not in outer]

    def condition(operands: list[SSAValue]) -> Operation:
        ret = before.last_op
        c = Emitter(before, ret, ret.location).extract(operands[0], [])
        return loop.ConditionOp(c, *[before.args[j] for j in carried])

    before = op.cond.blocks.first
    _region_block(op, op.cond, condition)
    after = _region_block(op, op.body, lambda ops: loop.YieldOp(*[ops[j] for j in carried]))
    _keep_args(before, carried)
    _keep_args(after, carried)
    w = loop.WhileOp([op.operand[j] for j in carried], [op.operand[j].type for j in carried],
                     Region(before), Region(after))
    _place(e, w, op)
    return _results(n, carried, list(w.results), outer)


def _counter_loop(e: Emitter, op: sh.WhileOp, outer: dict[int, SSAValue], j: int, start: int,
                  stop: int) -> Sequence[SSAValue]:
    n = len(op.operand)
    carried = [k for k in range(n) if k not in outer and k != j]
    step = op.body.blocks.first.last_op.operands[j].owner
    body = _region_block(op, op.body, lambda ops: loop.YieldOp(*[ops[k] for k in carried]))
    if not step.results[0].uses:
        operands = list(step.operands)
        body.erase_op(step)
        for v in operands:  # the constant 1
            if isinstance(v.owner, sh.ConstantOp) and not v.uses and v.owner.parent is body:
                body.erase_op(v.owner)
    counter_type = op.operand[j].type
    iv = body.insert_arg(IndexType(), 0)
    iv.name_hint = "i"
    counter = body.args[j + 1]
    if counter.uses:
        be = Emitter(body, body.first_op, op.location)
        value = be.v(tensor.FromElementsOp(be.from_index(iv, _element(counter_type)), result_type=counter_type))
        counter.replace_all_uses_with(value)
    _keep_args(body, [0] + [k + 1 for k in carried])
    stop = max(start, stop)
    f = loop.ForOp(e.index(start), e.index(stop), e.index(1), [op.operand[k] for k in carried], Region(body))
    _place(e, f, op)
    fixed = {**outer, j: e.v(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(counter_type, [stop])))}
    return _results(n, carried, list(f.results), fixed)


def _inline(e: Emitter, block: Block) -> list[SSAValue]:
    """The ops of a one-block region (ending in loop.yield) moved to ``e``; the yielded values."""
    term = block.last_op
    for o in list(block.ops):
        if o is not term:
            o.detach()
            e.raw(o)
    return list(term.operands)


@converts(sh.CaseOp)
def _case(e: Emitter, op: sh.CaseOp) -> Sequence[SSAValue]:
    types = [r.type for r in op.outs]
    blocks = [_region_block(op, r, lambda ops: loop.YieldOp(*ops)) for r in op.branches]
    if len(blocks) == 1:
        return _inline(e, blocks[0])
    index = e.extract(op.index, [])

    def chain(em: Emitter, k: int) -> Operation:
        """The loop.if running branch k when index == k, else the branches after k."""
        is_k = em.v(arith.CmpiOp(index, em.int_const(k, index.type), "eq"))
        if k + 2 == len(blocks):
            other = blocks[k + 1]
        else:
            other = Block()
            inner = chain(em.at(other), k + 1)
            em.at(other).op(loop.YieldOp(*inner.results))
        return _place(em, loop.IfOp(is_k, types, Region(blocks[k]), Region(other)), op)

    return list(chain(e, 0).results)


@converts(sh.IfOp)
def _if(e: Emitter, op: sh.IfOp) -> Sequence[SSAValue]:
    types = [r.type for r in op.outs]
    then, other = (_region_block(op, r, lambda ops: loop.YieldOp(*ops)) for r in (op.true_branch, op.false_branch))
    new = loop.IfOp(e.extract(op.pred, []), types, Region(then), Region(other))
    return list(_place(e, new, op).results)


# --------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------


class ConvertStablehloOp(RewritePattern):
    """Any stablehlo/chlo/sdy op, by its entry in ``CONVERTERS``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.name.startswith(_DIALECTS):
            return
        convert = CONVERTERS.get(type(op))
        if convert is None:
            raise op_error(op, "cannot be converted: convert-stablehlo-to-tensor has no conversion for it")
        values = convert(Emitter(op.parent_block(), op, op.location), op)
        rewriter.replace(op, [], list(values))


def has_stablehlo(module: ModuleOp) -> bool:
    return any(o.name.startswith(_DIALECTS) for o in module.walk())


@dataclass(frozen=True)
class ConvertStablehloToTensorPass(ModulePass):
    """StableHLO as a person would write it in our dialects: elementwise ops to their
    tensor ops, dot_general to tensor.dot (tensor.matmul without batch dims), a `while`
    counting from a constant by 1 (lax.fori_loop, lax.scan) to a static-count
    loop.for, any other to loop.while, case/if to loop.if. An op or attribute value
    it cannot convert is a located error naming both."""

    name = "convert-stablehlo-to-tensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Outer ops first, so that a loop or reduce sees its regions as StableHLO;
        # an op inside a region its converter dropped (a reduce body) is skipped.
        pattern = ConvertStablehloOp()
        for o in list(op.walk()):
            if o.name.startswith(_DIALECTS) and o.get_toplevel_object() is op:
                pattern.match_and_rewrite(o, PatternRewriter(o))
