"""LLVM IR text straight from an llvm-dialect module, without llvmlite's IR objects.

``translate.to_llvmlite`` builds an llvmlite object per instruction (through
xDSL's ``convert_op``) only for LLVM to re-parse its text: ~50 us per op. Here
each op class has one function in ``_EMITTERS`` that appends its line of text,
spelled as llvmlite prints the instruction that translation makes -- same value
names (llvmlite's ``.N`` counter per function), same spacing, same implicit
casts -- so the two texts are byte-identical (``test/runtime/test_translate.py``
checks it). What llvmlite does not make per instruction is still made by
``translate._to_llvmlite``: globals, function prototypes and attributes,
intrinsic declarations and metadata live in its llvmlite module (a few hundred
objects), and only function bodies are text.

An op, type or attribute met here without an emitter raises ``Unsupported``:
the caller translates the whole module through llvmlite instead (never wrong
code, and that path's diagnostics for what neither knows).
"""

from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    TupleType,
    VectorType,
)
from xdsl.utils.type import get_element_type_or_self

from irtoolkit.passes.lowering.to_llvm.vector_math import KERNEL_PREFIX
from irtoolkit.runtime.translate import _ORDERING

if TYPE_CHECKING:
    import llvmlite.ir as ir


class Unsupported(Exception):
    """Something the text emitter does not spell: translate through llvmlite."""


# llvmlite quotes a label unless it is a simple identifier
_SIMPLE_LABEL = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*$")
# a block name that llvmlite's name deduplication could make collide with ".N"
_NUMBERED = re.compile(r".*\.[0-9]+$")

_NULL = {"float": "0.0", "double": "0.0", "half": "0.0", "ptr": "null"}


def _escape(name: str) -> str:
    """A name as llvmlite quotes it (backslash and quote as hex escapes)."""
    if "\\" in name or '"' in name:
        name = name.replace("\\", "\\5c").replace('"', "\\22")
    return name


def global_ref(name: str) -> str:
    return f'@"{_escape(name)}"'


def _type_text(t) -> str:
    kind = type(t)
    if kind is IntegerType:
        return f"i{t.width.data}"
    if kind is Float64Type:
        return "double"
    if kind is Float32Type:
        return "float"
    if kind is Float16Type:
        return "half"
    if kind is llvm.LLVMPointerType:
        if isinstance(t.addr_space, IntAttr) and t.addr_space.data != 0:
            raise Unsupported("pointer in an address space")
        return "ptr"
    if kind is llvm.LLVMStructType or kind is TupleType:
        return "{" + ", ".join(_type_text(e) for e in t.types.data) + "}"
    if kind is llvm.LLVMArrayType:
        return f"[{t.size.data} x {_type_text(t.type)}]"
    if kind is VectorType:
        if t.get_num_scalable_dims() or t.get_num_dims() != 1:
            raise Unsupported("vector type")
        return f"<{t.get_shape()[0]} x {_type_text(t.element_type)}>"
    if kind is ComplexType:
        e = _type_text(t.element_type)
        return f"{{{e}, {e}}}"
    if kind is llvm.LLVMVoidType or kind is NoneType:
        return "void"
    raise Unsupported(f"type {t}")


def _hex_double(value: float) -> str:
    # (llvmlite's format: at least 16 characters, space-padded: 0.0 is "             0x0")
    return format(struct.unpack("Q", struct.pack("d", value))[0], "#16x")


def scalar_constant(type_text: str, value) -> str:
    """A scalar constant as llvmlite's ``format_constant`` spells it."""
    if type_text == "double":
        return _hex_double(value)
    if type_text == "float":
        return _hex_double(struct.unpack("f", struct.pack("f", value))[0])
    if type_text == "half":
        return _hex_double(struct.unpack("e", struct.pack("e", value))[0])
    if type_text[0] == "i" and isinstance(value, int):
        return str(value).lower() if isinstance(value, bool) else str(value)
    raise Unsupported(f"constant {value!r} of type {type_text}")


