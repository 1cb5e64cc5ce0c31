"""An executable: an llvm-dialect module translated, optimized and emitted by
LLVM (``codegen``), its objects checked and loaded into an MCJIT engine, its
public functions callable from Python (``calling.Function``)."""

from __future__ import annotations

import atexit
import gc
import os
import threading
import time
from typing import TYPE_CHECKING

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.runtime import blas, codegen, symbols
from irtoolkit.runtime.allocator import tune_malloc
from irtoolkit.runtime.calling import Function
from irtoolkit.runtime.objectfile import InvalidObject, ObjectSymbols, external_symbols, read_object
from irtoolkit.runtime.signature import Signature

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

_llvm_ready = False
_llvm_lock = threading.Lock()


def init_llvm():
    """llvmlite, initialized for this host (once)."""
    global _llvm_ready
    import llvmlite.binding as llvm

    with _llvm_lock:
        if not _llvm_ready:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            # C functions are registered on demand: the machine code's
            # undefined symbols, before it is loaded (see Executable._load)
            _llvm_ready = True
    return llvm


def target_machine(llvm, opt: int, jit: bool = True):
    """A target machine for this CPU (MCJIT takes ownership of the one it is
    given); with ``jit`` False, for position-independent object files that
    link into programs."""
    target = llvm.Target.from_triple(llvm.get_process_triple())
    # LLVM tunes AVX-512 server CPUs to prefer 256-bit vectors (against clock throttling
    # in mixed code); our hot loops are long vectorized math kernels, where full width
    # measured 1.4x faster (W1 single-threaded: 4.1 -> 2.8 ms forward, 4.9 -> 3.4 ms
    # gradient). Harmless on CPUs without 512-bit vectors.
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten() + ",-prefer-256-bit",
        opt=opt,
        **({"jit": True} if jit else {"reloc": "pic", "codemodel": "small"}),
    )


# LLVM level of compile_module: O3 (the speed level of LLVM's pass pipeline and
# of the code generator) WITHOUT loop unrolling (vectorization and interleaving
# kept). Measured on bench W1-W5 against full O3: LLVM's time -30..-45 % on W2
# and W4 (W2 1015 -> 555 ms, W4 900 -> 590 ms under load), run times equal except
# W4's forward (+3 %); O2 or no interleaving cost up to 7 % (W1, W4 forward).
# IRT_OPT_LEVEL=0..3 sets the level, IRT_LLVM_UNROLL=1 turns unrolling back on.
DEFAULT_OPT = 3


def default_opt() -> int:
    v = os.environ.get("IRT_OPT_LEVEL", "").strip()
    if v in ("0", "1", "2", "3"):
        return int(v)
    return DEFAULT_OPT


def loop_unrolling() -> bool:
    return os.environ.get("IRT_LLVM_UNROLL", "").strip() not in ("", "0")


# Tiered compilation. A fresh compile emits machine code with LLVM's fast
# instruction selector and register allocator (code generation level 0) after
# the full IR pipeline: code generation is ~40 % of LLVM's time at level 3 and
# a few % at 0 (bench W1-W9, AMD EPYC Zen 3), for code 1.2-2.5x slower. Once the
# executable's calls have spent TIER_UP_FRACTION of that compile's time in
# native code, a background thread emits the code again at the full level and
# swaps it in; programs that run briefly (tests, irt-run) never pay for it.
# IRT_TIERED=0 compiles at the full level at once.
TIER_UP_FRACTION = 0.25
TIER_UP_MIN_S = 0.02  # native time before a tier-up, at least
TIER_UP_UNKNOWN_S = 1.0  # the compile time assumed for code loaded from the disk cache
TIER_UP_NICE = 10  # the background compile yields to the program's own threads


_tier_ups: set[threading.Thread] = set()  # running: joined at exit
_exiting = threading.Event()


class _Exiting(Exception):
    pass


def _stop_tier_ups() -> None:
    """At exit: tier-ups stop at their next step; the LLVM call running finishes
    first (the process must not tear LLVM down under it)."""
    _exiting.set()
    for thread in list(_tier_ups):
        thread.join()


atexit.register(_stop_tier_ups)


def wait_for_tier_ups() -> None:
    """Wait until the tier-ups running now have finished (and stored their code in
    the disk cache, which is the one configured when they store)."""
    for thread in list(_tier_ups):
        thread.join()


