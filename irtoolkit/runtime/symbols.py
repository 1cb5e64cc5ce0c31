"""What compiled code may call, and the addresses MCJIT binds those names to.

Compiled code reaches the outside world only through the undefined symbols of
its object files, and MCJIT resolves only the names registered here (it does
not search the process). The allow-list ``ALLOWED`` is the policy: the C
functions our lowering and LLVM's code generator emit -- libm, memory
allocation and copying, compiler-runtime helpers (integer powers, f16 and
128-bit conversions and divisions), the threads of parallel loops, the
setjmp/longjmp of the entry wrappers, printing a failed check -- numpy's
OpenBLAS gemm, and the runtime's own symbols (its TLS key, the print of
``printf.print_format``, the thread dispatch and call helpers of ``support.py``).
Nothing that starts processes, opens files or sockets, maps memory or loads code (``system``,
``exec*``, ``fork``, ``open``, ``dlopen``, ``mprotect`` ...): an object that
needs any name outside the list is refused before it is loaded, whether it
was just compiled or read from the disk cache.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterable

from irtoolkit.abi import (
    BLAS_SPLIT_SYMBOL, CALL_HELPER_SYMBOLS, GEMM_SYMBOLS, INTERRUPTS_SYMBOL, LOOPS_SERIAL_SYMBOL,
    PARALLEL_FOR_SYMBOL, PRINT_SYMBOL, TLS_KEY_SYMBOL,
)
from irtoolkit.diagnostics import Diagnostic, DiagnosticError

LIBM_DOUBLE = (
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "erf", "erfc", "fmod", "remainder", "floor", "ceil", "trunc",
    "round", "roundeven", "rint", "nearbyint", "lround", "llround", "lrint", "llrint",
    "fmin", "fmax", "fminimum", "fmaximum", "fabs", "copysign", "ldexp", "frexp", "modf",
    "sincos", "hypot", "lgamma", "tgamma", "fma", "logb", "ilogb", "scalbn",
)
LIBM = (*LIBM_DOUBLE, *(f + "f" for f in LIBM_DOUBLE))
MEMORY = ("malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign",
          "memcpy", "memmove", "memset", "memcmp")
# libgcc / compiler-rt: what LLVM calls for operations the CPU lacks
COMPILER_RUNTIME = (
    "__powidf2", "__powisf2", "__extendhfsf2", "__truncsfhf2", "__truncdfhf2",
    "__divti3", "__udivti3", "__modti3", "__umodti3", "__muloti4",
    "__fixdfti", "__fixsfti", "__fixunsdfti", "__fixunssfti",
    "__floattidf", "__floattisf", "__floatuntidf", "__floatuntisf",
)
THREADS = ("pthread_create", "pthread_detach", "pthread_getspecific", "pthread_setspecific",
           "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_broadcast",
           "sysconf", "getenv", "atol")
CONTROL = ("_setjmp", "setjmp", "longjmp", "abort", "puts", "putchar", "printf")
# numpy's OpenBLAS (see blas.py)
BLAS = tuple(GEMM_SYMBOLS.values())
# symbols the runtime defines in each process: data, Python callbacks, and the
# functions compiled code shares (support.py)
SHARED_FUNCTIONS = (PARALLEL_FOR_SYMBOL, *CALL_HELPER_SYMBOLS)
RUNTIME = (TLS_KEY_SYMBOL, INTERRUPTS_SYMBOL, PRINT_SYMBOL, BLAS_SPLIT_SYMBOL, LOOPS_SERIAL_SYMBOL,
           *SHARED_FUNCTIONS)

ALLOWED = frozenset((*LIBM, *MEMORY, *COMPILER_RUNTIME, *THREADS, *CONTROL, *BLAS, *RUNTIME))


def forbidden(names: Iterable[str]) -> list[str]:
    """The names, in order, that compiled code may not use."""
    return sorted({n for n in names if n not in ALLOWED})


def refuse_forbidden(names: Iterable[str]) -> None:
    """A diagnostic naming the symbols outside the allow-list, if any."""
    bad = forbidden(names)
    if bad:
        raise DiagnosticError(Diagnostic(
            "compiled code refers to " + ", ".join(f"@{n}" for n in bad)
            + ", which the JIT does not provide (it links only math, memory, thread "
            "and BLAS functions: see irtoolkit/runtime/symbols.py)"))


# --------------------------------------------------------------------------- addresses

_libc = ctypes.CDLL(None)
_registered: set[str] = set()
_LIBS: list = []
_lock = threading.Lock()
_KEY: list[int] = []


def pthread_key() -> int:
    """This process's pthread TLS key for the jmp_buf of the running entry wrapper."""
    with _lock:
        if not _KEY:
            key = ctypes.c_uint(0)
            if _libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise DiagnosticError(Diagnostic("cannot create a thread-local key for the JIT"))
            _KEY.append(key.value)
        return _KEY[0]


def _c_libraries() -> list:
    libs = [_libc]
    # the usual sonames first: find_library runs ldconfig (10+ ms)
    for name, soname in (("m", "libm.so.6"), ("c", "libc.so.6"), ("gcc_s", "libgcc_s.so.1")):
        try:
            libs.append(ctypes.CDLL(soname))
            continue
        except OSError:
            pass
        from ctypes.util import find_library

        path = find_library(name)
        if path:
            try:
                libs.append(ctypes.CDLL(path))
            except OSError:
                pass
    return libs


def _address(name: str) -> int | None:
    if name in BLAS:
        from irtoolkit.runtime.blas import gemm_address

        return gemm_address(name)
    if not _LIBS:
        _LIBS.extend(_c_libraries())
    for lib in _LIBS:
        try:
            addr = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            continue
        if addr:
            return addr
    return None


def register(llvm, names: Iterable[str]) -> list[str]:
    """Make the allowed ``names`` visible to MCJIT; returns those that were not
    found in this process (the caller refuses forbidden names first)."""
    missing = []
    for name in names:
        if name in _registered:
            continue
        if name not in ALLOWED:
            missing.append(name)
            continue
        if name == TLS_KEY_SYMBOL:  # not a function: this process's key, plus one
            addr = pthread_key() + 1
        elif name == INTERRUPTS_SYMBOL:
            from irtoolkit.runtime import interrupts

            addr = interrupts.address()
        elif name in (BLAS_SPLIT_SYMBOL, LOOPS_SERIAL_SYMBOL):  # the ways' flags
            from irtoolkit.runtime.blas import flag_address

            addr = flag_address(name)
        elif name in SHARED_FUNCTIONS:  # compiled once per process
            from irtoolkit.runtime.support import address

            addr = address(name)
        elif name == PRINT_SYMBOL:  # printf.print_format: a Python callback
            from irtoolkit.runtime.printf import callback_address

            addr = callback_address()
        else:
            addr = _address(name)
        if addr:
            llvm.add_symbol(name, addr)
            _registered.add(name)
        else:
            missing.append(name)
    return missing


def resolve(llvm, names: Iterable[str]) -> None:
    """Check ``names`` against the allow-list and register them; a diagnostic
    for a forbidden name or one this process cannot find."""
    names = sorted(set(names))
    refuse_forbidden(names)
    missing = register(llvm, names)
    if missing:
        raise DiagnosticError(Diagnostic(
            "compiled code needs symbols that cannot be resolved: " + ", ".join(missing)))
