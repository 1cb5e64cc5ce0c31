// Pass options: declared once per pass, checked when the pipeline is parsed
// (before the input is read), with diagnostics that point into the pipeline
// text and suggest the closest pass, option or value.
// RUN: not irt-opt -p 'ad{checkpoint=sqrtt}' %s 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not irt-opt -p 'ad{chekpoint=sqrt}' %s 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not irt-opt -p 'cse,canonicalise' %s 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not irt-opt -p 'lower-loop-to-cf{parallel=maybe}' %s 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not irt-opt -p 'ad{checkpoint=0}' %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not irt-opt -p 'inline{max-iterations=-1}' %s 2>&1 | FileCheck %s --check-prefix=MIN
// MLIR's kebab-case spellings (the Python field names are accepted too).
// RUN: irt-opt -p 'inline{max-iterations=0}' %s | FileCheck %s --check-prefix=KEBAB
// RUN: irt-opt -p 'inline{max_iterations=0}' %s | FileCheck %s --check-prefix=KEBAB
// An integer checkpoint segment length, as the autodiff.checkpoint attribute takes.
// RUN: irt-opt -p 'ad{checkpoint=4}' %s | FileCheck %s --check-prefix=SEGMENT
// Named pipelines take the options of the passes they forward them to.
// RUN: irt-opt -p 'lower-to-llvm{blas=false parallel=false}' --dump-pass-pipeline %s 2>&1 >/dev/null | FileCheck %s --check-prefix=FORWARD
// RUN: not irt-opt -p 'lower-to-llvm{bals=false}' %s 2>&1 | FileCheck %s --check-prefix=PIPEOPT
// RUN: not irt-opt -p 'cse{x=1}' %s 2>&1 | FileCheck %s --check-prefix=NONE
// --list-passes shows every option with its kind, default and help.
// RUN: irt-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: irt-opt --help | FileCheck %s --check-prefix=LIST

// VALUE:      <pass-pipeline>:1:15: error: pass 'ad': invalid value 'sqrtt' for option 'checkpoint': expected 'sqrt' or an integer >= 1; did you mean 'sqrt'?
// VALUE-NEXT: {{^}}ad{checkpoint=sqrtt}
// VALUE-NEXT: {{^}}              ^

// OPTION:      <pass-pipeline>:1:4: error: pass 'ad' has no option 'chekpoint'; did you mean 'checkpoint'? (options: checkpoint, checkpoint-memory)
// OPTION-NEXT: {{^}}ad{chekpoint=sqrt}
// OPTION-NEXT: {{^}}   ^

// PASS:      <pass-pipeline>:1:5: error: 'canonicalise' does not refer to a registered pass or pipeline; did you mean 'canonicalize'? (see --list-passes)
// PASS-NEXT: {{^}}cse,canonicalise
// PASS-NEXT: {{^}}    ^

// BOOL: error: pass 'lower-loop-to-cf': invalid value 'maybe' for option 'parallel': expected true or false
// BOOL-NOT: bool

// The pipeline is checked first: no complaint about the missing file.
// EARLY: error: pass 'ad': invalid value '0' for option 'checkpoint': expected 'sqrt' or an integer >= 1
// EARLY-NOT: does-not-exist

// MIN: error: pass 'inline': invalid value '-1' for option 'max-iterations': expected an integer >= 0

// KEBAB: func.call @helper

// SEGMENT: func.func @twice

// FORWARD:      Pass Manager with 9 passes:
// FORWARD-NEXT: builtin.module(convert-scf-to-loop,canonicalize,cse,tensor-fuse{simplify=true fuse=true},lower-tensor-to-loop{global-threshold=16 blas=false blas-threshold=-1 conv-unroll=-1},lower-loop-to-cf{parallel=false outline-nests=true},convert-to-llvm,expand-vector-math,define-parallel-dispatchers)

// PIPEOPT: <pass-pipeline>:1:15: error: pipeline 'lower-to-llvm' has no option 'bals'; did you mean 'blas'? (options: simplify, fuse, global-threshold, blas, blas-threshold, conv-unroll, parallel, outline-nests)

// NONE: <pass-pipeline>:1:5: error: pass 'cse' has no option 'x' (it takes no options)

// LIST: {{^}}  ad {{ +}}differentiate
// LIST-NEXT: {{^}}    checkpoint=sqrt|<int> {{ +}}checkpoint every active loop.for{{.*}}(default: unset)
// LIST: {{^}}  lower-to-llvm {{ +}}everything from the tensor level
// LIST: {{^}}    blas=<bool> {{ +}}f32/f64 dots and matmuls call BLAS gemm (false: loop nests) (default: true)
// LIST: {{^}}    parallel=<bool> {{ +}}outline large parallel-safe loops{{.*}}(default: true)

func.func @twice(%x: f64) -> f64 {
  %y = func.call @helper(%x) : (f64) -> f64
  func.return %y : f64
}

func.func private @helper(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
