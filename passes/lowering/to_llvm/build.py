"""Writing whole llvm-dialect functions: what the runtime-support passes
(``expand-vector-math``'s helpers, ``define-parallel-dispatchers``,
``add-jit-interface``) build, in the style of llvmlite's ``IRBuilder``.

``FunctionBuilder`` appends ops at the end of its current block; ``define``
gives a function (a new one, or a declaration already in the module) a body;
``declare`` adds an external declaration once. Function attributes LLVM
knows (``noinline``, ``returns_twice``, ``"key"="value"`` pairs) go in the
``passthrough`` attribute, as upstream MLIR spells them; the runtime's LLVM
translation applies them.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr, FloatAttr, IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr, i1, i8,
    i32, i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from irtoolkit.passes.lowering.to_llvm.common import call_op, extract_value_op, insert_value_op

PTR = llvm.LLVMPointerType()
VOID = llvm.LLVMVoidType()
I64 = i64  # (inside FunctionBuilder, `i64` is its method)


def function_type(inputs: Sequence[Attribute], output: Attribute | None = None) -> llvm.LLVMFunctionType:
    return llvm.LLVMFunctionType(list(inputs), VOID if output is None else output)


def set_passthrough(fn: llvm.FuncOp, *attrs: str | tuple[str, str]) -> None:
    """Add LLVM function attributes (``"noinline"``, ``("key", "value")``)."""
    old = fn.attributes.get("passthrough")
    items = list(old.data) if isinstance(old, ArrayAttr) else []
    for a in attrs:
        item = StringAttr(a) if isinstance(a, str) else ArrayAttr([StringAttr(a[0]), StringAttr(a[1])])
        if item not in items:
            items.append(item)
    fn.attributes["passthrough"] = ArrayAttr(items)


def _symbol(op: Operation) -> str | None:
    sym = op.properties.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


# module -> {symbol: weak reference to its op}, rebuilt on a miss: the runtime-support
# passes look the same few symbols up once per function, which a scan each made
# quadratic. Weak: an op refers to its module (parents), so a strong value would keep
# the key, and every module ever lowered, alive.
_SYMBOLS: weakref.WeakKeyDictionary[ModuleOp, dict[str, weakref.ref[Operation]]] = weakref.WeakKeyDictionary()


def lookup(module: ModuleOp, name: str) -> Operation | None:
    ref = _SYMBOLS.get(module, {}).get(name)
    found = ref() if ref is not None else None
    if found is not None and found.parent_op() is module and _symbol(found) == name:
        return found
    index = {sym: op for op in module.ops if (sym := _symbol(op)) is not None}
    _SYMBOLS[module] = {sym: weakref.ref(op) for sym, op in index.items()}
    return index.get(name)


# a function of the program moved aside from a C library name keeps its own here
SOURCE_NAME = "irt.source_name"
MOVED_PREFIX = "__irt_fn_"


# the ops that name a symbol (calls and address-of ops), tested by exact class:
# isinstance on an xDSL op class goes through ABCMeta, a measurable cost over a module
_SYMBOL_USER_TYPES = (llvm.CallOp, llvm.AddressOfOp)


def symbol_users(module: ModuleOp) -> list[Operation]:
    """The calls and address-of ops of ``module``, in one walk: what renaming a
    symbol updates (``redirect_symbols``) and what tells which symbols are used."""
    kinds = _SYMBOL_USER_TYPES
    return [op for op in module.walk() if type(op) in kinds]


def referenced_symbol(op: Operation) -> str | None:
    """The symbol a call (None for an indirect one) or an address-of op names."""
    if type(op) is llvm.CallOp:
        return op.callee.string_value() if op.callee is not None else None  # type: ignore[attr-defined]
    return op.global_name.root_reference.data  # type: ignore[attr-defined]


def redirect_symbols(module: ModuleOp, mapping: dict[str, str],
                     users: list[Operation] | None = None) -> bool:
    """Point calls and address-of ops (those of ``users``, by default all of the
    module's) at renamed symbols; True if any changed."""
    changed = False
    refs: dict[str, SymbolRefAttr] = {}  # one (immutable) attribute a new name, shared by its users
    for op in symbol_users(module) if users is None else users:
        name = referenced_symbol(op)
        if name is None or name not in mapping:
            continue
        ref = refs.get(name)
        if ref is None:
            ref = refs[name] = SymbolRefAttr(mapping[name])
        if type(op) is llvm.CallOp:
            op.callee = ref  # type: ignore[attr-defined]
        else:
            op.global_name = ref  # type: ignore[attr-defined]
        changed = True
    return changed


def move_aside(module: ModuleOp, *fns: llvm.FuncOp,
               users: list[Operation] | None = None) -> list[str]:
    """Rename each of ``fns`` to a free ``__irt_fn_<name>`` (their uses follow:
    ``users``, by default one walk of the module; each keeps its name in
    ``irt.source_name``); returns the new names."""
    taken = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    mapping: dict[str, str] = {}
    for fn in fns:
        old = fn.sym_name.data
        new = MOVED_PREFIX + old
        while new in taken:
            new = "_" + new
        taken.add(new)
        if SOURCE_NAME not in fn.attributes:
            fn.attributes[SOURCE_NAME] = StringAttr(old)
        fn.sym_name = StringAttr(new)
        mapping[old] = new
    redirect_symbols(module, mapping, users)
    return list(mapping.values())


def declare(module: ModuleOp, name: str, fty: llvm.LLVMFunctionType,
            *passthrough: str) -> llvm.FuncOp:
    """The external function ``name`` (a C library function), declared in
    ``module`` if missing. A function of the program defined under that name is
    moved aside first (``move_aside``): the C library's is the one meant, and
    LLVM's own library calls would bind to the program's."""
    found = lookup(module, name)
    if isinstance(found, llvm.FuncOp):
        if not found.body.blocks:
            return found
        move_aside(module, found)
    decl = llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr("external"))
    if passthrough:
        set_passthrough(decl, *passthrough)
    module.body.block.add_op(decl)
    return decl


