// lax.while_loop with a data-dependent condition: loop.while; its i1 test is extracted
// for loop.condition.
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/newton_while.f64.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     loop.while (%[[X:.*]] = %arg2, %[[N:.*]] = %{{.*}}) : (tensor<5xf64>, tensor<i64>) -> (tensor<5xf64>, tensor<i64>) {
// CHECK:       tensor.reduce_max %{{.*}} [0] : tensor<5xf64> -> tensor<f64>
// CHECK:       %[[TOL:.*]] = tensor.cmp gt,
// CHECK:       tensor.cmp lt, %[[N]],
// CHECK:       %[[BOTH:.*]] = tensor.and %[[TOL]], %{{.*}} : tensor<i1>
// CHECK:       %[[C:.*]] = tensor.extract %[[BOTH]][] : tensor<i1>
// CHECK:       loop.condition(%[[C]]) %[[X]], %[[N]] : tensor<5xf64>, tensor<i64>
// CHECK:     } do {
// CHECK:       tensor.div
// CHECK:       loop.yield
