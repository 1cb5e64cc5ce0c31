"""Locating and loading numpy's bundled OpenBLAS for compiled matmuls.

`lower-tensor-to-loop` lowers large float matmuls to calls of the row-major
CBLAS gemm with 64-bit integers that numpy's wheel ships (in
``numpy.libs/libscipy_openblas64_*.so``)::

    void scipy_cblas_{s,d}gemm64_(int order, int transA, int transB,
                                  i64 M, i64 N, i64 K, T alpha, T *A, i64 lda,
                                  T *B, i64 ldb, T beta, T *C, i64 ldc)

``find_openblas()`` finds that library without loading it (when
``blas_available()`` is false, the JIT compiles with
``lower-tensor-to-loop{blas=false}``: loop nests); ``load_blas()`` makes its symbols visible to
LLVM's JIT (``llvmlite.binding.load_library_permanently``) — the runtime
resolves them before linking. scipy's own OpenBLAS is deliberately not used:
a second thread pool slows numpy's.

With ``IRT_BLAS_THREADS=N`` set, OpenBLAS is set to N threads when compiled
code first links a gemm (the setting is the library's, so numpy in the same
process shares it); unset, OpenBLAS keeps its own count, as numpy does.
Compiled code parallelizes its own loops, and OpenBLAS's workers spin between
calls: on 2 busy cores (AMD EPYC, AVX2) a 32x128 @ 128x512 f32 gemm took 0.09 ms
on one thread and 40 ms on two, and the W7/W8/W9 gradients ran 2.2x, 1.9x and
10x faster with ``IRT_BLAS_THREADS=1``; on the same machine quiet, one thread
made the W2 gradient 1.7x slower (0.66 against 0.39 ms). The default follows
numpy so that importing irtoolkit changes nothing in numpy's behaviour and a
busy machine slows us no more than it slows numpy.

With ``IRT_BLAS_THREADS`` unset, each compiled function that calls a gemm
measures on its calls which way is fastest (``thread_ways``, ``PoolChoice``):
OpenBLAS on its own count, held at one thread during its calls ("alone"), and
for code that splits its large gemms over its own threads (``split_gemms``) alone
with those split. After a threaded gemm OpenBLAS's workers busy-wait on the
cores the function's own threads then need; and with another process busy on
one of 2 cores a threaded gemm waits for a worker that is not running (W3's
128x100x128 dgemm: 24-41 ms threaded, 0.8 ms on one thread), while on a quiet
machine the threads may win (W2).
"""

from __future__ import annotations

import ctypes
import glob
import itertools
import os
import threading

from irtoolkit.abi import BLAS_SPLIT_SYMBOL, GEMM_SYMBOLS, LOOPS_SERIAL_SYMBOL, NO_TRANS, ROW_MAJOR, TRANS

_lock = threading.Lock()
_found: list = []  # [path or None] once searched
_loaded: list = []  # [bool] once loaded


def _numpy_site() -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.origin:
        return None
    return os.path.dirname(os.path.dirname(spec.origin))


