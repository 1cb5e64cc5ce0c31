module @jit_newton_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:6 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %arg2, %iterArg_4 = %c) : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>
    cond {
      %5 = stablehlo.multiply %iterArg_3, %iterArg_3 : tensor<5xf32>
      %6 = stablehlo.multiply %5, %iterArg_3 : tensor<5xf32>
      %7 = stablehlo.multiply %iterArg, %iterArg_3 : tensor<5xf32>
      %8 = stablehlo.add %6, %7 : tensor<5xf32>
      %9 = stablehlo.subtract %8, %iterArg_0 : tensor<5xf32>
      %10 = stablehlo.abs %9 : tensor<5xf32>
      %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %11 = stablehlo.reduce(%10 init: %cst_5) applies stablehlo.maximum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      %cst_6 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
      %12 = stablehlo.compare GT, %11, %cst_6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_7 = stablehlo.constant dense<50> : tensor<i32>
      %13 = stablehlo.compare LT, %iterArg_4, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_8 = stablehlo.constant dense<false> : tensor<i1>
      %14 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i1>) -> tensor<i1>
      %15 = stablehlo.compare NE, %13, %14, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %16 = stablehlo.convert %15 : tensor<i1>
      %17 = stablehlo.and %12, %16 : tensor<i1>
      stablehlo.return %17 : tensor<i1>
    } do {
      %5 = stablehlo.multiply %iterArg_3, %iterArg_3 : tensor<5xf32>
      %6 = stablehlo.multiply %5, %iterArg_3 : tensor<5xf32>
      %7 = stablehlo.multiply %iterArg_1, %iterArg_3 : tensor<5xf32>
      %8 = stablehlo.add %6, %7 : tensor<5xf32>
      %9 = stablehlo.subtract %8, %iterArg_2 : tensor<5xf32>
      %10 = stablehlo.multiply %iterArg_3, %iterArg_3 : tensor<5xf32>
      %cst_5 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %12 = stablehlo.multiply %11, %10 : tensor<5xf32>
      %13 = stablehlo.add %12, %iterArg_1 : tensor<5xf32>
      %14 = stablehlo.divide %9, %13 : tensor<5xf32>
      %15 = stablehlo.subtract %iterArg_3, %14 : tensor<5xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %16 = stablehlo.add %iterArg_4, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %15, %16 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>
    }
    %1 = stablehlo.sine %0#4 : tensor<5xf32>
    %2 = stablehlo.multiply %0#4, %0#4 : tensor<5xf32>
    %3 = stablehlo.add %1, %2 : tensor<5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    return %4 : tensor<f32>
  }
}
