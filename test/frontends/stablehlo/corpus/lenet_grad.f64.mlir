module @jit_lenet_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x1x3x3xf64>, %arg1: tensor<4xf64>, %arg2: tensor<3x3x4x8xf64>, %arg3: tensor<8xf64>, %arg4: tensor<32x10xf64>, %arg5: tensor<10xf64>, %arg6: tensor<4x1x16x16xf64>, %arg7: tensor<4xi32>) -> (tensor<4x1x3x3xf64> {jax.result_info = "result[0]"}, tensor<4xf64> {jax.result_info = "result[1]"}, tensor<3x3x4x8xf64> {jax.result_info = "result[2]"}, tensor<8xf64> {jax.result_info = "result[3]"}, tensor<32x10xf64> {jax.result_info = "result[4]"}, tensor<10xf64> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.convolution(%arg6, %arg0) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf64>, tensor<4x1x3x3xf64>) -> tensor<4x4x16x16xf64>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf64>) -> tensor<1x4x1x1xf64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x4x1x1xf64>) -> tensor<4x4x16x16xf64>
    %3 = stablehlo.add %0, %2 : tensor<4x4x16x16xf64>
    %4 = call @relu(%3) : (tensor<4x4x16x16xf64>) -> tensor<4x4x16x16xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x4x16x16xf64>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<4x4x16x16xf64>, tensor<4x4x16x16xf64>) -> tensor<4x4x16x16xi1>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<f64>
    %8 = "stablehlo.reduce_window"(%4, %7) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg8: tensor<f64>, %arg9: tensor<f64>):
      %65 = stablehlo.maximum %arg8, %arg9 : tensor<f64>
      stablehlo.return %65 : tensor<f64>
    }) : (tensor<4x4x16x16xf64>, tensor<f64>) -> tensor<4x4x8x8xf64>
    %9 = stablehlo.transpose %8, dims = [0, 2, 3, 1] : (tensor<4x4x8x8xf64>) -> tensor<4x8x8x4xf64>
    %10 = stablehlo.convolution(%9, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf64>, tensor<3x3x4x8xf64>) -> tensor<4x4x4x8xf64>
    %11 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<8xf64>) -> tensor<1x1x1x8xf64>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf64>) -> tensor<4x4x4x8xf64>
    %13 = stablehlo.add %10, %12 : tensor<4x4x4x8xf64>
    %14 = stablehlo.tanh %13 : tensor<4x4x4x8xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x4x4x8xf64>
    %16 = stablehlo.subtract %15, %14 : tensor<4x4x4x8xf64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<f64>
    %18 = "stablehlo.reduce_window"(%14, %17) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg8: tensor<f64>, %arg9: tensor<f64>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f64>
      stablehlo.return %65 : tensor<f64>
    }) : (tensor<4x4x4x8xf64>, tensor<f64>) -> tensor<4x2x2x8xf64>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<4x2x2x8xf64>
    %20 = stablehlo.divide %18, %19 : tensor<4x2x2x8xf64>
    %21 = stablehlo.reshape %20 : (tensor<4x2x2x8xf64>) -> tensor<4x32xf64>
    %22 = stablehlo.dot_general %21, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x32xf64>, tensor<32x10xf64>) -> tensor<4x10xf64>
    %23 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<10xf64>) -> tensor<1x10xf64>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<1x10xf64>) -> tensor<4x10xf64>
    %25 = stablehlo.add %22, %24 : tensor<4x10xf64>
    %26:2 = call @log_softmax(%25) : (tensor<4x10xf64>) -> (tensor<4x10xf64>, tensor<4x1xf64>)
    %27 = stablehlo.broadcast_in_dim %arg7, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %28 = call @take_along_axis(%27) : (tensor<4x1xi32>) -> tensor<4x1x1xi32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %29 = stablehlo.negate %cst_4 : tensor<f64>
    %cst_5 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %30 = stablehlo.divide %29, %cst_5 : tensor<f64>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f64>) -> tensor<4x1xf64>
    %32 = call @take_along_axis_0(%28, %31) : (tensor<4x1x1xi32>, tensor<4x1xf64>) -> tensor<4x10xf64>
    %33 = call @log_softmax_1(%26#0, %26#1, %32) : (tensor<4x10xf64>, tensor<4x1xf64>, tensor<4x10xf64>) -> tensor<4x10xf64>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %34 = stablehlo.reduce(%33 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x10xf64>, tensor<f64>) -> tensor<10xf64>
    %35 = stablehlo.reshape %34 : (tensor<10xf64>) -> tensor<1x10xf64>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf64>, tensor<f64>) -> tensor<10xf64>
    %37 = stablehlo.dot_general %33, %21, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x10xf64>, tensor<4x32xf64>) -> tensor<10x32xf64>
    %38 = stablehlo.transpose %37, dims = [1, 0] : (tensor<10x32xf64>) -> tensor<32x10xf64>
    %39 = stablehlo.dot_general %33, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x10xf64>, tensor<32x10xf64>) -> tensor<4x32xf64>
    %40 = stablehlo.reshape %39 : (tensor<4x32xf64>) -> tensor<4x2x2x8xf64>
    %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %41 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f64>) -> tensor<4x2x2x8xf64>
    %42 = stablehlo.divide %40, %41 : tensor<4x2x2x8xf64>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %43 = stablehlo.pad %42, %cst_9, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<4x2x2x8xf64>, tensor<f64>) -> tensor<4x5x5x8xf64>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %44 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f64>) -> tensor<f64>
    %45 = "stablehlo.reduce_window"(%43, %44) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg8: tensor<f64>, %arg9: tensor<f64>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f64>
      stablehlo.return %65 : tensor<f64>
    }) : (tensor<4x5x5x8xf64>, tensor<f64>) -> tensor<4x4x4x8xf64>
    %46 = stablehlo.multiply %45, %16 : tensor<4x4x4x8xf64>
    %47 = stablehlo.multiply %46, %14 : tensor<4x4x4x8xf64>
    %48 = stablehlo.add %46, %47 : tensor<4x4x4x8xf64>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %49 = stablehlo.reduce(%48 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x4x4x8xf64>, tensor<f64>) -> tensor<8xf64>
    %50 = stablehlo.reshape %49 : (tensor<8xf64>) -> tensor<1x1x1x8xf64>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %51 = stablehlo.reduce(%50 init: %cst_12) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf64>, tensor<f64>) -> tensor<8xf64>
    %52 = stablehlo.convolution(%9, %48) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf64>, tensor<4x4x4x8xf64>) -> tensor<3x3x4x8xf64>
    %53 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x4x8xf64>
    %54 = stablehlo.convolution(%48, %53) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x8xf64>, tensor<3x3x4x8xf64>) -> tensor<4x8x8x4xf64>
    %55 = stablehlo.transpose %54, dims = [0, 3, 1, 2] : (tensor<4x8x8x4xf64>) -> tensor<4x4x8x8xf64>
    %cst_13 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %56 = stablehlo.pad %4, %cst_13, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<4x4x16x16xf64>, tensor<f64>) -> tensor<4x4x16x16xf64>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %57 = "stablehlo.select_and_scatter"(%56, %55, %cst_14) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg8: tensor<f64>, %arg9: tensor<f64>):
      %65 = stablehlo.compare GE, %arg8, %arg9, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      stablehlo.return %65 : tensor<i1>
    }, {
    ^bb0(%arg8: tensor<f64>, %arg9: tensor<f64>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f64>
      stablehlo.return %65 : tensor<f64>
    }) : (tensor<4x4x16x16xf64>, tensor<4x4x8x8xf64>, tensor<f64>) -> tensor<4x4x16x16xf64>
    %58 = stablehlo.slice %57 [0:4, 0:4, 0:16, 0:16] : (tensor<4x4x16x16xf64>) -> tensor<4x4x16x16xf64>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %59 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f64>) -> tensor<4x4x16x16xf64>
    %60 = stablehlo.select %6, %58, %59 : tensor<4x4x16x16xi1>, tensor<4x4x16x16xf64>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %61 = stablehlo.reduce(%60 init: %cst_16) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x4x16x16xf64>, tensor<f64>) -> tensor<4xf64>
    %62 = stablehlo.reshape %61 : (tensor<4xf64>) -> tensor<1x4x1x1xf64>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %63 = stablehlo.reduce(%62 init: %cst_17) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x4x1x1xf64>, tensor<f64>) -> tensor<4xf64>
    %64 = stablehlo.convolution(%arg6, %60) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf64>, tensor<4x4x16x16xf64>) -> tensor<4x1x3x3xf64>
    return %64, %63, %52, %51, %38, %36 : tensor<4x1x3x3xf64>, tensor<4xf64>, tensor<3x3x4x8xf64>, tensor<8xf64>, tensor<32x10xf64>, tensor<10xf64>
  }
  func.func private @relu(%arg0: tensor<4x4x16x16xf64>) -> tensor<4x4x16x16xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x4x16x16xf64>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x4x16x16xf64>
    return %1 : tensor<4x4x16x16xf64>
  }
  func.func private @log_softmax(%arg0: tensor<4x10xf64>) -> (tensor<4x10xf64>, tensor<4x1xf64>) {
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x10xf64>, tensor<f64>) -> tensor<4xf64>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %2 = stablehlo.maximum %1, %0 : tensor<4xf64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xf64>) -> tensor<4x1xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf64>) -> tensor<4x10xf64>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x10xf64>
    %6 = stablehlo.exponential %5 : tensor<4x10xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf64>, tensor<f64>) -> tensor<4xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf64>) -> tensor<4x1xf64>
    return %6, %8 : tensor<4x10xf64>, tensor<4x1xf64>
  }
  func.func private @take_along_axis(%arg0: tensor<4x1xi32>) -> tensor<4x1x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
    %1 = stablehlo.compare LT, %arg0, %0, SIGNED : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
    %3 = stablehlo.add %arg0, %2 : tensor<4x1xi32>
    %4 = stablehlo.select %1, %3, %arg0 : tensor<4x1xi1>, tensor<4x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<4x1xi32>) -> tensor<4x1x1xi32>
    return %5 : tensor<4x1x1xi32>
  }
  func.func private @take_along_axis_0(%arg0: tensor<4x1x1xi32>, %arg1: tensor<4x1xf64>) -> tensor<4x10xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x10xf64>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f64>, %arg3: tensor<f64>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f64>
      stablehlo.return %2 : tensor<f64>
    }) : (tensor<4x10xf64>, tensor<4x1x1xi32>, tensor<4x1xf64>) -> tensor<4x10xf64>
    return %1 : tensor<4x10xf64>
  }
  func.func private @log_softmax_1(%arg0: tensor<4x10xf64>, %arg1: tensor<4x1xf64>, %arg2: tensor<4x10xf64>) -> tensor<4x10xf64> {
    %0 = stablehlo.negate %arg2 : tensor<4x10xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf64>, tensor<f64>) -> tensor<4xf64>
    %2 = stablehlo.reshape %1 : (tensor<4xf64>) -> tensor<4x1xf64>
    %3 = stablehlo.divide %2, %arg1 : tensor<4x1xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x1xf64>, tensor<f64>) -> tensor<4xf64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xf64>) -> tensor<4x10xf64>
    %6 = stablehlo.multiply %5, %arg0 : tensor<4x10xf64>
    %7 = stablehlo.add %arg2, %6 : tensor<4x10xf64>
    return %7 : tensor<4x10xf64>
  }
}
