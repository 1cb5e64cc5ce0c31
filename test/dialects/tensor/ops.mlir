// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  // CHECK: %{{.*}} = tensor.add %{{.*}}, %{{.*}} : tensor<4xf32>
  %0 = tensor.add %a, %b : tensor<4xf32>
  // CHECK: tensor.sub %{{.*}}, %{{.*}} : tensor<4xf32>
  %1 = tensor.sub %0, %b : tensor<4xf32>
  // CHECK: tensor.mul %{{.*}}, %{{.*}} : tensor<4xf32>
  %2 = tensor.mul %1, %b : tensor<4xf32>
  // CHECK: tensor.div %{{.*}}, %{{.*}} : tensor<4xf32>
  %3 = tensor.div %2, %b : tensor<4xf32>
  // CHECK: tensor.max %{{.*}}, %{{.*}} : tensor<4xf32>
  %4 = tensor.max %3, %b : tensor<4xf32>
  // CHECK: tensor.min %{{.*}}, %{{.*}} : tensor<4xf32>
  %5 = tensor.min %4, %b : tensor<4xf32>
  // CHECK: tensor.pow %{{.*}}, %{{.*}} : tensor<4xf32>
  %6 = tensor.pow %5, %b : tensor<4xf32>
  // CHECK: tensor.add %{{.*}}, %{{.*}} : tensor<4xi32>
  %7 = tensor.add %i, %i : tensor<4xi32>
  // CHECK: tensor.neg %{{.*}} : tensor<4xf32>
  %u0 = tensor.neg %6 : tensor<4xf32>
  // CHECK: tensor.exp %{{.*}} : tensor<4xf32>
  %u1 = tensor.exp %u0 : tensor<4xf32>
  // CHECK: tensor.log %{{.*}} : tensor<4xf32>
  %u2 = tensor.log %u1 : tensor<4xf32>
  // CHECK: tensor.sqrt %{{.*}} : tensor<4xf32>
  %u3 = tensor.sqrt %u2 : tensor<4xf32>
  // CHECK: tensor.tanh %{{.*}} : tensor<4xf32>
  %u4 = tensor.tanh %u3 : tensor<4xf32>
  // CHECK: tensor.sin %{{.*}} : tensor<4xf32>
  %u5 = tensor.sin %u4 : tensor<4xf32>
  // CHECK: tensor.cos %{{.*}} : tensor<4xf32>
  %u6 = tensor.cos %u5 : tensor<4xf32>
  // CHECK: tensor.abs %{{.*}} : tensor<4xf32>
  %u7 = tensor.abs %u6 : tensor<4xf32>
  // CHECK: tensor.logistic %{{.*}} : tensor<4xf32>
  %u8 = tensor.logistic %u7 : tensor<4xf32>
  // CHECK: tensor.tan %{{.*}} : tensor<4xf32>
  %u9 = tensor.tan %u8 : tensor<4xf32>
  return %u9 : tensor<4xf32>
}

// CHECK-LABEL: func.func @cmp_select
func.func @cmp_select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[M:.*]] = tensor.cmp gt, %{{.*}}, %{{.*}} : tensor<4xf32>
  %m = tensor.cmp gt, %a, %b : tensor<4xf32>
  // CHECK: tensor.select %[[M]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
  %r = tensor.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>
  // CHECK: tensor.cmp eq, %{{.*}}, %{{.*}} : tensor<4xf32>
  %e = tensor.cmp eq, %a, %b : tensor<4xf32>
  // CHECK: tensor.cmp ne, %{{.*}}, %{{.*}} : tensor<4xf32>
  %n = tensor.cmp ne, %a, %b : tensor<4xf32>
  // CHECK: tensor.cmp le, %{{.*}}, %{{.*}} : tensor<4xf32>
  %l = tensor.cmp le, %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @structural
