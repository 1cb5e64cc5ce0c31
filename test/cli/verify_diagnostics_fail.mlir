// Unexpected diagnostics and expected ones that are missing both fail (exit 1),
// reported like mlir-opt; the other chunks still run.
// RUN: not irt-opt --split-input-file --verify-diagnostics %S/Inputs/verify_fail.mlir > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out

// CHECK: verify_fail.mlir:2:3: error: unexpected error: 'func.return' op type of return operand 0
// CHECK-NEXT: func.return %x : f64
// CHECK-NEXT: ^
// CHECK: verify_fail.mlir:8:6: error: expected error "this is never reported" was not produced
// CHECK: verify_fail.mlir:16:3: error: unexpected error: 'func.return' op type of return operand 0
// CHECK: verify_fail.mlir:15:6: error: expected error "some other message" was not produced
// CHECK: verify_fail.mlir:22:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK: verify_fail.mlir:22:6: error: expected warning "type of return operand 0" was not produced
// CHECK: verify_fail.mlir:30:3: error: unexpected error: 'func.return' op type of return operand 0
// CHECK: verify_fail.mlir:29:6: error: expected error "type of return operand 0" was not produced

// OUT: func.func @missing
// OUT: func.func @fine

// A malformed directive is reported instead of silently ignored.
// RUN: not irt-opt --verify-diagnostics %S/Inputs/malformed_directive.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: malformed_directive.mlir:2:6: error: malformed 'expected-error' directive: expected a message in {{[{][{]}}...{{[}][}]}}

// Without --verify-diagnostics the comments are ordinary comments.
// RUN: not irt-opt --split-input-file %S/Inputs/verify_fail.mlir 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: expected
// PLAIN: verify_fail.mlir:2:3: error: 'func.return' op
