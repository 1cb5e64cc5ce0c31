module @jit_node_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<4x3xf32>, %arg4: tensor<4x3xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1, %iterArg_2 = %arg2, %iterArg_3 = %c, %iterArg_4 = %arg3) : tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<i32>, tensor<4x3xf32>
    cond {
      %c_5 = stablehlo.constant dense<10> : tensor<i32>
      %5 = stablehlo.compare LT, %iterArg_3, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @closed_call(%iterArg, %iterArg_1, %iterArg_2, %iterArg_4) : (tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_3, %c_5 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %6, %5 : tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<i32>, tensor<4x3xf32>
    }
    %1 = stablehlo.subtract %0#4, %arg4 : tensor<4x3xf32>
    %2 = stablehlo.multiply %1, %1 : tensor<4x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
    %4 = stablehlo.divide %3, %cst_0 : tensor<f32>
    return %4 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.dot_general %arg3, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %3 = stablehlo.add %0, %2 : tensor<4x8xf32>
    %4 = stablehlo.tanh %3 : tensor<4x8xf32>
    %5 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<4x3xf32>
    %8 = stablehlo.add %arg3, %7 : tensor<4x3xf32>
    %9 = stablehlo.dot_general %8, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %12 = stablehlo.add %9, %11 : tensor<4x8xf32>
    %13 = stablehlo.tanh %12 : tensor<4x8xf32>
    %14 = stablehlo.dot_general %13, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<4x3xf32>
    %17 = stablehlo.add %arg3, %16 : tensor<4x3xf32>
    %18 = stablehlo.dot_general %17, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %21 = stablehlo.add %18, %20 : tensor<4x8xf32>
    %22 = stablehlo.tanh %21 : tensor<4x8xf32>
    %23 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %25 = stablehlo.multiply %24, %23 : tensor<4x3xf32>
    %26 = stablehlo.add %arg3, %25 : tensor<4x3xf32>
    %27 = stablehlo.dot_general %26, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %28 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %30 = stablehlo.add %27, %29 : tensor<4x8xf32>
    %31 = stablehlo.tanh %30 : tensor<4x8xf32>
    %32 = stablehlo.dot_general %31, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %34 = stablehlo.multiply %33, %14 : tensor<4x3xf32>
    %35 = stablehlo.add %5, %34 : tensor<4x3xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %37 = stablehlo.multiply %36, %23 : tensor<4x3xf32>
    %38 = stablehlo.add %35, %37 : tensor<4x3xf32>
    %39 = stablehlo.add %38, %32 : tensor<4x3xf32>
    %cst_4 = stablehlo.constant dense<0.0166666675> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %41 = stablehlo.multiply %40, %39 : tensor<4x3xf32>
    %42 = stablehlo.add %arg3, %41 : tensor<4x3xf32>
    return %42 : tensor<4x3xf32>
  }
}
