// One function per conversion; test_convert_ops.py runs each of them on the StableHLO
// interpreter and converted, on random inputs, and compares.
// RUN: irt-opt %s -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-LABEL: func.func @elementwise
// CHECK:         tensor.add
// CHECK:         tensor.sub
// CHECK:         tensor.mul
// CHECK:         tensor.div
// CHECK:         tensor.max
// CHECK:         tensor.min
// CHECK:         tensor.pow
// CHECK:         tensor.neg
// CHECK:         tensor.exp
// CHECK:         tensor.log
// CHECK:         tensor.sqrt
// CHECK:         tensor.tanh
// CHECK:         tensor.sin
// CHECK:         tensor.cos
// CHECK:         tensor.abs
// CHECK:         tensor.logistic
// CHECK:         tensor.tan
// CHECK:         %[[SQ:.*]] = tensor.mul %{{.*}}, %{{.*}} : tensor<2x3xf64>
func.func @elementwise(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.add %a, %b : tensor<2x3xf64>
  %1 = stablehlo.subtract %0, %b : tensor<2x3xf64>
  %2 = stablehlo.multiply %1, %a : tensor<2x3xf64>
  %3 = stablehlo.divide %2, %b : tensor<2x3xf64>
  %4 = stablehlo.maximum %3, %a : tensor<2x3xf64>
  %5 = stablehlo.minimum %4, %b : tensor<2x3xf64>
  %6 = stablehlo.abs %5 : tensor<2x3xf64>
  %7 = stablehlo.power %6, %a : tensor<2x3xf64>
  %8 = stablehlo.negate %7 : tensor<2x3xf64>
  %9 = stablehlo.exponential %8 : tensor<2x3xf64>
  %10 = stablehlo.log %9 : tensor<2x3xf64>
  %11 = stablehlo.sqrt %6 : tensor<2x3xf64>
  %12 = stablehlo.tanh %10 : tensor<2x3xf64>
  %13 = stablehlo.sine %12 : tensor<2x3xf64>
  %14 = stablehlo.cosine %13 : tensor<2x3xf64>
  %15 = stablehlo.abs %14 : tensor<2x3xf64>
  %16 = stablehlo.logistic %15 : tensor<2x3xf64>
  %17 = stablehlo.tan %16 : tensor<2x3xf64>
  %18 = chlo.square %17 : tensor<2x3xf64> -> tensor<2x3xf64>
  %19 = stablehlo.add %18, %11 : tensor<2x3xf64>
  return %19 : tensor<2x3xf64>
}

// i1: StableHLO's add is `or`, multiply `and`; compare NE, UNSIGNED on i1 is a plain ne.
// CHECK-LABEL: func.func @logic
// CHECK:         tensor.cmp lt, %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         tensor.or %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK:         tensor.and %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK:         tensor.xor %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK:         tensor.cmp ne, %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK:         %[[INF:.*]] = arith.constant dense<0x7f800000> : tensor<4xf32>
// CHECK:         tensor.cmp lt, %{{.*}}, %[[INF]] : tensor<4xf32>
// CHECK:         tensor.convert %{{.*}} : tensor<4xi1> -> tensor<4xf32>
func.func @logic(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare  GE, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.add %0, %1 : tensor<4xi1>
  %3 = stablehlo.multiply %2, %0 : tensor<4xi1>
  %4 = stablehlo.xor %3, %1 : tensor<4xi1>
  %5 = stablehlo.compare  NE, %4, %0,  UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = stablehlo.is_finite %a : (tensor<4xf32>) -> tensor<4xi1>
  %7 = stablehlo.and %5, %6 : tensor<4xi1>
  %8 = stablehlo.or %7, %0 : tensor<4xi1>
  %9 = stablehlo.convert %8 : (tensor<4xi1>) -> tensor<4xf32>
  %10 = stablehlo.select %8, %a, %9 : tensor<4xi1>, tensor<4xf32>
  return %10 : tensor<4xf32>
}

