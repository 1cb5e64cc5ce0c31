"""Rules for ``arith``: constants, integer and float arithmetic, compares, casts.

Integers are numpy fixed-width signed integers (``i1`` is ``np.bool_``);
arithmetic wraps like the hardware. Unsigned ops reinterpret the bits as the
unsigned type of the same width. ``i1`` arithmetic is computed on the signed
values {0, -1} in ``int8`` and truncated back to one bit.

Where arith says poison, the result is the one compiled code computes (see
``passes/lowering/to_llvm/arith.py``): integer division or remainder by zero
and signed division of the minimum by -1 are located errors (``remsi`` of the
minimum by -1 is 0); shifts by the width or more give 0 (the sign for
``shrsi``), as numpy; float to integer conversions saturate (NaN gives 0).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import arith

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)

from irtoolkit import checks
from irtoolkit.diagnostics import op_error
from irtoolkit.dialects.arith import IndexCastUIOp
from irtoolkit.dialects.scalar import float_to_int
from irtoolkit.interpreter.core import (
    BITS,
    UNSIGNED,
    dtype_of,
    register,
    register_specialized,
    static_shape,
    wrap_int,
)

_I8 = np.dtype(np.int8)
_BOOL = np.dtype(np.bool_)


# ---------------------------------------------------------------------------
# constants


def dense_to_array(attr: DenseIntOrFPElementsAttr, t=None) -> np.ndarray:
    """A dense elements attribute as a read-only numpy array of its type."""
    t = t or attr.get_type()
    dt = dtype_of(t)
    shape = tuple(static_shape(t))
    if any(s is None for s in shape):
        raise ValueError(f"dense constant of dynamic shape {t}")
    n = math.prod(shape)
    arr = None
    raw = getattr(attr.data, "data", None)
    if isinstance(raw, (bytes, bytearray)):
        try:
            flat = np.frombuffer(raw, dtype=_I8 if dt == _BOOL else dt.newbyteorder("<"))
        except ValueError:
            flat = None
        if flat is not None:
            if dt == _BOOL:
                flat = flat != 0
            if flat.size == n:
                arr = flat.reshape(shape).astype(dt)
            elif flat.size == 1:
                arr = np.full(shape, flat[0], dtype=dt)
    if arr is None:
        values = attr.get_values()
        if dt == _BOOL:
            values = [v != 0 for v in values]
        if len(values) == 1 and n != 1:
            arr = np.full(shape, values[0], dtype=dt)
        else:
            arr = np.array(values, dtype=dt).reshape(shape)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        arr = arr.copy()
    arr.flags.writeable = False
    return arr


@register_specialized(arith.ConstantOp)
def _constant(op: arith.ConstantOp):
    attr = op.value
    t = op.result.type
    if isinstance(attr, IntegerAttr):
        value = wrap_int(attr.value.data, dtype_of(t))
    elif isinstance(attr, FloatAttr):
        value = dtype_of(t).type(attr.value.data)
    elif isinstance(attr, DenseIntOrFPElementsAttr):
        value = dense_to_array(attr, t if isinstance(t, TensorType) else None)
    else:
        raise op_error(op, f"cannot be interpreted: unsupported constant attribute {attr}")
    result = (value,)
    return lambda interp, op, args: result


# ---------------------------------------------------------------------------
# integer arithmetic


def _signed_i1(x):
    """i1 values as signed int8 values {0, -1}."""
    return np.negative(np.asarray(x).astype(_I8)) if isinstance(x, np.ndarray) else np.int8(-int(x))


def _to_i1(x):
    return (x & 1).astype(_BOOL)


def _u(x, dt):
    return x.astype(UNSIGNED[dt])


def _divsi(a, b, dt):
    q = np.floor_divide(a, b)
    r = a - q * b
    return q + ((r != 0) & ((a < 0) != (b < 0))).astype(dt)


def _ceildivsi(a, b, dt):
    q = np.floor_divide(a, b)
    return q + ((a - q * b) != 0).astype(dt)


def _ceildivui(a, b, dt):
    ua, ub = _u(a, dt), _u(b, dt)
    q = np.floor_divide(ua, ub)
    return (q + ((ua - q * ub) != 0).astype(ua.dtype)).astype(dt)


# addi subi muli maxsi minsi andi ori xori, and the float arithmetic, are declared
# elementwise (irtoolkit/dialects/scalar.py): their numpy meaning is their rule.


def _remsi(a, b, dt):
    # C's %; the minimum % -1 is 0 (numpy gives 0 too, with an overflow warning)
    with np.errstate(over="ignore"):
        return np.fmod(a, b)


def _floordivsi(a, b, dt):
    return np.floor_divide(a, b)


_INT_BINARY = {
    arith.DivSIOp: _divsi,
    arith.DivUIOp: lambda a, b, dt: np.floor_divide(_u(a, dt), _u(b, dt)).astype(dt),
    arith.RemSIOp: _remsi,
    arith.RemUIOp: lambda a, b, dt: np.remainder(_u(a, dt), _u(b, dt)).astype(dt),
    arith.FloorDivSIOp: _floordivsi,
    arith.CeilDivSIOp: _ceildivsi,
    arith.CeilDivUIOp: _ceildivui,
    arith.MinUIOp: lambda a, b, dt: np.minimum(_u(a, dt), _u(b, dt)).astype(dt),
    arith.MaxUIOp: lambda a, b, dt: np.maximum(_u(a, dt), _u(b, dt)).astype(dt),
    arith.ShLIOp: lambda a, b, dt: np.left_shift(a, b),
    arith.ShRSIOp: lambda a, b, dt: np.right_shift(a, b),
    arith.ShRUIOp: lambda a, b, dt: np.right_shift(_u(a, dt), _u(b, dt)).astype(dt),
}

def check_division(op, a, b, minimum: int, width: int, signed_overflow: bool) -> None:
    """The run-time checks of compiled integer division (``irtoolkit.checks``):
    a zero divisor, and ``minimum / -1`` when ``signed_overflow``. ``op`` is the
    op reported (``tensor.div`` on integers checks the same)."""
    if np.any(np.asarray(b) == 0):
        raise op_error(op, checks.division_by_zero(op.name))
    if signed_overflow and np.any((np.asarray(a) == minimum) & (np.asarray(b) == -1)):
        raise op_error(op, checks.division_overflow(op.name, width))


def _make_int_binary(cls, fn):
    def make(op):
        dt = dtype_of(op.result.type)
        if dt == _BOOL:
            rule = lambda interp, op, args: (_to_i1(fn(_signed_i1(args[0]), _signed_i1(args[1]), _I8)),)  # noqa: E731
            minimum = -1
        elif dt.kind == "u":  # explicitly unsigned types: compute on the bits as signed
            sdt = np.dtype(f"i{dt.itemsize}")
            rule = lambda interp, op, args: (fn(args[0].astype(sdt), args[1].astype(sdt), sdt).astype(dt),)  # noqa: E731
            minimum = int(np.iinfo(sdt).min)
        else:
            rule = lambda interp, op, args: (fn(args[0], args[1], dt),)  # noqa: E731
            minimum = int(np.iinfo(dt).min)
        if cls.name not in checks.DIVISIONS:
            return rule
        overflow = cls.name in checks.SIGNED_DIVISIONS
        width = BITS.get(dt, dt.itemsize * 8)

        def checked(interp, op, args):
            a, b = args
            if dt == _BOOL:
                a, b = _signed_i1(a), _signed_i1(b)
            check_division(op, a, b, minimum, width, overflow)
            with np.errstate(over="ignore"):
                return rule(interp, op, args)

        return checked

    return make


for _cls, _fn in _INT_BINARY.items():
    register_specialized(_cls)(_make_int_binary(_cls, _fn))


def _pyint(x, dt, signed: bool) -> int:
    v = int(x)
    if dt == _BOOL:
        return -v if signed else v
    bits = BITS[dt]
    if not signed and v < 0:
        v += 1 << bits
    return v


@register_specialized(arith.AddUIExtendedOp)
def _addui_extended(op):
    dt = dtype_of(op.sum.type)

    def f(a, b):
        s = _pyint(a, dt, False) + _pyint(b, dt, False)
        bits = BITS[dt]
        return wrap_int(s, dt), np.bool_(s >> bits != 0)

    def rule(interp, op, args):
        a, b = args
        if isinstance(a, np.ndarray):
            s, o = np.frompyfunc(f, 2, 2)(a, b)
            return s.astype(dt), o.astype(_BOOL)
        return f(a, b)

    return rule


def _make_mul_extended(signed: bool):
    def make(op):
        dt = dtype_of(op.low.type)
        bits = BITS[dt]

        def f(a, b):
            p = _pyint(a, dt, signed) * _pyint(b, dt, signed)
            return wrap_int(p, dt), wrap_int(p >> bits, dt)

        def rule(interp, op, args):
            a, b = args
            if isinstance(a, np.ndarray):
                lo, hi = np.frompyfunc(f, 2, 2)(a, b)
                return lo.astype(dt), hi.astype(dt)
            return f(a, b)

        return rule

    return make


register_specialized(arith.MulUIExtendedOp)(_make_mul_extended(False))
register_specialized(arith.MulSIExtendedOp)(_make_mul_extended(True))


# ---------------------------------------------------------------------------
# compares and select


def _signed_view(x, dt):
    return _signed_i1(x) if dt == _BOOL else x


def _unsigned_view(x, dt):
    return x if dt == _BOOL else _u(x, dt)


_CMPI = {
    0: (np.equal, None),
    1: (np.not_equal, None),
    2: (np.less, _signed_view),
    3: (np.less_equal, _signed_view),
    4: (np.greater, _signed_view),
    5: (np.greater_equal, _signed_view),
    6: (np.less, _unsigned_view),
    7: (np.less_equal, _unsigned_view),
    8: (np.greater, _unsigned_view),
    9: (np.greater_equal, _unsigned_view),
}


@register_specialized(arith.CmpiOp)
def _cmpi(op: arith.CmpiOp):
    pred = op.predicate.value.data
    if pred not in _CMPI:
        raise op_error(op, f"unknown cmpi predicate {pred}")
    fn, view = _CMPI[pred]
    dt = dtype_of(op.lhs.type)
    if dt.kind == "u":  # explicitly unsigned operand types: signed views need reinterpretation
        sdt = np.dtype(f"i{dt.itemsize}")
        if view is _signed_view:
            return lambda interp, op, args: (fn(args[0].astype(sdt), args[1].astype(sdt)),)
        return lambda interp, op, args: (fn(args[0], args[1]),)
    if view is None or (view is _signed_view and dt != _BOOL):
        return lambda interp, op, args: (fn(args[0], args[1]),)
    return lambda interp, op, args: (fn(view(args[0], dt), view(args[1], dt)),)


def _const_bool(a, value: bool):
    if isinstance(a, np.ndarray):
        return np.full(a.shape, value, dtype=_BOOL)
    return np.bool_(value)


def _isnan_any(a, b):
    return np.isnan(a) | np.isnan(b)


# predicate -> function of (a, b); numpy comparisons are ordered except !=
CMPF_FUNCTIONS = {
    0: lambda a, b: _const_bool(a, False),                      # false
    1: np.equal,                                                # oeq
    2: np.greater,                                              # ogt
    3: np.greater_equal,                                        # oge
    4: np.less,                                                 # olt
    5: np.less_equal,                                           # ole
    6: lambda a, b: np.less(a, b) | np.greater(a, b),           # one
    7: lambda a, b: ~_isnan_any(a, b),                          # ord
    8: lambda a, b: ~(np.less(a, b) | np.greater(a, b)),        # ueq
    9: lambda a, b: ~np.less_equal(a, b),                       # ugt
    10: lambda a, b: ~np.less(a, b),                            # uge
    11: lambda a, b: ~np.greater_equal(a, b),                   # ult
    12: lambda a, b: ~np.greater(a, b),                         # ule
    13: np.not_equal,                                           # une
    14: _isnan_any,                                             # uno
    15: lambda a, b: _const_bool(a, True),                      # true
}


@register_specialized(arith.CmpfOp)
def _cmpf(op: arith.CmpfOp):
    pred = op.predicate.value.data
    fn = CMPF_FUNCTIONS.get(pred)
    if fn is None:
        raise op_error(op, f"unknown cmpf predicate {pred}")
    return lambda interp, op, args: (fn(args[0], args[1]),)


@register(arith.SelectOp)
def _select(interp, op, args):
    cond, a, b = args
    if isinstance(cond, np.ndarray):
        return (np.where(cond, a, b),)
    return (a if cond else b,)


# ---------------------------------------------------------------------------
# casts


def _cast_rule(convert):
    """``convert(x, src_dtype, dst_dtype)`` -> rule specialised on the op's types."""

    def make(op):
        src = dtype_of(op.input.type)
        dst = dtype_of(op.result.type)
        return lambda interp, op, args: (convert(args[0], src, dst),)

    return make


