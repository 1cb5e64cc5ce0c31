"""Compiled code that calls gemms or has parallel loops chooses how it shares the
cores (runtime/blas.py: OpenBLAS threaded, alone, for code with split gemms alone
and split over the dispatcher's threads, for code with parallel loops everything
on the calling thread): which code qualifies for which ways, the measured choice,
the same results each way (up to the gemm's rounding: OpenBLAS's threaded sgemm
rounds differently), OpenBLAS's count restored, calls from several threads."""

from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import irtoolkit
from irtoolkit.abi import BLAS_SPLIT_SYMBOL, LOOPS_SERIAL_SYMBOL
from irtoolkit.runtime import blas

needs_blas = pytest.mark.skipif(not blas.blas_available(), reason="numpy's OpenBLAS not found")

# two gemms large enough to be split (static N, K), one with op(A) stored transposed,
# and a sum whose loop is split over threads when x is long (dynamic trip count:
# the dispatcher decides at run time)
MIX = """
func.func @mix(%a: tensor<520x96xf32>, %at: tensor<96x520xf32>, %b: tensor<96x112xf32>, %x: tensor<?xf64>)
    -> (tensor<520x112xf32>, tensor<520x112xf32>, f64) {
  %p = tensor.matmul %a, %b : (tensor<520x96xf32>, tensor<96x112xf32>) -> tensor<520x112xf32>
  %t = tensor.transpose %at [1, 0] : tensor<96x520xf32> -> tensor<520x96xf32>
  %q = tensor.matmul %t, %b : (tensor<520x96xf32>, tensor<96x112xf32>) -> tensor<520x112xf32>
  %e = tensor.tanh %x : tensor<?xf64>
  %s = tensor.reduce_sum %e [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %p, %q, %r : tensor<520x112xf32>, tensor<520x112xf32>, f64
}
"""

# a gemm (dynamic M and N: never split) and nothing else: no threads of its own
GEMM_ONLY = """
func.func @mm(%a: tensor<?x96xf64>, %b: tensor<96x?xf64>) -> tensor<?x?xf64> {
  %p = tensor.matmul %a, %b : (tensor<?x96xf64>, tensor<96x?xf64>) -> tensor<?x?xf64>
  func.return %p : tensor<?x?xf64>
}
"""


def _threads() -> int:
    lib = ctypes.CDLL(blas.find_openblas())
    return lib.scipy_openblas_get_num_threads64_()


@pytest.fixture(scope="module")
def mix():
    exe = irtoolkit.compile(irtoolkit.parse(MIX, "mix.mlir"))
    exe._ensure_built()  # (its way of using the cores is known once its code is)
    return exe["mix"]


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((520, 96), dtype=np.float32)
    return a, np.ascontiguousarray(a.T[:, ::-1]), rng.standard_normal((96, 112), dtype=np.float32), \
        rng.standard_normal(1_500_000)


def _check(got, a, at, b, x) -> None:
    np.testing.assert_allclose(got[0], a @ b, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[1], at.T @ b, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[2], np.tanh(x).sum(), rtol=1e-9)


