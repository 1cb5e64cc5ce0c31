"""Vectorizable exp, log, tanh, sin, cos, pow, tan, atan, atan2, erf, expm1,
log1p (f32 and f64): the llvm-dialect intrinsic calls
``llvm.call_intrinsic "llvm.<fn>.f32|f64"`` (and the libm calls of erf, expm1,
log1p, which have no intrinsic) become plain llvm-dialect arithmetic.

Why: LLVM's loop vectorizer vectorizes a loop calling ``llvm.exp.f64``, but the
x86 backend scalarizes ``llvm.exp.v4f64`` back into libm calls (and
``-vector-library`` has no effect through llvmlite). These kernels are ordinary
``fmul``/``fadd``/``llvm.fma``/``select``/``bitcast`` sequences, so loops over
them vectorize (AVX2/AVX-512): 4-15x faster than libm on 1e6 elements (pow 2x).

Where: ``convert-math-to-llvm`` emits the readable intrinsic calls; the pass
``expand-vector-math`` (a step of ``lower-to-llvm``, after ``convert-to-llvm``)
replaces each by a call of a function ``@__irt_vm_<fn>_<type>`` holding its
kernel, defined once per module and always inlined by LLVM (``passthrough =
["alwaysinline"]``), and defines the libm helpers the sin, cos and pow kernels
call (``add_vector_helpers``).

f32 exp, log and tanh compute in f32 (16 lanes per AVX-512 vector and shorter
polynomials: 2x faster than through f64); the other kernels compute in f64, an
f32 operand extended and the result rounded once. Measured max error on
1e6-point samples per function (``test/passes/lowering/to_llvm/test_vector_math.py``):
f64 exp, log, sin, cos 1 ulp and tanh 2 ulp against numpy, pow 1 ulp against long
double; f32 against the exact value: exp 1.03, log 0.81, tanh 1.86 ulp, sin and cos
correctly rounded but for rare double roundings.
Special values follow C99/numpy: overflow to inf, gradual underflow through
subnormals to 0, NaN propagates, ±inf, -0.0 kept by tanh and sin.

- exp: clamp x to [-746, 710]; k = round(x/ln2) (magic-number rounding, one FMA),
  r = x - k*ln2 with a two-part ln2 and FMA; e^r = 1 + r + r^2 P(r) (degree 10,
  truncation error 0.003 ulp); scale by 2^k as two exponent-field multiplications
  2^(k>>1) * 2^(k - (k>>1)) so that subnormal results and overflow round once.
- The loops calling the kernels are bound by the kernels' dependency chains (the
  out-of-order window holds about two of them), not by their op counts: they get an
  interleave count (``abi.LOOP_INTERLEAVE``), and the kernels keep their chains short
  (W1 on AVX2, CPU time: the degree-10 polynomial and the rounding by one FMA took
  the forward from 4.1 to 3.6 ms and the gradient from 4.4 to 3.8 ms; Horner's scheme
  instead of Estrin's is 13 % slower).
- log: scale subnormals by 2^54; split x = 2^k m, m in [sqrt(2)/2, sqrt(2));
  f = m - 1, s = f/(2+f), log(1+f) = f - (f^2/2 - s (f^2/2 + R(s^2))) (fdlibm's
  form, our own coefficients); k*ln2 in two parts.
- tanh: -u/(2+u) with u = expm1(-2|x|) = 2^k (e^r - 1) + (2^k - 1) (exp's reduction
  and polynomial, one FMA to rebuild: no cancellation for small |x|), |x| clamped to
  40; the sign is restored with copysign.
- sin/cos: k = round(x*2/pi), r = x - k*pi/2 with a 4-part pi/2 and FMA (the
  first step is exact), then sin/cos polynomials of degree 15/16 chosen by k mod 4.
  For |x| >= 2^30, inf and NaN the result is libm's, through a helper
  ``@irt_vm_{sin,cos}_big`` whose ``vector-function-abi-variant`` versions
  (2/4/8/16 lanes) call libm only when a lane needs it: the loop still vectorizes
  (a plain call or branch to ``llvm.sin`` would be widened and scalarized), and
  huge arguments stay exact.
- pow: exp(y * log|x|) with log|x| as a double-double (~2^-64 relative: s and
  (2/3)s^3 in double-double) and the product's low part fed into exp's reduced
  argument: 1 ulp measured, even for results near overflow. Fast path: x finite
  and nonzero, |y| < 2^50, y integral when x < 0 (sign from y's parity); all other
  cases (zeros, infinities, NaN, huge y, negative x with fractional y) are libm's
  pow through the vector helper ``@irt_vm_pow_big(x, y, needed)``.
- logistic is lowered by tensor-to-loop as 1/(1+exp(-x)), so it uses the fast
  exp (2 ulp in f64).
- expm1: exp's reduction with r exact and its low part kept apart; (2^k - 1) + 2^k r
  by a fast two-sum, the small terms added once: no error magnified by 2^k.
- log1p: log(u) + (x - (u - 1))/u with u = 1 + x rounded.
- tan: sin's reduction as a double-double, sin r and cos r as double-doubles, their
  quotient with one correction step; |x| >= 2^30, inf, NaN through a libm helper as sin.
- atan: fdlibm's five argument ranges (the range picks the constants of one
  division), a degree-21 odd polynomial, double-double offsets; atan2: the same on
  min(|x|,|y|)/max(|x|,|y|), placed in its octant by one selected double-double offset.
- erf: x + x P(x^2) below 1; above, 1 - e^(-x^2) erfcx(x) with x^2 a double-double
  into exp's reduction and erfcx a polynomial in (x - 3)/(x + 3); both computed, one
  selected.
Measured on dense samples (``test_vector_math_more.py``): 1 ulp in f64 against numpy
(math.erf for erf); the f32 results, computed in f64, equal numpy's f64 rounded to f32.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    Float32Type, Float64Type, FloatAttr, IntegerAttr, ModuleOp, f32, f64, i1, i32, i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.abi import KERNEL_PREFIX
from irtoolkit.classtest import instance_test
from irtoolkit.passes.lowering.to_llvm.common import Lowering, become, call_properties

# False: expand_math_intrinsics keeps the libm intrinsic calls (debugging, comparisons).
ENABLED = True

# ----------------------------------------------------------------------------- constants
# Polynomials fitted by Chebyshev interpolation in 80-150-digit arithmetic (mpmath).
# exp(r) = 1 + r + r^2 * EXP(r),   |r| <= 0.3467 (EXP of degree 10: 0.003 ulp of
# truncation error, relative to e^r; degree 9 would be 0.15 ulp)
_EXP = (0.5, 0.1666666666666667, 0.04166666666666667, 0.00833333333332612,
        0.0013888888888883737, 0.00019841269874873975, 2.480158732558584e-05,
        2.755725533255441e-06, 2.7557273594799413e-07, 2.510524515390137e-08,
        2.0914707069612355e-09)
# tanh(x) = x + x^3 * TANH(x^2),   |x| <= 0.5625
_TANH = (-0.3333333333333333, 0.13333333333332392, -0.0539682539670594,
         0.021869488476962563, -0.008863234021529514, 0.003592105532132769,
         -0.0014556239774192678, 0.0005887537111834804, -0.00023410556936672797,
         8.426522203958066e-05, -2.0026740085317684e-05)
# log(1+f) = 2s + s * z * LOG(z),   s = f/(2+f), z = s^2 <= 0.02945
_LOG = (0.666666666666667, 0.3999999999989925, 0.2857142862609121, 0.22222211115908194,
        0.18182890501052568, 0.15331675878950865, 0.14617014706712986)
# sin(r) = r + r^3 SIN(r^2);  cos(r) = 1 - r^2/2 + r^4 COS(r^2),   |r| <= 1.002 pi/4
_SIN = (-0.16666666666666666, 0.008333333333333331, -0.00019841269841264968,
        2.755731921926441e-06, -2.5052106206531682e-08, 1.605852751943773e-10,
        -7.586455940017973e-13)
_COS = (0.041666666666666664, -0.0013888888888888887, 2.4801587301584594e-05,
        -2.755731922136126e-07, 2.0876755776671767e-09, -1.1470458608341428e-11,
        4.745737811425911e-14)

# log m = 2s + (2/3) s^3 + s^5 * LOG_Q2(s^2)   (double-double log of pow)
_LOG_Q2 = (0.4, 0.2857142857142937, 0.22222222221654792, 0.18181818335640948,
           0.15384594936009183, 0.13334806135371396, 0.11706197743899396,
           0.11723582151167529)
_C3 = (0.6666666666666666, 3.700743415417188e-17)  # 2/3 as a double-double

_LOG2E = 1.4426950408889634
_LN2 = (0.6931471805599453, 2.3190468138462996e-17)
_LN2_HI, _LN2_LO = 0.6931471803691238, 1.9082149292723212e-10  # hi has 32 significant bits
_TWO_OVER_PI = 0.6366197723675814
_PIO2 = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33,
         5.562271104316826e-50)
_MAGIC = 6755399441055744.0  # 1.5 * 2^52: x + MAGIC rounds x to an integer (|x| < 2^51)
_MAGIC_BITS = 0x4338000000000000
_SQRT1_2_BITS = 0x3FE6A09E667F3BCD
_SIN_LIMIT = 2.0 ** 30
_INF = float("inf")
_NAN = float("nan")


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _bits32(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


class _B:
    """Emits scalar llvm-dialect float ops (f64 with i64 bit patterns, or f32 with
    i32 ones) before the op being lowered."""

    def __init__(self, rw: Lowering, single: bool = False):
        self.rw = rw
        self._c: dict = {}
        self.single = single
        self.ft = f32 if single else f64
        self.it = i32 if single else i64
        self.suffix = "f32" if single else "f64"
        self.mant_bits = 23 if single else 52
        self.bias = 127 if single else 1023
        self.magic = 12582912.0 if single else _MAGIC  # 1.5 * 2^mant_bits
        self.magic_bits = 0x4B400000 if single else _MAGIC_BITS

    def bits(self, v: float) -> int:
        return _bits32(v) if self.single else _bits(v)

    def c(self, v: float) -> SSAValue:
        key = ("f", self.bits(v))
        if key not in self._c:
            if v != v or v in (_INF, -_INF):  # spell non-finite constants as bit patterns
                self._c[key] = self.bitcast_f(self.ci(self.bits(v)))
            else:
                self._c[key] = self.rw.emit(llvm.ConstantOp(FloatAttr(v, self.ft), self.ft)).results[0]
        return self._c[key]

    def ci(self, v: int) -> SSAValue:
        width = 32 if self.single else 64
        if v >= 1 << (width - 1):
            v -= 1 << width
        key = ("i", v)
        if key not in self._c:
            self._c[key] = self.rw.emit(llvm.ConstantOp(IntegerAttr(v, self.it), self.it)).results[0]
        return self._c[key]

    def _e(self, op: Operation) -> SSAValue:
        return self.rw.emit(op).results[0]

    def add(self, a, b): return self._e(llvm.FAddOp(a, b))
    def sub(self, a, b): return self._e(llvm.FSubOp(a, b))
    def mul(self, a, b): return self._e(llvm.FMulOp(a, b))
    def div(self, a, b): return self._e(llvm.FDivOp(a, b))
    def iadd(self, a, b): return self._e(llvm.AddOp(a, b))
    def isub(self, a, b): return self._e(llvm.SubOp(a, b))
    def shl(self, a, b): return self._e(llvm.ShlOp(a, b))
    def ashr(self, a, b): return self._e(llvm.AShrOp(a, b))
    def iand(self, a, b): return self._e(llvm.AndOp(a, b))
    def ixor(self, a, b): return self._e(llvm.XOrOp(a, b))
    def bitcast_i(self, a): return self._e(llvm.BitcastOp(a, self.it))
    def bitcast_f(self, a): return self._e(llvm.BitcastOp(a, self.ft))
    def fcmp(self, pred: str, a, b): return self._e(llvm.FCmpOp(a, b, pred))
    def icmp_eq(self, a, b):
        return self._e(llvm.ICmpOp(a, b, IntegerAttr(0, i64)))  # predicate 0 = eq
    def select(self, c, a, b): return self._e(llvm.SelectOp(c, a, b))

    def intr(self, name: str, *args: SSAValue) -> SSAValue:
        return self.rw.intrinsic(f"llvm.{name}.{self.suffix}", list(args), self.ft)  # type: ignore[return-value]

    def fma(self, a, b, c): return self.intr("fma", a, b, c)

    def horner(self, x: SSAValue, coeffs) -> SSAValue:
        acc = self.c(coeffs[-1])
        for cf in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.c(cf))
        return acc

    def estrin(self, x: SSAValue, coeffs) -> SSAValue:
        """sum c_i x^i by Estrin's scheme: a few more multiplications than Horner, but a
        dependency chain of depth ~log2(n) instead of n (the kernels are latency-bound)."""
        terms = [self.c(c) for c in coeffs]
        xp = x
        while len(terms) > 1:
            nxt = [self.fma(terms[i + 1], xp, terms[i]) for i in range(0, len(terms) - 1, 2)]
            if len(terms) % 2:
                nxt.append(terms[-1])
            terms = nxt
            if len(terms) > 1:
                xp = self.mul(xp, xp)
        return terms[0]

    def round_int(self, x: SSAValue) -> SSAValue:
        """x rounded to the nearest integer (ties to even), |x| < 2^(mant_bits-1)."""
        return self.sub(self.add(x, self.c(self.magic)), self.c(self.magic))

    def shifted_product(self, x: SSAValue, c: float) -> SSAValue:
        """x * c + 1.5 * 2^mant_bits by one FMA: x * c rounded to an integer k (the
        product exact before that rounding), held in the low bits, |x c| < 2^(mant_bits-1).
        One FMA instead of a multiplication and an addition: the loops calling the
        kernels are bound by their dependency chains."""
        return self.fma(x, self.c(c), self.c(self.magic))

    def round_mul(self, x: SSAValue, c: float) -> SSAValue:
        """x * c rounded to the nearest integer, as a float (see ``shifted_product``)."""
        return self.sub(self.shifted_product(x, c), self.c(self.magic))

    def round_mul_both(self, x: SSAValue, c: float) -> tuple[SSAValue, SSAValue]:
        """x * c rounded to the nearest integer k, as a float and as an integer, both
        from one ``shifted_product`` (``int_of(k)`` would add the magic number again)."""
        shifted = self.shifted_product(x, c)
        return self.sub(shifted, self.c(self.magic)), self.int_of_shifted(shifted)

    def int_of_shifted(self, shifted: SSAValue) -> SSAValue:
        """The integer k held by ``shifted`` = k + 1.5 * 2^mant_bits."""
        return self.isub(self.bitcast_i(shifted), self.ci(self.magic_bits))

    def scale_pow2(self, e: SSAValue, ki: SSAValue) -> SSAValue:
        """e * 2^ki as e * 2^k1 * 2^(ki - k1), k1 = ki >> 1: two normal factors, so
        that subnormal results and overflow round once (multiplications, not additions
        to e's exponent field: a NaN stays a NaN whatever its payload made of ki)."""
        k1 = self.ashr(ki, self.ci(1))
        return self.mul(self.mul(e, self.pow2_int(k1)), self.pow2_int(self.isub(ki, k1)))

    def int_of(self, k: SSAValue) -> SSAValue:
        """The integer value of an integral float ``k`` (|k| < 2^(mant_bits-1))."""
        return self.int_of_shifted(self.add(k, self.c(self.magic)))

    def float_of(self, ki: SSAValue) -> SSAValue:
        """The float value of an integer ``ki`` (|ki| < 2^(mant_bits-1))."""
        return self.sub(self.bitcast_f(self.iadd(ki, self.ci(self.magic_bits))), self.c(self.magic))

    def pow2(self, k: SSAValue) -> SSAValue:
        """2^k for an integral float ``k`` in the normal exponent range."""
        return self.pow2_int(self.int_of(k))

    def pow2_int(self, ki: SSAValue) -> SSAValue:
        """2^ki for an integer ``ki`` in the normal exponent range."""
        return self.bitcast_f(self.shl(self.iadd(ki, self.ci(self.bias)), self.ci(self.mant_bits)))


# ----------------------------------------------------------------------------- kernels


def exp_f64(b: _B, x: SSAValue, lo: SSAValue | None = None) -> SSAValue:
    """e^x, or e^(x + lo) for a double-double argument (|lo| <= ulp(x))."""
    # Clamp (NaN passes through: ordered compares are false).
    over = b.fcmp("ogt", x, b.c(710.0))
    under = b.fcmp("olt", x, b.c(-746.0))
    x = b.select(over, b.c(710.0), x)
    x = b.select(under, b.c(-746.0), x)
    k, ki = b.round_mul_both(x, _LOG2E)  # k = round(x / ln2)
    nk = b._e(llvm.FNegOp(k))
    r = b.fma(nk, b.c(_LN2[0]), x)
    r = b.fma(nk, b.c(_LN2[1]), r)
    if lo is not None:  # a clamped x drops its low part
        lo = b.select(over, b.c(0.0), b.select(under, b.c(0.0), lo))
        r = b.add(r, lo)
    p = b.estrin(r, _EXP)
    e = b.add(b.c(1.0), b.fma(p, b.mul(r, r), r))
    return b.scale_pow2(e, ki)


def _log_reduce(b: _B, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """x = m * 2^k with m in [sqrt(1/2), sqrt(2)) and k a float (subnormals scaled first)."""
    tiny = b.fcmp("olt", x, b.c(2.2250738585072014e-308))
    xs = b.select(tiny, b.mul(x, b.c(2.0 ** 54)), x)
    kbias = b.select(tiny, b.c(-54.0), b.c(0.0))
    u = b.isub(b.bitcast_i(xs), b.ci(_SQRT1_2_BITS))
    ki = b.ashr(u, b.ci(52))
    m = b.bitcast_f(b.isub(b.bitcast_i(xs), b.shl(ki, b.ci(52))))
    k = b.add(b.sub(b.bitcast_f(b.iadd(ki, b.ci(_MAGIC_BITS))), b.c(_MAGIC)), kbias)
    return m, k


def log_f64(b: _B, x: SSAValue) -> SSAValue:
    m, k = _log_reduce(b, x)
    f = b.sub(m, b.c(1.0))
    s = b.div(f, b.add(b.c(2.0), f))
    z = b.mul(s, s)
    R = b.mul(z, b.horner(z, _LOG))
    hfsq = b.mul(b.c(0.5), b.mul(f, f))
    # k*ln2_hi - ((hfsq - (s*(hfsq+R) + k*ln2_lo)) - f)
    t = b.fma(s, b.add(hfsq, R), b.mul(k, b.c(_LN2_LO)))
    res = b.add(b.mul(k, b.c(_LN2_HI)), b.sub(f, b.sub(hfsq, t)))
    res = b.select(b.fcmp("oeq", x, b.c(_INF)), x, res)
    res = b.select(b.fcmp("ult", x, b.c(0.0)), b.c(_NAN), res)  # negative or NaN
    res = b.select(b.fcmp("uno", x, x), x, res)
    return b.select(b.fcmp("oeq", x, b.c(0.0)), b.c(-_INF), res)


def tanh_f64(b: _B, x: SSAValue) -> SSAValue:
    """tanh |x| = -u / (2 + u) with u = expm1(-2|x|) (no cancellation for any |x|:
    one exp-like kernel and a division, no second polynomial)."""
    a = b.intr("fabs", x)
    # |x| clamped so that 2^k stays normal (NaN passes: ordered compares are false)
    ac = b.select(b.fcmp("ogt", a, b.c(40.0)), b.c(40.0), a)
    y = b.mul(ac, b.c(-2.0))  # exact; y in [-80, 0]
    # k = round(y / ln2) from |x| (y * log2e = |x| * (-2 log2e) exactly): the
    # multiplication by -2 is off the dependency chain
    k, ki = b.round_mul_both(ac, -2.0 * _LOG2E)
    nk = b._e(llvm.FNegOp(k))
    r = b.fma(nk, b.c(_LN2[0]), y)
    r = b.fma(nk, b.c(_LN2[1]), r)
    em = b.fma(b.estrin(r, _EXP), b.mul(r, r), r)  # e^r - 1
    s = b.pow2_int(ki)  # 2^k, k in [-116, 0]
    # e^y - 1 = 2^k em + (2^k - 1) = uh + ul: both terms exact, |2^k - 1| >= |2^k em|
    # or 2^k - 1 = 0, so a fast two-sum gives the exact sum as a double-double
    sm1 = b.sub(s, b.c(1.0))
    p = b.mul(s, em)
    uh = b.add(sm1, p)
    ul = b.add(b.sub(sm1, uh), p)
    # tanh |x| = -u / (2 + u): q = -uh / d with d + dl = 2 + uh exactly, then one
    # correction step: -u = q (d + dl) + rem, t = q + rem / (d + dl), 1/d ~ (1 + q)/2
    nuh = b._e(llvm.FNegOp(uh))
    d = b.add(uh, b.c(2.0))
    dl = b.add(b.add(b.sub(b.c(2.0), d), uh), ul)
    q = b.div(nuh, d)
    nq = b._e(llvm.FNegOp(q))
    rem = b.sub(b.fma(nq, dl, b.fma(nq, d, nuh)), ul)
    res = b.fma(rem, b.fma(q, b.c(0.5), b.c(0.5)), q)
    return b.intr("copysign", res, x)  # tanh is odd; keeps tanh(-0.0) = -0.0


# ----------------------------------------------------------------------------- f32 kernels
# Computed in f32 (16 lanes per AVX-512 vector, shorter polynomials): 2-3x faster
# than through f64, within 2 ulp (measured: test_vector_math.py). Taylor
# coefficients: on the reduced ranges below their truncation error is < 2^-27.

# e^r - 1 = r + r^2 * EXP32(r),   |r| <= ln2/2
_EXP32 = (1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040)
# log(1+f) = f - f^2/2 + s (f^2/2 + z * LOG32(z)),   s = f/(2+f), z = s^2 <= 0.0295
_LOG32 = (2 / 3, 2 / 5, 2 / 7, 2 / 9, 2 / 11)
_LN2_32 = (0.693359375, -2.12194440e-4)  # hi has 11 significant bits: k * hi is exact
_SQRT1_2_BITS32 = 0x3F3504F3
_FLT_MIN = 1.1754943508222875e-38


def _expm1_reduced32(b: _B, y: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(k as an integer, e^r - 1) with y = k ln2 + r, k integral, |r| <= ln2/2 (f32)."""
    k, ki = b.round_mul_both(y, _LOG2E)
    nk = b._e(llvm.FNegOp(k))
    r = b.fma(nk, b.c(_LN2_32[0]), y)
    r = b.fma(nk, b.c(_LN2_32[1]), r)
    return ki, b.fma(b.horner(r, _EXP32), b.mul(r, r), r)


def exp_f32(b: _B, x: SSAValue) -> SSAValue:
    # clamp (NaN passes): e^89 overflows, e^-104 underflows to 0
    x = b.select(b.fcmp("ogt", x, b.c(89.0)), b.c(89.0), x)
    x = b.select(b.fcmp("olt", x, b.c(-104.0)), b.c(-104.0), x)
    ki, em = _expm1_reduced32(b, x)
    e = b.add(b.c(1.0), em)
    return b.scale_pow2(e, ki)


def tanh_f32(b: _B, x: SSAValue) -> SSAValue:
    """tanh |x| = -u / (2 + u), u = expm1(-2|x|) = 2^k (e^r - 1) + (2^k - 1)."""
    a = b.intr("fabs", x)
    ac = b.select(b.fcmp("ogt", a, b.c(10.0)), b.c(10.0), a)  # tanh 10 = 1 in f32
    ki, em = _expm1_reduced32(b, b.mul(ac, b.c(-2.0)))
    s = b.pow2_int(ki)  # k in [-29, 0]
    u = b.fma(s, em, b.sub(s, b.c(1.0)))
    # q = -u / d with d + dl = 2 + u exactly (fast two-sum), then one correction
    # step: rem = -u - q (d + dl), t = q + rem / (2 + u) with 1 / (2 + u) = (1 + t) / 2
    nu = b._e(llvm.FNegOp(u))
    d = b.add(u, b.c(2.0))
    dl = b.add(b.sub(b.c(2.0), d), u)
    q = b.div(nu, d)
    nq = b._e(llvm.FNegOp(q))
    rem = b.fma(nq, dl, b.fma(nq, d, nu))
    res = b.fma(rem, b.fma(q, b.c(0.5), b.c(0.5)), q)
    return b.intr("copysign", res, x)  # tanh is odd; keeps tanh(-0.0) = -0.0


def log_f32(b: _B, x: SSAValue) -> SSAValue:
    tiny = b.fcmp("olt", x, b.c(_FLT_MIN))
    xs = b.select(tiny, b.mul(x, b.c(2.0 ** 25)), x)
    kbias = b.select(tiny, b.c(-25.0), b.c(0.0))
    u = b.isub(b.bitcast_i(xs), b.ci(_SQRT1_2_BITS32))
    ki = b.ashr(u, b.ci(23))
    m = b.bitcast_f(b.isub(b.bitcast_i(xs), b.shl(ki, b.ci(23))))  # in [sqrt(1/2), sqrt(2))
    k = b.add(b.float_of(ki), kbias)
    f = b.sub(m, b.c(1.0))
    s = b.div(f, b.add(b.c(2.0), f))
    z = b.mul(s, s)
    R = b.mul(z, b.horner(z, _LOG32))
    hfsq = b.mul(b.c(0.5), b.mul(f, f))
    t = b.fma(s, b.add(hfsq, R), b.mul(k, b.c(_LN2_32[1])))
    res = b.add(b.mul(k, b.c(_LN2_32[0])), b.sub(f, b.sub(hfsq, t)))
    res = b.select(b.fcmp("oeq", x, b.c(_INF)), x, res)
    res = b.select(b.fcmp("ult", x, b.c(0.0)), b.c(_NAN), res)  # negative or NaN
    res = b.select(b.fcmp("uno", x, x), x, res)
    return b.select(b.fcmp("oeq", x, b.c(0.0)), b.c(-_INF), res)


def _sincos_f64(b: _B, x: SSAValue, cosine: bool) -> SSAValue:
    a = b.intr("fabs", x)
    ok = b.fcmp("olt", a, b.c(_SIN_LIMIT))
    xr = b.select(ok, x, b.c(0.0))  # keep the fast path finite; result replaced below
    k, q = b.round_mul_both(xr, _TWO_OVER_PI)
    nk = b._e(llvm.FNegOp(k))
    r = xr
    for p in _PIO2:
        r = b.fma(nk, b.c(p), r)
    z = b.mul(r, r)
    # sin r has the sign of r (keeps sin(-0.0) = -0.0)
    sin_r = b.intr("copysign", b.fma(b.mul(r, z), b.horner(z, _SIN), r), r)
    hz = b.mul(b.c(0.5), z)
    w = b.sub(b.c(1.0), hz)
    # cos r = w + (((1 - w) - hz) + z^2 C(z))   (fdlibm's compensated form)
    cos_r = b.add(w, b.fma(b.mul(z, z), b.horner(z, _COS), b.sub(b.sub(b.c(1.0), w), hz)))
    if cosine:
        q = b.iadd(q, b.ci(1))
    odd = b.icmp_eq(b.iand(q, b.ci(1)), b.ci(1))
    v = b.select(odd, cos_r, sin_r)
    sign = b.shl(b.iand(q, b.ci(2)), b.ci(62))  # quadrants 2, 3 negate
    v = b.bitcast_f(b.ixor(b.bitcast_i(v), sign))
    if not cosine:  # sin(±0) = ±0 (the reduction may turn -0 into +0)
        v = b.select(b.fcmp("oeq", x, b.c(0.0)), x, v)
    # Huge |x|, inf, NaN: libm through a helper with vector variants (see
    # add_vector_helpers) so the loop still vectorizes; it runs libm only when a lane needs it.
    name = _HELPERS_BY_FN["cos" if cosine else "sin"]
    _declare_helper(b.rw.op, name)
    slow = b.rw.call(name, [x], f64)
    return b.select(ok, v, slow)


def sin_f64(b: _B, x: SSAValue) -> SSAValue:
    return _sincos_f64(b, x, False)


def cos_f64(b: _B, x: SSAValue) -> SSAValue:
    return _sincos_f64(b, x, True)


def _two_sum(b: _B, a: SSAValue, c: SSAValue) -> tuple[SSAValue, SSAValue]:
    s = b.add(a, c)
    bb = b.sub(s, a)
    return s, b.add(b.sub(a, b.sub(s, bb)), b.sub(c, bb))


def _fast_two_sum(b: _B, a: SSAValue, c: SSAValue) -> tuple[SSAValue, SSAValue]:
    """a + c as a double-double (s, e), exactly, when |a| >= |c| (or a = 0)."""
    s = b.add(a, c)
    return s, b.add(b.sub(a, s), c)


def _log_dd(b: _B, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """log(x) as a double-double (hi, lo) for finite x > 0 (relative error ~2^-64)."""
    m, k = _log_reduce(b, x)
    one = b.c(1.0)
    f = b.sub(m, one)  # exact
    t, t_lo = _two_sum(b, m, one)
    # s = f / (t + t_lo) as s + s_lo
    s = b.div(f, t)
    s_lo = b.div(b.sub(b.fma(b._e(llvm.FNegOp(s)), t, f), b.mul(s, t_lo)), t)
    # log m = 2 atanh(s) = 2s + (2/3) s^3 + s^5 Q(s^2)
    s2 = b.mul(s, s)
    s2_lo = b.fma(s, s, b._e(llvm.FNegOp(s2)))
    s3 = b.mul(s2, s)
    s3_lo = b.add(b.fma(s2, s, b._e(llvm.FNegOp(s3))),
                  b.add(b.mul(s2_lo, s), b.mul(b.mul(b.c(3.0), s2), s_lo)))
    t3 = b.mul(b.c(_C3[0]), s3)
    t3_lo = b.add(b.fma(b.c(_C3[0]), s3, b._e(llvm.FNegOp(t3))),
                  b.add(b.mul(b.c(_C3[0]), s3_lo), b.mul(b.c(_C3[1]), s3)))
    rest = b.mul(b.mul(s3, s2), b.horner(s2, _LOG_Q2))
    two_s = b.add(s, s)
    h1 = b.add(two_s, t3)
    h1_lo = b.sub(t3, b.sub(h1, two_s))  # |2s| >= |t3|
    lo1 = b.add(b.add(h1_lo, b.add(s_lo, s_lo)), b.add(t3_lo, rest))
    hi, hi_lo = _two_sum(b, b.mul(k, b.c(_LN2_HI)), h1)  # k*ln2_hi is exact
    lo = b.add(hi_lo, b.fma(k, b.c(_LN2_LO), lo1))
    h = b.add(hi, lo)
    return h, b.sub(lo, b.sub(h, hi))


def pow_f64(b: _B, x: SSAValue, y: SSAValue) -> SSAValue:
    ax = b.intr("fabs", x)
    ay = b.intr("fabs", y)
    # fast path: x finite and nonzero, |y| < 2^50, and y an integer when x < 0;
    # everything else (zeros, infinities, NaN, huge y, x < 0 with y not integral)
    # is libm's, through the vector helper.
    fin = b._e(llvm.AndOp(b.fcmp("ogt", ax, b.c(0.0)), b.fcmp("olt", ax, b.c(_INF))))
    fin = b._e(llvm.AndOp(fin, b.fcmp("olt", ay, b.c(2.0 ** 50))))
    yr = b.select(fin, y, b.c(0.0))
    yi = b.round_int(yr)
    neg = b.fcmp("olt", x, b.c(0.0))
    ok_sign = b._e(llvm.OrOp(b._e(llvm.XOrOp(neg, b.rw.const_int(1, i1))), b.fcmp("oeq", yi, yr)))
    fast = b._e(llvm.AndOp(fin, ok_sign))
    axr = b.select(fast, ax, b.c(1.0))
    h, l = _log_dd(b, axr)
    p = b.mul(yr, h)
    p_lo = b.fma(yr, l, b.fma(yr, h, b._e(llvm.FNegOp(p))))
    e = exp_f64(b, p, p_lo)
    odd = b.icmp_eq(b.iand(b.int_of(yi), b.ci(1)), b.ci(1))
    flip = b._e(llvm.AndOp(neg, odd))
    e = b.select(flip, b._e(llvm.FNegOp(e)), e)
    _declare_helper(b.rw.op, "irt_vm_pow_big", 3)
    need = b.select(fast, b.c(0.0), b.c(1.0))
    slow = b.rw.call("irt_vm_pow_big", [x, y, need], f64)
    return b.select(fast, e, slow)


# ----------------------------------------------------------------------------- expm1 log1p tan atan atan2 erf
# f64 kernels (f32 operands computed through them and rounded once). Polynomials
# fitted as above (mpmath.chebyfit, 60 digits).

# atan(t) = t + t z ATAN(z),   z = t^2 <= (7/16)^2
_ATAN = (-0.33333333333333326, 0.1999999999998777, -0.1428571428314864, 0.11111110900560475,
         -0.09090900195560148, 0.07692087348767168, -0.06663239299107136, 0.05847724720645106,
         -0.05033942776485848, 0.03782521866106712, -0.017547235157290005)
# erf(x) = x + x ERF(x^2),   |x| < 1
_ERF = (0.12837916709551256, -0.37612638903183543, 0.11283791670945006, -0.02686617064323777,
        0.0052239776071164225, -0.0008548325975389692, 0.00012055294904839707,
        -1.492473690741966e-05, 1.6447424703317362e-06, -1.6208483801871705e-07,
        1.3720064546777686e-08, -7.795898827002142e-10)
# erfc(x) e^(x^2) = ERFCX(t),   t = (x - 3) / (x + 3),   1 <= x <= 6 (relative error 6e-17)
_ERFCX = (0.17900115118138996, -0.3262335600430372, 0.24560380171233487, -0.15011593650077898,
          0.07166583719747308, -0.024392499318915004, 0.004269136356961225, 0.0007077464666941425,
          -0.0005970624964924544, 4.525434558991009e-05, 6.406279226046039e-05,
          -1.2845780030775907e-05, -8.00978093907608e-06, 2.0135111426447427e-06,
          1.2755818949624478e-06, 3.381355142042904e-09)
# atan's argument reduction by the ratio a = num/den (fdlibm's ranges): from the lower
# bound of each range on, t = (P num + Q den) / (R num + S den) and atan a = off + atan t,
# off a double-double
_ATAN_RANGES = (
    (0.0, (1.0, 0.0, 0.0, 1.0), (0.0, 0.0)),  # t = a
    (7 / 16, (2.0, -1.0, 1.0, 2.0), (0.4636476090008061, 2.2698777452961687e-17)),  # atan(1/2)
    (11 / 16, (1.0, -1.0, 1.0, 1.0), (0.7853981633974483, 3.061616997868383e-17)),  # pi/4
    (19 / 16, (1.0, -1.5, 1.5, 1.0), (0.982793723247329, 1.3903311031230998e-17)),  # atan(3/2)
    (39 / 16, (0.0, -1.0, 1.0, 0.0), (1.5707963267948966, 6.123233995736766e-17)),  # pi/2
)
# atan2's offsets for the first three ranges: (D, sign) with atan2 = D + sign atan t for
# |y| <= |x| (D = off), |y| > |x| (pi/2 - off), x < 0 (pi - off), both (pi/2 + off)
_ATAN2_OFF = {
    (False, False): (((0.0, 0.0), (0.4636476090008061, 2.2698777452961687e-17),
                      (0.7853981633974483, 3.061616997868383e-17)), 1.0),
    (True, False): (((1.5707963267948966, 6.123233995736766e-17),
                     (1.1071487177940904, 9.40447137356638e-17),
                     (0.7853981633974483, 3.061616997868383e-17)), -1.0),
    (False, True): (((3.141592653589793, 1.2246467991473532e-16),
                     (2.677945044588987, 1.5527705369303147e-16),
                     (2.356194490192345, 9.184850993605148e-17)), -1.0),
    (True, True): (((1.5707963267948966, 6.123233995736766e-17),
                    (2.0344439357957027, 2.841996617907152e-17),
                    (2.356194490192345, 9.184850993605148e-17)), 1.0),
}


def expm1_f64(b: _B, x: SSAValue) -> SSAValue:
    """e^x - 1 = 2^k (e^r - 1) + (2^k - 1), one FMA (2^k - 1 exact for k <= 53). x is
    clamped to [-50, 710] (expm1(-50) rounds to -1; 710 overflows); 2^k as 2^min(k, 1023)
    times 1 or 2 so that k = 1024 (x in (709.4, 709.8]) stays finite."""
    xc = b.select(b.fcmp("ogt", x, b.c(710.0)), b.c(710.0), x)  # NaN passes
    xc = b.select(b.fcmp("olt", xc, b.c(-50.0)), b.c(-50.0), xc)
    k = b.round_mul(xc, _LOG2E)
    nk = b._e(llvm.FNegOp(k))
    r = b.fma(nk, b.c(_LN2[0]), xc)  # exact; r + rl is the reduced argument
    rl = b.mul(nk, b.c(_LN2[1]))
    k1 = b.select(b.fcmp("ogt", k, b.c(1023.0)), b.c(1023.0), k)
    s = b.pow2(k1)
    # 2^k (e^(r + rl) - 1) + (2^k - 1) = (2^k - 1) + 2^k r + 2^k (r^2 P(r) + rl e^r):
    # the first two terms are exact and |2^k - 1| >= |2^k r| (or 2^k - 1 = 0), so a fast
    # two-sum keeps their sum's rounding error, which joins the small third term (the
    # errors of r and of the sum are not magnified by 2^k)
    sm1 = b.sub(s, b.c(1.0))
    sr = b.mul(s, r)
    hi, lo = _fast_two_sum(b, sm1, sr)
    p2 = b.mul(b.mul(r, r), b.estrin(r, _EXP))  # e^r - 1 - r
    small = b.fma(rl, b.add(b.add(b.c(1.0), r), p2), p2)  # rl up to 2.4e-14: e^r, not 1 + r
    res = b.mul(b.add(hi, b.fma(s, small, lo)), b.pow2(b.sub(k, k1)))
    return b.select(b.fcmp("oeq", x, b.c(0.0)), x, res)  # expm1(-0.0) = -0.0


def log1p_f64(b: _B, x: SSAValue) -> SSAValue:
    """log(1 + x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the second term
    is the rounding error of u, to first order (u - 1 is exact where it matters)."""
    u = b.add(b.c(1.0), x)
    lg = log_f64(b, u)
    ok = b._e(llvm.AndOp(b.fcmp("ogt", u, b.c(0.0)), b.fcmp("olt", u, b.c(_INF))))
    c = b.div(b.sub(x, b.sub(u, b.c(1.0))), b.select(ok, u, b.c(1.0)))
    res = b.add(lg, b.select(ok, c, b.c(0.0)))
    return b.select(b.fcmp("oeq", x, b.c(0.0)), x, res)  # log1p(-0.0) = -0.0


def tan_f64(b: _B, x: SSAValue) -> SSAValue:
    """sin's reduction x = k pi/2 + r, then tan r = sin r / cos r (k even) or -cos r / sin r
    (k odd), the quotient corrected by one FMA step. |x| >= 2^30, inf, NaN: libm's tan
    through a vector helper, as sin."""
    a = b.intr("fabs", x)
    ok = b.fcmp("olt", a, b.c(_SIN_LIMIT))
    xr = b.select(ok, x, b.c(0.0))
    k, ki = b.round_mul_both(xr, _TWO_OVER_PI)
    nk = b._e(llvm.FNegOp(k))
    # r = rh + rl, a double-double: tan r near a pole magnifies r's rounding error
    r1 = b.fma(nk, b.c(_PIO2[0]), xr)  # exact
    p1 = b.mul(nk, b.c(_PIO2[1]))
    p1_lo = b.fma(nk, b.c(_PIO2[1]), b._e(llvm.FNegOp(p1)))
    rh, e = _two_sum(b, r1, p1)
    rl = b.add(e, b.fma(nk, b.c(_PIO2[3]), b.fma(nk, b.c(_PIO2[2]), p1_lo)))
    z = b.mul(rh, rh)
    # sin r = rh + (rl + rh z S(z)); cos r = w + (((1 - w) - z/2) + z^2 C(z) - rh rl)
    # (each renormalized by a fast two-sum, so that the quotient's first-order correction holds)
    sin_hi, sin_lo = _fast_two_sum(b, rh, b.fma(b.mul(rh, z), b.horner(z, _SIN), rl))
    hz = b.mul(b.c(0.5), z)
    w = b.sub(b.c(1.0), hz)
    cos_tail = b.sub(b.fma(b.mul(z, z), b.horner(z, _COS), b.sub(b.sub(b.c(1.0), w), hz)), b.mul(rh, rl))
    cos_hi, cos_lo = _fast_two_sum(b, w, cos_tail)
    odd = b.icmp_eq(b.iand(ki, b.ci(1)), b.ci(1))
    nh = b.select(odd, cos_hi, sin_hi)
    nl = b.select(odd, cos_lo, sin_lo)
    dh = b.select(odd, b._e(llvm.FNegOp(sin_hi)), cos_hi)
    dl = b.select(odd, b._e(llvm.FNegOp(sin_lo)), cos_lo)
    # (nh + nl) / (dh + dl) = q + ((nh - q dh) + nl - q dl) / dh, nh - q dh exact
    q = b.div(nh, dh)
    nq = b._e(llvm.FNegOp(q))
    v = b.add(q, b.div(b.fma(nq, dl, b.add(b.fma(nq, dh, nh), nl)), dh))
    v = b.select(b.fcmp("oeq", x, b.c(0.0)), x, v)  # tan(-0.0) = -0.0
    name = _HELPERS_BY_FN["tan"]
    _declare_helper(b.rw.op, name)
    return b.select(ok, v, b.rw.call(name, [x], f64))


def _atan_parts(b: _B, num: SSAValue, den: SSAValue, offsets, ranges: int):
    """atan(num/den) - off as one value, and the offset chosen (num, den >= 0 finite, not
    both 0): the range of num/den picks the reduction; ``offsets[i]`` is any tuple of
    values (constants or SSA values) to select along with range i."""
    def val(v):
        return v if isinstance(v, SSAValue) else b.c(v)

    params = [b.c(v) for v in _ATAN_RANGES[0][1]]
    chosen = [val(v) for v in offsets[0]]
    for i in range(1, ranges):
        above = b.fcmp("oge", num, b.mul(b.c(_ATAN_RANGES[i][0]), den))
        params = [b.select(above, b.c(v), p) for v, p in zip(_ATAN_RANGES[i][1], params)]
        chosen = [b.select(above, val(v), c) for v, c in zip(offsets[i], chosen)]
    P, Q, R, S = params
    t = b.div(b.fma(P, num, b.mul(Q, den)), b.fma(R, num, b.mul(S, den)))
    z = b.mul(t, t)
    return b.fma(b.mul(t, z), b.estrin(z, _ATAN), t), chosen


def atan_f64(b: _B, x: SSAValue) -> SSAValue:
    """fdlibm's five ranges (one division, selected constants), a degree-21 odd polynomial,
    the offset added as a double-double; odd, so computed on |x| (inf gives pi/2)."""
    a = b.intr("fabs", x)
    a = b.select(b.fcmp("ogt", a, b.c(1e300)), b.c(1e300), a)  # inf: no 0 * inf in the reduction
    part, (hi, lo) = _atan_parts(b, a, b.c(1.0), [r[2] for r in _ATAN_RANGES], len(_ATAN_RANGES))
    return b.intr("copysign", b.add(hi, b.add(lo, part)), x)


def atan2_f64(b: _B, y: SSAValue, x: SSAValue) -> SSAValue:
    """atan of min(|x|, |y|) / max(|x|, |y|) (three ranges), placed in its octant by one
    double-double offset and a sign: pi/2 - ., pi - ., pi/2 + . as C99 atan2; the sign of
    y restored by copysign. Zeros and infinities as C99 (0/0 and finite/inf read as 0,
    inf/inf as 1)."""
    ay, ax = b.intr("fabs", y), b.intr("fabs", x)
    swap = b.fcmp("ogt", ay, ax)
    num = b.select(swap, ax, ay)
    den = b.select(swap, ay, ax)
    both_inf = b._e(llvm.AndOp(b.fcmp("oeq", ay, b.c(_INF)), b.fcmp("oeq", ax, b.c(_INF))))
    num = b.select(both_inf, b.c(1.0), num)
    den = b.select(both_inf, b.c(1.0), den)
    one_inf = b.fcmp("oeq", den, b.c(_INF))  # finite / inf reads as 0 / 1 (no 0 * inf)
    num = b.select(one_inf, b.c(0.0), num)
    den = b.select(b._e(llvm.OrOp(one_inf, b.fcmp("oeq", den, b.c(0.0)))), b.c(1.0), den)
    neg = b.fcmp("olt", b.intr("copysign", b.c(1.0), x), b.c(0.0))  # x < 0 or x = -0.0
    # the offsets of the four octant cases, per range: (hi, lo, sign)
    offsets = []
    for i in range(3):
        hi = lo = sign = None
        for (sw, ng), (dd, sg) in _ATAN2_OFF.items():
            cond = b._e(llvm.AndOp(swap if sw else b._e(llvm.XOrOp(swap, b.rw.const_int(1, i1))),
                                   neg if ng else b._e(llvm.XOrOp(neg, b.rw.const_int(1, i1)))))
            hi = b.c(dd[i][0]) if hi is None else b.select(cond, b.c(dd[i][0]), hi)
            lo = b.c(dd[i][1]) if lo is None else b.select(cond, b.c(dd[i][1]), lo)
            sign = b.c(sg) if sign is None else b.select(cond, b.c(sg), sign)
        offsets.append((hi, lo, sign))
    part, (hi, lo, sign) = _atan_parts(b, num, den, offsets, 3)
    res = b.add(hi, b.fma(sign, part, lo))
    res = b.intr("copysign", res, y)
    return b.select(b.fcmp("uno", x, y), b.add(x, y), res)


def erf_f64(b: _B, x: SSAValue) -> SSAValue:
    """|x| < 1: x + x ERF(x^2) (one rounding after the small term). Else 1 - e^(-x^2) erfcx(|x|) with x^2 as a double-double into
    exp's reduced argument and erfcx a polynomial in (|x| - 3)/(|x| + 3), |x| clamped to
    6 (erf 6 = 1 in f64); sign restored by copysign. Both branches computed, one selected."""
    a = b.intr("fabs", x)
    small = b.fma(x, b.horner(b.mul(x, x), _ERF), x)
    at = b.select(b.fcmp("ogt", a, b.c(6.0)), b.c(6.0), a)  # NaN passes
    at = b.select(b.fcmp("olt", at, b.c(1.0)), b.c(1.0), at)
    t = b.div(b.sub(at, b.c(3.0)), b.add(at, b.c(3.0)))
    h = b.mul(at, at)
    lo = b.fma(at, at, b._e(llvm.FNegOp(h)))
    e = exp_f64(b, b._e(llvm.FNegOp(h)), b._e(llvm.FNegOp(lo)))
    tail = b.fma(b._e(llvm.FNegOp(e)), b.estrin(t, _ERFCX), b.c(1.0))
    return b.select(b.fcmp("olt", a, b.c(1.0)), small, b.intr("copysign", tail, x))


# ----------------------------------------------------------------------------- libm helpers

# helper symbol -> (libm function, arity). sin/cos helpers return fn(x) where
# |x| >= 2^30 or x is not finite; the pow helper takes a third "needed" flag
# (nonzero: return pow(x, y)). Elsewhere their result is unused (the caller
# selects its polynomial), so they skip libm: their vector variants call libm
# only when some lane needs it, and the common case costs one vector compare.
HELPERS = {"irt_vm_sin_big": ("sin", 1), "irt_vm_cos_big": ("cos", 1),
           "irt_vm_pow_big": ("pow", 2), "irt_vm_tan_big": ("tan", 1)}
_HELPERS_BY_FN = {v[0]: k for k, v in HELPERS.items()}
_VECTOR_WIDTHS = (2, 4, 8, 16)


def _declare_helper(op: Operation, name: str, arity: int = 1) -> None:
    from irtoolkit.passes.lowering.to_llvm.math import declare_function
    declare_function(op, name, llvm.LLVMFunctionType([f64] * arity, f64))


def add_vector_helpers(module: ModuleOp) -> None:
    """Define the libm helpers that ``module`` declares, with their
    ``vector-function-abi-variant`` vector versions (kept alive until the loop
    vectorizer uses them through ``@llvm.compiler.used``)."""
    from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr, VectorType

    from irtoolkit.passes.lowering.to_llvm.build import (
        PTR, declare, define, function_type, lookup, set_passthrough,
    )

    keep: list[str] = []
    for name, (fn_name, arity) in HELPERS.items():
        fn = lookup(module, name)
        if not isinstance(fn, llvm.FuncOp) or fn.body.blocks:
            continue
        nargs = len(fn.function_type.inputs)
        declare(module, fn_name, function_type([f64] * arity, f64))
        # scalar: never inlined, so the loop vectorizer sees the call and its variants
        _, b = define(module, name, fn.function_type, "internal")
        args = b.args
        if arity == 1:
            needs = b.fcmp("uge", b.intrinsic("llvm.fabs.f64", [args[0]], f64), b.const(_SIN_LIMIT, f64))
        else:
            needs = b.fcmp("une", args[arity], b.const(0.0, f64))
        slow, fast = b.new_block(), b.new_block()
        b.cond_br(needs, slow, fast)
        b.at(fast)
        b.ret(args[0])  # not needed by the caller: skip libm
        b.at(slow)
        b.ret(b.call(fn_name, list(args[:arity]), f64))
        variants = ",".join(f"_ZGV_LLVM_N{n}{'v' * nargs}_{name}({name}_v{n})" for n in _VECTOR_WIDTHS)
        set_passthrough(fn, "noinline", "nounwind", "willreturn", "memory(none)",
                        ("vector-function-abi-variant", variants))
        for n in _VECTOR_WIDTHS:
            vt = VectorType(f64, [n])
            vname = f"{name}_v{n}"
            _, b = define(module, vname, function_type([vt] * nargs, vt), "internal",
                          "noinline", "nounwind")
            keep.append(vname)
            args = b.args
            # does any lane need libm? (fmaximum propagates NaN: NaN lanes need it)
            probe = b.intrinsic(f"llvm.fabs.v{n}f64", [args[0 if arity == 1 else arity]], vt)
            top = b.intrinsic(f"llvm.vector.reduce.fmaximum.v{n}f64", [probe], f64)
            if arity == 1:
                needs = b.fcmp("uge", top, b.const(_SIN_LIMIT, f64))
            else:
                needs = b.fcmp("une", top, b.const(0.0, f64))
            slow, fast = b.new_block(), b.new_block()
            b.cond_br(needs, slow, fast)
            b.at(fast)
            b.ret(args[0])  # no lane needs libm: the caller selects its polynomial everywhere
            b.at(slow)
            lanes = [b.alloca(llvm.LLVMArrayType(n, f64), align=64) for _ in range(arity + 1)]
            for a, mem in zip(args[:arity], lanes):
                b.store(a, mem, align=8)

            def lane(i: SSAValue) -> None:
                ins = [b.load(b.gep(mem, i, f64), f64) for mem in lanes[:arity]]
                b.store(b.call(fn_name, ins, f64), b.gep(lanes[arity], i, f64))

            b.counted_loop(b.const(0, i64), b.const(n, i64), lane)
            b.ret(b.load(lanes[arity], vt, align=8))
    if keep and lookup(module, "llvm.compiler.used") is None:
        module.body.block.add_op(llvm.GlobalOp(
            llvm.LLVMArrayType(len(keep), PTR), "llvm.compiler.used", "appending",
            section="llvm.metadata", value=ArrayAttr([SymbolRefAttr(k) for k in keep])))


# intrinsic base name -> kernel computing in f32 (the others compute f32 in f64)
KERNELS_F32 = {
    "llvm.exp": exp_f32,
    "llvm.log": log_f32,
    "llvm.tanh": tanh_f32,
}

# intrinsic base name -> kernel
KERNELS = {
    "llvm.exp": exp_f64,
    "llvm.log": log_f64,
    "llvm.tanh": tanh_f64,
    "llvm.sin": sin_f64,
    "llvm.cos": cos_f64,
    "llvm.tan": tan_f64,
    "llvm.atan": atan_f64,
}


# two-argument intrinsics
KERNELS2 = {
    "llvm.pow": pow_f64,
    "llvm.atan2": atan2_f64,
}

# libm functions without an LLVM intrinsic (convert-math-to-llvm calls them) -> kernel
LIBM_KERNELS = {"erf": erf_f64, "expm1": expm1_f64, "log1p": log1p_f64}
_LIBM_NAMES = {**{n: n for n in LIBM_KERNELS}, **{n + "f": n for n in LIBM_KERNELS}}


# (asked of every op of the module: isinstance against xDSL's abstract classes is a Python call)
_is_intrinsic_call = instance_test(llvm.CallIntrinsicOp)
_is_call = instance_test(llvm.CallOp)
_is_any_call = instance_test(llvm.CallIntrinsicOp, llvm.CallOp)


def _called(op: Operation) -> tuple[str, str] | None:
    """(function, type suffix) of a call of a math intrinsic (``llvm.exp``, ``f64``) or of
    a libm function that has a kernel (``erff`` -> ``erf``, ``f32``); else None."""
    if _is_intrinsic_call(op):
        # (its result and name read directly: IRDL's accessors decode the definitions)
        if not op.results:
            return None
        base, _, suffix = op.properties["intrin"].data.rpartition(".")
        return base, suffix
    if _is_call(op) and len(op.results) == 1:
        callee = op.callee
        fn = None if callee is None else _LIBM_NAMES.get(callee.string_value())
        t = op.results[0].type
        if fn is not None and isinstance(t, (Float32Type, Float64Type)):
            return fn, "f32" if isinstance(t, Float32Type) else "f64"
    return None


# kernels by arity
_KERNELS_BY_ARITY = {1: {**KERNELS, **LIBM_KERNELS}, 2: KERNELS2}


def _kernel_of(op: Operation, choices: dict | None = None):
    """(kernel, computes in f32, ``_called(op)``, arguments) for a call that has
    one, else None. ``choices``: the kernels chosen so far, by call and types (a
    module's calls are of a few functions: asked once each)."""
    called = _called(op)
    if called is None:
        return None
    args = _args(op)
    t = op.results[0].type
    arg_types = tuple([a.type for a in args])
    if choices is None:
        choice = _choose_kernel(called, t, arg_types)
    else:
        # (types by identity, without hashing them: kept with the choice, so that
        # their ids stay their own)
        key = (called, id(t), *map(id, arg_types))
        found = choices.get(key)
        if found is None:
            found = choices[key] = (_choose_kernel(called, t, arg_types), t, arg_types)
        choice = found[0]
    if not choice:
        return None
    return choice[0], choice[1], called, args


def _choose_kernel(called: tuple[str, str], t, arg_types: tuple) -> tuple | bool:
    """(kernel, computes in f32) for a call of ``called`` of these types, else False."""
    base, suffix = called
    kernel = _KERNELS_BY_ARITY.get(len(arg_types), {}).get(base)
    if kernel is None or suffix not in ("f32", "f64"):
        return False
    if any(a != t for a in arg_types) or not isinstance(t, (Float32Type, Float64Type)):
        return False
    if isinstance(t, Float32Type) and base in KERNELS_F32:
        return KERNELS_F32[base], True
    return kernel, False


def _args(op: Operation) -> list[SSAValue]:
    """The call's arguments: all its operands when it has no operand bundles
    (without the IRDL accessor, which decodes the segment sizes at each use)."""
    bundles = op.properties.get("op_bundle_sizes")
    if bundles is None or not bundles.data.data:  # type: ignore[attr-defined]
        return list(op._operands)  # pyright: ignore[reportPrivateUsage]
    return list(op.args)  # type: ignore[attr-defined]


def expand_call(op: Operation) -> bool:
    """Replace one call of ``llvm.<fn>.f32|f64`` (or of libm's erf, expm1, log1p) by its kernel."""
    found = _kernel_of(op)
    if found is None:
        return False
    kernel, single, _, args = found
    rw = Lowering(op)
    t = args[0].type
    if single:
        rw.replace([kernel(_B(rw, single=True), *args)])
        return True
    b = _B(rw)
    if isinstance(t, Float32Type):
        args = [b._e(llvm.FPExtOp(a, f64)) for a in args]
    res = kernel(b, *args)
    if isinstance(t, Float32Type):
        res = b._e(llvm.FPTruncOp(res, t))
    rw.replace([res])
    return True


def _kernel_function(module: ModuleOp, op: Operation) -> llvm.FuncOp:
    """An internal function of ``module`` computing ``op``'s call by its kernel."""
    from xdsl.ir import Block, Region

    from irtoolkit.passes.lowering.to_llvm.build import set_passthrough

    args = _args(op)
    types = [a.type for a in args]
    rt = op.results[0].type
    body = Block(arg_types=types)
    if isinstance(op, llvm.CallIntrinsicOp):
        call: Operation = llvm.CallIntrinsicOp(op.intrin, list(body.args), rt)
    else:
        call = llvm.CallOp(op.callee, *body.args, return_type=rt)  # type: ignore[attr-defined]
    body.add_ops([call, llvm.ReturnOp(call.results[0])])
    base, suffix = _called(op)  # type: ignore[misc]
    name = f"{KERNEL_PREFIX}{base.removeprefix('llvm.').replace('.', '_')}_{suffix}"
    fn = llvm.FuncOp(name, llvm.LLVMFunctionType(types, rt),
                     llvm.LinkageAttr("internal"), body=Region(body))
    # always inlined: LLVM inlines it before vectorizing, as if each call site had it
    set_passthrough(fn, "alwaysinline")
    module.body.block.add_op(fn)
    expand_call(call)
    return fn


def expand_math_intrinsics(module: ModuleOp) -> int:
    """Replace every math intrinsic call (f32, f64) and libm call that has a kernel
    (``KERNELS``, ``KERNELS2``, ``LIBM_KERNELS``) of an llvm-dialect module by a call
    of its kernel's vectorizable arithmetic, defined
    once per module as an internal function the JIT always inlines (building and
    translating one copy per call site cost first calls 10-25 ms); returns how many."""
    if not ENABLED:
        return 0
    # (function, suffix) -> the name of its kernel function, defined at the first call
    kernels: dict[tuple[str, str], str] = {}
    choices: dict = {}  # (_kernel_of's)
    count = 0
    for op in [o for o in module.walk() if _is_any_call(o)]:
        found = None if op.parent is None else _kernel_of(op, choices)
        if found is None:
            continue
        _, _, key, args = found
        name = kernels.get(key)
        if name is None:
            name = kernels[key] = _kernel_function(module, op).sym_name.data
        # the call becomes a call of the kernel where it stands, of its arguments
        if len(args) != len(op.operands):  # (operand bundles: not passed to the kernel)
            op.operands = args
        become(op, llvm.CallOp, call_properties(name, args, op.results[0].type))
        count += 1
    return count


@dataclass(frozen=True)
class ExpandVectorMathPass(ModulePass):
    """``expand-vector-math``: math intrinsic calls (f32/f64) of the llvm dialect,
    and libm's erf/expm1/log1p, to branch-free arithmetic that LLVM vectorizes, in
    always-inlined kernel functions, plus the libm helpers the kernels call for
    huge or special arguments (a step of ``lower-to-llvm``; ``convert-*-to-llvm``
    alone keeps the readable intrinsic calls)."""

    name = "expand-vector-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_math_intrinsics(op)
        add_vector_helpers(op)