def _int_to_int_signext(x, src, dst):
    if src == _BOOL:
        return np.negative(x.astype(dst)) if dst != _BOOL else x
    if dst == _BOOL:
        return _to_i1(x)
    return x.astype(dst)  # widening sign-extends, narrowing wraps


def _int_to_int_zeroext(x, src, dst):
    if src == _BOOL or dst == _BOOL:
        return x.astype(dst) if src == _BOOL else _to_i1(x)
    if src.kind == "i" and dst.itemsize > src.itemsize:
        x = _u(x, src)
    return x.astype(dst)


def _sitofp(x, src, dst):
    if src == _BOOL:
        return np.negative(x.astype(dst))
    return x.astype(dst)


def _uitofp(x, src, dst):
    if src != _BOOL and src.kind == "i":
        x = _u(x, src)
    return x.astype(dst)


def _fptosi(x, src, dst):
    return float_to_int(x, dst, signed=True)


def _fptoui(x, src, dst):
    return float_to_int(x, dst, signed=False)


def _float_to_float(x, src, dst):
    return x.astype(dst)


def _bitcast(x, src, dst):
    if src == dst:
        return x
    if src.itemsize == dst.itemsize and src != _BOOL:
        return x.view(dst)
    return x.astype(dst)  # index <-> iN of another width


register_specialized(arith.SIToFPOp)(_cast_rule(_sitofp))
register_specialized(arith.UIToFPOp)(_cast_rule(_uitofp))
register_specialized(arith.FPToSIOp)(_cast_rule(_fptosi))
register_specialized(arith.FPToUIOp)(_cast_rule(_fptoui))
register_specialized(arith.ExtFOp)(_cast_rule(_float_to_float))
register_specialized(arith.TruncFOp)(_cast_rule(_float_to_float))
register_specialized(arith.ExtSIOp)(_cast_rule(_int_to_int_signext))
register_specialized(arith.ExtUIOp)(_cast_rule(_int_to_int_zeroext))
register_specialized(arith.TruncIOp)(_cast_rule(_int_to_int_signext))
register_specialized(arith.IndexCastOp)(_cast_rule(_int_to_int_signext))
register_specialized(arith.BitcastOp)(_cast_rule(_bitcast))
register_specialized(IndexCastUIOp)(_cast_rule(_int_to_int_zeroext))

__all__ = ["dense_to_array", "CMPF_FUNCTIONS", "check_division", "float_to_int"]