def define(module: ModuleOp, name: str, fty: llvm.LLVMFunctionType, linkage: str = "internal",
           *passthrough: str | tuple[str, str]) -> tuple[llvm.FuncOp, FunctionBuilder]:
    """A function ``name`` with an empty entry block: a declaration already in
    ``module`` gets the body, otherwise a new function is added."""
    found = lookup(module, name)
    if isinstance(found, llvm.FuncOp) and not found.body.blocks:
        fn = found
        fn.linkage = llvm.LinkageAttr(linkage)
    else:
        fn = llvm.FuncOp(name, fty, linkage=llvm.LinkageAttr(linkage))
        module.body.block.add_op(fn)
    entry = Block(arg_types=list(fn.function_type.inputs))
    fn.body.add_block(entry)
    if passthrough:
        set_passthrough(fn, *passthrough)
    return fn, FunctionBuilder(fn, entry)


def global_string(module: ModuleOp, name: str, text: bytes) -> None:
    """A private constant NUL-terminated string ``@name`` (once)."""
    if lookup(module, name) is None:
        data = text + b"\0"
        module.body.block.add_op(llvm.GlobalOp(
            llvm.LLVMArrayType(len(data), i8), name, "internal", constant=True,
            value=StringAttr(data.decode("latin-1"))))


