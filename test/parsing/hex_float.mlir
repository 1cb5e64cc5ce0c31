// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s

// A hex literal in a float `dense<...>` is the bit pattern of the float (as
// MLIR and JAX print -inf, inf and NaN), not an integer to convert.

// CHECK-LABEL: func.func @special_values
func.func @special_values() -> (tensor<f32>, tensor<3xf64>, f32) {
  // CHECK: arith.constant dense<0xff800000> : tensor<f32>
  %0 = arith.constant dense<0xFF800000> : tensor<f32>
  // CHECK: arith.constant dense<[0x7ff0000000000000, 1.000000e+00, 0x7ff8000000000000]> : tensor<3xf64>
  %1 = arith.constant dense<[0x7FF0000000000000, 1.0, 0x7FF8000000000000]> : tensor<3xf64>
  // CHECK: arith.constant 0xff800000 : f32
  %2 = arith.constant 0xFF800000 : f32
  func.return %0, %1, %2 : tensor<f32>, tensor<3xf64>, f32
}
