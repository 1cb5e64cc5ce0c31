module @jit_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf64>, %arg1: tensor<32xf64>, %arg2: tensor<32x4xf64>, %arg3: tensor<4xf64>, %arg4: tensor<8x16xf64>, %arg5: tensor<8x4xf64>) -> (tensor<f64> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf64>, tensor<16x32xf64>) -> tensor<8x32xf64>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf64>) -> tensor<1x32xf64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf64>) -> tensor<8x32xf64>
    %3 = stablehlo.add %0, %2 : tensor<8x32xf64>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8x32xf64>
    %5 = stablehlo.multiply %4, %3 : tensor<8x32xf64>
    %6 = stablehlo.negate %3 : tensor<8x32xf64>
    %cst_0 = stablehlo.constant dense<0.70710678118654757> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<8x32xf64>
    %8 = stablehlo.multiply %6, %7 : tensor<8x32xf64>
    %9 = chlo.erfc %8 : tensor<8x32xf64> -> tensor<8x32xf64>
    %10 = stablehlo.multiply %5, %9 : tensor<8x32xf64>
    %11 = stablehlo.dot_general %10, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf64>, tensor<32x4xf64>) -> tensor<8x4xf64>
    %12 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf64>) -> tensor<1x4xf64>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x4xf64>) -> tensor<8x4xf64>
    %14 = stablehlo.add %11, %13 : tensor<8x4xf64>
    %15 = stablehlo.subtract %14, %arg5 : tensor<8x4xf64>
    %16 = stablehlo.multiply %15, %15 : tensor<8x4xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.reduce(%16 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf64>, tensor<f64>) -> tensor<f64>
    %cst_2 = stablehlo.constant dense<3.200000e+01> : tensor<f64>
    %18 = stablehlo.divide %17, %cst_2 : tensor<f64>
    return %18 : tensor<f64>
  }
}
