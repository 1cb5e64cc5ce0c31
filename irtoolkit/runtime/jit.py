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

from typing import TYPE_CHECKING

import numpy as np

from irtoolkit.diagnostics import Diagnostic, DiagnosticError
from irtoolkit.abi import ENTRY_PREFIX, ERROR_WORDS
from irtoolkit.runtime import codegen, symbols
from irtoolkit.runtime.objectfile import InvalidObject, ObjectSymbols, read_object
from irtoolkit.runtime.signature import Signature, ValueSpec, capture_signatures, spec_words

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

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
            # C functions are registered on demand: the machine code's
            # undefined symbols, before it is loaded (see Executable._load)
            _llvm_ready = True
    return llvm


def _target_machine(llvm, opt: int):
    target = llvm.Target.from_triple(llvm.get_process_triple())
    # LLVM tunes AVX-512 server CPUs to prefer 256-bit vectors (against clock throttling
    # in mixed code); our hot loops are long vectorized math kernels, where full width
    # measured 1.4x faster (W1 single-threaded: 4.1 -> 2.8 ms forward, 4.9 -> 3.4 ms
    # gradient). Harmless on CPUs without 512-bit vectors.
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten() + ",-prefer-256-bit",
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


# Reading an array's data pointer: ``PyArrayObject`` starts with the object
# header, then ``char *data`` (numpy's C ABI: the PyArray_DATA macro reads it).
# Reading that word costs 0.3 us; ``__array_interface__`` builds a dict (1.8 us).
# Checked at import on a few arrays; if it does not hold, the portable way is used.
_DATA_OFFSET = object.__basicsize__
_read_word = ctypes.c_size_t.from_address


def _data_offset_ok() -> bool:
    import sys

    if sys.implementation.name != "cpython":
        return False
    base = np.arange(12.0).reshape(3, 4)
    for a in (base, base[1:], base[:, 1], np.zeros(5, np.float32), np.empty(0), np.array(2.5)):
        if _read_word(id(a) + _DATA_OFFSET).value != a.__array_interface__["data"][0]:
            return False
    return True


if _data_offset_ok():
    def _data_ptr(a: np.ndarray) -> int:
        return _read_word(id(a) + _DATA_OFFSET).value
else:  # pragma: no cover - other Python implementations
    def _data_ptr(a: np.ndarray) -> int:
        return a.__array_interface__["data"][0]


