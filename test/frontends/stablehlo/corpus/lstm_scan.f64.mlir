module @jit_lstm_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20x8xf64>, %arg1: tensor<8x32xf64>, %arg2: tensor<8x32xf64>, %arg3: tensor<32xf64>, %arg4: tensor<8x5xf64>, %arg5: tensor<5xf64>, %arg6: tensor<3x6xi32>, %arg7: tensor<3xi32>) -> (tensor<f64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x6xi32>
    %1 = stablehlo.compare LT, %arg6, %0, SIGNED : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
    %c_0 = stablehlo.constant dense<20> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x6xi32>
    %3 = stablehlo.add %arg6, %2 : tensor<3x6xi32>
    %4 = stablehlo.select %1, %3, %arg6 : tensor<3x6xi1>, tensor<3x6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<3x6xi32>) -> tensor<3x6x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<20x8xf64>, tensor<3x6x1xi32>) -> tensor<3x6x8xf64>
    %7 = stablehlo.transpose %6, dims = [1, 0, 2] : (tensor<3x6x8xf64>) -> tensor<6x3x8xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<6x3x8xf64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %10:8 = stablehlo.while(%iterArg = %7, %iterArg_8 = %arg1, %iterArg_9 = %arg2, %iterArg_10 = %arg3, %iterArg_11 = %c_2, %iterArg_12 = %8, %iterArg_13 = %8, %iterArg_14 = %9) : tensor<6x3x8xf64>, tensor<8x32xf64>, tensor<8x32xf64>, tensor<32xf64>, tensor<i64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<6x3x8xf64>
    cond {
      %c_15 = stablehlo.constant dense<6> : tensor<i64>
      %26 = stablehlo.compare LT, %iterArg_11, %c_15, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %26 : tensor<i1>
    } do {
      %26 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_11) : (tensor<6x3x8xf64>, tensor<i64>) -> tensor<3x8xf64>
      %27:3 = func.call @closed_call(%iterArg_8, %iterArg_9, %iterArg_10, %iterArg_12, %iterArg_13, %26) : (tensor<8x32xf64>, tensor<8x32xf64>, tensor<32xf64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>) -> (tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>)
      %28 = func.call @dynamic_update_index_in_dim(%iterArg_14, %27#2, %iterArg_11) : (tensor<6x3x8xf64>, tensor<3x8xf64>, tensor<i64>) -> tensor<6x3x8xf64>
      %c_15 = stablehlo.constant dense<1> : tensor<i64>
      %29 = stablehlo.add %iterArg_11, %c_15 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_8, %iterArg_9, %iterArg_10, %29, %27#0, %27#1, %28 : tensor<6x3x8xf64>, tensor<8x32xf64>, tensor<8x32xf64>, tensor<32xf64>, tensor<i64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<6x3x8xf64>
    }
    %11 = stablehlo.dot_general %10#5, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8xf64>, tensor<8x5xf64>) -> tensor<3x5xf64>
    %12 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<5xf64>) -> tensor<1x5xf64>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x5xf64>) -> tensor<3x5xf64>
    %14 = stablehlo.add %11, %13 : tensor<3x5xf64>
    %15 = call @log_softmax(%14) : (tensor<3x5xf64>) -> tensor<3x5xf64>
    %16 = stablehlo.broadcast_in_dim %arg7, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %17 = call @take_along_axis(%15, %16) : (tensor<3x5xf64>, tensor<3x1xi32>) -> tensor<3x1xf64>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %18 = stablehlo.reduce(%17 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x1xf64>, tensor<f64>) -> tensor<f64>
    %cst_4 = stablehlo.constant dense<3.000000e+00> : tensor<f64>
    %19 = stablehlo.divide %18, %cst_4 : tensor<f64>
    %20 = stablehlo.negate %19 : tensor<f64>
    %21 = stablehlo.multiply %10#7, %10#7 : tensor<6x3x8xf64>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %22 = stablehlo.reduce(%21 init: %cst_5) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<6x3x8xf64>, tensor<f64>) -> tensor<f64>
    %cst_6 = stablehlo.constant dense<1.440000e+02> : tensor<f64>
    %23 = stablehlo.divide %22, %cst_6 : tensor<f64>
    %cst_7 = stablehlo.constant dense<1.000000e-02> : tensor<f64>
    %24 = stablehlo.multiply %cst_7, %23 : tensor<f64>
    %25 = stablehlo.add %20, %24 : tensor<f64>
    return %25 : tensor<f64>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x3x8xf64>, %arg1: tensor<i64>) -> tensor<3x8xf64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 3, 8] : (tensor<6x3x8xf64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x3x8xf64>
    %1 = stablehlo.reshape %0 : (tensor<1x3x8xf64>) -> tensor<3x8xf64>
    return %1 : tensor<3x8xf64>
  }
  func.func private @closed_call(%arg0: tensor<8x32xf64>, %arg1: tensor<8x32xf64>, %arg2: tensor<32xf64>, %arg3: tensor<3x8xf64>, %arg4: tensor<3x8xf64>, %arg5: tensor<3x8xf64>) -> (tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>) {
    %0 = stablehlo.concatenate %arg5, %arg3, dim = 1 : (tensor<3x8xf64>, tensor<3x8xf64>) -> tensor<3x16xf64>
    %1 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<8x32xf64>, tensor<8x32xf64>) -> tensor<16x32xf64>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x16xf64>, tensor<16x32xf64>) -> tensor<3x32xf64>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<32xf64>) -> tensor<1x32xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x32xf64>) -> tensor<3x32xf64>
    %5 = stablehlo.add %2, %4 : tensor<3x32xf64>
    %6 = stablehlo.slice %5 [0:3, 0:8] : (tensor<3x32xf64>) -> tensor<3x8xf64>
    %7 = stablehlo.slice %5 [0:3, 8:16] : (tensor<3x32xf64>) -> tensor<3x8xf64>
    %8 = stablehlo.slice %5 [0:3, 16:24] : (tensor<3x32xf64>) -> tensor<3x8xf64>
    %9 = stablehlo.slice %5 [0:3, 24:32] : (tensor<3x32xf64>) -> tensor<3x8xf64>
    %10 = stablehlo.negate %7 : tensor<3x8xf64>
    %11 = stablehlo.exponential %10 : tensor<3x8xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %13 = stablehlo.add %12, %11 : tensor<3x8xf64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %15 = stablehlo.divide %14, %13 : tensor<3x8xf64>
    %16 = stablehlo.multiply %15, %arg4 : tensor<3x8xf64>
    %17 = stablehlo.negate %6 : tensor<3x8xf64>
    %18 = stablehlo.exponential %17 : tensor<3x8xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %20 = stablehlo.add %19, %18 : tensor<3x8xf64>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %22 = stablehlo.divide %21, %20 : tensor<3x8xf64>
    %23 = stablehlo.tanh %8 : tensor<3x8xf64>
    %24 = stablehlo.multiply %22, %23 : tensor<3x8xf64>
    %25 = stablehlo.add %16, %24 : tensor<3x8xf64>
    %26 = stablehlo.negate %9 : tensor<3x8xf64>
    %27 = stablehlo.exponential %26 : tensor<3x8xf64>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %29 = stablehlo.add %28, %27 : tensor<3x8xf64>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<3x8xf64>
    %31 = stablehlo.divide %30, %29 : tensor<3x8xf64>
    %32 = stablehlo.tanh %25 : tensor<3x8xf64>
    %33 = stablehlo.multiply %31, %32 : tensor<3x8xf64>
    return %33, %25, %33 : tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x3x8xf64>, %arg1: tensor<3x8xf64>, %arg2: tensor<i64>) -> tensor<6x3x8xf64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x8xf64>) -> tensor<1x3x8xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<6x3x8xf64>, tensor<1x3x8xf64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x3x8xf64>
    return %1 : tensor<6x3x8xf64>
  }
  func.func private @log_softmax(%arg0: tensor<3x5xf64>) -> tensor<3x5xf64> {
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5xf64>, tensor<f64>) -> tensor<3xf64>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %2 = stablehlo.maximum %1, %0 : tensor<3xf64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x5xf64>
    %5 = stablehlo.subtract %arg0, %4 : tensor<3x5xf64>
    %6 = stablehlo.exponential %5 : tensor<3x5xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf64>, tensor<f64>) -> tensor<3xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %9 = stablehlo.log %8 : tensor<3x1xf64>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x5xf64>
    %11 = stablehlo.subtract %5, %10 : tensor<3x5xf64>
    return %11 : tensor<3x5xf64>
  }
  func.func private @take_along_axis(%arg0: tensor<3x5xf64>, %arg1: tensor<3x1xi32>) -> tensor<3x1xf64> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<3x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<3x1xi1>, tensor<3x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<3x1xi32>) -> tensor<3x1x1xi32>
    %c_1 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<3x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<3x1x1xi32>, tensor<3x1x1xi32>) -> tensor<3x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<3x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<3x1x1xi1>, tensor<i1>) -> tensor<3x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<3x5xf64>, tensor<3x1x1xi32>) -> tensor<3x1xf64>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x1xf64>
    %15 = stablehlo.select %12, %13, %14 : tensor<3x1xi1>, tensor<3x1xf64>
    return %15 : tensor<3x1xf64>
  }
}
