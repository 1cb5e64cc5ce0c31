// RUN: irt-opt -p inline %s | FileCheck %s
// RUN: irt-opt -p inline,symbol-dce %s | FileCheck %s --check-prefix=DCE

// CHECK-LABEL: func.func @simple
// CHECK-NEXT:    %[[S:.*]] = arith.mulf %[[X:.*]], %[[X]] : f64
// CHECK-NEXT:    %[[T:.*]] = arith.addf %[[S]], %[[X]] : f64
// CHECK-NEXT:    func.return %[[T]] : f64
func.func @simple(%x: f64) -> f64 {
  %s = func.call @square(%x) : (f64) -> f64
  %t = arith.addf %s, %x : f64
  func.return %t : f64
}

// Nothing is removed by inline itself.
// CHECK: func.func private @square
// DCE-NOT: @square
func.func private @square(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}

// Calls exposed by inlining are inlined too (fixpoint).
// CHECK-LABEL: func.func @nested
// CHECK-NOT:     func.call
// CHECK:         arith.mulf
// CHECK:         arith.mulf
// CHECK-NOT:     func.call
// CHECK:         func.return
func.func @nested(%x: f64) -> f64 {
  %y = func.call @fourth(%x) : (f64) -> f64
  func.return %y : f64
}
func.func private @fourth(%x: f64) -> f64 {
  %a = func.call @square(%x) : (f64) -> f64
  %b = func.call @square(%a) : (f64) -> f64
  func.return %b : f64
}

// Several results, an argument returned directly, a call in a nested region.
// CHECK-LABEL: func.func @multi
// CHECK-SAME:    (%[[X:.*]]: f64, %[[C:.*]]: i1)
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (f64) {
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[X]] : f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[N]], %[[X]] : f64
// CHECK-NEXT:      scf.yield %[[M]] : f64
// CHECK:         func.return %[[R]] : f64
func.func @multi(%x: f64, %c: i1) -> f64 {
  %r = scf.if %c -> (f64) {
    %n, %same = func.call @neg_and_id(%x) : (f64) -> (f64, f64)
    %m = arith.mulf %n, %same : f64
    scf.yield %m : f64
  } else {
    scf.yield %x : f64
  }
  func.return %r : f64
}
func.func private @neg_and_id(%x: f64) -> (f64, f64) {
  %n = arith.negf %x : f64
  func.return %n, %x : f64, f64
}

// Recursion (direct and mutual) is left alone, without looping forever.
// CHECK-LABEL: func.func @recursive
// CHECK:         func.call @recursive
func.func @recursive(%x: f64) -> f64 {
  %y = func.call @recursive(%x) : (f64) -> f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @ping
// CHECK:         func.call @pong
func.func @ping(%x: f64) -> f64 {
  %y = func.call @pong(%x) : (f64) -> f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @pong
// CHECK:         func.call @ping
func.func @pong(%x: f64) -> f64 {
  %y = func.call @ping(%x) : (f64) -> f64
  func.return %y : f64
}
// A call to a recursive function from elsewhere stays a call.
// CHECK-LABEL: func.func @calls_recursive
// CHECK:         func.call @recursive
func.func @calls_recursive(%x: f64) -> f64 {
  %y = func.call @recursive(%x) : (f64) -> f64
  func.return %y : f64
}

// Declarations, multi-block bodies and functions with a custom derivative
// rule are not inlined.
// CHECK-LABEL: func.func @kept_calls
// CHECK:         func.call @external
// CHECK:         func.call @multi_block
// CHECK:         func.call @has_rule
func.func @kept_calls(%x: f64, %c: i1) -> f64 {
  %a = func.call @external(%x) : (f64) -> f64
  %b = func.call @multi_block(%a, %c) : (f64, i1) -> f64
  %d = func.call @has_rule(%b) : (f64) -> f64
  func.return %d : f64
}
func.func private @external(f64) -> f64
func.func private @multi_block(%x: f64, %c: i1) -> f64 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  func.return %x : f64
^bb2:
  %n = arith.negf %x : f64
  func.return %n : f64
}
func.func private @has_rule(%x: f64) -> f64 attributes {autodiff.custom_vjp = @has_rule_vjp} {
  func.return %x : f64
}
func.func private @has_rule_vjp(%x: f64, %dy: f64) -> f64 {
  func.return %dy : f64
}
