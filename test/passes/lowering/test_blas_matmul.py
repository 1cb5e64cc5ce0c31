"""`tensor.matmul` lowered to BLAS gemm (numpy's OpenBLAS) by `lower-tensor-to-loop`:
compiled results against numpy (f32/f64, static and dynamic shapes, transposed
operands folded into the gemm flags, degenerate sizes), the loop-nest fallback
(`blas=false`, or no library), and the reference interpreter on the lowered IR."""

from __future__ import annotations

import os

import numpy as np
import pytest
from xdsl.dialects import func

import irtoolkit as irt
from irtoolkit.interpreter import interpret_function
from irtoolkit.passes.lowering.dot_loops import DEPTH
from irtoolkit.passes.lowering.tensor_to_loop import LowerTensorToLoopPass
from irtoolkit.pipeline import run_pipeline
from irtoolkit.runtime import blas as rt_blas

needs_blas = pytest.mark.skipif(not rt_blas.blas_available(), reason="numpy's OpenBLAS not found")

LOWER = "lower-tensor-to-loop,lower-loop-to-cf,convert-to-llvm"
LOWER_NOBLAS = "lower-tensor-to-loop{blas=false},lower-loop-to-cf,convert-to-llvm"

MM = """
func.func @mm(%a: tensor<{A}x{t}>, %b: tensor<{B}x{t}>) -> tensor<{C}x{t}> {{
  %c = tensor.matmul %a, %b : (tensor<{A}x{t}>, tensor<{B}x{t}>) -> tensor<{C}x{t}>
  return %c : tensor<{C}x{t}>
}}
"""

TRANSPOSED = """
func.func @ta(%a: tensor<?x?x{t}>, %b: tensor<?x?x{t}>) -> tensor<?x?x{t}> {{
  %at = tensor.transpose %a [1, 0] : tensor<?x?x{t}> -> tensor<?x?x{t}>
  %c = tensor.matmul %at, %b : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>
  return %c : tensor<?x?x{t}>
}}
func.func @tb(%a: tensor<?x?x{t}>, %b: tensor<?x?x{t}>) -> tensor<?x?x{t}> {{
  %bt = tensor.transpose %b [1, 0] : tensor<?x?x{t}> -> tensor<?x?x{t}>
  %c = tensor.matmul %a, %bt : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>
  return %c : tensor<?x?x{t}>
}}
func.func @tab(%a: tensor<?x?x{t}>, %b: tensor<?x?x{t}>) -> tensor<?x?x{t}> {{
  %at = tensor.transpose %a [1, 0] : tensor<?x?x{t}> -> tensor<?x?x{t}>
  %bt = tensor.transpose %b [1, 0] : tensor<?x?x{t}> -> tensor<?x?x{t}>
  %c = tensor.matmul %at, %bt : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>
  return %c : tensor<?x?x{t}>
}}
func.func @shared(%a: tensor<?x?x{t}>, %b: tensor<?x?x{t}>) -> (tensor<?x?x{t}>, tensor<?x?x{t}>) {{
  %at = tensor.transpose %a [1, 0] : tensor<?x?x{t}> -> tensor<?x?x{t}>
  %c = tensor.matmul %at, %b : (tensor<?x?x{t}>, tensor<?x?x{t}>) -> tensor<?x?x{t}>
  return %c, %at : tensor<?x?x{t}>, tensor<?x?x{t}>
}}
"""

DTYPES = {"f32": np.float32, "f64": np.float64}
RTOL = {"f32": 2e-5, "f64": 1e-12}


def _mm(t: str, A: str, B: str, C: str) -> str:
    return MM.format(t=t, A=A, B=B, C=C)


def _rand(rng, shape, t):
    return rng.standard_normal(shape).astype(DTYPES[t])


def _close(got, want, t):
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=RTOL[t] * scale * 8)


def _lowered(text: str, spec: str = "lower-tensor-to-loop{blas=true}", **options):
    m = irt.parse(text)
    if options:  # several options: build the pass directly
        LowerTensorToLoopPass(**options).apply(irt.context(), m)
    else:
        run_pipeline(m, spec)
    return m


