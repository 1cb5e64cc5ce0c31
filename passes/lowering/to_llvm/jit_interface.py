"""``add-jit-interface``: what the JIT needs in an llvm-dialect module to call it from Python.

The JIT (``irtoolkit.runtime``) runs this pass after ``lower-to-llvm``; object
files for C (``irt-opt --emit obj``) do without it. It

* renames every function defined in the module ``__irt_fn_<name>`` (runtime
  helpers ``__irt_*`` excepted): LLVM lowers intrinsics to C library calls
  (``llvm.pow.f64`` to ``pow``) that would otherwise bind to a user function
  of the same name;
* adds ``i64 @_irt_call_<name>(ptr frame)`` for every public function whose
  arguments and results fit the frame (scalars, memref descriptors): the frame
  is an array of 8-byte words, one slot per argument then one per result
  (``abi.descriptor_words`` for a memref, one word for a scalar, ``i1`` as one
  byte 0/1), then ``abi.FRAME_TAIL_WORDS`` (error words, stack limit). The
  wrapper loads the arguments, calls the function, stores the results and
  returns ``abi.OK``;
* when the module can fail at run time, the wrapper keeps a ``jmp_buf`` (found
  under the pthread key at ``abi.TLS_KEY_SYMBOL``, so that concurrent calls
  from several threads each find their own): a failure stores its status and
  details after it and ``longjmp``s back; the wrapper frees every buffer the
  call allocated and has not freed, copies the details to the frame's error
  words and returns the status. All but ``_setjmp``, which must run in the
  wrapper's frame, is done by the functions of ``abi.CALL_HELPER_SYMBOLS``
  (``@__irt_enter``, ``@__irt_leave``, ``@__irt_fail`` and those below): their
  code is the same for every module, so the JIT builds it once per process
  (``runtime/support.py``, where it is written) and a module only declares the
  ones it calls (``declare_call_helpers``). The failures:

  - ``malloc`` through ``@__irt_malloc``: a null result for a non-zero size,
    or a negative size (``abi.FAILED_ALLOCATION``); it also lists each buffer
    for the call (``@__irt_free`` drops one);
  - ``@__irt_check_failed`` (a failed ``cf.assert``, see ``cf.py``): the
    message and the two compared values (``abi.FAILED_CHECK``; outside a
    wrapper it prints the message and aborts);
  - recursion: every function on a cycle of the call graph compares the stack
    pointer with the frame's stack limit on entry (``abi.STACK_EXHAUSTED``);
  - SIGINT: loops that LLVM could not vectorize anyway (``loop.while``, loops
    holding another loop or a call, loops of unknown origin) and recursive
    functions poll the counter ``abi.INTERRUPTS_SYMBOL``; a change since the
    call began stops it (``abi.INTERRUPTED``). A loop's poll is a call of
    ``@__irt_poll`` at the end of its latch, which LLVM inlines (one op and one
    line of LLVM IR a loop, where the test written out was seven): the module
    defines it, reading the counter and calling ``@__irt_interrupted`` when it
    is not 0 (a recursive function's ``@__irt_check_stack`` tests it). Counted
    innermost loops are not polled: they end by themselves and stay vectorizable.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    Float16Type, Float32Type, Float64Type, IntegerAttr, IntegerType, ModuleOp, StringAttr,
    i1, i8, i32, i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from irtoolkit.abi import (
    CALL_BUFFER_WORDS, CHECK_STACK_SYMBOL, ENTER_SYMBOL, ENTRY_PREFIX, FAIL_SYMBOL, FRAME_TAIL_WORDS,
    GUARDED_MALLOC_SYMBOL, INTERRUPTED_SYMBOL, INTERRUPTS_SYMBOL, LEAVE_SYMBOL, TRACKED_FREE_SYMBOL,
    UNOPTIMIZED_AT_TIER0, descriptor_words,
)
from irtoolkit.passes.lowering.to_llvm.build import (
    PTR, SOURCE_NAME, FunctionBuilder, declare, define, function_type, lookup, move_aside,
    redirect_symbols, referenced_symbol, symbol_users,
)
from irtoolkit.passes.lowering.to_llvm.common import call_op
from irtoolkit.passes.lowering.loop_to_cf import LATCH
from irtoolkit.passes.lowering.to_llvm.cf import CHECK_FAILED

RESERVED_PREFIXES = ("__irt_", "irt_vm_")  # runtime helpers: never renamed, never entries
POLL_CHECK = "__irt_poll"


# --------------------------------------------------------------------------- renaming


def mangle_functions(module: ModuleOp, users: list[Operation] | None = None) -> None:
    """Move every function defined in ``module`` aside (runtime helpers excepted);
    ``users``: the module's ``symbol_users``, if known."""
    move_aside(module, *(op for op in module.ops if isinstance(op, llvm.FuncOp) and op.body.blocks
                         and not op.sym_name.data.startswith(RESERVED_PREFIXES)), users=users)


