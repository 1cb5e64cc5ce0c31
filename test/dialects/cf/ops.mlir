// RUN: irt-opt %s | FileCheck %s
// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s

// CHECK-LABEL: func.func @cond_weights
// CHECK: cf.cond_br %{{.*}} weights([60, 40]), ^{{.*}}(%{{.*}} : f64), ^{{.*}}
// CHECK-LABEL: func.func @no_weights
// CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}}(%{{.*}}, %{{.*}} : f64, f64)
func.func @cond_weights(%c: i1, %x: f64) -> f64 {
  cf.cond_br %c weights([60, 40]), ^bb1(%x : f64), ^bb2
^bb1(%y: f64):
  func.return %y : f64
^bb2:
  func.return %x : f64
}

func.func @no_weights(%c: i1, %x: f64) -> f64 {
  cf.cond_br %c, ^bb1, ^bb2(%x, %x : f64, f64)
^bb1:
  func.return %x : f64
^bb2(%a: f64, %b: f64):
  func.return %b : f64
}

// Case values print signed (255 : i8 is -1), as mlir-opt prints them.
// CHECK-LABEL: func.func @switch(
// CHECK:      cf.switch %x : i8, [
// CHECK-NEXT:   default: ^{{.*}}(%a : f32),
// CHECK-NEXT:   -128: ^{{.*}},
// CHECK-NEXT:   -1: ^{{.*}}(%a, %a : f32, f32)
// CHECK-NEXT: ]
func.func @switch(%x: i8, %a: f32) {
  cf.switch %x : i8, [default: ^bb1(%a : f32), -128: ^bb2, 255: ^bb3(%a, %a : f32, f32)]
^bb1(%p: f32):
  return
^bb2:
  return
^bb3(%q: f32, %r: f32):
  return
}

// CHECK-LABEL: func.func @switch_default_only
// CHECK:      cf.switch %i : index, [
// CHECK-NEXT:   default: ^{{.*}}
// CHECK-NEXT: ]
func.func @switch_default_only(%i: index) {
  cf.switch %i : index, [default: ^bb1]
^bb1:
  return
}
