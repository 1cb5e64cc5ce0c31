// -o writes the output whole, only when everything succeeded.
// RUN: rm -rf %t && mkdir -p %t
// RUN: irt-opt %s -o %t/out.mlir
// RUN: FileCheck %s < %t/out.mlir
// RUN: irt-opt --output=%t/out2.mlir %s
// RUN: FileCheck %s < %t/out2.mlir
// An existing output stays untouched when parsing, a pass or a chunk fails.
// RUN: echo "previous contents" > %t/keep.mlir
// RUN: not irt-opt %S/Inputs/invalid.mlir -o %t/keep.mlir
// RUN: FileCheck %s --check-prefix=KEEP < %t/keep.mlir
// RUN: not irt-opt %s -p no-such-pass -o %t/keep.mlir
// RUN: FileCheck %s --check-prefix=KEEP < %t/keep.mlir
// RUN: not irt-opt --split-input-file %S/Inputs/verify_fail.mlir -o %t/keep.mlir
// RUN: FileCheck %s --check-prefix=KEEP < %t/keep.mlir
// RUN: not irt-opt %S/Inputs/invalid.mlir -o %t/new.mlir
// RUN: not ls %t/new.mlir
// No temporary file is left behind.
// RUN: ls -A %t | FileCheck %s --check-prefix=LS
// -o - is stdout; /dev/null works.
// RUN: irt-opt %s -o - | FileCheck %s
// RUN: irt-opt %s -o /dev/null
// An unwritable destination is a diagnostic.
// RUN: not irt-opt %s -o %t/no/such/dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR

// CHECK: func.func @kept
// KEEP: previous contents
// KEEP-NOT: func.func
// LS-NOT: tmp
// LS-NOT: new.mlir
// NODIR: error: cannot write output file '{{.*}}out.mlir': No such file or directory

func.func @kept() {
  func.return
}
