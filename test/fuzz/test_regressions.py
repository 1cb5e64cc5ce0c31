"""Crashes found by the fuzzer (``fuzz/mutate.py``), minimized.

Each case runs in the harness's worker process (in-process CLI calls, restarted
after a crash), through the pipeline where it failed; it must now be a success
or a clean diagnostic. ``want="diag"`` where the input is invalid and must be
rejected (not just survived).
"""

from __future__ import annotations

import pytest

from fuzzlib import load

fz = load()

CASES = {
    # --- lowering: loop ops nested in scf ops (scf is converted first) --------
    "loop-for-inside-scf-for": dict(pipeline="ad-llvm", text="""
func.func @scale(%a: memref<2x?xf32>, %s: f32) -> memref<2x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %a, %c1 : memref<2x?xf32>
  %out = memref.alloc(%n) : memref<2x?xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    loop.for %j = %c0 to %n step %c1 {
      %v = memref.load %a[%i, %j] : memref<2x?xf32>
      %p = arith.mulf %v, %s : f32
      memref.store %p, %out[%i, %j] : memref<2x?xf32>
    }
  }
  return %out : memref<2x?xf32>
}
"""),
    # --- parsing / verifier -------------------------------------------------
    "unterminated-string-hang": dict(pipeline="parse", want="diag", timeout=5.0, text="""
func.func @f(%x: f64) -> f64 {
 " %r = arith.mulf %x, %x : f64
  return %x : f64
}
"""),
    "self-use-not-dominated": dict(pipeline="parse", want="diag", text="""
func.func @sg(%x: f64) -> f64 {
  %r = arith.mulf %r, %x : f64
  return %r : f64
}
"""),
    "self-use-lowered": dict(pipeline="llvm-ir", text="""
func.func @sg(%x: f64) -> f64 {
  %r = arith.mulf %r, %x : f64
  return %r : f64
}
"""),
    "use-before-def-in-block": dict(pipeline="interp", entry="poly", text="""
func.func @poly(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  cf.br ^head(%c0, %x : index, f64)
^head(%i: index, %acc: f64):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^body, ^exit
^body:
  %t = math.tanh %acc : f64
  %next = arith.addi %i, %next : index
  cf.br ^head(%next, %t : index, f64)
^exit:
  return %acc : f64
}
"""),
    "use-of-inner-block-arg-outside": dict(pipeline="ad-llvm", text="""
func.func @w(%x: f64, %y: f64) -> f64 {
  %n = arith.mulf %v2, %y : f64
  %lim = arith.constant 10.0 : f64
  %r = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %lim : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    loop.yield %n : f64
  }
  return %r : f64
}
func.func @main(%x: f64, %y: f64) -> (f64, f64) {
  %dx, %dy = autodiff.grad @w(%x, %y) : (f64, f64) -> (f64, f64)
  return %dx, %dy : f64, f64
}
"""),
    # --- lowering -----------------------------------------------------------
    "index-constant-out-of-i64-range": dict(pipeline="ad-llvm", text="""
func.func @f() -> index {
  %c = arith.constant -9223372036854775809 : index
  return %c : index
}
"""),
    "index-constant-hex-out-of-range": dict(pipeline="ad-llvm", text="""
func.func @f() -> index {
  %c = arith.constant 0xFFFFFFFFFFFFFFFFFF : index
  return %c : index
}
"""),
    "memref-expand-shape-bad-output-shape": dict(pipeline="ad-llvm", text="""
func.func @f(%flat: memref<4xf32>) -> f32 {
  %e = memref.expand_shape %flat [[0, 1, 2]] output_shape [0] : memref<4xf32> into memref<1x4x1xf32>
  %c0 = arith.constant 0 : index
  %y = memref.load %e[%c0, %c0, %c0] : memref<1x4x1xf32>
  return %y : f32
}
"""),
    "bf16-memref-lowering": dict(pipeline="ad-llvm", text="""
func.func @f(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %n = tensor.add %x, %x : tensor<4xbf16>
  return %n : tensor<4xbf16>
}
"""),
    # --- JIT ----------------------------------------------------------------
    "fpowi-segfault": dict(pipeline="jit", entry="f", text="""
func.func @f(%a: i32, %x: f64) -> f64 {
  %r = math.fpowi %x, %a : f64, i32
  return %r : f64
}
"""),
    "undefined-external-function-segfault": dict(pipeline="jit", entry="f", text="""
func.func private @ext(f64) -> f64
func.func @f(%x: f64) -> f64 {
  %r = func.call @ext(%x) : (f64) -> f64
  return %r : f64
}
"""),
    # --- sizes (issue 15) ----------------------------------------------------
    "alloc-static-zero-and-dynamic-dim": dict(pipeline="ad-llvm", text="""
func.func @scale(%a: memref<0x?xf32>) -> memref<0x?xf32> {
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c1 : memref<0x?xf32>
  %out = memref.alloc(%n) : memref<0x?xf32>
  return %out : memref<0x?xf32>
}
"""),
    "interp-constant-of-rank-150": dict(pipeline="interp", entry="nest", want="diag", text="""
func.func @nest() -> tensor<""" + "1x" * 150 + """f64> {
  %0 = arith.constant dense<""" + "[" * 150 + "1.0" + "]" * 150 + """> : tensor<""" + "1x" * 150 + """f64>
  func.return %0 : tensor<""" + "1x" * 150 + """f64>
}
"""),
    "interp-splat-result-of-800-mb": dict(pipeline="interp", entry="f", text="""
func.func @f() -> tensor<100000000xf64> {
  %c = arith.constant dense<1.5> : tensor<100000000xf64>
  return %c : tensor<100000000xf64>
}
"""),
    "stablehlo-reshape-of-no-elements": dict(pipeline="interp", entry="f", text="""
func.func @f(%x: tensor<0xf64>, %y: tensor<2x0xf64>) -> (tensor<1x0xf64>, tensor<0x3xf64>) {
  %r = stablehlo.reshape %x : (tensor<0xf64>) -> tensor<1x0xf64>
  %s = stablehlo.reshape %y : (tensor<2x0xf64>) -> tensor<0x3xf64>
  return %r, %s : tensor<1x0xf64>, tensor<0x3xf64>
}
"""),
    # --- CLI ----------------------------------------------------------------
    "irt-run-entry-with-several-blocks": dict(pipeline="interp", entry="countdown", text="""
func.func @countdown(%n: i64) -> (i64, f16) {
  %acc0 = arith.constant 1.0 : f16
  cf.br ^head(%n, %acc0 : i64, f16)
^head(%i: i64, %acc: f16):
  return %i, %acc : i64, f16
}
"""),
    "irt-run-private-entry": dict(pipeline="jit", entry="unused", text="""
func.func private @unused() {
  func.return
}
"""),
}


@pytest.fixture(scope="module")
def worker():
    w = fz.Worker(timeout=15.0, mem_mb=3072)
    yield w
    w.kill()


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_regression(worker, tmp_path, name):
    case = CASES[name]
    f = tmp_path / f"{name}.mlir"
    f.write_text(case["text"].lstrip("\n"))
    worker.timeout = case.get("timeout", 15.0)
    res = worker.run(str(f), case["pipeline"], entry=case.get("entry"))
    cls, kind = fz.classify(res, case["pipeline"])
    assert cls != "BAD", f"{kind}: {fz.error_line(res['err'])}\n{res['err'][-3000:]}"
    if "want" in case:
        assert cls == case["want"], f"{cls}: {res['err'][-2000:]}"
