"""``lower-loop-to-cf``: structured ``loop`` ops to blocks and ``cf`` branches.

As MLIR's ``convert-scf-to-cf`` (which xDSL lacks for ``while``):

* ``loop.for``: ``br ^cond(lb, inits)``; ``^cond(iv, iters)``: ``cmpi slt iv, ub``,
  ``cond_br ^body, ^end`` (the body uses ``^cond``'s arguments); the body's
  ``loop.yield`` becomes ``iv + step`` and ``br ^cond``; the results are the
  ``^cond`` iter arguments. An iteration value yielded unchanged (a buffer passed
  through a nest) is not carried: its initial value is used. An outer body that
  starts with the loop is no block of its own (the outer ``cond_br`` enters
  ``^cond``). A step that is not a positive constant is checked first
  (``cf.assert``: a step of 0 or less would never end; the interpreter reports
  the same).
* ``loop.if``: ``cond_br ^then, ^else``; each ``loop.yield`` branches to
  ``^end(results)``.
* ``loop.while``: ``br ^before(inits)``; ``loop.condition(%c) args`` becomes
  ``cond_br %c, ^after(args), ^end(args)``; the after region's ``loop.yield``
  branches back to ``^before``.
* ``loop.parallel``: a sequential nest of loops (outermost dimension first),
  carrying the reductions: each ``loop.reduce`` region is inlined with the
  accumulator and the new value.

Threads: before that, a ``loop.for`` that can run its iterations in any order and split
its range (``parallel_kinds``: step 1; only arith/math/memref.load/store/dim and nested
loop.for/loop.if in its body -- no ``cf.assert``, call or allocation, nor an op whose
lowering checks at run time (integer division, a loop with a dynamic step); each store writes
a buffer allocated in this function at an index holding the loop's induction variable,
and a buffer the loop both reads and writes only at its own slice (the induction variable
as the index of one same dim of every access, none through a view); each iteration value is a buffer passed through
unchanged, an integer sum or a ``fastmath<reassoc>`` float sum) and whose work may pay
for a thread is *outlined*: its body moves to a private function
``@__irt_par_<func>_<k>(%lo, %hi, inits..., captures...)`` running it over
``[lo, hi)``, and the loop becomes ``func.call`` of it over the whole range, tagged
``{irt.parallel = [kinds], irt.work = <cost per iteration>}``. The call is sequential
here (the interpreter runs it as it is); ``convert-func-to-llvm`` turns it into a call
of a dispatcher that splits the range over threads at run time when the trip count
times ``irt.work`` reaches ``PARALLEL_MIN_WORK`` and ``IRT_NUM_THREADS`` allows it
(see ``to_llvm/parallel.py``). A loop outlined the same as an earlier one (a gradient
recomputes its forward pass) calls the earlier function. Option ``parallel=false``
disables the outlining.

Outer ops are lowered before the ops nested in them, and the loops of a block
from last to first, so that the pass is linear in the size of the program; ops
created here inherit the location of the op they replace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from irtoolkit import checks
from irtoolkit.abi import NEST_PREFIX
from irtoolkit.classtest import ClassMemo, instance_test
from irtoolkit.diagnostics import op_error
from irtoolkit.pipeline import option

# on a loop's back edge: "for" (counted) or "while"; kept by convert-cf-to-llvm
LATCH = "irt.latch"

_is_constant = instance_test(arith.ConstantOp)


def _set_loc(ops, origin: Operation) -> None:
    for new in ops:
        new.location = origin.location


def move_ops_to_end(first: Operation, last: Operation, dest: Block) -> None:
    """Move the consecutive ops ``first`` .. ``last`` of a block to the end of ``dest``:
    the two lists relinked once, not a detach and an append (with its ancestor
    check) per op."""
    src = first.parent
    assert src is not None and last.parent is src and src is not dest
    before = first._prev_op  # pyright: ignore[reportPrivateUsage]
    after = last._next_op  # pyright: ignore[reportPrivateUsage]
    if before is None:
        src._first_op = after  # pyright: ignore[reportPrivateUsage]
    else:
        before._next_op = after  # pyright: ignore[reportPrivateUsage]
    if after is None:
        src._last_op = before  # pyright: ignore[reportPrivateUsage]
    else:
        after._prev_op = before  # pyright: ignore[reportPrivateUsage]
    tail = dest._last_op  # pyright: ignore[reportPrivateUsage]
    first._prev_op = tail  # pyright: ignore[reportPrivateUsage]
    last._next_op = None  # pyright: ignore[reportPrivateUsage]
    if tail is None:
        dest._first_op = first  # pyright: ignore[reportPrivateUsage]
    else:
        tail._next_op = first  # pyright: ignore[reportPrivateUsage]
    dest._last_op = last  # pyright: ignore[reportPrivateUsage]
    op: Operation | None = first
    while op is not None:
        op.parent = dest
        op = op._next_op  # pyright: ignore[reportPrivateUsage]


def split_block_before(block: Block, first: Operation) -> Block:
    """``block.split_before(first)`` in O(#moved ops): xDSL's version looks the
    block's index up (linear in the number of blocks of the region)."""
    region = block.parent
    assert region is not None and first.parent is block
    new = Block()
    region.insert_block_after(new, block)
    move_ops_to_end(first, block._last_op, new)  # pyright: ignore[reportPrivateUsage]
    return new


def _split_after(op: Operation) -> tuple[Block, Block]:
    """Split ``op``'s block: ops after ``op`` move to a new block right after it."""
    block = op.parent_block()
    assert block is not None
    nxt = op.next_op
    if nxt is None:
        raise op_error(op, "is the last op of its block (a terminator must follow it)")
    end = split_block_before(block, nxt)
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
    step = _const_int(op.step)
    if step is None or step <= 0:
        zero = arith.ConstantOp(IntegerAttr(0, op.step.type))
        positive = arith.CmpiOp(op.step, zero.result, "sgt")
        check = cf.AssertOp(positive.result, checks.step_not_positive(op.name))
        _set_loc([zero, positive, check], op)
        for new in (zero, positive, check):
            block.insert_op_before(new, op)
    term = body.last_op
    if not isinstance(term, loop.YieldOp):
        raise op_error(op, "body must end with 'loop.yield'")
    inits = list(op.iter_args)
    yielded = list(term.operands)
    # an iteration value yielded unchanged is its initial value throughout (a
    # buffer passed through a nest): it is used as such, and carried by no block
    carried = [k for k, (init, y) in enumerate(zip(inits, yielded, strict=True))
               if not _passed_through(y, body.args[k + 1], init)]
    for k, init in enumerate(inits):
        if k not in carried:
            body.args[k + 1].replace_all_uses_with(init)
            op.results[k].replace_all_uses_with(init)
    cond = Block(arg_types=[iv_type, *(inits[k].type for k in carried)])
    region.insert_block_before(cond, end)
    _take_blocks(op.body, end)
    # entry: branch to the condition, from the block that would only branch there
    # if there is one (an outer loop's body that starts with this loop)
    entry_args = [op.lb, *(inits[k] for k in carried)]
    skipped = _enter_from_predecessor(block, op, cond, entry_args)
    if not skipped:
        br = cf.BranchOp(cond, *entry_args)
        _set_loc([br], op)
        block.insert_op_before(br, op)
    # condition block; the body, which only the condition enters, uses its arguments
    iv = cond.args[0]
    cmp = arith.CmpiOp(iv, op.ub, "slt")
    cbr = cf.ConditionalBranchOp(cmp.result, body, [], end, [])
    _set_loc([cmp, cbr], op)
    cond.add_ops([cmp, cbr])
    body.args[0].replace_all_uses_with(iv)
    for k, arg in zip(carried, cond.args[1:]):
        body.args[k + 1].replace_all_uses_with(arg)
    for arg in reversed(body.args):
        body.erase_arg(arg)
    # body terminator: step and branch back
    nxt = arith.AddiOp(iv, op.step)
    yielded = list(term.operands)  # (now the condition's arguments where it yields the body's)
    back = cf.BranchOp(cond, nxt.result, *(yielded[k] for k in carried))
    back.attributes[LATCH] = StringAttr("for")  # a counted loop (the JIT does not poll it)
    _replace_terminator(term, [nxt, back], op)
    # results are the iteration values seen by the exit test
    for k, val in zip(carried, cond.args[1:]):
        op.results[k].replace_all_uses_with(val)
    op.detach()
    op.erase()
    if skipped:
        region.detach_block(block)
        block.erase()


def _enter_from_predecessor(block: Block, op: Operation, cond: Block, args: list[SSAValue]) -> bool:
    """If ``block`` holds only ``op`` (erased with it then) and is entered by one
    ``cf.cond_br`` without arguments, make that branch go to ``cond`` with
    ``args`` instead (they are defined before ``block``, whose only predecessor
    the branch's block is); whether it did."""
    if block.args or op.prev_op is not None or op.next_op is not None:
        return False
    uses = list(block.uses)
    if len(uses) != 1:
        return False
    branch = uses[0].operation
    if not isinstance(branch, cf.ConditionalBranchOp) or branch.then_block is not block \
            or branch.else_block is block or branch.then_arguments:
        return False
    # retargeted in place (building a new branch through xDSL's constructor costs more)
    else_args = list(branch.else_arguments)
    branch.operands = [branch.cond, *args, *else_args]
    branch.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, len(args), len(else_args)])
    branch.successors = [cond, branch.else_block]
    return True


