// RUN: irt-opt %s --split-input-file --verify-diagnostics

func.func @add_shape(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'tensor.add' op requires the same shape for all operands and result, got tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>}}
  %0 = tensor.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_rank(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{'tensor.add' op requires the same shape for all operands and result}}
  %0 = tensor.add %a, %b : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_result_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{'tensor.add' op requires the same shape for all operands and result, got tensor<?xf32>, tensor<?xf32> -> tensor<2x2xf32>}}
  %0 = tensor.add %a, %a : (tensor<?xf32>, tensor<?xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @add_element_type(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tensor.add' op requires the same element type for all operands and result, got tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>}}
  %0 = tensor.add %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @div_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tensor.div' op requires float element type, got i32}}
  %0 = tensor.div %a, %a : tensor<4xi32>
  return
}

// -----

func.func @pow_integer(%a: tensor<4xi64>) {
  // expected-error @+1 {{'tensor.pow' op requires float element type, got i64}}
  %0 = tensor.pow %a, %a : tensor<4xi64>
  return
}

// -----

func.func @exp_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tensor.exp' op requires float element type, got i32}}
  %0 = tensor.exp %a : tensor<4xi32>
  return
}

// -----

func.func @neg_index(%a: tensor<4xindex>) {
  // expected-error @+1 {{'tensor.neg' op requires float element type, got index}}
  %0 = tensor.neg %a : tensor<4xindex>
  return
}

// -----

func.func @unary_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.tanh' op requires the same shape for all operands and result, got tensor<4xf32> -> tensor<5xf32>}}
  %0 = tensor.tanh %a : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @unary_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.sqrt' op requires the same element type for all operands and result, got tensor<4xf32> -> tensor<4xf64>}}
  %0 = tensor.sqrt %a : tensor<4xf32> -> tensor<4xf64>
  return
}

// -----

func.func @cmp_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected a predicate of eq, ne, lt, le, gt, ge, got 'gtx'}}
  %0 = tensor.cmp gtx, %a, %a : tensor<4xf32>
  return
}

// -----

