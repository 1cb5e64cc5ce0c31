"""Blocked float sums and loops split over threads (lower-loop-to-cf outlining +
the dispatcher of to_llvm/parallel.py), compiled, against numpy; the outlined IR on
the interpreter; loops that must stay sequential."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import irtoolkit
from irtoolkit.pipeline import run_pipeline

W1 = """
func.func @loss(%x: tensor<?xf64>) -> f64 {
  %e = tensor.exp %x : tensor<?xf64>
  %m = tensor.mul %e, %x : tensor<?xf64>
  %one = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %ones = tensor.splat %one[%n] : tensor<?xf64>
  %a = tensor.add %m, %ones : tensor<?xf64>
  %t = tensor.tanh %a : tensor<?xf64>
  %s = tensor.reduce_sum %t [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @grad(%x: tensor<?xf64>) -> tensor<?xf64> {
  %g = autodiff.grad @loss(%x) wrt [0] : (tensor<?xf64>) -> tensor<?xf64>
  func.return %g : tensor<?xf64>
}
func.func @plain(%x: tensor<?xf64>) -> f64 {
  %s = tensor.reduce_sum %x [0] : tensor<?xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
func.func @rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tensor.reduce_sum %x [1] : tensor<?x?xf32> -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}
func.func @all32(%x: tensor<?x?xf32>) -> f32 {
  %s = tensor.reduce_sum %x [0, 1] : tensor<?x?xf32> -> tensor<f32>
  %r = tensor.extract %s[] : tensor<f32>
  func.return %r : f32
}
"""


@pytest.fixture(scope="module")
def exe():
    return irtoolkit.compile(irtoolkit.parse(W1, "w1.mlir"))


@pytest.fixture
def threads(monkeypatch):
    def set_threads(n: int | None) -> None:
        if n is None:
            monkeypatch.delenv("IRT_NUM_THREADS", raising=False)
        else:
            monkeypatch.setenv("IRT_NUM_THREADS", str(n))
    return set_threads


def _loss(x):
    return np.sum(np.tanh(np.exp(x) * x + 1))


def _grad(x):
    e = np.exp(x)
    t = np.tanh(e * x + 1)
    return (1 - t * t) * (e + e * x)


def _sum_tol(terms: np.ndarray, eps: float) -> float:
    """A few ulps of sum(|terms|) (blocked vs numpy's pairwise order)."""
    return 64 * eps * float(np.sum(np.abs(terms))) + 1e-300


# sizes: empty, one, odd, around a sum block (512) and around the threading thresholds
# (PARALLEL_MIN_WORK / cost per iteration: the loss's block loop costs 23,045 per block
# of 512, threads from 87 blocks, 44,033+ elements; the gradient's loops from a few 1e4)
SIZES = [0, 1, 7, 511, 512, 513, 1023, 39_215, 39_216, 44_032, 44_033, 44_545, 65_537, 300_001]


@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_w1_loss_and_grad_match_numpy(exe, threads, nthreads):
    threads(nthreads)
    rng = np.random.default_rng(nthreads)
    for n in SIZES:
        x = rng.standard_normal(n) * 0.5
        got = exe["loss"](x)
        ref = _loss(x)
        terms = np.tanh(np.exp(x) * x + 1)
        assert abs(got - ref) <= _sum_tol(terms, 2.0 ** -52), (n, got, ref)
        g = exe["grad"](x)
        np.testing.assert_allclose(g, _grad(x), rtol=1e-12, atol=1e-13, err_msg=str(n))


def test_split_results_agree_across_thread_counts(exe, threads):
    x = np.random.default_rng(7).standard_normal(300_001) * 0.5
    vals = {}
    for t in (1, 2, 3, 8):
        threads(t)
        vals[t] = exe["loss"](x)
        threads(t)
        assert exe["loss"](x) == vals[t]  # deterministic for a given thread count
    terms = np.tanh(np.exp(x) * x + 1)
    for t, v in vals.items():
        assert abs(v - vals[1]) <= _sum_tol(terms, 2.0 ** -52), (t, v, vals[1])
    # split runs cut the range into the same chunks whatever the thread count
    assert vals[2] == vals[3] == vals[8]
    g1 = exe["grad"](x)
    threads(2)
    np.testing.assert_array_equal(exe["grad"](x), g1)  # elementwise: bit-identical


def test_nan_and_inf_in_a_reduction(exe, threads):
    for t in (1, 2):
        threads(t)
        for n in (5, 600, 400_000):
            x = np.ones(n)
            x[n // 2] = np.nan
            assert np.isnan(exe["plain"](x))
            x[n // 2] = np.inf
            assert exe["plain"](x) == np.inf
            x[0] = -np.inf
            assert np.isnan(exe["plain"](x))


def test_long_f64_sum_is_close_to_pairwise(exe, threads):
    # a sequential sum of 1e6 terms of mixed magnitude drifts by ~1e-13 relative;
    # blocked sums stay within a few ulps of numpy's pairwise sum
    x = np.random.default_rng(1).uniform(0, 1, 1_000_000) * np.float64(1e3) + 0.1
    for t in (1, 2):
        threads(t)
        got = exe["plain"](x)
        assert abs(got - np.sum(x)) <= 16 * 2.0 ** -52 * np.sum(np.abs(x))
        assert abs(got - np.sum(x)) / np.sum(x) < 1e-14


def test_f32_sums_accumulate_in_f64(exe, threads):
    # W5's loss: 262,144 f32 terms of mixed signs; a sequential f32 sum was 1.7e-5 off
    rng = np.random.default_rng(5)
    a = rng.standard_normal((512, 512)).astype(np.float32)
    exact = float(np.sum(a.astype(np.float64)))
    for t in (1, 2):
        threads(t)
        got = exe["all32"](a)
        assert got.dtype == np.float32 if isinstance(got, np.ndarray) else True
        assert abs(float(got) - np.float32(exact)) <= abs(np.float32(exact)) * 2 ** -23 + 1e-30
        rows = exe["rows"](a)
        np.testing.assert_array_equal(rows, a.astype(np.float64).sum(1).astype(np.float32))
    for shape in [(0, 3), (3, 0), (1, 1), (7, 1025)]:
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_array_equal(exe["rows"](x), x.astype(np.float64).sum(1).astype(np.float32))


def test_outlined_loops_run_on_the_interpreter():
    m = irtoolkit.parse(W1)
    run_pipeline(m, "ad,canonicalize,cse,tensor-fuse,lower-tensor-to-loop,lower-loop-to-cf")
    text = str(m)
    assert "func.func private @__irt_par_loss_0" in text
    assert 'irt.parallel = ["sum"]' in text and 'irt.parallel = ["same"]' in text
    x = np.random.default_rng(2).standard_normal(1500) * 0.5
    got = irtoolkit.interpret(m, "loss", x)
    assert abs(got - _loss(x)) <= _sum_tol(np.tanh(np.exp(x) * x + 1), 2.0 ** -52)
    np.testing.assert_allclose(irtoolkit.interpret(m, "grad", x), _grad(x), rtol=1e-12, atol=1e-13)


SEQUENTIAL = """
func.func @prefix(%x: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  loop.for %i = %c1 to %n step %c1 {
    %j = arith.subi %i, %c1 : index
    %p = memref.load %out[%j] : memref<?xf64>
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %p, %v : f64
    memref.store %s, %out[%i] : memref<?xf64>
  }
  func.return
}
func.func @plain_sum(%x: memref<?xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.addf %a, %v : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}
func.func @checked(%x: tensor<?xf64>, %m: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = loop.for %i = %c0 to %m step %c1 iter_args(%a = %z) -> (f64) {
    %v = tensor.extract %x[%i] : tensor<?xf64>
    %s = arith.addf %a, %v fastmath<reassoc> : f64
    loop.yield %s : f64
  }
  func.return %r : f64
}
"""


def test_loops_that_must_stay_sequential():
    # a store into an argument (may alias), a loop-carried read of the stored buffer,
    # a float sum without reassoc, a loop with a run-time bounds check: not outlined
    m = irtoolkit.parse(SEQUENTIAL)
    run_pipeline(m, "lower-tensor-to-loop,lower-loop-to-cf")
    assert "__irt_par_" not in str(m)
    exe = irtoolkit.compile(irtoolkit.parse(SEQUENTIAL))
    x = np.arange(200_000, dtype=np.float64)
    out = np.zeros_like(x)
    exe["prefix"](x, out)
    np.testing.assert_array_equal(out, np.concatenate([[0.0], np.cumsum(x[1:])]))
    assert exe["plain_sum"](x) == np.sum(x)
    with pytest.raises(irtoolkit.DiagnosticError, match="index out of bounds"):
        exe["checked"](x, 200_001)


def test_small_static_work_is_not_outlined():
    # a 100,000-term sum: 196 blocks of cost ~1,500, below the threshold; the block
    # loops inside (bounds b*512 .. min(b*512+512, n): 512 trips) are not outlined either
    text = """
func.func @s(%x: tensor<100000xf64>) -> f64 {
  %s = tensor.reduce_sum %x [0] : tensor<100000xf64> -> tensor<f64>
  %r = tensor.extract %s[] : tensor<f64>
  func.return %r : f64
}
"""
    m = irtoolkit.parse(text)
    run_pipeline(m, "tensor-fuse,lower-tensor-to-loop,lower-loop-to-cf")
    assert "__irt_par_" not in str(m)
    x = np.random.default_rng(3).standard_normal(100_000)
    got = irtoolkit.compile(irtoolkit.parse(text))["s"](x)
    assert abs(got - np.sum(x)) <= _sum_tol(x, 2.0 ** -52)


MIXED = """
func.func @both(%x: memref<?xf64>) -> (memref<?xf64>, f64, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<?xf64>
  %o, %s, %k = loop.for %i = %c0 to %n step %c1 iter_args(%ob = %out, %a = %z, %c = %zi) -> (memref<?xf64>, f64, i64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %e = math.exp %v : f64
    memref.store %e, %ob[%i] : memref<?xf64>
    %a2 = arith.addf %a, %e fastmath<reassoc> : f64
    %ii = arith.index_cast %i : index to i64
    %c2 = arith.addi %c, %ii : i64
    loop.yield %ob, %a2, %c2 : memref<?xf64>, f64, i64
  }
  func.return %o, %s, %k : memref<?xf64>, f64, i64
}
func.func @isum(%x: tensor<?xi64>) -> i64 {
  %s = tensor.reduce_sum %x [0] : tensor<?xi64> -> tensor<i64>
  %r = tensor.extract %s[] : tensor<i64>
  func.return %r : i64
}
"""


def test_several_iteration_values_and_integer_sums(threads):
    m = irtoolkit.parse(MIXED)
    run_pipeline(m, "lower-tensor-to-loop,lower-loop-to-cf")
    assert 'irt.parallel = ["same", "sum", "sum"]' in str(m)
    exe = irtoolkit.compile(irtoolkit.parse(MIXED))
    for t in (1, 2, 3):
        threads(t)
        for n in (0, 5, 150_001):
            x = np.random.default_rng(n).standard_normal(n)
            o, s, k = exe["both"](x)
            np.testing.assert_allclose(o, np.exp(x), rtol=4e-16)
            assert abs(s - np.sum(np.exp(x))) <= _sum_tol(np.exp(x), 2.0 ** -52)
            assert k == n * (n - 1) // 2
            xi = np.random.default_rng(n).integers(-2**62, 2**62, 3 * n)
            assert exe["isum"](xi) == int(np.sum(xi))  # wrapping, as numpy's int64 sum


LATE_WORKERS = r"""
import os, sys, time
import numpy as np
import irtoolkit
exe = irtoolkit.compile(irtoolkit.parse(sys.stdin.read(), "w1.mlir"))
x = np.random.default_rng(7).standard_normal(300_001) * 0.5
tasks = len(os.listdir("/proc/self/task"))  # (before any worker)
want = exe["loss"](x), exe["grad"](x)
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # the workers wait for the one core
os.environ["IRT_NUM_THREADS"] = "8"
for _ in range(50):
    got = exe["loss"](x), exe["grad"](x)
    assert got[0] == want[0] and np.array_equal(got[1], want[1]), got[0]
for _ in range(1000):  # the detached workers run late, find no chunk and end
    if len(os.listdir("/proc/self/task")) <= tasks:
        break
    time.sleep(0.01)
print("tasks", tasks, len(os.listdir("/proc/self/task")))
"""


def test_workers_that_start_late_change_nothing_and_end():
    """On one core the calling thread may run every chunk before any worker starts:
    it waits only for chunks a worker took, the same chunks give the same bits, and
    the detached workers (the last frees what the threads share) all end."""
    # (untiered: no compiler thread comes or goes while the threads are counted)
    env = {**os.environ, "IRT_NUM_THREADS": "2", "IRT_NO_CACHE": "1", "IRT_TIERED": "0"}
    proc = subprocess.run([sys.executable, "-c", LATE_WORKERS], input=W1, capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    _, before, after = proc.stdout.split()
    assert int(after) <= int(before)
