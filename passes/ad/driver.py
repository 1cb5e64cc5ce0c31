"""The generic driver of the `ad` pass.

Each ``autodiff.grad/value_and_grad/vjp/jvp`` op becomes a ``func.call`` to a
generated private function, named after its callee and unique in the symbol
table (``@loss_grad_0_1``, ``@f_jvp_0``), generated once per (callee, mode,
wrt) and reused. A function's own autodiff ops are lowered before it is
differentiated (callees first), so derivatives of derivatives work: the
generated code is ordinary IR. At the end ``autodiff.stop_gradient`` is erased
and the custom-rule attributes are dropped: no autodiff op is left to apply
them, and the lowering changes the signatures they relate (a rule's
``tensor`` types become ``memref`` ones), so the output is free of the
autodiff dialect.
"""

from __future__ import annotations

import functools
from xdsl.dialects import func
from xdsl.dialects.builtin import FlatSymbolRefAttr, ModuleOp, SymbolRefAttr, TensorType
from xdsl.ir import Block, Operation, Region

from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.ad.activity import Activity
from irtoolkit.passes.ad.emit import Emitter, is_float_like
from irtoolkit.passes.ad.rules import load_rules

CUSTOM_VJP = "autodiff.custom_vjp"
CUSTOM_JVP = "autodiff.custom_jvp"


@functools.cache  # (an import statement in a function costs ~1 us a call)
def _autodiff():
    from irtoolkit.dialects import autodiff

    return autodiff


@functools.cache
def _is_autodiff_op():
    return instance_test(*_autodiff().AUTODIFF_OPS)  # (each op of the module is tested)


@functools.cache
def _is_stop_gradient():
    return instance_test(_autodiff().StopGradientOp)


def _mode(op) -> str:
    ad = _autodiff()
    if isinstance(op, ad.GradOp):
        return "grad"
    if isinstance(op, ad.ValueAndGradOp):
        return "value_and_grad"
    if isinstance(op, ad.VjpOp):
        return "vjp"
    return "jvp"


def float_positions(types) -> list[int]:
    return [i for i, t in enumerate(types) if is_float_like(t)]


def _is_scalar_loss(t) -> bool:
    if isinstance(t, TensorType):
        return t.get_num_dims() == 0 and is_float_like(t)
    return is_float_like(t)


