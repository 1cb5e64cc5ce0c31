"""Reverse mode: the generated function runs a forward sweep, then a reverse sweep.

The forward sweep clones the primal ops. Every value computed at the top
level stays in scope for the reverse sweep, so nothing is stored for
straight-line code. A ``loop.for`` that reaches a differentiated output is
cloned with *tapes*: one tensor per loop-carried value the body reads
(``tensor<N x T>``, filled with ``tensor.insert``/``insert_slice`` at the
iteration index), plus *residuals*: the results of expensive body ops
(tanh, exp, matmul, reductions ...) that the adjoint code reads. Loop
invariants (weights read in the body) and function inputs are never stored.
The reverse sweep of the loop is a ``loop.for`` running the iterations
backwards: it reads the carried values and residuals of the iteration from
the tapes, recomputes the cheap rest of the body (whose own loops are taped in
turn, one iteration at a time) and propagates adjoints through it, carrying
the adjoints of the carried values and accumulating those of the invariants;
outer-product contributions to those accumulators are stacked and summed by
one matmul after the loop (residuals.py). Invariant ops of the generated
loops (``W^T``) are hoisted in front of them (passes/transforms/licm.py).
``loop.if`` is reversed branch-wise on the same condition, each branch
recomputing its forward part. ``loop.while`` is first rewritten into a
counting while plus a ``loop.for`` (control_flow.py); checkpointed loops are
strip-mined first (checkpoint.py), so that only segment starts are stored.
"""

from __future__ import annotations

import functools
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from irtoolkit.classtest import ClassMemo
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.activity import Activity, body_ops
from irtoolkit.passes.ad.emit import DYN, Emitter, const_int
from irtoolkit.passes.ad.parallel import reverse_parallel
from irtoolkit.passes.ad.residuals import OuterProducts, prune_residual_tapes, residual_candidates, tape_residuals
from irtoolkit.passes.ad.rules import Contribution, is_nondiff, is_primal_only, no_rule_message, rule_inputs, vjp_rule

MAX_TRIP_ATTR = "autodiff.max_trip"  # internal hint on strip-mined inner loops
REVOLVE_ATTR = "autodiff.revolve_slots"  # internal: reversed by Revolve (checkpoint.py)
EXACT_TRIP_ATTR = "autodiff.exact_trip"  # internal: a strip-mined segment runs exactly this often


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


