"""One product over all iterations in place of a product per iteration of a slice.

In a ``loop.for %t = 0 to n step 1`` whose body computes

    %x = tensor.extract_slice %X[.., %t, ..] [.., 1, ..] [1, ..]   (dim p dropped, %X outside)
    %y = tensor.matmul %x, %W          (or tensor.dot, %x on either side; %W outside)

with ``%X``'s dim p of static size n (the loop visits every slice), the product is
one `tensor.dot` of ``%X`` with ``%W`` in front of the loop, dim p becoming one more
free dim of that side, and ``%y`` its slice at ``%t``. The flops are the same; they
run as one large gemm (packing amortized over n slices, the threads of a multi-threaded
BLAS busy) instead of n small ones. This is the input projection of a recurrent
network: ``x_t @ Wx`` for all steps at once, as people write it by hand.

The ``ad`` pass applies it to a function before differentiating it
(:func:`batch_sliced_products`): the reverse loop then accumulates the cotangent of
each slice into one tensor, and the weight and input cotangents of the product are
each one dot after the loop as well.

Only static shapes are rewritten (the hoisted dot runs even when the loop runs zero
times, so it must not need run-time shape checks), and only when the loop runs at
least twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue

from irtoolkit.diagnostics import inherit_location
from irtoolkit.passes.ad.emit import const_int
from irtoolkit.passes.transforms.licm import defined_in

__all__ = ["batch_sliced_products"]


def _static(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType) and DYNAMIC_INDEX not in v.type.get_shape()


def _sliced_dim(v: SSAValue, loop_op: Operation, trips: int) -> tuple[SSAValue, int] | None:
    """(X, p) when ``v`` is X's slice at the loop's induction variable along dim p,
    dim p dropped, X defined outside the loop with dim p of size ``trips``."""
    from irtoolkit.dialects import tensor

    s = v.owner
    body = loop_op.regions[0].block
    if not isinstance(s, tensor.ExtractSliceOp) or s.parent_block() is not body:
        return None
    src = s.source
    if not _static(src) or defined_in(src, loop_op.regions[0]):
        return None
    offsets = s.static_offsets.get_values()
    sizes, strides = s.static_sizes.get_values(), s.static_strides.get_values()
    dynamic = [i for i, o in enumerate(offsets) if o == DYNAMIC_INDEX]
    if len(dynamic) != 1 or len(s.offsets) != 1 or s.offsets[0] is not body.args[0]:
        return None
    p = dynamic[0]
    shape = src.type.get_shape()
    if shape[p] != trips or any(o != 0 for i, o in enumerate(offsets) if i != p):
        return None
    if sizes[p] != 1 or any(sizes[i] != shape[i] for i in range(len(shape)) if i != p):
        return None
    if any(st != 1 for st in strides) or list(s.result.type.get_shape()) != [d for i, d in enumerate(shape) if i != p]:
        return None
    return src, p


def _widened(dims: Sequence[int], p: int) -> tuple[int, ...]:
    """Dims of the slice as dims of its source (dim p dropped from the slice)."""
    return tuple(i if i < p else i + 1 for i in dims)


def _rewrite(op: Operation, loop_op: Operation, trips: int) -> bool:
    from irtoolkit.dialects import tensor

    if isinstance(op, tensor.MatmulOp):
        d = tensor.DotDims(2, 2, (), (), (1,), (0,))
    elif isinstance(op, tensor.DotOp):
        d = op.dims
    else:
        return False
    region = loop_op.regions[0]
    for side in (0, 1):
        other = op.operands[1 - side]
        if not _static(other) or defined_in(other, region):
            continue
        found = _sliced_dim(op.operands[side], loop_op, trips)
        if found is None:
            continue
        src, p = found
        batch = [d.lhs_batch, d.rhs_batch]
        contract = [d.lhs_contract, d.rhs_contract]
        free = d.lhs_free if side == 0 else d.rhs_free
        batch[side] = _widened(batch[side], p)
        contract[side] = _widened(contract[side], p)
        operands = [op.operands[0], op.operands[1]]
        operands[side] = src
        whole = tensor.DotOp(operands[0], operands[1], (batch[0], batch[1]), (contract[0], contract[1]))
        # dim p's place among the result's dims: batch, lhs free, rhs free (operand order)
        at = len(d.lhs_batch) + (0 if side == 0 else len(d.lhs_free)) + sum(1 for i in free if i < p)
        rshape = whole.result.type.get_shape()
        iv = region.block.args[0]
        part = tensor.ExtractSliceOp(
            whole.result, [iv if i == at else 0 for i in range(len(rshape))],
            [1 if i == at else n for i, n in enumerate(rshape)], [1] * len(rshape), op.results[0].type)
        inherit_location([whole, part], op)
        loop_op.parent_block().insert_op_before(whole, loop_op)
        op.parent_block().insert_op_before(part, op)
        op.results[0].replace_all_uses_with(part.result)
        op.detach()
        op.erase()
        return True
    return False


def batch_sliced_products(root: Operation) -> int:
    """Rewrite the per-iteration products of slices in every ``loop.for`` under ``root``
    (see the module docstring); returns how many."""
    from irtoolkit.dialects import loop

    done = 0
    for lp in reversed([o for o in root.walk() if o.regions and isinstance(o, loop.ForOp)]):  # innermost first
        lb, ub, step = (const_int(v) for v in (lp.lb, lp.ub, lp.step))
        if lb != 0 or step != 1 or ub is None or ub < 2:
            continue
        for op in list(lp.body.block.ops):
            done += _rewrite(op, lp, ub)
    return done
