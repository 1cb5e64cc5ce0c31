module @jit_cumsum_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<4x5xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    %1 = call @_flip(%arg2) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %2 = call @cumsum(%1) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %3 = call @_flip(%2) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %4 = call @cumsum(%0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %5 = stablehlo.subtract %0, %3 : tensor<4x5xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<4x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+01> : tensor<f32>
    %8 = stablehlo.divide %7, %cst_0 : tensor<f32>
    %9 = stablehlo.multiply %4, %4 : tensor<4x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<2.000000e+01> : tensor<f32>
    %11 = stablehlo.divide %10, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %12 = stablehlo.multiply %cst_3, %11 : tensor<f32>
    %13 = stablehlo.add %8, %12 : tensor<f32>
    return %13 : tensor<f32>
  }
  func.func private @_flip(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
  func.func private @cumsum(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [4, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 5>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
    return %1 : tensor<4x5xf32>
  }
}
