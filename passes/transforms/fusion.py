"""`tensor-fuse`: fuse elementwise chains (and the reductions they feed) into one loop nest.

At the tensor level, before bufferization. Two steps:

1. Simplifications that derivative code invites (greedy rewrites):

   * ``reduce_sum(broadcast(x))`` over (static) broadcast-introduced dims -> ``x * count``
     (``reduce_max`` of the same -> ``x``), re-broadcast over the new dims that stay.
   * ``reduce_sum(transpose(a))`` -> ``reduce_sum(a)`` over the permuted dims when
     the kept dims stay in order.
   * ``matmul`` with a splat-valued operand (the adjoint of ``sum(A @ B)``) -> a
     row/column ``reduce_sum`` of the other operand, times the splat value
     (omitted when it is 1), broadcast to the result shape: no GEMM.

   (Neutral operands, ``x * 1`` and the like, are folded by ``canonicalize``.)

2. Fusion. In each block, ops are grouped walking backwards: an op that may be
   a kernel member (``kernel.fusable``: a declared elementwise op with a scalar
   meaning for its element type) joins the group of its users when all its
   users are in one group (so a value used twice *inside* one group is computed
   once per element; a value used by two groups, or outside, cuts the tree there
   and becomes a root of its own). Roots are elementwise ops and reductions. A
   group with at least two ops (or one op reading a non-splat broadcast) is
   replaced by its kernel (``passes/lowering/kernel.py``: one loop nest over its
   iteration domain, the run-time shape checks of its ops before it); a group
   the kernel refuses (``CannotFuse``: a size it cannot find) is left as it is,
   for ``lower-tensor-to-loop``, which makes kernels of single ops with the same
   code. A group (even of one op) whose result only goes into a window of a
   tensor that it reads only through that window (``insert_slice(extract_slice(x)
   + y, x)``) becomes a nest updating ``x`` (``kernel.updates_in_place``).

Options: ``simplify`` (default true), ``fuse`` (default true).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IndexType, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import inherit_location
from irtoolkit.dialects import tensor
from irtoolkit.dominance import DominanceChecker
from irtoolkit.passes.lowering.kernel import (
    REDUCTION,
    CannotFuse,
    Group,
    block_op_list,
    constant_op,
    fusable,
    is_reduction,
    member_code,
    reads_materialised_broadcast,
    replace_with_kernel,
    static_slice_sizes,
    updates_in_place,
)
from irtoolkit.passes.transforms.dead_code import erase_dead
from irtoolkit.pipeline import option

DYN = DYNAMIC_INDEX


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def _elem(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _dims_prop(op: Operation) -> list[int]:
    return [int(x) for x in op.properties["dimensions"].get_values()]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------
# 1. simplifications
# ---------------------------------------------------------------------------


def _splat_tensor(rewriter: PatternRewriter, value: float | int, t: TensorType, new: list[Operation]) -> SSAValue:
    c = constant_op(value, t.get_element_type())
    s = tensor.SplatOp(c.results[0], [], t)
    new += [c, s]
    return s.results[0]


_REDUCTIONS = (tensor.ReduceSumOp, tensor.ReduceMaxOp, tensor.ReduceMinOp, tensor.ReduceProdOp)


class ReduceOfBroadcast(RewritePattern):
    """reduce_sum(broadcast(x)) over new static dims -> x * count (re-broadcast over the
    new dims that are kept); reduce_max(broadcast(x)) and reduce_min(broadcast(x)) -> x
    likewise."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.ReduceSumOp | tensor.ReduceMaxOp | tensor.ReduceMinOp):
            return
        b = op.operands[0].owner
        if not isinstance(b, tensor.BroadcastOp):
            return
        x = b.input
        et = _elem(x)
        if _is_bool(et) or not isinstance(et, AnyFloat | IntegerType | IndexType):
            return
        bdims = _dims_prop(b)
        rdims = _dims_prop(op)
        ishape, oshape = _shape(x), _shape(b.results[0])
        if any(r in bdims for r in rdims) or not rdims:
            return
        # operand dims must not expand (sizes equal, both static or both dynamic)
        for i, d in enumerate(bdims):
            if ishape[i] != oshape[d]:
                return
        count = 1
        for r in rdims:
            if oshape[r] == DYN:
                return
            count *= oshape[r]
        if count == 0:
            return  # empty reductions: leave to the unfused rules
        res = op.results[0]
        kept = [d for d in range(len(oshape)) if d not in rdims]
        new: list[Operation] = []
        val: SSAValue = x
        if isinstance(op, tensor.ReduceSumOp) and count != 1:
            m = tensor.MulOp(x, _splat_tensor(rewriter, count, x.type, new))  # type: ignore[arg-type]
            new.append(m)
            val = m.results[0]
        if len(kept) != len(bdims):
            # some new dims stay: broadcast to them
            pos = [kept.index(d) for d in bdims]
            rshape = _shape(res)
            if any(rshape[k] == DYN for k in range(len(kept)) if k not in pos):
                return
            nb = tensor.BroadcastOp(val, pos, res.type)
            new.append(nb)
            val = nb.results[0]
        elif val.type != res.type:
            return
        for o in new:
            o.location = op.location
        inherit_location(new, op)
        rewriter.replace(op, new, [val])


