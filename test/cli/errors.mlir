// Errors are located diagnostics with the source line and a caret, exit code 1, no traceback.
// RUN: not irt-opt %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: invalid.mlir:2:23: error: use of undeclared SSA value name '%undefined'
// PARSE-NEXT: {{^}}  %y = arith.addf %x, %undefined : f64
// PARSE-NEXT: {{^}}                      ^
// PARSE-NOT: Traceback

// RUN: not irt-opt %s 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: errors.mlir:[[# @LINE + 3]]:3: error: 'func.return' op type of return operand 0 ('f64') doesn't match function result type ('f32')
// VERIFY-NOT: Traceback
func.func @wrong_return(%x: f64) -> f32 {
  func.return %x : f64
}

// RUN: not irt-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: not irt-opt %S/Inputs 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: error: cannot open input file '{{.*}}Inputs': is a directory

// RUN: not irt-opt -p no-such-pass %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: <pass-pipeline>:1:1: error: 'no-such-pass' does not refer to a registered pass or pipeline (see --list-passes)
// RUN: not irt-opt -p 'symbol-dce{bogus=1}' %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: <pass-pipeline>:1:12: error: pass 'symbol-dce' has no option 'bogus' (it takes no options)
// RUN: not irt-opt -p 'cse,,(' %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: <pass-pipeline>:1:5: error: expected a pass name, found ','
// MALFORMED-NEXT: {{^}}cse,,(
// MALFORMED-NEXT: {{^}}    ^
// RUN: not irt-opt --no-such-flag %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: error: No such option '--no-such-flag'
// RUN: not irt-opt --emit wasm %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: error: Invalid value for '--emit'
// RUN: not irt-opt %S/Inputs/small.mlir %S/Inputs/small.mlir 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: error: Got unexpected extra argument
