"""JIT compilation with llvmlite's MCJIT and the numpy calling convention.

See the package docstring (``irtoolkit/runtime/__init__.py``) for the calling
convention and the ownership of returned buffers.
"""

from __future__ import annotations

import ctypes
import operator
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.runtime.signature import Signature, ValueSpec, capture_signatures
from irtoolkit.runtime.translate import (
    ERROR_WORDS,
    add_check_handler,
    add_interface,
    add_allocation_guard,
    guard_allocations,
    lower_module,
    mangle_functions,
    spec_words,
    to_llvmlite,
    track_frees,
    uses_runtime_checks,
)

DEAD_POINTER = 0xDEADBEEF  # allocated pointer of memref.get_global buffers (never freed)


class AllocationError(DiagnosticError, MemoryError):
    """Compiled code could not allocate a buffer (too large, or a negative size)."""

    def __init__(self, message: str):
        DiagnosticError.__init__(self, Diagnostic(message))


class RuntimeCheckError(DiagnosticError, ValueError):
    """A run-time check of compiled code failed (dynamic sizes that disagree,
    an index or slice out of bounds ...): a ``cf.assert`` emitted by the
    lowering. The message names the op, its location and what mismatched.
    Nothing was written to the results."""

    def __init__(self, message: str, location: Any = None):
        DiagnosticError.__init__(self, Diagnostic(message, location))


def check_failure(function: str, text: bytes, has_values: int, a: int, b: int) -> RuntimeCheckError:
    """The error for a failed check whose message global holds ``text``
    (``file\x1fline\x1fcol\x1fmessage``, see ``to_llvm/cf.py``)."""
    from irtoolkit.diagnostics import Location

    raw = text.decode("utf-8", "replace")
    parts = raw.split("\x1f", 3)
    location = None
    if len(parts) == 4:
        file, line, col, message = parts
        if file and line.isdigit() and col.isdigit():
            location = Location(file, int(line), int(col))
    else:
        message = raw
    if has_values:
        message = f"{message}: {a} vs {b}"
    if location is None:
        message = f"@{function}: {message}"
    return RuntimeCheckError(message, location)


_KEY: list[int] = []


def _pthread_key() -> int:
    """One pthread TLS key for the jmp_buf of the running entry wrapper."""
    if not _KEY:
        key = ctypes.c_uint(0)
        if _libc.pthread_key_create(ctypes.byref(key), None) != 0:
            raise DiagnosticError(Diagnostic("cannot create a thread-local key for the JIT"))
        _KEY.append(key.value)
    return _KEY[0]


class ArgumentError(DiagnosticError, TypeError):
    """A call with arguments that do not match the function's signature.

    Raised before any native code runs. It is both a DiagnosticError and a TypeError.
    """

    def __init__(self, message: str):
        DiagnosticError.__init__(self, Diagnostic(message))


# --------------------------------------------------------------------------- LLVM setup

_llvm_ready = False
_llvm_lock = threading.Lock()


def _init_llvm():
    global _llvm_ready
    import llvmlite.binding as llvm

    with _llvm_lock:
        if not _llvm_ready:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            register_c_symbols(llvm, _C_FUNCTIONS)
            _llvm_ready = True
    return llvm


# C functions compiled code may call: libm functions LLVM lowers intrinsics to,
# and what our lowering calls directly. MCJIT does not search the process for
# them on its own, so they are registered with their addresses.
_LIBM_BASE = (
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "cbrt",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "erf", "erfc", "fmod", "floor", "ceil", "trunc", "round",
    "roundeven", "rint", "nearbyint", "fmin", "fmax", "fabs", "copysign", "ldexp", "frexp",
    "sincos", "hypot", "lgamma", "tgamma",
)
_C_FUNCTIONS = (
    *_LIBM_BASE, *(f + "f" for f in _LIBM_BASE),
    "malloc", "free", "calloc", "realloc", "aligned_alloc", "memcpy", "memmove", "memset",
    "puts", "abort", "printf", "_setjmp", "longjmp", "pthread_getspecific",
    "pthread_setspecific",
    # compiler runtime (libgcc_s): integer powers, half-precision conversions
    "__powidf2", "__powisf2", "__extendhfsf2", "__truncsfhf2", "__truncdfhf2",
)
_registered: set[str] = set()


