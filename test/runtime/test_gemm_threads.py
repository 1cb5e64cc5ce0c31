"""Compiled code with thread dispatchers of its own chooses how its gemms share the
cores (runtime/blas.py: OpenBLAS threaded, alone, alone and split over the
dispatcher's threads): which code qualifies, the measured choice, the same results
each way (up to the gemm's rounding: OpenBLAS's threaded sgemm rounds differently),
OpenBLAS's count restored, calls from several threads."""

from __future__ import annotations

import ctypes
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import irtoolkit
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


def _threads() -> int:
    lib = ctypes.CDLL(blas.find_openblas())
    return lib.scipy_openblas_get_num_threads64_()


@pytest.fixture(scope="module")
def mix():
    return irtoolkit.compile(irtoolkit.parse(MIX, "mix.mlir"))["mix"]


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
    T, order = blas.PoolChoice.TRIAL, blas.PoolChoice.ORDER
    n = 0
    while pool.measuring():
        k, way = pool.trial_way()
        assert way == order[(k // T) % len(order)]
        # the first call of each run is not counted: make it look fastest; the median
        # of the others decides: make one of them look fastest too
        pool.record(k, way, 0.0 if k % T in (0, 1) else times[way])
        n += 1
    return n


def test_pool_choice_keeps_the_fastest_way_and_measures_again():
    T, first = blas.PoolChoice.TRIAL, blas.PoolChoice.FIRST_INTERVAL
    ways = (blas.THREADED, blas.ALONE, blas.SPLIT)
    for fastest in ways:
        pool = blas.PoolChoice()
        assert pool.way is None
        assert _trial(pool, {w: 1.0 if w == fastest else 2.0 for w in ways}) == 3 * T
        assert pool.way == fastest
        # the load changed: the next trial, after FIRST_INTERVAL calls, turns the choice
        assert sum(not pool.measuring() for _ in range(first - 2)) == first - 2
        other = ways[(ways.index(fastest) + 1) % 3]
        assert _trial(pool, {w: 1.0 if w == other else 2.0 for w in ways}) == 3 * T
        assert pool.way == other
        assert sum(not pool.measuring() for _ in range(4 * first - 2)) == 4 * first - 2
        assert pool.measuring()


def test_only_code_with_its_own_threads_and_a_gemm_qualifies(monkeypatch):
    monkeypatch.delenv("IRT_BLAS_THREADS", raising=False)
    gemm = blas.GEMM_SYMBOLS["f32"]
    assert not blas.runs_gemms_alone({gemm, "malloc"})
    assert not blas.runs_gemms_alone({blas.THREAD_SYMBOL, "malloc"})
    assert blas.runs_gemms_alone({blas.THREAD_SYMBOL, gemm}) == blas.blas_available()
    monkeypatch.setenv("IRT_BLAS_THREADS", "2")  # the user's explicit count wins
    assert not blas.runs_gemms_alone({blas.THREAD_SYMBOL, gemm})


@needs_blas
def test_alone_nests_and_restores_the_count():
    before = _threads()
    flag = ctypes.c_int64.from_address(blas.split_flag_address())
    blas.gemms_alone_enter(False)
    blas.gemms_alone_enter(True)
    assert _threads() == 1 and flag.value == 1
    blas.gemms_alone_exit(True)
    assert _threads() == 1 and flag.value == 0
    blas.gemms_alone_exit(False)
    assert _threads() == before


@needs_blas
def test_same_results_either_way_and_the_count_restored(mix, monkeypatch):
    monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
    assert mix._exe.gemms_alone
    args = _inputs()
    before = _threads()
    got = {}
    pool = mix._pool
    for way in (blas.THREADED, blas.ALONE, blas.SPLIT):
        pool.way, pool._trial, pool._left = way, False, 10**9
        got[way] = mix(*args)
        assert _threads() == before
        _check(got[way], *args)
    for way in (blas.THREADED, blas.SPLIT):
        for i in (0, 1):
            np.testing.assert_allclose(got[way][i], got[blas.ALONE][i], rtol=1e-6, atol=1e-5)
        assert got[way][2] == got[blas.ALONE][2]  # (our own threads: the same chunks each way)


def test_large_gemms_with_static_n_and_k_are_split():
    from irtoolkit.passes.lowering.to_llvm.parallel import GEMM_ROWS_PREFIX
    from irtoolkit.pipeline import run_pipeline

    text = str(run_pipeline(irtoolkit.parse(MIX, "mix.mlir"), "lower-to-llvm", verify_each=False))
    assert text.count(f"llvm.call @__irt_pfor_{GEMM_ROWS_PREFIX}") == 2


@needs_blas
def test_the_trial_decides_and_calls_from_several_threads_agree(mix):
    args = _inputs(1)
    want = mix(*args)
    before = _threads()
    mix._exe.optimize()  # (the trial runs at the final tier)
    mix._pool = blas.PoolChoice()  # measure again, from several threads at once
    with ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: mix(*args), range(6 * blas.PoolChoice.TRIAL)))
    for got in outs:
        for i in (0, 1):
            np.testing.assert_allclose(got[i], want[i], rtol=1e-6, atol=1e-5)
        assert got[2] == want[2]
    assert _threads() == before
    assert mix._pool.way is not None
