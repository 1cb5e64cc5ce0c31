"""``convert-memref-to-llvm``: memrefs to MLIR-style descriptors, malloc/free, GEP, load/store.

A ranked memref is the struct (see ``common.descriptor_type``)::

    { ptr allocated, ptr aligned, i64 offset, [R x i64] sizes, [R x i64] strides }

Element ``(i0, .., iR-1)`` lives at ``aligned[offset + sum(ik * stride_k)]``
(in elements); offset and strides are compile-time constants where the type's
layout says so (identity layouts: row-major, offset 0), otherwise they are read
from the descriptor. ``memref.alloc`` calls ``malloc`` (over-allocating when an
alignment above 16 is requested), ``memref.dealloc`` calls ``free`` on the
allocated pointer, ``memref.alloca`` uses ``llvm.alloca``. ``memref.get_global``
gives a descriptor whose allocated pointer is the dead marker ``0xdeadbeef``
(as MLIR): a buffer that must never be freed.

Also handled: dim, rank, cast, copy (contiguous: ``llvm.memcpy``), subview
(including rank-reducing), reinterpret_cast, collapse_shape, expand_shape,
extract_aligned_pointer_as_index, memref.global.

Sizes are checked: a buffer whose static sizes need 2^63 bytes or more is a
located error here (no such buffer can exist); with dynamic sizes, a run-time
check before ``malloc`` (``RuntimeCheckError`` at the op) fails when the byte
count would not fit in 63 bits -- it would wrap around, and the buffer be too
small -- as a negative size makes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit import dense
from irtoolkit.diagnostics import op_error
from irtoolkit.passes.lowering.to_llvm.common import (
    I64,
    PTR,
    Lowering,
    apply_handlers,
    constant_int,
    convert_type,
    descriptor_type,
    element_size,
    extract_value_op,
)
from irtoolkit.passes.lowering.to_llvm.math import declare_function

DEAD_POINTER = 0xDEADBEEF

_DESC_ALLOCATED, _DESC_ALIGNED, _DESC_OFFSET, _DESC_SIZES, _DESC_STRIDES = range(5)


def layout_of(op: Operation, t: MemRefType) -> tuple[list[int | None], int | None]:
    """Strides (None: dynamic) and offset (None: dynamic) of a memref type."""
    shape = t.get_shape()
    layout = t.layout
    if isinstance(layout, NoneAttr):
        strides = list(MemRefType.strides_for_shape(tuple(shape)))
        return strides, 0
    if isinstance(layout, StridedLayoutAttr):
        return list(layout.get_strides()), layout.get_offset()
    raise op_error(op, f"memref layout {layout} is not supported (use identity or strided layouts)")


def _static(d: int) -> bool:
    return d != DYNAMIC_INDEX


class Memref:
    """Reads and builds descriptors through a Lowering."""

    def __init__(self, rw: Lowering):
        self.rw = rw

    def field(self, desc: SSAValue, *pos: int) -> SSAValue:
        rw = self.rw
        conversion = rw.conversion
        if conversion is not None:
            known = conversion.fields.get(desc)
            if known is not None:
                return known[pos]
        t = PTR if pos[0] in (_DESC_ALLOCATED, _DESC_ALIGNED) else I64
        if conversion is not None and _is_function_argument(desc):
            # read once, at the start of the function, for every block
            entry = desc.block  # type: ignore[attr-defined]
            key = (entry, "field", desc, pos)
            found = conversion.local.get(key)
            if found is None:
                read = extract_value_op(desc, list(pos), t)
                read.location = rw.op.location
                if entry.first_op is None:
                    entry.add_op(read)
                else:
                    entry.insert_op_before(read, entry.first_op)
                found = conversion.local[key] = read.results[0]
            return found
        return rw.local(("field", desc, pos), lambda: rw.extract(desc, list(pos), t))

    def size(self, t: MemRefType, desc: SSAValue, k: int) -> SSAValue:
        d = t.get_shape()[k]
        return self.rw.const_int(d) if _static(d) else self.field(desc, _DESC_SIZES, k)

    def stride(self, op: Operation, t: MemRefType, desc: SSAValue, k: int) -> SSAValue:
        s = layout_of(op, t)[0][k]
        return self.rw.const_int(s) if s is not None else self.field(desc, _DESC_STRIDES, k)

    def offset(self, op: Operation, t: MemRefType, desc: SSAValue) -> SSAValue:
        o = layout_of(op, t)[1]
        return self.rw.const_int(o) if o is not None else self.field(desc, _DESC_OFFSET)

    def build(self, rank: int, allocated: SSAValue, aligned: SSAValue, offset: SSAValue,
              sizes: Sequence[SSAValue], strides: Sequence[SSAValue]) -> SSAValue:
        """The descriptor of the result of the op being lowered. In a :class:`Conversion`
        its fields are read from the values put in, so that a descriptor only read
        is left unused (and erased at the end of the walk); one that only loads,
        stores and deallocs use is not even built: an ``undef`` stands for it."""
        rw = self.rw
        conversion = rw.conversion
        fields = {(_DESC_ALLOCATED,): allocated, (_DESC_ALIGNED,): aligned, (_DESC_OFFSET,): offset}
        for k in range(rank):
            fields[(_DESC_SIZES, k)] = sizes[k]
            fields[(_DESC_STRIDES, k)] = strides[k]
        d = rw.undef(descriptor_type(rank))
        if conversion is None or not _only_accessed(rw.op.results[0]):
            d = rw.insert(d, allocated, [_DESC_ALLOCATED])
            d = rw.insert(d, aligned, [_DESC_ALIGNED])
            d = rw.insert(d, offset, [_DESC_OFFSET])
            for k in range(rank):
                d = rw.insert(d, sizes[k], [_DESC_SIZES, k])
                d = rw.insert(d, strides[k], [_DESC_STRIDES, k])
        if conversion is not None:
            conversion.fields[d] = fields
            conversion.maybe_dead.append(d.owner)  # type: ignore[arg-type]
        return d

    def element_ptr(self, op: Operation, t: MemRefType, desc: SSAValue,
                    indices: Sequence[SSAValue]) -> SSAValue:
        """The address of an element. With static strides, the constant parts of the
        indices (``i + c``, ``c``) are summed here, the rest added first: accesses
        that differ by a constant offset share the arithmetic, and in a
        :class:`Conversion` equal terms are computed once per block (i64 sums
        wrap around, so the address is the same)."""
        rw = self.rw
        strides, offset = layout_of(op, t)
        base = self.field(desc, _DESC_ALIGNED)
        idx: SSAValue | None = None
        constant = 0
        if offset is None:
            idx = self.field(desc, _DESC_OFFSET)
        else:
            constant = offset
        for k, i in enumerate(indices):
            s = strides[k]
            if s is None:
                term = self.mul(i, self.field(desc, _DESC_STRIDES, k))
            else:
                i, c = _constant_part(rw, i)
                constant += c * s
                if i is None:
                    continue
                term = i if s == 1 else self.mul(i, rw.const_int(s))
            idx = term if idx is None else self.add(idx, term)
        constant = _wrap(constant)
        if constant:
            idx = rw.const_int(constant) if idx is None else self.add(idx, rw.const_int(constant))
        if idx is None:
            return base
        elem = convert_type(t.element_type)
        return rw.local(("gep", base, idx, elem), lambda: rw.emit(_gep_op(base, elem, idx)).results[0])

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        rw = self.rw
        ca, cb = _constant_value(a), _constant_value(b)
        if ca is not None and cb is not None:
            return rw.const_int(_wrap(ca * cb))
        return rw.local(("mul", a, b), lambda: rw.int_op(llvm.MulOp, a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        rw = self.rw
        ca, cb = _constant_value(a), _constant_value(b)
        if ca is not None and cb is not None:
            return rw.const_int(_wrap(ca + cb))
        return rw.local(("add", a, b), lambda: rw.int_op(llvm.AddOp, a, b))


#: the memref operand of the accesses that read only fields of its descriptor
_ACCESS_OPERAND = {memref.LoadOp: 0, memref.StoreOp: 1, memref.DeallocOp: 0}


def _only_accessed(v: SSAValue) -> bool:
    """Whether every use of memref ``v`` is the buffer of a load, store or dealloc."""
    return all(_ACCESS_OPERAND.get(type(use.operation)) == use.index for use in v.uses)


def _wrap(value: int) -> int:
    """``value`` as an i64 (two's complement, as LLVM's arithmetic wraps)."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def _is_function_argument(v: SSAValue) -> bool:
    if not isinstance(v, BlockArgument):
        return False
    region = v.block.parent
    return (region is not None and region.first_block is v.block
            and isinstance(region.parent, (func.FuncOp, llvm.FuncOp)))


