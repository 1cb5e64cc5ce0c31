// RUN: irt-opt %s -p convert-scf-to-loop | FileCheck %s
// RUN: irt-opt %s -p convert-scf-to-loop,convert-loop-to-scf | FileCheck %s --check-prefix=BACK

// CHECK-LABEL: func.func @sum
// CHECK:         %[[R:[^ ]+]] = loop.for %[[I:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]+]] = %{{.*}}) -> (f64) {
// CHECK-NEXT:      %[[V:[^ ]+]] = memref.load %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK-NEXT:      %[[S:[^ ]+]] = arith.addf %[[ACC]], %[[V]] : f64
// CHECK-NEXT:      loop.yield %[[S]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = loop.if %{{.*}} -> (f64) {
// CHECK-NEXT:      loop.yield %[[R]] : f64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      loop.yield %{{.*}} : f64
// CHECK-NEXT:    }
// CHECK:         loop.while (%{{.*}} = %{{.*}}) : (index) -> index {
// CHECK:           loop.condition(%{{.*}}) %{{.*}} : index
// CHECK:         } do {
// CHECK:           loop.yield %{{.*}} : index
// CHECK:         }
// scf.execute_region has no loop counterpart: it and its scf.yield stay.
// CHECK:         scf.execute_region -> (f64) {
// CHECK-NEXT:      scf.yield %{{.*}} : f64
// CHECK-NEXT:    }
// CHECK:         loop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      loop.reduce
// CHECK-NEXT:    }
// BACK-LABEL: func.func @sum
// BACK:         scf.for
// BACK:         scf.if
// BACK:         scf.while
// BACK:         scf.execute_region
// BACK:         "scf.parallel"
func.func @sum(%m: memref<?xf64>, %n: index, %c: i1) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {
    %v = memref.load %m[%i] : memref<?xf64>
    %s = arith.addf %acc, %v : f64
    scf.yield %s : f64
  }
  %y = scf.if %c -> (f64) {
    scf.yield %r : f64
  } else {
    scf.yield %z : f64
  }
  %w = scf.while (%k = %c0) : (index) -> index {
    %lt = arith.cmpi slt, %k, %n : index
    scf.condition(%lt) %k : index
  } do {
  ^bb0(%k2: index):
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3 : index
  }
  %e = scf.execute_region -> (f64) {
    scf.yield %y : f64
  }
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%p: index):
    memref.store %e, %m[%p] : memref<?xf64>
    scf.reduce
  }) : (index, index, index) -> ()
  return %e : f64
}
