"""Translation between our `loop` dialect and upstream `scf`.

The two dialects have the same structure op for op (operands, results,
regions, properties), so the translation rebuilds each op under the other
name and moves its regions over, keeping attributes and locations:

    loop.for <-> scf.for          loop.if <-> scf.if        loop.while <-> scf.while
    loop.condition <-> scf.condition                         loop.yield <-> scf.yield
    loop.parallel <-> scf.parallel  loop.reduce <-> scf.reduce  loop.reduce.return <-> scf.reduce.return

`scf.yield` inside `scf.execute_region` / `scf.index_switch` (which have no
`loop` counterpart) stays as it is, as do those ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from irtoolkit.dialects import loop

LOOP_TO_SCF: dict[type[Operation], type[Operation]] = {
    loop.ForOp: scf.ForOp,
    loop.IfOp: scf.IfOp,
    loop.WhileOp: scf.WhileOp,
    loop.ConditionOp: scf.ConditionOp,
    loop.YieldOp: scf.YieldOp,
    loop.ParallelOp: scf.ParallelOp,
    loop.ReduceOp: scf.ReduceOp,
    loop.ReduceReturnOp: scf.ReduceReturnOp,
}
SCF_TO_LOOP: dict[type[Operation], type[Operation]] = {v: k for k, v in LOOP_TO_SCF.items()}

_SCF_YIELD_PARENTS = (scf.ForOp, scf.IfOp, scf.WhileOp)


def _rebuild(op: Operation, new_cls: type[Operation]) -> Operation:
    """``op`` under another class: same operands, results, properties, attributes,
    regions (moved), location and result names."""
    regions = [op.detach_region(r) for r in list(op.regions)]
    new = new_cls.create(
        operands=list(op.operands),
        result_types=[r.type for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=regions,
    )
    new.location = op.location
    for old_res, new_res in zip(op.results, new.results):
        new_res.name_hint = old_res.name_hint
    return new


def _translate(module: ModuleOp, table: dict[type[Operation], type[Operation]], keep=None) -> None:
    # Collect first: rebuilding moves regions, so nested ops stay the same objects.
    # through base classes: irtoolkit.dialects.scf's ops are subclasses of xDSL's
    todo = [(op, target) for op in module.walk()
            if (target := next((table[c] for c in type(op).__mro__ if c in table), None)) is not None
            and (keep is None or keep(op))]
    for op, target in todo:
        new = _rebuild(op, target)
        Rewriter.replace_op(op, new)


@dataclass(frozen=True)
class ConvertLoopToScfPass(ModulePass):
    """Translate `loop` ops to upstream `scf` ops."""

    name = "convert-loop-to-scf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _translate(op, LOOP_TO_SCF)


@dataclass(frozen=True)
class ConvertScfToLoopPass(ModulePass):
    """Translate upstream `scf` ops (for, if, while, parallel and their terminators) to `loop` ops."""

    name = "convert-scf-to-loop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        def keep(o: Operation) -> bool:
            return not isinstance(o, scf.YieldOp) or isinstance(o.parent_op(), _SCF_YIELD_PARENTS)

        _translate(op, SCF_TO_LOOP, keep)
