module @jit_lstm_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20x8xf32>, %arg1: tensor<8x32xf32>, %arg2: tensor<8x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<8x5xf32>, %arg5: tensor<5xf32>, %arg6: tensor<3x6xi32>, %arg7: tensor<3xi32>) -> (tensor<20x8xf32> {jax.result_info = "result[0]"}, tensor<8x32xf32> {jax.result_info = "result[1]"}, tensor<8x32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<8x5xf32> {jax.result_info = "result[4]"}, tensor<5xf32> {jax.result_info = "result[5]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x6xi32>
    %1 = stablehlo.compare LT, %arg6, %0, SIGNED : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
    %c_0 = stablehlo.constant dense<20> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x6xi32>
    %3 = stablehlo.add %arg6, %2 : tensor<3x6xi32>
    %4 = stablehlo.select %1, %3, %arg6 : tensor<3x6xi1>, tensor<3x6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<3x6xi32>) -> tensor<3x6x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<20x8xf32>, tensor<3x6x1xi32>) -> tensor<3x6x8xf32>
    %7 = stablehlo.transpose %6, dims = [1, 0, 2] : (tensor<3x6x8xf32>) -> tensor<6x3x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %9 = stablehlo.concatenate %arg1, %arg2, dim = 0 : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
    %10 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x3x16xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %24:19 = stablehlo.while(%iterArg = %7, %iterArg_30 = %9, %iterArg_31 = %10, %iterArg_32 = %c_14, %iterArg_33 = %8, %iterArg_34 = %8, %iterArg_35 = %11, %iterArg_36 = %12, %iterArg_37 = %13, %iterArg_38 = %14, %iterArg_39 = %15, %iterArg_40 = %16, %iterArg_41 = %17, %iterArg_42 = %18, %iterArg_43 = %19, %iterArg_44 = %20, %iterArg_45 = %21, %iterArg_46 = %22, %iterArg_47 = %23) : tensor<6x3x8xf32>, tensor<16x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x16xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>
    cond {
      %c_48 = stablehlo.constant dense<6> : tensor<i32>
      %58 = stablehlo.compare LT, %iterArg_32, %c_48, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %58 : tensor<i1>
    } do {
      %58 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_32) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %59:15 = func.call @closed_call(%iterArg_30, %iterArg_31, %iterArg_33, %iterArg_34, %58) : (tensor<16x32xf32>, tensor<1x32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
      %60 = func.call @dynamic_update_index_in_dim(%iterArg_35, %59#2, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %61 = func.call @dynamic_update_index_in_dim_0(%iterArg_36, %59#3, %iterArg_32) : (tensor<6x3x16xf32>, tensor<3x16xf32>, tensor<i32>) -> tensor<6x3x16xf32>
      %62 = func.call @dynamic_update_index_in_dim(%iterArg_37, %59#4, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %63 = func.call @dynamic_update_index_in_dim(%iterArg_38, %59#5, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %64 = func.call @dynamic_update_index_in_dim(%iterArg_39, %59#6, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %65 = func.call @dynamic_update_index_in_dim(%iterArg_40, %59#7, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %66 = func.call @dynamic_update_index_in_dim(%iterArg_41, %59#8, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %67 = func.call @dynamic_update_index_in_dim(%iterArg_42, %59#9, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %68 = func.call @dynamic_update_index_in_dim(%iterArg_43, %59#10, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %69 = func.call @dynamic_update_index_in_dim(%iterArg_44, %59#11, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %70 = func.call @dynamic_update_index_in_dim(%iterArg_45, %59#12, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %71 = func.call @dynamic_update_index_in_dim(%iterArg_46, %59#13, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %72 = func.call @dynamic_update_index_in_dim(%iterArg_47, %59#14, %iterArg_32) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %c_48 = stablehlo.constant dense<1> : tensor<i32>
      %73 = stablehlo.add %iterArg_32, %c_48 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_30, %iterArg_31, %73, %59#0, %59#1, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72 : tensor<6x3x8xf32>, tensor<16x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x16xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>
    }
    %25 = stablehlo.dot_general %24#4, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x8xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
    %26 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<3x5xf32>
    %28 = stablehlo.add %25, %27 : tensor<3x5xf32>
    %29:2 = call @log_softmax(%28) : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x1xf32>)
    %30 = stablehlo.broadcast_in_dim %arg7, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %31 = call @take_along_axis(%30) : (tensor<3x1xi32>) -> tensor<3x1x1xi32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %33 = stablehlo.multiply %32, %24#6 : tensor<6x3x8xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.multiply %cst_16, %cst_17 : tensor<f32>
    %cst_18 = stablehlo.constant dense<1.440000e+02> : tensor<f32>
    %35 = stablehlo.divide %34, %cst_18 : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %37 = stablehlo.multiply %36, %33 : tensor<6x3x8xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = stablehlo.negate %cst_19 : tensor<f32>
    %cst_20 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %39 = stablehlo.divide %38, %cst_20 : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %41 = call @take_along_axis_1(%31, %40) : (tensor<3x1x1xi32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    %42 = call @log_softmax_2(%29#0, %29#1, %41) : (tensor<3x5xf32>, tensor<3x1xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.reduce(%42 init: %cst_21) applies stablehlo.add across dimensions = [0] : (tensor<3x5xf32>, tensor<f32>) -> tensor<5xf32>
    %44 = stablehlo.reshape %43 : (tensor<5xf32>) -> tensor<1x5xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.reduce(%44 init: %cst_22) applies stablehlo.add across dimensions = [0] : (tensor<1x5xf32>, tensor<f32>) -> tensor<5xf32>
    %46 = stablehlo.dot_general %42, %24#4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
    %47 = stablehlo.transpose %46, dims = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
    %48 = stablehlo.dot_general %42, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<8x5xf32>) -> tensor<3x8xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<6x3x8xf32>
    %c_28 = stablehlo.constant dense<0> : tensor<i32>
    %54:21 = stablehlo.while(%iterArg = %37, %iterArg_30 = %24#7, %iterArg_31 = %24#8, %iterArg_32 = %24#9, %iterArg_33 = %24#10, %iterArg_34 = %24#11, %iterArg_35 = %24#12, %iterArg_36 = %24#13, %iterArg_37 = %24#14, %iterArg_38 = %24#15, %iterArg_39 = %24#16, %iterArg_40 = %24#17, %iterArg_41 = %24#18, %iterArg_42 = %9, %iterArg_43 = %c_28, %iterArg_44 = %50, %iterArg_45 = %51, %iterArg_46 = %52, %iterArg_47 = %48, %iterArg_48 = %49, %iterArg_49 = %53) : tensor<6x3x8xf32>, tensor<6x3x16xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<16x32xf32>, tensor<i32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<6x3x8xf32>
    cond {
      %c_50 = stablehlo.constant dense<6> : tensor<i32>
      %58 = stablehlo.compare LT, %iterArg_43, %c_50, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %58 : tensor<i1>
    } do {
      %c_50 = stablehlo.constant dense<6> : tensor<i32>
      %58 = stablehlo.subtract %c_50, %iterArg_43 : tensor<i32>
      %c_51 = stablehlo.constant dense<1> : tensor<i32>
      %59 = stablehlo.subtract %58, %c_51 : tensor<i32>
      %60 = func.call @dynamic_index_in_dim(%iterArg, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %61 = func.call @dynamic_index_in_dim_3(%iterArg_30, %59) : (tensor<6x3x16xf32>, tensor<i32>) -> tensor<3x16xf32>
      %62 = func.call @dynamic_index_in_dim(%iterArg_31, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %63 = func.call @dynamic_index_in_dim(%iterArg_32, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %64 = func.call @dynamic_index_in_dim(%iterArg_33, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %65 = func.call @dynamic_index_in_dim(%iterArg_34, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %66 = func.call @dynamic_index_in_dim(%iterArg_35, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %67 = func.call @dynamic_index_in_dim(%iterArg_36, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %68 = func.call @dynamic_index_in_dim(%iterArg_37, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %69 = func.call @dynamic_index_in_dim(%iterArg_38, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %70 = func.call @dynamic_index_in_dim(%iterArg_39, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %71 = func.call @dynamic_index_in_dim(%iterArg_40, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %72 = func.call @dynamic_index_in_dim(%iterArg_41, %59) : (tensor<6x3x8xf32>, tensor<i32>) -> tensor<3x8xf32>
      %73:6 = func.call @closed_call_4(%iterArg_42, %iterArg_44, %iterArg_45, %iterArg_46, %iterArg_47, %iterArg_48, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72) : (tensor<16x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
      %74 = func.call @dynamic_update_index_in_dim(%iterArg_49, %73#5, %59) : (tensor<6x3x8xf32>, tensor<3x8xf32>, tensor<i32>) -> tensor<6x3x8xf32>
      %c_52 = stablehlo.constant dense<1> : tensor<i32>
      %75 = stablehlo.add %iterArg_43, %c_52 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %iterArg_38, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %75, %73#0, %73#1, %73#2, %73#3, %73#4, %74 : tensor<6x3x8xf32>, tensor<6x3x16xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<6x3x8xf32>, tensor<16x32xf32>, tensor<i32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<6x3x8xf32>
    }
    %55 = stablehlo.transpose %54#20, dims = [1, 0, 2] : (tensor<6x3x8xf32>) -> tensor<3x6x8xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<20x8xf32>
    %57 = "stablehlo.scatter"(%56, %5, %55) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %58 = stablehlo.add %arg8, %arg9 : tensor<f32>
      stablehlo.return %58 : tensor<f32>
    }) : (tensor<20x8xf32>, tensor<3x6x1xi32>, tensor<3x6x8xf32>) -> tensor<20x8xf32>
    return %57, %54#15, %54#16, %54#17, %47, %45 : tensor<20x8xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<8x5xf32>, tensor<5xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x3x8xf32>, %arg1: tensor<i32>) -> tensor<3x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 3, 8] : (tensor<6x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3x8xf32>) -> tensor<3x8xf32>
    return %1 : tensor<3x8xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x32xf32>, %arg1: tensor<1x32xf32>, %arg2: tensor<3x8xf32>, %arg3: tensor<3x8xf32>, %arg4: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) {
    %0 = stablehlo.concatenate %arg4, %arg2, dim = 1 : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x16xf32>
    %1 = stablehlo.dot_general %0, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x16xf32>, tensor<16x32xf32>) -> tensor<3x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<3x32xf32>
    %3 = stablehlo.add %1, %2 : tensor<3x32xf32>
    %4 = stablehlo.slice %3 [0:3, 0:8] : (tensor<3x32xf32>) -> tensor<3x8xf32>
    %5 = stablehlo.slice %3 [0:3, 8:16] : (tensor<3x32xf32>) -> tensor<3x8xf32>
    %6 = stablehlo.slice %3 [0:3, 16:24] : (tensor<3x32xf32>) -> tensor<3x8xf32>
    %7 = stablehlo.slice %3 [0:3, 24:32] : (tensor<3x32xf32>) -> tensor<3x8xf32>
    %8 = stablehlo.negate %5 : tensor<3x8xf32>
    %9 = stablehlo.exponential %8 : tensor<3x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %11 = stablehlo.add %10, %9 : tensor<3x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %13 = stablehlo.divide %12, %11 : tensor<3x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %15 = stablehlo.subtract %14, %13 : tensor<3x8xf32>
    %16 = stablehlo.multiply %13, %15 : tensor<3x8xf32>
    %17 = stablehlo.multiply %13, %arg3 : tensor<3x8xf32>
    %18 = stablehlo.negate %4 : tensor<3x8xf32>
    %19 = stablehlo.exponential %18 : tensor<3x8xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %21 = stablehlo.add %20, %19 : tensor<3x8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %23 = stablehlo.divide %22, %21 : tensor<3x8xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %25 = stablehlo.subtract %24, %23 : tensor<3x8xf32>
    %26 = stablehlo.multiply %23, %25 : tensor<3x8xf32>
    %27 = stablehlo.tanh %6 : tensor<3x8xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %29 = stablehlo.subtract %28, %27 : tensor<3x8xf32>
    %30 = stablehlo.multiply %23, %27 : tensor<3x8xf32>
    %31 = stablehlo.add %17, %30 : tensor<3x8xf32>
    %32 = stablehlo.negate %7 : tensor<3x8xf32>
    %33 = stablehlo.exponential %32 : tensor<3x8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %35 = stablehlo.add %34, %33 : tensor<3x8xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %37 = stablehlo.divide %36, %35 : tensor<3x8xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %39 = stablehlo.subtract %38, %37 : tensor<3x8xf32>
    %40 = stablehlo.multiply %37, %39 : tensor<3x8xf32>
    %41 = stablehlo.tanh %31 : tensor<3x8xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %43 = stablehlo.subtract %42, %41 : tensor<3x8xf32>
    %44 = stablehlo.multiply %37, %41 : tensor<3x8xf32>
    return %44, %31, %44, %0, %16, %arg3, %13, %26, %27, %29, %23, %40, %41, %43, %37 : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x16xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x3x8xf32>, %arg1: tensor<3x8xf32>, %arg2: tensor<i32>) -> tensor<6x3x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x8xf32>) -> tensor<1x3x8xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<6x3x8xf32>, tensor<1x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x3x8xf32>
    return %1 : tensor<6x3x8xf32>
  }
  func.func private @dynamic_update_index_in_dim_0(%arg0: tensor<6x3x16xf32>, %arg1: tensor<3x16xf32>, %arg2: tensor<i32>) -> tensor<6x3x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x16xf32>) -> tensor<1x3x16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<6x3x16xf32>, tensor<1x3x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x3x16xf32>
    return %1 : tensor<6x3x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<3xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<3x5xf32>
    %6 = stablehlo.exponential %5 : tensor<3x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    return %6, %8 : tensor<3x5xf32>, tensor<3x1xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<3x1xi32>) -> tensor<3x1x1xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %1 = stablehlo.compare LT, %arg0, %0, SIGNED : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %3 = stablehlo.add %arg0, %2 : tensor<3x1xi32>
    %4 = stablehlo.select %1, %3, %arg0 : tensor<3x1xi1>, tensor<3x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<3x1xi32>) -> tensor<3x1x1xi32>
    return %5 : tensor<3x1x1xi32>
  }
  func.func private @take_along_axis_1(%arg0: tensor<3x1x1xi32>, %arg1: tensor<3x1xf32>) -> tensor<3x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<3x5xf32>, tensor<3x1x1xi32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    return %1 : tensor<3x5xf32>
  }
  func.func private @log_softmax_2(%arg0: tensor<3x5xf32>, %arg1: tensor<3x1xf32>, %arg2: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.negate %arg2 : tensor<3x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.reshape %1 : (tensor<3xf32>) -> tensor<3x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<3x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<3x1xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xf32>) -> tensor<3x5xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<3x5xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<3x5xf32>
    return %7 : tensor<3x5xf32>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<6x3x16xf32>, %arg1: tensor<i32>) -> tensor<3x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 3, 16] : (tensor<6x3x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3x16xf32>) -> tensor<3x16xf32>
    return %1 : tensor<3x16xf32>
  }
  func.func private @closed_call_4(%arg0: tensor<16x32xf32>, %arg1: tensor<8x32xf32>, %arg2: tensor<8x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<3x8xf32>, %arg5: tensor<3x8xf32>, %arg6: tensor<3x8xf32>, %arg7: tensor<3x16xf32>, %arg8: tensor<3x8xf32>, %arg9: tensor<3x8xf32>, %arg10: tensor<3x8xf32>, %arg11: tensor<3x8xf32>, %arg12: tensor<3x8xf32>, %arg13: tensor<3x8xf32>, %arg14: tensor<3x8xf32>, %arg15: tensor<3x8xf32>, %arg16: tensor<3x8xf32>, %arg17: tensor<3x8xf32>, %arg18: tensor<3x8xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) {
    %0 = stablehlo.add %arg4, %arg6 : tensor<3x8xf32>
    %1 = stablehlo.multiply %arg18, %0 : tensor<3x8xf32>
    %2 = stablehlo.multiply %0, %arg16 : tensor<3x8xf32>
    %3 = stablehlo.multiply %1, %arg17 : tensor<3x8xf32>
    %4 = stablehlo.add %arg5, %3 : tensor<3x8xf32>
    %5 = stablehlo.multiply %3, %arg16 : tensor<3x8xf32>
    %6 = stablehlo.add %4, %5 : tensor<3x8xf32>
    %7 = stablehlo.multiply %2, %arg15 : tensor<3x8xf32>
    %8 = stablehlo.multiply %arg14, %6 : tensor<3x8xf32>
    %9 = stablehlo.multiply %6, %arg12 : tensor<3x8xf32>
    %10 = stablehlo.multiply %8, %arg13 : tensor<3x8xf32>
    %11 = stablehlo.multiply %10, %arg12 : tensor<3x8xf32>
    %12 = stablehlo.add %10, %11 : tensor<3x8xf32>
    %13 = stablehlo.multiply %9, %arg11 : tensor<3x8xf32>
    %14 = stablehlo.multiply %arg10, %6 : tensor<3x8xf32>
    %15 = stablehlo.multiply %6, %arg9 : tensor<3x8xf32>
    %16 = stablehlo.multiply %15, %arg8 : tensor<3x8xf32>
    %17 = stablehlo.concatenate %13, %16, %12, %7, dim = 1 : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3x32xf32>, tensor<f32>) -> tensor<32xf32>
    %19 = stablehlo.reshape %18 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %21 = stablehlo.add %arg3, %20 : tensor<32xf32>
    %22 = stablehlo.dot_general %17, %arg7, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x32xf32>, tensor<3x16xf32>) -> tensor<32x16xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0] : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %24 = stablehlo.dot_general %17, %arg0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x32xf32>, tensor<16x32xf32>) -> tensor<3x16xf32>
    %25 = stablehlo.slice %23 [0:8, 0:32] : (tensor<16x32xf32>) -> tensor<8x32xf32>
    %26 = stablehlo.slice %23 [8:16, 0:32] : (tensor<16x32xf32>) -> tensor<8x32xf32>
    %27 = stablehlo.add %arg1, %25 : tensor<8x32xf32>
    %28 = stablehlo.add %arg2, %26 : tensor<8x32xf32>
    %29 = stablehlo.slice %24 [0:3, 0:8] : (tensor<3x16xf32>) -> tensor<3x8xf32>
    %30 = stablehlo.slice %24 [0:3, 8:16] : (tensor<3x16xf32>) -> tensor<3x8xf32>
    return %27, %28, %21, %30, %14, %29 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
  }
}