# LLVM pass pipeline level of tier 0 (the first machine code; the tier-up runs the
# full level): IRT_FIRST_TIER_OPT=0..3, never above the full level. Measured on bench
# W1-W9 (CPU time of the compile, 2-core AMD EPYC shared with other work): O1 and O2
# save nothing measurable over O3-nounroll (LLVM's IR pipeline is 10-20 % of LLVM's
# time there, W7 2.2 -> 2.0 s, W1 0.20 -> 0.16 s, within the compile's spread) and
# their code is slower on some (W3, W4); O0 (no IR pipeline) cuts the compile by
# 55-70 % but its code is 5-40x slower (W6: 0.6 -> 4.7 s a call), so the first
# call of W6 and the tenth of W3, W4, W6, W9 get slower. Hence the full pipeline.
FIRST_TIER_OPT = 3


def first_tier_opt(opt: int) -> int:
    v = os.environ.get("IRT_FIRST_TIER_OPT", "").strip()
    return min(opt, int(v) if v in ("0", "1", "2", "3") else FIRST_TIER_OPT)


def tiered() -> bool:
    return os.environ.get("IRT_TIERED", "").strip() not in ("0", "false", "no")


def verify_each_requested() -> bool:
    """``IRT_VERIFY_EACH=1``: verify after every internal lowering pass too."""
    return os.environ.get("IRT_VERIFY_EACH", "").strip() not in ("", "0")


def llvm_config(opt: int) -> str:
    """The LLVM settings a cached executable was compiled with (part of its key)."""
    first = first_tier_opt(opt)  # tier 0's code is cached too: its level is part of the key
    return (f"{opt}{'+unroll' if loop_unrolling() else '-nounroll'}"
            + (f"-tier0-{first}" if first != opt else ""))


def _consume(lowered: ModuleOp) -> None:
    """Empty a module that was compiled: its ops become unreachable (the caller's
    module is a shell), so that the collector can free them during code generation."""
    for block in list(lowered.body.blocks):
        lowered.body.detach_block(block)


def _collect_garbage() -> None:
    """Free the compiler's young garbage now, on a core LLVM leaves idle: compiling
    runs with the cyclic collector paused (irtoolkit.gcpause), so the objects it
    made would otherwise all be scanned by the first collection after it, on the
    path to the first call (bench W7: 0.1-0.45 s, 320k objects)."""
    gc.collect(0)


