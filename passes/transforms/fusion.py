"""`tensor-fuse`: fuse elementwise chains (and the reductions they feed) into one loop nest.

At the tensor level, before bufferization. Two steps:

1. Simplifications that derivative code invites (greedy rewrites):

   * ``x * 1``, ``1 * x``, ``x / 1`` -> ``x``; ``x + 0``, ``0 + x``, ``x - 0`` -> ``x``, where
     the neutral operand is a splat seen through ``tensor.splat`` of a constant,
     ``arith.constant dense<c>`` and ``tensor.broadcast`` of those. (``x + 0.0`` -> ``x``
     keeps ``-0.0`` where the unfused code would give ``+0.0``: equal values, as
     JAX/XLA's algebraic simplifier does.)
   * ``reduce_sum(broadcast(x))`` over (static) broadcast-introduced dims -> ``x * count``
     (``reduce_max`` of the same -> ``x``), re-broadcast over the new dims that stay.
   * ``reduce_sum(transpose(a))`` -> ``reduce_sum(a)`` over the permuted dims when
     the kept dims stay in order.
   * ``matmul`` with a splat-valued operand (the adjoint of ``sum(A @ B)``) -> a
     row/column ``reduce_sum`` of the other operand, times the splat value
     (omitted when it is 1), broadcast to the result shape: no GEMM.

2. Fusion. In each block, ops are grouped walking backwards: an elementwise op
   (``tensor.ELEMENTWISE_OPS``) joins the group of its users when all its users
   are in one group (so a value used twice *inside* one group is computed once
   per element; a value used by two groups, or outside, cuts the tree there and
   becomes a root of its own). Roots are elementwise ops and ``reduce_sum`` /
   ``reduce_max``. Operands produced by ``tensor.splat`` / splat constants are
   read as their scalar, ``tensor.broadcast`` operands as an index remapping of
   their input (through chains of broadcasts); anything else (matmul,
   transpose, slices, arguments, ...) is a leaf read by ``tensor.extract``.
   A group with at least two ops (or one op reading a non-splat broadcast) is
   rewritten into one loop nest over its iteration domain::

       %e = tensor.empty(...) : tensor<...>
       %r = loop.for %i = %c0 to %d0 step %c1 iter_args(%o = %e) -> (tensor<...>) {
         %x = tensor.extract %leaf[%i] ...
         ... scalar arith/math ...
         %o2 = tensor.insert %y into %o[%i] ...
         loop.yield %o2 : tensor<...>
       }

   (``lower-tensor-to-loop`` updates such carried tensors in place). Reductions
   are fused with their tree: a full reduction carries a scalar accumulator and
   ``tensor.extract %s[]`` of its 0-d result reads the accumulator; partial
   reductions loop over the kept dims (carrying the output tensor) around the
   reduced dims. The reduction loops are ``tensor_to_loop_ops.reduce_nest``'s, as
   in the unfused lowering: float sums are blocked (``SUM_BLOCK`` terms per block,
   additions ``fastmath<reassoc>`` so that LLVM vectorizes them with partial sums,
   f16/f32 accumulated in f64), so fused and unfused sums agree to a few ulps of
   sum(|terms|) (not bit for bit: LLVM may pick other vector widths for the two
   loops). The ``tensor.extract`` / ``tensor.insert`` ops of a nest carry
   ``irt.in_bounds`` (``IN_BOUNDS``): their indices are in bounds by the checks
   before the nest, so the loop holds no ``cf.assert`` (and can be split over
   threads by ``lower-loop-to-cf``). Scalar semantics come from ``tensor_to_loop_ops`` (the rules of
   the unfused lowering). Dynamic dims are taken from ``tensor.dim`` of a leaf
   (or from splat/empty size operands); a group whose sizes cannot be found, or
   which contains an op the scalar rules reject, is left as it is.

   Run-time shape checks: before each nest, the group emits the checks the
   unfused lowering would (``tensor_to_loop_ops._check_same_shapes`` /
   ``check_eq``): for every member, its operands' dims agree (and a dynamic
   operand dim matches a static result dim); for every broadcast read as an
   index remapping, each dynamic operand dim is 1 or the static result size;
   for a fused reduction, static result dims match the operand. Each is
   ``tensor.dim`` + ``arith.cmpi eq`` + ``cf.assert`` with the unfused message,
   located at the original op. Compared constants (static shapes) emit nothing.

Options: ``simplify`` (default true), ``fuse`` (default true).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from irtoolkit.diagnostics import DiagnosticError, inherit_location
from irtoolkit.pipeline import option
from irtoolkit.dialects import tensor as T
from irtoolkit.dialects.loop import ForOp, YieldOp
from irtoolkit.passes.lowering import tensor_to_loop_ops as S

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


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _dims_prop(op: Operation) -> list[int]:
    return [int(x) for x in S.int_list(S.prop(op, "dimensions"))]


def splat_value(v: SSAValue) -> float | int | None:
    """The number every element of ``v`` equals, when that is known statically:
    dense splat constants, ``tensor.splat`` of a scalar constant, broadcasts of those."""
    owner = v.owner
    if isinstance(owner, T.BroadcastOp):
        return splat_value(owner.input)
    if isinstance(owner, T.SplatOp):
        src = owner.input.owner
        if isinstance(src, arith.ConstantOp):
            val = src.value
            if isinstance(val, FloatAttr | IntegerAttr):
                return val.value.data
        return None
    if isinstance(owner, arith.ConstantOp) and isinstance(v.type, TensorType):
        return T._splat_value(v)
    return None


def _splat_scalar_source(v: SSAValue) -> SSAValue | float | int | None:
    """A splat-valued tensor's element: an SSA scalar (``tensor.splat``) or a number."""
    owner = v.owner
    if isinstance(owner, T.BroadcastOp):
        return _splat_scalar_source(owner.input)
    if isinstance(owner, T.SplatOp):
        return owner.input
    if isinstance(owner, arith.ConstantOp) and isinstance(v.type, TensorType):
        return T._splat_value(v)
    return None