// CHECK-LABEL: func.func @shapes
// CHECK:         %[[T:.*]] = tensor.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK:         tensor.broadcast %[[T]] [0, 2] : tensor<3x2xf32> -> tensor<3x4x2xf32>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<3x4x2xf32> into tensor<24xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 1, 0] [2, 2, 2] [1, 1, 2] : tensor<2x3x4xf32> to tensor<2x2x2xf32>
// CHECK:         tensor.concat dim(2)
func.func @shapes(%a: tensor<2x3xf32>) -> tensor<2x2x4xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [2, 0] : (tensor<2x3xf32>) -> tensor<3x4x2xf32>
  %1 = stablehlo.reshape %0 : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.slice %1 [0:2, 1:3, 0:4:2] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %3 = stablehlo.transpose %2, dims = [0, 2, 1] : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %4 = stablehlo.concatenate %2, %3, dim = 2 : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x4xf32>
  return %4 : tensor<2x2x4xf32>
}

// Interior and negative edge padding: a tensor of the padding value, a strided insert, a crop.
// CHECK-LABEL: func.func @pad
// CHECK:         %[[FILL:.*]] = tensor.broadcast %{{.*}} [] : tensor<f64> -> tensor<5x8xf64>
// CHECK:         %[[INS:.*]] = tensor.insert_slice %a into %[[FILL]][0, 2] [3, 2] [2, 3] : tensor<3x2xf64> into tensor<5x8xf64>
// CHECK:         tensor.extract_slice %[[INS]][1, 0] [4, 8] [1, 1] : tensor<5x8xf64> to tensor<4x8xf64>
func.func @pad(%a: tensor<3x2xf64>, %v: tensor<f64>) -> tensor<4x8xf64> {
  %0 = stablehlo.pad %a, %v, low = [-1, 2], high = [0, 2], interior = [1, 2] : (tensor<3x2xf64>, tensor<f64>) -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// dot_general and dot: tensor.dot with the same dimension numbers.
// CHECK-LABEL: func.func @dot_general
// CHECK:         tensor.dot %a, %b contract [0, 2] x [0, 2] : (tensor<3x2x4xf64>, tensor<3x5x4xf64>) -> tensor<2x5xf64>
// CHECK:         tensor.dot %m, %v contract [1] x [0] : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2xf64>
func.func @dot_general(%a: tensor<3x2x4xf64>, %b: tensor<3x5x4xf64>, %m: tensor<2x3xf64>, %v: tensor<3xf64>) -> (tensor<2x5xf64>, tensor<2xf64>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0, 2] x [0, 2], precision = [DEFAULT, DEFAULT] : (tensor<3x2x4xf64>, tensor<3x5x4xf64>) -> tensor<2x5xf64>
  %1 = stablehlo.dot %m, %v : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2xf64>
  return %0, %1 : tensor<2x5xf64>, tensor<2xf64>
}

// A reduce whose init is not the identity adds it once more; i1 reductions go through f32.
// CHECK-LABEL: func.func @reduce
// CHECK:         %[[S:.*]] = tensor.reduce_sum %a [1] : tensor<2x3xf32> -> tensor<2xf32>
// CHECK:         tensor.add %[[S]], %{{.*}} : tensor<2xf32>
// CHECK:         tensor.reduce_max %a [0, 1] : tensor<2x3xf32> -> tensor<f32>
// CHECK:         tensor.convert %{{.*}} : tensor<2x3xi1> -> tensor<2x3xf32>
// CHECK:         tensor.reduce_max %{{.*}} [1] : tensor<2x3xf32> -> tensor<2xf32>
// CHECK:         tensor.cmp le,
func.func @reduce(%a: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<2xi1>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %one) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%a init: %ninf) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %pos = stablehlo.compare  GT, %a, %z,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = stablehlo.reduce(%pos init: %t) applies stablehlo.and across dimensions = [1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<2xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<f32>, tensor<2xi1>
}

