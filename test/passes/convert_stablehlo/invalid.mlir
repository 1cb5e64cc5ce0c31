// What convert-stablehlo-to-tensor cannot convert is a located error naming the op and
// what is unsupported.
// RUN: irt-opt %s -p convert-stablehlo-to-tensor --split-input-file --verify-diagnostics

func.func @batch_groups(%x: tensor<4x5x3xf32>, %w: tensor<2x3x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'stablehlo.convolution' op batch_group_count = 2 is not supported}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<4x5x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

func.func @custom_reducer(%x: tensor<4xf32>, %c: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.reduce' op only reductions applying one stablehlo.add, maximum, minimum or multiply (and, or on i1) convert}}
  %0 = stablehlo.reduce(%x init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = stablehlo.add %a, %b : tensor<f32>
    %m = stablehlo.multiply %s, %s : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

func.func @total_order(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'stablehlo.compare' op compare type TOTALORDER is not supported (with LT)}}
  %0 = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @integer_divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.divide' op element type i32 is not supported: 'tensor.div' takes float}}
  %0 = stablehlo.divide %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @integer_dot(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'stablehlo.dot_general' op element type i32 is not supported: only float dot products convert}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @shift(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.shift_left' op cannot be converted: convert-stablehlo-to-tensor has no conversion for it}}
  %0 = stablehlo.shift_left %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @lgamma(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'chlo.lgamma' op cannot be converted: convert-stablehlo-to-tensor has no conversion for it}}
  %0 = chlo.lgamma %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unsigned(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'stablehlo.compare' op compare type UNSIGNED is not supported (with LT)}}
  %0 = stablehlo.compare  LT, %a, %b,  UNSIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @last_maximum(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %init: tensor<f32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'stablehlo.select_and_scatter' op only a select of `compare GE` (the first maximal element of each window) converts; this select region is not supported}}
  %0 = "stablehlo.select_and_scatter"(%x, %s, %init) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @max_scatter(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %init: tensor<f32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'stablehlo.select_and_scatter' op only a scatter region applying stablehlo.add converts}}
  %0 = "stablehlo.select_and_scatter"(%x, %s, %init) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
