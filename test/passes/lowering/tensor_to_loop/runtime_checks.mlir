// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s
// RUN: irt-opt %s -p lower-tensor-to-loop | irt-opt | FileCheck %s
// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s --check-prefix=STATIC

// What the verifier cannot check statically is checked at run time: one
// arith.cmpi + cf.assert per condition, before the result is allocated, with a
// message naming the op (the assert keeps the op's location).

// CHECK-LABEL: func.func @add
// CHECK:         %[[N:.*]] = memref.dim %x, %[[C0:.*]] : memref<?xf64>
// CHECK:         %[[M:.*]] = memref.dim %y, %[[C0]] : memref<?xf64>
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[N]], %[[M]] : index
// CHECK:         cf.assert %[[OK]], "'tensor.add' op operand shapes differ at run time: dim 0 of operand #0 vs operand #1"
// CHECK:         memref.alloc(%[[N]])
func.func @add(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %z = tensor.add %x, %y : tensor<?xf64>
  return %z : tensor<?xf64>
}

// Only the dynamic dim is compared.
// CHECK-LABEL: func.func @select
// CHECK-COUNT-2: cf.assert %{{.*}}, "'tensor.select' op operand shapes differ at run time: dim 1 of operand #0 vs operand #{{[12]}}"
// CHECK-NOT:     cf.assert
// CHECK:         memref.alloc
func.func @select(%m: tensor<2x?xi1>, %a: tensor<2x?xf64>, %b: tensor<2x?xf64>) -> tensor<2x?xf64> {
  %r = tensor.select %m, %a, %b : tensor<2x?xi1>, tensor<2x?xf64>
  return %r : tensor<2x?xf64>
}

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[K1:.*]] = memref.dim %a, %[[C1]] : memref<?x?xf64>
// CHECK:         %[[K2:.*]] = memref.dim %b, %[[C0]] : memref<?x?xf64>
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[K1]], %[[K2]] : index
// CHECK:         cf.assert %[[OK]], "'tensor.matmul' op contracting dimensions differ at run time (operand #0 vs operand #1)"
func.func @matmul(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c = tensor.matmul %a, %b : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}

// A dynamic operand dim is 1 (it expands) or the static result size.
// CHECK-LABEL: func.func @broadcast
// CHECK:         %[[D:.*]] = memref.dim %a
// CHECK:         %[[IS1:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK:         %[[GOT:.*]] = arith.select %[[IS1]], %[[C3:.*]], %[[D]] : index
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[GOT]], %[[C3]] : index
// CHECK:         cf.assert %[[OK]], "'tensor.broadcast' op cannot broadcast at run time: operand dim 0 is neither 1 nor the size of result dim 1
func.func @broadcast(%a: tensor<?xf64>) -> tensor<2x3xf64> {
  %b = tensor.broadcast %a [1] : tensor<?xf64> -> tensor<2x3xf64>
  return %b : tensor<2x3xf64>
}

// Indices: one unsigned compare per index (a negative index is huge).
// CHECK-LABEL: func.func @extract
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %i, %{{.*}} : index
// CHECK:         cf.assert %[[OK]], "'tensor.extract' op index out of bounds in dim 0 (index vs dim size)"
// CHECK:         memref.load %t[%i]
func.func @extract(%t: tensor<4xf64>, %i: index) -> f64 {
  %e = tensor.extract %t[%i] : tensor<4xf64>
  return %e : f64
}

// CHECK-LABEL: func.func @insert
// CHECK:         cf.assert %{{.*}}, "'tensor.insert' op index out of bounds in dim 0 (index vs dim size)"
// CHECK:         memref.store
func.func @insert(%t: tensor<?xf64>, %i: index, %v: f64) -> tensor<?xf64> {
  %u = tensor.insert %v into %t[%i] : tensor<?xf64>
  return %u : tensor<?xf64>
}

// CHECK-LABEL: func.func @slice
// CHECK:         cf.assert %{{.*}}, "'tensor.extract_slice' op slice size of dim 0 is negative (size vs 0)"
// CHECK:         cf.assert %{{.*}}, "'tensor.extract_slice' op slice offset of dim 0 is negative (offset vs 0)"
// CHECK:         %[[OK:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK:         cf.assert %[[OK]], "'tensor.extract_slice' op slice out of bounds in dim 0 (slice end vs dim size)"
// CHECK:         memref.alloc
func.func @slice(%t: tensor<?xf64>, %o: index, %n: index) -> tensor<?xf64> {
  %s = tensor.extract_slice %t[%o] [%n] [1] : tensor<?xf64> to tensor<?xf64>
  return %s : tensor<?xf64>
}

// CHECK-LABEL: func.func @empty
// CHECK:         %[[OK:.*]] = arith.cmpi sge, %n, %{{.*}} : index
// CHECK:         cf.assert %[[OK]], "'tensor.empty' op size of dim 0 is negative (size vs 0)"
func.func @empty(%n: index) -> tensor<?xf64> {
  %e = tensor.empty(%n) : tensor<?xf64>
  return %e : tensor<?xf64>
}

// CHECK-LABEL: func.func @reshape
// CHECK:         cf.assert %{{.*}}, "'tensor.reshape' op result size of dim 0 is negative (size vs 0)"
// CHECK:         cf.assert %{{.*}}, "'tensor.reshape' op element counts differ at run time (result vs source)"
func.func @reshape(%a: tensor<6xf64>, %s: tensor<2xi64>) -> tensor<?x2xf64> {
  %r = tensor.reshape %a(%s) : (tensor<6xf64>, tensor<2xi64>) -> tensor<?x2xf64>
  return %r : tensor<?x2xf64>
}

// A static result size taken from a dynamic operand size.
// CHECK-LABEL: func.func @cast
// CHECK:         cf.assert %{{.*}}, "'tensor.cast' op result dim 0 does not match the operands at run time (operand size vs result type)"
func.func @cast(%a: tensor<?xf64>) -> tensor<3xf64> {
  %c = tensor.cast %a : tensor<?xf64> to tensor<3xf64>
  return %c : tensor<3xf64>
}

// Static shapes (and constant in-bounds indices) emit no check at all.
// STATIC-LABEL: func.func @static
// STATIC-NOT:     cf.assert
// STATIC:         func.return
func.func @static(%x: tensor<2x3xf64>, %y: tensor<3x4xf64>, %v: tensor<3xf64>) -> (tensor<2x4xf64>, f64) {
  %e = tensor.exp %x : tensor<2x3xf64>
  %a = tensor.add %e, %x : tensor<2x3xf64>
  %m = tensor.matmul %a, %y : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %b = tensor.broadcast %v [1] : tensor<3xf64> -> tensor<2x3xf64>
  %c = tensor.cmp lt, %a, %b : tensor<2x3xf64>
  %s = tensor.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf64>
  %sl = tensor.extract_slice %s[1, 0] [1, 3] [1, 1] : tensor<2x3xf64> to tensor<3xf64>
  %c2 = arith.constant 2 : index
  %x2 = tensor.extract %sl[%c2] : tensor<3xf64>
  %t = tensor.transpose %m [1, 0] : tensor<2x4xf64> -> tensor<4x2xf64>
  %r = tensor.collapse_shape %t [[0, 1]] : tensor<4x2xf64> into tensor<8xf64>
  %q = tensor.expand_shape %r [[0, 1]] output_shape [2, 4] : tensor<8xf64> into tensor<2x4xf64>
  return %q, %x2 : tensor<2x4xf64>, f64
}
