module @jit_node_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf64>, %arg1: tensor<8xf64>, %arg2: tensor<8x3xf64>, %arg3: tensor<4x3xf64>, %arg4: tensor<4x3xf64>) -> (tensor<f64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0:5 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1, %iterArg_2 = %arg2, %iterArg_3 = %c, %iterArg_4 = %arg3) : tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<i64>, tensor<4x3xf64>
    cond {
      %c_5 = stablehlo.constant dense<10> : tensor<i64>
      %5 = stablehlo.compare LT, %iterArg_3, %c_5, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @closed_call(%iterArg, %iterArg_1, %iterArg_2, %iterArg_4) : (tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
      %c_5 = stablehlo.constant dense<1> : tensor<i64>
      %6 = stablehlo.add %iterArg_3, %c_5 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %6, %5 : tensor<3x8xf64>, tensor<8xf64>, tensor<8x3xf64>, tensor<i64>, tensor<4x3xf64>
    }
    %1 = stablehlo.subtract %0#4, %arg4 : tensor<4x3xf64>
    %2 = stablehlo.multiply %1, %1 : tensor<4x3xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf64>, tensor<f64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<1.200000e+01> : tensor<f64>
    %4 = stablehlo.divide %3, %cst_0 : tensor<f64>
    return %4 : tensor<f64>
  }
  func.func private @closed_call(%arg0: tensor<3x8xf64>, %arg1: tensor<8xf64>, %arg2: tensor<8x3xf64>, %arg3: tensor<4x3xf64>) -> tensor<4x3xf64> {
    %0 = stablehlo.dot_general %arg3, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x8xf64>) -> tensor<4x8xf64>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf64>) -> tensor<1x8xf64>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf64>) -> tensor<4x8xf64>
    %3 = stablehlo.add %0, %2 : tensor<4x8xf64>
    %4 = stablehlo.tanh %3 : tensor<4x8xf64>
    %5 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %cst = stablehlo.constant dense<5.000000e-02> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %7 = stablehlo.multiply %6, %5 : tensor<4x3xf64>
    %8 = stablehlo.add %arg3, %7 : tensor<4x3xf64>
    %9 = stablehlo.dot_general %8, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x8xf64>) -> tensor<4x8xf64>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf64>) -> tensor<1x8xf64>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x8xf64>) -> tensor<4x8xf64>
    %12 = stablehlo.add %9, %11 : tensor<4x8xf64>
    %13 = stablehlo.tanh %12 : tensor<4x8xf64>
    %14 = stablehlo.dot_general %13, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %cst_0 = stablehlo.constant dense<5.000000e-02> : tensor<f64>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %16 = stablehlo.multiply %15, %14 : tensor<4x3xf64>
    %17 = stablehlo.add %arg3, %16 : tensor<4x3xf64>
    %18 = stablehlo.dot_general %17, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x8xf64>) -> tensor<4x8xf64>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf64>) -> tensor<1x8xf64>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x8xf64>) -> tensor<4x8xf64>
    %21 = stablehlo.add %18, %20 : tensor<4x8xf64>
    %22 = stablehlo.tanh %21 : tensor<4x8xf64>
    %23 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f64>
    %24 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %25 = stablehlo.multiply %24, %23 : tensor<4x3xf64>
    %26 = stablehlo.add %arg3, %25 : tensor<4x3xf64>
    %27 = stablehlo.dot_general %26, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf64>, tensor<3x8xf64>) -> tensor<4x8xf64>
    %28 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf64>) -> tensor<1x8xf64>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x8xf64>) -> tensor<4x8xf64>
    %30 = stablehlo.add %27, %29 : tensor<4x8xf64>
    %31 = stablehlo.tanh %30 : tensor<4x8xf64>
    %32 = stablehlo.dot_general %31, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf64>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %33 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %34 = stablehlo.multiply %33, %14 : tensor<4x3xf64>
    %35 = stablehlo.add %5, %34 : tensor<4x3xf64>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %36 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %37 = stablehlo.multiply %36, %23 : tensor<4x3xf64>
    %38 = stablehlo.add %35, %37 : tensor<4x3xf64>
    %39 = stablehlo.add %38, %32 : tensor<4x3xf64>
    %cst_4 = stablehlo.constant dense<0.016666666666666666> : tensor<f64>
    %40 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<4x3xf64>
    %41 = stablehlo.multiply %40, %39 : tensor<4x3xf64>
    %42 = stablehlo.add %arg3, %41 : tensor<4x3xf64>
    return %42 : tensor<4x3xf64>
  }
}
