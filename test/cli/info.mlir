// --list-passes, --show-dialects, --version, --help.
// RUN: irt-opt --list-passes | FileCheck %s --check-prefix=PASSES
// RUN: irt-opt -list-passes | FileCheck %s --check-prefix=PASSES
// RUN: irt-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: irt-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: irt-opt --help | FileCheck %s --check-prefix=HELP
// RUN: irt-opt -h | FileCheck %s --check-prefix=HELP

// Every pass and named pipeline, each with a one-line description.
// PASSES-DAG: {{^}}  ad {{ +}}differentiate
// PASSES-DAG: {{^}}  canonicalize {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  cse {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  dce {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  symbol-dce {{ +}}remove private functions
// PASSES-DAG: {{^}}  inline {{ +}}inline calls
// PASSES-DAG: {{^}}  tensor-fuse {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  lower-tensor-to-loop {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  lower-loop-to-cf {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  convert-to-llvm {{ +}}{{[a-z]}}
// PASSES-DAG: {{^}}  lower-to-llvm {{ +}}{{.*}}[pipeline: {{.*}}]

// DIALECTS: Available Dialects: {{.*}}arith{{.*}}autodiff{{.*}}builtin{{.*}}func{{.*}}loop{{.*}}tensor

// VERSION: irt-opt (irtoolkit) {{[0-9]+\.[0-9]+\.[0-9]+}}

// HELP: Usage: irt-opt [OPTIONS] [FILE|-]
// HELP-DAG: --split-input-file
// HELP-DAG: --verify-diagnostics
// HELP-DAG: --emit [mlir|llvm|obj|asm]
// HELP-DAG: --print-ir-after-all, --mlir-print-ir-after-all
// HELP-DAG: --list-passes
