// Parsing, verifying and printing; stdin and round trips.
// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt < %s | FileCheck %s
// RUN: irt-opt - < %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt --print-op-generic %s | irt-opt | FileCheck %s
// RUN: irt-opt --print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @square(%{{.*}}: f64) -> f64 {
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    func.return %[[Y]] : f64
// GENERIC: "builtin.module"() ({
// GENERIC: "func.func"() <{sym_name = "square", function_type = (f64) -> f64}>
// GENERIC: "arith.mulf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
func.func @square(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}

// CHECK-LABEL: func.func private @decl(f64) -> f64
func.func private @decl(f64) -> f64
