module @jit_logsumexp_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf32>, %arg1: tensor<6x5xf32>, %arg2: tensor<6xi32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x5xf32>, tensor<5x7xf32>) -> tensor<6x7xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %2 = call @take_along_axis(%0, %1) : (tensor<6x7xf32>, tensor<6x1xi32>) -> tensor<6x1xf32>
    %3 = stablehlo.reshape %2 : (tensor<6x1xf32>) -> tensor<6xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %6 = stablehlo.maximum %5, %4 : tensor<6xf32>
    %7 = stablehlo.is_finite %6 : (tensor<6xf32>) -> tensor<6xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %9 = stablehlo.select %7, %6, %8 : tensor<6xi1>, tensor<6xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x7xf32>
    %12 = stablehlo.subtract %0, %11 : tensor<6x7xf32>
    %13 = stablehlo.exponential %12 : tensor<6x7xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %15 = stablehlo.abs %14 : tensor<6xf32>
    %16 = stablehlo.log %15 : tensor<6xf32>
    %17 = stablehlo.add %16, %9 : tensor<6xf32>
    %18 = stablehlo.subtract %17, %3 : tensor<6xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %20 = stablehlo.divide %19, %cst_4 : tensor<f32>
    return %20 : tensor<f32>
  }
  func.func private @take_along_axis(%arg0: tensor<6x7xf32>, %arg1: tensor<6x1xi32>) -> tensor<6x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi1>
    %c_0 = stablehlo.constant dense<7> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<6x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<6x1xi1>, tensor<6x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<6x1xi32>) -> tensor<6x1x1xi32>
    %c_1 = stablehlo.constant dense<6> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<6x1x1xi32>, tensor<6x1x1xi32>) -> tensor<6x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<6x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<6x1x1xi32>, tensor<6x1x1xi32>) -> tensor<6x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<6x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<6x1x1xi1>, tensor<i1>) -> tensor<6x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x7xf32>, tensor<6x1x1xi32>) -> tensor<6x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<6x1xi1>, tensor<6x1xf32>
    return %15 : tensor<6x1xf32>
  }
}
