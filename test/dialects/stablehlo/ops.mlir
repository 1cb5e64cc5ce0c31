// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s

// Every stablehlo, chlo and sdy op in the syntax JAX prints; the printed form
// parses back, and so does the generic form.

// CHECK: builtin.module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  // CHECK: sdy.mesh @mesh = <["batch"=2, "model"=1]> {stablehlo.mesh = {axes = [{name = "batch", size = 2 : i64}]}}
  sdy.mesh @mesh = <["batch"=2, "model"=1]> {stablehlo.mesh = {axes = [{name = "batch", size = 2 : i64}]}}

  // CHECK-LABEL: func.func public @attributes
  // CHECK-SAME: %{{.*}}: tensor<4xf32> {jax.buffer_donor = true, mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}
  // CHECK-SAME: %{{.*}}: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>, tf.aliasing_output = 0 : i32}
  // CHECK-SAME: -> (tensor<4xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}]>})
  func.func public @attributes(%arg0: tensor<4xf32> {jax.buffer_donor = true, mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>, tf.aliasing_output = 0 : i32}) -> (tensor<4xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    return %arg0 : tensor<4xf32>
  }

  // CHECK-LABEL: func.func @elementwise
  func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) -> tensor<4xf32> {
    // CHECK: stablehlo.abs %{{.*}} : tensor<4xf32>
    %0 = stablehlo.abs %a : tensor<4xf32>
    // CHECK: stablehlo.cbrt %{{.*}} : tensor<4xf32>
    %1 = stablehlo.cbrt %0 : tensor<4xf32>
    // CHECK: stablehlo.ceil
    %2 = stablehlo.ceil %1 : tensor<4xf32>
    // CHECK: stablehlo.cosine
    %3 = stablehlo.cosine %2 : tensor<4xf32>
    // CHECK: stablehlo.exponential %
    %4 = stablehlo.exponential %3 : tensor<4xf32>
    // CHECK: stablehlo.exponential_minus_one
    %5 = stablehlo.exponential_minus_one %4 : tensor<4xf32>
    // CHECK: stablehlo.floor
    %6 = stablehlo.floor %5 : tensor<4xf32>
    // CHECK: stablehlo.log %
    %7 = stablehlo.log %6 : tensor<4xf32>
    // CHECK: stablehlo.log_plus_one
    %8 = stablehlo.log_plus_one %7 : tensor<4xf32>
    // CHECK: stablehlo.logistic
    %9 = stablehlo.logistic %8 : tensor<4xf32>
    // CHECK: stablehlo.negate
    %10 = stablehlo.negate %9 : tensor<4xf32>
    // CHECK: stablehlo.round_nearest_afz
    %11 = stablehlo.round_nearest_afz %10 : tensor<4xf32>
    // CHECK: stablehlo.round_nearest_even
    %12 = stablehlo.round_nearest_even %11 : tensor<4xf32>
    // CHECK: stablehlo.rsqrt
    %13 = stablehlo.rsqrt %12 : tensor<4xf32>
    // CHECK: stablehlo.sign
    %14 = stablehlo.sign %13 : tensor<4xf32>
    // CHECK: stablehlo.sine
    %15 = stablehlo.sine %14 : tensor<4xf32>
    // CHECK: stablehlo.sqrt
    %16 = stablehlo.sqrt %15 : tensor<4xf32>
    // CHECK: stablehlo.tan %
    %17 = stablehlo.tan %16 : tensor<4xf32>
    // CHECK: stablehlo.tanh
    %18 = stablehlo.tanh %17 : tensor<4xf32>
    // CHECK: stablehlo.not %{{.*}} : tensor<4xi1>
    %n = stablehlo.not %p : tensor<4xi1>
    // CHECK: stablehlo.add %{{.*}}, %{{.*}} : tensor<4xf32>
    %20 = stablehlo.add %18, %b : tensor<4xf32>
    // CHECK: stablehlo.subtract
    %21 = stablehlo.subtract %20, %b : tensor<4xf32>
    // CHECK: stablehlo.multiply
    %22 = stablehlo.multiply %21, %b : tensor<4xf32>
    // CHECK: stablehlo.divide
    %23 = stablehlo.divide %22, %b : tensor<4xf32>
    // CHECK: stablehlo.remainder
    %24 = stablehlo.remainder %23, %b : tensor<4xf32>
    // CHECK: stablehlo.maximum
    %25 = stablehlo.maximum %24, %b : tensor<4xf32>
    // CHECK: stablehlo.minimum
    %26 = stablehlo.minimum %25, %b : tensor<4xf32>
    // CHECK: stablehlo.power
    %27 = stablehlo.power %26, %b : tensor<4xf32>
    // CHECK: stablehlo.atan2
    %28 = stablehlo.atan2 %27, %b : tensor<4xf32>
    // CHECK: stablehlo.and %{{.*}}, %{{.*}} : tensor<4xi1>
    %30 = stablehlo.and %p, %n : tensor<4xi1>
    // CHECK: stablehlo.or
    %31 = stablehlo.or %30, %p : tensor<4xi1>
    // CHECK: stablehlo.xor
    %32 = stablehlo.xor %31, %p : tensor<4xi1>
    // CHECK: stablehlo.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
    %33 = stablehlo.shift_left %i, %i : tensor<4xi32>
    // CHECK: stablehlo.shift_right_arithmetic
    %34 = stablehlo.shift_right_arithmetic %33, %i : tensor<4xi32>
    // CHECK: stablehlo.shift_right_logical
    %35 = stablehlo.shift_right_logical %34, %i : tensor<4xi32>
    // CHECK: stablehlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>
    %36 = stablehlo.clamp %a, %28, %b : tensor<4xf32>
    // CHECK: stablehlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %lo = stablehlo.constant dense<-1.0> : tensor<f32>
    %37 = stablehlo.clamp %lo, %36, %lo : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    // CHECK: stablehlo.convert %{{.*}} : (tensor<4xi32>) -> tensor<4xf32>
    %38 = stablehlo.convert %35 : (tensor<4xi32>) -> tensor<4xf32>
    // CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi32>
    %39 = stablehlo.bitcast_convert %38 : (tensor<4xf32>) -> tensor<4xi32>
    // CHECK: stablehlo.is_finite %{{.*}} : (tensor<4xf32>) -> tensor<4xi1>
    %40 = stablehlo.is_finite %37 : (tensor<4xf32>) -> tensor<4xi1>
    // CHECK: stablehlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
    %41 = stablehlo.select %40, %37, %38 : tensor<4xi1>, tensor<4xf32>
    // CHECK: stablehlo.compare  GT, %{{.*}}, %{{.*}},  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %42 = stablehlo.compare  GT, %41, %a,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    // CHECK: stablehlo.compare  LT, %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %43 = stablehlo.compare LT, %39, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    // CHECK: stablehlo.add %{{.*}}, %{{.*}} : tensor<4xf32>
    %44 = "stablehlo.add"(%41, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: stablehlo.compare  EQ, %{{.*}}, %{{.*}},  TOTALORDER
    %45 = "stablehlo.compare"(%44, %a) <{comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type TOTALORDER>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    return %44 : tensor<4xf32>
  }

  // CHECK-LABEL: func.func @chlo
  func.func @chlo(%a: tensor<3xf64>) -> tensor<3xi1> {
    // CHECK: chlo.erf %{{.*}} : tensor<3xf64> -> tensor<3xf64>
    %0 = chlo.erf %a : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.erfc
    %1 = chlo.erfc %0 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.erf_inv
    %2 = chlo.erf_inv %1 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.square
    %3 = chlo.square %2 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.tan
    %4 = chlo.tan %3 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.lgamma
    %5 = chlo.lgamma %4 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.sinh
    %6 = chlo.sinh %5 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.cosh
    %7 = chlo.cosh %6 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.asin
    %8 = chlo.asin %7 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.acos
    %9 = chlo.acos %8 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.atan
    %10 = chlo.atan %9 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.asinh
    %11 = chlo.asinh %10 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.acosh
    %12 = chlo.acosh %11 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.atanh
    %13 = chlo.atanh %12 : tensor<3xf64> -> tensor<3xf64>
    // CHECK: chlo.is_inf %{{.*}} : tensor<3xf64> -> tensor<3xi1>
    %14 = chlo.is_inf %13 : tensor<3xf64> -> tensor<3xi1>
    // CHECK: chlo.is_pos_inf
    %15 = chlo.is_pos_inf %13 : tensor<3xf64> -> tensor<3xi1>
    // CHECK: chlo.is_neg_inf
    %16 = chlo.is_neg_inf %13 : tensor<3xf64> -> tensor<3xi1>
    return %16 : tensor<3xi1>
  }

  // CHECK-LABEL: func.func @shapes
  func.func @shapes(%x: tensor<2x3xf32>, %i: tensor<i32>) -> tensor<6xf32> {
    // CHECK: stablehlo.constant dense<0xff800000> : tensor<f32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    // CHECK: stablehlo.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
    %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    // CHECK: stablehlo.iota dim = 1 : tensor<2x3xi32>
    %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
    // CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    // CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    // CHECK: stablehlo.reverse %{{.*}}, dims = [0] : tensor<3x2xf32>
    %3 = stablehlo.reverse %2, dims = [0] : tensor<3x2xf32>
    // CHECK: stablehlo.reshape %{{.*}} : (tensor<3x2xf32>) -> tensor<6xf32>
    %4 = stablehlo.reshape %3 : (tensor<3x2xf32>) -> tensor<6xf32>
    // CHECK: stablehlo.slice %{{.*}} [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %5 = stablehlo.slice %x [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
    // CHECK: stablehlo.slice %{{.*}} [0:6:2] : (tensor<6xf32>) -> tensor<3xf32>
    %6 = stablehlo.slice %4 [0:6:2] : (tensor<6xf32>) -> tensor<3xf32>
    // CHECK: stablehlo.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}}, sizes = [1, 3] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %7 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 3] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    // CHECK: stablehlo.dynamic_update_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %8 = stablehlo.dynamic_update_slice %x, %7, %i, %i : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    // CHECK: stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    %9 = stablehlo.concatenate %8, %7, dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    // CHECK: stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1], high = [1, -1], interior = [1, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    %10 = stablehlo.pad %9, %cst, low = [0, 1], high = [1, -1], interior = [1, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    // CHECK: stablehlo.optimization_barrier %{{.*}}, %{{.*}} : tensor<6xf32>, tensor<i32>
    %11:2 = stablehlo.optimization_barrier %4, %i : tensor<6xf32>, tensor<i32>
    return %11#0 : tensor<6xf32>
  }

  // CHECK-LABEL: func.func @contractions
  func.func @contractions(%q: tensor<2x6x4x4xf32>, %k: tensor<2x6x4x4xf32>, %m: tensor<3x4xf32>, %v: tensor<4xf32>, %x: tensor<4x1x16x16xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32> {
    // CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x4x6x6xf32>
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x4x6x6xf32>
    // CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    %1 = stablehlo.dot_general %m, %v, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    // CHECK: stablehlo.dot %{{.*}}, %{{.*}}, precision = [HIGHEST, HIGHEST] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    %2 = stablehlo.dot %m, %v, precision = [HIGHEST, HIGHEST] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    // CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = {{\[}}[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf32>, tensor<4x1x3x3xf32>) -> tensor<4x4x8x8xf32>
    %3 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf32>, tensor<4x1x3x3xf32>) -> tensor<4x4x8x8xf32>
    // CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<4x6x6x2xf32>
    %t = stablehlo.transpose %3, dims = [0, 2, 3, 1] : (tensor<4x4x8x8xf32>) -> tensor<4x8x8x4xf32>
    %w2 = stablehlo.constant dense<1.0> : tensor<3x3x4x2xf32>
    %4 = stablehlo.convolution(%t, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<4x6x6x2xf32>
    // CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %a3 = stablehlo.constant dense<1.0> : tensor<2x3x4xf32>
    %b3 = stablehlo.constant dense<1.0> : tensor<2x4x5xf32>
    %5 = "stablehlo.dot_general"(%a3, %b3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    // CHECK: stablehlo.convolution(%{{.*}}, %{{.*}}) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = {{\[}}[0, 0]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}
    %x1 = stablehlo.constant dense<1.0> : tensor<1x5x4xf32>
    %w1 = stablehlo.constant dense<1.0> : tensor<3x2x6xf32>
    %6 = "stablehlo.convolution"(%x1, %w1) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 2 : i64, lhs_dilation = array<i64: 2>, padding = dense<0> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_strides = array<i64: 1>}> : (tensor<1x5x4xf32>, tensor<3x2x6xf32>) -> tensor<1x7x6xf32>
    return %0 : tensor<2x4x6x6xf32>
  }

  // CHECK-LABEL: func.func @reductions
  func.func @reductions(%x: tensor<5x3xf32>, %s: tensor<4x4xf32>, %idx: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5xi32> {
    %cst = stablehlo.constant dense<0.0> : tensor<f32>
    // CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
    %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
    // CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [0, 1]
    %1 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<f32>
    // CHECK: %{{.*}}, %{{.*}} = stablehlo.reduce(%{{.*}} init: %{{.*}}), (%{{.*}} init: %{{.*}}) across dimensions = [1] : (tensor<5x3xf32>, tensor<5x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>)
    // CHECK-NEXT: reducer(%[[A:.*]]: tensor<f32>, %[[C:.*]]: tensor<f32>) (%[[B:.*]]: tensor<i32>, %[[D:.*]]: tensor<i32>) {
    // CHECK-NEXT: stablehlo.compare  GT, %[[A]], %[[C]],  FLOAT
    %iota = stablehlo.iota dim = 1 : tensor<5x3xi32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %2:2 = stablehlo.reduce(%x init: %cst), (%iota init: %c0) across dimensions = [1] : (tensor<5x3xf32>, tensor<5x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %g = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v = stablehlo.select %g, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %i = stablehlo.select %g, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %v, %i : tensor<f32>, tensor<i32>
    }
    // A body the compact form cannot show prints as a region.
    // CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
    // CHECK-NEXT: reducer(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) {
    %3 = stablehlo.reduce(%x init: %cst) across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %m = stablehlo.multiply %a, %b : tensor<f32>
      %r = stablehlo.add %m, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }
    // CHECK: "stablehlo.reduce_window"(%{{.*}}, %{{.*}}) <{base_dilations = array<i64: 1, 1>, padding = dense<{{\[}}[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    %4 = "stablehlo.reduce_window"(%x, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    // CHECK: "stablehlo.select_and_scatter"(%{{.*}}, %{{.*}}, %{{.*}}) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    %src = stablehlo.constant dense<1.0> : tensor<2x2xf32>
    %5 = "stablehlo.select_and_scatter"(%s, %src, %cst) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %r : tensor<i1>
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
    // CHECK: "stablehlo.gather"(%{{.*}}, %{{.*}}) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}>
    %6 = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    // CHECK: "stablehlo.scatter"(%{{.*}}, %{{.*}}, %{{.*}}) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    %7 = "stablehlo.scatter"(%x, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    // CHECK: "stablehlo.sort"(%{{.*}}) <{dimension = 1 : i64, is_stable = true}> ({
    %8 = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %r : tensor<i1>
    }) : (tensor<5x3xf32>) -> tensor<5x3xf32>
    return %2#1 : tensor<5xi32>
  }

  // CHECK-LABEL: func.func @control_flow
  func.func @control_flow(%x: tensor<2x3xf32>, %k: tensor<i32>, %p: tensor<i1>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    // CHECK: %{{.*}}, %{{.*}} = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[V:.*]] = %{{.*}}) : tensor<i32>, tensor<2x3xf32>
    // CHECK-NEXT: cond {
    // CHECK: stablehlo.compare  LT, %[[I]], %{{.*}},  SIGNED
    // CHECK: } do {
    // CHECK: stablehlo.add %[[I]], %{{.*}} : tensor<i32>
    // CHECK: stablehlo.return %{{.*}}, %{{.*}} : tensor<i32>, tensor<2x3xf32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %x) : tensor<i32>, tensor<2x3xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @double(%iterArg_0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<2x3xf32>
    }
    // CHECK: "stablehlo.case"(%{{.*}}) ({
    %1 = "stablehlo.case"(%k) ({
      %2 = stablehlo.sine %0#1 : tensor<2x3xf32>
      stablehlo.return %2 : tensor<2x3xf32>
    }, {
      stablehlo.return %0#1 : tensor<2x3xf32>
    }) : (tensor<i32>) -> tensor<2x3xf32>
    // CHECK: "stablehlo.if"(%{{.*}}) ({
    %2 = "stablehlo.if"(%p) ({
      stablehlo.return %1 : tensor<2x3xf32>
    }, {
      %3 = stablehlo.negate %1 : tensor<2x3xf32>
      stablehlo.return %3 : tensor<2x3xf32>
    }) : (tensor<i1>) -> tensor<2x3xf32>
    return %2 : tensor<2x3xf32>
  }
  func.func private @double(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
