// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// Calls are differentiated across functions: the callee's derivative is
// generated once (callee first) and reused by both calls.

func.func @sq(%x: f64, %k: i64) -> f64 {
  %a = arith.mulf %x, %x : f64
  return %a : f64
}

func.func @h(%x: f64, %y: f64) -> f64 {
  %k = arith.constant 3 : i64
  %a = func.call @sq(%x, %k) : (f64, i64) -> f64
  %b = arith.mulf %a, %y : f64
  %c = func.call @sq(%b, %k) : (f64, i64) -> f64
  return %c : f64
}

func.func @main(%x: f64, %y: f64) -> (f64, f64) {
  %dx, %dy = autodiff.grad @h(%x, %y) : (f64, f64) -> (f64, f64)
  return %dx, %dy : f64, f64
}

func.func @fwd(%x: f64, %y: f64, %t: f64) -> (f64, f64) {
  %r, %dr = autodiff.jvp @h(%x, %y) tangents(%t) wrt [0] : (f64, f64, f64) -> (f64, f64)
  return %r, %dr : f64, f64
}

// CHECK-LABEL: func.func private @sq_vjp_0(%x: f64, %k: i64, %ct: f64) -> (f64, f64)
// CHECK-LABEL: func.func private @sq_jvp_0(%x: f64, %k: i64, %x_dot: f64) -> (f64, f64)
// CHECK-LABEL: func.func private @h_grad_0_1(%x: f64, %y: f64) -> (f64, f64)
// CHECK:         func.call @sq(%x, %{{.*}}) : (f64, i64) -> f64
// CHECK:         func.call @sq_vjp_0
// CHECK:         func.call @sq_vjp_0
// CHECK:         func.return
// CHECK-LABEL: func.func private @h_jvp_0(%x: f64, %y: f64, %x_dot: f64) -> (f64, f64)
// CHECK-COUNT-2: func.call @sq_jvp_0
// CHECK-LABEL: func.func @main
// CHECK:         func.call @h_grad_0_1(%x, %y)
// CHECK-LABEL: func.func @fwd
// CHECK:         func.call @h_jvp_0(%x, %y, %t)