func.func @cmp_predicate_generic(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.cmp' op unknown predicate 'ogt', expected one of eq, ne, lt, le, gt, ge}}
  %0 = "tensor.cmp"(%a, %a) <{predicate = "ogt"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @cmp_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.cmp' op result must be a tensor of i1, got tensor<4xf32>}}
  %0 = tensor.cmp lt, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cmp_shape(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'tensor.cmp' op requires the same shape for all operands and result, got tensor<4xf32>, tensor<3xf32> -> tensor<4xi1>}}
  %0 = tensor.cmp lt, %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @cmp_element(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tensor.cmp' op requires the same element type for both operands, got tensor<4xf32>, tensor<4xf64>}}
  %0 = tensor.cmp lt, %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return
}

// -----

func.func @select_mask(%m: tensor<4xi32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.select' op condition must be a tensor of i1, got tensor<4xi32>}}
  %0 = tensor.select %m, %a, %a : tensor<4xi32>, tensor<4xf32>
  return
}

// -----

func.func @select_mask_shape(%m: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.select' op condition shape must match the result shape, got tensor<3xi1> and tensor<4xf32>}}
  %0 = tensor.select %m, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_values(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tensor.select' op requires the same element type for all operands and result}}
  %0 = tensor.select %m, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contract(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {
  // expected-error @+1 {{'tensor.matmul' op contracting dimensions differ: 3 vs 5}}
  %0 = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'tensor.matmul' op lhs must be a 2-d tensor, got tensor<3xf32>}}
  %0 = tensor.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'tensor.matmul' op result shape 2x5 does not match the operands' 2x4}}
  %0 = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_element(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'tensor.matmul' op requires the same element type for operands and result}}
  %0 = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_integer(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) {
  // expected-error @+1 {{'tensor.matmul' op requires float element type, got i32}}
  %0 = tensor.matmul %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return
}

// -----

func.func @transpose_not_perm(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.transpose' op [0, 0] is not a permutation of the 2 operand dimensions}}
  %0 = tensor.transpose %a [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_length(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.transpose' op permutation has 3 entries but the operand has rank 2}}
  %0 = tensor.transpose %a [0, 1, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.transpose' op result dimension 0 has size 2 but operand dimension 1 has size 3}}
  %0 = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_element(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.transpose' op result element type f64 differs from the operand's f32}}
  %0 = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf64>
  return
}

// -----

func.func @broadcast_order(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.broadcast' op dimensions must be unique and increasing, got [1, 0]}}
  %0 = tensor.broadcast %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @broadcast_range(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tensor.broadcast' op dimension 2 is out of range for the result of rank 2}}
  %0 = tensor.broadcast %a [2] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_count(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tensor.broadcast' op dimensions has 2 entries but the operand has rank 1}}
  %0 = tensor.broadcast %a [0, 1] : tensor<3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error @+1 {{'tensor.broadcast' op operand dimension 0 of size 3 cannot be broadcast to result dimension 1 of size 4}}
  %0 = tensor.broadcast %a [1] : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_order(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reduce_sum' op dimensions must be unique and increasing, got [1, 1]}}
  %0 = tensor.reduce_sum %a [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reduce_max' op dimension 2 is out of range for the operand of rank 2}}
  %0 = tensor.reduce_max %a [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reduce_sum' op result type tensor<3xf32> does not match the operand with dimensions [1] reduced, expected shape 2}}
  %0 = tensor.reduce_sum %a [1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.convert' op requires the same shape for operand and result, got tensor<4xf32> -> tensor<5xf64>}}
  %0 = tensor.convert %a : tensor<4xf32> -> tensor<5xf64>
  return
}

// -----

func.func @extract_slice_result(%t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op expected result type to be tensor<2x4xf32> or a rank-reduced version of it (sizes 2x4), got tensor<3x4xf32>}}
  %0 = tensor.extract_slice %t[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @extract_slice_bounds(%t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op slice along dimension 0 runs out-of-bounds: 8 >= 8}}
  %0 = tensor.extract_slice %t[6, 0] [3, 4] [1, 1] : tensor<8x4xf32> to tensor<3x4xf32>
  return
}

// -----

func.func @extract_slice_offset(%t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op offset 1 is out-of-bounds: 4 >= 4}}
  %0 = tensor.extract_slice %t[0, 4] [1, 1] [1, 1] : tensor<8x4xf32> to tensor<1x1xf32>
  return
}

// -----

func.func @extract_slice_count(%t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op expected 2 offsets for tensor<8x4xf32>, got 1}}
  %0 = tensor.extract_slice %t[0] [1] [1] : tensor<8x4xf32> to tensor<1xf32>
  return
}

// -----

func.func @insert_slice_source(%s: tensor<3xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.insert_slice' op expected source type to be tensor<1x4xf32> or a rank-reduced version of it (sizes 1x4), got tensor<3xf32>}}
  %0 = tensor.insert_slice %s into %t[0, 0] [1, 4] [1, 1] : tensor<3xf32> into tensor<8x4xf32>
  return
}

// -----

func.func @insert_slice_bounds(%s: tensor<4xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'tensor.insert_slice' op offset 0 is out-of-bounds: 9 >= 8}}
  %0 = tensor.insert_slice %s into %t[9, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
  return
}

// -----

func.func @extract_indices(%t: tensor<8x4xf32>, %i: index) {
  // expected-error @+1 {{'tensor.extract' op incorrect number of indices: expected 2 for tensor<8x4xf32>, got 1}}
  %0 = tensor.extract %t[%i] : tensor<8x4xf32>
  return
}

// -----

func.func @insert_indices(%t: tensor<8x4xf32>, %i: index, %e: f32) {
  // expected-error @+1 {{'tensor.insert' op incorrect number of indices: expected 2 for tensor<8x4xf32>, got 3}}
  %0 = tensor.insert %e into %t[%i, %i, %i] : tensor<8x4xf32>
  return
}

// -----

func.func @from_elements_count(%e: f32) {
  // expected-error @+1 {{'tensor.from_elements' op expected 3 elements for tensor<3xf32>, got 2}}
  %0 = tensor.from_elements %e, %e : tensor<3xf32>
  return
}

// -----

func.func @empty_sizes(%n: index) {
  // expected-error @+1 {{'tensor.empty' op expected 2 dynamic size operands for tensor<?x?xf32>, got 1}}
  %0 = tensor.empty(%n) : tensor<?x?xf32>
  return
}

// -----

func.func @collapse_product(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 6}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<5xf32>
  return
}

// -----

func.func @collapse_count(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op expected the total number of reassociation dimensions (2) to equal the expanded type's rank (3).}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x3x4xf32> into tensor<6xf32>
  return
}

// -----

func.func @expand_product(%a: tensor<6xf32>) {
  // expected-error @+1 {{'tensor.expand_shape' op expected dimension 0 of collapsed type to be static value of 8}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<6xf32> into tensor<2x4xf32>
  return
}

// -----

func.func @expand_output_shape(%a: tensor<6xf32>) {
  // expected-error @+1 {{'tensor.expand_shape' op output_shape dimension 0 is 3 but the result type has 2}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<2x3xf32>
  return
}

// -----

func.func @dim_range(%t: tensor<?x4xf32>) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'tensor.dim' op index 2 is out of range for tensor<?x4xf32>}}
  %0 = tensor.dim %t, %c2 : tensor<?x4xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>, %s: tensor<1xi32>) {
  // expected-error @+1 {{'tensor.reshape' op source and result tensor should have the same number of elements, got 6 and 5}}
  %0 = tensor.reshape %a(%s) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<5xf32>
  return
}

