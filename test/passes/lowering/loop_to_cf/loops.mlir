// RUN: irt-opt %s -p lower-loop-to-cf | FileCheck %s
// RUN: irt-opt %s -p lower-loop-to-cf | irt-opt | FileCheck %s

// CHECK-LABEL: func.func @for_iter_args
// CHECK:         cf.br ^[[COND:bb[0-9]+]](%[[LB:.*]], %x : index, f64)
// CHECK:       ^[[COND]](%[[IV:.*]]: index, %[[ITER:.*]]: f64):
// CHECK:         %[[C:.*]] = arith.cmpi slt, %[[IV]], %ub : index
// CHECK:         cf.cond_br %[[C]], ^[[BODY:bb[0-9]+]], ^[[END:bb[0-9]+]]
// CHECK:       ^[[BODY]]:
// CHECK:         %[[T:.*]] = math.tanh %[[ITER]] : f64
// CHECK:         %[[NEXT:.*]] = arith.addi %[[IV]], %step : index
// CHECK:         cf.br ^[[COND]](%[[NEXT]], %[[T]] : index, f64)
// CHECK:       ^[[END]]:
// CHECK:         func.return %[[ITER]] : f64
func.func @for_iter_args(%lb: index, %ub: index, %step: index, %x: f64) -> f64 {
  %r = loop.for %i = %lb to %ub step %step iter_args(%acc = %x) -> (f64) {
    %t = math.tanh %acc : f64
    loop.yield %t : f64
  }
  return %r : f64
}

// CHECK-LABEL: func.func @if_else
// CHECK:         cf.cond_br %c, ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK:       ^[[THEN]]:
// CHECK:         cf.br ^[[END:bb[0-9]+]](%a : f32)
// CHECK:       ^[[ELSE]]:
// CHECK:         %[[N:.*]] = arith.negf %b : f32
// CHECK:         cf.br ^[[END]](%[[N]] : f32)
// CHECK:       ^[[END]](%[[R:.*]]: f32):
// CHECK:         func.return %[[R]] : f32
func.func @if_else(%c: i1, %a: f32, %b: f32) -> f32 {
  %r = loop.if %c -> (f32) {
    loop.yield %a : f32
  } else {
    %n = arith.negf %b : f32
    loop.yield %n : f32
  }
  return %r : f32
}

// Without an else region the false edge goes straight to the continuation.
// CHECK-LABEL: func.func @if_then
// CHECK:         cf.cond_br %c, ^[[THEN:bb[0-9]+]], ^[[END:bb[0-9]+]]
// CHECK:       ^[[THEN]]:
// CHECK:         memref.store
// CHECK:         cf.br ^[[END]]
// CHECK:       ^[[END]]:
// CHECK:         func.return
func.func @if_then(%c: i1, %m: memref<f32>, %v: f32) {
  loop.if %c {
    memref.store %v, %m[] : memref<f32>
  }
  return
}

// CHECK-LABEL: func.func @while
// CHECK:         cf.br ^[[BEFORE:bb[0-9]+]](%x : f64)
// CHECK:       ^[[BEFORE]](%[[V:.*]]: f64):
// CHECK:         %[[C:.*]] = arith.cmpf olt, %[[V]], %limit : f64
// CHECK:         cf.cond_br %[[C]], ^[[AFTER:bb[0-9]+]](%[[V]] : f64), ^[[END:bb[0-9]+]](%[[V]] : f64)
// CHECK:       ^[[AFTER]](%[[V2:.*]]: f64):
// CHECK:         %[[N:.*]] = arith.mulf %[[V2]], %[[V2]] : f64
// CHECK:         cf.br ^[[BEFORE]](%[[N]] : f64)
// CHECK:       ^[[END]](%[[W:.*]]: f64):
// CHECK:         func.return %[[W]] : f64
func.func @while(%x: f64, %limit: f64) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %limit : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %v2 : f64
    loop.yield %n : f64
  }
  return %w : f64
}

// A parallel loop becomes a sequential nest carrying the reduction.
// CHECK-LABEL: func.func @parallel
// CHECK:         cf.br ^[[C0:bb[0-9]+]](%c0, %z : index, f32)
// CHECK:       ^[[C0]](%[[I:.*]]: index, %[[A0:.*]]: f32):
// CHECK:         arith.cmpi slt, %[[I]], %n : index
// CHECK:         cf.cond_br %{{.*}}, ^[[C1:bb[0-9]+]](%c0, %[[A0]] : index, f32), ^{{bb[0-9]+}}
// CHECK:       ^[[C1]](%[[J:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:         arith.cmpi slt, %[[J]], %m : index
// CHECK:       ^{{bb[0-9]+}}:
// CHECK:         %[[X:.*]] = memref.load %a[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NOT:     loop.
func.func @parallel(%a: memref<?x?xf32>, %n: index, %m: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = loop.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) init (%z) -> f32 {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    loop.reduce(%x : f32) {
    ^bb0(%l: f32, %rr: f32):
      %s = arith.addf %l, %rr : f32
      loop.reduce.return %s : f32
    }
  }
  return %r : f32
}

// Nested loops: the outer one is lowered first, then the inner one.
// CHECK-LABEL: func.func @nested
// CHECK-NOT:     loop.
// CHECK:         func.return
func.func @nested(%n: index, %x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %b = loop.for %j = %c0 to %i step %c1 iter_args(%acc = %a) -> (f64) {
      %p = arith.cmpi eq, %i, %j : index
      %v = loop.if %p -> (f64) {
        loop.yield %acc : f64
      } else {
        %d = arith.addf %acc, %acc : f64
        loop.yield %d : f64
      }
      loop.yield %v : f64
    }
    loop.yield %b : f64
  }
  return %r : f64
}

// A buffer passed through a nest unchanged is carried by no block: the stores
// use it as it is, and so does the use of the nest's result. An outer body that
// starts with the inner loop is no block of its own: the outer condition enters
// the inner one.
// CHECK-LABEL: func.func @passed_through
// CHECK:         cf.br ^[[C0:bb[0-9]+]](%c0 : index)
// CHECK:       ^[[C0]](%[[I:.*]]: index):
// CHECK:         cf.cond_br %{{.*}}, ^[[C1:bb[0-9]+]](%c0, %x : index, f64), ^{{bb[0-9]+}}
// CHECK:       ^[[C1]](%[[J:.*]]: index, %[[S:.*]]: f64):
// CHECK:         memref.store %[[S]], %m[%[[I]], %[[J]]] : memref<2x3xf64>
// CHECK:         func.return %m : memref<2x3xf64>
func.func @passed_through(%m: memref<2x3xf64>, %x: f64) -> memref<2x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = loop.for %i = %c0 to %c2 step %c1 iter_args(%a = %m) -> (memref<2x3xf64>) {
    %b, %t = loop.for %j = %c0 to %c3 step %c1 iter_args(%b0 = %a, %s = %x) -> (memref<2x3xf64>, f64) {
      memref.store %s, %b0[%i, %j] : memref<2x3xf64>
      %s2 = arith.addf %s, %s : f64
      loop.yield %b0, %s2 : memref<2x3xf64>, f64
    }
    loop.yield %b : memref<2x3xf64>
  }
  return %r : memref<2x3xf64>
}
