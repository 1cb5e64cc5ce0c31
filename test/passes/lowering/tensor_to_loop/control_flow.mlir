// RUN: irt-opt %s -p lower-tensor-to-loop | FileCheck %s

// loop.if: each branch yields a buffer it owns (values from outside are copied);
// the result is owned by the enclosing block.
// CHECK-LABEL: func.func @if(
// CHECK-SAME:      %[[X:[^:]+]]: memref<4xf64>, %[[C:[^:]+]]: i1) -> memref<4xf64> {
// CHECK:         %[[Y:.+]] = loop.if %[[C]] -> (memref<4xf64>) {
// CHECK-NEXT:      %[[E0:.+]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT:      %[[E:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[E0]]) -> (memref<4xf64>) {
// CHECK:             math.exp
// CHECK:           loop.yield %[[E]] : memref<4xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[CP:.+]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT:      "memref.copy"(%[[X]], %[[CP]])
// CHECK-NEXT:      loop.yield %[[CP]] : memref<4xf64>
// CHECK-NEXT:    }
// CHECK:         memref.dealloc %[[Y]] : memref<4xf64>
// CHECK:         func.return %{{.+}} : memref<4xf64>
func.func @if(%x: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
  %y = loop.if %c -> (tensor<4xf64>) {
    %e = tensor.exp %x : tensor<4xf64>
    loop.yield %e : tensor<4xf64>
  } else {
    loop.yield %x : tensor<4xf64>
  }
  %z = tensor.sin %y : tensor<4xf64>
  return %z : tensor<4xf64>
}

// loop.while: the regions own their tensor arguments, loop.condition and
// loop.yield hand the buffers on.
// CHECK-LABEL: func.func @while(
// CHECK:         %[[INIT:.+]] = memref.alloc() : memref<f64>
// CHECK:         %[[W:.+]] = loop.while (%[[V:.+]] = %[[INIT]]) : (memref<f64>) -> memref<f64> {
// CHECK:           memref.load %[[V]][] : memref<f64>
// CHECK:           loop.condition(%{{.+}}) %[[V]] : memref<f64>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.+}}(%[[V2:.+]]: memref<f64>):
// CHECK-NEXT:      %[[N:.+]] = memref.alloc() : memref<f64>
// CHECK:           memref.dealloc %[[V2]] : memref<f64>
// CHECK:           loop.yield %[[N]] : memref<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[W]] : memref<f64>
func.func @while(%x: tensor<f64>, %lim: f64) -> tensor<f64> {
  %x2 = tensor.add %x, %x : tensor<f64>
  %w = loop.while (%v = %x2) : (tensor<f64>) -> tensor<f64> {
    %s = tensor.extract %v[] : tensor<f64>
    %c = arith.cmpf olt, %s, %lim : f64
    loop.condition(%c) %v : tensor<f64>
  } do {
  ^bb0(%v2: tensor<f64>):
    %n = tensor.add %v2, %v2 : tensor<f64>
    loop.yield %n : tensor<f64>
  }
  return %w : tensor<f64>
}

// Calls: arguments are borrowed (the callee never frees them), results are
// fresh buffers owned by the caller, who frees them after their last use.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME:      %[[A:[^:]+]]: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
// CHECK:         %[[M0:.+]] = memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK-NEXT:    %[[M:.+]] = loop.for %{{.+}} iter_args(%{{.+}} = %[[M0]])
// CHECK:         %[[CP:.+]] = memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK-NEXT:    "memref.copy"(%[[A]], %[[CP]])
// CHECK-NEXT:    func.return %[[M]], %[[CP]] : memref<?xf32>, memref<?xf32>
func.func private @callee(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %m = tensor.mul %a, %a : tensor<?xf32>
  return %m, %a : tensor<?xf32>, tensor<?xf32>
}
// CHECK-LABEL: func.func @caller(
// CHECK:         %[[P0:[^ ,]+]], %[[P1:[^ ,]+]] = func.call @callee(%{{.+}}) : (memref<?xf32>) -> (memref<?xf32>, memref<?xf32>)
// CHECK-NEXT:    memref.dealloc %[[P1]] : memref<?xf32>
// CHECK-NEXT:    func.return %[[P0]] : memref<?xf32>
func.func @caller(%x: tensor<?xf32>) -> tensor<?xf32> {
  %p:2 = func.call @callee(%x) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  return %p#0 : tensor<?xf32>
}

// Functions and loops without tensors are left alone.
// CHECK-LABEL: func.func @scalar(%{{.+}}: f64) -> f64 {
// CHECK-NEXT:    %{{.+}} = arith.mulf
// CHECK-NEXT:    func.return
func.func @scalar(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}

// A value whose last use is a loop.if moves into both branches: the branch
// that yields it hands it on (no copy), the other frees it.
// CHECK-LABEL: func.func @if_moves(
// CHECK:         %[[E:.+]] = loop.for
// CHECK:         %[[Y:.+]] = loop.if %{{.+}} -> (memref<4xf64>) {
// CHECK-NEXT:      memref.alloc() : memref<4xf64>
// CHECK-NEXT:      %[[S:.+]] = loop.for
// CHECK:             math.sin
// CHECK:           memref.dealloc %[[E]] : memref<4xf64>
// CHECK-NEXT:      loop.yield %[[S]] : memref<4xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      loop.yield %[[E]] : memref<4xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : memref<4xf64>
func.func @if_moves(%x: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
  %e = tensor.exp %x : tensor<4xf64>
  %y = loop.if %c -> (tensor<4xf64>) {
    %s = tensor.sin %e : tensor<4xf64>
    loop.yield %s : tensor<4xf64>
  } else {
    loop.yield %e : tensor<4xf64>
  }
  return %y : tensor<4xf64>
}
