module @jit_lenet_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x1x3x3xf32>, %arg1: tensor<4xf32>, %arg2: tensor<3x3x4x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<32x10xf32>, %arg5: tensor<10xf32>, %arg6: tensor<4x1x16x16xf32>, %arg7: tensor<4xi32>) -> (tensor<4x1x3x3xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<3x3x4x8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<32x10xf32> {jax.result_info = "result[4]"}, tensor<10xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.convolution(%arg6, %arg0) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf32>, tensor<4x1x3x3xf32>) -> tensor<4x4x16x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x4x1x1xf32>) -> tensor<4x4x16x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x4x16x16xf32>
    %4 = call @relu(%3) : (tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x16x16xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<4x4x16x16xf32>, tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %8 = "stablehlo.reduce_window"(%4, %7) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %65 = stablehlo.maximum %arg8, %arg9 : tensor<f32>
      stablehlo.return %65 : tensor<f32>
    }) : (tensor<4x4x16x16xf32>, tensor<f32>) -> tensor<4x4x8x8xf32>
    %9 = stablehlo.transpose %8, dims = [0, 2, 3, 1] : (tensor<4x4x8x8xf32>) -> tensor<4x8x8x4xf32>
    %10 = stablehlo.convolution(%9, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf32>, tensor<3x3x4x8xf32>) -> tensor<4x4x4x8xf32>
    %11 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<4x4x4x8xf32>
    %13 = stablehlo.add %10, %12 : tensor<4x4x4x8xf32>
    %14 = stablehlo.tanh %13 : tensor<4x4x4x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4x4x8xf32>
    %16 = stablehlo.subtract %15, %14 : tensor<4x4x4x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%14, %17) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f32>
      stablehlo.return %65 : tensor<f32>
    }) : (tensor<4x4x4x8xf32>, tensor<f32>) -> tensor<4x2x2x8xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x2x2x8xf32>
    %20 = stablehlo.divide %18, %19 : tensor<4x2x2x8xf32>
    %21 = stablehlo.reshape %20 : (tensor<4x2x2x8xf32>) -> tensor<4x32xf32>
    %22 = stablehlo.dot_general %21, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
    %23 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<4x10xf32>
    %25 = stablehlo.add %22, %24 : tensor<4x10xf32>
    %26:2 = call @log_softmax(%25) : (tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x1xf32>)
    %27 = stablehlo.broadcast_in_dim %arg7, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %28 = call @take_along_axis(%27) : (tensor<4x1xi32>) -> tensor<4x1x1xi32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.negate %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %30 = stablehlo.divide %29, %cst_5 : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %32 = call @take_along_axis_0(%28, %31) : (tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x10xf32>
    %33 = call @log_softmax_1(%26#0, %26#1, %32) : (tensor<4x10xf32>, tensor<4x1xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x10xf32>, tensor<f32>) -> tensor<10xf32>
    %35 = stablehlo.reshape %34 : (tensor<10xf32>) -> tensor<1x10xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf32>, tensor<f32>) -> tensor<10xf32>
    %37 = stablehlo.dot_general %33, %21, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x10xf32>, tensor<4x32xf32>) -> tensor<10x32xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0] : (tensor<10x32xf32>) -> tensor<32x10xf32>
    %39 = stablehlo.dot_general %33, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x10xf32>, tensor<32x10xf32>) -> tensor<4x32xf32>
    %40 = stablehlo.reshape %39 : (tensor<4x32xf32>) -> tensor<4x2x2x8xf32>
    %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x2x2x8xf32>
    %42 = stablehlo.divide %40, %41 : tensor<4x2x2x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.pad %42, %cst_9, low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 1, 1, 0] : (tensor<4x2x2x8xf32>, tensor<f32>) -> tensor<4x5x5x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<f32>
    %45 = "stablehlo.reduce_window"(%43, %44) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f32>
      stablehlo.return %65 : tensor<f32>
    }) : (tensor<4x5x5x8xf32>, tensor<f32>) -> tensor<4x4x4x8xf32>
    %46 = stablehlo.multiply %45, %16 : tensor<4x4x4x8xf32>
    %47 = stablehlo.multiply %46, %14 : tensor<4x4x4x8xf32>
    %48 = stablehlo.add %46, %47 : tensor<4x4x4x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x4x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %50 = stablehlo.reshape %49 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%50 init: %cst_12) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %52 = stablehlo.convolution(%9, %48) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x8x8x4xf32>, tensor<4x4x4x8xf32>) -> tensor<3x3x4x8xf32>
    %53 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x4x8xf32>
    %54 = stablehlo.convolution(%48, %53) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x4x4x8xf32>, tensor<3x3x4x8xf32>) -> tensor<4x8x8x4xf32>
    %55 = stablehlo.transpose %54, dims = [0, 3, 1, 2] : (tensor<4x8x8x4xf32>) -> tensor<4x4x8x8xf32>
    %cst_13 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %56 = stablehlo.pad %4, %cst_13, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<4x4x16x16xf32>, tensor<f32>) -> tensor<4x4x16x16xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = "stablehlo.select_and_scatter"(%56, %55, %cst_14) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %65 = stablehlo.compare GE, %arg8, %arg9, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %65 : tensor<i1>
    }, {
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %65 = stablehlo.add %arg8, %arg9 : tensor<f32>
      stablehlo.return %65 : tensor<f32>
    }) : (tensor<4x4x16x16xf32>, tensor<4x4x8x8xf32>, tensor<f32>) -> tensor<4x4x16x16xf32>
    %58 = stablehlo.slice %57 [0:4, 0:4, 0:16, 0:16] : (tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4x4x16x16xf32>
    %60 = stablehlo.select %6, %58, %59 : tensor<4x4x16x16xi1>, tensor<4x4x16x16xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.reduce(%60 init: %cst_16) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x4x16x16xf32>, tensor<f32>) -> tensor<4xf32>
    %62 = stablehlo.reshape %61 : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.reduce(%62 init: %cst_17) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<1x4x1x1xf32>, tensor<f32>) -> tensor<4xf32>
    %64 = stablehlo.convolution(%arg6, %60) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x1x16x16xf32>, tensor<4x4x16x16xf32>) -> tensor<4x1x3x3xf32>
    return %64, %63, %52, %51, %38, %36 : tensor<4x1x3x3xf32>, tensor<4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>, tensor<32x10xf32>, tensor<10xf32>
  }
  func.func private @relu(%arg0: tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4x16x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x4x16x16xf32>
    return %1 : tensor<4x4x16x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<4xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x10xf32>
    %6 = stablehlo.exponential %5 : tensor<4x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    return %6, %8 : tensor<4x10xf32>, tensor<4x1xf32>
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
  func.func private @take_along_axis_0(%arg0: tensor<4x1x1xi32>, %arg1: tensor<4x1xf32>) -> tensor<4x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4x10xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x10xf32>
    return %1 : tensor<4x10xf32>
  }
  func.func private @log_softmax_1(%arg0: tensor<4x10xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<4x10xf32>) -> tensor<4x10xf32> {
    %0 = stablehlo.negate %arg2 : tensor<4x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.reshape %1 : (tensor<4xf32>) -> tensor<4x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<4x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x1xf32>, tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xf32>) -> tensor<4x10xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<4x10xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<4x10xf32>
    return %7 : tensor<4x10xf32>
  }
}
