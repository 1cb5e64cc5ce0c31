"""The translation of the llvm dialect to llvmlite (runtime/translate.py): its
per-class table of xDSL's converters gives the LLVM IR xDSL's ``convert_op``
gives, op for op."""

from xdsl.backend.llvm.convert_op import convert_op
from xdsl.dialects import llvm

import irtoolkit as irt
from irtoolkit.runtime import translate

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


def test_the_converter_table_translates_as_convert_op(monkeypatch):
    lowered = translate.lower_module(irt.parse(PROGRAM))
    kinds = {type(op) for op in lowered.walk()}
    assert {llvm.ConstantOp, llvm.GEPOp, llvm.CallOp, llvm.CondBrOp, llvm.FMulOp} <= kinds
    again = lowered.clone()
    by_table = str(translate.to_llvmlite(lowered))
    monkeypatch.setattr(translate, "_converter", lambda kind: convert_op)
    assert by_table == str(translate.to_llvmlite(again))

