"""Rules for ``loop`` (and, with the same code, upstream ``scf``): structured control flow.

``for`` iterates ``lb, lb+step, ... < ub`` (signed compare; a zero-trip loop
returns its inits); ``while`` runs ``before`` until ``condition`` is false and
returns the forwarded values; ``parallel`` runs its iterations in row-major
order and folds the ``reduce`` operands into the inits with the reduction regions.
"""

from __future__ import annotations

import itertools

import numpy as np

from irtoolkit import checks
from irtoolkit.diagnostics import op_error
from irtoolkit.dialects import loop as _loop
from irtoolkit.interpreter.core import register, register_exit, register_specialized


def make_for_rule(op):
    body = op.body
    n_iter = len(op.iter_args)

    def rule(interp, op, args):
        lb, ub, step = args[0], args[1], args[2]
        values = args[3:]
        if step <= 0:  # as the check compiled code makes (lower-loop-to-cf)
            raise op_error(op, f"{checks.step_not_positive(op.name)}: {int(step)} vs 0")
        ity = type(lb)
        run = interp.run_region
        for i in range(int(lb), int(ub), int(step)):
            values = run(body, (ity(i), *values))[1]
        if len(values) != n_iter:
            raise op_error(op, f"body yields {len(values)} values for {n_iter} iter_args")
        return tuple(values)

    return rule


def if_rule(interp, op, args):
    if args[0]:
        region = op.true_region
    else:
        region = op.false_region
        if not region.blocks:
            return ()
    return tuple(interp.run_region(region, ())[1])


def while_rule(interp, op, args):
    before, after = op.before_region, op.after_region
    run = interp.run_region
    values = args
    while True:
        vals = run(before, values)[1]
        if not vals[0]:
            return tuple(vals[1:])
        values = run(after, vals[1:])[1]


def make_parallel_rule(op):
    n = len(op.lowerBound)
    body = op.body

    def rule(interp, op, args):
        lbs, ubs, steps, acc = args[:n], args[n:2 * n], args[2 * n:3 * n], list(args[3 * n:])
        for s in steps:
            if s <= 0:
                raise op_error(op, f"steps must be positive, got {int(s)}")
        ranges = [range(int(lb), int(ub), int(st)) for lb, ub, st in zip(lbs, ubs, steps)]
        run = interp.run_region
        ity = np.int64
        for ivs in itertools.product(*ranges):
            reduce_op, vals = run(body, tuple(ity(i) for i in ivs))
            for k, region in enumerate(reduce_op.reductions):
                acc[k] = run(region, (acc[k], vals[k]))[1][0]
        return tuple(acc)

    return rule


def register_structured(for_cls, if_cls, while_cls, parallel_cls, exits):
    register_specialized(for_cls)(make_for_rule)
    register(if_cls)(if_rule)
    register(while_cls)(while_rule)
    register_specialized(parallel_cls)(make_parallel_rule)
    register_exit(*exits)


register_structured(
    _loop.ForOp, _loop.IfOp, _loop.WhileOp, _loop.ParallelOp,
    (_loop.YieldOp, _loop.ConditionOp, _loop.ReduceOp, _loop.ReduceReturnOp),
)
