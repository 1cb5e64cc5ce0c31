// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p ad | irt-opt -p canonicalize,cse | FileCheck %s

// loop.while: a counting while gives the trip count %n, the iterations are
// replayed by a loop.for storing its iterates in a tape of dynamic length
// (tensor.empty(%n)), and the reverse loop reads it backwards.

func.func @w(%x: f64, %y: f64) -> f64 {
  %lim = arith.constant 10.0 : f64
  %r = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %lim : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %y : f64
    loop.yield %n : f64
  }
  return %r : f64
}

func.func @main(%x: f64, %y: f64) -> (f64, f64) {
  %dx, %dy = autodiff.grad @w(%x, %y) : (f64, f64) -> (f64, f64)
  return %dx, %dy : f64, f64
}

// CHECK-LABEL: func.func private @w_grad_0_1(%x: f64, %y: f64) -> (f64, f64)
// CHECK:         %{{.*}}, %[[N:.*]] = loop.while
// CHECK:         %[[TAPE0:.*]] = tensor.empty(%{{.*}}) : tensor<?xf64>
// CHECK:         %{{.*}}, %[[TAPE:.*]] = loop.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %x, %{{.*}} = %[[TAPE0]]) -> (f64, tensor<?xf64>)
// CHECK:           tensor.insert
// CHECK:         loop.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           tensor.extract %[[TAPE]]
// CHECK:         func.return
