"""Shared machinery of the ``convert-*-to-llvm`` passes.

One type converter for every part (``index`` -> ``i64``, memrefs -> descriptor
structs, ``func`` types -> ``!llvm.func``) and a small driver that rewrites
ops one at a time. Each pass is a *partial* conversion: an operand whose
producer is not converted yet is bridged with
``builtin.unrealized_conversion_cast`` to its LLVM type, and a converted
result whose type changes is cast back to the original type for users that are
not converted yet. ``reconcile-unrealized-casts`` removes the casts that cancel
once every part ran, so each part can run alone or in any order.
``convert-to-llvm`` runs every part in one walk (:class:`Conversion`): a
converted result maps to its LLVM value instead of being cast back.

Memref descriptor (as MLIR's)::

    !llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>
                 allocated aligned offset sizes      strides (in elements)

and ``!llvm.struct<(ptr, ptr, i64)>`` for rank 0.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from functools import lru_cache

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    SignednessAttr,
    StringAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from irtoolkit.diagnostics import op_error

PTR = llvm.LLVMPointerType()
I64 = i64

FLOAT_TYPES = (Float16Type, Float32Type, Float64Type)


# --------------------------------------------------------------------------- types


@lru_cache(maxsize=None)
def descriptor_type(rank: int) -> llvm.LLVMStructType:
    """The LLVM struct type of a rank-``rank`` memref descriptor."""
    fields: list[Attribute] = [PTR, PTR, I64]
    if rank:
        arr = llvm.LLVMArrayType(rank, I64)
        fields += [arr, arr]
    return llvm.LLVMStructType.from_type_list(fields)


def is_llvm_type(t: Attribute) -> bool:
    """Types the llvm dialect accepts as they are."""
    if isinstance(t, IntegerType):
        return t.signedness.data == Signedness.SIGNLESS
    if isinstance(t, FLOAT_TYPES):
        return True
    if isinstance(t, (llvm.LLVMPointerType, llvm.LLVMStructType, llvm.LLVMArrayType,
                      llvm.LLVMVoidType, llvm.LLVMFunctionType)):
        return True
    if isinstance(t, VectorType):
        return is_llvm_type(t.element_type)
    return False


#: id -> type, of the types ``convert_type`` gives back as they are (asked for the
#: operands and results of most ops: a lookup by id, without hashing the type)
_KEPT_TYPES: dict[int, Attribute] = {}


def keeps_type(t: Attribute) -> bool:
    """``t`` is its own LLVM type (``convert_type(t) == t``)."""
    if _KEPT_TYPES.get(id(t)) is t:
        return True
    if convert_type(t) != t:
        return False
    if len(_KEPT_TYPES) > 4096:  # (types made per op, as many programs' constants, do not pile up)
        _KEPT_TYPES.clear()
    _KEPT_TYPES[id(t)] = t  # (the type is kept: its id stays its own)
    return True


def convert_type(t: Attribute) -> Attribute | None:
    """The LLVM-dialect type of ``t`` (``t`` itself if already legal), None if none."""
    try:
        return _convert_type_cached(t)
    except TypeError:  # an unhashable attribute
        return _convert_type(t)


@lru_cache(maxsize=8192)
def _convert_type_cached(t: Attribute) -> Attribute | None:
    return _convert_type(t)


def _convert_type(t: Attribute) -> Attribute | None:
    if isinstance(t, IndexType):
        return I64
    if isinstance(t, IntegerType):
        if t.signedness.data != Signedness.SIGNLESS:
            return IntegerType(t.width.data)
        return t
    if isinstance(t, MemRefType):
        elem = convert_type(t.element_type)
        if elem is None or not (isinstance(elem, IntegerType) or isinstance(elem, FLOAT_TYPES)):
            return None
        return descriptor_type(t.get_num_dims())
    if isinstance(t, FunctionType):
        ins = [convert_type(x) for x in t.inputs.data]
        outs = [convert_type(x) for x in t.outputs.data]
        if any(x is None for x in (*ins, *outs)):
            return None
        return llvm.LLVMFunctionType(ins, pack_result_type(outs))  # type: ignore[arg-type]
    if isinstance(t, VectorType):
        elem = convert_type(t.element_type)
        if elem is None:
            return None
        return t if elem == t.element_type else VectorType(elem, t.get_shape())
    if is_llvm_type(t):
        return t
    return None


def pack_result_type(types: Sequence[Attribute]) -> Attribute:
    """Several results are returned as one struct, none as void."""
    if not types:
        return llvm.LLVMVoidType()
    if len(types) == 1:
        return types[0]
    return llvm.LLVMStructType.from_type_list(list(types))


def element_size(t: Attribute) -> int:
    """Size in bytes of a memref element (as LLVM lays it out)."""
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        nbytes = (t.width.data + 7) // 8
        return 1 << (nbytes - 1).bit_length() if nbytes > 1 else 1
    if isinstance(t, Float16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, Float64Type):
        return 8
    raise ValueError(f"unsupported memref element type {t}")


def constant_int(v: SSAValue) -> int | None:
    """The value of an integer scalar constant (``arith.constant`` or
    ``llvm.mlir.constant``, through conversion casts), else None."""
    for _ in range(8):
        owner = v.owner
        if isinstance(owner, UnrealizedConversionCastOp) and len(owner.operands) == 1:
            v = owner.operands[0]
            continue
        if isinstance(owner, Operation) and owner.name in ("arith.constant", "llvm.mlir.constant"):
            value = owner.properties.get("value")
            if isinstance(value, IntegerAttr):
                return value.value.data
        return None
    return None


def intrinsic_suffix(t: Attribute) -> str:
    """LLVM's mangling of a scalar type in intrinsic names (``f64``, ``i32``)."""
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{intrinsic_suffix(t.element_type)}"
    raise ValueError(f"no intrinsic suffix for {t}")