def _constant_value(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, llvm.ConstantOp) and v.type == I64:
        value = owner.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


def _constant_part(rw: Lowering, i: SSAValue) -> tuple[SSAValue | None, int]:
    """``i`` as ``(j, c)`` with ``i = j + c`` (``j`` None: ``i`` is the constant ``c``)
    when ``i`` is a constant or an i64 add or subtract of one; an add looked
    through may be left unused (it is erased at the end of the walk then)."""
    c = _constant_value(i)
    if c is not None:
        return None, c
    owner = i.owner
    if isinstance(owner, (llvm.AddOp, llvm.SubOp)) and i.type == I64:
        a, b = owner.operands
        cb = _constant_value(b)
        if cb is not None:
            if rw.conversion is not None:
                rw.conversion.maybe_dead.append(owner)
            return a, cb if isinstance(owner, llvm.AddOp) else -cb
        ca = _constant_value(a)
        if ca is not None and isinstance(owner, llvm.AddOp):
            if rw.conversion is not None:
                rw.conversion.maybe_dead.append(owner)
            return b, ca
    return i, 0


_GEP_PROPS: dict[str, Attribute] | None = None


def _gep_op(base: SSAValue, elem: Attribute, idx: SSAValue) -> Operation:
    """``llvm.getelementptr inbounds base[idx] : elem`` as ``llvm.GEPOp(base,
    [GEP_USE_SSA_VAL], elem, [idx], inbounds=True)``, without its slow constructor."""
    global _GEP_PROPS
    if _GEP_PROPS is None:
        _GEP_PROPS = dict(llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], elem, [idx], inbounds=True).properties)
    props = dict(_GEP_PROPS)
    props["elem_type"] = elem
    return llvm.GEPOp.create(operands=[base, idx], result_types=[PTR], properties=props)