def _passed_through(yielded: SSAValue, arg: SSAValue, init: SSAValue) -> bool:
    """Whether a loop.for yields its iteration argument ``arg`` (or its initial
    value ``init``) unchanged, directly or as the result of a nested loop.for
    that starts from it and passes it through in turn."""
    from irtoolkit.dialects import loop

    if yielded is arg or yielded is init:
        return True
    inner = yielded.owner
    if not isinstance(inner, loop.ForOp):
        return False
    k = yielded.index  # type: ignore[attr-defined]
    inner_init = inner.iter_args[k]
    blocks = list(inner.body.blocks)
    if not (inner_init is arg or inner_init is init) or len(blocks) != 1:
        return False
    inner_term = blocks[0].last_op
    return isinstance(inner_term, loop.YieldOp) and _passed_through(
        inner_term.operands[k], blocks[0].args[k + 1], inner_init)


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
            back = cf.BranchOp(before, *term.operands)
            back.attributes[LATCH] = StringAttr("while")
            _replace_terminator(term, [back], op)
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
    Rewriter.replace_op(op, current)


def ops_of_classes(root: Operation, classes: tuple[type[Operation], ...],
                   reverse: bool = False) -> list[Operation]:
    """The ops nested in ``root`` (``root`` included; in walk order) that are
    instances of ``classes`` (tested once per op class)."""
    test = instance_test(*classes)
    return [op for op in root.walk(reverse=reverse) if test(op)]