# --------------------------------------------------------------------------- speed


@lru_cache(maxsize=None)
def position_attr(position: tuple[int, ...]) -> DenseArrayBase:
    """The (immutable, shared) ``array<i64: ...>`` of an extract/insertvalue position."""
    return DenseArrayBase.from_list(i64, position)


def extract_value_op(container: SSAValue, position: Sequence[int], t: Attribute) -> Operation:
    """``llvm.extractvalue`` built without xDSL's generic (slow) constructor."""
    return llvm.ExtractValueOp.create(
        operands=[container], result_types=[t], properties={"position": position_attr(tuple(position))}
    )


def insert_value_op(container: SSAValue, value: SSAValue, position: Sequence[int]) -> Operation:
    """``llvm.insertvalue`` built without xDSL's generic (slow) constructor."""
    return llvm.InsertValueOp.create(
        operands=[container, value], result_types=[container.type],
        properties={"position": position_attr(tuple(position))},
    )


def cast_op(v: SSAValue, t: Attribute) -> UnrealizedConversionCastOp:
    """``builtin.unrealized_conversion_cast`` of one value, built directly."""
    return UnrealizedConversionCastOp.create(operands=[v], result_types=[t])


# module -> (its symbols by name, (prefix, text) -> global name): one scan of a
# module's symbols instead of one per string (a module may hold thousands of checks).
# The symbols weakly: an op refers to its module, which a strong value would keep alive.
_STRING_GLOBALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def add_string_global(op: Operation, prefix: str, text: str) -> str:
    """A constant NUL-terminated string global at the top of ``op``'s module,
    named ``prefix`` + the first free number; returns its name. Equal strings
    with the same prefix share one global."""
    module = op
    while not isinstance(module, ModuleOp):
        module = module.parent_op()  # type: ignore[assignment]
    entry = _STRING_GLOBALS.get(module)
    if entry is None:
        symbols = {o.properties["sym_name"].data: weakref.ref(o)  # type: ignore[union-attr]
                   for o in module.ops if "sym_name" in o.properties}
        entry = _STRING_GLOBALS[module] = (symbols, {}, {})
    symbols, by_text, next_free = entry
    name = by_text.get((prefix, text))
    if name is not None and (found := symbols[name]()) is not None and found.parent is module.body.block:
        return name
    k = next_free.get(prefix, 0)
    while f"{prefix}{k}" in symbols:
        k += 1
    next_free[prefix] = k + 1
    name = f"{prefix}{k}"
    data = text + "\0"
    glob = llvm.GlobalOp(llvm.LLVMArrayType(len(data.encode()), i8), name, "internal",
                         constant=True, value=StringAttr(data))
    glob.location = op.location
    block = module.body.block
    if block.first_op is not None:
        block.insert_op_before(glob, block.first_op)
    else:
        block.add_op(glob)
    symbols[name] = weakref.ref(glob)
    by_text[(prefix, text)] = name
    return name


