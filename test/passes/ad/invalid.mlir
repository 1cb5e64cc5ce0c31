// RUN: irt-opt %s -p ad --split-input-file --verify-diagnostics

func.func @r(%x: f64) -> f64 {
  // expected-error @+1 {{cannot differentiate the recursive call to @r}}
  %y = func.call @r(%x) : (f64) -> f64
  return %y : f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @r(%x) : (f64) -> f64
  return %d : f64
}

// -----

func.func @f(%x: f64) -> f64 attributes {autodiff.custom_jvp = @f_jvp} {
  return %x : f64
}
func.func @f_jvp(%x: f64, %t: f64) -> (f64, f64) {
  return %x, %t : f64, f64
}
func.func @g(%x: f64) -> f64 {
  // expected-error @+1 {{reverse mode needs a custom VJP rule}}
  %d = autodiff.grad @f(%x) : (f64) -> f64
  return %d : f64
}

// -----

func.func @m(%x: memref<4xf64>, %v: f64) -> f64 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.store' op cannot be differentiated}}
  memref.store %v, %x[%c0] : memref<4xf64>
  return %v : f64
}
func.func @g(%x: memref<4xf64>, %v: f64) -> f64 {
  %d = autodiff.grad @m(%x, %v) wrt [1] : (memref<4xf64>, f64) -> f64
  return %d : f64
}

// -----

// An indirect call on an active value: the callee is known only at run time.
func.func private @square(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}
func.func @indirect(%x: f64) -> f64 {
  %f = func.constant @square : (f64) -> f64
  // expected-error @+1 {{'func.call_indirect' op cannot be differentiated: its callee is known only at run time; call the function with func.call}}
  %y = func.call_indirect %f(%x) : (f64) -> f64
  return %y : f64
}
func.func @g(%x: f64) -> f64 {
  %d = autodiff.grad @indirect(%x) : (f64) -> f64
  return %d : f64
}