def _memref_type(op: Operation, t: Attribute) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise op_error(op, f"unranked or non-memref type {t} is not supported")
    elem = convert_type(t.element_type)
    if elem is None or isinstance(elem, (MemRefType,)) or not _sized(t.element_type):
        raise op_error(op, f"memrefs of {t.element_type} cannot be lowered to the llvm dialect")
    return t


def _sized(t: Attribute) -> bool:
    try:
        element_size(t)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- allocation


#: the largest size in bytes of a buffer (sizes and offsets are signed i64)
MAX_BYTES = (1 << 63) - 1
#: the largest splat initializer of a global written out element by element
MAX_EMBEDDED_BYTES = 1 << 28


def static_size_in_bytes(op: Operation, t: MemRefType) -> int:
    """The bytes that the static dims of ``t`` need (dynamic ones counted as 1);
    a located error when they exceed MAX_BYTES: no such buffer can exist."""
    n = element_size(t.element_type)
    for d in t.get_shape():
        if _static(d):
            n *= d
    if n > MAX_BYTES:
        raise op_error(op, f"{t} cannot be allocated: it needs {n} bytes, more than 2^63 - 1")
    return n


def _shape_values(rw: Lowering, op: Operation, t: MemRefType, dynamic: Sequence[SSAValue]):
    """Sizes of a new row-major buffer, its strides and its element count (i64 values)."""
    static_size_in_bytes(op, t)
    shape = t.get_shape()
    dyn = iter(dynamic)
    sizes = [rw.const_int(d) if _static(d) else next(dyn) for d in shape]
    strides: list[SSAValue] = [None] * len(shape)  # type: ignore[list-item]
    running: SSAValue = rw.const_int(1)
    static_running: int | None = 1
    for k in reversed(range(len(shape))):
        strides[k] = running
        if static_running is not None and _static(shape[k]):
            static_running *= shape[k]
            running = rw.const_int(static_running)
        else:
            static_running = None
            running = rw.int_op(llvm.MulOp, running, sizes[k])
    return sizes, strides, running


