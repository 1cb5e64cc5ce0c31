"""Derivative rules of `tensor`'s indexed ops: gather, scatter, scatter_add (linear in
their float operands), rank (non-differentiable) and generate (not differentiable
through its body: a located error when its body reads a differentiated value).

``gather``'s adjoint is a :class:`ScatterAddContribution`: it is added in place
(``scatter_add``) into the adjoint's accumulator, or into the one zero buffer
that materializes it, so that an embedding lookup of a few rows touches only
those rows of the table's gradient.
"""

from __future__ import annotations

from irtoolkit.dialects import tensor
from irtoolkit.passes.ad.rules import Contribution, nondiff, register, unsupported


class ScatterAddContribution(Contribution):
    """``adjoint[indices] += value`` (the adjoint of ``tensor.gather``; duplicate
    indices accumulate)."""

    def __init__(self, value, indices, dims):
        self.value, self.indices, self.dims = value, indices, dims

    def materialize(self, E, zeros):
        return self.add_into(E, zeros)

    def add_into(self, E, acc):
        return E.v(tensor.ScatterAddOp(self.value, acc, self.indices, self.dims))


def _gather(E, op, values, indices, result_type):
    return E.v(tensor.GatherOp(values, indices, op.dims, result_type))


def _gather_jvp(E, op, ins, outs, tangents):
    t = tangents[0]
    return [None if t is None else _gather(E, op, t, ins[1], outs[0].type)]


def _gather_vjp(E, op, ins, outs, adjoints, need):
    a = adjoints[0]
    if a is None or not need[0]:
        return [None, None]
    return [ScatterAddContribution(a, ins[1], op.dims), None]


register(tensor.GatherOp, _gather_jvp, _gather_vjp)


def _scatter_jvp(E, op, ins, outs, tangents):
    ts, td = tangents[0], tangents[1]
    if ts is None and td is None:
        return [None]
    if ts is None and isinstance(op, tensor.ScatterAddOp):
        return [td]
    ts = ts if ts is not None else E.zeros(ins[0])
    td = td if td is not None else E.zeros(ins[1])
    return [E.v(type(op)(ts, td, ins[2], op.dims, outs[0].type, unique=op.properties.get("unique") is not None))]


def _scatter_add_vjp(E, op, ins, outs, adjoints, need):
    """d source = the adjoint's slices at the indices (every duplicate gets the slice);
    d dest = the adjoint."""
    a = adjoints[0]
    if a is None:
        return [None, None, None]
    return [_gather(E, op, a, ins[2], ins[0].type) if need[0] else None, a if need[1] else None, None]


def _scatter_vjp(E, op, ins, outs, adjoints, need):
    """Overwriting scatter (unique indices): d source = the adjoint's slices at the
    indices; d dest = the adjoint with those slices zeroed (they were overwritten)."""
    a = adjoints[0]
    if a is None:
        return [None, None, None]
    d_src = _gather(E, op, a, ins[2], ins[0].type) if need[0] else None
    d_dest = None
    if need[1]:
        d_dest = E.v(tensor.ScatterOp(E.zeros(ins[0]), a, ins[2], op.dims, ins[1].type, unique=True))
    return [d_src, d_dest, None]


register(tensor.ScatterAddOp, _scatter_jvp, _scatter_add_vjp)
register(tensor.ScatterOp, _scatter_jvp, _scatter_vjp)
nondiff(tensor.RankOp)
unsupported(tensor.GenerateOp, "its body reads a differentiated value (tensor.generate is not "
                               "differentiated through its body; build this tensor from tensor ops)")
