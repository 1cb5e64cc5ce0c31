"""Rules for upstream ``scf`` (the same meaning as ``loop``), so that IR after
`convert-loop-to-scf` runs too."""

from __future__ import annotations

from xdsl.dialects import scf

from irtoolkit.interpreter.core import register
from irtoolkit.interpreter.loop import register_structured

register_structured(
    scf.ForOp, scf.IfOp, scf.WhileOp, scf.ParallelOp,
    (scf.YieldOp, scf.ConditionOp, scf.ReduceOp, scf.ReduceReturnOp),
)


@register(scf.IndexSwitchOp)
def _index_switch(interp, op, args):
    value = int(args[0])
    for case, region in zip(op.cases.get_values(), op.case_regions):
        if case == value:
            return tuple(interp.run_region(region, ())[1])
    return tuple(interp.run_region(op.default_region, ())[1])


@register(scf.ExecuteRegionOp)
def _execute_region(interp, op, args):
    return tuple(interp.run_region(op.region, ())[1])
