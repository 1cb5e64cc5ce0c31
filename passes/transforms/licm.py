"""Loop-invariant code motion for the `loop` dialect (MLIR's `loop-invariant-code-motion`).

An op in the body of a ``loop.for`` (or a region of ``loop.while`` /
``loop.parallel``) is hoisted in front of the loop when it is pure
(side-effect free and speculatable), has no regions, and every operand is
defined outside the loop (or by an op hoisted already). Loops are visited
innermost first, so code can leave a whole nest.

Hoisting may run an op that the loop would have run zero times, so only ops
that cannot fail at run time move: no dynamic shapes (their run-time shape
checks stay where they were), no index operands (run-time bounds checks of
``extract``/``insert``/slices with dynamic offsets), no ``tensor.empty``
(an allocation whose buffer the bufferization fills in place each iteration).

The ``ad`` pass runs :func:`hoist_loop_invariants` on the functions it
generates (the transposed weights of a reverse loop, for instance).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free, is_speculatable

__all__ = ["LoopInvariantCodeMotion", "defined_in", "hoist_loop_invariants", "is_hoistable"]

_DYN = -(2**63)


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop_classes() -> tuple[type, ...]:
    from irtoolkit.dialects import loop

    return (loop.ForOp, loop.WhileOp, loop.ParallelOp)


def _static(t) -> bool:
    if isinstance(t, IndexType):
        return False
    if isinstance(t, TensorType):
        return _DYN not in t.get_shape()
    return True


def is_hoistable(op: Operation) -> bool:
    """Pure, region-free, cannot fail at run time (see the module docstring)."""
    from irtoolkit.dialects import tensor

    if op.regions or op.has_trait(IsTerminator) or isinstance(op, tensor.EmptyOp):
        return False
    if not (is_side_effect_free(op) and is_speculatable(op)):
        return False
    return all(_static(v.type) for v in op.operands) and all(_static(r.type) for r in op.results)


def defined_in(v: SSAValue, region: Region) -> bool:
    owner = v.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    while block is not None:
        if block.parent is region:
            return True
        parent_op = block.parent_op()
        block = parent_op.parent_block() if parent_op is not None else None
    return False


def _hoist_from(loop_op: Operation) -> int:
    parent = loop_op.parent_block()
    if parent is None:
        return 0
    moved = 0
    for region in loop_op.regions:
        for block in region.blocks:
            for op in list(block.ops):
                if not is_hoistable(op):
                    continue
                if any(defined_in(v, region) for v in op.operands):
                    continue
                op.detach()
                parent.insert_op_before(op, loop_op)
                moved += 1
    return moved


def hoist_loop_invariants(root: Operation) -> int:
    """Hoist the invariant ops of every loop under ``root``; returns how many moved."""
    loops = [o for o in root.walk() if o.regions and isinstance(o, _loop_classes())]
    moved = 0
    for lp in reversed(loops):  # innermost first
        moved += _hoist_from(lp)
    return moved


@dataclass(frozen=True)
class LoopInvariantCodeMotion(ModulePass):
    """Hoist pure loop-invariant ops out of `loop.for`, `loop.while` and `loop.parallel`."""

    name = "loop-invariant-code-motion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoist_loop_invariants(op)
