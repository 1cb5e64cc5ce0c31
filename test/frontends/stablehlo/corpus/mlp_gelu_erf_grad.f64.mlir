module @jit_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf64>, %arg1: tensor<32xf64>, %arg2: tensor<32x4xf64>, %arg3: tensor<4xf64>, %arg4: tensor<8x16xf64>, %arg5: tensor<8x4xf64>) -> (tensor<16x32xf64> {jax.result_info = "result[0]"}, tensor<32xf64> {jax.result_info = "result[1]"}, tensor<32x4xf64> {jax.result_info = "result[2]"}, tensor<4xf64> {jax.result_info = "result[3]"}) {
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
    %10 = chlo.square %8 : tensor<8x32xf64> -> tensor<8x32xf64>
    %11 = stablehlo.negate %10 : tensor<8x32xf64>
    %12 = stablehlo.exponential %11 : tensor<8x32xf64>
    %13 = stablehlo.multiply %5, %9 : tensor<8x32xf64>
    %14 = stablehlo.dot_general %13, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf64>, tensor<32x4xf64>) -> tensor<8x4xf64>
    %15 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4xf64>) -> tensor<1x4xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x4xf64>) -> tensor<8x4xf64>
    %17 = stablehlo.add %14, %16 : tensor<8x4xf64>
    %18 = stablehlo.subtract %17, %arg5 : tensor<8x4xf64>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<8x4xf64>
    %20 = stablehlo.multiply %19, %18 : tensor<8x4xf64>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %cst_3 = stablehlo.constant dense<3.200000e+01> : tensor<f64>
    %21 = stablehlo.divide %cst_2, %cst_3 : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f64>) -> tensor<8x4xf64>
    %23 = stablehlo.multiply %22, %20 : tensor<8x4xf64>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %24 = stablehlo.reduce(%23 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf64>, tensor<f64>) -> tensor<4xf64>
    %25 = stablehlo.reshape %24 : (tensor<4xf64>) -> tensor<1x4xf64>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %26 = stablehlo.reduce(%25 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf64>, tensor<f64>) -> tensor<4xf64>
    %27 = stablehlo.dot_general %23, %13, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf64>, tensor<8x32xf64>) -> tensor<4x32xf64>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<4x32xf64>) -> tensor<32x4xf64>
    %29 = stablehlo.dot_general %23, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf64>, tensor<32x4xf64>) -> tensor<8x32xf64>
    %30 = stablehlo.multiply %5, %29 : tensor<8x32xf64>
    %31 = stablehlo.multiply %29, %9 : tensor<8x32xf64>
    %cst_6 = stablehlo.constant dense<-1.1283791670955126> : tensor<f64>
    %32 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<8x32xf64>
    %33 = stablehlo.multiply %32, %30 : tensor<8x32xf64>
    %34 = stablehlo.multiply %33, %12 : tensor<8x32xf64>
    %cst_7 = stablehlo.constant dense<0.70710678118654757> : tensor<f64>
    %35 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<8x32xf64>
    %36 = stablehlo.multiply %34, %35 : tensor<8x32xf64>
    %37 = stablehlo.negate %36 : tensor<8x32xf64>
    %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %38 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<8x32xf64>
    %39 = stablehlo.multiply %38, %31 : tensor<8x32xf64>
    %40 = stablehlo.add %37, %39 : tensor<8x32xf64>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %41 = stablehlo.reduce(%40 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<8x32xf64>, tensor<f64>) -> tensor<32xf64>
    %42 = stablehlo.reshape %41 : (tensor<32xf64>) -> tensor<1x32xf64>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %43 = stablehlo.reduce(%42 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf64>, tensor<f64>) -> tensor<32xf64>
    %44 = stablehlo.dot_general %40, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf64>, tensor<8x16xf64>) -> tensor<32x16xf64>
    %45 = stablehlo.transpose %44, dims = [1, 0] : (tensor<32x16xf64>) -> tensor<16x32xf64>
    return %45, %43, %28, %26 : tensor<16x32xf64>, tensor<32xf64>, tensor<32x4xf64>, tensor<4xf64>
  }
}
