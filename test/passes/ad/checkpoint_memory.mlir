// RUN: irt-opt %s -p 'ad{checkpoint-memory=40},canonicalize,cse' | FileCheck %s

// A budget of 40 bytes for a loop carrying one f64 (8 bytes; about 16 bytes of
// working memory): 3 checkpoint slots, reversed by Revolve. The forward sweep
// stores the first checkpoints where the schedule puts them (loop.if); before
// reversing an iteration, the reverse sweep restores its state from the top
// checkpoint (loop.while), recomputing forward and pushing new checkpoints.

func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.for %i = %c0 to %c16 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.mulf %s, %x : f64
    loop.yield %t : f64
  }
  return %r : f64
}

func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @p(%x) : (f64) -> f64
  return %g : f64
}

// CHECK-LABEL: func.func private @p_grad_0(%x: f64) -> f64
// CHECK:         tensor.empty() : tensor<3xf64>
// CHECK:         tensor.empty() : tensor<3xi64>
// CHECK:         loop.for {{.*}} -> (f64, tensor<3xf64>, tensor<3xi64>, index, index) {
// CHECK:           loop.if
// CHECK:             tensor.insert {{.*}} : tensor<3xf64>
// CHECK:             tensor.insert {{.*}} : tensor<3xi64>
// CHECK:             loop.while
// CHECK:           math.sin
// CHECK:         loop.for {{.*}} -> (f64, tensor<3xf64>, tensor<3xi64>, index, f64) {
// CHECK:           tensor.extract {{.*}} : tensor<3xi64>
// CHECK:           tensor.extract {{.*}} : tensor<3xf64>
// CHECK:           loop.while
// CHECK:             loop.for
// CHECK:               math.sin
// CHECK:             loop.if
// CHECK:               tensor.insert
// CHECK:           math.sin
// CHECK:           math.cos
// CHECK-NOT:     tensor<16xf64>
// CHECK-NOT:     autodiff.revolve_slots
