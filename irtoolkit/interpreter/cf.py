"""Rules for ``cf``: unstructured control flow between blocks (IR after `lower-loop-to-cf`).

Branch rules return the index of the successor in ``op.successors`` and its arguments.
"""

from __future__ import annotations

from xdsl.dialects import cf

from irtoolkit.diagnostics import op_error
from irtoolkit.interpreter.core import register, register_branch


@register_branch(cf.BranchOp)
def _br(op):
    return lambda interp, op, args: (0, args)


@register_branch(cf.ConditionalBranchOp)
def _cond_br(op):
    end_then = 1 + len(op.then_arguments)

    def rule(interp, op, args):
        if args[0]:
            return 0, args[1:end_then]
        return 1, args[end_then:]

    return rule


@register_branch(cf.SwitchOp)
def _switch(op):
    n_default = len(op.default_operands)
    cases = []  # (value, successor index, first arg, end arg)
    if op.case_values is not None:
        start = 1 + n_default
        segments = op.case_operand_segments.get_values()
        for k, (value, size) in enumerate(zip(op.case_values.get_values(), segments)):
            cases.append((int(value), k + 1, start, start + size))
            start += size

    def rule(interp, op, args):
        flag = int(args[0])
        for value, index, lo, hi in cases:
            if value == flag:
                return index, args[lo:hi]
        return 0, args[1:1 + n_default]

    return rule


@register(cf.AssertOp)
def _assert(interp, op, args):
    if not args[0]:
        raise op_error(op, f"assertion failed: {op.msg.data}")
    return ()
