"""Rewrites of control flow before reverse differentiation.

``loop.while`` has no trip count known in advance, so its reverse sweep
cannot allocate tapes up front. An active while is rewritten into

1. the same while, carrying a counter: it computes the trip count ``n``;
2. a ``loop.for`` of ``n`` iterations running `before` then `after`
   (the condition is known to be true there);
3. the `before` region once more on the final values: its forwarded values
   are the results of the loop.

The ``loop.for`` is then differentiated as any other: its tapes are
``tensor<?x...>`` of length ``n`` (``tensor.empty(%n)``), replayed backwards;
a checkpointing attribute of the while goes to it.
"""

from __future__ import annotations

import functools
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, SSAValue

from irtoolkit.passes.ad.activity import body_ops
from irtoolkit.passes.ad.rules import is_primal_only


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


def _clone_ops_into(block: Block, ops, vmap, primal: bool = True) -> None:
    """Clones of ``ops``; without ``primal``, side effects that must happen once
    (prints) are left out."""
    for o in ops:
        if primal or not is_primal_only(o):
            block.add_op(o.clone(value_mapper=vmap))


def rewrite_whiles(fn: func.FuncOp, varied: set[SSAValue]) -> bool:
    """Rewrite every while loop with a varied result (innermost first)."""
    loop = _loop()
    whiles = [op for op in fn.walk() if op.regions and isinstance(op, loop.WhileOp)]
    changed = False
    for w in reversed(whiles):
        if any(r in varied for r in w.res):
            rewrite_while(w)
            changed = True
    return changed


def rewrite_while(w) -> None:
    loop = _loop()
    parent = w.parent_block()
    assert parent is not None
    before, after = w.before_region.block, w.after_region.block
    idx = IndexType()
    loc = w.location

    def located(op):
        for nested in op.walk():
            if nested.location is None or type(nested.location).__name__ == "UnknownLoc":
                nested.location = loc
        return op

    c0 = located(arith.ConstantOp(IntegerAttr(0, idx)))
    c1 = located(arith.ConstantOp(IntegerAttr(1, idx)))
    parent.insert_ops_before([c0, c1], w)

    # 1. counting while
    cb = Block(arg_types=[*(a.type for a in before.args), idx])
    vmap = dict(zip(before.args, cb.args))
    _clone_ops_into(cb, body_ops(before), vmap, primal=False)  # only counts: the for loop prints
    cond = w.condition_op
    cb.add_op(located(loop.ConditionOp(vmap.get(cond.condition, cond.condition),
                                       *(vmap.get(v, v) for v in cond.args), cb.args[-1])))
    ca = Block(arg_types=[*(a.type for a in after.args), idx])
    amap = dict(zip(after.args, ca.args))
    _clone_ops_into(ca, body_ops(after), amap, primal=False)
    inc = located(arith.AddiOp(ca.args[-1], c1))
    ca.add_op(inc)
    ca.add_op(located(loop.YieldOp(*(amap.get(v, v) for v in w.yield_op.operands), inc.result)))
    counting = located(loop.WhileOp([*w.inits, c0.result], [*(r.type for r in w.res), idx], cb, ca))
    parent.insert_op_before(counting, w)
    n = counting.res[-1]

    # 2. the iterations as a for loop
    fb = Block(arg_types=[idx, *(a.type for a in before.args)])
    fmap = dict(zip(before.args, fb.args[1:]))
    _clone_ops_into(fb, body_ops(before), fmap)
    for a, v in zip(after.args, cond.args):
        fmap[a] = fmap.get(v, v)
    _clone_ops_into(fb, body_ops(after), fmap)
    fb.add_op(located(loop.YieldOp(*(fmap.get(v, v) for v in w.yield_op.operands))))
    for_op = located(loop.ForOp(c0.result, n, c1.result, list(w.inits), fb))
    for name, attr in w.attributes.items():  # checkpointing asked of the while (checkpoint.py)
        if name.startswith("autodiff.checkpoint"):
            for_op.attributes[name] = attr
    parent.insert_op_before(for_op, w)

    # 3. the final test, whose forwarded values are the results
    fin = dict(zip(before.args, for_op.res))
    final_ops = [o.clone(value_mapper=fin) for o in body_ops(before)]
    parent.insert_ops_before(final_ops, w)
    for r, v in zip(w.res, cond.args):
        r.replace_all_uses_with(fin.get(v, v))
    parent.erase_op(w)
