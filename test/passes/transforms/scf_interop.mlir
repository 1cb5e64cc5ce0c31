// RUN: irt-opt %s -p convert-loop-to-scf | FileCheck %s --check-prefix=SCF
// RUN: irt-opt %s -p convert-loop-to-scf,convert-scf-to-loop | FileCheck %s --check-prefix=LOOP
// Round trip: loop -> scf -> loop prints the original module.
// RUN: irt-opt %s > %t.orig.mlir
// RUN: irt-opt %s -p convert-loop-to-scf,convert-scf-to-loop > %t.back.mlir
// RUN: diff %t.orig.mlir %t.back.mlir
// Also through the generic form (scf's printer and parser in between).
// RUN: irt-opt %s -p convert-loop-to-scf --print-op-generic | irt-opt -p convert-scf-to-loop > %t.generic.mlir
// RUN: diff %t.orig.mlir %t.generic.mlir

// RUN: irt-opt %s -p convert-loop-to-scf | FileCheck %s --check-prefix=NOLOOP
// RUN: irt-opt %s -p convert-loop-to-scf,convert-scf-to-loop | FileCheck %s --check-prefix=NOSCF
// NOLOOP-NOT: loop.
// NOSCF-NOT: scf.

// SCF-LABEL: func.func @for_if
// SCF:         %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ,)]+]] = %{{.*}}) -> (f64) {
// SCF:           %{{.*}} = scf.if %{{.*}} -> (f64) {
// SCF-NEXT:        scf.yield %[[ACC]] : f64
// SCF-NEXT:      } else {
// SCF:             scf.yield %{{.*}} : f64
// SCF-NEXT:      }
// SCF:           scf.yield %{{.*}} : f64
// SCF-NEXT:    } {autodiff.checkpoint = "sqrt"}
// SCF:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// SCF:         scf.if %{{.*}} {
// SCF-NEXT:      memref.store
// SCF-NEXT:    }
// LOOP-LABEL: func.func @for_if
// LOOP:         loop.for {{.*}} iter_args
// LOOP:           loop.if
// LOOP:           loop.yield
// LOOP:         } {autodiff.checkpoint = "sqrt"}
func.func @for_if(%lb: index, %ub: index, %s: index, %x: f64, %c: i1, %m: memref<4xf64>, %a: i32, %b: i32) -> f64 {
  %r = loop.for %i = %lb to %ub step %s iter_args(%acc = %x) -> (f64) {
    %y = loop.if %c -> (f64) {
      loop.yield %acc : f64
    } else {
      %n = arith.mulf %acc, %acc : f64
      loop.yield %n : f64
    }
    loop.yield %y : f64
  } {autodiff.checkpoint = "sqrt"}
  loop.for %j = %a to %b step %a : i32 {
    %z = arith.addi %j, %j : i32
  }
  loop.if %c {
    memref.store %x, %m[%lb] : memref<4xf64>
  }
  return %r : f64
}

// SCF-LABEL: func.func @while
// SCF:         %{{.*}} = scf.while (%[[V:[^ ,)]+]] = %{{.*}}) : (f64) -> f64 {
// SCF-NEXT:      %[[C:[^ ,)]+]] = arith.cmpf olt, %[[V]], %{{.*}} : f64
// SCF-NEXT:      scf.condition(%[[C]]) %[[V]] : f64
// SCF-NEXT:    } do {
// SCF-NEXT:    ^bb0(%[[V2:[^ ,):]+]]: f64):
// SCF-NEXT:      %[[N:[^ ,)]+]] = arith.mulf %[[V2]], %{{.*}} : f64
// SCF-NEXT:      scf.yield %[[N]] : f64
// SCF-NEXT:    }
// LOOP-LABEL: func.func @while
// LOOP:         loop.while
// LOOP:           loop.condition
// LOOP:         } do {
// LOOP:           loop.yield
func.func @while(%x: f64, %limit: f64, %two: f64) -> f64 {
  %w = loop.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf olt, %v, %limit : f64
    loop.condition(%c) %v : f64
  } do {
  ^bb0(%v2: f64):
    %n = arith.mulf %v2, %two : f64
    loop.yield %n : f64
  }
  return %w : f64
}

// SCF-LABEL: func.func @parallel
// SCF:         %{{.*}} = "scf.parallel"(%{{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 1>}> ({
// SCF:           scf.reduce(%{{.*}} : f32) {
// SCF:             scf.reduce.return %{{.*}} : f32
// SCF:         }) : (index, index, index, index, index, index, f32) -> f32
// LOOP-LABEL: func.func @parallel
// LOOP:         loop.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) init (%{{.*}}) -> f32 {
// LOOP:           loop.reduce(%{{.*}} : f32) {
// LOOP:             loop.reduce.return %{{.*}} : f32
func.func @parallel(%m: memref<4x4xf32>, %c0: index, %c4: index, %c1: index, %z: f32) -> f32 {
  %sum = loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init (%z) -> f32 {
    %v = memref.load %m[%i, %j] : memref<4x4xf32>
    loop.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      loop.reduce.return %s : f32
    }
  }
  return %sum : f32
}