class _Function:
    """The text of one function body being emitted, and its naming state."""

    __slots__ = ("ref", "pointee", "functions", "n", "block", "kernel_blocks", "lines", "phis", "block_ref", "callees", "size",
                 "current", "hints")

    def __init__(self):
        self.ref: dict = {}  # SSA value -> its reference (a name or a constant)
        # values llvmlite types as typed pointers (an alloca, a global, a GEP of one)
        # -> the pointee's type text; such a pointer prints as "pointee*"
        self.pointee: dict = {}
        self.functions: dict = {}  # addresses of functions -> the function's name
        self.n = 0  # llvmlite's counter of unnamed values
        self.lines: list[str] = []
        self.phis: dict = {}  # block argument -> [type text, name, incoming list]
        self.block_ref: dict = {}
        self.callees: set[str] = set()
        self.size = 0
        self.current = ""  # reference of the block being emitted
        self.hints: dict[str, int] = {}
        self.block = None  # the block being emitted
        self.kernel_blocks: set = set()  # blocks calling a vector-math kernel

    def name(self) -> str:
        self.n += 1
        return f'%".{self.n}"'

    def label(self, hint: str | None) -> tuple[str, str]:
        """(reference, label) of a new block, named as llvmlite names it."""
        if not hint:
            self.n += 1
            name = f".{self.n}"
        else:
            if _NUMBERED.match(hint) or hint.startswith("."):
                raise Unsupported("block name that llvmlite would renumber")
            k = self.hints.get(hint)
            self.hints[hint] = 0 if k is None else k + 1
            name = hint if k is None else f"{hint}.{k + 1}"
        escaped = _escape(name)
        label = name if _SIMPLE_LABEL.match(name) else f'"{escaped}"'
        return f'%"{escaped}"', label


