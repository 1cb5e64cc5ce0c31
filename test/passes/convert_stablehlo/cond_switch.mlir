// lax.cond and lax.switch: `case` becomes loop.if on `index == k` (branch 0 is the false branch
// of lax.cond; the last branch runs for any other index), nested for three branches.
// RUN: irt-opt %S/../../frontends/stablehlo/corpus/cond_switch.f32.mlir -p convert-stablehlo-to-tensor | filecheck %s

// CHECK-NOT: stablehlo.
// CHECK:     %[[P:.*]] = tensor.convert %{{.*}} : tensor<i1> -> tensor<i32>
// CHECK:     %[[I:.*]] = tensor.extract %[[P]][] : tensor<i32>
// CHECK:     %[[IS0:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : i32
// CHECK:     loop.if %[[IS0]] -> (tensor<4x6xf32>) {
// CHECK:       func.call @clip
// CHECK:     } else {
// CHECK:       tensor.tanh
// CHECK:     loop.if %{{.*}} -> (tensor<4x3xf32>) {
// CHECK:     } else {
// CHECK:       loop.if %{{.*}} -> (tensor<4x3xf32>) {
// CHECK:         tensor.sin
// CHECK:       } else {
// CHECK:         tensor.exp
