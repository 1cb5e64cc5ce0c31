"""An executable: an llvm-dialect module translated to LLVM IR and checked, the
code of each public function optimized and emitted by LLVM (``codegen``) at its
first call, its objects checked and loaded into an MCJIT engine; the functions
callable from Python (``calling.Function``)."""

from __future__ import annotations

import atexit
import gc
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.gcpause import Hold, resume_later
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


#: How long the collector stays paused after a compile, waiting for the first
#: build (which collects the compiler's garbage: ``Executable._collect_garbage``)
#: to start.
GARBAGE_WAITS_S = 1.0


class _Code:
    """Machine code loaded into one MCJIT engine; objects are added to it as entry
    points are built (their undefined symbols resolve against the earlier ones)."""

    def __init__(self, opt: int) -> None:
        self.opt = opt
        self.engine = None
        self.objects: list[bytes] = []
        self.contents: list[ObjectSymbols] = []
        self.thread_ways: tuple[int, ...] = ()

    def defined(self) -> set[str]:
        return {name for c in self.contents for name in c.defined}

    def add(self, llvm, objects: list[bytes], contents: list[ObjectSymbols] | None,
            wrappers: dict[str, str]) -> dict[str, int]:
        """Load checked objects (``contents``: their ``read_object``, if done
        already); every symbol they need must be allowed and found first: MCJIT
        aborts the process on an unresolved one. Returns the address of each
        entry point of ``wrappers`` (name -> wrapper), which they define."""
        if contents is None:
            try:
                contents = [read_object(obj) for obj in objects]
            except InvalidObject as err:
                raise DiagnosticError(Diagnostic(f"LLVM produced an object the JIT cannot load: {err}")) from None
        everything = self.contents + contents
        undefined = external_symbols(everything)
        symbols.resolve(llvm, undefined)
        tune_malloc()
        if self.engine is None:
            tm = target_machine(llvm, self.opt)  # one per engine: MCJIT takes ownership
            self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        for obj in objects:
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        self.engine.finalize_object()
        self.objects = self.objects + objects
        self.contents = everything
        self.thread_ways = blas.thread_ways(undefined)
        addresses = {}
        for name, wrapper in wrappers.items():
            addr = self.engine.get_function_address(wrapper)
            if not addr:
                raise DiagnosticError(Diagnostic(f"entry point {wrapper} missing from the machine code"))
            addresses[name] = addr
        return addresses


def _dispose_parsed(parsed: list) -> None:
    while parsed:
        codegen.dispose(*parsed.pop())