def region_ops_of_classes(root: Operation, classes: tuple[type[Operation], ...],
                          reverse: bool = False) -> list[Operation]:
    """``ops_of_classes`` for classes of ops with regions: ops without regions (most
    of them) are stepped over in the blocks' op lists, not given out by a walk."""
    test = instance_test(*classes)
    found: list[Operation] = []
    stack = [root]  # ops with regions, the next one to visit last (pre-order)
    while stack:
        op = stack.pop()
        if test(op):
            found.append(op)
        children: list[Operation] = []
        for region in reversed(op.regions) if reverse else op.regions:
            for block in reversed(region.blocks) if reverse else region.blocks:
                child = block.last_op if reverse else block.first_op
                while child is not None:
                    if child.regions:
                        children.append(child)
                    child = child._prev_op if reverse else child._next_op  # pyright: ignore[reportPrivateUsage]
        stack.extend(reversed(children))
    return found


def lower_loops(module: ModuleOp) -> None:
    from irtoolkit.dialects import loop

    # Outer ops before the ops nested in them, and within a block the last
    # loop first (reverse pre-order): each split then moves only the ops up to
    # the next, already lowered, loop -- linear in the size of the block.
    structured = (loop.ForOp, loop.IfOp, loop.WhileOp)
    todo = region_ops_of_classes(module, (*structured, loop.ParallelOp), reverse=True)
    if any(isinstance(op, loop.ParallelOp) for op in todo):  # nests of loop.for replace them
        for op in region_ops_of_classes(module, (loop.ParallelOp,)):  # (outer first)
            if op.parent is not None:
                parallel_to_for(op, loop)
        todo = region_ops_of_classes(module, structured, reverse=True)
    for op in todo:
        if op.parent is None:
            continue
        if isinstance(op, loop.ForOp):
            lower_for(op, loop)
        elif isinstance(op, loop.IfOp):
            lower_if(op, loop)
        else:
            lower_while(op, loop)


# ----------------------------------------------------------------------------- threads

#: run-time threshold: a parallel loop is split over threads when its trip count times
#: its per-iteration cost (``loop_cost``: the declared ``Cost`` of each op, 1 for a
#: simple scalar op, 20 for a transcendental;
#: measured ~0.1 ns per unit vectorized) reaches this, ~0.2 ms of work (starting and
#: joining a thread costs ~20-50 us); loops that cannot reach it are not outlined
PARALLEL_MIN_WORK = 2_000_000
#: attributes of the outlined call
PARALLEL_ATTR = "irt.parallel"
PARALLEL_PREFIX = "__irt_par_"
WORK_ATTR = "irt.work"