def _c_libraries() -> list:
    import ctypes.util

    libs = [ctypes.CDLL(None)]
    for name in ("m", "c", "gcc_s"):
        path = ctypes.util.find_library(name)
        if path:
            try:
                libs.append(ctypes.CDLL(path))
            except OSError:
                pass
    return libs


_LIBS: list = []


def register_c_symbols(llvm, names) -> list[str]:
    """Make C functions visible to MCJIT; returns the names that were not found."""
    if not _LIBS:
        _LIBS.extend(_c_libraries())
    missing = []
    for name in names:
        if name in _registered:
            continue
        addr = None
        for lib in _LIBS:
            try:
                addr = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
            except AttributeError:
                continue
            if addr:
                break
        if not addr and not _BLAS_LOADED and _load_numpy_blas():
            return register_c_symbols(llvm, names)
        if addr:
            llvm.add_symbol(name, addr)
            _registered.add(name)
        else:
            missing.append(name)
    return missing


_BLAS_LOADED: list = []


def _load_numpy_blas() -> bool:
    """Add numpy's bundled OpenBLAS (``scipy_cblas_dgemm64_`` ...) to the searched
    libraries, once; True if something new was loaded."""
    import glob
    import os

    if _BLAS_LOADED:
        return False
    _BLAS_LOADED.append(True)
    root = os.path.dirname(os.path.dirname(np.__file__))
    found = False
    for pattern in ("numpy.libs/*openblas*.so*", "numpy/.dylibs/*openblas*", "numpy.libs/*blas*.so*"):
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            try:
                _LIBS.append(ctypes.CDLL(path))
                found = True
            except OSError:
                pass
        if found:
            break
    return found


def elf_undefined_symbols(obj: bytes) -> list[str] | None:
    """Names of the undefined symbols of an ELF64 little-endian object (None: not ELF64)."""
    import struct

    if len(obj) < 64 or obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names: list[str] = []
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        offset, size, link, entsize = sec[4], sec[5], sec[6], sec[9] or 24
        str_off = sections[link][4]
        for k in range(1, size // entsize):
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", obj, offset + k * entsize)
            if st_shndx == 0 and st_name:
                end = obj.index(b"\0", str_off + st_name)
                names.append(obj[str_off + st_name: end].decode())
    return names


def _target_machine(llvm, opt: int):
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=opt,
        jit=True,
    )


_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


# --------------------------------------------------------------------------- result buffers


