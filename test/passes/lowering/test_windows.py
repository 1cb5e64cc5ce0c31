"""`tensor.conv` and the windowed reductions compiled (`lower-tensor-to-loop`
down to the JIT) against the interpreter: the im2col + gemm path (BLAS on), the
direct loop nests (BLAS off) and the nests with the window unrolled (few output
features), f32 and f64; which path a conv takes."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.runtime import blas as rt_blas

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "interpreter"))
from windows_reference import (  # noqa: E402
    CONV_CASES,
    WINDOW_CASES,
    conv_function,
    naive_conv,
    window_functions,
    window_operand,
)

LOWER = "lower-tensor-to-loop{blas_threshold=0 conv_unroll=0},lower-loop-to-cf,convert-to-llvm"
LOWER_NOBLAS = "lower-tensor-to-loop{blas=false conv_unroll=0},lower-loop-to-cf,convert-to-llvm"
LOWER_UNROLL = "lower-tensor-to-loop{conv_unroll=700},lower-loop-to-cf,convert-to-llvm"
PIPELINES = {"gemm": LOWER, "loops": LOWER_NOBLAS} if rt_blas.blas_available() else {"loops": LOWER_NOBLAS}
ULPS = {"f32": 1e-5, "f64": 1e-12}
DTYPES = {"f32": np.float32, "f64": np.float64}

_MODULES: dict = {}


def _module(et: str):
    """All cases of one element type in one module (compiled once per pipeline)."""
    if et not in _MODULES:
        text = "".join(conv_function(f"conv_{n}", x, w, c, o, et) for n, (x, w, c, o) in CONV_CASES.items())
        text += "".join(window_functions(f"win_{n}", s, win, c, o, et) for n, (s, win, c, o) in WINDOW_CASES.items())
        _MODULES[et] = irt.parse(text)
    return _MODULES[et]


_EXES: dict = {}


def _compiled(et: str, path: str):
    if (et, path) not in _EXES:
        _EXES[(et, path)] = irt.compile(_module(et), PIPELINES[path])
    return _EXES[(et, path)]


def _close(got, want, et):
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=ULPS[et], atol=ULPS[et] * scale)


# two compiled modules (compiling is the cost): each path, each element type once
CONFIGS = [("f32", "gemm" if "gemm" in PIPELINES else "loops"), ("f64", "loops")]


@pytest.mark.parametrize("et, path", CONFIGS)
@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv_compiled_matches_interpreter(name, et, path):
    x, w, _, _ = CONV_CASES[name]
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(x).astype(DTYPES[et]), rng.standard_normal(w).astype(DTYPES[et])
    want = irt.interpret(_module(et), f"conv_{name}", a, b)
    _close(_compiled(et, path)[f"conv_{name}"](a, b), want, et)


@pytest.mark.parametrize("et, path", CONFIGS)
@pytest.mark.parametrize("name", list(WINDOW_CASES))
def test_windows_compiled_match_interpreter(name, et, path):
    shape, _, _, out = WINDOW_CASES[name]
    rng = np.random.default_rng(6)
    dt = DTYPES[et]
    x = window_operand(rng, shape, dt)
    x.flat[0] = np.nan if x.size > 3 else x.flat[0]
    g, t = rng.standard_normal(out).astype(dt), rng.standard_normal(shape).astype(dt)
    want = irt.interpret(_module(et), f"win_{name}", x, g, t)
    got = _compiled(et, path)[f"win_{name}"](x, g, t)
    for u, v in zip(got, want):
        np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-6)  # NaN where NaN


def _lowered(src: str, pipeline: str = "lower-tensor-to-loop") -> str:
    return str(irt.run_pipeline(irt.parse(src), pipeline))


def test_conv_paths():
    """Ungrouped convs with enough work call gemm (on an im2col buffer, or on the
    input for 1×1), shallow ones included, unless they have few output features
    and window × C × F terms (then the window is unrolled in a nest); grouped and
    small ones are loop nests."""
    x, w, c, o = CONV_CASES["2d_deep"]  # 4,608 terms
    deep = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")
    assert deep.count("func.call @scipy_cblas_sgemm64_") == 1 and deep.count("memref.alloc") == 2
    wide = _lowered(conv_function("f", (2, 6, 6, 2), (3, 3, 2, 16), "", (2, 4, 4, 16), "f32"),
                    "lower-tensor-to-loop{blas_threshold=0}")  # 16 output features
    assert "gemm" in wide
    x, w, c, o = CONV_CASES["2d_large"]  # 600 terms, 8 features, 345,600 multiply-adds
    unrolled = _lowered(conv_function("f", x, w, c, o, "f32"))
    assert "gemm" not in unrolled and unrolled.count("memref.alloc") == 1
    assert unrolled.count("arith.mulf") == 600 and unrolled.count("loop.for") == 3  # n, o0, o1
    assert "gemm" in _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{conv_unroll=0}")
    x, w, c, o = CONV_CASES["2d"]  # 1,296 multiply-adds: below blas_threshold
    assert "gemm" not in _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{conv_unroll=0}")
    x, w, c, o = CONV_CASES["2d_1x1"]
    one = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0 conv_unroll=0}")
    assert "func.call @scipy_cblas_sgemm64_" in one and one.count("memref.alloc") == 1
    assert "loop.for" not in one
    x, w, c, o = CONV_CASES["2d_depthwise"]
    assert "gemm" not in _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")


# convs with fewer operand than output positions (transposed convs, as conv's
# input adjoint): gemm on the operand, then col2im
TRANSPOSED_CASES = {
    "1d_input_dilation": ((2, 4, 3), (3, 3, 2), "pad [[2, 3]] input_dilation [3]", (2, 13, 2)),
    "1d_negative_pad_stride": ((1, 5, 2), (2, 2, 3), "stride [2] pad [[-1, 4]] input_dilation [2]", (1, 6, 3)),
    "2d_full_pad": ((2, 4, 4, 3), (3, 3, 3, 2), "pad [[2, 2], [2, 2]]", (2, 6, 6, 2)),
    "2d_all": ((1, 3, 4, 2), (3, 2, 2, 3), "stride [2, 1] pad [[2, 1], [1, 1]] input_dilation [2, 2] dilation [1, 2]",
               (1, 3, 7, 3)),
    "3d_pad": ((1, 2, 3, 2, 2), (2, 2, 2, 2, 2), "pad [[1, 1], [1, 0], [1, 1]]", (1, 3, 3, 3, 2)),
}


def _compiled_cases(et: str, cases: dict, pipeline: str = LOWER):
    """(et, one module of a function per case, named as the case, compiled)."""
    text = "".join(conv_function(n, x, w, c, o, et) for n, (x, w, c, o) in cases.items())
    return et, irt.compile(irt.parse(text), pipeline)


@pytest.fixture(scope="module", params=["f32", "f64"])
def by_path(request):
    """The transposed convs (col2im) and the dots cases below, one module."""
    return _compiled_cases(request.param, _BY_PATH)


@pytest.mark.parametrize("name", [f"t_{n}" for n in TRANSPOSED_CASES])
def test_transposed_conv_col2im_matches_reference(by_path, name):
    _check_naive(*by_path, name, _BY_PATH[name])


def _check_naive(et, exe, fn, case):
    """Compiled function ``fn`` of ``exe`` against the naive conv of ``case``."""
    x, w, clauses, _ = case
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(x).astype(DTYPES[et]), rng.standard_normal(w).astype(DTYPES[et])
    _close(exe[fn](a, b), naive_conv(a, b, clauses), et)


def test_transposed_conv_path():
    """A conv with fewer operand than output positions: one gemm on the operand
    itself (no im2col buffer) into columns scattered into the result."""
    x, w, c, o = TRANSPOSED_CASES["2d_full_pad"]
    text = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")
    assert text.count("func.call @scipy_cblas_sgemm64_") == 1
    assert "memref<2x4x4x3x3x2xf32>" in text and "memref<3x3x3x2xf32>" in text  # columns, filter C × K × F
    assert "memref<2x6x6x3x3x3xf32>" not in text  # no im2col buffer


@pytest.fixture(scope="module", params=["f32", "f64"])
def unrolled(request):
    """Ungrouped cases, plain and transposed, as nests with the window unrolled."""
    return _compiled_cases(request.param, {f"u_{n}": _UNROLL_ALL[n] for n in UNROLLED}, LOWER_UNROLL)


UNROLLED_CASES = {  # odd widths (vector remainders), 1-D and 3-D, dilations, padding on every side
    "1d_odd": ((3, 19, 2), (4, 2, 5), "dilation [2]", (3, 13, 5)),
    "2d_odd_pad": ((2, 9, 11, 1), (5, 5, 1, 6), "pad [[2, 2], [2, 2]]", (2, 9, 11, 6)),
    "2d_stride_dilation": ((1, 13, 17, 3), (3, 3, 3, 7), "stride [2, 3] pad [[0, 1], [2, 1]] dilation [1, 2]",
                           (1, 6, 6, 7)),
    "3d_input_dilation": ((1, 5, 6, 9, 2), (2, 3, 2, 2, 3), "pad [[1, 0], [0, 0], [1, 1]] input_dilation [1, 2, 1]",
                          (1, 5, 9, 10, 3)),
}


_UNROLL_ALL = {**CONV_CASES, **TRANSPOSED_CASES, **UNROLLED_CASES}
UNROLLED = ["1d_stride_pad", "2d_input_dilation", "2d_negative_pad", "2d_stride_skips_tail", "2d_size1", "3d",
            "1d_negative_pad_stride", "2d_all", *UNROLLED_CASES]


@pytest.mark.parametrize("name", UNROLLED)
def test_unrolled_conv_matches_reference(unrolled, name):
    _check_naive(*unrolled, f"u_{name}", _UNROLL_ALL[name])


@pytest.mark.parametrize("pipeline", [None, LOWER], ids=["unrolled", "im2col"])
def test_conv_dynamic_batch(pipeline):
    src = conv_function("f", ("?", 6, 6, 2), (3, 3, 2, 4), "stride [2, 2] pad [[1, 1], [1, 1]]", ("?", 3, 3, 4))
    exe = irt.compile(irt.parse(src), pipeline)
    rng = np.random.default_rng(2)
    for n in (0, 1, 3):
        a, b = rng.standard_normal((n, 6, 6, 2)), rng.standard_normal((3, 3, 2, 4))
        np.testing.assert_allclose(exe["f"](a, b), naive_conv(a, b, "stride [2, 2] pad [[1, 1], [1, 1]]"),
                                   rtol=1e-12, atol=1e-12)


# convs whose window has more positions than their output, with few features (as
# conv's filter adjoint: the window is the forward's output, the batch its
# features): dot products over window rows (`_conv_dots`). Odd last output dims
# and feature counts leave remainders of the position x feature blocks.
DOT_CASES = {
    "1d": ((2, 20, 8), (17, 8, 3), "", (2, 4, 3)),
    "2d_lenet_like": ((1, 12, 12, 16), (8, 8, 16, 6), "", (1, 5, 5, 6)),
    "2d_stride_dilation": ((3, 13, 11, 8), (5, 4, 8, 5), "stride [2, 1] dilation [2, 2]", (3, 3, 5, 5)),
    "2d_pad": ((2, 9, 9, 12), (8, 8, 12, 4), "pad [[2, 1], [1, 2]]", (2, 5, 5, 4)),
    "2d_negative_pad": ((1, 10, 12, 8), (6, 7, 8, 7), "pad [[-1, 0], [0, -2]]", (1, 4, 4, 7)),
    "2d_input_dilation": ((1, 6, 5, 8), (9, 8, 8, 2), "pad [[1, 1], [1, 0]] input_dilation [2, 2]", (1, 5, 3, 2)),
    "3d": ((1, 5, 6, 7, 4), (4, 4, 5, 4, 3), "stride [1, 2, 1] pad [[0, 1], [1, 0], [0, 0]]", (1, 3, 2, 3, 3)),
    "3d_stride_outer": ((1, 5, 6, 7, 4), (3, 4, 5, 4, 3), "stride [2, 1, 1] pad [[0, 1], [1, 0], [0, 0]]",
                        (1, 2, 4, 3, 3)),
}

_BY_PATH = {**{f"t_{n}": case for n, case in TRANSPOSED_CASES.items()},
            **{f"d_{n}": case for n, case in DOT_CASES.items()}}


@pytest.mark.parametrize("name", [f"d_{n}" for n in DOT_CASES])
def test_conv_dots_matches_reference(by_path, name):
    _check_naive(*by_path, name, _BY_PATH[name])


def test_conv_dots_path():
    """A conv whose window has more positions than its output and at most 8
    features: no gemm, no im2col buffer, but the input's window rows
    (N × S0 × O1 × K1·C) and the filter copied features-first with its rows
    merged (F × K0 × K1·C); reassociable fused sums. With 16 features: im2col + gemm."""
    x, w, c, o = DOT_CASES["2d_lenet_like"]
    dots = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")
    assert "gemm" not in dots
    assert "memref<6x8x128xf32>" in dots and "memref<1x12x5x128xf32>" in dots
    assert "fastmath<reassoc,contract>" in dots
    wide = _lowered(conv_function("f", x, (8, 8, 16, 16), c, (1, 5, 5, 16), "f32"),
                    "lower-tensor-to-loop{blas_threshold=0}")
    assert "gemm" in wide and "memref<1x5x5x8x8x16xf32>" in wide


def test_conv_dots_dynamic_batch():
    clauses = "stride [1, 2] pad [[1, 0], [0, 1]]"
    src = conv_function("f", ("?", 9, 10, 8), (8, 5, 8, 3), clauses, ("?", 3, 4, 3))
    exe = irt.compile(irt.parse(src))
    rng = np.random.default_rng(3)
    for n in (0, 1, 3):
        a, b = rng.standard_normal((n, 9, 10, 8)), rng.standard_normal((8, 5, 8, 3))
        np.testing.assert_allclose(exe["f"](a, b), naive_conv(a, b, clauses), rtol=1e-12, atol=1e-12)
