// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=true}' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=true}' | irt-opt | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=false}' | FileCheck %s --check-prefix=LOOPS

// Large f32/f64 matmuls call numpy's OpenBLAS gemm (row-major CBLAS, 64-bit ints):
// (order=101, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta=0, C, ldc),
// buffers passed by address, leading dimensions clamped to at least 1.

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[A:[^:]+]]: memref<?x?xf64>, %[[B:[^:]+]]: memref<?x?xf64>) -> memref<?x?xf64> {
// CHECK-DAG:     %[[ROW:.+]] = arith.constant 101 : i32
// CHECK-DAG:     %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[I1:.+]] = arith.constant 1 : i64
// CHECK:         %[[M:.+]] = memref.dim %[[A]], %{{.+}} : memref<?x?xf64>
// CHECK:         %[[K:.+]] = memref.dim %[[A]], %{{.+}} : memref<?x?xf64>
// CHECK:         memref.dim %[[B]], %{{.+}} : memref<?x?xf64>
// CHECK:         %[[N:.+]] = memref.dim %[[B]], %{{.+}} : memref<?x?xf64>
// CHECK:         %[[C:.+]] = memref.alloc(%[[M]], %[[N]]) : memref<?x?xf64>
// CHECK:         "memref.extract_aligned_pointer_as_index"(%[[A]])
// CHECK:         "memref.extract_aligned_pointer_as_index"(%[[B]])
// CHECK:         "memref.extract_aligned_pointer_as_index"(%[[C]])
// CHECK:         arith.maxsi %{{.+}}, %[[I1]] : i64
// CHECK:         func.call @scipy_cblas_dgemm64_(%[[ROW]], %[[NT]], %[[NT]], %{{.+}}, %{{.+}}, %{{.+}}, %[[ONE]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ZERO]], %{{.+}}, %{{.+}}) : (i32, i32, i32, i64, i64, i64, f64, i64, i64, i64, i64, f64, i64, i64) -> ()
// CHECK-NEXT:    func.return %[[C]] : memref<?x?xf64>
// Without BLAS: C = 0, then an axpy nest (dot_loops.mlir): per row i of A, DEPTH = 4
// rows of B at a time are scaled and added to row i of C in one pass along j.
// LOOPS-LABEL: func.func @dynamic(
// LOOPS-NOT:     func.call
// LOOPS:         %[[OUT:.+]] = memref.alloc(
// LOOPS:         memref.store %{{.+}}, %[[OUT]][%{{.+}}, %{{.+}}] : memref<?x?xf64>
// LOOPS:         loop.for %[[I:.+]] = %{{.+}} to
// LOOPS:           loop.for %[[KB:.+]] = %{{.+}} to
// LOOPS:             %[[X0:.+]] = memref.load %{{.+}}[%[[I]], %[[K0:.+]]] : memref<?x?xf64>
// LOOPS-COUNT-3:     memref.load %{{.+}}[%[[I]], %{{.+}}] : memref<?x?xf64>
// LOOPS-NEXT:        loop.for %[[J:.+]] = %{{.+}} to
// LOOPS-NEXT:          %[[Y0:.+]] = memref.load %{{.+}}[%[[K0]], %[[J]]] : memref<?x?xf64>
// LOOPS-NEXT:          arith.mulf %[[X0]], %[[Y0]] : f64
// LOOPS:               %[[C:.+]] = memref.load %[[OUT]][%[[I]], %[[J]]] : memref<?x?xf64>
// LOOPS-NEXT:          %[[S:.+]] = arith.addf %[[C]], %{{.+}} : f64
// LOOPS-NEXT:          memref.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<?x?xf64>
func.func @dynamic(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = tensor.matmul %a, %b : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}

// Transposed operands fold into the flags (112 = Trans): dA = dC @ B^T, dB = A^T @ dC.
// The transposes are gone; static sizes become i64 constants.
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME:      %[[A:[^:]+]]: memref<64x32xf32>, %[[B:[^:]+]]: memref<16x32xf32>, %[[D:[^:]+]]: memref<64x16xf32>)
// CHECK-NOT:     loop.for
// CHECK-DAG:     %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG:     %[[T:.+]] = arith.constant 112 : i32
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : i64
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : i64
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : i64
// CHECK:         %[[DA:.+]] = memref.alloc() : memref<64x32xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[NT]], %[[NT]], %[[C64]], %[[C32]], %[[C16]], %{{.+}}, %{{.+}}, %[[C16]], %{{.+}}, %[[C32]], %{{.+}}, %{{.+}}, %[[C32]])
// CHECK:         %[[DB:.+]] = memref.alloc() : memref<16x32xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[T]], %[[NT]], %[[C16]], %[[C32]], %[[C64]], %{{.+}}, %{{.+}}, %[[C16]], %{{.+}}, %[[C32]], %{{.+}}, %{{.+}}, %[[C32]])
// CHECK:         %[[DAT:.+]] = memref.alloc() : memref<32x64xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[T]], %[[T]], %[[C32]], %[[C64]], %[[C16]], %{{.+}}, %{{.+}}, %[[C32]], %{{.+}}, %[[C16]], %{{.+}}, %{{.+}}, %[[C64]])
// CHECK-NOT:     loop.for
// CHECK:         func.return
// LOOPS-LABEL: func.func @transposed(
// LOOPS-NOT:     func.call
// LOOPS:         loop.for
func.func @transposed(%a: tensor<64x32xf32>, %b: tensor<16x32xf32>, %d: tensor<64x16xf32>)
    -> (tensor<64x32xf32>, tensor<16x32xf32>, tensor<32x64xf32>) {
  %dc = tensor.matmul %d, %b : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %dt = tensor.transpose %d [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %db = tensor.matmul %dt, %a : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %at = tensor.transpose %b [1, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  %bt = tensor.transpose %d [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %dat = tensor.matmul %at, %bt : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
  return %dc, %db, %dat : tensor<64x32xf32>, tensor<16x32xf32>, tensor<32x64xf32>
}

// Small static matmuls (M*N*K below blas_threshold, 4096) stay loop nests.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     func.call
// CHECK:         loop.for
// CHECK:         func.return
func.func @small(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = tensor.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// One private declaration per gemm used.
// CHECK-DAG: func.func private @scipy_cblas_dgemm64_(i32, i32, i32, i64, i64, i64, f64, i64, i64, i64, i64, f64, i64, i64)
// CHECK-DAG: func.func private @scipy_cblas_sgemm64_(i32, i32, i32, i64, i64, i64, f32, i64, i64, i64, i64, f32, i64, i64)
// LOOPS-NOT: scipy_cblas