def _check_byte_count(rw: Lowering, op: Operation, t: MemRefType, dynamic: Sequence[SSAValue],
                      padding: int) -> None:
    """A run-time check (``RuntimeCheckError`` at the op) that the dynamic sizes
    times the static bytes per slice, plus ``padding``, fit in MAX_BYTES -- so
    that the byte count passed to ``malloc`` did not wrap around. A negative size
    reads as a huge unsigned one and fails too; a zero size passes whatever the
    others (the buffer is empty)."""
    from irtoolkit.passes.lowering.to_llvm.cf import emit_check

    slice_bytes = static_size_in_bytes(op, t)
    limit = rw.const_int((MAX_BYTES - padding) // slice_bytes)
    product = dynamic[0]
    wrapped: SSAValue | None = None
    pair = llvm.LLVMStructType.from_type_list([I64, i1])
    for d in dynamic[1:]:
        both = rw.intrinsic("llvm.umul.with.overflow.i64", [product, d], pair)
        product = rw.extract(both, [0], I64)  # type: ignore[arg-type]
        flag = rw.extract(both, [1], i1)  # type: ignore[arg-type]
        wrapped = flag if wrapped is None else rw.emit(llvm.OrOp(wrapped, flag)).results[0]
    ok = rw.icmp("ule", product, limit)
    if wrapped is not None:
        ok = rw.emit(llvm.AndOp(ok, rw.emit(llvm.XOrOp(wrapped, rw.const_int(1, i1))).results[0])).results[0]
        zero = rw.const_int(0)
        for d in dynamic:
            ok = rw.emit(llvm.OrOp(ok, rw.icmp("eq", d, zero))).results[0]
    emit_check(rw, ok, f"'{op.name}' op cannot allocate {t}: its size in bytes is "
                       "2^63 or more (or a size is negative)")


def lower_alloc(rw: Lowering, op: memref.AllocOp) -> None:
    t = _memref_type(op, op.memref.type)
    if layout_of(op, t)[1] != 0 or not isinstance(t.layout, NoneAttr):
        raise op_error(op, "only identity layouts can be allocated")
    dynamic = [rw.value(v) for v in op.dynamic_sizes]
    align = op.alignment.value.data if op.alignment is not None else 0
    padding = align - 1 if align > 16 else 0
    if dynamic and static_size_in_bytes(op, t) != 0:  # a static 0 size: empty whatever the others
        _check_byte_count(rw, op, t, dynamic, padding)
    elif static_size_in_bytes(op, t) + padding > MAX_BYTES:
        raise op_error(op, f"{t} cannot be allocated: it needs more than 2^63 - 1 bytes")
    sizes, strides, count = _shape_values(rw, op, t, dynamic)
    m = Memref(rw)
    nbytes = m.mul(count, rw.const_int(element_size(t.element_type)))
    declare_function(op, "malloc", llvm.LLVMFunctionType([I64], PTR))
    if padding:
        padded = rw.emit(llvm.AddOp(nbytes, rw.const_int(padding))).results[0]
        allocated = rw.call("malloc", [padded], PTR)
        as_int = rw.emit(llvm.PtrToIntOp(allocated, I64)).results[0]
        bumped = rw.emit(llvm.AddOp(as_int, rw.const_int(align - 1))).results[0]
        masked = rw.emit(llvm.AndOp(bumped, rw.const_int(-align))).results[0]
        aligned = rw.emit(llvm.IntToPtrOp(masked)).results[0]
    else:
        allocated = rw.call("malloc", [nbytes], PTR)
        aligned = allocated
    desc = m.build(len(sizes), allocated, aligned, rw.const_int(0), sizes, strides)  # type: ignore[arg-type]
    rw.replace([desc])


def lower_alloca(rw: Lowering, op: memref.AllocaOp) -> None:
    t = _memref_type(op, op.memref.type)
    if not isinstance(t.layout, NoneAttr):
        raise op_error(op, "only identity layouts can be allocated")
    dynamic = [rw.value(v) for v in op.dynamic_sizes]
    sizes, strides, count = _shape_values(rw, op, t, dynamic)
    elem = convert_type(t.element_type)
    align = op.alignment.value.data if op.alignment is not None else element_size(t.element_type)
    ptr = rw.emit(llvm.AllocaOp(count, elem, alignment=align)).results[0]
    desc = Memref(rw).build(len(sizes), ptr, ptr, rw.const_int(0), sizes, strides)
    rw.replace([desc])


def lower_dealloc(rw: Lowering, op: memref.DeallocOp) -> None:
    _memref_type(op, op.memref.type)
    desc = rw.value(op.memref)
    declare_function(op, "free", llvm.LLVMFunctionType([PTR]))
    rw.call("free", [Memref(rw).field(desc, _DESC_ALLOCATED)], None)
    rw.replace([])


# --------------------------------------------------------------------------- access


def lower_load(rw: Lowering, op: memref.LoadOp) -> None:
    t = _memref_type(op, op.memref.type)
    desc = rw.value(op.memref)
    idx = [rw.value(v) for v in op.indices]
    ptr = Memref(rw).element_ptr(op, t, desc, idx)
    res = rw.load(ptr, rw.type(op.res.type))
    rw.replace([res])


def lower_store(rw: Lowering, op: memref.StoreOp) -> None:
    t = _memref_type(op, op.memref.type)
    value = rw.value(op.value)
    desc = rw.value(op.memref)
    idx = [rw.value(v) for v in op.indices]
    ptr = Memref(rw).element_ptr(op, t, desc, idx)
    rw.store(value, ptr)
    rw.replace([])


def lower_dim(rw: Lowering, op: memref.DimOp) -> None:
    t = _memref_type(op, op.source.type)
    desc = rw.value(op.source)
    m = Memref(rw)
    k = constant_int(op.index)
    rank = t.get_num_dims()
    if k is not None:
        if not 0 <= k < rank:
            raise op_error(op, f"index {k} is out of bounds for a memref of rank {rank}")
        rw.replace([m.size(t, desc, k)])
        return
    idx = rw.value(op.index)
    result = rw.const_int(0)
    for j in range(rank):
        eq = rw.icmp("eq", idx, rw.const_int(j))
        result = rw.emit(llvm.SelectOp(eq, m.size(t, desc, j), result)).results[0]
    rw.replace([result])


def lower_rank(rw: Lowering, op: memref.RankOp) -> None:
    t = _memref_type(op, op.source.type)
    rw.replace([rw.const_int(t.get_num_dims())])


def lower_cast(rw: Lowering, op: memref.CastOp) -> None:
    src = _memref_type(op, op.source.type)
    dst = _memref_type(op, op.dest.type)
    desc = rw.value(op.source)
    if layout_of(op, src) == layout_of(op, dst) or src.get_num_dims() == 0:
        rw.replace([desc])
        return
    # layouts differ in what is static: materialize offset and strides in the descriptor
    m = Memref(rw)
    rank = src.get_num_dims()
    d = rw.insert(desc, m.offset(op, src, desc), [_DESC_OFFSET])
    for k in range(rank):
        d = rw.insert(d, m.stride(op, src, desc, k), [_DESC_STRIDES, k])
        d = rw.insert(d, m.size(src, desc, k), [_DESC_SIZES, k])
    rw.replace([d])


def lower_extract_aligned_pointer(rw: Lowering, op: Operation) -> None:
    desc = rw.value(op.operands[0])
    ptr = Memref(rw).field(desc, _DESC_ALIGNED)
    rw.replace([rw.emit(llvm.PtrToIntOp(ptr, I64)).results[0]])


def _contiguous(op: Operation, t: MemRefType) -> bool:
    strides, _ = layout_of(op, t)
    return isinstance(t.layout, NoneAttr) or strides == list(
        MemRefType.strides_for_shape(t.get_shape())
    ) and None not in strides


def lower_copy(rw: Lowering, op: memref.CopyOp) -> None:
    src = _memref_type(op, op.source.type)
    dst = _memref_type(op, op.destination.type)
    if not (_contiguous(op, src) and _contiguous(op, dst)):
        raise op_error(op, "copies between non-contiguous memrefs are not supported")
    s_desc, d_desc = rw.value(op.source), rw.value(op.destination)
    m = Memref(rw)
    count: SSAValue = rw.const_int(1)
    for k in range(src.get_num_dims()):
        count = m.mul(count, m.size(src, s_desc, k))
    nbytes = m.mul(count, rw.const_int(element_size(src.element_type)))
    sp = m.element_ptr(op, src, s_desc, [rw.const_int(0)] * src.get_num_dims())
    dp = m.element_ptr(op, dst, d_desc, [rw.const_int(0)] * dst.get_num_dims())
    rw.intrinsic("llvm.memcpy.p0.p0.i64", [dp, sp, nbytes, rw.const_int(0, i1)], None)
    rw.replace([])


# --------------------------------------------------------------------------- views


def _mixed(values: Sequence[int], dynamic: Sequence[SSAValue], rw: Lowering) -> list[SSAValue | int]:
    dyn = iter(rw.value(v) for v in dynamic)
    return [next(dyn) if v == DYNAMIC_INDEX else v for v in values]


def _as_value(rw: Lowering, v: SSAValue | int) -> SSAValue:
    return rw.const_int(v) if isinstance(v, int) else v


def lower_subview(rw: Lowering, op: memref.SubviewOp) -> None:
    src = _memref_type(op, op.source.type)
    res = _memref_type(op, op.result.type)
    desc = rw.value(op.source)
    m = Memref(rw)
    offsets = _mixed(op.static_offsets.get_values(), op.offsets, rw)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, rw)
    steps = _mixed(op.static_strides.get_values(), op.strides, rw)
    rank = src.get_num_dims()
    # new offset = old offset + sum(offset_k * stride_k)
    off = m.offset(op, src, desc)
    src_strides = [m.stride(op, src, desc, k) for k in range(rank)]
    for k in range(rank):
        if offsets[k] == 0:
            continue
        off = m.add(off, m.mul(_as_value(rw, offsets[k]), src_strides[k]))
    # rank reduction: drop unit dims of the source that the result does not have
    res_shape = res.get_shape()
    drops = rank - len(res_shape)
    kept: list[int] = []
    j = 0
    for k in range(rank):
        unit = sizes[k] == 1
        if unit and drops > 0 and (j >= len(res_shape) or res_shape[j] != 1
                                   or rank - k - 1 >= len(res_shape) - j):
            drops -= 1
            continue
        kept.append(k)
        j += 1
    if len(kept) != len(res_shape):
        raise op_error(op, "cannot infer which dimensions this rank-reducing subview drops")
    new_sizes = [_as_value(rw, sizes[k]) for k in kept]
    new_strides = [
        src_strides[k] if steps[k] == 1 else m.mul(src_strides[k], _as_value(rw, steps[k]))
        for k in kept
    ]
    alloc = m.field(desc, _DESC_ALLOCATED)
    aligned = m.field(desc, _DESC_ALIGNED)
    rw.replace([m.build(len(kept), alloc, aligned, off, new_sizes, new_strides)])


