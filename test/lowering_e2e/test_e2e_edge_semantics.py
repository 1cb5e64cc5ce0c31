"""Where arith says poison or undefined behaviour, compiled code and the
interpreter compute the same documented result (``to_llvm/arith.py``):

* integer division and remainder by zero, and signed division of the minimum
  by -1, are a ``RuntimeCheckError`` at the op (the interpreter raises the same
  located diagnostic), never SIGFPE; ``remsi`` of the minimum by -1 is 0;
* shifts by the bit width or more give 0 (the sign for ``shrsi``);
* float to integer conversions truncate and saturate, NaN gives 0 (``arith``
  and ``tensor.convert``);
* ``loop.for`` with a step that is not positive is a located error.

One module per family, compiled once; every edge value through both paths.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import irtoolkit as irt
from irtoolkit.diagnostics import DiagnosticError

DIVISIONS = ["divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui"]
INT_TYPES = {"i64": np.int64, "i32": np.int32, "i8": np.int8, "index": np.int64}


def _division_module() -> str:
    funcs = []
    for op in DIVISIONS:
        for t in INT_TYPES:
            funcs.append(f"""
func.func @{op}_{t}(%a: {t}, %b: {t}) -> {t} {{
  %r = arith.{op} %a, %b : {t}
  return %r : {t}
}}""")
    # a constant zero divisor: still a check (no fold, no trap)
    funcs.append("""
func.func @divsi_by_constant_zero(%a: i64) -> i64 {
  %z = arith.constant 0 : i64
  %r = arith.divsi %a, %z : i64
  return %r : i64
}""")
    return "\n".join(funcs)


def _shift_module() -> str:
    return "\n".join(f"""
func.func @{op}_{t}(%a: {t}, %b: {t}) -> {t} {{
  %r = arith.{op} %a, %b : {t}
  return %r : {t}
}}""" for op in ("shli", "shrsi", "shrui") for t in ("i64", "i32", "i8"))


FLOAT_TO_INT = [(f, i, op) for op in ("fptosi", "fptoui") for f in ("f64", "f32")
                for i in ("i64", "i32", "i8", "i1")]


def _conversion_module() -> str:
    funcs = [f"""
func.func @{op}_{f}_{i}(%x: {f}) -> {i} {{
  %r = arith.{op} %x : {f} to {i}
  return %r : {i}
}}""" for f, i, op in FLOAT_TO_INT]
    for i in ("i64", "i32"):
        funcs.append(f"""