def _const_op(value: float | int, t: Attribute) -> Operation:
    if _is_float(t):
        return arith.ConstantOp(FloatAttr(float(value), t))  # type: ignore[arg-type]
    if _is_bool(t):
        value = 1 if value else 0
    return arith.ConstantOp(IntegerAttr(int(value), t))  # type: ignore[arg-type]


def _is_elementwise(op: Operation) -> bool:
    return (
        isinstance(op, T.ELEMENTWISE_OPS)
        and len(op.results) == 1
        and all(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
    )


def _is_reduce(op: Operation) -> bool:
    return isinstance(op, T.ReduceSumOp | T.ReduceMaxOp)


# ---------------------------------------------------------------------------
# 1. simplifications
# ---------------------------------------------------------------------------


def _splat_tensor(rewriter: PatternRewriter, value: float | int, t: TensorType, new: list[Operation]) -> SSAValue:
    c = _const_op(value, t.get_element_type())
    s = T.SplatOp(c.results[0], [], t)
    new += [c, s]
    return s.results[0]


class NeutralOperand(RewritePattern):
    """x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0 -> x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, T.MulOp | T.AddOp | T.SubOp | T.DivOp):
            return
        neutral = 1 if isinstance(op, T.MulOp | T.DivOp) else 0
        lhs, rhs = op.operands
        pairs = [(lhs, rhs)]
        if isinstance(op, T.MulOp | T.AddOp):
            pairs.append((rhs, lhs))
        for x, n in pairs:
            if x.type != op.results[0].type:
                continue
            c = splat_value(n)
            if c is not None and c == neutral and not _is_bool(_elem(x)):
                rewriter.replace(op, [], [x])
                return


class ReduceOfBroadcast(RewritePattern):
    """reduce_sum(broadcast(x)) over new static dims -> x * count (re-broadcast over the
    new dims that are kept); reduce_max(broadcast(x)) -> x likewise."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not _is_reduce(op):
            return
        b = op.operands[0].owner
        if not isinstance(b, T.BroadcastOp):
            return
        x = b.input
        et = _elem(x)
        if _is_bool(et) or not (_is_float(et) or isinstance(et, IntegerType | IndexType)):
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
        if isinstance(op, T.ReduceSumOp) and count != 1:
            m = T.MulOp(x, _splat_tensor(rewriter, count, x.type, new))  # type: ignore[arg-type]
            new.append(m)
            val = m.results[0]
        if len(kept) != len(bdims):
            # some new dims stay: broadcast to them
            pos = [kept.index(d) for d in bdims]
            rshape = _shape(res)
            if any(rshape[k] == DYN for k in range(len(kept)) if k not in pos):
                return
            nb = T.BroadcastOp(val, pos, res.type)
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
        if not _is_reduce(op):
            return
        t = op.operands[0].owner
        if not isinstance(t, T.TransposeOp):
            return
        perm = [int(p) for p in S.int_list(S.prop(t, "permutation"))]
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
        if not isinstance(op, T.MatmulOp):
            return
        a, b = op.operands[0], op.operands[1]
        res = op.results[0]
        rshape = _shape(res)
        et = _elem(res)
        if _is_bool(et):
            return
        ra, rb = len(_shape(a)), len(_shape(b))
        cb, ca = splat_value(b), splat_value(a)
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
        red = T.ReduceSumOp(other, [rdim], TensorType(et, red_shape))
        new.append(red)
        val = red.results[0]
        if c != 1:
            m = T.MulOp(val, _splat_tensor(rewriter, c, val.type, new))  # type: ignore[arg-type]
            new.append(m)
            val = m.results[0]
        if new_dim:
            kept = [d for d in range(len(rshape)) if d not in new_dim]
            nb = T.BroadcastOp(val, kept, res.type)
            new.append(nb)
            val = nb.results[0]
        elif val.type != res.type:
            return
        inherit_location(new, op)
        rewriter.replace(op, new, [val])


SIMPLIFICATIONS: tuple[RewritePattern, ...] = (
    NeutralOperand(), ReduceOfBroadcast(), ReduceOfTranspose(), MatmulWithSplat(),
)
_SIMPLIFIABLE = (T.MulOp, T.AddOp, T.SubOp, T.DivOp, T.ReduceSumOp, T.ReduceMaxOp, T.MatmulOp)


def simplify_module(top: Operation, max_rounds: int = 4) -> int:
    """Apply SIMPLIFICATIONS until nothing changes (a cheap driver: only the op kinds they
    match are visited); then erase the tensor ops and constants left dead. Returns the
    number of rewrites."""
    count = 0
    candidates = [o for o in top.walk() if isinstance(o, _SIMPLIFIABLE)]
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
                    lambda n: fresh.append(n) if isinstance(n, _SIMPLIFIABLE) else None
                )
                pat.match_and_rewrite(o, rewriter)
                if rewriter.has_done_action:
                    count += 1
                    touched.extend(operands)
                    # users may match now (x * 1 feeding a reduce, ...)
                    fresh.extend(u for u in users if isinstance(u, _SIMPLIFIABLE))
                    break
        candidates = fresh
    _erase_dead([o for o in touched if o.parent is not None])
    return count


