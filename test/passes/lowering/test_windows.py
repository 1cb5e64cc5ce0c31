"""`tensor.conv` and the windowed reductions compiled (`lower-tensor-to-loop`
down to the JIT) against the interpreter: the im2col + gemm path (BLAS on) and
the direct loop nests (BLAS off), f32 and f64; which path a conv takes."""

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

LOWER = "lower-tensor-to-loop{blas_threshold=0},lower-loop-to-cf,convert-to-llvm"
LOWER_NOBLAS = "lower-tensor-to-loop{blas=false},lower-loop-to-cf,convert-to-llvm"
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
    input for 1×1), shallow ones included; grouped and small ones are loop nests."""
    x, w, c, o = CONV_CASES["2d_deep"]
    deep = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")
    assert deep.count("func.call @scipy_cblas_sgemm64_") == 1 and deep.count("memref.alloc") == 2
    x, w, c, o = CONV_CASES["2d_large"]  # depth 75, 345,600 multiply-adds
    assert "gemm" in _lowered(conv_function("f", x, w, c, o, "f32"))
    x, w, c, o = CONV_CASES["2d"]  # 1,296 multiply-adds: below blas_threshold
    assert "gemm" not in _lowered(conv_function("f", x, w, c, o, "f32"))
    x, w, c, o = CONV_CASES["2d_1x1"]
    one = _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")
    assert "func.call @scipy_cblas_sgemm64_" in one and one.count("memref.alloc") == 1
    assert "loop.for" not in one
    x, w, c, o = CONV_CASES["2d_depthwise"]
    assert "gemm" not in _lowered(conv_function("f", x, w, c, o, "f32"), "lower-tensor-to-loop{blas_threshold=0}")


def test_conv_dynamic_batch():
    src = conv_function("f", ("?", 6, 6, 2), (3, 3, 2, 4), "stride [2, 2] pad [[1, 1], [1, 1]]", ("?", 3, 3, 4))
    exe = irt.compile(irt.parse(src))
    rng = np.random.default_rng(2)
    for n in (0, 1, 3):
        a, b = rng.standard_normal((n, 6, 6, 2)), rng.standard_normal((3, 3, 2, 4))
        np.testing.assert_allclose(exe["f"](a, b), naive_conv(a, b, "stride [2, 2] pad [[1, 1], [1, 1]]"),
                                   rtol=1e-12, atol=1e-12)
