// RUN: irt-opt %s | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | irt-opt | FileCheck %s
// RUN: irt-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}

func.func @h(%x: tensor<4xf64>, %w: tensor<4xf64>) -> f64 {
  %c = arith.constant 1.0 : f64
  return %c : f64
}

func.func @mixed(%n: index, %x: f32, %m: tensor<3xi32>, %y: tensor<f32>) -> tensor<f32> {
  return %y : tensor<f32>
}

// CHECK-LABEL: func.func @main
// CHECK:         %[[DX:[^ ,]+]], %[[DW:[^ ,]+]] = autodiff.grad @loss(%[[X:[^ ,)]+]], %[[W:[^ ,)]+]]) wrt [0, 1] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.value_and_grad @loss(%[[X]], %[[W]]) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (f64, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.vjp @f(%[[X]]) cotangents(%[[W]]) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.jvp @f(%[[X]]) tangents(%[[W]]) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}} = autodiff.stop_gradient %[[X]] : tensor<4xf64>
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.vjp @h(%[[X]], %[[W]]) cotangents(%{{[^ ,)]+}}) wrt [1] : (tensor<4xf64>, tensor<4xf64>, f64) -> (f64, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.grad @loss(%[[X]], %[[W]]) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.value_and_grad @mixed(%{{.*}}) : (index, f32, tensor<3xi32>, tensor<f32>) -> (tensor<f32>, f32, tensor<f32>)
// CHECK-NEXT:    %{{[^ ,]+}}, %{{[^ ,]+}} = autodiff.jvp @mixed(%{{.*}}) tangents(%{{.*}}) wrt [3] {tag} : (index, f32, tensor<3xi32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)

// GENERIC:     "autodiff.grad"(%{{.*}}, %{{.*}}) <{callee = @loss, wrt = array<i64: 0, 1>}> : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// GENERIC:     "autodiff.vjp"(%{{.*}}, %{{.*}}) <{callee = @f, operandSegmentSizes = array<i32: 1, 1>}> : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
// GENERIC:     "autodiff.stop_gradient"(%{{.*}}) : (tensor<4xf64>) -> tensor<4xf64>
// GENERIC:     "autodiff.grad"(%{{.*}}, %{{.*}}) <{callee = @loss}> : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>, %n: index, %s: f32, %m: tensor<3xi32>, %y: tensor<f32>) {
  %dx, %dw = autodiff.grad @loss(%x, %w) wrt [0, 1] : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %l, %dw2 = autodiff.value_and_grad @loss(%x, %w) wrt [1] : (tensor<4xf64>, tensor<4xf64>) -> (f64, tensor<4xf64>)
  %y1, %dx1 = autodiff.vjp @f(%x) cotangents(%w) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %y2, %dy2 = autodiff.jvp @f(%x) tangents(%w) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %sg = autodiff.stop_gradient %x : tensor<4xf64>
  %z, %dw3 = autodiff.vjp @h(%x, %w) cotangents(%l) wrt [1] : (tensor<4xf64>, tensor<4xf64>, f64) -> (f64, tensor<4xf64>)
  %g:2 = autodiff.grad @loss(%x, %w) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %v:3 = autodiff.value_and_grad @mixed(%n, %s, %m, %y) : (index, f32, tensor<3xi32>, tensor<f32>) -> (tensor<f32>, f32, tensor<f32>)
  %j:2 = autodiff.jvp @mixed(%n, %s, %m, %y) tangents(%y) wrt [3] {tag} : (index, f32, tensor<3xi32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// Custom rules: @sq_vjp(args..., result cotangents...) -> (one cotangent per float arg)
// and @sq_jvp(args..., tangents of float args...) -> (results..., result tangents...).
// CHECK-LABEL: func.func @sq(%{{.*}}: f64, %{{.*}}: index) -> f64 attributes {autodiff.custom_jvp = @sq_jvp, autodiff.custom_vjp = @sq_vjp}
func.func @sq(%x: f64, %k: index) -> f64 attributes {autodiff.custom_jvp = @sq_jvp, autodiff.custom_vjp = @sq_vjp} {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}
func.func @sq_vjp(%x: f64, %k: index, %dy: f64) -> f64 {
  return %dy : f64
}
func.func @sq_jvp(%x: f64, %k: index, %tx: f64) -> (f64, f64) {
  return %x, %tx : f64, f64
}
