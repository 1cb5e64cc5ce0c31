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

func.func @subview_arity(%m: memref<4x4xf32>) {
  // expected-error @+1 {{'memref.subview' op expected 2 strides (one per source dim), got 1}}
  %r = memref.subview %m[3, 0] [1, 4] [-1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: 12>>
  func.return
}

// -----

func.func @memref_collapse(%m: memref<2x2xf32>) {
  // expected-error @+1 {{'memref.collapse_shape' op reassociation [[0, 1, 2, 3]] must list the 2 expanded dims in order}}
  %f = memref.collapse_shape %m [[0, 1, 2, 3]] : memref<2x2xf32> into memref<4xf32>
  func.return
}

// -----

func.func @memref_expand(%m: memref<24xf64>) {
  // expected-error @+1 {{'memref.expand_shape' op reassociation [[0, 1, 2, 3]] must list the 3 expanded dims in order}}
  %e = memref.expand_shape %m [[0, 1, 2, 3]] output_shape [2, 3, 4] : memref<24xf64> into memref<2x3x4xf64>
  func.return
}

// -----

// expected-error @+1 {{'func.func' op empty block: expect at least a terminator}}
func.func @empty_block(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  func.return
^b:
}

// -----

func.func @pad_value_type(%a: tensor<2x2xf32>) -> tensor<4x3xf32> {
  %z = arith.constant 7.0 : f64
  // expected-error @+1 {{'tensor.pad' op expected yield type to match shape element type}}
  %p = tensor.pad %a low[1, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f64
  } : tensor<2x2xf32> to tensor<4x3xf32>
  func.return %p : tensor<4x3xf32>
}

// -----

func.func @scf_if_yield(%x: f64, %c: i1) -> f64 {
  // expected-error @+1 {{'scf.if' op region yields 0 value(s) of type(s) () but the op has results of type(s) (f64)}}
  %r = scf.if %c -> (f64) {
  } else {
  }
  func.return %r : f64
}

// -----

// Found by fuzzing: an index constant of 2^64 reached the LLVM conversion.
func.func @index_constant_too_wide() -> index {
  // expected-error @+1 {{'arith.constant' op index constant 18446744073709551616 does not fit in 64 bits}}
  %c = arith.constant 18446744073709551616 : index
  func.return %c : index
}

// -----

// Found by fuzzing: xDSL's memref.load verifier raises a bare Exception.
func.func @load_without_indices(%m: memref<4xf32>) -> f32 {
  // expected-error @+1 {{'memref.load' op expected an index for each dimension}}
  %x = memref.load %m[] : memref<4xf32>
  func.return %x : f32
}
