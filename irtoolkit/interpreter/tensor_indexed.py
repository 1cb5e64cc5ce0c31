"""Rules for ``tensor``'s indexed ops: gather, scatter, scatter_add, generate, rank.

Their numpy meaning is the dialect's (``gather_numpy``, ``scatter_numpy``),
which folding uses too; a coordinate out of range is a located error (as the
compiled code's run-time check).
"""

from __future__ import annotations

import numpy as np

from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import tensor
from irtoolkit.interpreter.core import dtype_of, register, shape_with_dynamic


def _gather(interp, op, args):
    source, indices = args
    try:
        full = tensor.gather_numpy(source, indices, op.dims)
    except IndexError as err:
        raise op_error(op, str(err)) from None
    return (full.reshape(_result_shape(op, full, op.dims, indices.ndim - 1)),)


def _result_shape(op, full, dims, n_batch: int) -> tuple[int, ...]:
    """The shape of ``full`` (the rank-preserving form) in the op's result form."""
    if len(op.result.type.get_shape()) == full.ndim:
        return full.shape
    return tuple(s for k, s in enumerate(full.shape) if k < n_batch or (k - n_batch) not in dims)


def _scatter_rule(accumulate: bool):
    def rule(interp, op, args):
        source, dest, indices = args
        try:
            return (tensor.scatter_numpy(dest, source, indices, op.dims, accumulate),)
        except IndexError as err:
            raise op_error(op, str(err)) from None
        except ValueError:
            raise op_error(op, f"source of shape {source.shape} does not match the slices of the dest "
                               f"(shape {dest.shape}) at indices of shape {indices.shape}") from None

    return rule


def _generate(interp, op, args):
    t = op.result.type
    shape = shape_with_dynamic(t, args)
    if any(s < 0 for s in shape):
        raise op_error(op, f"negative dimension size in {shape}")
    out = np.empty(shape, dtype=dtype_of(t))
    for idx in np.ndindex(*shape):
        out[idx] = interp.run_region(op.body, tuple(np.int64(i) for i in idx))[1][0]
    return (out,)


def _rank(interp, op, args):
    return (np.int64(np.ndim(args[0])),)


register(tensor.GatherOp)(_gather)
register(tensor.ScatterOp)(_scatter_rule(accumulate=False))
register(tensor.ScatterAddOp)(_scatter_rule(accumulate=True))
register(tensor.GenerateOp)(_generate)
register(tensor.RankOp)(_rank)