// -----

func.func @collapse_element(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op source and result element types differ: f64 vs f32}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf64>
  return
}

// -----

func.func @select_shapes(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'tensor.select' op requires the same shape for all operands and result, got tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>}}
  %0 = tensor.select %m, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_integer_ok_but_element_mismatch(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{'tensor.reduce_sum' op result element type i64 differs from the operand's i32}}
  %0 = tensor.reduce_sum %a [0] : tensor<2x3xi32> -> tensor<3xi64>
  return
}

// -----

func.func @pad_block_args(%arg0: tensor<?x4xi32>, %arg1: i32) -> tensor<?x9xi32> {
  // expected-error @+1 {{'tensor.pad' op expected block argument 1 to be an index}}
  %0 = tensor.pad %arg0 low[1, 2] high[2, 3] {
  ^bb0(%arg2: i32, %arg3: i32):
    tensor.yield %arg1 : i32
  } : tensor<?x4xi32> to tensor<?x9xi32>
  return %0 : tensor<?x9xi32>
}

// -----

func.func @pad_number_of_block_args(%arg0: tensor<?x4xi32>, %arg1: i32) -> tensor<?x9xi32> {
  // expected-error @+1 {{'tensor.pad' op expected the block to have 2 arguments}}
  %0 = tensor.pad %arg0 low[1, 2] high[2, 3] {
  ^bb0(%arg2: index, %arg3: index, %arg4: index):
    tensor.yield %arg1 : i32
  } : tensor<?x4xi32> to tensor<?x9xi32>
  return %0 : tensor<?x9xi32>
}

// -----

func.func @pad_result_type(%arg0: tensor<?x2x3x4xi32>, %arg1: index, %arg2: i32) -> tensor<?x?x?x8xi32> {
  // expected-error @+1 {{'tensor.pad' op specified type 'tensor<?x?x?x8xi32>' does not match the inferred type 'tensor<?x?x?x9xi32>'}}
  %0 = tensor.pad %arg0 low[1, %arg1, 2, 2] high[1, 2, %arg1, 3] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %arg2 : i32
  } : tensor<?x2x3x4xi32> to tensor<?x?x?x8xi32>
  return %0 : tensor<?x?x?x8xi32>
}

// -----

