"""The numpy calling convention: a compiled function called with numpy arrays
and Python/numpy scalars, through the frame of its entry point.

See the package docstring (``irtoolkit/runtime/__init__.py``) for the frame
layout and the ownership of returned buffers. Arguments are checked before
native code runs; results are wrapped without copying where they can be.
"""

from __future__ import annotations

import ctypes
import operator
import threading
from time import perf_counter
from typing import TYPE_CHECKING, Any

import numpy as np

from irtoolkit.abi import (
    FAILED_ALLOCATION, FAILED_CHECK, FRAME_TAIL_WORDS, INTERRUPTED, STACK_EXHAUSTED,
    STACK_LIMIT_WORD,
)
from irtoolkit.runtime import interrupts
from irtoolkit.runtime.blas import (
    ALONE, THREADED, PoolChoice, enter_way, exit_way,
)
from irtoolkit.runtime.errors import (
    AllocationError, ArgumentError, StackExhaustedError, check_failure,
)
from irtoolkit.runtime.signature import Signature, ValueSpec, spec_words

if TYPE_CHECKING:
    from irtoolkit.runtime.executable import Executable

DEAD_POINTER = 0xDEADBEEF  # allocated pointer of memref.get_global buffers (never freed)

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


_THREAD = threading.local()
_STACK_MARGIN = 256 * 1024  # for the frames below the last check: libm, malloc, BLAS


def stack_limit() -> int:
    """The lowest stack address compiled code may reach on this thread (the
    stack's low end plus a margin; 0, no limit, when it cannot be found)."""
    limit = getattr(_THREAD, "stack_limit", None)
    if limit is None:
        limit = 0
        try:
            attr = ctypes.create_string_buffer(256)  # pthread_attr_t: 56 bytes on glibc
            base, size = ctypes.c_void_p(), ctypes.c_size_t()
            self_ = _libc.pthread_self
            self_.restype = ctypes.c_ulong
            if _libc.pthread_getattr_np(ctypes.c_ulong(self_()), attr) == 0:
                if _libc.pthread_attr_getstack(attr, ctypes.byref(base), ctypes.byref(size)) == 0 \
                        and base.value and size.value:
                    limit = base.value + min(_STACK_MARGIN, size.value // 4)
                _libc.pthread_attr_destroy(attr)
        except AttributeError:  # not glibc
            limit = 0
        _THREAD.stack_limit = limit
    return limit


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
        self._cfunc = None  # None: not callable (``reason``), or not built yet
        # how it shares the cores (None: not a question; runtime/blas.py), once built
        self._pool: PoolChoice | None = None
        self._gemms = False  # (OpenBLAS's count to hold)
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
        self._err = word  # the frame's tail: error words, stack limit (abi)
        self._nwords = word + FRAME_TAIL_WORDS
        self._tls = threading.local()
        if address:
            self._retarget(address)

    def _retarget(self, address: int) -> None:
        """Call the code at ``address`` from now on (its first code, or a tier-up's:
        calls running finish in the old code, which the executable keeps)."""
        if self._cfunc is None:
            ways = self._exe.thread_ways
            self._pool = PoolChoice(ways) if ways else None
            self._gemms = ALONE in ways
        self._cfunc = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(address)

    def _first_call(self):
        """The code to call, built now if it is not yet (the executable builds an
        entry point's code at its first call)."""
        if self._reason is not None:
            raise ArgumentError(f"function @{self.name} cannot be called from Python: {self._reason}")
        self._exe._ensure_built([self.name])
        return self._cfunc

    def _frame(self):
        tls = self._tls
        frame = getattr(tls, "frame", None)
        if frame is None:
            frame = np.zeros(self._nwords, np.int64)
            for kind, _s, w, n, _d, static in self._fast_in:
                if kind == 0 and static is not None:
                    frame[w + 3: w + 3 + 2 * n] = [*static, *_c_strides(static)]
            frame[self._err + STACK_LIMIT_WORD] = stack_limit()
            tls.frame = frame
            tls.ptr = frame.ctypes.data
            tls.views = {}
            interrupts.watch()
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
            cfunc = self._first_call()
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
        exe = self._exe
        pool = self._pool
        if pool is None:
            status = self._native(exe, cfunc, tls.ptr)
        else:  # the measured way to use the cores (runtime/blas.py)
            trial = exe.tier and pool.measuring()  # which way is faster
            k, way = pool.trial_way() if trial else (0, pool.way)
            if way is None:  # the first way until the first trial has ended
                status = self._pooled(exe, cfunc, tls.ptr, pool.ways[0])
            else:
                t0 = perf_counter()
                status = self._pooled(exe, cfunc, tls.ptr, way)
                seconds = perf_counter() - t0
                if trial:
                    pool.record(k, way, seconds)
                else:  # a change of load starts a trial early
                    pool.observe(seconds)
        del keep
        if status:
            self._failed(status, frame)
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
    def _native(exe, cfunc, frame_ptr: int) -> int:
        if exe.tier:
            return cfunc(frame_ptr)
        t0 = perf_counter()  # tier-0 code: its native time decides when to tier up
        status = cfunc(frame_ptr)
        exe._ran(perf_counter() - t0)
        return status

    def _pooled(self, exe, cfunc, frame_ptr: int, way: int) -> int:
        if way == THREADED:
            return self._native(exe, cfunc, frame_ptr)
        gemms = self._gemms
        enter_way(way, gemms)
        try:
            return self._native(exe, cfunc, frame_ptr)
        finally:
            exit_way(way, gemms)

    def _failed(self, status: int, frame: np.ndarray) -> None:
        """Raise what a call that returned ``status`` means (its temporaries
        were freed by the entry point)."""
        err = self._err
        detail, flag, a, b = (int(x) for x in frame[err: err + 4])
        if status == FAILED_CHECK:
            raise check_failure(self.name, ctypes.string_at(detail % (1 << 64)), flag, a, b)
        if status == FAILED_ALLOCATION:
            if detail < 0:
                raise AllocationError(
                    f"@{self.name}: invalid allocation of {detail} bytes (a negative size?)")
            raise AllocationError(f"@{self.name}: memory allocation of {detail} bytes failed")
        if status == STACK_EXHAUSTED:
            raise StackExhaustedError(
                f"@{self.name}: recursion too deep: the call used up the thread's stack")
        if status == INTERRUPTED:
            raise KeyboardInterrupt
        raise RuntimeError(f"@{self.name}: compiled code returned the unknown status {status}")

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
