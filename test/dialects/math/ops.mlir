// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s

// Upstream's math ops that xDSL 0.74 lacks, and math on vectors and tensors.

// CHECK-LABEL: func.func @sincos_clampf
func.func @sincos_clampf(%f: f32, %v: vector<4xf32>, %t: tensor<4x?xf64>) {
  // CHECK: %{{.*}}, %{{.*}} = math.sincos %{{.*}} : f32
  %0:2 = math.sincos %f : f32
  // CHECK: %{{.*}}, %{{.*}} = math.sincos %{{.*}} fastmath<fast> : tensor<4x?xf64>
  %1:2 = math.sincos %t fastmath<fast> : tensor<4x?xf64>
  // CHECK: math.clampf %{{.*}} to [%{{.*}}, %{{.*}}] fastmath<fast> : vector<4xf32>
  %2 = math.clampf %v to [%v, %v] fastmath<fast> : vector<4xf32>
  // CHECK: math.clampf %{{.*}} to [%{{.*}}, %{{.*}}] : f32
  %3 = math.clampf %f to [%f, %f] fastmath<none> : f32
  // CHECK: math.atan2 %{{.*}}, %{{.*}} : tensor<4x?xf64>
  %4 = math.atan2 %t, %t : tensor<4x?xf64>
  func.return
}

// CHECK-LABEL: func.func @fpclass
func.func @fpclass(%f: f32, %v: vector<4xf32>, %t: tensor<4x?xf32>) -> (i1, vector<4xi1>, tensor<4x?xi1>, i1) {
  // CHECK: math.isfinite %{{.*}} : f32
  %0 = math.isfinite %f : f32
  // CHECK: math.isinf %{{.*}} : vector<4xf32>
  %1 = math.isinf %v : vector<4xf32>
  // CHECK: math.isnan %{{.*}} fastmath<nnan> : tensor<4x?xf32>
  %2 = math.isnan %t fastmath<nnan> : tensor<4x?xf32>
  // CHECK: math.isnormal %{{.*}} : f32
  %3 = math.isnormal %f : f32
  func.return %0, %1, %2, %3 : i1, vector<4xi1>, tensor<4x?xi1>, i1
}
