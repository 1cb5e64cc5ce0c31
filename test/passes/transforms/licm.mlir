// RUN: irt-opt %s -p loop-invariant-code-motion | FileCheck %s
// RUN: irt-opt %s -p loop-invariant-code-motion | irt-opt | FileCheck %s

// Pure ops whose operands are defined outside the loop move in front of it,
// innermost loops first (a whole invariant chain leaves the nest); ops that
// depend on the iteration, allocate (tensor.empty), have dynamic shapes (their
// run-time shape checks stay) or index operands stay in the loop.

// CHECK-LABEL: func.func @nest
// CHECK:         %[[WT:.*]] = tensor.transpose %w [1, 0]
// CHECK-NEXT:    %[[E:.*]] = tensor.exp %[[WT]]
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<2.000000e+00>
// CHECK-NEXT:    loop.for
// CHECK-NEXT:      loop.for
// CHECK-NEXT:        tensor.empty
// CHECK-NEXT:        tensor.matmul %[[E]], %{{.*}}
// CHECK-NEXT:        tensor.mul %{{.*}}, %[[C]]
// CHECK-NEXT:        loop.yield
func.func @nest(%w: tensor<4x4xf64>, %x: tensor<4x1xf64>) -> tensor<4x1xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = loop.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<4x1xf64>) {
    %s = loop.for %j = %c0 to %c3 step %c1 iter_args(%b = %a) -> (tensor<4x1xf64>) {
      %wt = tensor.transpose %w [1, 0] : tensor<4x4xf64> -> tensor<4x4xf64>
      %e = tensor.exp %wt : tensor<4x4xf64>
      %t = tensor.empty() : tensor<4x1xf64>
      %m = tensor.matmul %e, %b : (tensor<4x4xf64>, tensor<4x1xf64>) -> tensor<4x1xf64>
      %two = arith.constant dense<2.0> : tensor<4x1xf64>
      %n = tensor.mul %m, %two : tensor<4x1xf64>
      loop.yield %n : tensor<4x1xf64>
    }
    loop.yield %s : tensor<4x1xf64>
  }
  return %r : tensor<4x1xf64>
}

// CHECK-LABEL: func.func @stays
// CHECK:         loop.while
// CHECK:           arith.cmpf
// CHECK:         } do {
// CHECK:           %[[K:.*]] = tensor.extract %t[%i]
// CHECK-NEXT:      tensor.exp %d
// CHECK-NEXT:      arith.addf %{{.*}}, %[[K]]
func.func @stays(%v0: f64, %t: tensor<4xf64>, %i: index, %d: tensor<?xf64>) -> f64 {
  %lim = arith.constant 5.0 : f64
  %r = loop.while (%v = %v0) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %lim : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %k = tensor.extract %t[%i] : tensor<4xf64>
    %e = tensor.exp %d : tensor<?xf64>
    %n = arith.addf %v2, %k : f64
    loop.yield %n : f64
  }
  return %r : f64
}
