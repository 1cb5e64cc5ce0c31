// MLIR's spellings of the options, single- and double-dash, and per-pass flags.
// RUN: irt-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: irt-opt -mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: irt-opt -print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: irt-opt -pass-pipeline='builtin.module(cse)' %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt -pass-pipeline 'builtin.module(cse)' %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt --pass-pipeline=cse %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt --passes cse %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt --cse %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt -cse -canonicalize %s | FileCheck %s --check-prefix=CSE
// RUN: irt-opt --inline=max-iterations=0 %s | FileCheck %s --check-prefix=NOINLINE
// RUN: irt-opt -split-input-file -verify-diagnostics %s | FileCheck %s --check-prefix=SPLIT
// RUN: irt-opt --mlir-print-ir-after-all -p cse %s 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// RUN: irt-opt -mlir-print-ir-before-all -p cse %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: irt-opt --mlir-timing -p cse %s 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING
// RUN: irt-opt -mlir-print-debuginfo %s | FileCheck %s --check-prefix=LOC
// RUN: not irt-opt -p cse --canonicalize %s 2>&1 | FileCheck %s --check-prefix=MIX

// GENERIC: "func.func"() <{sym_name = "f", function_type = (f64) -> f64}>
// CSE: %[[A:.*]] = arith.addf
// CSE-NEXT: arith.mulf %[[A]], %[[A]]
// SPLIT: func.func @f
// NOINLINE: func.call @g
// AFTER: // -----// IR Dump After CommonSubexpressionElimination (cse) //----- //
// BEFORE: // -----// IR Dump Before CommonSubexpressionElimination (cse) //----- //
// TIMING: Execution time report
// TIMING: CommonSubexpressionElimination (cse)
// TIMING: Total
// LOC: loc("{{.*}}aliases.mlir":[[# @LINE + 4]]:3)
// MIX: error: '-p/--pass-pipeline' cannot be combined with individual pass flags

func.func @f(%x: f64) -> f64 {
  %a = arith.addf %x, %x : f64
  %b = arith.addf %x, %x : f64
  %c = arith.mulf %a, %b : f64
  %d = func.call @g(%c) : (f64) -> f64
  func.return %d : f64
}
func.func private @g(%x: f64) -> f64 {
  func.return %x : f64
}