def lower_reinterpret_cast(rw: Lowering, op: memref.ReinterpretCastOp) -> None:
    res = _memref_type(op, op.result.type)
    desc = rw.value(op.source)
    m = Memref(rw)
    offsets = _mixed(op.static_offsets.get_values(), op.offsets, rw)
    sizes = _mixed(op.static_sizes.get_values(), op.sizes, rw)
    strides = _mixed(op.static_strides.get_values(), op.strides, rw)
    rank = res.get_num_dims()
    rw.replace([m.build(
        rank, m.field(desc, _DESC_ALLOCATED), m.field(desc, _DESC_ALIGNED),
        _as_value(rw, offsets[0]) if offsets else rw.const_int(0),
        [_as_value(rw, s) for s in sizes], [_as_value(rw, s) for s in strides],
    )])


def _reassociation(op: Operation) -> list[list[int]]:
    groups = []
    for group in op.reassociation.data:  # type: ignore[attr-defined]
        groups.append([x.value.data if isinstance(x, IntegerAttr) else x.data for x in group.data])
    return groups


def lower_collapse_shape(rw: Lowering, op: memref.CollapseShapeOp) -> None:
    src = _memref_type(op, op.src.type)
    res = _memref_type(op, op.result.type)
    desc = rw.value(op.src)
    m = Memref(rw)
    sizes, strides = [], []
    for r, group in enumerate(_reassociation(op)):
        if _static(res.get_shape()[r]):
            size = rw.const_int(res.get_shape()[r])
        else:
            size = rw.const_int(1)
            for k in group:
                size = m.mul(size, m.size(src, desc, k))
        sizes.append(size)
        strides.append(m.stride(op, src, desc, group[-1]) if group else rw.const_int(1))
    rw.replace([m.build(len(sizes), m.field(desc, _DESC_ALLOCATED), m.field(desc, _DESC_ALIGNED),
                        m.offset(op, src, desc), sizes, strides)])