def _calls(m) -> list[func.CallOp]:
    return [o for o in m.walk() if isinstance(o, func.CallOp) and "gemm" in o.callee.string_value()]


def _flags(call: func.CallOp) -> tuple[int, int]:
    vals = []
    for v in call.operands[1:3]:
        vals.append(v.owner.value.value.data)  # arith.constant
    return tuple(vals)


# ---------------------------------------------------------------------------
# compiled against numpy
# ---------------------------------------------------------------------------


@needs_blas
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_static_bit_exact_with_numpy(t):
    rng = np.random.default_rng(1)
    exe = irt.compile(irt.parse(_mm(t, "96x64", "64x80", "96x80")))
    assert "gemm64_" in exe.llvm_ir
    a, b = _rand(rng, (96, 64), t), _rand(rng, (64, 80), t)
    got = exe["mm"](a, b)
    # the same library with the same arguments as numpy's matmul
    assert np.array_equal(got, a @ b)


@needs_blas
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_dynamic_shapes_and_degenerate_sizes(t):
    rng = np.random.default_rng(2)
    exe = irt.compile(irt.parse(_mm(t, "?x?", "?x?", "?x?")))
    assert "gemm64_" in exe.llvm_ir
    for M, K, N in [(37, 53, 29), (1, 40, 30), (30, 40, 1), (25, 1, 33), (1, 1, 1), (200, 3, 1),
                    (3, 0, 4), (0, 5, 4), (4, 5, 0), (0, 0, 0)]:
        a, b = _rand(rng, (M, K), t), _rand(rng, (K, N), t)
        got = exe["mm"](a, b)
        want = a @ b
        _close(got, want, t)
        if K == 0:
            assert not np.any(got), "K = 0 must give zeros"


@needs_blas
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_k_zero_with_uninitialized_result_buffers(t):
    # malloc'ed results hold garbage: gemm with beta = 0 and K = 0 must still write zeros
    exe = irt.compile(irt.parse(_mm(t, "?x?", "?x?", "?x?")))
    for _ in range(3):
        big = exe["mm"](np.ones((300, 300), DTYPES[t]), np.ones((300, 300), DTYPES[t]))
        del big
        got = exe["mm"](np.zeros((300, 0), DTYPES[t]), np.zeros((0, 300), DTYPES[t]))
        assert got.shape == (300, 300) and not np.any(got)


# ---------------------------------------------------------------------------
# transposed operands: folded into the gemm flags
# ---------------------------------------------------------------------------


@needs_blas
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_transposes_fold_into_flags(t):
    text = TRANSPOSED.format(t=t)
    m = _lowered(text)
    flags = {}
    for f in m.walk():
        if isinstance(f, func.FuncOp) and f.body.blocks:
            calls = _calls(f)
            assert len(calls) == 1
            flags[f.sym_name.data] = _flags(calls[0])
    assert flags == {"ta": (112, 111), "tb": (111, 112), "tab": (112, 112), "shared": (112, 111)}
    # no transpose copy is left where the transposed value has no other use
    by_name = {f.sym_name.data: f for f in m.walk() if isinstance(f, func.FuncOp)}
    for name in ("ta", "tb", "tab"):
        assert not any(o.name == "loop.for" for o in by_name[name].walk()), name
    # @shared still returns the transpose: its copy loop stays
    assert any(o.name == "loop.for" for o in by_name["shared"].walk())

    rng = np.random.default_rng(4)
    exe = irt.compile(irt.parse(text))
    a, b = _rand(rng, (40, 30), t), _rand(rng, (40, 20), t)
    assert np.array_equal(exe["ta"](a, b), a.T @ b)
    a, b = _rand(rng, (30, 40), t), _rand(rng, (20, 40), t)
    assert np.array_equal(exe["tb"](a, b), a @ b.T)
    a, b = _rand(rng, (40, 30), t), _rand(rng, (20, 40), t)
    assert np.array_equal(exe["tab"](a, b), a.T @ b.T)
    a, b = _rand(rng, (40, 30), t), _rand(rng, (40, 20), t)
    c, at = exe["shared"](a, b)
    assert np.array_equal(c, a.T @ b) and np.array_equal(at, a.T)
    # degenerate transposed shapes
    for K, M, N in [(0, 3, 4), (1, 5, 1), (5, 1, 7), (3, 4, 0)]:
        a, b = _rand(rng, (K, M), t), _rand(rng, (N, K), t)
        _close(exe["tab"](a, b), a.T @ b.T, t)
        _close(exe["tb"](a.T.copy(), b), a.T @ b.T, t)


