// The MLP of the JAX corpus: dense layers become tensor.dot, GELU (tanh form) elementwise tensor ops.
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/mlp_gelu_tanh.f32.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     func.func public @main(%arg0: tensor<16x32xf32>
// CHECK:       tensor.dot %arg4, %arg0 contract [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK:       tensor.broadcast %arg1 [1] : tensor<32xf32> -> tensor<1x32xf32>
// CHECK:       tensor.tanh
// CHECK:       tensor.dot
// CHECK:       tensor.reduce_sum %{{.*}} [0, 1] : tensor<8x4xf32> -> tensor<f32>
// CHECK:       tensor.div
// CHECK-NOT: stablehlo.
