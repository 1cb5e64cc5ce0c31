// Function values: func.constant and func.call_indirect, with upstream's syntax
// (also unqualified inside func.func), round-tripped and interpreted.
// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s
// RUN: irt-run %s -e main -i 3.0 --interpret | FileCheck %s --check-prefix=INTERP
// RUN: not irt-opt %s -p lower-to-llvm 2>&1 | FileCheck %s --check-prefix=LOWER

func.func @square(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}

func.func private @external(tensor<2xf64>, i32) -> (f64, i1)

// CHECK-LABEL: func.func @main
func.func @main(%x: f32) -> f32 {
  // CHECK: %[[F:.*]] = func.constant @square : (f32) -> f32
  %f = func.constant @square : (f32) -> f32
  // CHECK: %[[G:.*]] = func.constant @square : (f32) -> f32
  %g = constant @square : (f32) -> f32
  // CHECK: %[[Y:.*]] = func.call_indirect %[[F]](%x) : (f32) -> f32
  %y = func.call_indirect %f(%x) : (f32) -> f32
  // CHECK: func.call_indirect %[[G]](%[[Y]]) {note = "unqualified"} : (f32) -> f32
  %z = call_indirect %g(%y) {note = "unqualified"} : (f32) -> f32
  return %z : f32
}
// INTERP: result0 = 81.0

// CHECK-LABEL: func.func @values
func.func @values(%t: tensor<2xf64>, %i: i32) -> (f64, i1) {
  // CHECK: func.constant @external : (tensor<2xf64>, i32) -> (f64, i1)
  %e = func.constant @external : (tensor<2xf64>, i32) -> (f64, i1)
  // CHECK: func.call_indirect %{{.*}}(%t, %i) : (tensor<2xf64>, i32) -> (f64, i1)
  %a, %b = func.call_indirect %e(%t, %i) : (tensor<2xf64>, i32) -> (f64, i1)
  // CHECK: func.constant @main : (f32) -> f32
  %unused = func.constant @main : (f32) -> f32
  return %a, %b : f64, i1
}

// The JIT does not take function values: a located error names the op.
// LOWER: ops.mlir:{{[0-9]+}}:3: error: 'func.call_indirect' op has no lowering in 'lower-tensor-to-loop'
