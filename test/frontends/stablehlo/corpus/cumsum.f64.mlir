module @jit_cumsum_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf64>, %arg1: tensor<4x3xf64>, %arg2: tensor<4x5xf64>) -> (tensor<f64> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
    %1 = call @_flip(%arg2) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    %2 = call @cumsum(%1) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    %3 = call @_flip(%2) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    %4 = call @cumsum(%0) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    %5 = stablehlo.subtract %0, %3 : tensor<4x5xf64>
    %6 = stablehlo.multiply %5, %5 : tensor<4x5xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf64>, tensor<f64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<2.000000e+01> : tensor<f64>
    %8 = stablehlo.divide %7, %cst_0 : tensor<f64>
    %9 = stablehlo.multiply %4, %4 : tensor<4x5xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf64>, tensor<f64>) -> tensor<f64>
    %cst_2 = stablehlo.constant dense<2.000000e+01> : tensor<f64>
    %11 = stablehlo.divide %10, %cst_2 : tensor<f64>
    %cst_3 = stablehlo.constant dense<1.000000e-01> : tensor<f64>
    %12 = stablehlo.multiply %cst_3, %11 : tensor<f64>
    %13 = stablehlo.add %8, %12 : tensor<f64>
    return %13 : tensor<f64>
  }
  func.func private @_flip(%arg0: tensor<4x5xf64>) -> tensor<4x5xf64> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<4x5xf64>
    return %0 : tensor<4x5xf64>
  }
  func.func private @cumsum(%arg0: tensor<4x5xf64>) -> tensor<4x5xf64> {
    %0 = call @cumsum_0(%arg0) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    return %0 : tensor<4x5xf64>
  }
  func.func private @cumsum_0(%arg0: tensor<4x5xf64>) -> tensor<4x5xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<f64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [4, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 5>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f64>
      stablehlo.return %2 : tensor<f64>
    }) : (tensor<4x5xf64>, tensor<f64>) -> tensor<4x5xf64>
    return %1 : tensor<4x5xf64>
  }
}
