"""The printer's direct path for common llvm ops prints xDSL's text to the byte."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.printer import Printer

import irtoolkit
from irtoolkit.pipeline import run_pipeline
from irtoolkit.printer import module_text

# plain forms (the direct path) next to the forms it leaves to xDSL: flags,
# attributes, conventions, tail calls, varargs, indirect calls, bundles, no result
LLVM_OPS = """
llvm.func @f(f64) -> f64
llvm.func @g()
llvm.func @"quoted name"(vector<4xf64>) -> vector<4xf64>
llvm.func @v(i32, ...) -> i32
llvm.func @h(%x: f64, %v: vector<4xf64>, %i: i32, %p: !llvm.ptr) -> f64 {
  %a = llvm.fadd %x, %x : f64
  %a_1 = llvm.fmul %a, %x : f64
  %0 = llvm.fsub %a_1, %a : f64
  %1 = llvm.fdiv %0, %x {fastmathFlags = #llvm.fastmath<fast>} : f64
  %2 = llvm.frem %1, %x {irt.tag = 1 : i64} : f64
  %3 = llvm.fmul %v, %v : vector<4xf64>
  %4 = llvm.call @f(%2) : (f64) -> f64
  %a_2 = llvm.call @f(%4) {fastmathFlags = #llvm.fastmath<nnan>} : (f64) -> f64
  llvm.call @g() : () -> ()
  %5 = llvm.call @"quoted name"(%3) : (vector<4xf64>) -> vector<4xf64>
  %6 = llvm.call tail @f(%a_2) : (f64) -> f64
  %7 = llvm.call fastcc @f(%6) : (f64) -> f64
  %8 = llvm.call @v(%i, %x) vararg(!llvm.func<i32 (i32, ...)>) : (i32, f64) -> i32
  %9 = llvm.call %p(%7) : !llvm.ptr, (f64) -> f64
  %10 = llvm.call @f(%9) {irt.note = "x"} : (f64) -> f64
  llvm.return %10 : f64
}
"""


def _xdsl_text(module, **options) -> str:
    buf = io.StringIO()
    Printer(stream=buf, **options).print_op(module)
    buf.write("\n")
    return buf.getvalue()


@pytest.mark.parametrize("generic", [False, True])
def test_direct_llvm_op_text_is_xdsls(generic, monkeypatch):
    from irtoolkit import printer

    direct = []  # the ops printed by the direct path
    for cls, render in printer._DIRECT.items():
        def counted(p, op, render=render):
            text = render(p, op)
            if text is not None:
                direct.append(op.name)
            return text
        monkeypatch.setitem(printer._DIRECT, cls, counted)
    module = irtoolkit.parse(LLVM_OPS)
    text = module_text(module, generic=generic)
    assert text == _xdsl_text(module, print_generic_format=generic)
    if not generic:  # the plain forms printed as the test expects them
        assert "%a_1 = llvm.fmul %a, %x : f64" in text
        assert "llvm.call @g() : () -> ()" in text
        assert sorted(direct) == ["llvm.call"] * 3 + ["llvm.fadd", "llvm.fmul", "llvm.fmul", "llvm.fsub"]


def test_direct_llvm_op_text_is_xdsls_on_a_lowered_workload():
    src = (Path(__file__).parents[1] / "bench" / "workloads" / "w1.mlir").read_text()
    module = irtoolkit.parse(src)
    run_pipeline(module, "ad,lower-to-llvm")
    assert module_text(module) == _xdsl_text(module)