def reconcile_casts(module: ModuleOp, casts: list[UnrealizedConversionCastOp] | None = None) -> None:
    """xDSL's ``reconcile_unrealized_casts`` (same chain rule, applied to every
    cast until nothing changes) without the pattern-rewriter worklist; on
    ``casts`` when the caller has them (every cast of the module)."""
    from xdsl.transforms.reconcile_unrealized_casts import _try_remove_cast_chain

    rewriter = _CastRewriter()
    if casts is None:
        casts = [o for o in module.walk() if isinstance(o, UnrealizedConversionCastOp)]
    while casts:
        rewriter.changed = False
        for cast in casts:
            if cast.parent is not None:
                _try_remove_cast_chain(cast, rewriter, False)  # type: ignore[arg-type]
        if not rewriter.changed:
            break
        casts = [c for c in casts if c.parent is not None]


class _CastRewriter:
    """The two PatternRewriter methods ``_try_remove_cast_chain`` uses."""

    changed = False

    def replace(self, op: Operation, new_ops: Sequence[Operation], new_results: Sequence[SSAValue]) -> None:
        assert not new_ops
        for old, new in zip(op.results, new_results, strict=True):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()
        self.changed = True

    def erase(self, op: Operation) -> None:
        op.detach()
        op.erase()
        self.changed = True


# --------------------------------------------------------------------------- rewriting


class Conversion:
    """The state of one walk that converts several dialects at once (``convert-to-llvm``),
    as MLIR's dialect conversion: a converted op stays in place, its results
    mapped to their LLVM values, so that the ops using them still see their
    original types (a memref, an index) and need no cast back; every mapped op
    is erased at the end, and a user that was not converted (or came earlier
    in the walk) gets the LLVM value, cast back to the original type if it differs."""

    __slots__ = ("values", "replaced", "local", "fields", "maybe_dead")

    def __init__(self) -> None:
        self.values: dict[SSAValue, SSAValue] = {}
        self.replaced: list[Operation] = []
        # values made once per block and reused by the ops after (constants, address
        # arithmetic, descriptor fields), keyed by (block, what): an earlier op of
        # the same block dominates the later ones
        self.local: dict[tuple, SSAValue] = {}
        # the fields of the descriptors built in this walk: read without extractvalue
        self.fields: dict[SSAValue, dict[tuple[int, ...], SSAValue]] = {}
        # pure ops that may have lost their last user: erased at the end if so
        self.maybe_dead: list[Operation] = []

    def finish(self) -> None:
        # users before the values they use: a result still used then is used by an
        # op that was not converted, or that the walk reached first (it goes too)
        for op in reversed(self.replaced):
            for old in op.results:
                if old.first_use is None:
                    continue
                new = self.values[old]
                if new.type != old.type:
                    cast = cast_op(new, old.type)
                    cast.location = op.location
                    op.parent_block().insert_op_before(cast, op)  # type: ignore[union-attr]
                    new = cast.results[0]
                old.replace_all_uses_with(new)
            op.detach()
            # (its results have no uses left: nothing for erase to replace them by)
            op.drop_all_references()
        erase_unused(self.maybe_dead)
        self.values.clear()
        self.replaced.clear()
        self.local.clear()
        self.fields.clear()
        self.maybe_dead.clear()


