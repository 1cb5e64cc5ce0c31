// Diagnostics worded as mlir-opt's, with notes at the related places.
// RUN: irt-opt --split-input-file --verify-diagnostics %s
// RUN: not irt-opt --split-input-file %s 2>&1 | FileCheck %s

// A block without terminator: said of the block, at its last op.
// CHECK: mlir_diagnostics.mlir:[[# @LINE + 3]]:3: error: block with no terminator, has 'arith.mulf'
func.func @no_return(%x: f64) -> f64 {
  // expected-error @+1 {{block with no terminator, has 'arith.mulf'}}
  %y = arith.mulf %x, %x : f64
}

// -----

func.func @no_branch(%x: f64) -> f64 {
  cf.br ^bb1
^bb1:
  // expected-error @+1 {{block with no terminator}}
  %y = arith.mulf %x, %x : f64
}

// -----

// More names bound than the op defines: which op, and how many results it has.
func.func @loss(%x: f64, %w: f64) -> f64 {
  %y = arith.mulf %x, %w : f64
  func.return %y : f64
}
func.func @main(%x: f64, %w: f64) -> f64 {
  // expected-error @+1 {{operation 'autodiff.grad' defines 1 result but was provided 2 to bind}}
  %a, %b = autodiff.grad @loss(%x, %w) wrt [1] : (f64, f64) -> f64
  func.return %a : f64
}

// -----

// A use with another type than the value's: a note at the definition.
// CHECK: error: use of value '%y' expects different type than prior uses: 'f32' vs 'f64'
// CHECK: mlir_diagnostics.mlir:[[# @LINE + 3]]:3: note: prior use here
func.func @mismatch(%x: f64) -> f64 {
  // expected-note @+1 {{prior use here}}
  %y = arith.mulf %x, %x : f64
  // expected-error @+1 {{use of value '%y' expects different type than prior uses: 'f32' vs 'f64'}}
  %z = arith.addf %y, %y : f32
  func.return %y : f64
}

// -----

// A definition with another type than its earlier (forward) uses.
func.func @forward(%x: f64) -> f64 {
  cf.br ^bb1
^bb2:
  // expected-note @+1 {{previously used here with type 'f32'}}
  %z = arith.addf %y, %y : f32
  func.return %x : f64
^bb1:
  // expected-error @+1 {{definition of SSA value '%y' has type 'f64'}}
  %y = arith.mulf %x, %x : f64
  cf.br ^bb2
}

// -----

// An empty block, as mlir-opt says it.
func.func @empty(%c: i1) {
  // expected-error @-1 {{'func.func' op empty block: expect at least a terminator}}
  cf.cond_br %c, ^a, ^b
^a:
  func.return
^b:
}