def _trial(pool: blas.PoolChoice, times: dict) -> int:
    """Run one trial of ``pool`` on made-up call times (per way); the number of calls."""
    T, order = blas.PoolChoice.TRIAL, pool.ways
    n = 0
    while pool.measuring():
        k, way = pool.trial_way()
        assert way == order[(k // T) % len(order)]
        # the first call of each run is not counted: make it look fastest; the median
        # of the others decides: make one of them look fastest too
        pool.record(k, way, 0.0 if k % T in (0, 1) else times[way])
        n += 1
    return n


@pytest.mark.parametrize("ways", [(blas.ALONE, blas.SPLIT, blas.THREADED), (blas.ALONE, blas.THREADED)])
def test_pool_choice_keeps_the_fastest_way_and_measures_again(ways):
    T, first = blas.PoolChoice.TRIAL, blas.PoolChoice.FIRST_INTERVAL
    n = len(ways)
    for fastest in ways:
        pool = blas.PoolChoice(ways)
        assert pool.way is None
        assert _trial(pool, {w: 1.0 if w == fastest else 2.0 for w in ways}) == n * T
        assert pool.way == fastest
        # the load changed: the next trial, after FIRST_INTERVAL calls, turns the choice
        assert sum(not pool.measuring() for _ in range(first - 2)) == first - 2
        other = ways[(ways.index(fastest) + 1) % n]
        assert _trial(pool, {w: 1.0 if w == other else 2.0 for w in ways}) == n * T
        assert pool.way == other
        assert sum(not pool.measuring() for _ in range(4 * first - 2)) == 4 * first - 2
        assert pool.measuring()


def test_a_losing_way_is_given_up_and_trials_stay_cheap():
    # a busy core: the threaded gemm waits for a worker that is not running
    T, first = blas.PoolChoice.TRIAL, blas.PoolChoice.FIRST_INTERVAL
    pool = blas.PoolChoice((blas.ALONE, blas.THREADED))
    slow = 100 * blas.PoolChoice.LOSING
    ways = []
    while pool.measuring():
        k, way = pool.trial_way()
        ways.append(way)
        pool.record(k, way, 1.0 if way == blas.ALONE else slow)
    # the threaded run ends after its first counted call
    assert ways == [blas.ALONE] * T + [blas.THREADED] * 2
    assert pool.way == blas.ALONE
    # the trial cost 2 * (slow - 1) beyond the alone calls: at most OVERHEAD of what follows
    calls = 1 + sum(not pool.measuring() for _ in range(10**6))
    assert calls > first and calls * blas.PoolChoice.OVERHEAD >= 2 * (slow - 1) - 1


def test_a_change_of_load_starts_a_trial_before_the_interval():
    # the chosen way's calls got DRIFT slower (another process took a core): the next
    # trial comes once the last one's excess is paid for (test_a_losing_way_...: a
    # costly trial), not after FIRST_INTERVAL calls
    P = blas.PoolChoice
    pool = P((blas.ALONE, blas.THREADED))
    assert _trial(pool, {blas.ALONE: 2.0, blas.THREADED: 1.0}) == 2 * P.TRIAL
    assert pool.way == blas.THREADED
    for _ in range(2 * P.WINDOW):  # the same time as in the trial: no new trial
        assert not pool.measuring()
        pool.observe(1.0)
    calls = 0
    while not pool.measuring():
        pool.observe(1.6)  # a window's median DRIFT slower than the trial's
        calls += 1
    assert calls == P.WINDOW  # one window's median (this trial cost nothing beyond the best)
    assert _trial(pool, {blas.ALONE: 1.2, blas.THREADED: 1.6}) == 2 * P.TRIAL
    assert pool.way == blas.ALONE


def test_code_that_calls_a_gemm_qualifies_and_split_gemms_and_loops_add_ways(monkeypatch):
    monkeypatch.delenv("IRT_BLAS_THREADS", raising=False)
    gemm = blas.GEMM_SYMBOLS["f32"]
    assert blas.thread_ways({"malloc", "pthread_create"}) == ()
    assert blas.thread_ways({"pthread_create", LOOPS_SERIAL_SYMBOL}) == (blas.THREADED, blas.SERIAL)
    if not blas.blas_available():
        assert blas.thread_ways({gemm}) == ()
        return
    assert blas.thread_ways({gemm, "malloc"}) == (blas.ALONE, blas.THREADED)
    assert blas.thread_ways({gemm, "pthread_create"}) == (blas.ALONE, blas.THREADED)
    assert blas.thread_ways({gemm, "pthread_create", BLAS_SPLIT_SYMBOL}) == (
        blas.ALONE, blas.SPLIT, blas.THREADED)
    assert blas.thread_ways({gemm, "pthread_create", BLAS_SPLIT_SYMBOL, LOOPS_SERIAL_SYMBOL}) == (
        blas.ALONE, blas.SPLIT, blas.THREADED, blas.SERIAL)
    monkeypatch.setenv("IRT_BLAS_THREADS", "2")  # the user's explicit count wins
    assert blas.thread_ways({gemm, "pthread_create", BLAS_SPLIT_SYMBOL}) == ()
    assert blas.thread_ways({gemm, "pthread_create", LOOPS_SERIAL_SYMBOL}) == (blas.THREADED, blas.SERIAL)


@needs_blas
def test_alone_nests_and_restores_the_count():
    before = _threads()
    split = ctypes.c_int64.from_address(blas.flag_address(BLAS_SPLIT_SYMBOL))
    serial = ctypes.c_int64.from_address(blas.flag_address(LOOPS_SERIAL_SYMBOL))
    blas.enter_way(blas.ALONE, True)
    blas.enter_way(blas.SPLIT, True)
    blas.enter_way(blas.SERIAL, True)
    assert _threads() == 1 and split.value == 1 and serial.value == 1
    blas.exit_way(blas.SPLIT, True)
    assert _threads() == 1 and split.value == 0 and serial.value == 1
    blas.exit_way(blas.SERIAL, True)
    blas.exit_way(blas.ALONE, True)
    assert _threads() == before and serial.value == 0
    blas.enter_way(blas.SERIAL, False)  # code without gemms leaves OpenBLAS alone
    assert _threads() == before and serial.value == 1
    blas.exit_way(blas.SERIAL, False)
    assert serial.value == 0


@needs_blas
def test_same_results_either_way_and_the_count_restored(mix, monkeypatch):
    monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
    assert mix._exe.thread_ways == (blas.ALONE, blas.SPLIT, blas.THREADED, blas.SERIAL)
    args = _inputs()
    before = _threads()
    got = {}
    pool = mix._pool
    for way in (blas.THREADED, blas.ALONE, blas.SPLIT, blas.SERIAL):
        pool.way, pool._trial, pool._left = way, False, 10**9
        got[way] = mix(*args)
        assert _threads() == before
        _check(got[way], *args)
    for way in (blas.THREADED, blas.SPLIT, blas.SERIAL):
        for i in (0, 1):
            np.testing.assert_allclose(got[way][i], got[blas.ALONE][i], rtol=1e-6, atol=1e-5)
        assert got[way][2] == got[blas.ALONE][2]  # (our own threads: the same chunks each way)


def test_large_gemms_with_static_n_and_k_are_split():
    from irtoolkit.passes.lowering.to_llvm.parallel import GEMM_ROWS_PREFIX
    from irtoolkit.pipeline import run_pipeline

    text = str(run_pipeline(irtoolkit.parse(MIX, "mix.mlir"), "lower-to-llvm", verify_each=False))
    assert text.count(f"llvm.call @__irt_pfor_{GEMM_ROWS_PREFIX}") == 2


# W2's first layer: 64 rows of C, 784x256 multiply-adds each; and 128 such rows
FEW_ROWS = """
func.func @mm(%a: tensor<ROWSx784xf32>, %b: tensor<784x256xf32>) -> tensor<ROWSx256xf32> {
  %p = tensor.matmul %a, %b : (tensor<ROWSx784xf32>, tensor<784x256xf32>) -> tensor<ROWSx256xf32>
  func.return %p : tensor<ROWSx256xf32>
}
"""


@pytest.mark.parametrize("rows", [64, 128])
def test_a_gemm_is_split_in_chunks_of_at_least_min_rows(rows):
    """Every chunk packs all of B again: a gemm of fewer than 2 * GEMM_MIN_ROWS rows
    stays one call, however many multiply-adds it has (this one: 12.8 M at 64 rows,
    six chunks of 11 rows each before)."""
    from irtoolkit.passes.lowering.to_llvm.parallel import GEMM_MIN_ROWS, GEMM_ROWS_PREFIX
    from irtoolkit.pipeline import run_pipeline

    assert 64 < 2 * GEMM_MIN_ROWS <= 128
    module = irtoolkit.parse(FEW_ROWS.replace("ROWS", str(rows)), "mm.mlir")
    text = str(run_pipeline(module, "lower-to-llvm", verify_each=False))
    assert text.count(f"llvm.call @__irt_pfor_{GEMM_ROWS_PREFIX}") == (rows >= 2 * GEMM_MIN_ROWS)


@needs_blas
def test_the_trial_decides_and_calls_from_several_threads_agree(mix):
    args = _inputs(1)
    want = mix(*args)
    before = _threads()
    mix._exe.optimize()  # (the trial runs at the final tier)
    mix._pool = blas.PoolChoice(mix._pool.ways)  # measure again, from several threads at once
    with ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: mix(*args), range(6 * blas.PoolChoice.TRIAL)))
    for got in outs:
        for i in (0, 1):
            np.testing.assert_allclose(got[i], want[i], rtol=1e-6, atol=1e-5)
        assert got[2] == want[2]
    assert _threads() == before
    assert mix._pool.way is not None