def _c_strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major strides in elements."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return out[::-1]


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
        # the fast path: per argument (kind, spec, first word, rank, dtype, static shape);
        # kind 0 = ranked array, 1 = 0-d array, 2 = scalar. The size and stride words of
        # an array of fully static shape are written once per frame (see _frame).
        self._fast_in = []
        for s, w, n in self._in_plan:
            static = (tuple(s.shape) if s.is_array and all(d is not None for d in s.shape)
                      else None)
            kind = 0 if n else (1 if s.is_array else 2)
            self._fast_in.append((kind, s, w, n, s.dtype, static))
        # per result: (spec, first word, rank, dtype, static shape, its size+stride
        # words, nbytes, ctypes buffer type) -- the last four None if not fully static
        self._fast_out = []
        for s, w in self._out_plan:
            if s.is_array and s.rank and all(d is not None for d in s.shape):
                shape = tuple(s.shape)
                count = int(np.prod(shape))
                if count > 0:
                    nbytes = count * s.dtype.itemsize
                    self._fast_out.append((s, w, s.rank, s.dtype, shape,
                                           [*shape, *_c_strides(shape)], nbytes,
                                           ctypes.c_char * nbytes))
                    continue
            self._fast_out.append((s, w, s.rank, s.dtype, None, None, None, None))
        self._err = word  # error words of a failed runtime check (see add_interface)
        self._nwords = word + ERROR_WORDS
        self._tls = threading.local()

    def _frame(self):
        tls = self._tls
        frame = getattr(tls, "frame", None)
        if frame is None:
            frame = np.zeros(self._nwords, np.int64)
            for kind, _s, w, n, _d, static in self._fast_in:
                if kind == 0 and static is not None:
                    frame[w + 3: w + 3 + 2 * n] = [*static, *_c_strides(static)]
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
        cfunc = self._cfunc
        if cfunc is None:
            raise ArgumentError(f"function @{self.name} cannot be called from Python: {self._reason}")
        plan = self._fast_in
        if len(args) != len(plan):
            raise ArgumentError(
                f"@{self.name} takes {len(plan)} argument(s), got {len(args)}")
        tls = self._tls
        frame = getattr(tls, "frame", None)
        if frame is None:
            frame = self._frame().frame
        keep = []  # arrays that must stay alive during the call
        inputs = []  # data pointers of the buffers we pass in
        ndarray = np.ndarray
        # check every argument and fill the frame; native code runs only after
        for i, x in enumerate(args):
            kind, spec, w, n, d, static = plan[i]
            if kind == 0:
                if (type(x) is not ndarray or (x.dtype is not d and x.dtype != d)
                        or not x.flags.carray
                        or (x.shape != static if static is not None
                            else (x.ndim != n or not self._static_ok(spec, x.shape)))):
                    x = self._check_array(i, spec, x)
                keep.append(x)
                ptr = _data_ptr(x)
                inputs.append(ptr)
                frame[w] = ptr
                frame[w + 1] = ptr
                if static is None:  # dynamic sizes travel in the descriptor
                    isz = x.itemsize
                    frame[w + 3: w + 3 + 2 * n] = (*x.shape, *[s // isz for s in x.strides])
            elif kind == 1:  # rank 0
                if type(x) is not ndarray or x.dtype != d or x.ndim != 0:
                    x = self._check_array(i, spec, x)
                keep.append(x)
                ptr = _data_ptr(x)
                inputs.append(ptr)
                frame[w] = ptr
                frame[w + 1] = ptr
            else:
                self._store_scalar(tls, w, d, self._scalar(i, spec, x))
        status = cfunc(tls.ptr)
        del keep
        if status:
            err = self._err
            if frame[err]:
                msg, flag, a, b = (int(x) for x in frame[err: err + 4])
                frame[err] = 0  # consumed: a later failure must not see it
                raise check_failure(self.name, ctypes.string_at(msg % (1 << 64)), flag, a, b)
            if status < 0:
                raise AllocationError(
                    f"@{self.name}: invalid allocation of {status} bytes (a negative size?)")
            raise AllocationError(f"@{self.name}: memory allocation of {status} bytes failed")
        outs = self._fast_out
        if not outs:
            return None
        words = frame.tolist()
        results = []
        owners: dict[int, Any] = {}
        for spec, w, n, d, shape, expect, nbytes, buftype in outs:
            if shape is not None and words[w + 3: w + 3 + 2 * n] == expect:
                # a static, row-major result: wrap the buffer (no copy)
                allocated = words[w] % (1 << 64)
                data = words[w + 1] % (1 << 64) + words[w + 2] * d.itemsize
                if allocated == DEAD_POINTER or allocated in inputs:
                    # a constant global or an input buffer: the caller gets a copy
                    results.append(np.ndarray(shape, d, buftype.from_address(data)).copy())
                    continue
                owner = owners.get(allocated)
                if owner is None:
                    owner = owners[allocated] = _MallocBuffer(allocated)
                buf = buftype.from_address(data)
                buf._irt_owner = owner  # frees the malloc'ed block with the last view
                results.append(np.ndarray(shape, d, buf))
            elif spec.is_array:
                results.append(_wrap_array(spec, words, w, inputs, owners))
            else:
                results.append(self._load_scalar(tls, w, d))
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
        from irtoolkit.runtime.translate import (add_allocation_guard, add_check_handler,
                                                 add_interface, guard_allocations,
                                                 mangle_functions, to_llvmlite, track_frees,
                                                 uses_runtime_checks)

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
        if guarded:
            add_allocation_guard(llmod, track)
        if checked:
            add_check_handler(llmod)
        entries: dict[str, str | None] = {}
        for name, sig in signatures.items():
            entries[name] = (add_interface(llmod, sig, mapping.get(name, name),
                                           guarded or checked, track)
                             if sig.unsupported is None else None)
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
                                       lambda: _target_machine(llvm, opt), opt, self.unroll,
                                       keep_ir=keep_ir)
        if keep_ir:
            self._optimized_ir = "\n".join(g.optimized_ir or "" for g in built)
        return [g.obj for g in built], entries

    def _load(self, objects: list[bytes], entries: dict[str, str | None],
              contents: list[ObjectSymbols] | None = None) -> None:
        """Load checked objects (``contents``: their ``read_object``, if done
        already); every symbol they need must be allowed and found first:
        MCJIT aborts the process on an unresolved one."""
        llvm = _init_llvm()
        if contents is None:
            try:
                contents = [read_object(obj) for obj in objects]
            except InvalidObject as err:
                raise DiagnosticError(Diagnostic(f"LLVM produced an object the JIT cannot load: {err}")) from None
        symbols.resolve(llvm, {name for c in contents for name in c.undefined})
        tm = _target_machine(llvm, self.opt)  # one per engine: MCJIT takes ownership
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
        with verify_each_default(_verify_each()):
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


# --------------------------------------------------------------------------- compile caches

_CACHE: OrderedDict[tuple[str, str], Executable] = OrderedDict()
_CACHE_SIZE = 64  # executables kept in memory (each holds an MCJIT engine)
_cache_lock = threading.Lock()

# LLVM level of compile_module: O3 (the speed level of LLVM's pass pipeline and
# of the code generator) WITHOUT loop unrolling (vectorization and interleaving
# kept). Measured on bench W1-W5 against full O3: LLVM's time -30..-45 % on W2
# and W4 (W2 1015 -> 555 ms, W4 900 -> 590 ms under load), run times equal except
# W4's forward (+3 %); O2 or no interleaving cost up to 7 % (W1, W4 forward).
# IRT_OPT_LEVEL=0..3 sets the level, IRT_LLVM_UNROLL=1 turns unrolling back on.
DEFAULT_OPT = 3


def default_opt() -> int:
    import os

    v = os.environ.get("IRT_OPT_LEVEL", "").strip()
    if v in ("0", "1", "2", "3"):
        return int(v)
    return DEFAULT_OPT


def loop_unrolling() -> bool:
    import os

    return os.environ.get("IRT_LLVM_UNROLL", "").strip() not in ("", "0")


def llvm_config(opt: int) -> str:
    """The LLVM settings a cached executable was compiled with (part of its key)."""
    return f"{opt}{'+unroll' if loop_unrolling() else '-nounroll'}"


def preload(pipeline: str | None = None) -> None:
    """Load the compiler now rather than during the first parse and compile:
    every dialect, every pass module (and checks that ``pipeline``, default
    ``convert-stablehlo-to-tensor,ad,lower-to-llvm``, builds), the translation to LLVM and LLVM itself for
    this CPU."""
    import importlib
    import pkgutil

    import irtoolkit.passes
    import irtoolkit.runtime
    from irtoolkit.context import DIALECTS, DEFAULT_COMPILE_PIPELINE, dialect_factory
    from irtoolkit.parsing import parse_module
    from irtoolkit.pipeline import build_passes

    for name in DIALECTS:
        dialect_factory(name)()
    build_passes(pipeline or DEFAULT_COMPILE_PIPELINE)
    # what passes and the runtime import on first use
    for package in (irtoolkit.passes, irtoolkit.runtime):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    for name in ("xdsl.backend.llvm.convert", "xdsl.transforms.canonicalization_patterns.arith"):
        importlib.import_module(name)
    parse_module("func.func @f() {\n  func.return\n}\n", "<preload>")
    llvm = _init_llvm()
    _target_machine(llvm, default_opt())


def clear_cache(disk: bool = False) -> None:
    """Forget the in-memory executables (and with ``disk``, the disk cache's entries)."""
    with _cache_lock:
        _CACHE.clear()
    if disk:
        from irtoolkit.runtime import diskcache

        diskcache.clear()


def module_key_text(module: ModuleOp) -> str:
    """The text a compiled module is cached under: the generic form with locations."""
    from xdsl.printer import Printer
    import io

    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=True, print_debuginfo=True).print_op(module)
    return buf.getvalue()


