"""`lower-tensor-to-loop`: bufferization of value-semantic tensors.

First every elementwise op and reduction left (``tensor-fuse`` took the
groups) becomes a kernel of its own (``kernel.py``: a `loop.for` nest at the
tensor level). Then every tensor value becomes a memref buffer and every
`tensor` op a nest of `loop.for` loops of `memref.load` / `memref.store` (the
per-op rules are in ``tensor_to_loop_rules.py``). Scalars and ops without
tensors pass through unchanged.

Calling convention (functions taking and returning tensors)
------------------------------------------------------------
A `tensor<4x3xf32>` argument or result becomes a `memref<4x3xf32>`, a
`tensor<?x784xf32>` a `memref<?x784xf32>` (row-major, identity layout; the
dynamic sizes travel in the memref). Ownership:

* arguments are *borrowed*: the callee never writes into them and never frees
  them; the caller keeps ownership (and may pass the same buffer twice);
* results are *owned by the caller*: each tensor result is a freshly allocated
  buffer (`memref.alloc`), distinct from every argument and from the other
  results, which the caller must free with `memref.dealloc` (the JIT runtime
  does so after copying it into a numpy array);
* scalar arguments and results are passed as they are.

Ownership inside a function (the deallocation scheme)
-----------------------------------------------------
Each tensor SSA value maps to one buffer. A value is *owned* by the block
that defines it when its buffer is one this function must free: results of
tensor ops (fresh allocations), results of `func.call`, `loop.for`,
`loop.if` and `loop.while`, and the tensor block arguments of `loop.for`
bodies and `loop.while` regions. Function arguments, buffers of dense
constants placed in globals, and values of an enclosing block used inside a
nested region are *borrowed*: never written, never freed there.

An owned value is deallocated right after its last use in its block (a use
inside a nested region counts as a use by the op holding the region; a value
without uses is freed right after its definition), unless that last use
*consumes* it, which moves the buffer to another value:

* `loop.yield`, `loop.condition` and `func.return` transfer each tensor
  operand: an owned value whose last use this is moves; anything else (a
  borrowed value, a value yielded twice) is copied into a fresh buffer first,
  so every yielded/returned buffer is owned and unique;
* `loop.for` / `loop.while` init operands are transferred the same way into
  the loop: the body owns its iter-arg buffers, frees them after their last
  use or yields them on; the loop's results are owned by the enclosing block;
* `tensor.insert` / `tensor.insert_slice` update their destination in place
  when it is owned, this is its last use (and it is not also the source):
  carried tapes are written in place, without a copy per iteration;
  otherwise they copy the destination first.

Ops with regions that this pass does not know (e.g. `loop.parallel`) are
rebuilt with their regions lowered, as long as no tensor crosses their
boundary.

Memref ops emitted: `memref.alloc`, `memref.dealloc`, `memref.load`,
`memref.store`, `memref.dim`, `memref.copy` (whole-buffer copies), and
`memref.global` (private, constant) + `memref.get_global` for non-splat
dense constants with more than ``global_threshold`` elements (smaller ones
are an alloc filled by stores; splats a fill loop). A get_global buffer is
borrowed: never written, never freed.

Large f32/f64 `tensor.dot`s and `tensor.matmul`s call BLAS instead of a loop
nest: one `func.call @scipy_cblas_{s,d}gemm64_` (a private declaration added
to the module) per batch element on buffer addresses from
`memref.extract_aligned_pointer_as_index`, with transposed operands folded
into the gemm flags (options ``blas``, ``blas_threshold``; see ``blas.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, printf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from irtoolkit.classtest import instance_test
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.lowering.blas import plan_accumulations, plan_dots
from irtoolkit.passes.lowering.kernel import KernelEmitter, block_op_list, lower_to_kernels, on_tensors, tensor_class
from irtoolkit.passes.lowering.tensor_to_loop_rules import rule_of
from irtoolkit.passes.lowering.loop_to_cf import move_ops_to_end
from irtoolkit.pipeline import option

# ---------------------------------------------------------------------------
# types
# ---------------------------------------------------------------------------


#: asked for every operand and result of the program
is_tensor: Callable[[Attribute], bool] = instance_test(TensorType)


@functools.lru_cache(maxsize=4096)
def memref_type_of(t: TensorType) -> MemRefType:
    # remembered: xDSL's MemRefType checks its shape against a generic type
    # (a constraint built per call, a third of a millisecond), for a few distinct types
    return MemRefType(t.get_element_type(), list(t.get_shape()))


def convert_type(t: Attribute) -> Attribute:
    """tensor<..> -> memref<..> (same shape and element type); others unchanged."""
    if isinstance(t, TensorType):
        return memref_type_of(t)
    return t


def _has_tensor_types(op: Operation) -> bool:
    for o in op.walk():
        if isinstance(o, func.FuncOp):
            if any(is_tensor(t) for t in (*o.function_type.inputs, *o.function_type.outputs)):
                return True
        if any(is_tensor(v.type) for v in (*o.operands, *o.results)):
            return True
        for r in o.regions:
            for b in r.blocks:
                if any(is_tensor(a.type) for a in b.args):
                    return True
    return False


#: the ops lower_call lowers
_is_call = instance_test(func.CallOp, printf.PrintFormatOp)
_is_constant = instance_test(arith.ConstantOp)
_is_func = instance_test(func.FuncOp)

# Ops whose tensor block arguments are owned by their blocks, and whose tensor
# operands at these positions are transferred into the regions (loop inits).
_LOOPS_CARRYING = {"loop.for", "loop.while"}
_KNOWN_REGION_OPS = {"loop.for", "loop.while", "loop.if"}
_TRANSFERRING_TERMINATORS = {"loop.yield", "loop.condition", "func.return"}


# ---------------------------------------------------------------------------
# per-block ownership state
# ---------------------------------------------------------------------------


@dataclass
class _Scope:
    """Ownership state of one block being lowered (values are the ORIGINAL ones)."""

    block: Block
    last_use: dict[SSAValue, int] = field(default_factory=dict)
    dies_at: dict[int, list[SSAValue]] = field(default_factory=dict)
    owned: dict[SSAValue, None] = field(default_factory=dict)  # ordered set
    index: int = -1
    op: Operation | None = None
    # tensor values used inside the regions of the current op
    _region_uses: set[SSAValue] | None = None
    # index of an op with regions -> the tensor values used inside them (found
    # by analyse: region_uses would walk the nest again)
    nest_uses: dict[int, set[SSAValue]] = field(default_factory=dict)
    #: the block's ops when analysed (before lowering moves them out)
    ops: list[Operation] = field(default_factory=list)
    #: per op of ``ops``: no regions, no tensor operand or result, no call -- what
    #: lower_op gives clone_scalar (nothing can die at it)
    plain: list[bool] = field(default_factory=list)

    def analyse(self, nested: dict[Block, _Scope]) -> None:
        """The last use of each tensor value used in the block (by an op, or inside
        its regions). The blocks nested in its ops are analysed first, into ``nested``
        (kept for when they are lowered): the tensor values used inside an op are
        the keys of its blocks' ``last_use``, in the order of a walk of the op --
        each block of a nest is analysed once, not once per enclosing block."""
        last_use = self.last_use
        ops = self.ops = block_op_list(self.block)
        plain = self.plain = [False] * len(ops)
        for i, op in enumerate(ops):
            # (asked of every op: its operand tuple read directly, without xDSL's view)
            on_tensors = False
            for v in op._operands:  # pyright: ignore[reportPrivateUsage]
                if tensor_class[type(v.type)]:
                    last_use[v] = i
                    on_tensors = True
            if not op.regions:
                if not on_tensors and not _is_call(op):
                    for v in op.results:
                        if tensor_class[type(v.type)]:
                            break
                    else:
                        plain[i] = True
                continue
            uses = self.nest_uses[i] = set()
            for region in op.regions:
                for block in region.blocks:
                    inner = nested[block] = _Scope(block)
                    inner.analyse(nested)
                    for v in inner.last_use:
                        last_use[v] = i
                        uses.add(v)
        for v, i in self.last_use.items():
            self.dies_at.setdefault(i, []).append(v)

    def last_use_order(self, v: SSAValue) -> int:
        """A deterministic order for values (their position in ``last_use``)."""
        if not hasattr(self, "_order"):
            self._order = {u: k for k, u in enumerate(self.last_use)}
        return self._order.get(v, -1)

    def region_uses(self) -> set[SSAValue]:
        if self._region_uses is None:
            self._region_uses = self.nest_uses.get(self.index)
        if self._region_uses is None:
            uses: set[SSAValue] = set()
            assert self.op is not None
            for inner in self.op.walk():  # (the op's own operands are not region uses)
                if inner is not self.op:
                    uses.update(v for v in inner.operands if is_tensor(v.type))
            self._region_uses = uses
        return self._region_uses


class LoweringError(Exception):
    pass


# ---------------------------------------------------------------------------
# the lowering driver
# ---------------------------------------------------------------------------


class TensorLowering(KernelEmitter):
    """Lowers the function bodies of a module; the rules in tensor_to_loop_rules.py
    call back into it. A ``KernelEmitter`` (insertion point, constants hoisted to the
    function entry, loop nests) with buffers and their ownership."""

    def __init__(self, module: ModuleOp, options: LowerTensorToLoopPass):
        super().__init__()
        self.module = module
        self.options = options
        self.vmap: dict[SSAValue, SSAValue] = {}
        # splat tensors that got no buffer: original value -> the repeated scalar
        self.splats: dict[SSAValue, SSAValue] = {}
        self.scopes: list[_Scope] = []
        #: blocks not lowered yet -> their analysed scope (_Scope.analyse)
        self.analysed: dict[Block, _Scope] = {}
        self.globals: list[Operation] = []
        self.global_for: dict[tuple[Attribute, Attribute], str] = {}
        self.taken_symbols: set[str] = {
            o.sym_name.data for o in module.body.block.ops if isinstance(getattr(o, "sym_name", None), StringAttr)
        }
        #: dots that call BLAS -> the gemm symbol (``blas.plan_dots``)
        self.gemm_dots: dict[Operation, str] = {}
        #: adds whose dot operand's gemm adds into the other operand -> the dot's operand
        #: number (``blas.plan_accumulations``)
        self.gemm_accumulate: dict[Operation, int] = {}
        #: transposes a conv reads through (``windows.defer_transpose``) -> permutation
        self.transposed_views: dict[SSAValue, list[int]] = {}

    # -- values ------------------------------------------------------------

    def val(self, v: SSAValue) -> SSAValue:
        """The lowered value of an original value (a memref for a tensor)."""
        try:
            return self.vmap[v]
        except KeyError:
            raise LoweringError(f"value {v} used before it was lowered") from None

    buf = val

    def set_result(self, old: SSAValue, new: SSAValue, owned: bool = True) -> None:
        self.vmap[old] = new
        if old.name_hint and not new.name_hint and not isinstance(new, BlockArgument):
            new.name_hint = old.name_hint
        if owned and is_tensor(old.type):
            self.scope.owned[old] = None

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def dims_of_buf(self, b: SSAValue) -> list[SSAValue]:
        t = b.type
        assert isinstance(t, MemRefType)
        out = []
        for i, s in enumerate(t.get_shape()):
            if s == DYNAMIC_INDEX:
                out.append(self.emit1(memref.DimOp(b, self.index(i))))
            else:
                out.append(self.index(s))
        return out

    def dims(self, v: SSAValue) -> list[SSAValue]:
        """Index values of the sizes of an original tensor value."""
        return self.dims_of_buf(self.buf(v))

    def alloc(self, t: Attribute, dims: Sequence[SSAValue]) -> SSAValue:
        """A fresh buffer of tensor/memref type ``t``; ``dims``: all sizes (the
        dynamic ones are used)."""
        mt = convert_type(t)
        assert isinstance(mt, MemRefType)
        shape = mt.get_shape()
        dyn = [d for d, s in zip(dims, shape) if s == DYNAMIC_INDEX]
        return self.emit1(memref.AllocOp(dyn, [], mt))

    def dealloc(self, b: SSAValue) -> None:
        self.emit(memref.DeallocOp.get(b))

    # loads and stores built directly (the most frequent ops of a nest): xDSL's
    # constructors go through the generic IRDL argument checks
    def load(self, b: SSAValue, idx: Sequence[SSAValue]) -> SSAValue:
        t = b.type
        assert isinstance(t, MemRefType)
        return self.emit1(memref.LoadOp.create(operands=[b, *idx], result_types=[t.element_type]))

    def store(self, v: SSAValue, b: SSAValue, idx: Sequence[SSAValue]) -> None:
        self.emit(memref.StoreOp.create(operands=[v, b, *idx]))

    def fresh(self, res: SSAValue, dims: Sequence[SSAValue]) -> SSAValue:
        """A fresh buffer for tensor result ``res`` of sizes ``dims``, owned by the block."""
        b = self.alloc(res.type, dims)
        self.set_result(res, b)
        return b

    def copy(self, b: SSAValue) -> SSAValue:
        """A fresh buffer with the contents of buffer ``b`` (memref.copy)."""
        dims = self.dims_of_buf(b)
        new = self.alloc(b.type, dims)
        self.emit(memref.CopyOp(b, new))
        return new

    def global_constant(self, value: Attribute, t: TensorType) -> SSAValue:
        """A read-only buffer holding a dense constant: a private constant
        memref.global (shared by equal constants) read with memref.get_global."""
        mt = memref_type_of(t)
        key = (value, mt)
        name = self.global_for.get(key)
        if name is None:
            base = "__tensor_constant"
            k = len(self.globals)
            name = f"{base}_{k}"
            while name in self.taken_symbols:
                k += 1
                name = f"{base}_{k}"
            self.taken_symbols.add(name)
            g = memref.GlobalOp.get(
                StringAttr(name), mt, value, sym_visibility=StringAttr("private"), constant=UnitAttr()
            )
            g.location = self.loc
            self.globals.append(g)
            self.global_for[key] = name
        return self.emit1(memref.GetGlobalOp(name, mt))

    # -- ownership ---------------------------------------------------------

    def try_consume(self, v: SSAValue, last_use: int | None = None) -> bool:
        """Take over the buffer of ``v`` if this op (or the op at index ``last_use`` of
        the block, when given; nothing may read ``v`` in between) is its last use in the
        block that owns it (and no region of this op uses it): v is not freed then."""
        s = self.scope
        if v not in s.owned or s.last_use.get(v) != (s.index if last_use is None else last_use):
            return False
        if v in s.region_uses():
            return False
        del s.owned[v]
        return True

    def transfer(self, v: SSAValue) -> SSAValue:
        """A buffer holding v's value that the receiver owns (v's own, or a copy)."""
        if self.try_consume(v):
            return self.buf(v)
        return self.copy_value(v)

    def copy_value(self, v: SSAValue) -> SSAValue:
        """A fresh buffer holding tensor ``v``'s value: a copy of its buffer, or only
        an allocation when ``v`` is a ``tensor.empty`` (its contents are undefined;
        CSE merges equal empties, e.g. two tapes, which would otherwise be copied)."""
        b = self.buf(v)
        if isinstance(v.owner, Operation) and v.owner.name == "tensor.empty":
            return self.alloc(b.type, self.dims_of_buf(b))
        return self.copy(b)

    def flush_deaths(self) -> None:
        """Free the owned values whose last use is the current op (or unused results)."""
        s = self.scope
        for v in s.dies_at.get(s.index, ()):
            if v in s.owned:
                del s.owned[v]
                self.dealloc(self.buf(v))
        if s.op is not None:
            for r in s.op.results:
                if is_tensor(r.type) and r not in s.last_use and r in s.owned:
                    del s.owned[r]
                    self.dealloc(self.buf(r))

    # -- blocks and ops -------------------------------------------------------

    def lower_block(
        self, old: Block, new: Block, owned_args: bool, inherited: Sequence[SSAValue] = ()
    ) -> None:
        """Lower the ops of ``old`` into ``new`` (whose args are already mapped).

        ``owned_args``: the block owns its tensor arguments; ``inherited``:
        values of enclosing blocks whose ownership moves into this block."""
        if len(old.parent.blocks) > 1 if old.parent else False:
            if _has_tensor_types(old.parent.parent_op()):  # type: ignore[arg-type]
                raise LoweringError("multi-block regions carrying tensors are not supported")
        s = self.analysed.pop(old, None)  # (by the analysis of the enclosing block)
        if s is None:
            s = _Scope(old)
            s.analyse(self.analysed)
        self.scopes.append(s)
        try:
            with self.at(new):
                if owned_args:
                    for a in old.args:
                        if is_tensor(a.type):
                            s.owned[a] = None
                for v in inherited:
                    s.owned[v] = None
                # owned values that are never used here die at once
                self.loc = old.parent_op().location if old.parent_op() else None
                for a in list(s.owned):
                    if a not in s.last_use:
                        del s.owned[a]
                        self.dealloc(self.buf(a))
                last = old.last_op
                # ops without tensors (most ops; nothing can die at them) move into the
                # new block as they are, each run of them at once when the next op
                # is lowered (or the block ends)
                run_first: Operation | None = None
                run_last: Operation | None = None
                is_plain = s.plain
                for i, op in enumerate(s.ops):
                    self.loc = op.location
                    plain = is_plain[i] and op is not last
                    if plain and self.map_scalar(op):
                        if run_first is None:
                            run_first = op
                        run_last = op
                        continue
                    if run_first is not None:
                        move_ops_to_end(run_first, run_last, self.block)  # type: ignore[arg-type]
                        run_first = None
                    if plain:  # (a constant, folded into the function's)
                        continue
                    s.index, s.op, s._region_uses = i, op, None
                    self.lower_op(op)
                    # (a terminator is the last op of its block)
                    if op is not last or not op.has_trait(IsTerminator):
                        self.flush_deaths()
                if run_first is not None:
                    move_ops_to_end(run_first, run_last, self.block)  # type: ignore[arg-type]
                if s.owned:  # every owned buffer must have been freed or handed on
                    raise LoweringError(
                        f"internal error: {len(s.owned)} buffer(s) would leak in a block of "
                        f"'{old.parent_op().name if old.parent_op() else '?'}'"
                    )
        finally:
            self.scopes.pop()

    def lower_op(self, op: Operation) -> None:
        if op is op.parent.last_op and op.has_trait(IsTerminator):  # type: ignore[union-attr]
            if op.regions:  # e.g. loop.reduce: nothing can be freed after it
                s = self.scope
                if any(v in s.owned for v in s.dies_at.get(s.index, ())):
                    raise op_error(op, "a tensor whose last use is inside this terminator cannot be freed")
                self.rebuild_region_op(op)
                return
            self.lower_terminator(op)
            return
        if _is_call(op):
            self.lower_call(op)
            return
        touches_tensors = False
        for values in (op.operands, op.results):
            for v in values:
                if is_tensor(v.type):
                    touches_tensors = True
                    break
        rule = rule_of(op) if touches_tensors else None
        if rule is not None:
            rule(self, op)
            return
        if op.regions:
            self.rebuild_region_op(op)
            return
        if touches_tensors:
            hint = " (run the 'ad' pass first)" if op.name.startswith("autodiff.") else ""
            raise op_error(op, f"has no lowering in 'lower-tensor-to-loop'{hint}")
        self.clone_scalar(op)

    def lower_call(self, op: Operation) -> None:
        """A call (or a print): arguments are borrowed by the callee; tensor results are
        fresh buffers we own."""
        new = type(op).create(
            operands=[self.val(v) for v in op.operands],
            result_types=[convert_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        self.emit(new)
        for o, n in zip(op.results, new.results):
            self.set_result(o, n)

    def new_block_like(self, old: Block) -> Block:
        blk = Block(arg_types=[convert_type(a.type) for a in old.args])
        for a, b in zip(old.args, blk.args):
            self.vmap[a] = b
            if a.name_hint:
                b.name_hint = a.name_hint
        return blk

    def rebuild_region_op(self, op: Operation) -> None:
        """Loop ops and unknown region ops: same op, lowered regions/operands/types."""
        name = op.name
        known = name in _KNOWN_REGION_OPS
        if not known:
            for v in (*op.operands, *op.results):
                if is_tensor(v.type):
                    raise op_error(op, "cannot be lowered by 'lower-tensor-to-loop': it carries tensors")
            for r in op.regions:
                for b in r.blocks:
                    if any(is_tensor(a.type) for a in b.args):
                        raise op_error(op, "cannot be lowered by 'lower-tensor-to-loop': its region takes tensors")
        # operands: loop inits are transferred into the loop
        operands: list[SSAValue] = []
        n_fixed = 3 if name == "loop.for" else 0
        for i, v in enumerate(op.operands):
            if is_tensor(v.type):
                if name in _LOOPS_CARRYING and i >= n_fixed:
                    operands.append(self.transfer(v))
                else:  # pragma: no cover - loop.if has no tensor operands
                    operands.append(self.val(v))
            else:
                operands.append(self.val(v))
        regions = []
        owned_args = name in _LOOPS_CARRYING
        # loop.if: owned values whose last use is the if move into both
        # branches (exactly one runs), which free them or yield them on.
        inherited: list[SSAValue] = []
        if name == "loop.if" and all(r.blocks for r in op.regions):
            sc = self.scope
            for v in sorted(sc.region_uses(), key=lambda v: sc.last_use_order(v)):
                if v in sc.owned and sc.last_use.get(v) == sc.index:
                    del sc.owned[v]
                    inherited.append(v)
        pending: list[tuple[Block, Block]] = []
        for r in op.regions:
            nr = Region()
            for b in r.blocks:
                nb = self.new_block_like(b)
                nr.add_block(nb)
                pending.append((b, nb))
            regions.append(nr)
        for b, nb in pending:
            self.lower_block(b, nb, owned_args, inherited)
        self.loc = op.location
        new = type(op).create(
            operands=operands,
            result_types=[convert_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=regions,
        )
        self.emit(new)
        for old_r, new_r in zip(op.results, new.results):
            if old_r.name_hint:
                new_r.name_hint = old_r.name_hint
            self.set_result(old_r, new_r, owned=True)

    def lower_terminator(self, op: Operation) -> None:
        operands: list[SSAValue] = []
        transferring = op.name in _TRANSFERRING_TERMINATORS
        for v in op.operands:
            if is_tensor(v.type):
                if not transferring:
                    raise op_error(op, "cannot be lowered by 'lower-tensor-to-loop': it takes tensors")
                operands.append(self.transfer(v))
            else:
                operands.append(self.val(v))
        self.flush_deaths()
        new = type(op).create(
            operands=operands,
            result_types=[convert_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            successors=list(op.successors),
        )
        self.emit(new)

    def clone_scalar(self, op: Operation) -> None:
        if self.map_scalar(op):
            op.detach()
            self.emit(op)

    def map_scalar(self, op: Operation) -> bool:
        """Map the results of scalar op ``op``; True if the op itself is to move into
        the new block, False if it was folded into the function's constants.

        The op moves (the old body is dropped after its lowering, and building a copy
        is the dearest step here: fused loop bodies are mostly scalar ops); only its
        operands that were lowered change, here."""
        if _is_constant(op) and isinstance(op.value, IntegerAttr | FloatAttr):
            # one constant per value and type, at the function's entry (kernels bring
            # their own, and so does this lowering)
            self.vmap[op.result] = self.const(op.value.value.data, op.result.type)
            return False
        vmap = self.vmap
        for i, v in enumerate(op._operands):  # pyright: ignore[reportPrivateUsage]
            m = vmap.get(v, v)
            if m is not v:
                op.operands[i] = m
        if self.loc is not None:  # (as emit does)
            op.location = self.loc
        for o in op.results:
            vmap[o] = o
        return True

    # -- functions -----------------------------------------------------------

    def lower_function(self, f: func.FuncOp) -> None:
        ft = f.function_type
        new_type = FunctionType.from_lists(
            [convert_type(t) for t in ft.inputs], [convert_type(t) for t in ft.outputs]
        )
        if not f.body.blocks:
            f.function_type = new_type
            return
        if len(f.body.blocks) > 1:
            raise op_error(f, "functions with several blocks cannot be bufferized by 'lower-tensor-to-loop'")
        old = f.body.blocks.first
        assert old is not None
        self.new_constants()  # constants: at the function's entry
        new = self.new_block_like(old)
        self.lower_block(old, new, owned_args=False)
        first = new.first_op
        for c in list(self.consts.ops):
            c.detach()
            c.location = f.location
            if first is None:
                new.add_op(c)
            else:
                new.insert_op_before(c, first)
        region = Region(new)
        old_region = f.body
        f.detach_region(old_region)
        old_region.erase()  # (its uses of the scalar ops that moved out: clone_scalar)
        f.add_region(region)
        f.function_type = new_type


@dataclass(frozen=True)
class LowerTensorToLoopPass(ModulePass):
    """Bufferize: tensors to memrefs, tensor ops to loop nests (see the module doc)."""

    name = "lower-tensor-to-loop"

    global_threshold: int = option(
        16, "dense constants with more elements than this become a memref.global "
        "(-1: never, always alloc and stores)", minimum=-1)
    # the gemm is irtoolkit.abi.GEMM_SYMBOLS' (numpy's OpenBLAS), which whoever links
    # the code provides: the JIT turns the option off when the library is missing
    blas: bool = option(True, "f32/f64 dots and matmuls call BLAS gemm (false: loop nests)")
    blas_threshold: int = option(
        -1, "static dots with (result size) x (contracted size) below this stay loop nests "
        "(-1: measured per dtype, matrix-vector products always)", minimum=-1)
    conv_unroll: int = option(
        -1, "ungrouped convs of few output features with at most this many window x input x "
        "output feature terms are direct nests with the window unrolled (-1: measured, 0: never)",
        minimum=-1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from irtoolkit.gcpause import paused_gc

        with paused_gc():
            self._apply(op)

    def _apply(self, op: ModuleOp) -> None:
        if not _has_tensor_types(op):
            return
        lowering = TensorLowering(op, self)
        # one walk for the planning below: the functions, and the ops on tensors (the
        # planning adds no function but gemm declarations, without tensors)
        funcs: list[Operation] = []
        tensor_ops: list[Operation] = []
        for o in op.walk():
            if _is_func(o):
                funcs.append(o)
            elif on_tensors(o):
                tensor_ops.append(o)
        plan_accumulations(lowering, op, tensor_ops)  # acc + dot: one gemm with beta = 1
        # the elementwise ops tensor-fuse left (plan_accumulations moves only dots)
        lower_to_kernels(op, keep=lowering.gemm_accumulate, ops=tensor_ops)
        # BLAS dots and matmuls; folds transposed operands (a dot that plan_accumulations
        # moved may now come before another one: the module walked again then)
        plan_dots(lowering, op, None if lowering.gemm_accumulate else tensor_ops)
        for f in funcs:
            if not _has_tensor_types(f):
                continue
            try:
                lowering.lower_function(f)
            except LoweringError as err:
                raise op_error(f, str(err)) from None
        block = op.body.block
        for g in reversed(lowering.globals):
            if block.first_op is None:
                block.add_op(g)
            else:
                block.insert_op_before(g, block.first_op)
