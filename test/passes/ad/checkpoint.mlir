// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p 'ad{checkpoint=sqrt},canonicalize,cse' | FileCheck %s --check-prefix=OPTION

// sqrt checkpointing of 16 iterations: segments of 4. The forward sweep
// stores the 4 segment starts; the reverse sweep recomputes each segment,
// storing its 4 iterates and their sines, and runs it backwards.

func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.for %i = %c0 to %c16 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.mulf %s, %x : f64
    loop.yield %t : f64
  } {autodiff.checkpoint = "sqrt"}
  return %r : f64
}

func.func @q(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %r = loop.for %i = %c0 to %c9 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    loop.yield %s : f64
  }
  return %r : f64
}

func.func @main(%x: f64) -> (f64, f64) {
  %g = autodiff.grad @p(%x) : (f64) -> f64
  %h = autodiff.grad @q(%x) : (f64) -> f64
  return %g, %h : f64, f64
}

// CHECK-LABEL: func.func private @p_grad_0(%x: f64) -> f64
// CHECK:         tensor.empty() : tensor<4xf64>
// CHECK:         loop.for {{.*}} -> (f64, tensor<4xf64>)
// CHECK:           tensor.insert
// CHECK:           loop.for
// CHECK-NOT:         tensor.insert
// CHECK:         loop.for
// CHECK:           tensor.extract
// CHECK:           loop.for {{.*}} -> (f64, tensor<4xf64>, tensor<4xf64>)
// CHECK:             tensor.insert
// CHECK:             math.sin
// CHECK:             tensor.insert
// CHECK:           loop.for
// CHECK:             tensor.extract
// CHECK-NOT:         math.sin
// CHECK:             math.cos
// CHECK-NOT:       autodiff.max_trip
// CHECK-LABEL: func.func private @q_grad_0(%x: f64) -> f64
// CHECK:         tensor.empty() : tensor<9xf64>

// With the pass option every active loop is checkpointed: 9 = 3 segments of 3.
// OPTION-LABEL: func.func private @q_grad_0(%x: f64) -> f64
// OPTION:         tensor.empty() : tensor<3xf64>
// OPTION-NOT:     tensor<9xf64>