#: ops without side effects, erased when their results are unused
_PURE = (llvm.AddOp, llvm.SubOp, llvm.MulOp, llvm.ConstantOp, llvm.InsertValueOp, llvm.UndefOp,
         llvm.ExtractValueOp, llvm.GEPOp)


def erase_unused(ops: Sequence[Operation]) -> None:
    """Erase the pure ops of ``ops`` whose results have no use, then the pure
    producers of their operands that this leaves unused, and so on."""
    work = list(ops)
    while work:
        op = work.pop()
        if op.parent is None or not isinstance(op, _PURE) or any(r.first_use is not None for r in op.results):
            continue
        producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        op.detach()
        op.erase()
        work.extend(producers)


class Lowering:
    """Rewrites one op: new ops go right before it, results are cast back if needed
    (or, inside a :class:`Conversion`, mapped to their LLVM values)."""

    __slots__ = ("op", "block", "_consts", "conversion")

    def __init__(self, op: Operation, conversion: Conversion | None = None):
        self.op = op
        self.conversion = conversion
        self._consts: dict | None = None  # (made when first needed: one Lowering per op)
        block = op.parent
        assert block is not None
        self.block = block

    def emit(self, new: Operation) -> Operation:
        new.location = self.op.location
        self.block.insert_op_before(new, self.op)
        return new

    def value(self, v: SSAValue) -> SSAValue:
        """``v`` with its LLVM type (through a cast when its producer is not converted)."""
        if self.conversion is not None and (new := self.conversion.values.get(v)) is not None:
            return new
        return to_llvm(v, self.op)

    def operands(self) -> list[SSAValue]:
        # (asked for every op: ``value`` inlined, the operand tuple read without xDSL's view)
        op = self.op
        if self.conversion is None:
            return [to_llvm(v, op) for v in op._operands]  # pyright: ignore[reportPrivateUsage]
        values = self.conversion.values
        out = []
        for v in op._operands:  # pyright: ignore[reportPrivateUsage]
            new = values.get(v)
            out.append(to_llvm(v, op) if new is None else new)
        return out

    def type(self, t: Attribute) -> Attribute:
        lt = convert_type(t)
        if lt is None:
            raise op_error(self.op, f"type {t} has no LLVM equivalent")
        return lt

    # small builders -----------------------------------------------------------
    def const_int(self, value: int, t: Attribute = I64) -> SSAValue:
        if isinstance(t, IntegerType) and t.width.data == 1:
            value = 1 if value else 0
        if self.conversion is None:
            if self._consts is None:
                self._consts = {}
            cache, key = self._consts, (value, t)
        else:  # (i64: the most frequent, keyed without hashing the type)
            cache, key = self.conversion.local, (self.block, value) if t is I64 else (self.block, value, t)
        cached = cache.get(key)
        if cached is None:
            cached = cache[key] = self.emit(
                llvm.ConstantOp.create(properties={"value": _int_attr(value, t)}, result_types=[t])).results[0]
        return cached

    def local(self, key: tuple, make: Callable[[], SSAValue]) -> SSAValue:
        """``make()``, made once per block in a :class:`Conversion` (then reused
        by the later ops of the block), at each call otherwise."""
        if self.conversion is None:
            return make()
        cache = self.conversion.local
        key = (self.block, *key)
        found = cache.get(key)
        if found is None:
            found = cache[key] = make()
        return found

    def const_float(self, value: float, t: Attribute) -> SSAValue:
        return self.emit(llvm.ConstantOp(FloatAttr(value, t), t)).results[0]  # type: ignore[arg-type]

    def extract(self, container: SSAValue, position: Sequence[int], t: Attribute) -> SSAValue:
        return self.emit(extract_value_op(container, position, t)).results[0]

    def insert(self, container: SSAValue, value: SSAValue, position: Sequence[int]) -> SSAValue:
        return self.emit(insert_value_op(container, value, position)).results[0]

    # the most frequent ops, built without xDSL's generic constructors (the same
    # properties, shared: attributes are immutable)
    def int_op(self, cls: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        """``cls`` (``llvm.add``, ``llvm.sub``, ``llvm.mul``: an op with overflow flags, none set)."""
        return self.emit(cls.create(operands=[a, b], result_types=[a.type],
                                    properties={"overflowFlags": _NO_OVERFLOW})).results[0]

    def float_op(self, cls: type[Operation], a: SSAValue, b: SSAValue,
                 fastmath: llvm.FastMathAttr | None = None) -> SSAValue:
        """``cls`` (``llvm.fadd``, ``llvm.fmul``...: a binary float op with fast-math flags)."""
        return self.emit(cls.create(operands=[a, b], result_types=[a.type],
                                    properties=float_properties(fastmath))).results[0]

    def icmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        t = a.type
        result = VectorType(i1, t.get_shape()) if isinstance(t, VectorType) else i1
        return self.emit(llvm.ICmpOp.create(operands=[a, b], result_types=[result],
                                            properties={"predicate": _predicate(pred)})).results[0]

    def load(self, ptr: SSAValue, t: Attribute) -> SSAValue:
        return self.emit(llvm.LoadOp.create(operands=[ptr], result_types=[t],
                                            properties={"ordering": _I64_ZERO})).results[0]

    def store(self, value: SSAValue, ptr: SSAValue) -> None:
        self.emit(llvm.StoreOp.create(operands=[value, ptr], properties={"ordering": _I64_ZERO}))

    def undef(self, t: Attribute) -> SSAValue:
        return self.emit(llvm.UndefOp(t)).results[0]

    def intrinsic(self, name: str, args: Sequence[SSAValue], result: Attribute | None) -> SSAValue | None:
        op = self.emit(llvm.CallIntrinsicOp.create(
            operands=args, result_types=[result] if result is not None else [],
            properties=intrinsic_properties(name, len(args))))
        return op.results[0] if op.results else None

    def call(self, callee: str, args: Sequence[SSAValue], result: Attribute | None) -> SSAValue | None:
        op = self.emit(call_op(callee, args, result))
        return op.results[0] if op.results else None

    def types_kept(self) -> bool:
        """Every operand and result of the op already has its LLVM type (as for
        float arithmetic and math, most ops of a program): an op lowered to one
        op with the same operands and result types can then :meth:`become` it."""
        kept = _KEPT_TYPES  # (keeps_type's first test inlined: asked of most values)
        op = self.op
        for values in (op._operands, op.results):  # pyright: ignore[reportPrivateUsage]
            for v in values:
                t = v.type
                if kept.get(id(t)) is not t and not keeps_type(t):
                    return False
        return True

    def become(self, cls: type[Operation], properties: dict[str, Attribute]) -> None:
        """Lower the op (whose types are kept: :meth:`types_kept`) to a ``cls`` op
        of its operands (their LLVM values), result types and ``properties``, by
        making it that op where it stands (:func:`become`)."""
        op = self.op
        if self.conversion is not None:
            operands = op._operands  # pyright: ignore[reportPrivateUsage]
            values = self.conversion.values
            mapped = [values.get(v, v) for v in operands]
            for v, new in zip(operands, mapped):
                if new is not v:
                    op.operands = mapped
                    break
        become(op, cls, properties)

    def replace(self, results: Sequence[SSAValue]) -> None:
        """Replace the op by ``results`` (LLVM-typed), casting back where types differ."""
        op = self.op
        conversion = self.conversion
        if conversion is not None and op.results:
            for old, new in zip(op.results, results, strict=True):
                if old.name_hint and new.name_hint is None:
                    new.name_hint = old.name_hint
                conversion.values[old] = new
            conversion.replaced.append(op)
            return
        final: list[SSAValue] = []
        for old, new in zip(op.results, results, strict=True):
            if old.type != new.type:
                cast = cast_op(new, old.type)
                cast.location = op.location
                self.block.insert_op_before(cast, op)
                new = cast.results[0]
            if old.name_hint and new.name_hint is None:
                new.name_hint = old.name_hint
            final.append(new)
        for old, new in zip(op.results, final):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()


def become(op: Operation, cls: type[Operation], properties: dict[str, Attribute]) -> None:
    """Make ``op`` a ``cls`` op where it stands, with ``properties`` (and
    ``cls``'s defaults) and no attributes; its operands, results (their types,
    uses and names) and location kept. The op ``cls.create`` would build from
    the same operands, result types and properties, put in ``op``'s place,
    without building one and moving every use of every result to it (which is
    most of the cost of lowering an op). For ops without regions or successors.

    (An xDSL op's state is its fields; its class gives the accessors, the
    format and the verifier, read from the op's operands and properties: the
    class of an op without regions can change as long as its operands and
    results fit ``cls``'s definition, which the lowering that asks guarantees.)"""
    assert not op.regions and not op._successors, op.name  # pyright: ignore[reportPrivateUsage]
    op.__class__ = cls
    op.properties = dict(properties)
    op.attributes = {}
    op.__post_init__()  # (cls's default properties and attributes, as its construction adds)


def lower_to_intrinsic(rw: Lowering, base: str) -> None:
    """Lower ``rw``'s op, whose operands and result are of one float type, to the
    call of intrinsic ``base``.<its type's suffix> on its operands (where it stands
    when its types are kept)."""
    op = rw.op
    if rw.types_kept():
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        name = f"{base}.{intrinsic_suffix(operands[0].type)}"
        rw.become(llvm.CallIntrinsicOp, intrinsic_properties(name, len(operands)))
        return
    args = rw.operands()
    t = args[0].type
    rw.replace([rw.intrinsic(f"{base}.{intrinsic_suffix(t)}", args, t)])  # type: ignore[list-item]


# (callee, arity, result type) -> the properties of such a call (immutable attributes)
_CALL_PROPERTIES: dict[tuple[str, int, Attribute | None], dict[str, Attribute]] = {}


def call_op(callee: str, args: Sequence[SSAValue], result: Attribute | None = None) -> llvm.CallOp:
    """``llvm.call @callee(args) -> result``, not inserted."""
    return llvm.CallOp.create(operands=list(args), result_types=() if result is None else (result,),
                              properties=call_properties(callee, args, result))


def call_properties(callee: str, args: Sequence[SSAValue], result: Attribute | None = None,
                    ) -> dict[str, Attribute]:
    """The properties of ``llvm.call @callee(args) -> result`` as CallOp() makes
    them, made once per (callee, arity, result): CallOp() (symbol, types,
    segments) is ~55 us, a call built from its properties ~10."""
    key = (callee, len(args), result)
    properties = _CALL_PROPERTIES.get(key)
    if properties is None:
        op = llvm.CallOp(callee, *args, return_type=result)
        op.drop_all_references()  # (built for its properties only: its uses go)
        # a copy: the op's own dict changes with it (redirect_symbols renames callees)
        properties = _CALL_PROPERTIES[key] = dict(op.properties)
    return properties


def float_properties(fastmath: llvm.FastMathAttr | None) -> dict[str, Attribute]:
    """The properties of a binary float op (``llvm.fadd``...) with these flags."""
    return {"fastmathFlags": _NO_FASTMATH if fastmath is None else fastmath}


@lru_cache(maxsize=1024)
def intrinsic_properties(name: str, n_args: int) -> dict:
    """The properties of an ``llvm.call_intrinsic`` of ``name`` with ``n_args``
    arguments and no operand bundles, as its constructor makes them (shared:
    attributes are immutable, and ``create`` copies the dict)."""
    return {"intrin": StringAttr(name), "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": DenseArrayBase.from_list(i32, (n_args, 0))}


@lru_cache(maxsize=4096)
def _int_attr(value: int, t: Attribute) -> IntegerAttr:
    return IntegerAttr(value, t)


_NO_OVERFLOW = IntegerAttr(0, 32)
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_NO_FASTMATH = llvm.FastMathAttr(None)
_I64_ZERO = IntegerAttr(0, i64)


@lru_cache(maxsize=None)
def _predicate(pred: str) -> IntegerAttr:
    return IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), 64)


