// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=true}' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=true}' | irt-opt | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas=false}' | FileCheck %s --check-prefix=LOOPS

// tensor.dot with batch dims: one gemm per batch element, in a loop nest over the
// batch dims; the pointers advance by the batch strides (bytes).
// CHECK-LABEL: func.func @batched(
// CHECK-SAME:      %[[A:[^:]+]]: memref<8x64x32xf32>, %[[B:[^:]+]]: memref<8x32x16xf32>)
// CHECK-DAG:     %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : i64
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : i64
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : i64
// CHECK-DAG:     %[[SA:.+]] = arith.constant 2048 : index
// CHECK-DAG:     %[[SB:.+]] = arith.constant 512 : index
// CHECK-DAG:     %[[SC:.+]] = arith.constant 1024 : index
// CHECK-DAG:     %[[F32:.+]] = arith.constant 4 : i64
// CHECK:         %[[C:.+]] = memref.alloc() : memref<8x64x16xf32>
// CHECK:         %[[PA:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK:         loop.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK:           arith.muli %[[I]], %[[SA]] : index
// CHECK:           arith.muli %{{.+}}, %[[F32]] : i64
// CHECK:           %[[PAI:.+]] = arith.addi %[[PA]], %{{.+}} : i64
// CHECK:           arith.muli %[[I]], %[[SB]] : index
// CHECK:           arith.muli %[[I]], %[[SC]] : index
// CHECK:           func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[NT]], %[[NT]], %[[C64]], %[[C16]], %[[C32]], %{{.+}}, %[[PAI]], %[[C32]], %{{.+}}, %[[C16]], %{{.+}}, %{{.+}}, %[[C16]])
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[C]]
// LOOPS-LABEL: func.func @batched(
// LOOPS-NOT:     func.call
// LOOPS:         loop.for
func.func @batched(%a: tensor<8x64x32xf32>, %b: tensor<8x32x16xf32>) -> tensor<8x64x16xf32> {
  %c = tensor.dot %a, %b batch [0] x [0] contract [2] x [1] : (tensor<8x64x32xf32>, tensor<8x32x16xf32>) -> tensor<8x64x16xf32>
  return %c : tensor<8x64x16xf32>
}

// Attention scores over heads in a (batch, seq, head, dim) layout: strided
// matrices (leading dimension heads*dim = 64), no copy; K is read transposed.
// CHECK-LABEL: func.func @heads(
// CHECK-NOT:     memref.alloc() : memref<2x128x8x8xf64>
// CHECK-DAG:     %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG:     %[[T:.+]] = arith.constant 112 : i32
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : i64
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : i64
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : i64
// CHECK:         loop.for
// CHECK-NEXT:      loop.for
// CHECK:             func.call @scipy_cblas_dgemm64_(%{{.+}}, %[[NT]], %[[T]], %[[C128]], %[[C128]], %[[C8]], %{{.+}}, %{{.+}}, %[[C64]], %{{.+}}, %[[C64]], %{{.+}}, %{{.+}}, %[[C128]])
func.func @heads(%q: tensor<2x128x8x8xf64>, %k: tensor<2x128x8x8xf64>) -> tensor<2x8x128x128xf64> {
  %s = tensor.dot %q, %k batch [0, 2] x [0, 2] contract [3] x [3] : (tensor<2x128x8x8xf64>, tensor<2x128x8x8xf64>) -> tensor<2x8x128x128xf64>
  return %s : tensor<2x8x128x128xf64>
}

// A transposed operand folds into the dimension numbers (then the trans flag);
// an operand in no strided-matrix layout (its batch dim innermost) is transposed
// first.
// CHECK-LABEL: func.func @layouts(
// CHECK-SAME:      %[[X:[^:]+]]: memref<64x32xf32>, %[[Y:[^:]+]]: memref<64x16xf32>, %[[U:[^:]+]]: memref<32x64x4xf32>, %[[V:[^:]+]]: memref<4x64x16xf32>)
// CHECK-DAG:     %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG:     %[[T:.+]] = arith.constant 112 : i32
// CHECK-NOT:     memref.alloc() : memref<32x64xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[T]], %[[NT]],
// CHECK:         %[[UT:.+]] = memref.alloc() : memref<4x32x64xf32>
// CHECK:         loop.for
// CHECK:           memref.store %{{.+}}, %[[UT]]
// CHECK:         loop.for
// CHECK:           func.call @scipy_cblas_sgemm64_(%{{.+}}, %[[NT]], %[[NT]],
func.func @layouts(%x: tensor<64x32xf32>, %y: tensor<64x16xf32>, %u: tensor<32x64x4xf32>, %v: tensor<4x64x16xf32>)
    -> (tensor<32x16xf32>, tensor<4x32x16xf32>) {
  %xt = tensor.transpose %x [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %g = tensor.dot %xt, %y contract [1] x [0] : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %h = tensor.dot %u, %v batch [2] x [0] contract [1] x [1] : (tensor<32x64x4xf32>, tensor<4x64x16xf32>) -> tensor<4x32x16xf32>
  return %g, %h : tensor<32x16xf32>, tensor<4x32x16xf32>
}

// Small static dots stay loop nests (accumulating over the contracting dims).
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     func.call
// CHECK:         loop.for
// CHECK:         func.return
func.func @small(%a: tensor<2x4x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x4x4xf32> {
  %c = tensor.dot %a, %b batch [0] x [0] contract [2] x [1] : (tensor<2x4x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  return %c : tensor<2x4x4xf32>
}
