"""An executable: an llvm-dialect module translated, optimized and emitted by
LLVM (``codegen``), its objects checked and loaded into an MCJIT engine, its
public functions callable from Python (``calling.Function``)."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.runtime import codegen, symbols
from irtoolkit.runtime.allocator import tune_malloc
from irtoolkit.runtime.calling import Function
from irtoolkit.runtime.objectfile import InvalidObject, ObjectSymbols, read_object
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


def verify_each_requested() -> bool:
    """``IRT_VERIFY_EACH=1``: verify after every internal lowering pass too."""
    return os.environ.get("IRT_VERIFY_EACH", "").strip() not in ("", "0")


def llvm_config(opt: int) -> str:
    """The LLVM settings a cached executable was compiled with (part of its key)."""
    return f"{opt}{'+unroll' if loop_unrolling() else '-nounroll'}"


class Executable:
    """A JIT-compiled module: ``exe["main"](*arrays)``.

    Holds the MCJIT engine; functions taken from it keep it alive.
    ``Executable(lowered, signatures, opt)`` compiles an llvm-dialect module;
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
        contents = None
        if _loaded is not None:
            objects, entries, contents = _loaded
        else:
            assert lowered is not None
            objects, entries = self._compile(lowered, signatures, opt)
        self._objects = objects
        self._entries = entries
        self._load(objects, entries, contents)

    # -- LLVM IR -> machine code ------------------------------------------------
    def _compile(self, lowered: ModuleOp, signatures: dict[str, Signature], opt: int,
                 keep_ir: bool = False):
        """Translate a module ``add-jit-interface`` processed, optimize it and emit
        its objects; returns (objects, entry point of each signature or None)."""
        from irtoolkit.runtime.translate import entry_points, to_llvmlite

        llvm = init_llvm()
        entries = entry_points(lowered, signatures)
        llmod = to_llvmlite(lowered)
        self._llvm_ir = str(llmod)
        context = llvm.create_context()  # its own: codegen may compile it in parallel
        try:
            mod = llvm.parse_assembly(self._llvm_ir, context=context)
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
        groups = codegen.plan_groups(llmod, [w for w in entries.values() if w is not None])
        built = codegen.compile_groups(llvm, self._llvm_ir, (mod, context), groups,
                                       lambda: target_machine(llvm, opt), opt, self.unroll,
                                       keep_ir=keep_ir)
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
        symbols.resolve(llvm, {name for c in contents for name in c.undefined})
        tune_malloc()
        tm = target_machine(llvm, self.opt)  # one per engine: MCJIT takes ownership
        self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        for obj in objects:
            self._engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        self._engine.finalize_object()
        self._functions: dict[str, Function] = {}
        for name, sig in self.signatures.items():
            wrapper = entries.get(name)
            if wrapper is None:
                reason = sig.unsupported or (
                    "its lowered signature does not match its declared one "
                    "(tensor/memref arguments and results must lower to memref descriptors)")
                self._functions[name] = Function(self, sig, None, reason)
            else:
                addr = self._engine.get_function_address(wrapper)
                if not addr:
                    raise DiagnosticError(Diagnostic(f"entry point {wrapper} missing from the machine code"))
                self._functions[name] = Function(self, sig, addr, None)

    @classmethod
    def from_objects(cls, objects: list[bytes], signatures: dict[str, Signature],
                     entries: dict[str, str | None], opt: int,
                     source: tuple[str, str, str | None] | None = None,
                     contents: list[ObjectSymbols] | None = None) -> Executable:
        """Load machine code compiled earlier (the disk cache). ``source``
        (module text, file name, pipeline) lets ``llvm_ir`` recompile it on demand;
        ``contents``: the objects' ``read_object``, when checked already."""
        exe = cls(None, signatures, opt, _loaded=(objects, entries, contents))
        exe._source = source
        exe.from_cache = True
        return exe

    from_cache = False

    def _rebuild(self, keep_ir: bool = False) -> None:
        """Recompile the source to recover its LLVM IR."""
        if self._source is None:
            raise AttributeError("LLVM IR is not available for this executable")
        from irtoolkit.parsing import parse_module
        from irtoolkit.pipeline import verify_each_default
        from irtoolkit.runtime.translate import lower_module

        text, filename, pipeline = self._source
        with verify_each_default(verify_each_requested()):
            lowered = lower_module(parse_module(text, filename), pipeline, clone=False)
        self._compile(lowered, self.signatures, self.opt, keep_ir)

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