@needs_blas
def test_gradient_of_matmul_uses_transposed_gemm():
    # what the ad pass produces: dA = dC @ B^T, dB = A^T @ dC
    text = """
    func.func @loss(%a: tensor<64x48xf32>, %b: tensor<48x32xf32>) -> f32 {
      %c = tensor.matmul %a, %b : (tensor<64x48xf32>, tensor<48x32xf32>) -> tensor<64x32xf32>
      %s = tensor.reduce_sum %c [0, 1] : tensor<64x32xf32> -> tensor<f32>
      %r = tensor.extract %s[] : tensor<f32>
      func.return %r : f32
    }
    func.func @grad(%a: tensor<64x48xf32>, %b: tensor<48x32xf32>) -> (tensor<64x48xf32>, tensor<48x32xf32>) {
      %ga, %gb = autodiff.grad @loss(%a, %b) wrt [0, 1]
          : (tensor<64x48xf32>, tensor<48x32xf32>) -> (tensor<64x48xf32>, tensor<48x32xf32>)
      func.return %ga, %gb : tensor<64x48xf32>, tensor<48x32xf32>
    }"""
    m = irt.parse(text)
    run_pipeline(m, "ad,lower-tensor-to-loop")
    calls = _calls(m)
    assert sorted(_flags(c) for c in calls) == [(111, 111), (111, 112), (112, 111)]
    assert not any(o.name == "tensor.transpose" for o in m.walk())
    rng = np.random.default_rng(5)
    a, b = _rand(rng, (64, 48), "f32"), _rand(rng, (48, 32), "f32")
    ga, gb = irt.compile(irt.parse(text))["grad"](a, b)
    ones = np.ones((64, 32), np.float32)
    _close(ga, ones @ b.T, "f32")
    _close(gb, a.T @ ones, "f32")


# ---------------------------------------------------------------------------
# when BLAS is not used
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_fallback_loop_nest(t):
    text = _mm(t, "?x?", "?x?", "?x?") + TRANSPOSED.format(t=t)
    m = _lowered(text, "lower-tensor-to-loop{blas=false}")
    assert not _calls(m)
    assert not any(isinstance(o, func.FuncOp) and not o.body.blocks for o in m.walk())
    rng = np.random.default_rng(6)
    exe = irt.compile(irt.parse(text), LOWER_NOBLAS)
    assert "gemm" not in exe.llvm_ir
    for M, K, N in [(33, 17, 29), (1, 8, 1), (6, 1, 1), (3, 0, 4), (0, 2, 3)]:
        a, b = _rand(rng, (M, K), t), _rand(rng, (K, N), t)
        _close(exe["mm"](a, b), a @ b, t)
        _close(exe["ta"](a.T.copy(), b), a @ b, t)
        _close(exe["tb"](a, b.T.copy()), a @ b, t)


def test_fallback_is_an_axpy_with_contiguous_inner_loops():
    m = _lowered(_mm("f64", "?x?", "?x?", "?x?"), "lower-tensor-to-loop{blas=false}")
    f = next(o for o in m.walk() if isinstance(o, func.FuncOp))
    # zero fill, then i, k (blocks of DEPTH steps, then the rest), j: each innermost
    # loop loads and stores C[i, j] and reads rows of B along j
    fors = [o for o in f.walk() if o.name == "loop.for"]
    innermost = [o for o in fors if not any(x.name == "loop.for" for x in o.walk() if x is not o)]
    assert len(innermost) == 3  # the zero fill's, the blocked k's, the remainder's
    for depth, inner in zip((DEPTH, 1), innermost[1:]):
        j = inner.regions[0].blocks[0].args[0]
        loads = [o for o in inner.walk() if o.name == "memref.load"]
        assert len(loads) == depth + 1 and all(o.operands[-1] is j for o in loads)
        stores = [o for o in inner.walk() if o.name == "memref.store"]
        assert len(stores) == 1 and stores[0].operands[-1] is j


