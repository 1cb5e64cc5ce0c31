// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @for_iter_args
// CHECK:         %[[R:[^ ,):]+]] = loop.for %[[I:[^ ,):]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ,):]+]] = %{{.*}}) -> (tensor<4xf32>) {
// CHECK-NEXT:      loop.yield %[[ACC]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK:         %{{[^ ]*}}, %{{[^ ]*}} = loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:[^ ,):]+]] = %{{.*}}, %[[B:[^ ,):]+]] = %{{.*}}) -> (f64, index) {
// CHECK-NEXT:      %[[S:[^ ,):]+]] = arith.addf %[[A]], %[[A]] : f64
// CHECK-NEXT:      loop.yield %[[S]], %[[B]] : f64, index
// CHECK-NEXT:    }
// GENERIC-LABEL: "func.func"() <{sym_name = "for_iter_args"
// GENERIC:         "loop.for"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: tensor<4xf32>):
// GENERIC-NEXT:      "loop.yield"(%{{.*}}) : (tensor<4xf32>) -> ()
// GENERIC-NEXT:    }) : (index, index, index, tensor<4xf32>) -> tensor<4xf32>
func.func @for_iter_args(%x: tensor<4xf32>, %lb: index, %ub: index, %c1: index, %f: f64) -> (tensor<4xf32>, f64) {
  %r = loop.for %i = %lb to %ub step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    loop.yield %acc : tensor<4xf32>
  }
  %p:2 = loop.for %i = %lb to %ub step %c1 iter_args(%a = %f, %b = %lb) -> (f64, index) {
    %s = arith.addf %a, %a : f64
    loop.yield %s, %b : f64, index
  }
  return %r, %p#0 : tensor<4xf32>, f64
}

// The implicit empty terminator is elided; attributes follow the region;
// non-index bounds print their type.
// CHECK-LABEL: func.func @for_no_results
// CHECK:         loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:    } {autodiff.checkpoint = "sqrt"}
// CHECK:         loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:    }
// CHECK:         loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    } {autodiff.checkpoint = 4 : i64}
// CHECK-NOT:     loop.yield
// CHECK:         return
// GENERIC-LABEL: sym_name = "for_no_results"
// GENERIC:         "loop.yield"() : () -> ()
// GENERIC-NEXT:    }) {autodiff.checkpoint = "sqrt"} : (index, index, index) -> ()
// GENERIC:         }) : (i32, i32, i32) -> ()
func.func @for_no_results(%lb: index, %ub: index, %f: f64, %l32: i32, %u32: i32) {
  loop.for %i = %lb to %ub step %lb {
    %s = arith.addf %f, %f : f64
  } {autodiff.checkpoint = "sqrt"}
  loop.for %i = %l32 to %u32 step %l32 : i32 {
    %s = arith.addf %f, %f : f64
    loop.yield
  }
  loop.for %i = %lb to %ub step %lb {
  } {autodiff.checkpoint = 4}
  return
}