def find_openblas() -> str | None:
    """Path of numpy's bundled OpenBLAS exporting ``scipy_cblas_dgemm64_``, or None.

    ``IRT_BLAS=0`` in the environment disables BLAS (always None);
    ``IRT_BLAS_LIBRARY=/path/lib.so`` names the library to use instead.
    """
    if os.environ.get("IRT_BLAS", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    with _lock:
        if _found:
            return _found[0]
        path = _search()
        _found.append(path)
        return path


def _search() -> str | None:
    candidates: list[str] = []
    explicit = os.environ.get("IRT_BLAS_LIBRARY")
    if explicit:
        candidates.append(explicit)
    else:
        root = _numpy_site()
        if root is not None:
            for pattern in ("numpy.libs/libscipy_openblas64_*.so*", "numpy/.libs/libscipy_openblas64_*",
                            "numpy/.dylibs/libscipy_openblas64_*", "numpy.libs/*openblas64*"):
                candidates.extend(sorted(glob.glob(os.path.join(root, pattern))))
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if all(hasattr(lib, sym) for sym in GEMM_SYMBOLS.values()):
            return path
    return None


def blas_available() -> bool:
    """True if compiled code can call the gemm functions (the library exists)."""
    return find_openblas() is not None


def load_blas() -> bool:
    """Make the gemm symbols visible to LLVM's JIT, once; False if no library."""
    with _lock:
        if _loaded:
            return _loaded[0]
    path = find_openblas()
    ok = False
    if path is not None:
        import llvmlite.binding as llvm

        try:
            llvm.load_library_permanently(path)
            ok = True
        except RuntimeError:
            ok = False
    with _lock:
        if not _loaded:
            _loaded.append(ok)
        return _loaded[0]


def gemm_address(symbol: str) -> int | None:
    """Address of a gemm symbol of the library (for ``llvm.add_symbol``), or None."""
    path = find_openblas()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
        fn = getattr(lib, symbol)
    except (OSError, AttributeError):
        return None
    _set_threads_once()
    return ctypes.cast(fn, ctypes.c_void_p).value


_threads_set: list = []  # [count] once set


def blas_threads() -> int | None:
    """The OpenBLAS thread count set when compiled code first links a gemm
    (``IRT_BLAS_THREADS``); None when unset: OpenBLAS's own count."""
    try:
        return max(1, int(os.environ["IRT_BLAS_THREADS"]))
    except (KeyError, ValueError):
        return None


def _set_threads_once() -> None:
    api = _thread_functions()  # (outside the lock: find_openblas takes it)
    with _lock:
        if _threads_set:
            return
        n = blas_threads()
        if n is not None and api is not None:  # (other builds named by IRT_BLAS_LIBRARY may lack it)
            api[1](n)
        _threads_set.append(n)


# -- how a function's gemms share the cores ---------------------------------------

#: the ways a call can use the cores (``PoolChoice``): OpenBLAS on its own thread
#: count, our parallel loops on their threads; OpenBLAS held at one thread ("alone");
#: alone, and the large gemms split over the rows of C on the dispatcher's threads
#: (``split_gemms`` in to_llvm/parallel.py); alone, and every loop on the calling
#: thread ("serial": the same chunks in the same order, the same results)
THREADED, ALONE, SPLIT, SERIAL = 0, 1, 2, 3

_alone_depth = 0  # calls running with OpenBLAS held at one thread
_alone_saved = 0  # OpenBLAS's thread count before the first of them
#: the process flags compiled code reads (``abi``'s symbol of each), by the way that
#: sets them: the number of calls running that way
_FLAGS = {SPLIT: (BLAS_SPLIT_SYMBOL, ctypes.c_int64(0)), SERIAL: (LOOPS_SERIAL_SYMBOL, ctypes.c_int64(0))}
_threads_api: list = []  # [(get, set) or None] once looked up


def _thread_functions():
    """(get, set) of OpenBLAS's thread count, or None (no library, or a build
    named by IRT_BLAS_LIBRARY without them)."""
    if not _threads_api:
        api = None
        path = find_openblas()
        try:
            lib = ctypes.CDLL(path) if path is not None else None
        except OSError:
            lib = None
        if lib is not None:
            get = getattr(lib, "scipy_openblas_get_num_threads64_", None)
            put = getattr(lib, "scipy_openblas_set_num_threads64_", None)
            if get is not None and put is not None:
                get.restype = ctypes.c_int
                get.argtypes = []
                put.restype = None
                put.argtypes = [ctypes.c_int]
                api = (get, put)
        _threads_api.append(api)
    return _threads_api[0]


def thread_ways(undefined) -> tuple[int, ...]:
    """The ways (in trial order) between which code referencing the external symbols
    ``undefined`` chooses how to use the cores (``PoolChoice``); () when there is
    nothing to choose.

    Code that calls a gemm (unless ``IRT_BLAS_THREADS`` fixes OpenBLAS's count, or
    the library cannot be told) has ALONE and THREADED, SPLIT when it splits gemms
    (it references ``abi.BLAS_SPLIT_SYMBOL``); code with parallel loops of its own
    (it references ``abi.LOOPS_SERIAL_SYMBOL``) has SERIAL, and THREADED if it has
    no gemm to tell. The first way is the one run until the first trial ends."""
    names = set(undefined)
    gemms = not (names.isdisjoint(GEMM_SYMBOLS.values()) or blas_threads() is not None
                 or _thread_functions() is None)
    loops = LOOPS_SERIAL_SYMBOL in names
    ways: tuple[int, ...] = ()
    if gemms:
        ways = (ALONE, SPLIT, THREADED) if BLAS_SPLIT_SYMBOL in names else (ALONE, THREADED)
    if loops:
        ways = (ways or (THREADED,)) + (SERIAL,)
    return ways


def flag_address(symbol: str) -> int:
    """The address in this process of the flag ``symbol`` (``abi.BLAS_SPLIT_SYMBOL``
    or ``abi.LOOPS_SERIAL_SYMBOL``)."""
    return next(ctypes.addressof(flag) for name, flag in _FLAGS.values() if name == symbol)


class PoolChoice:
    """The way one compiled function that calls gemms or has parallel loops uses the
    cores, among ``ways`` (``thread_ways``): measured on its calls at its final tier, first at once, then
    again after ``FIRST_INTERVAL`` calls, 4x as many, ... (the machine's load
    changes), and never so often that the trials, with their slower ways, take more
    than about ``OVERHEAD`` of the function's time.

    Alone is faster on a busy machine (2 cores, load 8: W7/W9 gradients 98/213 ms
    threaded, 18/42 alone, 16/72 split; one other process on one core: W3's
    gradient 48 ms threaded, 0.7 quiet), a quiet one may favour OpenBLAS's threads
    (W9: 14.1 ms threaded, 17.1 alone) or the split. A trial runs ``TRIAL`` calls
    each way; the first of each run is not counted (OpenBLAS's workers may still
    spin from the way before), and the way with the lowest median of its counted
    calls wins (not the fastest call: on a busy machine W2's threaded gemms took
    0.6 ms in one call and 100 ms in the next). A run whose counted call takes
    ``LOSING`` times the best median so far ends there. Until the first trial ends,
    calls run the first way. The time of a call includes holding and releasing OpenBLAS's
    count (3-4 us: for a function so short that they matter, threaded wins).
    Calls from several Python threads at once only blur the measurement. The way
    can change the last bits of a gemm's result (OpenBLAS's threaded sgemm rounds
    differently, as numpy's results depend on its thread count): with
    ``IRT_BLAS_THREADS`` set, only between our loops' threads and the calling
    thread alone (which compute the same results)."""

    TRIAL = 4
    FIRST_INTERVAL = 64
    LOSING = 4.0
    OVERHEAD = 0.05
    #: between trials, the median of each ``WINDOW`` calls run the chosen way; off by
    #: ``DRIFT`` from the trial's median (the machine's load changed: W7's split way
    #: took 4.4 ms quiet and 8-9 ms with another process on one core, alone 5-6), a
    #: trial starts as soon as the last one's excess is at most ``OVERHEAD`` of the
    #: time since, instead of after the interval (up to thousands of calls)
    WINDOW = 8
    DRIFT = 1.5

    def __init__(self, ways: tuple[int, ...] = (ALONE, SPLIT, THREADED)) -> None:
        self.ways = ways  # the runs of a trial, in order
        self.way: int | None = None  # None: alone, the first trial on
        self._interval = self.FIRST_INTERVAL
        self._left = 0  # calls before the next trial
        self._best = 0.0  # the chosen way's median in the last trial
        self._excess = 0.0  # what the last trial cost beyond the chosen way
        self._since = 0.0  # seconds of calls since the last trial
        self._recent: list[float] = []
        self._start_trial()

    def _start_trial(self) -> None:
        self._calls = itertools.count()
        self._times: list[list[float]] = [[] for _ in range(SERIAL + 1)]  # per way: its counted calls
        self._done: set[int] = set()  # ways measured, or given up on (LOSING)
        self._spent = [0.0, 0]  # seconds and calls of the trial
        self._trial = True

    def measuring(self) -> bool:
        """Whether the next call belongs to a trial (``trial_way``, ``record``)."""
        if self._trial:
            return True
        self._left -= 1
        if self._left > 0:
            return False
        with _lock:
            if not self._trial:
                self._start_trial()
        return True

    def observe(self, seconds: float) -> None:
        """A call run the chosen way, outside a trial, took ``seconds``."""
        self._since += seconds
        recent = self._recent
        recent.append(seconds)
        if len(recent) < self.WINDOW:
            return
        now = _median(recent)
        recent.clear()
        best = self._best
        if ((now > self.DRIFT * best or now * self.DRIFT < best)
                and self._excess <= self.OVERHEAD * self._since):
            self._left = 0  # the next call starts a trial

    def trial_way(self) -> tuple[int, int]:
        """(call number, way) for the next call of the trial."""
        ways, end = self.ways, len(self.ways) * self.TRIAL
        while True:
            k = next(self._calls)
            way = ways[(k // self.TRIAL) % len(ways)]
            if k >= end or way not in self._done:
                return k, way

    def record(self, k: int, way: int, seconds: float) -> None:
        if k >= len(self.ways) * self.TRIAL:
            return
        with _lock:
            if not self._trial or way in self._done:
                return
            self._spent[0] += seconds
            self._spent[1] += 1
            if k % self.TRIAL == 0:
                return
            times = self._times[way]
            times.append(seconds)
            best = min((_median(self._times[w]) for w in self._done), default=float("inf"))
            if len(times) == self.TRIAL - 1 or seconds > self.LOSING * best:
                self._done.add(way)
            if len(self._done) == len(self.ways):
                self._choose()

    def _choose(self) -> None:
        """The trial's end: keep the fastest way; the calls until the next trial."""
        self.way = min(self.ways, key=lambda w: _median(self._times[w]))  # ties: the first
        best = _median(self._times[self.way])
        seconds, calls = self._spent
        excess = seconds - calls * best  # what the trial cost beyond the best way
        self._left = max(self._interval, int(excess / (self.OVERHEAD * best)) if best > 0 else 0)
        self._interval *= 4
        self._best, self._excess, self._since = best, excess, 0.0
        self._recent.clear()
        self._trial = False


def _median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2] if xs else float("inf")


def enter_way(way: int, gemms: bool) -> None:
    """Run calls ``way`` until the matching ``exit_way``; ``gemms``: the code calls
    gemms (OpenBLAS's count is held at one thread unless ``way`` is THREADED).

    The count and the flags are the process's: while any such call runs (from any
    Python thread), every gemm of the process -- numpy's too -- runs on one thread,
    any split gemm may be split and any parallel loop may run serial. The first
    call in saves the count, the last one out restores it (a count set meanwhile by
    someone else is overwritten then). Results are right whatever runs
    concurrently: OpenBLAS may be called from several threads at once, and a
    serial loop computes what the parallel one does."""
    global _alone_depth, _alone_saved
    with _lock:
        if gemms and way != THREADED:
            if _alone_depth == 0:
                get, put = _threads_api[0]
                _alone_saved = get()
                put(1)
            _alone_depth += 1
        if way in _FLAGS:
            _FLAGS[way][1].value += 1


def exit_way(way: int, gemms: bool) -> None:
    global _alone_depth
    with _lock:
        if way in _FLAGS:
            _FLAGS[way][1].value -= 1
        if gemms and way != THREADED:
            _alone_depth -= 1
            if _alone_depth == 0:
                _threads_api[0][1](_alone_saved)


__all__ = ["GEMM_SYMBOLS", "find_openblas", "blas_available", "load_blas", "gemm_address", "blas_threads",
           "thread_ways", "enter_way", "exit_way", "PoolChoice",
           "THREADED", "ALONE", "SPLIT", "SERIAL", "flag_address",
           "ROW_MAJOR", "NO_TRANS", "TRANS"]