def source_name(fn: llvm.FuncOp) -> str | None:
    """The program's name of a function (None for a runtime helper)."""
    moved = fn.attributes.get(SOURCE_NAME)
    if isinstance(moved, StringAttr):
        return moved.data
    name = fn.sym_name.data
    return None if name.startswith(RESERVED_PREFIXES) else name


# --------------------------------------------------------------------------- the shared helpers


def declare_call_helpers(module: ModuleOp, guarded: bool, tracked_free: bool, checked: bool,
                         recursive: bool, polled: bool) -> None:
    """Declare the shared runtime's functions (``abi.CALL_HELPER_SYMBOLS``,
    ``runtime/support.py``) that the module calls, and ``_setjmp``; the portable
    check handler of ``cf.py``, if defined, gives way to the runtime's."""
    declare(module, "_setjmp", function_type([PTR], i32), "returns_twice")
    declare(module, ENTER_SYMBOL, function_type([PTR, PTR]))
    declare(module, LEAVE_SYMBOL, function_type([PTR, i1]))
    declare(module, FAIL_SYMBOL, function_type([PTR, PTR], i64), "cold")
    if guarded:
        declare(module, GUARDED_MALLOC_SYMBOL, function_type([i64], PTR))
    if tracked_free:
        declare(module, TRACKED_FREE_SYMBOL, function_type([PTR]))
    if checked:
        fn = lookup(module, CHECK_FAILED)
        if isinstance(fn, llvm.FuncOp) and fn.body.blocks:
            module.body.block.erase_op(fn, safe_erase=False)  # (its calls refer to it by name)
        declare(module, CHECK_FAILED, function_type([PTR, i64, i64, i64]), "noreturn", "cold")
    if recursive:
        declare(module, CHECK_STACK_SYMBOL, function_type([i64]))
    if polled:
        declare(module, INTERRUPTED_SYMBOL, function_type([]), "cold")


# --------------------------------------------------------------------------- entry points


def is_descriptor(t: Attribute) -> bool:
    """A memref descriptor ``{ptr, ptr, i64[, [R x i64], [R x i64]]}``."""
    if not isinstance(t, llvm.LLVMStructType):
        return False
    ts = list(t.types)
    if ts[:3] != [PTR, PTR, i64] or len(ts) not in (3, 5):
        return False
    return len(ts) == 3 or (isinstance(ts[3], llvm.LLVMArrayType) and ts[3] == ts[4]
                             and ts[3].type == i64)


def _frame_words(t: Attribute) -> int | None:
    """Words of a value's frame slot, None if it cannot cross the boundary."""
    if is_descriptor(t):
        types = t.types.data  # type: ignore[attr-defined]
        rank = 0 if len(types) == 3 else types[3].size.data
        return descriptor_words(rank)
    if isinstance(t, IntegerType) and t.width.data in (1, 8, 16, 32, 64):
        return 1
    if isinstance(t, (Float16Type, Float32Type, Float64Type)):
        return 1
    return None


def _results(fty: llvm.LLVMFunctionType) -> list[Attribute]:
    out = fty.output
    if isinstance(out, llvm.LLVMVoidType):
        return []
    if isinstance(out, llvm.LLVMStructType) and not is_descriptor(out):
        return list(out.types)
    return [out]


def add_entry_point(module: ModuleOp, name: str, fn: llvm.FuncOp, guarded: bool) -> bool:
    """``i64 @_irt_call_<name>(ptr frame)`` calling ``fn``; False (nothing added)
    when a type does not fit the frame. ``guarded``: with a jmp_buf (the module
    declares the helpers: ``declare_call_helpers``)."""
    fty = fn.function_type
    ins, outs = list(fty.inputs), _results(fty)
    words = [_frame_words(t) for t in (*ins, *outs)]
    if any(w is None for w in words):
        return False
    wrapper, b = define(module, ENTRY_PREFIX + name, function_type([PTR], i64), "external",
                        UNOPTIMIZED_AT_TIER0)
    wrapper.attributes["irt.frame_words"] = IntegerAttr(sum(words) + FRAME_TAIL_WORDS, i64)  # type: ignore[arg-type]
    (frame,) = b.args
    offsets = [sum(words[:k]) * 8 for k in range(len(words))]
    buf = None
    if guarded:
        buf = b.alloca(llvm.LLVMArrayType(CALL_BUFFER_WORDS, i64))
        tail = b.gep(frame, sum(words) * 8)
        b.call(ENTER_SYMBOL, [buf, tail])
        jumped = b.call("_setjmp", [buf], i32)
        failed, run = b.new_block(), b.new_block()
        b.cond_br(b.icmp("ne", jumped, b.i32(0)), failed, run)
        b.at(failed)
        b.ret(b.call(FAIL_SYMBOL, [buf, tail], i64))
        b.at(run)
    args = []
    for t, off in zip(ins, offsets):
        p = b.gep(frame, off) if off else frame
        if t == i1:
            args.append(b.trunc(b.load(p, i8), i1))
        else:
            args.append(b.load(p, t))
    out = fty.output
    result = b.call(fn.sym_name.data, args, None if isinstance(out, llvm.LLVMVoidType) else out)
    for j, (t, off) in enumerate(zip(outs, offsets[len(ins):])):
        v = result if len(outs) == 1 else b.extract(result, j, t)
        p = b.gep(frame, off) if off else frame
        b.store(b.zext(v, i8) if t == i1 else v, p)
    if guarded:
        assert buf is not None
        b.call(LEAVE_SYMBOL, [buf, b.const(0, i1)])  # (the list only: the live buffers are results)
    b.ret(b.i64(0))
    return True


