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
