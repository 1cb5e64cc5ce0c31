module @jit_transformer_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x16xf32>, %arg3: tensor<16x16xf32>, %arg4: tensor<16x16xf32>, %arg5: tensor<16x16xf32>, %arg6: tensor<16xf32>, %arg7: tensor<16xf32>, %arg8: tensor<16x32xf32>, %arg9: tensor<32xf32>, %arg10: tensor<32x16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<2x6x16xf32>, %arg13: tensor<2x6x16xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = call @layer_norm(%arg12, %arg0, %arg1) : (tensor<2x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
    %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x6x16xf32>) -> tensor<2x6x4x4xf32>
    %3 = stablehlo.dot_general %0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x6x16xf32>) -> tensor<2x6x4x4xf32>
    %5 = stablehlo.dot_general %0, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %6 = stablehlo.reshape %5 : (tensor<2x6x16xf32>) -> tensor<2x6x4x4xf32>
    %7 = stablehlo.dot_general %2, %4, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x4x6x6xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x6x6xf32>
    %9 = stablehlo.divide %7, %8 : tensor<2x4x6x6xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %11 = call @tril(%10) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_0 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %12 = call @_where(%11, %9, %cst_0) : (tensor<6x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4x6xf32>
    %15 = stablehlo.maximum %14, %13 : tensor<2x4x6xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x1xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2, 3] : (tensor<2x4x6x1xf32>) -> tensor<2x4x6x6xf32>
    %18 = stablehlo.subtract %12, %17 : tensor<2x4x6x6xf32>
    %19 = stablehlo.exponential %18 : tensor<2x4x6x6xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2, 3] : (tensor<2x4x6x1xf32>) -> tensor<2x4x6x6xf32>
    %23 = stablehlo.divide %19, %22 : tensor<2x4x6x6xf32>
    %24 = stablehlo.dot_general %6, %23, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x4x4xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x4x6xf32>
    %25 = stablehlo.transpose %24, dims = [0, 3, 1, 2] : (tensor<2x4x4x6xf32>) -> tensor<2x6x4x4xf32>
    %26 = stablehlo.reshape %25 : (tensor<2x6x4x4xf32>) -> tensor<2x6x16xf32>
    %27 = stablehlo.dot_general %26, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %28 = stablehlo.add %arg12, %27 : tensor<2x6x16xf32>
    %29 = call @layer_norm(%28, %arg6, %arg7) : (tensor<2x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x6x16xf32>
    %30 = stablehlo.dot_general %29, %arg8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x32xf32>) -> tensor<2x6x32xf32>
    %31 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<32xf32>) -> tensor<1x1x32xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<1x1x32xf32>) -> tensor<2x6x32xf32>
    %33 = stablehlo.add %30, %32 : tensor<2x6x32xf32>
    %34 = stablehlo.multiply %33, %33 : tensor<2x6x32xf32>
    %35 = stablehlo.multiply %34, %33 : tensor<2x6x32xf32>
    %cst_4 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<2x6x32xf32>
    %38 = stablehlo.add %33, %37 : tensor<2x6x32xf32>
    %cst_5 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %40 = stablehlo.multiply %39, %38 : tensor<2x6x32xf32>
    %41 = stablehlo.tanh %40 : tensor<2x6x32xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %43 = stablehlo.add %42, %41 : tensor<2x6x32xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %45 = stablehlo.multiply %44, %43 : tensor<2x6x32xf32>
    %46 = stablehlo.multiply %33, %45 : tensor<2x6x32xf32>
    %47 = stablehlo.dot_general %46, %arg10, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x32xf32>, tensor<32x16xf32>) -> tensor<2x6x16xf32>
    %48 = stablehlo.add %28, %47 : tensor<2x6x16xf32>
    %49 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %51 = stablehlo.add %48, %50 : tensor<2x6x16xf32>
    %52 = stablehlo.subtract %51, %arg13 : tensor<2x6x16xf32>
    %53 = stablehlo.multiply %52, %52 : tensor<2x6x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_8) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_9 = stablehlo.constant dense<1.920000e+02> : tensor<f32>
    %55 = stablehlo.divide %54, %cst_9 : tensor<f32>
    return %55 : tensor<f32>
  }
  func.func private @layer_norm(%arg0: tensor<2x6x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x6x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x6x16xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<2x6x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x6x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<2x6x16xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<2x6x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<2x6x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<2x6x16xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<2x6x16xf32>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %23 = stablehlo.add %20, %22 : tensor<2x6x16xf32>
    return %23 : tensor<2x6x16xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where(%arg0: tensor<6x6xi1>, %arg1: tensor<2x4x6x6xf32>, %arg2: tensor<f32>) -> tensor<2x4x6x6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<6x6xi1>) -> tensor<2x4x6x6xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<2x4x6x6xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<2x4x6x6xi1>, tensor<2x4x6x6xf32>
    return %2 : tensor<2x4x6x6xf32>
  }
}
