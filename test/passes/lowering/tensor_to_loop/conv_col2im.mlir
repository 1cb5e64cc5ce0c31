// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0 conv_unroll=0}' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0 conv_unroll=0}' | irt-opt | FileCheck %s

// A conv with fewer operand than output positions (a transposed conv, as the
// AD rule makes conv's input adjoint) is one gemm on the operand itself into
// columns N × S × K × F (the filter copied channels first, C × K × F), then the
// result is zeroed and each column row added at the output position its
// operand element and tap reach (col2im). No im2col buffer.

// CHECK-LABEL: func.func @full_pad(
// CHECK-SAME:      %[[G:[^:]+]]: memref<2x4x3xf64>, %[[W:[^:]+]]: memref<3x3x2xf64>) -> memref<2x6x2xf64> {
// CHECK:         %[[R:.+]] = memref.alloc() : memref<2x6x2xf64>
// CHECK:         %[[WT:.+]] = memref.alloc() : memref<3x3x2xf64>
// CHECK:           %[[WV:.+]] = memref.load %[[W]][%[[K:.+]], %[[C:.+]], %[[F:.+]]] : memref<3x3x2xf64>
// CHECK-NEXT:      memref.store %[[WV]], %[[WT]][%[[C]], %[[K]], %[[F]]] : memref<3x3x2xf64>
// CHECK:         %[[COLS:.+]] = memref.alloc() : memref<2x4x3x2xf64>
// CHECK:         func.call @scipy_cblas_dgemm64_(
// CHECK:         memref.dealloc %[[WT]] : memref<3x3x2xf64>
// CHECK:           memref.store %{{.+}}, %[[R]][%{{.+}}, %{{.+}}, %{{.+}}] : memref<2x6x2xf64>
// The row of taps × features (3 × 2) is unrolled.
// CHECK:         loop.for %[[N:.+]] = %{{.+}} to
// CHECK-NEXT:      loop.for %[[S:.+]] = %{{.+}} to
// CHECK-NEXT:        %[[P:.+]] = arith.addi %[[S]], %{{.+}} : index
// CHECK-NEXT:        %[[O:.+]] = arith.subi %[[P]], %[[T:[a-z0-9_]+]] : index
// CHECK-NEXT:        %[[V:.+]] = memref.load %[[COLS]][%[[N]], %[[S]], %[[T]], %[[FI:[a-z0-9_]+]]] : memref<2x4x3x2xf64>
// CHECK-NEXT:        %[[ACC:.+]] = memref.load %[[R]][%[[N]], %[[O]], %[[FI]]] : memref<2x6x2xf64>
// CHECK-NEXT:        %[[SUM:.+]] = arith.addf %[[ACC]], %[[V]] : f64
// CHECK-NEXT:        memref.store %[[SUM]], %[[R]][%[[N]], %[[O]], %[[FI]]] : memref<2x6x2xf64>
// CHECK-COUNT-5:     memref.store %{{.+}}, %[[R]][%[[N]], %{{.+}}, %{{.+}}] : memref<2x6x2xf64>
// CHECK-NEXT:      }
// CHECK:         memref.dealloc %[[COLS]] : memref<2x4x3x2xf64>
// CHECK-NEXT:    func.return %[[R]] : memref<2x6x2xf64>
func.func @full_pad(%g: tensor<2x4x3xf64>, %w: tensor<3x3x2xf64>) -> tensor<2x6x2xf64> {
  %r = tensor.conv %g, %w pad [[2, 2]] : (tensor<2x4x3xf64>, tensor<3x3x2xf64>) -> tensor<2x6x2xf64>
  func.return %r : tensor<2x6x2xf64>
}

// With a stride some (element, tap) pairs reach no output: their column rows
// are added as 0 at a clamped position.
// CHECK-LABEL: func.func @input_dilation_stride(
// CHECK:         memref.alloc() : memref<2x4x3x2xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(
// CHECK:           %[[Q:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CHECK-NEXT:      %[[GE:.+]] = arith.cmpi sge, %[[Q]], %{{.+}} : index
// CHECK-NEXT:      %[[REM:.+]] = arith.remsi %[[Q]], %{{.+}} : index
// CHECK-NEXT:      %[[ON:.+]] = arith.cmpi eq, %[[REM]], %{{.+}} : index
// CHECK-NEXT:      %[[OK:.+]] = arith.andi %[[GE]], %[[ON]] : i1
// CHECK-NEXT:      %[[DIV:.+]] = arith.divsi %[[Q]], %{{.+}} : index
// CHECK-NEXT:      %[[O:.+]] = arith.select %[[OK]], %[[DIV]], %{{.+}} : index
// CHECK:             %[[V:.+]] = memref.load
// CHECK-NEXT:        arith.select %[[OK]], %[[V]], %{{.+}} : f32
func.func @input_dilation_stride(%g: tensor<2x4x3xf32>, %w: tensor<3x3x2xf32>) -> tensor<2x6x2xf32> {
  %r = tensor.conv %g, %w stride [2] pad [[1, 2]] input_dilation [3] : (tensor<2x4x3xf32>, tensor<3x3x2xf32>) -> tensor<2x6x2xf32>
  func.return %r : tensor<2x6x2xf32>
}

// An ordinary conv (as many operand as output positions or more) copies its
// patches into an im2col buffer N × O × K × C for the gemm.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[COL:.+]] = memref.alloc() : memref<2x4x3x3xf32>
// CHECK:         func.call @scipy_cblas_sgemm64_(
// CHECK-NEXT:    memref.dealloc %[[COL]] : memref<2x4x3x3xf32>
func.func @forward(%x: tensor<2x6x3xf32>, %w: tensor<3x3x2xf32>) -> tensor<2x4x2xf32> {
  %r = tensor.conv %x, %w : (tensor<2x6x3xf32>, tensor<3x3x2xf32>) -> tensor<2x4x2xf32>
  func.return %r : tensor<2x4x2xf32>
}
