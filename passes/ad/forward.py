"""Forward mode: the generated function computes each value with its tangent.

Primal ops are cloned in order; after each op whose operands carry tangents
its JVP rule emits the tangent of its results. Values whose tangent is a
symbolic zero get no code. Loops carry the tangents of their varied carried
values (``loop.for``, ``loop.while``); ``loop.if`` yields the tangents of its
varied results; calls become calls to the callee's generated JVP function.
"""

from __future__ import annotations

import functools
from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region, SSAValue

from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.activity import Activity, body_ops
from irtoolkit.passes.ad.emit import Emitter
from irtoolkit.passes.ad.parallel import jvp_parallel
from irtoolkit.passes.ad.rules import is_nondiff, is_structural, jvp_rule, no_rule_message, rule_inputs


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _loop():
    from irtoolkit.dialects import loop

    return loop


class ForwardGen:
    def __init__(self, driver, fn: func.FuncOp, act: Activity):
        self.driver = driver
        self.fn = fn
        self.act = act

    def build(self, name: str, wrt: list[int]) -> func.FuncOp:
        fn = self.fn
        old = fn.body.block
        in_types = list(fn.function_type.inputs.data)
        out_types = list(fn.function_type.outputs.data)
        new_inputs = in_types + [in_types[i] for i in wrt]
        block = Block(arg_types=new_inputs)
        E = Emitter(block, loc=fn.location)
        vmap: dict[SSAValue, SSAValue] = dict(zip(old.args, block.args))
        for a, na in zip(old.args, block.args):
            na.name_hint = a.name_hint
        for j, i in enumerate(wrt):
            hint = old.args[i].name_hint
            block.args[len(in_types) + j].name_hint = f"{hint}_dot" if hint else "dot"
        tmap: dict[SSAValue, SSAValue] = {
            old.args[i]: block.args[len(in_types) + j] for j, i in enumerate(wrt)
        }
        self.jvp_ops(E, body_ops(old), vmap, tmap)
        ret = old.last_op
        Er = E.located(ret.location)
        results = [vmap[v] for v in ret.operands]
        tangents = [self.tangent_or_zero(Er, v, vmap, tmap) for v in ret.operands]
        E.op(func.ReturnOp(*results, *tangents))
        new = func.FuncOp(name, (new_inputs, out_types + out_types), Region(block), visibility="private")
        new.location = fn.location
        return new

    def tangent_or_zero(self, E: Emitter, v: SSAValue, vmap, tmap) -> SSAValue:
        t = tmap.get(v)
        return t if t is not None else E.zeros(vmap[v])

    def jvp_ops(self, E: Emitter, ops: list[Operation], vmap, tmap) -> None:
        loop = _loop()
        varied = self.act.varied
        for op in ops:
            El = E.located(op.location)
            inputs = rule_inputs(op)
            has_tangent = any(o in tmap for o in inputs) or (
                op.regions and any(r in varied for r in op.results)
            )
            if not has_tangent or is_nondiff(op):
                E.raw(op.clone(value_mapper=vmap))
                continue
            if isinstance(op, loop.ForOp):
                self.jvp_for(El, op, vmap, tmap)
            elif isinstance(op, loop.IfOp):
                self.jvp_if(El, op, vmap, tmap)
            elif isinstance(op, loop.WhileOp):
                self.jvp_while(El, op, vmap, tmap)
            elif isinstance(op, loop.ParallelOp):
                jvp_parallel(self, El, op, vmap, tmap)
            elif isinstance(op, func.CallOp):
                self.jvp_call(El, op, vmap, tmap)
            elif is_structural(op):
                raise op_error(op, no_rule_message(op))
            else:
                rule = jvp_rule(op)
                if rule is None:
                    raise op_error(op, no_rule_message(op))
                new = E.raw(op.clone(value_mapper=vmap))
                ins = [vmap[o] for o in inputs]
                tangents = [tmap.get(o) for o in inputs]
                outs = rule(El, op, ins, list(new.results), tangents)
                for r, t in zip(op.results, outs):
                    if t is not None and r in varied:
                        tmap[r] = t

    def jvp_for(self, E: Emitter, op, vmap, tmap) -> None:
        loop = _loop()
        varied = self.act.varied
        body = op.body.block
        carried = list(body.args[1:])
        A = [k for k, a in enumerate(carried) if a in varied]
        n = len(carried)
        inits = [vmap[i] for i in op.iter_args]
        inits += [self.tangent_or_zero(E, op.iter_args[k], vmap, tmap) for k in A]
        block = Block(arg_types=[body.args[0].type, *(a.type for a in carried), *(carried[k].type for k in A)])
        EB = E.at(block)
        bmap = dict(vmap)
        btmap = dict(tmap)
        for a, na in zip(body.args, block.args):
            bmap[a] = na
        for j, k in enumerate(A):
            btmap[carried[k]] = block.args[1 + n + j]
        self.jvp_ops(EB, body_ops(body), bmap, btmap)
        yields = list(op.yield_op.operands)
        Ey = EB.located(op.yield_op.location)
        EB.op(loop.YieldOp(*(bmap[y] for y in yields), *(self.tangent_or_zero(Ey, yields[k], bmap, btmap) for k in A)))
        new = E.op(loop.ForOp(vmap[op.lb], vmap[op.ub], vmap[op.step], inits, block))
        for r, nr in zip(op.res, new.res):
            vmap[r] = nr
        for j, k in enumerate(A):
            tmap[op.res[k]] = new.res[n + j]

    def jvp_if(self, E: Emitter, op, vmap, tmap) -> None:
        loop = _loop()
        varied = self.act.varied
        R = [k for k, r in enumerate(op.output) if r in varied]
        blocks = []
        for region in (op.true_region, op.false_region):
            block = Block()
            EB = E.at(block)
            if region.blocks:
                old = region.block
                bmap, btmap = dict(vmap), dict(tmap)
                self.jvp_ops(EB, body_ops(old), bmap, btmap)
                ys = list(old.last_op.operands)
                Ey = EB.located(old.last_op.location)
                EB.op(loop.YieldOp(*(bmap[y] for y in ys), *(self.tangent_or_zero(Ey, ys[k], bmap, btmap) for k in R)))
            blocks.append(block)
        types = [r.type for r in op.output] + [op.output[k].type for k in R]
        new = E.op(loop.IfOp(vmap[op.cond], types, blocks[0], blocks[1] if op.false_region.blocks else None))
        n = len(op.output)
        for r, nr in zip(op.output, new.output):
            vmap[r] = nr
        for j, k in enumerate(R):
            tmap[op.output[k]] = new.output[n + j]

    def jvp_while(self, E: Emitter, op, vmap, tmap) -> None:
        loop = _loop()
        varied = self.act.varied
        before, after = op.before_region.block, op.after_region.block
        Ab = [k for k, a in enumerate(before.args) if a in varied]
        Aa = [k for k, a in enumerate(after.args) if a in varied]
        nb, na = len(before.args), len(after.args)
        inits = [vmap[i] for i in op.inits] + [self.tangent_or_zero(E, op.inits[k], vmap, tmap) for k in Ab]
        bblock = Block(arg_types=[*(a.type for a in before.args), *(before.args[k].type for k in Ab)])
        ablock = Block(arg_types=[*(a.type for a in after.args), *(after.args[k].type for k in Aa)])
        # before region
        EB = E.at(bblock)
        bmap, btmap = dict(vmap), dict(tmap)
        for a, x in zip(before.args, bblock.args):
            bmap[a] = x
        for j, k in enumerate(Ab):
            btmap[before.args[k]] = bblock.args[nb + j]
        self.jvp_ops(EB, body_ops(before), bmap, btmap)
        cond = op.condition_op
        fwd = list(cond.args)
        Ec = EB.located(cond.location)
        EB.op(loop.ConditionOp(bmap[cond.condition], *(bmap[v] for v in fwd),
                               *(self.tangent_or_zero(Ec, fwd[k], bmap, btmap) for k in Aa)))
        # after region
        EA = E.at(ablock)
        amap, atmap = dict(vmap), dict(tmap)
        for a, x in zip(after.args, ablock.args):
            amap[a] = x
        for j, k in enumerate(Aa):
            atmap[after.args[k]] = ablock.args[na + j]
        self.jvp_ops(EA, body_ops(after), amap, atmap)
        ys = list(op.yield_op.operands)
        Ey = EA.located(op.yield_op.location)
        EA.op(loop.YieldOp(*(amap[y] for y in ys), *(self.tangent_or_zero(Ey, ys[k], amap, atmap) for k in Ab)))
        types = [r.type for r in op.res] + [op.res[k].type for k in Aa]
        new = E.op(loop.WhileOp(inits, types, bblock, ablock))
        n = len(op.res)
        for r, nr in zip(op.res, new.res):
            vmap[r] = nr
        for j, k in enumerate(Aa):
            tmap[op.res[k]] = new.res[n + j]

    def jvp_call(self, E: Emitter, op, vmap, tmap) -> None:
        wrt = [i for i, o in enumerate(op.operands) if o in tmap]
        name, dfn = self.driver.derivative(op.callee.string_value(), "jvp", wrt, op)
        out_types = list(dfn.function_type.outputs.data)
        operands = [vmap[o] for o in op.operands] + [tmap[op.operands[i]] for i in wrt]
        call = E.op(func.CallOp(name, operands, out_types))
        n = len(op.results)
        for k, r in enumerate(op.results):
            vmap[r] = call.results[k]
            if r in self.act.varied:
                tmap[r] = call.results[n + k]
