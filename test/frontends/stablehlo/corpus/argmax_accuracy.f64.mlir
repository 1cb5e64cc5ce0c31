module @jit_classifier_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["batch"=1]> {stablehlo.mesh = {axes = [{name = "batch", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<6x4xf64> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<4xf64> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<8x6xf64> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {}]>}, %arg3: tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}]>}) -> (tensor<f64> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x6xf64>, tensor<6x4xf64>) -> tensor<8x4xf64>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf64>) -> tensor<1x4xf64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x4xf64>) -> tensor<8x4xf64>
    %3 = stablehlo.add %0, %2 : tensor<8x4xf64>
    %4 = call @log_softmax(%3) : (tensor<8x4xf64>) -> tensor<8x4xf64>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %6 = call @take_along_axis(%4, %5) : (tensor<8x4xf64>, tensor<8x1xi32>) -> tensor<8x1xf64>
    %7 = stablehlo.reshape %6 : (tensor<8x1xf64>) -> tensor<8xf64>
    %8 = stablehlo.negate %7 : tensor<8xf64>
    %9 = call @argmax(%3) : (tensor<8x4xf64>) -> tensor<8xi64>
    %10 = stablehlo.convert %arg3 : (tensor<8xi32>) -> tensor<8xi64>
    %11 = stablehlo.compare NE, %9, %10, SIGNED : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi1>
    %12 = stablehlo.convert %11 : (tensor<8xi1>) -> tensor<8xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %14 = stablehlo.add %13, %12 : tensor<8xf64>
    %15 = stablehlo.multiply %8, %14 : tensor<8xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %16 = stablehlo.reduce(%15 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<8xf64>, tensor<f64>) -> tensor<f64>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f64>
    %17 = stablehlo.divide %16, %cst_1 : tensor<f64>
    return %17 : tensor<f64>
  }
  func.func private @log_softmax(%arg0: tensor<8x4xf64>) -> tensor<8x4xf64> {
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x4xf64>, tensor<f64>) -> tensor<8xf64>
    %cst_0 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %2 = stablehlo.maximum %1, %0 : tensor<8xf64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf64>) -> tensor<8x1xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf64>) -> tensor<8x4xf64>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x4xf64>
    %6 = stablehlo.exponential %5 : tensor<8x4xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x4xf64>, tensor<f64>) -> tensor<8xf64>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf64>) -> tensor<8x1xf64>
    %9 = stablehlo.log %8 : tensor<8x1xf64>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x1xf64>) -> tensor<8x4xf64>
    %11 = stablehlo.subtract %5, %10 : tensor<8x4xf64>
    return %11 : tensor<8x4xf64>
  }
  func.func private @take_along_axis(%arg0: tensor<8x4xf64>, %arg1: tensor<8x1xi32>) -> tensor<8x1xf64> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<8x1xi1>, tensor<8x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<8x1xi32>) -> tensor<8x1x1xi32>
    %c_1 = stablehlo.constant dense<3> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<8x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<8x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<8x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<8x1x1xi1>, tensor<i1>) -> tensor<8x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<8x4xf64>, tensor<8x1x1xi32>) -> tensor<8x1xf64>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8x1xf64>
    %15 = stablehlo.select %12, %13, %14 : tensor<8x1xi1>, tensor<8x1xf64>
    return %15 : tensor<8x1xf64>
  }
  func.func private @argmax(%arg0: tensor<8x4xf64>) -> tensor<8xi64> {
    %0 = stablehlo.iota dim = 1 : tensor<8x4xi64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<8x4xf64>, tensor<8x4xi64>, tensor<f64>, tensor<i64>) -> (tensor<8xf64>, tensor<8xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<8xi64>
  }
}