_ALLOWED = {"memref.load", "memref.store", "memref.dim", "loop.for", "loop.if", "loop.yield"}
_UNKNOWN_TRIPS = 8


def _const_int(v: SSAValue) -> int | None:
    from xdsl.dialects.builtin import IntegerAttr

    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def static_trips(op: Operation) -> int | None:
    """A loop.for's trip count (or a bound of it) when known statically: constant
    bounds; ``ub = lb + c`` and ``ub = min(lb + c, n)`` as emitted for blocked sums."""
    lb, ub = op.lb, op.ub  # type: ignore[attr-defined]
    a, b = _const_int(lb), _const_int(ub)
    if a is not None and b is not None:
        return max(b - a, 0)
    u = ub.owner
    if isinstance(u, arith.MinUIOp | arith.MinSIOp):
        u = u.lhs.owner
    if isinstance(u, arith.AddiOp) and u.lhs is lb:
        c = _const_int(u.rhs)
        if c is not None:
            return max(c, 0)
    return None


def _trips(op: Operation) -> int:
    """Static estimate of a loop.for's trip count; unknown: a guess."""
    n = static_trips(op)
    return _UNKNOWN_TRIPS if n is None else n


def _class_cost(cls: type) -> int:
    from irtoolkit.dialects.elementwise import cost_of

    return cost_of(cls)


#: op class -> its declared cost (``cost_of``), by subscript: asked of every op of a nest
_CLASS_COST = ClassMemo(_class_cost)


def loop_cost(block: Block) -> int:
    """Static cost of one execution of ``block`` (nested loops times their trips)."""
    from irtoolkit.dialects import loop

    costs = _CLASS_COST
    total = 0
    op = block.first_op
    while op is not None:  # (the ops linked list read directly: no iterator call per op)
        if op.regions:
            if isinstance(op, loop.ForOp):
                total += _trips(op) * sum(loop_cost(b) for b in op.body.blocks)
            else:
                total += max((sum(loop_cost(b) for b in r.blocks) for r in op.regions), default=0)
        else:
            total += costs[type(op)]
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return max(total, 1)


_VIEWS = {"memref.cast", "memref.subview", "memref.reinterpret_cast", "memref.collapse_shape",
          "memref.expand_shape", "memref.transpose", "memref.view", "memref.memory_space_cast"}


def _carried_source(v: SSAValue, loop, through_views: bool = True) -> SSAValue:
    """The buffer behind a memref: through the iteration arguments of enclosing
    loop.for bodies and (``through_views``) through views of other memrefs."""
    from xdsl.ir import BlockArgument

    for _ in range(64):
        if isinstance(v, BlockArgument):
            owner = v.block.parent_op()
            if v.index == 0 or not isinstance(owner, loop.ForOp):
                break
            v = owner.iter_args[v.index - 1]
        elif through_views and isinstance(v.owner, Operation) and v.owner.name in _VIEWS and v.owner.operands:
            v = v.owner.operands[0]
        else:
            break
    return v


def parallel_kinds(op: Operation) -> list[str] | None:
    """How each iteration value of ``op`` (a loop.for) combines when the range is split
    ("same": a buffer passed through; "sum"), or None if ``op`` cannot be split."""
    plan = _parallel_plan(op)
    return None if plan is None else plan[0]