def _slow_way(monkeypatch, fn, slow_now) -> None:
    """A fresh trial for ``fn`` at its final tier, on a made-up clock: a call takes
    1 s while ``slow_now()`` (the way made slower, as a busy core makes one; real
    times would measure the machine's load), 1 ms otherwise."""
    from irtoolkit.runtime import calling

    fn._exe.optimize()  # (the trial runs at the final tier)
    fn._pool = blas.PoolChoice(fn._pool.ways)  # (the compiled module may be shared)
    clock = [0.0]
    native = calling.Function._native

    def timed(exe, cfunc, frame_ptr):
        clock[0] += 1.0 if slow_now() else 0.001
        return native(exe, cfunc, frame_ptr)

    monkeypatch.setattr(calling.Function, "_native", staticmethod(timed))
    monkeypatch.setattr(calling, "perf_counter", lambda: clock[0])


@needs_blas
@pytest.mark.parametrize("slow", [blas.ALONE, blas.THREADED])
def test_code_without_threads_of_its_own_keeps_the_faster_way(monkeypatch, slow):
    monkeypatch.delenv("IRT_BLAS_THREADS", raising=False)
    mm = irtoolkit.compile(irtoolkit.parse(GEMM_ONLY, "mm.mlir"))["mm"]
    mm._exe._ensure_built()  # (its ways are known once its code is)
    assert mm._pool.ways == (blas.ALONE, blas.THREADED)
    _slow_way(monkeypatch, mm, lambda: (blas._alone_depth > 0) == (slow == blas.ALONE))
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((150, 96)), rng.standard_normal((96, 130))
    before = _threads()
    for _ in range(len(mm._pool.ways) * blas.PoolChoice.TRIAL):
        np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-12, atol=1e-12)
        assert _threads() == before
    assert mm._pool.way == (blas.THREADED if slow == blas.ALONE else blas.ALONE)


