// Function values on inactive data are primal code: copied into the derivative
// function as they are; the private callee they name is kept by symbol-dce.
// RUN: irt-opt %s -p ad,symbol-dce,canonicalize,cse | FileCheck %s
// RUN: irt-run %s -e main -i 2.0 -i 3.0 --interpret | FileCheck %s --check-prefix=INTERP

// CHECK: func.func private @square
func.func private @square(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}
// CHECK-NOT: @unused
func.func private @unused(%x: f64) -> f64 {
  return %x : f64
}
func.func @f(%x: f64, %c: f64) -> f64 {
  %f = func.constant @square : (f64) -> f64
  %y = func.call_indirect %f(%c) : (f64) -> f64
  %z = arith.mulf %x, %y : f64
  return %z : f64
}
// CHECK-LABEL: func.func private @f_grad_0
// CHECK-NEXT: %[[F:.*]] = func.constant @square : (f64) -> f64
// CHECK-NEXT: %[[Y:.*]] = func.call_indirect %[[F]](%c) : (f64) -> f64
// CHECK-NEXT: func.return %[[Y]] : f64
func.func @main(%x: f64, %c: f64) -> f64 {
  %g = autodiff.grad @f(%x, %c) wrt [0] : (f64, f64) -> f64
  return %g : f64
}
// INTERP: result0 = 9.0
