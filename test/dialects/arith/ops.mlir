// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s

// Upstream's arith: casts, compares and select on vectors and tensors,
// arith on tensors (SPEC 2), remf, index_castui, spaced shapes.

// CHECK-LABEL: func.func @casts
func.func @casts(%v: vector<8xi32>, %t: tensor<2x?xf32>, %s: vector<[4]xi32>, %i: tensor<4xindex>) {
  // CHECK: arith.extui %{{.*}} : vector<8xi32> to vector<8xi64>
  %0 = arith.extui %v : vector<8xi32> to vector<8xi64>
  // CHECK: arith.extf %{{.*}} : tensor<2x?xf32> to tensor<2x?xf64>
  %1 = arith.extf %t : tensor<2x?xf32> to tensor<2x?xf64>
  // CHECK: arith.fptosi %{{.*}} : tensor<2x?xf32> to tensor<2x?xi32>
  %2 = arith.fptosi %t : tensor<2x?xf32> to tensor<2x?xi32>
  // CHECK: arith.trunci %{{.*}} : vector<[4]xi32> to vector<[4]xi8>
  %3 = arith.trunci %s : vector<[4]xi32> to vector<[4]xi8>
  // CHECK: arith.index_cast %{{.*}} : tensor<4xindex> to tensor<4xi64>
  %4 = arith.index_cast %i : tensor<4xindex> to tensor<4xi64>
  // CHECK: arith.index_castui %{{.*}} : tensor<4xindex> to tensor<4xi32>
  %5 = arith.index_castui %i : tensor<4xindex> to tensor<4xi32>
  // CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
  %6 = arith.bitcast %v : vector<8xi32> to vector<8xf32>
  func.return
}

// CHECK-LABEL: func.func @compares
func.func @compares(%a: vector<8xi64>, %b: tensor<4xf32>, %c: vector<i64>) -> (vector<8xi1>, tensor<4xi1>, vector<i1>) {
  // CHECK: %{{.*}} = arith.cmpi ult, %{{.*}}, %{{.*}} : vector<8xi64>
  %0 = arith.cmpi ult, %a, %a : vector<8xi64>
  // CHECK: %{{.*}} = arith.cmpf olt, %{{.*}}, %{{.*}} fastmath<fast> : tensor<4xf32>
  %1 = arith.cmpf olt, %b, %b fastmath<fast> : tensor<4xf32>
  // CHECK: %{{.*}} = arith.cmpi eq, %{{.*}}, %{{.*}} : vector<i64>
  %2 = arith.cmpi eq, %c, %c : vector<i64>
  func.return %0, %1, %2 : vector<8xi1>, tensor<4xi1>, vector<i1>
}

// CHECK-LABEL: func.func @selects
func.func @selects(%m: tensor<8xi1>, %a: tensor<8xi32>, %p: i1, %x: f32) -> (tensor<8xi32>, tensor<8xi32>, f32) {
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xi1>, tensor<8xi32>
  %0 = arith.select %m, %a, %a : tensor<8xi1>, tensor<8xi32>
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xi32>
  %1 = arith.select %p, %a, %a : tensor<8xi32>
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
  %2 = arith.select %p, %x, %x : f32
  func.return %0, %1, %2 : tensor<8xi32>, tensor<8xi32>, f32
}

// CHECK-LABEL: func.func @new_ops_and_tensors
func.func @new_ops_and_tensors(%x: f64, %t: tensor<4xf64>, %i: index) -> (f64, tensor<4xf64>, i64) {
  // CHECK: arith.remf %{{.*}}, %{{.*}} : f64
  %0 = arith.remf %x, %x : f64
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf64>
  %1 = arith.addf %t, %t : tensor<4xf64>
  // CHECK: arith.index_castui %{{.*}} : index to i64
  %2 = arith.index_castui %i : index to i64
  func.return %0, %1, %2 : f64, tensor<4xf64>, i64
}

// CHECK-LABEL: func.func @spaced_shapes
// CHECK: arith.constant dense<0> : tensor<42xi32>
// CHECK: arith.constant dense<0> : vector<4xi32>
func.func @spaced_shapes() -> (tensor<42 x i32>, vector<4 x i32>) {
  %0 = arith.constant dense<0> : tensor<42 x i32>
  %1 = arith.constant dense<0> : vector<4 x i32>
  func.return %0, %1 : tensor<42xi32>, vector<4xi32>
}