def to_llvm(v: SSAValue, before: Operation) -> SSAValue:
    """``v`` converted to its LLVM type, casting right before ``before`` if needed."""
    t = v.type
    lt = convert_type(t)
    if lt is None:
        raise op_error(before, f"operand of type {t} has no LLVM equivalent")
    if lt == t:
        return v
    owner = v.owner
    if isinstance(owner, UnrealizedConversionCastOp):
        inputs = owner.operands  # (its inputs, without IRDL's slower accessor)
        if len(inputs) == 1 and inputs[0].type == lt:
            return inputs[0]
    cast = cast_op(v, lt)
    cast.location = before.location
    block = before.parent_block()
    assert block is not None
    block.insert_op_before(cast, before)
    return cast.results[0]


def convert_block_args(block: Block, types: Sequence[Attribute] | None = None) -> None:
    """Give ``block``'s arguments their LLVM types; old uses see a cast back."""
    for i, arg in enumerate(list(block.args)):
        lt = types[i] if types is not None else convert_type(arg.type)
        if lt is None or lt == arg.type:
            continue
        old_type = arg.type
        new_arg = Rewriter.replace_value_with_new_type(arg, lt)
        if not new_arg.uses:
            continue
        cast = cast_op(new_arg, old_type)
        parent = block.parent_op()
        if parent is not None:
            cast.location = parent.location
        new_arg.replace_uses_with_if(cast.results[0], lambda use: use.operation is not cast)
        Rewriter.insert_op(cast, InsertPoint.at_start(block))


