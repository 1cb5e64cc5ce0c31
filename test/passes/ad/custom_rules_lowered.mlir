// RUN: irt-opt %s -p ad | FileCheck %s --check-prefix=AD
// RUN: irt-opt %s -p ad,lower-to-llvm | FileCheck %s

// Custom rules on tensor functions survive the lowering: `ad` applies them and drops
// the attributes (bufferization turns the signatures they relate into memref ones).

func.func @clip(%x: tensor<4xf64>) -> tensor<4xf64> attributes {autodiff.custom_vjp = @clip_vjp, autodiff.custom_jvp = @clip_jvp} {
  %r = tensor.tanh %x : tensor<4xf64>
  return %r : tensor<4xf64>
}
func.func @clip_vjp(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  return %ct : tensor<4xf64>
}
func.func @clip_jvp(%x: tensor<4xf64>, %t: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r = tensor.tanh %x : tensor<4xf64>
  return %r, %t : tensor<4xf64>, tensor<4xf64>
}
func.func @unused(%x: f64) -> f64 attributes {autodiff.custom_vjp = @unused_vjp} {
  return %x : f64
}
func.func @unused_vjp(%x: f64, %ct: f64) -> f64 {
  return %ct : f64
}
func.func @loss(%x: tensor<4xf64>) -> f64 {
  %r = func.call @clip(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %s = tensor.reduce_sum %r [0] : tensor<4xf64> -> tensor<f64>
  %e = tensor.extract %s[] : tensor<f64>
  return %e : f64
}
func.func @main(%x: tensor<4xf64>, %t: tensor<4xf64>) -> (tensor<4xf64>, f64) {
  %g = autodiff.grad @loss(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %y, %dy = autodiff.jvp @loss(%x) tangents(%t) : (tensor<4xf64>, tensor<4xf64>) -> (f64, f64)
  return %g, %dy : tensor<4xf64>, f64
}

// AD-NOT: autodiff.
// AD:     func.func @clip(%x: tensor<4xf64>) -> tensor<4xf64> {
// AD:     func.call @clip_vjp(
// AD:     func.call @clip_jvp(

// CHECK-NOT: autodiff.
// CHECK:     llvm.func @clip(
// CHECK:     llvm.func @main(
