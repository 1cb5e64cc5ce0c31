"""Cheaper reverse loops: stored residuals and stacked outer products.

Two rewrites of the reverse sweep of a ``loop.for`` (reverse.py builds it
first as "recompute the body, then propagate adjoints"):

**Residuals.** After the reverse body is built and its dead code removed, a
recomputed *expensive* op (transcendentals, matmul, pow, div, calls of pure
functions) whose result the adjoint code still reads is not recomputed: its
value is stored by the forward loop in a tape ``tensor<N x T>`` (one
``insert_slice`` per iteration, like the carried values) and read back by the
reverse loop. Ops are taken from the last to the first, so that storing
``tanh(W h + U x + b)`` makes the matmuls feeding it dead instead of storing
them too. Cheap ops (slices, elementwise arithmetic) are still recomputed from
what is stored. (``tensor-fuse`` writes a stored elementwise value straight into
its tape and fuses its readers with reads of the tape: storing costs no copy.)
Loop-invariant ops are never stored (they are hoisted). The
segments of a checkpointed loop (strip-mined, see checkpoint.py) store theirs
while they are recomputed, so that the reverse sweep does not evaluate them a
third time; a loop reversed by Revolve stores none. Memory is bounded: a residual larger than
both the largest carried value and ``MAX_RESIDUAL_ELEMENTS``, or whose tape
would exceed ``MAX_TAPE_ELEMENTS``, is recomputed. (The forward loop first
stores every candidate; the tapes that no reverse sweep reads are dropped once
the derivative is generated.)

**Stacked outer products.** The adjoint of a weight used in the loop is an
accumulator carried through the reverse loop, ``acc += a_t @ b_t`` (for a
matrix-vector product, an outer product ``dz_t h_t^T``: a new m x n tensor and
a full pass over the accumulator every iteration). When the rows stored per
iteration are no more than the accumulator (``k (m + n) <= m n``) and the trip
count ``N`` static, the rows of ``a_t^T`` and ``b_t`` are stacked instead, in
tapes of ``N k`` rows written by the reverse loop, and the sum is one matmul
after it: ``sum_t a_t b_t = A^T B`` with ``A = [a_0^T; ...]``, ``B = [b_0; ...]``.
Storing a row costs a write and a read, as the accumulator pass it replaces
does per element; and one gemm with ``N k`` deep contractions runs well above
the speed of N small ones (packing amortized, both threads of the BLAS busy).
This is the weight gradient of a minibatch recurrent network (``k`` the
batch), ``dW = H^T dZ`` over all steps, as hand-written LSTM backward passes do.
A ``b_t`` that is row ``t`` of a tensor already available (a forward tape, a
function input sliced by the iteration index) is not copied: that tensor is
``B`` itself.
"""

from __future__ import annotations

import functools
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import AnyFloat, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from xdsl.transforms.dead_code_elimination import is_trivially_dead

from irtoolkit.dialects.elementwise import Cost, cost_of
from irtoolkit.passes.ad.emit import DYN, Emitter, const_int
from irtoolkit.passes.transforms.dead_code import erase_dead

# stacking pays when the matmul is big enough and the stored rows small against it
MIN_OUTER_ELEMENTS = 1024
MAX_STORED_FRACTION = 1  # k (m + n) <= m n
# residuals stored per iteration (beyond the size of the carried values) and in all
MAX_RESIDUAL_ELEMENTS = 1 << 16
MAX_TAPE_ELEMENTS = 1 << 25


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _tensor():
    from irtoolkit.dialects import tensor

    return tensor


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


# -- helpers -------------------------------------------------------------------------
def _static_float(t) -> bool:
    if isinstance(t, TensorType):
        return isinstance(t.get_element_type(), AnyFloat) and DYN not in t.get_shape()
    return isinstance(t, AnyFloat)


def _in_block(v: SSAValue, block: Block) -> bool:
    """Is ``v`` defined in ``block`` (at any depth)?"""
    return block.is_ancestor(v.owner)


