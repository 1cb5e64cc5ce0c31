"""``convert-math-to-llvm``: math ops to LLVM intrinsics and libm calls.

Most ops become ``llvm.call_intrinsic "llvm.<fn>.<type>"`` (exp, log, tanh, sin,
cos, sqrt, pow, fabs, ...; LLVM expands them or calls libm). Functions LLVM has
no intrinsic for (erf, expm1, log1p, cbrt, acosh, asinh, atanh) call libm
through a bodyless ``llvm.func @erf(f64) -> f64`` declaration (``erff`` for f32),
resolved by the JIT from the process. ``rsqrt`` is ``1 / sqrt``. ``expand-vector-math`` then
replaces exp, log, tanh, sin, cos, tan, atan, atan2, pow, erf, expm1 and log1p
by vectorizable kernels (``vector_math.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xdsl.context import Context
from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerAttr, ModuleOp, i1
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects.math import ClampFOp, IsFiniteOp, IsInfOp, IsNaNOp, IsNormalOp, SinCosOp
from irtoolkit.passes.lowering.to_llvm.common import (
    Lowering,
    apply_handlers,
    intrinsic_suffix,
    lower_to_intrinsic,
)

# op class -> LLVM intrinsic base name (floating point, same types in and out)
_FLOAT_INTRINSICS: dict[type[Operation], str] = {
    math.ExpOp: "llvm.exp",
    math.Exp2Op: "llvm.exp2",
    math.LogOp: "llvm.log",
    math.Log2Op: "llvm.log2",
    math.Log10Op: "llvm.log10",
    math.SinOp: "llvm.sin",
    math.CosOp: "llvm.cos",
    math.TanOp: "llvm.tan",
    math.SinhOp: "llvm.sinh",
    math.CoshOp: "llvm.cosh",
    math.TanhOp: "llvm.tanh",
    math.AsinOp: "llvm.asin",
    math.AcosOp: "llvm.acos",
    math.AtanOp: "llvm.atan",
    math.Atan2Op: "llvm.atan2",
    math.SqrtOp: "llvm.sqrt",
    math.AbsFOp: "llvm.fabs",
    math.PowFOp: "llvm.pow",
    math.FloorOp: "llvm.floor",
    math.CeilOp: "llvm.ceil",
    math.TruncOp: "llvm.trunc",
    math.RoundOp: "llvm.round",
    math.RoundEvenOp: "llvm.roundeven",
    math.CopySignOp: "llvm.copysign",
    math.FmaOp: "llvm.fma",
}

# op class -> libm function (double precision name; `f` suffix for f32)
_LIBM: dict[type[Operation], str] = {
    math.ErfOp: "erf",
    math.ExpM1Op: "expm1",
    math.Log1pOp: "log1p",
    math.CbrtOp: "cbrt",
    math.AcoshOp: "acosh",
    math.AsinhOp: "asinh",
    math.AtanhOp: "atanh",
}

# integer ops -> (intrinsic, takes the `is_zero_poison` i1 flag)
_INT_INTRINSICS: dict[type[Operation], tuple[str, bool]] = {
    math.AbsIOp: ("llvm.abs", True),
    math.CountLeadingZerosOp: ("llvm.ctlz", True),
    math.CountTrailingZerosOp: ("llvm.cttz", True),
    math.CtPopOp: ("llvm.ctpop", False),
}


def lower_float_intrinsic(rw: Lowering, op: Operation) -> None:
    lower_to_intrinsic(rw, _FLOAT_INTRINSICS[type(op)])


def lower_int_intrinsic(rw: Lowering, op: Operation) -> None:
    args = rw.operands()
    t = args[0].type
    name, flag = _INT_INTRINSICS[type(op)]
    if flag:
        args.append(rw.const_int(0, i1))
    rw.replace([rw.intrinsic(f"{name}.{intrinsic_suffix(t)}", args, t)])  # type: ignore[list-item]


def lower_fpowi(rw: Lowering, op: Operation) -> None:
    x, n = rw.operands()
    name = f"llvm.powi.{intrinsic_suffix(x.type)}.{intrinsic_suffix(n.type)}"
    rw.replace([rw.intrinsic(name, [x, n], x.type)])  # type: ignore[list-item]


def lower_rsqrt(rw: Lowering, op: Operation) -> None:
    (x,) = rw.operands()
    t = x.type
    root = rw.intrinsic(f"llvm.sqrt.{intrinsic_suffix(t)}", [x], t)
    one = rw.const_float(1.0, t)
    rw.replace([rw.emit(llvm.FDivOp(one, root)).results[0]])  # type: ignore[arg-type]


def declare_function(op: Operation, name: str, fty: llvm.LLVMFunctionType) -> None:
    """Declare ``name`` (external, bodyless) in ``op``'s module unless it exists."""
    module = op
    while not isinstance(module, ModuleOp):
        parent = module.parent_op()
        if parent is None:
            raise op_error(op, "is not inside a module")
        module = parent
    for existing in module.ops:
        sym = existing.properties.get("sym_name") or existing.attributes.get("sym_name")
        if sym is None or getattr(sym, "data", None) != name:
            continue
        if isinstance(existing, llvm.FuncOp) and existing.function_type == fty \
                and not existing.body.blocks:
            return
        raise op_error(op, f"is lowered to a call of the C function '{name}', but the module "
                           f"defines its own '@{name}'; rename that symbol")
    decl = llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr("external"))
    decl.location = op.location
    module.body.block.add_op(decl)


