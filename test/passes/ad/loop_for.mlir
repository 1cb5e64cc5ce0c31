// RUN: irt-opt %s -p ad,canonicalize,cse | FileCheck %s
// RUN: irt-opt %s -p ad | irt-opt -p canonicalize,cse | FileCheck %s

// The forward loop stores the carried state and, as a residual, the sin
// output that the adjoint of %x reads (two tapes of 4 x f64, one tensor.empty
// after cse); the reverse loop runs backwards over them, recomputing only
// cos, and accumulates the adjoint of the loop-invariant %x.

func.func @p(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = loop.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.mulf %s, %x : f64
    loop.yield %t : f64
  }
  return %r : f64
}

func.func @main(%x: f64) -> f64 {
  %g = autodiff.grad @p(%x) : (f64) -> f64
  return %g : f64
}

// CHECK-LABEL: func.func private @p_grad_0(%x: f64) -> f64
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4xf64>
// CHECK:         %{{.*}}, %[[TAPE:.*]], %[[STAPE:.*]] = loop.for %[[I:.*]] = %c0 to %c4 step %c1 iter_args(%[[A:.*]] = %x, %[[T:.*]] = %[[EMPTY]], %[[ST:.*]] = %[[EMPTY]]) -> (f64, tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:      tensor.insert %[[A]] into %[[T]][%[[I]]] : tensor<4xf64>
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[A]] : f64
// CHECK-NEXT:      arith.mulf %[[S]], %x : f64
// CHECK-NEXT:      tensor.insert %[[S]] into %[[ST]][%[[I]]] : tensor<4xf64>
// CHECK:         loop.for %[[J:.*]] = %c0 to %c4 step %c1 iter_args
// CHECK:           %[[IDX:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK-DAG:       %[[AV:.*]] = tensor.extract %[[TAPE]][%[[IDX]]] : tensor<4xf64>
// CHECK-DAG:       %[[SV:.*]] = tensor.extract %[[STAPE]][%[[IDX]]] : tensor<4xf64>
// CHECK-NOT:       math.sin
// CHECK:           arith.mulf %{{.*}}, %[[SV]] : f64
// CHECK:           math.cos %[[AV]]
// CHECK:           loop.yield
// CHECK-NOT:     tensor.empty
// CHECK:         func.return
// CHECK-LABEL: func.func @main
// CHECK:         func.call @p_grad_0(%x) : (f64) -> f64