def dce_block(block: Block, keep: SSAValue | None = None) -> None:
    """Erase the trivially dead ops at the top level of ``block``, except the
    definition of ``keep`` (a value about to be used)."""
    keep_op = None if keep is None else keep.owner
    erase_dead(list(block.ops), lambda o: o.parent is block and o is not keep_op and is_trivially_dead(o))


def _is_expensive(gen, o: Operation) -> bool:
    """Worth storing rather than recomputing: a declared cost of at least a division
    (``dialects/elementwise.py``), or a call of a pure function."""
    if isinstance(o, func.CallOp):
        return gen.driver.is_pure_function(o.callee.string_value())
    return cost_of(o) >= Cost.MEDIUM


def _invariant_ops(loop_op: Operation, ops: list[Operation]) -> set[Operation]:
    """Top-level body ops computed from values defined outside the loop only."""
    from irtoolkit.passes.ad.reverse import defined_inside

    inv: set[Operation] = set()
    for o in ops:
        if o.regions:
            continue
        if all(not defined_inside(v, loop_op) or (v.owner in inv) for v in o.operands):
            inv.add(o)
    return inv


# -- residuals -----------------------------------------------------------------------
def residual_candidates(gen, loop_op) -> list[SSAValue]:
    """Results of the body of ``loop_op`` that its forward loop stores provisionally:
    expensive, not loop-invariant, statically shaped floats. The reverse sweep reads
    those it needs (:func:`tape_residuals`); :func:`prune_residual_tapes` drops the rest."""
    from irtoolkit.passes.ad.activity import body_ops
    from irtoolkit.passes.ad.reverse import REVOLVE_ATTR

    if REVOLVE_ATTR in loop_op.attributes:
        return []  # reversed by Revolve: an iteration is recomputed right before its reversal
    ops = body_ops(loop_op.body.block)
    inv = _invariant_ops(loop_op, ops)
    # memory bound: per iteration, no more than the largest carried value or
    # MAX_RESIDUAL_ELEMENTS; in all, MAX_TAPE_ELEMENTS when the trip count is known
    carried = [elements(a.type) for a in loop_op.body.block.args[1:]]
    per_iter = max([MAX_RESIDUAL_ELEMENTS, *(c for c in carried if c is not None)])
    lb, ub, step = const_int(loop_op.lb), const_int(loop_op.ub), const_int(loop_op.step)
    trips = None
    if lb is not None and ub is not None and step is not None and step > 0:
        trips = max(0, -(-(ub - lb) // step))
    out: list[SSAValue] = []
    for o in ops:
        if (o not in inv and not o.regions and o.results and _is_expensive(gen, o)
                and all(_static_float(r.type) for r in o.results)):
            for r in o.results:
                size = elements(r.type)
                if size <= per_iter and (trips is None or trips * size <= MAX_TAPE_ELEMENTS):
                    out.append(r)
    return out


def elements(t) -> int | None:
    if isinstance(t, TensorType):
        if DYN in t.get_shape():
            return None
        n = 1
        for d in t.get_shape():
            n *= d
        return n
    return 1


def tape_residuals(loop_op, info, block: Block, idx: SSAValue, bmap, load) -> int:
    """In the reverse body ``block``, read the stored residuals (``info.residuals``)
    instead of recomputing them, from the last op to the first, where the adjoint
    code still needs them. Returns how many are read."""
    if not info.residuals:
        return 0
    # the iteration index may have no reader yet: the loads below add them
    dce_block(block, keep=idx)
    count = 0
    for o in reversed([r.owner for r in info.residuals if r.index == 0]):
        clones = [bmap.get(r) for r in o.results]
        if any(c is None for c in clones):
            continue
        c_op = clones[0].owner
        if not isinstance(c_op, Operation) or c_op.parent_block() is not block:
            continue
        if not any(c.uses for c in clones):
            continue
        for r, c in zip(o.results, clones):
            if c.uses:
                Ex = Emitter(block, before=c_op, loc=c_op.location)
                c.replace_all_uses_with(load(Ex, info.residuals[r], idx, r.type))
                count += 1
        dce_block(block, keep=idx)
    return count


def prune_residual_tapes(loops) -> None:
    """Drop the provisional residual tapes that no reverse sweep reads from the forward
    loops ``(for_op, first position, count)`` (run once everything is generated, as
    it replaces the loops): the loop canonicalization's ``ForRemoveDeadIterArgs``
    removes a carried value whose result is unused and that only feeds itself."""
    from xdsl.pattern_rewriter import PatternRewriter

    from irtoolkit.dialects.loop import ForRemoveDeadIterArgs

    for fl, _first, _count in loops:
        if fl.parent_block() is None:
            continue
        inits = [v.owner for v in fl.iter_args if isinstance(v.owner, Operation)]
        ForRemoveDeadIterArgs().match_and_rewrite(fl, PatternRewriter(fl))
        erase_dead(inits)


# -- stacked outer products ----------------------------------------------------------
class StackedTerm:
    """``sum_t a_t @ b_t`` for one invariant: A and B as (tensor, is block-arg index)."""

    def __init__(self, v, a_src, b_src, rows, m, n):
        self.v, self.a_src, self.b_src, self.rows, self.m, self.n = v, a_src, b_src, rows, m, n


class OuterProducts:
    """Collects the tapes that the reverse loop writes for stacked outer products."""

    def __init__(self, block: Block, idx: SSAValue, n_static: int | None, E: Emitter, EB: Emitter):
        self.block, self.idx, self.n, self.E, self.EB = block, idx, n_static, E, EB
        self.inits: list[SSAValue] = []  # new iter_args (tensor.empty before the loop)
        self.yields: list[SSAValue] = []  # their values at the end of an iteration
        self.args: list[BlockArgument] = []
        self.terms: list[StackedTerm] = []
        self.cache: dict[tuple, tuple] = {}

    # rewriting one accumulator --------------------------------------------------------
    def rewrite(self, v: SSAValue, acc: SSAValue, total: SSAValue) -> SSAValue:
        """``total`` is ``acc + ...`` at the end of the body: move its qualifying matmul
        terms out of the loop; returns the new end value (``acc`` if nothing is left)."""
        if not self.n or total is acc or total.uses:
            return total
        t = _tensor()
        nodes: list[Operation] = []
        leaves: list[SSAValue] = []

        def visit(x: SSAValue, top: bool) -> None:
            o = x.owner
            if (isinstance(o, t.AddOp) and o.parent_block() is self.block
                    and (top or x.has_one_use())):
                nodes.append(o)
                visit(o.lhs, False)
                visit(o.rhs, False)
            else:
                leaves.append(x)

        visit(total, True)
        if sum(1 for x in leaves if x is acc) != 1:
            return total
        stacked, others = [], []
        for x in leaves:
            if x is acc:
                continue
            plan = self._plan(x)
            if plan is None:
                others.append(x)
            else:
                stacked.append((x, plan))
        if not stacked:
            return total
        EB = self.EB
        for x, (a, b, k, m, n) in stacked:
            a_src = self._stack(a, transposed=True, k=k, q=m)
            b_src = self._stack(b, transposed=False, k=k, q=n)
            self.terms.append(StackedTerm(v, a_src, b_src, self.n * k, m, n))
        new = acc
        for x in others:
            new = EB.add(new, x)
        for o in nodes:  # top-down: each loses its only use first
            o.parent_block().erase_op(o)
        for x, _ in stacked:
            x.owner.parent_block().erase_op(x.owner)
        return new

    def _plan(self, x: SSAValue):
        t = _tensor()
        o = x.owner
        if not isinstance(o, t.MatmulOp) or o.parent_block() is not self.block or not x.has_one_use():
            return None
        a, b = o.lhs, o.rhs
        if not all(_static_float(v.type) and isinstance(v.type, TensorType) and v.type.get_num_dims() == 2
                   for v in (a, b, x)):
            return None
        m, k = a.type.get_shape()
        n = b.type.get_shape()[1]
        if m * n < MIN_OUTER_ELEMENTS or MAX_STORED_FRACTION * k * (m + n) > m * n:
            return None
        if self.n * k * (m + n) > MAX_TAPE_ELEMENTS:
            return None
        return a, b, k, m, n

    def _stack(self, x: SSAValue, transposed: bool, k: int, q: int):
        """Where the rows of ``x^T`` (or ``x``), k x q per iteration, are stacked:
        ("arg", i) for a tape written by the loop, ("value", src) for an existing tensor."""
        t = _tensor()
        o = x.owner
        v = x
        if isinstance(o, t.TransposeOp) and list(o.permutation.get_values()) == [1, 0]:
            if transposed or k == 1:  # (x^T)^T = input; a 1 x q row has a q x 1 column's layout
                v = o.input
                transposed = False
        if transposed and k != 1:
            tkey = (x, "T")
            if tkey not in self.cache:
                self.cache[tkey] = self.EB.transpose(x, [1, 0])
            v = self.cache[tkey]
        while (isinstance(v.owner, t.TransposeOp) and list(v.owner.permutation.get_values()) == [1, 0]
               and 1 in v.type.get_shape()):
            v = v.owner.input  # moving a unit dim keeps the layout
        key = (v, "rows")
        if key in self.cache:
            return self.cache[key]
        src = self._whole_source(v)
        if src is not None:
            res = ("value", src)
        else:
            shape = v.type.get_shape()
            tt = TensorType(v.type.get_element_type(), [self.n, *shape])
            self.inits.append(self.E.empty(tt))
            arg = self.block.insert_arg(tt, len(self.block.args))
            self.args.append(arg)
            self.yields.append(self.EB.insert_slice(v, arg, [self.idx, 0, 0], [1, *shape], [1, 1, 1]))
            res = ("arg", len(self.args) - 1)
        self.cache[key] = res
        return res

    def _whole_source(self, v: SSAValue) -> SSAValue | None:
        """``src`` if ``v`` is ``src[idx]`` (all of a row of a tensor defined before the loop)."""
        t = _tensor()
        o = v.owner
        if not isinstance(o, t.ExtractSliceOp) or _in_block(o.source, self.block):
            return None
        offsets, sizes, strides = t.slice_params(o)
        st = o.source.type
        if not isinstance(st, TensorType) or DYN in st.get_shape():
            return None
        shape = st.get_shape()
        if shape[0] != self.n or offsets[0] is not self.idx or any(s != 1 for s in strides):
            return None
        if any(off != 0 for off in offsets[1:]) or list(sizes) != [1, *shape[1:]]:
            return None
        return o.source

    # after the loop ---------------------------------------------------------------------
    def finish(self, E: Emitter, rev: Operation, first_result: int, amap) -> None:
        """Emit the matmuls after the reverse loop ``rev``: a `tensor.dot` contracting the
        row dims of both tapes where each is rows x one column dim (the gemm reads the
        tapes in place), else a matmul of the tapes collapsed to matrices."""
        t = _tensor()
        for term in self.terms:
            A, a_split = self._tape(term.a_src, rev, first_result, term.rows)
            B, b_split = self._tape(term.b_src, rev, first_result, term.rows)
            a_rank, b_rank = A.type.get_num_dims(), B.type.get_num_dims()
            if a_split == a_rank - 1 and b_split == b_rank - 1:
                rows = (tuple(range(a_split)), tuple(range(b_split)))
                amap.add(E, term.v, E.v(t.DotOp(A, B, contract=rows)))
                continue
            A = self._matrix(E, A, a_split, term.rows, term.m)
            B = self._matrix(E, B, b_split, term.rows, term.n)
            amap.add(E, term.v, E.matmul(E.transpose(A, [1, 0]), B))

    def _tape(self, src, rev, first: int, rows: int) -> tuple[SSAValue, int]:
        """The tensor of a stacked term and how many of its leading dims make the rows."""
        kind, x = src
        val = rev.results[first + x] if kind == "arg" else x
        shape = val.type.get_shape()
        prod = 1
        for i, d in enumerate(shape):
            prod *= d
            if prod == rows:
                # the columns keep at least one dim (1 x q rows: the split is after the 1)
                return val, min(i + 1, len(shape) - 1)
        raise AssertionError("no row split")  # pragma: no cover - shapes are chosen so that one exists

    def _matrix(self, E: Emitter, val: SSAValue, split: int, rows: int, cols: int) -> SSAValue:
        shape = val.type.get_shape()
        if list(shape) == [rows, cols]:
            return val
        groups = [list(range(split)), list(range(split, len(shape)))]
        tt = TensorType(val.type.get_element_type(), [rows, cols])
        return E.v(_tensor().CollapseShapeOp(val, groups, tt))


# -- tapes that stack the same value ---------------------------------------------------
def _index_value(v: SSAValue, depth: int = 8) -> int | None:
    """The value of an index computed from constants by addi / subi, else None."""
    c = const_int(v)
    if c is not None or depth == 0:
        return c
    o = v.owner
    if isinstance(o, (arith.AddiOp, arith.SubiOp)):
        a, b = _index_value(o.lhs, depth - 1), _index_value(o.rhs, depth - 1)
        if a is not None and b is not None:
            return a + b if isinstance(o, arith.AddiOp) else a - b
    return None


def _visits_every_slot(idx: SSAValue, iv: SSAValue, trips: int) -> bool:
    """Is ``idx`` a bijection of the iterations 0..trips-1 onto 0..trips-1 (``iv`` or
    ``(trips - 1) - iv``, the step of a reverse loop)?"""
    if idx is iv:
        return True
    o = idx.owner
    return isinstance(o, arith.SubiOp) and o.rhs is iv and _index_value(o.lhs) == trips - 1


def _stacked_row(loop_op: Operation, k: int, trips: int):
    """(value, slot index) when iter arg ``k`` of ``loop_op`` ends up as the stack of
    one value per iteration: its only update is ``insert_slice %v into %arg[%idx, 0..]``
    of a whole slot (or, from an all-zero init, ``%arg[%idx] + %v`` written back, as the
    adjoint of a slice accumulates: each slot is read before anything is added to it),
    with ``%idx`` visiting every slot once. Else None."""
    t = _tensor()
    body = loop_op.body.block
    arg, init = body.args[1 + k], loop_op.iter_args[k]
    ins = loop_op.yield_op.operands[k].owner
    if not isinstance(ins, t.InsertSliceOp) or ins.dest is not arg or ins.parent_block() is not body:
        return None
    shape = arg.type.get_shape() if isinstance(arg.type, TensorType) else [DYN]
    offsets, sizes, strides = t.slice_params(ins)
    if DYN in shape or shape[0] != trips or any(s != 1 for s in strides):
        return None
    if any(o != 0 for o in offsets[1:]) or list(sizes) != [1, *shape[1:]]:
        return None
    idx = offsets[0]
    if not isinstance(idx, SSAValue) or not _visits_every_slot(idx, body.args[0], trips):
        return None
    v = ins.source
    users = {u.operation for u in arg.uses}
    if users == {ins}:
        return v, idx
    add = v.owner
    if not isinstance(add, t.AddOp) or not v.has_one_use() or t.splat_constant(init) != 0:
        return None
    for old, new in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        e = old.owner
        if (isinstance(e, t.ExtractSliceOp) and e.source is arg and old.has_one_use() and users == {ins, e}
                and t.slice_params(e) == (offsets, sizes, strides) and e.result.type == new.type):
            return new, idx
    return None


def _plain_copies_first(loop_op: Operation, rows: list) -> list[int]:
    """The iter args with a stacked row (``_stacked_row``), those that copy it into a slot
    first: where two stack the same value, they are the ones kept."""
    body = loop_op.body.block
    return sorted((k for k in range(len(rows)) if rows[k] is not None),
                  key=lambda k: not body.args[1 + k].has_one_use())


def _stacking_loops(root: Operation):
    """The ``loop.for`` ops in ``root`` that run from 0 by step 1 to a static trip count,
    each as (loop, the stacked row of each iter arg (``_stacked_row``), the iter args
    that have one, plain copies first). A loop's rows are read when it is reached, after
    the caller's changes to the loops before it."""
    loop = _loop()
    for lp in [o for o in root.walk() if o.regions and isinstance(o, loop.ForOp)]:
        lb, ub, step = (_index_value(v) for v in (lp.lb, lp.ub, lp.step))
        if lb != 0 or step != 1 or ub is None or ub < 1:
            continue
        rows = [_stacked_row(lp, k, ub) for k in range(len(lp.iter_args))]
        yield lp, rows, _plain_copies_first(lp, rows)


def share_stacked_tapes(root: Operation) -> int:
    """Where two iter args of a ``loop.for`` (0 to a static trip count, step 1) stack the
    same value at the same slots -- the tape of a stacked outer product and the adjoint of
    a slice of a loop invariant, both the gates' cotangent of W9's LSTM -- the results of
    the copy that adds into a zero init read the other; canonicalize then drops it (its
    memset, and a read and a write of the tape a step). Returns how many were shared."""
    shared = 0
    for lp, rows, stacking in _stacking_loops(root):
        seen: dict[tuple[SSAValue, SSAValue], int] = {}
        for k in stacking:
            kept = seen.setdefault(rows[k], k)
            if kept != k and lp.res[k].type == lp.res[kept].type and lp.res[k].uses:
                lp.res[k].replace_all_uses_with(lp.res[kept])
                shared += 1
    return shared


# -- sums of stacked values --------------------------------------------------------------
def _summed_each_step(loop_op: Operation, k: int) -> SSAValue | None:
    """``%v`` when iter arg ``k`` of ``loop_op`` is only ever ``%arg + %v`` (or ``%v + %arg``),
    yielded: the sum of ``%v`` over the iterations (from the init). Else None."""
    t = _tensor()
    body = loop_op.body.block
    arg, end = body.args[1 + k], loop_op.yield_op.operands[k]
    add = end.owner
    if (not isinstance(add, t.AddOp) or add.parent_block() is not body or not end.has_one_use()
            or not arg.has_one_use() or arg.first_use.operation is not add):
        return None
    v = add.rhs if add.lhs is arg else add.lhs
    if v is arg or v.type != arg.type or end.type != arg.type:
        return None
    return v


def sum_stacked_accumulators(root: Operation) -> int:
    """Where an iter arg of a ``loop.for`` (0 to a static trip count, step 1) adds up a
    value that another iter arg stacks whole, one slot an iteration (the adjoint of a
    loop invariant broadcast -- W9's LSTM bias -- beside the gates' cotangent, the tape
    of the weights' stacked outer products), its result is the init plus one
    ``reduce_sum`` of the stack after the loop, instead of an addition of the whole value
    at every step (canonicalize drops the dead iter arg). The sum is then in the
    reduction's order (the lowering adds floats in f64), not the steps'. Returns how many
    were rewritten."""
    t = _tensor()
    rewritten = 0
    for lp, rows, stacking in _stacking_loops(root):
        stacks: dict[SSAValue, int] = {}
        for j in stacking:
            stacks.setdefault(rows[j][0], j)
        if not stacks:
            continue
        E = Emitter(lp.parent_block(), lp.next_op, lp.location)
        for k in range(len(lp.iter_args)):
            v = _summed_each_step(lp, k)
            j = stacks.get(v) if v is not None else None
            if j is None or not lp.res[k].uses:
                continue
            tape = lp.res[j]
            if not isinstance(v.type, TensorType) or list(tape.type.get_shape()[1:]) != list(v.type.get_shape()):
                continue  # (a slot of the tape keeps a unit dim the value does not have)
            # (the init is added after: the steps added it first; + 0.0 is not dropped, as
            # it turns a sum of -0.0 into 0.0)
            total = E.v(t.AddOp(lp.iter_args[k], E.reduce_sum(tape, [0])))
            lp.res[k].replace_all_uses_with(total)
            rewritten += 1
    return rewritten
