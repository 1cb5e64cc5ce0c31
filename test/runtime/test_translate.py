"""The translation of the llvm dialect to LLVM IR (runtime/translate.py): its
per-class table of xDSL's converters gives the LLVM IR xDSL's ``convert_op``
gives, op for op; the text emitter (runtime/llvm_text.py) prints what the
llvmlite path prints, byte for byte, and leaves to it what it does not spell."""

import os
from pathlib import Path

import llvmlite.binding as llvm_binding
import pytest
from xdsl.backend.llvm.convert_op import convert_op
from xdsl.dialects import llvm

import irtoolkit as irt
from irtoolkit.runtime import codegen, translate

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
func.func @loss(%w: tensor<3x3x2x4xf32>, %x: tensor<2x6x6x2xf32>, %m: tensor<4x5xf32>) -> f32 {
  %c = tensor.conv %x, %w : (tensor<2x6x6x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x4x4x4xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2, 3]] : tensor<2x4x4x4xf32> into tensor<2x64xf32>
  %t = tensor.tanh %f : tensor<2x64xf32>
  %s = tensor.reduce_sum %t [0, 1] : tensor<2x64xf32> -> tensor<f32>
  %e = tensor.exp %m : tensor<4x5xf32>
  %r = tensor.reduce_max %e [0, 1] : tensor<4x5xf32> -> tensor<f32>
  %a = tensor.extract %s[] : tensor<f32>
  %b = tensor.extract %r[] : tensor<f32>
  %l = arith.divf %a, %b : f32
  return %l : f32
}
func.func @grad(%w: tensor<3x3x2x4xf32>, %x: tensor<2x6x6x2xf32>, %m: tensor<4x5xf32>)
    -> (tensor<3x3x2x4xf32>, tensor<4x5xf32>) {
  %g, %h = autodiff.grad @loss(%w, %x, %m) wrt [0, 2]
      : (tensor<3x3x2x4xf32>, tensor<2x6x6x2xf32>, tensor<4x5xf32>) -> (tensor<3x3x2x4xf32>, tensor<4x5xf32>)
  return %g, %h : tensor<3x3x2x4xf32>, tensor<4x5xf32>
}
"""


@pytest.fixture(scope="module")
def lowered_program():
    return translate.lower_module(irt.parse(PROGRAM))


def test_the_converter_table_translates_as_convert_op(lowered_program, monkeypatch):
    lowered = lowered_program.clone()
    kinds = {type(op) for op in lowered.walk()}
    assert {llvm.ConstantOp, llvm.GEPOp, llvm.CallOp, llvm.CondBrOp, llvm.FMulOp} <= kinds
    again = lowered.clone()
    by_table = str(translate.to_llvmlite(lowered))
    monkeypatch.setattr(translate, "_converter", lambda kind: convert_op)
    assert by_table == str(translate.to_llvmlite(again))



# --------------------------------------------------------------------------- llvm_text
# The text emitter (runtime/llvm_text.py) must give the very text the llvmlite path
# prints (same names, same implicit casts), and its call graph what codegen.call_graph
# finds in llvmlite's module.

# what the lowering passes do not make, written by hand: typed-pointer casts of
# llvmlite (stores through a GEP of an alloca, a global's GEP), a function's address
# as an operand (a callee for the call graph), flags, fast-math, atomics, constants,
# casts, phis fed by two branches of one cond_br
HANDWRITTEN = """\
llvm.mlir.global internal constant @table(dense<[1.5, 2.5]> : tensor<2xf64>) : !llvm.array<2 x f64>
llvm.func @helper(%p: !llvm.ptr) -> f64 {
  %v = llvm.load %p {alignment = 8 : i64} : !llvm.ptr -> f64
  llvm.return %v : f64
}
llvm.func @sink(!llvm.ptr, !llvm.ptr) -> ()
llvm.func @f(%a: f64, %n: i64, %q: !llvm.ptr) -> f64 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %c2 = llvm.mlir.constant(2.0 : f32) : f32
  %slot = llvm.alloca %one x !llvm.array<4 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
  %g = llvm.getelementptr inbounds %slot[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i8>
  %fp = llvm.mlir.addressof @helper : !llvm.ptr
  llvm.store %fp, %g : !llvm.ptr, !llvm.ptr
  llvm.store %a, %slot {alignment = 8 : i64} : f64, !llvm.ptr
  llvm.call @sink(%fp, %q) : (!llvm.ptr, !llvm.ptr) -> ()
  %t = llvm.mlir.addressof @table : !llvm.ptr
  %e = llvm.getelementptr %t[1] : (!llvm.ptr) -> !llvm.ptr, f64
  %x = llvm.call @helper(%e) : (!llvm.ptr) -> f64
  %vec = llvm.mlir.constant(dense<[0.0, 1.0]> : vector<2xf64>) : vector<2xf64>
  %z = llvm.mlir.zero : !llvm.ptr
  %u = llvm.mlir.undef : !llvm.struct<(f64, i64)>
  %s1 = llvm.insertvalue %a, %u[0] : !llvm.struct<(f64, i64)>
  %s2 = llvm.extractvalue %s1[0] : !llvm.struct<(f64, i64)>
  %neg = llvm.fneg %s2 {fastmathFlags = #llvm.fastmath<nnan, ninf>} : f64
  %sum = llvm.fadd %neg, %x {fastmathFlags = #llvm.fastmath<fast>} : f64
  %j = llvm.sitofp %n : i64 to f64
  %k = llvm.fptrunc %j : f64 to f32
  %m = llvm.fmul %k, %c2 : f32
  %w = llvm.fpext %m : f32 to f64
  %cmp = llvm.fcmp "ult" %w, %a : f64
  %sel = llvm.select %cmp, %w, %a : i1, f64
  %ti = llvm.trunc %n : i64 to i32
  %zi = llvm.zext %ti : i32 to i64
  %sh = llvm.shl %zi, %one : i64
  %ci = llvm.icmp "sge" %sh, %n : i64
  %pi = llvm.ptrtoint %q : !llvm.ptr to i64
  %ip = llvm.inttoptr %pi : i64 to !llvm.ptr
  %r = llvm.call_intrinsic "llvm.fabs.f64"(%sel) : (f64) -> f64
  %old = llvm.load %ip atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
  llvm.cond_br %ci, ^loop(%n : i64), ^done(%r : f64)
^loop(%iv: i64):
  %dec = llvm.sub %iv, %one overflow<nsw> : i64
  %again = llvm.icmp "sgt" %dec, %one : i64
  llvm.cond_br %again, ^loop(%dec : i64), ^done(%sel : f64)
^done(%res: f64):
  llvm.return %res : f64
}
"""

# the vector and intrinsic ops (xDSL's unmangled names for the math intrinsics, its
# mangled ones for fma and the reductions)
VECTOR = """\
llvm.func @v(%a: f64, %x: vector<4xf32>, %m: vector<4xi1>, %p: !llvm.ptr, %i: i32) -> f32 {
  %f = llvm.intr.fma(%a, %a, %a) : (f64, f64, f64) -> f64
  %fv = llvm.intr.fma(%x, %x, %x) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  %ab = llvm.intr.fabs(%f) : (f64) -> f64
  %mx = llvm.intr.maxnum(%ab, %a) : (f64, f64) -> f64
  %mv = llvm.fadd %fv, %x : vector<4xf32>
  %e = llvm.mlir.constant(1.0 : f32) : f32
  %ins = llvm.insertelement %e, %mv[%i : i32] : vector<4xf32>
  %sh = llvm.shufflevector %ins, %x [0, 5, 2, 7] : vector<4xf32>
  llvm.intr.masked.store %sh, %p, %m {alignment = 4 : i32} : vector<4xf32>, vector<4xi1> into !llvm.ptr
  %z = llvm.mlir.constant(0.0 : f32) : f32
  %r = "llvm.intr.vector.reduce.fadd"(%z, %sh) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, vector<4xf32>) -> f32
  llvm.return %r : f32
}
"""


def _both_ways(module):
    """(the text emitter's translation, llvmlite's module) of copies of ``module``."""
    before = translate.FALLBACKS.copy()
    direct = translate.to_llvm_text(module.clone())
    assert direct.direct, translate.FALLBACKS - before
    return direct, translate.to_llvmlite(module.clone())


@pytest.mark.parametrize("source", ["program", "handwritten", "vector", "bench/workloads/w5.mlir"])
def test_text_emitter_prints_what_llvmlite_prints(source, lowered_program):
    if source == "program":
        module = lowered_program
    elif source in ("handwritten", "vector"):
        module = irt.parse(HANDWRITTEN if source == "handwritten" else VECTOR)
    else:
        module = translate.lower_module(irt.parse((ROOT / source).read_text(), source))
    direct, llmod = _both_ways(module)
    assert direct.text == str(llmod)
    assert direct.graph == codegen.call_graph(llmod)
    llvm_binding.parse_assembly(direct.text).verify()


def test_ops_the_emitter_does_not_spell_go_through_llvmlite():
    module = irt.parse(HANDWRITTEN.replace(
        "%ti = llvm.trunc %n : i64 to i32",
        '%ti = "llvm.inline_asm"(%n) <{asm_string = "mov $1, $0", constraints = "=r,r", '
        'asm_dialect = 0 : i64}> : (i64) -> i32'))
    before = translate.FALLBACKS.copy()
    out = translate.to_llvm_text(module.clone())
    assert not out.direct and translate.FALLBACKS - before == {"op llvm.inline_asm": 1}
    assert out.text == str(translate.to_llvmlite(module.clone()))
    assert 'call i32 asm  "mov $1, $0", "=r,r"(i64 %' in out.text


def test_irt_llvm_text_llvmlite_forces_the_llvmlite_path(monkeypatch):
    module = irt.parse(HANDWRITTEN)
    monkeypatch.setitem(os.environ, "IRT_LLVM_TEXT", "llvmlite")
    out = translate.to_llvm_text(module.clone())
    assert not out.direct
    monkeypatch.delitem(os.environ, "IRT_LLVM_TEXT")
    assert translate.to_llvm_text(module.clone()).text == out.text


@pytest.mark.long
@pytest.mark.parametrize("source", [*(f"bench/workloads/w{i}.mlir" for i in range(1, 10)),
                                    "examples/attention.mlir", "examples/cnn.mlir"])
def test_every_bench_workload_and_example_takes_the_text_emitter(source):
    module = translate.lower_module(irt.parse((ROOT / source).read_text(), source))
    direct, llmod = _both_ways(module)
    assert direct.text == str(llmod)
    assert direct.graph == codegen.call_graph(llmod)