# ---------------------------------------------------------------------------
# 2. fusion
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class _Group:
    root: Operation
    members: list[Operation] = field(default_factory=list)  # reverse block order, root first
    member_set: set[Operation] = field(default_factory=set)

    def add(self, op: Operation) -> None:
        self.members.append(op)
        self.member_set.add(op)


class _Emitter:
    """What the scalar rules of ``tensor_to_loop_ops`` use of their driver (``emit1``,
    ``const``), emitting into staging blocks: constants, hoisted values, the nest."""

    def __init__(self, loc) -> None:
        self.consts = Block()
        self.hoist = Block()
        self.main = Block()
        self.block = self.main
        self.loc = loc
        self._consts: dict[tuple[object, Attribute], SSAValue] = {}

    def emit(self, op: Operation) -> Operation:
        op.location = self.loc
        self.block.add_op(op)
        return op

    def emit1(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    def hoisted(self, op: Operation) -> SSAValue:
        op.location = self.loc
        self.hoist.add_op(op)
        return op.results[0]

    @contextmanager
    def at(self, block: Block):
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    def const(self, value: int | float, t: Attribute) -> SSAValue:
        key = (("f", repr(float(value))) if _is_float(t) else int(value), t)
        got = self._consts.get(key)
        if got is None:
            op = _const_op(value, t)
            op.location = self.loc
            self.consts.add_op(op)
            got = self._consts[key] = op.results[0]
        return got

    def index(self, n: int) -> SSAValue:
        return self.const(n, IndexType())

    def ops(self) -> list[Operation]:
        out = []
        for b in (self.consts, self.hoist, self.main):
            for o in list(b.ops):
                o.detach()
                out.append(o)
        return out

    def discard(self) -> None:
        for b in (self.main, self.hoist, self.consts):
            for o in reversed(list(b.ops)):
                o.detach()
                o.erase(safe_erase=False)


#: discardable attribute on the ``tensor.extract`` / ``tensor.insert`` ops of a fused nest:
#: their indices are in bounds by construction (the group's shape checks run before the
#: nest), so ``lower-tensor-to-loop`` emits no bounds check for them (keeping the loop free
#: of ``cf.assert``: vectorizable, and splittable over threads by ``lower-loop-to-cf``)
IN_BOUNDS = "irt.in_bounds"


def _in_bounds(op: Operation) -> Operation:
    from xdsl.dialects.builtin import UnitAttr

    op.attributes[IN_BOUNDS] = UnitAttr()
    return op


class _CannotFuse(Exception):
    pass


class _CheckEmitter:
    """The driver interface of the run-time shape checks of ``tensor_to_loop_ops``
    (``check_eq`` / ``_check_same_shapes``), emitting into the hoisted block of a
    group with the location of the op being checked (so a failing ``cf.assert``
    points at the original elementwise op, as in the unfused lowering)."""

    const_values: dict = {}

    def __init__(self, b: "_GroupBuilder", op: Operation) -> None:
        self.b = b
        self.loc = op.location

    def emit(self, op: Operation) -> Operation:
        op.location = self.loc
        self.b.E.hoist.add_op(op)
        return op

    def emit1(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    def index(self, n: int) -> SSAValue:
        return self.b.E.index(n)

    def dims(self, v: SSAValue) -> list[SSAValue]:
        return self.b.sizes(v)


class _GroupBuilder:
    def __init__(self, g: _Group):
        self.g = g
        self.E = _Emitter(g.root.location)
        self.memo: dict[tuple, SSAValue] = {}
        self.dim_memo: dict[tuple[SSAValue, int], SSAValue | None] = {}
        self.is1: dict[tuple[SSAValue, int], SSAValue] = {}
        self.leaf_ops: list[Operation] = []

    # -- sizes -------------------------------------------------------------

    def _elementwise_members(self) -> list[Operation]:
        return [m for m in self.g.members if not _is_reduce(m)]

    def _domain_leaves(self, dom: SSAValue) -> list[SSAValue]:
        """Tensors read at the domain indices: operands of members that are not members."""
        ew = self._elementwise_members()
        if not ew:
            return [dom]
        out = []
        for m in ew:
            for o in m.operands:
                if isinstance(o.type, TensorType) and not (isinstance(o.owner, Operation) and o.owner in self.g.member_set):
                    out.append(o)
        return out

    def dim_of(self, v: SSAValue, d: int, depth: int = 0) -> SSAValue | None:
        """Size ``d`` of leaf ``v``: a constant, a size operand, or ``tensor.dim`` (None: unknown)."""
        key = (v, d)
        if key in self.dim_memo:
            return self.dim_memo[key]
        E = self.E
        s = _shape(v)[d]
        owner = v.owner
        r: SSAValue | None
        if s != DYN:
            r = E.index(s)
        elif isinstance(owner, T.BroadcastOp) and depth < 64:
            r = None
            ishape = _shape(owner.input)
            for i, dd in enumerate(_dims_prop(owner)):
                if dd == d and ishape[i] != 1:
                    r = self.dim_of(owner.input, i, depth + 1)
        elif isinstance(owner, T.SplatOp | T.EmptyOp):
            sizes = list(owner.dynamicSizes if isinstance(owner, T.SplatOp) else owner.dynamic_sizes)
            k = sum(1 for x in _shape(v)[:d] if x == DYN)
            r = sizes[k] if k < len(sizes) else None
        else:
            r = E.hoisted(T.DimOp(v, E.index(d)))
        self.dim_memo[key] = r
        return r

    def domain_dims(self, dom: SSAValue) -> list[SSAValue]:
        leaves = self._domain_leaves(dom)
        out = []
        for d, s in enumerate(_shape(dom)):
            if s != DYN:
                out.append(self.E.index(s))
                continue
            # prefer a static size, then any size we can find
            static = [l for l in leaves if _shape(l)[d] != DYN]
            r = self.dim_of(static[0], d) if static else None
            for leaf in leaves:
                if r is not None:
                    break
                r = self.dim_of(leaf, d)
            if r is None:
                raise _CannotFuse(f"size #{d} unknown")
            out.append(r)
        return out

    # -- run-time shape checks --------------------------------------------

    def sizes(self, v: SSAValue, depth: int = 0) -> list[SSAValue]:
        """Sizes of ``v`` as the unfused lowering sees them: a member's come from
        its first non-splat operand (or its static result type), a leaf's from
        ``dim_of``."""
        owner = v.owner
        shp = _shape(v)
        if isinstance(owner, Operation) and owner in self.g.member_set and not _is_reduce(owner):
            real = self._real_operands(owner)
            first = self.sizes(real[0], depth + 1) if real and DYN in shp and depth < 256 else []
            out = []
            for d, s in enumerate(shp):
                if s != DYN:
                    out.append(self.E.index(s))
                elif d < len(first):
                    out.append(first[d])
                else:
                    raise _CannotFuse(f"size #{d} of a member unknown")
            return out
        out = []
        for d in range(len(shp)):
            r = self.dim_of(v, d)
            if r is None:
                raise _CannotFuse(f"size #{d} of a leaf unknown")
            out.append(r)
        return out

    @staticmethod
    def _real_operands(m: Operation) -> list[SSAValue]:
        """Tensor operands the unfused lowering compares (statically shaped splats
        are read as scalars there and not compared)."""
        return [
            o for o in m.operands
            if isinstance(o.type, TensorType)
            and not (DYN not in _shape(o) and isinstance(o.owner, T.SplatOp | arith.ConstantOp)
                     and _splat_scalar_source(o) is not None)
        ]

    def emit_checks(self) -> None:
        """Before the nest: the checks the unfused lowering would emit for the
        members (operand dims agree, dynamic operand dims match a static result
        type) and for the broadcasts read as index remappings (each source dim is
        1 or the result size). All-static shapes emit nothing."""
        seen: set[Operation] = set()
        for m in reversed(self._elementwise_members()):  # block order
            real = self._real_operands(m)
            for o in m.operands:
                if isinstance(o.type, TensorType):
                    self._broadcast_checks(o, seen)
            S._check_same_shapes(_CheckEmitter(self, m), m, real, [])  # type: ignore[arg-type]
        root = self.g.root
        if _is_reduce(root):
            # the reduction's static result dims against its operand's (kept) sizes
            src = root.operands[0]
            self._broadcast_checks(src, seen)
            sd = self.sizes(src)
            rdims = _dims_prop(root)
            kept = [sd[i] for i in range(len(sd)) if i not in rdims]
            S.result_dims(_CheckEmitter(self, root), root.results[0], kept)  # type: ignore[arg-type]

    def _broadcast_checks(self, v: SSAValue, seen: set[Operation], depth: int = 0) -> None:
        b = v.owner
        if not isinstance(b, T.BroadcastOp) or b in self.g.member_set or b in seen or depth > 64:
            return
        seen.add(b)
        self._broadcast_checks(b.input, seen, depth + 1)
        ishape, oshape = _shape(b.input), _shape(b.results[0])
        C = _CheckEmitter(self, b)
        for i, d in enumerate(_dims_prop(b)):
            # dynamic -> dynamic: the result size is the operand size (nothing to check);
            # static -> anything: verified
            if ishape[i] != DYN or oshape[d] == DYN:
                continue
            got = self.dim_of(b.input, i)
            if got is None:
                raise _CannotFuse(f"size #{i} of a broadcast operand unknown")
            want = self.E.index(oshape[d])
            is1 = C.emit1(arith.CmpiOp(got, self.E.index(1), "eq"))
            got = C.emit1(arith.SelectOp(is1, want, got))
            S.check_eq(C, b, got, want,  # type: ignore[arg-type]
                       f"cannot broadcast at run time: operand dim {i} is neither 1 "
                       f"nor the size of result dim {d} (operand size vs result size)")

    # -- scalar reads ------------------------------------------------------

    def compute_members(self, idx: Sequence[SSAValue]) -> None:
        """Scalars of every elementwise member at ``idx``, in block order (no recursion)."""
        self.memo = {}
        E = self.E
        saved = E.loc
        try:
            for m in reversed(self._elementwise_members()):
                xs = [self.read(o, idx) for o in m.operands]
                E.loc = m.location
                self.memo[(m.results[0], *idx)] = self.scalar(m, xs)
        finally:
            E.loc = saved

    def read(self, v: SSAValue, idx: Sequence[SSAValue], depth: int = 0) -> SSAValue:
        key = (v, *idx)
        got = self.memo.get(key)
        if got is None:
            got = self._read(v, idx, depth)
            self.memo[key] = got
        return got

    def _read(self, v: SSAValue, idx: Sequence[SSAValue], depth: int) -> SSAValue:
        E = self.E
        owner = v.owner
        if isinstance(owner, Operation) and owner in self.g.member_set:
            raise _CannotFuse("member read before it was computed")
        src = _splat_scalar_source(v)
        if isinstance(src, SSAValue):
            self._note_leaf(owner)
            return src
        if src is not None:
            self._note_leaf(owner)
            return E.const(src, _elem(v))
        if isinstance(owner, T.BroadcastOp) and depth < 64:
            self._note_leaf(owner)
            return self.read(owner.input, self.remap(owner, idx), depth + 1)
        return E.emit1(_in_bounds(T.ExtractOp(v, list(idx))))

    def _note_leaf(self, op: Operation | None) -> None:
        if isinstance(op, Operation):
            self.leaf_ops.append(op)

    def remap(self, b: Operation, idx: Sequence[SSAValue]) -> list[SSAValue]:
        E = self.E
        x = b.operands[0]
        ishape, oshape = _shape(x), _shape(b.results[0])
        out = []
        for i, d in enumerate(_dims_prop(b)):
            if ishape[i] == 1:
                out.append(E.index(0))
            elif ishape[i] == DYN:
                # a dynamic operand dim of size 1 expands (as the unfused lowering)
                is1 = self.is1.get((x, i))
                if is1 is None:
                    n = self.dim_of(x, i)
                    if n is None:
                        n = E.hoisted(T.DimOp(x, E.index(i)))
                    is1 = E.hoisted(arith.CmpiOp(n, E.index(1), "eq"))
                    self.is1[(x, i)] = is1
                out.append(E.emit1(arith.SelectOp(is1, E.index(0), idx[d])))
            else:
                out.append(idx[d])
        del oshape
        return out

    def scalar(self, op: Operation, xs: list[SSAValue]) -> SSAValue:
        E = self.E
        name = op.name
        if name in S._BINARY:
            return S.scalar_binary(E, S._BINARY[name], xs[0], xs[1], op)  # type: ignore[arg-type]
        if name in S._UNARY:
            return S.scalar_unary(E, S._UNARY[name], xs[0], op)  # type: ignore[arg-type]
        if name == "tensor.cmp":
            pred = S.predicate_of(op)
            if pred not in S._CMPF:
                raise _CannotFuse(f"predicate {pred}")
            return S.scalar_cmp(E, pred, xs[0], xs[1])  # type: ignore[arg-type]
        if name == "tensor.select":
            return E.emit1(arith.SelectOp(xs[0], xs[1], xs[2]))
        if name == "tensor.convert":
            return S.scalar_convert(E, xs[0], _elem(op.results[0]))  # type: ignore[arg-type]
        raise _CannotFuse(name)

    # -- loops -------------------------------------------------------------

    def nest(self, dims: Sequence[SSAValue], inits: list[SSAValue], body) -> list[SSAValue]:
        """loop.for nest over dims carrying inits; body(ivs, carried) -> new carried."""
        E = self.E

        def rec(k: int, ivs: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
            if k == len(dims):
                return list(body(ivs, accs))
            blk = Block(arg_types=[IndexType(), *(a.type for a in accs)])
            loop = ForOp(E.index(0), dims[k], E.index(1), accs, blk)
            E.emit(loop)
            with E.at(blk):
                new = rec(k + 1, [*ivs, blk.args[0]], list(blk.args[1:]))
                E.emit(YieldOp(*new))
            return list(loop.results)

        return rec(0, [], inits)

    def empty(self, t: TensorType, dims: Sequence[SSAValue]) -> SSAValue:
        dyn = [d for d, s in zip(dims, t.get_shape()) if s == DYN]
        return self.E.emit1(T.EmptyOp(dyn, t))

    # -- the group ---------------------------------------------------------

    def build(self) -> tuple[SSAValue, SSAValue | None]:
        """Emit the nest; (new root result, scalar for a 0-d reduction or None)."""
        root = self.g.root
        res = root.results[0]
        rt = res.type
        assert isinstance(rt, TensorType)
        E = self.E
        self.emit_checks()
        if not _is_reduce(root):
            dims = self.domain_dims(res)
            out = self.empty(rt, dims)

            def body(ivs, accs):
                self.compute_members(ivs)
                y = self.read(res, ivs)
                return [E.emit1(_in_bounds(T.InsertOp(y, accs[0], list(ivs))))]

            (r,) = self.nest(dims, [out], body)
            return r, None
        # reductions
        src = root.operands[0]
        rdims = _dims_prop(root)
        sdims = self.domain_dims(src)
        kept = [i for i in range(len(sdims)) if i not in rdims]
        et = _elem(res)
        kind = "sum" if isinstance(root, T.ReduceSumOp) else "max"

        def reduce_at(ivs: list[SSAValue]) -> SSAValue:
            def term(rivs: list[SSAValue]) -> SSAValue:
                idx: list[SSAValue] = [None] * len(sdims)  # type: ignore[list-item]
                for i, v in zip(kept, ivs):
                    idx[i] = v
                for i, v in zip(rdims, rivs):
                    idx[i] = v
                self.compute_members(idx)
                return self.read(src, idx)

            return S.reduce_nest(E, kind, [sdims[i] for i in rdims], et, root, term)

        if kind == "sum" and S.row_by_row(src, rdims, et):
            kdims = [sdims[i] for i in kept]
            shape = rt.get_shape()
            cells = S.Cells(
                new=lambda t: self.empty(TensorType(t, shape), kdims),
                get=lambda acc, ivs: E.emit1(_in_bounds(T.ExtractOp(acc, list(ivs)))),
                put=lambda v, acc, ivs: E.emit1(_in_bounds(T.InsertOp(v, acc, list(ivs)))),
                free=lambda acc: None, carried=True)

            def term(idx: list[SSAValue]) -> SSAValue:
                self.compute_members(idx)
                return self.read(src, idx)

            return S.leading_sum(E, cells, term, sdims, len(rdims), et), None
        if not kept:
            acc = reduce_at([])
            out = self.empty(rt, [])
            return E.emit1(T.InsertOp(acc, out, [])), acc
        kdims = [sdims[i] for i in kept]
        out = self.empty(rt, kdims)
        (r,) = self.nest(kdims, [out], lambda ivs, accs: [E.emit1(_in_bounds(T.InsertOp(reduce_at(ivs), accs[0], list(ivs))))])
        return r, None


def _analyse_block(block: Block) -> list[_Group]:
    group_of: dict[Operation, _Group] = {}
    groups: list[_Group] = []
    for op in reversed(list(block.ops)):
        if _is_elementwise(op):
            users = {u.operation for r in op.results for u in r.uses}
            owners = {id(group_of[u]): group_of[u] for u in users if u in group_of}
            if users and all(u in group_of for u in users) and len(owners) == 1:
                g = next(iter(owners.values()))
                g.add(op)
                group_of[op] = g
                continue
            g = _Group(op)
            g.add(op)
            group_of[op] = g
            groups.append(g)
        elif _is_reduce(op):
            g = _Group(op)
            g.add(op)
            group_of[op] = g
            groups.append(g)
    return groups


#: ops lowered to vectorizable polynomial kernels (to_llvm/vector_math.py); a fused float
#: sum of them vectorizes too (its additions are reassociable, see ``reduce_nest``)
VECTOR_MATH_OPS = (T.ExpOp, T.LogOp, T.TanhOp, T.SinOp, T.CosOp, T.LogisticOp)


def _worth_fusing(g: _Group) -> bool:
    if len(g.members) >= 2:
        return True
    # one op: worth it when it reads a materialised broadcast (the nest reads its input)
    for v in g.root.operands:
        owner = v.owner
        if isinstance(owner, T.BroadcastOp) and _splat_scalar_source(v) is None:
            return True
    return False


def _erase_dead(ops: Sequence[Operation]) -> None:
    work = list(ops)
    seen: set[int] = set()
    while work:
        op = work.pop()
        if id(op) in seen or op.parent is None:
            continue
        if is_trivially_dead(op):
            seen.add(id(op))
            defs = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
            op.detach()
            op.erase()
            work.extend(defs)


def _fuse_group(g: _Group) -> bool:
    builder = _GroupBuilder(g)
    try:
        new_root, scalar = builder.build()
    except (_CannotFuse, DiagnosticError, KeyError, ValueError, TypeError, AssertionError):
        builder.E.discard()
        return False
    root = g.root
    block = root.parent
    assert block is not None
    ops = builder.E.ops()
    block.insert_ops_before(ops, root)
    old = root.results[0]
    if scalar is not None:
        for use in list(old.uses):
            user = use.operation
            if isinstance(user, T.ExtractOp) and not user.indices and user.result.type == scalar.type:
                user.result.replace_all_uses_with(scalar)
                user.detach()
                user.erase()
    if new_root.name_hint is None and old.name_hint:
        new_root.name_hint = old.name_hint
    old.replace_all_uses_with(new_root)
    for op in g.members:  # reverse block order: users before definitions
        op.detach()
        op.erase()
    _erase_dead([*builder.leaf_ops, *(o for o in ops if o.parent is not None)])
    return True


def fuse_region_ops(top: Operation) -> int:
    """Fuse every block nested in ``top``; returns how many groups were fused."""
    blocks = [b for o in top.walk() for r in o.regions for b in r.blocks]
    n = 0
    for b in blocks:
        for g in _analyse_block(b):
            if _worth_fusing(g) and _fuse_group(g):
                n += 1
    return n


@dataclass(frozen=True)
class TensorFusePass(ModulePass):
    """Fuse chains of elementwise and reduction ops into one loop nest (see the module doc)."""

    name = "tensor-fuse"

    simplify: bool = option(True, "first apply the simplifications derivative code invites (x*1, sums of broadcasts ...)")
    fuse: bool = option(True, "fuse elementwise chains and reductions into loop nests")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.simplify:
            simplify_module(op)
        if self.fuse:
            fuse_region_ops(op)
