// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0}' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0}' | irt-opt | FileCheck %s

// A conv whose window has more positions than its output, with few output
// features (as the AD rule makes conv's filter adjoint): no gemm, no im2col
// buffer. The filter is copied features-first with its last window dim and
// features merged (F × K·C), the input's taps along the last dim likewise
// (N × O × K·C, the padding stored as 0); the result is zeroed, then two output
// positions times up to four features (the remainder one block) take their dots over a window row
// together, with reassociable, fusable sums.

// CHECK-LABEL: func.func @filter_adjoint(
// CHECK-SAME:      %[[X:[^:]+]]: memref<2x9x4xf32>, %[[G:[^:]+]]: memref<6x4x3xf32>) -> memref<2x5x3xf32> {
// CHECK:         %[[R:.+]] = memref.alloc() : memref<2x5x3xf32>
// CHECK:         %[[XR:.+]] = memref.alloc() : memref<2x5x24xf32>
// CHECK:               %[[OK:.+]] = arith.cmpi sge,
// CHECK:               %[[XV:.+]] = memref.load %[[X]]
// CHECK-NEXT:          %[[XS:.+]] = arith.select %[[OK]], %[[XV]], %{{.+}} : f32
// CHECK:               memref.store %[[XS]], %[[XR]]
// CHECK:         %[[WT:.+]] = memref.alloc() : memref<3x24xf32>
// CHECK:             %[[WV:.+]] = memref.load %[[G]][%[[K:.+]], %[[C:.+]], %[[F:.+]]] : memref<6x4x3xf32>
// CHECK:             memref.store %[[WV]], %[[WT]][%[[F]], %{{.+}}] : memref<3x24xf32>
// CHECK:             memref.store %{{.+}}, %[[R]]
// CHECK-NOT:     func.call
// Two positions times all three features: six sums.
// CHECK:             {{.+}} = loop.for %[[J:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:          memref.load %[[XR]]{{.+}}, %[[J]]] : memref<2x5x24xf32>
// CHECK-NEXT:          memref.load %[[XR]]{{.+}}, %[[J]]] : memref<2x5x24xf32>
// CHECK-COUNT-3:       memref.load %[[WT]][%{{.+}}, %[[J]]] : memref<3x24xf32>
// CHECK-NEXT:          arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-NEXT:          arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// The last position alone: three sums.
// CHECK:             {{.+}} = loop.for %{{.+}} iter_args({{.+}}) -> (f32, f32, f32) {
// CHECK:         memref.dealloc %[[WT]] : memref<3x24xf32>
// CHECK-NEXT:    memref.dealloc %[[XR]] : memref<2x5x24xf32>
// CHECK-NEXT:    func.return %[[R]] : memref<2x5x3xf32>
func.func @filter_adjoint(%x: tensor<2x9x4xf32>, %g: tensor<6x4x3xf32>) -> tensor<2x5x3xf32> {
  %r = tensor.conv %x, %g pad [[1, 0]] : (tensor<2x9x4xf32>, tensor<6x4x3xf32>) -> tensor<2x5x3xf32>
  func.return %r : tensor<2x5x3xf32>
}