def _encode_signatures(sigs: dict[str, Signature]) -> list:
    def spec(s: ValueSpec) -> list:
        return [s.type_text, s.dtype.str, None if s.shape is None else list(s.shape)]

    return [[s.name, [spec(x) for x in s.inputs], [spec(x) for x in s.outputs], s.unsupported]
            for s in sigs.values()]


# the dtypes a cached signature may name (what irtoolkit.types maps element types to)
_DTYPES = frozenset(np.dtype(t).str for t in (
    np.float16, np.float32, np.float64, np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64))
_MAX_RANK = 64


class InvalidEntry(ValueError):
    """Metadata of a disk-cache entry that does not follow the schema."""


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise InvalidEntry(what)


def _decode_spec(x: Any) -> ValueSpec:
    _expect(isinstance(x, list) and len(x) == 3, "a value spec is not [type, dtype, shape]")
    t, dt, shape = x
    _expect(isinstance(t, str) and isinstance(dt, str) and dt in _DTYPES, "bad type or dtype")
    if shape is not None:
        _expect(isinstance(shape, list) and len(shape) <= _MAX_RANK
                and all(d is None or (type(d) is int and d >= 0) for d in shape), "bad shape")
        shape = tuple(shape)
    return ValueSpec(t, np.dtype(dt), shape)