# a parallel loop and no gemm: its threads against the calling thread alone
LOOPS_ONLY = """
func.func @total(%x: tensor<?xf64>) -> f64 {
  %e = tensor.tanh %x : tensor<?xf64>
  %s = tensor.reduce_sum %e [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""


@pytest.mark.parametrize("slow", [blas.THREADED, blas.SERIAL])
def test_code_with_loops_of_its_own_keeps_the_faster_way_and_the_same_sum(monkeypatch, slow):
    monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
    total = irtoolkit.compile(irtoolkit.parse(LOOPS_ONLY, "total.mlir"))["total"]
    total._exe._ensure_built()  # (its ways are known once its code is)
    assert total._pool.ways == (blas.THREADED, blas.SERIAL)
    serial = ctypes.c_int64.from_address(blas.flag_address(LOOPS_SERIAL_SYMBOL))
    _slow_way(monkeypatch, total, lambda: (serial.value > 0) == (slow == blas.SERIAL))
    x = np.random.default_rng(3).standard_normal(1_500_000)
    sums = set()
    for _ in range(len(total._pool.ways) * blas.PoolChoice.TRIAL):
        sums.add(float(total(x)))  # each way: the same chunks, summed in the same order
    assert len(sums) == 1 and abs(sums.pop() - np.tanh(x).sum()) < 1e-9 * x.size
    assert total._pool.way == (blas.SERIAL if slow == blas.THREADED else blas.THREADED)
    assert serial.value == 0


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="threads counted in /proc/self/task, on 2 cores or more")
def test_the_serial_way_starts_no_thread(monkeypatch):
    """The dispatcher reads the flag: while it is set, no thread appears during calls
    that start one without it (the calls release the GIL; a Python thread watches)."""

    monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
    total = irtoolkit.compile(irtoolkit.parse(LOOPS_ONLY, "total.mlir"))["total"]
    total._exe._ensure_built()  # (its ways are known once its code is)
    total._exe.optimize()  # (no tier-up thread starting meanwhile)
    x = np.random.default_rng(4).standard_normal(1_500_000)
    total(x)  # (nor the SIGINT watcher the first call starts)

    def most_threads(way: int, calls: int) -> int:
        """The most threads seen beyond the caller's during up to ``calls`` calls
        (fewer once one is seen)."""
        baseline, seen, stop = len(os.listdir("/proc/self/task")), [0], threading.Event()

        def watch():
            while not stop.is_set():
                seen[0] = max(seen[0], len(os.listdir("/proc/self/task")) - baseline - 1)  # (- itself)

        watcher = threading.Thread(target=watch)
        watcher.start()
        blas.enter_way(way, False)
        try:
            for _ in range(calls):
                total(x)
                if seen[0]:
                    break
        finally:
            blas.exit_way(way, False)
            stop.set()
            watcher.join()
        return seen[0]

    # the watcher sees the workers (on a loaded machine it may need many calls) ...
    if not most_threads(blas.THREADED, 500):
        pytest.skip("the watcher never ran while workers lived (a machine this loaded cannot show it)")
    # ... and none of them serial
    assert most_threads(blas.SERIAL, 50) == 0
