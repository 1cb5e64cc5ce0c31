// RUN: irt-opt %s -p canonicalize | FileCheck %s

// CHECK-LABEL: func.func @zero_trip
// CHECK-NEXT:    func.return %arg0 : f64
func.func @zero_trip(%arg0: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c1 to %c0 step %c1 iter_args(%a = %arg0) -> (f64) {
    %n = arith.mulf %a, %a : f64
    loop.yield %n : f64
  }
  return %r : f64
}

// CHECK-LABEL: func.func @one_trip
// CHECK-NEXT:    %[[N:.+]] = arith.mulf %arg0, %arg0 : f64
// CHECK-NEXT:    func.return %[[N]] : f64
func.func @one_trip(%arg0: f64) -> f64 {
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : index
  %r = loop.for %i = %c2 to %c5 step %c4 iter_args(%a = %arg0) -> (f64) {
    %n = arith.mulf %a, %a : f64
    loop.yield %n : f64
  }
  return %r : f64
}

// A loop with unknown bounds stays; constants leave its body; a value forwarded
// unchanged and a dead accumulator stop being carried.
// CHECK-LABEL: func.func @iter_args
// CHECK:         %[[TWO:.+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[R:.+]] = loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.+]] = %arg2) -> (f64) {
// CHECK-NEXT:      %[[N:.+]] = arith.mulf %[[A]], %[[TWO]] : f64
// CHECK-NEXT:      loop.yield %[[N]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]], %arg2 : f64, f64
func.func @iter_args(%arg0: index, %arg1: index, %arg2: f64) -> (f64, f64) {
  %c1 = arith.constant 1 : index
  %r:3 = loop.for %i = %arg0 to %arg1 step %c1 iter_args(%a = %arg2, %fw = %arg2, %dead = %arg2) -> (f64, f64, f64) {
    %two = arith.constant 2.0 : f64
    %n = arith.mulf %a, %two : f64
    %d = arith.addf %dead, %n : f64
    loop.yield %n, %fw, %d : f64, f64, f64
  }
  return %r#0, %r#1 : f64, f64
}

// Loops with side effects stay, even without results.
// CHECK-LABEL: func.func @side_effects
// CHECK:         loop.for
// CHECK-NEXT:      memref.store
func.func @side_effects(%arg0: index, %arg1: memref<4xf64>, %arg2: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for %i = %c0 to %arg0 step %c1 {
    memref.store %arg2, %arg1[%i] : memref<4xf64>
  }
  return
}

// A carried value whose result is unused but that feeds a store is kept.
// CHECK-LABEL: func.func @live_carried
// CHECK:         loop.for %{{.*}} iter_args(%{{.*}} = %arg2) -> (f64)
// CHECK:           memref.store
func.func @live_carried(%arg0: index, %arg1: memref<4xf64>, %arg2: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c0 to %arg0 step %c1 iter_args(%a = %arg2) -> (f64) {
    %n = arith.addf %a, %a : f64
    memref.store %n, %arg1[%i] : memref<4xf64>
    loop.yield %n : f64
  }
  return
}

// CHECK-LABEL: func.func @if_constant
// CHECK-NEXT:    %[[N:.+]] = arith.negf %arg0 : f64
// CHECK-NEXT:    func.return %[[N]], %arg0 : f64, f64
func.func @if_constant(%arg0: f64) -> (f64, f64) {
  %t = arith.constant true
  %f = arith.constant false
  %a = loop.if %t -> (f64) {
    %n = arith.negf %arg0 : f64
    loop.yield %n : f64
  } else {
    loop.yield %arg0 : f64
  }
  %b = loop.if %f -> (f64) {
    %n = arith.negf %arg0 : f64
    loop.yield %n : f64
  } else {
    loop.yield %arg0 : f64
  }
  loop.if %f {
    %n = arith.negf %arg0 : f64
  }
  return %a, %b : f64, f64
}

// Results yielded as the same value on both sides become that value; unused
// results go.
// CHECK-LABEL: func.func @if_results
// CHECK-NEXT:    %[[R:.+]] = loop.if %arg0 -> (f64) {
// CHECK-NEXT:      %[[N:.+]] = arith.negf %arg1 : f64
// CHECK-NEXT:      loop.yield %[[N]] : f64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      loop.yield %arg2 : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %arg1, %[[R]] : f64, f64
func.func @if_results(%arg0: i1, %arg1: f64, %arg2: f64) -> (f64, f64) {
  %r:3 = loop.if %arg0 -> (f64, f64, f64) {
    %n = arith.negf %arg1 : f64
    loop.yield %arg1, %n, %n : f64, f64, f64
  } else {
    loop.yield %arg1, %arg2, %arg1 : f64, f64, f64
  }
  return %r#0, %r#1 : f64, f64
}

// Nested ifs whose branches yield the same value fold from the inside out.
// CHECK-LABEL: func.func @if_cascade
// CHECK-NOT:     loop.if
// CHECK:         func.return %x : f64
func.func @if_cascade(%x: f64, %c: i1) -> f64 {
  %r0 = loop.if %c -> (f64) {
    %r1 = loop.if %c -> (f64) {
      %r2 = loop.if %c -> (f64) {
        loop.yield %x : f64
      } else {
        loop.yield %x : f64
      }
      loop.yield %r2 : f64
    } else {
      loop.yield %x : f64
    }
    loop.yield %r1 : f64
  } else {
    loop.yield %x : f64
  }
  func.return %r0 : f64
}
