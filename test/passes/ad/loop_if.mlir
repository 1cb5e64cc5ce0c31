// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s

// The reverse sweep of loop.if branches on the same condition; each branch
// yields the adjoints of the values it uses from outside.

func.func @g(%x: f64, %y: f64) -> f64 {
  %z = arith.constant 0.0 : f64
  %c = arith.cmpf ogt, %x, %z : f64
  %r = loop.if %c -> (f64) {
    %a = arith.mulf %x, %y : f64
    loop.yield %a : f64
  } else {
    %b = math.exp %y : f64
    loop.yield %b : f64
  }
  return %r : f64
}

func.func @main(%x: f64, %y: f64) -> (f64, f64) {
  %dx, %dy = autodiff.grad @g(%x, %y) : (f64, f64) -> (f64, f64)
  return %dx, %dy : f64, f64
}

// CHECK-LABEL: func.func private @g_grad_0_1(%x: f64, %y: f64) -> (f64, f64)
// CHECK:         %[[C:.*]] = arith.cmpf ogt, %x, %{{.*}} : f64
// CHECK:         %[[DX:.*]], %[[DY:.*]] = loop.if %[[C]] -> (f64, f64) {
// CHECK:           loop.yield %y, %x : f64, f64
// CHECK:         } else {
// CHECK:           %[[E:.*]] = math.exp %y : f64
// CHECK:           loop.yield %{{.*}}, %[[E]] : f64, f64
// CHECK:         }
// CHECK:         func.return %[[DX]], %[[DY]] : f64, f64