class Driver:
    def __init__(self, module: ModuleOp, checkpoint: str | None = None,
                 checkpoint_memory: str | None = None):
        load_rules()
        self.module = module
        self.checkpoint = checkpoint
        self.checkpoint_memory = checkpoint_memory
        self.funcs: dict[str, func.FuncOp] = {}
        self.symbols: set[str] = set()
        for op in module.body.block.ops:
            sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
            if sym is not None:
                self.symbols.add(sym.data)
            if isinstance(op, func.FuncOp):
                self.funcs[op.sym_name.data] = op
        self.cache: dict[tuple, tuple[str, func.FuncOp]] = {}
        self.lowered: set[str] = set()
        self.lowering: list[str] = []
        self.generating: list[str] = []
        self.last_derivative: dict[str, Operation] = {}
        self.pure_cache: dict[str, bool] = {}

    # -- entry -------------------------------------------------------------------
    def run(self) -> None:
        for f in list(self.funcs.values()):
            self.lower(f)
        self.erase_stop_gradients()
        for f in self.funcs.values():
            for attr in (CUSTOM_VJP, CUSTOM_JVP):
                f.attributes.pop(attr, None)

    def lower(self, f: func.FuncOp) -> None:
        """Replace the autodiff ops of ``f`` by calls (differentiating their callees first)."""
        name = f.sym_name.data
        if name in self.lowered or name in self.lowering:
            return
        self.lowering.append(name)
        is_autodiff_op = _is_autodiff_op()
        for op in list(f.walk()):
            if is_autodiff_op(op):
                self.replace(op)
        self.lowering.pop()
        self.lowered.add(name)

    def erase_stop_gradients(self) -> None:
        is_stop_gradient = _is_stop_gradient()
        for op in list(self.module.walk()):
            if is_stop_gradient(op):
                op.result.replace_all_uses_with(op.input)
                op.parent_block().erase_op(op)

    # -- one autodiff op -------------------------------------------------------------
    def replace(self, op) -> None:
        mode = _mode(op)
        callee = op.callee_name
        f = self.funcs.get(callee)
        if f is None:
            raise op_error(op, f"callee @{callee} is not a func.func of this module")
        in_types = list(f.function_type.inputs.data)
        out_types = list(f.function_type.outputs.data)
        wrt = op.wrt_positions(in_types)
        for p in wrt:
            if not (0 <= p < len(in_types)) or not is_float_like(in_types[p]):
                raise op_error(op, f"cannot differentiate with respect to argument #{p}")
        if mode in ("grad", "value_and_grad") and (len(out_types) != 1 or not _is_scalar_loss(out_types[0])):
            got = ", ".join(str(t) for t in out_types) or "nothing"
            raise op_error(op, f"callee @{callee} must return one scalar (f32, f64 or a 0-d float tensor) "
                               f"to take its gradient, but it returns ({got})")
        name, dfn = self.derivative(callee, mode, wrt, op)
        operands = [*op.args, *op.extra_operands]
        call = func.CallOp(name, operands, list(dfn.function_type.outputs.data))
        call.location = op.location
        got = [r.type for r in call.results]
        want = [r.type for r in op.outs]
        if got != want:
            raise op_error(op, "result types (" + ", ".join(map(str, want)) + ") do not match the "
                               "derivative's (" + ", ".join(map(str, got)) + ")")
        block = op.parent_block()
        block.insert_op_before(call, op)
        for r, nr in zip(op.outs, call.results):
            r.replace_all_uses_with(nr)
        op.parent_block().erase_op(op)

    # -- derivative functions ---------------------------------------------------------
    def unique_name(self, base: str) -> str:
        name, i = base, 1
        while name in self.symbols:
            name = f"{base}_{i}"
            i += 1
        self.symbols.add(name)
        return name

    def derivative(self, callee: str, mode: str, wrt: list[int], at: Operation) -> tuple[str, func.FuncOp]:
        """Name and op of the generated derivative of ``callee`` (generated on first use)."""
        key = (callee, mode, tuple(wrt))
        if key in self.cache:
            return self.cache[key]
        f = self.funcs.get(callee)
        if f is None:
            raise op_error(at, f"cannot differentiate @{callee}: not a func.func of this module")
        if not f.body.blocks:
            raise op_error(at, f"cannot differentiate @{callee}: it is a declaration without a body")
        if callee in self.generating or callee in self.lowering:
            raise op_error(at, f"cannot differentiate the recursive call to @{callee} "
                               "(recursion is not supported by the ad pass)")
        self.lower(f)
        self.generating.append(callee)
        try:
            base = f"{callee}_{mode}" + "".join(f"_{i}" for i in wrt)
            name = self.unique_name(base)
            if mode == "jvp":
                dfn = self.build_jvp(f, name, wrt, at)
            else:
                dfn = self.build_reverse(f, mode, name, wrt, at)
        finally:
            self.generating.pop()
        if mode != "jvp":
            self.remove_dead_calls(dfn)
        from irtoolkit.passes.ad.residuals import share_stacked_tapes, sum_stacked_accumulators
        from irtoolkit.passes.transforms.licm import hoist_loop_invariants

        hoist_loop_invariants(dfn)  # e.g. the transposed weights of a reverse loop
        share_stacked_tapes(dfn)  # (after hoisting: the reverse index n - 1 - i reads constants)
        sum_stacked_accumulators(dfn)
        # derivatives follow their function, in the order they are generated
        after = self.last_derivative.get(callee, f)
        self.module.body.block.insert_op_after(dfn, after)
        self.last_derivative[callee] = dfn
        self.funcs[name] = dfn
        self.lowered.add(name)
        self.cache[key] = (name, dfn)
        return name, dfn

    def _check_single_block(self, f: func.FuncOp) -> None:
        if len(f.body.blocks) != 1:
            raise op_error(f, "cannot differentiate a function with several blocks "
                              "(unstructured control flow); use the loop dialect")

    def build_jvp(self, f: func.FuncOp, name: str, wrt: list[int], at) -> func.FuncOp:
        if CUSTOM_JVP in f.attributes:
            return self.custom_jvp(f, name, wrt, at)
        if CUSTOM_VJP in f.attributes:
            raise op_error(at, f"@{f.sym_name.data} has '{CUSTOM_VJP}' but no '{CUSTOM_JVP}': "
                               "forward mode needs a custom JVP rule")
        self._check_single_block(f)
        from irtoolkit.passes.ad.forward import ForwardGen

        block = f.body.block
        act = Activity(block, [block.args[i] for i in wrt], "forward")
        return ForwardGen(self, f, act).build(name, wrt)

    def build_reverse(self, f: func.FuncOp, mode: str, name: str, wrt: list[int], at) -> func.FuncOp:
        if CUSTOM_VJP in f.attributes:
            return self.custom_vjp(f, mode, name, wrt, at)
        if CUSTOM_JVP in f.attributes:
            raise op_error(at, f"@{f.sym_name.data} has '{CUSTOM_JVP}' but no '{CUSTOM_VJP}': "
                               "reverse mode needs a custom VJP rule")
        self._check_single_block(f)
        from irtoolkit.passes.ad.checkpoint import checkpoint_loops
        from irtoolkit.passes.ad.control_flow import rewrite_whiles
        from irtoolkit.passes.ad.reverse import ReverseGen
        from irtoolkit.passes.transforms.sliced_products import batch_sliced_products

        # The rewrites below change loops, on a working copy; a body without ops with
        # regions (straight-line code) has nothing to rewrite, and is read as it is
        # (ReverseGen clones the primal ops it needs, it never changes them).
        straight = not any(op.regions for op in f.body.block.ops)
        work = f if straight else f.clone()
        if not straight:
            batch_sliced_products(work)  # x_t @ W for all t at once: one dot forward, two back
        block = work.body.block
        seeds = [block.args[i] for i in wrt]
        act = Activity(block, seeds, "reverse")
        if not straight:
            if rewrite_whiles(work, act.varied):
                act = Activity(block, seeds, "reverse")  # of the loops that replace them
            if checkpoint_loops(work, self.checkpoint, self.checkpoint_memory, act.varied, self):
                act = Activity(block, seeds, "reverse")  # of the strip-mined loops
        act.backward(block, block.last_op.operands)
        try:
            return ReverseGen(self, work, act).build(mode, name, wrt)
        finally:
            if work is not f:
                work.erase(safe_erase=False)

    # -- clean-up ------------------------------------------------------------------
    def is_pure_function(self, name: str, _stack: tuple[str, ...] = ()) -> bool:
        """Does calling @name have no side effects (so a dead call can go)?"""
        from xdsl.traits import is_side_effect_free

        if name in self.pure_cache:
            return self.pure_cache[name]
        f = self.funcs.get(name)
        pure = f is not None and bool(f.body.blocks) and name not in _stack
        if pure:
            for op in f.walk():
                if op is f or isinstance(op, func.ReturnOp):
                    continue
                if isinstance(op, func.CallOp):
                    if not self.is_pure_function(op.callee.string_value(), (*_stack, name)):
                        pure = False
                        break
                elif not is_side_effect_free(op):
                    pure = False
                    break
        self.pure_cache[name] = pure
        return pure

    def remove_dead_calls(self, f: func.FuncOp) -> None:
        """Dead code of the generated function, including recomputed primal calls
        whose results the reverse sweep did not need (canonicalize keeps calls)."""
        from xdsl.transforms.dead_code_elimination import is_trivially_dead

        from irtoolkit.passes.transforms.dead_code import erase_dead

        def dead(op: Operation) -> bool:
            if isinstance(op, func.CallOp):
                return self.is_pure_function(op.callee.string_value())
            return op is not f and is_trivially_dead(op)

        erase_dead(list(f.walk()), dead)

    # -- custom rules -------------------------------------------------------------
    def _custom(self, f: func.FuncOp, attr: str, at) -> func.FuncOp:
        ref = f.attributes[attr]
        if not isinstance(ref, (SymbolRefAttr, FlatSymbolRefAttr)):
            raise op_error(f, f"'{attr}' must be a symbol reference, got {ref}")
        target = self.funcs.get(ref.root_reference.data)
        if target is None:
            raise op_error(f, f"'{attr}' refers to @{ref.root_reference.data}, which is not a func.func")
        return target

    def custom_vjp(self, f: func.FuncOp, mode: str, name: str, wrt: list[int], at) -> func.FuncOp:
        rule = self._custom(f, CUSTOM_VJP, at)
        in_types = list(f.function_type.inputs.data)
        out_types = list(f.function_type.outputs.data)
        floats = float_positions(in_types)
        want_in = in_types + out_types
        want_out = [in_types[i] for i in floats]
        if list(rule.function_type.inputs.data) != want_in or list(rule.function_type.outputs.data) != want_out:
            raise op_error(rule, f"custom VJP rule of @{f.sym_name.data} must have type "
                                 f"({', '.join(map(str, want_in))}) -> ({', '.join(map(str, want_out))})")
        if mode == "vjp":
            ins, outs = in_types + out_types, out_types + [in_types[i] for i in wrt]
        elif mode == "grad":
            ins, outs = in_types, [in_types[i] for i in wrt]
        else:
            ins, outs = in_types, out_types + [in_types[i] for i in wrt]
        block = Block(arg_types=ins)
        E = Emitter(block, loc=f.location)
        args = list(block.args[: len(in_types)])
        results = E.op(func.CallOp(f.sym_name.data, args, out_types)).results
        if mode == "vjp":
            cts = list(block.args[len(in_types):])
        else:
            cts = [E.const(1.0, results[0])]
        grads = E.op(func.CallOp(rule.sym_name.data, [*args, *cts], want_out)).results
        picked = [grads[floats.index(i)] for i in wrt]
        E.op(func.ReturnOp(*(picked if mode == "grad" else [*results, *picked])))
        new = func.FuncOp(name, (ins, outs), Region(block), visibility="private")
        new.location = f.location
        return new

    def custom_jvp(self, f: func.FuncOp, name: str, wrt: list[int], at) -> func.FuncOp:
        rule = self._custom(f, CUSTOM_JVP, at)
        in_types = list(f.function_type.inputs.data)
        out_types = list(f.function_type.outputs.data)
        floats = float_positions(in_types)
        want_in = in_types + [in_types[i] for i in floats]
        want_out = out_types + out_types
        if list(rule.function_type.inputs.data) != want_in or list(rule.function_type.outputs.data) != want_out:
            raise op_error(rule, f"custom JVP rule of @{f.sym_name.data} must have type "
                                 f"({', '.join(map(str, want_in))}) -> ({', '.join(map(str, want_out))})")
        ins = in_types + [in_types[i] for i in wrt]
        block = Block(arg_types=ins)
        E = Emitter(block, loc=f.location)
        args = list(block.args[: len(in_types)])
        tangent_of = {i: block.args[len(in_types) + j] for j, i in enumerate(wrt)}
        tangents = [tangent_of[i] if i in tangent_of else E.zeros(args[i]) for i in floats]
        res = E.op(func.CallOp(rule.sym_name.data, [*args, *tangents], want_out)).results
        E.op(func.ReturnOp(*res))
        new = func.FuncOp(name, (ins, want_out), Region(block), visibility="private")
        new.location = f.location
        return new