class TextEmitter:
    """Function bodies as text, for ``translate._to_llvmlite(module, body=...)``."""

    def __init__(self):
        self.bodies: dict[str, str] = {}
        self.size: dict[str, int] = {}
        self.callees: dict[str, set[str]] = {}
        self._types: dict[int, str] = {}
        self._positions: dict[bytes, str] = {}
        self._indices: dict[bytes, list[int]] = {}
        self.constants: dict[tuple[int, int], str] = {}  # (value, type) ids -> constant text
        self._keep: list = []  # keeps alive the attributes whose ids key the caches above

    def ty(self, t) -> str:
        s = self._types.get(id(t))
        if s is None:
            s = self._types[id(t)] = _type_text(t)
            self._keep.append(t)
        return s

    def indices(self, attr) -> list[int]:
        """The values of an i32 array (GEP indices, operand segment sizes), by its bytes:
        equal arrays of different ops are different attributes."""
        key = attr.data.data
        s = self._indices.get(key)
        if s is None:
            s = self._indices[key] = list(attr.iter_values())
        return s

    def position(self, attr) -> str:
        """The indices of an extractvalue/insertvalue (an i64 array)."""
        key = attr.data.data
        s = self._positions.get(key)
        if s is None:
            s = self._positions[key] = ", ".join(str(i) for i in attr.iter_values())
        return s

    # -- the module -----------------------------------------------------------------
    def body(self, op: llvm.FuncOp, llmod: ir.Module, scopes: dict) -> None:
        from irtoolkit.runtime.translate import math_loop_ids

        self.llmod = llmod
        self.scopes = scopes
        f = _Function()
        blocks = list(op.body.blocks)
        entry = blocks[0]
        for arg in entry.args:
            f.ref[id(arg)] = f.name()
        f.n += 1  # llvmlite's ReturnValue takes a name
        labels = []
        for block in blocks:
            ref, label = f.label(block.name_hint)
            f.block_ref[block] = ref
            labels.append(label)
        for block in blocks[1:]:
            for arg in block.args:
                name = f.name()
                f.ref[id(arg)] = name
                f.phis[id(arg)] = [self.ty(arg.type), name, []]
        emitters = _EMITTERS
        starts = []  # (first line, terminator line) of each block
        try:
            for block in blocks:
                f.current = f.block_ref[block]
                f.block = block
                first = len(f.lines)
                inner = block._first_op  # (the fields, not Block.ops: a Python call less per op)
                while inner is not None:
                    emit = emitters.get(type(inner))
                    if emit is None:
                        raise Unsupported(f"op {inner.name}")
                    emit(self, f, inner)
                    inner = inner._next_op
                starts.append((first, len(f.lines) - 1))
        except KeyError as err:  # an unknown symbol or value: llvmlite's translation says which
            raise Unsupported(f"{type(err).__name__}: {err}") from None
        f.size = len(f.lines) + sum(len(b.args) for b in blocks[1:])
        for block, md in math_loop_ids(op, llmod, f.kernel_blocks).items():
            k = starts[blocks.index(block)][1]
            f.lines[k] += f", !llvm.loop {md.get_reference()}"
        out = []
        for i, block in enumerate(blocks):
            out.append(f"{labels[i]}:\n")
            for arg in block.args if i else ():
                t, name, incoming = f.phis[id(arg)]
                incs = ", ".join(f"[{v}, {b}]" for v, b in incoming)
                out.append(f"  {name} = phi  {t} {incs}".rstrip() + "\n")
            first, last = starts[i]
            for line in f.lines[first:last + 1]:
                out.append(f"  {line}\n")
        name = op.sym_name.data
        self.bodies[name] = "".join(out)
        self.size[name] = f.size
        self.callees[name] = f.callees

    def module_text(self, llmod: ir.Module) -> str:
        lines = ['; ModuleID = "%s"' % (llmod.name,),
                 'target triple = "%s"' % (llmod.triple,),
                 'target datalayout = "%s"' % (llmod.data_layout,), ""]
        for name, value in llmod.globals.items():
            body = self.bodies.get(name)
            text = str(value)
            if body is not None:
                assert text.startswith("declare ")
                text = f"define {text[len('declare '):]}{{\n{body}}}\n"
            lines.append(text)
        lines += llmod._get_metadata_lines()
        return "\n".join(lines)

    def graph(self, llmod: ir.Module) -> tuple[dict[str, int], dict[str, set[str]]]:
        """``codegen.call_graph`` of the module, from what the bodies recorded."""
        size, callees = {}, {}
        for fn in llmod.functions:
            size[fn.name] = self.size.get(fn.name, 0)
            callees[fn.name] = self.callees.get(fn.name, set())
        return size, callees

    # -- helpers of the op emitters ---------------------------------------------------
    def function(self, name: str):
        """The llvmlite function ``name`` of the module (KeyError if none)."""
        fn = self.llmod.globals[name]
        if not hasattr(fn, "ftype"):
            raise Unsupported(f"call of the non-function @{name}")
        return fn

    def intrinsic(self, name: str, ret, args):
        """llvmlite's ``declare_intrinsic(name, fnty=...)``: the existing global or a new
        declaration (with llvmlite types converted from xDSL's)."""
        found = self.llmod.globals.get(name)
        if found is not None:
            return found
        import llvmlite.ir as ir
        from xdsl.backend.llvm.convert_type import convert_type

        return ir.Function(self.llmod, ir.FunctionType(convert_type(ret), [convert_type(a) for a in args]),
                           name=name)

    def call(self, f: _Function, fn, args: list[str], result=None, prefix: str = "call",
             cconv: str = "") -> None:
        """A call of llvmlite function ``fn`` (its ``CallInstr`` text)."""
        fnty = fn.ftype
        ret = str(fnty.return_type)
        ty = str(fnty) if fnty.var_arg else ret
        cconv = cconv or fn.calling_convention
        callee = f"{cconv} {ty} {global_ref(fn.name)}" if cconv else f"{ty} {global_ref(fn.name)}"
        f.callees.add(fn.name)
        name = f.name()
        text = f"{prefix} {callee}({', '.join(args)})"
        if ret == "void":
            f.lines.append(text)
        else:
            f.lines.append(f"{name} = {text}")
        if result is not None:
            f.ref[id(result)] = name

    def operand(self, f: _Function, v) -> str:
        """``type ref`` of an operand; a function's address counts as a callee (as
        ``codegen.call_graph`` counts an ir.Function operand)."""
        ref = f.ref[id(v)]
        pointee = f.pointee.get(id(v))
        if pointee is None:
            return f"{self.ty(v.type)} {ref}"
        if id(v) in f.functions:
            f.callees.add(f.functions[id(v)])
        return f"{pointee}* {ref}"


