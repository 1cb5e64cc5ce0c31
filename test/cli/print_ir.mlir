// --print-ir-before-all / --print-ir-after-all dump the module to stderr
// around every pass, with MLIR's headers; stdout keeps the final output.
// RUN: irt-opt -p 'cse,symbol-dce' --print-ir-after-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: irt-opt -p 'cse,symbol-dce' --print-ir-before-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: irt-opt -p 'cse,symbol-dce' --print-ir-after-all --print-ir-before-all %s 2>/dev/null | FileCheck %s --check-prefix=STDOUT
// RUN: irt-opt -p cse --print-ir-after-all --print-op-generic %s 2>&1 >/dev/null | FileCheck %s --check-prefix=GENERIC

// AFTER:      // -----// IR Dump After CommonSubexpressionElimination (cse) //----- //
// AFTER-NEXT: builtin.module {
// AFTER:        func.func private @unused
// AFTER:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// AFTER-NEXT: builtin.module {
// AFTER-NOT:    @unused
// AFTER:      }

// BEFORE:      // -----// IR Dump Before CommonSubexpressionElimination (cse) //----- //
// BEFORE:        arith.addf
// BEFORE:        arith.addf
// BEFORE:      // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// BEFORE:        arith.addf
// BEFORE-NOT:    arith.addf
// BEFORE:        @unused

// STDOUT-NOT: IR Dump
// STDOUT: func.func @main
// STDOUT-NOT: @unused

// GENERIC: // -----// IR Dump After CommonSubexpressionElimination (cse) //----- //
// GENERIC-NEXT: "builtin.module"() ({

func.func @main(%x: f64) -> f64 {
  %a = arith.addf %x, %x : f64
  %b = arith.addf %x, %x : f64
  %c = arith.mulf %a, %b : f64
  func.return %c : f64
}
func.func private @unused() {
  func.return
}
