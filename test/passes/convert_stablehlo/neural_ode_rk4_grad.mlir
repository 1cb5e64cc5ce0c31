// JAX's own gradient of the RK4 model: forward and backward counter loops, the residual stack
// written and read with insert_slice / extract_slice at the (clamped) counter,
// optimization_barrier forwarded.
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/neural_ode_rk4_grad.f32.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     loop.for %i = %{{.*}} iter_args(%{{.*}} = %arg3, %{{.*}} = %{{.*}}) -> (tensor<4x3xf32>, tensor<10x4x3xf32>) {
// CHECK:       arith.index_cast %i : index to i32
// CHECK:     loop.for %[[J:[a-z0-9_]+]] = %{{.*}} -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<4x3xf32>) {
// CHECK:       arith.index_cast %[[J]] : index to i32
// CHECK:     tensor.insert_slice %{{.*}} into %arg0[%{{.*}}, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<1x4x3xf32> into tensor<10x4x3xf32>
// CHECK:     tensor.extract_slice %arg0[%{{.*}}, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<10x4x3xf32> to tensor<1x4x3xf32>