func.func @convert_{i}(%x: tensor<12xf64>) -> tensor<12x{i}> {{
  %r = tensor.convert %x : tensor<12xf64> -> tensor<12x{i}>
  return %r : tensor<12x{i}>
}}""")
    return "\n".join(funcs)


LOOP = """
func.func @sum_to(%n: index, %step: index) -> index {
  %c0 = arith.constant 0 : index
  %r = loop.for %i = %c0 to %n step %step iter_args(%a = %c0) -> (index) {
    %s = arith.addi %a, %i : index
    loop.yield %s : index
  }
  return %r : index
}
func.func @sum_to_i32(%n: i32, %step: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = loop.for %i = %c0 to %n step %step iter_args(%a = %c0) -> (i32) : i32 {
    %s = arith.addi %a, %i : i32
    loop.yield %s : i32
  }
  return %r : i32
}
"""

_CACHE: dict[str, tuple] = {}


def _programs(name: str, text: str):
    if name not in _CACHE:
        module = irt.parse(text, f"{name}.mlir")
        _CACHE[name] = (module, irt.compile(module))
    return _CACHE[name]


def _outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except DiagnosticError as err:
        return ("error", err.message, err.location)


def _agree(name: str, text: str, fn: str, *args):
    """Run ``fn`` compiled and interpreted; assert the same value or the same
    located error; return the outcome."""
    module, exe = _programs(name, text)
    compiled = _outcome(exe[fn], *args)
    interpreted = _outcome(lambda *a: irt.interpret(module, fn, *a), *args)
    assert compiled[0] == interpreted[0], f"@{fn}{args}: compiled {compiled}, interpreted {interpreted}"
    if compiled[0] == "error":
        assert compiled[1:] == interpreted[1:], f"@{fn}{args}: {compiled} vs {interpreted}"
    else:
        got, want = np.asarray(compiled[1]), np.asarray(interpreted[1])
        assert got.dtype == want.dtype and np.array_equal(got, want), \
            f"@{fn}{args}: compiled {compiled[1]!r}, interpreted {interpreted[1]!r}"
    return compiled


def _edge_pairs(dt):
    info = np.iinfo(dt)
    lo, hi = int(info.min), int(info.max)
    return [(7, 0), (-7, 0), (0, 0), (lo, 0), (lo, -1), (lo, 1), (hi, -1), (7, -1), (-7, 2),
            (7, 2), (-7, -2), (lo, lo), (hi, lo), (-1, hi), (5, 3)]


@pytest.mark.parametrize("op", DIVISIONS)
@pytest.mark.parametrize("t", list(INT_TYPES))
def test_integer_division_edges(op, t):
    dt = INT_TYPES[t]
    for a, b in _edge_pairs(dt):
        out = _agree("div", _division_module(), f"{op}_{t}", dt(a), dt(b))
        if b == 0:
            assert out[0] == "error" and out[1] == f"'arith.{op}' op division by zero", out
            assert out[2].file == "div.mlir"
        elif op in ("divsi", "floordivsi", "ceildivsi") and a == np.iinfo(dt).min and b == -1:
            assert out[0] == "error" and "signed division overflow" in out[1], out
        else:
            assert out[0] == "value", out
    if op == "remsi":  # the minimum % -1 is 0, not a trap
        assert _agree("div", _division_module(), f"remsi_{t}", dt(np.iinfo(dt).min), dt(-1))[1] == 0


def test_constant_zero_divisor_is_a_run_time_error():
    out = _agree("div", _division_module(), "divsi_by_constant_zero", np.int64(3))
    assert out[:2] == ("error", "'arith.divsi' op division by zero")


@pytest.mark.parametrize("op", ["shli", "shrsi", "shrui"])
@pytest.mark.parametrize("t", ["i64", "i32", "i8"])
def test_shift_amounts_beyond_the_width(op, t):
    dt = INT_TYPES[t]
    width = np.iinfo(dt).bits
    for a in (1, -8, int(np.iinfo(dt).min), 5):
        for b in (0, 1, width - 1, width, width + 1, 64 % (1 << min(width, 63)), -1, int(np.iinfo(dt).max)):
            out = _agree("shift", _shift_module(), f"{op}_{t}", dt(a), dt(b))
            if not 0 <= b < width:  # shifted out entirely: 0, or the sign for shrsi
                want = (-1 if a < 0 else 0) if op == "shrsi" else 0
                assert out[1] == want, (op, t, a, b, out)


FLOAT_EDGES = [math.nan, math.inf, -math.inf, 1e20, -1e20, 0.5, -0.5, 3.9, -3.9, -1.0, 1.0,
               2.0**63, -(2.0**63), 2.0**31, -(2.0**31) - 1, 255.5, 127.0, -128.9]


@pytest.mark.parametrize("f,i,op", FLOAT_TO_INT)
def test_float_to_int_saturates(f, i, op):
    fdt = np.float64 if f == "f64" else np.float32
    for x in FLOAT_EDGES:
        out = _agree("conv", _conversion_module(), f"{op}_{f}_{i}", fdt(x))
        assert out[0] == "value"
        if i == "i64" and op == "fptosi":
            v = float(fdt(x))
            want = 0 if math.isnan(v) else max(min(math.trunc(v), 2**63 - 1), -(2**63)) \
                if math.isfinite(v) else (2**63 - 1 if v > 0 else -(2**63))
            assert int(out[1]) == want, (x, out)


@pytest.mark.parametrize("i", ["i64", "i32"])
def test_tensor_convert_saturates(i):
    x = np.array([math.nan, math.inf, -math.inf, 1e20, -1e20, 3.9, -3.9, 0.0, -0.0,
                  2.0**40, -(2.0**40), 1.5])
    out = _agree("conv", _conversion_module(), f"convert_{i}", x)
    info = np.iinfo(np.int64 if i == "i64" else np.int32)
    want = [0, info.max, info.min, info.max, info.min, 3, -3, 0, 0]
    assert list(out[1][:9]) == want


@pytest.mark.parametrize("fn,dt", [("sum_to", np.int64), ("sum_to_i32", np.int32)])
def test_loop_step_must_be_positive(fn, dt):
    assert _agree("loop", LOOP, fn, dt(10), dt(3))[1] == 0 + 3 + 6 + 9
    for step in (0, -1, -5):
        out = _agree("loop", LOOP, fn, dt(10), dt(step))
        assert out[0] == "error" and out[1] == f"'loop.for' op step must be positive (step vs 0): {step} vs 0"
