// RUN: irt-opt -p symbol-dce %s | FileCheck %s
// RUN: irt-opt -p symbol-dce --allow-unregistered-dialect --split-input-file %S/Inputs/symbol_dce_attrs.mlir | FileCheck %s --check-prefix=ATTRS

// Public functions stay; private ones stay only if something live uses them,
// transitively; references in attributes count as uses.

// CHECK-LABEL: func.func @main
func.func @main(%x: f64) -> f64 {
  %y = func.call @used(%x) : (f64) -> f64
  func.return %y : f64
}

// CHECK: func.func private @used
func.func private @used(%x: f64) -> f64 {
  %y = func.call @used_transitively(%x) : (f64) -> f64
  func.return %y : f64
}

// CHECK: func.func private @used_transitively
func.func private @used_transitively(%x: f64) -> f64 {
  func.return %x : f64
}

// CHECK-NOT: @dead
func.func private @dead(%x: f64) -> f64 {
  %y = func.call @dead_callee(%x) : (f64) -> f64
  func.return %y : f64
}

// Only referenced from a dead function: dead too.
// CHECK-NOT: @dead_callee
func.func private @dead_callee(%x: f64) -> f64 {
  func.return %x : f64
}

// A dead cycle is removed.
// CHECK-NOT: @cycle_a
// CHECK-NOT: @cycle_b
func.func private @cycle_a(%x: f64) -> f64 {
  %y = func.call @cycle_b(%x) : (f64) -> f64
  func.return %y : f64
}
func.func private @cycle_b(%x: f64) -> f64 {
  %y = func.call @cycle_a(%x) : (f64) -> f64
  func.return %y : f64
}

// A custom VJP rule named in an attribute of a live function is live.
// CHECK: func.func @with_rule(%{{.*}}: f64) -> f64 attributes {autodiff.custom_vjp = @with_rule_vjp}
func.func @with_rule(%x: f64) -> f64 attributes {autodiff.custom_vjp = @with_rule_vjp} {
  func.return %x : f64
}
// CHECK: func.func private @with_rule_vjp
func.func private @with_rule_vjp(%x: f64, %dy: f64) -> f64 {
  func.return %dy : f64
}

// The rule of a dead function dies with it.
// CHECK-NOT: @dead_with_rule
func.func private @dead_with_rule(%x: f64) -> f64 attributes {autodiff.custom_jvp = @dead_with_rule_jvp} {
  func.return %x : f64
}
func.func private @dead_with_rule_jvp(%x: f64, %t: f64) -> (f64, f64) {
  func.return %x, %t : f64, f64
}

// Private declarations: removed when unused, kept when used.
// CHECK: func.func private @extern_used(f64) -> f64
// CHECK-NOT: @extern_unused
func.func private @extern_used(f64) -> f64
func.func private @extern_unused(f64) -> f64
// CHECK-LABEL: func.func @calls_extern
func.func @calls_extern(%x: f64) -> f64 {
  %y = func.call @extern_used(%x) : (f64) -> f64
  func.return %y : f64
}

// The callee of an autodiff op is a use.
// CHECK-LABEL: func.func @uses_grad
func.func @uses_grad(%x: f64) -> f64 {
  %d = autodiff.grad @graded(%x) : (f64) -> f64
  %y, %dx = autodiff.vjp @pulled(%x) cotangents(%d) : (f64, f64) -> (f64, f64)
  func.return %dx : f64
}
// CHECK: func.func private @graded
func.func private @graded(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  func.return %y : f64
}
// CHECK: func.func private @pulled
func.func private @pulled(%x: f64) -> f64 {
  func.return %x : f64
}

// ATTRS: "test.holder"
// ATTRS: func.func private @in_array
// ATTRS: func.func private @in_dict
// ATTRS: builtin.module @in_nested
// ATTRS-NOT: @unreferenced
// ATTRS: // -----
// ATTRS: func.func private @from_region