def _decode_signatures(data: Any) -> dict[str, Signature]:
    _expect(isinstance(data, list), "signatures is not a list")
    out = {}
    for item in data:
        _expect(isinstance(item, list) and len(item) == 4, "a signature is not [name, ins, outs, why]")
        name, ins, outs, why = item
        _expect(isinstance(name, str) and isinstance(ins, list) and isinstance(outs, list)
                and (why is None or isinstance(why, str)) and name not in out, "bad signature")
        out[name] = Signature(name, tuple(_decode_spec(x) for x in ins),
                              tuple(_decode_spec(x) for x in outs), why)
    return out


def _decode_meta(meta: dict, blob: bytes, opt: int):
    """(signatures, entry points, objects) of a cache entry's metadata and
    object code; ``InvalidEntry`` for anything outside the schema."""
    _expect(set(meta) == {"key", "signatures", "entries", "opt", "object_sizes"}, "unexpected keys")
    sigs = _decode_signatures(meta["signatures"])
    entries = meta["entries"]
    _expect(isinstance(entries, dict) and set(entries) == set(sigs), "entries do not match signatures")
    for name, wrapper in entries.items():
        _expect(wrapper is None or wrapper == ENTRY_PREFIX + name, "bad entry point name")
    _expect(meta["opt"] == opt, "another optimization level")
    sizes = meta["object_sizes"]
    _expect(isinstance(sizes, list) and 0 < len(sizes) <= 1024
            and all(type(n) is int and n > 0 for n in sizes) and sum(sizes) == len(blob),
            "object sizes do not add up")
    objects, start = [], 0
    for size in sizes:
        objects.append(blob[start:start + size])
        start += size
    return sigs, entries, objects


def _verify_each() -> bool:
    import os

    return os.environ.get("IRT_VERIFY_EACH", "").strip() not in ("", "0")


def _load_from_disk(key: str, source: tuple[str, str, str | None], opt: int) -> Executable | None:
    from irtoolkit.runtime import diskcache

    entry = diskcache.load(key)
    if entry is None:
        return None
    meta, blob = entry
    try:
        sigs, entries, objects = _decode_meta(meta, blob, opt)
        contents = [read_object(obj) for obj in objects]
        bad = symbols.forbidden(name for c in contents for name in c.undefined)
        if bad:
            diskcache.warn_once(f"entry {key} refers to {', '.join(bad)}, which compiled code may "
                                "not call: discarded")
            raise InvalidEntry("forbidden symbols")
        defined = {name for c in contents for name in c.defined}
        _expect(all(w is None or w in defined for w in entries.values()), "entry point missing")
        return Executable.from_objects(objects, sigs, entries, opt, source, contents)
    except (ValueError, DiagnosticError):  # InvalidEntry, InvalidObject, a symbol not found ...
        diskcache.discard(key)  # compile afresh
        return None


def _store_on_disk(key: str, exe: Executable) -> None:
    from irtoolkit.runtime import diskcache

    meta = dict(signatures=_encode_signatures(exe.signatures), entries=exe._entries, opt=exe.opt,
                object_sizes=[len(o) for o in exe._objects])
    diskcache.store(key, meta, b"".join(exe._objects))


