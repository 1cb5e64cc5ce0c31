// A fixed-step RK4 in lax.fori_loop: loop.for over the state only (the weights are not carried).
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/neural_ode_rk4.f64.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     loop.for %i = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %arg3) -> (tensor<4x3xf64>) {
// CHECK-NEXT:  %[[Y:.*]] = func.call @closed_call(%arg0, %arg1, %arg2, %[[X]])
// CHECK-NEXT:  loop.yield %[[Y]] : tensor<4x3xf64>
// CHECK:     func.func private @closed_call
// CHECK:       tensor.tanh