func.func @conv_rank(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>) {
  // expected-error @+1 {{'tensor.conv' op input must have rank 3, 4 or 5 (batch, 1 to 3 spatial dims, features), got tensor<4x3xf32>}}
  %y = tensor.conv %x, %w : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op filter rank 3 differs from the input rank 4}}
  %y = tensor.conv %x, %w : (tensor<1x5x5x3xf32>, tensor<3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_element_type(%x: tensor<1x5x3xi32>, %w: tensor<3x3x4xi32>) {
  // expected-error @+1 {{'tensor.conv' op requires float element type, got i32}}
  %y = tensor.conv %x, %w : (tensor<1x5x3xi32>, tensor<3x3x4xi32>) -> tensor<1x3x4xi32>
  return
}

// -----

func.func @conv_stride_count(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op stride must have 2 entries (one per spatial dimension), got 1}}
  %y = tensor.conv %x, %w stride [2] : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x2x2x4xf32>
  return
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op dilation entries must be positive, got [0, 1]}}
  %y = tensor.conv %x, %w dilation [0, 1] : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_pad_pairs(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op pad must have 2 [lo, hi] pairs (one per spatial dimension), got 1}}
  %y = tensor.conv %x, %w pad [[1, 1]] : (tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_pad_pair_syntax(%x: tensor<1x5x3xf32>, %w: tensor<3x3x4xf32>) {
  // expected-error @+1 {{expected a [lo, hi] pair, got 3 values}}
  %y = tensor.conv %x, %w pad [[1, 1, 1]] : (tensor<1x5x3xf32>, tensor<3x3x4xf32>) -> tensor<1x3x4xf32>
  return
}

// -----

func.func @conv_groups_divide(%x: tensor<1x5x5x6xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op input feature dimension 6 is not divisible by groups 4}}
  %y = tensor.conv %x, %w groups 4 : (tensor<1x5x5x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_filter_features(%x: tensor<1x5x5x6xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op filter input feature dimension 2 times groups 2 does not match the input feature dimension 6}}
  %y = tensor.conv %x, %w groups 2 : (tensor<1x5x5x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_output_features(%x: tensor<1x5x5x6xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'tensor.conv' op filter output feature dimension 4 is not divisible by groups 3}}
  %y = tensor.conv %x, %w groups 3 : (tensor<1x5x5x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @conv_result_shape(%x: tensor<8x28x28x3xf32>, %w: tensor<3x3x3x16xf32>) {
  // expected-error @+1 {{'tensor.conv' op result shape 8x14x14x16 does not match the expected 8x13x13x16}}
  %y = tensor.conv %x, %w stride [2, 2] : (tensor<8x28x28x3xf32>, tensor<3x3x3x16xf32>) -> tensor<8x14x14x16xf32>
  return
}

// -----

func.func @reduce_window_count(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'tensor.reduce_window_max' op window must have 2 entries (one per operand dimension), got 1}}
  %p = tensor.reduce_window_max %x window [2] : tensor<4x6xf32> -> tensor<3x6xf32>
  return
}

// -----

func.func @reduce_window_stride(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'tensor.reduce_window_sum' op stride entries must be positive, got [1, 0]}}
  %p = tensor.reduce_window_sum %x window [1, 2] stride [1, 0] : tensor<4x6xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @reduce_window_pad(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'tensor.reduce_window_sum' op pad must have 2 [lo, hi] pairs (one per operand dimension), got 1}}
  %p = tensor.reduce_window_sum %x window [1, 2] pad [[1, 1]] : tensor<4x6xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @reduce_window_result(%x: tensor<8x28x28x16xf32>) {
  // expected-error @+1 {{'tensor.reduce_window_max' op result shape 8x28x28x16 does not match the expected 8x14x14x16}}
  %p = tensor.reduce_window_max %x window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<8x28x28x16xf32> -> tensor<8x28x28x16xf32>
  return
}

// -----

func.func @reduce_window_element(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tensor.reduce_window_max' op requires float or integer (not i1) element type, got i1}}
  %p = tensor.reduce_window_max %x window [2] : tensor<4xi1> -> tensor<3xi1>
  return
}

