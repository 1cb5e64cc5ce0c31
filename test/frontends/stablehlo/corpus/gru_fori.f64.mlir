module @jit_gru_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x18xf64>, %arg1: tensor<6x18xf64>, %arg2: tensor<18xf64>, %arg3: tensor<6x2xf64>, %arg4: tensor<4x5x3xf64>, %arg5: tensor<4x2xf64>) -> (tensor<f64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1:7 = stablehlo.while(%iterArg = %arg4, %iterArg_3 = %arg0, %iterArg_4 = %arg2, %iterArg_5 = %arg1, %iterArg_6 = %c_0, %iterArg_7 = %c, %iterArg_8 = %0) : tensor<4x5x3xf64>, tensor<3x18xf64>, tensor<18xf64>, tensor<6x18xf64>, tensor<i64>, tensor<i64>, tensor<4x6xf64>
    cond {
      %c_9 = stablehlo.constant dense<5> : tensor<i64>
      %7 = stablehlo.compare LT, %iterArg_6, %c_9, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:2 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4, %iterArg_5, %iterArg_7, %iterArg_8) : (tensor<4x5x3xf64>, tensor<3x18xf64>, tensor<18xf64>, tensor<6x18xf64>, tensor<i64>, tensor<4x6xf64>) -> (tensor<i64>, tensor<4x6xf64>)
      %c_9 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg_6, %c_9 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_3, %iterArg_4, %iterArg_5, %8, %7#0, %7#1 : tensor<4x5x3xf64>, tensor<3x18xf64>, tensor<18xf64>, tensor<6x18xf64>, tensor<i64>, tensor<i64>, tensor<4x6xf64>
    }
    %2 = stablehlo.dot_general %1#6, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x2xf64>) -> tensor<4x2xf64>
    %3 = stablehlo.subtract %2, %arg5 : tensor<4x2xf64>
    %4 = stablehlo.multiply %3, %3 : tensor<4x2xf64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %5 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2xf64>, tensor<f64>) -> tensor<f64>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f64>
    %6 = stablehlo.divide %5, %cst_2 : tensor<f64>
    return %6 : tensor<f64>
  }
  func.func private @closed_call(%arg0: tensor<4x5x3xf64>, %arg1: tensor<3x18xf64>, %arg2: tensor<18xf64>, %arg3: tensor<6x18xf64>, %arg4: tensor<i64>, %arg5: tensor<4x6xf64>) -> (tensor<i64>, tensor<4x6xf64>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg4, %c : tensor<i64>
    %1 = call @dynamic_index_in_dim(%arg0, %arg4) : (tensor<4x5x3xf64>, tensor<i64>) -> tensor<4x3xf64>
    %2 = stablehlo.dot_general %1, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x18xf64>) -> tensor<4x18xf64>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<18xf64>) -> tensor<1x18xf64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x18xf64>) -> tensor<4x18xf64>
    %5 = stablehlo.add %2, %4 : tensor<4x18xf64>
    %6 = stablehlo.slice %5 [0:4, 0:6] : (tensor<4x18xf64>) -> tensor<4x6xf64>
    %7 = stablehlo.slice %5 [0:4, 6:12] : (tensor<4x18xf64>) -> tensor<4x6xf64>
    %8 = stablehlo.slice %5 [0:4, 12:18] : (tensor<4x18xf64>) -> tensor<4x6xf64>
    %9 = stablehlo.slice %arg3 [0:6, 0:6] : (tensor<6x18xf64>) -> tensor<6x6xf64>
    %10 = stablehlo.slice %arg3 [0:6, 6:12] : (tensor<6x18xf64>) -> tensor<6x6xf64>
    %11 = stablehlo.slice %arg3 [0:6, 12:18] : (tensor<6x18xf64>) -> tensor<6x6xf64>
    %12 = stablehlo.dot_general %arg5, %9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x6xf64>) -> tensor<4x6xf64>
    %13 = stablehlo.add %6, %12 : tensor<4x6xf64>
    %14 = stablehlo.negate %13 : tensor<4x6xf64>
    %15 = stablehlo.exponential %14 : tensor<4x6xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %17 = stablehlo.add %16, %15 : tensor<4x6xf64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %18 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %19 = stablehlo.divide %18, %17 : tensor<4x6xf64>
    %20 = stablehlo.dot_general %arg5, %10, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x6xf64>) -> tensor<4x6xf64>
    %21 = stablehlo.add %7, %20 : tensor<4x6xf64>
    %22 = stablehlo.negate %21 : tensor<4x6xf64>
    %23 = stablehlo.exponential %22 : tensor<4x6xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %24 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %25 = stablehlo.add %24, %23 : tensor<4x6xf64>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %26 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %27 = stablehlo.divide %26, %25 : tensor<4x6xf64>
    %28 = stablehlo.multiply %27, %arg5 : tensor<4x6xf64>
    %29 = stablehlo.dot_general %28, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf64>, tensor<6x6xf64>) -> tensor<4x6xf64>
    %30 = stablehlo.add %8, %29 : tensor<4x6xf64>
    %31 = stablehlo.tanh %30 : tensor<4x6xf64>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %32 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<4x6xf64>
    %33 = stablehlo.subtract %32, %19 : tensor<4x6xf64>
    %34 = stablehlo.multiply %33, %arg5 : tensor<4x6xf64>
    %35 = stablehlo.multiply %19, %31 : tensor<4x6xf64>
    %36 = stablehlo.add %34, %35 : tensor<4x6xf64>
    return %0, %36 : tensor<i64>, tensor<4x6xf64>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x5x3xf64>, %arg1: tensor<i64>) -> tensor<4x3xf64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %1 = stablehlo.convert %arg1 : tensor<i64>
    %c_0 = stablehlo.constant dense<5> : tensor<i64>
    %2 = stablehlo.add %1, %c_0 : tensor<i64>
    %3 = stablehlo.select %0, %2, %arg1 : tensor<i1>, tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %4 = stablehlo.dynamic_slice %arg0, %c_1, %3, %c_2, sizes = [4, 1, 3] : (tensor<4x5x3xf64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4x1x3xf64>
    %5 = stablehlo.reshape %4 : (tensor<4x1x3xf64>) -> tensor<4x3xf64>
    return %5 : tensor<4x3xf64>
  }
}