class Executable:
    """A JIT-compiled module: ``exe["main"](*arrays)``.

    Holds the MCJIT engine; functions taken from it keep it alive.
    ``Executable(lowered, signatures, opt)`` compiles an llvm-dialect module (and
    empties it: its IR is freed during code generation, see ``_consume``);
    ``Executable.from_objects(...)`` loads machine code from the disk cache.
    """

    def __init__(self, lowered: ModuleOp | None, signatures: dict[str, Signature],
                 opt: int | None = None, _loaded: tuple | None = None):
        if opt is None:
            opt = default_opt()
        self.signatures = signatures
        self.opt = opt
        self.unroll = loop_unrolling()
        # (module text, file name, pipeline): compiled again when its LLVM IR is asked for
        self._source: tuple[str, str, str | None] | None = None
        self._llvm_ir: str | None = None
        self._optimized_ir: str | None = None
        # tier 0: code generation at level 0 (see TIER_UP_FRACTION); 1: at level ``opt``
        self.tier = 0 if opt > 0 and tiered() else 1
        self._native_s = 0.0  # time spent in native calls while at tier 0
        self._tier_up_after = TIER_UP_UNKNOWN_S * TIER_UP_FRACTION
        self._tier_up_thread: threading.Thread | None = None
        self._tier_lock = threading.Lock()
        self._on_optimized: list = []  # callbacks after a tier-up (the disk cache's store)
        self._retired: list = []  # engines of code replaced by a tier-up: calls may still run it
        contents = None
        if _loaded is not None:
            objects, entries, contents, self.tier = _loaded
        else:
            assert lowered is not None
            t0 = time.perf_counter()
            objects, entries = self._compile(lowered, signatures, opt)
            self._tier_up_after = max(TIER_UP_MIN_S, TIER_UP_FRACTION * (time.perf_counter() - t0))
        self._objects = objects
        self._entries = entries
        self._load(objects, entries, contents)

    # -- LLVM IR -> machine code ------------------------------------------------
    def _compile(self, lowered: ModuleOp, signatures: dict[str, Signature], opt: int,
                 keep_ir: bool = False, level: int | None = None):
        """Translate a module ``add-jit-interface`` processed, optimize it and emit
        its objects (code generation at ``level``, by default the current tier's);
        returns (objects, entry point of each signature or None)."""
        from irtoolkit.runtime.translate import entry_points, first_tier_text, to_llvm_text

        llvm = init_llvm()
        entries = entry_points(lowered, signatures)
        translation = to_llvm_text(lowered)
        self._llvm_ir = translation.text
        if level is None:
            level = opt if self.tier else 0
        # (the tier-up compiles self._llvm_ir as it is)
        text = first_tier_text(self._llvm_ir) if level == 0 else self._llvm_ir
        context = llvm.create_context()  # its own: codegen may compile it in parallel
        try:
            mod = llvm.parse_assembly(text, context=context)
        except RuntimeError as err:
            context.close()
            raise DiagnosticError(Diagnostic(f"invalid LLVM IR produced: {err}")) from None
        try:
            mod.verify()
        except RuntimeError as err:
            codegen.dispose(mod, context)
            raise DiagnosticError(Diagnostic(f"invalid LLVM IR produced: {err}")) from None
        externals = [f.name for f in mod.functions
                     if f.is_declaration and not f.name.startswith("llvm.")]
        try:
            symbols.refuse_forbidden(externals)
        except DiagnosticError:
            codegen.dispose(mod, context)
            raise
        missing = symbols.register(llvm, externals)
        if missing:
            codegen.dispose(mod, context)
            raise DiagnosticError(Diagnostic(
                "unresolved external function(s): " + ", ".join(f"@{n}" for n in missing)))
        # Machine code first, so that every external symbol it needs can be checked:
        # MCJIT aborts the process on an unresolved one.
        groups = codegen.plan_groups(translation.llmod, [w for w in entries.values() if w is not None],
                                     translation.graph)
        self._groups = groups
        # The lowered IR and its llvmlite translation are garbage from here on, in
        # reference cycles: freed by the collector while LLVM works (see _collect_garbage)
        del translation
        _consume(lowered)
        del lowered
        if level == 0:
            opt = first_tier_opt(opt)
        built = codegen.compile_groups(llvm, text, (mod, context), groups,
                                       lambda: target_machine(llvm, level), opt, self.unroll,
                                       keep_ir=keep_ir, meanwhile=_collect_garbage)
        if keep_ir:
            self._optimized_ir = "\n".join(g.optimized_ir or "" for g in built)
        return [g.obj for g in built], entries

    def _load(self, objects: list[bytes], entries: dict[str, str | None],
              contents: list[ObjectSymbols] | None = None) -> None:
        """Load checked objects (``contents``: their ``read_object``, if done
        already); every symbol they need must be allowed and found first:
        MCJIT aborts the process on an unresolved one."""
        llvm = init_llvm()
        if contents is None:
            try:
                contents = [read_object(obj) for obj in objects]
            except InvalidObject as err:
                raise DiagnosticError(Diagnostic(f"LLVM produced an object the JIT cannot load: {err}")) from None
        self._engine, addresses = self._link(llvm, objects, entries, contents)
        self._functions: dict[str, Function] = {}
        for name, sig in self.signatures.items():
            if entries.get(name) is None:
                reason = sig.unsupported or (
                    "its lowered signature does not match its declared one "
                    "(tensor/memref arguments and results must lower to memref descriptors)")
                self._functions[name] = Function(self, sig, None, reason)
            else:
                self._functions[name] = Function(self, sig, addresses[name], None)

    def _link(self, llvm, objects: list[bytes], entries: dict[str, str | None],
              contents: list[ObjectSymbols]):
        """An MCJIT engine holding ``objects``, and the address of each entry point."""
        undefined = external_symbols(contents)
        symbols.resolve(llvm, undefined)
        self.thread_ways = blas.thread_ways(undefined)
        tune_malloc()
        tm = target_machine(llvm, self.opt)  # one per engine: MCJIT takes ownership
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        for obj in objects:
            engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addresses = {}
        for name, wrapper in entries.items():
            if wrapper is not None:
                addr = engine.get_function_address(wrapper)
                if not addr:
                    raise DiagnosticError(Diagnostic(f"entry point {wrapper} missing from the machine code"))
                addresses[name] = addr
        return engine, addresses

    # -- tiered compilation -----------------------------------------------------
    def _ran(self, seconds: float) -> None:
        """Count ``seconds`` of native time at tier 0; past the threshold, tier up."""
        self._native_s += seconds
        if self._native_s >= self._tier_up_after and self._tier_up_thread is None:
            self._start_tier_up()

    def _start_tier_up(self) -> threading.Thread | None:
        with self._tier_lock:
            if self.tier == 0 and self._tier_up_thread is None:
                thread = threading.Thread(target=self._tier_up, name="irt-tier-up", daemon=True)
                self._tier_up_thread = thread
                _tier_ups.add(thread)
                thread.start()
            return self._tier_up_thread

    def optimize(self) -> None:
        """Emit the code at the full level now, if it is not yet (blocks until done):
        what the first calls run is then as fast as the steady state."""
        thread = self._start_tier_up()
        if thread is not None:
            thread.join()
        if self._tier_up_error is not None:
            raise self._tier_up_error

    _tier_up_error: BaseException | None = None

    def _tier_up(self) -> None:
        try:
            if hasattr(os, "setpriority"):  # Linux: the calling thread (and those it starts) only
                try:
                    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                                   min(19, os.getpriority(os.PRIO_PROCESS, 0) + TIER_UP_NICE))
                except OSError:
                    pass
            llvm = init_llvm()
            self._checkpoint()
            if self._llvm_ir is None:  # loaded from the disk cache: lower the source again
                objects = self._rebuild(level=self.opt)
            else:
                objects = self._compile_text(llvm)
            self._checkpoint()
            contents = [read_object(obj) for obj in objects]
            engine, addresses = self._link(llvm, objects, self._entries, contents)
            self._retired.append(self._engine)
            self._engine = engine
            self._objects = objects
            for name, addr in addresses.items():
                self._functions[name]._retarget(addr)
            self.tier = 1
            for callback in self._on_optimized:
                callback(self)
        except _Exiting:
            pass
        except BaseException as err:  # noqa: BLE001 -- tier-0 code stays; optimize() re-raises
            self._tier_up_error = err
        finally:
            _tier_ups.discard(threading.current_thread())

    @staticmethod
    def _checkpoint() -> None:
        if _exiting.is_set():
            raise _Exiting

    def _compile_text(self, llvm) -> list[bytes]:
        """The objects of the kept LLVM IR, code generated at the full level."""
        context = llvm.create_context()
        try:
            mod = llvm.parse_assembly(self._llvm_ir, context=context)
        except BaseException:
            context.close()
            raise
        built = codegen.compile_groups(llvm, self._llvm_ir, (mod, context), self._groups,
                                       lambda: target_machine(llvm, self.opt), self.opt, self.unroll)
        return [g.obj for g in built]

    @classmethod
    def from_objects(cls, objects: list[bytes], signatures: dict[str, Signature],
                     entries: dict[str, str | None], opt: int,
                     source: tuple[str, str, str | None] | None = None,
                     contents: list[ObjectSymbols] | None = None, tier: int = 1) -> Executable:
        """Load machine code compiled earlier (the disk cache). ``source``
        (module text, file name, pipeline) lets ``llvm_ir`` recompile it on demand
        (and tier 0 code tier up); ``contents``: the objects' ``read_object``, when
        checked already."""
        exe = cls(None, signatures, opt, _loaded=(objects, entries, contents,
                                                  tier if source is not None else 1))
        exe._source = source
        exe.from_cache = True
        return exe

    from_cache = False

    def _rebuild(self, keep_ir: bool = False, level: int | None = None) -> list[bytes]:
        """Recompile the source to recover its LLVM IR; returns the objects."""
        if self._source is None:
            raise AttributeError("LLVM IR is not available for this executable")
        from irtoolkit.parsing import parse_module
        from irtoolkit.pipeline import verify_each_default
        from irtoolkit.runtime.translate import lower_module

        text, filename, pipeline = self._source
        with verify_each_default(verify_each_requested()):
            lowered = lower_module(parse_module(text, filename), pipeline, clone=False)
        return self._compile(lowered, self.signatures, self.opt, keep_ir, level)[0]

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR that was compiled (before LLVM's optimizations)."""
        if self._llvm_ir is None:
            self._rebuild()
        return self._llvm_ir  # type: ignore[return-value]

    @property
    def optimized_llvm_ir(self) -> str:
        """The optimized LLVM IR, one module per codegen group (see codegen.py);
        compiled again on demand, as it is not kept."""
        if self._optimized_ir is None:
            self._rebuild(keep_ir=True)
        return self._optimized_ir  # type: ignore[return-value]

    def __getitem__(self, name: str) -> Function:
        try:
            return self._functions[name]
        except KeyError:
            known = ", ".join(f"@{n}" for n in self._functions) or "none"
            raise KeyError(f"no public function @{name} in the compiled module (available: {known})") from None

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def functions(self) -> list[str]:
        return list(self._functions)

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(str(err)) from None