def test_small_static_and_f16_matmuls_stay_loops():
    small = _lowered(_mm("f32", "2x3", "3x4", "2x4"))
    assert not _calls(small)
    forced = _lowered(_mm("f32", "2x3", "3x4", "2x4"), blas=True, blas_threshold=0)
    assert len(_calls(forced)) == 1
    half = _lowered(_mm("f16", "?x?", "?x?", "?x?"))
    assert not _calls(half)
    exe = irt.compile(irt.parse(_mm("f16", "?x?", "?x?", "?x?")))
    rng = np.random.default_rng(7)
    a, b = rng.integers(-3, 3, (20, 30)).astype(np.float16), rng.integers(-3, 3, (30, 10)).astype(np.float16)
    assert np.array_equal(exe["mm"](a, b), (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))


def test_the_jit_turns_blas_off_without_library(monkeypatch):
    """The pass takes BLAS as an option (it imports no runtime); the JIT, which links
    the code, turns it off when the library is missing."""
    from irtoolkit.runtime import translate

    def option(m):
        (p,) = [p for p in translate.default_lowering_passes(m) if isinstance(p, LowerTensorToLoopPass)]
        return p.blas

    m = irt.parse(_mm("f64", "?x?", "?x?", "?x?"))
    monkeypatch.setattr(rt_blas, "blas_available", lambda: False)
    assert option(m) is False
    monkeypatch.setattr(rt_blas, "blas_available", lambda: True)
    assert option(m) is True
    assert not _calls(_lowered(_mm("f64", "?x?", "?x?", "?x?") + TRANSPOSED.format(t="f64"),
                               "lower-tensor-to-loop{blas=false}"))
    monkeypatch.setenv("IRT_BLAS", "0")
    assert rt_blas.find_openblas() is None


@needs_blas
def test_library_is_found_and_loads():
    path = rt_blas.find_openblas()
    assert path is not None and "openblas" in path
    assert rt_blas.load_blas()
    assert rt_blas.gemm_address("scipy_cblas_dgemm64_")


@needs_blas
def test_linking_a_gemm_sets_the_blas_threads():
    import ctypes

    import subprocess
    import sys

    # in a fresh process each: the setting is made once per process
    probe = ("import ctypes; from irtoolkit.runtime import blas; lib = ctypes.CDLL(blas.find_openblas()); "
             "before = lib.scipy_openblas_get_num_threads64_(); assert blas.gemm_address('scipy_cblas_sgemm64_'); "
             "print(before, lib.scipy_openblas_get_num_threads64_())")
    for env, want in (({"IRT_BLAS_THREADS": "1"}, "1"), ({}, None)):
        base = {k: v for k, v in os.environ.items() if k != "IRT_BLAS_THREADS"}
        out = subprocess.run([sys.executable, "-c", probe], env={**base, **env}, capture_output=True,
                             text=True, check=True).stdout.split()
        assert out[1] == (want or out[0])  # unset: OpenBLAS's own count, untouched


@needs_blas
def test_static_k_zero_through_blas():
    t = "f64"
    text = _mm(t, "3x0", "0x4", "3x4")
    lowered = _lowered(text, blas=True, blas_threshold=0)
    assert len(_calls(lowered)) == 1
    exe = irt.compile(lowered, "lower-loop-to-cf,convert-to-llvm")
    got = exe["mm"](np.zeros((3, 0)), np.zeros((0, 4)))
    assert got.shape == (3, 4) and not np.any(got)