class Executable:
    """A JIT-compiled module: ``exe["main"](*arrays)``.

    ``Executable(lowered, signatures, opt)`` translates an llvm-dialect module
    to LLVM IR and checks it (LLVM's parser and verifier, the external symbols),
    and empties it (its IR is freed during code generation, see ``_consume``);
    the machine code of an entry point is built when it is first called, or
    asked for (``_ensure_built``, ``optimize``), as jax.jit compiles a function:
    only the code that entry reaches, spread over the cores (codegen.py), and
    loaded into the executable's MCJIT engine next to what was built before.
    The next build (another entry's first call) builds every entry point left:
    two builds at most, each of which parses and plans the whole text.
    ``Executable.from_objects(...)`` loads machine code from the disk cache.
    """

    def __init__(self, lowered: ModuleOp | None, signatures: dict[str, Signature],
                 opt: int | None = None, _loaded: tuple | None = None):
        if opt is None:
            opt = default_opt()
        self.signatures = signatures
        self.opt = opt
        self.unroll = loop_unrolling()
        # (module text, file name, pipeline): lowered again when LLVM IR is needed
        # and not kept (the executable was loaded from the disk cache)
        self._source: tuple[str, str, str | None] | None = None
        self._llvm_ir: str | None = None
        self._graph: tuple[dict[str, int], dict[str, set[str]]] | None = None
        self._whole = False  # build every entry point at once (the module has mutable state)
        self._parsed: list = []  # the LLVM IR parsed and verified, for the first build
        self._optimized_ir: str | None = None
        # tier 0: code generation at level 0 (see TIER_UP_FRACTION); 1: at level ``opt``
        self.tier = 0 if opt > 0 and tiered() else 1
        self._native_s = 0.0  # time spent in native calls while at tier 0
        self._compile_s = 0.0  # time spent compiling this executable's code
        self._tier_up_after = TIER_UP_UNKNOWN_S * TIER_UP_FRACTION
        self._tier_up_thread: threading.Thread | None = None
        self._tier_lock = threading.Lock()
        # held while code is built or swapped: two threads first calling two entries
        # build one after the other (each build uses every core)
        self._build_lock = threading.RLock()
        self._built: set[str] = set()  # the signatures whose entry point is loaded
        self._on_code: dict = {}  # callbacks after code was built or swapped (the disk cache's store)
        self._retired: list = []  # engines of code replaced by a tier-up: calls may still run it
        self._code = _Code(opt)
        if _loaded is not None:
            objects, entries, contents, self.tier, built = _loaded
            self._entries = entries
            addresses = self._code.add(init_llvm(), objects, contents,
                                       {n: entries[n] for n in built})  # type: ignore[misc]
            self._built = set(built)
        else:
            assert lowered is not None
            t0 = time.perf_counter()
            self._prepare(lowered)
            self._spent(time.perf_counter() - t0)
            addresses = {}
        self._functions: dict[str, Function] = {}
        for name, sig in signatures.items():
            if self._entries.get(name) is None:
                reason = sig.unsupported or (
                    "its lowered signature does not match its declared one "
                    "(tensor/memref arguments and results must lower to memref descriptors)")
                self._functions[name] = Function(self, sig, None, reason)
            else:  # an address of None: built at the first call
                self._functions[name] = Function(self, sig, addresses.get(name), None)

    @property
    def _objects(self) -> list[bytes]:
        return self._code.objects

    @property
    def thread_ways(self) -> tuple[int, ...]:
        return self._code.thread_ways

    # -- LLVM IR ------------------------------------------------------------------
    def _prepare(self, lowered: ModuleOp) -> None:
        """Translate a module ``add-jit-interface`` processed to LLVM IR and check it
        (errors surface here, not at a call): parsed, verified, its external
        symbols allowed and found. Keeps the text, its call graph and the parsed
        module (for the first build)."""
        from irtoolkit.runtime.translate import entry_points, to_llvm_text

        llvm = init_llvm()
        self._entries = entry_points(lowered, self.signatures)
        translation = to_llvm_text(lowered)
        self._llvm_ir = translation.text
        level = self.opt if self.tier else 0  # (the first build's, unless optimize() comes first)
        text = self._tier_text(level)
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
        self._graph = translation.graph
        self._whole = bool(codegen.mutable_state(translation.llmod))
        _dispose_parsed(self._parsed)
        self._parsed.append((mod, context))
        self._parsed_level = level
        # disposed in order if no build takes it (the collector may free a context first)
        finalizer = weakref.finalize(self, _dispose_parsed, self._parsed)
        finalizer.atexit = False
        # The lowered IR and its llvmlite translation are garbage from here on, in
        # reference cycles: freed by the collector while LLVM works (see _collect_garbage)
        del translation
        _consume(lowered)
        self._garbage = resume_later(GARBAGE_WAITS_S)

    def _relower(self) -> None:
        """Lower the source again to recover its LLVM IR (the executable was
        loaded from the disk cache)."""
        if self._source is None:
            raise AttributeError("LLVM IR is not available for this executable")
        from irtoolkit.parsing import parse_module
        from irtoolkit.pipeline import verify_each_default
        from irtoolkit.runtime.translate import lower_module

        text, filename, pipeline = self._source
        with verify_each_default(verify_each_requested()):
            lowered = lower_module(parse_module(text, filename), pipeline, clone=False)
        self._prepare(lowered)

    def _text(self) -> str:
        with self._build_lock:
            if self._llvm_ir is None:
                self._relower()
            return self._llvm_ir  # type: ignore[return-value]

    def _tier_text(self, level: int) -> str:
        """The LLVM IR compiled at code generation ``level``: at tier 0 (level 0)
        ``translate.first_tier_text``'s; the tier-up compiles the text as it is."""
        from irtoolkit.runtime.translate import first_tier_text

        text = self._text()
        return first_tier_text(text) if level == 0 else text

    # -- LLVM IR -> machine code ------------------------------------------------
    def _emit(self, names: list[str], level: int, declared: set[str] = frozenset(),  # type: ignore[assignment]
              keep_ir: bool = False, foreground: bool = False) -> list[codegen.CompiledGroup]:
        """The objects of the entry points of ``names`` (code generation at
        ``level``), the functions of ``declared`` linked from objects built before."""
        llvm = init_llvm()
        text = self._tier_text(level)
        wrappers = [self._entries[n] for n in names]
        groups = codegen.plan(self._graph, wrappers, 1 if self._whole else codegen.available_cores(),  # type: ignore[arg-type]
                              declared)
        first = None
        if foreground and self._parsed:
            if level != self._parsed_level:  # (another text)
                _dispose_parsed(self._parsed)
            else:
                first = self._parsed.pop()
        opt = first_tier_opt(self.opt) if level == 0 else self.opt
        return codegen.compile_groups(llvm, text, first, groups, lambda: target_machine(llvm, level),
                                      opt, self.unroll, keep_ir=keep_ir,
                                      meanwhile=self._collect_garbage if foreground else None,
                                      declared=declared)

    def _build_into(self, code: _Code, names: list[str], level: int,
                    foreground: bool = False) -> dict[str, int]:
        """Build the entry points of ``names`` into ``code``; their addresses."""
        built = self._emit(names, level, code.defined(), foreground=foreground)
        return code.add(init_llvm(), [g.obj for g in built], None,
                        {n: self._entries[n] for n in names})  # type: ignore[misc]

    def _callable(self) -> list[str]:
        return [n for n, w in self._entries.items() if w is not None]

    def _ensure_built(self, names=None) -> None:
        """Build the code of the entry points of ``names`` (default: all) that is
        not built yet, at the current tier, and store it (the disk cache)."""
        names = self._callable() if names is None else names
        if all(n in self._built or self._entries.get(n) is None for n in names):
            return
        with self._build_lock:
            # The first build is the called entry's alone (a quick first call); a
            # second builds every entry left: a module with many entry points called
            # one by one would otherwise parse and plan its whole text once per entry
            # (test/lowering_e2e: 39 -> 110 s)
            wanted = self._callable() if self._whole or self._built else names
            missing = [n for n in wanted if n not in self._built and self._entries.get(n) is not None]
            if not missing:
                return
            t0 = time.perf_counter()
            self._garbage.keep()  # collected by this build (_collect_garbage)
            try:
                addresses = self._build_into(self._code, missing, self.opt if self.tier else 0,
                                             foreground=True)
            finally:
                self._garbage.release()
            for name, addr in addresses.items():
                self._functions[name]._retarget(addr)
            self._built.update(missing)
            self._spent(time.perf_counter() - t0)
            self._code_changed()

    _garbage = Hold(None)

    def _collect_garbage(self) -> None:
        """Free the compiler's young garbage now, on a core LLVM leaves idle (the
        first build's): compiling runs with the cyclic collector paused
        (irtoolkit.gcpause), kept paused until now, so the objects it made would
        otherwise all be scanned by the first collection after it, on the path to
        the first call (bench W7: 0.1-0.45 s, 320k objects)."""
        gc.collect(0)
        self._garbage.release()

    def _spent(self, seconds: float) -> None:
        self._compile_s += seconds
        self._tier_up_after = max(TIER_UP_MIN_S, TIER_UP_FRACTION * self._compile_s)

    def _code_changed(self) -> None:
        for callback in list(self._on_code.values()):
            callback(self)

    # -- tiered compilation -----------------------------------------------------
    def _ran(self, seconds: float) -> None:
        """Count ``seconds`` of native time at tier 0; past the threshold, tier up."""
        self._native_s += seconds
        if self._native_s >= self._tier_up_after and self._tier_up_thread is None:
            self._start_tier_up()

    def _start_tier_up(self) -> threading.Thread | None:
        with self._tier_lock:
            if self.tier == 0 and self._tier_up_thread is None:
                if not self._built:  # (a call's tier-up has built code: no wait for the lock)
                    with self._build_lock:
                        if not self._built:  # nothing to emit again: build at the full level
                            self.tier = 1
                            return None
                thread = threading.Thread(target=self._tier_up, name="irt-tier-up", daemon=True)
                self._tier_up_thread = thread
                _tier_ups.add(thread)
                thread.start()
            return self._tier_up_thread

    def optimize(self) -> None:
        """Build every entry point's code at the full level now, if it is not yet
        (blocks until done): what the first calls run is then as fast as the
        steady state."""
        thread = self._start_tier_up()
        if thread is not None:
            thread.join()
        if self._tier_up_error is not None:
            raise self._tier_up_error
        self._ensure_built()

    _tier_up_error: BaseException | None = None

    def _tier_up(self) -> None:
        """Emit the code built so far again at the full level, into an engine of
        its own, and swap it in (with what was built meanwhile)."""
        try:
            if hasattr(os, "setpriority"):  # Linux: the calling thread (and those it starts) only
                try:
                    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                                   min(19, os.getpriority(os.PRIO_PROCESS, 0) + TIER_UP_NICE))
                except OSError:
                    pass
            self._checkpoint()
            self._text()  # (loaded from the disk cache: lowers the source again)
            with self._build_lock:
                names = [n for n in self._entries if n in self._built]
            code = _Code(self.opt)
            addresses = self._build_into(code, names, self.opt)
            self._checkpoint()
            with self._build_lock:
                later = [n for n in self._entries if n in self._built and n not in addresses]
                if later:
                    addresses.update(self._build_into(code, later, self.opt))
                self._retired.append(self._code)
                self._code = code
                for name, addr in addresses.items():
                    self._functions[name]._retarget(addr)
                self.tier = 1
                self._code_changed()
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

    @classmethod
    def from_objects(cls, objects: list[bytes], signatures: dict[str, Signature],
                     entries: dict[str, str | None], opt: int,
                     source: tuple[str, str, str | None] | None = None,
                     contents: list[ObjectSymbols] | None = None, tier: int = 1,
                     built: list[str] | None = None) -> Executable:
        """Load machine code compiled earlier (the disk cache), holding the entry
        points of ``built`` (default: every one). ``source`` (module text, file
        name, pipeline) lets ``llvm_ir`` and the other entry points' builds lower
        it again on demand (and tier 0 code tier up); ``contents``: the objects'
        ``read_object``, when checked already."""
        if built is None:
            built = [n for n, w in entries.items() if w is not None]
        exe = cls(None, signatures, opt, _loaded=(objects, entries, contents,
                                                  tier if source is not None else 1, built))
        exe._source = source
        exe.from_cache = True
        return exe

    from_cache = False

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR that was compiled (before LLVM's optimizations)."""
        return self._text()

    @property
    def optimized_llvm_ir(self) -> str:
        """The optimized LLVM IR of every entry point, one module per codegen group
        (see codegen.py); compiled again on demand, as it is not kept."""
        if self._optimized_ir is None:
            built = self._emit(self._callable(), self.opt, keep_ir=True)
            self._optimized_ir = "\n".join(g.optimized_ir or "" for g in built)
        return self._optimized_ir

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