Handler = Callable[[Lowering, Operation], None]


def handler_for(handlers: dict[type[Operation], Handler], cls: type[Operation]) -> Handler | None:
    """The handler of ``cls`` or of its nearest base class that has one."""
    return next((handlers[c] for c in cls.__mro__ if c in handlers), None)


def apply_handlers(module: ModuleOp, handlers: dict[type[Operation], Handler],
                   prepare: Callable[[list[Operation]], None] | None = None,
                   conversion: Conversion | None = None) -> None:
    """Rewrite every op whose class has a handler (preorder; nested ops included).

    An op whose class has none takes the handler of its nearest base class, so
    the subclasses that replace xDSL's ops (irtoolkit.dialects.arith) lower as
    xDSL's do. ``prepare`` sees the ops (in walk order) before any is rewritten;
    with a ``conversion``, rewritten results are mapped, not cast back
    (:class:`Conversion`), and the replaced ops are erased at the end.
    """
    resolved: dict[type[Operation], Handler | None] = {}
    ops = list(module.walk())
    if prepare is not None:
        prepare(ops)
    for op in ops:
        cls = type(op)
        if cls not in resolved:
            resolved[cls] = handler_for(handlers, cls)
        handler = resolved[cls]
        if handler is None or op.parent is None:
            continue
        handler(Lowering(op, conversion), op)
    if conversion is not None:
        conversion.finish()


def is_legal_llvm_op(op: Operation) -> bool:
    return op.name.startswith("llvm.") or isinstance(op, ModuleOp)


__all__ = [
    "PTR", "I64", "Conversion", "Lowering", "apply_handlers", "convert_block_args", "convert_type",
    "descriptor_type", "element_size", "intrinsic_suffix", "is_llvm_type", "pack_result_type",
    "to_llvm", "is_legal_llvm_op", "i32", "NoneAttr", "SignednessAttr", "BlockArgument",
]