def _parallel_plan(op: Operation) -> tuple[list[str], tuple[list[Operation], list[Operation]],
                                           list[Operation]] | None:
    """``parallel_kinds(op)``, the stores and loads of its nest (``_memory_of_nest``)
    and the ops of the nest (``op.walk()``, which outlining asks again), or None if
    ``op`` cannot be split."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType, IndexType

    from irtoolkit.dialects import loop

    if _const_int(op.step) != 1 or not isinstance(op.lb.type, IndexType):  # type: ignore[attr-defined]
        return None
    blocks = list(op.body.blocks)  # type: ignore[attr-defined]
    if len(blocks) != 1:
        return None
    body = blocks[0]
    iv = body.args[0]
    term = body.last_op
    if not isinstance(term, loop.YieldOp):
        return None
    kinds: list[str] = []
    for arg, y in zip(body.args[1:], term.operands, strict=True):
        t = arg.type
        if isinstance(t, MemRefType):
            if y is not arg:
                return None
            kinds.append("same")
            continue
        uses = list(arg.uses)
        if len(uses) != 1 or uses[0].operation is not y.owner:
            return None
        add = y.owner
        if isinstance(t, AnyFloat) and isinstance(add, arith.AddfOp):
            flags = add.fastmath
            if flags is None or "reassoc" not in {f.value for f in flags.data}:
                return None
        elif isinstance(t, IntegerType | IndexType) and isinstance(add, arith.AddiOp):
            if isinstance(t, IntegerType) and t.width.data == 1:
                return None
        else:
            return None
        kinds.append("sum")
    inside = list(op.walk())
    memory = _memory_of_nest(op, inside)
    if memory is None:
        return None
    stores, loads = memory
    if not all(any(i is iv for i in s.indices) for s in stores):  # type: ignore[attr-defined]
        return None
    stored = {_carried_source(s.memref, loop) for s in stores}  # type: ignore[attr-defined]
    if not all(isinstance(m.owner, memref.AllocOp) for m in stored):
        return None
    for buf in stored & {_carried_source(o.memref, loop) for o in loads}:  # type: ignore[attr-defined]
        if not _own_slices(buf, [*stores, *loads], iv):
            return None
    return kinds, memory, inside


def _own_slices(buf: SSAValue, accesses: list[Operation], iv: SSAValue) -> bool:
    """Whether the loads and stores of ``accesses`` that reach buffer ``buf`` each
    touch the slice of iteration ``iv`` only: ``iv`` itself as the index of one same
    dim in all of them, none through a view (a buffer read and written, as the
    read-add-writes of col2im's scatter: iterations that write their own slices
    may run in any order)."""
    from irtoolkit.dialects import loop

    dims: set[int] | None = None
    for o in accesses:
        m = o.memref  # type: ignore[attr-defined]
        if _carried_source(m, loop) is not buf:
            continue
        if _carried_source(m, loop, through_views=False) is not buf:
            return False
        at = {d for d, i in enumerate(o.indices) if i is iv}  # type: ignore[attr-defined]
        dims = at if dims is None else dims & at
        if not dims:
            return False
    return True


def _nest_op_kind(cls: type) -> str:
    from xdsl.dialects import memref

    from irtoolkit.dialects import loop

    return next((k for k, c in (("for", loop.ForOp), ("if", loop.IfOp), ("store", memref.StoreOp),
                                ("load", memref.LoadOp)) if issubclass(cls, c)), "")


#: op class -> which of ``_memory_of_nest``'s tests is about its ops ("for", "if",
#: "store", "load" or ""): isinstance against op classes is slow, asked once per class
_NEST_OP_KIND = ClassMemo(_nest_op_kind)


def _memory_of_nest(op: Operation, inside: list[Operation] | None = None,
                    ) -> tuple[list[Operation], list[Operation]] | None:
    """The stores and the loads of loop nest ``op``, or None if it holds an op that cannot leave its
    function (a call, an allocation, a run-time check: ``cf.assert``, a checked
    integer division, a loop with a dynamic step) or a buffer that an inner loop
    or ``loop.if`` yields other than unchanged (its source would be unknown).
    ``inside``: the nest's ops (``op.walk()``), when known."""
    from xdsl.dialects.builtin import MemRefType

    from irtoolkit.passes.lowering.to_llvm.arith import division_checks

    stores: list[Operation] = []
    loads: list[Operation] = []
    kinds = _NEST_OP_KIND
    for inner in op.walk() if inside is None else inside:
        if inner is op:
            continue
        name = inner.name
        if name not in _ALLOWED:
            if not name.startswith(("arith.", "math.")):
                return None
            if name in checks.DIVISIONS and any(division_checks(inner)):
                return None  # a run-time check cannot fail in a worker thread
            continue  # (a scalar op: none of the tests below is about it)
        kind = kinds[type(inner)]
        if kind == "for":
            if (_const_int(inner.step) or 0) <= 0:  # type: ignore[attr-defined]
                return None
            ib = inner.body.block  # type: ignore[attr-defined]
            it = ib.last_op
            for a, y in zip(ib.args[1:], it.operands if it is not None else []):
                if isinstance(a.type, MemRefType) and y is not a:
                    return None
        elif kind == "if":
            if any(isinstance(r.type, MemRefType) for r in inner.results):
                return None
        elif kind == "store":
            stores.append(inner)
        elif kind == "load":
            loads.append(inner)
    return stores, loads


def _reads_apart(stores: list[Operation], loads: list[Operation]) -> bool:
    """Whether ``stores`` write only buffers allocated in their function that
    ``loads`` do not read: these loads and stores never overlap."""
    from xdsl.dialects import memref

    from irtoolkit.dialects import loop

    stored = {_carried_source(s.memref, loop) for s in stores}  # type: ignore[attr-defined]
    loaded = {_carried_source(o.memref, loop) for o in loads}  # type: ignore[attr-defined]
    return not (stored & loaded) and all(isinstance(m.owner, memref.AllocOp) for m in stored)