// -----

func.func @window_max_scatter_values(%x: tensor<4x6xf32>, %g: tensor<2x2xf32>) {
  // expected-error @+1 {{'tensor.window_max_scatter' op values shape 2x2 does not match the expected 2x3}}
  %d = tensor.window_max_scatter %x, %g window [2, 2] stride [2, 2] : (tensor<4x6xf32>, tensor<2x2xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @dot_contract(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) {
  // expected-error @+1 {{'tensor.dot' op contracting dimensions differ: 3 vs 5 (lhs dimension 1, rhs dimension 0)}}
  %0 = tensor.dot %a, %b contract [1] x [0] : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<8x2x3xf32>, %b: tensor<4x3x4xf32>) {
  // expected-error @+1 {{'tensor.dot' op batch dimensions differ: 8 vs 4 (lhs dimension 0, rhs dimension 0)}}
  %0 = tensor.dot %a, %b batch [0] x [0] contract [2] x [1] : (tensor<8x2x3xf32>, tensor<4x3x4xf32>) -> tensor<8x2x4xf32>
  return
}

// -----

func.func @dot_lengths(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'tensor.dot' op contracting dimension lists differ in length: 1 vs 2}}
  %0 = tensor.dot %a, %b contract [1] x [0, 1] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dot_range(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'tensor.dot' op lhs dimension 2 is out of range for rank 2}}
  %0 = tensor.dot %a, %b contract [2] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_twice(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'tensor.dot' op rhs dimension 0 is listed more than once}}
  %0 = tensor.dot %a, %b batch [0] x [0] contract [1] x [0] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'tensor.dot' op result shape 4x2 does not match the operands' 2x4}}
  %0 = tensor.dot %a, %b contract [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @dot_int(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) {
  // expected-error @+1 {{'tensor.dot' op requires float element type, got i32}}
  %0 = tensor.dot %a, %b contract [1] x [0] : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return
}

// -----

func.func @reduce_min_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reduce_min' op result type tensor<3xf32> does not match the operand with dimensions [1] reduced, expected shape 2}}
  %0 = tensor.reduce_min %a [1] : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_prod_dims(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reduce_prod' op dimension 2 is out of range for the operand of rank 2}}
  %0 = tensor.reduce_prod %a [2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @argmax_two_dims(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.argmax' op expects exactly one dimension, got 2}}
  %0 = tensor.argmax %a [0, 1] : tensor<2x3xf32> -> tensor<i64>
  return
}

// -----

func.func @argmin_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.argmin' op result element type must be i64, got i32}}
  %0 = tensor.argmin %a [1] : tensor<2x3xf32> -> tensor<2xi32>
  return
}

// -----

func.func @argmax_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.argmax' op result type tensor<3xi64> does not match the operand with dimension 1 removed, expected shape 2}}
  %0 = tensor.argmax %a [1] : tensor<2x3xf32> -> tensor<3xi64>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{'tensor.iota' op dimension 2 is out of range for the result of rank 2}}
  %0 = tensor.iota [2] : tensor<4x3xi64>
  return
}

// -----

func.func @iota_dynamic() {
  // expected-error @+1 {{'tensor.iota' op requires a static result shape, got tensor<?x3xi64>}}
  %0 = tensor.iota [0] : tensor<?x3xi64>
  return
}

// -----

func.func @iota_i1() {
  // expected-error @+1 {{'tensor.iota' op requires float or integer (not i1) element type, got i1}}
  %0 = tensor.iota [0] : tensor<4xi1>
  return
}

// -----

func.func @reverse_twice(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reverse' op dimensions must be unique, got [1, 1]}}
  %0 = tensor.reverse %a [1, 1] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tensor.reverse' op dimension 2 is out of range for the operand of rank 2}}
  %0 = tensor.reverse %a [2] : tensor<2x3xf32>
  return
}

// -----

