"""Checkpointing of ``loop.for``: what the reverse sweep stores, what it recomputes.

Without checkpointing the forward sweep stores every iterate of an active loop
(and the expensive intermediates, residuals.py): memory O(n). Two ways to
store less, applied before reverse differentiation:

* **Segments** -- ``{autodiff.checkpoint = "sqrt"}`` or an integer segment
  length ``k`` on a loop (or the pass option ``ad{checkpoint=sqrt}`` for every
  active loop): the loop is strip-mined into segments of ``k`` iterations
  (``k = ceil(sqrt(n))`` for "sqrt"). The forward sweep stores the segment
  starts; the reverse sweep of a segment recomputes it forward, storing its
  ``k`` iterates and their residuals, then runs it backwards: O(n/k + k).

* **A memory budget** -- ``{autodiff.checkpoint_memory = "16MB"}`` on a loop,
  or ``ad{checkpoint-memory=64MB}`` (units B, KB, MB, GB, powers of 1024):
  :func:`choose_schedule` picks the fastest schedule whose stored values fit,
  from a cost model (one "step" = one evaluation of the loop body): store
  everything when it fits; else segments of ``k`` iterations (a leaf tape of
  ``k`` iterates plus residuals, as above) whose starts are checkpointed in
  ``s`` slots. When ``s`` covers every segment this is the scheme above; when
  it does not, the segments are reversed by binomial checkpointing
  (Griewank's Revolve): a segment start is recomputed from the nearest stored
  one, placing new checkpoints on the way at the splits that minimise the
  total recomputation. ``k = 1`` is Revolve over single iterations. The
  budget covers the slots, the leaf tape and an estimate of the working set
  of one iteration (:func:`working_bytes`). With a static trip count the
  schedule is chosen at compile time; with a dynamic one (``loop.while``
  becomes such a loop, control_flow.py) ``k`` and ``s`` are fixed from the
  budget alone and the Revolve schedule adapts to the trip count at run time.

The Revolve schedule runs in the generated IR (:class:`RevolveTape`): the
forward sweep stores the first checkpoints (the chain that the reverse sweep
of the last segment would place) while it runs; the reverse sweep, before
reversing segment ``i``, restores its start with a ``loop.while`` that
advances from the top checkpoint, pushing checkpoints at :func:`revolve_split`
points while slots are free, and pops the top once it is used up. Loop
iterations are the same operations on the same values whatever the schedule:
gradients are identical to the unchecked ones.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

from xdsl.dialects import arith, func, math as mathd
from xdsl.dialects.builtin import (
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue

from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.emit import DYN, Emitter, const_int
from irtoolkit.passes.ad.reverse import EXACT_TRIP_ATTR, MAX_TRIP_ATTR, REVOLVE_ATTR, TapeInfo, tape_type

CHECKPOINT_ATTR = "autodiff.checkpoint"
MEMORY_ATTR = "autodiff.checkpoint_memory"


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


# -- what the user asked for ---------------------------------------------------------
_UNITS = {"": 1, "b": 1, "kb": 1 << 10, "kib": 1 << 10, "mb": 1 << 20, "mib": 1 << 20,
          "gb": 1 << 30, "gib": 1 << 30}


def parse_memory(text: str) -> int | None:
    """Bytes of ``"64MB"``, ``"512 KB"``, ``"1.5GB"``, ``"4096"``; None if malformed."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", text)
    if m is None or m.group(2).lower() not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


@dataclass(frozen=True)
class Scheme:
    """How one loop is checkpointed: strip-mined into segments of ``segment``
    iterations ("sqrt", an int, or None: not strip-mined), the segment starts
    stored in ``slots`` Revolve slots (None: every segment start is stored)."""

    segment: str | int | None
    slots: int | None = None


def segment_spec(op, spec):
    """None (no checkpointing), "sqrt", or an int segment length, from an
    attribute value or the pass option."""
    if isinstance(spec, StringAttr):
        spec = spec.data
    elif isinstance(spec, IntegerAttr):
        spec = spec.value.data
    elif spec is not None and not isinstance(spec, (str, int)):
        raise op_error(op, f"'{CHECKPOINT_ATTR}' must be \"sqrt\" or an integer segment length, got {spec}")
    if spec is None or spec in ("none", "", 0):
        return None
    if isinstance(spec, str):
        if spec == "sqrt":
            return "sqrt"
        if spec.isdigit():
            spec = int(spec)
        else:
            raise op_error(op, f"unknown checkpointing scheme '{spec}' (expected \"sqrt\" or a segment length)")
    if spec < 1:
        raise op_error(op, f"checkpoint segment length must be positive, got {spec}")
    return spec


