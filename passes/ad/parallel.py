"""Derivatives of ``loop.parallel`` with ``loop.reduce``.

Iterations are independent: each computes the values it hands to
``loop.reduce`` from its induction variables and values defined before the
loop. A reduction is differentiated when its region combines its two
arguments by one sum, product, max or min (``arith.addf``/``mulf``/
``maximumf``/``maxnumf``/``minimumf``/``minnumf`` or the ``tensor`` op of
the same name); any other active reduction is a located error. With ``r`` the
result, ``v_i`` the value of iteration ``i`` and ``v_init`` the init (one
more term of the reduction), the derivative of ``r`` w.r.t. ``v_i`` is

- sum: 1;
- max, min: ``[v_i == r] / count`` where ``count`` is how many terms equal
  ``r`` (ties share evenly, SPEC §6, ties.py);
- product: ``r / v_i`` when no term is zero, the product of the other terms
  for the only zero term, 0 otherwise (a second loop counts the zeros and
  multiplies the non-zero terms: no division by zero).

Forward mode: the primal loop, then (unless every active reduction is a sum,
which one loop carries) a *tangent loop* over the same space that recomputes
each iteration with its tangents and sums the weighted tangents as
reductions of its own. Reverse mode stores nothing: after the primal loop of
the forward sweep, the reverse sweep runs a ``loop.for`` over the iterations
(linearized), recomputing each one, seeding its reduced values with the
weighted cotangent and carrying the adjoints of the values read from outside
as accumulators, as the reverse of a ``loop.for`` does (reverse.py). Max, min
and product first count (a primal ``loop.parallel`` with sum and product
reductions). A ``loop.parallel`` without results has nothing to differentiate.
The loops that recompute iterations leave out their prints (``primal_only``).
"""

from __future__ import annotations

import functools
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.activity import body_ops
from irtoolkit.passes.ad.emit import Emitter, const_int
from irtoolkit.passes.ad.rules import is_primal_only
from irtoolkit.ties import even_split

SUM, PROD, MAX, MIN = "sum", "product", "max", "min"


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


def _kinds_by_class() -> dict[type, str]:
    from irtoolkit.dialects import tensor as T

    return {
        arith.AddfOp: SUM, T.AddOp: SUM, arith.MulfOp: PROD, T.MulOp: PROD,
        arith.MaximumfOp: MAX, arith.MaxnumfOp: MAX, T.MaxOp: MAX,
        arith.MinimumfOp: MIN, arith.MinnumfOp: MIN, T.MinOp: MIN,
    }


def reduction_kind(region: Region) -> str | None:
    """SUM, PROD, MAX or MIN when ``region`` combines its two arguments by one such op."""
    block = region.block
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    comb, ret = ops
    if len(comb.results) != 1 or list(ret.operands) != [comb.results[0]]:
        return None
    if list(comb.operands) not in (list(block.args), list(block.args)[::-1]):
        return None
    return _kinds_by_class().get(type(comb))


def active_kinds(op, active: list[int]) -> list[str]:
    """The kinds of the reductions ``active``; a located error for one that is none."""
    red = op.reduce_op
    kinds = []
    for k in active:
        kind = reduction_kind(red.reductions[k])
        if kind is None:
            raise op_error(red, f"cannot differentiate reduction #{k}: its region must combine its two "
                                "arguments by one sum, product, max or min (arith or tensor op)")
        kinds.append(kind)
    return kinds


# -- building loops ----------------------------------------------------------------
def _combiner(E: Emitter, t, kind: str) -> Region:
    block = Block(arg_types=[t, t])
    EB = E.at(block)
    a, b = block.args
    EB.op(_loop().ReduceReturnOp(EB.mul(a, b) if kind == PROD else EB.add(a, b)))
    return Region(block)


