// --timing (--mlir-timing) reports wall time per phase and per pass on stderr.
// RUN: irt-opt --timing -p 'cse,symbol-dce' %s 2>&1 >/dev/null | FileCheck %s
// RUN: irt-opt --timing --split-input-file -p cse %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SPLIT
// RUN: irt-opt --timing %s 2>/dev/null | FileCheck %s --check-prefix=STDOUT

// CHECK:      ... Execution time report ...
// CHECK:      Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// CHECK:      ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Parser
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  CommonSubexpressionElimination (cse)
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  SymbolDCE (symbol-dce)
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Verifier
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Output
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Rest
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} (100.0%)  Total

// One report for all chunks.
// SPLIT-COUNT-1: Execution time report
// SPLIT-NOT: Execution time report

// STDOUT-NOT: Execution time report
// STDOUT: func.func @f

func.func @f(%x: f64) -> f64 {
  func.return %x : f64
}

// -----

func.func @g(%x: f64) -> f64 {
  func.return %x : f64
}
