module @jit_branches_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xf32>, %arg1: tensor<6x3xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<i32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.compare GT, %1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.convert %2 : (tensor<i1>) -> tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst_4 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %10 = func.call @clip(%0, %cst_4, %cst_5) : (tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> tensor<4x6xf32>
      %cst_6 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
      %12 = stablehlo.multiply %11, %10 : tensor<4x6xf32>
      stablehlo.return %12 : tensor<4x6xf32>
    }, {
      %10 = stablehlo.tanh %0 : tensor<4x6xf32>
      stablehlo.return %10 : tensor<4x6xf32>
    }) : (tensor<i32>) -> tensor<4x6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %5 = stablehlo.clamp %c, %arg3, %c_1 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %10 = stablehlo.dot_general %4, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
      stablehlo.return %10 : tensor<4x3xf32>
    }, {
      %10 = stablehlo.sine %4 : tensor<4x6xf32>
      %11 = stablehlo.dot_general %10, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
      stablehlo.return %11 : tensor<4x3xf32>
    }, {
      %10 = stablehlo.multiply %4, %4 : tensor<4x6xf32>
      %11 = stablehlo.negate %10 : tensor<4x6xf32>
      %12 = stablehlo.exponential %11 : tensor<4x6xf32>
      %13 = stablehlo.dot_general %12, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
      stablehlo.return %13 : tensor<4x3xf32>
    }) : (tensor<i32>) -> tensor<4x3xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
    %9 = stablehlo.divide %8, %cst_3 : tensor<f32>
    return %9 : tensor<f32>
  }
  func.func private @clip(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x6xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x6xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<4x6xf32>
    return %5 : tensor<4x6xf32>
  }
}