def _parallel(E: Emitter, op, vmap, block: Block, reductions) -> Operation:
    """A loop.parallel over ``op``'s space (bounds mapped by ``vmap``) with body
    ``block`` (ops only) ended by ``reductions``: [(value, init, kind or region)]."""
    loop = _loop()
    regions = [k if isinstance(k, Region) else _combiner(E, v.type, k) for v, _, k in reductions]
    E.at(block).op(loop.ReduceOp([v for v, _, _ in reductions], regions))
    return E.op(loop.ParallelOp([vmap[v] for v in op.lowerBound], [vmap[v] for v in op.upperBound],
                                [vmap[v] for v in op.step], block, [i for _, i, _ in reductions]))


def _new_body(op, vmap) -> tuple[Block, dict]:
    block = Block(arg_types=[IndexType()] * len(op.lowerBound))
    bmap = dict(vmap)
    for a, na in zip(op.body.block.args, block.args):
        bmap[a] = na
    return block, bmap


def _without_replayed_effects(op: Operation) -> Operation:
    """``op``, a loop recomputing iterations that the primal loop has run, without the
    side effects (prints) they hold: those run once, in the primal code."""
    for o in list(op.walk()):
        if o is not op and is_primal_only(o):
            o.parent_block().erase_op(o)
    return op


def _indicator(E: Emitter, cond: SSAValue, like: SSAValue) -> SSAValue:
    return E.select(cond, E.const(1.0, like), E.zeros(like))


# -- the statistics of max/min/product reductions ----------------------------------
class ReductionStats:
    """Per active reduction, what its derivative needs beyond its result ``r``:
    ``count`` (max, min), ``nonzero`` product and ``zeros`` count (product),
    each over the iterations and the init."""

    def __init__(self, kind, r, init):
        self.kind, self.r, self.init = kind, r, init
        self.count = self.nonzero = self.zeros = None

    def body_terms(self, E: Emitter, v: SSAValue) -> list[tuple[SSAValue, str]]:
        """Reductions (value, kind) to add to a loop computing ``v`` per iteration."""
        if self.kind in (MAX, MIN):
            return [(_indicator(E, E.cmp("eq", v, self.r), v), SUM)]
        if self.kind == PROD:
            zero = E.cmp("eq", v, E.zeros(v))
            return [(E.select(zero, E.const(1.0, v), v), PROD), (_indicator(E, zero, v), SUM)]
        return []

    def inits(self, E: Emitter) -> list[SSAValue]:
        if self.kind in (MAX, MIN):
            return [_indicator(E, E.cmp("eq", self.init, self.r), self.r)]
        if self.kind == PROD:
            zero = E.cmp("eq", self.init, E.zeros(self.init))
            return [E.select(zero, E.const(1.0, self.init), self.init), _indicator(E, zero, self.init)]
        return []

    def take(self, results: list[SSAValue]) -> None:
        if self.kind in (MAX, MIN):
            (self.count,) = results
        elif self.kind == PROD:
            self.nonzero, self.zeros = results

    def weight(self, E: Emitter, v: SSAValue) -> SSAValue | None:
        """d r / d v for a term ``v`` of the reduction (None: 1)."""
        if self.kind == SUM:
            return None
        if self.kind in (MAX, MIN):
            return even_split(E, v, self.r, self.count)
        zero, zeros = E.zeros(v), self.zeros
        is_zero = E.cmp("eq", v, zero)
        only = E.select(E.cmp("eq", zeros, E.const(1.0, zeros)), self.nonzero, zero)
        none = E.select(E.cmp("eq", zeros, zero), E.div(self.r, v), zero)
        return E.select(is_zero, only, none)


def _count(E: Emitter, op, vmap, stats: dict[int, ReductionStats]) -> None:
    """One primal loop.parallel computing the statistics of the max/min/product reductions."""
    need = {k: s for k, s in stats.items() if s.kind != SUM}
    if not need:
        return
    red = op.reduce_op
    block, bmap = _new_body(op, vmap)
    EB = E.at(block)
    for o in body_ops(op.body.block):
        EB.raw(o.clone(value_mapper=bmap))
    reductions, sizes = [], []
    for k, s in need.items():
        terms = s.body_terms(EB, bmap[red.args[k]])
        reductions += [(v, i, kind) for (v, kind), i in zip(terms, s.inits(E))]
        sizes.append(len(terms))
    loop_op = _without_replayed_effects(_parallel(E, op, vmap, block, reductions))
    at = 0
    for s, n in zip(need.values(), sizes):
        s.take(list(loop_op.results[at:at + n]))
        at += n


