// RUN: irt-opt %s -p convert-func-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-func-to-llvm | irt-opt | FileCheck %s

// Scalar signatures map one to one; index becomes i64 (cast back for the
// arith ops this pass leaves alone).
// CHECK-LABEL: llvm.func @scalar(
// CHECK-SAME:    %[[X:.*]]: f64, %[[N:.*]]: i64) -> !llvm.struct<(f64, i64)>
// CHECK:         %[[I:.*]] = builtin.unrealized_conversion_cast %[[N]] : i64 to index
// CHECK:         %[[M:.*]] = arith.addi %[[I]], %[[I]] : index
// CHECK:         %[[MI:.*]] = builtin.unrealized_conversion_cast %[[M]] : index to i64
// CHECK:         llvm.insertvalue %[[X]], %{{.*}}[0]
// CHECK:         llvm.insertvalue %[[MI]], %{{.*}}[1]
func.func @scalar(%x: f64, %n: index) -> (f64, index) {
  %m = arith.addi %n, %n : index
  return %x, %m : f64, index
}

// Several results are returned as one struct, unpacked at the call.
// CHECK-LABEL: llvm.func @pair(%{{.*}}: f32, %{{.*}}: i32) -> !llvm.struct<(f32, i32)>
// CHECK:         %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, i32)>
// CHECK:         %[[S0:.*]] = llvm.insertvalue %{{.*}}, %[[U]][0] : !llvm.struct<(f32, i32)>
// CHECK:         %[[S1:.*]] = llvm.insertvalue %{{.*}}, %[[S0]][1] : !llvm.struct<(f32, i32)>
// CHECK:         llvm.return %[[S1]] : !llvm.struct<(f32, i32)>
func.func @pair(%a: f32, %b: i32) -> (f32, i32) {
  return %a, %b : f32, i32
}

// CHECK-LABEL: llvm.func @caller
// CHECK:         %[[R:.*]] = llvm.call @pair(%{{.*}}, %{{.*}}) : (f32, i32) -> !llvm.struct<(f32, i32)>
// CHECK:         llvm.extractvalue %[[R]][0] : !llvm.struct<(f32, i32)>
// CHECK:         llvm.extractvalue %[[R]][1] : !llvm.struct<(f32, i32)>
// CHECK:         llvm.call @nothing() : () -> ()
// CHECK:         llvm.return
func.func @caller(%a: f32, %b: i32) -> i32 {
  %r:2 = func.call @pair(%a, %b) : (f32, i32) -> (f32, i32)
  func.call @nothing() : () -> ()
  return %r#1 : i32
}

// Private functions with a body are internal; declarations stay external.
// CHECK-LABEL: llvm.func internal @nothing()
// CHECK-NEXT:    llvm.return
func.func private @nothing() {
  return
}

// CHECK: llvm.func @tanh(f64) -> f64
func.func private @tanh(f64) -> f64

// Memrefs are passed as their descriptor struct.
// CHECK-LABEL: llvm.func @buffers(
// CHECK-SAME:    !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-SAME:    !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// CHECK-SAME:    -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
func.func @buffers(%a: memref<?x4xf32>, %s: memref<f64>, %r: memref<3xi1>) -> memref<3xi1> {
  return %r : memref<3xi1>
}