# --------------------------------------------------------------------------- the op emitters
# Each mirrors the converter translate._converter gives its class (xDSL's convert_op
# cases, irtoolkit's load/store), spelling the text of the llvmlite instruction it builds.


def _overflow_flags(op) -> list[str]:
    flags = op.properties.get("overflowFlags")
    bits = flags.value.data if flags is not None else 0
    return [x.value for x in llvm.OverflowAttr.from_int(bits).data] if bits else []


def _fastmath_flags(op) -> list[str]:
    flags = op.properties.get("fastmathFlags")
    return [x.value for x in flags.data] if flags else []


def _exact_flags(op) -> list[str]:
    return ["exact"] if op.is_exact else []


def _disjoint_flags(op) -> list[str]:
    return ["disjoint"] if op.is_disjoint else []


def _no_flags(op) -> list[str]:
    return []


def _binop(kind: type, opname: str):
    """(as xDSL's _convert_binop: its flags by the op's base class)"""
    flags_of = (_overflow_flags if issubclass(kind, llvm.ArithmeticBinOpOverflow)
                else _fastmath_flags if issubclass(kind, llvm.AbstractFloatArithOp)
                else _exact_flags if issubclass(kind, llvm.ArithmeticBinOpExact)
                else _disjoint_flags if issubclass(kind, llvm.ArithmeticBinOpDisjoint)
                else _no_flags)

    def emit(e: TextEmitter, f: _Function, op) -> None:
        a, b = op._operands
        flags = flags_of(op)
        head = " ".join([opname, *flags]) if flags else opname
        f.n += 1
        name = f'%".{f.n}"'
        (res,) = op.results
        ref = f.ref
        ref[id(res)] = name
        f.lines.append(f"{name} = {head} {e.ty(a.type)} {ref[id(a)]}, {ref[id(b)]}")
    return emit


def _cast(opname: str):
    def emit(e: TextEmitter, f: _Function, op) -> None:
        if isinstance(op, llvm.IntegerConversionOpOverflow) and op.overflowFlags:
            flags = [x.value for x in op.overflowFlags.data]
        elif isinstance(op, llvm.IntegerConversionOpNNeg) and op.non_neg:
            flags = ["nneg"]
        else:
            flags = []
        head = " ".join((opname, *flags))
        name = f.name()
        (res,) = op.results
        f.ref[id(res)] = name
        f.lines.append(f"{name} = {head} {e.operand(f, op._operands[0])} to {e.ty(res.type)}")
    return emit


_ICMP = {i: llvm.ICmpPredicateFlag.from_int(i).value for i in range(10)}


def _icmp(e: TextEmitter, f: _Function, op) -> None:
    pred = _ICMP[op.properties["predicate"].value.data]
    lhs, rhs = op._operands
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    f.lines.append(f"{name} = icmp {pred} {e.operand(f, lhs)}, {f.ref[id(rhs)]}")


def _fcmp(e: TextEmitter, f: _Function, op) -> None:
    pred = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    f.lines.append(f"{name} = fcmp {pred} {e.operand(f, op.lhs)}, {f.ref[id(op.rhs)]}")


def _fneg(e: TextEmitter, f: _Function, op) -> None:
    flags = [x.value for x in op.fastmathFlags.data]
    head = " ".join(["fneg", *flags])
    name = f.name()
    f.ref[id(op.res)] = name
    f.lines.append(f"{name} = {head} {e.operand(f, op.arg)}")


def _intrinsic_op(base: str):
    """The unary and binary math ops: a call of the unmangled intrinsic, as
    llvmlite's ``declare_intrinsic`` with a given type names it."""
    def emit(e: TextEmitter, f: _Function, op) -> None:
        first = op.operands[0].type
        fn = e.intrinsic(base, first, [v.type for v in op.operands])
        e.call(f, fn, [e.operand(f, v) for v in op.operands], op.results[0])
    return emit


