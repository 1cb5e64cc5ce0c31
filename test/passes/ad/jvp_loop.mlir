// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// Forward mode carries the tangent of each varied loop-carried value.

func.func @p(%x: f64, %y: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = loop.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.mulf %s, %y : f64
    loop.yield %t : f64
  }
  return %r : f64
}

func.func @main(%x: f64, %y: f64, %t: f64) -> (f64, f64) {
  %r, %dr = autodiff.jvp @p(%x, %y) tangents(%t) wrt [0] : (f64, f64, f64) -> (f64, f64)
  return %r, %dr : f64, f64
}

// CHECK-LABEL: func.func private @p_jvp_0(%x: f64, %y: f64, %x_dot: f64) -> (f64, f64)
// CHECK:         %{{.*}}, %{{.*}} = loop.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[A:.*]] = %x, %[[DA:.*]] = %x_dot) -> (f64, f64) {
// CHECK:           %[[S:.*]] = math.sin %[[A]] : f64
// CHECK:           %[[C:.*]] = math.cos %[[A]] : f64
// CHECK:           arith.mulf %[[DA]], %[[C]] : f64
// CHECK:           loop.yield
// CHECK:         func.return
