// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s
// RUN: irt-opt %s -p lower-tensor-to-loop | irt-opt | FileCheck %s

// Signatures become memrefs; each elementwise op is a kernel of its own (one
// fresh buffer carried through its loop nest and written in place); every
// intermediate buffer is freed after its last use; the result is returned.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[A:[^:]+]]: memref<2x3xf32>, %[[B:[^:]+]]: memref<2x3xf32>) -> memref<2x3xf32> {
// CHECK:         %[[C0:.+]] = memref.alloc() : memref<2x3xf32>
// CHECK-NEXT:    %[[C:.+]] = loop.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[C0]]) -> (memref<2x3xf32>) {
// CHECK-NEXT:      %{{.+}} = loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[P:.+]] = %[[O]]) -> (memref<2x3xf32>) {
// CHECK-NEXT:        %[[X:.+]] = memref.load %[[A]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:        %[[Y:.+]] = memref.load %[[B]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:        %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:        memref.store %[[S]], %[[P]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:        loop.yield %[[P]] : memref<2x3xf32>
// CHECK:         memref.alloc() : memref<2x3xf32>
// CHECK:         %[[E:.+]] = loop.for
// CHECK:           math.exp
// CHECK:         memref.alloc() : memref<2x3xf32>
// CHECK:         %[[M:.+]] = loop.for
// CHECK:           arith.maximumf
// CHECK:         memref.dealloc %[[C]] : memref<2x3xf32>
// CHECK-NEXT:    memref.dealloc %[[E]] : memref<2x3xf32>
// CHECK-NEXT:    func.return %[[M]] : memref<2x3xf32>
// CHECK-NOT:     memref.dealloc %[[A]]
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tensor.add %a, %b : tensor<2x3xf32>
  %e = tensor.exp %c : tensor<2x3xf32>
  %m = tensor.max %e, %c : tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}

// Dynamic sizes come from memref.dim of the operand.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[A:[^:]+]]: memref<?x784xf64>) -> memref<?x784xf64> {
// CHECK:         %[[D:.+]] = memref.dim %[[A]], %{{.+}} : memref<?x784xf64>
// CHECK-NEXT:    %[[R:.+]] = memref.alloc(%[[D]]) : memref<?x784xf64>
// CHECK-NEXT:    %[[T:.+]] = loop.for %{{.+}} = %{{.+}} to %[[D]] step %{{.+}} iter_args(%{{.+}} = %[[R]])
// CHECK:           math.tanh
// CHECK:         func.return %[[T]] : memref<?x784xf64>
func.func @dynamic(%a: tensor<?x784xf64>) -> tensor<?x784xf64> {
  %r = tensor.tanh %a : tensor<?x784xf64>
  return %r : tensor<?x784xf64>
}

// Scalar semantics: NaN-propagating min, ordered compares except ne,
// float->int truncation, logistic.
// CHECK-LABEL: func.func @scalars(
// CHECK:         arith.minimumf %{{.+}}, %{{.+}} : f64
// CHECK:         arith.cmpf une, %{{.+}}, %{{.+}} : f64
// CHECK:         arith.cmpf olt, %{{.+}}, %{{.+}} : f64
// CHECK:         arith.select %{{.+}}, %{{.+}}, %{{.+}} : f64
// CHECK:         arith.fptosi %{{.+}} : f64 to i32
// CHECK:         arith.negf
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.divf
func.func @scalars(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>) {
  %m = tensor.min %a, %b : tensor<4xf64>
  %ne = tensor.cmp ne, %a, %b : tensor<4xf64>
  %lt = tensor.cmp lt, %a, %b : tensor<4xf64>
  %s = tensor.select %lt, %a, %b : tensor<4xi1>, tensor<4xf64>
  %i = tensor.convert %a : tensor<4xf64> -> tensor<4xi32>
  %l = tensor.logistic %a : tensor<4xf64>
  return %m, %ne, %s, %i, %l : tensor<4xf64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>
}

// Splats read only elementwise get no buffer: the kernels read the scalar.
// CHECK-LABEL: func.func @splat_operands(
// CHECK-SAME:      %[[A:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: f32) -> memref<4xf32> {
// CHECK:         %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[P0:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[P:.+]] = loop.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[P0]]) -> (memref<4xf32>) {
// CHECK-NEXT:      %[[X:.+]] = memref.load %[[A]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:      %[[M:.+]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK-NEXT:      memref.store %[[M]], %[[O]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:      loop.yield %[[O]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Q0:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[Q:.+]] = loop.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O2:.+]] = %[[Q0]]) -> (memref<4xf32>) {
// CHECK-NEXT:      %[[Y:.+]] = memref.load %[[P]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[ONE]], %[[Y]] : f32
// CHECK-NEXT:      memref.store %[[D]], %[[O2]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:      loop.yield %[[O2]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[P]] : memref<4xf32>
// CHECK-NEXT:    func.return %[[Q]] : memref<4xf32>
func.func @splat_operands(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %sp = tensor.splat %s : tensor<4xf32>
  %p = tensor.mul %a, %sp : tensor<4xf32>
  %q = tensor.sub %one, %p : tensor<4xf32>
  return %q : tensor<4xf32>
}