# --------------------------------------------------------------------------- stack and SIGINT


MONOTONIC = 2  # LLVM's atomic ordering code


def _interrupts(b: FunctionBuilder) -> SSAValue:
    """The process's interrupt count (an atomic read: another thread writes it)."""
    module = b.fn.parent_op()
    assert isinstance(module, ModuleOp)
    if lookup(module, INTERRUPTS_SYMBOL) is None:
        module.body.block.add_op(llvm.GlobalOp(i64, INTERRUPTS_SYMBOL, "external"))
    return b.load(b.addressof(INTERRUPTS_SYMBOL), i64, ordering=MONOTONIC)


def define_poll(module: ModuleOp) -> None:
    """``void @__irt_poll()``, what a loop calls on its back edge: ``@__irt_interrupted``
    when the interrupt count is not 0. ``alwaysinline``: each loop gets the load and
    test of its own (as if written there), from one op and one line of LLVM IR a loop."""
    _, b = define(module, POLL_CHECK, function_type([]), "internal", "alwaysinline")
    slow, done = b.new_block(), b.new_block()
    b.cond_br(b.icmp("ne", _interrupts(b), b.i64(0)), slow, done)
    b.at(slow)
    b.call(INTERRUPTED_SYMBOL, [])
    b.br(done)
    b.at(done)
    b.ret()


def _program_calls(module: ModuleOp, users: list[Operation],
                   user: set[str]) -> list[tuple[llvm.FuncOp, Block, str]]:
    """(caller, its block, callee) of every call among ``users`` (the module's
    ``symbol_users``) of a function of ``user``."""
    calls = []
    for op in users:
        if type(op) is not llvm.CallOp or (callee := referenced_symbol(op)) not in user:
            continue
        block = op.parent_block()
        caller = block.parent_op() if block is not None else None
        while caller is not None and caller.parent_op() is not module:
            block = caller.parent_block()
            caller = block.parent_op() if block is not None else None
        if isinstance(caller, llvm.FuncOp):
            calls.append((caller, op.parent_block(), callee))
    return calls


def recursive_functions(functions: list[llvm.FuncOp],
                        calls: list[tuple[llvm.FuncOp, Block, str]]) -> list[llvm.FuncOp]:
    """The functions on a cycle of the call graph (``calls``: ``_program_calls``)."""
    from irtoolkit.passes.transforms.inline import cyclic_nodes

    graph: dict[str, set[str]] = {f.sym_name.data: set() for f in functions}
    for caller, _, callee in calls:
        edges = graph.get(caller.sym_name.data)
        if edges is not None and callee in graph:
            edges.add(callee)
    cyclic = cyclic_nodes(graph)
    return [f for f in functions if f.sym_name.data in cyclic]


def check_stack_on_entry(fn: llvm.FuncOp) -> None:
    entry = fn.body.blocks[0]
    sp = llvm.CallIntrinsicOp("llvm.stacksave.p0", [], [PTR])
    addr = llvm.PtrToIntOp(sp.results[0], i64)
    call = llvm.CallOp(CHECK_STACK_SYMBOL, addr.results[0])
    first = entry.first_op
    assert first is not None
    entry.insert_ops_before([sp, addr, call], first)


def _back_edges(fn: llvm.FuncOp) -> list[tuple[Block, Block]]:
    """(latch, header) of each loop of ``fn``: edges to a block on the DFS path."""
    entry = fn.body.blocks[0]
    edges: list[tuple[Block, Block]] = []
    seen = {entry}
    path = {entry}
    work = [(entry, iter(_successors(entry)))]
    while work:
        block, it = work[-1]
        nxt = next(it, None)
        if nxt is None:
            work.pop()
            path.discard(block)
        elif nxt in path:
            edges.append((block, nxt))
        elif nxt not in seen:
            seen.add(nxt)
            path.add(nxt)
            work.append((nxt, iter(_successors(nxt))))
    return edges


