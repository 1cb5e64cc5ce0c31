// RUN: irt-opt %s -p convert-to-llvm | FileCheck %s

// In one walk (convert-to-llvm), element addresses are computed once per block:
// the constant parts of the indices (constants, `i + c`, `i - c`) are summed at
// compile time, the rest shared between the accesses of the block; the fields of
// a descriptor built here are read from the values put in, and a descriptor that
// only loads, stores and deallocs use is not built.

// CHECK-LABEL: llvm.func @addresses(
// CHECK-SAME:    %[[I:[^:]*]]: i64, %[[J:[^:]*]]: i64, %[[V:[^:]*]]: f32)
// CHECK:         %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK:         %[[BYTES:.*]] = llvm.mlir.constant(96) : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.call @malloc(%[[BYTES]])
// CHECK-NOT:     llvm.insertvalue
// CHECK:         %[[R:.*]] = llvm.mul %[[I]], %[[C4]] : i64
// CHECK-NEXT:    %[[RJ:.*]] = llvm.add %[[R]], %[[J]] : i64
// CHECK-NEXT:    %[[A:.*]] = llvm.getelementptr inbounds %[[P]][%[[RJ]]]
// CHECK-NEXT:    llvm.store %[[V]], %[[A]]
// CHECK-NEXT:    %[[C5:.*]] = llvm.mlir.constant(5) : i64
// CHECK-NEXT:    %[[RJ5:.*]] = llvm.add %[[RJ]], %[[C5]] : i64
// CHECK-NEXT:    %[[B:.*]] = llvm.getelementptr inbounds %[[P]][%[[RJ5]]]
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[B]]
// CHECK-NEXT:    %[[C11:.*]] = llvm.mlir.constant(11) : i64
// CHECK-NEXT:    %[[D:.*]] = llvm.getelementptr inbounds %[[P]][%[[C11]]]
// CHECK-NEXT:    %[[Y:.*]] = llvm.load %[[D]]
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[X]], %[[Y]]
// CHECK-NEXT:    llvm.store %[[S]], %[[A]]
// CHECK-NEXT:    llvm.call @free(%[[P]])
// CHECK-NEXT:    llvm.return
func.func @addresses(%i: index, %j: index, %v: f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %m = memref.alloc() : memref<6x4xf32>
  memref.store %v, %m[%i, %j] : memref<6x4xf32>
  %i1 = arith.addi %i, %c1 : index
  %j1 = arith.addi %j, %c1 : index
  %x = memref.load %m[%i1, %j1] : memref<6x4xf32>
  %y = memref.load %m[%c2, %c3] : memref<6x4xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %m[%i, %j] : memref<6x4xf32>
  memref.dealloc %m : memref<6x4xf32>
  return
}

// A buffer passed on (here: returned) gets its descriptor.
// CHECK-LABEL: llvm.func @returned(
// CHECK:         llvm.call @malloc(
// CHECK:         llvm.insertvalue
// CHECK:         llvm.return
func.func @returned(%v: f32) -> memref<2xf32> {
  %c1 = arith.constant 1 : index
  %m = memref.alloc() : memref<2xf32>
  memref.store %v, %m[%c1] : memref<2xf32>
  return %m : memref<2xf32>
}
