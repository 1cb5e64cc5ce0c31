"""The kernel emitter: loop nests of scalar code, for `tensor-fuse` and `lower-tensor-to-loop`.

:class:`KernelEmitter` is where every loop nest of the tensor lowering is
emitted: an insertion point with a location, constants (one per value and
type, in a block of their own), values hoisted before a nest, and the one
loop-nest builder (:meth:`KernelEmitter.nest`). The bufferizing driver of
`lower-tensor-to-loop` is a ``KernelEmitter`` too; its per-op rules emit
memref loops through it.

A *kernel* computes a :class:`Group` of elementwise ops, and the reduction they
may feed, in one loop nest at the tensor level::

    %e = tensor.empty(...) : tensor<...>
    %r = loop.for %i = %c0 to %d0 step %c1 iter_args(%o = %e) -> (tensor<...>) {
      %x = tensor.extract %leaf[%i] {irt.in_bounds} : tensor<...>
      ... the declared scalar meaning of each member (dialects/elementwise.py) ...
      %o2 = tensor.insert %y into %o[%i] {irt.in_bounds} : tensor<...>
      loop.yield %o2 : tensor<...>
    }

(``lower-tensor-to-loop`` updates such carried tensors in place.) Operands
produced by ``tensor.splat`` or splat constants are read as their scalar,
``tensor.broadcast`` operands as an index remapping of their input (through
chains of broadcasts), ``tensor.extract_slice`` operands of static size as an
offset into their source (a stencil's shifted windows are not copied; the
bounds checks of dynamic offsets go before the nest); any other operand is a
leaf read by ``tensor.extract``. A group whose only use is an
``insert_slice`` that reads the destination only through that same slice
(``x[s] += y``, as adjoints accumulate) updates the destination in place: the
nest carries it instead of a new tensor (:func:`updates_in_place`).
A reduction root (``tensor.reduce_sum`` / ``reduce_max``) is computed by the
reduction kernels of ``reductions.py``: a full reduction carries a scalar
accumulator (and ``tensor.extract %s[]`` of its 0-d result reads the
accumulator); partial reductions loop over the kept dims around the reduced
dims, or go row by row for float sums over leading dims.

Before the nest a kernel emits the run-time shape checks the ops would need
one by one (``checks.py``): for every member, its operands' dims agree (and a
dynamic operand dim matches a static result dim); for every broadcast read as
a remapping, each dynamic operand dim is 1 or the result size; for a
reduction, static result dims match the operand. Each is located at its op.
So the extracts and inserts of the nest are in bounds (``irt.in_bounds``).

`tensor-fuse` hands groups of several ops to :func:`replace_with_kernel`;
`lower-tensor-to-loop` hands it every elementwise op and reduction left, one
by one. A group that cannot be a kernel is an explicit answer: :func:`fusable`
says which ops may be members, :class:`CannotFuse` why a group was refused.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from irtoolkit import xdsl_patches
from irtoolkit.classtest import ClassAnswers, ClassMemo, instance_test
from irtoolkit.xdsl_patches import build_simple_op
from irtoolkit.dialects import tensor
from irtoolkit.dialects.elementwise import ElementKind, Elementwise, element_kind, meaning_of
from irtoolkit.dialects.loop import ForOp, YieldOp
from irtoolkit.passes.lowering.checks import (
    check_broadcastable,
    check_cmp,
    constant_index,
    check_nonnegative,
    check_same_shapes,
    element,
    in_bounds,
    result_sizes,
    shape,
)
from irtoolkit.passes.lowering.reductions import leading_sum, reduce_nest, row_by_row
from irtoolkit.passes.transforms.dead_code import erase_dead

DYN = DYNAMIC_INDEX


def _dims_of(op: Operation) -> list[int]:
    return [int(x) for x in op.properties["dimensions"].get_values()]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------
# the emitter


def constant_op(value: int | float, t: Attribute) -> arith.ConstantOp:
    """``arith.constant`` of a scalar ``value`` of type ``t`` (i1: true for any non-zero)."""
    if isinstance(t, AnyFloat):
        return arith.ConstantOp(FloatAttr(float(value), t))
    if isinstance(t, IntegerType) and t.width.data == 1:
        value = 1 if value else 0
    return arith.ConstantOp(IntegerAttr(int(value), t))  # type: ignore[arg-type]


INDEX = IndexType()


class KernelEmitter:
    """An insertion point for scalar code and loop nests (see the module docstring).

    ``block`` is where :meth:`emit` inserts (``main`` at first); constants go to
    ``consts`` and hoisted values to ``hoist``, which a kernel splices before its
    nest (:meth:`ops`); every op emitted takes the location ``loc``."""

    def __init__(self, loc=None) -> None:
        self.consts = Block()
        self.hoist = Block()
        self.main = Block()
        self.block = self.main
        self.loc = loc
        self._consts: dict[tuple[object, Attribute], SSAValue] = {}
        self._given: dict[tuple[type, object, Attribute], SSAValue] = {}
        #: constants emitted by :meth:`const` -> their value (read by the run-time checks)
        self.const_values: dict[SSAValue, int | float] = {}

    # -- insertion ------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        if self.loc is not None:
            op.location = self.loc
        self.block.add_op(op)
        return op

    def emit1(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    def hoisted(self, op: Operation) -> SSAValue:
        """``op`` emitted into ``hoist`` (before the nest); its result."""
        if self.loc is not None:
            op.location = self.loc
        self.hoist.add_op(op)
        return op.results[0]

    @contextmanager
    def at(self, block: Block) -> Iterator[Block]:
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    @contextmanager
    def located(self, loc) -> Iterator[None]:
        saved = self.loc
        self.loc = loc
        try:
            yield
        finally:
            self.loc = saved

    # -- constants and index arithmetic -----------------------------------------

    def new_constants(self) -> None:
        """Constants from here on go to a fresh ``consts`` block (a new function's)."""
        self.consts, self._consts, self._given = Block(), {}, {}

    def const(self, value: int | float, t: Attribute) -> SSAValue:
        """A scalar constant of type ``t`` (one per value and type, in ``consts``)."""
        # looked up by the value as given first: building the op to find its
        # canonical key was a twelfth of lowering a conv-heavy gradient (bench W7)
        given = (value.__class__, repr(value) if isinstance(value, float) else value, t)
        got = self._given.get(given)
        if got is not None:
            return got
        op = constant_op(value, t)
        data = op.value.value.data  # type: ignore[union-attr]
        key = (repr(data) if isinstance(data, float) else data, t)  # -0.0 and 0.0 apart
        got = self._consts.get(key)
        if got is None:
            if self.loc is not None:
                op.location = self.loc
            self.consts.add_op(op)
            got = self._consts[key] = op.result
            self.const_values[got] = value
        self._given[given] = got
        return got

    def index(self, n: int) -> SSAValue:
        return self.const(n, INDEX)

    def index_add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """a + b on index values (a constant 0 operand folds)."""
        return self._index_arith(arith.AddiOp, a, b, 0)

    def index_mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """a * b on index values (a constant 1 operand folds)."""
        return self._index_arith(arith.MuliOp, a, b, 1)

    def _index_arith(self, cls: type[Operation], a: SSAValue, b: SSAValue, unit: int) -> SSAValue:
        if self.const_values.get(a) == unit:
            return b
        if self.const_values.get(b) == unit:
            return a
        return self.emit1(cls(a, b))

    # -- loops -----------------------------------------------------------------

    def loop(self, lb: SSAValue, ub: SSAValue, inits: Sequence[SSAValue],
             body: Callable[[SSAValue, list[SSAValue]], Sequence[SSAValue]]) -> list[SSAValue]:
        """One ``loop.for`` over [lb, ub) step 1 carrying ``inits``;
        ``body(iv, carried) -> new carried`` fills it. Its results."""
        blk = Block(arg_types=[IndexType(), *(a.type for a in inits)])
        op = ForOp.create(operands=[lb, ub, self.index(1), *inits],
                          result_types=[a.type for a in inits], regions=[Region(blk)])
        self.emit(op)
        with self.at(blk):
            new = body(blk.args[0], list(blk.args[1:]))
            self.emit(YieldOp(*new))
        return list(op.results)

    def nest(self, dims: Sequence[SSAValue], inits: Sequence[SSAValue],
             body: Callable[[list[SSAValue], list[SSAValue]], Sequence[SSAValue]]) -> list[SSAValue]:
        """A nest of ``loop.for`` over [0, d) for each d in ``dims``, outermost first,
        carrying ``inits``; ``body(ivs, carried) -> new carried`` fills the innermost.
        A dim of constant size 1 gets no loop (its iv is 0): the loop inside it is the
        one LLVM vectorizes (a 128x1 kernel runs along the 128)."""

        def rec(k: int, ivs: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
            if k == len(dims):
                return list(body(ivs, carried))
            if self.const_values.get(dims[k]) == 1:
                return rec(k + 1, [*ivs, self.index(0)], carried)
            return self.loop(self.index(0), dims[k], carried,
                             lambda iv, c: rec(k + 1, [*ivs, iv], c))

        return rec(0, [], list(inits))

    def for_each(self, dims: Sequence[SSAValue], body: Callable[[list[SSAValue]], None]) -> None:
        """A nest over ``dims`` carrying nothing; ``body(ivs)`` emits the innermost code."""
        self.nest(dims, [], lambda ivs, _: (body(ivs), [])[1])

    # -- staged code ----------------------------------------------------------

    def ops(self) -> list[Operation]:
        """The constants, hoisted ops and main ops, detached, in that order."""
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


# ---------------------------------------------------------------------------
# groups


# isinstance against xDSL's (abstract) classes, answered once per class: a kernel
# asks them of every member, operand and leaf
_is_tensor = instance_test(TensorType)
#: ``tensor_class[type(t)]``: _is_tensor(t), in the loops that ask it of every op
tensor_class = ClassAnswers(TensorType)
_is_value = instance_test(SSAValue)
_is_op = instance_test(Operation)
_is_broadcast = instance_test(tensor.BroadcastOp)
_is_splat = instance_test(tensor.SplatOp)
_is_constant = instance_test(arith.ConstantOp)
_is_splat_or_constant = instance_test(tensor.SplatOp, arith.ConstantOp)
_is_extract_slice = instance_test(tensor.ExtractSliceOp)


class CannotFuse(Exception):
    """A group that cannot be a kernel, and why (a size that cannot be found ...)."""


#: op class -> does it declare a ``COMBINER`` (is_reduction and fusable ask of every op)
_COMBINES = ClassMemo(lambda cls: hasattr(cls, "COMBINER"))


def is_reduction(op: Operation) -> bool:
    """A reduction a kernel can compute: it declares its ``COMBINER``."""
    return _COMBINES[type(op)] and _is_tensor(op.results[0].type)


def fusable(op: Operation) -> bool:
    """May ``op`` be a member of a kernel? An elementwise op with a scalar meaning for
    its element types, tensors in and out; or a reduction."""
    return member_code(op) is not None


#: what :func:`member_code` answers for a reduction (its nest is ``reductions.py``'s)
REDUCTION = "reduction"
#: (declaration, element kind) -> the scalar code of an ``Elementwise`` that neither
#: gives its own ``kind`` nor ``scalar_for``: the op class of its meaning for that kind
#: (a kernel builds it on the scalars itself), else its builder, else None
_CODE_OF_KIND: dict[tuple[Elementwise, ElementKind | None], object] = {}


def _code_of_kind(meaning: Elementwise, kind: ElementKind | None) -> object:
    key = (meaning, kind)
    try:
        return _CODE_OF_KIND[key]
    except KeyError:
        code = _CODE_OF_KIND[key] = meaning.counterpart(kind) or meaning.scalar_of_kind(kind)
        return code


def member_code(op: Operation) -> object:
    """How a kernel computes ``op`` as a member (None: it may not be one, see
    :func:`fusable`): :data:`REDUCTION`; a scalar op class (the op on the operands'
    scalars); or the scalar code ``Elementwise.scalar_for`` gives. The fusion analysis
    asks it of every op and keeps the answer for the kernel's members."""
    results = op.results
    if _COMBINES[type(op)] and tensor_class[type(results[0].type)]:
        return REDUCTION
    meaning = meaning_of(op)
    if meaning is None or len(results) != 1:
        return None
    for v in op._operands:  # pyright: ignore[reportPrivateUsage]  (not xDSL's operand view)
        if not tensor_class[type(v.type)]:
            return None
    (result,) = results  # (unpacked: SSAValues.__getitem__ is a Python call)
    t = result.type
    if not tensor_class[type(t)]:
        return None
    if not meaning.meanings:  # a scalar op declared alone (on tensors: no meaning)
        return meaning.scalar_for(op)
    cls = type(meaning)
    if cls.scalar_for is not Elementwise.scalar_for or cls.kind is not Elementwise.kind:
        return meaning.scalar_for(op)  # (its own: by predicate, by result type ...)
    return _code_of_kind(meaning, element_kind(t))


@dataclass(eq=False)
class Group:
    """Ops computed by one kernel: ``root`` (its result replaces the group's) and the
    members, in reverse block order, root first."""

    root: Operation
    members: list[Operation] = field(default_factory=list)
    member_set: set[Operation] = field(default_factory=set)
    #: each member's :func:`member_code` (None: not asked yet), as ``members``
    codes: list[object] = field(default_factory=list)

    def add(self, op: Operation, code: object = None) -> None:
        self.members.append(op)
        self.member_set.add(op)
        self.codes.append(code)


def _splat_scalar_source(v: SSAValue) -> SSAValue | float | int | None:
    """A splat-valued tensor's element: an SSA scalar (``tensor.splat``) or a number."""
    for _ in range(64):
        owner = v.owner
        if _is_broadcast(owner):
            v = owner.input
        elif _is_splat(owner):
            return owner.input
        else:
            break
    if _is_constant(v.owner) and _is_tensor(v.type):
        return tensor.splat_constant(v)
    return None


def reads_materialised_broadcast(op: Operation) -> bool:
    """Does ``op`` read a broadcast of a non-splat value (which a kernel reads through)?"""
    return any(_is_broadcast(v.owner) and _splat_scalar_source(v) is None
               for v in op.operands)


def static_slice_sizes(s: Operation) -> list[int] | None:
    sizes = [int(x) for x in s.static_sizes.get_values()]  # type: ignore[attr-defined]
    return None if DYN in sizes else sizes


def slice_tensors(s: Operation) -> tuple[SSAValue, SSAValue]:
    """(big, small) tensors of an ``extract_slice`` or ``insert_slice``."""
    if isinstance(s, tensor.InsertSliceOp):
        return s.operands[1], s.operands[0]
    return s.operands[0], s.results[0]


def same_slice(a: Operation | None, b: Operation) -> bool:
    """Is ``a`` an ``extract_slice`` of the tensor that slice ``b`` (extract or insert) is
    of, at the same place? (Not an ``insert_slice`` at that place: its value is the whole
    tensor it wrote into, which a kernel updating ``b``'s destination in place must not
    read in place of the window.)"""
    if not _is_extract_slice(a) or slice_tensors(a)[0] is not slice_tensors(b)[0]:
        return False
    return (all(getattr(a, n) == getattr(b, n) for n in ("static_offsets", "static_sizes", "static_strides"))
            and all(list(getattr(a, n)) == list(getattr(b, n)) for n in ("offsets", "sizes", "strides")))


def updates_in_place(group: Group) -> Operation | None:
    """The ``insert_slice`` (static sizes) that is the only use of ``group``'s elementwise
    root, when the kernel may compute into its destination: the nest reads the
    destination only where it writes, through the same slice (``x[s] += y`` as derivative
    code accumulates into a window of an adjoint), so each element is read before it is
    overwritten. Else None."""
    root = group.root
    res = root.results[0]
    uses = list(res.uses)
    if is_reduction(root) or len(uses) != 1:
        return None
    into = uses[0].operation
    if (not isinstance(into, tensor.InsertSliceOp) or into.operands[0] is not res or into.operands[1] is res
            or static_slice_sizes(into) is None or DYN in shape(res)):
        return None
    dest = into.operands[1]
    for m in group.members:
        for v in m.operands:
            for _ in range(64):  # the values a kernel reads through (Kernel._read)
                owner = v.owner
                if owner in group.member_set or same_slice(owner, into):
                    break
                if v is dest:
                    return None
                if _is_broadcast(owner):
                    v = owner.input
                elif _is_extract_slice(owner) and static_slice_sizes(owner) is not None:
                    v = owner.source
                else:
                    break
    return into


@dataclass(slots=True)
class _MemberPlan:
    """An elementwise member of a kernel, as its nest reads it."""

    op: Operation
    operands: tuple[SSAValue, ...]
    result: SSAValue
    #: its :func:`member_code`: a scalar op class, or scalar code ``fn(B, *scalars)``
    code: object
    #: ``code`` if it is an op class (the nest builds it on the scalars), else None
    op_class: type[Operation] | None
    #: the element type of ``result`` (the type of its scalars)
    scalar_type: Attribute
    #: its tensor operands that are not members' results, in operand order
    outside: list[SSAValue]
    #: those of them a ``tensor.broadcast`` makes (read as an index remapping)
    broadcasts: list[SSAValue]
    #: its result and tensor operands all have static shapes (no run-time shape check)
    static: bool


#: scalar op class -> does its constructor on a member's scalars make the op that
#: ``build_simple_op`` makes of them with the member's element type as result type
#: (default properties and attributes)? Seen on the first op a kernel builds of it;
#: then the kernels build it so (four microseconds less a member; the elementwise ops'
#: scalar counterparts are such classes)
_SIMPLE_CLASSES: dict[type[Operation], bool] = {}


def _builds_simply(op: Operation, scalar_type: Attribute) -> bool:
    """Is ``op`` (just made by its class's constructor) the op ``build_simple_op`` makes
    of its operands and ``scalar_type``?"""
    if op.regions or op.successors:
        return False
    xdsl_patches.apply()  # (build_simple_op builds as the patched constructors; once)
    probe = build_simple_op(type(op), list(op.operands), [scalar_type])
    same = (len(op.results) == 1 and op.results[0].type == scalar_type
            and probe.properties == op.properties and probe.attributes == op.attributes)
    probe.drop_all_references()
    return same


class Kernel:
    """Builds the nest of one group (see the module docstring)."""

    def __init__(self, group: Group, into: Operation | None = None):
        self.g = group
        #: an ``insert_slice`` of the root's value: the nest then updates its destination
        #: (carried as ``out``) instead of filling a tensor of its own
        self.into = into
        self.out: SSAValue | None = None
        self.E = KernelEmitter(group.root.location)
        self.memo: dict[tuple, SSAValue] = {}
        self.dim_memo: dict[tuple[SSAValue, int], SSAValue | None] = {}
        self.is1: dict[tuple[SSAValue, int], SSAValue] = {}
        self.leaf_ops: list[Operation] = []
        self.checked_slices: set[Operation] = set()
        self._plan: list[_MemberPlan] | None = None

    # -- sizes -------------------------------------------------------------

    def _member_plans(self) -> list[_MemberPlan]:
        """What the checks, the domain and every term of a reduction ask of the
        elementwise members, in block order: found in one walk over them, once (the
        group does not change while its nest is built; a kernel of 10^4 members asked
        it of every member and operand three times)."""
        if self._plan is None:
            member_set = self.g.member_set
            static_types: dict[int, bool] = {}  # id of a type (alive in the IR) -> static?
            plans = []
            for m, code in zip(reversed(self.g.members), reversed(self.g.codes)):  # block order
                if code is None:
                    code = member_code(m)
                if code is REDUCTION:  # (a root: no member reads it)
                    continue
                operands = tuple(m._operands)  # pyright: ignore[reportPrivateUsage]
                (result,) = m.results  # (fusable: one result; unpacked, not SSAValues.__getitem__)
                outside: list[SSAValue] = []
                broadcasts: list[SSAValue] = []
                # static: the result's and every tensor operand's shape (a member's
                # result read here is a tensor, its type the one its plan looked at)
                t = result.type
                static = static_types.get(id(t))
                if static is None:
                    static = static_types[id(t)] = DYN not in t.get_shape()  # type: ignore[attr-defined]
                for v in operands:
                    t = v.type
                    if not tensor_class[type(t)]:
                        continue
                    if static:
                        found = static_types.get(id(t))
                        if found is None:
                            found = static_types[id(t)] = DYN not in t.get_shape()  # type: ignore[attr-defined]
                        static = found
                    owner = v.owner
                    if owner in member_set:
                        continue
                    outside.append(v)
                    if _is_broadcast(owner):
                        broadcasts.append(v)
                plans.append(_MemberPlan(m, operands, result, code, code if isinstance(code, type) else None,
                                         result.type.element_type, outside, broadcasts, static))  # type: ignore[attr-defined]
            self._plan = plans
        return self._plan

    def _domain_leaves(self, dom: SSAValue) -> list[SSAValue]:
        """Tensors read at the domain indices: operands of members that are not members."""
        plans = self._member_plans()
        if not plans:
            return [dom]
        return [o for p in reversed(plans) for o in p.outside]

    def dim_of(self, v: SSAValue, d: int, depth: int = 0) -> SSAValue | None:
        """Size ``d`` of leaf ``v``: a constant, a size operand, or ``tensor.dim`` (None: unknown)."""
        key = (v, d)
        if key in self.dim_memo:
            return self.dim_memo[key]
        E = self.E
        s = shape(v)[d]
        owner = v.owner
        r: SSAValue | None
        if s != DYN:
            r = E.index(s)
        elif _is_broadcast(owner) and depth < 64:
            r = None
            ishape = shape(owner.input)
            for i, dd in enumerate(_dims_of(owner)):
                if dd == d and ishape[i] != 1:
                    r = self.dim_of(owner.input, i, depth + 1)
        elif isinstance(owner, tensor.SplatOp | tensor.EmptyOp):
            sizes = list(owner.dynamicSizes if _is_splat(owner) else owner.dynamic_sizes)
            k = sum(1 for x in shape(v)[:d] if x == DYN)
            r = sizes[k] if k < len(sizes) else None
            if r is not None:  # the check the op would make itself, which the kernel reads through
                with E.at(E.hoist):
                    check_nonnegative(E, owner, r, f"size of dim {d} is negative (size vs 0)")
        else:
            r = E.hoisted(tensor.DimOp(v, E.index(d)))
        self.dim_memo[key] = r
        return r

    def domain_dims(self, dom: SSAValue) -> list[SSAValue]:
        leaves: list[SSAValue] | None = None  # (found only for a dynamic dim)
        out = []
        for d, s in enumerate(shape(dom)):
            if s != DYN:
                out.append(self.E.index(s))
                continue
            if leaves is None:
                leaves = self._domain_leaves(dom)
            # prefer a static size, then any size we can find
            static = [leaf for leaf in leaves if shape(leaf)[d] != DYN]
            r = self.dim_of(static[0], d) if static else None
            for leaf in leaves:
                if r is not None:
                    break
                r = self.dim_of(leaf, d)
            if r is None:
                raise CannotFuse(f"size #{d} of the iteration domain unknown")
            out.append(r)
        return out

    def sizes(self, v: SSAValue, depth: int = 0) -> list[SSAValue]:
        """Sizes of ``v`` as the ops of the group see them one by one: a member's come
        from its first non-splat operand (or its static result type), a leaf's from
        ``dim_of``."""
        owner = v.owner
        shp = shape(v)
        if _is_op(owner) and owner in self.g.member_set and not is_reduction(owner):
            real = self._real_operands(owner)
            first = self.sizes(real[0], depth + 1) if real and DYN in shp and depth < 256 else []
            out = []
            for d, s in enumerate(shp):
                if s != DYN:
                    out.append(self.E.index(s))
                elif d < len(first):
                    out.append(first[d])
                else:
                    raise CannotFuse(f"size #{d} of '{owner.name}' unknown")
            return out
        out = []
        for d in range(len(shp)):
            r = self.dim_of(v, d)
            if r is None:
                raise CannotFuse(f"size #{d} of an operand unknown")
            out.append(r)
        return out

    @staticmethod
    def _real_operands(m: Operation) -> list[SSAValue]:
        """Tensor operands whose shapes are compared (statically shaped splats are read
        as scalars and not compared)."""
        return [
            o for o in m.operands
            if _is_tensor(o.type)
            and not (DYN not in shape(o) and _is_splat_or_constant(o.owner)
                     and _splat_scalar_source(o) is not None)
        ]

    # -- run-time shape checks --------------------------------------------

    def emit_checks(self) -> None:
        """Before the nest, the checks of the members (operand dims agree, dynamic
        operand dims match a static result type), of the broadcasts read as index
        remappings (each operand dim is 1 or the result size) and of a reduction root
        (static result dims match the operand). All-static shapes emit nothing."""
        E = self.E
        seen: set[Operation] = set()
        with E.at(E.hoist):
            for p in self._member_plans():
                for o in p.broadcasts:
                    self._broadcast_checks(o, seen)
                if not p.static:  # (all static: check_same_shapes emits nothing)
                    check_same_shapes(E, p.op, self._real_operands(p.op), self.sizes)
            root = self.g.root
            if is_reduction(root):
                src = root.operands[0]
                self._broadcast_checks(src, seen)
                sd = self.sizes(src)
                rdims = _dims_of(root)
                result_sizes(E, root.results[0], [sd[i] for i in range(len(sd)) if i not in rdims])

    def _broadcast_checks(self, v: SSAValue, seen: set[Operation], depth: int = 0) -> None:
        b = v.owner
        if not _is_broadcast(b) or b in self.g.member_set or b in seen or depth > 64:
            return
        seen.add(b)
        self._broadcast_checks(b.input, seen, depth + 1)
        ishape, oshape = shape(b.input), shape(b.results[0])
        for i, d in enumerate(_dims_of(b)):
            # dynamic -> dynamic: the result size is the operand size (nothing to check);
            # static -> anything: verified
            if ishape[i] != DYN or oshape[d] == DYN:
                continue
            got = self.dim_of(b.input, i)
            if got is None:
                raise CannotFuse(f"size #{i} of a broadcast operand unknown")
            check_broadcastable(self.E, b, got, self.E.index(oshape[d]), i, d)

    # -- scalar reads ------------------------------------------------------

    def compute_members(self, idx: Sequence[SSAValue]) -> None:
        """Scalars of every elementwise member at ``idx``, in block order (no recursion)."""
        memo: dict[tuple, SSAValue] = {}
        self.memo = memo
        E = self.E
        outer = E.loc
        block = E.block
        try:
            for p in self._member_plans():
                xs = []
                for o in p.operands:  # (self.read, its memo looked up here: a call less per operand)
                    x = memo.get((o, *idx))
                    xs.append(self.read(o, idx) if x is None else x)
                op_class = p.op_class
                if op_class is not None:  # (E.emit1, three calls less per member)
                    if _SIMPLE_CLASSES.get(op_class):
                        op = build_simple_op(op_class, xs, [p.scalar_type])
                    else:
                        op = op_class(*xs)
                        if op_class not in _SIMPLE_CLASSES:
                            _SIMPLE_CLASSES[op_class] = _builds_simply(op, p.scalar_type)
                    op.location = p.op.location
                    block.add_op(op)
                    (memo[(p.result, *idx)],) = op.results  # (a scalar op: one result)
                    continue
                E.loc = p.op.location  # (E.located, without a context manager per member)
                memo[(p.result, *idx)] = p.code(E, *xs)  # type: ignore[operator]
                E.loc = outer
        finally:
            E.loc = outer

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
        assert owner not in self.g.member_set, "a kernel member read before it was computed"
        src = _splat_scalar_source(v)
        if _is_value(src):
            self._note_leaf(owner)
            return src
        if src is not None:
            self._note_leaf(owner)
            return E.const(src, element(v))
        if _is_broadcast(owner) and depth < 64:
            self._note_leaf(owner)
            return self.read(owner.input, self.remap(owner, idx), depth + 1)
        if self.into is not None and same_slice(owner, self.into):
            self._note_leaf(owner)
            return E.emit1(in_bounds(tensor.ExtractOp(self.out, self.slice_index(self.into, idx))))
        if _is_extract_slice(owner) and depth < 64:
            at = self.slice_index(owner, idx)
            if at is not None:
                self._note_leaf(owner)
                return self.read(slice_tensors(owner)[0], at, depth + 1)
        return E.emit1(in_bounds(tensor.ExtractOp(v, list(idx))))

    def _note_leaf(self, op: Operation | None) -> None:
        if _is_op(op):
            self.leaf_ops.append(op)

    def slice_index(self, s: Operation, idx: Sequence[SSAValue]) -> list[SSAValue] | None:
        """The indices in the big tensor of slice ``s`` (an ``extract_slice`` or
        ``insert_slice``) at slice indices ``idx`` (None: its sizes are dynamic, and an
        extracted slice is copied). A slice read through is not materialised: a
        stencil's shifted windows are reads of the one grid. Its bounds checks (for
        dynamic offsets, strides or big-tensor dims) go before the nest."""
        from irtoolkit.passes.lowering.tensor_to_loop_rules import _big_index, _kept_dims

        E = self.E
        sizes = static_slice_sizes(s)
        if sizes is None:
            return None
        big, small = slice_tensors(s)
        offsets, _, steps = tensor.slice_params(s)
        offs = [E.index(x) if isinstance(x, int) else x for x in offsets]
        strides = [E.index(x) if isinstance(x, int) else x for x in steps]
        kept = _kept_dims(sizes, shape(small))
        checked = self.checked_slices
        if s not in checked:
            checked.add(s)
            with E.at(E.hoist):
                for d, (o, n, st) in enumerate(zip(offs, sizes, strides)):
                    if n == 0:
                        continue
                    check_nonnegative(E, s, o, f"slice offset of dim {d} is negative (offset vs 0)")
                    co, cs = constant_index(E, o), constant_index(E, st)
                    last = (E.index(co + (n - 1) * cs) if co is not None and cs is not None
                            else E.index_add(o, E.index_mul(E.index(n - 1), st)))
                    size = self.dim_of(big, d)
                    if size is None:
                        size = E.hoisted(tensor.DimOp(big, E.index(d)))
                    check_cmp(E, s, "ult", last, size, f"slice out of bounds in dim {d} (slice end vs dim size)")
        return _big_index(offs, strides, kept, idx, E)

    def remap(self, b: Operation, idx: Sequence[SSAValue]) -> list[SSAValue]:
        """The operand indices of broadcast ``b`` read at result indices ``idx``."""
        E = self.E
        x = b.operands[0]
        ishape = shape(x)
        out = []
        for i, d in enumerate(_dims_of(b)):
            if ishape[i] == 1:
                out.append(E.index(0))
            elif ishape[i] == DYN:
                # a dynamic operand dim of size 1 expands
                is1 = self.is1.get((x, i))
                if is1 is None:
                    n = self.dim_of(x, i)
                    if n is None:
                        n = E.hoisted(tensor.DimOp(x, E.index(i)))
                    is1 = E.hoisted(arith.CmpiOp(n, E.index(1), "eq"))
                    self.is1[(x, i)] = is1
                out.append(E.emit1(arith.SelectOp(is1, E.index(0), idx[d])))
            else:
                out.append(idx[d])
        return out

    # -- the nest ----------------------------------------------------------

    def empty(self, t: TensorType, dims: Sequence[SSAValue]) -> SSAValue:
        dyn = [d for d, s in zip(dims, t.get_shape()) if s == DYN]
        return self.E.emit1(tensor.EmptyOp(dyn, t))

    def build(self) -> tuple[SSAValue, SSAValue | None]:
        """Emit the nest; (new root result, scalar of a 0-d reduction or None)."""
        root = self.g.root
        res = root.results[0]
        rt = res.type
        assert isinstance(rt, TensorType)
        E = self.E
        self.emit_checks()
        if not is_reduction(root):
            dims = self.domain_dims(res)
            into = self.into

            def body(ivs: list[SSAValue], out: list[SSAValue]) -> list[SSAValue]:
                self.out = out[0]
                self.compute_members(ivs)
                at = list(ivs) if into is None else self.slice_index(into, ivs)
                return [E.emit1(in_bounds(tensor.InsertOp(self.read(res, ivs), out[0], at)))]

            init = self.empty(rt, dims) if into is None else into.operands[1]
            (r,) = E.nest(dims, [init], body)
            return r, None
        src = root.operands[0]
        rdims = _dims_of(root)
        sdims = self.domain_dims(src)
        kept = [i for i in range(len(sdims)) if i not in rdims]
        et = element(res)
        reduction = type(root)

        def term(idx: list[SSAValue]) -> SSAValue:
            self.compute_members(idx)
            return self.read(src, idx)

        if row_by_row(src, rdims, reduction, et):
            return leading_sum(E, term, sdims, len(rdims), et, rt), None

        def reduce_at(ivs: list[SSAValue]) -> SSAValue:
            def reduced_term(rivs: list[SSAValue]) -> SSAValue:
                idx: list[SSAValue] = [None] * len(sdims)  # type: ignore[list-item]
                for i, v in zip(kept, ivs):
                    idx[i] = v
                for i, v in zip(rdims, rivs):
                    idx[i] = v
                return term(idx)

            return reduce_nest(E, reduction, [sdims[i] for i in rdims], et, reduced_term)

        if not kept:
            acc = reduce_at([])
            return E.emit1(tensor.InsertOp(acc, self.empty(rt, []), [])), acc
        kdims = [sdims[i] for i in kept]
        (r,) = E.nest(kdims, [self.empty(rt, kdims)],
                      lambda ivs, out: [E.emit1(in_bounds(tensor.InsertOp(reduce_at(ivs), out[0], list(ivs))))])
        return r, None


def replace_with_kernel(group: Group, into: Operation | None = None) -> None:
    """Replace the ops of ``group`` by their kernel, inserted before the root (raises
    :class:`CannotFuse`, leaving the IR as it was, if the group cannot be a kernel).
    ``into``: the root's only user, an ``insert_slice`` (see :func:`updates_in_place`),
    which the kernel replaces, writing into its destination."""
    kernel = Kernel(group, into)
    try:
        new_root, scalar = kernel.build()
    except CannotFuse:
        kernel.E.discard()
        raise
    root = group.root
    block = root.parent
    assert block is not None
    ops = kernel.E.ops()
    block.insert_ops_before(ops, root if into is None else into)
    old = root.results[0]
    if into is not None:
        into.results[0].replace_all_uses_with(new_root)
        into.detach()
        into.erase()
    if scalar is not None:
        for use in list(old.uses):
            user = use.operation
            if isinstance(user, tensor.ExtractOp) and not user.indices and user.result.type == scalar.type:
                user.result.replace_all_uses_with(scalar)
                user.detach()
                user.erase()
    if new_root.name_hint is None and old.name_hint:
        new_root.name_hint = old.name_hint
    old.replace_all_uses_with(new_root)
    for op in group.members:  # reverse block order: users before definitions
        block.detach_op(op)  # (op.detach(): members are ops of the root's block)
        # op.erase() but for marking its results erased, which replaces their uses (they
        # have none left: its users went before it) with new values, ~12 calls a member
        op.drop_all_references()
        for r in op.results:
            if r.first_use is not None:
                raise ValueError(f"a kernel member's result is still used: {op.name}")
    erase_dead([*kernel.leaf_ops, *(o for o in ops if o.parent is not None)])


def lower_to_kernels(top: Operation, keep: Container[Operation] = (),
                     ops: Iterable[Operation] | None = None) -> None:
    """Every elementwise op and reduction nested in ``top`` (on tensors), but those in
    ``keep``, becomes a kernel of its own: the unfused lowering (`lower-tensor-to-loop`
    runs this first). ``ops``: the ops of ``top`` on tensors in walk order, if known
    (else it is walked)."""
    from irtoolkit.diagnostics import op_error

    for op in [o for o in (top.walk() if ops is None else ops)
               if on_tensors(o) and (is_reduction(o) or meaning_of(o) is not None) and o not in keep]:
        if not fusable(op):
            raise op_error(op, f"has no scalar meaning for {op.results[0].type} (lowering it to loops)")
        group = Group(op)
        group.add(op)
        try:
            replace_with_kernel(group)
        except CannotFuse as err:
            raise op_error(op, f"cannot be lowered to a loop nest: {err}") from None


def on_tensors(op: Operation) -> bool:
    """``op`` has results, and a tensor operand or result."""
    # (asked of every op: its operand tuple read directly, without xDSL's operand view)
    if not op.results:
        return False
    for values in (op._operands, op.results):  # pyright: ignore[reportPrivateUsage]
        for v in values:
            if tensor_class[type(v.type)]:
                return True
    return False


def block_op_list(block: Block) -> list[Operation]:
    """The ops of ``block``, in order, as a list: one walk along its links
    (``list(block.ops)`` walks it twice, its length first, with two calls per op each
    time; the lowerings ask it of every block)."""
    out = []
    op = block.first_op
    while op is not None:
        out.append(op)
        op = op.next_op
    return out