def lower_expand_shape(rw: Lowering, op: memref.ExpandShapeOp) -> None:
    src = _memref_type(op, op.src.type)
    res = _memref_type(op, op.result.type)
    desc = rw.value(op.src)
    m = Memref(rw)
    static_out = op.static_output_shape.get_values()
    rank = res.get_num_dims()
    if len(static_out) != rank or len(op.output_shape) != sum(d == DYNAMIC_INDEX for d in static_out):
        raise op_error(op, f"output_shape has {len(static_out)} sizes but the result "
                           f"{res} has rank {rank}")
    for d, want in zip(static_out, res.get_shape()):
        if d != DYNAMIC_INDEX and _static(want) and d != want:
            raise op_error(op, f"output_shape {list(static_out)} does not match the result "
                               f"type {res}")
    out_shape = _mixed(static_out, op.output_shape, rw)
    sizes: list[SSAValue] = [None] * rank  # type: ignore[list-item]
    strides: list[SSAValue] = [None] * rank  # type: ignore[list-item]
    for d, group in enumerate(_reassociation(op)):
        running = m.stride(op, src, desc, d)
        for r in reversed(group):
            sizes[r] = _as_value(rw, out_shape[r])
            strides[r] = running
            running = m.mul(running, sizes[r])
    rw.replace([m.build(rank, m.field(desc, _DESC_ALLOCATED), m.field(desc, _DESC_ALIGNED),
                        m.offset(op, src, desc), sizes, strides)])


