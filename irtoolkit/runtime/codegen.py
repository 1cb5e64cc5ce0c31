"""LLVM IR -> object code: one object per group of entry points, built in parallel.

The executable builds the code of an entry point when it is first called
(``Executable._ensure_built``; the next such call builds all the others): a build plans its groups among what its entry
points reach, with the functions earlier builds export declared only (they
are linked from those builds' objects), so one entry alone still spreads over
the cores (``plan``: functions of at least SPLIT_FLOOR instructions are split
off while that balances the groups better).

A module's entry points (the ``_irt_call_*`` wrappers) are split into as many
groups as there are cores. Each group compiles the whole module text with only
its own entry points exported: every other definition becomes internal, so
LLVM's dead-global elimination drops what only the other groups reach, and a
group optimizes and emits its own code only (a helper that several groups call
is compiled once in each, as a private copy) -- except functions of at least
SPLIT_MIN_SIZE instructions, which one group exports and the others declare
(the gradient function and the outlined parallel loops would otherwise all
land in the gradient's group). MCJIT links the objects into one engine. On two cores this nearly halves LLVM's share of a first call, which is
most of it (bench W1: 100 -> 55 ms for its ``@loss`` and ``@grad``).

llvmlite serializes every call into LLVM behind one process-wide lock. The two
calls that take the time -- the pass pipeline and machine-code emission -- are
made on the underlying ctypes function instead (ctypes releases the GIL), which
is sound because each group owns its LLVMContext, module and target machine:
the context is LLVM's unit of thread isolation.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import Any

from irtoolkit.abi import KERNEL_PREFIX


@dataclass
class CompiledGroup:
    entries: tuple[str, ...]
    obj: bytes
    optimized_ir: str | None  # the optimized LLVM IR, when asked for


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: A function of at least this many instructions is compiled in one group only
#: (exported there, declared in the others) rather than copied into each group
#: that reaches it: the gradient function, outlined parallel loops. Without it a
#: gradient's group held nearly all of the code and the other core idled (bench
#: W7: 10,500 of 15,000 lines of LLVM IR in one group; 6,900 with it).
SPLIT_MIN_SIZE = 500


#: Below SPLIT_MIN_SIZE, a function of at least this many instructions is split
#: off too (exported by one group, declared in the others) when that balances the
#: groups better: the code one entry point reaches would otherwise be one group
#: (bench W1's gradient: its outlined parallel loop, 148 of 484 instructions, in
#: one group, the rest in the other). Vector-math kernels (``abi.KERNEL_PREFIX``)
#: never are: they are called in hot loops, which must inline them.
SPLIT_FLOOR = 100


def plan_groups(llmod, entries: Sequence[str],
                graph: tuple[dict[str, int], dict[str, set[str]]] | None = None) -> list[tuple[str, ...]]:
    """The codegen groups of all of an llvmlite.ir module's ``entries`` (its
    globals at least, with its ``call_graph`` given when the functions have no
    instructions there): ``plan`` over the cores, one group for a module with
    mutable state."""
    cores = 1 if mutable_state(llmod) else available_cores()
    return plan(graph or call_graph(llmod), entries, cores)


def plan(graph: tuple[dict[str, int], dict[str, set[str]]], entries: Sequence[str], cores: int,
         declared: Set[str] = frozenset()) -> list[tuple[str, ...]]:
    """The codegen groups that build ``entries``: at most ``cores``, of about
    equal code size, each a tuple of the functions it exports (entry points,
    functions of at least SPLIT_MIN_SIZE instructions, and those SPLIT_FLOOR
    ones that balance the groups better), group 0 one that calls no other
    group's functions if there is one (it may compile the module text as it
    is: see compile_groups). ``declared``: functions built already (another
    object exports them), declared only and not split off again."""
    if cores == 1 or not entries:
        return [tuple(entries)]
    size, callees = graph
    reach = reachable(callees, entries, stop=set(declared))
    splittable = [n for n in reach if n not in entries and n not in declared
                  and size.get(n, 0) >= SPLIT_FLOOR and not n.startswith(KERNEL_PREFIX)]
    roots = [*entries, *sorted(n for n in splittable if size[n] >= SPLIT_MIN_SIZE)]

    def grouped(roots: list[str]) -> tuple[int, list[tuple[str, ...]]]:
        stop = {*roots, *declared}
        groups = group_entries(reachable_sizes(None, roots, stop, graph), cores)
        # a group's code: what its roots reach, shared callees counted once
        return max(sum(size.get(f, 0) for f in reachable(callees, g, stop) if f in g or f not in stop)
                   for g in groups), groups

    heaviest, groups = grouped(roots)
    for name in sorted((n for n in splittable if size[n] < SPLIT_MIN_SIZE),
                       key=lambda n: (-size[n], n)):
        trial = grouped([*roots, name])
        if trial[0] <= heaviest - SPLIT_FLOOR // 2:  # worth a call that is not inlined
            roots.append(name)
            heaviest, groups = trial
    reaches = {g: reachable(callees, g, stop=set(roots)) for g in groups}
    calls_others = {g: any(r in reaches[g] for other in groups if other is not g for r in other)
                    for g in groups}
    return sorted(groups, key=calls_others.__getitem__)


def group_entries(sizes: dict[str, int], groups: int) -> list[tuple[str, ...]]:
    """Entry points in at most ``groups`` groups of about equal code size
    (longest first, each to the lightest group)."""
    bins: list[tuple[int, list[str]]] = [(0, []) for _ in range(max(1, min(groups, len(sizes))))]
    for name in sorted(sizes, key=lambda n: (-sizes[n], n)):
        k = min(range(len(bins)), key=lambda i: bins[i][0])
        bins[k] = (bins[k][0] + sizes[name], bins[k][1] + [name])
    return [tuple(names) for _, names in bins if names] or [()]


def mutable_state(llmod) -> list[str]:
    """The program's mutable globals (``memref.global`` without ``constant``) in an
    llvmlite.ir module: groups would each get a copy of them, so a module that has
    any compiles as one group. (The runtime's own, ``__irt_*``, are caches that
    may be duplicated.)"""
    from llvmlite import ir

    return [g.name for g in llmod.global_values
            if isinstance(g, ir.GlobalVariable) and g.initializer is not None
            and not g.global_constant and not g.name.startswith(("__irt_", "llvm."))]


def call_graph(llmod) -> tuple[dict[str, int], dict[str, set[str]]]:
    """Of each function of an llvmlite.ir module: its number of instructions,
    and the functions it calls or takes the address of."""
    from llvmlite import ir

    size: dict[str, int] = {}
    callees: dict[str, set[str]] = {}
    for fn in llmod.functions:
        n = 0
        out: set[str] = set()
        for block in fn.blocks:
            n += len(block.instructions)
            for inst in block.instructions:
                for v in getattr(inst, "operands", ()):
                    if isinstance(v, ir.Function):
                        out.add(v.name)
        size[fn.name] = n
        callees[fn.name] = out
    return size, callees


def reachable(callees: dict[str, set[str]], roots: Sequence[str], stop: set[str] = frozenset()) -> set[str]:
    """The functions ``roots`` reach; past a function of ``stop`` (not a root) no further."""
    seen = set(roots)
    stack = list(roots)
    while stack:
        f = stack.pop()
        if f in stop and f not in roots:
            continue
        for c in callees.get(f, ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def reachable_sizes(llmod, roots: Sequence[str], stop: set[str] = frozenset(),
                    graph: tuple[dict[str, int], dict[str, set[str]]] | None = None) -> dict[str, int]:
    """For each root function of an llvmlite.ir module, the number of
    instructions of the functions it reaches (calls and function pointers),
    those of ``stop`` other than itself left out (they are compiled elsewhere)."""
    size, callees = graph or call_graph(llmod)
    return {root: sum(size.get(f, 0) for f in reachable(callees, [root], stop)
                      if f == root or f not in stop)
            for root in roots}


def declare_only(text: str, names: set[str]) -> str:
    """LLVM IR ``text`` (as llvmlite prints it) with the definitions of the
    functions ``names`` turned into declarations."""
    if not names:
        return text
    out: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if skipping:
            skipping = line != "}"
            continue
        if line.startswith("define ") and "@" in line:
            name = line.split("@", 1)[1].split("(", 1)[0].strip('"')
            if name in names:
                head = line[len("define "):]
                if head.startswith(("internal ", "private ")):
                    head = head.split(" ", 1)[1]
                out.append("declare " + head)
                skipping = True
                continue
        out.append(line)
    return "\n".join(out)


def _unlocked(fn):
    """The ctypes function behind an llvmlite binding, without llvmlite's lock."""
    return getattr(fn, "_cfn", fn)


