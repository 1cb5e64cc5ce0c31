// Pipelines: flat, named, nested builtin.module(...) / func.func(...), options.
// RUN: irt-opt -p cse %s | FileCheck %s
// RUN: irt-opt -p 'cse,canonicalize' %s | FileCheck %s
// RUN: irt-opt -p 'builtin.module(cse)' %s | FileCheck %s
// RUN: irt-opt -p 'builtin.module(func.func(cse),canonicalize)' %s | FileCheck %s
// RUN: irt-opt --pass-pipeline='builtin.module(func.func(cse))' %s | FileCheck %s
// Several -p options run one after the other.
// RUN: irt-opt -p inline -p 'cse,symbol-dce' %s | FileCheck %s --check-prefix=MULTI
// Pass options in braces.
// RUN: irt-opt -p 'inline{max-iterations=0}' %s | FileCheck %s --check-prefix=NOINLINE
// RUN: irt-opt -p 'builtin.module(inline{max-iterations=5},symbol-dce)' %s | FileCheck %s --check-prefix=MULTI
// RUN: not irt-opt -p 'inline{max-iterations=many}' %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not irt-opt -p 'builtin.module(cse' %s 2>&1 | FileCheck %s --check-prefix=UNBALANCED

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[C:.*]] = arith.mulf %[[A]], %[[A]] : f64
// CHECK-NEXT:    func.return %[[C]] : f64

// MULTI-NOT: func.func private @helper
// MULTI-LABEL: func.func @twice
// MULTI-LABEL: func.func @caller
// MULTI-NOT: func.call
// MULTI: arith.mulf
// MULTI-NOT: func.call

// NOINLINE: func.call @helper

// BADOPT: <pass-pipeline>:1:23: error: pass 'inline': invalid value 'many' for option 'max-iterations': expected an integer >= 0
// UNBALANCED: <pass-pipeline>:1:19: error: expected ')' to close 'builtin.module('

func.func @twice(%x: f64) -> f64 {
  %a = arith.addf %x, %x : f64
  %b = arith.addf %x, %x : f64
  %c = arith.mulf %a, %b : f64
  func.return %c : f64
}

func.func private @helper(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}

func.func @caller(%x: f64) -> f64 {
  %y = func.call @helper(%x) : (f64) -> f64
  func.return %y : f64
}