#: what ReverseGen.rule_of gives for a call (the derivative of its callee) and for a
#: non-differentiable op (no adjoint code)
_CALL, _NONDIFF = object(), object()


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Is ``v`` a result of ``op`` or defined in its regions?"""
    return op.is_ancestor(v.owner)


class AdjointMap:
    """Old value -> adjoint in the generated code; missing means a symbolic zero.

    Sparse contributions (of ``extract``/``extract_slice``) stay pending until
    the adjoint is read, then are scattered into zeros, or added in place into
    a dense adjoint or a loop accumulator.
    """

    def __init__(self, vmap: dict[SSAValue, SSAValue]):
        self.vmap = vmap
        self.dense: dict[SSAValue, SSAValue] = {}
        self.pending: dict[SSAValue, list[Contribution]] = {}
        self.order: list[SSAValue] = []

    def _note(self, v):
        if v not in self.dense and v not in self.pending:
            self.order.append(v)

    def add(self, E: Emitter, v: SSAValue, c) -> None:
        if c is None:
            return
        self._note(v)
        if isinstance(c, Contribution):
            if v in self.dense:
                self.dense[v] = c.add_into(E, self.dense[v])
            else:
                self.pending.setdefault(v, []).append(c)
            return
        if v in self.dense:
            self.dense[v] = E.add(self.dense[v], c)
        else:
            for p in self.pending.pop(v, []):
                c = p.add_into(E, c)
            self.dense[v] = c

    def get(self, E: Emitter, v: SSAValue) -> SSAValue | None:
        if v in self.pending:
            cs = self.pending.pop(v)
            d = cs[0].materialize(E, E.zeros(self.vmap[v]))
            for c in cs[1:]:
                d = c.add_into(E, d)
            self.dense[v] = d
        return self.dense.get(v)

    def get_or_zero(self, E: Emitter, v: SSAValue) -> SSAValue:
        a = self.get(E, v)
        return a if a is not None else E.zeros(self.vmap[v])

    def add_into(self, E: Emitter, v: SSAValue, acc: SSAValue) -> SSAValue:
        """acc + adjoint(v), using in-place updates for pending sparse parts."""
        if v in self.dense:
            acc = E.add(acc, self.dense[v])
        for c in self.pending.get(v, []):
            acc = c.add_into(E, acc)
        return acc

    def take(self, E: Emitter, v: SSAValue) -> SSAValue | None:
        """Remove and return the (materialized) adjoint of v."""
        a = self.get(E, v)
        self.dense.pop(v, None)
        if v in self.order:
            self.order.remove(v)
        return a

    def keys(self) -> list[SSAValue]:
        return [v for v in self.order if v in self.dense or v in self.pending]


class TapeInfo:
    def __init__(self, n, stored, tapes, lb, step, residuals=None, revolve=None):
        self.n = n  # SSAValue (index) of the trip count
        self.stored = stored  # carried positions stored
        self.tapes = tapes  # position -> tape tensor value (forward loop result)
        self.lb, self.step = lb, step
        # body value -> tape of its values (residuals.py; unread ones are pruned)
        self.residuals: dict[SSAValue, SSAValue] = residuals or {}
        # checkpoint.RevolveTape of a loop reversed by Revolve (no per-iteration tapes)
        self.revolve = revolve


def tape_type(t, n: int) -> TensorType:
    if isinstance(t, TensorType):
        return TensorType(t.get_element_type(), [n, *t.get_shape()])
    return TensorType(t, [n])


class ReverseGen:
    def __init__(self, driver, fn: func.FuncOp, act: Activity):
        self.driver = driver
        self.fn = fn
        self.act = act
        self.residual_loops: list[tuple[Operation, int, int]] = []  # see residuals.py
        self.rules = ClassMemo(self._rule_of_class)  # op class -> its rule (see rule_of)

    # -- whole function ----------------------------------------------------------
    def build(self, mode: str, name: str, wrt: list[int]) -> func.FuncOp:
        fn = self.fn
        old_block = fn.body.block
        in_types = list(fn.function_type.inputs.data)
        out_types = list(fn.function_type.outputs.data)
        if mode == "vjp":
            new_inputs = in_types + out_types
            new_outputs = out_types + [in_types[i] for i in wrt]
        elif mode == "grad":
            new_inputs, new_outputs = in_types, [in_types[i] for i in wrt]
        else:  # value_and_grad
            new_inputs, new_outputs = in_types, out_types + [in_types[i] for i in wrt]
        block = Block(arg_types=new_inputs)
        E = Emitter(block, loc=fn.location)
        vmap: dict[SSAValue, SSAValue] = dict(zip(old_block.args, block.args))
        for a, na in zip(old_block.args, block.args):
            na.name_hint = a.name_hint
        for na in block.args[len(in_types):]:
            na.name_hint = "ct"
        ops = body_ops(old_block)
        ret = old_block.last_op
        tapes = self.forward(E, ops, vmap)
        results = [vmap[v] for v in ret.operands]
        amap = AdjointMap(vmap)
        Er = E.located(ret.location)
        if mode == "vjp":
            seeds = block.args[len(in_types):]
        else:
            seeds = [Er.const(1.0, results[0])]
        for v, s in zip(ret.operands, seeds):
            if v in self.act.useful:
                amap.add(Er, v, s)
        self.reverse(E, ops, vmap, amap, tapes)
        grads = [amap.get_or_zero(E, old_block.args[i]) for i in wrt]
        outs = grads if mode == "grad" else results + grads
        E.op(func.ReturnOp(*outs))
        # after everything is emitted: it replaces forward loops held by Python values
        prune_residual_tapes(self.residual_loops)
        for o in block.walk():
            o.attributes.pop(MAX_TRIP_ATTR, None)
            o.attributes.pop(REVOLVE_ATTR, None)
            o.attributes.pop(EXACT_TRIP_ATTR, None)
        new = func.FuncOp(name, (new_inputs, new_outputs), Region(block), visibility="private")
        new.location = fn.location
        return new

    # -- forward sweep -----------------------------------------------------------
    def loop_active(self, op: Operation) -> bool:
        return any(r in self.act.useful for r in op.results)

    def forward(self, E: Emitter, ops: list[Operation], vmap, replay: bool = False) -> dict[Operation, TapeInfo]:
        """The primal ops, taping active loops. ``replay``: a recomputation inside the
        reverse sweep, which leaves out side effects that must happen once (prints)."""
        loop = _loop()
        tapes: dict[Operation, TapeInfo] = {}
        for op in ops:
            if isinstance(op, loop.ForOp) and self.loop_active(op) and REVOLVE_ATTR in op.attributes:
                from irtoolkit.passes.ad.checkpoint import revolve_forward

                tapes[op] = revolve_forward(self, E.located(op.location), op, vmap, replay)
            elif isinstance(op, loop.ForOp) and self.loop_active(op):
                tapes[op] = self.forward_for(E.located(op.location), op, vmap, replay)
            elif not (replay and is_primal_only(op)):
                E.raw(op.clone(value_mapper=vmap))
        return tapes

    def trip_count(self, E: Emitter, op, vmap) -> tuple[SSAValue, int | None]:
        return self.span(E, op.lb, op.ub, op.step, vmap)

    def span(self, E: Emitter, lb_v, ub_v, step_v, vmap) -> tuple[SSAValue, int | None]:
        """The number of iterations from ``lb_v`` below ``ub_v`` by ``step_v`` (an index),
        and its value when static."""
        lb, ub, step = const_int(lb_v), const_int(ub_v), const_int(step_v)
        if lb is not None and ub is not None and step is not None and step > 0:
            n = max(0, -(-(ub - lb) // step))
            return E.index(n), n
        lbv, ubv, stepv = vmap[lb_v], vmap[ub_v], vmap[step_v]
        if lb == 0 and step == 1:
            return E.to_index(E.imax(ubv, E.int_const(0, lb_v.type))), None
        one = E.int_const(1, lb_v.type)
        zero = E.int_const(0, lb_v.type)
        span = E.isub(E.iadd(E.isub(ubv, lbv), stepv), one)
        n = E.imax(E.idiv(span, stepv), zero)
        return E.to_index(n), None

    def forward_for(self, E: Emitter, op, vmap, replay: bool = False) -> TapeInfo:
        loop = _loop()
        body = op.body.block
        carried = list(body.args[1:])
        n_val, n_static = self.trip_count(E, op, vmap)
        cap = n_static
        if cap is None and MAX_TRIP_ATTR in op.attributes:
            hint = op.attributes[MAX_TRIP_ATTR].value.data
            cap = hint if hint > 0 else None
        stored = [k for k, a in enumerate(carried) if a.uses]
        residuals = residual_candidates(self, op)
        tape_inits, tape_types = [], []
        for k in stored:
            t = carried[k].type
            dyn = []
            if isinstance(t, TensorType) and DYN in t.get_shape():
                # the carried value keeps the dynamic sizes of its initial value
                init = vmap[op.iter_args[k]]
                dyn = [E.dim(init, i) for i, d in enumerate(t.get_shape()) if d == DYN]
            tt = tape_type(t, cap if cap is not None else DYN)
            tape_types.append(tt)
            tape_inits.append(E.empty(tt, ([] if cap is not None else [n_val]) + dyn))
        for r in residuals:
            tt = tape_type(r.type, cap if cap is not None else DYN)
            tape_types.append(tt)
            tape_inits.append(E.empty(tt, [] if cap is not None else [n_val]))
        lb, step = vmap[op.lb], vmap[op.step]
        block = Block(arg_types=[op.lb.type, *(a.type for a in carried), *tape_types])
        EB = E.at(block)
        bmap = dict(vmap)
        bmap[body.args[0]] = block.args[0]
        for a, na in zip(carried, block.args[1:]):
            bmap[a] = na
        idx = self.iteration_index(EB, op, block.args[0], lb, step)
        new_tapes = []
        for j, k in enumerate(stored):
            new_tapes.append(self.store(EB, bmap[carried[k]], block.args[1 + len(carried) + j], idx))
        for o in body_ops(body):
            if not (replay and is_primal_only(o)):
                EB.raw(o.clone(value_mapper=bmap))
        first = 1 + len(carried) + len(stored)
        for j, r in enumerate(residuals):
            new_tapes.append(self.store(EB, bmap[r], block.args[first + j], idx))
        yields = [bmap[y] for y in op.yield_op.operands]
        EB.op(loop.YieldOp(*yields, *new_tapes))
        inits = [vmap[i] for i in op.iter_args] + tape_inits
        new = loop.ForOp(vmap[op.lb], vmap[op.ub], step, inits, block)
        E.op(new)
        for r, nr in zip(op.res, new.res):
            vmap[r] = nr
        tapes = {k: new.res[len(carried) + j] for j, k in enumerate(stored)}
        res_tapes = {r: new.res[first - 1 + j] for j, r in enumerate(residuals)}
        if residuals:
            self.residual_loops.append((new, first - 1, len(residuals)))
        return TapeInfo(n_val, stored, tapes, lb, step, res_tapes)

    def iteration_index(self, E: Emitter, op, iv, lb, step) -> SSAValue:
        if const_int(op.lb) == 0 and const_int(op.step) == 1:
            return E.to_index(iv)
        return E.to_index(E.idiv(E.isub(iv, lb), step))

    def store(self, E: Emitter, x, tape, idx) -> SSAValue:
        t = x.type
        if isinstance(t, TensorType):
            rank = t.get_num_dims()
            sizes = [d if d != DYN else E.dim(x, i) for i, d in enumerate(t.get_shape())]
            return E.insert_slice(x, tape, [idx] + [0] * rank, [1, *sizes], [1] * (rank + 1))
        return E.insert(x, tape, [idx])

    def load(self, E: Emitter, tape, idx, t) -> SSAValue:
        if isinstance(t, TensorType):
            rank = t.get_num_dims()
            sizes = [d if d != DYN else E.dim(tape, i + 1) for i, d in enumerate(t.get_shape())]
            return E.extract_slice(tape, [idx] + [0] * rank, [1, *sizes], [1] * (rank + 1), t)
        return E.extract(tape, [idx])

    # -- reverse sweep -----------------------------------------------------------
    def reverse(self, E: Emitter, ops: list[Operation], vmap, amap: AdjointMap, tapes) -> None:
        loop = _loop()
        useful = self.act.useful
        dense, pending = amap.dense, amap.pending
        for op in reversed(ops):
            results = op.results
            for r in results:
                if r in useful:
                    break
            else:
                continue
            for r in results:
                if r in dense or r in pending:
                    break
            else:
                continue
            El = E.located(op.location)
            if op.regions and isinstance(op, loop.ForOp):
                self.reverse_for(El, op, vmap, amap, tapes[op])
            elif op.regions and isinstance(op, loop.IfOp):
                self.reverse_if(El, op, vmap, amap)
            elif op.regions and isinstance(op, loop.ParallelOp):
                reverse_parallel(self, El, op, vmap, amap)
            else:
                rule = self.rule_of(op)
                if rule is None:
                    raise op_error(op, no_rule_message(op))
                if rule is _NONDIFF:
                    continue
                if rule is _CALL:
                    self.reverse_call(El, op, vmap, amap)
                    continue
                inputs = rule_inputs(op)
                need = [o in useful for o in inputs]
                if not any(need):
                    continue
                ins = [vmap[o] for o in inputs]
                outs = [vmap[r] for r in op.results]
                adjs = [amap.get(El, r) for r in op.results]
                contribs = rule(El, op, ins, outs, adjs, need)
                for o, c, n in zip(inputs, contribs, need):
                    if n:
                        amap.add(El, o, c)

    def rule_of(self, op: Operation):
        """The VJP rule of ``op``, ``_CALL``, ``_NONDIFF`` or None (no rule), looked up once per
        op class by this generator (the rule tables do not change while it runs)."""
        return self.rules[type(op)]

    @staticmethod
    def _rule_of_class(cls: type):
        if issubclass(cls, func.CallOp):
            return _CALL
        if is_nondiff(cls):
            return _NONDIFF
        return vjp_rule(cls)

    def reverse_for(self, E: Emitter, op, vmap, amap: AdjointMap, info: TapeInfo) -> None:
        loop = _loop()
        useful = self.act.useful
        body = op.body.block
        carried = list(body.args[1:])
        yields = list(op.yield_op.operands)
        C = self.act.carried.get(op, [])
        inits = []
        for k in C:
            a = amap.take(E, op.res[k])
            inits.append(a if a is not None else E.zeros(vmap[op.res[k]]))
        c0, c1 = E.index(0), E.index(1)
        nm1 = E.isub(info.n, c1)
        block = Block(arg_types=[IndexType(), *(carried[k].type for k in C)])
        EB = E.at(block)
        idx = EB.isub(nm1, block.args[0])
        if const_int(op.lb) == 0 and const_int(op.step) == 1:
            iv = EB.from_index(idx, op.lb.type)
        else:
            iv = EB.iadd(EB.imul(EB.from_index(idx, op.lb.type), info.step), info.lb)
        bmap = dict(vmap)
        bmap[body.args[0]] = iv
        if info.revolve is None:
            for k in info.stored:
                bmap[carried[k]] = self.load(EB, info.tapes[k], idx, carried[k].type)
            ck_inits, ck_yields = [], []
        else:  # the checkpoints are carried by the reverse loop, after the adjoints
            ck_inits, ck_yields = info.revolve.restore(self, EB, block, idx, bmap)
        ops = body_ops(body)
        inner_tapes = self.forward(EB, ops, bmap, replay=True)
        local = AdjointMap(bmap)
        acc_args = self.open_accumulators(op, block, local)
        for j, k in enumerate(C):
            if yields[k] in useful:
                local.add(EB, yields[k], block.args[1 + j])
        self.reverse(EB, ops, bmap, local, inner_tapes)
        # A carried block argument with no uses is not stored (see
        # forward_for), so it is not in bmap; its adjoint is a symbolic zero,
        # shaped like the incoming adjoint of that position.
        outs = []
        for j, k in enumerate(C):
            a = local.get(EB, carried[k])
            outs.append(a if a is not None else EB.zeros(block.args[1 + j]))
        outs += ck_yields
        n_static = const_int(info.n) if MAX_TRIP_ATTR not in op.attributes else None
        if EXACT_TRIP_ATTR in op.attributes:
            n_static = op.attributes[EXACT_TRIP_ATTR].value.data
        free, acc_outs, acc_inits, outer = self.close_accumulators(E, EB, op, block, local, acc_args, amap,
                                                                   vmap, idx, n_static)
        EB.op(loop.YieldOp(*outs, *acc_outs, *outer.yields))
        tape_residuals(op, info, block, idx, bmap, self.load)
        rev = loop.ForOp(c0, info.n, c1, [*inits, *ck_inits, *acc_inits, *outer.inits], block)
        E.op(rev)
        first_acc = len(C) + len(ck_inits)
        outer.finish(E, rev, first_acc + len(free), amap)
        for j, k in enumerate(C):
            if op.iter_args[k] in useful:
                amap.add(E, op.iter_args[k], rev.res[j])
        for i, v in enumerate(free):
            amap.add(E, v, rev.res[first_acc + i])

    def open_accumulators(self, op: Operation, block: Block, local: AdjointMap) -> dict[SSAValue, SSAValue]:
        """Block arguments of the reverse loop ``block`` of ``op`` accumulating the adjoints of
        the values read from outside ``op``, threaded through the reverse loop (and through
        the loops nested in it), so that contributions add in the same order with or
        without checkpointing."""
        acc_args = {}
        for v in self.free_useful(op):
            acc_args[v] = block.insert_arg(v.type, len(block.args))
            local.dense[v] = acc_args[v]
            local.order.append(v)
        return acc_args

    def close_accumulators(self, E: Emitter, EB: Emitter, op, block: Block, local: AdjointMap, acc_args,
                           amap: AdjointMap, vmap, idx, n_static):
        """After the reverse body: (the values that got adjoints, the accumulators' values at
        the end of an iteration, their initial values, the stacked outer products); the
        arguments of accumulators that nothing flowed into are erased."""
        outer = OuterProducts(block, idx, n_static, E, EB)
        free, outs, inits = [], [], []
        for v, arg in acc_args.items():
            a = local.get(EB, v)
            if a is not arg:
                a = outer.rewrite(v, arg, a)
            if a is arg:  # nothing flowed into it (or only stacked outer products)
                block.erase_arg(arg)
                continue
            free.append(v)
            outs.append(a)
            init = amap.take(E, v)
            inits.append(init if init is not None else E.zeros(vmap[v]))
        for v in local.keys():
            if v not in acc_args and not defined_inside(v, op):
                raise op_error(op, "internal: adjoint of a loop invariant was not accumulated")
        return free, outs, inits, outer

    def free_useful(self, op: Operation) -> list[SSAValue]:
        """Values defined outside ``op``, used inside it, that may receive adjoints."""
        seen: list[SSAValue] = []
        for inner in op.walk():
            if inner is op:
                continue
            for v in inner.operands:
                if v in self.act.useful and v not in seen and not defined_inside(v, op):
                    seen.append(v)
        return seen

    def reverse_if(self, E: Emitter, op, vmap, amap: AdjointMap) -> None:
        loop = _loop()
        useful = self.act.useful
        adjs = [amap.get(E, r) if r in useful else None for r in op.output]
        branches = []
        for region in (op.true_region, op.false_region):
            block = Block()
            EB = E.at(block)
            bmap = dict(vmap)
            local = AdjointMap(bmap)
            if region.blocks:
                old = region.block
                ops = body_ops(old)
                tapes = self.forward(EB, ops, bmap, replay=True)
                for y, a in zip(old.last_op.operands, adjs):
                    if a is not None and y in useful:
                        local.add(EB, y, a)
                self.reverse(EB, ops, bmap, local, tapes)
            branches.append((block, EB, local))
        free: list[SSAValue] = []
        for _, _, local in branches:
            for v in local.keys():
                if not defined_inside(v, op) and v not in free:
                    free.append(v)
        for block, EB, local in branches:
            EB.op(loop.YieldOp(*(local.get_or_zero(EB, v) for v in free)))
        new = loop.IfOp(vmap[op.cond], [v.type for v in free], branches[0][0], branches[1][0])
        E.op(new)
        for v, r in zip(free, new.output):
            amap.add(E, v, r)

    def reverse_call(self, E: Emitter, op, vmap, amap: AdjointMap) -> None:
        useful = self.act.useful
        wrt = [i for i, o in enumerate(op.operands) if o in useful]
        if not wrt:
            return
        cts = [amap.get(E, r) for r in op.results]
        cts = [c if c is not None else E.zeros(vmap[r]) for c, r in zip(cts, op.results)]
        callee = op.callee.string_value()
        name, dfn = self.driver.derivative(callee, "vjp", wrt, op)
        out_types = list(dfn.function_type.outputs.data)
        call = func.CallOp(name, [*(vmap[o] for o in op.operands), *cts], out_types)
        E.op(call)
        grads = call.results[len(op.results):]
        for i, g in zip(wrt, grads):
            amap.add(E, op.operands[i], g)