# ---------------------------------------------------------------------------
# the interpreter runs the lowered IR (the gemm call included)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_interpreter_runs_gemm_calls(t):
    text = _mm(t, "?x?", "?x?", "?x?") + TRANSPOSED.format(t=t)
    lowered = _lowered(text)
    assert _calls(lowered)
    tensor_level = irt.parse(text)
    rng = np.random.default_rng(8)
    for M, K, N in [(7, 5, 3), (1, 4, 1), (3, 0, 2), (0, 3, 2)]:
        a, b = _rand(rng, (M, K), t), _rand(rng, (K, N), t)
        want = a @ b
        _close(interpret_function(lowered, "mm", a, b), want, t)
        _close(interpret_function(lowered, "ta", a.T.copy(), b), want, t)
        _close(interpret_function(lowered, "tb", a, b.T.copy()), want, t)
        _close(interpret_function(lowered, "tab", a.T.copy(), b.T.copy()), want, t)
        _close(interpret_function(tensor_level, "tab", a.T.copy(), b.T.copy()), want, t)
        c, at = interpret_function(lowered, "shared", a.T.copy(), b)
        _close(c, want, t)
        assert np.array_equal(at, a)


# ---------------------------------------------------------------------------
# acc + dot: one gemm with beta = 1 (blas.plan_accumulations)
# ---------------------------------------------------------------------------

# @steps: a loop-carried accumulator of x_t^T y_t (transposed lhs folded into the flags):
# the gemm adds into the iteration's buffer. The others must not write into a value that
# is read afterwards: @later reads acc after the add, @operand's acc is the dot's own
# operand, @arg's acc is an argument (borrowed), @twice uses the product twice, @batched
# accumulates a dot with batch dims.
ACCUMULATE = """
func.func @steps(%xs: tensor<3x40x32x{t}>, %ys: tensor<3x40x48x{t}>, %a0: tensor<32x48x{t}>) -> tensor<32x48x{t}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = loop.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a0) -> (tensor<32x48x{t}>) {{
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 40, 32] [1, 1, 1] : tensor<3x40x32x{t}> to tensor<40x32x{t}>
    %y = tensor.extract_slice %ys[%i, 0, 0] [1, 40, 48] [1, 1, 1] : tensor<3x40x48x{t}> to tensor<40x48x{t}>
    %xt = tensor.transpose %x [1, 0] : tensor<40x32x{t}> -> tensor<32x40x{t}>
    %p = tensor.matmul %xt, %y : (tensor<32x40x{t}>, tensor<40x48x{t}>) -> tensor<32x48x{t}>
    %s = tensor.add %acc, %p : tensor<32x48x{t}>
    loop.yield %s : tensor<32x48x{t}>
  }}
  return %r : tensor<32x48x{t}>
}}
func.func @later(%a: tensor<32x40x{t}>, %b: tensor<40x48x{t}>, %c: tensor<32x48x{t}>) -> (tensor<32x48x{t}>, tensor<32x48x{t}>) {{
  %acc = tensor.mul %c, %c : tensor<32x48x{t}>
  %p = tensor.matmul %a, %b : (tensor<32x40x{t}>, tensor<40x48x{t}>) -> tensor<32x48x{t}>
  %s = tensor.add %p, %acc : tensor<32x48x{t}>
  %u = tensor.exp %acc : tensor<32x48x{t}>
  return %s, %u : tensor<32x48x{t}>, tensor<32x48x{t}>
}}
func.func @operand(%w: tensor<48x48x{t}>, %c: tensor<48x48x{t}>) -> tensor<48x48x{t}> {{
  %acc = tensor.mul %c, %c : tensor<48x48x{t}>
  %p = tensor.matmul %acc, %w : (tensor<48x48x{t}>, tensor<48x48x{t}>) -> tensor<48x48x{t}>
  %s = tensor.add %acc, %p : tensor<48x48x{t}>
  return %s : tensor<48x48x{t}>
}}
func.func @arg(%a: tensor<32x40x{t}>, %b: tensor<40x48x{t}>, %acc: tensor<32x48x{t}>) -> tensor<32x48x{t}> {{
  %p = tensor.matmul %a, %b : (tensor<32x40x{t}>, tensor<40x48x{t}>) -> tensor<32x48x{t}>
  %s = tensor.add %acc, %p : tensor<32x48x{t}>
  return %s : tensor<32x48x{t}>
}}
func.func @twice(%a: tensor<32x40x{t}>, %b: tensor<40x48x{t}>, %c: tensor<32x48x{t}>) -> (tensor<32x48x{t}>, tensor<32x48x{t}>) {{
  %acc = tensor.mul %c, %c : tensor<32x48x{t}>
  %p = tensor.matmul %a, %b : (tensor<32x40x{t}>, tensor<40x48x{t}>) -> tensor<32x48x{t}>
  %s = tensor.add %acc, %p : tensor<32x48x{t}>
  return %s, %p : tensor<32x48x{t}>, tensor<32x48x{t}>
}}
func.func @batched(%a: tensor<2x32x40x{t}>, %b: tensor<2x48x40x{t}>, %c: tensor<2x32x48x{t}>) -> tensor<2x32x48x{t}> {{
  %acc = tensor.mul %c, %c : tensor<2x32x48x{t}>
  %p = tensor.dot %a, %b batch [0] x [0] contract [2] x [2] : (tensor<2x32x40x{t}>, tensor<2x48x40x{t}>) -> tensor<2x32x48x{t}>
  %s = tensor.add %acc, %p : tensor<2x32x48x{t}>
  return %s : tensor<2x32x48x{t}>
}}
"""