def _export_only(llvm, mod, keep: set[str], elsewhere: Set[str] = frozenset()) -> None:
    for fn in mod.functions:
        if not fn.is_declaration:
            if fn.name in elsewhere:
                # compiled elsewhere: a declaration in effect (llvmlite cannot delete a
                # body), neither optimized (optnone), inlined nor emitted
                # (available_externally). Group 0 would otherwise compile private copies
                # of the functions it calls (bench W7: the gradient function calls the
                # outlined loops another group exports; its group's LLVM time doubled)
                # or parse the text again, declaring them (W7: ~20 ms before its LLVM work)
                fn.linkage = llvm.Linkage.available_externally
                fn.add_function_attribute("noinline")
                fn.add_function_attribute("optnone")
            elif fn.name not in keep:
                fn.linkage = llvm.Linkage.internal
            elif fn.linkage in (llvm.Linkage.internal, llvm.Linkage.private):
                fn.linkage = llvm.Linkage.external  # another group calls it
    for gv in mod.global_variables:
        if (not gv.is_declaration and not gv.name.startswith("llvm.")
                and gv.linkage == llvm.Linkage.external):
            gv.linkage = llvm.Linkage.internal


def _build(llvm, mod, tm, opt: int, unroll: bool, keep: set[str] | None,
           parallel: bool, assembly: bool = False,
           in_llvm: threading.Event | None = None, elsewhere: Set[str] = frozenset()) -> bytes:
    """Optimize ``mod`` and emit its object code (or assembly text); with
    ``keep``, every other definition is made internal first. ``in_llvm`` is set
    once the rest is LLVM's work, without the GIL."""
    from llvmlite.binding import ffi

    def call(fn):
        return _unlocked(fn) if parallel else fn

    if keep is not None:
        _export_only(llvm, mod, keep, elsewhere)
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    if in_llvm is not None:
        in_llvm.set()
    if opt > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=min(opt, 3))
        # measured on bench W1-W5 (see jit.DEFAULT_OPT): loop unrolling is a third
        # of LLVM's time for no gain in run time (W4 forward: +3 %)
        pto.loop_unrolling = unroll
        pb = llvm.create_pass_builder(tm, pto)
        call(ffi.lib.LLVMPY_RunNewModulePassManager)(pb.getModulePassManager(), mod, pb)
    with ffi.OutputString() as err:
        buf = call(ffi.lib.LLVMPY_TargetMachineEmitToMemory)(tm, mod, int(not assembly), err)
        if not buf:
            raise RuntimeError(str(err))
    try:
        return ctypes.string_at(ffi.lib.LLVMPY_GetBufferStart(buf), ffi.lib.LLVMPY_GetBufferSize(buf))
    finally:
        ffi.lib.LLVMPY_DisposeMemoryBuffer(buf)


