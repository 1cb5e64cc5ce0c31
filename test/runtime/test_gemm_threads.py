"""Compiled code with thread dispatchers of its own runs its gemms with OpenBLAS on
one thread ("alone", runtime/blas.py): which code qualifies, the measured choice,
the same results either way (up to the gemm's rounding: OpenBLAS's threaded sgemm
rounds differently), OpenBLAS's count restored, calls from several threads."""

from __future__ import annotations

import ctypes
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import irtoolkit
from irtoolkit.runtime import blas

needs_blas = pytest.mark.skipif(not blas.blas_available(), reason="numpy's OpenBLAS not found")

# a gemm (dynamic shapes: always BLAS) and a sum whose loop is split over threads
# when x is long (dynamic trip count: the dispatcher decides at run time)
MIX = """
func.func @mix(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %x: tensor<?xf64>) -> (tensor<?x?xf32>, f64) {
  %p = tensor.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %e = tensor.tanh %x : tensor<?xf64>
  %s = tensor.reduce_sum %e [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %p, %r : tensor<?x?xf32>, f64
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
    return (rng.standard_normal((96, 80), dtype=np.float32), rng.standard_normal((80, 112), dtype=np.float32),
            rng.standard_normal(1_500_000))


def _trial(pool: blas.PoolChoice, alone_s: float, threaded_s: float) -> int:
    """Run one trial of ``pool`` on made-up call times; the number of calls."""
    T = blas.PoolChoice.TRIAL
    n = 0
    while pool.measuring():
        k, alone = pool.trial_mode()
        assert alone == ((k // T) % 2 == 0)
        # the first call of each run is not counted: make it look fastest
        pool.record(k, alone, 0.0 if k % T == 0 else (alone_s if alone else threaded_s))
        n += 1
    return n


def test_pool_choice_keeps_the_way_with_the_fastest_counted_call_and_measures_again():
    T, first = blas.PoolChoice.TRIAL, blas.PoolChoice.FIRST_INTERVAL
    for alone_s, threaded_s, want in ((1.0, 2.0, True), (2.0, 1.0, False)):
        pool = blas.PoolChoice()
        assert _trial(pool, alone_s, threaded_s) == 2 * T
        assert pool.alone is want
        # the load changed: the next trial, after FIRST_INTERVAL calls, turns the choice
        assert sum(not pool.measuring() for _ in range(first - 2)) == first - 2
        assert _trial(pool, threaded_s, alone_s) == 2 * T
        assert pool.alone is not want
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
    blas.gemms_alone_enter()
    blas.gemms_alone_enter()
    assert _threads() == 1
    blas.gemms_alone_exit()
    assert _threads() == 1
    blas.gemms_alone_exit()
    assert _threads() == before


@needs_blas
def test_same_results_either_way_and_the_count_restored(mix, monkeypatch):
    monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
    assert mix._exe.gemms_alone
    a, b, x = _inputs()
    before = _threads()
    got = {}
    for alone in (True, False):
        mix._pool.alone = alone
        got[alone] = mix(a, b, x)
        assert _threads() == before
    np.testing.assert_allclose(got[True][0], got[False][0], rtol=1e-6, atol=1e-5)
    assert got[True][1] == got[False][1]  # (our own threads: the same split either way)
    np.testing.assert_allclose(got[True][0], a @ b, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[True][1], np.tanh(x).sum(), rtol=1e-9)


@needs_blas
def test_the_trial_decides_and_calls_from_several_threads_agree(mix):
    a, b, x = _inputs(1)
    want = mix(a, b, x)
    before = _threads()
    mix._exe.optimize()  # (the trial runs at the final tier)
    mix._pool = blas.PoolChoice()  # measure again, from several threads at once
    with ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: mix(a, b, x), range(4 * blas.PoolChoice.TRIAL)))
    for p, s in outs:
        np.testing.assert_allclose(p, want[0], rtol=1e-6, atol=1e-5)
        assert s == want[1]
    assert _threads() == before
    assert mix._pool.alone is not None
