// mlir-opt's IR-printing and verification flags (stderr; stdout keeps the result).
// RUN: irt-opt -p 'cse,symbol-dce,canonicalize' --mlir-print-ir-after=symbol-dce %s 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: irt-opt -p 'cse,symbol-dce,canonicalize' --print-ir-before=cse,canonicalize %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: irt-opt -p 'cse,cse,symbol-dce' --mlir-print-ir-after-all --mlir-print-ir-after-change %s 2>&1 >/dev/null | FileCheck %s --check-prefix=CHANGE
// RUN: irt-opt -p 'cse,cse,symbol-dce' --mlir-print-ir-after-change %s 2>&1 >/dev/null | FileCheck %s --check-prefix=CHANGE
// RUN: not irt-opt -p 'cse,convert-to-llvm' --mlir-print-ir-after-failure %s 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: irt-opt --mlir-elide-elementsattrs-if-larger=2 %s | FileCheck %s --check-prefix=ELIDE
// RUN: irt-opt -p cse --verify-each=false --timing %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NOVERIFY
// RUN: irt-opt -p cse -verify-each --timing %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFY
// RUN: irt-opt -p 'builtin.module(func.func(cse)),ad{checkpoint=sqrt}' --dump-pass-pipeline %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: not irt-opt --mlir-print-ir-after=canonicalise %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// AFTER-NOT:  IR Dump After CommonSubexpressionElimination
// AFTER:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// AFTER-NEXT: builtin.module {
// AFTER-NOT:  @unused
// AFTER-NOT:  IR Dump

// BEFORE:     // -----// IR Dump Before CommonSubexpressionElimination (cse) //----- //
// BEFORE-NOT: IR Dump Before SymbolDCE
// BEFORE:     // -----// IR Dump Before Canonicalize (canonicalize) //----- //

// The first cse changes the module (one addf fewer), the second does not, symbol-dce does.
// CHANGE:     IR Dump After CommonSubexpressionElimination (cse)
// CHANGE-NOT: IR Dump After CommonSubexpressionElimination (cse)
// CHANGE:     IR Dump After SymbolDCE (symbol-dce)

// FAILURE-NOT:  IR Dump After CommonSubexpressionElimination
// FAILURE:      // -----// IR Dump After ConvertToLLVM Failed (convert-to-llvm) //----- //
// FAILURE-NEXT: builtin.module {
// FAILURE:      error: 'arith.constant' op type tensor<3xf64> has no LLVM equivalent

// ELIDE: arith.constant dense_resource<__elided__> : tensor<3xf64>
// ELIDE: arith.constant dense<2.000000e+00> : tensor<3xf64>

// NOVERIFY-NOT: Verifier (after each pass)
// VERIFY: Verifier (after each pass)

// DUMP:      Pass Manager with 2 passes:
// DUMP-NEXT: builtin.module(cse,ad{checkpoint=sqrt})

// UNKNOWN: error: --mlir-print-ir-after: 'canonicalise' is not a pass; did you mean 'canonicalize'? (see --list-passes)

func.func @main(%x: f64) -> f64 {
  %a = arith.addf %x, %x : f64
  %b = arith.addf %x, %x : f64
  %c = arith.mulf %a, %b : f64
  %d = autodiff.grad @sq(%c) : (f64) -> f64
  func.return %d : f64
}
func.func private @sq(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
func.func private @unused() {
  func.return
}
func.func @constants() -> tensor<3xf64> {
  %v = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %s = arith.constant dense<2.0> : tensor<3xf64>
  %p = tensor.add %v, %s : tensor<3xf64>
  func.return %p : tensor<3xf64>
}
