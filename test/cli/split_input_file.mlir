// Chunks are processed on their own; errors keep whole-file line numbers and
// the next chunks still run; the exit code is 1 if any chunk failed.
// RUN: not irt-opt --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// Without the flag the markers are plain comments: one module, one error.
// RUN: not irt-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// OUT:      func.func @first
// OUT-NEXT:   func.return
// OUT:      // -----
// OUT-NEXT: // -----
// OUT-NEXT: builtin.module {
// OUT-NEXT:   func.func @third
// OUT:      // -----
// OUT-NEXT: builtin.module {
// OUT-NEXT: }
// OUT-NOT:  {{.}}

// ERR: split_input_file.mlir:[[# @LINE + 14]]:3: error: 'func.return' op type of return operand 0
// ERR-NEXT: func.return %x : f64
// ERR-NEXT: ^
// ERR-NOT: error

// WHOLE: split_input_file.mlir:[[# @LINE + 9]]:3: error: 'func.return' op type of return operand 0

func.func @first(%x: f64) -> f64 {
  func.return %x : f64
}

// -----

func.func @second(%x: f64) -> f32 {
  func.return %x : f64
}

// -----

func.func @third(%x: f64) -> f64 {
  func.return %x : f64
}

// -----
