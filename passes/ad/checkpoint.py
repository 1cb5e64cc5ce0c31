"""Checkpointing of ``loop.for``: strip-mining before reverse differentiation.

A loop marked ``{autodiff.checkpoint = "sqrt"}`` (or an integer segment
length ``k``), or every active loop under the pass option
``ad{checkpoint=sqrt}``, becomes two nested loops: segments of ``k``
iterations (``k = ceil(sqrt(n))`` for "sqrt"). Reverse differentiation of
the nest stores the carried values once per segment (outer tape, ``n/k``
entries); the reverse sweep of a segment recomputes it forward, storing its
``k`` iterates (inner tape), then runs it backwards. Stored iterates are
O(n/k + k) = O(sqrt n) instead of O(n), and the gradient is the same: the
same operations run on the same values.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, func, math as mathd
from xdsl.dialects.builtin import Float64Type, IntegerAttr, IntegerType, StringAttr, i64
from xdsl.ir import Block, SSAValue

from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.emit import const_int
from irtoolkit.passes.ad.reverse import MAX_TRIP_ATTR

CHECKPOINT_ATTR = "autodiff.checkpoint"


def _loop():
    from irtoolkit.dialects import loop

    return loop


def segment_spec(op, option: str | None):
    """None (no checkpointing), "sqrt", or an int segment length."""
    attr = op.attributes.get(CHECKPOINT_ATTR)
    if attr is None:
        spec = option
    elif isinstance(attr, StringAttr):
        spec = attr.data
    elif isinstance(attr, IntegerAttr):
        spec = attr.value.data
    else:
        raise op_error(op, f"'{CHECKPOINT_ATTR}' must be \"sqrt\" or an integer segment length, got {attr}")
    if spec is None or spec in ("none", "", 0):
        return None
    if isinstance(spec, str):
        if spec == "sqrt":
            return "sqrt"
        if spec.isdigit():
            spec = int(spec)
        else:
            raise op_error(op, f"unknown checkpointing scheme '{spec}' (expected \"sqrt\" or a segment length)")
    if spec < 1:
        raise op_error(op, f"checkpoint segment length must be positive, got {spec}")
    return spec


def strip_mine_loops(fn: func.FuncOp, option: str | None, varied: set[SSAValue]) -> None:
    loop = _loop()
    loops = [op for op in fn.walk() if isinstance(op, loop.ForOp) and MAX_TRIP_ATTR not in op.attributes]
    # innermost first: strip-mining a loop rebuilds its body, which would leave the
    # loops collected inside it detached
    for op in reversed(loops):
        spec = segment_spec(op, option)
        if spec is None or not any(r in varied for r in op.res):
            continue
        strip_mine(op, spec)


def strip_mine(op, spec) -> None:
    loop = _loop()
    parent = op.parent_block()
    loc = op.location
    ty = op.lb.type
    new_ops = []

    def emit(o):
        o.location = loc
        new_ops.append(o)
        return o.results[0]

    def c(n):
        return emit(arith.ConstantOp(IntegerAttr(n, ty)))

    lb_s, ub_s, st_s = const_int(op.lb), const_int(op.ub), const_int(op.step)
    static_n = None
    if lb_s is not None and ub_s is not None and st_s is not None and st_s > 0:
        static_n = max(0, -(-(ub_s - lb_s) // st_s))
    if spec == "sqrt":
        if static_n is not None:
            k_static = max(1, math.isqrt(max(static_n - 1, 0)) + 1) if static_n > 1 else 1
            k = c(k_static)
        else:
            k_static = None
            one = c(1)
            span = emit(arith.SubiOp(op.ub, op.lb))
            n = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(span, op.step)), one)), op.step))
            n_i64 = emit(arith.IndexCastOp(n, i64)) if not isinstance(ty, IntegerType) else n
            nf = emit(arith.SIToFPOp(n_i64, Float64Type()))
            kf = emit(mathd.CeilOp(emit(mathd.SqrtOp(nf))))
            k_i = emit(arith.FPToSIOp(kf, n_i64.type))
            k = emit(arith.IndexCastOp(k_i, ty)) if not isinstance(ty, IntegerType) else k_i
            k = emit(arith.MaxSIOp(k, one))
    else:
        k_static = int(spec)
        k = c(k_static)
    # segments: seg in [0, ceil(n / k)); inner: [lb + seg*k*step, min(ub, that + k*step))
    one = c(1)
    zero = c(0)
    if static_n is not None and k_static is not None:
        nseg = c(-(-static_n // k_static))
    else:
        span = emit(arith.SubiOp(op.ub, op.lb))
        n = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(span, op.step)), one)), op.step))
        n = emit(arith.MaxSIOp(n, zero))
        nseg = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(n, k)), one)), k))
    seg_len = emit(arith.MuliOp(k, op.step))
    parent.insert_ops_before(new_ops, op)

    outer = Block(arg_types=[ty, *(a.type for a in op.iter_args)])
    seg = outer.args[0]
    start_ops = []
    off = arith.MuliOp(seg, seg_len)
    start = arith.AddiOp(op.lb, off)
    end0 = arith.AddiOp(start, seg_len)
    end = arith.MinSIOp(end0, op.ub)
    start_ops = [off, start, end0, end]
    for o in start_ops:
        o.location = loc
    outer.add_ops(start_ops)
    inner_body = op.body.clone()
    attrs = {MAX_TRIP_ATTR: IntegerAttr(k_static, i64)} if k_static is not None else {}
    inner = loop.ForOp(start.result, end.result, op.step, list(outer.args[1:]), inner_body, attributes=attrs)
    inner.location = loc
    if k_static is None:
        # still mark it as produced by strip-mining (never strip-mined again)
        inner.attributes[MAX_TRIP_ATTR] = IntegerAttr(-1, i64)
    outer.add_op(inner)
    y = loop.YieldOp(*inner.res)
    y.location = loc
    outer.add_op(y)
    outer_for = loop.ForOp(zero, nseg, one, list(op.iter_args), outer)
    outer_for.location = loc
    outer_for.attributes[MAX_TRIP_ATTR] = IntegerAttr(-1, i64)  # do not strip-mine again
    parent.insert_op_before(outer_for, op)
    for r, nr in zip(op.res, outer_for.res):
        r.replace_all_uses_with(nr)
    parent.erase_op(op)

