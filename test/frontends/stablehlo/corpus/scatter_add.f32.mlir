module @jit_scatter_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<6xi32>, %arg3: tensor<6xi32>, %arg4: tensor<6xi32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1 = stablehlo.compare LT, %arg2, %0, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_0 = stablehlo.constant dense<7> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %3 = stablehlo.add %arg2, %2 : tensor<6xi32>
    %4 = stablehlo.select %1, %3, %arg2 : tensor<6xi1>, tensor<6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<7x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
    %7 = stablehlo.dot_general %6, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
    %8 = stablehlo.tanh %7 : tensor<6x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x4xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %11 = stablehlo.compare LT, %arg3, %10, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_2 = stablehlo.constant dense<7> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %13 = stablehlo.add %arg3, %12 : tensor<6xi32>
    %14 = stablehlo.select %11, %13, %arg3 : tensor<6xi1>, tensor<6xi32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %16 = "stablehlo.scatter"(%9, %15, %8) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %38 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %38 : tensor<f32>
    }) : (tensor<7x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<7x4xf32>
    %17 = stablehlo.slice %6 [0:6, 0:1] : (tensor<6x4xf32>) -> tensor<6x1xf32>
    %18 = stablehlo.reshape %17 : (tensor<6x1xf32>) -> tensor<6xf32>
    %19 = stablehlo.multiply %18, %18 : tensor<6xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %21 = stablehlo.compare LT, %arg3, %20, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_4 = stablehlo.constant dense<7> : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %23 = stablehlo.add %arg3, %22 : tensor<6xi32>
    %24 = stablehlo.select %21, %23, %arg3 : tensor<6xi1>, tensor<6xi32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %26 = stablehlo.compare LT, %arg4, %25, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_6 = stablehlo.constant dense<4> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %28 = stablehlo.add %arg4, %27 : tensor<6xi32>
    %29 = stablehlo.select %26, %28, %arg4 : tensor<6xi1>, tensor<6xi32>
    %30 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %31 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %32 = stablehlo.concatenate %30, %31, dim = 1 : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x2xi32>
    %33 = "stablehlo.scatter"(%16, %32, %19) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %38 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %38 : tensor<f32>
    }) : (tensor<7x4xf32>, tensor<6x2xi32>, tensor<6xf32>) -> tensor<7x4xf32>
    %34 = stablehlo.add %arg0, %33 : tensor<7x4xf32>
    %35 = stablehlo.multiply %34, %34 : tensor<7x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<7x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_8 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %37 = stablehlo.divide %36, %cst_8 : tensor<f32>
    return %37 : tensor<f32>
  }
}
