"""JIT runtime: lowering to LLVM IR, llvmlite MCJIT, and the numpy calling convention.

API
---
``llvm_ir(module, pipeline=None) -> str``
    LLVM IR text (checked by LLVM's parser and verifier). ``module`` may be in
    the llvm dialect already or at any higher level (it is lowered on a clone).
``compile_module(module, pipeline=None, opt=None) -> Executable``
    (``irtoolkit.compile``) captures the public functions' signatures, lowers a
    clone (default ``convert-stablehlo-to-tensor,ad,lower-to-llvm``; passes that do not exist are skipped
    when the module has no op that needs them; with an explicit pipeline, the
    rest of the default lowering runs afterwards if the result is not yet in the
    llvm dialect), optimizes for the host CPU and JITs with MCJIT.
    The input is verified once; the internal lowering passes are not verified
    after each (LLVM's verifier checks the result): ``IRT_VERIFY_EACH=1`` turns
    verify-each back on. LLVM level ``opt`` (default 3, ``IRT_OPT_LEVEL``
    overrides it) without loop unrolling (``IRT_LLVM_UNROLL=1`` turns it on):
    measured as fast as full O3 on the bench at 30-45 % less LLVM time.
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
``i64 @_irt_call_f(ptr frame)``. The frame is an array of 8-byte words: one
slot per argument, then one per result, in order. A scalar takes one word (its
value in the first bytes, ``i1`` as one byte 0/1); a rank-R memref takes
``3 + 2R`` words holding its descriptor. The wrapper loads the arguments,
calls ``@f`` and stores the results into their slots. Dynamic dimensions need
nothing more: sizes travel in the descriptors, in and out.

The wrapper returns an ``i64`` status: 0, or the size of an allocation that
failed. Compiled ``malloc`` calls go through ``@__irt_malloc``, which on a null
result (or a negative size) ``longjmp``s back to the wrapper (its ``jmp_buf`` is
found under a pthread TLS key, so concurrent calls from several threads are
fine); Python then raises ``AllocationError`` (a ``MemoryError``). Buffers
allocated earlier in that call leak.

Run-time checks (``cf.assert``, emitted by ``lower-tensor-to-loop`` where the
verifier could not check statically: dynamic dims that must agree, indices and
slices in bounds, reshape sizes) call ``@__irt_check_failed(msg, has_values,
a, b)`` when they fail; it longjmps back to the wrapper the same way, which
copies the message pointer and the two compared values to the frame's
``ERROR_WORDS`` words after the result slots; Python raises
``RuntimeCheckError`` (a ``DiagnosticError`` and a ``ValueError``) naming the
op, its ``file:line:col`` and the mismatch. No result is written. In a module
with such checks, ``@__irt_malloc`` also records each buffer in a per-call list
(after the jmp_buf; ``free`` goes through ``@__irt_free``, which drops it), and
a failed call (check or allocation) frees every buffer still listed: repeated
failing calls do not leak. Modules without checks skip that bookkeeping. In the JIT, functions defined in the
module are renamed ``__irt_fn_<name>`` so that C library calls LLVM emits
(``pow`` for ``llvm.pow``) never bind to a user function of the same name.
Before loading, every object is checked (``objectfile.read_object``) and the
external symbols it needs must be on the allow-list of ``symbols.py`` (libm,
memory, threads, BLAS ...): anything else is a diagnostic, not a crash.

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

__all__ = ["llvm_ir", "compile_module", "compile_source", "preload", "clear_cache", "Executable", "Function", "ArgumentError",
           "AllocationError", "RuntimeCheckError"]


def llvm_ir(module: ModuleOp, pipeline: str | None = None) -> str:
    from irtoolkit.runtime.translate import llvm_ir as _llvm_ir

    return _llvm_ir(module, pipeline)


def compile_module(module: ModuleOp, pipeline: str | None = None, opt: int | None = None) -> Any:
    from irtoolkit.runtime.jit import compile_module as _compile

    return _compile(module, pipeline, opt)


def compile_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                   opt: int | None = None) -> Any:
    from irtoolkit.runtime.jit import compile_source as _compile

    return _compile(text, filename, pipeline, opt)


def preload(pipeline: str | None = None) -> None:
    from irtoolkit.runtime.jit import preload as _preload

    _preload(pipeline)


def clear_cache(disk: bool = False) -> None:
    """Forget the in-memory executables (with ``disk``, also the disk cache's entries)."""
    from irtoolkit.runtime.jit import clear_cache as _clear

    _clear(disk)


def __getattr__(name: str) -> Any:
    if name in ("Executable", "Function", "ArgumentError", "AllocationError", "RuntimeCheckError"):
        from irtoolkit.runtime import jit

        return getattr(jit, name)
    raise AttributeError(name)
