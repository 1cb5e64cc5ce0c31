"""``convert-arith-to-llvm``: scalar arith ops (and ``index``, as ``i64``) to the llvm dialect.

Semantics kept from arith: ``maximumf``/``minimumf`` propagate NaN
(``llvm.maximum``/``llvm.minimum`` intrinsics); ``maxnumf``/``minnumf`` do not
(``llvm.maxnum``/``llvm.minnum``); ``floordivsi``/``ceildivsi``/``ceildivui``
are expanded into sdiv/srem/select sequences; ``cmpf false/true`` become constants.

Where arith says poison or undefined behaviour, we define the result (the
interpreter computes the same):

* integer division and remainder (``divsi divui remsi remui floordivsi
  ceildivsi ceildivui``) by zero, and signed division of the minimum by -1
  (``divsi floordivsi ceildivsi``), are run-time checks (``RuntimeCheckError``
  at the op, see ``cf.emit_check``), never a hardware trap; ``remsi`` of the
  minimum by -1 is 0. A constant divisor that cannot fail emits no check.
* shifts by the bit width or more (the amount read as unsigned): ``shli`` and
  ``shrui`` give 0, ``shrsi`` gives the sign (0 or -1), as XLA and numpy.
* ``fptosi``/``fptoui`` truncate toward zero and saturate: NaN gives 0, values
  beyond the range give its minimum or maximum (``llvm.fptosi.sat``, as XLA).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit import checks, dense
from irtoolkit.diagnostics import op_error
from irtoolkit.dialects.arith import IndexCastUIOp, RemFOp
from irtoolkit.passes.lowering.to_llvm.common import (
    Lowering,
    apply_handlers,
    constant_int,
    convert_type,
    float_properties,
    intrinsic_suffix,
    lower_to_intrinsic,
)


def _fastmath(op: Operation) -> llvm.FastMathAttr | None:
    # (arith's float ops hold the flags as a property: read without the IRDL accessor)
    fm = op.properties.get("fastmath")
    if fm is None:
        fm = getattr(op, "fastmath", None)
    if fm is None or not fm.data:
        return None
    try:
        return _llvm_fastmath(fm)
    except TypeError:  # an unhashable attribute
        return _llvm_fastmath.__wrapped__(fm)


@lru_cache(maxsize=256)
def _llvm_fastmath(fm: Attribute) -> llvm.FastMathAttr | None:
    """The llvm flags of arith's (made once per set of flags, not per op)."""
    try:
        return llvm.FastMathAttr(tuple(fm.data))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - flags llvm does not know: drop them
        return None


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, VectorType):
        return _width(t.element_type)
    assert isinstance(t, IntegerType)
    return t.width.data


# --------------------------------------------------------------------------- constants


def lower_constant(rw: Lowering, op: arith.ConstantOp) -> None:
    t = op.result.type
    lt = rw.type(t)
    value = op.value
    if isinstance(value, IntegerAttr):
        v = value.value.data
        w = _width(t)
        if w == 1:
            v = 1 if v else 0
        elif not -(1 << (w - 1)) <= v < (1 << w):
            raise op_error(op, f"constant value {v} does not fit in {w} bits")
        elif v >= 1 << (w - 1):
            v -= 1 << w  # the same bits, as a signed value
        res = rw.const_int(v, lt)
    elif isinstance(value, FloatAttr):
        res = rw.const_float(value.value.data, lt)
    elif isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, VectorType):
        if lt != t or len(value) != t.element_count():  # vector<..xindex>, or a splat kept as one
            value = DenseIntOrFPElementsAttr.from_list(lt, dense.values(value))  # type: ignore[arg-type]
        res = rw.emit(llvm.ConstantOp(value, lt)).results[0]
    else:
        raise op_error(op, f"cannot lower constant of type {t} to the llvm dialect "
                           "(tensor constants must be bufferized first)")
    rw.replace([res])


# --------------------------------------------------------------------------- binary ops

_INT_BINARY = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
}

_FLOAT_BINARY = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

_FLOAT_INTRINSIC = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
}