def _free_values(inside: list[Operation], top: Operation | None) -> tuple[list[SSAValue], list[SSAValue], set[int]]:
    """Of the ops ``inside`` (whole nests, ``top``'s own operands left out): the
    values they use that are defined elsewhere, in the order of their first use,
    constants apart (they are cloned in), and the ids of the ops as a set."""
    # (comprehensions over the ops' results and operands, no Python call per value:
    # the values defined inside, then the operands that are not, first uses first)
    defined = {r for o in inside for r in o.results}
    defined.update(a for o in inside if o.regions for r in o.regions for b in r.blocks for a in b.args)
    used = dict.fromkeys([v for o in inside if o is not top
                          for v in o._operands])  # pyright: ignore[reportPrivateUsage]
    caps: list[SSAValue] = []
    consts: list[SSAValue] = []
    for v in used:
        if v not in defined:
            (consts if _is_constant(v.owner) else caps).append(v)
    # what the ops hold, as a set of ids (an op's hash is a Python call)
    inside_ids = set(map(id, inside))
    inside_ids.update(id(b) for o in inside if o.regions for r in o.regions for b in r.blocks)
    return caps, consts, inside_ids


def _bind_free_values(entry: Block, caps: list[SSAValue], args: Sequence[SSAValue], consts: list[SSAValue],
                      inside: list[Operation], top: Operation | None) -> None:
    """Make the ops ``inside`` (but ``top``) use ``args`` for ``caps`` and clones of
    ``consts`` added to ``entry``. (Their operands are read, not the uses of ``caps``
    and ``consts``: a constant, as the index 0, has uses all over its function, which
    every outlining of one of its loops would otherwise go through.)"""
    mapping: dict[SSAValue, SSAValue] = dict(zip(caps, args))
    for c in consts:
        new_c = c.owner.clone()  # type: ignore[union-attr]
        entry.add_op(new_c)
        mapping[c] = new_c.results[0]
    for inner in inside:
        if inner is top:
            continue
        for index, v in enumerate(inner._operands):  # pyright: ignore[reportPrivateUsage]
            new_v = mapping.get(v)
            if new_v is not None:
                inner.operands[index] = new_v


