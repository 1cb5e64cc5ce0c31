module @jit_transformer_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf64>, %arg1: tensor<16xf64>, %arg2: tensor<16x16xf64>, %arg3: tensor<16x16xf64>, %arg4: tensor<16x16xf64>, %arg5: tensor<16x16xf64>, %arg6: tensor<16xf64>, %arg7: tensor<16xf64>, %arg8: tensor<16x32xf64>, %arg9: tensor<32xf64>, %arg10: tensor<32x16xf64>, %arg11: tensor<16xf64>, %arg12: tensor<2x6x16xf64>, %arg13: tensor<2x6x16xf64>) -> (tensor<f64> {jax.result_info = "result"}) {
    %0 = call @layer_norm(%arg12, %arg0, %arg1) : (tensor<2x6x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<2x6x16xf64>
    %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf64>, tensor<16x16xf64>) -> tensor<2x6x16xf64>
    %2 = stablehlo.reshape %1 : (tensor<2x6x16xf64>) -> tensor<2x6x4x4xf64>
    %3 = stablehlo.dot_general %0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf64>, tensor<16x16xf64>) -> tensor<2x6x16xf64>
    %4 = stablehlo.reshape %3 : (tensor<2x6x16xf64>) -> tensor<2x6x4x4xf64>
    %5 = stablehlo.dot_general %0, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf64>, tensor<16x16xf64>) -> tensor<2x6x16xf64>
    %6 = stablehlo.reshape %5 : (tensor<2x6x16xf64>) -> tensor<2x6x4x4xf64>
    %7 = stablehlo.dot_general %2, %4, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf64>, tensor<2x6x4x4xf64>) -> tensor<2x4x6x6xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x4x6x6xf64>
    %9 = stablehlo.divide %7, %8 : tensor<2x4x6x6xf64>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %11 = call @tril(%10) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_0 = stablehlo.constant dense<-1.7976931348623157E+308> : tensor<f64>
    %12 = call @_where(%11, %9, %cst_0) : (tensor<6x6xi1>, tensor<2x4x6x6xf64>, tensor<f64>) -> tensor<2x4x6x6xf64>
    %cst_1 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x6x6xf64>, tensor<f64>) -> tensor<2x4x6xf64>
    %cst_2 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<2x4x6xf64>
    %15 = stablehlo.maximum %14, %13 : tensor<2x4x6xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x4x6xf64>) -> tensor<2x4x6x1xf64>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2, 3] : (tensor<2x4x6x1xf64>) -> tensor<2x4x6x6xf64>
    %18 = stablehlo.subtract %12, %17 : tensor<2x4x6x6xf64>
    %19 = stablehlo.exponential %18 : tensor<2x4x6x6xf64>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %20 = stablehlo.reduce(%19 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x4x6x6xf64>, tensor<f64>) -> tensor<2x4x6xf64>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<2x4x6xf64>) -> tensor<2x4x6x1xf64>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<2x4x6x1xf64>) -> tensor<2x4x6x6xf64>
    %23 = stablehlo.divide %19, %22 : tensor<2x4x6x6xf64>
    %24 = stablehlo.dot_general %6, %23, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf64>, tensor<2x4x6x6xf64>) -> tensor<2x4x4x6xf64>
    %25 = stablehlo.transpose %24, dims = [0, 3, 1, 2] : (tensor<2x4x4x6xf64>) -> tensor<2x6x4x4xf64>
    %26 = stablehlo.reshape %25 : (tensor<2x6x4x4xf64>) -> tensor<2x6x16xf64>
    %27 = stablehlo.dot_general %26, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf64>, tensor<16x16xf64>) -> tensor<2x6x16xf64>
    %28 = stablehlo.add %arg12, %27 : tensor<2x6x16xf64>
    %29 = call @layer_norm(%28, %arg6, %arg7) : (tensor<2x6x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<2x6x16xf64>
    %30 = stablehlo.dot_general %29, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf64>, tensor<16x32xf64>) -> tensor<2x6x32xf64>
    %31 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<32xf64>) -> tensor<1x1x32xf64>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<1x1x32xf64>) -> tensor<2x6x32xf64>
    %33 = stablehlo.add %30, %32 : tensor<2x6x32xf64>
    %34 = stablehlo.multiply %33, %33 : tensor<2x6x32xf64>
    %35 = stablehlo.multiply %34, %33 : tensor<2x6x32xf64>
    %cst_4 = stablehlo.constant dense<4.471500e-02> : tensor<f64>
    %36 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<2x6x32xf64>
    %37 = stablehlo.multiply %36, %35 : tensor<2x6x32xf64>
    %38 = stablehlo.add %33, %37 : tensor<2x6x32xf64>
    %cst_5 = stablehlo.constant dense<0.79788456080286541> : tensor<f64>
    %39 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<2x6x32xf64>
    %40 = stablehlo.multiply %39, %38 : tensor<2x6x32xf64>
    %41 = stablehlo.tanh %40 : tensor<2x6x32xf64>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %42 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<2x6x32xf64>
    %43 = stablehlo.add %42, %41 : tensor<2x6x32xf64>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %44 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<2x6x32xf64>
    %45 = stablehlo.multiply %44, %43 : tensor<2x6x32xf64>
    %46 = stablehlo.multiply %33, %45 : tensor<2x6x32xf64>
    %47 = stablehlo.dot_general %46, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x32xf64>, tensor<32x16xf64>) -> tensor<2x6x16xf64>
    %48 = stablehlo.add %28, %47 : tensor<2x6x16xf64>
    %49 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<16xf64>) -> tensor<1x1x16xf64>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<1x1x16xf64>) -> tensor<2x6x16xf64>
    %51 = stablehlo.add %48, %50 : tensor<2x6x16xf64>
    %52 = stablehlo.subtract %51, %arg13 : tensor<2x6x16xf64>
    %53 = stablehlo.multiply %52, %52 : tensor<2x6x16xf64>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %54 = stablehlo.reduce(%53 init: %cst_8) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x6x16xf64>, tensor<f64>) -> tensor<f64>
    %cst_9 = stablehlo.constant dense<1.920000e+02> : tensor<f64>
    %55 = stablehlo.divide %54, %cst_9 : tensor<f64>
    return %55 : tensor<f64>
  }
  func.func private @layer_norm(%arg0: tensor<2x6x16xf64>, %arg1: tensor<16xf64>, %arg2: tensor<16xf64>) -> tensor<2x6x16xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf64>, tensor<f64>) -> tensor<2x6xf64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf64>) -> tensor<2x6x1xf64>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x6x1xf64>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf64>) -> tensor<2x6x16xf64>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x6x16xf64>
    %6 = stablehlo.multiply %5, %5 : tensor<2x6x16xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf64>, tensor<f64>) -> tensor<2x6xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x6xf64>) -> tensor<2x6x1xf64>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<2x6x1xf64>
    %10 = stablehlo.divide %8, %9 : tensor<2x6x1xf64>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf64>) -> tensor<2x6x16xf64>
    %12 = stablehlo.subtract %arg0, %11 : tensor<2x6x16xf64>
    %cst_3 = stablehlo.constant dense<1.000000e-05> : tensor<f64>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<2x6x1xf64>
    %14 = stablehlo.add %10, %13 : tensor<2x6x1xf64>
    %15 = stablehlo.rsqrt %14 : tensor<2x6x1xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x6x1xf64>) -> tensor<2x6x16xf64>
    %17 = stablehlo.multiply %12, %16 : tensor<2x6x16xf64>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf64>) -> tensor<1x1x16xf64>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x16xf64>) -> tensor<2x6x16xf64>
    %20 = stablehlo.multiply %17, %19 : tensor<2x6x16xf64>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf64>) -> tensor<1x1x16xf64>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<1x1x16xf64>) -> tensor<2x6x16xf64>
    %23 = stablehlo.add %20, %22 : tensor<2x6x16xf64>
    return %23 : tensor<2x6x16xf64>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi64>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where(%arg0: tensor<6x6xi1>, %arg1: tensor<2x4x6x6xf64>, %arg2: tensor<f64>) -> tensor<2x4x6x6xf64> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<6x6xi1>) -> tensor<2x4x6x6xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f64>) -> tensor<2x4x6x6xf64>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<2x4x6x6xi1>, tensor<2x4x6x6xf64>
    return %2 : tensor<2x4x6x6xf64>
  }
}
