"""``lower-loop-to-cf``: structured ``loop`` ops to blocks and ``cf`` branches.

As MLIR's ``convert-scf-to-cf`` (which xDSL lacks for ``while``):

* ``loop.for``: ``br ^cond(lb, inits)``; ``^cond(iv, iters)``: ``cmpi slt iv, ub``,
  ``cond_br ^body(iv, iters), ^end``; the body's ``loop.yield`` becomes
  ``iv + step`` and ``br ^cond``; the results are the ``^cond`` iter arguments.
* ``loop.if``: ``cond_br ^then, ^else``; each ``loop.yield`` branches to
  ``^end(results)``.
* ``loop.while``: ``br ^before(inits)``; ``loop.condition(%c) args`` becomes
  ``cond_br %c, ^after(args), ^end(args)``; the after region's ``loop.yield``
  branches back to ``^before``.
* ``loop.parallel``: a sequential nest of loops (outermost dimension first),
  carrying the reductions: each ``loop.reduce`` region is inlined with the
  accumulator and the new value.

Outer ops are lowered before the ops nested in them, and the loops of a block
from last to first, so that the pass is linear in the size of the program; ops
created here inherit the location of the op they replace.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.diagnostics import op_error


def _set_loc(ops, origin: Operation) -> None:
    for new in ops:
        new.location = origin.location


def _split_block_before(block: Block, first: Operation) -> Block:
    """``block.split_before(first)`` in O(#moved ops): xDSL's version looks the
    block's index up (linear in the number of blocks of the region)."""
    region = block.parent
    assert region is not None and first.parent is block
    a_last = first.prev_op
    b_last = block._last_op  # pyright: ignore[reportPrivateUsage]
    new = Block()
    region.insert_block_after(new, block)
    if a_last is None:
        block._first_op = None  # pyright: ignore[reportPrivateUsage]
    block._last_op = a_last  # pyright: ignore[reportPrivateUsage]
    new._first_op = first  # pyright: ignore[reportPrivateUsage]
    new._last_op = b_last  # pyright: ignore[reportPrivateUsage]
    it: Operation | None = first
    while it is not None:
        it.parent = new
        it = it._next_op  # pyright: ignore[reportPrivateUsage]
    if a_last is not None:
        a_last._next_op = None  # pyright: ignore[reportPrivateUsage]
    first._prev_op = None  # pyright: ignore[reportPrivateUsage]
    return new


def _split_after(op: Operation) -> tuple[Block, Block]:
    """Split ``op``'s block: ops after ``op`` move to a new block right after it."""
    block = op.parent_block()
    assert block is not None
    nxt = op.next_op
    if nxt is None:
        raise op_error(op, "is the last op of its block (a terminator must follow it)")
    end = _split_block_before(block, nxt)
    return block, end


def _take_blocks(region: Region, before: Block) -> list[Block]:
    """Move every block of ``region`` right before ``before`` (same region)."""
    target = before.parent
    assert target is not None
    blocks = list(region.blocks)
    for b in blocks:
        region.detach_block(b)
    if blocks:
        target.insert_block_before(blocks, before)
    return blocks


def _replace_terminator(term: Operation, new_ops: list[Operation], origin: Operation) -> None:
    block = term.parent_block()
    assert block is not None
    _set_loc(new_ops, origin)
    for new in new_ops:
        block.insert_op_before(new, term)
    term.detach()
    term.erase()


def lower_for(op: Operation, loop) -> None:
    block, end = _split_after(op)
    region = block.parent
    assert region is not None
    body_blocks = list(op.body.blocks)
    if len(body_blocks) != 1:
        raise op_error(op, "expects a single-block body")
    body = body_blocks[0]
    iv_type = op.lb.type
    cond = Block(arg_types=[iv_type, *(v.type for v in op.iter_args)])
    region.insert_block_before(cond, end)
    _take_blocks(op.body, end)
    # entry: branch to the condition
    br = cf.BranchOp(cond, op.lb, *op.iter_args)
    _set_loc([br], op)
    block.insert_op_before(br, op)
    # condition block
    iv = cond.args[0]
    cmp = arith.CmpiOp(iv, op.ub, "slt")
    cbr = cf.ConditionalBranchOp(cmp.result, body, list(cond.args), end, [])
    _set_loc([cmp, cbr], op)
    cond.add_ops([cmp, cbr])
    # body terminator: step and branch back
    term = body.last_op
    if not isinstance(term, loop.YieldOp):
        raise op_error(op, "body must end with 'loop.yield'")
    nxt = arith.AddiOp(body.args[0], op.step)
    back = cf.BranchOp(cond, nxt.result, *term.operands)
    _replace_terminator(term, [nxt, back], op)
    # results are the iteration values seen by the exit test
    for res, val in zip(op.results, cond.args[1:], strict=True):
        res.replace_all_uses_with(val)
    op.detach()
    op.erase()


def lower_if(op: Operation, loop) -> None:
    block, end = _split_after(op)
    for r in op.results:
        arg = end.insert_arg(r.type, len(end.args))
        r.replace_all_uses_with(arg)
    then_blocks = _take_blocks(op.true_region, end)
    else_blocks = _take_blocks(op.false_region, end)
    for blocks in (then_blocks, else_blocks):
        for b in blocks:
            term = b.last_op
            if isinstance(term, loop.YieldOp):
                _replace_terminator(term, [cf.BranchOp(end, *term.operands)], op)
    if not then_blocks:
        raise op_error(op, "has an empty 'then' region")
    else_dest = else_blocks[0] if else_blocks else end
    cbr = cf.ConditionalBranchOp(op.cond, then_blocks[0], [], else_dest, [])
    _set_loc([cbr], op)
    block.insert_op_before(cbr, op)
    op.detach()
    op.erase()


def lower_while(op: Operation, loop) -> None:
    block, end = _split_after(op)
    for r in op.results:
        arg = end.insert_arg(r.type, len(end.args))
        r.replace_all_uses_with(arg)
    before_blocks = _take_blocks(op.before_region, end)
    after_blocks = _take_blocks(op.after_region, end)
    if not before_blocks or not after_blocks:
        raise op_error(op, "needs a 'before' and an 'after' region")
    before, after = before_blocks[0], after_blocks[0]
    br = cf.BranchOp(before, *op.inits)
    _set_loc([br], op)
    block.insert_op_before(br, op)
    for b in before_blocks:
        term = b.last_op
        if isinstance(term, loop.ConditionOp):
            args = list(term.args)
            _replace_terminator(
                term, [cf.ConditionalBranchOp(term.condition, after, args, end, args)], op)
    for b in after_blocks:
        term = b.last_op
        if isinstance(term, loop.YieldOp):
            _replace_terminator(term, [cf.BranchOp(before, *term.operands)], op)
    op.detach()
    op.erase()


def parallel_to_for(op: Operation, loop) -> None:
    """Rewrite a loop.parallel into a nest of loop.for (outermost dimension first)
    that carries the reductions; the nest is lowered like any loop.for."""
    from xdsl.dialects.builtin import IndexType

    body = op.body.block
    reduce_op = body.last_op
    if not isinstance(reduce_op, loop.ReduceOp):
        raise op_error(op, "body must end with 'loop.reduce'")
    ndim = len(op.lowerBound)
    types = [v.type for v in op.initVals]
    blocks = [Block(arg_types=[IndexType(), *types]) for _ in range(ndim)]
    for old_iv, b in zip(body.args, blocks, strict=True):
        old_iv.replace_all_uses_with(b.args[0])
    # innermost block: the body, then each reduction combining accumulator and value
    inner = blocks[-1]
    for inner_op in list(body.ops):
        if inner_op is reduce_op:
            break
        inner_op.detach()
        inner.add_op(inner_op)
    yielded: list[SSAValue] = []
    for acc, value, red in zip(inner.args[1:], reduce_op.args, reduce_op.reductions, strict=True):
        rblock = red.block
        lhs, rhs = rblock.args
        lhs.replace_all_uses_with(acc)
        rhs.replace_all_uses_with(value)
        ret = rblock.last_op
        for rop in list(rblock.ops):
            if rop is ret:
                break
            rop.detach()
            inner.add_op(rop)
        yielded.append(ret.result)  # type: ignore[union-attr]
    y = loop.YieldOp(*yielded)
    y.location = op.location
    inner.add_op(y)
    # wrap from the inside out
    current = None
    for dim in reversed(range(ndim)):
        blk = blocks[dim]
        if current is not None:
            blk.add_op(current)
            y = loop.YieldOp(*current.results)
            y.location = op.location
            blk.add_op(y)
        accs = list(op.initVals) if dim == 0 else list(blocks[dim - 1].args[1:])
        current = loop.ForOp(op.lowerBound[dim], op.upperBound[dim], op.step[dim], accs, blk)
        current.location = op.location
    assert current is not None
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(current, op)
    for r, v in zip(op.results, current.results, strict=True):
        r.replace_all_uses_with(v)
    op.detach()
    op.erase()


def lower_loops(module: ModuleOp) -> None:
    from irtoolkit.dialects import loop

    for op in list(module.walk()):
        if isinstance(op, loop.ParallelOp) and op.parent is not None:
            parallel_to_for(op, loop)
    # Outer ops before the ops nested in them, and within a block the last
    # loop first (reverse pre-order): each split then moves only the ops up to
    # the next, already lowered, loop -- linear in the size of the block.
    kinds = (loop.ForOp, loop.IfOp, loop.WhileOp)
    todo = [op for op in module.walk(reverse=True) if isinstance(op, kinds)]
    for op in todo:
        if op.parent is None:
            continue
        if isinstance(op, loop.ForOp):
            lower_for(op, loop)
        elif isinstance(op, loop.IfOp):
            lower_if(op, loop)
        else:
            lower_while(op, loop)


@dataclass(frozen=True)
class LowerLoopToCfPass(ModulePass):
    name = "lower-loop-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.gcpause import paused_gc

        with paused_gc():
            lower_loops(op)