def outline_loop(op: Operation, kinds: list[str] | None, fn: Operation, name: str,
                 cost: int | None = None, inside: list[Operation] | None = None,
                 ) -> tuple[Operation, Operation, int]:
    """Move loop.for ``op`` (step 1, in function ``fn``) to a new private function
    ``name`` over ``[lo, hi)``; ``op`` becomes a call of it over its whole range,
    which may run on threads when ``kinds`` are given (how its iteration values
    combine). ``inside``: ``op.walk()``, when known. Returns the function, the
    call and the function's number of ops (with itself: as many as a walk of it gives)."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, StringAttr, i64

    from irtoolkit.dialects import loop

    if inside is None:
        inside = list(op.walk())
    caps, consts, _ = _free_values(inside, op)
    inits = list(op.iter_args)  # type: ignore[attr-defined]
    if cost is None:
        cost = loop_cost(op.body.block)  # type: ignore[attr-defined]
    arg_types = [IndexType(), IndexType(), *(v.type for v in inits), *(v.type for v in caps)]
    res_types = [r.type for r in op.results]
    entry = Block(arg_types=arg_types)
    _bind_free_values(entry, caps, entry.args[2 + len(inits):], consts, inside, op)
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    entry.add_op(one)
    body = Region()
    op.body.move_blocks(body)  # type: ignore[attr-defined]
    new_loop = loop.ForOp(entry.args[0], entry.args[1], one.result,
                          list(entry.args[2:2 + len(inits)]), body)
    entry.add_op(new_loop)
    entry.add_op(func.ReturnOp(*new_loop.results))
    for o in entry.ops:
        o.location = op.location
    worker = func.FuncOp(name, (arg_types, res_types), Region(entry), visibility="private")
    worker.location = op.location
    # the function, the entry's ops (new_loop in place of op) and the ops nested in op
    size = 1 + len(entry.ops) + len(inside) - 1
    module_block = fn.parent_block()
    assert module_block is not None
    module_block.add_op(worker)
    call = func.CallOp(name, [op.lb, op.ub, *inits, *caps], res_types)  # type: ignore[attr-defined]
    if kinds is not None:
        call.attributes[PARALLEL_ATTR] = ArrayAttr([StringAttr(k) for k in kinds])
        call.attributes[WORK_ATTR] = IntegerAttr(cost, i64)
    call.location = op.location
    Rewriter.replace_op(op, call)
    return worker, call, size


def _same_function(a: Operation, b: Operation) -> bool:
    return a.function_type == b.function_type and a.body.is_structurally_equivalent(b.body)  # type: ignore[attr-defined]


def outline_parallel_loops(module: ModuleOp) -> int:
    """Outline every splittable loop.for whose work may reach PARALLEL_MIN_WORK
    (outermost first; loops nested in an outlined one move with it). Returns how many."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import UnitAttr

    from irtoolkit.dialects import loop

    taken = {o.sym_name.data for o in module.body.block.ops if hasattr(o, "sym_name")}
    count = 0
    # the functions outlined so far, by op count: a loop outlined twice (a gradient
    # recomputes its forward pass) calls the first copy, compiled once
    workers: dict[int, list[Operation]] = {}

    def visit(block: Block, fn: Operation) -> None:
        nonlocal count
        for op in list(block.ops):
            if isinstance(op, loop.ForOp):
                plan = _parallel_plan(op)
                if plan is not None:
                    kinds, memory, inside = plan
                    trips = static_trips(op)
                    cost = loop_cost(op.body.block)
                    if trips is None or trips * cost >= PARALLEL_MIN_WORK:
                        k = 0
                        base = f"{PARALLEL_PREFIX}{fn.sym_name.data}"  # type: ignore[attr-defined]
                        while f"{base}_{k}" in taken:
                            k += 1
                        taken.add(f"{base}_{k}")
                        apart = _reads_apart(*memory)
                        worker, call, size = outline_loop(op, kinds, fn, f"{base}_{k}", cost, inside)
                        if apart:
                            worker.attributes[READS_APART_ATTR] = UnitAttr()
                        same = next((w for w in workers.get(size, ()) if _same_function(worker, w)), None)
                        if same is None:
                            workers.setdefault(size, []).append(worker)
                        else:
                            worker.detach()
                            worker.erase()
                            taken.discard(f"{base}_{k}")
                            call.properties["callee"] = SymbolRefAttr(same.sym_name)  # type: ignore[attr-defined]
                        count += 1
                        continue
            for r in op.regions:
                for b in r.blocks:
                    visit(b, fn)

    for fn in list(module.body.block.ops):
        if isinstance(fn, func.FuncOp) and fn.body.blocks:
            for b in fn.body.blocks:
                visit(b, fn)
    return count


#: A function of at least NEST_FUNCTION_MIN_OPS ops has its runs of loop nests that
#: can leave it (``_movable``) outlined, NEST_OPS ops or so at a time (runs of fewer
#: than NEST_MIN_OPS stay), into private functions ``@__irt_nest_<func>_<k>`` (plain
#: calls): LLVM inlines them back when they are compiled with their caller (the tier-up;
#: the JIT's first tier keeps them out of line: ``abi.NEST_PREFIX``), and the
#: JIT's code generation may compile them in other threads (runtime/codegen.py
#: ``plan``); counted after the parallel loops are outlined. A gradient's function was otherwise one core's work: bench W7's, its
#: ~60 small loops (the softmax, the bias sums, the filter flips) and the col2im
#: scatter, 645 of 918 ms of LLVM's CPU time at tier 0 in one of two groups.
NEST_FUNCTION_MIN_OPS = 500
NEST_OPS = 150
NEST_MIN_OPS = 40
#: on an outlined run whose loads and stores never overlap (``_reads_apart``):
#: kept by convert-func-to-llvm, turned into alias scopes by define-parallel-dispatchers
READS_APART_ATTR = "irt.reads_apart"


def _movable(op: Operation) -> bool:
    """Whether ``op`` may move to another function: a loop.for of positive constant
    step whose nest may (``_memory_of_nest``), or an op that ``_memory_of_nest``
    allows in a nest."""
    from irtoolkit.dialects import loop
    from irtoolkit.passes.lowering.to_llvm.arith import division_checks

    if isinstance(op, loop.ForOp):
        return (_const_int(op.step) or 0) > 0 and _memory_of_nest(op) is not None
    return not op.regions and (op.name in _ALLOWED or op.name.startswith(("arith.", "math."))) \
        and not any(division_checks(op))


def _buffer_lifetime_op(op: Operation) -> bool:
    """A memref.alloc of static shape or a memref.dealloc: one that a run of outlined
    ops may leave before (alloc) or after (dealloc) it."""
    from xdsl.dialects import memref

    return isinstance(op, memref.DeallocOp) or (isinstance(op, memref.AllocOp) and not op.operands)