def emit_file(llvm, text: str, tm, opt: int, unroll: bool, assembly: bool = False) -> bytes:
    """One object file (or assembly text) of LLVM IR ``text``, every symbol kept."""
    context = llvm.create_context()
    try:
        mod = llvm.parse_assembly(text, context=context)
    except BaseException:
        context.close()
        raise
    try:
        return _build(llvm, mod, tm, opt, unroll, None, False, assembly)
    finally:
        dispose(mod, context)


def dispose(mod: Any, context: Any) -> None:
    """Free an llvmlite module, then the context it was parsed in."""
    mod.close()
    context.close()


def compile_groups(llvm, text: str, first: tuple[Any, Any] | None,
                   groups: list[tuple[str, ...]], make_target_machine: Callable[[], Any],
                   opt: int, unroll: bool, keep_ir: bool = False,
                   meanwhile: Callable[[], None] | None = None,
                   declared: Set[str] = frozenset()) -> list[CompiledGroup]:
    """Optimize (LLVM's pipeline at speed level ``opt``) and emit ``text`` once
    per group, in parallel. ``first`` is ``text`` already parsed (and verified)
    in a context of its own, as (module, context), or None: group 0 uses it,
    with the definitions of the functions other groups export and of those of
    ``declared`` (built already) left unoptimized and unemitted (``_export_only``);
    the other groups (and group 0 without it) compile ``text`` with those
    declared only. Each module
    is disposed of before its context when its group is done (the garbage
    collector, left to it, may free them in the other order and crash).

    ``meanwhile`` is Python work run on the calling thread while LLVM works (all
    groups then run on threads of their own), once every group is in LLVM (which
    runs without the GIL) and, with several groups, one is done: a core is free.
    The later groups would otherwise wait for the GIL it holds."""
    parallel = len(groups) > 1 or meanwhile is not None
    results: list[CompiledGroup | None] = [None] * len(groups)
    errors: list[BaseException] = []
    in_llvm = [threading.Event() for _ in groups]
    one_done = threading.Event()

    def build(k: int, mod: Any, context: Any, elsewhere: Set[str] = frozenset()) -> None:
        try:
            obj = _build(llvm, mod, make_target_machine(), opt, unroll, set(groups[k]), parallel,
                         in_llvm=in_llvm[k], elsewhere=elsewhere)
            results[k] = CompiledGroup(groups[k], obj, str(mod) if keep_ir else None)
        except BaseException as err:  # re-raised in the caller's thread
            errors.append(err)
        finally:
            dispose(mod, context)
            finished(k)

    def finished(k: int) -> None:
        in_llvm[k].set()
        one_done.set()

    def build_parsed(k: int) -> None:
        context = llvm.create_context()
        try:
            foreign = {n for j, g in enumerate(groups) if j != k for n in g} | set(declared)
            mod = llvm.parse_assembly(declare_only(text, foreign), context=context)
        except BaseException as err:
            context.close()
            errors.append(err)
            finished(k)
            return
        build(k, mod, context)

    def build_first() -> None:
        if first is None:
            build_parsed(0)
        else:
            build(0, *first, elsewhere={n for g in groups[1:] for n in g} | set(declared))

    threads = [threading.Thread(target=build_parsed, args=(k,), name=f"irt-codegen-{k}")
               for k in range(1, len(groups))]
    if meanwhile is not None:
        threads.insert(0, threading.Thread(target=build_first, name="irt-codegen-0"))
    for t in threads:
        t.start()
    try:
        if meanwhile is None:
            build_first()
        else:
            for event in in_llvm:
                event.wait()
            if len(groups) > 1:
                one_done.wait()
            meanwhile()
    finally:
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]