def _suffix(t) -> str:
    """xDSL's ``intrinsic_suffix``: f32, v4f64, ..."""
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{_suffix(t.element_type)}"
    text = _type_text(t)
    return {"float": "f32", "double": "f64", "half": "f16"}.get(text, text)


def _vector_reduce(base: str):
    def emit(e: TextEmitter, f: _Function, op) -> None:
        start, vector = op._operands
        elem = vector.type.element_type
        fn = e.intrinsic(f"{base}.{_suffix(vector.type)}", elem, [elem, vector.type])
        e.call(f, fn, [e.operand(f, start), e.operand(f, vector)], op.results[0])
    return emit


def _fma(e: TextEmitter, f: _Function, op: llvm.FMAOp) -> None:
    if any(op.fastmathFlags.data):
        raise Unsupported("llvm.intr.fma with fast-math flags")
    (res,) = op.results
    fn = e.intrinsic(f"llvm.fma.{_suffix(res.type)}", res.type, [res.type] * 3)
    e.call(f, fn, [e.operand(f, v) for v in op._operands], res)


def _masked_store(e: TextEmitter, f: _Function, op: llvm.MaskedStoreOp) -> None:
    value, ptr, mask = op.value, op.data, op.mask
    if id(ptr) in f.pointee:
        raise Unsupported("masked store through a typed pointer")
    i32 = IntegerType(32)
    fn = e.intrinsic("llvm.masked.store", llvm.LLVMVoidType(), [value.type, ptr.type, i32, mask.type])
    e.call(f, fn, [e.operand(f, value), e.operand(f, ptr), f"i32 {op.alignment.value.data}",
                   e.operand(f, mask)])


def _insert_element(e: TextEmitter, f: _Function, op: llvm.InsertElementOp) -> None:
    name = f.name()
    f.ref[id(op.res)] = name
    f.lines.append(f"{name} = insertelement {e.operand(f, op.vector)}, {e.operand(f, op.value)}, "
                   f"{e.operand(f, op.index)}")


def _shuffle_vector(e: TextEmitter, f: _Function, op: llvm.ShuffleVectorOp) -> None:
    mask = op.mask.get_values()
    name = f.name()
    f.ref[id(op.res)] = name
    f.lines.append(f"{name} = shufflevector {e.operand(f, op.v1)}, {e.operand(f, op.v2)}, "
                   f"<{len(mask)} x i32> <{', '.join(f'i32 {i}' for i in mask)}>")


def _call(e: TextEmitter, f: _Function, op: llvm.CallOp) -> None:
    props = op.properties
    callee = props.get("callee")
    n_args, n_bundle = e.indices(props["operandSegmentSizes"])
    if n_bundle or e.indices(props["op_bundle_sizes"]) or callee is None:
        raise Unsupported("indirect call or operand bundles")
    name = callee.root_reference.data
    if name.startswith(KERNEL_PREFIX):
        f.kernel_blocks.add(f.block)
    fn = e.function(name)
    returned = op.results[0] if op.results else None
    fastmath = ""
    if returned is not None and isinstance(get_element_type_or_self(returned.type), AnyFloat):
        flags = sorted({x.value for x in op.fastmathFlags.data})
        if flags:
            fastmath = " " + " ".join(flags)
    tail = "tail " if op.TailCallKind.data != "none" else ""
    e.call(f, fn, [e.operand(f, a) for a in op._operands], returned, f"{tail}call{fastmath}",
           op.CConv.cconv_name)


def _call_intrinsic(e: TextEmitter, f: _Function, op: llvm.CallIntrinsicOp) -> None:
    if op.op_bundle_operands or op.op_bundle_sizes or any(op.fastmathFlags.data):
        raise Unsupported("intrinsic call with operand bundles or fast-math flags")
    ret = op.ress.type if op.ress is not None else llvm.LLVMVoidType()
    fn = e.intrinsic(op.intrin.data, ret, [a.type for a in op.args])
    e.call(f, fn, [e.operand(f, a) for a in op.args], op.ress)


