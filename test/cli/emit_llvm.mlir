// --emit llvm prints LLVM IR. Input that is not in the llvm dialect gets the
// default lowering appended, said in a note on stderr; the appended passes run
// like the others (shown by --print-ir-after-all, timed by --timing).
// RUN: irt-opt --emit llvm %s 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// RUN: irt-opt --emit=llvm -p canonicalize %s -o %t.ll 2>/dev/null
// RUN: FileCheck %s < %t.ll
// RUN: irt-opt --emit llvm --print-ir-after-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMPS
// Input in the llvm dialect is translated as it is: no note, no pass.
// RUN: irt-opt -p lower-to-llvm %s | irt-opt --emit llvm --print-ir-after-all - 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: not irt-opt --emit llvm %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: define double @{{"?}}poly{{"?}}(double
// CHECK: fmul double
// CHECK: fadd double
// CHECK: ret double

// NOTE: note: --emit llvm: the module is not in the llvm dialect; appending the default lowering 'convert-stablehlo-to-tensor,ad,lower-to-llvm' to the pipeline

// DUMPS:      note: --emit llvm: the module is not in the llvm dialect
// DUMPS:      IR Dump After Autodiff (ad)
// DUMPS:      IR Dump After LowerTensorToLoop (lower-tensor-to-loop)
// DUMPS:      IR Dump After ConvertToLLVM (convert-to-llvm)
// DUMPS-NEXT: builtin.module {
// DUMPS-NEXT:   llvm.func @poly

// LOWERED-NOT: note:
// LOWERED-NOT: IR Dump
// LOWERED:     define double @{{"?}}poly{{"?}}(double

// ERR: invalid.mlir:2:23: error: use of undeclared SSA value name '%undefined'

func.func @poly(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  %z = arith.addf %y, %x : f64
  func.return %z : f64
}