# -- forward mode ------------------------------------------------------------------
def jvp_parallel(gen, E: Emitter, op, vmap, tmap) -> None:
    """Tangents of the varied results of ``op`` (ForwardGen ``gen``)."""
    red = op.reduce_op
    active = [k for k, r in enumerate(op.res) if r in gen.act.varied and r.uses]  # unused: no tangent
    kinds = active_kinds(op, active)
    all_sums = all(kind == SUM for kind in kinds)
    n = len(op.res)
    if not all_sums:
        primal = E.raw(op.clone(value_mapper=vmap))
        for r, nr in zip(op.res, primal.results):
            vmap[r] = nr
    block, bmap = _new_body(op, vmap)
    btmap = dict(tmap)
    EB = E.at(block)
    gen.jvp_ops(EB, body_ops(op.body.block), bmap, btmap)
    reductions = []
    if all_sums:  # the primal reductions ride along
        reductions = [(bmap[v], vmap[i], r.clone()) for v, i, r in zip(red.args, op.initVals, red.reductions)]
    per = []  # (result, kind, stats, position of its statistics, position of its tangent sums)
    for k, kind in zip(active, kinds):
        v = red.args[k]
        vb, tb = bmap[v], gen.tangent_or_zero(EB, v, bmap, btmap)
        if kind == SUM:
            per.append((k, kind, None, None, len(reductions)))
            reductions.append((tb, E.zeros(vmap[op.initVals[k]]), SUM))
            continue
        s = ReductionStats(kind, vmap[op.res[k]], vmap[op.initVals[k]])
        first = len(reductions)
        reductions += [(t, i, kind_) for (t, kind_), i in zip(s.body_terms(EB, vb), s.inits(E))]
        per.append((k, kind, s, first, len(reductions)))
        if kind in (MAX, MIN):  # the tangents of the terms equal to the result
            reductions.append((EB.select(EB.cmp("eq", vb, s.r), tb, EB.zeros(tb)), E.zeros(tb), SUM))
        else:  # product: t / v over the non-zero terms, t of the zero terms
            zero = EB.cmp("eq", vb, EB.zeros(vb))
            reductions.append((EB.select(zero, EB.zeros(tb), EB.div(tb, vb)), E.zeros(tb), SUM))
            reductions.append((EB.select(zero, tb, EB.zeros(tb)), E.zeros(tb), SUM))
    tangent_loop = _parallel(E, op, vmap, block, reductions)
    if not all_sums:  # the primal loop has run the iterations
        _without_replayed_effects(tangent_loop)
    res = list(tangent_loop.results)
    if all_sums:
        for r, nr in zip(op.res, res[:n]):
            vmap[r] = nr
    for k, kind, s, first, at in per:
        t_init = tmap.get(op.initVals[k])
        if kind == SUM:
            tmap[op.res[k]] = E.accumulate(t_init, res[at])
            continue
        s.take(res[first:at])
        if kind in (MAX, MIN):
            total = res[at]
            if t_init is not None:
                total = E.add(total, E.select(E.cmp("eq", s.init, s.r), t_init, E.zeros(t_init)))
            tmap[op.res[k]] = E.div(total, s.count)
            continue
        ratio, at_zero = res[at], res[at + 1]
        if t_init is not None:
            zero = E.cmp("eq", s.init, E.zeros(s.init))
            ratio = E.add(ratio, E.select(zero, E.zeros(t_init), E.div(t_init, s.init)))
            at_zero = E.add(at_zero, E.select(zero, t_init, E.zeros(t_init)))
        z = s.zeros
        none = E.mul(s.r, ratio)
        one = E.select(E.cmp("eq", z, E.const(1.0, z)), E.mul(s.nonzero, at_zero), E.zeros(z))
        tmap[op.res[k]] = E.select(E.cmp("eq", z, E.zeros(z)), none, one)


