// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// A straight-through estimator: round's derivative is replaced by identity.

func.func @round(%x: f64) -> f64 attributes {autodiff.custom_vjp = @round_vjp} {
  %r = math.round %x : f64
  return %r : f64
}
func.func @round_vjp(%x: f64, %ct: f64) -> f64 {
  return %ct : f64
}
func.func @loss(%x: f64) -> f64 {
  %r = func.call @round(%x) : (f64) -> f64
  %s = arith.mulf %r, %x : f64
  return %s : f64
}
func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @loss(%x) : (f64) -> f64
  return %g : f64
}

// CHECK-LABEL: func.func private @round_vjp_0(%{{.*}}: f64, %{{.*}}: f64) -> (f64, f64)
// CHECK:         func.call @round(
// CHECK:         func.call @round_vjp(
// CHECK-LABEL: func.func private @loss_grad_0(%x: f64) -> f64
// CHECK:         %[[R:.*]] = func.call @round(%x)
// CHECK:         %{{.*}}, %[[D:.*]] = func.call @round_vjp_0(%x, %x)
// CHECK:         %[[S:.*]] = arith.addf %[[R]], %[[D]] : f64
// CHECK:         func.return %[[S]] : f64