def _alloca(e: TextEmitter, f: _Function, op: llvm.AllocaOp) -> None:
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    elem = e.ty(op.elem_type)
    f.pointee[id(res)] = elem
    align = f", align {op.alignment.value.data}" if op.alignment else ""
    f.lines.append(f"{name} = alloca {elem}, {e.operand(f, op.size)}{align}")


def _metadata(e: TextEmitter, op) -> str:
    from xdsl.dialects.builtin import ArrayAttr

    from irtoolkit.runtime.translate import _scope_list

    out = ""
    for key, md in (("alias_scopes", "alias.scope"), ("noalias_scopes", "noalias")):
        attr = op.attributes.get(key)
        if isinstance(attr, ArrayAttr):
            out += f", !{md} {_scope_list(e.llmod, e.scopes, attr).get_reference()}"
    return out


def _memory_access(e: TextEmitter, op, opname: str, operands: str) -> str:
    """A load's or store's text (translate._convert_body's): atomic with an
    ordering (aligned to 8 unless told), with its alias scopes."""
    props = op.properties
    ordering = props.get("ordering")
    order = _ORDERING.get(ordering.value.data) if ordering is not None else None
    alignment = props.get("alignment")
    align = alignment.value.data if alignment is not None else None
    if order:
        text = f"{opname} atomic {operands} {order}, align {8 if align is None else align}"
    else:
        text = f"{opname} {operands}" + ("" if align is None else f", align {align}")
    return text + _metadata(e, op) if op.attributes else text


def _load(e: TextEmitter, f: _Function, op: llvm.LoadOp) -> None:
    (res,) = op.results
    name = f.name()
    f.ref[id(res)] = name
    f.lines.append(f"{name} = " + _memory_access(e, op, "load", f"{e.ty(res.type)}, "
                                                               f"{e.operand(f, op._operands[0])}"))


def _store(e: TextEmitter, f: _Function, op: llvm.StoreOp) -> None:
    v, p = op._operands
    value = e.operand(f, v)
    ptr = e.operand(f, p)
    typed = f.pointee.get(id(p))
    vt = e.ty(v.type)
    if typed is not None and typed != vt:
        # llvmlite's typed pointer (a GEP, an alloca, a global) wants its pointee: a
        # pointer is stored as its bits, through a cast pointer (see translate._convert_body)
        if vt == "ptr":
            name = f.name()
            f.lines.append(f"{name} = ptrtoint {value} to i64")
            value, vt = f"i64 {name}", "i64"
        if typed != vt:
            name = f.name()
            f.lines.append(f"{name} = bitcast {ptr} to {vt}*")
            ptr = f"{vt}* {name}"
    f.n += 1
    f.lines.append(_memory_access(e, op, "store", f"{value}, {ptr}"))


def _extract_value(e: TextEmitter, f: _Function, op: llvm.ExtractValueOp) -> None:
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    f.lines.append(f"{name} = extractvalue {e.operand(f, op._operands[0])}, "
                   f"{e.position(op.properties['position'])}")


def _insert_value(e: TextEmitter, f: _Function, op: llvm.InsertValueOp) -> None:
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    container, value = op._operands
    f.lines.append(f"{name} = insertvalue {e.operand(f, container)}, {e.operand(f, value)}, "
                   f"{e.position(op.properties['position'])}")


_SSA_INDEX = llvm.GEP_USE_SSA_VAL