class FunctionBuilder:
    """Appends ops to the end of ``block`` (``at`` moves it) of function ``fn``."""

    def __init__(self, fn: llvm.FuncOp, block: Block):
        self.fn = fn
        self.block = block

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return tuple(self.fn.body.blocks[0].args)

    # -- blocks -------------------------------------------------------------------
    def new_block(self, arg_types: Sequence[Attribute] = ()) -> Block:
        b = Block(arg_types=list(arg_types))
        self.fn.body.add_block(b)
        return b

    def at(self, block: Block) -> FunctionBuilder:
        self.block = block
        return self

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    # -- constants ----------------------------------------------------------------
    def const(self, value: int | float, t: Attribute = I64) -> SSAValue:
        if isinstance(t, IntegerType):
            width = t.width.data
            value = int(value)
            if width == 1:
                value = 1 if value else 0
            elif value >= 1 << (width - 1):
                value -= 1 << width
            return self.emit(llvm.ConstantOp(IntegerAttr(value, t), t))
        return self.emit(llvm.ConstantOp(FloatAttr(float(value), t), t))  # type: ignore[arg-type]

    def i64(self, value: int) -> SSAValue:
        return self.const(value, i64)

    def i32(self, value: int) -> SSAValue:
        return self.const(value, i32)

    def true(self) -> SSAValue:
        return self.const(1, i1)

    def null(self) -> SSAValue:
        return self.emit(llvm.ZeroOp.create(result_types=[PTR]))

    def addressof(self, name: str) -> SSAValue:
        return self.emit(llvm.AddressOfOp(name, PTR))

    # -- arithmetic and conversions -------------------------------------------------
    def add(self, a, b): return self.emit(llvm.AddOp(a, b))
    def sub(self, a, b): return self.emit(llvm.SubOp(a, b))
    def mul(self, a, b): return self.emit(llvm.MulOp(a, b))
    def sdiv(self, a, b): return self.emit(llvm.SDivOp(a, b))
    def and_(self, a, b): return self.emit(llvm.AndOp(a, b))
    def or_(self, a, b): return self.emit(llvm.OrOp(a, b))
    def fadd(self, a, b, *flags: str):
        fm = llvm.FastMathAttr([llvm.FastMathFlag(f) for f in flags] or None)  # type: ignore[arg-type]
        return self.emit(llvm.FAddOp(a, b, fm))

    def icmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.ICmpOp(a, b, IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)))

    def fcmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.FCmpOp(a, b, pred))

    def is_null(self, p: SSAValue) -> SSAValue:
        return self.icmp("eq", self.ptrtoint(p), self.i64(0))

    def select(self, c, a, b): return self.emit(llvm.SelectOp(c, a, b))
    def zext(self, v, t): return self.emit(llvm.ZExtOp(v, t))
    def trunc(self, v, t): return self.emit(llvm.TruncOp(v, t))
    def bitcast(self, v, t): return self.emit(llvm.BitcastOp(v, t))
    def ptrtoint(self, p, t: Attribute = I64): return self.emit(llvm.PtrToIntOp(p, t))
    def inttoptr(self, v): return self.emit(llvm.IntToPtrOp(v))

    def extract(self, agg: SSAValue, pos: int, t: Attribute) -> SSAValue:
        return self.emit(extract_value_op(agg, [pos], t))

    def insert(self, agg: SSAValue, v: SSAValue, pos: int) -> SSAValue:
        return self.emit(insert_value_op(agg, v, [pos]))

    def undef(self, t: Attribute) -> SSAValue:
        return self.emit(llvm.UndefOp(t))

    # -- memory -------------------------------------------------------------------
    def alloca(self, elem: Attribute, count: int = 1, align: int = 16) -> SSAValue:
        """At the start of the entry block (a fixed frame slot, not a loop's)."""
        entry = self.fn.body.blocks[0]
        n = llvm.ConstantOp(IntegerAttr(count, i64), i64)
        slot = llvm.AllocaOp(n, elem, alignment=align)
        first = entry.first_op
        if first is None:
            entry.add_ops([n, slot])
        else:
            entry.insert_ops_before([n, slot], first)
        return slot.results[0]

    def gep(self, p: SSAValue, offset: int | SSAValue, elem: Attribute = i8) -> SSAValue:
        """``p + offset`` elements of type ``elem`` (bytes by default)."""
        if isinstance(offset, int):
            return self.emit(llvm.GEPOp(p, [offset], elem, inbounds=True))
        return self.emit(llvm.GEPOp(p, [llvm.GEP_USE_SSA_VAL], elem, ssa_indices=[offset],
                                    inbounds=True))

    def load(self, p: SSAValue, t: Attribute, ordering: int = 0, align: int | None = None) -> SSAValue:
        return self.emit(llvm.LoadOp(p, t, alignment=8 if ordering and align is None else align,
                                     ordering=ordering))

    def store(self, v: SSAValue, p: SSAValue, ordering: int = 0, align: int | None = None) -> None:
        self.emit(llvm.StoreOp(v, p, alignment=8 if ordering and align is None else align,
                               ordering=ordering))

    # -- calls and control flow ---------------------------------------------------
    def call(self, callee: str, args: Sequence[SSAValue], ret: Attribute | None = None) -> SSAValue:
        return self.emit(call_op(callee, args, ret))

    def intrinsic(self, name: str, args: Sequence[SSAValue], ret: Attribute | None) -> SSAValue:
        return self.emit(llvm.CallIntrinsicOp(name, list(args), [] if ret is None else [ret]))

    def br(self, dest: Block, *args: SSAValue) -> None:
        self.emit(llvm.BrOp(dest, *args))

    def cond_br(self, c: SSAValue, then: Block, other: Block,
                then_args: Sequence[SSAValue] = (), other_args: Sequence[SSAValue] = ()) -> None:
        self.emit(llvm.CondBrOp(c, then, list(then_args), other, list(other_args)))

    def ret(self, v: SSAValue | None = None) -> None:
        self.emit(llvm.ReturnOp(v))

    def unreachable(self) -> None:
        self.emit(llvm.UnreachableOp())

    def counted_loop(self, start: SSAValue, stop: SSAValue, body) -> None:
        """``for i in [start, stop): body(i)``; ends positioned after the loop."""
        head = self.new_block([i64])
        inner = self.new_block()
        done = self.new_block()
        self.br(head, start)
        self.at(head)
        i = head.args[0]
        self.cond_br(self.icmp("slt", i, stop), inner, done)
        self.at(inner)
        body(i)
        self.br(head, self.add(i, self.i64(1)))
        self.at(done)


def module_of(op: Operation) -> ModuleOp:
    while not isinstance(op, ModuleOp):
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


__all__ = ["PTR", "VOID", "SOURCE_NAME", "FunctionBuilder", "declare", "define", "function_type",
           "global_string", "lookup", "module_of", "move_aside", "redirect_symbols",
           "referenced_symbol", "set_passthrough", "symbol_users"]