// dynamic_slice / dynamic_update_slice clamp their starts into bounds, as StableHLO does.
// CHECK-LABEL: func.func @dynamic
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         tensor.extract_slice %a[%{{.*}}, 1] [2, 2] [1, 1] : tensor<5x4xf32> to tensor<2x2xf32>
// CHECK:         tensor.insert_slice %{{.*}} into %a[%{{.*}}, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<5x4xf32>
func.func @dynamic(%a: tensor<5x4xf32>, %i: tensor<i32>) -> tensor<5x4xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c9 = stablehlo.constant dense<9> : tensor<i32>
  %0 = stablehlo.dynamic_slice %a, %i, %c1, sizes = [2, 2] : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %1 = stablehlo.exponential %0 : tensor<2x2xf32>
  %2 = stablehlo.dynamic_update_slice %a, %1, %i, %c9 : (tensor<5x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
  return %2 : tensor<5x4xf32>
}

// A while that is not a counter loop stays a while; its pass-through value is used from outside.
// CHECK-LABEL: func.func @while
// CHECK:         loop.while (%[[X:[a-z0-9_]+]] = %x) : (tensor<f64>) -> tensor<f64> {
// CHECK:           tensor.cmp lt, %[[X]], %lim : tensor<f64>
// CHECK:         } do {
// CHECK:           tensor.add %{{.*}}, %lim : tensor<f64>
func.func @while(%x: tensor<f64>, %lim: tensor<f64>) -> tensor<f64> {
  %0:2 = stablehlo.while(%v = %x, %l = %lim) : tensor<f64>, tensor<f64>
  cond {
    %c = stablehlo.compare  LT, %v, %l,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %v, %l : tensor<f64>
    %m = stablehlo.multiply %n, %n : tensor<f64>
    stablehlo.return %m, %l : tensor<f64>, tensor<f64>
  }
  return %0#0 : tensor<f64>
}

// A counter loop from 2 to 6 (stablehlo.if inside, and the counter read in the body).
// CHECK-LABEL: func.func @fori
// CHECK:         %[[LB:.*]] = arith.constant 2 : index
// CHECK:         %[[UB:.*]] = arith.constant 6 : index
// CHECK:         loop.for %i = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%{{.*}} = %x) -> (tensor<3xf32>) {
// CHECK:           arith.index_cast %i : index to i64
// CHECK:           tensor.from_elements %{{.*}} : tensor<i64>
// CHECK:           loop.if %{{.*}} -> (tensor<3xf32>) {
func.func @fori(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i64>) {
  %c2 = stablehlo.constant dense<2> : tensor<i64>
  %0:2 = stablehlo.while(%i = %c2, %v = %x) : tensor<i64>, tensor<3xf32>
  cond {
    %c6 = stablehlo.constant dense<6> : tensor<i64>
    %c = stablehlo.compare  LT, %i, %c6,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %c4 = stablehlo.constant dense<4> : tensor<i64>
    %small = stablehlo.compare  LT, %i, %c4,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %n = "stablehlo.if"(%small) ({
      %s = stablehlo.sine %v : tensor<3xf32>
      stablehlo.return %s : tensor<3xf32>
    }, {
      %t = stablehlo.tanh %v : tensor<3xf32>
      stablehlo.return %t : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i64>
    %i2 = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %i2, %n : tensor<i64>, tensor<3xf32>
  }
  return %0#1, %0#0 : tensor<3xf32>, tensor<i64>
}

// CHECK-LABEL: func.func @barrier_and_clamp
// CHECK-NOT:     optimization_barrier
// CHECK:         tensor.clamp %{{.*}}, %x, %hi : tensor<3xf32>
func.func @barrier_and_clamp(%x: tensor<3xf32>, %lo: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.optimization_barrier %x : tensor<3xf32>
  %hi = stablehlo.constant dense<0.5> : tensor<3xf32>
  %1 = stablehlo.clamp %lo, %0, %hi : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
