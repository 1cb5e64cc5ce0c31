// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// stop_gradient blocks the derivative and is erased afterwards.

func.func @sg(%x: f64, %y: f64) -> f64 {
  %s = autodiff.stop_gradient %x : f64
  %a = arith.mulf %s, %y : f64
  %b = math.sin %a : f64
  %r = arith.mulf %b, %x : f64
  return %r : f64
}
func.func @main(%x: f64, %y: f64) -> f64 {
  %g = autodiff.grad @sg(%x, %y) wrt [0] : (f64, f64) -> f64
  return %g : f64
}

// CHECK-NOT: autodiff.stop_gradient
// CHECK-LABEL: func.func private @sg_grad_0(%x: f64, %y: f64) -> f64
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %x, %y : f64
// CHECK-NEXT:    %[[B:.*]] = math.sin %[[A]] : f64
// CHECK-NEXT:    func.return %[[B]] : f64
