module @jit_node_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<4x3xf32>, %arg4: tensor<4x3xf32>) -> (tensor<3x8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8x3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10x4x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5:9 = stablehlo.while(%iterArg = %arg0, %iterArg_7 = %0, %iterArg_8 = %arg2, %iterArg_9 = %1, %iterArg_10 = %2, %iterArg_11 = %3, %iterArg_12 = %c, %iterArg_13 = %arg3, %iterArg_14 = %4) : tensor<3x8xf32>, tensor<1x8xf32>, tensor<8x3xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<4x3xf32>, tensor<10x4x3xf32>
    cond {
      %c_15 = stablehlo.constant dense<10> : tensor<i32>
      %16 = stablehlo.compare LT, %iterArg_12, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %16:2 = func.call @closed_call(%iterArg, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_13) : (tensor<3x8xf32>, tensor<1x8xf32>, tensor<8x3xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
      %17 = func.call @dynamic_update_index_in_dim(%iterArg_14, %16#1, %iterArg_12) : (tensor<10x4x3xf32>, tensor<4x3xf32>, tensor<i32>) -> tensor<10x4x3xf32>
      %c_15 = stablehlo.constant dense<1> : tensor<i32>
      %18 = stablehlo.add %iterArg_12, %c_15 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %18, %16#0, %17 : tensor<3x8xf32>, tensor<1x8xf32>, tensor<8x3xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<4x3xf32>, tensor<10x4x3xf32>
    }
    %6 = stablehlo.subtract %5#7, %arg4 : tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
    %9 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<4x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x3xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %15:9 = stablehlo.while(%iterArg = %5#8, %iterArg_7 = %arg0, %iterArg_8 = %arg1, %iterArg_9 = %arg2, %iterArg_10 = %c_6, %iterArg_11 = %12, %iterArg_12 = %13, %iterArg_13 = %14, %iterArg_14 = %11) : tensor<10x4x3xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<i32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>
    cond {
      %c_15 = stablehlo.constant dense<10> : tensor<i32>
      %16 = stablehlo.compare LT, %iterArg_10, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %c_15 = stablehlo.constant dense<10> : tensor<i32>
      %16 = stablehlo.subtract %c_15, %iterArg_10 : tensor<i32>
      %c_16 = stablehlo.constant dense<1> : tensor<i32>
      %17 = stablehlo.subtract %16, %c_16 : tensor<i32>
      %18 = func.call @dynamic_index_in_dim(%iterArg, %17) : (tensor<10x4x3xf32>, tensor<i32>) -> tensor<4x3xf32>
      %19:4 = func.call @closed_call_0(%iterArg_7, %iterArg_8, %iterArg_9, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %18) : (tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>)
      %c_17 = stablehlo.constant dense<1> : tensor<i32>
      %20 = stablehlo.add %iterArg_10, %c_17 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_7, %iterArg_8, %iterArg_9, %20, %19#0, %19#1, %19#2, %19#3 : tensor<10x4x3xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<i32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>
    }
    return %15#5, %15#6, %15#7 : tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x8xf32>, %arg1: tensor<1x8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<1x8xf32>, %arg4: tensor<1x8xf32>, %arg5: tensor<1x8xf32>, %arg6: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x8xf32>
    %3 = stablehlo.tanh %2 : tensor<4x8xf32>
    %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<4x3xf32>
    %7 = stablehlo.add %arg6, %6 : tensor<4x3xf32>
    %8 = stablehlo.dot_general %7, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %9 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %10 = stablehlo.add %8, %9 : tensor<4x8xf32>
    %11 = stablehlo.tanh %10 : tensor<4x8xf32>
    %12 = stablehlo.dot_general %11, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %14 = stablehlo.multiply %13, %12 : tensor<4x3xf32>
    %15 = stablehlo.add %arg6, %14 : tensor<4x3xf32>
    %16 = stablehlo.dot_general %15, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %17 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %18 = stablehlo.add %16, %17 : tensor<4x8xf32>
    %19 = stablehlo.tanh %18 : tensor<4x8xf32>
    %20 = stablehlo.dot_general %19, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %22 = stablehlo.multiply %21, %20 : tensor<4x3xf32>
    %23 = stablehlo.add %arg6, %22 : tensor<4x3xf32>
    %24 = stablehlo.dot_general %23, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %25 = stablehlo.broadcast_in_dim %arg5, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %26 = stablehlo.add %24, %25 : tensor<4x8xf32>
    %27 = stablehlo.tanh %26 : tensor<4x8xf32>
    %28 = stablehlo.dot_general %27, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %30 = stablehlo.multiply %29, %12 : tensor<4x3xf32>
    %31 = stablehlo.add %4, %30 : tensor<4x3xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %33 = stablehlo.multiply %32, %20 : tensor<4x3xf32>
    %34 = stablehlo.add %31, %33 : tensor<4x3xf32>
    %35 = stablehlo.add %34, %28 : tensor<4x3xf32>
    %cst_4 = stablehlo.constant dense<0.0166666675> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<4x3xf32>
    %38 = stablehlo.add %arg6, %37 : tensor<4x3xf32>
    return %38, %arg6 : tensor<4x3xf32>, tensor<4x3xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10x4x3xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<i32>) -> tensor<10x4x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<10x4x3xf32>, tensor<1x4x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<10x4x3xf32>
    return %1 : tensor<10x4x3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10x4x3xf32>, %arg1: tensor<i32>) -> tensor<4x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 4, 3] : (tensor<10x4x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4x3xf32>) -> tensor<4x3xf32>
    return %1 : tensor<4x3xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<3x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<3x8xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8x3xf32>, %arg6: tensor<4x3xf32>, %arg7: tensor<4x3xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>) {
    %0:5 = stablehlo.optimization_barrier %arg0, %arg1, %arg2, %arg7, %arg6 : tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
    %1 = stablehlo.dot_general %0#3, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %4 = stablehlo.add %1, %3 : tensor<4x8xf32>
    %5 = stablehlo.tanh %4 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<4x8xf32>
    %8 = stablehlo.dot_general %5, %0#2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %10 = stablehlo.multiply %9, %8 : tensor<4x3xf32>
    %11 = stablehlo.add %0#3, %10 : tensor<4x3xf32>
    %12 = stablehlo.dot_general %11, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %13 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %15 = stablehlo.add %12, %14 : tensor<4x8xf32>
    %16 = stablehlo.tanh %15 : tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %18 = stablehlo.subtract %17, %16 : tensor<4x8xf32>
    %19 = stablehlo.dot_general %16, %0#2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %21 = stablehlo.multiply %20, %19 : tensor<4x3xf32>
    %22 = stablehlo.add %0#3, %21 : tensor<4x3xf32>
    %23 = stablehlo.dot_general %22, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %24 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %26 = stablehlo.add %23, %25 : tensor<4x8xf32>
    %27 = stablehlo.tanh %26 : tensor<4x8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %29 = stablehlo.subtract %28, %27 : tensor<4x8xf32>
    %30 = stablehlo.dot_general %27, %0#2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %cst_4 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %32 = stablehlo.multiply %31, %30 : tensor<4x3xf32>
    %33 = stablehlo.add %0#3, %32 : tensor<4x3xf32>
    %34 = stablehlo.dot_general %33, %0#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %35 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<4x8xf32>
    %37 = stablehlo.add %34, %36 : tensor<4x8xf32>
    %38 = stablehlo.tanh %37 : tensor<4x8xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %40 = stablehlo.subtract %39, %38 : tensor<4x8xf32>
    %cst_6 = stablehlo.constant dense<0.0166666675> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %42 = stablehlo.multiply %41, %0#4 : tensor<4x3xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %44 = stablehlo.multiply %43, %42 : tensor<4x3xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %46 = stablehlo.multiply %45, %42 : tensor<4x3xf32>
    %47 = stablehlo.dot_general %42, %38, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %48 = stablehlo.transpose %47, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %49 = stablehlo.dot_general %42, %0#2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
    %50 = stablehlo.multiply %49, %40 : tensor<4x8xf32>
    %51 = stablehlo.multiply %50, %38 : tensor<4x8xf32>
    %52 = stablehlo.add %50, %51 : tensor<4x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %54 = stablehlo.reshape %53 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.reduce(%54 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %56 = stablehlo.dot_general %52, %33, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %57 = stablehlo.transpose %56, dims = [1, 0] : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %58 = stablehlo.dot_general %52, %0#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
    %59 = stablehlo.add %0#4, %58 : tensor<4x3xf32>
    %cst_11 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %61 = stablehlo.multiply %60, %58 : tensor<4x3xf32>
    %62 = stablehlo.add %44, %61 : tensor<4x3xf32>
    %63 = stablehlo.dot_general %62, %27, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %64 = stablehlo.transpose %63, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %65 = stablehlo.add %48, %64 : tensor<8x3xf32>
    %66 = stablehlo.dot_general %62, %0#2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
    %67 = stablehlo.multiply %66, %29 : tensor<4x8xf32>
    %68 = stablehlo.multiply %67, %27 : tensor<4x8xf32>
    %69 = stablehlo.add %67, %68 : tensor<4x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %71 = stablehlo.reshape %70 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_13) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %73 = stablehlo.add %55, %72 : tensor<8xf32>
    %74 = stablehlo.dot_general %69, %22, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %75 = stablehlo.transpose %74, dims = [1, 0] : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %76 = stablehlo.add %57, %75 : tensor<3x8xf32>
    %77 = stablehlo.dot_general %69, %0#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
    %78 = stablehlo.add %59, %77 : tensor<4x3xf32>
    %cst_14 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %80 = stablehlo.multiply %79, %77 : tensor<4x3xf32>
    %81 = stablehlo.add %46, %80 : tensor<4x3xf32>
    %82 = stablehlo.dot_general %81, %16, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %83 = stablehlo.transpose %82, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %84 = stablehlo.add %65, %83 : tensor<8x3xf32>
    %85 = stablehlo.dot_general %81, %0#2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
    %86 = stablehlo.multiply %85, %18 : tensor<4x8xf32>
    %87 = stablehlo.multiply %86, %16 : tensor<4x8xf32>
    %88 = stablehlo.add %86, %87 : tensor<4x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.reduce(%88 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %90 = stablehlo.reshape %89 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = stablehlo.reduce(%90 init: %cst_16) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %92 = stablehlo.add %73, %91 : tensor<8xf32>
    %93 = stablehlo.dot_general %88, %11, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %94 = stablehlo.transpose %93, dims = [1, 0] : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %95 = stablehlo.add %76, %94 : tensor<3x8xf32>
    %96 = stablehlo.dot_general %88, %0#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
    %97 = stablehlo.add %78, %96 : tensor<4x3xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %99 = stablehlo.multiply %98, %96 : tensor<4x3xf32>
    %100 = stablehlo.add %42, %99 : tensor<4x3xf32>
    %101 = stablehlo.dot_general %100, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x8xf32>) -> tensor<3x8xf32>
    %102 = stablehlo.transpose %101, dims = [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %103 = stablehlo.add %84, %102 : tensor<8x3xf32>
    %104 = stablehlo.dot_general %100, %0#2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<8x3xf32>) -> tensor<4x8xf32>
    %105 = stablehlo.multiply %104, %7 : tensor<4x8xf32>
    %106 = stablehlo.multiply %105, %5 : tensor<4x8xf32>
    %107 = stablehlo.add %105, %106 : tensor<4x8xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %108 = stablehlo.reduce(%107 init: %cst_18) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %109 = stablehlo.reshape %108 : (tensor<8xf32>) -> tensor<1x8xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %110 = stablehlo.reduce(%109 init: %cst_19) applies stablehlo.add across dimensions = [0] : (tensor<1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %111 = stablehlo.add %92, %110 : tensor<8xf32>
    %112 = stablehlo.dot_general %107, %0#3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
    %113 = stablehlo.transpose %112, dims = [1, 0] : (tensor<8x3xf32>) -> tensor<3x8xf32>
    %114 = stablehlo.add %95, %113 : tensor<3x8xf32>
    %115 = stablehlo.dot_general %107, %0#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x3xf32>
    %116 = stablehlo.add %97, %115 : tensor<4x3xf32>
    %117 = stablehlo.add %arg3, %114 : tensor<3x8xf32>
    %118 = stablehlo.add %arg4, %111 : tensor<8xf32>
    %119 = stablehlo.add %arg5, %103 : tensor<8x3xf32>
    return %117, %118, %119, %116 : tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>
  }
}
