module @jit_branches_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xf64>, %arg1: tensor<6x3xf64>, %arg2: tensor<4x5xf64>, %arg3: tensor<i32>) -> (tensor<f64> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf64>, tensor<5x6xf64>) -> tensor<4x6xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6xf64>, tensor<f64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %2 = stablehlo.compare GT, %1, %cst_0, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst_4 = stablehlo.constant dense<-1.000000e+00> : tensor<f64>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %10 = func.call @clip(%0, %cst_4, %cst_5) : (tensor<4x6xf64>, tensor<f64>, tensor<f64>) -> tensor<4x6xf64>
      %cst_6 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
      %11 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
      %12 = stablehlo.multiply %11, %10 : tensor<4x6xf64>
      stablehlo.return %12 : tensor<4x6xf64>
    }, {
      %10 = stablehlo.tanh %0 : tensor<4x6xf64>
      stablehlo.return %10 : tensor<4x6xf64>
    }) : (tensor<i32>) -> tensor<4x6xf64>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c, %arg3, %c_1 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %10 = stablehlo.dot_general %4, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x3xf64>) -> tensor<4x3xf64>
      stablehlo.return %10 : tensor<4x3xf64>
    }, {
      %10 = stablehlo.sine %4 : tensor<4x6xf64>
      %11 = stablehlo.dot_general %10, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x3xf64>) -> tensor<4x3xf64>
      stablehlo.return %11 : tensor<4x3xf64>
    }, {
      %10 = stablehlo.multiply %4, %4 : tensor<4x6xf64>
      %11 = stablehlo.negate %10 : tensor<4x6xf64>
      %12 = stablehlo.exponential %11 : tensor<4x6xf64>
      %13 = stablehlo.dot_general %12, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x3xf64>) -> tensor<4x3xf64>
      stablehlo.return %13 : tensor<4x3xf64>
    }) : (tensor<i32>) -> tensor<4x3xf64>
    %7 = stablehlo.multiply %6, %6 : tensor<4x3xf64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf64>, tensor<f64>) -> tensor<f64>
    %cst_3 = stablehlo.constant dense<1.200000e+01> : tensor<f64>
    %9 = stablehlo.divide %8, %cst_3 : tensor<f64>
    return %9 : tensor<f64>
  }
  func.func private @clip(%arg0: tensor<4x6xf64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<4x6xf64> {
    %0 = stablehlo.convert %arg1 : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x6xf64>
    %3 = stablehlo.convert %arg2 : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %5 = stablehlo.minimum %4, %2 : tensor<4x6xf64>
    return %5 : tensor<4x6xf64>
  }
}
