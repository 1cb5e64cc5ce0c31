"""Activity analysis: which values carry derivatives.

*Varied* values depend on a differentiated input (forward propagation);
*useful* values reach a differentiated output (backward propagation, for
reverse mode). A value is *active* when it is both: only active values get
tangent or adjoint code. Only float scalars and float tensors can be active.
Loops are handled by fixpoints over their carried values.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from irtoolkit.classtest import ClassMemo
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.emit import is_float_like
from irtoolkit.passes.ad.rules import is_nondiff, is_structural, jvp_rule, no_rule_message, rule_inputs, vjp_rule


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


def body_ops(block: Block) -> list[Operation]:
    """The ops of ``block`` without its terminator."""
    from xdsl.traits import IsTerminator

    ops = list(block.ops)
    if ops and ops[-1].has_trait(IsTerminator):
        return ops[:-1]
    return ops


def _treatment_of_class(mode: str, cls: type) -> str:
    """What a varied input does to the results of an op of class ``cls`` in an
    ``Activity`` of ``mode``, the same for all ops of its class (remembered per analysis
    in ``Activity._treatments``: the rule tables are looked up once per class):
    "nondiff" or "structural" (nothing), "derivative" (they are varied: a call or an op
    with a rule) or "no rule" (an error)."""
    if is_nondiff(cls):
        return "nondiff"
    if issubclass(cls, func.CallOp):
        return "derivative"
    if is_structural(cls):
        return "structural"
    if (jvp_rule(cls) if mode == "forward" else vjp_rule(cls)) is None:
        return "no rule"
    return "derivative"


class Activity:
    """Varied (and, after :meth:`backward`, useful) values of one function body."""

    def __init__(self, block: Block, seeds: Iterable[SSAValue], mode: str):
        self.mode = mode  # "forward" (jvp) or "reverse" (vjp)
        self.varied: set[SSAValue] = {s for s in seeds if is_float_like(s.type)}
        self.useful: set[SSAValue] = set()
        # loop.for -> carried positions whose adjoint is nonzero (reverse mode)
        self.carried: dict[Operation, list[int]] = {}
        # op class -> what the analysis does with an active op of it (see _treatment_of_class;
        # a function of the mode, not a method: the memo holds no reference to the analysis)
        self._treatments = ClassMemo(functools.partial(_treatment_of_class, mode))
        self._forward_block(block)

    # -- varied ------------------------------------------------------------
    def _mark(self, values: Iterable[SSAValue]) -> bool:
        changed = False
        for v in values:
            if v not in self.varied and is_float_like(v.type):
                self.varied.add(v)
                changed = True
        return changed

    def _forward_block(self, block: Block) -> None:
        for op in block.ops:
            self._forward_op(op)

    def _forward_op(self, op: Operation) -> None:
        # (the loops and other ops with regions first; most ops have none, and an
        # isinstance test against an op class costs ~1 us: op classes are ABCs)
        if op.regions and self._forward_regions(op):
            return
        varied = self.varied
        for o in rule_inputs(op):
            if o in varied:
                break
        else:
            return
        treatment = self._treatments[type(op)]
        if treatment == "derivative":
            self._mark(op.results)
        elif treatment == "no rule":
            raise op_error(op, no_rule_message(op))

    def _forward_regions(self, op: Operation) -> bool:
        """Varied values through the regions of ``op``; True when that is all
        (a loop), False when ``op`` is still to be looked at as an op."""
        loop = _loop()
        if isinstance(op, loop.ForOp):
            block = op.body.block
            carried = list(block.args[1:])
            yields = op.yield_op.operands
            self._mark(a for a, init in zip(carried, op.iter_args) if init in self.varied)
            while True:
                self._forward_block(block)
                if not self._mark(a for a, y in zip(carried, yields) if y in self.varied):
                    break
            self._mark(r for r, a in zip(op.res, carried) if a in self.varied)
            return True
        if isinstance(op, loop.IfOp):
            for region in op.regions:
                for block in region.blocks:
                    self._forward_block(block)
                    term = block.last_op
                    if isinstance(term, loop.YieldOp):
                        self._mark(r for r, y in zip(op.output, term.operands) if y in self.varied)
            return True
        if isinstance(op, loop.WhileOp):
            before, after = op.before_region.block, op.after_region.block
            self._mark(a for a, init in zip(before.args, op.inits) if init in self.varied)
            while True:
                self._forward_block(before)
                cond = op.condition_op
                self._mark(a for a, v in zip(after.args, cond.args) if v in self.varied)
                self._forward_block(after)
                if not self._mark(a for a, y in zip(before.args, op.yield_op.operands) if y in self.varied):
                    break
            self._mark(r for r, v in zip(op.res, op.condition_op.args) if v in self.varied)
            return True
        if isinstance(op, loop.ParallelOp):
            self._forward_block(op.body.block)
            reduced = op.body.block.last_op.operands
            self._mark(r for r, i, v in zip(op.res, op.initVals, reduced) if i in self.varied or v in self.varied)
            return True
        if not isinstance(op, func.FuncOp):
            for region in op.regions:
                for block in region.blocks:
                    self._forward_block(block)
        return False

    # -- useful (reverse mode) ------------------------------------------------
    def backward(self, block: Block, outputs: Iterable[SSAValue]) -> None:
        self._use(outputs)
        self._backward_block(block)

    def _use(self, values: Iterable[SSAValue]) -> bool:
        changed = False
        for v in values:
            if v in self.varied and v not in self.useful:
                self.useful.add(v)
                changed = True
        return changed

    def _backward_block(self, block: Block) -> None:
        for op in reversed(list(block.ops)):
            self._backward_op(op)

    def _backward_op(self, op: Operation) -> None:
        if not op.regions:  # (most ops: no loop, and no isinstance test against the loop classes)
            useful = self.useful
            for r in op.results:
                if r in useful:
                    break
            else:
                return
            if self._treatments[type(op)] != "nondiff":
                self._use(op.operands)
            return
        loop = _loop()
        if isinstance(op, loop.ForOp):
            block = op.body.block
            carried = list(block.args[1:])
            yields = op.yield_op.operands
            active = {k for k, r in enumerate(op.res) if r in self.useful}
            while True:
                self._use(yields[k] for k in active)
                self._backward_block(block)
                new = {k for k, a in enumerate(carried) if a in self.useful} - active
                if not new:
                    break
                active |= new
            self.carried[op] = sorted(active)
            self._use(op.iter_args[k] for k in active)
            return
        if isinstance(op, loop.IfOp):
            for region in op.regions:
                for block in region.blocks:
                    term = block.last_op
                    if isinstance(term, loop.YieldOp):
                        self._use(y for y, r in zip(term.operands, op.output) if r in self.useful)
                    self._backward_block(block)
            return
        if not any(r in self.useful for r in op.results):
            return
        if isinstance(op, loop.ParallelOp):
            reduced = op.body.block.last_op.operands
            self._use(i for i, r in zip(op.initVals, op.res) if r in self.useful)
            self._use(v for v, r in zip(reduced, op.res) if r in self.useful)
            self._backward_block(op.body.block)
            return
        if isinstance(op, loop.WhileOp):
            raise op_error(op, "internal: while loops are rewritten before reverse differentiation")
        if is_nondiff(op):
            return
        self._use(rule_inputs(op))

    def is_active(self, v: SSAValue) -> bool:
        return v in self.varied and v in self.useful
