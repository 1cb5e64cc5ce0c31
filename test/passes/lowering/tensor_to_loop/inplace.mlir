// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s

// Tapes carried through a loop (as the ad pass writes them) are updated in
// place: no copy and no allocation of the tape inside the loop body.

// CHECK-LABEL: func.func @tape(
// CHECK-SAME:      %[[X:[^:]+]]: memref<4xf64>, %[[N:[^:]+]]: index)
// CHECK:         %[[T0:.+]] = memref.alloc(%[[N]]) : memref<?x4xf64>
// CHECK:         %[[K0:.+]] = memref.alloc(%[[N]]) : memref<?xindex>
// The argument %x is borrowed: the loop gets a copy it owns.
// CHECK:         %[[XC:.+]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT:    "memref.copy"(%[[X]], %[[XC]])
// CHECK-NEXT:    {{.+}} = loop.for %[[I:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[XC]], %[[TAPE:.+]] = %[[T0]], %[[KT:.+]] = %[[K0]])
// CHECK-NOT:       memref.copy
// CHECK-NOT:       memref.alloc
// CHECK:           memref.store %{{.+}}, %[[TAPE]][%[[I]], %{{.+}}] : memref<?x4xf64>
// CHECK-NOT:       memref.copy
// CHECK-NOT:       memref.alloc
// CHECK:           memref.store %[[I]], %[[KT]][%[[I]]] : memref<?xindex>
// CHECK-NOT:       memref.copy
// CHECK:           memref.alloc() : memref<4xf64>
// CHECK-NEXT:      %[[NEXT:.+]] = loop.for
// CHECK:             math.tanh
// CHECK-NOT:       memref.copy
// CHECK-NOT:       memref.alloc
// CHECK:           memref.dealloc %[[ACC]] : memref<4xf64>
// CHECK-NEXT:      loop.yield %[[NEXT]], %[[TAPE]], %[[KT]] : memref<4xf64>, memref<?x4xf64>, memref<?xindex>
// CHECK-NEXT:    }
func.func @tape(%x: tensor<4xf64>, %n: index) -> (tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = tensor.empty(%n) : tensor<?x4xf64>
  %k0 = tensor.empty(%n) : tensor<?xindex>
  %r:3 = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %x, %tape = %t0, %kt = %k0) -> (tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>) {
    %t1 = tensor.insert_slice %acc into %tape[%i, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<?x4xf64>
    %k1 = tensor.insert %i into %kt[%i] : tensor<?xindex>
    %n2 = tensor.tanh %acc : tensor<4xf64>
    loop.yield %n2, %t1, %k1 : tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<?x4xf64>, tensor<?xindex>
}

// A destination that is used again afterwards is copied before the update.
// CHECK-LABEL: func.func @not_last_use(
// CHECK:         %[[E:.+]] = loop.for
// CHECK:           math.exp
// CHECK:         %[[U:.+]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    "memref.copy"(%[[E]], %[[U]])
// CHECK-NEXT:    memref.store %{{.+}}, %[[U]][%{{.+}}] : memref<3xf64>
// CHECK:         memref.dealloc %[[E]] : memref<3xf64>
// CHECK:         func.return %[[U]], %{{.+}} : memref<3xf64>, memref<3xf64>
func.func @not_last_use(%x: tensor<3xf64>, %v: f64) -> (tensor<3xf64>, tensor<3xf64>) {
  %c0 = arith.constant 0 : index
  %e = tensor.exp %x : tensor<3xf64>
  %u = tensor.insert %v into %e[%c0] : tensor<3xf64>
  %s = tensor.add %e, %e : tensor<3xf64>
  return %u, %s : tensor<3xf64>, tensor<3xf64>
}

// The last use of an owned destination updates it in place; an argument
// (borrowed) is never written: it is copied.
// CHECK-LABEL: func.func @last_use(
// CHECK-SAME:      %[[X:[^:]+]]: memref<3xf64>
// CHECK:         %[[C:.+]] = memref.alloc() : memref<3xf64>
// CHECK-NEXT:    "memref.copy"(%[[X]], %[[C]])
// CHECK-NEXT:    memref.store %{{.+}}, %[[C]][%{{.+}}] : memref<3xf64>
// CHECK-NEXT:    memref.store %{{.+}}, %[[C]][%{{.+}}] : memref<3xf64>
// CHECK-NEXT:    func.return %[[C]] : memref<3xf64>
func.func @last_use(%x: tensor<3xf64>, %v: f64) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = tensor.insert %v into %x[%c0] : tensor<3xf64>
  %w = tensor.insert %v into %u[%c1] : tensor<3xf64>
  return %w : tensor<3xf64>
}

// One tensor.empty feeding two tapes (CSE merges equal empties): the second
// tape gets a fresh allocation, not a copy of undefined contents.

// CHECK-LABEL: func.func @shared_empty(
// CHECK-NOT:     memref.copy
// CHECK:         func.return
func.func @shared_empty(%x: f64, %y: f64) -> (tensor<2xf64>, tensor<2xf64>) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2xf64>
  %a = tensor.insert %x into %e[%c0] : tensor<2xf64>
  %b = tensor.insert %y into %e[%c0] : tensor<2xf64>
  func.return %a, %b : tensor<2xf64>, tensor<2xf64>
}