class _MallocBuffer:
    """Owns a buffer malloc'ed by compiled code; frees it when numpy lets go."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            _free(self.ptr)
            self.ptr = 0


class _View:
    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface: dict, owner: Any):
        self.__array_interface__ = interface
        self.owner = owner


# --------------------------------------------------------------------------- calling


class Function:
    """A compiled function, called with numpy arrays and Python/numpy scalars."""

    def __init__(self, executable: Executable, sig: Signature, address: int | None,
                 reason: str | None):
        self._exe = executable  # keeps the engine alive
        self.signature = sig
        self.name = sig.name
        self._reason = reason
        self._cfunc = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(address) if address else None
        layout, word = [], 0
        for spec in (*sig.inputs, *sig.outputs):
            layout.append(word)
            word += spec_words(spec)
        n_in = len(sig.inputs)
        # per argument: (spec, first word, rank if a ranked array else 0)
        self._in_plan = [(s, layout[i], s.rank if s.is_array else 0)
                         for i, s in enumerate(sig.inputs)]
        self._out_plan = [(s, layout[n_in + j]) for j, s in enumerate(sig.outputs)]
        self._err = word  # error words of a failed runtime check (see add_interface)
        self._nwords = word + ERROR_WORDS
        self._tls = threading.local()

    def _frame(self):
        tls = self._tls
        frame = getattr(tls, "frame", None)
        if frame is None:
            frame = np.zeros(self._nwords, np.int64)
            tls.frame = frame
            tls.ptr = frame.ctypes.data
            tls.views = {}
        return tls

    def __repr__(self) -> str:
        ins = ", ".join(s.type_text for s in self.signature.inputs)
        outs = ", ".join(s.type_text for s in self.signature.outputs)
        return f"<compiled @{self.name}({ins}) -> ({outs})>"

    # -- argument checking ----------------------------------------------------
    def _check_array(self, i: int, spec: ValueSpec, x: Any) -> np.ndarray:
        where = f"@{self.name} argument #{i} ({spec.type_text})"
        if isinstance(x, np.ndarray):
            a = x
            if a.dtype != spec.dtype:
                raise ArgumentError(f"{where}: expected dtype {spec.dtype}, got {a.dtype}")
        else:
            try:
                a = np.asarray(x)
            except Exception as err:  # noqa: BLE001
                raise ArgumentError(f"{where}: expected an array, got {type(x).__name__}") from err
            if a.dtype == object or not np.can_cast(a.dtype, spec.dtype, "same_kind"):
                raise ArgumentError(f"{where}: expected dtype {spec.dtype}, got {a.dtype}")
            a = a.astype(spec.dtype)
        if a.ndim != spec.rank:
            raise ArgumentError(f"{where}: expected rank {spec.rank}, got an array of shape {a.shape}")
        for k, (want, got) in enumerate(zip(spec.shape, a.shape)):  # type: ignore[arg-type]
            if want is not None and want != got:
                raise ArgumentError(
                    f"{where}: dimension {k} must be {want}, got an array of shape {a.shape}")
        if not a.flags.c_contiguous or not a.flags.aligned:
            a = np.ascontiguousarray(a)
        return a

    def _scalar(self, i: int, spec: ValueSpec, x: Any):
        t = type(x)
        kind = spec.dtype.kind
        if kind == "f" and (t is float or t is spec.dtype.type):
            return x
        if kind == "b" and t is bool:
            return x
        where = f"@{self.name} argument #{i} ({spec.type_text})"
        if isinstance(x, np.ndarray):
            if x.ndim != 0:
                raise ArgumentError(f"{where}: expected a scalar, got an array of shape {x.shape}")
            x = x[()]
        kind = spec.dtype.kind
        try:
            if kind == "f":
                if isinstance(x, (str, bytes, complex)) or isinstance(x, np.complexfloating):
                    raise TypeError
                return float(x)
            if kind == "b":
                if not isinstance(x, (bool, np.bool_, int, np.integer)):
                    raise TypeError
                return bool(x)
            if isinstance(x, (bool, np.bool_)):
                return int(x)
            v = operator.index(x)
        except (TypeError, ValueError):
            raise ArgumentError(f"{where}: expected a {spec.type_text} scalar, "
                                f"got {type(x).__name__}") from None
        info = np.iinfo(spec.dtype)
        if not info.min <= v <= info.max:
            raise ArgumentError(f"{where}: {v} does not fit in {spec.type_text}")
        return v

    # -- the call -------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        sig = self.signature
        if self._cfunc is None:
            raise ArgumentError(f"function @{self.name} cannot be called from Python: {self._reason}")
        if len(args) != len(sig.inputs):
            raise ArgumentError(
                f"@{self.name} takes {len(sig.inputs)} argument(s), got {len(args)}")
        tls = self._tls
        frame = getattr(tls, "frame", None)
        if frame is None:
            frame = self._frame().frame
        keep = []  # arrays that must stay alive during the call
        inputs = []  # data pointers of the buffers we pass in
        # check every argument and fill the frame; native code runs only after
        for i, x in enumerate(args):
            spec, w, n = self._in_plan[i]
            if n:
                if (type(x) is not np.ndarray or x.dtype != spec.dtype or x.ndim != n
                        or not x.flags.carray or not self._static_ok(spec, x.shape)):
                    x = self._check_array(i, spec, x)
                keep.append(x)
                ptr = x.__array_interface__["data"][0]
                inputs.append(ptr)
                isz = x.itemsize
                frame[w: w + 3 + 2 * n] = (ptr, ptr, 0, *x.shape, *[s // isz for s in x.strides])
            elif spec.is_array:  # rank 0
                if type(x) is not np.ndarray or x.dtype != spec.dtype or x.ndim != 0:
                    x = self._check_array(i, spec, x)
                keep.append(x)
                ptr = x.__array_interface__["data"][0]
                inputs.append(ptr)
                frame[w: w + 3] = (ptr, ptr, 0)
            else:
                self._store_scalar(tls, w, spec.dtype, self._scalar(i, spec, x))
        status = self._cfunc(tls.ptr)
        del keep
        if status:
            if frame[self._err]:
                err = self._err
                msg, flag, a, b = (int(x) for x in frame[err: err + 4])
                raise check_failure(self.name, ctypes.string_at(msg % (1 << 64)), flag, a, b)
            if status < 0:
                raise AllocationError(
                    f"@{self.name}: invalid allocation of {status} bytes (a negative size?)")
            raise AllocationError(f"@{self.name}: memory allocation of {status} bytes failed")
        if not sig.outputs:
            return None
        words = frame.tolist()
        results = []
        owners: dict[int, Any] = {}
        for spec, w in self._out_plan:
            if spec.is_array:
                results.append(_wrap_array(spec, words, w, inputs, owners))
            else:
                results.append(self._load_scalar(tls, w, spec.dtype))
        if len(results) == 1:
            return results[0]
        return tuple(results)

    @staticmethod
    def _static_ok(spec: ValueSpec, shape: tuple) -> bool:
        for want, got in zip(spec.shape, shape):  # type: ignore[arg-type]
            if want is not None and want != got:
                return False
        return True

    @staticmethod
    def _view(tls, dtype: np.dtype) -> np.ndarray:
        v = tls.views.get(dtype)
        if v is None:
            v = tls.views[dtype] = tls.frame.view(dtype)
        return v

    def _store_scalar(self, tls, w: int, dtype: np.dtype, value) -> None:
        if dtype.itemsize == 8 and dtype.kind == "i":
            tls.frame[w] = value
            return
        view = self._view(tls, dtype)
        view[w * (8 // dtype.itemsize)] = value

    def _load_scalar(self, tls, w: int, dtype: np.dtype):
        view = self._view(tls, dtype)
        return view[w * (8 // dtype.itemsize)]


def _wrap_array(spec: ValueSpec, words: list, w: int, inputs: list, owners: dict) -> np.ndarray:
    """The numpy array for a memref descriptor returned in ``words[w:]``."""
    rank = spec.rank
    allocated, aligned, offset = words[w], words[w + 1], words[w + 2]
    shape = tuple(words[w + 3: w + 3 + rank])
    strides_el = words[w + 3 + rank: w + 3 + 2 * rank]
    dtype = spec.dtype
    isz = dtype.itemsize
    count = 1
    contiguous = True
    for k in range(rank - 1, -1, -1):
        if shape[k] != 1 and strides_el[k] != count:
            contiguous = False
        count *= shape[k]
    if allocated < 0:
        allocated += 1 << 64
    if aligned < 0:
        aligned += 1 << 64
    foreign = allocated == DEAD_POINTER or allocated in inputs
    if count == 0:
        if not foreign and allocated not in owners:
            owners[allocated] = None
            if allocated:
                _free(allocated)
        return np.empty(shape, dtype)
    interface = {
        "data": (aligned + offset * isz, False),
        "shape": shape,
        "typestr": dtype.str,
        "strides": None if contiguous else tuple(s * isz for s in strides_el),
        "version": 3,
    }
    if foreign:
        # a constant global or an input buffer: the caller gets a copy
        return np.array(_View(interface, None), copy=True)
    owner = owners.get(allocated)
    if owner is None:
        owner = owners[allocated] = _MallocBuffer(allocated)
    arr = np.asarray(_View(interface, owner))
    if not contiguous:
        arr = np.ascontiguousarray(arr)
    return arr


# --------------------------------------------------------------------------- executable


class Executable:
    """A JIT-compiled module: ``exe["main"](*arrays)``.

    Holds the MCJIT engine; functions taken from it keep it alive.
    """

    def __init__(self, lowered: ModuleOp, signatures: dict[str, Signature], opt: int = 3):
        llvm = _init_llvm()
        mapping = mangle_functions(lowered)
        guarded = guard_allocations(lowered)
        checked = uses_runtime_checks(lowered)
        # a failed check frees what the call allocated: track its buffers
        track = guarded and checked
        if track:
            track_frees(lowered)
        # --- vector math: exp/log/tanh/sin/cos intrinsic calls to vectorizable arithmetic
        # (passes/lowering/to_llvm/vector_math.py; to_llvmlite defines its libm helpers)
        from irtoolkit.passes.lowering.to_llvm.vector_math import expand_math_intrinsics
        expand_math_intrinsics(lowered)
        # --- end vector math
        llmod = to_llvmlite(lowered)
        key = _pthread_key() if guarded or checked else None
        if guarded:
            add_allocation_guard(llmod, key, track)
        if checked:
            add_check_handler(llmod, key)
        entries: dict[str, str | None] = {}
        for name, sig in signatures.items():
            entries[name] = (add_interface(llmod, sig, mapping.get(name, name), key, track)
                             if sig.unsupported is None else None)
        self.llvm_ir = str(llmod)
        try:
            mod = llvm.parse_assembly(self.llvm_ir)
            mod.verify()
        except RuntimeError as err:
            raise DiagnosticError(Diagnostic(f"invalid LLVM IR produced: {err}")) from None
        externals = [f.name for f in mod.functions
                     if f.is_declaration and not f.name.startswith("llvm.")]
        missing = register_c_symbols(llvm, externals)
        if missing:
            raise DiagnosticError(Diagnostic(
                "unresolved external function(s): " + ", ".join(f"@{n}" for n in missing)))
        tm = _target_machine(llvm, opt)
        mod.triple = llvm.get_process_triple()
        mod.data_layout = str(tm.target_data)
        if opt > 0:
            pto = llvm.create_pipeline_tuning_options(speed_level=min(opt, 3))
            pb = llvm.create_pass_builder(tm, pto)
            pb.getModulePassManager().run(mod, pb)
        # Machine code first, so that every external symbol it needs can be checked:
        # MCJIT aborts the process on an unresolved one.
        obj = tm.emit_object(mod)
        undefined = elf_undefined_symbols(obj)
        if undefined is not None:
            missing = register_c_symbols(llvm, undefined)
            if missing:
                raise DiagnosticError(Diagnostic(
                    "compiled code needs symbols that cannot be resolved: "
                    + ", ".join(missing)))
        self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        self._engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        self._engine.finalize_object()
        self._module = mod
        self.signatures = signatures
        self._functions: dict[str, Function] = {}
        for name, sig in signatures.items():
            wrapper = entries[name]
            if wrapper is None:
                reason = sig.unsupported or (
                    "its lowered signature does not match its declared one "
                    "(tensor/memref arguments and results must lower to memref descriptors)")
                self._functions[name] = Function(self, sig, None, reason)
            else:
                addr = self._engine.get_function_address(wrapper)
                self._functions[name] = Function(self, sig, addr, None)

    @property
    def optimized_llvm_ir(self) -> str:
        return str(self._module)

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


_CACHE: OrderedDict[tuple[str, str], Executable] = OrderedDict()
_CACHE_SIZE = 64
_cache_lock = threading.Lock()


def clear_cache() -> None:
    with _cache_lock:
        _CACHE.clear()


def compile_module(module: ModuleOp, pipeline: str | None = None, opt: int = 3) -> Executable:
    """Lower a clone of ``module`` and JIT-compile it (``module`` is left unchanged).

    Compiling the same module text with the same pipeline again returns the
    same Executable.
    """
    from xdsl.printer import Printer
    import io

    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=True).print_op(module)
    key = (buf.getvalue(), f"{pipeline or ''}|O{opt}")
    with _cache_lock:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    from irtoolkit.gcpause import paused_gc

    signatures = capture_signatures(module)
    with paused_gc():  # IR and llvmlite objects: the collector's rescans cost seconds
        lowered = lower_module(module, pipeline)
        exe = Executable(lowered, signatures, opt)
    with _cache_lock:
        _CACHE[key] = exe
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return exe
