// All expected diagnostics are produced: exit 0, and the chunks that
// succeeded are printed as by mlir-opt.
// RUN: irt-opt --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: irt-opt --split-input-file -verify-diagnostics -o %t %s

// CHECK: func.func @fine
// CHECK-NOT: @same_line
// CHECK-NOT: @plus_one

func.func @same_line(%x: f64) -> f64 {
  %y = arith.addf %x, %z : f64 // expected-error {{use of undeclared SSA value name '%z'}}
  func.return %y : f64
}

// -----

func.func @plus_one(%x: f64) -> f32 {
  // expected-error @+1 {{'func.return' op type of return operand 0}}
  func.return %x : f64
}

// -----

func.func @minus_one(%x: f64) -> f32 {
  func.return %x : f64
  // expected-error @-1 {{type of return operand 0}}
}

// -----

func.func @above(%x: f64) -> f32 {
  func.return %x : f64
  // expected-error @above {{('f64') doesn't match function result type ('f32')}}
}

// -----

func.func @below(%x: f64) -> f32 {
  // expected-error @below {{'func.return' op}}
  func.return %x : f64
}

// -----

func.func @regex(%x: f64) -> f32 {
  // expected-error-re @+1 {{('f64') doesn't match function result type ('{{f[0-9]+}}')}}
  func.return %x : f64
}

// -----

func.func @fine(%x: f64) -> f64 {
  func.return %x : f64
}
