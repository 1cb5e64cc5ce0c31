module @jit_scatter_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x4xf64>, %arg1: tensor<4x4xf64>, %arg2: tensor<6xi32>, %arg3: tensor<6xi32>, %arg4: tensor<6xi32>) -> (tensor<7x4xf64> {jax.result_info = "result[0]"}, tensor<4x4xf64> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1 = stablehlo.compare LT, %arg2, %0, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_0 = stablehlo.constant dense<7> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %3 = stablehlo.add %arg2, %2 : tensor<6xi32>
    %4 = stablehlo.select %1, %3, %arg2 : tensor<6xi1>, tensor<6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<7x4xf64>, tensor<6x1xi32>) -> tensor<6x4xf64>
    %7 = stablehlo.dot_general %6, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x4xf64>, tensor<4x4xf64>) -> tensor<6x4xf64>
    %8 = stablehlo.tanh %7 : tensor<6x4xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<6x4xf64>
    %10 = stablehlo.subtract %9, %8 : tensor<6x4xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<7x4xf64>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %13 = stablehlo.compare LT, %arg3, %12, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_3 = stablehlo.constant dense<7> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %15 = stablehlo.add %arg3, %14 : tensor<6xi32>
    %16 = stablehlo.select %13, %15, %arg3 : tensor<6xi1>, tensor<6xi32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %18 = "stablehlo.scatter"(%11, %17, %8) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f64>, %arg6: tensor<f64>):
      %78 = stablehlo.add %arg5, %arg6 : tensor<f64>
      stablehlo.return %78 : tensor<f64>
    }) : (tensor<7x4xf64>, tensor<6x1xi32>, tensor<6x4xf64>) -> tensor<7x4xf64>
    %19 = stablehlo.slice %6 [0:6, 0:1] : (tensor<6x4xf64>) -> tensor<6x1xf64>
    %20 = stablehlo.reshape %19 : (tensor<6x1xf64>) -> tensor<6xf64>
    %21 = stablehlo.multiply %20, %20 : tensor<6xf64>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<6xf64>
    %23 = stablehlo.multiply %22, %20 : tensor<6xf64>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %25 = stablehlo.compare LT, %arg3, %24, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_6 = stablehlo.constant dense<7> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %27 = stablehlo.add %arg3, %26 : tensor<6xi32>
    %28 = stablehlo.select %25, %27, %arg3 : tensor<6xi1>, tensor<6xi32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %30 = stablehlo.compare LT, %arg4, %29, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %c_8 = stablehlo.constant dense<4> : tensor<i32>
    %31 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %32 = stablehlo.add %arg4, %31 : tensor<6xi32>
    %33 = stablehlo.select %30, %32, %arg4 : tensor<6xi1>, tensor<6xi32>
    %34 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %35 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %36 = stablehlo.concatenate %34, %35, dim = 1 : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x2xi32>
    %37 = "stablehlo.scatter"(%18, %36, %21) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f64>, %arg6: tensor<f64>):
      %78 = stablehlo.add %arg5, %arg6 : tensor<f64>
      stablehlo.return %78 : tensor<f64>
    }) : (tensor<7x4xf64>, tensor<6x2xi32>, tensor<6xf64>) -> tensor<7x4xf64>
    %38 = stablehlo.add %arg0, %37 : tensor<7x4xf64>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %39 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f64>) -> tensor<7x4xf64>
    %40 = stablehlo.multiply %39, %38 : tensor<7x4xf64>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %cst_11 = stablehlo.constant dense<7.000000e+00> : tensor<f64>
    %41 = stablehlo.divide %cst_10, %cst_11 : tensor<f64>
    %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<f64>) -> tensor<7x4xf64>
    %43 = stablehlo.multiply %42, %40 : tensor<7x4xf64>
    %c_12 = stablehlo.constant dense<[6, 3]> : tensor<2xi32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %44 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<6x2xi32>
    %45 = stablehlo.compare GE, %36, %44, SIGNED : (tensor<6x2xi32>, tensor<6x2xi32>) -> tensor<6x2xi1>
    %46 = stablehlo.broadcast_in_dim %c_12, dims = [1] : (tensor<2xi32>) -> tensor<1x2xi32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1] : (tensor<1x2xi32>) -> tensor<6x2xi32>
    %48 = stablehlo.compare LE, %36, %47, SIGNED : (tensor<6x2xi32>, tensor<6x2xi32>) -> tensor<6x2xi1>
    %49 = stablehlo.and %45, %48 : tensor<6x2xi1>
    %c_14 = stablehlo.constant dense<true> : tensor<i1>
    %50 = stablehlo.reduce(%49 init: %c_14) applies stablehlo.and across dimensions = [1] : (tensor<6x2xi1>, tensor<i1>) -> tensor<6xi1>
    %51 = "stablehlo.gather"(%43, %36) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<7x4xf64>, tensor<6x2xi32>) -> tensor<6xf64>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %52 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f64>) -> tensor<6xf64>
    %53 = stablehlo.select %50, %51, %52 : tensor<6xi1>, tensor<6xf64>
    %54 = stablehlo.multiply %53, %23 : tensor<6xf64>
    %55 = stablehlo.broadcast_in_dim %54, dims = [0] : (tensor<6xf64>) -> tensor<6x1xf64>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %56 = stablehlo.pad %55, %cst_16, low = [0, 0], high = [0, 3], interior = [0, 0] : (tensor<6x1xf64>, tensor<f64>) -> tensor<6x4xf64>
    %c_17 = stablehlo.constant dense<6> : tensor<1xi32>
    %c_18 = stablehlo.constant dense<0> : tensor<i32>
    %57 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<i32>) -> tensor<6x1xi32>
    %58 = stablehlo.compare GE, %17, %57, SIGNED : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi1>
    %59 = stablehlo.broadcast_in_dim %c_17, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<6x1xi32>
    %61 = stablehlo.compare LE, %17, %60, SIGNED : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x1xi1>
    %62 = stablehlo.and %58, %61 : tensor<6x1xi1>
    %c_19 = stablehlo.constant dense<true> : tensor<i1>
    %63 = stablehlo.reduce(%62 init: %c_19) applies stablehlo.and across dimensions = [1] : (tensor<6x1xi1>, tensor<i1>) -> tensor<6xi1>
    %64 = "stablehlo.gather"(%43, %17) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<7x4xf64>, tensor<6x1xi32>) -> tensor<6x4xf64>
    %65 = stablehlo.broadcast_in_dim %63, dims = [0] : (tensor<6xi1>) -> tensor<6x4xi1>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %66 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f64>) -> tensor<6x4xf64>
    %67 = stablehlo.select %65, %64, %66 : tensor<6x4xi1>, tensor<6x4xf64>
    %68 = stablehlo.multiply %67, %10 : tensor<6x4xf64>
    %69 = stablehlo.multiply %68, %8 : tensor<6x4xf64>
    %70 = stablehlo.add %68, %69 : tensor<6x4xf64>
    %71 = stablehlo.dot_general %70, %6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x4xf64>, tensor<6x4xf64>) -> tensor<4x4xf64>
    %72 = stablehlo.transpose %71, dims = [1, 0] : (tensor<4x4xf64>) -> tensor<4x4xf64>
    %73 = stablehlo.dot_general %70, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x4xf64>, tensor<4x4xf64>) -> tensor<6x4xf64>
    %74 = stablehlo.add %56, %73 : tensor<6x4xf64>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %75 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f64>) -> tensor<7x4xf64>
    %76 = "stablehlo.scatter"(%75, %5, %74) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg5: tensor<f64>, %arg6: tensor<f64>):
      %78 = stablehlo.add %arg5, %arg6 : tensor<f64>
      stablehlo.return %78 : tensor<f64>
    }) : (tensor<7x4xf64>, tensor<6x1xi32>, tensor<6x4xf64>) -> tensor<7x4xf64>
    %77 = stablehlo.add %43, %76 : tensor<7x4xf64>
    return %77, %72 : tensor<7x4xf64>, tensor<4x4xf64>
  }
}
