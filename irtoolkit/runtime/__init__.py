"""JIT runtime: lowering to LLVM IR, llvmlite MCJIT, and the numpy calling convention.

API
---
``llvm_ir(module, pipeline=None) -> str``
    LLVM IR text for this host (target triple and data layout; checked by
    LLVM's parser and verifier). ``module`` may be in the llvm dialect already
    or at any higher level (it is lowered on a clone).
``emit_code(module, assembly=False) -> bytes``
    A relocatable object file (or assembly text) of that IR, optimized as the
    JIT does, position independent: ``irt-opt --emit obj|asm``. Functions
    marked ``llvm.emit_c_interface`` carry upstream's ``_mlir_ciface_``
    entry points for C.
``compile_module(module, pipeline=None, opt=None) -> Executable``
    (``irtoolkit.compile``) captures the public functions' signatures, lowers a
    clone (default ``convert-stablehlo-to-tensor,ad,lower-to-llvm``; passes that do not exist are skipped
    when the module has no op that needs them; with an explicit pipeline, the
    rest of the default lowering runs afterwards if the result is not yet in the
    llvm dialect, and the last steps of ``lower-to-llvm`` if it left them out),
    runs ``add-jit-interface`` and checks the LLVM IR (errors surface here);
    a public function's machine code is optimized for the host CPU and JITed
    with MCJIT at its first call (only the code it reaches, over the cores;
    the first call of another function builds all the others;
    ``exe.optimize()`` builds every function's).
    The input is verified once; the internal lowering passes are not verified
    after each (LLVM's verifier checks the result): ``IRT_VERIFY_EACH=1`` turns
    verify-each back on. LLVM level ``opt`` (default 3, ``IRT_OPT_LEVEL``
    overrides it) without loop unrolling (``IRT_LLVM_UNROLL=1`` turns it on):
    measured as fast as full O3 on the bench at 30-45 % less LLVM time.
    Tiered: the first machine code is emitted at code generation level 0
    (``exe.tier == 0``) and emitted again at the full level in a background
    thread once the calls have spent a quarter of the compile time in native
    code (``exe.optimize()``: now, waiting; ``IRT_TIERED=0``: no tiers; see
    ``executable.TIER_UP_FRACTION``).
    Compiling the same module (same text and locations) with the same pipeline
    again returns the cached Executable (in memory, at most 64); another
    process loads the machine code from the disk cache
    (``irtoolkit.runtime.diskcache``: ``$IRT_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/irtoolkit`` or ``~/.cache/irtoolkit``; ``IRT_CACHE_DIR=``
    or ``IRT_NO_CACHE=1`` disables it; bounded to 1000 entries / 256 MB,
    least recently used out first), skipping ``ad``, lowering and LLVM
    (``exe.from_cache`` is then True).
``compile_source(text, filename="<string>", pipeline=None, opt=None) -> Executable``
    (``irtoolkit.compile(text)``) parses and compiles MLIR text, with one more
    cache level keyed on the text and file name: a program compiled before
    loads from the disk cache without parsing or importing xDSL.
``exe["main"](*args)`` / ``exe.main(*args)``
    numpy arrays and Python/numpy scalars in, numpy out (a tuple when there are
    several results, ``None`` when none; scalar results are numpy scalars,
    0-d tensors 0-d arrays). Arguments are checked before native code runs
    (count, rank, static dims, dtype, scalar kinds and ranges): a mismatch
    raises ``ArgumentError`` (a ``DiagnosticError`` and a ``TypeError``).
    Non-contiguous arrays are copied. ``exe.llvm_ir`` is the IR that was
    compiled (before LLVM's optimizations; ``exe.optimized_llvm_ir`` after).

Calling convention
------------------
Inside compiled code (as MLIR's llvm lowering):

* ``index`` is ``i64``; scalars are passed by value.
* A ranked memref (tensors are bufferized to memrefs with the identity layout)
  is passed *by value* as its descriptor struct
  ``{ptr allocated, ptr aligned, i64 offset, [R x i64] sizes, [R x i64] strides}``
  (``{ptr, ptr, i64}`` for rank 0); sizes and strides count elements.
* A function with several results returns one ``!llvm.struct`` of them.

At the Python boundary every public ``func.func`` ``@f`` gets an entry point
``i64 @_irt_call_f(ptr frame)`` (the pass ``add-jit-interface``, which the JIT
runs after the lowering: ``passes/lowering/to_llvm/jit_interface.py``; the
facts both sides share are in ``irtoolkit/abi.py``). The frame is an array of
8-byte words: one slot per argument, then one per result, in order. A scalar
takes one word (its value in the first bytes, ``i1`` as one byte 0/1); a
rank-R memref takes ``3 + 2R`` words holding its descriptor. Then come
``ERROR_WORDS`` words the entry point fills when a call fails and one word the
caller fills: the lowest stack address compiled code may use on this thread
(``calling.stack_limit``). The wrapper loads the arguments, calls ``@f`` and
stores the results into their slots. Dynamic dimensions need nothing more:
sizes travel in the descriptors, in and out.

The wrapper returns an ``i64`` status (``abi.OK`` ...). A call that can fail
keeps a ``jmp_buf`` under a pthread TLS key (so concurrent calls from several
threads are fine); a failure ``longjmp``s back to it, the wrapper frees every
buffer the call allocated and has not freed (``@__irt_malloc`` lists them,
``@__irt_free`` drops them) and returns why, and Python raises:

* a failed ``malloc`` (or a negative size): ``AllocationError`` (a ``MemoryError``);
* a failed run-time check (``cf.assert``, emitted by ``lower-tensor-to-loop``
  where the verifier could not check statically: dynamic dims that must agree,
  indices and slices in bounds, reshape sizes; ``@__irt_check_failed`` stores
  the message and the two compared values): ``RuntimeCheckError`` (a
  ``DiagnosticError`` and a ``ValueError``) naming the op, its
  ``file:line:col`` and the mismatch;
* recursion that reaches the stack limit (functions on a cycle of the call
  graph check it on entry): ``StackExhaustedError`` (a ``RecursionError``);
* SIGINT (``interrupts.py``: the signal moves a counter that loops which do not
  end by themselves, outer loops and recursive functions poll):
  ``KeyboardInterrupt``.

No result is written by a failed call, and nothing it allocated stays taken.
In the JIT, functions defined in the module are renamed ``__irt_fn_<name>`` so
that C library calls LLVM emits (``pow`` for ``llvm.pow``) never bind to a user
function of the same name. Before loading, every object is checked
(``objectfile.read_object``) and the external symbols it needs must be on the
allow-list of ``symbols.py`` (libm, memory, threads, BLAS ...): anything else
is a diagnostic, not a crash.

Ownership: arguments stay owned by the caller (numpy); compiled code must not
free or keep them. Result buffers are ``malloc``'ed by the callee
(``memref.alloc``): each becomes a numpy array that owns it and ``free``s it
when garbage collected (no copy). A result whose allocated pointer is an input
buffer or the global marker ``0xdeadbeef`` (``memref.get_global``) is copied
instead; results sharing one buffer share one owner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

# Modules: errors (what compiled code raises), objectfile (checking ELF objects),
# symbols (what compiled code may call), signature (types at the boundary),
# calling (the numpy calling convention), interrupts (SIGINT for compiled code),
# translate (llvm dialect -> LLVM IR, object files for C),
# codegen (LLVM IR -> objects, in parallel), executable (objects -> MCJIT),
# caches (compile_module / compile_source and their caches), diskcache (files),
# blas (numpy's OpenBLAS). Imported lazily: `import irtoolkit.runtime` is free.

__all__ = ["llvm_ir", "emit_code", "compile_module", "compile_source", "cached_source", "preload",
           "clear_cache", "Executable", "Function", "ArgumentError", "AllocationError",
           "RuntimeCheckError", "StackExhaustedError"]


def llvm_ir(module: ModuleOp, pipeline: str | None = None) -> str:
    from irtoolkit.runtime.translate import llvm_ir as _llvm_ir

    return _llvm_ir(module, pipeline)


def emit_code(module: ModuleOp, assembly: bool = False) -> bytes:
    """An object file (or assembly text) of ``module`` for this host, to link into C programs."""
    from irtoolkit.runtime.translate import emit_code as _emit

    return _emit(module, assembly)


def compile_module(module: ModuleOp, pipeline: str | None = None, opt: int | None = None) -> Any:
    from irtoolkit.runtime.caches import compile_module as _compile

    return _compile(module, pipeline, opt)


def compile_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                   opt: int | None = None, module: ModuleOp | None = None) -> Any:
    from irtoolkit.runtime.caches import compile_source as _compile

    return _compile(text, filename, pipeline, opt, module)


def cached_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                  opt: int | None = None) -> Any:
    """The executable of ``compile_source(text, ...)`` if a cache has it, else None."""
    from irtoolkit.runtime.caches import cached_source as _cached

    return _cached(text, filename, pipeline, opt)


def preload() -> None:
    """Load the runtime's part of the compiler now: the translation to LLVM,
    LLVM itself for this CPU and the runtime functions compiled code shares
    (``support.py``); ``irtoolkit.preload`` loads the rest."""
    import importlib
    import pkgutil

    from irtoolkit.runtime.executable import default_opt, init_llvm, target_machine

    # every runtime module (the disk cache and the LLVM text writer included: a
    # first compile imports them otherwise, ~30 ms) and what translation runs
    for info in pkgutil.iter_modules(__path__, __name__ + "."):
        importlib.import_module(info.name)
    for name in ("xdsl.backend.llvm.convert", "xdsl.transforms.reconcile_unrealized_casts"):
        importlib.import_module(name)
    target_machine(init_llvm(), default_opt())
    from irtoolkit.abi import PARALLEL_FOR_SYMBOL
    from irtoolkit.runtime.support import address

    address(PARALLEL_FOR_SYMBOL)  # the functions compiled code shares, compiled once


def clear_cache(disk: bool = False) -> None:
    """Forget the in-memory executables (with ``disk``, also the disk cache's entries)."""
    from irtoolkit.runtime.caches import clear_cache as _clear

    _clear(disk)


_LAZY = {"Executable": "executable", "Function": "calling", "ArgumentError": "errors",
         "AllocationError": "errors", "RuntimeCheckError": "errors",
         "StackExhaustedError": "errors"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        return getattr(importlib.import_module(f"irtoolkit.runtime.{module}"), name)
    raise AttributeError(name)