# -- reverse mode ------------------------------------------------------------------
def iteration_space(gen, E: Emitter, op, vmap) -> tuple[list[SSAValue], SSAValue, int | None]:
    """Trip counts of the dimensions of ``op``, their product, and its value when static."""
    sizes, static = [], 1
    for lb, ub, st in zip(op.lowerBound, op.upperBound, op.step):
        n, ns = gen.span(E, lb, ub, st, vmap)
        sizes.append(n)
        static = None if static is None or ns is None else static * ns
    if static is not None:
        return sizes, E.index(static), static
    total = sizes[0]
    for n in sizes[1:]:
        total = E.imul(total, n)
    return sizes, total, None


def _ivs(E: Emitter, op, vmap, t: SSAValue, sizes: list[SSAValue]) -> list[SSAValue]:
    """The induction variables of the linear iteration ``t`` (last dimension fastest)."""
    ivs = []
    rest = t
    for d in reversed(range(len(op.lowerBound))):
        if d:
            q = E.idiv(rest, sizes[d])
            k = E.isub(rest, E.imul(q, sizes[d]))
            rest = q
        else:
            k = rest
        lb, st = op.lowerBound[d], op.step[d]
        if const_int(st) != 1:
            k = E.imul(k, vmap[st])
        ivs.append(k if const_int(lb) == 0 else E.iadd(k, vmap[lb]))
    return ivs[::-1]


def reverse_parallel(gen, E: Emitter, op, vmap, amap) -> None:
    """Adjoints of the inputs of ``op`` from those of its results (ReverseGen ``gen``)."""
    loop = _loop()
    red = op.reduce_op
    useful = gen.act.useful
    adjoints = {}
    for k, r in enumerate(op.res):
        a = amap.take(E, r) if r in useful else None
        if a is not None:
            adjoints[k] = a
    if not adjoints:
        return
    stats = {k: ReductionStats(kind, vmap[op.res[k]], vmap[op.initVals[k]])
             for k, kind in zip(adjoints, active_kinds(op, list(adjoints)))}
    _count(E, op, vmap, stats)
    for k, a in adjoints.items():
        init = op.initVals[k]
        if init in useful:
            w = stats[k].weight(E, vmap[init])
            amap.add(E, init, a if w is None else E.mul(a, w))
    seeded = [k for k in adjoints if red.args[k] in useful]
    if not seeded:
        return
    sizes, n, n_static = iteration_space(gen, E, op, vmap)
    block = Block(arg_types=[IndexType()])
    EB = E.at(block)
    bmap = dict(vmap)
    for a, iv in zip(op.body.block.args, _ivs(EB, op, vmap, block.args[0], sizes)):
        bmap[a] = iv
    ops = body_ops(op.body.block)
    inner_tapes = gen.forward(EB, ops, bmap, replay=True)
    from irtoolkit.passes.ad.reverse import AdjointMap

    local = AdjointMap(bmap)
    accs = gen.open_accumulators(op, block, local)
    for k in seeded:
        v = red.args[k]
        w = stats[k].weight(EB, bmap[v])
        local.add(EB, v, adjoints[k] if w is None else EB.mul(adjoints[k], w))
    gen.reverse(EB, ops, bmap, local, inner_tapes)
    free, outs, inits, outer = gen.close_accumulators(E, EB, op, block, local, accs, amap, vmap,
                                                      block.args[0], n_static)
    EB.op(loop.YieldOp(*outs, *outer.yields))
    rev = E.op(_without_replayed_effects(loop.ForOp(E.index(0), n, E.index(1), [*inits, *outer.inits], block)))
    outer.finish(E, rev, len(free), amap)
    for i, v in enumerate(free):
        amap.add(E, v, rev.res[i])