_MINMAX_INT = {
    arith.MaxSIOp: "sgt",
    arith.MinSIOp: "slt",
    arith.MaxUIOp: "ugt",
    arith.MinUIOp: "ult",
}


def _select(rw: Lowering, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    if not isinstance(c.type, VectorType):
        return rw.emit(llvm.SelectOp(c, a, b)).results[0]
    # xDSL's llvm.select takes an i1 condition only: blend with a lane mask
    t = a.type
    assert isinstance(t, VectorType)
    bits = t.element_type.bitwidth if not isinstance(t.element_type, IntegerType) \
        else t.element_type.width.data  # type: ignore[attr-defined]
    it = VectorType(IntegerType(bits), t.get_shape())
    ai = a if it == t else rw.emit(llvm.BitcastOp(a, it)).results[0]
    bi = b if it == t else rw.emit(llvm.BitcastOp(b, it)).results[0]
    mask = rw.emit(llvm.SExtOp(c, it)).results[0]
    keep_a = rw.emit(llvm.AndOp(ai, mask)).results[0]
    inverse = rw.emit(llvm.XOrOp(mask, _splat_const(rw, -1, it))).results[0]
    keep_b = rw.emit(llvm.AndOp(bi, inverse)).results[0]
    r = rw.emit(llvm.OrOp(keep_a, keep_b)).results[0]
    return r if it == t else rw.emit(llvm.BitcastOp(r, t)).results[0]


def lower_int_binary(rw: Lowering, op: Operation) -> None:
    a, b = rw.operands()
    cls = _INT_BINARY[type(op)]
    if issubclass(cls, llvm.ArithmeticBinOpOverflow):
        res = rw.int_op(cls, a, b)
    else:
        res = rw.emit(cls(a, b)).results[0]
    rw.replace([res])


def lower_float_binary(rw: Lowering, op: Operation) -> None:
    cls, flags = _FLOAT_BINARY[type(op)], _fastmath(op)
    if rw.types_kept():
        rw.become(cls, float_properties(flags))
        return
    a, b = rw.operands()
    rw.replace([rw.float_op(cls, a, b, flags)])


def lower_remf(rw: Lowering, op: Operation) -> None:
    flags = _fastmath(op)
    if rw.types_kept():
        rw.become(llvm.FRemOp, float_properties(flags))
        return
    a, b = rw.operands()
    rw.replace([rw.emit(llvm.FRemOp(a, b, flags)).results[0]])


def lower_float_intrinsic(rw: Lowering, op: Operation) -> None:
    lower_to_intrinsic(rw, _FLOAT_INTRINSIC[type(op)])


def lower_minmax_int(rw: Lowering, op: Operation) -> None:
    a, b = rw.operands()
    c = rw.icmp(_MINMAX_INT[type(op)], a, b)
    rw.replace([_select(rw, c, a, b)])


def lower_negf(rw: Lowering, op: arith.NegfOp) -> None:
    flags = _fastmath(op)
    if rw.types_kept():
        rw.become(llvm.FNegOp, float_properties(flags))
        return
    (a,) = rw.operands()
    rw.replace([rw.emit(llvm.FNegOp(a, flags)).results[0]])


# --------------------------------------------------------------------------- division, shifts


def _splat_const(rw: Lowering, value: int, t: Attribute) -> SSAValue:
    """An integer constant of scalar or vector type ``t``."""
    if isinstance(t, VectorType):
        attr = DenseIntOrFPElementsAttr.from_list(t, [value])  # type: ignore[arg-type]
        return rw.emit(llvm.ConstantOp(attr, t)).results[0]
    return rw.const_int(value, t)


def _any_lane(rw: Lowering, c: SSAValue) -> SSAValue:
    """A vector of i1 reduced with ``or`` (a scalar stays as it is)."""
    if isinstance(c.type, VectorType):
        name = f"llvm.vector.reduce.or.{intrinsic_suffix(c.type)}"
        return rw.intrinsic(name, [c], i1)  # type: ignore[return-value]
    return c


def _signed_constant(op: Operation, v: SSAValue) -> int | None:
    """The value of the (scalar) constant ``v`` as a signed integer of its width."""
    c = constant_int(v)
    if c is None or isinstance(v.type, VectorType):
        return None
    w = _width(op.operands[0].type)
    c &= (1 << w) - 1
    return c - (1 << w) if c >> (w - 1) else c


def division_checks(op: Operation) -> tuple[bool, bool]:
    """Which run-time checks an integer division or remainder ``op`` needs:
    (divisor may be zero, signed overflow minimum / -1 may happen). Also read
    by ``lower-loop-to-cf``, which splits no loop that contains a check."""
    if op.name not in checks.DIVISIONS:
        return False, False
    rhs = _signed_constant(op, op.operands[1])
    lhs = _signed_constant(op, op.operands[0])
    w = _width(op.operands[0].type)
    zero = rhs is None or rhs == 0
    overflow = op.name in checks.SIGNED_DIVISIONS and (rhs is None or rhs == -1) \
        and (lhs is None or lhs == -(1 << (w - 1)))
    return zero, overflow


def _checked_operands(rw: Lowering, op: Operation) -> tuple[SSAValue, SSAValue]:
    """The operands of a division, after the checks it needs."""
    from irtoolkit.passes.lowering.to_llvm.cf import emit_check

    zero, overflow = division_checks(op)
    a, b = rw.operands()
    t = a.type
    if zero:
        is_zero = _any_lane(rw, rw.icmp("eq", b, _splat_const(rw, 0, t)))
        ok = rw.emit(llvm.XOrOp(is_zero, rw.const_int(1, i1))).results[0]
        emit_check(rw, ok, checks.division_by_zero(op.name))
    if overflow:
        w = _width(t)
        a_min = rw.icmp("eq", a, _splat_const(rw, -(1 << (w - 1)), t))
        b_m1 = rw.icmp("eq", b, _splat_const(rw, -1, t))
        both = _any_lane(rw, rw.emit(llvm.AndOp(a_min, b_m1)).results[0])
        ok = rw.emit(llvm.XOrOp(both, rw.const_int(1, i1))).results[0]
        emit_check(rw, ok, checks.division_overflow(op.name, w))
    return a, b


def lower_division(rw: Lowering, op: Operation) -> None:
    a, b = _checked_operands(rw, op)
    cls = {arith.DivSIOp: llvm.SDivOp, arith.DivUIOp: llvm.UDivOp,
           arith.RemUIOp: llvm.URemOp}[type(op)]
    rw.replace([rw.emit(cls(a, b)).results[0]])


def lower_remsi(rw: Lowering, op: Operation) -> None:
    """``a % b`` with the sign of ``a``; ``min % -1`` is 0 (srem would trap):
    a divisor of -1 is replaced by 1, which gives the same remainder, 0."""
    a, b = _checked_operands(rw, op)
    if _signed_constant(op, op.rhs) in (None, -1):
        t = b.type
        is_m1 = rw.icmp("eq", b, _splat_const(rw, -1, t))
        b = _select(rw, is_m1, _splat_const(rw, 1, t), b)
    rw.replace([rw.emit(llvm.SRemOp(a, b)).results[0]])


def _rounded_sdiv(rw: Lowering, op: Operation, up: bool) -> None:
    """Signed division rounded down (floordivsi) or up (ceildivsi).

    q = a / b rounds toward zero; when the remainder r is non-zero, the floor is
    q - 1 if r and b have different signs, the ceiling q + 1 if they have the same.
    """
    a, b = _checked_operands(rw, op)
    t = a.type
    zero, one = _splat_const(rw, 0, t), _splat_const(rw, 1, t)
    q = rw.emit(llvm.SDivOp(a, b)).results[0]
    r = rw.emit(llvm.SRemOp(a, b)).results[0]
    r_nz = rw.icmp("ne", r, zero)
    r_neg = rw.icmp("slt", r, zero)
    b_neg = rw.icmp("slt", b, zero)
    signs = rw.icmp("eq", r_neg, b_neg) if up else rw.emit(llvm.XOrOp(r_neg, b_neg)).results[0]
    adjust = rw.emit(llvm.AndOp(r_nz, signs)).results[0]
    step = rw.emit((llvm.AddOp if up else llvm.SubOp)(q, one)).results[0]
    rw.replace([_select(rw, adjust, step, q)])


def lower_floordivsi(rw: Lowering, op: Operation) -> None:
    _rounded_sdiv(rw, op, up=False)


def lower_ceildivsi(rw: Lowering, op: Operation) -> None:
    _rounded_sdiv(rw, op, up=True)


def lower_ceildivui(rw: Lowering, op: Operation) -> None:
    # a == 0 ? 0 : (a - 1) / b + 1
    a, b = _checked_operands(rw, op)
    t = a.type
    zero, one = _splat_const(rw, 0, t), _splat_const(rw, 1, t)
    am1 = rw.emit(llvm.SubOp(a, one)).results[0]
    q = rw.emit(llvm.UDivOp(am1, b)).results[0]
    qp1 = rw.emit(llvm.AddOp(q, one)).results[0]
    is_zero = rw.icmp("eq", a, zero)
    rw.replace([_select(rw, is_zero, zero, qp1)])


def lower_shift(rw: Lowering, op: Operation) -> None:
    """Shifts by the width or more give 0 (``shli``, ``shrui``) or the sign
    (``shrsi``) instead of LLVM's poison; a constant in-range amount emits the
    bare shift."""
    a, b = rw.operands()
    t = a.type
    w = _width(t)
    amount = constant_int(op.operands[1]) if not isinstance(t, VectorType) else None
    if amount is not None and 0 <= amount % (1 << w) < w:
        cls = {arith.ShLIOp: llvm.ShlOp, arith.ShRSIOp: llvm.AShrOp, arith.ShRUIOp: llvm.LShrOp}[type(op)]
        rw.replace([rw.emit(cls(a, b)).results[0]])
        return
    if isinstance(op, arith.ShRSIOp):
        # shifting by w - 1 already gives the sign: clamp the (unsigned) amount
        big = rw.icmp("ugt", b, _splat_const(rw, w - 1, t))
        clamped = _select(rw, big, _splat_const(rw, w - 1, t), b)
        rw.replace([rw.emit(llvm.AShrOp(a, clamped)).results[0]])
        return
    cls = llvm.ShlOp if isinstance(op, arith.ShLIOp) else llvm.LShrOp
    shifted = rw.emit(cls(a, b)).results[0]
    in_range = rw.icmp("ult", b, _splat_const(rw, w, t))
    rw.replace([_select(rw, in_range, shifted, _splat_const(rw, 0, t))])


# --------------------------------------------------------------------------- compares, select


def lower_cmpi(rw: Lowering, op: arith.CmpiOp) -> None:
    a, b = rw.operands()
    pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    rw.replace([rw.icmp(pred, a, b)])


def lower_cmpf(rw: Lowering, op: arith.CmpfOp) -> None:
    a, b = rw.operands()
    pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    if pred in ("false", "true"):
        if isinstance(a.type, VectorType):
            raise op_error(op, f"predicate '{pred}' on vectors is not supported")
        rw.replace([rw.const_int(1 if pred == "true" else 0, i1)])
        return
    flag = llvm.FCmpPredicateFlag(pred)
    res = rw.emit(llvm.FCmpOp(a, b, IntegerAttr(flag.to_int(), 64))).results[0]
    rw.replace([res])


def lower_select(rw: Lowering, op: arith.SelectOp) -> None:
    c, a, b = rw.operands()
    rw.replace([_select(rw, c, a, b)])


# --------------------------------------------------------------------------- casts


def _int_resize(rw: Lowering, v: SSAValue, to: Attribute, signed: bool) -> SSAValue:
    wf, wt = _width(v.type), _width(to)
    if wf == wt:
        return v
    if wf > wt:
        return rw.emit(llvm.TruncOp(v, to)).results[0]
    cls = llvm.SExtOp if signed else llvm.ZExtOp
    return rw.emit(cls(v, to)).results[0]


_UNSIGNED_CASTS = (arith.ExtUIOp, IndexCastUIOp)


def lower_int_cast(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    to = rw.type(op.results[0].type)
    signed = not isinstance(op, _UNSIGNED_CASTS)
    rw.replace([_int_resize(rw, a, to, signed)])


def lower_sitofp(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    to = rw.type(op.results[0].type)
    rw.replace([rw.emit(llvm.SIToFPOp(a, to)).results[0]])


def lower_uitofp(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    to = rw.type(op.results[0].type)
    w = _width(a.type)
    if w < 64:  # zero-extend by one bit more, then the value is non-negative
        wide = IntegerType(min(64, max(8, 2 * w)))
        a = _int_resize(rw, a, wide, signed=False)
        rw.replace([rw.emit(llvm.SIToFPOp(a, to)).results[0]])
        return
    # 64 bits: x >= 0 ? sitofp(x) : 2 * sitofp((x >> 1) | (x & 1))
    t = a.type
    zero, one = rw.const_int(0, t), rw.const_int(1, t)
    direct = rw.emit(llvm.SIToFPOp(a, to)).results[0]
    half = rw.emit(llvm.LShrOp(a, one)).results[0]
    low = rw.emit(llvm.AndOp(a, one)).results[0]
    rounded = rw.emit(llvm.OrOp(half, low)).results[0]
    f = rw.emit(llvm.SIToFPOp(rounded, to)).results[0]
    twice = rw.emit(llvm.FAddOp(f, f)).results[0]
    neg = rw.icmp("slt", a, zero)
    rw.replace([_select(rw, neg, twice, direct)])


def lower_fptoint(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    to = rw.type(op.results[0].type)
    kind = "fptosi" if isinstance(op, arith.FPToSIOp) else "fptoui"
    name = f"llvm.{kind}.sat.{intrinsic_suffix(to)}.{intrinsic_suffix(a.type)}"
    rw.replace([rw.intrinsic(name, [a], to)])  # type: ignore[list-item]


def lower_extf(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    rw.replace([rw.emit(llvm.FPExtOp(a, rw.type(op.results[0].type))).results[0]])


def lower_truncf(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    rw.replace([rw.emit(llvm.FPTruncOp(a, rw.type(op.results[0].type))).results[0]])


def lower_bitcast(rw: Lowering, op: Operation) -> None:
    (a,) = rw.operands()
    to = rw.type(op.results[0].type)
    rw.replace([a if a.type == to else rw.emit(llvm.BitcastOp(a, to)).results[0]])


HANDLERS: dict = {
    arith.ConstantOp: lower_constant,
    **{cls: lower_int_binary for cls in _INT_BINARY},
    **{cls: lower_float_binary for cls in _FLOAT_BINARY},
    **{cls: lower_float_intrinsic for cls in _FLOAT_INTRINSIC},
    **{cls: lower_minmax_int for cls in _MINMAX_INT},
    arith.NegfOp: lower_negf,
    arith.DivSIOp: lower_division,
    arith.DivUIOp: lower_division,
    arith.RemUIOp: lower_division,
    arith.RemSIOp: lower_remsi,
    arith.FloorDivSIOp: lower_floordivsi,
    arith.CeilDivSIOp: lower_ceildivsi,
    arith.CeilDivUIOp: lower_ceildivui,
    arith.ShLIOp: lower_shift,
    arith.ShRSIOp: lower_shift,
    arith.ShRUIOp: lower_shift,
    arith.CmpiOp: lower_cmpi,
    arith.CmpfOp: lower_cmpf,
    arith.SelectOp: lower_select,
    arith.IndexCastOp: lower_int_cast,
    arith.ExtSIOp: lower_int_cast,
    arith.ExtUIOp: lower_int_cast,
    arith.TruncIOp: lower_int_cast,
    arith.SIToFPOp: lower_sitofp,
    arith.UIToFPOp: lower_uitofp,
    arith.FPToSIOp: lower_fptoint,
    arith.FPToUIOp: lower_fptoint,
    arith.ExtFOp: lower_extf,
    arith.TruncFOp: lower_truncf,
    arith.BitcastOp: lower_bitcast,
}
HANDLERS[IndexCastUIOp] = lower_int_cast
HANDLERS[RemFOp] = lower_remf

_ = convert_type  # re-exported helper used by sibling modules


@dataclass(frozen=True)
class ConvertArithToLLVMPass(ModulePass):
    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_handlers(op, HANDLERS)
