// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @add_shapes(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'stablehlo.add' op requires the same shape for all operands and results, got tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>}}
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'stablehlo.add' op requires the same element type for all operands and results, got tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>}}
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @atan2_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'stablehlo.atan2' op requires float element type, got i32}}
  %0 = stablehlo.atan2 %a, %a : tensor<4xi32>
  return
}

// -----

func.func @and_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.and' op requires boolean or integer element type, got f32}}
  %0 = stablehlo.and %a, %a : tensor<4xf32>
  return
}

// -----

func.func @compare_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.compare' op result must have element type i1, got tensor<4xf32>}}
  %0 = stablehlo.compare  GT, %a, %a,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.compare' op compare type SIGNED does not fit element type f32}}
  %0 = stablehlo.compare  GT, %a, %a,  SIGNED : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_direction(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected `EQ`, `NE`, `GE`, `GT`, `LE`, or `LT`}}
  %0 = stablehlo.compare  BIGGER, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @select_pred(%p: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.select' op predicate must have element type i1, got tensor<4xf32>}}
  %0 = stablehlo.select %p, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'stablehlo.constant' op value of type tensor<2xf32> does not match the result type tensor<3xf32>}}
  %0 = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{'stablehlo.iota' op iota dimension 2 is out of range [0, 2)}}
  %0 = stablehlo.iota dim = 2 : tensor<4x3xi32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op operand dim 0 of size 3 cannot broadcast to result dim 1 of size 4}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op needs one dimension per operand dim: 2 for rank 1}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.transpose' op result shape 2x3 does not match the expected 3x2}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.reshape' op cannot reshape 6 elements (tensor<2x3xf32>) into 8 (tensor<8xf32>)}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.slice' op slice 2:6 of dim 0 is out of bounds for size 4}}
  %0 = stablehlo.slice %a [2:6] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_slice_indices(%a: tensor<4x3xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.dynamic_slice' op needs 2 start indices (one per operand dim), got 1}}
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @dynamic_slice_size(%a: tensor<4x3xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.dynamic_slice' op slice size 5 of dim 0 is out of range [0, 4]}}
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [5, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @concatenate_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'stablehlo.concatenate' op operand 1 of type tensor<2x4xf32> does not match operand 0 of type tensor<2x3xf32> outside dimension 0}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_shape(%a: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.pad' op result shape 6 does not match the expected 8}}
  %0 = stablehlo.pad %a, %v, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return
}

// -----

func.func @dot_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'stablehlo.dot_general' op contracting dimensions differ in size: lhs dim 1 is 3, rhs dim 0 is 4}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_result(%a: tensor<8x2x3xf32>, %b: tensor<8x3x5xf32>) {
  // expected-error @+1 {{'stablehlo.dot_general' op result shape 2x8x5 does not match the expected 8x2x5}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x2x3xf32>, tensor<8x3x5xf32>) -> tensor<2x8x5xf32>
  return
}

// -----

func.func @dot_dims_range(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{'stablehlo.dot_general' op lhs batching/contracting dimension 2 is out of range [0, 2)}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @conv_features(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4x8xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op input feature dimension (3) must be kernel input feature dimension (4) x feature_group_count (1)}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op result shape 1x8x8x8 does not match the expected 1x3x3x8}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @conv_layout(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{unexpected 'c' in the input layout, expected 'b', 'f' or a spatial dimension number}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, c]x[0, 1, i, o]->[b, 0, 1, f] {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x6x6x8xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<5x3xf32>, %c: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.reduce' op result 0 must be tensor<5xf32>, got tensor<3xf32>}}
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @reduce_applies(%x: tensor<5x3xf32>, %c: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.subtract' cannot be applied by reduce}}
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.subtract across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
  return
}

// -----

func.func @reduce_body(%x: tensor<5x3xf32>, %c: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.reduce' op reducer body must return tensor<f32>, got (tensor<i1>)}}
  %0 = stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %r = stablehlo.compare  GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %r : tensor<i1>
  }
  return
}

// -----

func.func @reduce_window_result(%x: tensor<4x4xf32>, %c: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.reduce_window' op result 0 must be tensor<2x2xf32>, got tensor<4x4xf32>}}
  %0 = "stablehlo.reduce_window"(%x, %c) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @gather_offsets(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{'stablehlo.gather' op result shape 2x5 does not match the expected 2x3}}
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gather_collapsed(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{'stablehlo.gather' op slice size of collapsed or batching dim 0 must be 0 or 1, got 2}}
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_field(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{unknown field 'offsets' of stablehlo.gather, expected one of offset_dims, collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims, start_index_map, index_vector_dim}}
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offsets = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_rank(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3x1xf32>) {
  // expected-error @+1 {{'stablehlo.scatter' op updates must have rank 2, got 3}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3x1xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @while_cond(%x: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.while' op cond region must return tensor<i1>, got (tensor<f32>)}}
  %0 = stablehlo.while(%a = %x) : tensor<f32>
  cond {
    stablehlo.return %a : tensor<f32>
  } do {
    stablehlo.return %a : tensor<f32>
  }
  return
}

// -----

func.func @while_body(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error @+1 {{'stablehlo.while' op body region must return the operand types, got (tensor<i1>)}}
  %0 = stablehlo.while(%a = %x) : tensor<f32>
  cond {
    stablehlo.return %p : tensor<i1>
  } do {
    stablehlo.return %p : tensor<i1>
  }
  return
}

// -----

func.func @case_index(%k: tensor<i64>, %x: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.case' op index must be tensor<i32>, got tensor<i64>}}
  %0 = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @case_branch(%k: tensor<i32>, %x: tensor<f32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.case' op branch 1 returns (tensor<2xf32>), the op's results are (tensor<f32>)}}
  %0 = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<f32>
  }, {
    stablehlo.return %y : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<f32>
  return
}

// -----

func.func @if_pred(%p: tensor<2xi1>, %x: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.if' op predicate must be tensor<i1>, got tensor<2xi1>}}
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<f32>
  }, {
    stablehlo.return %x : tensor<f32>
  }) : (tensor<2xi1>) -> tensor<f32>
  return
}

// -----

func.func @chlo_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'chlo.erf' op requires float element type, got i32}}
  %0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>
  return
}