func.func @rsqrt_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tensor.rsqrt' op requires float element type, got i32}}
  %0 = tensor.rsqrt %a : tensor<4xi32>
  return
}

// -----

func.func @round_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.round' op requires the same shape for all operands and result, got tensor<4xf32> -> tensor<5xf32>}}
  %0 = tensor.round %a : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @atan2_element_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tensor.atan2' op requires the same element type for all operands and result, got tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>}}
  %0 = tensor.atan2 %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @rem_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tensor.rem' op requires float element type, got i32}}
  %0 = tensor.rem %a, %a : tensor<4xi32>
  return
}

// -----

func.func @clamp_shapes(%lo: tensor<3xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.clamp' op requires the same shape for all operands and result, got tensor<3xf32>, tensor<4xf32>, tensor<3xf32> -> tensor<4xf32>}}
  %0 = tensor.clamp %lo, %x, %lo : (tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_dynamic_bounds(%lo: tensor<?xf32>, %hi: tensor<3xf32>, %x: tensor<?xf32>) {
  // expected-error @+1 {{'tensor.clamp' op requires the same shape for all operands and result, got tensor<?xf32>, tensor<?xf32>, tensor<3xf32> -> tensor<4xf32>}}
  %0 = tensor.clamp %lo, %x, %hi : (tensor<?xf32>, tensor<?xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_i1(%m: tensor<4xi1>) {
  // expected-error @+1 {{'tensor.clamp' op requires float or integer element type, got i1}}
  %0 = tensor.clamp %m, %m, %m : tensor<4xi1>
  return
}

// -----

func.func @and_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tensor.and' op requires integer element type, got f32}}
  %0 = tensor.and %a, %a : tensor<4xf32>
  return
}

// -----

func.func @not_float(%a: tensor<4xf64>) {
  // expected-error @+1 {{'tensor.not' op requires integer element type, got f64}}
  %0 = tensor.not %a : tensor<4xf64>
  return
}

// -----

func.func @xor_element_types(%a: tensor<4xi1>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'tensor.xor' op requires the same element type for all operands and result, got tensor<4xi1>, tensor<4xi32> -> tensor<4xi1>}}
  %0 = tensor.xor %a, %b : (tensor<4xi1>, tensor<4xi32>) -> tensor<4xi1>
  return
}


// -----

// Upstream's invalid.mlir chunks for gather, scatter, generate and rank.

func.func @tensor.generate(%m : index)
    -> tensor<?x3x?xf32> {
  // expected-error @+1 {{must have as many index operands as dynamic extents in the result type}}
  %tnsr = tensor.generate %m {
    ^bb0(%i : index, %j : index, %k : index):
      %elem = arith.constant 8.0 : f32
      tensor.yield %elem : f32
  } : tensor<?x3x?xf32>
  return %tnsr : tensor<?x3x?xf32>
}

// -----

func.func @tensor.generate(%m : index, %n : index)
    -> tensor<?x3x?xf32> {
  // expected-error @+1 {{must have one body argument per input dimension}}
  %tnsr = tensor.generate %m, %n {
    ^bb0(%i : index, %j : index):
      %elem = arith.constant 8.0 : f32
      tensor.yield %elem : f32
  } : tensor<?x3x?xf32>
  return %tnsr : tensor<?x3x?xf32>
}

// -----

func.func @tensor.generate(%m : index, %n : index)
    -> tensor<?x3x?xf32> {
  // expected-error @+1 {{all body arguments must be index}}
  %tnsr = tensor.generate %m, %n {
    ^bb0(%i : index, %j : index, %k : i64):
      %elem = arith.constant 8.0 : f32
      tensor.yield %elem : f32
  } : tensor<?x3x?xf32>
  return %tnsr : tensor<?x3x?xf32>
}

// -----

func.func @tensor.generate(%m : index, %n : index)
    -> tensor<?x3x?xf32> {
  // expected-error @+4 {{'func.return' expects parent op 'func.func'}}
  %tnsr = tensor.generate %m, %n {
    ^bb0(%i : index, %j : index, %k : index):
      %elem = arith.constant 8.0 : f32
      func.return %elem : f32
  } : tensor<?x3x?xf32>
  return %tnsr : tensor<?x3x?xf32>
}

// -----

func.func @tensor.generate(%m : index, %n : index)
    -> tensor<?x3x?xf32> {
  // expected-error @+1 {{body must be terminated with a `yield` operation of the tensor element type}}
  %tnsr = tensor.generate %m, %n {
    ^bb0(%i : index, %j : index, %k : index):
      %elem = arith.constant 8 : i32
      tensor.yield %elem : i32
  } : tensor<?x3x?xf32>
  return %tnsr : tensor<?x3x?xf32>
}

// -----

func.func @rank(%0: f32) {
  // expected-error@+1 {{'tensor.rank' op operand #0 must be tensor of any type values}}
  "tensor.rank"(%0): (f32)->index
  return
}

// -----

func.func @gather_empty_dims(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x3xindex>) {
  // expected-error@+1 {{gather_dims must be non-empty}}
  %out = tensor.gather %source[%indices] gather_dims([]):
    (tensor<4x5x6xf32>, tensor<1x2x3xindex>) -> tensor<1x2xf32>
  return
}

// -----

func.func @gather_coordinate_rank_overflow(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x3xindex>) {
  // expected-error@+1 {{gather_dims overflow source rank}}
  %out = tensor.gather %source[%indices] gather_dims([0, 1, 2, 3]):
    (tensor<4x5x6xf32>, tensor<1x2x3xindex>) -> tensor<1x2xf32>
  return
}

// -----

func.func @gather_coordinate_rank_mismatch0(
    %source: tensor<4x5x6xf32>, %indices: tensor<index>) {
  // expected-error@+1 {{gather_dims length must match the size of last dimension of indices}}
  %out = tensor.gather %source[%indices] gather_dims([0, 1, 2]):
    (tensor<4x5x6xf32>, tensor<index>) -> tensor<1x2xf32>
}

// -----

func.func @gather_coordinate_rank_mismatch1(
    %source: tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{gather_dims length must match the size of last dimension of indices}}
  %out = tensor.gather %source[%indices] gather_dims([0, 1, 2]):
    (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2xf32>
}

// -----

func.func @gather_coordinate_negative(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x1xindex>) {
  // expected-error@+1 {{gather_dims value must be non-negative}}
  %out = tensor.gather %source[%indices] gather_dims([-1]):
    (tensor<4x5x6xf32>, tensor<1x2x1xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @gather_coordinate_overflow(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x1xindex>) {
  // expected-error@+1 {{gather_dims value must be smaller than source rank}}
  %out = tensor.gather %source[%indices] gather_dims([42]):
    (tensor<4x5x6xf32>, tensor<1x2x1xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @gather_coordinate_increase(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{gather_dims values must be strictly increasing}}
  %out = tensor.gather %source[%indices] gather_dims([1, 0]):
    (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1x1xf32>
  return
}

// -----

func.func @gather_wrong_result_type(
    %source : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{result type mismatch: expected 'tensor<1x2x1x5x1xf32>' or its rank-reduced variant 'tensor<1x2x5xf32>' (got: 'tensor<1x2x1xf32>')}}
  %out = tensor.gather %source[%indices] gather_dims([0, 2]):
    (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @scatter_empty_dims(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x3xindex>) {
  // expected-error@+1 {{scatter_dims must be non-empty}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x3xindex>) -> tensor<1x2xf32>
  return
}

// -----

func.func @scatter_coordinate_rank_overflow(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x3xindex>) {
  // expected-error@+1 {{scatter_dims overflow dest rank}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([0, 1, 2, 3]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x3xindex>) -> tensor<1x2xf32>
  return
}

// -----

func.func @scatter_coordinate_rank_mismatch0(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<index>) {
  // expected-error@+1 {{scatter_dims length must match the size of last dimension of indices}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([0, 1, 2]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<index>) -> tensor<1x2xf32>
  return
}

// -----

func.func @scatter_coordinate_rank_mismatch1(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{scatter_dims length must match the size of last dimension of indices}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([0, 1, 2]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2xf32>
  return
}

// -----

func.func @scatter_coordinate_negative(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x1xindex>) {
  // expected-error@+1 {{scatter_dims value must be non-negative}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([-1]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x1xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @scatter_coordinate_overflow(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x1xindex>) {
  // expected-error@+1 {{scatter_dims value must be smaller than dest rank}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([42]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x1xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @scatter_coordinate_increase(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{scatter_dims values must be strictly increasing}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([1, 0]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1x1xf32>
  return
}

// -----

func.func @scatter_missing_unique(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{requires 'unique' attribute to be set}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([0, 2]):
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @scatter_wrong_result_type(
    %source : tensor<f32>,
    %dest : tensor<4x5x6xf32>, %indices: tensor<1x2x2xindex>) {
  // expected-error@+1 {{source type mismatch: expected 'tensor<1x2x1x5x1xf32>' or its rank-reduced variant 'tensor<1x2x5xf32>' (got: 'tensor<f32>')}}
  %out = tensor.scatter %source into %dest[%indices] scatter_dims([0, 2]) unique:
    (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @gather_indices_float(%source: tensor<4x5xf32>, %indices: tensor<2x1xf32>) {
  // expected-error@+1 {{'tensor.gather' op operand #1 must be ranked tensor of signless integer or index values, but got 'tensor<2x1xf32>'}}
  %out = tensor.gather %source[%indices] gather_dims([0]) : (tensor<4x5xf32>, tensor<2x1xf32>) -> tensor<2x1x5xf32>
  return
}

// -----

func.func @gather_element_type(%source: tensor<4x5xf32>, %indices: tensor<2x1xindex>) {
  // expected-error@+1 {{'tensor.gather' op result type mismatch: expected 'tensor<2x1x5xf32>' or its rank-reduced variant 'tensor<2x5xf32>' (got: 'tensor<2x5xf64>')}}
  %out = tensor.gather %source[%indices] gather_dims([0]) : (tensor<4x5xf32>, tensor<2x1xindex>) -> tensor<2x5xf64>
  return
}

// -----

func.func @scatter_add_result(%upd: tensor<3x4xf32>, %dest: tensor<10x4xf32>, %ids: tensor<3x1xindex>) {
  // expected-error@+1 {{'tensor.scatter_add' op result type 'tensor<10x5xf32>' does not match the dest type 'tensor<10x4xf32>'}}
  %r = tensor.scatter_add %upd into %dest[%ids] scatter_dims([0]) : (tensor<3x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x5xf32>
  return
}

// -----

func.func @scatter_add_source(%upd: tensor<3x5xf32>, %dest: tensor<10x4xf32>, %ids: tensor<3x1xindex>) {
  // expected-error@+1 {{'tensor.scatter_add' op source type mismatch: expected 'tensor<3x1x4xf32>' or its rank-reduced variant 'tensor<3x4xf32>' (got: 'tensor<3x5xf32>')}}
  %r = tensor.scatter_add %upd into %dest[%ids] scatter_dims([0]) : (tensor<3x5xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_i1(%upd: tensor<3x4xi1>, %dest: tensor<10x4xi1>, %ids: tensor<3x1xindex>) {
  // expected-error@+1 {{'tensor.scatter_add' op requires float or integer element type, got i1}}
  %r = tensor.scatter_add %upd into %dest[%ids] scatter_dims([0]) : (tensor<3x4xi1>, tensor<10x4xi1>, tensor<3x1xindex>) -> tensor<10x4xi1>
  return
}

// -----

func.func @scatter_add_no_unique(%upd: tensor<3x4xf32>, %dest: tensor<10x4xf32>, %ids: tensor<3x1xindex>) {
  // expected-error@+1 {{expected ':'}}
  %r = tensor.scatter_add %upd into %dest[%ids] scatter_dims([0]) unique : (tensor<3x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
  return
}
