// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p 'ad{checkpoint=sqrt},canonicalize,cse' | FileCheck %s --check-prefix=CKPT

// Regression: the body never reads %a, so %a is not taped; its adjoint is a
// symbolic zero (it used to fail with a KeyError on the block argument).

// CHECK-LABEL: func.func private @p_grad_0(%x: f64) -> f64
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK:         %[[CA:.*]], %[[ACC:.*]] = loop.for {{.*}} iter_args(%[[DA:.*]] = %[[ONE]], %{{.*}} = %[[ZERO]]) -> (f64, f64) {
// CHECK:           loop.yield %[[ZERO]], %{{.*}} : f64, f64
// CHECK:         %[[G:.*]] = arith.addf %[[CA]], %[[ACC]] : f64
// CHECK:         func.return %[[G]] : f64

// CKPT-LABEL: func.func private @p_grad_0(%x: f64) -> f64
// CKPT:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CKPT:         loop.for
// CKPT:         loop.yield %[[ZERO]], %{{.*}} : f64, f64
// CKPT:         func.return

func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.for %i = %c0 to %c16 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %x : f64
    %t = arith.mulf %s, %x : f64
    loop.yield %t : f64
  }
  return %r : f64
}
func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @p(%x) : (f64) -> f64
  return %g : f64
}
