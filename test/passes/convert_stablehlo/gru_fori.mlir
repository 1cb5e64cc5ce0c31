// lax.fori_loop: the counter loop becomes loop.for with a static trip count; the weights the
// loop only passes through are used from outside; dynamic_slice clamps its start.
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/gru_fori.f32.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     %[[LB:.*]] = arith.constant 0 : index
// CHECK:     %[[UB:.*]] = arith.constant 5 : index
// CHECK:     %[[STEP:.*]] = arith.constant 1 : index
// CHECK:     loop.for %i = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<i32>, tensor<4x6xf32>) {
// CHECK-NEXT:  func.call @closed_call(%arg4, %arg0, %arg2, %arg1,
// CHECK-NEXT:  loop.yield
// CHECK:     func.func private @dynamic_index_in_dim
// CHECK:       %[[I:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:       %[[LO:.*]] = arith.maxsi %[[I]], %{{.*}} : index
// CHECK:       %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK:       tensor.extract_slice %arg0[0, %[[HI]], 0] [4, 1, 3] [1, 1, 1] : tensor<4x5x3xf32> to tensor<4x1x3xf32>
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x1x3xf32> into tensor<4x3xf32>