def lower_libm(rw: Lowering, op: Operation) -> None:
    (x,) = rw.operands()
    t = x.type
    base = _LIBM[type(op)]
    if isinstance(t, Float64Type):
        name = base
    elif isinstance(t, Float32Type):
        name = base + "f"
    else:
        raise op_error(op, f"no libm function for type {t}")
    declare_function(op, name, llvm.LLVMFunctionType([t], t))
    rw.replace([rw.call(name, [x], t)])  # type: ignore[list-item]


def lower_sincos(rw: Lowering, op: Operation) -> None:
    (x,) = rw.operands()
    t, suffix = x.type, intrinsic_suffix(x.type)
    rw.replace([rw.intrinsic(f"llvm.sin.{suffix}", [x], t), rw.intrinsic(f"llvm.cos.{suffix}", [x], t)])  # type: ignore[list-item]


def lower_clampf(rw: Lowering, op: Operation) -> None:
    x, lo, hi = rw.operands()
    t, suffix = x.type, intrinsic_suffix(x.type)
    above = rw.intrinsic(f"llvm.maximum.{suffix}", [x, lo], t)
    rw.replace([rw.intrinsic(f"llvm.minimum.{suffix}", [above, hi], t)])  # type: ignore[list-item]


def _fcmp(rw: Lowering, pred: str, a, b):
    flag = llvm.FCmpPredicateFlag(pred)
    return rw.emit(llvm.FCmpOp(a, b, IntegerAttr(flag.to_int(), 64))).results[0]


def lower_fp_class(rw: Lowering, op: Operation) -> None:
    """isnan: unordered with itself; the others compare |x| with +inf (and the smallest normal)."""
    (x,) = rw.operands()
    t = x.type
    if isinstance(op, IsNaNOp):
        rw.replace([_fcmp(rw, "uno", x, x)])
        return
    mag = rw.intrinsic(f"llvm.fabs.{intrinsic_suffix(t)}", [x], t)
    inf = rw.const_float(float("inf"), t)
    if isinstance(op, IsInfOp):
        rw.replace([_fcmp(rw, "oeq", mag, inf)])
        return
    finite = _fcmp(rw, "one", mag, inf)
    if isinstance(op, IsFiniteOp):
        rw.replace([finite])
        return
    tiny = rw.const_float(float(np.finfo(np.float32 if isinstance(t, Float32Type) else np.float64).tiny), t)
    normal = rw.emit(llvm.AndOp(finite, _fcmp(rw, "oge", mag, tiny))).results[0]
    rw.replace([normal])


HANDLERS: dict = {
    **{cls: lower_float_intrinsic for cls in _FLOAT_INTRINSICS},
    **{cls: lower_int_intrinsic for cls in _INT_INTRINSICS},
    **{cls: lower_libm for cls in _LIBM},
    math.FPowIOp: lower_fpowi,
    math.RsqrtOp: lower_rsqrt,
    SinCosOp: lower_sincos,
    ClampFOp: lower_clampf,
    **{cls: lower_fp_class for cls in (IsFiniteOp, IsInfOp, IsNaNOp, IsNormalOp)},
}


@dataclass(frozen=True)
class ConvertMathToLLVMPass(ModulePass):
    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_handlers(op, HANDLERS)