def _beta(call: func.CallOp) -> float:
    return call.operands[11].owner.value.value.data  # arith.constant


@needs_blas
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_accumulating_dots(t):
    text = ACCUMULATE.format(t=t)
    m = _lowered(text)
    by_name = {f.sym_name.data: f for f in m.walk() if isinstance(f, func.FuncOp) and f.body.blocks}
    betas = {name: [_beta(c) for c in _calls(f)] for name, f in by_name.items()}
    assert betas == {"steps": [1.0], "later": [1.0], "operand": [1.0], "arg": [1.0], "twice": [0.0],
                     "batched": [1.0]}
    # in place in the loop: no copy of the accumulator; a copy where acc lives on or is
    # borrowed, or is read by the gemm itself
    copies = {name: sum(o.name == "memref.copy" for o in f.walk()) for name, f in by_name.items()}
    assert copies["steps"] == 1 and copies["batched"] == 0  # steps: %a0 into the loop
    assert copies["later"] == copies["operand"] == copies["arg"] == 1

    rng = np.random.default_rng(11)
    xs, ys, a0 = _rand(rng, (3, 40, 32), t), _rand(rng, (3, 40, 48), t), _rand(rng, (32, 48), t)
    a, b, c = _rand(rng, (32, 40), t), _rand(rng, (40, 48), t), _rand(rng, (32, 48), t)
    w, c2 = _rand(rng, (48, 48), t), _rand(rng, (48, 48), t)
    ba, bb, bc = _rand(rng, (2, 32, 40), t), _rand(rng, (2, 48, 40), t), _rand(rng, (2, 32, 48), t)
    want = {
        "steps": ((xs, ys, a0), a0 + sum(xs[i].T @ ys[i] for i in range(3))),
        "later": ((a, b, c), (a @ b + c * c, np.exp(c * c))),
        "operand": ((w, c2), c2 * c2 + (c2 * c2) @ w),
        "arg": ((a, b, c), c + a @ b),
        "twice": ((a, b, c), (c * c + a @ b, a @ b)),
        "batched": ((ba, bb, bc), bc * bc + ba @ bb.transpose(0, 2, 1)),
    }
    exe = irt.compile(irt.parse(text))
    for name, (args, expected) in want.items():
        kept = [x.copy() for x in args]
        runs = [exe[name], lambda *xs, name=name: interpret_function(m, name, *xs)]
        # the interpreter finds gemm operands by their buffers' base addresses only: not
        # the per-batch-element offsets of a batched dot's calls
        for run in runs[:1] if name == "batched" else runs:
            got = run(*args)
            for g, e in zip(got if isinstance(got, tuple) else (got,),
                            expected if isinstance(expected, tuple) else (expected,)):
                _close(g, e.astype(DTYPES[t]), t)
            assert all(np.array_equal(x, k) for x, k in zip(args, kept)), name  # arguments untouched
