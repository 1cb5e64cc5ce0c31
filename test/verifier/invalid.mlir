// RUN: irt-opt %s --split-input-file --verify-diagnostics

// Checks the verifier adds to xDSL's: SSA dominance, scalar ops on tensors,
// subview arity.

func.func @self_use(%x: f64) -> f64 {
  // expected-error @+1 {{'arith.mulf' op operand #0 does not dominate this use}}
  %r = arith.mulf %r, %x : f64
  func.return %r : f64
}

// -----

func.func @use_before_def(%x: f64) -> f64 {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %a = arith.mulf %b, %x : f64
  %b = arith.mulf %x, %x : f64
  func.return %a : f64
}

// -----

func.func @not_dominating_branch(%x: f64, %c: i1) -> f64 {
  cf.cond_br %c, ^a, ^b
^a:
  %y = arith.mulf %x, %x : f64
  cf.br ^c
^b:
  cf.br ^c
^c:
  // expected-error @+1 {{'func.return' op operand #0 does not dominate this use}}
  func.return %y : f64
}

// -----

func.func @region_value_outside(%x: f64, %c: i1) -> f64 {
  %r = loop.if %c -> (f64) {
    %y = arith.mulf %x, %x : f64
    loop.yield %y : f64
  } else {
    loop.yield %x : f64
  }
  // values of a region are not visible after it (the parser scopes them)
  // expected-error @+1 {{use of undeclared SSA value name '%y'}}
  %z = arith.addf %y, %r : f64
  func.return %z : f64
}

// -----

func.func @arith_on_tensors(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' op operates on scalars only, not tensors; use 'tensor.add'}}
  %r = arith.addf %a, %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @subview_arity(%m: memref<4x4xf32>) {
  // expected-error @+1 {{'memref.subview' op expected 2 strides (one per source dim), got 1}}
  %r = memref.subview %m[3, 0] [1, 4] [-1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: 12>>
  func.return
}