def _gep(e: TextEmitter, f: _Function, op: llvm.GEPOp) -> None:
    props = op.properties
    elem = e.ty(props["elem_type"])
    base = op._operands[0]
    ptr = e.operand(f, base)
    typed = f.pointee.get(id(base))
    if typed is not None and typed != elem:  # llvmlite's bitcast between typed pointers
        name = f.name()
        f.lines.append(f"{name} = bitcast {ptr} to {elem}*")
        ptr = f"{elem}* {name}"
    ssa = iter(op._operands[1:])
    indices = ", ".join(e.operand(f, next(ssa)) if i == _SSA_INDEX else f"i32 {i}"
                        for i in e.indices(props["rawConstantIndices"]))
    name = f.name()
    (res,) = op.results
    f.ref[id(res)] = name
    if typed is not None:  # (from an opaque pointer, llvmlite's GEP gives an opaque one)
        f.pointee[id(res)] = elem
    kind = "getelementptr inbounds" if "inbounds" in props else "getelementptr"
    f.lines.append(f"{name} = {kind} {elem}, {ptr}, {indices}")


def _incoming(f: _Function, dest, values) -> None:
    for arg, v in zip(dest.args, values):
        f.phis[id(arg)][2].append((f.ref[id(v)], f.current))


def _br(e: TextEmitter, f: _Function, op: llvm.BrOp) -> None:
    dest = op.successors[0]
    _incoming(f, dest, op._operands)
    f.n += 1
    f.lines.append(f"br label {f.block_ref[dest]}")


def _cond_br(e: TextEmitter, f: _Function, op: llvm.CondBrOp) -> None:
    then_block, else_block = op.successors
    _, n_then, _ = e.indices(op.properties["operandSegmentSizes"])
    cond, *args = op._operands
    _incoming(f, then_block, args[:n_then])
    _incoming(f, else_block, args[n_then:])
    f.n += 1
    f.lines.append(f"br {e.operand(f, cond)}, label {f.block_ref[then_block]}, "
                   f"label {f.block_ref[else_block]}")


def _unreachable(e: TextEmitter, f: _Function, op) -> None:
    f.n += 1
    f.lines.append("unreachable")


def _select(e: TextEmitter, f: _Function, op: llvm.SelectOp) -> None:
    name = f.name()
    f.ref[id(op.res)] = name
    typed = f.pointee.get(id(op.lhs))
    if typed is not None:
        f.pointee[id(op.res)] = typed
        if id(op.lhs) in f.functions:
            f.functions[id(op.res)] = f.functions[id(op.lhs)]
    f.lines.append(f"{name} = select  {e.operand(f, op.cond)}, {e.operand(f, op.lhs)}, "
                   f"{e.operand(f, op.rhs)}")


def _return(e: TextEmitter, f: _Function, op) -> None:
    f.n += 1
    f.lines.append(f"ret {e.operand(f, op.operands[0])}" if op.operands else "ret void")


def _zero(e: TextEmitter, f: _Function, op) -> None:
    t = e.ty(op.res.type)
    f.ref[id(op.res)] = _NULL.get(t, "0" if t[0] == "i" else "zeroinitializer")


def _undef(e: TextEmitter, f: _Function, op) -> None:
    e.ty(op.res.type)
    f.ref[id(op.res)] = "undef"


def _address_of(e: TextEmitter, f: _Function, op: llvm.AddressOfOp) -> None:
    name = op.global_name.root_reference.data
    g = e.llmod.globals[name]
    f.ref[id(op.result)] = global_ref(name)
    if hasattr(g, "ftype"):
        f.pointee[id(op.result)] = str(g.ftype)
        f.functions[id(op.result)] = name
    else:
        f.pointee[id(op.result)] = str(g.value_type)


def _constant(e: TextEmitter, f: _Function, op: llvm.ConstantOp) -> None:
    (res,) = op.results
    value = op.properties["value"]
    key = (id(value), id(res.type))
    text = e.constants.get(key)
    if text is None:
        text = e.constants[key] = _constant_text(e, res.type, value)
        e._keep.append((value, res.type))
    f.ref[id(res)] = text


def _constant_text(e: TextEmitter, rtype, value) -> str:
    t = e.ty(rtype)
    kind = type(value)
    if kind is IntegerAttr or kind is FloatAttr:
        return scalar_constant(t, value.value.data)
    elif kind is DenseIntOrFPElementsAttr:
        if isinstance(rtype, VectorType):
            elem = e.ty(rtype.element_type)
        elif isinstance(rtype, llvm.LLVMArrayType):
            elem = e.ty(rtype.type)
        else:
            raise Unsupported(f"dense constant of type {t}")
        values = value.get_values()
        opening, closing = ("<", ">") if t[0] == "<" else ("[", "]")
        return opening + ", ".join(f"{elem} {scalar_constant(elem, v)}" for v in values) + closing
    raise Unsupported(f"constant {value}")


