// --print-debuginfo prints the locations attached by the parser; they parse back.
// RUN: irt-opt --print-debuginfo %s | FileCheck %s
// RUN: irt-opt --print-debuginfo %s | irt-opt --print-debuginfo | FileCheck %s
// Ops a pass moves keep their own location (inline).
// RUN: irt-opt -p inline --print-debuginfo %s | FileCheck %s --check-prefix=INLINE

// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64 loc("{{.*}}debuginfo.mlir":[[# @LINE + 8]]:3)
// CHECK: func.return %{{.*}} : f64 loc("{{.*}}debuginfo.mlir":[[# @LINE + 8]]:3)
// CHECK: } loc("{{.*}}debuginfo.mlir":[[# @LINE + 5]]:1)

// INLINE-LABEL: func.func @caller
// INLINE: arith.mulf %{{.*}}, %{{.*}} : f64 loc("{{.*}}debuginfo.mlir":[[# @LINE + 3]]:3)

func.func @callee(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}

func.func @caller(%x: f64) -> f64 {
  %y = func.call @callee(%x) : (f64) -> f64
  func.return %y : f64
}
