// RUN: irt-opt %s -p ad,canonicalize | FileCheck %s
// RUN: irt-opt %s -p 'ad{checkpoint-memory=40},canonicalize' | FileCheck %s --check-prefix=BUDGET

// A print is a side effect without a derivative: the derivative function
// prints in its primal code, once per iteration, and the reverse sweep (which
// replays the loop body) does not print again; with checkpointing, neither do
// the recomputed segments.
// CHECK-LABEL: func.func private @f_grad_0
// CHECK-COUNT-1: printf.print_format "i = {} a = {}\0A"
// CHECK-NOT:     printf.print_format
// CHECK:         func.return
// Under a memory budget (Revolve, 3 slots) the restores replay iterations: silently.
// BUDGET-LABEL: func.func private @f_grad_0
// BUDGET:         loop.while
// BUDGET-COUNT-1: printf.print_format "i = {} a = {}\0A"
// BUDGET-NOT:     printf.print_format
// BUDGET:         func.return
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %b = math.sin %a : f64
    printf.print_format "i = {} a = {}\n", %i : index, %b : f64
    loop.yield %b : f64
  }
  func.return %r : f64
}
func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) : (f64) -> f64
  func.return %g : f64
}

// CHECK-LABEL: func.func private @g_grad_0
// CHECK-COUNT-1: printf.print_format "a = {}\0A"
// CHECK-NOT:     printf.print_format
// CHECK:         func.return
func.func @g(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 9 : index
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %b = math.sin %a : f64
    printf.print_format "a = {}\n", %b : f64
    loop.yield %b : f64
  } {autodiff.checkpoint = "sqrt"}
  func.return %r : f64
}
func.func @main_checkpointed(%x: f64) -> f64 {
  %g = autodiff.grad @g(%x) : (f64) -> f64
  func.return %g : f64
}

// A while loop runs its body once more to count the iterations: that count does not print.
// CHECK-LABEL: func.func private @h_grad_0
// CHECK:         loop.while
// CHECK-NOT:     printf.print_format
// CHECK:         loop.for
// CHECK-NEXT:      printf.print_format "test {}\0A"
// CHECK:           printf.print_format "body {}\0A"
// CHECK:         }
// CHECK-NEXT:    printf.print_format "test {}\0A"
// CHECK-NOT:     printf.print_format
// CHECK:         func.return
func.func @h(%x: f64) -> f64 {
  %lim = arith.constant 10.0 : f64
  %r = loop.while (%a = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %a, %lim : f64
    printf.print_format "test {}\n", %a : f64
    loop.condition(%c) %a : f64
  } do {
  ^bb0(%b: f64):
    %two = arith.constant 2.0 : f64
    %d = arith.mulf %b, %two : f64
    printf.print_format "body {}\n", %d : f64
    loop.yield %d : f64
  }
  func.return %r : f64
}
func.func @main_while(%x: f64) -> f64 {
  %g = autodiff.grad @h(%x) : (f64) -> f64
  func.return %g : f64
}

// A parallel loop is replayed to count ties of its max and to run its reverse
// sweep (forward mode: its tangent loop): none of them prints again.
// CHECK-LABEL: func.func private @p_grad_0
// CHECK-COUNT-1: printf.print_format "v = {}\0A"
// CHECK-NOT:     printf.print_format
// CHECK:         func.return
// CHECK-LABEL: func.func private @p_jvp_0
// CHECK-COUNT-1: printf.print_format "v = {}\0A"
// CHECK-NOT:     printf.print_format
// CHECK:         func.return
func.func @p(%x: tensor<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %m = loop.parallel (%i) = (%c0) to (%c4) step (%c1) init (%ninf) -> f64 {
    %v = tensor.extract %x[%i] : tensor<4xf64>
    %s = math.sin %v : f64
    printf.print_format "v = {}\n", %s : f64
    loop.reduce(%s : f64) {
    ^bb0(%l: f64, %r: f64):
      %a = arith.maximumf %l, %r : f64
      loop.reduce.return %a : f64
    }
  }
  func.return %m : f64
}
func.func @main_parallel(%x: tensor<4xf64>, %t: tensor<4xf64>) -> (tensor<4xf64>, f64) {
  %g = autodiff.grad @p(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %y, %dy = autodiff.jvp @p(%x) tangents(%t) : (tensor<4xf64>, tensor<4xf64>) -> (f64, f64)
  func.return %g, %dy : tensor<4xf64>, f64
}
