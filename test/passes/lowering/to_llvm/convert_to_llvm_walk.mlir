// RUN: irt-opt %s -p convert-to-llvm | FileCheck %s --check-prefixes=CHECK,WALK
// RUN: irt-opt %s -p convert-to-llvm | irt-opt -p convert-to-llvm | FileCheck %s
// RUN: irt-opt %s -p convert-to-llvm | FileCheck %s --check-prefix=NOCAST
// RUN: irt-opt %s -p convert-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts | FileCheck %s

// convert-to-llvm converts every dialect in one walk: a converted result maps to
// its LLVM value (memref results to descriptors, index to i64) and no cast is
// left, as after running the parts one by one and reconciling the casts.

// NOCAST-NOT:   unrealized_conversion_cast

// Memref, arith, cf and func ops mixed, with index block arguments and a memref
// function argument read in a loop.
// CHECK-LABEL: llvm.func @sum(
// CHECK-SAME:    %[[M:[^:]*]]: !llvm.struct<{{.*}}>, %[[N:.*]]: i64) -> f64
// (in one walk, a field of a descriptor passed as an argument is read once, in
// the entry block, for every block of the function)
// WALK-NEXT:     %[[BASE:.*]] = llvm.extractvalue %[[M]][1]
// CHECK:         llvm.br ^[[HEAD:.*]](%{{.*}}, %{{.*}} : i64, f64)
// CHECK:       ^[[HEAD]](%[[I:.*]]: i64, %[[ACC:.*]]: f64):
// CHECK:         %[[C:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK:         llvm.cond_br %[[C]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK:       ^[[BODY]]:
// WALK-NOT:      llvm.extractvalue
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK:         %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> f64
// CHECK:         %[[S:.*]] = llvm.fadd %[[ACC]], %[[X]] : f64
// CHECK:         %[[NEXT:.*]] = llvm.add %[[I]], %{{.*}} : i64
// CHECK:         llvm.br ^[[HEAD]](%[[NEXT]], %[[S]] : i64, f64)
// CHECK:       ^[[EXIT]]:
// CHECK:         llvm.return %[[ACC]] : f64
func.func @sum(%m: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  cf.br ^head(%c0, %zero : index, f64)
^head(%i: index, %acc: f64):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^body, ^exit
^body:
  %x = memref.load %m[%i] : memref<?xf64>
  %s = arith.addf %acc, %x : f64
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next, %s : index, f64)
^exit:
  return %acc : f64
}

// A value used in a block that the walk reaches before the block defining it
// (blocks listed out of dominance order): the user takes the value through a
// cast that cancels with the producer's, and none is left.
// CHECK-LABEL: llvm.func @late_definition(
// CHECK-SAME:    %[[A:.*]]: i64) -> i64
// CHECK:         llvm.br ^[[DEF:.*]]
// CHECK:       ^[[USE:.*]]:
// CHECK:         %[[R:.*]] = llvm.mul %[[V:.*]], %[[V]] : i64
// CHECK:         llvm.return %[[R]] : i64
// CHECK:       ^[[DEF]]:
// CHECK:         %[[V]] = llvm.add %[[A]], %[[A]] : i64
// CHECK:         llvm.br ^[[USE]]
func.func @late_definition(%a: index) -> index {
  cf.br ^def
^use:
  %r = arith.muli %v, %v : index
  return %r : index
^def:
  %v = arith.addi %a, %a : index
  cf.br ^use
}

// Memref results (an allocation, a subview) map to descriptors read by the
// loads and stores after them, and a call returning a memref is converted with them.
// CHECK-LABEL: llvm.func @buffers(
// CHECK:         llvm.call @malloc(
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK:         %[[T:.*]] = llvm.call @take(%{{.*}}) : (!llvm.struct<{{.*}}>) -> !llvm.struct<{{.*}}>
// CHECK:         llvm.extractvalue %[[T]][1]
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.return
func.func private @take(memref<2xf32>) -> memref<2xf32>
func.func @buffers(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4xf32>
  memref.store %v, %buf[%c0] : memref<4xf32>
  %half = memref.subview %buf[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  %plain = memref.alloc() : memref<2xf32>
  "memref.copy"(%half, %plain) : (memref<2xf32, strided<[1], offset: 2>>, memref<2xf32>) -> ()
  %t = func.call @take(%plain) : (memref<2xf32>) -> memref<2xf32>
  %r = memref.load %t[%c0] : memref<2xf32>
  memref.dealloc %buf : memref<4xf32>
  return %r : f32
}
