// The reference interpreter through irt-run: as written, after lowering to
// loops and to blocks, and a located run-time error.
// RUN: irt-run %s --interpret | FileCheck %s
// RUN: irt-run %s --interpret -p lower-tensor-to-loop | FileCheck %s
// RUN: irt-run %s --interpret -p lower-tensor-to-loop,lower-loop-to-cf | FileCheck %s
// RUN: not irt-run %s --interpret -e oob 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: result0 = array([ 0.5,  4.5, 12.5], dtype=float32)
// CHECK: result1 = 0.5 (float64)
// CHECK: result2 = array(17.5, dtype=float32)
func.func @main() -> (tensor<3xf32>, f64, tensor<f32>) {
  %x = arith.constant dense<[1.0, 3.0, 5.0]> : tensor<3xf32>
  %h = arith.constant dense<0.5> : tensor<3xf32>
  %sq = tensor.mul %x, %x : tensor<3xf32>
  %y = tensor.mul %sq, %h : tensor<3xf32>
  %s = tensor.reduce_sum %y [0] : tensor<3xf32> -> tensor<f32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %r = loop.for %i = %c0 to %c4 step %c1 iter_args(%a = %one) -> (f64) {
    %n = arith.divf %a, %two : f64
    loop.yield %n : f64
  }
  %w = loop.while (%v = %r) : (f64) -> f64 {
    %lt = arith.cmpf olt, %v, %two : f64
    loop.condition(%lt) %v : f64
  } do {
  ^bb0(%v2: f64):
    %m = arith.mulf %v2, %two : f64
    loop.yield %m : f64
  }
  %q = arith.divf %w, %two : f64
  %z = arith.divf %q, %two : f64
  return %y, %z, %s : tensor<3xf32>, f64, tensor<f32>
}

// ERR: run.mlir:43:3: error: 'tensor.extract' op at run time: index 7 is out of bounds for a dimension of size 3
func.func @oob() -> f32 {
  %x = arith.constant dense<[1.0, 3.0, 5.0]> : tensor<3xf32>
  %i = arith.constant 7 : index
  %e = tensor.extract %x[%i] : tensor<3xf32>
  return %e : f32
}
