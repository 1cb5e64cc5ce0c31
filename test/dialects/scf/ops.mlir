// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s
// RUN: irt-opt %s -p convert-scf-to-loop | FileCheck %s --check-prefix=LOOP

// Upstream scf syntax that xDSL 0.74 does not parse.

// CHECK-LABEL: func.func @if_single_type
// CHECK: scf.if %{{.*}} -> (f32) {
// LOOP-LABEL: func.func @if_single_type
// LOOP: loop.if %{{.*}} -> (f32) {
func.func @if_single_type(%p: i1, %x: f32) -> f32 {
  %r = scf.if %p -> f32 {
    scf.yield %x : f32
  } else {
    scf.yield %x : f32
  }
  func.return %r : f32
}

// CHECK-LABEL: func.func @while_without_values
// CHECK: scf.while : () -> () {
// CHECK-NEXT: scf.condition(%{{.*}})
// CHECK-NEXT: } do {
// LOOP-LABEL: func.func @while_without_values
// LOOP: loop.while
func.func @while_without_values(%c: i1) {
  scf.while : () -> () {
    scf.condition(%c)
  } do {
    scf.yield
  }
  func.return
}

// CHECK-LABEL: func.func @parallel
// CHECK: %{{.*}} = scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%{{.*}}) -> f64 {
// CHECK: scf.reduce(%{{.*}} : f64) {
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) {
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// LOOP-LABEL: func.func @parallel
// LOOP: loop.parallel
func.func @parallel(%n: index, %z: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%z) -> f64 {
    scf.reduce(%z : f64) {
    ^bb0(%a: f64, %b: f64):
      %t = arith.addf %a, %b : f64
      scf.reduce.return %t : f64
    }
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
  }
  func.return %s : f64
}
