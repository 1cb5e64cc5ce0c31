// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// grad of a function using grad, and jvp of a grad (Hessian-vector product):
// inner derivatives are generated first and differentiated again.

func.func @f(%x: f64) -> f64 {
  %a = arith.mulf %x, %x : f64
  %b = arith.mulf %a, %x : f64
  return %b : f64
}
func.func @df(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) : (f64) -> f64
  return %g : f64
}
func.func @d2f(%x: f64) -> f64 {
  %g = autodiff.grad @df(%x) : (f64) -> f64
  return %g : f64
}
func.func @hvp(%x: f64, %t: f64) -> (f64, f64) {
  %g, %h = autodiff.jvp @df(%x) tangents(%t) : (f64, f64) -> (f64, f64)
  return %g, %h : f64, f64
}

// CHECK-LABEL: func.func private @f_grad_0(%x: f64) -> f64
// CHECK-LABEL: func.func private @f_grad_0_vjp_0(%x: f64, %ct: f64) -> (f64, f64)
// CHECK-LABEL: func.func private @f_grad_0_jvp_0(%x: f64, %x_dot: f64) -> (f64, f64)
// CHECK-LABEL: func.func @df
// CHECK:         func.call @f_grad_0(%x)
// CHECK-LABEL: func.func private @df_grad_0(%x: f64) -> f64
// CHECK:         func.call @f_grad_0_vjp_0
// CHECK-LABEL: func.func private @df_jvp_0(%x: f64, %x_dot: f64) -> (f64, f64)
// CHECK:         func.call @f_grad_0_jvp_0(%x, %x_dot)
// CHECK-LABEL: func.func @d2f
// CHECK:         func.call @df_grad_0(%x)
// CHECK-LABEL: func.func @hvp
// CHECK:         func.call @df_jvp_0(%x, %t)