# --------------------------------------------------------------------------- globals


def _global_array_type(op: Operation, t: MemRefType) -> llvm.LLVMArrayType:
    if not t.has_static_shape():
        raise op_error(op, "globals need a static shape")
    static_size_in_bytes(op, t)
    n = 1
    for d in t.get_shape():
        n *= d
    return llvm.LLVMArrayType(n, convert_type(t.element_type))


def lower_global(rw: Lowering, op: memref.GlobalOp) -> None:
    t = _memref_type(op, op.type)
    arr = _global_array_type(op, t)
    value = op.initial_value
    elem = convert_type(t.element_type)
    n = arr.size.data
    if isinstance(value, DenseIntOrFPElementsAttr):
        if dense.is_splat_form(value) and n * element_size(t.element_type) > MAX_EMBEDDED_BYTES:
            raise op_error(op, f"its splat initializer would be embedded as {n} elements (more than "
                               f"{MAX_EMBEDDED_BYTES >> 20} MB): fill the buffer with a loop instead")
        values = list(dense.values(value))
    else:  # uninitialized: zero
        values = [0.0 if not isinstance(elem, IntegerType) else 0] * n
    if isinstance(elem, IntegerType) and elem.width.data == 1:
        values = [1 if v else 0 for v in values]
    from xdsl.dialects.builtin import TensorType

    initial = DenseIntOrFPElementsAttr.from_list(TensorType(elem, [n]), values)  # type: ignore[arg-type]
    new = llvm.GlobalOp(arr, op.sym_name.data, "internal",
                        constant=op.constant is not None, value=initial,
                        alignment=op.alignment.value.data if op.alignment is not None else None)
    rw.emit(new)
    rw.replace([])


def lower_get_global(rw: Lowering, op: memref.GetGlobalOp) -> None:
    t = _memref_type(op, op.memref.type)
    ptr = rw.emit(llvm.AddressOfOp(op.name_.root_reference.data, PTR)).results[0]
    dead = rw.emit(llvm.IntToPtrOp(rw.const_int(DEAD_POINTER))).results[0]
    sizes, strides, _ = _shape_values(rw, op, t, [])
    rw.replace([Memref(rw).build(t.get_num_dims(), dead, ptr, rw.const_int(0), sizes, strides)])


HANDLERS: dict = {
    memref.AllocOp: lower_alloc,
    memref.AllocaOp: lower_alloca,
    memref.DeallocOp: lower_dealloc,
    memref.LoadOp: lower_load,
    memref.StoreOp: lower_store,
    memref.DimOp: lower_dim,
    memref.RankOp: lower_rank,
    memref.CastOp: lower_cast,
    memref.CopyOp: lower_copy,
    memref.SubviewOp: lower_subview,
    memref.ReinterpretCastOp: lower_reinterpret_cast,
    memref.CollapseShapeOp: lower_collapse_shape,
    memref.ExpandShapeOp: lower_expand_shape,
    memref.ExtractAlignedPointerAsIndexOp: lower_extract_aligned_pointer,
    memref.GlobalOp: lower_global,
    memref.GetGlobalOp: lower_get_global,
}

_ = (IndexType, UnitAttr)


@dataclass(frozen=True)
class ConvertMemrefToLLVMPass(ModulePass):
    name = "convert-memref-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_handlers(op, HANDLERS)
