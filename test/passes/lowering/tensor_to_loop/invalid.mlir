// RUN: not irt-opt %s --split-input-file -p lower-tensor-to-loop 2>&1 | FileCheck %s

// Ops without a lowering are located diagnostics, never wrong code.

// A pad whose padding value is computed from tensors is not lowered.
// CHECK: invalid.mlir:[[# @LINE + 2]]:3: error: 'tensor.pad' op a 'tensor.pad' region using tensors is not supported by 'lower-tensor-to-loop'
func.func @g(%a: tensor<4xf32>) -> tensor<6xf32> {
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    %z = tensor.extract %a[%i] : tensor<4xf32>
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 2]]:3: error: 'autodiff.stop_gradient' op has no lowering in 'lower-tensor-to-loop' (run the 'ad' pass first)
func.func @h(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = autodiff.stop_gradient %a : tensor<4xf32>
  return %s : tensor<4xf32>
}