def budget_bytes(op, spec) -> int:
    """The byte count of a memory budget given as an attribute or the pass option."""
    if isinstance(spec, IntegerAttr):
        return spec.value.data
    text = spec.data if isinstance(spec, StringAttr) else str(spec)
    n = parse_memory(text)
    if n is None or n <= 0:
        raise op_error(op, f"'{MEMORY_ATTR}' must be a memory size such as \"64MB\" "
                           f"(units B, KB, MB, GB), got {text!r}")
    return n


def loop_scheme(op, option: str | None, memory_option: str | None, driver) -> Scheme | None:
    """The checkpointing of ``op``: its own attributes first, then the pass options."""
    ck, mem = op.attributes.get(CHECKPOINT_ATTR), op.attributes.get(MEMORY_ATTR)
    if ck is not None and mem is not None:
        raise op_error(op, f"give '{CHECKPOINT_ATTR}' or '{MEMORY_ATTR}', not both")
    if ck is None and mem is None:
        ck, mem = option, memory_option
    if ck is not None:
        seg = segment_spec(op, ck)
        return None if seg is None else Scheme(seg)
    if mem is None:
        return None
    return plan_for_budget(op, budget_bytes(op, mem), driver)


# -- the cost model ------------------------------------------------------------------
def _nbytes(t) -> int | None:
    """Bytes of a value of type ``t`` (None: dynamically shaped)."""
    from irtoolkit.passes.ad.residuals import elements

    n = elements(t)
    if n is None:
        return None
    width = getattr(t.get_element_type() if isinstance(t, TensorType) else t, "bitwidth", 64)  # index: 64
    return n * max(1, width // 8)


def stored_positions(op) -> list[int]:
    """Carried positions the body reads: the values a checkpoint holds."""
    return [k for k, a in enumerate(op.body.block.args[1:]) if a.uses]


def working_bytes(op) -> int | None:
    """An estimate of the memory one iteration's forward and reverse use besides
    the stored values: the carried values and their adjoints, twice the largest
    set of the body's tensors alive at once, and the adjoints of the values it
    reads from outside (accumulated across iterations)."""
    from irtoolkit.passes.ad.activity import body_ops
    from irtoolkit.passes.ad.reverse import defined_inside

    block = op.body.block
    carried = 0
    for a in block.args[1:]:
        b = _nbytes(a.type)
        if b is None:
            return None
        carried += b
    ops = body_ops(block)
    position = {o: i for i, o in enumerate(ops)}
    last_use: dict[SSAValue, int] = {}
    outside: dict[SSAValue, int] = {}
    for i, o in enumerate(ops):
        for inner in o.walk():
            for v in inner.operands:
                top = v.owner
                if isinstance(top, Operation) and top in position:
                    last_use[v] = i
                elif not defined_inside(v, op) and isinstance(v.type, TensorType):
                    outside[v] = _nbytes(v.type) or 0
    live = peak = 0
    dying: dict[int, int] = {}
    for i, o in enumerate(ops):
        for r in o.results:
            b = _nbytes(r.type) if isinstance(r.type, TensorType) else 0
            if b is None:
                return None
            live += b
            dying[last_use.get(r, i)] = dying.get(last_use.get(r, i), 0) + b
        peak = max(peak, live)
        live -= dying.pop(i, 0)
    return 2 * carried + 2 * peak + sum(outside.values())


def _beta(c: int, r: int) -> int:
    return math.comb(c + r, c)


def revolve_split(length: int, free: int) -> int:
    """How far to advance (and place a checkpoint) to reverse ``length`` steps
    from the top checkpoint with ``free`` more slots: Revolve's rule (Griewank
    and Walther, Algorithm 799), which minimises the total recomputation.
    The IR emitted by :func:`emit_revolve_split` computes the same."""
    snaps = free + 1
    reps, rng = 0, 1
    while rng < length:
        reps += 1
        rng = rng * (reps + snaps) // reps
    bino1 = rng * reps // (snaps + reps)
    bino2 = bino1 * snaps // (snaps + reps - 1)
    bino3 = bino2 * (snaps - 1) // (snaps + reps - 2) if snaps > 2 else 1
    bino4 = bino2 * (reps - 1) // snaps
    bino5 = 0 if snaps < 3 else (bino3 * (snaps - 1) // reps if snaps > 3 else 1)
    if length <= bino1 + bino3:
        d = bino4
    elif length >= rng - bino5:
        d = bino1
    else:
        d = length - bino2 - bino3
    return min(max(d, 1), length - 1)


@lru_cache(maxsize=4096)
def revolve_advances(length: int, free: int) -> int:
    """Steps advanced (recomputed forward, not counting the reversals) to reverse
    ``length`` steps whose first state is checkpointed, with ``free`` more slots:
    the binomial optimum ``r l - beta(c + 1, r - 1)`` (``c = free + 1``
    checkpoints, ``r`` the least repetition count with ``beta(c, r) >= l``)."""
    if length <= 1:
        return 0
    c = free + 1
    r = 0
    while _beta(c, r) < length:
        r += 1
    return r * length - _beta(c + 1, r - 1)


def first_chain(m: int, slots: int) -> int:
    """The last checkpoint the forward sweep places (it runs every step anyway)."""
    p, free = 0, slots - 1
    while free > 0 and m - p >= 2:
        p += revolve_split(m - p, free)
        free -= 1
    return p


def schedule_cost(n: int, k: int, slots: int) -> int:
    """Loop-body evaluations of the gradient with segments of ``k`` and ``slots``
    checkpoints: the forward sweep, the recomputation of the segment starts, and
    one taped recomputation of every iteration before it is reversed."""
    m = -(-n // k)
    extra = 0 if slots >= m else revolve_advances(m, slots - 1) - first_chain(m, slots)
    return 2 * n + extra * k


def _segment_candidates(n: int) -> list[int]:
    ks = set(range(1, min(n, 64) + 1))
    ks.update(-(-n // m) for m in range(1, min(n, 64) + 1))
    k = 64.0
    while k < n:
        ks.add(int(k))
        k *= 1.15
    return sorted(ks)


def choose_schedule(n: int | None, state: int, residual: int, working: int, budget: int) -> Scheme | None:
    """The fastest schedule for ``n`` iterations (None: unknown until run time)
    whose stored bytes fit ``budget - working``: None (store everything), or a
    :class:`Scheme`. ``state``: bytes of one checkpoint; ``residual``: bytes an
    iteration's leaf tape adds for its residuals. Raises ValueError when even one
    checkpoint does not fit."""
    avail = budget - working
    if avail < state:
        raise ValueError(f"{state + working} bytes at least (one checkpoint of {state} bytes "
                         f"and about {working} bytes of working memory)")
    per_iter = state + residual
    if n is not None and n * per_iter <= avail:
        return None
    if n is None:
        # half for the leaf tape, the rest for checkpoints; Revolve adapts to n
        k = max(1, (avail // 2) // per_iter)
        leaf = k * per_iter if k > 1 else 0
        return Scheme(k if k > 1 else None, max(1, (avail - leaf) // state))
    best = None
    for k in _segment_candidates(n):
        leaf = k * per_iter if k > 1 else 0
        if leaf + state > avail:
            break
        m = -(-n // k)
        slots = min(m, (avail - leaf) // state)
        key = (schedule_cost(n, k, slots), slots * state + leaf)
        if best is None or key < best[0]:
            best = (key, k, slots, m)
    _, k, slots, m = best
    return Scheme(k if k > 1 else None, None if slots >= m and k > 1 else slots)


def static_trip_count(op) -> int | None:
    lb, ub, step = const_int(op.lb), const_int(op.ub), const_int(op.step)
    if lb is not None and ub is not None and step is not None and step > 0:
        return max(0, -(-(ub - lb) // step))
    return None


def plan_for_budget(op, budget: int, driver) -> Scheme | None:
    from irtoolkit.passes.ad.residuals import residual_candidates

    block = op.body.block
    sizes = [_nbytes(block.args[1 + k].type) for k in stored_positions(op)]
    working = working_bytes(op)
    if any(s is None for s in sizes) or working is None:
        return Scheme("sqrt")  # dynamic shapes: sizes unknown at compile time
    state = max(1, sum(sizes))
    residual = sum(_nbytes(r.type) or 0 for r in residual_candidates(SimpleNamespace(driver=driver), op))
    try:
        return choose_schedule(static_trip_count(op), state, residual, working, budget)
    except ValueError as err:
        raise op_error(op, f"checkpoint memory budget of {budget} bytes is too small for this loop: "
                           f"it needs {err}") from None


# -- applying a scheme -----------------------------------------------------------------
def checkpoint_loops(fn: func.FuncOp, option: str | None, memory_option: str | None,
                     varied: set[SSAValue], driver) -> bool:
    """Strip-mine and mark the active loops of ``fn`` that are checkpointed; whether a
    loop was strip-mined (the ops of ``fn`` changed)."""
    loop = _loop()
    loops = [op for op in fn.walk()
             if op.regions and isinstance(op, loop.ForOp) and MAX_TRIP_ATTR not in op.attributes]
    # innermost first: strip-mining a loop rebuilds its body, which would leave the
    # loops collected inside it detached
    stripped = False
    for op in reversed(loops):
        if not any(r in varied for r in op.res):
            continue
        scheme = loop_scheme(op, option, memory_option, driver)
        if scheme is None:
            continue
        target = op
        if scheme.segment is not None:
            target = strip_mine(op, scheme.segment)
            stripped = True
        if scheme.slots is not None:
            target.attributes[REVOLVE_ATTR] = IntegerAttr(scheme.slots, i64)
            target.attributes[MAX_TRIP_ATTR] = IntegerAttr(-1, i64)  # no residuals, no stacking
    return stripped


def strip_mine(op, spec):
    """Replace ``op`` by a loop over segments of a loop over iterations; returns
    the outer loop."""
    loop = _loop()
    parent = op.parent_block()
    loc = op.location
    ty = op.lb.type
    new_ops = []

    def emit(o):
        o.location = loc
        new_ops.append(o)
        return o.results[0]

    def c(n):
        return emit(arith.ConstantOp(IntegerAttr(n, ty)))

    static_n = static_trip_count(op)
    if spec == "sqrt":
        if static_n is not None:
            k_static = max(1, math.isqrt(max(static_n - 1, 0)) + 1) if static_n > 1 else 1
            k = c(k_static)
        else:
            k_static = None
            one = c(1)
            span = emit(arith.SubiOp(op.ub, op.lb))
            n = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(span, op.step)), one)), op.step))
            n_i64 = emit(arith.IndexCastOp(n, i64)) if not isinstance(ty, IntegerType) else n
            nf = emit(arith.SIToFPOp(n_i64, Float64Type()))
            kf = emit(mathd.CeilOp(emit(mathd.SqrtOp(nf))))
            k_i = emit(arith.FPToSIOp(kf, n_i64.type))
            k = emit(arith.IndexCastOp(k_i, ty)) if not isinstance(ty, IntegerType) else k_i
            k = emit(arith.MaxSIOp(k, one))
    else:
        k_static = int(spec)
        k = c(k_static)
    # segments: seg in [0, ceil(n / k)); inner: [lb + seg*k*step, min(ub, that + k*step))
    one = c(1)
    zero = c(0)
    if static_n is not None and k_static is not None:
        nseg = c(-(-static_n // k_static))
    else:
        span = emit(arith.SubiOp(op.ub, op.lb))
        n = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(span, op.step)), one)), op.step))
        n = emit(arith.MaxSIOp(n, zero))
        nseg = emit(arith.DivSIOp(emit(arith.SubiOp(emit(arith.AddiOp(n, k)), one)), k))
    seg_len = emit(arith.MuliOp(k, op.step))
    parent.insert_ops_before(new_ops, op)

    outer = Block(arg_types=[ty, *(a.type for a in op.iter_args)])
    seg = outer.args[0]
    off = arith.MuliOp(seg, seg_len)
    start = arith.AddiOp(op.lb, off)
    end0 = arith.AddiOp(start, seg_len)
    end = arith.MinSIOp(end0, op.ub)
    start_ops = [off, start, end0, end]
    for o in start_ops:
        o.location = loc
    outer.add_ops(start_ops)
    inner_body = op.body.clone()
    attrs = {MAX_TRIP_ATTR: IntegerAttr(k_static, i64)} if k_static is not None else {}
    inner = loop.ForOp(start.result, end.result, op.step, list(outer.args[1:]), inner_body, attributes=attrs)
    inner.location = loc
    if k_static is None:
        # still mark it as produced by strip-mining (never strip-mined again)
        inner.attributes[MAX_TRIP_ATTR] = IntegerAttr(-1, i64)
    elif static_n is not None and static_n % k_static == 0:
        # every segment runs k iterations: its reverse may stack outer products (residuals.py)
        inner.attributes[EXACT_TRIP_ATTR] = IntegerAttr(k_static, i64)
    outer.add_op(inner)
    y = loop.YieldOp(*inner.res)
    y.location = loc
    outer.add_op(y)
    outer_for = loop.ForOp(zero, nseg, one, list(op.iter_args), outer)
    outer_for.location = loc
    outer_for.attributes[MAX_TRIP_ATTR] = IntegerAttr(-1, i64)  # do not strip-mine again
    parent.insert_op_before(outer_for, op)
    for r, nr in zip(op.res, outer_for.res):
        r.replace_all_uses_with(nr)
    parent.erase_op(op)
    return outer_for


# -- Revolve in the generated IR -------------------------------------------------------
def emit_revolve_split(E: Emitter, length: SSAValue, free: SSAValue) -> SSAValue:
    """IR computing :func:`revolve_split` (index values; ``length >= 2``, ``free >= 1``)."""
    loop = _loop()
    idx = IndexType()
    one, two, three = E.index(1), E.index(2), E.index(3)
    snaps = E.iadd(free, one)
    # reps, range: the least repetition count whose binomial range covers length
    before = Block(arg_types=[idx, idx])
    Eb = E.at(before)
    Eb.op(loop.ConditionOp(Eb.v(arith.CmpiOp(before.args[1], length, "slt")), *before.args))
    after = Block(arg_types=[idx, idx])
    Ea = E.at(after)
    reps1 = Ea.iadd(after.args[0], one)
    rng1 = Ea.idiv(Ea.imul(after.args[1], Ea.iadd(reps1, snaps)), reps1)
    Ea.op(loop.YieldOp(reps1, rng1))
    w = E.op(loop.WhileOp([E.index(0), one], [idx, idx], before, after))
    reps, rng = w.res[0], w.res[1]

    def sel(c, a, b):
        return E.v(arith.SelectOp(c, a, b))

    def cmp(pred, a, b):
        return E.v(arith.CmpiOp(a, b, pred))

    bino1 = E.idiv(E.imul(rng, reps), E.iadd(snaps, reps))
    bino2 = E.idiv(E.imul(bino1, snaps), E.isub(E.iadd(snaps, reps), one))
    # snaps + reps - 2 >= 1 (snaps >= 2, reps >= 1): safe to divide before selecting
    bino3 = sel(cmp("sgt", snaps, two),
                E.idiv(E.imul(bino2, E.isub(snaps, one)), E.isub(E.iadd(snaps, reps), two)), one)
    bino4 = E.idiv(E.imul(bino2, E.isub(reps, one)), snaps)
    bino5 = sel(cmp("slt", snaps, three), E.index(0),
                sel(cmp("sgt", snaps, three), E.idiv(E.imul(bino3, E.isub(snaps, one)), reps), one))
    mid = E.isub(E.isub(length, bino2), bino3)
    d = sel(cmp("sle", length, E.iadd(bino1, bino3)), bino4,
            sel(cmp("sge", length, E.isub(rng, bino5)), bino1, mid))
    return E.imin(E.imax(d, one), E.isub(length, one))


class RevolveTape:
    """The checkpoints of a loop reversed by Revolve: ``slots`` stored states (one
    ``tensor<slots x T>`` per stored carried value), their iteration indices
    (``tensor<slots x i64>``) and how many are in use."""

    def __init__(self, op, slots: int, n: SSAValue, lb: SSAValue, step: SSAValue):
        self.op = op
        self.slots = slots
        self.n, self.lb, self.step = n, lb, step
        self.stored = stored_positions(op)
        self.snaps: list[SSAValue] = []  # final values after the forward sweep
        self.pos: SSAValue | None = None
        self.top: SSAValue | None = None

    # -- helpers ---------------------------------------------------------------
    def _types(self):
        carried = self.op.body.block.args[1:]
        return [carried[k].type for k in self.stored]

    def _iv(self, E: Emitter, j: SSAValue) -> SSAValue:
        """The induction variable of iteration ``j`` (an index)."""
        ty = self.op.lb.type
        if const_int(self.op.lb) == 0 and const_int(self.op.step) == 1:
            return E.from_index(j, ty)
        return E.iadd(E.imul(E.from_index(j, ty), self.step), self.lb)

    @staticmethod
    def _push(gen, E: Emitter, xs, snaps, pos, top, at) -> list[SSAValue]:
        """[*snaps, pos, top] with the state ``xs`` of iteration ``at`` stored at slot ``top``."""
        new = [gen.store(E, x, s, top) for x, s in zip(xs, snaps)]
        pos = E.insert(E.v(arith.IndexCastOp(at, i64)), pos, [top])
        return [*new, pos, E.iadd(top, E.index(1))]

    def _if(self, E: Emitter, cond, then_fn, else_values):
        """``loop.if`` yielding ``then_fn(E_then)`` or ``else_values``."""
        loop = _loop()
        tb, eb = Block(), Block()
        then_values = then_fn(E.at(tb))
        E.at(tb).op(loop.YieldOp(*then_values))
        E.at(eb).op(loop.YieldOp(*else_values))
        return E.op(loop.IfOp(cond, [v.type for v in else_values], tb, eb)).results

    # -- forward sweep -----------------------------------------------------------
    def forward(self, gen, E: Emitter, vmap, replay: bool) -> None:
        """Emit the forward loop: the primal iterations, storing the checkpoints of
        the first chain (the first state, then at the Revolve splits). ``replay``:
        a recomputation (ReverseGen.forward), without the once-only side effects."""
        from irtoolkit.passes.ad.activity import body_ops
        from irtoolkit.passes.ad.rules import is_primal_only

        loop = _loop()
        op = self.op
        body = op.body.block
        carried = list(body.args[1:])
        snap_inits = []
        for k, t in zip(self.stored, self._types()):
            dyn = []
            if isinstance(t, TensorType) and DYN in t.get_shape():
                init = vmap[op.iter_args[k]]
                dyn = [E.dim(init, i) for i, d in enumerate(t.get_shape()) if d == DYN]
            snap_inits.append(E.empty(tape_type(t, self.slots), dyn))
        pos_init = E.empty(TensorType(i64, [self.slots]))
        c0 = E.index(0)
        idx_t = IndexType()
        block = Block(arg_types=[op.lb.type, *(a.type for a in carried), *(s.type for s in snap_inits),
                                 pos_init.type, idx_t, idx_t])
        EB = E.at(block)
        nc = len(carried)
        xs_args = block.args[1:1 + nc]
        snaps = list(block.args[1 + nc:1 + nc + len(snap_inits)])
        pos, top, nxt = block.args[-3], block.args[-2], block.args[-1]
        j = gen.iteration_index(EB, op, block.args[0], self.lb, self.step)

        def store(Et):
            pushed = self._push(gen, Et, [xs_args[k] for k in self.stored], snaps, pos, top, j)
            free = Et.isub(Et.index(self.slots), pushed[-1])
            left = Et.isub(self.n, j)
            go = Et.v(arith.AndIOp(Et.v(arith.CmpiOp(free, Et.index(0), "sgt")),
                                   Et.v(arith.CmpiOp(left, Et.index(2), "sge"))))
            d = emit_revolve_split(Et, Et.imax(left, Et.index(2)), Et.imax(free, Et.index(1)))
            n2 = Et.v(arith.SelectOp(go, Et.iadd(j, d), self.n))
            return [*pushed, n2]

        due = EB.v(arith.CmpiOp(j, nxt, "eq"))
        res = self._if(EB, due, store, [*snaps, pos, top, nxt])
        bmap = dict(vmap)
        bmap[body.args[0]] = block.args[0]
        for a, na in zip(carried, xs_args):
            bmap[a] = na
        for o in body_ops(body):
            if not (replay and is_primal_only(o)):
                EB.raw(o.clone(value_mapper=bmap))
        EB.op(loop.YieldOp(*(bmap.get(y, y) for y in op.yield_op.operands), *res))
        new = E.op(loop.ForOp(vmap[op.lb], vmap[op.ub], vmap[op.step],
                              [*(vmap[i] for i in op.iter_args), *snap_inits, pos_init, c0, c0], block))
        for r, nr in zip(op.res, new.res):
            vmap[r] = nr
        self.snaps = list(new.res[nc:nc + len(snap_inits)])
        self.pos, self.top = new.res[-3], new.res[-2]

    # -- reverse sweep -------------------------------------------------------------
    def restore(self, gen, E: Emitter, block: Block, i: SSAValue, bmap) -> tuple[list, list]:
        """In the reverse loop ``block`` (reversing iteration ``i``): the checkpoint
        state becomes loop-carried (block arguments appended now), the state of
        iteration ``i`` is recomputed into ``bmap``. Returns the (inits, yields)
        of the appended arguments."""
        from irtoolkit.passes.ad.activity import body_ops
        from irtoolkit.passes.ad.rules import is_primal_only

        loop = _loop()
        op = self.op
        body = op.body.block
        carried = list(body.args[1:])
        types = self._types()
        inits = [*self.snaps, self.pos, self.top]
        args = [block.insert_arg(v.type, len(block.args)) for v in inits]
        snaps, pos, top = args[:-2], args[-2], args[-1]
        one = E.index(1)
        below = E.isub(top, one)
        p0 = E.to_index(E.extract(pos, [below]))
        x0 = [gen.load(E, s, below, t) for s, t in zip(snaps, types)]
        idx_t = IndexType()
        state_types = [idx_t, *types, *(s.type for s in snaps), pos.type, idx_t]

        before = Block(arg_types=state_types)
        Eb = E.at(before)
        Eb.op(loop.ConditionOp(Eb.v(arith.CmpiOp(before.args[0], i, "slt")), *before.args))

        after = Block(arg_types=state_types)
        Ea = E.at(after)
        p, xs = after.args[0], list(after.args[1:1 + len(types)])
        a_snaps = list(after.args[1 + len(types):1 + len(types) + len(snaps)])
        a_pos, a_top = after.args[-2], after.args[-1]
        free = Ea.isub(Ea.index(self.slots), a_top)
        has_free = Ea.v(arith.CmpiOp(free, Ea.index(0), "sgt"))
        length = Ea.iadd(Ea.isub(i, p), one)
        d = emit_revolve_split(Ea, Ea.imax(length, Ea.index(2)), Ea.imax(free, one))
        q = Ea.v(arith.SelectOp(has_free, Ea.iadd(p, d), i))
        # advance from p to q: the primal iterations replayed, nothing stored
        adv = Block(arg_types=[idx_t, *types])
        Ead = E.at(adv)
        amap = dict(bmap)
        amap[body.args[0]] = self._iv(Ead, adv.args[0])
        for k, a in zip(self.stored, adv.args[1:]):
            amap[carried[k]] = a
        for o in body_ops(body):
            if not is_primal_only(o):
                Ead.raw(o.clone(value_mapper=amap))
        Ead.op(loop.YieldOp(*(amap.get(op.yield_op.operands[k], op.yield_op.operands[k]) for k in self.stored)))
        xq = list(Ea.op(loop.ForOp(p, q, one, xs, adv)).res)
        push = Ea.v(arith.CmpiOp(q, i, "slt"))
        res = self._if(Ea, push, lambda Et: self._push(gen, Et, xq, a_snaps, a_pos, a_top, q),
                       [*a_snaps, a_pos, a_top])
        Ea.op(loop.YieldOp(q, *xq, *res))

        w = E.op(loop.WhileOp([p0, *x0, *snaps, pos, top], state_types, before, after))
        xi = list(w.res[1:1 + len(types)])
        w_snaps = list(w.res[1 + len(types):1 + len(types) + len(snaps)])
        w_pos, w_top = w.res[-2], w.res[-1]
        for k, x in zip(self.stored, xi):
            bmap[carried[k]] = x
        # the top checkpoint was iteration i's own: its slot is free from now on
        used = E.v(arith.CmpiOp(p0, i, "eq"))
        next_top = E.v(arith.SelectOp(used, below, w_top))
        return inits, [*w_snaps, w_pos, next_top]



def revolve_forward(gen, E: Emitter, op, vmap, replay: bool = False) -> TapeInfo:
    """The forward sweep of a loop marked for Revolve (see :class:`RevolveTape`)."""
    n_val, _ = gen.trip_count(E, op, vmap)
    lb, step = vmap[op.lb], vmap[op.step]
    tape = RevolveTape(op, op.attributes[REVOLVE_ATTR].value.data, n_val, lb, step)
    tape.forward(gen, E, vmap, replay)
    return TapeInfo(n_val, tape.stored, {}, lb, step, revolve=tape)
