// Convolutions in the layouts JAX emits (NCHW/OIHW, channels last, and the kernel and input
// gradients of lenet_grad: dilations, asymmetric padding) and windowed reductions (max-pool,
// sum-pool with an init value that is not 0, the padded prefix sum of jnp.cumsum).
// test_convert_windows.py checks their conversion against the StableHLO interpreter.

func.func @conv_0(%x: tensor<4x1x16x16xf64>, %w: tensor<4x1x3x3xf64>) -> tensor<4x4x16x16xf64> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf64>, tensor<4x1x3x3xf64>) -> tensor<4x4x16x16xf64>
  return %r : tensor<4x4x16x16xf64>
}

func.func @conv_1(%x: tensor<4x8x8x4xf64>, %w: tensor<3x3x4x8xf64>) -> tensor<4x4x4x8xf64> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf64>, tensor<3x3x4x8xf64>) -> tensor<4x4x4x8xf64>
  return %r : tensor<4x4x4x8xf64>
}

func.func @conv_2(%x: tensor<4x8x8x4xf64>, %w: tensor<4x4x4x8xf64>) -> tensor<3x3x4x8xf64> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf64>, tensor<4x4x4x8xf64>) -> tensor<3x3x4x8xf64>
  return %r : tensor<3x3x4x8xf64>
}

func.func @conv_3(%x: tensor<4x4x4x8xf64>, %w: tensor<3x3x4x8xf64>) -> tensor<4x8x8x4xf64> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x8xf64>, tensor<3x3x4x8xf64>) -> tensor<4x8x8x4xf64>
  return %r : tensor<4x8x8x4xf64>
}

func.func @conv_4(%x: tensor<4x1x16x16xf64>, %w: tensor<4x4x16x16xf64>) -> tensor<4x1x3x3xf64> {
  %r = stablehlo.convolution(%x, %w) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf64>, tensor<4x4x16x16xf64>) -> tensor<4x1x3x3xf64>
  return %r : tensor<4x1x3x3xf64>
}

func.func @pool(%x: tensor<2x3x6x5xf64>) -> (tensor<2x3x3x2xf64>, tensor<2x3x3x5xf64>, tensor<2x5xf64>) {
  %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %one = stablehlo.constant dense<1.5> : tensor<f64>
  %0 = "stablehlo.reduce_window"(%x, %ninf) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %m = stablehlo.maximum %a, %b : tensor<f64>
    stablehlo.return %m : tensor<f64>
  }) : (tensor<2x3x6x5xf64>, tensor<f64>) -> tensor<2x3x3x2xf64>
  %1 = "stablehlo.reduce_window"(%x, %one) <{window_dimensions = array<i64: 1, 1, 2, 1>, window_strides = array<i64: 1, 1, 2, 1>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %m = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %m : tensor<f64>
  }) : (tensor<2x3x6x5xf64>, tensor<f64>) -> tensor<2x3x3x5xf64>
  %y = stablehlo.slice %x [0:2, 0:1, 0:1, 0:5] : (tensor<2x3x6x5xf64>) -> tensor<2x1x1x5xf64>
  %y2 = stablehlo.reshape %y : (tensor<2x1x1x5xf64>) -> tensor<2x5xf64>
  %2 = "stablehlo.reduce_window"(%y2, %z) <{window_dimensions = array<i64: 1, 5>, padding = dense<[[0, 0], [4, 0]]> : tensor<2x2xi64>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %m = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %m : tensor<f64>
  }) : (tensor<2x5xf64>, tensor<f64>) -> tensor<2x5xf64>
  return %0, %1, %2 : tensor<2x3x3x2xf64>, tensor<2x3x3x5xf64>, tensor<2x5xf64>
}

// jax.grad of max-pooling (lenet_grad), here with ties (floor), overlapping padded windows and
// an init value that is not 0: each source value goes to its window's first maximal element
func.func @select_and_scatter(%x: tensor<2x6x5xf64>, %s: tensor<2x3x3xf64>) -> tensor<2x6x5xf64> {
  %init = stablehlo.constant dense<0.25> : tensor<f64>
  %f = stablehlo.floor %x : tensor<2x6x5xf64>
  %0 = "stablehlo.select_and_scatter"(%f, %s, %init) <{padding = dense<[[0, 0], [0, 1], [1, 1]]> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 3, 3>, window_strides = array<i64: 1, 2, 2>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %m = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %m : tensor<f64>
  }) : (tensor<2x6x5xf64>, tensor<2x3x3xf64>, tensor<f64>) -> tensor<2x6x5xf64>
  return %0 : tensor<2x6x5xf64>
}
