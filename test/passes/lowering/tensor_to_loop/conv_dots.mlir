// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0}' | FileCheck %s
// RUN: irt-opt %s -p 'lower-tensor-to-loop{blas_threshold=0}' | irt-opt | FileCheck %s

// A conv whose window has more positions than its output, with few output
// features (as the AD rule makes conv's filter adjoint): no gemm, no im2col
// buffer. The input's window rows (N × padded S0 × O1 × K1·C: the last dim's
// taps spelled out, padding stored as 0) and the filter copied features-first
// with its rows merged (F × K0 × K1·C); two output positions times up to four
// features (the remainder one block) take their dots over a row together, with
// reassociable, fusable sums. Each window row's sums are stored once into a
// buffer of their own (K0 × N × O0 × O1 × F), then added in order.

// CHECK-LABEL: func.func @filter_adjoint(
// CHECK-SAME:      %[[X:[^:]+]]: memref<2x4x6x8xf32>, %[[G:[^:]+]]: memref<3x4x8x3xf32>) -> memref<2x2x4x3xf32> {
// CHECK:         %[[R:.+]] = memref.alloc() : memref<2x2x4x3xf32>
// CHECK:         %[[XR:.+]] = memref.alloc() : memref<2x4x4x32xf32>
// CHECK:                 %[[OK:.+]] = arith.cmpi sge,
// CHECK:                 %[[XV:.+]] = memref.load %[[X]]
// CHECK-NEXT:            %[[XS:.+]] = arith.select %[[OK]], %[[XV]], %{{.+}} : f32
// CHECK:                 memref.store %[[XS]], %[[XR]]
// CHECK:         %[[WT:.+]] = memref.alloc() : memref<3x3x32xf32>
// CHECK:               %[[WV:.+]] = memref.load %[[G]][%[[K0:.+]], %[[K1:.+]], %[[C:.+]], %[[F:.+]]] : memref<3x4x8x3xf32>
// CHECK:               memref.store %[[WV]], %[[WT]][%[[F]], %[[K0]], %{{.+}}] : memref<3x3x32xf32>
// CHECK:         %[[P:.+]] = memref.alloc() : memref<3x2x2x4x3xf32>
// CHECK-NOT:     func.call
// CHECK:         loop.for %[[N:[a-z0-9_]+]] =
// CHECK-NEXT:      loop.for %[[KR:[a-z0-9_]+]] =
// Two positions times all three features: six sums.
// CHECK:               {{.+}} = loop.for %[[J:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:            memref.load %[[XR]]{{.+}}, %[[J]]] : memref<2x4x4x32xf32>
// CHECK-NEXT:            memref.load %[[XR]]{{.+}}, %[[J]]] : memref<2x4x4x32xf32>
// CHECK-COUNT-3:         memref.load %[[WT]][%{{.+}}, %[[KR]], %[[J]]] : memref<3x3x32xf32>
// CHECK-NEXT:            arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-NEXT:            arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK-COUNT-6:       memref.store %{{.+}}, %[[P]][%[[KR]], %[[N]], {{.+}}] : memref<3x2x2x4x3xf32>
// CHECK:         memref.dealloc %[[WT]] : memref<3x3x32xf32>
// CHECK-NEXT:    memref.dealloc %[[XR]] : memref<2x4x4x32xf32>
// CHECK:               %[[S:.+]] = loop.for %[[K:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %{{.+}}) -> (f32) {
// CHECK-NEXT:            %[[T:.+]] = memref.load %[[P]][%[[K]], {{.+}}] : memref<3x2x2x4x3xf32>
// CHECK-NEXT:            %[[AT:.+]] = arith.addf %[[A]], %[[T]] : f32
// CHECK-NEXT:            loop.yield %[[AT]] : f32
// CHECK:               memref.store %[[S]], %[[R]]
// CHECK:         memref.dealloc %[[P]] : memref<3x2x2x4x3xf32>
// CHECK-NEXT:    func.return %[[R]] : memref<2x2x4x3xf32>
func.func @filter_adjoint(%x: tensor<2x4x6x8xf32>, %g: tensor<3x4x8x3xf32>) -> tensor<2x2x4x3xf32> {
  %r = tensor.conv %x, %g pad [[0, 0], [1, 0]] : (tensor<2x4x6x8xf32>, tensor<3x4x8x3xf32>) -> tensor<2x2x4x3xf32>
  func.return %r : tensor<2x2x4x3xf32>
}

// A 1-D conv has one window row: its sums go straight into the result.
// CHECK-LABEL: func.func @one_row(
// CHECK:         %[[R1:.+]] = memref.alloc() : memref<2x5x3xf32>
// CHECK-NOT:     memref.alloc() : memref<{{.*}}x2x5x3xf32>
// CHECK:               {{.+}} = loop.for {{.+}} -> (f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-6:     memref.store %{{.+}}, %[[R1]][{{.+}}] : memref<2x5x3xf32>
// CHECK:         func.return %[[R1]] : memref<2x5x3xf32>
func.func @one_row(%x: tensor<2x9x4xf32>, %g: tensor<6x4x3xf32>) -> tensor<2x5x3xf32> {
  %r = tensor.conv %x, %g pad [[1, 0]] : (tensor<2x9x4xf32>, tensor<6x4x3xf32>) -> tensor<2x5x3xf32>
  func.return %r : tensor<2x5x3xf32>
}