class ReduceOfTranspose(RewritePattern):
    """reduce_*(transpose(a, perm), R) -> reduce_*(a, perm[R]) when the kept dims stay in order."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _REDUCTIONS):
            return
        t = op.operands[0].owner
        if not isinstance(t, tensor.TransposeOp):
            return
        perm = [int(p) for p in t.permutation.get_values()]
        rdims = _dims_prop(op)
        kept_src = [perm[i] for i in range(len(perm)) if i not in rdims]
        if kept_src != sorted(kept_src):
            return
        new_dims = sorted(perm[r] for r in rdims)
        new = type(op)(t.operands[0], new_dims, op.results[0].type)
        inherit_location(new, op)
        rewriter.replace(op, [new])


class MatmulWithSplat(RewritePattern):
    """A @ splat(c) -> broadcast(reduce_sum(A, [1]) * c); splat(c) @ B -> broadcast(reduce_sum(B, [0]) * c)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.MatmulOp):
            return
        a, b = op.operands[0], op.operands[1]
        res = op.results[0]
        rshape = _shape(res)
        et = _elem(res)
        if _is_bool(et):
            return
        ra, rb = len(_shape(a)), len(_shape(b))
        cb, ca = tensor.splat_constant(b), tensor.splat_constant(a)
        if cb is not None:
            other, c, rdim = a, cb, ra - 1  # sum A over its last dim
            # result dims: [rows of A] + [cols of B, new]
            new_dim = [len(rshape) - 1] if rb == 2 else []
        elif ca is not None:
            other, c, rdim = b, ca, 0  # sum B over its first dim
            new_dim = [0] if ra == 2 else []
        else:
            return
        if any(rshape[d] == DYN for d in new_dim):
            return
        new: list[Operation] = []
        oshape = _shape(other)
        red_shape = [s for i, s in enumerate(oshape) if i != rdim]
        red = tensor.ReduceSumOp(other, [rdim], TensorType(et, red_shape))
        new.append(red)
        val = red.results[0]
        if c != 1:
            m = tensor.MulOp(val, _splat_tensor(rewriter, c, val.type, new))  # type: ignore[arg-type]
            new.append(m)
            val = m.results[0]
        if new_dim:
            kept = [d for d in range(len(rshape)) if d not in new_dim]
            nb = tensor.BroadcastOp(val, kept, res.type)
            new.append(nb)
            val = nb.results[0]
        elif val.type != res.type:
            return
        inherit_location(new, op)
        rewriter.replace(op, new, [val])


SIMPLIFICATIONS: tuple[RewritePattern, ...] = (ReduceOfBroadcast(), ReduceOfTranspose(), MatmulWithSplat())
_SIMPLIFIABLE = (*_REDUCTIONS, tensor.MatmulOp)
#: isinstance(op, _SIMPLIFIABLE) answered once per op class (asked of every op of the module)
_is_simplifiable = instance_test(*_SIMPLIFIABLE)


def simplify_module(top: Operation, max_rounds: int = 4) -> int:
    """Apply SIMPLIFICATIONS until nothing changes (a cheap driver: only the op kinds they
    match are visited); then erase the tensor ops and constants left dead. Returns the
    number of rewrites."""
    count = 0
    candidates = [o for o in top.walk() if _is_simplifiable(o)]
    touched: list[Operation] = []
    for _ in range(max_rounds):
        if not candidates:
            break
        fresh: list[Operation] = []
        for o in candidates:
            if o.parent is None:
                continue
            operands = [v.owner for v in o.operands if isinstance(v.owner, Operation)]
            users = [u.operation for r in o.results for u in r.uses]
            for pat in SIMPLIFICATIONS:
                rewriter = PatternRewriter(o)
                rewriter.operation_insertion_handler.append(
                    lambda n: fresh.append(n) if _is_simplifiable(n) else None
                )
                pat.match_and_rewrite(o, rewriter)
                if rewriter.has_done_action:
                    count += 1
                    touched.extend(operands)
                    # users may match now
                    fresh.extend(u for u in users if _is_simplifiable(u))
                    break
        candidates = fresh
    erase_dead(touched)
    return count