// CHECK-LABEL: func.func @if_ops
// CHECK:         %{{.*}} = loop.if %{{.*}} -> (tensor<4xf32>) {
// CHECK-NEXT:      loop.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      loop.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK:         %{{[^ ]*}}, %{{[^ ]*}} = loop.if %{{.*}} -> (f64, f64) {
// CHECK:         loop.if %{{.*}} {
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.if %{{.*}} {
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:    } else {
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:    } {tag}
// GENERIC-LABEL: sym_name = "if_ops"
// GENERIC:         "loop.if"(%{{.*}}) ({
// GENERIC:         }) : (i1) -> tensor<4xf32>
// GENERIC:           "loop.yield"() : () -> ()
// GENERIC-NEXT:    }, {
// GENERIC-NEXT:    }) : (i1) -> ()
func.func @if_ops(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>, %f: f64) -> tensor<4xf32> {
  %y = loop.if %cond -> (tensor<4xf32>) {
    loop.yield %a : tensor<4xf32>
  } else {
    loop.yield %b : tensor<4xf32>
  }
  %z:2 = loop.if %cond -> (f64, f64) {
    loop.yield %f, %f : f64, f64
  } else {
    %n = arith.negf %f : f64
    loop.yield %n, %f : f64, f64
  }
  loop.if %cond {
    %s = arith.addf %f, %f : f64
  }
  loop.if %cond {
    %s = arith.addf %f, %f : f64
  } else {
    %s = arith.mulf %f, %f : f64
  } {tag}
  return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @while_ops
// CHECK:         %{{.*}} = loop.while (%[[V:[^ ,):]+]] = %{{.*}}) : (f64) -> f64 {
// CHECK-NEXT:      %[[C:[^ ,):]+]] = arith.cmpf olt, %[[V]], %{{.*}} : f64
// CHECK-NEXT:      loop.condition(%[[C]]) %[[V]] : f64
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[V2:[^ ,):]+]]: f64):
// CHECK-NEXT:      %[[N:[^ ,):]+]] = arith.mulf %[[V2]], %{{.*}} : f64
// CHECK-NEXT:      loop.yield %[[N]] : f64
// CHECK-NEXT:    }
// CHECK:         %{{[^ ]*}}, %{{[^ ]*}} = loop.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (f64, index) -> (index, f64) {
// CHECK:         } attributes {tag = 1 : i64}
// CHECK:         loop.while : () -> () {
// CHECK-NEXT:      loop.condition(%{{.*}})
// CHECK-NEXT:    } do {
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "while_ops"
// GENERIC:         "loop.while"(%{{.*}}) ({
// GENERIC:           "loop.condition"(%{{.*}}, %{{.*}}) : (i1, f64) -> ()
// GENERIC:         }) : (f64) -> f64
func.func @while_ops(%x: f64, %limit: f64, %two: f64, %idx: index, %cnd: i1) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %limit : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %two : f64
    loop.yield %n : f64
  }
  %w2:2 = loop.while (%a = %x, %i = %idx) : (f64, index) -> (index, f64) {
    %c = arith.cmpf olt, %a, %limit : f64
    loop.condition(%c) %i, %a : index, f64
  } do {
  ^bb0(%i2: index, %a2: f64):
    loop.yield %a2, %i2 : f64, index
  } attributes {tag = 1}
  loop.while : () -> () {
    loop.condition(%cnd)
  } do {
    loop.yield
  }
  return %w : f64
}

// CHECK-LABEL: func.func @parallel_ops
// CHECK:         %{{.*}} = loop.parallel (%[[I:[^ ,):]+]], %[[J:[^ ,):]+]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) init (%{{.*}}) -> f32 {
// CHECK-NEXT:      %[[V:[^ ,):]+]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x4xf32>
// CHECK-NEXT:      loop.reduce(%[[V]] : f32) {
// CHECK-NEXT:      ^bb0(%[[L:[^ ,):]+]]: f32, %[[R:[^ ,):]+]]: f32):
// CHECK-NEXT:        %[[S:[^ ,):]+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:        loop.reduce.return %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK:         %{{[^ ]*}}, %{{[^ ]*}} = loop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%{{.*}}, %{{.*}}) -> (f32, f32) {
// CHECK:           loop.reduce(%{{.*}}, %{{.*}} : f32, f32) {
// CHECK:           }, {
// CHECK:           }
// CHECK:         loop.parallel (%[[K:[^ ,):]+]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[K]], %[[K]]] : memref<4x4xf32>
// CHECK-NEXT:      loop.reduce
// CHECK-NEXT:    }
// GENERIC-LABEL: sym_name = "parallel_ops"
// GENERIC:         "loop.parallel"({{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 1>}> ({
// GENERIC:         "loop.reduce"() : () -> ()
func.func @parallel_ops(%m: memref<4x4xf32>, %c0: index, %c4: index, %c1: index, %z: f32) -> f32 {
  %sum = loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init (%z) -> f32 {
    %v = memref.load %m[%i, %j] : memref<4x4xf32>
    loop.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      loop.reduce.return %s : f32
    }
  }
  %t:2 = loop.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z, %z) -> (f32, f32) {
    %v = memref.load %m[%i, %i] : memref<4x4xf32>
    loop.reduce(%v, %v : f32, f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      loop.reduce.return %s : f32
    }, {
    ^bb0(%l: f32, %r: f32):
      %s = arith.maximumf %l, %r : f32
      loop.reduce.return %s : f32
    }
  }
  loop.parallel (%k) = (%c0) to (%c4) step (%c1) {
    memref.store %z, %m[%k, %k] : memref<4x4xf32>
  }
  return %sum : f32
}
