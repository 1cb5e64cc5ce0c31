// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas-threshold=0}' | FileCheck %s --check-prefix=FORCED

// The loop-nest dots (dot_loops.py) and which sizes take them by default
// (blas-threshold=-1: matrix-vector products always, matmuls below a measured
// M*N*K per dtype: 8192 for f64, 24576 for f32). An explicit threshold applies to
// every dot: 0 sends them all to gemm.

// y = A x: row dots, 4 rows of A against x at once, each a reassociable sum along
// the contiguous contracting dim (LLVM vectorizes it); the 130 % 4 rows left one by one.
// CHECK-LABEL: func.func @matvec(
// CHECK-NOT:     func.call
// CHECK:         loop.for %[[BLK:.+]] = %{{.+}} to %{{.+}} step
// CHECK:           %[[R0:.+]] = arith.muli %[[BLK]], %{{.+}} : index
// CHECK:           %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} = loop.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f64, f64, f64, f64) {
// CHECK-NEXT:        %[[A0:.+]] = memref.load %{{.+}}[%[[R0]], %[[K]]] : memref<130x64xf64>
// CHECK-NEXT:        %[[X:.+]] = memref.load %{{.+}}[%[[K]], %{{.+}}] : memref<64x1xf64>
// CHECK-NEXT:        %[[P:.+]] = arith.mulf %[[A0]], %[[X]] : f64
// CHECK-NEXT:        arith.addf %{{.+}}, %[[P]] fastmath<reassoc> : f64
// CHECK-COUNT-3:     arith.mulf %{{.+}}, %[[X]] : f64
// CHECK:             loop.yield
// CHECK-COUNT-4:   memref.store
// CHECK:         loop.for %{{.+}} = %{{.+}} to %{{.+}} step
// CHECK:           loop.for %{{.+}} iter_args(%{{.+}}) -> (f64) {
// CHECK:         func.return
// FORCED-LABEL: func.func @matvec(
// FORCED:         func.call @scipy_cblas_dgemm64_
func.func @matvec(%a: tensor<130x64xf64>, %x: tensor<64x1xf64>) -> tensor<130x1xf64> {
  %y = tensor.matmul %a, %x : (tensor<130x64xf64>, tensor<64x1xf64>) -> tensor<130x1xf64>
  return %y : tensor<130x1xf64>
}

// x^T A: y = 0, then 4 rows of A at a time scaled by x and added to y in one pass.
// CHECK-LABEL: func.func @vecmat(
// CHECK-NOT:     func.call
// CHECK:         loop.for %[[BLK:.+]] = %{{.+}} to %{{.+}} step
// CHECK-COUNT-4:   memref.load %{{.+}} : memref<1x8xf32>
// CHECK-NEXT:      loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step
// CHECK-COUNT-4:     memref.load %{{.+}}[%{{.+}}, %[[J]]] : memref<8x64xf32>
// CHECK:             memref.store %{{.+}}, %{{.+}}[%{{.+}}, %[[J]]] : memref<1x64xf32>
// CHECK:         func.return
func.func @vecmat(%x: tensor<1x8xf32>, %a: tensor<8x64xf32>) -> tensor<1x64xf32> {
  %y = tensor.matmul %x, %a : (tensor<1x8xf32>, tensor<8x64xf32>) -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// The matmul thresholds: 20^3 = 8000 < 8192 <= 21^3 (f64), 29^3 < 24576 <= 30^3 (f32).
// CHECK-LABEL: func.func @f64_below(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-LABEL: func.func @f64_above(
// CHECK:         func.call @scipy_cblas_dgemm64_
// CHECK-LABEL: func.func @f32_below(
// CHECK-NOT:     func.call
// CHECK:         func.return
// CHECK-LABEL: func.func @f32_above(
// CHECK:         func.call @scipy_cblas_sgemm64_
func.func @f64_below(%a: tensor<20x20xf64>, %b: tensor<20x20xf64>) -> tensor<20x20xf64> {
  %c = tensor.matmul %a, %b : (tensor<20x20xf64>, tensor<20x20xf64>) -> tensor<20x20xf64>
  return %c : tensor<20x20xf64>
}
func.func @f64_above(%a: tensor<21x21xf64>, %b: tensor<21x21xf64>) -> tensor<21x21xf64> {
  %c = tensor.matmul %a, %b : (tensor<21x21xf64>, tensor<21x21xf64>) -> tensor<21x21xf64>
  return %c : tensor<21x21xf64>
}
func.func @f32_below(%a: tensor<29x29xf32>, %b: tensor<29x29xf32>) -> tensor<29x29xf32> {
  %c = tensor.matmul %a, %b : (tensor<29x29xf32>, tensor<29x29xf32>) -> tensor<29x29xf32>
  return %c : tensor<29x29xf32>
}
func.func @f32_above(%a: tensor<30x30xf32>, %b: tensor<30x30xf32>) -> tensor<30x30xf32> {
  %c = tensor.matmul %a, %b : (tensor<30x30xf32>, tensor<30x30xf32>) -> tensor<30x30xf32>
  return %c : tensor<30x30xf32>
}
