// RUN: irt-opt %s -p 'lower-tensor-to-loop' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop' | irt-opt | FileCheck %s

// A conv with few output features and window × C × F terms is one loop per
// output position (n, o0, o1: LLVM vectorizes the innermost, o1) whose body is
// the whole window unrolled, the F sums carried as values (no buffer but the
// result, no zero-fill, no read-add-write), stored once each.
// CHECK-LABEL: func.func @unrolled(
// CHECK:         %[[R:.+]] = memref.alloc() : memref<2x4x5x3xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         loop.for %[[N:.+]] = %{{.+}} to
// CHECK-NEXT:      loop.for %[[O0:.+]] = %{{.+}} to
// CHECK-NEXT:        loop.for %[[O1:.+]] = %{{.+}} to
// CHECK-NEXT:          %[[X:.+]] = memref.load %{{.+}}[%[[N]], %[[O0]], %[[O1]], %{{.+}}] : memref<2x5x6x1xf32>
// CHECK-COUNT-12:      arith.mulf
// CHECK-NOT:           memref.load %[[R]]
// CHECK-COUNT-3:       memref.store %{{.+}}, %[[R]][%[[N]], %[[O0]], %[[O1]], %{{.+}}] : memref<2x4x5x3xf32>
// CHECK-NEXT:        }
func.func @unrolled(%x: tensor<2x5x6x1xf32>, %w: tensor<2x2x1x3xf32>) -> tensor<2x4x5x3xf32> {
  %r = tensor.conv %x, %w : (tensor<2x5x6x1xf32>, tensor<2x2x1x3xf32>) -> tensor<2x4x5x3xf32>
  func.return %r : tensor<2x4x5x3xf32>
}

// Disjoint windows (stride >= window, no padding) tiling the operand: each tap is
// stored once (the cotangent where it is the first maximum, else 0), without a
// zero-fill of the result or a read of it.
// CHECK-LABEL: func.func @pool_grad(
// CHECK:         %[[D:.+]] = memref.alloc() : memref<4x6xf32>
// CHECK-NEXT:    loop.for
// CHECK-NEXT:      loop.for
// CHECK-NOT:         memref.load %[[D]]
// CHECK-COUNT-4:     memref.store %{{.+}}, %[[D]]
// CHECK-NEXT:      }
func.func @pool_grad(%x: tensor<4x6xf32>, %g: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %d = tensor.window_max_scatter %x, %g window [2, 2] stride [2, 2] : (tensor<4x6xf32>, tensor<2x3xf32>) -> tensor<4x6xf32>
  func.return %d : tensor<4x6xf32>
}

// A window that leaves operand elements out (the last column here) zero-fills first.
// CHECK-LABEL: func.func @pool_grad_tail(
// CHECK:         %[[D:.+]] = memref.alloc() : memref<4x7xf32>
// CHECK:           memref.store %{{.+}}, %[[D]]
// CHECK:         loop.for
// CHECK-NEXT:      loop.for
// CHECK-NOT:         memref.load %[[D]]
// CHECK-COUNT-4:     memref.store %{{.+}}, %[[D]]
func.func @pool_grad_tail(%x: tensor<4x7xf32>, %g: tensor<2x3xf32>) -> tensor<4x7xf32> {
  %d = tensor.window_max_scatter %x, %g window [2, 2] stride [2, 2] : (tensor<4x7xf32>, tensor<2x3xf32>) -> tensor<4x7xf32>
  func.return %d : tensor<4x7xf32>
}