func.func @structural(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<3xf32>) {
  // CHECK: tensor.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %c = tensor.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: tensor.transpose %{{.*}} [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %t = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: tensor.broadcast %{{.*}} [1] : tensor<3xf32> -> tensor<2x3xf32>
  %bc = tensor.broadcast %v [1] : tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: tensor.reduce_sum %{{.*}} [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %s = tensor.reduce_sum %a [0, 1] : tensor<2x3xf32> -> tensor<f32>
  // CHECK: tensor.reduce_max %{{.*}} [1] : tensor<2x3xf32> -> tensor<2xf32>
  %mx = tensor.reduce_max %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: tensor.convert %{{.*}} : tensor<3xf32> -> tensor<3xf64>
  %d = tensor.convert %v : tensor<3xf32> -> tensor<3xf64>
  // CHECK: tensor.convert %{{.*}} : tensor<3xf32> -> tensor<3xi32>
  %di = tensor.convert %v : tensor<3xf32> -> tensor<3xi32>
  return
}

// Dynamic dims and mixed static/dynamic operands print in the functional form.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<3x4xf32>, %w: tensor<4x?xf32>, %m: tensor<?x4xi1>) {
  // CHECK: tensor.add %{{.*}}, %{{.*}} : tensor<?x4xf32>
  %0 = tensor.add %a, %a : tensor<?x4xf32>
  // CHECK: tensor.add %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tensor.add %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK: tensor.exp %{{.*}} : tensor<?x4xf32> -> tensor<3x4xf32>
  %2 = tensor.exp %a : tensor<?x4xf32> -> tensor<3x4xf32>
  // CHECK: tensor.cmp lt, %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
  %3 = tensor.cmp lt, %a, %b : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
  // CHECK: tensor.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4xi1>, tensor<?x4xf32>
  %4 = tensor.select %m, %a, %a : tensor<?x4xi1>, tensor<?x4xf32>
  // CHECK: tensor.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  %5 = tensor.select %m, %a, %b : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  // CHECK: tensor.matmul %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  %6 = tensor.matmul %a, %w : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  // CHECK: tensor.transpose %{{.*}} [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  %7 = tensor.transpose %a [1, 0] : tensor<?x4xf32> -> tensor<4x?xf32>
  // CHECK: tensor.reduce_sum %{{.*}} [0] : tensor<?x4xf32> -> tensor<4xf32>
  %8 = tensor.reduce_sum %a [0] : tensor<?x4xf32> -> tensor<4xf32>
  // CHECK: tensor.broadcast %{{.*}} [0, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %9 = tensor.broadcast %a [0, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  return
}

// 0-d tensors.
// CHECK-LABEL: func.func @scalars
func.func @scalars(%a: tensor<f64>, %v: tensor<5xf64>) -> tensor<5xf64> {
  // CHECK: tensor.mul %{{.*}}, %{{.*}} : tensor<f64>
  %0 = tensor.mul %a, %a : tensor<f64>
  // CHECK: tensor.broadcast %{{.*}} [] : tensor<f64> -> tensor<5xf64>
  %1 = tensor.broadcast %0 [] : tensor<f64> -> tensor<5xf64>
  // CHECK: tensor.reduce_max %{{.*}} [0] : tensor<5xf64> -> tensor<f64>
  %2 = tensor.reduce_max %v [0] : tensor<5xf64> -> tensor<f64>
  return %1 : tensor<5xf64>
}

// Attributes go before the colon.
// CHECK-LABEL: func.func @attrs
func.func @attrs(%a: tensor<4xf32>) {
  // CHECK: tensor.add %{{.*}}, %{{.*}} {tag = 1 : i64} : tensor<4xf32>
  %0 = tensor.add %a, %a {tag = 1 : i64} : tensor<4xf32>
  // CHECK: tensor.exp %{{.*}} {tag = 2 : i64} : tensor<4xf32>
  %1 = tensor.exp %a {tag = 2 : i64} : tensor<4xf32>
  // CHECK: tensor.cmp ge, %{{.*}}, %{{.*}} {tag = 3 : i64} : tensor<4xf32>
  %2 = tensor.cmp ge, %a, %a {tag = 3 : i64} : tensor<4xf32>
  // CHECK: tensor.transpose %{{.*}} [0] {tag = 4 : i64} : tensor<4xf32> -> tensor<4xf32>
  %3 = tensor.transpose %a [0] {tag = 4 : i64} : tensor<4xf32> -> tensor<4xf32>
  return
}