def compile_module(module: ModuleOp, pipeline: str | None = None, opt: int | None = None) -> Executable:
    """Lower a clone of ``module`` and JIT-compile it (``module`` is left unchanged).

    Compiling the same module (text and locations) with the same pipeline again
    returns the same Executable (in-memory cache); another process compiling it
    loads the machine code from the disk cache (``irtoolkit.runtime.diskcache``).
    """
    if opt is None:
        opt = default_opt()
    text = module_key_text(module)
    mkey = (text, f"{pipeline or ''}|O{llvm_config(opt)}")
    with _cache_lock:
        hit = _CACHE.get(mkey)
        if hit is not None:
            _CACHE.move_to_end(mkey)
            return hit
    from irtoolkit.runtime import diskcache

    dkey = None
    if diskcache.cache_dir() is not None:
        dkey = diskcache.make_key(text, pipeline, llvm_config(opt), _init_llvm())
        exe = _load_from_disk(dkey, (text, "<cached module>", pipeline), opt)
        if exe is not None:
            return _remember(mkey, exe)
    exe = _compile_fresh(module, pipeline, opt)
    exe._source = (text, "<cached module>", pipeline)
    if dkey is not None:
        _store_on_disk(dkey, exe)
    return _remember(mkey, exe)


def compile_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                   opt: int | None = None, module: ModuleOp | None = None) -> Executable:
    """Parse (and verify) ``text`` and compile it: ``compile_module(parse_module(text))``,
    with one more cache level keyed on the source text and file name, so that a
    program compiled before (by any process) is loaded from the disk cache
    without parsing -- without even importing xDSL (a few ms in all). ``module``:
    ``text`` parsed already."""
    if opt is None:
        opt = default_opt()
    exe, skey, dkey = _cached_source(text, filename, pipeline, opt)
    if exe is not None:
        return exe
    if module is None:
        from irtoolkit.parsing import parse_module

        module = parse_module(text, filename)
    exe = compile_module(module, pipeline, opt)
    if dkey is not None:
        _store_on_disk(dkey, exe)
    return _remember(skey, exe)


def cached_source(text: str, filename: str = "<string>", pipeline: str | None = None,
                  opt: int | None = None) -> Executable | None:
    """The executable of ``compile_source(text, ...)`` if it is in the in-memory or
    the disk cache (nothing is parsed or compiled); else None."""
    return _cached_source(text, filename, pipeline, default_opt() if opt is None else opt)[0]


def _cached_source(text: str, filename: str, pipeline: str | None,
                   opt: int) -> tuple[Executable | None, tuple, str | None]:
    """(the cached executable or None, its in-memory key, its disk key or None
    when the disk cache is off)."""
    skey = ("source", text, filename, f"{pipeline or ''}|O{llvm_config(opt)}")
    with _cache_lock:
        hit = _CACHE.get(skey)  # type: ignore[call-overload]
        if hit is not None:
            _CACHE.move_to_end(skey)  # type: ignore[arg-type]
            return hit, skey, None
    from irtoolkit.runtime import diskcache

    if diskcache.cache_dir() is None:
        return None, skey, None
    dkey = diskcache.make_key(text, pipeline, llvm_config(opt), _init_llvm(), source_name=filename)
    exe = _load_from_disk(dkey, (text, filename, pipeline), opt)
    return (None if exe is None else _remember(skey, exe)), skey, dkey


def _remember(mkey, exe: Executable) -> Executable:
    with _cache_lock:
        _CACHE[mkey] = exe
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return exe


def _compile_fresh(module: ModuleOp, pipeline: str | None, opt: int) -> Executable:
    from irtoolkit.gcpause import paused_gc
    from irtoolkit.runtime import translate
    from irtoolkit.pipeline import verify_each_default
    from irtoolkit.verifier import verify_module

    signatures = capture_signatures(module)
    with paused_gc():  # IR and llvmlite objects: the collector's rescans cost seconds
        check_each = _verify_each()
        if not check_each:
            # the input is verified once; the internal passes are not re-verified
            # (LLVM's verifier checks the end result). IRT_VERIFY_EACH=1 turns it on.
            verify_module(module)
        with verify_each_default(check_each):
            lowered = translate.lower_module(module, pipeline)
        return Executable(lowered, signatures, opt)