# ---------------------------------------------------------------------------
# 2. fusion
# ---------------------------------------------------------------------------


def _analyse_block(block: Block) -> list[Group]:
    group_of: dict[Operation, Group] = {}
    groups: list[Group] = []
    op = block.last_op
    while op is not None:  # backwards (reversed(list(block.ops)) walked the block twice more)
        code = member_code(op)  # (fusable(op), kept for the kernel)
        if code is not None:
            g = None if code is REDUCTION else _users_group(op, group_of)
            if g is None:
                g = Group(op)
                groups.append(g)
            g.add(op, code)
            group_of[op] = g
        op = op.prev_op
    return groups


def _users_group(op: Operation, group_of: dict[Operation, Group]) -> Group | None:
    """The one group all of ``op``'s users (it has some) are in, else None."""
    found = None
    for r in op.results:
        single = r.get_unique_use()  # (most values: one use, without iterating r.uses)
        for use in r.uses if single is None else (single,):
            g = group_of.get(use.operation)
            if g is None or (found is not None and g is not found):
                return None
            found = g
    return found


def _worth_fusing(g: Group, into: Operation | None) -> bool:
    # one op is worth a kernel when it reads a materialised broadcast (the nest reads
    # the broadcast's input) or writes into a slice of a tensor in place;
    # lower-tensor-to-loop makes kernels of the other single ops
    return len(g.members) >= 2 or into is not None or reads_materialised_broadcast(g.root)


def _fuse_group(g: Group, into: Operation | None) -> bool:
    try:
        replace_with_kernel(g, into)
    except CannotFuse:
        return False
    return True


_is_insert_slice = instance_test(tensor.InsertSliceOp)


def store_before_reading(block: Block) -> None:
    """``%t = f(..)`` read by kernels and stored by ``insert_slice %t into %tape[..]``
    (a residual the forward loop tapes): the store moves right after ``%t`` and the
    readers read the stored window instead, so that ``%t``'s kernel writes into the
    tape (``updates_in_place``) and its readers' kernels read it there, instead of a
    temporary copied into the tape after them. Only when the tape has no other use
    and the readers are elementwise (they read a window through, without a copy)."""
    for ins in [o for o in block_op_list(block) if _is_insert_slice(o)]:
        src, dest = ins.operands[0], ins.operands[1]
        owner = src.owner
        if (not isinstance(owner, Operation) or owner.parent_block() is not block or not fusable(owner)
                or is_reduction(owner) or len(list(dest.uses)) != 1 or static_slice_sizes(ins) is None):
            continue
        readers = [u.operation for u in src.uses if u.operation is not ins]
        if not readers or not all(fusable(r) and not is_reduction(r) and r.parent_block() is block for r in readers):
            continue
        dominance = DominanceChecker()  # a fresh one: the stores before moved
        if not all(dominance.properly_dominates(v, owner) for v in ins.operands[1:]):
            continue
        ins.detach()
        block.insert_op_after(ins, owner)
        window = tensor.ExtractSliceOp(ins.results[0], *tensor.slice_params(ins), src.type)
        window.location = ins.location
        block.insert_op_after(window, ins)
        for r in readers:
            for i, v in enumerate(r.operands):
                if v is src:
                    r.operands[i] = window.results[0]


def fuse_region_ops(top: Operation) -> int:
    """Fuse every block nested in ``top``; returns how many groups were fused."""
    blocks = [b for o in top.walk() for r in o.regions for b in r.blocks]
    n = 0
    for b in blocks:
        store_before_reading(b)
        for g in _analyse_block(b):
            into = updates_in_place(g)
            if _worth_fusing(g, into) and _fuse_group(g, into):
                n += 1
    return n


@dataclass(frozen=True)
class TensorFusePass(ModulePass):
    """Fuse chains of elementwise and reduction ops into one loop nest (see the module doc)."""

    name = "tensor-fuse"

    simplify: bool = option(True, "first apply the simplifications derivative code invites (sums of broadcasts ...)")
    fuse: bool = option(True, "fuse elementwise chains and reductions into loop nests")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.simplify:
            simplify_module(op)
        if self.fuse:
            fuse_region_ops(op)