// Upstream ops keep MLIR's syntax.
// CHECK-LABEL: func.func @upstream
func.func @upstream(%t: tensor<8x4xf32>, %i: index, %s: f32, %a: tensor<2x3xf32>, %d: tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: tensor.empty(%{{.*}}) : tensor<?x4xf32>
  %e = tensor.empty(%i) : tensor<?x4xf32>
  // CHECK: tensor.empty() : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  // CHECK: tensor.splat %{{.*}} : tensor<4xf32>
  %sp = tensor.splat %s : tensor<4xf32>
  // CHECK: tensor.splat %{{.*}}[%{{.*}}] : tensor<?x4xf32>
  %sp2 = tensor.splat %s[%i] : tensor<?x4xf32>
  // CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x4xf32>
  %x = tensor.extract %t[%i, %c0] : tensor<8x4xf32>
  // CHECK: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x4xf32>
  %u = tensor.insert %x into %t[%i, %c0] : tensor<8x4xf32>
  // CHECK: tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xf32>
  %fe = tensor.from_elements %s, %s : tensor<2xf32>
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
  %sl = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
  // CHECK: tensor.extract_slice %{{.*}}[2, 0] [3, 4] [1, 1] : tensor<8x4xf32> to tensor<3x4xf32>
  %sl2 = tensor.extract_slice %t[2, 0] [3, 4] [1, 1] : tensor<8x4xf32> to tensor<3x4xf32>
  // CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
  %is = tensor.insert_slice %sl into %t[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  // CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %g = tensor.expand_shape %f [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  // CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
  %dd = tensor.dim %d, %c0 : tensor<?x4xf32>
  // CHECK: tensor.cast %{{.*}} : tensor<?x4xf32> to tensor<8x4xf32>
  %ca = tensor.cast %d : tensor<?x4xf32> to tensor<8x4xf32>
  return
}

// The rest of xDSL's tensor dialect.
// CHECK-LABEL: func.func @more_upstream
func.func @more_upstream(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %s: tensor<1xi32>, %p: f32, %i: index, %d: tensor<?x3xf32>) {
  // CHECK: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  // CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>
  %r = tensor.reshape %a(%s) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>
  // CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x3xf32>, tensor<1xi32>) -> tensor<?xf32>
  %r2 = tensor.reshape %d(%s) : (tensor<?x3xf32>, tensor<1xi32>) -> tensor<?xf32>
  // CHECK: tensor.pad %{{.*}} low[1, %{{.*}}] high[0, 2] {
  // CHECK: tensor.yield %{{.*}} : f32
  // CHECK: } : tensor<2x3xf32> to tensor<3x?xf32>
  %pad = tensor.pad %a low[1, %i] high[0, 2] {
  ^bb0(%x: index, %y: index):
    tensor.yield %p : f32
  } : tensor<2x3xf32> to tensor<3x?xf32>
  // CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> to tensor<?x3xf32>
  %sl = tensor.extract_slice %d[%i, 0] [%i, 3] [1, 1] : tensor<?x3xf32> to tensor<?x3xf32>
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<?x3xf32> into tensor<?xf32>
  %f = tensor.collapse_shape %d [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
  // CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%{{.*}}, 3] : tensor<?xf32> into tensor<?x3xf32>
  %g = tensor.expand_shape %f [[0, 1]] output_shape [%i, 3] : tensor<?xf32> into tensor<?x3xf32>
  return
}

// Rank 0 collapses and expands with an empty reassociation, as in MLIR.
// CHECK-LABEL: func.func @rank0_reshapes
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @rank0_reshapes(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %c = tensor.collapse_shape %x [] : tensor<1x1xf32> into tensor<f32>
  %e = tensor.expand_shape %c [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  func.return %e : tensor<1x1xf32>
}

// A dynamic high padding into a static result (upstream's rule; checked at run time).
// CHECK-LABEL: func.func @pad_to_static_size
// CHECK: tensor.pad %{{.*}} low[0, 0] high[%{{.*}}, %{{.*}}]
// CHECK: } : tensor<?x?xf32> to tensor<2x3xf32>
func.func @pad_to_static_size(%arg0: tensor<?x?xf32>, %ub0: index, %ub1: index,
                              %pad_value: f32) -> tensor<2x3xf32> {
  %0 = tensor.pad %arg0 low[0, 0] high[%ub0, %ub1] {
  ^bb0(%arg1: index, %arg2: index):
    tensor.yield %pad_value : f32
  } : tensor<?x?xf32> to tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// Convolution (channels last) and pooling; default clauses are not printed.
// CHECK-LABEL: func.func @conv_and_pooling
// CHECK: tensor.conv %{{.*}}, %{{.*}} stride [2, 2] pad {{\[\[}}1, 1], [1, 1]] : (tensor<8x28x28x3xf32>, tensor<3x3x3x16xf32>) -> tensor<8x14x14x16xf32>
// CHECK: tensor.conv %{{.*}}, %{{.*}} dilation [2, 2] groups 3 : (tensor<2x9x9x6xf32>, tensor<3x3x2x6xf32>) -> tensor<2x5x5x6xf32>
// CHECK: tensor.conv %{{.*}}, %{{.*}} pad {{\[\[}}-1, 2]] input_dilation [2] : (tensor<?x5x2xf64>, tensor<3x2x4xf64>) -> tensor<?x8x4xf64>
// CHECK: tensor.conv %{{.*}}, %{{.*}} stride [1, 2, 1] : (tensor<1x4x4x4x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<1x3x2x3x3xf32>
// CHECK: tensor.reduce_window_max %{{.*}} window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<8x14x14x16xf32> -> tensor<8x7x7x16xf32>
// CHECK: tensor.reduce_window_sum %{{.*}} window [1, 3, 3, 1] pad {{\[\[}}0, 0], [1, 1], [1, 1], [0, 0]] : tensor<8x14x14x16xf32> -> tensor<8x14x14x16xf32>
// CHECK: tensor.reduce_window_sum %{{.*}} window [2] : tensor<5xi32> -> tensor<4xi32>
// CHECK: tensor.window_max_scatter %{{.*}}, %{{.*}} window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<8x14x14x16xf32>, tensor<8x7x7x16xf32>) -> tensor<8x14x14x16xf32>
// CHECK: tensor.window_max_select %{{.*}}, %{{.*}} window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<8x14x14x16xf32>, tensor<8x14x14x16xf32>) -> tensor<8x7x7x16xf32>
func.func @conv_and_pooling(%x: tensor<8x28x28x3xf32>, %w: tensor<3x3x3x16xf32>, %x6: tensor<2x9x9x6xf32>,
                            %w6: tensor<3x3x2x6xf32>, %x1: tensor<?x5x2xf64>, %w1: tensor<3x2x4xf64>,
                            %x3: tensor<1x4x4x4x2xf32>, %w3: tensor<2x2x2x2x3xf32>, %i: tensor<5xi32>) -> tensor<8x14x14x16xf32> {
  %y = tensor.conv %x, %w stride [2, 2] pad [[1, 1], [1, 1]] : (tensor<8x28x28x3xf32>, tensor<3x3x3x16xf32>) -> tensor<8x14x14x16xf32>
  %z = tensor.conv %x6, %w6 stride [1, 1] pad [[0, 0], [0, 0]] input_dilation [1, 1] dilation [2, 2] groups 3 : (tensor<2x9x9x6xf32>, tensor<3x3x2x6xf32>) -> tensor<2x5x5x6xf32>
  %z1 = tensor.conv %x1, %w1 pad [[-1, 2]] input_dilation [2] : (tensor<?x5x2xf64>, tensor<3x2x4xf64>) -> tensor<?x8x4xf64>
  %z3 = tensor.conv %x3, %w3 stride [1, 2, 1] groups 1 : (tensor<1x4x4x4x2xf32>, tensor<2x2x2x2x3xf32>) -> tensor<1x3x2x3x3xf32>
  %p = tensor.reduce_window_max %y window [1, 2, 2, 1] stride [1, 2, 2, 1] : tensor<8x14x14x16xf32> -> tensor<8x7x7x16xf32>
  %s = tensor.reduce_window_sum %y window [1, 3, 3, 1] stride [1, 1, 1, 1] pad [[0, 0], [1, 1], [1, 1], [0, 0]] : tensor<8x14x14x16xf32> -> tensor<8x14x14x16xf32>
  %si = tensor.reduce_window_sum %i window [2] : tensor<5xi32> -> tensor<4xi32>
  %g = tensor.window_max_scatter %y, %p window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<8x14x14x16xf32>, tensor<8x7x7x16xf32>) -> tensor<8x14x14x16xf32>
  %t = tensor.window_max_select %y, %g window [1, 2, 2, 1] stride [1, 2, 2, 1] : (tensor<8x14x14x16xf32>, tensor<8x14x14x16xf32>) -> tensor<8x7x7x16xf32>
  func.return %y : tensor<8x14x14x16xf32>
}

// Ops for real models (SPEC §3.1): dot (dot_general), reduce_min, reduce_prod,
// argmax, argmin, iota, reverse. Empty dot clauses are left out when printed.
// CHECK-LABEL: func.func @model_ops
// CHECK: tensor.dot %{{.*}}, %{{.*}} batch [0] x [0] contract [2] x [1] : (tensor<8x64x32xf32>, tensor<8x32x16xf32>) -> tensor<8x64x16xf32>
// CHECK: tensor.dot %{{.*}}, %{{.*}} contract [1] x [0] : (tensor<?x5xf64>, tensor<5x?xf64>) -> tensor<?x?xf64>
// CHECK: tensor.dot %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK: tensor.dot %{{.*}}, %{{.*}} batch [1, 0] x [0, 1] : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: tensor.reduce_min %{{.*}} [1] : tensor<4x5xf32> -> tensor<4xf32>
// CHECK: tensor.reduce_prod %{{.*}} [0, 1] : tensor<?x5xf64> -> tensor<f64>
// CHECK: tensor.argmax %{{.*}} [1] : tensor<4x5xf32> -> tensor<4xi64>
// CHECK: tensor.argmin %{{.*}} [0] : tensor<?x5xf64> -> tensor<5xi64>
// CHECK: tensor.iota [1] : tensor<4x3xi64>
// CHECK: tensor.iota [0] : tensor<4x3xf32>
// CHECK: tensor.reverse %{{.*}} [0] : tensor<4x5xf32>
// CHECK: tensor.reverse %{{.*}} [1, 0] : tensor<?x5xf64>
func.func @model_ops(%a: tensor<8x64x32xf32>, %b: tensor<8x32x16xf32>, %x: tensor<4x5xf32>,
                     %m: tensor<?x5xf64>, %n: tensor<5x?xf64>, %u: tensor<3xf32>, %v: tensor<2xf32>,
                     %p: tensor<3x2xf32>, %q: tensor<2x3xf32>) {
  %c = tensor.dot %a, %b batch [0] x [0] contract [2] x [1] : (tensor<8x64x32xf32>, tensor<8x32x16xf32>) -> tensor<8x64x16xf32>
  %mm = tensor.dot %m, %n batch [] x [] contract [1] x [0] : (tensor<?x5xf64>, tensor<5x?xf64>) -> tensor<?x?xf64>
  %outer = tensor.dot %u, %v : (tensor<3xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %ew = tensor.dot %p, %q batch [1, 0] x [0, 1] : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mn = tensor.reduce_min %x [1] : tensor<4x5xf32> -> tensor<4xf32>
  %pr = tensor.reduce_prod %m [0, 1] : tensor<?x5xf64> -> tensor<f64>
  %k = tensor.argmax %x [1] : tensor<4x5xf32> -> tensor<4xi64>
  %k2 = tensor.argmin %m [0] : tensor<?x5xf64> -> tensor<5xi64>
  %i = tensor.iota [1] : tensor<4x3xi64>
  %i2 = tensor.iota [0] : tensor<4x3xf32>
  %r = tensor.reverse %x [0] : tensor<4x5xf32>
  %r2 = tensor.reverse %m [1, 0] : tensor<?x5xf64>
  return
}

// The elementwise ops of SPEC §3.1.
// CHECK-LABEL: func.func @model_elementwise
// CHECK: tensor.rsqrt %{{.*}} : tensor<4xf32>
// CHECK: tensor.erf %{{.*}} : tensor<4xf32>
// CHECK: tensor.log1p %{{.*}} : tensor<4xf32>
// CHECK: tensor.expm1 %{{.*}} : tensor<4xf32>
// CHECK: tensor.sign %{{.*}} : tensor<4xf32>
// CHECK: tensor.floor %{{.*}} : tensor<4xf32>
// CHECK: tensor.ceil %{{.*}} : tensor<4xf32>
// CHECK: tensor.round %{{.*}} : tensor<4xf32>
// CHECK: tensor.atan %{{.*}} : tensor<4xf32>
// CHECK: tensor.atan2 %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: tensor.rem %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: tensor.clamp %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: tensor.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK: tensor.clamp %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x?xi32>
// CHECK: tensor.and %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK: tensor.or %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK: tensor.xor %{{.*}}, %{{.*}} : tensor<2x?xi32>
// CHECK: tensor.not %{{.*}} : tensor<4xi1>
// CHECK: tensor.not %{{.*}} : tensor<2x?xi32>
func.func @model_elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>, %d: tensor<?xf64>, %e: tensor<3xf64>,
                             %m: tensor<4xi1>, %i: tensor<2x?xi32>) {
  %0 = tensor.rsqrt %a : tensor<4xf32>
  %1 = tensor.erf %a : tensor<4xf32>
  %2 = tensor.log1p %a : tensor<4xf32>
  %3 = tensor.expm1 %a : tensor<4xf32>
  %4 = tensor.sign %a : tensor<4xf32>
  %5 = tensor.floor %a : tensor<4xf32>
  %6 = tensor.ceil %a : tensor<4xf32>
  %7 = tensor.round %a : tensor<4xf32>
  %8 = tensor.atan %a : tensor<4xf32>
  %9 = tensor.atan2 %a, %b : tensor<4xf32>
  %10 = tensor.rem %a, %b : tensor<4xf32>
  %11 = tensor.clamp %a, %b, %a : tensor<4xf32>
  %12 = tensor.clamp %d, %e, %e : (tensor<?xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %13 = tensor.clamp %i, %i, %i : tensor<2x?xi32>
  %14 = tensor.and %m, %m : tensor<4xi1>
  %15 = tensor.or %m, %m : tensor<4xi1>
  %16 = tensor.xor %i, %i : tensor<2x?xi32>
  %17 = tensor.not %m : tensor<4xi1>
  %18 = tensor.not %i : tensor<2x?xi32>
  return
}
// Upstream's gather and scatter (index or integer coordinates, full and
// rank-reduced slice forms, `unique`), and our scatter_add.
// CHECK-LABEL: func.func @gather_scatter
// CHECK: tensor.gather %{{.*}}[%{{.*}}] gather_dims([1, 2]) unique : (tensor<4x5x6xf32>, tensor<1x3x2xi32>) -> tensor<1x3x4x1x1xf32>
// CHECK: tensor.gather %{{.*}}[%{{.*}}] gather_dims([1, 2]) unique : (tensor<4x5x6xf32>, tensor<1x3x2xindex>) -> tensor<1x3x4xf32>
// CHECK: tensor.scatter %{{.*}} into %{{.*}}[%{{.*}}] scatter_dims([1, 2]) unique : (tensor<1x3x4x1x1xf32>, tensor<4x5x6xf32>, tensor<1x3x2xindex>) -> tensor<4x5x6xf32>
// CHECK: tensor.scatter %{{.*}} into %{{.*}}[%{{.*}}] scatter_dims([1, 2]) unique : (tensor<1x3x4xf32>, tensor<4x5x6xf32>, tensor<1x3x2xi32>) -> tensor<4x5x6xf32>
// CHECK: tensor.gather %{{.*}}[%{{.*}}] gather_dims([0]) : (tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>
// CHECK: tensor.scatter_add %{{.*}} into %{{.*}}[%{{.*}}] scatter_dims([0]) : (tensor<3x1x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
// CHECK: tensor.gather %{{.*}}[%{{.*}}] gather_dims([0]) : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
func.func @gather_scatter(%dest : tensor<4x5x6xf32>, %indices: tensor<1x3x2xindex>, %indices_i32: tensor<1x3x2xi32>,
                          %table: tensor<10x4xf32>, %ids: tensor<3x1xindex>,
                          %dyn: tensor<?x4xf32>, %dyn_ids: tensor<?x1xi64>) {
  %gathered = tensor.gather %dest[%indices_i32] gather_dims([1, 2]) unique:
    (tensor<4x5x6xf32>, tensor<1x3x2xi32>) -> tensor<1x3x4x1x1xf32>
  %rank_reduced_gathered = tensor.gather %dest[%indices] gather_dims([1, 2]) unique:
    (tensor<4x5x6xf32>, tensor<1x3x2xindex>) -> tensor<1x3x4xf32>
  %scattered = tensor.scatter %gathered into %dest[%indices]
      scatter_dims([1, 2]) unique:
    (tensor<1x3x4x1x1xf32>, tensor<4x5x6xf32>, tensor<1x3x2xindex>) -> tensor<4x5x6xf32>
  %rank_reduced_scattered = tensor.scatter %rank_reduced_gathered into %dest[%indices_i32]
      scatter_dims([1, 2]) unique:
    (tensor<1x3x4xf32>, tensor<4x5x6xf32>, tensor<1x3x2xi32>) -> tensor<4x5x6xf32>
  %g = tensor.gather %table[%ids] gather_dims([0]) : (tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>
  %r = tensor.scatter_add %g into %table[%ids] scatter_dims([0]) : (tensor<3x1x4xf32>, tensor<10x4xf32>, tensor<3x1xindex>) -> tensor<10x4xf32>
  %d = tensor.gather %dyn[%dyn_ids] gather_dims([0]) : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func.func @generate
// CHECK: tensor.generate %{{.*}}, %{{.*}} {
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<?x3x?xf32>
// CHECK: tensor.generate {
// CHECK: } : tensor<2x3xf32>
func.func @generate(%m : index, %n : index) -> (tensor<?x3x?xf32>, tensor<2x3xf32>) {
  %tnsr = tensor.generate %m, %n {
    ^bb0(%i : index, %j : index, %k : index):
      %elem = arith.constant 8.0 : f32
      tensor.yield %elem : f32
  } : tensor<?x3x?xf32>
  %static = tensor.generate {
    ^bb0(%i : index, %j : index):
      %elem = arith.constant 8.0 : f32
      tensor.yield %elem : f32
  } : tensor<2x3xf32>
  return %tnsr, %static : tensor<?x3x?xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @rank
// CHECK: tensor.rank %{{.*}} : tensor<4x4x?xf32>
// CHECK: tensor.rank %{{.*}} : tensor<*xf32>
func.func @rank(%t : tensor<4x4x?xf32>, %u : tensor<*xf32>) -> (index, index) {
  %0 = tensor.rank %t : tensor<4x4x?xf32>
  %1 = tensor.rank %u : tensor<*xf32>
  return %0, %1 : index, index
}