_EMITTERS: dict[type, object] = {
    **{kind: _binop(kind, name) for kind, name in (
        (llvm.AddOp, "add"), (llvm.FAddOp, "fadd"), (llvm.SubOp, "sub"), (llvm.FSubOp, "fsub"),
        (llvm.MulOp, "mul"), (llvm.FMulOp, "fmul"), (llvm.UDivOp, "udiv"),
        (llvm.SDivOp, "sdiv"), (llvm.FDivOp, "fdiv"), (llvm.URemOp, "urem"),
        (llvm.SRemOp, "srem"), (llvm.FRemOp, "frem"), (llvm.ShlOp, "shl"),
        (llvm.LShrOp, "lshr"), (llvm.AShrOp, "ashr"), (llvm.AndOp, "and"), (llvm.OrOp, "or"),
        (llvm.XOrOp, "xor"),
    )},
    llvm.ICmpOp: _icmp,
    llvm.FCmpOp: _fcmp,
    llvm.TruncOp: _cast("trunc"), llvm.ZExtOp: _cast("zext"), llvm.SExtOp: _cast("sext"),
    llvm.PtrToIntOp: _cast("ptrtoint"), llvm.IntToPtrOp: _cast("inttoptr"),
    llvm.BitcastOp: _cast("bitcast"), llvm.FPExtOp: _cast("fpext"),
    llvm.FPTruncOp: _cast("fptrunc"), llvm.SIToFPOp: _cast("sitofp"),
    llvm.FAbsOp: _intrinsic_op("llvm.fabs"), llvm.FExpOp: _intrinsic_op("llvm.exp"),
    llvm.FCeilOp: _intrinsic_op("llvm.ceil"), llvm.FSinOp: _intrinsic_op("llvm.sin"),
    llvm.FFloorOp: _intrinsic_op("llvm.floor"), llvm.FExp2Op: _intrinsic_op("llvm.exp2"),
    llvm.FSqrtOp: _intrinsic_op("llvm.sqrt"), llvm.FLogOp: _intrinsic_op("llvm.log"),
    llvm.FCosOp: _intrinsic_op("llvm.cos"), llvm.FLog2Op: _intrinsic_op("llvm.log2"),
    llvm.FPowOp: _intrinsic_op("llvm.pow"), llvm.VectorFMaxOp: _intrinsic_op("llvm.maxnum"),
    llvm.VectorFMinOp: _intrinsic_op("llvm.minnum"),
    llvm.FCopySignOp: _intrinsic_op("llvm.copysign"),
    llvm.VectorReduceFAddOp: _vector_reduce("llvm.vector.reduce.fadd"),
    llvm.VectorReduceFMulOp: _vector_reduce("llvm.vector.reduce.fmul"),
    llvm.FMAOp: _fma,
    llvm.MaskedStoreOp: _masked_store,
    llvm.InsertElementOp: _insert_element,
    llvm.ShuffleVectorOp: _shuffle_vector,
    llvm.FNegOp: _fneg,
    llvm.CallOp: _call,
    llvm.AllocaOp: _alloca,
    llvm.LoadOp: _load,
    llvm.StoreOp: _store,
    llvm.ExtractValueOp: _extract_value,
    llvm.InsertValueOp: _insert_value,
    llvm.GEPOp: _gep,
    llvm.BrOp: _br,
    llvm.CondBrOp: _cond_br,
    llvm.UnreachableOp: _unreachable,
    llvm.SelectOp: _select,
    llvm.ReturnOp: _return,
    llvm.ZeroOp: _zero,
    llvm.UndefOp: _undef,
    llvm.AddressOfOp: _address_of,
    llvm.CallIntrinsicOp: _call_intrinsic,
    llvm.ConstantOp: _constant,
}
