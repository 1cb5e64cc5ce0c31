// --emit llvm prints LLVM IR (the module is lowered as needed); -o works with it.
// RUN: irt-opt --emit llvm %s | FileCheck %s
// RUN: irt-opt --emit=llvm -p canonicalize %s -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: not irt-opt --emit llvm %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: define double @{{"?}}poly{{"?}}(double
// CHECK: fmul double
// CHECK: fadd double
// CHECK: ret double
// ERR: invalid.mlir:2:23: error: use of undeclared SSA value name '%undefined'

func.func @poly(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  %z = arith.addf %y, %x : f64
  func.return %z : f64
}