def outline_loop_nests(module: ModuleOp) -> int:
    """Outline the runs of loop nests of large functions (see NEST_FUNCTION_MIN_OPS);
    returns how many functions it made."""
    from xdsl.dialects import func, memref

    taken = {o.sym_name.data for o in module.body.block.ops if hasattr(o, "sym_name")}
    count = 0
    for fn in list(module.body.block.ops):
        if not isinstance(fn, func.FuncOp) or len(fn.body.blocks) != 1 \
                or fn.sym_name.data.startswith(PARALLEL_PREFIX) \
                or sum(1 for _ in fn.walk()) < NEST_FUNCTION_MIN_OPS:
            continue  # (a parallel loop's worker is one loop, which LLVM would inline back)
        runs: list[list[Operation]] = []
        run: list[Operation] = []
        size = 0
        for op in list(fn.body.block.ops):
            if _buffer_lifetime_op(op):
                if run:
                    run.append(op)
                continue
            if _movable(op):
                run.append(op)
                size += sum(1 for _ in op.walk())
                if size < NEST_OPS:
                    continue
            if size >= NEST_MIN_OPS:
                runs.append(run)
            run, size = [], 0
        if size >= NEST_MIN_OPS:
            runs.append(run)
        k = 0
        for run in runs:
            while f"{NEST_PREFIX}{fn.sym_name.data}_{k}" in taken:
                k += 1
            name = f"{NEST_PREFIX}{fn.sym_name.data}_{k}"
            taken.add(name)
            # the allocations move before the call, the deallocations after it
            block = fn.body.block
            allocs = [o for o in run if isinstance(o, memref.AllocOp)]
            deallocs = [o for o in run if isinstance(o, memref.DeallocOp)]
            ops = [o for o in run if not _buffer_lifetime_op(o)]
            for o in allocs:
                o.detach()
                block.insert_op_before(o, ops[0])
            for o in reversed(deallocs):
                o.detach()
                block.insert_op_after(o, ops[-1])
            outline_ops(ops, fn, name)
            count += 1
    return count


def outline_ops(ops: list[Operation], fn: Operation, name: str) -> tuple[Operation, Operation]:
    """Move the consecutive ops ``ops`` of a block of function ``fn`` to a new private
    function ``name`` (the values they use as arguments, those used after them as
    results); they become a call of it. Returns the function and the call.
    The function is marked READS_APART_ATTR when ``_reads_apart``."""
    from xdsl.dialects import func, memref
    from xdsl.dialects.builtin import UnitAttr

    inside = [o for op in ops for o in op.walk()]
    caps, consts, inside_ids = _free_values(inside, None)
    outs = [r for op in ops for r in op.results if any(id(u.operation) not in inside_ids for u in r.uses)]
    apart = _reads_apart([o for o in inside if isinstance(o, memref.StoreOp)],
                         [o for o in inside if isinstance(o, memref.LoadOp)])
    arg_types = [v.type for v in caps]
    res_types = [r.type for r in outs]
    entry = Block(arg_types=arg_types)
    _bind_free_values(entry, caps, entry.args, consts, inside, None)
    call = func.CallOp(name, caps, res_types)
    call.location = ops[0].location
    block = ops[0].parent_block()
    assert block is not None
    block.insert_op_before(call, ops[0])
    for r, new in zip(outs, call.results):
        for use in list(r.uses):
            if id(use.operation) not in inside_ids:
                use.operation.operands[use.index] = new
    for op in ops:
        op.detach()
        entry.add_op(op)
    ret = func.ReturnOp(*outs)
    ret.location = ops[-1].location
    entry.add_op(ret)
    worker = func.FuncOp(name, (arg_types, res_types), Region(entry), visibility="private")
    worker.location = ops[0].location
    if apart:
        worker.attributes[READS_APART_ATTR] = UnitAttr()
    module_block = fn.parent_block()
    assert module_block is not None
    module_block.add_op(worker)
    return worker, call


@dataclass(frozen=True)
class LowerLoopToCfPass(ModulePass):
    name = "lower-loop-to-cf"

    parallel: bool = option(True, "outline large parallel-safe loops into @__irt_par_* "
                                  "functions that the JIT runs on several threads")
    outline_nests: bool = option(True, "outline the large loop nests of large functions into "
                                       "@__irt_nest_* functions that the JIT may compile in parallel")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.gcpause import paused_gc

        with paused_gc():
            if self.parallel:
                outline_parallel_loops(op)
            if self.outline_nests:
                outline_loop_nests(op)
            lower_loops(op)