def _successors(block: Block) -> list[Block]:
    last = block.last_op
    return list(last.successors) if last is not None else []


def _loop_body(latch: Block, header: Block, preds: dict[Block, list[Block]]) -> set[Block]:
    body = {header, latch}
    work = [latch]
    while work:
        for p in preds.get(work.pop(), ()):
            if p not in body:
                body.add(p)
                work.append(p)
    return body


def _needs_poll(latch: Block, header: Block, body: set[Block], headers: set[Block],
                calling: set[Block]) -> bool:
    """A loop that may not end by itself, or that is not innermost anyway, or
    that has a block of ``calling`` (those that call a function of the program)."""
    branch = latch.last_op
    kind = branch.attributes.get(LATCH) if branch is not None else None
    if not (isinstance(kind, StringAttr) and kind.data == "for"):
        return True  # a while loop, or one of unknown origin
    if len(headers & body) > 1:  # another header than its own (in both sets)
        return True  # an outer loop
    return not calling.isdisjoint(body)


def poll_loops(fn: llvm.FuncOp, calling: set[Block]) -> int:
    """Insert an interrupt poll (a call of ``@__irt_poll``)
    at the end of the latch of ``fn``'s loops that need one (``calling``: the
    blocks that call a function of the program). One op a loop: LLVM inlines the
    check (see ``define_poll``); where the latch also leaves the loop, the way
    out polls once too."""
    edges = _back_edges(fn)
    if not edges:
        return 0
    preds: dict[Block, list[Block]] = {}
    for block in fn.body.blocks:
        for s in _successors(block):
            preds.setdefault(s, []).append(block)
    headers = {h for _, h in edges}
    polled: set[Block] = set()  # (a latch of two loops polls once)
    for latch, header in edges:
        if latch in polled or not _needs_poll(
                latch, header, _loop_body(latch, header, preds), headers, calling):
            continue
        branch = latch.last_op
        assert branch is not None
        latch.insert_op_before(call_op(POLL_CHECK, ()), branch)
        polled.add(latch)
    return len(polled)


# --------------------------------------------------------------------------- the pass


def add_jit_interface(module: ModuleOp) -> dict[str, str]:
    """The whole pass (see the module doc); returns the entry point of each
    public function that got one."""
    public = [(source_name(op), op) for op in module.ops
              if isinstance(op, llvm.FuncOp) and op.body.blocks
              and op.linkage.linkage.data not in ("internal", "private")
              and source_name(op) is not None]
    # the calls and address-of ops, collected once: renaming follows them, and they
    # tell what the program calls (the ops this pass adds call none of the symbols
    # looked up below)
    users = symbol_users(module)
    mangle_functions(module, users)
    # the program's own functions: runtime helpers and outlined parallel loops
    # (which run on worker threads) neither recurse nor poll
    program = [op for op in module.ops if isinstance(op, llvm.FuncOp) and op.body.blocks
               and SOURCE_NAME in op.attributes]
    user = {f.sym_name.data for f in program}
    calls = _program_calls(module, users, user)
    recursive = recursive_functions(program, calls)
    for fn in recursive:
        check_stack_on_entry(fn)
    calling = {block for _, block, _ in calls}
    polled = sum(poll_loops(fn, calling) for fn in program)
    referenced = {referenced_symbol(op) for op in users}
    checked = CHECK_FAILED in referenced
    guarded = "malloc" in referenced
    tracked_free = guarded and "free" in referenced
    if guarded:
        redirect_symbols(module, {"malloc": GUARDED_MALLOC_SYMBOL, "free": TRACKED_FREE_SYMBOL}
                         if tracked_free else {"malloc": GUARDED_MALLOC_SYMBOL}, users)
    jumps = guarded or checked or bool(recursive) or bool(polled)
    if jumps:
        declare_call_helpers(module, guarded, tracked_free, checked, bool(recursive), bool(polled))
    if polled:
        define_poll(module)
    entries = {}
    for name, fn in public:
        if add_entry_point(module, name, fn, jumps):
            entries[name] = ENTRY_PREFIX + name
    return entries


@dataclass(frozen=True)
class AddJitInterfacePass(ModulePass):
    """Entry points, failures that raise in Python, interrupt polls and stack
    checks for the JIT (see the module doc)."""

    name = "add-jit-interface"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if any(isinstance(o, llvm.FuncOp) and o.sym_name.data.startswith(ENTRY_PREFIX)
               for o in op.ops):
            return  # applied already
        add_jit_interface(op)
