"""``irtoolkit.numpy``: numpy's names and keywords inside ``@irt.function`` (SPEC §11).

Each function here is one entry of the op table: how a call becomes IR
(``tensor`` ops, numpy's broadcasting and promotion made explicit by the
frontend's :class:`~irtoolkit.frontend.emitter.Emitter`). Called outside an
``@irt.function`` (on numpy arrays), an entry is numpy's own function, so
helpers written with ``inp`` run in plain Python too. Operators (``+ - * /
** @``, comparisons, ``x[...]``) use the same entries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import builtins as _builtins
import math as _math  # sum, any, all, max, min, abs are entries of this module

import numpy as _np

from irtoolkit.dialects import tensor as _t

float32, float64, int32, int64, bool_ = _np.float32, _np.float64, _np.int32, _np.int64, _np.bool_
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None


class NumpyFunction:
    """One entry of the table: ``emit(E, *args, **kwargs)`` builds the IR (``E`` is the
    emitter; run-time arguments are SSA values, the rest Python values); ``numpy`` is
    the meaning outside a compiled function (and on compile-time arguments)."""

    def __init__(self, name: str, emit: Callable, numpy: Callable | None):
        self.__name__ = self.name = name
        self.emit = emit
        self.numpy = numpy

    def __call__(self, *args, **kwargs):
        if self.numpy is None:
            raise TypeError(f"irtoolkit.numpy.{self.name} works inside @irt.function only")
        return self.numpy(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<irtoolkit.numpy.{self.name}>"


#: name -> entry; the frontend looks operators up here too
TABLE: dict[str, NumpyFunction] = {}


def _entry(name: str, numpy: Callable | None = None):
    def register(emit: Callable) -> NumpyFunction:
        fn = NumpyFunction(name, emit, numpy if numpy is not None else getattr(_np, name, None))
        TABLE[name] = fn
        globals()[name] = fn
        return fn
    return register


def _float_dtype(E, *vals):
    dt = E.result_dtype(*vals)
    return dt if dt.kind == "f" else _np.dtype(_np.float64)


# ---------------------------------------------------------------------- elementwise

def _unary(name: str, op: type, numpy: Callable | None = None, float_only: bool = True) -> None:
    def emit(E, x):
        (v,) = E.operands(x, dtype=_float_dtype(E, x) if float_only else None)
        return E.emit(op(v))
    _entry(name, numpy)(emit)


def _binary(name: str, op: type, float_only: bool = False) -> None:
    def emit(E, a, b):
        lhs, rhs = E.operands(a, b, dtype=_float_dtype(E, a, b) if float_only else None)
        return E.emit(op(lhs, rhs))
    _entry(name)(emit)


for _name, _op in [("exp", _t.ExpOp), ("log", _t.LogOp), ("sqrt", _t.SqrtOp), ("tanh", _t.TanhOp),
                   ("sin", _t.SinOp), ("cos", _t.CosOp), ("tan", _t.TanOp)]:
    _unary(_name, _op)
_unary("negative", _t.NegOp, float_only=False)
_unary("abs", _t.AbsOp, float_only=False)
_unary("absolute", _t.AbsOp, float_only=False)
_unary("logistic", _t.LogisticOp, numpy=lambda x: 1.0 / (1.0 + _np.exp(-_np.asarray(x))))
for _name, _op in [("log1p", _t.Log1pOp), ("expm1", _t.Expm1Op), ("arctan", _t.AtanOp),
                   ("floor", _t.FloorOp), ("ceil", _t.CeilOp), ("rint", _t.RoundOp),
                   ("round", _t.RoundOp), ("sign", _t.SignOp)]:
    _unary(_name, _op)
_unary("erf", _t.ErfOp, numpy=_np.vectorize(_math.erf, otypes=[float]))
_unary("rsqrt", _t.RsqrtOp, numpy=lambda x: 1.0 / _np.sqrt(x))

for _name, _op in [("add", _t.AddOp), ("subtract", _t.SubOp), ("multiply", _t.MulOp),
                   ("maximum", _t.MaxOp), ("minimum", _t.MinOp)]:
    _binary(_name, _op)
for _name, _op in [("divide", _t.DivOp), ("true_divide", _t.DivOp), ("arctan2", _t.Atan2Op),
                   ("fmod", _t.RemOp)]:
    _binary(_name, _op, float_only=True)


@_entry("power")
def _power(E, a, b):
    if isinstance(b, int) and not isinstance(b, bool) and b in (1, 2):
        (x,) = E.operands(a, dtype=_float_dtype(E, a))
        return x if b == 1 else E.emit(_t.MulOp(x, x))  # x ** 2 as numpy computes it: x * x
    lhs, rhs = E.operands(a, b, dtype=_float_dtype(E, a, b))
    return E.emit(_t.PowOp(lhs, rhs))


def _compare(name: str, predicate: str) -> None:
    _entry(name)(lambda E, a, b: _compare_op(E, predicate, a, b))


for _name, _pred in [("equal", "eq"), ("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"),
                     ("greater", "gt"), ("greater_equal", "ge")]:
    _compare(_name, _pred)


@_entry("where")
def _where(E, condition, x, y):
    dtype = E.result_dtype(x, y)
    c = E.as_tensor(condition, _np.bool_)
    a, b = E.as_tensor(x, dtype), E.as_tensor(y, dtype)
    shape = E.broadcast_shape(*(t.type.get_shape() for t in (c, a, b)))
    return E.emit(_t.SelectOp(*(E.broadcast_to(t, shape) for t in (c, a, b))))


@_entry("astype", numpy=lambda x, dtype: _np.asarray(x).astype(dtype))
def _astype(E, x, dtype):
    return E.convert(E.as_tensor(x), dtype)


# ---------------------------------------------------------------------- shapes

def _axes(E, x, axis) -> list[int]:
    rank = len(x.type.get_shape())
    if axis is None:
        return list(range(rank))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise E.error(f"axis {a!r} is out of bounds for a tensor of rank {rank}")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise E.error(f"repeated axis in {axis!r}")
    return sorted(out)


@_entry("reshape")
def _reshape(E, a, newshape):
    x = E.as_tensor(a)
    shape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    size = int(_np.prod(x.type.get_shape()))
    if shape.count(-1) == 1:
        known = int(_np.prod([d for d in shape if d != -1]))
        shape = tuple(size // known if d == -1 else d for d in shape)
    if int(_np.prod(shape)) != size:
        raise E.error(f"cannot reshape a tensor of shape {tuple(x.type.get_shape())} into shape {shape}")
    if shape == tuple(x.type.get_shape()):
        return x
    dims = E.constant(list(shape), _np.int64) if shape else E.constant(_np.zeros(0, _np.int64), _np.int64)
    from xdsl.dialects.builtin import TensorType
    return E.emit(_t.ReshapeOp(x, dims, TensorType(x.type.element_type, shape)))


@_entry("transpose")
def _transpose(E, a, axes=None):
    x = E.as_tensor(a)
    rank = len(x.type.get_shape())
    perm = list(reversed(range(rank))) if axes is None else [p % rank for p in axes]
    if sorted(perm) != list(range(rank)):
        raise E.error(f"axes {tuple(axes)} are not a permutation of the {rank} dims")
    return x if perm == list(range(rank)) else E.emit(_t.TransposeOp(x, perm))


@_entry("expand_dims")
def _expand_dims(E, a, axis):
    x = E.as_tensor(a)
    shape = list(x.type.get_shape())
    for ax in sorted([axis] if isinstance(axis, int) else axis):
        shape.insert(ax % (len(shape) + 1), 1)
    return _reshape.emit(E, x, shape)


@_entry("squeeze")
def _squeeze(E, a, axis=None):
    x = E.as_tensor(a)
    shape = x.type.get_shape()
    drop = [i for i, d in enumerate(shape) if d == 1] if axis is None else _axes(E, x, axis)
    return _reshape.emit(E, x, [d for i, d in enumerate(shape) if i not in drop])


@_entry("broadcast_to")
def _broadcast_to(E, a, shape):
    return E.broadcast_to(E.as_tensor(a), tuple(shape))


# ---------------------------------------------------------------------- reductions

def _reduce(E, op: type, x, axis, keepdims: bool):
    axes = _axes(E, x, axis)
    if not axes:
        return x
    r = E.emit(op(x, axes))
    if keepdims:
        shape = [1 if i in axes else d for i, d in enumerate(x.type.get_shape())]
        r = _reshape.emit(E, r, shape)
    return r


@_entry("sum")
def _sum(E, a, axis=None, keepdims=False, dtype=None):
    x = E.as_tensor(a)
    if dtype is not None or E.result_dtype(x).kind == "b":
        x = E.convert(x, dtype or _np.int64)
    return _reduce(E, _t.ReduceSumOp, x, axis, keepdims)


@_entry("mean")
def _mean(E, a, axis=None, keepdims=False):
    x = E.as_tensor(a)
    x = E.convert(x, _float_dtype(E, x))
    shape = x.type.get_shape()
    count = int(_np.prod([shape[i] for i in _axes(E, x, axis)]))
    s = _reduce(E, _t.ReduceSumOp, x, axis, keepdims)
    return _binary_op(E, _t.DivOp, s, float(count))


@_entry("max")
def _max(E, a, axis=None, keepdims=False):
    return _reduce(E, _t.ReduceMaxOp, E.as_tensor(a), axis, keepdims)


TABLE["amax"] = TABLE["max"]


@_entry("min")
def _min(E, a, axis=None, keepdims=False):
    return _reduce(E, _t.ReduceMinOp, E.as_tensor(a), axis, keepdims)


TABLE["amin"] = TABLE["min"]


@_entry("prod")
def _prod(E, a, axis=None, keepdims=False):
    return _reduce(E, _t.ReduceProdOp, E.as_tensor(a), axis, keepdims)


def _arg_extreme(name: str, op: type) -> None:
    def emit(E, a, axis=None):
        x = E.as_tensor(a)
        if axis is None:  # numpy: the index into the flattened array
            x, axis = _reshape.emit(E, x, [-1]), 0
        return E.emit(op(x, [axis % _builtins.max(len(x.type.get_shape()), 1)]))
    _entry(name)(emit)


_arg_extreme("argmax", _t.ArgMaxOp)
_arg_extreme("argmin", _t.ArgMinOp)


def _binary_op(E, op: type, a, b):
    lhs, rhs = E.operands(a, b)
    return E.emit(op(lhs, rhs))


# ---------------------------------------------------------------------- linear algebra

@_entry("matmul")
def _matmul(E, a, b):
    lhs, rhs = (E.as_tensor(v, E.result_dtype(a, b)) for v in (a, b))
    ls, rs = list(lhs.type.get_shape()), list(rhs.type.get_shape())
    if not ls or not rs:
        raise E.error("matmul: operands must be at least 1-d (use * for scalars)")
    if len(ls) > 2 or len(rs) > 2:
        # stacks of matrices: one batched tensor.dot (batch dims pair up as in numpy, without
        # broadcasting them)
        if len(ls) != len(rs) or ls[:-2] != rs[:-2]:
            raise E.error(f"matmul of {tuple(ls)} and {tuple(rs)}: batch dimensions must be equal "
                          "(broadcast them explicitly)")
        if ls[-1] != rs[-2]:
            raise E.error(f"matmul: contracting dimensions differ: {tuple(ls)} @ {tuple(rs)} "
                          f"({ls[-1]} vs {rs[-2]})")
        batch = list(range(len(ls) - 2))
        return E.emit(_t.DotOp(lhs, rhs, (batch, batch), ([len(ls) - 1], [len(rs) - 2])))
    if ls[-1] != rs[0]:
        raise E.error(f"matmul: contracting dimensions differ: {tuple(ls)} @ {tuple(rs)} ({ls[-1]} vs {rs[0]})")
    lhs2 = lhs if len(ls) == 2 else _reshape.emit(E, lhs, [1, ls[0]])
    rhs2 = rhs if len(rs) == 2 else _reshape.emit(E, rhs, [rs[0], 1])
    r = E.emit(_t.MatmulOp(lhs2, rhs2))
    out = ls[:-1] + rs[1:]
    return r if len(out) == 2 else _reshape.emit(E, r, out)


dot = TABLE["dot"] = TABLE["matmul"]


# ---------------------------------------------------------------------- constructors

def _shape_arg(shape) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int) else tuple(shape)


@_entry("zeros")
def _zeros(E, shape, dtype=float):
    return E.constant(0, dtype, _shape_arg(shape))


@_entry("ones")
def _ones(E, shape, dtype=float):
    return E.constant(1, dtype, _shape_arg(shape))


@_entry("full")
def _full(E, shape, fill_value, dtype=None):
    if not isinstance(fill_value, bool | int | float):
        v = E.as_tensor(fill_value, dtype)
        return E.broadcast_to(v, _shape_arg(shape))
    return E.constant(fill_value, dtype or _np.asarray(fill_value).dtype, _shape_arg(shape))


@_entry("zeros_like")
def _zeros_like(E, a, dtype=None):
    x = E.as_tensor(a)
    return E.constant(0, dtype or E.result_dtype(x), x.type.get_shape())


@_entry("ones_like")
def _ones_like(E, a, dtype=None):
    x = E.as_tensor(a)
    return E.constant(1, dtype or E.result_dtype(x), x.type.get_shape())


@_entry("asarray")
def _asarray(E, a, dtype=None):
    return E.as_tensor(a, dtype)


TABLE["array"] = TABLE["asarray"]

# ---------------------------------------------------------------------- composites
# Entries written with the entries above, until the ops of their own land (tensor.clamp ...).

@_entry("clip")
def _clip(E, a, a_min, a_max):
    if a_min is None or a_max is None:  # one-sided: a max or a min
        return _binary_op(E, _t.MaxOp, a, a_min) if a_max is None else _binary_op(E, _t.MinOp, a, a_max)
    dtype = E.result_dtype(a, a_min, a_max)
    x = E.as_tensor(a, dtype)
    lo, hi = E.as_tensor(a_min, dtype), E.as_tensor(a_max, dtype)
    shape = E.broadcast_shape(*(t.type.get_shape() for t in (lo, x, hi)))
    return E.emit(_t.ClampOp(*(E.broadcast_to(t, shape) for t in (lo, x, hi))))


@_entry("square")
def _square(E, x):
    return _power.emit(E, x, 2)


@_entry("outer")
def _outer(E, a, b):
    x, y = E.as_tensor(a), E.as_tensor(b)
    return _binary_op(E, _t.MulOp, _reshape.emit(E, x, [-1, 1]), _reshape.emit(E, y, [1, -1]))


@_entry("var")
def _var(E, a, axis=None, keepdims=False):
    x = E.as_tensor(a)
    d = _binary_op(E, _t.SubOp, x, _mean.emit(E, x, axis, True))
    return _mean.emit(E, _binary_op(E, _t.MulOp, d, d), axis, keepdims)


@_entry("std")
def _std(E, a, axis=None, keepdims=False):
    return E.emit(_t.SqrtOp(_var.emit(E, a, axis, keepdims)))


def _bool(E, a):
    return E.as_tensor(a, _np.bool_)


@_entry("logical_and")
def _logical_and(E, a, b):
    return _where.emit(E, _bool(E, a), _bool(E, b), False)


@_entry("logical_or")
def _logical_or(E, a, b):
    return _where.emit(E, _bool(E, a), True, _bool(E, b))


@_entry("logical_not")
def _logical_not(E, a):
    return _where.emit(E, _bool(E, a), False, True)


@_entry("any")
def _any(E, a, axis=None, keepdims=False):
    return _compare_op(E, "gt", _sum.emit(E, _bool(E, a), axis, keepdims), 0)


@_entry("all")
def _all(E, a, axis=None, keepdims=False):
    return _logical_not.emit(E, _any.emit(E, _logical_not.emit(E, a), axis, keepdims))


def _compare_op(E, predicate: str, a, b):
    lhs, rhs = E.operands(a, b)
    return E.emit(_t.CmpOp(predicate, lhs, rhs))


@_entry("concatenate")
def _concatenate(E, arrays, axis=0):
    from irtoolkit.frontend import indexing

    parts = [E.as_tensor(v, E.result_dtype(*arrays)) for v in arrays]
    shapes = [list(p.type.get_shape()) for p in parts]
    axis %= len(shapes[0])
    out_shape = list(shapes[0])
    out_shape[axis] = _builtins.sum(s[axis] for s in shapes)
    if _builtins.any(len(s) != len(out_shape) or [d for i, d in enumerate(s) if i != axis]
           != [d for i, d in enumerate(out_shape) if i != axis] for s in shapes):
        raise E.error("concatenate: shapes " + ", ".join(str(tuple(s)) for s in shapes)
                      + f" differ outside axis {axis}")
    out = E.constant(0, E.result_dtype(parts[0]), out_shape)
    offset = 0
    for p, s in zip(parts, shapes):
        index = tuple(slice(offset, offset + s[axis]) if i == axis else slice(None) for i in range(len(s)))
        out = indexing.setitem(E, out, index, p)
        offset += s[axis]
    return out


@_entry("stack")
def _stack(E, arrays, axis=0):
    return _concatenate.emit(E, [_expand_dims.emit(E, a, axis) for a in arrays], axis)


@_entry("take")
def _take(E, a, indices, axis=None):
    """``a[indices]`` along ``axis`` (the flattened ``a`` when None, as numpy), as one
    ``tensor.gather``; an index out of range is a run-time error (numpy raises too)."""
    x = E.as_tensor(a)
    if axis is None:
        x, axis = _reshape.emit(E, x, [-1]), 0
    idx = E.as_tensor(indices, _np.int64)
    ishape = list(idx.type.get_shape())
    rank = len(x.type.get_shape())
    axis %= rank
    idx = _reshape.emit(E, idx, [*ishape, 1])
    g = E.emit(_t.GatherOp(x, idx, [axis], rank_reduced=True))
    # gather's result: index dims, then the source dims except `axis`; numpy puts the index
    # dims at `axis`
    if axis == 0:
        return g
    n = len(ishape)
    perm = [*range(n, n + axis), *range(n), *range(n + axis, n + rank - 1)]
    return _transpose.emit(E, g, perm)


# ---------------------------------------------------------------------- ops numpy has no name for
# (SPEC §3.1), under the op's name and keywords

@_entry("conv", numpy=None)
def _conv(E, x, w, stride=None, pad=None, input_dilation=None, dilation=None, groups=1):
    lhs, rhs = (E.as_tensor(v, E.result_dtype(x, w)) for v in (x, w))
    return E.emit(_t.ConvOp(lhs, rhs, stride, pad, input_dilation, dilation, groups))


def _window(name: str, op: type) -> None:
    def emit(E, x, window, stride=None, pad=None):
        return E.emit(op(E.as_tensor(x), window, stride, pad))
    _entry(name, numpy=None)(emit)


_window("reduce_window_sum", _t.ReduceWindowSumOp)
_window("reduce_window_max", _t.ReduceWindowMaxOp)


def _compile_time(name: str) -> None:
    """Constructors of constants (``arange``, ``linspace`` ...): computed by numpy while translating."""
    def emit(E, *args, **kwargs):
        raise E.error(f"irtoolkit.numpy.{name} takes compile-time arguments only")
    _entry(name)(emit)


for _name in ("arange", "linspace", "eye"):
    _compile_time(_name)


#: Python operators -> table entries (the frontend's BinOp / Compare / UnaryOp)
OPERATORS: dict[str, str] = {
    "Add": "add", "Sub": "subtract", "Mult": "multiply", "Div": "divide", "Pow": "power",
    "MatMult": "matmul", "USub": "negative",
    "BitAnd": "logical_and", "BitOr": "logical_or", "Invert": "logical_not",
    "Eq": "equal", "NotEq": "not_equal", "Lt": "less", "LtE": "less_equal", "Gt": "greater", "GtE": "greater_equal",
}

#: tensor methods and attributes inside @irt.function (``x.sum(axis=0)``, ``x.T``)
METHODS: dict[str, str] = {
    "sum": "sum", "mean": "mean", "max": "max", "min": "min", "reshape": "reshape",
    "transpose": "transpose", "astype": "astype", "squeeze": "squeeze", "clip": "clip", "var": "var",
    "std": "std", "any": "any", "all": "all",
}


def method_args(name: str, args: Sequence) -> Sequence:
    """``x.reshape(2, 3)`` and ``x.transpose(1, 0)`` take the shape as separate ints too."""
    if name in ("reshape", "transpose") and len(args) > 1 and _builtins.all(isinstance(a, int) for a in args):
        return [tuple(args)]
    return args
